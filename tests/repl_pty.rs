//! `gamelang repl` through a real pseudo-terminal, as a person uses it: the line editor's
//! tab completion, Ctrl-C stopping a long reduction (the terminal turns it into SIGINT),
//! Ctrl-C clearing a line, Ctrl-D leaving, and history kept in the user's data directory.
#![cfg(unix)]

use rexpect::session::{Options, PtySession};
use std::os::fd::AsRawFd;
use std::process::Command;

/// A generous bound for one expected output: it only matters when something is broken
/// (the test then fails instead of hanging).
const PATIENCE_MS: u64 = 60_000;

const PROMPT: &str = "WINS{HeapsGame}> ";

fn spawn(data_home: &std::path::Path, cwd: &std::path::Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gamelang"));
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
    cmd.args(["repl", example])
        .current_dir(cwd)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("HOME", data_home)
        .env("XDG_DATA_HOME", data_home.join("share"))
        .env_remove("GAMELANG_HISTORY");
    rexpect::spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(PATIENCE_MS))
            .strip_ansi_escape_codes(true),
    )
    .expect("start gamelang repl in a pseudo-terminal")
}

/// Is the terminal in its ordinary (cooked) mode, where the line discipline turns a
/// typed Ctrl-C into SIGINT? (The line editor switches it off while it reads a line.)
fn cooked(p: &PtySession) -> bool {
    let fd = p.process().get_file_handle().expect("the pty");
    // SAFETY: `tcgetattr` only writes the `termios` struct it is given.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        libc::tcgetattr(fd.as_raw_fd(), &mut t) == 0 && t.c_lflag & libc::ISIG != 0
    }
}

#[test]
fn completion_interrupt_and_history_in_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut p = spawn(home.path(), cwd.path());
    p.exp_string("Tab completes").unwrap();
    p.exp_string(PROMPT).unwrap();

    // Tab completes the operator name: `next-he` is only the start of `next-heaps`, so
    // the reduction below works only if the name was completed.
    p.send("red next-he").unwrap();
    p.send("\t").unwrap();
    p.flush().unwrap();
    p.exp_string("next-heaps").unwrap();
    p.send("((2 5))\r").unwrap();
    p.flush().unwrap();
    p.exp_string("result Set{TwoHeaps}: (0 5), (2 0), (2 1), (2 3)")
        .unwrap();
    p.exp_string(PROMPT).unwrap();

    // A reduction that never ends by itself.
    p.send("op spin : Nat -> Nat .\r").unwrap();
    p.flush().unwrap();
    p.exp_string("added to WINS{HeapsGame}: 1 operator")
        .unwrap();
    p.exp_string(PROMPT).unwrap();
    p.send("eq spin(n:Nat) = spin(n:Nat + 1) .\r").unwrap();
    p.flush().unwrap();
    p.exp_string("1 equation").unwrap();
    p.exp_string(PROMPT).unwrap();
    p.send("spin(0)\r").unwrap();
    p.flush().unwrap();
    // Wait until the line editor has handed the line over (the terminal is back in its
    // ordinary mode), then type Ctrl-C: the terminal sends SIGINT.
    while !cooked(&p) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    p.send_control('c').unwrap();
    p.exp_string("interrupted while computing `spin(0)`")
        .unwrap();
    p.exp_string("the session is intact").unwrap();
    p.exp_string(PROMPT).unwrap();

    // The session works on: what was loaded and declared is still there.
    p.send("solve\r").unwrap();
    p.flush().unwrap();
    p.exp_string("winner: R (Rebecca)").unwrap();
    p.exp_string(PROMPT).unwrap();

    // Ctrl-C while an agent answers the person's move: the move is taken back, and the
    // message says so (the game went back to before it without a word).
    p.send("play (300 299) --agent mcts:2000000000\r").unwrap();
    p.flush().unwrap();
    p.exp_string("your move (R)").unwrap();
    p.send("2\r").unwrap();
    p.flush().unwrap();
    p.exp_string("2").unwrap();
    while !cooked(&p) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    p.send_control('c').unwrap();
    p.exp_string("your move was taken back: the game is at (300 299) again")
        .unwrap();
    p.send("stop\r").unwrap();
    p.flush().unwrap();

    // Ctrl-C at the prompt clears the line.
    p.send("this is not a term").unwrap();
    p.flush().unwrap();
    p.exp_string("not a term").unwrap();
    p.send_control('c').unwrap();
    p.exp_string(PROMPT).unwrap();
    p.send("red 20 + 22\r").unwrap();
    p.flush().unwrap();
    p.exp_string("result NzNat: 42").unwrap();
    p.exp_string(PROMPT).unwrap();

    // Ctrl-D leaves.
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();

    // History went to the user's data directory, multi-line entries included, and
    // nothing was written to the working directory.
    let history = home.path().join("share/gamelang/history");
    let text = std::fs::read_to_string(&history).expect("history file");
    assert!(text.contains("red next-heaps((2 5))"), "{text}");
    assert!(text.contains("red 20 + 22"), "{text}");
    assert!(!text.contains("this is not a term"), "{text}");
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0);
}

#[test]
fn history_is_recalled_in_a_new_session() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut p = spawn(home.path(), cwd.path());
    p.exp_string(PROMPT).unwrap();
    p.send("red 6 * 7\r").unwrap();
    p.flush().unwrap();
    p.exp_string("result NzNat: 42").unwrap();
    p.exp_string(PROMPT).unwrap();
    p.send_control('d').unwrap();
    p.exp_eof().unwrap();

    let mut p = spawn(home.path(), cwd.path());
    p.exp_string(PROMPT).unwrap();
    // Up arrow, then Enter: the previous session's command runs again.
    p.send("\x1b[A\r").unwrap();
    p.flush().unwrap();
    p.exp_string("result NzNat: 42").unwrap();
    p.exp_string(PROMPT).unwrap();
    p.send("quit\r").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
}

/// The progress line of a long reduction on a terminal (after 2 s; the test sets
/// `GAMELANG_PROGRESS_AFTER=0` so that it needs no clock): its rewrites, memo entries and
/// memory, the budget as set, and how to stop. Through pipes there is none.
#[test]
fn a_long_reduction_shows_a_progress_line_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("count.game");
    std::fs::write(
        &file,
        "fmod COUNT is\n  protecting INT .\n  op count : Int -> Int .\n  var n : Int .\n  eq count(n) = count(n + 1) .\nendfm\n",
    )
    .unwrap();
    let args = [
        "reduce",
        file.to_str().unwrap(),
        "count(0)",
        "--max-steps",
        "600000",
    ];
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gamelang"));
    cmd.args(args)
        .env("TERM", "xterm")
        .env("NO_COLOR", "1")
        .env("GAMELANG_PROGRESS_AFTER", "0")
        .env("GAMELANG_MAX_MEMORY", "3G");
    let mut p = rexpect::spawn_with_options(
        cmd,
        Options::new()
            .timeout_ms(Some(PATIENCE_MS))
            .strip_ansi_escape_codes(true),
    )
    .expect("start gamelang in a pseudo-terminal");
    let (_, line) = p
        .exp_regex(r"reducing for \d+ s: \d+ rewrites, \d+ memo entries, \d+ MB of 3\.0 GB memory \(Ctrl-C stops it\)")
        .unwrap();
    let rewrites: u64 = line
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line:?}"));
    // Shown while the reduction runs: some steps done, fewer than the budget.
    assert!(rewrites > 0 && rewrites < 600_000, "{line}");
    p.exp_string("gave up after 600000 rewriting steps")
        .unwrap();
    p.exp_eof().unwrap();

    // Through pipes (a script, a CI log): the same run shows no progress line.
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .env("GAMELANG_PROGRESS_AFTER", "0")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gave up after 600000 rewriting steps"),
        "{err}"
    );
    assert!(!err.contains("reducing for"), "{err}");
}
