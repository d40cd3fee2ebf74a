//! The sweep's CSV: a comment line with the question (so that `--resume` can refuse a CSV
//! of another sweep), a header with the variables and the result column, then one row per
//! point. A result may fill several columns (a chance sweep's decimal and exact
//! probability): it is stored as one text, its fields separated by [`SEP`]. Rows are appended as points finish (so an interrupted sweep keeps them all) and
//! the file is rewritten in grid order once the sweep is complete.

pub use super::chance::SEP;
use super::grid::{has_value, Grid, Values, PENDING};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Quote a field if it needs it (RFC 4180).
pub fn field(s: &str) -> String {
    if needs_quotes(s) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Does `s` need quotes to be one CSV field?
fn needs_quotes(s: &str) -> bool {
    s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ')
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

/// The first two lines: `# gamelang sweep: QUESTION`, then the column names (the
/// variables, then the result's columns).
pub fn header(grid: &Grid, columns: &[&str], question: &str) -> String {
    let mut h: Vec<String> = grid.ranges.iter().map(|r| field(&r.name)).collect();
    h.extend(columns.iter().map(|c| field(c)));
    format!("{}\n{}", comment(question), h.join(","))
}

/// The comment line that records the question.
fn comment(question: &str) -> String {
    format!("# gamelang sweep: {}", question.replace(['\n', '\r'], " "))
}

/// Write one row (the point's values, then the result's fields) and its line end to `out`.
/// Straight into the writer, without a `String` per row: on a sweep whose points take a
/// few microseconds (the heaps game), building rows as strings was a tenth of the time.
fn write_row(out: &mut impl Write, values: &[i64], result: &str) -> std::io::Result<()> {
    // itoa, not `write!`: the formatting machinery took about 500 instructions a number,
    // a twentieth of a heaps sweep's time, on the thread that writes while two work.
    let mut digits = itoa::Buffer::new();
    for &v in values {
        out.write_all(digits.format(v).as_bytes())?;
        out.write_all(b",")?;
    }
    for (i, f) in result.split(SEP).enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        if needs_quotes(f) {
            out.write_all(field(f).as_bytes())?;
        } else {
            out.write_all(f.as_bytes())?;
        }
    }
    out.write_all(b"\n")
}

/// Read the points already present in `path` (for `--resume`): fills `results` and `values`,
/// returns how many points were found. A CSV of another question (its comment line), of
/// another grid (its header, or rows outside the grid), or with a row that is not a point
/// and a result is an error; only a last line cut short (no line end: the sweep was killed
/// while writing it) is dropped and recomputed. A row repeated with the same result is
/// accepted. `valid` says which results may appear (and why not).
pub fn read_existing(
    path: &Path,
    grid: &Grid,
    header: &str,
    valid: &mut dyn FnMut(&str) -> Result<(), String>,
    results: &mut [u32],
    values: &mut Values,
) -> Result<usize, String> {
    let text = std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let text = String::from_utf8(text).map_err(|_| {
        format!(
            "`{}` is not a CSV written by a sweep (not UTF-8)",
            path.display()
        )
    })?;
    if text.is_empty() {
        return Ok(0); // an empty file: nothing done yet
    }
    // A last line without its line end was cut short: it is recomputed.
    let complete = match text.rfind('\n') {
        Some(k) => &text[..k + 1],
        None => "",
    };
    let mut lines = complete.lines();
    let want: Vec<&str> = header.lines().collect();
    let got: Vec<&str> = lines.by_ref().take(want.len()).collect();
    if got.len() < want.len() && want.starts_with(&got) {
        return Ok(0); // cut within the header: nothing done yet
    }
    if got.first() != want.first() {
        return Err(match got.first().filter(|l| l.starts_with('#')) {
            Some(line) => format!(
                "`{}` is the CSV of another sweep: it says `{}`, this sweep is `{}`; give another --csv, or run that sweep to resume it",
                path.display(),
                line.trim_end(),
                want[0]
            ),
            None => format!(
                "`{}` does not say which sweep wrote it (its first line should be `{}`): it cannot be resumed safely",
                path.display(),
                want[0]
            ),
        });
    }
    if got.get(1) != want.get(1) {
        return Err(format!(
            "`{}` is not a CSV of this sweep: its header is `{}`, this sweep's is `{}`",
            path.display(),
            got.get(1).map_or("", |l| l.trim_end()),
            want.get(1).unwrap_or(&"")
        ));
    }
    let nvars = grid.ranges.len();
    let ncols = want
        .get(1)
        .and_then(|h| split(h).ok())
        .map_or(1, |h| h.len().saturating_sub(nvars).max(1));
    let mut found = 0;
    let mut point = Vec::with_capacity(nvars);
    for (lineno, line) in lines.enumerate() {
        let lineno = lineno + want.len() + 1;
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: String| {
            format!(
                "{}:{lineno}: {why}; this is not a row this sweep wrote (remove the line, or start the sweep afresh)",
                path.display()
            )
        };
        let fields = split(line).map_err(&bad)?;
        if fields.len() != nvars + ncols {
            return Err(bad(format!(
                "`{line}` has {} fields, not {}",
                fields.len(),
                nvars + ncols
            )));
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
        let result = fields[nvars..].join(&SEP.to_string());
        if let Err(why) = valid(&result) {
            return Err(bad(format!(
                "`{}` is not a result: {why}",
                fields[nvars..].join(",")
            )));
        }
        let v = values.intern(&result);
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
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        if !fresh {
            // A line cut short by an interruption (which --resume recomputes) goes, so that
            // it neither swallows the next row nor stays in the middle of the file.
            let text = std::fs::read(path).unwrap_or_default();
            if text.last().is_some_and(|b| *b != b'\n') {
                let keep = text.iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
                f.set_len(keep as u64)
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
        write_row(&mut self.out, &self.point, result)
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
    // Through a symbolic link: the file it names is replaced, and the link stays.
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let tmp: PathBuf = {
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(".tmp");
        target.with_file_name(name)
    };
    let err = |e: std::io::Error| format!("cannot write `{}`: {e}", path.display());
    {
        let created = File::create(&tmp).map_err(|e| {
            format!(
                "cannot write `{}`: cannot create `{}` beside it (the CSV is written there, then renamed): {e}",
                path.display(),
                tmp.display()
            )
        })?;
        let mut out = BufWriter::new(created);
        writeln!(out, "{header}").map_err(err)?;
        let mut point = Vec::new();
        for (i, &r) in results.iter().enumerate() {
            if has_value(r) {
                grid.point(i, &mut point);
                write_row(&mut out, &point, values.name(r)).map_err(err)?;
            }
        }
        out.flush().map_err(err)?;
    }
    std::fs::rename(&tmp, &target).map_err(err)
}

/// Where a path leads, for telling whether two options name one file: the path with its
/// links resolved (its directory's, when the file does not exist yet).
pub fn identity(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match std::fs::canonicalize(dir) {
        Ok(d) => d.join(path.file_name().unwrap_or_default()),
        Err(_) => path.to_path_buf(),
    }
}

/// Refuse a `--csv` or `--resume` path that is not a regular file (or a link to one): a
/// named pipe, a device (`/dev/stdout`) or a directory cannot be rewritten in grid order
/// at the end, and replacing it with a file would break whatever it was.
pub fn check_output(option: &str, path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let name = path.display();
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let Ok(m) = std::fs::metadata(path) else {
        return match is_link {
            // (Renaming the CSV over it would replace the link itself.)
            true => Err(format!(
                "{option} `{name}` is a symbolic link to a file that does not exist; create the file, or give its path"
            )),
            false => Ok(()), // a new file
        };
    };
    let same =
        |s: Option<std::fs::Metadata>| s.is_some_and(|s| s.dev() == m.dev() && s.ino() == m.ino());
    if same(std_metadata(&std::io::stdout())) || same(std_metadata(&std::io::stderr())) {
        return Err(format!(
            "{option} `{name}` is where gamelang's own output goes (standard output or error): the CSV is rewritten in grid order at the end, so it needs a file of its own"
        ));
    }
    if !m.is_file() {
        let what = if m.is_dir() {
            "a directory"
        } else {
            "not a regular file (a named pipe, a device or a socket)"
        };
        return Err(format!(
            "{option} `{name}` is {what}: the CSV is appended to as points finish and rewritten in grid order at the end, so it must be a regular file (it can be read while the sweep runs, e.g. with `tail -f`)"
        ));
    }
    if is_link && std::fs::canonicalize(path).is_err() {
        return Err(format!(
            "{option} `{name}` is a symbolic link whose file cannot be named; give the file's path"
        ));
    }
    Ok(())
}

/// What standard output or error is, if it can be asked.
fn std_metadata(stream: &impl std::os::fd::AsFd) -> Option<std::fs::Metadata> {
    let fd = stream.as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        Grid::new(vec![
            super::super::grid::Range::parse("k=1..3").unwrap(),
            super::super::grid::Range::parse("n=1..3").unwrap(),
        ])
        .unwrap()
    }

    /// Resume from `text`: the points read, or the error.
    fn resume(text: &str) -> Result<(usize, Vec<u32>, Values), String> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "gamelang-csv-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&dir, text).unwrap();
        let g = grid();
        let mut results = vec![PENDING; g.len()];
        let mut values = Values::default();
        let mut valid = |r: &str| match ["B", "R", "draw"].contains(&r) {
            true => Ok(()),
            false => Err("not a winner".to_string()),
        };
        let header = header(&g, &["winner"], "game heaps, --from (k n), --first R");
        let n = read_existing(&dir, &g, &header, &mut valid, &mut results, &mut values);
        let _ = std::fs::remove_file(&dir);
        n.map(|n| (n, results, values))
    }

    const HEAD: &str = "# gamelang sweep: game heaps, --from (k n), --first R\nk,n,winner\n";

    #[test]
    fn resume_reads_rows_and_recomputes_a_cut_last_line() {
        let (n, results, values) = resume(&format!("{HEAD}1,1,B\n1,2,R\n1,3,")).unwrap();
        assert_eq!(n, 2, "the cut row `1,3,` is recomputed, not kept empty");
        assert_eq!(results[2], PENDING);
        assert_eq!(values.names, ["B", "R"]);
        // Cut within the header: nothing done yet.
        assert_eq!(resume("# gamelang sweep: game heaps").unwrap().0, 0);
    }

    #[test]
    fn resume_refuses_rows_that_are_not_results() {
        for (body, what) in [
            ("banana\n", "has 1 fields"),
            ("1,1,banana\n", "`banana` is not a result"),
            ("1,3,\n", "`` is not a result"),
            ("9,9,B\n", "not on this sweep's grid"),
            ("1,1,B\n1,1,R\n", "twice with different results"),
        ] {
            let e = resume(&format!("{HEAD}{body}")).unwrap_err();
            assert!(e.contains(what), "{body}: {e}");
        }
    }

    #[test]
    fn resume_refuses_the_csv_of_another_question() {
        let other = "# gamelang sweep: game heaps, --from (k n), --first B\nk,n,winner\n1,1,B\n";
        let e = resume(other).unwrap_err();
        assert!(
            e.contains("the CSV of another sweep") && e.contains("--first B"),
            "{e}"
        );
        let e = resume("k,n,winner\n1,1,B\n").unwrap_err();
        assert!(e.contains("does not say which sweep wrote it"), "{e}");
    }

    #[test]
    fn quoting_round_trips() {
        for s in ["R", "1, 2", "say \"hi\"", "a,\"b\",c", ""] {
            let line = format!("1,{}", field(s));
            assert_eq!(split(&line).unwrap(), vec!["1".to_string(), s.to_string()]);
        }
    }
}
