//! `gamelang lower GAME --to bddl|qcir|qdimacs`: a grid game written in gamelang (with
//! stdlib GRID) written out as a BDDL domain and problem file in the corpus' syntax, or a
//! grid game (a `.game` file or a BDDL domain and problem) as seed 001's lifted QBF
//! encoding in QCIR or QDIMACS.
//!
//! The game is read the way the solver sees it: its `start` board and the actions and goals
//! GRID evaluates (`black-acts`, `white-acts`, `black-wins`, `white-wins`), reduced by the
//! engine after `--set` parameters, then decoded by the runtime's grid compiler — so what is
//! written is the game that `gamelang solve` plays.

use crate::app;
use crate::failure::Failure;
use gamelang_bddl::Model;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, Session};
use gamelang_runtime::{Engine, TermId};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// A BDDL domain file (`domain.ig`) and problem file (`NAME.ig`), into --out DIR.
    Bddl,
    /// Seed 001's lifted QBF encoding in the QCIR-G14 format.
    Qcir,
    /// The same encoding in QDIMACS (Tseitin-transformed).
    Qdimacs,
}

#[derive(clap::Args)]
pub struct LowerArgs {
    /// A `.game` file declaring a grid game (one using stdlib GRID) or, for qcir and
    /// qdimacs, a BDDL domain and problem file.
    #[arg(num_args = 1..=2, required = true)]
    pub files: Vec<PathBuf>,
    /// The format to write.
    #[arg(long, value_enum)]
    pub to: Target,
    /// Where to write: a directory for bddl (created if missing), a file for qcir and
    /// qdimacs (default: standard output).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Which game of the file (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Set a game parameter (repeatable), e.g. `--set width=5`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// The depth: the problem's `#depth` for bddl, the plies encoded for qcir and qdimacs
    /// (default: a BDDL problem's `#depth`, a game's `depth` constant if it declares one,
    /// otherwise the number of cells).
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
}

pub fn run(args: LowerArgs) -> ExitCode {
    if args.to == Target::Bddl && args.files.len() != 1 {
        return Failure::usage("--to bddl writes a `.game` grid game as BDDL: give one .game file")
            .report();
    }
    if args.to == Target::Bddl && args.depth == Some(0) {
        // (BDDL's `#depth` is positive: the file would not be read back.)
        return Failure::usage(
            "--depth 0 cannot be written to BDDL: a problem's #depth is at least 1",
        )
        .report();
    }
    let model = match model_from_files(&args.files, args.game.as_deref(), &args.set, args.depth) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let write = |path: &std::path::Path, text: String| -> Result<(), ExitCode> {
        std::fs::write(path, text)
            .map_err(|e| Failure::io(format!("cannot write {}: {e}", path.display())).report())
    };
    match args.to {
        Target::Bddl => {
            let Some(out) = &args.out else {
                return Failure::usage("--to bddl needs --out DIR")
                    .help("name the directory the domain and problem files are written to")
                    .report();
            };
            if !model.stuck_loses {
                crate::failure::warning(
                    "the game says a player who cannot move does not lose (`no-move-loses` is not true: a full board is a draw); BDDL cannot say that, and in the files written a player who cannot move loses",
                );
            }
            if let Err(e) = std::fs::create_dir_all(out) {
                return Failure::io(format!("cannot create {}: {e}", out.display())).report();
            }
            let name = args.files[0]
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "problem".into());
            let name = args.game.clone().unwrap_or(name);
            let domain = out.join("domain.ig");
            let problem = out.join(format!("{name}.ig"));
            for (path, text) in [
                (&domain, model.domain_text()),
                (&problem, model.problem_text()),
            ] {
                if let Err(code) = write(path, text) {
                    return code;
                }
            }
            println!("wrote {} and {}", domain.display(), problem.display());
        }
        Target::Qcir | Target::Qdimacs => {
            let enc = match crate::qbf::encode(&model, model.depth) {
                Ok(e) => e,
                Err(e) => return e.report(),
            };
            let text = if args.to == Target::Qcir {
                enc.qcir()
            } else {
                enc.qdimacs()
            };
            match &args.out {
                Some(path) => {
                    if let Err(code) = write(path, text) {
                        return code;
                    }
                    let s = enc.stats();
                    eprintln!(
                        "wrote {} (depth {}: {} variables, {} clauses, {} quantifier blocks)",
                        path.display(),
                        model.depth,
                        s.vars,
                        s.clauses,
                        s.blocks
                    );
                }
                None => print!("{text}"),
            }
        }
    }
    ExitCode::SUCCESS
}

/// The BDDL model of the files given on a command line: a `.game` grid game (its first
/// game, or the one `game` names, with parameters set), or a BDDL domain and problem. With
/// `depth`, the model's depth is replaced.
pub fn model_from_files(
    files: &[PathBuf],
    game: Option<&str>,
    set: &[String],
    depth: Option<u32>,
) -> Result<Model, ExitCode> {
    let mut model = if files.len() == 2 {
        // (A BDDL problem has no game to pick and no parameters: the flags would be
        // ignored.)
        if game.is_some() || !set.is_empty() {
            return Err(Failure::usage(
                "--game and --set are for a `.game` file; a BDDL domain and problem have no games or parameters to choose",
            )
            .help("edit the problem file (its board size, #depth, init) instead")
            .report());
        }
        crate::bddl::read_model(&crate::bddl::Files {
            domain: files[0].clone(),
            problem: files[1].clone(),
        })?
    } else {
        if looks_like_bddl(&files[0]) {
            return Err(Failure::usage(format!(
                "`{}` is a BDDL file (it starts with `#`): a BDDL game is a domain and a problem file, given in that order (`gamelang bddl solve DOMAIN PROBLEM`, `gamelang lower DOMAIN PROBLEM`, `gamelang play DOMAIN PROBLEM --qbf`)",
                files[0].display()
            ))
            .report());
        }
        let mut session = app::load(&files[0])?;
        let fail = |session: &Session, d: Diag| crate::failure::diag(&session.sources, &d);
        let game = app::game_with_parameters(&mut session, &files[0], game, set)
            .map_err(|d| fail(&session, d))?;
        model_of(&mut session, &game, depth).map_err(|d| fail(&session, d))?
    };
    if let Some(d) = depth {
        model.depth = d;
    }
    Ok(model)
}

/// Does the file start like a BDDL domain or problem (`#blackactions`, `#boardsize`), where
/// a `.game` file cannot?
fn looks_like_bddl(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.trim_start().starts_with('#'))
}

/// Reduce `text` in the game's module.
fn value(
    session: &mut Session,
    engine: &mut Engine,
    game: &Game,
    text: &str,
) -> Result<TermId, Diag> {
    let pat = session.parse_term(game.module, "lower", text, None)?;
    let t = engine.build(&pat, &[]);
    engine
        .reduce(t)
        .map_err(|e| Diag::error(format!("cannot evaluate `{text}`: {}", engine.describe(&e))))
}

/// Where the grid game's own module declares the constant `name` (`black-actions`): the
/// module `X` of the game's `GRID{X}`.
fn declared(
    sig: &gamelang_lang::program::Signature,
    game: &Game,
    name: &str,
) -> Option<gamelang_lang::span::Span> {
    let gamelang_lang::program::Pat::App(op, _) = &game.next_config else {
        return None;
    };
    let grid = &sig.op(*op).module;
    let module = grid.strip_prefix("GRID{")?.strip_suffix('}')?;
    sig.ops
        .iter()
        .find(|o| o.name == name && o.args.is_empty() && o.module == module)
        .and_then(|o| o.span)
}

/// The BDDL model of a loaded grid game.
pub fn model_of(session: &mut Session, game: &Game, depth: Option<u32>) -> Result<Model, Diag> {
    let not_grid = || {
        Diag::error(format!("game `{}` is not a grid game", game.name))
            .note("only games written with the standard library's GRID module (stdlib/grid.game) can be lowered")
    };
    let mut engine = app::engine(session, &game.modules());
    let start_t = engine.build(&game.start, &[]);
    let start = engine.reduce(start_t).map_err(|e| {
        Diag::error(format!(
            "cannot evaluate the start: {}",
            engine.describe(&e)
        ))
    })?;
    let board = engine.grid_board(start).ok_or_else(not_grid)?;
    let first = engine.build(&game.first, &[]);
    let first = engine
        .reduce(first)
        .map_err(|e| Diag::error(engine.describe(&e)))?;
    let black_first = engine.store().op(first) == Some(game.players[0]);
    let mut get = |text: &str| value(session, &mut engine, game, text).map_err(|_| not_grid());
    let terms = [
        get("black-acts")?,
        get("white-acts")?,
        get("black-wins")?,
        get("white-wins")?,
    ];
    let loses = get("no-move-loses")?;
    let declared_depth = value(session, &mut engine, game, "depth")
        .ok()
        .and_then(|t| engine.store().int(t));
    let ops = engine.grid_ops().ok_or_else(not_grid)?.clone();
    let sig = &engine.program().sig;
    let store = engine.store();
    let bad = |e: String| Diag::error(format!("game `{}`: {e}", game.name));
    let black_actions = ops.actions(sig, store, terms[0]).map_err(bad)?;
    let white_actions = ops.actions(sig, store, terms[1]).map_err(bad)?;
    let black_goals = ops.goals(sig, store, terms[2]).map_err(bad)?;
    let white_goals = ops.goals(sig, store, terms[3]).map_err(bad)?;
    // Line capture and counted goals (Othello) are beyond BDDL and the QBF encoding.
    let captures = black_actions
        .iter()
        .chain(&white_actions)
        .any(|a| !a.captures.is_empty());
    let counts = ops.counts(store, terms[2]) || ops.counts(store, terms[3]);
    if captures || counts {
        let (what, op) = if captures {
            (
                "captures along lines (`flanks`, `flip-lines`)",
                "black-actions",
            )
        } else {
            ("counts pieces at the end (`most-pieces`)", "black-goals")
        };
        let text = format!(
            "game `{}` {what}, which BDDL and the QBF encoding cannot say",
            game.name
        );
        return Err(match declared(sig, game, op) {
            Some(span) => Diag::at(span, text, "declared here"),
            None => Diag::error(text),
        });
    }
    // (`false`: a player who cannot move does not lose; the QBF encoding then encodes the
    // draw, and BDDL, which cannot say it, gets a warning from `lower --to bddl`.)
    let stuck_loses = sig.true_op.is_some() && store.op(loses) == sig.true_op;
    let init = board.cells();
    let depth = depth
        .or(declared_depth.and_then(|d| u32::try_from(d).ok()))
        .unwrap_or(board.width * board.height);
    Ok(Model {
        width: board.width as i64,
        height: board.height as i64,
        init,
        black_actions,
        white_actions,
        black_goals,
        white_goals,
        depth,
        black_first,
        stuck_loses,
    })
}
