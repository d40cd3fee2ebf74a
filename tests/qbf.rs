//! The QBF route end to end through the binary: `bddl solve --qbf` and `solve --qbf` agree
//! with exhaustive search (`bddl solve`), `--depth auto` finds the same critical depth, the
//! winning first move is legal and wins (played out against every White reply by `play
//! --qbf`), `lower --to qcir|qdimacs` writes well-formed files, and solver failures are
//! reported as such (a missing solver, a timeout as unknown — never as false).
//!
//! These tests run DepQBF (`apt-get install depqbf`; `.ci/run` installs it).

mod support;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use support::cli::{corpus_files, gamelang, json};

/// Instances small enough for CI, from every game of the corpus (Black first and second).
const AGREE: &[(&str, &str, u32)] = &[
    ("domineering", "2x2_2.ig", 4),
    ("domineering", "3x3_4.ig", 5),
    ("domineering", "2x5_6.ig", 5),
    ("httt", "3x3_3_domino.ig", 4),
    ("httt", "3x3_5_el.ig", 5),
    ("connect-c", "3x3_3_connect2.ig", 3),
    ("breakthrough", "2x4_13.ig", 5),
    ("breakthrough-second-player", "2x4_8.ig", 9),
    ("evader_pursuer", "4x4_3_e-4-1_p-2-3.ig", 3),
    ("evader_pursuer_dual", "4x4_2_e-4-1_p-1-2.ig", 3),
    ("hex", "hein_04_3x3-05.pg", 5),
    ("hex", "hein_09_4x4-05.pg", 5),
];

#[test]
fn the_qbf_answer_equals_exhaustive_search() {
    for (game, problem, max) in AGREE {
        let (d, p) = corpus_files(game, problem);
        for depth in 1..=*max {
            let depth = depth.to_string();
            let exhaustive = json(&["bddl", "solve", &d, &p, "--json", "--depth", &depth]);
            let qbf = json(&[
                "bddl", "solve", &d, &p, "--json", "--depth", &depth, "--qbf",
            ]);
            assert_eq!(
                qbf["black_wins"], exhaustive["black_wins"],
                "{game}/{problem} at depth {depth}"
            );
            assert_eq!(qbf["depth"], exhaustive["depth"]);
            assert_eq!(qbf["method"], "qbf");
            // (Constant folding may leave no variables at all: a formula decided outright.)
            assert!(qbf["encoding"]["variables"].is_u64());
            assert!(qbf["encoding"]["clauses"].is_u64());
            assert!(qbf["solver_seconds"].is_number());
            // A winning first move is shown when Black moves first and wins.
            let black_first = exhaustive["first"] == "black";
            assert_eq!(
                qbf["best_move"].is_string(),
                black_first && qbf["black_wins"] == true,
                "{game}/{problem} at depth {depth}: {qbf}"
            );
        }
    }
}

#[test]
fn depth_auto_finds_the_same_critical_depth() {
    for (game, problem, max) in AGREE {
        let (d, p) = corpus_files(game, problem);
        let max = max.to_string();
        let a = json(&[
            "bddl",
            "solve",
            &d,
            &p,
            "--json",
            "--depth",
            "auto",
            "--max-depth",
            &max,
        ]);
        let q = json(&[
            "bddl",
            "solve",
            &d,
            &p,
            "--json",
            "--depth",
            "auto",
            "--max-depth",
            &max,
            "--qbf",
        ]);
        assert_eq!(q["critical_depth"], a["critical_depth"], "{game}/{problem}");
    }
}

#[test]
fn solve_qbf_on_a_game_file_agrees_with_bounded_search() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grid/domineering.game");
    let game = game.to_str().unwrap();
    for (w, h) in [(3, 3), (2, 4)] {
        let (w, h) = (format!("width={w}"), format!("height={h}"));
        for depth in ["2", "3", "4", "5"] {
            let exhaustive = json(&[
                "solve",
                game,
                "--json",
                "--set",
                &w,
                "--set",
                &h,
                "--max-depth",
                depth,
            ]);
            let qbf = json(&[
                "solve",
                game,
                "--json",
                "--set",
                &w,
                "--set",
                &h,
                "--max-depth",
                depth,
                "--qbf",
            ]);
            assert_eq!(
                qbf["black_wins"], exhaustive["wins_within"],
                "{w} {h} depth {depth}"
            );
        }
    }
}

/// Play White against the QBF strategy, choosing White's `pick`-th move each time.
fn play(args: &[&str], pick: &dyn Fn(usize) -> usize) -> (bool, String) {
    // White's choices: enough lines for any game here (extra lines are not read).
    let choices: String = (0..40).map(|i| format!("{}\n", pick(i))).collect();
    let (status, text) = play_piped(args, &choices);
    (status == Some(0), text)
}

/// Play White against the QBF strategy with `input` piped in: the exit status, and
/// standard output followed by standard error.
fn play_piped(args: &[&str], input: &str) -> (Option<i32>, String) {
    play_piped_bytes(args, input.as_bytes())
}

fn play_piped_bytes(args: &[&str], input: &[u8]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .arg("play")
        .args(args)
        .arg("--qbf")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run play");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(input);
    drop(stdin);
    let out = child.wait_with_output().expect("play");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

#[test]
fn playing_white_against_the_qbf_strategy_black_wins_every_time() {
    let cases: &[(&str, &str, &str)] = &[
        ("httt", "3x3_5_el.ig", "5"),
        ("domineering", "3x3_4.ig", "5"),
        ("evader_pursuer", "4x4_3_e-4-1_p-2-3.ig", "3"),
    ];
    for (game, problem, depth) in cases {
        let (d, p) = corpus_files(game, problem);
        // White answers with its first move, and with its second (or only) move.
        for first in [1usize, 2] {
            let (won, text) = play(&[&d, &p, "--depth", depth], &|_| first);
            assert!(won, "{game}/{problem}, White always move {first}:\n{text}");
            assert!(text.contains("Black wins (verified"), "{text}");
            assert!(text.contains("Black plays "), "{text}");
        }
    }
    // Where Black has no winning strategy, play says so and fails with status 1.
    let (d, p) = corpus_files("httt", "3x3_9_tic.ig");
    let (status, text) = play_piped(&[&d, &p, "--depth", "3"], "1\n1\n1\n");
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains("no winning strategy"), "{text}");
}

/// A piped script's mistake (a line that is not a move, input that ends before the game)
/// abandons the game with status 2, never the status 1 of a refuted strategy.
#[test]
fn playing_against_the_qbf_strategy_tells_bad_input_from_a_refuted_strategy() {
    let (d, p) = corpus_files("domineering", "3x3_4.ig");
    let args = [d.as_str(), p.as_str(), "--depth", "5"];
    let (status, text) = play_piped(&args, "no-such-move\n1\n");
    assert_eq!(status, Some(2), "{text}");
    assert!(
        text.contains("not a move here: `no-such-move`") && text.contains("abandoned"),
        "{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");
    // No input at all: Black moves first, then White's turn finds the end of the input.
    let (status, text) = play_piped(&args, "");
    assert_eq!(status, Some(2), "{text}");
    assert!(text.contains("input ended"), "{text}");
    assert!(text.contains("Black plays "), "{text}");
    // Input that is not text is said to be so.
    let (status, text) = play_piped_bytes(&args, b"\xff\n");
    assert_eq!(status, Some(2), "{text}");
    assert!(
        text.contains("cannot read a move") && text.contains("UTF-8"),
        "{text}"
    );
}

#[test]
fn lower_writes_qcir_and_qdimacs() {
    let (d, p) = corpus_files("httt", "3x3_3_domino.ig");
    let tmp = tempfile::tempdir().expect("tempdir");
    let qcir = tmp.path().join("f.qcir");
    let out = gamelang(&[
        "lower",
        &d,
        &p,
        "--to",
        "qcir",
        "--depth",
        "3",
        "--out",
        qcir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&qcir).unwrap();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    assert_eq!(lines.next(), Some("#QCIR-G14"));
    assert!(text.lines().any(|l| l.starts_with("exists(")));
    assert!(text.lines().any(|l| l.starts_with("forall(")));
    assert!(text.lines().any(|l| l.starts_with("output(")));
    // QDIMACS: the header's counts are the file's, and DepQBF decides it as exhaustive
    // search does (Black wins the domino in 3).
    let out = gamelang(&["lower", &d, &p, "--to", "qdimacs", "--depth", "3"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let header = text
        .lines()
        .find(|l| l.starts_with("p cnf"))
        .expect("header");
    let n: Vec<usize> = header
        .split_whitespace()
        .skip(2)
        .map(|x| x.parse().unwrap())
        .collect();
    let clauses = text
        .lines()
        .filter(|l| !l.starts_with(['p', 'c', 'a', 'e']) && !l.trim().is_empty())
        .count();
    assert_eq!(clauses, n[1]);
    let file = tmp.path().join("f.qdimacs");
    std::fs::write(&file, &text).unwrap();
    let status = Command::new("depqbf")
        .arg(&file)
        .output()
        .expect("depqbf (apt-get install depqbf)");
    assert_eq!(status.status.code(), Some(10), "DepQBF: true");
    // A .game grid game lowers too.
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grid/tictactoe.game");
    let out = gamelang(&[
        "lower",
        game.to_str().unwrap(),
        "--to",
        "qdimacs",
        "--depth",
        "3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn solver_failures_are_errors_or_unknown_never_false() {
    let (d, p) = corpus_files("httt", "3x3_5_el.ig");
    // A solver that does not exist: an error saying how to install DepQBF.
    let out = gamelang(&[
        "bddl",
        "solve",
        &d,
        &p,
        "--qbf",
        "--solver",
        "no-such-solver-xyz",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no-such-solver-xyz") && err.contains("apt-get install depqbf"),
        "{err}"
    );
    // A solver that takes too long: unknown.
    let tmp = tempfile::tempdir().expect("tempdir");
    let slow = tmp.path().join("slow.sh");
    std::fs::write(&slow, "#!/bin/sh\nsleep 20\nexit 20\n").unwrap();
    let stubborn = tmp.path().join("odd.sh");
    std::fs::write(&stubborn, "#!/bin/sh\nexit 3\n").unwrap();
    for f in [&slow, &stubborn] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(f, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let j = json(&[
        "bddl",
        "solve",
        &d,
        &p,
        "--qbf",
        "--json",
        "--solver",
        slow.to_str().unwrap(),
        "--timeout",
        "1",
    ]);
    assert_eq!(j["answer"], "unknown");
    assert!(j["black_wins"].is_null());
    // A solver with an unexpected exit code: unknown too.
    let j = json(&[
        "bddl",
        "solve",
        &d,
        &p,
        "--qbf",
        "--json",
        "--solver",
        stubborn.to_str().unwrap(),
    ]);
    assert_eq!(j["answer"], "unknown");
    // Any solver with the usual exit codes works: DepQBF without --qdo (no move shown).
    let j = json(&[
        "bddl", "solve", &d, &p, "--qbf", "--json", "--solver", "depqbf",
    ]);
    assert_eq!(j["black_wins"], true);
}

/// A solver that says "true" and certifies a first move that does not win has
/// contradicted itself: no answer is given (exit 1), rather than "Black has a winning
/// strategy" with a note.
#[test]
fn a_certificate_that_does_not_win_refutes_the_answer() {
    let (d, p) = corpus_files("httt", "3x3_5_el.ig");
    // At depth 3 Black cannot complete the L of three cells (two Black moves): the real
    // solver says so.
    let j = json(&["bddl", "solve", &d, &p, "--qbf", "--json", "--depth", "3"]);
    assert_eq!(j["black_wins"], false, "{j}");
    // The liar: exit 10 (true), every variable of the first block false (a full
    // certificate, which decodes to the move in the corner).
    let tmp = tempfile::tempdir().expect("tempdir");
    let liar = tmp.path().join("liar.sh");
    std::fs::write(
        &liar,
        "#!/bin/sh\nawk '/^e /{ if (!done) { for (i = 2; i < NF; i++) print \"V -\" $i \" 0\"; done = 1 } }' \"$1\"\nexit 10\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&liar, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for extra in [&[][..], &["--json"][..]] {
        let mut args = vec![
            "bddl",
            "solve",
            &d,
            &p,
            "--qbf",
            "--depth",
            "3",
            "--solver",
            liar.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let out = gamelang(&args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("does not check out") && text.contains("occupy(1,1)"),
            "{text}"
        );
        assert!(!text.contains("winning strategy"), "{text}");
    }
}

/// A grid game where a player who cannot move does not lose (tic-tac-toe: a full board is a
/// draw) is encoded with that rule: `solve --qbf` agrees with exhaustive search at every
/// depth on small boards, where White is stuck once the board is full. (Seed 001's rule,
/// White stuck loses, made --qbf say Black wins 3 × 1 tic-tac-toe within 4 plies by filling
/// the board, and play "verified" it.) Lowering to BDDL, which cannot say the rule, warns.
#[test]
fn qbf_encodes_a_game_where_a_stuck_player_does_not_lose() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grid/tictactoe.game");
    let game = game.to_str().unwrap();
    let mut answers = Vec::new();
    for (w, h, most) in [(3, 1, 5), (3, 2, 7), (2, 2, 5)] {
        let size = [format!("width={w}"), format!("height={h}")];
        let size = ["--set", &size[0], "--set", &size[1]];
        for d in 1..=most {
            let d = d.to_string();
            let exhaustive =
                json(&[&["solve", game, "--json", "--max-depth", &d][..], &size].concat());
            let qbf = json(
                &[
                    &["solve", game, "--json", "--max-depth", &d, "--qbf"][..],
                    &size,
                ]
                .concat(),
            );
            assert_eq!(
                qbf["black_wins"], exhaustive["wins_within"],
                "{w} x {h}, depth {d}: {qbf}"
            );
            answers.push(qbf["black_wins"].as_bool().unwrap());
        }
    }
    // Under BDDL's rule (the game lowered to BDDL and solved by exhaustive search) Black
    // wins 3 × 1 at depth 4, White being stuck: the answers above are the draw rule's.
    assert!(!answers[3], "{answers:?}");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_str().unwrap();
    let out = gamelang(&[
        "lower", game, "--to", "bddl", "--out", dir, "--set", "width=3", "--set", "height=1",
    ]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("BDDL cannot say that"));
    let bddl = json(&[
        "bddl",
        "solve",
        &format!("{dir}/domain.ig"),
        &format!("{dir}/tictactoe.ig"),
        "--depth",
        "4",
        "--json",
    ]);
    assert_eq!(bddl["black_wins"], true, "{bddl}");
    // play --qbf on 3 × 1 at depth 4: the solver finds no winning strategy (exit 1).
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args([
            "play", game, "--qbf", "--depth", "4", "--set", "width=3", "--set", "height=1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("no winning strategy"), "{text}");
}

/// A formula file left by a gamelang that was killed (its process gone) is removed by the
/// next QBF run; one of a process that still runs is left alone.
#[test]
fn formula_files_of_killed_runs_are_removed_by_the_next_one() {
    let tmp = tempfile::tempdir().unwrap();
    // A process id that ran and ended (and is not reused within the test).
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let orphan = tmp.path().join(format!("gamelang-qbf-{dead}-0-1.qdimacs"));
    let alive = tmp
        .path()
        .join(format!("gamelang-qbf-{}-0-1.qdimacs", std::process::id()));
    let other = tmp.path().join("gamelang-qbf-notes.txt");
    for f in [&orphan, &alive, &other] {
        std::fs::write(f, "p cnf 0 0\n").unwrap();
    }
    let (d, p) = corpus_files("httt", "3x3_5_el.ig");
    let out = support::cli::gamelang_env(
        &["bddl", "solve", &d, &p, "--qbf", "--depth", "3", "--json"],
        &[("TMPDIR", tmp.path().to_str().unwrap())],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!orphan.exists(), "the killed run's file is still there");
    assert!(alive.exists() && other.exists());
    // The run's own file is gone too (removed when the solver was done).
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
    assert_eq!(left.len(), 2, "{left:?}");
}

/// `solve --qbf --max-depth D` on a `.game` answers at depth D and reports the file's own
/// depth as the file's (the board's cell count for domineering 4 × 4), not D.
#[test]
fn the_files_depth_is_reported_as_the_files() {
    let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grid/domineering.game");
    let game = game.to_str().unwrap();
    let j = json(&["solve", game, "--qbf", "--max-depth", "4", "--json"]);
    assert_eq!(j["depth"], 4, "{j}");
    assert_eq!(j["problem_depth"], 16, "{j}");
    let out = gamelang(&["solve", game, "--qbf", "--max-depth", "4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("depth 16 in the file") && text.contains("depth 4:"),
        "{text}"
    );
}
