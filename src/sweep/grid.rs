//! The grid of a sweep: named integer ranges, the points in grid order (the first range is
//! the outermost loop), and the results by point.

use std::fmt;

/// The most points a sweep may have: the results and the work list take 12 bytes a
/// point, so this keeps them within about 300 MB (a sweep that size takes hours anyway).
pub const MAX_POINTS: usize = 25_000_000;

/// One `--range NAME=LO..HI` (both ends included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub name: String,
    pub lo: i64,
    pub hi: i64,
}

impl Range {
    /// Parse `k=1..100`.
    pub fn parse(text: &str) -> Result<Range, String> {
        let (name, span) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}`: expected NAME=LO..HI, e.g. k=1..100"))?;
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_' || c == '\'')
        {
            return Err(format!(
                "`{text}`: the variable name must be a word (letters, digits, - _ ')"
            ));
        }
        let (lo, hi) = span
            .split_once("..")
            .ok_or_else(|| format!("`{text}`: expected NAME=LO..HI, e.g. k=1..100"))?;
        let num = |s: &str| {
            s.trim()
                .parse::<i64>()
                .map_err(|_| format!("`{text}`: `{}` is not an integer", s.trim()))
        };
        let (lo, hi) = (num(lo)?, num(hi)?);
        if lo > hi {
            return Err(format!("`{text}`: the range is empty ({lo} > {hi})"));
        }
        // In i128: `hi - lo` of two i64 may overflow (and wrap to a short range).
        let len = hi as i128 - lo as i128 + 1;
        if len > MAX_POINTS as i128 {
            return Err(format!(
                "`{text}`: the range is too long ({len} values; a sweep has at most {MAX_POINTS} points)"
            ));
        }
        Ok(Range {
            name: name.to_string(),
            lo,
            hi,
        })
    }

    pub fn len(&self) -> usize {
        (self.hi - self.lo + 1) as usize
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}..{}", self.name, self.lo, self.hi)
    }
}

/// The product of the ranges, in grid order: point `i` has the mixed-radix digits of `i`,
/// the first range most significant.
#[derive(Clone, Debug)]
pub struct Grid {
    pub ranges: Vec<Range>,
    len: usize,
}

impl Grid {
    pub fn new(ranges: Vec<Range>) -> Result<Grid, String> {
        let mut len: usize = 1;
        for r in &ranges {
            len = len
                .checked_mul(r.len())
                .filter(|&n| n <= MAX_POINTS)
                .ok_or_else(|| {
                    let n: u128 = ranges.iter().map(|r| r.len() as u128).product();
                    format!(
                        "the grid has {n} points, more than a sweep may have ({MAX_POINTS}: the results alone take 12 bytes a point); sweep it in parts, or with a coarser --range"
                    )
                })?;
        }
        Ok(Grid { ranges, len })
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The values of the variables at point `i`.
    pub fn point(&self, mut i: usize, out: &mut Vec<i64>) {
        out.clear();
        out.resize(self.ranges.len(), 0);
        for (d, r) in self.ranges.iter().enumerate().rev() {
            let n = r.len();
            out[d] = r.lo + (i % n) as i64;
            i /= n;
        }
    }

    /// The index of the point with these values, if it is on the grid.
    pub fn index(&self, values: &[i64]) -> Option<usize> {
        if values.len() != self.ranges.len() {
            return None;
        }
        let mut i = 0usize;
        for (v, r) in values.iter().zip(&self.ranges) {
            if *v < r.lo || *v > r.hi {
                return None;
            }
            i = i * r.len() + (v - r.lo) as usize;
        }
        Some(i)
    }
}

/// Distinct result texts, numbered in order of first appearance; results are stored as
/// these numbers. (A chance sweep has as many distinct results as points: they are found
/// by hash.)
#[derive(Clone, Debug, Default)]
pub struct Values {
    pub names: Vec<String>,
    index: std::collections::HashMap<String, u32>,
}

impl Values {
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }

    pub fn name(&self, v: u32) -> &str {
        &self.names[v as usize]
    }
}

/// No result yet at a point.
pub const PENDING: u32 = u32::MAX;
/// A point excluded by `--where`.
pub const SKIPPED: u32 = u32::MAX - 1;

/// Is there a result (a value) at this point?
pub fn has_value(r: u32) -> bool {
    r != PENDING && r != SKIPPED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_in_grid_order() {
        let g = Grid::new(vec![
            Range::parse("k=1..3").unwrap(),
            Range::parse("n=0..1").unwrap(),
        ])
        .unwrap();
        assert_eq!(g.len(), 6);
        let mut p = Vec::new();
        let all: Vec<Vec<i64>> = (0..6)
            .map(|i| {
                g.point(i, &mut p);
                p.clone()
            })
            .collect();
        assert_eq!(
            all,
            vec![
                vec![1, 0],
                vec![1, 1],
                vec![2, 0],
                vec![2, 1],
                vec![3, 0],
                vec![3, 1]
            ]
        );
        for (i, v) in all.iter().enumerate() {
            assert_eq!(g.index(v), Some(i));
        }
        assert_eq!(g.index(&[4, 0]), None);
    }

    #[test]
    fn ranges_too_long_are_refused_not_wrapped() {
        let e = Range::parse("k=-9223372036854775808..9223372036854775807").unwrap_err();
        assert!(e.contains("too long"), "{e}");
        let r = Range::parse("k=-5..5").unwrap();
        let big = |n: &str| Range::parse(&format!("{n}=1..31622")).unwrap();
        let e = Grid::new(vec![big("k"), big("n")]).unwrap_err();
        assert!(e.contains("999950884 points"), "{e}");
        assert_eq!(Grid::new(vec![r, big("n")]).unwrap().len(), 11 * 31622);
    }

    #[test]
    fn range_syntax() {
        assert_eq!(
            Range::parse("k=-2..5").unwrap(),
            Range {
                name: "k".into(),
                lo: -2,
                hi: 5
            }
        );
        assert!(Range::parse("k=5..2").is_err());
        assert!(Range::parse("k=1-5").is_err());
        assert!(Range::parse("=1..5").is_err());
    }
}
