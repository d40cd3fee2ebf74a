//! `gamelang play GAME --agent SPEC` and the REPL's `play --agent SPEC`: a person (here the
//! test, through pipes) against seed 004's agents. Every position and every agent reply is
//! checked against a tic-tac-toe move generator written here from the rules.

mod support;

use gamelang_game::Side;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use support::cli::gamelang;
use support::ttt;

const TTT: &str = "examples/tictactoe.game";

/// Tic-tac-toe from the rules: a board is (X's cells, O's cells) as bit masks of cells 1..9.
/// A `gamelang play` session driven through pipes, as a person would type.
struct Session {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    /// Every line read so far.
    transcript: Vec<String>,
}

/// What the program showed at the person's turn.
#[derive(Debug, PartialEq, Clone)]
struct Turn {
    /// The lines from the board to the last move, as printed.
    shown: Vec<String>,
    moves: Vec<String>,
}

/// How a stretch of output ended.
#[derive(Debug)]
enum Shown {
    Turn(Turn),
    /// `play has halted …`.
    Over(String),
    /// End of output.
    Closed,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gamelang");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            input,
            output,
            transcript: Vec::new(),
        }
    }

    fn line(&mut self) -> Option<String> {
        let mut l = String::new();
        match self.output.read_line(&mut l) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                let l = l.trim_end_matches('\n').to_string();
                self.transcript.push(l.clone());
                Some(l)
            }
        }
    }

    fn send(&mut self, text: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{text}").expect("write to gamelang");
        input.flush().unwrap();
    }

    /// Read until the person's turn (board, `your move (P), N possible:`, N moves) or
    /// the end of play.
    fn next(&mut self) -> Shown {
        let mut shown = Vec::new();
        loop {
            let Some(l) = self.line() else {
                return Shown::Closed;
            };
            if l.starts_with("play has halted") {
                return Shown::Over(l);
            }
            shown.push(l.clone());
            if let Some(rest) = l.strip_prefix("your move (") {
                let n: usize = rest
                    .split(", ")
                    .nth(1)
                    .and_then(|t| t.split(' ').next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or_else(|| panic!("a count of moves: {l}"));
                let mut moves = Vec::new();
                for k in 1..=n {
                    let m = self.line().expect("a move");
                    shown.push(m.clone());
                    let (num, config) = m.trim().split_once("  ").expect("number and move");
                    assert_eq!(num.trim(), k.to_string(), "{m}");
                    moves.push(config.trim().to_string());
                }
                // Only the lines of this position: from the board on (3 rows).
                let from = shown.len() - n - 4;
                return Shown::Turn(Turn {
                    shown: shown[from..].to_vec(),
                    moves,
                });
            }
        }
    }

    /// Close the input and wait: (exit success, stderr).
    fn finish(mut self) -> (bool, String, Vec<String>) {
        drop(self.input.take());
        while self.line().is_some() {}
        let out = self.child.wait_with_output().expect("wait");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).to_string(),
            self.transcript,
        )
    }
}

/// The agent's replies in `lines` (`SPEC (P) plays BOARD`), in order.
fn replies(lines: &[String], spec: &str) -> Vec<ttt::Board> {
    let prefix = format!("{spec} (");
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split_once(") plays "))
        .map(|(_, b)| ttt::parse(b))
        .collect()
}

/// Play whole games of tic-tac-toe against `spec` as `side`, picking moves with a simple
/// generator; check every listing and every reply against the rules.
fn play_checked(spec: &str, side: &str, seed: u64) {
    let mut s = Session::start(&["play", TTT, "--agent", spec, "--as", side]);
    let person = if side == "B" { Side::B } else { Side::R };
    let mut board: ttt::Board = (0, 0);
    let mut pick = seed;
    let mut read = 0;
    loop {
        let shown = s.next();
        // The agent's replies since the last input: each a legal move of O (or X).
        let new: Vec<String> = s.transcript[read..].to_vec();
        read = s.transcript.len();
        for reply in replies(&new, spec) {
            let legal = ttt::successors(board, person.opponent());
            assert!(
                legal.contains(&reply),
                "{spec} played {reply:?} from {board:?}: not a legal move"
            );
            board = reply;
        }
        match shown {
            Shown::Turn(t) => {
                let listed: BTreeSet<ttt::Board> = t.moves.iter().map(|m| ttt::parse(m)).collect();
                let legal: BTreeSet<ttt::Board> =
                    ttt::successors(board, person).into_iter().collect();
                assert_eq!(listed, legal, "the moves listed from {board:?}");
                pick = pick
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let k = (pick >> 33) as usize % t.moves.len();
                board = ttt::parse(&t.moves[k]);
                s.send(&(k + 1).to_string());
            }
            Shown::Over(l) => {
                assert!(ttt::over(board), "halted at {board:?}: {l}");
                break;
            }
            Shown::Closed => panic!("gamelang stopped:\n{}", s.transcript.join("\n")),
        }
    }
    let (ok, err, _) = s.finish();
    assert!(ok, "{err}");
}

#[test]
fn every_agent_replies_with_legal_moves() {
    for (k, spec) in ["random", "semi-random", "mcts:30", "alphabeta:2", "exact"]
        .iter()
        .enumerate()
    {
        play_checked(spec, "B", k as u64);
        play_checked(spec, "R", k as u64 + 10);
    }
}

#[test]
fn exact_never_loses_to_the_person() {
    // Tic-tac-toe is a draw: `exact` must never be beaten, whatever the person plays.
    for seed in 0..4 {
        let mut s = Session::start(&["play", TTT, "--agent", "exact", "--seed", "5"]);
        let mut pick: u64 = seed;
        loop {
            match s.next() {
                Shown::Turn(t) => {
                    pick = pick.wrapping_mul(6364136223846793005).wrapping_add(1);
                    s.send(&((pick >> 33) as usize % t.moves.len() + 1).to_string());
                }
                Shown::Over(l) => {
                    assert!(!l.contains("you win"), "{l}");
                    break;
                }
                Shown::Closed => panic!("stopped"),
            }
        }
        assert!(s.finish().0);
    }
}

#[test]
fn undo_restores_the_position_and_hint_names_a_legal_move() {
    let mut s = Session::start(&["play", TTT, "--agent", "mcts:20", "--seed", "7"]);
    let Shown::Turn(first) = s.next() else {
        panic!("no first turn")
    };
    s.send("hint");
    let hint = s.line().expect("a hint");
    // `hint: mcts:20 would play K  BOARD`: K numbers BOARD in the listing, a legal move.
    let rest = hint.strip_prefix("hint: mcts:20 would play ").expect(&hint);
    let (k, board) = rest.split_once("  ").expect(&hint);
    let k: usize = k.parse().unwrap();
    assert_eq!(first.moves[k - 1], board.trim());
    assert!(ttt::successors((0, 0), Side::B).contains(&ttt::parse(board)));

    // A move typed as a configuration, the agent's reply, then `undo`: back to the start.
    s.send("(5 | empty)");
    let Shown::Turn(second) = s.next() else {
        panic!("no second turn")
    };
    assert_ne!(second, first);
    let reply = replies(&s.transcript, "mcts:20");
    assert_eq!(reply.len(), 1);
    assert!(ttt::successors((1 << 4, 0), Side::R).contains(&reply[0]));
    s.send("undo");
    let Shown::Turn(again) = s.next() else {
        panic!("no turn after undo")
    };
    assert_eq!(again, first, "undo must restore the start");
    // Nothing more to undo at the start.
    s.send("undo");
    s.send("quit");
    let (_, err, out) = s.finish();
    assert!(out.iter().any(|l| l == "taken back"));
    assert!(
        err.contains("nothing to undo: you have not moved yet"),
        "{err}"
    );
}

#[test]
fn bad_input_is_refused_with_a_reason_and_play_goes_on() {
    let mut s = Session::start(&["play", TTT, "--agent", "random"]);
    let Shown::Turn(first) = s.next() else {
        panic!("no first turn")
    };
    s.send("42");
    s.send("foo(");
    s.send("(1 | 2)"); // a board, but not one move away from the empty board
    s.send("1");
    // The first valid line is played: the next turn comes.
    let Shown::Turn(second) = s.next() else {
        panic!("play did not go on")
    };
    assert_ne!(second, first);
    s.send("quit");
    let (ok, err, _) = s.finish();
    assert!(!ok, "refused input in a script must fail the session");
    assert!(
        err.contains("there is no move 42") && err.contains("pick a move from 1 to 9"),
        "{err}"
    );
    // The parse error points into the line typed.
    assert!(
        err.contains("your move:1:4") && err.contains("this `(` is never closed"),
        "{err}"
    );
    assert!(
        err.contains("`(1 | 2)` is not a move from here") && err.contains("your move:1:1"),
        "{err}"
    );
}

/// A typed move that parses but fails when reduced (a division by zero, a bad board
/// string) is the person's mistake, located in what they typed, and play goes on: it
/// ended the session with the error placed in the game's declarations.
#[test]
fn a_typed_move_that_fails_to_reduce_is_refused_and_play_goes_on() {
    for (file, bad, good, played) in [
        (
            "examples/heaps.game",
            "(2 (5 quo 0))",
            "4",
            "you (R) play (2 3)",
        ),
        (
            "examples/grid/connect4.game",
            "board(\"xq\")",
            "1",
            "you (B) play",
        ),
    ] {
        let o = support::cli::gamelang_with_input(
            &["play", file, "--agent", "random"],
            &format!("{bad}\n{good}\nquit\n"),
        );
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        // Refused (a script with a refused line ends with status 1), then played on.
        assert_eq!(o.status.code(), Some(1), "{file}: {err}");
        assert!(out.contains(played), "{file}: {out}");
        assert!(err.contains("your move:1:1"), "{file}: {err}");
        assert!(err.contains("type the move again"), "{file}: {err}");
    }
}

#[test]
fn bad_options_are_refused() {
    let out = gamelang(&["play", TTT, "--agent", "minimax:3"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown agent `minimax`"), "{err}");

    let out = gamelang(&["play", TTT, "--agent", "random", "--as", "X"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--as: `X` is not a player"), "{err}");

    // `--as` with `--qbf` (where the person is White) was ignored without a word.
    let out = gamelang(&["play", "examples/grid/tictactoe.game", "--qbf", "--as", "B"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("with --qbf you play White"), "{err}");
    let out = gamelang(&[
        "play",
        "examples/grid/tictactoe.game",
        "--qbf",
        "--seed",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the QBF strategy (--qbf) draws none"), "{err}");

    let out = gamelang(&["play", TTT]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--agent SPEC"), "{err}");

    // An agent that needs what the game does not declare is refused before play starts,
    // whoever moves first (it was refused only when it had to move, after the person's
    // first move when the person started).
    for side in ["R", "B"] {
        let o = support::cli::gamelang_with_input(
            &["play", TTT, "--agent", "astar", "--as", side],
            "1\nquit\n",
        );
        assert_eq!(o.status.code(), Some(1));
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert!(err.contains("needs the game's distance to goal"), "{err}");
        assert!(!out.contains("play"), "play started: {out}");
    }
}

#[test]
fn the_repl_plays_against_an_agent() {
    // A REPL script: each agent reply must be legal from the position before it.
    let script = "load examples/tictactoe.game\nplay --agent mcts:20 --seed 4\nhint\n1\n1\nundo\n1\n1\n1\n1\n";
    let out = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .arg("repl")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(script.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run the REPL");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut replies = 0;
    for l in text.lines() {
        // `you (B) play A -> B` and `mcts:20 (R) plays A -> B`: each B one move from A.
        let (mover, rest) = if let Some(r) = l.strip_prefix("you (B) play ") {
            (Side::B, r)
        } else if let Some(r) = l.strip_prefix("mcts:20 (R) plays ") {
            replies += 1;
            (Side::R, r)
        } else {
            continue;
        };
        let (a, b) = rest.split_once(" -> ").expect(l);
        let (a, b) = (ttt::parse(a), ttt::parse(b));
        assert!(ttt::successors(a, mover).contains(&b), "{l}");
    }
    assert!(replies >= 3, "{text}");
    let hint = text
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .expect("a hint");
    let (_, board) = hint.split_once("  ").unwrap();
    assert!(ttt::successors((0, 0), Side::B).contains(&ttt::parse(board)));
    assert!(text.contains("taken back"), "{text}");
    assert!(text.contains("mcts:20 plays R (Rebecca)"), "{text}");
}

#[test]
fn the_repls_hint_against_exhaustive_search_is_a_winning_move() {
    // The heaps game from (2 5), R to move: the hint must leave B a lost position, checked
    // by the brute-force solver of tests/support; after the end, `hint` says the game is over.
    let script = "load examples/heaps.game\nplay\nhint\n4\n1\nhint\n";
    let out = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .arg("repl")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(script.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run the REPL");
    let text = String::from_utf8_lossy(&out.stdout);
    let hint = text
        .lines()
        .find_map(|l| l.strip_prefix("hint: "))
        .unwrap_or_else(|| panic!("no hint in {text}"));
    // `hint: K  (a b)   (a winning move)`
    let (_, rest) = hint.split_once("  ").unwrap();
    let pair = rest.split(')').next().unwrap().trim_start_matches('(');
    let nums: Vec<u64> = pair.split(' ').map(|x| x.parse().unwrap()).collect();
    let (k, n) = (nums[0], nums[1]);
    assert!(support::heaps::moves(2, 5).contains(&(k, n)), "{hint}");
    let mut memo = std::collections::HashMap::new();
    assert!(support::heaps::mover_wins(2, 5, &mut memo));
    assert!(
        !support::heaps::mover_wins(k, n, &mut memo),
        "{hint} is not a winning move"
    );
    assert!(hint.contains("(a winning move)"), "{hint}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the game is over"), "{err}");
}

/// Input that is not text is an error (exit 1), not the end of the game with the lines
/// after it dropped and exit 0.
#[test]
fn input_that_is_not_utf8_is_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["play", TTT, "--agent", "random"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gamelang");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\xff\n1\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot read the next move from standard input") && err.contains("UTF-8"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("end of input"));
}

/// The REPL names the agent that won, as `gamelang play` does (it said "gamelang wins").
#[test]
fn the_repl_names_the_agent_that_wins() {
    // From (30 29), taking all 30 leaves (0 29), from which B takes the 29 and wins.
    let o = support::cli::gamelang_with_input(
        &["repl", "examples/heaps.game"],
        "play (30 29) --agent alphabeta:4\n1\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("play has halted at (0 0) with R to move: B (Benny) wins — alphabeta:4 wins"),
        "{out}"
    );
}
