//! One diagnostic type for every phase (parse, elaboration, run time), rendered by one
//! mechanism (codespan-reporting) so that every error looks the same and names its place.

use crate::span::{Sources, Span};
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::term::{self, termcolor};

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DiagLabel {
    pub span: Span,
    pub message: String,
    /// The primary label is the place the error is *about*; secondary ones give context.
    pub primary: bool,
}

/// An error with its message, the places it concerns and notes (hints, likely fixes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub message: String,
    pub labels: Vec<DiagLabel>,
    pub notes: Vec<String>,
    /// What kind of error it is, when that is not "an error in the program" (e.g.
    /// `gamelang::io` for a file that cannot be read); shown as `error[CODE]: …`.
    pub code: Option<&'static str>,
}

impl Diag {
    pub fn error(message: impl Into<String>) -> Diag {
        Diag {
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
            code: None,
        }
    }

    /// An error about one place: `at` is underlined with `label`.
    pub fn at(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diag {
        Diag::error(message).primary(span, label)
    }

    pub fn primary(mut self, span: Span, message: impl Into<String>) -> Diag {
        self.labels.push(DiagLabel {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    pub fn secondary(mut self, span: Span, message: impl Into<String>) -> Diag {
        self.labels.push(DiagLabel {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Diag {
        self.notes.push(note.into());
        self
    }

    pub fn code(mut self, code: &'static str) -> Diag {
        self.code = Some(code);
        self
    }

    /// The first primary span, if any.
    pub fn span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    fn to_codespan(&self) -> Diagnostic<usize> {
        let labels = self
            .labels
            .iter()
            .map(|l| {
                let label = if l.primary {
                    Label::primary(l.span.file.0, l.span.range())
                } else {
                    Label::secondary(l.span.file.0, l.span.range())
                };
                label.with_message(l.message.clone())
            })
            .collect();
        let d = Diagnostic::error();
        let d = match self.code {
            Some(code) => d.with_code(code),
            None => d,
        };
        d.with_message(self.message.clone())
            .with_labels(labels)
            .with_notes(self.notes.clone())
    }

    /// Render as text, with or without ANSI colours.
    pub fn render(&self, sources: &Sources, color: bool) -> String {
        let mut buffer = if color {
            termcolor::Buffer::ansi()
        } else {
            termcolor::Buffer::no_color()
        };
        let config = term::Config::default();
        if term::emit(&mut buffer, &config, sources.files(), &self.to_codespan()).is_err() {
            // A span outside its file (should not happen): fall back to the bare message.
            return format!("error: {}\n", self.message);
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }
}

/// Render several diagnostics one after the other.
pub fn render_all(diags: &[Diag], sources: &Sources, color: bool) -> String {
    diags.iter().map(|d| d.render(sources, color)).collect()
}

/// Names longer than this (in bytes) get no "did you mean" hint.
const MAX_SUGGEST_LEN: usize = 100;

/// The closest names to `wanted` among `candidates` (for "did you mean" hints).
pub fn suggest<'a>(wanted: &str, candidates: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    // Nobody mistypes a name this long; and the distance costs the product of the lengths.
    if wanted.len() > MAX_SUGGEST_LEN {
        return Vec::new();
    }
    let len = wanted.chars().count();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter(|c| *c != wanted && c.len() <= 4 * MAX_SUGGEST_LEN)
        // The distance is at least the difference of the lengths: skip what cannot be close.
        .filter(|c| {
            let n = c.chars().count();
            len.abs_diff(n) <= (len.max(n) / 3).max(1)
        })
        .map(|c| (edit_distance(wanted, c), c))
        .filter(|(d, c)| *d <= (wanted.len().max(c.len()) / 3).max(1))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_string())
        .collect()
}

/// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbouring characters (`Nta` is one step from `Nat`) each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_close_names() {
        let names = ["next-config", "halted", "won", "w-aux"];
        assert_eq!(suggest("next-conf", names), vec!["next-config".to_string()]);
        assert_eq!(suggest("halt", names), vec!["halted".to_string()]);
        assert!(suggest("zzzzzz", names).is_empty());
    }

    #[test]
    fn a_huge_name_gets_no_suggestion_and_no_quadratic_search() {
        // A 1 MB identifier took 17 s to report: the distance to every name was computed.
        let huge = "a".repeat(1_000_000);
        let names = ["a", "aa", "next-config"];
        assert!(suggest(&huge, names).is_empty());
        let long = "b".repeat(99);
        let near = format!("{long}c");
        assert_eq!(suggest(&long, [near.as_str(), "b"]), vec![near.clone()]);
    }
}
