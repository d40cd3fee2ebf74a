//! Four-player Quoridor (`quoridor-n` of examples/quoridor.game, a CHANCE game with a
//! certain event) played by every agent, each ply checked against a move generator
//! written here from seed 004 §2.2's rules (breadth-first search for the path rule; the
//! board's geometry from tests/support/quoridor.rs).

mod support;

use gamelang_agents::arena::play_game;
use gamelang_agents::{AgentSpec, ChanceRules, Rng, Rules};
use gamelang_chance::engine::EngineModel;
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;
use support::quoridor::{Rules as Board, Wall};

const DIRS: [(i64, i64); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];

/// A state: the four pawns (x, y), walls left, walls placed, whose turn (0..4).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct State {
    pawns: [(usize, usize); 4],
    left: [usize; 4],
    walls: BTreeSet<Wall>,
    turn: usize,
}

/// Seat i's goal: p1 the bottom row, p2 the left column, p3 the top row, p4 the right
/// column.
fn at_goal(n: usize, seat: usize, (x, y): (usize, usize)) -> bool {
    match seat {
        0 => y == n - 1,
        1 => x == 0,
        2 => y == 0,
        _ => x == n - 1,
    }
}

/// Can seat's pawn reach its goal side from `from` (pawns ignored)?
fn path(b: &Board, walls: &BTreeSet<Wall>, seat: usize, from: (usize, usize)) -> bool {
    let mut seen = BTreeSet::from([from]);
    let mut queue = VecDeque::from([from]);
    while let Some(c) = queue.pop_front() {
        if at_goal(b.n, seat, c) {
            return true;
        }
        for d in DIRS {
            if b.open(walls, c, d) {
                let m = Board::step(c, d);
                if seen.insert(m) {
                    queue.push_back(m);
                }
            }
        }
    }
    false
}

#[derive(Default, Debug)]
struct Seen {
    straight: usize,
    diagonal: usize,
    walls: usize,
    refused_by_path: usize,
    passes: usize,
}

/// The states after the player to move at `s`.
fn successors(b: &Board, s: &State, seen: &mut Seen) -> BTreeSet<State> {
    let me = s.turn;
    let next = (me + 1) % 4;
    let others: Vec<(usize, usize)> = (0..4).filter(|&i| i != me).map(|i| s.pawns[i]).collect();
    let free = |c: &(usize, usize)| !others.contains(c);
    let mut out = BTreeSet::new();
    let to = |cell: (usize, usize)| {
        let mut t = s.clone();
        t.pawns[me] = cell;
        t.turn = next;
        t
    };
    let a = s.pawns[me];
    for d in DIRS {
        if !b.open(&s.walls, a, d) {
            continue;
        }
        let m = Board::step(a, d);
        if free(&m) {
            out.insert(to(m));
        } else if b.open(&s.walls, m, d) && free(&Board::step(m, d)) {
            seen.straight += 1;
            out.insert(to(Board::step(m, d)));
        } else {
            for side in [(d.1, d.0), (-d.1, -d.0)] {
                if b.open(&s.walls, m, side) && free(&Board::step(m, side)) {
                    seen.diagonal += 1;
                    out.insert(to(Board::step(m, side)));
                }
            }
        }
    }
    if s.left[me] > 0 {
        for k in 0..(b.n - 1) * (b.n - 1) {
            let (x, y) = (k % (b.n - 1), k / (b.n - 1));
            for w in [Wall::H(x, y), Wall::V(x, y)] {
                if s.walls.iter().any(|&v| Board::conflict(w, v)) {
                    continue;
                }
                let mut walls = s.walls.clone();
                walls.insert(w);
                if !(0..4).all(|i| path(b, &walls, i, s.pawns[i])) {
                    seen.refused_by_path += 1;
                    continue;
                }
                let mut t = s.clone();
                t.walls = walls;
                t.left[me] -= 1;
                t.turn = next;
                out.insert(t);
            }
        }
    }
    if out.is_empty() {
        seen.passes += 1;
        let mut t = s.clone();
        t.turn = next;
        out.insert(t);
    }
    out
}

/// `qn(a, b, c, d, wa, wb, wc, wd, walls, p3)` as printed, or `go(…)` of one, read back.
fn parse(n: usize, text: &str) -> State {
    let text = text.strip_prefix("go(").map_or(text, |t| &t[..t.len() - 1]);
    let (body, seat) = text.rsplit_once(", p").expect("a seat at the end");
    let turn = seat.trim_end_matches(')').parse::<usize>().unwrap() - 1;
    let nums: Vec<usize> = body
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let kinds: Vec<char> = body.chars().filter(|c| *c == 'H' || *c == 'V').collect();
    assert_eq!(nums.len(), 8 + 2 * kinds.len(), "{text}");
    let cell = |c: usize| (c % n, c / n);
    State {
        pawns: [cell(nums[0]), cell(nums[1]), cell(nums[2]), cell(nums[3])],
        left: [nums[4], nums[5], nums[6], nums[7]],
        walls: kinds
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let (x, y) = (nums[8 + 2 * i], nums[9 + 2 * i]);
                if *k == 'H' {
                    Wall::H(x, y)
                } else {
                    Wall::V(x, y)
                }
            })
            .collect(),
        turn,
    }
}

#[test]
fn every_agent_plays_only_legal_moves_in_four_player_quoridor() {
    let n = 5;
    let path_ = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quoridor.game");
    let text = std::fs::read_to_string(path_).unwrap();
    let mut session = Session::new().unwrap();
    session
        .load_source("examples/quoridor.game", &text)
        .unwrap();
    let game = session
        .chance_games
        .iter()
        .find(|g| g.name == "quoridor-n")
        .unwrap()
        .clone();
    for a in [format!("n={n}"), "players=4".into(), "walls-each=2".into()] {
        session.set_chance_parameter(&game, &a).unwrap();
    }
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
    let mut rules = ChanceRules::new(&mut model).unwrap();
    assert_eq!(rules.players(), ["p1", "p2", "p3", "p4"]);
    let board = Board { n };
    let mut seen = Seen::default();
    let start = rules.start().unwrap();
    // The start: pawns in the middle of the four sides, two walls each, p1 to move.
    let s0 = parse(n, &rules.show(start.config));
    assert_eq!(s0.pawns, [(2, 0), (4, 2), (2, 4), (0, 2)]);
    assert_eq!((s0.left, s0.turn), ([2; 4], 0));
    // The randomizable moves (semi-random's) at the start: exactly the wall moves.
    let random_ok: BTreeSet<State> = rules
        .randomizable(start)
        .unwrap()
        .expect("quoridor-n declares randomizable")
        .iter()
        .map(|&t| parse(n, &rules.show(t)))
        .collect();
    let walls: BTreeSet<State> = successors(&board, &s0, &mut Seen::default())
        .into_iter()
        .filter(|t| t.walls.len() == 1)
        .collect();
    assert_eq!(random_ok, walls);
    // The board as drawn: pawn i + 1 where the start has it, `.` elsewhere.
    let drawn = rules.draw(start);
    let rows: Vec<&str> = drawn.lines().skip(1).step_by(2).collect();
    assert_eq!(rows.len(), n, "{drawn}");
    for (y, row) in rows.iter().enumerate() {
        for x in 0..n {
            let want = match s0.pawns.iter().position(|&c| c == (x, y)) {
                Some(i) => char::from(b'1' + i as u8),
                None => '.',
            };
            assert_eq!(row.chars().nth(4 * x), Some(want), "{drawn}");
        }
    }
    let mut plies = 0;
    for (k, spec) in ["random", "semi-random", "astar", "alphabeta:1", "mcts:4"]
        .iter()
        .enumerate()
    {
        for first in 0..2 {
            let mut agents: Vec<_> = [*spec, "random", "random", "random"]
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    AgentSpec::parse(s)
                        .unwrap()
                        .build(Rng::new((10 * k + i) as u64))
                })
                .collect();
            let mut log = Vec::new();
            let rec = play_game(
                &mut rules,
                start,
                &mut agents,
                first,
                40,
                &mut Rng::new(k as u64),
                &mut |r, p, turn, i, next| {
                    let offered: Vec<String> = turn.moves.iter().map(|m| r.show(m.label)).collect();
                    log.push((
                        r.show(p.config),
                        turn.player,
                        offered,
                        i,
                        r.show(next.config),
                    ));
                    Ok(())
                },
            )
            .unwrap();
            for (state, player, offered, i, next) in log {
                let s = parse(n, &state);
                assert_eq!(player, s.turn, "{state}");
                assert!(
                    !(0..4).any(|j| at_goal(n, j, s.pawns[j])),
                    "moved at a final {state}"
                );
                let want = successors(&board, &s, &mut seen);
                let got: BTreeSet<State> = offered.iter().map(|t| parse(n, t)).collect();
                assert_eq!(got.len(), offered.len(), "repeated moves at {state}");
                assert_eq!(got, want, "{spec}: the moves at {state}");
                assert_eq!(parse(n, &offered[i]), parse(n, &next), "{state}");
                seen.walls += (parse(n, &next).walls.len() > s.walls.len()) as usize;
                plies += 1;
            }
            if let Some(w) = rec.winner() {
                assert!(rec.seats.contains(&w));
            }
        }
    }
    assert!(plies > 100, "{plies}");
    assert!(
        seen.straight > 0 && seen.diagonal > 0 && seen.walls > 0 && seen.refused_by_path > 0,
        "the games should meet every rule: {seen:?}"
    );
}

#[test]
fn set_players_picks_the_game_that_has_the_parameter() {
    // `--set players=4` names a parameter of `quoridor-n` only: match plays that game;
    // without it, the file's first game (two-player Quoridor).
    let j = support::cli::json(&[
        "match",
        "examples/quoridor.game",
        "--set",
        "n=5",
        "--set",
        "players=4",
        "--agents",
        "random,random,random,random",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(j["game"], "quoridor-n");
    assert_eq!(j["players"], serde_json::json!(["p1", "p2", "p3", "p4"]));
    let wins: u64 = (1..=4)
        .map(|i| j["wins"][format!("random ({i})")].as_u64().unwrap())
        .sum();
    assert_eq!(wins + j["draws"].as_u64().unwrap(), 2);
    let j = support::cli::json(&[
        "match",
        "examples/quoridor.game",
        "--set",
        "n=5",
        "--agents",
        "astar,random",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(j["game"], "quoridor");
}
