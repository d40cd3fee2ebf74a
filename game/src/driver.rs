//! A `.game` file's game, played through the rewriting engine: [`GameDriver`] builds and
//! reads the terms (players, positions, Booleans, the drawn board), and [`EngineRules`] is
//! the game's [`Rules`], each rule one reduction of the game's own operator.

use crate::error::SolveError;
use crate::rules::Rules;
use crate::side::{Side, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::{OpId, Pat};
use gamelang_runtime::error::{RuntimeError, RuntimeFailure, TRACE_HEAD, TRACE_TAIL};
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;

/// The driver's view of one game: the terms it builds and reads.
pub struct GameDriver<'g> {
    pub game: &'g Game,
    pub b: TermId,
    pub r: TermId,
    draw: TermId,
    truth: TermId,
    falsity: TermId,
    /// Build each question (`next-config(p, c)`, `halted(p, c)`, …) as a term, so that the
    /// engine remembers its answer (`Engine::nf`) for when the same position is asked
    /// about again: for agents' playouts, which pass through the same positions over and
    /// over (off, a random playout of Connect-4 ran 16 times slower). Off by default:
    /// a solver asks about each position about once, and then building and remembering
    /// every question costs more than it saves (colouring 6 x 6 4.7 s with, 3.6 s without).
    pub remember: bool,
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
            remember: false,
        })
    }

    /// The terms this driver holds between reductions, which a garbage collection of the
    /// engine's term store must keep.
    pub fn roots(&self) -> Vec<TermId> {
        vec![self.b, self.r, self.draw, self.truth, self.falsity]
    }

    /// Reduce `t`; a failure's trace starts with `t` itself (the rule being computed,
    /// such as `next(1)`), which the engine leaves out when it fails on `t`'s own step.
    fn reduce(&self, engine: &mut Engine, t: TermId) -> Result<TermId, SolveError> {
        engine.reduce(t).map_err(|e| failed(engine, t, e))
    }

    /// [`GameDriver::reduce`] of the instance of `pat` under `args`, without building it
    /// (`Engine::reduce_pat`) unless the driver is to `remember`.
    fn reduce_pat(
        &self,
        engine: &mut Engine,
        pat: &Pat,
        args: &[TermId],
    ) -> Result<TermId, SolveError> {
        if self.remember {
            let t = engine.build(pat, args);
            return self.reduce(engine, t);
        }
        engine.reduce_pat(pat, args).map_err(|e| {
            // The term, built now, for the trace that starts with it.
            let t = engine.build(pat, args);
            failed(engine, t, e)
        })
    }

    fn boolean(&self, engine: &mut Engine, t: TermId, what: &str) -> Result<bool, SolveError> {
        let v = self.reduce(engine, t)?;
        self.expect_boolean(engine, v, what)
    }

    /// `v` as a Boolean, or the error saying that `what` is not one.
    fn expect_boolean(
        &self,
        engine: &mut Engine,
        v: TermId,
        what: &str,
    ) -> Result<bool, SolveError> {
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

    /// Append the text of a String value: strings joined by `++`.
    fn render(&self, engine: &Engine, t: TermId, out: &mut String) {
        let store = engine.store();
        match store.op(t) {
            Some(op) if Some(op) == self.game.concat => {
                for &a in store.args(t) {
                    self.render(engine, a, out);
                }
            }
            // A literal, or a string computed by STRING's operations.
            _ => match store.str_text(t) {
                Some(text) => out.push_str(&String::from_utf8_lossy(text)),
                None => out.push_str(&engine.show(t)),
            },
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

    /// The term `outcome` of SOLVE reduces to for a verdict: `B`, `R` or `draw`.
    pub fn verdict_term(&self, v: Verdict) -> TermId {
        match v {
            Verdict::Win(Side::B) => self.b,
            Verdict::Win(Side::R) => self.r,
            Verdict::Draw => self.draw,
        }
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
        self.boolean_of(engine, &self.game.halted, p, c, "`halted`")
    }

    /// The configurations `p` can move to from `c`, in the set's order.
    pub fn moves(
        &self,
        engine: &mut Engine,
        p: Side,
        c: TermId,
    ) -> Result<Vec<TermId>, SolveError> {
        self.configs_of(engine, &self.game.next_config, p, c)
    }

    /// The moves a solver explores (up to the game's symmetry, when it declares one).
    pub fn solver_moves(
        &self,
        engine: &mut Engine,
        p: Side,
        c: TermId,
    ) -> Result<Vec<TermId>, SolveError> {
        self.configs_of(engine, &self.game.solver_next, p, c)
    }

    /// The elements of the set a move template (over player and configuration) reduces to.
    fn configs_of(
        &self,
        engine: &mut Engine,
        pat: &Pat,
        p: Side,
        c: TermId,
    ) -> Result<Vec<TermId>, SolveError> {
        let set = self.reduce_pat(engine, pat, &[self.player(p), c])?;
        Ok(engine.elements(set, self.game.set_union))
    }
}

impl GameDriver<'_> {
    fn boolean_of(
        &self,
        engine: &mut Engine,
        pat: &Pat,
        p: Side,
        c: TermId,
        what: &str,
    ) -> Result<bool, SolveError> {
        let args = [self.player(p), c];
        let v = self.reduce_pat(engine, pat, &args)?;
        self.expect_boolean(engine, v, what)
    }

    /// The term `w(p, c)`: how positions are named in traces and cycles (the value of
    /// formula (1) at the position, which is what a solver computes there).
    fn position_term(&self, engine: &mut Engine, p: Side, c: TermId) -> TermId {
        engine.build(
            &Pat::App(self.game.w, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.player(p), c],
        )
    }

    fn path_terms(&self, engine: &mut Engine, path: &[(Side, TermId)]) -> Vec<TermId> {
        path.iter()
            .map(|&(p, c)| self.position_term(engine, p, c))
            .collect()
    }
}

/// The error for a question about the score of a game that declares none.
pub fn no_score(game: &Game) -> SolveError {
    SolveError::Game(format!(
        "game `{}` has no score: define `op score : Players Config -> Int` in its module",
        game.name
    ))
}

/// Keep the outermost [`TRACE_HEAD`] and innermost [`TRACE_TAIL`] entries of a trace, as
/// the engine does; returns the trace and how many entries were dropped.
fn elide(mut trace: Vec<TermId>, elided: usize) -> (Vec<TermId>, usize) {
    if trace.len() <= TRACE_HEAD + TRACE_TAIL {
        return (trace, elided);
    }
    let drop = trace.len() - TRACE_HEAD - TRACE_TAIL;
    trace.drain(TRACE_HEAD..TRACE_HEAD + drop);
    (trace, elided + drop)
}

/// A `.game` game's [`Rules`]: each rule is a reduction of the game's own operator
/// (`halted`, `won`/`lost`, `next-config`, `score`) by the engine.
pub struct EngineRules<'a, 'g> {
    pub driver: &'a GameDriver<'g>,
    pub engine: &'a mut Engine,
    /// Rewrites spent in each rule, and how often it was asked (for `GAMELANG_SOLVE_STATS`).
    pub spent: RuleCosts,
    /// A collection ([`Rules::collect`]) first forgets the engine's memo tables (caches:
    /// what they held is computed again when asked) if they hold more entries than this.
    pub memo_limit: usize,
    /// How often it did.
    pub memo_forgotten: u64,
}

/// Per rule of a `.game` game, (times asked, rewrites spent): where a solve's rewrites go.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleCosts {
    pub halted: (u64, u64),
    pub result: (u64, u64),
    pub moves: (u64, u64),
    pub score: (u64, u64),
    pub eval: (u64, u64),
    pub forced: (u64, u64),
    pub mirror: (u64, u64),
}

impl std::fmt::Display for RuleCosts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rules = [
            ("halted", self.halted),
            ("won/lost", self.result),
            ("moves", self.moves),
            ("score", self.score),
            ("eval", self.eval),
            ("forced", self.forced),
            ("mirror", self.mirror),
        ];
        let mut first = true;
        // A rule that cost nothing (an `eval` the game does not declare) is left out.
        for (name, (n, steps)) in rules.into_iter().filter(|r| r.1 .1 > 0) {
            let sep = if first { "" } else { "; " };
            write!(f, "{sep}{name} {n} times, {steps} rewrites")?;
            first = false;
        }
        Ok(())
    }
}

impl<'a, 'g> EngineRules<'a, 'g> {
    pub fn new(driver: &'a GameDriver<'g>, engine: &'a mut Engine) -> Self {
        EngineRules {
            driver,
            engine,
            spent: RuleCosts::default(),
            memo_limit: usize::MAX,
            memo_forgotten: 0,
        }
    }

    /// Run one rule, adding what it cost to `which` of [`EngineRules::spent`].
    fn counted<T>(
        &mut self,
        which: fn(&mut RuleCosts) -> &mut (u64, u64),
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let before = self.engine.steps();
        let r = f(self);
        let spent = self.engine.steps() - before;
        let entry = which(&mut self.spent);
        entry.0 += 1;
        entry.1 += spent;
        r
    }
}

impl Rules for EngineRules<'_, '_> {
    type Config = TermId;

    fn has_draws(&self) -> bool {
        self.driver.game.draws
    }

    fn halted(&mut self, p: Side, c: TermId) -> Result<bool, SolveError> {
        self.counted(|s| &mut s.halted, |r| r.driver.halted(r.engine, p, c))
    }

    fn result(&mut self, p: Side, c: TermId) -> Result<Verdict, SolveError> {
        self.counted(|s| &mut s.result, |r| r.result_of(p, c))
    }

    fn moves(&mut self, p: Side, c: TermId) -> Result<Vec<TermId>, SolveError> {
        self.counted(|s| &mut s.moves, |r| r.driver.moves(r.engine, p, c))
    }

    /// The solver's moves, or only the game's `forced` ones when it declares `forced` and
    /// they are not empty (each checked to be one of the moves).
    fn search_moves(&mut self, p: Side, c: TermId) -> Result<Vec<TermId>, SolveError> {
        let moves = self.counted(|s| &mut s.moves, |r| r.driver.solver_moves(r.engine, p, c))?;
        if self.driver.game.forced.is_none() {
            return Ok(moves);
        }
        let forced = self.counted(|s| &mut s.forced, |r| r.forced_of(p, c))?;
        if forced.is_empty() {
            return Ok(moves);
        }
        if let Some(&m) = forced.iter().find(|m| !moves.contains(m)) {
            return Err(SolveError::Game(format!(
                "`forced` gave `{}`, which is not one of the moves from `{}`{}",
                self.engine.show(m),
                self.engine.show(c),
                if self.driver.game.solver_next != self.driver.game.next_config {
                    " (with a symmetry, `forced` must give canonical configurations)"
                } else {
                    ""
                }
            )));
        }
        Ok(forced)
    }

    fn score(&mut self, p: Side, c: TermId) -> Result<i64, SolveError> {
        self.counted(|s| &mut s.score, |r| r.score_of(p, c))
    }

    fn mirror(&mut self, p: Side, c: TermId) -> Result<Option<TermId>, SolveError> {
        let Some(op) = self.driver.game.mirror else {
            return Ok(None);
        };
        self.counted(|s| &mut s.mirror, |r| r.mirror_of(op, p, c))
            .map(Some)
    }

    fn interrupted(&self) -> bool {
        self.engine
            .interrupt
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Interrupted while computing the root position: named as the engine names what it
    /// was computing, with the line of positions as the trace.
    fn stop(&mut self, path: &[(Side, TermId)]) -> SolveError {
        let terms = self.driver.path_terms(self.engine, path);
        let term = *terms.last().expect("a path has a position");
        let (trace, elided) = elide(terms, 0);
        SolveError::Runtime(RuntimeFailure {
            error: RuntimeError::Interrupted { term },
            trace,
            elided,
        })
    }

    fn eval(&mut self, p: Side, c: TermId) -> Result<Option<i64>, SolveError> {
        self.counted(|s| &mut s.eval, |r| r.eval_of(p, c))
    }

    fn wants_collection(&self) -> bool {
        self.engine.store_has_grown()
    }

    /// A garbage collection of the engine's terms, with the driver's own terms and `live`
    /// as roots (the memo tables are roots too, unless over [`EngineRules::memo_limit`]:
    /// then they are forgotten first, so that their terms can go).
    fn collect(&mut self, live: &[TermId]) {
        let memo = self.engine.memo_total();
        let forget = memo > self.memo_limit;
        if forget {
            self.engine.clear_memo();
            self.memo_forgotten += 1;
        }
        let mut roots = self.driver.roots();
        roots.extend_from_slice(live);
        if forget {
            // The forgotten entries' terms are old: only a full collection frees them.
            self.engine.collect_garbage(&roots);
        } else {
            self.engine.collect_due(&roots);
        }
        if std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
            let rss = gamelang_runtime::engine::resident_memory().unwrap_or(0);
            eprintln!(
                "  collection {}: {} live positions held, {} terms, {} memo entries (were {memo}), {} MB resident",
                self.engine.collections(),
                live.len(),
                self.engine.store().len(),
                self.engine.memo_total(),
                rss >> 20
            );
        }
    }

    /// What the move changed in the configuration's term ([`crate::movekey`]).
    fn move_key(&mut self, _p: Side, from: TermId, to: TermId) -> Result<Option<u64>, SolveError> {
        Ok(Some(crate::movekey::move_key(
            self.engine.store(),
            from,
            to,
        )))
    }

    /// A repeated position is reported as the engine reports a memo term met again while
    /// it is computed: `w(p, c)` depends on itself, with the line of positions as the
    /// trace.
    fn cycle(&mut self, path: &[(Side, TermId)]) -> SolveError {
        let terms = self.driver.path_terms(self.engine, path);
        let term = *terms.last().expect("a cycle has a position");
        let (trace, elided) = elide(terms[..terms.len() - 1].to_vec(), 0);
        SolveError::Runtime(RuntimeFailure {
            error: RuntimeError::Cycle { term },
            trace,
            elided,
        })
    }

    /// A failure of the game's rules at a position deep in a search: the positions from
    /// the root to it go before the engine's own trace, so the message names the position
    /// solved and the line that led to the failure.
    fn in_context(&mut self, e: SolveError, path: &[(Side, TermId)]) -> SolveError {
        let SolveError::Runtime(f) = e else { return e };
        let mut trace = self.driver.path_terms(self.engine, path);
        trace.extend(f.trace.iter().copied());
        let (trace, elided) = elide(trace, f.elided);
        SolveError::Runtime(RuntimeFailure {
            error: f.error,
            trace,
            elided,
        })
    }
}

impl EngineRules<'_, '_> {
    fn result_of(&mut self, p: Side, c: TermId) -> Result<Verdict, SolveError> {
        let game = self.driver.game;
        if self
            .driver
            .boolean_of(self.engine, &game.won, p, c, "`won`")?
        {
            // In a game with draws both may be written true by mistake: R's win was
            // taken without a word.
            if let Some(lost) = &game.lost {
                if self.driver.boolean_of(self.engine, lost, p, c, "`lost`")? {
                    return Err(SolveError::Game(format!(
                        "at the halted position {} with {} to move, both `won` and `lost` hold: R cannot have both won and lost",
                        self.engine.show(c),
                        p.name()
                    )));
                }
            }
            return Ok(Verdict::Win(Side::R));
        }
        match &game.lost {
            None => Ok(Verdict::Win(Side::B)),
            Some(lost) => Ok(
                if self.driver.boolean_of(self.engine, lost, p, c, "`lost`")? {
                    Verdict::Win(Side::B)
                } else {
                    Verdict::Draw
                },
            ),
        }
    }

    fn score_of(&mut self, p: Side, c: TermId) -> Result<i64, SolveError> {
        let game = self.driver.game;
        let Some(score) = &game.score else {
            return Err(no_score(game));
        };
        let t = self.engine.build(score, &[self.driver.player(p), c]);
        let v = self.driver.reduce(self.engine, t)?;
        self.engine.store().int(v).ok_or_else(|| {
            SolveError::Game(format!(
                "`score` reduced to `{}`, not an integer",
                self.engine.show(v)
            ))
        })
    }

    /// `mirror(p, c)` (the game declares `mirror`).
    fn mirror_of(&mut self, op: OpId, p: Side, c: TermId) -> Result<TermId, SolveError> {
        let t = self.engine.build(
            &Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.driver.player(p), c],
        );
        self.driver.reduce(self.engine, t)
    }

    /// The elements of `forced(p, c)` (the game declares `forced`).
    fn forced_of(&mut self, p: Side, c: TermId) -> Result<Vec<TermId>, SolveError> {
        let op = self.driver.game.forced.expect("declared");
        let t = self.engine.build(
            &Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.driver.player(p), c],
        );
        let set = self.driver.reduce(self.engine, t)?;
        Ok(self.engine.elements(set, self.driver.game.set_union))
    }

    fn eval_of(&mut self, p: Side, c: TermId) -> Result<Option<i64>, SolveError> {
        let Some(op) = self.driver.game.eval else {
            return Ok(None);
        };
        let t = self.engine.build(
            &Pat::App(op, vec![Pat::Var(0), Pat::Var(1)]),
            &[self.driver.player(p), c],
        );
        let v = self.driver.reduce(self.engine, t)?;
        match self.engine.store().int(v) {
            Some(v) => Ok(Some(v)),
            None => Err(SolveError::Game(format!(
                "`eval` reduced to `{}`, not an integer",
                self.engine.show(v)
            ))),
        }
    }
}

/// The failure of reducing `t`: its trace starts with `t` itself (the rule being computed,
/// such as `next(1)`), which the engine leaves out when it fails on `t`'s own step.
fn failed(engine: &mut Engine, t: TermId, e: gamelang_runtime::RuntimeError) -> SolveError {
    let mut f = engine.failure(e);
    if f.trace.first() != Some(&t) {
        f.trace.insert(0, t);
        (f.trace, f.elided) = elide(std::mem::take(&mut f.trace), f.elided);
    }
    SolveError::Runtime(f)
}
