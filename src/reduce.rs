//! `gamelang reduce`: run the `reduce TERM .` commands of a file (Maude's), or reduce one
//! term given on the command line, and print each normal form in full.

use crate::failure::Failure;
use gamelang_game as driver;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{FileSetting, ModuleId, Session};
use gamelang_lang::program::Program;
use gamelang_lang::span::Span;
use gamelang_runtime::error::RuntimeError;
use gamelang_runtime::{Engine, Profile};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
pub struct ReduceArgs {
    /// A file of modules (Maude `fmod … endfm`, or a `.game` file); without TERM, its
    /// `reduce TERM .` commands are run in order (one that fails is reported and the
    /// others still run; the exit status is then 1).
    pub file: PathBuf,
    /// Reduce this term instead, in --module or else the file's last module. A variable
    /// in it (`N`, `N:Nat`) stands for an arbitrary constant of its sort, as in Maude.
    pub term: Option<String>,
    /// The module TERM is parsed and reduced in.
    #[arg(long, value_name = "NAME")]
    pub module: Option<String>,
    /// Give up with an error after this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Cut each printed normal form with `…` after about N characters (default: in full).
    #[arg(long, value_name = "N")]
    pub print_limit: Option<usize>,
    /// Do not print the `rewrites: … time: …` line after each result.
    #[arg(long)]
    pub quiet: bool,
    /// After each result, print what its rewrites were: each equation's applications
    /// (and the matches its condition refused) and each built-in's evaluations, most first,
    /// with where the equation is written (as Maude's `set profile on .`). The calls the
    /// call cache or a memo table answered (not rewritten) follow, by operator;
    /// GAMELANG_NO_CALL_CACHE=1 rewrites every call, as Maude does. Profiling makes a
    /// reduction slower.
    /// `--profile=json` prints it as one line of JSON instead (keys `rewrites`,
    /// `equations`, `builtins`, `answered`, as the README says).
    #[arg(long, value_name = "FORMAT", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "table")]
    pub profile: Option<crate::profile::Format>,
}

pub fn run(args: ReduceArgs) -> ExitCode {
    let mut session = match Session::new() {
        Ok(s) => s,
        Err(rendered) => {
            eprint!("{rendered}");
            return Failure::bug("the standard library failed to load (this is a bug in gamelang)")
                .report();
        }
    };
    let loaded = match session.load_file(&args.file) {
        Ok(l) => l,
        Err(errors) => {
            let what = args.file.display().to_string();
            return crate::failure::not_loaded(&what, &errors, &session.sources);
        }
    };
    let fail = |session: &Session, d: Diag| crate::failure::diag(&session.sources, &d);
    // The terms to reduce, parsed, with their modules; in a file, a term that does not
    // parse is reported in its turn and the others still run (as in Maude).
    let mut terms: Vec<(Option<Span>, ModuleId, Result<_, Diag>)> = Vec::new();
    match &args.term {
        Some(text) => {
            let module = match &args.module {
                Some(name) => match session.module_by_name(name) {
                    Some(m) => m,
                    None => {
                        let d = session.parameterised_error(name).unwrap_or_else(|| {
                            Diag::error(format!("no module `{name}` is loaded"))
                        });
                        return fail(&session, d);
                    }
                },
                None => match loaded.modules.last() {
                    Some(&m) => m,
                    None => {
                        let d = Diag::error(format!("{} declares no module", args.file.display()))
                            .note("name one with --module");
                        return fail(&session, d);
                    }
                },
            };
            match session.parse_symbolic_term(module, "<term>", text) {
                Ok(p) => terms.push((None, module, Ok(p))),
                Err(d) => return fail(&session, d),
            }
        }
        None => {
            if loaded.reductions.is_empty() {
                let d = Diag::error(format!("{} has no `reduce` command", args.file.display()))
                    .note("add `reduce TERM .` after a module, or give the term: gamelang reduce FILE TERM");
                return fail(&session, d);
            }
            terms.extend(
                loaded
                    .reductions
                    .iter()
                    .map(|r| (Some(r.span), r.module, session.symbolic_reduction_term(r))),
            );
        }
    }
    // Each reduction sees the equations of its module and of what that imports
    // (`Session::program_for`); the engine changes programs only where that differs.
    let full = Arc::new(session.program.clone());
    let mut programs: HashMap<ModuleId, Arc<Program>> = HashMap::new();
    let mut program_of = |m: ModuleId| {
        programs
            .entry(m)
            .or_insert_with(|| match session.program_for(&[m]) {
                Some(p) => Arc::new(p),
                None => full.clone(),
            })
            .clone()
    };
    let mut engine = match terms.first() {
        Some(&(_, m, _)) => Engine::new(program_of(m)),
        None => Engine::new(full.clone()),
    };
    engine.limits.max_steps = args.max_steps;
    // Nothing here holds a term across a reduction but the term being reduced: the engine
    // may collect garbage while it works, so a long reduction keeps only what it needs.
    engine.collect_in_reduce = true;
    engine.set_profiling(args.profile.is_some());
    crate::app::stop_on_ctrl_c(&engine.interrupt);
    let mut out = std::io::stdout().lock();
    // The file's `set … .` and `show … .` commands (none for a TERM given on the command
    // line), each applied before the reduction that follows it in the file.
    let settings_before = |k: usize| {
        let file = args.term.is_none();
        loaded.settings_before(k).filter(move |_| file)
    };
    let mut shown = Shown {
        stats: !args.quiet,
        quiet: args.quiet,
        timing: true,
        last_profile: None,
    };
    // A reduction that fails (a stuck term, a budget) is reported in its turn and the
    // file's other reductions still run, as Maude goes on after a term it cannot reduce;
    // the exit status says that one failed. Ctrl-C stops them all.
    let mut failed = 0;
    let mut status = ExitCode::SUCCESS;
    for (k, (command, module, pat)) in terms.iter().enumerate() {
        for setting in settings_before(k) {
            shown.apply(setting, &mut engine, args.profile, &mut out, &session);
        }
        let program = program_of(*module);
        if !Arc::ptr_eq(&program, engine.program()) {
            engine.set_program(program);
        }
        let pat = match pat {
            Ok(p) => p,
            Err(d) => {
                let _ = out.flush();
                status = fail(&session, d.clone());
                failed += 1;
                continue;
            }
        };
        let t = engine.build(pat, &[]);
        let (steps, began) = (engine.steps(), Instant::now());
        let v = match engine.reduce(t) {
            Ok(v) => v,
            Err(e) => {
                let interrupted = matches!(e, RuntimeError::Interrupted { .. });
                // (Not `driver::diagnose`, which words a cycle as a game's.)
                let failure = engine.failure(e);
                let mut d = gamelang_runtime::diagnose::failure(&engine, &failure);
                if interrupted {
                    // Name the term asked for, not the one the engine was on.
                    d.message = driver::interrupted_message(&engine, t);
                }
                if let (None, Some(span)) = (d.span(), command) {
                    // An error without a place of its own (division by zero, a budget):
                    // the file's `reduce` command it came from.
                    d = d.primary(*span, "in this reduction");
                }
                let _ = out.flush();
                status = fail(&session, d);
                if interrupted {
                    // (Exit 130, as every command stopped by Ctrl-C.)
                    return ExitCode::from(130);
                }
                // (The next reduction's profile starts from nothing.)
                engine.take_profile();
                // What the failed reduction built is garbage now: a reduction stopped by
                // the memory budget left the store at the budget, and the next one, however
                // small, failed on it too.
                engine.collect_garbage(&[]);
                failed += 1;
                continue;
            }
        };
        let elapsed = began.elapsed();
        let sig = &engine.program().sig;
        let sort = engine.store().sort_of(v);
        let sort = sig
            .sorts
            .get(sort.0 as usize)
            .map_or("?", |s| s.name.as_str());
        let nf = match args.print_limit {
            Some(n) => engine.show_limited(v, n),
            None => engine.show(v),
        };
        let _ = writeln!(out, "result {sort}: {nf}");
        match (shown.stats, shown.timing) {
            (false, _) => {}
            (true, false) => {
                let _ = writeln!(out, "rewrites: {}", engine.steps() - steps);
            }
            (true, true) => {
                let _ = writeln!(
                    out,
                    "rewrites: {}   time: {:.3} ms",
                    engine.steps() - steps,
                    elapsed.as_secs_f64() * 1e3
                );
            }
        }
        if let Some(profile) = engine.take_profile() {
            if let Some(format) = args.profile {
                let program = engine.program();
                let _ =
                    crate::profile::write_as(&mut out, &profile, program, &session.sources, format);
            }
            shown.last_profile = Some(profile);
        }
    }
    for setting in settings_before(terms.len()) {
        shown.apply(setting, &mut engine, args.profile, &mut out, &session);
    }
    // The process ends here: freeing the term store and the session term by term would
    // cost more than everything after the reduction (1.6% and 0.6% of `binary-add`'s
    // instructions); the operating system takes the memory back at once.
    std::mem::forget(engine);
    std::mem::forget(session);
    if failed > 0 && terms.len() > 1 {
        let _ = out.flush();
        eprintln!(
            "error: {failed} of the {} reductions failed (each reported above)",
            terms.len()
        );
    }
    status
}

/// What is printed after each result, as a file's Maude commands set it.
struct Shown {
    /// The `rewrites:` line (`set show stats off .`, or `--quiet`, leaves it out).
    stats: bool,
    /// `--quiet`: no `rewrites:` line, whatever the file sets.
    quiet: bool,
    /// The time on that line (`set show timing off .` leaves it out).
    timing: bool,
    /// What the last reduction profiled was, for `show profile .`.
    last_profile: Option<Profile>,
}

impl Shown {
    /// Apply one of the file's commands. `flag`: `--profile` was given (and how it
    /// prints), which profiles every reduction whatever the file says; `show profile .`
    /// prints in its format too.
    fn apply(
        &mut self,
        setting: FileSetting,
        engine: &mut Engine,
        flag: Option<crate::profile::Format>,
        out: &mut dyn Write,
        session: &Session,
    ) {
        match setting {
            FileSetting::Profile(on) => engine.set_profiling(on || flag.is_some()),
            FileSetting::ShowProfile => {
                let format = flag.unwrap_or_default();
                let _ = match &self.last_profile {
                    Some(p) => {
                        crate::profile::write_as(out, p, engine.program(), &session.sources, format)
                    }
                    None => writeln!(out, "{}", crate::profile::NOTHING_PROFILED),
                };
            }
            FileSetting::ShowTiming(on) => self.timing = on,
            FileSetting::ShowStats(on) => self.stats = on && !self.quiet,
            FileSetting::Ignored => {}
        }
    }
}
