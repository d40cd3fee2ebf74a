//! `gamelang play GAME --agent SPEC`: a person plays any `.game` game against one of seed
//! 004's agents (see `play_agent.rs`).
//!
//! `gamelang play GAME --qbf`: a person plays White against the QBF strategy for Black — seed
//! 001's strategy validation by interactive play. Before each Black move the position is
//! encoded afresh (the current board as the initial state, the plies left as the depth) and
//! the solver asked for Black's move; the board is drawn after every move, and at the end
//! the result is checked on the board: Black's goal holds, or White could not move.
//! Exit status: 0 Black won (verified), 1 it did not (the strategy failed, or the solver
//! found none), 2 the input ended or a piped line was not a move.

use crate::failure::{Code, Failure};
use crate::qbf::{self, SolverArgs};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct PlayArgs {
    /// A `.game` grid game, or a BDDL domain and problem file.
    #[arg(num_args = 1..=2, required = true)]
    pub files: Vec<PathBuf>,
    /// Plies of play (default: the problem's `#depth`, or the game's `depth` constant).
    #[arg(long, value_name = "D")]
    pub depth: Option<u32>,
    /// With a `.game` file: set a game parameter (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Play against this agent, e.g. `mcts:2000` or `alphabeta:3` (`gamelang agents` lists
    /// them); any `.game` game.
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["qbf", "depth"])]
    pub agent: Option<String>,
    /// With --agent: the side you play, B or R (default: the side that moves first).
    #[arg(long = "as", value_name = "B|R", requires = "agent")]
    pub side: Option<String>,
    /// With --agent: the seed of the agent's random choices [default: 1].
    #[arg(long, requires = "agent")]
    pub seed: Option<u64>,
    /// Which game of the file (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    #[command(flatten)]
    pub solver: SolverArgs,
}

pub fn run(args: PlayArgs) -> ExitCode {
    if let Some(agent) = args.agent {
        if args.files.len() != 1 {
            return Failure::usage("`gamelang play --agent` takes one `.game` file").report();
        }
        return crate::play_agent::run(crate::play_agent::Options {
            game: crate::agents::GameArgs {
                file: args.files[0].clone(),
                game: args.game,
                set: args.set,
                seed: args.seed.unwrap_or(1),
            },
            agent,
            side: args.side,
        });
    }
    // (clap leaves `requires = "agent"` unchecked when `--qbf`, which conflicts with
    // `--agent`, is given: `--as B` was ignored without a word.)
    if args.side.is_some() {
        return Failure::usage(
            "--as chooses your side against an agent (--agent); with --qbf you play White against the solver's Black",
        )
        .report();
    }
    if args.seed.is_some() {
        return Failure::usage(
            "--seed seeds an agent's random choices (--agent); the QBF strategy (--qbf) draws none",
        )
        .report();
    }
    if !args.solver.qbf {
        return Failure::usage("`gamelang play` plays against an agent (--agent SPEC, e.g. --agent mcts:1000; `gamelang agents` lists them) or against the QBF strategy on a grid game (--qbf)").report();
    }
    let mut model = match crate::lower::model_from_files(
        &args.files,
        args.game.as_deref(),
        &args.set,
        args.depth,
    ) {
        Ok(m) => m,
        Err(code) => return code,
    };
    if let Some(d) = args.depth {
        model.depth = d;
    }
    let mut board = match qbf::initial_board(&model) {
        Ok(b) => b,
        Err(e) => return Failure::new(Code::Program, e).report(),
    };
    let interactive = std::io::stdin().is_terminal();
    let mut lines = std::io::stdin().lock().lines();
    let mut left = model.depth;
    let mut black = model.black_first;
    println!(
        "You play White; Black plays the QBF solver's strategy ({} plies).",
        model.depth
    );
    println!("{}", qbf::draw(&board));
    if left == 0 && !qbf::goal_holds(&model, &board, true) {
        // No ply to play and no goal: no strategy was asked for, so none failed.
        println!(
            "Black has no winning strategy within 0 plies: its goal does not hold at the start."
        );
        return ExitCode::FAILURE;
    }
    loop {
        if left == 0 {
            println!(
                "The plies are used up without Black's goal: White wins — the strategy FAILED."
            );
            return ExitCode::FAILURE;
        }
        if black {
            let mut here = model.clone();
            here.init = board.cells();
            here.black_first = true;
            here.depth = left;
            let asked = match qbf::ask(&here, left, &args.solver) {
                Ok(a) => a,
                Err(e) => return e.report(),
            };
            match asked.black_wins {
                Some(true) => {}
                Some(false) => {
                    println!("The solver says Black has no winning strategy within {left} plies from here.");
                    return ExitCode::FAILURE;
                }
                None => {
                    println!(
                        "The solver did not decide ({}).",
                        asked.unknown.unwrap_or_default()
                    );
                    return ExitCode::FAILURE;
                }
            }
            let Some((k, x, y)) = asked.first_move else {
                return Failure::solver("the solver said true but gave no move")
                    .help("does the solver print its assignment? DepQBF needs --qdo")
                    .report();
            };
            let Some(next) = qbf::next_board(&model, &board, true, k, x, y) else {
                return Failure::bug("the solver's move is not legal (a bug in the encoding)")
                    .status(1)
                    .report();
            };
            board = next;
            println!("Black plays {}:", qbf::move_name(&model, true, k, x, y));
            println!("{}", qbf::draw(&board));
            if qbf::goal_holds(&model, &board, true) {
                println!("Black's goal holds: Black wins (verified on the board).");
                return ExitCode::SUCCESS;
            }
        } else {
            let moves = qbf::legal_moves(&model, &board, false);
            if moves.is_empty() {
                if model.stuck_loses {
                    println!("White cannot move: Black wins (verified: no legal White move).");
                    return ExitCode::SUCCESS;
                }
                // (`no-move-loses` false: a full board is a draw.)
                println!("White cannot move: a draw, no win for Black — the strategy FAILED.");
                return ExitCode::FAILURE;
            }
            for (i, (k, x, y, _)) in moves.iter().enumerate() {
                println!(
                    "  {:>2}  {}",
                    i + 1,
                    qbf::move_name(&model, false, *k, *x, *y)
                );
            }
            let choice = loop {
                if interactive {
                    print!("your move (number or name): ");
                    let _ = std::io::stdout().flush();
                }
                let line = match lines.next() {
                    Some(Ok(line)) => line,
                    Some(Err(e)) => {
                        return abandoned(&format!("cannot read a move ({e}): game abandoned"))
                    }
                    None => {
                        return abandoned("the input ended before the game did: game abandoned")
                    }
                };
                let line = line.trim().to_string();
                if let Ok(n) = line.parse::<usize>() {
                    if (1..=moves.len()).contains(&n) {
                        break n - 1;
                    }
                }
                if let Some(i) = moves
                    .iter()
                    .position(|(k, x, y, _)| qbf::move_name(&model, false, *k, *x, *y) == line)
                {
                    break i;
                }
                let refused = format!("not a move here: `{line}` (type its number or name)");
                if !interactive {
                    // A piped script with a mistake: not a verdict on the strategy.
                    return abandoned(&format!("{refused}; game abandoned"));
                }
                eprintln!("{refused}");
            };
            let (k, x, y, next) = moves[choice].clone();
            board = next;
            println!("White plays {}:", qbf::move_name(&model, false, k, x, y));
            println!("{}", qbf::draw(&board));
            if qbf::goal_holds(&model, &board, false) {
                println!("White's goal holds: White wins — the strategy FAILED.");
                return ExitCode::FAILURE;
            }
        }
        black = !black;
        left -= 1;
    }
}

/// Exit status 2 for a game the input abandoned (it ended early, or a piped line was not a
/// move): 1 is kept for a strategy that failed, so that a script can tell a refuted
/// strategy from its own mistake.
fn abandoned(why: &str) -> ExitCode {
    eprintln!("{why}");
    ExitCode::from(2)
}
