//! Depth-limited minimax with alpha-beta pruning (seed 004, Figures 4.3-4.4), with
//! iterative deepening (depth 1, 2, …, D; each iteration tries the previous one's best
//! move first) and a transposition table keyed by position.
//!
//! Values are those of the player who decides at the root (the *root player*): a halted
//! position it has won is worth `WIN - ply` (a faster win is worth more), one another
//! player has won `-(WIN - ply)`, a draw 0, and a position at the depth limit the game's
//! `eval` for the root player, or 0 when the game declares none. The root player
//! maximises; every other player minimises. With two players this is exact minimax; with
//! more it is the **paranoid** search (the others are taken to play together against the
//! root player), which keeps alpha-beta's pruning. A move with several chance outcomes is
//! worth the expectation of their values (expectiminimax), each searched with a full
//! window.

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Move, Node, Pos, Rules, Turn};
use gamelang_game::SolveError;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// The value of a win at the root; wins `ply` plies away are worth `WIN - ply`.
const WIN: f64 = (1u64 << 40) as f64;
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
    value: f64,
    bound: Bound,
    best: usize,
    /// No position below it was cut off by the depth limit: its value is the game's.
    complete: bool,
}

pub struct AlphaBeta {
    depth: u32,
    rng: Rng,
    /// The player deciding at the root of the current decision.
    root: usize,
    table: FxHashMap<Pos, Entry>,
    /// What is known of a position during one decision.
    nodes: FxHashMap<Pos, Rc<Node>>,
    /// The search below the current node met a position cut off by the depth limit.
    cut: bool,
    /// The depth of the last decision's last iteration.
    reached: u32,
}

impl AlphaBeta {
    pub fn new(depth: u32, rng: Rng) -> AlphaBeta {
        AlphaBeta {
            depth,
            rng,
            root: 0,
            table: FxHashMap::default(),
            nodes: FxHashMap::default(),
            cut: false,
            reached: 0,
        }
    }

    /// How deep the last decision searched: its depth D, or less where a forced result
    /// was found first or the whole game fitted in fewer plies.
    pub fn depth_reached(&self) -> u32 {
        self.reached
    }

    fn node(&mut self, rules: &mut dyn Rules, p: Pos) -> Result<Rc<Node>, SolveError> {
        if let Some(n) = self.nodes.get(&p) {
            return Ok(n.clone());
        }
        let n = Rc::new(rules.node(p)?);
        self.nodes.insert(p, n.clone());
        Ok(n)
    }

    /// The value of playing `m`: its one outcome's, or the expectation over its outcomes.
    fn move_value(
        &mut self,
        rules: &mut dyn Rules,
        m: &Move,
        depth: u32,
        alpha: f64,
        beta: f64,
        ply: f64,
    ) -> Result<f64, SolveError> {
        if let [(_, next)] = m.outcomes[..] {
            return self.search(rules, next, depth, alpha, beta, ply);
        }
        let mut total = 0.0;
        for &(prob, next) in &m.outcomes {
            total += prob * self.search(rules, next, depth, -WIN - 1.0, WIN + 1.0, ply)?;
        }
        Ok(total)
    }

    fn search(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        depth: u32,
        mut alpha: f64,
        mut beta: f64,
        ply: f64,
    ) -> Result<f64, SolveError> {
        let node = self.node(rules, p)?;
        let turn = match &*node {
            Node::Over { winners } => {
                return Ok(if winners.is_empty() {
                    0.0
                } else if winners.contains(&self.root) {
                    WIN - ply
                } else {
                    -(WIN - ply)
                })
            }
            Node::Turn(t) => t,
        };
        if depth == 0 {
            self.cut = true;
            let e = rules.eval(p, self.root)?.unwrap_or(0);
            return Ok(e.clamp(-EVAL_BOUND, EVAL_BOUND) as f64);
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut first = 0;
        if let Some(e) = self.table.get(&p).copied() {
            if e.depth >= depth {
                let hit = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.value >= beta,
                    Bound::Upper => e.value <= alpha,
                };
                if hit {
                    self.cut |= !e.complete;
                    return Ok(e.value);
                }
            }
            first = e.best;
        }
        let cut_before = std::mem::replace(&mut self.cut, false);
        let maximise = turn.player == self.root;
        let order = std::iter::once(first).chain((0..turn.moves.len()).filter(|&i| i != first));
        let mut best = if maximise {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let mut best_i = first;
        for i in order {
            let v = self.move_value(rules, &turn.moves[i], depth - 1, alpha, beta, ply + 1.0)?;
            if maximise {
                if v > best {
                    (best, best_i) = (v, i);
                }
                alpha = alpha.max(v);
            } else {
                if v < best {
                    (best, best_i) = (v, i);
                }
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let complete = !self.cut;
        self.cut |= cut_before;
        self.table.insert(
            p,
            Entry {
                depth,
                value: best,
                bound,
                best: best_i,
                complete,
            },
        );
        Ok(best)
    }
}

impl Agent for AlphaBeta {
    fn choose(&mut self, rules: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        // The tables are per decision: values depend on the ply from the root and on the
        // root player.
        self.table.clear();
        self.nodes.clear();
        self.root = turn.player;
        let moves = &turn.moves;
        // Equal moves are told apart at random: shuffle the root's order.
        let mut order: Vec<usize> = (0..moves.len()).collect();
        self.rng.shuffle(&mut order);
        let mut best_i = order[0];
        for d in 1..=self.depth {
            // The previous iteration's best move first.
            order.retain(|&i| i != best_i);
            order.insert(0, best_i);
            let (mut alpha, beta) = (-WIN - 1.0, WIN + 1.0);
            let mut best = f64::NEG_INFINITY;
            self.cut = false;
            self.reached = d;
            for &i in &order {
                let v = self.move_value(rules, &moves[i], d - 1, alpha, beta, 1.0)?;
                if v > best {
                    (best, best_i) = (v, i);
                }
                alpha = alpha.max(v);
            }
            // A forced win or loss found at this depth is final: every outcome a win (or
            // a loss) within d plies, worth at least WIN - d. An expectation over chance
            // outcomes that mixes wins with anything else is worth less by at least
            // WIN / 2 times the probability of the rest (values below WIN are at most
            // EVAL_BOUND = WIN / 2), so it is not taken for one, however large it is.
            if best.abs() >= WIN - d as f64 {
                break;
            }
            // Nothing was cut off by the depth limit: deeper searches would see the same
            // tree. (`alphabeta:1000000` on tic-tac-toe searched the whole game a million
            // times.)
            if !self.cut {
                break;
            }
        }
        Ok(best_i)
    }
}
