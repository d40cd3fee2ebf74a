//! Quoridor (seed 004 §2.2) written from the rules, independently of
//! examples/quoridor.game: a move generator (breadth-first search for the path rule), and
//! positions written and read as the game writes them.

use gamelang_game::Side;
use std::collections::{BTreeSet, VecDeque};

/// A wall: horizontal (under cells (x, y) and (x + 1, y)) or vertical (right of (x, y) and
/// (x, y + 1)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wall {
    H(usize, usize),
    V(usize, usize),
}

/// A position: pawn cells (x, y) of B and R, walls left, walls placed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub b: (usize, usize),
    pub r: (usize, usize),
    pub wb: usize,
    pub wr: usize,
    pub walls: BTreeSet<Wall>,
}

/// What the generator met, to check the games covered the rules.
#[derive(Default, Debug)]
pub struct Seen {
    pub straight_jumps: usize,
    pub diagonal_jumps: usize,
    pub walls_cutting_a_path: usize,
}

pub struct Rules {
    pub n: usize,
}

const DIRS: [(i64, i64); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

impl Rules {
    /// Can a pawn step from (x, y) by (dx, dy): on the board and through no wall?
    pub fn open(
        &self,
        walls: &BTreeSet<Wall>,
        (x, y): (usize, usize),
        (dx, dy): (i64, i64),
    ) -> bool {
        let (nx, ny) = (x as i64 + dx, y as i64 + dy);
        if nx < 0 || ny < 0 || nx >= self.n as i64 || ny >= self.n as i64 {
            return false;
        }
        // The edge between (x, y) and (nx, ny), named by its upper / left cell.
        let blocks = |w: &Wall| match (*w, dx, dy) {
            (Wall::H(wx, wy), 0, _) => {
                let top = y.min(ny as usize);
                wy == top && (wx == x || wx + 1 == x)
            }
            (Wall::V(wx, wy), _, 0) => {
                let left = x.min(nx as usize);
                wx == left && (wy == y || wy + 1 == y)
            }
            _ => false,
        };
        !walls.iter().any(blocks)
    }

    pub fn step((x, y): (usize, usize), (dx, dy): (i64, i64)) -> (usize, usize) {
        ((x as i64 + dx) as usize, (y as i64 + dy) as usize)
    }

    /// Is a cell of row `goal` reachable from `from` (breadth-first, pawns ignored)?
    pub fn path(&self, walls: &BTreeSet<Wall>, from: (usize, usize), goal: usize) -> bool {
        let mut seen = vec![false; self.n * self.n];
        let mut queue = VecDeque::from([from]);
        seen[from.1 * self.n + from.0] = true;
        while let Some(c) = queue.pop_front() {
            if c.1 == goal {
                return true;
            }
            for d in DIRS {
                if self.open(walls, c, d) {
                    let m = Self::step(c, d);
                    if !seen[m.1 * self.n + m.0] {
                        seen[m.1 * self.n + m.0] = true;
                        queue.push_back(m);
                    }
                }
            }
        }
        false
    }

    pub fn pawn_targets(
        &self,
        walls: &BTreeSet<Wall>,
        me: (usize, usize),
        other: (usize, usize),
        seen: &mut Seen,
    ) -> BTreeSet<(usize, usize)> {
        let mut out = BTreeSet::new();
        for d in DIRS {
            if !self.open(walls, me, d) {
                continue;
            }
            let m = Self::step(me, d);
            if m != other {
                out.insert(m);
            } else if self.open(walls, other, d) {
                seen.straight_jumps += 1;
                out.insert(Self::step(other, d));
            } else {
                for side in [(d.1, d.0), (-d.1, -d.0)] {
                    if self.open(walls, other, side) {
                        seen.diagonal_jumps += 1;
                        out.insert(Self::step(other, side));
                    }
                }
            }
        }
        out
    }

    /// Two walls that cannot both be on the board: the same, overlapping along their line,
    /// or crossing at their middles.
    pub fn conflict(a: Wall, b: Wall) -> bool {
        match (a, b) {
            (Wall::H(x1, y1), Wall::H(x2, y2)) => y1 == y2 && x1.abs_diff(x2) <= 1,
            (Wall::V(x1, y1), Wall::V(x2, y2)) => x1 == x2 && y1.abs_diff(y2) <= 1,
            (Wall::H(x1, y1), Wall::V(x2, y2)) | (Wall::V(x2, y2), Wall::H(x1, y1)) => {
                x1 == x2 && y1 == y2
            }
        }
    }

    pub fn successors(&self, p: &Pos, mover: Side, seen: &mut Seen) -> BTreeSet<Pos> {
        let (me, other, left) = match mover {
            Side::B => (p.b, p.r, p.wb),
            Side::R => (p.r, p.b, p.wr),
        };
        let mut out = BTreeSet::new();
        for t in self.pawn_targets(&p.walls, me, other, seen) {
            let mut q = p.clone();
            match mover {
                Side::B => q.b = t,
                Side::R => q.r = t,
            }
            out.insert(q);
        }
        if left > 0 {
            for x in 0..self.n - 1 {
                for y in 0..self.n - 1 {
                    for w in [Wall::H(x, y), Wall::V(x, y)] {
                        if p.walls.iter().any(|&v| Self::conflict(v, w)) {
                            continue;
                        }
                        let mut walls = p.walls.clone();
                        walls.insert(w);
                        if !self.path(&walls, p.b, self.n - 1) || !self.path(&walls, p.r, 0) {
                            seen.walls_cutting_a_path += 1;
                            continue;
                        }
                        let mut q = p.clone();
                        q.walls = walls;
                        match mover {
                            Side::B => q.wb -= 1,
                            Side::R => q.wr -= 1,
                        }
                        out.insert(q);
                    }
                }
            }
        }
        out
    }

    pub fn halted(&self, p: &Pos) -> bool {
        p.b.1 == self.n - 1 || p.r.1 == 0
    }

    /// The position as gamelang writes it.
    pub fn term(&self, p: &Pos) -> String {
        let cell = |(x, y): (usize, usize)| y * self.n + x;
        let walls: Vec<String> = p
            .walls
            .iter()
            .map(|w| match w {
                Wall::H(x, y) => format!("H({x}, {y})"),
                Wall::V(x, y) => format!("V({x}, {y})"),
            })
            .collect();
        let walls = if walls.is_empty() {
            "empty".to_string()
        } else {
            format!("({})", walls.join(", "))
        };
        format!(
            "q({}, {}, {}, {}, {walls})",
            cell(p.b),
            cell(p.r),
            p.wb,
            p.wr
        )
    }

    /// A position gamelang printed (`q(b, r, wb, wr, walls)`), read back.
    pub fn parse(&self, text: &str) -> Pos {
        let nums: Vec<usize> = text
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        let cell = |c: usize| (c % self.n, c / self.n);
        let kinds: Vec<char> = text.chars().filter(|c| *c == 'H' || *c == 'V').collect();
        assert_eq!(nums.len(), 4 + 2 * kinds.len(), "unexpected term {text}");
        let walls = kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let (x, y) = (nums[4 + 2 * i], nums[5 + 2 * i]);
                if *k == 'H' {
                    Wall::H(x, y)
                } else {
                    Wall::V(x, y)
                }
            })
            .collect();
        Pos {
            b: cell(nums[0]),
            r: cell(nums[1]),
            wb: nums[2],
            wr: nums[3],
            walls,
        }
    }
}

pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as usize % n
    }
}
