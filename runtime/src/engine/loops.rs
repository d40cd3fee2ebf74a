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
//! Watching every call would cost; a reduction that ends soon needs no watch. So calls
//! are watched only once their chain has run [`WATCH_AFTER`] rewrites, and then by
//! Brent's algorithm: the call seen at each power of two is saved and every later call
//! compared with it (the arguments are hash-consed: equal values, equal ids), which finds
//! a loop of any length within about twice its length plus where it starts. The saved
//! arguments are roots of the collections made meanwhile (`Engine::loop_roots`), so
//! their ids stay theirs.
//!
//! Two places keep a chain:
//! * the direct evaluator's loop of tail calls (`Engine::d_apply_calls`), which never
//!   returns to a call it left: the saved call is in progress until the loop ends. Each
//!   watched loop has its own watch (`Loops::chains`, innermost last), so that a loop
//!   whose every turn runs a long loop of its own is watched too;
//! * the machine's calls (`Engine::apply_open`, and `Engine::complete` for operators with
//!   equational attributes), where the saved call is in progress as long as the machine
//!   has not come below the height it was made at: no frame under it resumed, no value
//!   handed back to the direct evaluator from a run that began under it (the low-water
//!   mark `Loops::frames_low`).
//!
//! The standard library's hidden helpers (a matching condition's `matched%N`) are not
//! watched: the loop is named by a call the user wrote.

use super::Engine;
use crate::error::RuntimeError;
use crate::term::TermId;
use gamelang_lang::program::OpId;

/// Rewrites a chain (a direct loop of tail calls, a reduction for the machine) makes
/// before its calls are watched.
pub(super) const WATCH_AFTER: u64 = 1 << 16;

/// The engine's watches for endless loops (see the module documentation).
#[derive(Default)]
pub(super) struct Loops {
    /// `Engine::steps` past which the machine's calls of this reduction are watched.
    pub(super) machine_from: u64,
    /// The machine's watch, and the fewest frames it has had since its call was saved
    /// (one less than a nested run's floor when that run ended: see `Engine::d_run`).
    machine: LoopWatch,
    pub(super) frames_low: i64,
    /// The watches of the direct evaluator's loops that are running, innermost last, and
    /// how many loops have been numbered.
    chains: Vec<LoopWatch>,
    numbered: u64,
    /// The loop the direct evaluator found ([`Engine::loop_error`]).
    error: Option<RuntimeError>,
    /// Which operators are hidden helpers (by `OpId`), read when an operator is new.
    hidden: Vec<bool>,
}

impl Loops {
    /// A reduction begins: nothing is pending, no call is watched.
    pub(super) fn begin(&mut self, steps: u64) {
        self.machine_from = steps.saturating_add(WATCH_AFTER);
        self.machine = LoopWatch::default();
        self.chains.clear();
        self.error = None;
    }
}

impl Loops {
    /// The machine is at a call of `op`: must the watch look at it (the saved call's
    /// operator, the time to save, the saved call ended), or is this call only counted?
    /// (The machine's calls are many: this is their whole cost, most of the time.)
    #[inline(always)]
    pub(super) fn machine_due(&mut self, op: OpId) -> bool {
        let w = &mut self.machine;
        if w.op == Some(op) || w.seen + 1 >= w.power || self.frames_low < w.height {
            return true;
        }
        w.seen += 1;
        false
    }
}

/// Brent's watch over a chain of calls (see the module documentation).
#[derive(Default)]
struct LoopWatch {
    /// The direct loop watched (its number and where its frame is), or 0 (the machine).
    chain: u64,
    at: usize,
    op: Option<OpId>,
    args: Vec<TermId>,
    /// `Engine::steps` and the machine's height when the call was saved.
    steps: u64,
    height: i64,
    /// Calls compared since the save, and how many make the next save.
    seen: u64,
    power: u64,
}

impl LoopWatch {
    /// The call of `op` on `args` is made at `steps`, at `height`, and the saved call is
    /// still being computed if `in_progress`: `Err` with the rewrites since the saved
    /// call if that call is this one, else whether this call is saved now (it is time
    /// to, or the saved one has ended).
    fn see(
        &mut self,
        steps: u64,
        (op, args): (OpId, &[TermId]),
        height: i64,
        in_progress: bool,
    ) -> Result<bool, u64> {
        if in_progress && self.op == Some(op) && self.args[..] == *args {
            return Err(steps - self.steps);
        }
        self.seen += 1;
        if !in_progress || self.seen >= self.power {
            self.op = Some(op);
            self.args.clear();
            self.args.extend_from_slice(args);
            self.steps = steps;
            self.height = height;
            // (Not doubled when the saved call ended: the next one is saved at once.)
            if in_progress || self.power == 0 {
                self.power = (self.power * 2).max(1);
            }
            self.seen = 0;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Engine {
    /// Is `op` a hidden helper of the standard library's (not watched)?
    fn hidden_helper(&mut self, op: OpId) -> bool {
        let i = op.0 as usize;
        if i >= self.loops.hidden.len() {
            let ops = &self.program.sig.ops;
            self.loops.hidden = ops.iter().map(|o| o.name.contains('%')).collect();
        }
        self.loops.hidden.get(i).copied().unwrap_or(false)
    }

    /// The loop of the direct evaluator's tail calls numbered `chain` (0: not numbered
    /// yet), whose frame is at `at`, is at the call of `op` on `vals[base..]`: has it made
    /// this call before? (Then [`Engine::loop_error`] says so.)
    #[cold]
    #[inline(never)]
    pub(super) fn watch_tail_chain(
        &mut self,
        (chain, at): (&mut u64, usize),
        op: OpId,
        base: u32,
    ) -> bool {
        if self.hidden_helper(op) {
            return false;
        }
        let loops = &mut self.loops;
        if *chain == 0 {
            loops.numbered += 1;
            *chain = loops.numbered;
        }
        // The watches of loops that have ended: deeper than this one (this one runs
        // again, so they returned), or of another loop that ran where this one runs.
        while loops
            .chains
            .last()
            .is_some_and(|w| w.at <= at && w.chain != *chain)
        {
            loops.chains.pop();
        }
        if loops.chains.last().map(|w| w.chain) != Some(*chain) {
            loops.chains.push(LoopWatch {
                chain: *chain,
                at,
                ..Default::default()
            });
        }
        let w = loops.chains.last_mut().expect("pushed");
        let args = &self.vals[base as usize..];
        match w.see(self.steps, (op, args), 0, true) {
            Ok(_) => false,
            Err(rewrites) => {
                let term = self.store.mk_app(op, args);
                self.loops.error = Some(RuntimeError::Loop { term, rewrites });
                true
            }
        }
    }

    /// The loop [`Engine::watch_tail_chain`] found. (Not returned by it: a `Result` of an
    /// error in the direct evaluator's loop of tail calls made every rewrite of that loop
    /// 1% dearer, in instructions, on binary-add.)
    #[cold]
    pub(super) fn loop_error(&mut self) -> RuntimeError {
        self.loops.error.take().expect("a loop found")
    }

    /// The machine is at the call of `op` on `vals[base..base + n]`, past [`WATCH_AFTER`]
    /// rewrites of this reduction.
    #[cold]
    #[inline(never)]
    pub(super) fn watch_machine_call(
        &mut self,
        op: OpId,
        base: u32,
        n: u32,
    ) -> Result<(), RuntimeError> {
        if self.hidden_helper(op) {
            return Ok(());
        }
        let args = &self.vals[base as usize..(base + n) as usize];
        let loops = &mut self.loops;
        let height = self.frames.len() as i64;
        let in_progress = loops.frames_low >= loops.machine.height;
        match loops
            .machine
            .see(self.steps, (op, args), height, in_progress)
        {
            Ok(true) => {
                // Saved: the frames under it are watched from now on.
                loops.frames_low = height;
                Ok(())
            }
            Ok(false) => Ok(()),
            Err(rewrites) => {
                let args: Vec<TermId> = args.to_vec();
                let term = self.store.mk_app(op, &args);
                Err(RuntimeError::Loop { term, rewrites })
            }
        }
    }

    /// The terms the watches hold: roots of a collection during a reduction.
    pub(super) fn loop_roots(&self, roots: &mut Vec<TermId>) {
        roots.extend_from_slice(&self.loops.machine.args);
        for w in &self.loops.chains {
            roots.extend_from_slice(&w.args);
        }
    }
}
