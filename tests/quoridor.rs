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

/// The three points of a wall where grooves meet: (x, y) is the corner shared by cells
/// (x - 1, y - 1) .. (x, y); the board's edge is x or y = 0 or n.
fn points(w: support::quoridor::Wall) -> [(usize, usize); 3] {
    use support::quoridor::Wall;
    match w {
        Wall::H(x, y) => [(x, y + 1), (x + 1, y + 1), (x + 2, y + 1)],
        Wall::V(x, y) => [(x + 1, y), (x + 1, y + 1), (x + 1, y + 2)],
    }
}

/// How many of `w`'s points lie on the edge or on a wall of `walls`.
fn touches(
    n: usize,
    walls: &BTreeSet<support::quoridor::Wall>,
    w: support::quoridor::Wall,
) -> usize {
    points(w)
        .iter()
        .filter(|&&(x, y)| {
            x == 0
                || y == 0
                || x == n
                || y == n
                || walls.iter().any(|&v| points(v).contains(&(x, y)))
        })
        .count()
}

/// Does `w` join two points of one connected part of the lines (edge and `walls`)? By
/// union-find over the points where grooves meet, written here from the geometry.
fn closes(n: usize, walls: &BTreeSet<support::quoridor::Wall>, w: support::quoridor::Wall) -> bool {
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let id = |(x, y): (usize, usize)| y * (n + 1) + x;
    let mut parent: Vec<usize> = (0..(n + 1) * (n + 1)).collect();
    let join = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (root(parent, a), root(parent, b));
        parent[ra] = rb;
    };
    let on_edge = |(x, y): (usize, usize)| x == 0 || y == 0 || x == n || y == n;
    for i in 0..=n {
        for p in [(i, 0), (i, n), (0, i), (n, i)] {
            join(&mut parent, id(p), 0);
        }
    }
    for &v in walls {
        let [p, q, r] = points(v);
        join(&mut parent, id(p), id(q));
        join(&mut parent, id(q), id(r));
    }
    let touched: Vec<usize> = points(w)
        .into_iter()
        .filter(|&p| on_edge(p) || walls.iter().any(|&v| points(v).contains(&p)))
        .map(|p| root(&mut parent, id(p)))
        .collect();
    (0..touched.len()).any(|i| (i + 1..touched.len()).any(|j| touched[i] == touched[j]))
}

/// Up to `target` walls placed at random on an `n`×`n` board (forty tries a wall), each
/// where it overlaps and crosses none placed before and `keep` accepts the set with it.
fn random_walls(
    rng: &mut Rng,
    n: usize,
    target: usize,
    keep: impl Fn(&BTreeSet<support::quoridor::Wall>) -> bool,
) -> BTreeSet<support::quoridor::Wall> {
    use support::quoridor::Wall;
    let mut walls = BTreeSet::new();
    for _ in 0..40 * target {
        if walls.len() == target {
            break;
        }
        let (x, y) = (rng.below(n - 1), rng.below(n - 1));
        let w = if rng.below(2) == 0 {
            Wall::H(x, y)
        } else {
            Wall::V(x, y)
        };
        if walls.iter().any(|&v| Rules::conflict(v, w)) {
            continue;
        }
        let mut more = walls.clone();
        more.insert(w);
        if keep(&more) {
            walls = more;
        }
    }
    walls
}

/// Positions crowded with walls (up to `most` of them, placed at random where legal) and
/// pawns anywhere off their goal rows: gamelang's successor sets equal the generator's.
/// The game skips the path search for a wall meeting the lines of walls and edge at most
/// once (`closes` in examples/quoridor.game); the test checks, by its own union-find and
/// breadth-first search, the stronger rule that no wall joining no two points of one part
/// of the lines ever cuts a path, and that the positions met walls of every kind: touching
/// the lines at most once, touching them twice on different parts, closing a loop yet
/// legal, and refused by the path rule.
fn crowded(n: usize, positions: usize, most: usize, seed: u64) {
    use support::quoridor::Wall;
    let mut g = support::load("examples/quoridor.game");
    g.set("n", n);
    let rules = Rules { n };
    let mut rng = Rng(seed);
    let mut seen = Seen::default();
    let (mut free, mut apart, mut touching_legal, mut touching_cut) = (0, 0, 0, 0);
    for k in 0..positions {
        let b = (rng.below(n), rng.below(n - 1));
        let mut r = (rng.below(n), 1 + rng.below(n - 1));
        while r == b {
            r = (rng.below(n), 1 + rng.below(n - 1));
        }
        let target = 1 + rng.below(most);
        let walls = random_walls(&mut rng, n, target, |more| {
            rules.path(more, b, n - 1) && rules.path(more, r, 0)
        });
        // Classify every candidate wall of this position, independently of gamelang.
        for x in 0..n - 1 {
            for y in 0..n - 1 {
                for w in [Wall::H(x, y), Wall::V(x, y)] {
                    if walls
                        .iter()
                        .any(|&v| support::quoridor::Rules::conflict(v, w))
                    {
                        continue;
                    }
                    let mut more = walls.clone();
                    more.insert(w);
                    let legal = rules.path(&more, b, n - 1) && rules.path(&more, r, 0);
                    let once = touches(n, &walls, w) <= 1;
                    match (closes(n, &walls, w), legal) {
                        (false, true) if once => free += 1,
                        (false, true) => apart += 1,
                        (false, false) => {
                            panic!("{w:?} closes no loop but cuts a path: {walls:?}")
                        }
                        (true, true) => touching_legal += 1,
                        (true, false) => touching_cut += 1,
                    }
                }
            }
        }
        let pos = Pos {
            b,
            r,
            wb: 2,
            wr: 2,
            walls,
        };
        let mover = if k % 2 == 0 { Side::B } else { Side::R };
        let want = rules.successors(&pos, mover, &mut seen);
        let c = g.config(&rules.term(&pos));
        let driver = GameDriver::new(&mut g.engine, &g.game).unwrap();
        let got: BTreeSet<Pos> = driver
            .moves(&mut g.engine, mover, c)
            .unwrap()
            .into_iter()
            .map(|t| rules.parse(&g.engine.show(t)))
            .collect();
        assert_eq!(
            got,
            want,
            "{} to move at {}",
            mover.name(),
            rules.term(&pos)
        );
    }
    assert!(
        free > 0 && apart > 0 && touching_legal > 0 && touching_cut > 0,
        "{free} {apart} {touching_legal} {touching_cut}"
    );
}

#[test]
fn the_path_rule_shortcut_agrees_on_crowded_boards_5x5() {
    crowded(5, 60, 8, 0x5c0d);
}

#[test]
fn the_path_rule_shortcut_agrees_on_crowded_boards_7x7() {
    crowded(7, 25, 14, 0x7c0d);
}

/// 9 x 9 keeps its cells in two words (rows 0 to 6, rows 7 and 8) for the path rule's
/// flood: steps across the words, walls on both sides of the split.
#[test]
fn the_path_rule_shortcut_agrees_on_crowded_boards_9x9() {
    crowded(9, 12, 24, 0x9c0d);
}

/// 8 x 8: the high word is one row (no step within it north or south); 10 x 10: rows 0 to
/// 5 and 6 to 9, the largest board the flood takes.
#[test]
fn the_path_rule_shortcut_agrees_on_crowded_boards_8x8_and_10x10() {
    crowded(8, 8, 20, 0x8c0d);
    crowded(10, 6, 28, 0xac0d);
}

#[test]
fn a_wall_closing_a_box_is_refused_and_one_touching_once_is_not() {
    // B on (0, 0) with H(0, 0) under it and its neighbour: V(1, 0) meets the top edge and
    // H(0, 0) (two points) and would shut B in; V(1, 1) meets H(0, 0) only, and is legal.
    let mut g = support::load("examples/quoridor.game");
    g.set("n", 5);
    let rules = Rules { n: 5 };
    let c = g.config("q(0, 22, 3, 3, H(0, 0))");
    let driver = GameDriver::new(&mut g.engine, &g.game).unwrap();
    let walls: BTreeSet<String> = driver
        .moves(&mut g.engine, Side::R, c)
        .unwrap()
        .into_iter()
        .map(|t| rules.term(&rules.parse(&g.engine.show(t))))
        .collect();
    assert!(
        !walls.contains("q(0, 22, 3, 2, (H(0, 0), V(1, 0)))"),
        "{walls:?}"
    );
    assert!(
        walls.contains("q(0, 22, 3, 2, (H(0, 0), V(1, 1)))"),
        "{walls:?}"
    );
}

/// `--set max-plies=K` (OpenSpiel's cap on a game's length): along random games, the
/// configurations are `capped(k, position)` with k the plies played; the moves are this
/// file's generator's successors, each capped with k + 1; play halts after K plies or when
/// a pawn is home, and a game stopped by the cap is a draw (neither `won` nor `lost`),
/// one ended by a pawn is that pawn's player's. The games met both ends.
#[test]
fn a_capped_game_counts_its_plies_and_is_drawn_at_the_cap() {
    let n = 5;
    let rules = Rules { n };
    let mut rng = Rng(0xca9);
    let (mut drawn, mut won) = (0, 0);
    for (game, cap) in [6, 10, 14, 30, 30, 40].into_iter().enumerate() {
        let mut g = support::load("examples/quoridor.game");
        g.set("n", n);
        g.set("walls", 2);
        g.set("max-plies", cap);
        let split = |text: &str| -> (usize, Pos) {
            let rest = text
                .strip_prefix("capped(")
                .expect("a capped configuration");
            let (k, pos) = rest.split_once(", ").unwrap();
            (k.parse().unwrap(), rules.parse(pos))
        };
        let start = g.value("start");
        let (k0, mut pos) = split(&g.engine.show(start));
        assert_eq!(k0, 0);
        let mut mover = Side::B;
        let mut ply = 0;
        loop {
            // `live-candidates`: none where play has halted (the cap, or a pawn home),
            // else `candidates`.
            let here = format!("{}, capped({ply}, {})", mover.name(), rules.term(&pos));
            let live = g.value(&format!("live-candidates({here})"));
            let live = g.engine.show(live);
            if ply >= cap || rules.halted(&pos) {
                assert_eq!(live, "empty", "game {game} ply {ply}");
            } else {
                let all = g.value(&format!("candidates({here})"));
                assert_eq!(live, g.engine.show(all), "game {game} ply {ply}");
            }
            let c = g.config(&format!("capped({ply}, {})", rules.term(&pos)));
            let driver = GameDriver::new(&mut g.engine, &g.game).unwrap();
            let halted = driver.halted(&mut g.engine, mover, c).unwrap();
            assert_eq!(
                halted,
                ply >= cap || rules.halted(&pos),
                "game {game} ply {ply}"
            );
            if halted {
                break;
            }
            let got: BTreeSet<(usize, Pos)> = driver
                .moves(&mut g.engine, mover, c)
                .unwrap()
                .into_iter()
                .map(|t| split(&g.engine.show(t)))
                .collect();
            let want: BTreeSet<(usize, Pos)> = rules
                .successors(&pos, mover, &mut Seen::default())
                .into_iter()
                .map(|s| (ply + 1, s))
                .collect();
            assert_eq!(got, want, "game {game} ply {ply} at {}", rules.term(&pos));
            // `try-candidate` of a capped configuration (a pawn's step by equations of
            // its own, the other candidates through the position's): the same successors.
            let all = g.value(&format!("candidates({here})"));
            let mut tried = BTreeSet::new();
            for x in elements(&g, all) {
                let x = g.engine.show(x);
                let t = g.value(&format!("try-candidate({here}, {x})"));
                let t = g.engine.show(t);
                if t != "empty" {
                    assert!(tried.insert(split(&t)), "two candidates lead to {t}");
                }
            }
            assert_eq!(tried, want, "game {game} ply {ply}: try-candidate");
            // Pawn moves 3 to 1, so that games run to the cap and pawns get home.
            let list: Vec<&Pos> = want.iter().map(|(_, s)| s).collect();
            let pawn: Vec<&Pos> = list
                .iter()
                .copied()
                .filter(|q| q.walls == pos.walls)
                .collect();
            pos = if !pawn.is_empty() && rng.below(4) > 0 {
                pawn[rng.below(pawn.len())].clone()
            } else {
                list[rng.below(list.len())].clone()
            };
            mover = mover.opponent();
            ply += 1;
        }
        let end = format!("capped({ply}, {})", rules.term(&pos));
        let r_won = g.value(&format!("won({}, {end})", mover.name()));
        let b_won = g.value(&format!("lost({}, {end})", mover.name()));
        let (r_won, b_won) = (g.engine.show(r_won), g.engine.show(b_won));
        let home = (pos.r.1 == 0, pos.b.1 == n - 1);
        assert_eq!(
            (r_won == "true", b_won == "true"),
            home,
            "game {game} at {end}"
        );
        if home == (false, false) {
            assert_eq!(ply, cap);
            drawn += 1;
        } else {
            won += 1;
        }
    }
    assert!(drawn > 0 && won > 0, "{drawn} drawn, {won} won");
}

/// The elements of a set term (`_,_` of its elements, or one element, or `empty`).
fn elements(g: &support::Loaded, set: gamelang_runtime::TermId) -> Vec<gamelang_runtime::TermId> {
    let (store, sig) = (g.engine.store(), &g.engine.program().sig);
    match store.app(set) {
        Some((op, args)) if sig.op(op).name == "_,_" => args.to_vec(),
        Some((op, _)) if sig.op(op).name == "empty" => Vec::new(),
        _ => vec![set],
    }
}

/// `exits(W, a)`, a pawn's plain steps (walked from a per-cell table of steps and the two
/// walls blocking each), is every open step of the generator, on every cell of boards with
/// random walls (walls touching the edge and each other: the table's edge cases).
#[test]
fn a_pawns_exits_are_its_open_steps_on_boards_with_random_walls() {
    use support::quoridor::Wall;
    for (n, boards, most, seed) in [(5, 12, 8, 0xe5), (9, 6, 30, 0xe9)] {
        let mut g = support::load("examples/quoridor.game");
        g.set("n", n);
        let rules = Rules { n };
        let mut rng = Rng(seed);
        for _ in 0..boards {
            let target = 1 + rng.below(most);
            let walls = random_walls(&mut rng, n, target, |_| true);
            let text: Vec<String> = walls
                .iter()
                .map(|w| match w {
                    Wall::H(x, y) => format!("H({x}, {y})"),
                    Wall::V(x, y) => format!("V({x}, {y})"),
                })
                .collect();
            let set = format!("({})", text.join(", "));
            for a in 0..n * n {
                let cell = (a % n, a / n);
                let mut want: Vec<usize> = [(0, 1), (0, -1), (1, 0), (-1, 0)]
                    .into_iter()
                    .filter(|&d| rules.open(&walls, cell, d))
                    .map(|d| {
                        let (x, y) = Rules::step(cell, d);
                        y * n + x
                    })
                    .collect();
                want.sort();
                let t = g.value(&format!("exits({set}, {a})"));
                let shown = g.engine.show(t);
                let mut got: Vec<usize> = shown
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse().unwrap())
                    .collect();
                got.sort();
                assert_eq!(
                    got, want,
                    "exits of cell {a} on {n} x {n} with {set}: {shown}"
                );
            }
        }
    }
}

/// A wall's cut of the open-step masks (`cut-of`: two masks where its cells are in one
/// word, `hcut`/`vcut`) takes out of the empty board's masks exactly the steps it blocks, as
/// the ten masks of `flip(blocks(w))` do, for every wall on boards of one word and of two
/// (8 x 8: the high word is one row; 9 x 9, 10 x 10: vertical walls in the high word and
/// across the words).
#[test]
fn a_walls_cut_in_two_masks_is_its_cut_in_ten() {
    for n in [5, 8, 9, 10] {
        let mut g = support::load("examples/quoridor.game");
        g.set("n", n);
        for x in 0..n - 1 {
            for y in 0..n - 1 {
                for w in [format!("H({x}, {y})"), format!("V({x}, {y})")] {
                    let got = g.value(&format!("cut(free, cut-of({w}))"));
                    let got = g.engine.show(got);
                    let want = g.value(&format!("cut(free, flip(blocks({w})))"));
                    let want = g.engine.show(want);
                    assert_eq!(got, want, "{w} on {n} x {n}");
                }
            }
        }
    }
}
