//! Running the solver: answers from exit codes, the `--qdo` assignment, timeouts and other
//! outcomes are Unknown (never false), a missing solver is an error saying how to install
//! DepQBF; and the encoder's errors on models the semantics does not define.

mod common;

use common::{action, atoms, model, occupy};
use gamelang_bddl::Piece;
use gamelang_qbf::{encode, run_solver, Answer};
use std::time::{Duration, Instant};

const TRUE_QBF: &str = "p cnf 2 2\ne 1 0\na 2 0\n1 2 0\n1 -2 0\n";
const FALSE_QBF: &str = "p cnf 2 2\na 1 0\ne 2 0\n1 2 0\n1 -2 0\n";

#[test]
fn depqbf_answers() {
    let run = run_solver("depqbf --qdo", TRUE_QBF, Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("DepQBF is needed by this test: {e}"));
    assert_eq!(run.answer, Answer::True);
    assert_eq!(run.assignment, vec![1]);
    let run = run_solver("depqbf", FALSE_QBF, Duration::from_secs(30)).expect("DepQBF runs");
    assert_eq!(run.answer, Answer::False);
    assert!(run.seconds >= 0.0);
}

#[test]
fn missing_solver_says_how_to_install() {
    let e = run_solver(
        "no-such-qbf-solver-xyz --qdo",
        TRUE_QBF,
        Duration::from_secs(5),
    )
    .expect_err("a missing solver is an error");
    assert!(e.contains("apt-get install depqbf"), "{e}");
    assert!(run_solver("", TRUE_QBF, Duration::from_secs(5)).is_err());
}

#[test]
fn timeout_is_unknown() {
    // `tail -f FILE` never ends.
    let start = Instant::now();
    let run = run_solver("tail -f", TRUE_QBF, Duration::from_millis(300)).expect("tail runs");
    assert!(
        matches!(run.answer, Answer::Unknown(ref why) if why.contains("timeout")),
        "{:?}",
        run.answer
    );
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn other_exit_codes_are_unknown() {
    for cmd in ["false", "true", "cat"] {
        let run = run_solver(cmd, TRUE_QBF, Duration::from_secs(10)).expect("runs");
        assert!(
            matches!(run.answer, Answer::Unknown(_)),
            "{cmd}: {:?}",
            run.answer
        );
    }
}

#[test]
fn first_move_only_when_black_moves_first() {
    let mut m = model(2, 1, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = vec![atoms("black(?x,?y)")];
    let enc = encode(&m, 1).expect("encodes");
    let (v, assignment) = common::depqbf(&enc);
    assert!(v);
    let (k, x, y) = enc.first_move(&assignment).expect("a first move");
    assert_eq!((k, y), (0, 1));
    assert!((1..=2).contains(&x));
    // Garbage assignments: no panic, and a move only if it is in bounds.
    assert_eq!(
        enc.first_move(&[i64::MIN, i64::MAX, 0]),
        enc.first_move(&[])
    );
    m.black_first = false;
    let enc = encode(&m, 2).expect("encodes");
    let (v, assignment) = common::depqbf(&enc);
    assert!(v);
    assert_eq!(enc.first_move(&assignment), None);
}

#[test]
fn models_the_semantics_does_not_define() {
    let ok = model(2, 2, vec![occupy("black")], vec![occupy("white")]);
    assert!(encode(&ok, 3).is_ok());
    let mut m = ok.clone();
    m.width = 0;
    assert!(encode(&m, 1).unwrap_err().contains("width"));
    let mut m = ok.clone();
    m.height = 65;
    assert!(encode(&m, 1).unwrap_err().contains("height"));
    let mut m = ok.clone();
    m.init.push((Piece::Black, 3, 1));
    assert!(encode(&m, 1).unwrap_err().contains("outside"));
    let mut m = ok.clone();
    m.black_actions
        .push(action("undo", "black(?x,?y)", "NOT(black(?x,?y))"));
    assert!(encode(&m, 1).unwrap_err().contains("NOT"));
    let mut m = ok.clone();
    m.white_goals = vec![atoms("white(3,1)")];
    assert!(encode(&m, 1).unwrap_err().contains("outside"));
    let mut m = ok;
    m.white_actions = vec![action("far", "open(0,?y)", "white(?x,?y)")];
    assert!(encode(&m, 1).unwrap_err().contains("outside"));
}
