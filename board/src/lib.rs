//! Boards of grid games (seed 001's BDDL, sections 3.1-3.3), without terms: a packed
//! board, the atoms, actions and goals of a game, and Definitions 4-8 of the seed — the
//! implicit bounds of a condition ([`bounds`]), a condition holding at a position, the
//! moves a set of actions allows ([`Compiled::successors`]) and goals ([`holds`]).
//!
//! Beyond the seed: line capture (Othello's rule, [`lines`]), and random play on boards
//! alone ([`play`]).
//!
//! Three users share it: the engine's grid built-ins (`runtime/src/grid.rs`, which turns
//! boards into terms and GRID-SYNTAX terms into actions and goals), the BDDL reader and
//! writers (`bddl/`), and the QBF encoding (`qbf/`), which so need no rewriting engine.
//! Definition 10 (whose turn, when play halts, who won) is the equations of `GRID{X}` in
//! `stdlib/grid.game`.

pub mod lines;
pub mod play;

pub use lines::{Capture, Captures, Lines};

/// Largest board side accepted (the board of a position is copied per move: a bound keeps
/// a mistyped size from exhausting memory, and 64 is far beyond what search can solve).
pub const MAX_SIDE: i64 = 64;

/// What a cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Open,
    Black,
    White,
}

impl Piece {
    /// The predicate's name in BDDL and GRID-SYNTAX.
    pub fn name(self) -> &'static str {
        match self {
            Piece::Open => "open",
            Piece::Black => "black",
            Piece::White => "white",
        }
    }

    /// The character used in `board("…")` and in drawings.
    pub fn symbol(self) -> char {
        match self {
            Piece::Open => '.',
            Piece::Black => 'x',
            Piece::White => 'o',
        }
    }
}

/// A board: `width` columns × `height` rows, two bits a cell.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub width: u32,
    pub height: u32,
    /// Per 64 cells: (black bits, white bits).
    words: Vec<(u64, u64)>,
}

impl Board {
    /// An open board. Sides must be in 1..=[`MAX_SIDE`].
    pub fn new(width: i64, height: i64) -> Result<Board, String> {
        for (what, v) in [("width", width), ("height", height)] {
            if !(1..=MAX_SIDE).contains(&v) {
                return Err(format!(
                    "a board's {what} must be between 1 and {MAX_SIDE}, not {v}"
                ));
            }
        }
        let cells = (width * height) as usize;
        Ok(Board {
            width: width as u32,
            height: height as u32,
            words: vec![(0, 0); cells.div_ceil(64)],
        })
    }

    /// Is (x, y) on the board (1-based)?
    pub fn contains(&self, x: i64, y: i64) -> bool {
        x >= 1 && y >= 1 && x <= self.width as i64 && y <= self.height as i64
    }

    fn index(&self, x: i64, y: i64) -> (usize, u64) {
        let k = (y - 1) as usize * self.width as usize + (x - 1) as usize;
        (k / 64, 1u64 << (k % 64))
    }

    /// The piece on column x, row y (1-based, on the board).
    pub fn get(&self, x: i64, y: i64) -> Piece {
        let (w, bit) = self.index(x, y);
        let (b, wh) = self.words[w];
        if b & bit != 0 {
            Piece::Black
        } else if wh & bit != 0 {
            Piece::White
        } else {
            Piece::Open
        }
    }

    /// Put `p` on column x, row y (1-based, on the board).
    pub fn set(&mut self, x: i64, y: i64, p: Piece) {
        let (w, bit) = self.index(x, y);
        let (b, wh) = &mut self.words[w];
        *b &= !bit;
        *wh &= !bit;
        match p {
            Piece::Black => *b |= bit,
            Piece::White => *wh |= bit,
            Piece::Open => {}
        }
    }

    /// The number of cells holding `p`.
    pub fn count(&self, p: Piece) -> u32 {
        let (b, w): (u32, u32) = self.words.iter().fold((0, 0), |(b, w), &(x, y)| {
            (b + x.count_ones(), w + y.count_ones())
        });
        match p {
            Piece::Black => b,
            Piece::White => w,
            Piece::Open => self.width * self.height - b - w,
        }
    }

    /// The cells that are not open, row by row: `(piece, x, y)` (BDDL's `#init`).
    pub fn cells(&self) -> Vec<(Piece, i64, i64)> {
        let mut out = Vec::new();
        for y in 1..=self.height as i64 {
            for x in 1..=self.width as i64 {
                let p = self.get(x, y);
                if p != Piece::Open {
                    out.push((p, x, y));
                }
            }
        }
        out
    }

    /// Rows top to bottom separated by `/`: `x../.o./...`.
    pub fn compact(&self) -> String {
        let mut s = String::new();
        for y in 1..=self.height as i64 {
            if y > 1 {
                s.push('/');
            }
            for x in 1..=self.width as i64 {
                s.push(self.get(x, y).symbol());
            }
        }
        s
    }

    /// Read [`Board::compact`]'s form back.
    pub fn parse(text: &str) -> Result<Board, String> {
        let rows: Vec<&str> = text.split('/').collect();
        let width = rows[0].chars().count();
        if rows.iter().any(|r| r.chars().count() != width) {
            return Err("every row of a board must have the same length".into());
        }
        let mut b = Board::new(width as i64, rows.len() as i64)?;
        for (j, row) in rows.iter().enumerate() {
            for (i, c) in row.chars().enumerate() {
                let p = match c {
                    '.' => Piece::Open,
                    'x' => Piece::Black,
                    'o' => Piece::White,
                    _ => {
                        return Err(format!(
                            "unexpected `{c}` in a board: cells are x (black), o (white) or . (open), rows are separated by /"
                        ))
                    }
                };
                b.set(i as i64 + 1, j as i64 + 1, p);
            }
        }
        Ok(b)
    }

    /// The packed cells: per 64 cells (numbered row by row from the top left), a word of
    /// black cells and a word of white cells.
    pub fn words(&self) -> &[(u64, u64)] {
        &self.words
    }

    /// A board from [`Board::words`] (`None` if their number does not fit the size).
    pub fn from_words(width: i64, height: i64, words: Vec<(u64, u64)>) -> Option<Board> {
        let b = Board {
            width: width as u32,
            height: height as u32,
            words,
        };
        (b.words.len() == ((width * height) as usize).div_ceil(64)).then_some(b)
    }

    /// The board drawn as `gamelang play` shows it: column letters, row numbers, x (black),
    /// o (white), . (open).
    pub fn draw(&self) -> String {
        let mut s = String::from("   ");
        for x in 1..=self.width {
            s.push(' ');
            s.push(char::from(b'a' + ((x - 1) % 26) as u8));
        }
        s.push('\n');
        for y in 1..=self.height as i64 {
            s.push_str(&format!("{y:>3}"));
            for x in 1..=self.width as i64 {
                s.push(' ');
                s.push(self.get(x, y).symbol());
            }
            s.push('\n');
        }
        s
    }
}

/// A coordinate of an atom: relative to the position an action or goal is tried at, or
/// absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coord {
    /// `?x + k` (k may be negative: `?x - 2` is `Rel(-2)`).
    Rel(i64),
    /// A number.
    Abs(i64),
    /// `xmin` / `ymin`.
    Min,
    /// `xmax` / `ymax`.
    Max,
}

impl Coord {
    fn at(self, i: i64, max: i64) -> i64 {
        match self {
            Coord::Rel(k) => i + k,
            Coord::Abs(v) => v,
            Coord::Min => 1,
            Coord::Max => max,
        }
    }
}

/// `p(x, y)` or `NOT(p(x, y))`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Atom {
    pub piece: Piece,
    pub negated: bool,
    pub x: Coord,
    pub y: Coord,
}

/// Positions to try a condition at: inclusive column and row ranges `(x_lo, x_hi, y_lo,
/// y_hi)`, empty when lo > hi.
pub type Range = (i64, i64, i64, i64);

/// Goals: a disjunction of conjunctions of atoms.
pub type Goals = Vec<Vec<Atom>>;

/// An action: a name, a precondition and an effect (conjunctions of atoms), and the
/// line-capture atoms of both ([`lines`]; none in seed 001's BDDL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Action {
    pub name: String,
    pub pre: Vec<Atom>,
    pub eff: Vec<Atom>,
    pub captures: Captures,
}

impl Action {
    /// The coordinates of every atom of the action, line-capture atoms included (what its
    /// implicit bounds are computed from).
    fn coords(&self) -> Vec<Atom> {
        let capture = |c: &Capture| Atom {
            piece: c.piece,
            negated: false,
            x: c.x,
            y: c.y,
        };
        let caps = &self.captures;
        self.pre
            .iter()
            .chain(&self.eff)
            .copied()
            .chain(caps.flanks.iter().chain(&caps.flips).map(capture))
            .collect()
    }
}

/// The implicit bounds of a condition (Definition 4): the positions (i, j) at which every
/// relative coordinate stays on a width × height board, as inclusive ranges
/// `(x_lo, x_hi, y_lo, y_hi)` (empty when lo > hi). The seed prints the y-interval as
/// `[1 + l_y, 1 - u_y]`; the computation (and its own example, `[1,3] x [1,4]` on a 5x4 board)
/// needs `[1 + l_y, n - u_y]`.
pub fn bounds<'a>(
    atoms: impl IntoIterator<Item = &'a Atom>,
    width: i64,
    height: i64,
) -> (i64, i64, i64, i64) {
    let (mut lx, mut ux, mut ly, mut uy) = (0, 0, 0, 0);
    for a in atoms {
        if let Coord::Rel(k) = a.x {
            lx = lx.max(-k);
            ux = ux.max(k);
        }
        if let Coord::Rel(k) = a.y {
            ly = ly.max(-k);
            uy = uy.max(k);
        }
    }
    (1 + lx, width - ux, 1 + ly, height - uy)
}

/// The positions worth trying a condition at: its bounds, except that an axis no atom
/// refers to relatively (`open(?x,ymax)`, the ground goals of Hex) is tried at one
/// position only — every position in the bounds gives the same answer and the same move.
fn search_range<'a>(
    atoms: impl IntoIterator<Item = &'a Atom> + Clone,
    width: i64,
    height: i64,
) -> (i64, i64, i64, i64) {
    let (lx, hx, ly, hy) = bounds(atoms.clone(), width, height);
    let rel_x = atoms
        .clone()
        .into_iter()
        .any(|a| matches!(a.x, Coord::Rel(_)));
    let rel_y = atoms.into_iter().any(|a| matches!(a.y, Coord::Rel(_)));
    (
        lx,
        if rel_x { hx } else { lx },
        ly,
        if rel_y { hy } else { ly },
    )
}

/// Does the conjunction hold at (i, j) (Definition 6)? The caller keeps (i, j) within the
/// condition's bounds; absolute coordinates were checked against the board when compiled.
#[inline]
fn holds_at(board: &Board, atoms: &[Atom], i: i64, j: i64) -> bool {
    let (w, h) = (board.width as i64, board.height as i64);
    atoms
        .iter()
        .all(|a| (board.get(a.x.at(i, w), a.y.at(j, h)) == a.piece) != a.negated)
}

/// Check the absolute coordinates of `atoms` against a width × height board.
fn check_absolute(atoms: &[Atom], width: i64, height: i64, what: &str) -> Result<(), String> {
    for a in atoms {
        for (c, max, axis) in [(a.x, width, "column"), (a.y, height, "row")] {
            if let Coord::Abs(v) = c {
                if v < 1 || v > max {
                    return Err(format!(
                        "{what} refers to {axis} {v}, outside the {width}x{height} board"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A player's actions, each with the positions to try it at on a given board size, and
/// the board's lines when an action captures along them.
#[derive(Debug)]
pub struct Compiled {
    pub actions: Vec<(Action, Range)>,
    pub lines: Option<Lines>,
}

/// The cell number (row by row from the top left, from 0) of a capture at (i, j).
fn capture_cell(c: &Capture, i: i64, j: i64, width: i64, height: i64) -> usize {
    ((c.y.at(j, height) - 1) * width + (c.x.at(i, width) - 1)) as usize
}

/// Goals compiled for a board size: each with the positions to try it at.
#[derive(Debug)]
pub struct CompiledGoals {
    goals: Vec<(Vec<Atom>, Range)>,
}

impl CompiledGoals {
    /// Check absolute coordinates and compute the ranges.
    pub fn new(goals: Goals, width: i64, height: i64) -> Result<CompiledGoals, String> {
        for g in &goals {
            check_absolute(g, width, height, "a goal")?;
        }
        Ok(CompiledGoals {
            goals: goals
                .into_iter()
                .map(|g| {
                    let r = search_range(&g, width, height);
                    (g, r)
                })
                .collect(),
        })
    }

    /// Does one of the goals hold at some position within its bounds (Definition 8)?
    pub fn holds(&self, board: &Board) -> bool {
        self.goals.iter().any(|(g, (lx, hx, ly, hy))| {
            (*ly..=*hy).any(|j| (*lx..=*hx).any(|i| holds_at(board, g, i, j)))
        })
    }
}

impl Compiled {
    /// Compile `actions` for a width × height board: the interval `I_a = BD(pre) ∩ BD(eff)`
    /// of Definition 7, and checks that effects are positive and absolute coordinates fit.
    pub fn new(actions: Vec<Action>, width: i64, height: i64) -> Result<Compiled, String> {
        let mut out = Vec::with_capacity(actions.len());
        for a in actions {
            if a.eff.iter().any(|e| e.negated) {
                return Err(format!(
                    "the effect of action `{}` has a NOT: an effect says what a cell holds afterwards",
                    a.name
                ));
            }
            let what = format!("action `{}`", a.name);
            let coords = a.coords();
            check_absolute(&coords, width, height, &what)?;
            let caps = &a.captures;
            if caps
                .flanks
                .iter()
                .chain(&caps.flips)
                .any(|c| c.piece == Piece::Open)
            {
                return Err(format!(
                    "action `{}` captures lines for `open-piece`: a line is flanked by black-piece or white-piece",
                    a.name
                ));
            }
            let bd = search_range(&coords, width, height);
            out.push((a, bd));
        }
        let lines = out
            .iter()
            .any(|(a, _)| !a.captures.is_empty())
            .then(|| Lines::new(width, height));
        Ok(Compiled {
            actions: out,
            lines,
        })
    }

    /// Does the action's precondition hold at (i, j), its line-capture atoms included?
    fn allows(&self, a: &Action, board: &Board, i: i64, j: i64) -> bool {
        let (w, h) = (board.width as i64, board.height as i64);
        holds_at(board, &a.pre, i, j)
            && a.captures.flanks.iter().all(|c| {
                let lines = self.lines.as_ref().expect("lines for a capture");
                lines.flanks(&board.words, c.piece, capture_cell(c, i, j, w, h))
            })
    }

    /// The action's effect at (i, j) on `board`: the flanked lines flipped, in the order
    /// written, then the atoms made true, in the order written.
    fn apply(&self, a: &Action, board: &mut Board, i: i64, j: i64) {
        let (w, h) = (board.width as i64, board.height as i64);
        for c in &a.captures.flips {
            let lines = self.lines.as_ref().expect("lines for a capture");
            lines.flip(&mut board.words, c.piece, capture_cell(c, i, j, w, h));
        }
        for e in &a.eff {
            board.set(e.x.at(i, w), e.y.at(j, h), e.piece);
        }
    }

    /// Every move from `board` (Definition 7), as (action index, i, j, resulting board), in
    /// the order: action, row, column. Two moves may lead to the same board.
    pub fn successors(&self, board: &Board) -> Vec<(usize, i64, i64, Board)> {
        let mut out = Vec::new();
        for (k, (a, (lx, hx, ly, hy))) in self.actions.iter().enumerate() {
            for j in *ly..=*hy {
                for i in *lx..=*hx {
                    if self.allows(a, board, i, j) {
                        let mut next = board.clone();
                        self.apply(a, &mut next, i, j);
                        out.push((k, i, j, next));
                    }
                }
            }
        }
        out
    }
}

/// Does one of the goals hold at some position within its bounds (Definition 8)?
pub fn holds(board: &Board, goals: &[Vec<Atom>]) -> bool {
    CompiledGoals::new(goals.to_vec(), board.width as i64, board.height as i64)
        .is_ok_and(|g| g.holds(board))
}
