//! The machine: the run loop over tasks and frames (see the module documentation of
//! `engine`), starting work on terms and right-hand-side nodes, resuming frames with
//! values, and recovering after an error.

use super::*;

impl Engine {
    /// Reduce `t` to normal form (innermost strategy, lazy Boolean built-ins, memo tables).
    /// On error the engine stays usable: the pending work is dropped (completed memo
    /// entries are kept) and [`Engine::trace`] tells where it happened.
    pub fn reduce(&mut self, t: TermId) -> Result<TermId, RuntimeError> {
        self.begin_reduction();
        if let Err(e) = self.watch_questions(t) {
            self.watch_end();
            return Err(e);
        }
        self.reduce_root = t;
        let steps = self.steps;
        let mut result = self.run(t);
        if let Err(e) = &result {
            if self.direct_used
                && !matches!(
                    e,
                    RuntimeError::Interrupted { .. } | RuntimeError::Loop { .. }
                )
            {
                // Run it again on the machine alone, which reports the error with its
                // trace (see `direct`). Not an endless loop: the machine would not end.
                self.recover();
                self.steps = steps;
                self.direct_floor = usize::MAX;
                result = self.run(t);
            }
        }
        self.reduce_root = NONE;
        self.watch_end();
        match result {
            Ok(v) => Ok(v),
            Err(mut e) => {
                if let RuntimeError::Interrupted { term } = &mut e {
                    if *term == NONE {
                        *term = t;
                    }
                }
                self.recover();
                Err(e)
            }
        }
    }

    /// Reduce `op(args…)`, whose arguments are normal (values from earlier reductions),
    /// without hash-consing the application itself: an explorer asking `move(e, c, s)` of
    /// a million states builds no term per question, only the answers. The same result as
    /// `reduce` of the built term; on an error the built term is reduced, so the error is
    /// worded and located as `reduce` words it.
    pub fn reduce_app(&mut self, op: OpId, args: &[TermId]) -> Result<TermId, RuntimeError> {
        // Collections during the reduction could free the arguments, which the error path
        // needs.
        if self.collect_in_reduce
            || self.ops[op.0 as usize].lazy
            // (Integers and maps are values: normal without a mark.)
            || args
                .iter()
                .any(|&a| !bit(&self.normal, a) && self.store.op(a).is_some())
        {
            let t = self.store.mk_app(op, args);
            return self.reduce(t);
        }
        self.begin_reduction();
        if let Err(e) = self.watch_questions(NONE) {
            self.watch_end();
            return Err(match e {
                RuntimeError::MemoryLimit { limit, used, .. } => RuntimeError::MemoryLimit {
                    limit,
                    used,
                    term: self.store.mk_app(op, args),
                },
                e => e,
            });
        }
        let steps = self.steps;
        self.vals.extend_from_slice(args);
        self.frame_floor = 0;
        let rt = &self.ops[op.0 as usize];
        let result = if (rt.direct || rt.memo_direct) && self.direct_floor != usize::MAX {
            self.d_question(op)
        } else {
            self.complete(op, 0).and_then(|task| self.run_from(task))
        };
        self.watch_end();
        match result {
            Ok(v) => Ok(v),
            Err(RuntimeError::Interrupted { .. }) => {
                self.recover();
                let term = self.store.mk_app(op, args);
                Err(RuntimeError::Interrupted { term })
            }
            // (Asked again, it would loop as long again before it is found.)
            Err(e @ RuntimeError::Loop { .. }) => {
                self.recover();
                Err(e)
            }
            Err(_) => {
                self.recover();
                self.steps = steps;
                let t = self.store.mk_app(op, args);
                self.reduce(t)
            }
        }
    }

    /// Set up a reduction: empty stacks, no trace, the step budget, the watch and the
    /// direct evaluator's stack budget.
    fn begin_reduction(&mut self) {
        self.frames.clear();
        self.vals.clear();
        self.envs.clear();
        self.nconds = 0;
        self.trace.clear();
        self.trace_elided = 0;
        self.loops.begin(self.steps);
        let limit = self
            .budget_base
            .unwrap_or(self.steps)
            .saturating_add(self.limits.max_steps);
        self.set_step_limit(limit);
        self.watch_begin();
        self.direct_begin();
    }

    pub(super) fn run(&mut self, t: TermId) -> Result<TermId, RuntimeError> {
        self.frame_floor = 0;
        self.run_from(Task::Eval(t))
    }

    /// The run loop, from `task` until a value reaches `frame_floor` frames.
    pub(super) fn run_from(&mut self, mut task: Task) -> Result<TermId, RuntimeError> {
        let mut tick: u32 = 0;
        loop {
            tick = tick.wrapping_add(1);
            // One test a step: the other periods (4,096 and 2^18 steps) are multiples of
            // GROWTH_MASK + 1.
            if tick & watch::GROWTH_MASK == 0 {
                if tick & watch::CHECK_MASK == 0 {
                    self.watch(&task)?;
                } else {
                    self.watch_growth(&task)?;
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
            }
            task = match task {
                Task::Eval(t) => self.eval(t)?,
                Task::Build { node, env, owner } => self.build_node(node, env, owner)?,
                Task::Return(v) => {
                    if self.frames.len() <= self.frame_floor {
                        return Ok(v);
                    }
                    let f = self.frames.pop().expect("a frame above the floor");
                    // (For the watch of a long reduction's calls: see `loops`.)
                    self.loops.frames_low = self.loops.frames_low.min(self.frames.len() as i64);
                    self.resume(f, v)?
                }
            };
        }
    }

    #[inline]
    pub(super) fn push(&mut self, f: Frame) -> Result<(), RuntimeError> {
        if self.frames.len() >= self.limits.max_depth {
            return Err(self.depth_error(f));
        }
        self.frames.push(f);
        Ok(())
    }

    #[cold]
    pub(super) fn depth_error(&mut self, f: Frame) -> RuntimeError {
        let term = self.frame_term(f);
        RuntimeError::DepthLimit {
            limit: self.limits.max_depth,
            term,
        }
    }

    /// Count a step on the subject `subj`.
    #[inline]
    pub(super) fn count_step(&mut self, subj: Subj) -> Result<(), RuntimeError> {
        self.count_step_as(subj, Step::Op(subj.op))
    }

    /// Count a step on the subject `subj`, which is `step` for the profile.
    #[inline]
    pub(super) fn count_step_as(&mut self, subj: Subj, step: Step) -> Result<(), RuntimeError> {
        self.steps += 1;
        if self.steps > self.step_limit && self.over_step_limit(step) {
            let term = self.subj_term(subj);
            return Err(RuntimeError::StepBudget {
                limit: self.limits.max_steps,
                term,
            });
        }
        // Also here, not only in the run loop: the direct evaluator hands an equation it
        // cannot match itself (an `assoc` list's) to `complete`, which runs no loop, so a
        // recursion through both never reached a check (see `Engine::tick`).
        self.tick(|e| e.subj_term(subj))
    }

    /// The subject as a term (hash-consing an open one; its values stay on the stack).
    pub(super) fn subj_term(&mut self, subj: Subj) -> TermId {
        if subj.is_open() {
            let b = subj.base as usize;
            self.store
                .mk_app(subj.op, &self.vals[b..b + subj.n as usize])
        } else {
            subj.term
        }
    }

    /// The instance of a right-hand-side node (for diagnostics).
    pub(super) fn instantiate(&mut self, node: u32, env: u32) -> TermId {
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

    pub(super) fn frame_term(&mut self, f: Frame) -> TermId {
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
            Frame::Cache { op, key, .. } => {
                let n = self.program.sig.op(op).args.len();
                let args: SmallVec<[TermId; 4]> = key[..n].iter().map(|&a| TermId(a)).collect();
                self.store.mk_app(op, &args)
            }
        }
    }

    /// The arguments of a memo-pair application from its key.
    pub(super) fn pair_args(&self, op: OpId, key: u64) -> SmallVec<[TermId; 2]> {
        let n = self.program.sig.op(op).args.len();
        [TermId(key as u32), TermId((key >> 32) as u32)][..n]
            .iter()
            .copied()
            .collect()
    }

    /// Start normalising the existing term `t`.
    pub(super) fn eval(&mut self, t: TermId) -> Result<Task, RuntimeError> {
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

    pub(super) fn lazy_arity_error(&self, term: TermId, op: OpId, want: u32) -> RuntimeError {
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
    pub(super) fn build_node(
        &mut self,
        node: u32,
        env: u32,
        owner: bool,
    ) -> Result<Task, RuntimeError> {
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
    pub(super) fn next_child(
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
                Node::App { .. } | Node::Shared { .. } if self.quickable[child as usize] => {
                    self.quick(child, env, QUICK_DEPTH)
                }
                Node::App { .. } | Node::Shared { .. } => None,
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
        if let Some(t) = self.build_ctor(node, op, base) {
            return Ok(Task::Return(t));
        }
        self.complete(op, base)
    }

    /// The application node `node` of a plain free constructor `op`, its children's
    /// normal values on `vals[base..]`: the normal term, built after checking the sorts of
    /// only the children not known to fit (`Engine::node_checked`). `None` (nothing
    /// consumed) when `op` is not such a constructor or a check fails: `complete` then
    /// builds the term or reports it.
    #[inline]
    pub(super) fn build_ctor(&mut self, node: u32, op: OpId, base: u32) -> Option<TermId> {
        let mask = self.node_checked[node as usize];
        if mask == compile::UNCHECKED || !self.ops[op.0 as usize].ctor_plain() {
            return None;
        }
        self.build_plain(op, base, mask)
    }

    /// [`Engine::build_ctor`] for a node known to be an application of a plain free
    /// constructor with as many children as `op` declares: `checks` says which values must
    /// be checked against their declared sorts (the node's `node_checked`).
    #[inline(always)]
    pub(super) fn build_plain(&mut self, op: OpId, base: u32, checks: u32) -> Option<TermId> {
        let b = base as usize;
        if checks != 0 {
            let decl = self.store.op_args(op);
            let args = &self.vals[b..];
            for (i, (&a, &d)) in args.iter().zip(decl).enumerate() {
                if checks & (1 << i) != 0 && !self.store.has_sort(a, d) {
                    return None;
                }
            }
        }
        let t = self.store.intern_app(op, &self.vals[b..]);
        self.vals.truncate(b);
        self.set_normal(t);
        Some(t)
    }

    /// `op` applied to the normal values `vals[base..]`: rewrite it at the top.
    pub(super) fn complete(&mut self, op: OpId, base: u32) -> Result<Task, RuntimeError> {
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
            if rt.norm
                && !rt.memo
                && self.steps > self.loops.machine_from
                && self.loops.machine_due(op)
            {
                // A call of an operator with equational attributes (`comm`, an AC
                // constructor with equations): watched as `apply_open` watches the others.
                let n = (self.vals.len() - b) as u32;
                self.watch_machine_call(op, base, n)?;
            }
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
    pub(super) fn complete_list(&mut self, op: OpId, b: usize) -> Result<Task, RuntimeError> {
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
    pub(super) fn complete_ctor(&mut self, op: OpId, b: usize) -> Result<Task, RuntimeError> {
        let decl = &self.program.sig.op(op).args;
        let args = &self.vals[b..];
        let bad = if decl.len() == args.len() {
            args.iter()
                .zip(decl)
                .position(|(&a, d)| !self.store.has_sort(a, *d))
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
    pub(super) fn resume(&mut self, f: Frame, v: TermId) -> Result<Task, RuntimeError> {
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
                if self.steps > self.step_limit && self.over_step_limit(Step::Op(op)) {
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
            Frame::Cond { subj, pos, kept } if kept != NO_ENV => {
                let ei = self.ops[subj.op.0 as usize].eqs[pos as usize] as usize;
                if Some(v) == self.true_t {
                    // The condition's environment (with any shared slot it filled) is the
                    // right-hand side's.
                    self.fire(subj, ei, self.eqs[ei].rhs, kept)
                } else if Some(v) == self.false_t {
                    self.note_cond_false(ei);
                    self.envs.truncate(kept as usize);
                    self.try_eqs(subj, pos as usize + 1)
                } else {
                    Err(self.not_a_bool(subj, v))
                }
            }
            Frame::Cond { subj, pos, .. } => {
                let ei = self.ops[subj.op.0 as usize].eqs[pos as usize] as usize;
                let slot = self.nconds - 1;
                if Some(v) == self.true_t {
                    self.nconds = slot;
                    let env = self.push_env(slot, ei);
                    self.fire(subj, ei, self.eqs[ei].rhs, env)
                } else if Some(v) == self.false_t {
                    self.note_cond_false(ei);
                    let eq = &self.eqs[ei];
                    if self.matchers[slot].next(&eq.lhs, &mut self.store) {
                        let cond = eq.cond.expect("conditional equation");
                        let env = self.push_env(slot, ei);
                        // The frame was just popped: no depth check needed.
                        self.frames.push(Frame::Cond {
                            subj,
                            pos,
                            kept: NO_ENV,
                        });
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
                    Err(self.not_a_bool(subj, v))
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
            Frame::Cache { op, key, since } => {
                let cost = (self.steps as u32).wrapping_sub(since);
                self.calls.put(op, &key, v, cost.into());
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

    /// The error for a condition that reduced to `v`, not to a Bool.
    #[cold]
    pub(super) fn not_a_bool(&mut self, subj: Subj, v: TermId) -> RuntimeError {
        let term = self.subj_term(subj);
        RuntimeError::Stuck {
            term,
            op: subj.op,
            reason: format!(
                "the condition of an equation of `{}` reduced to `{}`, not to a Bool",
                self.program.sig.op(subj.op).name,
                self.show_limited(v, 200)
            ),
        }
    }

    /// The Boolean value `v` of the first argument of a lazy built-in, or the reason why
    /// it is stuck.
    pub(super) fn lazy_cond(
        &self,
        v: TermId,
        op: OpId,
        b: Option<Builtin>,
    ) -> Result<bool, String> {
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
    pub(super) fn push_env(&mut self, slot: usize, ei: usize) -> u32 {
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
        self.rests_normal(ei, env as usize);
        env
    }

    /// Mark normal the rests of AC lists that equation `e` bound in the environment at
    /// `env` (see [`Engine::push_env`]).
    pub(super) fn rests_normal(&mut self, e: usize, env: usize) {
        for k in 0..self.eqs[e].lhs.rest_vars().len() {
            let x = self.envs[env + self.eqs[e].lhs.rest_vars()[k] as usize];
            if x != NONE && !bit(&self.normal, x) {
                if let Some(op) = self.store.op(x) {
                    let rt = &self.ops[op.0 as usize];
                    if rt.assoc && rt.plain {
                        self.set_normal(x);
                    }
                }
            }
        }
    }

    /// Drop pending work after an error, keeping completed memo entries, and record the
    /// trace of enclosing terms.
    pub(super) fn recover(&mut self) {
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
                // The term's (or shared subterm's) own frames say where it is; the call
                // cache's frame is the function's own, met again as its tail call goes on.
                Frame::Fill { .. } | Frame::Remember { .. } | Frame::Cache { .. } => false,
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
        self.frame_floor = 0;
        self.d_depth = 0;
        self.conses.clear();
    }
}

/// Which argument of a lazy built-in to continue with (`None`: the first argument's value
/// is the result).
pub(super) fn lazy_choice(b: Option<Builtin>, cond: bool) -> Option<usize> {
    match (b, cond) {
        (Some(Builtin::AndThen), false) | (Some(Builtin::OrElse), true) => None,
        (Some(Builtin::AndThen | Builtin::OrElse), _) => Some(1),
        (_, true) => Some(1),
        (_, false) => Some(2),
    }
}

pub(super) fn lazy_arity(b: Option<Builtin>) -> u32 {
    if b == Some(Builtin::IfThenElse) {
        3
    } else {
        2
    }
}
