//! The standard library's solver operators answered by the searches: a term headed by the
//! game's `w`, `wb`, `outcome`, `value`, `r-within` or `b-within` has the normal form the
//! engine would give it, found by [`crate::search`] instead of by rewriting formula (1).
//! `gamelang sweep` asks this way at every point (`--from`, and `--expr` terms headed by
//! one of these), so that a sweep runs the same solvers as `gamelang solve`. The tables
//! live as long as the [`Searches`]: what one point decided, the next reuses.

use crate::driver::{EngineRules, GameDriver};
use crate::error::SolveError;
use crate::search::{BoundedSearch, Leaf, OutcomeSearch, ValueSearch};
use crate::side::{Side, Verdict};
use gamelang_lang::program::Pat;
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;

/// The searches of one game, on one engine.
pub struct Searches {
    outcome: OutcomeSearch<TermId>,
    value: ValueSearch<TermId>,
    within: BoundedSearch<TermId>,
}

impl Default for Searches {
    fn default() -> Self {
        Searches {
            outcome: OutcomeSearch::new(),
            value: ValueSearch::new(Leaf::Score),
            within: BoundedSearch::new(Leaf::Outcome),
        }
    }
}

impl Searches {
    pub fn new() -> Self {
        Self::default()
    }

    /// Forget everything learnt: call it when the engine's garbage collection may have
    /// freed the terms the tables name (their ids are reused).
    pub fn clear(&mut self) {
        *self = Searches::new();
    }

    /// Positions the tables hold.
    pub fn kept(&self) -> usize {
        self.outcome.kept() + self.value.kept() + self.within.positions()
    }

    /// Every term the tables name: the roots of a garbage collection that keeps them.
    pub fn held(&self) -> Vec<TermId> {
        let mut out = self.outcome.held();
        out.extend(self.value.held());
        out.extend(self.within.held());
        out
    }

    /// The terms the tables name that a collection of the young terms alone must be given
    /// (`Engine::collect_due_with`), if every term they named at the last collection was
    /// its root: those written since, or `None` where that is most of them. After the
    /// collection, call [`Searches::collected`].
    pub fn held_since_collection(&self) -> Option<Vec<TermId>> {
        let mut out = self.outcome.held_since_collection()?;
        out.extend(self.value.held_since_collection()?);
        // Asked rarely, and small: named whole.
        out.extend(self.within.held());
        Some(out)
    }

    /// A garbage collection kept every term the tables name.
    pub fn collected(&mut self) {
        self.outcome.collected();
        self.value.collected();
    }

    /// Who wins from `c` with `p` to move, or a draw (`outcome(p, c)` of SOLVE).
    pub fn verdict(
        &mut self,
        engine: &mut Engine,
        d: &GameDriver<'_>,
        p: Side,
        c: TermId,
    ) -> Result<Verdict, SolveError> {
        engine
            .with_step_budget(|engine| self.outcome.verdict(&mut EngineRules::new(d, engine), p, c))
    }

    /// The normal form of `pat` (over `vars`) when it is headed by one of the game's solver
    /// operators, found by search; `None` for any other term (which the engine reduces).
    pub fn answer(
        &mut self,
        engine: &mut Engine,
        d: &GameDriver<'_>,
        pat: &Pat,
        vars: &[TermId],
    ) -> Result<Option<TermId>, SolveError> {
        let game = d.game;
        let Pat::App(op, args) = pat else {
            return Ok(None);
        };
        let op = *op;
        let asked = [game.w, game.wb, game.outcome, game.r_within, game.b_within];
        if !asked.contains(&op) && Some(op) != game.value {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            let t = engine.build(a, vars);
            let v = engine
                .reduce(t)
                .map_err(|e| SolveError::Runtime(engine.failure(e)))?;
            values.push(v);
        }
        let p = d.side(engine, values[0])?;
        let c = values[1];
        let boolean = |engine: &Engine, b: bool| {
            if b {
                engine.true_term()
            } else {
                engine.false_term()
            }
            .expect("a game has Booleans")
        };
        if op == game.r_within || op == game.b_within {
            let Some(plies) = engine
                .store()
                .int(values[2])
                .and_then(|n| u64::try_from(n).ok())
            else {
                return Ok(None); // not a number of plies: the engine says what it makes of it
            };
            let who = if op == game.r_within {
                Side::R
            } else {
                Side::B
            };
            let wins = engine.with_step_budget(|engine| {
                self.within
                    .wins_within(&mut EngineRules::new(d, engine), who, p, c, plies)
            })?;
            return Ok(Some(boolean(engine, wins)));
        }
        if Some(op) == game.value {
            let v = engine.with_step_budget(|engine| {
                self.value.value(&mut EngineRules::new(d, engine), p, c)
            })?;
            return Ok(Some(engine.mk_int(v)));
        }
        let verdict = self.verdict(engine, d, p, c)?;
        Ok(Some(if op == game.w {
            boolean(engine, verdict == Verdict::Win(Side::R))
        } else if op == game.wb {
            boolean(engine, verdict == Verdict::Win(Side::B))
        } else {
            d.verdict_term(verdict)
        }))
    }
}
