//! Shared by the tests: reading corpus problems, an independent brute force of the game
//! recursion (written from the brief, not from the encoder or the runtime), running
//! DepQBF (a missing DepQBF fails the test with a message: it is not skipped).

#![allow(dead_code)] // each test file uses a different part of this module

use gamelang_bddl::{Action, Atom, Coord, Model, Piece};
use gamelang_lang::span::Sources;
use gamelang_qbf::{encode, run_solver, Answer, Encoding};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The corpus copy kept in the repository (bddl/tests/corpus).
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../bddl/tests/corpus")
}

/// Parse `folder/file` of the corpus with the folder's domain.
pub fn load(name: &str) -> Model {
    let path = corpus().join(name);
    let folder = path.parent().expect("a corpus file is in a folder");
    let domain = std::fs::read_to_string(folder.join("domain.ig")).expect("domain.ig");
    let problem = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    parse(&domain, &problem).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Parse a domain and a problem given as text.
pub fn parse(domain: &str, problem: &str) -> Result<Model, String> {
    let mut sources = Sources::new();
    let d = sources.add("domain.ig", domain);
    let p = sources.add("problem.ig", problem);
    gamelang_bddl::parse(&mut sources, d, p).map_err(|e| format!("{} errors: {e:?}", e.len()))
}

// ---------------------------------------------------------------------------------------
// Brute force
// ---------------------------------------------------------------------------------------

/// A board: cell (x, y), 1-based, at index (y-1)*w + (x-1).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Board {
    pub w: i64,
    pub h: i64,
    pub cells: Vec<Piece>,
}

impl Board {
    pub fn initial(m: &Model) -> Board {
        let mut b = Board {
            w: m.width,
            h: m.height,
            cells: vec![Piece::Open; (m.width * m.height) as usize],
        };
        for &(p, x, y) in &m.init {
            b.set(x, y, p);
        }
        b
    }

    pub fn get(&self, x: i64, y: i64) -> Piece {
        self.cells[((y - 1) * self.w + (x - 1)) as usize]
    }

    pub fn set(&mut self, x: i64, y: i64, p: Piece) {
        self.cells[((y - 1) * self.w + (x - 1)) as usize] = p;
    }

    pub fn show(&self) -> String {
        let mut s = String::new();
        for y in 1..=self.h {
            for x in 1..=self.w {
                s.push(match self.get(x, y) {
                    Piece::Open => '.',
                    Piece::Black => 'x',
                    Piece::White => 'o',
                });
            }
            s.push('/');
        }
        s
    }
}

/// The value of a coordinate at position i on an axis of size max.
fn at(c: Coord, i: i64, max: i64) -> i64 {
    match c {
        Coord::Rel(k) => i + k,
        Coord::Abs(v) => v,
        Coord::Min => 1,
        Coord::Max => max,
    }
}

/// Definition 4: the positions at which every relative coordinate of `atoms` stays on the
/// board.
pub fn positions(atoms: &[&Atom], w: i64, h: i64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    for y in 1..=h {
        for x in 1..=w {
            let ok = atoms.iter().all(|a| {
                let cx = at(a.x, x, w);
                let cy = at(a.y, y, h);
                (1..=w).contains(&cx) && (1..=h).contains(&cy)
            });
            if ok {
                out.push((x, y));
            }
        }
    }
    out
}

/// Definition 6: the conjunction holds at (x, y).
fn holds_at(b: &Board, atoms: &[Atom], x: i64, y: i64) -> bool {
    atoms
        .iter()
        .all(|a| (b.get(at(a.x, x, b.w), at(a.y, y, b.h)) == a.piece) != a.negated)
}

/// Definition 7: every move (action index, x, y, next board).
pub fn moves(b: &Board, actions: &[Action]) -> Vec<(usize, i64, i64, Board)> {
    let mut out = Vec::new();
    for (k, a) in actions.iter().enumerate() {
        let all: Vec<&Atom> = a.pre.iter().chain(&a.eff).collect();
        for (x, y) in positions(&all, b.w, b.h) {
            if holds_at(b, &a.pre, x, y) {
                let mut n = b.clone();
                for e in &a.eff {
                    n.set(at(e.x, x, b.w), at(e.y, y, b.h), e.piece);
                }
                out.push((k, x, y, n));
            }
        }
    }
    out
}

/// Definition 8: one of the goals holds somewhere within its bounds.
pub fn goal(b: &Board, goals: &[Vec<Atom>]) -> bool {
    goals.iter().any(|g| {
        let refs: Vec<&Atom> = g.iter().collect();
        positions(&refs, b.w, b.h)
            .into_iter()
            .any(|(x, y)| holds_at(b, g, x, y))
    })
}

/// The recursion of the brief, memoised.
pub struct Brute<'m> {
    pub m: &'m Model,
    memo: HashMap<(Board, u32, bool), bool>,
}

impl<'m> Brute<'m> {
    pub fn new(m: &'m Model) -> Brute<'m> {
        Brute {
            m,
            memo: HashMap::new(),
        }
    }

    /// win(s, d, Black to move?).
    pub fn win(&mut self, b: &Board, d: u32, black: bool) -> bool {
        if d == 0 {
            return false;
        }
        let key = (b.clone(), d, black);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let v = if black {
            moves(b, &self.m.black_actions)
                .into_iter()
                .any(|(_, _, _, n)| goal(&n, &self.m.black_goals) || self.win(&n, d - 1, false))
        } else {
            // White without a move: a win for Black by BDDL's rule, else a draw.
            let white = moves(b, &self.m.white_actions);
            (self.m.stuck_loses || !white.is_empty())
                && white
                    .into_iter()
                    .all(|(_, _, _, n)| !goal(&n, &self.m.white_goals) && self.win(&n, d - 1, true))
        };
        self.memo.insert(key, v);
        v
    }

    /// The question the encoding answers.
    pub fn answer(&mut self, depth: u32) -> bool {
        let b = Board::initial(self.m);
        self.win(&b, depth, self.m.black_first)
    }
}

// ---------------------------------------------------------------------------------------
// DepQBF
// ---------------------------------------------------------------------------------------

/// Run DepQBF on the encoding; a missing DepQBF or an undecided run fails the test.
pub fn depqbf(enc: &Encoding) -> (bool, Vec<i64>) {
    let run = match run_solver("depqbf --qdo", &enc.qdimacs(), Duration::from_secs(120)) {
        Ok(r) => r,
        Err(e) => panic!("DepQBF is needed by this test and could not be run: {e}"),
    };
    match run.answer {
        Answer::True => (true, run.assignment),
        Answer::False => (false, run.assignment),
        Answer::Unknown(why) => panic!("DepQBF did not decide: {why}"),
    }
}

/// Encode, solve with DepQBF, compare with the brute force; when Black moves first and
/// wins, check the decoded first move. Returns the answer.
pub fn check(name: &str, m: &Model, depth: u32) -> bool {
    let enc = encode(m, depth).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (qbf, assignment) = depqbf(&enc);
    let mut brute = Brute::new(m);
    let expected = brute.answer(depth);
    assert_eq!(
        qbf, expected,
        "{name} at depth {depth}: DepQBF says {qbf}, the brute force {expected}"
    );
    if qbf && m.black_first {
        let (k, x, y) = enc.first_move(&assignment).unwrap_or_else(|| {
            panic!("{name} at depth {depth}: no first move decoded from {assignment:?}")
        });
        let b = Board::initial(m);
        let next = moves(&b, &m.black_actions)
            .into_iter()
            .find(|(k2, x2, y2, _)| {
                // An axis the action does not use relatively is reported as 1: any position
                // on it is the same move.
                let a = &m.black_actions[k];
                let rx = a
                    .pre
                    .iter()
                    .chain(&a.eff)
                    .any(|t| matches!(t.x, Coord::Rel(_)));
                let ry = a
                    .pre
                    .iter()
                    .chain(&a.eff)
                    .any(|t| matches!(t.y, Coord::Rel(_)));
                *k2 == k && (!rx || *x2 == x) && (!ry || *y2 == y)
            })
            .map(|(_, _, _, n)| n)
            .unwrap_or_else(|| {
                panic!("{name} at depth {depth}: decoded first move {k} ({x}, {y}) is not legal")
            });
        assert!(
            goal(&next, &m.black_goals) || brute.win(&next, depth - 1, false),
            "{name} at depth {depth}: decoded first move {} ({x}, {y}) does not win",
            m.black_actions[k].name
        );
    }
    qbf
}

// ---------------------------------------------------------------------------------------
// Writing models by hand
// ---------------------------------------------------------------------------------------

fn coord(s: &str, var: &str, min: &str, max: &str) -> Coord {
    let s = s.trim();
    if s == min {
        Coord::Min
    } else if s == max {
        Coord::Max
    } else if let Some(rest) = s.strip_prefix(var) {
        if rest.is_empty() {
            Coord::Rel(0)
        } else {
            Coord::Rel(rest.replace('+', "").parse().expect("an offset"))
        }
    } else {
        Coord::Abs(s.parse().expect("a coordinate"))
    }
}

/// Atoms written as in BDDL: `open(?x,?y) NOT(black(?x+1,ymax)) white(2,1)`.
pub fn atoms(s: &str) -> Vec<Atom> {
    s.split_whitespace()
        .map(|w| {
            let (negated, w) = match w.strip_prefix("NOT(") {
                Some(r) => (true, r.strip_suffix(')').expect("NOT(...)")),
                None => (false, w),
            };
            let (p, rest) = w.split_once('(').expect("p(x,y)");
            let piece = match p {
                "open" => Piece::Open,
                "black" => Piece::Black,
                "white" => Piece::White,
                _ => panic!("unknown piece {p}"),
            };
            let (x, y) = rest
                .strip_suffix(')')
                .and_then(|r| r.split_once(','))
                .expect("(x,y)");
            Atom {
                piece,
                negated,
                x: coord(x, "?x", "xmin", "xmax"),
                y: coord(y, "?y", "ymin", "ymax"),
            }
        })
        .collect()
}

/// An action `name: pre => eff`.
pub fn action(name: &str, pre: &str, eff: &str) -> Action {
    Action {
        name: name.to_string(),
        pre: atoms(pre),
        eff: atoms(eff),
        captures: Default::default(),
    }
}

/// Goals: one string per conjunction.
pub fn goals(g: &[&str]) -> Vec<Vec<Atom>> {
    g.iter().map(|s| atoms(s)).collect()
}

/// A model with an open board.
pub fn model(w: i64, h: i64, black: Vec<Action>, white: Vec<Action>) -> Model {
    Model {
        width: w,
        height: h,
        init: Vec::new(),
        black_actions: black,
        white_actions: white,
        black_goals: Vec::new(),
        white_goals: Vec::new(),
        depth: 1,
        black_first: true,
        stuck_loses: true,
    }
}

/// The occupy action of positional games.
pub fn occupy(p: &str) -> Action {
    action("occupy", "open(?x,?y)", &format!("{p}(?x,?y)"))
}

/// A small deterministic random number generator (xorshift).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// 0..n
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}
