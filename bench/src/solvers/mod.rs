//! Hand-written native solvers for the game-solving benchmark (`--bin solving`): what a
//! good native programmer would write, to set gamelang's figures beside. Each game is a
//! bit-board move generator ([`Game`]); one negamax alpha-beta search with a fixed-size
//! transposition table ([`Search`]) solves all of them.

pub mod colouring;
pub mod connect;
pub mod domineering;
pub mod othello;

use std::hash::{Hash, Hasher};

/// A two-player game of perfect information, seen from the player to move.
pub trait Game {
    /// A position, including whose turn it is where the rules are not symmetric.
    type Pos: Copy + Eq + Hash;
    /// The positions after each move of the player to move, in the order to try them
    /// (best first as far as the game can tell cheaply). None: the game is over.
    fn children(&self, p: &Self::Pos, out: &mut Vec<Self::Pos>);
    /// The final score of a finished position, for the player to move.
    fn final_score(&self, p: &Self::Pos) -> i32;
    /// One position of the class of positions equivalent under the game's symmetry (they
    /// share one table entry); by default, the position itself.
    fn canon(&self, p: Self::Pos) -> Self::Pos {
        p
    }
}

/// Larger than any score.
const INF: i32 = 1 << 20;

/// One slot of the transposition table: a position and bounds on its value (for the player
/// to move), and the index of the best move found.
#[derive(Clone, Copy)]
struct Entry<P> {
    pos: P,
    lower: i32,
    upper: i32,
    best: u8,
}

/// Negamax alpha-beta (fail-soft) with a transposition table of 2^k slots, replaced
/// always; the table keeps lower and upper bounds, so null-window searches reuse each
/// other's work, and the best move of a position is tried first when it comes back.
pub struct Search<G: Game> {
    game: G,
    table: Vec<Option<Entry<G::Pos>>>,
    buffers: Vec<Vec<G::Pos>>,
    /// Positions searched (counting revisits that the table did not answer).
    pub nodes: u64,
}

impl<G: Game> Search<G> {
    /// A search with a table of 2^`log_slots` positions.
    pub fn new(game: G, log_slots: u32) -> Self {
        Search {
            game,
            table: vec![None; 1 << log_slots],
            buffers: Vec::new(),
            nodes: 0,
        }
    }

    fn slot(&self, p: &G::Pos) -> usize {
        let mut h = rustc_hash::FxHasher::default();
        p.hash(&mut h);
        // Fx mixes into the high bits; fold them down.
        let x = h.finish();
        ((x ^ (x >> 29)) as usize) & (self.table.len() - 1)
    }

    /// The exact value of `p` for the player to move.
    pub fn value(&mut self, p: G::Pos) -> i32 {
        self.search(p, -INF, INF, 0)
    }

    /// The sign of the value of `p` for the player to move (1 win, 0 draw, -1 loss), by one
    /// search with the window (-1, 1).
    pub fn outcome(&mut self, p: G::Pos) -> i32 {
        self.search(p, -1, 1, 0).signum()
    }

    fn search(&mut self, p: G::Pos, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.nodes += 1;
        let key = self.game.canon(p);
        let slot = self.slot(&key);
        let mut first = 0usize;
        let (mut lower, mut upper) = (-INF, INF);
        if let Some(e) = self.table[slot].filter(|e| e.pos == key) {
            if e.lower >= beta || e.lower == e.upper {
                return e.lower;
            }
            if e.upper <= alpha {
                return e.upper;
            }
            alpha = alpha.max(e.lower);
            beta = beta.min(e.upper);
            (lower, upper, first) = (e.lower, e.upper, e.best as usize);
        }
        if self.buffers.len() <= ply {
            self.buffers.push(Vec::new());
        }
        let mut kids = std::mem::take(&mut self.buffers[ply]);
        kids.clear();
        self.game.children(&p, &mut kids);
        if kids.is_empty() {
            let v = self.game.final_score(&p);
            self.buffers[ply] = kids;
            self.table[slot] = Some(Entry {
                pos: key,
                lower: v,
                upper: v,
                best: 0,
            });
            return v;
        }
        // The remembered best move first; `order[i]` is the index of the i-th tried move.
        let first = if first < kids.len() { first } else { 0 };
        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_index = first;
        for i in 0..kids.len() {
            let k = if i == 0 {
                first
            } else if i <= first {
                i - 1
            } else {
                i
            };
            let v = -self.search(kids[k], -beta, -alpha, ply + 1);
            if v > best {
                best = v;
                best_index = k;
            }
            alpha = alpha.max(best);
            if alpha >= beta {
                break;
            }
        }
        self.buffers[ply] = kids;
        // What this search proved, narrowed by what was known.
        if best <= alpha0 {
            upper = upper.min(best);
        } else if best >= beta {
            lower = lower.max(best);
        } else {
            (lower, upper) = (best, best);
        }
        self.table[slot] = Some(Entry {
            pos: key,
            lower,
            upper,
            best: best_index as u8,
        });
        best
    }
}

#[cfg(test)]
mod tests {
    //! Each native solver against a plain minimax over the full tree, on small boards.
    use super::*;
    use std::collections::HashMap;

    fn minimax<G: Game>(g: &G, p: G::Pos, memo: &mut HashMap<G::Pos, i32>) -> i32 {
        if let Some(&v) = memo.get(&p) {
            return v;
        }
        let mut kids = Vec::new();
        g.children(&p, &mut kids);
        let v = if kids.is_empty() {
            g.final_score(&p)
        } else {
            kids.into_iter()
                .map(|k| -minimax(g, k, memo))
                .max()
                .unwrap()
        };
        memo.insert(p, v);
        v
    }

    fn agree<G: Game + Clone>(g: G, start: G::Pos) {
        let v = minimax(&g, start, &mut HashMap::new());
        // A tiny table, so that replacements happen.
        assert_eq!(Search::new(g.clone(), 6).value(start), v);
        assert_eq!(Search::new(g, 6).outcome(start), v.signum());
    }

    #[test]
    fn alpha_beta_agrees_with_minimax() {
        for n in 2..=4 {
            agree(colouring::Colouring::new(n), colouring::Colouring::start());
        }
        agree(othello::Othello::new(4), othello::Othello::new(4).start());
        for (r, c) in [(2, 3), (3, 3), (3, 4), (4, 3)] {
            let g = domineering::Domineering::new(r, c);
            agree(g.clone(), g.start(true));
            agree(g.clone(), g.start(false));
        }
        for (w, h, c) in [(3, 3, 3), (4, 3, 3), (4, 4, 3)] {
            agree(connect::Connect::new(w, h, c), connect::Connect::start());
        }
    }

    /// Connect-c by brute force over every move (the solver's `children` leaves moves out),
    /// cells indexed y * w + x: the outcome for the player to move, who holds `mine`.
    fn connect_brute(
        (w, h, c): (i32, i32, i32),
        mine: u64,
        theirs: u64,
        memo: &mut HashMap<(u64, u64), i32>,
    ) -> i32 {
        if let Some(&v) = memo.get(&(mine, theirs)) {
            return v;
        }
        let line = |s: u64| {
            (0..w * h).any(|i| {
                [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                    (0..c).all(|k| {
                        let (x, y) = (i % w + k * dx, i / w + k * dy);
                        (0..w).contains(&x) && (0..h).contains(&y) && s >> (y * w + x) & 1 == 1
                    })
                })
            })
        };
        let v = if line(theirs) {
            -1
        } else {
            let free = (0..w).filter_map(|x| {
                (0..h)
                    .map(|y| y * w + x)
                    .find(|&i| (mine | theirs) >> i & 1 == 0)
            });
            let moves: Vec<i32> = free.collect();
            match moves.is_empty() {
                true => 0,
                false => moves
                    .into_iter()
                    .map(|i| -connect_brute((w, h, c), theirs, mine | 1 << i, memo))
                    .max()
                    .unwrap(),
            }
        };
        memo.insert((mine, theirs), v);
        v
    }

    #[test]
    fn connect_solver_agrees_with_brute_force_over_every_move() {
        for (w, h, c) in [
            (3, 3, 3),
            (4, 3, 3),
            (4, 4, 3),
            (5, 3, 3),
            (3, 5, 3),
            (4, 4, 4),
            (5, 4, 4),
            (4, 5, 4),
            (2, 4, 2),
        ] {
            let expected = connect_brute((w, h, c), 0, 0, &mut HashMap::new());
            let g = connect::Connect::new(w as u32, h as u32, c as u32);
            // A tiny table, so that replacements happen, and a large one.
            for log in [6, 16] {
                let mut s = Search::new(g.clone(), log);
                assert_eq!(s.outcome((0, 0)), expected, "{w} x {h}, c = {c}");
            }
        }
    }
}
