//! The principal line: the play from a solved position when both players play well.
//!
//! When a player wins, the winner takes a fastest win and the loser holds out longest (the
//! line is then *depth-optimal*); in a draw, each player takes the first move that keeps
//! the draw. Finding the fastest win can cost far more than deciding who wins (on the 5x5
//! colouring board, 0.2 s against 8.5 s), so the search for it has a budget of positions;
//! past it, [`first_moves_line`] has the winner play its first winning move instead.
//! Verdicts come from an [`OutcomeSearch`], whose table the line shares with the solve.

use crate::error::SolveError;
use crate::rules::Rules;
use crate::search::OutcomeSearch;
use crate::side::{Side, Verdict};
use rustc_hash::{FxHashMap, FxHashSet};

/// Longest principal line followed (a guard; real games are far shorter unless they are
/// built to be deep, like the 100,000-ply test game).
pub const MAX_LINE: usize = 10_000_000;

/// Positions the search for a depth-optimal principal line may visit before `solve`
/// settles for a line of first winning moves.
pub const DEFAULT_LINE_BUDGET: usize = 200_000;

/// A position on the explicit stack of [`plies`].
struct PliesFrame<C> {
    p: Side,
    c: C,
    /// The successors that count: the winning ones when the winner moves, all otherwise.
    children: Vec<C>,
    next: usize,
    best: Option<u64>,
}

/// The principal line from `c` with `p` to move, whose verdict is `verdict`; `None` when
/// the search for the fastest win would visit more than `budget` positions.
pub fn principal_line<R: Rules>(
    rules: &mut R,
    search: &mut OutcomeSearch<R::Config>,
    p: Side,
    c: R::Config,
    verdict: Verdict,
    budget: usize,
) -> Result<Option<Vec<R::Config>>, SolveError> {
    // The budget counts the positions the verdicts of the line's moves search, too.
    let budget = budget.saturating_add(search.positions());
    search.set_limit(budget);
    let line = fastest_line(rules, search, p, c, verdict, budget);
    search.set_limit(usize::MAX);
    match line {
        Err(SolveError::OverLimit) => Ok(None),
        line => line,
    }
}

fn fastest_line<R: Rules>(
    rules: &mut R,
    search: &mut OutcomeSearch<R::Config>,
    p: Side,
    c: R::Config,
    verdict: Verdict,
    budget: usize,
) -> Result<Option<Vec<R::Config>>, SolveError> {
    let mut line = vec![c];
    let (mut p, mut c) = (p, c);
    let mut memo = FxHashMap::default();
    while line.len() < MAX_LINE && !rules.halted(p, c)? {
        let next = match verdict {
            Verdict::Win(winner) => {
                let children = counted_moves(rules, search, winner, p, c)?;
                let mut best: Option<(u64, R::Config)> = None;
                for m in children {
                    let Some(n) = plies(rules, search, winner, p.opponent(), m, &mut memo, budget)?
                    else {
                        return Ok(None);
                    };
                    let better = match best {
                        None => true,
                        Some((b, _)) if p == winner => n < b,
                        Some((b, _)) => n > b,
                    };
                    if better {
                        best = Some((n, m));
                    }
                }
                best.map(|(_, m)| m)
            }
            Verdict::Draw => {
                let mut keep = None;
                for m in rules.moves(p, c)? {
                    if search.verdict(rules, p.opponent(), m)? == Verdict::Draw {
                        keep = Some(m);
                        break;
                    }
                }
                keep
            }
        };
        let Some(next) = next else {
            break; // not halted but no move: formula (1) treats it like a lost leaf
        };
        line.push(next);
        (p, c) = (p.opponent(), next);
    }
    Ok(Some(line))
}

/// A principal line without the search for the fastest win: the winner plays a winning
/// move (the one the search found, else its first), the loser (or, in a draw, each player) its first move that keeps the
/// outcome.
pub fn first_moves_line<R: Rules>(
    rules: &mut R,
    search: &mut OutcomeSearch<R::Config>,
    p: Side,
    c: R::Config,
    verdict: Verdict,
) -> Result<Vec<R::Config>, SolveError> {
    let mut line = vec![c];
    let (mut p, mut c) = (p, c);
    while line.len() < MAX_LINE && !rules.halted(p, c)? {
        let mut next = None;
        let mut moves = rules.moves(p, c)?;
        // The winner's move that the search found winning, if it is one of the moves as
        // the game shows them (with a symmetry the search saw canonical forms), first.
        if let (Verdict::Win(w), Some(hint)) = (verdict, search.best(p, c)) {
            if w == p {
                if let Some(i) = moves.iter().position(|&m| m == hint) {
                    moves[..=i].rotate_right(1);
                }
            }
        }
        for m in moves {
            let keeps = match verdict {
                Verdict::Win(w) if p != w => true,
                _ => search.verdict(rules, p.opponent(), m)? == verdict,
            };
            if keeps {
                next = Some(m);
                break;
            }
        }
        let Some(next) = next else { break };
        line.push(next);
        (p, c) = (p.opponent(), next);
    }
    Ok(line)
}

/// The moves that matter when `winner` wins the position: the winner's winning moves, or
/// every move of the loser.
fn counted_moves<R: Rules>(
    rules: &mut R,
    search: &mut OutcomeSearch<R::Config>,
    winner: Side,
    p: Side,
    c: R::Config,
) -> Result<Vec<R::Config>, SolveError> {
    let moves = rules.moves(p, c)?;
    if p != winner {
        return Ok(moves);
    }
    let mut keep = Vec::new();
    for m in moves {
        if search.verdict(rules, p.opponent(), m)? == Verdict::Win(winner) {
            keep.push(m);
        }
    }
    Ok(keep)
}

/// Plies to the end of the game from a position won by `winner` (with `p` to move), when
/// the winner wins as fast as possible and the loser holds out as long as possible. An
/// explicit stack keeps deep games (100,000 plies) off the machine stack.
fn plies<R: Rules>(
    rules: &mut R,
    search: &mut OutcomeSearch<R::Config>,
    winner: Side,
    p: Side,
    c: R::Config,
    memo: &mut FxHashMap<(Side, R::Config), u64>,
    budget: usize,
) -> Result<Option<u64>, SolveError> {
    if let Some(&v) = memo.get(&(p, c)) {
        return Ok(Some(v));
    }
    let mut on_stack = FxHashSet::default();
    let mut stack: Vec<PliesFrame<R::Config>> = Vec::new();
    let mut result: Option<u64> = None;
    let mut open = Some((p, c));
    loop {
        if let Some((p, c)) = open.take() {
            let known = if let Some(&v) = memo.get(&(p, c)) {
                Some(v)
            } else if rules.halted(p, c)? {
                Some(0)
            } else {
                None
            };
            match known {
                Some(v) => {
                    memo.insert((p, c), v);
                    result = Some(v);
                }
                None => {
                    let path = || {
                        let mut path: Vec<(Side, R::Config)> =
                            stack.iter().map(|f| (f.p, f.c)).collect();
                        path.push((p, c));
                        path
                    };
                    if rules.interrupted() {
                        return Err(rules.stop(&path()));
                    }
                    if !on_stack.insert((p, c)) {
                        return Err(rules.cycle(&path()));
                    }
                    let children = counted_moves(rules, search, winner, p, c)?;
                    stack.push(PliesFrame {
                        p,
                        c,
                        children,
                        next: 0,
                        best: None,
                    });
                }
            }
        }
        // The budget: past it, the caller settles for a line of first winning moves.
        if memo.len() + stack.len() + search.positions() > budget {
            return Ok(None);
        }
        let Some(top) = stack.last_mut() else {
            return Ok(Some(result.unwrap_or(0)));
        };
        if let Some(v) = result.take() {
            // Fold a finished child into its parent.
            top.best = Some(match top.best {
                None => v,
                Some(b) if top.p == winner => b.min(v),
                Some(b) => b.max(v),
            });
        }
        if top.next < top.children.len() {
            let child = top.children[top.next];
            top.next += 1;
            open = Some((top.p.opponent(), child));
            continue;
        }
        let done = stack.pop().expect("non-empty");
        on_stack.remove(&(done.p, done.c));
        let v = done.best.map_or(0, |b| b + 1);
        memo.insert((done.p, done.c), v);
        if stack.is_empty() {
            return Ok(Some(v));
        }
        result = Some(v);
    }
}
