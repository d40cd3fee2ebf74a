//! Questions of a chance game whose answer depends on part of the state only
//! (`choices(s) = throw`, `events(x, s) = die`, `turn(st(n, p)) = p`) are reduced once per
//! value of that part, not once per state (`gamelang_chance::statefree`). Each game here
//! is explored with the sharing on and off: the graphs must be the same, state by state
//! (what it is, who moves or who won) and outcome by outcome; where the state does matter
//! (a condition, the right-hand side, a constant or a narrower sort on the left looks at
//! it) a shared answer would give states another state's distribution, which the
//! comparison and the count of distinct distributions catch.

use gamelang_chance::engine::EngineModel;
use gamelang_chance::graph::{explore, Graph};
use gamelang_chance::model::ChanceModel;
use gamelang_lang::elab::Session;
use gamelang_runtime::term::TermId;
use std::collections::BTreeSet;
use std::sync::Arc;

/// A race to 6 of two players adding 1 or 2 per turn, with the given `events` equations.
fn race(events: &str) -> String {
    format!(
        "fmod RACE is
  sorts First Player Choice State .
  subsort First < Player .
  op p1 : -> First [ctor] .
  op p2 : -> Player [ctor] .
  op go : -> Choice [ctor] .
  protecting SET{{Player}} .
  protecting SET{{Choice}} .
  protecting DIST{{Nat}} .
  op st : Nat Player -> State [ctor] .
  op participants : -> Set{{Player}} .
  op final : State -> Bool .
  op winner : State -> Set{{Player}} .
  op turn : State -> Player .
  op choices : State -> Set{{Choice}} .
  op events : Choice State -> Dist{{Nat}} .
  op move : Nat Choice State -> State .
  op low : State -> Bool .
  op spread : State -> Dist{{Nat}} .
  ops coin one : -> Dist{{Nat}} .
  vars n e : Nat . var p : Player . var f : First . var s : State . var x : Choice .
  eq participants = p1, p2 .
  eq final(st(n, p)) = n >= 6 .
  eq winner(st(n, p)) = if p == p1 then p2 else p1 fi .
  eq turn(st(n, p)) = p .
  eq choices(s) = go .
  eq low(st(n, p)) = n < 3 .
  eq coin = 1 / 2 @ 1 ; 1 / 2 @ 2 .
  eq one = 1 / 1 @ 1 .
  eq spread(st(n, p)) = if n < 3 then coin else one fi .
  {events}
  eq move(e, x, st(n, p1)) = st(n + e, p2) .
  eq move(e, x, st(n, p2)) = st(n + e, p1) .
endfm
view Race from CHANCE-GAME to RACE is
  sort SetPlayer to Set{{Player}} .
  sort Event to Nat .
  sort SetChoice to Set{{Choice}} .
  sort Dist to Dist{{Nat}} .
endv
game race is
  instance CHANCE{{Race}} .
  start st(0, p1) .
endgame
"
    )
}

/// A graph shown: per state, its text, what it is (final with its winners, or whose turn)
/// and its outcomes (probability, next state's number).
type Shown = Vec<(String, String, Vec<(String, u32)>)>;

/// The graph of the game, shown; with the engine's steps.
fn explored(source: &str, share: bool) -> (Shown, u64) {
    let mut session = Session::new().expect("stdlib");
    session.load_source("race.game", source).expect("loads");
    let game = session.chance_games[0].clone();
    let mut engine = gamelang_runtime::Engine::new(Arc::new(session.program.clone()));
    let mut model = EngineModel::new(&mut engine, &game, None).expect("model");
    model.share_state_free = share;
    let g: Graph<TermId, TermId> = explore(&mut model, false, 10_000).expect("explores");
    let shown = (0..g.len())
        .map(|s| {
            let outs = g
                .options(s)
                .flat_map(|o| g.outcomes(o).to_vec())
                .map(|(t, pi)| (g.probs[pi as usize].to_string(), t))
                .collect();
            (
                model.show_state(g.states[s]),
                format!("{:?}", g.kind[s]),
                outs,
            )
        })
        .collect();
    (shown, model.engine.steps())
}

/// The distinct outcome lists (as probabilities) of the non-final states.
fn distributions(g: &Shown) -> BTreeSet<Vec<String>> {
    g.iter()
        .filter(|(_, _, outs)| !outs.is_empty())
        .map(|(_, _, outs)| outs.iter().map(|(q, _)| q.clone()).collect())
        .collect()
}

#[test]
fn a_die_that_ignores_the_state_is_thrown_once() {
    let source = race("eq events(x, s) = 1 / 2 @ 1 ; 1 / 2 @ 2 .");
    let (shared, steps_shared) = explored(&source, true);
    let (each, steps_each) = explored(&source, false);
    assert_eq!(shared, each);
    // States st(n, p) for n = 0..=7 and both players, less the unreachable ones: more than
    // a handful, each non-final one with both outcomes.
    assert!(shared.len() > 8, "{shared:?}");
    assert_eq!(distributions(&shared).len(), 1);
    // `choices` and `events` were reduced once each instead of once per non-final state,
    // `turn` once per player.
    let non_final = shared.iter().filter(|(_, _, o)| !o.is_empty()).count() as u64;
    assert!(
        steps_shared + 3 * (non_final - 2) <= steps_each,
        "{steps_shared} steps shared, {steps_each} not, {non_final} states asked"
    );
}

#[test]
fn a_die_that_looks_at_the_state_is_thrown_at_every_state() {
    for events in [
        // In a condition.
        "ceq events(x, s) = coin if low(s) . \
         eq events(x, s) = 1 / 1 @ 1 [owise] .",
        // On the right.
        "eq events(x, s) = spread(s) .",
        // On the left.
        "eq events(x, st(n, p)) = if n < 3 then coin else one fi .",
        // Met twice on the left (the same variable at the choice's place cannot be: other
        // sort), and one equation of two that looks at the state.
        "eq events(x, st(0, p)) = 1 / 2 @ 1 ; 1 / 2 @ 2 . eq events(x, s) = 1 / 1 @ 1 [owise] .",
        // A variable the condition looks at.
        "ceq events(x, st(n, p)) = coin if n < 3 . eq events(x, s) = one [owise] .",
        // A variable of a narrower sort than the constructor's argument: matched only by
        // the first player's states.
        "eq events(x, st(n, f)) = coin . eq events(x, s) = one [owise] .",
    ] {
        let source = race(events);
        let (shared, _) = explored(&source, true);
        let (each, _) = explored(&source, false);
        assert_eq!(shared, each, "{events}");
        assert_eq!(distributions(&shared).len(), 2, "{events}: {shared:?}");
    }
}

/// A race of two counters to 6, each player moving its own by 1 or 2 (a coin), with the
/// given `move` equations (state `st(mine, yours, whose turn)` for the first player's
/// counter first).
fn relay(moves: &str) -> String {
    format!(
        "fmod RELAY is
  sorts Player Choice State .
  ops p1 p2 : -> Player [ctor] .
  op go : -> Choice [ctor] .
  protecting SET{{Player}} .
  protecting SET{{Choice}} .
  protecting DIST{{Nat}} .
  op st : Nat Nat Player -> State [ctor] .
  op done : Player Nat -> State [ctor] .
  op participants : -> Set{{Player}} .
  op final : State -> Bool .
  op winner : State -> Set{{Player}} .
  op turn : State -> Player .
  op choices : State -> Set{{Choice}} .
  op events : Choice State -> Dist{{Nat}} .
  op move : Nat Choice State -> State .
  op swap : State Nat -> State .
  vars n m e : Nat . var p : Player . var s : State . var x : Choice .
  eq participants = p1, p2 .
  eq final(st(n, m, p)) = n >= 6 or m >= 6 .
  eq winner(st(n, m, p)) = if n >= 6 then p1 else p2 fi .
  eq turn(st(n, m, p)) = p .
  eq choices(s) = go .
  eq events(x, s) = 1 / 2 @ 1 ; 1 / 2 @ 2 .
  eq swap(st(n, m, p), e) = st(n + e, m, p2) .
  {moves}
endfm
view Relay from CHANCE-GAME to RELAY is
  sort SetPlayer to Set{{Player}} .
  sort Event to Nat .
  sort SetChoice to Set{{Choice}} .
  sort Dist to Dist{{Nat}} .
endv
game relay is
  instance CHANCE{{Relay}} .
  start st(0, 0, p1) .
endgame
"
    )
}

#[test]
fn a_move_that_copies_the_other_counter_is_reduced_once_per_counter_it_reads() {
    for moves in [
        // Each player's equation reads its own counter and copies the other.
        "eq move(e, x, st(n, m, p1)) = st(n + e, m, p2) . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // The same through a conditional that reads only the counter that moves (the
        // copy in both branches, at the same place).
        "eq move(e, x, st(n, m, p1)) = if n + e > 7 then st(n, m, p2) else st(n + e, m, p2) fi . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // A second constructor for the ends, shorter than the first: `final`'s literal at
        // the first's third argument does not stop sharing it for the second.
        "eq move(e, x, st(n, m, p1)) = if n + e >= 6 then done(p1, m) else st(n + e, m, p2) fi . \
         eq move(e, x, st(n, m, p2)) = if m + e >= 6 then done(p2, n) else st(n, m + e, p1) fi . \
         eq final(st(n, m, p1)) = false . eq final(done(p, n)) = true . \
         eq winner(done(p, n)) = p .",
    ] {
        let source = relay(moves);
        let (shared, steps_shared) = explored(&source, true);
        let (each, steps_each) = explored(&source, false);
        assert_eq!(shared, each, "{moves}");
        // Every counter pair below 6 with either player to move: the explorer saw them all.
        assert!(shared.len() > 40, "{moves}: {}", shared.len());
        // Without sharing each non-final state reduces two moves of at least two steps
        // (the equation and the addition); sharing reduces a move once per player, counter
        // it reads and throw, so it saves more than a step per state.
        let non_final = shared.iter().filter(|(_, _, o)| !o.is_empty()).count() as u64;
        assert!(
            steps_shared + non_final <= steps_each,
            "{moves}: {steps_shared} steps shared, {steps_each} not, {non_final} states asked"
        );
    }
}

#[test]
fn a_move_is_shared_only_where_what_it_copies_lands_unchanged() {
    for moves in [
        // The copied counter in a condition of the right side.
        "eq move(e, x, st(n, m, p1)) = if m > 2 then st(n + e + 1, m, p2) else st(n + e, m, p2) fi . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // Two equations can apply: one copies `m`, the other puts the throw in its place.
        "ceq move(e, x, st(n, m, p1)) = st(n + e, m, p2) if n < 3 . \
         eq move(e, x, st(n, m, p1)) = st(n + e, e, p2) [owise] . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // One of them does not have it at all.
        "ceq move(e, x, st(n, m, p1)) = st(n + e, m, p2) if n < 3 . \
         eq move(e, x, st(n, m, p1)) = st(n + e, 0, p2) [owise] . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // A branch whose shape cannot be told (another operator's equations build it,
        // without the copy).
        "eq move(e, x, st(n, m, p1)) = if n < 3 then st(n + e, m, p2) else swap(st(n, 0, p1), e) fi . \
         eq move(e, x, st(n, m, p2)) = st(n, m + e, p1) .",
        // Copied to another place.
        "eq move(e, x, st(n, m, p1)) = st(m, n + e, p2) . \
         eq move(e, x, st(n, m, p2)) = st(m + e, n, p1) .",
    ] {
        let source = relay(moves);
        let (shared, _) = explored(&source, true);
        let (each, _) = explored(&source, false);
        assert_eq!(shared, each, "{moves}");
        assert!(shared.len() > 10, "{moves}: {}", shared.len());
    }
}
