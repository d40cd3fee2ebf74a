//! Random play-outs: each player picks uniformly at random among its choices, events
//! happen with their probabilities. Empirical win rates with 95% (Wilson) intervals.

use crate::model::{ChanceError, ChanceModel, Node, Opt};
use rustc_hash::FxHashMap;

/// SplitMix64: a small, fast, well-known generator; the same seed gives the same games.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
}

#[derive(Clone, Debug)]
pub struct Tally {
    pub players: Vec<String>,
    pub games: u64,
    /// Games each player won.
    pub wins: Vec<u64>,
    /// Games that reached the move limit without ending.
    pub unfinished: u64,
    pub total_moves: u64,
    /// Stopped by the user (Ctrl-C) before all the games asked for were played: the
    /// counts are those of the games finished.
    pub interrupted: bool,
    /// Stopped after the first game, which passed the move limit (asked for with
    /// `give_up`): the game may never end, and playing the others would take as long each.
    pub gave_up: bool,
}

/// The 95% Wilson score interval of `k` successes in `n` trials (`simulate`'s win rates,
/// `match`'s wins and draws).
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (kf, nf) = (k as f64, n as f64);
    let z = 1.959_963_984_540_054_f64;
    let p = kf / nf;
    let denom = 1.0 + z * z / nf;
    let centre = (p + z * z / (2.0 * nf)) / denom;
    let half = z * (p * (1.0 - p) / nf + z * z / (4.0 * nf * nf)).sqrt() / denom;
    // With no successes the interval starts exactly at 0 (and with all, ends exactly at
    // 1): centre and half are then equal in exact arithmetic, but not in floating point,
    // which printed a lower end of 3.5e-18.
    let lo = if k == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if k == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// A state as the simulation keeps it: final with winners, or options as cumulative-free
/// lists of (probability, next state).
enum Cached<S> {
    Final(Vec<usize>),
    Turn(Vec<Vec<(f64, S)>>),
}

/// How many states' expansions a simulation remembers at most.
const CACHED: usize = 200_000;

/// Play `games` random games from the start, each at most `max_moves` moves; with
/// `give_up`, stop after the first game if it passed the limit ([`Tally::gave_up`]).
pub fn simulate<M: ChanceModel>(
    model: &mut M,
    seed: u64,
    games: u64,
    max_moves: u64,
    give_up: bool,
) -> Result<Tally, ChanceError> {
    let players = model.players()?;
    let start = model.start()?;
    let mut rng = Rng::new(seed);
    let mut cache: FxHashMap<M::State, Cached<M::State>> = FxHashMap::default();
    let mut tally = Tally {
        wins: vec![0; players.len()],
        players,
        games: 0,
        unfinished: 0,
        total_moves: 0,
        interrupted: false,
        gave_up: false,
    };
    'games: for _ in 0..games {
        // Asked between games and every so many moves: once the states met are
        // remembered, a game asks the model nothing that would notice a Ctrl-C.
        if model.interrupted() {
            tally.interrupted = true;
            break;
        }
        let mut s = start;
        let mut moves = 0u64;
        loop {
            if moves & 0xFFFF == 0xFFFF && model.interrupted() {
                tally.interrupted = true;
                break 'games;
            }
            // Expansions are remembered, but the memory is emptied when it holds CACHED
            // states: a game too big to solve is too big to remember whole.
            if cache.len() >= CACHED && !cache.contains_key(&s) {
                cache.clear();
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(s) {
                let node = match model.expand(s) {
                    Err(ChanceError::Interrupted) => {
                        tally.interrupted = true;
                        break 'games;
                    }
                    node => node?,
                };
                let node = match node {
                    Node::Final { winners } => Cached::Final(winners),
                    Node::Turn { options, .. } => {
                        Cached::Turn(options.into_iter().map(Opt::outcomes_f64).collect())
                    }
                };
                slot.insert(node);
            }
            match &cache[&s] {
                Cached::Final(winners) => {
                    for &w in winners {
                        tally.wins[w] += 1;
                    }
                    break;
                }
                Cached::Turn(options) => {
                    if moves >= max_moves {
                        tally.unfinished += 1;
                        break;
                    }
                    let o = &options[rng.below(options.len())];
                    let mut u = rng.unit();
                    let mut next = o.last().expect("an outcome").1;
                    for &(p, t) in o {
                        if u < p {
                            next = t;
                            break;
                        }
                        u -= p;
                    }
                    s = next;
                    moves += 1;
                }
            }
        }
        tally.total_moves += moves;
        tally.games += 1;
        if give_up && tally.games == 1 && tally.unfinished == 1 {
            tally.gave_up = true;
            break;
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::{simulate, wilson};
    use crate::model::{ChanceError, ChanceModel, Node, Opt};
    use crate::Prob;

    /// One player on a walk 0, 1, 2, …: with `end` the walk ends (a win) at `end`, else
    /// never.
    struct Walk {
        end: Option<usize>,
    }

    impl ChanceModel for Walk {
        type State = usize;
        type Choice = usize;
        fn players(&mut self) -> Result<Vec<String>, ChanceError> {
            Ok(vec!["w".into()])
        }
        fn start(&mut self) -> Result<usize, ChanceError> {
            Ok(0)
        }
        fn expand(&mut self, s: usize) -> Result<Node<usize, usize>, ChanceError> {
            if Some(s) == self.end {
                return Ok(Node::Final { winners: vec![0] });
            }
            Ok(Node::Turn {
                player: 0,
                options: vec![Opt {
                    choice: 0,
                    outcomes: vec![(Prob::one(), s + 1)],
                }],
            })
        }
        fn score(&mut self, _: usize) -> Result<Option<Vec<i64>>, ChanceError> {
            Ok(None)
        }
        fn show_state(&self, s: usize) -> String {
            s.to_string()
        }
        fn show_choice(&self, c: &usize) -> String {
            c.to_string()
        }
    }

    #[test]
    fn a_first_game_past_the_limit_gives_up_only_when_asked() {
        // Never ends: with give_up, one game is played and the simulation gives up;
        // without, every game is counted unfinished.
        let t = simulate(&mut Walk { end: None }, 1, 10, 50, true).unwrap();
        assert!(t.gave_up);
        assert_eq!((t.games, t.unfinished, t.total_moves), (1, 1, 50));
        let t = simulate(&mut Walk { end: None }, 1, 10, 50, false).unwrap();
        assert!(!t.gave_up);
        assert_eq!((t.games, t.unfinished), (10, 10));
        // Ends after 30 moves, within the limit: all games played, each a win.
        let t = simulate(&mut Walk { end: Some(30) }, 1, 10, 50, true).unwrap();
        assert!(!t.gave_up);
        assert_eq!(
            (t.games, t.unfinished, t.wins[0], t.total_moves),
            (10, 0, 10, 300)
        );
    }

    #[test]
    fn wilson_interval_matches_the_formula_on_known_values() {
        // 50 of 100: 0.5 ± about 0.0966 (Wilson), computed by hand from the formula.
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        // 0 of n: the lower end is exactly 0 and the upper z²/(n + z²) (about 0.2775 for
        // n = 10); n of n: the mirror image.
        let z2 = 1.959_963_984_540_054_f64.powi(2);
        for n in [1u64, 3, 10, 1000, 123_457] {
            let top = z2 / (n as f64 + z2);
            let (lo, hi) = wilson(0, n);
            assert!(lo == 0.0 && (hi - top).abs() < 1e-12, "0 of {n}: {lo} {hi}");
            let (lo, hi) = wilson(n, n);
            assert!(
                hi == 1.0 && (lo - (1.0 - top)).abs() < 1e-12,
                "{n} of {n}: {lo} {hi}"
            );
        }
        assert!((wilson(0, 10).1 - 0.2775).abs() < 1e-3);
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
