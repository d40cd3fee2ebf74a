//! `--profile`: the table of what a run's rewrites were, equation by equation and built-in
//! by built-in (the engine's [`Profile`]), most first, each equation shown as written and
//! where.

use gamelang_lang::elab::Session;
use gamelang_lang::program::Program;
use gamelang_lang::span::Sources;
use gamelang_runtime::{Engine, Profile};
use std::io::{self, Write};

/// An equation's text is cut after this many characters.
const TEXT_MAX: usize = 72;

/// One line of the table.
struct Row {
    rewrites: u64,
    /// Matches whose condition was false (conditional equations only).
    cond_false: Option<u64>,
    what: String,
    place: String,
}

/// The rows of `profile`, most rewrites first (then most refused matches, then the order
/// of the program).
fn rows(profile: &Profile, program: &Program, sources: &Sources) -> Vec<Row> {
    let mut rows = Vec::new();
    for (e, eq) in program.equations.iter().enumerate() {
        let rewrites = profile.eq_rewrites.get(e).copied().unwrap_or(0);
        let refused = profile.eq_cond_false.get(e).copied().unwrap_or(0);
        if rewrites == 0 && refused == 0 {
            continue;
        }
        let (line, _) = sources.line_col(eq.span.file, eq.span.start);
        let file = sources.name(eq.span.file);
        let file = file.rsplit('/').next().unwrap_or(file);
        rows.push(Row {
            rewrites,
            cond_false: eq.cond.is_some().then_some(refused),
            what: one_line(sources.snippet(eq.span)),
            place: format!("{file}:{line}"),
        });
    }
    for (op, &n) in profile.op_rewrites.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let name = program.sig.ops.get(op).map_or("?", |o| o.name.as_str());
        rows.push(Row {
            rewrites: n,
            cond_false: None,
            what: format!("built-in {name}"),
            place: String::new(),
        });
    }
    // (A stable sort: ties stay in the program's order.)
    rows.sort_by(|a, b| {
        (b.rewrites, b.cond_false.unwrap_or(0)).cmp(&(a.rewrites, a.cond_false.unwrap_or(0)))
    });
    rows
}

/// `text` on one line (runs of white space as one space), cut to [`TEXT_MAX`] characters.
fn one_line(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let joined = words.join(" ");
    if joined.chars().count() <= TEXT_MAX {
        joined
    } else {
        let cut: String = joined.chars().take(TEXT_MAX - 1).collect();
        format!("{cut}…")
    }
}

/// `n` with thousands separated by commas.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Write the table of `profile` (a profile of `program`, whose sources are `sources`).
pub fn write(
    out: &mut dyn Write,
    profile: &Profile,
    program: &Program,
    sources: &Sources,
) -> io::Result<()> {
    let total = profile.total();
    writeln!(out, "profile: {} rewrites", grouped(total))?;
    let rows = rows(profile, program, sources);
    if !rows.is_empty() {
        write_rows(out, &rows, total)?;
    }
    write_answers(out, profile, program)
}

/// The calls answered without rewriting, by operator, most first: what the call cache
/// and the memo tables saved.
fn write_answers(out: &mut dyn Write, profile: &Profile, program: &Program) -> io::Result<()> {
    let mut answers: Vec<(u64, String)> = Vec::new();
    for (hits, how) in [
        (&profile.memo_hits, "its memo table"),
        (&profile.cache_hits, "the call cache"),
    ] {
        for (op, &n) in hits.iter().enumerate() {
            if n > 0 {
                let name = program.sig.ops.get(op).map_or("?", |o| o.name.as_str());
                answers.push((n, format!("{name}: {how}")));
            }
        }
    }
    if answers.is_empty() {
        return Ok(());
    }
    answers.sort_by_key(|a| std::cmp::Reverse(a.0));
    let w = answers
        .iter()
        .map(|(n, _)| grouped(*n).len())
        .max()
        .unwrap_or(0)
        .max(8);
    writeln!(out, "calls answered without rewriting (not counted above):")?;
    writeln!(out, "{:>w$}  answered by", "calls")?;
    for (n, what) in &answers {
        writeln!(out, "{:>w$}  {what}", grouped(*n))?;
    }
    Ok(())
}

/// The table of rewrites.
fn write_rows(out: &mut dyn Write, rows: &[Row], total: u64) -> io::Result<()> {
    let place_w = rows.iter().map(|r| r.place.len()).max().unwrap_or(0).max(5);
    let count_w = rows
        .iter()
        .map(|r| grouped(r.rewrites).len())
        .max()
        .unwrap_or(0)
        .max(8);
    let refused_w = rows
        .iter()
        .filter_map(|r| r.cond_false)
        .map(|n| grouped(n).len())
        .max()
        .unwrap_or(0)
        .max(10);
    writeln!(
        out,
        "{:>count_w$} {:>6} {:>refused_w$}  {:<place_w$}  what",
        "rewrites", "%", "cond false", "where"
    )?;
    for r in rows {
        let share = if total == 0 {
            0.0
        } else {
            100.0 * r.rewrites as f64 / total as f64
        };
        let refused = r.cond_false.map_or(String::new(), grouped);
        writeln!(
            out,
            "{:>count_w$} {:>5.1}% {:>refused_w$}  {:<place_w$}  {}",
            grouped(r.rewrites),
            share,
            refused,
            r.place,
            r.what
        )?;
    }
    Ok(())
}

/// What `show profile .` prints when no reduction was profiled.
pub const NOTHING_PROFILED: &str =
    "profile: no reduction was profiled (`set profile on .` before it)";

/// Print `profile` to standard error: what a command whose standard output is its answer
/// (`solve`, `sweep`, `playout`, `match`) prints last.
pub fn to_stderr(profile: &Profile, program: &Program, sources: &Sources) {
    let _ = write(&mut io::stderr().lock(), profile, program, sources);
}

/// [`to_stderr`] of the profile `engine` recorded, if it was profiling.
pub fn report_to_stderr(engine: &mut Engine, session: &Session) {
    if let Some(profile) = engine.take_profile() {
        to_stderr(&profile, engine.program(), &session.sources);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
    }

    #[test]
    fn long_equations_are_cut_on_one_line() {
        assert_eq!(one_line("eq  f(X)\n    = g(X) ."), "eq f(X) = g(X) .");
        let long = format!("eq f(X) = {} .", "g(".repeat(60));
        let cut = one_line(&long);
        assert_eq!(cut.chars().count(), TEXT_MAX);
        assert!(cut.ends_with('…'));
    }
}
