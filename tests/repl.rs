//! `gamelang repl` driven through standard input, as a script runs it: no prompts, results
//! on standard output, diagnostics on standard error, one command per line (or several
//! lines when the parser says the input is unfinished).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};

fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gamelang"));
    c.arg("repl")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("GAMELANG_HISTORY", "")
        .env_remove("NO_COLOR");
    c
}

/// Run the REPL with `script` on standard input.
fn repl(args: &[&str], script: &str) -> Output {
    let mut child = command(args)
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
        .expect("write the script");
    child.wait_with_output().expect("wait for gamelang repl")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The output lines that are not about time (which varies from run to run).
fn untimed(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.contains(" ms"))
        .collect::<Vec<_>>()
}

#[test]
fn reduce_prints_normal_form_sort_rewrites_and_time() {
    let o = repl(
        &["examples/heaps.game"],
        "reduce next-heaps((2 5))\nw(R, (2 5)) .\nred 1 +\n  2 *\n  3\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "result Set{TwoHeaps}: (0 5), (2 0), (2 1), (2 3)");
    assert!(lines[1].starts_with("rewrites: "), "{out}");
    assert!(
        lines[1].contains("   time: ") && lines[1].ends_with(" ms"),
        "{out}"
    );
    // A bare term is reduced too, and a final ` .` is allowed.
    assert_eq!(lines[2], "result Bool: true");
    // A term over three lines: the parser asked for more after `1 +` and `2 *`.
    assert_eq!(lines[4], "result NzNat: 7");
    assert_eq!(lines.len(), 6, "{out}");
    // No prompts, no banner, no colour when standard input is not a terminal.
    assert!(!out.contains("> "), "{out}");
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn moves_are_numbered_for_the_given_player() {
    let o = repl(
        &["examples/heaps.game"],
        "moves\nmoves (5 2) --first B\nmoves (0 0)\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "R to move from (2 5): 4 moves\n\
         \x20 1  (0 5)\n\
         \x20 2  (2 0)\n\
         \x20 3  (2 1)\n\
         \x20 4  (2 3)\n\
         B to move from (5 2): 4 moves\n\
         \x20 1  (0 2)\n\
         \x20 2  (1 2)\n\
         \x20 3  (3 2)\n\
         \x20 4  (5 0)\n\
         no moves: play has halted at (0 0) with R to move (B (Benny) wins)\n"
    );
}

#[test]
fn who_wins_is_the_answer_of_gamelang_solve() {
    for (from, first) in [
        ("(2 5)", "R"),
        ("(5 2)", "B"),
        ("(4 7)", "R"),
        ("(0 0)", "B"),
    ] {
        let cli = Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args([
                "solve",
                "examples/heaps.game",
                "--from",
                from,
                "--first",
                first,
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run gamelang solve");
        assert!(cli.status.success(), "{}", stderr(&cli));
        let o = repl(
            &["examples/heaps.game"],
            &format!("solve {from} --first {first}\n"),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // Everything but the statistics line (positions, rewrites and time).
        let (a, b) = (stdout(&cli), stdout(&o));
        assert_eq!(untimed(&a), untimed(&b), "from {from}, {first} first");
        assert!(b.contains("winner: "), "{b}");
    }
}

#[test]
fn play_to_the_end_with_undo() {
    // R (the user) moves first from (2 5); gamelang answers for B.
    let script = "play\n4\n1\nundo\nundo\n2\n7\n1\n";
    let o = repl(&["examples/heaps.game"], script);
    let out = stdout(&o);
    let expected = "\
game heaps: you play R (Rebecca), gamelang plays B (Benny); type a move's number, `undo` to take a move back, `stop` to leave
(2 5) — your move (R):
  1  (0 5)
  2  (2 0)
  3  (2 1)
  4  (2 3)
you (R) play (2 5) -> (2 3)
gamelang (B) plays (2 3) -> (0 3)   (every move loses)
(0 3) — your move (R):
  1  (0 0)
you (R) play (0 3) -> (0 0)
play has halted at (0 0) with B to move: R (Rebecca) wins — you win!
taken back
(0 3) — your move (R):
  1  (0 0)
taken back
(2 5) — your move (R):
  1  (0 5)
  2  (2 0)
  3  (2 1)
  4  (2 3)
you (R) play (2 5) -> (2 0)   (this gives away your win: `undo` takes it back)
gamelang (B) plays (2 0) -> (0 0)   (a winning move)
play has halted at (0 0) with R to move: B (Benny) wins — gamelang wins
";
    assert_eq!(out, expected);
    // `7` was no move (but the game was over), and `1` after the end neither.
    let err = stderr(&o);
    assert!(err.contains("the game is over"), "{err}");
    assert_eq!(o.status.code(), Some(1), "an error makes a script fail");
}

#[test]
fn play_as_the_second_player_and_a_move_that_does_not_exist() {
    let script = "play (5 2) --first B --as R\n9\n1\n";
    let o = repl(&["examples/heaps.game"], script);
    let out = stdout(&o);
    assert!(
        out.contains("gamelang (B) plays (5 2) -> (3 2)   (a winning move)"),
        "{out}"
    );
    assert!(out.contains("(3 2) — your move (R):"), "{out}");
    assert!(out.contains("you (R) play (3 2) -> (0 2)"), "{out}");
    assert!(
        out.contains("play has halted at (0 0) with R to move: B (Benny) wins — gamelang wins"),
        "{out}"
    );
    let err = stderr(&o);
    assert!(err.contains("there is no move 9"), "{err}");
    assert!(err.contains("pick a move from 1 to 3"), "{err}");
}

#[test]
fn declarations_at_the_prompt_extend_the_current_module() {
    let script = "\
op double : Nat -> Nat .
var n : Nat .
eq double(n) =
  n + n .
double(21)
op half : Nat -> Nat
  [memo] .
eq half(n) = n quo 2 .
half(double(21))
";
    let o = repl(&["examples/heaps.game"], script);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("added to WINS{HeapsGame}: 1 operator (memo tables dropped)"),
        "{out}"
    );
    assert!(out.contains("result NzNat: 42"), "{out}");
    assert!(out.contains("result NzNat: 21"), "{out}");
}

#[test]
fn modules_typed_at_the_prompt_and_select() {
    let script = "\
fmod COUNT is
  protecting INT .
  op f : Nat -> Nat .
  eq f(n:Nat) = n * 3 .
endfm
f(4)
select HEAPS-GAME
next-heaps((1 1))
f(4)
";
    let o = repl(&["examples/heaps.game"], script);
    let out = stdout(&o);
    assert!(
        out.contains("declared: module COUNT (current module: COUNT)"),
        "{out}"
    );
    assert!(out.contains("result NzNat: 12"), "{out}");
    assert!(out.contains("current module: HEAPS-GAME"), "{out}");
    assert!(out.contains("result Set{TwoHeaps}: (0 1), (1 0)"), "{out}");
    // `f` belongs to COUNT, not HEAPS-GAME.
    assert!(
        stderr(&o).contains("unknown operator or variable `f`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_error_leaves_the_session_usable() {
    let script = "\
red next-heaps((2 five))
moves (2 5) --frist B
nonsense-command-or-term
eq broken(n:Nat) = n .
op g : Nat -> Nta .
red next-heaps((1 1))
";
    let o = repl(&["examples/heaps.game"], script);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("unknown operator or variable `five`"), "{err}");
    assert!(err.contains("<input 1>:1:19"), "{err}");
    assert!(err.contains("unknown option `--frist`"), "{err}");
    assert!(err.contains("its options: --first, --game"), "{err}");
    assert!(
        err.contains("unknown operator or variable `nonsense-command-or-term`"),
        "{err}"
    );
    assert!(
        err.contains("unknown operator or variable `broken`"),
        "{err}"
    );
    assert!(err.contains("unknown sort `Nta`"), "{err}");
    assert!(err.contains("did you mean `Nat`?"), "{err}");
    // Diagnostics are not coloured in a script.
    assert!(!err.contains('\u{1b}'), "{err}");
    // And the session still works.
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], "result Set{TwoHeaps}: (0 1), (1 0)");
}

#[test]
fn run_time_errors_are_reported_and_the_session_goes_on() {
    let script = "\
solve (5 2)
set max-steps 50
solve (8 9)
set max-steps 10000000000
red w(R, (1 1))
";
    let o = repl(&["tests/data/seed003-appendix-a.game"], script);
    let err = stderr(&o);
    assert!(
        err.contains("no equation of `next-heaps` applies to `next-heaps((5 2))`"),
        "{err}"
    );
    assert!(err.contains("`next-heaps` is declared here"), "{err}");
    assert!(err.contains("gave up after 50 rewriting steps"), "{err}");
    assert!(err.contains("set max-steps N"), "{err}");
    assert!(stdout(&o).contains("result Bool: false"), "{}", stdout(&o));
}

/// A REPL kept running, fed a line at a time, so that a file can change between commands.
struct Live {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// Read all of a pipe in a thread (so that a full pipe cannot block the REPL).
fn drain(mut pipe: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = pipe.read_to_string(&mut s);
        s
    })
}

impl Live {
    /// Start the REPL; its standard error is collected by the returned thread.
    fn start(args: &[&str]) -> (Live, std::thread::JoinHandle<String>) {
        let mut child = command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gamelang repl");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let stderr = drain(child.stderr.take().expect("stderr"));
        (
            Live {
                child,
                stdin,
                stdout,
            },
            stderr,
        )
    }

    /// Send a command and read standard output up to a line containing `until`.
    fn ask(&mut self, line: &str, until: &str) -> String {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
        let mut seen = String::new();
        loop {
            let mut l = String::new();
            let n = self.stdout.read_line(&mut l).expect("read");
            assert!(n > 0, "the REPL ended before printing {until:?}:\n{seen}");
            seen.push_str(&l);
            if l.contains(until) {
                return seen;
            }
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn reload_picks_up_edits_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("heaps.game");
    let original = std::fs::read_to_string("examples/heaps.game").unwrap();
    std::fs::write(&path, &original).unwrap();
    let (mut repl, stderr) = Live::start(&[path.to_str().unwrap()]);
    let out = repl.ask("solve", "positions:");
    assert!(out.contains("winning move: (2 5) -> (2 3)"), "{out}");

    // Make the player to move at (0 0) the winner instead: R now wants to reach (0 0) on
    // its own turn.
    let edited = original.replace(
        "eq won(p, c) = (B == p) and halted(p, c) .",
        "eq won(p, c) = (R == p) and halted(p, c) .",
    );
    assert_ne!(edited, original);
    std::fs::write(&path, &edited).unwrap();
    let out = repl.ask("reload", "reloaded");
    assert!(out.contains("(memo tables dropped)"), "{out}");
    let out = repl.ask("solve", "positions:");
    assert!(out.contains("winning move: (2 5) -> (0 5)"), "{out}");

    // A broken edit: reported, and the previous version stays.
    std::fs::write(&path, edited.replace("op won :", "op won ")).unwrap();
    writeln!(repl.stdin, "reload").unwrap();
    let out = repl.ask("solve", "positions:");
    assert!(out.contains("winning move: (2 5) -> (0 5)"), "{out}");
    drop(repl);
    let err = stderr.join().unwrap();
    assert!(
        err.contains("reload failed (1 error); the previous version stays loaded"),
        "{err}"
    );
}

#[test]
fn a_broken_file_can_be_fixed_and_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.game");
    let good = std::fs::read_to_string("tests/data/countdown.game")
        .unwrap()
        .replace("start 100000 .", "start 7 .");
    std::fs::write(&path, good.replace("op won :", "op won ")).unwrap();
    let (mut repl, stderr) = Live::start(&[path.to_str().unwrap()]);
    // Once the REPL answers, it has tried (and failed) to load the file.
    repl.ask("red 1 + 1", "result NzNat: 2");
    repl.ask("solve\nred 2 + 2", "result NzNat: 4");
    std::fs::write(&path, &good).unwrap();
    repl.ask("reload", "reloaded");
    let out = repl.ask("solve", "positions:");
    assert!(out.contains("game countdown: 7 with R to move"), "{out}");
    assert!(out.contains("winner: R (Rebecca)"), "{out}");
    drop(repl);
    let err = stderr.join().unwrap();
    assert!(err.contains("could not be loaded"), "{err}");
    assert!(err.contains("no game is loaded"), "{err}");
}

#[test]
fn help_lists_every_command_and_quit_stops_reading() {
    let o = repl(&[], "help\nhelp play\nquit\nred 1 + 1\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for cmd in [
        "reduce TERM",
        "moves [CONFIG]",
        "solve [CONFIG]",
        "play [CONFIG]",
        "undo",
        "load FILE",
        "reload",
        "show modules|sorts|ops [MODULE]",
        "select MODULE | GAME",
        "help [COMMAND]",
        "quit",
    ] {
        assert!(out.contains(cmd), "help lacks {cmd}:\n{out}");
    }
    assert!(
        out.contains("usage: play [CONFIG] [--first P] [--as P] [--game NAME]"),
        "{out}"
    );
    assert!(!out.contains("result"), "nothing runs after quit:\n{out}");
}

#[test]
fn without_a_file_the_prelude_is_there_and_files_can_be_loaded() {
    let o = repl(
        &[],
        "red 6 * 7\nsolve\nload examples/heaps.game\nshow modules\nshow sorts\nsolve\n",
    );
    let out = stdout(&o);
    assert!(out.contains("result NzNat: 42"), "{out}");
    assert!(stderr(&o).contains("no game is loaded"), "{}", stderr(&o));
    assert!(
        out.contains("loaded examples/heaps.game: modules TWO-HEAPS, HEAPS-GAME; game heaps (current module: WINS{HeapsGame})"),
        "{out}"
    );
    assert!(out.contains("* instance WINS{HeapsGame}"), "{out}");
    assert!(out.contains("* heaps"), "{out}");
    assert!(out.contains("TwoHeaps < Set{TwoHeaps}"), "{out}");
    assert!(out.contains("winner: R (Rebecca)"), "{out}");
}

/// The REPL sessions shown in the documentation (code blocks with `WINS{HeapsGame}> `
/// prompts) are what the REPL prints, apart from times and counts.
#[cfg(unix)]
#[test]
fn the_sessions_in_the_documentation_are_real() {
    for doc in ["docs/repl.md", "README.md"] {
        let text = std::fs::read_to_string(doc).unwrap();
        let blocks: Vec<&str> = text.split("```").skip(1).step_by(2).collect();
        let mut checked = 0;
        for block in blocks {
            let block = block.trim_start_matches(|c: char| c != '\n');
            if !block.contains("WINS{HeapsGame}> ") {
                continue;
            }
            let mut script = String::new();
            let mut expected = Vec::new();
            let mut started = false;
            for line in block.lines() {
                let input = line
                    .strip_prefix("WINS{HeapsGame}> ")
                    .or_else(|| line.strip_prefix("play heaps> "));
                match input {
                    Some(cmd) => {
                        started = true;
                        script.push_str(cmd);
                        script.push('\n');
                    }
                    None if started => expected.push(line),
                    None => {} // `$ gamelang repl …` and the banner, shown in a terminal only
                }
            }
            // Diagnostics and results, interleaved as on a terminal.
            let mut child = Command::new("sh")
                .args(["-c", "exec \"$0\" repl examples/heaps.game 2>&1"])
                .arg(env!("CARGO_BIN_EXE_gamelang"))
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .env("GAMELANG_HISTORY", "")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(script.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let out = String::from_utf8_lossy(&out.stdout);
            // The counts of positions and rewrites are checked, the times are not.
            let untimed = |l: &str| l.split("   time: ").next().unwrap_or(l).to_string();
            let counted = |l: &&str| !l.trim().is_empty();
            let got: Vec<String> = out.lines().filter(counted).map(untimed).collect();
            let want: Vec<String> = expected
                .iter()
                .copied()
                .filter(counted)
                .map(untimed)
                .collect();
            assert_eq!(got, want, "{doc}: the session\n{script}");
            checked += 1;
        }
        assert!(checked > 0, "{doc} shows no session");
    }
}

#[test]
fn parameters_values_and_bounded_play_at_the_prompt() {
    let o = repl(
        &["examples/colouring.game"],
        "set n 3\nvalue\nsolve --max-depth 2\nset n 2\nvalue\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("n = 3\n"), "{out}");
    assert!(
        out.contains("with B to move: -1 (B maximises, R minimises)"),
        "{out}"
    );
    assert!(out.contains("B cannot force a win within 2 plies"), "{out}");
    assert!(
        out.contains("with B to move: 4 (B maximises, R minimises)"),
        "{out}"
    );
    // An unknown parameter is an error that names the game's parameters.
    let o = repl(&["examples/colouring.game"], "set m 3\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("`m` is neither a setting nor a parameter of game `colouring`")
            && stderr(&o).contains("game `colouring`'s parameters: n"),
        "{}",
        stderr(&o)
    );
    // The same for a chance game (it named no parameters).
    let o = repl(&["examples/pig.game"], "set gol 5\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("`gol` is neither a setting nor a parameter of game `pig`")
            && stderr(&o).contains("game `pig`'s parameters: goal"),
        "{}",
        stderr(&o)
    );
    // A value of the wrong sort is located in what `set` was given, not at a `--set`
    // nobody typed; the same for a chance game.
    for (file, line) in [
        ("examples/grid/tictactoe.game", "set width -1\n"),
        ("examples/pig.game", "set goal -1\n"),
    ] {
        let o = repl(&[file], line);
        assert_eq!(o.status.code(), Some(1));
        let err = stderr(&o);
        assert!(err.contains("is a Nat") && err.contains("set:1:"), "{err}");
        assert!(!err.contains("--set"), "{err}");
    }
}

/// Issue 11: an inline variable (`S:Nat`) used again without its sort in an equation typed
/// at a `WINS{…}` prompt is that variable, not the `var S` that the standard library's
/// `WINS` declares (library variables never leak into what the user writes).
#[test]
fn inline_variable_reused_bare_is_not_a_library_variable() {
    let o = repl(
        &["examples/heaps.game"],
        "op twice : Nat -> Nat .\neq twice(S:Nat) = S + S .\ntwice(21)\n\
         op first : Nat Nat -> Nat .\neq first(S:Nat, c:Nat) = S .\nfirst(7, 8)\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(results, ["result NzNat: 42", "result NzNat: 7"], "{out}");
    // The library's own equations still use its variables: w still works.
    let o = repl(&["examples/heaps.game"], "w(R, (2 5))\n");
    assert!(
        stdout(&o).starts_with("result Bool: true"),
        "{}",
        stdout(&o)
    );
}

/// A normal form is printed in full by default, however long; `set print-limit N` cuts it.
#[test]
fn normal_forms_are_printed_in_full_unless_print_limit_is_set() {
    let o = repl(
        &["examples/heaps.game"],
        "next-heaps((2 3000))\nset print-limit 40\nnext-heaps((2 3000))\nset\nset print-limit 0\nnext-heaps((2 3000))\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(results.len(), 3, "{out}");
    // Some 1,500 pairs, far past the old cut of 10,000 characters.
    assert!(results[0].len() > 12_000, "{}", results[0].len());
    assert!(results[0].ends_with(')') && !results[0].contains('…'));
    assert!(results[1].ends_with('…'), "{}", results[1]);
    assert!(results[1].len() < 80, "{}", results[1]);
    assert!(out.contains("print-limit 40\n"), "{out}");
    assert_eq!(results[2], results[0]);
}

/// `load` runs the file's `reduce TERM .` commands, as Maude's `load` does; one that fails
/// is reported at its command and stops the rest, and the module stays loaded.
#[test]
fn load_runs_the_files_reduce_commands() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fact.maude");
    std::fs::write(
        &file,
        "fmod FACT is\n  protecting INT .\n  op fact : Int -> Int .\n  var N : Int .\n\
         eq fact(0) = 1 .\n  ceq fact(N) = N * fact(N - 1) if N > 0 = true .\nendfm\n\
         reduce fact(10) .\nred fact(fact(3)) .\nreduce fact(-1) .\nreduce fact(2) .\n",
    )
    .unwrap();
    let fact = |n: i64| (1..=n).product::<i64>();
    let o = repl(&[], &format!("load {}\nfact(5)\n", file.display()));
    let out = stdout(&o);
    let lines = untimed(&out);
    assert_eq!(
        lines[0],
        format!(
            "loaded {}: module FACT (current module: FACT)",
            file.display()
        )
    );
    assert_eq!(lines[1], "reduce in FACT : fact(10) .");
    assert_eq!(lines[2], format!("result NzNat: {}", fact(10)));
    assert_eq!(lines[3], "reduce in FACT : fact(fact(3)) .");
    assert_eq!(lines[4], format!("result NzNat: {}", fact(fact(3))));
    assert_eq!(lines[5], "reduce in FACT : fact(-1) .");
    // The failing command stopped the rest: `fact(2)` was not reduced, and the session
    // went on with the module loaded.
    assert_eq!(lines[6], format!("result NzNat: {}", fact(5)), "{out}");
    assert_eq!(lines.len(), 7, "{out}");
    let err = stderr(&o);
    assert!(
        err.contains("no equation of `fact` applies to `fact(-1)`"),
        "{err}"
    );
    assert!(err.contains("fact.maude:10:1"), "{err}");
}

/// A Pig state as printed: `pig(a, b, k, pN)` (p1's score, p2's, the turn total, the
/// player to move) or `won(pN)`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pig {
    At(u32, u32, u32, u32),
    Won(u32),
}

fn pig_state(text: &str) -> Pig {
    if let Some(p) = text.strip_prefix("won(p") {
        return Pig::Won(p.trim_end_matches(')').parse().unwrap());
    }
    let inner = text.strip_prefix("pig(").unwrap().trim_end_matches(')');
    let f: Vec<&str> = inner.split(", ").collect();
    Pig::At(
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[2].parse().unwrap(),
        f[3].trim_start_matches('p').parse().unwrap(),
    )
}

/// Pig's rules (goal 100): the state after the player to move rolls `face`, or holds.
fn pig_after(s: Pig, roll: Option<u32>) -> Pig {
    let Pig::At(a, b, k, p) = s else {
        panic!("play goes on after {s:?}")
    };
    let other = 3 - p;
    let mine = if p == 1 { a } else { b };
    let bank = |k: u32| {
        if p == 1 {
            Pig::At(a + k, b, 0, other)
        } else {
            Pig::At(a, b + k, 0, other)
        }
    };
    match roll {
        Some(1) => Pig::At(a, b, 0, other),
        Some(f) if mine + k + f >= 100 => Pig::Won(p),
        Some(f) => Pig::At(a, b, k + f, p),
        None if mine + k >= 100 => Pig::Won(p),
        None => bank(k),
    }
}

#[test]
fn play_a_chance_game_against_an_agent() {
    // Pig (goal 100) against `random`: the user rolls once and holds each turn. Every
    // outcome printed (face, probability, state) and every state shown follow Pig's rules
    // written above, from the start to the end announced.
    let mut script = String::from("play --agent random --seed 5\n");
    for _ in 0..200 {
        script.push_str("1\n2\n");
    }
    script.push_str("hint\nstop\n");
    let o = repl(&["examples/pig.game"], &script);
    let out = stdout(&o);
    let mut lines = out.lines().peekable();
    assert_eq!(
        lines.next(),
        Some(
            "game pig: you play p1, random plays p2; type a move's number, `hint`, `undo` to \
             take a move back, `stop` to leave"
        )
    );
    let mut cur = Pig::At(0, 0, 0, 1);
    let (mut rolls, mut holds, mut ended) = (0, 0, None);
    while let Some(line) = lines.next() {
        if line.starts_with("pig(") {
            assert_eq!(pig_state(line), cur, "{line}");
        } else if line.ends_with(" roll") && (line.starts_with("you") || line.starts_with("random"))
        {
            let chance = lines.next().expect("a chance line after a roll");
            // The faces leading to one state are printed together, with their
            // probability: `2 or 3 (probability 1/3): won(p2)`.
            let rest = chance.strip_prefix("chance: ").expect(chance);
            let (faces, rest) = rest.split_once(" (probability ").expect(chance);
            let (prob, state) = rest.split_once("): ").expect(chance);
            let faces: Vec<u32> = faces.split(" or ").map(|f| f.parse().unwrap()).collect();
            let after: Vec<Pig> = faces.iter().map(|&f| pig_after(cur, Some(f))).collect();
            assert!(after.iter().all(|&s| s == after[0]), "{chance}");
            // Every face leading to that state is listed, and the probability is their
            // number over 6, reduced.
            let all = (1..=6)
                .filter(|&f| pig_after(cur, Some(f)) == after[0])
                .count() as u32;
            assert_eq!(faces.len() as u32, all, "{chance}");
            let g = (1..=all)
                .rev()
                .find(|d| all.is_multiple_of(*d) && 6 % d == 0)
                .unwrap();
            assert_eq!(prob, format!("{}/{}", all / g, 6 / g), "{chance}");
            cur = after[0];
            assert_eq!(pig_state(state), cur, "{chance}");
            rolls += 1;
        } else if line.ends_with(" hold") && (line.starts_with("you") || line.starts_with("random"))
        {
            cur = pig_after(cur, None);
            holds += 1;
        } else if let Some(rest) = line.strip_prefix("play has ended at ") {
            let (state, _) = rest.split_once(": ").unwrap();
            assert_eq!(pig_state(state), cur, "{line}");
            ended = Some(line.to_string());
        } else {
            assert!(
                line.starts_with("your move (p1):")
                    || line.starts_with("  ")
                    || (ended.is_some() && line == "no game is being played"),
                "unexpected line {line}"
            );
        }
    }
    let ended = ended.expect("the game ended");
    let Pig::Won(w) = cur else { unreachable!() };
    assert!(ended.contains(&format!("p{w} won")), "{ended}");
    assert!(rolls > 20 && holds > 10, "{rolls} rolls, {holds} holds");
    // After the end, moves and `hint` are refused.
    assert!(stderr(&o).contains("the game is over"));
}

#[test]
fn play_a_four_player_chance_game_as_the_third_player() {
    // Ludo with 4 players on the real ring (`set players 4`, `set track 52`): the user is
    // p3, the agent plays p1, p2 and p4;
    // the throws come round in the order p1, p2, p3, p4 (the game gives no extra throw
    // after a 6), and the user is asked to move exactly at p3's turns.
    let mut script =
        String::from("set players 4\nset track 52\nplay --agent random --as p3 --seed 2\n");
    for _ in 0..30 {
        script.push_str("1\n");
    }
    script.push_str("stop\n");
    let o = repl(&["examples/ludo.game"], &script);
    let out = stdout(&o);
    assert!(
        out.contains("game ludo: you play p3, random plays p1, p2, p4;"),
        "{out}"
    );
    let mut throws = Vec::new();
    for line in out.lines() {
        if let Some(rest) = line.strip_prefix("random (") {
            let (who, what) = rest.split_once(") plays ").unwrap();
            assert_ne!(who, "p3", "{line}");
            if what == "throw" {
                throws.push(who.to_string());
            }
        } else if line.starts_with("you (p3) play throw") {
            throws.push("p3".to_string());
        } else if let Some(who) = line.strip_prefix("your move (") {
            assert_eq!(who, "p3):", "{line}");
        }
    }
    assert!(throws.len() >= 12, "{throws:?}");
    for (i, who) in throws.iter().enumerate() {
        assert_eq!(*who, format!("p{}", i % 4 + 1), "throw {i}: {throws:?}");
    }
}

/// `solve` at the prompt prints what `gamelang solve` prints (docs/repl.md), the boards of
/// the principal line included (a game with `display`): compared line for line with the
/// command's output, times left out.
#[test]
fn solve_draws_the_line_as_the_command_does() {
    let file = "examples/colouring.game";
    let at_prompt = repl(&[file], "solve\n");
    let command = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["solve", file])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run gamelang");
    let timeless = |s: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(s)
            .lines()
            .filter(|l| !l.contains("time:"))
            .map(str::to_string)
            .collect()
    };
    let want = timeless(&command.stdout);
    assert!(want.iter().any(|l| l.starts_with("ply 1")), "{want:?}");
    let got = timeless(&at_prompt.stdout);
    let first = got.iter().position(|l| l == &want[0]).expect("the report");
    assert_eq!(&got[first..first + want.len()], &want[..]);
}

/// A parameter set at the prompt stays set when another file is loaded (the session is
/// rebuilt from what was loaded and typed), and `reload` goes back to the file's value.
/// `load` dropped it silently, and later answers were the default's.
#[test]
fn a_parameter_set_at_the_prompt_survives_a_load_until_reload() {
    let o = repl(
        &["examples/colouring.game"],
        "value\nset n 3\nvalue\nload examples/tosses.game\nselect colouring\nvalue\nreload\nvalue\n",
    );
    let out = stdout(&o);
    let values: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("value under best play"))
        .collect();
    assert_eq!(values.len(), 4, "{out}\n{}", stderr(&o));
    // The default's value, n = 3's, n = 3's after the load, the default's after reload.
    assert_ne!(values[0], values[1], "n = 3 should change the value");
    assert_eq!(values[2], values[1], "the load kept n = 3");
    assert_eq!(values[3], values[0], "reload went back to the file's n");
}

/// A variable in a term that is evaluated as it is (at the prompt, in `--from`) is named
/// for what it is, where it is; it was "unknown sort `Nat`", for a sort that exists.
#[test]
fn a_variable_where_a_ground_term_is_needed_is_called_one() {
    let o = repl(&[], "x:Nat + 1\n");
    let err = stderr(&o);
    assert!(
        err.contains("no variables here: `x:Nat` is one")
            && err.contains("1 │ x:Nat + 1\n  │ ^^^^^ a variable"),
        "{err}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["solve", "examples/heaps.game", "--from", "X:TwoHeaps"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no variables here: `X:TwoHeaps` is one"),
        "{}",
        stderr(&o)
    );
}
