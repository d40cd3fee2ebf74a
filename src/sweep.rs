//! `gamelang sweep`: evaluate over a grid of parameters (issue 4). Placeholder until implemented.

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The `.game` file declaring the game.
    pub file: std::path::PathBuf,
}

pub fn run(_args: SweepArgs) -> std::process::ExitCode {
    eprintln!("error: `gamelang sweep` is not implemented yet");
    std::process::ExitCode::FAILURE
}
