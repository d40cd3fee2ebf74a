//! gamelang front end.
//!
//! Data flows one way: source text → [`lexer`] (logos) → [`parser`] (lalrpop: module
//! structure, terms kept as token runs) → [`elab`] (imports, theories, views, instantiation,
//! signatures; terms parsed against the module's signature by [`elab::mixfix`]) →
//! [`program::Program`], which the runtime rewrites with.

pub mod ast;
pub mod diag;
pub mod elab;
pub mod lexer;
pub mod parser;
pub mod program;
pub mod span;
