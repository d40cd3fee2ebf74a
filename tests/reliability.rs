//! Issue 14: what fuzzing and bad input found — each defect's command, with the outcome it
//! must have now (an answer, or a clear error with a non-zero exit status; never a panic,
//! an abort or a hang).

mod support;
use std::process::{Command, Output};
use support::cli::gamelang;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A directory of this test process's own under the temporary directory, `tag` naming the
/// test.
fn temp_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gamelang-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `gamelang sweep` of examples/heaps.game over 1..3 × 1..3, with `extra` arguments.
fn heaps_sweep_3x3(extra: &[&str]) -> Output {
    let heaps = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
    let mut args = vec![
        "sweep",
        heaps,
        "--from",
        "(k n)",
        "--range",
        "k=1..3",
        "--range",
        "n=1..3",
        "--no-boundaries",
    ];
    args.extend_from_slice(extra);
    gamelang(&args)
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
        "`-1` is of sort NzInt, but parameter `n` is a Nat",
    );
    assert!(err.contains("--set:1:3"), "{err}");
    fails_with(
        &["solve", "examples/domineering.game", "--set", "rows=-3"],
        "parameter `rows` is a Nat",
    );
    // An expression is checked as written: said so, since its value (3) would do.
    fails_with(
        &["solve", "examples/colouring.game", "--set", "n=2 + 1"],
        "a parameter's value is checked as written, before any reduction",
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

fn corpus(game: &str, problem: &str) -> (String, String) {
    let dir = format!("bddl/tests/corpus/{game}");
    (format!("{dir}/domain.ig"), format!("{dir}/{problem}"))
}

#[test]
fn an_infinite_or_huge_timeout_is_no_limit_and_a_bad_one_is_refused() {
    let (d, p) = corpus("httt", "3x3_5_el.ig");
    for t in ["inf", "1e20"] {
        let o = gamelang(&["bddl", "solve", &d, &p, "--qbf", "--timeout", t]);
        assert!(o.status.success(), "--timeout {t}: {}", stderr(&o));
        assert!(
            stdout(&o).contains("winning move: occupy(2,2)"),
            "{}",
            stdout(&o)
        );
    }
    for t in ["-1", "NaN", "soon"] {
        let o = gamelang(&["bddl", "solve", &d, &p, "--qbf", &format!("--timeout={t}")]);
        assert_eq!(o.status.code(), Some(2), "--timeout {t}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("not a number of seconds"),
            "{}",
            stderr(&o)
        );
    }
}

/// Is process `pid` gone (or a zombie waiting for init)? Polled for a while: a killed
/// process takes a moment to go.
fn gone(pid: &str) -> bool {
    for _ in 0..500 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat) => {
                let state = stat.rsplit(')').next().unwrap_or("").trim_start();
                if state.starts_with('Z') || state.starts_with('X') {
                    return true;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    false
}

/// Wait for a file a solver script writes, and read it.
fn wait_for(path: &std::path::Path) -> String {
    for _ in 0..1000 {
        if let Ok(s) = std::fs::read_to_string(path) {
            if s.ends_with('\n') {
                return s.trim().to_string();
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("{} never written", path.display());
}

fn script(dir: &std::path::Path, name: &str, text: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn a_timeout_kills_the_solver_and_everything_it_started() {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("grandchild");
    let solver = script(
        tmp.path(),
        "wrapper.sh",
        &format!(
            "#!/bin/sh\nsleep 300 &\necho $! > {}\nwait\n",
            pidfile.display()
        ),
    );
    let (d, p) = corpus("httt", "3x3_5_el.ig");
    let o = gamelang(&[
        "bddl",
        "solve",
        &d,
        &p,
        "--qbf",
        "--json",
        "--solver",
        &solver,
        "--timeout",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"answer\":\"unknown\""),
        "{}",
        stdout(&o)
    );
    let pid = wait_for(&pidfile);
    assert!(gone(&pid), "the solver's child {pid} outlived the timeout");
}

/// Run `bddl solve --qbf` with the solver script `body` (which writes the pid to watch
/// into the file named by `{pidfile}`), SIGKILL gamelang once that pid is written, and
/// return the pid: gamelang gets no chance to clean up.
fn kill_gamelang_under(name: &str, body: &str) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let pidfile = tmp.path().join("pid");
    let solver = script(
        tmp.path(),
        name,
        &body.replace("{pidfile}", &pidfile.display().to_string()),
    );
    let (d, p) = corpus("httt", "3x3_5_el.ig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["bddl", "solve", &d, &p, "--qbf", "--solver", &solver])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = wait_for(&pidfile);
    child.kill().unwrap();
    child.wait().unwrap();
    pid
}

#[test]
fn the_solver_dies_with_gamelang() {
    let pid = kill_gamelang_under(
        "solver.sh",
        "#!/bin/sh\necho $$ > {pidfile}\nexec sleep 300\n",
    );
    assert!(gone(&pid), "the solver {pid} outlived gamelang");
}

/// `PR_SET_PDEATHSIG` kills only the solver: a wrapper script's own children are killed
/// by the watchdog (`qbf/src/solver.rs`), which sees gamelang's pipe close.
#[test]
fn the_solvers_children_die_with_gamelang() {
    let pid = kill_gamelang_under(
        "wrapper.sh",
        "#!/bin/sh\nsleep 300 &\necho $! > {pidfile}\nwait\n",
    );
    assert!(gone(&pid), "the solver's child {pid} outlived gamelang");
}

#[test]
fn resume_refuses_another_sweeps_csv_and_bad_rows_and_recomputes_a_cut_row() {
    let tmp = tempfile::tempdir().unwrap();
    let csv = tmp.path().join("h.csv");
    let csv = csv.to_str().unwrap();
    let sweep = heaps_sweep_3x3;
    let o = sweep(&["--csv", csv]);
    assert!(o.status.success(), "{}", stderr(&o));
    let full = std::fs::read_to_string(csv).unwrap();
    assert!(
        full.starts_with("# gamelang sweep: game heaps, --from (k n), --first R\nk,n,winner\n"),
        "{full}"
    );
    // Another question (--first B) is refused.
    let o = sweep(&["--first", "B", "--resume", csv]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the CSV of another sweep"),
        "{}",
        stderr(&o)
    );
    // A row that is not a result is refused, with its line.
    std::fs::write(csv, format!("{full}banana\n")).unwrap();
    let o = sweep(&["--resume", csv]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("h.csv:12: `banana` has 1 fields"),
        "{}",
        stderr(&o)
    );
    // A last row cut short (`1,3,` without its result and line end) is recomputed.
    let cut: String = full
        .lines()
        .take(4)
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + "1,3,";
    std::fs::write(csv, &cut).unwrap();
    let o = sweep(&["--resume", csv]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("2 of them read from the resumed CSV"),
        "{}",
        stdout(&o)
    );
    assert_eq!(std::fs::read_to_string(csv).unwrap(), full);
}

#[test]
fn depth_auto_stops_at_the_longest_play() {
    // Black (second) cannot get three in a row on a 3x1 board; the file's depth is huge.
    let tmp = tempfile::tempdir().unwrap();
    let (d, p) = support::cli::occupy_problem(
        tmp.path(),
        "#boardsize\n3 1\n#depth\n1000000001\n#blackgoal\nblack(?x,?y) black(?x+1,?y) black(?x+2,?y)\n#whitegoal\nFalse\n#blackturn\nsecond\n",
    );
    let (d, p) = (d.as_str(), p.as_str());
    for extra in [&[][..], &["--qbf"][..]] {
        let mut args = vec!["bddl", "solve", d, p, "--depth", "auto"];
        args.extend_from_slice(extra);
        let o = gamelang(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("critical depth: none (no play lasts more than 4 plies"),
            "{extra:?}: {}",
            stdout(&o)
        );
    }
}

/// `gamelang repl examples/heaps.game` with `input` as its script.
fn repl(input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["repl", "examples/heaps.game"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

#[test]
fn the_remainder_of_the_least_integer_by_minus_one_is_zero() {
    let o = repl("-9223372036854775808 rem -1\n-9223372036854775808 quo -1\n");
    assert!(stdout(&o).contains("result Zero: 0"), "{}", stdout(&o));
    // The quotient does overflow, and says so.
    assert!(stderr(&o).contains("integer overflow"), "{}", stderr(&o));
}

#[test]
fn a_huge_unknown_identifier_is_reported_without_suggestions() {
    let o = repl(&format!("{}\n", "z".repeat(1 << 20)));
    assert!(
        stderr(&o).contains("unknown operator or variable"),
        "{}",
        &stderr(&o)[..200]
    );
}

#[test]
fn a_byte_that_is_not_utf8_is_located_and_dev_zero_is_not_read_to_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("bad.game");
    std::fs::write(&f, b"fmod X is\n  sort S .\n  op a : -> S . \xff\nendfm\n").unwrap();
    fails_with(
        &["solve", f.to_str().unwrap()],
        "bad.game:3:17: byte 0xff is not UTF-8",
    );
    fails_with(&["solve", "/dev/zero"], "larger than 64 MiB");
    let (d, _) = corpus("httt", "3x3_5_el.ig");
    fails_with(
        &["bddl", "solve", &d, f.to_str().unwrap()],
        "bad.game:3:17: byte 0xff",
    );
}

#[test]
fn a_bddl_problem_with_300_goals_loads() {
    // Its translation has a goal list of ~5,000 tokens: "term too long" before.
    let tmp = tempfile::tempdir().unwrap();
    let goals: String = (0..300)
        .map(|k| format!("black(?x,?y) black(?x+1,?y) NOT(white({},1))\n", 1 + k % 3))
        .collect();
    let (d, p) = support::cli::occupy_problem(
        tmp.path(),
        &format!("#boardsize\n3 1\n#depth\n3\n#blackgoal\n{goals}#whitegoal\nFalse\n"),
    );
    let o = gamelang(&["bddl", "solve", &d, &p]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Black has a winning strategy within 3 plies"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn a_million_parentheses_at_the_prompt_are_an_error() {
    let o = repl(&format!(
        "{}1{}\n",
        "(".repeat(1_000_000),
        ")".repeat(1_000_000)
    ));
    let err = stderr(&o);
    assert!(
        err.contains("parentheses nested more than 10000 deep"),
        "{}",
        err.chars().take(300).collect::<String>()
    );
}

#[test]
fn runaway_recursion_stops_at_the_memory_budget_with_an_error() {
    // The seed's appendix-A program recurses without end from (-3 -1); the depth limit
    // (50 M frames) does not fit in a small machine's memory. With a budget of 150 MB the
    // reduction must stop with the memory error, not abort.
    stops_at_a_150_mb_budget(&[
        "solve",
        "tests/data/seed003-appendix-a.game",
        "--from",
        "(-3 -1)",
    ]);
}

/// Run `gamelang ARGS` (from the crate's directory) under `GAMELANG_MAX_MEMORY=150M`: it
/// must end with the memory error, naming the setting the budget came from. What it
/// printed on standard error.
fn stops_at_a_150_mb_budget(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .env("GAMELANG_MAX_MEMORY", "150M")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("more than the memory budget of 150 MB")
            // The note names the setting the budget came from, not the default.
            && err.contains("the budget was set by GAMELANG_MAX_MEMORY=150M"),
        "{err}"
    );
    err
}

#[test]
fn thousands_of_threads_asked_for_run_no_more_than_the_work_and_the_cores_can_use() {
    // `--threads 5000` over nine points started 5,000 threads, each with an engine (1.8 GB
    // resident); a match of 3,000 games on 3,000 threads did not end in a minute.
    let sweep = |threads: &str| heaps_sweep_3x3(&["--threads", threads]);
    let (one, many) = (sweep("1"), sweep("5000"));
    assert!(many.status.success(), "{}", stderr(&many));
    let report = stdout(&many);
    assert!(
        report.contains("9 points in") && report.contains("with 9 threads"),
        "{report}"
    );
    // The same answers.
    let counts = |o: &Output| {
        stdout(o)
            .lines()
            .nth(1)
            .unwrap()
            .split(": ")
            .last()
            .unwrap()
            .to_string()
    };
    assert_eq!(counts(&one), counts(&many));

    // A match: as many threads as eight a core at most, the same games as on one thread.
    let ttt = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tictactoe.game");
    let play = |threads: &str| {
        gamelang(&[
            "match",
            ttt,
            "--agents",
            "random,random",
            "--games",
            "300",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ])
    };
    let (one, many) = (play("1"), play("100000"));
    assert!(many.status.success(), "{}", stderr(&many));
    let json = |o: &Output| -> serde_json::Value { serde_json::from_slice(&o.stdout).unwrap() };
    for key in ["wins", "draws", "avg_plies", "avg_branching"] {
        assert_eq!(json(&one)[key], json(&many)[key], "{key}");
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if 8 * cores < 300 {
        let err = stderr(&many);
        assert!(
            err.contains(&format!("note: running {} threads, not 100000", 8 * cores)),
            "{err}"
        );
    }
}

#[test]
fn a_solver_asking_millions_of_short_questions_stops_at_the_memory_budget() {
    // The take-1-or-2 game of docs/language.md from 3,000,000: six million positions of a
    // few rewrites each. Each question's run loop is too short to reach a memory check of
    // its own, so `solve` grew to 1.8 GB under a budget of 300 MB (and with a larger start
    // until an allocation failed and the process aborted).
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/language.md")).unwrap();
    let game = doc
        .split("## A first game")
        .nth(1)
        .and_then(|s| s.split("```").nth(1))
        .expect("the first game's code block")
        .replace("start 10 .", "start 3000000 .");
    let dir = temp_dir("budget");
    let path = dir.join("take.game");
    std::fs::write(&path, game).unwrap();
    let err = stops_at_a_150_mb_budget(&["solve", path.to_str().unwrap()]);
    // Located in the search: the line of positions down to the question it was on.
    assert!(err.contains("w(R, 3000000)"), "{err}");
}

/// Run gamelang with `args`, interrupt it as Ctrl-C does once it has run `after`, and
/// return what it printed. (The wait only lets the work start: nothing asserts a time.)
fn interrupted_run(args: &[&str], after: std::time::Duration) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run gamelang");
    std::thread::sleep(after);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    child.wait_with_output().unwrap()
}

#[test]
fn ctrl_c_stops_simulations_and_playouts_with_what_they_did_so_far() {
    // `simulate --random` went on after Ctrl-C (its states remembered, it asked the engine
    // nothing that would notice), `playout` died of the signal without a word.
    let wait = std::time::Duration::from_millis(700);
    for agents in [None, Some("random,random")] {
        let mut args = vec![
            "simulate",
            "examples/snakes-ladders.game",
            "--games",
            "1000000000",
            "--json",
        ];
        match agents {
            None => args.push("--random"),
            Some(a) => args.extend(["--agents", a]),
        }
        let o = interrupted_run(&args, wait);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(130), "{args:?}: {err}");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&o)));
        assert_eq!(j["interrupted"], true, "{j}");
        let games = j["games"].as_u64().unwrap();
        assert!(games < 1_000_000_000, "{j}");
        // Snakes and ladders always ends: every game counted has one winner.
        let won: u64 = j["wins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(won, games, "{j}");
        assert!(
            err.contains(&format!(
                "(interrupted: {games} of 1000000000 games played)"
            )),
            "{err}"
        );
    }
    // Playouts of a grid game (played natively) and of a game of equations.
    for game in ["examples/connect.game", "examples/quoridor.game"] {
        let o = interrupted_run(&["playout", game, "--seconds", "600", "--json"], wait);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(130), "{game}: {err}");
        let j: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{game}: {e}: {}", stdout(&o)));
        assert_eq!(j["interrupted"], true, "{j}");
        assert!(j["seconds"].as_f64().unwrap() < 600.0, "{j}");
        assert!(err.contains("(interrupted after"), "{err}");
    }
}

#[test]
#[cfg(unix)]
fn ctrl_c_stops_the_qbf_solver_and_ends_with_the_interrupted_status() {
    // A "solver" that would run a minute, and a child of its own: both must be gone.
    let dir = temp_dir("qbf-int");
    let nap = format!("sleep {}", 100_000 + std::process::id());
    let solver = script(&dir, "slow.sh", &format!("#!/bin/sh\n{nap} &\nwait\n"));
    let o = interrupted_run(
        &[
            "solve",
            "examples/grid/domineering.game",
            "--qbf",
            "--solver",
            &solver,
        ],
        std::time::Duration::from_millis(1500),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(
        err.contains("interrupted (the QBF solver was stopped)"),
        "{err}"
    );
    // (The solver's group is killed before gamelang reports: nothing to wait for.)
    // Read from /proc (no `pgrep` needed): the command lines of every process.
    let running: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .collect();
    for pattern in [solver.as_str(), nap.as_str()] {
        let left: Vec<&String> = running.iter().filter(|c| c.contains(pattern)).collect();
        assert!(left.is_empty(), "`{pattern}` outlived gamelang: {left:?}");
    }
}

#[test]
fn small_inconsistencies_of_the_command_line_are_gone() {
    let heaps = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
    // `--where false`: the report said "9 left out by --where: " with nothing after.
    let o = heaps_sweep_3x3(&["--where", "false"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = stdout(&o);
    let line = report.lines().nth(1).unwrap();
    assert!(line.ends_with("9 left out by --where"), "{report}");
    // --threads 0 is refused by match as by sweep; --max-steps 0 everywhere, as the REPL's
    // `set max-steps 0` is.
    let ttt = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tictactoe.game");
    fails_with(
        &["match", ttt, "--agents", "random,random", "--threads", "0"],
        "--threads must be at least 1",
    );
    for cmd in ["solve", "sweep", "reduce"] {
        let mut args = vec![cmd, heaps, "--max-steps", "0"];
        if cmd == "sweep" {
            args.extend(["--range", "k=1..2"]);
        }
        let o = gamelang(&args);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("'--max-steps <N>'"),
            "{cmd}: {}",
            stderr(&o)
        );
    }
    // A file with old Mac line endings (a lone CR): its comments end at the line's end.
    let dir = temp_dir("cr");
    let cr = dir.join("heaps-cr.game");
    std::fs::write(
        &cr,
        std::fs::read_to_string(heaps).unwrap().replace('\n', "\r"),
    )
    .unwrap();
    let (plain, mac) = (
        gamelang(&["solve", heaps, "--json"]),
        gamelang(&["solve", cr.to_str().unwrap(), "--json"]),
    );
    assert!(mac.status.success(), "{}", stderr(&mac));
    let j = |o: &Output| -> serde_json::Value { serde_json::from_slice(&o.stdout).unwrap() };
    assert_eq!(j(&plain)["winner"], j(&mac)["winner"]);
    assert_eq!(j(&plain)["principal_line"], j(&mac)["principal_line"]);
}

#[test]
fn a_right_hand_side_of_fifty_thousand_terms_compiles_in_linear_time() {
    // `eq f(N) = N + 1 + … + 1` with 50,000 terms (a chain nested 50,000 deep): its
    // sub-terms were hashed whole to find the repeated ones, and the unboxed arithmetic
    // walked the chain down from every node: about two minutes here (71 s at 40,000),
    // now a fraction of a second. Also a check that the sharing found by shapes keeps the
    // value.
    let n = 50_000;
    let text = format!(
        "fmod LONG is\n  protecting INT .\n  op f : Int -> Int .\n  var N : Int .\n  eq f(N) = N {} .\nendfm\n",
        "+ 1 ".repeat(n)
    );
    let dir = temp_dir("long");
    let path = dir.join("long.maude");
    std::fs::write(&path, text).unwrap();
    let o = gamelang(&["reduce", path.to_str().unwrap(), "f(7)", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), format!("result NzNat: {}", n + 7));
}

#[test]
fn a_term_nested_eight_thousand_deep_is_read_in_linear_memory() {
    // Every reading of every span is kept while a term is parsed; each copied the
    // readings below it, so `abs(abs(…(1)…))` nested 8,000 deep took 5 s and 3 GB. The
    // readings share their sub-terms now: under a limit of 1.5 GB of address space, the
    // old parser's allocation failed and the process aborted.
    let depth = 8_000;
    let text = format!(
        "fmod P is\n  protecting INT .\nendfm\nreduce {}-3{} .\n",
        "abs(".repeat(depth),
        ")".repeat(depth)
    );
    let dir = temp_dir("nest");
    let path = dir.join("nest.maude");
    std::fs::write(&path, text).unwrap();
    let o = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1500000 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_gamelang"),
            "reduce",
            path.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{:?}: {}", o.status, stderr(&o));
    assert_eq!(stdout(&o).trim(), "result NzNat: 3");
}

#[test]
fn a_module_of_a_hundred_thousand_constants_loads_and_still_refuses_a_duplicate() {
    // Each `op` was compared with every operator the module had declared before (to
    // refuse one declared twice), and the grammar each visible operator with all of them:
    // 200,000 constants took minutes (40,000: 7.6 s), now under a second.
    let n = 100_000;
    let mut text = String::from("fmod OPS is\n  sort S .\n");
    for i in 0..n {
        text.push_str(&format!("  op c{i} : -> S [ctor] .\n"));
    }
    let dir = temp_dir("ops");
    let path = dir.join("ops.maude");
    std::fs::write(&path, format!("{text}endfm\n")).unwrap();
    let o = gamelang(&["reduce", path.to_str().unwrap(), "c99999", "--quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "result S: c99999");
    // The index by name still finds a second declaration of the same constant.
    let twice = dir.join("twice.maude");
    std::fs::write(&twice, format!("{text}  op c123 : -> S .\nendfm\n")).unwrap();
    let err = fails_with(
        &["reduce", twice.to_str().unwrap(), "c1"],
        "operator `c123` is declared twice with the same argument sorts",
    );
    assert!(err.contains(&format!("twice.maude:{}", n + 3)), "{err}");
}

#[test]
fn match_and_playout_report_errors_as_json_under_json() {
    // `solve --json` and `simulate --json` did; `match` and `playout` printed text.
    let connect = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/connect.game");
    // (An agent spec that does not parse is a usage error, exit 2, as in `simulate`.)
    for (args, code) in [
        (vec!["playout", connect, "--json", "--seconds", "0"], 1),
        (
            vec!["match", connect, "--json", "--agents", "foo,random"],
            2,
        ),
    ] {
        let o = gamelang(&args);
        assert_eq!(o.status.code(), Some(code), "{args:?}");
        let err = stderr(&o);
        let j: serde_json::Value =
            serde_json::from_str(err.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {err}"));
        let message = j["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("--seconds") || message.contains("unknown agent `foo`"),
            "{j}"
        );
    }
}

/// Output files that cannot be written are `gamelang::io` errors (exit 1), found before
/// the sweep runs; a picture of three variables is a usage error (exit 2), also before.
#[test]
fn unwritable_sweep_outputs_are_io_errors_before_the_work() {
    for (flag, file) in [
        ("--csv", "/nonexistent-dir/x.csv"),
        ("--png", "/nonexistent-dir/x.png"),
    ] {
        let o = heaps_sweep_3x3(&[flag, file]);
        assert_eq!(o.status.code(), Some(1), "{flag}");
        let err = stderr(&o);
        assert!(
            err.contains("error[gamelang::io]: cannot write `/nonexistent-dir/x."),
            "{err}"
        );
        assert!(stdout(&o).is_empty(), "the sweep ran: {}", stdout(&o));
    }
    let o = heaps_sweep_3x3(&["--range", "d=1..2", "--png", "/tmp/never.png"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--png draws one or two variables; this sweep has 3"));
}

/// Ctrl-C of a chance `solve` says in which phase it stopped and how far it had come (it
/// said "interrupted" alone). Four-seat Snakes takes seconds to explore.
#[test]
fn ctrl_c_of_a_chance_solve_says_how_far_it_came() {
    let o = interrupted_run(
        &[
            "solve",
            "examples/snakes-ladders.game",
            "--set",
            "players=4",
        ],
        std::time::Duration::from_millis(700),
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("error[gamelang::interrupted]: interrupted while exploring the states, after")
            && err.contains("rewrites"),
        "{err}"
    );
}

#[test]
fn questions_that_each_build_megabytes_stop_at_the_budget() {
    // On a 64 × 64 board each question builds thousands of boards of a kilobyte, and the
    // budget, read at the start of every 4,096th question, was read after gigabytes: 3.2 GB
    // under any budget from 100M to 2G. It is also read once the store has grown by 2^16
    // terms. Under 1.5 GB of address space the old engine's allocation failed (abort).
    let o = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1500000 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_gamelang"),
            "solve",
            "examples/grid/tictactoe.game",
            "--set",
            "width=64",
            "--set",
            "height=64",
            "--max-depth",
            "3",
        ])
        .env("GAMELANG_MAX_MEMORY", "150M")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{:?}: {err}", o.status);
    assert!(
        err.contains("more than the memory budget of 150 MB"),
        "{err}"
    );
}

/// A match's CSV rows are printed as its games end, in the order of the games: a match
/// killed (SIGKILL) after 40 rows has printed the rows a 40-game match prints, while it
/// still had thousands of games to play. Before, every row waited for the last game, and
/// a kill lost them all.
#[test]
fn a_match_prints_its_rows_as_it_goes_and_a_kill_keeps_them() {
    use std::io::BufRead;
    let args = [
        "match",
        "examples/tictactoe.game",
        "--agents",
        "random,mcts:30",
        "--threads",
        "2",
        "--csv",
        "--games",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .arg("5000")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run gamelang");
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let got: Vec<String> = (0..41).map(|_| lines.next().unwrap().unwrap()).collect();
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(running, "the match had ended before its 40th row was read");
    let full = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .arg("40")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let want: Vec<String> = stdout(&full).lines().map(str::to_string).collect();
    assert_eq!(got, want);
}

/// Ctrl-C stops MCTS on a grid game (whose playouts run on native boards, without the
/// engine that reads the flag) within a playout: no game of a match of mcts:2000000 on
/// Connect-4 is finished when it stops. It played every game begun to its end, a decision
/// taking tens of seconds. (With mcts:200000 a release build sometimes finished its first
/// decision, about 0.7 s, before the Ctrl-C at 0.7 s, and the game was counted.)
#[test]
fn ctrl_c_stops_mcts_on_a_grid_game_at_once() {
    let o = interrupted_run(
        &[
            "match",
            "examples/grid/connect4.game",
            "--agents",
            "mcts:2000000,random",
            "--games",
            "2",
            "--threads",
            "1",
            // (So that, were Ctrl-C ignored, the test would end after two decisions.)
            "--max-plies",
            "2",
            "--json",
        ],
        std::time::Duration::from_millis(700),
    );
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["interrupted"], true, "{j}");
    assert_eq!(j["games"], 0, "{j}");
}

/// Ctrl-C in the middle of a match on four threads: the games counted are the first ones
/// (rows 0, 1, 2, … with no gap), each as the uninterrupted match plays it. Games that
/// ended after one Ctrl-C stopped were counted too, which favoured short games.
#[test]
fn a_match_stopped_by_ctrl_c_counts_a_prefix_of_its_games() {
    use std::io::{BufRead, Read};
    let args = [
        "match",
        "examples/pig.game",
        "--set",
        "goal=40",
        "--agents",
        "mcts:2000,random",
        "--threads",
        "4",
        "--csv",
        "--games",
    ];
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .arg("400")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run gamelang");
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    for _ in 0..2 {
        out.read_line(&mut text).unwrap();
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(sent.success());
    out.read_to_string(&mut text).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{text}");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    assert!(!rows.is_empty() && rows.len() < 400, "{text}");
    let full = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .arg(rows.len().to_string())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let want: Vec<&str> = std::str::from_utf8(&full.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .collect();
    assert_eq!(rows, want);
}

/// Ctrl-C ends `solve --value` and `solve --retrograde` with the interrupted status (130),
/// as it ends plain `solve`; both ended with 1, the status of an error of the game.
#[test]
fn ctrl_c_ends_every_kind_of_solve_with_the_interrupted_status() {
    for how in ["--value", "--retrograde"] {
        let o = interrupted_run(
            &["solve", "examples/othello.game", "--set", "n=6", how],
            std::time::Duration::from_millis(700),
        );
        assert_eq!(o.status.code(), Some(130), "{how}: {}", stderr(&o));
    }
}

/// `gamelang reduce` of a file: a reduction stopped by the memory budget leaves nothing
/// behind, so the file's next reductions (which need no rewrites) still run; they failed on
/// the same budget. And Ctrl-C stops `reduce` with exit status 130, as every command.
#[test]
fn reduce_goes_on_after_a_budget_and_stops_on_ctrl_c_with_130() {
    let dir = temp_dir("reduce-budget");
    let file = dir.join("loop.maude");
    std::fs::write(
        &file,
        "fmod LOOP is\n  sort N .\n  op z : -> N [ctor] .\n  op s : N -> N [ctor] .\n\
         \x20 op f : N -> N .\n  var X : N .\n  eq f(X) = f(s(X)) .\nendfm\n\
         red f(z) .\nred s(z) .\nred s(s(z)) .\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["reduce", file.to_str().unwrap(), "--quiet"])
        .env("GAMELANG_MAX_MEMORY", "100M")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("more than the memory budget"), "{err}");
    assert!(err.contains("1 of the 3 reductions failed"), "{err}");
    assert_eq!(stdout(&o), "result N: s(z)\nresult N: s(s(z))\n");
    // Ctrl-C in the middle of the endless reduction (no budget to stop it first).
    let o = interrupted_run(
        &[
            "reduce",
            file.to_str().unwrap(),
            "f(z)",
            "--max-steps",
            "100000000000",
        ],
        std::time::Duration::from_millis(700),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
}

/// The memory budget is read where the direct evaluator and the machine take turns at
/// every level: `len(I X) = 1 + len(X)` over an `assoc` list, whose equation the direct
/// evaluator hands to the machine's matcher (`complete`, which runs no loop of its own),
/// builds the rest of the list at each level. The periodic checks lived in the run loops
/// (whose count starts from zero at each nested entry) and in the direct evaluator's own
/// equations, so this recursion reached none until the native stack ran out: a list of
/// 200,000 elements stopped at 4.6 GB whatever the budget (500 MB, 1 GB, 2 GB). Here the
/// store grows by about n² / 2 ids, past the growth that calls for a reading (a million)
/// a few times.
#[test]
fn the_memory_budget_is_read_where_direct_and_machine_alternate() {
    use gamelang_lang::elab::Session;
    use gamelang_runtime::Engine;
    let n = 3_000;
    let src = "fmod BIGL is\n  protecting INT .\n  sort L .\n  subsort Int < L .\n\
               \x20 op nil : -> L [ctor] .\n  op __ : L L -> L [ctor assoc id: nil] .\n\
               \x20 op len : L -> Nat .\n  var I : Int . var X : L .\n\
               \x20 eq len(nil) = 0 .\n  eq len(I X) = 1 + len(X) .\nendfm\n";
    let mut session = Session::new().expect("stdlib");
    session.load_source("len.maude", src).expect("loads");
    let m = session.module_by_name("BIGL").expect("module");
    let list: Vec<String> = (0..n).map(|i| (i % 97).to_string()).collect();
    let pat = session
        .parse_term(m, "test", &format!("len({})", list.join(" ")), None)
        .expect("parses");
    // As `gamelang reduce` runs it: on a thread with a large stack (the CLI's has 512 MiB),
    // where the direct evaluator has all of its native stack budget.
    let program = std::sync::Arc::new(session.program.clone());
    let (checks, ids) = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let mut engine = Engine::new(program);
            engine.collect_in_reduce = true;
            let t = engine.build(&pat, &[]);
            let before = engine.memory_checks();
            let v = engine.reduce(t).expect("a value");
            assert_eq!(engine.show(v), n.to_string());
            assert!(engine.used_direct());
            (
                engine.memory_checks() - before,
                engine.store().spilled_arguments(),
            )
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        checks as usize >= ids / 2_000_000,
        "{checks} readings of the resident memory while {ids} ids were stored in long lists"
    );
}

/// The memory budget holds where each step builds a long list: `len(I X J) = 1 + len(X I)`
/// over an `assoc` list of 20,000 elements copies the list at every step (the rest `X`
/// is a view of the list, but `I` after it is not where the list goes on), hundreds of
/// megabytes in all, a few thousand steps, and the budget, read only every 2^18 steps, was
/// never read: under a 300 MB budget it ended at 807 MB without a word. The run loops now
/// also read it when the store has grown by a million ids. (The test's first program,
/// `len(I X) = 1 + len(X)`, copied the rest at each step then; it is a view now, and runs
/// in a few megabytes.)
#[test]
fn the_memory_budget_holds_where_each_step_copies_a_long_list() {
    let dir = temp_dir("long-list");
    let file = dir.join("len.maude");
    let list: Vec<String> = (0..20_000).map(|i| (i % 97).to_string()).collect();
    std::fs::write(
        &file,
        format!(
            "fmod BIGL is\n  protecting INT .\n  sort L .\n  subsort Int < L .\n\
             \x20 op nil : -> L [ctor] .\n  op __ : L L -> L [ctor assoc id: nil] .\n\
             \x20 op len : L -> Nat .\n  var I : Int . var X : L .\n\
             \x20 var J : Int .\n  eq len(nil) = 0 .\n  eq len(I) = 1 .\n\
             \x20 eq len(I X J) = 1 + len(X I) .\nendfm\nred len({}) .\n",
            list.join(" ")
        ),
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["reduce", file.to_str().unwrap(), "--quiet"])
        .env("GAMELANG_MAX_MEMORY", "300M")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{}", &err[..err.len().min(2000)]);
    assert!(
        err.contains("more than the memory budget of 300 MB"),
        "{}",
        &err[..err.len().min(2000)]
    );
    // The trace's terms, where there is a trace, are cut (the list is 20,000 numbers; a
    // trace line was all of it). (Which reduction step the budget stops at differs between
    // builds: a debug build stopped where there was no trace to print.)
    if let Some(trace) = err.split("while reducing (outermost first):").nth(1) {
        for line in trace.lines().filter(|l| !l.trim().is_empty()) {
            assert!(
                line.chars().count() < 400,
                "a trace line of {} chars",
                line.len()
            );
        }
    }
}
