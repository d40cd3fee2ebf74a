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
        let mut dag = Dag::default();
        let r = dag.add(rhs);
        let c = cond.map(|c| dag.add(c));
        dag.count_uses(std::iter::once(r).chain(c));
        let mut done: Vec<u32> = vec![NO_NODE; dag.len()];
        for &(q, var) in aliases {
            if let Some(id) = dag.find(q).filter(|&id| dag.uses[id as usize] > 0) {
                done[id as usize] = self.push(Node::Var(var));
            }
        }
        let r = self.node(rhs, r, &dag, &mut done);
        let c = cond.zip(c).map(|(p, id)| self.node(p, id, &dag, &mut done));
        (r, c)
    }

    /// The number of environment entries (variables and slots) the equation needs.
    pub(super) fn width(&self) -> u32 {
        self.next_slot
    }

    /// The node of `p`, whose id in `dag` is `id` (its sub-patterns' ids are found again
    /// in the same order as [`Dag::add`] gave them).
    fn node(&mut self, p: &Pat, id: u32, dag: &Dag, done: &mut [u32]) -> u32 {
        if done[id as usize] != NO_NODE {
            return done[id as usize];
        }
        let body = if dag.ground[id as usize] {
            let t = build_ground(self.store, p);
            self.push(Node::Term(t))
        } else {
            match p {
                Pat::Var(v) => self.push(Node::Var(*v)),
                Pat::App(op, args) => {
                    let kids = dag.kids(id);
                    let ids: Vec<u32> = args
                        .iter()
                        .zip(kids)
                        .map(|(a, &k)| self.node(a, k, dag, done))
                        .collect();
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
        let shared = matches!(p, Pat::App(..)) && dag.uses[id as usize] > 1;
        let node = if shared {
            let slot = self.next_slot;
            self.next_slot += 1;
            self.push(Node::Shared { slot, body })
        } else {
            body
        };
        done[id as usize] = node;
        node
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
/// side when it has them too: applications that are not ground (a ground one is prebuilt)
/// and no larger than `most` nodes (the size of the left-hand side: a larger one cannot
/// be one of its sub-patterns). Sizes and groundness are found in one pass from the
/// leaves, and only the sub-patterns kept are hashed: hashing every sub-pattern whole was
/// quadratic in the depth of a right-hand side.
pub(super) fn rhs_subpatterns<'p>(
    rhs: &'p Pat,
    cond: Option<&'p Pat>,
    most: usize,
) -> FxHashSet<&'p Pat> {
    /// The size of `p` and whether it is ground.
    fn walk<'p>(p: &'p Pat, most: usize, out: &mut FxHashSet<&'p Pat>) -> (usize, bool) {
        match p {
            Pat::Var(_) => (1, false),
            Pat::Int(_) => (1, true),
            Pat::App(_, args) => {
                let (mut size, mut ground) = (1, true);
                for a in args {
                    let (n, g) = walk(a, most, out);
                    size += n;
                    ground &= g;
                }
                if !ground && size <= most {
                    out.insert(p);
                }
                (size, ground)
            }
        }
    }
    let mut out = FxHashSet::default();
    walk(rhs, most, &mut out);
    if let Some(c) = cond {
        walk(c, most, &mut out);
    }
    out
}

/// The number of nodes of `p`.
pub(super) fn size(p: &Pat) -> usize {
    match p {
        Pat::App(_, args) => 1 + args.iter().map(size).sum::<usize>(),
        _ => 1,
    }
}

/// No node yet (`RhsCompiler::node`'s table).
const NO_NODE: u32 = u32::MAX;

/// A sub-pattern's shape: its head and its children's ids.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Shape {
    Var(u32),
    Int(i64),
    App(OpId, SmallVec<[u32; 4]>),
}

/// The distinct sub-patterns of a right-hand side and its condition, each with an id
/// (children before parents), found by their shapes: equal sub-patterns get one id, in
/// time linear in the patterns' size (a table of whole sub-patterns hashed each one whole:
/// a right-hand side `N + 1 + 1 + … + 1` of 40,000 terms took 71 s to compile).
#[derive(Default)]
struct Dag {
    ids: FxHashMap<Shape, u32>,
    /// Per id: where its children's ids begin in `kid_ids` (and end at the next's).
    kid_start: Vec<u32>,
    kid_ids: Vec<u32>,
    ground: Vec<bool>,
    /// How many times each sub-pattern occurs in the DAG (see [`Dag::count_uses`]).
    uses: Vec<u32>,
}

impl Dag {
    fn len(&self) -> usize {
        self.ground.len()
    }

    /// The children's ids of `id`, in order.
    fn kids(&self, id: u32) -> &[u32] {
        &self.kid_ids[self.kid_range(id)]
    }

    /// Where the children's ids of `id` are in `kid_ids`.
    fn kid_range(&self, id: u32) -> std::ops::Range<usize> {
        let i = id as usize;
        let end = (self.kid_start.get(i + 1)).map_or(self.kid_ids.len(), |&e| e as usize);
        self.kid_start[i] as usize..end
    }

    /// The id of `p`, added with its sub-patterns where they are new.
    fn add(&mut self, p: &Pat) -> u32 {
        let shape = match p {
            Pat::Var(v) => Shape::Var(*v),
            Pat::Int(i) => Shape::Int(*i),
            Pat::App(op, args) => Shape::App(*op, args.iter().map(|a| self.add(a)).collect()),
        };
        if let Some(&id) = self.ids.get(&shape) {
            return id;
        }
        let id = self.ground.len() as u32;
        let ground = match &shape {
            Shape::Var(_) => false,
            Shape::Int(_) => true,
            Shape::App(_, kids) => kids.iter().all(|&k| self.ground[k as usize]),
        };
        self.kid_start.push(self.kid_ids.len() as u32);
        if let Shape::App(_, kids) = &shape {
            self.kid_ids.extend_from_slice(kids);
        }
        self.ground.push(ground);
        self.uses.push(0);
        self.ids.insert(shape, id);
        id
    }

    /// The id of `p` if it is one of the sub-patterns added.
    fn find(&self, p: &Pat) -> Option<u32> {
        let shape = match p {
            Pat::Var(v) => Shape::Var(*v),
            Pat::Int(i) => Shape::Int(*i),
            Pat::App(op, args) => Shape::App(
                *op,
                args.iter().map(|a| self.find(a)).collect::<Option<_>>()?,
            ),
        };
        self.ids.get(&shape).copied()
    }

    /// How many times each sub-pattern occurs in the DAG whose roots are `roots`: the
    /// occurrences inside a repeated sub-pattern are counted once, since it will be built
    /// once. (Parents have larger ids than their children, so one pass from the largest
    /// id counts every parent of a sub-pattern before the sub-pattern passes its own
    /// count on.)
    fn count_uses(&mut self, roots: impl Iterator<Item = u32>) {
        for r in roots {
            self.uses[r as usize] += 1;
        }
        for id in (0..self.len() as u32).rev() {
            if self.uses[id as usize] == 0 {
                continue;
            }
            for k in self.kid_range(id) {
                let kid = self.kid_ids[k];
                self.uses[kid as usize] += 1;
            }
        }
    }
}
