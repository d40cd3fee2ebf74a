//! A move as a key that does not depend on the rest of the position: what changed between
//! a configuration and its successor, found by comparing the two terms.
//!
//! The solvers' history heuristic ([`crate::search`]) remembers which moves cut the search
//! off, to try them first elsewhere. A `.game` game has no move terms, only successor
//! configurations, and a successor's term id names a whole board, which is never met again
//! at another position. What the move *did* is met again: the cells it filled. So the key
//! is the difference of the two terms: equal arguments are skipped (terms are hash-consed,
//! so that costs one comparison), differing arguments of the same operator are compared
//! in turn, integers (bit masks) by the bits that changed, collections (sets, lists: `assoc`
//! or `comm` operators) by the elements added and removed, and anything else by the new
//! subterm. Each part is keyed by where it lies in the term (its argument path). For
//! colouring (`board(x, y)`, masks) the key is the cell coloured; for Domineering and Connect
//! (sets of cells) the cells taken; for Othello the disc placed with the discs it flipped.

use gamelang_runtime::term::{TermId, TermStore};
use rustc_hash::FxHasher;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};

/// The key of the move from `from` to `to`.
pub fn move_key(store: &TermStore, from: TermId, to: TermId) -> u64 {
    let mut h = FxHasher::default();
    diff(store, from, to, 1, &mut h);
    h.finish()
}

/// Hash what differs between `a` and `b`, at argument path `path`.
fn diff(store: &TermStore, a: TermId, b: TermId, path: u64, h: &mut FxHasher) {
    if a == b {
        return;
    }
    if let (Some(x), Some(y)) = (store.int(a), store.int(b)) {
        (path, 0u8, x ^ y).hash(h);
        return;
    }
    let (oa, ob) = (store.op(a), store.op(b));
    // A collection on either side (with its identity, or a lone element, on the other).
    let collection = [oa, ob]
        .into_iter()
        .flatten()
        .find(|&o| store.is_assoc(o) || store.is_comm(o));
    if let Some(op) = collection {
        let (xs, ys) = (store.elements(&a, op), store.elements(&b, op));
        added_removed(store, xs, ys, path, h);
        return;
    }
    match (store.app(a), store.app(b)) {
        (Some((oa, xs)), Some((ob, ys))) if oa == ob && xs.len() == ys.len() => {
            for (i, (&x, &y)) in xs.iter().zip(ys).enumerate() {
                diff(
                    store,
                    x,
                    y,
                    path.wrapping_mul(31).wrapping_add(i as u64 + 1),
                    h,
                );
            }
        }
        _ => (path, 1u8, b).hash(h),
    }
}

/// Hash the elements in `ys` but not `xs` (added) and in `xs` but not `ys` (removed). With
/// `comm`, both are sorted by the store's structural order, so one merge finds them;
/// otherwise (a list) the key is whatever is not matched position by position.
fn added_removed(store: &TermStore, xs: &[TermId], ys: &[TermId], path: u64, h: &mut FxHasher) {
    let (mut i, mut j) = (0, 0);
    while i < xs.len() || j < ys.len() {
        let order = match (xs.get(i), ys.get(j)) {
            (Some(&x), Some(&y)) => store.compare(x, y),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Equal => (i, j) = (i + 1, j + 1),
            Ordering::Less => {
                (path, 2u8, xs[i]).hash(h);
                i += 1;
            }
            Ordering::Greater => {
                (path, 3u8, ys[j]).hash(h);
                j += 1;
            }
        }
    }
}
