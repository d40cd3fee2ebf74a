//! Right-hand sides and conditions compiled to DAGs of [`Node`]s.
//!
//! A right-hand side is not a tree but a DAG, as in Maude: a subterm written more than once
//! (`node(f(build(N, M)), g(build(N, M)), build(N, M), build(N, M))`) is compiled to one
//! [`Node::Shared`] node that all its occurrences point to. A shared node owns a *slot* in
//! the equation's environment, after the variables: the first time the node is needed its
//! instance is normalised and the value stored in the slot; every later use reads the slot.
//! So the shared subterm is reduced once per application of the equation, however often it
//! is written (in the right-hand side and in the condition, which shares the right-hand
//! side's environment), and a program whose equations repeat a recursive call is linear
//! where a tree-walking interpreter is exponential.
//!
//! A slot is filled when the node is first *demanded*, never in advance, so sharing keeps
//! the laziness of `if_then_else_fi`, `and-then` and `or-else`: a subterm written in both
//! branches of a conditional is reduced only in the branch taken.

use super::Node;
use crate::matching::{build_ground, is_ground};
use crate::term::{TermId, TermStore, NO_SORT};
use gamelang_lang::program::SortId;
use gamelang_lang::program::{OpId, Pat};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// `RhsCompiler::checked` of a node that is not an application with as many children as
/// its operator declares arguments.
pub(super) const UNCHECKED: u32 = u32::MAX;

/// A necessary condition for a left-hand side to match, on one argument of the subject,
/// checked before the matcher is set up: of the seven equations of `add` on bit lists,
/// `add(i(A), o(B))` is tried only on subjects whose arguments are headed by `i` and `o`.
/// (The discrimination a matching automaton would do, for the common case of free
/// constructors and literals directly under a free operator.)
#[derive(Clone, Copy, Debug)]
pub(super) enum Guard {
    /// Argument `arg` is an application of `op`.
    Head { arg: u32, op: OpId },
    /// Argument `arg` is the term `term` (a ground pattern: a literal, a constant).
    Exact { arg: u32, term: TermId },
}

impl Guard {
    #[inline]
    pub(super) fn admits(self, args: &[TermId], store: &TermStore) -> bool {
        match self {
            Guard::Head { arg, op } => args
                .get(arg as usize)
                .is_some_and(|&a| store.op(a) == Some(op)),
            Guard::Exact { arg, term } => args.get(arg as usize) == Some(&term),
        }
    }
}

/// The guards of the left-hand side `lhs`: for each argument of a free top operator that
/// is a ground term, or an application of a free operator (a free constant included).
pub(super) fn guards(lhs: &Pat, store: &mut TermStore) -> SmallVec<[Guard; 2]> {
    let mut out = SmallVec::new();
    let Pat::App(top, args) = lhs else {
        return out;
    };
    if !store.is_free(*top) {
        return out;
    }
    for (i, a) in args.iter().enumerate() {
        let arg = i as u32;
        // A free constant is the only term with its head: reading its head tests it, and
        // a dispatch that has read the head settles the guard. Other ground arguments are
        // compared whole.
        let free_constant =
            matches!(a, Pat::App(op, kids) if kids.is_empty() && store.is_free(*op));
        match a {
            _ if is_ground(a) && !free_constant => {
                let term = build_ground(store, a);
                out.push(Guard::Exact { arg, term });
            }
            Pat::App(op, _) if store.is_free(*op) => out.push(Guard::Head { arg, op: *op }),
            _ => {}
        }
    }
    out
}

/// Compiles the right-hand side and condition of one equation into the engine's node
/// arrays. Slots of shared nodes are numbered from `first_slot` (the number of variables of
/// the left-hand side) on; [`RhsCompiler::width`] is the environment size the equation
/// needs.
pub(super) struct RhsCompiler<'a> {
    store: &'a mut TermStore,
    nodes: &'a mut Vec<Node>,
    kids: &'a mut Vec<u32>,
    /// Per node, parallel to `nodes`: the sort its value is known to be at most, or
    /// `NO_SORT` (see [`RhsCompiler::sorted`]).
    sorts: &'a mut Vec<SortId>,
    /// Per node: which of its children's values must be checked against the sorts its
    /// operator declares when a constructor application is built (bit `i` for child `i`;
    /// the others are known to fit), or [`UNCHECKED`].
    checked: &'a mut Vec<u32>,
    /// Per operator: a plain free constructor (no equations, not built in, not memo, no
    /// equational attributes), whose applications to normal forms are normal as built.
    ctors: &'a [bool],
    /// The sorts of the equation's variables.
    var_sorts: &'a [SortId],
    next_slot: u32,
}

impl<'a> RhsCompiler<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        store: &'a mut TermStore,
        nodes: &'a mut Vec<Node>,
        kids: &'a mut Vec<u32>,
        sorts: &'a mut Vec<SortId>,
        checked: &'a mut Vec<u32>,
        ctors: &'a [bool],
        var_sorts: &'a [SortId],
        first_slot: u32,
    ) -> RhsCompiler<'a> {
        RhsCompiler {
            store,
            nodes,
            kids,
            sorts,
            checked,
            ctors,
            var_sorts,
            next_slot: first_slot,
        }
    }

    /// Compile a right-hand side and its equation's condition and return their root
    /// nodes. Subterms written more than once in them are shared, the condition's with the
    /// right-hand side's too: the condition runs first, in the environment the right-hand
    /// side then reads (where the machine keeps it: `Frame::Cond` with `kept`, and the
    /// direct evaluator), so a term both test and use (`matched%k(T, …) if …
    /// matches%k(T, …)`, what a matching condition `P := T` is elaborated to) is reduced
    /// once. Where the environment is made anew, the slot is empty and the term is
    /// reduced again: the same value.
    ///
    /// `aliases` are the sub-patterns of the left-hand side bound to hidden variables:
    /// where `p` writes one of them again, it reads the variable (the subject's own
    /// subterm) instead of rebuilding and re-interning the term.
    pub(super) fn compile<'p>(
        &mut self,
        rhs: &'p Pat,
        cond: Option<&'p Pat>,
        aliases: &[(&'p Pat, u32)],
    ) -> (u32, Option<u32>) {
        let mut uses: FxHashMap<&Pat, u32> = FxHashMap::default();
        count_uses(rhs, &mut uses);
        if let Some(c) = cond {
            count_uses(c, &mut uses);
        }
        let mut done: FxHashMap<&Pat, u32> = FxHashMap::default();
        for &(q, var) in aliases {
            if uses.contains_key(q) {
                let n = self.push(Node::Var(var));
                done.insert(q, n);
            }
        }
        let r = self.node(rhs, &uses, &mut done);
        let c = cond.map(|c| self.node(c, &uses, &mut done));
        (r, c)
    }

    /// The number of environment entries (variables and slots) the equation needs.
    pub(super) fn width(&self) -> u32 {
        self.next_slot
    }

    fn node<'p>(
        &mut self,
        p: &'p Pat,
        uses: &FxHashMap<&'p Pat, u32>,
        done: &mut FxHashMap<&'p Pat, u32>,
    ) -> u32 {
        if let Some(&n) = done.get(p) {
            return n;
        }
        let body = if is_ground(p) {
            let t = build_ground(self.store, p);
            self.push(Node::Term(t))
        } else {
            match p {
                Pat::Var(v) => self.push(Node::Var(*v)),
                Pat::App(op, args) => {
                    let ids: Vec<u32> = args.iter().map(|a| self.node(a, uses, done)).collect();
                    let k = self.kids.len() as u32;
                    self.kids.extend(ids);
                    self.push(Node::App {
                        op: *op,
                        kids: k,
                        n: args.len() as u32,
                    })
                }
                Pat::Int(_) => unreachable!("integers are ground"),
            }
        };
        let shared = matches!(p, Pat::App(..)) && uses.get(p).is_some_and(|&n| n > 1);
        let id = if shared {
            let slot = self.next_slot;
            self.next_slot += 1;
            self.push(Node::Shared { slot, body })
        } else {
            body
        };
        done.insert(p, id);
        id
    }

    fn push(&mut self, n: Node) -> u32 {
        let (sort, checked) = self.sorted(n);
        self.nodes.push(n);
        self.sorts.push(sort);
        self.checked.push(checked);
        (self.nodes.len() - 1) as u32
    }

    /// The sort the value of `n` is known to be at most, and which of its children's values
    /// are not known to fit its operator's declaration (any value fits a declared sort that
    /// is the greatest of its kind: see `TermStore::is_kind_top`). Only what holds whatever
    /// the equations do:
    /// a variable's value was checked against its sort when it was bound, a ground term has
    /// its sort, and a plain free constructor's application has its result sort. A call of
    /// a defined function or a built-in may return any sort of its kind (`f(0) = -1` with
    /// `f : Nat -> Nat`), so it is not known.
    fn sorted(&self, n: Node) -> (SortId, u32) {
        match n {
            Node::Var(v) => (
                self.var_sorts.get(v as usize).copied().unwrap_or(NO_SORT),
                UNCHECKED,
            ),
            Node::Term(t) => (self.store.sort_of(t), UNCHECKED),
            Node::Shared { body, .. } => (self.sorts[body as usize], UNCHECKED),
            Node::App { op, kids, n } => {
                let decl = self.store.op_args(op);
                if decl.len() != n as usize || n > 31 {
                    return (NO_SORT, UNCHECKED);
                }
                let mut mask = 0;
                for (i, &d) in decl.iter().enumerate() {
                    let k = self.kids[kids as usize + i] as usize;
                    // A value of any sort of the kind fits the kind's greatest sort.
                    if !self.store.leq(self.sorts[k], d) && !self.store.is_kind_top(d) {
                        mask |= 1 << i;
                    }
                }
                let sort = if self.ctors[op.0 as usize] && mask == 0 {
                    self.store.op_result(op)
                } else {
                    NO_SORT
                };
                (sort, mask)
            }
        }
    }
}

/// The sub-patterns of a right-hand side and condition worth taking from the left-hand
/// side when it has them too: applications that are not ground (a ground one is prebuilt).
pub(super) fn rhs_subpatterns<'p>(rhs: &'p Pat, cond: Option<&'p Pat>) -> FxHashSet<&'p Pat> {
    fn walk<'p>(p: &'p Pat, out: &mut FxHashSet<&'p Pat>) {
        if let Pat::App(_, args) = p {
            if !is_ground(p) && out.insert(p) {
                for a in args {
                    walk(a, out);
                }
            }
        }
    }
    let mut out = FxHashSet::default();
    walk(rhs, &mut out);
    if let Some(c) = cond {
        walk(c, &mut out);
    }
    out
}

/// How many times each subterm occurs in the DAG of `p`: the occurrences inside a repeated
/// subterm are counted once, since that subterm will be built once.
fn count_uses<'p>(p: &'p Pat, uses: &mut FxHashMap<&'p Pat, u32>) {
    let n = uses.entry(p).or_insert(0);
    *n += 1;
    if *n == 1 {
        if let Pat::App(_, args) = p {
            for a in args {
                count_uses(a, uses);
            }
        }
    }
}
