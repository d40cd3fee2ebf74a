//! Counting what a reduction does, equation by equation (Maude's `set profile on .`).
//!
//! A user who wants a game solved faster needs to know which of its equations do the
//! work: the speed-ups of `examples/quoridor.game` all came from such counts, taken
//! before this module with scratch builds of the engine. With profiling on
//! ([`Engine::set_profiling`]), every step is recorded: each equation's applications
//! (and the times its left-hand side matched but its condition was false), each
//! built-in's evaluations by operator.
//!
//! # Costing nothing when it is off
//!
//! Every step already passes one test, the step budget (`steps > step_limit`), whose
//! failing branch is out of line. Profiling sets `step_limit` to the current step, so
//! that *every* step takes that branch, where [`Engine::over_step_limit`] records the
//! step, moves the limit on by one and lets the reduction go on; the real budget is
//! kept in `Engine::step_budget` and still ends the reduction when it is spent. `quick` and
//! the unboxed arithmetic stop before a built-in once the budget is reached, so while
//! profiling they decline every built-in, and the machine and the direct evaluator
//! evaluate it instead, counting the same steps (their counts never depend on which
//! path ran): the profile sees each built-in by its operator. Condition failures are
//! counted in the branch a false condition takes, and the calls the call cache or a memo
//! table answers where they are answered, each behind a test of `Engine::profile`.
//! Off, the engine runs the instructions it ran before (checked with callgrind: see
//! docs/benchmarks.md).
//!
//! Calls the call cache answers are not rewritten, so they are not steps: the profile
//! counts them apart, per operator, with the calls memo tables answer
//! (`GAMELANG_NO_CALL_CACHE=1` rewrites every call, as Maude does).

use super::Engine;
use gamelang_lang::program::OpId;

/// What a step was, for the profile: an equation applied (its index in
/// `Program::equations`) or a built-in evaluated (its operator).
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    Eq(u32),
    Op(OpId),
}

/// The counts of a profile. Equations are indexed as `Program::equations`, operators by
/// their ids; merge the profiles of several engines on the same program with
/// [`Profile::add`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Applications of each equation.
    pub eq_rewrites: Vec<u64>,
    /// Times each conditional equation's left-hand side matched and its condition was
    /// false.
    pub eq_cond_false: Vec<u64>,
    /// Evaluations of each built-in operator (`_+_`, `if_then_else_fi`, `_in_`, …).
    pub op_rewrites: Vec<u64>,
    /// Calls of each operator the call cache answered (not rewritten, not steps).
    pub cache_hits: Vec<u64>,
    /// Calls of each memo operator its memo table answered (or the table shared with
    /// other threads).
    pub memo_hits: Vec<u64>,
}

impl Profile {
    fn new(eqs: usize, ops: usize) -> Profile {
        Profile {
            eq_rewrites: vec![0; eqs],
            eq_cond_false: vec![0; eqs],
            op_rewrites: vec![0; ops],
            cache_hits: vec![0; ops],
            memo_hits: vec![0; ops],
        }
    }

    /// All steps recorded (the answers of the call cache and memo tables are not steps).
    pub fn total(&self) -> u64 {
        self.eq_rewrites.iter().sum::<u64>() + self.op_rewrites.iter().sum::<u64>()
    }

    /// Add the counts of `other` (a profile of the same program) to these.
    pub fn add(&mut self, other: &Profile) {
        fn add_to(a: &mut Vec<u64>, b: &[u64]) {
            if a.len() < b.len() {
                a.resize(b.len(), 0);
            }
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
        }
        add_to(&mut self.eq_rewrites, &other.eq_rewrites);
        add_to(&mut self.eq_cond_false, &other.eq_cond_false);
        add_to(&mut self.op_rewrites, &other.op_rewrites);
        add_to(&mut self.cache_hits, &other.cache_hits);
        add_to(&mut self.memo_hits, &other.memo_hits);
    }

    fn record(&mut self, step: Step) {
        let (v, i) = match step {
            Step::Eq(e) => (&mut self.eq_rewrites, e as usize),
            Step::Op(op) => (&mut self.op_rewrites, op.0 as usize),
        };
        if let Some(n) = v.get_mut(i) {
            *n += 1;
        }
    }
}

impl Engine {
    /// Start (or stop) recording a [`Profile`] of the steps of every reduction from now
    /// on. Starting keeps the counts so far; [`Engine::take_profile`] takes them.
    pub fn set_profiling(&mut self, on: bool) {
        if on && self.profile.is_none() {
            let (eqs, ops) = (self.program.equations.len(), self.ops.len());
            self.profile = Some(Box::new(Profile::new(eqs, ops)));
        } else if !on {
            self.profile = None;
        }
    }

    /// A new program renumbers equations and operators: the counts start again.
    pub(super) fn restart_profile(&mut self) {
        if self.profile.is_some() {
            self.profile = None;
            self.set_profiling(true);
        }
    }

    /// Is a profile being recorded?
    pub fn profiling(&self) -> bool {
        self.profile.is_some()
    }

    /// The counts recorded so far, if profiling, and recording goes on from zero.
    pub fn take_profile(&mut self) -> Option<Profile> {
        let p = self.profile.as_deref_mut()?;
        let fresh = Profile::new(p.eq_rewrites.len(), p.op_rewrites.len());
        Some(std::mem::replace(p, fresh))
    }

    /// Set the step budget of the reduction about to run: `limit` is the last step it may
    /// take. While profiling, the engine's test trips at the current step (every step
    /// traps, see the module's comment); `step_budget` keeps the real limit.
    pub(super) fn set_step_limit(&mut self, limit: u64) {
        self.step_budget = limit;
        self.step_limit = match self.profile {
            Some(_) => self.steps.min(limit),
            None => limit,
        };
    }

    /// A step went past `step_limit` (`steps` already counts it): is the budget spent?
    /// While profiling, the step is recorded and the limit moved on to it, and the budget
    /// is spent only if it is the real budget's.
    #[cold]
    #[inline(never)]
    pub(super) fn over_step_limit(&mut self, step: Step) -> bool {
        if self.steps > self.step_budget {
            return true;
        }
        let Some(p) = self.profile.as_deref_mut() else {
            return true;
        };
        p.record(step);
        self.step_limit = self.steps;
        false
    }

    /// The call cache answered a call of `op`: counted while profiling.
    #[inline(always)]
    pub(super) fn note_cache_hit(&mut self, op: OpId) {
        if self.profile.is_some() {
            self.count_answer(op, false);
        }
    }

    /// `op`'s memo table (or the shared one) answered a call: counted while profiling.
    #[inline(always)]
    pub(super) fn note_memo_hit(&mut self, op: OpId) {
        if self.profile.is_some() {
            self.count_answer(op, true);
        }
    }

    #[cold]
    #[inline(never)]
    fn count_answer(&mut self, op: OpId, memo: bool) {
        if let Some(p) = self.profile.as_deref_mut() {
            let v = if memo {
                &mut p.memo_hits
            } else {
                &mut p.cache_hits
            };
            if let Some(n) = v.get_mut(op.0 as usize) {
                *n += 1;
            }
        }
    }

    /// The condition of equation `e` was false on a match: counted while profiling.
    #[inline(always)]
    pub(super) fn note_cond_false(&mut self, e: usize) {
        if self.profile.is_some() {
            self.count_cond_false(e);
        }
    }

    #[cold]
    #[inline(never)]
    fn count_cond_false(&mut self, e: usize) {
        if let Some(n) = self
            .profile
            .as_deref_mut()
            .and_then(|p| p.eq_cond_false.get_mut(e))
        {
            *n += 1;
        }
    }
}
