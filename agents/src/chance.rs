//! Agents on chance games (`instance CHANCE{…}`, seed 002; crate `gamelang-chance`): any
//! number of players, each choosing among options whose next state is drawn from a
//! distribution. `random` picks an option uniformly; `mcts:N` is Monte Carlo tree search
//! with chance positions sampled by their probabilities:
//!
//! - a tree node is a state; below it, each option keeps its own statistics and the states
//!   drawn after it so far (a chance node, whose children appear as they are sampled);
//! - selection: at a state, the player to move takes an untried option, else the option of
//!   best UCT value for itself (max-n: every player maximises its own reward), and the next
//!   state is drawn from that option's distribution;
//! - a state met for the first time is expanded and played out at random to the end;
//! - the reward is 1 for each winner and 0 for the others, added along the path to each
//!   option's statistics; the option played is the root's most tried.

use crate::rng::Rng;
use crate::spec::AgentSpec;
use gamelang_chance::model::{ChanceError, ChanceModel, Node, Opt};
use gamelang_chance::simulate::Tally;
use rustc_hash::FxHashMap;

/// UCT's exploration constant, as for the other games.
const EXPLORATION: f64 = crate::mcts::EXPLORATION;

/// A playout still going after this many moves ends with no winner.
const PLAYOUT_LIMIT: usize = 10_000;

/// A state as an agent keeps it: final with its winners, or the player to move and each
/// option's outcomes with probabilities as floating-point numbers.
#[derive(Clone)]
enum Expanded<S> {
    Final(Vec<usize>),
    Turn {
        player: usize,
        options: Vec<Vec<(f64, S)>>,
    },
}

fn expand<M: ChanceModel>(model: &mut M, s: M::State) -> Result<Expanded<M::State>, ChanceError> {
    Ok(match model.expand(s)? {
        Node::Final { winners } => Expanded::Final(winners),
        Node::Turn { player, options } => Expanded::Turn {
            player,
            options: options.into_iter().map(Opt::outcomes_f64).collect(),
        },
    })
}

/// Draw a next state from `outcomes` by its probabilities.
fn draw<S: Copy>(rng: &mut Rng, outcomes: &[(f64, S)]) -> S {
    let mut u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    for &(p, t) in outcomes {
        if u < p {
            return t;
        }
        u -= p;
    }
    outcomes.last().expect("an option has an outcome").1
}

/// An agent for a chance game.
pub enum ChanceAgent {
    Random(Rng),
    Mcts { simulations: u32, rng: Rng },
}

impl ChanceAgent {
    /// The agent of `spec`; only `random` and `mcts:N` play chance games so far.
    pub fn new(spec: AgentSpec, rng: Rng) -> Result<ChanceAgent, String> {
        match spec {
            AgentSpec::Random => Ok(ChanceAgent::Random(rng)),
            AgentSpec::Mcts { simulations } => Ok(ChanceAgent::Mcts { simulations, rng }),
            other => Err(format!(
                "`{other}` does not play chance games yet: use `random` or `mcts:N`"
            )),
        }
    }

    /// The index of the option to take at `s`, where `player` chooses among `options`.
    fn choose<M: ChanceModel>(
        &mut self,
        model: &mut M,
        s: M::State,
        options: usize,
        players: usize,
    ) -> Result<usize, ChanceError> {
        match self {
            ChanceAgent::Random(rng) => Ok(rng.below(options)),
            ChanceAgent::Mcts { simulations, rng } => {
                if options == 1 {
                    return Ok(0);
                }
                Search::new(players).run(model, rng, s, *simulations)
            }
        }
    }
}

/// The statistics of one option at a tree node.
struct Arm<S> {
    visits: u32,
    /// Total reward of each player over the simulations through this option.
    reward: Vec<f64>,
    /// The states drawn after this option so far, with their tree nodes.
    children: Vec<(S, usize)>,
}

struct TreeNode<S> {
    state: Expanded<S>,
    visits: u32,
    arms: Vec<Arm<S>>,
}

/// One MCTS decision's tree.
struct Search<S> {
    players: usize,
    nodes: Vec<TreeNode<S>>,
}

impl<S: Copy + Eq + std::hash::Hash> Search<S> {
    fn new(players: usize) -> Search<S> {
        Search {
            players,
            nodes: Vec::new(),
        }
    }

    fn add<M: ChanceModel<State = S>>(
        &mut self,
        model: &mut M,
        s: S,
    ) -> Result<usize, ChanceError> {
        let state = expand(model, s)?;
        let arms = match &state {
            Expanded::Final(_) => Vec::new(),
            Expanded::Turn { options, .. } => options
                .iter()
                .map(|_| Arm {
                    visits: 0,
                    reward: vec![0.0; self.players],
                    children: Vec::new(),
                })
                .collect(),
        };
        self.nodes.push(TreeNode {
            state,
            visits: 0,
            arms,
        });
        Ok(self.nodes.len() - 1)
    }

    /// The reward vector of a game that ended with `winners`.
    fn reward(&self, winners: &[usize]) -> Vec<f64> {
        let mut r = vec![0.0; self.players];
        for &w in winners {
            if w < r.len() {
                r[w] = 1.0;
            }
        }
        r
    }

    /// Random play from `s` to the end (expansions remembered for this decision).
    fn playout<M: ChanceModel<State = S>>(
        &self,
        model: &mut M,
        rng: &mut Rng,
        cache: &mut FxHashMap<S, Expanded<S>>,
        mut s: S,
    ) -> Result<Vec<f64>, ChanceError> {
        for _ in 0..PLAYOUT_LIMIT {
            if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(s) {
                slot.insert(expand(model, s)?);
            }
            match &cache[&s] {
                Expanded::Final(w) => return Ok(self.reward(w)),
                Expanded::Turn { options, .. } => {
                    let o = &options[rng.below(options.len())];
                    s = draw(rng, o);
                }
            }
        }
        Ok(vec![0.0; self.players])
    }

    fn run<M: ChanceModel<State = S>>(
        mut self,
        model: &mut M,
        rng: &mut Rng,
        root: S,
        simulations: u32,
    ) -> Result<usize, ChanceError> {
        let mut cache: FxHashMap<S, Expanded<S>> = FxHashMap::default();
        self.add(model, root)?;
        for _ in 0..simulations {
            if model.interrupted() {
                return Err(ChanceError::Interrupted);
            }
            // Selection and expansion: (node, option) pairs down the tree.
            let mut path: Vec<(usize, usize)> = Vec::new();
            let mut n = 0;
            let result = loop {
                let arm = match &self.nodes[n].state {
                    Expanded::Final(w) => break self.reward(w),
                    Expanded::Turn { player, .. } => self.select(n, *player, rng),
                };
                let next = match &self.nodes[n].state {
                    Expanded::Turn { options, .. } => draw(rng, &options[arm]),
                    Expanded::Final(_) => unreachable!("a final state has no options"),
                };
                path.push((n, arm));
                let known = self.nodes[n].arms[arm]
                    .children
                    .iter()
                    .find(|(t, _)| *t == next)
                    .map(|&(_, c)| c);
                match known {
                    Some(c) => n = c,
                    None => {
                        let c = self.add(model, next)?;
                        self.nodes[n].arms[arm].children.push((next, c));
                        break match &self.nodes[c].state {
                            Expanded::Final(w) => self.reward(w),
                            Expanded::Turn { .. } => {
                                self.nodes[c].visits += 1;
                                self.playout(model, rng, &mut cache, next)?
                            }
                        };
                    }
                }
            };
            for (node, arm) in path {
                let a = &mut self.nodes[node].arms[arm];
                a.visits += 1;
                for (total, r) in a.reward.iter_mut().zip(&result) {
                    *total += r;
                }
                self.nodes[node].visits += 1;
            }
        }
        // The most tried option (the first among equals).
        let arms = &self.nodes[0].arms;
        let mut best = 0;
        for (i, a) in arms.iter().enumerate() {
            if a.visits > arms[best].visits {
                best = i;
            }
        }
        Ok(best)
    }

    /// UCT for `player` at node `n`: an untried option first (at random), else the best.
    fn select(&self, n: usize, player: usize, rng: &mut Rng) -> usize {
        let node = &self.nodes[n];
        let untried: Vec<usize> = (0..node.arms.len())
            .filter(|&i| node.arms[i].visits == 0)
            .collect();
        if !untried.is_empty() {
            return untried[rng.below(untried.len())];
        }
        let ln = (node.visits.max(1) as f64).ln();
        let score = |a: &Arm<S>| {
            let v = a.visits as f64;
            a.reward.get(player).copied().unwrap_or(0.0) / v + EXPLORATION * (ln / v).sqrt()
        };
        let mut best = 0;
        for i in 1..node.arms.len() {
            if score(&node.arms[i]) > score(&node.arms[best]) {
                best = i;
            }
        }
        best
    }
}

/// Play `games` games from the start, player i choosing as `agents[i]`, events drawn by
/// their probabilities; the totals as `gamelang simulate` counts them. Agent i's random
/// stream is `Rng::derive(seed, i)`, the events' `Rng::derive(seed, players)`.
pub fn simulate<M: ChanceModel>(
    model: &mut M,
    specs: &[AgentSpec],
    seed: u64,
    games: u64,
    max_moves: u64,
) -> Result<Tally, ChanceError> {
    let players = model.players()?;
    if specs.len() != players.len() {
        return Err(ChanceError::game(format!(
            "--agents names {} agent{} for {} players ({}): give one per player, in that order",
            specs.len(),
            if specs.len() == 1 { "" } else { "s" },
            players.len(),
            players.join(", ")
        )));
    }
    let mut agents = Vec::with_capacity(specs.len());
    for (i, &spec) in specs.iter().enumerate() {
        agents
            .push(ChanceAgent::new(spec, Rng::derive(seed, i as u64)).map_err(ChanceError::game)?);
    }
    let mut events = Rng::derive(seed, players.len() as u64);
    let start = model.start()?;
    let mut tally = Tally {
        wins: vec![0; players.len()],
        players,
        games: 0,
        unfinished: 0,
        total_moves: 0,
    };
    let n = tally.players.len();
    for _ in 0..games {
        let mut s = start;
        let mut moves = 0u64;
        loop {
            if model.interrupted() {
                return Err(ChanceError::Interrupted);
            }
            match expand(model, s)? {
                Expanded::Final(winners) => {
                    for w in winners {
                        tally.wins[w] += 1;
                    }
                    break;
                }
                Expanded::Turn { player, options } => {
                    if moves >= max_moves {
                        tally.unfinished += 1;
                        break;
                    }
                    let i = agents[player].choose(model, s, options.len(), n)?;
                    s = draw(&mut events, &options[i]);
                    moves += 1;
                }
            }
        }
        tally.total_moves += moves;
        tally.games += 1;
    }
    Ok(tally)
}
