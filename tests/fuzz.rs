//! Fuzz targets on stable Rust, each run for a bounded number of cases (a few seconds) by
//! `cargo test`: mutations of the seed corpora (`examples/`, `tests/fuzz-corpus/`,
//! `bddl/tests/corpus/`) and random token runs. Every input must give an answer or a clean
//! error — never a panic. (The exhaustive-vs-QBF differential target is
//! `tests/differential.rs`; the command line is fuzzed here through the binary.)
//!
//! The same parser, elaborator, term-parser and BDDL targets with shrinking (proptest) are
//! in `tests/proptest_fuzz.rs`.
//!
//! `GAMELANG_FUZZ_CASES=N` runs N cases per target instead of the default, and
//! `GAMELANG_FUZZ_SEED=S` starts from another seed (both for longer runs by hand).

use gamelang_lang::elab::Session;
use gamelang_lang::span::Sources;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn cases(default: usize) -> usize {
    std::env::var("GAMELANG_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("GAMELANG_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x5eed)
        | 1
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir` (recursively) whose names end with `ext`.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
    out.sort();
}

/// A mutant of `text`: a few byte-level edits (flip, delete, duplicate a slice, insert a
/// token that means something to the language).
fn mutate(r: &mut Rng, text: &[u8]) -> Vec<u8> {
    const TOKENS: &[&str] = &[
        " . ",
        "(",
        ")",
        " endfm ",
        " eq ",
        " op ",
        " : ",
        " -> ",
        " [assoc] ",
        ",",
        " if ",
        " fi ",
        "{",
        "}",
        " var ",
        " sort ",
        " 0 ",
        " -1 ",
        " 99999999999999999999 ",
        "\u{0}",
        "\u{fffd}",
        " protecting INT . ",
        " _+_ ",
        " memo ",
        " view ",
        " endv ",
        " game ",
    ];
    let mut t = text.to_vec();
    for _ in 0..1 + r.below(4) {
        let n = t.len().max(1);
        let at = r.below(n).min(t.len());
        match r.below(5) {
            0 if !t.is_empty() => {
                let k = at.min(t.len() - 1);
                t[k] ^= 1 << r.below(8);
            }
            1 => {
                let end = (at + r.below(40)).min(t.len());
                t.drain(at..end);
            }
            2 => {
                let end = (at + r.below(80)).min(t.len());
                let slice = t[at..end].to_vec();
                t.splice(at..at, slice);
            }
            _ => {
                let tok = TOKENS[r.below(TOKENS.len())].as_bytes();
                t.splice(at..at, tok.iter().copied());
            }
        }
    }
    t
}

/// Run `f` on a thread with a large stack (as the binary does), reporting a panic with
/// the input that caused it.
fn no_panic(what: &str, input: &[u8], f: impl FnOnce() + Send + 'static) {
    let result = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || catch_unwind(AssertUnwindSafe(f)).is_ok())
        .unwrap()
        .join()
        .unwrap_or(false);
    assert!(
        result,
        "{what} panicked on this input:\n{}",
        String::from_utf8_lossy(input)
    );
}

#[test]
fn fuzz_parser_and_elaborator_on_mutated_games() {
    let mut seeds = Vec::new();
    files(&root().join("examples"), ".game", &mut seeds);
    files(&root().join("tests/fuzz-corpus"), ".game", &mut seeds);
    assert!(seeds.len() > 5);
    let mut r = Rng(seed());
    for case in 0..cases(120) {
        let text = std::fs::read(&seeds[case % seeds.len()]).unwrap();
        let mutant = mutate(&mut r, &text);
        let input = mutant.clone();
        no_panic("loading a .game file", &input, move || {
            let Ok(text) = String::from_utf8(mutant) else {
                return; // read_source refuses it (tested in tests/reliability.rs)
            };
            let mut s = Session::new().expect("stdlib");
            let _ = s.load_source("fuzz.game", &text);
        });
    }
}

#[test]
fn fuzz_term_parser_at_the_prompt() {
    const WORDS: &[&str] = &[
        "(",
        ")",
        "(",
        ")",
        "1",
        "-3",
        "+",
        "*",
        "-",
        ",",
        "rem",
        "quo",
        "if",
        "then",
        "else",
        "fi",
        "true",
        "and",
        "not",
        "==",
        "w",
        "B",
        "R",
        "next-heaps",
        "empty",
        "x",
        "n:Nat",
        "(2 5)",
        "0",
        "9223372036854775807",
    ];
    let mut seeds: Vec<String> = Vec::new();
    let mut paths = Vec::new();
    files(&root().join("tests/fuzz-corpus"), ".term", &mut paths);
    for p in paths {
        seeds.push(std::fs::read_to_string(p).unwrap());
    }
    let mut r = Rng(seed() ^ 0x7e57);
    let inputs: Vec<String> = (0..cases(400))
        .map(|case| {
            if case < seeds.len() {
                seeds[case].clone()
            } else {
                let long = r.below(10) == 0;
                let n = 1 + r.below(if long { 400 } else { 12 });
                (0..n)
                    .map(|_| WORDS[r.below(WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        })
        .collect();
    // One session for all the inputs (loading the standard library is the slow part).
    let failed = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut s = Session::new().expect("stdlib");
            let src = std::fs::read_to_string(root().join("examples/heaps.game")).unwrap();
            s.load_source("heaps.game", &src).expect("heaps loads");
            let m = s.games[0].module;
            inputs.into_iter().find(|text| {
                catch_unwind(AssertUnwindSafe(|| {
                    let _ = s.parse_term(m, "<input>", text, None);
                    let _ = s.term_unfinished(m, text);
                }))
                .is_err()
            })
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(failed.is_none(), "parsing a term panicked on: {failed:?}");
}

#[test]
fn fuzz_bddl_parser_on_mutated_problems() {
    let mut domains = Vec::new();
    files(&root().join("bddl/tests/corpus"), "domain.ig", &mut domains);
    assert!(!domains.is_empty());
    let mut r = Rng(seed() ^ 0xbdd1);
    for case in 0..cases(300) {
        let d = &domains[case % domains.len()];
        let mut problems = Vec::new();
        files(d.parent().unwrap(), ".ig", &mut problems);
        problems.retain(|p| p != d);
        let Some(p) = problems.get(r.below(problems.len())) else {
            continue;
        };
        let (dt, pt) = (std::fs::read(d).unwrap(), std::fs::read(p).unwrap());
        let (dm, pm) = if r.below(2) == 0 {
            (mutate(&mut r, &dt), pt)
        } else {
            (dt, mutate(&mut r, &pt))
        };
        let mut input = dm.clone();
        input.extend_from_slice(b"\n----- problem -----\n");
        input.extend_from_slice(&pm);
        no_panic("reading BDDL", &input, move || {
            let (Ok(dm), Ok(pm)) = (String::from_utf8(dm), String::from_utf8(pm)) else {
                return;
            };
            let mut sources = Sources::default();
            let d = sources.add("domain.ig".to_string(), dm);
            let p = sources.add("problem.ig".to_string(), pm);
            if let Ok(model) = gamelang_bddl::parse(&mut sources, d, p) {
                // A model that reads must translate to a game that loads.
                let mut s = Session::new().expect("stdlib");
                let text = model.to_game("fuzz");
                if let Err(e) = s.load_source("fuzz.game", &text) {
                    panic!(
                        "the translation did not load:\n{}",
                        gamelang_lang::diag::render_all(&e, &s.sources, false)
                    );
                }
            }
        });
    }
}

#[test]
fn fuzz_command_line_options() {
    const ARGS: &[&str] = &[
        "solve",
        "sweep",
        "bddl",
        "lower",
        "play",
        "--from",
        "(2 5)",
        "(k n)",
        "--first",
        "B",
        "Q",
        "--set",
        "n=-1",
        "rows=2",
        "x",
        "--max-steps",
        "0",
        "-1",
        "18446744073709551616",
        "--max-depth",
        "3",
        "--depth",
        "auto",
        "--range",
        "k=1..3",
        "k=3..1",
        "--json",
        "--timeout",
        "inf",
        "nan",
        "--qbf",
        "--solver",
        "true",
        "--threads",
        "0",
        "--csv",
        "/dev/null",
        "--value",
        "--line-budget",
        "examples/heaps.game",
        "examples/domineering.game",
        "/dev/null",
        "--to",
        "bddl",
        "qcir",
        "--out",
    ];
    let mut r = Rng(seed() ^ 0xc11);
    for _ in 0..cases(40) {
        let n = 1 + r.below(7);
        let args: Vec<&str> = (0..n).map(|_| ARGS[r.below(ARGS.len())]).collect();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(&args)
            .current_dir(root())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.code().is_some_and(|c| c != 101) && !err.contains("panicked"),
            "gamelang {args:?}: {:?}\n{err}",
            out.status
        );
    }
}
