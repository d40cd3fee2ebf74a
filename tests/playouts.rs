//! Random playouts that build only the positions they play (agents/src/playouts.rs)
//! against the games' rules: grid games played on native boards follow, move by move, the
//! successor sets and the end of play of the game's own equations (`next-config`, `halted`,
//! `won`/`lost` reduced by the engine), and draw among distinct boards uniformly; Quoridor's
//! candidates give exactly the successor sets of the move generator of
//! tests/support/quoridor.rs, and a random move by them is uniform among those.

mod support;

use gamelang_agents::{EngineRules, Node, Opened, Pos, Rng, Rules};
use gamelang_game::{GameDriver, Side, Verdict};
use gamelang_lang::elab::Game;
use gamelang_runtime::grid::Board;
use gamelang_runtime::{Engine, TermId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use support::quoridor::{Pos as QPos, Rules as QRules, Seen};

/// The rules of `game` (a copy of `g`'s, so that `g` can still parse terms) on an engine
/// of their own.
fn rules<'g>(g: &support::Loaded, game: &'g Game) -> EngineRules<'g> {
    let program = Arc::new(g.session.program.clone());
    EngineRules::new(Engine::new(program), game).unwrap()
}

/// A position by the game's equations alone (`halted`, `next-config`, `won`/`lost`
/// reduced by `g`'s engine through the game crate's driver, as a solver sees it): the
/// winners where play is over, else the moves as shown.
fn by_equations(g: &mut support::Loaded, side: Side, c: TermId) -> Result<Vec<String>, Vec<usize>> {
    let game = g.game.clone();
    let driver = GameDriver::new(&mut g.engine, &game).unwrap();
    let index = |s: Side| if s == Side::B { 0 } else { 1 };
    if driver.halted(&mut g.engine, side, c).unwrap() {
        return Err(match driver.verdict(&mut g.engine, side, c).unwrap() {
            Verdict::Win(s) => vec![index(s)],
            Verdict::Draw => Vec::new(),
        });
    }
    let moves = driver.moves(&mut g.engine, side, c).unwrap();
    if moves.is_empty() {
        return Err(vec![index(side.opponent())]);
    }
    Ok(moves.into_iter().map(|m| g.engine.show(m)).collect())
}

/// `playouts` native random games of the grid game `g`, each replayed through the game's
/// equations: every board played is one of `next-config`'s, play is not over before the
/// end, and it ends as the equations say (with the same winner). At every position the
/// agents' `Rules::node` (native too) gives the equations' moves in the same order.
fn follow(g: &mut support::Loaded, playouts: u64) -> (usize, BTreeSet<Option<usize>>) {
    let game = g.game.clone();
    let mut rules = rules(g, &game);
    let start = rules.start().unwrap();
    let board0 = rules.engine.grid_board(start.config).unwrap();
    let start_eq = g.value("start");
    let mut plies = 0;
    let mut winners = BTreeSet::new();
    let mut opened = 0;
    for seed in 0..playouts {
        let mut trace: Vec<Board> = Vec::new();
        let mut rng = Rng::new(seed);
        let play = rules.grid_play().expect("a grid game is played natively");
        let end = play.playout(
            &board0,
            if start.to_move == Side::B { 0 } else { 1 },
            &mut |n| rng.below(n),
            1000,
            &mut |b| trace.push(b.clone()),
        );
        assert!(!end.stopped);
        let (mut p, mut c) = (start, start_eq);
        let mut k = 0;
        let over = loop {
            let eq = by_equations(g, p.to_move, c);
            let native = match rules.node(p).unwrap() {
                Node::Turn(t) => Ok(t.moves.iter().map(|m| rules.show(m.label)).collect()),
                Node::Over { winners } => Err(winners),
            };
            assert_eq!(native, eq, "seed {seed}, ply {k}: the agents' node");
            // A tree that builds only the moves it tries (`open`) gets the same moves.
            if let Opened::Candidates { candidates, .. } = rules.open(p).unwrap() {
                let mut tried: Vec<String> = candidates
                    .iter()
                    .map(|&x| {
                        let m = rules.try_candidate(p, x).unwrap().expect("a legal move");
                        rules.show(m.label)
                    })
                    .collect();
                let mut want = eq
                    .clone()
                    .expect("open gives candidates only where play goes on");
                tried.sort();
                want.sort();
                assert_eq!(tried, want, "seed {seed}, ply {k}: open's candidates");
                opened += 1;
            }
            let Ok(moves) = eq else { break eq.unwrap_err() };
            // The board played natively, or `stuck(p, b)` when the player gave up.
            let want = match trace.get(k) {
                Some(b) => format!("board(\"{}\")", b.compact()),
                None => {
                    assert_eq!(end.plies, k + 1, "seed {seed}: moves left after the end");
                    assert_eq!(moves.len(), 1, "seed {seed}: stuck natively");
                    moves[0].clone()
                }
            };
            let i = moves.iter().position(|m| *m == want);
            let i = i.unwrap_or_else(|| panic!("seed {seed}, ply {k}: {want} not in {moves:?}"));
            let Node::Turn(t) = rules.node(p).unwrap() else {
                unreachable!()
            };
            p = p.after(t.moves[i].label);
            c = g.config(&moves[i]);
            k += 1;
        };
        assert_eq!(k, end.plies, "seed {seed}: plies");
        assert_eq!(
            over,
            end.winner.into_iter().collect::<Vec<_>>(),
            "seed {seed}"
        );
        plies += end.plies;
        winners.insert(end.winner);
    }
    assert!(opened > 0, "no position opened by candidates");
    (plies, winners)
}

/// A game file, its parameters, and how many playouts to check.
type Case = (&'static str, &'static [(&'static str, u32)], u64);

#[test]
fn native_grid_playouts_follow_the_games_equations() {
    // Connect-4 (draws possible), Breakthrough (captures), Domineering (no goals: the
    // player who cannot move loses), tic-tac-toe on a grid (a full board is a draw).
    let cases: [Case; 4] = [
        (
            "examples/grid/connect4.game",
            &[("width", 5), ("height", 4)],
            60,
        ),
        (
            "examples/grid/breakthrough.game",
            &[("width", 5), ("height", 5)],
            30,
        ),
        ("examples/grid/domineering.game", &[], 40),
        ("examples/grid/tictactoe.game", &[], 60),
    ];
    for (file, set, playouts) in cases {
        let mut g = support::load(file);
        for (name, v) in set {
            g.set(name, v);
        }
        let (plies, winners) = follow(&mut g, playouts);
        assert!(plies > playouts as usize, "{file}: {plies} plies");
        // The games ended in more than one way (both players won at least once).
        assert!(
            winners.contains(&Some(0)) && winners.contains(&Some(1)),
            "{file}: {winners:?}"
        );
    }
}

#[test]
fn native_grid_playouts_draw_among_distinct_boards() {
    // Black's actions reach the board `x..` two ways (action "a" at column 1 and action
    // "b"): the set of successors holds it once, so each of the three boards must come
    // first a third of the time, not `x..` half of it.
    let g = support::load_source(
        "dup.game",
        "fmod DUP is
           protecting GRID-SYNTAX .
           ops width height : -> Nat .
           eq width = 3 .
           eq height = 1 .
           op init : -> Cond .
           eq init = no-cells .
           ops black-actions white-actions : -> Actions .
           eq black-actions = action \"a\" : open(?x, ?y) => black(?x, ?y)
                            ; action \"b\" : open(1, 1) => black(1, 1) .
           eq white-actions = action \"a\" : open(?x, ?y) => white(?x, ?y) .
           ops black-goals white-goals : -> Goals .
           eq black-goals = no-goal .
           eq white-goals = no-goal .
           op no-move-loses : -> Bool .
           eq no-move-loses = true .
         endfm
         view Dup from DRAW-GAME to GRID{DUP} is
           sort Config to Position .
           sort SetConfig to Set{Position} .
         endv
         game dup is
           instance SOLVE{Dup} .
           start start .
           first B .
         endgame",
    );
    let game = g.game.clone();
    let mut rules = rules(&g, &game);
    let start = rules.start().unwrap();
    let board0 = rules.engine.grid_board(start.config).unwrap();
    let play = rules.grid_play().expect("a grid game");
    let mut rng = Rng::new(5);
    let mut first: BTreeMap<String, u32> = BTreeMap::new();
    let n = 3000;
    for _ in 0..n {
        let mut boards = Vec::new();
        play.playout(&board0, 0, &mut |k| rng.below(k), 10, &mut |b| {
            boards.push(b.compact())
        });
        *first.entry(boards[0].clone()).or_default() += 1;
    }
    assert_eq!(first.len(), 3, "{first:?}");
    // 1000 each; the standard deviation is sqrt(3000 * 1/3 * 2/3) = 25.8: within 5 of them.
    for (b, k) in &first {
        assert!((870..=1130).contains(k), "{b}: {k} of {n}: {first:?}");
    }
}

/// Random Quoridor games on n x n with `walls` each, checking at every position that the
/// union of `try-candidate` over `candidates` is the generator's successor set, that
/// `live-candidates` is `candidates` there and none where play has halted, and that a
/// random move by them is one of its positions. Returns what the generator met and how
/// many games reached their end (within 60 plies).
fn candidates_agree(n: usize, walls: usize, games: usize, seed: u64) -> (Seen, usize) {
    let mut g = support::load("examples/quoridor.game");
    g.set("n", n);
    g.set("walls", walls);
    let q = QRules { n };
    let game = g.game.clone();
    let mut rules = rules(&g, &game);
    let mut rng = support::quoridor::Rng(seed);
    let mut agent_rng = Rng::new(seed);
    let mut seen = Seen::default();
    let start = rules.start().unwrap();
    let config_sort = Some(game.config_sort);
    let mut halted = 0;
    for game in 0..games {
        let mut pos = q.parse(&rules.show(start.config));
        let mut mover = Side::B;
        for ply in 0..60 {
            let who = if mover == Side::B { "B" } else { "R" };
            // `live-candidates`: none where play has halted (for either player, with or
            // without walls left), else `candidates`.
            let live = reduce(
                &mut g,
                &mut rules,
                &format!("live-candidates({who}, {})", q.term(&pos)),
            );
            if q.halted(&pos) {
                for (wb, wr) in [(pos.wb, pos.wr), (0, 0), (1, 1)] {
                    let end = QPos {
                        wb,
                        wr,
                        ..pos.clone()
                    };
                    for who in ["B", "R"] {
                        let t = format!("live-candidates({who}, {})", q.term(&end));
                        let live = reduce(&mut g, &mut rules, &t);
                        assert_eq!(rules.show(live), "empty", "{t}");
                    }
                }
                halted += 1;
                break;
            }
            let want = q.successors(&pos, mover, &mut seen);
            let pat = g.term_of(&q.term(&pos), config_sort);
            let c = rules.engine.build(&pat, &[]);
            let c = rules.engine.reduce(c).unwrap();
            let p = Pos {
                to_move: mover,
                config: c,
            };
            let union = reduce(
                &mut g,
                &mut rules,
                &format!("candidates({who}, {})", q.term(&pos)),
            );
            assert_eq!(live, union, "live-candidates at {}", q.term(&pos));
            let mut got = BTreeSet::new();
            for x in elements(&rules, union) {
                let x = rules.show(x);
                let t = reduce(
                    &mut g,
                    &mut rules,
                    &format!("try-candidate({who}, {}, {x})", q.term(&pos)),
                );
                let t = rules.show(t);
                if t != "empty" {
                    assert!(got.insert(q.parse(&t)), "two candidates lead to {t}");
                }
            }
            assert_eq!(got, want, "game {game}, ply {ply} at {}", q.term(&pos));
            let next = rules.random_move(&mut agent_rng, p).unwrap().unwrap();
            assert_eq!(next.to_move, mover.opponent());
            let next = q.parse(&rules.show(next.config));
            assert!(want.contains(&next), "a random move to {}", q.term(&next));
            let list: Vec<&QPos> = want.iter().collect();
            pos = list[rng.below(list.len())].clone();
            mover = mover.opponent();
        }
    }
    (seen, halted)
}

/// `text` reduced by the rules' engine.
fn reduce(g: &mut support::Loaded, rules: &mut EngineRules<'_>, text: &str) -> TermId {
    let pat = g.term(text);
    let t = rules.engine.build(&pat, &[]);
    rules.engine.reduce(t).unwrap()
}

/// The elements of a set term (`_,_` of its elements, or one element, or `empty`).
fn elements(rules: &EngineRules<'_>, set: TermId) -> Vec<TermId> {
    let (store, sig) = (rules.engine.store(), &rules.engine.program().sig);
    match store.app(set) {
        Some((op, args)) if sig.op(op).name == "_,_" => args.to_vec(),
        Some((op, _)) if sig.op(op).name == "empty" => Vec::new(),
        _ => vec![set],
    }
}

#[test]
fn quoridor_candidates_give_the_successor_sets_on_5x5() {
    let (seen, halted) = candidates_agree(5, 3, 6, 3);
    assert!(halted > 0, "no game reached its end");
    assert!(seen.walls_cutting_a_path > 0, "{seen:?}");
    // Positions where a pawn jumps, straight and diagonally (`live-candidates` by `hop`).
    assert!(
        seen.straight_jumps > 0 && seen.diagonal_jumps > 0,
        "{seen:?}"
    );
}

#[test]
fn quoridor_candidates_give_the_successor_sets_on_9x9() {
    // Two words of masks, and `live-candidates` on the default board.
    let (seen, _) = candidates_agree(9, 10, 2, 9);
    assert!(seen.straight_jumps + seen.diagonal_jumps > 0, "{seen:?}");
}

#[test]
fn a_random_quoridor_move_by_candidates_is_uniform() {
    // The start of 5 x 5: 3 pawn moves and 32 walls; 3,500 moves drawn, 100 expected of
    // each (standard deviation 9.9): every one within 5 of them.
    let mut g = support::load("examples/quoridor.game");
    g.set("n", 5);
    let q = QRules { n: 5 };
    let game = g.game.clone();
    let mut rules = rules(&g, &game);
    let start = rules.start().unwrap();
    let mut seen = Seen::default();
    let want = q.successors(&q.parse(&rules.show(start.config)), Side::B, &mut seen);
    assert_eq!(want.len(), 35);
    let mut rng = Rng::new(11);
    let mut count: BTreeMap<QPos, u32> = BTreeMap::new();
    for _ in 0..3500 {
        let next = rules.random_move(&mut rng, start).unwrap().unwrap();
        *count.entry(q.parse(&rules.show(next.config))).or_default() += 1;
    }
    assert_eq!(count.keys().cloned().collect::<BTreeSet<_>>(), want);
    for (p, k) in &count {
        assert!((50..=150).contains(k), "{}: {k}", q.term(p));
    }
}

#[test]
fn a_candidate_with_two_configurations_is_a_clear_error() {
    // `try-candidate` must give one configuration or none: a game giving two is told so,
    // with the candidate, instead of a playout drawing among them unevenly.
    let g = support::load_source(
        "two.game",
        "fmod TWO is
           protecting PLAYERS .
           protecting INT .
           sort Config .
           op c : Nat -> Config [ctor] .
           protecting SET{Config} .
           protecting SET{Nat} .
           ops halted won : Players Config -> Bool .
           op next-config : Players Config -> Set{Config} .
           op candidates : Players Config -> Set{Nat} .
           op try-candidate : Players Config Nat -> Set{Config} .
           var p : Players .
           vars n k : Nat .
           eq halted(p, c(n)) = n == 0 .
           eq won(p, c(n)) = true .
           eq next-config(p, c(n)) = c(n - 1), c(n quo 2) .
           eq candidates(p, c(n)) = 7 .
           eq try-candidate(p, c(n), k) = c(n - 1), c(n quo 2) .
         endfm
         view Two from GAME-TREE to TWO is
           sort Config to Config .
           sort SetConfig to Set{Config} .
         endv
         game two is
           instance WINS{Two} .
           start c(6) .
           first B .
         endgame",
    );
    let game = g.game.clone();
    let mut rules = rules(&g, &game);
    let start = rules.start().unwrap();
    let err = rules.playout(&mut Rng::new(1), start, 100).unwrap_err();
    // Located at the declaration of `try-candidate`.
    let gamelang_game::SolveError::Diagnosed(d) = &err else {
        panic!("not located: {err:?}")
    };
    let text = d.render(&g.session.sources, false);
    assert!(text.contains("op try-candidate"), "{text}");
    assert!(
        text.contains("`try-candidate` gave 2 configurations for the candidate `7`"),
        "{text}"
    );
}

#[test]
fn othello_random_moves_by_candidates_follow_next_config() {
    // examples/othello.game declares candidates (the empty cells) and `try-candidate`;
    // where none is legal the playout takes next-config's pass. Along random games on
    // 4 x 4 every move made is one of next-config's (passes included) and play stops
    // exactly where the equations say it is over.
    let mut g = support::load("examples/othello.game");
    let game = g.game.clone();
    let mut rules = rules(&g, &game);
    let start = rules.start().unwrap();
    let mut rng = Rng::new(5);
    let (mut moves, mut passes) = (0, 0);
    for _ in 0..40 {
        let mut p = start;
        loop {
            let config = g.term(&rules.show(p.config));
            let config = g.engine.build(&config, &[]);
            let expected = by_equations(&mut g, p.to_move, config);
            match (rules.random_move(&mut rng, p).unwrap(), expected) {
                (Some(next), Ok(successors)) => {
                    let shown = rules.show(next.config);
                    assert!(successors.contains(&shown), "{shown} not in {successors:?}");
                    passes += usize::from(next.config == p.config);
                    moves += 1;
                    p = next;
                }
                (None, Err(_)) => break,
                (got, want) => panic!(
                    "at {}: the playout gives {:?}, the equations {want:?}",
                    rules.show(p.config),
                    got.map(|q| rules.show(q.config))
                ),
            }
        }
    }
    assert!(passes > 0 && moves > 300, "{moves} moves, {passes} passes");
}

/// Othello as a grid game (examples/grid/othello.game: GRID's line capture, passes and
/// `most-pieces`), against the Othello of tests/support/othello.rs, written from the rules:
/// along native random games, the agents' moves at every position (native too) are that
/// Othello's successors (a pass where the player cannot place and the opponent can), every
/// board played is one of them, and the game ends where that Othello's does, with the
/// winner by count. Then the same games through the game's own equations (`follow`).
#[test]
fn othello_grid_playouts_follow_an_independent_othello() {
    use support::othello::{compact, start, successors, Pos as OPos};
    let mut passes = 0;
    let mut outcomes = BTreeSet::new();
    for (n, playouts) in [(4u32, 40u64), (6, 20), (8, 8)] {
        let mut g = support::load("examples/grid/othello.game");
        g.set("n", n);
        let game = g.game.clone();
        let mut rules = rules(&g, &game);
        let first = rules.start().unwrap();
        let board0 = rules.engine.grid_board(first.config).unwrap();
        assert_eq!(board0.compact(), compact(n, start(n)));
        for seed in 0..playouts {
            let mut trace: Vec<Board> = Vec::new();
            let mut rng = Rng::new(1000 + seed);
            let play = rules.grid_play().expect("a grid game is played natively");
            let end = play.playout(&board0, 0, &mut |k| rng.below(k), 1000, &mut |b| {
                trace.push(b.clone())
            });
            let (mut pos, mut black, mut at) = (start(n), true, first);
            for k in 0..=trace.len() {
                let want: BTreeSet<String> = successors(n, pos, black)
                    .into_iter()
                    .map(|q| format!("board(\"{}\")", compact(n, q)))
                    .collect();
                let Node::Turn(t) = rules.node(at).unwrap() else {
                    panic!("n {n}, seed {seed}, ply {k}: over before the rules say")
                };
                let got: BTreeSet<String> = t.moves.iter().map(|m| rules.show(m.label)).collect();
                let Some(b) = trace.get(k) else {
                    // Neither can place: the player gives up (one ply) and play is over.
                    assert!(want.is_empty(), "n {n}, seed {seed}: ended early");
                    assert_eq!(got.len(), 1, "{got:?}");
                    assert!(got.iter().all(|m| m.starts_with("stuck(")), "{got:?}");
                    break;
                };
                assert_eq!(got, want, "n {n}, seed {seed}, ply {k}");
                let words = b.words()[0];
                let next = OPos {
                    black: words.0,
                    white: words.1,
                };
                let played = format!("board(\"{}\")", compact(n, next));
                assert!(
                    want.contains(&played),
                    "n {n}, seed {seed}, ply {k}: {played}"
                );
                passes += usize::from(next == pos);
                let i = t.moves.iter().position(|m| rules.show(m.label) == played);
                at = at.after(t.moves[i.unwrap()].label);
                (pos, black) = (next, !black);
            }
            assert_eq!(end.plies, trace.len() + 1, "n {n}, seed {seed}");
            let winner = match pos.black.count_ones().cmp(&pos.white.count_ones()) {
                std::cmp::Ordering::Greater => Some(0),
                std::cmp::Ordering::Less => Some(1),
                std::cmp::Ordering::Equal => None,
            };
            assert_eq!(end.winner, winner, "n {n}, seed {seed}");
            outcomes.insert((n, winner));
        }
        // The same kind of games, move by move through the equations.
        let (plies, _) = follow(&mut g, playouts.min(6));
        assert!(plies > 0);
    }
    // Passes were met, and each side won somewhere.
    assert!(passes > 0, "no pass in any game");
    assert!(outcomes.iter().any(|o| o.1 == Some(0)) && outcomes.iter().any(|o| o.1 == Some(1)));
}

#[test]
fn a_counted_grid_game_without_line_capture_passes_and_counts_natively_as_its_equations() {
    // `most-pieces` without line capture (native play updates moves incrementally here):
    // Black lays horizontal dominoes, White single pieces, so Black often runs out of
    // moves while White still has some (Black passes), and the end is decided by the
    // count (either side can have more).
    let mut g = support::load_source(
        "counted.game",
        "fmod COUNTED is
           protecting GRID-SYNTAX .
           ops width height : -> Nat .
           eq width = 3 .
           eq height = 3 .
           op init : -> Cond .
           eq init = no-cells .
           ops black-actions white-actions : -> Actions .
           eq black-actions = action \"domino\" : open(?x, ?y) open(?x+1, ?y)
                                                => black(?x, ?y) black(?x+1, ?y) .
           eq white-actions = action \"one\" : open(?x, ?y) => white(?x, ?y) .
           ops black-goals white-goals : -> Goals .
           eq black-goals = most-pieces .
           eq white-goals = most-pieces .
           op no-move-loses : -> Bool .
           eq no-move-loses = true .
         endfm
         view Counted from DRAW-GAME to GRID{COUNTED} is
           sort Config to Position .
           sort SetConfig to Set{Position} .
         endv
         game counted is
           instance SOLVE{Counted} .
           start start .
           first B .
         endgame",
    );
    let (plies, winners) = follow(&mut g, 60);
    assert!(plies > 60, "{plies}");
    assert!(
        winners.contains(&Some(0)) && winners.contains(&Some(1)),
        "{winners:?}"
    );
}
