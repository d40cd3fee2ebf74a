//! Questions whose answer cannot depend on the state.
//!
//! Exploring asks every state `final(s)`, `turn(s)`, `choices(s)`, `events(c, s)` and a
//! `move(e, c, s)` per event; many games write some of them without looking at the state
//! (`choices(s) = throw .`, `events(x, s) = die .`, Pig's `events(roll, s) = …`). Such an
//! answer is the same for every state, so it is reduced once per value of the other
//! arguments and looked up after that (Snakes and Ladders: two of the ten reductions of a
//! state).
//!
//! That the answer does not depend on the state is read off the equations, before any
//! reduction: every equation of the question's operator has a plain variable at the
//! state's position, met nowhere else in the equation (not again on the left, not on the
//! right, not in the condition). Matching then never looks at the state beyond the
//! variable's sort check, and the right-hand side and the condition cannot see it, so
//! which equation applies and what it gives are the same for all states of a sort the
//! variables admit (checked per state: [`StateFree::admits`]). Two cases are left to the
//! caller: an answer whose top is the question's operator itself (no equation applied: the
//! state is among its arguments) is not shared, and errors are never remembered.

use gamelang_lang::program::{OpId, Pat, Program, SortId};
use gamelang_runtime::term::{TermId, TermStore};

/// A question `op(?0, …, ?n-1)` whose answer ignores argument `state` (see the module
/// documentation).
#[derive(Clone, Debug)]
pub struct StateFree {
    pub op: OpId,
    /// The position of the state among the arguments.
    pub state: usize,
    /// The sorts of the variables at the state's position, one per distinct sort: a state
    /// of a sort at most each of them matches every equation's variable.
    sorts: Vec<SortId>,
}

impl StateFree {
    /// Does the answer for `s` equal the answer for any other state `admits` accepts?
    pub fn admits(&self, store: &TermStore, s: TermId) -> bool {
        let sort = store.sort_of(s);
        self.sorts.iter().all(|&v| store.leq(sort, v))
    }

    /// The analysis of the template `pat` (a question of the game) with the state at
    /// argument `state`: `Some` when its answer cannot depend on the state. Only templates
    /// that apply an operator to its variables in order (`events(?0, ?1)`) are analysed;
    /// the operator must be defined by equations, free (matching does not reorder its
    /// arguments) and not built in.
    pub fn analyse(program: &Program, pat: &Pat, state: usize) -> Option<StateFree> {
        let Pat::App(op, args) = pat else {
            return None;
        };
        let in_order = args
            .iter()
            .enumerate()
            .all(|(i, a)| *a == Pat::Var(i as u32));
        if !in_order || state >= args.len() {
            return None;
        }
        let attrs = &program.sig.op(*op).attrs;
        if attrs.builtin.is_some() || attrs.assoc || attrs.comm || attrs.idem {
            return None;
        }
        if attrs.identity.is_some() {
            return None;
        }
        let eqs = program.eqs_by_op.get(op).filter(|e| !e.is_empty())?;
        let mut sorts = Vec::new();
        for &ei in eqs {
            let eq = &program.equations[ei];
            let Pat::App(_, largs) = &eq.lhs else {
                return None;
            };
            let Some(&Pat::Var(v)) = largs.get(state) else {
                return None;
            };
            let on_left: usize = largs.iter().map(|a| occurrences(a, v)).sum();
            let elsewhere =
                occurrences(&eq.rhs, v) + eq.cond.as_ref().map_or(0, |c| occurrences(c, v));
            if on_left != 1 || elsewhere != 0 {
                return None;
            }
            let sort = eq.vars.get(v as usize)?.sort;
            if !sorts.contains(&sort) {
                sorts.push(sort);
            }
        }
        Some(StateFree {
            op: *op,
            state,
            sorts,
        })
    }
}

/// How many times variable `v` occurs in `p`.
fn occurrences(p: &Pat, v: u32) -> usize {
    match p {
        Pat::Var(w) => usize::from(*w == v),
        Pat::Int(_) => 0,
        Pat::App(_, args) => args.iter().map(|a| occurrences(a, v)).sum(),
    }
}
