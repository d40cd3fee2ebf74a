//! Games whose play can repeat a position. A solver may answer only when the answer holds
//! whoever an endless play is counted for (B, R or a draw): then no move into a repeat
//! matters. Otherwise it must stop with a cycle error. Checked against the values computed
//! here under each of the three counts, by depth-limited minimax deep enough to settle.

use gamelang_game::search::{Leaf, OutcomeSearch, ValueSearch};
use gamelang_game::{Rules, Side, SolveError, Verdict};
use std::collections::HashMap;

/// A game graph: positions without successors have halted with `result`; others may lead
/// back to earlier positions.
struct Graph {
    succ: Vec<Vec<usize>>,
    result: Vec<i64>,
}

impl Rules for Graph {
    type Config = usize;
    fn has_draws(&self) -> bool {
        true
    }
    fn halted(&mut self, _p: Side, c: usize) -> Result<bool, SolveError> {
        Ok(self.succ[c].is_empty())
    }
    fn result(&mut self, _p: Side, c: usize) -> Result<Verdict, SolveError> {
        Ok(match self.result[c] {
            1 => Verdict::Win(Side::B),
            -1 => Verdict::Win(Side::R),
            _ => Verdict::Draw,
        })
    }
    fn moves(&mut self, _p: Side, c: usize) -> Result<Vec<usize>, SolveError> {
        Ok(self.succ[c].clone())
    }
    fn score(&mut self, _p: Side, c: usize) -> Result<i64, SolveError> {
        Ok(self.result[c])
    }
    fn cycle(&mut self, path: &[(Side, usize)]) -> SolveError {
        SolveError::Game(format!("cycle through {} positions", path.len()))
    }
}

/// The value (+1 B wins, 0 draw, -1 R wins) with `p` to move at `c` when play is cut off
/// after `d` plies and a play cut off is worth `endless`.
fn minimax(
    g: &Graph,
    p: Side,
    c: usize,
    d: usize,
    endless: i64,
    memo: &mut HashMap<(Side, usize, usize), i64>,
) -> i64 {
    if g.succ[c].is_empty() {
        return g.result[c];
    }
    if d == 0 {
        return endless;
    }
    if let Some(&v) = memo.get(&(p, c, d)) {
        return v;
    }
    let vs = g.succ[c]
        .iter()
        .map(|&m| minimax(g, p.opponent(), m, d - 1, endless, memo));
    let v = match p {
        Side::B => vs.max().unwrap(),
        Side::R => vs.min().unwrap(),
    };
    memo.insert((p, c, d), v);
    v
}

/// The value when endless play is worth `endless`: three values, so the cut-off game
/// settles within a few passes over the positions.
fn value(g: &Graph, p: Side, c: usize, endless: i64) -> i64 {
    minimax(g, p, c, 6 * g.succ.len() + 6, endless, &mut HashMap::new())
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random layered graph with edges back to earlier layers.
fn graph(seed: u64) -> Graph {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let layers = 2 + rng.below(5) as usize;
    let mut first = vec![0usize];
    let mut n = 1;
    for _ in 1..layers {
        first.push(n);
        n += 1 + rng.below(4) as usize;
    }
    first.push(n);
    let mut succ = vec![Vec::new(); n];
    for l in 0..layers - 1 {
        for moves in &mut succ[first[l]..first[l + 1]] {
            if l > 0 && rng.below(4) == 0 {
                continue; // halted
            }
            for _ in 0..1 + rng.below(3) {
                let j = first[l + 1] + rng.below((first[l + 2] - first[l + 1]) as u64) as usize;
                if !moves.contains(&j) {
                    moves.push(j);
                }
            }
            if rng.below(3) == 0 {
                // Back to this layer or an earlier one: play can repeat.
                let j = rng.below(first[l + 1] as u64) as usize;
                if !moves.contains(&j) {
                    let at = rng.below(moves.len() as u64 + 1) as usize;
                    moves.insert(at, j);
                }
            }
        }
    }
    let result = (0..n).map(|_| rng.below(3) as i64 - 1).collect();
    Graph { succ, result }
}

#[test]
fn a_repeat_that_cannot_matter_does_not_stop_the_search() {
    // B to move at 0: move to 1 (which leads back to 0) or to 2, where B has won. Tried
    // first, the repeat used to stop the search with a cycle error.
    let mut g = Graph {
        succ: vec![vec![1, 2], vec![0], vec![]],
        result: vec![0, 0, 1],
    };
    let v = OutcomeSearch::new().verdict(&mut g, Side::B, 0);
    assert_eq!(v.unwrap(), Verdict::Win(Side::B));
    // The score is another matter: an endless play has none, and a score above 1 would
    // make the repeat B's better move, so the exact value depends on it.
    let v = ValueSearch::new(Leaf::Score).value(&mut g, Side::B, 0);
    assert!(matches!(v, Err(SolveError::Game(m)) if m.starts_with("cycle")));
    // Without the way out, the value depends on the repeat: an error, not an answer.
    g.succ[0] = vec![1];
    let v = OutcomeSearch::new().verdict(&mut g, Side::B, 0);
    assert!(matches!(v, Err(SolveError::Game(m)) if m.starts_with("cycle")));
}

#[test]
fn answers_with_repeats_hold_whoever_endless_play_is_counted_for() {
    let (mut answered, mut errors) = (0, 0);
    for seed in 0..600 {
        let mut g = graph(seed);
        let mut search = OutcomeSearch::new();
        for c in 0..g.succ.len() {
            for p in [Side::B, Side::R] {
                let values: Vec<i64> = [1, 0, -1].iter().map(|&e| value(&g, p, c, e)).collect();
                match search.verdict(&mut g, p, c) {
                    Ok(v) => {
                        answered += 1;
                        let v = match v {
                            Verdict::Win(Side::B) => 1,
                            Verdict::Win(Side::R) => -1,
                            Verdict::Draw => 0,
                        };
                        assert_eq!(
                            values,
                            [v, v, v],
                            "seed {seed}, position {c}, {p:?} to move"
                        );
                    }
                    Err(SolveError::Game(m)) if m.starts_with("cycle") => errors += 1,
                    Err(e) => panic!("seed {seed}: {e:?}"),
                }
            }
        }
    }
    // Both kinds occur.
    assert!(
        answered > 1000 && errors > 100,
        "{answered} answered, {errors} errors"
    );
}
