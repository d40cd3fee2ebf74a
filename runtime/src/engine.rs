//! The rewriting engine: innermost normalisation with an explicit frame stack, lazy
//! Boolean built-ins, native integer arithmetic, memo tables and resource limits.
//!
//! # Machine
//!
//! [`Engine::reduce`] runs a loop over a *task* and a stack of frames. A task is
//!
//! * `Eval(t)` — normalise the existing term `t`;
//! * `Build(node, env)` — normalise an instance of a node of a compiled right-hand side or
//!   condition, under the variable values `env`, *without building the instance first*;
//! * `Return(v)` — hand the normal form `v` to the innermost pending frame.
//!
//! Frames:
//!
//! * `Args` / `BArgs` — the arguments of an application (an existing term / a right-hand
//!   side node) are being normalised, left to right; the normal forms so far sit on a
//!   shared value stack;
//! * `Lazy` / `BLazy` — the first argument of `and-then` / `or-else` / `if_then_else_fi`
//!   is being normalised, the others are untouched;
//! * `Cond` — the condition of a conditional equation is being normalised; the suspended
//!   [`Matcher`] (to find the next match if the condition is false) sits on a side stack
//!   of matchers that stay allocated between reductions;
//! * `Memo` — the value of a `memo` term is being computed; it is recorded on return.
//!
//! Once the arguments of an application are normal, it is rewritten at the top. When its
//! operator is free (no `assoc`/`comm`/`idem`/`id:` attribute) and not `memo`, the
//! application is *not hash-consed*: it is matched directly as operator + argument values
//! ([`Matcher::first_args`]). Only normal forms, memo keys and terms of operators with
//! equational attributes enter the term store, so the redexes that exist only to be
//! rewritten away (`n - 1`, `opts(n, S)`, `not halted(R, c)`, …) cost no memory.
//!
//! The right-hand side of an applied equation replaces the task (a tail call), so a
//! rewrite chain `f(n) → f(n - 1) → …` uses constant stack, and nothing recurses on the
//! Rust stack in proportion to term or reduction depth.
//!
//! Normal forms are marked in a bitset indexed by [`TermId`], so subterms already known
//! to be normal (e.g. the values substituted for variables) are not walked again.
//!
//! # Sharing
//!
//! * A right-hand side is a DAG (`compile`): a subterm written twice is normalised once per
//!   application of the equation, when first needed, and kept in a slot of the equation's
//!   environment. A sub-pattern of the left-hand side written again on the right is the
//!   subject's own subterm (bound by the matcher), not a rebuilt one.
//! * A hash-consed term that is not normal remembers its normal form once reduced
//!   (`Engine::nf`); met again while it is being reduced, it is a loop, reported at once.
//! * Before the matcher runs, an equation's *guards* (the operator or value required at
//!   each argument) rule out the equations that cannot match; a direct function reads the
//!   heads of one or two arguments once and tries only the equations that can apply, without
//!   testing again the guards those heads settle (`dispatch`); an equation so settled whose
//!   left-hand side is a function of constructors applied to variables is matched by loading
//!   its variables straight from the arguments and their children (`Pattern::arg_loads`).
//!   A left-hand side that is simple but for AC lists taken as removals, at most one
//!   element picked and the rests (`e in (e, S)`, `meets((w, U), (w, W))`) is matched by
//!   its matches in the matcher's order (`Pattern::match_ac_first`: the picked element
//!   tried in turn, and again after a condition refuses a match).
//! * A direct function's right-hand side runs as straight-line code compiled when the
//!   program is loaded (`code`), not as a walk of its node DAG.
//! * The values of open calls of defined functions are remembered by operator and
//!   argument ids (`calls`, by the direct evaluator and the machine): a call met again,
//!   in this reduction or a later one, is a lookup.
//!
//! # Files
//!
//! This file holds the engine's data (compiled equations, frames, tasks) and its set-up;
//! `machine` runs the loop, `apply` rewrites at the top (memo, built-ins, equations),
//! `builtin` computes the strict built-ins, `compile` compiles right-hand sides, `direct`
//! evaluates right-hand sides by native recursion (`code` flattens them, `dispatch` picks
//! the equations to try), `calls` is its call cache, `gc`
//! collects garbage, `describe` words errors, `shared` shares memo tables across threads,
//! `watch` checks memory and progress, `profile` counts the steps by equation and built-in
//! (`--profile`), and `grid` holds the board built-ins.
//!
//! # Memory
//!
//! Garbage is collected between reductions by the caller (`gc`), and during one when the
//! caller allows it ([`Engine::collect_in_reduce`]), with the pending work as roots.

use crate::error::{RuntimeError, RuntimeFailure, NO_EQUATION, TRACE_HEAD, TRACE_TAIL};
use crate::matching::{ArgLoads, Load, Matcher, Pattern};
use crate::term::{TermId, TermStore};
use gamelang_lang::program::{Builtin, OpId, Pat, Program, SortId};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod apply;
mod arith;
mod builtin;
mod calls;
mod code;
mod compile;
mod describe;
mod direct;
mod dispatch;
mod gc;
mod grid;
mod loops;
mod machine;
mod profile;
mod shared;
mod strings;
mod watch;

use builtin::BuiltinError;
use profile::Step;

pub use profile::Profile;
pub use shared::{SharedMemo, SharedStats};
pub use watch::{
    memory_budget, parse_size, resident_memory, set_memory_budget, set_progress, show_bytes,
};

/// Resource limits of a reduction. All public: set them directly on [`Engine::limits`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most steps (equation applications + built-in evaluations) one call to
    /// [`Engine::reduce`] may take.
    pub max_steps: u64,
    /// Most pending frames (nested reductions).
    pub max_depth: usize,
    /// Most entries in all memo tables together.
    pub max_memo_entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 10_000_000_000,
            max_depth: 50_000_000,
            max_memo_entries: 200_000_000,
        }
    }
}

/// A node of a compiled right-hand side or condition. Children of `App` are
/// `Engine::kids[kids..kids + n]`.
#[derive(Clone, Copy, Debug)]
enum Node {
    /// A ground subterm, prebuilt (normalised modulo attributes, not reduced).
    Term(TermId),
    Var(u32),
    App {
        op: OpId,
        kids: u32,
        n: u32,
    },
    /// A subterm written more than once in a right-hand side or condition: `body` is
    /// normalised the first time it is needed and its value kept in the environment entry
    /// `slot` (see `compile`).
    Shared {
        slot: u32,
        body: u32,
    },
}

#[derive(Debug)]
struct CompiledEq {
    lhs: Pattern,
    rhs: u32,
    cond: Option<u32>,
    /// Environment entries an application needs: the variables, then the slots of shared
    /// nodes.
    width: u32,
    /// Checked before matching (see `compile::Guard`).
    guards: SmallVec<[compile::Guard; 2]>,
    /// Set when the right side or condition uses a variable the left side does not bind.
    invalid: Option<String>,
    /// Where the right-hand side's code starts in `Engine::code`, if it is an application
    /// (see `code`).
    code: Option<u32>,
    /// The left-hand side as loads from the subject's arguments, for a direct function's
    /// candidates whose heads the dispatch has settled (`Pattern::arg_loads`).
    loads: Option<ArgLoads>,
}

/// What the engine needs per operator at run time.
#[derive(Clone, Debug, Default)]
struct OpRt {
    builtin: Option<Builtin>,
    lazy: bool,
    memo: bool,
    ctor: bool,
    defined: bool,
    assoc: bool,
    /// Has equational attributes: applications must be normalised by the store.
    norm: bool,
    /// A constructor pure and simple: no equations, not built in, not memo. Its normalised
    /// applications to normal forms are normal.
    plain: bool,
    /// `memo`, free (no equational attributes) and of arity ≤ 2: its memo table is keyed by
    /// the argument ids themselves (`Engine::memo2`), so looking up `w(B, c)` builds no
    /// term.
    memo_pair: bool,
    /// A *direct function*: not memo, no equational attributes, not lazy, and every
    /// equation's left-hand side simple with a free top (see `direct`): its applications
    /// are rewritten by native recursion when the direct evaluator runs.
    direct: bool,
    /// A memo function (free) whose equations a direct function could have: the direct
    /// evaluator looks its calls up in the memo table, and computes the misses as a
    /// direct function's and remembers them (`Engine::d_memo_begin`), without the
    /// machine's frames.
    memo_direct: bool,
    /// A function with equations, rewritten as an open call (free, not memo, not lazy)
    /// and not built in: the direct evaluator and the machine remember its calls' values
    /// in the call cache (`calls`). (A built-in is cheaper to evaluate than to look up.)
    cached: bool,
    /// Indices into `Engine::eqs`, in the order to try them.
    eqs: Box<[u32]>,
    /// For a direct function: which of `eqs` to try, by the heads of one or two arguments.
    dispatch: dispatch::Dispatch,
}

impl OpRt {
    /// A plain free constructor: its applications to normal forms are normal once their
    /// sorts are checked (`Engine::complete_ctor`, `Engine::build_ctor`).
    #[inline]
    fn ctor_plain(&self) -> bool {
        self.plain && !self.assoc && !self.norm
    }
}

/// The key of a memo-pair table: the ids of the (at most two) arguments.
#[inline]
fn pair_key(n: usize, a0: TermId, a1: TermId) -> u64 {
    match n {
        0 => 0,
        1 => a0.0 as u64,
        _ => a0.0 as u64 | (a1.0 as u64) << 32,
    }
}

/// How deep [`Engine::quick`] evaluates a right-hand side or condition at once.
const QUICK_DEPTH: u32 = 4;

/// No term: marks an "open" subject and unbound variables.
const NONE: TermId = TermId(u32::MAX);
/// `Frame::Cond::kept` of a condition whose match is in a suspended `Matcher`.
const NO_ENV: u32 = u32::MAX;
/// Marks a memo entry whose value is being computed.
const IN_PROGRESS: TermId = TermId(u32::MAX);

/// The application being rewritten at the top: an existing term (`term`), or, when
/// `term == NONE`, the operator `op` applied to the `n` values `vals[base..base + n]`.
#[derive(Clone, Copy, Debug)]
struct Subj {
    term: TermId,
    op: OpId,
    base: u32,
    n: u32,
}

impl Subj {
    fn known(term: TermId, op: OpId) -> Subj {
        Subj {
            term,
            op,
            base: 0,
            n: 0,
        }
    }

    fn is_open(&self) -> bool {
        self.term == NONE
    }
}

#[derive(Clone, Copy, Debug)]
enum Frame {
    Args {
        term: TermId,
        next: u32,
        base: u32,
    },
    BArgs {
        node: u32,
        next: u32,
        base: u32,
        env: u32,
        owner: bool,
    },
    Lazy {
        term: TermId,
    },
    BLazy {
        node: u32,
        env: u32,
        owner: bool,
    },
    /// The condition of equation `pos` of the subject's operator is being normalised.
    /// `kept` is the start of the match's environment on `Engine::envs` when the
    /// equation's left-hand side is simple (matched without a `Matcher`, so no next match
    /// to look for: the environment is kept for the right-hand side), else `NO_ENV` (the
    /// suspended matcher is `matchers[nconds - 1]`).
    Cond {
        subj: Subj,
        pos: u32,
        kept: u32,
    },
    Memo {
        term: TermId,
    },
    /// The value of a memo-pair application (see `OpRt::memo_pair`) is being computed.
    Memo2 {
        op: OpId,
        key: u64,
    },
    /// The call `op(key)` of a cached function (see `calls`) is being rewritten by the
    /// machine; its value goes to the call cache. Its arguments are roots for a collection
    /// meanwhile. `since`: the low bits of `Engine::steps` when it started (its cost is the
    /// difference).
    Cache {
        op: OpId,
        key: [u32; calls::MAX_ARGS],
        since: u32,
    },
    /// The existing, not normal term `term` is being normalised; its normal form goes to
    /// `Engine::nf`.
    Remember {
        term: TermId,
    },
    /// The body of the shared node `node` is being normalised under `env`; its value goes
    /// to the node's slot.
    Fill {
        node: u32,
        env: u32,
        owner: bool,
    },
}

/// `env` is the start of the variable values on `Engine::envs`; the `owner` task
/// releases them once it no longer needs them.
enum Task {
    Eval(TermId),
    Build { node: u32, env: u32, owner: bool },
    Return(TermId),
}

#[inline]
fn bit(bits: &[u64], t: TermId) -> bool {
    let i = t.index();
    bits.get(i >> 6).is_some_and(|w| (w >> (i & 63)) & 1 != 0)
}

fn unbound_var(p: &Pat, bound: &[bool]) -> Option<u32> {
    match p {
        Pat::Int(_) => None,
        Pat::Var(v) => (!bound.get(*v as usize).copied().unwrap_or(false)).then_some(*v),
        Pat::App(_, args) => args.iter().find_map(|a| unbound_var(a, bound)),
    }
}

/// Set `read[v]` for each variable `v` of `p`.
fn mark_vars(p: &Pat, read: &mut [bool]) {
    match p {
        Pat::Int(_) => {}
        Pat::Var(v) => {
            if let Some(r) = read.get_mut(*v as usize) {
                *r = true;
            }
        }
        Pat::App(_, args) => args.iter().for_each(|a| mark_vars(a, read)),
    }
}

/// The rewriting engine. See the module documentation for how it works.
pub struct Engine {
    program: Arc<Program>,
    store: TermStore,
    /// Resource limits, checked during [`Engine::reduce`].
    pub limits: Limits,
    /// Raise this flag (from any thread) to make the running [`Engine::reduce`] stop with
    /// [`RuntimeError::Interrupted`] within a few thousand steps. The engine never lowers
    /// it: reset it before reducing again.
    pub interrupt: Arc<AtomicBool>,
    /// Collect garbage *during* [`Engine::reduce`] too, when the store has doubled, with
    /// the pending work as roots: a long reduction then runs in the memory of what it still
    /// needs rather than of everything it built. Off by default, because it invalidates
    /// every term id the caller holds other than the one being reduced: only for callers
    /// that hold none across the call (`gamelang reduce`; not the REPL, whose `play` keeps
    /// positions between commands, nor the game driver and the sweep, which collect between
    /// reductions).
    pub collect_in_reduce: bool,
    /// Do not collect garbage (between or during reductions) before the store holds this
    /// many terms; past it, collect when the store has doubled since the last collection.
    pub collect_min_terms: usize,
    steps: u64,
    /// Where the step count's test trips: the last step the reduction under way may take
    /// (while profiling, the current step: see `profile`).
    step_limit: u64,
    /// The last step the reduction under way may take.
    step_budget: u64,
    /// The counts of every step, while profiling ([`Engine::set_profiling`]).
    profile: Option<Box<Profile>>,
    /// When set, the step budget counts from this step on, across calls to `reduce`
    /// ([`Engine::begin_step_budget`]): a solver that reduces once per position keeps one
    /// budget for the whole solve.
    budget_base: Option<u64>,
    normal: Vec<u64>,
    memo: Vec<FxHashMap<TermId, TermId>>,
    /// Memo tables of the memo-pair operators, keyed by [`pair_key`] of the arguments.
    memo2: Vec<FxHashMap<u64, TermId>>,
    /// The normal forms of hash-consed terms that were not normal (a ground subterm of a
    /// right-hand side, a term typed by the user, their subterms): the same redex met
    /// again costs a lookup, and one met again while it is being reduced (`IN_PROGRESS`) is
    /// a loop, reported at once. A cache: emptied by garbage collection and program
    /// changes.
    nf: FxHashMap<TermId, TermId>,
    memo_total: usize,
    ops: Vec<OpRt>,
    eqs: Vec<CompiledEq>,
    nodes: Vec<Node>,
    kids: Vec<u32>,
    /// The right-hand sides' straight-line code (see `code`).
    code: Vec<code::Ins>,
    /// For each node: whether [`Engine::quick`] can ever evaluate it (it is built of
    /// variables, ground terms, strict built-ins and plain constructors only). Asking
    /// `quick` about a call of a defined function always fails, and a right-hand side such
    /// as `cons(X, app(L, M))` would ask it once per rewrite.
    quickable: Vec<bool>,
    /// For each node: where its unboxed code starts in `arith_code` (see `arith`: integer
    /// and Boolean expressions `quick` computes in registers), or `arith::NO_ARITH`, or
    /// `arith::NOT_QUICK` where `quickable` is false.
    arith: Vec<u32>,
    arith_code: Vec<arith::Arith>,
    /// For each node: which of its children's values are not known, when it is compiled,
    /// to be of the sorts its operator declares (bit `i` for child `i`), or
    /// `compile::UNCHECKED`. A constructor application checks only those when it is built
    /// (see `compile::RhsCompiler::sorted`).
    node_checked: Vec<u32>,
    /// Use the direct evaluator (on by default; off to compare with the machine alone).
    pub direct: bool,
    /// Let the direct evaluator remember the values of calls in the call cache (on by
    /// default; off to compare, or to count the rewrites a reduction takes without it).
    pub call_cache: bool,
    calls: calls::CallCache,
    /// The cached calls the direct evaluator is rewriting (see `Engine::d_apply`).
    asking: Vec<calls::Asked>,
    /// The native stack address below which the direct evaluator stops (`usize::MAX`:
    /// it does not run).
    direct_floor: usize,
    /// Did the current reduction use the direct evaluator? (On error it is run again
    /// without it.)
    direct_used: bool,
    /// The watches for endless loops (see `loops`).
    loops: loops::Loops,
    /// Steps counted outside a run loop's own count (the direct evaluator's, and the
    /// machine's equations applied for it), for their periodic checks (`Engine::tick`:
    /// interrupt, memory; and the direct evaluator's garbage).
    ticks: u32,
    /// Reductions begun (wrapping): every `watch::QUESTIONS_MASK + 1` of them the memory
    /// budget is checked, since the short questions of a solver never reach a check of
    /// their own run loop (`Engine::watch_questions`).
    questions: u32,
    /// The store's size past which the next reduction to begin checks the memory budget
    /// whatever `questions` says (`watch::TERMS_BETWEEN_CHECKS`).
    check_at_terms: usize,
    /// The store's size (terms plus segment elements) past which a run loop reads the
    /// memory budget (`Engine::watch_growth`).
    check_at_size: usize,
    /// Times a reduction has read the process's resident memory (`Engine::watch`).
    memory_checks: u64,
    /// Nested calls of the direct evaluator under way, and constructors pending (counted
    /// with the frames against `Limits::max_depth`).
    d_depth: usize,
    /// Constructors waiting for the value of a call made in tail position (see
    /// `Engine::d_apply`); their other arguments are on `vals`.
    conses: Vec<direct::Cons>,
    /// Constructors the direct evaluator has built after the call they waited for.
    conses_built: u64,
    /// The machine's run loop returns when a value reaches this many frames: 0, or the
    /// frames pending when the direct evaluator ran the machine nested.
    frame_floor: usize,
    /// The term being reduced, a root for collections during the reduction (it is reduced
    /// again if the direct evaluation fails).
    reduce_root: TermId,
    frames: Vec<Frame>,
    vals: Vec<TermId>,
    envs: Vec<TermId>,
    /// `matchers[..nconds]` belong to pending `Cond` frames (innermost last);
    /// `matchers[nconds]` is the scratch matcher for the next equation tried.
    matchers: Vec<Matcher>,
    nconds: usize,
    /// The registers of [`Pattern::match_simple`].
    simple_regs: Vec<TermId>,
    true_t: Option<TermId>,
    false_t: Option<TermId>,
    trace: Vec<TermId>,
    trace_elided: usize,
    /// Memo tables shared with engines on other threads, if any.
    shared: Option<SharedMemo>,
    shared_stats: SharedStats,
    /// Live terms and segment elements after the last garbage collection.
    gc_live: usize,
    gc_segs: usize,
    /// `TermStore::string_bytes` at the last collection.
    gc_strings: usize,
    /// [`TermStore::spilled_arguments`] after the last collection.
    gc_spilled: usize,
    /// [`TermStore::live_spilled`] after the last collection.
    gc_live_spilled: usize,
    /// Terms the direct evaluator had the machine build (`Engine::d_step`): every so
    /// many, a collection is considered.
    built: u32,
    /// `gc_live` and `gc_segs` after the last full collection (`Engine::collect_due`).
    full_live: usize,
    full_segs: usize,
    full_collections: u64,
    collections: u64,
    /// The GRID-SYNTAX operators, if the program has them, and compiled actions and goals.
    /// Shared so that a built-in can hold it while it mutates the engine (the operator maps
    /// are not copied per call).
    grid: Option<Arc<crate::grid::GridOps>>,
    grid_cache: crate::grid::GridCache,
}

impl Engine {
    /// An engine for `program` with default [`Limits`].
    pub fn new(program: Arc<Program>) -> Engine {
        let store = TermStore::new(&program.sig);
        let mut e = Engine {
            program: program.clone(),
            store,
            limits: Limits::default(),
            interrupt: Arc::new(AtomicBool::new(false)),
            collect_in_reduce: false,
            collect_min_terms: 1 << 18,
            steps: 0,
            step_limit: u64::MAX,
            step_budget: u64::MAX,
            profile: None,
            budget_base: None,
            normal: Vec::new(),
            memo: Vec::new(),
            memo2: Vec::new(),
            nf: FxHashMap::default(),
            memo_total: 0,
            ops: Vec::new(),
            eqs: Vec::new(),
            nodes: Vec::new(),
            kids: Vec::new(),
            code: Vec::new(),
            quickable: Vec::new(),
            arith: Vec::new(),
            arith_code: Vec::new(),
            node_checked: Vec::new(),
            // `GAMELANG_NO_DIRECT=1`: the machine alone, to compare (docs/benchmarks.md).
            direct: std::env::var_os("GAMELANG_NO_DIRECT").is_none(),
            // `GAMELANG_NO_CALL_CACHE=1`: every call rewritten, to compare.
            call_cache: std::env::var_os("GAMELANG_NO_CALL_CACHE").is_none(),
            calls: Default::default(),
            asking: Vec::new(),
            direct_floor: usize::MAX,
            direct_used: false,
            loops: Default::default(),
            ticks: 0,
            questions: 0,
            check_at_terms: 0,
            check_at_size: 0,
            memory_checks: 0,
            d_depth: 0,
            conses: Vec::new(),
            conses_built: 0,
            frame_floor: 0,
            reduce_root: NONE,
            frames: Vec::new(),
            vals: Vec::new(),
            envs: Vec::new(),
            matchers: Vec::new(),
            nconds: 0,
            simple_regs: Vec::new(),
            true_t: None,
            false_t: None,
            trace: Vec::new(),
            trace_elided: 0,
            shared: None,
            shared_stats: SharedStats::default(),
            gc_live: 0,
            gc_segs: 0,
            gc_strings: 0,
            gc_spilled: 0,
            gc_live_spilled: 0,
            built: 0,
            full_live: 0,
            full_segs: 0,
            full_collections: 0,
            collections: 0,
            grid: None,
            grid_cache: Default::default(),
        };
        e.set_program(program);
        // (Growth is counted from the program's own terms on.)
        e.check_at_terms = e.store.len() + watch::TERMS_BETWEEN_CHECKS;
        e.check_at_size = e.store.len()
            + e.store.segment_elements()
            + e.store.spilled_arguments()
            + watch::GROWTH_BETWEEN_CHECKS;
        e
    }

    /// Switch to a reloaded or extended program. Terms already built stay valid (ids of
    /// operators are assumed to keep their meaning); memo tables and normal-form marks are
    /// dropped, equations recompiled.
    pub fn set_program(&mut self, program: Arc<Program>) {
        self.program = program;
        let program = self.program.clone();
        let sig = &program.sig;
        self.store.set_signature(sig);
        self.grid = crate::grid::GridOps::find(sig).map(Arc::new);
        self.grid_cache.clear();
        self.normal.clear();
        self.memo = vec![FxHashMap::default(); sig.ops.len()];
        self.memo2 = vec![FxHashMap::default(); sig.ops.len()];
        self.nf = FxHashMap::default();
        self.calls.clear();
        self.memo_total = 0;
        self.frames.clear();
        self.vals.clear();
        self.envs.clear();
        self.nconds = 0;
        self.ops = sig
            .ops
            .iter()
            .enumerate()
            .map(|(i, info)| {
                let a = &info.attrs;
                OpRt {
                    builtin: a.builtin,
                    lazy: matches!(
                        a.builtin,
                        Some(Builtin::AndThen | Builtin::OrElse | Builtin::IfThenElse)
                    ),
                    memo: a.memo,
                    ctor: a.ctor,
                    defined: program.is_defined(OpId(i as u32)),
                    assoc: a.assoc,
                    norm: a.equational(),
                    plain: !program.is_defined(OpId(i as u32)) && a.builtin.is_none() && !a.memo,
                    memo_pair: a.memo && !a.equational() && info.args.len() <= 2,
                    // Set below, once the equations are compiled.
                    direct: false,
                    memo_direct: false,
                    cached: false,
                    eqs: program
                        .eqs_by_op
                        .get(&OpId(i as u32))
                        .map(|v| v.iter().map(|&e| e as u32).collect())
                        .unwrap_or_default(),
                    dispatch: dispatch::Dispatch::default(),
                }
            })
            .collect();
        self.nodes.clear();
        self.kids.clear();
        self.node_checked.clear();
        let mut node_sorts = Vec::new();
        let ctors: Vec<bool> = self.ops.iter().map(|rt| rt.plain && !rt.norm).collect();
        let mut eqs = Vec::with_capacity(program.equations.len());
        for eq in &program.equations {
            let wanted =
                compile::rhs_subpatterns(&eq.rhs, eq.cond.as_ref(), compile::size(&eq.lhs));
            let compiled = Pattern::compile_lhs(&eq.lhs, &eq.vars, &mut self.store, &wanted);
            let (lhs, bound) = (compiled.pattern, compiled.bound);
            // A simple match checks (or knows) the sort of every variable it binds; the AC
            // matcher's rest variables are not checked, so nothing is assumed of them.
            let var_sorts: Vec<SortId> = if lhs.is_simple() {
                eq.vars.iter().map(|v| v.sort).collect()
            } else {
                Vec::new()
            };
            let mut rc = compile::RhsCompiler::new(
                &mut self.store,
                &mut self.nodes,
                &mut self.kids,
                &mut node_sorts,
                &mut self.node_checked,
                &ctors,
                &var_sorts,
                lhs.nvars() as u32,
            );
            let (rhs, cond) = rc.compile(&eq.rhs, eq.cond.as_ref(), &compiled.aliases);
            let width = rc.width();
            let unbound = unbound_var(&eq.rhs, &bound)
                .or_else(|| eq.cond.as_ref().and_then(|c| unbound_var(c, &bound)));
            let invalid = unbound.map(|v| {
                let name = eq.vars.get(v as usize).map_or("?", |i| i.name.as_str());
                format!(
                    "an equation of module `{}` uses the variable `{name}`, which its left-hand side does not bind",
                    eq.module
                )
            });
            let mut lhs = lhs;
            let mut read = vec![false; eq.vars.len().max(lhs.nvars())];
            for p in std::iter::once(&eq.rhs).chain(eq.cond.as_ref()) {
                mark_vars(p, &mut read);
            }
            lhs.drop_unneeded_rests(|v| read.get(v as usize).is_none_or(|&r| r));
            let guards = compile::guards(&eq.lhs, &mut self.store);
            let loads = lhs.arg_loads();
            eqs.push(CompiledEq {
                loads,
                lhs,
                rhs,
                cond,
                width,
                guards,
                invalid,
                code: None,
            });
        }
        self.eqs = eqs;
        self.quickable = self.quickable_nodes();
        for rt in &mut self.ops {
            // Applications rewritten as open calls (operator + argument values).
            let open = !rt.plain && !rt.memo && !rt.norm && !rt.lazy;
            // A left-hand side with AC lists and at most one choice point (`(c, S)`,
            // `e in (e, S)`) is matched directly, its matches in the matcher's order
            // (`Pattern::match_ac_first`; the next one when a condition refuses one).
            let direct_eqs = rt.eqs.iter().all(|&e| {
                let lhs = &self.eqs[e as usize].lhs;
                (lhs.is_simple() || lhs.is_ac_first()) && lhs.free_top().is_some()
            });
            rt.memo_direct =
                rt.memo && !rt.norm && !rt.lazy && rt.defined && rt.builtin.is_none() && direct_eqs;
            rt.direct = open && (rt.defined || rt.builtin.is_some()) && direct_eqs;
            rt.cached = open && !rt.eqs.is_empty() && rt.builtin.is_none();
            if rt.direct || rt.memo_direct {
                let guards: Vec<&[compile::Guard]> = rt
                    .eqs
                    .iter()
                    .map(|&e| self.eqs[e as usize].guards.as_slice())
                    .collect();
                rt.dispatch = dispatch::Dispatch::new(&guards, &self.store);
            }
        }
        self.code.clear();
        for e in 0..self.eqs.len() {
            self.eqs[e].code = self.compile_code(self.eqs[e].rhs);
        }
        self.true_t = sig.true_op.map(|o| self.store.intern_app(o, &[]));
        self.false_t = sig.false_op.map(|o| self.store.intern_app(o, &[]));
        for t in [self.true_t, self.false_t].into_iter().flatten() {
            self.set_normal(t);
        }
        self.compile_arith();
        self.restart_profile();
    }

    /// The program being run.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The term store (read access: data, arguments, sorts, structural order).
    pub fn store(&self) -> &TermStore {
        &self.store
    }

    /// The term store, to build terms directly.
    pub fn store_mut(&mut self) -> &mut TermStore {
        &mut self.store
    }

    /// The integer literal `v`.
    pub fn mk_int(&mut self, v: i64) -> TermId {
        self.store.mk_int(v)
    }

    /// `op(args…)`, normalised modulo the attributes of `op` (not reduced).
    pub fn mk_app(&mut self, op: OpId, args: &[TermId]) -> TermId {
        self.store.mk_app(op, args)
    }

    /// The Boolean constant `b` (`None` if the program has no built-in Booleans).
    pub fn mk_bool(&self, b: bool) -> Option<TermId> {
        if b {
            self.true_t
        } else {
            self.false_t
        }
    }

    /// The term `true`, if the program declares it.
    pub fn true_term(&self) -> Option<TermId> {
        self.true_t
    }

    /// The term `false`, if the program declares it.
    pub fn false_term(&self) -> Option<TermId> {
        self.false_t
    }

    /// Reduce the instance of `pat` under `subst`, as `reduce(build(pat, subst))` does.
    /// When `pat` is an operator applied to the variables in order (`move(?0, ?1, ?2)`,
    /// `next-config(?0, ?1)`: every question a solver or an explorer asks of a position)
    /// and the values are normal, the application is not built ([`Engine::reduce_app`]).
    pub fn reduce_pat(&mut self, pat: &Pat, subst: &[TermId]) -> Result<TermId, RuntimeError> {
        match pat {
            Pat::App(op, args)
                if args.len() == subst.len()
                    && args
                        .iter()
                        .enumerate()
                        .all(|(i, a)| matches!(a, Pat::Var(v) if *v as usize == i)) =>
            {
                self.reduce_app(*op, subst)
            }
            _ => {
                let t = self.build(pat, subst);
                self.reduce(t)
            }
        }
    }

    /// Instantiate `pat` with `subst` (variable `i` ↦ `subst[i]`), normalising modulo
    /// attributes but not reducing. With an empty `subst` the pattern must be ground.
    ///
    /// # Panics
    /// If the pattern has a variable without an entry in `subst`.
    pub fn build(&mut self, pat: &Pat, subst: &[TermId]) -> TermId {
        match pat {
            Pat::Var(v) => *subst
                .get(*v as usize)
                .unwrap_or_else(|| panic!("build: variable #{v} has no value")),
            Pat::Int(i) => self.store.mk_int(*i),
            Pat::App(op, args) => {
                let a: SmallVec<[TermId; 8]> = args.iter().map(|a| self.build(a, subst)).collect();
                self.store.mk_app(*op, &a)
            }
        }
    }

    /// The flattened arguments of `t` as an `op`-list: its arguments if it is headed by
    /// `op`, nothing if it is the identity of `op`, `[t]` otherwise.
    pub fn elements(&self, t: TermId, op: OpId) -> Vec<TermId> {
        self.store.elements(&t, op).to_vec()
    }

    /// Steps (equation applications + built-in evaluations) since the engine was created.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Times the reductions of this engine have read the process's resident memory for
    /// the memory budget: once every 2^18 steps at most, since a read asks the kernel.
    pub fn memory_checks(&self) -> u64 {
        self.memory_checks
    }

    /// Constructors in tail position that the direct evaluator has left pending while it
    /// made the call giving their last argument, in a loop rather than a nested call (see
    /// `Engine::d_apply`), and built after it.
    pub fn conses_built(&self) -> u64 {
        self.conses_built
    }

    /// Number of completed entries in the memo table of `op`.
    pub fn memo_len(&self, op: OpId) -> usize {
        let done = |v: &&TermId| **v != IN_PROGRESS;
        self.memo
            .get(op.0 as usize)
            .map_or(0, |m| m.values().filter(done).count())
            + self
                .memo2
                .get(op.0 as usize)
                .map_or(0, |m| m.values().filter(done).count())
    }

    /// Number of entries in all memo tables.
    pub fn memo_total(&self) -> usize {
        self.memo_total
    }

    /// Empty every memo table.
    pub fn clear_memo(&mut self) {
        for m in &mut self.memo {
            *m = FxHashMap::default();
        }
        for m in &mut self.memo2 {
            *m = FxHashMap::default();
        }
        self.memo_total = 0;
    }

    /// Is `t` known to be in normal form?
    pub fn is_normal(&self, t: TermId) -> bool {
        bit(&self.normal, t)
    }

    /// `op(args…)`, interned and, when reducing it would give it back unchanged, marked
    /// normal: `op` a plain free constructor (no equations, not built in, not memo, no
    /// equational attributes) and every argument a value or known normal, of a sort the
    /// declaration admits. For callers that build normal forms themselves (the chance
    /// explorer rebuilds a shared move's answer with another state's arguments): the
    /// questions asked of the result later take the fast path of [`Engine::reduce_app`],
    /// which builds no term for them.
    pub fn mk_app_normal(&mut self, op: OpId, args: &[TermId]) -> TermId {
        let t = self.store.mk_app(op, args);
        // Built before and known normal (the chance explorer rebuilds each state about six
        // times): nothing to check.
        if bit(&self.normal, t) {
            return t;
        }
        let rt = &self.ops[op.0 as usize];
        let decl = &self.program.sig.op(op).args;
        let normal = rt.plain
            && !rt.norm
            && decl.len() == args.len()
            && args.iter().zip(decl).all(|(&a, &d)| {
                (bit(&self.normal, a) || self.store.op(a).is_none()) && self.store.has_sort(a, d)
            });
        if normal {
            self.set_normal(t);
        }
        t
    }

    /// The chain of enclosing terms being reduced when the most recent error happened,
    /// outermost first (see [`crate::error`]); empty after a successful reduction.
    pub fn trace(&self) -> &[TermId] {
        &self.trace
    }

    /// How many enclosing terms were dropped from the middle of [`Engine::trace`].
    pub fn trace_elided(&self) -> usize {
        self.trace_elided
    }

    /// `err` together with the trace of the most recent failure.
    pub fn failure(&self, err: RuntimeError) -> RuntimeFailure {
        RuntimeFailure {
            error: err,
            trace: self.trace.clone(),
            elided: self.trace_elided,
        }
    }

    /// Mark `t` normal. Inlined: it follows nearly every rewrite and built-in, and the
    /// bit vector rarely grows (that part is out of line).
    #[inline(always)]
    fn set_normal(&mut self, t: TermId) {
        let i = t.index();
        match self.normal.get_mut(i >> 6) {
            Some(w) => *w |= 1 << (i & 63),
            None => self.set_normal_grown(i),
        }
    }

    #[cold]
    #[inline(never)]
    fn set_normal_grown(&mut self, i: usize) {
        let want = (self.store.len().max(i + 1) >> 6) + 1;
        self.normal.resize(want.max(self.normal.len() * 2), 0);
        self.normal[i >> 6] |= 1 << (i & 63);
    }

    /// From now on, [`Limits::max_steps`] bounds the steps of all calls to [`Engine::reduce`]
    /// together (until [`Engine::end_step_budget`]), not each call alone.
    pub fn begin_step_budget(&mut self) {
        self.budget_base = Some(self.steps);
    }

    /// Back to a step budget per call to [`Engine::reduce`].
    pub fn end_step_budget(&mut self) {
        self.budget_base = None;
    }

    /// Run `f` with the step budget counting for all the reductions it asks for together
    /// ([`Engine::begin_step_budget`] … [`Engine::end_step_budget`]): a solver reduces once
    /// per rule per position, and `--max-steps` bounds the whole solve, not each reduction.
    pub fn with_step_budget<T>(&mut self, f: impl FnOnce(&mut Engine) -> T) -> T {
        self.begin_step_budget();
        let r = f(self);
        self.end_step_budget();
        r
    }
}
