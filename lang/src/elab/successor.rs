//! Maude's successor `s_` on the built-in naturals, in left-hand sides.
//!
//! In a right-hand side `s N` is a built-in, `N + 1`. In a left-hand side Maude reads
//! `fact(s N)` as "a positive number, and N one less": its naturals are towers of `s_`.
//! gamelang's are machine integers, which no pattern `s N` matches, so such a pattern is
//! rewritten when the equation is read: `s^k N` (k applications of `s_` to a variable N
//! of sort `Nat`) becomes a fresh variable M of sort `NzNat`, the condition `M >= k` is
//! put before the equation's own when k > 1 (`M >= k + 1` when N has sort `NzNat`), and
//! N is replaced by `M - k` in the right-hand side and the condition:
//!
//! ```text
//! eq fib(s s N) = fib(s N) + fib(N) .   is read as
//! ceq fib(M) = fib(s (M - 2)) + fib(M - 2) if M >= 2 .   (M : NzNat)
//! ```
//!
//! `s^k 0` (or any literal) is the literal k. Anything else under `s_` in a left-hand side
//! (`s (N + 1)`, `s f(X)`, a variable of another sort, a variable written twice) is an
//! error saying what to write instead.

use crate::diag::Diag;
use crate::program::{Equation, OpId, Pat, Signature, VarInfo};

/// The operators the rewriting needs, from the prelude's `INT` (and `BOOL`).
#[derive(Clone, Copy, Debug)]
pub(super) struct SuccessorOps {
    pub succ: OpId,
    pub sub: OpId,
    pub ge: OpId,
    pub and_then: OpId,
}

/// A variable `var` (N) under `k` successors, replaced by the variable `fresh` (M).
struct Replaced {
    var: u32,
    fresh: u32,
    k: i64,
}

/// Rewrite the successor patterns of `eq`'s left-hand side (see the module
/// documentation); `eq` is unchanged if it has none.
pub(super) fn read_successors(
    eq: &mut Equation,
    ops: SuccessorOps,
    sig: &Signature,
) -> Result<(), Diag> {
    let Pat::App(top, args) = &eq.lhs else {
        return Ok(());
    };
    if !args.iter().any(|a| mentions(a, ops.succ)) {
        return Ok(());
    }
    if *top == ops.succ {
        return Err(Diag::at(
            eq.span,
            "an equation cannot define the built-in successor `s_`",
            "this equation",
        ));
    }
    let mut lhs = eq.lhs.clone();
    let mut replaced = Vec::new();
    let mut tests = Vec::new();
    if let Pat::App(_, args) = &mut lhs {
        for a in args {
            rewrite(a, eq, ops, sig, &mut replaced, &mut tests)?;
        }
    }
    eq.lhs = lhs;
    for r in &replaced {
        let less = Pat::App(ops.sub, vec![Pat::Var(r.fresh), Pat::Int(r.k)]);
        eq.rhs = substitute(&eq.rhs, r.var, &less);
        eq.cond = eq.cond.as_ref().map(|c| substitute(c, r.var, &less));
    }
    // The bounds first, then the equation's own condition (which may use `M - k`).
    let cond = tests.into_iter().chain(eq.cond.take());
    eq.cond = cond.reduce(|a, b| Pat::App(ops.and_then, vec![a, b]));
    Ok(())
}

/// Rewrite the successor patterns in the left-hand-side subpattern `p`.
fn rewrite(
    p: &mut Pat,
    eq: &mut Equation,
    ops: SuccessorOps,
    sig: &Signature,
    replaced: &mut Vec<Replaced>,
    tests: &mut Vec<Pat>,
) -> Result<(), Diag> {
    let Pat::App(op, args) = p else {
        return Ok(());
    };
    if *op != ops.succ {
        for a in args {
            rewrite(a, eq, ops, sig, replaced, tests)?;
        }
        return Ok(());
    }
    // `s^k base`.
    let mut k = 0i64;
    let mut base: &Pat = p;
    while let Pat::App(o, a) = base {
        if *o != ops.succ || a.len() != 1 {
            break;
        }
        k += 1;
        base = &a[0];
    }
    let span = eq.span;
    let unsupported = |message: String| {
        Diag::at(span, message, "in this equation")
        .note("gamelang's numbers are machine integers: `s N` in a left-hand side matches a positive number, N one less, for a variable N of sort `Nat` or `NzNat` written once; write a variable and a condition (`ceq f(M) = … if M > 1`) for anything else")
    };
    let new = match base {
        Pat::Int(v) => Pat::Int(
            v.checked_add(k)
                .ok_or_else(|| unsupported("this `s_` pattern is beyond the integers".into()))?,
        ),
        Pat::Var(n) => {
            let n = *n;
            let info = &eq.vars[n as usize];
            let least = if Some(info.sort) == sig.nat_sort {
                k
            } else if Some(info.sort) == sig.nz_nat_sort {
                k + 1
            } else {
                return Err(unsupported(format!(
                    "`s {0}` in a left-hand side needs `{0}` of sort `Nat` or `NzNat`, not `{1}`",
                    info.name,
                    sig.sort(info.sort).name
                )));
            };
            if occurrences(&eq.lhs, n) != 1 {
                return Err(unsupported(format!(
                    "`s {0}` in a left-hand side needs `{0}` written once, but it is written again",
                    info.name
                )));
            }
            let fresh = eq.vars.len() as u32;
            let name = format!("{}{}", "s ".repeat(k as usize), info.name);
            eq.vars.push(VarInfo {
                name,
                sort: sig.nz_nat_sort.expect("the prelude declares NzNat"),
            });
            if least > 1 {
                tests.push(Pat::App(ops.ge, vec![Pat::Var(fresh), Pat::Int(least)]));
            }
            replaced.push(Replaced { var: n, fresh, k });
            Pat::Var(fresh)
        }
        _ => {
            return Err(unsupported(
                "`s_` in a left-hand side must stand over a variable or a number".into(),
            ))
        }
    };
    *p = new;
    Ok(())
}

/// Does `p` contain an application of `op`?
fn mentions(p: &Pat, op: OpId) -> bool {
    match p {
        Pat::App(o, args) => *o == op || args.iter().any(|a| mentions(a, op)),
        _ => false,
    }
}

/// How many times the variable `v` occurs in `p`.
fn occurrences(p: &Pat, v: u32) -> usize {
    match p {
        Pat::Var(w) => usize::from(*w == v),
        Pat::App(_, args) => args.iter().map(|a| occurrences(a, v)).sum(),
        Pat::Int(_) => 0,
    }
}

/// `p` with the variable `v` replaced by `by`.
fn substitute(p: &Pat, v: u32, by: &Pat) -> Pat {
    match p {
        Pat::Var(w) if *w == v => by.clone(),
        Pat::App(o, args) => Pat::App(*o, args.iter().map(|a| substitute(a, v, by)).collect()),
        other => other.clone(),
    }
}
