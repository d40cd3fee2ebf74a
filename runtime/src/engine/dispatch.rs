//! The equations of a function indexed by the operator at the top of one argument.
//!
//! Guards (`compile::Guard`) let a call skip an equation cheaply, but a call still walks
//! every equation of its function: `add(i(A), i(B))`, the last of `add`'s seven equations
//! on bit lists, is reached after six failed guard tests. A [`Dispatch`] reads the head of
//! one argument once (the argument most left-hand sides fix) and lists only the equations
//! that can apply to a subject with that head, in their order; the guards of those are
//! still checked, so the candidates are a superset of the equations that match and the
//! equation chosen is the same. This is the first level of the discrimination a matching
//! automaton does, for the common case of functions defined by cases on constructors.

use super::compile::Guard;
use crate::term::{TermId, TermStore};
use smallvec::SmallVec;

/// The key of a term's head: its operator's number, or [`NO_HEAD`] for an integer literal
/// or a map (which have none).
const NO_HEAD: u32 = u32::MAX;

#[inline]
fn head_key(store: &TermStore, t: TermId) -> u32 {
    store.op(t).map_or(NO_HEAD, |o| o.0)
}

/// The candidate equations of one function, by the head of argument `arg`.
#[derive(Clone, Debug, Default)]
pub(super) struct Dispatch {
    /// The argument whose head selects the candidates.
    arg: u32,
    /// For each head some equation requires of `arg`: the key and the range of `order`
    /// holding its candidates.
    heads: Box<[(u32, u32, u32)]>,
    /// The range of `order` holding the candidates for any other head (or a missing
    /// argument): the equations that do not constrain `arg`.
    other: (u32, u32),
    /// Positions in the function's equation list, concatenated lists of candidates.
    order: Box<[u32]>,
}

impl Dispatch {
    /// The dispatch of a function whose equations (in the order to try them) have the
    /// guards `guards[i]`. With no argument constrained by two equations, every equation
    /// is a candidate for every call.
    pub(super) fn new(guards: &[&[Guard]], store: &TermStore) -> Dispatch {
        Dispatch::new_keyed(guards, |t| head_key(store, t))
    }

    /// [`Dispatch::new`], with `exact_key` giving the head key of a ground argument.
    fn new_keyed(guards: &[&[Guard]], exact_key: impl Fn(TermId) -> u32) -> Dispatch {
        let key_of = |g: &Guard| -> (u32, u32) {
            match *g {
                Guard::Head { arg, op } => (arg, op.0),
                Guard::Exact { arg, term } => (arg, exact_key(term)),
            }
        };
        // The argument most equations constrain (the first such on a tie).
        let mut counts: SmallVec<[u32; 4]> = SmallVec::new();
        for gs in guards {
            for g in gs.iter() {
                let (arg, _) = key_of(g);
                if counts.len() <= arg as usize {
                    counts.resize(arg as usize + 1, 0);
                }
                counts[arg as usize] += 1;
            }
        }
        let all = |order: &mut Vec<u32>| {
            order.extend(0..guards.len() as u32);
        };
        let best = (0..counts.len()).max_by_key(|&a| (counts[a], std::cmp::Reverse(a)));
        let mut order = Vec::new();
        let Some(arg) = best.filter(|&a| counts[a] >= 2) else {
            all(&mut order);
            return Dispatch {
                arg: 0,
                heads: Box::new([]),
                other: (0, order.len() as u32),
                order: order.into_boxed_slice(),
            };
        };
        let arg = arg as u32;
        // The key each equation requires of `arg`, if any.
        let wants: Vec<Option<u32>> = guards
            .iter()
            .map(|gs| {
                gs.iter()
                    .map(key_of)
                    .find(|&(a, _)| a == arg)
                    .map(|(_, k)| k)
            })
            .collect();
        let mut keys: Vec<u32> = wants.iter().flatten().copied().collect();
        keys.sort_unstable();
        keys.dedup();
        let mut heads = Vec::with_capacity(keys.len());
        for &k in &keys {
            let start = order.len() as u32;
            order.extend(
                (0..guards.len() as u32).filter(|&i| wants[i as usize].is_none_or(|w| w == k)),
            );
            heads.push((k, start, order.len() as u32));
        }
        let start = order.len() as u32;
        order.extend((0..guards.len() as u32).filter(|&i| wants[i as usize].is_none()));
        Dispatch {
            arg,
            heads: heads.into_boxed_slice(),
            other: (start, order.len() as u32),
            order: order.into_boxed_slice(),
        }
    }

    /// The range of [`Dispatch::at`] positions to try on a call with the arguments `args`.
    #[inline]
    pub(super) fn candidates(&self, args: &[TermId], store: &TermStore) -> (u32, u32) {
        if self.heads.is_empty() {
            return self.other;
        }
        let Some(&a) = args.get(self.arg as usize) else {
            return self.other;
        };
        let k = head_key(store, a);
        self.heads
            .iter()
            .find(|h| h.0 == k)
            .map_or(self.other, |h| (h.1, h.2))
    }

    /// The equation (a position in the function's list) at position `i` of the
    /// candidates.
    #[inline]
    pub(super) fn at(&self, i: u32) -> u32 {
        self.order[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamelang_lang::program::OpId;

    /// Every candidate list is the equations whose guard on the argument admits the head,
    /// in order: checked against a brute-force filter over all heads.
    #[test]
    fn candidates_are_the_admitting_equations_in_order() {
        let (e, o, i) = (OpId(1), OpId(2), OpId(3));
        let h = |arg, op| Guard::Head { arg, op };
        // add(e, B), add(o(A), e), add(i(A), e), add(o(A), o(B)), add(A, i(B)) [no guard
        // on arg 0], add(i(A), i(B))
        let eqs: Vec<Vec<Guard>> = vec![
            vec![h(0, e)],
            vec![h(0, o), h(1, e)],
            vec![h(0, i), h(1, e)],
            vec![h(0, o), h(1, o)],
            vec![h(1, i)],
            vec![h(0, i), h(1, i)],
        ];
        let refs: Vec<&[Guard]> = eqs.iter().map(|g| g.as_slice()).collect();
        let d = Dispatch::new_keyed(&refs, |_| unreachable!("no ground arguments"));
        assert_eq!(d.arg, 0);
        for head in [e.0, o.0, i.0, 99] {
            let want: Vec<u32> = (0..eqs.len() as u32)
                .filter(|&q| {
                    eqs[q as usize].iter().all(|g| match *g {
                        Guard::Head { arg: 0, op } => op.0 == head,
                        _ => true,
                    })
                })
                .collect();
            let (s, t) = d
                .heads
                .iter()
                .find(|x| x.0 == head)
                .map_or(d.other, |x| (x.1, x.2));
            let got: Vec<u32> = (s..t).map(|p| d.at(p)).collect();
            assert_eq!(got, want, "head {head}");
        }
    }
}
