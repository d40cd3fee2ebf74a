//! Membership, size and deletion on the standard library's finite sets (`SET{X}`,
//! stdlib/set.game), computed on the elements of a normal set.
//!
//! A normal set is one hash-consed application of its union `_,_` (`assoc comm idem`, with
//! the identity `empty`): its elements flattened, sorted and without duplicates, so that
//! `e in S` is a scan of the element ids, `| S |` their number, and `delete(e, S)` the list
//! without one of them. The equations these built-ins stand for (kept in set.game, and
//! tried when a built-in declines) match `(e, S)` instead: the AC matcher looks for the
//! element and builds the rest `S` (a copy), and `| S |` did so once per element, a
//! quadratic count. Quoridor asks `w in W` of its set of walls for every pawn step it tries.
//!
//! The built-ins give what the equations give, on the same arguments:
//!
//! * `e in S`: `e in (e, S) = true`, `e in S = false [owise]`, with `e : X$Elt` and
//!   `S : Set{X}`. Any other sorts: declined (the equations leave the term stuck).
//! * `| S |`: `| empty | = 0`, `| (e, S) | = 1 + | S |`: the count when every element is
//!   of sort `X$Elt`; otherwise declined (the equations would stop at the first element
//!   that is not, and the term stays stuck as before).
//! * `delete(e, S)`: `delete(e, (e, S)) = S`, `delete(e, S) = S [owise]`.
//! * `intersection(S, T)`: `intersection((e, S), (e, T)) = e, intersection(S, T)`,
//!   `intersection(S, T) = empty [owise]`: the elements of sort `X$Elt` in both (Quoridor
//!   asks whether the walls a new wall would conflict with meet the walls on the board;
//!   the match of `(e, S)` against `(e, T)` tried every pair of elements and built both
//!   rests for each).
//!
//! * `S \ T`, `S subset T`, `S psubset T` (Maude's): the elements of `S` not in `T`;
//!   whether all are in `T`; that and `S =/= T`. No equations stand behind these three
//!   (each instance of `SET` would parse them again: 10% of every program's start-up);
//!   where they decline, the term is stuck.
//!
//! (A single element `x` is the set `x, empty`: `x in x` is `true`, `| x |` is 1.)
//!
//! Each instance's operators are found by name in its module when the signature is set,
//! as map families are (`map.rs`): `_in_` gives the element sort `X$Elt` and `_,_` the
//! union of `Set{X}`.

use super::{StoreValue, TermId, TermStore};
use gamelang_lang::program::{Builtin, OpId, Signature, SortId};
use smallvec::SmallVec;
use std::cmp::Ordering;

/// What a set built-in needs to know about its instance.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SetOps {
    /// The union `_,_` of `Set{X}`.
    union: OpId,
    /// `Set{X}`.
    set: SortId,
    /// `X$Elt` (the first argument of the instance's `_in_`).
    elt: SortId,
}

impl TermStore {
    /// Find, for every operator declared as a set built-in, its instance's union and
    /// sorts. An instance without them (not the standard library's `SET{X}`) gets none,
    /// and its built-ins always decline.
    pub(super) fn discover_set_ops(&mut self, sig: &Signature) {
        let find = |module: &str, name: &str, arity: usize| {
            sig.ops
                .iter()
                .position(|o| o.module == module && o.name == name && o.args.len() == arity)
        };
        self.set_ops = sig
            .ops
            .iter()
            .map(|info| {
                let b = info.attrs.builtin.filter(|b| b.is_set())?;
                let set = *info.args.get(match b {
                    Builtin::SetSize
                    | Builtin::SetIntersection
                    | Builtin::SetDifference
                    | Builtin::SetSubset
                    | Builtin::SetProperSubset => 0,
                    _ => 1,
                })?;
                let union = find(&info.module, "_,_", 2)?;
                let u = &sig.ops[union];
                let is_union = u.attrs.assoc
                    && u.attrs.comm
                    && u.attrs.idem
                    && u.attrs.identity.is_some()
                    && u.result == set;
                let elt = *sig.ops[find(&info.module, "_in_", 2)?].args.first()?;
                is_union.then_some(SetOps {
                    union: OpId(union as u32),
                    set,
                    elt,
                })
            })
            .collect();
    }

    /// Evaluate the set built-in `b` of operator `op` on its `n` normal arguments (`a0`,
    /// `a1`): `None` where the equations it stands for are to decide (see the module
    /// documentation).
    pub(crate) fn set_builtin(
        &mut self,
        b: Builtin,
        op: OpId,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Option<StoreValue> {
        let s = (*self.set_ops.get(op.0 as usize)?)?;
        let is = |store: &TermStore, t: TermId, sort: SortId| store.has_sort(t, sort);
        match b {
            Builtin::SetSize => {
                if n != 1 || !is(self, a0, s.set) {
                    return None;
                }
                let elems = self.elements(&a0, s.union);
                elems
                    .iter()
                    .all(|&e| is(self, e, s.elt))
                    .then_some(StoreValue::Int(elems.len() as i64))
            }
            Builtin::SetIn | Builtin::SetDelete => {
                if n != 2 || !is(self, a0, s.elt) || !is(self, a1, s.set) {
                    return None;
                }
                let at = self.elements(&a1, s.union).iter().position(|&e| e == a0);
                Some(match (b, at) {
                    (Builtin::SetIn, at) => StoreValue::Bool(at.is_some()),
                    (_, Some(i)) => StoreValue::Term(self.without(a1, s.union, i)?),
                    (_, None) => StoreValue::Term(a1),
                })
            }
            Builtin::SetIntersection => {
                if n != 2 || !is(self, a0, s.set) || !is(self, a1, s.set) {
                    return None;
                }
                let (x, y) = (self.elements(&a0, s.union), self.elements(&a1, s.union));
                // Both lists are in the store's order (`compare`), so the common elements
                // (of sort `X$Elt`: the equations' `e`), taken in `x`'s order, are a normal
                // list of `union` as they are.
                let keep = |e: TermId| is(self, e, s.elt);
                let common: SmallVec<[TermId; 8]> = if x.len() * y.len() <= 64 {
                    x.iter()
                        .copied()
                        .filter(|&e| y.contains(&e) && keep(e))
                        .collect()
                } else {
                    let mut out = SmallVec::new();
                    let (mut i, mut j) = (0, 0);
                    while i < x.len() && j < y.len() {
                        match self.compare(x[i], y[j]) {
                            Ordering::Less => i += 1,
                            Ordering::Greater => j += 1,
                            Ordering::Equal => {
                                if keep(x[i]) {
                                    out.push(x[i]);
                                }
                                i += 1;
                                j += 1;
                            }
                        }
                    }
                    out
                };
                Some(StoreValue::Term(self.mk_flat(s.union, &common)?))
            }
            // Maude's equations: `$diff((E, S), S', A)` and `(E, S) subset S'` take
            // the elements of the first set one by one as `E : X$Elt`: one of another
            // sort leaves the term stuck, so the built-in declines.
            Builtin::SetDifference | Builtin::SetSubset | Builtin::SetProperSubset => {
                if n != 2 || !is(self, a0, s.set) || !is(self, a1, s.set) {
                    return None;
                }
                let (x, y) = (self.elements(&a0, s.union), self.elements(&a1, s.union));
                if !x.iter().all(|&e| is(self, e, s.elt)) {
                    return None;
                }
                if b == Builtin::SetDifference {
                    // `x` is in the store's order: what is left of it still is.
                    let rest: SmallVec<[TermId; 8]> =
                        x.iter().copied().filter(|e| !y.contains(e)).collect();
                    return Some(StoreValue::Term(self.mk_flat(s.union, &rest)?));
                }
                let subset = x.iter().all(|e| y.contains(e));
                Some(StoreValue::Bool(match b {
                    Builtin::SetSubset => subset,
                    _ => subset && a0 != a1,
                }))
            }
            _ => None,
        }
    }
}
