//! Who wins under best play, or a draw: the alpha-beta search of [`super::value`] with
//! outcomes at the leaves (+1 won by B, 0 drawn, -1 won by R), in one pass.

use super::value::{Leaf, ValueSearch};
use crate::error::SolveError;
use crate::rules::Rules;
use crate::side::{Side, Verdict};
use std::hash::Hash;

/// The outcome search and its transposition table. Keep it to ask about more positions of
/// the same game: what one question decided, the next reuses.
pub struct OutcomeSearch<C> {
    search: ValueSearch<C>,
}

impl<C: Copy + Eq + Hash> Default for OutcomeSearch<C> {
    fn default() -> Self {
        OutcomeSearch {
            search: ValueSearch::new(Leaf::Outcome),
        }
    }
}

impl<C: Copy + Eq + Hash> OutcomeSearch<C> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stop searching (with [`SolveError::OverLimit`]) once `limit` positions are known.
    pub fn set_limit(&mut self, limit: usize) {
        self.search.set_limit(limit);
    }

    /// Keep at most about `capacity` positions in the table ([`ValueSearch::set_capacity`]).
    pub fn set_capacity(&mut self, capacity: usize) {
        self.search.set_capacity(capacity);
    }

    /// Let the search collect garbage as it goes ([`ValueSearch::set_collect`]).
    pub fn set_collect(&mut self, on: bool) {
        self.search.set_collect(on);
    }

    /// Configurations the caller holds across the next searches ([`ValueSearch::pin`]).
    pub fn pin(&mut self, held: &[C]) {
        self.search.pin(held);
    }

    /// Positions searched so far ([`ValueSearch::positions`]).
    pub fn positions(&self) -> usize {
        self.search.positions()
    }

    /// Positions the table holds now.
    pub fn kept(&self) -> usize {
        self.search.kept()
    }

    /// The configurations the table names ([`ValueSearch::held`]).
    pub fn held(&self) -> Vec<C> {
        self.search.held()
    }

    /// Those written since the last collection ([`ValueSearch::held_since_collection`]).
    pub fn held_since_collection(&self) -> Option<Vec<C>> {
        self.search.held_since_collection()
    }

    /// A collection kept every configuration the table names ([`ValueSearch::collected`]).
    pub fn collected(&mut self) {
        self.search.collected();
    }

    /// The search itself, with its table (for a distance search to start from).
    pub fn table(&self) -> &ValueSearch<C> {
        &self.search
    }

    /// The successor the search found best at `c` (for a won position, a winning move).
    pub fn best(&self, p: Side, c: C) -> Option<C> {
        self.search.best(p, c)
    }

    /// Who wins from `c` with `p` to move (or a draw), under best play.
    pub fn verdict<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
    ) -> Result<Verdict, SolveError> {
        self.search.verdict(rules, p, c)
    }
}
