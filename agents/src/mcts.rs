//! Monte Carlo tree search (seed 004 §1.3): N simulations, each of selection by UCT,
//! expansion of one untried move, one random playout to the end of the game, and
//! back-propagation of its result (win 1, draw 1/2, loss 0 for the player who made the move
//! into each node). The move played is the root's most visited.

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Pos, Rules};
use gamelang_game::{Side, SolveError, Verdict};
use gamelang_runtime::TermId;

/// UCT's exploration constant (about sqrt 2, the classical choice for rewards in [0, 1]).
pub const EXPLORATION: f64 = 1.4;

/// A playout that reaches this many plies without ending counts as a draw (games whose
/// positions repeat, such as Quoridor, could otherwise be played at random for ever).
pub const PLAYOUT_LIMIT: usize = 1000;

struct Node {
    pos: Pos,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Moves not expanded yet.
    untried: Vec<TermId>,
    /// The result when the position is halted or has no move.
    leaf: Option<Verdict>,
    visits: u32,
    /// Total reward for the player who moved into this node.
    reward: f64,
}

pub struct Mcts {
    simulations: u32,
    rng: Rng,
}

impl Mcts {
    pub fn new(simulations: u32, rng: Rng) -> Mcts {
        Mcts { simulations, rng }
    }

    fn new_node(
        &mut self,
        rules: &mut dyn Rules,
        pos: Pos,
        parent: Option<usize>,
    ) -> Result<Node, SolveError> {
        let (leaf, untried) = if rules.halted(pos)? {
            (Some(rules.result(pos)?), Vec::new())
        } else {
            let moves = rules.moves(pos)?;
            if moves.is_empty() {
                (Some(rules.result(pos)?), moves)
            } else {
                (None, moves)
            }
        };
        Ok(Node {
            pos,
            parent,
            children: Vec::new(),
            untried,
            leaf,
            visits: 0,
            reward: 0.0,
        })
    }

    fn uct_child(&self, tree: &[Node], n: usize) -> usize {
        let ln = (tree[n].visits.max(1) as f64).ln();
        let score = |c: usize| {
            let node = &tree[c];
            let v = node.visits as f64;
            node.reward / v + EXPLORATION * (ln / v).sqrt()
        };
        let mut best = tree[n].children[0];
        let mut best_score = score(best);
        for &c in &tree[n].children[1..] {
            let s = score(c);
            if s > best_score {
                (best, best_score) = (c, s);
            }
        }
        best
    }
}

/// Play at random from `p` to the end (or [`PLAYOUT_LIMIT`] plies: a draw).
pub fn playout(
    rng: &mut Rng,
    rules: &mut dyn Rules,
    mut p: Pos,
) -> Result<(Verdict, usize), SolveError> {
    for ply in 0..PLAYOUT_LIMIT {
        if rules.halted(p)? {
            return Ok((rules.result(p)?, ply));
        }
        let moves = rules.moves(p)?;
        if moves.is_empty() {
            return Ok((rules.result(p)?, ply));
        }
        p = p.after(moves[rng.below(moves.len())]);
    }
    Ok((Verdict::Draw, PLAYOUT_LIMIT))
}

/// The reward of a result for `side`.
fn reward(v: Verdict, side: Side) -> f64 {
    match v {
        Verdict::Draw => 0.5,
        Verdict::Win(s) if s == side => 1.0,
        Verdict::Win(_) => 0.0,
    }
}

impl Agent for Mcts {
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        p: Pos,
        moves: &[TermId],
    ) -> Result<usize, SolveError> {
        if moves.len() == 1 {
            return Ok(0);
        }
        let mut root = self.new_node(rules, p, None)?;
        root.untried = moves.to_vec();
        let mut tree = vec![root];
        for _ in 0..self.simulations {
            // Selection: down fully expanded nodes by UCT.
            let mut n = 0;
            while tree[n].leaf.is_none() && tree[n].untried.is_empty() {
                n = self.uct_child(&tree, n);
            }
            // Expansion: one untried move, at random.
            if tree[n].leaf.is_none() {
                let k = self.rng.below(tree[n].untried.len());
                let m = tree[n].untried.swap_remove(k);
                let child = self.new_node(rules, tree[n].pos.after(m), Some(n))?;
                tree.push(child);
                let c = tree.len() - 1;
                tree[n].children.push(c);
                n = c;
            }
            // Simulation.
            let result = match tree[n].leaf {
                Some(v) => v,
                None => playout(&mut self.rng, rules, tree[n].pos)?.0,
            };
            // Back-propagation: each node's reward is for the player who moved into it.
            let mut at = Some(n);
            while let Some(i) = at {
                let node = &mut tree[i];
                node.visits += 1;
                node.reward += reward(result, node.pos.to_move.opponent());
                at = node.parent;
            }
        }
        // The most visited move (the first among equals, in the order of `moves`).
        let mut best = (0, 0u32);
        for &c in &tree[0].children {
            let i = moves
                .iter()
                .position(|&m| m == tree[c].pos.config)
                .unwrap_or(0);
            let v = tree[c].visits;
            if v > best.1 || (v == best.1 && i < best.0) {
                best = (i, v);
            }
        }
        Ok(best.0)
    }
}
