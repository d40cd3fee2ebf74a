//! DepQBF's answer on the encoding agrees with a brute force of the game recursion
//! (tests/common: written from the definitions, independent of the encoder and of the
//! runtime) on hand-written tiny models that aim at every corner the seed's formulas leave
//! open, and on random models; when Black moves first and wins, the decoded first move is
//! legal and winning.
//!
//! Each case names the decision it proves (see the comments in src/encode.rs).

mod common;

use common::{action, atoms, check, goals, model, occupy, Brute, Rng};
use gamelang_bddl::{Action, Atom, Coord, Model, Piece};

/// Every depth 0..=5, with Black first and Black second; returns the answers.
fn all_depths(name: &str, m: &Model) -> Vec<bool> {
    let mut out = Vec::new();
    for first in [true, false] {
        let mut m = m.clone();
        m.black_first = first;
        for d in 0..=5 {
            out.push(check(&format!("{name} (black first: {first})"), &m, d));
        }
    }
    out
}

/// Positional game on a 1-wide, 2-high board (no column bits at all).
#[test]
fn one_by_two() {
    let mut m = model(1, 2, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&["black(?x,?y) black(?x,?y+1)"]);
    m.white_goals = goals(&["white(?x,?y)"]);
    let a = all_depths("1x2", &m);
    // Black first: Black occupies, White occupies and reaches its goal: never a win.
    assert!(a[..6].iter().all(|v| !v));
    let mut m = model(2, 1, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y)"]);
    all_depths("2x1", &m);
}

/// Harary tic-tac-toe-like shapes on 2x2, with a goal on one cell for White and one on
/// several cells, so both ways of checking White's goal are used.
#[test]
fn two_by_two() {
    let mut m = model(2, 2, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y)", "black(?x,?y) black(?x,?y+1)"]);
    m.white_goals = goals(&["white(?x,?y) white(?x+1,?y+1)"]);
    let a = all_depths("2x2 lines", &m);
    assert!(a.iter().any(|&v| v) && a.iter().any(|&v| !v));
    m.white_goals = goals(&["white(?x,?y) white(?x+1,?y+1)", "white(xmax,ymax)"]);
    all_depths("2x2 lines, white corner", &m);
    // Domineering on 2x2: no goals; the player who cannot move loses.
    let mut m = model(
        2,
        2,
        vec![action(
            "v",
            "open(?x,?y) open(?x,?y+1)",
            "black(?x,?y) black(?x,?y+1)",
        )],
        vec![action(
            "h",
            "open(?x,?y) open(?x+1,?y)",
            "white(?x,?y) white(?x+1,?y)",
        )],
    );
    let a = all_depths("2x2 domineering", &m);
    // Black first wins within 2 plies (White's failed attempt to move is a ply), not 1.
    assert_eq!(&a[..3], &[false, false, true]);
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y+1)"]);
    all_depths("2x2 domineering + diagonal goal", &m);
}

/// A 3-wide, 1-high board with ground goals (Hex-like) and absolute goal coordinates.
#[test]
fn three_by_one_ground_goals() {
    let mut m = model(3, 1, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&["black(1,1) black(2,1)", "black(2,1) black(3,1)"]);
    let a = all_depths("3x1 ground", &m);
    assert!(a[3], "black takes the middle and wins at ply 3");
    m.white_goals = goals(&["white(xmin,ymin)", "white(3,1) white(2,1)"]);
    all_depths("3x1 ground, white goals", &m);
}

/// An action that is never legal (its offsets do not fit on the board), next to one that is.
#[test]
fn action_without_legal_position() {
    let mut m = model(
        2,
        2,
        vec![
            action("far", "open(?x,?y)", "black(?x+5,?y)"),
            occupy("black"),
        ],
        vec![
            occupy("white"),
            action("far", "open(?x,?y-3)", "white(?x,?y)"),
        ],
    );
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y)"]);
    all_depths("never legal", &m);
    // Only the impossible action: Black cannot move, White cannot move.
    let m = model(
        2,
        2,
        vec![action("far", "open(?x,?y)", "black(?x+5,?y)")],
        vec![action("far", "open(?x,?y-3)", "white(?x,?y)")],
    );
    let a = all_depths("nobody can move", &m);
    // Black first: Black has no move, never wins. Black second: White has no move, Black
    // wins with any depth ≥ 1 (W^i's "only care about valid moves": every universal white
    // move is invalid, the formula is vacuously true).
    assert!(a[..6].iter().all(|v| !v));
    assert_eq!(&a[6..], &[false, true, true, true, true, true]);
}

/// White has no legal move at all (its precondition needs a white piece; there is none):
/// Black wins as soon as White is to move with plies left, and the indicator variables lb
/// and P must not let the QBF say otherwise.
#[test]
fn white_without_legal_move() {
    let mut m = model(
        2,
        2,
        vec![occupy("black")],
        vec![action(
            "step",
            "white(?x,?y) open(?x+1,?y)",
            "open(?x,?y) white(?x+1,?y)",
        )],
    );
    m.white_goals = goals(&["white(?x,?y)"]);
    let a = all_depths("white stuck", &m);
    assert_eq!(&a[..6], &[false, false, true, true, true, true]);
    assert_eq!(&a[6..], &[false, true, true, true, true, true]);
    // White stuck only later: after Black fills the row White needs.
    let mut m = model(
        3,
        1,
        vec![occupy("black")],
        vec![action(
            "next-to",
            "open(?x,?y) black(?x-1,?y)",
            "white(?x,?y)",
        )],
    );
    m.black_goals = goals(&["black(1,1) black(3,1)"]);
    all_depths("white stuck later", &m);
}

/// Goals with offsets in every direction, NOT in goals.
#[test]
fn goals_with_offsets() {
    let mut m = model(3, 2, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&[
        "black(?x-1,?y) black(?x,?y+1)",
        "black(?x+1,?y-1) NOT(open(?x,?y))",
    ]);
    m.white_goals = goals(&["white(?x,?y-1) white(?x-1,?y)"]);
    all_depths("offsets", &m);
}

/// Preconditions with NOT (Connect-c's gravity), and a goal reached only by NOT.
#[test]
fn not_preconditions() {
    let drop = |p: &str| {
        vec![
            action(
                "on-top",
                "open(?x,?y) NOT(open(?x,?y+1))",
                &format!("{p}(?x,?y)"),
            ),
            action("bottom", "open(?x,ymax)", &format!("{p}(?x,ymax)")),
        ]
    };
    let mut m = model(2, 2, drop("black"), drop("white"));
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y)", "black(?x,?y) black(?x,?y+1)"]);
    m.white_goals = goals(&["white(?x,?y) white(?x+1,?y)", "white(?x,?y) white(?x,?y+1)"]);
    all_depths("gravity 2x2", &m);
    let mut m = model(3, 2, drop("black"), drop("white"));
    m.black_goals = goals(&["black(?x,?y) black(?x+1,?y)"]);
    m.white_goals = goals(&["NOT(open(xmin,ymin))"]);
    all_depths("gravity 3x2", &m);
}

/// Effects that move a piece (and capture), Breakthrough-like, with pieces in the initial
/// state; the second position of `#init` for a cell wins.
#[test]
fn moving_pieces() {
    let mut m = model(
        2,
        3,
        vec![
            action(
                "fwd",
                "black(?x,?y) open(?x,?y-1)",
                "open(?x,?y) black(?x,?y-1)",
            ),
            action(
                "cap",
                "black(?x,?y) NOT(black(?x+1,?y-1))",
                "open(?x,?y) black(?x+1,?y-1)",
            ),
        ],
        vec![
            action(
                "fwd",
                "white(?x,?y) open(?x,?y+1)",
                "open(?x,?y) white(?x,?y+1)",
            ),
            action(
                "cap",
                "white(?x,?y) NOT(white(?x-1,?y+1))",
                "open(?x,?y) white(?x-1,?y+1)",
            ),
        ],
    );
    m.init = vec![
        (Piece::Black, 1, 3),
        (Piece::White, 2, 3),
        (Piece::Black, 2, 3),
        (Piece::White, 1, 1),
        (Piece::White, 2, 1),
    ];
    m.black_goals = goals(&["black(?x,ymin)"]);
    m.white_goals = goals(&["white(?x,ymax)"]);
    all_depths("breakthrough 2x3", &m);
}

/// Duplicated atoms in preconditions, effects and goals.
#[test]
fn duplicated_atoms() {
    let mut m = model(
        2,
        2,
        vec![action(
            "occ",
            "open(?x,?y) open(?x,?y)",
            "black(?x,?y) black(?x,?y)",
        )],
        vec![action(
            "occ",
            "open(?x,?y) open(?x,?y) open(?x,?y)",
            "white(?x,?y) white(?x,?y)",
        )],
    );
    m.black_goals = goals(&["black(?x,?y) black(?x,?y) black(?x+1,?y)"]);
    m.white_goals = goals(&["white(?x,?y) white(?x,?y+1) white(?x,?y)"]);
    all_depths("duplicates", &m);
}

/// Absolute coordinates in goals, actions and initial cells; xmin/xmax/ymin/ymax; an action
/// ignoring ?y (Connect-c's occupy-bottom).
#[test]
fn absolute_coordinates() {
    let mut m = model(
        3,
        2,
        vec![
            action("corner", "open(xmax,ymax)", "black(xmax,ymax)"),
            action("bottom", "open(?x,ymax)", "black(?x,ymax)"),
            action("top", "open(?x,1) black(?x,2)", "black(?x,1)"),
        ],
        vec![
            action("any", "open(?x,?y)", "white(?x,?y)"),
            action("row1", "open(2,?y)", "white(2,?y)"),
        ],
    );
    m.init = vec![(Piece::White, 1, 1)];
    m.black_goals = goals(&["black(xmax,ymin)", "black(1,2) black(2,2)"]);
    m.white_goals = goals(&["white(xmin,ymin) white(xmin,ymax)"]);
    all_depths("absolute", &m);
}

/// White actions with different numbers of precondition cells. The seed assumes equal
/// numbers; read literally, the unused indicator P[k] of the shorter action is free and
/// Black could make White's only answer "invalid". Here: 2x1 board, Black occupies a cell,
/// White must block the other with the one-cell action, then Black is stuck.
#[test]
fn unequal_white_preconditions() {
    let mut m = model(
        2,
        1,
        vec![occupy("black")],
        vec![
            action("block", "open(?x,?y)", "white(?x,?y)"),
            action(
                "three-cells",
                "open(?x,?y) open(xmax,?y) open(xmin,?y)",
                "white(?x,?y)",
            ),
        ],
    );
    m.black_goals = goals(&["black(1,1) black(2,1)"]);
    let a = all_depths("unequal preconditions", &m);
    assert_eq!(&a[..6], &[false; 6]);
}

/// Two effect atoms on the same cell: applied in order, the last one wins (the seed's
/// conjunction RI ⇒ SC per atom would make such a move impossible). Statically (same
/// expression) and dynamically (?y meets ymax).
#[test]
fn effects_on_the_same_cell() {
    let mut m = model(
        2,
        2,
        vec![
            action("flip", "open(?x,?y)", "white(?x,?y) black(?x,?y)"),
            action("pull", "open(?x,?y)", "black(?x,?y) open(?x,ymax)"),
        ],
        vec![occupy("white")],
    );
    m.black_goals = goals(&["black(?x,ymax)", "black(?x,ymin) black(?x+1,ymin)"]);
    m.white_goals = goals(&["white(?x,?y) white(?x+1,?y)"]);
    let a = all_depths("same cell", &m);
    assert!(a[1], "flip puts a black piece: Black wins in one ply");
    // Only "pull": at the bottom row it leaves the cell open, elsewhere it puts a piece on
    // the cell and empties the bottom row's cell below.
    m.black_actions.remove(0);
    m.black_goals = goals(&["black(?x,ymin) black(?x+1,ymin)", "black(?x,ymax)"]);
    all_depths("pull", &m);
}

/// Empty goals (an empty conjunction holds everywhere), no goals, empty action lists.
#[test]
fn empty_things() {
    let mut m = model(2, 2, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = vec![Vec::new()];
    let a = all_depths("black empty goal", &m);
    assert_eq!(&a[..6], &[false, true, true, true, true, true]);
    m.black_goals = Vec::new();
    m.white_goals = vec![Vec::new(), atoms("white(?x,?y) white(?x+1,?y)")];
    let a = all_depths("white empty goal", &m);
    assert!(a.iter().all(|v| !v));
    let m = model(2, 2, Vec::new(), vec![occupy("white")]);
    let a = all_depths("no black actions", &m);
    // Black second: at depth 1, White moves and Black has not won; deeper, Black is stuck.
    assert!(a.iter().all(|v| !v));
    let m = model(2, 2, vec![occupy("black")], Vec::new());
    let a = all_depths("no white actions", &m);
    assert_eq!(&a[..6], &[false, false, true, true, true, true]);
    assert_eq!(&a[6..], &[false, true, true, true, true, true]);
    let m = model(1, 1, Vec::new(), Vec::new());
    all_depths("nothing at all", &m);
}

/// A board of one cell, where positions have no bits at all.
#[test]
fn one_cell() {
    let mut m = model(1, 1, vec![occupy("black")], vec![occupy("white")]);
    m.black_goals = goals(&["black(?x,?y)"]);
    let a = all_depths("1x1", &m);
    assert_eq!(&a[..6], &[false, true, true, true, true, true]);
}

// ---------------------------------------------------------------------------------------
// Random models
// ---------------------------------------------------------------------------------------

fn random_coord(r: &mut Rng, size: i64) -> Coord {
    match r.below(10) {
        0 => Coord::Abs(1 + r.below(size as u64) as i64),
        1 => Coord::Min,
        2 => Coord::Max,
        // Offsets up to ±2 on boards wider than 3 (positions of 3 bits wrap around).
        _ if size > 3 => Coord::Rel(r.below(5) as i64 - 2),
        _ => Coord::Rel(r.below(3) as i64 - 1),
    }
}

fn random_atom(r: &mut Rng, w: i64, h: i64, allow_not: bool) -> Atom {
    Atom {
        piece: [Piece::Open, Piece::Black, Piece::White][r.below(3) as usize],
        negated: allow_not && r.chance(25),
        x: random_coord(r, w),
        y: random_coord(r, h),
    }
}

fn random_action(r: &mut Rng, w: i64, h: i64, own: Piece) -> Action {
    let mut pre: Vec<Atom> = (0..1 + r.below(3))
        .map(|_| random_atom(r, w, h, true))
        .collect();
    // Mostly: the target is open and becomes the player's, as in real games.
    if r.chance(60) {
        pre.push(Atom {
            piece: Piece::Open,
            negated: false,
            x: Coord::Rel(0),
            y: Coord::Rel(0),
        });
    }
    let mut eff = vec![Atom {
        piece: own,
        negated: false,
        x: Coord::Rel(0),
        y: Coord::Rel(0),
    }];
    for _ in 0..r.below(3) {
        eff.push(random_atom(r, w, h, false));
    }
    if r.chance(50) {
        eff.reverse();
    }
    Action {
        name: format!("a{}", r.below(100)),
        pre,
        eff,
        captures: Default::default(),
    }
}

fn random_goals(r: &mut Rng, w: i64, h: i64, own: Piece) -> Vec<Vec<Atom>> {
    (0..r.below(3))
        .map(|_| {
            (0..1 + r.below(3))
                .map(|_| {
                    let mut a = random_atom(r, w, h, true);
                    if r.chance(60) {
                        a.piece = own;
                        a.negated = false;
                    }
                    a
                })
                .collect()
        })
        .collect()
}

fn random_model(r: &mut Rng, side: u64) -> Model {
    let (w, h) = (1 + r.below(side) as i64, 1 + r.below(side) as i64);
    let mut m = model(
        w,
        h,
        (0..r.below(3) + 1)
            .map(|_| random_action(r, w, h, Piece::Black))
            .collect(),
        (0..r.below(3) + 1)
            .map(|_| random_action(r, w, h, Piece::White))
            .collect(),
    );
    for _ in 0..r.below(3) {
        let p = [Piece::Black, Piece::White, Piece::Open][r.below(3) as usize];
        m.init.push((
            p,
            1 + r.below(w as u64) as i64,
            1 + r.below(h as u64) as i64,
        ));
    }
    m.black_goals = random_goals(r, w, h, Piece::Black);
    m.white_goals = random_goals(r, w, h, Piece::White);
    m.black_first = r.chance(60);
    m
}

/// Random small models (boards up to 3x3, up to 3 actions a player with NOT, absolute and
/// extreme coordinates, effects on several cells, random initial cells and goals) at
/// depths 0..=4: the QBF and the brute force agree.
#[test]
fn random_models() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut wins, mut losses) = (0, 0);
    for i in 0..150 {
        let m = random_model(&mut r, 3);
        let mut brute = Brute::new(&m);
        let depths: Vec<u32> = (0..=4).collect();
        for &d in &depths {
            let v = check(&format!("random model {i}: {m:?}"), &m, d);
            assert_eq!(v, brute.answer(d));
            if v {
                wins += 1;
            } else {
                losses += 1;
            }
        }
    }
    // The sample is not degenerate.
    assert!(wins > 50 && losses > 50, "{wins} wins, {losses} losses");
}

/// The random models of `random_models` where a player who cannot move does not lose (a
/// `.game` grid game's `eq no-move-loses = false .`: White unable to move is a draw, no win
/// for Black): the encoding's witness of a legal White move, against the brute force. Some
/// models must answer otherwise than by BDDL's rule, or the rule is never put to the test.
#[test]
fn random_models_where_a_stuck_player_does_not_lose() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut wins, mut losses, mut differ) = (0, 0, 0);
    for i in 0..150 {
        let mut m = random_model(&mut r, 3);
        m.stuck_loses = false;
        let mut bddl_rule = m.clone();
        bddl_rule.stuck_loses = true;
        let mut brute = Brute::new(&bddl_rule);
        for d in 0..=4 {
            let v = check(&format!("random model {i} with draws: {m:?}"), &m, d);
            if v != brute.answer(d) {
                differ += 1;
            }
            if v {
                wins += 1;
            } else {
                losses += 1;
            }
        }
    }
    assert!(
        wins > 10 && losses > 50 && differ > 50,
        "{wins} wins, {losses} losses, {differ} differ"
    );
}

/// Random models on boards up to 6x6 (3-bit positions, offsets up to ±2) at depths 0..=3.
#[test]
fn random_larger_boards() {
    let mut r = Rng(0x2545_f491_4f6c_dd1d);
    let (mut wins, mut losses) = (0, 0);
    for i in 0..60 {
        let m = random_model(&mut r, 6);
        for d in 0..=3 {
            if check(&format!("random larger model {i}: {m:?}"), &m, d) {
                wins += 1;
            } else {
                losses += 1;
            }
        }
    }
    assert!(wins > 20 && losses > 20, "{wins} wins, {losses} losses");
}
