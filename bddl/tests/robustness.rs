//! Truncated and garbled versions of the corpus files: reading them never panics, every
//! error has a place inside its file, and whatever is accepted writes back to the same
//! model.

mod common;

use common::{parse_texts, problems};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Parse, and check what came out: no panic, located errors, or a model that round-trips.
fn check(domain: &str, problem: &str) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let (sources, result) = parse_texts(domain, problem);
        match result {
            Err(diags) => {
                assert!(!diags.is_empty(), "an Err carries at least one error");
                for d in &diags {
                    let span = d.span().expect("every error has a primary span");
                    let text = sources.text(span.file);
                    assert!(
                        span.start <= span.end && (span.end as usize) <= text.len(),
                        "the span {span:?} is inside its file"
                    );
                    assert!(
                        text.get(span.range()).is_some(),
                        "the span is on char boundaries"
                    );
                    // Rendering checks the spans once more (codespan panics on bad ones).
                    d.render(&sources, false);
                }
            }
            Ok(m) => {
                let (_, again) = parse_texts(&m.domain_text(), &m.problem_text());
                assert_eq!(
                    again.as_ref().ok(),
                    Some(&m),
                    "an accepted model writes back"
                );
                m.to_game("garbled");
            }
        }
    }));
    if outcome.is_err() {
        panic!("reading these files failed:\n--- domain\n{domain}\n--- problem\n{problem}");
    }
}

/// A small deterministic generator (xorshift), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Pieces of BDDL (and of non-BDDL) to splice in.
const BITS: &[&str] = &[
    "(",
    ")",
    "((",
    "))",
    ",",
    "#",
    "%",
    ":",
    "?",
    "?x",
    "?y",
    "?x+",
    "?y-1",
    "+",
    "-",
    " ",
    "\n",
    "\n\n",
    "0",
    "1",
    "65",
    "-7",
    "99999999999999999999",
    "xmin",
    "ymax",
    "NOT",
    "NOT(",
    "black",
    "white",
    "open",
    "red",
    "False",
    "second",
    "#init",
    "#depth",
    "#blackgoal",
    "#whitegoal",
    "#blackactions",
    "#whiteactions",
    "#boardsize",
    "#blackturn",
    "#foo",
    ":action",
    ":parameters",
    ":precondition",
    ":effect",
    ":foo",
    "black(1,1)",
    "open(?x,?y)",
    "()",
    "é",
    "\u{1F600}",
    "\t",
    "\r\n",
];

fn char_boundaries(s: &str) -> Vec<usize> {
    s.char_indices().map(|(i, _)| i).chain([s.len()]).collect()
}

/// One random change: delete a run, insert a piece, duplicate or drop a line.
fn mutate(text: &str, rng: &mut Rng) -> String {
    let cuts = char_boundaries(text);
    let a = cuts[rng.below(cuts.len())];
    let b = cuts[rng.below(cuts.len())];
    let (a, b) = (a.min(b), a.max(b));
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    match rng.below(5) {
        0 => format!("{}{}", &text[..a], &text[(a + 1).min(b).max(a)..]),
        1 => format!(
            "{}{}{}",
            &text[..a],
            BITS[rng.below(BITS.len())],
            &text[a..]
        ),
        2 => format!("{}{}", &text[..a], &text[b..]),
        3 if !lines.is_empty() => {
            let k = rng.below(lines.len());
            let mut l = lines.clone();
            l.insert(k, lines[rng.below(lines.len())]);
            l.concat()
        }
        _ if !lines.is_empty() => {
            let mut l = lines.clone();
            l.remove(rng.below(lines.len()));
            l.concat()
        }
        _ => text.to_string(),
    }
}

#[test]
fn truncated_files_never_panic() {
    // One problem of every folder, each file cut at every character.
    let mut seen = std::collections::HashSet::new();
    for p in problems() {
        if !seen.insert(p.domain_path.clone()) {
            continue;
        }
        for cut in char_boundaries(&p.domain) {
            check(&p.domain[..cut], &p.problem);
        }
        for cut in char_boundaries(&p.problem) {
            check(&p.domain, &p.problem[..cut]);
        }
    }
}

#[test]
fn garbled_files_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for p in problems() {
        for round in 0..60 {
            let mut domain = p.domain.clone();
            let mut problem = p.problem.clone();
            // One to four changes, to one file or both.
            for _ in 0..=rng.below(4) {
                match round % 3 {
                    0 => domain = mutate(&domain, &mut rng),
                    1 => problem = mutate(&problem, &mut rng),
                    _ => {
                        domain = mutate(&domain, &mut rng);
                        problem = mutate(&problem, &mut rng);
                    }
                }
            }
            check(&domain, &problem);
        }
    }
}

#[test]
fn arbitrary_text_never_panics() {
    let mut rng = Rng(12345);
    for _ in 0..3000 {
        let mut parts = [String::new(), String::new()];
        for part in &mut parts {
            for _ in 0..rng.below(40) {
                part.push_str(BITS[rng.below(BITS.len())]);
            }
        }
        check(&parts[0], &parts[1]);
    }
}
