//! Seed 001's lifted QBF encoding (section 4) of "Black has a winning strategy within d
//! plies" for a grid game given as a BDDL [`Model`], its QCIR and QDIMACS forms, and
//! running a QDIMACS solver (DepQBF) on it.
//!
//! * [`circuit`]: a gate-based circuit builder (structural hashing, constant folding);
//! * [`arith`]: the seed's ADD/SUB/EQ/LT circuits over bit vectors;
//! * [`mod@encode`]: the encoding itself ([`encode()`], [`Encoding`], [`Stats`]);
//! * [`qcir`], [`qdimacs`]: the two output forms (QDIMACS by polarity-aware Tseitin);
//! * [`solver`]: running DepQBF or another QDIMACS solver ([`run_solver`]).
//!
//! ```no_run
//! # fn demo(model: &gamelang_qbf::Model) -> Result<(), String> {
//! let enc = gamelang_qbf::encode(model, 5)?;
//! let run = gamelang_qbf::run_solver("depqbf --qdo", &enc.qdimacs(), std::time::Duration::from_secs(60))?;
//! if let gamelang_qbf::Answer::True = run.answer {
//!     println!("Black wins; first move {:?}", enc.first_move(&run.assignment));
//! }
//! # Ok(()) }
//! ```

pub mod arith;
pub mod circuit;
pub mod encode;
pub mod qcir;
pub mod qdimacs;
pub mod solver;

pub use encode::{encode, estimated_size, Encoding, Stats};
pub use gamelang_bddl::Model;
pub use qdimacs::{Cnf, CnfOptions, Quant};
pub use solver::{run_solver, Answer, SolverRun, DEFAULT_SOLVER};
