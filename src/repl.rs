//! `gamelang repl`: interactive exploration (issue 3). Placeholder until implemented.

#[derive(clap::Args)]
pub struct ReplArgs {
    /// A `.game` file to load first.
    pub file: Option<std::path::PathBuf>,
}

pub fn run(_args: ReplArgs) -> std::process::ExitCode {
    eprintln!("error: `gamelang repl` is not implemented yet");
    std::process::ExitCode::FAILURE
}
