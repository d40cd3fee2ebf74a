//! Direct evaluation: right-hand sides evaluated by native recursion instead of the
//! machine's frames.
//!
//! The machine (`machine.rs`) never recurses on the Rust stack: every pending piece of
//! work is a frame, and every step goes through the run loop, which makes a rewrite of
//! `app(cons(X, L), M) = cons(X, app(L, M))` cost about 1,400 instructions (frames pushed
//! and popped, tasks dispatched, values copied between stacks). Most equations do not need
//! that generality: their left-hand sides are *simple* (free operators, variables and
//! literals, matched in one pass) and their right-hand sides call functions whose
//! equations are simple too. For those, this module evaluates the right-hand side as a
//! recursive function would: children first, left to right, into the value stack; a call
//! of a function with simple equations picks its equation by the argument guards, matches
//! it in one pass, checks the condition and continues with its right-hand side — a call in
//! tail position (`revs(K - 1, rev(L))`, the branch of an `if`) loops instead of
//! recursing, so a rewrite chain runs in constant native stack.
//!
//! A memo function whose equations are such is met the same way, around its memo table:
//! looked up, and a miss computed here and remembered (`d_memo_begin`, and the end of
//! `d_apply`).
//!
//! Everything else — other memo tables, AC operators, patterns with more choice points,
//! existing terms that are not normal, anything past the native stack budget — is handed
//! to the machine, run *nested* on the same stacks from the current frame (`Engine::run_from`),
//! which may in turn come back here. The order of evaluation and the steps counted are
//! the machine's, so normal forms and rewrite counts do not depend on which path ran.
//!
//! Errors: a failing direct evaluation gives up, and [`Engine::reduce`] runs the whole
//! reduction again on the machine alone (memo entries already completed stay; steps are
//! counted from where they were). The machine then reports the error with its own trace
//! and location, exactly as without this module. Interruptions (Ctrl-C) are not re-run.
//!
//! Garbage collection during a reduction (`Engine::collect_in_reduce`) stays possible: the
//! direct evaluator keeps every value it still needs on the value and environment stacks,
//! which are roots, and holds term ids in native locals only between calls that cannot
//! collect.

use super::calls;
use super::code::Ins;
use super::loops;
use super::machine::{lazy_arity, lazy_choice};
use super::*;
use crate::matching::NO_PICK;

/// Native stack the direct evaluator leaves untouched below it: past this, the rest of
/// the work goes to the machine's frames.
const RED_ZONE: usize = 256 << 10;

/// Native stack the direct evaluator uses at most, whatever the thread has (the CLI's
/// thread has 512 MiB): a level of native recursion takes a few hundred bytes where a
/// machine frame takes 24, so a recursion millions deep (a Peano numeral of 3.6 million
/// `s`) would otherwise hold hundreds of MiB of stack.
const BUDGET: usize = 8 << 20;

/// The calls of a chain of tail calls whose value the call cache records (the first few).
const MAX_ASKED: usize = 4;

/// Where a memo call's value is kept: a memo-pair function's table is keyed by the
/// argument ids (`pair_key`), any other memo function's by the call's term.
#[derive(Clone, Copy)]
enum MemoKey {
    Pair(u64),
    Term(TermId),
}

/// A constructor waiting for the value of a call made in tail position (see
/// [`Engine::d_apply`]): `op` applied to the values `vals[base..]` once that value is pushed.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cons {
    op: OpId,
    base: u32,
    checks: u32,
}

/// The result of evaluating a node in tail position: a value, or a call of a direct
/// function whose arguments are on the value stack from `base` on.
enum Tail {
    Value(TermId),
    Call(OpId, u32),
}

impl Engine {
    /// Set up the native stack budget of the direct evaluator for the reduction about to
    /// run on this thread.
    pub(super) fn direct_begin(&mut self) {
        self.direct_floor = match stacker::remaining_stack() {
            Some(room) if room > 2 * RED_ZONE && self.direct => {
                stack_address().saturating_sub((room - RED_ZONE).min(BUDGET))
            }
            // An unknown stack size: the machine alone.
            _ => usize::MAX,
        };
        self.direct_used = false;
        self.d_depth = 0;
        self.conses.clear();
    }

    /// A question `op(vals[0..])` of a direct function, asked at the top of a reduction
    /// (`Engine::reduce_app`): rewritten by the direct evaluator from the start, not by the
    /// machine until its right-hand side.
    pub(super) fn d_question(&mut self, op: OpId) -> Result<TermId, RuntimeError> {
        self.direct_used = true;
        self.d_apply(op, 0)
    }

    /// Did the last reduction use the direct evaluator (and finish with it, without being
    /// run again on the machine alone)?
    pub fn used_direct(&self) -> bool {
        self.direct_used && self.direct_floor != usize::MAX
    }

    /// Is there native stack left for more direct evaluation?
    #[inline]
    fn direct_room(&self) -> bool {
        stack_address() > self.direct_floor
    }

    /// May `fire` evaluate the right-hand side `rhs` directly? An application that calls
    /// something (one `quick` cannot evaluate alone), while there is stack to spare.
    #[inline]
    pub(super) fn direct_wanted(&self, rhs: u32) -> bool {
        !self.quickable[rhs as usize]
            && matches!(self.nodes[rhs as usize], Node::App { .. })
            && self.direct_room()
    }

    /// Evaluate the right-hand side `rhs` under `env` (owned: released at the end) to its
    /// normal form, directly.
    pub(super) fn direct_rhs(&mut self, rhs: u32, env: u32) -> Result<TermId, RuntimeError> {
        self.direct_used = true;
        let v = self.d_node(rhs, env)?;
        self.envs.truncate(env as usize);
        Ok(v)
    }

    /// The normal form of the instance of `node` under `env`.
    fn d_node(&mut self, node: u32, env: u32) -> Result<TermId, RuntimeError> {
        match self.nodes[node as usize] {
            Node::Var(v) => {
                let x = self.envs[(env + v) as usize];
                if bit(&self.normal, x) {
                    Ok(x)
                } else {
                    self.d_machine(Task::Eval(x))
                }
            }
            Node::Term(t) => {
                if bit(&self.normal, t) {
                    Ok(t)
                } else {
                    self.d_machine(Task::Eval(t))
                }
            }
            Node::Shared { slot, body } => {
                let x = self.envs[(env + slot) as usize];
                if x != NONE {
                    return Ok(x);
                }
                let v = self.d_node(body, env)?;
                self.envs[(env + slot) as usize] = v;
                Ok(v)
            }
            // Not `quick` on the node itself: like the machine's `build_node`, only its
            // children are tried by `quick` (`d_tail`). A `quick` that fails half-way has
            // evaluated (and counted) some children already, which would then be counted
            // again.
            Node::App { .. } => match self.d_tail(node, env)? {
                Tail::Value(v) => Ok(v),
                Tail::Call(op, base) => self.d_call(op, base),
            },
        }
    }

    /// A nested (not tail) call of `op` on the values `vals[base..]`: its value. It counts
    /// towards the depth limit as the machine's pending frame would.
    fn d_call(&mut self, op: OpId, base: u32) -> Result<TermId, RuntimeError> {
        self.d_depth += 1;
        if self.d_depth + self.frames.len() > self.limits.max_depth {
            return Err(RuntimeError::DepthLimit {
                limit: self.limits.max_depth,
                term: NONE,
            });
        }
        let v = self.d_apply(op, base);
        self.d_depth -= 1;
        v
    }

    /// The value of the child node `k` of an application: as it is if it is a normal
    /// value, by `quick` where that may succeed, else evaluated (as the machine's
    /// `next_child` does).
    #[inline(always)]
    fn d_kid(&mut self, k: u32, env: u32) -> Result<TermId, RuntimeError> {
        let ready = match self.nodes[k as usize] {
            Node::Var(v) => {
                let x = self.envs[(env + v) as usize];
                bit(&self.normal, x).then_some(x)
            }
            Node::Term(t) => bit(&self.normal, t).then_some(t),
            Node::App { .. } | Node::Shared { .. } if self.quickable[k as usize] => {
                self.quick(k, env, QUICK_DEPTH)
            }
            Node::App { .. } | Node::Shared { .. } => None,
        };
        match ready {
            Some(v) => Ok(v),
            None => self.d_node(k, env),
        }
    }

    /// Decide the lazy built-in node `node` (of `op`) whose first argument's value is
    /// `first`: the argument to go on with (1 or 2), or `None` for `first` itself. Counts
    /// the step; a first argument that is not a Boolean is stuck.
    #[inline]
    fn d_decide(
        &mut self,
        node: u32,
        op: OpId,
        first: TermId,
        env: u32,
    ) -> Result<Option<usize>, RuntimeError> {
        let b = self.ops[op.0 as usize].builtin;
        let cond = match self.lazy_cond(first, op, b) {
            Ok(c) => c,
            Err(reason) => {
                let term = self.instantiate(node, env);
                return Err(RuntimeError::Stuck { term, op, reason });
            }
        };
        self.d_count_step(Step::Op(op))?;
        Ok(lazy_choice(b, cond))
    }

    /// Run the code of a right-hand side from `pc` under `env` (see `code`): its value, or
    /// the call it makes in tail position.
    fn d_code(&mut self, mut pc: u32, env: u32) -> Result<Tail, RuntimeError> {
        loop {
            match self.code[pc as usize] {
                Ins::Var(v) => {
                    let x = self.envs[(env + v) as usize];
                    let x = if bit(&self.normal, x) {
                        x
                    } else {
                        self.d_machine(Task::Eval(x))?
                    };
                    self.vals.push(x);
                }
                Ins::Kid(k) => {
                    let v = self.d_kid(k, env)?;
                    self.vals.push(v);
                }
                Ins::Node(k) => {
                    let v = self.d_node(k, env)?;
                    self.vals.push(v);
                }
                Ins::App {
                    op,
                    n,
                    ctor,
                    tail,
                    checks,
                } => {
                    let base = self.vals.len() as u32 - n;
                    if let Some(t) = ctor.then(|| self.build_plain(op, base, checks)).flatten() {
                        if tail {
                            return Ok(Tail::Value(t));
                        }
                        self.vals.push(t);
                    } else if tail {
                        return Ok(Tail::Call(op, base));
                    } else {
                        let v = self.d_call(op, base)?;
                        self.vals.push(v);
                    }
                }
                Ins::Cons { op, n } => {
                    // The constructor the next instruction builds waits for the call's
                    // value (its other arguments below the call's on the value stack),
                    // counted towards the depth limit as the nested call would be.
                    let base = self.vals.len() as u32 - n;
                    let Ins::App {
                        op: c,
                        n: m,
                        checks,
                        ..
                    } = self.code[pc as usize + 1]
                    else {
                        unreachable!("a `Cons` call is followed by its constructor")
                    };
                    self.d_depth += 1;
                    if self.d_depth + self.frames.len() > self.limits.max_depth {
                        return Err(RuntimeError::DepthLimit {
                            limit: self.limits.max_depth,
                            term: NONE,
                        });
                    }
                    self.conses.push(Cons {
                        op: c,
                        base: base - (m - 1),
                        checks,
                    });
                    return Ok(Tail::Call(op, base));
                }
                Ins::Lazy {
                    node,
                    op,
                    then,
                    other,
                } => {
                    let first = self.vals.pop().expect("the first argument's value");
                    pc = match self.d_decide(node, op, first, env)? {
                        None => return Ok(Tail::Value(first)),
                        Some(1) => then,
                        Some(_) => other,
                    };
                    continue;
                }
                Ins::Ret(k) => return self.d_node(k, env).map(Tail::Value),
            }
            pc += 1;
        }
    }

    /// Evaluate the application node `node` under `env` up to a call in tail position: a
    /// lazy built-in decides its branch, an application evaluates its children onto the
    /// value stack.
    fn d_tail(&mut self, node: u32, env: u32) -> Result<Tail, RuntimeError> {
        let Node::App { op, kids, n } = self.nodes[node as usize] else {
            return self.d_node(node, env).map(Tail::Value);
        };
        let rt = &self.ops[op.0 as usize];
        if rt.lazy {
            let b = rt.builtin;
            if n != lazy_arity(b) {
                // The machine words the error.
                let v = self.d_machine(Task::Build {
                    node,
                    env,
                    owner: false,
                })?;
                return Ok(Tail::Value(v));
            }
            let first = self.d_node(self.kids[kids as usize], env)?;
            return match self.d_decide(node, op, first, env)? {
                None => Ok(Tail::Value(first)),
                Some(i) => {
                    let k = self.kids[kids as usize + i];
                    match self.nodes[k as usize] {
                        Node::App { .. } => self.d_tail(k, env),
                        _ => self.d_node(k, env).map(Tail::Value),
                    }
                }
            };
        }
        let base = self.vals.len() as u32;
        for i in 0..n {
            let k = self.kids[(kids + i) as usize];
            let v = self.d_kid(k, env)?;
            self.vals.push(v);
        }
        if let Some(t) = self.build_ctor(node, op, base) {
            return Ok(Tail::Value(t));
        }
        Ok(Tail::Call(op, base))
    }

    /// `op` applied to the normal values `vals[base..]` (which it consumes): its normal
    /// form. A call of a cached function is looked up in the call cache first (see
    /// `calls`), and its value recorded there after — with the values of the calls it
    /// turned into by tail calls on the way, up to a few.
    ///
    /// A call whose value is the last argument of a constructor in tail position
    /// (`s(plus(M, N))`, `o(add(A, B))`; `Ins::App`'s `cons`) is made in this loop too, as a
    /// tail call, its constructor pushed on `conses`: a recursion that builds a
    /// constructor term level by level (adding bit lists, appending lists, Peano
    /// numerals) runs in a loop, in constant native stack, and the constructors are built
    /// innermost first when the innermost call has its value.
    fn d_apply(&mut self, op: OpId, base: u32) -> Result<TermId, RuntimeError> {
        // The cached calls on the way go on `asking` from `mark` on: roots for a
        // collection meanwhile, which therefore cannot free their arguments. So do the
        // memo calls being computed (`d_memo_begin`).
        let mark = self.asking.len();
        let cmark = self.conses.len();
        let v = self.d_apply_calls(op, base, mark, cmark);
        match v {
            Ok(v) => {
                // The calls asked with no constructor of this chain pending.
                for i in mark..self.asking.len() {
                    let a = self.asking[i];
                    if a.is_memo() {
                        self.d_memo_remember(a, Some(v));
                    } else {
                        self.calls.put(a.op, &a.key, v, self.steps - a.since);
                    }
                }
            }
            Err(_) => {
                for i in mark..self.asking.len() {
                    let a = self.asking[i];
                    if a.is_memo() {
                        self.d_memo_remember(a, None);
                    }
                }
                // The constructors the chain left pending stay on `conses`, as the
                // values stay on `vals`: an error ends the reduction, which is run again
                // (`direct_begin`) or recovered from (`recover`) with them cleared.
            }
        }
        self.asking.truncate(mark);
        v
    }

    /// The innermost call of a chain begun by [`Engine::d_apply`] has the value `v`: build
    /// the constructors left pending on the way (`conses` from `cmark` on), innermost
    /// first, and record the value of each call asked (`asking` from `mark` on) under a
    /// pending constructor at the level it was asked: a call asked under k pending
    /// constructors has the value built when k are left. The value with none left is
    /// returned; the calls asked then are `d_apply`'s to record.
    #[cold]
    #[inline(never)]
    fn d_unwind(
        &mut self,
        mut v: TermId,
        mark: usize,
        cmark: usize,
    ) -> Result<TermId, RuntimeError> {
        let asked_above =
            |e: &Engine| e.asking.len() > mark && e.asking[e.asking.len() - 1].level > cmark as u32;
        while self.conses.len() > cmark {
            if asked_above(self) {
                let level = self.conses.len() as u32;
                while self.asking.len() > mark && self.asking[self.asking.len() - 1].level == level
                {
                    let a = self.asking.pop().expect("an asked call");
                    if a.is_memo() {
                        self.d_memo_remember(a, Some(v));
                    } else {
                        self.calls.put(a.op, &a.key, v, self.steps - a.since);
                    }
                }
            }
            let Some(c) = self.conses.pop() else {
                unreachable!("a pending constructor")
            };
            self.d_depth -= 1;
            self.conses_built += 1;
            self.vals.push(v);
            v = match self.build_plain(c.op, c.base, c.checks) {
                Some(t) => t,
                // A value of a sort the constructor does not take: the call of `op`
                // (what `d_code` does with a constructor it cannot build).
                None => self.d_call(c.op, c.base)?,
            };
        }
        Ok(v)
    }

    /// A call of the memo function `op` (`OpRt::memo_direct`) on the normal values
    /// `vals[base..]`, as the machine's `apply_memo_pair` or `apply_known` starts one: its
    /// value if the memo table (or the table shared between threads) has it; else `None`,
    /// the call marked in its memo table as being computed and put on `asking`, for the
    /// direct evaluator to compute as a direct function's and remember when its value
    /// comes back (`Engine::d_apply`). A call met again while it is computed, or past the
    /// memo limit, is handed to the machine, which words the error.
    #[cold]
    #[inline(never)]
    fn d_memo_begin(&mut self, op: OpId, base: u32) -> Result<Option<TermId>, RuntimeError> {
        let b = base as usize;
        // A memo-pair call's arguments (at most two), which key its table.
        let n = self.vals.len() - b;
        let arg = |i: usize| self.vals.get(b + i).copied().unwrap_or(NONE);
        let pair = [arg(0), arg(1)];
        let args = &pair[..n.min(2)];
        let key = if self.ops[op.0 as usize].memo_pair {
            MemoKey::Pair(pair_key(n, pair[0], pair[1]))
        } else {
            MemoKey::Term(self.store.mk_app(op, &self.vals[b..]))
        };
        match self.memo_entry(op, key) {
            Some(v) if v != IN_PROGRESS => {
                self.note_memo_hit(op);
                self.vals.truncate(b);
                return Ok(Some(v));
            }
            Some(_) => return self.d_machine_call(op, base).map(Some),
            None => {}
        }
        if self.memo_total >= self.limits.max_memo_entries {
            return self.d_machine_call(op, base).map(Some);
        }
        if self.shared.is_some() {
            let shared = match key {
                MemoKey::Pair(_) => self.shared_lookup_app(op, args),
                MemoKey::Term(t) => self.shared_lookup(t),
            };
            if let Some(v) = shared {
                self.note_memo_hit(op);
                self.memo_set(op, key, v);
                self.memo_total += 1;
                self.vals.truncate(b);
                return Ok(Some(v));
            }
        }
        self.memo_set(op, key, IN_PROGRESS);
        self.memo_total += 1;
        self.asking.push(match key {
            MemoKey::Pair(_) => calls::Asked::memo(op, args, self.conses.len() as u32),
            MemoKey::Term(t) => calls::Asked::memo_term(op, t, self.conses.len() as u32),
        });
        Ok(None)
    }

    /// The memo call `a` (begun by `d_memo_begin`) is done: its value `v` (the value of
    /// the chain of tail calls it began) remembered; or, where the chain failed (`None`),
    /// unmarked, so that the machine (for no equation, or the reduction run again on the
    /// machine alone after an error) finds it not yet known.
    #[cold]
    #[inline(never)]
    fn d_memo_remember(&mut self, a: calls::Asked, v: Option<TermId>) {
        // A memo-pair call's arguments (none for a term-keyed call): its key, and what it
        // publishes to the table shared between threads.
        let args: SmallVec<[TermId; 2]> = if a.since == calls::MEMO_TERM {
            SmallVec::new()
        } else {
            calls::key_args(&a.key).collect()
        };
        let key = if a.since == calls::MEMO_TERM {
            MemoKey::Term(TermId(a.key[0]))
        } else {
            let arg = |i: usize| args.get(i).copied().unwrap_or(NONE);
            MemoKey::Pair(pair_key(args.len(), arg(0), arg(1)))
        };
        match v {
            Some(v) => {
                self.memo_set(a.op, key, v);
                if self.shared.is_some() {
                    match key {
                        MemoKey::Pair(_) => self.shared_publish_app(a.op, &args, v),
                        MemoKey::Term(t) => self.shared_publish(t, v),
                    }
                }
            }
            None => {
                if self.memo_entry(a.op, key) == Some(IN_PROGRESS) {
                    match key {
                        MemoKey::Pair(k) => self.memo2[a.op.0 as usize].remove(&k),
                        MemoKey::Term(t) => self.memo[a.op.0 as usize].remove(&t),
                    };
                    self.memo_total -= 1;
                }
            }
        }
    }

    /// The entry of `op`'s memo table under `key` (its value, or `IN_PROGRESS`).
    #[inline]
    fn memo_entry(&self, op: OpId, key: MemoKey) -> Option<TermId> {
        match key {
            MemoKey::Pair(k) => self.memo2[op.0 as usize].get(&k).copied(),
            MemoKey::Term(t) => self.memo[op.0 as usize].get(&t).copied(),
        }
    }

    /// Set the entry of `op`'s memo table under `key`.
    #[inline]
    fn memo_set(&mut self, op: OpId, key: MemoKey, v: TermId) {
        match key {
            MemoKey::Pair(k) => self.memo2[op.0 as usize].insert(k, v),
            MemoKey::Term(t) => self.memo[op.0 as usize].insert(t, v),
        };
    }

    /// The call `op(vals[base..])` rewritten by the machine (nested).
    fn d_machine_call(&mut self, op: OpId, base: u32) -> Result<TermId, RuntimeError> {
        let floor = self.frames.len();
        let task = self.complete(op, base)?;
        self.d_finish(task, floor)
    }

    /// The loop of [`Engine::d_apply`]: rewrite `op` applied to `vals[base..]`, then the
    /// calls it turns into in tail position, until a value.
    fn d_apply_calls(
        &mut self,
        mut op: OpId,
        mut base: u32,
        mark: usize,
        cmark: usize,
    ) -> Result<TermId, RuntimeError> {
        // When the loop made its first tail call (its first turn may be any amount of
        // work before the loop: `rev(L)` in `app(rev(L), M)`), and its number once it is
        // watched (see `loops`).
        let mut began = u64::MAX;
        let mut chain: u64 = 0;
        let v = loop {
            let n = self.vals.len() as u32 - base;
            if let Some(key) = self.call_key(op, base, n) {
                if let Some(v) = self.calls.get(op, &key) {
                    self.note_cache_hit(op);
                    self.vals.truncate(base as usize);
                    break v;
                }
                if self.asking.len() - mark < MAX_ASKED {
                    self.asking.push(calls::Asked {
                        op,
                        key,
                        since: self.steps,
                        level: self.conses.len() as u32,
                    });
                }
            }
            match self.d_step(op, base)? {
                Ok(v) => break v,
                Err((next, b)) => {
                    (op, base) = (next, b);
                    if began == u64::MAX {
                        began = self.steps;
                    }
                    // (A loop this long is rare: shorter ones pay only the test.)
                    if self.steps - began > loops::WATCH_AFTER
                        && self.watch_tail_chain((&mut chain, stack_address()), op, base)
                    {
                        return Err(self.loop_error());
                    }
                }
            }
        };
        if self.conses.len() == cmark {
            return Ok(v);
        }
        self.d_unwind(v, mark, cmark)
    }

    /// One rewrite of `op` applied to the normal values `vals[base..]`: its normal form,
    /// or the function its right-hand side calls in tail position and where its arguments
    /// begin on the value stack (`base`, or above it: past a pending constructor's other
    /// arguments).
    fn d_step(&mut self, op: OpId, base: u32) -> Result<Result<TermId, (OpId, u32)>, RuntimeError> {
        // The machine may push frames before it hands back a task (a memo entry, a
        // suspended condition): its nested run must resume them.
        let floor = self.frames.len();
        let rt = &self.ops[op.0 as usize];
        if !rt.direct || !self.direct_room() {
            if !rt.memo_direct || !self.direct_room() {
                let task = self.complete(op, base)?;
                self.built = self.built.wrapping_add(1);
                if self.built & 0xFF == 0 {
                    self.d_collect_built(&task);
                }
                return self.d_finish(task, floor).map(Ok);
            }
            // A memo call not known yet goes on as a direct function's (below).
            if let Some(v) = self.d_memo_begin(op, base)? {
                return Ok(Ok(v));
            }
        } else if let Some(b) = rt.builtin {
            let subj = Subj {
                term: NONE,
                op,
                base,
                n: self.vals.len() as u32 - base,
            };
            if let Some(task) = self.try_builtin(subj, b)? {
                return self.d_finish(task, floor).map(Ok);
            }
        }
        match self.d_eqs(op, base)? {
            Some(Tail::Value(v)) => Ok(Ok(v)),
            Some(Tail::Call(next, b)) => Ok(Err((next, b))),
            None => self.d_no_equation(op, base).map(Ok),
        }
    }

    /// Every so many terms built by the machine for the direct evaluator (`d_step`): a
    /// collection if the store has grown. An `assoc` list (every one is built there) may
    /// be a new copy of a long one: a recursion that rewrites on the way down and builds
    /// on the way back up (`mk(N) = e(N) mk(N - 1)`, the list below each level garbage)
    /// meets the check between rewrites (`d_eqs`) only on the way down. Every caller's
    /// terms are on the stacks here, as they are at that check; the value is put there.
    #[cold]
    #[inline(never)]
    fn d_collect_built(&mut self, task: &Task) {
        if let (&Task::Return(t), true) = (task, self.collect_in_reduce) {
            self.vals.push(t);
            self.collect_pending_if_grown(None);
            self.vals.pop();
        }
    }

    /// No equation of the direct function `op` applies to `vals[base..]`: a constructor
    /// term, or stuck (the machine says which). A memo call begun by `d_memo_begin` is
    /// the machine's to compute and remember: unmarked first.
    #[cold]
    #[inline(never)]
    fn d_no_equation(&mut self, op: OpId, base: u32) -> Result<TermId, RuntimeError> {
        if self.ops[op.0 as usize].memo_direct {
            let a = self.asking.pop().expect("the memo call begun");
            self.d_memo_remember(a, None);
        }
        self.d_machine_call(op, base)
    }

    /// Try the equations of the direct function `op` on the values `vals[base..]`: the
    /// right-hand side of the first that applies, evaluated up to a tail call, or `None`.
    fn d_eqs(&mut self, op: OpId, base: u32) -> Result<Option<Tail>, RuntimeError> {
        let b = base as usize;
        let n = self.vals.len() - b;
        let rt = &self.ops[op.0 as usize];
        let (first, end) = rt.dispatch.candidates(&self.vals[b..], &self.store);
        for c in first..end {
            let rt = &self.ops[op.0 as usize];
            let (q, settled) = rt.dispatch.at(c);
            let e = rt.eqs[q as usize] as usize;
            // The matches of equation `e`, in the matcher's order: more than one only for
            // an AC list whose element picked a condition refuses.
            let mut after = NO_PICK;
            loop {
                let eq = &self.eqs[e];
                let env = self.envs.len();
                let pick = match &eq.loads {
                    // The dispatch has read every head the left-hand side fixes: the match
                    // is the loads of its variables.
                    Some(l) if settled => {
                        if !load_args(l, &self.vals[b..], &self.store, &mut self.envs) {
                            self.envs.truncate(env);
                            break;
                        }
                        for _ in l.loads.len()..eq.width as usize {
                            self.envs.push(NONE);
                        }
                        NO_PICK
                    }
                    _ => match self.match_general(e, settled, b, after) {
                        Some(pick) => pick,
                        None => break,
                    },
                };
                let eq = &self.eqs[e];
                if let Some(reason) = &eq.invalid {
                    let reason = reason.clone();
                    let term = self.store.mk_app(op, &self.vals[b..]);
                    return Err(RuntimeError::Stuck { term, op, reason });
                }
                let (rhs, cond, code, env) = (eq.rhs, eq.cond, eq.code, env as u32);
                if let Some(c) = cond {
                    let v = match self.quick(c, env, QUICK_DEPTH) {
                        Some(v) => v,
                        None => self.d_node(c, env)?,
                    };
                    if Some(v) == self.false_t {
                        self.note_cond_false(e);
                        self.envs.truncate(env as usize);
                        if pick == NO_PICK {
                            break;
                        }
                        after = pick;
                        continue;
                    }
                    if Some(v) != self.true_t {
                        let subj = Subj {
                            term: NONE,
                            op,
                            base,
                            n: n as u32,
                        };
                        return Err(self.not_a_bool(subj, v));
                    }
                }
                self.d_count_step(Step::Eq(e as u32))?;
                if self.collect_in_reduce && self.ticks & 0xFFF == 0 {
                    // The subject's values and the match are on the stacks.
                    self.collect_pending_if_grown(None);
                }
                self.vals.truncate(b);
                // Every application has code (`compile_code`); the rest is a value.
                let tail = match code {
                    Some(start) => self.d_code(start, env)?,
                    None => Tail::Value(self.d_node(rhs, env)?),
                };
                self.envs.truncate(env as usize);
                return Ok(Some(tail));
            }
        }
        Ok(None)
    }

    /// Match equation `e` against the values `vals[b..]` by its pattern (testing its
    /// guards unless `settled`), its variables pushed on the environment stack (if it does
    /// not match, the stack is as it was). A pattern with AC lists gives its matches in
    /// the matcher's order (`Pattern::match_ac_first`): the first, or the one after the
    /// match whose pick was `after`. The index picked ([`NO_PICK`] for none), or `None`.
    fn match_general(&mut self, e: usize, settled: bool, b: usize, after: usize) -> Option<usize> {
        let eq = &self.eqs[e];
        let n = self.vals.len() - b;
        if !settled
            && !eq
                .guards
                .iter()
                .all(|g| g.admits(&self.vals[b..], &self.store))
        {
            return None;
        }
        let Some((_, arity, out)) = eq.lhs.free_top() else {
            unreachable!("a direct function's equations have a free top")
        };
        if arity != n {
            return None;
        }
        let regs = &mut self.simple_regs;
        if regs.len() < eq.lhs.nregs() {
            regs.resize(eq.lhs.nregs(), NONE);
        }
        crate::term::copy_args(&mut regs[out..out + n], &self.vals[b..]);
        let env = self.envs.len();
        // Not `resize`: a fill of unknown length is a call of `memset`, which costs
        // more than a few stores (1.2% of binary-add).
        for _ in 0..eq.width {
            self.envs.push(NONE);
        }
        let found = if eq.lhs.is_simple() {
            eq.lhs
                .match_simple(&self.store, regs, 1, &mut self.envs[env..])
                .then_some(NO_PICK)
        } else {
            let found =
                eq.lhs
                    .match_ac_first(&mut self.store, regs, 1, &mut self.envs[env..], after);
            if found.is_some() {
                self.rests_normal(e, env);
            }
            found
        };
        if found.is_none() {
            self.envs.truncate(env);
        }
        found
    }

    /// Count a step; now and then, check the interrupt flag and the memory budget (as the
    /// run loop does).
    #[inline]
    fn d_count_step(&mut self, step: Step) -> Result<(), RuntimeError> {
        self.steps += 1;
        if self.steps > self.step_limit && self.over_step_limit(step) {
            return Err(RuntimeError::StepBudget {
                limit: self.limits.max_steps,
                term: NONE,
            });
        }
        self.tick(|_| NONE)
    }

    /// The value of a machine task started when there were `floor` frames: by running the
    /// machine nested, unless the task is a value and no frame was pushed.
    fn d_finish(&mut self, task: Task, floor: usize) -> Result<TermId, RuntimeError> {
        match task {
            Task::Return(v) if self.frames.len() == floor => {
                // A value handed back to native code: the machine's calls made from
                // `floor` on have ended (see `loops`).
                self.loops.frames_low = self.loops.frames_low.min(floor as i64 - 1);
                Ok(v)
            }
            task => self.d_run(task, floor),
        }
    }

    /// Run the machine on `task` above the frames pending now, and return its value.
    fn d_machine(&mut self, task: Task) -> Result<TermId, RuntimeError> {
        self.d_run(task, self.frames.len())
    }

    /// Run the machine on `task` until a value reaches `floor` frames.
    fn d_run(&mut self, task: Task, floor: usize) -> Result<TermId, RuntimeError> {
        let outer = std::mem::replace(&mut self.frame_floor, floor);
        let v = self.run_from(task);
        self.frame_floor = outer;
        // (The machine's calls made from `floor` on have ended: see `loops`.)
        self.loops.frames_low = self.loops.frames_low.min(floor as i64 - 1);
        v
    }
}

/// Push the values of a left-hand side's variables, read by `l` from the subject's
/// arguments `args`, on `envs`: whether they fit (the arity, the sorts checked).
#[inline(always)]
fn load_args(l: &ArgLoads, args: &[TermId], store: &TermStore, envs: &mut Vec<TermId>) -> bool {
    if args.len() != l.arity as usize {
        return false;
    }
    let env = envs.len();
    for &load in l.loads.iter() {
        envs.push(match load {
            Load::Arg(a) => args[a as usize],
            Load::Kid(a, k) => store.args(args[a as usize])[k as usize],
            Load::Unbound => NONE,
        });
    }
    l.sorts
        .iter()
        .all(|&(v, sort)| store.has_sort(envs[env + v as usize], sort))
}

/// The address of a local: where the native stack is now (it grows downwards).
#[inline(always)]
fn stack_address() -> usize {
    let probe = 0u8;
    std::hint::black_box(&probe) as *const u8 as usize
}
