//! Long associative-commutative terms (sets kept as views of shared segments), garbage
//! collection of the term store, and memo tables shared between engines.

mod common;
use common::*;
use gamelang_runtime::engine::SharedMemo;
use gamelang_runtime::{Engine, TermId};

/// Sets of naturals with the usual set functions, and a memoised game-like function.
fn spec() -> Spec {
    let mut s = Spec::new();
    s.set_of("Nat", "Set");
    // upto(n) = 0, 1, ..., n - 1, built from the largest element down (appends).
    s.op("upto", &["Nat"], "Set", "");
    s.eq("", "[upto 0]", "empty");
    s.ceq(
        "n:Nat",
        "[upto n]",
        "[_,_ [_-_ n 1] [upto [_-_ n 1]]]",
        "[_>_ n 0]",
    );
    // from(i, n) = i, i + 1, ..., n - 1, built from the smallest element up (prepends).
    s.op("from", &["Nat", "Nat"], "Set", "");
    s.ceq(
        "i:Nat n:Nat",
        "[from i n]",
        "[_,_ i [from [_+_ i 1] n]]",
        "[_<_ i n]",
    );
    s.owise("i:Nat n:Nat", "[from i n]", "empty");
    // size by peeling one element at a time.
    s.op("size", &["Set"], "Nat", "");
    s.eq("", "[size empty]", "0");
    s.eq("c:Nat S:Set", "[size [_,_ c S]]", "[_+_ 1 [size S]]");
    // sum of the even elements: the peeled element's condition fails half the time.
    s.op("evens", &["Set"], "Nat", "");
    s.eq("", "[evens empty]", "0");
    s.ceq(
        "c:Nat S:Set",
        "[evens [_,_ c S]]",
        "[_+_ c [evens S]]",
        "[_==_ [_rem_ c 2] 0]",
    );
    s.owise("c:Nat S:Set", "[evens [_,_ c S]]", "[evens S]");
    // A memoised function: f(n) = number of x < n with f(x) even, plus 1.
    s.op("f", &["Nat"], "Nat", "memo");
    s.op("count", &["Set"], "Nat", "");
    s.eq("n:Nat", "[f n]", "[_+_ 1 [count [upto n]]]");
    s.eq("", "[count empty]", "0");
    s.eq(
        "c:Nat S:Set",
        "[count [_,_ c S]]",
        "[_+_ [if_then_else_fi [_==_ [_rem_ [f c] 2] 0] 1 0] [count S]]",
    );
    s
}

fn elements(e: &Engine, s: &Spec, t: TermId) -> Vec<String> {
    e.elements(t, s.id("_,_"))
        .into_iter()
        .map(|x| e.show(x))
        .collect()
}

#[test]
fn long_sets_are_canonical_whichever_way_they_are_built() {
    let s = spec();
    let mut e = s.engine();
    for n in [0usize, 1, 5, 8, 9, 10, 50, 300] {
        let a = term(&s, &mut e, &format!("[upto {n}]"));
        let a = e.reduce(a).unwrap();
        let b = term(&s, &mut e, &format!("[from 0 {n}]"));
        let b = e.reduce(b).unwrap();
        assert_eq!(a, b, "upto({n}) and from(0, {n}) differ");
        let want: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        assert_eq!(elements(&e, &s, a), want);
        // Rebuilding gives the same id again.
        let c = term(&s, &mut e, &format!("[from 0 {n}]"));
        assert_eq!(e.reduce(c).unwrap(), a);
    }
    // Unions of long sets, with duplicates (idem) and in the middle.
    let t = term(&s, &mut e, "[_,_ [upto 40] [from 20 60] 25 100]");
    let v = e.reduce(t).unwrap();
    let mut want: Vec<String> = (0..60).map(|i| i.to_string()).collect();
    want.push("100".into());
    assert_eq!(elements(&e, &s, v), want);
    let t = term(&s, &mut e, "[from 0 61]");
    let w = e.reduce(t).unwrap();
    let t = term(&s, &mut e, "[_,_ 60 [upto 60]]");
    assert_eq!(e.reduce(t).unwrap(), w);
    assert_eq!(red(&s, &mut e, "[_==_ [upto 61] [from 0 61]]"), "true");
    assert_eq!(red(&s, &mut e, "[_==_ [upto 61] [from 1 61]]"), "false");
}

#[test]
fn peeling_and_middle_matches_on_long_sets() {
    let s = spec();
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[size [upto 1000]]"), "1000");
    assert_eq!(red(&s, &mut e, "[size [from 3 12]]"), "9");
    // evens: the first element fails the condition for odd ones, so matching continues
    // with later elements (not only the first or the last).
    let want: i64 = (0..200).filter(|x| x % 2 == 0).sum();
    assert_eq!(red(&s, &mut e, "[evens [upto 200]]"), want.to_string());
    assert_eq!(
        red(&s, &mut e, "[evens [from 1 30]]"),
        ((2..30).step_by(2).sum::<i64>()).to_string()
    );
}

#[test]
fn garbage_collection_keeps_memo_results_and_frees_the_rest() {
    let s = spec();
    let mut e = s.engine();
    let before = red(&s, &mut e, "[f 120]");
    let live = e.store().len();
    let freed = e.collect_garbage(&[]);
    assert!(freed > 0, "nothing freed out of {live}");
    assert!(e.store().len() < live);
    // Memoised results survive and new work reuses freed ids correctly.
    assert_eq!(red(&s, &mut e, "[f 120]"), before);
    assert_eq!(red(&s, &mut e, "[size [upto 500]]"), "500");
    e.collect_garbage(&[]);
    assert_eq!(red(&s, &mut e, "[f 150]"), {
        let mut fresh = s.engine();
        red(&s, &mut fresh, "[f 150]")
    });
    // A root named by the caller stays valid.
    let t = term(&s, &mut e, "[upto 30]");
    let v = e.reduce(t).unwrap();
    e.collect_garbage(&[v]);
    assert_eq!(elements(&e, &s, v).len(), 30);
    assert_eq!(e.show(v), {
        let mut fresh = s.engine();
        let t = term(&s, &mut fresh, "[upto 30]");
        let v = fresh.reduce(t).unwrap();
        fresh.show(v)
    });
}

#[test]
fn shared_memo_gives_the_same_results_and_saves_work() {
    let s = spec();
    let shared = SharedMemo::new();
    let mut a = s.engine();
    let mut b = s.engine();
    a.share_memo(shared.clone());
    b.share_memo(shared.clone());
    let ra = red(&s, &mut a, "[f 80]");
    let steps_before = b.steps();
    let rb = red(&s, &mut b, "[f 80]");
    assert_eq!(ra, rb);
    let mut alone = s.engine();
    assert_eq!(red(&s, &mut alone, "[f 80]"), ra);
    // b found f(80) published by a: almost no work.
    assert!(
        b.steps() - steps_before < 10,
        "{} steps",
        b.steps() - steps_before
    );
    assert!(b.shared_stats().hits >= 1);
    assert!(!shared.is_empty());
}

/// One element at a time into the middle of long sets and multisets (`assoc comm` with and
/// without `idem`): each step's elements are the sorted list computed here, and the final
/// term is the one built from all the elements at once (canonical, so the same id).
#[test]
fn inserting_into_the_middle_of_long_lists_keeps_them_canonical() {
    let mut s = spec();
    s.op("none", &[], "Bag", "ctor");
    s.subsort("Nat", "Bag");
    s.op("_;_", &["Bag", "Bag"], "Bag", "ctor assoc comm id:none");
    let mut e = s.engine();
    for (op, idem) in [(s.id("_,_"), true), (s.id("_;_"), false)] {
        let empty = if idem {
            e.mk_app(s.id("empty"), &[])
        } else {
            e.mk_app(s.id("none"), &[])
        };
        let mut t = empty;
        let mut want: Vec<i64> = Vec::new();
        let mut all: Vec<TermId> = Vec::new();
        let mut r: u64 = 12345;
        for _ in 0..400 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = ((r >> 33) % 150) as i64;
            let xt = e.mk_int(x);
            all.push(xt);
            // Sometimes two at once, on either side.
            t = if r & 1 == 0 {
                e.mk_app(op, &[xt, t])
            } else {
                e.mk_app(op, &[t, xt])
            };
            if !(idem && want.contains(&x)) {
                want.push(x);
            }
            want.sort_unstable();
            let got: Vec<i64> = e
                .elements(t, op)
                .into_iter()
                .map(|a| e.show(a).parse().unwrap())
                .collect();
            assert_eq!(got, want, "idem = {idem}, after inserting {x}");
        }
        all.reverse();
        let mut at_once = empty;
        for chunk in all.chunks(7) {
            let mut args = chunk.to_vec();
            args.push(at_once);
            at_once = e.mk_app(op, &args);
        }
        assert_eq!(at_once, t, "idem = {idem}");
    }
}

/// The set of the integers `xs`, built from scratch one element at a time from the
/// largest down (every step an insertion below the smallest: no middle removal involved).
fn set_of_ints(e: &mut Engine, s: &Spec, xs: &[i64]) -> TermId {
    let mut sorted = xs.to_vec();
    sorted.sort_unstable();
    let mut t = e.mk_app(s.id("empty"), &[]);
    for &x in sorted.iter().rev() {
        let xt = e.mk_int(x);
        t = e.mk_app(s.id("_,_"), &[xt, t]);
    }
    t
}

#[test]
fn removing_from_the_middle_of_long_sets_keeps_them_canonical() {
    let mut s = spec();
    // mv(S): every element c with c rem 3 == 1 (below 1000) moved to c + 1000. The first
    // element (0, a multiple of 3) refuses the condition, so each match takes an element
    // from the middle of the set (`TermStore::without`), and c + 1000 goes after the
    // largest element.
    s.op("mv", &["Set"], "Set", "");
    s.ceq(
        "c:Nat S:Set",
        "[mv [_,_ c S]]",
        "[_,_ [_+_ c 1000] [mv S]]",
        "[_and_ [_==_ [_rem_ c 3] 1] [_<_ c 1000]]",
    );
    s.owise("S:Set", "[mv S]", "S");
    // tail((c, S)) = S: the first element off, a view of the same segment.
    s.op("tail", &["Set"], "Set", "");
    s.eq("c:Nat S:Set", "[tail [_,_ c S]]", "S");
    let mut e = s.engine();
    for n in [9i64, 10, 11, 12, 13, 40, 300] {
        let moved: Vec<i64> = (0..n)
            .map(|c| if c % 3 == 1 { c + 1000 } else { c })
            .collect();
        let t = term(&s, &mut e, &format!("[mv [upto {n}]]"));
        let mut got = e.reduce(t).unwrap();
        let mut want = moved.clone();
        want.sort_unstable();
        // Every suffix: the result's hash (summed from the pieces it was made of) and the
        // prefix sums of the segment it was copied into (which its views' hashes come
        // from) must agree with a set built from scratch.
        while want.len() > 1 {
            let shown: Vec<String> = want.iter().map(|x| x.to_string()).collect();
            assert_eq!(elements(&e, &s, got), shown, "n = {n}");
            let fresh = set_of_ints(&mut e, &s, &want);
            assert_eq!(got, fresh, "n = {n}, {} elements left", want.len());
            let t = e.mk_app(s.id("tail"), &[got]);
            got = e.reduce(t).unwrap();
            want.remove(0);
        }
    }
    // A set built without one element, with that element put into its middle, is the set
    // itself.
    for n in [10i64, 50] {
        let all: Vec<i64> = (0..n).collect();
        let whole = set_of_ints(&mut e, &s, &all);
        for x in [1, n / 2, n - 2] {
            let rest: Vec<i64> = all.iter().copied().filter(|&y| y != x).collect();
            let without = set_of_ints(&mut e, &s, &rest);
            let xt = e.mk_int(x);
            assert_eq!(
                e.mk_app(s.id("_,_"), &[without, xt]),
                whole,
                "n = {n}, x = {x}"
            );
        }
    }
}

/// Sets and multisets of several hundred elements (past the size where a list with an
/// element removed from or added to its middle is kept in shared chunks), changed at
/// random places, at either end and in the middle: after every change the elements equal
/// a model kept in the test, the term equals the same list built from scratch (one id for
/// one value, whichever way each was built), and a garbage collection keeps the lists the
/// test holds intact and findable.
#[test]
fn large_lists_changed_anywhere_stay_canonical() {
    let mut s = spec();
    s.op("none", &[], "Bag", "ctor");
    s.subsort("Nat", "Bag");
    s.op("_;_", &["Bag", "Bag"], "Bag", "ctor assoc comm id:none");
    // drop((c, S), c) = S: the rest of a match of any element (`TermStore::without`).
    s.op("drop", &["Set", "Nat"], "Set", "");
    s.eq("c:Nat S:Set", "[drop [_,_ c S] c]", "S");
    s.op("dropb", &["Bag", "Nat"], "Bag", "");
    s.eq("c:Nat B:Bag", "[dropb [_;_ c B] c]", "B");
    // tail((c, S)) = S: the first element off, with no other element tried first.
    s.op("tail", &["Set"], "Set", "");
    s.eq("c:Nat S:Set", "[tail [_,_ c S]]", "S");
    s.op("tailb", &["Bag"], "Bag", "");
    s.eq("c:Nat B:Bag", "[tailb [_;_ c B]]", "B");
    let mut e = s.engine();
    for (op, drop, tail, idem) in [
        ("_,_", "drop", "tail", true),
        ("_;_", "dropb", "tailb", false),
    ] {
        let (op, drop, tail) = (s.id(op), s.id(drop), s.id(tail));
        let empty = e.mk_app(s.id(if idem { "empty" } else { "none" }), &[]);
        // Numbers past the small integers a collection always keeps, so that the lists
        // alone keep their elements alive.
        const BIG: i64 = 1 << 20;
        let build = |e: &mut Engine, xs: &[i64]| {
            // From scratch: one element at a time from the largest down.
            let mut t = empty;
            for &x in xs.iter().rev() {
                let xt = e.mk_int(BIG + x);
                t = e.mk_app(op, &[xt, t]);
            }
            t
        };
        let mut model: Vec<i64> = (0..600).map(|i| 2 * i).collect();
        let mut t = build(&mut e, &model);
        let mut r: u64 = 99;
        for step in 0..1500 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = (r >> 33) as usize;
            if r & 3 != 0 && model.len() > 300 {
                // Remove an element: an end a third of the time, else anywhere.
                let i = match pick % 6 {
                    0 => 0,
                    1 => model.len() - 1,
                    _ => pick % model.len(),
                };
                let x = model.remove(i);
                let xt = e.mk_int(BIG + x);
                let call = e.mk_app(drop, &[t, xt]);
                t = e.reduce(call).unwrap();
            } else {
                // Insert a number (maybe one already there).
                let x = (pick % 1300) as i64;
                let at = model.partition_point(|&y| y < x);
                if !(idem && model.get(at) == Some(&x)) {
                    model.insert(at, x);
                }
                let xt = e.mk_int(BIG + x);
                t = e.mk_app(op, &[t, xt]);
            }
            let got: Vec<i64> = e
                .elements(t, op)
                .into_iter()
                .map(|a| e.show(a).parse::<i64>().unwrap() - BIG)
                .collect();
            assert_eq!(got, model, "idem = {idem}, step {step}");
            if step % 100 == 0 {
                e.collect_garbage(&[t]);
                assert_eq!(build(&mut e, &model), t, "idem = {idem}, step {step}");
            }
        }
        // Changes in the middle (which make a list in chunks), then long runs of peels of
        // the first element (a list in chunks peeled often enough becomes a segment view),
        // and again, each step checked as above.
        for (round, &(peels, at_front)) in [(3, false), (40, true), (3, false), (40, true)]
            .iter()
            .enumerate()
        {
            for k in 0..peels {
                let call = if at_front {
                    model.remove(0);
                    e.mk_app(tail, &[t])
                } else {
                    let x = model.remove(model.len() / 3);
                    let xt = e.mk_int(BIG + x);
                    e.mk_app(drop, &[t, xt])
                };
                t = e.reduce(call).unwrap();
                let got: Vec<i64> = e
                    .elements(t, op)
                    .into_iter()
                    .map(|a| e.show(a).parse::<i64>().unwrap() - BIG)
                    .collect();
                assert_eq!(got, model, "idem = {idem}, peels round {round}, peel {k}");
            }

            let x = model[model.len() / 2] + 1;
            let at = model.partition_point(|&y| y < x);
            if !(idem && model.get(at) == Some(&x)) {
                model.insert(at, x);
            }
            let xt = e.mk_int(BIG + x);
            t = e.mk_app(op, &[t, xt]);
        }
        // Only now: building a list from scratch makes the rests of the peels of its first
        // elements, which later peels would find instead of making them.
        assert_eq!(build(&mut e, &model), t, "idem = {idem}, at the end");
    }
}

/// `del((c, S), c) = S` written with the list first: the second argument binds `c` before
/// the list is matched, so the element is found by one search and one rest is built, not
/// one rest per element tried before it (which made deleting from a set of n elements
/// cost n rests, each a copy of the set). The result is checked against a model, and the
/// terms the reduction made are counted: a handful, not hundreds.
#[test]
fn a_bound_element_is_removed_without_building_a_rest_per_element() {
    let mut s = spec();
    s.op("del", &["Set", "Nat"], "Set", "");
    s.eq("c:Nat S:Set", "[del [_,_ c S] c]", "S");
    let mut e = s.engine();
    let whole = term(&s, &mut e, "[upto 600]");
    let whole = e.reduce(whole).unwrap();
    for x in [1i64, 299, 300, 598] {
        let xt = e.mk_int(x);
        let call = e.mk_app(s.id("del"), &[whole, xt]);
        let before = e.store().len();
        let rest = e.reduce(call).unwrap();
        let made = e.store().len() - before;
        let want: Vec<String> = (0..600)
            .filter(|&y| y != x)
            .map(|y| y.to_string())
            .collect();
        assert_eq!(elements(&e, &s, rest), want, "del {x}");
        assert!(made <= 4, "del {x} made {made} terms");
    }
}

/// Lists of naturals as Maude's `LIST`: `__` `assoc` with identity `nil`, not `comm`.
fn nat_lists() -> Spec {
    let mut s = Spec::new();
    s.sort("List");
    s.subsort("Nat", "List");
    s.op("nil", &[], "List", "ctor");
    s.op("__", &["List", "List"], "List", "ctor assoc id:nil");
    s
}

/// Long `assoc` lists (not `comm`) are views of shared segments too, hashed by an
/// order-dependent sum: built one element at a time at either end, with elements at both
/// ends at once, by concatenation, or as the rests and segments of matches (`Q L`, `L Q`,
/// `L Q L'`), a list is the same term as the list built at once from its elements
/// (checked against a model `Vec` after every change, and after collections); and a list
/// is never the same term as a permutation of it.
#[test]
fn long_assoc_lists_are_canonical_whichever_way_they_are_built() {
    let mut s = nat_lists();
    // tail(Q L) = L, init(L Q) = L, del(L Q L', Q) = L L' (the first Q): rests and
    // segments of matches.
    s.op("tail", &["List"], "List", "");
    s.eq("q:Nat L:List", "[tail [__ q L]]", "L");
    s.op("init", &["List"], "List", "");
    s.eq("q:Nat L:List", "[init [__ L q]]", "L");
    s.op("del", &["List", "Nat"], "List", "");
    s.eq("q:Nat L:List M:List", "[del [__ L q M] q]", "[__ L M]");
    let mut e = s.engine();
    let op = s.id("__");
    let nil = e.mk_app(s.id("nil"), &[]);
    const BIG: i64 = 1 << 20;
    let at_once = |e: &mut Engine, xs: &[i64]| {
        let elems: Vec<TermId> = xs.iter().map(|&x| e.mk_int(BIG + x)).collect();
        match elems.len() {
            0 => nil,
            _ => e.mk_app(op, &elems),
        }
    };
    let read = |e: &Engine, t: TermId| -> Vec<i64> {
        e.elements(t, op)
            .into_iter()
            .map(|a| e.show(a).parse::<i64>().unwrap() - BIG)
            .collect()
    };
    let mut model: Vec<i64> = (0..40).collect();
    let mut t = at_once(&mut e, &model);
    let mut r: u64 = 17;
    let mut kind = 0;
    for step in 0..3000 {
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let pick = (r >> 33) as usize;
        let x = (pick % 50) as i64;
        let y = x + 1 + (r >> 50) as i64 % 3;
        let xt = e.mk_int(BIG + x);
        // Runs of one kind of change (so that a list grows or shrinks where an earlier
        // change of the same kind left room or a view), a new kind a quarter of the time.
        if r >> 62 == 0 {
            kind = (r >> 40) % 10;
        }
        let grow = model.len() < 20 || (model.len() < 400 && kind < 5);
        t = match (grow, kind % 5) {
            (true, 0) => {
                model.insert(0, x);
                e.mk_app(op, &[xt, t])
            }
            (true, 1) => {
                model.push(x);
                e.mk_app(op, &[t, xt])
            }
            (true, 2) => {
                model.insert(0, x);
                model.push(y);
                let yt = e.mk_int(BIG + y);
                e.mk_app(op, &[xt, t, yt])
            }
            (true, 3) => {
                // Two elements at one end.
                let yt = e.mk_int(BIG + y);
                if r >> 61 & 1 == 0 {
                    model.splice(0..0, [x, y]);
                    e.mk_app(op, &[xt, yt, t])
                } else {
                    model.extend([x, y]);
                    e.mk_app(op, &[t, xt, yt])
                }
            }
            (true, _) => {
                // The list followed by a part of itself (two long lists, or one).
                let k = pick % model.len();
                let part = model[k..].to_vec();
                let pt = at_once(&mut e, &part);
                model.extend_from_slice(&part);
                e.mk_app(op, &[t, pt])
            }
            (false, 0) | (false, 1) => {
                model.remove(0);
                let call = e.mk_app(s.id("tail"), &[t]);
                e.reduce(call).unwrap()
            }
            (false, 2) => {
                model.pop();
                let call = e.mk_app(s.id("init"), &[t]);
                e.reduce(call).unwrap()
            }
            (false, _) => {
                let q = model[pick % model.len()];
                let i = model.iter().position(|&y| y == q).unwrap();
                model.remove(i);
                let qt = e.mk_int(BIG + q);
                let call = e.mk_app(s.id("del"), &[t, qt]);
                e.reduce(call).unwrap()
            }
        };
        assert_eq!(read(&e, t), model, "step {step}");
        assert_eq!(
            at_once(&mut e, &model),
            t,
            "step {step}: not the list built at once"
        );
        if step % 200 == 0 {
            e.collect_garbage(&[t]);
            assert_eq!(
                at_once(&mut e, &model),
                t,
                "step {step}, after a collection"
            );
        }
        if step % 50 == 0 {
            // A permutation (the list turned around, or its ends swapped) is another term.
            let mut other = model.clone();
            other.reverse();
            if other != model {
                assert_ne!(at_once(&mut e, &other), t, "step {step}: reversed");
            }
            let mut other = model.clone();
            let n = other.len();
            other.swap(0, n - 1);
            if other != model {
                assert_ne!(at_once(&mut e, &other), t, "step {step}: ends swapped");
            }
        }
    }
}

/// Walking a long `assoc` list from either end (`len(q L) = 1 + len(L)`,
/// `lenr(L q) = lenr(L) + 1`, each level holding its rest) shares the list: the rests are
/// views of its segment, so the walk stores no element again. Copied, the rests of a list
/// of 3,000 were 4.5 million elements.
#[test]
fn walking_a_long_assoc_list_shares_its_segment() {
    let mut s = nat_lists();
    s.op("len", &["List"], "Nat", "");
    s.eq("", "[len nil]", "0");
    s.eq("q:Nat L:List", "[len [__ q L]]", "[_+_ 1 [len L]]");
    s.op("lenr", &["List"], "Nat", "");
    s.eq("", "[lenr nil]", "0");
    s.eq("q:Nat L:List", "[lenr [__ L q]]", "[_+_ [lenr L] 1]");
    let mut e = s.engine();
    const N: usize = 3000;
    let elems: Vec<TermId> = (0..N as i64).map(|i| e.mk_int(i)).collect();
    let list = e.mk_app(s.id("__"), &elems);
    for f in ["len", "lenr"] {
        let before = e.store().segment_elements();
        let call = e.mk_app(s.id(f), &[list]);
        let n = e.reduce(call).unwrap();
        assert_eq!(e.show(n), N.to_string(), "{f}");
        let stored = e.store().segment_elements() - before;
        assert!(stored < N, "{f} stored {stored} elements");
    }
}
