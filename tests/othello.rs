//! Othello (`examples/othello.game`) against an Othello written here from the rules, with its
//! own move generator on bit boards and its own negamax: the winner and the final disc
//! margin of 4 x 4 under best play, and the successors of positions reached by random play
//! (including a pass and a finished game) on 4 x 4, 6 x 6 and 8 x 8 (where the game keeps a
//! board in two words).

mod support;
use std::collections::{BTreeSet, HashMap};
use support::cli::{gamelang, json};

const GAME: &str = "examples/othello.game";

/// A position: Black's and White's discs as bit masks, cell (row, col) = bit row * n + col.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
struct Pos {
    black: u64,
    white: u64,
}

/// The standard start: White on d4 and e5, Black on d5 and e4 (rows counted from the top).
fn start(n: u32) -> Pos {
    let at = |r: u32, c: u32| 1u64 << (r * n + c);
    let m = n / 2;
    Pos {
        black: at(m, m - 1) | at(m - 1, m),
        white: at(m - 1, m - 1) | at(m, m),
    }
}

/// The discs of `theirs` flipped when the owner of `mine` places on (r, c): in each of the
/// eight directions, a run of their discs closed by one of mine.
fn flipped(n: u32, mine: u64, theirs: u64, r: u32, c: u32) -> u64 {
    let mut all = 0;
    for (dr, dc) in [
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, -1),
        (0, 1),
        (1, -1),
        (1, 0),
        (1, 1),
    ] {
        let (mut y, mut x) = (r as i32 + dr, c as i32 + dc);
        let mut run = 0;
        while (0..n as i32).contains(&y) && (0..n as i32).contains(&x) {
            let bit = 1u64 << (y as u32 * n + x as u32);
            if theirs & bit != 0 {
                run |= bit;
            } else {
                if mine & bit != 0 {
                    all |= run;
                }
                break;
            }
            y += dr;
            x += dc;
        }
    }
    all
}

/// The positions after each legal placement of the player to move (Black if `black`).
fn placements(n: u32, p: Pos, black: bool) -> Vec<Pos> {
    let (mine, theirs) = if black {
        (p.black, p.white)
    } else {
        (p.white, p.black)
    };
    let mut out = Vec::new();
    for r in 0..n {
        for c in 0..n {
            let bit = 1u64 << (r * n + c);
            if (mine | theirs) & bit != 0 {
                continue;
            }
            let f = flipped(n, mine, theirs, r, c);
            if f != 0 {
                let (m, t) = (mine | bit | f, theirs & !f);
                out.push(if black {
                    Pos { black: m, white: t }
                } else {
                    Pos { black: t, white: m }
                });
            }
        }
    }
    out
}

/// The successors: the placements; with none, a pass (the same position) if the opponent can
/// move; with neither, nothing (the game is over).
fn successors(n: u32, p: Pos, black: bool) -> Vec<Pos> {
    let moves = placements(n, p, black);
    if moves.is_empty() && !placements(n, p, !black).is_empty() {
        vec![p]
    } else {
        moves
    }
}

/// Negamax: the final disc margin (the mover's discs minus the other's) under best play.
fn negamax(n: u32, p: Pos, black: bool, memo: &mut HashMap<(Pos, bool), i64>) -> i64 {
    if let Some(&v) = memo.get(&(p, black)) {
        return v;
    }
    let next = successors(n, p, black);
    let v = if next.is_empty() {
        let margin = p.black.count_ones() as i64 - p.white.count_ones() as i64;
        if black {
            margin
        } else {
            -margin
        }
    } else {
        next.into_iter()
            .map(|q| -negamax(n, q, !black, memo))
            .max()
            .unwrap()
    };
    memo.insert((p, black), v);
    v
}

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
        let out = gamelang(&["reduce", &path.display().to_string(), "--quiet"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let got: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("result "))
            .map(|l| l.split_once(": ").map_or(l, |(_sort, value)| value))
            .collect();
        assert_eq!(got.len(), expected.len(), "{n} x {n}: {text}");
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
