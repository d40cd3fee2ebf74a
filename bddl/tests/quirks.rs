//! The irregularities of the corpus and of the paper's listings, each in a small
//! hand-written file, with the model it must give checked field by field.

mod common;

use common::{model, parse_texts, OCCUPY, TIC};
use gamelang_bddl::{Action, Atom, Coord, Model, Piece};

fn at(piece: Piece, x: Coord, y: Coord) -> Atom {
    Atom {
        piece,
        negated: false,
        x,
        y,
    }
}

fn not(a: Atom) -> Atom {
    Atom { negated: true, ..a }
}

use Coord::{Abs, Max, Min, Rel};
use Piece::{Black, Open, White};

fn here(p: Piece) -> Atom {
    at(p, Rel(0), Rel(0))
}

fn occupy(p: Piece) -> Action {
    Action {
        name: "occupy".into(),
        pre: vec![here(Open)],
        eff: vec![here(p)],
        captures: Default::default(),
    }
}

#[test]
fn the_plain_files_give_the_plain_model() {
    let m = model(OCCUPY, TIC);
    assert_eq!(
        m,
        Model {
            width: 3,
            height: 3,
            init: vec![],
            black_actions: vec![occupy(Black)],
            white_actions: vec![occupy(White)],
            black_goals: vec![vec![
                here(Black),
                at(Black, Rel(1), Rel(0)),
                at(Black, Rel(2), Rel(0))
            ]],
            white_goals: vec![vec![
                here(White),
                at(White, Rel(0), Rel(1)),
                at(White, Rel(0), Rel(2))
            ]],
            depth: 9,
            black_first: true,
            stuck_loses: true,
        }
    );
}

#[test]
fn extra_parentheses_around_not_are_grouping() {
    // connect-c's `occupy`.
    let domain = "#blackactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y) (NOT(open(?x,?y+1))))\n:effect (black(?x,?y))\n#whiteactions\n";
    let m = model(domain, TIC);
    assert_eq!(
        m.black_actions,
        [Action {
            name: "occupy".into(),
            pre: vec![here(Open), not(at(Open, Rel(0), Rel(1)))],
            eff: vec![here(Black)],
            captures: Default::default(),
        }]
    );
    assert!(m.white_actions.is_empty());
}

#[test]
fn duplicated_atoms_are_kept_and_actions_may_ignore_y() {
    // connect-c's white `occupy-bottom` and evader_pursuer_dual's `stay`.
    let domain = "#blackactions\n#whiteactions\n:action occupy-bottom\n:parameters (?x, ?y)\n:precondition (open(?x,ymax) open(?x,ymax))\n:effect (white(?x,ymax))\n:action stay\n:parameters (?x, ?y)\n:precondition (white(?x,?y) white(?x,?y) white(?x,?y))\n:effect (white(?x,?y))\n";
    let m = model(domain, TIC);
    assert!(m.black_actions.is_empty());
    assert_eq!(
        m.white_actions,
        [
            Action {
                name: "occupy-bottom".into(),
                pre: vec![at(Open, Rel(0), Max); 2],
                eff: vec![at(White, Rel(0), Max)],
                captures: Default::default(),
            },
            Action {
                name: "stay".into(),
                pre: vec![here(White); 3],
                eff: vec![here(White)],
                captures: Default::default(),
            }
        ]
    );
}

#[test]
fn comments_blank_lines_and_trailing_spaces_are_ignored() {
    let domain = "%===========\n#blackactions\n%action 1\n:action occupy   \n:parameters (?x, ?y)\n\n:precondition (open(?x,?y))  % where\n:effect (black(?x,?y))\n%-------\n#whiteactions\n%action 1\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (white(?x,?y))\n%===\n";
    let problem = "#boardsize\n3 3 \n#init\n#depth\n 3\n#blackgoal\n%each line represents a shape with one orientation\nblack(?x,?y) black(?x,?y-1)\nblack(1,1) black(2,1) \n\n%another comment\nblack(?x,?y) black(?x-1,?y)\n#whitegoal\nwhite(?x,?y) white(?x,?y-1)\n\n\n\n\n\n\n\n";
    let m = model(domain, problem);
    assert_eq!(m, {
        let mut plain = model(OCCUPY, TIC);
        plain.depth = 3;
        plain.black_goals = vec![
            vec![here(Black), at(Black, Rel(0), Rel(-1))],
            vec![at(Black, Abs(1), Abs(1)), at(Black, Abs(2), Abs(1))],
            vec![here(Black), at(Black, Rel(-1), Rel(0))],
        ];
        plain.white_goals = vec![vec![here(White), at(White, Rel(0), Rel(-1))]];
        plain
    });
}

#[test]
fn false_empty_and_absent_sections() {
    // Domineering: `False` for Black, an empty #whitegoal, an empty #init.
    let m = model(
        OCCUPY,
        "#boardsize\n2 2\n#init\n#depth\n2\n#blackgoal\nFalse\n#whitegoal\n",
    );
    assert!(m.black_goals.is_empty() && m.white_goals.is_empty() && m.init.is_empty());
    // An empty #blackgoal is False too; #init and #whitegoal may be left out.
    let m = model(OCCUPY, "#depth\n2\n#blackgoal\n#boardsize\n2 2\n");
    assert!(m.black_goals.is_empty() && m.white_goals.is_empty() && m.init.is_empty());
    assert!(m.black_first);
    // `False` next to real goals adds nothing.
    let m = model(
        OCCUPY,
        "#boardsize\n2 2\n#depth\n2\n#blackgoal\nFalse\nblack(1,1)\n",
    );
    assert_eq!(m.black_goals, [vec![at(Black, Abs(1), Abs(1))]]);
}

#[test]
fn init_turn_and_constants() {
    let problem = "#boardsize\n8 8\n#init\nwhite(8,1) black(2,3)\n#depth\n7\n#blackgoal\nblack(xmin,ymin)\n#whitegoal\n#blackturn\nsecond\n";
    let m = model(OCCUPY, problem);
    assert_eq!((m.width, m.height, m.depth), (8, 8, 7));
    assert_eq!(m.init, [(White, 8, 1), (Black, 2, 3)]);
    assert_eq!(m.black_goals, [vec![at(Black, Min, Min)]]);
    assert!(m.white_goals.is_empty());
    assert!(!m.black_first);
    let m = model(OCCUPY, &problem.replace("second", "first"));
    assert!(m.black_first);
    // A board that is not square: columns first.
    let m = model(
        OCCUPY,
        "#boardsize\n5 4\n#depth\n1\n#blackgoal\nblack(5,4)\n",
    );
    assert_eq!((m.width, m.height), (5, 4));
}

/// The paper's own spellings (Listings 4-6, 10, 14): `#blackgoals`, parenthesised goals and
/// init (over two lines), atoms without spaces between them, a condition on the line after
/// `:precondition` or spread over lines, `#boardsize 5 4` on one line.
#[test]
fn the_papers_listings() {
    let domain = "#blackactions\n:action occupyOnTop\n:parameters (?x,?y)\n:precondition\n  (open(?x,?y)\n  NOT(open(?x,?y+1)))\n:effect (black(?x,?y))\n:action occupyBottom\n:parameters (?x,?y)\n:precondition\n   (open(?x,ymax))\n:effect\n  (black(?x,ymax))\n#whiteactions\n:action occupy\n:parameters (?x,?y)\n:precondition (open(?x,?y))\n:effect (white(?x,?y))\n";
    let problem = "#boardsize 5 4\n#init\n(black(1,3)\nwhite(2,4))\n#depth\n5\n#blackgoals\n(black(?x,?y)black(?x,?y+1)black(?x,?y+2))\n(black(?x,?y)black(?x+1,?y)black(?x+2,?y))\n#whitegoals\n(white(?x,?y)white(?x,?y+1)white(?x,?y+2))\n";
    let m = model(domain, problem);
    assert_eq!((m.width, m.height, m.depth), (5, 4, 5));
    assert_eq!(m.init, [(Black, 1, 3), (White, 2, 4)]);
    assert_eq!(
        m.black_actions,
        [
            Action {
                name: "occupyOnTop".into(),
                pre: vec![here(Open), not(at(Open, Rel(0), Rel(1)))],
                eff: vec![here(Black)],
                captures: Default::default(),
            },
            Action {
                name: "occupyBottom".into(),
                pre: vec![at(Open, Rel(0), Max)],
                eff: vec![at(Black, Rel(0), Max)],
                captures: Default::default(),
            }
        ]
    );
    assert_eq!(
        m.black_goals,
        [
            vec![
                here(Black),
                at(Black, Rel(0), Rel(1)),
                at(Black, Rel(0), Rel(2))
            ],
            vec![
                here(Black),
                at(Black, Rel(1), Rel(0)),
                at(Black, Rel(2), Rel(0))
            ],
        ]
    );
    assert_eq!(m.white_goals.len(), 1);
}

#[test]
fn spaces_inside_atoms_and_coordinates_are_allowed() {
    let domain = "#blackactions\n:action a\n:parameters ( ?x , ?y )\n:precondition ( open( ?x + 1 , ?y - 2 )  NOT (black(xmax, 3)) )\n:effect (black(?x+1,?y-2))\n#whiteactions\n";
    let m = model(domain, TIC);
    assert_eq!(
        m.black_actions[0].pre,
        [at(Open, Rel(1), Rel(-2)), not(at(Black, Max, Abs(3)))]
    );
}

#[test]
fn explicit_empty_conditions_are_kept() {
    // The paper's grammar allows `()`: a pass move, and a goal that always holds (which
    // Definition 9 refuses as a goal: it holds in the initial state).
    let domain = "#blackactions\n:action pass\n:parameters (?x, ?y)\n:precondition ()\n:effect ()\n#whiteactions\n";
    let m = model(
        domain,
        "#boardsize\n2 2\n#depth\n1\n#blackgoal\nblack(1,1)\n",
    );
    assert_eq!(
        m.black_actions,
        [Action {
            name: "pass".into(),
            pre: vec![],
            eff: vec![],
            captures: Default::default(),
        }]
    );
    // Written back, they read the same.
    assert_eq!(model(&m.domain_text(), &m.problem_text()), m);
    let (sources, result) = parse_texts(domain, "#boardsize\n2 2\n#depth\n1\n#blackgoal\n()\n");
    let errors = result.expect_err("a goal that always holds is refused");
    let text = gamelang_lang::diag::render_all(&errors, &sources, false);
    assert!(
        text.contains("Black's goal already holds in the initial position")
            && text.contains("problem.ig:6:1"),
        "{text}"
    );
}

#[test]
fn a_goal_holding_in_the_initial_state_is_refused() {
    // Definition 9: the initial state is won by neither player (White's goal here).
    let (sources, result) = parse_texts(
        OCCUPY,
        "#boardsize\n2 2\n#init\n(white(1,1) white(2,1))\n#depth\n3\n#blackgoal\nblack(?x,?y) black(?x+1,?y)\n#whitegoal\nwhite(?x,?y) white(?x+1,?y)\n",
    );
    let errors = result.expect_err("refused");
    let text = gamelang_lang::diag::render_all(&errors, &sources, false);
    assert!(
        text.contains("White's goal already holds in the initial position")
            && text.contains("problem.ig:10:1")
            && text.contains("Definition 9"),
        "{text}"
    );
}

#[test]
fn large_offsets() {
    let domain = "#blackactions\n:action jump\n:parameters (?x, ?y)\n:precondition (black(?x,?y) open(?x+25,?y-30))\n:effect (open(?x,?y) black(?x+25,?y-30))\n#whiteactions\n";
    let m = model(domain, TIC);
    assert_eq!(m.black_actions[0].pre[1], at(Open, Rel(25), Rel(-30)));
}
