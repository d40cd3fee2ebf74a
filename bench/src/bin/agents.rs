//! The agents benchmark (issue 13, docs/agents.md, docs/benchmarks.md): Monte Carlo tree
//! search simulations per CPU second from the start position, one random playout per
//! simulation, for gamelang (`gamelang playout GAME --mcts N --json`, the game written in
//! equations) beside OpenSpiel's C++ MCTS (`pyspiel.MCTSBot` with
//! `pyspiel.RandomRolloutEvaluator(1, seed)`, UCT constant 1.4 as gamelang's), on
//! Connect-4 7x6, Breakthrough 8x8, Othello 8x8 (as a grid game, and as equations) and
//! Quoridor 5x5 and 9x9 (uncapped, and capped at OpenSpiel's game length). One decision
//! of N simulations each; the figure is N over the CPU seconds of the decision (both sides
//! time the decision alone, not loading). Without `pyspiel` the OpenSpiel column is
//! skipped with a message. It prints figures; it is not a test. `--runs N` runs the whole
//! comparison N times in turn and reports each side's median rate (the machines are
//! shared and noisy).
//!
//! ```text
//! cargo build --release && cargo run --release -p gamelang-bench --bin agents
//! cargo run --release -p gamelang-bench --bin agents -- --scale 0.5 --only connect4,othello
//! cargo run --release -p gamelang-bench --bin agents -- --only quoridor5,quoridor9 --runs 5
//! ```

use std::process::{Command, ExitCode};

// Only `field` and `median` are used here.
#[allow(dead_code)]
#[path = "../child.rs"]
mod child;
use child::{field, median};

/// One game: its name here, gamelang's file and parameters, OpenSpiel's game string, and
/// the simulations of one decision on each side (sized for about a second of CPU each on
/// the machine of docs/benchmarks.md; OpenSpiel's are larger as it is faster).
struct Game {
    name: &'static str,
    file: &'static str,
    set: &'static [&'static str],
    openspiel: &'static str,
    sims: u32,
    openspiel_sims: u32,
}

const GAMES: &[Game] = &[
    Game {
        name: "connect4",
        file: "examples/grid/connect4.game",
        set: &["width=7", "height=6"],
        openspiel: "connect_four",
        sims: 100000,
        openspiel_sims: 50000,
    },
    Game {
        name: "breakthrough",
        file: "examples/grid/breakthrough.game",
        set: &["width=8", "height=8"],
        openspiel: "breakthrough",
        sims: 25000,
        openspiel_sims: 10000,
    },
    // Othello as a grid game (GRID's line capture, played natively), and as equations
    // (examples/othello.game, by its candidates) for comparison.
    Game {
        name: "othello",
        file: "examples/grid/othello.game",
        set: &["n=8"],
        openspiel: "othello",
        sims: 15000,
        openspiel_sims: 3000,
    },
    Game {
        name: "othello-equations",
        file: "examples/othello.game",
        set: &["n=8"],
        openspiel: "othello",
        sims: 300,
        openspiel_sims: 3000,
    },
    Game {
        name: "quoridor5",
        file: "examples/quoridor.game",
        set: &["n=5"],
        openspiel: "quoridor(board_size=5)",
        sims: 2500,
        openspiel_sims: 20000,
    },
    Game {
        name: "quoridor9",
        file: "examples/quoridor.game",
        set: &["n=9"],
        openspiel: "quoridor",
        sims: 500,
        openspiel_sims: 3000,
    },
    // Quoridor capped as OpenSpiel's is (its max_game_length, a draw at the cap): the
    // same game on both sides; the rows above play gamelang's uncapped Quoridor, whose
    // random games are 25-33% longer.
    Game {
        name: "quoridor5-capped",
        file: "examples/quoridor.game",
        set: &["n=5", "max-plies=100"],
        openspiel: "quoridor(board_size=5)",
        sims: 2500,
        openspiel_sims: 20000,
    },
    Game {
        name: "quoridor9-capped",
        file: "examples/quoridor.game",
        set: &["n=9", "max-plies=324"],
        openspiel: "quoridor",
        sims: 500,
        openspiel_sims: 3000,
    },
];

/// OpenSpiel's side: argv is SEED then GAME SIMS pairs; one JSON line per game.
const OPENSPIEL: &str = r#"
import json, sys, time
try:
    import pyspiel
except Exception as e:
    print(json.dumps({"error": "import pyspiel failed: %s" % e}, separators=(",", ":")))
    sys.exit(0)
seed = int(sys.argv[1])
rest = sys.argv[2:]
for name, sims in zip(rest[0::2], rest[1::2]):
    sims = int(sims)
    game = pyspiel.load_game(name)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(game, evaluator, 1.4, sims, 4000, False, seed, False)
    state = game.new_initial_state()
    cpu, wall = time.process_time(), time.perf_counter()
    bot.step(state)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(json.dumps({"game": name, "simulations": sims, "cpu_seconds": cpu,
                      "seconds": wall, "simulations_per_second": sims / max(cpu, 1e-9),
                      "max_game_length": game.max_game_length()},
                     separators=(",", ":")), flush=True)
"#;

struct Options {
    scale: f64,
    only: Option<Vec<String>>,
    seed: u64,
    /// Rounds of the whole comparison (each side's median rate is reported).
    runs: usize,
}

const USAGE: &str = "usage: agents [--scale X] [--only connect4,breakthrough,othello,othello-equations,quoridor5,quoridor9,quoridor5-capped,quoridor9-capped] [--seed S] [--runs N]";

fn options() -> Result<Options, String> {
    let mut o = Options {
        scale: 1.0,
        only: None,
        seed: 1,
        runs: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--scale" => {
                o.scale = value()?
                    .parse()
                    .map_err(|_| "--scale takes a number".to_string())?
            }
            "--only" => o.only = Some(value()?.split(',').map(str::to_string).collect()),
            "--seed" => {
                o.seed = value()?
                    .parse()
                    .map_err(|_| "--seed takes a whole number".to_string())?
            }
            "--runs" => {
                o.runs = match value()?.parse::<usize>() {
                    Ok(n) if n > 0 => n,
                    _ => return Err("--runs takes a positive whole number".to_string()),
                }
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            _ => return Err(format!("unknown argument `{a}`")),
        }
    }
    Ok(o)
}

fn scaled(n: u32, scale: f64) -> u32 {
    ((n as f64 * scale).round() as u32).max(1)
}

fn main() -> ExitCode {
    let opts = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let root = child::root();
    let bin = match child::release_gamelang() {
        Ok(bin) => bin,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let games: Vec<&Game> = GAMES
        .iter()
        .filter(|g| {
            opts.only
                .as_ref()
                .is_none_or(|o| o.iter().any(|n| n == g.name))
        })
        .collect();
    if games.is_empty() {
        eprintln!("--only names none of the games");
        return ExitCode::from(2);
    }

    // Whole rounds in turn: OpenSpiel's decisions (one Python process), then gamelang's.
    let mut ours: Vec<Vec<f64>> = vec![Vec::new(); games.len()];
    let mut theirs: Vec<Vec<f64>> = vec![Vec::new(); games.len()];
    for round in 1..=opts.runs {
        if opts.runs > 1 {
            eprintln!("run {round} of {} ...", opts.runs);
        }
        for (i, rate) in openspiel_rates(&games, &opts).into_iter().enumerate() {
            theirs[i].extend(rate);
        }
        for (i, g) in games.iter().enumerate() {
            ours[i].extend(gamelang_rate(g, &opts, &root, &bin));
        }
    }

    if opts.runs > 1 {
        println!(
            "Each rate is the median of {} runs taken in turn.\n",
            opts.runs
        );
    }
    println!(
        "| game | gamelang N | gamelang sims/CPU s | OpenSpiel N | OpenSpiel sims/CPU s | gamelang / OpenSpiel |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");
    for ((g, ours), theirs) in games.iter().zip(&ours).zip(&theirs) {
        let (ours, theirs) = (median(ours), median(theirs));
        let show = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{v:.1}"));
        let ratio = match (ours, theirs) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.4}", a / b),
            _ => "-".into(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {ratio} |",
            g.name,
            scaled(g.sims, opts.scale),
            show(ours),
            if theirs.is_some() {
                scaled(g.openspiel_sims, opts.scale).to_string()
            } else {
                "-".into()
            },
            show(theirs),
        );
    }
    ExitCode::SUCCESS
}

/// OpenSpiel's simulations per CPU second on each game (one Python process for all;
/// `None` for a game it did not run, with a message when it could not run at all).
fn openspiel_rates(games: &[&Game], opts: &Options) -> Vec<Option<f64>> {
    let mut os_args = vec![OPENSPIEL.to_string(), opts.seed.to_string()];
    for g in games {
        os_args.push(g.openspiel.to_string());
        os_args.push(scaled(g.openspiel_sims, opts.scale).to_string());
    }
    let mut lines_out: Vec<Option<String>> = vec![None; games.len()];
    match Command::new("python3")
        .arg("-c")
        .args(&os_args)
        .current_dir(child::root())
        .output()
    {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let mut lines = text.lines();
            if text.contains("\"error\"") {
                eprintln!(
                    "OpenSpiel skipped: {} (pip install open_spiel)",
                    field(&text, "error")
                );
            } else {
                for slot in lines_out.iter_mut() {
                    *slot = lines.next().map(str::to_string);
                }
                if !out.status.success() {
                    eprintln!(
                        "OpenSpiel failed part-way: {}",
                        String::from_utf8_lossy(&out.stderr)
                            .lines()
                            .filter(|l| !l.starts_with("Warning!"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                }
            }
        }
        Err(e) => eprintln!("OpenSpiel skipped: cannot run python3: {e}"),
    }
    lines_out
        .iter()
        .map(|l| {
            l.as_ref()
                .and_then(|l| field(l, "simulations_per_second").parse::<f64>().ok())
        })
        .collect()
}

/// gamelang's simulations per CPU second on `g` (`None`, with a message, if it failed).
fn gamelang_rate(
    g: &Game,
    opts: &Options,
    root: &std::path::Path,
    bin: &std::path::Path,
) -> Option<f64> {
    let n = scaled(g.sims, opts.scale);
    let mut cmd = Command::new(bin);
    cmd.current_dir(root).args(["playout", g.file]);
    for s in g.set {
        cmd.args(["--set", s]);
    }
    cmd.args([
        "--mcts",
        &n.to_string(),
        "--seed",
        &opts.seed.to_string(),
        "--json",
    ]);
    match cmd.output() {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            field(&text, "simulations_per_second").parse::<f64>().ok()
        }
        Ok(out) => {
            eprintln!(
                "{}: gamelang failed: {}",
                g.name,
                String::from_utf8_lossy(&out.stderr)
            );
            None
        }
        Err(e) => {
            eprintln!("{}: cannot run gamelang: {e}", g.name);
            None
        }
    }
}
