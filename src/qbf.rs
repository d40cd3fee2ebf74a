//! The QBF route for grid games: seed 001's lifted encoding (the `gamelang-qbf` crate) of a
//! BDDL model — read from BDDL files or from a `.game` grid game — solved by a real QBF
//! solver process (DepQBF by default). Used by `bddl solve --qbf`, `solve --qbf`,
//! `lower --to qcir|qdimacs` and `play --qbf`.

use crate::failure::{Code, Failure};
use gamelang_bddl::Model;
use gamelang_qbf::{Answer, Encoding};
use gamelang_runtime::grid::{Board, Compiled, CompiledGoals};
use serde_json::json;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// How to run the solver.
#[derive(clap::Args, Clone, Debug)]
pub struct SolverArgs {
    /// Decide with a QBF solver on seed 001's lifted encoding instead of exhaustive search.
    #[arg(long)]
    pub qbf: bool,
    /// The QDIMACS solver command; the formula's file is added as its last argument. It
    /// must exit with 10 (true) or 20 (false); with DepQBF's `--qdo` the winning first move
    /// is read from its output.
    #[arg(long, value_name = "CMD", default_value = "depqbf --qdo")]
    pub solver: String,
    /// Give the solver at most this many seconds per formula; past it the answer is
    /// unknown (never false).
    /// `inf` (or any number too large for a duration) means no limit.
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = parse_timeout)]
    pub timeout: Duration,
}

/// `--timeout SECONDS`: a non-negative number of seconds, `inf` for no limit.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if secs.is_nan() || secs < 0.0 {
        return Err(format!(
            "`{text}` is not a number of seconds (0 or more; `inf` for no limit)"
        ));
    }
    // Past what a Duration holds (`inf`, `1e20`): no limit.
    Ok(Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX))
}

impl SolverArgs {
    fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// One formula solved.
pub struct Asked {
    pub depth: u32,
    /// `Some(true/false)`, or `None` when the solver did not decide.
    pub black_wins: Option<bool>,
    /// Why the answer is unknown.
    pub unknown: Option<String>,
    /// Black's first move `(action index, x, y)` when Black moves first and wins, read
    /// from the solver's certificate and checked to win.
    pub first_move: Option<(usize, i64, i64)>,
    /// Why Black wins but no first move is shown (no certificate, or one that does not win).
    pub move_note: Option<String>,
    pub variables: usize,
    pub clauses: usize,
    pub blocks: usize,
    pub encode_seconds: f64,
    pub solver_seconds: f64,
}

/// The encoding of `model` at `depth`, refused first when it would not fit in the memory
/// budget ([`check_size`]).
pub fn encode(model: &Model, depth: u32) -> Result<Encoding, Failure> {
    check_size(model, depth)?;
    gamelang_qbf::encode(model, depth).map_err(|e| Failure::new(Code::Program, e))
}

/// Peak bytes per unit of circuit size ([`gamelang_qbf::estimated_size`]) of an encoding
/// written out: the circuit, its CNF and the QDIMACS text together (measured on tic-tac-toe
/// and Domineering at depths 400 and 800: 22 to 24 bytes; docs/benchmarks.md).
const BYTES_PER_UNIT: u64 = 24;

/// Refuse an encoding that would not fit in the memory budget (`GAMELANG_MAX_MEMORY`, by
/// default half the machine's memory), before allocating any of it: its size is
/// estimated from three small depths ([`gamelang_qbf::estimated_size`]).
pub fn check_size(model: &Model, depth: u32) -> Result<(), Failure> {
    use gamelang_runtime::engine::{memory_budget, show_bytes};
    let size =
        gamelang_qbf::estimated_size(model, depth).map_err(|e| Failure::new(Code::Program, e))?;
    let need = size.saturating_mul(BYTES_PER_UNIT);
    let budget = memory_budget();
    if need > budget {
        return Err(Failure::limit(format!(
            "the QBF encoding at depth {depth} would need about {}, more than the memory budget of {}",
            show_bytes(need),
            show_bytes(budget)
        ))
        .help("encode fewer plies (--depth D), or raise the budget: GAMELANG_MAX_MEMORY=8G (docs/language.md, Limits)"));
    }
    Ok(())
}

/// Encode `model` at `depth` and ask the solver.
pub fn ask(model: &Model, depth: u32, args: &SolverArgs) -> Result<Asked, Failure> {
    let began = Instant::now();
    let enc: Encoding = encode(model, depth)?;
    let qdimacs = enc.qdimacs();
    let stats = enc.stats();
    let encode_seconds = began.elapsed().as_secs_f64();
    let run = gamelang_qbf::run_solver(&args.solver, &qdimacs, args.timeout()).map_err(|e| {
        Failure::solver(e).help(
            "give another solver with --solver CMD (a QDIMACS solver that exits with 10 or 20)",
        )
    })?;
    if gamelang_qbf::solver::interrupted() {
        return Err(Failure::interrupted(
            "interrupted (the QBF solver was stopped)",
        ));
    }
    let (black_wins, unknown) = match &run.answer {
        Answer::True => (Some(true), None),
        Answer::False => (Some(false), None),
        Answer::Unknown(why) => (None, Some(why.clone())),
    };
    let mut first_move = if black_wins == Some(true) && model.black_first {
        enc.first_move(&run.assignment)
    } else {
        None
    };
    let mut move_note = None;
    if black_wins == Some(true) && model.black_first && first_move.is_none() {
        move_note = Some("the solver gave no certificate (DepQBF needs --qdo)".to_string());
    }
    if let Some((k, x, y)) = first_move {
        // The solver's move must be a legal move of the position: anything else is a bug
        // in the encoding, and is said so rather than shown.
        let board = initial_board(model).map_err(Failure::usage)?;
        let Some(next) = next_board(model, &board, true, k, x, y) else {
            return Err(Failure::bug(format!(
                "the solver's first move {} is not legal here (a bug in gamelang's encoding)",
                move_name(model, true, k, x, y)
            )));
        };
        // The certificate's move must win within the remaining plies before it is shown.
        // One that does not contradicts the solver's own answer: a true formula's
        // certificate names a winning first move. So the answer is not given at all.
        match move_wins(model, &next, depth, args) {
            Ok(true) => {}
            Ok(false) => {
                return Err(Failure::solver(format!(
                    "the solver's answer does not check out: it says Black wins within {depth} plies, \
                     but the first move of its certificate, {}, does not win",
                    move_name(model, true, k, x, y)
                ))
                .help(
                    "the solver (or gamelang's encoding) is wrong here; try another solver with --solver CMD, \
                     or `gamelang solve` on the converted game (`gamelang bddl convert`)",
                ));
            }
            Err(why) => {
                move_note = Some(format!(
                    "the solver's move {} could not be checked ({why})",
                    move_name(model, true, k, x, y)
                ));
                first_move = None;
            }
        }
    }
    Ok(Asked {
        depth,
        black_wins,
        unknown,
        first_move,
        move_note,
        variables: stats.vars as usize,
        clauses: stats.clauses,
        blocks: stats.blocks,
        encode_seconds,
        solver_seconds: run.seconds,
    })
}

/// Positions the native check of a solver's first move may visit before it asks the
/// solver about the position after the move instead.
const CHECK_BUDGET: usize = 200_000;

/// Does Black, having moved to `next` at the first of `depth` plies, win (Definition 10)?
/// A memoised search of the `depth - 1` plies left; past [`CHECK_BUDGET`] positions the
/// solver is asked the same question about `next` (a question of truth, which needs no
/// certificate).
fn move_wins(model: &Model, next: &Board, depth: u32, args: &SolverArgs) -> Result<bool, String> {
    if goal_holds(model, next, true) {
        return Ok(true);
    }
    let left = depth.saturating_sub(1);
    let mut search = Search::new(model)?;
    if let Some(v) = search.win(next, left, false) {
        return Ok(v);
    }
    let mut here = model.clone();
    here.init = next.cells();
    here.black_first = false;
    here.depth = left;
    let enc = gamelang_qbf::encode(&here, left)?;
    let run = gamelang_qbf::run_solver(&args.solver, &enc.qdimacs(), args.timeout())?;
    match run.answer {
        Answer::True => Ok(true),
        Answer::False => Ok(false),
        Answer::Unknown(why) => Err(why),
    }
}

/// Definition 10 by memoised search, as `bddl solve` answers it: `win(b, d, black)` is
/// whether Black wins within `d` plies from `b` with `black` (or White) to move.
pub struct Search {
    black: Compiled,
    white: Compiled,
    black_goals: CompiledGoals,
    white_goals: CompiledGoals,
    memo: std::collections::HashMap<(Board, u32, bool), bool>,
}

impl Search {
    pub fn new(model: &Model) -> Result<Search, String> {
        let (w, h) = (model.width, model.height);
        Ok(Search {
            black: Compiled::new(model.black_actions.clone(), w, h)?,
            white: Compiled::new(model.white_actions.clone(), w, h)?,
            black_goals: CompiledGoals::new(model.black_goals.clone(), w, h)?,
            white_goals: CompiledGoals::new(model.white_goals.clone(), w, h)?,
            memo: Default::default(),
        })
    }

    /// `None` once more than [`CHECK_BUDGET`] positions have been visited.
    pub fn win(&mut self, b: &Board, d: u32, black: bool) -> Option<bool> {
        if d == 0 {
            return Some(false);
        }
        let key = (b.clone(), d, black);
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        if self.memo.len() >= CHECK_BUDGET {
            return None;
        }
        let v = if black {
            let mut v = false;
            for (_, _, _, n) in self.black.successors(b) {
                if self.black_goals.holds(&n) || self.win(&n, d - 1, false)? {
                    v = true;
                    break;
                }
            }
            v
        } else {
            let mut v = true;
            for (_, _, _, n) in self.white.successors(b) {
                if self.white_goals.holds(&n) || !self.win(&n, d - 1, true)? {
                    v = false;
                    break;
                }
            }
            v
        };
        self.memo.insert(key, v);
        Some(v)
    }
}

/// Positions [`longest_play`] may visit before it gives up.
const LONGEST_BUDGET: usize = 1_000_000;

/// The most plies any play from the model's start can last (a player who cannot move
/// spends one more ply, as Definition 10 counts it), if it is bounded and found within
/// [`LONGEST_BUDGET`] positions: `--depth auto` need not try depths beyond it, since no
/// play is cut short there. `None` for a game whose plays can repeat a position.
pub fn longest_play(model: &Model) -> Option<u64> {
    struct Walk {
        moves: [Compiled; 2],
        goals: [CompiledGoals; 2],
        /// (board, Black to move) → longest play; `None` while on the current path.
        memo: std::collections::HashMap<(Board, bool), Option<u64>>,
    }
    impl Walk {
        fn height(&mut self, b: &Board, black: bool) -> Option<u64> {
            let key = (b.clone(), black);
            match self.memo.get(&key) {
                Some(Some(h)) => return Some(*h),
                Some(None) => return None, // a cycle
                None => {}
            }
            if self.memo.len() >= LONGEST_BUDGET {
                return None;
            }
            self.memo.insert(key.clone(), None);
            let side = usize::from(!black);
            let mut h = 1; // no move: the failed attempt is a ply
            for (_, _, _, n) in self.moves[side].successors(b) {
                let rest = if self.goals[side].holds(&n) {
                    0
                } else {
                    self.height(&n, !black)?
                };
                h = h.max(1 + rest);
            }
            self.memo.insert(key, Some(h));
            Some(h)
        }
    }
    let (w, h) = (model.width, model.height);
    let mut walk = Walk {
        moves: [
            Compiled::new(model.black_actions.clone(), w, h).ok()?,
            Compiled::new(model.white_actions.clone(), w, h).ok()?,
        ],
        goals: [
            CompiledGoals::new(model.black_goals.clone(), w, h).ok()?,
            CompiledGoals::new(model.white_goals.clone(), w, h).ok()?,
        ],
        memo: Default::default(),
    };
    walk.height(&initial_board(model).ok()?, model.black_first)
}

/// `--depth auto`'s largest depth: `max`, or less when no play lasts that long (the least
/// odd depth at least as long as the longest play; the answer is the same beyond it).
pub fn auto_limit(model: &Model, max: u64) -> (u64, Option<u64>) {
    match longest_play(model) {
        Some(l) if (l | 1) < max => (l | 1, Some(l)),
        _ => (max, None),
    }
}

/// `occupy(2,3)`.
pub fn move_name(model: &Model, black: bool, k: usize, x: i64, y: i64) -> String {
    let actions = model.actions(black);
    let name = actions.get(k).map(|a| a.name.as_str()).unwrap_or("?");
    format!("{name}({x},{y})")
}

/// The model's initial board.
pub fn initial_board(model: &Model) -> Result<Board, String> {
    let mut b = Board::new(model.width, model.height)?;
    for &(p, x, y) in &model.init {
        b.set(x, y, p);
    }
    Ok(b)
}

/// The moves of a player: (action index, x, y, resulting board), each board once.
pub fn legal_moves(model: &Model, board: &Board, black: bool) -> Vec<(usize, i64, i64, Board)> {
    let actions = model.actions(black);
    let Ok(c) = Compiled::new(actions.to_vec(), model.width, model.height) else {
        return Vec::new();
    };
    let mut seen: Vec<Board> = Vec::new();
    let mut out = Vec::new();
    for (k, x, y, b) in c.successors(board) {
        if !seen.contains(&b) {
            seen.push(b.clone());
            out.push((k, x, y, b));
        }
    }
    out
}

/// The board after action `k` at (x, y), if that is a legal move.
pub fn next_board(
    model: &Model,
    board: &Board,
    black: bool,
    k: usize,
    x: i64,
    y: i64,
) -> Option<Board> {
    let actions = model.actions(black);
    let c = Compiled::new(actions.to_vec(), model.width, model.height).ok()?;
    c.successors(board)
        .into_iter()
        .find(|&(k2, x2, y2, _)| (k2, x2, y2) == (k, x, y))
        .map(|(_, _, _, b)| b)
}

/// Does the player's goal hold on `board`?
pub fn goal_holds(model: &Model, board: &Board, black: bool) -> bool {
    let goals = model.goals(black);
    CompiledGoals::new(goals.clone(), model.width, model.height).is_ok_and(|g| g.holds(board))
}

/// A board drawn for `gamelang play` (see `Board::draw`).
pub fn draw(board: &Board) -> String {
    board.draw()
}

/// `--depth` for the QBF route: a number, `auto`, or the model's own depth.
pub enum DepthSpec {
    Fixed(u32),
    Auto { max: u32 },
}

/// Solve and print, as `bddl solve` does for exhaustive search (same JSON keys, plus the
/// encoding's size and the solver's time).
pub fn solve_and_print(
    model: &Model,
    what: &str,
    depth: DepthSpec,
    json_out: bool,
    args: &SolverArgs,
) -> ExitCode {
    // Definition 9: refuse a problem whose initial state is already won (the exhaustive
    // route refuses it too, so the two never answer different questions).
    if let Some((black, k)) = model.goal_holding_initially() {
        return Failure::new(
            Code::Program,
            format!(
                "{}'s goal {} already holds in the initial position",
                if black { "Black" } else { "White" },
                k + 1
            ),
        )
        .help("seed 001's Definition 9 requires that the initial state is won by neither player; change the start or the goal")
        .report();
    }
    // Ctrl-C stops the solver (and what it started) and ends with the interrupted status;
    // a second one, during the encoding, ends the program at once.
    let _ = ctrlc::set_handler(|| {
        if gamelang_qbf::solver::interrupt() {
            std::process::exit(130);
        }
    });
    let began = Instant::now();
    let mut asked = Vec::new();
    let mut critical = None;
    let auto = matches!(depth, DepthSpec::Auto { .. });
    let result = match depth {
        DepthSpec::Fixed(d) => ask(model, d, args).map(|a| asked.push(a)),
        DepthSpec::Auto { max } => (|| {
            let max = auto_limit(model, max as u64).0 as u32;
            let mut d = 1;
            while d <= max {
                let a = ask(model, d, args)?;
                let (wins, unknown) = (a.black_wins, a.unknown.is_some());
                asked.push(a);
                if wins == Some(true) {
                    critical = Some(d);
                    break;
                }
                if unknown {
                    break;
                }
                d += 2;
            }
            Ok(())
        })(),
    };
    if let Err(e) = result {
        return e.report();
    }
    let Some(last) = asked.last() else {
        return Failure::usage("no depth to try (--max-depth below 1)")
            .help("give --max-depth 1 or more")
            .report();
    };
    let solver_seconds: f64 = asked.iter().map(|a| a.solver_seconds).sum();
    let best_move = last
        .first_move
        .map(|(k, x, y)| move_name(model, true, k, x, y));
    let unknown = last.unknown.clone();
    let millis = (began.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    if json_out {
        let mut j = json!({
            "problem": what,
            "board": format!("{}x{}", model.width, model.height),
            "problem_depth": model.depth,
            "first": if model.black_first { "black" } else { "white" },
            "method": "qbf",
            "solver": args.solver,
            "black_wins": last.black_wins,
            "answer": match last.black_wins { Some(true) => "true", Some(false) => "false", None => "unknown" },
            "best_move": best_move,
            "depth": last.depth,
            "encoding": {
                "variables": last.variables,
                "clauses": last.clauses,
                "quantifier_blocks": last.blocks,
            },
            "encode_seconds": (last.encode_seconds * 1e3).round() / 1e3,
            "solver_seconds": (solver_seconds * 1e3).round() / 1e3,
            "millis": millis,
        });
        if let Some(why) = &unknown {
            j["unknown_reason"] = json!(why);
        }
        if let Some(note) = &last.move_note {
            j["best_move_note"] = json!(note);
        }
        if auto {
            j["critical_depth"] = json!(critical);
            j["depths_tried"] = json!(asked
                .iter()
                .map(|a| json!({"depth": a.depth, "black_wins": a.black_wins, "solver_seconds": (a.solver_seconds * 1e3).round() / 1e3}))
                .collect::<Vec<_>>());
        }
        println!("{j}");
        return ExitCode::SUCCESS;
    }
    println!(
        "{what}: {}x{} board, depth {} in the file, {} moves first (QBF: {})",
        model.width,
        model.height,
        model.depth,
        if model.black_first { "Black" } else { "White" },
        args.solver
    );
    for a in &asked {
        println!(
            "depth {}: {} ({} variables, {} clauses, {} quantifier blocks; solver {:.3} s)",
            a.depth,
            match a.black_wins {
                Some(true) => "Black has a winning strategy".to_string(),
                Some(false) => "Black has no winning strategy".to_string(),
                None => format!("unknown ({})", a.unknown.clone().unwrap_or_default()),
            },
            a.variables,
            a.clauses,
            a.blocks,
            a.solver_seconds
        );
    }
    if auto {
        match (critical, &unknown) {
            (Some(d), _) => println!("critical depth: {d}"),
            (None, Some(_)) => println!("critical depth: unknown (the solver did not decide)"),
            (None, None) => match longest_play(model) {
                Some(l) if l <= last.depth as u64 => println!(
                    "critical depth: none (no play lasts more than {l} plies, so no depth helps)"
                ),
                _ => println!("critical depth: none up to {}", last.depth),
            },
        }
    }
    if let Some(m) = best_move {
        println!("winning move: {m}");
    } else if let Some(note) = &last.move_note {
        println!("winning move: not known: {note}");
    }
    ExitCode::SUCCESS
}
