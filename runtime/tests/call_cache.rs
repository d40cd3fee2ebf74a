//! The call cache (`engine/calls.rs`): calls of direct functions met again cost a lookup.
//! It must change how many rewrites a reduction takes, never its answer or its errors,
//! including across garbage collections that free the cached terms and reuse their ids.

mod common;
use common::*;
use gamelang_runtime::RuntimeError;

/// Naive Fibonacci and Takeuchi on integers: exponentially many calls, few distinct ones.
fn recursive() -> Spec {
    let mut s = Spec::new();
    s.op("fib", &["Int"], "Int", "");
    s.eq(
        "n:Int",
        "[fib n]",
        "[if_then_else_fi [_<_ n 2] n [_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]]",
    );
    s.op("tak", &["Int", "Int", "Int"], "Int", "");
    s.eq(
        "x:Int y:Int z:Int",
        "[tak x y z]",
        "[if_then_else_fi [_<=_ x y] z [tak [tak [_-_ x 1] y z] [tak [_-_ y 1] z x] [tak [_-_ z 1] x y]]]",
    );
    s
}

fn fib(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

fn tak(x: i64, y: i64, z: i64) -> i64 {
    if x <= y {
        z
    } else {
        tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    }
}

#[test]
fn an_exponential_recursion_costs_one_computation_per_distinct_call() {
    let s = recursive();
    let mut cached = s.engine();
    assert!(cached.call_cache, "on by default");
    let mut plain = s.engine();
    plain.call_cache = false;
    // The same answers with and without the cache, far fewer rewrites with it.
    let (a, b) = (
        red(&s, &mut cached, "[fib 22]"),
        red(&s, &mut plain, "[fib 22]"),
    );
    assert_eq!(a, fib(22).to_string());
    assert_eq!(b, a);
    assert!(
        cached.steps() * 100 < plain.steps(),
        "{} against {} rewrites",
        cached.steps(),
        plain.steps()
    );
    // fib(80) takes about 10^16 calls without the cache; with it, linear.
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[fib 80]"), fib(80).to_string());
    assert!(e.steps() < 80 * 10, "{} rewrites", e.steps());
    for (x, y, z) in [(6, 4, 2), (12, 8, 4), (18, 12, 6)] {
        let src = format!("[tak {x} {y} {z}]");
        let mut e = s.engine();
        let mut p = s.engine();
        p.call_cache = false;
        let got = red(&s, &mut e, &src);
        assert_eq!(got, tak(x, y, z).to_string(), "{src}");
        assert_eq!(red(&s, &mut p, &src), got, "{src}: without the cache");
        assert!(e.steps() <= p.steps(), "{src}");
    }
}

/// Lists built, measured and dropped, over and over, with a collection every few hundred
/// terms: freed lists' ids are reused by new lists of other lengths (their elements are
/// integers too large to be preallocated, so ids are taken in a different order each
/// time), and a cache entry that outlived its terms would give a wrong length.
fn lists() -> Spec {
    let mut s = Spec::new();
    s.op("nil", &[], "List", "ctor");
    s.op("cons", &["Int", "List"], "List", "ctor");
    s.op("mk", &["Int", "Int"], "List", "");
    s.op("len", &["List"], "Int", "");
    s.op("run", &["Int", "Int"], "Int", "");
    s.op("both", &["List"], "Int", "");
    s.op("f", &["List"], "Int", "");
    s.op("g", &["List"], "Int", "");
    s.eq("x:Int", "[mk 0 x]", "nil");
    s.owise(
        "n:Int x:Int",
        "[mk n x]",
        "[cons [_*_ x 100003] [mk [_-_ n 1] [_+_ x n]]]",
    );
    s.eq("", "[len nil]", "0");
    s.eq("x:Int l:List", "[len [cons x l]]", "[_+_ 1 [len l]]");
    // Each list's length asked twice (by f, then by g): the second time from the cache.
    s.eq("l:List", "[both l]", "[_+_ [f l] [g l]]");
    s.eq("l:List", "[f l]", "[len l]");
    s.eq("l:List", "[g l]", "[len l]");
    // run(k, acc): acc + twice the lengths of lists of k rem 13 elements, for k down to 1; the
    // elements depend on k rem 400, so the same list comes back every 5,200 values of k,
    // after collections have freed it.
    s.eq("acc:Int", "[run 0 acc]", "acc");
    s.owise(
        "k:Int acc:Int",
        "[run k acc]",
        "[run [_-_ k 1] [_+_ acc [both [mk [_rem_ k 13] [_rem_ k 400]]]]]",
    );
    s
}

#[test]
fn collections_during_a_reduction_keep_the_cache_right() {
    let s = lists();
    let k = 8000;
    let want: i64 = (1..=k).map(|i| 2 * (i % 13)).sum();
    let src = format!("[run {k} 0]");
    for cache in [true, false] {
        let mut e = s.engine();
        e.call_cache = cache;
        e.collect_in_reduce = true;
        e.collect_min_terms = 256;
        assert_eq!(red(&s, &mut e, &src), want.to_string(), "cache {cache}");
        assert!(e.collections() > 5, "{} collections", e.collections());
    }
    // Between reductions too: the same engine, collecting after each.
    let mut e = s.engine();
    e.collect_min_terms = 64;
    for k in [40, 41, 90, 40, 13, 200] {
        let src = format!("[run {k} 0]");
        let want: i64 = (1..=k).map(|i| 2 * (i % 13)).sum();
        assert_eq!(red(&s, &mut e, &src), want.to_string(), "k = {k}");
        e.collect_garbage(&[]);
    }
}

/// The ids of a collected list are taken again by the next terms built. Rounds of lists
/// of pseudo-random lengths, built from two pieces, with elements small (preallocated) or
/// large (allocated before the cells), a collection after each round: a cell then gets an
/// id the cache had recorded a different length for, and an entry that outlived its
/// collection would give a wrong answer.
#[test]
fn ids_freed_by_a_collection_are_not_looked_up_again() {
    let mut s = Spec::new();
    s.op("nil", &[], "List", "ctor");
    s.op("cons", &["Int", "List"], "List", "ctor");
    s.op("mk", &["Int", "Int"], "List", "");
    s.op("app", &["List", "List"], "List", "");
    s.op("len", &["List"], "Int", "");
    s.eq("x:Int", "[mk 0 x]", "nil");
    s.owise(
        "n:Int x:Int",
        "[mk n x]",
        "[cons x [mk [_-_ n 1] [_+_ x 1]]]",
    );
    s.eq("m:List", "[app nil m]", "m");
    s.eq(
        "x:Int l:List m:List",
        "[app [cons x l] m]",
        "[cons x [app l m]]",
    );
    s.eq("", "[len nil]", "0");
    s.eq("x:Int l:List", "[len [cons x l]]", "[_+_ 1 [len l]]");
    let mut e = s.engine();
    let mut r: u64 = 7;
    let mut next = |m: u64| {
        r = r
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (r >> 33) % m
    };
    for _ in 0..300 {
        let (a, b) = (next(9), next(9));
        let x = if next(2) == 0 {
            next(50)
        } else {
            70_000 + next(50_000)
        };
        let src = format!("[len [app [mk {a} {x}] [mk {b} [_+_ {x} 3]]]]");
        assert_eq!(red(&s, &mut e, &src), (a + b).to_string(), "{src}");
        e.collect_garbage(&[]);
    }
}

#[test]
fn errors_and_budgets_are_not_cached_away() {
    let mut s = Spec::new();
    s.op("half", &["Int"], "Int", "");
    s.ceq("n:Int", "[half n]", "[_quo_ n 2]", "[_==_ [_rem_ n 2] 0]");
    s.op("twice-half", &["Int"], "Int", "");
    s.eq("n:Int", "[twice-half n]", "[_+_ [half n] [half n]]");
    s.op("loop", &["Int"], "Int", "");
    s.eq("n:Int", "[loop n]", "[loop n]");
    let mut e = s.engine();
    let mut m = s.engine();
    m.direct = false;
    assert_eq!(red(&s, &mut e, "[twice-half 8]"), "8");
    // half(7) is stuck every time it is asked, with the machine's message.
    for _ in 0..2 {
        let (a, b) = (
            red(&s, &mut e, "[twice-half 7]"),
            red(&s, &mut m, "[twice-half 7]"),
        );
        assert!(a.starts_with("ERROR"), "{a}");
        assert_eq!(a, b);
    }
    e.limits.max_steps = 10_000;
    let t = term(&s, &mut e, "[loop 1]");
    assert!(matches!(e.reduce(t), Err(RuntimeError::StepBudget { .. })));
}

/// On a thread too small for the direct evaluator, the machine rewrites everything, and
/// consults the call cache too: the exponential recursion stays linear, and a
/// tail-recursive loop still runs in constant stack (a call in tail position of a cached
/// call gets no frame of its own), well within a small depth limit.
#[test]
fn the_machine_uses_the_cache_and_keeps_tail_calls_in_constant_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(400 << 10)
        .spawn(|| {
            let mut s = recursive();
            s.op("count", &["Int", "Int"], "Int", "");
            s.eq(
                "n:Int acc:Int",
                "[count n acc]",
                "[if_then_else_fi [_==_ n 0] acc [count [_-_ n 1] [_+_ acc 2]]]",
            );
            let mut e = s.engine();
            e.limits.max_depth = 1000;
            let loop_answer = red(&s, &mut e, "[count 100000 0]");
            let mut f = s.engine();
            let fib_answer = red(&s, &mut f, "[fib 27]");
            (
                loop_answer,
                e.used_direct(),
                fib_answer,
                f.steps(),
                f.used_direct(),
            )
        })
        .expect("spawn");
    let (loop_answer, loop_direct, fib_answer, fib_steps, fib_direct) =
        handle.join().expect("no overflow");
    assert_eq!(loop_answer, "200000");
    assert_eq!(fib_answer, fib(27).to_string());
    assert!(!loop_direct && !fib_direct, "the machine alone ran");
    assert!(fib_steps < 27 * 10, "{fib_steps} rewrites");
}

/// Functions whose equations match modulo AC (not direct functions: the machine rewrites
/// them) are cached too: `h` of a set of n numbers asks `h` and `k` of the rest, and `k`
/// asks `h` again, 2^n calls without the cache.
#[test]
fn functions_matched_modulo_ac_are_cached_by_the_machine() {
    let mut s = Spec::new();
    s.set_of("Nat", "NSet");
    s.op("h", &["NSet"], "Nat", "");
    s.op("k", &["NSet"], "Nat", "");
    s.op("upto", &["Nat"], "NSet", "");
    s.eq("", "[h empty]", "1");
    s.eq("n:Nat r:NSet", "[h [_,_ n r]]", "[_+_ [h r] [k r]]");
    s.eq("", "[k empty]", "1");
    s.eq("n:Nat r:NSet", "[k [_,_ n r]]", "[h [_,_ n r]]");
    s.eq("", "[upto 0]", "empty");
    s.owise("n:Nat", "[upto n]", "[_,_ n [upto [_-_ n 1]]]");
    for n in [0u32, 1, 5, 9] {
        let src = format!("[h [upto {n}]]");
        let mut cached = s.engine();
        let mut plain = s.engine();
        plain.call_cache = false;
        assert_eq!(red(&s, &mut cached, &src), (1u64 << n).to_string(), "{src}");
        assert_eq!(red(&s, &mut plain, &src), (1u64 << n).to_string(), "{src}");
        assert!(cached.steps() <= plain.steps(), "{src}");
    }
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[h [upto 16]]"), (1u64 << 16).to_string());
    assert!(e.steps() < 16 * 10, "{} rewrites", e.steps());
}

/// The naive reverse of a list, done `k` times (`revs`), checked by a position-weighted sum.
fn reverses() -> Spec {
    let mut s = reverse_lists();
    s.op("mk", &["Int"], "List", "");
    s.op("revs", &["Int", "List"], "List", "");
    s.eq("", "[mk 0]", "nil");
    s.owise(
        "n:Int",
        "[mk n]",
        "[cons [_rem_ [_*_ n 7919] 1000] [mk [_-_ n 1]]]",
    );
    s.eq("l:List", "[revs 0 l]", "l");
    s.owise("k:Int l:List", "[revs k l]", "[revs [_-_ k 1] [rev l]]");
    s
}

/// `rev(rev(L))` is `L`: reversing a list ten times needs two reversals if the cache keeps
/// what the first cost — across the collections that happen meanwhile, which free the
/// intermediate lists (and, unless the cache keeps them, the reversed list itself).
#[test]
fn an_expensive_call_met_again_after_collections_is_a_lookup() {
    let s = reverses();
    let n: i64 = 300;
    // One reversal of a list of n elements: n + 1 rewrites of rev, and an app of a list of
    // j elements (j + 1 rewrites) for j = 0 .. n - 1. Building the list and the sum take
    // four steps an element (an equation and three built-ins) and one more each; `revs`
    // two a time (an equation and a subtraction) and one more.
    let one = (n + 1) + n * (n + 1) / 2;
    let list: Vec<i64> = (1..=n).rev().map(|i| (i * 7919) % 1000).collect();
    for times in [9i64, 10] {
        let mut want = list.clone();
        if times % 2 == 1 {
            want.reverse();
        }
        let sum: i64 = want.iter().zip(1..).map(|(x, i)| i * x).sum();
        let src = format!("[chk [revs {times} [mk {n}]] 1]");
        let rest = 8 * n + 2 + 2 * times + 1;
        for cache in [true, false] {
            let mut e = s.engine();
            e.call_cache = cache;
            e.collect_in_reduce = true;
            e.collect_min_terms = 1024;
            assert_eq!(
                red(&s, &mut e, &src),
                sum.to_string(),
                "{times}, cache {cache}"
            );
            assert!(e.collections() > 3, "{} collections", e.collections());
            let steps = e.steps() as i64;
            if cache {
                assert!(
                    steps <= 2 * one + rest,
                    "{times}: {steps} rewrites, {one} a reversal"
                );
            } else {
                assert!(steps >= times * one, "{times}: {steps} rewrites");
            }
        }
    }
}

/// A cached call long enough for collections to happen while it runs, whose argument is
/// unreachable once matched (`h(cons(x, l))` goes on with `l`): the argument must survive
/// the collections, or its id, reused by a new list, would find the old list's value.
fn long_calls() -> Spec {
    let mut s = Spec::new();
    s.op("nil", &[], "List", "ctor");
    s.op("cons", &["Int", "List"], "List", "ctor");
    s.op("mk", &["Int", "Int"], "List", "");
    s.op("h", &["List"], "Int", "");
    s.op("spin", &["Int", "Int"], "Int", "");
    s.op("run", &["Int", "Int"], "Int", "");
    s.eq("x:Int", "[mk 0 x]", "nil");
    s.owise(
        "n:Int x:Int",
        "[mk n x]",
        "[cons [_rem_ [_*_ x 7919] 100003] [mk [_-_ n 1] [_+_ x 1]]]",
    );
    s.eq("", "[h nil]", "0");
    s.eq("x:Int l:List", "[h [cons x l]]", "[_+_ [spin x 30] [h l]]");
    s.eq("x:Int", "[spin x 0]", "[_rem_ x 7]");
    s.owise(
        "x:Int k:Int",
        "[spin x k]",
        "[spin [_rem_ [_+_ [_*_ x 31] k] 1000003] [_-_ k 1]]",
    );
    s.eq("acc:Int", "[run 0 acc]", "acc");
    s.owise(
        "k:Int acc:Int",
        "[run k acc]",
        "[run [_-_ k 1] [_+_ acc [_*_ k [h [mk 12 k]]]]]",
    );
    s
}

#[test]
fn the_arguments_of_a_cached_call_survive_collections_while_it_runs() {
    fn spin(mut x: i64, k: i64) -> i64 {
        for j in (1..=k).rev() {
            x = (x * 31 + j) % 1_000_003;
        }
        x % 7
    }
    let h = |k: i64| -> i64 { (0..12).map(|i| spin(((k + i) * 7919) % 100_003, 30)).sum() };
    let k = 1500;
    let want: i64 = (1..=k).map(|k| k * h(k)).sum();
    let s = long_calls();
    let mut e = s.engine();
    e.collect_in_reduce = true;
    e.collect_min_terms = 256;
    assert_eq!(red(&s, &mut e, &format!("[run {k} 0]")), want.to_string());
    assert!(e.collections() > 5, "{} collections", e.collections());
}
