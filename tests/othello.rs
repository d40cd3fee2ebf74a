//! Othello (`examples/othello.game`) against an Othello written here from the rules, with its
//! own move generator on bit boards and its own negamax: the winner and the final disc
//! margin of 4 x 4 under best play, and the successors of positions reached by random play
//! (including a pass and a finished game) on 4 x 4, 6 x 6 and 8 x 8 (where the game keeps a
//! board in two words).

mod support;
use std::collections::{BTreeSet, HashMap};
use support::cli::{gamelang, json, reduce_results};
use support::othello::{flipped, negamax, placements, start, successors, Pos};

const GAME: &str = "examples/othello.game";

/// A position written as the game writes it: one word per colour up to 62 cells, two
/// (the top and the bottom half of the board) beyond.
fn term(n: u32, p: Pos) -> String {
    let mask = |x: u64| {
        if n * n <= 62 {
            format!("one({x})")
        } else {
            let half = n * n / 2;
            format!("mask({}, {})", x & ((1 << half) - 1), x >> half)
        }
    };
    format!("board({}, {})", mask(p.black), mask(p.white))
}

/// The positions in gamelang's printed normal form of a set of boards (`empty`, one board,
/// or several separated by commas).
fn parse_boards(n: u32, printed: &str) -> BTreeSet<Pos> {
    let mut out = BTreeSet::new();
    for chunk in printed.split("board(").skip(1) {
        let nums: Vec<u64> = chunk
            .split(|ch: char| !ch.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect();
        let pos = match nums[..] {
            [b, w, ..] if n * n <= 62 => Pos { black: b, white: w },
            [bt, bu, wt, wu, ..] => {
                let half = n * n / 2;
                Pos {
                    black: bt | bu << half,
                    white: wt | wu << half,
                }
            }
            _ => panic!("cannot read a board in {printed:?}"),
        };
        out.insert(pos);
    }
    out
}

/// xorshift64: a fixed-seed generator, so the positions are the same on every run.
struct Rng(u64);
impl Rng {
    fn below(&mut self, k: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % k as u64) as usize
    }
}

/// How the positions of a random game are used in the comparison.
#[derive(PartialEq, Debug)]
enum Kind {
    Ordinary,
    Pass,
    Finished,
}

fn kind(n: u32, p: Pos, black: bool) -> Kind {
    if !placements(n, p, black).is_empty() {
        Kind::Ordinary
    } else if !placements(n, p, !black).is_empty() {
        Kind::Pass
    } else {
        Kind::Finished
    }
}

/// Positions (with Black to move or not) from random games on n x n: `ordinary` positions
/// with a move, and a pass and a finished position, each the first met.
fn sample(n: u32, seed: u64, ordinary: usize) -> Vec<(Pos, bool, Kind)> {
    let mut rng = Rng(seed);
    let mut out: Vec<(Pos, bool, Kind)> = Vec::new();
    let has = |out: &Vec<(Pos, bool, Kind)>, k: Kind| out.iter().any(|(_, _, x)| *x == k);
    for _game in 0..200 {
        let (mut p, mut black) = (start(n), true);
        loop {
            let k = kind(n, p, black);
            let wanted = match k {
                Kind::Ordinary => {
                    out.iter().filter(|(_, _, x)| *x == Kind::Ordinary).count() < ordinary
                        && rng.below(4) == 0
                }
                Kind::Pass => !has(&out, Kind::Pass),
                Kind::Finished => !has(&out, Kind::Finished),
            };
            if wanted {
                out.push((p, black, k));
            }
            let next = successors(n, p, black);
            if next.is_empty() {
                break;
            }
            p = next[rng.below(next.len())];
            black = !black;
        }
        let ordinary_done = out.iter().filter(|(_, _, x)| *x == Kind::Ordinary).count() == ordinary;
        if ordinary_done && has(&out, Kind::Finished) && (n > 4 || has(&out, Kind::Pass)) {
            return out;
        }
    }
    panic!("200 random games on {n} x {n} did not give the positions wanted");
}

/// The successors gamelang gives, by `gamelang reduce FILE 'next-config(P, BOARD)'`.
fn gamelang_successors(file: &str, n: u32, p: Pos, black: bool) -> BTreeSet<Pos> {
    let player = if black { "B" } else { "R" };
    let t = format!("next-config({player}, {})", term(n, p));
    let out = gamelang(&["reduce", file, &t, "--quiet"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gamelang reduce {t} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, printed) = text
        .split_once(": ")
        .unwrap_or_else(|| panic!("no result in {text:?}"));
    parse_boards(n, printed)
}

/// Othello as a grid game (examples/grid/othello.game: GRID's line capture and counted
/// end) solves 4 x 4 as the negamax and as the equations' Othello: the same winner, from
/// the same start. (It has no score: `--value` is the equations' game's alone.)
#[test]
fn the_grid_othello_wins_as_the_negamax_and_the_equations() {
    let margin = negamax(4, start(4), true, &mut HashMap::new());
    let winner = match margin.signum() {
        1 => "B",
        -1 => "R",
        _ => "draw",
    };
    let grid = json(&["solve", "examples/grid/othello.game", "--json"]);
    assert_eq!(grid["winner"], winner, "{grid}");
    let start_board = format!("board(\"{}\")", support::othello::compact(4, start(4)));
    assert_eq!(grid["start"], start_board, "{grid}");
    let equations = json(&["solve", GAME, "--json"]);
    assert_eq!(grid["winner"], equations["winner"], "{equations}");
}

#[test]
fn four_by_four_winner_and_margin_match_negamax() {
    let margin = negamax(4, start(4), true, &mut HashMap::new());
    let winner = match margin.signum() {
        1 => "B",
        -1 => "R",
        _ => "draw",
    };
    let solved = json(&["solve", GAME, "--json"]);
    assert_eq!(solved["winner"], winner, "{solved}");
    assert_eq!(solved["start"], term(4, start(4)), "{solved}");
    let valued = json(&["solve", GAME, "--value", "--json"]);
    assert_eq!(valued["value"], margin, "{valued}");
}

#[test]
fn successors_match_the_rules_on_random_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (n, seed, ordinary) in [(4, 0x9e37_79b9_7f4a_7c15, 6), (6, 7, 3), (8, 11, 3)] {
        let file = if n == 4 {
            GAME.to_string()
        } else {
            game_of_side(dir.path(), n)
        };
        let positions = sample(n, seed, ordinary);
        for (p, black, kind) in positions {
            let expected: BTreeSet<Pos> = successors(n, p, black).into_iter().collect();
            match kind {
                Kind::Pass => assert_eq!(expected, BTreeSet::from([p])),
                Kind::Finished => assert!(expected.is_empty()),
                Kind::Ordinary => assert!(!expected.is_empty()),
            }
            assert_eq!(
                gamelang_successors(&file, n, p, black),
                expected,
                "{n} x {n}, {kind:?} position {}, Black to move: {black}",
                term(n, p)
            );
        }
    }
}

/// A copy of the game with another default side (`gamelang reduce` has no --set), in `dir`.
fn game_of_side(dir: &std::path::Path, n: u32) -> String {
    let source = std::fs::read_to_string(GAME).unwrap();
    let text = source.replace("eq n = 4 .", &format!("eq n = {n} ."));
    assert!(
        text != source || n == 4,
        "the default side `eq n = 4 .` is gone"
    );
    let path = dir.join(format!("othello{n}.game"));
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// What random players use (docs/agents.md, "Random playouts"): on positions of random
/// games, `halted` holds exactly when neither player can place a disc; `candidates` are the
/// empty cells; `try-candidate` on each gives the rules' board after placing there, or
/// nothing when nothing is flipped (so their union is next-config's set, or empty on a
/// pass, where the agents fall back on next-config).
#[test]
fn halted_and_the_candidates_follow_the_rules_on_random_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (n, seed, ordinary) in [(4, 5, 6), (6, 13, 4), (8, 17, 4)] {
        let file = game_of_side(dir.path(), n);
        let positions = sample(n, seed, ordinary);
        // One `reduce` command per question, run in order by one gamelang process (the
        // values are compared, not their least sorts).
        let mut script = std::fs::read_to_string(&file).unwrap();
        let mut expected = Vec::new();
        for &(p, black, ref kind) in &positions {
            let who = if black { "B" } else { "R" };
            let board = term(n, p);
            script += &format!("reduce halted({who}, {board}) .\n");
            expected.push((*kind == Kind::Finished).to_string());
            let empty: Vec<u32> = (0..n * n)
                .filter(|&i| (p.black | p.white) >> i & 1 == 0)
                .collect();
            script += &format!("reduce candidates({who}, {board}) .\n");
            let listed: Vec<String> = empty.iter().map(|i| i.to_string()).collect();
            expected.push(if listed.is_empty() {
                "empty".to_string()
            } else {
                listed.join(", ")
            });
            let placed: BTreeSet<Pos> = placements(n, p, black).into_iter().collect();
            for i in empty {
                script += &format!("reduce try-candidate({who}, {board}, {i}) .\n");
                let mine = if black { p.black } else { p.white };
                let theirs = if black { p.white } else { p.black };
                let f = flipped(n, mine, theirs, i / n, i % n);
                expected.push(if f == 0 {
                    "empty".to_string()
                } else {
                    let (mine, theirs) = (mine | 1 << i | f, theirs & !f);
                    let q = if black {
                        Pos {
                            black: mine,
                            white: theirs,
                        }
                    } else {
                        Pos {
                            black: theirs,
                            white: mine,
                        }
                    };
                    assert!(placed.contains(&q), "the test's own generators disagree");
                    term(n, q)
                });
            }
        }
        let path = dir.path().join(format!("questions{n}.game"));
        std::fs::write(&path, script).unwrap();
        let got = reduce_results(&path);
        assert_eq!(got.len(), expected.len(), "{n} x {n}: {got:?}");
        for (g, e) in got.iter().zip(&expected) {
            assert_eq!(g, e, "{n} x {n}");
        }
        let passes = positions
            .iter()
            .filter(|(_, _, k)| *k == Kind::Pass)
            .count();
        assert!(n > 4 || passes > 0, "4 x 4 met no pass");
    }
}

#[test]
fn the_game_starts_from_the_standard_position_on_every_side() {
    for n in [4u32, 6, 8] {
        let out = json(&[
            "solve",
            GAME,
            "--set",
            &format!("n={n}"),
            "--max-depth",
            "1",
            "--json",
        ]);
        assert_eq!(out["start"], term(n, start(n)), "{n} x {n}: {out}");
        assert_eq!(out["to_move"], "B", "{n} x {n}: {out}");
    }
}

/// The grid Othello's `eval` (examples/grid/othello.game, what `alphabeta` scores its
/// leaves with), on positions of random games (a pass and a finished game among them) on
/// 4 x 4, 6 x 6 and 8 x 8: 20 per corner, 3 per move (mobility), 1 per disc, Black's minus
/// White's, computed here from this file's Othello; at a `stuck(P, b)` the same as at b.
#[test]
fn the_grid_othellos_eval_weighs_corners_mobility_and_discs() {
    let dir = tempfile::tempdir().unwrap();
    for (n, seed, ordinary) in [(4, 5, 6), (6, 13, 6), (8, 17, 6)] {
        let source = std::fs::read_to_string("examples/grid/othello.game").unwrap();
        let mut script = source.replace("eq n = 4 .", &format!("eq n = {n} ."));
        let mut expected = Vec::new();
        for (p, black, _) in sample(n, seed, ordinary) {
            let count = |x: u64| x.count_ones() as i64;
            let corners = (1u64 << 0) | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1));
            let mobility = |black: bool| placements(n, p, black).len() as i64;
            let e = 20 * (count(p.black & corners) - count(p.white & corners))
                + 3 * (mobility(true) - mobility(false))
                + count(p.black)
                - count(p.white);
            let who = if black { "B" } else { "R" };
            let board = format!("board(\"{}\")", support::othello::compact(n, p));
            script += &format!("reduce in OTHELLO-GRID : eval({who}, {board}) .\n");
            script += &format!("reduce in OTHELLO-GRID : eval({who}, stuck({who}, {board})) .\n");
            expected.extend([e, e]);
        }
        let path = dir.path().join(format!("eval{n}.game"));
        std::fs::write(&path, script).unwrap();
        let got: Vec<i64> = reduce_results(&path)
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(got, expected, "{n} x {n}");
        assert!(expected.iter().any(|&e| e < 0) && expected.iter().any(|&e| e > 0));
    }
}
