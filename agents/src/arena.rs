//! Agents playing each other: one game ([`play_game`]) and the totals of a match
//! ([`Tally`]), with seed 004's average branching factor (Algorithm 1: the moves available
//! summed over a game, divided by the moves made, averaged over games).

use crate::agent::Agent;
use crate::rules::{Pos, Rules};
use gamelang_game::{SolveError, Verdict};
use std::time::{Duration, Instant};

/// A game that reaches this many plies without ending is stopped and counted as a draw
/// (unless the match sets another limit).
pub const DEFAULT_MAX_PLIES: usize = 1000;

/// One game of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Which agent (0 or 1, in the order of `--agents`) moved first.
    pub first: usize,
    /// The winning agent, or `None` for a draw.
    pub winner: Option<usize>,
    pub plies: usize,
    /// Moves available, summed over the positions of the game.
    pub moves_available: usize,
    /// Stopped at the ply limit (counted as a draw).
    pub stopped: bool,
    /// Time each agent spent choosing, and how many moves it made.
    pub think: [Duration; 2],
    pub moves_made: [usize; 2],
}

impl GameRecord {
    /// Seed 004's per-game average branching factor.
    pub fn branching(&self) -> f64 {
        if self.plies == 0 {
            0.0
        } else {
            self.moves_available as f64 / self.plies as f64
        }
    }
}

/// What [`play_game`] shows of each ply before it is played: the rules, the position, its
/// moves and the index of the one chosen.
pub type PlyObserver<'a> = dyn FnMut(&mut dyn Rules, Pos, &[gamelang_runtime::TermId], usize) -> Result<(), SolveError>
    + 'a;

/// Play one game from `start`: agent `first` moves first, then they alternate. `each_ply`
/// sees every position reached (for drawing the board, or for checks).
pub fn play_game(
    rules: &mut dyn Rules,
    start: Pos,
    agents: &mut [Box<dyn Agent>; 2],
    first: usize,
    max_plies: usize,
    each_ply: &mut PlyObserver,
) -> Result<GameRecord, SolveError> {
    let mut rec = GameRecord {
        first,
        winner: None,
        plies: 0,
        moves_available: 0,
        stopped: false,
        think: [Duration::ZERO; 2],
        moves_made: [0; 2],
    };
    let side_of = |agent: usize| {
        if agent == first {
            start.to_move
        } else {
            start.to_move.opponent()
        }
    };
    let mut p = start;
    let mut mover = first;
    loop {
        let moves = if rules.halted(p)? {
            Vec::new()
        } else {
            rules.moves(p)?
        };
        if moves.is_empty() {
            rec.winner = match rules.result(p)? {
                Verdict::Draw => None,
                Verdict::Win(s) => Some(if side_of(0) == s { 0 } else { 1 }),
            };
            return Ok(rec);
        }
        if rec.plies >= max_plies {
            rec.stopped = true;
            return Ok(rec);
        }
        let began = Instant::now();
        let i = agents[mover].choose(rules, p, &moves)?;
        rec.think[mover] += began.elapsed();
        rec.moves_made[mover] += 1;
        if i >= moves.len() {
            return Err(SolveError::Game(format!(
                "an agent chose move {i} of {}",
                moves.len()
            )));
        }
        each_ply(rules, p, &moves, i)?;
        rec.moves_available += moves.len();
        rec.plies += 1;
        p = p.after(moves[i]);
        mover = 1 - mover;
        rules.tidy(&[start.config, p.config]);
    }
}

/// The totals of a match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub games: usize,
    pub wins: [usize; 2],
    pub draws: usize,
    pub stopped: usize,
    pub plies: usize,
    pub branching_sum: f64,
    pub think: [Duration; 2],
    pub moves_made: [usize; 2],
}

impl Tally {
    pub fn add(&mut self, g: &GameRecord) {
        self.games += 1;
        match g.winner {
            Some(w) => self.wins[w] += 1,
            None => self.draws += 1,
        }
        self.stopped += g.stopped as usize;
        self.plies += g.plies;
        self.branching_sum += g.branching();
        for a in 0..2 {
            self.think[a] += g.think[a];
            self.moves_made[a] += g.moves_made[a];
        }
    }

    pub fn avg_plies(&self) -> f64 {
        self.plies as f64 / self.games.max(1) as f64
    }

    pub fn avg_branching(&self) -> f64 {
        self.branching_sum / self.games.max(1) as f64
    }

    pub fn ms_per_move(&self, a: usize) -> f64 {
        self.think[a].as_secs_f64() * 1000.0 / self.moves_made[a].max(1) as f64
    }

    /// The 95% confidence interval of agent `a`'s rate of wins (Wilson's score interval).
    pub fn win_interval(&self, a: usize) -> (f64, f64) {
        wilson(self.wins[a], self.games)
    }
}

/// Wilson's 95% score interval for `k` successes in `n` trials.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (z, n, p) = (1.959_964, n as f64, k as f64 / n as f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z * z / n;
    (
        ((centre - spread) / denom).max(0.0),
        ((centre + spread) / denom).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::wilson;

    #[test]
    fn wilson_interval_matches_the_formula_on_known_values() {
        // 50 of 100: 0.5 ± about 0.0966 (Wilson), computed by hand from the formula.
        let (lo, hi) = wilson(50, 100);
        assert!(
            (lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3,
            "{lo} {hi}"
        );
        // 0 of 10: the lower end is 0 and the upper about 0.2775.
        let (lo, hi) = wilson(0, 10);
        assert!(lo == 0.0 && (hi - 0.2775).abs() < 1e-3, "{lo} {hi}");
    }
}
