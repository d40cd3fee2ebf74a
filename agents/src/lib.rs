//! Game-agnostic agents for any gamelang game (seed 004, chapter 4): `random`,
//! `semi-random`, `alphabeta:D`, `mcts:N`, `astar` and `exact`, behind one small interface
//! ([`Agent`]) over one small view of a game ([`rules::Rules`]: moves, halted, result,
//! and the optional `eval`, `goal-distance` and `randomizable` a game may declare), and
//! matches between them ([`arena`]).
//!
//! Every `.game` game gets every agent: the game's own operators, reduced by the rewriting
//! engine, are all an agent uses.

pub mod agent;
pub mod alphabeta;
pub mod answers;
pub mod arena;
pub mod chance;
pub mod mcts;
pub mod playouts;
pub mod rng;
pub mod rules;
pub mod simple;
pub mod spec;

pub use agent::Agent;
pub use chance::ChanceRules;
pub use rng::Rng;
pub use rules::{EngineRules, Move, Node, Opened, Pos, Rules, Turn};
pub use spec::{AgentSpec, CATALOGUE};
