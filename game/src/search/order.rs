//! The order in which the searches try a position's successors ([`order`]): the move that
//! was best when the position was last searched, then by the game's `eval` if it declares
//! one, then by what the transposition table knows of the successors, and among equals by
//! the history heuristic ([`History`]): a move that cut the search off at other positions
//! is tried early. Orderings change only how much is searched, never an answer.
//!
//! Moves are known by [`Rules::move_key`] (for a `.game` game, what the move changed:
//! see [`crate::movekey`]), per player. Each cut-off credits the move that caused it with
//! the number of positions its search visited (a cut-off high in the tree, which saved
//! more, counts more than one at the leaves). Ordering by it only ever reorders moves the
//! transposition table knows nothing better about, so answers never depend on it.

use crate::error::SolveError;
use crate::rules::Rules;
use crate::side::Side;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::cmp::Reverse;

pub(super) struct History {
    credit: FxHashMap<(Side, u64), u64>,
    /// Per ply from the root, the last two moves that cut off there (killer moves).
    killers: Vec<[u64; 2]>,
    use_killers: bool,
    /// Off with `GAMELANG_NO_HISTORY` set (to measure what it saves).
    pub(super) on: bool,
}

impl Default for History {
    fn default() -> Self {
        History {
            credit: FxHashMap::default(),
            killers: Vec::new(),
            use_killers: std::env::var_os("GAMELANG_NO_KILLERS").is_none(),
            on: std::env::var_os("GAMELANG_NO_HISTORY").is_none(),
        }
    }
}

impl History {
    /// The keys of the moves from `c` into `keys` (emptied first): whether the game gives
    /// them.
    pub(super) fn keys<R: Rules>(
        rules: &mut R,
        p: Side,
        c: R::Config,
        moves: &[R::Config],
        keys: &mut Vec<u64>,
    ) -> Result<bool, SolveError> {
        keys.clear();
        for &m in moves {
            match rules.move_key(p, c, m)? {
                Some(k) => keys.push(k),
                None => {
                    keys.clear();
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// How much the move has cut off so far, for `p`.
    pub(super) fn score(&self, p: Side, key: u64) -> u64 {
        self.credit.get(&(p, key)).copied().unwrap_or(0)
    }

    /// The move `key` of `p` cut the search off, after a search of `work` positions.
    pub(super) fn cut(&mut self, p: Side, key: u64, work: u64, ply: usize) {
        *self.credit.entry((p, key)).or_insert(0) += work.max(1);
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [u64::MAX; 2]);
        }
        let k = &mut self.killers[ply];
        if k[0] != key {
            *k = [key, k[0]];
        }
    }

    /// Did the move cut off at this ply lately?
    fn killer(&self, ply: usize, key: u64) -> bool {
        self.use_killers && self.killers.get(ply).is_some_and(|k| k.contains(&key))
    }
}

/// Put `moves` (the successors of `c`, `p` to move) in the order to try them, and their
/// history keys in that order in `keys` (empty when the game gives none; a buffer the
/// caller recycles, as the sort's is on the stack: a search orders the moves of every
/// position it opens, and four allocations a position were about 4% of a heaps sweep).
/// `known(m)` is what the table knows of successor `m`'s value (bounds,
/// `i64::MIN`/`MAX` where unknown).
#[allow(clippy::too_many_arguments)]
pub(super) fn order<R: Rules>(
    rules: &mut R,
    history: &History,
    p: Side,
    c: R::Config,
    moves: &mut Vec<R::Config>,
    hint: Option<R::Config>,
    ply: usize,
    known: impl Fn(R::Config) -> Option<(i64, i64)>,
    keys: &mut Vec<u64>,
) -> Result<(), SolveError> {
    let q = p.opponent();
    let keyed_moves = history.on && History::keys(rules, p, c, moves, keys)?;
    if !keyed_moves {
        keys.clear();
    }
    // For B (maximising) a high value first; for R a low one.
    let sign = if p == Side::B { -1 } else { 1 };
    // The game's `eval` only ranks moves against each other: with at most one move besides
    // the hint there is nothing to rank, and it is not asked (a forced move, a win at once).
    let rank = moves.iter().filter(|&&m| Some(m) != hint).count() > 1;
    type Key = (u8, i64, bool, Reverse<u64>);
    let mut keyed: SmallVec<[(Key, R::Config, u64); 16]> = SmallVec::with_capacity(moves.len());
    for (i, &m) in moves.iter().enumerate() {
        let key = if Some(m) == hint {
            (0, 0)
        } else if let Some(e) = match rank {
            true => rules.eval(q, m)?,
            false => None,
        } {
            (1, sign * e)
        } else {
            match known(m) {
                Some((lo, _)) if p == Side::B && lo != i64::MIN => (1, -lo),
                Some((_, hi)) if p == Side::R && hi != i64::MAX => (1, hi),
                _ => (1, 0),
            }
        };
        // Among moves ranked alike so far, those that cut off most first.
        let k = if keyed_moves { keys[i] } else { 0 };
        let (killer, credit) = match keyed_moves {
            true => (history.killer(ply, k), history.score(p, k)),
            false => (false, 0),
        };
        keyed.push(((key.0, key.1, !killer, Reverse(credit)), m, k));
    }
    // Stable: what ranks alike keeps the game's order.
    keyed.sort_by_key(|&(k, _, _)| k);
    moves.clear();
    moves.extend(keyed.iter().map(|&(_, m, _)| m));
    if keyed_moves {
        keys.clear();
        keys.extend(keyed.iter().map(|&(_, _, k)| k));
    }
    Ok(())
}
