//! Depth-limited alpha-beta with iterative deepening: `solve --max-depth D`.
//!
//! Two questions, by what the search puts at the leaves ([`Leaf`]):
//!
//! * [`Leaf::Outcome`]: can a player force a win within D plies? This is the standard
//!   library's `r-within` / `b-within` (seed 001's bounded question): a halted position is
//!   worth its outcome (+1 won by B, 0 drawn, -1 won by R), a position that has not halted
//!   when the plies run out is worth 0 (won by nobody *yet*), and a position that has not
//!   halted but has no move is lost by the player to move (with at least one ply left).
//!   "B wins within d" is then "the value is 1", asked with the null window (0, 1);
//! * [`Leaf::Score`]: the score under best play when play is cut off after D plies, a
//!   position still open then being worth the game's `eval` (an error when the game
//!   declares none: its value would be unknown).
//!
//! Iterative deepening searches to depth 1, 2, …, D on one transposition table, so that
//! each iteration tries first the move the previous one found best. It stops early when an
//! iteration's answer cannot change with more plies: for the win question, once the player
//! wins (a win within d is a win within any d' ≥ d); for both, once an iteration's answer
//! did not depend on any position cut off by the horizon (its proof lies in the finished
//! part of the game). Without an `eval`, a value search cannot value the shallower
//! iterations' horizons, so it searches to depth D at once.
//!
//! What the table keeps is what stays true as the depth changes:
//!
//! * for the win question, *monotone facts*: "B (or R) wins within d" holds for every
//!   depth from d on; "B (or R) does not win within d" for every depth up to d, and for
//!   every depth when its proof met no horizon. So a win found in one iteration ends the
//!   next one's search of that position at once;
//! * for values, bounds at one depth (the last searched), which hold at every deeper
//!   depth too when their search met no horizon (`complete`).
//!
//! Like [`super::ValueSearch`], the search keeps its own stack (no recursion, however large
//! D). A depth-limited search needs no cycle check: the depth bounds every line.

use super::order::{order, History};
use super::value::{halted_value, stuck_value, Leaf};
use crate::error::SolveError;
use crate::rules::Rules;
use crate::side::Side;
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// "At no depth" in the win question's facts (a depth no search reaches).
const NEVER: u32 = u32::MAX;

/// What is known of one position.
#[derive(Clone, Copy, Debug)]
struct Entry<C> {
    /// The successor that was best (or cut the search off) when it was last searched.
    best: Option<C>,
    /// [`Leaf::Score`]: `lo <= value <= hi` at `depth` plies, and at every deeper depth
    /// when `complete`.
    depth: u32,
    lo: i64,
    hi: i64,
    complete: bool,
    /// [`Leaf::Outcome`], per side (B, R): the least depth at which the side is known to
    /// win within it ([`NEVER`] if none), and the greatest depth at which it is known not
    /// to (`None` if none; [`NEVER`] when it wins at no depth).
    wins_from: [u32; 2],
    fails_to: [Option<u32>; 2],
}

impl<C> Entry<C> {
    fn new() -> Self {
        Entry {
            best: None,
            depth: 0,
            lo: i64::MIN,
            hi: i64::MAX,
            complete: false,
            wins_from: [NEVER; 2],
            fails_to: [None; 2],
        }
    }
}

fn ix(s: Side) -> usize {
    match s {
        Side::B => 0,
        Side::R => 1,
    }
}

/// A position being searched, with `d` plies left.
struct Frame<C> {
    p: Side,
    c: C,
    d: u32,
    /// The window the position was asked about.
    alpha: i64,
    beta: i64,
    /// The window its successors are asked about (narrowed as values come in).
    a: i64,
    b: i64,
    moves: Vec<C>,
    /// The moves' keys for the history heuristic (empty when the game gives none).
    keys: Vec<u64>,
    next: usize,
    /// Positions in the table when the current successor's search began.
    started: usize,
    /// The best value so far, and the successor that gave it.
    g: i64,
    best: Option<C>,
    /// Did anything searched below depend on the horizon?
    cut_off: bool,
}

/// The depth-limited search and its table. Keep it to ask more questions of one game.
pub struct BoundedSearch<C> {
    leaf: Leaf,
    table: FxHashMap<(Side, C), Entry<C>>,
    /// Moves that cut the search off, for ordering (kept across iterations).
    history: History,
    /// The depth asked for (for the error at an open horizon without `eval`).
    plies: u64,
}

impl<C: Copy + Eq + Hash> BoundedSearch<C> {
    /// A search for the win question ([`Leaf::Outcome`]) or values ([`Leaf::Score`]).
    pub fn new(leaf: Leaf) -> Self {
        assert!(leaf != Leaf::Distance, "a bounded search of distances");
        BoundedSearch {
            leaf,
            table: FxHashMap::default(),
            history: History::default(),
            plies: 0,
        }
    }

    /// Positions searched so far (each counted once, whatever the depths it was seen at).
    pub fn positions(&self) -> usize {
        self.table.len()
    }

    /// Every configuration the table names (positions and best successors): the roots a
    /// garbage collection must keep for the table to stay valid between searches.
    pub fn held(&self) -> Vec<C> {
        let mut out = Vec::with_capacity(2 * self.table.len());
        for (&(_, c), e) in &self.table {
            out.push(c);
            out.extend(e.best);
        }
        out
    }

    /// Can `who` force a win within `plies` plies from `c` with `p` to move? The answer of
    /// the standard library's `r-within` (R) / `b-within` (B).
    pub fn wins_within<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        who: Side,
        p: Side,
        c: C,
        plies: u64,
    ) -> Result<bool, SolveError> {
        assert_eq!(self.leaf, Leaf::Outcome);
        self.plies = plies;
        let plies = depth(plies);
        let (alpha, beta) = if who == Side::B { (0, 1) } else { (-1, 0) };
        let mut d = plies.min(1);
        loop {
            let (v, cut_off) = self.search(rules, p, c, d, alpha, beta)?;
            let wins = if who == Side::B { v >= 1 } else { v <= -1 };
            if wins || !cut_off || d >= plies {
                return Ok(wins);
            }
            d += 1;
        }
    }

    /// The score under best play (B maximising, R minimising) from `c` with `p` to move
    /// when play is cut off after `plies` plies, a position still open then being worth
    /// the game's `eval`.
    pub fn value_within<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
        plies: u64,
    ) -> Result<i64, SolveError> {
        assert_eq!(self.leaf, Leaf::Score);
        self.plies = plies;
        let plies = depth(plies);
        let has_eval = rules.eval(p, c)?.is_some();
        let mut d = if has_eval { plies.min(1) } else { plies };
        loop {
            let (v, cut_off) = self.search(rules, p, c, d, i64::MIN, i64::MAX)?;
            if !cut_off || d >= plies {
                return Ok(v);
            }
            d += 1;
        }
    }

    /// The bounds the table gives on the value of `c` (with `p` to move) at `d` plies, and
    /// whether they depend on the horizon (hold at this depth only).
    fn known(&self, p: Side, c: C, d: u32) -> Option<(i64, i64, bool)> {
        let e = self.table.get(&(p, c))?;
        match self.leaf {
            Leaf::Score => {
                (e.depth == d || (e.complete && e.depth <= d)).then_some((e.lo, e.hi, !e.complete))
            }
            _ => {
                let (b, r) = (ix(Side::B), ix(Side::R));
                let holds = |f: Option<u32>| f.is_some_and(|f| f >= d);
                let mut cut_off = false;
                let lo = if e.wins_from[b] <= d {
                    1
                } else if holds(e.fails_to[r]) {
                    cut_off |= e.fails_to[r] != Some(NEVER);
                    0
                } else {
                    i64::MIN
                };
                let hi = if e.wins_from[r] <= d {
                    -1
                } else if holds(e.fails_to[b]) {
                    cut_off |= e.fails_to[b] != Some(NEVER);
                    0
                } else {
                    i64::MAX
                };
                Some((lo, hi, cut_off))
            }
        }
    }

    /// Learn that the value of `c` at `d` plies, asked about (alpha, beta), came out `g`
    /// (fail-soft: a bound when outside the window); `complete` when its search met no
    /// horizon.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        p: Side,
        c: C,
        d: u32,
        (alpha, beta): (i64, i64),
        g: i64,
        best: Option<C>,
        complete: bool,
    ) {
        let (lo, hi) = if g <= alpha {
            (i64::MIN, g)
        } else if g >= beta {
            (g, i64::MAX)
        } else {
            (g, g)
        };
        let leaf = self.leaf;
        let e = self.table.entry((p, c)).or_insert_with(Entry::new);
        if best.is_some() {
            e.best = best;
        }
        if leaf == Leaf::Score {
            let valid = e.depth == d || (e.complete && e.depth <= d);
            if valid && e.complete == complete {
                // Both hold at d (and beyond, if complete): keep what each knows.
                (e.lo, e.hi) = (e.lo.max(lo), e.hi.min(hi));
            } else {
                (e.lo, e.hi) = (lo, hi);
            }
            (e.depth, e.complete) = (d, complete);
            return;
        }
        let (b, r) = (ix(Side::B), ix(Side::R));
        let upto = if complete { NEVER } else { d };
        let later = |f: &mut Option<u32>| *f = Some(f.map_or(upto, |f| f.max(upto)));
        if lo >= 1 {
            e.wins_from[b] = e.wins_from[b].min(d);
        }
        if lo >= 0 {
            later(&mut e.fails_to[r]);
        }
        if hi <= -1 {
            e.wins_from[r] = e.wins_from[r].min(d);
        }
        if hi <= 0 {
            later(&mut e.fails_to[b]);
        }
    }

    /// Alpha-beta (fail-soft) to `d` plies: the value if it lies strictly inside (alpha,
    /// beta), else a bound on the side where it lies; and whether it depends on the horizon.
    fn search<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
        d: u32,
        alpha: i64,
        beta: i64,
    ) -> Result<(i64, bool), SolveError> {
        let mut stack: Vec<Frame<C>> = Vec::new();
        let mut open = Some((p, c, d, alpha, beta));
        let mut result: Option<(i64, bool)> = None;
        loop {
            if let Some((p, c, d, alpha, beta)) = open.take() {
                match self.open(rules, &stack, p, c, d, alpha, beta)? {
                    Ok(v) => result = Some(v),
                    Err(frame) => stack.push(frame),
                }
            }
            let ply = stack.len().saturating_sub(1);
            let Some(top) = stack.last_mut() else {
                return Ok(result.expect("the root was searched"));
            };
            let mut cut = false;
            if let Some((v, cut_off)) = result.take() {
                top.cut_off |= cut_off;
                let m = top.moves[top.next - 1];
                if top.p == Side::B {
                    if v > top.g || top.best.is_none() {
                        (top.g, top.best) = (v, Some(m));
                    }
                    top.a = top.a.max(top.g);
                    cut = top.g >= top.beta;
                } else {
                    if v < top.g || top.best.is_none() {
                        (top.g, top.best) = (v, Some(m));
                    }
                    top.b = top.b.min(top.g);
                    cut = top.g <= top.alpha;
                }
            }
            if cut && !top.keys.is_empty() {
                let work = self.table.len() - top.started;
                self.history
                    .cut(top.p, top.keys[top.next - 1], work as u64, ply);
            }
            if !cut && top.next < top.moves.len() {
                let m = top.moves[top.next];
                top.next += 1;
                top.started = self.table.len();
                open = Some((top.p.opponent(), m, top.d - 1, top.a, top.b));
                continue;
            }
            let f = stack.pop().expect("non-empty");
            let window = (f.alpha, f.beta);
            self.store(f.p, f.c, f.d, window, f.g, f.best, !f.cut_off);
            result = Some((f.g, f.cut_off));
        }
    }

    /// Start on a position: its value when the table, a halted position, the horizon or an
    /// enhanced transposition cut-off gives it at once; otherwise its frame, successors
    /// ordered.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn open<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        stack: &[Frame<C>],
        p: Side,
        c: C,
        d: u32,
        alpha: i64,
        beta: i64,
    ) -> Result<Result<(i64, bool), Frame<C>>, SolveError> {
        let path = |p: Side, c: C| -> Vec<(Side, C)> {
            let mut path: Vec<(Side, C)> = stack.iter().map(|f| (f.p, f.c)).collect();
            path.push((p, c));
            path
        };
        // What the table knows: an answer, or a narrower window.
        let (mut alpha, mut beta, mut cut_off) = (alpha, beta, false);
        if let Some((lo, hi, dep)) = self.known(p, c, d) {
            if lo == hi || lo >= beta {
                return Ok(Ok((lo, dep)));
            }
            if hi <= alpha {
                return Ok(Ok((hi, dep)));
            }
            if lo > alpha || hi < beta {
                (alpha, beta, cut_off) = (alpha.max(lo), beta.min(hi), dep);
            }
        }
        if rules.interrupted() {
            return Err(rules.stop(&path(p, c)));
        }
        let looked = self.look(rules, p, c, d);
        let moves = match looked {
            Ok(Ok(v)) => return Ok(Ok(v)),
            Ok(Err(moves)) => moves,
            Err(e) => return Err(rules.in_context(e, &path(p, c))),
        };
        let hint = self.table.get(&(p, c)).and_then(|e| e.best);
        let q = p.opponent();
        // An enhanced transposition cut-off: a successor already known good enough.
        for &m in &moves {
            if let Some((lo, hi, dep)) = self.known(q, m, d - 1) {
                let cut = if p == Side::B {
                    (lo >= beta).then_some(lo)
                } else {
                    (hi <= alpha).then_some(hi)
                };
                if let Some(v) = cut {
                    // The bound learnt holds as far as the successor's does; but read in
                    // the window asked, it may rest on the table's narrowing too.
                    self.store(p, c, d, (alpha, beta), v, Some(m), !dep);
                    return Ok(Ok((v, dep || cut_off)));
                }
            }
        }
        let mut moves = moves;
        let known = |m| self.known(q, m, d - 1).map(|(lo, hi, _)| (lo, hi));
        let mut keys = Vec::new();
        if let Err(e) = order(
            rules,
            &self.history,
            p,
            c,
            &mut moves,
            hint,
            stack.len(),
            known,
            &mut keys,
        ) {
            return Err(rules.in_context(e, &path(p, c)));
        }
        Ok(Err(Frame {
            p,
            c,
            d,
            keys,
            started: 0,
            alpha,
            beta,
            a: alpha,
            b: beta,
            moves,
            next: 0,
            g: if p == Side::B { i64::MIN } else { i64::MAX },
            best: None,
            cut_off,
        }))
    }

    /// The value of a position the search ends at (play has stopped, no ply is left, or
    /// the mover is stuck), with whether it depends on the horizon; or its successors.
    #[allow(clippy::type_complexity)]
    fn look<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
        d: u32,
    ) -> Result<Result<(i64, bool), Vec<C>>, SolveError> {
        let all = (i64::MIN, i64::MAX);
        if let Some(v) = halted_value(self.leaf, rules, p, c)? {
            // Exact at every depth.
            self.store(p, c, 0, all, v, None, true);
            return Ok(Ok((v, false)));
        }
        if d == 0 {
            // The horizon: not won by anyone yet, or the game's estimate.
            let v = match self.leaf {
                Leaf::Score => rules.eval(p, c)?.ok_or_else(|| self.open_horizon())?,
                _ => 0,
            };
            self.store(p, c, 0, all, v, None, false);
            return Ok(Ok((v, true)));
        }
        let moves = rules.search_moves(p, c)?;
        if moves.is_empty() {
            // Lost by the mover at every depth from one ply on (at no ply left, it is the
            // horizon's: nobody has won yet).
            let v = stuck_value(self.leaf, p)?;
            self.store(p, c, 1, all, v, None, true);
            return Ok(Ok((v, false)));
        }
        Ok(Err(moves))
    }

    fn open_horizon(&self) -> SolveError {
        SolveError::Game(format!(
            "a position has not halted after {} plies and the game declares no `eval` to value it: give a larger --max-depth, or declare `op eval : Players Config -> Int` (counted for B) in the game's module",
            self.plies
        ))
    }
}

/// A number of plies as the search counts them (past four billion plies, no game ends).
fn depth(plies: u64) -> u32 {
    u32::try_from(plies).unwrap_or(NEVER - 1).min(NEVER - 1)
}
