//! The agents without a search tree: random, semi-random (seed 004 §4.1.2), A* (the move
//! that lessens the game's `goal-distance` most) and exact (the solver's move).

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Move, Pos, Rules, Turn};
use gamelang_game::SolveError;

pub struct Random {
    pub rng: Rng,
}

impl Agent for Random {
    fn choose(&mut self, _: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        Ok(self.rng.below(turn.moves.len()))
    }
}

/// Uniformly among the indices of `keys` whose key is least (keys within `1e-9` of the
/// least count as equal: they are expectations).
fn least_by(rng: &mut Rng, keys: &[f64]) -> usize {
    let best = keys.iter().copied().fold(f64::INFINITY, f64::min);
    let ties: Vec<usize> = (0..keys.len())
        .filter(|&i| keys[i] <= best + 1e-9)
        .collect();
    ties[rng.below(ties.len())]
}

/// `f` of each outcome of `m`, weighted by its probability (the value itself when the
/// move has one outcome); `None` as soon as `f` gives none.
fn expected(
    m: &Move,
    mut f: impl FnMut(Pos) -> Result<Option<f64>, SolveError>,
) -> Result<Option<f64>, SolveError> {
    if let [(_, next)] = m.outcomes[..] {
        return f(next);
    }
    let mut total = 0.0;
    for &(prob, next) in &m.outcomes {
        match f(next)? {
            Some(v) => total += prob * v,
            None => return Ok(None),
        }
    }
    Ok(Some(total))
}

pub struct AStar {
    pub rng: Rng,
}

/// The A* agent's move: the one after which the mover's `goal-distance` is least (its
/// expectation after a chance move). An unreachable goal (a negative distance) counts as
/// farthest. `None` when the game declares no distance.
fn astar_move(
    rng: &mut Rng,
    rules: &mut dyn Rules,
    turn: &Turn,
) -> Result<Option<usize>, SolveError> {
    let mut keys = Vec::with_capacity(turn.moves.len());
    for m in &turn.moves {
        let d = expected(m, |next| {
            Ok(rules
                .goal_distance(turn.player, next)?
                .map(|d| if d < 0 { f64::MAX } else { d as f64 }))
        })?;
        match d {
            Some(d) => keys.push(d),
            None => return Ok(None),
        }
    }
    Ok(Some(least_by(rng, &keys)))
}

/// What the `astar` agent says of a game without a distance to goal.
pub const NO_DISTANCE: &str = "the `astar` agent needs the game's distance to goal: define \
     `op goal-distance : Players Config -> Int` in the game's module (in a chance game over \
     its own sorts of players and states, e.g. `op goal-distance : Seat State -> Int`)";

impl Agent for AStar {
    fn choose(&mut self, rules: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        astar_move(&mut self.rng, rules, turn)?.ok_or_else(|| SolveError::Game(NO_DISTANCE.into()))
    }
}

pub struct SemiRandom {
    pub rng: Rng,
}

impl Agent for SemiRandom {
    /// Seed 004's Figure 4.2: a random move among the randomizable ones and one more, the
    /// A* agent's (a random other move when the game has no `goal-distance`).
    fn choose(&mut self, rules: &mut dyn Rules, p: Pos, turn: &Turn) -> Result<usize, SolveError> {
        let moves = &turn.moves;
        let Some(randomizable) = rules.randomizable(p)? else {
            return Ok(self.rng.below(moves.len()));
        };
        let mut candidates = Vec::with_capacity(randomizable.len() + 1);
        for r in &randomizable {
            match moves.iter().position(|m| m.label == *r) {
                Some(i) => candidates.push(i),
                None => {
                    return Err(SolveError::Game(
                        "`randomizable` gave a configuration that is not one of the moves \
                         (`next-config`)"
                            .into(),
                    ))
                }
            }
        }
        let others: Vec<usize> = (0..moves.len())
            .filter(|i| !candidates.contains(i))
            .collect();
        if !others.is_empty() {
            let extra = match astar_move(&mut self.rng, rules, turn)? {
                Some(i) => i,
                None => others[self.rng.below(others.len())],
            };
            if !candidates.contains(&extra) {
                candidates.push(extra);
            }
        }
        if candidates.is_empty() {
            return Ok(self.rng.below(moves.len()));
        }
        Ok(candidates[self.rng.below(candidates.len())])
    }
}

pub struct Exact {
    pub rng: Rng,
}

impl Agent for Exact {
    /// A move that keeps the mover's best value under best play (a win, else a draw, else
    /// any; in a chance game the highest probability of winning), and among those, as the
    /// chance solver's max-n rule says, the one giving the other players together the
    /// least: in a chance game a draw is worth 0 to everyone, as a loss is to the mover,
    /// and only the others' share tells them apart. Uniformly among equals.
    fn choose(&mut self, rules: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        let p = turn.player;
        let mut own = Vec::with_capacity(turn.moves.len());
        let mut others = Vec::with_capacity(turn.moves.len());
        for m in &turn.moves {
            // Each player's expected value after the move.
            let mut v: Vec<f64> = Vec::new();
            for &(prob, next) in &m.outcomes {
                let after = rules.values(next)?;
                v.resize(after.len(), 0.0);
                for (x, a) in v.iter_mut().zip(after) {
                    *x += prob * a;
                }
            }
            own.push(v.get(p).copied().unwrap_or(0.0));
            others.push(v.iter().sum::<f64>() - own[own.len() - 1]);
        }
        let best = own.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let keys: Vec<f64> = (0..own.len())
            .map(|i| {
                if own[i] >= best - 1e-9 {
                    others[i]
                } else {
                    f64::INFINITY
                }
            })
            .collect();
        Ok(least_by(&mut self.rng, &keys))
    }
}
