//! `Model::to_game`: the gamelang translation's shape, the cases GRID-SYNTAX cannot write
//! directly (empty conditions, offsets beyond ±20), names, and the answers it gives.

mod common;

use common::{model, OCCUPY, TIC};
use gamelang_bddl::{Action, Atom, Coord, Model, Piece};
use gamelang_game::solve_within;
use gamelang_lang::diag::render_all;
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::sync::Arc;

/// Load the translation; `(session, game index)`.
fn load(m: &Model, name: &str) -> Session {
    let mut session = Session::new().expect("the standard library loads");
    let text = m.to_game(name);
    if let Err(e) = session.load_source(&format!("{name}.game"), &text) {
        panic!(
            "`{name}`: the translation does not load:\n{}\n{text}",
            render_all(&e, &session.sources, false)
        );
    }
    assert_eq!(session.games.len(), 1);
    session
}

/// Can the player to move win within `plies`?
fn wins_within(m: &Model, plies: u64) -> bool {
    let session = load(m, "test");
    let game = session.games[0].clone();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    match solve_within(&mut engine, &game, &game.start, &game.first, plies) {
        Ok(b) => b.wins,
        Err(e) => panic!(
            "{}",
            gamelang_game::diagnose(&engine, &e).render(&session.sources, false)
        ),
    }
}

#[test]
fn the_shape_of_the_translation() {
    let m = model(OCCUPY, TIC);
    let text = m.to_game("bddl-3x3-9-tic");
    assert!(
        text.starts_with("--- bddl-3x3-9-tic: a BDDL game"),
        "{text}"
    );
    assert!(
        text.contains("`gamelang bddl convert DOMAIN PROBLEM`"),
        "{text}"
    );
    for line in [
        "fmod BDDL-3X3-9-TIC is",
        "  protecting GRID-SYNTAX .",
        "  eq width = 3 .",
        "  eq height = 3 .",
        "  eq init = no-cells .",
        "      action \"occupy\" : open(?x, ?y) => black(?x, ?y) .",
        "      black(?x, ?y) black(?x+1, ?y) black(?x+2, ?y) .",
        "  eq no-move-loses = true .",
        "  op depth : -> Nat .",
        "  eq depth = 9 .",
        "view BDDL-3X3-9-TIC-VIEW from DRAW-GAME to GRID{BDDL-3X3-9-TIC} is",
        "  sort Config to Position .",
        "  sort SetConfig to Set{Position} .",
        "game bddl-3x3-9-tic is",
        "  instance SOLVE{BDDL-3X3-9-TIC-VIEW} .",
        "  start start .",
        "  first B .",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    load(&m, "bddl-3x3-9-tic");
    // White first, initial cells, no goals, no actions.
    let problem = "#boardsize\n4 2\n#init\nblack(1,2) white(4,1)\n#depth\n3\n#blackgoal\nFalse\n#whitegoal\n#blackturn\nsecond\n";
    let m = model("#blackactions\n#whiteactions\n", problem);
    let text = m.to_game("g");
    for line in [
        "  eq init = black(1, 2) white(4, 1) .",
        "  eq black-actions = no-actions .",
        "  eq white-actions = no-actions .",
        "  eq black-goals = no-goal .",
        "  eq white-goals = no-goal .",
        "  first R .",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    load(&m, "g");
}

#[test]
fn long_lists_are_grouped_and_load() {
    // 30 goals and 9 actions: written in nested groups of four (see write.rs).
    let goals: String = (1..=30)
        .map(|i| format!("black({i},1) black({i},2)\n"))
        .collect();
    let actions: String = (1..=9)
        .map(|i| format!(":action a{i}\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (black(?x,?y))\n"))
        .collect();
    let m = model(
        &format!("#blackactions\n{actions}#whiteactions\n"),
        &format!("#boardsize\n30 2\n#depth\n1\n#blackgoal\n{goals}"),
    );
    let text = m.to_game("long");
    assert!(text.contains("(  (black(1, 1) black(1, 2))"), "{text}");
    assert!(!wins_within(&m, 1), "one stone is not a column of two");
}

#[test]
fn empty_conditions_are_written_as_the_same_game() {
    // Black can only pass (an empty precondition and effect); White cannot move, so Black
    // wins at the second ply, when White fails to move.
    let pass = "#blackactions\n:action pass\n:parameters (?x, ?y)\n:precondition ()\n:effect ()\n#whiteactions\n";
    let m = model(pass, "#boardsize\n2 1\n#depth\n2\n#blackgoal\n");
    assert!(m
        .to_game("pass")
        .contains("action \"pass\" : no-cells => no-cells"));
    assert!(!wins_within(&m, 1));
    assert!(wins_within(&m, 2));
    // An empty effect after a real precondition: Black may pass only next to a black cell.
    let m = model(
        &pass.replace(":precondition ()", ":precondition (black(?x+1,?y))"),
        "#boardsize\n2 1\n#depth\n2\n#blackgoal\n",
    );
    assert!(
        !wins_within(&m, 2),
        "no black cell, no pass: Black cannot move and loses"
    );
    let mut with_cell = m.clone();
    with_cell.init = vec![(Piece::Black, 2, 1)];
    assert!(wins_within(&with_cell, 2));
    // A goal `()` always holds: Black wins with any first move. (The reader refuses it as
    // a problem's goal, Definition 9; the model is built directly to test the translation.)
    let m = model(OCCUPY, "#boardsize\n2 2\n#depth\n1\n#blackgoal\nFalse\n");
    assert!(!wins_within(&m, 1));
    let mut always = m.clone();
    always.black_goals = vec![vec![]];
    assert!(wins_within(&always, 1));
}

#[test]
fn offsets_beyond_twenty_are_declared() {
    let domain = "#blackactions\n:action jump\n:parameters (?x, ?y)\n:precondition (black(?x,?y) open(?x+25,?y))\n:effect (open(?x,?y) black(?x+25,?y))\n:action back\n:parameters (?x, ?y)\n:precondition (black(?x,?y) open(?x-21,?y+30))\n:effect (open(?x,?y) black(?x-21,?y+30))\n#whiteactions\n";
    let problem = "#boardsize\n30 1\n#init\nblack(1,1)\n#depth\n1\n#blackgoal\nblack(26,1)\n";
    let m = model(domain, problem);
    let text = m.to_game("jump");
    for decl in [
        "  op ?x+25 : -> XPos [ctor] .",
        "  op ?x-21 : -> XPos [ctor] .",
        "  op ?y+30 : -> YPos [ctor] .",
    ] {
        assert!(
            text.lines().any(|l| l == decl),
            "missing {decl:?} in\n{text}"
        );
    }
    assert!(
        !text.contains("op ?x+20"),
        "GRID-SYNTAX declares up to 20 itself"
    );
    assert!(wins_within(&m, 1));
}

#[test]
fn names_are_made_safe() {
    let m = model(OCCUPY, TIC);
    // Every module and theory of the standard library, as a game name.
    for (_, source) in gamelang_stdlib::FILES {
        for line in source.lines() {
            let Some(rest) = line
                .strip_prefix("fmod ")
                .or_else(|| line.strip_prefix("fth "))
            else {
                continue;
            };
            let module = rest.split(['{', ' ']).next().unwrap_or_default();
            load(&m, &module.to_lowercase());
        }
    }
    for name in [
        "3x3",
        "tic tac toe",
        "",
        "a\"b",
        "--",
        "ünïcode",
        "is",
        "endgame",
    ] {
        load(&m, name);
    }
    // An action name that is not a BDDL word (a model built from a gamelang game).
    let mut odd = m.clone();
    odd.black_actions = vec![Action {
        name: "put \"x\" \\ here".into(),
        pre: vec![Atom {
            piece: Piece::Open,
            negated: false,
            x: Coord::Rel(0),
            y: Coord::Rel(0),
        }],
        eff: vec![Atom {
            piece: Piece::Black,
            negated: false,
            x: Coord::Rel(0),
            y: Coord::Rel(0),
        }],
        captures: Default::default(),
    }];
    load(&odd, "odd");
    assert!(odd.domain_text().contains(":action put--x----here\n"));
    let again = model(&odd.domain_text(), &odd.problem_text());
    assert_eq!(again.black_actions[0].name, "put--x----here");
}
