//! The depth-limited search (`solve --max-depth D`, [`BoundedSearch`]) against plain
//! depth-limited minimax written here (recursion with a memo on position and depth, no
//! windows, orderings or iterative deepening): who wins within d plies, the standard
//! library's `r-within`/`b-within`, and the value with the game's `eval` at the horizon.
//! On tic-tac-toe, a Nim, and random graphs whose positions repeat (cycles), stuck
//! positions (not halted, no move) and draws; every depth asked in a scrambled order of one
//! shared table, since a table that keeps facts across depths is where such a search goes
//! wrong.

use gamelang_game::search::{BoundedSearch, Leaf, ValueSearch};
use gamelang_game::{Rules, Side, SolveError, Verdict};
use std::collections::HashMap;

/// What the tests need of a game besides [`Rules`]: the same rules, as plain functions.
trait Game: Rules<Config = u32> {
    fn ended(&self, c: u32) -> Option<(Verdict, i64)>;
    fn succ(&self, p: Side, c: u32) -> Vec<u32>;
    fn estimate(&self, c: u32) -> i64;
}

/// Can `who` force a win within `d` plies (seed 001's bounded question, as `r-within`
/// states it: not halted at no ply left is no win; not halted and stuck loses the mover).
fn wins_within<G: Game>(
    g: &G,
    memo: &mut HashMap<(Side, Side, u32, u32), bool>,
    who: Side,
    p: Side,
    c: u32,
    d: u32,
) -> bool {
    if let Some((v, _)) = g.ended(c) {
        return v == Verdict::Win(who);
    }
    if d == 0 {
        return false;
    }
    if let Some(&w) = memo.get(&(who, p, c, d)) {
        return w;
    }
    let succ = g.succ(p, c);
    // With no move the mover has lost: `who` wins if it is not the mover.
    let subs = succ
        .iter()
        .map(|&m| wins_within(g, memo, who, p.opponent(), m, d - 1))
        .collect::<Vec<_>>();
    let w = if p == who {
        subs.iter().any(|&s| s)
    } else {
        subs.iter().all(|&s| s)
    };
    memo.insert((who, p, c, d), w);
    w
}

/// The score after `d` plies of best play, the estimate where play has not ended.
fn value_within<G: Game>(
    g: &G,
    memo: &mut HashMap<(Side, u32, u32), i64>,
    p: Side,
    c: u32,
    d: u32,
) -> i64 {
    if let Some((_, s)) = g.ended(c) {
        return s;
    }
    if d == 0 {
        return g.estimate(c);
    }
    if let Some(&v) = memo.get(&(p, c, d)) {
        return v;
    }
    let vs = g
        .succ(p, c)
        .into_iter()
        .map(|m| value_within(g, memo, p.opponent(), m, d - 1));
    let v = match p {
        Side::B => vs.max(),
        Side::R => vs.min(),
    }
    .expect("the value tests' games have a move wherever play goes on");
    memo.insert((p, c, d), v);
    v
}

/// A tiny deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Every depth from 0 to `max` once, scrambled.
fn depths(rng: &mut Rng, max: u32) -> Vec<u32> {
    let mut ds: Vec<u32> = (0..=max).collect();
    for i in (1..ds.len()).rev() {
        ds.swap(i, rng.below(i as u64 + 1) as usize);
    }
    ds
}

macro_rules! rules_of {
    ($t:ty) => {
        impl Rules for $t {
            type Config = u32;
            fn has_draws(&self) -> bool {
                true
            }
            fn halted(&mut self, _p: Side, c: u32) -> Result<bool, SolveError> {
                Ok(self.ended(c).is_some())
            }
            fn result(&mut self, _p: Side, c: u32) -> Result<Verdict, SolveError> {
                Ok(self.ended(c).expect("halted").0)
            }
            fn moves(&mut self, p: Side, c: u32) -> Result<Vec<u32>, SolveError> {
                Ok(self.succ(p, c))
            }
            fn score(&mut self, _p: Side, c: u32) -> Result<i64, SolveError> {
                Ok(self.ended(c).expect("halted").1)
            }
            fn eval(&mut self, _p: Side, c: u32) -> Result<Option<i64>, SolveError> {
                Ok(self.with_eval.then(|| self.estimate(c)))
            }
            /// What changed (for tic-tac-toe, the cell taken), folded so that moves share
            /// keys: the history heuristic must not change answers, however keys collide.
            fn move_key(
                &mut self,
                _p: Side,
                from: u32,
                to: u32,
            ) -> Result<Option<u64>, SolveError> {
                Ok(Some(u64::from(from ^ to) % 61))
            }
        }
    };
}

// ---------------------------------------------------------------------------------------
// Tic-tac-toe: X (B) and O (R) as bit masks, X's in bits 0..9 and O's in bits 9..18.

struct TicTacToe {
    with_eval: bool,
}

const LINES: [[u32; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn three(m: u32) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| m & (1 << i) != 0))
}

impl Game for TicTacToe {
    fn ended(&self, c: u32) -> Option<(Verdict, i64)> {
        let (x, o) = (c & 0x1ff, c >> 9);
        if three(x) {
            Some((Verdict::Win(Side::B), 1))
        } else if three(o) {
            Some((Verdict::Win(Side::R), -1))
        } else if x | o == 0x1ff {
            Some((Verdict::Draw, 0))
        } else {
            None
        }
    }
    fn succ(&self, p: Side, c: u32) -> Vec<u32> {
        let taken = (c | c >> 9) & 0x1ff;
        (0..9)
            .filter(|i| taken & (1 << i) == 0)
            .map(|i| match p {
                Side::B => c | 1 << i,
                Side::R => c | 1 << (i + 9),
            })
            .collect()
    }
    /// Lines still open to X minus lines still open to O (a poor but honest estimate).
    fn estimate(&self, c: u32) -> i64 {
        let (x, o) = (c & 0x1ff, c >> 9);
        let open = |mine: u32, theirs: u32| {
            LINES
                .iter()
                .filter(|l| {
                    l.iter().all(|&i| theirs & (1 << i) == 0)
                        && l.iter().any(|&i| mine & (1 << i) != 0)
                })
                .count() as i64
        };
        open(x, o) - open(o, x)
    }
}
rules_of!(TicTacToe);

/// Some positions of tic-tac-toe: the start and everything after one or two moves.
fn ttt_positions() -> Vec<u32> {
    let g = TicTacToe { with_eval: false };
    let mut out = vec![0];
    for a in g.succ(Side::B, 0) {
        out.push(a);
        out.extend(g.succ(Side::R, a).into_iter().step_by(3));
    }
    out
}

#[test]
fn tic_tac_toe_wins_within_d_plies_as_depth_limited_minimax_says() {
    let mut g = TicTacToe { with_eval: false };
    let mut memo = HashMap::new();
    let mut rng = Rng(7);
    let mut search = BoundedSearch::new(Leaf::Outcome);
    let mut seen = [0; 2];
    for c in ttt_positions() {
        // The player to move: X when both have played equally often.
        let p = if (c & 0x1ff).count_ones() == (c >> 9).count_ones() {
            Side::B
        } else {
            Side::R
        };
        for d in depths(&mut rng, 9) {
            for who in [Side::B, Side::R] {
                let want = wins_within(&g, &mut memo, who, p, c, d);
                let got = search.wins_within(&mut g, who, p, c, d as u64).unwrap();
                assert_eq!(
                    got, want,
                    "position {c:#x}, {p:?} to move, {who:?} within {d}"
                );
                seen[want as usize] += 1;
            }
        }
    }
    assert!(seen[0] > 100 && seen[1] > 50, "both answers seen: {seen:?}");
}

#[test]
fn tic_tac_toe_values_within_d_plies_as_depth_limited_minimax_says() {
    let mut g = TicTacToe { with_eval: true };
    let mut memo = HashMap::new();
    let mut rng = Rng(11);
    let mut search = BoundedSearch::new(Leaf::Score);
    let mut values = std::collections::BTreeSet::new();
    for c in ttt_positions().into_iter().step_by(2) {
        let p = if (c & 0x1ff).count_ones() == (c >> 9).count_ones() {
            Side::B
        } else {
            Side::R
        };
        for d in depths(&mut rng, 9) {
            let want = value_within(&g, &mut memo, p, c, d);
            let got = search.value_within(&mut g, p, c, d as u64).unwrap();
            assert_eq!(got, want, "position {c:#x}, {p:?} to move, within {d}");
            values.insert(want);
        }
    }
    assert!(values.len() >= 4, "varied values: {values:?}");
}

#[test]
fn deep_enough_the_value_within_is_the_value_and_needs_no_eval() {
    let mut g = TicTacToe { with_eval: false };
    let full = ValueSearch::new(Leaf::Score)
        .value(&mut g, Side::B, 0)
        .unwrap();
    for d in [9u64, 10, 1_000_000] {
        let v = BoundedSearch::new(Leaf::Score)
            .value_within(&mut g, Side::B, 0, d)
            .unwrap();
        assert_eq!(v, full, "within {d}");
    }
    // Not deep enough, and nothing to value the cut-off positions with: an error.
    match BoundedSearch::new(Leaf::Score).value_within(&mut g, Side::B, 0, 8) {
        Err(SolveError::Game(m)) => assert!(m.contains("declares no `eval`"), "{m}"),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Nim on one heap: take 1 to 3 tokens; whoever takes the last token wins. Known: the
// player to move at n wins exactly when n is not a multiple of 4, and play ends within n
// plies (each takes a token or more).

struct Nim {
    with_eval: bool,
}

impl Game for Nim {
    /// A position is the heap and who took last (bit 16: R took last), so the halted
    /// position knows the winner.
    fn ended(&self, c: u32) -> Option<(Verdict, i64)> {
        if c & 0xffff != 0 {
            None
        } else if c >> 16 == 1 {
            Some((Verdict::Win(Side::R), -1))
        } else {
            Some((Verdict::Win(Side::B), 1))
        }
    }
    fn succ(&self, p: Side, c: u32) -> Vec<u32> {
        let n = c & 0xffff;
        let tag = if p == Side::R { 1 << 16 } else { 0 };
        (1..=3.min(n)).map(|k| (n - k) | tag).collect()
    }
    fn estimate(&self, c: u32) -> i64 {
        (c & 0xffff) as i64 % 4
    }
}
rules_of!(Nim);

#[test]
fn nim_wins_within_d_plies_as_depth_limited_minimax_says_and_as_known() {
    let mut g = Nim { with_eval: true };
    let mut memo = HashMap::new();
    let mut rng = Rng(3);
    let mut search = BoundedSearch::new(Leaf::Outcome);
    for n in 0..=14u32 {
        for d in depths(&mut rng, 16) {
            for p in [Side::B, Side::R] {
                for who in [Side::B, Side::R] {
                    let want = wins_within(&g, &mut memo, who, p, n, d);
                    let got = search.wins_within(&mut g, who, p, n, d as u64).unwrap();
                    assert_eq!(got, want, "heap {n}, {p:?} to move, {who:?} within {d}");
                    // Known mathematics: with enough plies, the mover wins exactly off the
                    // multiples of 4 (taking to a multiple of 4 each time).
                    if d >= n && n > 0 {
                        assert_eq!(got, (who == p) == (n % 4 != 0), "heap {n} within {d}");
                    }
                }
            }
        }
    }
    let mut values = BoundedSearch::new(Leaf::Score);
    let mut memo = HashMap::new();
    for n in 1..=14u32 {
        for d in depths(&mut rng, 8) {
            let want = value_within(&g, &mut memo, Side::B, n, d);
            assert_eq!(
                values.value_within(&mut g, Side::B, n, d as u64).unwrap(),
                want,
                "heap {n} within {d}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random graphs: any node may lead to any other (cycles, and positions met again at other
// depths), some halted (won, lost or drawn), some stuck (not halted, no move).

struct Graph {
    ended: Vec<Option<(Verdict, i64)>>,
    succ: Vec<Vec<u32>>,
    estimate: Vec<i64>,
    with_eval: bool,
}

impl Game for Graph {
    fn ended(&self, c: u32) -> Option<(Verdict, i64)> {
        self.ended[c as usize]
    }
    fn succ(&self, _p: Side, c: u32) -> Vec<u32> {
        self.succ[c as usize].clone()
    }
    fn estimate(&self, c: u32) -> i64 {
        self.estimate[c as usize]
    }
}
rules_of!(Graph);

fn graph(seed: u64, stuck: bool) -> Graph {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let n = 2 + rng.below(12) as usize;
    let mut g = Graph {
        ended: Vec::new(),
        succ: Vec::new(),
        estimate: Vec::new(),
        with_eval: true,
    };
    for _ in 0..n {
        let ended = (rng.below(4) == 0).then(|| {
            let v = [Verdict::Win(Side::B), Verdict::Win(Side::R), Verdict::Draw]
                [rng.below(3) as usize];
            (v, rng.below(11) as i64 - 5)
        });
        let k = if ended.is_some() {
            0
        } else if stuck {
            rng.below(4)
        } else {
            1 + rng.below(3)
        };
        let mut succ = Vec::new();
        for _ in 0..k {
            let m = rng.below(n as u64) as u32;
            if !succ.contains(&m) {
                succ.push(m);
            }
        }
        g.ended.push(ended);
        g.succ.push(succ);
        g.estimate.push(rng.below(11) as i64 - 5);
    }
    g
}

#[test]
fn random_graphs_with_cycles_win_within_as_depth_limited_minimax_says() {
    let mut seen = [0; 2];
    for seed in 0..300 {
        let mut g = graph(seed, true);
        let mut rng = Rng(seed + 1);
        let mut memo = HashMap::new();
        let mut search = BoundedSearch::new(Leaf::Outcome);
        for c in 0..g.succ.len() as u32 {
            for d in depths(&mut rng, 7) {
                for p in [Side::B, Side::R] {
                    for who in [Side::B, Side::R] {
                        let want = wins_within(&g, &mut memo, who, p, c, d);
                        let got = search.wins_within(&mut g, who, p, c, d as u64).unwrap();
                        assert_eq!(got, want, "seed {seed}, {c}, {p:?}, {who:?} within {d}");
                        seen[want as usize] += 1;
                    }
                }
            }
        }
    }
    assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
}

#[test]
fn random_graphs_with_cycles_value_within_as_depth_limited_minimax_says() {
    for seed in 0..300 {
        let mut g = graph(seed, false);
        let mut rng = Rng(seed + 5);
        let mut memo = HashMap::new();
        let mut search = BoundedSearch::new(Leaf::Score);
        for c in 0..g.succ.len() as u32 {
            for d in depths(&mut rng, 7) {
                for p in [Side::B, Side::R] {
                    let want = value_within(&g, &mut memo, p, c, d);
                    let got = search.value_within(&mut g, p, c, d as u64).unwrap();
                    assert_eq!(got, want, "seed {seed}, {c}, {p:?} within {d}");
                }
            }
        }
    }
}
