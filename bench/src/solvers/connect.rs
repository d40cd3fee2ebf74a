//! Connect-c with gravity (`examples/connect.game`): stones drop into columns; the first
//! with c in a row (any direction) wins; a full board is a draw.
//!
//! The classic bit board: column x holds bits x * (height + 1) ..; the extra bit on top of
//! each column is always empty, so shifting never joins two columns into a false line.
//!
//! What a Connect-4 solver does beyond plain alpha-beta (as John Tromp's Fhourstones and
//! Pascal Pons's solver do), all keeping the exact outcome (values are -1, 0, 1, with no
//! count of moves, so leaving out a move that surely loses changes no value):
//! * a winning move is played at once;
//! * a threat of the opponent (a cell it would win on, free to play now) must be blocked,
//!   and two such threats lose;
//! * a move just below a cell the opponent wins on is left out unless every move is one;
//! * the moves are tried by how many cells they make winning for the mover, the centre
//!   first among equals;
//! * a position and its mirror image share one table entry ([`Game::canon`]).

use super::Game;

#[derive(Clone)]
pub struct Connect {
    width: u32,
    height: u32,
    c: u32,
    /// Columns, the centre first (the usual good order).
    order: Vec<u32>,
    /// Every cell of the board.
    board: u64,
}

/// The mover's stones and the other player's.
pub type Pos = (u64, u64);

impl Connect {
    pub fn new(width: u32, height: u32, c: u32) -> Connect {
        let mut order: Vec<u32> = (0..width).collect();
        order.sort_by_key(|&x| (2 * x as i32 - width as i32 + 1).abs());
        let column = (1u64 << height) - 1;
        let board = (0..width).fold(0, |b, x| b | column << (x * (height + 1)));
        Connect {
            width,
            height,
            c,
            order,
            board,
        }
    }

    pub fn start() -> Pos {
        (0, 0)
    }

    /// Has `stones` c in a row?
    fn line(&self, stones: u64) -> bool {
        let h = self.height + 1;
        [1, h, h - 1, h + 1].iter().any(|&d| {
            let mut m = stones;
            for k in 1..self.c {
                m &= stones >> (k * d);
            }
            m != 0
        })
    }

    /// The cell a stone dropped into column x lands on (0: the column is full).
    fn drop(&self, taken: u64, x: u32) -> u64 {
        let column = ((1u64 << self.height) - 1) << (x * (self.height + 1));
        (taken + (1 << (x * (self.height + 1)))) & column & !taken
    }

    /// The free cells (of `free`) on which `stones` would make c in a row.
    fn winning(&self, stones: u64, free: u64) -> u64 {
        let mut cells = 0;
        let mut rest = free;
        while rest != 0 {
            let cell = rest & rest.wrapping_neg();
            rest &= rest - 1;
            if self.line(stones | cell) {
                cells |= cell;
            }
        }
        cells
    }
}

impl Game for Connect {
    type Pos = Pos;

    fn children(&self, &(mine, theirs): &Pos, out: &mut Vec<Pos>) {
        if self.line(theirs) {
            return;
        }
        let taken = mine | theirs;
        let cells: Vec<u64> = self
            .order
            .iter()
            .map(|&x| self.drop(taken, x))
            .filter(|&cell| cell != 0)
            .collect();
        if cells.is_empty() {
            return;
        }
        if let Some(&cell) = cells.iter().find(|&&cell| self.line(mine | cell)) {
            out.push((theirs, mine | cell));
            return;
        }
        let playable: u64 = cells.iter().fold(0, |m, &cell| m | cell);
        let free = self.board & !taken;
        let theirs_win = self.winning(theirs, free);
        let threats = theirs_win & playable;
        if threats != 0 {
            // Block (with two threats any move loses, so one stands for all).
            let cell = threats & threats.wrapping_neg();
            out.push((theirs, mine | cell));
            return;
        }
        // Moves that do not give the opponent the cell just above.
        let mut safe: Vec<(u32, u64)> = cells
            .iter()
            .filter(|&&cell| theirs_win & (cell << 1) == 0)
            .map(|&cell| {
                let after = mine | cell;
                (self.winning(after, free & !cell).count_ones(), cell)
            })
            .collect();
        if safe.is_empty() {
            // Every move loses.
            out.push((theirs, mine | cells[0]));
            return;
        }
        // Most new winning cells first; stable, so the centre first among equals.
        safe.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
        out.extend(safe.iter().map(|&(_, cell)| (theirs, mine | cell)));
    }

    fn final_score(&self, &(mine, theirs): &Pos) -> i32 {
        if self.line(theirs) {
            -1
        } else if (mine | theirs) == self.board {
            0
        } else {
            // Only reached for a position that `children` ended early: never.
            unreachable!("a position with moves has no final score")
        }
    }

    /// The position or its mirror image (columns reversed), whichever is smaller.
    fn canon(&self, (mine, theirs): Pos) -> Pos {
        let h = self.height + 1;
        let column = (1u64 << h) - 1;
        let mirror = |s: u64| {
            (0..self.width).fold(0, |m, x| {
                m | ((s >> (x * h)) & column) << ((self.width - 1 - x) * h)
            })
        };
        (mine, theirs).min((mirror(mine), mirror(theirs)))
    }
}
