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
//! Only right-hand sides whose root is a strict application get code (a lazy root, such
//! as an `if_then_else_fi`, picks its branch as before), and inside them every lazy
//! application is a leaf: its branches stay unevaluated until it is reached.

use super::{Engine, Node};
use gamelang_lang::program::OpId;

/// One instruction of a right-hand side's code.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ins {
    /// Push the value of variable `0` (the most common child, read without a call).
    Var(u32),
    /// Push the value of node `0`, evaluated as a child (`Engine::d_kid`).
    Kid(u32),
    /// The application node `node` of `op` to the `n` values on top of the value stack: a
    /// constructor term built, or a call of `op`. Its value replaces the `n` values (or, for
    /// the last instruction, is the right-hand side's value or tail call). `ctor`: whether
    /// `op` is a plain constructor the node may build at once (`Engine::build_ctor`); a
    /// call of anything else skips the test.
    App {
        node: u32,
        op: OpId,
        n: u32,
        ctor: bool,
    },
}

impl Engine {
    /// Append the code of the right-hand side `rhs` to `self.code`: its range, or `None`
    /// if it has no code (its root is not a strict application).
    pub(super) fn compile_code(&mut self, rhs: u32) -> Option<(u32, u32)> {
        let Node::App { op, .. } = self.nodes[rhs as usize] else {
            return None;
        };
        if self.ops[op.0 as usize].lazy {
            return None;
        }
        let start = self.code.len() as u32;
        self.flatten(rhs, true);
        Some((start, self.code.len() as u32))
    }

    /// The post-order code of the application node `node`. `root`: the right-hand side's
    /// root, whose children are all flattened; below it, a child is flattened only if it
    /// is a strict application that `d_tail` would evaluate by recursion.
    fn flatten(&mut self, node: u32, root: bool) {
        let Node::App { op, kids, n } = self.nodes[node as usize] else {
            unreachable!("only application nodes are flattened")
        };
        debug_assert!(root || self.flattened(node));
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
        let ctor = self.node_checked[node as usize] != super::compile::UNCHECKED
            && self.ops[op.0 as usize].ctor_plain();
        self.code.push(Ins::App { node, op, n, ctor });
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
