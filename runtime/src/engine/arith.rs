//! Integer and Boolean subexpressions evaluated unboxed.
//!
//! `quick` evaluates a condition such as `0 < m and m <= b` node by node: for each
//! built-in it reads its children's term ids, reads the integers back out of the store,
//! and turns the result into a term (a Boolean constant, or an integer interned in the
//! store) for its parent to read again. A subexpression made only of strict built-ins on
//! integers and truth values, over variables and literals, is compiled here when the
//! program is loaded to postfix code run on native `i64`s and `bool`s: each variable's
//! value is read once, the built-ins are computed in registers, and only the result
//! becomes a term.
//!
//! Nothing observable changes. The steps counted are `quick`'s (one per built-in
//! applied); integers are compared by value, never by id, so an intermediate integer
//! that is never interned changes no order. Anything unusual — a variable whose value is
//! not a normal integer or truth value, an overflow, a division by zero, the step budget
//! about to run out — gives up before any effect, and `quick` (and after it the machine)
//! does what it did before, errors included.

use super::builtin::{bool_builtin, int_builtin, Num};
use super::{bit, Engine, Node};
use crate::term::TermId;
use gamelang_lang::program::Builtin;

/// `Engine::arith` of a node `quick` cannot evaluate (one that is not `quickable`).
pub(super) const NOT_QUICK: u32 = u32::MAX;

/// `Engine::arith` of a node `quick` evaluates node by node (it has no unboxed code).
pub(super) const NO_ARITH: u32 = u32::MAX - 1;

/// Values an expression's code holds at once at most (deeper ones are left to `quick`).
const STACK: usize = 8;

/// Instructions an expression's code has at most.
const MAX_LEN: usize = 32;

/// One instruction of an expression's postfix code.
#[derive(Clone, Copy, Debug)]
pub(super) enum Arith {
    /// Push the value of variable `0` of the environment.
    Var(u32),
    /// Push a literal.
    Lit(Num),
    /// Apply a built-in on one integer (`-_`, `abs`, the one-argument bit operations) to
    /// the top value.
    Int1(Builtin),
    /// Apply a built-in on two integers (the arithmetic, the comparisons, the bit
    /// operations) to the top two values.
    Int2(Builtin),
    /// `not` of the top value.
    Not,
    /// Apply `and`, `or`, `xor` or `implies` to the top two values.
    Bool2(Builtin),
    /// `==` (`true`) or `=/=` (`false`) of the top two values.
    Equal(bool),
    /// The value on the stack is the expression's; `0` built-ins were applied.
    End(u32),
}

/// What an expression gives, as far as is known when it is compiled.
#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Int,
    Bool,
    /// A variable: an integer or a truth value when the code runs, or the code gives up.
    Either,
}

/// The arity and the operand type of a built-in the code computes (`None`: not one).
/// `==` and `=/=` compare any two values; they are typed `Either` here and need a typed
/// operand (see [`Engine::emit`]).
fn signature(b: Builtin) -> Option<(u32, Ty)> {
    use Builtin::*;
    Some(match b {
        Neg | Abs | Popcount | Lowbit | LowbitIndex | BitNot | Succ => (1, Ty::Int),
        Add | Sub | Mul | Quo | Rem | Min | Max | Lt | Le | Gt | Ge | Divides | Gcd | Lcm | Sd
        | Pow | BitAnd | BitOr | BitXor | Shl | Shr => (2, Ty::Int),
        Not => (1, Ty::Bool),
        And | Or | Xor | Implies => (2, Ty::Bool),
        Equal | NotEqual => (2, Ty::Either),
        _ => return None,
    })
}

/// The type of what the built-in `b` gives.
fn result(b: Builtin) -> Ty {
    use Builtin::*;
    match b {
        Lt | Le | Gt | Ge | Divides | Not | And | Or | Xor | Implies | Equal | NotEqual => Ty::Bool,
        _ => Ty::Int,
    }
}

impl Engine {
    /// Compile the unboxed code of every node that has one (see the module documentation):
    /// fills `arith` (where each node's code starts in `arith_code`, or [`NO_ARITH`], or
    /// [`NOT_QUICK`]: `quick` reads the one table). Needs `quickable` and the Boolean
    /// constants.
    pub(super) fn compile_arith(&mut self) {
        self.arith_code.clear();
        self.arith = (self.quickable.iter())
            .map(|&q| if q { NO_ARITH } else { NOT_QUICK })
            .collect();
        let mut code = Vec::new();
        for node in 0..self.nodes.len() as u32 {
            if !matches!(self.nodes[node as usize], Node::App { .. })
                || !self.quickable[node as usize]
            {
                continue;
            }
            code.clear();
            let mut ops = 0;
            // One built-in on variables and literals is what `quick` does best already:
            // the code pays from the second on, whose operand it need not intern.
            if self.emit(node, &mut code, &mut ops, 0, 0).is_some()
                && ops >= 2
                && code.len() < MAX_LEN
            {
                self.arith[node as usize] = self.arith_code.len() as u32;
                self.arith_code.extend_from_slice(&code);
                self.arith_code.push(Arith::End(ops));
            }
        }
    }

    /// Append the postfix code of `node` to `code`, with `height` values already on the
    /// stack below it and `depth` built-ins above it: its type, or `None` if it has no such
    /// code. Counts the built-ins in `ops`.
    fn emit(
        &self,
        node: u32,
        code: &mut Vec<Arith>,
        ops: &mut u32,
        height: usize,
        depth: usize,
    ) -> Option<Ty> {
        // (Each built-in above is an instruction to come: past MAX_LEN of them the code
        // cannot fit, and the descent stops there. Without this, every node of a chain
        // `N + 1 + … + 1` walked the whole chain down to its first leaf: quadratic.)
        if height >= STACK || code.len() + depth >= MAX_LEN {
            return None;
        }
        match self.nodes[node as usize] {
            Node::Var(v) => {
                code.push(Arith::Var(v));
                Some(Ty::Either)
            }
            Node::Term(t) => {
                let lit = match self.store.int(t) {
                    Some(v) => Num::Int(v),
                    None if Some(t) == self.true_t => Num::Bool(true),
                    None if Some(t) == self.false_t => Num::Bool(false),
                    None => return None,
                };
                code.push(Arith::Lit(lit));
                Some(match lit {
                    Num::Int(_) => Ty::Int,
                    Num::Bool(_) => Ty::Bool,
                })
            }
            Node::Shared { .. } => None,
            Node::App { op, kids, n } => {
                let rt = &self.ops[op.0 as usize];
                let b = rt.builtin.filter(|_| !rt.lazy && !rt.defined && !rt.memo)?;
                let (arity, want) = signature(b)?;
                if n != arity {
                    return None;
                }
                let mut typed = false;
                for i in 0..n {
                    let k = self.kids[(kids + i) as usize];
                    let ty = self.emit(k, code, ops, height + i as usize, depth + 1)?;
                    if want != Ty::Either && ty != Ty::Either && ty != want {
                        // Ill-typed (`true + 1`): `quick` and the machine say so.
                        return None;
                    }
                    typed |= ty != Ty::Either;
                }
                // `X == Y` on two variables may compare any terms: left to `quick`.
                if want == Ty::Either && !typed {
                    return None;
                }
                code.push(match (want, arity) {
                    (Ty::Int, 1) => Arith::Int1(b),
                    (Ty::Int, _) => Arith::Int2(b),
                    (Ty::Bool, 1) => Arith::Not,
                    (Ty::Bool, _) => Arith::Bool2(b),
                    (Ty::Either, _) => Arith::Equal(b == Builtin::Equal),
                });
                *ops += 1;
                Some(result(b))
            }
        }
    }

    /// Run the unboxed code starting at `pc` under the environment `env`: the value's term,
    /// with the steps of its built-ins counted; or `None`, with no effect at all, where the
    /// general path must decide.
    #[inline]
    pub(super) fn run_arith(&mut self, mut pc: usize, env: u32) -> Option<TermId> {
        // The top of the stack is kept in `top`, the values under it in `below` (indexed
        // modulo its length, which `emit` never exceeds: no bounds checks).
        let mut below = [Num::Int(0); STACK];
        let mut sp = 0;
        let mut top = Num::Int(0);
        loop {
            match self.arith_code[pc] {
                Arith::Var(v) => {
                    let x = self.envs[(env + v) as usize];
                    if !bit(&self.normal, x) {
                        return None;
                    }
                    below[sp % STACK] = top;
                    sp += 1;
                    top = match self.store.int(x) {
                        Some(i) => Num::Int(i),
                        None if Some(x) == self.true_t => Num::Bool(true),
                        None if Some(x) == self.false_t => Num::Bool(false),
                        None => return None,
                    };
                }
                Arith::Lit(v) => {
                    below[sp % STACK] = top;
                    sp += 1;
                    top = v;
                }
                Arith::Int1(b) => {
                    let Num::Int(x) = top else {
                        return None;
                    };
                    top = int_builtin(b, x, 0).ok()?;
                }
                Arith::Int2(b) => {
                    sp -= 1;
                    let (Num::Int(x), Num::Int(y)) = (below[sp % STACK], top) else {
                        return None;
                    };
                    top = int_builtin(b, x, y).ok()?;
                }
                Arith::Not => {
                    let Num::Bool(x) = top else {
                        return None;
                    };
                    top = Num::Bool(!x);
                }
                Arith::Bool2(b) => {
                    sp -= 1;
                    let (Num::Bool(x), Num::Bool(y)) = (below[sp % STACK], top) else {
                        return None;
                    };
                    top = Num::Bool(bool_builtin(b, x, y));
                }
                Arith::Equal(eq) => {
                    // Integers and truth values are hash-consed terms: equal terms are equal
                    // values, and an integer is never a truth value.
                    sp -= 1;
                    top = Num::Bool((below[sp % STACK] == top) == eq);
                }
                Arith::End(ops) => {
                    // `quick` stops before a built-in once the budget is spent.
                    if self.steps + u64::from(ops) > self.step_limit {
                        return None;
                    }
                    let t = self.num_term(top)?;
                    self.steps += u64::from(ops);
                    self.set_normal(t);
                    return Some(t);
                }
            }
            pc += 1;
        }
    }
}
