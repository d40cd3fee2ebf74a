//! What an agent asks of a game: the small interface of seed 004's section 4.0.1 (valid
//! moves, terminal, static evaluation, randomizable moves, a distance to goal), extended
//! to chance and to any number of players: a position is either over (with its winners)
//! or a decision of one player among moves, each move leading to one position or, by
//! chance, to one of several with their probabilities ([`Node`]).
//!
//! [`Rules`] is the agents' own trait. [`EngineRules`] implements it for any two-player
//! `.game` game by reducing the game's operators with the rewriting engine (`next-config`,
//! `halted`, `won`/`lost` through SOLVE's `outcome`, and the optional `eval`,
//! `goal-distance`, `randomizable` of the game's module); [`crate::chance::ChanceRules`]
//! for chance games (`instance CHANCE{…}`) with any number of players.

use crate::playouts::Playouts;
use crate::rng::Rng;
use gamelang_game::search::OutcomeSearch;
use gamelang_game::{GameDriver, Side, SolveError, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use gamelang_runtime::{Engine, RuntimeError, RuntimeFailure, TermId};
use smallvec::SmallVec;
use std::borrow::BorrowMut;
use std::sync::atomic::Ordering;

/// A position. In a two-player game without chance: the player to move and the
/// configuration. In a chance game: the state, which says itself whose turn it is
/// (`to_move` is then always [`Side::B`] and means nothing; [`Rules::node`] says who moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub to_move: Side,
    pub config: TermId,
}

impl Pos {
    /// The position after the player to move went to `config` (a game without chance).
    pub fn after(self, config: TermId) -> Pos {
        Pos {
            to_move: self.to_move.opponent(),
            config,
        }
    }

    /// A chance game's state as a position.
    pub fn state(s: TermId) -> Pos {
        Pos {
            to_move: Side::B,
            config: s,
        }
    }
}

/// One move of the player to move: what it is called (the configuration moved to, or a
/// chance game's choice) and the positions it leads to with their probabilities (one
/// position, with probability 1, in a game without chance).
#[derive(Clone, Debug, PartialEq)]
pub struct Move {
    pub label: TermId,
    pub outcomes: SmallVec<[(f64, Pos); 1]>,
}

impl Move {
    /// A move without chance: to `next` for sure.
    pub fn sure(label: TermId, next: Pos) -> Move {
        Move {
            label,
            outcomes: smallvec::smallvec![(1.0, next)],
        }
    }
}

/// A decision: `player` (an index into [`Rules::players`]) picks one of `moves` (never
/// empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub player: usize,
    pub moves: Vec<Move>,
}

/// What a position is.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Play is over: the winners (indices into [`Rules::players`]); none for a draw.
    Over {
        winners: Vec<usize>,
    },
    Turn(Turn),
}

/// A position as a search tree first meets it ([`Rules::open`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Opened {
    /// Every move at once, or play is over.
    Node(Node),
    /// `player` decides among moves not built yet: each of `candidates` is tried by
    /// [`Rules::try_candidate`] (a move, or none when the rules refuse it); the moves are
    /// those the candidates give, or, when none gives one, [`Rules::node`]'s (a pass).
    /// No two candidates give the same move.
    Candidates {
        player: usize,
        candidates: Vec<TermId>,
    },
}

/// The game as the agents see it: one interface for games with and without chance and
/// for any number of players. Every agent is written against it alone, so a new agent
/// plays every game: two-player games without chance ([`EngineRules`]) and chance games
/// with any number of players ([`crate::chance::ChanceRules`]).
///
/// Only [`Rules::players`], [`Rules::node`], [`Rules::values`] and [`Rules::show`] are
/// required; the rest is what a game may declare for particular agents.
pub trait Rules {
    /// The players' names, in the game's order (`B`, `R` in a two-player game).
    fn players(&self) -> Vec<String>;
    /// Is play over at `p` (and who won), or whose turn is it and what are the moves?
    fn node(&mut self, p: Pos) -> Result<Node, SolveError>;
    /// Each player's value at `p` under best play (exhaustive search; the `exact` agent):
    /// its probability of winning, a draw counting 1/2 between two players.
    fn values(&mut self, p: Pos) -> Result<Vec<f64>, SolveError>;
    /// The game's static evaluation of `p` for `player` (higher is better for it); `None`
    /// when the game declares none.
    fn eval(&mut self, p: Pos, player: usize) -> Result<Option<i64>, SolveError> {
        let _ = (p, player);
        Ok(None)
    }
    /// How far `player` is from its goal at `p`; `None` when the game declares none.
    fn goal_distance(&mut self, player: usize, p: Pos) -> Result<Option<i64>, SolveError> {
        let _ = (player, p);
        Ok(None)
    }
    /// The labels of the moves a random player may take at `p` without making the game
    /// go on forever; `None` when the game does not say.
    fn randomizable(&mut self, p: Pos) -> Result<Option<Vec<TermId>>, SolveError> {
        let _ = p;
        Ok(None)
    }
    /// Between decisions: the game may free what it built, keeping `keep` (no agent holds
    /// a position across decisions).
    fn tidy(&mut self, _keep: &[TermId]) {}
    /// A term (a configuration, a state, a choice) as text.
    fn show(&self, t: TermId) -> String;
    /// The position as the game draws it (its `display`), for a person; by default the
    /// term.
    fn draw(&mut self, p: Pos) -> String {
        self.show(p.config)
    }
    /// The rewriting engine the rules reduce with, if any: a front end reads a move typed
    /// as a term with it.
    fn engine(&mut self) -> Option<&mut Engine> {
        None
    }
    /// The chance events by which the move `label` at `p` led to `next`, as text (a die's
    /// face), for a person; none when the game cannot say.
    fn events_to(&mut self, p: Pos, label: TermId, next: Pos) -> Result<Vec<String>, SolveError> {
        let _ = (p, label, next);
        Ok(Vec::new())
    }
    /// `p` for a search that may try only a few of its moves (MCTS's new tree nodes): by
    /// default every move ([`Rules::node`]); a game that can try its moves one at a time
    /// gives its candidates instead.
    fn open(&mut self, p: Pos) -> Result<Opened, SolveError> {
        Ok(Opened::Node(self.node(p)?))
    }
    /// The move a candidate of [`Opened::Candidates`] at `p` gives, if the rules allow it.
    fn try_candidate(&mut self, p: Pos, candidate: TermId) -> Result<Option<Move>, SolveError> {
        let _ = (p, candidate);
        Ok(None)
    }
    /// A random game from `p`: at each position a move drawn uniformly among the moves
    /// (and its outcome by its probabilities), until play is over or `limit` moves were
    /// made. Returns the winners (none when nobody won or the game was stopped) and the
    /// moves made. The default asks [`Rules::node`] at every position
    /// ([`playout_by_moves`]); a game may do it faster, building only the positions it
    /// plays, as long as every move keeps its chance of being played.
    fn playout(
        &mut self,
        rng: &mut Rng,
        p: Pos,
        limit: usize,
    ) -> Result<(Vec<usize>, usize), SolveError> {
        playout_by_moves(self, rng, p, limit)
    }
}

/// [`Rules::playout`] by [`Rules::node`]: every move of every position is built, one is
/// drawn uniformly ([`Rng::below`]) and its outcome by its probabilities
/// ([`crate::mcts::draw`]).
pub fn playout_by_moves<R: Rules + ?Sized>(
    rules: &mut R,
    rng: &mut Rng,
    mut p: Pos,
    limit: usize,
) -> Result<(Vec<usize>, usize), SolveError> {
    for ply in 0..limit {
        match rules.node(p)? {
            Node::Over { winners } => return Ok((winners, ply)),
            Node::Turn(t) => {
                let i = rng.below(t.moves.len());
                p = crate::mcts::draw(rng, &t.moves[i]);
            }
        }
    }
    Ok((Vec::new(), limit))
}

impl Turn {
    /// The decision of `p.to_move` among `moves` in a two-player game without chance.
    pub fn without_chance(p: Pos, moves: &[TermId]) -> Turn {
        Turn {
            player: index(p.to_move),
            moves: moves.iter().map(|&m| Move::sure(m, p.after(m))).collect(),
        }
    }
}

/// [`Rules`] of a `.game` game, computed by the rewriting engine. It owns its engine
/// (`E = Engine`: a match or a playout) or borrows one (`E = &mut Engine`: the REPL, whose
/// engine and memo tables outlive a game).
pub struct EngineRules<'g, E: BorrowMut<Engine> = Engine> {
    pub engine: E,
    pub driver: GameDriver<'g>,
    pub(crate) game: &'g Game,
    /// The solver's table for `exact`, kept across decisions until a garbage collection
    /// (which may reuse the ids of the configurations it holds).
    outcomes: OutcomeSearch<TermId>,
    collections: u64,
    /// How random playouts are played, found at the first one.
    playouts: Option<Playouts>,
    /// The answers of the candidate questions asked in this decision (see
    /// [`crate::answers`]); emptied by [`Rules::tidy`], between decisions and where the
    /// engine collects garbage (which may reuse the terms' ids).
    pub(crate) answers: crate::answers::Answers,
}

impl<'g, E: BorrowMut<Engine>> EngineRules<'g, E> {
    pub fn new(mut engine: E, game: &'g Game) -> Result<EngineRules<'g, E>, SolveError> {
        let mut driver = GameDriver::new(engine.borrow_mut(), game)?;
        // Playouts meet the same positions again and again.
        driver.remember = true;
        let collections = engine.borrow().collections();
        Ok(EngineRules {
            engine,
            driver,
            game,
            outcomes: OutcomeSearch::new(),
            collections,
            playouts: None,
            answers: Default::default(),
        })
    }

    /// The game's start position (its `start` and `first`).
    pub fn start(&mut self) -> Result<Pos, SolveError> {
        let c = self.engine.borrow_mut().build(&self.game.start, &[]);
        let config = self.reduce(c)?;
        let f = self.engine.borrow_mut().build(&self.game.first, &[]);
        let to_move = self.driver.side(self.engine.borrow_mut(), f)?;
        Ok(Pos { to_move, config })
    }

    fn reduce(&mut self, t: TermId) -> Result<TermId, SolveError> {
        let engine = self.engine.borrow_mut();
        engine
            .reduce(t)
            .map_err(|e| SolveError::Runtime(engine.failure(e)))
    }

    /// `op(p, c)` reduced.
    fn apply(
        &mut self,
        op: gamelang_lang::program::OpId,
        side: Side,
        c: TermId,
    ) -> Result<TermId, SolveError> {
        let t = self.engine.borrow_mut().build(
            &Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.driver.player(side), c],
        );
        self.reduce(t)
    }

    fn int(
        &mut self,
        op: gamelang_lang::program::OpId,
        side: Side,
        c: TermId,
        what: &str,
    ) -> Result<i64, SolveError> {
        let v = self.apply(op, side, c)?;
        self.engine.borrow().store().int(v).ok_or_else(|| {
            SolveError::Game(format!(
                "`{what}` reduced to `{}`, which is not an integer",
                self.engine.borrow().show(v)
            ))
        })
    }

    /// How this game's random playouts are played ([`crate::playouts`]), found once;
    /// taken out of `self` (put back by the caller).
    pub(crate) fn playouts(&mut self) -> Playouts {
        match self.playouts.take() {
            Some(known) => known,
            None => match self.start() {
                Ok(start) => {
                    let game = self.game;
                    Playouts::find(self, game, start.config)
                }
                Err(_) => Playouts::ByMoves,
            },
        }
    }

    pub(crate) fn put_playouts(&mut self, p: Playouts) {
        self.playouts = Some(p);
    }

    /// The native rules of random playouts, when the game is a grid game
    /// ([`crate::playouts`]).
    pub fn grid_play(&mut self) -> Option<&gamelang_board::play::GridPlay> {
        let p = self.playouts();
        self.put_playouts(p);
        match self.playouts.as_ref() {
            Some(Playouts::Grid(g)) => Some(g),
            _ => None,
        }
    }

    /// A configuration as the game draws it (its `display` when it has one).
    pub fn draw(&mut self, c: TermId) -> String {
        match self.driver.draw(self.engine.borrow_mut(), c) {
            Ok(Some(text)) => text,
            _ => self.engine.borrow().show(c),
        }
    }
}

impl<E: BorrowMut<Engine>> EngineRules<'_, E> {
    /// Has play stopped here?
    pub fn halted(&mut self, p: Pos) -> Result<bool, SolveError> {
        self.driver
            .halted(self.engine.borrow_mut(), p.to_move, p.config)
    }

    /// The configurations the player to move can go to, in the game's order.
    pub fn moves(&mut self, p: Pos) -> Result<Vec<TermId>, SolveError> {
        self.driver
            .moves(self.engine.borrow_mut(), p.to_move, p.config)
    }

    /// Who has won a halted position (or a draw). A position that is not halted but has no
    /// move is lost by the player to move (formula (1) of seed 003).
    pub fn result(&mut self, p: Pos) -> Result<Verdict, SolveError> {
        // At a halted position `w` and `wb` are the leaf's own `won` and `lost`: nothing is
        // searched. Not halted and without moves, formula (1) has the player to move lose.
        if self.halted(p)? {
            self.driver
                .verdict(self.engine.borrow_mut(), p.to_move, p.config)
        } else {
            Ok(Verdict::Win(p.to_move.opponent()))
        }
    }

    /// Who wins under best play, by the game crate's one-pass outcome search (alpha-beta
    /// with a table).
    pub fn solve(&mut self, p: Pos) -> Result<Verdict, SolveError> {
        let mut rules = gamelang_game::EngineRules::new(&self.driver, self.engine.borrow_mut());
        self.outcomes.verdict(&mut rules, p.to_move, p.config)
    }
}

/// A side as a player index: B is 0, R is 1 (the order of [`Rules::players`]).
pub fn index(s: Side) -> usize {
    match s {
        Side::B => 0,
        Side::R => 1,
    }
}

/// The side of player index `i` (0 or 1).
pub fn side(i: usize) -> Side {
    if i == 0 {
        Side::B
    } else {
        Side::R
    }
}

impl<E: BorrowMut<Engine>> Rules for EngineRules<'_, E> {
    fn players(&self) -> Vec<String> {
        vec!["B".into(), "R".into()]
    }

    /// A grid game's boards natively ([`crate::playouts`]), else by the game's operators.
    fn node(&mut self, p: Pos) -> Result<Node, SolveError> {
        let playouts = self.playouts();
        let native = match &playouts {
            Playouts::Grid(play) => self.grid_node(play, p),
            _ => None,
        };
        self.put_playouts(playouts);
        if let Some(node) = native {
            return Ok(node);
        }
        let moves = if self.halted(p)? {
            Vec::new()
        } else {
            self.moves(p)?
        };
        if moves.is_empty() {
            return Ok(Node::Over {
                winners: match self.result(p)? {
                    Verdict::Win(s) => vec![index(s)],
                    Verdict::Draw => Vec::new(),
                },
            });
        }
        Ok(Node::Turn(Turn::without_chance(p, &moves)))
    }

    fn values(&mut self, p: Pos) -> Result<Vec<f64>, SolveError> {
        Ok(match self.solve(p)? {
            Verdict::Win(Side::B) => vec![1.0, 0.0],
            Verdict::Win(Side::R) => vec![0.0, 1.0],
            Verdict::Draw => vec![0.5, 0.5],
        })
    }

    /// The game's `eval` is counted for B: R's is its opposite.
    fn eval(&mut self, p: Pos, player: usize) -> Result<Option<i64>, SolveError> {
        let Some(op) = self.game.eval else {
            return Ok(None);
        };
        let e = self.int(op, p.to_move, p.config, "eval")?;
        Ok(Some(if player == 0 { e } else { e.saturating_neg() }))
    }

    fn goal_distance(&mut self, player: usize, p: Pos) -> Result<Option<i64>, SolveError> {
        match self.game.goal_distance {
            Some(op) => self
                .int(op, side(player), p.config, "goal-distance")
                .map(Some),
            None => Ok(None),
        }
    }

    fn randomizable(&mut self, p: Pos) -> Result<Option<Vec<TermId>>, SolveError> {
        let Some(op) = self.game.randomizable else {
            return Ok(None);
        };
        let set = self.apply(op, p.to_move, p.config)?;
        Ok(Some(
            self.engine.borrow_mut().elements(set, self.game.set_union),
        ))
    }

    fn show(&self, c: TermId) -> String {
        self.engine.borrow().show(c)
    }

    fn draw(&mut self, p: Pos) -> String {
        EngineRules::draw(self, p.config)
    }

    fn engine(&mut self) -> Option<&mut Engine> {
        Some(self.engine.borrow_mut())
    }

    /// Without building every move where the game allows it ([`crate::playouts`]).
    fn playout(
        &mut self,
        rng: &mut Rng,
        p: Pos,
        limit: usize,
    ) -> Result<(Vec<usize>, usize), SolveError> {
        // A grid game's playout runs on native boards, which never ask the engine, whose
        // Ctrl-C flag is read only while it rewrites: read here, a match of `mcts:N` on
        // Connect-4 stops within a playout (it ran on through any number of Ctrl-C).
        if self.engine.borrow().interrupt.load(Ordering::Relaxed) {
            return Err(SolveError::Runtime(RuntimeFailure {
                error: RuntimeError::Interrupted { term: p.config },
                trace: Vec::new(),
                elided: 0,
            }));
        }
        let playouts = self.playouts();
        let ended = match &playouts {
            Playouts::ByMoves => playout_by_moves(self, rng, p, limit),
            Playouts::Grid(play) => self.grid_playout(play, rng, p, limit),
            &Playouts::Candidates(ops) => self.candidate_playout(ops, rng, p, limit),
        };
        self.put_playouts(playouts);
        ended
    }

    /// By the game's candidates when it declares them ([`crate::playouts`]): a new tree
    /// node then costs `halted` and `candidates`, not every move.
    fn open(&mut self, p: Pos) -> Result<Opened, SolveError> {
        let playouts = self.playouts();
        let grid = match &playouts {
            Playouts::Grid(play) => Some(self.grid_open(play, p)),
            _ => None,
        };
        self.put_playouts(playouts);
        match grid {
            Some(Some(candidates)) => {
                return Ok(Opened::Candidates {
                    player: index(p.to_move),
                    candidates,
                })
            }
            // A grid game's node where its instances cannot say (over, stuck, a pass).
            Some(None) => return Ok(Opened::Node(self.node(p)?)),
            None => {}
        }
        if let Some(candidates) = self.open_candidates(p)? {
            return Ok(Opened::Candidates {
                player: index(p.to_move),
                candidates,
            });
        }
        Ok(Opened::Node(self.node(p)?))
    }

    fn try_candidate(&mut self, p: Pos, candidate: TermId) -> Result<Option<Move>, SolveError> {
        let playouts = self.playouts();
        let config = match &playouts {
            Playouts::Grid(play) => Ok(self.grid_try(play, p, candidate)),
            _ => Err(()),
        };
        self.put_playouts(playouts);
        let config = match config {
            Ok(c) => c,
            Err(()) => self.candidate_config(p, candidate)?,
        };
        Ok(config.map(|c| Move::sure(c, p.after(c))))
    }

    fn tidy(&mut self, keep: &[TermId]) {
        self.answers.clear();
        let mut roots = self.driver.roots();
        roots.extend_from_slice(keep);
        self.engine.borrow_mut().collect_garbage_if_grown(&roots);
        if self.engine.borrow().collections() != self.collections {
            self.collections = self.engine.borrow().collections();
            self.outcomes = OutcomeSearch::new();
        }
    }
}
