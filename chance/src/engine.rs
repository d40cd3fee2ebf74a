//! [`ChanceModel`] over the rewriting engine: a `.game` file's chance game, its operators
//! reduced by the engine. Every rule of chance games is checked here, on the values the
//! game's operators produce, and reported with where the operator is declared.

use crate::model::{ChanceError, ChanceModel, Node, Opt};
use crate::statefree::{Key, StateFree};
use crate::Prob;
use gamelang_game::{diagnose, SolveError};
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::program::{OpId, Pat};
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;
use rustc_hash::FxHashMap;
use std::rc::Rc;
use std::sync::atomic::Ordering;

pub struct EngineModel<'a> {
    pub engine: &'a mut Engine,
    pub game: &'a ChanceGame,
    start: Option<Pat>,
    players: Vec<TermId>,
    player_index: FxHashMap<TermId, usize>,
    truth: TermId,
    falsity: TermId,
    /// Probabilities met so far, by numerator and denominator as written.
    probs: FxHashMap<(i64, i64), Prob>,
    /// Terms in the store after the last garbage collection.
    live: usize,
    /// Exploring collects the term store's garbage once it holds at least this many terms
    /// (and twice as many as after the last collection). A million by default; tests set it
    /// low to collect often.
    pub collect_min_terms: usize,
    /// Build each question (`move(e, c, s)`, …) as a term, so that the engine remembers
    /// its answer for when the same state is asked about again: for agents' playouts. Off
    /// for exploring, which asks about each state once (and then remembering twelve
    /// answers per state cost most of the time: Pig 100 explored in 10.1 s with, 3.8 s
    /// without).
    pub remember: bool,
    /// The last distributions read and checked (at most `DISTS`), by their terms, with
    /// the engine's count of garbage collections when they were read (a collection may
    /// give a term's number to another term): most games give one of a few distributions
    /// at every state (a die; Pig's roll and hold), so each is read once (and shared, not
    /// copied, with each state that asks).
    dists: Vec<(TermId, Rc<Outcomes>)>,
    dists_gc: u64,
    /// Per question (`FINAL`, …), the part of the state its answer can depend on
    /// ([`StateFree`]), if not the whole: such a question is reduced once per value of
    /// that part and of its other arguments (a `move` that copies the rest of the state
    /// into its answer has the copies replaced by each state's own).
    free: [Option<StateFree>; QUESTIONS],
    /// The answers of those questions, by [`StateFree::key`], with the engine's count of
    /// garbage collections when they were recorded (a collection may give a number in a
    /// key or an answer to another term: the table is then emptied).
    answers: FxHashMap<Key, TermId>,
    answers_gc: u64,
    /// Per question, how often it was looked up and found since the last check.
    sharing: [(u64, u64); QUESTIONS],
    /// Share the answers of questions that depend on part of the state only (on by
    /// default; tests turn it off to compare).
    pub share_state_free: bool,
}

/// The questions exploring asks, as indices into `EngineModel::free`.
const FINAL: usize = 0;
const WINNER: usize = 1;
const TURN: usize = 2;
const CHOICES: usize = 3;
const EVENTS: usize = 4;
const MOVE: usize = 5;
const SCORE: usize = 6;
const QUESTIONS: usize = 7;

/// A shared question is checked after this many look-ups: it stays shared if at least one
/// in three found its answer (a hit saves a reduction, 1,000 to 3,000 instructions; a miss
/// costs a look-up and an entry, a cache miss or two in a large table).
const SHARING_WINDOW: u64 = 1 << 14;

/// At most this many answers are remembered (40 bytes or so each).
const MAX_ANSWERS: usize = 1 << 21;

/// At most this many distributions are kept read (`EngineModel::dists`).
const DISTS: usize = 8;

/// `(probability, event)` pairs of a distribution.
type Outcomes = Vec<(Prob, TermId)>;

impl<'a> EngineModel<'a> {
    /// The model of `game`, from `start` (default: the game's `start`).
    pub fn new(
        engine: &'a mut Engine,
        game: &'a ChanceGame,
        start: Option<Pat>,
    ) -> Result<EngineModel<'a>, ChanceError> {
        let truth = engine
            .true_term()
            .ok_or_else(|| ChanceError::game("the prelude defines no Booleans"))?;
        let falsity = engine.false_term().expect("true implies false");
        let program = engine.program();
        // Where each question has the state: `final(s)`, …, `events(c, s)`, `move(e, c, s)`,
        // `score(p, s)`.
        let free = [
            (&game.final_, 0),
            (&game.winner, 0),
            (&game.turn, 0),
            (&game.choices, 0),
            (&game.events, 1),
            (&game.moves, 2),
        ]
        .map(|(pat, state)| StateFree::analyse(program, pat, state));
        let score = game
            .score
            .as_ref()
            .and_then(|pat| StateFree::analyse(program, pat, 1));
        let [f0, f1, f2, f3, f4, f5] = free;
        let answers_gc = engine.collections();
        Ok(EngineModel {
            engine,
            game,
            start,
            players: Vec::new(),
            player_index: FxHashMap::default(),
            truth,
            falsity,
            probs: FxHashMap::default(),
            live: 0,
            collect_min_terms: 1 << 20,
            remember: false,
            dists: Vec::new(),
            dists_gc: answers_gc,
            free: [f0, f1, f2, f3, f4, f5, score],
            answers: FxHashMap::default(),
            answers_gc,
            sharing: [(0, 0); QUESTIONS],
            share_state_free: true,
        })
    }

    /// Ask question `q` (`FINAL`, …) of the game, `pat` applied to `args`: looked up when
    /// its answer depends on part of the state only and is known for that part, else
    /// reduced ([`Self::call`]).
    fn ask(&mut self, q: usize, pat: &Pat, args: &[TermId]) -> Result<TermId, ChanceError> {
        if !self.share_state_free {
            return self.call(pat, args);
        }
        let Some(free) = self.free[q].as_mut() else {
            return self.call(pat, args);
        };
        let Some(found) = free.key(self.engine.store(), q, args) else {
            return self.call(pat, args);
        };
        let op = free.op;
        let state = args[free.state];
        if self.answers_gc != self.engine.collections() {
            self.answers.clear();
            self.answers_gc = self.engine.collections();
        }
        let stats = &mut self.sharing[q];
        stats.0 += 1;
        if let Some(&v) = self.answers.get(&found.key) {
            stats.1 += 1;
            // With the arguments the answer copies from the state taken from this one.
            return Ok(free.rebuild(self.engine, &found, v, state));
        }
        // A question whose answers come back rarely (`final` of three-seat Snakes: 28% of
        // its look-ups) costs a table entry per state, and a cache miss per look-up once
        // the table outgrows the cache, for a reduction saved now and then: it is asked of
        // the engine from then on.
        let mut keep = true;
        if stats.0 >= SHARING_WINDOW {
            if stats.1 * 3 < stats.0 {
                keep = false;
            }
            self.sharing[q] = (0, 0);
        }
        let v = self.call(pat, args)?;
        let free = self.free[q].as_ref().expect("analysed");
        let store = self.engine.store();
        // No equation applied: the answer is the question itself, state included.
        if store.op(v) != Some(op)
            && free.shareable(store, &found, v)
            && self.answers_gc == self.engine.collections()
            && self.answers.len() < MAX_ANSWERS
        {
            self.answers.insert(found.key, v);
        }
        if !keep {
            self.free[q] = None;
        }
        Ok(v)
    }

    fn err_at(&self, what: &str, message: String, s: Option<TermId>) -> ChanceError {
        ChanceError::Game {
            message,
            span: self.game.decl_span(what),
            state: s.map(|s| self.engine.show(s)),
        }
    }

    /// Reduce a template applied to arguments.
    pub fn call(&mut self, pat: &Pat, args: &[TermId]) -> Result<TermId, ChanceError> {
        // The explorer asks a dozen questions per state, each answered once: they are
        // reduced without building them where the engine can (`Engine::reduce_pat`).
        let result = if self.remember {
            let t = self.engine.build(pat, args);
            self.engine.reduce(t)
        } else {
            self.engine.reduce_pat(pat, args)
        };
        result.map_err(|e| {
            if matches!(e, gamelang_runtime::error::RuntimeError::Interrupted { .. }) {
                return ChanceError::Interrupted;
            }
            let f = self.engine.failure(e);
            ChanceError::Engine(Box::new(diagnose(self.engine, &SolveError::Runtime(f))))
        })
    }

    fn op_name(&self, op: OpId) -> &str {
        &self.engine.program().sig.op(op).name
    }

    /// The elements of a set value (`_,_` / `empty`), in the set's order.
    pub fn set_elements(&self, t: TermId) -> Vec<TermId> {
        match self.engine.store().op(t) {
            Some(op) if self.op_name(op) == "_,_" => self.engine.elements(t, op),
            Some(op) if self.op_name(op) == "empty" && self.engine.store().args(t).is_empty() => {
                Vec::new()
            }
            _ => vec![t],
        }
    }

    fn boolean(&mut self, pat: &Pat, s: TermId, what: &str) -> Result<bool, ChanceError> {
        let v = self.ask(FINAL, pat, &[s])?;
        if v == self.truth {
            Ok(true)
        } else if v == self.falsity {
            Ok(false)
        } else {
            Err(self.err_at(
                what,
                format!(
                    "`{what}` reduced to `{}`, not a Boolean",
                    self.engine.show(v)
                ),
                Some(s),
            ))
        }
    }

    fn player_of(&self, p: TermId, what: &str, s: TermId) -> Result<usize, ChanceError> {
        self.player_index.get(&p).copied().ok_or_else(|| {
            let names: Vec<String> = self.players.iter().map(|&p| self.engine.show(p)).collect();
            self.err_at(
                what,
                format!(
                    "`{what}` gave `{}`, which is not one of the declared players ({})",
                    self.engine.show(p),
                    names.join(", ")
                ),
                Some(s),
            )
        })
    }

    /// `a / b` as a probability, from a small cache (the same few fractions come back for
    /// every state).
    fn prob(&mut self, a: i64, b: i64) -> Prob {
        self.probs
            .entry((a, b))
            .or_insert_with(|| Prob::ratio(a, b))
            .clone()
    }

    /// `(probability, event)` pairs of a distribution value, checked.
    fn distribution(
        &mut self,
        d: TermId,
        c: TermId,
        s: TermId,
    ) -> Result<Rc<Outcomes>, ChanceError> {
        if self.dists_gc != self.engine.collections() {
            self.dists.clear();
            self.dists_gc = self.engine.collections();
        }
        if let Some((_, out)) = self.dists.iter().find(|(t, _)| *t == d) {
            return Ok(Rc::clone(out));
        }
        let store = self.engine.store();
        let elems = match store.op(d) {
            Some(op) if self.op_name(op) == "_;_" => self.engine.elements(d, op),
            Some(op) if self.op_name(op) == "nothing" && store.args(d).is_empty() => Vec::new(),
            _ => vec![d],
        };
        // The choice is shown only in an error (`self.engine.show(c)` below): showing it for
        // every state cost more than the check.
        if elems.is_empty() {
            return Err(self.err_at(
                "events",
                format!(
                    "a chance position without successors: `events({}, …)` is empty",
                    self.engine.show(c)
                ),
                Some(s),
            ));
        }
        let mut out = Vec::with_capacity(elems.len());
        let mut total = Prob::zero();
        // Games nearly always write one denominator (`1 / 6 @ 1 ; 1 / 6 @ 2 ; …`): then the
        // sum is 1 when the numerators add up to it, with no fraction arithmetic.
        let mut common: Option<(i64, i128)> = None;
        let mut mixed = false;
        for e in elems {
            let store = self.engine.store();
            let pair = store
                .app(e)
                .filter(|(op, args)| self.op_name(*op) == "_@_" && args.len() == 2)
                .map(|(_, args)| (args[0], args[1]));
            let Some((p, ev)) = pair else {
                return Err(self.err_at(
                    "events",
                    format!(
                        "`events({}, …)` has `{}`, not `PROBABILITY @ EVENT`",
                        self.engine.show(c),
                        self.engine.show(e)
                    ),
                    Some(s),
                ));
            };
            let ratio = store
                .app(p)
                .filter(|(op, args)| self.op_name(*op) == "_/_" && args.len() == 2)
                .and_then(|(_, args)| Some((store.int(args[0])?, store.int(args[1])?)));
            let Some((a, b)) = ratio else {
                return Err(self.err_at(
                    "events",
                    format!(
                        "the probability `{}` is not `a / b` with integers a, b",
                        self.engine.show(p)
                    ),
                    Some(s),
                ));
            };
            if b == 0 {
                return Err(self.err_at(
                    "events",
                    format!("the probability `{a} / {b}` has denominator 0"),
                    Some(s),
                ));
            }
            let q = self.prob(a, b);
            if q.is_negative() {
                return Err(self.err_at(
                    "events",
                    format!(
                        "a negative probability: `{a} / {b}` for event `{}` after choice `{}`",
                        self.engine.show(ev),
                        self.engine.show(c)
                    ),
                    Some(s),
                ));
            }
            match common {
                _ if mixed => total += &q,
                None => common = Some((b, a as i128)),
                Some((d, ref mut sum)) if d == b => *sum += a as i128,
                Some((d, sum)) => {
                    mixed = true;
                    total = Prob::small_sum(sum, d);
                    total += &q;
                }
            }
            if !q.is_zero() {
                out.push((q, ev));
            }
        }
        if !mixed {
            if let Some((d, sum)) = common {
                total = Prob::small_sum(sum, d);
            }
        }
        if !total.is_one() {
            return Err(self.err_at(
                "events",
                format!(
                    "the probabilities of `events({}, …)` sum to {total}, not 1",
                    self.engine.show(c)
                ),
                Some(s),
            ));
        }
        let out = Rc::new(out);
        if self.dists.len() == DISTS {
            self.dists.remove(0);
        }
        self.dists.push((d, Rc::clone(&out)));
        Ok(out)
    }
}

impl ChanceModel for EngineModel<'_> {
    type State = TermId;
    type Choice = TermId;

    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        let t = self.call(&self.game.players.clone(), &[])?;
        self.players = self.set_elements(t);
        if self.players.is_empty() {
            return Err(self.err_at(
                "participants",
                "the game declares no players (`participants` is empty)".into(),
                None,
            ));
        }
        self.player_index = self
            .players
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i))
            .collect();
        Ok(self.players.iter().map(|&p| self.engine.show(p)).collect())
    }

    fn start(&mut self) -> Result<TermId, ChanceError> {
        let pat = self
            .start
            .clone()
            .unwrap_or_else(|| self.game.start.clone());
        self.call(&pat, &[])
    }

    fn expand(&mut self, s: TermId) -> Result<Node<TermId, TermId>, ChanceError> {
        if self.engine.interrupt.load(Ordering::Relaxed) {
            return Err(ChanceError::Interrupted);
        }
        let game = self.game;
        if self.boolean(&game.final_, s, "final")? {
            let w = self.ask(WINNER, &game.winner, &[s])?;
            let mut winners = Vec::new();
            for p in self.set_elements(w) {
                winners.push(self.player_of(p, "winner", s)?);
            }
            winners.sort_unstable();
            winners.dedup();
            return Ok(Node::Final { winners });
        }
        let p = self.ask(TURN, &game.turn, &[s])?;
        let player = self.player_of(p, "turn", s)?;
        let cs = self.ask(CHOICES, &game.choices, &[s])?;
        let choices = self.set_elements(cs);
        if choices.is_empty() {
            return Err(self.err_at(
                "choices",
                "a state that is not final has no choices".into(),
                Some(s),
            ));
        }
        let mut options = Vec::with_capacity(choices.len());
        for c in choices {
            let d = self.ask(EVENTS, &game.events, &[c, s])?;
            let dist = self.distribution(d, c, s)?;
            let mut outcomes: Vec<(Prob, TermId)> = Vec::with_capacity(dist.len());
            for (q, e) in dist.iter() {
                let next = self.ask(MOVE, &game.moves, &[*e, c, s])?;
                match outcomes.iter_mut().find(|(_, t)| *t == next) {
                    Some((q0, _)) => *q0 += q,
                    None => outcomes.push((q.clone(), next)),
                }
            }
            options.push(Opt {
                choice: c,
                outcomes,
            });
        }
        Ok(Node::Turn { player, options })
    }

    fn score(&mut self, s: TermId) -> Result<Option<Vec<i64>>, ChanceError> {
        let Some(score) = self.game.score.clone() else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(self.players.len());
        for p in self.players.clone() {
            let v = self.ask(SCORE, &score, &[p, s])?;
            match self.engine.store().int(v) {
                Some(i) => out.push(i),
                None => {
                    return Err(ChanceError::Game {
                        message: format!(
                            "`score` reduced to `{}`, not an integer",
                            self.engine.show(v)
                        ),
                        span: None,
                        state: Some(self.engine.show(s)),
                    })
                }
            }
        }
        Ok(Some(out))
    }

    /// A garbage collection of the term store once it has doubled since the last one (and
    /// holds `collect_min_terms`): the states, choices and players are the roots.
    fn collect(&mut self, states: &[TermId], choices: &mut dyn Iterator<Item = &TermId>) {
        let len = self.engine.store().len();
        if len < self.collect_min_terms.max(2 * self.live) {
            return;
        }
        let mut roots: Vec<TermId> = states.to_vec();
        roots.extend(choices.copied());
        roots.extend_from_slice(&self.players);
        self.engine.collect_garbage(&roots);
        self.live = self.engine.store().len();
    }

    /// The term's number in the store: terms are numbered densely, and a state the explorer
    /// holds is a root of every garbage collection, so its number stays its own.
    fn dense_index(&self, s: TermId) -> Option<usize> {
        Some(s.index())
    }

    fn show_state(&self, s: TermId) -> String {
        self.engine.show(s)
    }

    fn show_choice(&self, c: &TermId) -> String {
        self.engine.show(*c)
    }

    fn interrupted(&self) -> bool {
        self.engine.interrupt.load(Ordering::Relaxed)
    }
}
