//! Line capture (Othello's rule), the one definition shared by the engine's `moves`
//! built-in ([`crate::Compiled::successors`]) and native random play (`crate::play`).
//!
//! From a cell, a *line* is the cells in one of the 8 directions (the 4 orthogonal and the
//! 4 diagonal ones), nearest first, up to the edge of the board. The line is *flanked* by a
//! player (a piece, black or white) when it starts with one or more of the opponent's
//! pieces followed at once by one of the player's own. Two atoms of GRID-SYNTAX use it:
//! `flanks(P, X, Y)` in a precondition holds when at least one of the 8 lines from (X, Y)
//! is flanked by P; `flip-lines(P, X, Y)` in an effect turns the opponent's pieces of every
//! line from (X, Y) flanked by P into P's. The cell (X, Y) itself is on none of its lines,
//! so what it holds does not matter here (Othello's precondition says it is open).

use crate::Piece;

/// The column and row steps of the 8 directions: the first 4 go to lower cell numbers, the
/// last 4 to higher ones (what [`Lines::run_word`] relies on).
const DIRECTIONS: [(i64, i64); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// The lines from every cell of a `width` x `height` board, as (word, bit) of each cell
/// along them (cells numbered row by row from the top left, 64 a word, as
/// [`crate::Board::words`]).
#[derive(Clone, Debug)]
pub struct Lines {
    /// For each cell, the 8 lines as ranges of `steps`.
    starts: Vec<[(u32, u32); 8]>,
    steps: Vec<(usize, u64)>,
    /// On a board of one word (up to 64 cells, Othello's 8 x 8): each line as a mask, so
    /// that a line's run is found with a few bit operations instead of a walk.
    rays: Option<Vec<[u64; 8]>>,
    /// On a board of one word: for each direction, the shift that moves every cell one
    /// step along it (as a cell number difference) and the cells that have a next cell in
    /// that direction ([`Lines::flanking`]).
    shifts: Option<[(i32, u64); 8]>,
}

impl Lines {
    /// The lines of a `width` x `height` board (sides of at least 1).
    pub fn new(width: i64, height: i64) -> Lines {
        let mut starts = Vec::with_capacity((width * height) as usize);
        let mut steps = Vec::new();
        for y in 1..=height {
            for x in 1..=width {
                let mut ranges = [(0, 0); 8];
                for (d, (dx, dy)) in DIRECTIONS.iter().enumerate() {
                    let lo = steps.len() as u32;
                    let (mut i, mut j) = (x + dx, y + dy);
                    while i >= 1 && j >= 1 && i <= width && j <= height {
                        let k = ((j - 1) * width + (i - 1)) as usize;
                        steps.push((k / 64, 1u64 << (k % 64)));
                        i += dx;
                        j += dy;
                    }
                    ranges[d] = (lo, steps.len() as u32);
                }
                starts.push(ranges);
            }
        }
        let rays = (width * height <= 64).then(|| {
            starts
                .iter()
                .map(|ranges| {
                    ranges.map(|(lo, hi)| {
                        steps[lo as usize..hi as usize]
                            .iter()
                            .fold(0, |m, &(_, bit)| m | bit)
                    })
                })
                .collect()
        });
        let shifts = rays.as_ref().map(|rays: &Vec<[u64; 8]>| {
            let mut out = [(0, 0); 8];
            for (d, (dx, dy)) in DIRECTIONS.iter().enumerate() {
                let from = (0..rays.len())
                    .filter(|&k| rays[k][d] != 0)
                    .fold(0u64, |m, k| m | 1 << k);
                out[d] = ((dy * width + dx) as i32, from);
            }
            out
        });
        Lines {
            starts,
            steps,
            rays,
            shifts,
        }
    }

    /// On a board of one word, every cell at which `piece` flanks a line (`flanks` holds
    /// there, whatever the cell holds), for all cells at once: from each of `piece`'s
    /// cells, step along a direction over the opponent's pieces; the cell reached just past
    /// one or more of them sees, looking back, a flanked line. `None` on larger boards.
    pub fn flanking(&self, words: &[(u64, u64)], piece: Piece) -> Option<u64> {
        let shifts = self.shifts.as_ref()?;
        let (mine, theirs) = sides(words[0], piece);
        let mut out = 0;
        for &(delta, from) in shifts {
            let step = |m: u64| {
                let m = m & from;
                if delta > 0 {
                    m << delta
                } else {
                    m >> -delta
                }
            };
            let mut run = step(mine) & theirs;
            loop {
                let longer = run | (step(run) & theirs);
                if longer == run {
                    break;
                }
                run = longer;
            }
            out |= step(run);
        }
        Some(out)
    }

    /// On a one-word board, the cells flipped along line `d` from `cell` for the player
    /// whose cells are `mine` (0: the line is not flanked). The line's cells are the bits
    /// of its ray, nearest first going up for the last 4 directions and down for the first
    /// 4: the first cell not the opponent's is the ray's lowest (or highest) bit outside
    /// `theirs`; the line is flanked when that cell is `mine` and the run of the ray's
    /// cells before it is not empty (the run is returned, so empty means not flanked).
    #[inline]
    fn run_word(ray: u64, mine: u64, theirs: u64, d: usize) -> u64 {
        let x = ray & !theirs;
        if x == 0 {
            return 0;
        }
        let f = if d >= 4 {
            x & x.wrapping_neg()
        } else {
            1u64 << (63 - x.leading_zeros())
        };
        if mine & f == 0 {
            0
        } else if d >= 4 {
            ray & (f - 1)
        } else {
            ray & !(f | (f - 1))
        }
    }

    /// The length of the flanked run of line `d` from `cell` for `piece` on `words`: the
    /// number of the opponent's pieces before the first of `piece`'s, 0 when the line is
    /// not flanked.
    #[inline]
    fn run(&self, words: &[(u64, u64)], piece: Piece, cell: usize, d: usize) -> usize {
        let (lo, hi) = self.starts[cell][d];
        let line = &self.steps[lo as usize..hi as usize];
        for (n, &(w, bit)) in line.iter().enumerate() {
            let (mine, theirs) = sides(words[w], piece);
            if theirs & bit == 0 {
                return if mine & bit != 0 { n } else { 0 };
            }
        }
        0
    }

    /// Is one of the 8 lines from `cell` flanked by `piece` (black or white) on `words`?
    pub fn flanks(&self, words: &[(u64, u64)], piece: Piece, cell: usize) -> bool {
        if let Some(rays) = &self.rays {
            let (mine, theirs) = sides(words[0], piece);
            let rays = &rays[cell];
            return (0..8).any(|d| Self::run_word(rays[d], mine, theirs, d) != 0);
        }
        (0..8).any(|d| self.run(words, piece, cell, d) > 0)
    }

    /// Turn the opponent's pieces of every line from `cell` flanked by `piece` into
    /// `piece`'s. The lines from one cell share no cell, so flipping one line leaves
    /// whether another is flanked as it was.
    pub fn flip(&self, words: &mut [(u64, u64)], piece: Piece, cell: usize) {
        if let Some(rays) = &self.rays {
            let (mine, theirs) = sides(words[0], piece);
            let rays = &rays[cell];
            let all = (0..8).fold(0, |f, d| f | Self::run_word(rays[d], mine, theirs, d));
            let (b, w) = &mut words[0];
            *b ^= all;
            *w ^= all;
            return;
        }
        for d in 0..8 {
            let n = self.run(words, piece, cell, d);
            let lo = self.starts[cell][d].0 as usize;
            for &(w, bit) in &self.steps[lo..lo + n] {
                let (b, wh) = &mut words[w];
                *b ^= bit;
                *wh ^= bit;
            }
        }
    }
}

/// A word's cells as (the player's, the opponent's) for `piece` (black or white).
#[inline]
fn sides((b, w): (u64, u64), piece: Piece) -> (u64, u64) {
    if piece == Piece::White {
        (w, b)
    } else {
        (b, w)
    }
}

/// A line-capture atom: `flanks(P, X, Y)` in a precondition, `flip-lines(P, X, Y)` in an
/// effect (coordinates as an atom's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Capture {
    /// The player capturing: black or white.
    pub piece: Piece,
    pub x: crate::Coord,
    pub y: crate::Coord,
}

/// An action's line-capture atoms: the precondition's `flanks` (each must flank a line)
/// and the effect's `flip-lines` (applied in order, before the effect's atoms). Empty for
/// every action of seed 001's BDDL.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Captures {
    pub flanks: Vec<Capture>,
    pub flips: Vec<Capture>,
}

impl Captures {
    /// No line-capture atom?
    pub fn is_empty(&self) -> bool {
        self.flanks.is_empty() && self.flips.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Board;

    /// The cells flipped for `piece` placing at (x, y), walked on coordinates from the rules
    /// (independent of [`Lines`]).
    fn by_hand(b: &Board, piece: Piece, x: i64, y: i64) -> Vec<(i64, i64)> {
        let theirs = if piece == Piece::Black {
            Piece::White
        } else {
            Piece::Black
        };
        let mut out = Vec::new();
        for dx in -1..=1 {
            for dy in -1..=1 {
                if (dx, dy) == (0, 0) {
                    continue;
                }
                let (mut i, mut j, mut run) = (x + dx, y + dy, Vec::new());
                while b.contains(i, j) && b.get(i, j) == theirs {
                    run.push((i, j));
                    i += dx;
                    j += dy;
                }
                if !run.is_empty() && b.contains(i, j) && b.get(i, j) == piece {
                    out.extend(run);
                }
            }
        }
        out
    }

    #[test]
    fn lines_flank_and_flip_as_the_rules_say() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut flanked = 0;
        // Boards of one word (masks) and of two (walks), 1 x 1 up to 11 x 9.
        for (w, h) in [(1, 1), (3, 2), (4, 4), (8, 8), (5, 12), (9, 9), (11, 9)] {
            let lines = Lines::new(w, h);
            let walks = Lines {
                rays: None,
                ..lines.clone()
            };
            for _ in 0..200 {
                let mut b = Board::new(w, h).unwrap();
                for y in 1..=h {
                    for x in 1..=w {
                        b.set(
                            x,
                            y,
                            [Piece::Open, Piece::Black, Piece::White][(next() % 3) as usize],
                        );
                    }
                }
                for y in 1..=h {
                    for x in 1..=w {
                        let k = ((y - 1) * w + (x - 1)) as usize;
                        for piece in [Piece::Black, Piece::White] {
                            let want = by_hand(&b, piece, x, y);
                            flanked += usize::from(!want.is_empty());
                            let mut after = b.clone();
                            for &(i, j) in &want {
                                after.set(i, j, piece);
                            }
                            if let Some(all) = lines.flanking(b.words(), piece) {
                                assert_eq!(all >> k & 1 == 1, !want.is_empty(), "{w}x{h}");
                            }
                            for l in [&lines, &walks] {
                                assert_eq!(l.flanks(b.words(), piece, k), !want.is_empty());
                                let mut words = b.words().to_vec();
                                l.flip(&mut words, piece, k);
                                assert_eq!(words, after.words(), "{w}x{h} ({x}, {y})");
                            }
                        }
                    }
                }
            }
        }
        assert!(flanked > 1000, "{flanked}");
    }
}
