//! What an agent asks of a game: the small interface of seed 004's section 4.0.1 (valid
//! moves, terminal, static evaluation, randomizable moves, a distance to goal), over
//! positions that are (player to move, configuration).
//!
//! [`Rules`] is the agents' own trait; [`EngineRules`] implements it for any `.game` game
//! by reducing the game's operators with the rewriting engine (`next-config`, `halted`,
//! `won`/`lost` through SOLVE's `outcome`, and the optional `eval`, `goal-distance`,
//! `randomizable` of the game's module).

use gamelang_game::search::OutcomeSearch;
use gamelang_game::{GameDriver, Side, SolveError, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use gamelang_runtime::{Engine, TermId};
use std::borrow::BorrowMut;

/// A position: the player to move and the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub to_move: Side,
    pub config: TermId,
}

impl Pos {
    /// The position after the player to move went to `config`.
    pub fn after(self, config: TermId) -> Pos {
        Pos {
            to_move: self.to_move.opponent(),
            config,
        }
    }
}

/// The game as the agents see it.
pub trait Rules {
    /// Has play stopped here?
    fn halted(&mut self, p: Pos) -> Result<bool, SolveError>;
    /// The configurations the player to move can go to, in the game's order.
    fn moves(&mut self, p: Pos) -> Result<Vec<TermId>, SolveError>;
    /// Who has won a halted position (or a draw). A position that is not halted but has no
    /// move is lost by the player to move (formula (1) of seed 003).
    fn result(&mut self, p: Pos) -> Result<Verdict, SolveError>;
    /// The game's static evaluation, counted for B; `None` when the game declares none.
    fn eval(&mut self, p: Pos) -> Result<Option<i64>, SolveError>;
    /// How far `side` is from its goal at `config`; `None` when the game declares none.
    fn goal_distance(&mut self, side: Side, config: TermId) -> Result<Option<i64>, SolveError>;
    /// The moves a random player may take without making the game go on forever; `None`
    /// when the game does not say.
    fn randomizable(&mut self, p: Pos) -> Result<Option<Vec<TermId>>, SolveError>;
    /// Who wins under best play (exhaustive search).
    fn solve(&mut self, p: Pos) -> Result<Verdict, SolveError>;
    /// Between decisions: the game may free what it built, keeping `keep` (no agent holds
    /// a configuration across decisions).
    fn tidy(&mut self, _keep: &[TermId]) {}
    /// A configuration as text (the engine's printing).
    fn show(&self, c: TermId) -> String;
}

/// [`Rules`] of a `.game` game, computed by the rewriting engine. It owns its engine
/// (`E = Engine`: a match or a playout) or borrows one (`E = &mut Engine`: the REPL, whose
/// engine and memo tables outlive a game).
pub struct EngineRules<'g, E: BorrowMut<Engine> = Engine> {
    pub engine: E,
    pub driver: GameDriver<'g>,
    game: &'g Game,
    /// The solver's table for `exact`, kept across decisions until a garbage collection
    /// (which may reuse the ids of the configurations it holds).
    outcomes: OutcomeSearch<TermId>,
    collections: u64,
}

impl<'g, E: BorrowMut<Engine>> EngineRules<'g, E> {
    pub fn new(mut engine: E, game: &'g Game) -> Result<EngineRules<'g, E>, SolveError> {
        let driver = GameDriver::new(engine.borrow_mut(), game)?;
        let collections = engine.borrow().collections();
        Ok(EngineRules {
            engine,
            driver,
            game,
            outcomes: OutcomeSearch::new(),
            collections,
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

    /// A configuration as the game draws it (its `display` when it has one).
    pub fn draw(&mut self, c: TermId) -> String {
        match self.driver.draw(self.engine.borrow_mut(), c) {
            Ok(Some(text)) => text,
            _ => self.engine.borrow().show(c),
        }
    }
}

impl<E: BorrowMut<Engine>> Rules for EngineRules<'_, E> {
    fn halted(&mut self, p: Pos) -> Result<bool, SolveError> {
        self.driver
            .halted(self.engine.borrow_mut(), p.to_move, p.config)
    }

    fn moves(&mut self, p: Pos) -> Result<Vec<TermId>, SolveError> {
        self.driver
            .moves(self.engine.borrow_mut(), p.to_move, p.config)
    }

    fn result(&mut self, p: Pos) -> Result<Verdict, SolveError> {
        // At a halted position `w` and `wb` are the leaf's own `won` and `lost`: nothing is
        // searched. Not halted and without moves, formula (1) has the player to move lose.
        if self.halted(p)? {
            self.driver
                .verdict(self.engine.borrow_mut(), p.to_move, p.config)
        } else {
            Ok(Verdict::Win(p.to_move.opponent()))
        }
    }

    fn eval(&mut self, p: Pos) -> Result<Option<i64>, SolveError> {
        match self.game.eval {
            Some(op) => self.int(op, p.to_move, p.config, "eval").map(Some),
            None => Ok(None),
        }
    }

    fn goal_distance(&mut self, side: Side, config: TermId) -> Result<Option<i64>, SolveError> {
        match self.game.goal_distance {
            Some(op) => self.int(op, side, config, "goal-distance").map(Some),
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

    /// By the game crate's one-pass outcome search (alpha-beta with a table).
    fn solve(&mut self, p: Pos) -> Result<Verdict, SolveError> {
        let mut rules = gamelang_game::EngineRules::new(&self.driver, self.engine.borrow_mut());
        self.outcomes.verdict(&mut rules, p.to_move, p.config)
    }

    fn show(&self, c: TermId) -> String {
        self.engine.borrow().show(c)
    }

    fn tidy(&mut self, keep: &[TermId]) {
        let mut roots = self.driver.roots();
        roots.extend_from_slice(keep);
        self.engine.borrow_mut().collect_garbage_if_grown(&roots);
        if self.engine.borrow().collections() != self.collections {
            self.collections = self.engine.borrow().collections();
            self.outcomes = OutcomeSearch::new();
        }
    }
}
