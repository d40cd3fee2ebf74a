//! Othello (`examples/othello.game`): a placement must flank and flip at least one line of
//! the opponent's discs; a player without a move passes; the game ends when neither can
//! move. The score is the mover's discs minus the other's (the rules are the same for
//! both colours, so a position is seen from the player to move).

use super::Game;

#[derive(Clone)]
pub struct Othello {
    n: u32,
    /// Every cell of the board.
    board: u64,
    /// The eight directions: a shift (left if positive) and the cells a disc may land on
    /// (excluding the column it would wrap into).
    dirs: [(i32, u64); 8],
    /// The cells in the order moves are tried: corners first, the cells next to corners last.
    order: Vec<u64>,
}

/// The mover's discs and the other player's.
pub type Pos = (u64, u64);

impl Othello {
    pub fn new(n: u32) -> Othello {
        let board = if n * n == 64 {
            u64::MAX
        } else {
            (1u64 << (n * n)) - 1
        };
        let mut not_first = 0; // every column but the first
        let mut not_last = 0;
        for r in 0..n {
            for c in 0..n {
                let bit = 1u64 << (r * n + c);
                if c != 0 {
                    not_first |= bit;
                }
                if c != n - 1 {
                    not_last |= bit;
                }
            }
        }
        let n_ = n as i32;
        let mut dirs = [(0, 0); 8];
        let mut k = 0;
        for dr in -1..=1 {
            for dc in -1..=1 {
                if (dr, dc) == (0, 0) {
                    continue;
                }
                let land = match dc {
                    1 => not_first,
                    -1 => not_last,
                    _ => board,
                };
                dirs[k] = (dr * n_ + dc, land);
                k += 1;
            }
        }
        let weight = |r: u32, c: u32| {
            let edge = |x: u32| x == 0 || x == n - 1;
            let near = |x: u32| x == 1 || x == n - 2;
            match (edge(r), edge(c), near(r), near(c)) {
                (true, true, _, _) => 0,
                (true, _, _, false) | (_, true, false, _) => 1,
                (false, false, false, false) => 2,
                (false, false, true, true) => 4,
                _ => 3,
            }
        };
        let mut cells: Vec<(u32, u32)> = (0..n).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
        cells.sort_by_key(|&(r, c)| weight(r, c));
        let order = cells
            .into_iter()
            .map(|(r, c)| 1u64 << (r * n + c))
            .collect();
        Othello {
            n,
            board,
            dirs,
            order,
        }
    }

    /// The standard start, Black to move: White on d4 and e5, Black on d5 and e4.
    pub fn start(&self) -> Pos {
        let n = self.n;
        let at = |r: u32, c: u32| 1u64 << (r * n + c);
        let m = n / 2;
        (at(m, m - 1) | at(m - 1, m), at(m - 1, m - 1) | at(m, m))
    }

    fn shift(&self, x: u64, (s, land): (i32, u64)) -> u64 {
        let moved = if s > 0 { x << s } else { x >> -s };
        moved & land & self.board
    }

    /// The empty cells where the mover (discs `mine`) may place.
    fn moves(&self, mine: u64, theirs: u64) -> u64 {
        let empty = self.board & !(mine | theirs);
        let mut moves = 0;
        for &d in &self.dirs {
            let mut x = self.shift(mine, d) & theirs;
            for _ in 3..self.n {
                x |= self.shift(x, d) & theirs;
            }
            moves |= self.shift(x, d) & empty;
        }
        moves
    }

    /// The discs flipped by the mover placing on `cell`.
    fn flips(&self, mine: u64, theirs: u64, cell: u64) -> u64 {
        let mut all = 0;
        for &d in &self.dirs {
            let mut run = 0;
            let mut y = self.shift(cell, d);
            while y & theirs != 0 {
                run |= y;
                y = self.shift(y, d);
            }
            if y & mine != 0 {
                all |= run;
            }
        }
        all
    }
}

impl Game for Othello {
    type Pos = Pos;

    fn children(&self, &(mine, theirs): &Pos, out: &mut Vec<Pos>) {
        let moves = self.moves(mine, theirs);
        if moves == 0 {
            if self.moves(theirs, mine) != 0 {
                out.push((theirs, mine));
            }
            return;
        }
        for &cell in &self.order {
            if moves & cell != 0 {
                let f = self.flips(mine, theirs, cell);
                out.push((theirs & !f, mine | cell | f));
            }
        }
    }

    fn final_score(&self, &(mine, theirs): &Pos) -> i32 {
        mine.count_ones() as i32 - theirs.count_ones() as i32
    }
}
