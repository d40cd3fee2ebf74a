//! Run-time errors of the rewriting engine.
//!
//! A [`RuntimeError`] names the term where reduction failed. The chain of enclosing terms
//! that were being reduced at that moment (memo frames, conditions being evaluated,
//! applications of defined operators whose arguments were being reduced; outermost first,
//! at most [`TRACE_HEAD`] + [`TRACE_TAIL`] of them) is kept by the engine next to it:
//! [`crate::Engine::trace`] returns it for the most recent failure, and
//! [`crate::Engine::failure`] packages both as a [`RuntimeFailure`].
//! [`crate::Engine::describe`] renders an error (with that trace) as one human paragraph.

use crate::term::TermId;
use gamelang_lang::program::OpId;
use std::fmt;

/// How many of the outermost enclosing terms a trace keeps.
pub const TRACE_HEAD: usize = 3;
/// How many of the innermost enclosing terms a trace keeps.
pub const TRACE_TAIL: usize = 5;

/// Why a reduction failed. After any of these the engine is usable again (pending work is
/// dropped, completed memo entries are kept).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// `term` (headed by `op`) is not a constructor term and nothing rewrites it: an
    /// operator with equations none of which applies (a function applied outside its
    /// domain), a built-in applied to arguments it cannot compute with, a lazy built-in
    /// whose first argument is not a Boolean, or a condition that is not a Boolean.
    Stuck {
        /// The stuck term.
        term: TermId,
        /// Its top operator.
        op: OpId,
        /// Why: [`NO_EQUATION`] or a specific explanation.
        reason: String,
    },
    /// More than `limit` steps (equation applications and built-in evaluations) in one
    /// call to `reduce`; `term` is the one being rewritten when the budget ran out.
    StepBudget {
        /// The budget ([`crate::Limits::max_steps`]).
        limit: u64,
        /// The term being rewritten.
        term: TermId,
    },
    /// More than `limit` pending frames (nested reductions).
    DepthLimit {
        /// The limit ([`crate::Limits::max_depth`]).
        limit: usize,
        /// The term whose reduction would have nested too deeply.
        term: TermId,
    },
    /// The memo tables would hold more than `limit` entries.
    MemoLimit {
        /// The limit ([`crate::Limits::max_memo_entries`]).
        limit: usize,
        /// The term that would have needed a new entry.
        term: TermId,
    },
    /// The process uses more resident memory than the memory budget
    /// ([`crate::engine::memory_budget`]).
    MemoryLimit {
        /// The budget, in bytes.
        limit: u64,
        /// The resident memory when it was checked, in bytes.
        used: u64,
        /// The term being reduced.
        term: TermId,
    },
    /// The reduction of the `memo` term `term` needs the value of `term` itself (in a
    /// game: a position that repeats).
    Cycle {
        /// The memo term met again while its value was being computed.
        term: TermId,
    },
    /// The reduction came back to a call it is still computing, `term`, with the same
    /// arguments: rewriting is deterministic, so it would go round the same way forever.
    /// Found by watching a reduction that has run long (see the engine's `loops`).
    Loop {
        /// The call met again.
        term: TermId,
        /// Rewrites between the two meetings (a multiple of the loop's length).
        rewrites: u64,
    },
    /// Integer overflow in the built-in application `term`.
    Overflow {
        /// The built-in application.
        term: TermId,
    },
    /// Division (or remainder) by zero in the built-in application `term`.
    DivisionByZero {
        /// The built-in application.
        term: TermId,
    },
    /// A built-in applied outside its domain (a shift by a negative amount or by 64 or
    /// more, the lowest bit of 0): `term` is the application, `reason` says what is wrong.
    OutOfRange {
        /// The built-in application.
        term: TermId,
        /// What the argument should have been.
        reason: &'static str,
    },
    /// Argument `arg` (0-based) of the constructor term `term` does not have the sort the
    /// operator declares there.
    IllSorted {
        /// The constructor term.
        term: TermId,
        /// The 0-based position of the offending argument.
        arg: usize,
    },
    /// The interrupt flag was raised; `term` is what was being reduced.
    Interrupted {
        /// What was being reduced.
        term: TermId,
    },
}

/// The reason carried by [`RuntimeError::Stuck`] when no equation of a defined operator
/// applies.
pub const NO_EQUATION: &str = "no equation applies";

impl RuntimeError {
    /// The term the error is about.
    pub fn term(&self) -> TermId {
        match self {
            RuntimeError::Stuck { term, .. }
            | RuntimeError::StepBudget { term, .. }
            | RuntimeError::DepthLimit { term, .. }
            | RuntimeError::MemoLimit { term, .. }
            | RuntimeError::MemoryLimit { term, .. }
            | RuntimeError::Cycle { term }
            | RuntimeError::Loop { term, .. }
            | RuntimeError::Overflow { term }
            | RuntimeError::DivisionByZero { term }
            | RuntimeError::OutOfRange { term, .. }
            | RuntimeError::IllSorted { term, .. }
            | RuntimeError::Interrupted { term } => *term,
        }
    }

    /// Is this a resource limit (steps, depth, memo size, interruption) rather than an
    /// error of the program?
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            RuntimeError::StepBudget { .. }
                | RuntimeError::DepthLimit { .. }
                | RuntimeError::MemoLimit { .. }
                | RuntimeError::MemoryLimit { .. }
                | RuntimeError::Interrupted { .. }
        )
    }
}

/// A terse rendering without access to the term store (terms as `#id`); use
/// [`crate::Engine::describe`] for a readable message.
impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::Stuck { term, op, reason } => {
                write!(
                    f,
                    "term #{} (operator #{}) is stuck: {reason}",
                    term.0, op.0
                )
            }
            RuntimeError::StepBudget { limit, term } => {
                write!(f, "step budget of {limit} exhausted at term #{}", term.0)
            }
            RuntimeError::DepthLimit { limit, term } => {
                write!(f, "more than {limit} nested reductions at term #{}", term.0)
            }
            RuntimeError::MemoLimit { limit, term } => {
                write!(f, "memo tables full ({limit} entries) at term #{}", term.0)
            }
            RuntimeError::MemoryLimit { limit, used, term } => write!(
                f,
                "{used} bytes of memory, past the budget of {limit}, at term #{}",
                term.0
            ),
            RuntimeError::Cycle { term } => write!(f, "term #{} depends on itself (cycle)", term.0),
            RuntimeError::Loop { term, rewrites } => write!(
                f,
                "term #{} reached again after {rewrites} rewrites (endless loop)",
                term.0
            ),
            RuntimeError::Overflow { term } => write!(f, "integer overflow in term #{}", term.0),
            RuntimeError::DivisionByZero { term } => {
                write!(f, "division by zero in term #{}", term.0)
            }
            RuntimeError::OutOfRange { term, reason } => {
                write!(f, "built-in out of range in term #{}: {reason}", term.0)
            }
            RuntimeError::IllSorted { term, arg } => {
                write!(f, "argument {} of term #{} is ill-sorted", arg + 1, term.0)
            }
            RuntimeError::Interrupted { term } => {
                write!(f, "interrupted while reducing term #{}", term.0)
            }
        }
    }
}

impl std::error::Error for RuntimeError {}

/// An error together with the chain of enclosing terms being reduced when it happened
/// (outermost first; when the chain was longer than [`TRACE_HEAD`] + [`TRACE_TAIL`], only
/// the outermost and innermost ones are kept and `elided` says how many were dropped in
/// between).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeFailure {
    /// What went wrong.
    pub error: RuntimeError,
    /// The enclosing terms being reduced, outermost first (possibly with a gap).
    pub trace: Vec<TermId>,
    /// How many enclosing terms were dropped between the first [`TRACE_HEAD`] and the last
    /// [`TRACE_TAIL`] entries of `trace`.
    pub elided: usize,
}
