//! The board-colouring game of seed 003 (`examples/colouring.game`): Benny (B) colours a
//! free 2x2 square blue, Rebecca (R) one free cell red, until the player to move cannot;
//! the rest turns red; the score is blue minus red cells, for B.

use super::Game;

#[derive(Clone)]
pub struct Colouring {
    n: u32,
    squares: Vec<u64>,
}

/// Whose turn (true: Benny) and the blue and red cells.
pub type Pos = (bool, u64, u64);

impl Colouring {
    pub fn new(n: u32) -> Colouring {
        let mut squares = Vec::new();
        for r in 0..n.saturating_sub(1) {
            for c in 0..n - 1 {
                let i = r * n + c;
                squares.push((1u64 << i) | 1 << (i + 1) | 1 << (i + n) | 1 << (i + n + 1));
            }
        }
        Colouring { n, squares }
    }

    pub fn start() -> Pos {
        (true, 0, 0)
    }
}

impl Game for Colouring {
    type Pos = Pos;

    fn children(&self, &(benny, blue, red): &Pos, out: &mut Vec<Pos>) {
        let used = blue | red;
        if benny {
            out.extend(
                self.squares
                    .iter()
                    .filter(|&&s| used & s == 0)
                    .map(|&s| (false, blue | s, red)),
            );
        } else {
            out.extend(
                (0..self.n * self.n)
                    .filter(|&i| used & (1 << i) == 0)
                    .map(|i| (true, blue, red | 1 << i)),
            );
        }
    }

    fn final_score(&self, &(benny, blue, _): &Pos) -> i32 {
        let s = 2 * blue.count_ones() as i32 - (self.n * self.n) as i32;
        if benny {
            s
        } else {
            -s
        }
    }
}
