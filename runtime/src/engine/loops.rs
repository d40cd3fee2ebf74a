//! Endless loops found: a reduction that comes back to a call it is still computing.
//!
//! Rewriting is deterministic. A call `f(a…)` met again, with the same arguments, while
//! its own value is still being computed (in tail position, `f(N) = f((N + 1) rem 3)`, or
//! under constructors or other calls left pending) will be met again and again: its
//! reduction never ends. Maude runs such a program until it is killed; here it ran until
//! the step budget, most of an hour. Cycles through *existing* terms and memo entries
//! were already found (`RuntimeError::Cycle`); these are the calls that never become a
//! term.
//!
//! Watching every call would cost; a reduction that ends soon needs no watch. So a chain
//! of calls is watched only once it has made [`WATCH_AFTER`] of them, and then by Brent's
//! algorithm: the call seen at each power of two is saved and every later call compared
//! with it (the arguments are hash-consed: equal values, equal ids), which finds a loop of
//! any length within about twice its length plus where it starts.
//!
//! Two places keep a chain:
//! * the direct evaluator's loop of tail calls (`Engine::d_apply_calls`), which never
//!   returns to a call it left: the saved call is in progress until the loop ends;
//! * the machine's calls (`Engine::apply_open`), where the saved call is in progress as long
//!   as no frame under it has been resumed (the machine's low-water mark, `frames_low`)
//!   and no value has gone back to the direct evaluator (`exits`).
//!
//! A collection may free the saved arguments and give their ids to other terms, so it
//! starts a watch again.

use super::Engine;
use crate::error::RuntimeError;
use crate::term::TermId;
use gamelang_lang::program::OpId;

/// Calls a chain makes before it is watched.
pub(super) const WATCH_AFTER: u64 = 1 << 16;

/// Brent's watch over a chain of calls (see the module documentation).
#[derive(Default)]
pub(super) struct LoopWatch {
    /// The chain watched: a direct loop's number (`Engine::d_apply_calls`), or 0.
    chain: u64,
    op: Option<OpId>,
    args: Vec<TermId>,
    /// Where the saved call was made: `Engine::steps`, `Engine::collections`,
    /// `Engine::exits` and the machine's frames (unused in a direct loop).
    steps: u64,
    collections: u64,
    exits: u64,
    height: usize,
    /// Calls compared since the save, and how many make the next save.
    seen: u64,
    power: u64,
}

impl LoopWatch {
    /// The call of `op` on `args` is made at `height`, and the saved call is still being
    /// computed if `in_progress`: a loop error if that call is this one, else whether
    /// this call is saved now (it is time to, or the saved one has ended).
    fn see(
        &mut self,
        engine: &mut Engine,
        (op, args): (OpId, &[TermId]),
        height: usize,
        in_progress: bool,
    ) -> Result<bool, RuntimeError> {
        let valid = in_progress && self.collections == engine.collections;
        if valid && self.op == Some(op) && self.args[..] == *args {
            let rewrites = engine.steps - self.steps;
            let term = engine.store.mk_app(op, args);
            engine.loop_found = true;
            return Err(RuntimeError::Loop { term, rewrites });
        }
        self.seen += 1;
        if !valid || self.seen >= self.power {
            self.op = Some(op);
            self.args.clear();
            self.args.extend_from_slice(args);
            self.steps = engine.steps;
            self.collections = engine.collections;
            self.exits = engine.exits;
            self.height = height;
            // (Not doubled when the saved call ended: the next one is saved at once.)
            if valid || self.power == 0 {
                self.power = (self.power * 2).max(1);
            }
            self.seen = 0;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Engine {
    /// The direct evaluator's chain of tail calls numbered `chain` (0: not numbered yet)
    /// is at the call of `op` on `vals[base..]`: has it made this call before? (Then
    /// [`Engine::loop_error`] says so.) One watch serves the chains: a chain nested in a
    /// watched one takes it over, and the outer chain starts again when it goes on (its
    /// loop, if it has one, is found a little later).
    #[cold]
    #[inline(never)]
    pub(super) fn watch_tail_chain(&mut self, chain: &mut u64, op: OpId, base: u32) -> bool {
        if *chain == 0 {
            self.chains_watched += 1;
            *chain = self.chains_watched;
        }
        let mut w = std::mem::take(&mut self.chain_watch);
        if w.chain != *chain {
            w = LoopWatch {
                chain: *chain,
                args: w.args,
                ..Default::default()
            };
        }
        let args: smallvec::SmallVec<[TermId; 8]> = self.vals[base as usize..].into();
        let r = w.see(self, (op, &args), 0, true);
        self.chain_watch = w;
        match r {
            Ok(_) => false,
            Err(e) => {
                self.loop_error = Some(e);
                true
            }
        }
    }

    /// The loop [`Engine::watch_tail_chain`] found. (Not returned by it: a `Result` of an
    /// error in the direct evaluator's loop of tail calls made every rewrite of that loop
    /// 1% dearer, in instructions, on binary-add.)
    #[cold]
    pub(super) fn loop_error(&mut self) -> RuntimeError {
        self.loop_error.take().expect("a loop found")
    }

    /// The machine is at the call of `op` on `vals[base..base + n]` (`Engine::apply_open`),
    /// its `opens`-th of this reduction: watched past [`WATCH_AFTER`].
    #[cold]
    #[inline(never)]
    pub(super) fn watch_machine_call(
        &mut self,
        op: OpId,
        base: u32,
        n: u32,
    ) -> Result<(), RuntimeError> {
        let mut w = self.machine_watch.take().unwrap_or_default();
        let in_progress = w.exits == self.exits && self.frames_low >= w.height;
        let height = self.frames.len();
        let args: smallvec::SmallVec<[TermId; 8]> =
            self.vals[base as usize..(base + n) as usize].into();
        let r = w.see(self, (op, &args), height, in_progress);
        if let Ok(true) = r {
            // Saved: the frames under it are watched from now on.
            self.frames_low = height;
        }
        self.machine_watch = Some(w);
        r.map(|_| ())
    }
}
