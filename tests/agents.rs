//! The agents of seed 004 (crate gamelang-agents) on real games, checked against
//! computations written here: a tic-tac-toe solver and move generator, and the Quoridor
//! move generator of tests/support/quoridor.rs.

mod support;

use gamelang_agents::alphabeta::AlphaBeta;
use gamelang_agents::arena::play_game;
use gamelang_agents::{Agent, AgentSpec, EngineRules, Pos, Rng, Turn};
use gamelang_game::{Side, Verdict};
use gamelang_runtime::TermId;
use std::collections::{BTreeSet, HashMap};
use support::cli::gamelang;
use support::ttt;

/// Tic-tac-toe from the rules: cells 1..9 as bits 0..8 of two masks (X = B, O = R).
const ALL: [&str; 6] = [
    "random",
    "semi-random",
    "alphabeta:2",
    "mcts:30",
    "exact",
    "alphabeta:4",
];

fn agent(spec: &str, seed: u64) -> Box<dyn Agent> {
    AgentSpec::parse(spec).unwrap().build(Rng::new(seed))
}

/// Fresh rules of `g`'s game on an engine of their own, and the configuration `text`.
fn rules_at<'g>(g: &'g mut support::Loaded, text: &str) -> (EngineRules<'g>, TermId) {
    let pat = g.term_of(text, Some(g.game.config_sort));
    let program = std::sync::Arc::new(g.session.program.clone());
    let mut rules = EngineRules::new(gamelang_runtime::Engine::new(program), &g.game).unwrap();
    let t = rules.engine.build(&pat, &[]);
    let c = rules.engine.reduce(t).unwrap();
    (rules, c)
}

#[test]
fn every_agent_plays_only_legal_moves_in_tic_tac_toe() {
    // Every move offered is the rules' (checked position by position against the generator
    // here), and the one chosen is among them.
    let mut g = support::load("examples/tictactoe.game");
    let (mut rules, _) = rules_at(&mut g, "(empty | empty)");
    for (k, spec) in ALL.iter().enumerate() {
        let mut agents = [agent(spec, 7 + k as u64), agent("random", 11 + k as u64)];
        let start = rules.start().unwrap();
        // Recorded as text: the engine may reuse term ids between moves.
        let mut seen = Vec::new();
        play_game(
            &mut rules,
            start,
            &mut agents,
            k % 2,
            100,
            &mut Rng::new(0),
            &mut |r, p, turn, i, _| {
                let moves: Vec<String> = turn.moves.iter().map(|m| r.show(m.label)).collect();
                seen.push((p.to_move, r.show(p.config), moves, i));
                Ok(())
            },
        )
        .unwrap();
        assert!(!seen.is_empty());
        for (mover, p, moves, i) in seen {
            let (x, o) = ttt::parse(&p);
            let got: BTreeSet<(u16, u16)> = moves.iter().map(|m| ttt::parse(m)).collect();
            let want: BTreeSet<(u16, u16)> = ttt::successors((x, o), mover).into_iter().collect();
            assert_eq!(got, want, "{spec} at {}", ttt::term((x, o)));
            assert!(want.contains(&ttt::parse(&moves[i])));
        }
    }
}

#[test]
fn every_agent_plays_only_legal_moves_in_quoridor() {
    // MCTS is left out here: its random playouts of Quoridor are long (tic-tac-toe and
    // Connect-4 check its moves).
    let mut g = support::load("examples/quoridor.game");
    g.set("n", 5);
    let rules_q = support::quoridor::Rules { n: 5 };
    let (mut rules, _) = rules_at(&mut g, "start");
    let mut walls_placed = 0;
    for (k, spec) in ["random", "semi-random", "astar", "alphabeta:1"]
        .iter()
        .enumerate()
    {
        for first in 0..2 {
            let mut agents = [
                agent(spec, 5 + k as u64),
                agent("semi-random", 50 + k as u64),
            ];
            let start = rules.start().unwrap();
            // Recorded as text: the engine may reuse term ids between moves.
            let mut seen = Vec::new();
            play_game(
                &mut rules,
                start,
                &mut agents,
                first,
                30,
                &mut Rng::new(0),
                &mut |r, p, turn, i, _| {
                    seen.push((p.to_move, r.show(p.config), r.show(turn.moves[i].label)));
                    Ok(())
                },
            )
            .unwrap();
            for (mover, p, chosen) in seen {
                let pos = rules_q.parse(&p);
                let want = rules_q.successors(&pos, mover, &mut Default::default());
                let next = rules_q.parse(&chosen);
                assert!(
                    want.contains(&next),
                    "{spec} played {} at {}",
                    rules_q.term(&next),
                    rules_q.term(&pos)
                );
                walls_placed += (next.walls.len() > pos.walls.len()) as usize;
            }
        }
    }
    assert!(walls_placed > 0);
}

/// Tic-tac-toe positions reached by random play (seeded), with the player to move, not
/// over.
fn random_positions(count: usize, seed: u64) -> Vec<(u16, u16, Side)> {
    let mut rng = Rng::new(seed);
    let mut out = BTreeSet::new();
    while out.len() < count {
        let (mut x, mut o, mut mover) = (0u16, 0u16, Side::B);
        let depth = rng.below(7);
        for _ in 0..depth {
            let s = ttt::successors((x, o), mover);
            if s.is_empty() {
                break;
            }
            (x, o) = s[rng.below(s.len())];
            mover = mover.opponent();
        }
        if !ttt::over((x, o)) {
            out.insert((x, o, mover == Side::R));
        }
    }
    out.into_iter()
        .map(|(x, o, r)| (x, o, if r { Side::R } else { Side::B }))
        .collect()
}

/// Play `spec` (to move) against random from a tic-tac-toe position; the result.
/// `rules` is shared between positions, so the solver's memo table is too.
fn play_from(
    g: &mut support::Loaded,
    rules: &mut EngineRules,
    spec: &str,
    (x, o, mover): (u16, u16, Side),
    seed: u64,
) -> Verdict {
    let pat = g.term_of(&ttt::term((x, o)), Some(g.game.config_sort));
    let t = rules.engine.build(&pat, &[]);
    let start = Pos {
        to_move: mover,
        config: rules.engine.reduce(t).unwrap(),
    };
    let mut agents = [agent(spec, seed), agent("random", seed + 1000)];
    let rec = play_game(
        rules,
        start,
        &mut agents,
        0,
        20,
        &mut Rng::new(0),
        &mut |_, _, _, _, _| Ok(()),
    )
    .unwrap();
    match rec.winner() {
        None => Verdict::Draw,
        Some(0) => Verdict::Win(mover),
        Some(_) => Verdict::Win(mover.opponent()),
    }
}

#[test]
fn exact_never_loses_a_won_position_against_random() {
    let mut g = support::load("examples/tictactoe.game");
    let game = g.game.clone();
    let program = std::sync::Arc::new(g.session.program.clone());
    let mut rules = EngineRules::new(gamelang_runtime::Engine::new(program), &game).unwrap();
    let mut memo = HashMap::new();
    let (mut won, mut drawn) = (0, 0);
    for (k, pos) in random_positions(40, 13).into_iter().enumerate() {
        let (v, _) = ttt::value((pos.0, pos.1), pos.2, &mut memo);
        let result = play_from(&mut g, &mut rules, "exact", pos, k as u64);
        match v {
            1 => {
                won += 1;
                assert_eq!(
                    result,
                    Verdict::Win(pos.2),
                    "exact lost a won {}",
                    ttt::term((pos.0, pos.1))
                );
            }
            0 => {
                drawn += 1;
                assert_ne!(
                    result,
                    Verdict::Win(pos.2.opponent()),
                    "exact lost a drawn {}",
                    ttt::term((pos.0, pos.1))
                );
            }
            _ => {}
        }
    }
    assert!(won >= 5 && drawn >= 5, "won {won}, drawn {drawn}");
}

#[test]
fn alphabeta_finds_a_forced_win_within_its_depth() {
    // From every sampled position where the mover can force a win within 3 plies (by the
    // solver here), alphabeta:3's move keeps a win within the 2 plies left.
    let mut g = support::load("examples/tictactoe.game");
    let mut memo = HashMap::new();
    let mut tried = 0;
    for (k, (x, o, mover)) in random_positions(60, 21).into_iter().enumerate() {
        let (v, d) = ttt::value((x, o), mover, &mut memo);
        if !(v == 1 && d <= 3) {
            continue;
        }
        tried += 1;
        let (mut rules, c) = rules_at(&mut g, &ttt::term((x, o)));
        let p = Pos {
            to_move: mover,
            config: c,
        };
        let moves = rules.moves(p).unwrap();
        let mut ab = agent("alphabeta:3", k as u64);
        let i = ab
            .choose(&mut rules, p, &Turn::without_chance(p, &moves))
            .unwrap();
        let (nx, no) = ttt::parse(&rules.engine.show(moves[i]));
        let (v2, d2) = ttt::value((nx, no), mover.opponent(), &mut memo);
        assert!(
            v2 == -1 && d2 < d,
            "alphabeta:3 at {} ({} to move, wins in {d}) played {}",
            ttt::term((x, o)),
            mover.name(),
            ttt::term((nx, no))
        );
    }
    assert!(
        tried >= 5,
        "only {tried} positions with a win within 3 plies"
    );
}

/// alphabeta stops deepening once nothing was cut off by the depth limit: with `k` cells
/// left, `alphabeta:1000` searches at most k + 1 plies deep (the last iteration finding
/// nothing more to see), and its move is still right. It searched the whole game a
/// thousand times (`alphabeta:100000` took 10 s for one game of tic-tac-toe).
#[test]
fn alphabeta_stops_deepening_when_the_game_is_exhausted() {
    let mut g = support::load("examples/tictactoe.game");
    let mut memo = HashMap::new();
    let mut tried = 0;
    for (k, (x, o, mover)) in random_positions(60, 5).into_iter().enumerate() {
        let empty = 9 - (x | o).count_ones();
        let (v, _) = ttt::value((x, o), mover, &mut memo);
        let (mut rules, c) = rules_at(&mut g, &ttt::term((x, o)));
        let p = Pos {
            to_move: mover,
            config: c,
        };
        let moves = rules.moves(p).unwrap();
        if moves.len() < 2 {
            continue;
        }
        tried += 1;
        let mut ab = AlphaBeta::new(1000, Rng::new(k as u64));
        let i = ab
            .choose(&mut rules, p, &Turn::without_chance(p, &moves))
            .unwrap();
        assert!(
            ab.depth_reached() <= empty + 1,
            "{}: {} plies deep with {empty} cells left",
            ttt::term((x, o)),
            ab.depth_reached()
        );
        // The move keeps the mover's value (a win stays a win, a draw a draw).
        let (nx, no) = ttt::parse(&rules.engine.show(moves[i]));
        let (v2, _) = ttt::value((nx, no), mover.opponent(), &mut memo);
        assert_eq!(
            v2,
            -v,
            "{} played {}",
            ttt::term((x, o)),
            ttt::term((nx, no))
        );
    }
    assert!(tried >= 20, "only {tried} positions");
}

#[test]
fn mcts_beats_random_at_connect_4() {
    // 7 x 6 Connect-4; fewer games in an unoptimised build (the CI's), more in release.
    let games = if cfg!(debug_assertions) { 10 } else { 40 };
    let mut g = support::load("examples/grid/connect4.game");
    g.set("width", 7);
    g.set("height", 6);
    let mut wins = 0;
    for k in 0..games {
        let (mut rules, _) = rules_at(&mut g, "start");
        let start = rules.start().unwrap();
        let mut agents = [agent("mcts:100", 2 * k), agent("random", 2 * k + 1)];
        let rec = play_game(
            &mut rules,
            start,
            &mut agents,
            k as usize % 2,
            100,
            &mut Rng::new(0),
            &mut |_, _, _, _, _| Ok(()),
        )
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                gamelang_game::diagnose(&rules.engine, &e).render(&g.session.sources, false)
            )
        });
        wins += (rec.winner() == Some(0)) as usize;
    }
    assert!(
        wins * 10 >= games as usize * 9,
        "mcts:100 won {wins} of {games} games against random"
    );
}

#[test]
fn a_fixed_seed_reproduces_a_match_at_any_number_of_threads() {
    let run = |threads: &str, seed: &str| {
        let out = gamelang(&[
            "match",
            "examples/tictactoe.game",
            "--agents",
            "mcts:20,random",
            "--games",
            "6",
            "--seed",
            seed,
            "--threads",
            threads,
            "--csv",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let one = run("1", "7");
    assert_eq!(one.lines().count(), 7, "{one}");
    assert_eq!(one, run("2", "7"));
    assert_eq!(one, run("1", "7"));
}

#[test]
fn match_json_has_the_documented_keys() {
    let j = support::cli::json(&[
        "match",
        "examples/tictactoe.game",
        "--agents",
        "exact,random",
        "--games",
        "4",
        "--json",
    ]);
    assert_eq!(j["games"], 4);
    let wins = &j["wins"];
    let total = wins["exact"].as_u64().unwrap() + wins["random"].as_u64().unwrap();
    assert_eq!(total + j["draws"].as_u64().unwrap(), 4);
    // Exact never loses tic-tac-toe (a draw under best play).
    assert_eq!(wins["random"], 0);
    assert!(j["avg_plies"].as_f64().unwrap() >= 5.0);
    assert!(j["avg_branching"].as_f64().unwrap() > 1.0);
    assert!(j["ms_per_move"]["exact"].is_number());
}

/// The JSON's wins, losses and draws per agent are those counted here from the same
/// match's CSV rows (one per game: the winner, or `draw`).
#[test]
fn match_totals_are_the_csv_rows_counted() {
    let args = [
        "match",
        "examples/tictactoe.game",
        "--agents",
        "random,mcts:10",
        "--games",
        "40",
    ];
    let j = support::cli::json(&[&args[..], &["--json"]].concat());
    let o = gamelang(&[&args[..], &["--csv"]].concat());
    let csv = String::from_utf8_lossy(&o.stdout);
    let (mut wins, mut losses, mut draws) = (HashMap::new(), HashMap::new(), 0u64);
    for row in csv.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (seats, winner) = (&f[1..3], f[3]);
        if winner == "draw" {
            draws += 1;
            continue;
        }
        *wins.entry(winner.to_string()).or_insert(0u64) += 1;
        for s in seats.iter().filter(|&&s| s != winner) {
            *losses.entry(s.to_string()).or_insert(0u64) += 1;
        }
    }
    assert_eq!(j["draws"], draws, "{j}");
    for agent in ["random", "mcts:10"] {
        assert_eq!(
            j["wins"][agent],
            wins.get(agent).copied().unwrap_or(0),
            "{j}"
        );
        assert_eq!(
            j["losses"][agent],
            losses.get(agent).copied().unwrap_or(0),
            "{j}"
        );
    }
    assert!(losses.values().sum::<u64>() > 0, "{csv}");
}

#[test]
fn bad_agent_specs_and_missing_declarations_are_clear_errors() {
    let out = gamelang(&[
        "match",
        "examples/tictactoe.game",
        "--agents",
        "minimax:3,random",
    ]);
    // A spec that does not parse is a usage error (exit 2), as in `simulate`.
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown agent `minimax`"), "{err}");
    for args in [
        &["match", "examples/pig.game", "--agents", "mcts:0,random"][..],
        &["playout", "examples/pig.game", "--mcts", "0"],
    ] {
        assert_eq!(gamelang(args).status.code(), Some(2), "{args:?}");
    }
    // Tic-tac-toe declares no goal distance: the astar agent cannot play it.
    let out = gamelang(&[
        "match",
        "examples/tictactoe.game",
        "--agents",
        "astar,random",
        "--games",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("goal-distance"), "{err}");
    // Found before the match, whoever moves first: it was found at astar's first move,
    // after the other agent's (here, one that thinks for seconds), without naming
    // the game.
    let out = gamelang(&[
        "match",
        "examples/grid/connect4.game",
        "--agents",
        "mcts:2000000,astar",
        "--games",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("goal-distance") && err.contains("`connect4` declares none"),
        "{err}"
    );
}

#[test]
fn playout_mcts_times_one_decision_from_the_start() {
    let j = support::cli::json(&[
        "playout",
        "examples/tictactoe.game",
        "--mcts",
        "25",
        "--json",
    ]);
    assert_eq!(j["game"], "tictactoe");
    assert_eq!(j["simulations"], 25);
    let (cpu, rate) = (
        j["cpu_seconds"].as_f64().unwrap(),
        j["simulations_per_second"].as_f64().unwrap(),
    );
    // The rate is the simulations over the CPU seconds (both rounded to 3 decimals).
    assert!(rate > 0.0 && cpu >= 0.0);
    // Tic-tac-toe's moves come from its equations: the engine's rewrite steps are counted.
    assert!(j["rewrites"].as_u64().unwrap() > 0, "{j}");
    if cpu > 0.01 {
        assert!((rate * cpu - 25.0).abs() / 25.0 < 0.2, "{j}");
    }
    // --mcts and --seconds are two different measurements.
    let out = gamelang(&[
        "playout",
        "examples/tictactoe.game",
        "--mcts",
        "5",
        "--seconds",
        "1",
    ]);
    assert!(!out.status.success());
}

/// Pig (examples/pig.game) with both players choosing uniformly at random (roll, or roll or
/// hold once the turn total is positive): P(p1 wins), by value iteration on the rules.
fn pig_random_p1(goal: usize) -> f64 {
    // v[p][a][b][k]: P(p1 wins) with p to move (0 = p1), scores a, b, turn total k.
    let mut v = vec![vec![vec![vec![0.0f64; goal]; goal]; goal]; 2];
    loop {
        let mut delta = 0.0f64;
        for p in 0..2 {
            for a in 0..goal {
                for b in 0..goal {
                    let mine = if p == 0 { a } else { b };
                    for k in 0..goal - mine {
                        let mut roll = v[1 - p][a][b][0] / 6.0;
                        for e in 2..=6 {
                            roll += if mine + k + e >= goal {
                                if p == 0 {
                                    1.0
                                } else {
                                    0.0
                                }
                            } else {
                                v[p][a][b][k + e]
                            } / 6.0;
                        }
                        let value = if k == 0 {
                            roll
                        } else {
                            let hold = if p == 0 {
                                v[1][a + k][b][0]
                            } else {
                                v[0][a][b + k][0]
                            };
                            (roll + hold) / 2.0
                        };
                        delta = delta.max((value - v[p][a][b][k]).abs());
                        v[p][a][b][k] = value;
                    }
                }
            }
        }
        if delta < 1e-12 {
            return v[0][0][0][0];
        }
    }
}

/// `gamelang simulate examples/pig.game --set goal=10 --agents A,B --json`.
fn pig_games(agents: &str, games: usize, seed: u64) -> serde_json::Value {
    support::cli::json(&[
        "simulate",
        "examples/pig.game",
        "--set",
        "goal=10",
        "--agents",
        agents,
        "--games",
        &games.to_string(),
        "--seed",
        &seed.to_string(),
        "--json",
    ])
}

#[test]
fn chance_games_sample_events_by_their_probabilities() {
    // Random agents through the agents' game loop: p1's rate of wins is within four
    // standard deviations of the exact value computed here.
    let p = pig_random_p1(10);
    let n = 3000;
    let j = pig_games("random,random", n, 3);
    let rate = j["win_rate"]["p1"].as_f64().unwrap();
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    assert!((rate - p).abs() < 4.0 * sigma, "{rate} against {p}");
    assert_eq!(j["agents"]["p1"], "random");
}

#[test]
fn mcts_beats_random_at_pig_in_either_seat() {
    // A random player wins as p1 with probability p (computed here); MCTS must do better
    // than that seat's random player with 95% confidence, in both seats.
    let p = pig_random_p1(10);
    let j = pig_games("mcts:50,random", 80, 5);
    let low = j["ci95"]["p1"][0].as_f64().unwrap();
    assert!(low > p, "mcts as p1: {j}");
    let j = pig_games("random,mcts:50", 80, 5);
    let low = j["ci95"]["p2"][0].as_f64().unwrap();
    assert!(low > 1.0 - p, "mcts as p2: {j}");
    assert_eq!(j["agents"]["p2"], "mcts:50");
}

#[test]
fn chance_agents_are_checked() {
    let out = gamelang(&[
        "simulate",
        "examples/pig.game",
        "--agents",
        "mcts:5",
        "--games",
        "1",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("1 agent for 2 players (p1, p2)"), "{err}");
    // Every agent plays chance games now (one interface); `astar` still needs the game's
    // distance to goal, which Pig does not declare.
    let out = gamelang(&[
        "simulate",
        "examples/pig.game",
        "--agents",
        "astar,random",
        "--games",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("goal-distance"), "{err}");
}
