//! What part of the state a question's answer can depend on.
//!
//! Exploring asks every state `final(s)`, `turn(s)`, `choices(s)`, `events(c, s)` and a
//! `move(e, c, s)` per event. Many games write some of them without looking at the state
//! (`choices(s) = throw .`, `events(x, s) = die .`), or at only part of it
//! (`turn(sl(a, b, c, d, p)) = p .`, Pig's `final(pig(a, b, k, p)) = false .`). Such an
//! answer is the same for every state that agrees on that part, so it is reduced once per
//! value of the part (and of the question's other arguments) and looked up after that.
//!
//! The part is read off the equations, before any reduction. At the state's position, each
//! equation of the question's operator has
//!
//! * a plain variable met nowhere else in the equation (not again on the left, not on the
//!   right, not in the condition): the equation does not look at the state at all, beyond
//!   the variable's sort check (done per state: [`StateFree::key`]); or
//! * a free constructor applied to sub-patterns: a sub-pattern that is such a variable,
//!   of a sort that admits every argument the constructor can have there (no sort check can
//!   fail), is not looked at; any other (a variable used elsewhere, a constant, a nested
//!   pattern) makes its argument *read*.
//!
//! Any other equation (a variable the right side uses, an integer, a defined operator at
//! the state's position) reads the whole state, and the question is not analysed. Matching
//! then never looks at the state beyond its constructor and its read arguments, and the
//! right-hand side and the condition see only those: which equation applies and what it
//! gives are the same for all states with the same constructor and read arguments. Two
//! cases are left to the caller: an answer whose top is the question's operator itself
//! (no equation applied: the state is among its arguments) is not shared, and errors are
//! never remembered.

use gamelang_lang::program::{OpId, Pat, Program, SortId};
use gamelang_runtime::term::{TermId, TermStore};

/// At most this many read arguments of a state's constructor: more and the answers are
/// not shared for states of that constructor (the key has room for four).
pub const MAX_READ: usize = 4;

/// Words of a [`StateFree::key`]: the question, two other arguments, the constructor and
/// [`MAX_READ`] read arguments.
pub type Key = [u32; 4 + MAX_READ];

/// A question `op(?0, …, ?n-1)` whose answer depends on part of argument `state` only (see
/// the module documentation).
#[derive(Clone, Debug)]
pub struct StateFree {
    pub op: OpId,
    /// The position of the state among the arguments.
    pub state: usize,
    /// The sorts of the plain variables at the state's position, one per distinct sort: a
    /// state of a sort at most each of them matches every such equation's variable.
    sorts: Vec<SortId>,
    /// Per constructor met at the state's position, the arguments the equations read
    /// (at most [`MAX_READ`]); `None` for a constructor whose equations read more.
    ctors: Vec<(OpId, Option<Vec<usize>>)>,
}

impl StateFree {
    /// The key of the question `q` asked of `args`, the state being `args[self.state]`: two
    /// questions with the same key have the same answer. `None` when the state is not of
    /// a shape the analysis covers (then the question must be reduced).
    pub fn key(&self, store: &TermStore, q: usize, args: &[TermId]) -> Option<Key> {
        let s = args[self.state];
        let mut key = [u32::MAX; 4 + MAX_READ];
        key[0] = q as u32;
        let mut others = args.iter().enumerate().filter(|&(i, _)| i != self.state);
        for slot in &mut key[1..3] {
            if let Some((_, a)) = others.next() {
                *slot = a.0;
            }
        }
        if others.next().is_some() {
            return None;
        }
        let sort = store.sort_of(s);
        if !self.sorts.iter().all(|&v| store.leq(sort, v)) {
            return None;
        }
        if self.ctors.is_empty() {
            // No equation looks at the state.
            return Some(key);
        }
        let op = store.op(s)?;
        let (_, read) = self.ctors.iter().find(|(c, _)| *c == op)?;
        let read = read.as_ref()?;
        let sub = store.args(s);
        key[3] = op.0;
        for (slot, &i) in key[4..].iter_mut().zip(read) {
            *slot = sub[i].0;
        }
        Some(key)
    }

    /// Does the answer depend on no part of the state at all?
    pub fn ignores_state(&self) -> bool {
        self.ctors.is_empty()
    }

    /// The analysis of the template `pat` (a question of the game) with the state at
    /// argument `state`: `Some` when its answer depends on part of the state only. Only
    /// templates that apply an operator to its variables in order (`events(?0, ?1)`) are
    /// analysed; the operator must be defined by equations, free (matching does not
    /// reorder its arguments) and not built in.
    pub fn analyse(program: &Program, pat: &Pat, state: usize) -> Option<StateFree> {
        let Pat::App(op, args) = pat else {
            return None;
        };
        let in_order = args
            .iter()
            .enumerate()
            .all(|(i, a)| *a == Pat::Var(i as u32));
        if !in_order || state >= args.len() || !free(program, *op) {
            return None;
        }
        let eqs = program.eqs_by_op.get(op).filter(|e| !e.is_empty())?;
        let mut sorts = Vec::new();
        let mut reads: Vec<(OpId, Vec<bool>)> = Vec::new();
        for &ei in eqs {
            let eq = &program.equations[ei];
            let Pat::App(_, largs) = &eq.lhs else {
                return None;
            };
            // A variable is unseen when it occurs once on the left and nowhere else.
            let unseen = |v: u32| {
                let on_left: usize = largs.iter().map(|a| occurrences(a, v)).sum();
                on_left == 1
                    && occurrences(&eq.rhs, v) == 0
                    && eq.cond.as_ref().is_none_or(|c| occurrences(c, v) == 0)
            };
            match largs.get(state)? {
                Pat::Var(v) if unseen(*v) => {
                    let sort = eq.vars.get(*v as usize)?.sort;
                    if !sorts.contains(&sort) {
                        sorts.push(sort);
                    }
                }
                Pat::App(c, sub) if is_constructor(program, *c) => {
                    let declared = &program.sig.op(*c).args;
                    let mask: Vec<bool> = sub
                        .iter()
                        .enumerate()
                        .map(|(i, p)| match p {
                            Pat::Var(w) if unseen(*w) => {
                                let sort = eq.vars[*w as usize].sort;
                                !declared.get(i).is_some_and(|&d| program.sig.leq(d, sort))
                            }
                            _ => true,
                        })
                        .collect();
                    match reads.iter_mut().find(|(c2, _)| c2 == c) {
                        Some((_, m)) => m.iter_mut().zip(&mask).for_each(|(a, b)| *a |= b),
                        None => reads.push((*c, mask)),
                    }
                }
                _ => return None,
            }
        }
        let ctors: Vec<(OpId, Option<Vec<usize>>)> = reads
            .into_iter()
            .map(|(c, mask)| {
                let read: Vec<usize> = (0..mask.len()).filter(|&i| mask[i]).collect();
                (c, (read.len() <= MAX_READ).then_some(read))
            })
            .collect();
        // Every constructor read in more places than a key holds (`move`, which rebuilds
        // the state): nothing to share.
        if !ctors.is_empty() && ctors.iter().all(|(_, r)| r.is_none()) {
            return None;
        }
        Some(StateFree {
            op: *op,
            state,
            sorts,
            ctors,
        })
    }
}

/// Is `op` free (no equational attribute: matching takes its arguments in order) and not
/// built in?
fn free(program: &Program, op: OpId) -> bool {
    let a = &program.sig.op(op).attrs;
    a.builtin.is_none() && !a.assoc && !a.comm && !a.idem && a.identity.is_none()
}

/// A constructor a state can be built of: free, not built in, and no equation rewrites it
/// (so a state headed by it is headed by it in normal form, and matching it against the
/// equation's pattern only compares operators and arguments).
fn is_constructor(program: &Program, op: OpId) -> bool {
    free(program, op) && !program.is_defined(op) && !program.sig.op(op).attrs.memo
}

/// How many times variable `v` occurs in `p`.
fn occurrences(p: &Pat, v: u32) -> usize {
    match p {
        Pat::Var(w) => usize::from(*w == v),
        Pat::Int(_) => 0,
        Pat::App(_, args) => args.iter().map(|a| occurrences(a, v)).sum(),
    }
}
