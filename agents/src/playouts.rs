//! Random playouts of a `.game` game that build only the positions they play
//! ([`crate::rules::Rules::playout`] of [`EngineRules`]). Asking `next-config` at every
//! position of a random game builds every successor (about 130 on 9 x 9 Quoridor, each with
//! its own legality check) to use one. Two ways round it, each used when the game offers
//! it, else the playout asks for every move ([`crate::rules::playout_by_moves`]):
//!
//! - **Grid games** (`GRID{X}` of stdlib/grid.game): the game's actions and goals, the
//!   values of its own `black-acts`, `white-acts`, `black-wins`, `white-wins`, are played
//!   on native boards by `gamelang_board::play` (no term is built during the playout), and
//!   the winner of a player who cannot move is asked of the game's `won`/`lost` once.
//! - **Candidates**: a game may declare `candidates : Players Config -> Set{X}` (its moves
//!   before their legality is checked, of any sort X) and `try-candidate : Players Config X
//!   -> Set{Config}` (the configuration a candidate leads to, or `empty` when it is not a
//!   legal move), with `next-config(p, c)` the union of `try-candidate(p, c, x)` over the
//!   candidates `x`. A random move is then a candidate drawn uniformly, tried, and drawn
//!   again among the others while it is illegal: uniform among the legal ones when no two
//!   candidates lead to the same configuration. Where none is legal the playout asks
//!   `next-config` (a pass, a player without a move). A game may also declare
//!   `live-candidates : Players Config -> Set{X}`, its candidates where play goes on and
//!   `empty` where it has halted: then a ply asks it alone instead of `halted` and
//!   `candidates` (and `halted` only where it gives none).

use crate::rng::Rng;
use crate::rules::{index, EngineRules, Node, Pos, Rules, Turn};
use gamelang_board::play::{End, Ending, GridNode, GridPlay};
use gamelang_game::{Side, SolveError, Verdict};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::Game;
use gamelang_lang::program::{OpId, Pat};
use gamelang_runtime::grid::{BoardTerm, Compiled, CompiledGoals};
use gamelang_runtime::{Engine, TermId};
use std::borrow::BorrowMut;

/// How a game's random playouts are played.
pub enum Playouts {
    /// Every move of every position ([`crate::rules::playout_by_moves`]).
    ByMoves,
    Grid(Box<GridPlay>),
    /// The game's `candidates` and `try-candidate` (and `live-candidates`).
    Candidates(CandidateOps),
}

/// The operators of a game's candidates ([`Playouts::Candidates`]).
#[derive(Clone, Copy, Debug)]
pub struct CandidateOps {
    pub candidates: OpId,
    pub attempt: OpId,
    /// The set union of the candidates' sort.
    pub union: OpId,
    /// `live-candidates`, if declared: `candidates` where play goes on, none where it has
    /// halted, so that one question replaces `halted` and `candidates`.
    pub live: Option<OpId>,
}

impl Playouts {
    /// How `game`'s playouts can be played, from its start configuration `start`.
    pub fn find<E: BorrowMut<Engine>>(
        rules: &mut EngineRules<'_, E>,
        game: &Game,
        start: TermId,
    ) -> Playouts {
        if let Some(g) = grid(rules, game, start) {
            return Playouts::Grid(Box::new(g));
        }
        candidates(rules.engine.borrow(), game).unwrap_or(Playouts::ByMoves)
    }
}

/// The operators `candidates`, `try-candidate` of the game, if it declares both.
fn candidates(engine: &Engine, game: &Game) -> Option<Playouts> {
    let sig = &engine.program().sig;
    let find = |name: &str, arity: usize| {
        (0..sig.ops.len() as u32).map(OpId).find(|&o| {
            let i = sig.op(o);
            i.name == name
                && i.args.len() == arity
                && sig.same_kind(i.args[0], game.player_sort)
                && sig.same_kind(i.args[1], game.config_sort)
        })
    };
    let candidates = find("candidates", 2)?;
    let attempt = find("try-candidate", 3)?;
    let set = sig.op(candidates).result;
    let union = (0..sig.ops.len() as u32).map(OpId).find(|&o| {
        let i = sig.op(o);
        i.name == "_,_" && i.attrs.assoc && i.attrs.comm && sig.same_kind(i.result, set)
    })?;
    let live = find("live-candidates", 2).filter(|&o| sig.same_kind(sig.op(o).result, set));
    Some(Playouts::Candidates(CandidateOps {
        candidates,
        attempt,
        union,
        live,
    }))
}

/// The operator `name` of arity `arity` declared by `module`.
fn op_in(engine: &Engine, module: &str, name: &str, arity: usize) -> Option<OpId> {
    let sig = &engine.program().sig;
    (0..sig.ops.len() as u32).map(OpId).find(|&o| {
        let i = sig.op(o);
        i.module == module && i.name == name && i.args.len() == arity
    })
}

/// The head operator of a template.
fn head(p: &Pat) -> Option<OpId> {
    match p {
        Pat::App(op, _) => Some(*op),
        _ => None,
    }
}

/// A grid game's rules for native playouts: when the game is `GRID{X}` itself (its
/// `next-config`, `halted`, `won` and `lost` are the instance's) and starts on a board.
fn grid<E: BorrowMut<Engine>>(
    rules: &mut EngineRules<'_, E>,
    game: &Game,
    start: TermId,
) -> Option<GridPlay> {
    let engine = rules.engine.borrow_mut();
    let sig = &engine.program().sig;
    let module = sig.op(head(&game.next_config)?).module.clone();
    if !module.starts_with("GRID{") {
        return None;
    }
    let mut templates = vec![head(&game.halted)?, head(&game.won)?];
    if let Some(lost) = &game.lost {
        templates.push(head(lost)?);
    }
    if templates.iter().any(|&o| sig.op(o).module != module) {
        return None;
    }
    let board = engine.grid_board(start)?;
    let (w, h) = (board.width as i64, board.height as i64);
    let mut value = |name: &str| -> Option<TermId> {
        let op = op_in(engine, &module, name, 0)?;
        let t = engine.mk_app(op, &[]);
        engine.reduce(t).ok()
    };
    let terms = [
        value("black-acts")?,
        value("white-acts")?,
        value("black-wins")?,
        value("white-wins")?,
    ];
    // A counted game (`most-pieces`) passes and counts, as the game's own `counted` says.
    let counted = value("counted")?;
    let counted = engine.store().op(counted) == engine.program().sig.true_op;
    let ops = engine.grid_ops()?;
    let (sig, store) = (&engine.program().sig, engine.store());
    let actions = |t| Compiled::new(ops.actions(sig, store, t).ok()?, w, h).ok();
    let goals = |t| CompiledGoals::new(ops.goals(sig, store, t).ok()?, w, h).ok();
    let compiled = (
        [actions(terms[0])?, actions(terms[1])?],
        [goals(terms[2])?, goals(terms[3])?],
    );
    // Who wins when a player cannot move: the game's own `won`/`lost` at `stuck(p, b)`.
    let stuck = op_in(engine, "GRID-SYNTAX", "stuck", 2)?;
    let mut winner = |s: Side| -> Option<Option<usize>> {
        let p = rules.driver.player(s);
        let t = rules.engine.borrow_mut().mk_app(stuck, &[p, start]);
        let pos = Pos {
            to_move: s.opponent(),
            config: t,
        };
        match rules.result(pos).ok()? {
            Verdict::Win(w) => Some(Some(index(w))),
            Verdict::Draw => Some(None),
        }
    };
    let end = if counted {
        End::Count
    } else {
        End::Stuck([winner(Side::B)?, winner(Side::R)?])
    };
    Some(GridPlay::new(
        board.width,
        board.height,
        compiled.0,
        compiled.1,
        end,
    ))
}

impl<E: BorrowMut<Engine>> EngineRules<'_, E> {
    /// [`Rules::node`] of a grid game's board by [`GridPlay`]: the successors built as
    /// terms and joined in one set as the engine's `moves` built-in joins them, so that
    /// the moves come in the order of `next-config`'s set. `None` where the engine is to
    /// say (not a board, or a player without a move, whose one move is `stuck(p, b)`).
    pub(crate) fn grid_node(&mut self, play: &GridPlay, p: Pos) -> Option<Node> {
        let engine = self.engine.borrow_mut();
        let board = engine.grid_board(p.config)?;
        match play.node(&board, index(p.to_move)) {
            GridNode::Over(w) => Some(Node::Over {
                winners: w.into_iter().collect(),
            }),
            GridNode::Stuck => None,
            GridNode::Moves(boards) => {
                let packed = engine.grid_ops()?.packed;
                let terms: Vec<TermId> = boards
                    .iter()
                    .map(|b| b.to_term(engine.store_mut(), packed))
                    .collect();
                let union = self.game.set_union;
                let set = engine.mk_app(union, &terms);
                let moves = engine.elements(set, union);
                Some(Node::Turn(Turn::without_chance(p, &moves)))
            }
        }
    }

    /// [`Rules::open`](crate::Rules::open) of a grid game by [`GridPlay`]: the legal
    /// action instances as candidates (small integers), each board built only when its
    /// move is tried ([`EngineRules::grid_try`]); `None` where the node is to be built.
    pub(crate) fn grid_open(&mut self, play: &GridPlay, p: Pos) -> Option<Vec<TermId>> {
        let engine = self.engine.borrow_mut();
        let board = engine.grid_board(p.config)?;
        let moves = play.instances(&board, index(p.to_move))?;
        Some(
            moves
                .into_iter()
                .map(|k| engine.store_mut().mk_int(k as i64))
                .collect(),
        )
    }

    /// The configuration a candidate of [`EngineRules::grid_open`] leads to, if a move.
    pub(crate) fn grid_try(&mut self, play: &GridPlay, p: Pos, x: TermId) -> Option<TermId> {
        let engine = self.engine.borrow_mut();
        let board = engine.grid_board(p.config)?;
        let k = usize::try_from(engine.store().int(x)?).ok()?;
        let next = play.play(&board, index(p.to_move), k)?;
        let packed = engine.grid_ops()?.packed;
        Some(next.to_term(engine.store_mut(), packed))
    }

    /// A random game by [`GridPlay`], from a board (else by the moves).
    pub(crate) fn grid_playout(
        &mut self,
        play: &GridPlay,
        rng: &mut Rng,
        p: Pos,
        limit: usize,
    ) -> Result<(Vec<usize>, usize), SolveError> {
        let Some(board) = self.engine.borrow().grid_board(p.config) else {
            return crate::rules::playout_by_moves(self, rng, p, limit);
        };
        let Ending { winner, plies, .. } = play.playout(
            &board,
            index(p.to_move),
            &mut |n| rng.below(n),
            limit,
            &mut |_| {},
        );
        Ok((winner.into_iter().collect(), plies))
    }

    /// A random game by the game's candidates (see the module's documentation).
    pub(crate) fn candidate_playout(
        &mut self,
        ops: CandidateOps,
        rng: &mut Rng,
        mut p: Pos,
        limit: usize,
    ) -> Result<(Vec<usize>, usize), SolveError> {
        // One list of candidates for the whole playout (no allocation a ply).
        let mut left = Vec::new();
        for ply in 0..limit {
            match self.candidate_move(ops, rng, p, &mut left)? {
                Some(next) => p = next,
                None => return self.over(p).map(|w| (w, ply)),
            }
        }
        Ok((Vec::new(), limit))
    }

    /// One random move from `p` by the game's candidates: the position it leads to, or
    /// `None` where play is over.
    fn candidate_move(
        &mut self,
        ops: CandidateOps,
        rng: &mut Rng,
        p: Pos,
        left: &mut Vec<TermId>,
    ) -> Result<Option<Pos>, SolveError> {
        if !self.live_candidates(ops, p, left)? {
            return Ok(None);
        }
        while !left.is_empty() {
            let x = left.swap_remove(rng.below(left.len()));
            if let Some(c) = self.attempt(ops.attempt, p, x)? {
                return Ok(Some(p.after(c)));
            }
        }
        // No candidate is legal: the game's own moves (a pass, or none).
        let moves = self.moves(p)?;
        Ok(match moves.len() {
            0 => None,
            k => Some(p.after(moves[rng.below(k)])),
        })
    }

    /// The candidates at `p` in `out` (replacing what it held), or `false` where play has
    /// halted: by `live-candidates` alone when the game declares it (and `halted` only
    /// where it gives none), else by `halted` and `candidates`.
    fn live_candidates(
        &mut self,
        ops: CandidateOps,
        p: Pos,
        out: &mut Vec<TermId>,
    ) -> Result<bool, SolveError> {
        out.clear();
        let set = match ops.live {
            Some(live) => self.ask(live, p.to_move, p.config, &[])?,
            None => {
                if self.halted(p)? {
                    return Ok(false);
                }
                self.ask(ops.candidates, p.to_move, p.config, &[])?
            }
        };
        out.extend_from_slice(self.engine.borrow().store().elements(&set, ops.union));
        Ok(!(out.is_empty() && ops.live.is_some() && self.halted(p)?))
    }

    /// The configuration `try-candidate` gives for the candidate `x` at `p`, or `None`
    /// when the rules refuse it; more than one is the game's error.
    fn attempt(&mut self, attempt: OpId, p: Pos, x: TermId) -> Result<Option<TermId>, SolveError> {
        let set = self.ask(attempt, p.to_move, p.config, &[x])?;
        let more = match self
            .engine
            .borrow()
            .store()
            .elements(&set, self.game.set_union)
        {
            [] => return Ok(None),
            &[c] => return Ok(Some(c)),
            more => more.len(),
        };
        let text = format!(
            "`try-candidate` gave {more} configurations for the candidate `{}`: \
             a candidate is one move, legal or not (at most one configuration)",
            self.show(x)
        );
        // Located at the operator's declaration, where the game says it.
        let span = self.engine.borrow().program().sig.op(attempt).span;
        Err(match span {
            Some(span) => SolveError::Diagnosed(Box::new(Diag::at(span, text, "declared here"))),
            None => SolveError::Game(text),
        })
    }

    /// [`crate::Rules::open`] by the game's candidates: `None` when the game declares none,
    /// play is over at `p` or there is no candidate (then every move is built).
    pub(crate) fn open_candidates(&mut self, p: Pos) -> Result<Option<Vec<TermId>>, SolveError> {
        let Some(ops) = self.candidate_ops() else {
            return Ok(None);
        };
        let mut list = Vec::new();
        Ok((self.live_candidates(ops, p, &mut list)? && !list.is_empty()).then_some(list))
    }

    /// [`crate::Rules::try_candidate`]: the configuration a candidate gives, if legal.
    pub(crate) fn candidate_config(
        &mut self,
        p: Pos,
        x: TermId,
    ) -> Result<Option<TermId>, SolveError> {
        match self.candidate_ops() {
            Some(ops) => self.attempt(ops.attempt, p, x),
            None => Ok(None),
        }
    }

    /// The game's `candidates`, `try-candidate` and their set union, if it declares them.
    fn candidate_ops(&mut self) -> Option<CandidateOps> {
        let playouts = self.playouts();
        let found = match playouts {
            Playouts::Candidates(ops) => Some(ops),
            _ => None,
        };
        self.put_playouts(playouts);
        found
    }

    /// One random move from `p` as a random playout makes it: the position it leads to,
    /// or `None` where play is over. By the game's candidates when it declares them, else
    /// a move drawn among every move (as a grid game's boards are terms here).
    pub fn random_move(&mut self, rng: &mut Rng, p: Pos) -> Result<Option<Pos>, SolveError> {
        let playouts = self.playouts();
        let moved = match &playouts {
            &Playouts::Candidates(ops) => self.candidate_move(ops, rng, p, &mut Vec::new()),
            _ => match self.node(p) {
                Ok(Node::Turn(t)) => {
                    let i = rng.below(t.moves.len());
                    Ok(Some(crate::mcts::draw(rng, &t.moves[i])))
                }
                Ok(Node::Over { .. }) => Ok(None),
                Err(e) => Err(e),
            },
        };
        self.put_playouts(playouts);
        moved
    }

    /// The winners at a position where play is over (halted, or without a move).
    fn over(&mut self, p: Pos) -> Result<Vec<usize>, SolveError> {
        Ok(match self.result(p)? {
            Verdict::Win(s) => vec![index(s)],
            Verdict::Draw => Vec::new(),
        })
    }

    /// `op(player, config, extra…)` reduced, without building the question (1% fewer
    /// instructions on Quoridor than building it and reducing the term), and remembered
    /// for the decision ([`EngineRules::answers`]): a playout meets positions again, and
    /// a question answered by the engine's call cache still costs about a thousand
    /// instructions.
    fn ask(
        &mut self,
        op: OpId,
        s: Side,
        config: TermId,
        extra: &[TermId],
    ) -> Result<TermId, SolveError> {
        let key = (extra.len() <= 1).then(|| {
            [
                op.0,
                crate::rules::index(s) as u32,
                config.0,
                extra.first().map_or(u32::MAX, |x| x.0),
            ]
        });
        if let Some(v) = key.and_then(|k| self.answers.get(&k)) {
            return Ok(v);
        }
        let mut args: smallvec::SmallVec<[TermId; 3]> =
            smallvec::smallvec![self.driver.player(s), config];
        args.extend_from_slice(extra);
        let engine = self.engine.borrow_mut();
        let v = engine
            .reduce_app(op, &args)
            .map_err(|e| SolveError::Runtime(engine.failure(e)))?;
        if let Some(k) = key {
            self.answers.put(k, v);
        }
        Ok(v)
    }
}
