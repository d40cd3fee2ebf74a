//! Boundary sequences of a two-dimensional sweep: for each value of the outer variable, the
//! runs of equal results along the inner variable, and the starts and ends of those runs as
//! integer sequences (for the heaps game, the a_n and b_n of seed 003, section 5).

use super::grid::{has_value, Grid, Values, PENDING};
use std::fmt::Write;

/// A maximal run of one result along the inner variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub value: u32,
    pub start: i64,
    pub end: i64,
}

/// The runs of one row (one value of the outer variable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub outer: i64,
    pub runs: Vec<Run>,
}

/// The runs of every row of a complete two-dimensional sweep (points left out by
/// `--where` end runs and belong to none).
pub fn rows(grid: &Grid, results: &[u32]) -> Vec<Row> {
    let (outer, inner) = (&grid.ranges[0], &grid.ranges[1]);
    let w = inner.len();
    (0..outer.len())
        .map(|i| {
            let mut runs: Vec<Run> = Vec::new();
            let mut gap = true;
            for j in 0..w {
                let v = results[i * w + j];
                let x = inner.lo + j as i64;
                if !has_value(v) {
                    // A point left out by --where ends the run.
                    gap = true;
                    continue;
                }
                let open = !gap;
                gap = false;
                match runs.last_mut() {
                    Some(r) if open && r.value == v => r.end = x,
                    _ => runs.push(Run {
                        value: v,
                        start: x,
                        end: x,
                    }),
                }
            }
            Row {
                outer: outer.lo + i as i64,
                runs,
            }
        })
        .collect()
}

/// One boundary sequence: the starts (or ends) of the `nth` run (1-based) of `value`, for
/// the rows that have such a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    pub value: u32,
    pub nth: usize,
    pub ends: bool,
    /// (outer value, start or end)
    pub terms: Vec<(i64, i64)>,
}

/// Every boundary sequence, for the values in `order`.
pub fn sequences(rows: &[Row], order: &[u32]) -> Vec<Sequence> {
    let mut out = Vec::new();
    for &value in order {
        let most = rows
            .iter()
            .map(|r| r.runs.iter().filter(|x| x.value == value).count())
            .max()
            .unwrap_or(0);
        for nth in 1..=most {
            for ends in [false, true] {
                let terms = rows
                    .iter()
                    .filter_map(|r| {
                        r.runs
                            .iter()
                            .filter(|x| x.value == value)
                            .nth(nth - 1)
                            .map(|x| (r.outer, if ends { x.end } else { x.start }))
                    })
                    .collect();
                out.push(Sequence {
                    value,
                    nth,
                    ends,
                    terms,
                });
            }
        }
    }
    out
}

/// The order in which results are reported: B, R, draw, true, false, then the rest.
pub fn value_order(values: &Values) -> Vec<u32> {
    let rank = |s: &str| match s {
        "B" => 0,
        "R" => 1,
        "draw" => 2,
        "true" => 3,
        "false" => 4,
        _ => 5,
    };
    let mut v: Vec<u32> = (0..values.names.len() as u32).collect();
    v.sort_by(|a, b| {
        let (x, y) = (values.name(*a), values.name(*b));
        rank(x).cmp(&rank(y)).then_with(|| x.cmp(y))
    });
    v
}

fn describe_outer(name: &str, terms: &[(i64, i64)], rows: &[Row]) -> String {
    let (Some(first), Some(last)) = (terms.first(), terms.last()) else {
        return format!("no {name}");
    };
    if terms.len() == rows.len() || (last.0 - first.0 + 1) as usize == terms.len() {
        format!("{name}={}..{}", first.0, last.0)
    } else {
        format!(
            "{} values of {name} from {} to {}",
            terms.len(),
            first.0,
            last.0
        )
    }
}

/// The report printed after a complete 2-D Boolean or outcome sweep.
pub fn report(grid: &Grid, results: &[u32], values: &Values, what: &str) -> String {
    debug_assert!(results.iter().all(|r| *r != PENDING));
    let (outer, inner) = (&grid.ranges[0].name, &grid.ranges[1].name);
    let rows = rows(grid, results);
    let order = value_order(values);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "boundaries: for each {outer}, the runs of {what} along {inner} ({inner}=start..end)"
    );
    for r in &rows {
        let runs: Vec<String> = r
            .runs
            .iter()
            .map(|x| {
                if x.start == x.end {
                    format!("{} {}", values.name(x.value), x.start)
                } else {
                    format!("{} {}..{}", values.name(x.value), x.start, x.end)
                }
            })
            .collect();
        let _ = writeln!(s, "  {outer}={}: {}", r.outer, runs.join(", "));
    }
    let _ = writeln!(
        s,
        "boundary sequences (comma-separated, for the OEIS search):"
    );
    for q in sequences(&rows, &order) {
        let numbers: Vec<String> = q.terms.iter().map(|t| t.1.to_string()).collect();
        let _ = writeln!(
            s,
            "  {} of run {} of {} along {inner}, {}:",
            if q.ends { "end" } else { "start" },
            q.nth,
            values.name(q.value),
            describe_outer(outer, &q.terms, &rows)
        );
        let _ = writeln!(s, "    {}", numbers.join(", "));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::grid::Range;

    #[test]
    fn runs_and_sequences() {
        let grid = Grid::new(vec![
            Range::parse("k=1..2").unwrap(),
            Range::parse("n=1..4").unwrap(),
        ])
        .unwrap();
        let mut values = Values::default();
        let (b, r) = (values.intern("B"), values.intern("R"));
        let results = vec![b, r, r, r, r, b, b, r];
        let rows = rows(&grid, &results);
        assert_eq!(
            rows[1].runs,
            vec![
                Run {
                    value: r,
                    start: 1,
                    end: 1
                },
                Run {
                    value: b,
                    start: 2,
                    end: 3
                },
                Run {
                    value: r,
                    start: 4,
                    end: 4
                }
            ]
        );
        let seqs = sequences(&rows, &[b, r]);
        assert_eq!(seqs[0].terms, vec![(1, 1), (2, 2)]);
        assert_eq!(seqs[1].terms, vec![(1, 1), (2, 3)]);
        // R: run 2 only in row 2
        assert_eq!(seqs[4].terms, vec![(2, 4)]);
        let text = report(&grid, &results, &values, "the winner");
        assert!(text.contains("k=2: R 1, B 2..3, R 4"), "{text}");
        assert!(
            text.contains("start of run 1 of B along n, k=1..2:\n    1, 2\n"),
            "{text}"
        );
    }
}
