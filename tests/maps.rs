//! The standard library's finite maps (`MAP{K, V}` and `MAP-SETS{K, V}` in stdlib/map.game,
//! computed on `imbl`-backed map terms by runtime/src/term/map.rs) against
//! `std::collections::BTreeMap`, on random sequences of operations:
//!
//! * after every step the map prints as the model's entries in key order, parses back to
//!   the same term, and is the *same term* (hash-consing) as the model's entries joined by
//!   `&` in a shuffled order;
//! * `lookup`, `in-dom`, `in-ran`, `only`, `size`, `dom` and `ran` agree with the model;
//! * garbage collections in between, with only some maps kept as roots, keep those maps
//!   intact (their keys and values are alive through the map) and free the rest.

mod support;

use gamelang_lang::elab::Session;
use gamelang_runtime::{Engine, TermId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use support::Rng;

type Model = BTreeMap<i64, i64>;

/// Keys are players (constants, so keys are applications, not literals) and values numbers.
const SRC: &str = "fmod T is
  sort P .
  ops p0 p1 p2 p3 p4 p5 p6 p7 p8 p9 : -> P [ctor] .
  protecting MAP-SETS{P, Nat} .
endfm
";
const KEYS: i64 = 10;
const VALUES: i64 = 4;

struct Maps {
    session: Session,
    engine: Engine,
}

impl Maps {
    fn new() -> Maps {
        let mut session = Session::new().expect("stdlib");
        if let Err(e) = session.load_source("maps.game", SRC) {
            panic!(
                "{}",
                gamelang_lang::diag::render_all(&e, &session.sources, false)
            );
        }
        let engine = Engine::new(Arc::new(session.program.clone()));
        Maps { session, engine }
    }

    fn eval(&mut self, text: &str) -> TermId {
        let m = self.session.module_by_name("T").expect("module T");
        let pat = self
            .session
            .parse_term(m, "test", text, None)
            .unwrap_or_else(|d| panic!("{text}: {}", d.render(&self.session.sources, false)));
        let t = self.engine.build(&pat, &[]);
        self.engine
            .reduce(t)
            .unwrap_or_else(|e| panic!("{text}: {}", self.engine.describe(&e)))
    }

    fn show(&self, t: TermId) -> String {
        self.engine.show(t)
    }
}

/// The model as the language prints it: entries in key order joined by `&`.
fn text(m: &Model) -> String {
    if m.is_empty() {
        return "nomap".into();
    }
    m.iter()
        .map(|(k, v)| format!("p{k} |-> {v}"))
        .collect::<Vec<_>>()
        .join(" & ")
}

/// The model's entries in a random order, each parenthesised, joined by `&`.
fn shuffled(m: &Model, rng: &mut Rng) -> String {
    let mut e: Vec<(i64, i64)> = m.iter().map(|(k, v)| (*k, *v)).collect();
    for i in (1..e.len()).rev() {
        e.swap(i, rng.below(i as u64 + 1) as usize);
    }
    if e.is_empty() {
        return "nomap".into();
    }
    e.iter()
        .map(|(k, v)| format!("(p{k} |-> {v})"))
        .collect::<Vec<_>>()
        .join(" & ")
}

fn set_text(s: &BTreeSet<String>) -> String {
    if s.is_empty() {
        "empty".into()
    } else {
        s.iter().cloned().collect::<Vec<_>>().join(", ")
    }
}

/// Check `t` against the model in every way the language can observe it.
fn check(maps: &mut Maps, t: TermId, model: &Model, rng: &mut Rng) {
    let want = text(model);
    assert_eq!(maps.show(t), want);
    let mt = format!("({want})");
    assert_eq!(maps.eval(&want), t, "{want} read back");
    let sh = shuffled(model, rng);
    assert_eq!(maps.eval(&sh), t, "{sh} is not the same term as {want}");
    let size = maps.eval(&format!("size{mt}"));
    assert_eq!(maps.show(size), model.len().to_string());
    for k in 0..KEYS {
        let dom = maps.eval(&format!("p{k} in-dom {mt}"));
        assert_eq!(
            maps.show(dom),
            model.contains_key(&k).to_string(),
            "p{k} in {want}"
        );
        if let Some(v) = model.get(&k) {
            let got = maps.eval(&format!("lookup(p{k}, {mt})"));
            assert_eq!(maps.show(got), v.to_string(), "lookup(p{k}, {want})");
        }
    }
    for v in 0..VALUES {
        let ran = maps.eval(&format!("{v} in-ran {mt}"));
        let has = model.values().any(|w| *w == v);
        assert_eq!(maps.show(ran), has.to_string());
        let only = maps.eval(&format!("only({v}, {mt})"));
        let all = !model.is_empty() && model.values().all(|w| *w == v);
        assert_eq!(maps.show(only), all.to_string(), "only({v}, {want})");
    }
    // Sets print with their elements in structural order: constants by declaration
    // (p0 … p9), numbers by value — which is the order of the strings here.
    let dom: BTreeSet<String> = model.keys().map(|k| format!("p{k}")).collect();
    let got = maps.eval(&format!("dom{mt}"));
    assert_eq!(maps.show(got), set_text(&dom));
    let ran: BTreeSet<String> = model.values().map(|v| v.to_string()).collect();
    let got = maps.eval(&format!("ran{mt}"));
    assert_eq!(maps.show(got), set_text(&ran));
}

/// One random operation on `(t, model)`: the new map and its model.
fn step(maps: &mut Maps, t: TermId, model: &Model, rng: &mut Rng) -> (TermId, Model) {
    let mut m = model.clone();
    let cur = format!("({})", maps.show(t));
    let k = rng.below(KEYS as u64) as i64;
    let v = rng.below(VALUES as u64) as i64;
    let src = match rng.below(6) {
        0 => {
            m.insert(k, v);
            format!("insert(p{k}, {v}, {cur})")
        }
        1 => {
            m.insert(k, v);
            format!("{cur} <+ (p{k} |-> {v})")
        }
        2 => {
            m.remove(&k);
            format!("remove(p{k}, {cur})")
        }
        3 => {
            // Override by a random map of up to three entries.
            let mut other = Model::new();
            for _ in 0..rng.below(4) {
                other.insert(
                    rng.below(KEYS as u64) as i64,
                    rng.below(VALUES as u64) as i64,
                );
            }
            m.extend(other.iter());
            format!("{cur} <+ ({})", text(&other))
        }
        4 => {
            // Union with a map that agrees with this one where both have a key.
            let mut other = Model::new();
            for _ in 0..rng.below(4) {
                let k = rng.below(KEYS as u64) as i64;
                let v = model
                    .get(&k)
                    .copied()
                    .unwrap_or(rng.below(VALUES as u64) as i64);
                other.insert(k, v);
            }
            m.extend(other.iter());
            format!("{cur} & ({})", text(&other))
        }
        _ => {
            // A map overridden by itself is itself.
            format!("{cur} <+ {cur}")
        }
    };
    (maps.eval(&src), m)
}

#[test]
fn map_operations_agree_with_a_btreemap() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut maps = Maps::new();
    for _ in 0..20 {
        let mut model = Model::new();
        let mut t = maps.eval("nomap");
        for _ in 0..40 {
            (t, model) = step(&mut maps, t, &model, &mut rng);
            check(&mut maps, t, &model, &mut rng);
        }
    }
}

#[test]
fn disagreeing_union_and_missing_key_are_errors() {
    let mut maps = Maps::new();
    let m = maps.session.module_by_name("T").expect("module T");
    for (src, op) in [
        ("(p1 |-> 0 & p2 |-> 1) & (p2 |-> 3)", "_&_"),
        ("lookup(p3, p1 |-> 0 & p2 |-> 1)", "lookup"),
    ] {
        let pat = maps
            .session
            .parse_term(m, "test", src, None)
            .expect("parses");
        let t = maps.engine.build(&pat, &[]);
        let err = maps.engine.reduce(t).expect_err(src);
        let msg = maps.engine.describe(&err);
        assert!(
            msg.contains(&format!("no equation of `{op}` applies")),
            "{msg}"
        );
    }
}

#[test]
fn collections_keep_the_maps_that_are_roots_and_free_the_rest() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut maps = Maps::new();
    // Live maps and their models: the map terms themselves must survive (and still be
    // found by hash-consing afterwards); every other map built is garbage.
    let mut live: Vec<(TermId, Model)> = Vec::new();
    let mut collected = 0;
    for round in 0..30 {
        let mut model = Model::new();
        let mut t = maps.eval("nomap");
        for _ in 0..25 {
            (t, model) = step(&mut maps, t, &model, &mut rng);
        }
        live.push((t, model));
        if live.len() > 4 {
            live.remove(rng.below(live.len() as u64) as usize);
        }
        if round % 3 == 2 {
            let roots: Vec<TermId> = live.iter().map(|(t, _)| *t).collect();
            let before = maps.engine.store().len();
            collected += maps.engine.collect_garbage(&roots);
            assert!(maps.engine.store().len() <= before);
            for (t, model) in live.clone() {
                check(&mut maps, t, &model, &mut rng);
            }
        }
    }
    assert!(collected > 0, "the collections freed nothing");
    // With no map a root, a collection releases every map's own memory (the sweep leaves
    // other dead terms' data in their slots, but drops maps at once).
    assert!(maps.engine.store().segment_elements() > 0);
    maps.engine.collect_garbage(&[]);
    assert_eq!(maps.engine.store().segment_elements(), 0);
}

#[test]
fn big_map_values_survive_collection_through_the_map() {
    // Values far outside the small-literal range are ordinary terms, alive only because a
    // live map holds them: a collection that did not trace into maps would free them and
    // the map would print garbage (or the id would be reused by another number).
    let mut maps = Maps::new();
    let big = 1_000_000_007i64;
    let mut model = Model::new();
    let mut t = maps.eval("nomap");
    for k in 0..KEYS {
        let v = big + k * 1_000;
        model.insert(k, v);
        t = maps.eval(&format!("({}) <+ (p{k} |-> {v})", maps.show(t)));
    }
    maps.engine.collect_garbage(&[t]);
    // Build many other numbers: freed ids would be reused for them.
    for i in 0..200 {
        maps.eval(&format!("{} + 1", big * 3 + i));
    }
    assert_eq!(maps.show(t), text(&model));
    let mut rng = Rng(7);
    check(&mut maps, t, &model, &mut rng);
}

/// A map built-in applied to something that is not a map (here a constant no equation
/// defines) is stuck with a message about maps, not about integers.
#[test]
fn a_map_builtin_on_a_non_map_says_it_needs_a_map() {
    let mut session = Session::new().expect("stdlib");
    let src = "fmod U is\n  sort P .\n  ops p0 p1 : -> P [ctor] .\n  protecting MAP{P, Nat} .\n  \
               op later : -> Map{P, Nat} .\nendfm\n";
    session.load_source("u.game", src).expect("loads");
    let m = session.module_by_name("U").expect("module U");
    let pat = session
        .parse_term(m, "test", "size(later <+ (p0 |-> 1))", None)
        .expect("parses");
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let t = engine.build(&pat, &[]);
    let err = engine.reduce(t).expect_err("stuck");
    let msg = engine.describe(&err);
    assert!(
        msg.contains("needs values for its arguments (maps"),
        "{msg}"
    );
    assert!(!msg.contains("integer literal"), "{msg}");
}

#[test]
fn shared_memo_tables_tell_maps_apart_and_carry_them() {
    // Engines on other threads share memo tables through a portable encoding of terms: two
    // different maps must not be one key, and a map published as a value must arrive whole.
    let src = "fmod T is
  sort P .
  ops p0 p1 p2 : -> P [ctor] .
  protecting MAP{P, Nat} .
  op f : Map{P, Nat} -> Nat [memo] .
  op g : Nat -> Map{P, Nat} [memo] .
  var M : Map{P, Nat} .
  var n : Nat .
  eq f(M) = size(M) * 100 + lookup(p0, M) .
  eq g(n) = (p0 |-> n) & (p1 |-> n + 1) .
endfm
";
    let mut session = Session::new().expect("stdlib");
    session.load_source("shared.game", src).expect("loads");
    let m = session.module_by_name("T").expect("module T");
    let mut engines = support::engines_sharing_memo(&session.program, 2);
    let mut eval = |engines: &mut Vec<Engine>, e: usize, text: &str| {
        let pat = session.parse_term(m, "test", text, None).expect("parses");
        let engine = &mut engines[e];
        let t = engine.build(&pat, &[]);
        let v = engine.reduce(t).expect("reduces");
        engine.show(v)
    };
    assert_eq!(eval(&mut engines, 0, "f((p0 |-> 1) & (p1 |-> 2))"), "201");
    // Another map of the same size: a different key, computed, not taken from engine 0.
    assert_eq!(eval(&mut engines, 1, "f((p0 |-> 5) & (p2 |-> 2))"), "205");
    assert_eq!(
        eval(&mut engines, 1, "f((p0 |-> 1) & (p1 |-> 2) & (p2 |-> 0))"),
        "301"
    );
    assert_eq!(eval(&mut engines, 0, "g(4)"), "p0 |-> 4 & p1 |-> 5");
    let hits_before = engines[1].shared_stats().hits;
    assert_eq!(eval(&mut engines, 1, "g(4)"), "p0 |-> 4 & p1 |-> 5");
    assert_eq!(eval(&mut engines, 1, "f((p0 |-> 1) & (p1 |-> 2))"), "201");
    assert!(
        engines[1].shared_stats().hits >= hits_before + 2,
        "the map value and the map key came from engine 0"
    );
}
