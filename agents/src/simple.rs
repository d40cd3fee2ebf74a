//! The agents without a search tree: random, semi-random (seed 004 §4.1.2), A* (the move
//! that lessens the game's `goal-distance` most) and exact (the solver's move).

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Pos, Rules};
use gamelang_game::{SolveError, Verdict};
use gamelang_runtime::TermId;

pub struct Random {
    pub rng: Rng,
}

impl Agent for Random {
    fn choose(&mut self, _: &mut dyn Rules, _: Pos, moves: &[TermId]) -> Result<usize, SolveError> {
        Ok(self.rng.below(moves.len()))
    }
}

/// Uniformly among the indices of `moves` whose `key` is least.
fn least_by(rng: &mut Rng, keys: &[i64]) -> usize {
    let best = keys.iter().copied().min().unwrap_or(0);
    let ties: Vec<usize> = (0..keys.len()).filter(|&i| keys[i] == best).collect();
    ties[rng.below(ties.len())]
}

pub struct AStar {
    pub rng: Rng,
}

/// The A* agent's move: the successor where the mover's `goal-distance` is least. An
/// unreachable goal (a negative distance) counts as farthest.
fn astar_move(
    rng: &mut Rng,
    rules: &mut dyn Rules,
    p: Pos,
    moves: &[TermId],
) -> Result<Option<usize>, SolveError> {
    let mut keys = Vec::with_capacity(moves.len());
    for &m in moves {
        match rules.goal_distance(p.to_move, m)? {
            None => return Ok(None),
            Some(d) if d < 0 => keys.push(i64::MAX),
            Some(d) => keys.push(d),
        }
    }
    Ok(Some(least_by(rng, &keys)))
}

impl Agent for AStar {
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError> {
        astar_move(&mut self.rng, rules, p, moves)?.ok_or_else(|| {
            SolveError::Game(
                "the `astar` agent needs the game's distance to goal: define \
                 `op goal-distance : Players Config -> Int` in the game's module"
                    .into(),
            )
        })
    }
}

pub struct SemiRandom {
    pub rng: Rng,
}

impl Agent for SemiRandom {
    /// Seed 004's Figure 4.2: a random move among the randomizable ones and one more, the
    /// A* agent's (a random other move when the game has no `goal-distance`).
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError> {
        let Some(randomizable) = rules.randomizable(p)? else {
            return Ok(self.rng.below(moves.len()));
        };
        let mut candidates = Vec::with_capacity(randomizable.len() + 1);
        for r in &randomizable {
            match moves.iter().position(|m| m == r) {
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
            let extra = match astar_move(&mut self.rng, rules, p, moves)? {
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
    /// A move that keeps the best outcome the mover can force: a win, else a draw, else
    /// any (uniformly among equals).
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError> {
        let mut keys = Vec::with_capacity(moves.len());
        for &m in moves {
            keys.push(match rules.solve(p.after(m))? {
                Verdict::Win(s) if s == p.to_move => 0,
                Verdict::Draw => 1,
                Verdict::Win(_) => 2,
            });
        }
        Ok(least_by(&mut self.rng, &keys))
    }
}
