//! Maude's subsort overloading: one operator declared on several ranks of the same kinds
//! (`_+_ : NzNat Nat -> NzNat` beside `_+_ : Int Int -> Int`) is one operator whose
//! applications have the least sort their arguments allow. Checked on random terms against
//! the same arithmetic and list functions computed here in Rust, sorts included.

mod support;

use std::process::Output;
use support::cli::{gamelang_with_input, reduce_sorted_results};
use support::Rng;

/// `gamelang reduce` of `program` (written to a file): the sort and normal form of each
/// result.
fn reduce_program(program: &str) -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("program.maude");
    std::fs::write(&file, program).unwrap();
    reduce_sorted_results(&file)
}

/// `gamelang repl` on `program` (written to a file) with `script` typed at its prompt.
fn repl(program: &str, script: &str) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("program.maude");
    std::fs::write(&file, program).unwrap();
    gamelang_with_input(&["repl", file.to_str().unwrap()], script)
}

/// The least sort of the integer `v` in the prelude's `INT`, as in Maude's.
fn int_sort(v: i64) -> String {
    match v.signum() {
        0 => "Zero",
        1 => "NzNat",
        _ => "NzInt",
    }
    .to_string()
}

/// Signed unary integers on a chain of sorts, with `_+_` overloaded three times (as in
/// `bench/maude-compat/progs/11-subsorts.maude`). `n (P + Q)` is well sorted only if
/// `P + Q` has sort `NzNat`, which only the overloading gives it.
const UNARY: &str = "fmod UNARY-INT is
  sorts Zero NzNat Nat NzNeg Int .
  subsorts Zero NzNat < Nat .
  subsorts Nat NzNeg < Int .
  op 0 : -> Zero [ctor] .
  op s_ : Nat -> NzNat [ctor] .
  op n_ : NzNat -> NzNeg [ctor] .
  op _+_ : Nat Nat -> Nat [assoc comm] .
  op _+_ : NzNat Nat -> NzNat [assoc comm] .
  op _+_ : Int Int -> Int [assoc comm] .
  op -_ : Int -> Int .
  op abs : Int -> Nat .
  op sign : Int -> Int .
  vars N M : Nat .
  vars P Q : NzNat .
  var I : Int .
  eq I + 0 = I .
  eq N + s M = s (N + M) .
  eq n P + n Q = n (P + Q) .
  eq s N + n s P = N + n P .
  eq s N + n s 0 = N .
  eq - 0 = 0 .
  eq - P = n P .
  eq - n P = P .
  eq abs(N) = N .
  eq abs(n P) = P .
  eq sign(0) = 0 .
  eq sign(P) = s 0 .
  eq sign(n P) = n s 0 .
endfm
";

fn unary(v: i64) -> String {
    let s = "s ".repeat(v.unsigned_abs() as usize) + "0";
    if v < 0 {
        format!("n {s}")
    } else {
        s
    }
}

/// The least sort of the numeral of `v` in `UNARY`.
fn least_sort(v: i64) -> &'static str {
    match v.signum() {
        0 => "Zero",
        1 => "NzNat",
        _ => "NzNeg",
    }
}

#[test]
fn an_overloaded_ac_operator_computes_as_integers_and_has_the_least_sort() {
    let mut rng = Rng(0x5eed_0b1e);
    let mut reds = String::new();
    let mut expected = Vec::new();
    for _ in 0..80 {
        let k = 1 + rng.below(4) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(9) as i64 - 4).collect();
        let sum: i64 = xs.iter().sum();
        let term = xs
            .iter()
            .map(|&x| format!("({})", unary(x)))
            .collect::<Vec<_>>()
            .join(" + ");
        reds += &format!("red {term} .\nred - ({term}) .\nred abs({term}) .\nred sign({term}) .\n");
        for v in [sum, -sum, sum.abs(), sum.signum()] {
            expected.push((least_sort(v).to_string(), unary(v)));
        }
    }
    assert_eq!(reduce_program(&format!("{UNARY}{reds}")), expected);
}

/// Maude's lists by juxtaposition, `__` overloaded on `NeList` (as in the Maude manual):
/// a `NeList` variable takes a whole non-empty part of a list, and never `nil`.
const LISTS: &str = "fmod INT-LIST is
  protecting INT .
  sorts List NeList .
  subsorts Int < NeList < List .
  op nil : -> List [ctor] .
  op __ : List List -> List [ctor assoc id: nil] .
  op __ : NeList List -> NeList [ctor assoc id: nil] .
  op __ : List NeList -> NeList [ctor assoc id: nil] .
  op head : NeList -> Int .
  op front : NeList -> List .
  op length : List -> Nat .
  op reverse : List -> List .
  op pre : List -> Nat .
  var N : Int .
  vars L L' : List .
  var NL : NeList .
  eq head(N L) = N .
  eq front(L N) = L .
  eq length(nil) = 0 .
  eq length(N L) = 1 + length(L) .
  eq reverse(nil) = nil .
  eq reverse(N L) = reverse(L) N .
  eq pre(NL N) = length(NL) + 1 .
  eq pre(L) = 0 [owise] .
endfm
";

#[test]
fn an_overloaded_list_operator_matches_and_sorts_as_maude() {
    let mut rng = Rng(0x11_57);
    let show = |xs: &[i64]| {
        if xs.is_empty() {
            "nil".to_string()
        } else {
            xs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
        }
    };
    // The sort expected of a list result: `NeList` for two elements or more, `List` for
    // none; a single element is a number, of the prelude's sort (not checked).
    let list = |xs: &[i64]| {
        let sort = match xs.len() {
            0 => Some("List"),
            1 => None,
            _ => Some("NeList"),
        };
        (sort, show(xs))
    };
    let number = |v: usize| (None, v.to_string());
    let mut reds = String::new();
    let mut expected: Vec<(Option<&str>, String)> = Vec::new();
    for _ in 0..60 {
        let k = 1 + rng.below(6) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(20) as i64).collect();
        let text = show(&xs);
        // `nil` written between the elements goes (the identity).
        let written = xs.iter().map(|x| format!("nil {x} ")).collect::<String>() + "nil";
        reds += &format!("red {written} .\nred head({text}) .\nred length({text}) .\n");
        reds += &format!("red pre({text}) .\nred reverse({text}) .\nred front({text}) .\n");
        expected.push(list(&xs));
        expected.push(number(xs[0] as usize));
        expected.push(number(xs.len()));
        // `NL N`: `NL` takes every element but the last (one or more), and never `nil`,
        // which is no `NeList`: a single element is left to the `owise` equation.
        expected.push(number(if xs.len() >= 2 { xs.len() } else { 0 }));
        let mut rev = xs.clone();
        rev.reverse();
        expected.push(list(&rev));
        expected.push(list(&xs[..xs.len() - 1]));
    }
    let got = reduce_program(&format!("{LISTS}{reds}"));
    assert_eq!(got.len(), expected.len());
    for (k, ((sort, nf), (want_sort, want_nf))) in got.iter().zip(&expected).enumerate() {
        assert_eq!(nf, want_nf, "normal form of result {k}");
        if let Some(want_sort) = want_sort {
            assert_eq!(sort, want_sort, "sort of result {k}: {nf}");
        }
    }
}

/// The prelude's `LIST{X}` declares `__` on `NeList{X}` too, as Maude's does: a non-empty
/// list has sort `NeList{X}`, so an equation on a `NeList{X}` variable applies to it (before,
/// every list had sort `List{X}` and the `owise` equation answered instead: 0 for 2).
#[test]
fn the_preludes_lists_are_non_empty_lists_when_they_are() {
    let module = "fmod T is
  protecting LIST{Int} .
  op nonempty : List{Int} -> Bool .
  op init-size : List{Int} -> Nat .
  var NL : NeList{Int} .
  var L : List{Int} .
  var N : Int .
  eq nonempty(NL) = true .
  eq nonempty(L) = false [owise] .
  eq init-size(NL N) = size(NL) .
  eq init-size(L) = 0 [owise] .
endfm
";
    let mut rng = Rng(0x0011_570f);
    let mut reds = String::new();
    let mut expected = Vec::new();
    for _ in 0..40 {
        let k = rng.below(6) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(30) as i64 - 10).collect();
        let text = if xs.is_empty() {
            "nil".to_string()
        } else {
            (xs.iter().map(|x| format!("({x})")).collect::<Vec<_>>()).join(" ")
        };
        reds += &format!("red nonempty({text}) .\nred init-size({text}) .\n");
        expected.push(("Bool".to_string(), (!xs.is_empty()).to_string()));
        // `NL N` needs two elements or more (`NL` is not `nil`).
        let init = if k >= 2 { k - 1 } else { 0 };
        expected.push((int_sort(init as i64), init.to_string()));
        if k >= 2 {
            reds += &format!("red {text} .\n");
            let shown = xs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
            expected.push(("NeList{Int}".to_string(), shown));
        }
    }
    assert_eq!(reduce_program(&format!("{module}{reds}")), expected);
}

/// A module's declarations below an imported one are that operator (Maude's `NeList`
/// overloads added by a module importing the plain lists): the imported module's
/// equations (`length`) and the importing module's (`head`, `NeList` variables) see one
/// operator, of the least sort.
#[test]
fn declarations_below_an_imported_operator_overload_it() {
    let modules = "fmod INT-LISTS is
  protecting INT .
  sorts NeList List .
  subsorts Int < NeList < List .
  op nil : -> List [ctor] .
  op __ : List List -> List [ctor assoc id: nil] .
  op length : List -> Nat .
  var N : Int .
  var L : List .
  eq length(nil) = 0 .
  eq length(N L) = 1 + length(L) .
endfm

fmod NE-LISTS is
  protecting INT-LISTS .
  op __ : NeList List -> NeList [ctor assoc id: nil] .
  op __ : List NeList -> NeList [ctor assoc id: nil] .
  op head : NeList -> Int .
  op tail-length : List -> Nat .
  var N : Int .
  var L : List .
  var NL : NeList .
  eq head(N L) = N .
  eq tail-length(N NL) = length(NL) .
  eq tail-length(L) = 0 [owise] .
endfm
";
    let mut rng = Rng(0x0b0e_1157);
    let mut reds = String::new();
    let mut expected = Vec::new();
    for _ in 0..40 {
        let k = 1 + rng.below(6) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(50) as i64).collect();
        let text = xs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
        reds += &format!("red head({text}) .\nred tail-length({text}) .\nred length({text}) .\n");
        expected.push(xs[0].to_string());
        // `N NL`: the tail must be a non-empty list.
        expected.push((if k >= 2 { k - 1 } else { 0 }).to_string());
        expected.push(k.to_string());
        if k >= 2 {
            reds += &format!("red {text} .\n");
            expected.push(format!("NeList {text}"));
        }
    }
    let got: Vec<String> = reduce_program(&format!("{modules}{reds}"))
        .into_iter()
        .map(|(sort, nf)| {
            if sort == "NeList" {
                format!("{sort} {nf}")
            } else {
                nf
            }
        })
        .collect();
    assert_eq!(got, expected);
}

/// A module typed at the REPL's prompt may add declarations to an operator whose terms
/// the session has already built: their sorts are computed again (before, the store had
/// none recorded for them).
#[test]
fn overloads_declared_at_the_prompt_apply_to_terms_built_before() {
    let lists_module = "fmod INT-LISTS is
  protecting INT .
  sorts NeList List .
  subsorts Int < NeList < List .
  op nil : -> List [ctor] .
  op __ : List List -> List [ctor assoc id: nil] .
endfm
";
    let mut rng = Rng(0x9e11_0001);
    let lists: Vec<Vec<i64>> = (0..12)
        .map(|_| (0..2 + rng.below(5)).map(|_| rng.below(9) as i64).collect())
        .collect();
    let show = |xs: &[i64]| xs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
    let mut script = String::new();
    for xs in &lists {
        script += &format!("red {} .\n", show(xs));
    }
    script += "fmod NE is
  protecting INT-LISTS .
  op __ : NeList List -> NeList [ctor assoc id: nil] .
  op __ : List NeList -> NeList [ctor assoc id: nil] .
  op nonempty : List -> Bool .
  var NL : NeList .
  var L : List .
  eq nonempty(NL) = true .
  eq nonempty(L) = false [owise] .
endfm
";
    for xs in &lists {
        script += &format!("red {} .\nred nonempty({}) .\n", show(xs), show(xs));
    }
    script += "red nonempty(nil) .\n";
    let out = repl(lists_module, &script);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("result "))
        .collect();
    let mut expected: Vec<String> = lists
        .iter()
        .map(|xs| format!("List: {}", show(xs)))
        .collect();
    for xs in &lists {
        expected.push(format!("NeList: {}", show(xs)));
        expected.push("Bool: true".to_string());
    }
    expected.push("Bool: false".to_string());
    assert_eq!(got, expected, "{}", String::from_utf8_lossy(&out.stderr));
}

/// `show ops` at the REPL lists every declaration of an overloaded operator, the merged
/// ones marked as the same operator.
#[test]
fn show_ops_lists_every_declaration_of_an_overloaded_operator() {
    let out = repl(UNARY, "show ops\n");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let plus: Vec<&str> = stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("op _+_ :"))
        .collect();
    // Every `_+_` declared in UNARY, and no other.
    let declared: Vec<String> = UNARY
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("op _+_ :"))
        .map(|l| l.trim_end_matches(" .").to_string())
        .collect();
    assert_eq!(plus.len(), declared.len(), "{stdout}");
    for d in &declared {
        assert!(
            plus.iter().any(|l| l.starts_with(d.as_str())),
            "{d} missing:\n{stdout}"
        );
    }
    assert_eq!(
        plus.iter()
            .filter(|l| l.ends_with("(the same operator: subsort overloading)"))
            .count(),
        declared.len() - 1,
        "{stdout}"
    );
}

/// A module's declaration above an imported one of the same operator (`__` on `List`
/// over the imported `__` on `NeList`) becomes that operator's widest declaration: the
/// imported module's equations and the module's own both apply, and a term has the least
/// sort (before, every such term was ambiguous).
#[test]
fn a_declaration_above_an_imported_operator_becomes_its_widest() {
    let modules = "fmod NE-LISTS is
  protecting INT .
  sorts NeList List .
  subsorts Int < NeList < List .
  op nil : -> List [ctor] .
  op __ : NeList List -> NeList [ctor assoc id: nil] .
  op head : NeList -> Int .
  var N : Int .
  var L : List .
  eq head(N L) = N .
endfm

fmod LISTS is
  protecting NE-LISTS .
  op __ : List List -> List [ctor assoc id: nil] .
  op length : List -> Nat .
  op sum : List -> Int .
  var N : Int .
  var L : List .
  eq length(nil) = 0 .
  eq length(N L) = 1 + length(L) .
  eq sum(L N) = sum(L) + N .
  eq sum(nil) = 0 .
endfm
";
    let mut rng = Rng(0x00ab_007e);
    let mut reds = String::new();
    let mut expected = Vec::new();
    for _ in 0..40 {
        let k = 2 + rng.below(6) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(50) as i64 - 25).collect();
        let text = xs
            .iter()
            .map(|x| format!("({x})"))
            .collect::<Vec<_>>()
            .join(" ");
        reds += &format!("red head({text}) .\nred length(nil {text}) .\nred sum({text}) .\n");
        let sum = xs.iter().sum::<i64>();
        expected.push((int_sort(xs[0]), xs[0].to_string()));
        expected.push((int_sort(k as i64), k.to_string()));
        expected.push((int_sort(sum), sum.to_string()));
        reds += &format!("red nil {text} nil .\n");
        let shown = xs.iter().map(i64::to_string).collect::<Vec<_>>().join(" ");
        expected.push(("NeList".to_string(), shown));
    }
    reds += "red nil nil .\n";
    expected.push(("List".to_string(), "nil".to_string()));
    assert_eq!(reduce_program(&format!("{modules}{reds}")), expected);
}

/// Two instances of one parameterized module, one inside the other (`SEQ{IntSeq}`
/// imports `SEQ{IntE}`, since the view `IntSeq` maps to `Seq{IntE}`): their operators of
/// one name are one operator, as in Maude, so a program importing both reads `1 ; 2 ; 3`
/// once (before: an ambiguous term, 3 readings). Checked on random sequences against
/// Rust's reverse, length and membership.
#[test]
fn nested_instances_of_a_module_share_their_operators() {
    let modules = "fmod SEQ{X :: TRIV} is
  protecting INT .
  sort Seq{X} .
  subsort X$Elt < Seq{X} .
  op eps : -> Seq{X} [ctor] .
  op _;_ : Seq{X} Seq{X} -> Seq{X} [ctor assoc id: eps] .
  op len : Seq{X} -> Nat .
  var E : X$Elt .
  var S : Seq{X} .
  eq len(eps) = 0 .
  eq len(E ; S) = 1 + len(S) .
endfm

fmod SEQ-OPS{X :: TRIV} is
  protecting SEQ{X} .
  op rev : Seq{X} -> Seq{X} .
  op member : X$Elt Seq{X} -> Bool .
  vars E F : X$Elt .
  var S : Seq{X} .
  eq rev(eps) = eps .
  eq rev(E ; S) = rev(S) ; E .
  eq member(E, eps) = false .
  eq member(E, F ; S) = E == F or member(E, S) .
endfm

view IntE from TRIV to INT is
  sort Elt to Int .
endv

view IntSeq from TRIV to SEQ{IntE} is
  sort Elt to Seq{IntE} .
endv

fmod SEQ-OF-SEQ is
  protecting SEQ-OPS{IntE} .
  protecting SEQ{IntSeq} .
endfm
";
    let mut rng = Rng(0x005e_95e9);
    let mut reds = String::new();
    let mut expected = Vec::new();
    let show = |xs: &[i64]| {
        xs.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(" ; ")
    };
    for _ in 0..30 {
        let k = 2 + rng.below(6) as usize;
        let xs: Vec<i64> = (0..k).map(|_| rng.below(10) as i64).collect();
        let y = rng.below(10) as i64;
        let text = show(&xs);
        reds += &format!("red rev({text}) .\nred len(eps ; {text}) .\nred member({y}, {text}) .\n");
        let rev: Vec<i64> = xs.iter().rev().copied().collect();
        expected.push(("Seq{IntE}".to_string(), show(&rev)));
        expected.push((int_sort(k as i64), k.to_string()));
        expected.push(("Bool".to_string(), xs.contains(&y).to_string()));
    }
    assert_eq!(reduce_program(&format!("{modules}{reds}")), expected);
}

/// The prelude's integers have Maude's sorts: a number's least sort is `Zero`, `NzNat` or
/// `NzInt`, so variables of those sorts take exactly the numbers Maude's do (a divisor
/// `D : NzNat` never 0), results print with them, and a module declaring one of them
/// again (`sorts Zero Num .` beside `protecting INT .`) means the prelude's. Random
/// numbers against their signs computed here.
#[test]
fn numbers_have_maudes_least_sorts() {
    let module = "fmod SIGNS is
  protecting INT .
  sorts Zero Num .
  subsort Zero < Num .
  op positive : Int -> Bool .
  op natural : Int -> Bool .
  op nonzero : Int -> Bool .
  op is-zero : Int -> Bool .
  op checked-quo : Int Int -> Int .
  op zeroes : Num -> Bool .
  var D : NzNat .
  var N : Nat .
  var Z : NzInt .
  var Y : Zero .
  vars I J : Int .
  eq positive(D) = true .
  eq positive(I) = false [owise] .
  eq natural(N) = true .
  eq natural(I) = false [owise] .
  eq nonzero(Z) = true .
  eq nonzero(I) = false [owise] .
  eq is-zero(Y) = true .
  eq is-zero(I) = false [owise] .
  eq checked-quo(I, D) = I quo D .
  eq checked-quo(I, J) = 0 [owise] .
  eq zeroes(Y) = true .
endfm
";
    let mut rng = Rng(0x0005_0125);
    let mut reds = String::new();
    let mut expected = Vec::new();
    let num = |v: i64| {
        if v < 0 {
            format!("({v})")
        } else {
            v.to_string()
        }
    };
    for _ in 0..50 {
        let v = rng.below(21) as i64 - 10;
        let w = rng.below(41) as i64 - 20;
        for f in ["positive", "natural", "nonzero", "is-zero"] {
            reds += &format!("red {f}({}) .\n", num(v));
        }
        reds += &format!(
            "red checked-quo({}, {}) .\nred {} .\n",
            num(w),
            num(v),
            num(v)
        );
        let b = |x: bool| ("Bool".to_string(), x.to_string());
        expected.extend([b(v > 0), b(v >= 0), b(v != 0), b(v == 0)]);
        let q = if v > 0 { w / v } else { 0 };
        expected.push((int_sort(q), q.to_string()));
        expected.push((int_sort(v), v.to_string()));
    }
    reds += "red zeroes(0) .\n";
    expected.push(("Bool".to_string(), "true".to_string()));
    assert_eq!(reduce_program(&format!("{module}{reds}")), expected);
}

/// The prelude's Maude spellings (`gcd`, `_^_`, `_&_`, `_<<_`, …) are `weak`: a module
/// that declares its own operator of one of those names, or imports one, reads its terms
/// as it did before they were added — its own `gcd` by its own equations (Euclid by
/// subtraction: many rewrites, where the built-in takes one), its `_^_` and `_&_` on a
/// sort above `Int` as its constructors — while a module beside it sees the built-ins.
#[test]
fn a_modules_own_operator_hides_the_preludes_weak_one() {
    let program = "fmod OWN is
  protecting INT .
  sort Exp .
  subsort Int < Exp .
  op gcd : Nat Nat -> Nat .
  op _^_ : Exp Exp -> Exp [ctor] .
  op _&_ : Exp Exp -> Exp [ctor] .
  op steps : Nat Nat -> Nat .
  vars A B : Nat .
  eq gcd(A, 0) = A .
  eq gcd(0, B) = B .
  ceq gcd(A, B) = gcd(A - B, B) if A >= B and B > 0 .
  ceq gcd(A, B) = gcd(A, B - A) if B > A and A > 0 .
endfm
fmod USES-OWN is
  protecting OWN .
endfm
fmod BUILT-IN is
  protecting INT .
endfm
";
    fn euclid(a: i64, b: i64) -> i64 {
        if b == 0 {
            a
        } else {
            euclid(b, a % b)
        }
    }
    let mut rng = Rng(0x6cd0_2026);
    let mut reds = String::new();
    let mut expected = Vec::new();
    for _ in 0..30 {
        let (a, b) = (rng.below(60) as i64 + 1, rng.below(60) as i64 + 1);
        let (x, k) = (rng.below(9) as i64 - 4, rng.below(5) as i64);
        // In OWN and in a module importing it: the module's operators.
        for m in ["OWN", "USES-OWN"] {
            reds += &format!("red in {m} : gcd({a}, {b}) .\n");
            expected.push((int_sort(euclid(a, b)), euclid(a, b).to_string()));
            reds += &format!("red in {m} : {a} ^ {b} & {k} .\n");
            expected.push(("Exp".to_string(), format!("{a} ^ {b} & {k}")));
        }
        // Beside them: the built-ins.
        reds += &format!("red in BUILT-IN : gcd({a}, {b}) & ({x}) ^ {k} .\n");
        let v = euclid(a, b) & x.pow(k as u32);
        expected.push((int_sort(v), v.to_string()));
    }
    assert_eq!(reduce_program(&format!("{program}{reds}")), expected);
    // The module's own `gcd` is rewritten by its equations, the built-in in one step.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("program.maude");
    std::fs::write(&file, program).unwrap();
    let rewrites = |module: &str| -> u64 {
        let out = support::cli::gamelang(&[
            "reduce",
            file.to_str().unwrap(),
            "gcd(35, 1)",
            "--module",
            module,
        ]);
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(stdout.contains("result NzNat: 1"), "{stdout}");
        let line = stdout.lines().find(|l| l.starts_with("rewrites: "));
        line.and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or_else(|| panic!("{stdout}"))
    };
    assert!(rewrites("OWN") > 35, "{}", rewrites("OWN"));
    assert_eq!(rewrites("BUILT-IN"), 1);
}

/// Maude's successor on the built-in naturals: `s N` in a right-hand side is N + 1, and in
/// a left-hand side it matches a positive number with N one less (`s s N`: at least two,
/// N two less; `s P` with `P : NzNat`: at least two; `s s 0`: the number 2), before the
/// equation's own condition, as Maude's towers of `s_` do. Checked on random numbers
/// against the same functions computed here.
#[test]
fn successor_patterns_match_positive_numbers() {
    let program = "fmod SUCC is
  protecting NAT .
  op fact : Nat -> Nat .
  op fib : Nat -> Nat .
  op half : Nat -> Nat .
  op even : Nat -> Bool .
  op pred : Nat -> Nat .
  op two : Nat -> Bool .
  op steps : Nat Nat -> Nat .
  vars N M : Nat .
  var P : NzNat .
  eq fact(0) = 1 .
  eq fact(s N) = s N * fact(N) .
  eq fib(0) = 0 .
  eq fib(s 0) = 1 .
  eq fib(s s N) = fib(s N) + fib(N) .
  eq half(s s N) = s half(N) .
  eq half(N) = 0 [owise] .
  ceq even(s N) = true if not even(N) .
  eq even(N) = N == 0 [owise] .
  eq pred(s P) = P .
  eq pred(N) = 0 [owise] .
  eq two(s s 0) = true .
  eq two(N) = false [owise] .
  ceq steps(s N, M) = steps(N, s M) if N >= M .
  eq steps(N, M) = M [owise] .
endfm
";
    fn fib(n: u64) -> u64 {
        (0..n).fold((0, 1), |(a, b), _| (b, a + b)).0
    }
    fn steps(mut n: u64, mut m: u64) -> u64 {
        // steps(s N, M) = steps(N, s M) if N >= M: n > 0 and n - 1 >= m, that is n > m.
        while n > m {
            n -= 1;
            m += 1;
        }
        m
    }
    let mut rng = Rng(0x5_5ccc);
    let mut reds = String::new();
    let mut expected = Vec::new();
    let nat = |v: u64| (int_sort(v as i64), v.to_string());
    let boolean = |b: bool| ("Bool".to_string(), b.to_string());
    for i in 0..40u64 {
        let n = if i < 4 { i } else { rng.below(20) };
        let m = rng.below(20);
        reds += &format!(
            "red fact({n}) .\nred fib({n}) .\nred half({n}) .\nred even({n}) .\nred pred({n}) .\nred two({n}) .\nred steps({n}, {m}) .\nred s s {n} .\n"
        );
        expected.extend([
            nat((1..=n).product()),
            nat(fib(n)),
            nat(n / 2),
            boolean(n % 2 == 0),
            nat(if n >= 2 { n - 1 } else { 0 }),
            boolean(n == 2),
            nat(steps(n, m)),
            nat(n + 2),
        ]);
    }
    assert_eq!(reduce_program(&format!("{program}{reds}")), expected);
}

/// Maude's quoted identifiers: in a module importing `QID`, `'name` is a constant of sort
/// `Qid`, equal only to itself, usable in patterns; in a module that does not, it is an
/// unknown name (or the module's own constant, if it declares one).
#[test]
fn quoted_identifiers_are_constants_of_sort_qid() {
    let program = "fmod GRAPH is
  protecting QID .
  protecting INT .
  sort Edge .
  op _->_ : Qid Qid -> Edge [ctor] .
  op src : Edge -> Qid .
  op is-a : Qid -> Nat .
  vars A B : Qid .
  eq src(A -> B) = A .
  eq is-a('a) = 1 .
  eq is-a(A) = 0 [owise] .
endfm
";
    let mut rng = Rng(0x0071_d0d0);
    let mut reds = String::new();
    let mut expected = Vec::new();
    let names = ["'a", "'b", "'node-7", "'x1", "'Y"];
    for _ in 0..30 {
        let p = names[rng.below(names.len() as u64) as usize];
        let q = names[rng.below(names.len() as u64) as usize];
        reds += &format!("red {p} == {q} .\nred src({p} -> {q}) .\nred is-a({p}) .\n");
        expected.push(("Bool".to_string(), (p == q).to_string()));
        expected.push(("Qid".to_string(), p.to_string()));
        let a = i64::from(p == "'a");
        expected.push((int_sort(a), a.to_string()));
    }
    assert_eq!(reduce_program(&format!("{program}{reds}")), expected);
    // Without QID, a quoted identifier is not declared.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("noqid.maude");
    std::fs::write(&file, "fmod NO is\n  protecting INT .\nendfm\n").unwrap();
    let out = support::cli::gamelang(&["reduce", file.to_str().unwrap(), "'a"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("unknown operator or variable `'a`"),
        "{stderr}"
    );
}

/// A parameter given the sort of an instance (`LIST{Set{Nat}}`, Maude's way to make lists
/// of sets): it was "unknown view, module or sort `Set`". Lists of two sets, by lengths
/// counted here.
#[test]
fn a_module_instantiated_with_the_sort_of_an_instance() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ls.maude");
    std::fs::write(
        &file,
        "fmod LS is protecting INT . protecting SET{Nat} . protecting LIST{Set{Nat}} . endfm\n\
         red size((1, 2) (3, 4) (5, 5)) .\n\
         red | head((7, 8, 9) (1, 2)) | .\n",
    )
    .unwrap();
    let want = [3.to_string(), [7, 8, 9].len().to_string()];
    assert_eq!(
        reduce_sorted_results(&file)
            .into_iter()
            .map(|(_, nf)| nf)
            .collect::<Vec<_>>(),
        want
    );
}
