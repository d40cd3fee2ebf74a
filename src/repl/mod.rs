//! `gamelang repl`: interactive exploration of games. A [`backend::Backend`] does the
//! work; two thin front ends read its input: [`editor`] (rustyline line editing, history
//! and completion) when standard input is a terminal, [`plain`] (line by line, no prompts,
//! no colour, scriptable) otherwise.

mod backend;
mod commands;
mod complete;
mod editor;
mod plain;

use backend::{Backend, Part, Reply};
use gamelang_runtime::Limits;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(clap::Args)]
pub struct ReplArgs {
    /// A `.game` file to load first (more can be loaded with `load FILE`).
    pub file: Option<PathBuf>,
    /// Make this game of the file the current one (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Give up a command with an error after this many rewrite steps (`set max-steps N`
    /// changes it in the session).
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000)]
    pub max_steps: u64,
}

/// Print a reply: results to standard output, diagnostics to standard error, in order.
fn print_reply(reply: &Reply) {
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    for part in &reply.parts {
        // A closed pipe is not worth a panic.
        let _ = match part {
            Part::Out(s) => out.write_all(s.as_bytes()).and_then(|()| out.flush()),
            Part::Err(s) => {
                let _ = out.flush();
                err.write_all(s.as_bytes()).and_then(|()| err.flush())
            }
        };
    }
}

pub fn run(args: ReplArgs) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    let interrupt = Arc::new(AtomicBool::new(false));
    let limits = Limits {
        max_steps: args.max_steps,
        ..Limits::default()
    };
    let mut backend = match Backend::new(interrupt.clone(), limits) {
        Ok(b) => b,
        Err(rendered) => {
            eprint!("{rendered}");
            return crate::failure::Failure::bug(
                "the standard library failed to load (this is a bug in gamelang)",
            )
            .report();
        }
    };
    backend.color =
        interactive && std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();

    // Ctrl-C stops the computation in progress. Between commands it is read by the line
    // editor (which clears the line); a script that is waiting for input just stops.
    let busy = Arc::new(AtomicBool::new(false));
    {
        let (busy, flag) = (busy.clone(), interrupt.clone());
        let _ = ctrlc::set_handler(move || {
            if busy.load(Ordering::SeqCst) || interactive {
                flag.store(true, Ordering::SeqCst);
            } else {
                std::process::exit(130);
            }
        });
    }

    if interactive {
        println!(
            "gamelang {} — `help` lists the commands, Tab completes, Ctrl-D quits",
            env!("CARGO_PKG_VERSION")
        );
    }
    if let Some(file) = &args.file {
        print_reply(&backend.load_startup(file, !interactive));
    }
    if let Some(game) = &args.game {
        print_reply(&backend.select_startup(game, !interactive));
    }
    if interactive {
        editor::run(&mut backend, &busy)
    } else {
        plain::run(&mut backend, std::io::stdin().lock(), &busy)
    }
}
