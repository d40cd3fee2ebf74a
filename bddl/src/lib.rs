//! BDDL, seed 001's Board-game Domain Definition Language (sections 3.1-3.3): a domain
//! file (Black's and White's actions) and a problem file (board size, initial cells, depth,
//! goals, who starts), as the corpus in `shared/corpus/bddl` writes them (copied into
//! `bddl/tests/corpus`, whose INDEX.md lists every irregularity the reader accepts).
//!
//! * [`parse`] reads a domain and a problem file into a [`Model`], with located errors;
//! * [`Model::domain_text`] / [`Model::problem_text`] write it back in the corpus' syntax;
//! * [`Model::to_game`] writes it as a gamelang grid game (stdlib/grid.game), which is how
//!   `gamelang bddl solve` solves it: the rewriting engine, through GRID.
//!
//! Atoms, actions and goals are the board crate's ([`gamelang_board`]), the forms the
//! runtime compiles GRID terms to, so a model read from BDDL and one read from a loaded
//! `.game` compare directly.

pub use gamelang_board::{Action, Atom, Coord, Goals, Piece};

mod parse;
mod write;

pub use parse::parse;

/// A BDDL game: domain and problem together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    /// Columns (x, 1 = left) and rows (y, 1 = top) of the board.
    pub width: i64,
    pub height: i64,
    /// The initial cells that are not open, in file order.
    pub init: Vec<(Piece, i64, i64)>,
    pub black_actions: Vec<Action>,
    pub white_actions: Vec<Action>,
    /// Disjunctions of conjunctions; empty = never reached (`False`).
    pub black_goals: Goals,
    pub white_goals: Goals,
    /// Plies (the problem's `#depth`).
    pub depth: u32,
    /// Black moves first (no `#blackturn`, or `#blackturn first`).
    pub black_first: bool,
    /// A player who cannot move loses (BDDL's rule, always true for a BDDL file); false
    /// for a `.game` grid game that says `eq no-move-loses = false .` (a full board is a
    /// draw, as in tic-tac-toe and Connect-4).
    pub stuck_loses: bool,
}

impl Model {
    /// Black's actions (`black`) or White's.
    pub fn actions(&self, black: bool) -> &[Action] {
        if black {
            &self.black_actions
        } else {
            &self.white_actions
        }
    }

    /// Black's goals (`black`) or White's.
    pub fn goals(&self, black: bool) -> &Goals {
        if black {
            &self.black_goals
        } else {
            &self.white_goals
        }
    }

    /// The sanity condition of seed 001's Definition 9 that can be checked on the input:
    /// the initial state is won by neither player. Returns the first goal that already
    /// holds on the initial board, as (Black's?, index in the player's goals). Definition
    /// 10 checks Black's goal only after Black's move, so on such a problem the exhaustive
    /// and QBF routes would answer different questions; both refuse it instead.
    pub fn goal_holding_initially(&self) -> Option<(bool, usize)> {
        let mut board = gamelang_board::Board::new(self.width, self.height).ok()?;
        for &(p, x, y) in &self.init {
            board.set(x, y, p);
        }
        for black in [true, false] {
            for (k, g) in self.goals(black).iter().enumerate() {
                if gamelang_board::holds(&board, std::slice::from_ref(g)) {
                    return Some((black, k));
                }
            }
        }
        None
    }
}
