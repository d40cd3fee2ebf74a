//! `--profile`: the table of what a run's rewrites were, equation by equation and built-in
//! by built-in (the engine's [`Profile`]), most first, each equation shown as written and
//! where; `--profile=json` writes the same as one JSON object on one line, for scripts
//! (see [`json`] for its keys).

use gamelang_lang::elab::Session;
use gamelang_lang::program::Program;
use gamelang_lang::span::Sources;
use gamelang_runtime::{Engine, Profile};
use serde_json::{json, Value};
use std::io::{self, Write};

/// How `--profile` prints: `--profile` (or `--profile=table`) the table, `--profile=json`
/// one JSON object on one line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The table, most rewrites first (as Maude's `show profile .`).
    #[default]
    Table,
    /// One JSON object on one line: `rewrites`, `equations`, `builtins`, `answered`.
    Json,
}

/// An equation's text is cut after this many characters.
const TEXT_MAX: usize = 72;

/// One line of the table.
struct Row {
    rewrites: u64,
    /// Matches whose condition was false (conditional equations only).
    cond_false: Option<u64>,
    what: Counted,
}

/// What a row counts: an equation (where it is written, its text on one line) or a
/// built-in operator.
enum Counted {
    Equation {
        file: String,
        line: usize,
        text: String,
    },
    Builtin(String),
}

impl Row {
    /// `file:line` of an equation, with the file's name only (the table's "where").
    fn place(&self) -> String {
        match &self.what {
            Counted::Equation { file, line, .. } => {
                format!("{}:{line}", file.rsplit('/').next().unwrap_or(file))
            }
            Counted::Builtin(_) => String::new(),
        }
    }

    /// The table's "what": the equation cut to [`TEXT_MAX`] characters, or the built-in.
    fn what(&self) -> String {
        match &self.what {
            Counted::Equation { text, .. } => cut(text),
            Counted::Builtin(name) => format!("built-in {name}"),
        }
    }
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
        rows.push(Row {
            rewrites,
            cond_false: eq.cond.is_some().then_some(refused),
            what: Counted::Equation {
                file: sources.name(eq.span.file).to_string(),
                line,
                text: one_line(sources.snippet(eq.span)),
            },
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
            what: Counted::Builtin(name.to_string()),
        });
    }
    // (A stable sort: ties stay in the program's order.)
    rows.sort_by(|a, b| {
        (b.rewrites, b.cond_false.unwrap_or(0)).cmp(&(a.rewrites, a.cond_false.unwrap_or(0)))
    });
    rows
}

/// `text` on one line (runs of white space as one space).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to [`TEXT_MAX`] characters (the last one `…` where it was cut).
fn cut(text: &str) -> String {
    if text.chars().count() <= TEXT_MAX {
        text.to_string()
    } else {
        let kept: String = text.chars().take(TEXT_MAX - 1).collect();
        format!("{kept}…")
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

/// Write `profile` (a profile of `program`, whose sources are `sources`) in `format`.
pub fn write_as(
    out: &mut dyn Write,
    profile: &Profile,
    program: &Program,
    sources: &Sources,
    format: Format,
) -> io::Result<()> {
    match format {
        Format::Table => write(out, profile, program, sources),
        Format::Json => writeln!(out, "{}", json(profile, program, sources)),
    }
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
    write_answers(out, &answers(profile, program))
}

/// `profile` as JSON, in the table's order: `rewrites` (the total), `equations` (each
/// equation that was applied or whose condition refused a match: `rewrites`, `cond_false`
/// — `null` for an equation without a condition —, `file`, `line` and its `equation` on one
/// line), `builtins` (`op`, `rewrites`) and `answered` (the calls answered without
/// rewriting: `op`, `by` — `"call cache"` or `"memo"` —, `calls`).
pub fn json(profile: &Profile, program: &Program, sources: &Sources) -> Value {
    let (mut equations, mut builtins) = (Vec::new(), Vec::new());
    for r in rows(profile, program, sources) {
        match r.what {
            Counted::Equation { file, line, text } => equations.push(json!({
                "rewrites": r.rewrites,
                "cond_false": r.cond_false,
                "file": file,
                "line": line,
                "equation": text,
            })),
            Counted::Builtin(op) => builtins.push(json!({"op": op, "rewrites": r.rewrites})),
        }
    }
    let answered: Vec<Value> = answers(profile, program)
        .into_iter()
        .map(|a| {
            json!({"op": a.op, "by": match a.by {
                Answerer::Memo => "memo",
                Answerer::CallCache => "call cache",
            }, "calls": a.calls})
        })
        .collect();
    json!({
        "rewrites": profile.total(),
        "equations": equations,
        "builtins": builtins,
        "answered": answered,
    })
}

/// What answered calls without rewriting them.
#[derive(Clone, Copy)]
enum Answerer {
    Memo,
    CallCache,
}

/// Calls of an operator answered without rewriting.
struct Answered {
    calls: u64,
    op: String,
    by: Answerer,
}

/// The calls answered without rewriting, by operator, most first: what the call cache
/// and the memo tables saved.
fn answers(profile: &Profile, program: &Program) -> Vec<Answered> {
    let mut answers = Vec::new();
    for (hits, by) in [
        (&profile.memo_hits, Answerer::Memo),
        (&profile.cache_hits, Answerer::CallCache),
    ] {
        for (op, &n) in hits.iter().enumerate() {
            if n > 0 {
                let name = program.sig.ops.get(op).map_or("?", |o| o.name.as_str());
                answers.push(Answered {
                    calls: n,
                    op: name.to_string(),
                    by,
                });
            }
        }
    }
    // (A stable sort: ties stay memo tables first, then in the program's order.)
    answers.sort_by_key(|a| std::cmp::Reverse(a.calls));
    answers
}

/// The table of the calls answered without rewriting.
fn write_answers(out: &mut dyn Write, answers: &[Answered]) -> io::Result<()> {
    if answers.is_empty() {
        return Ok(());
    }
    let w = answers
        .iter()
        .map(|a| grouped(a.calls).len())
        .max()
        .unwrap_or(0)
        .max(8);
    writeln!(out, "calls answered without rewriting (not counted above):")?;
    writeln!(out, "{:>w$}  answered by", "calls")?;
    for a in answers {
        let by = match a.by {
            Answerer::Memo => "its memo table",
            Answerer::CallCache => "the call cache",
        };
        writeln!(out, "{:>w$}  {}: {by}", grouped(a.calls), a.op)?;
    }
    Ok(())
}

/// The table of rewrites.
fn write_rows(out: &mut dyn Write, rows: &[Row], total: u64) -> io::Result<()> {
    let place_w = rows
        .iter()
        .map(|r| r.place().len())
        .max()
        .unwrap_or(0)
        .max(5);
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
            r.place(),
            r.what()
        )?;
    }
    Ok(())
}

/// What `show profile .` prints when no reduction was profiled.
pub const NOTHING_PROFILED: &str =
    "profile: no reduction was profiled (`set profile on .` before it)";

/// Print `profile` to standard error in `format`: what a command whose standard output is
/// its answer (`solve`, `sweep`, `playout`, `match`) prints last.
pub fn to_stderr(profile: &Profile, program: &Program, sources: &Sources, format: Format) {
    let _ = write_as(&mut io::stderr().lock(), profile, program, sources, format);
}

/// [`to_stderr`] of the profile `engine` recorded, if it was profiling.
pub fn report_to_stderr(engine: &mut Engine, session: &Session, format: Format) {
    if let Some(profile) = engine.take_profile() {
        to_stderr(&profile, engine.program(), &session.sources, format);
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
        let short = cut(&one_line(&long));
        assert_eq!(short.chars().count(), TEXT_MAX);
        assert!(short.ends_with('…'));
        // The JSON form keeps the whole equation.
        assert_eq!(one_line(&long), long);
    }
}
