//! Grid games (stdlib/grid.game: GRID-SYNTAX, GRID{X}; seed 001's Definitions 4-10) against
//! an independent brute force written here from the seed's definitions: its own boards,
//! implicit bounds (Definition 4), conditions (Definition 6), transitions (Definition 7),
//! goals (Definition 8) and bounded wins (Definition 10, for either player and either
//! player to move), never gamelang_runtime::grid.
//!
//! Every game is compared on every position reached within a few plies of its start (with
//! either player to move first), each asked with both players to move: the moves, whether
//! play has halted, "can B / R force a win within d plies" for every d up to a bound
//! (`b-within` / `r-within` of SOLVE, what `gamelang solve --max-depth d` asks), and for the
//! games whose play is bounded, who wins (`outcome`).
//!
//! The games: tic-tac-toe (with either rule for a player who cannot move), the corpus's
//! tic shape (negative offsets), Domineering 3x3 and 2x4 (`no-goal`), Breakthrough 2x4 and
//! 3x3, Connect-3 with gravity, and games written for the corpus's quirks: duplicated atoms
//! in preconditions, actions that ignore ?x or ?y, effects that move a piece off its cell or
//! name one cell twice, absolute goals, a goal with a NOT that the opponent can make hold.
//! Then the stuck rule and errors on their own, and the examples in examples/grid/.

use gamelang_game::search::{BoundedSearch, Leaf};
use gamelang_game::{EngineRules, GameDriver, Side, Verdict};
use gamelang_runtime::TermId;
use std::collections::HashMap;

mod support;
use support::{load, Loaded};

/// The brute force: seed 001's semantics, from the definitions.
mod bf {
    use std::collections::{BTreeSet, HashMap};

    pub const OPEN: u8 = 0;
    pub const BLACK: u8 = 1;
    pub const WHITE: u8 = 2;
    /// Players: Black (B) and White (R).
    pub const B: usize = 0;
    pub const W: usize = 1;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Coord {
        Rel(i64),
        Abs(i64),
        Min,
        Max,
    }

    #[derive(Clone, Copy, Debug)]
    pub struct Atom {
        pub piece: u8,
        pub negated: bool,
        pub x: Coord,
        pub y: Coord,
    }

    pub type Cond = Vec<Atom>;

    /// Read a condition written as in BDDL or GRID-SYNTAX: `black(?x, ?y) NOT(open(?x+1, ymax))`.
    pub fn parse_cond(text: &str) -> Cond {
        let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let mut rest = s.as_str();
        let mut out = Vec::new();
        while !rest.is_empty() {
            let (a, r) = parse_atom(rest);
            out.push(a);
            rest = r;
        }
        out
    }

    fn parse_atom(s: &str) -> (Atom, &str) {
        if let Some(r) = s.strip_prefix("NOT(") {
            let (mut a, r) = parse_atom(r);
            a.negated = !a.negated;
            return (a, r.strip_prefix(')').expect("NOT(...) closes"));
        }
        let open = s.find('(').expect("an atom");
        let piece = match &s[..open] {
            "black" => BLACK,
            "white" => WHITE,
            "open" => OPEN,
            p => panic!("not a predicate: {p}"),
        };
        let close = open + s[open..].find(')').expect("an atom closes");
        let (e1, e2) = s[open + 1..close].split_once(',').expect("two coordinates");
        let atom = Atom {
            piece,
            negated: false,
            x: coord(e1, 'x'),
            y: coord(e2, 'y'),
        };
        (atom, &s[close + 1..])
    }

    fn coord(e: &str, axis: char) -> Coord {
        let var = format!("?{axis}");
        if e == var {
            Coord::Rel(0)
        } else if let Some(k) = e.strip_prefix(&var) {
            Coord::Rel(k.parse().expect("an offset"))
        } else if e == format!("{axis}min") {
            Coord::Min
        } else if e == format!("{axis}max") {
            Coord::Max
        } else {
            Coord::Abs(e.parse().expect("a coordinate"))
        }
    }

    pub struct Action {
        pub pre: Cond,
        pub eff: Cond,
    }

    /// A game instance: board size, each player's actions and goals, and what happens to a
    /// player who cannot move.
    pub struct Rules {
        pub w: i64,
        pub h: i64,
        pub actions: [Vec<Action>; 2],
        pub goals: [Vec<Cond>; 2],
        pub no_move_loses: bool,
    }

    /// Cells row by row from the top left (x is the column, y the row, both from 1).
    pub type Board = Vec<u8>;

    pub fn parse_board(text: &str) -> (i64, i64, Board) {
        let rows: Vec<&str> = text.split('/').collect();
        let w = rows[0].len() as i64;
        let mut b = Vec::new();
        for r in &rows {
            assert_eq!(r.len() as i64, w, "rows of {text}");
            b.extend(r.chars().map(|c| match c {
                'x' => BLACK,
                'o' => WHITE,
                '.' => OPEN,
                _ => panic!("cell {c}"),
            }));
        }
        (w, rows.len() as i64, b)
    }

    impl Rules {
        pub fn show(&self, b: &Board) -> String {
            let rows: Vec<String> = b
                .chunks(self.w as usize)
                .map(|r| {
                    r.iter()
                        .map(|&c| match c {
                            BLACK => 'x',
                            WHITE => 'o',
                            _ => '.',
                        })
                        .collect()
                })
                .collect();
            rows.join("/")
        }

        /// Definition 4: BD(C) is the intersection of BD(c) = [1 + l_x, m - u_x] x
        /// [1 + l_y, n - u_y] over the sub-conditions c of C (the whole board for an empty C).
        fn bd(&self, cond: &[Atom]) -> (i64, i64, i64, i64) {
            let (mut x0, mut x1, mut y0, mut y1) = (1, self.w, 1, self.h);
            for a in cond {
                let (lx, ux) = match a.x {
                    Coord::Rel(k) if k < 0 => (-k, 0),
                    Coord::Rel(k) => (0, k),
                    _ => (0, 0),
                };
                let (ly, uy) = match a.y {
                    Coord::Rel(k) if k < 0 => (-k, 0),
                    Coord::Rel(k) => (0, k),
                    _ => (0, 0),
                };
                x0 = x0.max(1 + lx);
                x1 = x1.min(self.w - ux);
                y0 = y0.max(1 + ly);
                y1 = y1.min(self.h - uy);
            }
            (x0, x1, y0, y1)
        }

        /// e[i] of Definition 6: ?x / i, xmin / 1, xmax / m.
        fn at(c: Coord, i: i64, max: i64) -> i64 {
            match c {
                Coord::Rel(k) => i + k,
                Coord::Abs(v) => v,
                Coord::Min => 1,
                Coord::Max => max,
            }
        }

        fn index(&self, a: &Atom, i: i64, j: i64) -> usize {
            let (x, y) = (Self::at(a.x, i, self.w), Self::at(a.y, j, self.h));
            assert!(
                (1..=self.w).contains(&x) && (1..=self.h).contains(&y),
                "{a:?} at ({i}, {j}) is off the board"
            );
            ((y - 1) * self.w + (x - 1)) as usize
        }

        /// Definition 6: s, (i, j) |= C.
        fn sat(&self, b: &Board, cond: &[Atom], i: i64, j: i64) -> bool {
            cond.iter()
                .all(|a| (b[self.index(a, i, j)] == a.piece) != a.negated)
        }

        /// Definition 7: the states player p's actions lead to (a set: sorted, no repeats).
        /// The effect's atoms are made true in the order written; all other cells stay.
        pub fn moves(&self, b: &Board, p: usize) -> Vec<Board> {
            let mut out = BTreeSet::new();
            for a in &self.actions[p] {
                let (px0, px1, py0, py1) = self.bd(&a.pre);
                let (ex0, ex1, ey0, ey1) = self.bd(&a.eff);
                // I_a = BD(pre(a)) ∩ BD(eff(a)).
                for i in px0.max(ex0)..=px1.min(ex1) {
                    for j in py0.max(ey0)..=py1.min(ey1) {
                        if self.sat(b, &a.pre, i, j) {
                            let mut next = b.clone();
                            for e in &a.eff {
                                assert!(!e.negated);
                                next[self.index(e, i, j)] = e.piece;
                            }
                            out.insert(next);
                        }
                    }
                }
            }
            out.into_iter().collect()
        }

        /// Definition 8: s |= G_p.
        pub fn won(&self, b: &Board, p: usize) -> bool {
            self.goals[p].iter().any(|g| {
                let (x0, x1, y0, y1) = self.bd(g);
                (x0..=x1).any(|i| (y0..=y1).any(|j| self.sat(b, g, i, j)))
            })
        }

        /// Definition 10, generalised to either player `who` and either player to move:
        /// can `who` force a win within d plies from `b` with `turn` to move? The mover's
        /// goal is checked after each of its moves; a player who cannot move loses (when
        /// `no_move_loses`; otherwise the game is a draw, which is no win).
        pub fn within(
            &self,
            who: usize,
            b: &Board,
            turn: usize,
            d: u32,
            memo: &mut HashMap<(Board, usize, usize, u32), bool>,
        ) -> bool {
            if d == 0 {
                return false;
            }
            let key = (b.clone(), who, turn, d);
            if let Some(&v) = memo.get(&key) {
                return v;
            }
            let moves = self.moves(b, turn);
            let v = if turn == who {
                moves
                    .iter()
                    .any(|m| self.won(m, turn) || self.within(who, m, 1 - turn, d - 1, memo))
            } else if moves.is_empty() {
                self.no_move_loses
            } else {
                moves
                    .iter()
                    .all(|m| !self.won(m, turn) && self.within(who, m, 1 - turn, d - 1, memo))
            };
            memo.insert(key, v);
            v
        }

        /// Has play halted at `b` with `turn` to move: did the player who has just moved
        /// reach a goal?
        pub fn halted(&self, b: &Board, turn: usize) -> bool {
            self.won(b, 1 - turn)
        }

        /// [`Rules::within`] at any position: at a halted one, the player who has just moved
        /// has already won (whatever d).
        pub fn within_at(
            &self,
            who: usize,
            b: &Board,
            turn: usize,
            d: u32,
            memo: &mut HashMap<(Board, usize, usize, u32), bool>,
        ) -> bool {
            if self.halted(b, turn) {
                return who == 1 - turn;
            }
            self.within(who, b, turn, d, memo)
        }

        /// The result under best play when play is bounded: 1 Black wins, -1 White wins, 0
        /// a draw.
        pub fn value(&self, b: &Board, turn: usize, memo: &mut HashMap<(Board, usize), i8>) -> i8 {
            if self.halted(b, turn) {
                return if turn == W { 1 } else { -1 };
            }
            if let Some(&v) = memo.get(&(b.clone(), turn)) {
                return v;
            }
            let sign = if turn == B { 1 } else { -1 };
            let moves = self.moves(b, turn);
            let v = if moves.is_empty() {
                if self.no_move_loses {
                    -sign
                } else {
                    0
                }
            } else {
                moves
                    .iter()
                    .map(|m| {
                        if self.won(m, turn) {
                            sign
                        } else {
                            self.value(m, 1 - turn, memo)
                        }
                    })
                    .max_by_key(|v| v * sign)
                    .unwrap()
            };
            memo.insert((b.clone(), turn), v);
            v
        }

        /// The boards reached from `start` within `plies` plies, either player moving first
        /// (play stops at a won position).
        pub fn reachable(&self, start: &Board, plies: usize) -> BTreeSet<Board> {
            let mut seen = BTreeSet::from([start.clone()]);
            let mut frontier = BTreeSet::from([(start.clone(), B), (start.clone(), W)]);
            for _ in 0..plies {
                let mut next = BTreeSet::new();
                for (b, t) in &frontier {
                    for m in self.moves(b, *t) {
                        if !self.won(&m, *t) {
                            next.insert((m.clone(), 1 - *t));
                        }
                        seen.insert(m);
                    }
                }
                frontier = next;
            }
            seen
        }
    }
}

use bf::{Board, Rules};

type Act = (&'static str, &'static str, &'static str);

/// A grid game: what the brute force reads, and what the gamelang source says.
struct Spec {
    width: i64,
    height: i64,
    /// The start, row by row (`x` black, `o` white, `.` open).
    start: String,
    /// The `init` of the source (by default, the cells of `start`).
    init: Option<String>,
    black: Vec<Act>,
    white: Vec<Act>,
    black_goals: Vec<&'static str>,
    white_goals: Vec<&'static str>,
    no_move_loses: bool,
}

impl Spec {
    fn rules(&self) -> Rules {
        let acts = |v: &[Act]| {
            v.iter()
                .map(|(_, pre, eff)| bf::Action {
                    pre: bf::parse_cond(pre),
                    eff: bf::parse_cond(eff),
                })
                .collect()
        };
        let goals = |v: &[&str]| v.iter().map(|g| bf::parse_cond(g)).collect();
        Rules {
            w: self.width,
            h: self.height,
            actions: [acts(&self.black), acts(&self.white)],
            goals: [goals(&self.black_goals), goals(&self.white_goals)],
            no_move_loses: self.no_move_loses,
        }
    }

    fn start_board(&self) -> Board {
        let (w, h, b) = bf::parse_board(&self.start);
        assert_eq!((w, h), (self.width, self.height), "start of the spec");
        b
    }

    /// The game as a gamelang source: one module, the view, the game.
    fn source(&self) -> String {
        let init = self.init.clone().unwrap_or_else(|| {
            let b = self.start_board();
            let mut cells = Vec::new();
            for y in 1..=self.height {
                for x in 1..=self.width {
                    match b[((y - 1) * self.width + x - 1) as usize] {
                        bf::BLACK => cells.push(format!("black({x}, {y})")),
                        bf::WHITE => cells.push(format!("white({x}, {y})")),
                        _ => {}
                    }
                }
            }
            if cells.is_empty() {
                "no-cells".to_string()
            } else {
                cells.join(" ")
            }
        });
        // Each action is a constant of its own (a long `;` list of unparenthesised actions
        // is slow to parse); the player's actions join them.
        let mut decls = String::new();
        let mut actions = |who: &str, v: &[Act]| {
            if v.is_empty() {
                return "no-actions".to_string();
            }
            let mut names = Vec::new();
            for (k, (name, pre, eff)) in v.iter().enumerate() {
                let op = format!("{who}-action-{k}");
                decls += &format!(
                    "  op {op} : -> Action .\n  eq {op} = action \"{name}\" : {pre} => {eff} .\n"
                );
                names.push(op);
            }
            names.join(" ; ")
        };
        let black = actions("black", &self.black);
        let white = actions("white", &self.white);
        let goals = |v: &[&str]| {
            if v.is_empty() {
                "no-goal".to_string()
            } else {
                v.join(" | ")
            }
        };
        format!(
            "fmod G is\n  protecting GRID-SYNTAX .\n  ops width height : -> Nat .\n  eq width = {} .\n  eq height = {} .\n  op init : -> Cond .\n  eq init = {init} .\n{decls}  ops black-actions white-actions : -> Actions .\n  eq black-actions = {black} .\n  eq white-actions = {white} .\n  ops black-goals white-goals : -> Goals .\n  eq black-goals = {} .\n  eq white-goals = {} .\n  op no-move-loses : -> Bool .\n  eq no-move-loses = {} .\nendfm\nview V from DRAW-GAME to GRID{{G}} is\n  sort Config to Position .\n  sort SetConfig to Set{{Position}} .\nendv\ngame g is\n  instance SOLVE{{V}} .\n  start start .\n  first B .\n  param width height .\nendgame\n",
            self.width,
            self.height,
            goals(&self.black_goals),
            goals(&self.white_goals),
            self.no_move_loses
        )
    }

    fn load(&self) -> Loaded {
        support::load_source("grid-test.game", &self.source())
    }
}

/// Configurations of the game, parsed (all first: a string literal not seen before adds
/// an operator, and `term_of` hands the engine the grown program, dropping its memo tables)
/// and reduced.
fn configs(l: &mut Loaded, texts: &[String]) -> Vec<TermId> {
    let pats: Vec<_> = texts
        .iter()
        .map(|t| l.term_of(t, Some(l.game.config_sort)))
        .collect();
    pats.iter()
        .map(|p| {
            let t = l.engine.build(p, &[]);
            l.engine
                .reduce(t)
                .unwrap_or_else(|e| panic!("{}", l.engine.describe(&e)))
        })
        .collect()
}

fn config(l: &mut Loaded, text: &str) -> TermId {
    configs(l, &[text.to_string()])[0]
}

fn side(p: usize) -> Side {
    if p == bf::B {
        Side::B
    } else {
        Side::R
    }
}

/// What a comparison covered.
#[derive(Debug, Default)]
struct Stats {
    positions: usize,
    halted: usize,
    stuck: usize,
    within: [usize; 2],
    /// Black wins, draws, White wins.
    verdicts: [usize; 3],
}

/// Check that the game's `start` is the board `start`.
fn assert_start(l: &mut Loaded, r: &Rules, start: &Board) {
    let c = l.config("start");
    assert_eq!(
        l.engine.show(c),
        format!("board(\"{}\")", r.show(start)),
        "the start"
    );
}

/// Compare gamelang (the loaded game, its parameters set to the rules' board) with the
/// brute force on every board reached within `plies` plies of `origin`, both players to
/// move: moves, halting, b-within and r-within for d = 0..=max_d, and (when play is bounded,
/// `verdicts`) the outcome.
fn compare(
    l: &mut Loaded,
    r: &Rules,
    origin: &Board,
    plies: usize,
    max_d: u32,
    verdicts: bool,
) -> Stats {
    let boards: Vec<Board> = r.reachable(origin, plies).into_iter().collect();
    let texts: Vec<String> = boards
        .iter()
        .map(|b| format!("board(\"{}\")", r.show(b)))
        .collect();
    let cs = configs(l, &texts);
    let game = l.game.clone();
    let d = GameDriver::new(&mut l.engine, &game).unwrap();
    let mut stats = Stats::default();
    let (mut within_memo, mut value_memo) = (HashMap::new(), HashMap::new());
    let mut bounded = BoundedSearch::new(Leaf::Outcome);
    for ((b, text), c) in boards.iter().zip(&texts).zip(cs) {
        stats.positions += 1;
        for turn in [bf::B, bf::W] {
            let p = side(turn);
            let at = format!("{text} with {} to move", p.name());
            let halted = r.halted(b, turn);
            assert_eq!(
                d.halted(&mut l.engine, p, c).unwrap(),
                halted,
                "halted at {at}"
            );
            stats.halted += halted as usize;
            let mut expected: Vec<String> = r
                .moves(b, turn)
                .iter()
                .map(|m| format!("board(\"{}\")", r.show(m)))
                .collect();
            if expected.is_empty() {
                expected.push(format!("stuck({}, {text})", p.name()));
                stats.stuck += !halted as usize;
            }
            let mut got: Vec<String> = d
                .moves(&mut l.engine, p, c)
                .unwrap()
                .into_iter()
                .map(|m| l.engine.show(m))
                .collect();
            got.sort();
            expected.sort();
            assert_eq!(got, expected, "moves at {at}");
            for plies in 0..=max_d {
                for who in [bf::B, bf::W] {
                    let want = r.within_at(who, b, turn, plies, &mut within_memo);
                    let got = d
                        .wins_within(&mut l.engine, side(who), p, c, plies as u64)
                        .unwrap();
                    assert_eq!(
                        got,
                        want,
                        "can {} win within {plies} plies from {at}?",
                        side(who).name()
                    );
                    // `solve --max-depth`'s search, one table for every question.
                    let mut rules = EngineRules::new(&d, &mut l.engine);
                    let searched = bounded
                        .wins_within(&mut rules, side(who), p, c, plies as u64)
                        .unwrap();
                    assert_eq!(
                        searched,
                        want,
                        "the search: can {} win within {plies} plies from {at}?",
                        side(who).name()
                    );
                    stats.within[want as usize] += 1;
                }
            }
            if verdicts {
                let want = match r.value(b, turn, &mut value_memo) {
                    1 => Verdict::Win(Side::B),
                    -1 => Verdict::Win(Side::R),
                    _ => Verdict::Draw,
                };
                assert_eq!(
                    d.verdict(&mut l.engine, p, c).unwrap(),
                    want,
                    "outcome at {at}"
                );
                stats.verdicts[match want {
                    Verdict::Win(Side::B) => 0,
                    Verdict::Draw => 1,
                    Verdict::Win(Side::R) => 2,
                }] += 1;
            }
        }
    }
    stats
}

/// Compare a spec'd game with the brute force, and check the comparison saw both answers.
fn check(spec: &Spec, plies: usize, max_d: u32, verdicts: bool) -> Stats {
    let mut l = spec.load();
    let (r, start) = (spec.rules(), spec.start_board());
    assert_start(&mut l, &r, &start);
    let stats = compare(&mut l, &r, &start, plies, max_d, verdicts);
    assert!(
        stats.within[0] > 0 && stats.within[1] > 0,
        "the comparison saw both answers: {stats:?}"
    );
    stats
}

/// The outcome `gamelang solve` reports from the game's start, and the length of its
/// (depth-optimal) line.
fn solve_start(l: &mut Loaded) -> (Verdict, usize) {
    let o = l.solve("start", "B");
    assert!(o.depth_optimal);
    (o.winner, o.line.len() - 1)
}

/// `gamelang solve --max-depth d` from the game's start, Black to move.
fn within_start(l: &mut Loaded, d: u64) -> bool {
    let start = l.term_of("start", Some(l.game.config_sort));
    let first = l.term_of("B", Some(l.game.player_sort));
    gamelang_game::solve_within(&mut l.engine, &l.game.clone(), &start, &first, d)
        .unwrap()
        .wins
}

/// The error `gamelang solve` stops with from the game's start (it must not succeed).
fn solve_error(l: &mut Loaded) -> String {
    let start = l.term_of("start", Some(l.game.config_sort));
    let first = l.term_of("B", Some(l.game.player_sort));
    let game = l.game.clone();
    match gamelang_game::solve(&mut l.engine, &game, &start, &first) {
        Ok(o) => panic!("solved ({:?}), but an error was expected", o.winner),
        Err(e) => gamelang_game::diagnose(&l.engine, &e).render(&l.session.sources, false),
    }
}

/// A board of the given size, each cell given by a function of (x, y).
fn board_of(w: i64, h: i64, cell: impl Fn(i64, i64) -> char) -> String {
    (1..=h)
        .map(|y| (1..=w).map(|x| cell(x, y)).collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

fn empty_board(w: i64, h: i64) -> String {
    board_of(w, h, |_, _| '.')
}

// ---------------------------------------------------------------------------------------
// The games.

const OCCUPY_BLACK: &[Act] = &[("occupy", "open(?x, ?y)", "black(?x, ?y)")];
const OCCUPY_WHITE: &[Act] = &[("occupy", "open(?x, ?y)", "white(?x, ?y)")];

const LINES3_BLACK: &[&str] = &[
    "black(?x, ?y) black(?x+1, ?y) black(?x+2, ?y)",
    "black(?x, ?y) black(?x, ?y+1) black(?x, ?y+2)",
    "black(?x, ?y) black(?x+1, ?y+1) black(?x+2, ?y+2)",
    "black(?x, ?y) black(?x+1, ?y-1) black(?x+2, ?y-2)",
];
const LINES3_WHITE: &[&str] = &[
    "white(?x, ?y) white(?x+1, ?y) white(?x+2, ?y)",
    "white(?x, ?y) white(?x, ?y+1) white(?x, ?y+2)",
    "white(?x, ?y) white(?x+1, ?y+1) white(?x+2, ?y+2)",
    "white(?x, ?y) white(?x+1, ?y-1) white(?x+2, ?y-2)",
];
const LINES4_BLACK: &[&str] = &[
    "black(?x, ?y) black(?x+1, ?y) black(?x+2, ?y) black(?x+3, ?y)",
    "black(?x, ?y) black(?x, ?y+1) black(?x, ?y+2) black(?x, ?y+3)",
    "black(?x, ?y) black(?x+1, ?y+1) black(?x+2, ?y+2) black(?x+3, ?y+3)",
    "black(?x, ?y) black(?x+1, ?y-1) black(?x+2, ?y-2) black(?x+3, ?y-3)",
];
const LINES4_WHITE: &[&str] = &[
    "white(?x, ?y) white(?x+1, ?y) white(?x+2, ?y) white(?x+3, ?y)",
    "white(?x, ?y) white(?x, ?y+1) white(?x, ?y+2) white(?x, ?y+3)",
    "white(?x, ?y) white(?x+1, ?y+1) white(?x+2, ?y+2) white(?x+3, ?y+3)",
    "white(?x, ?y) white(?x+1, ?y-1) white(?x+2, ?y-2) white(?x+3, ?y-3)",
];

/// Noughts and crosses (rows, columns, diagonals) on 3x3.
fn tictactoe(no_move_loses: bool) -> Spec {
    Spec {
        width: 3,
        height: 3,
        start: empty_board(3, 3),
        init: None,
        black: OCCUPY_BLACK.to_vec(),
        white: OCCUPY_WHITE.to_vec(),
        black_goals: LINES3_BLACK.to_vec(),
        white_goals: LINES3_WHITE.to_vec(),
        no_move_loses,
    }
}

/// Breakthrough, as the corpus's breakthrough/domain.ig.
const BREAKTHROUGH_BLACK: &[Act] = &[
    (
        "forward",
        "black(?x, ?y) open(?x, ?y-1)",
        "open(?x, ?y) black(?x, ?y-1)",
    ),
    (
        "left-diagonal",
        "black(?x, ?y) NOT(black(?x-1, ?y-1))",
        "open(?x, ?y) black(?x-1, ?y-1)",
    ),
    (
        "right-diagonal",
        "black(?x, ?y) NOT(black(?x+1, ?y-1))",
        "open(?x, ?y) black(?x+1, ?y-1)",
    ),
];
const BREAKTHROUGH_WHITE: &[Act] = &[
    (
        "forward",
        "white(?x, ?y) open(?x, ?y+1)",
        "open(?x, ?y) white(?x, ?y+1)",
    ),
    (
        "left-diagonal",
        "white(?x, ?y) NOT(white(?x-1, ?y+1))",
        "open(?x, ?y) white(?x-1, ?y+1)",
    ),
    (
        "right-diagonal",
        "white(?x, ?y) NOT(white(?x+1, ?y+1))",
        "open(?x, ?y) white(?x+1, ?y+1)",
    ),
];

/// White on the top `rows` rows, Black on the bottom `rows` rows.
fn rows_each(w: i64, h: i64, rows: i64) -> String {
    board_of(w, h, |_, y| {
        if y <= rows {
            'o'
        } else if y > h - rows {
            'x'
        } else {
            '.'
        }
    })
}

/// Breakthrough with `rows` rows of pawns each (2 in the game; 1 on a 3x3 board).
fn breakthrough(w: i64, h: i64, rows: i64) -> Spec {
    Spec {
        width: w,
        height: h,
        start: rows_each(w, h, rows),
        init: Some(format!(
            "rect(white-piece, 1, {w}, 1, {rows}) rect(black-piece, 1, {w}, {}, {h})",
            h - rows + 1
        )),
        black: BREAKTHROUGH_BLACK.to_vec(),
        white: BREAKTHROUGH_WHITE.to_vec(),
        black_goals: vec!["black(?x, ymin)"],
        white_goals: vec!["white(?x, ymax)"],
        no_move_loses: true,
    }
}

const DOMINEERING_BLACK: &[Act] = &[(
    "vertical",
    "open(?x, ?y) open(?x, ?y+1)",
    "black(?x, ?y) black(?x, ?y+1)",
)];
const DOMINEERING_WHITE: &[Act] = &[(
    "horizontal",
    "open(?x, ?y) open(?x+1, ?y)",
    "white(?x, ?y) white(?x+1, ?y)",
)];

fn domineering(w: i64, h: i64, no_move_loses: bool) -> Spec {
    Spec {
        width: w,
        height: h,
        start: empty_board(w, h),
        init: None,
        black: DOMINEERING_BLACK.to_vec(),
        white: DOMINEERING_WHITE.to_vec(),
        black_goals: vec![],
        white_goals: vec![],
        no_move_loses,
    }
}

/// Connect-c's gravity, as the corpus's connect-c/domain.ig, with its quirks: the
/// bottom-row action ignores ?y (it is the same move at every ?y), and White's duplicates
/// its atom.
const GRAVITY_BLACK: &[Act] = &[
    (
        "occupy",
        "open(?x, ?y) NOT(open(?x, ?y+1))",
        "black(?x, ?y)",
    ),
    ("occupy-bottom", "open(?x, ymax)", "black(?x, ymax)"),
];
const GRAVITY_WHITE: &[Act] = &[
    (
        "occupy",
        "open(?x, ?y) NOT(open(?x, ?y+1))",
        "white(?x, ?y)",
    ),
    (
        "occupy-bottom",
        "open(?x, ymax) open(?x, ymax)",
        "white(?x, ymax)",
    ),
];

fn connect3(no_move_loses: bool) -> Spec {
    Spec {
        width: 3,
        height: 3,
        start: empty_board(3, 3),
        init: None,
        black: GRAVITY_BLACK.to_vec(),
        white: GRAVITY_WHITE.to_vec(),
        black_goals: LINES3_BLACK.to_vec(),
        white_goals: LINES3_WHITE.to_vec(),
        no_move_loses,
    }
}

// ---------------------------------------------------------------------------------------
// Hand-written games against the brute force.

#[test]
fn tictactoe_with_either_stuck_rule_matches_brute_force() {
    // no-move-loses = false: a full board is a draw (the real rule).
    let s = check(&tictactoe(false), 2, 9, true);
    assert!(
        s.verdicts.iter().all(|&n| n > 0),
        "wins for both and draws: {s:?}"
    );
    // no-move-loses = true (seed 001's rule): the player to move at a full board loses.
    let s = check(&tictactoe(true), 2, 9, true);
    assert!(s.verdicts[0] > 0 && s.verdicts[2] > 0, "{s:?}");
    // Towards the end of play, where boards fill up and lines are made.
    for nml in [true, false] {
        let spec = tictactoe(nml);
        let mut l = spec.load();
        let mid = bf::parse_board("xo./.x./..o").2;
        let s = compare(&mut l, &spec.rules(), &mid, 5, 6, true);
        assert!(s.halted > 0 && s.stuck > 0, "{s:?}");
    }
    // From the empty board: a draw under the real rule, Black's win under BDDL's, by
    // White's failed tenth ply.
    let mut l = tictactoe(false).load();
    assert_eq!(solve_start(&mut l), (Verdict::Draw, 10));
    let mut l = tictactoe(true).load();
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::B), 10));
    assert!(!within_start(&mut l, 9));
    assert!(within_start(&mut l, 10));
}

#[test]
fn the_corpus_tic_shape_with_negative_offsets_matches_brute_force() {
    // httt/3x3_9_tic.ig: lines of 3 across or down, White's anchored at the other end or
    // in the middle (?y-1, ?y-2, ?x-1).
    let spec = Spec {
        black_goals: vec![
            "black(?x, ?y) black(?x, ?y+1) black(?x, ?y+2)",
            "black(?x, ?y) black(?x+1, ?y) black(?x+2, ?y)",
        ],
        white_goals: vec![
            "white(?x, ?y) white(?x, ?y-1) white(?x, ?y-2)",
            "white(?x, ?y) white(?x-1, ?y) white(?x+1, ?y)",
        ],
        ..tictactoe(true)
    };
    check(&spec, 2, 8, true);
}

#[test]
fn domineering_3x3_and_2x4_match_brute_force() {
    for (w, h) in [(3, 3), (2, 4)] {
        let s = check(&domineering(w, h, true), 3, 8, true);
        assert!(
            s.stuck > 0,
            "{w}x{h}: positions where a player is stuck: {s:?}"
        );
        let mut l = domineering(w, h, true).load();
        // Seed 001's corpus (domineering/3x3_4.ig, 2x4_4.ig): Black wins within 4 plies,
        // White's failed attempt to move included.
        assert_eq!(solve_start(&mut l), (Verdict::Win(Side::B), 4), "{w}x{h}");
        assert!(
            within_start(&mut l, 4) && !within_start(&mut l, 3),
            "{w}x{h}"
        );
    }
}

#[test]
fn breakthrough_2x4_and_3x3_match_brute_force() {
    for (w, h, rows) in [(2, 4, 2), (3, 3, 1)] {
        let s = check(&breakthrough(w, h, rows), 3, 8, true);
        assert!(s.halted > 0, "{w}x{h}: {s:?}");
    }
}

#[test]
fn connect3_with_gravity_and_the_corpus_quirks_matches_brute_force() {
    check(&connect3(false), 3, 9, true);
    check(&connect3(true), 2, 9, true);
}

/// Evader and Pursuer, dual (corpus evader_pursuer_dual): White the evader, its
/// preconditions padded with duplicated atoms as in the corpus, Black the pursuer moving
/// onto any cell (capturing); goals at absolute coordinates; stays make play cyclic.
fn evader_pursuer_dual() -> Spec {
    Spec {
        width: 4,
        height: 3,
        start: "...o/..../.x..".to_string(),
        init: None,
        black: vec![
            ("down", "black(?x, ?y)", "open(?x, ?y) black(?x, ?y+1)"),
            ("up", "black(?x, ?y)", "open(?x, ?y) black(?x, ?y-1)"),
            ("right", "black(?x, ?y)", "open(?x, ?y) black(?x+1, ?y)"),
            ("left", "black(?x, ?y)", "open(?x, ?y) black(?x-1, ?y)"),
            ("stay", "black(?x, ?y)", "black(?x, ?y)"),
        ],
        white: vec![
            (
                "down",
                "white(?x, ?y) white(?x, ?y) open(?x, ?y+1)",
                "open(?x, ?y) white(?x, ?y+1)",
            ),
            (
                "up",
                "white(?x, ?y) white(?x, ?y) open(?x, ?y-1)",
                "open(?x, ?y) white(?x, ?y-1)",
            ),
            (
                "left",
                "white(?x, ?y) white(?x, ?y) open(?x-1, ?y)",
                "open(?x, ?y) white(?x-1, ?y)",
            ),
            (
                "left-two",
                "white(?x, ?y) open(?x-1, ?y) open(?x-2, ?y)",
                "open(?x, ?y) white(?x-2, ?y)",
            ),
            (
                "stay",
                "white(?x, ?y) white(?x, ?y) white(?x, ?y)",
                "white(?x, ?y)",
            ),
        ],
        black_goals: vec!["black(xmin, ymin)"],
        white_goals: vec!["white(xmin, ymin)"],
        no_move_loses: true,
    }
}

#[test]
fn duplicated_atoms_stays_and_absolute_goals_match_brute_force() {
    let spec = evader_pursuer_dual();
    let s = check(&spec, 3, 7, false);
    assert!(s.halted > 0, "{s:?}");
    // Play can repeat a position: the unbounded question is a cycle error, not an answer.
    let mut l = spec.load();
    let e = solve_error(&mut l);
    assert!(e.contains("cycle"), "{e}");
}

/// Pieces that slide off their cells, an effect whose atoms name the same cell (the later
/// one wins), actions that ignore ?x or ?y, absolute goals (`black(xmax, ymax)`,
/// `black(2, 1)`), a goal with a NOT, and White without any goal.
fn sliders(no_move_loses: bool) -> Spec {
    Spec {
        width: 3,
        height: 3,
        start: ".o./x../...".to_string(),
        init: None,
        black: vec![
            (
                "slide",
                "black(?x, ?y) open(?x+1, ?y)",
                "open(?x, ?y) black(?x+1, ?y)",
            ),
            (
                "drop",
                "open(xmin, ?y) NOT(white(xmin, ?y))",
                "white(xmin, ?y) black(xmin, ?y)",
            ),
        ],
        white: vec![
            (
                "fall",
                "white(?x, ?y) open(?x, ?y+1)",
                "open(?x, ?y) white(?x, ?y+1)",
            ),
            ("place", "open(?x, ymin) open(?x, ymin)", "white(?x, ymin)"),
        ],
        // The third goal has a NOT: White's moves can make it hold (seed 001's sanity
        // conditions fail), but it only counts after Black's own move.
        black_goals: vec![
            "black(xmax, ymax)",
            "black(2, 1)",
            "black(?x, ?y) black(?x+1, ?y) NOT(open(?x+2, ?y))",
        ],
        white_goals: vec![],
        no_move_loses,
    }
}

#[test]
fn sliding_pieces_effect_order_and_absolute_goals_match_brute_force() {
    for nml in [true, false] {
        let s = check(&sliders(nml), 4, 8, true);
        // Black wins somewhere; where Black is stuck, White wins or it is a draw.
        let stuck = if nml { 2 } else { 1 };
        assert!(s.verdicts[0] > 0 && s.verdicts[stuck] > 0, "{s:?}");
    }
    // The effect `white(xmin, ?y) black(xmin, ?y)` leaves black: atoms apply in order.
    let mut l = sliders(true).load();
    let game = l.game.clone();
    let d = GameDriver::new(&mut l.engine, &game).unwrap();
    let c = config(&mut l, "board(\".../.../...\")");
    let moves: Vec<String> = d
        .moves(&mut l.engine, Side::B, c)
        .unwrap()
        .into_iter()
        .map(|m| l.engine.show(m))
        .collect();
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "board(\".../.../x..\")",
            "board(\".../x../...\")",
            "board(\"x../.../...\")"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// A player who cannot move.

#[test]
fn a_player_who_cannot_move_loses_or_draws_as_the_game_says() {
    for nml in [true, false] {
        // Domineering 2x2 after Black's domino: White has no horizontal place.
        let mut l = domineering(2, 2, nml).load();
        let game = l.game.clone();
        let d = GameDriver::new(&mut l.engine, &game).unwrap();
        let c = config(&mut l, "board(\"x./x.\")");
        let moves: Vec<String> = d
            .moves(&mut l.engine, Side::R, c)
            .unwrap()
            .into_iter()
            .map(|m| l.engine.show(m))
            .collect();
        assert_eq!(moves, ["stuck(R, board(\"x./x.\"))"]);
        assert!(!d.halted(&mut l.engine, Side::R, c).unwrap());
        let expected = if nml {
            Verdict::Win(Side::B)
        } else {
            Verdict::Draw
        };
        assert_eq!(d.verdict(&mut l.engine, Side::R, c).unwrap(), expected);
        // White's failed attempt to move is a ply: Black wins within 1 ply, not 0.
        assert!(!d
            .wins_within(&mut l.engine, Side::B, Side::R, c, 0)
            .unwrap());
        assert_eq!(
            d.wins_within(&mut l.engine, Side::B, Side::R, c, 1)
                .unwrap(),
            nml
        );
        assert!(!d
            .wins_within(&mut l.engine, Side::R, Side::R, c, 5)
            .unwrap());
        // From the empty board: Black wins in 2 plies (the corpus's domineering/2x2_2.ig),
        // or the game is drawn.
        let o = l.solve("start", "B");
        assert_eq!(o.winner, expected);
        assert_eq!(o.line.len() - 1, 2);
        assert_eq!(
            l.engine.show(*o.line.last().unwrap()),
            "stuck(R, board(\"x./x.\"))"
        );

        // A one-row board: Black (vertical dominoes) can never move.
        let mut l = domineering(3, 1, nml).load();
        let game = l.game.clone();
        let d = GameDriver::new(&mut l.engine, &game).unwrap();
        let c = l.config("start");
        let moves: Vec<String> = d
            .moves(&mut l.engine, Side::B, c)
            .unwrap()
            .into_iter()
            .map(|m| l.engine.show(m))
            .collect();
        assert_eq!(moves, ["stuck(B, board(\"...\"))"]);
        let expected = if nml {
            Verdict::Win(Side::R)
        } else {
            Verdict::Draw
        };
        assert_eq!(d.verdict(&mut l.engine, Side::B, c).unwrap(), expected);
        assert!(!d
            .wins_within(&mut l.engine, Side::R, Side::B, c, 0)
            .unwrap());
        assert_eq!(
            d.wins_within(&mut l.engine, Side::R, Side::B, c, 1)
                .unwrap(),
            nml
        );
        assert!(!d
            .wins_within(&mut l.engine, Side::B, Side::B, c, 3)
            .unwrap());
        // With White to move, White places its domino and Black is stuck (or it is a draw).
        assert_eq!(d.verdict(&mut l.engine, Side::R, c).unwrap(), expected);
        assert_eq!(
            d.wins_within(&mut l.engine, Side::R, Side::R, c, 2)
                .unwrap(),
            nml
        );
        assert!(!d
            .wins_within(&mut l.engine, Side::R, Side::R, c, 1)
            .unwrap());
    }
}

// ---------------------------------------------------------------------------------------
// Errors.

#[test]
fn a_board_side_of_0_or_100_is_an_error_not_a_panic() {
    for (param, value) in [("width", 0), ("height", 0), ("width", 100), ("height", 100)] {
        let mut l = tictactoe(false).load();
        l.set(param, value);
        let e = solve_error(&mut l);
        assert!(
            e.contains(&format!(
                "a board's {param} must be between 1 and 64, not {value}"
            )),
            "{param}={value}: {e}"
        );
    }
    // The command line reports it and exits with status 1 (a panic would be 101).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "solve",
            "examples/grid/tictactoe.game",
            "--set",
            "width=100",
            "--max-depth",
            "3",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("width must be between 1 and 64, not 100") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn a_goal_or_action_off_the_board_is_an_error_naming_the_coordinate() {
    let mut spec = tictactoe(true);
    spec.white_goals.push("black(5, 1)");
    let e = solve_error(&mut spec.load());
    assert!(
        e.contains("column 5") && e.contains("outside the 3x3 board"),
        "{e}"
    );
    let mut spec = tictactoe(true);
    spec.black_goals = vec!["black(1, 7)"];
    let e = solve_error(&mut spec.load());
    assert!(
        e.contains("row 7") && e.contains("outside the 3x3 board"),
        "{e}"
    );
    let mut spec = tictactoe(true);
    spec.black = vec![("corner", "open(4, 4)", "black(4, 4)")];
    let e = solve_error(&mut spec.load());
    assert!(
        e.contains("action `corner`") && e.contains("column 4"),
        "{e}"
    ); // Definition 5: each cell at most once in the initial board.
    let mut spec = tictactoe(true);
    spec.init = Some("black(1, 1) white(2, 2) white(1, 1)".into());
    let e = solve_error(&mut spec.load());
    assert!(e.contains("gives cell (1, 1) twice"), "{e}");
}

#[test]
fn line_capture_atoms_out_of_place_are_errors() {
    // flanks only in a precondition, flip-lines only in an effect, neither negated, both
    // for black-piece or white-piece, never in goals (docs/grid-games.md).
    let cases: [(&'static str, &'static str, &str); 4] = [
        (
            "open(?x, ?y) flip-lines(black-piece, ?x, ?y)",
            "black(?x, ?y)",
            "`flanks` belongs in an action's precondition and `flip-lines` in its effect",
        ),
        (
            "open(?x, ?y)",
            "black(?x, ?y) flanks(black-piece, ?x, ?y)",
            "`flanks` belongs in an action's precondition and `flip-lines` in its effect",
        ),
        (
            "open(?x, ?y) NOT(flanks(black-piece, ?x, ?y))",
            "black(?x, ?y)",
            "cannot be negated",
        ),
        (
            "open(?x, ?y) flanks(open-piece, ?x, ?y)",
            "black(?x, ?y)",
            "captured by `black-piece` or `white-piece`",
        ),
    ];
    for (pre, eff, want) in cases {
        let mut spec = tictactoe(true);
        spec.black = vec![("place", pre, eff)];
        let e = solve_error(&mut spec.load());
        assert!(e.contains(want), "{pre} => {eff}: {e}");
    }
    let mut spec = tictactoe(true);
    spec.black_goals = vec!["flanks(black-piece, ?x, ?y)"];
    let e = solve_error(&mut spec.load());
    assert!(
        e.contains("`flanks` belongs in an action's precondition"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// The examples in examples/grid/: their rules against the brute force at small sizes, and
// the answers their headers give.

fn example(name: &str, w: i64, h: i64) -> Loaded {
    let mut l = load(&format!("examples/grid/{name}.game"));
    l.set("width", w);
    l.set("height", h);
    l
}

fn rules(
    w: i64,
    h: i64,
    black: &[Act],
    white: &[Act],
    goals: [&[&'static str]; 2],
    no_move_loses: bool,
) -> (Rules, Spec) {
    let spec = Spec {
        width: w,
        height: h,
        start: empty_board(w, h),
        init: None,
        black: black.to_vec(),
        white: white.to_vec(),
        black_goals: goals[0].to_vec(),
        white_goals: goals[1].to_vec(),
        no_move_loses,
    };
    (spec.rules(), spec)
}

/// Load an example at a board size, check its start, and compare it with the brute force
/// from `origin` (by default its start).
fn check_example(
    name: &str,
    r: &Rules,
    start: &str,
    origin: Option<&str>,
    plies: usize,
    max_d: u32,
    verdicts: bool,
) -> (Loaded, Stats) {
    let mut l = example(name, r.w, r.h);
    let start = bf::parse_board(start).2;
    assert_start(&mut l, r, &start);
    let origin = origin.map_or(start, |o| bf::parse_board(o).2);
    let s = compare(&mut l, r, &origin, plies, max_d, verdicts);
    assert!(s.within[0] > 0 && s.within[1] > 0, "{name}: {s:?}");
    (l, s)
}

#[test]
fn example_breakthrough() {
    let spec = breakthrough(2, 4, 2);
    let (mut l, _) = check_example("breakthrough", &spec.rules(), &spec.start, None, 3, 8, true);
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::R), 8));
    let spec = breakthrough(3, 4, 2);
    let mid = "o.o/.oo/x.x/x.x";
    check_example(
        "breakthrough",
        &spec.rules(),
        &spec.start,
        Some(mid),
        2,
        7,
        true,
    );
    // The default board, 3x4: White wins in 12 plies; Black never wins.
    let mut l = load("examples/grid/breakthrough.game");
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::R), 12));
    assert!(!within_start(&mut l, 19));
    // 2x6: Black wins within 15 plies and not 13 (the corpus's 2x6_15.ig).
    let mut l = example("breakthrough", 2, 6);
    assert!(within_start(&mut l, 15) && !within_start(&mut l, 13));
}

#[test]
fn example_connect4() {
    let (r, spec) = rules(
        4,
        4,
        GRAVITY_BLACK,
        GRAVITY_WHITE,
        [LINES4_BLACK, LINES4_WHITE],
        false,
    );
    // From a position where lines of 4 are near.
    let mid = "..../..../.xo./xoox";
    let (_, s) = check_example("connect4", &r, &spec.start, Some(mid), 2, 7, true);
    assert!(s.verdicts.iter().filter(|&&n| n > 0).count() >= 2, "{s:?}");
    // A draw on the default 4x4 board, and Black cannot win within 15 plies (the corpus's
    // 4x4_15_connect4.ig).
    let mut l = load("examples/grid/connect4.game");
    assert_eq!(solve_start(&mut l), (Verdict::Draw, 17));
    assert!(!within_start(&mut l, 15));
}

#[test]
fn example_domineering() {
    for (w, h) in [(3, 3), (4, 3), (2, 4)] {
        let spec = domineering(w, h, true);
        check_example("domineering", &spec.rules(), &spec.start, None, 3, 6, true);
    }
    // 4x3 (4 columns, 3 rows): White wins, in 5 plies.
    let mut l = example("domineering", 4, 3);
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::R), 5));
    // The default 4x4: Black wins in 8 plies.
    let mut l = load("examples/grid/domineering.game");
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::B), 8));
    assert!(within_start(&mut l, 8) && !within_start(&mut l, 7));
}

const EVADER: &[Act] = &[
    (
        "down",
        "black(?x, ?y) open(?x, ?y+1)",
        "open(?x, ?y) black(?x, ?y+1)",
    ),
    (
        "down-two",
        "black(?x, ?y) open(?x, ?y+1) open(?x, ?y+2)",
        "open(?x, ?y) black(?x, ?y+2)",
    ),
    (
        "up",
        "black(?x, ?y) open(?x, ?y-1)",
        "open(?x, ?y) black(?x, ?y-1)",
    ),
    (
        "up-two",
        "black(?x, ?y) open(?x, ?y-1) open(?x, ?y-2)",
        "open(?x, ?y) black(?x, ?y-2)",
    ),
    (
        "right",
        "black(?x, ?y) open(?x+1, ?y)",
        "open(?x, ?y) black(?x+1, ?y)",
    ),
    (
        "right-two",
        "black(?x, ?y) open(?x+1, ?y) open(?x+2, ?y)",
        "open(?x, ?y) black(?x+2, ?y)",
    ),
    (
        "left",
        "black(?x, ?y) open(?x-1, ?y)",
        "open(?x, ?y) black(?x-1, ?y)",
    ),
    (
        "left-two",
        "black(?x, ?y) open(?x-1, ?y) open(?x-2, ?y)",
        "open(?x, ?y) black(?x-2, ?y)",
    ),
    (
        "left-diagonal-up",
        "black(?x, ?y) open(?x-1, ?y-1)",
        "open(?x, ?y) black(?x-1, ?y-1)",
    ),
    (
        "right-diagonal-up",
        "black(?x, ?y) open(?x+1, ?y-1)",
        "open(?x, ?y) black(?x+1, ?y-1)",
    ),
    (
        "left-diagonal-down",
        "black(?x, ?y) open(?x-1, ?y+1)",
        "open(?x, ?y) black(?x-1, ?y+1)",
    ),
    (
        "right-diagonal-down",
        "black(?x, ?y) open(?x+1, ?y+1)",
        "open(?x, ?y) black(?x+1, ?y+1)",
    ),
    ("stay", "black(?x, ?y)", "black(?x, ?y)"),
];
const PURSUER: &[Act] = &[
    ("down", "white(?x, ?y)", "open(?x, ?y) white(?x, ?y+1)"),
    ("up", "white(?x, ?y)", "open(?x, ?y) white(?x, ?y-1)"),
    ("right", "white(?x, ?y)", "open(?x, ?y) white(?x+1, ?y)"),
    ("left", "white(?x, ?y)", "open(?x, ?y) white(?x-1, ?y)"),
    ("stay", "white(?x, ?y)", "white(?x, ?y)"),
];

#[test]
fn example_evader_pursuer() {
    let (r, _) = rules(
        4,
        4,
        EVADER,
        PURSUER,
        [&["black(xmin, ymin)"], &["white(xmin, ymin)"]],
        true,
    );
    // The default: 4x4, the evader at (4, 1), the pursuer at (2, 3).
    let (_, s) = check_example(
        "evader-pursuer",
        &r,
        "...x/..../.o../....",
        None,
        3,
        5,
        false,
    );
    assert!(s.halted > 0, "{s:?}");
    let mut l = load("examples/grid/evader-pursuer.game");
    // The corpus's 4x4_3_e-4-1_p-2-3.ig: Black wins within 3 plies, not 2.
    assert!(within_start(&mut l, 3) && !within_start(&mut l, 2));
    // Play is cyclic, but Black's win is a finite strategy: the unbounded question finds
    // it, and its depth-optimal line is the 3 plies of the bounded one. (The line used to
    // follow every winning move of Black, cycles included, and stopped with a cycle error;
    // the distance search follows only the moves it needs.)
    let start = l.term_of("start", Some(l.game.config_sort));
    let first = l.term_of("B", Some(l.game.player_sort));
    let o = gamelang_game::solve(&mut l.engine, &l.game.clone(), &start, &first).unwrap();
    assert_eq!(o.winner, Verdict::Win(Side::B));
    assert!(o.depth_optimal);
    assert_eq!(o.line.len() - 1, 3);
    // 8x8 with the pursuer at (3, 4) (8x8_7_e-8-1_p-3-4.ig): within 7, not 5; at (2, 3)
    // (8x8_11_e-8-1_p-2-3.ig) the pursuer reaches the corner first: never within 11.
    let mut l = example("evader-pursuer", 8, 8);
    assert!(!within_start(&mut l, 11));
    l.set("px", 3);
    l.set("py", 4);
    assert!(within_start(&mut l, 7) && !within_start(&mut l, 5));
    // 4x4 with the pursuer at (1, 2) (4x4_21_e-4-1_p-1-2.ig): it reaches the corner at once.
    let mut l = load("examples/grid/evader-pursuer.game");
    l.set("px", 1);
    l.set("py", 2);
    assert!(!within_start(&mut l, 21));
}

const KNIGHT_BLACK: &[Act] = &[
    (
        "L1",
        "black(?x, ?y) NOT(black(?x+1, ?y-2))",
        "open(?x, ?y) black(?x+1, ?y-2)",
    ),
    (
        "L2",
        "black(?x, ?y) NOT(black(?x-1, ?y-2))",
        "open(?x, ?y) black(?x-1, ?y-2)",
    ),
    (
        "L3",
        "black(?x, ?y) NOT(black(?x+2, ?y-1))",
        "open(?x, ?y) black(?x+2, ?y-1)",
    ),
    (
        "L4",
        "black(?x, ?y) NOT(black(?x-2, ?y-1))",
        "open(?x, ?y) black(?x-2, ?y-1)",
    ),
];
const KNIGHT_WHITE: &[Act] = &[
    (
        "L1",
        "white(?x, ?y) NOT(white(?x+1, ?y+2))",
        "open(?x, ?y) white(?x+1, ?y+2)",
    ),
    (
        "L2",
        "white(?x, ?y) NOT(white(?x-1, ?y+2))",
        "open(?x, ?y) white(?x-1, ?y+2)",
    ),
    (
        "L3",
        "white(?x, ?y) NOT(white(?x+2, ?y+1))",
        "open(?x, ?y) white(?x+2, ?y+1)",
    ),
    (
        "L4",
        "white(?x, ?y) NOT(white(?x-2, ?y+1))",
        "open(?x, ?y) white(?x-2, ?y+1)",
    ),
];

#[test]
fn example_knightthrough() {
    let knights = |w, h| {
        rules(
            w,
            h,
            KNIGHT_BLACK,
            KNIGHT_WHITE,
            [&["black(?x, ymin)"], &["white(?x, ymax)"]],
            true,
        )
        .0
    };
    // 3x4 and 3x5 (the default) from their starts; 4x4 from a position after a few jumps.
    check_example(
        "knightthrough",
        &knights(3, 4),
        &rows_each(3, 4, 2),
        None,
        2,
        7,
        true,
    );
    check_example(
        "knightthrough",
        &knights(3, 5),
        &rows_each(3, 5, 2),
        None,
        1,
        5,
        false,
    );
    let mid = "o.oo/.o.x/o.../xx.x";
    check_example(
        "knightthrough",
        &knights(4, 4),
        &rows_each(4, 4, 2),
        Some(mid),
        2,
        6,
        true,
    );
    // The seed's Listing 16 (3x4, depth 1): Black wins at once, a knight jumping to row 1.
    let mut l = example("knightthrough", 3, 4);
    assert_eq!(solve_start(&mut l), (Verdict::Win(Side::B), 1));
    // The default 3x5: Black wins within 7 plies, not 5.
    let mut l = load("examples/grid/knightthrough.game");
    assert!(within_start(&mut l, 7) && !within_start(&mut l, 5));
}

#[test]
fn example_tictactoe() {
    let spec = tictactoe(false);
    let (mut l, _) = check_example("tictactoe", &spec.rules(), &spec.start, None, 1, 9, true);
    assert_eq!(solve_start(&mut l), (Verdict::Draw, 10));
    assert!(!within_start(&mut l, 9));
}
