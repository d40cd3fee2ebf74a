//! Tic-tac-toe from the rules, for the tests that check agents and play against it: a board
//! is (X's cells, O's cells) as bit masks of cells 1..9 in bits 0..8; X is B, O is R.

use gamelang_game::Side;
use std::collections::HashMap;

pub type Board = (u16, u16);

const LINES: [[u32; 3]; 8] = [
    [1, 2, 3],
    [4, 5, 6],
    [7, 8, 9],
    [1, 4, 7],
    [2, 5, 8],
    [3, 6, 9],
    [1, 5, 9],
    [3, 5, 7],
];

pub fn line(m: u16) -> bool {
    LINES
        .iter()
        .any(|l| l.iter().all(|&c| m & (1 << (c - 1)) != 0))
}

pub fn over((x, o): Board) -> bool {
    line(x) || line(o) || (x | o) == 0x1ff
}

/// The boards after the mover marks an empty cell.
pub fn successors((x, o): Board, mover: Side) -> Vec<Board> {
    if over((x, o)) {
        return Vec::new();
    }
    (0..9)
        .filter(|i| (x | o) & (1 << i) == 0)
        .map(|i| match mover {
            Side::B => (x | 1 << i, o),
            Side::R => (x, o | 1 << i),
        })
        .collect()
}

/// +1 if the mover wins under best play, 0 a draw, -1 a loss; and the plies to the end
/// when the mover wins fastest / loses slowest.
pub fn value(b: Board, mover: Side, memo: &mut HashMap<(Board, Side), (i32, u32)>) -> (i32, u32) {
    if let Some(&v) = memo.get(&(b, mover)) {
        return v;
    }
    let v = if line(b.0) || line(b.1) {
        // The player who just moved made the line: the mover has lost.
        (-1, 0)
    } else if (b.0 | b.1) == 0x1ff {
        (0, 0)
    } else {
        let mut best: Option<(i32, u32)> = None;
        for next in successors(b, mover) {
            let (v, d) = value(next, mover.opponent(), memo);
            let mine = (-v, d + 1);
            // Prefer a higher value; among wins the fastest, among losses the slowest.
            let better = match best {
                None => true,
                Some((bv, bd)) => {
                    mine.0 > bv
                        || (mine.0 == bv && (if bv > 0 { mine.1 < bd } else { mine.1 > bd }))
                }
            };
            if better {
                best = Some(mine);
            }
        }
        best.unwrap()
    };
    memo.insert((b, mover), v);
    v
}

/// A board as gamelang prints it: `((1, 5) | 9)`, `(5 | empty)`.
pub fn parse(text: &str) -> Board {
    let (a, b) = text.split_once('|').expect("a board (X | O)");
    let mask = |s: &str| {
        s.chars()
            .filter_map(|c| c.to_digit(10))
            .fold(0u16, |m, d| m | 1 << (d - 1))
    };
    (mask(a), mask(b))
}

/// A board written as gamelang writes it.
pub fn term((x, o): Board) -> String {
    let set = |m: u16| {
        let cells: Vec<String> = (0..9)
            .filter(|i| m & (1 << i) != 0)
            .map(|i| (i + 1).to_string())
            .collect();
        if cells.is_empty() {
            "empty".to_string()
        } else {
            format!("({})", cells.join(", "))
        }
    };
    format!("({} | {})", set(x), set(o))
}
