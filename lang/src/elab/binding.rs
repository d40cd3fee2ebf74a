//! Matching conditions, Maude's `P := T` (`ceq digits(N) = 1 + digits(Q) if N >= 10 /\
//! < Q, R > := divmod(N, 10)`): `T` is reduced, matched against the pattern `P`, and the
//! variables of `P` are bound for the rest of the condition and the right-hand side; where
//! `P` does not match, the equation does not apply.
//!
//! The engine knows only Boolean conditions, so an equation with a matching condition is
//! elaborated into equations over two auxiliary operators, one pair per matching
//! condition, taking the value of `T` and the variables bound so far `x̄` (those of the
//! left-hand side):
//!
//! ```text
//! L = go(T, x̄)          if C1 /\ ok(T, x̄)      (the equation itself, owise if it was)
//! ok(P, x̄) = true       if C2                   (C2: the rest of the condition)
//! ok(Y, x̄) = false      [owise]
//! go(P, x̄) = R          if C2
//! ```
//!
//! A matching condition in `C2` is elaborated the same way in the equations of `ok` and
//! `go`. `T` is written twice, but a term reduced once keeps its normal form, so it is
//! reduced once; `C2` is evaluated twice (in `ok` and in `go`). A variable of `x̄` written
//! again in `P` makes the pattern non-linear, as in Maude: it must match the value bound.
//! An `assoc`/`comm` pattern is matched as any left-hand side is: where the rest of the
//! condition fails for one match, the next is tried, as Maude does.

use super::Session;
use crate::ast::Token;
use crate::diag::Diag;
use crate::program::{Equation, OpAttrs, OpId, OpInfo, Pat, SortId, VarInfo};
use crate::span::Span;

/// One part of a condition, elaborated.
#[derive(Clone, Debug)]
pub(super) enum CondPart {
    /// A Bool term (`t = u` is already `t == u`).
    Test(Pat),
    /// `pattern := subject`, the subject of sort `sort`.
    Match {
        pattern: Pat,
        subject: Pat,
        sort: SortId,
    },
}

/// The parts of a condition `C1 /\ C2 /\ …` (split at `/\` outside parentheses).
pub(super) fn condition_parts(toks: &[Token]) -> Result<Vec<&[Token]>, Diag> {
    let mut parts: Vec<&[Token]> = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "/\\" if depth == 0 => {
                parts.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    if parts.iter().any(|p| p.is_empty()) {
        let at = toks.first().map(|t| t.span).expect("non-empty condition");
        return Err(Diag::at(at, "empty part in a condition", "around here"));
    }
    Ok(parts)
}

/// Where the `:=` of a matching condition is (outside parentheses), if `part` is one.
pub(super) fn binding_at(part: &[Token]) -> Option<usize> {
    let mut depth = 0;
    part.iter().position(|t| {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        depth == 0 && t.text == ":="
    })
}

/// The variables of `p`, in order of first occurrence.
fn vars_of(p: &Pat, out: &mut Vec<u32>) {
    match p {
        Pat::Var(v) => {
            if !out.contains(v) {
                out.push(*v);
            }
        }
        Pat::App(_, args) => args.iter().for_each(|a| vars_of(a, out)),
        Pat::Int(_) => {}
    }
}

/// What an equation with matching conditions is made of, once its terms are read.
pub(super) struct Parts {
    pub lhs: Pat,
    /// The sort of the left-hand side: the result of `go`.
    pub sort: SortId,
    pub cond: Vec<CondPart>,
    pub rhs: Pat,
    pub owise: bool,
    pub vars: Vec<VarInfo>,
    pub span: Span,
    pub module: String,
}

impl Session {
    /// The equations an equation with matching conditions is elaborated into (see the
    /// module documentation), declaring the auxiliary operators.
    pub(super) fn bind_matches(&mut self, e: Parts) -> Vec<Equation> {
        let sig = &self.program.sig;
        let (Some(true_op), Some(false_op), Some(bool_sort)) =
            (sig.true_op, sig.false_op, sig.bool_sort)
        else {
            unreachable!("the prelude declares Bool")
        };
        let and_then = self.and_then_op.expect("the prelude declares and-then");
        let chain = |parts: Vec<CondPart>| {
            parts
                .into_iter()
                .map(|p| match p {
                    CondPart::Test(t) => t,
                    CondPart::Match { .. } => unreachable!("only tests before the first match"),
                })
                .reduce(|a, b| Pat::App(and_then, vec![a, b]))
        };
        let Some(k) = e
            .cond
            .iter()
            .position(|p| matches!(p, CondPart::Match { .. }))
        else {
            return vec![Equation {
                lhs: e.lhs,
                rhs: e.rhs,
                cond: chain(e.cond),
                owise: e.owise,
                vars: e.vars,
                span: e.span,
                module: e.module,
            }];
        };
        let mut before = e.cond;
        let after = before.split_off(k + 1);
        let Some(CondPart::Match {
            pattern,
            subject,
            sort,
        }) = before.pop()
        else {
            unreachable!("the first match")
        };
        // The variables bound so far: the left-hand side's (the parts before are tests).
        let mut bound = Vec::new();
        vars_of(&e.lhs, &mut bound);
        let args: Vec<SortId> = std::iter::once(sort)
            .chain(bound.iter().map(|&v| e.vars[v as usize].sort))
            .collect();
        let mut aux = |what: &str, result: SortId| -> OpId {
            let name = format!("{what}%{}", self.program.sig.ops.len());
            let form = super::declare::op_form(&name, args.len()).expect("a prefix name");
            self.program.sig.add_op(OpInfo {
                name,
                form,
                args: args.clone(),
                result,
                attrs: OpAttrs::default(),
                span: Some(e.span),
                module: e.module.clone(),
                overloads: Vec::new(),
            })
        };
        let ok = aux("matches", bool_sort);
        let go = aux("matched", e.sort);
        let call = |op: OpId, first: Pat| {
            let xs = bound.iter().map(|&v| Pat::Var(v));
            Pat::App(op, std::iter::once(first).chain(xs).collect())
        };
        let truth = |op: OpId| Pat::App(op, Vec::new());
        let mut out = Vec::new();
        before.push(CondPart::Test(call(ok, subject.clone())));
        out.push(Equation {
            lhs: e.lhs,
            rhs: call(go, subject),
            cond: chain(before),
            owise: e.owise,
            vars: e.vars.clone(),
            span: e.span,
            module: e.module.clone(),
        });
        let mut vars = e.vars;
        let unmatched = Pat::Var(vars.len() as u32);
        vars.push(VarInfo {
            name: "%subject".into(),
            sort,
        });
        out.push(Equation {
            lhs: call(ok, unmatched),
            rhs: truth(false_op),
            cond: None,
            owise: true,
            vars: vars.clone(),
            span: e.span,
            module: e.module.clone(),
        });
        for (op, sort, rhs) in [(ok, bool_sort, truth(true_op)), (go, e.sort, e.rhs)] {
            out.extend(self.bind_matches(Parts {
                lhs: call(op, pattern.clone()),
                sort,
                cond: after.clone(),
                rhs,
                owise: false,
                vars: vars.clone(),
                span: e.span,
                module: e.module.clone(),
            }));
        }
        out
    }
}
