//! The explicit graph of a chance game: every state reachable from the start, numbered in
//! the order they were found (breadth first; the start is 0).

use crate::model::{ChanceError, ChanceModel, Node};
use crate::{Prob, Q};
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A final state; bit `i` of the mask is set when player `i` is among the winners.
    Final { winners: u64 },
    /// `player` chooses one of the options `opts[start..end]`.
    Turn { player: u32, start: u32, end: u32 },
}

#[derive(Clone, Debug)]
pub struct OptRec<C> {
    pub choice: C,
    /// Outcomes `outs[start..end]`.
    pub start: u32,
    pub end: u32,
}

pub struct Graph<S, C> {
    pub players: Vec<String>,
    pub states: Vec<S>,
    pub kind: Vec<Kind>,
    pub opts: Vec<OptRec<C>>,
    /// `(next state, index into probs)`.
    pub outs: Vec<(u32, u32)>,
    pub probs: Vec<Q>,
    pub probs_f: Vec<f64>,
    /// Points collected at each visit, `players.len()` per state (when the game scores).
    pub scores: Option<Vec<i64>>,
}

impl<S, C> Graph<S, C> {
    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    pub fn n_players(&self) -> usize {
        self.players.len()
    }

    /// The options of state `s` (empty for a final state), as indices into `opts`.
    pub fn options(&self, s: usize) -> std::ops::Range<usize> {
        match self.kind[s] {
            Kind::Final { .. } => 0..0,
            Kind::Turn { start, end, .. } => start as usize..end as usize,
        }
    }

    pub fn outcomes(&self, o: usize) -> &[(u32, u32)] {
        let r = &self.opts[o];
        &self.outs[r.start as usize..r.end as usize]
    }

    /// Does any option have more than one outcome (is there chance at all)?
    pub fn has_chance(&self) -> bool {
        (0..self.opts.len()).any(|o| self.outcomes(o).len() > 1)
    }
}

/// State numbers by state: an array by the model's dense index of a state where it has one
/// ([`ChanceModel::dense_index`]: one memory access per look-up, where a hash table of a
/// million states costs two cache misses), a hash table otherwise.
struct StateIndex<S> {
    dense: Vec<u32>,
    hashed: FxHashMap<S, u32>,
}

impl<S> Default for StateIndex<S> {
    fn default() -> Self {
        StateIndex {
            dense: Vec::new(),
            hashed: FxHashMap::default(),
        }
    }
}

/// In `StateIndex::dense`: no state.
const NO_STATE: u32 = u32::MAX;

impl<S: Copy + Eq + std::hash::Hash> StateIndex<S> {
    fn get<M: ChanceModel<State = S>>(&self, model: &M, s: S) -> Option<u32> {
        match model.dense_index(s) {
            Some(i) => self.dense.get(i).copied().filter(|&n| n != NO_STATE),
            None => self.hashed.get(&s).copied(),
        }
    }

    fn insert<M: ChanceModel<State = S>>(&mut self, model: &M, s: S, n: u32) {
        match model.dense_index(s) {
            Some(i) => {
                if i >= self.dense.len() {
                    self.dense
                        .resize((i + 1).max(2 * self.dense.len()), NO_STATE);
                }
                self.dense[i] = n;
            }
            None => {
                self.hashed.insert(s, n);
            }
        }
    }
}

/// Explore every state reachable from the model's start. `with_score` also asks the
/// model for each state's score. Fails past `max_states` states.
pub fn explore<M: ChanceModel>(
    model: &mut M,
    with_score: bool,
    max_states: usize,
) -> Result<Graph<M::State, M::Choice>, ChanceError> {
    let players = model.players()?;
    if players.len() > 64 {
        return Err(ChanceError::game(format!(
            "{} players: at most 64 are supported",
            players.len()
        )));
    }
    let start = model.start()?;
    let mut index = StateIndex::<M::State>::default();
    let mut prob_index: FxHashMap<Prob, u32> = FxHashMap::default();
    let mut g = Graph {
        players,
        states: vec![start],
        kind: Vec::new(),
        opts: Vec::new(),
        outs: Vec::new(),
        probs: Vec::new(),
        probs_f: Vec::new(),
        scores: None,
    };
    let mut scores = Vec::new();
    index.insert(model, start, 0);
    let mut next = 0usize;
    while next < g.states.len() {
        let s = g.states[next];
        next += 1;
        // The engine keeps every term it built (`final(s)`, `move(e, c, s)`, the numbers in
        // between): about 20 per state, most of the memory of a large game. Let it free
        // those the graph does not hold, now and then (it decides when it is worth it).
        if next.is_multiple_of(64) {
            model.collect(&g.states, &mut g.opts.iter().map(|o| &o.choice));
        }
        if with_score {
            match model.score(s)? {
                Some(v) => scores.extend(v),
                None => {
                    return Err(ChanceError::game(
                        "--value needs the game to define `score : Player State -> Int`",
                    ))
                }
            }
        }
        match model.expand(s)? {
            Node::Final { winners } => {
                let mask = winners.iter().fold(0u64, |m, &w| m | (1u64 << w));
                g.kind.push(Kind::Final { winners: mask });
            }
            Node::Turn { player, options } => {
                let start_o = g.opts.len() as u32;
                for o in options {
                    let start_e = g.outs.len() as u32;
                    for (q, t) in o.outcomes {
                        let id = match index.get(model, t) {
                            Some(i) => i,
                            None => {
                                if g.states.len() >= max_states {
                                    return Err(ChanceError::game(format!(
                                        "more than {max_states} states (raise --max-states)"
                                    )));
                                }
                                let i = g.states.len() as u32;
                                g.states.push(t);
                                index.insert(model, t, i);
                                i
                            }
                        };
                        let pi = match prob_index.get(&q) {
                            Some(&i) => i,
                            None => {
                                let i = g.probs.len() as u32;
                                g.probs_f.push(q.to_f64());
                                g.probs.push(q.to_q());
                                prob_index.insert(q, i);
                                i
                            }
                        };
                        g.outs.push((id, pi));
                    }
                    g.opts.push(crate::graph::OptRec {
                        choice: o.choice,
                        start: start_e,
                        end: g.outs.len() as u32,
                    });
                }
                g.kind.push(Kind::Turn {
                    player: player as u32,
                    start: start_o,
                    end: g.opts.len() as u32,
                });
            }
        }
    }
    if with_score {
        g.scores = Some(scores);
    }
    Ok(g)
}

/// Strongly connected components, each listed once, in reverse topological order (a
/// component comes after every component it can reach). Iterative Tarjan.
pub fn sccs<S, C>(g: &Graph<S, C>) -> Vec<Vec<u32>> {
    let n = g.len();
    // The successors of `v`: every outcome of every option, as a range of `outs` (the
    // options of a state are consecutive, and so are their outcomes). A successor listed
    // twice is looked at twice, which Tarjan's algorithm does not mind; not building a
    // deduplicated list per state saves an allocation per state (a second on three-seat
    // Snakes and Ladders).
    // The ranges are computed once, in one pass in state order: the search then reads 8 bytes per state it
    // enters instead of the state's `Kind` and its first and last option, three scattered
    // reads (Tarjan's time on three-seat Snakes and Ladders, 1.4 M states, ~0.56 -> ~0.40 s).
    let bounds: Vec<(u32, u32)> = (0..n)
        .map(|v| {
            let r = g.options(v);
            if r.is_empty() {
                (0, 0)
            } else {
                (g.opts[r.start].start, g.opts[r.end - 1].end)
            }
        })
        .collect();
    let succ = |v: usize| -> (u32, u32) { bounds[v] };
    // Per state its index in the order of the search and its low link, side by side (one
    // cache line per look at a neighbour, in a graph of a million states); a state
    // assigned to a component has its low link set to DONE, which is how "not on the
    // stack" is told.
    const UNSEEN: u32 = u32::MAX;
    const DONE: u32 = u32::MAX;
    let mut node: Vec<[u32; 2]> = vec![[UNSEEN, 0]; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let mut counter = 0u32;
    // (vertex, next successor to look at, end of its successors) in `g.outs`
    let mut call: Vec<(u32, u32, u32)> = Vec::new();
    for root in 0..n {
        if node[root][0] != UNSEEN {
            continue;
        }
        node[root] = [counter, counter];
        counter += 1;
        stack.push(root as u32);
        let (a, b) = succ(root);
        call.push((root as u32, a, b));
        while let Some(frame) = call.last_mut() {
            let v = frame.0 as usize;
            if frame.1 < frame.2 {
                let w = g.outs[frame.1 as usize].0 as usize;
                frame.1 += 1;
                let [wi, wl] = node[w];
                if wi == UNSEEN {
                    node[w] = [counter, counter];
                    counter += 1;
                    stack.push(w as u32);
                    let (a, b) = succ(w);
                    call.push((w as u32, a, b));
                } else if wl != DONE {
                    node[v][1] = node[v][1].min(wi);
                }
                continue;
            }
            call.pop();
            let [vi, vl] = node[v];
            if let Some(parent) = call.last() {
                let p = parent.0 as usize;
                node[p][1] = node[p][1].min(vl);
            }
            if vl == vi {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("on the stack");
                    node[w as usize][1] = DONE;
                    comp.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}
