//! Sweeps over chance games (issue 15): at each point the chance solver (crate `chance/`)
//! computes one player's probability of winning under optimal play, or expected score.
//!
//! The question is written with `--expr` as `win(PLAYER)` or `value(PLAYER)` (from the
//! game's `start`), or `win(PLAYER, STATE)` / `value(PLAYER, STATE)` with a start state
//! in which the range variables may occur, e.g. `win(p1, pig(k, 0, 0, p1))`. Ranges over
//! the game's parameters (`--range goal=5..30`) change the program, as in every sweep.
//!
//! A result has two CSV columns: the probability (or value) as a decimal, and exactly as
//! `p/q` when the solver worked over the rationals (empty when it used value iteration).

use super::grid::{has_value, Grid, Values};
use gamelang_chance::engine::EngineModel;
use gamelang_chance::graph::explore;
use gamelang_chance::model::ChanceError;
use gamelang_chance::solve::{self as solver, Goal};
use gamelang_chance::{BigInt, Q};
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::program::Pat;
use gamelang_runtime::Engine;
use num_traits::ToPrimitive;

/// Separates a result's CSV fields inside one stored result text (never in a field).
pub const SEP: char = '\u{1f}';

/// What a chance sweep computes at each point.
#[derive(Clone, Debug)]
pub struct Question {
    pub goal: Goal,
    /// The player, as the game shows it (`p1`).
    pub player: String,
    /// The start state, written by the user (`None`: the game's `start`).
    pub state: Option<String>,
    /// Where `state` begins in the text the question was read from (for located errors).
    pub state_at: usize,
    /// Where `player` begins in that text.
    pub player_at: usize,
}

impl Question {
    /// `win(P)`, `value(P)`, `win(P, STATE)`, `value(P, STATE)`; `None` when `text` has
    /// another shape.
    pub fn parse(text: &str) -> Option<Question> {
        let t = text.trim();
        let (goal, rest) = if let Some(r) = t.strip_prefix("win") {
            (Goal::Win, r)
        } else if let Some(r) = t.strip_prefix("value") {
            (Goal::Score, r)
        } else {
            return None;
        };
        let inner = rest.trim_start().strip_prefix('(')?.strip_suffix(')')?;
        // The player ends at the first comma outside brackets.
        let mut depth = 0i32;
        let mut split = None;
        for (i, c) in inner.char_indices() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => {
                    split = Some(i);
                    break;
                }
                _ => {}
            }
            if depth < 0 {
                return None;
            }
        }
        let (player, state) = match split {
            Some(i) => (&inner[..i], Some(inner[i + 1..].trim().to_string())),
            None => (inner, None),
        };
        // (`inner` and the state are slices of `text`: their offsets are the distances.)
        let state_at = match split {
            Some(i) => {
                let after = &inner[i + 1..];
                let lead = after.len() - after.trim_start().len();
                after.as_ptr() as usize - text.as_ptr() as usize + lead
            }
            None => 0,
        };
        let player_at = player.as_ptr() as usize - text.as_ptr() as usize
            + (player.len() - player.trim_start().len());
        let player = player.trim();
        if player.is_empty() || state.as_deref() == Some("") {
            return None;
        }
        Some(Question {
            goal,
            player: player.to_string(),
            state,
            state_at,
            player_at,
        })
    }

    /// The CSV's result columns.
    pub fn columns(&self) -> [&'static str; 2] {
        match self.goal {
            Goal::Win => ["win_probability", "win_probability_exact"],
            Goal::Score => ["value", "value_exact"],
        }
    }

    /// How the report names what was swept.
    pub fn describe(&self) -> String {
        let what = match self.goal {
            Goal::Win => "probability of winning",
            Goal::Score => "expected score",
        };
        let from = match &self.state {
            Some(s) => format!("from {s}"),
            None => "from the start".to_string(),
        };
        format!(
            "{}'s {what} under optimal play (max-n), {from}",
            self.player
        )
    }
}

/// The substitution of the point's values for the range variables of `pat`.
pub fn instantiate(pat: &Pat, point: &[i64]) -> Pat {
    match pat {
        Pat::Var(i) => Pat::Int(point[*i as usize]),
        Pat::Int(v) => Pat::Int(*v),
        Pat::App(op, args) => Pat::App(*op, args.iter().map(|a| instantiate(a, point)).collect()),
    }
}

/// The most states explored at one point (as `solve --max-states`' default).
const MAX_STATES: usize = 50_000_000;

/// Solve `game` from `start` and give the question's result as stored text: the decimal,
/// [`SEP`], the exact rational (or nothing).
pub fn evaluate(
    engine: &mut Engine,
    game: &ChanceGame,
    q: &Question,
    start: Pat,
) -> Result<String, ChanceError> {
    let mut model = EngineModel::new(engine, game, Some(start))?;
    let graph = explore(&mut model, q.goal == Goal::Score, MAX_STATES)?;
    let Some(i) = graph.players.iter().position(|p| *p == q.player) else {
        return Err(ChanceError::game(format!(
            "`{}` is not one of the game's players ({})",
            q.player,
            graph.players.join(", ")
        )));
    };
    let opts = solver::Options {
        goal: q.goal,
        interrupt: Some(model.engine.interrupt.clone()),
        ..solver::Options::default()
    };
    let sol = solver::solve(&graph, &opts)?;
    let exact = sol.exact.as_ref().map(|e| ratio(&e[i])).unwrap_or_default();
    Ok(format!("{}{SEP}{exact}", sol.value[i]))
}

fn ratio(q: &Q) -> String {
    format!("{}/{}", q.numer(), q.denom())
}

/// Is `text` a result this sweep could have written (for `--resume`), and if not, why? A
/// finite decimal, and the exact fraction if any, equal to it as far as the decimal goes;
/// for a probability of winning (`goal` `Win`), both between 0 and 1.
pub fn valid(text: &str, goal: Option<Goal>) -> Result<(), String> {
    let Some((decimal, exact)) = text.split_once(SEP) else {
        return Err("a decimal and an exact fraction are expected".into());
    };
    let x = decimal
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("`{decimal}` is not a number"))?;
    let probability = goal == Some(Goal::Win);
    if probability && !(0.0..=1.0).contains(&x) {
        return Err(format!("{decimal} is not a probability"));
    }
    if exact.is_empty() {
        return Ok(());
    }
    let fraction = exact
        .split_once('/')
        .and_then(|(p, q)| Some((p.parse::<BigInt>().ok()?, q.parse::<BigInt>().ok()?)))
        .filter(|(_, q)| *q > BigInt::from(0));
    let Some((p, q)) = fraction else {
        return Err(format!("`{exact}` is not a fraction"));
    };
    let exact_q = Q::new(p, q);
    if probability && (exact_q < Q::from_integer(0.into()) || exact_q > Q::from_integer(1.into())) {
        return Err(format!("{exact} is not a probability"));
    }
    // (The decimal is the fraction rounded to a double, or a float solution within the
    // solver's tolerance of it.)
    let y = exact_q.to_f64().unwrap_or(f64::NAN);
    if (x - y).abs() > 1e-9 * y.abs().max(1.0) {
        return Err(format!("the decimal {decimal} is not the fraction {exact}"));
    }
    Ok(())
}

/// The report's summary of a chance sweep: the least and greatest result and where they
/// are, and at how many points the result is exact.
pub fn summary(grid: &Grid, results: &[u32], values: &Values) -> Vec<String> {
    let mut least: Option<(f64, usize)> = None;
    let mut most: Option<(f64, usize)> = None;
    let (mut exact, mut done) = (0, 0);
    for (i, &r) in results.iter().enumerate() {
        if !has_value(r) {
            continue;
        }
        done += 1;
        let text = values.name(r);
        if text.split_once(SEP).is_some_and(|(_, e)| !e.is_empty()) {
            exact += 1;
        }
        let Some(x) = decimal(text) else { continue };
        if least.is_none_or(|(l, _)| x < l) {
            least = Some((x, i));
        }
        if most.is_none_or(|(m, _)| x > m) {
            most = Some((x, i));
        }
    }
    let at = |i: usize| {
        let mut p = Vec::new();
        grid.point(i, &mut p);
        let names: Vec<String> = grid
            .ranges
            .iter()
            .zip(&p)
            .map(|(r, v)| format!("{}={v}", r.name))
            .collect();
        names.join(" ")
    };
    let mut out = Vec::new();
    if let (Some((l, li)), Some((m, mi))) = (least, most) {
        out.push(format!(
            "least {l} (at {}), greatest {m} (at {})",
            at(li),
            at(mi)
        ));
    }
    out.push(format!("exact at {exact} of {done} points"));
    out
}

/// The decimal of a stored result.
pub fn decimal(text: &str) -> Option<f64> {
    text.split(SEP).next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions() {
        let q = Question::parse(" win( p1 ) ").unwrap();
        assert_eq!(
            (q.goal, q.player.as_str(), q.state),
            (Goal::Win, "p1", None)
        );
        let q = Question::parse("value(a, st((a |-> k) & (b |-> 0), a))").unwrap();
        assert_eq!(q.goal, Goal::Score);
        assert_eq!(q.player, "a");
        assert_eq!(q.state.as_deref(), Some("st((a |-> k) & (b |-> 0), a)"));
        for bad in [
            "win",
            "win()",
            "win(p1,)",
            "winner(p1)",
            "w(B, (k n))",
            "win(p1))",
        ] {
            assert!(Question::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn results_round_trip_through_valid() {
        let win = Some(Goal::Win);
        assert!(valid(&format!("0.5{SEP}1/2"), win).is_ok());
        assert!(valid(&format!("0.53{SEP}"), win).is_ok());
        assert!(valid("0.5", win).is_err());
        assert!(valid(&format!("x{SEP}1/2"), win).is_err());
        assert!(valid(&format!("0.5{SEP}1/x"), win).is_err());
        assert!(valid(&format!("0.5{SEP}1/0"), win).is_err());
        // A probability is between 0 and 1; an expected score need not be.
        assert!(valid(&format!("7.5{SEP}15/2"), win).is_err());
        assert!(valid(&format!("7.5{SEP}15/2"), Some(Goal::Score)).is_ok());
        assert!(valid(&format!("-0.5{SEP}"), win).is_err());
        // The decimal is the fraction, to a double's precision.
        assert!(valid(&format!("0.3333333333333333{SEP}1/3"), win).is_ok());
        assert!(valid(&format!("0.25{SEP}1/3"), win).is_err());
        assert_eq!(decimal(&format!("0.25{SEP}1/4")), Some(0.25));
    }
}
