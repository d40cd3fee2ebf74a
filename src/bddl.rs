//! `gamelang bddl solve DOMAIN PROBLEM` and `gamelang bddl convert DOMAIN PROBLEM`: BDDL files
//! (seed 001) read by the `gamelang-bddl` crate, turned into a gamelang grid game
//! (stdlib/grid.game) and solved through GRID's rules by the depth-limited search of
//! `gamelang solve --max-depth` (`BoundedSearch`, which answers SOLVE's `b-within`) —
//! Definition 10's "Black has a winning strategy within d plies". One search serves every
//! depth asked (the critical depth's odd depths, the principal line's least depths): a win
//! within d stays a win deeper, and what is not won within d is not won shallower.

use crate::failure::Failure;
use gamelang_bddl::Model;
use gamelang_game::search::{BoundedSearch, Leaf};
use gamelang_game::{self as driver, EngineRules, GameDriver, Rules, Side, SolveError};
use gamelang_lang::elab::{Game, Session};
use gamelang_lang::span::Sources;
use gamelang_runtime::{Engine, TermId};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Subcommand)]
pub enum BddlCommand {
    /// Does Black have a winning strategy within the problem's depth? With the winning first
    /// move, the principal line drawn as boards, and (`--depth auto`) the critical depth.
    Solve(SolveArgs),
    /// Print the BDDL game as a gamelang grid game (`.game` source using stdlib GRID).
    Convert(ConvertArgs),
}

#[derive(clap::Args)]
pub struct Files {
    /// The domain file (`#blackactions`, `#whiteactions`).
    pub domain: PathBuf,
    /// The problem file (`#boardsize`, `#init`, `#depth`, `#blackgoal`, `#whitegoal`,
    /// optionally `#blackturn`).
    pub problem: PathBuf,
}

#[derive(clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub files: Files,
    /// Plies to search: a number, or `auto` for the critical depth (the least odd depth at
    /// which Black wins, searched up to --max-depth). Default: the problem's `#depth`.
    #[arg(long, value_name = "D|auto")]
    pub depth: Option<String>,
    /// With `--depth auto`: the largest depth tried (default: the problem's `#depth`).
    #[arg(long, value_name = "D")]
    pub max_depth: Option<u64>,
    /// Print one JSON object: black_wins, best_move, depth, critical_depth (with --depth
    /// auto), least_depth, principal_line, positions, rewrites, millis, and the problem's
    /// board, depth and first player.
    #[arg(long)]
    pub json: bool,
    /// Give up with an error after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// In text output, draw at most this many plies of the principal line.
    #[arg(long, value_name = "N", default_value_t = 30)]
    pub show_plies: usize,
    #[command(flatten)]
    pub solver: crate::qbf::SolverArgs,
}

#[derive(clap::Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub files: Files,
    /// The game's name in the generated file (default: from the problem file's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Write to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(cmd: BddlCommand) -> ExitCode {
    match cmd {
        BddlCommand::Solve(args) => solve(args),
        BddlCommand::Convert(args) => convert(args),
    }
}

/// Read and parse the two files, rendering errors to standard error.
pub fn read_model(files: &Files) -> Result<Model, ExitCode> {
    let mut sources = Sources::default();
    let mut add = |path: &Path| -> Result<_, ExitCode> {
        match gamelang_lang::span::read_source(path) {
            Ok(text) => Ok(sources.add(path.display().to_string(), text)),
            Err(e) => Err(Failure::io(e).report()),
        }
    };
    let domain = add(&files.domain)?;
    let problem = add(&files.problem)?;
    gamelang_bddl::parse(&mut sources, domain, problem).map_err(|errors| {
        for d in &errors {
            let _ = crate::failure::diag(&sources, d);
        }
        if !crate::failure::json_mode() {
            let n = errors.len();
            eprintln!(
                "error: the BDDL files could not be read ({n} error{})",
                if n == 1 { "" } else { "s" }
            );
        }
        ExitCode::FAILURE
    })
}

/// A game name from the problem file's name: `3x3_9_tic.ig` → `bddl-3x3-9-tic`.
fn game_name(problem: &Path) -> String {
    let stem = problem
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let cleaned: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("bddl-{}", cleaned.trim_matches('-')).to_lowercase()
}

fn convert(args: ConvertArgs) -> ExitCode {
    let model = match read_model(&args.files) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| game_name(&args.files.problem));
    let text = model.to_game(&name);
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                return Failure::io(format!("cannot write {}: {e}", path.display())).report();
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}

/// A BDDL model loaded as a gamelang game, with an engine to solve it.
pub struct Loaded {
    pub session: Session,
    pub game: Game,
    pub engine: Engine,
    pub start: TermId,
    pub first: Side,
}

/// Load a model's gamelang translation (a failure here is a bug: the translation of a
/// model that parsed must load).
pub fn load_model(model: &Model, name: &str) -> Result<Loaded, String> {
    let mut session =
        Session::new().map_err(|e| format!("the standard library failed to load: {e}"))?;
    let text = model.to_game(name);
    if let Err(errors) = session.load_source(&format!("<{name}.game>"), &text) {
        return Err(format!(
            "the gamelang translation did not load (a bug in gamelang):\n{}",
            gamelang_lang::diag::render_all(&errors, &session.sources, false)
        ));
    }
    let game = session
        .games
        .first()
        .cloned()
        .ok_or("the translation declares no game")?;
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    // (The translation is one module and its game: every equation applies.)
    let start_t = engine.build(&game.start, &[]);
    let start = engine.reduce(start_t).map_err(|e| engine.describe(&e))?;
    let first = if model.black_first { Side::B } else { Side::R };
    Ok(Loaded {
        session,
        game,
        engine,
        start,
        first,
    })
}

/// What `bddl solve` found at one depth.
struct Answer {
    depth: u64,
    black_wins: bool,
    /// The principal line (positions, start first) when Black wins.
    line: Vec<TermId>,
}

/// The depth-limited search of one `bddl solve`, kept across the depths it asks about.
type Search = BoundedSearch<TermId>;

/// The least number of plies within which Black wins from `c` with `p` to move, if at most
/// `upto`.
fn least_depth(
    rules: &mut EngineRules,
    search: &mut Search,
    p: Side,
    c: TermId,
    upto: u64,
) -> Result<Option<u64>, SolveError> {
    for k in 0..=upto {
        if search.wins_within(rules, Side::B, p, c, k)? {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// A principal line of a Black win within `plies`: Black wins as fast as possible, White
/// holds out as long as possible.
fn principal_line(
    rules: &mut EngineRules,
    search: &mut Search,
    first: Side,
    start: TermId,
    plies: u64,
) -> Result<Vec<TermId>, SolveError> {
    let mut line = vec![start];
    let (mut c, mut p) = (start, first);
    let Some(mut left) = least_depth(rules, search, p, c, plies)? else {
        return Ok(line);
    };
    while left > 0 && !rules.halted(p, c)? {
        let moves = rules.moves(p, c)?;
        let mut best: Option<(TermId, u64)> = None;
        for m in moves {
            let Some(k) = least_depth(rules, search, p.opponent(), m, left - 1)? else {
                continue;
            };
            let better = match (p, best) {
                (_, None) => true,
                (Side::B, Some((_, b))) => k < b,
                (Side::R, Some((_, b))) => k > b,
            };
            if better {
                best = Some((m, k));
            }
        }
        let Some((m, k)) = best else { break };
        line.push(m);
        c = m;
        p = p.opponent();
        left = k;
    }
    Ok(line)
}

/// Run `f` on the game's rules, with the engine's step budget (`--max-steps`) counting for
/// all the reductions `f` asks for, as it did for the one reduction of `b-within`.
fn with_rules<T>(
    l: &mut Loaded,
    f: impl FnOnce(&mut EngineRules) -> Result<T, SolveError>,
) -> Result<T, SolveError> {
    let d = GameDriver::new(&mut l.engine, &l.game)?;
    l.engine
        .with_step_budget(|engine| f(&mut EngineRules::new(&d, engine)))
}

fn answer(
    l: &mut Loaded,
    search: &mut Search,
    plies: u64,
    want_line: bool,
) -> Result<Answer, SolveError> {
    let (first, start) = (l.first, l.start);
    with_rules(l, |rules| {
        let black_wins = search.wins_within(rules, Side::B, first, start, plies)?;
        let line = if black_wins && want_line {
            principal_line(rules, search, first, start, plies)?
        } else {
            vec![start]
        };
        Ok(Answer {
            depth: plies,
            black_wins,
            line,
        })
    })
}

/// The move from board `a` to position `b`, named as BDDL would: `occupy(2,3)` (the action
/// and the position it was played at), or `(cannot move)`.
pub fn describe_move(model: &Model, engine: &Engine, mover: Side, a: TermId, b: TermId) -> String {
    let (Some(from), Some(to)) = (engine.grid_board(a), engine.grid_board(b)) else {
        return "(cannot move)".into();
    };
    let black = mover == Side::B;
    crate::qbf::legal_moves(model, &from, black)
        .into_iter()
        .find(|(_, _, _, next)| *next == to)
        .map(|(k, x, y, _)| crate::qbf::move_name(model, black, k, x, y))
        .unwrap_or_else(|| "?".into())
}

/// `--depth D|auto` (with `--max-depth`) for the QBF route; the default is `default`.
pub fn depth_spec(
    depth: Option<&str>,
    max_depth: Option<u64>,
    default: u32,
) -> Result<crate::qbf::DepthSpec, ExitCode> {
    use crate::qbf::DepthSpec;
    match depth {
        None => Ok(DepthSpec::Fixed(default)),
        Some("auto") => Ok(DepthSpec::Auto {
            max: max_depth
                .map(|m| m.min(u32::MAX as u64) as u32)
                .unwrap_or(default),
        }),
        Some(text) => match text.parse::<u64>() {
            Ok(d) => u32::try_from(d).map(DepthSpec::Fixed).map_err(|_| {
                Failure::usage(format!(
                    "--depth {d} is more plies than the QBF route encodes: at most {}",
                    u32::MAX
                ))
                .report()
            }),
            Err(_) => Err(bad_depth(text).report()),
        },
    }
}

/// `--depth` that is neither a number nor `auto`.
fn bad_depth(text: &str) -> Failure {
    Failure::usage(format!(
        "--depth takes a number of plies or `auto`, not `{text}`"
    ))
    .help("give a number of plies, e.g. --depth 5, or --depth auto for the critical depth")
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::B => "Black",
        Side::R => "White",
    }
}

fn solve(args: SolveArgs) -> ExitCode {
    if args.max_depth.is_some() && args.depth.as_deref() != Some("auto") {
        // (It was ignored: the search went to the fixed depth.)
        return Failure::usage("--max-depth goes with --depth auto (the largest depth it tries)")
            .help("give --depth auto --max-depth D for the critical depth up to D, or --depth D for a fixed depth")
            .report();
    }
    let model = match read_model(&args.files) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if args.solver.qbf {
        let spec = match depth_spec(args.depth.as_deref(), args.max_depth, model.depth) {
            Ok(s) => s,
            Err(code) => return code,
        };
        let what = args.files.problem.display().to_string();
        return crate::qbf::solve_and_print(&model, &what, spec, args.json, &args.solver);
    }
    let name = game_name(&args.files.problem);
    let mut l = match load_model(&model, &name) {
        Ok(l) => l,
        Err(e) => return Failure::bug(e).report(),
    };
    l.engine.limits.max_steps = args.max_steps;
    crate::app::stop_on_ctrl_c(&l.engine.interrupt);
    let auto = args.depth.as_deref() == Some("auto");
    let depth = match args.depth.as_deref() {
        None | Some("auto") => model.depth as u64,
        Some(text) => match text.parse::<u64>() {
            Ok(d) => d,
            Err(_) => return bad_depth(text).report(),
        },
    };
    let began = Instant::now();
    let steps_before = l.engine.steps();
    let mut search = Search::new(Leaf::Outcome);
    // With `auto`: odd depths 1, 3, … up to --max-depth; Black wins at depth d + 2 when at d.
    let result = if auto {
        // No depth beyond the longest play can change the answer.
        let max = crate::qbf::auto_limit(&model, args.max_depth.unwrap_or(depth)).0;
        let mut found = None;
        let mut last = None;
        let mut d = 1;
        let mut err = None;
        while d <= max {
            match answer(&mut l, &mut search, d, false) {
                Ok(a) if a.black_wins => {
                    found = Some(d);
                    break;
                }
                Ok(a) => last = Some(a),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
            d += 2;
        }
        match (err, found) {
            (Some(e), _) => Err(e),
            (None, Some(d)) => answer(&mut l, &mut search, d, true).map(|a| (a, Some(d))),
            (None, None) => Ok((
                last.unwrap_or(Answer {
                    depth: max,
                    black_wins: false,
                    line: vec![l.start],
                }),
                None,
            )),
        }
    } else {
        answer(&mut l, &mut search, depth, true).map(|a| (a, None))
    };
    let (a, critical) = match result {
        Ok(r) => r,
        Err(e) => {
            let diag = driver::diagnose(&l.engine, &e);
            let code = crate::failure::diag(&l.session.sources, &diag);
            return if driver::is_interrupted(&e) {
                ExitCode::from(130)
            } else {
                code
            };
        }
    };
    // The least depth of any parity (seed 001's Table 2 counts White's failed attempt to
    // move as a ply, so Domineering's critical depths there are even).
    let least = if a.black_wins {
        let (first, start) = (l.first, l.start);
        with_rules(&mut l, |rules| {
            least_depth(rules, &mut search, first, start, a.depth)
        })
        .ok()
        .flatten()
    } else {
        None
    };
    let elapsed = began.elapsed();
    let mut movers = Vec::new();
    let mut moves = Vec::new();
    let mut side = l.first;
    for w in a.line.windows(2) {
        moves.push(describe_move(&model, &l.engine, side, w[0], w[1]));
        movers.push(side);
        side = side.opponent();
    }
    let best_move = movers
        .iter()
        .position(|&s| s == Side::B)
        .map(|i| moves[i].clone());
    let millis = (elapsed.as_secs_f64() * 1e6).round() / 1e3;
    let steps = l.engine.steps() - steps_before;
    if args.json {
        let mut j = json!({
            "domain": args.files.domain.display().to_string(),
            "problem": args.files.problem.display().to_string(),
            "board": format!("{}x{}", model.width, model.height),
            "problem_depth": model.depth,
            "first": if model.black_first { "black" } else { "white" },
            "black_wins": a.black_wins,
            "best_move": best_move,
            "depth": a.depth,
            "least_depth": least,
            "principal_line": moves,
            "positions": search.positions(),
            "rewrites": steps,
            "millis": millis,
        });
        if auto {
            j["critical_depth"] = json!(critical);
            j["max_depth"] = json!(args.max_depth.unwrap_or(depth));
        }
        println!("{j}");
        return ExitCode::SUCCESS;
    }
    println!(
        "{}: {}x{} board, depth {} in the file, {} moves first",
        args.files.problem.display(),
        model.width,
        model.height,
        model.depth,
        side_name(l.first)
    );
    if auto {
        match critical {
            Some(d) => println!("critical depth: {d} (the least odd depth at which Black wins)"),
            None => match crate::qbf::auto_limit(&model, args.max_depth.unwrap_or(depth)) {
                (_, Some(longest)) => println!(
                    "critical depth: none (no play lasts more than {longest} plies, so no depth helps)"
                ),
                (max, None) => println!("critical depth: none up to {max} plies"),
            },
        }
    }
    if a.black_wins {
        println!("Black has a winning strategy within {} plies", a.depth);
        if let Some(k) = least {
            println!("fastest win: {k} plies");
        }
        if let Some(m) = &best_move {
            println!("winning move: {m}");
        }
        println!("principal line: {}", moves.join(" "));
    } else {
        println!(
            "Black has no winning strategy within {} plies (White wins under Definition 10)",
            a.depth
        );
    }
    println!(
        "positions: {}   rewrites: {steps}   time: {millis:.3} ms",
        search.positions()
    );
    if a.black_wins {
        let d = match GameDriver::new(&mut l.engine, &l.game) {
            Ok(d) => d,
            Err(_) => return ExitCode::SUCCESS,
        };
        let mut side = l.first;
        for (k, &c) in a.line.iter().enumerate().take(args.show_plies + 1) {
            let title = if k == 0 {
                format!("start, {} to move", side_name(l.first))
            } else {
                let t = format!("ply {k}, {} played {}", side_name(side), moves[k - 1]);
                side = side.opponent();
                t
            };
            if let Ok(Some(text)) = d.draw(&mut l.engine, c) {
                println!("\n{title}:");
                for line in text.lines() {
                    println!("    {line}");
                }
            }
        }
    }
    ExitCode::SUCCESS
}
