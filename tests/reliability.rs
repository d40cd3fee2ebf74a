//! Issue 14: what fuzzing and bad input found — each defect's command, with the outcome it
//! must have now (an answer, or a clear error with a non-zero exit status; never a panic,
//! an abort or a hang).

use std::process::{Command, Output};

fn gamelang(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gamelang")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A run that fails cleanly: exit status 1 or 2 (not a panic's 101, not a signal), with
/// `what` in the error.
fn fails_with(args: &[&str], what: &str) -> String {
    let o = gamelang(args);
    let err = stderr(&o);
    assert!(
        matches!(o.status.code(), Some(1) | Some(2)),
        "gamelang {args:?}: status {:?}\n{err}",
        o.status
    );
    assert!(err.contains(what), "gamelang {args:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_parameter_is_checked_against_its_declared_sort() {
    let err = fails_with(
        &["solve", "examples/colouring.game", "--set", "n=-1"],
        "`-1` is of sort Int, but parameter `n` is a Nat",
    );
    assert!(err.contains("--set:1:3"), "{err}");
    fails_with(
        &["solve", "examples/domineering.game", "--set", "rows=-3"],
        "parameter `rows` is a Nat",
    );
    // A value of the sort is still accepted.
    let o = gamelang(&[
        "solve",
        "examples/domineering.game",
        "--set",
        "rows=2",
        "--set",
        "cols=2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("winner: B"), "{}", stdout(&o));
}
