//! Hash-consing and normalisation modulo attributes.

mod common;
use common::*;
use gamelang_runtime::{TermData, TermStore};

fn set_spec() -> Spec {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    s.op("_;_", &["MSet", "MSet"], "MSet", "ctor assoc comm prec:121");
    s.subsort("Nat", "MSet");
    s.op("nil", &[], "List", "ctor");
    s.subsort("Nat", "List");
    s.op("__", &["List", "List"], "List", "ctor assoc id:nil");
    s.op("pair", &["Nat", "Nat"], "Nat", "ctor comm");
    s.op("a", &[], "Nat", "ctor");
    s.op("b", &[], "Nat", "ctor");
    s.op("f", &["Nat"], "Nat", "ctor");
    s
}

#[test]
fn hash_consing_shares_ids() {
    let s = set_spec();
    let mut e = s.engine();
    let t1 = term(&s, &mut e, "[f [f a]]");
    let t2 = term(&s, &mut e, "[f [f a]]");
    let t3 = term(&s, &mut e, "[f [f b]]");
    assert_eq!(t1, t2);
    assert_ne!(t1, t3);
    assert_eq!(e.mk_int(-7), e.mk_int(-7));
    assert_ne!(e.mk_int(7), e.mk_int(-7));
    let n = e.store().len();
    for _ in 0..10 {
        term(&s, &mut e, "[f [f a]]");
    }
    assert_eq!(e.store().len(), n);
}

#[test]
fn many_terms_survive_table_growth() {
    let s = set_spec();
    let mut e = s.engine();
    let f = s.id("f");
    let ids: Vec<_> = (0..100_000)
        .map(|i| {
            let n = e.mk_int(i);
            e.mk_app(f, &[n])
        })
        .collect();
    for (i, id) in ids.iter().enumerate() {
        let n = e.mk_int(i as i64);
        assert_eq!(e.mk_app(f, &[n]), *id);
        assert_eq!(e.store().args(*id), &[n]);
    }
}

#[test]
fn acu_normalisation() {
    let s = set_spec();
    let mut e = s.engine();
    let a = term(&s, &mut e, "[_,_ 1 [_,_ 2 3]]");
    let b = term(&s, &mut e, "[_,_ [_,_ 3 2] 1]");
    let c = term(&s, &mut e, "[_,_ 2 [_,_ empty [_,_ 1 [_,_ 3 3]]]]");
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(e.store().args(a).len(), 3);
    assert_eq!(e.show(a), "1, 2, 3");
    // identity removal and singleton collapse
    let one = e.mk_int(1);
    assert_eq!(term(&s, &mut e, "[_,_ 1 empty]"), one);
    assert_eq!(term(&s, &mut e, "[_,_ 1 1]"), one);
    let empty = term(&s, &mut e, "empty");
    assert_eq!(term(&s, &mut e, "[_,_ empty empty]"), empty);
    let set = s.id("_,_");
    assert_eq!(e.mk_app(set, &[]), empty);
    assert_eq!(e.mk_app(set, &[one]), one);
    // ints before applications, applications by op then args
    let t = term(&s, &mut e, "[_,_ [f b] a [f a] 5 -2 b]");
    assert_eq!(e.show(t), "-2, 5, a, b, f(a), f(b)");
    assert_eq!(e.elements(t, set).len(), 6);
    assert_eq!(e.elements(one, set), vec![one]);
    assert!(e.elements(empty, set).is_empty());
}

#[test]
fn ac_without_idem_keeps_duplicates() {
    let s = set_spec();
    let mut e = s.engine();
    let t = term(&s, &mut e, "[_;_ 2 [_;_ 1 2]]");
    assert_eq!(e.show(t), "1 ; 2 ; 2");
}

#[test]
fn order_is_structural_not_by_creation() {
    let s = set_spec();
    let mut e1 = s.engine();
    let mut e2 = s.engine();
    // create the elements in opposite orders
    term(&s, &mut e1, "[f b]");
    term(&s, &mut e1, "[f a]");
    term(&s, &mut e2, "[f a]");
    term(&s, &mut e2, "[f b]");
    let t1 = term(&s, &mut e1, "[_,_ [f b] [f a] [pair 2 1]]");
    let t2 = term(&s, &mut e2, "[_,_ [f a] [pair 1 2] [f b]]");
    assert_eq!(e1.show(t1), e2.show(t2));
}

#[test]
fn comm_and_assoc_only() {
    let s = set_spec();
    let mut e = s.engine();
    assert_eq!(
        term(&s, &mut e, "[pair 2 1]"),
        term(&s, &mut e, "[pair 1 2]")
    );
    let l1 = term(&s, &mut e, "[__ 1 [__ nil [__ 2 3]]]");
    let l2 = term(&s, &mut e, "[__ [__ 1 2] 3]");
    assert_eq!(l1, l2);
    assert_eq!(e.show(l1), "1 2 3");
    let l3 = term(&s, &mut e, "[__ 3 [__ 2 1]]");
    assert_ne!(l1, l3);
    assert_eq!(term(&s, &mut e, "[__ nil 4]"), e.mk_int(4));
}

#[test]
fn store_data_and_sorts() {
    let s = set_spec();
    let sig = &s.program().sig;
    let mut st = TermStore::new(sig);
    let m = st.mk_int(-4);
    let p = st.mk_int(4);
    assert_eq!(st.data(m), &TermData::Int(-4));
    assert_eq!(st.sort_of(m), s.sorts["Int"]);
    assert_eq!(st.sort_of(p), s.sorts["Nat"]);
    assert!(st.leq(st.sort_of(p), st.sort_of(m)));
    assert!(!st.leq(st.sort_of(m), st.sort_of(p)));
    let set = st.mk_app(s.id("_,_"), &[p, m]);
    assert_eq!(st.sort_of(set), s.sorts["Set"]);
    assert_eq!(st.op(set), Some(s.id("_,_")));
    assert_eq!(st.args(set), &[m, p]);
    assert_eq!(st.int(m), Some(-4));
}

/// A tiny deterministic generator (the test must not depend on a crate's RNG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A term described structurally, independently of the store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Shape {
    Leaf(i64),
    F(Box<Shape>),
    G(Box<Shape>),
    H(Box<Shape>, Box<Shape>),
}

/// Hash-consing stays exact when applications are found through their anchor's first
/// parents instead of the table, and across collections that free first parents while
/// other parents of the same anchor live on: equal shapes always get equal ids, different
/// shapes different ids.
#[test]
fn hash_consing_is_exact_across_collections() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "ctor");
    s.op("g", &["Nat"], "Nat", "ctor");
    s.op("h", &["Nat", "Nat"], "Nat", "ctor");
    let (f, g, h) = (s.id("f"), s.id("g"), s.id("h"));
    let mut e = s.engine();
    let mut rng = Lcg(7);
    let mut pool: Vec<Shape> = vec![Shape::Leaf(0), Shape::Leaf(1)];
    fn build(
        e: &mut gamelang_runtime::Engine,
        ops: (
            gamelang_lang::program::OpId,
            gamelang_lang::program::OpId,
            gamelang_lang::program::OpId,
        ),
        sh: &Shape,
    ) -> gamelang_runtime::TermId {
        match sh {
            Shape::Leaf(v) => e.mk_int(*v),
            Shape::F(a) => {
                let a = build(e, ops, a);
                e.mk_app(ops.0, &[a])
            }
            Shape::G(a) => {
                let a = build(e, ops, a);
                e.mk_app(ops.1, &[a])
            }
            Shape::H(a, b) => {
                let (a, b) = (build(e, ops, a), build(e, ops, b));
                e.mk_app(ops.2, &[a, b])
            }
        }
    }
    for round in 0..40 {
        // Grow the pool with new shapes over old ones (sharing their subterms).
        for _ in 0..300 {
            let a = pool[rng.next(pool.len() as u64) as usize].clone();
            let b = pool[rng.next(pool.len() as u64) as usize].clone();
            let sh = match rng.next(4) {
                0 => Shape::F(Box::new(a)),
                1 => Shape::G(Box::new(a)),
                2 => Shape::H(Box::new(a), Box::new(b)),
                _ => Shape::Leaf(rng.next(100_000) as i64),
            };
            pool.push(sh);
        }
        // Build every shape (in a shuffled order) and compare ids with the structure.
        let mut ids: std::collections::HashMap<Shape, gamelang_runtime::TermId> =
            Default::default();
        let mut by_id: std::collections::HashMap<gamelang_runtime::TermId, Shape> =
            Default::default();
        let mut order: Vec<usize> = (0..pool.len()).collect();
        for k in (1..order.len()).rev() {
            order.swap(k, rng.next(k as u64 + 1) as usize);
        }
        for k in order {
            let sh = pool[k].clone();
            let id = build(&mut e, (f, g, h), &sh);
            if let Some(prev) = ids.get(&sh) {
                assert_eq!(*prev, id, "round {round}: {sh:?} got two ids");
            }
            if let Some(other) = by_id.get(&id) {
                assert_eq!(*other, sh, "round {round}: two shapes share id {id:?}");
            }
            ids.insert(sh.clone(), id);
            by_id.insert(id, sh);
        }
        // Keep a random third of the pool alive; collect the rest.
        pool.retain(|_| rng.next(3) == 0);
        pool.push(Shape::Leaf(0));
        let roots: Vec<_> = pool.iter().map(|sh| ids[sh]).collect();
        e.collect_garbage(&roots);
        for (sh, id) in pool.iter().zip(&roots) {
            assert_eq!(build(&mut e, (f, g, h), sh), *id, "a root moved");
        }
    }
}

/// A collection leaves the data of dead terms in their slots (the sweep only marks them
/// free; `alloc` drops the stale data when it reuses a slot): the store's size is exact,
/// freed ids are reused lowest first without growing the store, and a dead term is never
/// found again by hash-consing — rebuilding it gives a fresh term with the right data,
/// even when its stale copy is still in a slot.
#[test]
fn freed_slots_are_reused_lowest_first_and_never_found_stale() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "ctor");
    s.op("h", &["Nat", "Nat", "Nat"], "Nat", "ctor");
    let (f, h) = (s.id("f"), s.id("h"));
    let mut e = s.engine();
    let zero = e.mk_int(0);
    // A chain f(f(...f(0))) of 1,000 and some three-argument terms over it.
    let mut chain = vec![zero];
    for _ in 0..1000 {
        let t = e.mk_app(f, &[*chain.last().unwrap()]);
        chain.push(t);
    }
    let hs: Vec<_> = (0..100)
        .map(|i| e.mk_app(h, &[chain[i], chain[i + 1], chain[i + 2]]))
        .collect();
    let cap = e.store().capacity();
    let live_before = e.store().len();
    // Keep the first 500 links of the chain only.
    let keep = &chain[..=500];
    e.collect_garbage(keep);
    let freed: Vec<u32> = chain[501..].iter().chain(&hs).map(|t| t.0).collect();
    assert_eq!(e.store().len(), live_before - freed.len());
    assert_eq!(e.store().capacity(), cap);
    // Rebuilding the dead part of the chain: new terms, in the lowest freed slots, with the
    // right data (not the stale data of the slot they land in).
    let mut lowest: Vec<u32> = freed.clone();
    lowest.sort_unstable();
    let mut t = chain[500];
    let mut got = Vec::new();
    for _ in 0..50 {
        let u = e.mk_app(f, &[t]);
        assert_eq!(e.store().args(u), &[t]);
        got.push(u.0);
        t = u;
    }
    assert_eq!(got, lowest[..50].to_vec());
    assert_eq!(e.store().capacity(), cap);
    // A three-argument term whose stale copy may still sit in a free slot is a new term.
    let again = e.mk_app(h, &[chain[0], chain[1], chain[2]]);
    assert_eq!(e.store().args(again), &[chain[0], chain[1], chain[2]]);
    assert_eq!(e.mk_app(h, &[chain[0], chain[1], chain[2]]), again);
    // The kept part is intact and still shared.
    for i in 0..500 {
        assert_eq!(e.mk_app(f, &[chain[i]]), chain[i + 1]);
    }
    assert_eq!(e.store().len(), live_before - freed.len() + 51);
}
