//! Reduction: equations, conditions, owise, lazy built-ins, arithmetic, errors, limits,
//! memo tables, deep recursion.

mod common;
use common::*;
use gamelang_runtime::RuntimeError;
use std::sync::atomic::Ordering;

fn err_of(s: &Spec, e: &mut gamelang_runtime::Engine, src: &str) -> RuntimeError {
    let t = term(s, e, src);
    e.reduce(t).expect_err("expected an error")
}

#[test]
fn equations_conditions_owise() {
    let mut s = Spec::new();
    s.op("fact", &["Nat"], "Nat", "");
    s.eq("", "[fact 0]", "1");
    s.ceq("n:Nat", "[fact n]", "[_*_ n [fact [_-_ n 1]]]", "[_>_ n 0]");
    s.op("sign", &["Int"], "Int", "");
    s.ceq("i:Int", "[sign i]", "1", "[_>_ i 0]");
    s.ceq("i:Int", "[sign i]", "-1", "[_<_ i 0]");
    s.owise("i:Int", "[sign i]", "0");
    // owise placed first in source still comes last
    s.op("kind", &["Int"], "Bool", "");
    s.owise("i:Int", "[kind i]", "false");
    s.eq("", "[kind 0]", "true");
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[fact 10]"), "3628800");
    assert_eq!(red(&s, &mut e, "[sign -5]"), "-1");
    assert_eq!(red(&s, &mut e, "[sign 5]"), "1");
    assert_eq!(red(&s, &mut e, "[sign 0]"), "0");
    assert_eq!(red(&s, &mut e, "[kind 0]"), "true");
    assert_eq!(red(&s, &mut e, "[kind 3]"), "false");
}

#[test]
fn conditional_equation_tries_all_matches() {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    s.op("big", &["Set"], "Nat", "");
    // succeeds only on the largest element, i.e. the last candidate in order
    s.ceq("c:Nat S:Set", "[big [_,_ c S]]", "c", "[_>_ c 98]");
    s.op("sum", &["Set"], "Nat", "");
    s.eq("", "[sum empty]", "0");
    s.eq("c:Nat S:Set", "[sum [_,_ c S]]", "[_+_ c [sum S]]");
    let mut e = s.engine();
    let set = s.id("_,_");
    let elems: Vec<_> = (0..100).map(|i| e.mk_int(i)).collect();
    let t = e.mk_app(set, &elems);
    let big = e.mk_app(s.id("big"), &[t]);
    let v = e.reduce(big).unwrap();
    assert_eq!(e.show(v), "99");
    let sum = e.mk_app(s.id("sum"), &[t]);
    let v = e.reduce(sum).unwrap();
    assert_eq!(e.show(v), "4950");
    // no candidate satisfies the condition: stuck
    let small = term(&s, &mut e, "[big [_,_ 1 2]]");
    assert!(matches!(e.reduce(small), Err(RuntimeError::Stuck { .. })));
}

#[test]
fn lazy_builtins() {
    let mut s = Spec::new();
    s.op("g", &["Nat"], "Bool", "");
    s.eq("", "[g 1]", "true");
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[_and-then_ false [g 0]]"), "false");
    assert_eq!(red(&s, &mut e, "[_or-else_ true [g 0]]"), "true");
    assert_eq!(red(&s, &mut e, "[_and-then_ true [g 1]]"), "true");
    assert_eq!(red(&s, &mut e, "[_or-else_ false [g 1]]"), "true");
    assert_eq!(red(&s, &mut e, "[if_then_else_fi true 1 [g 0]]"), "1");
    assert_eq!(red(&s, &mut e, "[if_then_else_fi [_==_ 1 2] [g 0] 2]"), "2");
    assert_eq!(
        red(&s, &mut e, "[if_then_else_fi [g 1] [_+_ 1 1] [g 0]]"),
        "2"
    );
    // strict versions evaluate everything
    assert!(red(&s, &mut e, "[_and_ false [g 0]]")
        .starts_with("ERROR: no equation of `g` applies to `g(0)`"));
    // a first argument that is not a Boolean
    let err = err_of(&s, &mut e, "[if_then_else_fi 3 1 2]");
    match &err {
        RuntimeError::Stuck { op, reason, .. } => {
            assert_eq!(*op, s.id("if_then_else_fi"));
            assert!(
                reason.contains("condition of `if_then_else_fi` is not a Bool"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        err_of(&s, &mut e, "[_and-then_ 3 true]"),
        RuntimeError::Stuck { .. }
    ));
}

#[test]
fn booleans_and_equality() {
    let s = Spec::new();
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[not_ [_and_ true false]]"), "true");
    assert_eq!(red(&s, &mut e, "[_xor_ true true]"), "false");
    assert_eq!(red(&s, &mut e, "[_implies_ false true]"), "true");
    assert_eq!(red(&s, &mut e, "[_or_ false false]"), "false");
    assert_eq!(red(&s, &mut e, "[_==_ [_+_ 1 2] 3]"), "true");
    assert_eq!(red(&s, &mut e, "[_=/=_ true false]"), "true");
    assert!(matches!(
        err_of(&s, &mut e, "[not_ 3]"),
        RuntimeError::Stuck { .. }
    ));
}

#[test]
fn arithmetic() {
    let s = Spec::new();
    let mut e = s.engine();
    for (src, want) in [
        ("[_+_ 2 3]", "5"),
        ("[_-_ 2 3]", "-1"),
        ("[_*_ -4 3]", "-12"),
        ("[_quo_ 7 2]", "3"),
        ("[_quo_ -7 2]", "-3"),
        ("[_quo_ 7 -2]", "-3"),
        ("[_rem_ 7 -2]", "1"),
        ("[_rem_ -7 2]", "-1"),
        ("[-_ 5]", "-5"),
        ("[abs -5]", "5"),
        ("[min 3 -2]", "-2"),
        ("[max 3 -2]", "3"),
        ("[_<_ 1 2]", "true"),
        ("[_<=_ 2 2]", "true"),
        ("[_>_ 1 2]", "false"),
        ("[_>=_ 1 2]", "false"),
        ("[_divides_ 3 12]", "true"),
        ("[_divides_ 5 12]", "false"),
        ("[_divides_ 0 0]", "true"),
        ("[_divides_ -1 -9223372036854775808]", "true"),
    ] {
        assert_eq!(red(&s, &mut e, src), want, "{src}");
    }
    assert!(matches!(
        err_of(&s, &mut e, "[_+_ 9223372036854775807 1]"),
        RuntimeError::Overflow { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[_*_ 4611686018427387904 2]"),
        RuntimeError::Overflow { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[-_ -9223372036854775808]"),
        RuntimeError::Overflow { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[_quo_ -9223372036854775808 -1]"),
        RuntimeError::Overflow { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[_quo_ 1 0]"),
        RuntimeError::DivisionByZero { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[_rem_ 1 0]"),
        RuntimeError::DivisionByZero { .. }
    ));
    assert!(matches!(
        err_of(&s, &mut e, "[_+_ 1 true]"),
        RuntimeError::Stuck { .. }
    ));
    let err = err_of(&s, &mut e, "[_+_ 9223372036854775807 1]");
    assert_eq!(
        e.describe(&err),
        "integer overflow in `9223372036854775807 + 1`"
    );
}

#[test]
fn builtin_with_user_equations() {
    let mut s = Spec::new();
    s.op("zero", &[], "Nat", "ctor");
    s.eq("n:Nat", "[_+_ n zero]", "n");
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[_+_ 1 2]"), "3");
    assert_eq!(red(&s, &mut e, "[_+_ 4 zero]"), "4");
    assert!(red(&s, &mut e, "[_+_ zero 4]").contains("integer literal arguments"));
}

fn heaps_spec() -> Spec {
    let mut s = Spec::new();
    s.op("R", &[], "Player", "ctor");
    s.op("B", &[], "Player", "ctor");
    s.op("(__)", &["Nat", "Nat"], "Heaps", "ctor");
    s.subsort("Heaps", "HSet");
    s.op("none", &[], "HSet", "ctor");
    s.op(
        "_,_",
        &["HSet", "HSet"],
        "HSet",
        "ctor assoc comm idem id:none prec:121",
    );
    s.op("next-heaps", &["Heaps"], "HSet", "");
    s.ceq(
        "a:Nat b:Nat",
        "[next-heaps [(__) a b]]",
        "[_,_ [(__) [_-_ a 1] b] [(__) a [_-_ b 1]]]",
        "[_<=_ a b]",
    );
    s.op("w", &["Player", "Heaps"], "Bool", "memo");
    s.op("w-aux", &["Player", "HSet"], "Bool", "");
    s.eq("h:Heaps", "[w R h]", "[w-aux B [next-heaps h]]");
    s.eq("", "[w-aux B none]", "false");
    s
}

#[test]
fn stuck_with_trace_and_description() {
    let s = heaps_spec();
    let mut e = s.engine();
    let err = err_of(&s, &mut e, "[w R [(__) 5 2]]");
    match &err {
        RuntimeError::Stuck { op, reason, term } => {
            assert_eq!(*op, s.id("next-heaps"));
            assert_eq!(reason, "no equation applies");
            assert_eq!(e.show(*term), "next-heaps((5 2))");
        }
        other => panic!("{other:?}"),
    }
    let trace: Vec<String> = e.trace().iter().map(|t| e.show(*t)).collect();
    assert_eq!(trace, vec!["w(R, (5 2))", "w-aux(B, next-heaps((5 2)))"]);
    assert_eq!(
        e.describe(&err),
        "no equation of `next-heaps` applies to `next-heaps((5 2))`"
    );
    let f = e.failure(err.clone());
    assert_eq!(f.trace.len(), 2);
    assert_eq!(
        e.describe_failure(&f),
        "no equation of `next-heaps` applies to `next-heaps((5 2))`, \
         while reducing `w-aux(B, next-heaps((5 2)))` inside `w(R, (5 2))`"
    );
    // the in-progress memo entry was dropped: the same error again, not a cycle
    assert_eq!(err_of(&s, &mut e, "[w R [(__) 5 2]]"), err);
    assert_eq!(e.memo_len(s.id("w")), 0);
    // still usable
    assert_eq!(red(&s, &mut e, "[next-heaps [(__) 1 2]]"), "(0 2), (1 1)");
}

#[test]
fn ill_sorted_constructor() {
    let mut s = Spec::new();
    s.op("s_", &["Nat"], "Nat", "ctor prec:15");
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[s_ [_+_ 1 1]]"), "s 2");
    let err = err_of(&s, &mut e, "[s_ [_-_ 1 2]]");
    assert!(matches!(err, RuntimeError::IllSorted { arg: 0, .. }));
    let msg = e.describe(&err);
    assert!(
        msg.contains("argument 1 of `s_` is `-1` of sort `Int`"),
        "{msg}"
    );
}

#[test]
fn step_budget_and_recovery() {
    let mut s = Spec::new();
    s.op("loop", &["Int"], "Int", "");
    s.eq("n:Int", "[loop n]", "[loop [_+_ n 1]]");
    let mut e = s.engine();
    e.limits.max_steps = 1000;
    let before = e.steps();
    let err = err_of(&s, &mut e, "[loop 0]");
    assert!(matches!(err, RuntimeError::StepBudget { limit: 1000, .. }));
    assert!(e.steps() - before <= 1001);
    assert!(e
        .describe(&err)
        .contains("gave up after 1000 rewriting steps"));
    // the budget is per reduction
    assert_eq!(red(&s, &mut e, "[_+_ 1 2]"), "3");
}

#[test]
fn interrupt() {
    let mut s = Spec::new();
    s.op("loop", &["Int"], "Int", "");
    s.eq("n:Int", "[loop n]", "[loop [_+_ n 1]]");
    let mut e = s.engine();
    e.interrupt.store(true, Ordering::Relaxed);
    assert!(matches!(
        err_of(&s, &mut e, "[loop 0]"),
        RuntimeError::Interrupted { .. }
    ));
    e.interrupt.store(false, Ordering::Relaxed);
    assert_eq!(red(&s, &mut e, "[_+_ 1 2]"), "3");
}

fn deep_spec(memo: bool) -> Spec {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Bool", if memo { "memo" } else { "" });
    s.eq("", "[f 0]", "true");
    s.owise("n:Nat", "[f n]", "[not_ [f [_-_ n 1]]]");
    s.op("s", &["Peano"], "Peano", "ctor");
    s.op("z", &[], "Peano", "ctor");
    s.op("val", &["Peano"], "Nat", if memo { "memo" } else { "" });
    s.eq("", "[val z]", "0");
    s.eq("p:Peano", "[val [s p]]", "[_+_ 1 [val p]]");
    s.op("build", &["Nat"], "Peano", "");
    s.eq("", "[build 0]", "z");
    s.owise("n:Nat", "[build n]", "[s [build [_-_ n 1]]]");
    s
}

#[test]
fn deep_recursion_without_memo() {
    let s = deep_spec(false);
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[f 100000]"), "true");
    assert_eq!(red(&s, &mut e, "[f 100001]"), "false");
    // a term 100000 deep: built, then consumed
    assert_eq!(red(&s, &mut e, "[val [build 100000]]"), "100000");
    let deep = term(&s, &mut e, "[build 100000]");
    let v = e.reduce(deep).unwrap();
    // Printed in full (issue 11: normal forms are no longer cut), or cut on request.
    let shown = e.show(v);
    assert_eq!(
        shown,
        format!("{}z{}", "s(".repeat(100_000), ")".repeat(100_000))
    );
    let cut = e.show_limited(v, 10_000);
    assert!(cut.starts_with("s(s(s(") && cut.ends_with('…') && cut.len() < 10_010);
}

#[test]
fn deep_recursion_with_memo() {
    let s = deep_spec(true);
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[f 100000]"), "true");
    assert_eq!(e.memo_len(s.id("f")), 100_001);
    assert_eq!(red(&s, &mut e, "[val [build 100000]]"), "100000");
}

#[test]
fn depth_limit() {
    let s = deep_spec(false);
    let mut e = s.engine();
    e.limits.max_depth = 1000;
    assert!(matches!(
        err_of(&s, &mut e, "[f 5000]"),
        RuntimeError::DepthLimit { limit: 1000, .. }
    ));
    assert_eq!(red(&s, &mut e, "[f 10]"), "true");
}

#[test]
fn memo_hits_and_clear() {
    let mut s = Spec::new();
    s.op("fib", &["Nat"], "Nat", "memo");
    s.ceq("n:Nat", "[fib n]", "n", "[_<_ n 2]");
    s.owise("n:Nat", "[fib n]", "[_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]");
    let mut e = s.engine();
    let t = term(&s, &mut e, "[fib 80]");
    let v = e.reduce(t).unwrap();
    assert_eq!(e.show(v), "23416728348467685");
    let fib = s.id("fib");
    assert_eq!(e.memo_len(fib), 81);
    let steps = e.steps();
    assert_eq!(e.reduce(t).unwrap(), v);
    assert_eq!(e.steps(), steps);
    e.clear_memo();
    assert_eq!(e.memo_len(fib), 0);
    assert_eq!(e.reduce(t).unwrap(), v);
    assert!(e.steps() > steps);
}

#[test]
fn memo_limit() {
    let mut s = Spec::new();
    s.op("fib", &["Nat"], "Nat", "memo");
    s.ceq("n:Nat", "[fib n]", "n", "[_<_ n 2]");
    s.owise("n:Nat", "[fib n]", "[_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]");
    let mut e = s.engine();
    e.limits.max_memo_entries = 10;
    assert!(matches!(
        err_of(&s, &mut e, "[fib 30]"),
        RuntimeError::MemoLimit { limit: 10, .. }
    ));
    assert!(e.memo_total() <= 10);
    e.limits.max_memo_entries = 1000;
    assert_eq!(red(&s, &mut e, "[fib 30]"), "832040");
}

#[test]
fn cycle_detection() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "memo");
    s.eq("x:Nat", "[f x]", "[f x]");
    s.op("g", &["Nat"], "Nat", "memo");
    s.eq("x:Nat", "[g x]", "[_+_ 1 [g [_+_ [_rem_ x 3] 1]]]");
    let mut e = s.engine();
    let err = err_of(&s, &mut e, "[f 1]");
    assert!(matches!(err, RuntimeError::Cycle { .. }));
    assert_eq!(e.show(err.term()), "f(1)");
    assert!(e.describe(&err).contains("depends on itself"));
    // again a cycle, not a stale in-progress hit or a loop
    assert!(matches!(
        err_of(&s, &mut e, "[f 1]"),
        RuntimeError::Cycle { .. }
    ));
    let err = err_of(&s, &mut e, "[g 7]");
    assert!(matches!(err, RuntimeError::Cycle { .. }), "{err:?}");
    assert_eq!(red(&s, &mut e, "[_+_ 1 2]"), "3");
}

#[test]
fn set_program_extends() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "memo");
    s.eq("x:Nat", "[f x]", "[_+_ x 1]");
    let mut e = s.engine();
    let t = term(&s, &mut e, "[f 1]");
    let v = e.reduce(t).unwrap();
    assert_eq!(e.show(v), "2");
    s.op("g", &["Nat"], "Nat", "");
    s.eq("x:Nat", "[g x]", "[f [f x]]");
    e.set_program(s.program());
    assert_eq!(e.memo_len(s.id("f")), 0);
    assert_eq!(red(&s, &mut e, "[g 1]"), "3");
    assert_eq!(e.show(t), "f(1)");
}

#[test]
fn trace_is_elided_in_the_middle() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "memo");
    s.op("g", &["Nat"], "Nat", "");
    s.eq("", "[g 0]", "0");
    s.eq("", "[f 0]", "[g 5]");
    s.owise("n:Nat", "[f n]", "[_+_ 1 [f [_-_ n 1]]]");
    let mut e = s.engine();
    let err = err_of(&s, &mut e, "[f 20]");
    assert!(matches!(err, RuntimeError::Stuck { .. }));
    let f = e.failure(err);
    assert_eq!(f.trace.len(), 8);
    assert_eq!(f.elided, 21 - 8);
    let shown: Vec<String> = f.trace.iter().map(|t| e.show(*t)).collect();
    assert_eq!(shown[..3], ["f(20)", "f(19)", "f(18)"]);
    assert_eq!(shown[7], "f(0)");
    let msg = e.describe_failure(&f);
    assert!(
        msg.starts_with(
            "no equation of `g` applies to `g(5)`, while reducing `f(0)` inside `f(1)`"
        ),
        "{msg}"
    );
    assert!(
        msg.contains("inside … (13 more) … inside `f(18)` inside `f(19)` inside `f(20)`"),
        "{msg}"
    );
}

#[test]
fn errors_in_conditions() {
    let mut s = Spec::new();
    s.op("h", &["Nat"], "Nat", "");
    s.ceq("n:Nat", "[h n]", "n", "[_+_ n 1]");
    s.op("k", &["Nat"], "Nat", "");
    s.op("undefined", &["Nat"], "Bool", "");
    s.eq("", "[undefined 0]", "true");
    s.ceq("n:Nat", "[k n]", "n", "[undefined n]");
    let mut e = s.engine();
    let err = err_of(&s, &mut e, "[h 1]");
    match &err {
        RuntimeError::Stuck { reason, .. } => {
            assert!(reason.contains("reduced to `2`, not to a Bool"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    // an error while evaluating a condition: the subject is in the trace
    let err = err_of(&s, &mut e, "[k 3]");
    assert_eq!(e.show(err.term()), "undefined(3)");
    let trace: Vec<String> = e.trace().iter().map(|t| e.show(*t)).collect();
    assert_eq!(trace, vec!["k(3)"]);
    assert_eq!(red(&s, &mut e, "[k 0]"), "0");
}

#[test]
fn unbound_variable_in_right_hand_side() {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "");
    s.eq("n:Nat m:Nat", "[f n]", "m");
    let mut e = s.engine();
    match err_of(&s, &mut e, "[f 1]") {
        RuntimeError::Stuck { reason, .. } => assert!(reason.contains("variable `m`"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn set_library_equations() {
    // As stdlib/set.game: membership, cardinality, deletion by AC matching with a bound
    // element.
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    s.op("_in_", &["Nat", "Set"], "Bool", "prec:51");
    s.op("|_|", &["Set"], "Nat", "");
    s.op("delete", &["Nat", "Set"], "Set", "");
    s.eq("e:Nat S:Set", "[_in_ e [_,_ e S]]", "true");
    s.owise("e:Nat S:Set", "[_in_ e S]", "false");
    s.eq("", "[|_| empty]", "0");
    s.eq("e:Nat S:Set", "[|_| [_,_ e S]]", "[_+_ 1 [|_| S]]");
    s.eq("e:Nat S:Set", "[delete e [_,_ e S]]", "S");
    s.owise("e:Nat S:Set", "[delete e S]", "S");
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[_in_ 3 [_,_ 1 [_,_ 3 5]]]"), "true");
    assert_eq!(red(&s, &mut e, "[_in_ 4 [_,_ 1 [_,_ 3 5]]]"), "false");
    assert_eq!(red(&s, &mut e, "[_in_ 4 empty]"), "false");
    assert_eq!(red(&s, &mut e, "[_in_ 4 4]"), "true");
    assert_eq!(
        red(&s, &mut e, "[|_| [_,_ 1 [_,_ 3 [_,_ 5 [_,_ 1 3]]]]]"),
        "3"
    );
    assert_eq!(red(&s, &mut e, "[delete 3 [_,_ 1 [_,_ 3 5]]]"), "1, 5");
    assert_eq!(red(&s, &mut e, "[delete 3 3]"), "empty");
    assert_eq!(red(&s, &mut e, "[delete 4 [_,_ 1 5]]"), "1, 5");
    // elements reduced inside a set are re-normalised
    assert_eq!(
        red(&s, &mut e, "[_,_ [_+_ 1 1] [_,_ 2 [|_| [_,_ 7 8]]]]"),
        "2"
    );
}

#[test]
fn ill_sorted_set_element() {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    let mut e = s.engine();
    assert!(matches!(
        err_of(&s, &mut e, "[_,_ 1 [_-_ 0 1]]"),
        RuntimeError::IllSorted { .. }
    ));
    assert_eq!(red(&s, &mut e, "[_,_ 1 [_-_ 3 1]]"), "1, 2");
}

/// Equations are skipped without matching when an argument's operator or value cannot
/// match (`compile::Guard`): every combination of constructor and literal arguments must
/// still pick the equation that matches, in order, and fall to `owise` otherwise.
#[test]
fn argument_guards_choose_the_same_equation_as_matching() {
    let mut s = Spec::new();
    s.op("e", &[], "Bin", "ctor");
    s.op("o", &["Bin"], "Bin", "ctor");
    s.op("i", &["Bin"], "Bin", "ctor");
    s.op("k", &["Bin", "Int"], "Int", "");
    s.eq("", "[k e 0]", "100");
    s.eq("a:Bin", "[k [o a] 0]", "200");
    s.eq("a:Bin b:Int", "[k [o [i a]] b]", "300");
    s.eq("a:Bin", "[k [i a] 1]", "400");
    s.eq("a:Bin", "[k a 7]", "500");
    s.owise("a:Bin b:Int", "[k a b]", "[_+_ b 1000]");
    let mut e = s.engine();
    // Independent: the equations above, read in order.
    let want = |x: &str, n: i64| -> i64 {
        if x == "e" && n == 0 {
            100
        } else if x.starts_with("[o") && n == 0 {
            200
        } else if x.starts_with("[o [i") {
            300
        } else if x.starts_with("[i") && n == 1 {
            400
        } else if n == 7 {
            500
        } else {
            n + 1000
        }
    };
    for x in ["e", "[o e]", "[i e]", "[o [i e]]", "[i [o e]]", "[o [o e]]"] {
        for n in [0, 1, 7, 9] {
            assert_eq!(
                red(&s, &mut e, &format!("[k {x} {n}]")),
                want(x, n).to_string(),
                "k({x}, {n})"
            );
        }
    }
}

/// `reduce_app(op, args)` answers what `reduce` of the built term answers: values, memo
/// tables, errors (worded alike) and rewrite counts, with the direct evaluator and without.
#[test]
fn reduce_app_is_reduce_of_the_built_term() {
    let mut s = Spec::new();
    s.op("fib", &["Nat"], "Nat", "memo");
    s.eq("", "[fib 0]", "0");
    s.eq("", "[fib 1]", "1");
    s.owise("n:Nat", "[fib n]", "[_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]");
    s.op("sum", &["Nat", "Nat"], "Nat", "");
    s.eq("a:Nat", "[sum a 0]", "a");
    s.owise("a:Nat b:Nat", "[sum a b]", "[sum [_+_ a 1] [_-_ b 1]]");
    s.op("half", &["Nat"], "Nat", "");
    s.ceq("n:Nat", "[half n]", "[_quo_ n 2]", "[_==_ [_rem_ n 2] 0]");
    let (fib, sum, half) = (s.id("fib"), s.id("sum"), s.id("half"));
    let fibs = [0u64, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55];
    for direct in [true, false] {
        let mut a = s.engine();
        let mut b = s.engine();
        a.direct = direct;
        b.direct = direct;
        for (op, args, want) in [
            (fib, vec![10], Some(fibs[10].to_string())),
            (sum, vec![7, 30], Some("37".to_string())),
            (half, vec![8], Some("4".to_string())),
            (half, vec![7], None),
        ] {
            let ints: Vec<_> = args.iter().map(|&i| a.mk_int(i)).collect();
            let got = a.reduce_app(op, &ints);
            let built = {
                let ints: Vec<_> = args.iter().map(|&i| b.mk_int(i)).collect();
                let t = b.mk_app(op, &ints);
                b.reduce(t)
            };
            match (got, built, want) {
                (Ok(x), Ok(y), Some(w)) => {
                    assert_eq!(a.show(x), w);
                    assert_eq!(b.show(y), w);
                }
                (Err(x), Err(y), None) => {
                    assert!(matches!(x, RuntimeError::Stuck { .. }), "{x:?}");
                    assert_eq!(a.describe(&x), b.describe(&y));
                }
                (x, y, w) => panic!("{x:?} / {y:?} / {w:?}"),
            }
            assert_eq!(a.steps(), b.steps(), "direct = {direct}");
            assert_eq!(a.memo_total(), b.memo_total());
        }
    }
}

/// `Engine::mk_app_normal` marks what it builds normal only where reducing it would give
/// it back: a plain constructor over normal arguments of the declared sorts.
#[test]
fn an_application_built_normal_is_marked_only_when_reduction_gives_it_back() {
    let mut s = Spec::new();
    s.op("pt", &["Nat", "Nat"], "Pt", "ctor");
    s.op("f", &["Nat"], "Nat", "");
    s.eq("n:Nat", "[f n]", "[_+_ n 1]");
    s.op("g", &["Nat", "Nat"], "Pt", "");
    s.eq("n:Nat m:Nat", "[g n m]", "[pt m n]");
    let mut e = s.engine();
    let (one, two) = (e.mk_int(1), e.mk_int(2));
    // A constructor over values: normal, and `reduce` agrees (it gives the term back).
    let p = e.mk_app_normal(s.id("pt"), &[one, two]);
    assert!(e.is_normal(p));
    assert_eq!(e.reduce(p).unwrap(), p);
    // A defined operator: not normal (it rewrites to `pt(2, 1)`).
    let g = e.mk_app_normal(s.id("g"), &[one, two]);
    assert!(!e.is_normal(g));
    let v = e.reduce(g).unwrap();
    assert_eq!(e.show(v), "pt(2, 1)");
    // A constructor over an argument not known normal (`f(1)` rewrites to 2): not marked.
    let f1 = e.mk_app(s.id("f"), &[one]);
    let q = e.mk_app_normal(s.id("pt"), &[f1, two]);
    assert!(!e.is_normal(q));
    let v = e.reduce(q).unwrap();
    assert_eq!(e.show(v), "pt(2, 2)");
    // An argument of the wrong sort: not marked either (reducing it is an error).
    let pq = e.mk_app_normal(s.id("pt"), &[p, two]);
    assert!(!e.is_normal(pq));
    assert!(e.reduce(pq).is_err());
}
