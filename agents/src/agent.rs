//! The agent interface: given a position that is not halted and its moves, pick one.

use crate::rules::{Pos, Rules};
use gamelang_game::SolveError;
use gamelang_runtime::TermId;

pub trait Agent {
    /// The index in `moves` (the configurations the player to move at `p` can go to, never
    /// empty) of the move to play.
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError>;
}
