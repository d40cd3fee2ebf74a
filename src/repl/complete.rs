//! Tab completion: which names fit the word under the cursor. Pure (no terminal), so it
//! is tested directly; the line editor calls it.

use super::backend::Vocabulary;
use super::commands::{self, COMMANDS};

/// What to offer for the word being completed.
#[derive(Debug, PartialEq, Eq)]
pub enum Completion {
    /// Replace `line[start..pos]` with one of these.
    Names { start: usize, names: Vec<String> },
    /// A file name (after `load`): the line editor's file completer handles it.
    Files,
}

fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | ',')
}

/// Completions for `line` with the cursor at byte `pos`.
pub fn complete(v: &Vocabulary, line: &str, pos: usize) -> Completion {
    let before = &line[..pos];
    let start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| is_delimiter(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &before[start..];
    let first_word = before.split_whitespace().next().unwrap_or("");
    let at_line_start = before[..start].trim().is_empty();
    let command = commands::lookup(first_word).filter(|_| !at_line_start);

    let mut names: Vec<String> = Vec::new();
    let mut start = start;
    let mut word = word;
    if at_line_start {
        names.extend(COMMANDS.iter().map(|c| c.name.to_string()));
        names.extend(commands::DECLARATION_KEYWORDS.iter().map(|k| k.to_string()));
        names.extend(commands::ITEM_KEYWORDS.iter().map(|k| k.to_string()));
        names.extend(v.words.iter().cloned());
    } else if let Some(c) = command.filter(|c| {
        matches!(
            c.cmd,
            commands::Cmd::Load
                | commands::Cmd::Select
                | commands::Cmd::Show
                | commands::Cmd::Help
                | commands::Cmd::Set
        )
    }) {
        match c.cmd {
            commands::Cmd::Load => return Completion::Files,
            commands::Cmd::Help => names.extend(COMMANDS.iter().map(|c| c.name.to_string())),
            commands::Cmd::Set => {
                names.extend(commands::SETTINGS.iter().map(|s| s.to_string()));
                names.push("profile".to_string());
            }
            // `show WHAT [MODULE]`
            commands::Cmd::Show if before[..start].split_whitespace().count() == 1 => {
                names.extend(commands::SHOWABLE.iter().map(|s| s.to_string()))
            }
            // `show profile json`
            commands::Cmd::Show if before[..start].split_whitespace().nth(1) == Some("profile") => {
                names.push("json".to_string())
            }
            _ => names.extend(v.modules.iter().cloned()),
        }
    } else if word.starts_with("--") {
        if let Some(c) = command {
            names.extend(c.options.iter().map(|o| o.to_string()));
        }
    } else if let Some(colon) = word.find(':') {
        // An inline variable `x:Sort`: complete the sort.
        start += colon + 1;
        word = &word[colon + 1..];
        names.extend(v.sorts.iter().cloned());
    } else {
        let previous = before[..start].split_whitespace().last().unwrap_or("");
        if previous == "--game" {
            names.extend(v.modules.iter().cloned());
        } else {
            names.extend(v.words.iter().cloned());
            names.extend(v.sorts.iter().cloned());
        }
    }
    names.retain(|n| n.starts_with(word) && n != word);
    names.sort();
    names.dedup();
    Completion::Names { start, names }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vocabulary {
        Vocabulary {
            words: ["next-heaps", "not", "swap", "sub", "and-then", "if", "then"]
                .map(String::from)
                .to_vec(),
            sorts: ["Nat", "NzNat", "TwoHeaps", "Set{TwoHeaps}"]
                .map(String::from)
                .to_vec(),
            modules: ["HEAPS-GAME", "INT", "heaps"].map(String::from).to_vec(),
        }
    }

    fn names(line: &str) -> (usize, Vec<String>) {
        match complete(&vocab(), line, line.len()) {
            Completion::Names { start, names } => (start, names),
            Completion::Files => panic!("files for {line:?}"),
        }
    }

    #[test]
    fn commands_at_the_start_of_a_line() {
        assert_eq!(names("red"), (0, vec!["reduce".to_string()]));
        assert_eq!(names("re").1, ["reduce", "reload"]);
        assert_eq!(names("pl").1, ["play"]);
        assert_eq!(names("next-h").1, ["next-heaps"]);
    }

    #[test]
    fn operators_and_sorts_inside_terms() {
        assert_eq!(names("red next-he"), (4, vec!["next-heaps".to_string()]));
        assert_eq!(
            names("red swap(next-he"),
            (9, vec!["next-heaps".to_string()])
        );
        assert_eq!(names("red (1 2), s").1, ["sub", "swap"]);
        assert_eq!(names("op f : N").1, ["Nat", "NzNat"]);
        assert_eq!(names("red n").1, ["next-heaps", "not"]);
        assert_eq!(names("eq f(x:Tw"), (7, vec!["TwoHeaps".to_string()]));
    }

    #[test]
    fn arguments_of_commands() {
        assert_eq!(names("select HE").1, ["HEAPS-GAME"]);
        assert_eq!(names("select h").1, ["heaps"]);
        assert_eq!(names("show s").1, ["sorts"]);
        assert_eq!(names("show ops H").1, ["HEAPS-GAME"]);
        assert_eq!(names("help rel").1, ["reload"]);
        assert_eq!(names("set max-s").1, ["max-steps"]);
        assert_eq!(names("play (2 5) --f").1, ["--first"]);
        assert_eq!(
            names("play (2 5) --").1,
            ["--agent", "--as", "--first", "--game", "--seed"]
        );
        assert_eq!(names("solve --game he").1, ["heaps"]);
        assert_eq!(complete(&vocab(), "load ex", 7), Completion::Files);
    }
}
