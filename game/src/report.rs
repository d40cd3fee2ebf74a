//! Answers as plain data: what a solver found, for one renderer (`src/report.rs` of the
//! command-line tool, the REPL) to print as text or JSON. Configurations are terms of the
//! engine that solved the game.

use crate::side::{Side, Verdict};
use gamelang_runtime::term::TermId;
use std::time::Duration;

/// The result of solving a game from one position.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub start: TermId,
    pub to_move: Side,
    pub winner: Verdict,
    /// The successor the player to move should choose, when that player is the winner;
    /// `None` when the player to move loses (every move loses), in a draw, or when play
    /// has halted.
    pub best_move: Option<TermId>,
    /// Configurations from `start` under the principal line: the winner plays its first
    /// winning move (in the successor set's order), the loser its first move; the players
    /// alternate, starting with `to_move`. Ends at a halted position.
    pub line: Vec<TermId>,
    /// Distinct positions (player, configuration) whose outcome this solve computed.
    pub positions: usize,
    /// Is the line depth-optimal (fastest win, longest defence)? `false` when finding it
    /// would have taken more than the line budget; the line then has the winner play its
    /// first winning move and the loser its first move.
    pub depth_optimal: bool,
    /// Rewrite steps taken.
    pub steps: u64,
    pub elapsed: Duration,
}

impl Outcome {
    /// The player who makes ply `k` (1-based) of the principal line.
    pub fn mover(&self, k: usize) -> Side {
        if !k.is_multiple_of(2) {
            self.to_move
        } else {
            self.to_move.opponent()
        }
    }
}

/// The answer to the bounded question: can the player to move force a win within `plies`?
#[derive(Clone, Debug)]
pub struct Bounded {
    pub start: TermId,
    pub to_move: Side,
    pub max_depth: u64,
    pub wins: bool,
    pub positions: usize,
    pub steps: u64,
    pub elapsed: Duration,
}

/// The optimal score (`value` of VALUE) from a position.
#[derive(Clone, Debug)]
pub struct Valued {
    pub start: TermId,
    pub to_move: Side,
    pub value: Value,
    /// `Some(D)`: the value when play is cut off after D plies (`--value --max-depth D`),
    /// a position still open then being worth the game's `eval`.
    pub max_depth: Option<u64>,
    pub positions: usize,
    pub steps: u64,
    pub elapsed: Duration,
}

/// A value a solver reports: a game's score under best play. Integers today; the type is
/// the place for what comes next (probabilities of chance games as exact rationals or
/// floats, values per player of n-player games), so that reports and renderers name one
/// type rather than `i64`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// An integer score, counted for B (B maximises it, R minimises it).
    Int(i64),
}

impl Value {
    /// The integer, for a value that is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(n) => Some(*n),
        }
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl PartialEq<i64> for Value {
    fn eq(&self, other: &i64) -> bool {
        self.as_int() == Some(*other)
    }
}

/// As the text output prints it (`-3`).
impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
        }
    }
}
