//! gamelang runtime: hash-consed terms ([`term`]), compiled order-sorted matching modulo
//! associativity / commutativity / identity ([`matching`]), the innermost rewriting engine
//! with memo tables and resource limits ([`engine`]), run-time errors ([`error`]) and the
//! mixfix printer ([`print`]), and run-time failures as diagnostics ([`diagnose`]).
//! What a game is, and the solvers, live in the `gamelang-game` crate above this one.

pub mod diagnose;
pub mod engine;
pub mod error;
pub mod grid;
pub mod matching;
pub mod print;
pub mod term;

pub use engine::{Engine, Limits, Profile};
pub use error::{RuntimeError, RuntimeFailure};
pub use matching::{Matcher, Pattern};
pub use term::{TermData, TermId, TermStore};
