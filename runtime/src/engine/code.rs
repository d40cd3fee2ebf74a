//! Right-hand sides of direct functions flattened to straight-line code.
//!
//! The direct evaluator walks a right-hand side's node DAG recursively: for
//! `cons(X, app(L, M))` it reads the `cons` node, its kids, then recurses into the `app`
//! node (two native calls, `d_node` and `d_tail`, and the same table reads again) before it
//! can call `app`. The *code* of a right-hand side is the same walk done once, when the
//! program is loaded: its application nodes in post-order, each with its operator and
//! arity at hand, and the leaves (variables, ground terms, `quick` subterms, shared and lazy
//! nodes) as kid instructions evaluated as `d_tail` evaluates a child. Run, it pushes the
//! same values in the same order and counts the same steps as the walk, so normal forms,
//! rewrite counts and errors do not change; only the walking is gone.
//!
//! A lazy built-in in tail position (`if_then_else_fi`, `and-then`, `or-else` at the root,
//! or in a branch of one at the root) is code too: its first argument, a decision, and
//! the code of each branch, of which only the one taken runs. A lazy application anywhere
//! else is a leaf, evaluated when it is reached.

use super::{Engine, Node};
use gamelang_lang::program::OpId;

/// One instruction of a right-hand side's code.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ins {
    /// Push the value of variable `0` (the most common child, read without a call).
    Var(u32),
    /// Push the value of node `0`, evaluated as a child (`Engine::d_kid`: `quick` first).
    Kid(u32),
    /// Push the value of node `0`, evaluated as `Engine::d_node` does (no `quick` first:
    /// the first argument of a lazy built-in).
    Node(u32),
    /// The application of `op` to the `n` values on top of the value stack: a
    /// constructor term built, or a call of `op`. Its value replaces the `n` values; with
    /// `tail`, it is the right-hand side's value, or its call in tail position. `ctor`:
    /// whether `op` is a plain constructor the node may build at once, and then `checks`,
    /// which of the values must be checked against the sorts `op` declares
    /// (`Engine::build_plain`); a call of anything else skips the test.
    App {
        op: OpId,
        n: u32,
        ctor: bool,
        tail: bool,
        checks: u32,
    },
    /// The call of `op` on the `n` values on top of the value stack whose value is the
    /// last argument of the constructor in tail position that the next instruction (an
    /// `App`) builds: `s(plus(M, N))`, `cons(X, app(L, M))`. The call is made as a tail
    /// call, the constructor left pending (see `Engine::d_apply`), so that a recursion
    /// building a constructor term level by level runs in a loop.
    Cons { op: OpId, n: u32 },
    /// The lazy built-in node `node` (`if_then_else_fi`, `and-then`, `or-else`) in tail
    /// position, its first argument's value on top of the value stack: decide, then go on
    /// at `then` (its second argument's code) or `other` (its third), or end with the first
    /// argument's value.
    Lazy {
        node: u32,
        op: OpId,
        then: u32,
        other: u32,
    },
    /// End with the value of node `0` (`Engine::d_node`): a tail position that is a
    /// variable, a ground term, a shared node or a malformed lazy application.
    Ret(u32),
}

impl Engine {
    /// Append the code of the right-hand side `rhs` to `self.code`: where it starts, or
    /// `None` if it has none (it is not an application).
    pub(super) fn compile_code(&mut self, rhs: u32) -> Option<u32> {
        if !matches!(self.nodes[rhs as usize], Node::App { .. }) {
            return None;
        }
        let start = self.code.len() as u32;
        self.tail(rhs);
        Some(start)
    }

    /// The code of `node` in tail position, as `d_tail` evaluates it: ends in a tail `App`,
    /// a `Lazy` whose branches are tail code, or a `Ret`.
    fn tail(&mut self, node: u32) {
        match self.nodes[node as usize] {
            Node::App { op, kids, n } if self.ops[op.0 as usize].lazy => {
                if n != super::machine::lazy_arity(self.ops[op.0 as usize].builtin) {
                    // The machine words the error (`d_node` hands it over).
                    self.code.push(Ins::Ret(node));
                    return;
                }
                self.value(self.kids[kids as usize]);
                let at = self.code.len();
                self.code.push(Ins::Ret(node)); // patched below
                let then = self.code.len() as u32;
                self.tail(self.kids[kids as usize + 1]);
                let other = self.code.len() as u32;
                if n == 3 {
                    self.tail(self.kids[kids as usize + 2]);
                }
                self.code[at] = Ins::Lazy {
                    node,
                    op,
                    then,
                    other,
                };
            }
            Node::App { .. } => self.flatten(node, true),
            _ => self.code.push(Ins::Ret(node)),
        }
    }

    /// The code pushing the value of `node` as `d_node` computes it.
    fn value(&mut self, node: u32) {
        match self.nodes[node as usize] {
            Node::App { op, .. } if !self.ops[op.0 as usize].lazy => self.flatten(node, false),
            Node::Var(v) => self.code.push(Ins::Var(v)),
            _ => self.code.push(Ins::Node(node)),
        }
    }

    /// The post-order code of the strict application node `node` (`tail`: in tail
    /// position). Its children are evaluated as `d_tail` evaluates children: flattened if
    /// they are strict applications that `quick` cannot evaluate, else as leaves.
    fn flatten(&mut self, node: u32, tail: bool) {
        let Node::App { op, kids, n } = self.nodes[node as usize] else {
            unreachable!("only application nodes are flattened")
        };
        for i in 0..n {
            let k = self.kids[(kids + i) as usize];
            if self.flattened(k) {
                self.flatten(k, false);
            } else if let Node::Var(v) = self.nodes[k as usize] {
                self.code.push(Ins::Var(v));
            } else {
                self.code.push(Ins::Kid(k));
            }
        }
        let checks = self.node_checked[node as usize];
        let ctor = checks != super::compile::UNCHECKED && self.ops[op.0 as usize].ctor_plain();
        if tail && ctor && n > 0 {
            // The last child's value is the last argument: if it is a call, it is made in
            // tail position modulo this constructor.
            if let Some(last) = self.code.last_mut() {
                if let Ins::App {
                    op,
                    n,
                    ctor: false,
                    tail: false,
                    ..
                } = *last
                {
                    *last = Ins::Cons { op, n };
                }
            }
        }
        self.code.push(Ins::App {
            op,
            n,
            ctor,
            tail,
            checks,
        });
    }

    /// Is the child node `k` evaluated by recursing into its children (a strict
    /// application that `quick` cannot evaluate), rather than as a leaf?
    fn flattened(&self, k: u32) -> bool {
        match self.nodes[k as usize] {
            Node::App { op, .. } => !self.ops[op.0 as usize].lazy && !self.quickable[k as usize],
            _ => false,
        }
    }
}
