//! The two players and the verdict of a solved position.
//!
//! Two players today, named as seed 003 names them: Benny (`B`, who moves first in most
//! examples; Black in the grid games and in Othello) and Rebecca (`R`; White). Games with
//! chance and any number of players are the `gamelang-chance` crate's, which numbers its
//! players.

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Benny.
    B,
    /// Rebecca.
    R,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::B => "B",
            Side::R => "R",
        }
    }

    pub fn full_name(self) -> &'static str {
        match self {
            Side::B => "Benny",
            Side::R => "Rebecca",
        }
    }

    pub fn opponent(self) -> Side {
        match self {
            Side::B => Side::R,
            Side::R => Side::B,
        }
    }
}

/// Who wins under best play, or a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Win(Side),
    Draw,
}

impl Verdict {
    /// `"B"`, `"R"` or `"draw"`, as in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Win(s) => s.name(),
            Verdict::Draw => "draw",
        }
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            Verdict::Win(s) => Some(s),
            Verdict::Draw => None,
        }
    }
}
