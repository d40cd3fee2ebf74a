//! Left-hand sides without choice points (free operators, variables, literals) are matched
//! in one pass straight into the equation's environment (`Pattern::match_simple`), and a
//! condition that needs rewriting keeps that environment for the right-hand side instead of
//! suspending a `Matcher`. These tests pin the behaviour of that path against computations
//! written here: conditions false and true, falling through to later equations and
//! `owise`, non-linear patterns, sort checks of variables, a condition that is not a Bool,
//! and garbage collection while a condition is pending.

mod common;
use common::*;

/// `steps(n, k)`: the Collatz steps from `n` to 1, plus `k`, with conditions that need
/// rewriting (`one`, `even` are defined by equations), so each is suspended in a frame.
fn collatz_spec() -> Spec {
    let mut s = Spec::new();
    s.op("one", &["Int"], "Bool", "");
    s.eq("", "[one 1]", "true");
    s.owise("n:Int", "[one n]", "false");
    s.op("even", &["Int"], "Bool", "");
    s.eq("", "[even 0]", "true");
    s.eq("", "[even 1]", "false");
    s.ceq("n:Int", "[even n]", "[even [_-_ n 2]]", "[_>_ n 1]");
    s.op("steps", &["Int", "Int"], "Int", "");
    s.ceq("n:Int k:Int", "[steps n k]", "k", "[one n]");
    s.ceq(
        "n:Int k:Int",
        "[steps n k]",
        "[steps [_quo_ n 2] [_+_ k 1]]",
        "[even n]",
    );
    s.owise(
        "n:Int k:Int",
        "[steps n k]",
        "[steps [_+_ [_*_ 3 n] 1] [_+_ k 1]]",
    );
    s
}

fn collatz(mut n: i64) -> i64 {
    let mut k = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        k += 1;
    }
    k
}

#[test]
fn conditions_that_need_rewriting_decide_which_equation_applies() {
    let s = collatz_spec();
    let mut e = s.engine();
    for n in 1..=60 {
        assert_eq!(
            red(&s, &mut e, &format!("[steps {n} 0]")),
            collatz(n).to_string(),
            "n = {n}"
        );
    }
}

#[test]
fn collection_while_a_condition_is_pending_keeps_its_environment() {
    let s = collatz_spec();
    let mut e = s.engine();
    // Collect as often as possible, with conditions pending at every collection.
    e.collect_in_reduce = true;
    e.collect_min_terms = 16;
    for n in [27, 97, 871] {
        assert_eq!(
            red(&s, &mut e, &format!("[steps {n} 0]")),
            collatz(n).to_string()
        );
    }
    assert!(e.collections() > 0, "no collection happened");
}

#[test]
fn non_linear_patterns_and_variable_sorts() {
    let mut s = Spec::new();
    s.op("p", &["Int", "Int"], "Pair", "ctor");
    s.op("same", &["Pair", "Pair"], "Bool", "");
    s.eq("x:Pair", "[same x x]", "true");
    s.owise("x:Pair y:Pair", "[same x y]", "false");
    s.op("diag", &["Pair"], "Bool", "");
    s.eq("a:Int", "[diag [p a a]]", "true");
    s.owise("x:Pair", "[diag x]", "false");
    // A variable of sort Nat does not match a negative literal (its sort is Int).
    s.op("sign", &["Int"], "Int", "");
    s.eq("n:Nat", "[sign n]", "1");
    s.owise("i:Int", "[sign i]", "-1");
    let mut e = s.engine();
    for a in -2..=2i64 {
        for b in -2..=2i64 {
            for c in -2..=2i64 {
                let got = red(&s, &mut e, &format!("[same [p {a} {b}] [p {a} {c}]]"));
                assert_eq!(got, (b == c).to_string(), "same(p({a}, {b}), p({a}, {c}))");
            }
            let got = red(&s, &mut e, &format!("[diag [p {a} {b}]]"));
            assert_eq!(got, (a == b).to_string());
        }
        let want = if a >= 0 { "1" } else { "-1" };
        assert_eq!(red(&s, &mut e, &format!("[sign {a}]")), want);
    }
}

#[test]
fn a_subterm_of_both_the_condition_and_the_right_hand_side_has_one_value() {
    let mut s = Spec::new();
    s.op("sq", &["Int"], "Int", "");
    s.eq("x:Int", "[sq x]", "[_*_ x x]");
    s.op("g", &["Int"], "Int", "");
    // `sq(x)` in the condition (suspended: `sq` needs rewriting) and twice on the right.
    s.ceq("x:Int", "[g x]", "[_+_ [sq x] [sq x]]", "[_>_ [sq x] 10]");
    s.owise("x:Int", "[g x]", "[_-_ 0 [sq x]]");
    let mut e = s.engine();
    for x in -6..=6i64 {
        let want = if x * x > 10 { 2 * x * x } else { -x * x };
        assert_eq!(red(&s, &mut e, &format!("[g {x}]")), want.to_string());
    }
}

#[test]
fn a_condition_that_is_not_a_bool_is_reported() {
    let mut s = Spec::new();
    s.op("inc", &["Int"], "Int", "");
    s.eq("x:Int", "[inc x]", "[_+_ x 1]");
    s.op("bad", &["Int"], "Int", "");
    s.ceq("x:Int", "[bad x]", "0", "[inc x]");
    let mut e = s.engine();
    let got = red(&s, &mut e, "[bad 4]");
    assert!(
        got.contains("the condition of an equation of `bad` reduced to `5`, not to a Bool"),
        "{got}"
    );
    // The engine is usable afterwards.
    assert_eq!(red(&s, &mut e, "[inc 4]"), "5");
}

/// A variable of the greatest sort of its kind matches without a sort check
/// (`TermStore::is_kind_top`); one of any other sort is still checked, including a sort
/// that is maximal among some sorts of the kind but not above all of them.
#[test]
fn only_variables_of_the_kinds_greatest_sort_skip_the_sort_check() {
    let mut s = Spec::new();
    // M < L, M < R, all below Top: L is not above R.
    s.subsort("M", "L");
    s.subsort("M", "R");
    s.op("m", &[], "M", "ctor");
    s.op("l", &[], "L", "ctor");
    s.op("r", &[], "R", "ctor");
    s.op("isl", &["Top"], "Bool", "");
    s.eq("x:L", "[isl x]", "true");
    s.owise("y:Top", "[isl y]", "false");
    s.op("any", &["Top"], "Bool", "");
    s.eq("x:Top", "[any x]", "true");
    let mut e = s.engine();
    for (c, in_l) in [("m", true), ("l", true), ("r", false), ("3", false)] {
        assert_eq!(
            red(&s, &mut e, &format!("[isl {c}]")),
            in_l.to_string(),
            "{c}"
        );
        assert_eq!(red(&s, &mut e, &format!("[any {c}]")), "true", "{c}");
    }
}
