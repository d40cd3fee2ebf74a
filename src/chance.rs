//! `gamelang solve` and `gamelang simulate` on chance games (`instance CHANCE{…}`, seed 002):
//! each player's probability of winning under optimal play (or expected score), exactly
//! where possible; deterministic two-player games with cycles by retrograde analysis.

use crate::app::load;
use crate::failure::{Code, Failure};
use crate::solve::SolveArgs;
use gamelang_chance::engine::EngineModel;
use gamelang_chance::graph::{explore, Graph, Kind};
use gamelang_chance::model::{ChanceError, ChanceModel};
use gamelang_chance::solve::{self as solver, Exactness, Goal, Method};
use gamelang_chance::{retro, simulate, Q};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::elab::Session;
use gamelang_lang::span::Span;
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;
use serde_json::{json, Map, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The chance game `solve` or `simulate` should work on, if the file's chosen game is one.
pub fn chosen<'a>(session: &'a Session, name: Option<&str>) -> Option<&'a ChanceGame> {
    match name {
        Some(n) => session.chance_games.iter().find(|g| g.name == n),
        None if session.games.is_empty() => session.chance_games.first(),
        None => None,
    }
}

fn render(session: &Session, d: &Diag) -> ExitCode {
    crate::failure::diag(&session.sources, d)
}

pub fn error_diag(e: ChanceError) -> Diag {
    e.into_diag()
}

/// Set parameters, parse `--from`, and make an engine: what solve and simulate share.
fn prepare(
    session: &mut Session,
    game: &ChanceGame,
    set: &[String],
    from: Option<&str>,
    max_steps: u64,
) -> Result<(Engine, Option<gamelang_lang::program::Pat>), Failed> {
    let plain = |d: Diag| Failed(d, false);
    for assignment in set {
        session
            .set_chance_parameter(game, assignment)
            .map_err(plain)?;
    }
    crate::app::check_requirements(
        session,
        &[game.module],
        &game.name,
        &game.params,
        &game.requires,
    )
    .map_err(plain)?;
    let start = match from {
        Some(text) => {
            let start = session
                .parse_term(game.module, "--from", text, Some(game.state_sort))
                .map_err(plain)?;
            let file = session.sources.last().expect("--from was just added");
            Some((start, Span::new(file, 0, text.len())))
        }
        None => None,
    };
    let mut engine = crate::app::engine(session, &[game.module]);
    engine.limits.max_steps = max_steps;
    crate::app::stop_on_ctrl_c(&engine.interrupt);
    if let Some((start, at)) = &start {
        crate::app::check_from(&mut engine, start, *at).map_err(|(d, i)| Failed(d, i))?;
    }
    Ok((engine, start.map(|(s, _)| s)))
}

/// Why [`prepare`] failed, and whether it was interrupted (Ctrl-C: exit status 130).
struct Failed(Diag, bool);

impl Failed {
    fn report(self, session: &Session) -> ExitCode {
        let code = render(session, &self.0);
        if self.1 {
            ExitCode::from(130)
        } else {
            code
        }
    }
}

fn ratio(q: &Q) -> String {
    format!("{}/{}", q.numer(), q.denom())
}

fn short(q: &Q) -> String {
    if q.is_integer() {
        q.numer().to_string()
    } else {
        let s = ratio(q);
        if s.len() > 60 {
            format!(
                "{} digits / {} digits",
                q.numer().to_string().len(),
                q.denom().to_string().len()
            )
        } else {
            s
        }
    }
}

pub fn solve(args: SolveArgs, mut session: Session, game: ChanceGame) -> ExitCode {
    if args.max_depth.is_some() || args.first.is_some() || args.solver.qbf {
        return Failure::usage("--max-depth, --first and --qbf are for two-player games without chance (in a chance game, whose turn it is is part of the state)").report();
    }
    if !(args.tolerance >= 0.0 && args.tolerance.is_finite()) {
        return Failure::usage(format!(
            "--tolerance must be a finite number of at least 0, not {}",
            args.tolerance
        ))
        .help("value iteration stops when no value changes by more than it in a sweep (default 1e-12; 0: until nothing changes)")
        .report();
    }
    let (mut engine, start) = match prepare(
        &mut session,
        &game,
        &args.set,
        args.from.as_deref(),
        args.max_steps,
    ) {
        Ok(x) => x,
        Err(f) => return f.report(&session),
    };
    engine.set_profiling(args.profile.is_some());
    let code = solve_on(&args, &session, &game, &mut engine, start);
    crate::profile::report_to_stderr(&mut engine, &session, args.profile.unwrap_or_default());
    code
}

/// The flags of `gamelang solve` that apply to a chance game (the REPL's `solve` and
/// `value` take [`ChanceOptions::new`]'s defaults, the command's).
pub struct ChanceOptions {
    /// Expected scores instead of probabilities of winning (`--value`).
    pub value: bool,
    pub exact: bool,
    pub float: bool,
    pub tolerance: f64,
    pub max_states: usize,
    /// Max-n even where retrograde analysis applies (`--max-n`).
    pub max_n: bool,
}

impl ChanceOptions {
    /// The command's defaults; `value` asks for expected scores.
    pub fn new(value: bool) -> ChanceOptions {
        ChanceOptions {
            value,
            exact: false,
            float: false,
            tolerance: 1e-12,
            max_states: 50_000_000,
            max_n: false,
        }
    }

    fn of(args: &SolveArgs) -> ChanceOptions {
        ChanceOptions {
            value: args.value,
            exact: args.exact,
            float: args.float,
            tolerance: args.tolerance,
            max_states: args.max_states,
            max_n: args.max_n,
        }
    }
}

/// A chance game solved: the report as text and as the JSON object of `solve --json`,
/// and whether value iteration (if it ran) converged to the tolerance.
pub struct ChanceSolved {
    pub text: String,
    pub json: Map<String, Value>,
    pub converged: bool,
}

/// Why a chance game was not solved.
pub enum ChanceUnsolved {
    /// Ctrl-C, with where it stopped.
    Interrupted(String),
    Failed(Diag),
}

/// `gamelang solve` of the chance game `game` from `start` (its start state if `None`):
/// the report printed, the exit status returned.
fn solve_on(
    args: &SolveArgs,
    session: &Session,
    game: &ChanceGame,
    engine: &mut Engine,
    start: Option<gamelang_lang::program::Pat>,
) -> ExitCode {
    let solved = match solve_chance(engine, game, start, &ChanceOptions::of(args)) {
        Ok(s) => s,
        Err(ChanceUnsolved::Interrupted(how)) => return Failure::interrupted(how).report(),
        Err(ChanceUnsolved::Failed(d)) => {
            // An error of the solve itself (the step budget) points at the game, as the
            // two-player solve's do.
            let d = if d.span().is_none() {
                d.primary(game.span, "while solving this game")
            } else {
                d
            };
            return render(session, &d);
        }
    };
    if args.json {
        println!("{}", Value::Object(solved.json));
    } else {
        print!("{}", solved.text);
    }
    if !solved.converged {
        // The values are printed (with their estimated error), but a script that reads
        // only the status must not take them for answers within the tolerance.
        return Failure::new(
            Code::Program,
            format!(
                "value iteration did not converge to the tolerance {:e}: the values above are not within it",
                args.tolerance
            ),
        )
        .help("raise --tolerance; or try --exact, which solves exactly where the game is small enough and its players' best choices settle (with three or more players they may keep changing, and then there is no exact answer to give)")
        .report();
    }
    ExitCode::SUCCESS
}

/// Solve the chance game `game` from `start` (its start state if `None`) on `engine`:
/// explore its states, then solve them (retrograde analysis for a deterministic
/// two-player game, else max-n, exactly where possible). The engine's step budget counts
/// for the whole solve (as `--max-steps` and the REPL's `max-steps` say: the rewrites
/// one command may take), not for each of its many small reductions.
pub fn solve_chance(
    engine: &mut Engine,
    game: &ChanceGame,
    start: Option<gamelang_lang::program::Pat>,
    o: &ChanceOptions,
) -> Result<ChanceSolved, ChanceUnsolved> {
    engine.with_step_budget(|engine| solve_chance_within_budget(engine, game, start, o))
}

fn solve_chance_within_budget(
    engine: &mut Engine,
    game: &ChanceGame,
    start: Option<gamelang_lang::program::Pat>,
    o: &ChanceOptions,
) -> Result<ChanceSolved, ChanceUnsolved> {
    let failed = |e: ChanceError| ChanceUnsolved::Failed(error_diag(e));
    let began = Instant::now();
    // (The REPL's engine has counted the session's earlier commands.)
    let steps_before = engine.steps();
    let mut model = EngineModel::new(engine, game, start).map_err(failed)?;
    let graph = match explore(&mut model, o.value, o.max_states) {
        Ok(g) => g,
        Err(ChanceError::Interrupted) => {
            return Err(ChanceUnsolved::Interrupted(format!(
                "interrupted while exploring the states, after {:.1} s and {} rewrites",
                began.elapsed().as_secs_f64(),
                model.engine.steps() - steps_before
            )));
        }
        Err(e) => return Err(failed(e)),
    };
    let explored = began.elapsed();
    let start_t = graph.states[0];
    let mut out = Map::new();
    out.insert("game".into(), json!(game.name));
    out.insert("start".into(), json!(model.show_state(start_t)));
    out.insert("players".into(), json!(graph.players));
    let to_move = match graph.kind[0] {
        Kind::Turn { player, .. } => Some(graph.players[player as usize].clone()),
        Kind::Final { .. } => None,
    };
    out.insert("to_move".into(), json!(to_move));
    let mut text = format!(
        "game {}: {}\nplayers: {}\n",
        game.name,
        model.show_state(start_t),
        graph.players.join(" ")
    );
    if !o.value && retro::applies(&graph) && !o.max_n {
        if o.float || o.exact {
            crate::failure::warning(&format!(
                "{} does not apply: this game has no chance outcomes and two players, so it is solved by retrograde analysis, exactly",
                if o.float { "--float" } else { "--exact" }
            ));
        }
        retro_report(&graph, &model, &mut out, &mut text);
    } else {
        let opts = solver::Options {
            goal: if o.value { Goal::Score } else { Goal::Win },
            exactness: if o.float {
                Exactness::Float
            } else if o.exact {
                Exactness::Exact
            } else {
                Exactness::Auto
            },
            tolerance: o.tolerance,
            // Ctrl-C (the engine's flag: the command's handler, or the REPL's).
            interrupt: Some(model.engine.interrupt.clone()),
            ..solver::Options::default()
        };
        let sol = match solver::solve(&graph, &opts) {
            Ok(s) => s,
            Err(ChanceError::Interrupted) => {
                return Err(ChanceUnsolved::Interrupted(format!(
                    "interrupted while solving: {} states explored in {:.1} s, then {:.1} s of solving",
                    graph.len(),
                    explored.as_secs_f64(),
                    (began.elapsed() - explored).as_secs_f64()
                )));
            }
            Err(e) => return Err(failed(e)),
        };
        report(&graph, &model, &sol, o.value, &mut out, &mut text);
    }
    let steps = model.engine.steps() - steps_before;
    let millis = (began.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    out.insert("states".into(), json!(graph.len()));
    out.insert("rewrites".into(), json!(steps));
    out.insert("millis".into(), json!(millis));
    out.insert(
        "exploring_millis".into(),
        json!((explored.as_secs_f64() * 1e6).round() / 1e3),
    );
    text.push_str(&format!(
        "states: {}   rewrites: {steps}   time: {millis:.3} ms (exploring {:.3} ms)\n",
        graph.len(),
        explored.as_secs_f64() * 1e3
    ));
    let converged = out
        .get("converged")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    Ok(ChanceSolved {
        text,
        json: out,
        converged,
    })
}

fn report(
    g: &Graph<TermId, TermId>,
    model: &EngineModel,
    sol: &solver::Solution,
    value: bool,
    out: &mut Map<String, Value>,
    text: &mut String,
) {
    let (key, title) = if value {
        (
            "value",
            "expected score under optimal play (each player maximises its own expected score)",
        )
    } else {
        ("win_probability", "probability of winning under optimal play (max-n: each player maximises its own probability of winning)")
    };
    text.push_str(title);
    text.push_str(":\n");
    let width = g.players.iter().map(|p| p.len()).max().unwrap_or(1);
    let mut approx = Map::new();
    let mut exact = Map::new();
    for (i, p) in g.players.iter().enumerate() {
        approx.insert(p.clone(), json!(sol.value[i]));
        match &sol.exact {
            Some(e) => {
                exact.insert(p.clone(), json!(ratio(&e[i])));
                text.push_str(&format!(
                    "  {p:<width$}  {}  ≈ {:.12}\n",
                    short(&e[i]),
                    sol.value[i]
                ));
            }
            None => text.push_str(&format!("  {p:<width$}  ≈ {:.12}\n", sol.value[i])),
        }
    }
    out.insert(key.into(), Value::Object(approx));
    if sol.exact.is_some() {
        out.insert(format!("{key}_exact"), Value::Object(exact));
    }
    if let (Some(o), Kind::Turn { player, .. }) = (sol.best_option, g.kind[0]) {
        if g.options(0).len() > 1 {
            let c = model.show_choice(&g.opts[o].choice);
            text.push_str(&format!(
                "best choice for {}: {c}\n",
                g.players[player as usize]
            ));
            out.insert("best_choice".into(), json!(c));
        }
    }
    match &sol.method {
        Method::Exact { cyclic, rounds } => {
            let how = if *cyclic == 0 {
                "exact rationals: backward induction (no cycles)".to_string()
            } else {
                format!(
                    "exact rationals: backward induction, and {cyclic} cyclic component(s) (largest {} states) solved as linear systems ({rounds} policy evaluation(s))",
                    sol.largest_component
                )
            };
            text.push_str(&format!("method: {how}\n"));
            out.insert("method".into(), json!("exact"));
        }
        Method::ValueIteration {
            tolerance,
            residual,
            error_estimate,
            sweeps,
            converged,
        } => {
            text.push_str(&format!(
                "method: value iteration in floating point (not exact): {} cyclic component(s), largest {} states; tolerance {tolerance:e}: largest change in the last sweep {residual:.3e} after {sweeps} sweeps, estimated error {error_estimate:.1e}{}\n",
                sol.cyclic_components,
                sol.largest_component,
                if *converged { "" } else { " — NOT CONVERGED" }
            ));
            if let Some(why) = &sol.fallback {
                text.push_str(&format!("  (not exact because: {why})\n"));
            }
            out.insert("method".into(), json!("value-iteration"));
            out.insert("tolerance".into(), json!(tolerance));
            out.insert("residual".into(), json!(residual));
            out.insert("error_estimate".into(), json!(error_estimate));
            out.insert("sweeps".into(), json!(sweeps));
            out.insert("converged".into(), json!(converged));
        }
    }
}

fn plies(n: usize) -> String {
    format!("{n} pl{}", if n == 1 { "y" } else { "ies" })
}

fn retro_report<M: ChanceModel>(
    g: &Graph<M::State, M::Choice>,
    model: &M,
    out: &mut Map<String, Value>,
    text: &mut String,
) {
    let r = retro::analyse(g);
    let (winner, depth) = match r.labels[0] {
        retro::Label::Win(w, d) => (Some(w), Some(d)),
        retro::Label::Draw => (None, None),
    };
    match winner {
        Some(w) => text.push_str(&format!(
            "winner: {} (in {} under best play)\n",
            g.players[w],
            plies(depth.unwrap_or(0) as usize)
        )),
        None => {
            text.push_str("winner: none, a draw under best play (neither player can force a win)\n")
        }
    }
    let mut probs = Map::new();
    let mut exact = Map::new();
    for (i, p) in g.players.iter().enumerate() {
        let v = if winner == Some(i) { 1 } else { 0 };
        probs.insert(p.clone(), json!(v as f64));
        exact.insert(p.clone(), json!(format!("{v}/1")));
    }
    out.insert(
        "winner".into(),
        json!(winner.map_or("draw".to_string(), |w| g.players[w].clone())),
    );
    out.insert("depth".into(), json!(depth));
    out.insert("win_probability".into(), Value::Object(probs));
    out.insert("win_probability_exact".into(), Value::Object(exact));
    // The principal line: each player's best choice, until play ends or (in a draw) repeats.
    let mut line = vec![model.show_state(g.states[0])];
    let mut choices = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut s = 0usize;
    let mut repeats = false;
    while let Some(o) = r.best[s] {
        if !seen.insert(s) || line.len() > 200 {
            repeats = true;
            break;
        }
        choices.push(model.show_choice(&g.opts[o].choice));
        s = g.outcomes(o)[0].0 as usize;
        line.push(model.show_state(g.states[s]));
    }
    if let Some(c) = choices.first() {
        text.push_str(&format!("best choice: {c}\n"));
        out.insert("best_choice".into(), json!(c));
    }
    text.push_str(&format!(
        "principal line ({} plies): {}",
        choices.len(),
        line[0]
    ));
    for (c, st) in choices.iter().zip(&line[1..]) {
        text.push_str(&format!(" -{c}-> {st}"));
    }
    if repeats {
        text.push_str(" (repeats)");
    }
    text.push('\n');
    out.insert("principal_line".into(), json!(line));
    text.push_str("method: retrograde analysis (deterministic, two players; cycles allowed, unforced positions are draws)\n");
    out.insert("method".into(), json!("retrograde"));
}

#[derive(clap::Args)]
pub struct SimulateArgs {
    /// The `.game` file declaring a chance game.
    pub file: PathBuf,
    /// Play random games: every player picks uniformly among its choices, events happen
    /// with their probabilities.
    #[arg(long, required_unless_present_any = ["events", "choices", "agents"], conflicts_with_all = ["events", "choices", "agents"])]
    pub random: bool,
    /// Play games between agents, one per player in the game's order of players, e.g.
    /// `--agents mcts:200,random` (any agent of `gamelang agents`; `mcts:N` samples the
    /// events by their probabilities).
    #[arg(long, value_name = "A1,A2,…", conflicts_with_all = ["events", "choices"])]
    pub agents: Option<String>,
    /// Seed 002's `move-repeatedly`: play these events in order (terms separated by commas,
    /// e.g. `heads, tails, heads`); may be left out when every move has one event.
    #[arg(long, value_name = "E1, E2, …")]
    pub events: Option<String>,
    /// …with these choices in order; may be left out when every state has one choice.
    #[arg(long, value_name = "C1, C2, …")]
    pub choices: Option<String>,
    /// Seed of the random generator (the same seed gives the same games).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How many games to play.
    #[arg(long, default_value_t = 10_000)]
    pub games: u64,
    /// A game longer than this many moves is stopped and counted as unfinished. Without
    /// it, games stop at 1,000,000 moves, and if the first game does, the simulation stops
    /// there with an error (the game may never end).
    #[arg(long, value_name = "N")]
    pub max_moves: Option<u64>,
    /// Which game of the file, by name.
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Start from this state instead of the game's `start`.
    #[arg(long, value_name = "TERM")]
    pub from: Option<String>,
    /// Set a game parameter (repeatable), e.g. `--set players=3`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Print one JSON object (game, games, seed, wins, win_rate, ci95, unfinished,
    /// mean_moves, millis; with --events/--choices: game, start, moves, final, winners,
    /// ran_out).
    #[arg(long)]
    pub json: bool,
    /// Give up with an error after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
}

/// Where a simulated game stops without --max-moves.
const DEFAULT_MAX_MOVES: u64 = 1_000_000;

pub fn simulate(args: SimulateArgs) -> ExitCode {
    let mut session = match load(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // Without --game: the file's first chance game that has every parameter --set names
    // (`quoridor.game --set players=4` is its four-player game), as `match` and `play`
    // choose, even when a two-player game comes first.
    let named: Vec<&str> = args
        .set
        .iter()
        .filter_map(|a| a.split_once('=').map(|(n, _)| n.trim()))
        .collect();
    let default = session
        .chance_games
        .iter()
        .find(|g| named.iter().all(|n| g.params.iter().any(|(p, _)| p == n)))
        .or(session.chance_games.first())
        .map(|g| g.name.clone());
    let name = args.game.clone().or(default);
    let Some(game) = chosen(&session, name.as_deref()).cloned() else {
        return Failure::new(
            Code::Program,
            format!(
                "{} declares no chance game (`instance CHANCE{{…}}`){}",
                args.file.display(),
                args.game
                    .as_deref()
                    .map(|g| format!(" named `{g}`"))
                    .unwrap_or_default()
            ),
        )
        .report();
    };
    let (mut engine, start) = match prepare(
        &mut session,
        &game,
        &args.set,
        args.from.as_deref(),
        args.max_steps,
    ) {
        Ok(x) => x,
        Err(f) => return f.report(&session),
    };
    let specs = match args
        .agents
        .as_deref()
        .map(gamelang_agents::AgentSpec::parse_list)
    {
        None => None,
        Some(Ok(specs)) => Some(specs),
        Some(Err(e)) => return Failure::usage(format!("--agents: {e}")).report(),
    };
    if !args.random && specs.is_none() {
        return match sequences(&mut session, &mut engine, &game, start, &args) {
            Ok(code) => code,
            Err(d) => render(&session, &d),
        };
    }
    let began = Instant::now();
    let mut model = match EngineModel::new(&mut engine, &game, start) {
        Ok(m) => m,
        Err(e) => return render(&session, &error_diag(e)),
    };
    // Sampled games meet the same states again and again.
    model.remember = true;
    // Without --max-moves, a first game that never ends stops the simulation: with the
    // default 10,000 games each as long, it would run for hours before printing anything.
    let (max_moves, give_up) = match args.max_moves {
        Some(n) => (n, false),
        None => (DEFAULT_MAX_MOVES, true),
    };
    let played = match &specs {
        Some(specs) => gamelang_agents::chance::simulate(
            &mut model, specs, args.seed, args.games, max_moves, give_up,
        ),
        None => simulate::simulate(&mut model, args.seed, args.games, max_moves, give_up),
    };
    let t = match played {
        Ok(t) => t,
        Err(ChanceError::Interrupted) => {
            return Failure::interrupted("interrupted").report();
        }
        Err(e) => return render(&session, &error_diag(e)),
    };
    if t.gave_up {
        return Failure::new(
            Code::Limit,
            format!(
                "the first game of `{}` passed {max_moves} moves without ending (in {:.1} s): it may never end",
                game.name,
                began.elapsed().as_secs_f64()
            ),
        )
        .help("if its games are this long, give --max-moves N: each game then stops after N moves and is counted as unfinished")
        .report();
    }
    let millis = (began.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let mean = t.total_moves as f64 / t.games.max(1) as f64;
    if args.json {
        let mut wins = Map::new();
        let mut rate = Map::new();
        let mut ci = Map::new();
        for (i, p) in t.players.iter().enumerate() {
            let (lo, hi) = simulate::wilson(t.wins[i], t.games);
            wins.insert(p.clone(), json!(t.wins[i]));
            rate.insert(p.clone(), json!(t.wins[i] as f64 / t.games.max(1) as f64));
            ci.insert(p.clone(), json!([lo, hi]));
        }
        let mut j = json!({"game": game.name, "games": t.games, "seed": args.seed, "wins": wins,
                   "win_rate": rate, "ci95": ci, "unfinished": t.unfinished,
                   "mean_moves": mean, "millis": millis, "interrupted": t.interrupted});
        if let Some(specs) = &specs {
            let agents: Map<String, serde_json::Value> = t
                .players
                .iter()
                .zip(specs)
                .map(|(p, a)| (p.clone(), json!(a.to_string())))
                .collect();
            j["agents"] = json!(agents);
        }
        println!("{j}");
    } else {
        match &specs {
            None => println!(
                "game {}: {} random games (seed {}), players choosing uniformly at random",
                game.name, t.games, args.seed
            ),
            Some(specs) => println!(
                "game {}: {} games (seed {}) between agents: {}",
                game.name,
                t.games,
                args.seed,
                t.players
                    .iter()
                    .zip(specs)
                    .map(|(p, a)| format!("{p} plays {a}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
        let width = t.players.iter().map(|p| p.len()).max().unwrap_or(1);
        for (i, p) in t.players.iter().enumerate() {
            let (lo, hi) = simulate::wilson(t.wins[i], t.games);
            println!(
                "  {p:<width$}  won {:>8}  rate {:.4}  95% CI [{lo:.4}, {hi:.4}]",
                t.wins[i],
                t.wins[i] as f64 / t.games.max(1) as f64
            );
        }
        if t.unfinished > 0 {
            println!("unfinished (past --max-moves): {}", t.unfinished);
        }
        println!("mean length: {mean:.3} moves   time: {millis:.3} ms");
    }
    if t.interrupted {
        // As `match` does: what was played, then the status of an interruption.
        eprintln!("(interrupted: {} of {} games played)", t.games, args.games);
        return ExitCode::from(130);
    }
    ExitCode::SUCCESS
}

/// The byte ranges of the terms of a comma-separated list (`heads, f(a, b), tails`):
/// commas inside brackets do not separate; blanks around a term are left out.
fn split_terms(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut push = |a: usize, b: usize| {
        let piece = &text[a..b];
        let lead = piece.len() - piece.trim_start().len();
        let trail = piece.len() - piece.trim_end().len();
        if lead < piece.len() {
            out.push(a + lead..b - trail);
        }
    };
    for (i, ch) in text.char_indices() {
        match ch {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                push(start, i);
                start = i + 1;
            }
            _ => {}
        }
    }
    push(start, text.len());
    out
}

/// `simulate --events … --choices …`: seed 002's `move-repeatedly` — apply `move` to the
/// state with the next event and choice until a final state; print the states and winners
/// as they come, or with `--json` one object at the end: `game`, `start`, `moves` (each
/// `player`, `choice`, `event` — null when the choice had one outcome and none was given —
/// and `state`), `final`, `winners` (null when play did not end) and, when the events or
/// choices ran out first, `ran_out`.
fn sequences(
    session: &mut Session,
    engine: &mut Engine,
    game: &ChanceGame,
    start: Option<gamelang_lang::program::Pat>,
    args: &SimulateArgs,
) -> Result<ExitCode, Diag> {
    let mut parse_all = |text: &Option<String>, what: &str, sort| -> Result<Option<Vec<_>>, Diag> {
        let Some(text) = text else { return Ok(None) };
        // One source for the whole list, so that an error points into it where it is.
        let file = session.sources.add(what, text);
        let mut out = Vec::new();
        for range in split_terms(text) {
            out.push(session.parse_term_in(game.module, file, range, Some(sort))?);
        }
        Ok(Some(out))
    };
    let events = parse_all(&args.events, "--events", game.event_sort)?;
    let choices = parse_all(&args.choices, "--choices", game.choice_sort)?;
    let mut model = EngineModel::new(engine, game, start).map_err(error_diag)?;
    let players = model.players().map_err(error_diag)?;
    let mut s = model.start().map_err(error_diag)?;
    let text = !args.json;
    let start_text = model.show_state(s);
    if text {
        println!("game {}: move-repeatedly from {start_text}", game.name);
    }
    let mut moves: Vec<Value> = Vec::new();
    // How the sequence ended: the winners of a final state, or what ran out.
    let end = |moves: Vec<Value>, winners: Option<Vec<&str>>, ran_out: Option<&str>| {
        if text {
            match (&winners, ran_out) {
                (Some(w), _) => println!(
                    "final after {} move(s); winners: {}",
                    moves.len(),
                    if w.is_empty() {
                        "none".to_string()
                    } else {
                        w.join(", ")
                    }
                ),
                (None, Some(what)) => println!(
                    "the {what} ran out after {} move(s): the state is not final",
                    moves.len()
                ),
                (None, None) => {}
            }
        } else {
            let mut out = Map::new();
            out.insert("game".into(), json!(game.name));
            out.insert("start".into(), json!(start_text));
            out.insert("final".into(), json!(winners.is_some()));
            out.insert("winners".into(), json!(winners));
            if let Some(what) = ran_out {
                out.insert("ran_out".into(), json!(what));
            }
            out.insert("moves".into(), Value::Array(moves));
            println!("{}", Value::Object(out));
        }
        if winners.is_some() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    };
    loop {
        let k = moves.len();
        let node = model.expand(s).map_err(error_diag)?;
        let (player, options) = match node {
            gamelang_chance::model::Node::Final { winners } => {
                let names: Vec<&str> = winners.iter().map(|&w| players[w].as_str()).collect();
                return Ok(end(moves, Some(names), None));
            }
            gamelang_chance::model::Node::Turn { player, options } => (player, options),
        };
        if text {
            print!("{k:>4}. {}", players[player]);
        }
        // The choice: the next one given, or the only one there is.
        let opt = match &choices {
            Some(cs) => {
                let Some(c) = cs.get(k) else {
                    if text {
                        println!(" to move");
                    }
                    return Ok(end(moves, None, Some("choices")));
                };
                let c = model.call(c, &[]).map_err(error_diag)?;
                match options.iter().find(|o| o.choice == c) {
                    Some(o) => o,
                    None => {
                        if text {
                            println!();
                        }
                        let open: Vec<String> = options
                            .iter()
                            .map(|o| model.show_choice(&o.choice))
                            .collect();
                        return Err(Diag::error(format!(
                            "move {}: `{}` is not a choice here (choices: {})",
                            k + 1,
                            model.show_choice(&c),
                            open.join(", ")
                        )));
                    }
                }
            }
            None if options.len() == 1 => &options[0],
            None => {
                if text {
                    println!();
                }
                return Err(Diag::error(format!(
                    "move {}: {} choices here; give them with --choices",
                    k + 1,
                    options.len()
                )));
            }
        };
        let c = model.show_choice(&opt.choice);
        // The event: the next one given (it must be possible), or the only outcome.
        let (next, event) = match &events {
            Some(es) => {
                let Some(e) = es.get(k) else {
                    if text {
                        println!(" to move");
                    }
                    return Ok(end(moves, None, Some("events")));
                };
                let e = model.call(e, &[]).map_err(error_diag)?;
                let t = model
                    .call(&game.moves, &[e, opt.choice, s])
                    .map_err(error_diag)?;
                if !opt.outcomes.iter().any(|(_, n)| *n == t) {
                    if text {
                        println!();
                    }
                    return Err(Diag::error(format!(
                        "move {}: event `{}` cannot happen after choice `{c}`",
                        k + 1,
                        model.show_state(e)
                    )));
                }
                let event = model.show_state(e);
                if text {
                    print!(" chooses {c}, event {event}");
                }
                (t, Some(event))
            }
            None if opt.outcomes.len() == 1 => {
                if text {
                    print!(" chooses {c}");
                }
                (opt.outcomes[0].1, None)
            }
            None => {
                if text {
                    println!();
                }
                return Err(Diag::error(format!(
                    "move {}: the choice `{c}` has {} outcomes; give the events with --events",
                    k + 1,
                    opt.outcomes.len()
                )));
            }
        };
        s = next;
        let state = model.show_state(s);
        if text {
            println!(" -> {state}");
        }
        moves.push(json!({
            "player": players[player],
            "choice": c,
            "event": event,
            "state": state,
        }));
    }
}

/// `solve --retrograde` on a two-player game of seed 003 (`WINS{…}`): retrograde analysis,
/// so that a game whose positions repeat is solved (with draws) instead of refused.
pub fn solve_tree(
    args: &SolveArgs,
    session: &Session,
    game: &gamelang_lang::elab::Game,
    start: gamelang_lang::program::Pat,
    first: gamelang_lang::program::Pat,
    engine: &mut Engine,
) -> ExitCode {
    // The step budget counts for the whole solve, as for the other solvers.
    engine.with_step_budget(|engine| {
        solve_tree_within_budget(args, session, game, start, first, engine)
    })
}

fn solve_tree_within_budget(
    args: &SolveArgs,
    session: &Session,
    game: &gamelang_lang::elab::Game,
    start: gamelang_lang::program::Pat,
    first: gamelang_lang::program::Pat,
    engine: &mut Engine,
) -> ExitCode {
    let began = Instant::now();
    let mut model = match gamelang_chance::tree::TreeModel::new(engine, game, start, first) {
        Ok(m) => m,
        Err(e) => return render(session, &error_diag(e)),
    };
    let graph = match explore(&mut model, false, args.max_states) {
        Ok(g) => g,
        Err(ChanceError::Interrupted) => {
            return Failure::interrupted("interrupted").report();
        }
        Err(e) => return render(session, &error_diag(e)),
    };
    let (p, c) = graph.states[0];
    let mut out = Map::new();
    out.insert("game".into(), json!(game.name));
    out.insert("start".into(), json!(model.engine.show(c)));
    out.insert("to_move".into(), json!(graph.players[p as usize]));
    let mut text = format!(
        "game {}: {} with {} to move\n",
        game.name,
        model.engine.show(c),
        graph.players[p as usize]
    );
    retro_report(&graph, &model, &mut out, &mut text);
    let steps = model.engine.steps();
    let millis = (began.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    out.insert("positions".into(), json!(graph.len()));
    out.insert("rewrites".into(), json!(steps));
    out.insert("millis".into(), json!(millis));
    text.push_str(&format!(
        "positions: {}   rewrites: {steps}   time: {millis:.3} ms\n",
        graph.len()
    ));
    if args.json {
        println!("{}", Value::Object(out));
    } else {
        print!("{text}");
    }
    ExitCode::SUCCESS
}
