//! The principal line: the play from a solved position when both players play well.
//!
//! When a player wins, the winner takes a fastest win and the loser holds out longest (the
//! line is then *depth-optimal*): each takes the first move, in the game's order, that does
//! so. In a draw, each player takes the first move that keeps the draw. The fastest win
//! comes from alpha-beta on distances ([`Leaf::Distance`]): its value at the start, then a
//! null-window check per move of the line on the same table. It can cost more than deciding
//! who wins, so it has a budget of positions; past it, [`first_moves_line`] has the winner
//! play its first winning move instead. Verdicts come from an [`OutcomeSearch`], whose
//! table the line shares with the solve.

use crate::error::SolveError;
use crate::rules::Rules;
use crate::search::{grow, Leaf, OutcomeSearch, ValueSearch};
use crate::side::{Side, Verdict};

/// Longest principal line followed (a guard; real games are far shorter unless they are
/// built to be deep, like the 100,000-ply test game).
pub const MAX_LINE: usize = 10_000_000;

/// Positions the search for a depth-optimal principal line may visit before `solve`
/// settles for a line of first winning moves.
pub const DEFAULT_LINE_BUDGET: usize = 200_000;

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
    // The budget bounds the distance search's table, and the positions the verdicts of a
    // drawn line's moves add to the outcome search's.
    search.set_limit(budget.saturating_add(search.positions()));
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
    let Verdict::Win(winner) = verdict else {
        // A draw: each player takes its first move that keeps the draw.
        while line.len() < MAX_LINE && !rules.halted(p, c)? {
            let mut keep = None;
            for m in rules.moves(p, c)? {
                if search.verdict(rules, p.opponent(), m)? == Verdict::Draw {
                    keep = Some(m);
                    break;
                }
            }
            let Some(next) = keep else { break };
            line.push(next);
            (p, c) = (p.opponent(), next);
        }
        return Ok(Some(line));
    };
    // A win: the distance search finds the value `±(WON - plies)` of the start, where
    // `plies` is the length of a depth-optimal play; then each move on the line is the
    // first (in the game's order) whose successor is worth one ply less, which null-window
    // searches on the same table confirm cheaply.
    let mut distance = ValueSearch::new(Leaf::Distance);
    distance.seed_signs(search.table());
    distance.set_limit(budget.saturating_add(distance.positions()));
    let seeded = distance.positions();
    let mut v = if winner == Side::B {
        distance.bounded(rules, p, c, 0, i64::MAX)?
    } else {
        distance.bounded(rules, p, c, i64::MIN, 0)?
    };
    while line.len() < MAX_LINE && !rules.halted(p, c)? {
        let want = grow(v);
        let mut next = None;
        for m in rules.moves(p, c)? {
            if distance.bounded(rules, p.opponent(), m, want - 1, want + 1)? == want {
                next = Some(m);
                break;
            }
        }
        // Not halted but no move: formula (1) treats it like a lost leaf.
        let Some(next) = next else { break };
        line.push(next);
        (p, c, v) = (p.opponent(), next, want);
    }
    if std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
        let searched = distance.positions() - seeded;
        eprintln!("line: {searched} positions in the distance search, besides the {seeded} the outcome search knew");
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
        // What this loop holds across the verdicts' searches (which may collect garbage).
        let held: Vec<R::Config> = line.iter().chain(&moves).copied().collect();
        search.pin(&held);
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
    search.pin(&[]);
    Ok(line)
}
