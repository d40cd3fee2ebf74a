//! gamelang's games: one home for what a game is and how it is solved.
//!
//! * [`ask`]: the standard library's solver operators (`w`, `outcome`, `value`, …)
//!   answered by the searches ([`Searches`], for `gamelang sweep`);
//! * [`rules`]: the [`Rules`] trait, the one interface between a game and an algorithm;
//! * [`driver`]: a `.game` file's game through the rewriting engine ([`GameDriver`], and
//!   [`EngineRules`], its `Rules`);
//! * [`search`]: the solvers, generic over `Rules` (one-pass outcome, alpha-beta);
//! * [`line`]: the principal line of a solved position;
//! * [`movekey`]: a move as what it changed in the configuration (for move ordering);
//! * [`solve`]: the questions `gamelang solve` asks, answered as [`report`]s (plain data for
//!   the front ends to print);
//! * [`players`]: the players as a declared set (names, [`Player`] indices);
//! * [`side`]: the two-player view of them, and verdicts; [`error`]: why solving failed,
//!   as a diagnostic.
//!
//! Games with chance and n players are the `gamelang-chance` crate's (see
//! `docs/ARCHITECTURE.md`).

pub mod ask;
pub mod driver;
pub mod error;
pub mod line;
pub mod movekey;
pub mod players;
pub mod report;
pub mod rules;
pub mod search;
pub mod side;
pub mod solve;

pub use ask::Searches;
pub use driver::{EngineRules, GameDriver};
pub use error::{diagnose, interrupted_message, is_interrupted, SolveError};
pub use line::{DEFAULT_LINE_BUDGET, MAX_LINE};
pub use players::{Player, Players};
pub use report::{Bounded, Outcome, Value, Valued};
pub use rules::Rules;
pub use side::{Side, Verdict};
pub use solve::{
    solve, solve_collecting, solve_in_memory, solve_value, solve_value_within, solve_with_budget,
    solve_within, Memory,
};
