//! Run-time failures as diagnostics: the message names the term, and labels point at the
//! declarations involved (the stuck operator and its equations, the recursing function, the
//! equation that probably built an ill-sorted term). Every front end (the solvers, the
//! REPL, `reduce`, sweeps) renders a [`RuntimeFailure`] through [`failure`].

use crate::error::{RuntimeError, RuntimeFailure};
use crate::term::TermId;
use crate::Engine;
use gamelang_lang::diag::Diag;
use gamelang_lang::program::{OpInfo, Pat};

/// A cycle outside a game: what it means for a reduction.
pub const CYCLE_NOTE: &str =
    "the equations lead this term back to itself, so its reduction would never end";

/// A cycle met in a game's search: what it means for the game.
pub const CYCLE_HINT: &str = "a position that repeats makes the game infinite; formula (1) needs a finite game tree (add a move counter to the configuration, or make repeated positions halt)";

/// `d` with a label at the declaration of the operator `info`, if it has a place.
fn declared_here(d: Diag, info: &OpInfo) -> Diag {
    match info.span {
        Some(span) => d.secondary(span, format!("`{}` is declared here", info.name)),
        None => d,
    }
}

/// Does `p` apply `op` anywhere?
fn applies(p: &Pat, op: gamelang_lang::program::OpId) -> bool {
    match p {
        Pat::App(o, args) => *o == op || args.iter().any(|a| applies(a, op)),
        _ => false,
    }
}

/// The message of an interrupted computation of `outer` (the position being solved, the
/// term typed): what the user asked for, not the inner term the engine was on.
pub fn interrupted_message(engine: &Engine, outer: TermId) -> String {
    format!(
        "interrupted while computing `{}`",
        engine.show_limited(outer, 300)
    )
}

/// A run-time failure as a diagnostic.
pub fn failure(engine: &Engine, f: &RuntimeFailure) -> Diag {
    let mut d = Diag::error(engine.describe(&f.error));
    if f.error.is_limit() && !matches!(f.error, RuntimeError::Interrupted { .. }) {
        d = d.code("gamelang::limit");
    }
    let sig = &engine.program().sig;
    match &f.error {
        RuntimeError::Stuck { op, term, reason } => {
            let info = sig.op(*op);
            // The hint about missing equations is for defined functions; a built-in
            // (or a lazy condition) that cannot compute says why in `reason`.
            let no_equation = reason == crate::error::NO_EQUATION;
            // What the arguments were (values, with their sorts).
            let args: Vec<String> = engine
                .store()
                .args(*term)
                .iter()
                .enumerate()
                .map(|(i, &a)| {
                    let sort = engine.store().sort_of(a);
                    let sort = sig
                        .sorts
                        .get(sort.0 as usize)
                        .map_or("?", |s| s.name.as_str());
                    format!("  {}. {} : {sort}", i + 1, engine.show_limited(a, 300))
                })
                .collect();
            if !args.is_empty() {
                d = d.note(format!(
                    "the arguments of `{}` were:\n{}",
                    info.name,
                    args.join("\n")
                ));
            }
            d = declared_here(d, info);
            let program = engine.program();
            if let Some(eqs) = program.eqs_by_op.get(op).filter(|_| no_equation) {
                // (An equation of an AC operator may stand for several compiled ones,
                // its extension among them: one label per equation as written.)
                let mut spans: Vec<_> = eqs.iter().map(|&i| program.equations[i].span).collect();
                spans.dedup();
                for span in spans.into_iter().take(6) {
                    d = d.secondary(span, "this equation does not apply");
                }
            }
            if no_equation {
                d = d.note(format!(
                    "`{}` has equations, so it is a defined function, and none of them covers this argument; add an equation for it (or declare `{}` as `ctor` if such terms are values)",
                    info.name, info.name
                ));
            }
        }
        RuntimeError::Cycle { .. } => {
            // (In a game's search, `gamelang_game::diagnose` says it in the game's terms.)
            d.message = format!("cycle: {}", d.message);
            d = d.note(CYCLE_NOTE);
        }
        RuntimeError::Loop { term, rewrites } => {
            d.message = format!("endless reduction: {}", d.message);
            if let Some(op) = engine.store().op(*term) {
                let info = sig.op(op);
                d = declared_here(d, info);
                d = d.note(format!(
                    "rewriting is deterministic: the equations that lead from this call of `{}` back to the same call, with the same arguments, would run the same way again and again; an argument that should shrink or reach a stopping case does not",
                    info.name
                ));
            }
            let s = if *rewrites == 1 { "" } else { "s" };
            d = d.note(format!(
                "it came back after {rewrites} rewrite{s} (calls the call cache answered not counted)"
            ));
        }
        RuntimeError::Interrupted { term } => {
            // The term reduced at the moment of the interrupt is whatever the
            // engine happened to be on (often `false` or a number); name the
            // outermost term being computed, the one the user asked about.
            let outer = f.trace.first().copied().unwrap_or(*term);
            d.message = interrupted_message(engine, outer);
        }
        RuntimeError::IllSorted { term, arg } => {
            if let Some(op) = engine.store().op(*term) {
                let program = engine.program();
                // Where the term was probably built: an equation of a function
                // being reduced (in the innermost term of the trace) whose
                // right-hand side applies the same operator. Named only when
                // there is exactly one.
                let mut candidates: Vec<usize> = Vec::new();
                let mut stack: Vec<TermId> = f.trace.last().copied().into_iter().collect();
                let mut seen = 0usize;
                while let Some(t) = stack.pop() {
                    seen += 1;
                    if seen > 10_000 {
                        break;
                    }
                    let Some(o) = engine.store().op(t) else {
                        continue;
                    };
                    for &i in program.eqs_by_op.get(&o).map_or(&[][..], |v| &v[..]) {
                        if !candidates.contains(&i) && applies(&program.equations[i].rhs, op) {
                            candidates.push(i);
                        }
                    }
                    stack.extend(engine.store().args(t).iter().copied());
                }
                if let [i] = candidates[..] {
                    d = d.primary(
                        program.equations[i].span,
                        format!(
                            "the ill-sorted `{}` term was probably built by this equation",
                            sig.op(op).name
                        ),
                    );
                }
                let info = sig.op(op);
                if let Some(span) = info.span {
                    // The sort expected is in the message; an associative
                    // operator's argument positions are those of the flattened term.
                    let label = match info.args.get(*arg).filter(|_| !info.attrs.assoc) {
                        Some(want) => format!(
                            "`{}` is declared here: argument {} must have sort `{}`",
                            info.name,
                            arg + 1,
                            sig.sort(*want).name
                        ),
                        None => format!(
                            "`{}` is declared here, with the sorts its arguments must have",
                            info.name
                        ),
                    };
                    d = d.secondary(span, label);
                }
            }
        }
        RuntimeError::StepBudget { .. } => {
            d = d.note("raise the budget with `--max-steps N` if the computation is just long");
        }
        RuntimeError::MemoryLimit { .. } => {
            // Say where the budget came from: the default, or the user's own setting.
            d = d.note(match std::env::var("GAMELANG_MAX_MEMORY") {
                Ok(set) => format!("the budget was set by GAMELANG_MAX_MEMORY={set}; raise it (e.g. `GAMELANG_MAX_MEMORY=12G`), or solve a smaller instance"),
                Err(_) => "the budget is half of the machine's memory; set GAMELANG_MAX_MEMORY (e.g. `GAMELANG_MAX_MEMORY=12G`) to change it, or solve a smaller instance".to_string(),
            });
        }
        RuntimeError::DepthLimit { term, .. } => {
            // The recursing function: the first defined operator in the term.
            let program = engine.program();
            let mut stack = vec![*term];
            let mut recursing = None;
            while let Some(t) = stack.pop() {
                if let Some(op) = engine.store().op(t) {
                    if program.is_defined(op) && sig.op(op).attrs.builtin.is_none() {
                        recursing = Some(op);
                        break;
                    }
                    stack.extend(engine.store().args(t).iter().rev());
                }
            }
            if let Some(op) = recursing {
                let info = sig.op(op);
                d = declared_here(d, info);
                d = d.note(format!(
                    "recursion too deep: each pending application of `{}` waits for the value of the next; check that the recursion ends (an equation for the base case, an argument that shrinks), or raise the limit if it is just deep",
                    info.name
                ));
            }
        }
        _ => {}
    }
    if !f.trace.is_empty() {
        let mut lines: Vec<String> = Vec::new();
        for (k, t) in f.trace.iter().enumerate() {
            if f.elided > 0 && k == crate::error::TRACE_HEAD {
                lines.push(format!("  … {} more …", f.elided));
            }
            // (Cut, as the error's own term is: a trace of a long list's recursion printed
            // in full was half a megabyte.)
            lines.push(format!("  {}", engine.show_limited(*t, TRACE_TERM_CHARS)));
        }
        d = d.note(format!(
            "while reducing (outermost first):\n{}",
            lines.join("\n")
        ));
    }
    d
}

/// Characters of each term of a trace ("while reducing (outermost first)") at most.
const TRACE_TERM_CHARS: usize = 300;
