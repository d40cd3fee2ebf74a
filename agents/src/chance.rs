//! Chance games (`instance CHANCE{…}`, seed 002; crate `gamelang-chance`) behind the
//! agents' interface: [`ChanceRules`] makes any [`ChanceModel`] (any number of players,
//! options whose next state is drawn from a distribution) a [`Rules`], so every agent
//! plays chance games the way it plays the others: `random` and `semi-random` pick a
//! choice, `mcts:N` samples chance outcomes by their probabilities, `alphabeta:D` takes
//! their expectation, `exact` follows the chance solver's optimal winning probabilities.

use crate::arena::{self, Tally as MatchTally};
use crate::rng::Rng;
use crate::rules::{Move, Node, Pos, Rules, Turn};
use crate::spec::AgentSpec;
use gamelang_chance::engine::EngineModel;
use gamelang_chance::graph::explore;
use gamelang_chance::model::{ChanceError, ChanceModel, Node as ChanceNode, Opt};
use gamelang_chance::simulate::Tally;
use gamelang_chance::solve::{solve, Exactness, Options};
use gamelang_game::{is_interrupted, SolveError};
use gamelang_lang::program::{OpId, Pat};
use gamelang_runtime::error::{RuntimeError, RuntimeFailure};
use gamelang_runtime::{Engine, TermId};
use rustc_hash::FxHashMap;

/// How many states' expansions [`ChanceRules`] remembers before it forgets them all.
const REMEMBERED: usize = 200_000;
/// The most states `exact` explores to solve a chance game (by default).
pub const EXACT_STATES: usize = 1_000_000;

/// A chance game's failure as the agents report failures.
pub fn solve_error(e: ChanceError) -> SolveError {
    match e {
        ChanceError::Interrupted => SolveError::Runtime(RuntimeFailure {
            error: RuntimeError::Interrupted { term: TermId(0) },
            trace: Vec::new(),
            elided: 0,
        }),
        e => SolveError::Diagnosed(Box::new(e.into_diag())),
    }
}

/// An agents' failure on a chance game as the chance crate reports failures.
pub fn chance_error(e: SolveError) -> ChanceError {
    match e {
        e if is_interrupted(&e) => ChanceError::Interrupted,
        SolveError::Diagnosed(d) => ChanceError::Engine(d),
        SolveError::Game(m) => ChanceError::game(m),
        other => ChanceError::game(format!("{other:?}")),
    }
}

/// What the agents and a person's front end may ask of a chance model beyond
/// [`ChanceModel`]: the optional operators of its module (`randomizable`, `eval`,
/// `goal-distance`), how to draw a state, the events behind an outcome, and the engine
/// that reads typed terms. A model with none of them (a test's) implements it with the
/// defaults: `impl Backing for MyModel {}`.
pub trait Backing {
    /// The state as the game draws it (its `display`), if it has one.
    fn draw(&mut self, s: TermId) -> Option<String> {
        let _ = s;
        None
    }
    fn engine(&mut self) -> Option<&mut Engine> {
        None
    }
    /// The events after `choice` at `s` that lead to `next`, as text (for showing a roll).
    fn events_to(
        &mut self,
        choice: TermId,
        s: TermId,
        next: TermId,
    ) -> Result<Vec<String>, ChanceError> {
        let _ = (choice, s, next);
        Ok(Vec::new())
    }
    /// The game module's optional `randomizable : Player State -> Set{Choice}` for the
    /// player to move at `s`: the choices a random player may take without making the game
    /// go on for ever; `None` when the game declares none.
    fn randomizable(&mut self, s: TermId) -> Result<Option<Vec<TermId>>, ChanceError> {
        let _ = s;
        Ok(None)
    }
    /// An optional integer operator of the game's module, `name : Player State -> Int`
    /// (`eval`, `goal-distance`), applied to player `player` and `s`; `None` when the game
    /// declares none.
    fn agent_int(
        &mut self,
        name: &str,
        player: usize,
        s: TermId,
    ) -> Result<Option<i64>, ChanceError> {
        let _ = (name, player, s);
        Ok(None)
    }
}

/// The operator `name : Player State -> …` of a chance game's module, if it declares one.
fn agent_op(model: &EngineModel, name: &str) -> Option<OpId> {
    let sig = &model.engine.program().sig;
    (0..sig.ops.len() as u32).map(OpId).find(|&o| {
        let i = sig.op(o);
        i.name == name
            && i.args.len() == 2
            && sig.same_kind(i.args[0], model.game.player_sort)
            && sig.same_kind(i.args[1], model.game.state_sort)
    })
}

impl Backing for EngineModel<'_> {
    fn randomizable(&mut self, s: TermId) -> Result<Option<Vec<TermId>>, ChanceError> {
        let Some(op) = agent_op(self, "randomizable") else {
            return Ok(None);
        };
        let p = self.call(&self.game.turn.clone(), &[s])?;
        let set = self.call(&Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]), &[p, s])?;
        Ok(Some(self.set_elements(set)))
    }

    fn events_to(
        &mut self,
        choice: TermId,
        s: TermId,
        next: TermId,
    ) -> Result<Vec<String>, ChanceError> {
        let game = self.game;
        let d = self.call(&game.events, &[choice, s])?;
        let op_named = |engine: &Engine, t: TermId, name: &str| {
            engine
                .store()
                .op(t)
                .filter(|&o| engine.program().sig.op(o).name == name)
        };
        let pairs = match op_named(self.engine, d, "_;_") {
            Some(op) => self.engine.elements(d, op),
            None => vec![d],
        };
        let mut out = Vec::new();
        for pair in pairs {
            if op_named(self.engine, pair, "_@_").is_none() {
                continue;
            }
            let e = self.engine.store().args(pair)[1];
            if self.call(&game.moves, &[e, choice, s])? == next {
                out.push(self.engine.show(e));
            }
        }
        Ok(out)
    }

    fn agent_int(
        &mut self,
        name: &str,
        player: usize,
        s: TermId,
    ) -> Result<Option<i64>, ChanceError> {
        let Some(op) = agent_op(self, name) else {
            return Ok(None);
        };
        let all = self.call(&self.game.players.clone(), &[])?;
        let Some(&p) = self.set_elements(all).get(player) else {
            return Ok(None);
        };
        let v = self.call(&Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]), &[p, s])?;
        match self.engine.store().int(v) {
            Some(i) => Ok(Some(i)),
            None => Err(ChanceError::game(format!(
                "`{name}` reduced to `{}`, which is not an integer",
                self.engine.show(v)
            ))),
        }
    }

    fn draw(&mut self, s: TermId) -> Option<String> {
        let display = self.game.display?;
        let v = self
            .call(&Pat::App(display, vec![Pat::Var(0)]), &[s])
            .ok()?;
        Some(string_value(self.engine, v))
    }

    fn engine(&mut self) -> Option<&mut Engine> {
        Some(self.engine)
    }
}

/// The text of a String value: literals joined by `++`.
fn string_value(engine: &Engine, t: TermId) -> String {
    let store = engine.store();
    match store.op(t) {
        Some(op) if engine.program().sig.op(op).name == "_++_" => store
            .args(t)
            .iter()
            .map(|&a| string_value(engine, a))
            .collect(),
        _ => match store.str_text(t) {
            Some(text) => String::from_utf8_lossy(text).into_owned(),
            None => engine.show(t),
        },
    }
}

/// A chance game's [`ChanceModel`] (states are terms) as the agents' [`Rules`]. A
/// position is a state ([`Pos::state`]).
pub struct ChanceRules<'m, M> {
    pub model: &'m mut M,
    players: Vec<String>,
    /// Expansions met so far (a state's turn and options cost several reductions).
    nodes: FxHashMap<TermId, Node>,
    /// Each state's optimal values, filled by the chance solver for `exact`.
    values: FxHashMap<TermId, Vec<f64>>,
    /// The most states `exact` explores ([`EXACT_STATES`] unless set).
    pub exact_states: usize,
}

impl<'m, M: ChanceModel<State = TermId, Choice = TermId> + Backing> ChanceRules<'m, M> {
    pub fn new(model: &'m mut M) -> Result<ChanceRules<'m, M>, SolveError> {
        let players = model.players().map_err(solve_error)?;
        Ok(ChanceRules {
            model,
            players,
            nodes: FxHashMap::default(),
            values: FxHashMap::default(),
            exact_states: EXACT_STATES,
        })
    }

    /// The game's start.
    pub fn start(&mut self) -> Result<Pos, SolveError> {
        self.model.start().map(Pos::state).map_err(solve_error)
    }
}

impl<M: ChanceModel<State = TermId, Choice = TermId> + Backing> Rules for ChanceRules<'_, M> {
    fn players(&self) -> Vec<String> {
        self.players.clone()
    }

    fn node(&mut self, p: Pos) -> Result<Node, SolveError> {
        if let Some(n) = self.nodes.get(&p.config) {
            return Ok(n.clone());
        }
        let node = match self.model.expand(p.config).map_err(solve_error)? {
            ChanceNode::Final { winners } => Node::Over { winners },
            ChanceNode::Turn { player, options } => Node::Turn(Turn {
                player,
                moves: options
                    .into_iter()
                    .map(|o: Opt<TermId, TermId>| {
                        let label = o.choice;
                        Move {
                            label,
                            outcomes: o
                                .outcomes_f64()
                                .into_iter()
                                .map(|(q, s)| (q, Pos::state(s)))
                                .collect(),
                        }
                    })
                    .collect(),
            }),
        };
        if self.nodes.len() >= REMEMBERED {
            self.nodes.clear();
        }
        self.nodes.insert(p.config, node.clone());
        Ok(node)
    }

    /// By the chance solver (max-n, each player's optimal probability of winning) on the
    /// states reachable from `p`, solved once and remembered for the states met later.
    fn values(&mut self, p: Pos) -> Result<Vec<f64>, SolveError> {
        if let Some(v) = self.values.get(&p.config) {
            return Ok(v.clone());
        }
        let mut from = From {
            model: &mut *self.model,
            start: p.config,
        };
        let limit = self.exact_states;
        let graph = explore(&mut from, false, limit).map_err(|e| match e {
            ChanceError::Game { message, .. } if message.contains("--max-states") => {
                SolveError::Game(format!(
                    "`exact` solves a chance game from the position it decides at and gave \
                     up: more than {limit} states are reachable from there; play this \
                     game with another agent (mcts:N, alphabeta:D)"
                ))
            }
            e => solve_error(e),
        })?;
        // Floating point is enough to choose a move, and much faster than exact rationals
        // on the cycles of a game like Pig.
        let options = Options {
            exactness: Exactness::Float,
            ..Options::default()
        };
        let solution = solve(&graph, &options).map_err(solve_error)?;
        let n = graph.n_players();
        for (i, &s) in graph.states.iter().enumerate() {
            self.values
                .insert(s, solution.all[i * n..(i + 1) * n].to_vec());
        }
        Ok(self.values[&p.config].clone())
    }

    /// The model's garbage collection ([`ChanceModel::collect`]: once the store has grown
    /// enough), keeping `keep`; the expansions and values remembered are forgotten when it
    /// collects, as the ids of the states they hold may be reused.
    fn tidy(&mut self, keep: &[TermId]) {
        let before = self.model.engine().map(|e| e.collections());
        self.model.collect(keep, &mut std::iter::empty());
        if self.model.engine().map(|e| e.collections()) != before {
            self.nodes.clear();
            self.values.clear();
        }
    }

    fn show(&self, t: TermId) -> String {
        self.model.show_state(t)
    }

    /// The game module's `eval : Player State -> Int`, for that player.
    fn eval(&mut self, p: Pos, player: usize) -> Result<Option<i64>, SolveError> {
        self.model
            .agent_int("eval", player, p.config)
            .map_err(solve_error)
    }

    /// The game module's `randomizable : Player State -> Set{Choice}`.
    fn randomizable(&mut self, p: Pos) -> Result<Option<Vec<TermId>>, SolveError> {
        self.model.randomizable(p.config).map_err(solve_error)
    }

    /// The game module's `goal-distance : Player State -> Int`.
    fn goal_distance(&mut self, player: usize, p: Pos) -> Result<Option<i64>, SolveError> {
        self.model
            .agent_int("goal-distance", player, p.config)
            .map_err(solve_error)
    }

    fn draw(&mut self, p: Pos) -> String {
        match self.model.draw(p.config) {
            Some(text) => text,
            None => self.model.show_state(p.config),
        }
    }

    fn engine(&mut self) -> Option<&mut Engine> {
        self.model.engine()
    }

    fn events_to(&mut self, p: Pos, label: TermId, next: Pos) -> Result<Vec<String>, SolveError> {
        self.model
            .events_to(label, p.config, next.config)
            .map_err(solve_error)
    }
}

/// A model started at another state (what `exact` solves from).
struct From<'a, M> {
    model: &'a mut M,
    start: TermId,
}

impl<M: ChanceModel<State = TermId, Choice = TermId>> ChanceModel for From<'_, M> {
    type State = TermId;
    type Choice = TermId;
    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        self.model.players()
    }
    fn start(&mut self) -> Result<TermId, ChanceError> {
        Ok(self.start)
    }
    fn expand(&mut self, s: TermId) -> Result<ChanceNode<TermId, TermId>, ChanceError> {
        self.model.expand(s)
    }
    fn score(&mut self, s: TermId) -> Result<Option<Vec<i64>>, ChanceError> {
        self.model.score(s)
    }
    fn show_state(&self, s: TermId) -> String {
        self.model.show_state(s)
    }
    fn show_choice(&self, c: &TermId) -> String {
        self.model.show_choice(c)
    }
    fn interrupted(&self) -> bool {
        self.model.interrupted()
    }
}

/// Play `games` games from the start, player i choosing as `specs[i]` (no rotation),
/// events drawn by their probabilities; the totals as `gamelang simulate` counts them.
/// Agent i's random stream is `Rng::derive(seed, i)`, the events' `Rng::derive(seed,
/// players)`. `max_moves` and `give_up` as in [`gamelang_chance::simulate::simulate`].
pub fn simulate<M: ChanceModel<State = TermId, Choice = TermId> + Backing>(
    model: &mut M,
    specs: &[AgentSpec],
    seed: u64,
    games: u64,
    max_moves: u64,
    give_up: bool,
) -> Result<Tally, ChanceError> {
    let mut rules = ChanceRules::new(model).map_err(chance_error)?;
    let players = rules.players();
    if specs.len() != players.len() {
        return Err(ChanceError::game(format!(
            "--agents names {} agent{} for {} players ({}): give one per player, in that order",
            specs.len(),
            if specs.len() == 1 { "" } else { "s" },
            players.len(),
            players.join(", ")
        )));
    }
    let mut agents: Vec<_> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| s.build(Rng::derive(seed, i as u64)))
        .collect();
    let mut events = Rng::derive(seed, players.len() as u64);
    let start = rules.start().map_err(chance_error)?;
    // Agent i plays player i: the first mover is the player to move at the start.
    let p0 = match rules.node(start).map_err(chance_error)? {
        Node::Turn(t) => t.player,
        Node::Over { .. } => 0,
    };
    let mut tally = MatchTally::new(players.len());
    let (mut interrupted, mut gave_up) = (false, false);
    for _ in 0..games {
        if rules.model.interrupted() {
            interrupted = true;
            break;
        }
        let rec = arena::play_game(
            &mut rules,
            start,
            &mut agents,
            p0,
            max_moves.min(usize::MAX as u64) as usize,
            &mut events,
            &mut |_, _, _, _, _| Ok(()),
        )
        .map_err(chance_error);
        match rec {
            Ok(rec) => {
                tally.add(&rec);
                if give_up && tally.games == 1 && tally.stopped == 1 {
                    gave_up = true;
                    break;
                }
            }
            // The game under way is not counted; the finished ones are the answer so far.
            Err(ChanceError::Interrupted) => {
                interrupted = true;
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Tally {
        players,
        games: tally.games as u64,
        wins: tally.wins.iter().map(|&w| w as u64).collect(),
        unfinished: tally.stopped as u64,
        total_moves: tally.plies as u64,
        interrupted,
        gave_up,
    })
}
