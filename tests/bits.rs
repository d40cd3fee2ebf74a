//! The bit operations on integers (`band bor bxor shl shr popcount lowbit lowbit-index`,
//! and Maude's `_&_ _|_ _xor_ ~_ _<<_ _>>_`, declared in `stdlib/prelude.game`), each
//! checked against Rust's own operators on random 64-bit values run through `gamelang
//! reduce`, Maude's spellings with Maude's precedences; and their errors (a negative
//! shift, a left shift that overflows, the lowest bit of 0) reported at the term, never a
//! panic.

use std::path::PathBuf;
use std::process::{Command, Output};

fn run(file: &std::path::Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .arg("reduce")
        .arg("--quiet")
        .arg(file)
        .args(extra)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")))
        .output()
        .expect("run gamelang reduce")
}

/// A small xorshift generator, so the test needs no crate and is the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value of a random width, so small, large and negative numbers all come up.
    fn value(&mut self) -> i64 {
        let v = self.next() as i64;
        match self.next() % 4 {
            0 => v,
            1 => v >> (self.next() % 64),
            2 => -(v >> (self.next() % 63 + 1)),
            _ => (self.next() % 40) as i64,
        }
    }
}

/// `x` as a term: a negative literal is written `-N`, except the least value, which has no
/// positive counterpart among the literals.
fn lit(x: i64) -> String {
    if x == i64::MIN {
        format!("({} - 1)", i64::MIN + 1)
    } else {
        x.to_string()
    }
}

#[test]
fn bit_operations_agree_with_rusts_operators() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut terms = Vec::new();
    let mut want = Vec::new();
    for _ in 0..300 {
        let (x, y) = (rng.value(), rng.value());
        let k = (rng.next() % 64) as u32;
        terms.push(format!("band({}, {})", lit(x), lit(y)));
        want.push(x & y);
        terms.push(format!("bor({}, {})", lit(x), lit(y)));
        want.push(x | y);
        terms.push(format!("bxor({}, {})", lit(x), lit(y)));
        want.push(x ^ y);
        terms.push(format!("shr({}, {k})", lit(x)));
        want.push(x >> k);
        // Maude's spellings, with a shift amount that may pass 63.
        terms.push(format!(
            "({}) & ({}) xor ({}) | ({})",
            lit(x),
            lit(y),
            lit(y),
            lit(x)
        ));
        want.push(((x & y) ^ y) | x);
        terms.push(format!("~ ({})", lit(x)));
        want.push(!x);
        let far = k + 64 * (rng.next() % 2) as u32;
        terms.push(format!("({}) >> {far}", lit(x)));
        want.push(x >> far.min(63));
        // A left shift only where no bit is lost (the others are overflow errors).
        if (x << k) >> k == x {
            terms.push(format!("shl({}, {k})", lit(x)));
            want.push(x << k);
        }
        terms.push(format!("popcount({})", lit(x)));
        want.push(i64::from(x.count_ones()));
        terms.push(format!("lowbit({})", lit(x)));
        want.push(x & x.wrapping_neg());
        if x != 0 {
            terms.push(format!("lowbit-index({})", lit(x)));
            want.push(i64::from(x.trailing_zeros()));
        }
    }
    // The edges.
    for (t, w) in [
        ("shl(1, 62)", 1i64 << 62),
        ("shl(-1, 63)", i64::MIN),
        ("shr(-1, 63)", -1),
        ("shr(-8, 2)", -2),
        ("popcount(-1)", 64),
        ("lowbit(0)", 0),
        ("lowbit-index(shl(1, 40))", 40),
        // Exact past 63: the sign is left, and only 0 shifts left that far.
        ("shr(5, 64)", 0),
        ("shr(-5, 1000)", -1),
        ("shl(0, 1000)", 0),
        // Maude's names and precedences: `&` (53) binds before `xor` (55) before `|` (57),
        // the shifts (35) after `+` (33), and they group to the left.
        ("5 | 2 xor 7 & 12", 5 | (2 ^ (7 & 12))),
        ("12 & 10 | 3", (12 & 10) | 3),
        ("2 + 3 << 1", (2 + 3) << 1),
        ("1 << 10 >> 3", (1 << 10) >> 3),
        ("~ 5 & 255", !5 & 255),
        ("-5 >> 1", -5 >> 1),
    ] {
        terms.push(t.into());
        want.push(w);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bits.maude");
    let mut text = String::from("fmod BITS is\n  protecting INT .\nendfm\n");
    for t in &terms {
        text.push_str(&format!("reduce {t} .\n"));
    }
    std::fs::write(&file, text).unwrap();
    let out = run(&file, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Vec<i64> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("result "))
        .map(|l| {
            l.split_once(": ")
                .expect("result SORT: TERM")
                .1
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(got.len(), terms.len(), "{stdout}");
    for ((t, g), w) in terms.iter().zip(&got).zip(&want) {
        assert_eq!(g, w, "{t}");
    }
}

#[test]
fn bit_operations_out_of_range_are_located_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bits.maude");
    std::fs::write(
        &file,
        "fmod BITS is\n  protecting INT .\n  op f : Int -> Int .\n  var k : Int .\n  eq f(k) = shl(1, k) .\nendfm\n",
    )
    .unwrap();
    for (term, message) in [
        (
            "f(-1)",
            "the shift amount must not be negative in `shl(1, -1)`",
        ),
        ("f(64)", "integer overflow in `shl(1, 64)`"),
        (
            "1 >> (0 - 2)",
            "the shift amount must not be negative in `1 >> -2`",
        ),
        ("3 << 62", "integer overflow in `3 << 62`"),
        ("f(63)", "integer overflow in `shl(1, 63)`"),
        ("shl(3, 62)", "integer overflow in `shl(3, 62)`"),
        (
            "lowbit-index(0)",
            "0 has no lowest 1 bit in `lowbit-index(0)`",
        ),
    ] {
        let out = run(&file, &[term]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{term} should fail");
        assert!(stderr.contains(message), "{term}:\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
