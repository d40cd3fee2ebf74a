//! Retrograde analysis of deterministic two-player games, with cycles: positions whose
//! outcome is forced are labelled backwards from the final positions (a win for the player
//! to move if some move reaches a position it wins, a loss once every move reaches a
//! position the opponent wins); the positions left unlabelled are draws: neither player
//! can force a win, and best play goes on for ever (or ends without a single winner).

use crate::graph::{Graph, Kind};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    /// Player `0` or `1` wins, the game ending in this many plies under best play (the
    /// winner as fast as possible, the loser as slowly as possible).
    Win(usize, u32),
    Draw,
}

pub struct Retro {
    pub labels: Vec<Label>,
    /// For each state, the option its player takes (winning fastest, losing slowest, or
    /// keeping the draw); `None` at final states.
    pub best: Vec<Option<usize>>,
}

/// Can the graph be analysed this way: two players, no chance (each option one outcome),
/// and no final position both players win? A shared win is not a win for one side and a
/// loss for the other: labelled as a draw it gave both players 0 where max-n gives both 1,
/// so such a game goes to the general solver.
pub fn applies<S, C>(g: &Graph<S, C>) -> bool {
    g.n_players() == 2
        && !g.has_chance()
        && !g
            .kind
            .iter()
            .any(|k| matches!(k, Kind::Final { winners } if winners.count_ones() > 1))
}

pub fn analyse<S, C>(g: &Graph<S, C>) -> Retro {
    let n = g.len();
    let mut labels = vec![Label::Draw; n];
    let mut known = vec![false; n];
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut remaining = vec![0u32; n];
    for s in 0..n {
        for o in g.options(s) {
            for &(t, _) in g.outcomes(o) {
                preds[t as usize].push(s as u32);
                remaining[s] += 1;
            }
        }
    }
    let mut queue = VecDeque::new();
    for s in 0..n {
        if let Kind::Final { winners } = g.kind[s] {
            known[s] = true;
            match winners {
                1 => labels[s] = Label::Win(0, 0),
                2 => labels[s] = Label::Win(1, 0),
                _ => continue,
            }
            queue.push_back(s);
        }
    }
    while let Some(t) = queue.pop_front() {
        let Label::Win(w, d) = labels[t] else {
            continue;
        };
        for &s in &preds[t] {
            let s = s as usize;
            if known[s] {
                continue;
            }
            let Kind::Turn { player, .. } = g.kind[s] else {
                continue;
            };
            if player as usize == w {
                labels[s] = Label::Win(w, d + 1);
                known[s] = true;
                queue.push_back(s);
            } else {
                remaining[s] -= 1;
                if remaining[s] == 0 {
                    labels[s] = Label::Win(w, d + 1);
                    known[s] = true;
                    queue.push_back(s);
                }
            }
        }
    }
    let best = (0..n)
        .map(|s| {
            let Kind::Turn { player, .. } = g.kind[s] else {
                return None;
            };
            let p = player as usize;
            let target = |o: usize| labels[g.outcomes(o)[0].0 as usize];
            // Rank: a win for p (sooner better), then a draw, then a loss (later better).
            let rank = |l: Label| match l {
                Label::Win(w, d) if w == p => (2, -(d as i64)),
                Label::Draw => (1, 0),
                Label::Win(_, d) => (0, d as i64),
            };
            g.options(s)
                .max_by_key(|&o| (rank(target(o)), std::cmp::Reverse(o)))
        })
        .collect();
    Retro { labels, best }
}
