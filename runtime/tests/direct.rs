//! The direct evaluator (`engine/direct.rs`): right-hand sides evaluated by native
//! recursion must give the machine's answers, rewrite counts and errors. Every program is
//! reduced by an engine with the direct evaluator and by one without it (`Engine::direct`
//! off), and the answers are checked against a computation written here.

mod common;
use common::*;
use gamelang_runtime::{Engine, RuntimeError};

/// Lists of integers: append, naive reverse, a position-weighted checksum, and a
/// pseudo-random list (the shape of the `nrev` benchmark).
fn lists() -> Spec {
    let mut s = reverse_lists();
    s.op("rand", &["Int", "Int"], "List", "");
    s.eq("r:Int", "[rand 0 r]", "nil");
    s.owise(
        "k:Int r:Int",
        "[rand k r]",
        "[cons [_rem_ r 1000] [rand [_-_ k 1] [_rem_ [_+_ [_*_ r 1103515245] 12345] 2147483648]]]",
    );
    s
}

/// The list `rand(k, r)` builds, and the checksum of its reverse, computed here.
fn nrev_checksum(k: usize, mut r: i64) -> i64 {
    let mut xs = Vec::new();
    for _ in 0..k {
        xs.push(r % 1000);
        r = (r * 1103515245 + 12345) % 2147483648;
    }
    xs.reverse();
    xs.iter().enumerate().map(|(i, x)| (i as i64 + 1) * x).sum()
}

/// Peano arithmetic with conditions, `owise`, a lazy `if` and a shared subterm.
fn peano() -> Spec {
    let mut s = Spec::new();
    s.op("z", &[], "P", "ctor");
    s.op("s", &["P"], "P", "ctor");
    s.op("ack", &["P", "P"], "P", "");
    s.op("val", &["P"], "Int", "");
    s.op("nat", &["Int"], "P", "");
    s.op("half", &["Int"], "Int", "");
    s.op("collatz", &["Int", "Int"], "Int", "");
    s.op("twice", &["P"], "P", "");
    s.op("plus", &["P", "P"], "P", "");
    s.eq("n:P", "[ack z n]", "[s n]");
    s.eq("m:P", "[ack [s m] z]", "[ack m [s z]]");
    s.eq("m:P n:P", "[ack [s m] [s n]]", "[ack m [ack [s m] n]]");
    s.eq("", "[val z]", "0");
    s.eq("p:P", "[val [s p]]", "[_+_ 1 [val p]]");
    s.eq("", "[nat 0]", "z");
    s.owise("k:Int", "[nat k]", "[s [nat [_-_ k 1]]]");
    s.eq("k:Int", "[half k]", "[_quo_ k 2]");
    // A conditional equation and a lazy `if`: the steps of the Collatz sequence.
    s.ceq("c:Int", "[collatz 1 c]", "c", "[_==_ 1 1]");
    s.owise(
        "k:Int c:Int",
        "[collatz k c]",
        "[collatz [if_then_else_fi [_==_ [_rem_ k 2] 0] [half k] [_+_ [_*_ 3 k] 1]] [_+_ c 1]]",
    );
    // `plus(p, p)` with the recursive call written twice: shared, reduced once.
    s.eq("", "[twice z]", "[s z]");
    s.eq("p:P", "[twice [s p]]", "[plus [twice p] [twice p]]");
    s.eq("n:P", "[plus z n]", "n");
    s.eq("m:P n:P", "[plus [s m] n]", "[s [plus m n]]");
    s
}

fn ackermann(m: u64, n: u64) -> u64 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => ackermann(m - 1, 1),
        (m, n) => ackermann(m - 1, ackermann(m, n - 1)),
    }
}

fn collatz_steps(mut k: u64) -> u64 {
    let mut c = 0;
    while k != 1 {
        k = if k.is_multiple_of(2) {
            k / 2
        } else {
            3 * k + 1
        };
        c += 1;
    }
    c
}

/// Reduce `src` with and without the direct evaluator: the same answer and, without the
/// call cache, the same number of rewrites; with the call cache (which skips calls met
/// before), the same answer in at most as many rewrites. Returns the answer.
fn both(s: &Spec, src: &str) -> String {
    both_used(s, src).0
}

/// An engine of `s` with the direct evaluator on or off, and the call cache.
fn engine(s: &Spec, direct: bool, call_cache: bool) -> Engine {
    let mut e = s.engine();
    e.direct = direct;
    e.call_cache = call_cache;
    e
}

/// [`both`], and whether the direct evaluator ran.
fn both_used(s: &Spec, src: &str) -> (String, bool) {
    let mut direct = engine(s, true, false);
    let mut machine = s.engine();
    machine.direct = false;
    let mut cached = engine(s, true, true);
    let got = red(s, &mut direct, src);
    let want = red(s, &mut machine, src);
    assert_eq!(got, want, "{src}: direct vs machine");
    assert!(!machine.used_direct());
    assert_eq!(direct.steps(), machine.steps(), "{src}: rewrites");
    assert_eq!(red(s, &mut cached, src), want, "{src}: with the call cache");
    assert!(
        cached.steps() <= machine.steps(),
        "{src}: rewrites with the cache"
    );
    (got, direct.used_direct())
}

#[test]
fn list_programs_agree_with_the_machine_and_with_rust() {
    let s = lists();
    for k in [0, 1, 2, 7, 60, 300] {
        let (got, used) = both_used(&s, &format!("[chk [rev [rand {k} 1]] 1]"));
        assert_eq!(got, nrev_checksum(k, 1).to_string(), "k = {k}");
        assert!(used || k < 2, "k = {k}: the direct evaluator ran");
    }
}

#[test]
fn peano_programs_with_conditions_if_and_sharing_agree() {
    let s = peano();
    for (m, n) in [(0, 0), (1, 3), (2, 3), (3, 3)] {
        let src = format!("[val [ack [nat {m}] [nat {n}]]]");
        let (got, used) = both_used(&s, &src);
        assert_eq!(got, ackermann(m, n).to_string(), "{src}");
        assert!(used, "{src}: the direct evaluator ran");
    }
    for k in [1, 6, 27, 97] {
        let src = format!("[collatz {k} 0]");
        assert_eq!(both(&s, &src), collatz_steps(k).to_string(), "{src}");
    }
    // twice(n) = 2^n, its recursive call written twice: shared, so `twice` is called
    // n + 1 times, not 2^(n+1) - 1 times.
    assert_eq!(both(&s, "[val [twice [nat 16]]]"), (1 << 16).to_string());
    let mut e = s.engine();
    red(&s, &mut e, "[twice [nat 16]]");
    // nat(16): 17 rewrites and 16 subtractions; twice: 17; plus(2^(k-1), 2^(k-1)) for
    // k = 1..16: 2^(k-1) + 1 each. Without sharing, `twice` alone would take 2^17 - 1.
    let plus: u64 = (1..=16).map(|k| (1u64 << (k - 1)) + 1).sum();
    assert_eq!(e.steps(), 17 + 16 + 17 + plus);
}

/// `f(0) = -1` breaks `f : Nat -> Nat`; `g(-1)` must then be stuck, not rewritten (the
/// sort check of a defined function's argument stays), and so must the constructor
/// application `c(f(0))` be refused as ill-sorted.
fn not_sort_decreasing() -> Spec {
    let mut s = Spec::new();
    s.op("f", &["Nat"], "Nat", "");
    s.op("g", &["Nat"], "Nat", "");
    s.op("h", &["Nat"], "Nat", "");
    s.op("c", &["Nat"], "T", "ctor");
    s.op("k", &["Nat"], "T", "");
    s.eq("", "[f 0]", "-1");
    s.eq("n:Nat", "[g n]", "[_+_ n 1]");
    s.eq("", "[h 0]", "[g [f 0]]");
    s.owise("n:Nat", "[h n]", "[g [h [_-_ n 1]]]");
    s.eq("n:Nat", "[k n]", "[c [f n]]");
    // `k` called from a right-hand side: its constructor is built by the direct
    // evaluator's code, which must check `f(0)`'s sort too.
    s.op("wrap", &["Nat"], "T", "");
    s.eq("n:Nat", "[wrap n]", "[k n]");
    s
}

#[test]
fn errors_are_the_machines_with_their_trace() {
    let s = not_sort_decreasing();
    for src in ["[h 0]", "[h 50]", "[k 0]", "[wrap 0]"] {
        let mut direct = s.engine();
        let mut machine = s.engine();
        machine.direct = false;
        let got = red(&s, &mut direct, src);
        let want = red(&s, &mut machine, src);
        assert!(got.starts_with("ERROR"), "{src}: {got}");
        // Run again on the machine alone, which words the error.
        assert!(!direct.used_direct());
        assert_eq!(got, want, "{src}");
        assert_eq!(direct.trace(), machine.trace(), "{src}: trace");
        // (Not the rewrite counts: the machine's run after the direct one reuses the normal
        // forms of ground subterms already found, such as `f(0)`.)
    }
    let mut e = s.engine();
    for src in ["[k 0]", "[wrap 0]"] {
        let t = term(&s, &mut e, src);
        assert!(
            matches!(e.reduce(t), Err(RuntimeError::IllSorted { .. })),
            "{src}"
        );
    }
    let t = term(&s, &mut e, "[h 3]");
    assert!(matches!(e.reduce(t), Err(RuntimeError::Stuck { .. })));
}

#[test]
fn the_depth_limit_counts_direct_calls() {
    let mut s = Spec::new();
    s.op("sum", &["Nat"], "Nat", "");
    s.eq("", "[sum 0]", "0");
    s.owise("n:Nat", "[sum n]", "[_+_ n [sum [_-_ n 1]]]");
    let mut e = s.engine();
    e.limits.max_depth = 1000;
    let t = term(&s, &mut e, "[sum 5000]");
    assert!(matches!(
        e.reduce(t),
        Err(RuntimeError::DepthLimit { limit: 1000, .. })
    ));
    // Below the limit, the answer.
    let t = term(&s, &mut e, "[sum 300]");
    let v = e.reduce(t).expect("within the limit");
    assert_eq!(e.show(v), (300 * 301 / 2).to_string());
}

#[test]
fn recursion_deeper_than_the_native_stack_goes_on_in_the_machine() {
    // A thread with a small stack: the direct evaluator must hand the rest of a
    // 200,000-deep recursion to the machine's frames instead of overflowing.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let s = peano();
            let mut e = s.engine();
            red(&s, &mut e, "[val [nat 200000]]")
        })
        .expect("spawn");
    assert_eq!(handle.join().expect("no overflow"), "200000");
}

/// A right-hand side whose `quick` evaluation fails half-way (`x * 2` done, then the
/// constant `k`, which needs an equation): the part done is not counted twice, as the
/// machine does not count it twice.
#[test]
fn a_quick_evaluation_failing_half_way_is_not_counted_twice() {
    let mut s = Spec::new();
    s.op("k", &[], "Int", "");
    s.eq("", "k", "4");
    s.op("f", &["Int"], "Int", "");
    s.eq("x:Int", "[f x]", "[_-_ [_*_ x 2] k]");
    s.op("g", &["Int"], "Int", "");
    s.eq("x:Int", "[g x]", "[f [f x]]");
    // g, f, *, k, -, f, *, -: k's normal form is remembered after its first use.
    assert_eq!(both(&s, "[g 3]"), "0");
    let mut e = s.engine();
    red(&s, &mut e, "[g 3]");
    assert_eq!(e.steps(), 8);
}

/// Right-hand sides whose root is a lazy built-in (`if_then_else_fi`, `and-then`,
/// `or-else`), with branches that are calls in tail position, constructors, variables,
/// ground terms and further lazy built-ins (the right-hand side's code, `engine/code.rs`):
/// the machine's answers and rewrite counts, and answers computed here. A condition that
/// is not a Boolean is the machine's error.
#[test]
fn lazy_right_hand_side_roots_agree_with_the_machine() {
    let mut s = Spec::new();
    s.op("z", &[], "P", "ctor");
    s.op("s", &["P"], "P", "ctor");
    // gcd by subtraction: an `if` whose branches are an `if` and tail calls.
    s.op("gcd", &["Int", "Int"], "Int", "");
    s.eq(
        "a:Int b:Int",
        "[gcd a b]",
        "[if_then_else_fi [_==_ a b] a [if_then_else_fi [_<_ a b] [gcd a [_-_ b a]] [gcd [_-_ a b] b]]]",
    );
    // all-even over a count: and-then as the root, its second argument a tail call.
    s.op("evens", &["Int", "Int"], "Bool", "");
    s.eq(
        "k:Int n:Int",
        "[evens k n]",
        "[_and-then_ [_==_ [_rem_ [_*_ k n] 2] 0] [if_then_else_fi [_>_ k 1] [evens [_-_ k 1] n] true]]",
    );
    // some divisor: or-else as the root.
    s.op("divides", &["Int", "Int"], "Bool", "");
    s.eq(
        "d:Int n:Int",
        "[divides d n]",
        "[_or-else_ [_==_ [_rem_ n d] 0] [_and-then_ [_<_ [_*_ d d] n] [divides [_+_ d 1] n]]]",
    );
    // a constructor and a variable as branches, a call as the condition.
    s.op("peano", &["Int"], "P", "");
    s.op("pos", &["Int"], "Bool", "");
    s.eq("k:Int", "[pos k]", "[_>_ k 0]");
    s.eq(
        "k:Int",
        "[peano k]",
        "[if_then_else_fi [pos k] [s [peano [_-_ k 1]]] z]",
    );
    s.op("pick", &["Bool", "P"], "P", "");
    s.eq("c:Bool p:P", "[pick c p]", "[if_then_else_fi c p z]");
    // a condition that is not a Boolean: an error, worded by the machine.
    s.op("bad", &["Int"], "Int", "");
    s.eq("k:Int", "[bad k]", "[if_then_else_fi k 1 2]");
    let gcd = |mut a: i64, mut b: i64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    for (a, b) in [(1, 1), (12, 18), (35, 14), (97, 3)] {
        assert_eq!(both(&s, &format!("[gcd {a} {b}]")), gcd(a, b).to_string());
    }
    for (k, n) in [(1, 3), (5, 2), (5, 3), (9, 4)] {
        let want = (1..=k).all(|i| (i * n) % 2 == 0);
        assert_eq!(both(&s, &format!("[evens {k} {n}]")), want.to_string());
    }
    for n in [4, 9, 13, 25, 97] {
        let want = (2..n).take_while(|d| d * d <= n).any(|d| n % d == 0);
        assert_eq!(both(&s, &format!("[divides 2 {n}]")), want.to_string());
    }
    for k in [0, 1, 5] {
        let want = (0..k).fold("z".to_string(), |acc, _| format!("s({acc})"));
        assert_eq!(both(&s, &format!("[peano {k}]")), want);
    }
    assert_eq!(both(&s, "[pick true [s z]]"), "s(z)");
    assert_eq!(both(&s, "[pick false [s z]]"), "z");
    let mut direct = s.engine();
    let mut machine = s.engine();
    machine.direct = false;
    let got = red(&s, &mut direct, "[bad 3]");
    assert!(got.starts_with("ERROR"), "{got}");
    assert_eq!(got, red(&s, &mut machine, "[bad 3]"));
}

/// [`bit_lists`] and `tag`, whose first argument is a variable of sort `Nat` in one
/// equation and of sort `Int` in the next: functions defined by cases on constructors and
/// constants, whose candidates the dispatch settles and whose variables are then loaded
/// straight from the arguments and their children (`Pattern::arg_loads`), with the `Nat`
/// sort still checked.
fn bits_and_tags() -> Spec {
    let mut s = bit_lists();
    s.op("tag", &["Int", "Bin"], "Int", "");
    s.eq("n:Nat a:Bin", "[tag n [o a]]", "[_+_ n [_*_ 100 [val a]]]");
    s.eq("k:Int a:Bin", "[tag k [o a]]", "[_-_ k [val [o a]]]");
    s.eq("k:Int a:Bin", "[tag k [i a]]", "[_-_ [_*_ 7 k] [val a]]");
    s.eq("k:Int", "[tag k e]", "k");
    // The top of a reduction is rewritten by the machine; these call `add` and `tag`
    // from a right-hand side, where the direct evaluator runs.
    s.op("sum", &["Bin", "Bin"], "Int", "");
    s.eq("a:Bin b:Bin", "[sum a b]", "[val [add a b]]");
    s.op("run", &["Int", "Bin"], "Int", "");
    s.eq("k:Int a:Bin", "[run k a]", "[tag k a]");
    s
}

/// `n` as a bit list in the notation of [`bit_lists`].
fn bits(mut n: u64) -> String {
    let mut digits = Vec::new();
    while n > 0 {
        digits.push(if n.is_multiple_of(2) { "o" } else { "i" });
        n /= 2;
    }
    digits
        .iter()
        .rev()
        .fold("e".to_string(), |acc, d| format!("[{d} {acc}]"))
}

#[test]
fn functions_by_cases_on_constructors_load_their_variables() {
    let s = bits_and_tags();
    for x in 0..24u64 {
        for y in [0, 1, 2, 3, 7, 8, 13, 31] {
            let src = format!("[sum {} {}]", bits(x), bits(y));
            assert_eq!(both(&s, &src), (x + y).to_string(), "{src}");
        }
    }
    for k in [-5i64, -1, 0, 1, 6] {
        for x in 0..9u64 {
            let want = match x {
                0 => k,
                _ if x % 2 == 0 && k >= 0 => k + 100 * (x / 2) as i64,
                _ if x % 2 == 0 => k - x as i64,
                _ => 7 * k - (x / 2) as i64,
            };
            let src = format!("[run {k} {}]", bits(x));
            assert_eq!(both(&s, &src), want.to_string(), "{src}");
        }
    }
}

/// Functions by cases on an element and the rest of a set (`f((n, S))`) and of a bag
/// without identity: the direct evaluator matches these by their first match
/// (`Pattern::match_ac_first`), or hands the call to the machine where another match
/// might apply.
fn sets_and_bags() -> Spec {
    let mut s = Spec::new();
    s.set_of("Int", "ISet");
    // Sums, the element picked first, membership, difference.
    s.op("sum", &["ISet"], "Int", "");
    s.eq("", "[sum empty]", "0");
    s.eq("n:Int r:ISet", "[sum [_,_ n r]]", "[_+_ n [sum r]]");
    s.op("first", &["ISet"], "Int", "");
    s.eq("n:Int r:ISet", "[first [_,_ n r]]", "n");
    s.op("_in_", &["Int", "ISet"], "Bool", "prec:51");
    s.eq("n:Int r:ISet", "[_in_ n [_,_ n r]]", "true");
    s.owise("n:Int r:ISet", "[_in_ n r]", "false");
    s.op("minus", &["ISet", "ISet"], "ISet", "");
    s.eq("t:ISet", "[minus empty t]", "empty");
    s.eq(
        "u:Int r:ISet t:ISet",
        "[minus [_,_ u r] t]",
        "[if_then_else_fi [_in_ u t] [minus r t] [_,_ u [minus r t]]]",
    );
    // The least natural number of the set: its first element is negative when there is
    // one, which the variable's sort refuses, and the next must be tried.
    s.op("least-nat", &["ISet"], "Int", "");
    s.eq("n:Nat r:ISet", "[least-nat [_,_ n r]]", "n");
    s.owise("r:ISet", "[least-nat r]", "-1");
    // A bag without identity: `(n ; b)` needs an element besides n.
    s.op("_;_", &["Bag", "Bag"], "Bag", "ctor assoc comm");
    s.subsort("Int", "Bag");
    s.op("count", &["Int", "Bag"], "Int", "");
    s.eq("n:Int b:Bag", "[count n [_;_ n b]]", "[_+_ 1 [count n b]]");
    s.owise(
        "n:Int b:Bag",
        "[count n b]",
        "[if_then_else_fi [_==_ n b] 1 0]",
    );
    s.op("with-other", &["Int", "Bag"], "Bool", "");
    s.eq("n:Int b:Bag", "[with-other n [_;_ n b]]", "true");
    s.owise("n:Int b:Bag", "[with-other n b]", "false");
    // Two lists sharing the element picked: a common element, the least one first.
    s.op("meets", &["ISet", "ISet"], "Bool", "");
    s.eq("n:Int u:ISet v:ISet", "[meets [_,_ n u] [_,_ n v]]", "true");
    s.owise("u:ISet v:ISet", "[meets u v]", "false");
    s.op("common", &["ISet", "ISet"], "Int", "");
    s.eq("n:Int u:ISet v:ISet", "[common [_,_ n u] [_,_ n v]]", "n");
    s.owise("u:ISet v:ISet", "[common u v]", "-1");
    // An element picked by its head: tagged values sort after the integers, by value.
    s.op("t", &["Int"], "Tag", "ctor");
    s.subsort("Tag", "Bag");
    s.op("tagged", &["Bag"], "Int", "");
    s.eq("n:Int b:Bag", "[tagged [_;_ [t n] b]]", "n");
    s.owise("b:Bag", "[tagged b]", "-1");
    // Conditions on the element picked: a refused match sends the search on to the next
    // element (in the set's order), as the machine's matcher does.
    s.op("first-odd", &["ISet"], "Int", "");
    s.ceq(
        "n:Int r:ISet",
        "[first-odd [_,_ n r]]",
        "n",
        "[_==_ [_rem_ n 2] 1]",
    );
    s.owise("r:ISet", "[first-odd r]", "-1");
    s.op("big", &["Int"], "Bool", "");
    s.eq("n:Int", "[big n]", "[_>_ n 3]");
    s.op("first-big", &["ISet"], "Int", "");
    s.ceq("n:Int r:ISet", "[first-big [_,_ n r]]", "n", "[big n]");
    s.owise("r:ISet", "[first-big r]", "-1");
    // The subtraction game's options: `n - m` for the moves m <= n.
    s.op("opts", &["Int", "ISet"], "ISet", "");
    s.eq("n:Int", "[opts n empty]", "empty");
    s.ceq(
        "n:Int m:Int r:ISet",
        "[opts n [_,_ m r]]",
        "[_,_ [_-_ n m] [opts n r]]",
        "[_<=_ m n]",
    );
    s.owise("n:Int m:Int r:ISet", "[opts n [_,_ m r]]", "[opts n r]");
    // The top of a reduction is rewritten by the machine: these call the functions above
    // from a right-hand side, where the direct evaluator runs.
    for (f, args) in [
        ("sum", &["ISet"][..]),
        ("first", &["ISet"]),
        ("least-nat", &["ISet"]),
        ("first-odd", &["ISet"]),
        ("first-big", &["ISet"]),
    ] {
        let run = format!("run-{f}");
        s.op(&run, args, "Int", "");
        s.eq("r:ISet", &format!("[{run} r]"), &format!("[{f} r]"));
    }
    s.op("run-minus", &["ISet", "ISet"], "Int", "");
    s.eq("r:ISet t:ISet", "[run-minus r t]", "[sum [minus r t]]");
    s.op("run-count", &["Int", "Bag"], "Int", "");
    s.eq("n:Int b:Bag", "[run-count n b]", "[count n b]");
    s.op("run-other", &["Int", "Bag"], "Bool", "");
    s.eq("n:Int b:Bag", "[run-other n b]", "[with-other n b]");
    s.op("run-meets", &["ISet", "ISet"], "Bool", "");
    s.eq("r:ISet t:ISet", "[run-meets r t]", "[meets r t]");
    s.op("run-common", &["ISet", "ISet"], "Int", "");
    s.eq("r:ISet t:ISet", "[run-common r t]", "[common r t]");
    s.op("run-opts", &["Int", "ISet"], "Int", "");
    s.eq("n:Int r:ISet", "[run-opts n r]", "[sum [opts n r]]");
    s.op("run-tagged", &["Bag"], "Int", "");
    s.eq("b:Bag", "[run-tagged b]", "[tagged b]");
    s
}

/// `xs` written as a set (`empty` when there is nothing).
fn set_src(xs: &[i64]) -> String {
    match xs {
        [] => "empty".into(),
        [x] => x.to_string(),
        [x, rest @ ..] => format!("[_,_ {x} {}]", set_src(rest)),
    }
}

/// `xs` (not empty) written as a bag.
fn bag_src(xs: &[i64]) -> String {
    match xs {
        [x] => x.to_string(),
        [x, rest @ ..] => format!("[_;_ {x} {}]", bag_src(rest)),
        [] => unreachable!("a bag has an element"),
    }
}

#[test]
fn functions_on_an_element_and_the_rest_of_a_set_agree_with_the_machine() {
    let s = sets_and_bags();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |k: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % k
    };
    for round in 0..60 {
        let len = next(7) as usize;
        let xs: Vec<i64> = (0..len).map(|_| next(13) as i64 - 4).collect();
        let ys: Vec<i64> = (0..next(5)).map(|_| next(13) as i64 - 4).collect();
        let set: std::collections::BTreeSet<i64> = xs.iter().copied().collect();
        let other: std::collections::BTreeSet<i64> = ys.iter().copied().collect();
        let (a, b) = (set_src(&xs), set_src(&ys));
        let (got, used) = both_used(&s, &format!("[run-sum {a}]"));
        assert_eq!(got, set.iter().sum::<i64>().to_string(), "sum {a}");
        assert!(used || set.len() < 2, "sum {a}: the direct evaluator ran");
        let want = set.difference(&other).sum::<i64>();
        assert_eq!(
            both(&s, &format!("[run-minus {a} {b}]")),
            want.to_string(),
            "{a} - {b}"
        );
        if let Some(least) = set.first() {
            // The first element of a set of integers is its least.
            assert_eq!(
                both(&s, &format!("[run-first {a}]")),
                least.to_string(),
                "{a}"
            );
        }
        let least_nat = set.iter().find(|&&x| x >= 0).copied().unwrap_or(-1);
        assert_eq!(
            both(&s, &format!("[run-least-nat {a}]")),
            least_nat.to_string(),
            "least-nat {a}"
        );
        let first_odd = set.iter().find(|&&x| x % 2 == 1).copied().unwrap_or(-1);
        assert_eq!(
            both(&s, &format!("[run-first-odd {a}]")),
            first_odd.to_string(),
            "{a}"
        );
        let first_big = set.iter().find(|&&x| x > 3).copied().unwrap_or(-1);
        assert_eq!(
            both(&s, &format!("[run-first-big {a}]")),
            first_big.to_string(),
            "{a}"
        );
        let n = next(9) as i64;
        let options: std::collections::BTreeSet<i64> =
            set.iter().filter(|&&m| m <= n).map(|&m| n - m).collect();
        assert_eq!(
            both(&s, &format!("[run-opts {n} {a}]")),
            options.iter().sum::<i64>().to_string(),
            "opts {n} {a}"
        );
        let both_sets: Vec<i64> = set.intersection(&other).copied().collect();
        let meets = !both_sets.is_empty();
        assert_eq!(
            both(&s, &format!("[run-meets {a} {b}]")),
            meets.to_string(),
            "{a} meets {b}"
        );
        let common = both_sets.first().copied().unwrap_or(-1);
        assert_eq!(
            both(&s, &format!("[run-common {a} {b}]")),
            common.to_string(),
            "{a}, {b}"
        );
        if !xs.is_empty() {
            // Some elements tagged (`t(x)`): the least tagged value when there is one and
            // something else in the bag.
            let tags: Vec<bool> = xs.iter().map(|_| next(3) == 0).collect();
            let items: Vec<String> = xs
                .iter()
                .zip(&tags)
                .map(|(x, &tag)| {
                    if tag {
                        format!("[t {x}]")
                    } else {
                        x.to_string()
                    }
                })
                .collect();
            let tagged_bag = items
                .iter()
                .cloned()
                .reduce(|l, r| format!("[_;_ {l} {r}]"))
                .expect("not empty");
            let least_tag = xs
                .iter()
                .zip(&tags)
                .filter(|(_, &tag)| tag)
                .map(|(x, _)| *x)
                .min();
            let want = match least_tag {
                Some(x) if xs.len() >= 2 => x,
                _ => -1,
            };
            assert_eq!(
                both(&s, &format!("[run-tagged {tagged_bag}]")),
                want.to_string(),
                "{tagged_bag}"
            );
            let bag = bag_src(&xs);
            let n = xs[round % xs.len()];
            let count = xs.iter().filter(|&&x| x == n).count();
            assert_eq!(
                both(&s, &format!("[run-count {n} {bag}]")),
                count.to_string(),
                "{bag}"
            );
            // `(n ; b)` needs n and something else (no identity).
            let other = xs.len() >= 2;
            assert_eq!(
                both(&s, &format!("[run-other {n} {bag}]")),
                other.to_string(),
                "{bag}"
            );
        }
    }
}

/// A collection variable that the right-hand side does not read but the left-hand side
/// repeats (`g(n ; r, r)`) must still be bound: the rest is built and compared (see
/// `Pattern::drop_unneeded_rests`).
#[test]
fn a_repeated_collection_variable_is_bound_though_the_right_side_ignores_it() {
    let mut s = Spec::new();
    s.op("_;_", &["Bag", "Bag"], "Bag", "ctor assoc comm");
    s.subsort("Int", "Bag");
    s.op("g", &["Bag", "Bag"], "Int", "");
    s.eq("n:Int r:Bag", "[g [_;_ n r] r]", "n");
    s.owise("a:Bag b:Bag", "[g a b]", "0");
    s.op("run-g", &["Bag", "Bag"], "Int", "");
    s.eq("a:Bag b:Bag", "[run-g a b]", "[g a b]");
    for (a, b, want) in [
        ("[_;_ 1 2]", "2", 1),
        ("[_;_ 1 2]", "3", 0),
        ("[_;_ 1 [_;_ 2 5]]", "[_;_ 2 5]", 1),
        ("[_;_ 1 [_;_ 2 5]]", "[_;_ 1 5]", 2),
    ] {
        assert_eq!(
            both(&s, &format!("[run-g {a} {b}]")),
            want.to_string(),
            "{a}, {b}"
        );
    }
}

/// Memo functions of at most two arguments (`fib`, a subtraction game's `win`, binomial
/// coefficients by Pascal's rule, the last with conditions and `owise`): looked up and
/// computed by the direct evaluator (`Engine::d_memo`), with the machine's answers, rewrite
/// counts and memo tables, and answers computed here.
fn memo_functions() -> Spec {
    let mut s = Spec::new();
    s.op("fib", &["Int"], "Int", "memo");
    s.ceq("n:Int", "[fib n]", "n", "[_<_ n 2]");
    s.owise("n:Int", "[fib n]", "[_+_ [fib [_-_ n 1]] [fib [_-_ n 2]]]");
    // The subtraction game with moves {1, 3, 4}: the player to move at n wins.
    s.op("win", &["Int"], "Bool", "memo");
    s.op("takes", &["Int", "Int"], "Bool", "");
    s.eq(
        "n:Int",
        "[win n]",
        "[_or-else_ [takes n 1] [_or-else_ [takes n 3] [takes n 4]]]",
    );
    s.eq(
        "n:Int m:Int",
        "[takes n m]",
        "[_and-then_ [_<=_ m n] [not_ [win [_-_ n m]]]]",
    );
    s.op("binom", &["Int", "Int"], "Int", "memo");
    s.eq("n:Int", "[binom n 0]", "1");
    s.ceq("n:Int k:Int", "[binom n k]", "1", "[_==_ n k]");
    s.owise(
        "n:Int k:Int",
        "[binom n k]",
        "[_+_ [binom [_-_ n 1] [_-_ k 1]] [binom [_-_ n 1] k]]",
    );
    // A call that needs itself, and one whose computation is stuck.
    s.op("loop", &["Int"], "Int", "memo");
    s.eq("n:Int", "[loop n]", "[_+_ [loop n] 1]");
    s.op("half", &["Int"], "Int", "");
    s.eq("", "[half 0]", "0");
    s.ceq("n:Int", "[half n]", "[_quo_ n 2]", "[_==_ [_rem_ n 2] 0]");
    s.op("halves", &["Int"], "Int", "memo");
    s.eq("n:Int", "[halves n]", "[_+_ [half n] [half [_+_ n 2]]]");
    // Called from a right-hand side, where the direct evaluator meets them (a question's
    // own memo call is the machine's).
    s.op("then-halves", &["Int"], "Int", "");
    s.eq("n:Int", "[then-halves n]", "[_+_ [halves n] 1]");
    s.op("then-loop", &["Int"], "Int", "");
    s.eq("n:Int", "[then-loop n]", "[_+_ [loop n] 1]");
    // A memo function with no equation for most arguments: stuck there.
    s.op("part", &["Int"], "Int", "memo");
    s.eq("", "[part 0]", "0");
    s.op("then-part", &["Int"], "Int", "");
    s.eq("n:Int", "[then-part n]", "[_+_ [part n] 1]");
    // A memo function of three arguments (its table keyed by the call's term): s times
    // the number of monotone lattice paths from (0, 0) to (m, n).
    s.op("paths", &["Int", "Int", "Int"], "Int", "memo");
    s.ceq(
        "m:Int n:Int s:Int",
        "[paths m n s]",
        "s",
        "[_or_ [_==_ m 0] [_==_ n 0]]",
    );
    s.owise(
        "m:Int n:Int s:Int",
        "[paths m n s]",
        "[_+_ [paths [_-_ m 1] n s] [paths m [_-_ n 1] s]]",
    );
    s.op("loop3", &["Int", "Int", "Int"], "Int", "memo");
    s.eq(
        "a:Int b:Int c:Int",
        "[loop3 a b c]",
        "[_+_ [loop3 b a c] 1]",
    );
    s.op("then-loop3", &["Int"], "Int", "");
    s.eq("n:Int", "[then-loop3 n]", "[_+_ [loop3 n n n] 1]");
    // A memo constructor with an equation for one argument: a value for the others.
    s.op("tag", &["Int"], "Tag", "ctor memo");
    s.eq("", "[tag 0]", "[tag 1]");
    s.op("then-tag", &["Int"], "Tag", "");
    s.eq("n:Int", "[then-tag n]", "[tag [_+_ n 1]]");
    s
}

#[test]
fn memo_functions_are_computed_directly_with_the_machines_tables() {
    let s = memo_functions();
    let fib = |n: usize| {
        let mut f = vec![0i64, 1];
        for i in 2..=n {
            f.push(f[i - 1] + f[i - 2]);
        }
        f[n]
    };
    let mut wins = vec![false; 301];
    for n in 1..=300 {
        wins[n] = [1, 3, 4].iter().any(|&m| m <= n && !wins[n - m]);
    }
    let binom = |n: u64, k: u64| (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1));
    for n in [0, 1, 2, 10, 60] {
        let (got, used) = both_used(&s, &format!("[fib {n}]"));
        assert_eq!(got, fib(n).to_string(), "fib({n})");
        assert!(used || n < 2, "fib({n}): the direct evaluator ran");
    }
    for n in [0, 1, 2, 7, 100, 300] {
        assert_eq!(
            both(&s, &format!("[win {n}]")),
            wins[n].to_string(),
            "win({n})"
        );
    }
    for (n, k) in [(0, 0), (5, 2), (20, 10), (40, 17)] {
        let got = both(&s, &format!("[binom {n} {k}]"));
        assert_eq!(got, binom(n, k).to_string(), "binom({n}, {k})");
    }
    for (m, n, k) in [(0, 3, 2), (3, 4, 1), (12, 14, 3)] {
        let got = both(&s, &format!("[paths {m} {n} {k}]"));
        assert_eq!(
            got,
            (k * binom(m + n, m)).to_string(),
            "paths({m}, {n}, {k})"
        );
    }
    // The same memo tables: every call computed once, by either path.
    let mut direct = s.engine();
    let mut machine = s.engine();
    machine.direct = false;
    for src in ["[fib 60]", "[win 300]", "[binom 40 17]", "[paths 12 14 3]"] {
        red(&s, &mut direct, src);
        red(&s, &mut machine, src);
    }
    assert!(direct.used_direct());
    for op in ["fib", "win", "binom", "paths"] {
        assert_eq!(
            direct.memo_len(s.id(op)),
            machine.memo_len(s.id(op)),
            "{op}: memo entries"
        );
    }
    assert_eq!(direct.memo_len(s.id("fib")), 61);
    // A memo call no equation applies to is the machine's to remember, without an
    // error on the way (which would run the reduction again on the machine alone).
    for (n, want) in [(-1, "tag(1)"), (4, "tag(5)")] {
        let (got, used) = both_used(&s, &format!("[then-tag {n}]"));
        assert_eq!(got, want);
        assert!(used, "then-tag({n}): the direct evaluator ran to the end");
    }
    assert_eq!(direct.memo_len(s.id("win")), 301);
}

/// A memo call met again while it is computed, and one whose computation is stuck: the
/// machine's errors, and no call left marked as being computed — asked again, the same
/// error, not a cycle (a mark left behind by the direct evaluator would make the machine,
/// which words the error, report `halves(3)` as a call that needs itself).
/// `src` is an error: the same, with the same trace, with the direct evaluator as on the
/// machine alone. The engine with the direct evaluator, and the error.
fn the_machines_error(s: &Spec, src: &str) -> (Engine, String) {
    let mut direct = s.engine();
    let mut machine = s.engine();
    machine.direct = false;
    let want = red(s, &mut machine, src);
    assert!(want.starts_with("ERROR"), "{src}: {want}");
    assert_eq!(red(s, &mut direct, src), want, "{src}");
    assert_eq!(direct.trace(), machine.trace(), "{src}: trace");
    (direct, want)
}

#[test]
fn errors_inside_memo_functions_are_the_machines() {
    let s = memo_functions();
    for src in [
        "[loop 3]",
        "[then-loop 3]",
        "[halves 3]",
        "[then-halves 3]",
        "[_+_ [then-halves 4] [then-halves 3]]",
        "[then-part 5]",
        "[then-loop3 4]",
    ] {
        let (mut direct, want) = the_machines_error(&s, src);
        assert_eq!(red(&s, &mut direct, src), want, "{src}, asked again");
    }
    let mut e = s.engine();
    let t = term(&s, &mut e, "[loop 3]");
    assert!(matches!(e.reduce(t), Err(RuntimeError::Cycle { .. })));
    let t = term(&s, &mut e, "[then-loop 3]");
    assert!(matches!(e.reduce(t), Err(RuntimeError::Cycle { .. })));
    for _ in 0..2 {
        let t = term(&s, &mut e, "[then-halves 3]");
        assert!(matches!(e.reduce(t), Err(RuntimeError::Stuck { .. })));
    }
    // then-halves(4) = half(4) + half(6) + 1.
    assert_eq!(red(&s, &mut e, "[then-halves 4]"), "6");
    for _ in 0..2 {
        let t = term(&s, &mut e, "[then-part 5]");
        assert!(matches!(e.reduce(t), Err(RuntimeError::Stuck { .. })));
    }
    assert_eq!(red(&s, &mut e, "[then-part 0]"), "1");
}

/// The memo limit stops a direct computation as it stops the machine's.
#[test]
fn the_memo_limit_holds_for_direct_memo_functions() {
    let s = memo_functions();
    for direct in [true, false] {
        let mut e = s.engine();
        e.direct = direct;
        e.limits.max_memo_entries = 20;
        let t = term(&s, &mut e, "[fib 60]");
        assert!(
            matches!(e.reduce(t), Err(RuntimeError::MemoLimit { limit: 20, .. })),
            "direct = {direct}"
        );
        let t = term(&s, &mut e, "[fib 10]");
        assert_eq!(e.reduce(t).map(|v| e.show(v)).ok(), Some("55".into()));
    }
}

/// A question asked without building it (`Engine::reduce_app`, what solvers and agents
/// ask of every position) is rewritten by the direct evaluator from its top: the answers,
/// rewrite counts and errors of `reduce` on the built term, on the machine alone too.
#[test]
fn questions_asked_without_a_term_agree_with_reduce() {
    let cases: [(Spec, &str, &[&str]); 5] = [
        (peano(), "ack", &["[nat 2]", "[nat 3]"]),
        (peano(), "collatz", &["27", "0"]),
        (memo_functions(), "fib", &["40"]),
        (memo_functions(), "then-halves", &["3"]),
        (not_sort_decreasing(), "h", &["2"]),
    ];
    for (s, op, args) in cases {
        for (direct, cache) in [(true, false), (true, true), (false, false)] {
            let mut asked = s.engine();
            let mut built = s.engine();
            for e in [&mut asked, &mut built] {
                e.direct = direct;
                e.call_cache = cache;
            }
            let values: Vec<_> = args
                .iter()
                .map(|a| {
                    let t = term(&s, &mut asked, a);
                    asked.reduce(t).expect("a value")
                })
                .collect();
            let before = asked.steps();
            let got = match asked.reduce_app(s.id(op), &values) {
                Ok(v) => asked.show(v),
                Err(err) => format!("ERROR: {}", asked.describe(&err)),
            };
            let src = format!("[{op} {}]", args.join(" "));
            let arg_steps = {
                for a in args {
                    let t = term(&s, &mut built, a);
                    built.reduce(t).expect("a value");
                }
                built.steps()
            };
            let want = red(&s, &mut built, &src);
            assert_eq!(got, want, "{src} (direct {direct}, cache {cache})");
            if !want.starts_with("ERROR") {
                assert_eq!(
                    asked.steps() - before,
                    built.steps() - arg_steps,
                    "{src} (direct {direct}, cache {cache}): rewrites"
                );
            }
            assert_eq!(
                asked.used_direct(),
                direct && !want.starts_with("ERROR"),
                "{src}"
            );
        }
    }
}

#[test]
fn the_memory_budget_is_read_rarely_but_read() {
    // Reading the process's resident memory asks the kernel: every 4,096 direct steps it
    // was a tenth of binary-add's time. A long direct reduction reads it about once every
    // 2^18 steps, and does read it (else the budget would not hold).
    let s = peano();
    let mut e = engine(&s, true, false);
    let got = red(&s, &mut e, "[val [ack [nat 3] [nat 7]]]");
    assert_eq!(got, ackermann(3, 7).to_string());
    assert!(e.used_direct());
    let (steps, checks) = (e.steps(), e.memory_checks());
    assert!(steps > 1 << 19, "{steps} steps: long enough to need checks");
    assert!(
        checks >= 1 && checks <= (steps >> 18) + 1,
        "{checks} reads of the resident memory in {steps} steps"
    );
}

/// Functions whose right-hand side is a constructor around a call giving its last
/// argument (`s(plus(M, N))`): made in a loop by the direct evaluator, the constructors
/// pending (`Engine::d_apply`).
fn pending_constructors() -> Spec {
    let mut s = peano();
    // The same shape as a memo function: its table must get every level's value.
    s.op("ups", &["Int"], "P", "memo");
    s.eq("", "[ups 0]", "z");
    s.owise("k:Int", "[ups k]", "[s [ups [_-_ k 1]]]");
    // Stuck at an odd number, under as many pending constructors as it went down.
    s.op("evens", &["Int"], "P", "");
    s.eq("", "[evens 0]", "z");
    s.ceq(
        "k:Int",
        "[evens k]",
        "[s [evens [_-_ k 2]]]",
        "[_==_ [_rem_ k 2] 0]",
    );
    s.op("then-evens", &["Int"], "Int", "");
    s.eq("k:Int", "[then-evens k]", "[_+_ [val [evens k]] 1]");
    s
}

#[test]
fn calls_under_a_constructor_run_in_a_loop_with_the_machines_answers() {
    let s = pending_constructors();
    // 20,000 levels: past the native stack a nested call per level would need here.
    for (src, want) in [
        ("[val [plus [nat 20000] [nat 3]]]", 20003),
        ("[val [plus [nat 7] [nat 3]]]", 10),
        ("[val [evens 300]]", 150),
        ("[val [twice [nat 12]]]", 1 << 12),
    ] {
        assert_eq!(both(&s, src), want.to_string(), "{src}");
    }
    let mut e = engine(&s, true, false);
    red(&s, &mut e, "[val [plus [nat 20000] [nat 3]]]");
    assert!(
        e.conses_built() >= 2 * 20000,
        "{} constructors built after their calls (`nat` and `plus`)",
        e.conses_built()
    );
    // A memo function of that shape: each level's value in its table, as the machine's.
    let mut direct = s.engine();
    let mut machine = s.engine();
    machine.direct = false;
    for e in [&mut direct, &mut machine] {
        assert_eq!(red(&s, e, "[val [ups 40]]"), "40");
        assert_eq!(e.memo_len(s.id("ups")), 41);
    }
    // Each level's value read back from the table (no new entry: nothing recomputed).
    for k in [39, 17, 1, 0] {
        let src = format!("[val [ups {k}]]");
        assert_eq!(red(&s, &mut direct, &src), k.to_string(), "{src}");
        assert_eq!(direct.memo_len(s.id("ups")), 41, "{src}");
    }
}

#[test]
fn the_call_cache_answers_calls_under_pending_constructors() {
    // `app(L, M)` met again inside another chain (`app(cons(3, L), M)`), and a suffix's
    // `app` recorded at the level it was asked: every answer the machine's.
    let s = lists();
    let mut cached = engine(&s, true, true);
    let next = |r: i64| (r * 1103515245 + 12345) % 2147483648;
    let (r1, r2) = (next(1), next(next(1)));
    let m = "[rand 5 7]";
    for (src, under) in [
        (format!("[chk [app [rand 50 1] {m}] 1]"), 50),
        // `app(cons(3, L), M)` is new: its `app(L, M)`, one constructor down, is known.
        (
            format!("[chk [app [cons 4 [cons 3 [rand 50 1]]] {m}] 1]"),
            1,
        ),
        // Asked one and two constructors down in the first chain.
        (format!("[chk [app [rand 49 {r1}] {m}] 1]"), 0),
        (format!("[chk [app [rand 48 {r2}] {m}] 1]"), 0),
        (format!("[chk [app [cons 3 [rand 50 1]] {m}] 1]"), 0),
    ] {
        let mut machine = s.engine();
        machine.direct = false;
        let want = red(&s, &mut machine, &src);
        let before = cached.conses_built();
        assert_eq!(red(&s, &mut cached, &src), want, "{src}");
        // How many constructors the direct evaluator left pending: the first chain's
        // (and `rand`'s), then only down to the call the cache knows.
        let built = cached.conses_built() - before;
        assert!(
            built >= under && (under > 1 || built <= under),
            "{src}: {built}"
        );
    }
}

#[test]
fn errors_under_pending_constructors_are_the_machines() {
    let s = pending_constructors();
    for src in ["[evens 7]", "[then-evens 41]", "[val [evens 301]]"] {
        let (mut direct, _) = the_machines_error(&s, src);
        // The engine is left clean: the next reduction is right.
        assert_eq!(
            red(&s, &mut direct, "[val [evens 40]]"),
            "20",
            "after {src}"
        );
    }
    // The depth limit counts pending constructors as the machine counts its frames.
    for direct in [true, false] {
        let mut e = s.engine();
        e.direct = direct;
        e.limits.max_depth = 500;
        let t = term(&s, &mut e, "[plus [nat 2000] z]");
        assert!(
            matches!(e.reduce(t), Err(RuntimeError::DepthLimit { .. })),
            "direct = {direct}"
        );
        assert_eq!(red(&s, &mut e, "[val [nat 100]]"), "100");
    }
}
