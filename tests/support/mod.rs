//! What several test files need: independent brute-force solvers of the games, written from
//! the rules (never from gamelang or from a formula).
// Each test file uses some of these helpers; the rest would be dead code in that file.
#![allow(dead_code)]

pub mod othello;
pub mod quoridor;
pub mod ttt;

/// A small deterministic generator (xorshift64*), so random cases are the same on every
/// run and the tests need no crate.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The peak memory, in MiB, of the child processes this process has waited for
/// (`getrusage(RUSAGE_CHILDREN)`): a child's own when the test binary runs that one child,
/// as the memory tests (each a binary of its own) do.
pub fn peak_child_mib() -> i64 {
    // SAFETY: an all-zero `rusage` is a valid value; `getrusage` fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a pointer to a live local.
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss / 1024 // KiB on Linux
}

/// `n` engines of `program` sharing one set of memo tables (a `SharedMemo`), as the
/// workers of `gamelang sweep` do.
pub fn engines_sharing_memo(
    program: &gamelang_lang::program::Program,
    n: usize,
) -> Vec<gamelang_runtime::Engine> {
    let shared = gamelang_runtime::engine::SharedMemo::new();
    (0..n)
        .map(|_| {
            let mut e = gamelang_runtime::Engine::new(std::sync::Arc::new(program.clone()));
            e.share_memo(shared.clone());
            e
        })
        .collect()
}

/// Running the `gamelang` binary from tests.
pub mod cli {
    use std::path::Path;
    use std::process::{Command, Output};

    /// `gamelang ARGS…`, waited for.
    pub fn gamelang(args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(args)
            .output()
            .expect("run gamelang")
    }

    /// `gamelang ARGS…` with `input` on its standard input (a REPL script), waited for.
    pub fn gamelang_with_input(args: &[&str], input: &str) -> Output {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(args)
            .env("GAMELANG_HISTORY", "")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run gamelang");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write the input");
        drop(stdin);
        child.wait_with_output().expect("wait for gamelang")
    }

    /// `gamelang ARGS…` with environment variables set, waited for.
    pub fn gamelang_env(args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_gamelang"))
            .args(args)
            .envs(env.iter().copied())
            .output()
            .expect("run gamelang")
    }

    /// The one JSON object a successful `gamelang ARGS… --json` prints.
    pub fn json(args: &[&str]) -> serde_json::Value {
        let out = gamelang(args);
        assert!(
            out.status.success(),
            "gamelang {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("one JSON object")
    }

    /// The normal forms a successful `gamelang reduce FILE --quiet` prints, one per
    /// `result SORT: NF` line, in order.
    pub fn reduce_results(file: &Path) -> Vec<String> {
        reduce_sorted_results(file)
            .into_iter()
            .map(|(_, nf)| nf)
            .collect()
    }

    /// The sorts and normal forms of the `result SORT: NF` lines a successful
    /// `gamelang reduce FILE --quiet` prints, in order.
    pub fn reduce_sorted_results(file: &Path) -> Vec<(String, String)> {
        let out = gamelang(&["reduce", &file.display().to_string(), "--quiet"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("result "))
            .map(|l| {
                let (sort, nf) = l.split_once(": ").expect("result SORT: NF");
                (sort.to_string(), nf.to_string())
            })
            .collect()
    }

    /// Writes into `dir` a BDDL domain in which both players occupy an open cell, and the
    /// problem `problem`; returns the paths of the two files.
    pub fn occupy_problem(dir: &Path, problem: &str) -> (String, String) {
        let (d, p) = (dir.join("d.ig"), dir.join("p.ig"));
        std::fs::write(
            &d,
            "#blackactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (black(?x,?y))\n\
             #whiteactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (white(?x,?y))\n",
        )
        .unwrap();
        std::fs::write(&p, problem).unwrap();
        (d.display().to_string(), p.display().to_string())
    }

    /// A corpus problem's domain and problem file (the copy in bddl/tests/corpus).
    pub fn corpus_files(game: &str, problem: &str) -> (String, String) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bddl/tests/corpus")
            .join(game);
        (
            dir.join("domain.ig").display().to_string(),
            dir.join(problem).display().to_string(),
        )
    }
}

/// The two-heaps game of seed 003: take a positive multiple of either heap's size from one
/// heap; whoever cannot move (at (0 0)) has lost.
pub mod heaps {
    use std::collections::HashMap;

    /// The positions one move away from (k n), sorted, without repeats.
    pub fn moves(k: u64, n: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for d in [k, n] {
            if d == 0 {
                continue;
            }
            let mut take = d;
            while take <= k {
                out.push((k - take, n));
                take += d;
            }
            let mut take = d;
            while take <= n {
                out.push((k, n - take));
                take += d;
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Does the player to move at (k n) win?
    pub fn mover_wins(k: u64, n: u64, memo: &mut HashMap<(u64, u64), bool>) -> bool {
        if let Some(&v) = memo.get(&(k, n)) {
            return v;
        }
        let v = moves(k, n)
            .into_iter()
            .any(|(a, b)| !mover_wins(a, b, memo));
        memo.insert((k, n), v);
        v
    }
}

use gamelang_lang::elab::{Game, Session};
use gamelang_lang::program::Pat;

use gamelang_runtime::{Engine, TermId};
use std::sync::Arc;

/// A game file loaded into a session, with an engine: terms are parsed in the game's
/// module and solved with the same driver as `gamelang solve`.
pub struct Loaded {
    pub session: Session,
    pub game: Game,
    pub engine: Engine,
}

pub fn load(path: &str) -> Loaded {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
    load_source(path, &text)
}

/// Load game source text (named `name` in diagnostics); its first game is the game.
pub fn load_source(name: &str, text: &str) -> Loaded {
    let mut session = Session::new().expect("stdlib");
    if let Err(e) = session.load_source(name, text) {
        panic!(
            "{}\n{text}",
            gamelang_lang::diag::render_all(&e, &session.sources, false)
        );
    }
    let game = session.games[0].clone();
    let engine = Engine::new(Arc::new(session.program.clone()));
    Loaded {
        session,
        game,
        engine,
    }
}

impl Loaded {
    /// Give a game parameter a value (as `--set name=value`) and start a fresh engine.
    pub fn set(&mut self, name: &str, value: impl std::fmt::Display) {
        let game = self.game.clone();
        self.session
            .set_parameter(&game, &format!("{name}={value}"))
            .unwrap_or_else(|d| panic!("{}", d.render(&self.session.sources, false)));
        self.engine = Engine::new(Arc::new(self.session.program.clone()));
    }

    pub fn term(&mut self, text: &str) -> Pat {
        self.term_of(text, None)
    }

    pub fn term_of(&mut self, text: &str, sort: Option<gamelang_lang::program::SortId>) -> Pat {
        let p = self
            .session
            .parse_term(self.game.module, "test", text, sort)
            .unwrap_or_else(|d| panic!("{}", d.render(&self.session.sources, false)));
        // A string literal seen for the first time adds a constant: the engine must know it.
        if self.engine.program().sig.ops.len() != self.session.program.sig.ops.len() {
            self.engine
                .set_program(std::sync::Arc::new(self.session.program.clone()));
        }
        p
    }

    pub fn value(&mut self, text: &str) -> TermId {
        let p = self.term(text);
        let t = self.engine.build(&p, &[]);
        self.engine
            .reduce(t)
            .unwrap_or_else(|e| panic!("{}", self.engine.describe(&e)))
    }

    pub fn config(&mut self, text: &str) -> TermId {
        let p = self.term_of(text, Some(self.game.config_sort));
        let t = self.engine.build(&p, &[]);
        self.engine
            .reduce(t)
            .unwrap_or_else(|e| panic!("{}", self.engine.describe(&e)))
    }

    pub fn solve(&mut self, from: &str, first: &str) -> gamelang_game::Outcome {
        let (c, p) = (
            self.term_of(from, Some(self.game.config_sort)),
            self.term_of(first, Some(self.game.player_sort)),
        );
        gamelang_game::solve(&mut self.engine, &self.game, &c, &p).unwrap_or_else(|e| {
            panic!(
                "{}",
                gamelang_game::diagnose(&self.engine, &e).render(&self.session.sources, false)
            )
        })
    }
}
