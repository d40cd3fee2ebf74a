//! The rules of a game as the solvers see them: the one interface between "a game" and
//! "an algorithm". A `.game` file's game implements it through the rewriting engine
//! ([`crate::driver::EngineRules`]); a test or a benchmark can implement it in plain Rust,
//! and every solver in [`crate::search`] then runs on either.
//!
//! A position is the player to move and a configuration. Play alternates: the successors
//! of a position with `p` to move are configurations with `p.opponent()` to move (a pass is
//! a move to the same configuration). This is seed 003's game tree (formula (1)).

use crate::error::SolveError;
use crate::side::{Side, Verdict};
use std::hash::Hash;

pub trait Rules {
    /// A configuration; equal configurations must compare equal (solvers merge them in
    /// their transposition tables). For a `.game` game, a hash-consed term.
    type Config: Copy + Eq + Hash;

    /// Can a halted position be drawn? If not, B wins wherever R has not.
    fn has_draws(&self) -> bool;

    /// Has play stopped at `c` with `p` to move?
    fn halted(&mut self, p: Side, c: Self::Config) -> Result<bool, SolveError>;

    /// Who has won the halted position `c` (with `p` to move), or a draw.
    fn result(&mut self, p: Side, c: Self::Config) -> Result<Verdict, SolveError>;

    /// The configurations `p` can move to from `c`, in the game's order, without repeats.
    fn moves(&mut self, p: Side, c: Self::Config) -> Result<Vec<Self::Config>, SolveError>;

    /// The successors a solver explores: [`Rules::moves`] up to the game's symmetry (one
    /// configuration per class of equivalent ones). By default, every move.
    fn search_moves(&mut self, p: Side, c: Self::Config) -> Result<Vec<Self::Config>, SolveError> {
        self.moves(p, c)
    }

    /// The final score of the halted position `c`, counted for B (B maximises it, R
    /// minimises it). An error when the game declares no score.
    fn score(&mut self, p: Side, c: Self::Config) -> Result<i64, SolveError>;

    /// A static evaluation of a position, counted for B (higher is better for B), that a
    /// solver may use to try promising moves first; `None` when the game declares none.
    /// It orders moves only: answers never depend on it.
    fn eval(&mut self, p: Side, c: Self::Config) -> Result<Option<i64>, SolveError> {
        let _ = (p, c);
        Ok(None)
    }

    /// A key for the move from `from` to its successor `to` that does not depend on the
    /// rest of the position (the same move made elsewhere has the same key), for a
    /// solver's history of moves that cut the search off; `None` when the game gives none.
    /// It orders moves only: answers never depend on it.
    fn move_key(
        &mut self,
        p: Side,
        from: Self::Config,
        to: Self::Config,
    ) -> Result<Option<u64>, SolveError> {
        let _ = (p, from, to);
        Ok(None)
    }

    /// A configuration worth exactly what `c` is worth with `p` to move (its mirror image,
    /// or any other symmetric twin), for a solver's table to share what it learns of either
    /// (a position whose twin is known need not be searched); `None` when the game gives
    /// none. A promise of the game, like a symmetry: answers depend on it being true.
    fn mirror(&mut self, p: Side, c: Self::Config) -> Result<Option<Self::Config>, SolveError> {
        let _ = (p, c);
        Ok(None)
    }

    /// Would a collection of garbage free much now (see [`Rules::collect`])? Asked often,
    /// so it must be cheap. By default, never.
    fn wants_collection(&self) -> bool {
        false
    }

    /// Free what the rules built and no longer need, keeping every configuration in `live`
    /// (and what they are made of) as it is: a solver calls it between rules, naming every
    /// configuration it still holds, when it was told that nothing else holds any (for a
    /// `.game` game, a garbage collection of the engine's terms). By default, nothing.
    fn collect(&mut self, live: &[Self::Config]) {
        let _ = live;
    }

    /// An error for a position met again while its own value is being computed: `path`
    /// is the line of positions from the root of the search to the repeat (inclusive).
    fn cycle(&mut self, path: &[(Side, Self::Config)]) -> SolveError {
        let _ = path;
        SolveError::Game("cycle in the game graph".into())
    }

    /// Has the user asked to stop (Ctrl-C)? Solvers ask before each new position, and
    /// then stop with [`Rules::stop`]. By default, never.
    fn interrupted(&self) -> bool {
        false
    }

    /// The error to stop with when [`Rules::interrupted`]; `path` is the line of positions
    /// from the root of the search to the current one.
    fn stop(&mut self, path: &[(Side, Self::Config)]) -> SolveError {
        let _ = path;
        SolveError::Game("interrupted".into())
    }

    /// Say where a failure happened: `path` is the line of positions from the root of the
    /// search to the one whose rules failed. The default adds nothing.
    fn in_context(&mut self, e: SolveError, path: &[(Side, Self::Config)]) -> SolveError {
        let _ = path;
        e
    }
}
