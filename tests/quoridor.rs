//! examples/quoridor.game against a Quoridor move generator written here from the rules of
//! seed 004 (section 2.2): along random legal games with a fixed seed, the successor set
//! gamelang computes (`next-config`) is exactly this file's, position by position. The games
//! are checked to have met straight jumps, diagonal jumps and walls refused because they
//! would cut a pawn's last path.

mod support;

use gamelang_game::{GameDriver, Side};
use std::collections::BTreeSet;
use support::quoridor::{Pos, Rng, Rules, Seen};

/// Play `games` random games of at most `plies` plies on an n x n board with `walls` walls
/// each, comparing the successor sets at every position. Pawn moves are preferred 2 to 1
/// over walls so that the pawns meet (jumps) and the walls last. Every other game starts
/// with the pawns face to face at B's edge, R to move, so that R's jumps meet the edge.
fn compare(n: usize, walls: usize, games: usize, plies: usize, seed: u64) -> Seen {
    let mut g = support::load("examples/quoridor.game");
    g.set("n", n);
    g.set("walls", walls);
    let rules = Rules { n };
    let mut rng = Rng(seed);
    let mut seen = Seen::default();
    let start = Pos {
        b: (n / 2, 0),
        r: (n / 2, n - 1),
        wb: walls,
        wr: walls,
        walls: BTreeSet::new(),
    };
    let start_t = g.value("start");
    let start_text = g.engine.show(start_t);
    assert_eq!(rules.parse(&start_text), start, "the start position");
    for game in 0..games {
        let (mut pos, mut mover) = if game % 2 == 0 {
            (start.clone(), Side::B)
        } else {
            let x = rng.below(n);
            let mut p = start.clone();
            (p.b, p.r) = ((x, 0), (x, 1));
            (p, Side::R)
        };
        for ply in 0..plies {
            if rules.halted(&pos) {
                break;
            }
            let want = rules.successors(&pos, mover, &mut seen);
            let c = g.config(&rules.term(&pos));
            let driver = GameDriver::new(&mut g.engine, &g.game).unwrap();
            assert!(!driver.halted(&mut g.engine, mover, c).unwrap());
            let got: BTreeSet<Pos> = driver
                .moves(&mut g.engine, mover, c)
                .unwrap()
                .into_iter()
                .map(|t| rules.parse(&g.engine.show(t)))
                .collect();
            assert_eq!(
                got,
                want,
                "game {game}, ply {ply}, {} to move at {}",
                mover.name(),
                rules.term(&pos)
            );
            let list: Vec<&Pos> = want.iter().collect();
            let pawn: Vec<&Pos> = list
                .iter()
                .copied()
                .filter(|q| q.walls == pos.walls)
                .collect();
            pos = if !pawn.is_empty() && (rng.below(3) > 0 || pawn.len() == list.len()) {
                pawn[rng.below(pawn.len())].clone()
            } else {
                list[rng.below(list.len())].clone()
            };
            mover = mover.opponent();
        }
    }
    seen
}

#[test]
fn successor_sets_agree_with_an_independent_generator_on_5x5() {
    let seen = compare(5, 6, 6, 40, 0x0004_5eed);
    assert!(seen.straight_jumps > 0, "{seen:?}");
    assert!(seen.diagonal_jumps > 0, "{seen:?}");
    assert!(seen.walls_cutting_a_path > 0, "{seen:?}");
}

#[test]
fn successor_sets_agree_with_an_independent_generator_on_7x7() {
    let seen = compare(7, 6, 2, 20, 0x7777);
    assert!(seen.straight_jumps + seen.diagonal_jumps > 0, "{seen:?}");
}

#[test]
fn the_default_board_is_9x9_with_10_walls_and_131_first_moves() {
    // 3 pawn steps and 2 (9 - 1)^2 = 128 walls (seed 004, equation 3.1).
    let mut g = support::load("examples/quoridor.game");
    let start = g.value("start");
    let driver = GameDriver::new(&mut g.engine, &g.game).unwrap();
    let moves = driver.moves(&mut g.engine, Side::B, start).unwrap();
    assert_eq!(moves.len(), 3 + 2 * 8 * 8);
    let rules = Rules { n: 9 };
    let p = rules.parse(&g.engine.show(start));
    assert_eq!((p.b, p.r, p.wb, p.wr), ((4, 0), (4, 8), 10, 10));
}
