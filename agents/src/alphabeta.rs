//! Depth-limited minimax with alpha-beta pruning (seed 004, Figures 4.3-4.4), written as
//! negamax, with iterative deepening (depth 1, 2, …, D; each iteration tries the previous
//! one's best move first) and a transposition table keyed by position.
//!
//! Values are from the point of view of the player to move: a won halted position is worth
//! `WIN - ply` (a faster win is worth more), a lost one `-(WIN - ply)`, a draw 0, and a
//! position at the depth limit the game's `eval` (counted for B, so negated for R), or 0
//! when the game declares none.

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Pos, Rules};
use gamelang_game::{SolveError, Verdict};
use gamelang_runtime::TermId;
use rustc_hash::FxHashMap;

/// The value of a win at the root; wins `ply` plies away are worth `WIN - ply`.
const WIN: i64 = 1 << 40;
/// Evaluations are clamped below this, so that no evaluation looks like a forced win.
const EVAL_BOUND: i64 = 1 << 39;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    depth: u32,
    value: i64,
    bound: Bound,
    best: usize,
}

/// What is known of a position during one decision: halted (with its result) or its moves.
#[derive(Clone)]
enum Node {
    Leaf(Verdict),
    Inner(Vec<TermId>),
}

pub struct AlphaBeta {
    depth: u32,
    rng: Rng,
    table: FxHashMap<Pos, Entry>,
    nodes: FxHashMap<Pos, Node>,
}

impl AlphaBeta {
    pub fn new(depth: u32, rng: Rng) -> AlphaBeta {
        AlphaBeta {
            depth,
            rng,
            table: FxHashMap::default(),
            nodes: FxHashMap::default(),
        }
    }

    fn node(&mut self, rules: &mut dyn Rules, p: Pos) -> Result<Node, SolveError> {
        if let Some(n) = self.nodes.get(&p) {
            return Ok(n.clone());
        }
        let n = if rules.halted(p)? {
            Node::Leaf(rules.result(p)?)
        } else {
            let moves = rules.moves(p)?;
            if moves.is_empty() {
                Node::Leaf(rules.result(p)?)
            } else {
                Node::Inner(moves)
            }
        };
        self.nodes.insert(p, n.clone());
        Ok(n)
    }

    fn search(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        depth: u32,
        mut alpha: i64,
        beta: i64,
        ply: i64,
    ) -> Result<i64, SolveError> {
        let moves = match self.node(rules, p)? {
            Node::Leaf(v) => {
                return Ok(match v {
                    Verdict::Draw => 0,
                    Verdict::Win(s) if s == p.to_move => WIN - ply,
                    Verdict::Win(_) => -(WIN - ply),
                })
            }
            Node::Inner(m) => m,
        };
        if depth == 0 {
            let e = rules.eval(p)?.unwrap_or(0);
            let e = e.clamp(-EVAL_BOUND, EVAL_BOUND);
            return Ok(if p.to_move == gamelang_game::Side::B {
                e
            } else {
                -e
            });
        }
        let alpha0 = alpha;
        let mut first = 0;
        if let Some(e) = self.table.get(&p).copied() {
            if e.depth >= depth {
                match e.bound {
                    Bound::Exact => return Ok(e.value),
                    Bound::Lower if e.value >= beta => return Ok(e.value),
                    Bound::Upper if e.value <= alpha => return Ok(e.value),
                    _ => {}
                }
            }
            first = e.best;
        }
        let order = std::iter::once(first).chain((0..moves.len()).filter(|&i| i != first));
        let (mut best, mut best_i) = (i64::MIN, first);
        for i in order {
            let v = -self.search(rules, p.after(moves[i]), depth - 1, -beta, -alpha, ply + 1)?;
            if v > best {
                (best, best_i) = (v, i);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(
            p,
            Entry {
                depth,
                value: best,
                bound,
                best: best_i,
            },
        );
        Ok(best)
    }
}

impl Agent for AlphaBeta {
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError> {
        // The tables are per decision: values depend on the ply from the root.
        self.table.clear();
        self.nodes.clear();
        // Equal moves are told apart at random: shuffle the root's order.
        let mut order: Vec<usize> = (0..moves.len()).collect();
        self.rng.shuffle(&mut order);
        let mut best_i = order[0];
        for d in 1..=self.depth {
            // The previous iteration's best move first.
            order.retain(|&i| i != best_i);
            order.insert(0, best_i);
            let (mut alpha, beta) = (-WIN - 1, WIN + 1);
            let mut best = i64::MIN;
            for &i in &order {
                let v = -self.search(rules, p.after(moves[i]), d - 1, -beta, -alpha, 1)?;
                if v > best {
                    (best, best_i) = (v, i);
                }
                alpha = alpha.max(v);
            }
            // A forced win or loss found at this depth is final.
            if best.abs() > EVAL_BOUND {
                break;
            }
        }
        Ok(best_i)
    }
}
