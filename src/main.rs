//! `gamelang`: the command-line front end. It parses arguments, loads files into an
//! elaboration session, runs the engine and prints; all the work is in `lang` and `runtime`.

mod solve;

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
    Solve(solve::SolveArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Solve(args) => solve::run(args),
    }
}
