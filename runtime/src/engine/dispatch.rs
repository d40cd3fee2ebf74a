//! The equations of a function indexed by the operators at the top of its arguments.
//!
//! Guards (`compile::Guard`) let a call skip an equation cheaply, but a call still walks
//! every equation of its function: `add(i(A), i(B))`, the last of `add`'s seven equations
//! on bit lists, is reached after six failed guard tests. A [`Dispatch`] reads the heads of
//! the (at most two) arguments that most left-hand sides fix, once, and lists only the
//! equations that can apply to a subject with those heads, in their order. An equation
//! whose every guard is a head that the dispatch has already read is *settled*: its guards
//! need no test (on binary-add, testing them was a tenth of the time of a rewrite). The
//! others' guards are still checked, so the candidates are a superset of the equations
//! that match and the equation chosen is the same. This is the first level of the
//! discrimination a matching automaton does, for the common case of functions defined by
//! cases on constructors.

use super::compile::Guard;
use crate::term::{TermId, TermStore};
use smallvec::SmallVec;

/// The key of a term's head: its operator's number, or [`NO_HEAD`] for an integer literal
/// or a map (which have none).
const NO_HEAD: u32 = u32::MAX;

/// No second argument to dispatch on.
const NO_ARG: u32 = u32::MAX;

/// At most this many cells in a two-argument table; a function with more distinct heads
/// dispatches on one argument.
const MAX_CELLS: usize = 64;

/// Marks a candidate whose guards the dispatch has settled (see the module's comment).
const SETTLED: u32 = 1 << 31;

#[inline]
fn head_key(store: &TermStore, t: TermId) -> u32 {
    store.op(t).map_or(NO_HEAD, |o| o.0)
}

/// The rows (columns) of a dispatch: the heads some equation requires of one argument,
/// numbered in increasing order, and the row of any other head (or of a missing argument),
/// their number.
#[derive(Clone, Debug, Default)]
struct Rows {
    /// The heads, sorted.
    keys: Box<[u32]>,
    /// The row of head `lo + i` is `by_key[i]` (a head outside the range: the last row).
    /// Operators are numbered in declaration order, so the constructors a function is
    /// defined by cases on usually fall in a short range; a wide one is not tabulated
    /// and the heads are searched instead.
    lo: u32,
    by_key: Box<[u8]>,
    /// The row of a term without a head, when `by_key` is used.
    no_head: u8,
}

/// The widest range of heads tabulated by [`Rows`].
const MAX_SPAN: u32 = 256;

impl Rows {
    fn new(keys: Vec<u32>) -> Rows {
        let other = keys.len();
        // Integer literals and maps have no head (`NO_HEAD`, the largest key): their row
        // is kept aside, outside the range.
        let ops = &keys[..keys.len() - keys.ends_with(&[NO_HEAD]) as usize];
        let (lo, hi) = match (ops.first(), ops.last()) {
            (Some(&lo), Some(&hi)) if hi - lo < MAX_SPAN && keys.len() < u8::MAX as usize => {
                (lo, hi)
            }
            _ => {
                return Rows {
                    keys: keys.into_boxed_slice(),
                    lo: 0,
                    by_key: Box::new([]),
                    no_head: 0,
                }
            }
        };
        let mut by_key = vec![other as u8; (hi - lo + 1) as usize];
        for (row, &k) in ops.iter().enumerate() {
            by_key[(k - lo) as usize] = row as u8;
        }
        Rows {
            no_head: keys.iter().position(|&k| k == NO_HEAD).unwrap_or(other) as u8,
            keys: keys.into_boxed_slice(),
            lo,
            by_key: by_key.into_boxed_slice(),
        }
    }

    /// How many rows: one per key and one for the rest.
    fn len(&self) -> usize {
        self.keys.len() + 1
    }

    /// The row for a head: its key's, or the last for any other head or a missing argument
    /// (`head` gives `None`). `head` is only asked when there are keys.
    #[inline]
    fn of(&self, head: impl FnOnce() -> Option<u32>) -> usize {
        if self.keys.is_empty() {
            return 0;
        }
        let Some(k) = head() else {
            return self.keys.len();
        };
        if self.by_key.is_empty() {
            return self
                .keys
                .iter()
                .position(|&x| x == k)
                .unwrap_or(self.keys.len());
        }
        match self.by_key.get(k.wrapping_sub(self.lo) as usize) {
            Some(&row) => row as usize,
            None if k == NO_HEAD => self.no_head as usize,
            None => self.keys.len(),
        }
    }
}

/// The candidate equations of one function, by the heads of arguments `arg` and `arg2`.
#[derive(Clone, Debug, Default)]
pub(super) struct Dispatch {
    /// The argument whose head selects the row of `cells`.
    arg: u32,
    /// The argument whose head selects the column, or [`NO_ARG`].
    arg2: u32,
    /// The heads some equation requires of `arg` (rows `0..`; the last row, any other
    /// head or a missing argument).
    rows: Rows,
    /// The heads some equation requires of `arg2` (columns, likewise).
    cols: Rows,
    /// For each (row, column), row-major: the range of `order` holding its candidates.
    cells: Box<[(u32, u32)]>,
    /// Positions in the function's equation list, with [`SETTLED`] set on the settled
    /// ones: concatenated lists of candidates.
    order: Box<[u32]>,
}

/// What an equation requires of one argument's head: nothing, or the key of a head.
/// `exact` guards (a ground argument) are keyed by the ground term's head: the dispatch
/// narrows by it but does not settle it.
#[derive(Clone, Copy, PartialEq)]
struct Want {
    key: u32,
    settled: bool,
}

impl Dispatch {
    pub(super) fn new(guards: &[&[Guard]], store: &TermStore) -> Dispatch {
        Dispatch::new_keyed(guards, |t| head_key(store, t))
    }

    fn new_keyed(guards: &[&[Guard]], exact_key: impl Fn(TermId) -> u32) -> Dispatch {
        let want_of = |g: &Guard| -> (u32, Want) {
            match *g {
                Guard::Head { arg, op } => (
                    arg,
                    Want {
                        key: op.0,
                        settled: true,
                    },
                ),
                Guard::Exact { arg, term } => (
                    arg,
                    Want {
                        key: exact_key(term),
                        settled: false,
                    },
                ),
            }
        };
        // The arguments most equations constrain, most first (ties: the leftmost).
        let mut counts: SmallVec<[u32; 4]> = SmallVec::new();
        for gs in guards {
            for g in gs.iter() {
                let (arg, _) = want_of(g);
                if counts.len() <= arg as usize {
                    counts.resize(arg as usize + 1, 0);
                }
                counts[arg as usize] += 1;
            }
        }
        let mut args: Vec<u32> = (0..counts.len() as u32)
            .filter(|&a| counts[a as usize] >= 2)
            .collect();
        args.sort_by_key(|&a| (std::cmp::Reverse(counts[a as usize]), a));
        let wants = |arg: u32| -> Vec<Option<Want>> {
            guards
                .iter()
                .map(|gs| {
                    gs.iter()
                        .map(want_of)
                        .find(|&(a, _)| a == arg)
                        .map(|(_, w)| w)
                })
                .collect()
        };
        let keys_of = |ws: &[Option<Want>]| -> Vec<u32> {
            let mut keys: Vec<u32> = ws.iter().flatten().map(|w| w.key).collect();
            keys.sort_unstable();
            keys.dedup();
            keys
        };
        let Some(&arg) = args.first() else {
            // Nothing to dispatch on: every equation, each with its guards.
            return Dispatch {
                arg: 0,
                arg2: NO_ARG,
                rows: Rows::default(),
                cols: Rows::default(),
                cells: Box::new([(0, guards.len() as u32)]),
                order: (0..guards.len() as u32).collect(),
            };
        };
        let w1 = wants(arg);
        let k1 = keys_of(&w1);
        // A second argument only where some equations fix both (reading its head then
        // settles them; otherwise it costs a read for nothing), and the table stays small.
        let second = args.get(1).and_then(|&a2| {
            let w2 = wants(a2);
            let both = w1
                .iter()
                .zip(&w2)
                .filter(|(x, y)| x.is_some() && y.is_some());
            let k2 = keys_of(&w2);
            (both.count() >= 2 && (k1.len() + 1) * (k2.len() + 1) <= MAX_CELLS)
                .then_some((a2, w2, k2))
        });
        let (arg2, w2, k2) = second.unwrap_or((NO_ARG, vec![None; guards.len()], Vec::new()));
        // Does an equation's want admit the row (column) of key `k` (`None`: any other)?
        let admits = |w: Option<Want>, k: Option<u32>| match (w, k) {
            (None, _) => true,
            (Some(w), Some(k)) => w.key == k,
            (Some(_), None) => false,
        };
        let rows: Vec<Option<u32>> = k1.iter().copied().map(Some).chain([None]).collect();
        let cols: Vec<Option<u32>> = k2.iter().copied().map(Some).chain([None]).collect();
        let mut order = Vec::new();
        let mut cells = Vec::with_capacity(rows.len() * cols.len());
        for &r in &rows {
            for &c in &cols {
                let start = order.len() as u32;
                for (q, gs) in guards.iter().enumerate() {
                    if !admits(w1[q], r) || !admits(w2[q], c) {
                        continue;
                    }
                    // Settled: every guard is a head read by the dispatch.
                    let settled = gs.iter().all(|g| {
                        let (a, w) = want_of(g);
                        w.settled && (a == arg || a == arg2)
                    });
                    order.push(q as u32 | if settled { SETTLED } else { 0 });
                }
                cells.push((start, order.len() as u32));
            }
        }
        Dispatch {
            arg,
            arg2,
            rows: Rows::new(k1),
            cols: Rows::new(k2),
            cells: cells.into_boxed_slice(),
            order: order.into_boxed_slice(),
        }
    }

    /// The range of candidates (positions for [`Dispatch::at`]) for a subject with the
    /// arguments `args`.
    #[inline]
    pub(super) fn candidates(&self, args: &[TermId], store: &TermStore) -> (u32, u32) {
        self.candidates_by(|arg| args.get(arg as usize).map(|&a| head_key(store, a)))
    }

    /// The range of candidates for a subject whose argument `arg` has the head key
    /// `head(arg)` (`None`: no such argument).
    #[inline]
    fn candidates_by(&self, head: impl Fn(u32) -> Option<u32>) -> (u32, u32) {
        let row = self.rows.of(|| head(self.arg));
        if self.arg2 == NO_ARG {
            return self.cells[row];
        }
        let col = self.cols.of(|| head(self.arg2));
        self.cells[row * self.cols.len() + col]
    }

    /// Candidate `i`: its position in the function's equation list, and whether its guards
    /// are settled (need no test).
    #[inline]
    pub(super) fn at(&self, i: u32) -> (u32, bool) {
        let x = self.order[i as usize];
        (x & !SETTLED, x & SETTLED != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamelang_lang::program::OpId;

    /// Every subject shape: for each head of each argument (and one no equation asks
    /// for), the candidates are exactly the equations whose guards on the dispatched
    /// arguments admit those heads, in order; a settled candidate's guards all hold.
    fn check(eqs: &[Vec<Guard>], heads: &[u32], nargs: u32) {
        let refs: Vec<&[Guard]> = eqs.iter().map(|g| g.as_slice()).collect();
        let d = Dispatch::new_keyed(&refs, exact_key);
        let n = heads.len();
        for shape in 0..n.pow(nargs) {
            let subject: Vec<u32> = (0..nargs).map(|a| heads[shape / n.pow(a) % n]).collect();
            let key_of = |a: u32| subject[a as usize];
            let admits = |g: &Guard| match *g {
                Guard::Head { arg, op } => key_of(arg) == op.0,
                Guard::Exact { arg, term } => key_of(arg) == exact_key(term),
            };
            let dispatched = |g: &Guard| {
                let arg = match *g {
                    Guard::Head { arg, .. } | Guard::Exact { arg, .. } => arg,
                };
                arg == d.arg || arg == d.arg2
            };
            let want: Vec<u32> = (0..eqs.len() as u32)
                .filter(|&q| eqs[q as usize].iter().filter(|g| dispatched(g)).all(admits))
                .collect();
            let (s, t) = d.candidates_by(|a| Some(key_of(a)));
            let got: Vec<(u32, bool)> = (s..t).map(|p| d.at(p)).collect();
            let positions: Vec<u32> = got.iter().map(|x| x.0).collect();
            assert_eq!(positions, want, "subject heads {subject:?}");
            for (q, settled) in got {
                if settled {
                    assert!(eqs[q as usize].iter().all(admits), "equation {q} settled");
                }
            }
        }
    }

    /// The head key of ground term `t` in these tests: 1000 + t, except term 0, an integer
    /// literal (no head).
    fn exact_key(t: TermId) -> u32 {
        if t.0 == 0 {
            NO_HEAD
        } else {
            1000 + t.0
        }
    }

    #[test]
    fn heads_far_apart_and_literals_get_their_rows() {
        let h = |arg, op: u32| Guard::Head { arg, op: OpId(op) };
        let lit = |arg| Guard::Exact {
            arg,
            term: TermId(0),
        };
        // Heads 3, 5 and 40 (tabulated), then 3 and 5000 (too far apart: searched), each
        // with a literal argument among the keys.
        for far in [40, 5000] {
            let eqs: Vec<Vec<Guard>> = vec![
                vec![h(0, 5), lit(1)],
                vec![lit(0), h(1, 3)],
                vec![h(0, far), h(1, 5)],
                vec![h(0, 3), lit(1)],
                vec![lit(0)],
                vec![],
            ];
            check(&eqs, &[3, 4, 5, far, far + 1, NO_HEAD, 2], 2);
        }
    }

    #[test]
    fn candidates_are_the_admitting_equations_in_order() {
        let (e, o, i) = (OpId(1), OpId(2), OpId(3));
        let h = |arg, op| Guard::Head { arg, op };
        // `add` on bit lists, with one equation that constrains the second argument only.
        let eqs: Vec<Vec<Guard>> = vec![
            vec![h(0, e)],
            vec![h(0, o), h(1, e)],
            vec![h(0, i), h(1, e)],
            vec![h(0, o), h(1, o)],
            vec![h(1, i)],
            vec![h(0, i), h(1, i)],
        ];
        check(&eqs, &[1, 2, 3, 99], 2);
        let refs: Vec<&[Guard]> = eqs.iter().map(|g| g.as_slice()).collect();
        let d = Dispatch::new_keyed(&refs, |_| unreachable!("no ground arguments"));
        assert_eq!((d.arg, d.arg2), (0, 1));
    }

    #[test]
    fn ground_arguments_narrow_but_are_still_tested() {
        let (z, s) = (OpId(1), OpId(2));
        let h = |arg, op| Guard::Head { arg, op };
        let x = |arg, t| Guard::Exact {
            arg,
            term: TermId(t),
        };
        // Three arguments; ground terms 5 and 6 (keys 1005, 1006), a third argument that
        // only one equation constrains (not dispatched: its guard is never settled).
        let eqs: Vec<Vec<Guard>> = vec![
            vec![x(0, 5), h(1, z)],
            vec![x(0, 6), h(1, s), h(2, z)],
            vec![h(1, s)],
            vec![x(0, 5)],
            vec![],
        ];
        check(&eqs, &[1, 2, 1005, 1006, 77], 3);
    }
}
