//! Profiles (`--profile`, the REPL's `set profile on` / `show profile`,
//! runtime/src/engine/profile.rs): each equation's applications, the matches its
//! condition refused and each built-in's evaluations, against the same counts computed
//! here by simulating the equations in Rust; the total against the rewrites the engine
//! reports; and what the commands print.

mod support;

use gamelang_lang::elab::Session;
use gamelang_runtime::{Engine, Profile};
use std::collections::HashMap;
use std::sync::Arc;
use support::cli::{gamelang, gamelang_env, gamelang_with_input};

/// Binary numerals, least significant bit outermost (bench/rewriting/binary-add.maude).
const BINARY: &str = "fmod BINARY-ADD is
  protecting INT .
  sort Bin .
  op e : -> Bin [ctor] .
  ops o i : Bin -> Bin [ctor] .
  op inc : Bin -> Bin .
  op add : Bin Bin -> Bin .
  op sumto : Int Bin Bin -> Bin .
  op toInt : Bin -> Int .
  vars A B : Bin .
  var K : Int .
  eq inc(e) = i(e) .
  eq inc(o(A)) = i(A) .
  eq inc(i(A)) = o(inc(A)) .
  eq add(e, B) = B .
  eq add(o(A), e) = o(A) .
  eq add(i(A), e) = i(A) .
  eq add(o(A), o(B)) = o(add(A, B)) .
  eq add(o(A), i(B)) = i(add(A, B)) .
  eq add(i(A), o(B)) = i(add(A, B)) .
  eq add(i(A), i(B)) = o(inc(add(A, B))) .
  eq sumto(0, A, B) = B .
  eq sumto(K, A, B) = sumto(K - 1, inc(A), add(B, inc(A))) [owise] .
  eq toInt(e) = 0 .
  eq toInt(o(A)) = 2 * toInt(A) .
  eq toInt(i(A)) = 2 * toInt(A) + 1 .
endfm
";

/// The equations of [`BINARY`] in order, as the engine numbers them (the prelude's come
/// first; these are the last 15).
const INC_E: usize = 0;
const INC_O: usize = 1;
const INC_I: usize = 2;
const ADD_E: usize = 3;
const ADD_OE: usize = 4;
const ADD_IE: usize = 5;
const ADD_OO: usize = 6;
const ADD_OI: usize = 7;
const ADD_IO: usize = 8;
const ADD_II: usize = 9;
const SUMTO_0: usize = 10;
const SUMTO_K: usize = 11;
const TOINT_E: usize = 12;
const TOINT_O: usize = 13;
const TOINT_I: usize = 14;

/// The counts a simulation of the equations gives: applications per equation of
/// [`BINARY`], and evaluations per built-in by name.
#[derive(Default, Debug, PartialEq)]
struct Counts {
    eqs: [u64; 15],
    builtins: HashMap<&'static str, u64>,
}

/// A numeral as its bits, least significant first.
type Bits = Vec<bool>;

fn inc(x: &[bool], c: &mut Counts) -> Bits {
    match x.split_first() {
        None => {
            c.eqs[INC_E] += 1;
            vec![true]
        }
        Some((false, rest)) => {
            c.eqs[INC_O] += 1;
            let mut r = vec![true];
            r.extend_from_slice(rest);
            r
        }
        Some((true, rest)) => {
            c.eqs[INC_I] += 1;
            let mut r = vec![false];
            r.extend(inc(rest, c));
            r
        }
    }
}

fn add(x: &[bool], y: &[bool], c: &mut Counts) -> Bits {
    let (Some((&a, ra)), Some((&b, rb))) = (x.split_first(), y.split_first()) else {
        if x.is_empty() {
            c.eqs[ADD_E] += 1;
            return y.to_vec();
        }
        c.eqs[if x[0] { ADD_IE } else { ADD_OE }] += 1;
        return x.to_vec();
    };
    let sum = add(ra, rb, c);
    let (bit, rest) = match (a, b) {
        (false, false) => (ADD_OO, (false, sum)),
        (false, true) => (ADD_OI, (true, sum)),
        (true, false) => (ADD_IO, (true, sum)),
        (true, true) => (ADD_II, (false, inc(&sum, c))),
    };
    c.eqs[bit] += 1;
    let mut r = vec![rest.0];
    r.extend(rest.1);
    r
}

/// `toInt(sumto(k, e, e))` as the engine rewrites it: innermost, `inc(A)` (written twice)
/// once per step.
fn simulate(k: u64) -> Counts {
    let mut c = Counts::default();
    let (mut a, mut b): (Bits, Bits) = (Vec::new(), Vec::new());
    for _ in 0..k {
        *c.builtins.entry("_-_").or_default() += 1;
        let a1 = inc(&a, &mut c);
        b = add(&b, &a1, &mut c);
        a = a1;
        c.eqs[SUMTO_K] += 1;
    }
    c.eqs[SUMTO_0] += 1;
    c.eqs[TOINT_E] += 1;
    for &bit in &b {
        c.eqs[if bit { TOINT_I } else { TOINT_O }] += 1;
        *c.builtins.entry("_*_").or_default() += 1;
        if bit {
            *c.builtins.entry("_+_").or_default() += 1;
        }
    }
    c
}

/// A session with `text` loaded and an engine for it, profiling, with the call cache
/// off (so that every call is rewritten, as the simulations count them).
fn profiling(text: &str) -> (Session, Engine) {
    let mut session = Session::new().expect("stdlib");
    session.load_source("test.maude", text).expect("loads");
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.call_cache = false;
    engine.set_profiling(true);
    (session, engine)
}

/// Reduce `term` in `module`: the steps it took.
fn reduce(session: &mut Session, engine: &mut Engine, module: &str, term: &str) -> u64 {
    let m = session.module_by_name(module).expect("module");
    let pat = session.parse_term(m, "test", term, None).expect("parses");
    let t = engine.build(&pat, &[]);
    let before = engine.steps();
    engine.reduce(t).expect("reduces");
    engine.steps() - before
}

/// The counts of `profile` by built-in name.
fn builtins(profile: &Profile, session: &Session) -> HashMap<String, u64> {
    let mut by_name = HashMap::new();
    for (op, &n) in profile.op_rewrites.iter().enumerate() {
        if n > 0 {
            let name = session.program.sig.ops[op].name.clone();
            *by_name.entry(name).or_default() += n;
        }
    }
    by_name
}

#[test]
fn each_equation_and_built_in_is_counted_as_a_simulation_of_the_equations_counts_it() {
    let (mut session, mut engine) = profiling(BINARY);
    let first = session.program.equations.len() - 15;
    for k in [0u64, 1, 2, 7, 100, 1000] {
        let steps = reduce(
            &mut session,
            &mut engine,
            "BINARY-ADD",
            &format!("toInt(sumto({k}, e, e))"),
        );
        let p = engine.take_profile().expect("profiling");
        let want = simulate(k);
        assert_eq!(&p.eq_rewrites[first..], &want.eqs, "k = {k}");
        assert!(
            p.eq_rewrites[..first].iter().all(|&n| n == 0),
            "k = {k}: no prelude equation applies"
        );
        assert_eq!(p.eq_cond_false.iter().sum::<u64>(), 0, "k = {k}");
        let got = builtins(&p, &session);
        let want: HashMap<String, u64> = want
            .builtins
            .iter()
            .map(|(name, &n)| (name.to_string(), n))
            .collect();
        assert_eq!(got, want, "k = {k}");
        assert_eq!(p.total(), steps, "k = {k}: the profile counts every step");
    }
}

/// The moves of seed 003's heaps game (examples/heaps.game): two conditional equations
/// whose conditions are false once at the end of each chain.
const HEAPS: &str = "fmod MOVES is
  protecting INT .
  sort TwoHeaps .
  op (__) : Nat Nat -> TwoHeaps [ctor] .
  op empty : -> TwoHeaps [ctor] .
  op _,_ : TwoHeaps TwoHeaps -> TwoHeaps [ctor assoc comm id: empty] .
  ops take-second take-first : TwoHeaps Nat -> TwoHeaps .
  op next-heaps : TwoHeaps -> TwoHeaps .
  vars a b m : Nat .
  ceq take-second((a b), m) = (a (b - m)), take-second((a (b - m)), m) if 0 < m and m <= b .
  eq take-second((a b), m) = empty [owise] .
  ceq take-first((a b), m) = ((a - m) b), take-first(((a - m) b), m) if 0 < m and m <= a .
  eq take-first((a b), m) = empty [owise] .
  eq next-heaps((a b)) = take-second((a b), a), take-second((a b), b),
                         take-first((a b), a), take-first((a b), b) .
endfm
";

#[test]
fn a_condition_refused_is_counted_against_its_equation() {
    let (mut session, mut engine) = profiling(HEAPS);
    let first = session.program.equations.len() - 5;
    // (Each position once: a term reduced before is a look-up, no steps.)
    for (a, b) in (0..14u64).flat_map(|a| (0..14).map(move |b| (a, b))) {
        let steps = reduce(
            &mut session,
            &mut engine,
            "MOVES",
            &format!("next-heaps(({a} {b}))"),
        );
        let p = engine.take_profile().expect("profiling");
        // A chain from heap h taking m: h / m applications (none for m = 0), then one
        // refused condition and the `owise` equation.
        let chain = |h: u64, m: u64| h.checked_div(m).unwrap_or(0);
        let seconds = chain(b, a) + chain(b, b);
        let firsts = chain(a, a) + chain(a, b);
        let at = |e: usize| p.eq_rewrites[first + e];
        let refused = |e: usize| p.eq_cond_false[first + e];
        let what = format!("next-heaps(({a} {b}))");
        assert_eq!(
            (at(0), refused(0), at(1)),
            (seconds, 2, 2),
            "{what}: take-second"
        );
        assert_eq!(
            (at(2), refused(2), at(3)),
            (firsts, 2, 2),
            "{what}: take-first"
        );
        assert_eq!(at(4), 1, "{what}: next-heaps");
        // Each condition evaluated is `0 < m and m <= h`: three built-ins; each
        // application takes one `_-_` (shared by its two uses).
        let tried = seconds + firsts + 4;
        let got = builtins(&p, &session);
        for name in ["_<_", "_<=_", "_and_"] {
            assert_eq!(got.get(name), Some(&tried), "{what}: {name}");
        }
        assert_eq!(
            got.get("_-_").copied().unwrap_or(0),
            seconds + firsts,
            "{what}"
        );
        assert_eq!(p.total(), steps, "{what}: every step is counted");
    }
}

#[test]
fn profiling_changes_no_normal_form_and_no_count_of_steps() {
    let (mut session, mut profiled) = profiling(BINARY);
    let mut plain = Engine::new(Arc::new(session.program.clone()));
    plain.call_cache = false;
    for k in [3u64, 50, 400] {
        let term = format!("toInt(sumto({k}, e, e))");
        let m = session.module_by_name("BINARY-ADD").expect("module");
        let pat = session.parse_term(m, "test", &term, None).expect("parses");
        let (t1, t2) = (plain.build(&pat, &[]), profiled.build(&pat, &[]));
        let (s1, s2) = (plain.steps(), profiled.steps());
        let (v1, v2) = (plain.reduce(t1).unwrap(), profiled.reduce(t2).unwrap());
        assert_eq!(plain.show(v1), profiled.show(v2), "{term}");
        assert_eq!(plain.steps() - s1, profiled.steps() - s2, "{term}");
        // (k (k + 1) / 2 in binary, read back.)
        assert_eq!(plain.show(v1), (k * (k + 1) / 2).to_string());
    }
    // The step budget still holds while profiling: it stops the reduction where it
    // stops it without.
    profiled.limits.max_steps = 100;
    let m = session.module_by_name("BINARY-ADD").expect("module");
    let pat = session
        .parse_term(m, "test", "toInt(sumto(1000, e, e))", None)
        .expect("parses");
    let t = profiled.build(&pat, &[]);
    let err = profiled.reduce(t).expect_err("over the budget");
    assert!(
        profiled.describe(&err).contains("100"),
        "{}",
        profiled.describe(&err)
    );
}

fn write_temp(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gamelang-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path
}

/// What a successful `gamelang reduce ARGS…` prints, every call rewritten (no call cache).
fn reduce_without_cache(args: &[&str]) -> String {
    let mut all = vec!["reduce"];
    all.extend_from_slice(args);
    let out = gamelang_env(&all, &[("GAMELANG_NO_CALL_CACHE", "1")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The rows of a printed profile: (rewrites, condition refused or `None`, where, what).
fn printed_rows(text: &str) -> Vec<(u64, Option<u64>, String, String)> {
    let header = text
        .lines()
        .position(|l| l.trim_start().starts_with("rewrites") && l.contains("what"))
        .expect("a table header");
    let head = text.lines().nth(header).unwrap();
    let where_at = head.find("where").expect("a where column");
    let what_at = head.find("what").expect("a what column");
    text.lines()
        .skip(header + 1)
        .take_while(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            let mut nums = l[..where_at].split_whitespace();
            let n: u64 = nums.next().unwrap().replace(',', "").parse().unwrap();
            let _share = nums.next().unwrap();
            let refused = nums.next().map(|r| r.replace(',', "").parse().unwrap());
            let place = l[where_at..what_at].trim().to_string();
            (n, refused, place, l[what_at..].to_string())
        })
        .collect()
}

#[test]
fn reduce_prints_each_reductions_profile_after_its_result() {
    let mut text = BINARY.to_string();
    text.push_str("reduce toInt(sumto(20, e, e)) .\nreduce inc(i(i(e))) .\n");
    let path = write_temp("binary.maude", &text);
    // (Without the call cache, which would answer the second from the first's calls.)
    let stdout = reduce_without_cache(&["--profile", path.to_str().unwrap()]);
    let parts: Vec<&str> = stdout.split("result ").skip(1).collect();
    assert_eq!(parts.len(), 2, "{stdout}");
    // The second reduction's own profile, not the first's.
    let rows = printed_rows(parts[1]);
    assert_eq!(
        rows,
        vec![
            (
                2,
                None,
                "binary.maude:14".to_string(),
                "eq inc(i(A)) = o(inc(A)) .".to_string()
            ),
            (
                1,
                None,
                "binary.maude:12".to_string(),
                "eq inc(e) = i(e) .".to_string()
            ),
        ],
        "{stdout}"
    );
    for part in parts {
        let rewrites: u64 = part
            .lines()
            .find_map(|l| l.strip_prefix("rewrites: "))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .expect("a rewrites line");
        let total: u64 = part
            .lines()
            .find_map(|l| l.strip_prefix("profile: "))
            .and_then(|l| l.split_whitespace().next())
            .map(|n| n.replace(',', "").parse().unwrap())
            .expect("a profile line");
        assert_eq!(total, rewrites, "{part}");
        let rows = printed_rows(part);
        assert_eq!(rows.iter().map(|r| r.0).sum::<u64>(), total, "{part}");
        assert!(
            rows.windows(2).all(|w| w[0].0 >= w[1].0),
            "most first: {part}"
        );
    }
}

#[test]
fn solve_and_sweep_print_the_profile_on_standard_error_and_leave_the_answer_alone() {
    let heaps = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
    let plain = gamelang(&["solve", heaps, "--json"]);
    let profiled = gamelang(&["solve", heaps, "--json", "--profile"]);
    assert!(profiled.status.success());
    let a: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&profiled.stdout).unwrap();
    for key in ["winner", "principal_line", "positions", "rewrites"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let err = String::from_utf8(profiled.stderr).unwrap();
    let rows = printed_rows(&err);
    assert_eq!(
        rows.iter().map(|r| r.0).sum::<u64>(),
        b["rewrites"].as_u64().unwrap(),
        "{err}"
    );
    // take-second's condition is refused once at the end of each chain, which its
    // `owise` equation then ends: as many refusals as `owise` applications.
    let refused = rows
        .iter()
        .find(|r| r.3.starts_with("ceq take-second"))
        .and_then(|r| r.1)
        .expect("take-second's row");
    let owise = rows
        .iter()
        .find(|r| r.3.starts_with("eq take-second((a b), m) = empty"))
        .map(|r| r.0)
        .expect("the owise row");
    assert_eq!(refused, owise, "{err}");

    let sweep = gamelang(&[
        "sweep",
        heaps,
        "--from",
        "(k n)",
        "--range",
        "k=1..12",
        "--range",
        "n=1..12",
        "--threads",
        "1",
        "--no-boundaries",
        "--profile",
    ]);
    assert!(sweep.status.success());
    let out = String::from_utf8(sweep.stdout).unwrap();
    assert!(out.starts_with("sweep of heaps"), "{out}");
    assert!(
        !out.contains("profile:"),
        "the profile is not in the report: {out}"
    );
    let err = String::from_utf8(sweep.stderr).unwrap();
    assert!(
        printed_rows(&err)
            .iter()
            .any(|r| r.3.starts_with("eq next-heaps")),
        "{err}"
    );
}

#[test]
fn the_repl_profiles_between_set_profile_on_and_show_profile() {
    let path = write_temp("binary-repl.maude", BINARY);
    let out = gamelang_with_input(
        &["repl", path.to_str().unwrap()],
        "show profile\nset profile on\nreduce inc(i(i(i(e))))\nshow profile\nshow profile\nset profile off\nset\n",
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no profile is being recorded"),
        "show profile before set profile on: {stderr}"
    );
    let shown: Vec<&str> = stdout.split("profile: ").skip(1).collect();
    assert_eq!(shown.len(), 2, "{stdout}");
    let rows = printed_rows(shown[0]);
    assert_eq!(rows[0].0, 3, "inc(i(A)) three times: {stdout}");
    assert!(rows[0].3.starts_with("eq inc(i(A))"), "{stdout}");
    assert!(
        shown[1].starts_with("0 rewrites"),
        "counted from zero again: {stdout}"
    );
    assert!(stdout.contains("profile off"), "{stdout}");
}

/// Maude's `set … .` and `show … .` commands in a file, with an operator called `show`
/// (a word like any other inside a module and a term).
const COMMANDS: &str = "set show timing off .
set show advisories off .
fmod TWICE is
  protecting INT .
  op show : Int -> Int .
  op twice : Int -> Int .
  var N : Int .
  eq show(N) = twice(N) + 1 .
  eq twice(N) = N + N .
endfm
show profile .
set profile on .
red show(20) .
red twice(twice(3)) .
show profile .
set show stats off .
set profile off .
red show(1) .
show profile .
";

#[test]
fn a_files_set_and_show_commands_do_what_they_do_in_maude() {
    let path = write_temp("commands.maude", COMMANDS);
    let stdout = reduce_without_cache(&[path.to_str().unwrap()]);
    let lines: Vec<&str> = stdout.lines().collect();
    // `show profile .` before anything was profiled says so.
    assert!(lines[0].contains("no reduction was profiled"), "{stdout}");
    // No time after `set show timing off .`; no rewrites line after `set show stats off .`.
    assert_eq!(
        lines[1..5],
        [
            "result NzNat: 41",
            "rewrites: 4",
            "result NzNat: 12",
            "rewrites: 4"
        ],
        "{stdout}"
    );
    // `show profile .` shows the last reduction's counts (as Maude): twice twice.
    let profiles: Vec<&str> = stdout.split("profile: ").skip(1).collect();
    assert_eq!(profiles.len(), 3, "{stdout}");
    let rows = printed_rows(profiles[1]);
    assert_eq!(
        rows.iter().map(|r| (r.0, r.3.as_str())).collect::<Vec<_>>(),
        [(2, "eq twice(N) = N + N ."), (2, "built-in _+_")],
        "{stdout}"
    );
    assert!(stdout.contains("result NzNat: 3\nprofile: "), "{stdout}");
    // After `set profile off .` the last profiled reduction is still the one shown.
    assert_eq!(printed_rows(profiles[2]), rows, "{stdout}");

    // A command gamelang does not read is an error at its place, and nothing runs.
    let path = write_temp("unread.maude", &format!("{COMMANDS}set print color on .\n"));
    let out = gamelang(&["reduce", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("gamelang does not read Maude's `set print color on .`"),
        "{stderr}"
    );
    assert!(stderr.contains("unread.maude:20:1"), "{stderr}");
    assert!(
        stderr.contains("set profile on|off, show profile"),
        "{stderr}"
    );
}

#[test]
fn the_repl_loads_a_files_profile_commands() {
    let path = write_temp("commands-repl.maude", COMMANDS);
    let out = gamelang_with_input(&["repl"], &format!("load {}\n", path.display()));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let profiles: Vec<&str> = stdout.split("profile: ").skip(1).collect();
    assert_eq!(profiles.len(), 3, "{stdout}");
    assert!(
        profiles[0].starts_with("no reduction was profiled"),
        "{stdout}"
    );
    let rows = printed_rows(profiles[1]);
    assert_eq!(rows[0].3, "eq twice(N) = N + N .", "{stdout}");
    assert_eq!(
        rows.iter().map(|r| r.0).sum::<u64>(),
        4,
        "the last reduction's: {stdout}"
    );
}

/// Fibonacci twice: by the call cache, and by a memo table.
const FIB: &str = "fmod FIB is
  protecting INT .
  op fib : Int -> Int .
  op mfib : Int -> Int [memo] .
  var N : Int .
  eq fib(N) = if N < 2 then N else fib(N - 1) + fib(N - 2) fi .
  eq mfib(N) = if N < 2 then N else mfib(N - 1) + mfib(N - 2) fi .
endfm
";

#[test]
fn calls_answered_by_the_call_cache_or_a_memo_table_are_counted_apart() {
    let mut session = Session::new().expect("stdlib");
    session.load_source("fib.maude", FIB).expect("loads");
    let op = |s: &Session, name: &str| {
        s.program
            .sig
            .ops
            .iter()
            .position(|o| o.name == name)
            .expect("the operator")
    };
    let (f, m) = (op(&session, "fib"), op(&session, "mfib"));
    let first = session.program.equations.len() - 2;
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.set_profiling(true);
    let mut answered = 0;
    for n in [2u64, 10, 25, 27] {
        // Every call of `fib` is rewritten by its equation or answered by the cache; the
        // calls are the first and two for each application with N >= 2, which adds once.
        reduce(&mut session, &mut engine, "FIB", &format!("fib({n})"));
        let p = engine.take_profile().expect("profiling");
        let plus = builtins(&p, &session).get("_+_").copied().unwrap_or(0);
        assert_eq!(
            p.eq_rewrites[first] + p.cache_hits[f],
            1 + 2 * plus,
            "fib({n}): every call rewritten or answered"
        );
        assert_eq!(
            p.memo_hits.iter().sum::<u64>(),
            0,
            "fib({n}): no memo table"
        );
        answered += p.cache_hits[f];
    }
    assert!(answered > 0, "the call cache answers calls of fib");

    for k in [2u64, 10, 40] {
        // The memo function, on a fresh table: each value 0..=k computed once, and the
        // second call of each application computing 3..=k (`mfib(N - 2)`, computed
        // under its first) answered by it; computing 2, `mfib(0)` is new.
        let mut engine = Engine::new(Arc::new(session.program.clone()));
        engine.set_profiling(true);
        reduce(&mut session, &mut engine, "FIB", &format!("mfib({k})"));
        let p = engine.take_profile().expect("profiling");
        assert_eq!(
            p.eq_rewrites[first + 1],
            k + 1,
            "mfib({k}): each value once"
        );
        assert_eq!(
            p.memo_hits[m],
            k - 2,
            "mfib({k}): the second call of each level"
        );
        assert_eq!(
            p.cache_hits[m], 0,
            "mfib({k}): a memo call is not the cache's"
        );
    }
}

#[test]
fn a_match_adds_up_the_profiles_of_its_games_and_plays_the_same_games() {
    let ttt = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tictactoe.game");
    let args = [
        "match",
        ttt,
        "--agents",
        "random,random",
        "--games",
        "6",
        "--seed",
        "3",
        "--json",
    ];
    let plain = gamelang(&args);
    let mut with = args.to_vec();
    with.push("--profile");
    let profiled = gamelang(&with);
    assert!(profiled.status.success());
    let a: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&profiled.stdout).unwrap();
    for key in ["games", "wins", "draws", "avg_plies", "avg_branching"] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let err = String::from_utf8(profiled.stderr).unwrap();
    let total: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("profile: "))
        .and_then(|l| l.split_whitespace().next())
        .map(|n| n.replace(',', "").parse().unwrap())
        .expect("a profile line");
    let rows = printed_rows(&err);
    assert!(total > 0, "{err}");
    assert_eq!(rows.iter().map(|r| r.0).sum::<u64>(), total, "{err}");
    assert!(
        rows.iter().any(|r| r.2.starts_with("tictactoe.game:")),
        "{err}"
    );
}

/// The profile `--profile=json` printed as the last line of `text`.
fn json_profile(text: &str) -> serde_json::Value {
    let line = text.lines().last().expect("a profile line");
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn the_json_profile_has_the_tables_rows_with_each_equations_whole_text_and_place() {
    let mut text = BINARY.to_string();
    text.push_str("reduce toInt(sumto(20, e, e)) .\n");
    let path = write_temp("binary-json.maude", &text);
    let path = path.to_str().unwrap();
    let table = reduce_without_cache(&["--profile", path]);
    let json = reduce_without_cache(&["--profile=json", path]);
    // The result and its rewrites line (but for the time), then the profile as one
    // line of JSON.
    let (head, _) = table.split_once("profile: ").unwrap();
    let lines_of = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| l.split("time:").next().unwrap().to_string())
            .collect()
    };
    let (mut printed, head_lines) = (lines_of(&json), lines_of(head));
    printed.pop();
    assert_eq!(printed, head_lines, "{json}");
    let p = json_profile(&json);
    let rewrites: u64 = head
        .lines()
        .find_map(|l| l.strip_prefix("rewrites: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("a rewrites line");
    assert_eq!(p["rewrites"], rewrites, "{json}");

    // Row by row, in the table's order: the same counts, the equation's place and its
    // text (whole where the table cuts it), the built-ins by name.
    let rows = printed_rows(&table);
    let equations = p["equations"].as_array().unwrap();
    let builtins = p["builtins"].as_array().unwrap();
    assert_eq!(rows.len(), equations.len() + builtins.len(), "{json}");
    let lines: Vec<&str> = text.lines().collect();
    let (mut e, mut b) = (0, 0);
    for (n, refused, place, what) in &rows {
        if let Some(op) = what.strip_prefix("built-in ") {
            assert_eq!(builtins[b]["op"], op.trim_end(), "{json}");
            assert_eq!(builtins[b]["rewrites"], *n, "{json}");
            b += 1;
            continue;
        }
        let row = &equations[e];
        e += 1;
        assert_eq!(row["rewrites"], *n, "{json}");
        assert_eq!(row["cond_false"].as_u64(), *refused, "{json}");
        assert_eq!(row["file"], path, "{json}");
        let line = row["line"].as_u64().unwrap() as usize;
        assert_eq!(*place, format!("binary-json.maude:{line}"), "{json}");
        let equation = row["equation"].as_str().unwrap();
        assert!(
            equation.starts_with(what.trim_end().trim_end_matches('…')),
            "{equation} against the table's {what}"
        );
        // Written at that line of the file, as it is printed.
        assert_eq!(lines[line - 1].trim(), equation, "{json}");
    }
    let sum = |rows: &[serde_json::Value]| {
        rows.iter()
            .map(|r| r["rewrites"].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(sum(equations) + sum(builtins), rewrites, "{json}");
}

#[test]
fn solve_prints_the_json_profile_on_standard_error_for_every_kind_of_game() {
    // A two-player game and a chance game (whose `solve --profile` printed nothing
    // before): the answer on standard output unchanged, the profile the last line of
    // standard error, adding up to the rewrites the answer reports.
    for game in ["heaps.game", "tosses.game"] {
        let file = format!("{}/examples/{game}", env!("CARGO_MANIFEST_DIR"));
        let plain = gamelang(&["solve", &file, "--json"]);
        let profiled = gamelang(&["solve", &file, "--json", "--profile=json"]);
        assert!(profiled.status.success(), "{game}");
        let a: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&profiled.stdout).unwrap();
        for key in [
            "winner",
            "principal_line",
            "states",
            "positions",
            "rewrites",
        ] {
            assert_eq!(a[key], b[key], "{game}: {key}");
        }
        let err = String::from_utf8(profiled.stderr).unwrap();
        let p = json_profile(&err);
        let rewrites = b["rewrites"].as_u64().expect("rewrites");
        assert!(rewrites > 0, "{game}");
        assert_eq!(p["rewrites"], rewrites, "{game}: {err}");
        let counted: u64 = ["equations", "builtins"]
            .iter()
            .flat_map(|k| p[*k].as_array().unwrap())
            .map(|r| r["rewrites"].as_u64().unwrap())
            .sum();
        assert_eq!(counted, rewrites, "{game}: {err}");
        assert!(
            p["equations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["file"].as_str().unwrap().ends_with(game)),
            "{game}: the game's own equations: {err}"
        );
        // The table for the chance game too.
        let table = gamelang(&["solve", &file, "--profile"]);
        let err = String::from_utf8(table.stderr).unwrap();
        assert_eq!(
            printed_rows(&err).iter().map(|r| r.0).sum::<u64>(),
            rewrites,
            "{game}: {err}"
        );
    }
    let bad = gamelang(&["solve", "examples/heaps.game", "--profile=xml"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(
        err.contains("invalid value 'xml'") && err.contains("json"),
        "{err}"
    );
}

#[test]
fn the_repl_shows_the_profile_as_json_on_request() {
    let path = write_temp("binary-repl-json.maude", BINARY);
    let out = gamelang_with_input(
        &["repl", path.to_str().unwrap()],
        "set profile on\nreduce inc(i(i(i(e))))\nshow profile json\nshow profile yaml\n",
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("a JSON line: {stdout}"));
    let p: serde_json::Value = serde_json::from_str(line).unwrap();
    // inc(i(A)) three times, then inc(e) once.
    assert_eq!(p["rewrites"], 4, "{line}");
    assert_eq!(p["equations"][0]["rewrites"], 3, "{line}");
    assert_eq!(
        p["equations"][0]["equation"], "eq inc(i(A)) = o(inc(A)) .",
        "{line}"
    );
    assert_eq!(
        p["equations"][1]["equation"], "eq inc(e) = i(e) .",
        "{line}"
    );
    assert!(
        stderr.contains("cannot show the profile as `yaml`"),
        "{stderr}"
    );
}
