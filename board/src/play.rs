//! Random play of a grid game on boards alone, for agents' random playouts: the game of
//! stdlib/grid.game's `GRID{X}` (Definitions 7-10 of seed 001) without terms. A playout
//! through the rewriting engine builds every successor of every position as a term to use
//! one. Here every action and goal is compiled once, at every position of the board, to
//! masks on the board's words (an `Instance`); each player's moves are a set of bits,
//! one per action instance, tested again after a move only where the move wrote a cell
//! the instance looks at; a move is drawn among them with one random number (when no two
//! instances can lead to one board), and only the goal instances that look at a written
//! cell are tested.
//!
//! The semantics is `GRID{X}`'s, which the caller checks against the game's own
//! operators (tests/playouts.rs replays playouts through the equations, move by move):
//! at a board with player `p` to move, play has stopped when the goals of the other
//! player (who has just moved) hold, and that player has won; otherwise `p` moves to one of
//! the distinct boards its actions lead to, chosen uniformly; a player without a move
//! gives up with one more ply, and then loses or draws as the game says ([`GridPlay::new`]'s
//! `end`) — or, in a counted game (Othello), passes while the other player has a move,
//! and play ends where neither has, more pieces winning.
//!
//! Actions that capture along lines ([`crate::lines`]) are tested and applied by the same
//! [`Lines`] as the engine's `moves`; as such a move writes cells that depend on the board,
//! after it every instance of both players, and their goals, are tested again in full.

use crate::{Atom, Board, Capture, Compiled, CompiledGoals, Lines, Piece};
use smallvec::SmallVec;

/// Black (B) is player 0, White (R) player 1, as in the agents' players.
pub const BLACK: usize = 0;
pub const WHITE: usize = 1;

/// A conjunction of atoms at one position, on one word of the board (cells 64 w to
/// 64 w + 63): the cells that must be black, white, open, not black, not white, not open.
#[derive(Clone, Copy, Debug, Default)]
struct Test {
    word: usize,
    black: u64,
    white: u64,
    open: u64,
    not_black: u64,
    not_white: u64,
    not_open: u64,
}

impl Test {
    fn holds(&self, words: &[(u64, u64)]) -> bool {
        let (b, w) = words[self.word];
        self.holds_on(b, w)
    }

    /// On the black and white cells `b`, `w` of its word.
    #[inline]
    fn holds_on(&self, b: u64, w: u64) -> bool {
        let any = b | w;
        b & self.black == self.black
            && w & self.white == self.white
            && any & self.open == 0
            && b & self.not_black == 0
            && w & self.not_white == 0
            && any & self.not_open == self.not_open
    }
}

/// An effect on one word: the cells written, and which of them end black or white.
#[derive(Clone, Copy, Debug, Default)]
struct Write {
    word: usize,
    cells: u64,
    black: u64,
    white: u64,
}

/// An action or a goal at one position of the board: its tests (one per word it looks
/// at), and for an action its writes and the cells they write.
/// Inline for one or two words (a board of up to 64 cells has one): no pointer to chase
/// in the loop over a player's instances.
#[derive(Clone, Debug, Default)]
struct Instance {
    tests: SmallVec<[Test; 1]>,
    writes: SmallVec<[Write; 1]>,
    /// The cells written, and the piece each ends with.
    cells: SmallVec<[usize; 2]>,
    ends: SmallVec<[Piece; 2]>,
    /// The cells the precondition looks at.
    looks: SmallVec<[usize; 4]>,
    /// The written cells whose piece the precondition says is another one: wherever the
    /// instance is a move, it changes them; with the piece the precondition says the cell
    /// holds before, if it says one.
    changes: SmallVec<[(usize, Option<Piece>); 2]>,
    /// Line capture: the cells (and the capturing piece) of the precondition's `flanks`
    /// and of the effect's `flip-lines`.
    flanks: SmallVec<[(Piece, usize); 1]>,
    flips: SmallVec<[(Piece, usize); 1]>,
}

impl Instance {
    fn holds(&self, words: &[(u64, u64)], lines: Option<&Lines>) -> bool {
        self.tests.iter().all(|t| t.holds(words)) && self.flanked(words, lines)
    }

    /// Do the precondition's `flanks` hold (true without any)?
    #[inline]
    fn flanked(&self, words: &[(u64, u64)], lines: Option<&Lines>) -> bool {
        self.flanks
            .iter()
            .all(|&(p, k)| lines.expect("lines for a capture").flanks(words, p, k))
    }

    /// The effect: the flanked lines flipped (as [`Compiled::successors`] does), then the
    /// atoms written.
    fn apply(&self, words: &mut [(u64, u64)], lines: Option<&Lines>) {
        for &(p, k) in &self.flips {
            lines.expect("lines for a capture").flip(words, p, k);
        }
        for wr in &self.writes {
            let (b, w) = &mut words[wr.word];
            *b = (*b & !wr.cells) | wr.black;
            *w = (*w & !wr.cells) | wr.white;
        }
    }
}

/// The cell number (row by row from the top left, from 0) of (x, y), and its word and bit.
fn cell(width: i64, x: i64, y: i64) -> (usize, usize, u64) {
    let k = ((y - 1) * width + (x - 1)) as usize;
    (k, k / 64, 1u64 << (k % 64))
}

/// The instance of `pre` (and of the effect `eff`, and of the line-capture atoms `caps`:
/// `flanks`, `flip-lines`) at (i, j).
fn instance(
    width: i64,
    height: i64,
    (pre, eff, caps): (&[Atom], &[Atom], [&[Capture]; 2]),
    i: i64,
    j: i64,
) -> Instance {
    let mut out = Instance::default();
    let at = |c: &Capture| (c.piece, cell(width, c.x.at(i, width), c.y.at(j, height)).0);
    out.flanks = caps[0].iter().map(at).collect();
    out.flips = caps[1].iter().map(at).collect();
    for a in pre {
        let (k, word, bit) = cell(width, a.x.at(i, width), a.y.at(j, height));
        if !out.looks.contains(&k) {
            out.looks.push(k);
        }
        let t = match out.tests.iter_mut().position(|t| t.word == word) {
            Some(k) => &mut out.tests[k],
            None => {
                out.tests.push(Test {
                    word,
                    ..Test::default()
                });
                out.tests.last_mut().expect("just pushed")
            }
        };
        let mask = match (a.piece, a.negated) {
            (Piece::Black, false) => &mut t.black,
            (Piece::White, false) => &mut t.white,
            (Piece::Open, false) => &mut t.open,
            (Piece::Black, true) => &mut t.not_black,
            (Piece::White, true) => &mut t.not_white,
            (Piece::Open, true) => &mut t.not_open,
        };
        *mask |= bit;
    }
    // Effects in the order written: a later one on the same cell wins.
    for e in eff {
        let (k, word, bit) = cell(width, e.x.at(i, width), e.y.at(j, height));
        match out.cells.iter().position(|&c| c == k) {
            Some(at) => out.ends[at] = e.piece,
            None => {
                out.cells.push(k);
                out.ends.push(e.piece);
            }
        }
        let wr = match out.writes.iter_mut().position(|w| w.word == word) {
            Some(k) => &mut out.writes[k],
            None => {
                out.writes.push(Write {
                    word,
                    ..Write::default()
                });
                out.writes.last_mut().expect("just pushed")
            }
        };
        wr.cells |= bit;
        wr.black &= !bit;
        wr.white &= !bit;
        match e.piece {
            Piece::Black => wr.black |= bit,
            Piece::White => wr.white |= bit,
            Piece::Open => {}
        }
    }
    for (&k, &end) in out.cells.iter().zip(&out.ends) {
        let other = pre.iter().any(|a| {
            cell(width, a.x.at(i, width), a.y.at(j, height)).0 == k
                && if a.negated {
                    a.piece == end
                } else {
                    a.piece != end
                }
        });
        if other {
            let before = pre.iter().find_map(|a| {
                (!a.negated && cell(width, a.x.at(i, width), a.y.at(j, height)).0 == k)
                    .then_some(a.piece)
            });
            out.changes.push((k, before));
        }
    }
    out
}

impl Instance {
    /// The piece this instance leaves on cell `k`, if it writes it.
    fn end_at(&self, k: usize) -> Option<Piece> {
        self.cells
            .iter()
            .position(|&c| c == k)
            .map(|at| self.ends[at])
    }

    /// Can this instance and `other` never lead to one board? True when one of them
    /// changes a cell to a piece the other leaves elsewise (does not write, so leaves the
    /// piece that was there, or writes another piece), or when both write a cell with
    /// different pieces. A cell the other does not write may still be flipped by its
    /// `flip-lines` (atoms are written after the flips, so a written cell ends as written):
    /// to the flipping piece, and only from the opponent's piece (Othello's placements on
    /// different open cells stay apart: an open cell is never flipped).
    fn never_same(&self, other: &Instance) -> bool {
        let flippable = |b: &Instance, before: Option<Piece>, end: Option<Piece>| {
            b.flips.iter().any(|&(p, _)| {
                let theirs = match p {
                    Piece::Black => Piece::White,
                    _ => Piece::Black,
                };
                Some(p) == end && before.is_none_or(|q| q == theirs)
            })
        };
        let changes_apart = |a: &Instance, b: &Instance| {
            a.changes.iter().any(|&(k, before)| {
                let end = a.end_at(k);
                b.end_at(k) != end && !(b.end_at(k).is_none() && flippable(b, before, end))
            })
        };
        changes_apart(self, other)
            || changes_apart(other, self)
            || self
                .cells
                .iter()
                .any(|&k| matches!(other.end_at(k), Some(p) if Some(p) != self.end_at(k)))
    }
}

/// A player with at most this many action instances has them checked pairwise, once,
/// for whether two can lead to one board (more: the boards are compared at each move).
const PAIRWISE: usize = 1024;

/// The bits set in `bits`, counted.
fn count(bits: &[u64]) -> usize {
    bits.iter().map(|w| w.count_ones() as usize).sum()
}

/// The index of the `r`-th bit set in `bits` (from 0, lowest first).
fn select(bits: &[u64], mut r: usize) -> usize {
    for (i, &w) in bits.iter().enumerate() {
        let n = w.count_ones() as usize;
        if r < n {
            let mut w = w;
            for _ in 0..r {
                w &= w - 1;
            }
            return i * 64 + w.trailing_zeros() as usize;
        }
        r -= n;
    }
    unreachable!("fewer bits set than asked for")
}

/// How a random game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The winner (0 Black, 1 White); `None` for a draw or a game stopped at the limit.
    pub winner: Option<usize>,
    /// Moves played (a player giving up counts as one, as in `GRID{X}`).
    pub plies: usize,
    /// Stopped at the limit before the game ended.
    pub stopped: bool,
}

/// A position of a grid game ([`GridPlay::node`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GridNode {
    /// Play is over: the winner (0 Black, 1 White), `None` for a draw.
    Over(Option<usize>),
    /// The distinct boards the player to move can go to.
    Moves(Vec<Board>),
    /// The player to move has no move (and gives up).
    Stuck,
}

/// One player's rules at every position of the board: the action instances in the order
/// of [`Compiled::successors`] (action, row, column), the goal instances, and for each
/// cell the goal instances that look at it.
#[derive(Debug)]
struct Side {
    actions: Vec<Instance>,
    goals: Vec<Instance>,
    near: Vec<Vec<u32>>,
    /// On a board of one word (up to 64 cells, Connect-4 and Breakthrough 8 x 8): each
    /// action's and goal's one test, side by side (the loop over them is the playout's
    /// inner loop).
    one: Option<(Vec<Test>, Vec<Test>)>,
    /// For each cell the action instances whose precondition looks at it (after a move
    /// only those are tested again).
    watch: Vec<Vec<u32>>,
    /// No two action instances can lead to one board (checked pairwise when there are
    /// few; otherwise boards are compared at each move).
    distinct: bool,
    /// Some action has a `flanks` precondition.
    flanks: bool,
    /// With black's pieces, with white's.
    flank_pieces: [bool; 2],
}

/// How play ends when the player to move has no move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The player gives up (one more ply, into `stuck(p, b)`): the winner when player `p`
    /// cannot move (`None`: a draw).
    Stuck([Option<usize>; 2]),
    /// A counted game (both players' goals `most-pieces`): the player passes (the same
    /// board, the other to move) while the other has a move; where neither has, the player
    /// gives up as above and the one with more pieces wins (equal: a draw).
    Count,
}

/// The one test of an instance on a board of one word (no test: one that always holds).
fn only_test(i: &Instance) -> Test {
    i.tests.first().copied().unwrap_or_default()
}

/// A grid game's rules compiled for one board size, to be played at random.
#[derive(Debug)]
pub struct GridPlay {
    width: u32,
    height: u32,
    sides: [Side; 2],
    end: End,
    /// The board's lines, when an action captures along them.
    lines: Option<Lines>,
    /// Some action flips lines: the cells a move writes depend on the board.
    dynamic: bool,
}

impl GridPlay {
    /// `actions` and `goals` of Black and of White, compiled for a `width` x `height`
    /// board, and what happens when a player cannot move (for [`End::Stuck`], from the
    /// game's `won`/`lost` of a `stuck` position).
    pub fn new(
        width: u32,
        height: u32,
        actions: [Compiled; 2],
        goals: [CompiledGoals; 2],
        end: End,
    ) -> GridPlay {
        let (w, h) = (width as i64, height as i64);
        let lines = actions.iter().find_map(|c| c.lines.clone());
        let [ab, aw] = actions;
        let [gb, gw] = goals;
        let side = |acts: Compiled, goals: CompiledGoals| {
            let mut out = Side {
                actions: Vec::new(),
                goals: Vec::new(),
                near: vec![Vec::new(); (width * height) as usize],
                one: None,
                watch: vec![Vec::new(); (width * height) as usize],
                distinct: false,
                flanks: false,
                flank_pieces: [false; 2],
            };
            for (a, (lx, hx, ly, hy)) in &acts.actions {
                let caps = [&a.captures.flanks[..], &a.captures.flips[..]];
                out.flanks |= !a.captures.flanks.is_empty();
                for c in &a.captures.flanks {
                    out.flank_pieces[(c.piece == Piece::White) as usize] = true;
                }
                for j in *ly..=*hy {
                    for i in *lx..=*hx {
                        out.actions
                            .push(instance(w, h, (&a.pre, &a.eff, caps), i, j));
                    }
                }
            }
            for (g, (lx, hx, ly, hy)) in &goals.goals {
                for j in *ly..=*hy {
                    for i in *lx..=*hx {
                        let id = out.goals.len() as u32;
                        for a in g {
                            let (k, _, _) = cell(w, a.x.at(i, w), a.y.at(j, h));
                            if out.near[k].last() != Some(&id) {
                                out.near[k].push(id);
                            }
                        }
                        out.goals.push(instance(w, h, (g, &[], [&[], &[]]), i, j));
                    }
                }
            }
            for (id, a) in out.actions.iter().enumerate() {
                for &k in &a.looks {
                    out.watch[k].push(id as u32);
                }
            }
            let acts = &out.actions;
            out.distinct = acts.len() <= PAIRWISE
                && (0..acts.len())
                    .all(|x| (x + 1..acts.len()).all(|y| acts[x].never_same(&acts[y])));
            if width * height <= 64 {
                out.one = Some((
                    out.actions.iter().map(only_test).collect(),
                    out.goals.iter().map(only_test).collect(),
                ));
            }
            out
        };
        let sides = [side(ab, gb), side(aw, gw)];
        let dynamic = sides
            .iter()
            .any(|s| s.actions.iter().any(|a| !a.flips.is_empty()));
        GridPlay {
            width,
            height,
            sides,
            end,
            lines,
            dynamic,
        }
    }

    /// Do `player`'s goals hold anywhere (`holds` of stdlib/grid.game)?
    fn holds(&self, player: usize, words: &[(u64, u64)]) -> bool {
        match &self.sides[player].one {
            Some((_, goals)) => {
                let (b, w) = words[0];
                goals.iter().any(|t| t.holds_on(b, w))
            }
            None => self.sides[player]
                .goals
                .iter()
                .any(|g| g.holds(words, None)),
        }
    }

    /// Does `player`'s action instance `k` hold (is it a move)?
    #[inline]
    fn legal(&self, player: usize, k: usize, words: &[(u64, u64)]) -> bool {
        let side = &self.sides[player];
        match &side.one {
            Some((tests, _)) => {
                let (b, w) = words[0];
                tests[k].holds_on(b, w) && (!side.flanks || self.flanked(player, k, words))
            }
            None => side.actions[k].holds(words, self.lines.as_ref()),
        }
    }

    /// Do `player`'s goals hold at a position that looks at one of `cells`? Where they
    /// held nowhere before a move, only such positions can hold after it (the other
    /// cells are as they were).
    fn holds_near(&self, player: usize, words: &[(u64, u64)], cells: &[usize]) -> bool {
        let side = &self.sides[player];
        match &side.one {
            Some((_, goals)) => {
                let (b, w) = words[0];
                cells.iter().any(|&k| {
                    side.near[k]
                        .iter()
                        .any(|&g| goals[g as usize].holds_on(b, w))
                })
            }
            None => cells.iter().any(|&k| {
                side.near[k]
                    .iter()
                    .any(|&g| side.goals[g as usize].holds(words, None))
            }),
        }
    }

    /// One of the moves `succ` (indices of `mover`'s action instances), uniformly among
    /// the distinct boards they lead to (two instances may lead to one board, which a set
    /// of successors holds once): a move drawn uniformly is kept with probability 1/m, m
    /// the number of moves leading to its board, else drawn again; each board is then kept
    /// with the same probability at each draw.
    fn pick(
        &self,
        words: &[(u64, u64)],
        mover: usize,
        succ: &[usize],
        below: &mut dyn FnMut(usize) -> usize,
        [mine, other]: &mut [Vec<(u64, u64)>; 2],
    ) -> usize {
        let acts = &self.sides[mover].actions;
        loop {
            let m = succ[below(succ.len())];
            mine.copy_from_slice(words);
            acts[m].apply(mine, self.lines.as_ref());
            let same = succ
                .iter()
                .filter(|&&s| {
                    s == m || {
                        other.copy_from_slice(words);
                        acts[s].apply(other, self.lines.as_ref());
                        other == mine
                    }
                })
                .count();
            if same == 1 || below(same) == 0 {
                return m;
            }
        }
    }

    /// What a position is, by `GRID{X}`: over (with the winner), the distinct boards
    /// `mover` can go to (in the order of [`Compiled::successors`], each once; in a
    /// counted game, the board itself when `mover` passes), or none (`mover` gives up: the
    /// position `stuck(p, b)` is the one move).
    pub fn node(&self, board: &Board, mover: usize) -> GridNode {
        let last = 1 - mover;
        if self.holds(last, &board.words) {
            return GridNode::Over(Some(last));
        }
        let mut out: Vec<Board> = Vec::new();
        for (k, a) in self.sides[mover].actions.iter().enumerate() {
            if self.legal(mover, k, &board.words) {
                let mut b = board.clone();
                a.apply(&mut b.words, self.lines.as_ref());
                if self.sides[mover].distinct || !out.contains(&b) {
                    out.push(b);
                }
            }
        }
        if !out.is_empty() {
            GridNode::Moves(out)
        } else if self.end == End::Count && self.can_move(last, &board.words) {
            GridNode::Moves(vec![board.clone()])
        } else {
            GridNode::Stuck
        }
    }

    /// Do the `flanks` of `player`'s action instance `k` hold? Out of line: the grid games
    /// without line capture keep `legal` small enough to inline in their playouts.
    #[inline(never)]
    fn flanked(&self, player: usize, k: usize, words: &[(u64, u64)]) -> bool {
        self.sides[player].actions[k].flanked(words, self.lines.as_ref())
    }

    /// `mover`'s moves at `board` as the indices of its legal action instances, in the
    /// order of [`GridPlay::node`]'s boards, for a tree that builds a board only when it
    /// tries the move ([`GridPlay::play`]). `None` where [`GridPlay::node`] is to say: play
    /// is over, the mover has no move (gives up or passes), or two instances may lead to
    /// one board (a node holds each board once).
    pub fn instances(&self, board: &Board, mover: usize) -> Option<Vec<usize>> {
        if !self.sides[mover].distinct || self.holds(1 - mover, &board.words) {
            return None;
        }
        let n = self.sides[mover].actions.len();
        let legal: Vec<usize> = (0..n)
            .filter(|&k| self.legal(mover, k, &board.words))
            .collect();
        (!legal.is_empty()).then_some(legal)
    }

    /// The board `mover`'s action instance `k` leads to from `board`, if it is a move
    /// there.
    pub fn play(&self, board: &Board, mover: usize, k: usize) -> Option<Board> {
        let acts = &self.sides[mover].actions;
        if k >= acts.len() || !self.legal(mover, k, &board.words) {
            return None;
        }
        let mut next = board.clone();
        acts[k].apply(&mut next.words, self.lines.as_ref());
        Some(next)
    }

    /// Has `player` a move on `words`?
    fn can_move(&self, player: usize, words: &[(u64, u64)]) -> bool {
        (0..self.sides[player].actions.len()).any(|k| self.legal(player, k, words))
    }

    /// The winner when `player` gives up on `words` (`None`: a draw).
    fn stuck_winner(&self, player: usize, words: &[(u64, u64)]) -> Option<usize> {
        match self.end {
            End::Stuck(w) => w[player],
            End::Count => {
                let (b, w) = words.iter().fold((0, 0), |(b, w), &(x, y)| {
                    (b + x.count_ones(), w + y.count_ones())
                });
                match b.cmp(&w) {
                    std::cmp::Ordering::Greater => Some(BLACK),
                    std::cmp::Ordering::Less => Some(WHITE),
                    std::cmp::Ordering::Equal => None,
                }
            }
        }
    }

    /// `player`'s moves on `words` as bits, one per action instance.
    fn all_moves(&self, player: usize, words: &[(u64, u64)], bits: &mut [u64]) {
        bits.fill(0);
        let side = &self.sides[player];
        if let (true, Some(lines), Some((tests, _))) = (side.flanks, &self.lines, &side.one) {
            // On one word: where each piece flanks a line, for every cell at once, then
            // each instance's `flanks` is a bit of it.
            // Only for the pieces the player's actions flank with.
            let flanking = |p: Piece| match side.flank_pieces[(p == Piece::White) as usize] {
                true => lines.flanking(words, p),
                false => Some(0),
            };
            if let (Some(black), Some(white)) = (flanking(Piece::Black), flanking(Piece::White)) {
                let (b, w) = words[0];
                for (k, t) in tests.iter().enumerate() {
                    let flanked = |&(p, c): &(Piece, usize)| {
                        (if p == Piece::White { white } else { black }) >> c & 1 == 1
                    };
                    if t.holds_on(b, w) && side.actions[k].flanks.iter().all(flanked) {
                        bits[k / 64] |= 1 << (k % 64);
                    }
                }
                return;
            }
        }
        if let (false, Some((tests, _))) = (side.flanks, &side.one) {
            // On one word without line capture: each instance's one test.
            let (b, w) = words[0];
            for (k, t) in tests.iter().enumerate() {
                if t.holds_on(b, w) {
                    bits[k / 64] |= 1 << (k % 64);
                }
            }
            return;
        }
        for k in 0..side.actions.len() {
            if self.legal(player, k, words) {
                bits[k / 64] |= 1 << (k % 64);
            }
        }
    }

    /// Play from `board`, `mover` to move, until the game ends or `limit` moves were
    /// played, each move chosen by `below(n)` (a number in `0..n`) among the distinct
    /// boards the mover can go to, in the order of [`Compiled::successors`]. `seen` is
    /// shown each board played, in order.
    pub fn playout(
        &self,
        board: &Board,
        mut mover: usize,
        below: &mut dyn FnMut(usize) -> usize,
        limit: usize,
        seen: &mut dyn FnMut(&Board),
    ) -> Ending {
        assert!(
            board.width == self.width && board.height == self.height,
            "a board of the size the rules were compiled for"
        );
        let mut board = board.clone();
        // Whether each player's goals hold on the board: both are checked in full once,
        // then only near the cells each move writes, unless they held.
        let mut held = [
            self.holds(BLACK, &board.words),
            self.holds(WHITE, &board.words),
        ];
        // Each player's moves as bits, one per action instance, tested in full once and
        // then only where a move wrote a cell they look at.
        let mut moves: [SmallVec<[u64; 4]>; 2] = [BLACK, WHITE].map(|q| {
            let n = self.sides[q].actions.len();
            let mut bits: SmallVec<[u64; 4]> = smallvec::smallvec![0u64; n.div_ceil(64)];
            self.all_moves(q, &board.words, &mut bits);
            bits
        });
        // Moves out of date (see `dynamic` below).
        let mut stale = [false; 2];
        let mut succ: Vec<usize> = Vec::new();
        // Boards to compare moves on, made when a player's moves may lead to one board.
        let mut scratch: Option<[Vec<(u64, u64)>; 2]> = None;
        // As a playout through the rules: a position is looked at only before the
        // `limit`-th move; a game still going then is stopped, whoever won by that move.
        for ply in 0..limit {
            let last = 1 - mover;
            if held[last] {
                return Ending {
                    winner: Some(last),
                    plies: ply,
                    stopped: false,
                };
            }
            let n = count(&moves[mover]);
            if n == 0 && self.end == End::Count && stale[last] {
                self.all_moves(last, &board.words, &mut moves[last]);
                stale[last] = false;
            }
            if n == 0 && self.end == End::Count && count(&moves[last]) > 0 {
                // A pass: the same board, the other player to move.
                seen(&board);
                mover = last;
                continue;
            }
            if n == 0 {
                // Giving up is a move to `stuck(p, b)`, where play has stopped.
                if ply + 1 == limit {
                    break;
                }
                return Ending {
                    winner: self.stuck_winner(mover, &board.words),
                    plies: ply + 1,
                    stopped: false,
                };
            }
            let acts = &self.sides[mover].actions;
            let m = if self.sides[mover].distinct {
                select(&moves[mover], below(n))
            } else {
                succ.clear();
                succ.extend((0..acts.len()).filter(|&k| moves[mover][k / 64] >> (k % 64) & 1 == 1));
                let scratch =
                    scratch.get_or_insert_with(|| [board.words.clone(), board.words.clone()]);
                self.pick(&board.words, mover, &succ, below, scratch)
            };
            let chosen = &acts[m];
            chosen.apply(&mut board.words, self.lines.as_ref());
            seen(&board);
            if self.dynamic {
                // The cells written depend on the board: the goals and the next player's
                // moves are tested again in full; the mover's, when needed (a pass).
                for q in [BLACK, WHITE] {
                    held[q] = self.holds(q, &board.words);
                }
                self.all_moves(last, &board.words, &mut moves[last]);
                stale = [false; 2];
                stale[mover] = true;
                mover = last;
                continue;
            }
            for q in [BLACK, WHITE] {
                held[q] = if held[q] {
                    self.holds(q, &board.words)
                } else {
                    self.holds_near(q, &board.words, &chosen.cells)
                };
                for &k in &chosen.cells {
                    for &a in &self.sides[q].watch[k] {
                        let a = a as usize;
                        let bit = 1u64 << (a % 64);
                        if self.legal(q, a, &board.words) {
                            moves[q][a / 64] |= bit;
                        } else {
                            moves[q][a / 64] &= !bit;
                        }
                    }
                }
            }
            mover = last;
        }
        Ending {
            winner: None,
            plies: limit,
            stopped: true,
        }
    }
}
