//! Integer and Boolean expressions (the strict built-ins of the prelude's INT and BOOL),
//! which the engine computes unboxed where it can (runtime/src/engine/arith.rs), against
//! an evaluator written here: random expressions over three integer variables and one
//! Boolean, at values chosen to reach every edge (zero, ±1, the word's ends, shifts past
//! 63), over the prelude's own names and Maude's (`gcd`, `_^_`, `_&_`, `_<<_`, …), each asked as a constructor's argument (`k(E)`, which the engine evaluates as a
//! child) and as a condition (`ceq g(…) = 1 if E`). The normal form, the error (overflow,
//! division by zero, an argument out of range) and the rewrites taken — one for the
//! equation and one per built-in applied — must all be the evaluator's.

mod support;

use gamelang_lang::elab::Session;
use gamelang_lang::program::Pat;
use gamelang_runtime::{Engine, RuntimeError, TermId};
use std::fmt::Write as _;
use std::sync::Arc;
use support::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Int(i64),
    Bool(bool),
}

/// Why an expression has no value (the engine's `RuntimeError` variants).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fail {
    Overflow,
    DivisionByZero,
    OutOfRange,
}

#[derive(Clone, Debug)]
enum Expr {
    /// Variable 0, 1, 2 (`X`, `Y`, `Z`: integers) or 3 (`P`: a truth value).
    Var(usize),
    Int(i64),
    Bool(bool),
    /// The prelude's name of a one-argument built-in, and its argument.
    Un(&'static str, Box<Expr>),
    /// The prelude's name of a two-argument built-in, and its arguments.
    Bin(&'static str, Box<Expr>, Box<Expr>),
}

/// The two-argument built-ins giving integers (`xor` is also `Bool`'s: its operands say
/// which, see `is_bool`).
const INT2: [&str; 21] = [
    "+", "-", "*", "quo", "rem", "min", "max", "band", "bor", "bxor", "shl", "shr", "gcd", "lcm",
    "sd", "^", "&", "|", "xor", "<<", ">>",
];
/// The comparisons.
const CMP: [&str; 5] = ["<", "<=", ">", ">=", "divides"];
const INT1: [&str; 7] = ["-", "abs", "popcount", "lowbit", "lowbit-index", "~", "s"];
const BOOL2: [&str; 4] = ["and", "or", "xor", "implies"];
const VARS: [&str; 4] = ["X", "Y", "Z", "P"];

fn gives_bool(op: &str) -> bool {
    matches!(
        op,
        "<" | "<="
            | ">"
            | ">="
            | "divides"
            | "and"
            | "or"
            | "xor"
            | "implies"
            | "not"
            | "=="
            | "=/="
    )
}

/// A random expression of depth at most `depth`, an integer one or a Boolean one.
fn gen(rng: &mut Rng, depth: u32, boolean: bool) -> Expr {
    if depth == 0 || rng.below(4) == 0 {
        return match (boolean, rng.below(3)) {
            (false, 0) => Expr::Int(pick(rng, &[0, 1, 2, 3, 7, 63, 64, 100])),
            (false, _) => Expr::Var(rng.below(3) as usize),
            (true, 0) => Expr::Bool(rng.below(2) == 0),
            (true, _) => Expr::Var(3),
        };
    }
    // (A ground subterm such as `bor(7, 1)` is reduced once and its normal form
    // remembered, so it would count its rewrite only the first time it is met: every
    // application here has a variable below it.)
    let e = gen_app(rng, depth, boolean);
    if ground(&e) {
        return gen(rng, depth, boolean);
    }
    e
}

fn ground(e: &Expr) -> bool {
    match e {
        Expr::Var(_) => false,
        Expr::Int(_) | Expr::Bool(_) => true,
        Expr::Un(_, a) => ground(a),
        Expr::Bin(_, a, b) => ground(a) && ground(b),
    }
}

fn gen_app(rng: &mut Rng, depth: u32, boolean: bool) -> Expr {
    let sub = |rng: &mut Rng, b: bool| Box::new(gen(rng, depth - 1, b));
    if !boolean {
        if rng.below(4) == 0 {
            return Expr::Un(pick(rng, &INT1), sub(rng, false));
        }
        let op = pick(rng, &INT2);
        return Expr::Bin(op, sub(rng, false), sub(rng, false));
    }
    match rng.below(5) {
        0 => Expr::Un("not", sub(rng, true)),
        1 => Expr::Bin(pick(rng, &BOOL2), sub(rng, true), sub(rng, true)),
        2 => {
            let op = if rng.below(2) == 0 { "==" } else { "=/=" };
            let b = rng.below(3) == 0;
            Expr::Bin(op, sub(rng, b), sub(rng, b))
        }
        _ => Expr::Bin(pick(rng, &CMP), sub(rng, false), sub(rng, false)),
    }
}

fn pick<T: Copy>(rng: &mut Rng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u64) as usize]
}

/// The expression in gamelang syntax, fully parenthesised.
fn text(e: &Expr, out: &mut String) {
    match e {
        Expr::Var(v) => out.push_str(VARS[*v]),
        Expr::Int(v) => write!(out, "{v}").unwrap(),
        Expr::Bool(b) => write!(out, "{b}").unwrap(),
        Expr::Un(op, a) => {
            let prefix = if ["-", "not", "~", "s"].contains(op) {
                " "
            } else {
                "("
            };
            out.push_str(op);
            out.push_str(prefix);
            out.push('(');
            text(a, out);
            out.push(')');
            if prefix == "(" {
                out.push(')');
            }
        }
        Expr::Bin(op, a, b) if op.chars().all(|c| c.is_ascii_lowercase()) && !is_infix(op) => {
            write!(out, "{op}(").unwrap();
            text(a, out);
            out.push_str(", ");
            text(b, out);
            out.push(')');
        }
        Expr::Bin(op, a, b) => {
            out.push('(');
            text(a, out);
            write!(out, ") {op} (").unwrap();
            text(b, out);
            out.push(')');
        }
    }
}

fn is_infix(op: &str) -> bool {
    matches!(
        op,
        "quo" | "rem" | "divides" | "and" | "or" | "xor" | "implies"
    )
}

/// The built-ins an expression applies (each is one rewrite): one per distinct
/// application, since a subterm written twice in an equation is reduced once.
fn ops(e: &Expr) -> u64 {
    fn walk(e: &Expr, seen: &mut std::collections::HashSet<String>) {
        match e {
            Expr::Var(_) | Expr::Int(_) | Expr::Bool(_) => {}
            Expr::Un(_, a) => walk(a, seen),
            Expr::Bin(_, a, b) => {
                walk(a, seen);
                walk(b, seen);
            }
        }
        if !matches!(e, Expr::Var(_) | Expr::Int(_) | Expr::Bool(_)) {
            let mut t = String::new();
            text(e, &mut t);
            seen.insert(t);
        }
    }
    let mut seen = std::collections::HashSet::new();
    walk(e, &mut seen);
    seen.len() as u64
}

/// The value of `e`, its arguments evaluated left to right (the first failure wins), as
/// the prelude documents its built-ins: checked arithmetic, `quo` and `rem` truncating,
/// shifts by 0 to 63 (a left shift that loses bits overflows), `==` on values.
fn eval(e: &Expr, env: &[Val; 4]) -> Result<Val, Fail> {
    use Val::*;
    match e {
        Expr::Var(v) => Ok(env[*v]),
        Expr::Int(v) => Ok(Int(*v)),
        Expr::Bool(b) => Ok(Bool(*b)),
        Expr::Un(op, a) => {
            let a = eval(a, env)?;
            Ok(match (*op, a) {
                ("not", Bool(x)) => Bool(!x),
                ("-", Int(x)) => Int(x.checked_neg().ok_or(Fail::Overflow)?),
                ("abs", Int(x)) => Int(x.checked_abs().ok_or(Fail::Overflow)?),
                ("popcount", Int(x)) => Int(i64::from(x.count_ones())),
                ("lowbit", Int(x)) => Int(x & x.wrapping_neg()),
                ("lowbit-index", Int(0)) => return Err(Fail::OutOfRange),
                ("lowbit-index", Int(x)) => Int(i64::from(x.trailing_zeros())),
                ("~", Int(x)) => Int(-1 - x),
                ("s", Int(x)) => Int(x.checked_add(1).ok_or(Fail::Overflow)?),
                other => panic!("ill-typed {other:?}"),
            })
        }
        Expr::Bin(op, a, b) => {
            let (a, b) = (eval(a, env)?, eval(b, env)?);
            if *op == "==" || *op == "=/=" {
                return Ok(Bool((a == b) == (*op == "==")));
            }
            if let (Bool(x), Bool(y)) = (a, b) {
                return Ok(Bool(match *op {
                    "and" => x && y,
                    "or" => x || y,
                    "xor" => x != y,
                    "implies" => !x || y,
                    other => panic!("ill-typed {other}"),
                }));
            }
            let (Int(x), Int(y)) = (a, b) else {
                panic!("ill-typed {op}")
            };
            // Shifts are exact for any amount not negative: computed on 128 bits here.
            let shift = || if y < 0 { Err(Fail::OutOfRange) } else { Ok(y) };
            let int = |r: Option<i64>| r.map(Int).ok_or(Fail::Overflow);
            let wide = |r: i128| i64::try_from(r).map(Int).map_err(|_| Fail::Overflow);
            match *op {
                "+" => int(x.checked_add(y)),
                "-" => int(x.checked_sub(y)),
                "*" => int(x.checked_mul(y)),
                "quo" if y == 0 => Err(Fail::DivisionByZero),
                "quo" => int(x.checked_div(y)),
                "rem" if y == 0 => Err(Fail::DivisionByZero),
                "rem" => Ok(Int(if y == -1 { 0 } else { x % y })),
                "min" => Ok(Int(x.min(y))),
                "max" => Ok(Int(x.max(y))),
                "band" | "&" => Ok(Int(x & y)),
                "bor" | "|" => Ok(Int(x | y)),
                "bxor" | "xor" => Ok(Int(x ^ y)),
                "shl" | "<<" => match shift()? {
                    _ if x == 0 => Ok(Int(0)),
                    k if k >= 64 => Err(Fail::Overflow),
                    k => wide(i128::from(x) << k),
                },
                "shr" | ">>" => Ok(Int(x >> shift()?.min(63))),
                "gcd" => wide(stein(x.unsigned_abs().into(), y.unsigned_abs().into()) as i128),
                "lcm" => {
                    let (a, b) = (u128::from(x.unsigned_abs()), u128::from(y.unsigned_abs()));
                    if a == 0 || b == 0 {
                        Ok(Int(0))
                    } else {
                        wide((a / stein(a, b) * b) as i128)
                    }
                }
                "sd" => wide((i128::from(x) - i128::from(y)).abs()),
                "^" => power(x, y),
                "<" => Ok(Bool(x < y)),
                "<=" => Ok(Bool(x <= y)),
                ">" => Ok(Bool(x > y)),
                ">=" => Ok(Bool(x >= y)),
                "divides" => Ok(Bool(if x == 0 {
                    y == 0
                } else {
                    x == -1 || y % x == 0
                })),
                other => panic!("unknown {other}"),
            }
        }
    }
}

/// The greatest common divisor by Stein's binary algorithm (the engine uses Euclid's).
fn stein(mut a: u128, mut b: u128) -> u128 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let twos = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << twos;
        }
    }
}

/// `x ^ y` by repeated multiplication on 128 bits (a negative exponent is out of range;
/// past 63 factors only 0, 1 and -1 still fit).
fn power(x: i64, y: i64) -> Result<Val, Fail> {
    if y < 0 {
        return Err(Fail::OutOfRange);
    }
    let mut r: i128 = 1;
    for _ in 0..y.min(64) {
        r *= i128::from(x);
        if r.abs() > 1 << 64 {
            return Err(Fail::Overflow);
        }
    }
    if y > 64 && x.abs() == 1 {
        r = if x == -1 && y % 2 == 1 { -1 } else { 1 };
    }
    i64::try_from(r).map(Val::Int).map_err(|_| Fail::Overflow)
}

const INTERESTING: [i64; 14] = [
    0,
    1,
    -1,
    2,
    3,
    -7,
    63,
    64,
    100,
    -100,
    i64::MAX,
    i64::MIN,
    i64::MAX / 2,
    1 << 40,
];

fn value(rng: &mut Rng) -> i64 {
    if rng.below(3) == 0 {
        rng.next() as i64 >> rng.below(64)
    } else {
        pick(rng, &INTERESTING)
    }
}

struct Program {
    engine: Engine,
    /// The operators `f{i}` and `g{i}` of each expression `i`.
    calls: Vec<(gamelang_lang::program::OpId, gamelang_lang::program::OpId)>,
}

/// A module with, for each expression `E` number `i`: `f{i}(X, Y, Z, P) = k(E)` (or `kb`
/// for a Boolean `E`) and, for a Boolean `E`, `g{i}(X, Y, Z, P) = 1 if E`, `0` otherwise.
fn program(exprs: &[Expr]) -> Program {
    let mut src = String::from(
        "fmod ARITH is\n  protecting INT .\n  sort Res .\n  op k : Int -> Res [ctor] .\n  op kb : Bool -> Res [ctor] .\n  vars X Y Z : Int .\n  var P : Bool .\n",
    );
    for (i, e) in exprs.iter().enumerate() {
        let mut body = String::new();
        text(e, &mut body);
        let boolean = is_bool(e);
        writeln!(src, "  op f{i} : Int Int Int Bool -> Res .").unwrap();
        let k = if boolean { "kb" } else { "k" };
        writeln!(src, "  eq f{i}(X, Y, Z, P) = {k}({body}) .").unwrap();
        writeln!(src, "  op g{i} : Int Int Int Bool -> Int .").unwrap();
        if boolean {
            writeln!(src, "  ceq g{i}(X, Y, Z, P) = 1 if {body} .").unwrap();
        } else {
            writeln!(src, "  ceq g{i}(X, Y, Z, P) = 1 if ({body}) == 0 .").unwrap();
        }
        writeln!(src, "  eq g{i}(X, Y, Z, P) = 0 [owise] .").unwrap();
    }
    src.push_str("endfm\n");
    let mut session = Session::new().expect("stdlib");
    if let Err(e) = session.load_source("arith.game", &src) {
        panic!(
            "{}\n{src}",
            gamelang_lang::diag::render_all(&e, &session.sources, false)
        );
    }
    let m = session.module_by_name("ARITH").expect("the module");
    let head = |session: &mut Session, text: &str| match session
        .parse_term(m, "test", text, None)
        .unwrap_or_else(|d| panic!("{text}: {}", d.render(&session.sources, false)))
    {
        Pat::App(op, _) => op,
        other => panic!("{text}: {other:?}"),
    };
    let calls = (0..exprs.len())
        .map(|i| {
            (
                head(&mut session, &format!("f{i}(0, 0, 0, true)")),
                head(&mut session, &format!("g{i}(0, 0, 0, true)")),
            )
        })
        .collect();
    let engine = Engine::new(Arc::new(session.program.clone()));
    Program { engine, calls }
}

fn is_bool(e: &Expr) -> bool {
    match e {
        Expr::Var(v) => *v == 3,
        Expr::Int(_) => false,
        Expr::Bool(_) => true,
        // `xor` is `Bool`'s or `Int`'s, as its operands are.
        Expr::Bin("xor", a, _) => is_bool(a),
        Expr::Un(op, _) | Expr::Bin(op, _, _) => gives_bool(op),
    }
}

fn fail_of(e: &RuntimeError) -> Option<Fail> {
    match e {
        RuntimeError::Overflow { .. } => Some(Fail::Overflow),
        RuntimeError::DivisionByZero { .. } => Some(Fail::DivisionByZero),
        RuntimeError::OutOfRange { .. } => Some(Fail::OutOfRange),
        _ => None,
    }
}

impl Program {
    /// `op(x, y, z, p)` reduced: its normal form or error, and the rewrites it took.
    fn call(
        &mut self,
        op: gamelang_lang::program::OpId,
        env: &[Val; 4],
    ) -> (Result<TermId, RuntimeError>, u64) {
        let args: Vec<TermId> = env
            .iter()
            .map(|v| match *v {
                Val::Int(x) => self.engine.mk_int(x),
                Val::Bool(b) => self.engine.mk_bool(b).expect("Booleans"),
            })
            .collect();
        let t = self.engine.mk_app(op, &args);
        let before = self.engine.steps();
        let v = self.engine.reduce(t);
        (v, self.engine.steps() - before)
    }

    fn show(&self, t: TermId) -> String {
        self.engine.show(t)
    }
}

fn shown(v: Val) -> String {
    match v {
        Val::Int(x) => x.to_string(),
        Val::Bool(b) => b.to_string(),
    }
}

#[test]
fn random_expressions_agree_with_an_evaluator_written_here() {
    let mut rng = Rng(0xa217_2026);
    let exprs: Vec<Expr> = (0..160)
        .map(|i| loop {
            // An application with a variable below it (see `gen`).
            let e = gen_app(&mut rng, 2 + (i % 3) as u32, i % 2 == 1);
            if !ground(&e) {
                break e;
            }
        })
        .collect();
    let mut p = program(&exprs);
    let (mut values, mut failures, mut taken) = (0, 0, 0);
    for (i, e) in exprs.iter().enumerate() {
        let mut body = String::new();
        text(e, &mut body);
        let (f, g) = p.calls[i];
        for _ in 0..12 {
            let env = [
                Val::Int(value(&mut rng)),
                Val::Int(value(&mut rng)),
                Val::Int(value(&mut rng)),
                Val::Bool(rng.below(2) == 0),
            ];
            let ctx = format!("f{i}: {body} at {env:?}");
            let want = eval(e, &env);
            let (got, steps) = p.call(f, &env);
            match (want, got) {
                (Ok(v), Ok(t)) => {
                    let k = if is_bool(e) { "kb" } else { "k" };
                    assert_eq!(p.show(t), format!("{k}({})", shown(v)), "{ctx}");
                    assert_eq!(steps, 1 + ops(e), "rewrites of {ctx}");
                    values += 1;
                }
                (Err(w), Err(err)) => {
                    assert_eq!(fail_of(&err), Some(w), "{ctx}: {err:?}");
                    failures += 1;
                }
                (w, g) => panic!("{ctx}: expected {w:?}, got {g:?}"),
            }
            // The same expression as a condition.
            let want = match eval(e, &env) {
                Ok(Val::Bool(b)) => Ok(b),
                Ok(Val::Int(x)) => Ok(x == 0),
                Err(f) => Err(f),
            };
            let (got, steps) = p.call(g, &env);
            let cond_ops = ops(e) + u64::from(!is_bool(e));
            match (want, got) {
                (Ok(b), Ok(t)) => {
                    assert_eq!(p.show(t), if b { "1" } else { "0" }, "g{i}: {ctx}");
                    assert_eq!(steps, 1 + cond_ops, "rewrites of g{i}: {ctx}");
                    taken += usize::from(b);
                }
                (Err(w), Err(err)) => assert_eq!(fail_of(&err), Some(w), "g{i}: {ctx}"),
                (w, g) => panic!("g{i}: {ctx}: expected {w:?}, got {g:?}"),
            }
        }
    }
    // The values reached every kind of answer.
    assert!(values > 800, "{values} values");
    assert!(failures > 50, "{failures} failures");
    assert!(taken > 100, "{taken} conditions held");
}

/// A variable bound to something that is not an integer (a stuck term of sort `Int`): the
/// expression is stuck, and says so about the built-in that met it, as before.
#[test]
fn a_stuck_operand_gives_the_built_ins_error() {
    let src = "fmod S is
  protecting INT .
  sort Res .
  op k : Int -> Res [ctor] .
  op foo : Int -> Int .
  op f : Int Int -> Res .
  vars X Y : Int .
  eq f(X, Y) = k((X + 1) * Y) .
endfm
";
    let mut session = Session::new().expect("stdlib");
    session.load_source("s.game", src).expect("loads");
    let m = session.module_by_name("S").expect("module");
    let pat = session
        .parse_term(m, "test", "f(foo(2), 3)", None)
        .expect("parses");
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let t = engine.build(&pat, &[]);
    let err = engine.reduce(t).expect_err("stuck");
    let said = engine.describe(&err);
    assert!(
        said.contains("foo(2) + 1") && said.contains("integer literal arguments"),
        "{said}"
    );
    // With integers it computes, in three rewrites (`f`, `+`, `*`).
    let pat = session
        .parse_term(m, "test", "f(4, 3)", None)
        .expect("parses");
    let t = engine.build(&pat, &[]);
    let before = engine.steps();
    let v = engine.reduce(t).expect("a value");
    assert_eq!(engine.show(v), "k(15)");
    assert_eq!(engine.steps() - before, 3);
}

/// A step budget is met exactly: an expression of six built-ins under `f` needs seven
/// rewrites, and any budget short of that stops the reduction with the budget's error.
#[test]
fn the_step_budget_counts_every_built_in() {
    let src = "fmod B is
  protecting INT .
  sort Res .
  op k : Bool -> Res [ctor] .
  op f : Int Int -> Res .
  vars X Y : Int .
  eq f(X, Y) = k(((X + 1) * Y) - X < max(X, Y) * 2) .
endfm
";
    let mut session = Session::new().expect("stdlib");
    session.load_source("b.game", src).expect("loads");
    let m = session.module_by_name("B").expect("module");
    let pat = session
        .parse_term(m, "test", "f(4, 3)", None)
        .expect("parses");
    // (4 + 1) * 3 - 4 = 11, max(4, 3) * 2 = 8.
    for budget in 1..=8 {
        let mut engine = Engine::new(Arc::new(session.program.clone()));
        engine.limits.max_steps = budget;
        let t = engine.build(&pat, &[]);
        match engine.reduce(t) {
            Ok(v) => {
                assert!(budget >= 7, "budget {budget}: a value");
                assert_eq!(engine.show(v), "k(false)");
                assert_eq!(engine.steps(), 7);
            }
            Err(e) => {
                assert!(budget < 7, "budget {budget}: {e:?}");
                assert!(
                    matches!(e, RuntimeError::StepBudget { .. }),
                    "budget {budget}: {e:?}"
                );
            }
        }
    }
}

/// Maude's `modExp(x, y, m)`, the one built-in on numbers of three arguments: against
/// repeated multiplication written here for exponents up to a few hundred, and against
/// Fermat's little theorem (`a ^ (p - 1) rem p` is 1 for a prime p not dividing a) for
/// exponents far past any power that fits a word, on the primes 10^9 + 7 and 2^61 - 1.
/// Called with variables (`f(X, Y, Z) = k(modExp(X, Y, Z))`, asked as a constructor's
/// argument) and with literals; a negative base or a modulus that is not positive is an
/// error that says which.
#[test]
fn mod_exp_agrees_with_repeated_multiplication_and_fermat() {
    let src = "fmod M is
  protecting INT .
  sort Res .
  op k : Int -> Res [ctor] .
  op f : Int Int Int -> Res .
  vars X Y Z : Int .
  eq f(X, Y, Z) = k(modExp(X, Y, Z)) .
endfm
";
    let mut session = Session::new().expect("stdlib");
    session.load_source("m.game", src).expect("loads");
    let m = session.module_by_name("M").expect("module");
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut ask = |term: &str| {
        let pat = session.parse_term(m, "test", term, None).expect("parses");
        let t = engine.build(&pat, &[]);
        match engine.reduce(t) {
            Ok(v) => Ok(engine.show(v)),
            Err(e) => Err(engine.describe(&e)),
        }
    };
    let naive = |x: u128, y: u32, m: u128| (0..y).fold(1 % m, |r, _| r * (x % m) % m);
    let mut rng = Rng(17);
    for _ in 0..300 {
        let x = value(&mut rng).unsigned_abs() as u128 % (1 << 62);
        let y = rng.below(300) as u32;
        let m = match rng.below(3) {
            0 => 1 + rng.below(10),
            1 => 1 + rng.below(1_000_000_000),
            _ => 1 + rng.below(1 << 62),
        } as u128;
        let want = naive(x, y, m);
        assert_eq!(
            ask(&format!("f({x}, {y}, {m})")),
            Ok(format!("k({want})")),
            "modExp({x}, {y}, {m})"
        );
    }
    for p in [1_000_000_007u64, (1 << 61) - 1] {
        for a in [2u64, 3, 10, 123_456_789, p - 1] {
            assert_eq!(ask(&format!("f({a}, {}, {p})", p - 1)), Ok("k(1)".into()));
            // a ^ p = a (mod p), and literals computed in place.
            assert_eq!(
                ask(&format!("k(modExp({a}, {p}, {p}))")),
                Ok(format!("k({a})"))
            );
        }
    }
    assert_eq!(
        ask("k(modExp(5, 0, 1))"),
        Ok("k(0)".into()),
        "anything rem 1 is 0"
    );
    let negative = ask("f(-2, 3, 5)").expect_err("a negative base");
    assert!(negative.contains("must not be negative"), "{negative}");
    let zero = ask("f(2, 3, 0)").expect_err("a modulus of 0");
    assert!(zero.contains("modulus must be positive"), "{zero}");
}
