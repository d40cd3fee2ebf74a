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
//!   each argument) rule out the equations that cannot match.
//!
//! # Memory
//!
//! Garbage is collected between reductions by the caller (`gc`), and during one when the
//! caller allows it ([`Engine::collect_in_reduce`]), with the pending work as roots.

use crate::error::{RuntimeError, RuntimeFailure, NO_EQUATION, TRACE_HEAD, TRACE_TAIL};
use crate::matching::{Matcher, Pattern};
use crate::term::{TermId, TermStore};
use gamelang_lang::program::{Builtin, OpId, Pat, Program};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

mod compile;
mod gc;
mod grid;
mod shared;
mod watch;

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
    /// Indices into `Engine::eqs`, in the order to try them.
    eqs: Box<[u32]>,
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
    Cond {
        subj: Subj,
        pos: u32,
    },
    Memo {
        term: TermId,
    },
    /// The value of a memo-pair application (see `OpRt::memo_pair`) is being computed.
    Memo2 {
        op: OpId,
        key: u64,
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

/// Why a strict built-in could not produce a value.
enum BuiltinError {
    Overflow,
    DivisionByZero,
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

fn lazy_arity(b: Option<Builtin>) -> u32 {
    if b == Some(Builtin::IfThenElse) {
        3
    } else {
        2
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
    step_limit: u64,
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
    frames: Vec<Frame>,
    vals: Vec<TermId>,
    envs: Vec<TermId>,
    /// `matchers[..nconds]` belong to pending `Cond` frames (innermost last);
    /// `matchers[nconds]` is the scratch matcher for the next equation tried.
    matchers: Vec<Matcher>,
    nconds: usize,
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
            frames: Vec::new(),
            vals: Vec::new(),
            envs: Vec::new(),
            matchers: Vec::new(),
            nconds: 0,
            true_t: None,
            false_t: None,
            trace: Vec::new(),
            trace_elided: 0,
            shared: None,
            shared_stats: SharedStats::default(),
            gc_live: 0,
            gc_segs: 0,
            collections: 0,
            grid: None,
            grid_cache: Default::default(),
        };
        e.set_program(program);
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
                    norm: a.assoc || a.comm || a.idem || a.identity.is_some(),
                    plain: !program.is_defined(OpId(i as u32)) && a.builtin.is_none() && !a.memo,
                    memo_pair: a.memo
                        && !(a.assoc || a.comm || a.idem || a.identity.is_some())
                        && info.args.len() <= 2,
                    eqs: program
                        .eqs_by_op
                        .get(&OpId(i as u32))
                        .map(|v| v.iter().map(|&e| e as u32).collect())
                        .unwrap_or_default(),
                }
            })
            .collect();
        self.nodes.clear();
        self.kids.clear();
        let mut eqs = Vec::with_capacity(program.equations.len());
        for eq in &program.equations {
            let wanted = compile::rhs_subpatterns(&eq.rhs, eq.cond.as_ref());
            let compiled = Pattern::compile_lhs(&eq.lhs, &eq.vars, &mut self.store, &wanted);
            let (lhs, bound) = (compiled.pattern, compiled.bound);
            let mut rc = compile::RhsCompiler::new(
                &mut self.store,
                &mut self.nodes,
                &mut self.kids,
                lhs.nvars() as u32,
            );
            let rhs = rc.compile(&eq.rhs, &compiled.aliases);
            let cond = eq.cond.as_ref().map(|c| rc.compile(c, &compiled.aliases));
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
            let guards = compile::guards(&eq.lhs, &mut self.store);
            eqs.push(CompiledEq {
                lhs,
                rhs,
                cond,
                width,
                guards,
                invalid,
            });
        }
        self.eqs = eqs;
        self.true_t = sig.true_op.map(|o| self.store.intern_app(o, &[]));
        self.false_t = sig.false_op.map(|o| self.store.intern_app(o, &[]));
        for t in [self.true_t, self.false_t].into_iter().flatten() {
            self.set_normal(t);
        }
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

    fn set_normal(&mut self, t: TermId) {
        let i = t.index();
        if i >> 6 >= self.normal.len() {
            let want = (self.store.len().max(i + 1) >> 6) + 1;
            self.normal.resize(want.max(self.normal.len() * 2), 0);
        }
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

    /// Reduce `t` to normal form (innermost strategy, lazy Boolean built-ins, memo tables).
    /// On error the engine stays usable: the pending work is dropped (completed memo
    /// entries are kept) and [`Engine::trace`] tells where it happened.
    pub fn reduce(&mut self, t: TermId) -> Result<TermId, RuntimeError> {
        self.frames.clear();
        self.vals.clear();
        self.envs.clear();
        self.nconds = 0;
        self.trace.clear();
        self.trace_elided = 0;
        self.step_limit = self
            .budget_base
            .unwrap_or(self.steps)
            .saturating_add(self.limits.max_steps);
        self.watch_begin();
        let result = self.run(t);
        self.watch_end();
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                self.recover();
                Err(e)
            }
        }
    }

    fn run(&mut self, t: TermId) -> Result<TermId, RuntimeError> {
        let mut task = Task::Eval(t);
        let mut tick: u32 = 0;
        loop {
            tick = tick.wrapping_add(1);
            if tick & watch::CHECK_MASK == 0 {
                self.watch(&task)?;
            }
            if tick & 0xFFF == 0 {
                if self.interrupt.load(Ordering::Relaxed) {
                    let term = match task {
                        Task::Eval(t) | Task::Return(t) => t,
                        Task::Build { node, env, .. } => self.instantiate(node, env),
                    };
                    return Err(RuntimeError::Interrupted { term });
                }
                if self.collect_in_reduce {
                    let t = match task {
                        Task::Eval(t) | Task::Return(t) => Some(t),
                        // Its environment is on `envs`, its node's terms are roots.
                        Task::Build { .. } => None,
                    };
                    self.collect_pending_if_grown(t);
                }
            }
            task = match task {
                Task::Eval(t) => self.eval(t)?,
                Task::Build { node, env, owner } => self.build_node(node, env, owner)?,
                Task::Return(v) => match self.frames.pop() {
                    None => return Ok(v),
                    Some(f) => self.resume(f, v)?,
                },
            };
        }
    }

    #[inline]
    fn push(&mut self, f: Frame) -> Result<(), RuntimeError> {
        if self.frames.len() >= self.limits.max_depth {
            return Err(self.depth_error(f));
        }
        self.frames.push(f);
        Ok(())
    }

    #[cold]
    fn depth_error(&mut self, f: Frame) -> RuntimeError {
        let term = self.frame_term(f);
        RuntimeError::DepthLimit {
            limit: self.limits.max_depth,
            term,
        }
    }

    /// Count a step on the subject `subj`.
    #[inline]
    fn count_step(&mut self, subj: Subj) -> Result<(), RuntimeError> {
        self.steps += 1;
        if self.steps > self.step_limit {
            let term = self.subj_term(subj);
            return Err(RuntimeError::StepBudget {
                limit: self.limits.max_steps,
                term,
            });
        }
        Ok(())
    }

    /// The subject as a term (hash-consing an open one; its values stay on the stack).
    fn subj_term(&mut self, subj: Subj) -> TermId {
        if subj.is_open() {
            let b = subj.base as usize;
            self.store
                .mk_app(subj.op, &self.vals[b..b + subj.n as usize])
        } else {
            subj.term
        }
    }

    /// The instance of a right-hand-side node (for diagnostics).
    fn instantiate(&mut self, node: u32, env: u32) -> TermId {
        match self.nodes[node as usize] {
            Node::Term(t) => t,
            Node::Var(v) => self.envs.get((env + v) as usize).copied().unwrap_or(NONE),
            Node::Shared { slot, body } => match self.envs.get((env + slot) as usize).copied() {
                Some(x) if x != NONE => x,
                _ => self.instantiate(body, env),
            },
            Node::App { op, kids, n } => {
                let mut args: SmallVec<[TermId; 8]> = SmallVec::new();
                for i in 0..n {
                    let k = self.kids[(kids + i) as usize];
                    args.push(self.instantiate(k, env));
                }
                if args.contains(&NONE) {
                    return NONE;
                }
                self.store.mk_app(op, &args)
            }
        }
    }

    fn frame_term(&mut self, f: Frame) -> TermId {
        match f {
            Frame::Args { term, .. }
            | Frame::Lazy { term }
            | Frame::Memo { term }
            | Frame::Remember { term } => term,
            Frame::BArgs { node, env, .. }
            | Frame::BLazy { node, env, .. }
            | Frame::Fill { node, env, .. } => self.instantiate(node, env),
            Frame::Cond { subj, .. } => self.subj_term(subj),
            Frame::Memo2 { op, key } => {
                let args = self.pair_args(op, key);
                self.store.mk_app(op, &args)
            }
        }
    }

    /// The arguments of a memo-pair application from its key.
    fn pair_args(&self, op: OpId, key: u64) -> SmallVec<[TermId; 2]> {
        let n = self.program.sig.op(op).args.len();
        [TermId(key as u32), TermId((key >> 32) as u32)][..n]
            .iter()
            .copied()
            .collect()
    }

    /// Start normalising the existing term `t`.
    fn eval(&mut self, t: TermId) -> Result<Task, RuntimeError> {
        if bit(&self.normal, t) {
            return Ok(Task::Return(t));
        }
        let Some((op, args)) = self.store.app(t) else {
            self.set_normal(t);
            return Ok(Task::Return(t));
        };
        let nargs = args.len();
        let rt = &self.ops[op.0 as usize];
        if !rt.memo {
            match self.nf.get(&t) {
                // Reducing `t` reached `t` again: deterministic rewriting would loop.
                Some(&v) if v == IN_PROGRESS => return Err(RuntimeError::Cycle { term: t }),
                Some(&v) => return Ok(Task::Return(v)),
                None => {}
            }
            self.push(Frame::Remember { term: t })?;
            self.nf.insert(t, IN_PROGRESS);
        }
        let rt = &self.ops[op.0 as usize];
        if rt.lazy {
            let want = lazy_arity(rt.builtin);
            if nargs as u32 != want {
                return Err(self.lazy_arity_error(t, op, want));
            }
            self.push(Frame::Lazy { term: t })?;
            return Ok(Task::Eval(self.store.args(t)[0]));
        }
        let first = self
            .store
            .args(t)
            .iter()
            .position(|a| !bit(&self.normal, *a));
        match first {
            None => self.apply_known(t),
            Some(i) => {
                let base = self.vals.len() as u32;
                self.push(Frame::Args {
                    term: t,
                    next: i as u32,
                    base,
                })?;
                let args = self.store.args(t);
                self.vals.extend_from_slice(&args[..i]);
                Ok(Task::Eval(args[i]))
            }
        }
    }

    fn lazy_arity_error(&self, term: TermId, op: OpId, want: u32) -> RuntimeError {
        RuntimeError::Stuck {
            term,
            op,
            reason: format!(
                "the built-in `{}` needs {want} arguments",
                self.program.sig.op(op).name
            ),
        }
    }

    /// Start normalising an instance of `node` under `env`.
    fn build_node(&mut self, node: u32, env: u32, owner: bool) -> Result<Task, RuntimeError> {
        match self.nodes[node as usize] {
            Node::Term(t) => {
                if owner {
                    self.envs.truncate(env as usize);
                }
                Ok(Task::Eval(t))
            }
            Node::Var(v) => {
                let x = self.envs[(env + v) as usize];
                if owner {
                    self.envs.truncate(env as usize);
                }
                Ok(Task::Eval(x))
            }
            Node::Shared { slot, body } => {
                let x = self.envs[(env + slot) as usize];
                if x != NONE {
                    if owner {
                        self.envs.truncate(env as usize);
                    }
                    return Ok(Task::Return(x));
                }
                self.push(Frame::Fill { node, env, owner })?;
                Ok(Task::Build {
                    node: body,
                    env,
                    owner: false,
                })
            }
            Node::App { op, kids, n } => {
                let rt = &self.ops[op.0 as usize];
                if rt.lazy {
                    let want = lazy_arity(rt.builtin);
                    if n != want {
                        let t = self.instantiate(node, env);
                        return Err(self.lazy_arity_error(t, op, want));
                    }
                    self.push(Frame::BLazy { node, env, owner })?;
                    return Ok(Task::Build {
                        node: self.kids[kids as usize],
                        env,
                        owner: false,
                    });
                }
                let base = self.vals.len() as u32;
                self.next_child(node, 0, base, env, owner)
            }
        }
    }

    /// Continue with child `i` of the application node `node` (earlier children's values
    /// are on `vals[base..]`): values already normal are taken as they are; the first
    /// child that needs work suspends the node in a `BArgs` frame.
    fn next_child(
        &mut self,
        node: u32,
        mut i: u32,
        base: u32,
        env: u32,
        owner: bool,
    ) -> Result<Task, RuntimeError> {
        let Node::App { op, kids, n } = self.nodes[node as usize] else {
            unreachable!("application node")
        };
        while i < n {
            let child = self.kids[(kids + i) as usize];
            let ready = match self.nodes[child as usize] {
                Node::Var(v) => {
                    let x = self.envs[(env + v) as usize];
                    bit(&self.normal, x).then_some(x)
                }
                Node::Term(t) => bit(&self.normal, t).then_some(t),
                Node::App { .. } | Node::Shared { .. } => self.quick(child, env, QUICK_DEPTH),
            };
            match ready {
                Some(x) => {
                    self.vals.push(x);
                    i += 1;
                }
                None => {
                    self.push(Frame::BArgs {
                        node,
                        next: i,
                        base,
                        env,
                        owner,
                    })?;
                    return Ok(Task::Build {
                        node: child,
                        env,
                        owner: false,
                    });
                }
            }
        }
        if owner {
            self.envs.truncate(env as usize);
        }
        self.complete(op, base)
    }

    /// `op` applied to the normal values `vals[base..]`: rewrite it at the top.
    fn complete(&mut self, op: OpId, base: u32) -> Result<Task, RuntimeError> {
        let rt = &self.ops[op.0 as usize];
        let b = base as usize;
        if rt.plain {
            if rt.assoc {
                return self.complete_list(op, b);
            }
            if !rt.norm {
                return self.complete_ctor(op, b);
            }
        }
        if rt.memo_pair {
            let n = (self.vals.len() - b) as u32;
            return self.apply_memo_pair(Subj {
                term: NONE,
                op,
                base,
                n,
            });
        }
        if rt.norm || rt.memo {
            let t = self.store.mk_app(op, &self.vals[b..]);
            self.vals.truncate(b);
            // Every argument of `t` is normal (a value or an element of one).
            return self.apply_known(t);
        }
        let n = (self.vals.len() - b) as u32;
        self.apply_open(Subj {
            term: NONE,
            op,
            base,
            n,
        })
    }

    /// A plain `assoc` constructor (a set, a list) applied to the normal values
    /// `vals[b..]`: the normalised term is normal once the sorts of the values are checked.
    /// Values that are themselves lists of `op` were checked element by element when they
    /// were built, so the cost does not depend on their length.
    fn complete_list(&mut self, op: OpId, b: usize) -> Result<Task, RuntimeError> {
        let decl = &self.program.sig.op(op).args;
        let bad = self.vals[b..].iter().position(|&a| {
            self.store.op(a) != Some(op) && {
                let s = self.store.sort_of(a);
                !decl.iter().any(|d| self.store.leq(s, *d))
            }
        });
        let t = self.store.mk_app(op, &self.vals[b..]);
        self.vals.truncate(b);
        if bad.is_some() || self.store.op(t) != Some(op) {
            // Ill-sorted (reported with the element's position in `t`), or collapsed to an
            // element or the identity: the general path.
            return self.apply_known(t);
        }
        self.set_normal(t);
        Ok(Task::Return(t))
    }

    /// A plain free constructor applied to the normal values `vals[b..]`: the term is
    /// normal once the sorts of the values are checked (as [`Engine::no_equation`] does).
    fn complete_ctor(&mut self, op: OpId, b: usize) -> Result<Task, RuntimeError> {
        let decl = &self.program.sig.op(op).args;
        let args = &self.vals[b..];
        let bad = if decl.len() == args.len() {
            args.iter()
                .zip(decl)
                .position(|(&a, d)| !self.store.leq(self.store.sort_of(a), *d))
        } else {
            None
        };
        let t = self.store.intern_app(op, &self.vals[b..]);
        self.vals.truncate(b);
        if let Some(arg) = bad {
            return Err(RuntimeError::IllSorted { term: t, arg });
        }
        self.set_normal(t);
        Ok(Task::Return(t))
    }

    /// Hand the normal form `v` to the frame `f` (just popped).
    fn resume(&mut self, f: Frame, v: TermId) -> Result<Task, RuntimeError> {
        match f {
            Frame::Args { term, next, base } => {
                self.vals.push(v);
                let args = self.store.args(term);
                let mut i = next as usize + 1;
                while i < args.len() && bit(&self.normal, args[i]) {
                    self.vals.push(args[i]);
                    i += 1;
                }
                if i < args.len() {
                    let a = args[i];
                    self.frames.push(Frame::Args {
                        term,
                        next: i as u32,
                        base,
                    });
                    return Ok(Task::Eval(a));
                }
                if self.vals[base as usize..] == *args {
                    self.vals.truncate(base as usize);
                    return self.apply_known(term);
                }
                let op = self.store.op(term).expect("application");
                self.complete(op, base)
            }
            Frame::BArgs {
                node,
                next,
                base,
                env,
                owner,
            } => {
                self.vals.push(v);
                self.next_child(node, next + 1, base, env, owner)
            }
            Frame::Lazy { term } => {
                let op = self.store.op(term).expect("application");
                let b = self.ops[op.0 as usize].builtin;
                let cond = self
                    .lazy_cond(v, op, b)
                    .map_err(|reason| RuntimeError::Stuck { term, op, reason })?;
                self.count_step(Subj::known(term, op))?;
                let args = self.store.args(term);
                Ok(match lazy_choice(b, cond) {
                    None => Task::Return(v),
                    Some(i) => Task::Eval(args[i]),
                })
            }
            Frame::BLazy { node, env, owner } => {
                let Node::App { op, kids, .. } = self.nodes[node as usize] else {
                    unreachable!("application node")
                };
                let b = self.ops[op.0 as usize].builtin;
                let cond = match self.lazy_cond(v, op, b) {
                    Ok(c) => c,
                    Err(reason) => {
                        let term = self.instantiate(node, env);
                        return Err(RuntimeError::Stuck { term, op, reason });
                    }
                };
                self.steps += 1;
                if self.steps > self.step_limit {
                    let term = self.instantiate(node, env);
                    return Err(RuntimeError::StepBudget {
                        limit: self.limits.max_steps,
                        term,
                    });
                }
                Ok(match lazy_choice(b, cond) {
                    None => {
                        if owner {
                            self.envs.truncate(env as usize);
                        }
                        Task::Return(v)
                    }
                    Some(i) => Task::Build {
                        node: self.kids[kids as usize + i],
                        env,
                        owner,
                    },
                })
            }
            Frame::Cond { subj, pos } => {
                let ei = self.ops[subj.op.0 as usize].eqs[pos as usize] as usize;
                let slot = self.nconds - 1;
                if Some(v) == self.true_t {
                    self.count_step(subj)?;
                    self.nconds = slot;
                    let env = self.push_env(slot, ei);
                    if subj.is_open() {
                        self.vals.truncate(subj.base as usize);
                    }
                    Ok(Task::Build {
                        node: self.eqs[ei].rhs,
                        env,
                        owner: true,
                    })
                } else if Some(v) == self.false_t {
                    let eq = &self.eqs[ei];
                    if self.matchers[slot].next(&eq.lhs, &mut self.store) {
                        let cond = eq.cond.expect("conditional equation");
                        let env = self.push_env(slot, ei);
                        // The frame was just popped: no depth check needed.
                        self.frames.push(Frame::Cond { subj, pos });
                        Ok(Task::Build {
                            node: cond,
                            env,
                            owner: true,
                        })
                    } else {
                        self.nconds = slot;
                        // An open subject's values are back on top of the value stack.
                        debug_assert!(
                            !subj.is_open() || self.vals.len() == (subj.base + subj.n) as usize
                        );
                        self.try_eqs(subj, pos as usize + 1)
                    }
                } else {
                    let term = self.subj_term(subj);
                    Err(RuntimeError::Stuck {
                        term,
                        op: subj.op,
                        reason: format!(
                            "the condition of an equation of `{}` reduced to `{}`, not to a Bool",
                            self.program.sig.op(subj.op).name,
                            self.show_limited(v, 200)
                        ),
                    })
                }
            }
            Frame::Memo { term } => {
                let op = self.store.op(term).expect("application");
                self.memo[op.0 as usize].insert(term, v);
                if self.shared.is_some() {
                    self.shared_publish(term, v);
                }
                Ok(Task::Return(v))
            }
            Frame::Remember { term } => {
                self.nf.insert(term, v);
                Ok(Task::Return(v))
            }
            Frame::Fill { node, env, owner } => {
                let Node::Shared { slot, .. } = self.nodes[node as usize] else {
                    unreachable!("shared node")
                };
                self.envs[(env + slot) as usize] = v;
                if owner {
                    self.envs.truncate(env as usize);
                }
                Ok(Task::Return(v))
            }
            Frame::Memo2 { op, key } => {
                self.memo2[op.0 as usize].insert(key, v);
                if self.shared.is_some() {
                    let args = self.pair_args(op, key);
                    self.shared_publish_app(op, &args, v);
                }
                Ok(Task::Return(v))
            }
        }
    }

    /// The Boolean value `v` of the first argument of a lazy built-in, or the reason why
    /// it is stuck.
    fn lazy_cond(&self, v: TermId, op: OpId, b: Option<Builtin>) -> Result<bool, String> {
        match self.as_bool(v) {
            Some(c) => Ok(c),
            None => {
                let what = if b == Some(Builtin::IfThenElse) {
                    "condition"
                } else {
                    "first argument"
                };
                Err(format!(
                    "the {what} of `{}` is not a Bool: it reduced to `{}`",
                    self.program.sig.op(op).name,
                    self.show_limited(v, 200)
                ))
            }
        }
    }

    /// Copy the substitution of matcher `slot` (a match of equation `ei`) to the
    /// environment stack.
    ///
    /// The values come from a subject whose arguments are normal, so they are normal:
    /// subterms of normal forms, or sub-collections of a normal `assoc` list (the rest `S`
    /// of `(c, S)`), which are normal too when the list operator is a plain constructor.
    /// Those new sub-collections are marked normal here, so that they are not walked again.
    fn push_env(&mut self, slot: usize, ei: usize) -> u32 {
        let env = self.envs.len() as u32;
        self.envs.extend(
            self.matchers[slot]
                .subst()
                .iter()
                .map(|x| x.unwrap_or(NONE)),
        );
        // The slots of shared nodes, empty until first needed.
        self.envs
            .resize(env as usize + self.eqs[ei].width as usize, NONE);
        for k in 0..self.eqs[ei].lhs.rest_vars().len() {
            let v = self.eqs[ei].lhs.rest_vars()[k];
            let x = self.envs[env as usize + v as usize];
            if x != NONE && !bit(&self.normal, x) {
                if let Some(op) = self.store.op(x) {
                    let rt = &self.ops[op.0 as usize];
                    if rt.assoc && rt.plain {
                        self.set_normal(x);
                    }
                }
            }
        }
        env
    }

    /// Rewrite at the top of the existing term `t`, whose arguments are normal.
    fn apply_known(&mut self, t: TermId) -> Result<Task, RuntimeError> {
        if bit(&self.normal, t) {
            return Ok(Task::Return(t));
        }
        let Some(op) = self.store.op(t) else {
            self.set_normal(t);
            return Ok(Task::Return(t));
        };
        let rt = &self.ops[op.0 as usize];
        let (memo, builtin) = (rt.memo, rt.builtin);
        if rt.memo_pair {
            return self.apply_memo_pair(Subj::known(t, op));
        }
        if memo {
            match self.memo[op.0 as usize].get(&t) {
                Some(&v) if v == IN_PROGRESS => return Err(RuntimeError::Cycle { term: t }),
                Some(&v) => return Ok(Task::Return(v)),
                None => {
                    if self.memo_total >= self.limits.max_memo_entries {
                        return Err(RuntimeError::MemoLimit {
                            limit: self.limits.max_memo_entries,
                            term: t,
                        });
                    }
                    if self.shared.is_some() {
                        if let Some(v) = self.shared_lookup(t) {
                            self.memo[op.0 as usize].insert(t, v);
                            self.memo_total += 1;
                            return Ok(Task::Return(v));
                        }
                    }
                    self.push(Frame::Memo { term: t })?;
                    self.memo[op.0 as usize].insert(t, IN_PROGRESS);
                    self.memo_total += 1;
                }
            }
        }
        let subj = Subj::known(t, op);
        if let Some(b) = builtin {
            if let Some(task) = self.try_builtin(subj, b)? {
                return Ok(task);
            }
        }
        self.try_eqs(subj, 0)
    }

    /// Rewrite at the top a memo-pair application (open or not): its value from the memo
    /// table (or from the shared one), or compute it and remember it.
    fn apply_memo_pair(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let op = subj.op;
        let (n, a0, a1) = self.subj_args2(subj);
        let key = pair_key(n, a0, a1);
        match self.memo2[op.0 as usize].get(&key) {
            Some(&v) if v == IN_PROGRESS => {
                let term = self.subj_term(subj);
                return Err(RuntimeError::Cycle { term });
            }
            Some(&v) => {
                if subj.is_open() {
                    self.vals.truncate(subj.base as usize);
                }
                return Ok(Task::Return(v));
            }
            None => {}
        }
        if self.memo_total >= self.limits.max_memo_entries {
            let term = self.subj_term(subj);
            return Err(RuntimeError::MemoLimit {
                limit: self.limits.max_memo_entries,
                term,
            });
        }
        if self.shared.is_some() {
            if let Some(v) = self.shared_lookup_app(op, &[a0, a1][..n]) {
                self.memo2[op.0 as usize].insert(key, v);
                self.memo_total += 1;
                if subj.is_open() {
                    self.vals.truncate(subj.base as usize);
                }
                return Ok(Task::Return(v));
            }
        }
        self.push(Frame::Memo2 { op, key })?;
        self.memo2[op.0 as usize].insert(key, IN_PROGRESS);
        self.memo_total += 1;
        if let Some(b) = self.ops[op.0 as usize].builtin {
            if let Some(task) = self.try_builtin(subj, b)? {
                return Ok(task);
            }
        }
        self.try_eqs(subj, 0)
    }

    /// Rewrite at the top of an open subject (a free, non-memo operator).
    fn apply_open(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let rt = &self.ops[subj.op.0 as usize];
        if !rt.defined && rt.builtin.is_none() {
            return self.no_equation(subj);
        }
        if let Some(b) = rt.builtin {
            if let Some(task) = self.try_builtin(subj, b)? {
                return Ok(task);
            }
        }
        self.try_eqs(subj, 0)
    }

    /// The number of arguments of the subject and its first two (`NONE` if missing).
    #[inline]
    fn subj_args2(&self, subj: Subj) -> (usize, TermId, TermId) {
        let args = if subj.is_open() {
            let b = subj.base as usize;
            &self.vals[b..b + subj.n as usize]
        } else {
            self.store.args(subj.term)
        };
        let get = |i: usize| args.get(i).copied().unwrap_or(NONE);
        (args.len(), get(0), get(1))
    }

    /// Evaluate a strict built-in on the subject, if its arguments are values of the right
    /// kind.
    fn try_builtin(&mut self, subj: Subj, b: Builtin) -> Result<Option<Task>, RuntimeError> {
        if b.is_grid() {
            return self.grid_builtin(subj, b);
        }
        if matches!(b, Builtin::True | Builtin::False) {
            let t = self.subj_term(subj);
            if subj.is_open() {
                self.vals.truncate(subj.base as usize);
            }
            self.set_normal(t);
            return Ok(Some(Task::Return(t)));
        }
        let (n, a0, a1) = self.subj_args2(subj);
        match self.builtin(b, n, a0, a1) {
            Ok(None) => Ok(None),
            Ok(Some(v)) => {
                self.count_step(subj)?;
                if subj.is_open() {
                    self.vals.truncate(subj.base as usize);
                }
                self.set_normal(v);
                Ok(Some(Task::Return(v)))
            }
            Err(e) => {
                let term = self.subj_term(subj);
                Err(match e {
                    BuiltinError::Overflow => RuntimeError::Overflow { term },
                    BuiltinError::DivisionByZero => RuntimeError::DivisionByZero { term },
                })
            }
        }
    }

    /// Try the equations of the subject's operator from position `pos`.
    fn try_eqs(&mut self, mut subj: Subj, mut pos: usize) -> Result<Task, RuntimeError> {
        let slot = self.nconds;
        if slot == self.matchers.len() {
            self.matchers.push(Matcher::default());
        }
        let op = subj.op;
        loop {
            let Some(&ei) = self.ops[op.0 as usize].eqs.get(pos) else {
                return self.no_equation(subj);
            };
            let eq = &self.eqs[ei as usize];
            if !eq.guards.is_empty() {
                let args = if subj.is_open() {
                    let b = subj.base as usize;
                    &self.vals[b..b + subj.n as usize]
                } else {
                    self.store.args(subj.term)
                };
                if !eq.guards.iter().all(|g| g.admits(args, &self.store)) {
                    pos += 1;
                    continue;
                }
            }
            let m = &mut self.matchers[slot];
            let matched = if subj.is_open() {
                let b = subj.base as usize;
                match m.first_args(
                    &eq.lhs,
                    &mut self.store,
                    op,
                    &self.vals[b..b + subj.n as usize],
                ) {
                    Some(ok) => ok,
                    None => {
                        // This left-hand side needs the subject as a term.
                        let t = self.store.mk_app(op, &self.vals[b..b + subj.n as usize]);
                        self.vals.truncate(b);
                        subj = Subj::known(t, op);
                        continue;
                    }
                }
            } else {
                m.first(&eq.lhs, &mut self.store, subj.term)
            };
            if !matched {
                pos += 1;
                continue;
            }
            if let Some(reason) = &eq.invalid {
                let reason = reason.clone();
                let term = self.subj_term(subj);
                return Err(RuntimeError::Stuck { term, op, reason });
            }
            let (rhs, cond) = (eq.rhs, eq.cond);
            let ei = ei as usize;
            loop {
                let env = self.push_env(slot, ei);
                let Some(c) = cond else {
                    self.count_step(subj)?;
                    if subj.is_open() {
                        self.vals.truncate(subj.base as usize);
                    }
                    return Ok(Task::Build {
                        node: rhs,
                        env,
                        owner: true,
                    });
                };
                // A condition that needs no rewriting (`0 < m and m <= b`) is decided here,
                // without suspending the match.
                match self.quick(c, env, QUICK_DEPTH) {
                    Some(v) if Some(v) == self.true_t => {
                        self.count_step(subj)?;
                        if subj.is_open() {
                            self.vals.truncate(subj.base as usize);
                        }
                        return Ok(Task::Build {
                            node: rhs,
                            env,
                            owner: true,
                        });
                    }
                    Some(v) if Some(v) == self.false_t => {
                        self.envs.truncate(env as usize);
                        if self.matchers[slot].next(&self.eqs[ei].lhs, &mut self.store) {
                            continue;
                        }
                        break;
                    }
                    _ => {
                        self.nconds += 1;
                        self.push(Frame::Cond {
                            subj,
                            pos: pos as u32,
                        })?;
                        return Ok(Task::Build {
                            node: c,
                            env,
                            owner: true,
                        });
                    }
                }
            }
            pos += 1;
        }
    }

    /// Evaluate `node` under `env` at once when that needs no rewriting: variables and
    /// ground terms already normal, and applications of strict built-ins (`b - m`,
    /// `0 < m and m <= b`) and plain free constructors (`(a (b - m))`) to such, at most
    /// `depth` deep. `None` when the general machinery is needed (including when the
    /// built-in would fail or the step budget run out: it reports the error).
    fn quick(&mut self, node: u32, env: u32, depth: u32) -> Option<TermId> {
        match self.nodes[node as usize] {
            Node::Var(v) => {
                let x = self.envs[(env + v) as usize];
                bit(&self.normal, x).then_some(x)
            }
            Node::Term(t) => bit(&self.normal, t).then_some(t),
            Node::Shared { slot, body } => {
                let x = self.envs[(env + slot) as usize];
                if x != NONE {
                    return Some(x);
                }
                let x = self.quick(body, env, depth)?;
                self.envs[(env + slot) as usize] = x;
                Some(x)
            }
            Node::App { op, kids, n } => {
                if depth == 0 || n > 3 {
                    return None;
                }
                let rt = &self.ops[op.0 as usize];
                let builtin = match rt.builtin {
                    Some(b) if !rt.lazy && !rt.defined && !rt.memo => Some(b),
                    None if rt.plain && !rt.norm => None,
                    _ => return None,
                };
                let mut a = [NONE; 3];
                for (i, slot) in a.iter_mut().enumerate().take(n as usize) {
                    let k = self.kids[kids as usize + i];
                    *slot = self.quick(k, env, depth - 1)?;
                }
                let n = n as usize;
                match builtin {
                    Some(b) => {
                        if self.steps >= self.step_limit {
                            return None;
                        }
                        match self.builtin(b, n, a[0], a[1]) {
                            Ok(Some(v)) => {
                                self.steps += 1;
                                self.set_normal(v);
                                Some(v)
                            }
                            _ => None,
                        }
                    }
                    None => {
                        let decl = &self.program.sig.op(op).args;
                        if decl.len() == n
                            && !a[..n]
                                .iter()
                                .zip(decl)
                                .all(|(&x, d)| self.store.leq(self.store.sort_of(x), *d))
                        {
                            return None;
                        }
                        let t = self.store.intern_app(op, &a[..n]);
                        self.set_normal(t);
                        Some(t)
                    }
                }
            }
        }
    }

    /// No equation rewrites the subject: a constructor term (checked for sorts) or stuck.
    fn no_equation(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let op = subj.op;
        let rt = &self.ops[op.0 as usize];
        if let Some(b) = rt.builtin {
            let name = &self.program.sig.op(op).name;
            let reason = match b {
                Builtin::Not | Builtin::And | Builtin::Or | Builtin::Xor | Builtin::Implies => {
                    format!("the built-in `{name}` needs Boolean arguments (`true` or `false`)")
                }
                Builtin::Equal
                | Builtin::NotEqual
                | Builtin::True
                | Builtin::False
                | Builtin::AndThen
                | Builtin::OrElse
                | Builtin::IfThenElse => {
                    format!("the built-in `{name}` has the wrong number of arguments")
                }
                b if b.is_grid() => format!(
                    "the built-in `{name}` needs values for its arguments (boards, numbers, actions, goals)"
                ),
                _ => format!("the built-in `{name}` needs integer literal arguments"),
            };
            let term = self.subj_term(subj);
            return Err(RuntimeError::Stuck { term, op, reason });
        }
        if rt.defined && !rt.ctor {
            let term = self.subj_term(subj);
            return Err(RuntimeError::Stuck {
                term,
                op,
                reason: NO_EQUATION.to_string(),
            });
        }
        let assoc = rt.assoc;
        let t = self.subj_term(subj);
        if subj.is_open() {
            self.vals.truncate(subj.base as usize);
        }
        let decl = &self.program.sig.op(op).args;
        let args = self.store.args(t);
        if assoc {
            for (i, &a) in args.iter().enumerate() {
                let s = self.store.sort_of(a);
                if !decl.iter().any(|d| self.store.leq(s, *d)) {
                    return Err(RuntimeError::IllSorted { term: t, arg: i });
                }
            }
        } else if decl.len() == args.len() {
            for (i, (&a, d)) in args.iter().zip(decl).enumerate() {
                if !self.store.leq(self.store.sort_of(a), *d) {
                    return Err(RuntimeError::IllSorted { term: t, arg: i });
                }
            }
        }
        self.set_normal(t);
        Ok(Task::Return(t))
    }

    fn as_bool(&self, t: TermId) -> Option<bool> {
        if Some(t) == self.true_t {
            Some(true)
        } else if Some(t) == self.false_t {
            Some(false)
        } else {
            None
        }
    }

    /// Evaluate a strict built-in on its `n` normal arguments (the first two are `a0`, `a1`):
    /// `Ok(None)` if they are not values of the right kind.
    #[inline]
    fn builtin(
        &mut self,
        b: Builtin,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Result<Option<TermId>, BuiltinError> {
        use Builtin::*;
        let args = [a0, a1];
        match b {
            True | False | AndThen | OrElse | IfThenElse => Ok(None),
            // Read their arguments themselves: see `grid_builtin`.
            GridPacked | GridBoard | GridInitial | GridMoves | GridHolds | GridAt | GridColumns
            | GridRows => Ok(None),
            Not => Ok(match (n, self.as_bool(a0)) {
                (1, Some(x)) => self.mk_bool(!x),
                _ => None,
            }),
            And | Or | Xor | Implies => {
                if n != 2 {
                    return Ok(None);
                }
                let (Some(x), Some(y)) = (self.as_bool(args[0]), self.as_bool(args[1])) else {
                    return Ok(None);
                };
                Ok(self.mk_bool(match b {
                    And => x && y,
                    Or => x || y,
                    Xor => x != y,
                    _ => !x || y,
                }))
            }
            Equal | NotEqual => {
                if n != 2 {
                    return Ok(None);
                }
                let eq = args[0] == args[1];
                Ok(self.mk_bool(if b == Equal { eq } else { !eq }))
            }
            Neg | Abs => {
                if n != 1 {
                    return Ok(None);
                }
                let Some(x) = self.store.int(args[0]) else {
                    return Ok(None);
                };
                let r = if b == Neg {
                    x.checked_neg()
                } else {
                    x.checked_abs()
                };
                match r {
                    Some(r) => Ok(Some(self.store.mk_int(r))),
                    None => Err(BuiltinError::Overflow),
                }
            }
            Add | Sub | Mul | Quo | Rem | Min | Max | Lt | Le | Gt | Ge | Divides => {
                if n != 2 {
                    return Ok(None);
                }
                let (Some(x), Some(y)) = (self.store.int(args[0]), self.store.int(args[1])) else {
                    return Ok(None);
                };
                let r = match b {
                    Lt => return Ok(self.mk_bool(x < y)),
                    Le => return Ok(self.mk_bool(x <= y)),
                    Gt => return Ok(self.mk_bool(x > y)),
                    Ge => return Ok(self.mk_bool(x >= y)),
                    // `x divides y`: y is a multiple of x (0 divides only 0).
                    Divides => {
                        let d = if x == 0 {
                            y == 0
                        } else {
                            y.checked_rem(x).is_none_or(|r| r == 0)
                        };
                        return Ok(self.mk_bool(d));
                    }
                    Add => x.checked_add(y),
                    Sub => x.checked_sub(y),
                    Mul => x.checked_mul(y),
                    Quo | Rem => {
                        if y == 0 {
                            return Err(BuiltinError::DivisionByZero);
                        }
                        if b == Quo {
                            x.checked_div(y)
                        } else {
                            // i64::MIN rem -1 is 0 (only the quotient overflows).
                            Some(x.wrapping_rem(y))
                        }
                    }
                    Min => Some(x.min(y)),
                    _ => Some(x.max(y)),
                };
                match r {
                    Some(r) => Ok(Some(self.store.mk_int(r))),
                    None => Err(BuiltinError::Overflow),
                }
            }
        }
    }

    /// Drop pending work after an error, keeping completed memo entries, and record the
    /// trace of enclosing terms.
    fn recover(&mut self) {
        let frames = std::mem::take(&mut self.frames);
        let mut chain: Vec<TermId> = Vec::new();
        for f in &frames {
            // Memo and condition frames, and applications of defined functions whose
            // arguments are being reduced (not constructors or built-ins).
            let function = |op: OpId| {
                let rt = &self.ops[op.0 as usize];
                rt.defined && !rt.ctor && rt.builtin.is_none()
            };
            let keep = match *f {
                Frame::Memo { .. } | Frame::Memo2 { .. } | Frame::Cond { .. } => true,
                Frame::Args { term, .. } | Frame::Lazy { term } => {
                    self.store.op(term).is_some_and(function)
                }
                Frame::BArgs { node, .. } | Frame::BLazy { node, .. } => {
                    match self.nodes[node as usize] {
                        Node::App { op, .. } => function(op),
                        _ => false,
                    }
                }
                // The term's (or shared subterm's) own frames say where it is.
                Frame::Fill { .. } | Frame::Remember { .. } => false,
            };
            if !keep {
                continue;
            }
            let t = self.frame_term(*f);
            if t != NONE && chain.last() != Some(&t) {
                chain.push(t);
            }
        }
        if chain.len() > TRACE_HEAD + TRACE_TAIL {
            self.trace_elided = chain.len() - TRACE_HEAD - TRACE_TAIL;
            chain.drain(TRACE_HEAD..chain.len() - TRACE_TAIL);
        }
        self.trace = chain;
        for f in frames {
            match f {
                Frame::Memo { term } => {
                    if let Some(op) = self.store.op(term) {
                        if self.memo[op.0 as usize].get(&term) == Some(&IN_PROGRESS) {
                            self.memo[op.0 as usize].remove(&term);
                            self.memo_total -= 1;
                        }
                    }
                }
                Frame::Remember { term } => {
                    self.nf.remove(&term);
                }
                Frame::Memo2 { op, key }
                    if self.memo2[op.0 as usize].get(&key) == Some(&IN_PROGRESS) =>
                {
                    self.memo2[op.0 as usize].remove(&key);
                    self.memo_total -= 1;
                }
                _ => {}
            }
        }
        self.vals.clear();
        self.envs.clear();
        self.nconds = 0;
    }

    /// A one-paragraph human description of `err`, naming the terms involved in concrete
    /// syntax, e.g. "no equation of `next-heaps` applies to `next-heaps((5 2))`". It does
    /// not include the trace (see [`Engine::describe_failure`]).
    pub fn describe(&self, err: &RuntimeError) -> String {
        const W: usize = 300;
        let sig = &self.program.sig;
        let show = |t: TermId| self.show_limited(t, W);
        let op_name = |op: OpId| sig.ops.get(op.0 as usize).map_or("?", |o| o.name.as_str());
        let msg = match err {
            RuntimeError::Stuck { term, op, reason } => {
                if reason == NO_EQUATION {
                    format!("no equation of `{}` applies to `{}`", op_name(*op), show(*term))
                } else {
                    format!("cannot reduce `{}`: {reason}", show(*term))
                }
            }
            RuntimeError::StepBudget { limit, term } => format!(
                "gave up after {limit} rewriting steps (the step budget) while reducing `{}`",
                show(*term)
            ),
            RuntimeError::DepthLimit { limit, term } => format!(
                "the reduction nests more than {limit} pending reductions (the depth limit) at `{}`",
                show(*term)
            ),
            RuntimeError::MemoLimit { limit, term } => {
                format!("the memo tables are full ({limit} entries) at `{}`", show(*term))
            }
            RuntimeError::MemoryLimit { limit, used, term } => format!(
                "the reduction uses {} of memory, more than the memory budget of {}, at `{}`",
                watch::show_bytes(*used),
                watch::show_bytes(*limit),
                show(*term)
            ),
            RuntimeError::Cycle { term } => format!(
                "the value of `{}` depends on itself: its reduction reached the same term again \
                 (in a game, a position that repeats)",
                show(*term)
            ),
            RuntimeError::Overflow { term } => format!("integer overflow in `{}`", show(*term)),
            RuntimeError::DivisionByZero { term } => format!("division by zero in `{}`", show(*term)),
            RuntimeError::IllSorted { term, arg } => {
                let op = self.store.op(*term);
                let a = self.store.args(*term).get(*arg).copied();
                match (op, a) {
                    (Some(op), Some(a)) => {
                        let info = sig.op(op);
                        let got = self.store.sort_of(a);
                        let got = sig.sorts.get(got.0 as usize).map_or("?", |s| s.name.as_str());
                        let want = if info.attrs.assoc {
                            // Each sort once (`_,_ : Set Set -> Set` expects `Set`).
                            let mut names: Vec<String> = Vec::new();
                            for s in &info.args {
                                let n = &sig.sort(*s).name;
                                if !names.contains(n) {
                                    names.push(n.clone());
                                }
                            }
                            names.join(" or ")
                        } else {
                            info.args.get(*arg).map_or("?".into(), |s| sig.sort(*s).name.clone())
                        };
                        format!(
                            "ill-sorted term `{}`: argument {} of `{}` is `{}` of sort `{got}`, but `{}` expects `{want}` there",
                            show(*term),
                            arg + 1,
                            info.name,
                            show(a),
                            info.name
                        )
                    }
                    _ => format!("ill-sorted term `{}`", show(*term)),
                }
            }
            RuntimeError::Interrupted { term } => format!("interrupted while reducing `{}`", show(*term)),
        };
        msg
    }

    /// [`Engine::describe`] followed by the enclosing terms of the failure, innermost
    /// first: "…, while reducing `w-aux(B, next-heaps((5 2)))` inside `w(R, (5 2))`".
    pub fn describe_failure(&self, f: &RuntimeFailure) -> String {
        const W: usize = 300;
        let mut msg = self.describe(&f.error);
        // Innermost first, without the failing term itself.
        let mut inner: Vec<TermId> = f.trace.iter().rev().copied().collect();
        while inner.first() == Some(&f.error.term()) {
            inner.remove(0);
        }
        if !inner.is_empty() {
            msg.push_str(", while reducing ");
            // Position (in `inner`) of the first of the TRACE_HEAD outermost entries.
            let gap = (f.elided > 0).then(|| inner.len().saturating_sub(TRACE_HEAD));
            for (i, t) in inner.iter().enumerate() {
                if i > 0 {
                    msg.push_str(" inside ");
                }
                if gap == Some(i) && i > 0 {
                    msg.push_str(&format!("… ({} more) … inside ", f.elided));
                }
                msg.push('`');
                msg.push_str(&self.show_limited(*t, W));
                msg.push('`');
            }
        }
        msg
    }
}

/// Which argument of a lazy built-in to continue with (`None`: the first argument's value
/// is the result).
fn lazy_choice(b: Option<Builtin>, cond: bool) -> Option<usize> {
    match (b, cond) {
        (Some(Builtin::AndThen), false) | (Some(Builtin::OrElse), true) => None,
        (Some(Builtin::AndThen | Builtin::OrElse), _) => Some(1),
        (_, true) => Some(1),
        (_, false) => Some(2),
    }
}
