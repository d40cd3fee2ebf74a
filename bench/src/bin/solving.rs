//! The game-solving benchmark (issue 12, docs/benchmarks.md "Game solving vs native"):
//! `gamelang solve` on the colouring game, Domineering, Othello and Connect-4, each beside
//! a hand-written native solver of the same game (bit boards, negamax alpha-beta with a
//! transposition table: `bench/src/solvers`). Every run is a child process with its CPU time
//! (user + system) and peak memory from `wait4`, stopped at a time limit and then reported
//! as "> T s". Answers are cross-checked: a disagreement prints MISMATCH and fails. It
//! prints figures; it is not a test.
//!
//! ```text
//! cargo run --release -p gamelang-bench --bin solving                      # everything
//! cargo run --release -p gamelang-bench --bin solving -- --only othello --timeout 120
//! ```

#[path = "../child.rs"]
mod child;
#[path = "../solvers/mod.rs"]
mod solvers;

use child::{field, timed, Run};
use solvers::{colouring, connect, domineering, othello, Game, Search};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

/// Solve one instance natively (the child mode `--native GAME QUESTION PARAMS…`) and print
/// JSON like gamelang's: `winner`, `value` (for B, who maximises), `positions`.
fn native(args: &[String]) -> Result<(), String> {
    let num = |i: usize| -> Result<u32, String> {
        args.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("argument {i} of {args:?} is not a number"))
    };
    let value = args.get(1).map(String::as_str) == Some("value");
    /// The root's value for the player to move and the positions searched. The table has
    /// 2^22 slots (160 MB), or 2^16 on small boards, where filling the large one would be
    /// most of the time.
    fn run<G: Game>(g: G, start: G::Pos, value: bool, cells: u32) -> (i32, u64) {
        let mut s = Search::new(g, if cells <= 20 { 16 } else { 22 });
        let v = if value {
            s.value(start)
        } else {
            s.outcome(start)
        };
        (v, s.nodes)
    }
    // (value for the player to move at the start, positions, is that player B?)
    let (v, nodes, b_first) = match args.first().map(String::as_str) {
        Some("colouring") => {
            let n = num(2)?;
            let (v, k) = run(
                colouring::Colouring::new(n),
                colouring::Colouring::start(),
                value,
                n * n,
            );
            (v, k, true)
        }
        Some("othello") => {
            let n = num(2)?;
            let g = othello::Othello::new(n);
            let start = g.start();
            let (v, k) = run(g, start, value, n * n);
            (v, k, true)
        }
        Some("connect") => {
            let g = connect::Connect::new(num(2)?, num(3)?, num(4)?);
            let (v, k) = run(g, connect::Connect::start(), value, num(2)? * num(3)?);
            (v, k, true)
        }
        Some("domineering") => {
            let g = domineering::Domineering::new(num(2)?, num(3)?);
            let b_first = args.get(4).map(String::as_str) != Some("R");
            let start = g.start(b_first);
            let (v, k) = run(g, start, value, num(2)? * num(3)?);
            (v, k, b_first)
        }
        _ => return Err(format!("unknown game in {args:?}")),
    };
    let for_b = if b_first { v } else { -v };
    let winner = match for_b.signum() {
        1 => "B",
        -1 => "R",
        _ => "draw",
    };
    if value {
        println!("{{\"value\":{for_b},\"positions\":{nodes}}}");
    } else {
        println!("{{\"winner\":\"{winner}\",\"positions\":{nodes}}}");
    }
    Ok(())
}

/// One instance: a game file with its parameters, the question, and the native solver's
/// arguments.
struct Instance {
    game: &'static str,
    label: String,
    value: bool,
    params: Vec<String>,
    first: Option<&'static str>,
    native: Vec<String>,
    /// More arguments for `gamelang solve` (a bounded table for the largest boards).
    extra: Vec<&'static str>,
}

fn instance(game: &'static str, params: &[(&str, u32)], value: bool) -> Instance {
    let q = if value { "value" } else { "outcome" };
    let mut native = vec![game.to_string(), q.to_string()];
    native.extend(params.iter().map(|(_, v)| v.to_string()));
    Instance {
        game,
        label: params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        value,
        params: params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        first: None,
        native,
        extra: Vec::new(),
    }
}

/// A finished run's answer, or None if it was stopped at the time limit.
struct Outcome {
    answer: Option<String>,
    run: Run,
}

fn run_gamelang(gamelang: &Path, root: &Path, i: &Instance, limit: Duration) -> Outcome {
    let mut cmd = Command::new(gamelang);
    cmd.current_dir(root)
        .args(["solve", &format!("examples/{}.game", i.game), "--json"]);
    for p in &i.params {
        cmd.args(["--set", p]);
    }
    if let Some(f) = i.first {
        cmd.args(["--first", f]);
    }
    if i.value {
        cmd.arg("--value");
    }
    cmd.args(&i.extra);
    finish(&mut cmd, limit, i.value)
}

fn run_native(me: &Path, i: &Instance, limit: Duration) -> Outcome {
    let mut cmd = Command::new(me);
    cmd.arg("--native").args(&i.native);
    finish(&mut cmd, limit, i.value)
}

fn finish(cmd: &mut Command, limit: Duration, value: bool) -> Outcome {
    match timed(cmd, limit) {
        Ok(run) => Outcome {
            answer: (!run.stopped)
                .then(|| field(&run.stdout, if value { "value" } else { "winner" })),
            run,
        },
        Err(e) => {
            eprintln!("{e}");
            Outcome {
                answer: Some(format!("error: {e}")),
                run: Run {
                    secs: 0.0,
                    cpu: 0.0,
                    mib: 0.0,
                    stdout: String::new(),
                    stopped: false,
                },
            }
        }
    }
}

/// "1.23", or "> 21.5" for a run stopped at the (wall-clock) limit: the CPU time it had used.
fn secs(o: &Outcome) -> String {
    if o.answer.is_none() {
        format!("> {:.1}", o.run.cpu)
    } else {
        format!("{:.2}", o.run.cpu)
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--native") {
        return match native(&args[1..]) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        };
    }
    let mut only: Option<String> = None;
    let mut limit = 30u64;
    let mut dom_budget = 300u64;
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--only" => only = it.next(),
            "--timeout" => limit = it.next().and_then(|s| s.parse().ok()).unwrap_or(limit),
            "--domineering-budget" => {
                dom_budget = it.next().and_then(|s| s.parse().ok()).unwrap_or(dom_budget)
            }
            other => {
                eprintln!("unknown argument `{other}`; use --only colouring|domineering|othello|connect, --timeout SECONDS, --domineering-budget SECONDS");
                return ExitCode::from(2);
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let me = std::env::current_exe().expect("own path");
    let gamelang = me.with_file_name("gamelang");
    if !gamelang.is_file() {
        eprintln!(
            "build gamelang first: cargo build --release (looked for {})",
            gamelang.display()
        );
        return ExitCode::FAILURE;
    }
    let limit_d = Duration::from_secs(limit);
    let wanted = |g: &str| only.as_deref().is_none_or(|o| o == g);
    let mut ok = true;

    let mut list = Vec::new();
    for (n, value) in [
        (4, false),
        (4, true),
        (5, false),
        (5, true),
        (6, false),
        (6, true),
        (7, false),
    ] {
        list.push(instance("colouring", &[("n", n)], value));
    }
    list.push(instance("othello", &[("n", 4)], false));
    list.push(instance("othello", &[("n", 4)], true));
    list.push(instance("othello", &[("n", 6)], false));
    for (width, height) in [(5, 4), (5, 5), (6, 5), (5, 6), (6, 6)] {
        let mut i = instance(
            "connect",
            &[("width", width), ("height", height), ("c", 4)],
            false,
        );
        if (width, height) == (6, 6) {
            // Tens of millions of positions: a table of 6 M keeps gamelang near 4.5 GB
            // (unbounded it would need 10 GB or more). It takes over an hour of CPU: give
            // it `--only connect --timeout 10800` to see it finish.
            i.extra = vec!["--table-size", "6000000"];
        }
        list.push(i);
    }
    list.retain(|i| wanted(i.game));

    println!(
        "Game solving, gamelang beside native (CPU s = user + system; each run stopped after {limit} s of wall time, shown as \"> CPU used\")"
    );
    println!(
        "{:<12} {:<22} {:<8} | {:>8} {:>9} {:>7} | {:>8} {:>9} {:>7} | {:>7}",
        "game",
        "instance",
        "question",
        "gamelang",
        "CPU s",
        "MiB",
        "native",
        "CPU s",
        "MiB",
        "ratio"
    );
    for i in &list {
        let g = run_gamelang(&gamelang, &root, i, limit_d);
        let n = run_native(&me, i, limit_d);
        let ratio = match (&g.answer, &n.answer) {
            (Some(_), Some(_)) => format!("{:.0}", g.run.cpu / n.run.cpu.max(1e-3)),
            (None, Some(_)) => format!("> {:.0}", g.run.cpu / n.run.cpu.max(1e-3)),
            _ => "-".into(),
        };
        let show = |o: &Outcome| o.answer.clone().unwrap_or_else(|| "-".into());
        println!(
            "{:<12} {:<22} {:<8} | {:>8} {:>9} {:>7.0} | {:>8} {:>9} {:>7.0} | {:>7}",
            i.game,
            i.label,
            if i.value { "value" } else { "outcome" },
            show(&g),
            secs(&g),
            g.run.mib,
            show(&n),
            secs(&n),
            n.run.mib,
            ratio
        );
        if let (Some(a), Some(b)) = (&g.answer, &n.answer) {
            if a != b {
                println!("MISMATCH: {} {}: gamelang {a}, native {b}", i.game, i.label);
                ok = false;
            }
        }
    }

    if wanted("domineering") {
        ok &= domineering_sweep(
            &gamelang,
            &me,
            &root,
            limit_d,
            Duration::from_secs(dom_budget),
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Every Domineering board of at most 30 cells, both players first, smallest boards first:
/// totals for gamelang (which stops starting new runs once `budget` of CPU is spent, the
/// issue's target) and for the native solver, and the boards gamelang did not decide.
fn domineering_sweep(
    gamelang: &Path,
    me: &Path,
    root: &Path,
    limit: Duration,
    budget: Duration,
) -> bool {
    let mut boards: Vec<(u32, u32)> = (1..=30)
        .flat_map(|r| (1..=30 / r).map(move |c| (r, c)))
        .collect();
    boards.sort_by_key(|&(r, c)| (r * c, r));
    let (mut g_cpu, mut n_cpu, mut g_mib, mut n_mib) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut decided, mut over, mut skipped, mut total, mut n_over) = (0, 0, 0, 0, 0);
    let mut undecided = Vec::new();
    let mut ok = true;
    for &(r, c) in &boards {
        for first in ["B", "R"] {
            total += 1;
            let mut i = instance("domineering", &[("rows", r), ("cols", c)], false);
            i.first = Some(first);
            i.native.push(first.to_string());
            let n = run_native(me, &i, limit);
            n_cpu += n.run.cpu;
            n_mib = n_mib.max(n.run.mib);
            n_over += usize::from(n.answer.is_none());
            if g_cpu >= budget.as_secs_f64() {
                skipped += 1;
                undecided.push(format!("{r}x{c}/{first}"));
                continue;
            }
            let g = run_gamelang(gamelang, root, &i, limit);
            g_mib = g_mib.max(g.run.mib);
            match (&g.answer, &n.answer) {
                (Some(a), nb) => {
                    g_cpu += g.run.cpu;
                    decided += 1;
                    if let Some(b) = nb {
                        if a != b {
                            println!("MISMATCH: domineering {r}x{c}, {first} first: gamelang {a}, native {b}");
                            ok = false;
                        }
                    }
                }
                (None, _) => {
                    g_cpu += g.run.cpu;
                    over += 1;
                    undecided.push(format!("{r}x{c}/{first}"));
                }
            }
        }
    }
    println!(
        "\nDomineering, every board of at most 30 cells ({} boards), both players first: {total} runs",
        boards.len()
    );
    println!(
        "  gamelang: {decided} decided, {over} stopped at the {} s limit, {skipped} not run (the {} s budget was spent); CPU {g_cpu:.1} s (a stopped run counted with the CPU it had used), peak {g_mib:.0} MiB",
        limit.as_secs(),
        budget.as_secs()
    );
    println!("  native:   all {total} run, {n_over} stopped at the limit; CPU {n_cpu:.1} s in total, peak {n_mib:.0} MiB");
    if !undecided.is_empty() {
        println!("  not decided by gamelang: {}", undecided.join(" "));
    }
    ok
}
