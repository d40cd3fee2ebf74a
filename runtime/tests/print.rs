//! The mixfix printer.

mod common;
use common::*;

fn spec() -> Spec {
    let mut s = Spec::new();
    for c in ["a", "b", "c"] {
        s.op(c, &[], "Nat", "ctor");
    }
    for c in ["x", "y", "z"] {
        s.op(c, &[], "Bool", "ctor");
    }
    s.op("(__)", &["Nat", "Nat"], "Pair", "ctor");
    s.subsort("Pair", "PSet");
    s.op("none", &[], "PSet", "ctor");
    s.op(
        "_,_",
        &["PSet", "PSet"],
        "PSet",
        "ctor assoc comm idem id:none prec:121",
    );
    s.subsort("Nat", "MS");
    s.op("_;_", &["MS", "MS"], "MS", "ctor assoc comm prec:121");
    s.subsort("MS", "PSet");
    s.op("f", &["Top", "Top"], "Nat", "ctor");
    s.op("{_}", &["PSet"], "Nat", "ctor");
    s.op("<_>", &["Nat"], "Nat", "ctor");
    s.op("g-h", &["Nat"], "Nat", "ctor");
    s
}

#[test]
fn printer_forms() {
    let s = spec();
    let mut e = s.engine();
    for (src, want) in [
        ("[(__) 2 5]", "(2 5)"),
        ("[_,_ [(__) 0 5] [(__) 0 2]]", "(0 2), (0 5)"),
        ("[if_then_else_fi x y z]", "if x then y else z fi"),
        ("[f a b]", "f(a, b)"),
        ("[g-h -3]", "g-h(-3)"),
        ("-3", "-3"),
        ("[(__) a [_+_ b 1]]", "(a (b + 1))"),
        ("[not_ [_and_ x y]]", "not (x and y)"),
        ("[not_ [_==_ a b]]", "not a == b"),
        ("[_and_ [not_ x] y]", "not x and y"),
        ("[_+_ 1 [_*_ 2 3]]", "1 + 2 * 3"),
        ("[_*_ [_+_ 1 2] 3]", "(1 + 2) * 3"),
        // Left grouping is the parser's default among well-sorted readings (as Maude
        // prints it); the right one keeps its parentheses.
        ("[_-_ [_-_ 1 2] 3]", "1 - 2 - 3"),
        ("[_-_ 1 [_-_ 2 3]]", "1 - (2 - 3)"),
        (
            "[_,_ [(__) 1 1] [_,_ [(__) 2 2] [(__) 0 0]]]",
            "(0 0), (1 1), (2 2)",
        ),
        ("[_,_ [(__) 1 1] [_;_ 2 3]]", "(1 1), (2 ; 3)"),
        ("[f [_;_ 2 3] 1]", "f(2 ; 3, 1)"),
        ("[f [_,_ [(__) 1 1] [(__) 2 2]] 1]", "f(((1 1), (2 2)), 1)"),
        ("[{_} [_,_ [(__) 1 1] [(__) 2 2]]]", "{(1 1), (2 2)}"),
        ("[<_> [_+_ 1 2]]", "< 1 + 2 >"),
        (
            "[if_then_else_fi [_==_ 1 2] [_,_ [(__) 1 1] [(__) 2 2]] none]",
            "if 1 == 2 then (1 1), (2 2) else none fi",
        ),
        ("none", "none"),
        ("true", "true"),
    ] {
        let t = term(&s, &mut e, src);
        assert_eq!(e.show(t), want, "{src}");
    }
}

#[test]
fn printer_prints_huge_and_deep_terms_in_full_unless_limited() {
    let s = spec();
    let mut e = s.engine();
    let set = s.id("_;_");
    let elems: Vec<_> = (0..100_000).map(|i| e.mk_int(i)).collect();
    let t = e.mk_app(set, &elems);
    let out = e.show(t);
    assert!(!out.contains('…'), "{}", out.len());
    assert_eq!(out.split(" ; ").count(), 100_000);
    assert!(out.ends_with("99998 ; 99999"));
    let cut = e.show_limited(t, 20);
    assert!(cut.starts_with("0 ; 1 ; 2") && cut.ends_with('…'), "{cut}");
    assert!(cut.len() <= 20 + '…'.len_utf8());
}

#[test]
fn printer_prints_a_term_nested_200000_deep() {
    let s = spec();
    let mut e = s.engine();
    let g = s.id("<_>");
    let mut t = e.mk_int(7);
    for _ in 0..200_000 {
        t = e.mk_app(g, &[t]);
    }
    let out = e.show(t);
    assert_eq!(
        out,
        format!("{}7{}", "< ".repeat(200_000), " >".repeat(200_000))
    );
}
