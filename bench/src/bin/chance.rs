//! The chance-games benchmark (issue 15, docs/chance.md): Pig and Snakes and Ladders solved
//! by `gamelang solve … --json` (a child process, timed from start to exit, with its peak
//! memory) beside hand-written Rust solvers of the same games: Pig by Gauss-Seidel value
//! iteration over (own score, other's score, turn total), Snakes and Ladders from the
//! distribution of the number of throws one counter needs (the counters are independent).
//! It prints figures and whether the answers agree (within 1e-9); it is not a test. The
//! last two columns are gamelang's exploring phase (the state graph built through the
//! rewriting engine): its wall time and the engine's rewrites per state.
//!
//! Beside them, OpenSpiel's value iteration (`open_spiel.python.algorithms.value_iteration`
//! with `cyclic_game=True`, threshold 1e-12, on `pig(winscore=G)`; one `python3` process per
//! goal, its CPU time from `wait4`) for the goals of `--openspiel-goals` (default 20: its
//! Python loop over a dictionary of states takes minutes past goal 40). Without `pyspiel`
//! that table is skipped with a message.
//!
//! ```text
//! cargo run --release -p gamelang-bench --bin chance                 # Pig 20, 50, 100; Snakes 1-3, 2 exactly
//! cargo run --release -p gamelang-bench --bin chance -- --goals 20,30 --seats 1,2 --limit 120
//! cargo run --release -p gamelang-bench --bin chance -- --goals 20 --seats 1 --openspiel-goals 10,20
//! ```

#[path = "../child.rs"]
mod child;
use child::{field, timed};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// P(the player to move wins Pig) from (0, 0, 0), and the number of (i, j, k) states.
fn pig(goal: usize) -> (f64, usize) {
    let mut v = vec![vec![vec![0.0f64; goal]; goal]; goal];
    loop {
        let mut delta = 0.0f64;
        for i in (0..goal).rev() {
            for j in (0..goal).rev() {
                for k in (0..goal - i).rev() {
                    let mut roll = (1.0 - v[j][i][0]) / 6.0;
                    for e in 2..=6 {
                        roll += if i + k + e >= goal {
                            1.0
                        } else {
                            v[i][j][k + e]
                        } / 6.0;
                    }
                    let best = if k > 0 {
                        roll.max(1.0 - v[j][i + k][0])
                    } else {
                        roll
                    };
                    delta = delta.max((best - v[i][j][k]).abs());
                    v[i][j][k] = best;
                }
            }
        }
        if delta < 1e-13 {
            return (v[0][0][0], goal * goal * (goal + 1) / 2);
        }
    }
}

const JUMPS: [(usize, usize); 19] = [
    (1, 38),
    (4, 14),
    (9, 31),
    (21, 42),
    (28, 84),
    (36, 44),
    (51, 67),
    (71, 91),
    (80, 100),
    (16, 6),
    (47, 26),
    (49, 11),
    (56, 53),
    (62, 19),
    (64, 60),
    (87, 24),
    (93, 73),
    (95, 75),
    (98, 78),
];

/// Each seat's probability of winning Snakes and Ladders with `seats` players.
fn snakes(seats: usize) -> Vec<f64> {
    let advance = |n: usize, e: usize| {
        if n + e > 100 {
            n
        } else {
            JUMPS
                .iter()
                .find(|(f, _)| *f == n + e)
                .map_or(n + e, |(_, t)| *t)
        }
    };
    // f[t] = P(a counter needs exactly t throws).
    let mut dist = vec![0.0f64; 101];
    dist[0] = 1.0;
    let mut f = vec![0.0];
    for _ in 0..20_000 {
        let mut next = vec![0.0f64; 101];
        for n in 0..100 {
            for e in 1..=6 {
                next[advance(n, e)] += dist[n] / 6.0;
            }
        }
        f.push(next[100]);
        next[100] = 0.0;
        dist = next;
    }
    // Seat s wins at its t-th throw if the seats before it need more than t throws and
    // the seats after it at least t.
    let mut tail_gt = vec![0.0f64; f.len() + 1]; // P(T > t)
    let mut acc = 0.0;
    for t in (0..f.len()).rev() {
        tail_gt[t] = acc;
        acc += f[t];
    }
    (0..seats)
        .map(|s| {
            (1..f.len())
                .map(|t| {
                    f[t] * tail_gt[t].powi(s as i32)
                        * (tail_gt[t] + f[t]).powi((seats - 1 - s) as i32)
                })
                .sum()
        })
        .collect()
}

/// OpenSpiel's value iteration on its Pig, printing one JSON line: the number of states it
/// found, P(first player wins) (its value is player 0's return, +1 or -1) and the CPU time of
/// the iteration alone (after Python and OpenSpiel are loaded); or `{"error": …}`.
/// `value_iteration` imports `lp_solver` (for simultaneous-move games only), which imports
/// `cvxpy`, not installed here: an empty module stands in for it, never called on Pig.
const OPENSPIEL_PIG: &str = r#"
import json, sys, time, types
try:
    sys.modules.setdefault("open_spiel.python.algorithms.lp_solver", types.ModuleType("lp_solver"))
    import pyspiel
    from open_spiel.python.algorithms import value_iteration
except Exception as e:
    print(json.dumps({"error": str(e)}, separators=(",", ":")))
    sys.exit(0)
goal = int(sys.argv[1])
began = time.process_time()
game = pyspiel.load_game("pig", {"winscore": goal, "players": 2, "horizon": 10**6})
values = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-12, cyclic_game=True)
p1 = (values[str(game.new_initial_state())] + 1) / 2
print(json.dumps({"states": len(values), "p1": p1, "vi_cpu": time.process_time() - began}, separators=(",", ":")))
"#;

/// The exploring phase of a `solve --json` output: its wall time in seconds and the
/// engine's rewrites per state, as two table cells.
fn exploring(json: &str) -> String {
    let num = |key| field(json, key).parse::<f64>().unwrap_or(f64::NAN);
    format!(
        "{:.2} | {:.1}",
        num("exploring_millis") / 1e3,
        num("rewrites") / num("states")
    )
}

fn list(text: &str) -> Vec<usize> {
    text.split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

fn main() -> ExitCode {
    let mut goals = vec![20, 50, 100];
    let mut seats = vec![1, 2, 3];
    let mut openspiel_goals = vec![20];
    let mut exact_seats = vec![2];
    let mut limit = 600.0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--goals" => goals = list(&args.next().unwrap_or_default()),
            "--seats" => seats = list(&args.next().unwrap_or_default()),
            "--openspiel-goals" => openspiel_goals = list(&args.next().unwrap_or_default()),
            "--exact-seats" => exact_seats = list(&args.next().unwrap_or_default()),
            "--limit" => limit = args.next().and_then(|x| x.parse().ok()).unwrap_or(limit),
            _ => {
                eprintln!("usage: chance [--goals 20,50,100] [--seats 1,2,3] [--exact-seats 2] [--openspiel-goals 20] [--limit SECS]");
                return ExitCode::from(2);
            }
        }
    }
    let root = child::root();
    let bin = match child::release_gamelang() {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!("| instance | states (gamelang) | method | gamelang wall s | gamelang CPU s | MiB | native s | answer (p1) | agree | exploring wall s | rewrites / state |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let run_with = |file: &str, set: String, extra: &[&str]| {
        let mut cmd = Command::new(&bin);
        cmd.current_dir(&root)
            .args(["solve", file, "--set", &set, "--json"])
            .args(extra);
        timed(&mut cmd, Duration::from_secs_f64(limit))
    };
    let run = |file: &str, set: String| run_with(file, set, &[]);
    for &g in &goals {
        let began = Instant::now();
        let (want, native_states) = pig(g);
        let native = began.elapsed().as_secs_f64();
        match run("examples/pig.game", format!("goal={g}")) {
            Ok(r) if !r.stopped => {
                let got: f64 = field(&r.stdout, "p1").parse().unwrap_or(f64::NAN);
                println!(
                    "| Pig, goal {g} | {} (native {native_states}) | {} | {:.2} | {:.2} | {:.0} | {native:.2} | {got:.10} | {} | {} |",
                    field(&r.stdout, "states"),
                    field(&r.stdout, "method"),
                    r.secs,
                    r.cpu,
                    r.mib,
                    (got - want).abs() < 1e-9,
                    exploring(&r.stdout)
                );
            }
            Ok(r) => println!(
                "| Pig, goal {g} | | | > {:.0} (stopped) | | {native:.2} | | |",
                r.secs
            ),
            Err(e) => println!("| Pig, goal {g} | error: {e} |"),
        }
    }
    for &n in &seats {
        let began = Instant::now();
        let want = snakes(n);
        let native = began.elapsed().as_secs_f64();
        match run("examples/snakes-ladders.game", format!("players={n}")) {
            Ok(r) if !r.stopped => {
                let got: f64 = field(&r.stdout, "p1").parse().unwrap_or(f64::NAN);
                println!(
                    "| Snakes and Ladders, {n} player(s) | {} | {} | {:.2} | {:.2} | {:.0} | {native:.2} | {got:.10} | {} | {} |",
                    field(&r.stdout, "states"),
                    field(&r.stdout, "method"),
                    r.secs,
                    r.cpu,
                    r.mib,
                    (got - want[0]).abs() < 1e-9,
                    exploring(&r.stdout)
                );
            }
            Ok(r) => println!(
                "| Snakes and Ladders, {n} player(s) | | | > {:.0} (stopped) | | {native:.2} | | |",
                r.secs
            ),
            Err(e) => println!("| Snakes and Ladders, {n} | error: {e} |"),
        }
    }
    // The same seats exactly (`--exact`: p-adic lifting, chance/src/dixon.rs), the answer's
    // size in digits beside the float check.
    for &n in &exact_seats {
        let began = Instant::now();
        let want = snakes(n);
        let native = began.elapsed().as_secs_f64();
        match run_with("examples/snakes-ladders.game", format!("players={n}"), &["--exact"]) {
            Ok(r) if !r.stopped => {
                let got: f64 = field(&r.stdout, "p1").parse().unwrap_or(f64::NAN);
                let digits = r
                    .stdout
                    .split("\"win_probability_exact\":{\"p1\":\"")
                    .nth(1)
                    .and_then(|t| t.split('/').next())
                    .map_or(0, str::len);
                println!(
                    "| Snakes and Ladders, {n} player(s), --exact ({digits}-digit numerator) | {} | {} | {:.2} | {:.2} | {:.0} | {native:.2} | {got:.10} | {} | {} |",
                    field(&r.stdout, "states"),
                    field(&r.stdout, "method"),
                    r.secs,
                    r.cpu,
                    r.mib,
                    (got - want[0]).abs() < 1e-9,
                    exploring(&r.stdout)
                );
            }
            Ok(r) => println!(
                "| Snakes and Ladders, {n} player(s), --exact | | | > {:.0} (stopped) | | {native:.2} | | |",
                r.secs
            ),
            Err(e) => println!("| Snakes and Ladders, {n}, --exact | error: {e} |"),
        }
    }
    openspiel(&bin, &root, &openspiel_goals, limit);
    ExitCode::SUCCESS
}

/// OpenSpiel's value iteration on Pig beside `gamelang solve` on the same goal, both as
/// child processes timed by `wait4` (CPU time, user + system, including loading).
fn openspiel(bin: &std::path::Path, root: &std::path::Path, goals: &[usize], limit: f64) {
    if goals.is_empty() {
        return;
    }
    let mut header = false;
    for &g in goals {
        let mut py = Command::new("python3");
        py.current_dir(root)
            .args(["-c", OPENSPIEL_PIG, &g.to_string()])
            .stdin(std::process::Stdio::null());
        let os = match timed(&mut py, Duration::from_secs_f64(limit)) {
            Ok(r) if r.stopped => {
                println!("\nOpenSpiel, Pig goal {g}: stopped after {:.0} s", r.secs);
                continue;
            }
            Ok(r) if r.stdout.contains("\"error\"") => {
                println!(
                    "\nOpenSpiel skipped: {} (pip install open_spiel)",
                    field(&r.stdout, "error")
                );
                return;
            }
            Ok(r) => r,
            Err(e) => {
                println!("\nOpenSpiel skipped: cannot run python3: {e}");
                return;
            }
        };
        let mut cmd = Command::new(bin);
        cmd.current_dir(root).args([
            "solve",
            "examples/pig.game",
            "--set",
            &format!("goal={g}"),
            "--json",
        ]);
        let gl = timed(&mut cmd, Duration::from_secs_f64(limit));
        if !header {
            header = true;
            println!("\nOpenSpiel's value iteration (Python over its C++ Pig, threshold 1e-12) beside gamelang:\n");
            println!("| Pig, goal | OpenSpiel states | OpenSpiel CPU s (of which iterating) | OpenSpiel MiB | OpenSpiel p1 | gamelang states | gamelang CPU s | gamelang MiB | gamelang p1 | agree |");
            println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        }
        let os_p1: f64 = field(&os.stdout, "p1").parse().unwrap_or(f64::NAN);
        let os_vi: f64 = field(&os.stdout, "vi_cpu").parse().unwrap_or(f64::NAN);
        let (gs, gcpu, gmib, gp1) = match &gl {
            Ok(r) if !r.stopped => (
                field(&r.stdout, "states"),
                format!("{:.2}", r.cpu),
                format!("{:.0}", r.mib),
                field(&r.stdout, "p1").parse().unwrap_or(f64::NAN),
            ),
            Ok(r) => (
                "".into(),
                format!("> {:.0} (stopped)", r.cpu),
                "".into(),
                f64::NAN,
            ),
            Err(e) => (format!("error: {e}"), "".into(), "".into(), f64::NAN),
        };
        println!(
            "| {g} | {} | {:.2} ({os_vi:.2}) | {:.0} | {os_p1:.10} | {gs} | {gcpu} | {gmib} | {gp1:.10} | {} |",
            field(&os.stdout, "states"),
            os.cpu,
            os.mib,
            (os_p1 - gp1).abs() < 1e-9
        );
    }
}
