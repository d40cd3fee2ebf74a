//! Why solving failed, and the failure as a diagnostic.

use gamelang_lang::diag::Diag;
use gamelang_runtime::diagnose::{self, CYCLE_HINT, CYCLE_NOTE};
use gamelang_runtime::error::{RuntimeError, RuntimeFailure};
use gamelang_runtime::Engine;

pub use gamelang_runtime::diagnose::interrupted_message;

/// Why solving failed.
#[derive(Clone, Debug)]
pub enum SolveError {
    /// The rewriting engine stopped (stuck term, budget, cycle, …).
    Runtime(RuntimeFailure),
    /// The game itself is not well formed (e.g. `w` does not reduce to a Boolean).
    Game(String),
    /// A search reached the limit of positions its caller set
    /// ([`crate::search::OutcomeSearch::set_limit`]); the caller settles for less.
    OverLimit,
    /// A failure already described as a diagnostic (e.g. by a chance game's model, which
    /// checks the rules of chance games and says where).
    Diagnosed(Box<Diag>),
}

/// Did the solve stop because the interrupt flag was raised (Ctrl-C)?
pub fn is_interrupted(e: &SolveError) -> bool {
    matches!(e, SolveError::Runtime(f) if matches!(f.error, RuntimeError::Interrupted { .. }))
}

/// A solve error as a diagnostic: the message names the term, and labels point at the
/// declarations involved (see [`gamelang_runtime::diagnose::failure`]).
pub fn diagnose(engine: &Engine, e: &SolveError) -> Diag {
    match e {
        SolveError::Game(msg) if msg.starts_with("cycle in the game graph") => {
            Diag::error(msg.clone()).note(CYCLE_HINT)
        }
        SolveError::Game(msg) => Diag::error(msg.clone()),
        SolveError::Runtime(f) if matches!(f.error, RuntimeError::Cycle { .. }) => {
            // A term that reduces back to itself, met in a game's search: a position that
            // repeats, said in the game's terms.
            let mut d = diagnose::failure(engine, f);
            d.message = d
                .message
                .replacen("cycle: ", "cycle in the game graph: ", 1);
            match d.notes.iter().position(|n| n == CYCLE_NOTE) {
                Some(i) => d.notes[i] = CYCLE_HINT.to_string(),
                None => d.notes.push(CYCLE_HINT.to_string()),
            }
            d
        }
        SolveError::Runtime(f) => diagnose::failure(engine, f),
        SolveError::OverLimit => Diag::error("the search reached its limit of positions"),
        SolveError::Diagnosed(d) => (**d).clone(),
    }
}
