//! Random play of a grid game on boards alone, for agents' random playouts: the game of
//! stdlib/grid.game's `GRID{X}` (Definitions 7-10 of seed 001) without terms. A playout
//! through the rewriting engine builds every successor of every position as a term to use
//! one; here a ply computes the successors as board words in one buffer, picks one, and
//! checks only the goals that the cells it changed can have made true.
//!
//! The semantics is `GRID{X}`'s, which the caller checks against the game's own
//! operators (the agents crate compares both on every example grid game in its tests):
//! at a board with player `p` to move, play has stopped when the goals of the other
//! player (who has just moved) hold, and that player has won; otherwise `p` moves to one of
//! the distinct boards its actions lead to, chosen uniformly; a player without a move
//! gives up with one more ply, and then loses or draws as the game says ([`GridPlay::new`]'s
//! `stuck`).

use crate::{holds_at, Board, Compiled, CompiledGoals, Coord};

/// Black (B) is player 0, White (R) player 1, as in the agents' players.
pub const BLACK: usize = 0;
pub const WHITE: usize = 1;

/// One goal (a conjunction of atoms) with the positions it is tried at, and for each cell
/// offset it looks at (relative to the position), so that a change of one cell is checked
/// at the few positions whose instance of the goal contains that cell.
#[derive(Debug)]
struct Goal {
    atoms: Vec<crate::Atom>,
    range: crate::Range,
}

/// How a random game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// The winner (0 Black, 1 White); `None` for a draw or a game stopped at the limit.
    pub winner: Option<usize>,
    /// Moves played (a player giving up counts as one, as in `GRID{X}`).
    pub plies: usize,
    /// Stopped at the limit before the game ended.
    pub stopped: bool,
}

/// A grid game's rules compiled for one board size, to be played at random.
#[derive(Debug)]
pub struct GridPlay {
    actions: [Compiled; 2],
    goals: [Vec<Goal>; 2],
    /// The winner when player `p` cannot move (`None`: a draw).
    stuck: [Option<usize>; 2],
}

impl GridPlay {
    /// `actions` and `goals` of Black and of White, compiled for the board size, and the
    /// winner when each player cannot move (from the game's `won`/`lost` of a `stuck`
    /// position, or `None` for a draw).
    pub fn new(
        actions: [Compiled; 2],
        goals: [CompiledGoals; 2],
        stuck: [Option<usize>; 2],
    ) -> GridPlay {
        let goals = goals.map(|g| {
            g.goals
                .into_iter()
                .map(|(atoms, range)| Goal { atoms, range })
                .collect()
        });
        GridPlay {
            actions,
            goals,
            stuck,
        }
    }

    /// Do `player`'s goals hold anywhere on `board` (`holds` of stdlib/grid.game)?
    fn holds(&self, player: usize, board: &Board) -> bool {
        self.goals[player].iter().any(|g| {
            let (lx, hx, ly, hy) = g.range;
            (ly..=hy).any(|j| (lx..=hx).any(|i| holds_at(board, &g.atoms, i, j)))
        })
    }

    /// Do `player`'s goals hold at a position whose instance contains a cell of
    /// `changed`? Where they did not hold before a move, only such positions can hold after
    /// it (the other atoms' cells are as they were).
    fn holds_near(&self, player: usize, board: &Board, changed: &[(i64, i64)]) -> bool {
        let (w, h) = (board.width as i64, board.height as i64);
        self.goals[player].iter().any(|g| {
            let (lx, hx, ly, hy) = g.range;
            g.atoms.iter().any(|a| {
                changed.iter().any(|&(cx, cy)| {
                    // The positions (i, j) at which atom `a` looks at (cx, cy).
                    let is = match a.x {
                        Coord::Rel(k) => (cx - k, cx - k),
                        _ if a.x.at(0, w) == cx => (lx, hx),
                        _ => (1, 0),
                    };
                    let js = match a.y {
                        Coord::Rel(k) => (cy - k, cy - k),
                        _ if a.y.at(0, h) == cy => (ly, hy),
                        _ => (1, 0),
                    };
                    (js.0.max(ly)..=js.1.min(hy)).any(|j| {
                        (is.0.max(lx)..=is.1.min(hx)).any(|i| holds_at(board, &g.atoms, i, j))
                    })
                })
            })
        })
    }

    /// The board `mover`'s move `m` (action, i, j) leads to from `board`, in `out`.
    fn apply(&self, board: &Board, mover: usize, m: (usize, i64, i64), out: &mut Board) {
        let (w, h) = (board.width as i64, board.height as i64);
        out.words.copy_from_slice(&board.words);
        for e in &self.actions[mover].actions[m.0].0.eff {
            out.set(e.x.at(m.1, w), e.y.at(m.2, h), e.piece);
        }
    }

    /// One of the moves `succ`, uniformly among the distinct boards they lead to (two
    /// instances of actions may lead to one board, which a set of successors holds once):
    /// a move drawn uniformly is kept with probability 1/m, m the number of moves leading
    /// to its board, else drawn again; each board is then kept with probability 1/n per
    /// draw (n the number of moves).
    fn pick(
        &self,
        board: &Board,
        mover: usize,
        succ: &[(usize, i64, i64)],
        below: &mut dyn FnMut(usize) -> usize,
        [scratch, other]: &mut [Board; 2],
    ) -> (usize, i64, i64) {
        loop {
            let m = succ[below(succ.len())];
            self.apply(board, mover, m, scratch);
            let same = succ
                .iter()
                .filter(|&&s| {
                    s == m || {
                        self.apply(board, mover, s, other);
                        other.words == scratch.words
                    }
                })
                .count();
            if same == 1 || below(same) == 0 {
                return m;
            }
        }
    }

    /// Play from `board`, `mover` to move, until the game ends or `limit` moves were
    /// played, each move chosen by `below(n)` (a number in `0..n`) among the distinct
    /// boards the mover can go to, in the order of [`Compiled::successors`].
    pub fn playout(
        &self,
        board: &Board,
        mut mover: usize,
        below: &mut dyn FnMut(usize) -> usize,
        limit: usize,
    ) -> Ending {
        let mut board = board.clone();
        let (w, h) = (board.width as i64, board.height as i64);
        // Whose goals held before the last move: both are checked in full once, then
        // only near the cells each move changes (unless they held, which ends play).
        let mut held = [self.holds(BLACK, &board), self.holds(WHITE, &board)];
        let mut succ: Vec<(usize, i64, i64)> = Vec::new();
        let mut changed: Vec<(i64, i64)> = Vec::new();
        let mut scratch = [board.clone(), board.clone()];
        // As a playout through the rules: a position is looked at only before the
        // `limit`-th move; a game still going then is stopped, whoever won by that move.
        for ply in 0..limit {
            let last = 1 - mover;
            if held[last] {
                return Ending {
                    winner: Some(last),
                    plies: ply,
                    stopped: false,
                };
            }
            // The moves: action instances whose precondition holds.
            succ.clear();
            for (k, (a, (lx, hx, ly, hy))) in self.actions[mover].actions.iter().enumerate() {
                for j in *ly..=*hy {
                    for i in *lx..=*hx {
                        if holds_at(&board, &a.pre, i, j) {
                            succ.push((k, i, j));
                        }
                    }
                }
            }
            if succ.is_empty() {
                // Giving up is a move to `stuck(p, b)`, where play has stopped.
                if ply + 1 == limit {
                    break;
                }
                return Ending {
                    winner: self.stuck[mover],
                    plies: ply + 1,
                    stopped: false,
                };
            }
            let chosen = self.pick(&board, mover, &succ, below, &mut scratch);
            changed.clear();
            for e in &self.actions[mover].actions[chosen.0].0.eff {
                let (x, y) = (e.x.at(chosen.1, w), e.y.at(chosen.2, h));
                board.set(x, y, e.piece);
                changed.push((x, y));
            }
            // A player's goals that did not hold before the move can hold after it only at
            // positions that look at a changed cell; goals that held (the mover's, made
            // true by the other's move, or at the start) are checked in full.
            for q in [BLACK, WHITE] {
                held[q] = if held[q] {
                    self.holds(q, &board)
                } else {
                    self.holds_near(q, &board, &changed)
                };
            }
            mover = last;
        }
        Ending {
            winner: None,
            plies: limit,
            stopped: true,
        }
    }
}
