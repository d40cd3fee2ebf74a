//! Hash-consing and normalisation modulo attributes.

mod common;
use common::*;
use gamelang_runtime::{TermData, TermStore};

fn set_spec() -> Spec {
    let mut s = Spec::new();
    s.subsort("Nat", "Set");
    s.op("empty", &[], "Set", "ctor");
    s.op(
        "_,_",
        &["Set", "Set"],
        "Set",
        "ctor assoc comm idem id:empty prec:121",
    );
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
