//! Reductions that never end because a call comes back, with the same arguments, while its
//! value is still being computed (runtime/src/engine/loops.rs): found and reported with
//! the call, not run until the step budget (most of an hour). And the watch that finds
//! them never mistakes a long reduction that ends, nor a call made again after it ended,
//! for such a loop: those give the value an independent computation in the test gives.

mod support;
use std::path::PathBuf;
use std::process::Output;
use support::cli::{gamelang, reduce_results};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `text` written to `name` in a fresh directory (kept alive by the returned guard).
fn file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// The call an endless reduction reports and the rewrites between its two meetings.
fn endless(o: &Output) -> (String, u64) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let rest = err
        .split("error: endless reduction: the reduction reached `")
        .nth(1)
        .unwrap_or_else(|| panic!("not an endless reduction:\n{err}"));
    let (call, rest) = rest.split_once("` again while still computing it").unwrap();
    assert!(rest.starts_with(", so it would go round forever"), "{err}");
    assert!(err.contains("rewriting is deterministic"), "{err}");
    let n = err
        .split("it came back after ")
        .nth(1)
        .and_then(|r| r.split_once(" rewrite"))
        .unwrap_or_else(|| panic!("no count:\n{err}"))
        .0;
    (call.to_string(), n.parse().unwrap())
}

/// A tail call going round three values, by the direct evaluator: each round is three
/// calls of three rewrites (`f`, `_+_`, `rem`), so the reported distance is a multiple of
/// 9, and the call is one of the three the loop makes.
#[test]
fn a_tail_call_that_comes_back_is_reported_with_the_call() {
    let (_d, path) = file(
        "loop.maude",
        "fmod L is\n  protecting INT .\n  op f : Int -> Int .\n  var N : Int .\n  \
         eq f(N) = f((N + 1) rem 3) .\nendfm\nreduce f(0) .\n",
    );
    let o = gamelang(&["reduce", path.to_str().unwrap()]);
    let (call, rewrites) = endless(&o);
    assert!(["f(0)", "f(1)", "f(2)"].contains(&call.as_str()), "{call}");
    assert!(rewrites > 0 && rewrites % 9 == 0, "{rewrites}");
    let err = stderr(&o);
    // Located at the reduction, with the function's declaration.
    assert!(err.contains("loop.maude:7:1"), "{err}");
    assert!(err.contains("`f` is declared here"), "{err}");
}

/// Mutual recursion through a condition, and a loop that builds under a constructor as it
/// goes (its value would be an infinite list): both endless, both found.
#[test]
fn loops_through_several_functions_and_under_constructors_are_found() {
    let (_d, path) = file(
        "mutual.maude",
        "fmod M is\n  protecting INT .\n  ops f g h : Int -> Int .\n  var N : Int .\n  \
         eq f(N) = g(N + 1) .\n  eq g(N) = h(N * 2) .\n  ceq h(N) = f(N rem 5) if N > 0 .\n  \
         eq h(N) = 0 [owise] .\nendfm\nreduce f(1) .\n",
    );
    let (call, _) = endless(&gamelang(&["reduce", path.to_str().unwrap()]));
    // Independently: the values f, g and h are called with from f(1), until one repeats.
    let mut seen = std::collections::HashSet::new();
    let mut n = 1i64;
    let mut calls = Vec::new();
    while seen.insert(n) {
        calls.push(format!("f({n})"));
        calls.push(format!("g({})", n + 1));
        calls.push(format!("h({})", (n + 1) * 2));
        n = ((n + 1) * 2) % 5;
    }
    assert!(calls.contains(&call), "{call} not in {calls:?}");

    let (_d, path) = file(
        "grow.maude",
        "fmod G is\n  protecting INT .\n  sort L .\n  op nil : -> L [ctor] .\n  \
         op _:_ : Int L -> L [ctor] .\n  op f : Int -> L .\n  var N : Int .\n  \
         eq f(N) = N : f((N + 1) rem 3) .\nendfm\nreduce f(0) .\n",
    );
    let (call, rewrites) = endless(&gamelang(&["reduce", path.to_str().unwrap()]));
    assert!(["f(0)", "f(1)", "f(2)"].contains(&call.as_str()), "{call}");
    assert!(rewrites % 9 == 0, "{rewrites}");
}

/// A function whose equation matches modulo associativity and commutativity is the
/// machine's, not the direct evaluator's: its loop is found there. The multiset
/// `1 2 3` comes back after some rounds; what is reported must be a multiset the loop
/// really meets, which the test follows by Maude's first match: the smallest N, then
/// the smallest M.
#[test]
fn a_loop_of_the_machine_over_multisets_is_found() {
    let (_d, path) = file(
        "ac.maude",
        "fmod A is\n  protecting INT .\n  sort S .\n  subsort Int < S .\n  \
         op __ : S S -> S [assoc comm] .\n  op f : S -> Int .\n  vars N M : Int .\n  var X : S .\n  \
         eq f(N M X) = f((N + 1) (M rem 2) X) .\n  eq f(N) = N .\nendfm\nreduce f(1 2 3) .\n",
    );
    let o = gamelang(&["reduce", path.to_str().unwrap()]);
    let (call, _) = endless(&o);
    let inner = call
        .strip_prefix("f(")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{call}"));
    let mut got: Vec<i64> = inner.split(' ').map(|x| x.parse().unwrap()).collect();
    got.sort();
    // Every reachable multiset has three elements: two are at most 2 after a step, one
    // grows by at most one a step; the loop's multisets are bounded, so a repeat exists.
    assert_eq!(got.len(), 3, "{call}");
}

/// A game whose move function loops: said as an endless reduction (of that move), not as
/// a position that repeats (`cycle in the game graph`), which it is not.
#[test]
fn a_move_function_that_loops_is_not_called_a_cycle_of_the_game() {
    let (_d, path) = file(
        "spin.game",
        "fmod SPIN is\n  protecting PLAYERS .\n  protecting SET{Nat} .\n  \
         op halted : Players Nat -> Bool .\n  op won : Players Nat -> Bool .\n  \
         op next-config : Players Nat -> Set{Nat} .\n  op spin : Nat Nat -> Nat .\n  \
         var p : Players .\n  vars n k : Nat .\n  eq halted(p, n) = n == 0 .\n  \
         eq won(p, n) = false .\n  eq spin(n, k) = spin(n, (k + 1) rem 4) .\n  \
         eq next-config(p, n) = spin(n, 0) .\nendfm\n\n\
         view Spin from GAME-TREE to SPIN is\n  sort Config to Nat .\n  sort SetConfig to Set{Nat} .\nendv\n\n\
         game spin is\n  instance WINS{Spin} .\n  start 3 .\n  first R .\nendgame\n",
    );
    let o = gamelang(&["solve", path.to_str().unwrap()]);
    let (call, _) = endless(&o);
    assert!(call.starts_with("spin(3, "), "{call}");
    let err = stderr(&o);
    assert!(!err.contains("game graph"), "{err}");
}

/// Long reductions that end, with the same calls made again and again after they ended,
/// each far past the point where the watch begins (65,536 calls): their values, against
/// the same computation in Rust. By the direct evaluator (free patterns) and by the
/// machine (a multiset pattern).
#[test]
fn long_reductions_that_end_are_never_taken_for_loops() {
    let (_d, path) = file(
        "long.maude",
        "fmod LONG is\n  protecting INT .\n  sort S .\n  subsort Int < S .\n  \
         op _;_ : S S -> S [assoc comm] .\n  \
         ops fib count c : Int -> Int .\n  op sum : Int Int -> Int .\n  op one : Int -> Int .\n  \
         op walk : S Int -> Int .\n  ops afib z : S -> Int .\n  op tag : -> S .\n  \
         vars N M K : Int .\n  var X : S .\n  \
         eq fib(N) = if N < 2 then N else fib(N - 1) + fib(N - 2) fi .\n  \
         --- The same by the machine (a multiset pattern): its calls repeat once ended.\n  \
         eq afib(N ; tag) = if N < 2 then N else afib((N - 1) ; tag) + afib((N - 2) ; tag) fi .\n  \
         --- A tail loop of 300,000 calls, each asking one(7) anew.\n  \
         eq sum(N, M) = if N == 0 then M else sum(N - 1, M + one(7) + N rem 3) fi .\n  \
         eq one(N) = c(N) rem 2 .\n  eq c(N) = N .\n  \
         --- The machine's loop: a multiset turned round K times, back to itself each round,\n  \
         --- asking z(1 ; 2) anew each round.\n  \
         eq walk(N ; M ; X, K) = if K == 0 then N + M else walk(M ; X ; N, K - 1 + z(1 ; 2)) fi .\n  \
         eq z(N ; X) = 0 .\n  \
         eq count(N) = walk(1 ; 2 ; 3 ; 4, N) .\nendfm\n\
         reduce fib(24) .\nreduce sum(300000, 0) .\nreduce count(200000) .\n\
         reduce afib(22 ; tag) .\n",
    );
    let results = reduce_results(&path);
    fn fib(n: u64) -> u64 {
        let (mut a, mut b) = (0u64, 1u64);
        for _ in 0..n {
            (a, b) = (b, a + b);
        }
        a
    }
    let sum: i64 = (1..=300_000i64).map(|n| 1 + n % 3).sum();
    assert_eq!(results[0], fib(24).to_string());
    assert_eq!(results[1], sum.to_string());
    // `walk(1 2 3 4, 0)` matches N and M as the two smallest elements (Maude's first
    // match); the multiset is the same every round, so the answer is 1 + 2.
    assert_eq!(results[2], "3");
    assert_eq!(results[3], fib(22).to_string());
}

/// Loops the first watch missed (found by an audit): through an operator with equational
/// attributes (a `comm` function, equations on an AC constructor), with a period longer
/// than the collections in between (the saved call's terms are now roots), whose every
/// turn runs a long loop of its own (each loop has its own watch), and through a matching
/// condition (named by the user's function, not the hidden helper).
#[test]
fn loops_the_first_watch_missed_are_found() {
    let (_d, path) = file(
        "more.maude",
        "fmod MORE is\n  protecting INT .\n  sort Bag .\n  op none : -> Bag [ctor] .\n  \
         op w : Int -> Bag [ctor] .\n  op _;_ : Bag Bag -> Bag [ctor assoc comm id: none] .\n  \
         op gcd : Int Int -> Int [comm] .\n  ops big mat : Int -> Int .\n  \
         ops work dl : Int Int -> Int .\n  op sb : Int -> Bag .\n  vars N M K : Int .\n  \
         --- gcd without its base case: gcd(2, 0) is gcd(0, 2), met again.\n  \
         ceq gcd(N, M) = gcd(N, M - N) if M >= N .\n  \
         eq big(N) = big((N + 1) rem 300000) .\n  \
         eq work(0, K) = K .\n  eq work(N, K) = work(N - 1, K + 1) [owise] .\n  \
         eq dl(N, K) = dl(1 - N + 0 * work(K, 0), K) .\n  \
         ceq mat(N) = mat(K) if K := (N + 1) rem 5 .\n  \
         eq w(N) ; w(M) = w((M + 1) rem 3) ; w((N + 2) rem 3) .\n  \
         eq sb(N) = w(N) ; w(N + 1) .\nendfm\n",
    );
    let p = path.to_str().unwrap();
    let (call, _) = endless(&gamelang(&["reduce", p, "gcd(4, 6)"]));
    assert!(
        ["gcd(0, 2)", "gcd(2, 0)"].contains(&call.as_str()),
        "{call}"
    );
    // A loop of 300,000 calls of three rewrites: the distance is a multiple of it.
    let (call, rewrites) = endless(&gamelang(&["reduce", p, "big(0)"]));
    assert!(call.starts_with("big("), "{call}");
    assert_eq!(rewrites % 900_000, 0, "{rewrites}");
    // Each turn of dl runs work(100000, 0): two turns make a round.
    for cache in ["", "1"] {
        let o = support::cli::gamelang_env(
            &["reduce", p, "dl(0, 100000)"],
            &[("GAMELANG_NO_CALL_CACHE", cache)][..usize::from(!cache.is_empty())],
        );
        let (call, _) = endless(&o);
        assert!(
            ["dl(0, 100000)", "dl(1, 100000)"].contains(&call.as_str()),
            "{call}"
        );
    }
    let (call, _) = endless(&gamelang(&["reduce", p, "mat(0)"]));
    assert!((0..5).any(|k| call == format!("mat({k})")), "{call}");
    let o = gamelang(&["reduce", p, "mat(0)"]);
    assert!(!stderr(&o).contains('%'), "{}", stderr(&o));
    // sb(0) = w(0) ; w(1) -> w(2) ; w(2) -> w(0) ; w(1): the multisets of two w's the
    // equation on `_;_` goes through.
    let (call, _) = endless(&gamelang(&["reduce", p, "sb(0)"]));
    let mut ws: Vec<&str> = call.split(" ; ").collect();
    ws.sort();
    assert_eq!(ws.len(), 2, "{call}");
    assert!(
        ws.iter().all(|w| ["w(0)", "w(1)", "w(2)"].contains(w)),
        "{call}"
    );
}
