//! Fuzz targets with shrinking (`proptest`, stable Rust): the parser and elaborator on
//! arbitrary bytes and on edits of the seed corpus (`examples/`, `tests/fuzz-corpus/`),
//! the term parser at the prompt on runs of its tokens, and the BDDL parser on edits of
//! `bddl/tests/corpus/`. The property of each: no panic — an answer or a clean error.
//! When one fails, proptest shrinks the input (fewer edits, shorter runs) before
//! reporting it. Bounded: 48 cases per target in debug builds, 256 with `--release`
//! (`PROPTEST_CASES=N` overrides). The seeded hand-written generators of `tests/fuzz.rs`
//! (and the command-line and exhaustive-vs-QBF targets there and in
//! `tests/differential.rs`) stay as they are.

use gamelang_lang::elab::Session;
use gamelang_lang::span::Sources;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn config() -> Config {
    let default = if cfg!(debug_assertions) { 48 } else { 256 };
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    Config {
        cases,
        // No file of failures in the source tree: a failure is printed, shrunk.
        failure_persistence: None,
        ..Config::default()
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The files under `dir` whose names end with `ext`, sorted.
fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.to_string_lossy().ends_with(ext) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `.game` seed corpus, read once.
fn games() -> &'static [Vec<u8>] {
    static GAMES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    GAMES.get_or_init(|| {
        let mut paths = files(&root().join("examples"), ".game");
        paths.extend(files(&root().join("tests/fuzz-corpus"), ".game"));
        paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
    })
}

/// One edit of a byte string: at a position (a fraction of its length), delete a few
/// bytes, insert a byte, replace one, or copy a slice elsewhere.
#[derive(Clone, Debug)]
enum Edit {
    Delete(u16, u8),
    Insert(u16, u8),
    Replace(u16, u8),
    Copy(u16, u16, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    // Bytes that matter to the lexer and the grammar, besides arbitrary ones.
    let byte = prop_oneof![
        prop::sample::select(b" .()[]{},:=-_>\n0123456789".to_vec()),
        any::<u8>()
    ];
    prop_oneof![
        (any::<u16>(), 1..16u8).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<u16>(), byte.clone()).prop_map(|(a, b)| Edit::Insert(a, b)),
        (any::<u16>(), byte).prop_map(|(a, b)| Edit::Replace(a, b)),
        (any::<u16>(), any::<u16>(), 1..64u8).prop_map(|(a, b, n)| Edit::Copy(a, b, n)),
    ]
}

fn apply(text: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut t = text.to_vec();
    let at = |t: &Vec<u8>, f: u16| (f as usize * (t.len() + 1)) >> 16;
    for e in edits {
        match *e {
            Edit::Delete(a, n) => {
                let i = at(&t, a);
                let j = (i + n as usize).min(t.len());
                t.drain(i..j);
            }
            Edit::Insert(a, b) => {
                let i = at(&t, a);
                t.insert(i, b);
            }
            Edit::Replace(a, b) => {
                if !t.is_empty() {
                    let i = at(&t, a).min(t.len() - 1);
                    t[i] = b;
                }
            }
            Edit::Copy(a, b, n) => {
                let i = at(&t, a);
                let j = (i + n as usize).min(t.len());
                let piece = t[i..j].to_vec();
                let k = at(&t, b);
                t.splice(k..k, piece);
            }
        }
    }
    t
}

/// Load `bytes` as a `.game` file in a fresh session, on a thread with the binary's
/// large stack; `Err` with the panic message if it panicked.
fn load(bytes: Vec<u8>) -> Result<(), String> {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            // Not UTF-8: refused by read_source before parsing (tests/reliability.rs).
            let Ok(text) = String::from_utf8(bytes) else {
                return;
            };
            let mut s = Session::new().expect("stdlib");
            let _ = s.load_source("fuzz.game", &text);
        })
        .unwrap()
        .join()
        .map_err(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_elaborator_takes_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        prop_assert_eq!(load(bytes), Ok(()));
    }

    #[test]
    fn the_elaborator_takes_edits_of_the_corpus(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..8),
    ) {
        let seeds = games();
        let text = &seeds[which.index(seeds.len())];
        prop_assert_eq!(load(apply(text, &edits)), Ok(()));
    }

    #[test]
    fn the_term_parser_takes_runs_of_tokens(
        words in prop::collection::vec(prop::sample::select(vec![
            "(", ")", "1", "-3", "+", "*", "-", ",", "rem", "quo", "if", "then", "else",
            "fi", "true", "and", "not", "==", "w", "B", "R", "next-heaps", "empty", "x",
            "n:Nat", "0", "9223372036854775807", ".", "eq", "op", "[", "]",
        ]), 0..60),
    ) {
        let text = words.join(" ");
        let shown = text.clone();
        let outcome = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                // A fresh session per case: each case runs on its own thread.
                let mut s = Session::new().expect("stdlib");
                let src = std::fs::read_to_string(root().join("examples/heaps.game")).unwrap();
                s.load_source("heaps.game", &src).expect("heaps loads");
                let m = s.games[0].module;
                let _ = s.parse_term(m, "<input>", &text, None);
                let _ = s.term_unfinished(m, &text);
            })
            .unwrap()
            .join();
        prop_assert!(outcome.is_ok(), "parsing a term panicked on {:?}", shown);
    }

    #[test]
    fn the_bddl_parser_takes_edits_of_the_corpus(
        which in any::<prop::sample::Index>(),
        of_domain in any::<bool>(),
        edits in prop::collection::vec(edit(), 1..8),
    ) {
        let domains = files(&root().join("bddl/tests/corpus"), "domain.ig");
        let d = &domains[which.index(domains.len())];
        let problem = files(d.parent().unwrap(), ".ig").into_iter().find(|p| p != d);
        let Some(p) = problem else { return Ok(()) };
        let (mut dt, mut pt) = (std::fs::read(d).unwrap(), std::fs::read(&p).unwrap());
        if of_domain { dt = apply(&dt, &edits) } else { pt = apply(&pt, &edits) }
        let outcome = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let (Ok(dt), Ok(pt)) = (String::from_utf8(dt), String::from_utf8(pt)) else {
                    return;
                };
                let mut sources = Sources::default();
                let d = sources.add("domain.ig".to_string(), dt);
                let p = sources.add("problem.ig".to_string(), pt);
                if let Ok(model) = gamelang_bddl::parse(&mut sources, d, p) {
                    // A model that reads must translate to a game that loads.
                    let mut s = Session::new().expect("stdlib");
                    let text = model.to_game("fuzz");
                    assert!(s.load_source("fuzz.game", &text).is_ok(), "the translation did not load:\n{text}");
                }
            })
            .unwrap()
            .join();
        prop_assert!(outcome.is_ok());
    }
}
