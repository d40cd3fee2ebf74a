//! The questions `gamelang solve` asks of a `.game` game, each answered by a solver of
//! [`crate::search`] on the game's [`EngineRules`] and returned as a report
//! ([`crate::report`]).

use crate::driver::{no_score, EngineRules, GameDriver};
use crate::error::SolveError;
use crate::line::{first_moves_line, principal_line, DEFAULT_LINE_BUDGET};
use crate::report::{Bounded, Outcome, Value, Valued};
use crate::search::{BoundedSearch, Leaf, OutcomeSearch, ValueSearch};
use crate::side::{Side, Verdict};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use gamelang_runtime::term::TermId;
use gamelang_runtime::Engine;
use std::time::Instant;

/// The start configuration (reduced) and the player to move, from their templates.
fn position(
    engine: &mut Engine,
    d: &GameDriver<'_>,
    start: &Pat,
    first: &Pat,
) -> Result<(Side, TermId), SolveError> {
    let start_t = engine.build(start, &[]);
    let start = engine
        .reduce(start_t)
        .map_err(|e| SolveError::Runtime(engine.failure(e)))?;
    let first_t = engine.build(first, &[]);
    Ok((d.side(engine, first_t)?, start))
}

/// With `GAMELANG_SOLVE_STATS` set, say on standard error how much work each phase took.
fn stats(phase: &str, positions: usize, steps: u64) {
    if std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
        eprintln!("{phase}: {positions} positions, {steps} rewrites");
    }
}

/// With `GAMELANG_SOLVE_STATS` set, say which rules the rewrites went to, and what the
/// engine holds (terms, elements of the sets' segments, memo entries).
fn rule_stats(rules: &EngineRules<'_, '_>) {
    if std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
        eprintln!("  rules: {}", rules.spent);
        let e = &rules.engine;
        eprintln!(
            "  engine: {} terms (room for {}), {} segment elements, {} memo entries, {} collections",
            e.store().len(),
            e.store().capacity(),
            e.store().segment_elements(),
            e.memo_total(),
            e.collections()
        );
        if rules.memo_forgotten > 0 {
            eprintln!("  memo tables forgotten {} times", rules.memo_forgotten);
        }
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

/// [`solve`] with a budget of positions for the depth-optimal principal line.
pub fn solve_with_budget(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    line_budget: usize,
) -> Result<Outcome, SolveError> {
    solve_collecting(engine, game, start, first, line_budget, false)
}

/// [`solve_with_budget`]; with `collect`, the search for the outcome collects the engine's
/// garbage as it goes, which frees every term the caller holds but the result's (so only
/// for a caller that holds none, such as `gamelang solve`): memory then grows with the
/// positions searched rather than with every term the rules built.
pub fn solve_collecting(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    line_budget: usize,
    collect: bool,
) -> Result<Outcome, SolveError> {
    let memory = Memory {
        collect,
        ..Memory::default()
    };
    solve_in_memory(engine, game, start, first, line_budget, memory)
}

/// How much memory a solve may keep (see [`solve_in_memory`]).
#[derive(Clone, Copy, Debug)]
pub struct Memory {
    /// Collect the engine's garbage as the outcome search goes ([`solve_collecting`]).
    pub collect: bool,
    /// Most positions the outcome search's table keeps (`usize::MAX`: all of them).
    pub table: usize,
}

impl Default for Memory {
    fn default() -> Self {
        Memory {
            collect: false,
            table: usize::MAX,
        }
    }
}

/// [`solve_collecting`] in bounded memory: the outcome search's table keeps at most
/// `memory.table` positions (forgetting those with the least work below them, see
/// [`crate::search::ValueSearch::set_capacity`]), and when the search collects garbage, a
/// collection also forgets the engine's memo tables once they hold more than twice as many
/// entries. What the search keeps then no longer grows with the positions searched; a
/// position forgotten and met again is searched again, and counts again in `positions`.
/// Answers (winner, line) are those of an unbounded solve.
pub fn solve_in_memory(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    line_budget: usize,
    memory: Memory,
) -> Result<Outcome, SolveError> {
    let collect = memory.collect;
    let began = Instant::now();
    let steps_before = engine.steps();
    let d = GameDriver::new(engine, game)?;
    let (to_move, start) = position(engine, &d, start, first)?;
    engine.with_step_budget(|engine| {
        let mut rules = EngineRules::new(&d, engine);
        if memory.table != usize::MAX {
            rules.memo_limit = memory.table.saturating_mul(2);
        }
        let mut search = OutcomeSearch::new();
        search.set_capacity(memory.table);
        search.set_collect(collect);
        let verdict = search.verdict(&mut rules, to_move, start)?;
        // The depth-optimal line holds positions of its own between searches (the line of
        // first moves pins those it holds).
        search.set_collect(false);
        let positions = search.positions();
        stats("outcome", positions, rules.engine.steps() - steps_before);
        if memory.table != usize::MAX && std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
            eprintln!("  table: {} positions kept", search.kept());
        }
        if std::env::var_os("GAMELANG_SOLVE_STATS").is_some() {
            // Said before the line is sought, which can take long (a draw's line of first
            // moves proves each move kept).
            eprintln!("  verdict: {verdict:?}");
        }
        rule_stats(&rules);
        let line = principal_line(
            &mut rules,
            &mut search,
            to_move,
            start,
            verdict,
            line_budget,
        )?;
        let (line, depth_optimal) = match line {
            Some(line) => (line, true),
            None => {
                search.set_collect(collect);
                let line = first_moves_line(&mut rules, &mut search, to_move, start, verdict)?;
                search.set_collect(false);
                (line, false)
            }
        };
        stats(
            "outcome and line",
            search.positions(),
            engine.steps() - steps_before,
        );
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
            positions,
            steps: engine.steps() - steps_before,
            elapsed: began.elapsed(),
        })
    })
}

/// Can the player to move at `start` force a win within `plies` plies? The standard
/// library's `r-within` / `b-within` answer, found by depth-limited alpha-beta with
/// iterative deepening ([`BoundedSearch`]).
pub fn solve_within(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    plies: u64,
) -> Result<Bounded, SolveError> {
    let began = Instant::now();
    let steps_before = engine.steps();
    let d = GameDriver::new(engine, game)?;
    let (to_move, start) = position(engine, &d, start, first)?;
    engine.with_step_budget(|engine| {
        let mut rules = EngineRules::new(&d, engine);
        let mut search = BoundedSearch::new(Leaf::Outcome);
        let wins = search.wins_within(&mut rules, to_move, to_move, start, plies)?;
        let steps = rules.engine.steps() - steps_before;
        stats("within", search.positions(), steps);
        rule_stats(&rules);
        Ok(Bounded {
            start,
            to_move,
            max_depth: plies,
            wins,
            positions: search.positions(),
            steps,
            elapsed: began.elapsed(),
        })
    })
}

/// The score under best play (B maximising, R minimising) from `start` with `first` to
/// move, by alpha-beta with a transposition table.
pub fn solve_value(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
) -> Result<Valued, SolveError> {
    solve_value_within(engine, game, start, first, None)
}

/// [`solve_value`], or with `max_depth` the score when play is cut off after that many
/// plies, a position still open then being worth the game's `eval` (depth-limited
/// alpha-beta with iterative deepening, [`BoundedSearch`]).
pub fn solve_value_within(
    engine: &mut Engine,
    game: &Game,
    start: &Pat,
    first: &Pat,
    max_depth: Option<u64>,
) -> Result<Valued, SolveError> {
    if game.score.is_none() {
        return Err(no_score(game));
    }
    let began = Instant::now();
    let steps_before = engine.steps();
    let d = GameDriver::new(engine, game)?;
    let (to_move, start) = position(engine, &d, start, first)?;
    engine.with_step_budget(|engine| {
        let mut rules = EngineRules::new(&d, engine);
        let (value, positions) = match max_depth {
            None => {
                let mut search = ValueSearch::new(Leaf::Score);
                let value = search.value(&mut rules, to_move, start)?;
                (value, search.positions())
            }
            Some(plies) => {
                let mut search = BoundedSearch::new(Leaf::Score);
                let value = search.value_within(&mut rules, to_move, start, plies)?;
                (value, search.positions())
            }
        };
        Ok(Valued {
            start,
            to_move,
            value: Value::Int(value),
            max_depth,
            positions,
            steps: engine.steps() - steps_before,
            elapsed: began.elapsed(),
        })
    })
}
