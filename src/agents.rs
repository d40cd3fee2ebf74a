//! `gamelang agents`, `gamelang match` and `gamelang playout`: the game-agnostic agents of
//! seed 004 (crate `gamelang-agents`) on any `.game` game.

use gamelang_agents::arena::{self, GameRecord, Tally};
use gamelang_agents::{AgentSpec, EngineRules, Rng, Rules, CATALOGUE};
use gamelang_game::{self as driver, SolveError};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, Session};
use gamelang_runtime::Engine;
use rayon::prelude::*;
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `gamelang match` and `gamelang playout` share: the game and its parameters.
#[derive(clap::Args)]
pub struct GameArgs {
    /// The `.game` file declaring the game.
    pub file: PathBuf,
    /// Which game of the file (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Set a game parameter (repeatable), e.g. `--set n=5`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Seed of the random choices: the same seed gives the same games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The two agents, e.g. `alphabeta:3,mcts:1000` (`gamelang agents` lists them).
    #[arg(long, value_name = "A,B")]
    pub agents: String,
    /// How many games; the agents take turns to start.
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Games played at once (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// A game still going after this many plies is stopped and counted as a draw.
    #[arg(long, value_name = "N", default_value_t = arena::DEFAULT_MAX_PLIES)]
    pub max_plies: usize,
    /// Print one JSON object (keys: game, agents, games, wins, draws, stopped, avg_plies,
    /// avg_branching, ms_per_move, seed).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print one CSV row per game (game, first, second, winner, plies, avg_branching,
    /// stopped).
    #[arg(long)]
    pub csv: bool,
}

#[derive(clap::Args)]
pub struct PlayoutArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Play random games from the start for this many seconds.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Instead of playouts for a while: one decision of `mcts:N` from the start (N
    /// simulations, one random playout each), timed; prints simulations per CPU second.
    #[arg(long, value_name = "N", conflicts_with = "seconds")]
    pub mcts: Option<u32>,
    /// Print one JSON object (keys: game, playouts, seconds, cpu_seconds,
    /// playouts_per_second, avg_plies; with --mcts: game, simulations, seconds,
    /// cpu_seconds, simulations_per_second).
    #[arg(long)]
    pub json: bool,
}

/// CPU time used by this process (the commands that time themselves run on one thread),
/// which, unlike wall time, does not count time the machine gave to others.
fn cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill in.
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t);
    }
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// `gamelang agents`: the agents and how to write them.
pub fn list() -> ExitCode {
    println!(
        "Agents (write NAME or NAME:N, e.g. `gamelang match GAME --agents alphabeta:3,mcts:1000`,\n\
         `gamelang play GAME --agent mcts:1000`, `gamelang simulate CHANCE-GAME --agents mcts:200,random`):"
    );
    for (name, what) in CATALOGUE {
        println!("  {name:<12} {what}");
    }
    println!(
        "\nA game may declare, in its module, what the agents use (docs/agents.md):\n  \
         op eval : Players Config -> Int .           alphabeta's evaluation, counted for B\n  \
         op goal-distance : Players Config -> Int .  astar's (and semi-random's) distance to goal\n  \
         op randomizable : Players Config -> SetConfig .  semi-random's moves"
    );
    ExitCode::SUCCESS
}

fn fail(session: &Session, d: Diag) -> ExitCode {
    eprint!(
        "{}",
        d.render(&session.sources, std::io::stderr().is_terminal())
    );
    ExitCode::FAILURE
}

/// The session and the game, with the parameters set.
pub(crate) fn load(args: &GameArgs) -> Result<(Session, Game), ExitCode> {
    let mut session = crate::app::load(&args.file)?;
    let game = match crate::app::pick_game(&session, &args.file, args.game.as_deref()) {
        Ok(g) => g.clone(),
        Err(d) => return Err(fail(&session, d)),
    };
    for assignment in &args.set {
        if let Err(d) = session.set_parameter(&game, assignment) {
            return Err(fail(&session, d));
        }
    }
    Ok((session, game))
}

/// One game of a match, on an engine of its own (so that games on different threads share
/// nothing and a long match does not keep every game's terms).
fn one_game(
    program: &Arc<gamelang_lang::program::Program>,
    game: &Game,
    specs: [AgentSpec; 2],
    seed: u64,
    k: usize,
    max_plies: usize,
    interrupt: &Arc<AtomicBool>,
) -> Result<GameRecord, Failure> {
    let mut engine = Engine::new(program.clone());
    engine.interrupt = interrupt.clone();
    let mut rules = match EngineRules::new(engine, game) {
        Ok(r) => r,
        Err(e) => {
            let d = driver::diagnose(&Engine::new(program.clone()), &e);
            return Err(Failure::Error(Box::new(d)));
        }
    };
    let result = (|| {
        let start = rules.start()?;
        let mut agents = [
            specs[0].build(Rng::derive(seed, 2 * k as u64)),
            specs[1].build(Rng::derive(seed, 2 * k as u64 + 1)),
        ];
        arena::play_game(
            &mut rules,
            start,
            &mut agents,
            k % 2,
            max_plies,
            &mut |_, _, _, _| Ok(()),
        )
    })();
    result.map_err(|e| {
        if driver::is_interrupted(&e) {
            Failure::Interrupted
        } else {
            Failure::Error(Box::new(driver::diagnose(&rules.engine, &e)))
        }
    })
}

/// Why a game of a match did not finish.
enum Failure {
    /// Ctrl-C.
    Interrupted,
    Error(Box<Diag>),
}

/// `gamelang match`.
pub fn run_match(args: MatchArgs) -> ExitCode {
    let (session, game) = match load(&args.game) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let specs = match AgentSpec::parse_list(&args.agents) {
        Ok(s) if s.len() == 2 => [s[0], s[1]],
        Ok(s) => {
            return fail(
                &session,
                Diag::error(format!(
                    "--agents needs two agents separated by a comma, not {}",
                    s.len()
                )),
            )
        }
        Err(e) => return fail(&session, Diag::error(format!("--agents: {e}"))),
    };
    let names = agent_names(&specs);
    let program = Arc::new(session.program.clone());
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .stack_size(256 << 20)
        .build()
    {
        Ok(p) => p,
        Err(e) => return fail(&session, Diag::error(format!("cannot start threads: {e}"))),
    };
    let done = AtomicUsize::new(0);
    let progress = std::io::stderr().is_terminal();
    let began = Instant::now();
    let seed = args.game.seed;
    let results: Vec<Option<Result<GameRecord, Failure>>> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|k| {
                if interrupt.load(Ordering::Relaxed) {
                    return None;
                }
                let r = one_game(&program, &game, specs, seed, k, args.max_plies, &interrupt);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    eprint!(
                        "\rgame {n}/{} ({:.0} s)",
                        args.games,
                        began.elapsed().as_secs_f64()
                    );
                }
                Some(r)
            })
            .collect()
    });
    if progress {
        eprint!("\r\x1b[K");
    }
    let mut tally = Tally::default();
    let mut records = Vec::new();
    for r in results.into_iter().flatten() {
        match r {
            Ok(rec) => {
                tally.add(&rec);
                records.push(rec);
            }
            Err(Failure::Interrupted) => {}
            Err(Failure::Error(d)) => return fail(&session, *d),
        }
    }
    let interrupted = interrupt.load(Ordering::Relaxed);
    if args.csv {
        println!("game,first,second,winner,plies,avg_branching,stopped");
        for (k, r) in records.iter().enumerate() {
            let winner = r.winner.map_or("draw", |w| names[w].as_str());
            println!(
                "{k},{},{},{winner},{},{:.3},{}",
                names[r.first],
                names[1 - r.first],
                r.plies,
                r.branching(),
                r.stopped
            );
        }
    } else if args.json {
        let wins: serde_json::Map<String, serde_json::Value> = (0..2)
            .map(|a| (names[a].clone(), json!(tally.wins[a])))
            .collect();
        let ms: serde_json::Map<String, serde_json::Value> = (0..2)
            .map(|a| (names[a].clone(), json!(round3(tally.ms_per_move(a)))))
            .collect();
        let j = json!({
            "game": game.name,
            "agents": names,
            "games": tally.games,
            "wins": wins,
            "draws": tally.draws,
            "stopped": tally.stopped,
            "avg_plies": round3(tally.avg_plies()),
            "avg_branching": round3(tally.avg_branching()),
            "ms_per_move": ms,
            "seed": seed,
            "interrupted": interrupted,
        });
        println!("{j}");
    } else {
        print!(
            "{}",
            table(&game.name, &names, &tally, seed, args.max_plies)
        );
        if interrupted {
            println!(
                "(interrupted: {} of {} games played)",
                tally.games, args.games
            );
        }
    }
    if interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    }
}

/// The agents' names as keys: their specs, told apart when the same agent plays itself.
fn agent_names(specs: &[AgentSpec; 2]) -> [String; 2] {
    let (a, b) = (specs[0].to_string(), specs[1].to_string());
    if a == b {
        [format!("{a} (1)"), format!("{b} (2)")]
    } else {
        [a, b]
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn table(game: &str, names: &[String; 2], t: &Tally, seed: u64, max_plies: usize) -> String {
    let mut out = format!(
        "match {game}: {} against {}, {} games (they take turns to start), seed {seed}\n",
        names[0], names[1], t.games
    );
    let w = names.iter().map(|n| n.len()).max().unwrap_or(5).max(5);
    out += &format!(
        "  {:<w$}  {:>5}  {:>6}  {:>16}  {:>9}\n",
        "agent", "wins", "rate", "95% interval", "ms/move"
    );
    for (a, name) in names.iter().enumerate() {
        let (lo, hi) = t.win_interval(a);
        out += &format!(
            "  {:<w$}  {:>5}  {:>6.3}  {:>16}  {:>9.3}\n",
            name,
            t.wins[a],
            t.wins[a] as f64 / t.games.max(1) as f64,
            format!("[{lo:.3}, {hi:.3}]"),
            t.ms_per_move(a)
        );
    }
    out += &format!("  draws: {}", t.draws);
    if t.stopped > 0 {
        out += &format!(" (of which {} stopped at {max_plies} plies)", t.stopped);
    }
    out += &format!(
        "\n  average game length: {:.1} plies   average branching factor: {:.2}\n",
        t.avg_plies(),
        t.avg_branching()
    );
    out
}

/// `gamelang playout`: random games from the start, as many as fit in the time.
pub fn run_playout(args: PlayoutArgs) -> ExitCode {
    let (session, game) = match load(&args.game) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return fail(
            &session,
            Diag::error(format!("--seconds must be positive, not {}", args.seconds)),
        );
    }
    let engine = Engine::new(Arc::new(session.program.clone()));
    let mut rules = match EngineRules::new(engine, &game) {
        Ok(r) => r,
        Err(e) => {
            return fail(
                &session,
                driver::diagnose(&Engine::new(Arc::new(session.program.clone())), &e),
            )
        }
    };
    if let Some(n) = args.mcts {
        return mcts_speed(&session, &game, &mut rules, n, args.game.seed, args.json);
    }
    let mut rng = Rng::new(args.game.seed);
    let limit = Duration::from_secs_f64(args.seconds);
    let cpu = cpu_time();
    let began = Instant::now();
    let (mut playouts, mut plies) = (0u64, 0u64);
    let outcome = (|| -> Result<(), SolveError> {
        let start = rules.start()?;
        while began.elapsed() < limit {
            let (_, n) =
                gamelang_agents::mcts::playout(&mut rng, &mut rules as &mut dyn Rules, start)?;
            playouts += 1;
            plies += n as u64;
            rules.tidy(&[start.config]);
        }
        Ok(())
    })();
    if let Err(e) = outcome {
        return fail(&session, driver::diagnose(&rules.engine, &e));
    }
    let secs = began.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu).as_secs_f64();
    let rate = playouts as f64 / secs;
    let avg = plies as f64 / playouts.max(1) as f64;
    if args.json {
        let j = json!({
            "game": game.name,
            "playouts": playouts,
            "seconds": round3(secs),
            "cpu_seconds": round3(cpu),
            "playouts_per_second": round3(rate),
            "avg_plies": round3(avg),
        });
        println!("{j}");
    } else {
        println!(
            "game {}: {playouts} random playouts from the start in {secs:.2} s: {rate:.1} playouts per second ({avg:.1} plies on average)",
            game.name
        );
    }
    ExitCode::SUCCESS
}

/// `gamelang playout --mcts N`: one decision of `mcts:N` from the start, timed. This is
/// the figure OpenSpiel's `MCTSBot` with one random rollout per simulation is compared
/// with (gamelang-bench's `agents`).
fn mcts_speed(
    session: &Session,
    game: &Game,
    rules: &mut EngineRules,
    n: u32,
    seed: u64,
    json: bool,
) -> ExitCode {
    let (cpu, began) = (cpu_time(), Instant::now());
    let outcome = (|| -> Result<(), SolveError> {
        let start = rules.start()?;
        let moves = rules.moves(start)?;
        if moves.is_empty() {
            return Err(SolveError::Game(
                "play has halted at the start: there is nothing to search".into(),
            ));
        }
        let mut agent = AgentSpec::Mcts { simulations: n }.build(Rng::new(seed));
        agent.choose(rules, start, &moves)?;
        Ok(())
    })();
    if let Err(e) = outcome {
        return fail(session, driver::diagnose(&rules.engine, &e));
    }
    let secs = began.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu).as_secs_f64();
    let rate = n as f64 / cpu.max(1e-9);
    if json {
        let j = json!({
            "game": game.name,
            "simulations": n,
            "seconds": round3(secs),
            "cpu_seconds": round3(cpu),
            "simulations_per_second": round3(rate),
        });
        println!("{j}");
    } else {
        println!(
            "game {}: mcts:{n} from the start in {cpu:.2} CPU s ({secs:.2} s): {rate:.1} simulations per CPU second",
            game.name
        );
    }
    ExitCode::SUCCESS
}
