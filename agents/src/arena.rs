//! Agents playing each other: one game ([`play_game`]) and the totals of a match
//! ([`Tally`]), with seed 004's average branching factor (Algorithm 1: the moves available
//! summed over a game, divided by the moves made, averaged over games). Any game of the
//! agents' interface: two players or more, with or without chance.

use crate::agent::Agent;
use crate::mcts::draw;
use crate::rng::Rng;
use crate::rules::{Node, Pos, Rules, Turn};
use gamelang_chance::simulate::wilson;
use gamelang_game::SolveError;
use std::time::{Duration, Instant};

/// A game that reaches this many plies without ending is stopped and counted as a draw
/// (unless the match sets another limit).
pub const DEFAULT_MAX_PLIES: usize = 1000;

/// One game of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Which agent (an index into the match's agents) moved first.
    pub first: usize,
    /// The agent that played each player (indexed as the game's players).
    pub seats: Vec<usize>,
    /// The winning agents; none for a draw.
    pub winners: Vec<usize>,
    pub plies: usize,
    /// Moves available, summed over the positions of the game.
    pub moves_available: usize,
    /// Stopped at the ply limit (counted as a draw).
    pub stopped: bool,
    /// Time each agent spent choosing, and how many moves it made.
    pub think: Vec<Duration>,
    pub moves_made: Vec<usize>,
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

    /// The winning agent when there is exactly one.
    pub fn winner(&self) -> Option<usize> {
        match self.winners[..] {
            [w] => Some(w),
            _ => None,
        }
    }
}

/// What [`play_game`] shows of each ply once it is played: the rules, the position, the
/// decision there, the index of the move chosen and the position it led to (drawn by
/// chance among the move's outcomes in a chance game).
pub type PlyObserver<'a> =
    dyn FnMut(&mut dyn Rules, Pos, &Turn, usize, Pos) -> Result<(), SolveError> + 'a;

/// Who plays whom: agent `first` plays the player to move at the start (`p0`), and the
/// others follow in the players' order, wrapping around: player `(p0 + j) mod n` is
/// played by agent `(first + j) mod n`. A match rotates `first` from game to game.
pub fn seats(players: usize, p0: usize, first: usize) -> Vec<usize> {
    (0..players)
        .map(|i| (first + (i + players - p0) % players) % players)
        .collect()
}

/// Play one game from `start` with one agent per player ([`seats`]: agent `first` moves
/// first). Chance outcomes are drawn from `events`. `each_ply` sees every ply (for
/// drawing the board, or for checks).
pub fn play_game(
    rules: &mut dyn Rules,
    start: Pos,
    agents: &mut [Box<dyn Agent>],
    first: usize,
    max_plies: usize,
    events: &mut Rng,
    each_ply: &mut PlyObserver,
) -> Result<GameRecord, SolveError> {
    let n = agents.len();
    let players = rules.players().len();
    if n != players {
        return Err(SolveError::Game(format!(
            "{n} agent{} for {players} players ({}): give one agent per player",
            if n == 1 { "" } else { "s" },
            rules.players().join(", ")
        )));
    }
    let mut rec = GameRecord {
        first,
        seats: Vec::new(),
        winners: Vec::new(),
        plies: 0,
        moves_available: 0,
        stopped: false,
        think: vec![Duration::ZERO; n],
        moves_made: vec![0; n],
    };
    let mut p = start;
    loop {
        let turn = match rules.node(p)? {
            Node::Over { winners } => {
                if rec.seats.is_empty() {
                    rec.seats = seats(n, 0, first);
                }
                rec.winners = winners.iter().map(|&w| rec.seats[w]).collect();
                rec.winners.sort_unstable();
                rec.winners.dedup();
                return Ok(rec);
            }
            Node::Turn(t) => t,
        };
        if rec.seats.is_empty() {
            rec.seats = seats(n, turn.player, first);
        }
        if rec.plies >= max_plies {
            rec.stopped = true;
            return Ok(rec);
        }
        let mover = rec.seats[turn.player];
        let began = Instant::now();
        let i = agents[mover].choose(rules, p, &turn)?;
        rec.think[mover] += began.elapsed();
        rec.moves_made[mover] += 1;
        if i >= turn.moves.len() {
            return Err(SolveError::Game(format!(
                "an agent chose move {i} of {}",
                turn.moves.len()
            )));
        }
        let next = draw(events, &turn.moves[i]);
        each_ply(rules, p, &turn, i, next)?;
        rec.moves_available += turn.moves.len();
        rec.plies += 1;
        p = next;
        rules.tidy(&[start.config, p.config]);
    }
}

/// The totals of a match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub games: usize,
    /// Games each agent won.
    pub wins: Vec<usize>,
    /// Games each agent lost: another agent won.
    pub losses: Vec<usize>,
    /// Games nobody won (including the stopped ones).
    pub draws: usize,
    pub stopped: usize,
    pub plies: usize,
    pub branching_sum: f64,
    pub think: Vec<Duration>,
    pub moves_made: Vec<usize>,
}

impl Tally {
    /// The totals of no game yet between `agents` agents.
    pub fn new(agents: usize) -> Tally {
        Tally {
            wins: vec![0; agents],
            losses: vec![0; agents],
            think: vec![Duration::ZERO; agents],
            moves_made: vec![0; agents],
            ..Tally::default()
        }
    }

    pub fn add(&mut self, g: &GameRecord) {
        self.games += 1;
        for &w in &g.winners {
            self.wins[w] += 1;
        }
        if !g.winners.is_empty() {
            for a in (0..self.wins.len()).filter(|a| !g.winners.contains(a)) {
                self.losses[a] += 1;
            }
        }
        self.draws += g.winners.is_empty() as usize;
        self.stopped += g.stopped as usize;
        self.plies += g.plies;
        self.branching_sum += g.branching();
        for a in 0..self.wins.len() {
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
        wilson(self.wins[a] as u64, self.games as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::seats;

    #[test]
    fn seats_rotate_from_the_first_mover() {
        // Two players, B (0) to move at the start: agent `first` plays B.
        assert_eq!(seats(2, 0, 0), vec![0, 1]);
        assert_eq!(seats(2, 0, 1), vec![1, 0]);
        // R (1) to move at the start: agent `first` plays R.
        assert_eq!(seats(2, 1, 0), vec![1, 0]);
        assert_eq!(seats(2, 1, 1), vec![0, 1]);
        // Four players, player 0 first: each game moves every agent one seat on.
        assert_eq!(seats(4, 0, 1), vec![1, 2, 3, 0]);
        assert_eq!(seats(4, 2, 0), vec![2, 3, 0, 1]);
    }
}
