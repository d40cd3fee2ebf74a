//! `gamelang solve`: who wins from a configuration, with the winning move, the principal
//! line, the number of positions evaluated and the time taken; as text or as one JSON object.

use crate::app;
use crate::failure::Failure;
use crate::report::{self, Renderer, Report};
use gamelang_game as driver;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, Session};
use gamelang_lang::program::Pat;
use gamelang_runtime::Engine;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--tolerance` and `--max-states` when not given.
const DEFAULT_TOLERANCE: f64 = 1e-12;
const DEFAULT_MAX_STATES: usize = 50_000_000;

#[derive(clap::Args)]
pub struct SolveArgs {
    /// The `.game` file declaring the game.
    pub file: PathBuf,
    /// Start from this configuration instead of the game's `start`, written as in the file,
    /// e.g. '(2 5)'.
    #[arg(long, value_name = "TERM")]
    pub from: Option<String>,
    /// Who moves first: `B` or `R` (default: the game's `first`).
    #[arg(long, value_name = "PLAYER")]
    pub first: Option<String>,
    /// Which game of the file, by the name in `game NAME is …` (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Print one JSON object (keys: game, start, to_move, winner, best_move,
    /// principal_line, depth (the principal line's plies; also as plies), depth_optimal
    /// (false when the shortest line was not proved within --line-budget), positions,
    /// rewrites, millis; with --max-depth: game, start, to_move, max_depth, wins_within,
    /// positions, rewrites, millis).
    #[arg(long)]
    pub json: bool,
    /// Set a game parameter (repeatable), e.g. `--set n=6`; the game declares its
    /// parameters with `param NAME .` and their defaults in its module.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Compute the optimal score instead (for games that define `score`; B maximises it,
    /// R minimises it). JSON key: `value`. With --max-depth D: the score when play is cut
    /// off after D plies, a position still open then valued by the game's `eval` (JSON
    /// adds `max_depth`).
    #[arg(long)]
    pub value: bool,
    /// Answer the bounded question instead: can the player to move force a win within
    /// D plies? (A position not halted after D plies counts as not won.) Searched by
    /// alpha-beta with iterative deepening, depths 1 to D.
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u64>,
    /// Give up with an error after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Positions the search for the fastest win (and longest defence) may visit; past it the
    /// principal line is the winner's first winning moves, and `depth_optimal` is false.
    #[arg(long, value_name = "N", default_value_t = driver::DEFAULT_LINE_BUDGET)]
    pub line_budget: usize,
    /// Keep at most about N positions in the outcome search's transposition table (default:
    /// all). Past it the search forgets the half with the least work below them, and the
    /// engine's memo tables when they hold over 2N entries, so memory stays bounded
    /// however many positions are searched; a position forgotten and met again is searched
    /// again (and counts again in `positions`). Answers do not change. Budget about 1 KB of
    /// memory a position kept (Connect 6×6 with N = 10,000,000 peaked at 9.4 GB).
    #[arg(long, value_name = "N")]
    pub table_size: Option<usize>,
    /// In text output, show at most this many plies of the principal line (JSON has all).
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub show_plies: usize,
    /// With --qbf (grid games): the plies to encode, a number or `auto` for the critical
    /// depth (searched up to --max-depth). Default: --max-depth, or the game's `depth`
    /// constant, or the number of cells.
    #[arg(long, value_name = "D|auto")]
    pub depth: Option<String>,
    #[command(flatten)]
    pub solver: crate::qbf::SolverArgs,
    /// Chance games: always compute exactly (rationals), however large the game.
    #[arg(long, conflicts_with = "float")]
    pub exact: bool,
    /// Chance games: value iteration in floating point, even when exact is possible.
    #[arg(long)]
    pub float: bool,
    /// Chance games: value iteration stops when no value changes by more than this.
    #[arg(long, value_name = "T", default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// Chance games: give up past this many reachable states.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STATES)]
    pub max_states: usize,
    /// Solve by retrograde analysis instead of the recursive `w`: a game whose positions
    /// repeat is then solved, positions from which neither player can force a win being
    /// draws (JSON: winner, depth, principal_line, best_choice, positions, …).
    #[arg(long)]
    pub retrograde: bool,
    /// When done, print to standard error what the rewrites were: each equation's
    /// applications (and the matches its condition refused) and each built-in's
    /// evaluations, most first, with where each equation is written. The calls the call
    /// cache or a memo table answered (not rewritten) follow, by operator. Profiling
    /// makes solving slower.
    /// `--profile=json` prints it as one line of JSON instead (keys `rewrites`,
    /// `equations`, `builtins`, `answered`, as the README says).
    #[arg(long, value_name = "FORMAT", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "table")]
    pub profile: Option<crate::profile::Format>,
    /// Chance games: solve a deterministic two-player game by max-n like a chance game
    /// instead of by retrograde analysis.
    #[arg(long, hide = true)]
    pub max_n: bool,
}

pub fn run(args: SolveArgs) -> ExitCode {
    if args.solver.qbf {
        return solve_qbf(&args);
    }
    let mut session = match app::load(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(g) = crate::chance::chosen(&session, args.game.as_deref()).cloned() {
        return crate::chance::solve(args, session, g);
    }
    if let Err(msg) = classic_options(&args) {
        return Failure::usage(msg).report();
    }
    let game = match app::game_with_parameters(
        &mut session,
        &args.file,
        args.game.as_deref(),
        &args.set,
    ) {
        Ok(g) => g,
        Err(d) => return fail(&session, d),
    };
    let (start, first, from_at) = match app::position(
        &mut session,
        &game,
        args.from.as_deref(),
        args.first.as_deref(),
    ) {
        Ok(p) => p,
        Err(d) => return fail(&session, d),
    };
    // Never dropped: the process ends with this command, and freeing a large store term by
    // term would only delay the exit.
    let mut engine = std::mem::ManuallyDrop::new(app::engine(&session, &game.modules()));
    engine.limits.max_steps = args.max_steps;
    engine.set_profiling(args.profile.is_some());
    app::stop_on_ctrl_c(&engine.interrupt);
    if let Some(at) = from_at {
        if let Err((d, interrupted)) = app::check_from(&mut engine, &start, at) {
            let code = fail(&session, d);
            return if interrupted {
                ExitCode::from(130)
            } else {
                code
            };
        }
    }
    let code = solve_on(&args, &session, &game, start, first, &mut engine);
    crate::profile::report_to_stderr(&mut engine, &session, args.profile.unwrap_or_default());
    code
}

/// Options that a two-player game (not a chance game) cannot take together, or at all:
/// each was silently ignored (`--retrograde --max-depth 2` answered the unbounded question).
fn classic_options(args: &SolveArgs) -> Result<(), String> {
    let chance_only: Vec<&str> = [
        (args.exact, "--exact"),
        (args.float, "--float"),
        (args.tolerance != DEFAULT_TOLERANCE, "--tolerance"),
        (args.max_n, "--max-n"),
    ]
    .into_iter()
    .filter_map(|(given, name)| given.then_some(name))
    .collect();
    if !chance_only.is_empty() {
        return Err(format!(
            "{} {} for chance games; this is a two-player game",
            chance_only.join(", "),
            if chance_only.len() == 1 { "is" } else { "are" }
        ));
    }
    if args.retrograde && (args.value || args.max_depth.is_some()) {
        return Err(format!(
            "--retrograde answers who wins (with draws) by retrograde analysis; {} the recursive search's: give one or the other",
            match (args.value, args.max_depth.is_some()) {
                (true, true) => "--value and --max-depth are",
                (true, false) => "--value is",
                _ => "--max-depth is",
            }
        ));
    }
    if !args.retrograde && args.max_states != DEFAULT_MAX_STATES {
        return Err("--max-states bounds the states of a chance game or of --retrograde".into());
    }
    Ok(())
}

/// Report `d`, located in `session`'s sources; a cycle error says what solves such games.
fn fail(session: &Session, d: Diag) -> ExitCode {
    let d = if d.message.starts_with("cycle in the game graph") {
        d.note("positions repeat in this game: `--retrograde` solves it by retrograde analysis, with draws")
    } else {
        d
    };
    crate::failure::diag(&session.sources, &d)
}

/// Solve `game` from `start` with `first` to move, on `engine`, and print the answer.
fn solve_on(
    args: &SolveArgs,
    session: &Session,
    game: &Game,
    start: Pat,
    first: Pat,
    engine: &mut Engine,
) -> ExitCode {
    if args.retrograde {
        return crate::chance::solve_tree(args, session, game, start, first, engine);
    }
    // A failure is a located diagnostic (an error of the search itself, such as a cycle
    // or the step budget, at the game solved, as the REPL places it); an interrupted
    // search exits with status 130.
    let diagnose = |engine: &Engine, e: &driver::SolveError| {
        let d = driver::diagnose(engine, e);
        if d.span().is_some() {
            d
        } else {
            d.primary(game.span, "while solving this game")
        }
    };
    let failed = |engine: &Engine, e: &driver::SolveError| {
        let code = fail(session, diagnose(engine, e));
        if driver::is_interrupted(e) {
            ExitCode::from(130)
        } else {
            code
        }
    };
    let renderer = |engine| Renderer::new(engine, game, args.show_plies);
    if args.value {
        let within = args.max_depth;
        return match driver::solve_value_within(engine, game, &start, &first, within) {
            Ok(v) => {
                renderer(engine).print(&Report::Valued(&v), args.json);
                ExitCode::SUCCESS
            }
            Err(e) => failed(engine, &e),
        };
    }
    if let Some(plies) = args.max_depth {
        return match driver::solve_within(engine, game, &start, &first, plies) {
            Ok(b) => {
                renderer(engine).print(&Report::Bounded(&b), args.json);
                ExitCode::SUCCESS
            }
            Err(e) => failed(engine, &e),
        };
    }
    // This command holds no term across the solve: the search may collect garbage
    // (GAMELANG_NO_COLLECT=1 turns it off, to measure what it saves).
    let collect = std::env::var_os("GAMELANG_NO_COLLECT").is_none();
    let memory = driver::Memory {
        collect,
        table: args.table_size.unwrap_or(usize::MAX),
    };
    let outcome =
        match driver::solve_in_memory(engine, game, &start, &first, args.line_budget, memory) {
            Ok(o) => o,
            Err(e) => return failed(engine, &e),
        };
    renderer(engine).print(&Report::Outcome(&outcome), args.json);
    if !args.json {
        match report::draw_line(engine, game, &outcome, args.show_plies) {
            Ok(drawn) => print!("{drawn}"),
            Err(e) => return fail(session, diagnose(engine, &e)),
        }
    }
    ExitCode::SUCCESS
}

/// `solve GAME.game --qbf`: the grid game as a BDDL model, decided by the QBF solver (Black
/// is B; the question is Black's win within the depth, as `bddl solve --qbf`).
fn solve_qbf(args: &SolveArgs) -> ExitCode {
    if args.from.is_some() || args.first.is_some() || args.value {
        return Failure::usage("--qbf solves the game from its start (--from, --first and --value are for exhaustive search)").report();
    }
    let fixed = match (&args.depth, args.max_depth) {
        (None, Some(d)) => Some(d.min(u32::MAX as u64) as u32),
        _ => None,
    };
    let files = [args.file.clone()];
    // (The model keeps the file's depth, which the report names as such.)
    let model = match crate::lower::model_from_files(&files, args.game.as_deref(), &args.set, None)
    {
        Ok(m) => m,
        Err(code) => return code,
    };
    let spec = match fixed {
        Some(d) => crate::qbf::DepthSpec::Fixed(d),
        None => match crate::bddl::depth_spec(args.depth.as_deref(), args.max_depth, model.depth) {
            Ok(s) => s,
            Err(code) => return code,
        },
    };
    let what = args.file.display().to_string();
    crate::qbf::solve_and_print(&model, &what, spec, args.json, &args.solver)
}
