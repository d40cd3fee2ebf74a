//! Right-hand sides are DAGs: a subterm written more than once in a right-hand side and its
//! condition is reduced once per application of the equation, lazily, and afresh for each
//! match of a conditional equation.

mod common;
use common::*;

/// Peano naturals and trees whose `build` repeats its recursive call four times.
fn tree_spec() -> Spec {
    let mut s = Spec::new();
    s.op("z", &[], "P", "ctor");
    s.op("s", &["P"], "P", "ctor");
    s.op("leaf", &[], "Tree", "ctor");
    s.op("node", &["Tree", "Tree", "Tree", "Tree"], "Tree", "ctor");
    s.op("f", &["Tree"], "Tree", "");
    s.op("g", &["Tree"], "Tree", "");
    s.op("build", &["P", "P"], "Tree", "");
    s.op("depth", &["Tree"], "P", "");
    s.eq("t:Tree", "[f t]", "t");
    s.eq("t:Tree", "[g t]", "t");
    s.eq("m:P", "[build z m]", "leaf");
    s.eq(
        "n:P m:P",
        "[build [s n] m]",
        "[node [f [build n m]] [g [build n m]] [build n m] [build n m]]",
    );
    s.eq("", "[depth leaf]", "z");
    s.eq(
        "a:Tree b:Tree c:Tree d:Tree",
        "[depth [node a b c d]]",
        "[s [depth a]]",
    );
    s
}

fn peano(n: usize) -> String {
    (0..n).fold("z".to_string(), |t, _| format!("[s {t}]"))
}

fn peano_shown(n: usize) -> String {
    (0..n).fold("z".to_string(), |t, _| format!("s({t})"))
}

#[test]
fn a_repeated_recursive_call_is_reduced_once() {
    let s = tree_spec();
    let mut e = s.engine();
    for d in [0, 1, 5, 30] {
        let before = e.steps();
        let got = red(&s, &mut e, &format!("[depth [build {} z]]", peano(d)));
        assert_eq!(got, peano_shown(d));
        // Per level: build, f, g and depth. Without sharing it would be about 2·4^d
        // steps: 4^30 would not finish.
        let steps = e.steps() - before;
        assert!(
            steps <= 4 * d as u64 + 2,
            "depth {d}: {steps} steps, expected at most {}",
            4 * d + 2
        );
    }
}

#[test]
fn the_shared_tree_is_the_same_term_everywhere() {
    let s = tree_spec();
    let mut e = s.engine();
    let t = term(&s, &mut e, &format!("[build {} z]", peano(3)));
    let v = e.reduce(t).unwrap();
    let kids = e.store().args(v).to_vec();
    assert_eq!(kids.len(), 4);
    assert!(kids.iter().all(|k| *k == kids[0]));
}

#[test]
fn sharing_keeps_conditionals_lazy() {
    let mut s = Spec::new();
    s.op("h", &["Int"], "Int", "");
    // `100 quo x` is written twice in the else branch only: with x = 0 the then branch is
    // taken and the division must never happen.
    s.eq(
        "x:Int",
        "[h x]",
        "[if_then_else_fi [_==_ x 0] 0 [_+_ [_quo_ 100 x] [_quo_ 100 x]]]",
    );
    // Written in both branches: computed in whichever is taken.
    s.op("k", &["Int"], "Int", "");
    s.eq(
        "x:Int",
        "[k x]",
        "[if_then_else_fi [_>_ x 0] [_*_ [h x] 2] [_-_ [h x] 1]]",
    );
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[h 0]"), "0");
    assert_eq!(red(&s, &mut e, "[h 7]"), "28");
    assert_eq!(red(&s, &mut e, "[k 5]"), "80");
    assert_eq!(red(&s, &mut e, "[k 0]"), "-1");
}

#[test]
fn each_match_of_a_conditional_equation_gets_fresh_slots() {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    s.op("sq", &["Nat"], "Nat", "");
    s.eq("x:Nat", "[sq x]", "[_*_ x x]");
    // The condition writes `sq(c)` twice: its value must be that of the element being
    // tried, not of an earlier candidate whose condition failed.
    s.op("pick", &["Set"], "Nat", "");
    s.ceq(
        "c:Nat S:Set",
        "[pick [_,_ c S]]",
        "[_+_ [sq c] [sq c]]",
        "[_and_ [_>_ [sq c] 50] [_<_ [sq c] 70]]",
    );
    let mut e = s.engine();
    let set = s.id("_,_");
    let elems: Vec<_> = (1..=20).map(|i| e.mk_int(i)).collect();
    let t = e.mk_app(set, &elems);
    let p = e.mk_app(s.id("pick"), &[t]);
    let v = e.reduce(p).unwrap();
    // Only 8 has 50 < 8² < 70.
    let want = (1..=20i64).find(|c| c * c > 50 && c * c < 70).unwrap();
    assert_eq!(e.show(v), (2 * want * want).to_string());
}

#[test]
fn a_repeated_ground_redex_is_reduced_once() {
    let mut s = Spec::new();
    s.op("fib", &["Nat"], "Nat", "");
    s.eq("", "[fib 0]", "0");
    s.eq("", "[fib 1]", "1");
    s.owise("n:Nat", "[fib n]", "[_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]");
    s.op("twice", &[], "Nat", "");
    s.eq("", "[twice]", "[_+_ [fib 15] [fib 15]]");
    let mut e = s.engine();
    red(&s, &mut e, "[fib 15]");
    let one = e.steps();
    let mut e = s.engine();
    let got = red(&s, &mut e, "[twice]");
    let fib = |n: u32| (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0;
    assert_eq!(got, (2 * fib(15)).to_string());
    // `fib(15)` once, plus `twice` and the addition.
    assert_eq!(e.steps(), one + 2);
    // A hash-consed term remembers its normal form: reducing it again takes no step.
    let before = e.steps();
    assert_eq!(red(&s, &mut e, "[fib 15]"), fib(15).to_string());
    assert_eq!(e.steps(), before);
}

#[test]
fn a_term_whose_reduction_reaches_itself_is_a_cycle_at_once() {
    let mut s = Spec::new();
    s.op("foo", &[], "Nat", "");
    s.op("bar", &[], "Nat", "");
    s.eq("", "[foo]", "[bar]");
    s.eq("", "[bar]", "[_+_ 1 [foo]]");
    let mut e = s.engine();
    let t = term(&s, &mut e, "[foo]");
    match e.reduce(t) {
        Err(gamelang_runtime::RuntimeError::Cycle { term }) => assert_eq!(e.show(term), "foo"),
        other => panic!("expected a cycle, got {other:?}"),
    }
    assert!(e.steps() < 10, "{} steps", e.steps());
    // The engine recovers: nothing is left marked in progress, so the same question gets
    // the same answer (from `bar` this time).
    let t = term(&s, &mut e, "[bar]");
    match e.reduce(t) {
        Err(gamelang_runtime::RuntimeError::Cycle { term }) => assert_eq!(e.show(term), "bar"),
        other => panic!("expected a cycle, got {other:?}"),
    }
}

/// A right-hand side that writes a sub-pattern of its left-hand side again reads the
/// subject's subterm instead of rebuilding it: in every kind of position (under a free
/// operator, a commutative one, an element of a set, an element of a list, an element
/// matched modulo identity) it must be exactly the term the sub-pattern matched.
#[test]
fn left_hand_side_subterms_reused_in_right_hand_sides() {
    let mut s = Spec::new();
    s.op("p", &["Int", "Int"], "Pair", "ctor");
    s.op("q", &["Pair"], "Box", "ctor");
    s.op("k", &["Pair", "Pair"], "Two", "ctor");
    s.subsort("Pair", "PSet");
    s.op("none", &[], "PSet", "ctor");
    s.op(
        "_,_",
        &["PSet", "PSet"],
        "PSet",
        "ctor assoc comm id:none prec:121",
    );
    s.subsort("Pair", "PList");
    s.op("nil", &[], "PList", "ctor");
    s.op(
        "_;_",
        &["PList", "PList"],
        "PList",
        "ctor assoc id:nil prec:121",
    );
    s.op("_&_", &["Pair", "Pair"], "Both", "ctor comm");
    s.op("h", &["PSet"], "Wrap", "ctor");
    // free: the pair twice, once inside a new term
    s.op("dup", &["Box"], "Two", "");
    s.eq("a:Int b:Int", "[dup [q [p a b]]]", "[k [p a b] [p b a]]");
    // a set element with a condition on it
    s.op("firstbig", &["PSet"], "Pair", "");
    s.ceq(
        "a:Int b:Int S:PSet",
        "[firstbig [_,_ [p a b] S]]",
        "[p a b]",
        "[_>_ [_+_ a b] 10]",
    );
    // a list element, the last one
    s.op("last", &["PList"], "Pair", "");
    s.eq("a:Int b:Int L:PList", "[last [_;_ L [p a b]]]", "[p a b]");
    // a commutative pair
    s.op("left", &["Both"], "Pair", "");
    s.ceq(
        "a:Int b:Int x:Pair",
        "[left [_&_ [p a b] x]]",
        "[p a b]",
        "[_<_ a 0]",
    );
    // modulo identity: S may be empty, so `h((p(a, b), S))` matched `h(p(a, b))`
    s.op("unwrap", &["Wrap"], "Wrap", "");
    s.eq(
        "a:Int b:Int S:PSet",
        "[unwrap [h [_,_ [p a b] S]]]",
        "[h [_,_ [p a b] S]]",
    );
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[dup [q [p 1 2]]]"), "k(p(1, 2), p(2, 1))");
    assert_eq!(
        red(&s, &mut e, "[firstbig [_,_ [p 1 2] [p 7 8] [p 0 3]]]"),
        "p(7, 8)"
    );
    assert_eq!(
        red(&s, &mut e, "[last [_;_ [p 1 2] [p 3 4] [p 5 6]]]"),
        "p(5, 6)"
    );
    assert_eq!(red(&s, &mut e, "[left [_&_ [p 5 5] [p -1 9]]]"), "p(-1, 9)");
    assert_eq!(red(&s, &mut e, "[unwrap [h [p 4 4]]]"), "h(p(4, 4))");
    assert_eq!(
        red(&s, &mut e, "[unwrap [h [_,_ [p 4 4] [p 1 1]]]]"),
        red(&s, &mut e, "[h [_,_ [p 1 1] [p 4 4]]]")
    );
}

#[test]
fn a_term_written_in_the_condition_and_the_right_hand_side_is_reduced_once() {
    // `chain(s(n)) = s(chain(n)) if ok(chain(n))`: the recursive call is written twice, in
    // the condition and on the right, as a matching condition `P := T` is elaborated
    // (`matched%k(T, …) if matches%k(T, …)`). Reduced twice per level, depth d would take
    // about 2^d steps.
    let mut s = Spec::new();
    s.op("z", &[], "P", "ctor");
    s.op("s", &["P"], "P", "ctor");
    s.op("chain", &["P"], "P", "");
    s.op("ok", &["P"], "Bool", "");
    s.eq("", "[chain z]", "z");
    s.ceq("n:P", "[chain [s n]]", "[s [chain n]]", "[ok [chain n]]");
    s.eq("n:P", "[ok n]", "true");
    for (direct, cache) in [(true, false), (false, false), (true, true)] {
        let mut e = s.engine();
        e.direct = direct;
        e.call_cache = cache;
        for d in [0, 1, 5, 40] {
            let before = e.steps();
            let got = red(&s, &mut e, &format!("[chain {}]", peano(d)));
            assert_eq!(got, peano_shown(d));
            // Per level: chain and ok.
            let steps = e.steps() - before;
            assert!(
                steps <= 2 * d as u64 + 1,
                "direct {direct}, cache {cache}, depth {d}: {steps} steps"
            );
        }
    }
}
