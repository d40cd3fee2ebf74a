//! The agent interface: given a decision (a position that is not over, the player to move
//! and its moves), pick a move. Agents see the game only through [`Rules`], so each plays
//! games with and without chance and with any number of players.

use crate::rules::{Pos, Rules, Turn};
use gamelang_game::SolveError;

pub trait Agent {
    /// The index in `turn.moves` (never empty) of the move to play at `p`.
    fn choose(&mut self, rules: &mut dyn Rules, p: Pos, turn: &Turn) -> Result<usize, SolveError>;
}
