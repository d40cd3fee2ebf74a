//! The scriptable front end: commands read line by line from standard input when it is
//! not a terminal, results printed without prompts or colour.

use super::backend::Backend;
use super::print_reply;
use std::io::BufRead;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Run every input of `reader`; the exit status is a failure if any input failed.
pub fn run(backend: &mut Backend, reader: impl BufRead, busy: &Arc<AtomicBool>) -> ExitCode {
    let mut pending = String::new();
    for line in reader.lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                return crate::failure::Failure::io(format!("reading standard input: {e}"))
                    .report();
            }
        };
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(&line);
        if backend.unfinished(&pending) {
            continue;
        }
        if run_one(backend, &std::mem::take(&mut pending), busy) {
            return status(backend);
        }
    }
    // Input ended inside an unfinished input: run it, to report what is missing.
    if !pending.trim().is_empty() {
        run_one(backend, &pending, busy);
    }
    status(backend)
}

/// Run one input; true if it asked to quit.
fn run_one(backend: &mut Backend, input: &str, busy: &Arc<AtomicBool>) -> bool {
    backend.clear_interrupt();
    busy.store(true, Ordering::SeqCst);
    let reply = backend.execute(input);
    busy.store(false, Ordering::SeqCst);
    print_reply(&reply);
    reply.quit
}

fn status(backend: &Backend) -> ExitCode {
    if backend.failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
