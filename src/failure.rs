//! Every error the command line reports, through one type: [`Failure`].
//!
//! Most errors have a place in a source file (a `.game` file, a BDDL file, a term given with
//! `--from`): they are [`Diag`]s, rendered by codespan-reporting with the source underlined.
//! The others have no such place — a bad command-line argument, a file that cannot be read
//! or written, a solver process that fails, a resumed CSV from another sweep, a resource
//! limit — and are a `Failure` made here: a code (`gamelang::usage`, …), the message, and a
//! `help` line saying what to do. `Failure` is a `miette::Diagnostic`, rendered by a miette
//! report handler ([`CodespanStyle`]) that writes the layout and colours codespan-reporting
//! gives the located errors, so that both kinds look alike:
//!
//! ```text
//! error[gamelang::usage]: --depth takes a number of plies or `auto`, not `x`
//!  = help: give a number, e.g. --depth 5, or --depth auto
//! ```
//!
//! A located error becomes a `Failure` too ([`Failure::located`]), keeping its codespan
//! rendering, so that [`Failure::report`] is the one place that prints errors. Under
//! `--json` ([`set_json`]) every error, located or not, is printed instead as one line of
//! JSON on standard error — standard output holds only results, so a script reads results
//! from one stream and errors from the other, and the exit status says which happened:
//!
//! ```text
//! {"error":{"code":"gamelang::usage","message":"…","help":"…","notes":[],"labels":[]}}
//! ```
//!
//! Warnings go the same way ([`warning`]): `{"warning": {"message": …}}`.
//!
//! A located error's `labels` give `file`, `line`, `column` (1-based), `end_line`,
//! `end_column`, `message` and `primary`; its notes are `notes` (a note starting `help: `
//! is its `help`).

use codespan_reporting::files::Files;
use codespan_reporting::term::termcolor::{self, WriteColor};
use codespan_reporting::term::Styles;
use gamelang_lang::diag::Diag;
use gamelang_lang::span::Sources;
use serde_json::json;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

/// What kind of error, shown as its code. Each kind has its usual exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Command-line arguments that do not fit together or cannot be read (exit 2).
    Usage,
    /// A file that cannot be read or written (exit 1).
    Io,
    /// The QBF solver could not be run, or gave no usable answer (exit 1).
    Solver,
    /// `sweep --resume` read a CSV that does not belong to this sweep (exit 2).
    Resume,
    /// A resource limit was reached: memory, size of an encoding, points of a grid (exit 1).
    Limit,
    /// Ctrl-C (exit 130).
    Interrupted,
    /// An error at a place in a source: a program that does not load, a term that does not
    /// parse, a reduction that fails (exit 1).
    Program,
    /// Something that should not happen: a bug in gamelang (exit 70, as `sysexits.h`).
    Bug,
}

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::Usage => "gamelang::usage",
            Code::Io => "gamelang::io",
            Code::Solver => "gamelang::solver",
            Code::Resume => "gamelang::resume",
            Code::Limit => "gamelang::limit",
            Code::Interrupted => "gamelang::interrupted",
            Code::Program => "gamelang::program",
            Code::Bug => "gamelang::bug",
        }
    }

    /// The code a [`Diag`] names (`Program` when it names none).
    fn of_diag(d: &Diag) -> Code {
        let all = [
            Code::Usage,
            Code::Io,
            Code::Solver,
            Code::Resume,
            Code::Limit,
            Code::Interrupted,
            Code::Bug,
        ];
        d.code
            .and_then(|name| all.into_iter().find(|c| c.name() == name))
            .unwrap_or(Code::Program)
    }

    fn exit_status(self) -> u8 {
        match self {
            Code::Usage | Code::Resume => 2,
            Code::Interrupted => 130,
            Code::Bug => 70,
            Code::Io | Code::Solver | Code::Limit | Code::Program => 1,
        }
    }
}

/// One error, ready to report.
#[derive(Clone, Debug)]
pub struct Failure {
    code: Code,
    message: String,
    help: Option<String>,
    status: u8,
    /// Set for an error with a place in a source (see [`Failure::located`]); boxed, so
    /// that a `Result<_, Failure>` stays small.
    located: Option<Box<Located>>,
}

/// A [`Diag`] as reported: its codespan rendering, and what JSON shows of it.
#[derive(Clone, Debug)]
struct Located {
    rendered: String,
    notes: Vec<String>,
    labels: Vec<serde_json::Value>,
}

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            help: None,
            status: code.exit_status(),
            located: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(Code::Usage, message)
    }

    pub fn io(message: impl Into<String>) -> Failure {
        Failure::new(Code::Io, message)
    }

    pub fn solver(message: impl Into<String>) -> Failure {
        Failure::new(Code::Solver, message)
    }

    pub fn resume(message: impl Into<String>) -> Failure {
        Failure::new(Code::Resume, message)
    }

    pub fn limit(message: impl Into<String>) -> Failure {
        Failure::new(Code::Limit, message)
    }

    pub fn bug(message: impl Into<String>) -> Failure {
        Failure::new(Code::Bug, message)
    }

    pub fn interrupted(message: impl Into<String>) -> Failure {
        Failure::new(Code::Interrupted, message)
    }

    /// What to do about it.
    pub fn help(mut self, help: impl Into<String>) -> Failure {
        self.help = Some(help.into());
        self
    }

    /// Exit with `status` instead of the code's usual one (kept where a command has always
    /// used another).
    pub fn status(mut self, status: u8) -> Failure {
        self.status = status;
        self
    }

    /// An error at a place in `sources`, rendered by codespan-reporting (as text).
    pub fn located(d: &Diag, sources: &Sources) -> Failure {
        let color = !json_mode() && std::io::stderr().is_terminal();
        let files = sources.files();
        let place = |id: usize, byte: u32| {
            files
                .location(id, byte as usize)
                .map(|l| (l.line_number, l.column_number))
                .unwrap_or((0, 0))
        };
        let labels = d
            .labels
            .iter()
            .map(|l| {
                let (line, column) = place(l.span.file.0, l.span.start);
                let (end_line, end_column) = place(l.span.file.0, l.span.end);
                json!({
                    "file": sources.name(l.span.file),
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                    "message": l.message,
                    "primary": l.primary,
                })
            })
            .collect();
        let help = d
            .notes
            .iter()
            .find_map(|n| n.strip_prefix("help: "))
            .map(str::to_string);
        let code = Code::of_diag(d);
        Failure {
            code,
            message: d.message.clone(),
            help,
            // A located error has always ended the command with status 1.
            status: 1,
            located: Some(Box::new(Located {
                rendered: d.render(sources, color),
                notes: d.notes.clone(),
                labels,
            })),
        }
    }

    /// The error as one JSON object: `{"error": {code, message, help, notes, labels}}`.
    pub fn to_json(&self) -> serde_json::Value {
        let (notes, labels) = match &self.located {
            Some(l) => (l.notes.clone(), l.labels.clone()),
            None => (Vec::new(), Vec::new()),
        };
        json!({
            "error": {
                "code": self.code.name(),
                "message": self.message,
                "help": self.help,
                "notes": notes,
                "labels": labels,
            }
        })
    }

    /// The error as text, as it is printed (with ANSI colours when `color`).
    pub fn to_text(&self, color: bool) -> String {
        match &self.located {
            Some(l) => l.rendered.clone(),
            None => {
                let handler = CodespanStyle { color };
                format!("{}", Shown(self, &handler))
            }
        }
    }

    /// Print the error on standard error (as text, or as JSON under `--json`) and give the
    /// exit status to end with.
    pub fn report(&self) -> ExitCode {
        let mut err = std::io::stderr().lock();
        let _ = if json_mode() {
            writeln!(err, "{}", self.to_json())
        } else {
            write!(err, "{}", self.to_text(err.is_terminal()))
        };
        ExitCode::from(self.status)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

impl miette::Diagnostic for Failure {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.name()))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(miette::Severity::Error)
    }
}

/// Report a located error (see [`Failure::located`]).
pub fn diag(sources: &Sources, d: &Diag) -> ExitCode {
    Failure::located(d, sources).report()
}

/// Report the errors of a file that did not load, then (as text) a line saying how many
/// there were. Under `--json` each error is one line of JSON.
pub fn not_loaded(what: &str, errors: &[Diag], sources: &Sources) -> ExitCode {
    for d in errors {
        let _ = Failure::located(d, sources).report();
    }
    if !json_mode() {
        let n = errors.len();
        eprintln!(
            "error: {what} could not be loaded ({n} error{})",
            if n == 1 { "" } else { "s" }
        );
    }
    ExitCode::FAILURE
}

/// A warning: the run goes on. As text `warning: …`; under `--json`, one line of JSON
/// `{"warning": {"message": …}}`, so that standard error stays JSON lines.
pub fn warning(message: &str) {
    if json_mode() {
        eprintln!("{}", json!({ "warning": { "message": message } }));
    } else {
        eprintln!("warning: {message}");
    }
}

static JSON: AtomicBool = AtomicBool::new(false);

/// Print errors as JSON from now on (the command was given `--json`). Set once, before the
/// command runs: how errors look is a property of the whole run.
pub fn set_json(on: bool) {
    JSON.store(on, Ordering::Relaxed);
}

pub fn json_mode() -> bool {
    JSON.load(Ordering::Relaxed)
}

/// A miette report handler that writes a diagnostic without a source place as
/// codespan-reporting writes one with: `error[CODE]: message`, then ` = help: …`, in
/// codespan's colours.
pub struct CodespanStyle {
    pub color: bool,
}

impl miette::ReportHandler for CodespanStyle {
    fn debug(&self, error: &dyn miette::Diagnostic, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let styles = Styles::default();
        let mut out = if self.color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let severity = match error.severity() {
            Some(miette::Severity::Warning) => ("warning", &styles.header_warning),
            Some(miette::Severity::Advice) => ("note", &styles.header_note),
            _ => ("error", &styles.header_error),
        };
        let write = |out: &mut termcolor::Buffer| -> std::io::Result<()> {
            out.set_color(severity.1)?;
            write!(out, "{}", severity.0)?;
            if let Some(code) = error.code() {
                write!(out, "[{code}]")?;
            }
            out.set_color(&styles.header_message)?;
            write!(out, ": {error}")?;
            out.reset()?;
            writeln!(out)?;
            // Laid out as codespan lays out a diagnostic without labels: the note one
            // space in, then a blank line.
            if let Some(help) = error.help() {
                write!(out, " ")?;
                out.set_color(&styles.note_bullet)?;
                write!(out, "=")?;
                out.reset()?;
                writeln!(out, " help: {help}")?;
            }
            writeln!(out)?;
            Ok(())
        };
        write(&mut out).map_err(|_| fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(out.as_slice()))
    }
}

/// A diagnostic shown by a report handler, for `format!`.
struct Shown<'a>(&'a Failure, &'a dyn miette::ReportHandler);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.1.debug(self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_written_as_codespan_writes_a_diagnostic() {
        let f = Failure::usage("--depth takes a number of plies or `auto`, not `x`")
            .help("give a number, e.g. --depth 5");
        assert_eq!(
            f.to_text(false),
            "error[gamelang::usage]: --depth takes a number of plies or `auto`, not `x`\n = help: give a number, e.g. --depth 5\n\n"
        );
        // codespan-reporting's own rendering of the same error, for comparison.
        let d = codespan_reporting::diagnostic::Diagnostic::<usize>::error()
            .with_code("gamelang::usage")
            .with_message("--depth takes a number of plies or `auto`, not `x`")
            .with_notes(vec!["help: give a number, e.g. --depth 5".into()]);
        let mut buffer = termcolor::Buffer::no_color();
        let files = codespan_reporting::files::SimpleFiles::<String, String>::new();
        codespan_reporting::term::emit(
            &mut buffer,
            &codespan_reporting::term::Config::default(),
            &files,
            &d,
        )
        .unwrap();
        assert_eq!(f.to_text(false), String::from_utf8_lossy(buffer.as_slice()));
    }

    #[test]
    fn a_failure_as_json_has_its_code_message_and_help() {
        let f = Failure::solver("cannot run `x`").help("install it");
        let j = f.to_json();
        assert_eq!(j["error"]["code"], "gamelang::solver");
        assert_eq!(j["error"]["message"], "cannot run `x`");
        assert_eq!(j["error"]["help"], "install it");
        assert_eq!(j["error"]["labels"], json!([]));
    }

    #[test]
    fn a_located_error_as_json_gives_line_and_column() {
        let mut sources = Sources::new();
        let file = sources.add("a.game", "fmod A is\n  op f : -> Nta .\nendfm\n");
        let start = "fmod A is\n  op f : -> ".len();
        let d = Diag::at(
            gamelang_lang::span::Span::new(file, start, start + 3),
            "unknown sort `Nta`",
            "not declared",
        )
        .note("help: did you mean `Nat`?");
        let j = Failure::located(&d, &sources).to_json();
        assert_eq!(j["error"]["code"], "gamelang::program");
        assert_eq!(j["error"]["help"], "did you mean `Nat`?");
        let label = &j["error"]["labels"][0];
        assert_eq!(label["file"], "a.game");
        assert_eq!(
            (label["line"].as_u64(), label["column"].as_u64()),
            (Some(2), Some(13))
        );
        assert_eq!(label["end_column"].as_u64(), Some(16));
        assert_eq!(label["message"], "not declared");
        assert_eq!(label["primary"], true);
    }
}
