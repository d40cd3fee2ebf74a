//! The solvers of `gamelang-game` on games written in plain Rust (random layered game
//! graphs, with transpositions, draws, scores and, for a third of them, a misleading
//! evaluation that orders the moves), checked against plain minimax written
//! here without tables, windows or orderings.

use gamelang_game::line::principal_line;
use gamelang_game::search::{Leaf, OutcomeSearch, ValueSearch, WON};
use gamelang_game::{Rules, Side, SolveError, Verdict};

/// A random game graph: node `i`'s successors are nodes of the next layer (so play ends),
/// shared between parents (transpositions). Leaves carry a result and a score. The player
/// to move is part of the position, as in gamelang, and does not change the successors.
struct Graph {
    succ: Vec<Vec<usize>>,
    result: Vec<Verdict>,
    score: Vec<i64>,
    draws: bool,
    /// Add an edge back to the root from the last layer (a cycle).
    cyclic: bool,
    /// A static evaluation (random, so often misleading), when the game declares one.
    eval: Option<Vec<i64>>,
    /// Nodes `i` and `i + n` are mirror images (for `i < 2n`), when set to `Some(n)`.
    mirror: Option<usize>,
}

/// A tiny deterministic generator (xorshift), so the test needs no crate.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn graph(seed: u64, draws: bool) -> Graph {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let layers = 2 + rng.below(6) as usize;
    let mut layer_of = vec![vec![0usize]];
    let mut n = 1;
    for _ in 1..layers {
        let width = 1 + rng.below(6) as usize;
        layer_of.push((n..n + width).collect());
        n += width;
    }
    let mut succ = vec![Vec::new(); n];
    for l in 0..layers - 1 {
        for &i in &layer_of[l] {
            // Some nodes stop early (leaves inside the graph).
            if l > 0 && rng.below(5) == 0 {
                continue;
            }
            let next = &layer_of[l + 1];
            let k = 1 + rng.below(next.len() as u64) as usize;
            for _ in 0..k {
                let j = next[rng.below(next.len() as u64) as usize];
                if !succ[i].contains(&j) {
                    succ[i].push(j);
                }
            }
        }
    }
    let result = (0..n)
        .map(|_| match rng.below(if draws { 3 } else { 2 }) {
            0 => Verdict::Win(Side::B),
            1 => Verdict::Win(Side::R),
            _ => Verdict::Draw,
        })
        .collect();
    let score = (0..n).map(|_| rng.below(21) as i64 - 10).collect();
    let eval = seed
        .is_multiple_of(3)
        .then(|| (0..n).map(|_| rng.below(7) as i64 - 3).collect());
    Graph {
        eval,
        succ,
        result,
        score,
        draws,
        cyclic: false,
        mirror: None,
    }
}

/// Two copies of `g` that are mirror images of each other (node `i` and `i + n`), each
/// edge leading into either copy at random (the mirrored edge into the other), and a new
/// root, `2n`, leading to both copies' roots: so a position and its image meet often.
fn mirrored(g: Graph, seed: u64) -> Graph {
    let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
    let n = g.succ.len();
    let mut succ = vec![Vec::new(); 2 * n + 1];
    for i in 0..n {
        for &j in &g.succ[i] {
            let other = rng.below(2) == 1;
            succ[i].push(if other { j + n } else { j });
            succ[i + n].push(if other { j } else { j + n });
        }
    }
    succ[2 * n] = vec![0, n];
    // The new root's result and score are never asked (it has moves).
    fn twice<T: Copy>(v: &[T]) -> Vec<T> {
        v.iter().chain(v).chain(&v[..1]).copied().collect()
    }
    Graph {
        result: twice(&g.result),
        score: twice(&g.score),
        eval: g.eval.as_deref().map(twice),
        succ,
        draws: g.draws,
        cyclic: false,
        mirror: Some(n),
    }
}

impl Rules for Graph {
    type Config = usize;
    fn has_draws(&self) -> bool {
        self.draws
    }
    fn halted(&mut self, _p: Side, c: usize) -> Result<bool, SolveError> {
        Ok(self.succ[c].is_empty() && !(self.cyclic && c != 0))
    }
    fn result(&mut self, _p: Side, c: usize) -> Result<Verdict, SolveError> {
        Ok(self.result[c])
    }
    fn moves(&mut self, _p: Side, c: usize) -> Result<Vec<usize>, SolveError> {
        if self.cyclic && self.succ[c].is_empty() {
            return Ok(vec![0]);
        }
        Ok(self.succ[c].clone())
    }
    fn score(&mut self, _p: Side, c: usize) -> Result<i64, SolveError> {
        Ok(self.score[c])
    }
    fn eval(&mut self, _p: Side, c: usize) -> Result<Option<i64>, SolveError> {
        Ok(self.eval.as_ref().map(|e| e[c]))
    }
    /// A coarse key (moves collide), so that the history heuristic reorders moves often:
    /// answers must not depend on it.
    fn move_key(&mut self, _p: Side, _from: usize, to: usize) -> Result<Option<u64>, SolveError> {
        Ok(Some(to as u64 % 5))
    }
    fn mirror(&mut self, _p: Side, c: usize) -> Result<Option<usize>, SolveError> {
        Ok(self
            .mirror
            .filter(|&n| c < 2 * n)
            .map(|n| (c + n) % (2 * n)))
    }
    fn cycle(&mut self, path: &[(Side, usize)]) -> SolveError {
        SolveError::Game(format!("cycle through {} positions", path.len()))
    }
}

/// Plain minimax of the outcome: B prefers a B win, then a draw; R the reverse.
fn outcome(g: &Graph, p: Side, c: usize) -> Verdict {
    if g.succ[c].is_empty() {
        return g.result[c];
    }
    let rank = |v: Verdict| match v {
        Verdict::Win(Side::B) => 2,
        Verdict::Draw => 1,
        Verdict::Win(Side::R) => 0,
    };
    let vs = g.succ[c].iter().map(|&m| outcome(g, p.opponent(), m));
    match p {
        Side::B => vs.max_by_key(|&v| rank(v)).unwrap(),
        Side::R => vs.min_by_key(|&v| rank(v)).unwrap(),
    }
}

fn value(g: &Graph, p: Side, c: usize) -> i64 {
    if g.succ[c].is_empty() {
        return g.score[c];
    }
    let vs = g.succ[c].iter().map(|&m| value(g, p.opponent(), m));
    match p {
        Side::B => vs.max().unwrap(),
        Side::R => vs.min().unwrap(),
    }
}

#[test]
fn the_outcome_search_agrees_with_minimax_at_every_position() {
    for seed in 0..400 {
        let mut g = graph(seed, seed % 2 == 0);
        let mut search = OutcomeSearch::new();
        // Every position, both players, one table: later questions reuse earlier answers
        // (with bounds learnt under other windows), which is where a table goes wrong.
        for c in 0..g.succ.len() {
            for p in [Side::B, Side::R] {
                let want = outcome(&g, p, c);
                assert_eq!(
                    search.verdict(&mut g, p, c).unwrap(),
                    want,
                    "seed {seed}, position {c}, {p:?} to move"
                );
            }
        }
    }
}

#[test]
fn the_value_search_agrees_with_minimax_at_every_position() {
    for seed in 0..400 {
        let mut g = graph(seed, true);
        let mut search = ValueSearch::new(Leaf::Score);
        for c in (0..g.succ.len()).rev().chain(0..g.succ.len()) {
            for p in [Side::R, Side::B] {
                assert_eq!(
                    search.value(&mut g, p, c).unwrap(),
                    value(&g, p, c),
                    "seed {seed}, position {c}, {p:?} to move"
                );
            }
        }
    }
}

#[test]
fn a_position_that_repeats_is_an_error_not_an_answer() {
    let mut found = 0;
    for seed in 0..50 {
        let mut g = graph(seed, true);
        g.cyclic = true;
        let o = OutcomeSearch::new().verdict(&mut g, Side::B, 0);
        let v = ValueSearch::new(Leaf::Score).value(&mut g, Side::B, 0);
        // Every play returns to the root, so the whole game is a cycle: both searches
        // must say so (short-circuits cannot avoid it: no position halts).
        for r in [o.map(|_| ()), v.map(|_| ())] {
            match r {
                Err(SolveError::Game(m)) if m.starts_with("cycle") => found += 1,
                other => panic!("seed {seed}: {other:?}"),
            }
        }
    }
    assert_eq!(found, 100);
}

/// Plies to the end from a position won by `winner`, the winner winning as fast as it can
/// (among its winning moves) and the loser holding out as long as it can: plain recursion.
fn plies(g: &Graph, winner: Side, p: Side, c: usize) -> u64 {
    if g.succ[c].is_empty() {
        return 0;
    }
    let kids = g.succ[c]
        .iter()
        .filter(|&&m| p != winner || outcome(g, p.opponent(), m) == Verdict::Win(winner))
        .map(|&m| plies(g, winner, p.opponent(), m));
    1 + if p == winner {
        kids.min().unwrap()
    } else {
        kids.max().unwrap()
    }
}

/// The depth-optimal line by brute force: at each position the first move (in the game's
/// order) that is winning for the winner and fastest, or for the loser longest.
fn brute_line(g: &Graph, p: Side, c: usize) -> Vec<usize> {
    let Verdict::Win(winner) = outcome(g, p, c) else {
        unreachable!("only won positions");
    };
    let (mut p, mut c, mut line) = (p, c, vec![c]);
    while !g.succ[c].is_empty() {
        let want = plies(g, winner, p, c) - 1;
        let next = *g.succ[c]
            .iter()
            .find(|&&m| {
                (p != winner || outcome(g, p.opponent(), m) == Verdict::Win(winner))
                    && plies(g, winner, p.opponent(), m) == want
            })
            .unwrap();
        line.push(next);
        (p, c) = (p.opponent(), next);
    }
    line
}

#[test]
fn the_principal_line_is_the_first_depth_optimal_line() {
    let mut checked = 0;
    for seed in 0..400 {
        let mut g = graph(seed, seed % 2 == 0);
        // One outcome table for every question, as `solve` keeps it.
        let mut search = OutcomeSearch::new();
        for c in 0..g.succ.len() {
            for p in [Side::B, Side::R] {
                let verdict = search.verdict(&mut g, p, c).unwrap();
                let line = principal_line(&mut g, &mut search, p, c, verdict, usize::MAX)
                    .unwrap()
                    .expect("no budget");
                if verdict == Verdict::Draw {
                    continue;
                }
                assert_eq!(
                    line,
                    brute_line(&g, p, c),
                    "seed {seed}, position {c}, {p:?} to move"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2000, "{checked} won positions");
}

#[test]
fn a_line_over_its_budget_is_none() {
    // A won position whose fastest win needs more than one position searched.
    let mut over = 0;
    for seed in 0..100 {
        let mut g = graph(seed, false);
        let mut search = OutcomeSearch::new();
        let verdict = search.verdict(&mut g, Side::B, 0).unwrap();
        let line = principal_line(&mut g, &mut search, Side::B, 0, verdict, 1).unwrap();
        if line.is_none() {
            over += 1;
        }
    }
    assert!(over > 0);
}

#[test]
fn the_distance_search_values_wins_by_their_depth_optimal_length() {
    for seed in 0..400 {
        let mut g = graph(seed, seed % 2 == 0);
        let mut search = ValueSearch::new(Leaf::Distance);
        for c in (0..g.succ.len()).rev().chain(0..g.succ.len()) {
            for p in [Side::B, Side::R] {
                let want = match outcome(&g, p, c) {
                    Verdict::Win(Side::B) => WON - plies(&g, Side::B, p, c) as i64,
                    Verdict::Win(Side::R) => plies(&g, Side::R, p, c) as i64 - WON,
                    Verdict::Draw => 0,
                };
                assert_eq!(
                    search.value(&mut g, p, c).unwrap(),
                    want,
                    "seed {seed}, position {c}, {p:?} to move"
                );
            }
        }
    }
}

/// Every position of `g` with either side to move, asked in both orders: the outcome, the
/// score, the distance and the principal line the searches give are those of plain minimax
/// and the brute-force line (`at` names the run in a failure).
fn check_every_position(
    g: &mut Graph,
    outcomes: &mut OutcomeSearch<usize>,
    scores: &mut ValueSearch<usize>,
    distances: &mut ValueSearch<usize>,
    at: &str,
) {
    let n = g.succ.len();
    for c in (0..n).rev().chain(0..n) {
        for p in [Side::B, Side::R] {
            let at = format!("{at}, position {c}, {p:?}");
            let verdict = outcomes.verdict(g, p, c).unwrap();
            assert_eq!(verdict, outcome(g, p, c), "{at}");
            assert_eq!(scores.value(g, p, c).unwrap(), value(g, p, c), "{at}");
            let want = match verdict {
                Verdict::Win(w) if w == Side::B => WON - plies(g, w, p, c) as i64,
                Verdict::Win(w) => plies(g, w, p, c) as i64 - WON,
                Verdict::Draw => 0,
            };
            assert_eq!(distances.value(g, p, c).unwrap(), want, "{at}");
            if verdict != Verdict::Draw {
                let line = principal_line(g, outcomes, p, c, verdict, usize::MAX)
                    .unwrap()
                    .expect("no budget");
                assert_eq!(line, brute_line(g, p, c), "{at}");
            }
        }
    }
}

/// A bounded table forgets positions as it goes (here nearly all of them: at most 2 to 8
/// kept), which must change the work done but never an answer: outcomes, scores,
/// distances and principal lines stay those of plain minimax.
#[test]
fn a_bounded_table_forgets_positions_but_no_answer_changes() {
    let mut forgot = 0;
    for seed in 0..400 {
        for capacity in [2, 3, 5, 8] {
            let mut g = graph(seed, seed % 2 == 0);
            let mut outcomes = OutcomeSearch::new();
            outcomes.set_capacity(capacity);
            let mut scores = ValueSearch::new(Leaf::Score);
            scores.set_capacity(capacity);
            let mut distances = ValueSearch::new(Leaf::Distance);
            distances.set_capacity(capacity);
            let at = format!("seed {seed}, capacity {capacity}");
            check_every_position(&mut g, &mut outcomes, &mut scores, &mut distances, &at);
            assert!(
                outcomes.kept() <= capacity,
                "seed {seed}: {} kept",
                outcomes.kept()
            );
            if outcomes.positions() > outcomes.kept() {
                forgot += 1;
            }
        }
    }
    // Most runs forgot positions (and searched some again).
    assert!(forgot > 1000, "{forgot} runs forgot positions");
}

/// A game that declares mirror images: the search takes a position's value from its
/// image's table entry. Outcomes, scores, distances and principal lines stay those of plain
/// minimax (which knows nothing of mirrors), with an unbounded table and a tiny one.
#[test]
fn mirror_images_share_the_table_and_no_answer_changes() {
    let mut shared = 0;
    for seed in 0..300 {
        for capacity in [usize::MAX, 4] {
            let mut g = mirrored(graph(seed, seed % 2 == 0), seed);
            let n = g.succ.len();
            let mut outcomes = OutcomeSearch::new();
            outcomes.set_capacity(capacity);
            let mut scores = ValueSearch::new(Leaf::Score);
            scores.set_capacity(capacity);
            let mut distances = ValueSearch::new(Leaf::Distance);
            distances.set_capacity(capacity);
            let first = outcomes.verdict(&mut g, Side::B, n - 1).unwrap();
            assert_eq!(first, outcome(&g, Side::B, n - 1), "seed {seed}");
            // The root leads to two mirror images: the second costs nothing.
            if capacity == usize::MAX && outcomes.positions() <= n / 2 + 1 {
                shared += 1;
            }
            let at = format!("seed {seed}, capacity {capacity}");
            check_every_position(&mut g, &mut outcomes, &mut scores, &mut distances, &at);
        }
    }
    assert!(shared > 100, "{shared} graphs searched one image only");
}
