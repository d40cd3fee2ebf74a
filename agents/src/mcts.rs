//! Monte Carlo tree search (seed 004 §1.3) on any game of the agents' interface: N
//! simulations, each of selection by UCT, expansion of one untried move, one random
//! playout to the end of the game, and back-propagation of its result. The move played is
//! the root's most tried.
//!
//! - A tree node is a position; under it each move keeps its own statistics (visits, and
//!   the total reward of every player) and the positions reached after it so far: one in a
//!   game without chance; in a chance game a chance node whose children appear as they are
//!   drawn, by the move's probabilities, from the agent's random stream.
//! - Selection: the player to move takes an untried move (at random), else the move of
//!   best UCT value for itself (max-n: each player maximises its own reward, so any number
//!   of players works; with two players and rewards summing to 1 this is the usual UCT).
//! - Rewards: 1 to each winner and 0 to the others; a game won by nobody (a draw, or a
//!   playout stopped after [`PLAYOUT_LIMIT`] moves) gives each of the n players 1/n.

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Move, Node, Pos, Rules, Turn};
use gamelang_game::SolveError;
use smallvec::SmallVec;

/// UCT's exploration constant (about sqrt 2, the classical choice for rewards in [0, 1]).
pub const EXPLORATION: f64 = 1.4;

/// A playout still going after this many moves is stopped and won by nobody (games whose
/// positions repeat, such as Quoridor, could otherwise be played at random for ever).
pub const PLAYOUT_LIMIT: usize = 1000;

/// Draw one outcome of `m` by its probabilities (no number is drawn when there is one).
pub fn draw(rng: &mut Rng, m: &Move) -> Pos {
    if let [(_, next)] = m.outcomes[..] {
        return next;
    }
    let mut u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    for &(p, next) in &m.outcomes {
        if u < p {
            return next;
        }
        u -= p;
    }
    m.outcomes.last().expect("a move has an outcome").1
}

/// The reward of each of `n` players when `winners` won.
pub fn rewards(n: usize, winners: &[usize]) -> Vec<f64> {
    if winners.is_empty() {
        return vec![1.0 / n as f64; n];
    }
    let mut r = vec![0.0; n];
    for &w in winners {
        if w < n {
            r[w] = 1.0;
        }
    }
    r
}

/// How a random game from `p` ended: the winners (none when stopped at the limit) and
/// the number of moves played ([`Rules::playout`], at most [`PLAYOUT_LIMIT`] moves).
pub fn playout(
    rng: &mut Rng,
    rules: &mut dyn Rules,
    p: Pos,
) -> Result<(Vec<usize>, usize), SolveError> {
    rules.playout(rng, p, PLAYOUT_LIMIT)
}

/// The statistics of one move at a tree node.
/// Inline for two players and for a move with one outcome (no allocation per move of a
/// node in a two-player game without chance).
struct Arm {
    visits: u32,
    /// Total reward of each player over the simulations through this move.
    reward: SmallVec<[f64; 2]>,
    /// The positions reached after this move so far, with their tree nodes.
    children: SmallVec<[(Pos, usize); 1]>,
}

struct TreeNode {
    /// `None` when play is over here; then `over` holds the rewards.
    turn: Option<Turn>,
    over: Vec<f64>,
    visits: u32,
    arms: Vec<Arm>,
    /// Moves not tried yet, and the tried ones in the order they were first tried.
    untried: Vec<usize>,
    tried: Vec<usize>,
}

pub struct Mcts {
    simulations: u32,
    rng: Rng,
}

impl Mcts {
    pub fn new(simulations: u32, rng: Rng) -> Mcts {
        Mcts { simulations, rng }
    }
}

/// One decision's tree.
struct Search {
    players: usize,
    nodes: Vec<TreeNode>,
    /// The (node, move) pairs of the current simulation (kept to reuse its allocation).
    path: Vec<(usize, usize)>,
}

impl Search {
    fn add(&mut self, node: Node) -> usize {
        let n = self.players;
        let t = match node {
            Node::Over { winners } => TreeNode {
                turn: None,
                over: rewards(n, &winners),
                visits: 0,
                arms: Vec::new(),
                untried: Vec::new(),
                tried: Vec::new(),
            },
            Node::Turn(turn) => TreeNode {
                arms: (0..turn.moves.len())
                    .map(|_| Arm {
                        visits: 0,
                        reward: smallvec::smallvec![0.0; n],
                        children: SmallVec::new(),
                    })
                    .collect(),
                untried: (0..turn.moves.len()).collect(),
                tried: Vec::new(),
                turn: Some(turn),
                over: Vec::new(),
                visits: 0,
            },
        };
        self.nodes.push(t);
        self.nodes.len() - 1
    }

    /// UCT for the player to move at `n` among its tried moves (the first best, in the
    /// order they were tried).
    fn uct(&self, n: usize, player: usize) -> usize {
        let node = &self.nodes[n];
        let ln = (node.visits.max(1) as f64).ln();
        let score = |a: &Arm| {
            let v = a.visits as f64;
            a.reward[player] / v + EXPLORATION * (ln / v).sqrt()
        };
        let mut best = node.tried[0];
        let mut best_score = score(&node.arms[best]);
        for &i in &node.tried[1..] {
            let s = score(&node.arms[i]);
            if s > best_score {
                (best, best_score) = (i, s);
            }
        }
        best
    }

    /// One simulation from the root.
    fn simulate(&mut self, rules: &mut dyn Rules, rng: &mut Rng) -> Result<(), SolveError> {
        let mut path = std::mem::take(&mut self.path);
        path.clear();
        let mut n = 0;
        let result = loop {
            let Some(turn) = &self.nodes[n].turn else {
                break self.nodes[n].over.clone();
            };
            let player = turn.player;
            // An untried move first (at random), else the best by UCT.
            let (arm, fresh) = if self.nodes[n].untried.is_empty() {
                (self.uct(n, player), false)
            } else {
                let node = &mut self.nodes[n];
                let k = rng.below(node.untried.len());
                let a = node.untried.swap_remove(k);
                node.tried.push(a);
                (a, true)
            };
            let next = draw(
                rng,
                &self.nodes[n].turn.as_ref().expect("a turn").moves[arm],
            );
            path.push((n, arm));
            let known = self.nodes[n].arms[arm]
                .children
                .iter()
                .find(|(q, _)| *q == next)
                .map(|&(_, c)| c);
            match known {
                Some(c) if !fresh => n = c,
                _ => {
                    // A position new to the tree: added, then played out at random.
                    let node = rules.node(next)?;
                    let c = self.add(node);
                    self.nodes[n].arms[arm].children.push((next, c));
                    path.push((c, usize::MAX));
                    break match &self.nodes[c].turn {
                        None => self.nodes[c].over.clone(),
                        Some(_) => rewards(self.players, &playout(rng, rules, next)?.0),
                    };
                }
            }
        };
        for &(node, arm) in &path {
            let t = &mut self.nodes[node];
            t.visits += 1;
            if arm != usize::MAX {
                let a = &mut t.arms[arm];
                a.visits += 1;
                for (total, r) in a.reward.iter_mut().zip(&result) {
                    *total += r;
                }
            }
        }
        self.path = path;
        Ok(())
    }
}

impl Agent for Mcts {
    fn choose(&mut self, rules: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        if turn.moves.len() == 1 {
            return Ok(0);
        }
        let mut search = Search {
            players: rules.players().len(),
            nodes: Vec::new(),
            path: Vec::new(),
        };
        search.add(Node::Turn(turn.clone()));
        for _ in 0..self.simulations {
            search.simulate(rules, &mut self.rng)?;
        }
        // The most tried move (the first among equals, in the order of the moves).
        let arms = &search.nodes[0].arms;
        let mut best = 0;
        for (i, a) in arms.iter().enumerate() {
            if a.visits > arms[best].visits {
                best = i;
            }
        }
        Ok(best)
    }
}
