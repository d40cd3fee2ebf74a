//! Maude's STRING and CONVERSION (runtime/src/engine/strings.rs): every operation on
//! random strings against the same operation written here on Rust strings, computed
//! strings equal to the literals of their text (matching, `==`, sets, memo tables shared
//! between engines), and the errors, with their messages and places.

mod support;

use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::sync::Arc;
use support::Rng;

const MODULE: &str = "fmod S is
  protecting CONVERSION .
  protecting SET{String} .
  op f : String -> Nat .
  op lbl : Nat -> String [memo] .
  op len : String -> Nat [memo] .
  var S : String .
  var N : Nat .
  eq f(\"ab\") = 1 .
  eq f(S) = 2 [owise] .
  eq lbl(N) = \"n\" + string(N, 10) .
  eq len(S) = length(S) .
endfm
";

/// A session with [`MODULE`] loaded, and an evaluator of terms of `S`: the normal form
/// printed, or the error described.
fn session() -> (Session, gamelang_lang::elab::ModuleId) {
    let mut session = Session::new().expect("stdlib");
    session.load_source("s.maude", MODULE).expect("loads");
    let m = session.module_by_name("S").expect("module S");
    (session, m)
}

fn ask(
    session: &mut Session,
    m: gamelang_lang::elab::ModuleId,
    engine: &mut Engine,
    term: &str,
) -> Result<String, String> {
    let pat = session
        .parse_term(m, "test", term, None)
        .unwrap_or_else(|e| panic!("`{term}` parses: {e:?}"));
    // A literal new to the session is a constant declared as the term is read.
    if session.program.sig.ops.len() != engine.program().sig.ops.len() {
        engine.set_program(Arc::new(session.program.clone()));
    }
    let t = engine.build(&pat, &[]);
    match engine.reduce(t) {
        Ok(v) => Ok(engine.show(v)),
        Err(e) => Err(engine.describe(&e)),
    }
}

/// The literal of the bytes `s` as Maude prints it (and reads it back): printable ASCII as
/// it is but `"` and `\`, which are escaped; C's named escapes for the control characters
/// with one; three octal digits for every other byte (`"\000"`, `"\303\251"` for `é`).
fn lit(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &c in s {
        let named = [
            (b'\n', 'n'),
            (b'\t', 't'),
            (b'\r', 'r'),
            (7, 'a'),
            (8, 'b'),
            (12, 'f'),
            (11, 'v'),
        ];
        if let Some(&(_, e)) = named.iter().find(|(b, _)| *b == c) {
            out.push('\\');
            out.push(e);
        } else if c == b'"' || c == b'\\' {
            out.push('\\');
            out.push(c as char);
        } else if (32..127).contains(&c) {
            out.push(c as char);
        } else {
            out.push_str(&format!("\\{:o}{:o}{:o}", c >> 6, (c >> 3) & 7, c & 7));
        }
    }
    out.push('"');
    out
}

/// A random string over a few characters (so that searches find things), `é` among them
/// (two bytes: positions and lengths count bytes), of up to 6 characters.
fn word(rng: &mut Rng) -> Vec<u8> {
    let n = rng.below(7) as usize;
    (0..n)
        .map(|_| ["a", "b", "c", "B", " ", "é", "\""][rng.below(7) as usize])
        .collect::<String>()
        .into_bytes()
}

/// `find` as Maude defines it: the least position p >= i with `y` at p, by trying each.
fn find(x: &[u8], y: &[u8], i: usize) -> Option<usize> {
    (i..=x.len()).find(|&p| x[p..].starts_with(y))
}

/// `rfind`: the greatest position p <= i with `y` at p.
fn rfind(x: &[u8], y: &[u8], i: usize) -> Option<usize> {
    (0..=i.min(x.len())).rev().find(|&p| x[p..].starts_with(y))
}

/// Maude's order on strings: byte by byte as C's signed `char`s (measured on Maude 3.2:
/// `char(200) < char(100)`), a proper prefix first.
fn less(x: &[u8], y: &[u8]) -> bool {
    let signed = |s: &[u8]| s.iter().map(|&c| c as i8).collect::<Vec<_>>();
    signed(x) < signed(y)
}

/// `n` in base `b` by repeated division (digits 0-9 then a-z).
fn in_base(n: i64, b: i64) -> Vec<u8> {
    let digits = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut m = n.unsigned_abs();
    let mut out = Vec::new();
    loop {
        out.push(digits[(m % b as u64) as usize]);
        m /= b as u64;
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        out.push(b'-');
    }
    out.reverse();
    out
}

#[test]
fn string_operations_agree_with_rust_strings() {
    let (mut session, m) = session();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut rng = Rng(23);
    for _ in 0..150 {
        let (x, y) = (word(&mut rng), word(&mut rng));
        let (lx, ly) = (lit(&x), lit(&y));
        let i = rng.below(8) as usize;
        let n = rng.below(8) as usize;
        let mut ask = |t: &str| ask(&mut session, m, &mut engine, t).expect(t);
        let xy = [&x[..], &y[..]].concat();
        assert_eq!(ask(&format!("{lx} + {ly}")), lit(&xy));
        // A computed string is the literal of its text.
        assert_eq!(ask(&format!("({lx} + {ly}) == {}", lit(&xy))), "true");
        assert_eq!(ask(&format!("length({lx} + {ly})")), xy.len().to_string());
        let lo = i.min(x.len());
        let hi = (lo + n).min(x.len());
        assert_eq!(ask(&format!("substr({lx}, {i}, {n})")), lit(&x[lo..hi]));
        let show = |p: Option<usize>| p.map_or("notFound".to_string(), |p| p.to_string());
        assert_eq!(
            ask(&format!("find({lx}, {ly}, {i})")),
            show(find(&x, &y, i)),
            "find({lx}, {ly}, {i})"
        );
        assert_eq!(
            ask(&format!("rfind({lx}, {ly}, {i})")),
            show(rfind(&x, &y, i)),
            "rfind({lx}, {ly}, {i})"
        );
        for (op, want) in [
            ("<", less(&x, &y)),
            ("<=", !less(&y, &x)),
            (">", less(&y, &x)),
            (">=", !less(&x, &y)),
        ] {
            assert_eq!(
                ask(&format!("{lx} {op} {ly}")),
                want.to_string(),
                "{lx} {op} {ly}"
            );
        }
        assert_eq!(
            ask(&format!("upperCase({lx})")),
            lit(&x.to_ascii_uppercase())
        );
        assert_eq!(
            ask(&format!("lowerCase({lx})")),
            lit(&x.to_ascii_lowercase())
        );
        assert_eq!(
            ask(&format!("f({lx} + {ly})")),
            if xy == b"ab" { "1" } else { "2" }
        );
        let k = rng.below(2_000_001) as i64 - 1_000_000;
        let b = 2 + rng.below(35) as i64;
        let written = in_base(k, b);
        assert_eq!(
            ask(&format!("string({k}, {b})")),
            lit(&written),
            "string({k}, {b})"
        );
        assert_eq!(ask(&format!("rat({}, {b})", lit(&written))), k.to_string());
    }
    // Every byte: `char` makes it, `ascii` reads it back, and it prints as Maude prints
    // it; read back from that literal, it is the same string.
    for c in 0..=255u8 {
        let ch = ask(&mut session, m, &mut engine, &format!("char({c})")).expect("char");
        assert_eq!(ch, lit(&[c]), "char({c})");
        assert_eq!(
            ask(&mut session, m, &mut engine, &format!("ascii(char({c}))")),
            Ok(c.to_string())
        );
        assert_eq!(
            ask(&mut session, m, &mut engine, &format!("char({c}) == {ch}")),
            Ok("true".to_string()),
            "{ch}"
        );
    }
    // Literals read C's escapes as Maude does: named ones, up to three octal digits (the
    // value modulo 256), and a backslash before anything else is that character.
    for (literal, bytes) in [
        (r#""\a\b\f\v\r\e""#, &b"\x07\x08\x0c\x0b\re"[..]),
        (r#""\0""#, b"\0"),
        (r#""\399""#, b"\x0399"),
        (r#""\477""#, b"?"),
        (r#""\101\40""#, b"A "),
        (r#""\x41""#, b"x41"),
    ] {
        assert_eq!(
            ask(&mut session, m, &mut engine, &format!("{literal} + \"\"")),
            Ok(lit(bytes)),
            "{literal}"
        );
    }
}

#[test]
fn computed_strings_are_one_term_with_literals_in_sets_and_memo_tables() {
    let (mut session, m) = session();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut ask = |t: &str| ask(&mut session, m, &mut engine, t).expect(t);
    // A set keeps one copy of a text, however it was made.
    assert_eq!(ask("| (\"a\" + \"b\"), \"ab\", (\"ab\" + \"\") |"), "1");
    assert_eq!(ask("| (\"x\" + \"y\"), (\"xy\" + \"\"), \"yx\" |"), "2");
    assert_eq!(ask("\"ab\" in ((\"a\" + \"b\"), \"c\")"), "true");
    assert_eq!(ask("len(\"a\" + \"bc\") + len(\"abc\")"), "6");

    // Engines on other threads share memo tables through a portable encoding of terms:
    // strings must arrive whole, and two strings must not be one key.
    let mut engines = support::engines_sharing_memo(&session.program, 2);
    let long = "a string longer than eight bytes, with \\\"quotes\\\"";
    for e in [0, 1] {
        assert_eq!(
            ask_in(&mut session, m, &mut engines[e], "lbl(12345)"),
            "\"n12345\""
        );
        assert_eq!(
            ask_in(
                &mut session,
                m,
                &mut engines[e],
                &format!("len(\"{long}\" + \"!\")")
            ),
            (long.replace("\\\"", "\"").len() + 1).to_string()
        );
    }
    assert_eq!(
        ask_in(&mut session, m, &mut engines[1], "len(\"a\" + \"b\")"),
        "2"
    );
    assert!(
        engines[1].shared_stats().hits >= 2,
        "engine 1 used engine 0's values"
    );
}

fn ask_in(
    session: &mut Session,
    m: gamelang_lang::elab::ModuleId,
    engine: &mut Engine,
    t: &str,
) -> String {
    ask(session, m, engine, t).expect(t)
}

#[test]
fn string_errors_say_what_is_wrong_and_where() {
    let dir = std::env::temp_dir().join(format!("gamelang-strings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.maude");
    for (term, message) in [
        (
            "rat(\"12a\", 10)",
            "`rat` needs the digits of an integer in the base given",
        ),
        ("string(5, 1)", "the base must be from 2 to 36"),
        ("char(300)", "`char` needs a code from 0 to 255"),
        ("rat(\"99999999999999999999\", 10)", "overflow"),
    ] {
        std::fs::write(
            &file,
            format!("fmod B is\n  protecting CONVERSION .\nendfm\n\nred {term} .\n"),
        )
        .expect("write");
        let out = support::cli::gamelang(&["reduce", file.to_str().expect("a UTF-8 path")]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{term}: {stderr}");
        assert!(stderr.contains(message), "{term}: {stderr}");
        assert!(
            stderr.contains("bad.maude:5:1"),
            "{term}: the `red` line: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_game_draws_computed_strings() {
    // `display` joins literals and strings computed by CONVERSION's `string`: the principal
    // line `gamelang solve` draws shows every position's number in decimal and binary.
    let out = support::cli::gamelang(&["solve", "tests/data/take-display.game"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tokens: "))
        .collect();
    // Take 1 or 2 from 10, the last token wins: the winner leaves multiples of 3, so
    // every position of the principal line is drawn, from 10 down to 0.
    assert!(drawn.len() >= 2, "{stdout}");
    assert_eq!(drawn[0], "10 (1010 in binary)");
    assert_eq!(drawn.last(), Some(&"0 (0 in binary)"));
    for d in drawn {
        let (n, rest) = d.split_once(' ').expect("a number and its binary");
        let n: u32 = n.parse().expect("decimal");
        assert_eq!(rest, format!("({n:b} in binary)"));
    }
}
