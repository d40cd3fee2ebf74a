//! Grid games in the engine (seed 001's BDDL, sections 3.1-3.3): boards as terms, and
//! actions and goals compiled from their GRID-SYNTAX terms (stdlib/grid.game) so that the
//! built-ins `moves`, `holds`, `at`, … apply them natively. The boards themselves, and
//! Definitions 4-8 of the seed, are the `gamelang-board` crate's (no terms there).
//!
//! A board is a term too: the hidden constructor `packed-board` applied to integer
//! literals — width, height, then for every 64 cells (numbered row by row from the top
//! left) a word of black cells and a word of white cells. Hash-consing makes equal boards
//! one term, so memo tables and successor sets work on them as on any value; copying one
//! is copying a few words. It prints as `board("x../.o./...")`, which reads back.

use crate::term::{TermData, TermId, TermStore};
pub use gamelang_board::{
    bounds, holds, Action, Atom, Board, Capture, Captures, Compiled, CompiledGoals, Coord, Goals,
    Piece, Range, MAX_SIDE,
};
use gamelang_lang::program::{Builtin, OpId, Signature};
use rustc_hash::FxHashMap;
use std::sync::Arc as Rc;

/// A board as a term of the hidden constructor `packed`, and back.
pub trait BoardTerm: Sized {
    /// The board as a term of the hidden constructor `packed`.
    fn to_term(&self, store: &mut TermStore, packed: OpId) -> TermId;
    /// Read a `packed` term back (`None` if `t` is not one).
    fn from_term(store: &TermStore, packed: OpId, t: TermId) -> Option<Self>;
}

impl BoardTerm for Board {
    fn to_term(&self, store: &mut TermStore, packed: OpId) -> TermId {
        let words = self.words();
        let mut args = Vec::with_capacity(2 + 2 * words.len());
        args.push(store.mk_int(self.width as i64));
        args.push(store.mk_int(self.height as i64));
        for &(b, w) in words {
            args.push(store.mk_int(b as i64));
            args.push(store.mk_int(w as i64));
        }
        store.mk_app(packed, &args)
    }

    fn from_term(store: &TermStore, packed: OpId, t: TermId) -> Option<Board> {
        let (op, args) = store.app(t)?;
        if op != packed || args.len() < 2 || args.len() % 2 != 0 {
            return None;
        }
        let width = store.int(args[0])?;
        let height = store.int(args[1])?;
        let mut words = Vec::with_capacity(args.len() / 2 - 1);
        for pair in args[2..].chunks(2) {
            words.push((store.int(pair[0])? as u64, store.int(pair[1])? as u64));
        }
        Board::from_words(width, height, words)
    }
}

/// The operators of GRID-SYNTAX that the built-ins read and build, found by name.
#[derive(Clone, Debug)]
pub struct GridOps {
    pieces: [OpId; 3],
    atoms: [OpId; 3],
    not: OpId,
    conj: OpId,
    no_cells: OpId,
    /// Coordinate constants (`?x`, `?x+2`, `xmax`, …) by operator, for columns and rows.
    xs: FxHashMap<OpId, Coord>,
    ys: FxHashMap<OpId, Coord>,
    action: OpId,
    actions: OpId,
    no_actions: OpId,
    goals: OpId,
    no_goal: OpId,
    /// Line capture: `flanks(P, X, Y)`, `flip-lines(P, X, Y)`, and the goal `most-pieces`.
    flanks: OpId,
    flip_lines: OpId,
    most_pieces: OpId,
    /// The hidden constructor of boards.
    pub packed: OpId,
    /// For each `grid-moves` operator: the union and empty set of its result sort.
    sets: FxHashMap<OpId, (OpId, OpId)>,
}

const MODULE: &str = "GRID-SYNTAX";

/// The coordinate constants of one axis (`'x'` or `'y'`): `?x`, `?x+k`, `?x-k`, `xmin`,
/// `xmax`, declared in any module (a game may add offsets beyond the standard library's).
fn coordinates(sig: &Signature, axis: char) -> FxHashMap<OpId, Coord> {
    let var = format!("?{axis}");
    let (min, max) = (format!("{axis}min"), format!("{axis}max"));
    let mut out = FxHashMap::default();
    for (i, o) in sig.ops.iter().enumerate() {
        if !o.args.is_empty() {
            continue;
        }
        let c = if o.name == var {
            Coord::Rel(0)
        } else if o.name == min && o.module == MODULE {
            Coord::Min
        } else if o.name == max && o.module == MODULE {
            Coord::Max
        } else if let Some(rest) = o.name.strip_prefix(&var) {
            match rest.parse::<i64>() {
                Ok(k) if rest.starts_with(['+', '-']) => Coord::Rel(k),
                _ => continue,
            }
        } else {
            continue;
        };
        out.insert(OpId(i as u32), c);
    }
    out
}

impl GridOps {
    /// The operators, if the program has GRID-SYNTAX.
    pub fn find(sig: &Signature) -> Option<GridOps> {
        let find = |name: &str, arity: usize| -> Option<OpId> {
            sig.ops
                .iter()
                .position(|o| o.module == MODULE && o.name == name && o.args.len() == arity)
                .map(|i| OpId(i as u32))
        };
        let packed = sig
            .ops
            .iter()
            .position(|o| o.attrs.builtin == Some(Builtin::GridPacked))
            .map(|i| OpId(i as u32))?;
        let mut sets = FxHashMap::default();
        for (i, o) in sig.ops.iter().enumerate() {
            if o.attrs.builtin != Some(Builtin::GridMoves) {
                continue;
            }
            let union = sig.ops.iter().position(|u| {
                u.name == "_,_" && u.result == o.result && u.attrs.assoc && u.attrs.comm
            })?;
            let empty = sig.ops[union].attrs.identity?;
            sets.insert(OpId(i as u32), (OpId(union as u32), empty));
        }
        Some(GridOps {
            pieces: [
                find("open-piece", 0)?,
                find("black-piece", 0)?,
                find("white-piece", 0)?,
            ],
            atoms: [find("open", 2)?, find("black", 2)?, find("white", 2)?],
            not: find("NOT", 1)?,
            conj: find("__", 2)?,
            no_cells: find("no-cells", 0)?,
            xs: coordinates(sig, 'x'),
            ys: coordinates(sig, 'y'),
            action: find("action_:_=>_", 3)?,
            actions: find("_;_", 2)?,
            no_actions: find("no-actions", 0)?,
            goals: find("_|_", 2)?,
            no_goal: find("no-goal", 0)?,
            flanks: find("flanks", 3)?,
            flip_lines: find("flip-lines", 3)?,
            most_pieces: find("most-pieces", 0)?,
            packed,
            sets,
        })
    }

    /// The union and empty set for the result of the `grid-moves` operator `op`.
    pub fn set_ops(&self, op: OpId) -> Option<(OpId, OpId)> {
        self.sets.get(&op).copied()
    }

    /// The constant of a piece.
    pub fn piece_op(&self, p: Piece) -> OpId {
        self.pieces[p as usize]
    }

    /// The piece a constant names.
    pub fn piece_of(&self, store: &TermStore, t: TermId) -> Option<Piece> {
        let (op, _) = store.app(t)?;
        [Piece::Open, Piece::Black, Piece::White]
            .into_iter()
            .find(|&p| self.pieces[p as usize] == op)
    }

    fn coord(
        &self,
        sig: &Signature,
        store: &TermStore,
        t: TermId,
        axis: &FxHashMap<OpId, Coord>,
        name: &str,
    ) -> Result<Coord, String> {
        if let Some(v) = store.int(t) {
            return Ok(Coord::Abs(v));
        }
        store
            .op(t)
            .and_then(|op| axis.get(&op))
            .copied()
            .ok_or_else(|| {
                let what = store.op(t).map(|o| sig.op(o).name.as_str()).unwrap_or("?");
                format!("`{what}` is not a {name} coordinate")
            })
    }

    /// An atom of a condition, or a line-capture atom (`true` for `flip-lines`).
    fn part(&self, sig: &Signature, store: &TermStore, t: TermId) -> Result<Part, String> {
        match store.app(t) {
            Some((op, args)) if op == self.flanks || op == self.flip_lines => {
                let piece = self
                    .piece_of(store, args[0])
                    .filter(|&p| p != Piece::Open)
                    .ok_or("a line is captured by `black-piece` or `white-piece`")?;
                Ok(Part::Capture(
                    op == self.flip_lines,
                    Capture {
                        piece,
                        x: self.coord(sig, store, args[1], &self.xs, "column")?,
                        y: self.coord(sig, store, args[2], &self.ys, "row")?,
                    },
                ))
            }
            _ => self.atom(sig, store, t).map(Part::Atom),
        }
    }

    fn atom(&self, sig: &Signature, store: &TermStore, t: TermId) -> Result<Atom, String> {
        let (op, args) = store.app(t).ok_or("not an atom")?;
        if op == self.not {
            if matches!(store.app(args[0]), Some((o, _)) if o == self.flanks || o == self.flip_lines)
            {
                return Err(
                    "a line-capture atom (`flanks`, `flip-lines`) cannot be negated".into(),
                );
            }
            let mut a = self.atom(sig, store, args[0])?;
            a.negated = !a.negated;
            return Ok(a);
        }
        if op == self.flanks || op == self.flip_lines {
            return Err(
                "`flanks` belongs in an action's precondition and `flip-lines` in its effect"
                    .into(),
            );
        }
        let piece = match self.atoms.iter().position(|&o| o == op) {
            Some(0) => Piece::Open,
            Some(1) => Piece::Black,
            Some(2) => Piece::White,
            _ => {
                return Err("not an atom (black(X, Y), white(X, Y), open(X, Y) or NOT(...))".into())
            }
        };
        Ok(Atom {
            piece,
            negated: false,
            x: self.coord(sig, store, args[0], &self.xs, "column")?,
            y: self.coord(sig, store, args[1], &self.ys, "row")?,
        })
    }

    /// The atoms of a condition term (`a b c` or one atom).
    pub fn cond(&self, sig: &Signature, store: &TermStore, t: TermId) -> Result<Vec<Atom>, String> {
        self.items(store, t)
            .into_iter()
            .map(|a| self.atom(sig, store, a))
            .collect()
    }

    /// The items of a condition term.
    fn items(&self, store: &TermStore, t: TermId) -> Vec<TermId> {
        match store.app(t) {
            Some((op, args)) if op == self.conj => args.to_vec(),
            Some((op, _)) if op == self.no_cells => Vec::new(),
            _ => vec![t],
        }
    }

    /// The atoms of an action's condition term, and its line-capture atoms: `flanks` in a
    /// precondition (`effect` false), `flip-lines` in an effect.
    fn action_cond(
        &self,
        sig: &Signature,
        store: &TermStore,
        t: TermId,
        effect: bool,
    ) -> Result<(Vec<Atom>, Vec<Capture>), String> {
        let (mut atoms, mut caps) = (Vec::new(), Vec::new());
        for item in self.items(store, t) {
            match self.part(sig, store, item)? {
                Part::Atom(a) => atoms.push(a),
                Part::Capture(flip, c) if flip == effect => caps.push(c),
                Part::Capture(..) => return Err(
                    "`flanks` belongs in an action's precondition and `flip-lines` in its effect"
                        .into(),
                ),
            }
        }
        Ok((atoms, caps))
    }

    /// The actions of an `Actions` term.
    pub fn actions(
        &self,
        sig: &Signature,
        store: &TermStore,
        t: TermId,
    ) -> Result<Vec<Action>, String> {
        let (op, args) = store.app(t).ok_or("not a list of actions")?;
        let items: Vec<TermId> = if op == self.actions {
            args.to_vec()
        } else if op == self.no_actions {
            Vec::new()
        } else {
            vec![t]
        };
        items
            .into_iter()
            .map(|a| {
                let (op, args) = store.app(a).ok_or("not an action")?;
                if op != self.action {
                    return Err("not an action (action \"name\" : PRE => EFF)".to_string());
                }
                let name = store
                    .app(args[0])
                    .map(|(n, _)| sig.op(n).name.clone())
                    .filter(|n| n.starts_with('"'))
                    .ok_or("an action's name must be a string literal")?;
                let (pre, flanks) = self.action_cond(sig, store, args[1], false)?;
                let (eff, flips) = self.action_cond(sig, store, args[2], true)?;
                Ok(Action {
                    name: crate::print::unquote(&name),
                    pre,
                    eff,
                    captures: Captures { flanks, flips },
                })
            })
            .collect()
    }

    /// The goals of a `Goals` term (a disjunction of conditions).
    pub fn goals(
        &self,
        sig: &Signature,
        store: &TermStore,
        t: TermId,
    ) -> Result<Vec<Vec<Atom>>, String> {
        match store.app(t) {
            Some((op, args)) if op == self.goals => args
                .iter()
                .map(|&g| {
                    if self.counts(store, g) {
                        return Err(
                            "`most-pieces` is a player's whole goal, not one of several".into()
                        );
                    }
                    self.cond(sig, store, g)
                })
                .collect(),
            // `most-pieces` is decided when play ends (GRID{X}'s equations), never during it.
            Some((op, _)) if op == self.no_goal || op == self.most_pieces => Ok(Vec::new()),
            _ => Ok(vec![self.cond(sig, store, t)?]),
        }
    }

    /// Is the goals term `t` the goal `most-pieces` (play to the end, more pieces wins)?
    pub fn counts(&self, store: &TermStore, t: TermId) -> bool {
        store.op(t) == Some(self.most_pieces)
    }

    /// The board a term is (`None` if it is not a packed board).
    pub fn board(&self, store: &TermStore, t: TermId) -> Option<Board> {
        Board::from_term(store, self.packed, t)
    }

    /// Is `t` a packed board?
    pub fn is_board(&self, store: &TermStore, t: TermId) -> bool {
        matches!(store.data(t), TermData::App { op, .. } if *op == self.packed)
    }
}

/// An item of an action's condition.
enum Part {
    Atom(Atom),
    /// A line-capture atom: `flip-lines` (true) or `flanks` (false).
    Capture(bool, Capture),
}

/// Compiled actions and goals by (term, width, height), so that each list is compiled once
/// per board size. Cleared whenever term ids may be reused (garbage collection, reload).
#[derive(Default)]
pub struct GridCache {
    pub actions: FxHashMap<(TermId, u32, u32), Rc<Compiled>>,
    pub goals: FxHashMap<(TermId, u32, u32), Rc<CompiledGoals>>,
}

impl GridCache {
    pub fn clear(&mut self) {
        self.actions.clear();
        self.goals.clear();
    }
}
