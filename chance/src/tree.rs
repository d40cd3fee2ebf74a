//! A two-player game of seed 003's `GAME-TREE` (or `DRAW-GAME`) seen as a chance game
//! without chance, so that retrograde analysis can solve it when its positions repeat
//! (`gamelang solve --retrograde`). Players 0 and 1 are B and R; a state is a
//! configuration with the player to move.

use crate::model::{ChanceError, ChanceModel, Node, Opt};
use crate::Prob;
use gamelang_game::{diagnose, GameDriver, Side, SolveError, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;

pub struct TreeModel<'a> {
    pub engine: &'a mut Engine,
    driver: GameDriver<'a>,
    start: Pat,
    first: Pat,
}

fn side(i: u8) -> Side {
    if i == 0 {
        Side::B
    } else {
        Side::R
    }
}

impl<'a> TreeModel<'a> {
    pub fn new(
        engine: &'a mut Engine,
        game: &'a Game,
        start: Pat,
        first: Pat,
    ) -> Result<TreeModel<'a>, ChanceError> {
        let driver = GameDriver::new(engine, game).map_err(|e| fail(engine, e))?;
        Ok(TreeModel {
            engine,
            driver,
            start,
            first,
        })
    }
}

/// A failure of the game's rules; Ctrl-C is [`ChanceError::Interrupted`], which the
/// command reports as an interruption (exit status 130), not as an error of the game.
fn fail(engine: &Engine, e: SolveError) -> ChanceError {
    if gamelang_game::is_interrupted(&e) {
        return ChanceError::Interrupted;
    }
    ChanceError::Engine(Box::new(diagnose(engine, &e)))
}

impl ChanceModel for TreeModel<'_> {
    type State = (u8, TermId);
    type Choice = TermId;

    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        Ok(vec!["B".into(), "R".into()])
    }

    fn start(&mut self) -> Result<(u8, TermId), ChanceError> {
        let c = self.engine.build(&self.start, &[]);
        let c = self
            .engine
            .reduce(c)
            .map_err(|e| fail(self.engine, SolveError::Runtime(self.engine.failure(e))))?;
        let p = self.engine.build(&self.first, &[]);
        let p = self
            .driver
            .side(self.engine, p)
            .map_err(|e| fail(self.engine, e))?;
        Ok((if p == Side::B { 0 } else { 1 }, c))
    }

    fn expand(&mut self, (p, c): (u8, TermId)) -> Result<Node<(u8, TermId), TermId>, ChanceError> {
        let who = side(p);
        let d = &self.driver;
        if d.halted(self.engine, who, c)
            .map_err(|e| fail(self.engine, e))?
        {
            // At a halted position `outcome` only reads `won` / `lost`.
            let v = d
                .verdict(self.engine, who, c)
                .map_err(|e| fail(self.engine, e))?;
            let winners = match v {
                Verdict::Win(Side::B) => vec![0],
                Verdict::Win(Side::R) => vec![1],
                Verdict::Draw => vec![],
            };
            return Ok(Node::Final { winners });
        }
        let moves = d
            .moves(self.engine, who, c)
            .map_err(|e| fail(self.engine, e))?;
        if moves.is_empty() {
            return Err(ChanceError::Game {
                message: "a position that has not halted has no moves".into(),
                span: None,
                state: Some(self.engine.show(c)),
            });
        }
        Ok(Node::Turn {
            player: p as usize,
            options: moves
                .into_iter()
                .map(|m| Opt {
                    choice: m,
                    outcomes: vec![(Prob::one(), (1 - p, m))],
                })
                .collect(),
        })
    }

    fn score(&mut self, _: (u8, TermId)) -> Result<Option<Vec<i64>>, ChanceError> {
        Ok(None)
    }

    fn show_state(&self, (p, c): (u8, TermId)) -> String {
        format!("{} with {} to move", self.engine.show(c), side(p).name())
    }

    fn show_choice(&self, c: &TermId) -> String {
        self.engine.show(*c)
    }

    fn interrupted(&self) -> bool {
        self.engine
            .interrupt
            .load(std::sync::atomic::Ordering::Relaxed)
    }
}
