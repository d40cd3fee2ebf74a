//! `gamelang`: the command-line front end. It parses arguments, loads files into an
//! elaboration session, runs the engine and prints; all the work is in `lang` and `runtime`.

mod bddl;
mod chance;
mod lower;
mod play;
mod qbf;
mod reduce;
mod repl;
mod solve;
mod sweep;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "gamelang",
    version,
    about = "Define finite games in an equational language and find out who wins",
    long_about = "gamelang runs `.game` files: modules of sorts, operators and equations in the \
OBJ/Maude tradition, with a standard library whose WINS module decides two-player games by \
backward induction (formula (1) of Diaconescu's paper), evaluated by a memoising rewriting engine.\n\n\
The language is described in docs/language.md."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game: who wins from a configuration, the winning move and the principal line.
    ///
    /// For a chance game (`instance CHANCE{…}`, docs/chance.md): each player's probability of
    /// winning under optimal play, exactly (rationals) when the game is small enough and by
    /// value iteration to a stated tolerance otherwise. With n players the solver assumes
    /// max-n: each player maximises its own probability of winning (or, with --value, its own
    /// expected score); among equally good choices it prefers the one giving the other
    /// players together the least, then the first in the game's choice set. A deterministic
    /// two-player chance game (cycles allowed) is solved by retrograde analysis, with draws.
    Solve(solve::SolveArgs),
    /// Reduce terms: run a file's `reduce TERM .` commands (Maude's), or reduce one TERM,
    /// printing each normal form in full.
    Reduce(reduce::ReduceArgs),
    /// Play a chance game at random many times: empirical win rates with 95% intervals.
    Simulate(chance::SimulateArgs),
    /// Explore a game interactively: reduce terms, list moves, ask who wins, play.
    Repl(repl::ReplArgs),
    /// Evaluate who wins (or any term) over a grid of parameters, in parallel.
    Sweep(sweep::SweepArgs),
    /// Read BDDL game files (seed 001): solve them, or convert them to gamelang.
    #[command(subcommand)]
    Bddl(bddl::BddlCommand),
    /// Write a grid game in another format: BDDL, or seed 001's QBF encoding (QCIR, QDIMACS).
    Lower(lower::LowerArgs),
    /// Play White against the QBF solver's strategy for Black on a grid game (--qbf).
    Play(play::PlayArgs),
}

fn main() -> ExitCode {
    // Output is meant to be piped (`gamelang solve … | head`): when the reader goes away,
    // end quietly as Unix tools do, instead of panicking on a broken pipe.
    // SAFETY: resetting a signal disposition at startup, before any thread exists.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Solve(args) => solve::run(args),
        Command::Reduce(args) => reduce::run(args),
        Command::Simulate(args) => chance::simulate(args),
        Command::Repl(args) => repl::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Bddl(cmd) => bddl::run(cmd),
        Command::Lower(args) => lower::run(args),
        Command::Play(args) => play::run(args),
    }
}
