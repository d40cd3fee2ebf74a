//! `gamelang solve`: who wins from a configuration, with the winning move, the principal
//! line, the number of positions evaluated and the time taken; as text or as one JSON object.

use crate::failure::Failure;
use gamelang_game::{self as driver, Bounded, Outcome, Verdict};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, Session};
use gamelang_runtime::Engine;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

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
    /// principal_line, depth, positions, rewrites, millis; with --max-depth: game, start,
    /// to_move, max_depth, wins_within, positions, rewrites, millis).
    #[arg(long)]
    pub json: bool,
    /// Set a game parameter (repeatable), e.g. `--set n=6`; the game declares its
    /// parameters with `param NAME .` and their defaults in its module.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Compute the optimal score instead (for games that define `score`; B maximises it,
    /// R minimises it). JSON key: `value`.
    #[arg(long)]
    pub value: bool,
    /// Answer the bounded question instead: can the player to move force a win within
    /// D plies? (A position not halted after D plies counts as not won.)
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u64>,
    /// Give up with an error after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000)]
    pub max_steps: u64,
    /// Positions the search for the fastest win (and longest defence) may visit; past it the
    /// principal line is the winner's first winning moves, and `depth_optimal` is false.
    #[arg(long, value_name = "N", default_value_t = driver::DEFAULT_LINE_BUDGET)]
    pub line_budget: usize,
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
    #[arg(long, value_name = "T", default_value_t = 1e-12)]
    pub tolerance: f64,
    /// Chance games: give up past this many reachable states.
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    pub max_states: usize,
    /// Solve by retrograde analysis instead of the recursive `w`: a game whose positions
    /// repeat is then solved, positions from which neither player can force a win being
    /// draws (JSON: winner, depth, principal_line, best_choice, positions, …).
    #[arg(long)]
    pub retrograde: bool,
    /// Chance games: solve a deterministic two-player game by max-n like a chance game
    /// instead of by retrograde analysis.
    #[arg(long, hide = true)]
    pub max_n: bool,
}

/// Load a file into a fresh session, or render its errors to standard error.
pub fn load(file: &std::path::Path) -> Result<Session, ExitCode> {
    let mut session = match Session::new() {
        Ok(s) => s,
        Err(rendered) => {
            eprint!("{rendered}");
            return Err(Failure::bug(
                "the standard library failed to load (this is a bug in gamelang)",
            )
            .report());
        }
    };
    if let Err(errors) = session.load_file(file) {
        let what = file.display().to_string();
        return Err(crate::failure::not_loaded(&what, &errors, &session.sources));
    }
    Ok(session)
}

pub fn pick_game<'a>(
    session: &'a Session,
    file: &std::path::Path,
    name: Option<&str>,
) -> Result<&'a Game, Diag> {
    match name {
        Some(n) => session.games.iter().find(|g| g.name == n).ok_or_else(|| {
            let names: Vec<&str> = session.games.iter().map(|g| g.name.as_str()).collect();
            Diag::error(format!("{} declares no game `{n}`", file.display())).note(if names.is_empty() {
                "it declares no games".to_string()
            } else {
                format!("its games: {}", names.join(", "))
            })
        }),
        None => session.games.first().ok_or_else(|| {
            Diag::error(format!("{} declares no game", file.display()))
                .note("add a block `game NAME is instance WINS{YourView} . start TERM . first R . endgame`")
        }),
    }
}

pub fn run(args: SolveArgs) -> ExitCode {
    if args.solver.qbf {
        return solve_qbf(&args);
    }
    let mut session = match load(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let fail = |session: &Session, d: Diag| {
        let d = if d.message.starts_with("cycle in the game graph") {
            d.note("positions repeat in this game: `--retrograde` solves it by retrograde analysis, with draws")
        } else {
            d
        };
        crate::failure::diag(&session.sources, &d)
    };
    if let Some(g) = crate::chance::chosen(&session, args.game.as_deref()).cloned() {
        return crate::chance::solve(args, session, g);
    }
    let game = match pick_game(&session, &args.file, args.game.as_deref()) {
        Ok(g) => g.clone(),
        Err(d) => return fail(&session, d),
    };
    for assignment in &args.set {
        if let Err(d) = session.set_parameter(&game, assignment) {
            return fail(&session, d);
        }
    }
    let start = match &args.from {
        Some(text) => match session.parse_term(game.module, "--from", text, Some(game.config_sort))
        {
            Ok(p) => p,
            Err(d) => return fail(&session, d),
        },
        None => game.start.clone(),
    };
    let first = match &args.first {
        Some(text) => {
            match session.parse_term(game.module, "--first", text, Some(game.player_sort)) {
                Ok(p) => p,
                Err(d) => return fail(&session, d),
            }
        }
        None => game.first.clone(),
    };
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.limits.max_steps = args.max_steps;
    // Ctrl-C stops the computation cleanly (reported as interrupted, exit status 130).
    let interrupt = engine.interrupt.clone();
    let _ = ctrlc::set_handler(move || interrupt.store(true, std::sync::atomic::Ordering::SeqCst));
    if args.retrograde {
        return crate::chance::solve_tree(&args, &session, &game, start, first, &mut engine);
    }
    if args.value {
        return match driver::solve_value(&mut engine, &game, &start, &first) {
            Ok(v) => {
                let millis = (v.elapsed.as_secs_f64() * 1e6).round() / 1e3;
                if args.json {
                    let j = json!({
                        "game": game.name,
                        "start": engine.show(v.start),
                        "to_move": v.to_move.name(),
                        "value": v.value,
                        "positions": v.positions,
                        "rewrites": v.steps,
                        "millis": millis,
                    });
                    println!("{j}");
                } else {
                    println!(
                        "game {}: {} with {} to move",
                        game.name,
                        engine.show(v.start),
                        v.to_move.name()
                    );
                    println!(
                        "value under best play: {} (B maximises, R minimises)",
                        v.value
                    );
                    println!(
                        "positions: {}   rewrites: {}   time: {millis:.3} ms",
                        v.positions, v.steps
                    );
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail(&session, driver::diagnose(&engine, &e)),
        };
    }
    if let Some(plies) = args.max_depth {
        return match driver::solve_within(&mut engine, &game, &start, &first, plies) {
            Ok(b) => {
                if args.json {
                    println!("{}", bounded_json(&engine, &game, &b));
                } else {
                    print!("{}", bounded_text(&engine, &game, &b));
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                let code = fail(&session, driver::diagnose(&engine, &e));
                if driver::is_interrupted(&e) {
                    ExitCode::from(130)
                } else {
                    code
                }
            }
        };
    }
    let outcome =
        match driver::solve_with_budget(&mut engine, &game, &start, &first, args.line_budget) {
            Ok(o) => o,
            Err(e) => {
                let code = fail(&session, driver::diagnose(&engine, &e));
                return if driver::is_interrupted(&e) {
                    ExitCode::from(130)
                } else {
                    code
                };
            }
        };
    if args.json {
        println!("{}", to_json(&engine, &game, &outcome));
    } else {
        print!("{}", to_text(&engine, &game, &outcome, args.show_plies));
        match draw_line(&mut engine, &game, &outcome, args.show_plies) {
            Ok(drawn) => print!("{drawn}"),
            Err(e) => return fail(&session, driver::diagnose(&engine, &e)),
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
    let model = match crate::lower::model_from_files(&files, args.game.as_deref(), &args.set, fixed)
    {
        Ok(m) => m,
        Err(code) => return code,
    };
    let spec = match crate::bddl::depth_spec(args.depth.as_deref(), args.max_depth, model.depth) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let what = args.file.display().to_string();
    crate::qbf::solve_and_print(&model, &what, spec, args.json, &args.solver)
}

fn to_json(engine: &Engine, game: &Game, o: &Outcome) -> serde_json::Value {
    json!({
        "game": game.name,
        "start": engine.show(o.start),
        "to_move": o.to_move.name(),
        "winner": o.winner.name(),
        "best_move": o.best_move.map(|m| engine.show(m)),
        "principal_line": o.line.iter().map(|c| engine.show(*c)).collect::<Vec<_>>(),
        "depth": o.line.len() - 1,
        "depth_optimal": o.depth_optimal,
        "plies": o.line.len() - 1,
        "positions": o.positions,
        "rewrites": o.steps,
        "millis": (o.elapsed.as_secs_f64() * 1e6).round() / 1e3,
    })
}

pub(crate) fn to_text(engine: &Engine, game: &Game, o: &Outcome, show: usize) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "game {}: {} with {} to move",
        game.name,
        engine.show(o.start),
        o.to_move.name()
    );
    match o.winner {
        Verdict::Win(w) => {
            let _ = writeln!(out, "winner: {} ({})", w.name(), w.full_name());
        }
        Verdict::Draw => {
            let _ = writeln!(out, "winner: none, a draw under best play");
        }
    }
    match o.best_move {
        Some(m) => {
            let _ = writeln!(
                out,
                "winning move: {} -> {}",
                engine.show(o.start),
                engine.show(m)
            );
        }
        None if o.line.len() == 1 => {
            let _ = writeln!(out, "no move: play has already halted");
        }
        None if o.winner == Verdict::Draw => {
            let _ = writeln!(out, "no winning move: with best play neither player wins");
        }
        None => {
            let _ = writeln!(
                out,
                "no winning move for {}: every move loses",
                o.to_move.name()
            );
        }
    }
    let plies = o.line.len() - 1;
    // Say when the line is not the fastest win: its search went past --line-budget.
    let kind = if o.depth_optimal || o.winner == Verdict::Draw {
        ""
    } else {
        ", first winning moves, not the fastest win"
    };
    let _ = write!(
        out,
        "principal line ({plies} plies{kind}): {}",
        engine.show(o.line[0])
    );
    for k in 1..=plies {
        if k > show && k < plies {
            // Elide the middle of a long line, but always show how it ends.
            let _ = write!(out, " ... ({} plies) ...", plies - k);
            let _ = write!(
                out,
                " {}-> {}",
                o.mover(plies).name(),
                engine.show(o.line[plies])
            );
            break;
        }
        let _ = write!(out, " {}-> {}", o.mover(k).name(), engine.show(o.line[k]));
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "positions: {}   rewrites: {}   time: {:.3} ms",
        o.positions,
        o.steps,
        o.elapsed.as_secs_f64() * 1e3
    );
    out
}

fn bounded_json(engine: &Engine, game: &Game, b: &Bounded) -> serde_json::Value {
    json!({
        "game": game.name,
        "start": engine.show(b.start),
        "to_move": b.to_move.name(),
        "max_depth": b.max_depth,
        "wins_within": b.wins,
        "positions": b.positions,
        "rewrites": b.steps,
        "millis": (b.elapsed.as_secs_f64() * 1e6).round() / 1e3,
    })
}

pub(crate) fn bounded_text(engine: &Engine, game: &Game, b: &Bounded) -> String {
    format!(
        "game {}: {} with {} to move\n{} {} force a win within {} plies\npositions: {}   rewrites: {}   time: {:.3} ms\n",
        game.name,
        engine.show(b.start),
        b.to_move.name(),
        b.to_move.name(),
        if b.wins { "can" } else { "cannot" },
        b.max_depth,
        b.positions,
        b.steps,
        b.elapsed.as_secs_f64() * 1e3
    )
}

/// The start and the principal line drawn by the game's `display` (nothing if it has none).
fn draw_line(
    engine: &mut Engine,
    game: &Game,
    o: &Outcome,
    show: usize,
) -> Result<String, driver::SolveError> {
    use std::fmt::Write;
    let d = driver::GameDriver::new(engine, game)?;
    let mut out = String::new();
    let Some(start) = d.draw(engine, o.line[0])? else {
        return Ok(out);
    };
    let indent = |text: &str| {
        text.lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    };
    let _ = write!(
        out,
        "\nstart, {} to move:\n{}",
        o.to_move.name(),
        indent(&start)
    );
    for k in 1..o.line.len().min(show + 1) {
        if let Some(text) = d.draw(engine, o.line[k])? {
            let _ = write!(
                out,
                "\nply {k}, {} moved:\n{}",
                o.mover(k).name(),
                indent(&text)
            );
        }
    }
    if o.line.len() > show + 1 {
        let _ = writeln!(out, "\n... {} more plies", o.line.len() - 1 - show);
    }
    Ok(out)
}
