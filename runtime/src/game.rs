//! The game driver: answers "who wins from here?" for a game declared in a `.game` file.
//!
//! The answer itself is computed by the language: the driver reduces `w(p, c)` of the
//! game's `WINS` instance (formula (1) of seed 003, memoised), and the successor sets with
//! the game's own `next-config`. What the driver adds is the report around it: the winner,
//! a winning move (a successor whose `w` keeps the win), the principal line, the number of
//! positions `w` evaluated, and diagnostics for run-time errors.

use crate::error::{RuntimeError, RuntimeFailure};
use crate::term::TermId;
use crate::Engine;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use std::time::{Duration, Instant};

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Benny.
    B,
    /// Rebecca.
    R,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::B => "B",
            Side::R => "R",
        }
    }

    pub fn full_name(self) -> &'static str {
        match self {
            Side::B => "Benny",
            Side::R => "Rebecca",
        }
    }

    pub fn opponent(self) -> Side {
        match self {
            Side::B => Side::R,
            Side::R => Side::B,
        }
    }
}

/// Who wins under best play, or a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    Win(Side),
    Draw,
}

impl Verdict {
    /// `"B"`, `"R"` or `"draw"`, as in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Win(s) => s.name(),
            Verdict::Draw => "draw",
        }
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            Verdict::Win(s) => Some(s),
            Verdict::Draw => None,
        }
    }
}

/// The result of solving a game from one position.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub start: TermId,
    pub to_move: Side,
    pub winner: Verdict,
    /// The successor the player to move should choose, when that player is the winner;
    /// `None` when the player to move loses (every move loses), in a draw, or when play
    /// has halted.
    pub best_move: Option<TermId>,
    /// Configurations from `start` under the principal line: the winner plays its first
    /// winning move (in the successor set's order), the loser its first move; the players
    /// alternate, starting with `to_move`. Ends at a halted position.
    pub line: Vec<TermId>,
    /// Distinct positions (player, configuration) evaluated by `w` in this solve.
    pub positions: usize,
    /// Is the line depth-optimal (fastest win, longest defence)? `false` when finding it
    /// would have taken more than the line budget; the line then has the winner play its
    /// first winning move and the loser its first move.
    pub depth_optimal: bool,
    /// Rewrite steps taken.
    pub steps: u64,
    pub elapsed: Duration,
}

impl Outcome {
    /// The player who makes ply `k` (1-based) of the principal line.
    pub fn mover(&self, k: usize) -> Side {
        if !k.is_multiple_of(2) {
            self.to_move
        } else {
            self.to_move.opponent()
        }
    }
}

/// Why solving failed.
#[derive(Clone, Debug)]
pub enum SolveError {
    /// The rewriting engine stopped (stuck term, budget, cycle, …).
    Runtime(RuntimeFailure),
    /// The game itself is not well formed (e.g. `w` does not reduce to a Boolean).
    Game(String),
}

/// The driver's view of one game: the terms it builds and reads.
pub struct GameDriver<'g> {
    pub game: &'g Game,
    pub b: TermId,
    pub r: TermId,
    draw: TermId,
    truth: TermId,
    falsity: TermId,
}

impl<'g> GameDriver<'g> {
    pub fn new(engine: &mut Engine, game: &'g Game) -> Result<GameDriver<'g>, SolveError> {
        let sig = &engine.program().sig;
        let (t, f) = match (sig.true_op, sig.false_op) {
            (Some(t), Some(f)) => (t, f),
            _ => return Err(SolveError::Game("the prelude defines no Booleans".into())),
        };
        let [b, r] = game.players;
        Ok(GameDriver {
            game,
            b: engine.mk_app(b, &[]),
            r: engine.mk_app(r, &[]),
            draw: engine.mk_app(game.draw, &[]),
            truth: engine.mk_app(t, &[]),
            falsity: engine.mk_app(f, &[]),
        })
    }

    /// The terms this driver holds between reductions, which a garbage collection of the
    /// engine's term store must keep.
    pub fn roots(&self) -> Vec<TermId> {
        vec![self.b, self.r, self.draw, self.truth, self.falsity]
    }

    fn reduce(&self, engine: &mut Engine, t: TermId) -> Result<TermId, SolveError> {
        engine
            .reduce(t)
            .map_err(|e| SolveError::Runtime(engine.failure(e)))
    }

    fn boolean(&self, engine: &mut Engine, t: TermId, what: &str) -> Result<bool, SolveError> {
        let v = self.reduce(engine, t)?;
        if v == self.truth {
            Ok(true)
        } else if v == self.falsity {
            Ok(false)
        } else {
            Err(SolveError::Game(format!(
                "{what} reduced to `{}`, which is not a Boolean",
                engine.show(v)
            )))
        }
    }

    /// The configuration drawn by the game's `display`, if it has one.
    pub fn draw(&self, engine: &mut Engine, c: TermId) -> Result<Option<String>, SolveError> {
        let Some(display) = self.game.display else {
            return Ok(None);
        };
        let t = engine.build(&Pat::App(display, vec![Pat::Var(0)]), &[c]);
        let v = self.reduce(engine, t)?;
        let mut out = String::new();
        self.render(engine, v, &mut out);
        Ok(Some(out))
    }

    /// Append the text of a String value: literals joined by `++`.
    fn render(&self, engine: &Engine, t: TermId, out: &mut String) {
        let store = engine.store();
        match store.op(t) {
            Some(op) if Some(op) == self.game.concat => {
                for &a in store.args(t) {
                    self.render(engine, a, out);
                }
            }
            Some(op)
                if store.args(t).is_empty()
                    && engine.program().sig.op(op).name.starts_with('"') =>
            {
                out.push_str(&unquote(&engine.program().sig.op(op).name));
            }
            _ => out.push_str(&engine.show(t)),
        }
    }

    /// Which player a (reduced) player term is.
    pub fn side(&self, engine: &mut Engine, p: TermId) -> Result<Side, SolveError> {
        let v = self.reduce(engine, p)?;
        if v == self.b {
            Ok(Side::B)
        } else if v == self.r {
            Ok(Side::R)
        } else {
            Err(SolveError::Game(format!(
                "`{}` is not a player (B or R)",
                engine.show(v)
            )))
        }
    }

    pub fn player(&self, s: Side) -> TermId {
        match s {
            Side::B => self.b,
            Side::R => self.r,
        }
    }

    /// Does R have a winning strategy from `c` with `p` to move? (`w(p, c)` of WINS.)
    pub fn r_wins(&self, engine: &mut Engine, p: Side, c: TermId) -> Result<bool, SolveError> {
        let t = engine.build(
            &Pat::App(self.game.w, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.player(p), c],
        );
        self.boolean(engine, t, "`w`")
    }

    pub fn winner(&self, engine: &mut Engine, p: Side, c: TermId) -> Result<Side, SolveError> {
        Ok(if self.r_wins(engine, p, c)? {
            Side::R
        } else {
            Side::B
        })
    }

    /// Who wins from `c` with `p` to move, or a draw. A win/lose game asks `w` alone; a game
    /// with draws asks `outcome` of SOLVE (which asks `w`, then `wb`).
    pub fn verdict(&self, engine: &mut Engine, p: Side, c: TermId) -> Result<Verdict, SolveError> {
        if !self.game.draws {
            return Ok(Verdict::Win(self.winner(engine, p, c)?));
        }
        let t = engine.build(
            &Pat::App(self.game.outcome, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.player(p), c],
        );
        let v = self.reduce(engine, t)?;
        if v == self.b {
            Ok(Verdict::Win(Side::B))
        } else if v == self.r {
            Ok(Verdict::Win(Side::R))
        } else if v == self.draw {
            Ok(Verdict::Draw)
        } else {
            Err(SolveError::Game(format!(
                "`outcome` reduced to `{}`, not B, R or draw",
                engine.show(v)
            )))
        }
    }

    /// Can `who` force a win within `plies` plies from `c` with `p` to move?
    /// (`r-within` / `b-within` of SOLVE: the bounded question of seed 001.)
    pub fn wins_within(
        &self,
        engine: &mut Engine,
        who: Side,
        p: Side,
        c: TermId,
        plies: u64,
    ) -> Result<bool, SolveError> {
        let op = match who {
            Side::R => self.game.r_within,
            Side::B => self.game.b_within,
        };
        let d = i64::try_from(plies)
            .map_err(|_| SolveError::Game(format!("depth {plies} is too large")))?;
        let d = engine.mk_int(d);
        let t = engine.build(
            &Pat::App(op, vec![Pat::Var(0), Pat::Var(1), Pat::Var(2)]),
            &[self.player(p), c, d],
        );
        self.boolean(
            engine,
            t,
            if who == Side::R {
                "`r-within`"
            } else {
                "`b-within`"
            },
        )
    }

    pub fn halted(&self, engine: &mut Engine, p: Side, c: TermId) -> Result<bool, SolveError> {
        let t = engine.build(&self.game.halted, &[self.player(p), c]);
        self.boolean(engine, t, "`halted`")
    }

    /// The configurations `p` can move to from `c`, in the set's order.
    pub fn moves(
        &self,
        engine: &mut Engine,
        p: Side,
        c: TermId,
    ) -> Result<Vec<TermId>, SolveError> {
        let t = engine.build(&self.game.next_config, &[self.player(p), c]);
        let set = self.reduce(engine, t)?;
        Ok(engine.elements(set, self.game.set_union))
    }

    /// A move that keeps the win for `winner`, who is to move at `c`.
    pub fn winning_move(
        &self,
        engine: &mut Engine,
        winner: Side,
        c: TermId,
    ) -> Result<Option<TermId>, SolveError> {
        for m in self.moves(engine, winner, c)? {
            if self.winner(engine, winner.opponent(), m)? == winner {
                return Ok(Some(m));
            }
        }
        Ok(None)
    }
}

/// The text of a string literal: quotes removed, `\n`, `\t`, `\"` and `\\` read.
pub fn unquote(literal: &str) -> String {
    let inner = &literal[1..literal.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Longest principal line the driver follows (a guard; real games are far shorter unless
/// they are built to be deep, like the 100,000-ply test game).
pub const MAX_LINE: usize = 10_000_000;

/// Positions evaluated so far by the game's memoised deciders (`w`, and `wb` for draws).
fn positions(engine: &Engine, game: &Game) -> usize {
    engine.memo_len(game.w)
        + if game.draws {
            engine.memo_len(game.wb)
        } else {
            0
        }
}

/// Solve `game` from configuration `start` with `first` to move.
pub fn solve(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
) -> Result<Outcome, SolveError> {
    solve_with_budget(engine, game, start, first, DEFAULT_LINE_BUDGET)
}

/// Positions the search for a depth-optimal principal line may visit before `solve` settles
/// for a line of first winning moves (deciding who wins can be far cheaper than finding the
/// fastest win: on the 5x5 colouring board, 0.2 s against 8.5 s).
pub const DEFAULT_LINE_BUDGET: usize = 200_000;

/// [`solve`] with a budget for the depth-optimal line.
pub fn solve_with_budget(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    line_budget: usize,
) -> Result<Outcome, SolveError> {
    let began = Instant::now();
    let steps_before = engine.steps();
    let memo_before = positions(engine, game);
    let d = GameDriver::new(engine, game)?;
    let start_t = engine.build(start, &[]);
    let start = d.reduce(engine, start_t)?;
    let first_t = engine.build(first, &[]);
    let to_move = d.side(engine, first_t)?;
    let verdict = d.verdict(engine, to_move, start)?;
    let (line, depth_optimal) =
        match d.principal_line(engine, to_move, start, verdict, line_budget)? {
            Some(line) => (line, true),
            None => (d.first_moves_line(engine, to_move, start, verdict)?, false),
        };
    let best_move = if verdict == Verdict::Win(to_move) {
        line.get(1).copied()
    } else {
        None
    };
    Ok(Outcome {
        start,
        to_move,
        winner: verdict,
        best_move,
        line,
        depth_optimal,
        positions: positions(engine, game) - memo_before,
        steps: engine.steps() - steps_before,
        elapsed: began.elapsed(),
    })
}

/// The answer to the bounded question: can the player to move force a win within `plies`?
#[derive(Clone, Debug)]
pub struct Bounded {
    pub start: TermId,
    pub to_move: Side,
    pub max_depth: u64,
    pub wins: bool,
    pub positions: usize,
    pub steps: u64,
    pub elapsed: Duration,
}

/// Can the player to move at `start` force a win within `plies` plies?
pub fn solve_within(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    plies: u64,
) -> Result<Bounded, SolveError> {
    let began = Instant::now();
    let steps_before = engine.steps();
    let memo_before = engine.memo_len(game.r_within) + engine.memo_len(game.b_within);
    let d = GameDriver::new(engine, game)?;
    let start_t = engine.build(start, &[]);
    let start = d.reduce(engine, start_t)?;
    let first_t = engine.build(first, &[]);
    let to_move = d.side(engine, first_t)?;
    let wins = d.wins_within(engine, to_move, to_move, start, plies)?;
    Ok(Bounded {
        start,
        to_move,
        max_depth: plies,
        wins,
        positions: engine.memo_len(game.r_within) + engine.memo_len(game.b_within) - memo_before,
        steps: engine.steps() - steps_before,
        elapsed: began.elapsed(),
    })
}

/// The optimal score (`value` of VALUE) from a position.
#[derive(Clone, Debug)]
pub struct Valued {
    pub start: TermId,
    pub to_move: Side,
    pub value: i64,
    pub positions: usize,
    pub steps: u64,
    pub elapsed: Duration,
}

/// The score under best play (B maximising, R minimising) from `start` with `first` to move.
pub fn solve_value(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
) -> Result<Valued, SolveError> {
    let Some(value_op) = game.value else {
        return Err(SolveError::Game(format!(
            "game `{}` has no score: define `op score : Players Config -> Int` in its module",
            game.name
        )));
    };
    let began = Instant::now();
    let steps_before = engine.steps();
    let memo_before = engine.memo_len(value_op);
    let d = GameDriver::new(engine, game)?;
    let start_t = engine.build(start, &[]);
    let start = d.reduce(engine, start_t)?;
    let first_t = engine.build(first, &[]);
    let to_move = d.side(engine, first_t)?;
    let t = engine.build(
        &Pat::App(value_op, vec![Pat::Var(0), Pat::Var(1)]),
        &[d.player(to_move), start],
    );
    let v = d.reduce(engine, t)?;
    let Some(value) = engine.store().int(v) else {
        return Err(SolveError::Game(format!(
            "`value` reduced to `{}`, not an integer",
            engine.show(v)
        )));
    };
    Ok(Valued {
        start,
        to_move,
        value,
        positions: engine.memo_len(value_op) - memo_before,
        steps: engine.steps() - steps_before,
        elapsed: began.elapsed(),
    })
}

/// A position on the explicit stack of [`GameDriver::plies`].
struct PliesFrame {
    p: Side,
    c: TermId,
    /// The successors that count: the winning ones when the winner moves, all otherwise.
    children: Vec<TermId>,
    next: usize,
    best: Option<u64>,
}

impl GameDriver<'_> {
    /// The principal line from `c` with `p` to move under best play: when a player wins,
    /// the winner takes a fastest win and the loser holds out longest; in a draw, each
    /// player takes the first move that keeps the draw.
    /// `None` when the search for it would visit more than `budget` positions.
    pub fn principal_line(
        &self,
        engine: &mut Engine,
        p: Side,
        c: TermId,
        verdict: Verdict,
        budget: usize,
    ) -> Result<Option<Vec<TermId>>, SolveError> {
        let mut line = vec![c];
        let (mut p, mut c) = (p, c);
        let mut memo = rustc_hash::FxHashMap::default();
        while line.len() < MAX_LINE && !self.halted(engine, p, c)? {
            let next = match verdict {
                Verdict::Win(winner) => {
                    let children = self.counted_moves(engine, winner, p, c)?;
                    let mut best: Option<(u64, TermId)> = None;
                    for m in children {
                        let Some(n) =
                            self.plies(engine, winner, p.opponent(), m, &mut memo, budget)?
                        else {
                            return Ok(None);
                        };
                        let better = match best {
                            None => true,
                            Some((b, _)) if p == winner => n < b,
                            Some((b, _)) => n > b,
                        };
                        if better {
                            best = Some((n, m));
                        }
                    }
                    best.map(|(_, m)| m)
                }
                Verdict::Draw => {
                    let mut keep = None;
                    for m in self.moves(engine, p, c)? {
                        if self.verdict(engine, p.opponent(), m)? == Verdict::Draw {
                            keep = Some(m);
                            break;
                        }
                    }
                    keep
                }
            };
            let Some(next) = next else {
                break; // not halted but no move: formula (1) treats it like a lost leaf
            };
            line.push(next);
            (p, c) = (p.opponent(), next);
        }
        Ok(Some(line))
    }

    /// A principal line without the search for the fastest win: the winner plays its first
    /// winning move, the loser (or, in a draw, each player) its first move that keeps the
    /// outcome.
    pub fn first_moves_line(
        &self,
        engine: &mut Engine,
        p: Side,
        c: TermId,
        verdict: Verdict,
    ) -> Result<Vec<TermId>, SolveError> {
        let mut line = vec![c];
        let (mut p, mut c) = (p, c);
        while line.len() < MAX_LINE && !self.halted(engine, p, c)? {
            let mut next = None;
            for m in self.moves(engine, p, c)? {
                let keeps = match verdict {
                    Verdict::Win(w) if p != w => true,
                    _ => self.verdict(engine, p.opponent(), m)? == verdict,
                };
                if keeps {
                    next = Some(m);
                    break;
                }
            }
            let Some(next) = next else { break };
            line.push(next);
            (p, c) = (p.opponent(), next);
        }
        Ok(line)
    }

    /// The moves that matter when `winner` wins the position: the winner's winning moves,
    /// or every move of the loser.
    fn counted_moves(
        &self,
        engine: &mut Engine,
        winner: Side,
        p: Side,
        c: TermId,
    ) -> Result<Vec<TermId>, SolveError> {
        let moves = self.moves(engine, p, c)?;
        if p != winner {
            return Ok(moves);
        }
        let mut keep = Vec::new();
        for m in moves {
            if self.verdict(engine, p.opponent(), m)? == Verdict::Win(winner) {
                keep.push(m);
            }
        }
        Ok(keep)
    }

    /// Plies to the end of the game from a position won by `winner` (with `p` to move),
    /// when the winner wins as fast as possible and the loser holds out as long as
    /// possible. An explicit stack keeps deep games (100,000 plies) off the machine stack.
    pub fn plies(
        &self,
        engine: &mut Engine,
        winner: Side,
        p: Side,
        c: TermId,
        memo: &mut rustc_hash::FxHashMap<(Side, TermId), u64>,
        budget: usize,
    ) -> Result<Option<u64>, SolveError> {
        if let Some(&v) = memo.get(&(p, c)) {
            return Ok(Some(v));
        }
        let mut on_stack = rustc_hash::FxHashSet::default();
        let mut stack: Vec<PliesFrame> = Vec::new();
        let mut result: Option<u64> = None;
        let mut open = Some((p, c));
        loop {
            if let Some((p, c)) = open.take() {
                let known = if let Some(&v) = memo.get(&(p, c)) {
                    Some(v)
                } else if self.halted(engine, p, c)? {
                    Some(0)
                } else {
                    None
                };
                match known {
                    Some(v) => {
                        memo.insert((p, c), v);
                        result = Some(v);
                    }
                    None => {
                        if !on_stack.insert((p, c)) {
                            // The positions of the cycle, from the first visit on.
                            let from = stack.iter().position(|f| (f.p, f.c) == (p, c)).unwrap_or(0);
                            let mut cycle: Vec<String> = stack[from..]
                                .iter()
                                .map(|f| format!("`{}` ({})", engine.show(f.c), f.p.name()))
                                .collect();
                            cycle.push(format!("`{}` ({})", engine.show(c), p.name()));
                            return Err(SolveError::Game(format!(
                                "cycle in the game graph: position `{}` with {} to move repeats: {}",
                                engine.show(c),
                                p.name(),
                                cycle.join(" -> ")
                            )));
                        }
                        let children = self.counted_moves(engine, winner, p, c)?;
                        stack.push(PliesFrame {
                            p,
                            c,
                            children,
                            next: 0,
                            best: None,
                        });
                    }
                }
            }
            // The budget: past it, the caller settles for a line of first winning moves.
            if memo.len() + stack.len() > budget {
                return Ok(None);
            }
            let Some(top) = stack.last_mut() else {
                return Ok(Some(result.unwrap_or(0)));
            };
            if let Some(v) = result.take() {
                // Fold a finished child into its parent.
                top.best = Some(match top.best {
                    None => v,
                    Some(b) if top.p == winner => b.min(v),
                    Some(b) => b.max(v),
                });
            }
            if top.next < top.children.len() {
                let child = top.children[top.next];
                top.next += 1;
                open = Some((top.p.opponent(), child));
                continue;
            }
            let done = stack.pop().expect("non-empty");
            on_stack.remove(&(done.p, done.c));
            let v = done.best.map_or(0, |b| b + 1);
            memo.insert((done.p, done.c), v);
            if stack.is_empty() {
                return Ok(Some(v));
            }
            result = Some(v);
        }
    }
}

/// Did the solve stop because the interrupt flag was raised (Ctrl-C)?
pub fn is_interrupted(e: &SolveError) -> bool {
    matches!(e, SolveError::Runtime(f) if matches!(f.error, RuntimeError::Interrupted { .. }))
}

/// A solve error as a diagnostic: the message names the term, and labels point at the
/// declarations involved (the stuck operator and its equations).
/// What to do about a position that repeats.
const CYCLE_HINT: &str = "a position that repeats makes the game infinite; formula (1) needs a finite game tree (add a move counter to the configuration, or make repeated positions halt)";

/// Does `p` apply `op` anywhere?
fn applies(p: &Pat, op: gamelang_lang::program::OpId) -> bool {
    match p {
        Pat::App(o, args) => *o == op || args.iter().any(|a| applies(a, op)),
        _ => false,
    }
}

/// The message of an interrupted computation of `outer` (the position being solved, the
/// term typed): what the user asked for, not the inner term the engine was on.
pub fn interrupted_message(engine: &Engine, outer: TermId) -> String {
    format!(
        "interrupted while computing `{}`",
        engine.show_limited(outer, 300)
    )
}

pub fn diagnose(engine: &Engine, e: &SolveError) -> Diag {
    match e {
        SolveError::Game(msg) if msg.starts_with("cycle in the game graph") => {
            Diag::error(msg.clone()).note(CYCLE_HINT)
        }
        SolveError::Game(msg) => Diag::error(msg.clone()),
        SolveError::Runtime(f) => {
            let mut d = Diag::error(engine.describe(&f.error));
            if f.error.is_limit() && !matches!(f.error, RuntimeError::Interrupted { .. }) {
                d = d.code("gamelang::limit");
            }
            let sig = &engine.program().sig;
            match &f.error {
                RuntimeError::Stuck { op, term, reason } => {
                    let info = sig.op(*op);
                    // The hint about missing equations is for defined functions; a built-in
                    // (or a lazy condition) that cannot compute says why in `reason`.
                    let no_equation = reason == crate::error::NO_EQUATION;
                    // What the arguments were (values, with their sorts).
                    let args: Vec<String> = engine
                        .store()
                        .args(*term)
                        .iter()
                        .enumerate()
                        .map(|(i, &a)| {
                            let sort = engine.store().sort_of(a);
                            let sort = sig
                                .sorts
                                .get(sort.0 as usize)
                                .map_or("?", |s| s.name.as_str());
                            format!("  {}. {} : {sort}", i + 1, engine.show_limited(a, 300))
                        })
                        .collect();
                    if !args.is_empty() {
                        d = d.note(format!(
                            "the arguments of `{}` were:\n{}",
                            info.name,
                            args.join("\n")
                        ));
                    }
                    if let Some(span) = info.span {
                        d = d.secondary(span, format!("`{}` is declared here", info.name));
                    }
                    let program = engine.program();
                    if let Some(eqs) = program.eqs_by_op.get(op).filter(|_| no_equation) {
                        for &i in eqs.iter().take(6) {
                            d = d.secondary(
                                program.equations[i].span,
                                "this equation does not apply",
                            );
                        }
                    }
                    if no_equation {
                        d = d.note(format!(
                            "`{}` has equations, so it is a defined function, and none of them covers this argument; add an equation for it (or declare `{}` as `ctor` if such terms are values)",
                            info.name, info.name
                        ));
                    }
                }
                RuntimeError::Cycle { .. } => {
                    d.message = format!("cycle in the game graph: {}", d.message);
                    d = d.note(CYCLE_HINT);
                }
                RuntimeError::Interrupted { term } => {
                    // The term reduced at the moment of the interrupt is whatever the
                    // engine happened to be on (often `false` or a number); name the
                    // outermost term being computed, the one the user asked about.
                    let outer = f.trace.first().copied().unwrap_or(*term);
                    d.message = interrupted_message(engine, outer);
                }
                RuntimeError::IllSorted { term, arg } => {
                    if let Some(op) = engine.store().op(*term) {
                        let program = engine.program();
                        // Where the term was probably built: an equation of a function
                        // being reduced (in the innermost term of the trace) whose
                        // right-hand side applies the same operator. Named only when
                        // there is exactly one.
                        let mut candidates: Vec<usize> = Vec::new();
                        let mut stack: Vec<TermId> = f.trace.last().copied().into_iter().collect();
                        let mut seen = 0usize;
                        while let Some(t) = stack.pop() {
                            seen += 1;
                            if seen > 10_000 {
                                break;
                            }
                            let Some(o) = engine.store().op(t) else {
                                continue;
                            };
                            for &i in program.eqs_by_op.get(&o).map_or(&[][..], |v| &v[..]) {
                                if !candidates.contains(&i)
                                    && applies(&program.equations[i].rhs, op)
                                {
                                    candidates.push(i);
                                }
                            }
                            stack.extend(engine.store().args(t).iter().copied());
                        }
                        if let [i] = candidates[..] {
                            d = d.primary(
                                program.equations[i].span,
                                format!(
                                    "the ill-sorted `{}` term was probably built by this equation",
                                    sig.op(op).name
                                ),
                            );
                        }
                        let info = sig.op(op);
                        if let Some(span) = info.span {
                            // The sort expected is in the message; an associative
                            // operator's argument positions are those of the flattened term.
                            let label = match info.args.get(*arg).filter(|_| !info.attrs.assoc) {
                                Some(want) => format!(
                                    "`{}` is declared here: argument {} must have sort `{}`",
                                    info.name,
                                    arg + 1,
                                    sig.sort(*want).name
                                ),
                                None => format!(
                                    "`{}` is declared here, with the sorts its arguments must have",
                                    info.name
                                ),
                            };
                            d = d.secondary(span, label);
                        }
                    }
                }
                RuntimeError::StepBudget { .. } => {
                    d = d.note("raise the budget with `--max-steps N` if the game is just large");
                }
                RuntimeError::MemoryLimit { .. } => {
                    d = d.note("the budget is half of the machine's memory; set GAMELANG_MAX_MEMORY (e.g. `GAMELANG_MAX_MEMORY=12G`) to change it, or solve a smaller instance");
                }
                RuntimeError::DepthLimit { term, .. } => {
                    // The recursing function: the first defined operator in the term.
                    let program = engine.program();
                    let mut stack = vec![*term];
                    let mut recursing = None;
                    while let Some(t) = stack.pop() {
                        if let Some(op) = engine.store().op(t) {
                            if program.is_defined(op) && sig.op(op).attrs.builtin.is_none() {
                                recursing = Some(op);
                                break;
                            }
                            stack.extend(engine.store().args(t).iter().rev());
                        }
                    }
                    if let Some(op) = recursing {
                        let info = sig.op(op);
                        if let Some(span) = info.span {
                            d = d.secondary(span, format!("`{}` is declared here", info.name));
                        }
                        d = d.note(format!(
                            "recursion too deep: each pending application of `{}` waits for the value of the next; check that the recursion ends (an equation for the base case, an argument that shrinks), or raise the limit if it is just deep",
                            info.name
                        ));
                    }
                }
                _ => {}
            }
            if !f.trace.is_empty() {
                let mut lines: Vec<String> = Vec::new();
                for (k, t) in f.trace.iter().enumerate() {
                    if f.elided > 0 && k == crate::error::TRACE_HEAD {
                        lines.push(format!("  … {} more …", f.elided));
                    }
                    lines.push(format!("  {}", engine.show(*t)));
                }
                d = d.note(format!(
                    "while reducing (outermost first):\n{}",
                    lines.join("\n")
                ));
            }
            d
        }
    }
}
