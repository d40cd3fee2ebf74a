//! Minimax values: alpha-beta with a transposition table of bounds, on its own stack.
//!
//! One search serves two questions, by what it puts at the leaves ([`Leaf`]):
//!
//! * the *score* under best play (`solve --value`): the game's `score` at halted positions;
//! * the *outcome* (who wins, or a draw): +1 where B has won, 0 for a draw, -1 where R has.
//!   Searched with the window (-1, 1), alpha-beta is the one-pass three-valued outcome:
//!   once the mover has a draw in hand, the remaining successors are only asked "does this
//!   one win?", a Boolean question with the same short-circuits as formula (1) — where the
//!   standard library's `SOLVE` asks `w` and then `wb`, two passes over the game;
//! * the *distance* to the end under depth-optimal play (the principal line's question):
//!   a position won by B at the end is worth [`WON`], one won by R `-WON`, a draw 0, and
//!   each ply back a win is worth one less (see [`shrink`]). B maximising and R minimising
//!   then means exactly: the winner wins as fast as it can and the loser holds out as long
//!   as it can. A position's value is `±(WON - plies)`, whatever path led to it, so the
//!   table's bounds hold across transpositions like any other value.
//!
//! The table stores, for each position searched, the bounds learnt about its value (a
//! search that fails high learns a lower bound, one that fails low an upper bound) and the
//! successor that was best, which is tried first the next time the position is met. The
//! other successors are ordered as [`super::order`] says (the game's `eval`, what the table
//! knows of them, then killer moves and the history heuristic); one already known to cut
//! the search off ends it before any other is searched (an enhanced transposition
//! cut-off).
//!
//! The search keeps its own stack, so a game 100,000 plies deep runs without recursion.
//!
//! The table may be bounded ([`ValueSearch::set_capacity`]): when it is full, the half of
//! its entries with the least work below them (positions searched under them) is forgotten,
//! so memory no longer grows with the positions searched. A forgotten position is searched
//! again if it is met again; answers do not change (a table only ever saves work), only
//! the work done. The table keeps the entries that saved most, those high in the tree.
//!
//! A position met again while it is on the stack (play can repeat it) has no value the
//! search can compute. Its parent goes on without that move: if another move cuts the
//! search off, the bound it gives holds whatever an endless play would be worth, and is
//! stored as usual. A position whose value does depend on the repeat is not stored and is
//! unknown to its own parent in turn; at the root that is the cycle error. So a repeat no
//! longer stops the search merely because its move was tried first: only when the bound
//! asked for depends on it (which positions are on the stack, and so which repeat is met
//! and named, still follows the order).

use super::order::{order, History};
use crate::error::SolveError;
use crate::rules::Rules;
use crate::side::{Side, Verdict};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::hash::Hash;

/// What a halted position is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// The game's score (B maximises, R minimises).
    Score,
    /// +1 won by B, 0 drawn, -1 won by R.
    Outcome,
    /// `WON - plies` won by B, 0 drawn, `plies - WON` won by R, where `plies` counts the
    /// moves to the end of a depth-optimal play.
    Distance,
}

/// The value of a position won by B where play has ended ([`Leaf::Distance`]): far larger
/// than any number of plies, so that `WON - plies` stays positive.
pub const WON: i64 = 1 << 40;

/// A successor's [`Leaf::Distance`] value seen from its parent: a win one ply further
/// away. (The unknown bounds `i64::MIN` and `i64::MAX` stay as they are.)
pub fn shrink(v: i64) -> i64 {
    match v {
        i64::MIN | i64::MAX | 0 => v,
        v if v > 0 => v - 1,
        v => v + 1,
    }
}

/// The inverse of [`shrink`] on windows: a parent window (a, b) asks its successors about
/// (grow(a), grow(b)), so that `shrink(v) > a` exactly when `v > grow(a)`.
pub fn grow(v: i64) -> i64 {
    match v {
        i64::MIN | i64::MAX | 0 => v,
        v if v > 0 => v + 1,
        v => v - 1,
    }
}

/// What is known of a position's value: `lo <= value <= hi`.
#[derive(Clone, Copy, Debug)]
struct Bounds<C> {
    lo: i64,
    hi: i64,
    /// The successor that was best (or caused the cut-off) when it was last searched.
    best: Option<C>,
    /// Positions searched below it (itself included), over all its searches: what
    /// forgetting it would cost, for a bounded table's choice of entries to forget.
    work: u32,
}

/// A successor and what the table knows of its value (bounds), if anything.
type Known<C> = (C, Option<(i64, i64)>);

/// A position being searched.
struct Frame<C> {
    p: Side,
    c: C,
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
    /// Positions searched ([`ValueSearch::positions`]) when the position was opened, and
    /// when the current successor's search began.
    opened: usize,
    started: usize,
    /// The best value so far, and the successor that gave it.
    g: i64,
    best: Option<C>,
    /// The line to the first successor that was on the stack (a repeated position),
    /// left out of the search: the frame's value is then known only if another successor
    /// cuts the search off.
    repeat: Option<Vec<(Side, C)>>,
}

/// What opening a position gave: its value, its frame to search, or (a position already
/// on the stack) the line from the root to it.
enum Opened<C> {
    Value(i64),
    Frame(Frame<C>),
    Repeat(Vec<(Side, C)>),
}

/// The transposition table and the search. It lives as long as the caller keeps it, so
/// successive questions about the same game (the principal line's verdicts after the
/// solve) reuse what earlier ones learnt.
pub struct ValueSearch<C> {
    leaf: Leaf,
    /// Most positions the table may hold before a search stops with
    /// [`SolveError::OverLimit`].
    limit: usize,
    table: FxHashMap<(Side, C), Bounds<C>>,
    /// Most entries the table keeps ([`ValueSearch::set_capacity`]).
    capacity: usize,
    /// Positions searched: entries added to the table, counting again one forgotten and
    /// searched anew (without a capacity, the table's size).
    searched: usize,
    /// Say how the search goes every 2^20 positions (`GAMELANG_SOLVE_STATS`).
    progress: Option<std::time::Instant>,
    /// Moves that cut the search off, for ordering ([`History`]).
    history: History,
    /// May the search have the rules collect garbage ([`Rules::collect`])? Only when the
    /// caller holds no configuration of its own across the search but those in the table
    /// and those it pinned.
    collect: bool,
    /// Configurations the caller holds across a search ([`ValueSearch::pin`]).
    pinned: Vec<C>,
    /// The key buffers of frames searched, for the next frames (see [`order`]).
    spare_keys: Vec<Vec<u64>>,
    /// The configurations written into the table (positions and best moves) since the
    /// last garbage collection ([`ValueSearch::collected`]); `None` once they outnumber
    /// the table's (then [`ValueSearch::held`] is as good). See
    /// [`ValueSearch::held_since_collection`].
    fresh: Option<Vec<C>>,
}

impl<C: Copy + Eq + Hash> ValueSearch<C> {
    pub fn new(leaf: Leaf) -> Self {
        ValueSearch {
            leaf,
            limit: usize::MAX,
            table: FxHashMap::default(),
            capacity: usize::MAX,
            searched: 0,
            progress: std::env::var_os("GAMELANG_SOLVE_STATS").map(|_| std::time::Instant::now()),
            history: History::default(),
            collect: false,
            pinned: Vec::new(),
            spare_keys: Vec::new(),
            fresh: Some(Vec::new()),
        }
    }

    /// The configurations the caller holds across the next searches, which a collection
    /// must keep (replacing those pinned before).
    pub fn pin(&mut self, held: &[C]) {
        self.pinned.clear();
        self.pinned.extend_from_slice(held);
    }

    /// Let the search collect the rules' garbage as it goes, keeping the configurations of
    /// its table and stack: the caller promises that it holds no other configuration
    /// across a search than those in the table (such as a position searched) and those it
    /// pinned ([`ValueSearch::pin`]).
    pub fn set_collect(&mut self, on: bool) {
        self.collect = on;
    }

    /// Every configuration the search holds: the table's positions and best moves, and
    /// the stack's positions, moves, best moves and repeated lines.
    fn live(&self, stack: &[Frame<C>], opening: Option<C>) -> Vec<C> {
        let mut live = Vec::with_capacity(2 * self.table.len() + 64);
        live.extend(opening);
        live.extend_from_slice(&self.pinned);
        for (&(_, c), b) in &self.table {
            live.push(c);
            live.extend(b.best);
        }
        for f in stack {
            live.push(f.c);
            live.extend_from_slice(&f.moves);
            live.extend(f.best);
            if let Some(path) = &f.repeat {
                live.extend(path.iter().map(|&(_, c)| c));
            }
        }
        live
    }

    /// Stop searching (with [`SolveError::OverLimit`]) once `limit` positions have been
    /// searched ([`ValueSearch::positions`]); what was learnt stays in the table.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit;
    }

    /// Keep at most about `capacity` positions in the table (at least 2): when it is full,
    /// forget the half with the least work below them. Unbounded by default.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(2);
    }

    /// Positions searched so far: the positions whose value the table learnt, a position
    /// forgotten by a bounded table and searched again counting again. (Without a
    /// capacity, the positions in the table.)
    pub fn positions(&self) -> usize {
        self.searched
    }

    /// Positions the table holds now.
    pub fn kept(&self) -> usize {
        self.table.len()
    }

    /// Every configuration the table names (its positions and their best successors) and
    /// those pinned: the roots a garbage collection must keep for the table to stay valid
    /// between searches.
    pub fn held(&self) -> Vec<C> {
        self.live(&[], None)
    }

    /// The configurations the table names that were written into it since the last
    /// garbage collection, and those pinned: what a collection of the young terms alone
    /// (`Engine::collect_due`) must be given, when every configuration the table held at
    /// the last collection was its root (and is therefore old). `None` when so many were
    /// written that [`ValueSearch::held`] costs no more.
    pub fn held_since_collection(&self) -> Option<Vec<C>> {
        let fresh = self.fresh.as_ref()?;
        let mut out = Vec::with_capacity(fresh.len() + self.pinned.len());
        out.extend_from_slice(fresh);
        out.extend_from_slice(&self.pinned);
        Some(out)
    }

    /// A garbage collection kept every configuration the table names: none is fresh now.
    pub fn collected(&mut self) {
        self.fresh = Some(Vec::new());
    }

    /// Note the configurations `c` and `best` written into the table.
    fn note_written(&mut self, c: C, best: Option<C>) {
        let Some(fresh) = &mut self.fresh else {
            return;
        };
        if fresh.len() > 2 * self.table.len() + 1024 {
            // More writes than entries: the whole table is as cheap to name.
            self.fresh = None;
            return;
        }
        fresh.push(c);
        fresh.extend(best);
    }

    /// Forget about half of the table: the entries with the least work below them.
    fn forget(&mut self) {
        let n = self.table.len() / 2;
        let mut works: Vec<u32> = self.table.values().map(|b| b.work).collect();
        let (below, &mut t, _) = works.select_nth_unstable(n);
        // Everything with less work than the median goes, and as many with just as much
        // as make up half.
        let mut ties = n - below.iter().filter(|&&w| w < t).count();
        self.table.retain(|_, b| {
            if b.work < t {
                false
            } else if b.work == t && ties > 0 {
                ties -= 1;
                false
            } else {
                true
            }
        });
    }

    /// Start a [`Leaf::Distance`] search from what an outcome search (`outcomes`, a search
    /// with [`Leaf::Outcome`]) learnt: a distance has the sign of the outcome, so each
    /// outcome bound is a distance bound (a position known not won by B is worth at most
    /// 0, one won by B at least 1), and its best successor is a good first try. The
    /// distance search then never searches a move whose outcome already rules it out.
    pub fn seed_signs(&mut self, outcomes: &ValueSearch<C>) {
        debug_assert!(self.leaf == Leaf::Distance && outcomes.leaf == Leaf::Outcome);
        let lo = |v: i64| if v <= -1 { i64::MIN } else { v };
        let hi = |v: i64| if v >= 1 { i64::MAX } else { v };
        for (&k, b) in &outcomes.table {
            if let std::collections::hash_map::Entry::Vacant(e) = self.table.entry(k) {
                e.insert(Bounds {
                    lo: lo(b.lo),
                    hi: hi(b.hi),
                    best: b.best,
                    work: b.work,
                });
                self.searched += 1;
                self.note_written(k.1, b.best);
            }
        }
    }

    /// The successor that was best (or cut the search off) when `c` was last searched.
    pub fn best(&self, p: Side, c: C) -> Option<C> {
        self.table.get(&(p, c)).and_then(|b| b.best)
    }

    /// The value of `c` with `p` to move if it lies strictly inside (alpha, beta); else a
    /// bound on the side where it lies (`<= alpha` or `>= beta`).
    pub fn bounded<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
        alpha: i64,
        beta: i64,
    ) -> Result<i64, SolveError> {
        self.search(rules, p, c, alpha, beta)
    }

    /// A successor's value seen from its parent (see [`shrink`]).
    fn lift(&self, v: i64) -> i64 {
        if self.leaf == Leaf::Distance {
            shrink(v)
        } else {
            v
        }
    }

    /// The window a parent's window (a, b) asks its successors about.
    fn widen(&self, a: i64, b: i64) -> (i64, i64) {
        if self.leaf == Leaf::Distance {
            (grow(a), grow(b))
        } else {
            (a, b)
        }
    }

    /// The exact minimax value of `c` with `p` to move.
    pub fn value<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
    ) -> Result<i64, SolveError> {
        self.search(rules, p, c, i64::MIN, i64::MAX)
    }

    /// Who wins from `c` with `p` to move, or a draw (for a search with [`Leaf::Outcome`]).
    pub fn verdict<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
    ) -> Result<Verdict, SolveError> {
        debug_assert_eq!(self.leaf, Leaf::Outcome);
        // Values are -1, 0 and 1: the window (-1, 1) makes every answer exact.
        Ok(match self.search(rules, p, c, -1, 1)? {
            v if v >= 1 => Verdict::Win(Side::B),
            v if v <= -1 => Verdict::Win(Side::R),
            _ => Verdict::Draw,
        })
    }

    /// What the table can answer about a position for the window (alpha, beta) without a
    /// search: a value, or the window narrowed and the successor to try first.
    fn probe(&self, p: Side, c: C, alpha: i64, beta: i64) -> Result<i64, (i64, i64, Option<C>)> {
        match self.table.get(&(p, c)) {
            None => Err((alpha, beta, None)),
            Some(b) if b.lo == b.hi || b.lo >= beta => Ok(b.lo),
            Some(b) if b.hi <= alpha => Ok(b.hi),
            Some(b) => Err((alpha.max(b.lo), beta.min(b.hi), b.best)),
        }
    }

    /// Learn from a search of `c` (with `p` to move) for the window (alpha, beta), which
    /// found `g` and the successor `best` after searching `work` positions.
    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        p: Side,
        c: C,
        alpha: i64,
        beta: i64,
        g: i64,
        best: Option<C>,
        work: usize,
    ) {
        if !self.table.contains_key(&(p, c)) {
            if self.table.len() >= self.capacity {
                self.forget();
            }
            self.searched += 1;
            if let Some(began) = self.progress {
                if self.searched.is_multiple_of(1 << 20) {
                    eprintln!(
                        "  search: {} positions, {} in the table, {:.1} s",
                        self.searched,
                        self.table.len() + 1,
                        began.elapsed().as_secs_f64()
                    );
                }
            }
        }
        let entry = self.table.entry((p, c)).or_insert(Bounds {
            lo: i64::MIN,
            hi: i64::MAX,
            best: None,
            work: 0,
        });
        entry.work = entry
            .work
            .saturating_add(u32::try_from(work.max(1)).unwrap_or(u32::MAX));
        if g <= alpha {
            entry.hi = entry.hi.min(g);
        } else if g >= beta {
            entry.lo = entry.lo.max(g);
        } else {
            entry.lo = g;
            entry.hi = g;
        }
        if best.is_some() {
            entry.best = best;
        }
        self.note_written(c, best);
    }

    /// Alpha-beta (fail-soft): the value if it lies strictly inside (alpha, beta); else a
    /// bound on the side where it lies.
    fn search<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        p: Side,
        c: C,
        alpha: i64,
        beta: i64,
    ) -> Result<i64, SolveError> {
        let mut stack: Vec<Frame<C>> = Vec::new();
        let mut on_stack: FxHashSet<(Side, C)> = FxHashSet::default();
        let mut open = Some((p, c, alpha, beta));
        let mut result: Option<i64> = None;
        loop {
            if let Some((p, c, alpha, beta)) = open.take() {
                if self.collect && rules.wants_collection() {
                    let live = self.live(&stack, Some(c));
                    rules.collect(&live);
                }
                match self.open(rules, &stack, &on_stack, p, c, alpha, beta)? {
                    Opened::Value(v) => result = Some(v),
                    Opened::Frame(frame) => {
                        on_stack.insert((p, c));
                        stack.push(frame);
                    }
                    Opened::Repeat(path) => {
                        let top = stack.last_mut().expect("a repeat has a parent");
                        top.repeat.get_or_insert(path);
                    }
                }
            }
            let ply = stack.len().saturating_sub(1);
            let Some(top) = stack.last_mut() else {
                return Ok(result.expect("the root was searched"));
            };
            let mut cut = false;
            if let Some(v) = result.take() {
                let v = self.lift(v);
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
                let work = self.searched - top.started;
                self.history
                    .cut(top.p, top.keys[top.next - 1], work as u64, ply);
            }
            if !cut && top.next < top.moves.len() {
                let m = top.moves[top.next];
                top.next += 1;
                top.started = self.searched;
                let (a, b) = self.widen(top.a, top.b);
                open = Some((top.p.opponent(), m, a, b));
                continue;
            }
            let mut f = stack.pop().expect("non-empty");
            on_stack.remove(&(f.p, f.c));
            self.spare_keys.push(std::mem::take(&mut f.keys));
            if let (Some(path), false) = (f.repeat, cut) {
                // The value depends on the repeated position's, so it is not known: the
                // parent goes on without it (another move may still cut it off), and at
                // the root it is a cycle in the game. Nothing is stored for it.
                match stack.last_mut() {
                    Some(parent) => {
                        parent.repeat.get_or_insert(path);
                        continue;
                    }
                    None => return Err(rules.cycle(&path)),
                }
            }
            let work = self.searched - f.opened + 1;
            self.store(f.p, f.c, f.alpha, f.beta, f.g, f.best, work);
            result = Some(f.g);
        }
    }

    /// Start on a position: its value when the table, a halted position or an enhanced
    /// transposition cut-off gives it at once; otherwise its frame, successors ordered.
    #[allow(clippy::too_many_arguments)]
    fn open<R: Rules<Config = C>>(
        &mut self,
        rules: &mut R,
        stack: &[Frame<C>],
        on_stack: &FxHashSet<(Side, C)>,
        p: Side,
        c: C,
        alpha: i64,
        beta: i64,
    ) -> Result<Opened<C>, SolveError> {
        let (alpha, beta, hint) = match self.probe(p, c, alpha, beta) {
            Ok(v) => return Ok(Opened::Value(v)),
            Err(narrowed) => narrowed,
        };
        let path = |p: Side, c: C| -> Vec<(Side, C)> {
            let mut path: Vec<(Side, C)> = stack.iter().map(|f| (f.p, f.c)).collect();
            path.push((p, c));
            path
        };
        if on_stack.contains(&(p, c)) {
            return Ok(Opened::Repeat(path(p, c)));
        }
        if self.searched >= self.limit {
            return Err(SolveError::OverLimit);
        }
        if rules.interrupted() {
            return Err(rules.stop(&path(p, c)));
        }
        // A position the table does not know, whose mirror image it does: the image's
        // bounds hold for it (the two are worth the same).
        let (alpha, beta) = if hint.is_none() && !self.table.contains_key(&(p, c)) {
            match rules.mirror(p, c) {
                Ok(Some(m)) if m != c => match self.probe(p, m, alpha, beta) {
                    Ok(v) => return Ok(Opened::Value(v)),
                    Err((a, b, _)) => (a, b),
                },
                Ok(_) => (alpha, beta),
                Err(e) => return Err(rules.in_context(e, &path(p, c))),
            }
        } else {
            (alpha, beta)
        };
        let looked = look(self.leaf, rules, p, c);
        let moves = match looked {
            Ok(Ok(v)) => {
                // Halted: its value is exact whatever the window.
                self.store(p, c, i64::MIN, i64::MAX, v, None, 1);
                return Ok(Opened::Value(v));
            }
            Ok(Err(moves)) => moves,
            Err(e) => return Err(rules.in_context(e, &path(p, c))),
        };
        let mut moves = moves;
        let q = p.opponent();
        // What the table knows of each successor: its own entry, or else its mirror
        // image's (the two are worth the same). A successor already known good enough is
        // an enhanced transposition cut-off, taken as soon as it is found: the successors
        // after it are not looked up (each look-up is a miss of the processor's caches
        // once the table is large).
        let mut found: SmallVec<[Known<C>; 16]> = SmallVec::with_capacity(moves.len());
        for &m in &moves {
            let entry = match self.table.get(&(q, m)) {
                Some(b) => Some(b),
                None => match rules.mirror(q, m) {
                    Ok(Some(image)) if image != m => self.table.get(&(q, image)),
                    Ok(_) => None,
                    Err(e) => return Err(rules.in_context(e, &path(p, c))),
                },
            };
            let bounds = entry.map(|b| (b.lo, b.hi));
            if let Some((lo, hi)) = bounds {
                let (lo, hi) = (self.lift(lo), self.lift(hi));
                if p == Side::B && lo >= beta {
                    self.store(p, c, alpha, beta, lo, Some(m), 1);
                    return Ok(Opened::Value(lo));
                }
                if p == Side::R && hi <= alpha {
                    self.store(p, c, alpha, beta, hi, Some(m), 1);
                    return Ok(Opened::Value(hi));
                }
            }
            found.push((m, bounds));
        }
        let known = |m| found.iter().find(|f| f.0 == m).and_then(|f| f.1);
        let mut keys = self.spare_keys.pop().unwrap_or_default();
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
        Ok(Opened::Frame(Frame {
            p,
            c,
            keys,
            opened: self.searched,
            started: 0,
            alpha,
            beta,
            a: alpha,
            b: beta,
            moves,
            next: 0,
            g: if p == Side::B { i64::MIN } else { i64::MAX },
            best: None,
            repeat: None,
        }))
    }
}

/// A halted position's value for the question `leaf` asks, or the successors of one that
/// has not halted.
fn look<C: Copy, R: Rules<Config = C>>(
    leaf: Leaf,
    rules: &mut R,
    p: Side,
    c: C,
) -> Result<Result<i64, Vec<C>>, SolveError> {
    if let Some(v) = halted_value(leaf, rules, p, c)? {
        return Ok(Ok(v));
    }
    let moves = rules.search_moves(p, c)?;
    if moves.is_empty() {
        return stuck_value(leaf, p).map(Ok);
    }
    Ok(Err(moves))
}

/// The value of `c` with `p` to move if play has stopped there (`None` if not), for the
/// question `leaf` asks. (Shared with the depth-limited search, [`super::bounded`].)
pub(super) fn halted_value<C: Copy, R: Rules<Config = C>>(
    leaf: Leaf,
    rules: &mut R,
    p: Side,
    c: C,
) -> Result<Option<i64>, SolveError> {
    if !rules.halted(p, c)? {
        return Ok(None);
    }
    Ok(Some(match leaf {
        Leaf::Score => rules.score(p, c)?,
        Leaf::Outcome | Leaf::Distance => {
            let won = if leaf == Leaf::Outcome { 1 } else { WON };
            match rules.result(p, c)? {
                Verdict::Win(Side::B) => won,
                Verdict::Win(Side::R) => -won,
                Verdict::Draw => 0,
            }
        }
    }))
}

/// The value of a position that has not halted but where `p`, to move, has no move.
pub(super) fn stuck_value(leaf: Leaf, p: Side) -> Result<i64, SolveError> {
    match leaf {
        // As in formula (1): a position that has not halted but has no move is lost by
        // the player to move.
        Leaf::Outcome => Ok(if p == Side::B { -1 } else { 1 }),
        Leaf::Distance => Ok(if p == Side::B { -WON } else { WON }),
        Leaf::Score => Err(SolveError::Game(format!(
            "the position has not halted but {} has no move, so it has no score (make it halted, or give it a move)",
            p.name()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(v: Option<Vec<u32>>) -> Option<Vec<u32>> {
        v.map(|mut v| {
            v.sort_unstable();
            v.dedup();
            v
        })
    }

    /// What a young collection must be given: every position and best move written into
    /// the table since the last collection (a new entry, or an old one given a new best
    /// move), and the pinned ones; once the writes outnumber the table, the whole table.
    #[test]
    fn the_configurations_written_since_a_collection_are_named() {
        let mut s: ValueSearch<u32> = ValueSearch::new(Leaf::Score);
        s.store(Side::R, 1, 0, 10, 5, Some(2), 1);
        assert_eq!(sorted(s.held_since_collection()), Some(vec![1, 2]));
        s.collected();
        assert_eq!(s.held_since_collection(), Some(vec![]));
        s.pin(&[9]);
        s.store(Side::B, 3, 0, 10, 5, Some(4), 1);
        s.store(Side::R, 1, 0, 10, 6, Some(5), 1);
        assert_eq!(sorted(s.held_since_collection()), Some(vec![1, 3, 4, 5, 9]));
        let mut all = s.held();
        all.sort_unstable();
        assert_eq!(all, vec![1, 3, 4, 5, 9], "the table and the pinned");
        for g in 0..3000 {
            s.store(Side::R, 1, 0, 10_000, g, Some(6), 1);
        }
        assert_eq!(s.held_since_collection(), None, "more writes than entries");
        s.collected();
        assert_eq!(s.held_since_collection(), Some(vec![9]));
    }
}
