//! The chance-games benchmark (issue 15, docs/chance.md): Pig and Snakes and Ladders solved
//! by `gamelang solve … --json` (a child process, timed from start to exit, with its peak
//! memory) beside hand-written Rust solvers of the same games: Pig by Gauss-Seidel value
//! iteration over (own score, other's score, turn total), Snakes and Ladders from the
//! distribution of the number of throws one counter needs (the counters are independent).
//! It prints figures and whether the answers agree (within 1e-9); it is not a test.
//!
//! ```text
//! cargo run --release -p gamelang-bench --bin chance                 # Pig 20, 50, 100; Snakes 1-3
//! cargo run --release -p gamelang-bench --bin chance -- --goals 20,30 --seats 1,2 --limit 120
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

fn list(text: &str) -> Vec<usize> {
    text.split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect()
}

fn main() -> ExitCode {
    let mut goals = vec![20, 50, 100];
    let mut seats = vec![1, 2, 3];
    let mut limit = 600.0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--goals" => goals = list(&args.next().unwrap_or_default()),
            "--seats" => seats = list(&args.next().unwrap_or_default()),
            "--limit" => limit = args.next().and_then(|x| x.parse().ok()).unwrap_or(limit),
            _ => {
                eprintln!("usage: chance [--goals 20,50,100] [--seats 1,2,3] [--limit SECS]");
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
    println!("| instance | states (gamelang) | method | gamelang s | MiB | native s | answer (p1) | agree |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    let run = |file: &str, set: String| {
        let mut cmd = Command::new(&bin);
        cmd.current_dir(&root)
            .args(["solve", file, "--set", &set, "--json"]);
        timed(&mut cmd, Duration::from_secs_f64(limit))
    };
    for &g in &goals {
        let began = Instant::now();
        let (want, native_states) = pig(g);
        let native = began.elapsed().as_secs_f64();
        match run("examples/pig.game", format!("goal={g}")) {
            Ok(r) if !r.stopped => {
                let got: f64 = field(&r.stdout, "p1").parse().unwrap_or(f64::NAN);
                println!(
                    "| Pig, goal {g} | {} (native {native_states}) | {} | {:.2} | {:.0} | {native:.2} | {got:.10} | {} |",
                    field(&r.stdout, "states"),
                    field(&r.stdout, "method"),
                    r.secs,
                    r.mib,
                    (got - want).abs() < 1e-9
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
                    "| Snakes and Ladders, {n} player(s) | {} | {} | {:.2} | {:.0} | {native:.2} | {got:.10} | {} |",
                    field(&r.stdout, "states"),
                    field(&r.stdout, "method"),
                    r.secs,
                    r.mib,
                    (got - want[0]).abs() < 1e-9
                );
            }
            Ok(r) => println!(
                "| Snakes and Ladders, {n} player(s) | | | > {:.0} (stopped) | | {native:.2} | | |",
                r.secs
            ),
            Err(e) => println!("| Snakes and Ladders, {n} | error: {e} |"),
        }
    }
    ExitCode::SUCCESS
}
