//! `gamelang agents`, `gamelang match` and `gamelang playout`: the game-agnostic agents of
//! seed 004 (crate `gamelang-agents`) on any `.game` game.

use gamelang_agents::arena::{self, GameRecord, Tally};
use gamelang_agents::chance::solve_error;
use gamelang_agents::{AgentSpec, ChanceRules, EngineRules, Node, Pos, Rng, Rules, CATALOGUE};
use gamelang_chance::engine::EngineModel;
use gamelang_game::{self as driver, SolveError};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::elab::{Game, Session};
use gamelang_runtime::{Engine, Profile};
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
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
    /// One agent per player, e.g. `alphabeta:3,mcts:1000` (`gamelang agents` lists them);
    /// they take turns in the seats from game to game.
    #[arg(long, value_name = "A,B")]
    pub agents: String,
    /// How many games; the agents take turns to start.
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// Games played at once (default: one per core; at most eight per core). Results do not
    /// depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// A game still going after this many plies is stopped and counted as a draw.
    #[arg(long, value_name = "N", default_value_t = arena::DEFAULT_MAX_PLIES)]
    pub max_plies: usize,
    /// Print one JSON object (keys: game, agents, players, games, wins, losses, draws, stopped,
    /// avg_plies, avg_branching, ms_per_move, seed, interrupted).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print one CSV row per game (game, first, second, …: the agent in each seat in the
    /// order of play, winner, plies, avg_branching, stopped).
    #[arg(long)]
    pub csv: bool,
    /// When done, print to standard error what the rewrites of all the games were: each
    /// equation's applications (and the matches its condition refused) and each
    /// built-in's evaluations, most first, with where each equation is written; then the
    /// calls the call cache or a memo table answered, by operator. Profiling makes the
    /// games slower (the times per move are then not the agents').
    /// `--profile=json` prints it as one line of JSON instead (keys `rewrites`,
    /// `equations`, `builtins`, `answered`, as the README says).
    #[arg(long, value_name = "FORMAT", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "table")]
    pub profile: Option<crate::profile::Format>,
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
    #[arg(long, value_name = "N", conflicts_with = "seconds", value_parser = clap::value_parser!(u32).range(1..))]
    pub mcts: Option<u32>,
    /// Print one JSON object (keys: game, playouts, seconds, cpu_seconds,
    /// playouts_per_second, avg_plies; with --mcts: game, simulations, seconds,
    /// cpu_seconds, simulations_per_second).
    #[arg(long)]
    pub json: bool,
    /// When done, print to standard error what the rewrites were: each equation's
    /// applications (and the matches its condition refused) and each built-in's
    /// evaluations, most first, with where each equation is written. The calls the call
    /// cache or a memo table answered (not rewritten) follow, by operator. Profiling
    /// makes playouts slower: the rates printed are then not the game's.
    /// `--profile=json` prints it as one line of JSON instead (keys `rewrites`,
    /// `equations`, `builtins`, `answered`, as the README says).
    #[arg(long, value_name = "FORMAT", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "table")]
    pub profile: Option<crate::profile::Format>,
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
         `gamelang play GAME --agent mcts:1000`, `gamelang simulate CHANCE-GAME --agents mcts:200,random`).\n\
         Every agent plays every game: two players or more, with or without chance (docs/agents.md):"
    );
    for (name, what) in CATALOGUE {
        println!("  {name:<12} {what}");
    }
    println!(
        "\nA game may declare, in its module, what the agents use (docs/agents.md):\n  \
         op eval : Players Config -> Int .           alphabeta's evaluation, counted for B\n  \
         op goal-distance : Players Config -> Int .  astar's (and semi-random's) distance to goal\n  \
         op randomizable : Players Config -> SetConfig .  semi-random's moves\n           (a chance game over its own sorts of players and states: op eval : Seat State -> Int .)"
    );
    ExitCode::SUCCESS
}

fn fail(session: &Session, d: Diag) -> ExitCode {
    // (As text, or under --json as one line of JSON.)
    crate::failure::diag(&session.sources, &d)
}

/// The game a command works on: two players without chance (`instance WINS{…}` and the
/// other game theories), or a chance game (`instance CHANCE{…}`) with any number of
/// players. The agents see either through one interface ([`Rules`]).
pub(crate) enum Which {
    Plain(Game),
    Chance(ChanceGame),
}

impl Which {
    /// The modules the game runs in ([`Session::program_for`]).
    pub(crate) fn modules(&self) -> Vec<gamelang_lang::elab::ModuleId> {
        match self {
            Which::Plain(g) => g.modules(),
            Which::Chance(g) => vec![g.module],
        }
    }

    pub(crate) fn name(&self) -> &str {
        match self {
            Which::Plain(g) => &g.name,
            Which::Chance(g) => &g.name,
        }
    }
}

/// The name of the game `--game` names or, without it, of the file's first game that
/// declares every parameter set with `--set` (so that `quoridor.game --set players=4`
/// picks its four-player game), if that is not the file's first game.
fn game_for_parameters(session: &Session, args: &GameArgs) -> Option<String> {
    if args.game.is_some() {
        return args.game.clone();
    }
    let names: Vec<&str> = args
        .set
        .iter()
        .filter_map(|a| a.split_once('=').map(|(n, _)| n.trim()))
        .collect();
    let has_all = |params: &[(String, gamelang_lang::program::OpId)]| {
        names.iter().all(|n| params.iter().any(|(p, _)| p == n))
    };
    let first_has_all = match session.games.first() {
        Some(g) => has_all(&g.params),
        None => session
            .chance_games
            .first()
            .is_some_and(|g| has_all(&g.params)),
    };
    if first_has_all {
        return None;
    }
    let plain = session.games.iter().find(|g| has_all(&g.params));
    let chance = session.chance_games.iter().find(|g| has_all(&g.params));
    plain
        .map(|g| g.name.clone())
        .or_else(|| chance.map(|g| g.name.clone()))
}

/// The session and the game, with the parameters set.
pub(crate) fn load(args: &GameArgs) -> Result<(Session, Which), ExitCode> {
    let mut session = crate::app::load(&args.file)?;
    let name = game_for_parameters(&session, args);
    let args = &GameArgs {
        file: args.file.clone(),
        game: name,
        set: args.set.clone(),
        seed: args.seed,
    };
    if let Some(game) = crate::chance::chosen(&session, args.game.as_deref()).cloned() {
        for assignment in &args.set {
            if let Err(d) = session.set_chance_parameter(&game, assignment) {
                return Err(fail(&session, d));
            }
        }
        let checked = crate::app::check_requirements(
            &session,
            &[game.module],
            &game.name,
            &game.params,
            &game.requires,
        );
        if let Err(d) = checked {
            return Err(fail(&session, d));
        }
        return Ok((session, Which::Chance(game)));
    }
    let game = match crate::app::pick_game(&session, &args.file, args.game.as_deref()) {
        Ok(g) => g.clone(),
        Err(d) => return Err(fail(&session, d)),
    };
    for assignment in &args.set {
        if let Err(d) = session.set_parameter(&game, assignment) {
            return Err(fail(&session, d));
        }
    }
    let checked = crate::app::check_requirements(
        &session,
        &game.modules(),
        &game.name,
        &game.params,
        &game.requires,
    );
    if let Err(d) = checked {
        return Err(fail(&session, d));
    }
    Ok((session, Which::Plain(game)))
}

/// Run `f` on the game's rules over `engine`, from the game's start.
pub(crate) fn with_rules<T>(
    engine: &mut Engine,
    which: &Which,
    f: impl FnOnce(&mut dyn Rules, Pos) -> Result<T, SolveError>,
) -> Result<T, SolveError> {
    match which {
        Which::Plain(game) => {
            let mut rules = EngineRules::new(&mut *engine, game)?;
            let start = rules.start()?;
            f(&mut rules, start)
        }
        Which::Chance(game) => {
            let mut model = EngineModel::new(engine, game, None).map_err(solve_error)?;
            // Playouts meet the same states again and again.
            model.remember = true;
            let mut rules = ChanceRules::new(&mut model)?;
            let start = rules.start()?;
            f(&mut rules, start)
        }
    }
}

/// What every game of a match shares.
#[derive(Clone, Copy)]
struct MatchSetup<'a> {
    program: &'a Arc<gamelang_lang::program::Program>,
    which: &'a Which,
    specs: &'a [AgentSpec],
    seed: u64,
    max_plies: usize,
    interrupt: &'a Arc<AtomicBool>,
    /// With `--profile`: the games' profiles, added up as each game ends.
    profile: Option<&'a Mutex<Profile>>,
}

/// One game of a match, on an engine of its own (so that games on different threads share
/// nothing and a long match does not keep every game's terms). Game `k`: agent `k mod n`
/// moves first (the others seated after it in the players' order, [`arena::seats`]),
/// agent i's random stream is `Rng::derive(seed, n k + i)` and the chance events'
/// `Rng::derive(seed, u64::MAX - k)`.
fn one_game(m: &MatchSetup, k: usize) -> Result<GameRecord, Failure> {
    let MatchSetup {
        program,
        which,
        specs,
        seed,
        max_plies,
        interrupt,
        profile,
    } = *m;
    let mut engine = Engine::new(program.clone());
    engine.interrupt = interrupt.clone();
    engine.set_profiling(profile.is_some());
    let n = specs.len();
    let mut agents: Vec<_> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| s.build(Rng::derive(seed, (n * k + i) as u64)))
        .collect();
    let mut events = Rng::derive(seed, u64::MAX - k as u64);
    let result = with_rules(&mut engine, which, |rules, start| {
        arena::play_game(
            rules,
            start,
            &mut agents,
            k % n,
            max_plies,
            &mut events,
            &mut |_, _, _, _, _| Ok(()),
        )
    });
    if let (Some(total), Some(p)) = (profile, engine.take_profile()) {
        total.lock().unwrap_or_else(|e| e.into_inner()).add(&p);
    }
    result.map_err(|e| {
        if driver::is_interrupted(&e) {
            Failure::Interrupted
        } else {
            Failure::Error(Box::new(driver::diagnose(&engine, &e)))
        }
    })
}

/// The players of the game (at its start), or the diagnostic of why they are unknown.
fn players_of(
    program: &Arc<gamelang_lang::program::Program>,
    which: &Which,
) -> Result<Vec<String>, Diag> {
    let mut engine = Engine::new(program.clone());
    let result = with_rules(&mut engine, which, |rules, _| Ok(rules.players()));
    result.map_err(|e| driver::diagnose(&engine, &e))
}

/// Can the game give every agent of `specs` what it needs? `astar` needs a distance to
/// goal: checked before the match, not at the first move of `astar` (after other agents
/// may have thought for minutes).
pub(crate) fn check_agents(
    program: &Arc<gamelang_lang::program::Program>,
    which: &Which,
    specs: &[AgentSpec],
) -> Result<(), Diag> {
    if !specs.contains(&AgentSpec::AStar) {
        return Ok(());
    }
    let mut engine = Engine::new(program.clone());
    let declared = with_rules(&mut engine, which, |rules, start| {
        Ok(rules.goal_distance(0, start)?.is_some())
    });
    match declared {
        Ok(true) => Ok(()),
        Ok(false) => Err(Diag::error(format!(
            "{} (`{}` declares none)",
            gamelang_agents::simple::NO_DISTANCE,
            which.name()
        ))),
        Err(e) => Err(driver::diagnose(&engine, &e)),
    }
}

/// Why a game of a match did not finish.
enum Failure {
    /// Ctrl-C.
    Interrupted,
    Error(Box<Diag>),
}

/// `gamelang match`.
pub fn run_match(args: MatchArgs) -> ExitCode {
    let (session, which) = match load(&args.game) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let program = crate::app::program(&session, &which.modules());
    let players = match players_of(&program, &which) {
        Ok(p) => p,
        Err(d) => return fail(&session, d),
    };
    let specs = match AgentSpec::parse_list(&args.agents) {
        Ok(s) if s.len() == players.len() => s,
        Ok(s) => {
            return fail(
                &session,
                Diag::error(format!(
                    "--agents names {} agent{} for the {} players of {} ({}): give one per \
                     player, separated by commas (they take turns in the seats)",
                    s.len(),
                    if s.len() == 1 { "" } else { "s" },
                    players.len(),
                    which.name(),
                    players.join(", ")
                )),
            )
        }
        Err(e) => return crate::failure::Failure::usage(format!("--agents: {e}")).report(),
    };
    if let Err(d) = check_agents(&program, &which, &specs) {
        return fail(&session, d);
    }
    let names = agent_names(&specs);
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    if args.threads == Some(0) {
        return crate::failure::Failure::usage("--threads must be at least 1").report();
    }
    // No more threads than games (each reserves a deep stack) or than the cores can use.
    let threads = crate::app::worker_threads(args.threads, args.games);
    let progress = std::io::stderr().is_terminal();
    let began = Instant::now();
    let seed = args.game.seed;
    let profile = args.profile.map(|_| Mutex::new(Profile::default()));
    let setup = MatchSetup {
        program: &program,
        which: &which,
        specs: &specs,
        seed,
        max_plies: args.max_plies,
        interrupt: &interrupt,
        profile: profile.as_ref(),
    };
    let mut tally = Tally::new(specs.len());
    let n = names.len();
    if args.csv {
        let seats: Vec<&str> = (0..n).map(ordinal).collect();
        println!(
            "game,{},winner,plies,avg_branching,stopped",
            seats.join(",")
        );
    }
    // Each game's result as it is counted (in the order of the games): its CSV row is
    // printed at once, so that the rows of a match killed half-way are there.
    let mut count = |k: usize, rec: &GameRecord| {
        tally.add(rec);
        if args.csv {
            let winner = if rec.winners.is_empty() {
                "draw".to_string()
            } else {
                let w: Vec<&str> = rec.winners.iter().map(|&w| names[w].as_str()).collect();
                w.join(";")
            };
            let order: Vec<&str> = (0..n)
                .map(|j| names[(rec.first + j) % n].as_str())
                .collect();
            println!(
                "{k},{},{winner},{},{:.3},{}",
                order.join(","),
                rec.plies,
                rec.branching(),
                rec.stopped
            );
        }
    };
    let failed = match play_games(&setup, args.games, threads, progress, began, &mut count) {
        Ok(f) => f,
        Err(e) => return fail(&session, Diag::error(format!("cannot start threads: {e}"))),
    };
    if let Some(d) = failed {
        return fail(&session, d);
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    let interrupted = interrupt.load(Ordering::Relaxed);
    if args.csv {
        // (The rows are printed.)
    } else if args.json {
        let wins: serde_json::Map<String, serde_json::Value> = (0..names.len())
            .map(|a| (names[a].clone(), json!(tally.wins[a])))
            .collect();
        let losses: serde_json::Map<String, serde_json::Value> = (0..names.len())
            .map(|a| (names[a].clone(), json!(tally.losses[a])))
            .collect();
        let ms: serde_json::Map<String, serde_json::Value> = (0..names.len())
            .map(|a| (names[a].clone(), json!(round3(tally.ms_per_move(a)))))
            .collect();
        let j = json!({
            "game": which.name(),
            "agents": names,
            "players": players,
            "games": tally.games,
            "wins": wins,
            "losses": losses,
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
            table(which.name(), &names, &tally, seed, args.max_plies)
        );
        if interrupted {
            println!(
                "(interrupted: {} of {} games played)",
                tally.games, args.games
            );
        }
    }
    if let Some(profile) = profile {
        let profile = profile.into_inner().unwrap_or_else(|e| e.into_inner());
        let format = args.profile.unwrap_or_default();
        crate::profile::to_stderr(&profile, &program, &session.sources, format);
    }
    if interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    }
}

/// Play games `0..games` of the match on `threads` threads, each taking the next game
/// not yet begun, and hand each result to `count` in the order of the games (a result
/// waits only for the games begun before it), up to the first game Ctrl-C stopped.
/// Games are begun until they are all played, Ctrl-C is pressed or a game fails; the
/// error of the first failed game (in their order) is returned. Nothing is kept per game: a match of any length runs in
/// the memory of one game per thread.
fn play_games(
    setup: &MatchSetup,
    games: usize,
    threads: usize,
    progress: bool,
    began: Instant,
    count: &mut dyn FnMut(usize, &GameRecord),
) -> std::io::Result<Option<Diag>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<GameRecord, Failure>)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, failed) = (&next, &failed);
            std::thread::Builder::new()
                // A game's rewriting may recurse deeply.
                .stack_size(256 << 20)
                .spawn_scoped(scope, move || loop {
                    if setup.interrupt.load(Ordering::Relaxed) || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= games {
                        break;
                    }
                    let r = one_game(setup, k);
                    if matches!(r, Err(Failure::Error(_))) {
                        failed.store(true, Ordering::Relaxed);
                    }
                    if tx.send((k, r)).is_err() {
                        break;
                    }
                })?;
        }
        drop(tx);
        let mut waiting = std::collections::BTreeMap::new();
        let (mut due, mut done, mut error) = (0, 0, None);
        // The first game not played to its end (Ctrl-C stopped it): no game after it is
        // counted, so that a stopped match counts the games of a shorter one (counting
        // the later ones would favour the games that happened to be short).
        let mut cut = false;
        for (k, r) in rx {
            done += 1;
            if progress {
                eprint!(
                    "\rgame {done}/{games} ({:.0} s)",
                    began.elapsed().as_secs_f64()
                );
            }
            waiting.insert(k, r);
            while let Some(r) = waiting.remove(&due) {
                match r {
                    Ok(rec) if !cut && error.is_none() => count(due, &rec),
                    Err(Failure::Error(d)) if !cut && error.is_none() => error = Some(*d),
                    Err(Failure::Interrupted) => cut = true,
                    _ => {}
                }
                due += 1;
            }
        }
        // (Nothing is left waiting: the games begun are 0..k for some k, and every one
        // sends its result.)
        Ok(error)
    })
}

/// The agents' names as keys: their specs, numbered `(1)`, `(2)`, … in the order of
/// `--agents` when the same agent plays more than one seat.
fn agent_names(specs: &[AgentSpec]) -> Vec<String> {
    let texts: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if texts.iter().filter(|u| *u == t).count() > 1 {
                format!("{t} ({})", i + 1)
            } else {
                t.clone()
            }
        })
        .collect()
}

/// The CSV column of the agent in the j-th seat of play (`first`, `second`, …).
fn ordinal(j: usize) -> &'static str {
    const NAMES: [&str; 8] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
    ];
    NAMES.get(j).copied().unwrap_or("other")
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn table(game: &str, names: &[String], t: &Tally, seed: u64, max_plies: usize) -> String {
    let (last, rest) = names.split_last().expect("two agents or more");
    let mut out = format!(
        "match {game}: {} against {last}, {} games (they take turns to start), seed {seed}\n",
        rest.join(", "),
        t.games
    );
    let w = names.iter().map(|n| n.len()).max().unwrap_or(5).max(5);
    out += &format!(
        "  {:<w$}  {:>5}  {:>6}  {:>16}  {:>6}  {:>9}\n",
        "agent", "wins", "rate", "95% interval", "losses", "ms/move"
    );
    for (a, name) in names.iter().enumerate() {
        let (lo, hi) = t.win_interval(a);
        out += &format!(
            "  {:<w$}  {:>5}  {:>6.3}  {:>16}  {:>6}  {:>9.3}\n",
            name,
            t.wins[a],
            t.wins[a] as f64 / t.games.max(1) as f64,
            format!("[{lo:.3}, {hi:.3}]"),
            t.losses[a],
            t.ms_per_move(a)
        );
    }
    let (lo, hi) = gamelang_chance::simulate::wilson(t.draws as u64, t.games as u64);
    out += &format!(
        "  draws: {} (rate {:.3}, 95% interval [{lo:.3}, {hi:.3}])",
        t.draws,
        t.draws as f64 / t.games.max(1) as f64
    );
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
    let (session, which) = match load(&args.game) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return fail(
            &session,
            Diag::error(format!(
                "--seconds must be a positive, finite number of seconds, not {}",
                args.seconds
            )),
        );
    }
    let mut engine = crate::app::engine(&session, &which.modules());
    engine.set_profiling(args.profile.is_some());
    crate::app::stop_on_ctrl_c(&engine.interrupt);
    let code = match args.mcts {
        Some(n) => mcts_speed(&session, &which, &mut engine, n, args.game.seed, args.json),
        None => playouts_for(&args, &session, &which, &mut engine),
    };
    crate::profile::report_to_stderr(&mut engine, &session, args.profile.unwrap_or_default());
    code
}

/// Random playouts from the start for `--seconds`, and their rate.
fn playouts_for(
    args: &PlayoutArgs,
    session: &Session,
    which: &Which,
    engine: &mut Engine,
) -> ExitCode {
    let mut rng = Rng::new(args.game.seed);
    let limit = Duration::from_secs_f64(args.seconds);
    let cpu = cpu_time();
    let began = Instant::now();
    let (mut playouts, mut plies) = (0u64, 0u64);
    // Ctrl-C ends the measurement early: the rate of the playouts finished is printed
    // (a grid game's playouts run natively, without the engine that would notice it).
    let interrupt = engine.interrupt.clone();
    let stopped = || interrupt.load(std::sync::atomic::Ordering::Relaxed);
    let outcome = with_rules(engine, which, |rules, start| {
        while began.elapsed() < limit && !stopped() {
            let (_, n) = gamelang_agents::mcts::playout(&mut rng, rules, start)?;
            playouts += 1;
            plies += n as u64;
            rules.tidy(&[start.config]);
        }
        Ok(())
    });
    match outcome {
        Err(e) if !driver::is_interrupted(&e) => {
            return fail(session, driver::diagnose(engine, &e));
        }
        _ => {}
    }
    let secs = began.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu).as_secs_f64();
    let rate = playouts as f64 / secs;
    let avg = plies as f64 / playouts.max(1) as f64;
    if args.json {
        let j = json!({
            "game": which.name(),
            "playouts": playouts,
            "seconds": round3(secs),
            "cpu_seconds": round3(cpu),
            "playouts_per_second": round3(rate),
            "avg_plies": round3(avg),
            "interrupted": stopped(),
            // The engine's rewrite steps (none where playouts run natively): divided by
            // the plies, what a random move costs in the game's equations.
            "rewrites": engine.steps(),
        });
        println!("{j}");
    } else {
        println!(
            "game {}: {playouts} random playouts from the start in {secs:.2} s: {rate:.1} playouts per second ({avg:.1} plies on average)",
            which.name()
        );
    }
    if stopped() {
        eprintln!(
            "(interrupted after {secs:.2} s of the {:.2} asked for)",
            args.seconds
        );
        return ExitCode::from(130);
    }
    ExitCode::SUCCESS
}

/// `gamelang playout --mcts N`: one decision of `mcts:N` from the start, timed. This is
/// the figure OpenSpiel's `MCTSBot` with one random rollout per simulation is compared
/// with (gamelang-bench's `agents`).
fn mcts_speed(
    session: &Session,
    which: &Which,
    engine: &mut Engine,
    n: u32,
    seed: u64,
    json: bool,
) -> ExitCode {
    let (cpu, began) = (cpu_time(), Instant::now());
    let outcome = with_rules(engine, which, |rules, start| {
        let Node::Turn(turn) = rules.node(start)? else {
            return Err(SolveError::Game(
                "play has halted at the start: there is nothing to search".into(),
            ));
        };
        let mut agent = AgentSpec::Mcts { simulations: n }.build(Rng::new(seed));
        agent.choose(rules, start, &turn)?;
        Ok(())
    });
    match outcome {
        Err(e) if driver::is_interrupted(&e) => {
            return crate::failure::Failure::interrupted("interrupted").report();
        }
        Err(e) => return fail(session, driver::diagnose(engine, &e)),
        Ok(()) => {}
    }
    let secs = began.elapsed().as_secs_f64();
    let cpu = (cpu_time() - cpu).as_secs_f64();
    let rate = n as f64 / cpu.max(1e-9);
    if json {
        let j = json!({
            "game": which.name(),
            "simulations": n,
            "seconds": round3(secs),
            "cpu_seconds": round3(cpu),
            "simulations_per_second": round3(rate),
            "rewrites": engine.steps(),
        });
        println!("{j}");
    } else {
        println!(
            "game {}: mcts:{n} from the start in {cpu:.2} CPU s ({secs:.2} s): {rate:.1} simulations per CPU second",
            which.name()
        );
    }
    ExitCode::SUCCESS
}
