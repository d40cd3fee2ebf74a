//! The solvers: algorithms over [`crate::rules::Rules`], so each runs on any game.
//!
//! * [`OutcomeSearch`]: who wins (or a draw), in one pass with a transposition table;
//! * [`ValueSearch`]: the score under best play, alpha-beta with a table of bounds;
//! * [`BoundedSearch`]: the same questions within a number of plies (`--max-depth`),
//!   by iterative deepening.
//!
//! All try moves in the order of `order.rs` (the table's best move, the game's `eval`, the
//! table's bounds, killer moves, the history heuristic).

mod bounded;
mod order;
mod outcome;
mod value;

pub use bounded::BoundedSearch;
pub use outcome::OutcomeSearch;
pub use value::{grow, shrink, Leaf, ValueSearch, WON};
