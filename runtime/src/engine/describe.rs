//! Run-time errors in words, naming the terms involved in concrete syntax.

use super::*;

impl Engine {
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
            RuntimeError::Loop { term, .. } => format!(
                "the reduction reached `{}` again while still computing it, so it would go round forever",
                show(*term)
            ),
            RuntimeError::Overflow { term } => format!("integer overflow in `{}`", show(*term)),
            RuntimeError::DivisionByZero { term } => format!("division by zero in `{}`", show(*term)),
            RuntimeError::OutOfRange { term, reason } => format!("{reason} in `{}`", show(*term)),
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
