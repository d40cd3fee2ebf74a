//! Snapshot tests of rendered diagnostics: every file in `tests/diagnostics/` is a broken
//! program, one per kind of error, with a header saying what it shows:
//!
//! ```text
//! --- diagnostic: what kind of error this is
//! --- message: a phrase the error message must contain
//! --- repl: a command to type after loading it (none: the file itself is the error)
//! --- varies: a regex for details that depend on the engine's bookkeeping (where exactly
//! ---         a budget ran out), replaced by `[varies]` in the snapshot
//! ```
//!
//! Each file is loaded by `gamelang repl FILE` with its commands on standard input, as a
//! user would; what it prints on standard error (message, file:line:column, the source
//! with the span underlined and labelled, notes) is compared with the snapshot in
//! `tests/diagnostics/snapshots/`. Review changes with `cargo insta review`, or rerun
//! with `INSTA_UPDATE=always` and read the diff.

use gamelang_game as driver;
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The values of header lines `--- KEY: VALUE`.
fn header(text: &str, key: &str) -> Vec<String> {
    let prefix = format!("--- {key}: ");
    text.lines()
        .take_while(|l| l.starts_with("---"))
        .filter_map(|l| l.strip_prefix(&prefix))
        .map(str::to_string)
        .collect()
}

/// The diagnostic lines of the header, as one paragraph.
fn description(text: &str) -> String {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines().take_while(|l| l.starts_with("---")) {
        if let Some(rest) = line.strip_prefix("--- diagnostic: ") {
            inside = true;
            out.push(rest.to_string());
        } else if inside
            && !["message", "repl", "varies"]
                .iter()
                .any(|k| line.starts_with(&format!("--- {k}: ")))
        {
            out.push(line.trim_start_matches('-').trim().to_string());
        } else {
            inside = false;
        }
    }
    out.join(" ")
}

/// A regex matching `text` literally.
fn literal(text: &str) -> String {
    text.chars()
        .map(|c| {
            if "\\.+*?()|[]{}^$#&-~".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("diagnostics/snapshots");
    s.set_prepend_module_to_snapshot(false);
    s.add_filter(&literal(env!("CARGO_MANIFEST_DIR")), "[ROOT]");
    s.add_filter(r"\d+\.\d+ ms", "[TIME] ms");
    s
}

#[test]
fn broken_programs_are_diagnosed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    settings().bind(|| {
        insta::glob!("diagnostics/*.game", |path| {
            let text = std::fs::read_to_string(path).expect("read the test file");
            let kind = description(&text);
            assert!(
                !kind.is_empty(),
                "{}: no `--- diagnostic:` header",
                path.display()
            );
            let messages = header(&text, "message");
            assert!(
                !messages.is_empty(),
                "{}: no `--- message:` header",
                path.display()
            );
            let script: String = header(&text, "repl")
                .iter()
                .map(|c| format!("{c}\n"))
                .collect();
            let relative = path.strip_prefix(root).unwrap_or(path);

            let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
                .arg("repl")
                .arg(relative)
                .current_dir(root)
                .env("GAMELANG_HISTORY", "")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("run gamelang repl");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(script.as_bytes())
                .expect("write the commands");
            let out = child.wait_with_output().expect("wait for gamelang");
            let err = String::from_utf8_lossy(&out.stderr).into_owned();

            assert_eq!(
                out.status.code(),
                Some(1),
                "{}: a script with an error fails\n{err}",
                path.display()
            );
            // `error: …`, or `error[gamelang::limit]: …` for a limit reached.
            assert!(
                err.starts_with("error: ") || err.starts_with("error[gamelang::"),
                "{}:\n{err}",
                path.display()
            );
            for m in &messages {
                assert!(
                    err.contains(m.as_str()),
                    "{}: the diagnostic should say {m:?}:\n{err}",
                    path.display()
                );
            }
            // Every diagnostic names a place: a file (or the input typed) with line and column.
            assert!(
                err.contains(".game:") || err.contains("<input "),
                "{}: no location:\n{err}",
                path.display()
            );
            let mut with_kind = insta::Settings::clone_current();
            with_kind.set_description(kind);
            for pattern in header(&text, "varies") {
                with_kind.add_filter(&pattern, "[varies]");
            }
            with_kind.bind(|| insta::assert_snapshot!(err));
        })
    });
}

/// Ctrl-C cannot be typed into standard input; the interrupted computation's diagnostic
/// comes from the game driver, stopped by the flag Ctrl-C raises (the pseudo-terminal test
/// in `repl_pty.rs` presses Ctrl-C for real). The game is 100,000 plies deep, so the
/// engine, which looks at the flag every few thousand steps, sees it long before the end.
#[test]
fn an_interrupted_solve_is_diagnosed() {
    let mut session = Session::new().expect("stdlib");
    session
        .load_file(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/countdown.game"
        )))
        .expect("countdown loads");
    let game = session.games[0].clone();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.interrupt.store(true, Ordering::SeqCst);
    let e = driver::solve(&mut engine, &game, &game.start, &game.first).unwrap_err();
    assert!(driver::is_interrupted(&e));
    let rendered = driver::diagnose(&engine, &e).render(&session.sources, false);
    // The message names the position being solved (the outermost term computed), not
    // whatever inner term (`false`, a number) the engine was on when it saw the flag.
    assert!(
        rendered.starts_with("error: interrupted while computing `w(R, 100000)`\n"),
        "{rendered}"
    );
    // Where exactly it stopped depends on how often the engine looks at the flag: the
    // snapshot is of the shape of the message and the trace.
    let mut s = settings();
    s.add_filter(r"\d+", "N");
    s.bind(|| insta::assert_snapshot!(rendered));
}
