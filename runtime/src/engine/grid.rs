//! The grid-game built-ins of stdlib/grid.game, applied by the engine (see
//! [`crate::grid`] for boards and the compiled form of actions and goals).

use super::{Engine, Subj, Task};
use crate::error::RuntimeError;
use crate::grid::{Board, BoardTerm, Compiled, CompiledGoals, Piece};
use crate::term::TermId;
use gamelang_lang::program::Builtin;
use std::sync::Arc;

impl Engine {
    /// Apply a grid built-in to the subject: `Ok(None)` when an argument is not a value of
    /// the right kind (a variable, a stuck term), an error naming the term when the values
    /// make no sense (a board of width 0, an action whose effect has a NOT, a coordinate
    /// off the board).
    pub(super) fn grid_builtin(
        &mut self,
        subj: Subj,
        b: Builtin,
    ) -> Result<Option<Task>, RuntimeError> {
        // Copied out (the built-in mutates the store); inline, as built-ins take ≤ 3.
        let args: crate::term::Args = if subj.is_open() {
            let base = subj.base as usize;
            self.vals[base..base + subj.n as usize].into()
        } else {
            self.store.args(subj.term).into()
        };
        let result = match self.grid_value(subj, b, &args) {
            Ok(Some(v)) => v,
            Ok(None) => return Ok(None),
            Err(reason) => {
                let term = self.subj_term(subj);
                return Err(RuntimeError::Stuck {
                    term,
                    op: subj.op,
                    reason,
                });
            }
        };
        self.count_step(subj)?;
        if subj.is_open() {
            self.vals.truncate(subj.base as usize);
        }
        self.set_normal(result);
        Ok(Some(Task::Return(result)))
    }

    fn grid_value(
        &mut self,
        subj: Subj,
        b: Builtin,
        args: &[TermId],
    ) -> Result<Option<TermId>, String> {
        let Some(ops) = self.grid.clone() else {
            return Err("the grid built-ins need the standard library's GRID-SYNTAX".into());
        };
        let board = |e: &Engine, i: usize| args.get(i).and_then(|&t| ops.board(&e.store, t));
        let int = |e: &Engine, i: usize| args.get(i).and_then(|&t| e.store.int(t));
        Ok(match b {
            // A packed board is a value: it rewrites to itself.
            Builtin::GridPacked => Some(self.subj_term(subj)),
            Builtin::GridBoard => {
                let Some((op, _)) = args.first().and_then(|&t| self.store.app(t)) else {
                    return Ok(None);
                };
                let name = &self.program.sig.op(op).name;
                if !name.starts_with('"') {
                    return Ok(None);
                }
                let board = Board::parse(&crate::print::unquote(name))?;
                Some(self.grid_board_term(&ops, &board))
            }
            Builtin::GridInitial => {
                let (Some(w), Some(h)) = (int(self, 0), int(self, 1)) else {
                    return Ok(None);
                };
                let mut board = Board::new(w, h)?;
                let cells = ops.cond(&self.program.sig, &self.store, args[2])?;
                // Definition 5 assumes each cell is given at most once; a second mention
                // (even with the same piece) is a mistake in the game, not a later overwrite.
                let mut given: Vec<(i64, i64)> = Vec::with_capacity(cells.len());
                for a in &cells {
                    let (crate::grid::Coord::Abs(_)
                    | crate::grid::Coord::Min
                    | crate::grid::Coord::Max) = a.x
                    else {
                        return Err("an initial cell needs absolute coordinates, not ?x".into());
                    };
                    let (crate::grid::Coord::Abs(_)
                    | crate::grid::Coord::Min
                    | crate::grid::Coord::Max) = a.y
                    else {
                        return Err("an initial cell needs absolute coordinates, not ?y".into());
                    };
                    if a.negated {
                        return Err("an initial cell cannot be a NOT".into());
                    }
                    let (x, y) = (coord_abs(a.x, w), coord_abs(a.y, h));
                    if !board.contains(x, y) {
                        return Err(format!(
                            "the initial cell {}({x}, {y}) is outside the {w}x{h} board",
                            a.piece.name()
                        ));
                    }
                    if given.contains(&(x, y)) {
                        return Err(format!("the initial board gives cell ({x}, {y}) twice"));
                    }
                    given.push((x, y));
                    board.set(x, y, a.piece);
                }
                Some(self.grid_board_term(&ops, &board))
            }
            Builtin::GridMoves => {
                let Some(bd) = board(self, 0) else {
                    return Ok(None);
                };
                let Some((union, empty)) = ops.set_ops(subj.op) else {
                    return Err("the result sort of `moves` has no set union `_,_`".into());
                };
                let compiled = self.compiled_actions(&ops, args[1], &bd)?;
                let succ = compiled.successors(&bd);
                let mut terms = Vec::with_capacity(succ.len());
                for (_, _, _, next) in &succ {
                    let t = self.grid_board_term(&ops, next);
                    terms.push(t);
                }
                Some(if terms.is_empty() {
                    self.store.mk_app(empty, &[])
                } else {
                    self.store.mk_app(union, &terms)
                })
            }
            Builtin::GridHolds => {
                let Some(bd) = board(self, 0) else {
                    return Ok(None);
                };
                let key = (args[1], bd.width, bd.height);
                let goals = match self.grid_cache.goals.get(&key) {
                    Some(g) => g.clone(),
                    None => {
                        let g = ops.goals(&self.program.sig, &self.store, args[1])?;
                        let g = Arc::new(CompiledGoals::new(g, bd.width as i64, bd.height as i64)?);
                        self.grid_cache.goals.insert(key, g.clone());
                        g
                    }
                };
                self.mk_bool(goals.holds(&bd))
            }
            Builtin::GridAt => {
                let (Some(bd), Some(x), Some(y)) = (board(self, 0), int(self, 1), int(self, 2))
                else {
                    return Ok(None);
                };
                if !bd.contains(x, y) {
                    return Err(format!(
                        "({x}, {y}) is not on the {}x{} board",
                        bd.width, bd.height
                    ));
                }
                let p = bd.get(x, y);
                Some(self.store.mk_app(ops.piece_op(p), &[]))
            }
            Builtin::GridPieces => {
                let Some(bd) = board(self, 0) else {
                    return Ok(None);
                };
                let Some(p) = args.get(1).and_then(|&t| ops.piece_of(&self.store, t)) else {
                    return Ok(None);
                };
                Some(self.store.mk_int(bd.count(p) as i64))
            }
            Builtin::GridColumns | Builtin::GridRows => {
                let Some(bd) = board(self, 0) else {
                    return Ok(None);
                };
                let v = if b == Builtin::GridColumns {
                    bd.width
                } else {
                    bd.height
                };
                Some(self.store.mk_int(v as i64))
            }
            _ => None,
        })
    }

    /// The board as a (normal) term.
    fn grid_board_term(&mut self, ops: &crate::grid::GridOps, board: &Board) -> TermId {
        let t = board.to_term(&mut self.store, ops.packed);
        self.set_normal(t);
        t
    }

    /// The actions term `t` compiled for `board`'s size (cached).
    fn compiled_actions(
        &mut self,
        ops: &crate::grid::GridOps,
        t: TermId,
        board: &Board,
    ) -> Result<Arc<Compiled>, String> {
        let key = (t, board.width, board.height);
        if let Some(c) = self.grid_cache.actions.get(&key) {
            return Ok(c.clone());
        }
        let actions = ops.actions(&self.program.sig, &self.store, t)?;
        let c = Arc::new(Compiled::new(
            actions,
            board.width as i64,
            board.height as i64,
        )?);
        self.grid_cache.actions.insert(key, c.clone());
        Ok(c)
    }

    /// The grid operators, if the program has the standard library's GRID-SYNTAX.
    pub fn grid_ops(&self) -> Option<&crate::grid::GridOps> {
        self.grid.as_deref()
    }

    /// The board a term is, if it is one.
    pub fn grid_board(&self, t: TermId) -> Option<Board> {
        self.grid.as_ref()?.board(&self.store, t)
    }

    /// The piece a term names, if it is one of `black`, `white`, `open`.
    pub fn grid_piece(&self, t: TermId) -> Option<Piece> {
        self.grid.as_ref()?.piece_of(&self.store, t)
    }
}

fn coord_abs(c: crate::grid::Coord, max: i64) -> i64 {
    match c {
        crate::grid::Coord::Abs(v) => v,
        crate::grid::Coord::Min => 1,
        crate::grid::Coord::Max => max,
        crate::grid::Coord::Rel(k) => k,
    }
}
