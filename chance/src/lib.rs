//! Games with chance, any number of players and cycles (seed 002, issue 15).
//!
//! A game is seen through the small [`model::ChanceModel`] trait: its players, its start,
//! and for each state either "final, with these winners" or "this player chooses one of
//! these options, each a probability distribution over next states". The trait is
//! implemented over the rewriting engine for `.game` files ([`engine::EngineModel`]) and
//! can be implemented directly by tests. The solvers work on the explicit graph
//! ([`graph::Graph`]) that exploring a model produces:
//!
//! - [`solve`]: each player's optimal probability of winning (max-n) or expected score,
//!   exactly over the rationals (backward induction on acyclic parts, linear systems on
//!   cycles: rational elimination, or p-adic lifting for large ones, [`dixon`]) or by
//!   value iteration to a stated tolerance;
//! - [`retro`]: retrograde analysis of deterministic two-player games with cycles (draws);
//! - [`simulate`]: random play-outs with empirical win rates.

// Numerical code indexes several parallel arrays by state number.
#![allow(clippy::needless_range_loop)]

pub mod block;
pub mod dixon;
pub mod engine;
pub mod graph;
pub mod linear;
pub mod lu;
pub mod model;
pub mod modp;
pub mod prob;
pub mod retro;
pub mod simulate;
pub mod solve;
pub mod statefree;
pub mod tree;

pub use num_bigint::BigInt;
pub use num_rational::BigRational as Q;
pub use prob::Prob;
