//! The colouring-game benchmark (issue 5, docs/benchmarks.md): the board-colouring game of
//! seed 003 on n x n boards, solved by `gamelang solve examples/colouring.game --set n=N`
//! and by a hand-written Rust solver of the same game (below), for who wins and for the
//! optimal score. Every run is a child process, timed from start to exit, with its peak
//! resident memory; a run over the time limit is stopped and reported as such. It prints
//! figures; it is not a test.
//!
//! ```text
//! cargo run --release -p gamelang-bench --bin colouring                   # n = 3..6
//! cargo run --release -p gamelang-bench --bin colouring -- --sizes 3,4,5 --value-sizes 3,4 --limit 60
//! ```

#[path = "../child.rs"]
mod child;
use child::{field, timed, Run};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Duration;

/// The same game in plain Rust: boards as bit masks, formula (1) for each player with
/// short-circuits (`w` then `wb`, as gamelang's SOLVE), memoised by (mover, blue, red);
/// and the minimax value, memoised the same way.
mod native {
    use rustc_hash::FxHashMap;

    pub struct Colouring {
        n: u32,
        squares: Vec<u64>,
        pub r_wins: FxHashMap<(bool, u64, u64), bool>,
        pub b_wins: FxHashMap<(bool, u64, u64), bool>,
        pub values: FxHashMap<(bool, u64, u64), i32>,
    }

    impl Colouring {
        pub fn new(n: u32) -> Colouring {
            let mut squares = Vec::new();
            for r in 0..n.saturating_sub(1) {
                for c in 0..n - 1 {
                    let i = r * n + c;
                    squares.push((1u64 << i) | 1 << (i + 1) | 1 << (i + n) | 1 << (i + n + 1));
                }
            }
            Colouring {
                n,
                squares,
                r_wins: FxHashMap::default(),
                b_wins: FxHashMap::default(),
                values: FxHashMap::default(),
            }
        }

        /// The boards after the mover's possible moves (Benny: a free 2x2 square blue;
        /// Rebecca: a free cell red).
        fn moves(&self, benny: bool, blue: u64, red: u64) -> Vec<(u64, u64)> {
            let used = blue | red;
            if benny {
                self.squares
                    .iter()
                    .filter(|&&s| used & s == 0)
                    .map(|&s| (blue | s, red))
                    .collect()
            } else {
                (0..self.n * self.n)
                    .filter(|&i| used & (1 << i) == 0)
                    .map(|i| (blue, red | 1 << i))
                    .collect()
            }
        }

        fn score(&self, blue: u64) -> i32 {
            2 * blue.count_ones() as i32 - (self.n * self.n) as i32
        }

        /// Can R (`for_r`) or B force a win with `benny` to move?
        pub fn wins(&mut self, for_r: bool, benny: bool, blue: u64, red: u64) -> bool {
            let key = (benny, blue, red);
            let memo = if for_r { &self.r_wins } else { &self.b_wins };
            if let Some(&v) = memo.get(&key) {
                return v;
            }
            let moves = self.moves(benny, blue, red);
            let v = if moves.is_empty() {
                let s = self.score(blue);
                if for_r {
                    s < 0
                } else {
                    s > 0
                }
            } else if benny != for_r {
                // The player we ask about moves: some move wins.
                moves
                    .into_iter()
                    .any(|(b, r)| self.wins(for_r, !benny, b, r))
            } else {
                moves
                    .into_iter()
                    .all(|(b, r)| self.wins(for_r, !benny, b, r))
            };
            let memo = if for_r {
                &mut self.r_wins
            } else {
                &mut self.b_wins
            };
            memo.insert(key, v);
            v
        }

        pub fn value(&mut self, benny: bool, blue: u64, red: u64) -> i32 {
            if let Some(&v) = self.values.get(&(benny, blue, red)) {
                return v;
            }
            let moves = self.moves(benny, blue, red);
            let v = if moves.is_empty() {
                self.score(blue)
            } else if benny {
                moves
                    .into_iter()
                    .map(|(b, r)| self.value(false, b, r))
                    .max()
                    .unwrap()
            } else {
                moves
                    .into_iter()
                    .map(|(b, r)| self.value(true, b, r))
                    .min()
                    .unwrap()
            };
            self.values.insert((benny, blue, red), v);
            v
        }
    }
}

fn sizes(arg: Option<String>, default: &[u32]) -> Vec<u32> {
    arg.map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut outcome_sizes = None;
    let mut value_sizes = None;
    let mut limit = 600u64;
    while let Some(a) = args.next() {
        match a.as_str() {
            // Child modes: the native solver on one size, printing JSON like gamelang's.
            "--native-outcome" | "--native-value" => {
                let n: u32 = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .expect("a board size");
                let mut g = native::Colouring::new(n);
                if a == "--native-outcome" {
                    let winner = if g.wins(true, true, 0, 0) {
                        "R"
                    } else if g.wins(false, true, 0, 0) {
                        "B"
                    } else {
                        "draw"
                    };
                    println!(
                        "{{\"winner\":\"{winner}\",\"positions\":{}}}",
                        g.r_wins.len() + g.b_wins.len()
                    );
                } else {
                    let v = g.value(true, 0, 0);
                    println!("{{\"value\":{v},\"positions\":{}}}", g.values.len());
                }
                return ExitCode::SUCCESS;
            }
            "--sizes" => outcome_sizes = args.next(),
            "--value-sizes" => value_sizes = args.next(),
            "--limit" => limit = args.next().and_then(|s| s.parse().ok()).unwrap_or(limit),
            other => {
                eprintln!("unknown argument `{other}`; use --sizes 3,4,5,6 --value-sizes 3,4,5 --limit SECONDS");
                return ExitCode::from(2);
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let me = std::env::current_exe().expect("own path");
    let gamelang = me.with_file_name("gamelang");
    if !gamelang.is_file() {
        eprintln!(
            "build gamelang first: cargo build --release (looked for {})",
            gamelang.display()
        );
        return ExitCode::FAILURE;
    }
    let limit = Duration::from_secs(limit);
    for (what, list, flag, key) in [
        (
            "who wins",
            sizes(outcome_sizes, &[3, 4, 5, 6]),
            None,
            "winner",
        ),
        (
            "optimal score",
            sizes(value_sizes, &[3, 4, 5]),
            Some("--value"),
            "value",
        ),
    ] {
        println!(
            "\nColouring game, {what} (time limit {} s per run)",
            limit.as_secs()
        );
        println!(
            "{:>3}  {:>8} {:>10} {:>9} {:>8}  {:>8} {:>10} {:>9} {:>8}  {:>7}",
            "n",
            "gamelang",
            "positions",
            "time s",
            "MiB",
            "native",
            "positions",
            "time s",
            "MiB",
            "time x"
        );
        for n in list {
            let mut g = Command::new(&gamelang);
            g.current_dir(&root).args([
                "solve",
                "examples/colouring.game",
                "--set",
                &format!("n={n}"),
                "--json",
            ]);
            if let Some(f) = flag {
                g.arg(f);
            }
            let mut nat = Command::new(&me);
            nat.args([
                if flag.is_some() {
                    "--native-value"
                } else {
                    "--native-outcome"
                },
                &n.to_string(),
            ]);
            let (gr, nr) = match (timed(&mut g, limit), timed(&mut nat, limit)) {
                (Ok(a), Ok(b)) => (a, b),
                (Err(e), _) | (_, Err(e)) => {
                    eprintln!("n = {n}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let show = |r: &Run| {
                if r.stopped {
                    ("stopped".to_string(), "-".to_string())
                } else {
                    (field(&r.stdout, key), field(&r.stdout, "positions"))
                }
            };
            let (ga, gp) = show(&gr);
            let (na, np) = show(&nr);
            let ratio = if gr.stopped || nr.stopped {
                "-".to_string()
            } else {
                format!("{:.1}", gr.secs / nr.secs.max(1e-6))
            };
            println!("{n:>3}  {ga:>8} {gp:>10} {:>9.2} {:>8.1}  {na:>8} {np:>10} {:>9.2} {:>8.1}  {ratio:>7}", gr.secs, gr.mib, nr.secs, nr.mib);
            if !gr.stopped && !nr.stopped && ga != na {
                eprintln!("n = {n}: gamelang says {ga}, the native solver {na}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
