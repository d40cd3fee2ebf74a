//! Collections of the young terms only (`Engine::collect_due`): every term alive after the
//! last collection is kept without being looked at, the young garbage is freed, and what
//! the test holds stays intact and canonical (one id for one value) however the terms were
//! made — short and long lists, lists in chunks, a list in chunks turned in place into a
//! segment view, pairs found through their first parents and the table of small terms.

mod common;
use common::*;
use gamelang_runtime::{Engine, TermId};

/// Numbers past the small integers a collection always keeps, so that only the terms the
/// test holds keep them alive.
const BIG: i64 = 1 << 20;

fn spec() -> Spec {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    s.op("pr", &["Nat", "Nat"], "Nat", "ctor");
    // drop((c, S), c) = S: the rest of a match of any element.
    s.op("drop", &["Set", "Nat"], "Set", "");
    s.eq("c:Nat S:Set", "[drop [_,_ c S] c]", "S");
    // tail((c, S)) = S: the first element off.
    s.op("tail", &["Set"], "Set", "");
    s.eq("c:Nat S:Set", "[tail [_,_ c S]]", "S");
    s
}

/// A value the test holds, and what it must be.
#[derive(Clone)]
enum Model {
    /// A set of `BIG + x` for each `x`, sorted.
    Set(Vec<i64>),
    /// `pr(BIG + a, BIG + b)`.
    Pair(i64, i64),
}

struct World<'a> {
    s: &'a Spec,
    e: Engine,
}

impl<'a> World<'a> {
    fn new(s: &'a Spec) -> World<'a> {
        World { s, e: s.engine() }
    }

    fn int(&mut self, x: i64) -> TermId {
        self.e.mk_int(BIG + x)
    }

    /// `xs` (sorted) as a set built from scratch, one element at a time from the largest.
    fn build(&mut self, xs: &[i64]) -> TermId {
        let mut t = self.e.mk_app(self.s.id("empty"), &[]);
        for &x in xs.iter().rev() {
            let xt = self.int(x);
            t = self.e.mk_app(self.s.id("_,_"), &[xt, t]);
        }
        t
    }

    fn make(&mut self, m: &Model) -> TermId {
        match m {
            Model::Set(xs) => self.build(xs),
            Model::Pair(a, b) => {
                let (a, b) = (self.int(*a), self.int(*b));
                self.e.mk_app(self.s.id("pr"), &[a, b])
            }
        }
    }

    /// `t` is what `m` says, and the same term as `m` made again from scratch.
    fn check(&mut self, t: TermId, m: &Model, at: &str) {
        match m {
            Model::Set(xs) => {
                let got: Vec<i64> = self
                    .e
                    .elements(t, self.s.id("_,_"))
                    .into_iter()
                    .map(|a| self.e.show(a).parse::<i64>().unwrap() - BIG)
                    .collect();
                assert_eq!(&got, xs, "{at}");
            }
            Model::Pair(a, b) => {
                assert_eq!(
                    self.e.show(t),
                    format!("pr({}, {})", BIG + a, BIG + b),
                    "{at}"
                );
            }
        }
        assert_eq!(self.make(m), t, "{at}: made again, another id");
    }

    fn reduce(&mut self, op: &str, args: &[TermId]) -> TermId {
        let call = self.e.mk_app(self.s.id(op), args);
        self.e.reduce(call).unwrap()
    }
}

/// Terms made before a collection and unreachable since are kept by the collections of the
/// young terms that follow, and freed by a full one; young garbage is freed by either.
#[test]
fn a_young_collection_keeps_the_old_terms_and_frees_the_young_garbage() {
    let s = spec();
    let mut w = World::new(&s);
    let old: Vec<i64> = (0..400).map(|i| 3 * i).collect();
    let t = w.build(&old);
    w.e.collect_garbage(&[t]);
    let with_old = w.e.store().len();
    // `t` is old now and no longer held: young collections keep it.
    let young: Vec<i64> = (0..400).map(|i| 3 * i + 1).collect();
    w.build(&young);
    w.e.collect_due(&[]);
    assert_eq!(
        w.e.store().len(),
        with_old,
        "the young set freed, the old kept"
    );
    w.check(
        t,
        &Model::Set(old.clone()),
        "the old set after a young collection",
    );
    // A full collection frees it.
    w.e.collect_garbage(&[]);
    assert!(
        w.e.store().len() + old.len() <= with_old,
        "{} terms left of {with_old}",
        w.e.store().len()
    );
    // An old term's first parent is young and dies: the old term must not lead to it
    // again (its id is free, and soon another term's).
    let (a, b) = (w.int(1), w.int(2));
    w.e.collect_garbage(&[a, b]);
    let pair = Model::Pair(1, 2);
    w.make(&pair);
    w.e.collect_due(&[a, b]);
    let p = w.make(&pair);
    for x in 0..3000 {
        w.make(&Model::Pair(x + 10, x));
    }
    w.check(p, &pair, "a pair made again after its first making died");
}

/// Random work on sets (short, segment views, lists in chunks) and pairs, with young and
/// full collections in between: whatever the test still holds is checked after each.
#[test]
fn held_terms_survive_young_and_full_collections_intact() {
    let s = spec();
    let mut w = World::new(&s);
    let mut held: Vec<(TermId, Model)> = Vec::new();
    let mut r: u64 = 7;
    let mut rand = |m: usize| {
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (r >> 33) as usize % m
    };
    let (mut young, mut full) = (0, 0);
    for step in 0..3000 {
        match rand(7) {
            // A new set, of 3 to 700 elements.
            0 => {
                let n = [3, 12, 40, 300, 700][rand(5)];
                let start = rand(50) as i64;
                let xs: Vec<i64> = (0..n as i64).map(|i| start + 2 * i).collect();
                let t = w.build(&xs);
                held.push((t, Model::Set(xs)));
            }
            // A held set without one of its elements (its middle makes a list in
            // chunks past 256 elements), or without its first (a view, or a window).
            1 | 2 if !held.is_empty() => {
                let (t, m) = held[rand(held.len())].clone();
                if let Model::Set(mut xs) = m {
                    if xs.len() > 1 {
                        let t = if rand(2) == 0 {
                            xs.remove(0);
                            w.reduce("tail", &[t])
                        } else {
                            let x = xs.remove(rand(xs.len()));
                            let xt = w.int(x);
                            w.reduce("drop", &[t, xt])
                        };
                        held.push((t, Model::Set(xs)));
                    }
                }
            }
            // A held set with an element added.
            3 if !held.is_empty() => {
                let (t, m) = held[rand(held.len())].clone();
                if let Model::Set(mut xs) = m {
                    let x = rand(1500) as i64;
                    let at = xs.partition_point(|&y| y < x);
                    if xs.get(at) != Some(&x) {
                        xs.insert(at, x);
                    }
                    let xt = w.int(x);
                    let t = w.e.mk_app(s.id("_,_"), &[t, xt]);
                    held.push((t, Model::Set(xs)));
                }
            }
            // Pairs: through their first parents, then the table of small terms.
            4 => {
                let m = Model::Pair(rand(30) as i64, rand(30) as i64);
                let t = w.make(&m);
                held.push((t, m));
            }
            // Let go of some.
            5 if held.len() > 8 => {
                for _ in 0..rand(held.len() / 2) {
                    held.swap_remove(rand(held.len()));
                }
            }
            _ => {
                let roots: Vec<TermId> = held.iter().map(|(t, _)| *t).collect();
                if rand(4) == 0 {
                    w.e.collect_garbage(&roots);
                    full += 1;
                } else {
                    w.e.collect_due(&roots);
                    young += 1;
                }
                for (t, m) in held.clone() {
                    w.check(t, &m, &format!("step {step}"));
                }
            }
        }
    }
    assert!(
        young > 100 && full > 30,
        "{young} young and {full} full collections asked for"
    );
    // Of the collections left to the engine, many were of the young terms only.
    let ran_young = w.e.collections() - w.e.full_collections();
    assert!(ran_young > 50, "{ran_young} young collections of {young}");
}

/// A list in chunks peeled at its front often enough becomes a segment view in place
/// (`tree_to_long`), and the list it becomes may be an old term found again: an old term
/// using a new segment. A young collection must keep that segment though no young term
/// uses it.
#[test]
fn an_old_list_in_chunks_turned_into_a_view_keeps_its_segment() {
    let s = spec();
    let mut w = World::new(&s);
    // Even numbers; an odd one taken out of the middle of a long list makes a list in
    // chunks whose elements no other term has.
    let all: Vec<i64> = (0..600).map(|i| 2 * i).collect();
    let in_chunks = |w: &mut World, xs: &[i64]| {
        let mut with_odd = xs.to_vec();
        with_odd.push(301);
        with_odd.sort_unstable();
        let t = w.build(&with_odd);
        let odd = w.int(301);
        w.reduce("drop", &[t, odd])
    };
    // `y`: the list without its first 16 elements, in chunks, old after the collection.
    let y = in_chunks(&mut w, &all[16..]);
    let rest = Model::Set(all[16..].to_vec());
    w.check(y, &rest, "y");
    w.e.collect_garbage(&[y]);
    // The whole list in chunks, peeled 16 times at its front: the last peel finds `y` and
    // turns it into a view of a new segment.
    let mut t = in_chunks(&mut w, &all);
    for _ in 0..16 {
        t = w.reduce("tail", &[t]);
    }
    assert_eq!(t, y, "the peels end at the old list");
    // Only `y` holds the new segment; a young collection, then new segments made (which
    // would reuse a freed one), then `y` read.
    w.e.collect_due(&[y]);
    for k in 0..20 {
        let xs: Vec<i64> = (0..50).map(|i| 5000 + 50 * k + i).collect();
        w.build(&xs);
    }
    w.check(y, &rest, "y after a young collection");
}
