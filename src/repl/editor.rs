//! The interactive front end: rustyline line editing, persistent history and tab
//! completion around the [`Backend`].

use super::backend::{Backend, Vocabulary};
use super::complete::{complete, Completion};
use super::print_reply;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Completion for rustyline: commands, operator words and sorts of the current module,
/// module names, options, and file names after `load`.
struct ReplHelper {
    vocabulary: Vocabulary,
    files: FilenameCompleter,
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        match complete(&self.vocabulary, line, pos) {
            Completion::Files => self.files.complete(line, pos, ctx),
            Completion::Names { start, names } => Ok((
                start,
                names
                    .into_iter()
                    .map(|n| Pair {
                        display: n.clone(),
                        replacement: n,
                    })
                    .collect(),
            )),
        }
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

/// Where history is kept: `$GAMELANG_HISTORY` if set (empty: no history), else
/// `gamelang/history` in the user's data directory (`$XDG_DATA_HOME`, `~/.local/share`,
/// `~/Library/Application Support`, `%APPDATA%`), else `~/.gamelang_history`. Never the
/// working directory: a relative path is refused.
pub fn history_path() -> Option<PathBuf> {
    let path = match std::env::var_os("GAMELANG_HISTORY") {
        Some(p) if p.is_empty() => return None,
        Some(p) => PathBuf::from(p),
        None => dirs::data_dir()
            .map(|d| d.join("gamelang").join("history"))
            .or_else(|| dirs::home_dir().map(|h| h.join(".gamelang_history")))?,
    };
    path.is_absolute().then_some(path)
}

fn save_history(rl: &mut Editor<ReplHelper, DefaultHistory>, path: Option<&Path>) {
    if let Some(path) = path {
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = rl.append_history(path);
    }
}

/// Read, evaluate, print until Ctrl-D or `quit`.
pub fn run(backend: &mut Backend, busy: &Arc<AtomicBool>) -> ExitCode {
    let builder = Config::builder()
        .auto_add_history(false)
        .completion_type(CompletionType::List);
    let config = match builder.clone().max_history_size(1000) {
        Ok(b) => b.build(),
        Err(_) => builder.build(),
    };
    let mut rl: Editor<ReplHelper, DefaultHistory> = match Editor::with_config(config) {
        Ok(rl) => rl,
        Err(e) => {
            return crate::failure::Failure::io(format!("cannot start the line editor: {e}"))
                .help(
                    "run without a terminal (`gamelang repl FILE < commands`) to read plain lines",
                )
                .report();
        }
    };
    rl.set_helper(Some(ReplHelper {
        vocabulary: Vocabulary::default(),
        files: FilenameCompleter::new(),
    }));
    let history = history_path();
    if let Some(path) = &history {
        let _ = rl.load_history(path);
    }
    let mut pending = String::new();
    loop {
        if pending.is_empty() {
            let v = backend.vocabulary();
            if let Some(h) = rl.helper_mut() {
                h.vocabulary = v;
            }
        }
        let prompt = if pending.is_empty() {
            backend.prompt()
        } else {
            backend.continuation_prompt()
        };
        backend.clear_interrupt();
        match rl.readline(&prompt) {
            Ok(line) => {
                if !pending.is_empty() {
                    pending.push('\n');
                }
                pending.push_str(&line);
                if backend.unfinished(&pending) {
                    continue;
                }
                let input = std::mem::take(&mut pending);
                if !input.trim().is_empty() {
                    let _ = rl.add_history_entry(input.as_str());
                    save_history(&mut rl, history.as_deref());
                }
                busy.store(true, Ordering::SeqCst);
                let reply = backend.execute(&input);
                busy.store(false, Ordering::SeqCst);
                print_reply(&reply);
                if reply.quit {
                    break;
                }
            }
            // Ctrl-C at the prompt: drop what was typed (and any unfinished input).
            Err(ReadlineError::Interrupted) => pending.clear(),
            // Ctrl-D
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                return crate::failure::Failure::io(format!("reading input: {e}")).report();
            }
        }
    }
    ExitCode::SUCCESS
}
