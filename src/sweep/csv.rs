//! The sweep's CSV: a header with the variables and the result column, then one row per
//! point. Rows are appended as points finish (so an interrupted sweep keeps them all) and
//! the file is rewritten in grid order once the sweep is complete.

use super::grid::{has_value, Grid, Values, PENDING};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Quote a field if it needs it (RFC 4180).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Split one CSV line into fields (quoted fields may contain commas and `""`).
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut at_start = true;
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cur.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' && at_start {
            quoted = true;
            at_start = false;
        } else if c == ',' {
            out.push(std::mem::take(&mut cur));
            at_start = true;
        } else {
            cur.push(c);
            at_start = false;
        }
    }
    if quoted {
        return Err("unterminated quoted field".into());
    }
    out.push(cur);
    Ok(out)
}

pub fn header(grid: &Grid, result: &str) -> String {
    let mut h: Vec<String> = grid.ranges.iter().map(|r| field(&r.name)).collect();
    h.push(result.to_string());
    h.join(",")
}

fn row(values: &[i64], result: &str) -> String {
    let mut s = String::new();
    for v in values {
        s.push_str(&v.to_string());
        s.push(',');
    }
    s.push_str(&field(result));
    s
}

/// Read the points already present in `path` (for `--resume`): fills `results` and `values`,
/// returns how many points were found. Rows outside the grid are an error (a different
/// sweep); a row repeated with the same result is accepted.
pub fn read_existing(
    path: &Path,
    grid: &Grid,
    result_col: &str,
    results: &mut [u32],
    values: &mut Values,
) -> Result<usize, String> {
    let f = File::open(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let mut lines = BufReader::new(f).lines();
    let want = header(grid, result_col);
    let Some(first) = lines.next() else {
        return Ok(0); // an empty file: nothing done yet
    };
    let first = first.map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    if first.trim_end() != want {
        return Err(format!(
            "`{}` is not a CSV of this sweep: its header is `{}`, this sweep's is `{want}`",
            path.display(),
            first.trim_end()
        ));
    }
    let nvars = grid.ranges.len();
    let mut found = 0;
    let mut point = Vec::with_capacity(nvars);
    for (lineno, line) in lines.enumerate() {
        let line = line.map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        let lineno = lineno + 2;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: String| format!("{}:{lineno}: {why}", path.display());
        let fields = match split(&line) {
            Ok(f) => f,
            // A last line cut short by an interruption is simply recomputed.
            Err(_) => continue,
        };
        if fields.len() != nvars + 1 {
            // Likewise a truncated last line.
            continue;
        }
        point.clear();
        for f in &fields[..nvars] {
            point.push(
                f.trim()
                    .parse::<i64>()
                    .map_err(|_| bad(format!("`{f}` is not an integer")))?,
            );
        }
        let Some(i) = grid.index(&point) else {
            return Err(bad(format!(
                "the point ({}) is not on this sweep's grid",
                fields[..nvars].join(", ")
            )));
        };
        let v = values.intern(&fields[nvars]);
        if results[i] == PENDING {
            found += 1;
        } else if results[i] != v {
            return Err(bad(format!(
                "the point ({}) appears twice with different results",
                fields[..nvars].join(", ")
            )));
        }
        results[i] = v;
    }
    Ok(found)
}

/// Appends rows as points finish.
pub struct Appender {
    out: BufWriter<File>,
    point: Vec<i64>,
}

impl Appender {
    /// Open `path` for appending; write the header if the file is new or empty.
    pub fn open(path: &Path, header: &str) -> Result<Appender, String> {
        let fresh = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        if !fresh {
            // Make sure a line cut short by an interruption does not swallow the next row.
            let text = std::fs::read(path).unwrap_or_default();
            if text.last().is_some_and(|b| *b != b'\n') {
                f.write_all(b"\n")
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
            }
        }
        let mut out = BufWriter::new(f);
        if fresh {
            writeln!(out, "{header}").map_err(|e| e.to_string())?;
        }
        Ok(Appender {
            out,
            point: Vec::new(),
        })
    }

    pub fn push(&mut self, grid: &Grid, index: usize, result: &str) -> std::io::Result<()> {
        grid.point(index, &mut self.point);
        writeln!(self.out, "{}", row(&self.point, result))
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Write every finished point in grid order to `path` (atomically: a temporary file renamed
/// over it).
pub fn write_sorted(
    path: &Path,
    grid: &Grid,
    header: &str,
    results: &[u32],
    values: &Values,
) -> Result<(), String> {
    let tmp: PathBuf = {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        path.with_file_name(name)
    };
    let err = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    {
        let mut out = BufWriter::new(File::create(&tmp).map_err(err)?);
        writeln!(out, "{header}").map_err(err)?;
        let mut point = Vec::new();
        for (i, &r) in results.iter().enumerate() {
            if has_value(r) {
                grid.point(i, &mut point);
                writeln!(out, "{}", row(&point, values.name(r))).map_err(err)?;
            }
        }
        out.flush().map_err(err)?;
    }
    std::fs::rename(&tmp, path).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips() {
        for s in ["R", "1, 2", "say \"hi\"", "a,\"b\",c", ""] {
            let line = format!("1,{}", field(s));
            assert_eq!(split(&line).unwrap(), vec!["1".to_string(), s.to_string()]);
        }
    }
}
