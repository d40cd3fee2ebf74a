//! What the commands share before they ask their question: load a `.game` file into a
//! session, pick the game, set its parameters, read a position given on the command line,
//! and make an engine that Ctrl-C stops.
//!
//! Each command (`solve`, `sweep`, `lower`, `play`, `match`, …) is then only its own
//! question and its own output (printed through [`crate::report`] for `solve`).
//! Errors are diagnostics for the caller to render against the session's sources, except
//! in [`load`], which renders them itself (there is no session to render against yet when
//! the standard library fails).

use crate::failure::Failure;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, ModuleId, Requirement, Session};
use gamelang_lang::program::{OpId, Pat, Program};
use gamelang_lang::span::Span;
use gamelang_runtime::Engine;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Load a file into a fresh session, or render its errors to standard error.
pub fn load(file: &Path) -> Result<Session, ExitCode> {
    let mut session = match Session::new() {
        Ok(s) => s,
        Err(rendered) => {
            eprint!("{rendered}");
            return Err(Failure::bug(
                "the standard library failed to load (this is a bug in gamelang)",
            )
            .report());
        }
    };
    if let Err(errors) = session.load_file(file) {
        let what = file.display().to_string();
        return Err(crate::failure::not_loaded(&what, &errors, &session.sources));
    }
    Ok(session)
}

/// The game `name` of the file (`--game NAME`), or its first game.
pub fn pick_game<'a>(
    session: &'a Session,
    file: &Path,
    name: Option<&str>,
) -> Result<&'a Game, Diag> {
    match name {
        Some(n) => session.games.iter().find(|g| g.name == n).ok_or_else(|| {
            // Every game of the file, chance games too (a command that takes both looks
            // for a chance game before it comes here).
            let names: Vec<&str> = (session.games.iter().map(|g| g.name.as_str()))
                .chain(session.chance_games.iter().map(|g| g.name.as_str()))
                .collect();
            let mut d = Diag::error(format!("{} declares no game `{n}`", file.display()));
            let hints = gamelang_lang::diag::suggest(n, names.iter().copied());
            if !hints.is_empty() {
                d = d.note(format!("did you mean `{}`?", hints.join("` or `")));
            }
            d.note(if names.is_empty() {
                "it declares no games".to_string()
            } else {
                format!("its games: {}", names.join(", "))
            })
        }),
        None => session.games.first().ok_or_else(|| {
            Diag::error(format!("{} declares no game", file.display()))
                .note("add a block `game NAME is instance WINS{YourView} . start TERM . first R . endgame`")
        }),
    }
}

/// [`pick_game`], then its parameters set (`--set n=6`, in order).
pub fn game_with_parameters(
    session: &mut Session,
    file: &Path,
    name: Option<&str>,
    set: &[String],
) -> Result<Game, Diag> {
    let game = pick_game(session, file, name)?.clone();
    for assignment in set {
        session.set_parameter(&game, assignment)?;
    }
    check_requirements(
        session,
        &game.modules(),
        &game.name,
        &game.params,
        &game.requires,
    )?;
    Ok(game)
}

/// Do the game's `requires` conditions hold with its parameters as they are now (after
/// `--set`)? Each is reduced; one that gives `false` is an error located at the
/// condition, with the parameters' values; one that fails to reduce, or gives something
/// else than a truth value, is that error.
pub fn check_requirements(
    session: &Session,
    roots: &[ModuleId],
    game: &str,
    params: &[(String, OpId)],
    requires: &[Requirement],
) -> Result<(), Diag> {
    if requires.is_empty() {
        return Ok(());
    }
    let mut engine = self::engine(session, roots);
    for r in requires {
        let t = engine.build(&r.cond, &[]);
        let v = engine
            .reduce(t)
            .map_err(|e| gamelang_runtime::diagnose::failure(&engine, &engine.failure(e)))?;
        if Some(v) == engine.true_term() {
            continue;
        }
        let text = session.sources.snippet(r.span).to_string();
        if Some(v) != engine.false_term() {
            return Err(Diag::at(
                r.span,
                format!(
                    "the requirement `{text}` of game `{game}` gives `{}`, not `true` or `false`",
                    engine.show(v)
                ),
                "not a truth value",
            ));
        }
        let values: Vec<String> = params
            .iter()
            .map(|(name, op)| {
                let c = engine.build(&Pat::App(*op, Vec::new()), &[]);
                match engine.reduce(c) {
                    Ok(v) => format!("{name} = {}", engine.show(v)),
                    Err(_) => format!("{name} = ?"),
                }
            })
            .collect();
        let mut d = Diag::at(
            r.span,
            format!("game `{game}` requires `{text}`, which does not hold"),
            "false",
        );
        if !values.is_empty() {
            d = d.note(format!("with {}", values.join(", ")));
        }
        return Err(d.note("give the parameters values it allows (`--set NAME=VALUE`)"));
    }
    Ok(())
}

/// The position a command starts from: `--from` (a configuration) and `--first` (a
/// player), parsed in the game's module, with the game's `start` and `first` as defaults;
/// and where `--from`'s text is, if it was given (see [`check_from`]).
pub fn position(
    session: &mut Session,
    game: &Game,
    from: Option<&str>,
    first: Option<&str>,
) -> Result<(Pat, Pat, Option<Span>), Diag> {
    let (start, at) = match from {
        Some(text) => {
            let start = session.parse_term(game.module, "--from", text, Some(game.config_sort))?;
            let file = session.sources.last().expect("--from was just added");
            (start, Some(Span::new(file, 0, text.len())))
        }
        None => (game.start.clone(), None),
    };
    let first = match first {
        Some(text) => session.parse_term(game.module, "--first", text, Some(game.player_sort))?,
        None => game.first.clone(),
    };
    Ok((start, first, at))
}

/// Reduce the configuration `--from` gave (at `at`), so that one that fails (an
/// ill-sorted `(-1 3)`, a term no equation reduces) is reported at `--from`, not at the
/// game being solved. The error says whether it was an interruption (Ctrl-C).
pub fn check_from(engine: &mut Engine, start: &Pat, at: Span) -> Result<(), (Diag, bool)> {
    let t = engine.build(start, &[]);
    let Err(e) = engine.reduce(t) else {
        return Ok(());
    };
    let failure = gamelang_game::SolveError::Runtime(engine.failure(e));
    let d = gamelang_game::diagnose(engine, &failure);
    let d = if d.span().is_some() {
        d.secondary(at, "while reducing the configuration given here")
    } else {
        d.primary(at, "in the configuration given here")
    };
    Err((d, gamelang_game::is_interrupted(&failure)))
}

/// An engine over the session's program (as it is now: after `--set`) as the modules
/// `roots` see it: without the equations of modules they do not import
/// ([`Session::program_for`]).
pub fn engine(session: &Session, roots: &[ModuleId]) -> Engine {
    Engine::new(program(session, roots))
}

/// The session's program as the modules `roots` see it, for engines of their own.
pub fn program(session: &Session, roots: &[ModuleId]) -> Arc<Program> {
    Arc::new(
        session
            .program_for(roots)
            .unwrap_or_else(|| session.program.clone()),
    )
}

/// Let Ctrl-C raise `flag` (an engine's `interrupt`): the computation stops cleanly and is
/// reported as interrupted (exit status 130) instead of the process being killed.
pub fn stop_on_ctrl_c(flag: &Arc<AtomicBool>) {
    let flag = flag.clone();
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
}

/// More worker threads than this many per core only add memory (an engine, a deep stack
/// each) and contention: a match of 3,000 tic-tac-toe games took 1.6 s on 100 threads of
/// a two-core machine, 4.8 s on 1,000 and 53 s on 2,000.
const THREADS_PER_CORE: usize = 8;

/// How many worker threads to run for `items` independent pieces of work (points of a
/// sweep, games of a match): `--threads` (`requested`) or one per core, but no more than
/// the pieces and than [`THREADS_PER_CORE`] per core — a note on standard error says so
/// when an explicit request is cut for the second reason.
pub fn worker_threads(requested: Option<usize>, items: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = THREADS_PER_CORE * cores;
    let threads = requested.unwrap_or(cores);
    if threads > most && items > most {
        eprintln!(
            "note: running {most} threads, not {threads}: this machine has {cores} core{}, \
             and more threads than {THREADS_PER_CORE} a core only add memory and contention",
            if cores == 1 { "" } else { "s" }
        );
    }
    threads.min(most).min(items).max(1)
}
