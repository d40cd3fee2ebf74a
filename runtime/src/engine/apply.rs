//! Rewriting at the top of an application whose arguments are normal: memo tables,
//! strict built-ins, the equations (guards, matching, conditions) and terms no equation
//! rewrites.

use super::*;

impl Engine {
    /// Rewrite at the top of the existing term `t`, whose arguments are normal.
    pub(super) fn apply_known(&mut self, t: TermId) -> Result<Task, RuntimeError> {
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
                Some(&v) => {
                    self.note_memo_hit(op);
                    return Ok(Task::Return(v));
                }
                None => {
                    if self.memo_total >= self.limits.max_memo_entries {
                        return Err(RuntimeError::MemoLimit {
                            limit: self.limits.max_memo_entries,
                            term: t,
                        });
                    }
                    if self.shared.is_some() {
                        if let Some(v) = self.shared_lookup(t) {
                            self.note_memo_hit(op);
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
    pub(super) fn apply_memo_pair(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let op = subj.op;
        let (n, a0, a1) = self.subj_args2(subj);
        let key = pair_key(n, a0, a1);
        match self.memo2[op.0 as usize].get(&key) {
            Some(&v) if v == IN_PROGRESS => {
                let term = self.subj_term(subj);
                return Err(RuntimeError::Cycle { term });
            }
            Some(&v) => {
                self.note_memo_hit(op);
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
                self.note_memo_hit(op);
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

    /// Rewrite at the top of an open subject (a free, non-memo operator). A call of a
    /// cached function is looked up in the call cache first, and its value recorded there
    /// when it comes back (`Frame::Cache`), as the direct evaluator does.
    pub(super) fn apply_open(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let rt = &self.ops[subj.op.0 as usize];
        if !rt.defined && rt.builtin.is_none() {
            return self.no_equation(subj);
        }
        if self.steps > self.loops.machine_from && self.loops.machine_due(subj.op) {
            // (A reduction this long is rare: shorter ones pay only the test.)
            self.watch_machine_call(subj.op, subj.base, subj.n)?;
        }
        if let Some(key) = self.call_key(subj.op, subj.base, subj.n) {
            if let Some(v) = self.calls.get(subj.op, &key) {
                self.note_cache_hit(subj.op);
                self.vals.truncate(subj.base as usize);
                return Ok(Task::Return(v));
            }
            // A call in tail position of a cached call has that call's value: no frame for
            // it, so that a tail-recursive loop keeps running in constant stack.
            if !matches!(self.frames.last(), Some(Frame::Cache { .. })) {
                self.push(Frame::Cache {
                    op: subj.op,
                    key,
                    since: self.steps as u32,
                })?;
            }
        }
        let rt = &self.ops[subj.op.0 as usize];
        if let Some(b) = rt.builtin {
            if let Some(task) = self.try_builtin(subj, b)? {
                return Ok(task);
            }
        }
        self.try_eqs(subj, 0)
    }

    /// The call cache's key for `op` applied to `vals[base..base + n]`, if this call is to
    /// be looked up and recorded (see `calls`): `op` is cached and not resting, and the
    /// cache is on. Only with the direct evaluator on: the machine alone
    /// (`Engine::direct` off) is the reference the tests compare rewrite counts with.
    #[inline(always)]
    pub(super) fn call_key(
        &mut self,
        op: OpId,
        base: u32,
        n: u32,
    ) -> Option<[u32; calls::MAX_ARGS]> {
        let wanted = self.ops[op.0 as usize].cached
            && self.call_cache
            && self.direct
            && self.calls.wanted(op);
        if !wanted {
            return None;
        }
        let b = base as usize;
        calls::key(&self.vals[b..b + n as usize])
    }

    /// The number of arguments of the subject and its first two (`NONE` if missing).
    #[inline(always)]
    pub(super) fn subj_args2(&self, subj: Subj) -> (usize, TermId, TermId) {
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
    pub(super) fn try_builtin(
        &mut self,
        subj: Subj,
        b: Builtin,
    ) -> Result<Option<Task>, RuntimeError> {
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
        let value = if b == Builtin::ModExp {
            // The one built-in on numbers of three arguments reads them itself.
            self.mod_exp_of(subj)
        } else if b.is_string() {
            self.string_builtin(subj, b)
        } else {
            let (n, a0, a1) = self.subj_args2(subj);
            self.builtin_of(b, subj.op, n, a0, a1)
        };
        match value {
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
                    BuiltinError::OutOfRange(reason) => RuntimeError::OutOfRange { term, reason },
                })
            }
        }
    }

    /// Try the equations of the subject's operator from position `pos`.
    pub(super) fn try_eqs(&mut self, mut subj: Subj, mut pos: usize) -> Result<Task, RuntimeError> {
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
            if eq.lhs.is_simple() {
                match self.try_simple(&mut subj, ei as usize, pos)? {
                    Some(task) => return Ok(task),
                    None => {
                        pos += 1;
                        continue;
                    }
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
                    return self.fire(subj, ei, rhs, env);
                };
                // A condition that needs no rewriting (`0 < m and m <= b`) is decided here,
                // without suspending the match.
                match self.quick(c, env, QUICK_DEPTH) {
                    Some(v) if Some(v) == self.true_t => {
                        return self.fire(subj, ei, rhs, env);
                    }
                    Some(v) if Some(v) == self.false_t => {
                        self.note_cond_false(ei);
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
                            kept: NO_ENV,
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

    /// Try equation `ei` (at position `pos` among its operator's), whose left-hand side is
    /// simple (no choice points), on the subject: match it straight into a new environment
    /// and apply it, or suspend it on its condition (`Frame::Cond` with the environment
    /// kept). `None` if it does not apply (no match, or a condition decided false at once).
    /// An open subject is built as a term first if the pattern needs it (as in `try_eqs`).
    fn try_simple(
        &mut self,
        subj: &mut Subj,
        ei: usize,
        pos: usize,
    ) -> Result<Option<Task>, RuntimeError> {
        let eq = &self.eqs[ei];
        let regs = &mut self.simple_regs;
        if regs.len() < eq.lhs.nregs() {
            regs.resize(eq.lhs.nregs(), NONE);
        }
        let start = if subj.is_open() {
            let b = subj.base as usize;
            let args = &self.vals[b..b + subj.n as usize];
            match eq.lhs.free_top() {
                Some((op, arity, out)) => {
                    if op != subj.op || arity != args.len() {
                        return Ok(None);
                    }
                    regs[out..out + arity].copy_from_slice(args);
                    1
                }
                None => {
                    // This left-hand side needs the subject as a term.
                    let t = self.store.mk_app(subj.op, args);
                    self.vals.truncate(b);
                    *subj = Subj::known(t, subj.op);
                    regs[0] = t;
                    0
                }
            }
        } else {
            regs[0] = subj.term;
            0
        };
        let env = self.envs.len();
        self.envs.resize(env + eq.width as usize, NONE);
        if !eq
            .lhs
            .match_simple(&self.store, regs, start, &mut self.envs[env..])
        {
            self.envs.truncate(env);
            return Ok(None);
        }
        if let Some(reason) = &eq.invalid {
            let reason = reason.clone();
            let term = self.subj_term(*subj);
            return Err(RuntimeError::Stuck {
                term,
                op: subj.op,
                reason,
            });
        }
        let (rhs, cond, env) = (eq.rhs, eq.cond, env as u32);
        if let Some(c) = cond {
            // A condition that needs no rewriting is decided here.
            match self.quick(c, env, QUICK_DEPTH) {
                Some(v) if Some(v) == self.true_t => {}
                Some(v) if Some(v) == self.false_t => {
                    self.note_cond_false(ei);
                    self.envs.truncate(env as usize);
                    return Ok(None);
                }
                _ => {
                    self.push(Frame::Cond {
                        subj: *subj,
                        pos: pos as u32,
                        kept: env,
                    })?;
                    return Ok(Some(Task::Build {
                        node: c,
                        env,
                        owner: false,
                    }));
                }
            }
        }
        self.fire(*subj, ei, rhs, env).map(Some)
    }

    /// Apply an equation whose match is in `env` (and whose condition, if any, held) to the
    /// subject: count the step, drop an open subject's values, go on with the right-hand
    /// side `rhs`, which owns `env`.
    #[inline]
    pub(super) fn fire(
        &mut self,
        subj: Subj,
        ei: usize,
        rhs: u32,
        env: u32,
    ) -> Result<Task, RuntimeError> {
        self.count_step_as(subj, Step::Eq(ei as u32))?;
        if subj.is_open() {
            self.vals.truncate(subj.base as usize);
        }
        if self.direct_wanted(rhs) {
            return self.direct_rhs(rhs, env).map(Task::Return);
        }
        Ok(Task::Build {
            node: rhs,
            env,
            owner: true,
        })
    }

    /// Evaluate `node` under `env` at once when that needs no rewriting: variables and
    /// ground terms already normal, and applications of strict built-ins (`b - m`,
    /// `0 < m and m <= b`) and plain free constructors (`(a (b - m))`) to such, at most
    /// `depth` deep. `None` when the general machinery is needed (including when the
    /// built-in would fail or the step budget run out: it reports the error).
    pub(super) fn quick(&mut self, node: u32, env: u32, depth: u32) -> Option<TermId> {
        // (`arith` says whether the node is `quickable` too: one look-up for both.)
        match self.arith[node as usize] {
            arith::NOT_QUICK => return None,
            arith::NO_ARITH => {}
            code => {
                if let Some(v) = self.run_arith(code as usize, env) {
                    return Some(v);
                }
            }
        }
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
                    // A variable child (most of them) read here, without a call.
                    *slot = match self.nodes[k as usize] {
                        Node::Var(v) => {
                            let x = self.envs[(env + v) as usize];
                            bit(&self.normal, x).then_some(x)?
                        }
                        _ => self.quick(k, env, depth - 1)?,
                    };
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
                        // Only the children not known to fit (as `build_ctor` checks).
                        let mask = self.node_checked[node as usize];
                        if mask != compile::UNCHECKED && mask != 0 {
                            let decl = self.store.op_args(op);
                            for (i, (&x, &d)) in a[..n].iter().zip(decl).enumerate() {
                                if mask & (1 << i) != 0 && !self.store.has_sort(x, d) {
                                    return None;
                                }
                            }
                        }
                        let t = self.store.intern_app(op, &a[..n]);
                        self.set_normal(t);
                        Some(t)
                    }
                }
            }
        }
    }

    /// Which nodes [`Engine::quick`] can evaluate (see `Engine::quickable`). Children are
    /// compiled before their parents, so one pass in order sees every child first.
    pub(super) fn quickable_nodes(&self) -> Vec<bool> {
        let mut out: Vec<bool> = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let q = match *node {
                // A shared node's slot may already hold its value; if not, `quick` asks
                // about its body.
                Node::Term(_) | Node::Var(_) | Node::Shared { .. } => true,
                Node::App { op, kids, n } => {
                    let rt = &self.ops[op.0 as usize];
                    // (Not the set built-ins: they have equations, and are asked as
                    // defined functions are, through the call cache.)
                    let op_ok = match rt.builtin {
                        Some(_) => !rt.lazy && !rt.defined && !rt.memo,
                        None => rt.plain && !rt.norm,
                    };
                    n <= 3
                        && op_ok
                        && self.kids[kids as usize..(kids + n) as usize]
                            .iter()
                            .all(|&k| out[k as usize])
                }
            };
            out.push(q);
        }
        out
    }

    /// No equation rewrites the subject: a constructor term (checked for sorts) or stuck.
    pub(super) fn no_equation(&mut self, subj: Subj) -> Result<Task, RuntimeError> {
        let op = subj.op;
        let rt = &self.ops[op.0 as usize];
        // (The set built-ins stand for equations, which say why they are stuck.)
        if let Some(b) = rt.builtin.filter(|b| !b.is_set()) {
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
                b if b.is_map() => format!(
                    "the built-in `{name}` needs values for its arguments (maps, keys, values), and a map where it takes one"
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
                if !self.store.has_sort(a, *d) {
                    return Err(RuntimeError::IllSorted { term: t, arg: i });
                }
            }
        }
        self.set_normal(t);
        Ok(Task::Return(t))
    }
}
