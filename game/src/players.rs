//! The players of a game as a declared set: their names, in declaration order, and a
//! [`Player`] index into them. Two today — a `.game` game of WINS declares `B` and `R` (its
//! `Players` sort), and the deterministic solvers see them as [`Side`] — but the set, not
//! `Side`, is what reports name players by, so that n-player games can use the same
//! reports and renderer (see docs/ARCHITECTURE.md, "Players").

use crate::side::{Side, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Signature;

/// A player: an index into a game's [`Players`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Player(pub u8);

impl From<Side> for Player {
    /// `B` is the first declared player, `R` the second.
    fn from(s: Side) -> Player {
        match s {
            Side::B => Player(0),
            Side::R => Player(1),
        }
    }
}

impl Player {
    /// The two-player view, for the first two players.
    pub fn side(self) -> Option<Side> {
        match self.0 {
            0 => Some(Side::B),
            1 => Some(Side::R),
            _ => None,
        }
    }
}

/// The players of one game, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Players {
    names: Vec<String>,
}

impl Players {
    /// Players with these names, in this order: at least one, at most 256, all different.
    pub fn new(names: Vec<String>) -> Result<Players, String> {
        if names.is_empty() || names.len() > 256 {
            return Err(format!(
                "a game has between 1 and 256 players, not {}",
                names.len()
            ));
        }
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(format!("the player `{n}` is declared twice"));
            }
        }
        Ok(Players { names })
    }

    /// Seed 003's two players, `B` (Benny) and `R` (Rebecca).
    pub fn two() -> Players {
        Players {
            names: vec![Side::B.name().into(), Side::R.name().into()],
        }
    }

    /// The players a game declares: the constants it names `B` and `R`, in that order.
    pub fn of_game(game: &Game, sig: &Signature) -> Players {
        Players {
            names: game
                .players
                .iter()
                .map(|&op| sig.op(op).name.clone())
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The player's declared name (`B`).
    pub fn name(&self, p: impl Into<Player>) -> &str {
        &self.names[p.into().0 as usize]
    }

    /// The player of this name.
    pub fn find(&self, name: &str) -> Option<Player> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| Player(i as u8))
    }

    /// Every player, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = Player> + '_ {
        (0..self.names.len()).map(|i| Player(i as u8))
    }

    /// A verdict as `--json` names it: the winner's name, or `draw`.
    pub fn verdict(&self, v: Verdict) -> &str {
        match v {
            Verdict::Win(s) => self.name(s),
            Verdict::Draw => "draw",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_indices_and_sides_agree() {
        let p = Players::two();
        assert_eq!(p.len(), 2);
        assert_eq!(p.name(Side::B), "B");
        assert_eq!(p.name(Player(1)), "R");
        assert_eq!(p.find("R"), Some(Player(1)));
        assert_eq!(p.find("C"), None);
        for s in [Side::B, Side::R] {
            assert_eq!(Player::from(s).side(), Some(s));
            assert_eq!(p.find(s.name()), Some(Player::from(s)));
        }
        assert_eq!(p.verdict(Verdict::Win(Side::R)), "R");
        assert_eq!(p.verdict(Verdict::Draw), "draw");
        let three = Players::new(vec!["N".into(), "E".into(), "S".into()]).unwrap();
        assert_eq!(
            three.iter().map(|x| three.name(x)).collect::<Vec<_>>(),
            ["N", "E", "S"]
        );
        assert_eq!(Player(2).side(), None);
        assert!(Players::new(vec!["A".into(), "A".into()]).is_err());
        assert!(Players::new(Vec::new()).is_err());
    }
}
