//! The standard library's set built-ins (`_in_`, `|_|`, `delete`, `intersection` of
//! `SET{X}` in stdlib/set.game, computed on a normal set's elements by
//! runtime/src/term/set.rs) against `std::collections::BTreeSet`, and against the
//! equations they stand for: a module here declares `in'`, `size'`, `delete'` and
//! `intersection'` by set.game's equations, without the built-ins, and every question is
//! asked both ways.
//!
//! Elements are numbers and constants (`Set{Nat}` in module `T`, `Set{P}` in `U`); sets are written in shuffled
//! orders with repeats (so that they are normalised by the store); and some sets hold a
//! stuck term of sort `Set{Nat}` (`foo(k)`), where the built-ins decline and the equations
//! decide: `| S |` is then stuck with the equations' own error.

mod support;

use gamelang_lang::elab::Session;
use gamelang_runtime::{Engine, RuntimeError, TermId};
use std::collections::BTreeSet;
use std::sync::Arc;
use support::Rng;

/// Two modules, one instance each (`empty` is the instance's: two in one module would be
/// two readings of it).
const SRC: &str = "fmod U is
  sort P .
  ops p0 p1 p2 p3 p4 p5 p6 p7 : -> P [ctor] .
  protecting SET{P} .
endfm
fmod T is
  protecting SET{Nat} .
  op foo : Nat -> Set{Nat} .
  op in' : Nat Set{Nat} -> Bool .
  op size' : Set{Nat} -> Nat .
  op delete' : Nat Set{Nat} -> Set{Nat} .
  op intersection' : Set{Nat} Set{Nat} -> Set{Nat} .
  ops both both' : Nat Nat Set{Nat} -> Bool .
  vars e d : Nat .
  vars S T : Set{Nat} .
  eq both(e, d, S) = (e in S) and (d in S) .
  eq both'(e, d, S) = in'(e, S) and in'(d, S) .
  eq in'(e, (e, S)) = true .
  eq in'(e, S) = false [owise] .
  eq size'(empty) = 0 .
  eq size'((e, S)) = 1 + size'(S) .
  eq delete'(e, (e, S)) = S .
  eq delete'(e, S) = S [owise] .
  eq intersection'((e, S), (e, T)) = e, intersection'(S, T) .
  eq intersection'(S, T) = empty [owise] .
endfm
";

struct Sets {
    session: Session,
    engine: Engine,
    module: &'static str,
}

impl Sets {
    fn new(module: &'static str) -> Sets {
        let mut session = Session::new().expect("stdlib");
        if let Err(e) = session.load_source("sets.game", SRC) {
            panic!(
                "{}",
                gamelang_lang::diag::render_all(&e, &session.sources, false)
            );
        }
        let engine = Engine::new(Arc::new(session.program.clone()));
        Sets {
            session,
            engine,
            module,
        }
    }

    /// The normal form of `text` (or the error), and the rewrites it took.
    fn eval(&mut self, text: &str) -> (Result<TermId, RuntimeError>, u64) {
        let m = self
            .session
            .module_by_name(self.module)
            .expect("the test's module");
        let pat = self
            .session
            .parse_term(m, "test", text, None)
            .unwrap_or_else(|d| panic!("{text}: {}", d.render(&self.session.sources, false)));
        let t = self.engine.build(&pat, &[]);
        let before = self.engine.steps();
        let v = self.engine.reduce(t);
        (v, self.engine.steps() - before)
    }

    fn value(&mut self, text: &str) -> TermId {
        let (v, _) = self.eval(text);
        v.unwrap_or_else(|e| panic!("{text}: {}", self.engine.describe(&e)))
    }

    fn show(&mut self, text: &str) -> String {
        let v = self.value(text);
        self.engine.show(v)
    }
}

/// A set as gamelang text: the elements in a shuffled order, some twice.
fn written(elems: &[String], rng: &mut Rng) -> String {
    if elems.is_empty() {
        return "empty".to_string();
    }
    let mut xs: Vec<String> = elems.to_vec();
    for _ in 0..rng.below(3) {
        xs.push(elems[rng.below(elems.len() as u64) as usize].clone());
    }
    for i in (1..xs.len()).rev() {
        xs.swap(i, rng.below(i as u64 + 1) as usize);
    }
    format!("({})", xs.join(", "))
}

#[test]
fn membership_size_and_deletion_agree_with_btreeset_and_the_equations() {
    let mut s = Sets::new("T");
    let mut rng = Rng(0x5e75_2026);
    let (mut hits, mut misses) = (0, 0);
    for round in 0..150 {
        let model: BTreeSet<u64> = (0..rng.below(9)).map(|_| rng.below(12)).collect();
        let elems: Vec<String> = model.iter().map(|x| x.to_string()).collect();
        let set = written(&elems, &mut rng);
        let x = rng.below(12);
        let ctx = format!("round {round}: {x} and {set}");

        // Membership: the model, and the equations with the same rewrites (one).
        let want = model.contains(&x);
        let (got, steps) = s.eval(&format!("{x} in {set}"));
        let (by_eqs, eq_steps) = s.eval(&format!("in'({x}, {set})"));
        let (got, by_eqs) = (got.unwrap(), by_eqs.unwrap());
        assert_eq!(s.engine.show(got), want.to_string(), "{ctx}");
        assert_eq!(got, by_eqs, "{ctx}");
        assert_eq!(steps, eq_steps, "{ctx}: rewrites of `in`");
        // Asked inside a right-hand side (`both`: two `in` under an `and`). (Not counted
        // against the equations: the call cache keeps calls of defined functions such as
        // `in'` from round to round, not of built-ins.)
        let y = rng.below(12);
        let got = s.value(&format!("both({x}, {y}, {set})"));
        let by_eqs = s.value(&format!("both'({x}, {y}, {set})"));
        let both = model.contains(&x) && model.contains(&y);
        assert_eq!(s.engine.show(got), both.to_string(), "{ctx}, {y}");
        assert_eq!(got, by_eqs, "{ctx}, {y}");
        if want {
            hits += 1;
        } else {
            misses += 1;
        }

        // Size: one rewrite, where the equations take one per element and one per `+`
        // (so the built-in did answer).
        // (Counted at the first ask: a term asked again is answered by its normal form.)
        let (got, steps) = s.eval(&format!("| {set} |"));
        let (by_eqs, eq_steps) = s.eval(&format!("size'({set})"));
        let (got, by_eqs) = (got.unwrap(), by_eqs.unwrap());
        assert_eq!(s.engine.show(got), model.len().to_string(), "{ctx}");
        assert_eq!(got, by_eqs, "{ctx}");
        // The built-in takes one rewrite (none for a set asked in an earlier round: its
        // normal form is known); the equations two or more for a set not asked before.
        assert!(
            steps <= 1,
            "{ctx}: {steps} rewrites of `|_|`, {eq_steps} by equations"
        );

        // Deletion: the same term as the model's rest written out, and as the equations'.
        let rest: Vec<String> = model
            .iter()
            .filter(|&&y| y != x)
            .map(|y| y.to_string())
            .collect();
        let want = s.value(&written(&rest, &mut rng));
        let (got, steps) = s.eval(&format!("delete({x}, {set})"));
        let (by_eqs, eq_steps) = s.eval(&format!("delete'({x}, {set})"));
        assert_eq!(got.unwrap(), want, "{ctx}");
        assert_eq!(by_eqs.unwrap(), want, "{ctx}");
        assert_eq!(steps, eq_steps, "{ctx}: rewrites of `delete`");

        // Intersection with another set, small or large (the built-in scans small lists
        // and merges long ones in the store's order): one rewrite, and the model's.
        let other: BTreeSet<u64> = (0..rng.below(if round % 3 == 0 { 40 } else { 8 }))
            .map(|_| rng.below(if round % 3 == 0 { 30 } else { 12 }))
            .collect();
        let other_elems: Vec<String> = other.iter().map(|x| x.to_string()).collect();
        let other_set = written(&other_elems, &mut rng);
        let both: Vec<String> = model.intersection(&other).map(|y| y.to_string()).collect();
        let want = s.value(&written(&both, &mut rng));
        let (got, steps) = s.eval(&format!("intersection({set}, {other_set})"));
        let by_eqs = s.value(&format!("intersection'({set}, {other_set})"));
        assert_eq!(got.unwrap(), want, "{ctx}, {other_set}");
        assert_eq!(by_eqs, want, "{ctx}, {other_set}");
        assert!(steps <= 1, "{ctx}: {steps} rewrites of `intersection`");
    }
    // Both answers were asked often.
    assert!(hits > 30 && misses > 30, "{hits} hits, {misses} misses");
}

#[test]
fn sets_of_constants_and_single_elements() {
    let mut s = Sets::new("U");
    let mut rng = Rng(0xc0_2026);
    for round in 0..60 {
        let model: BTreeSet<u64> = (0..rng.below(6)).map(|_| rng.below(8)).collect();
        let elems: Vec<String> = model.iter().map(|x| format!("p{x}")).collect();
        let set = written(&elems, &mut rng);
        let x = rng.below(8);
        let ctx = format!("round {round}: p{x} and {set}");
        assert_eq!(
            s.show(&format!("p{x} in {set}")),
            model.contains(&x).to_string(),
            "{ctx}"
        );
        assert_eq!(
            s.show(&format!("| {set} |")),
            model.len().to_string(),
            "{ctx}"
        );
        let rest: Vec<String> = model
            .iter()
            .filter(|&&y| y != x)
            .map(|y| format!("p{y}"))
            .collect();
        let want = s.value(&written(&rest, &mut rng));
        assert_eq!(s.value(&format!("delete(p{x}, {set})")), want, "{ctx}");
        let other: BTreeSet<u64> = (0..rng.below(6)).map(|_| rng.below(8)).collect();
        let other_elems: Vec<String> = other.iter().map(|x| format!("p{x}")).collect();
        let other_set = written(&other_elems, &mut rng);
        let both: Vec<String> = model
            .intersection(&other)
            .map(|y| format!("p{y}"))
            .collect();
        let want = s.value(&written(&both, &mut rng));
        assert_eq!(
            s.value(&format!("intersection({set}, {other_set})")),
            want,
            "{ctx}, {other_set}"
        );
    }
    // A single element is a set of one: `x, empty`.
    assert_eq!(s.show("p3 in p3"), "true");
    assert_eq!(s.show("p3 in p4"), "false");
    assert_eq!(s.show("| p3 |"), "1");
    assert_eq!(s.show("delete(p3, p3)"), "empty");
    assert_eq!(s.show("delete(p4, p3)"), "p3");
}

/// A set holding a stuck term of sort `Set{Nat}` (`foo(k)`, no equation): the built-ins
/// decline where the equations' variables would not match it, and the answers and errors
/// are the equations'.
#[test]
fn where_an_element_is_not_an_element_sort_the_equations_decide() {
    let mut s = Sets::new("T");
    assert_eq!(s.show("1 in (1, foo(2))"), "true");
    assert_eq!(s.show("5 in (1, foo(2))"), "false");
    assert_eq!(s.show("delete(1, (1, foo(2)))"), "foo(2)");
    assert_eq!(s.show("delete(5, (1, foo(2)))"), "1, foo(2)");
    // A stuck term in both sets is not an element the equations would take.
    assert_eq!(s.show("intersection((1, foo(2)), (1, 3, foo(2)))"), "1");
    assert_eq!(s.show("intersection'((1, foo(2)), (1, 3, foo(2)))"), "1");
    // (`foo(1)` is not a `Nat`, so neither equation of `_in_` or `delete` takes it.)
    for text in [
        "| 1, foo(2) |",
        "size'((1, foo(2)))",
        "foo(1) in (1, foo(1))",
        "delete(foo(1), (1, foo(1)))",
    ] {
        let (v, _) = s.eval(text);
        match v {
            Err(RuntimeError::Stuck { reason, .. }) => assert!(
                reason.contains("no equation"),
                "{text}: the equations' reason, not a built-in's: {reason}"
            ),
            other => panic!("{text}: stuck expected, got {other:?}"),
        }
    }
}
