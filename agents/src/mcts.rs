//! Monte Carlo tree search (seed 004 §1.3) on any game of the agents' interface: N
//! simulations, each of selection by UCT, expansion of one untried move, one random
//! playout to the end of the game, and back-propagation of its result. The move played is
//! the root's most tried.
//!
//! - A tree node is a position; under it each move keeps its own statistics (visits, and
//!   the total reward of every player) and the positions reached after it so far: one in a
//!   game without chance; in a chance game a chance node whose children appear as they are
//!   drawn, by the move's probabilities, from the agent's random stream.
//! - Expansion: a new node's moves are built at once ([`Rules::node`]), or, when the game
//!   tries its moves one at a time ([`Rules::open`]: its `candidates`), found as the
//!   search needs them: an untried move is a candidate drawn at random and tried, drawn
//!   again while the rules refuse it, which picks uniformly among the legal moves as
//!   drawing among built moves does, without building the moves never tried.
//! - Selection: the player to move takes an untried move (at random), else the move of
//!   best UCT value for itself (max-n: each player maximises its own reward, so any number
//!   of players works; with two players and rewards summing to 1 this is the usual UCT).
//! - Rewards: 1 to each winner and 0 to the others; a game won by nobody (a draw, or a
//!   playout stopped after [`PLAYOUT_LIMIT`] moves) gives each of the n players 1/n.

use crate::agent::Agent;
use crate::rng::Rng;
use crate::rules::{Move, Node, Opened, Pos, Rules, Turn};
use gamelang_game::SolveError;
use gamelang_runtime::TermId;
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

impl Arm {
    fn new(players: usize) -> Arm {
        Arm {
            visits: 0,
            reward: smallvec::smallvec![0.0; players],
            children: SmallVec::new(),
        }
    }
}

struct TreeNode {
    /// Where the node is.
    pos: Pos,
    /// `None` when play is over here; then `over` holds the rewards. The moves found so
    /// far when `pending` is not empty.
    turn: Option<Turn>,
    /// Candidates not tried yet ([`Opened::Candidates`]).
    pending: Vec<TermId>,
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
    fn add(&mut self, node: Opened, pos: Pos) -> usize {
        let t = self.tree_node(node, pos);
        self.nodes.push(t);
        self.nodes.len() - 1
    }

    fn tree_node(&self, node: Opened, pos: Pos) -> TreeNode {
        let n = self.players;
        let mut t = TreeNode {
            pos,
            turn: None,
            pending: Vec::new(),
            over: Vec::new(),
            visits: 0,
            arms: Vec::new(),
            untried: Vec::new(),
            tried: Vec::new(),
        };
        match node {
            Opened::Node(Node::Over { winners }) => t.over = rewards(n, &winners),
            Opened::Node(Node::Turn(turn)) => {
                t.arms = (0..turn.moves.len()).map(|_| Arm::new(n)).collect();
                t.untried = (0..turn.moves.len()).collect();
                t.turn = Some(turn);
            }
            Opened::Candidates { player, candidates } => {
                t.turn = Some(Turn {
                    player,
                    moves: Vec::new(),
                });
                t.pending = candidates;
            }
        }
        t
    }

    /// A move of node `n` found among its pending candidates (drawn at random, tried,
    /// drawn again while refused), added as a tried move; `None` when none is left. A node
    /// none of whose candidates is legal gets the game's moves ([`Rules::node`]: a pass,
    /// or the end).
    fn try_pending(
        &mut self,
        rules: &mut dyn Rules,
        rng: &mut Rng,
        n: usize,
    ) -> Result<Option<usize>, SolveError> {
        let pos = self.nodes[n].pos;
        while !self.nodes[n].pending.is_empty() {
            let pending = &mut self.nodes[n].pending;
            let c = pending.swap_remove(rng.below(pending.len()));
            if let Some(m) = rules.try_candidate(pos, c)? {
                let arm = Arm::new(self.players);
                let node = &mut self.nodes[n];
                node.turn.as_mut().expect("a turn").moves.push(m);
                node.arms.push(arm);
                node.tried.push(node.arms.len() - 1);
                return Ok(Some(node.arms.len() - 1));
            }
        }
        if self.nodes[n].arms.is_empty() {
            let node = rules.node(pos)?;
            let mut t = self.tree_node(Opened::Node(node), pos);
            t.visits = self.nodes[n].visits;
            self.nodes[n] = t;
        }
        Ok(None)
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
            let node = &self.nodes[n];
            // An untried move first (at random), else the best by UCT.
            let (arm, fresh) = if !node.untried.is_empty() {
                let node = &mut self.nodes[n];
                let k = rng.below(node.untried.len());
                let a = node.untried.swap_remove(k);
                node.tried.push(a);
                (a, true)
            } else if !node.pending.is_empty() || node.tried.is_empty() {
                match self.try_pending(rules, rng, n)? {
                    Some(a) => (a, true),
                    // No candidate left: UCT among the moves found, or the node's moves
                    // were built (a pass, or the end).
                    None => continue,
                }
            } else {
                (self.uct(n, player), false)
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
                    let node = rules.open(next)?;
                    let c = self.add(node, next);
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
    fn choose(
        &mut self,
        rules: &mut dyn Rules,
        root: Pos,
        turn: &Turn,
    ) -> Result<usize, SolveError> {
        if turn.moves.len() == 1 {
            return Ok(0);
        }
        let mut search = Search {
            players: rules.players().len(),
            nodes: Vec::new(),
            path: Vec::new(),
        };
        search.add(Opened::Node(Node::Turn(turn.clone())), root);
        for _ in 0..self.simulations {
            search.simulate(rules, &mut self.rng)?;
        }
        // The most tried move; among equally tried ones the best on average for the
        // player to move (with fewer simulations than moves, each move is tried once or
        // not at all), then one at random. Taking the first in the order of the moves
        // made `mcts:9` open tic-tac-toe in the same corner whatever its playouts said.
        let arms = &search.nodes[0].arms;
        let me = turn.player;
        let key = |a: &Arm| (a.visits, a.reward[me] / a.visits.max(1) as f64);
        let top = arms
            .iter()
            .map(key)
            .fold((0, f64::NEG_INFINITY), |m, k| if k > m { k } else { m });
        let best: Vec<usize> = (0..arms.len()).filter(|&i| key(&arms[i]) == top).collect();
        Ok(match best[..] {
            [one] => one,
            _ => best[self.rng.below(best.len())],
        })
    }
}

#[cfg(test)]
mod tests {
    //! MCTS with moves found one candidate at a time ([`Opened::Candidates`]) against
    //! the same game with every move built: a subtraction game (take 1, 2 or 3 counters;
    //! whoever takes the last wins) in which candidate 4 is always refused and, at 5
    //! counters, every candidate is refused and the one move is to 4 (found by
    //! [`Rules::node`] only). Who wins is computed here by exhaustive search.
    use super::*;
    use crate::rules::index;
    use gamelang_game::Side;

    struct Take {
        lazy: bool,
        tried: usize,
        fallbacks: usize,
    }

    fn counters(p: Pos) -> u32 {
        p.config.0
    }

    fn to(p: Pos, k: u32) -> Move {
        Move::sure(TermId(k), p.after(TermId(k)))
    }

    impl Rules for Take {
        fn players(&self) -> Vec<String> {
            vec!["B".into(), "R".into()]
        }
        fn node(&mut self, p: Pos) -> Result<Node, SolveError> {
            let k = counters(p);
            Ok(match k {
                0 => Node::Over {
                    winners: vec![index(p.to_move.opponent())],
                },
                5 => {
                    self.fallbacks += 1;
                    Node::Turn(Turn {
                        player: index(p.to_move),
                        moves: vec![to(p, 4)],
                    })
                }
                _ => Node::Turn(Turn {
                    player: index(p.to_move),
                    moves: (1..=3.min(k)).map(|c| to(p, k - c)).collect(),
                }),
            })
        }
        fn open(&mut self, p: Pos) -> Result<Opened, SolveError> {
            if !self.lazy || counters(p) == 0 {
                return Ok(Opened::Node(self.node(p)?));
            }
            Ok(Opened::Candidates {
                player: index(p.to_move),
                candidates: (1..=4).map(TermId).collect(),
            })
        }
        fn try_candidate(&mut self, p: Pos, c: TermId) -> Result<Option<Move>, SolveError> {
            self.tried += 1;
            let k = counters(p);
            Ok((k != 5 && c.0 <= 3 && c.0 <= k).then(|| to(p, k - c.0)))
        }
        fn values(&mut self, _: Pos) -> Result<Vec<f64>, SolveError> {
            Ok(vec![0.5, 0.5])
        }
        fn show(&self, t: TermId) -> String {
            t.0.to_string()
        }
    }

    /// Does the player to move with `k` counters win (exhaustive search)?
    fn wins(k: u32) -> bool {
        match k {
            0 => false,
            5 => !wins(4),
            _ => (1..=3.min(k)).any(|c| !wins(k - c)),
        }
    }

    #[test]
    fn moves_found_by_candidates_give_winning_decisions() {
        let mut winning = 0;
        for k in 6..=11 {
            for seed in 0..3 {
                for lazy in [false, true] {
                    let mut rules = Take {
                        lazy,
                        tried: 0,
                        fallbacks: 0,
                    };
                    let p = Pos {
                        to_move: Side::B,
                        config: TermId(k),
                    };
                    let Node::Turn(turn) = rules.node(p).unwrap() else {
                        panic!("{k} counters: over")
                    };
                    let mut mcts = Mcts::new(3000, Rng::new(seed));
                    let i = mcts.choose(&mut rules, p, &turn).unwrap();
                    let left = counters(turn.moves[i].outcomes[0].1);
                    if wins(k) {
                        assert!(
                            !wins(left),
                            "{k} counters (lazy {lazy}, seed {seed}): took to {left}"
                        );
                        winning += 1;
                    }
                    assert_eq!(rules.tried > 0, lazy);
                    if lazy {
                        assert!(rules.fallbacks > 0, "the refused node 5 was never met");
                    }
                }
            }
        }
        // 6, 7, 9, 10, 11 counters are won (8 is lost): 5 positions, 3 seeds, both ways.
        assert_eq!(winning, 30);
    }
}
