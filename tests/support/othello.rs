//! Othello written here from the rules, for tests (tests/othello.rs, tests/playouts.rs):
//! positions as bit masks, its own move generator (the eight directions walked cell by
//! cell) and its own negamax. Boards of up to 8 x 8.

use std::collections::HashMap;

/// A position: Black's and White's discs as bit masks, cell (row, col) = bit row * n + col.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Pos {
    pub black: u64,
    pub white: u64,
}

/// The standard start: White on d4 and e5, Black on d5 and e4 (rows counted from the top).
pub fn start(n: u32) -> Pos {
    let at = |r: u32, c: u32| 1u64 << (r * n + c);
    let m = n / 2;
    Pos {
        black: at(m, m - 1) | at(m - 1, m),
        white: at(m - 1, m - 1) | at(m, m),
    }
}

/// The discs of `theirs` flipped when the owner of `mine` places on (r, c): in each of the
/// eight directions, a run of their discs closed by one of mine.
pub fn flipped(n: u32, mine: u64, theirs: u64, r: u32, c: u32) -> u64 {
    let mut all = 0;
    for (dr, dc) in [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ] {
        let (mut y, mut x) = (r as i32 + dr, c as i32 + dc);
        let mut run = 0;
        while (0..n as i32).contains(&y) && (0..n as i32).contains(&x) {
            let bit = 1u64 << (y as u32 * n + x as u32);
            if theirs & bit != 0 {
                run |= bit;
            } else {
                if mine & bit != 0 {
                    all |= run;
                }
                break;
            }
            y += dr;
            x += dc;
        }
    }
    all
}

/// The positions after each legal placement of the player to move (Black if `black`).
pub fn placements(n: u32, p: Pos, black: bool) -> Vec<Pos> {
    let (mine, theirs) = if black {
        (p.black, p.white)
    } else {
        (p.white, p.black)
    };
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            let bit = 1u64 << (r * n + c);
            if (mine | theirs) & bit != 0 {
                continue;
            }
            let f = flipped(n, mine, theirs, r, c);
            if f != 0 {
                let (m, t) = (mine | bit | f, theirs & !f);
                out.push(if black {
                    Pos { black: m, white: t }
                } else {
                    Pos { black: t, white: m }
                });
            }
        }
    }
    out
}

/// The successors: the placements; with none, a pass (the same position) if the opponent can
/// move; with neither, nothing (the game is over).
pub fn successors(n: u32, p: Pos, black: bool) -> Vec<Pos> {
    let moves = placements(n, p, black);
    if moves.is_empty() && !placements(n, p, !black).is_empty() {
        vec![p]
    } else {
        moves
    }
}

/// Negamax: the final disc margin (the mover's discs minus the other's) under best play.
pub fn negamax(n: u32, p: Pos, black: bool, memo: &mut HashMap<(Pos, bool), i64>) -> i64 {
    if let Some(&v) = memo.get(&(p, black)) {
        return v;
    }
    let next = successors(n, p, black);
    let v = if next.is_empty() {
        let margin = p.black.count_ones() as i64 - p.white.count_ones() as i64;
        if black {
            margin
        } else {
            -margin
        }
    } else {
        next.into_iter()
            .map(|q| -negamax(n, q, !black, memo))
            .max()
            .unwrap()
    };
    memo.insert((p, black), v);
    v
}

/// The board as GRID writes it (`board.compact()` of gamelang's boards): rows from the top
/// separated by `/`, `x` Black, `o` White, `.` empty.
pub fn compact(n: u32, p: Pos) -> String {
    let mut s = String::new();
    for r in 0..n {
        if r > 0 {
            s.push('/');
        }
        for c in 0..n {
            let bit = 1u64 << (r * n + c);
            s.push(if p.black & bit != 0 {
                'x'
            } else if p.white & bit != 0 {
                'o'
            } else {
                '.'
            });
        }
    }
    s
}
