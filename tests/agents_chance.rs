//! The agents on chance games (examples/pig.game, examples/ludo.game) through the one
//! interface they share with the other games, checked against computations written here:
//! Pig's rules (successors and their probabilities), optimal play of Pig by value
//! iteration, and the Markov chain of optimal play against an agent written here.

mod support;

use gamelang_agents::arena::play_game;
use gamelang_agents::{Agent, AgentSpec, ChanceRules, Node, Pos, Rng, Rules, Turn};
use gamelang_chance::engine::EngineModel;
use gamelang_game::SolveError;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::collections::BTreeMap;
use std::sync::Arc;
use support::cli::{gamelang, json};

/// examples/pig.game with `goal` set, and its chance game.
fn pig_game(goal: usize) -> (Session, ChanceGame) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pig.game");
    let text = std::fs::read_to_string(path).unwrap();
    let mut session = Session::new().unwrap();
    session.load_source("examples/pig.game", &text).unwrap();
    let game = session.chance_games[0].clone();
    session
        .set_chance_parameter(&game, &format!("goal={goal}"))
        .unwrap();
    (session, game)
}

/// A Pig state read back from its text: `pig(a, b, k, p1)` as (a, b, k, 0) or `won(p2)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum State {
    Pig(usize, usize, usize, usize),
    Won(usize),
}

fn player(text: &str) -> usize {
    match text.trim() {
        "p1" => 0,
        "p2" => 1,
        other => panic!("not a player: {other}"),
    }
}

fn parse(text: &str) -> State {
    if let Some(p) = text.strip_prefix("won(").and_then(|t| t.strip_suffix(')')) {
        return State::Won(player(p));
    }
    let inner = text
        .strip_prefix("pig(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not a Pig state: {text}"));
    let f: Vec<&str> = inner.split(',').map(str::trim).collect();
    State::Pig(
        f[0].parse().unwrap(),
        f[1].parse().unwrap(),
        f[2].parse().unwrap(),
        player(f[3]),
    )
}

/// Pig's rules, from the description (not from the game file): the choices at a state
/// and each choice's next states with their probabilities.
fn rules_of(goal: usize, s: State) -> BTreeMap<&'static str, BTreeMap<State, f64>> {
    let State::Pig(a, b, k, p) = s else {
        return BTreeMap::new();
    };
    let mine = if p == 0 { a } else { b };
    let mut roll = BTreeMap::new();
    *roll.entry(State::Pig(a, b, 0, 1 - p)).or_insert(0.0) += 1.0 / 6.0;
    for e in 2..=6 {
        let next = if mine + k + e >= goal {
            State::Won(p)
        } else {
            State::Pig(a, b, k + e, p)
        };
        *roll.entry(next).or_insert(0.0) += 1.0 / 6.0;
    }
    let mut out = BTreeMap::from([("roll", roll)]);
    if k > 0 {
        let next = if p == 0 {
            State::Pig(a + k, b, 0, 1)
        } else {
            State::Pig(a, b + k, 0, 0)
        };
        out.insert("hold", BTreeMap::from([(next, 1.0)]));
    }
    out
}

fn agent(spec: &str, seed: u64) -> Box<dyn Agent> {
    AgentSpec::parse(spec).unwrap().build(Rng::new(seed))
}

#[test]
fn every_agent_plays_only_legal_moves_in_pig() {
    // Each ply: the moves offered and their outcomes with probabilities are Pig's (by the
    // rules written here), the move chosen is one of them, and the state reached is one
    // of its outcomes.
    let goal = 10;
    let (session, game) = pig_game(goal);
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
    let mut rules = ChanceRules::new(&mut model).unwrap();
    assert_eq!(rules.players(), ["p1", "p2"]);
    let mut plies = 0;
    for (k, spec) in ["random", "semi-random", "alphabeta:2", "mcts:20", "exact"]
        .iter()
        .enumerate()
    {
        for first in 0..2 {
            let mut agents = [agent(spec, 3 + k as u64), agent("random", 30 + k as u64)];
            let start = rules.start().unwrap();
            let mut seen = Vec::new();
            let rec = play_game(
                &mut rules,
                start,
                &mut agents,
                first,
                500,
                &mut Rng::new(k as u64),
                &mut |r, p, turn, i, next| {
                    let moves: Vec<(String, Vec<(String, f64)>)> = turn
                        .moves
                        .iter()
                        .map(|m| {
                            let outs = m
                                .outcomes
                                .iter()
                                .map(|&(q, o)| (r.show(o.config), q))
                                .collect();
                            (r.show(m.label), outs)
                        })
                        .collect();
                    seen.push((r.show(p.config), turn.player, moves, i, r.show(next.config)));
                    Ok(())
                },
            )
            .unwrap();
            assert!(!rec.stopped && rec.winner().is_some(), "{spec}: {rec:?}");
            for (state, mover, moves, i, next) in seen {
                let s = parse(&state);
                let State::Pig(_, _, _, p) = s else {
                    panic!("{spec} moved at the final {state}")
                };
                assert_eq!(mover, p, "{state}");
                let want = rules_of(goal, s);
                assert_eq!(moves.len(), want.len(), "{state}: {moves:?}");
                for (label, outs) in &moves {
                    let w = &want[label.as_str()];
                    let got: BTreeMap<State, f64> =
                        outs.iter().map(|(t, q)| (parse(t), *q)).collect();
                    assert_eq!(got.len(), w.len(), "{state} {label}: {got:?}");
                    for (t, q) in w {
                        assert!((got[t] - q).abs() < 1e-12, "{state} {label}: {got:?}");
                    }
                }
                let chosen = want[moves[i].0.as_str()].clone();
                assert!(
                    chosen.contains_key(&parse(&next)),
                    "{spec} at {state}: {} led to {next}",
                    moves[i].0
                );
                plies += 1;
            }
        }
    }
    assert!(plies > 50, "{plies}");
}

/// An agent written here, on the agents' interface alone: in Pig, it rolls once per turn
/// (it must) and then holds.
struct HoldAtOnce;

impl Agent for HoldAtOnce {
    fn choose(&mut self, rules: &mut dyn Rules, _: Pos, turn: &Turn) -> Result<usize, SolveError> {
        Ok(turn
            .moves
            .iter()
            .position(|m| rules.show(m.label) == "hold")
            .unwrap_or(0))
    }
}

/// Optimal Pig to `goal` by value iteration: `v[p][a][b][k]`, p1's probability of winning
/// with p to move (p1 maximises, p2 minimises). Then the chance that p1 wins when p1
/// plays `seat0` and p2 plays `seat1` (true: optimally; false: hold at once), again by
/// value iteration, on the chain the two policies make.
fn pig_values(goal: usize) -> Vec<Vec<Vec<Vec<f64>>>> {
    let mut v = vec![vec![vec![vec![0.0f64; goal]; goal]; goal]; 2];
    loop {
        let mut delta = 0.0f64;
        for p in 0..2 {
            for a in 0..goal {
                for b in 0..goal {
                    let mine = if p == 0 { a } else { b };
                    for k in 0..goal - mine {
                        let (roll, hold) = options(goal, &v, p, a, b, k);
                        let value = match hold {
                            None => roll,
                            Some(h) if p == 0 => roll.max(h),
                            Some(h) => roll.min(h),
                        };
                        delta = delta.max((value - v[p][a][b][k]).abs());
                        v[p][a][b][k] = value;
                    }
                }
            }
        }
        if delta < 1e-13 {
            return v;
        }
    }
}

/// p1's chance of winning after rolling, and after holding (when allowed), under `v`.
fn options(
    goal: usize,
    v: &[Vec<Vec<Vec<f64>>>],
    p: usize,
    a: usize,
    b: usize,
    k: usize,
) -> (f64, Option<f64>) {
    let mine = if p == 0 { a } else { b };
    let mut roll = v[1 - p][a][b][0] / 6.0;
    for e in 2..=6 {
        roll += if mine + k + e >= goal {
            (p == 0) as u8 as f64
        } else {
            v[p][a][b][k + e]
        } / 6.0;
    }
    let hold = (k > 0).then(|| {
        if p == 0 {
            v[1][a + k][b][0]
        } else {
            v[0][a][b + k][0]
        }
    });
    (roll, hold)
}

fn p1_wins(goal: usize, optimal: &[Vec<Vec<Vec<f64>>>], seat_optimal: [bool; 2]) -> f64 {
    let mut w = vec![vec![vec![vec![0.0f64; goal]; goal]; goal]; 2];
    loop {
        let mut delta = 0.0f64;
        for p in 0..2 {
            for a in 0..goal {
                for b in 0..goal {
                    let mine = if p == 0 { a } else { b };
                    for k in 0..goal - mine {
                        let (roll, hold) = options(goal, &w, p, a, b, k);
                        let value = match hold {
                            None => roll,
                            Some(h) if !seat_optimal[p] => h,
                            Some(h) => {
                                // The optimal player's choice, by the optimal values.
                                let (r, o) = options(goal, optimal, p, a, b, k);
                                let o = o.unwrap();
                                let hold_better = if p == 0 { o > r } else { o < r };
                                if hold_better {
                                    h
                                } else {
                                    roll
                                }
                            }
                        };
                        delta = delta.max((value - w[p][a][b][k]).abs());
                        w[p][a][b][k] = value;
                    }
                }
            }
        }
        if delta < 1e-13 {
            return w[0][0][0][0];
        }
    }
}

#[test]
fn exact_beats_an_agent_that_always_holds_at_the_rate_optimal_play_predicts() {
    // `exact` (the chance solver's optimal choices) against HoldAtOnce, seats taken in
    // turn: its rate of wins is within four standard deviations (0.5 / sqrt(n) at most)
    // of the rate computed here from optimal play.
    let goal = 10;
    let optimal = pig_values(goal);
    let as_p1 = p1_wins(goal, &optimal, [true, false]);
    let as_p2 = 1.0 - p1_wins(goal, &optimal, [false, true]);
    let expected = (as_p1 + as_p2) / 2.0;
    assert!(
        expected > 0.6,
        "optimal play should beat holding at once: {expected}"
    );
    let (session, game) = pig_game(goal);
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
    let mut rules = ChanceRules::new(&mut model).unwrap();
    let games = 400;
    let mut agents: [Box<dyn Agent>; 2] = [agent("exact", 1), Box::new(HoldAtOnce)];
    let mut events = Rng::new(11);
    let mut wins = 0;
    for k in 0..games {
        let start = rules.start().unwrap();
        let rec = play_game(
            &mut rules,
            start,
            &mut agents,
            k % 2,
            1000,
            &mut events,
            &mut |_, _, _, _, _| Ok(()),
        )
        .unwrap();
        wins += (rec.winner() == Some(0)) as usize;
    }
    let rate = wins as f64 / games as f64;
    let bound = 4.0 * 0.5 / (games as f64).sqrt();
    assert!(
        (rate - expected).abs() < bound,
        "exact won {rate} of its games; optimal play predicts {expected} (as p1 {as_p1}, as p2 {as_p2})"
    );
}

#[test]
fn exact_values_are_the_optimal_probabilities_of_winning() {
    // The interface's `values` for Pig, at states of a game, against the value iteration
    // here.
    let goal = 10;
    let optimal = pig_values(goal);
    let (session, game) = pig_game(goal);
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
    let mut rules = ChanceRules::new(&mut model).unwrap();
    let mut p = rules.start().unwrap();
    let mut rng = Rng::new(5);
    let mut checked = 0;
    while let Node::Turn(turn) = rules.node(p).unwrap() {
        if let State::Pig(a, b, k, q) = parse(&rules.show(p.config)) {
            let v = rules.values(p).unwrap();
            let want = optimal[q][a][b][k];
            assert!((v[0] - want).abs() < 1e-6, "{a} {b} {k} {q}: {v:?} {want}");
            assert!((v[0] + v[1] - 1.0).abs() < 1e-6);
            checked += 1;
        }
        let m = &turn.moves[rng.below(turn.moves.len())];
        p = gamelang_agents::mcts::draw(&mut rng, m);
    }
    assert!(checked >= 3, "{checked}");
}

#[test]
fn a_fixed_seed_reproduces_a_chance_match_at_any_number_of_threads() {
    let run = |threads: &str| {
        let out = gamelang(&[
            "match",
            "examples/pig.game",
            "--set",
            "goal=10",
            "--agents",
            "mcts:10,random",
            "--games",
            "8",
            "--seed",
            "3",
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
    let one = run("1");
    assert_eq!(one.lines().count(), 9, "{one}");
    assert_eq!(one, run("2"));
    // The agents take turns to start.
    let firsts: Vec<&str> = one
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(firsts[..4], ["mcts:10", "random", "mcts:10", "random"]);
}

#[test]
fn chance_match_json_has_the_documented_keys() {
    let j = json(&[
        "match",
        "examples/pig.game",
        "--set",
        "goal=10",
        "--agents",
        "alphabeta:2,random",
        "--games",
        "6",
        "--json",
    ]);
    assert_eq!(j["games"], 6);
    let wins = j["wins"]["alphabeta:2"].as_u64().unwrap() + j["wins"]["random"].as_u64().unwrap();
    // Pig always has one winner.
    assert_eq!(wins, 6);
    assert_eq!(j["draws"], 0);
    assert!(j["avg_plies"].as_f64().unwrap() >= 2.0);
    assert!(j["avg_branching"].as_f64().unwrap() >= 1.0);
    assert!(j["ms_per_move"]["alphabeta:2"].is_number());
    assert_eq!(j["players"], serde_json::json!(["p1", "p2"]));
}

#[test]
fn four_players_take_the_seats_in_rotation() {
    // Ludo with four players: game k's first seat is agent k mod 4, the others after it;
    // every game has one winner among the agents.
    let out = gamelang(&[
        "match",
        "examples/ludo.game",
        "--set",
        "players=4",
        "--agents",
        "random,mcts:4,random,semi-random",
        "--games",
        "8",
        "--seed",
        "2",
        "--csv",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "game,first,second,third,fourth,winner,plies,avg_branching,stopped"
    );
    let names = ["random (1)", "mcts:4", "random (3)", "semi-random"];
    for (k, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        for j in 0..4 {
            assert_eq!(f[1 + j], names[(k + j) % 4], "{line}");
        }
        assert!(names.contains(&f[5]), "{line}");
    }
    // One agent per player.
    let out = gamelang(&[
        "match",
        "examples/ludo.game",
        "--set",
        "players=4",
        "--agents",
        "random,random",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 agents for the 4 players"), "{err}");
}

#[test]
fn a_person_plays_pig_against_an_agent() {
    // Typed choices (`roll`); each chance outcome is shown with the die's faces that lead
    // to it and its probability, checked against Pig's rules written here.
    let goal = 10;
    let input = "roll\n".repeat(60);
    let out = with_stdin(
        &[
            "play",
            "examples/pig.game",
            "--set",
            &format!("goal={goal}"),
            "--agent",
            "random",
            "--seed",
            "4",
        ],
        &input,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("game pig: you play p1, random plays p2;"),
        "{text}"
    );
    let mut state = State::Pig(0, 0, 0, 0);
    let mut choice = "";
    let mut outcomes = 0;
    for l in text.lines() {
        if let Some(c) = l.strip_prefix("you (p1) play ") {
            choice = if c == "roll" { "roll" } else { "hold" };
        } else if let Some(c) = l.strip_prefix("random (p2) plays ") {
            choice = if c == "roll" { "roll" } else { "hold" };
        } else if let Some(rest) = l.strip_prefix("chance: ") {
            // `chance: 4 or 5 (probability 1/3): STATE`: the die's faces, the
            // probability, the state they lead to.
            let (faces, rest) = rest.split_once(" (probability ").unwrap();
            let (prob, next) = rest.split_once("): ").unwrap();
            let next = parse(next);
            let want = &rules_of(goal, state)[choice];
            let q = want
                .get(&next)
                .unwrap_or_else(|| panic!("{l} after {state:?}"));
            let (n, d) = prob.split_once('/').unwrap();
            let shown = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
            assert!((shown - q).abs() < 1e-9, "{l}");
            // Each face shown leads there by the rules here, and they are all of them.
            let faces: Vec<usize> = faces.split(" or ").map(|f| f.parse().unwrap()).collect();
            let State::Pig(a, b, k, p) = state else {
                panic!("{l}")
            };
            let by_face = |e: usize| {
                let mine = if p == 0 { a } else { b };
                if e == 1 {
                    State::Pig(a, b, 0, 1 - p)
                } else if mine + k + e >= goal {
                    State::Won(p)
                } else {
                    State::Pig(a, b, k + e, p)
                }
            };
            let leading: Vec<usize> = (1..=6).filter(|&e| by_face(e) == next).collect();
            assert_eq!(faces, leading, "{l}");
            assert!((faces.len() as f64 / 6.0 - q).abs() < 1e-9, "{l}");
            state = next;
            outcomes += 1;
        } else if l.starts_with("hold") || l.starts_with("pig(") {
            // The board: the state itself (Pig has no display).
            state = parse(l);
        }
    }
    assert!(outcomes >= 3, "{text}");
    assert!(text.contains("play has ended at won("), "{text}");
    assert!(out.status.success());
}

/// `gamelang ARGS…` with `input` on its standard input (written from a thread: the game
/// may end before it has read everything).
fn with_stdin(args: &[&str], input: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gamelang");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("wait for gamelang");
    writer.join().unwrap();
    out
}

#[test]
fn playout_runs_on_chance_games() {
    // Random playouts of Pig to 10: at least two rolls win (6 + 4), so a playout has at
    // least two moves; and one MCTS decision from the start.
    let j = json(&[
        "playout",
        "examples/pig.game",
        "--set",
        "goal=10",
        "--seconds",
        "0.3",
        "--json",
    ]);
    assert_eq!(j["game"], "pig");
    assert!(j["playouts"].as_u64().unwrap() > 0, "{j}");
    assert!(j["avg_plies"].as_f64().unwrap() >= 2.0, "{j}");
    let j = json(&[
        "playout",
        "examples/pig.game",
        "--set",
        "goal=10",
        "--mcts",
        "20",
        "--json",
    ]);
    assert_eq!(j["simulations"], 20);
}

#[test]
fn exact_on_a_chance_game_too_large_to_solve_says_so() {
    // Pig to 10 has more than 50 states: with that limit `exact` refuses, and says why.
    let (session, game) = pig_game(10);
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
    let mut rules = ChanceRules::new(&mut model).unwrap();
    rules.exact_states = 50;
    let start = rules.start().unwrap();
    let Node::Turn(turn) = rules.node(start).unwrap() else {
        panic!("the start is a decision")
    };
    match agent("exact", 1).choose(&mut rules, start, &turn) {
        Err(SolveError::Game(m)) => {
            assert!(
                m.contains("more than 50 states") && m.contains("mcts:N"),
                "{m}"
            )
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
}

#[test]
fn a_long_chance_game_collects_garbage_and_plays_the_same_games() {
    // Pig to 60, mcts:10 against alphabeta:2, three games on one engine: with the model's
    // garbage collection forced often (from 2,000 terms on) the games are move for move
    // those played without any collection, and collections did happen.
    let play = |min_terms: usize| -> (Vec<String>, u64) {
        let (session, game) = pig_game(60);
        let mut engine = Engine::new(Arc::new(session.program.clone()));
        let mut states = Vec::new();
        {
            let mut model = EngineModel::new(&mut engine, &game, None).unwrap();
            model.collect_min_terms = min_terms;
            let mut rules = ChanceRules::new(&mut model).unwrap();
            for g in 0..3u64 {
                let mut agents = [agent("mcts:10", 1 + g), agent("alphabeta:2", 7 + g)];
                let start = rules.start().unwrap();
                play_game(
                    &mut rules,
                    start,
                    &mut agents,
                    g as usize % 2,
                    2000,
                    &mut Rng::new(g),
                    &mut |r, _, _, i, next| {
                        states.push(format!("{i} {}", r.show(next.config)));
                        Ok(())
                    },
                )
                .unwrap();
            }
        }
        (states, engine.collections())
    };
    let (forced, collections) = play(2_000);
    let (free, none) = play(usize::MAX);
    assert!(collections > 0, "no collection");
    assert_eq!(none, 0);
    assert!(forced.len() > 60, "{} plies", forced.len());
    assert_eq!(forced, free);
}

/// `exact` follows the chance solver's tie rule: among moves of the same value to the
/// mover, the one giving the others together the least. In a chance game a draw is worth
/// 0 to everyone, as a loss is to the mover, so without the rule `exact` took a loss as
/// readily as a draw. Cop and robber on a cycle of 5: the robber escapes for ever from the
/// start (Nowakowski and Winkler: a cycle of 4 or more is not cop-win), so the `exact`
/// robber is never caught, whatever the cop does.
#[test]
fn exact_prefers_a_draw_to_a_loss_and_nobody_winning_to_another_winning() {
    let j = json(&[
        "simulate",
        "examples/cops-robbers.game",
        "--set",
        "n=5",
        "--agents",
        "random,exact",
        "--games",
        "100",
        "--max-moves",
        "200",
        "--json",
    ]);
    assert_eq!(j["agents"]["robber"], "exact", "{j}");
    assert_eq!(j["wins"]["cop"], 0, "{j}");
    assert_eq!(j["unfinished"], 100, "{j}");
    // Three players: p1's choice between p2 winning and nobody winning.
    let j = json(&[
        "simulate",
        "tests/data/tie-rule.game",
        "--agents",
        "exact,random,random",
        "--games",
        "20",
        "--json",
    ]);
    assert_eq!(j["wins"]["p2"], 0, "{j}");
    assert_eq!(j["wins"]["p1"], 0, "{j}");
}

/// `simulate` picks the file's chance game as `match` and `play` do: quoridor.game's
/// two-player game comes first, and `--set players=4` (or no `--game` at all) means its
/// four-player chance game; it said the file declared no chance game.
#[test]
fn simulate_finds_the_chance_game_after_a_two_player_one() {
    for (players, seats) in [("players=4", 4), ("players=2", 2)] {
        let j = json(&[
            "simulate",
            "examples/quoridor.game",
            "--set",
            "n=5",
            "--set",
            players,
            "--random",
            "--games",
            "2",
            "--json",
        ]);
        assert_eq!(j["game"], "quoridor-n", "{j}");
        assert_eq!(j["wins"].as_object().unwrap().len(), seats, "{j}");
    }
}

/// alphabeta takes a sure win over a likely one: in tests/data/gamble.game, `gamble` is
/// worth 4/5 of a win and `safe` a win for sure three plies on. The expectation of the
/// gamble (0.6 of a win's value) was taken for a forced win at depth 1 and the search
/// stopped there: alphabeta:3 won 80 games of 100, as the gamble does.
#[test]
fn alphabeta_does_not_take_a_likely_win_for_a_forced_one() {
    for depth in ["alphabeta:3", "alphabeta:5"] {
        let j = json(&[
            "simulate",
            "tests/data/gamble.game",
            "--agents",
            &format!("{depth},random"),
            "--games",
            "100",
            "--json",
        ]);
        assert_eq!(j["wins"]["a"], 100, "{depth}: {j}");
        assert_eq!(j["mean_moves"], 3.0, "{depth}: {j}");
    }
}

/// MCTS's move among equally tried moves is the one whose playouts did best: in
/// tests/data/one-shot.game every choice ends the game and only `right` wins, so
/// `mcts:3` tries each once and must play `right`. It played the first of the three.
#[test]
fn mcts_picks_among_equally_tried_moves_by_their_results() {
    for seed in ["1", "2", "3"] {
        let j = json(&[
            "simulate",
            "tests/data/one-shot.game",
            "--agents",
            "mcts:3,random",
            "--games",
            "20",
            "--seed",
            seed,
            "--json",
        ]);
        assert_eq!(j["wins"]["a"], 20, "seed {seed}: {j}");
    }
}
