//! Connect-c with gravity (`examples/connect.game`): stones drop into columns; the first
//! with c in a row (any direction) wins; a full board is a draw.
//!
//! The classic bit board: column x holds bits x * (height + 1) ..; the extra bit on top of
//! each column is always empty, so shifting never joins two columns into a false line.

use super::Game;

#[derive(Clone)]
pub struct Connect {
    height: u32,
    c: u32,
    /// Columns, the centre first (the usual good order).
    order: Vec<u32>,
}

/// The mover's stones and the other player's.
pub type Pos = (u64, u64);

impl Connect {
    pub fn new(width: u32, height: u32, c: u32) -> Connect {
        let mut order: Vec<u32> = (0..width).collect();
        order.sort_by_key(|&x| (2 * x as i32 - width as i32 + 1).abs());
        Connect { height, c, order }
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
}

impl Game for Connect {
    type Pos = Pos;

    fn children(&self, &(mine, theirs): &Pos, out: &mut Vec<Pos>) {
        if self.line(theirs) {
            return;
        }
        let taken = mine | theirs;
        for &x in &self.order {
            let cell = self.drop(taken, x);
            if cell != 0 {
                if self.line(mine | cell) {
                    // A winning move: nothing else needs trying.
                    out.clear();
                    out.push((theirs, mine | cell));
                    return;
                }
                out.push((theirs, mine | cell));
            }
        }
    }

    fn final_score(&self, &(_, theirs): &Pos) -> i32 {
        if self.line(theirs) {
            -1
        } else {
            0
        }
    }
}
