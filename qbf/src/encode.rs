//! Seed 001's lifted QBF encoding (section 4) of "Black has a winning strategy within d
//! plies" for a BDDL [`Model`]: the prefix of Table 1 and the matrix I ∧ B^1 with the
//! recursive B^i / W^i, built as a circuit ([`crate::circuit`]) from the auxiliary circuits
//! ADD/SUB/EQ/LT ([`crate::arith`]) and RI, SC, BDCIR (Definitions 11-13).
//!
//! The semantics encoded is the recursion gamelang's exhaustive solver implements
//! (Definition 10 generalised to any depth and either first player):
//!
//! * win(s, d, Black) = d ≥ 1 ∧ ∃ black move s → s' (Def. 7): s' ⊨ G_b (Def. 8) ∨ win(s', d−1, White)
//! * win(s, d, White) = d ≥ 1 ∧ ∀ white moves s → s'': s'' ⊭ G_w ∧ win(s'', d−1, Black)
//!
//! (so White without a legal move loses, Black without one loses, and no plies left is a
//! loss for Black). Where the seed's formulas, read literally, say something else, the
//! comment at the code says what the seed says, what is done instead and why; the tests
//! in `tests/semantics.rs` compare DepQBF's answers with a brute force of the recursion.
//!
//! Positions are stored **0-based** in ⌈log2 m⌉ bits (the seed: 1-based in ⌈log2(m+1)⌉): on
//! a 4-wide board 2 bits instead of 3, on a 1-wide board (Hex's N×1) none. Bit patterns
//! beyond the board ("ghost" cells of the symbolic position S) are never touched by a move
//! or read by a condition within its bounds, so their state is irrelevant.
//!
//! Departures from the seed's formulas, each explained at the code:
//!
//! * Def. 4's y-interval `[1 + l_y, 1 − u_y]` is read `[1 + l_y, n − u_y]` (the runtime's
//!   [`bounds`]); an axis no atom uses relatively is not bounded (its bits are ignored).
//! * The text under Table 1 says black is `o ∧ ¬w`; Def. 12 says `¬o ∧ ¬w`, used here.
//! * Effects are applied in order, the last atom on a cell winning (`Builder::effects`).
//! * White actions with fewer precondition cells force the unused `P^t[k]` true
//!   (`Builder::white_move`); lb^t is a circuit, not a variable.
//! * W^d (White moves last, an even depth with Black first) is M_w^d ∧ ¬(lb ∧ ⋀P): with no
//!   plies left after it Black has not won, unless White had no legal move.
//! * gs^t exists only where it is needed; White's goals on one cell are checked at t+1
//!   directly in the symbolic branch, without W_x, W_y, W_c, W_ce nor White's gs.
//! * RI compares V with S − k (one adder per offset, shared by every layer) instead of
//!   V + k with S; I is built by Shannon expansion on the bits of S.
//! * A goal whose bounds are empty is dropped (never holds); a goal without atoms always
//!   holds; depth 0 is the constant false.
//! * Beyond the seed: where a player who cannot move does not lose (`Model::stuck_loses`
//!   false, a `.game` grid game's draw on a full board), win(s, d, White) also needs a legal
//!   White move, named by Black before White's move (`Witness`); White's last ply is false.

use crate::arith::{add_const, bits_for, eq, eq_const, in_range, lt_const};
use crate::circuit::{Circuit, Lit};
use crate::qdimacs::{to_cnf, Cnf, CnfOptions, Quant};
use gamelang_bddl::{Action, Atom, Coord, Model, Piece};
use gamelang_board::{bounds, MAX_SIDE};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// A coordinate expression, 0-based: relative to the position an action or goal is tried
/// at, or fixed (a number, xmin/xmax, ymin/ymax).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
enum Ce {
    Rel(i64),
    Fixed(i64),
}

/// The cell an atom refers to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
struct Cell {
    x: Ce,
    y: Ce,
}

/// A test of one cell: the piece and whether it is negated (`NOT(p(..))`).
type Test = (Piece, bool);

/// The atoms of a condition that refer to the same cell (a conjunction of tests there).
#[derive(Clone, Debug)]
struct Group {
    cell: Cell,
    tests: Vec<Test>,
}

/// A condition (precondition, or goal) with its implicit bounds (Def. 4), 0-based.
#[derive(Clone, Debug)]
struct Cond {
    groups: Vec<Group>,
    /// BD as inclusive ranges of the position, 0-based.
    lo: (i64, i64),
    hi: (i64, i64),
    /// Whether any atom uses ?x / ?y: an axis no atom refers to relatively is not bounded
    /// (every position gives the same cells) and its position bits are ignored.
    rel: (bool, bool),
}

impl Cond {
    fn feasible(&self) -> bool {
        self.lo.0 <= self.hi.0 && self.lo.1 <= self.hi.1
    }
}

/// An action compiled for the board: its precondition (with the bounds of pre ∪ eff, the
/// interval I_a of Definition 7) and its effect.
#[derive(Clone, Debug)]
struct CAction {
    cond: Cond,
    /// Effect atoms in order, exact duplicates removed (keeping the last) and atoms whose
    /// cell a later atom always overwrites removed.
    eff: Vec<(Cell, Piece)>,
}

fn coord(c: Coord, max: i64) -> Ce {
    match c {
        Coord::Rel(k) => Ce::Rel(k),
        Coord::Abs(v) => Ce::Fixed(v - 1),
        Coord::Min => Ce::Fixed(0),
        Coord::Max => Ce::Fixed(max - 1),
    }
}

fn cell_of(a: &Atom, w: i64, h: i64) -> Cell {
    Cell {
        x: coord(a.x, w),
        y: coord(a.y, h),
    }
}

/// Group the atoms by cell, dropping duplicate tests.
fn groups(atoms: &[Atom], w: i64, h: i64) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for a in atoms {
        let cell = cell_of(a, w, h);
        let test = (a.piece, a.negated);
        match out.iter_mut().find(|g| g.cell == cell) {
            Some(g) => {
                if !g.tests.contains(&test) {
                    g.tests.push(test);
                }
            }
            None => out.push(Group {
                cell,
                tests: vec![test],
            }),
        }
    }
    out
}

fn cond(atoms: &[Atom], bound_atoms: &[Atom], w: i64, h: i64) -> Cond {
    let (lx, hx, ly, hy) = bounds(bound_atoms, w, h);
    Cond {
        groups: groups(atoms, w, h),
        lo: (lx - 1, ly - 1),
        hi: (hx - 1, hy - 1),
        rel: (
            bound_atoms.iter().any(|a| matches!(a.x, Coord::Rel(_))),
            bound_atoms.iter().any(|a| matches!(a.y, Coord::Rel(_))),
        ),
    }
}

fn compile_action(a: &Action, w: i64, h: i64) -> CAction {
    let all: Vec<Atom> = a.pre.iter().chain(&a.eff).copied().collect();
    let cond = cond(&a.pre, &all, w, h);
    // Effects are applied in order (the last atom on a cell wins). An atom followed by one
    // with the same cell expression is always overwritten: drop it (duplicates included).
    let effs: Vec<(Cell, Piece)> = a.eff.iter().map(|e| (cell_of(e, w, h), e.piece)).collect();
    let eff = effs
        .iter()
        .enumerate()
        .filter(|(k, (c, _))| !effs[k + 1..].iter().any(|(c2, _)| c2 == c))
        .map(|(_, e)| *e)
        .collect();
    CAction { cond, eff }
}

/// Check what the encoding relies on: a board within 1..=MAX_SIDE, absolute coordinates on
/// it, effects without NOT, no line capture (the same checks as the runtime's `Compiled::new`).
fn validate(m: &Model) -> Result<(), String> {
    for (what, v) in [("width", m.width), ("height", m.height)] {
        if !(1..=MAX_SIDE).contains(&v) {
            return Err(format!(
                "a board's {what} must be between 1 and {MAX_SIDE}, not {v}"
            ));
        }
    }
    for &(p, x, y) in &m.init {
        if x < 1 || y < 1 || x > m.width || y > m.height {
            return Err(format!(
                "the initial cell {}({x}, {y}) is outside the {}x{} board",
                p.name(),
                m.width,
                m.height
            ));
        }
    }
    let check = |atoms: &[Atom], what: &str| -> Result<(), String> {
        for a in atoms {
            for (c, max, axis) in [(a.x, m.width, "column"), (a.y, m.height, "row")] {
                if let Coord::Abs(v) = c {
                    if v < 1 || v > max {
                        return Err(format!(
                            "{what} refers to {axis} {v}, outside the {}x{} board",
                            m.width, m.height
                        ));
                    }
                }
            }
        }
        Ok(())
    };
    for a in m.black_actions.iter().chain(&m.white_actions) {
        if !a.captures.is_empty() {
            return Err(format!(
                "action `{}` captures along lines (`flanks`/`flip-lines`), which the QBF encoding cannot say",
                a.name
            ));
        }
        if a.eff.iter().any(|e| e.negated) {
            return Err(format!(
                "the effect of action `{}` has a NOT: an effect says what a cell holds afterwards",
                a.name
            ));
        }
        let what = format!("action `{}`", a.name);
        check(&a.pre, &what)?;
        check(&a.eff, &what)?;
    }
    for g in m.black_goals.iter().chain(&m.white_goals) {
        check(g, "a goal")?;
    }
    Ok(())
}

/// Deepest encoding built (the size grows linearly: a million plies is already far beyond
/// what any QBF solver decides).
pub const MAX_DEPTH: u32 = 1_000_000;

/// What [`Encoding::first_move`] needs: Black's first move variables and actions.
#[derive(Clone, Debug)]
struct FirstMove {
    action: Vec<u32>,
    x: Vec<u32>,
    y: Vec<u32>,
    actions: Vec<CAction>,
}

/// Sizes of an encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Variables of the QDIMACS form (the `V` of its header: quantified and gate variables).
    pub vars: u32,
    /// Clauses of the QDIMACS form.
    pub clauses: usize,
    /// Quantifier blocks of the QDIMACS form.
    pub blocks: usize,
    /// Gates of the QCIR form (an XOR of the circuit counts three: it is written with
    /// AND and OR).
    pub gates: usize,
}

/// A QBF: prefix and a circuit matrix. Write it with [`Encoding::qcir`] or
/// [`Encoding::qdimacs`].
#[derive(Debug)]
pub struct Encoding {
    pub(crate) prefix: Vec<(Quant, Vec<u32>)>,
    pub(crate) circuit: Circuit,
    pub(crate) output: Lit,
    /// Quantified variables are 1..=num_vars.
    pub(crate) num_vars: u32,
    first: Option<FirstMove>,
    cnf: OnceLock<Cnf>,
}

/// Encode "Black has a winning strategy within `depth` plies" for `model` (whoever moves
/// first per `model.black_first`). An error for a model the semantics does not define
/// (a board side outside 1..=64, a cell outside the board, a NOT in an effect).
pub fn encode(model: &Model, depth: u32) -> Result<Encoding, String> {
    validate(model)?;
    if depth > MAX_DEPTH {
        return Err(format!(
            "a depth of {depth} plies is more than this encoder handles ({MAX_DEPTH})"
        ));
    }
    Ok(Builder::new(model, depth).build())
}

/// The size ([`Encoding::size`]) the encoding of `model` at `depth` will have, estimated
/// without building it. Every two plies add a Black and a White layer of the same shape,
/// so the circuit is linear in the depth; but some clauses of its CNF gather one literal
/// per earlier layer, so the CNF is quadratic: it is built at three small depths of the same parity and the
/// quadratic through them extrapolated (exact where the layers are regular, which they are
/// past the first few). Lets a caller refuse an encoding that would not fit in memory
/// before allocating it.
pub fn estimated_size(model: &Model, depth: u32) -> Result<u64, String> {
    validate(model)?;
    let at = |d: u32| Builder::new(model, d).build().size() as f64;
    // Past these depths every step of two plies adds layers of the same shape.
    const SMALL: u32 = 6;
    if depth <= SMALL + 4 {
        return Ok(at(depth) as u64);
    }
    let low = SMALL + (depth % 2);
    let (f0, f1, f2) = (at(low), at(low + 2), at(low + 4));
    let k = f64::from((depth - low) / 2);
    let (first, second) = (f1 - f0, (f2 - f1) - (f1 - f0));
    let size = f0 + k * first + k * (k - 1.0) / 2.0 * second.max(0.0);
    // `as` saturates: an estimate past u64 is u64::MAX.
    Ok(size.max(0.0) as u64)
}

impl Encoding {
    /// What the encoding takes in memory, in units ([`estimated_size`]): the circuit's
    /// nodes and their inputs, and the clauses of its CNF and their literals.
    pub fn size(&self) -> usize {
        let cnf = self.cnf();
        let literals: usize = cnf.clauses.iter().map(Vec::len).sum();
        self.circuit.size() + cnf.clauses.len() + literals
    }

    /// The prefix as built (every quantified variable, outermost block first).
    pub fn prefix(&self) -> &[(Quant, Vec<u32>)] {
        &self.prefix
    }

    /// The circuit and its output literal.
    pub fn circuit(&self) -> (&Circuit, Lit) {
        (&self.circuit, self.output)
    }

    /// Number of quantified variables (numbered 1..=n).
    pub fn num_quantified(&self) -> u32 {
        self.num_vars
    }

    /// The CNF form (computed once).
    pub fn cnf(&self) -> &Cnf {
        self.cnf.get_or_init(|| {
            to_cnf(
                &self.circuit,
                self.output,
                &self.prefix,
                self.num_vars,
                CnfOptions::default(),
            )
        })
    }

    /// The CNF form with other options (for measurements).
    pub fn cnf_with(&self, opts: CnfOptions) -> Cnf {
        to_cnf(
            &self.circuit,
            self.output,
            &self.prefix,
            self.num_vars,
            opts,
        )
    }

    /// The QDIMACS text.
    pub fn qdimacs(&self) -> String {
        self.cnf().write()
    }

    /// The QCIR-G14 text.
    pub fn qcir(&self) -> String {
        crate::qcir::write(&self.prefix, &self.circuit, self.output, self.num_vars)
    }

    pub fn stats(&self) -> Stats {
        let cnf = self.cnf();
        Stats {
            vars: cnf.num_vars,
            clauses: cnf.clauses.len(),
            blocks: cnf.prefix.len(),
            gates: self.circuit.gate_count(self.output),
        }
    }

    /// Black's first move (when Black moves first) from an assignment of the outermost
    /// existential block of the QDIMACS form (literals as DepQBF's `--qdo` prints them):
    /// the index into `model.black_actions` and the position (x, y), 1-based. An axis the
    /// action does not refer to relatively gives 1 (every position on it is the same
    /// move). `None` if Black does not move first, if the assignment leaves out a variable
    /// of the move that the QDIMACS form has (no certificate), or if it is not a legal
    /// position for the action. A variable the QDIMACS form dropped (no clause reads it)
    /// is a don't-care and counts as false.
    pub fn first_move(&self, assignment: &[i64]) -> Option<(usize, i64, i64)> {
        let f = self.first.as_ref()?;
        // The assignment is in the QDIMACS numbering: map it back.
        let original = &self.cnf().original;
        let truth: HashMap<u32, bool> = assignment
            .iter()
            .filter_map(|&l| {
                let v = usize::try_from(l.unsigned_abs()).ok()?;
                let o = *original.get(v)?;
                (o != 0).then_some((o, l > 0))
            })
            .collect();
        let in_qdimacs: HashSet<u32> = original.iter().copied().filter(|&o| o != 0).collect();
        // A variable of the QDIMACS form that the assignment leaves out means no
        // certificate (a solver that prints none, DepQBF without --qdo), not a false
        // variable: reading it as false would decode a move nobody chose.
        let value = |vars: &[u32]| -> Option<i64> {
            vars.iter().enumerate().try_fold(0i64, |acc, (i, v)| {
                let bit = match truth.get(v) {
                    Some(&b) => b,
                    None if in_qdimacs.contains(v) => return None,
                    None => false,
                };
                Some(if bit { acc | (1 << i) } else { acc })
            })
        };
        let j = usize::try_from(value(&f.action)?).ok()?;
        let a = f.actions.get(j)?;
        if !a.cond.feasible() {
            return None;
        }
        let x = if a.cond.rel.0 { value(&f.x)? } else { 0 };
        let y = if a.cond.rel.1 { value(&f.y)? } else { 0 };
        let inside = |v: i64, lo: i64, hi: i64, rel: bool| !rel || (lo..=hi).contains(&v);
        (inside(x, a.cond.lo.0, a.cond.hi.0, a.cond.rel.0)
            && inside(y, a.cond.lo.1, a.cond.hi.1, a.cond.rel.1))
        .then_some((j, x + 1, y + 1))
    }
}

/// The variables of one move layer (time step t).
struct Layer {
    black: bool,
    a: Vec<Lit>,
    x: Vec<Lit>,
    y: Vec<Lit>,
    /// Game-stop variable gs^t (existential for Black, universal for White).
    gs: Option<Lit>,
    /// White's precondition indicators P^t (existential).
    p: Vec<Lit>,
    /// Where a player who cannot move does not lose ([`Model::stuck_loses`] false), a
    /// legal White move Black names before White moves (existential, like a move
    /// layer's A^t X^t Y^t P^t): its existence is what makes White's turn a loss for
    /// White rather than a draw. `None` in a game of BDDL's rule, and at the last layer.
    witness: Option<Witness>,
}

/// A White move named by Black: action, position, precondition indicators.
struct Witness {
    a: Vec<Lit>,
    x: Vec<Lit>,
    y: Vec<Lit>,
    p: Vec<Lit>,
}

struct Builder<'m> {
    m: &'m Model,
    d: usize,
    c: Circuit,
    next_var: u32,
    prefix: Vec<(Quant, Vec<u32>)>,
    bx: usize,
    by: usize,
    sx: Vec<Lit>,
    sy: Vec<Lit>,
    /// S − k for each axis and offset k (shared by every time step).
    s_minus: HashMap<(bool, i64), Vec<Lit>>,
    /// (o^t, w^t) for t = 1..=d+1 (index t − 1).
    state: Vec<(Lit, Lit)>,
    black: Vec<CAction>,
    white: Vec<CAction>,
    black_goals: Vec<Cond>,
    white_goals: Vec<Cond>,
}

impl<'m> Builder<'m> {
    fn new(m: &'m Model, depth: u32) -> Builder<'m> {
        let (w, h) = (m.width, m.height);
        let goal = |g: &Vec<Atom>| cond(g, g, w, h);
        Builder {
            m,
            d: depth as usize,
            c: Circuit::new(),
            next_var: 1,
            prefix: Vec::new(),
            bx: bits_for(w as usize),
            by: bits_for(h as usize),
            sx: Vec::new(),
            sy: Vec::new(),
            s_minus: HashMap::new(),
            state: Vec::new(),
            black: m
                .black_actions
                .iter()
                .map(|a| compile_action(a, w, h))
                .collect(),
            white: m
                .white_actions
                .iter()
                .map(|a| compile_action(a, w, h))
                .collect(),
            // A goal whose bounds are empty never holds (Def. 8): drop it.
            black_goals: m
                .black_goals
                .iter()
                .map(goal)
                .filter(Cond::feasible)
                .collect(),
            white_goals: m
                .white_goals
                .iter()
                .map(goal)
                .filter(Cond::feasible)
                .collect(),
        }
    }

    /// Allocate `n` variables at the end of the prefix.
    fn alloc(&mut self, q: Quant, n: usize) -> Vec<Lit> {
        let vars: Vec<u32> = (0..n as u32).map(|i| self.next_var + i).collect();
        self.next_var += n as u32;
        if n > 0 {
            match self.prefix.last_mut() {
                Some((lq, lv)) if *lq == q => lv.extend(&vars),
                _ => self.prefix.push((q, vars.clone())),
            }
        }
        vars.into_iter().map(|v| self.c.var(v)).collect()
    }

    fn var_ids(&self, lits: &[Lit]) -> Vec<u32> {
        lits.iter()
            .map(|l| match self.c.node(l.node()) {
                crate::circuit::Node::Var(v) => *v,
                _ => 0,
            })
            .collect()
    }

    /// S − k on one axis (ADDSUB of the seed, applied to S instead of the move position:
    /// EQ(V + k, S) ⇔ EQ(V, S − k), and S − k is one circuit for all time steps, so RI's
    /// adders are shared between every layer, goal and condition using the offset k).
    fn s_minus(&mut self, y_axis: bool, k: i64) -> Vec<Lit> {
        if let Some(v) = self.s_minus.get(&(y_axis, k)) {
            return v.clone();
        }
        let s = if y_axis {
            self.sy.clone()
        } else {
            self.sx.clone()
        };
        let v = add_const(&mut self.c, &s, -k);
        self.s_minus.insert((y_axis, k), v.clone());
        v
    }

    /// RI (Definition 11): does `cell`, for the position (vx, vy), refer to the symbolic
    /// position S? EQ(ADDSUB(V, e), S) per axis; a fixed coordinate compares S with a
    /// constant.
    fn ri(&mut self, cell: Cell, vx: &[Lit], vy: &[Lit]) -> Lit {
        let x = match cell.x {
            Ce::Rel(k) => {
                let s = self.s_minus(false, k);
                eq(&mut self.c, vx, &s)
            }
            Ce::Fixed(v) => {
                let s = self.sx.clone();
                eq_const(&mut self.c, &s, v)
            }
        };
        let y = match cell.y {
            Ce::Rel(k) => {
                let s = self.s_minus(true, k);
                eq(&mut self.c, vy, &s)
            }
            Ce::Fixed(v) => {
                let s = self.sy.clone();
                eq_const(&mut self.c, &s, v)
            }
        };
        self.c.and2(x, y)
    }

    /// SC (Definition 12) of a conjunction of tests at the state of time t (1-based):
    /// black = ¬o ∧ ¬w, white = ¬o ∧ w, open = o; negated for NOT. An open cell's w is
    /// unconstrained and never read.
    fn sc(&mut self, tests: &[Test], t: usize) -> Lit {
        let (o, w) = self.state[t - 1];
        let lits: Vec<Lit> = tests
            .iter()
            .map(|&(p, neg)| {
                let l = self.piece(p, o, w);
                if neg {
                    !l
                } else {
                    l
                }
            })
            .collect();
        self.c.and(&lits)
    }

    fn piece(&mut self, p: Piece, o: Lit, w: Lit) -> Lit {
        match p {
            Piece::Open => o,
            Piece::Black => self.c.and2(!o, !w),
            Piece::White => self.c.and2(!o, w),
        }
    }

    /// BDCIR (Definition 13) of a condition at (vx, vy): ¬LT(V, l) ∧ LT(V, u + 1) on each
    /// axis the condition refers to relatively (an axis it does not is not bounded: its
    /// position bits are ignored).
    fn bdcir(&mut self, cond: &Cond, vx: &[Lit], vy: &[Lit]) -> Lit {
        if !cond.feasible() {
            return Lit::FALSE;
        }
        let x = if cond.rel.0 {
            in_range(&mut self.c, vx, cond.lo.0, cond.hi.0)
        } else {
            Lit::TRUE
        };
        let y = if cond.rel.1 {
            in_range(&mut self.c, vy, cond.lo.1, cond.hi.1)
        } else {
            Lit::TRUE
        };
        self.c.and2(x, y)
    }

    /// Do cells a and b coincide for the position (vx, vy)? Static unless one coordinate is
    /// relative and the other fixed (e.g. `?y` and `ymax`: only when Y = ymax).
    fn same_cell(&mut self, a: Cell, b: Cell, vx: &[Lit], vy: &[Lit]) -> Lit {
        let axis = |c: &mut Circuit, p: Ce, q: Ce, v: &[Lit]| match (p, q) {
            (Ce::Rel(i), Ce::Rel(j)) | (Ce::Fixed(i), Ce::Fixed(j)) => {
                if i == j {
                    Lit::TRUE
                } else {
                    Lit::FALSE
                }
            }
            (Ce::Rel(k), Ce::Fixed(f)) | (Ce::Fixed(f), Ce::Rel(k)) => eq_const(c, v, f - k),
        };
        let x = axis(&mut self.c, a.x, b.x, vx);
        let y = axis(&mut self.c, a.y, b.y, vy);
        self.c.and2(x, y)
    }

    /// The effect part of M_b^t / M_w^t for one action at (vx, vy): the effects hold at t+1
    /// and the other cells are propagated.
    ///
    /// The seed writes ⋀_{C ∈ eff} RI(C) ⇒ SC(C, o^{t+1}, w^{t+1}): two effect atoms on the
    /// same cell with different pieces would then make the move impossible. The runtime
    /// (and Definition 7's "effects applied in order") lets the last one win, which is
    /// what is encoded: an atom holds unless a later atom with another piece is on the same
    /// cell (statically, or dynamically when a relative and a fixed coordinate meet).
    fn effects(&mut self, eff: &[(Cell, Piece)], vx: &[Lit], vy: &[Lit], t: usize) -> Lit {
        let mut parts = Vec::new();
        let mut touched = Vec::new();
        for (k, &(cell, piece)) in eff.iter().enumerate() {
            let ri = self.ri(cell, vx, vy);
            touched.push(ri);
            let mut clause = vec![!ri];
            for &(later, lp) in &eff[k + 1..] {
                if lp != piece {
                    let s = self.same_cell(cell, later, vx, vy);
                    clause.push(s);
                }
            }
            let sc = self.sc(&[(piece, false)], t + 1);
            clause.push(sc);
            parts.push(self.c.or(&clause));
        }
        // Unchanged positions are propagated: ¬⋁ RI(C) ⇒ EQ(o^t, o^{t+1}) ∧ EQ(w^t, w^{t+1}).
        let any = self.c.or(&touched);
        let keep = self.keep(t);
        let frame = self.c.or2(any, keep);
        parts.push(frame);
        self.c.and(&parts)
    }

    /// EQ(o^t, o^{t+1}) ∧ EQ(w^t, w^{t+1}).
    fn keep(&mut self, t: usize) -> Lit {
        self.prop(t, t + 1)
    }

    /// EQ(o^a, o^b) ∧ EQ(w^a, w^b).
    fn prop(&mut self, a: usize, b: usize) -> Lit {
        if a == b {
            return Lit::TRUE;
        }
        let (oa, wa) = self.state[a - 1];
        let (ob, wb) = self.state[b - 1];
        let o = self.c.iff(oa, ob);
        let w = self.c.iff(wa, wb);
        self.c.and2(o, w)
    }

    /// M_b^t: Black's move A^t(X^t, Y^t) is legal and leads from the state at t to the state
    /// at t+1.
    fn black_move(&mut self, l: &Layer, t: usize) -> Lit {
        let n = self.black.len();
        let mut parts = vec![lt_const(&mut self.c, &l.a, n as i64)];
        for (j, act) in self.black.clone().iter().enumerate() {
            let sel = eq_const(&mut self.c, &l.a, j as i64);
            if !act.cond.feasible() {
                parts.push(!sel);
                continue;
            }
            let mut body = vec![self.bdcir(&act.cond, &l.x, &l.y)];
            for g in &act.cond.groups {
                // RI(X, Y, C) ⇒ SC(C, o^t, w^t): preconditions hold at t.
                let ri = self.ri(g.cell, &l.x, &l.y);
                let sc = self.sc(&g.tests, t);
                body.push(self.c.implies(ri, sc));
            }
            body.push(self.effects(&act.eff, &l.x, &l.y, t));
            let body = self.c.and(&body);
            parts.push(self.c.implies(sel, body));
        }
        self.c.and(&parts)
    }

    /// M_w^t and the validity of White's move, lb^t ∧ ⋀ P^t.
    ///
    /// The seed makes lb^t an existential variable equivalent to the bounds test; here it is
    /// the bounds circuit itself (it only depends on A^t, X^t, Y^t, which are quantified
    /// before it, so nothing changes but one variable less). P^t[k] ⇔ SC(pre[k]) as in the
    /// seed, one indicator per cell of the precondition.
    ///
    /// The seed assumes every white action has the same number of preconditions (and its
    /// implementation pads with duplicates). Read literally with unequal numbers, an unused
    /// P^t[k] is unconstrained and Black, who chooses it, could set it false and declare any
    /// white move of that action illegal. Here an action with fewer cells forces the
    /// remaining indicators true.
    fn white_move(&mut self, l: &Layer, t: usize) -> (Lit, Lit) {
        let (a, x, y, p) = (l.a.clone(), l.x.clone(), l.y.clone(), l.p.clone());
        self.white_choice(&a, &x, &y, &p, t, true)
    }

    /// The constraints and validity of a White move given by the variables `a`, `x`, `y`
    /// and the indicators `p` on the state at `t`, as [`Builder::white_move`] has them;
    /// with `effects`, the state at t+1 follows from it when it is valid.
    fn white_choice(
        &mut self,
        a: &[Lit],
        x: &[Lit],
        y: &[Lit],
        p: &[Lit],
        t: usize,
        effects: bool,
    ) -> (Lit, Lit) {
        let mut lb = Vec::new();
        let mut pcons = Vec::new();
        let mut effs = Vec::new();
        for (j, act) in self.white.clone().iter().enumerate() {
            if !act.cond.feasible() {
                // Never legal: lb is false for it, nothing to constrain.
                continue;
            }
            let sel = eq_const(&mut self.c, a, j as i64);
            let bd = self.bdcir(&act.cond, x, y);
            lb.push(self.c.and2(sel, bd));
            for (k, pk) in p.iter().enumerate() {
                match act.cond.groups.get(k) {
                    Some(g) => {
                        // RI(X, Y, pre[k]) ⇒ (SC(pre[k], o^t, w^t) ⇔ P^t[k]).
                        let ri = self.ri(g.cell, x, y);
                        let sc = self.sc(&g.tests, t);
                        let iff = self.c.iff(sc, *pk);
                        pcons.push(self.c.or(&[!sel, !ri, iff]));
                    }
                    None => pcons.push(self.c.implies(sel, *pk)),
                }
            }
            if effects {
                let e = self.effects(&act.eff, x, y, t);
                effs.push(self.c.implies(sel, e));
            }
        }
        let lb = self.c.or(&lb);
        let mut v = vec![lb];
        v.extend(p);
        let valid = self.c.and(&v);
        if effects {
            let effs = self.c.and(&effs);
            pcons.push(self.c.implies(valid, effs));
        }
        (self.c.and(&pcons), valid)
    }

    /// White has a legal move at `t`: the witness Black names is one (its indicators
    /// constrained as a White move's are, so that they say what the board holds).
    fn white_can_move(&mut self, w: &Witness, t: usize) -> Lit {
        let (a, x, y, p) = (w.a.clone(), w.x.clone(), w.y.clone(), w.p.clone());
        let (cons, valid) = self.white_choice(&a, &x, &y, &p, t, false);
        self.c.and2(cons, valid)
    }

    /// The initial state I: o^1, w^1 at S as in s0 (Definition 5; the last `#init` entry for
    /// a cell wins, as in the runtime). The seed writes one implication per piece of I and
    /// a conjunction over every cell not in I; here the two functions "S is open in s0" and
    /// "S is white in s0" are built by Shannon expansion on the bits of S (an ordered BDD
    /// with structural hashing, cells off the board being don't-cares): an empty board
    /// gives just o^1.
    fn initial(&mut self) -> Lit {
        let (w, h) = (self.m.width, self.m.height);
        let mut board = vec![Piece::Open; (w * h) as usize];
        for &(p, x, y) in &self.m.init {
            board[((y - 1) * w + (x - 1)) as usize] = p;
        }
        // Bits from the most significant row bit down to the least significant column bit.
        let mut order: Vec<(bool, usize)> = (0..self.by).rev().map(|i| (true, i)).collect();
        order.extend((0..self.bx).rev().map(|i| (false, i)));
        let open = self
            .shannon(&order, 0, 0, 0, &|x, y| {
                board[(y * w + x) as usize] == Piece::Open
            })
            .unwrap_or(Lit::TRUE);
        let white = self
            .shannon(&order, 0, 0, 0, &|x, y| {
                board[(y * w + x) as usize] == Piece::White
            })
            .unwrap_or(Lit::FALSE);
        let (o1, w1) = self.state[0];
        let a = self.c.iff(o1, open);
        let b = self.c.iff(w1, white);
        let b = self.c.or2(open, b);
        self.c.and2(a, b)
    }

    fn shannon(
        &mut self,
        order: &[(bool, usize)],
        i: usize,
        x: i64,
        y: i64,
        f: &dyn Fn(i64, i64) -> bool,
    ) -> Option<Lit> {
        let Some(&(is_y, bit)) = order.get(i) else {
            let on_board = x < self.m.width && y < self.m.height;
            return on_board.then(|| if f(x, y) { Lit::TRUE } else { Lit::FALSE });
        };
        let (x1, y1) = if is_y {
            (x, y | (1 << bit))
        } else {
            (x | (1 << bit), y)
        };
        let f0 = self.shannon(order, i + 1, x, y, f);
        let f1 = self.shannon(order, i + 1, x1, y1, f);
        match (f0, f1) {
            (None, g) | (g, None) => g,
            (Some(a), Some(b)) => {
                let v = if is_y { self.sy[bit] } else { self.sx[bit] };
                Some(self.c.ite(v, b, a))
            }
        }
    }

    fn build(mut self) -> Encoding {
        let d = self.d;
        if d == 0 {
            // win(s, 0, _) is false: no plies, no win.
            return self.finish(Lit::FALSE, None);
        }
        let first_black = self.m.black_first;
        let black_of = |t: usize| (t % 2 == 1) == first_black;
        let has_black_goal = !self.black_goals.is_empty();
        let white_always = self.white_goals.iter().any(|g| g.groups.is_empty());
        let white_single: Vec<Cond> = self
            .white_goals
            .iter()
            .filter(|g| g.groups.len() == 1)
            .cloned()
            .collect();
        let white_multi: Vec<Cond> = self
            .white_goals
            .iter()
            .filter(|g| g.groups.len() > 1)
            .cloned()
            .collect();
        // G_w is needed after a white move that is not the last layer.
        let white_checks = (1..d).any(|t| !black_of(t));
        let use_multi = white_checks && !white_always && !white_multi.is_empty();

        // ---- Prefix (Table 1) ----
        let rel_bits = |acts: &[CAction], bx: usize, by: usize| {
            (
                if acts.iter().any(|a| a.cond.rel.0) {
                    bx
                } else {
                    0
                },
                if acts.iter().any(|a| a.cond.rel.1) {
                    by
                } else {
                    0
                },
            )
        };
        let (bbx, bby) = rel_bits(&self.black, self.bx, self.by);
        let (wbx, wby) = rel_bits(&self.white, self.bx, self.by);
        let max_pre = self
            .white
            .iter()
            .filter(|a| a.cond.feasible())
            .map(|a| a.cond.groups.len())
            .max()
            .unwrap_or(0);
        // The seed's prefix is for an odd d with Black first: ∃ A^1 X^1 Y^1 gs^1 ∀ A^2 X^2 Y^2
        // gs^2 ∃ lb^2 P^2 … ∃ A^d X^d Y^d gs^d. Generalised here: d move layers alternating
        // from whoever moves first (`#blackturn second`: ∀ first), the last one possibly
        // White's. A^t has ⌈log2 |A|⌉ bits (none for a single action); X^t, Y^t have
        // ⌈log2 m⌉, ⌈log2 n⌉ bits, 0-based, and none on an axis no action of the player
        // uses relatively (Connect-c's occupy-bottom ignores ?y).
        let mut layers = Vec::with_capacity(d);
        for t in 1..=d {
            let black = black_of(t);
            let q = if black { Quant::Exists } else { Quant::Forall };
            let (na, xb, yb) = if black {
                (bits_for(self.black.len()), bbx, bby)
            } else {
                (bits_for(self.white.len()), wbx, wby)
            };
            // Before White's move, Black's witness that White has one (see `Layer`).
            let witness = (!black && !self.m.stuck_loses && t < d).then(|| Witness {
                a: self.alloc(Quant::Exists, na),
                x: self.alloc(Quant::Exists, xb),
                y: self.alloc(Quant::Exists, yb),
                p: self.alloc(Quant::Exists, max_pre),
            });
            let a = self.alloc(q, na);
            let x = self.alloc(q, xb);
            let y = self.alloc(q, yb);
            // Game-stop variable gs^t. Black's (∃) lets Black end the game when its goal
            // holds; White's (∀) splits "White's goal does not hold" and "Black still wins"
            // into two branches, because both use the single copy of the state at d+1.
            // None is needed at the last layer (the seed has none in B^d), for a player
            // without goals, nor for White when White's goals are all checked at t+1
            // directly (one cell each, see G_w below).
            let gs = if t < d && ((black && has_black_goal) || (!black && use_multi)) {
                Some(self.alloc(q, 1)[0])
            } else {
                None
            };
            let p = if black {
                Vec::new()
            } else {
                self.alloc(Quant::Exists, max_pre)
            };
            layers.push(Layer {
                black,
                a,
                x,
                y,
                gs,
                p,
                witness,
            });
        }
        let black_checks = layers.iter().any(|l| l.black) && has_black_goal;
        // Black's goal: ∃ B_c, B_x, B_y.
        let (bgc, bgx, bgy) = if black_checks {
            let n = self.black_goals.len();
            let gx = self.black_goals.iter().any(|g| g.rel.0);
            let gy = self.black_goals.iter().any(|g| g.rel.1);
            let c = self.alloc(Quant::Exists, bits_for(n));
            let x = self.alloc(Quant::Exists, if gx { self.bx } else { 0 });
            let y = self.alloc(Quant::Exists, if gy { self.by } else { 0 });
            (c, x, y)
        } else {
            Default::default()
        };
        // White's goal: ∀ W_c, W_x, W_y ∃ W_ce (only for goals on several cells).
        let (wgc, wgx, wgy, wce) = if use_multi {
            let n = white_multi.len();
            let gx = white_multi.iter().any(|g| g.rel.0);
            let gy = white_multi.iter().any(|g| g.rel.1);
            let c = self.alloc(Quant::Forall, bits_for(n));
            let x = self.alloc(Quant::Forall, if gx { self.bx } else { 0 });
            let y = self.alloc(Quant::Forall, if gy { self.by } else { 0 });
            let most = white_multi
                .iter()
                .map(|g| g.groups.len())
                .max()
                .unwrap_or(0);
            let ce = self.alloc(Quant::Exists, bits_for(most));
            (c, x, y, ce)
        } else {
            Default::default()
        };
        // The symbolic position ∀ S_x, S_y and the state ∃ o^1, w^1, ..., o^{d+1}, w^{d+1}.
        self.sx = self.alloc(Quant::Forall, self.bx);
        self.sy = self.alloc(Quant::Forall, self.by);
        for _ in 0..=d {
            let v = self.alloc(Quant::Exists, 2);
            self.state.push((v[0], v[1]));
        }

        // ---- Goals ----
        // G_b: Black's goal B_c holds at (B_x, B_y) in the state at d+1 (the single copy of
        // the goal; G_b^t adds EQ(o^t, o^{d+1}) ∧ EQ(w^t, w^{d+1})).
        let gb = if black_checks {
            let n = self.black_goals.len();
            let mut parts = vec![lt_const(&mut self.c, &bgc, n as i64)];
            for (j, g) in self.black_goals.clone().iter().enumerate() {
                let sel = eq_const(&mut self.c, &bgc, j as i64);
                let mut body = vec![self.bdcir(g, &bgx, &bgy)];
                for grp in &g.groups {
                    let ri = self.ri(grp.cell, &bgx, &bgy);
                    let sc = self.sc(&grp.tests, d + 1);
                    body.push(self.c.implies(ri, sc));
                }
                let body = self.c.and(&body);
                parts.push(self.c.implies(sel, body));
            }
            self.c.and(&parts)
        } else {
            Lit::FALSE
        };
        // G_w on several cells: W_ce is a counterexample to White's goal W_c at (W_x, W_y)
        // in the state at d+1 (true when (W_x, W_y) is out of the goal's bounds).
        let gw_multi = if use_multi {
            let mut parts = Vec::new();
            for (j, g) in white_multi.iter().enumerate() {
                let sel = eq_const(&mut self.c, &wgc, j as i64);
                let bd = self.bdcir(g, &wgx, &wgy);
                let mut body = vec![lt_const(&mut self.c, &wce, g.groups.len() as i64)];
                for (k, grp) in g.groups.iter().enumerate() {
                    let ce = eq_const(&mut self.c, &wce, k as i64);
                    let ri = self.ri(grp.cell, &wgx, &wgy);
                    let sc = self.sc(&grp.tests, d + 1);
                    body.push(self.c.or(&[!ce, !ri, !sc]));
                }
                let body = self.c.and(&body);
                parts.push(self.c.or(&[!sel, !bd, body]));
            }
            self.c.and(&parts)
        } else {
            Lit::TRUE
        };

        // ---- B^i / W^i, from the last layer back ----
        let mut next = Lit::FALSE; // win with no plies left
        for t in (1..=d).rev() {
            let l = &layers[t - 1];
            let cont = if t == d { Lit::FALSE } else { next };
            next = if l.black {
                // B^t := M_b^t ∧ (gs^t ⇒ G_b^{t+1}) ∧ (¬gs^t ⇒ W^{t+1});  B^d := M_b^d ∧ G_b^{d+1}.
                let m = self.black_move(l, t);
                let goal = if black_checks {
                    let p = self.prop(t + 1, d + 1);
                    self.c.and2(p, gb)
                } else {
                    Lit::FALSE
                };
                let rest = match l.gs {
                    Some(gs) => {
                        let a = self.c.implies(gs, goal);
                        let b = self.c.implies(!gs, cont);
                        self.c.and2(a, b)
                    }
                    None => self.c.or2(goal, cont),
                };
                self.c.and2(m, rest)
            } else if !self.m.stuck_loses && t == d {
                // White to move with no plies left: a legal move makes Black lose, and none
                // is a draw, which is no win for Black either.
                Lit::FALSE
            } else {
                // W^t := M_w^t ∧ ((lb^t ∧ ⋀P^t) ⇒ ((gs^t ⇒ G_w^{t+1}) ∧ (¬gs^t ⇒ B^{t+1}))).
                // At t = d the seed's recursion has no B^{d+1}: with no plies left Black has
                // not won, so a legal white move there makes Black lose: W^d := M_w^d ∧ ¬valid.
                // Where a player who cannot move does not lose, W^t also needs a legal
                // White move (the witness): without one the game is a draw.
                let (m, valid) = self.white_move(l, t);
                let m = match &l.witness {
                    Some(w) => {
                        let can = self.white_can_move(w, t);
                        self.c.and2(m, can)
                    }
                    None => m,
                };
                let goal = if t == d {
                    Lit::TRUE
                } else if white_always {
                    // A white goal without atoms holds after every move.
                    Lit::FALSE
                } else {
                    // G_w^{t+1} for goals on one cell: no counterexample variables needed,
                    // "no position satisfies it" is "no cell S in the goal's image
                    // satisfies its tests", checked directly in the state at t+1.
                    let mut parts = Vec::new();
                    for g in &white_single {
                        let grp = &g.groups[0];
                        let image = self.image(g, grp.cell);
                        let sc = self.sc(&grp.tests, t + 1);
                        parts.push(self.c.implies(image, !sc));
                    }
                    if use_multi {
                        let p = self.prop(t + 1, d + 1);
                        parts.push(p);
                        parts.push(gw_multi);
                    }
                    self.c.and(&parts)
                };
                let rest = match l.gs {
                    Some(gs) => {
                        let a = self.c.implies(gs, goal);
                        let b = self.c.implies(!gs, cont);
                        self.c.and2(a, b)
                    }
                    None => self.c.and2(goal, cont),
                };
                let body = self.c.implies(valid, rest);
                self.c.and2(m, body)
            };
        }
        let init = self.initial();
        let out = self.c.and2(init, next);
        let first = if first_black {
            let l = &layers[0];
            Some(FirstMove {
                action: self.var_ids(&l.a),
                x: self.var_ids(&l.x),
                y: self.var_ids(&l.y),
                actions: self.black.clone(),
            })
        } else {
            None
        };
        self.finish(out, first)
    }

    /// The cells a one-cell goal refers to at the positions within its bounds, as a test
    /// on S.
    fn image(&mut self, g: &Cond, cell: Cell) -> Lit {
        let range = |ce: Ce, lo: i64, hi: i64| match ce {
            Ce::Rel(k) => (lo + k, hi + k),
            Ce::Fixed(v) => (v, v),
        };
        let (xl, xh) = range(cell.x, g.lo.0, g.hi.0);
        let (yl, yh) = range(cell.y, g.lo.1, g.hi.1);
        let (sx, sy) = (self.sx.clone(), self.sy.clone());
        let x = in_range(&mut self.c, &sx, xl, xh);
        let y = in_range(&mut self.c, &sy, yl, yh);
        self.c.and2(x, y)
    }

    fn finish(self, output: Lit, first: Option<FirstMove>) -> Encoding {
        Encoding {
            prefix: self.prefix,
            circuit: self.c,
            output,
            num_vars: self.next_var - 1,
            first,
            cnf: OnceLock::new(),
        }
    }
}
