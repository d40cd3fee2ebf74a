//! Chance games (seed 002): answers checked against independent computations written
//! here from the rules of each game (recursions, Markov chains solved by Gaussian
//! elimination over the rationals, value iteration), never against gamelang itself or
//! hard-coded figures; and the located errors of ill-formed chance games.

// Hand-written numerical checks index their arrays by square, score and column.
#![allow(clippy::needless_range_loop)]

use gamelang_chance::{BigInt, Q};
use num_traits::{One, ToPrimitive, Zero};
use std::collections::HashMap;
mod support;
use support::cli::{gamelang, json};

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn q(a: i64, b: i64) -> Q {
    Q::new(BigInt::from(a), BigInt::from(b))
}

fn ratio(q: &Q) -> String {
    format!("{}/{}", q.numer(), q.denom())
}

// ----- best of three tosses -----------------------------------------------------------------

/// P(player `me` wins) from scores (i, j) with `turn` calling, by the rules: the caller
/// picks the call that is best for itself; the coin is fair, so the call cannot matter,
/// but the recursion does not assume it.
fn tosses(i: u32, j: u32, turn: usize, me: usize) -> Q {
    if i == 2 {
        return if me == 0 { Q::one() } else { Q::zero() };
    }
    if j == 2 {
        return if me == 1 { Q::one() } else { Q::zero() };
    }
    let after = |caller_wins: bool| {
        let toss_winner = if caller_wins { turn } else { 1 - turn };
        let (i2, j2) = if toss_winner == 0 {
            (i + 1, j)
        } else {
            (i, j + 1)
        };
        (i2, j2, 1 - turn)
    };
    // A call of heads or tails: the coin shows it with probability 1/2 either way.
    let value = |who: usize| {
        let (a, b, t) = after(true);
        let (c, d, u) = after(false);
        q(1, 2) * tosses(a, b, t, who) + q(1, 2) * tosses(c, d, u, who)
    };
    value(me)
}

#[test]
fn tosses_win_probabilities_match_the_recursion() {
    let j = json(&["solve", &example("tosses.game"), "--json"]);
    assert_eq!(j["players"], serde_json::json!(["a", "b"]));
    assert_eq!(j["method"], "exact");
    for (k, p) in ["a", "b"].iter().enumerate() {
        let want = tosses(0, 0, 0, k);
        assert_eq!(j["win_probability_exact"][p], ratio(&want), "{j}");
        let f = j["win_probability"][p].as_f64().unwrap();
        assert!((f - 0.5).abs() < 1e-12 || want != q(1, 2));
    }
    // From a state where b leads 1-0 and a calls: a must win two tosses in a row.
    let j = json(&[
        "solve",
        &example("tosses.game"),
        "--from",
        "st((a |-> 0) & (b |-> 1), a)",
        "--json",
    ]);
    assert_eq!(j["win_probability_exact"]["a"], ratio(&tosses(0, 1, 0, 0)));
    assert_eq!(j["win_probability_exact"]["b"], ratio(&tosses(0, 1, 0, 1)));
}

#[test]
fn simulation_agrees_with_the_exact_answer() {
    let j = json(&[
        "simulate",
        &example("tosses.game"),
        "--random",
        "--seed",
        "3",
        "--games",
        "4000",
        "--json",
    ]);
    assert_eq!(j["games"], 4000);
    let ci = &j["ci95"]["a"];
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    assert!(lo <= 0.5 && 0.5 <= hi, "{j}");
    let total: u64 = ["a", "b"]
        .iter()
        .map(|p| j["wins"][p].as_u64().unwrap())
        .sum();
    assert_eq!(total, 4000, "every game has exactly one winner");
    // The same seed gives the same games.
    let again = json(&[
        "simulate",
        &example("tosses.game"),
        "--random",
        "--seed",
        "3",
        "--games",
        "4000",
        "--json",
    ]);
    assert_eq!(j["wins"], again["wins"]);
}

// ----- located errors -------------------------------------------------------------------------

/// A coin game whose `events`, `players` and `winner` equations are given.
fn coin_game(events: &str, players: &str, winner: &str) -> String {
    format!(
        "fmod COIN is
  sorts Player Coin State .
  ops a b : -> Player [ctor] .
  ops heads tails : -> Coin [ctor] .
  protecting SET{{Player}} .
  protecting SET{{Coin}} .
  protecting DIST{{Coin}} .
  op st : Nat -> State [ctor] .
  op participants : -> Set{{Player}} .
  op final : State -> Bool .
  op winner : State -> Set{{Player}} .
  op turn : State -> Player .
  op choices : State -> Set{{Coin}} .
  op events : Coin State -> Dist{{Coin}} .
  op move : Coin Coin State -> State .
  var n : Nat . vars e c : Coin . var s : State .
  eq participants = {players} .
  eq final(st(n)) = n == 1 .
  eq winner(s) = {winner} .
  eq turn(s) = a .
  eq choices(s) = heads .
  eq events(c, s) = {events} .
  eq move(e, c, st(n)) = st(1) .
endfm
view Coin from CHANCE-GAME to COIN is
  sort SetPlayer to Set{{Player}} .
  sort Event to Coin . sort Choice to Coin .
  sort SetChoice to Set{{Coin}} . sort Dist to Dist{{Coin}} .
endv
game coin is
  instance CHANCE{{Coin}} .
  start st(0) .
endgame
"
    )
}

/// `solve` on the game fails; its standard error.
fn solve_error(source: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coin.game");
    std::fs::write(&path, source).unwrap();
    let o = gamelang(&["solve", path.to_str().unwrap()]);
    assert!(!o.status.success());
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FAIR: &str = "1 / 2 @ heads ; 1 / 2 @ tails";

#[test]
fn the_well_formed_coin_game_solves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coin.game");
    std::fs::write(&path, coin_game(FAIR, "a, b", "a")).unwrap();
    let j = json(&["solve", path.to_str().unwrap(), "--json"]);
    // Deterministic in effect? No: two outcomes lead to the same state, merged to 1/1.
    assert_eq!(j["win_probability_exact"]["a"], "1/1", "{j}");
    assert_eq!(j["win_probability_exact"]["b"], "0/1", "{j}");
}

#[test]
fn probabilities_that_do_not_sum_to_one_are_located() {
    let err = solve_error(&coin_game("1 / 2 @ heads ; 1 / 3 @ tails", "a, b", "a"));
    assert!(err.contains("sum to 5/6, not 1"), "{err}");
    // The error points at the declaration of `events` (line 14 of the file) and the state.
    assert!(err.contains("coin.game:14:"), "{err}");
    assert!(err.contains("st(0)"), "{err}");
    // One denominator throughout (summed without fractions), reduced in the message.
    let err = solve_error(&coin_game("1 / 6 @ heads ; 1 / 6 @ tails", "a, b", "a"));
    assert!(err.contains("sum to 1/3, not 1"), "{err}");
    // Numerator and denominator both negative: a positive probability, and these sum to 1.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coin.game");
    let game = coin_game("-1 / -2 @ heads ; 2 / 4 @ tails", "a, b", "a");
    std::fs::write(&path, game).unwrap();
    let j = json(&["solve", path.to_str().unwrap(), "--json"]);
    assert_eq!(j["win_probability_exact"]["a"], "1/1", "{j}");
}

#[test]
fn a_negative_probability_is_located() {
    let err = solve_error(&coin_game("3 / 2 @ heads ; -1 / 2 @ tails", "a, b", "a"));
    assert!(err.contains("negative probability"), "{err}");
    assert!(err.contains("coin.game:14:"), "{err}");
}

#[test]
fn a_chance_position_without_successors_is_located() {
    let err = solve_error(&coin_game("nothing", "a, b", "a"));
    assert!(err.contains("without successors"), "{err}");
    assert!(err.contains("coin.game:14:"), "{err}");
}

#[test]
fn a_winner_outside_the_declared_players_is_located() {
    let err = solve_error(&coin_game(FAIR, "a", "a, b"));
    assert!(
        err.contains("`b`, which is not one of the declared players (a)"),
        "{err}"
    );
    // `winner` is declared on line 11.
    assert!(err.contains("coin.game:11:"), "{err}");
}

// ----- snakes and ladders ---------------------------------------------------------------------

/// The Milton Bradley board as the issue lists it: ladders then snakes.
const JUMPS: [(usize, usize); 19] = [
    (1, 38),
    (4, 14),
    (9, 31),
    (21, 42),
    (28, 84),
    (36, 44),
    (51, 67),
    (71, 91),
    (80, 100),
    (16, 6),
    (47, 26),
    (49, 11),
    (56, 53),
    (62, 19),
    (64, 60),
    (87, 24),
    (93, 73),
    (95, 75),
    (98, 78),
];

/// Where a counter on `n` ends after throwing `e`: overshooting 100 stays put.
fn advance(n: usize, e: usize) -> usize {
    if n + e > 100 {
        return n;
    }
    let m = n + e;
    JUMPS.iter().find(|(f, _)| *f == m).map_or(m, |(_, t)| *t)
}

/// Solve A x = b over the rationals by Gauss-Jordan elimination (partial pivoting on any
/// non-zero entry).
fn gauss(mut a: Vec<Vec<Q>>, mut b: Vec<Q>) -> Vec<Q> {
    let n = b.len();
    for col in 0..n {
        let piv = (col..n)
            .find(|&r| !a[r][col].is_zero())
            .expect("non-singular");
        a.swap(col, piv);
        b.swap(col, piv);
        let p = a[col][col].clone();
        for k in col..n {
            a[col][k] = &a[col][k] / &p;
        }
        b[col] = &b[col] / &p;
        for r in 0..n {
            if r != col && !a[r][col].is_zero() {
                let f = a[r][col].clone();
                for k in col..n {
                    let v = &f * &a[col][k];
                    a[r][k] -= v;
                }
                let v = &f * &b[col];
                b[r] -= v;
            }
        }
    }
    b
}

/// The expected number of throws of a solitaire game from square 0, from the linear system
/// E[n] = 1 + (1/6) sum_e E[advance(n, e)], E[100] = 0, over the squares a counter can rest on.
fn expected_throws() -> Q {
    let squares: Vec<usize> = (0..100)
        .filter(|&n| !JUMPS.iter().any(|(f, _)| *f == n))
        .collect();
    let index: HashMap<usize, usize> = squares.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let m = squares.len();
    let mut a = vec![vec![Q::zero(); m]; m];
    let b = vec![Q::one(); m];
    for (i, &n) in squares.iter().enumerate() {
        a[i][i] += Q::one();
        for e in 1..=6 {
            let t = advance(n, e);
            if t != 100 {
                a[i][index[&t]] -= q(1, 6);
            }
        }
    }
    gauss(a, b)[index[&0]].clone()
}

/// P(T = t) for t = 0.. : the distribution of the number of throws one counter needs, by
/// iterating the distribution of its square.
fn throws_distribution(max_t: usize) -> Vec<f64> {
    let mut dist = vec![0.0f64; 101];
    dist[0] = 1.0;
    let mut f = vec![0.0];
    for _ in 1..=max_t {
        let mut next = vec![0.0f64; 101];
        for n in 0..100 {
            if dist[n] == 0.0 {
                continue;
            }
            for e in 1..=6 {
                next[advance(n, e)] += dist[n] / 6.0;
            }
        }
        f.push(next[100]);
        next[100] = 0.0;
        dist = next;
    }
    f
}

#[test]
fn snakes_expected_solitaire_length_matches_gaussian_elimination() {
    let j = json(&[
        "solve",
        &example("snakes-ladders.game"),
        "--set",
        "players=1",
        "--value",
        "--json",
    ]);
    assert_eq!(j["method"], "exact", "{j}");
    let want = expected_throws();
    assert_eq!(j["value_exact"]["p1"], ratio(&want));
}

#[test]
fn snakes_two_seats_match_the_throw_count_distributions() {
    // Independent counters: p1 wins iff it needs no more throws than p2 (p1 throws first).
    let f = throws_distribution(4000);
    let mut survive = 1.0; // P(T2 >= t)
    let mut p1 = 0.0;
    for &ft in f.iter().skip(1) {
        p1 += ft * survive;
        survive -= ft;
    }
    let j = json(&["solve", &example("snakes-ladders.game"), "--json"]);
    let got1 = j["win_probability"]["p1"].as_f64().unwrap();
    let got2 = j["win_probability"]["p2"].as_f64().unwrap();
    assert!((got1 - p1).abs() < 1e-9, "{got1} vs {p1}");
    assert!((got2 - (1.0 - p1)).abs() < 1e-9, "{got2} vs {}", 1.0 - p1);
    // Too large for the exact route by default: the method and tolerance are stated.
    assert_eq!(j["method"], "value-iteration", "{j}");
    assert!(j["tolerance"].as_f64().unwrap() > 0.0);
    assert!(j.get("win_probability_exact").is_none());
}

/// Two-seat Snakes and Ladders exactly (`--exact`: p-adic lifting over the whole chain, an
/// 11,552-state cycle, the answer about 4,300 digits over 4,300): the two seats' exact
/// probabilities add up to exactly 1 (nobody is stuck for ever), and agree with the
/// throw-count distributions (computed here in floating point) to 1e-12. Ignored by
/// default: seconds with a release build, many minutes with a debug one
/// (`cargo test --release --test chance -- --ignored snakes_two_seats_exactly`).
#[test]
#[ignore]
fn snakes_two_seats_exactly() {
    let f = throws_distribution(4000);
    let mut survive = 1.0;
    let mut p1 = 0.0;
    for &ft in f.iter().skip(1) {
        p1 += ft * survive;
        survive -= ft;
    }
    let j = json(&[
        "solve",
        &example("snakes-ladders.game"),
        "--exact",
        "--json",
    ]);
    assert_eq!(j["method"], "exact", "method");
    let parse = |s: &serde_json::Value| -> Q {
        let (a, b) = s.as_str().unwrap().split_once('/').unwrap();
        Q::new(a.parse().unwrap(), b.parse().unwrap())
    };
    let e1 = parse(&j["win_probability_exact"]["p1"]);
    let e2 = parse(&j["win_probability_exact"]["p2"]);
    assert_eq!(&e1 + &e2, Q::one());
    assert!(e1.denom().bits() > 10_000, "{} bits", e1.denom().bits());
    let x = e1.to_f64().unwrap();
    assert!((x - p1).abs() < 1e-12, "{x} vs {p1}");
}

/// Three-seat Snakes and Ladders (1.4 million states, one cycle of 1.3 million: value
/// iteration, with the last seat's value derived from the others') against the throw-count
/// distribution: seat i wins when it needs fewer throws than the seats before it and no
/// more than those after it. Within the stated tolerance's error estimate, and the three
/// add up to 1. Ignored by default: seconds with a release build, minutes with a debug
/// one (`cargo test --release --test chance -- --ignored snakes_three_seats`).
#[test]
#[ignore]
fn snakes_three_seats_match_the_throw_count_distribution() {
    let f = throws_distribution(4000);
    // at_least[t] = P(T >= t).
    let mut at_least = vec![0.0f64; f.len() + 1];
    for t in (1..f.len()).rev() {
        at_least[t] = at_least[t + 1] + f[t];
    }
    let (mut want, mut total) = ([0.0f64; 3], 0.0);
    for t in 1..f.len() {
        let (ge, gt) = (at_least[t], at_least[t + 1]);
        want[0] += f[t] * ge * ge;
        want[1] += f[t] * gt * ge;
        want[2] += f[t] * gt * gt;
        total += f[t];
    }
    assert!((total - 1.0).abs() < 1e-13);
    let j = json(&[
        "solve",
        &example("snakes-ladders.game"),
        "--set",
        "players=3",
        "--json",
    ]);
    assert_eq!(j["method"], "value-iteration", "{j}");
    let mut sum = 0.0;
    for (i, w) in want.iter().enumerate() {
        let got = j["win_probability"][format!("p{}", i + 1)]
            .as_f64()
            .unwrap();
        assert!((got - w).abs() < 2e-11, "p{}: {got} vs {w}", i + 1);
        sum += got;
    }
    assert!((sum - 1.0).abs() < 1e-12, "{sum}");
}

/// A small two-seat board (goal 15, a die of three faces, a ladder and two snakes): 288
/// states in cycles, enough for the lifting route by default; its exact answer against
/// the chain solved here by sparse Gaussian elimination over the rationals.
#[test]
fn small_snakes_board_exactly_by_lifting_matches_rational_elimination() {
    const GOAL: usize = 15;
    let jump = |n: usize| match n {
        3 => 8,
        14 => 2,
        11 => 5,
        n => n,
    };
    let advance = |n: usize, e: usize| if n + e > GOAL { n } else { jump(n + e) };
    // Unknowns: (a, b, whose turn) off the goal and not on a ladder's foot or a snake's head.
    let squares: Vec<usize> = (0..GOAL).filter(|&n| jump(n) == n).collect();
    let mut index = HashMap::new();
    for &a in &squares {
        for &b in &squares {
            for t in 0..2 {
                let k = index.len();
                index.insert((a, b, t), k);
            }
        }
    }
    let m = index.len();
    let mut rows: Vec<std::collections::BTreeMap<usize, Q>> = vec![Default::default(); m];
    let mut rhs = vec![Q::zero(); m];
    for (&(a, b, t), &k) in &index {
        rows[k].insert(k, Q::one());
        for e in 1..=3 {
            let (a2, b2) = if t == 0 {
                (advance(a, e), b)
            } else {
                (a, advance(b, e))
            };
            if a2 == GOAL {
                rhs[k] += q(1, 3); // p1 wins
            } else if b2 != GOAL {
                let j = index[&(a2, b2, 1 - t)];
                *rows[k].entry(j).or_insert_with(Q::zero) -= q(1, 3);
            }
        }
    }
    // Elimination in the order of the unknowns (no pivoting: an M-matrix), then back
    // substitution.
    for k in 0..m {
        let pivot = rows[k][&k].clone();
        let row_k: Vec<(usize, Q)> = rows[k].iter().map(|(&c, v)| (c, v / &pivot)).collect();
        let r_k = &rhs[k] / &pivot;
        rows[k] = row_k.iter().cloned().collect();
        rhs[k] = r_k.clone();
        for j in k + 1..m {
            let Some(f) = rows[j].remove(&k) else {
                continue;
            };
            for (c, a) in &row_k {
                if *c != k {
                    *rows[j].entry(*c).or_insert_with(Q::zero) -= &f * a;
                }
            }
            rhs[j] = &rhs[j] - &f * &r_k;
        }
    }
    let mut x = vec![Q::zero(); m];
    for k in (0..m).rev() {
        let mut v = rhs[k].clone();
        for (&c, a) in &rows[k] {
            if c > k {
                v -= a * &x[c];
            }
        }
        x[k] = v;
    }
    let want = &x[index[&(0, 0, 0)]];
    let game = r#"
fmod MINI-SNAKES is
  sorts Player Choice State .
  ops p1 p2 : -> Player [ctor] .
  op throw : -> Choice [ctor] .
  protecting SET{Player} .
  protecting SET{Choice} .
  protecting DIST{Nat} .
  op sl : Nat Nat Player -> State [ctor] .
  op participants : -> Set{Player} .
  op final : State -> Bool .
  op winner : State -> Set{Player} .
  op turn : State -> Player .
  op choices : State -> Set{Choice} .
  op events : Choice State -> Dist{Nat} .
  op move : Nat Choice State -> State .
  op jump : Nat -> Nat .
  op advance : Nat Nat -> Nat .
  vars a b e n : Nat .
  var p : Player .
  var s : State .
  var x : Choice .
  eq participants = p1, p2 .
  eq final(sl(a, b, p)) = a == 15 or b == 15 .
  eq winner(sl(a, b, p)) = if a == 15 then p1 else p2 fi .
  eq turn(sl(a, b, p)) = p .
  eq choices(s) = throw .
  eq events(x, s) = 1 / 3 @ 1 ; 1 / 3 @ 2 ; 1 / 3 @ 3 .
  eq jump(3) = 8 .  eq jump(14) = 2 .  eq jump(11) = 5 .
  eq jump(n) = n [owise] .
  eq advance(n, e) = if n + e > 15 then n else jump(n + e) fi .
  eq move(e, x, sl(a, b, p1)) = sl(advance(a, e), b, p2) .
  eq move(e, x, sl(a, b, p2)) = sl(a, advance(b, e), p1) .
endfm

view MiniSnakes from CHANCE-GAME to MINI-SNAKES is
  sort SetPlayer to Set{Player} .
  sort Event to Nat .
  sort SetChoice to Set{Choice} .
  sort Dist to Dist{Nat} .
endv

game mini-snakes is
  instance CHANCE{MiniSnakes} .
  start sl(0, 0, p1) .
endgame
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mini-snakes.game");
    std::fs::write(&path, game).unwrap();
    let j = json(&["solve", path.to_str().unwrap(), "--json"]);
    assert_eq!(j["method"], "exact", "{j}");
    assert_eq!(j["win_probability_exact"]["p1"], ratio(want), "{j}");
    assert!(j["states"].as_u64().unwrap() >= 200, "{j}");
}

// ----- pig --------------------------------------------------------------------------------------

/// P(the player to move wins) at (own score i, other's score j, turn total k), by value
/// iteration on the rules until nothing changes by more than 1e-15.
fn pig_values(goal: usize) -> Vec<Vec<Vec<f64>>> {
    let mut v = vec![vec![vec![0.0f64; goal]; goal]; goal];
    loop {
        let mut delta = 0.0f64;
        for i in 0..goal {
            for j in 0..goal {
                for k in 0..goal - i {
                    let mut roll = (1.0 - v[j][i][0]) / 6.0;
                    for e in 2..=6 {
                        roll += if i + k + e >= goal {
                            1.0
                        } else {
                            v[i][j][k + e]
                        } / 6.0;
                    }
                    let best = if k > 0 {
                        roll.max(1.0 - v[j][i + k][0])
                    } else {
                        roll
                    };
                    delta = delta.max((best - v[i][j][k]).abs());
                    v[i][j][k] = best;
                }
            }
        }
        if delta < 1e-15 {
            return v;
        }
    }
}

/// Exploring Pig while the term store's garbage is collected every few hundred states (the
/// explorer hands the engine every state and choice it holds as roots) finds the same game:
/// the same number of states, the value iteration on the rules' answer, and every state of
/// the graph still shows as a Pig state (no id was freed and reused under the explorer).
#[test]
fn exploring_with_garbage_collection_keeps_every_state() {
    use gamelang_chance::engine::EngineModel;
    use gamelang_chance::graph::explore;
    use gamelang_chance::model::ChanceModel;
    use gamelang_chance::solve::{solve, Options};
    let text = std::fs::read_to_string(example("pig.game")).unwrap();
    for goal in [8usize, 12] {
        let mut session = gamelang_lang::elab::Session::new().expect("stdlib");
        session.load_source("pig.game", &text).expect("loads");
        let game = session.chance_games[0].clone();
        session
            .set_chance_parameter(&game, &format!("goal={goal}"))
            .expect("goal");
        let program = std::sync::Arc::new(session.program.clone());
        let mut found = Vec::new();
        for collect_min_terms in [usize::MAX, 64] {
            let mut engine = gamelang_runtime::Engine::new(program.clone());
            let mut model = EngineModel::new(&mut engine, &game, None).expect("model");
            model.collect_min_terms = collect_min_terms;
            let g = explore(&mut model, false, 1_000_000).expect("explores");
            for &s in &g.states {
                let shown = model.show_state(s);
                assert!(
                    shown.starts_with("pig(") || shown.starts_with("won("),
                    "{shown}"
                );
            }
            let sol = solve(&g, &Options::default()).expect("solves");
            let want = pig_values(goal)[0][0][0];
            assert!(
                (sol.value[0] - want).abs() < 1e-9,
                "goal {goal}: {:?} vs {want}",
                sol.value
            );
            found.push((g.len(), sol.exact.clone(), model.engine.collections()));
        }
        assert_eq!(found[0].0, found[1].0, "goal {goal}: the same states");
        assert_eq!(found[0].1, found[1].1, "goal {goal}: the same exact answer");
        assert_eq!(found[0].2, 0);
        assert!(found[1].2 > 0, "goal {goal}: collected");
    }
}

#[test]
fn pig_matches_value_iteration_on_the_rules() {
    for goal in [2usize, 6, 10] {
        let want = pig_values(goal)[0][0][0];
        let g = format!("goal={goal}");
        let j = json(&["solve", &example("pig.game"), "--set", &g, "--json"]);
        assert_eq!(j["method"], "exact", "{j}");
        let got = j["win_probability"]["p1"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "goal {goal}: {got} vs {want}");
        // Somebody always wins: the exact probabilities add up to exactly 1.
        let parse = |s: &serde_json::Value| {
            let (a, b) = s.as_str().unwrap().split_once('/').unwrap();
            Q::new(a.parse::<BigInt>().unwrap(), b.parse::<BigInt>().unwrap())
        };
        let e = &j["win_probability_exact"];
        assert_eq!(parse(&e["p1"]) + parse(&e["p2"]), Q::one(), "{j}");
        // Value iteration (forced) agrees with the exact answer within its tolerance.
        let f = json(&[
            "solve",
            &example("pig.game"),
            "--set",
            &g,
            "--float",
            "--json",
        ]);
        assert_eq!(f["method"], "value-iteration");
        assert!((f["win_probability"]["p1"].as_f64().unwrap() - want).abs() < 1e-9);
    }
}

/// The REPL's `solve` on Pig (goal 6) from the start and from a state typed at the prompt
/// gives each player's probability of winning as value iteration on the rules computes it
/// here, and p1's and p2's add up to 1, also after another file is loaded (the goal set
/// at the prompt stays); `value` says Pig has no score; `moves` that it is a chance game.
#[test]
fn the_repl_solves_pig_as_the_rules_say() {
    let v = pig_values(6);
    let o = repl_session(
        std::path::Path::new(&example("pig.game")),
        "set goal 6\nsolve\nsolve pig(3, 1, 2, p1)\nload examples/tosses.game\n\
         solve pig(2, 4, 1, p2) --game pig\nvalue --game pig\nmoves\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    // Each solve's two lines `  p1  24/31  ≈ 0.77…`: the probability after `≈`.
    let probability =
        |line: &str| -> f64 { line.rsplit("≈ ").next().unwrap().trim().parse().unwrap() };
    let of = |player: &str| -> Vec<f64> {
        out.lines()
            .filter(|l| l.starts_with(&format!("  {player}  ")))
            .map(probability)
            .collect()
    };
    let (p1, p2) = (of("p1"), of("p2"));
    assert_eq!((p1.len(), p2.len()), (3, 3), "{out}\n{err}");
    // At pig(2, 4, 1, p2) p2 is to move, with score 4 and turn total 1 against p1's 2.
    let want = [v[0][0][0], v[3][1][2], 1.0 - v[4][2][1]];
    for i in 0..3 {
        assert!(
            (p1[i] - want[i]).abs() < 1e-9,
            "solve {i}: {} vs {}\n{out}",
            p1[i],
            want[i]
        );
        assert!((p1[i] + p2[i] - 1.0).abs() < 1e-9, "{out}");
    }
    assert!(out.contains("game pig: pig(3, 1, 2, p1)"), "{out}");
    assert!(out.contains("method: exact rationals"), "{out}");
    assert!(
        err.contains("`value` needs the game to define `score"),
        "{err}"
    );
    assert!(err.contains("`tosses` is a chance game"), "{err}");
}

// ----- cop and robber: retrograde analysis with draws --------------------------------------------

/// Plies to the cop's win under best play (cop fastest, robber slowest) at (cop, robber,
/// cop to move?) on the n-cycle; None for a draw. Fixpoint iteration from "never".
fn cops(n: usize) -> HashMap<(usize, usize, bool), Option<u32>> {
    let around = |v: usize| [v, (v + 1) % n, (v + n - 1) % n];
    let mut d: HashMap<(usize, usize, bool), Option<u32>> = HashMap::new();
    for c in 0..n {
        for r in 0..n {
            for t in [true, false] {
                d.insert((c, r, t), if c == r { Some(0) } else { None });
            }
        }
    }
    loop {
        let mut changed = false;
        for c in 0..n {
            for r in 0..n {
                if c == r {
                    continue;
                }
                for t in [true, false] {
                    let next: Vec<Option<u32>> = if t {
                        around(c).iter().map(|&v| d[&(v, r, false)]).collect()
                    } else {
                        around(r).iter().map(|&v| d[&(c, v, true)]).collect()
                    };
                    let new = if t {
                        next.iter().flatten().min().map(|m| m + 1)
                    } else if next.iter().all(|x| x.is_some()) {
                        next.iter().flatten().max().map(|m| m + 1)
                    } else {
                        None
                    };
                    if new != d[&(c, r, t)] {
                        d.insert((c, r, t), new);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return d;
        }
    }
}

#[test]
fn cops_and_robbers_match_an_independent_fixpoint() {
    for n in 3..=5usize {
        let want = cops(n);
        let set = format!("n={n}");
        for c in 0..n {
            for r in 0..n {
                for t in [true, false] {
                    let from = format!("cr({c}, {r}, {})", if t { "cop" } else { "robber" });
                    let j = json(&[
                        "solve",
                        &example("cops-robbers.game"),
                        "--set",
                        &set,
                        "--from",
                        &from,
                        "--json",
                    ]);
                    assert_eq!(j["method"], "retrograde");
                    match want[&(c, r, t)] {
                        Some(d) => {
                            assert_eq!(j["winner"], "cop", "n={n} {from}: {j}");
                            assert_eq!(j["depth"], d, "n={n} {from}: {j}");
                            assert_eq!(j["win_probability_exact"]["cop"], "1/1");
                        }
                        None => {
                            assert_eq!(j["winner"], "draw", "n={n} {from}: {j}");
                            assert_eq!(j["win_probability_exact"]["cop"], "0/1");
                        }
                    }
                    assert_eq!(j["win_probability_exact"]["robber"], "0/1");
                }
            }
        }
    }
}

// ----- move-repeatedly ----------------------------------------------------------------------------

#[test]
fn move_repeatedly_follows_the_given_events_and_choices() {
    // a calls heads, the coin shows heads: a wins the toss; b calls tails, heads shows: a
    // wins again, 2-0.
    let o = gamelang(&[
        "simulate",
        &example("tosses.game"),
        "--events",
        "heads, heads",
        "--choices",
        "heads, tails",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("-> st(a |-> 1 & b |-> 0, b)"), "{out}");
    assert!(out.contains("-> st(a |-> 2 & b |-> 0, a)"), "{out}");
    assert!(out.contains("winners: a"), "{out}");
    // Snakes and Ladders has no choices: the throws alone. 1 climbs the ladder to 38.
    let o = gamelang(&[
        "simulate",
        &example("snakes-ladders.game"),
        "--set",
        "players=1",
        "--events",
        "1, 6",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    let expected = advance(advance(0, 1), 6);
    assert!(
        out.contains(&format!("-> sl({expected}, 0, 0, 0, p1)")),
        "{out}"
    );
    assert!(out.contains("not final"), "{out}");
    assert!(!o.status.success());
    // A choice that is not open is an error.
    let o = gamelang(&[
        "simulate",
        &example("tosses.game"),
        "--events",
        "heads",
        "--choices",
        "a",
    ]);
    assert!(!o.status.success());
}

// ----- retrograde analysis of seed 003's games ----------------------------------------------------

#[test]
fn retrograde_agrees_with_wins_on_the_heaps_game_and_solves_a_cycle() {
    for from in ["(2 5)", "(5 2)", "(3 3)", "(4 7)", "(1 2)", "(6 1)"] {
        for first in ["B", "R"] {
            let args = [
                "solve",
                "examples/heaps.game",
                "--from",
                from,
                "--first",
                first,
                "--json",
            ];
            let w = json(&args);
            let mut r_args = args.to_vec();
            r_args.push("--retrograde");
            let r = json(&r_args);
            assert_eq!(r["method"], "retrograde");
            assert_eq!(w["winner"], r["winner"], "{from} {first}: {w} vs {r}");
            // Both lines are depth-optimal (winner fastest, loser slowest).
            assert_eq!(w["depth"], r["depth"], "{from} {first}: {w} vs {r}");
        }
    }
    // The cycle 0 -> 1 -> 2 -> 0 never halts: refused by `w`, a draw by retrograde analysis.
    let o = gamelang(&["solve", "tests/data/cycle.game"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--retrograde"));
    let r = json(&["solve", "tests/data/cycle.game", "--retrograde", "--json"]);
    assert_eq!(r["winner"], "draw");
    assert_eq!(r["positions"], 6);
}

// ----- ludo --------------------------------------------------------------------------------------

/// Two-player Ludo by the rules of examples/ludo.game (the die before the choice, a 6 to
/// leave the yard, home reached exactly, captures send counters back), solved by value
/// iteration with max-n's tie rule: returns (p1, p2) winning probabilities from the start.
fn ludo(counters: usize, track: usize) -> (f64, f64) {
    type Pos = [[usize; 2]; 2];
    let home = track + 1;
    let ring = |p: usize, i: usize| (p * (track / 2) + i - 1) % track;
    let done = |q: &[usize; 2]| q.iter().all(|&c| c == home);
    // All states (positions, turn, throw); values of both players.
    let mut states: Vec<(Pos, usize, usize)> = Vec::new();
    for a in 0..=home {
        for b in 0..=home {
            for c in 0..=home {
                for d in 0..=home {
                    for t in 0..2 {
                        for e in 0..=6 {
                            states.push(([[a, b], [c, d]], t, e));
                        }
                    }
                }
            }
        }
    }
    let index: HashMap<(Pos, usize, usize), usize> =
        states.iter().enumerate().map(|(i, s)| (*s, i)).collect();
    let mut v = vec![[0.0f64; 2]; states.len()];
    for (i, (pos, _, _)) in states.iter().enumerate() {
        for p in 0..2 {
            if done(&pos[p]) {
                v[i][p] = 1.0;
            }
        }
    }
    let successors = |pos: Pos, t: usize, e: usize| -> Vec<Vec<(f64, usize)>> {
        if e == 0 {
            return vec![(1..=6).map(|f| (1.0 / 6.0, index[&(pos, t, f)])).collect()];
        }
        let mut options = Vec::new();
        for k in 0..2 {
            let c = pos[t][k];
            let ok = if c == 0 { e == 6 } else { c + e <= home };
            if !ok {
                continue;
            }
            let d = if c == 0 { 1 } else { c + e };
            let mut next = pos;
            next[t][k] = d;
            if d <= track {
                let r = ring(t, d);
                for j in 0..2 {
                    let o = next[1 - t][j];
                    if (1..=track).contains(&o) && ring(1 - t, o) == r {
                        next[1 - t][j] = 0;
                    }
                }
            }
            options.push(vec![(1.0, index[&(next, 1 - t, 0)])]);
        }
        if options.is_empty() {
            options.push(vec![(1.0, index[&(pos, 1 - t, 0)])]);
        }
        options
    };
    let all: Vec<Vec<Vec<(f64, usize)>>> = states
        .iter()
        .map(|&(pos, t, e)| successors(pos, t, e))
        .collect();
    loop {
        let mut delta = 0.0f64;
        for (i, &(pos, t, _)) in states.iter().enumerate() {
            if done(&pos[0]) || done(&pos[1]) {
                continue;
            }
            let mut best: Option<[f64; 2]> = None;
            for opt in &all[i] {
                let mut val = [0.0; 2];
                for &(p, s) in opt {
                    val[0] += p * v[s][0];
                    val[1] += p * v[s][1];
                }
                let better = match best {
                    None => true,
                    Some(b) => {
                        val[t] > b[t] + 1e-13
                            || ((val[t] - b[t]).abs() <= 1e-13 && val[1 - t] < b[1 - t] - 1e-13)
                    }
                };
                if better {
                    best = Some(val);
                }
            }
            let b = best.unwrap();
            delta = delta
                .max((b[0] - v[i][0]).abs())
                .max((b[1] - v[i][1]).abs());
            v[i] = b;
        }
        if delta < 1e-14 {
            break;
        }
    }
    let start = if counters == 1 { [0, home] } else { [0, 0] };
    let s = index[&([start, start], 0, 0)];
    (v[s][0], v[s][1])
}

#[test]
fn ludo_matches_value_iteration_on_the_rules() {
    // One instance solved exactly, one (a cycle through 3,716 states) by value iteration.
    for (counters, track) in [(1usize, 4usize), (2, 4)] {
        let (w1, w2) = ludo(counters, track);
        let c = format!("counters={counters}");
        let t = format!("track={track}");
        let j = json(&[
            "solve",
            &example("ludo.game"),
            "--set",
            &c,
            "--set",
            &t,
            "--json",
        ]);
        let g1 = j["win_probability"]["p1"].as_f64().unwrap();
        let g2 = j["win_probability"]["p2"].as_f64().unwrap();
        assert!(
            (g1 - w1).abs() < 1e-9,
            "{counters} {track}: {g1} vs {w1} ({j})"
        );
        assert!(
            (g2 - w2).abs() < 1e-9,
            "{counters} {track}: {g2} vs {w2} ({j})"
        );
    }
}

// ----- finite maps ---------------------------------------------------------------------------------

#[test]
fn maps_look_up_override_and_remove() {
    let src = "fmod T is
  sort Player .
  ops a b c : -> Player [ctor] .
  protecting MAP{Player, Nat} .
endfm
";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.game");
    std::fs::write(&path, src).unwrap();
    let script = "lookup(b, (a |-> 1) & (b |-> 7))
lookup(a, ((a |-> 1) & (b |-> 7)) <+ ((a |-> 4) & (c |-> 0)))
remove(a, (a |-> 1) & (b |-> 7))
c in-dom ((a |-> 1) & (b |-> 7))
7 in-ran ((a |-> 1) & (b |-> 7))
only(0, (a |-> 0) & (c |-> 0))
lookup(c, a |-> 1)
";
    let o = repl_session(&path, script);
    let out = String::from_utf8_lossy(&o.stdout);
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(
        results,
        [
            "result NzNat: 7",
            "result NzNat: 4",
            "result Entry{Player,Nat}: b |-> 7",
            "result Bool: false",
            "result Bool: true",
            "result Bool: true",
        ],
        "{out}"
    );
    // Outside the domain, a lookup is an error, not a value.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no equation of `lookup` applies"), "{err}");
}

// ----- sweeps over chance games ----------------------------------------------------------------

/// Run a sweep writing `csv`; its rows as (the variables, the decimal, the exact text).
fn sweep_rows(args: &[&str], csv: &std::path::Path) -> Vec<(Vec<i64>, f64, String)> {
    let mut all = vec!["sweep"];
    all.extend_from_slice(args);
    all.extend(["--csv", csv.to_str().unwrap()]);
    let o = gamelang(&all);
    assert!(
        o.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("# gamelang sweep: game "));
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let nvars = header.len() - 2;
    assert!(
        header[nvars..] == ["win_probability", "win_probability_exact"]
            || header[nvars..] == ["value", "value_exact"],
        "{header:?}"
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), nvars + 2, "{l}");
            let point = f[..nvars].iter().map(|v| v.parse().unwrap()).collect();
            (point, f[nvars].parse().unwrap(), f[nvars + 1].to_string())
        })
        .collect()
}

fn parse_ratio(s: &str) -> Q {
    let (a, b) = s.split_once('/').expect("p/q");
    Q::new(a.parse::<BigInt>().unwrap(), b.parse::<BigInt>().unwrap())
}

#[test]
fn sweeping_pig_goal_matches_value_iteration_exactly_and_adds_up_to_one() {
    let dir = tempfile::tempdir().unwrap();
    let pig = example("pig.game");
    let p1 = sweep_rows(
        &[&pig, "--range", "goal=2..8", "--expr", "win(p1)"],
        &dir.path().join("p1.csv"),
    );
    let p2 = sweep_rows(
        &[&pig, "--range", "goal=2..8", "--expr", "win(p2)"],
        &dir.path().join("p2.csv"),
    );
    assert_eq!(p1.len(), 7);
    for ((point, x, exact), (point2, _, exact2)) in p1.iter().zip(&p2) {
        assert_eq!(point, point2);
        let goal = point[0] as usize;
        let want = pig_values(goal)[0][0][0];
        assert!((x - want).abs() < 1e-9, "goal {goal}: {x} vs {want}");
        // Small Pig is solved exactly: the rational is the decimal, and somebody wins.
        let (e1, e2) = (parse_ratio(exact), parse_ratio(exact2));
        assert!((e1.to_f64().unwrap() - x).abs() < 1e-15, "{exact} vs {x}");
        assert_eq!(e1 + e2, Q::one(), "goal {goal}");
    }
}

#[test]
fn sweeping_from_states_with_the_range_variables() {
    let dir = tempfile::tempdir().unwrap();
    // Best of three tosses from every score, exactly as the recursion says.
    let rows = sweep_rows(
        &[
            &example("tosses.game"),
            "--range",
            "i=0..1",
            "--range",
            "j=0..1",
            "--expr",
            "win(a, st((a |-> i) & (b |-> j), a))",
        ],
        &dir.path().join("t.csv"),
    );
    assert_eq!(rows.len(), 4);
    for (point, _, exact) in &rows {
        let (i, j) = (point[0] as u32, point[1] as u32);
        assert_eq!(*exact, ratio(&tosses(i, j, 0, 0)), "({i}, {j})");
    }
    // Pig from a head start k of the first player, over a parameter and a variable at once.
    let rows = sweep_rows(
        &[
            &example("pig.game"),
            "--range",
            "goal=4..6",
            "--range",
            "k=0..3",
            "--expr",
            "win(p1, pig(k, 0, 0, p1))",
        ],
        &dir.path().join("k.csv"),
    );
    assert_eq!(rows.len(), 12);
    for (point, x, _) in &rows {
        let (goal, k) = (point[0] as usize, point[1] as usize);
        let want = pig_values(goal)[k][0][0];
        assert!((x - want).abs() < 1e-9, "goal {goal}, k {k}: {x} vs {want}");
    }
    // The expected length of solitaire Snakes and Ladders, swept over its one seat count.
    let rows = sweep_rows(
        &[
            &example("snakes-ladders.game"),
            "--range",
            "players=1..1",
            "--expr",
            "value(p1)",
        ],
        &dir.path().join("s.csv"),
    );
    assert_eq!(rows[0].2, ratio(&expected_throws()));
}

#[test]
fn a_chance_sweep_resumes_and_draws_darker_for_likelier_wins() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    let png = dir.path().join("r.png");
    let pig = example("pig.game");
    let args = |extra: &[&str]| {
        let mut a = vec!["sweep", &pig, "--range", "goal=3..7", "--expr", "win(p2)"];
        a.extend_from_slice(extra);
        a.into_iter().map(String::from).collect::<Vec<String>>()
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        let o = gamelang(&a);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    };
    let (csv_s, png_s) = (csv.to_str().unwrap(), png.to_str().unwrap());
    run(args(&["--csv", csv_s, "--png", png_s]));
    let full = std::fs::read_to_string(&csv).unwrap();
    // Cut after two rows and in the middle of the third, as an interrupted sweep leaves it.
    let lines: Vec<&str> = full.lines().collect();
    let cut = format!("{}\n{}", lines[..4].join("\n"), &lines[4][..5]);
    std::fs::write(&csv, cut).unwrap();
    let report = run(args(&["--resume", csv_s]));
    assert!(
        report.contains("2 of them read from the resumed CSV"),
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), full);
    // The picture: one cell per goal, darker (less light) where p2 is likelier to win.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut px = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut px).unwrap();
    let grid: HashMap<String, usize> = reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .find(|t| t.keyword == "gamelang-grid")
        .unwrap()
        .text
        .split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.parse().unwrap())
        })
        .collect();
    let (x0, y0, cell, w) = (grid["x0"], grid["y0"], grid["cell"], info.width as usize);
    let light = |col: usize| {
        let (x, y) = (x0 + col * cell + cell / 2, y0 + cell / 2);
        let i = (y * w + x) * 3;
        px[i] as u32 + px[i + 1] as u32 + px[i + 2] as u32
    };
    let probs: Vec<f64> = (3..=7).map(|g| 1.0 - pig_values(g)[0][0][0]).collect();
    for a in 0..5 {
        for b in 0..5 {
            if probs[a] < probs[b] - 1e-6 {
                assert!(light(a) > light(b), "goal {} vs {}", a + 3, b + 3);
            }
        }
    }
}

#[test]
fn chance_sweep_errors() {
    let pig = example("pig.game");
    // A player that is no term of the game's player sort: located in the expression,
    // before any point (it was found at the first point).
    let o = gamelang(&["sweep", &pig, "--range", "goal=2..3", "--expr", "win(p3)"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("unknown operator or variable `p3`")
            && err.contains("--expr:1:5")
            && err.contains("did you mean `p1` or `p2`?"),
        "{err}"
    );
    // A player of the sort that does not take part (four seats declared, two playing):
    // said at the first point.
    let ludo = example("ludo.game");
    let o = gamelang(&[
        "sweep",
        &ludo,
        "--range",
        "players=2..2",
        "--expr",
        "win(p3)",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("`p3` is not one of the game's players (p1, p2)")
            && err.contains("at the point players=2 of the sweep"),
        "{err}"
    );
    let o = gamelang(&[
        "sweep",
        &pig,
        "--range",
        "k=0..1",
        "--from",
        "pig(k, 0, 0, p1)",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is a chance game") && err.contains("win(PLAYER)"),
        "{err}"
    );
    let o = gamelang(&[
        "sweep",
        &pig,
        "--range",
        "k=0..1",
        "--expr",
        "win(p1, pig(k, 0, 0, p9))",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("unknown operator or variable `p9`") && err.contains("--expr:1:22"),
        "{err}"
    );
}

/// A module with two parameters instantiating SET with each: `SET{V}` is the set of V's
/// elements, not K's (the elaborator used to map both to whichever `$Elt` it found first,
/// so `ran` below was refused with "unrelated sorts `Set{Nat}` and `Nat`").
#[test]
fn set_of_each_parameter_inside_a_two_parameter_module() {
    let src = "fmod MYMAP{K :: TRIV, V :: TRIV} is
  protecting SET{K} .
  protecting SET{V} .
  sort MyMap{K, V} .
  op _|->_ : K$Elt V$Elt -> MyMap{K, V} [ctor prec 40] .
  op _&_ : MyMap{K, V} MyMap{K, V} -> MyMap{K, V} [ctor assoc comm] .
  op dom : MyMap{K, V} -> Set{K} .
  op ran : MyMap{K, V} -> Set{V} .
  var k : K$Elt .
  var v : V$Elt .
  var M : MyMap{K, V} .
  eq dom(k |-> v) = k .
  eq dom((k |-> v) & M) = k, dom(M) .
  eq ran(k |-> v) = v .
  eq ran((k |-> v) & M) = v, ran(M) .
endfm

fmod T is
  sort Player .
  ops a b : -> Player [ctor] .
  protecting MYMAP{Player, Nat} .
endfm
";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.game");
    std::fs::write(&path, src).unwrap();
    let o = repl_session(
        &path,
        "dom((a |-> 3) & (b |-> 4))\nran((a |-> 3) & (b |-> 4))\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let results: Vec<&str> = out.lines().filter(|l| l.starts_with("result")).collect();
    assert_eq!(
        results,
        ["result Set{Player}: a, b", "result Set{Nat}: 3, 4"],
        "{out}\n{err}"
    );
}

/// `gamelang repl FILE` with `script` typed at the prompt (standard input, then its end).
fn repl_session(path: &std::path::Path, script: &str) -> std::process::Output {
    use std::io::Write;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(["repl", path.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

// ----- three players: max-n and its tie rule ------------------------------------------------

/// A three-player dice race written for this test, where a player's choice matters to the
/// others: `run` (a coin: +1 or +2 to one's own score), `push` (a coin: the next player
/// loses 1 or 0, never below 0), `rest`. The first to reach 3 wins; after `r` moves in
/// all nobody does. Declared in the order run, push, rest (the choice set's order).
const RACE3: &str = "fmod RACE3 is
  sorts Player Move State .
  ops p1 p2 p3 : -> Player [ctor] .
  ops run push rest : -> Move [ctor] .
  protecting SET{Player} .
  protecting SET{Move} .
  protecting DIST{Nat} .
  op st : Nat Nat Nat Player Nat -> State [ctor] .
  op participants : -> Set{Player} .
  op final : State -> Bool .
  op winner : State -> Set{Player} .
  op turn : State -> Player .
  op choices : State -> Set{Move} .
  op events : Move State -> Dist{Nat} .
  op move : Nat Move State -> State .
  op down : Nat Nat -> Nat .
  vars a b c e r : Nat . var p : Player . var s : State .
  eq participants = p1, p2, p3 .
  eq final(st(a, b, c, p, r)) = a >= 3 or b >= 3 or c >= 3 or r == 0 .
  eq winner(st(a, b, c, p, r)) =
    if a >= 3 then p1 else (if b >= 3 then p2 else (if c >= 3 then p3 else empty fi) fi) fi .
  eq turn(st(a, b, c, p, r)) = p .
  eq choices(s) = run, push, rest .
  eq events(run, s) = 1 / 2 @ 1 ; 1 / 2 @ 2 .
  eq events(push, s) = 1 / 2 @ 0 ; 1 / 2 @ 1 .
  eq events(rest, s) = 1 / 1 @ 0 .
  eq down(a, e) = if a >= e then a - e else 0 fi .
  eq move(e, run, st(a, b, c, p1, r)) = st(a + e, b, c, p2, r - 1) .
  eq move(e, run, st(a, b, c, p2, r)) = st(a, b + e, c, p3, r - 1) .
  eq move(e, run, st(a, b, c, p3, r)) = st(a, b, c + e, p1, r - 1) .
  eq move(e, push, st(a, b, c, p1, r)) = st(a, down(b, e), c, p2, r - 1) .
  eq move(e, push, st(a, b, c, p2, r)) = st(a, b, down(c, e), p3, r - 1) .
  eq move(e, push, st(a, b, c, p3, r)) = st(down(a, e), b, c, p1, r - 1) .
  eq move(e, rest, st(a, b, c, p1, r)) = st(a, b, c, p2, r - 1) .
  eq move(e, rest, st(a, b, c, p2, r)) = st(a, b, c, p3, r - 1) .
  eq move(e, rest, st(a, b, c, p3, r)) = st(a, b, c, p1, r - 1) .
endfm
view Race3 from CHANCE-GAME to RACE3 is
  sort SetPlayer to Set{Player} .
  sort Event to Nat . sort Choice to Move .
  sort SetChoice to Set{Move} . sort Dist to Dist{Nat} .
endv
game race3 is
  instance CHANCE{Race3} .
  start st(0, 0, 0, p1, 9) .
endgame
";

type Race = (usize, usize, usize, usize, usize);

/// Max-n on the race by its rules, as docs/chance.md states it: the mover maximises its
/// own probability of winning; among equal choices it takes the one giving the other two
/// together the least, then the first of run, push, rest. The values and the choice.
fn race3(s: Race, memo: &mut HashMap<Race, ([Q; 3], usize)>) -> ([Q; 3], usize) {
    if let Some(v) = memo.get(&s) {
        return v.clone();
    }
    let (a, b, c, p, r) = s;
    let sc = [a, b, c];
    let mut won = [Q::zero(), Q::zero(), Q::zero()];
    if let Some(w) = (0..3).find(|&i| sc[i] >= 3) {
        won[w] = Q::one();
        return (won, usize::MAX);
    }
    if r == 0 {
        return (won, usize::MAX);
    }
    let next = (p + 1) % 3;
    let after = |sc: [usize; 3]| (sc[0], sc[1], sc[2], next, r - 1);
    let mut best: Option<([Q; 3], usize)> = None;
    for choice in 0..3 {
        // (probability, scores after)
        let outcomes: Vec<(Q, [usize; 3])> = match choice {
            0 => (1..=2)
                .map(|e| {
                    let mut t = sc;
                    t[p] += e;
                    (q(1, 2), t)
                })
                .collect(),
            1 => (0..=1)
                .map(|e| {
                    let mut t = sc;
                    t[next] = t[next].saturating_sub(e);
                    (q(1, 2), t)
                })
                .collect(),
            _ => vec![(Q::one(), sc)],
        };
        let mut v = [Q::zero(), Q::zero(), Q::zero()];
        for (pr, t) in outcomes {
            let (w, _) = race3(after(t), memo);
            for i in 0..3 {
                v[i] += &pr * &w[i];
            }
        }
        let others = |v: &[Q; 3]| (0..3).filter(|&i| i != p).map(|i| v[i].clone()).sum::<Q>();
        let better = match &best {
            None => true,
            Some((bv, _)) => v[p] > bv[p] || (v[p] == bv[p] && others(&v) < others(bv)),
        };
        if better {
            best = Some((v, choice));
        }
    }
    let best = best.expect("three choices");
    memo.insert(s, best.clone());
    best
}

#[test]
fn three_players_follow_max_n_and_its_tie_rule() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("race3.game");
    std::fs::write(&path, RACE3).unwrap();
    let path = path.to_str().unwrap();
    let names = ["run", "push", "rest"];
    let mut memo = HashMap::new();
    // The declared start, and states where the tie rule decides: a mover who cannot win
    // any more (pushing the leader is then what it does), a last move (all three choices
    // equal for everybody: the first, run), and mid-game states for each seat.
    let starts: [Race; 7] = [
        (0, 0, 0, 0, 9),
        (0, 2, 0, 0, 2),
        (0, 0, 0, 0, 1),
        (1, 2, 2, 2, 5),
        (2, 0, 1, 1, 6),
        (0, 1, 2, 0, 4),
        (1, 1, 1, 2, 8),
    ];
    for s in starts {
        let (want, choice) = race3(s, &mut memo);
        let from = format!("st({}, {}, {}, p{}, {})", s.0, s.1, s.2, s.3 + 1, s.4);
        let j = json(&["solve", path, "--from", &from, "--json"]);
        assert_eq!(j["players"], serde_json::json!(["p1", "p2", "p3"]), "{j}");
        assert_eq!(j["method"], "exact", "{j}");
        for (k, name) in ["p1", "p2", "p3"].iter().enumerate() {
            assert_eq!(
                j["win_probability_exact"][name],
                ratio(&want[k]),
                "{from}: {j}"
            );
        }
        assert_eq!(j["best_choice"], names[choice], "{from}: {j}");
    }
    // The tie rule is what decides at two of the starts (so the test would catch a solver
    // without it): there p1 cannot win whatever it does.
    assert_eq!(race3((0, 2, 0, 0, 2), &mut memo).0[0], Q::zero());
    assert_eq!(race3((0, 2, 0, 0, 2), &mut memo).1, 1, "push the leader");
    assert_eq!(
        race3((0, 0, 0, 0, 1), &mut memo).1,
        0,
        "all equal: the first"
    );
}

#[test]
fn value_iteration_stops_at_a_fixed_point_and_refuses_a_tolerance_that_is_not_a_number() {
    let pig = example("pig.game");
    // The exact answer, as rationals.
    let exact = json(&["solve", &pig, "--set", "goal=10", "--exact", "--json"]);
    let want = |p: &str| -> f64 {
        let text = exact["win_probability_exact"][p].as_str().unwrap();
        let (a, b) = text.split_once('/').unwrap();
        a.parse::<f64>().unwrap() / b.parse::<f64>().unwrap()
    };
    // Tolerance 0: sweep until a sweep changes nothing (it ran to the sweep limit, 81
    // million sweeps, and said NOT CONVERGED with a change of 0).
    let float = json(&[
        "solve",
        &pig,
        "--set",
        "goal=10",
        "--float",
        "--tolerance",
        "0",
        "--json",
    ]);
    assert_eq!(float["converged"], true, "{float}");
    assert_eq!(float["residual"], 0.0, "{float}");
    assert!(float["sweeps"].as_u64().unwrap() < 100_000, "{float}");
    for p in ["p1", "p2"] {
        let got = float["win_probability"][p].as_f64().unwrap();
        assert!(
            (got - want(p)).abs() < 1e-12,
            "{p}: {got} against {}",
            want(p)
        );
    }
    for bad in ["nan", "inf", "-inf"] {
        let arg = format!("--tolerance={bad}");
        let o = gamelang(&["solve", &pig, "--float", &arg]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.contains("--tolerance must be a finite number"),
            "{bad}: {err}"
        );
    }
}

/// `simulate --events … --choices … --json` (seed 002's move-repeatedly) prints one JSON
/// object with the moves the text shows, line for line; it printed the text.
#[test]
fn move_repeatedly_as_json_is_the_text_move_for_move() {
    for (events, done) in [("heads, heads", true), ("heads", false)] {
        let args = [
            "simulate",
            "examples/tosses.game",
            "--events",
            events,
            "--choices",
            "heads, tails",
        ];
        let text = support::cli::gamelang(&args);
        let mut with_json = args.to_vec();
        with_json.push("--json");
        let out = support::cli::gamelang(&with_json);
        assert_eq!(out.status.code(), text.status.code());
        assert_eq!(out.status.success(), done);
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        let lines: Vec<String> = String::from_utf8_lossy(&text.stdout)
            .lines()
            .filter(|l| l.contains(" chooses "))
            .map(str::to_string)
            .collect();
        let moves = j["moves"].as_array().unwrap();
        assert_eq!(moves.len(), lines.len(), "{j}");
        for (m, line) in moves.iter().zip(&lines) {
            let shown = format!(
                "{}. {} chooses {}, event {} -> {}",
                lines.iter().position(|l| l == line).unwrap(),
                m["player"].as_str().unwrap(),
                m["choice"].as_str().unwrap(),
                m["event"].as_str().unwrap(),
                m["state"].as_str().unwrap()
            );
            assert_eq!(line.trim_start(), shown);
        }
        assert_eq!(j["final"], done, "{j}");
        if done {
            assert_eq!(j["winners"], serde_json::json!(["a"]), "{j}");
        } else {
            assert!(j["winners"].is_null() && j["ran_out"] == "events", "{j}");
        }
    }
}

/// A term of `--events` or `--choices` that does not parse is shown where it is in the
/// list (it was shown alone, at column 1).
#[test]
fn an_error_in_a_list_of_events_is_located_in_the_list() {
    let out = gamelang(&[
        "simulate",
        "examples/tosses.game",
        "--events",
        "heads,  bogus",
        "--choices",
        "heads, tails",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown operator or variable `bogus`")
            && err.contains("--events:1:9")
            && err.contains("heads,  bogus"),
        "{err}"
    );
}

/// `--float` and `--exact` choose between the chance solver's methods; a two-player game
/// without chance is solved by retrograde analysis whatever they say, and a warning says
/// so (they were ignored without a word).
#[test]
fn float_on_a_game_without_chance_is_said_not_to_apply() {
    for flag in ["--float", "--exact"] {
        let out = gamelang(&["solve", "examples/cops-robbers.game", flag]);
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("warning: {flag} does not apply"))
                && err.contains("retrograde analysis"),
            "{err}"
        );
    }
    let out = gamelang(&["solve", "examples/cops-robbers.game"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("does not apply"));
}

/// With a two-player game loaded first (heaps), `select pig` makes Pig the game `set`
/// and `solve` mean: its goal is set and its probability is Pig's with that goal (value
/// iteration on the rules here). `set goal 5` was refused and `solve` solved heaps.
#[test]
fn a_selected_chance_game_is_the_one_set_and_solve_mean() {
    let o = repl_session(
        std::path::Path::new(&example("heaps.game")),
        "load examples/pig.game\nselect pig\nset goal 5\nsolve\n",
    );
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let line = out
        .lines()
        .find(|l| l.starts_with("  p1  "))
        .unwrap_or_else(|| panic!("{out}\n{err}"));
    let got: f64 = line.rsplit("≈ ").next().unwrap().trim().parse().unwrap();
    let want = pig_values(5)[0][0][0];
    assert!((got - want).abs() < 1e-9, "{got} vs {want}\n{out}");
}

/// The step budget counts for a whole chance solve (the rewrites one command may take),
/// as for a two-player solve: `--max-steps 20` stops the 192-rewrite solve of Best of
/// Three Tosses, at the game; in the REPL, `set max-steps 100` stops Pig's, with the
/// REPL's advice. Each small reduction was given the whole budget, so neither stopped.
#[test]
fn the_step_budget_counts_for_the_whole_chance_solve() {
    let o = gamelang(&["solve", &example("tosses.game"), "--max-steps", "20"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gave up after 20 rewriting steps") && err.contains("tosses.game:82:1"),
        "{err}"
    );
    let o = repl_session(
        std::path::Path::new(&example("pig.game")),
        "set goal 5\nset max-steps 100\nsolve\n",
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("gave up after 100 rewriting steps")
            && err.contains("`set max-steps N`")
            && err.contains("while solving this game"),
        "{err}"
    );
}

/// `a` chooses once, no chance: `solo` (b wins), `draw` (nobody wins) or `both` (a and b
/// both win), the outcomes given as the winners' equations.
fn choice_game(both: &str) -> String {
    format!(
        "fmod SHARED is
  sorts Player Act State .
  ops a b : -> Player [ctor] .
  ops both draw solo go : -> Act [ctor] .
  protecting SET{{Player}} .
  protecting SET{{Act}} .
  protecting DIST{{Act}} .
  op start : -> State [ctor] .
  op end : Act -> State [ctor] .
  op participants : -> Set{{Player}} .
  op final : State -> Bool .
  op winner : State -> Set{{Player}} .
  op turn : State -> Player .
  op choices : State -> Set{{Act}} .
  op events : Act State -> Dist{{Act}} .
  op move : Act Act State -> State .
  vars c e : Act . var s : State .
  eq participants = a, b .
  eq final(start) = false .
  eq final(end(e)) = true .
  eq winner(end(both)) = {both} .
  eq winner(end(draw)) = empty .
  eq winner(end(solo)) = b .
  eq turn(s) = a .
  eq choices(s) = solo, draw, both .
  eq events(c, s) = 1 / 1 @ go .
  eq move(e, c, s) = end(c) .
endfm
view SharedV from CHANCE-GAME to SHARED is
  sort SetPlayer to Set{{Player}} .
  sort Event to Act . sort Choice to Act .
  sort SetChoice to Set{{Act}} . sort Dist to Dist{{Act}} .
endv
game shared is
  instance CHANCE{{SharedV}} .
  start start .
endgame
"
    )
}

/// A final position both players win is a win for both, not a draw: max-n, computed here
/// by hand over a's three choices, gives each player 1 where a takes `both`. (Retrograde
/// analysis, which a two-player game without chance goes to, called it a draw and gave
/// both players 0.) With single winners the game still goes to retrograde analysis.
#[test]
fn a_shared_win_without_chance_is_a_win_for_both() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.game");
    // Each choice's (a, b) win probabilities, and a's best by max-n.
    let outcomes = [("solo", (0, 1)), ("draw", (0, 0)), ("both", (1, 1))];
    let (best, (pa, pb)) = outcomes.iter().max_by_key(|(_, (a, _))| *a).unwrap();
    std::fs::write(&path, choice_game("a, b")).unwrap();
    let j = json(&["solve", path.to_str().unwrap(), "--json"]);
    assert_eq!(j["win_probability_exact"]["a"], format!("{pa}/1"), "{j}");
    assert_eq!(j["win_probability_exact"]["b"], format!("{pb}/1"), "{j}");
    assert_eq!(j["best_choice"], *best, "{j}");
    assert_ne!(j["method"], "retrograde", "{j}");
    assert_ne!(j["winner"], "draw", "{j}");
    // `both` won by a alone: a zero-sum game, solved by retrograde analysis.
    std::fs::write(&path, choice_game("a")).unwrap();
    let j = json(&["solve", path.to_str().unwrap(), "--json"]);
    assert_eq!(j["method"], "retrograde", "{j}");
    assert_eq!(j["winner"], "a", "{j}");
}

/// Options a two-player game cannot take are refused (exit 2), not ignored:
/// `--retrograde --max-depth 2` on Nim answered the unbounded question (R wins in 11
/// plies) where the bounded one says R cannot win within 2; `--value --retrograde` printed
/// no value; `--exact` on Nim was silently ignored.
#[test]
fn options_a_two_player_game_cannot_take_are_refused() {
    for (args, want) in [
        (
            &["--max-depth", "2", "--retrograde"][..],
            "--max-depth is the recursive search's",
        ),
        (
            &["--value", "--retrograde"][..],
            "--value is the recursive search's",
        ),
        (&["--exact"][..], "--exact is for chance games"),
        (
            &["--float", "--tolerance", "0.1"][..],
            "--float, --tolerance are for chance games",
        ),
        (
            &["--max-states", "10"][..],
            "--max-states bounds the states",
        ),
    ] {
        let o = gamelang(&[&["solve", &example("nim.game")][..], args].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // Together with what they belong to, they still work.
    let o = gamelang(&[
        "solve",
        &example("nim.game"),
        "--retrograde",
        "--max-states",
        "100000",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
