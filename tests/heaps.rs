//! The two-heaps game of seed 003 solved by gamelang (examples/heaps.game, through the
//! generic WINS module) against an independent brute-force solver written here.

use gamelang_game::{GameDriver, Side, Verdict};
use std::collections::HashMap;
mod support;
use support::heaps::{mover_wins, moves};
use support::load;

#[test]
fn two_five_is_won_by_rebecca_only_through_two_three() {
    let mut h = load("examples/heaps.game");
    let o = h.solve(&format!("({} {})", 2, 5), "R");
    assert_eq!(o.winner, Verdict::Win(Side::R));
    assert_eq!(h.engine.show(o.best_move.expect("a winning move")), "(2 3)");
    // Brute force: (2 3) is the only move from (2 5) that leaves Benny lost. The seed's
    // prose says 2,5 -> 2,1, but its own program (and this search) give (2 3).
    let mut memo = HashMap::new();
    let winning: Vec<_> = moves(2, 5)
        .into_iter()
        .filter(|&(a, b)| !mover_wins(a, b, &mut memo))
        .collect();
    assert_eq!(winning, vec![(2, 3)]);
    // gamelang agrees on every successor: only (2 3) keeps the win for R.
    let start_pat = h.term_of("(2 5)", Some(h.game.config_sort));
    let game = h.game.clone();
    let d = GameDriver::new(&mut h.engine, &game).unwrap();
    let start = h.engine.build(&start_pat, &[]);
    let start = h.engine.reduce(start).unwrap();
    let succ = d.moves(&mut h.engine, Side::R, start).unwrap();
    let shown: Vec<String> = succ.iter().map(|&m| h.engine.show(m)).collect();
    let mut expected: Vec<String> = moves(2, 5)
        .iter()
        .map(|(a, b)| format!("({a} {b})"))
        .collect();
    let mut sorted = shown.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(
        sorted, expected,
        "next-config must give exactly the legal moves"
    );
    let mut keep = Vec::new();
    for &m in &succ {
        if d.winner(&mut h.engine, Side::B, m).unwrap() == Side::R {
            keep.push(h.engine.show(m));
        }
    }
    assert_eq!(keep, vec!["(2 3)".to_string()]);
}

#[test]
fn every_pair_up_to_30_matches_brute_force() {
    let mut h = load("examples/heaps.game");
    let mut memo = HashMap::new();
    for k in 1..=30 {
        for n in 1..=30 {
            let o = h.solve(&format!("({} {})", k, n), "R");
            let expected = if mover_wins(k, n, &mut memo) {
                Side::R
            } else {
                Side::B
            };
            assert_eq!(o.winner, Verdict::Win(expected), "({k} {n}) with R to move");
            // Benny moving first: the game is impartial, so the mover's fate is the same.
            let o = h.solve(&format!("({} {})", k, n), "B");
            let expected = if mover_wins(k, n, &mut memo) {
                Side::B
            } else {
                Side::R
            };
            assert_eq!(o.winner, Verdict::Win(expected), "({k} {n}) with B to move");
        }
    }
}

#[test]
fn principal_lines_are_legal_and_won_by_the_winner() {
    let mut h = load("examples/heaps.game");
    let mut memo = HashMap::new();
    for (k, n) in [(2, 5), (5, 2), (7, 7), (12, 20), (13, 8), (1, 30)] {
        let o = h.solve(&format!("({} {})", k, n), "R");
        let line: Vec<(u64, u64)> = o
            .line
            .iter()
            .map(|&c| {
                let s = h.engine.show(c);
                let inner = s.trim_start_matches('(').trim_end_matches(')');
                let (a, b) = inner.split_once(' ').expect("a pair");
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        for w in line.windows(2) {
            assert!(
                moves(w[0].0, w[0].1).contains(&w[1]),
                "illegal move {:?} -> {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(
            *line.last().unwrap(),
            (0, 0),
            "the line ends when the game does"
        );
        // The player who cannot move at the end is the loser.
        let plies = line.len() - 1;
        let stuck = if plies.is_multiple_of(2) {
            o.to_move
        } else {
            o.to_move.opponent()
        };
        assert_eq!(Verdict::Win(stuck.opponent()), o.winner, "({k} {n})");
        assert_eq!(o.best_move.is_some(), mover_wins(k, n, &mut memo));
    }
}

#[test]
fn the_seeds_own_program_agrees_on_ordered_pairs() {
    let mut seed = load("tests/data/seed003-appendix-a.game");
    let mut memo = HashMap::new();
    let o = seed.solve(&format!("({} {})", 2, 5), "R");
    assert_eq!(o.winner, Verdict::Win(Side::R));
    assert_eq!(seed.engine.show(o.best_move.unwrap()), "(2 3)");
    for k in 1..=12 {
        for n in k..=12 {
            let expected = if mover_wins(k, n, &mut memo) {
                Side::R
            } else {
                Side::B
            };
            assert_eq!(
                seed.solve(&format!("({} {})", k, n), "R").winner,
                Verdict::Win(expected),
                "({k} {n})"
            );
        }
    }
}
