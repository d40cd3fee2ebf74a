//! The one renderer of `gamelang solve`'s answers: a solver's report (plain data, see
//! `game/src/report.rs`) printed as text or as one JSON object. The REPL prints the same
//! text. Reports hold term ids; the engine that solved the game shows them.

use gamelang_game::{Bounded, GameDriver, Outcome, Players, SolveError, Value, Valued, Verdict};
use gamelang_lang::elab::Game;
use gamelang_runtime::Engine;
use serde_json::json;

/// One answer of a solver.
pub enum Report<'r> {
    /// Who wins, the winning move and the principal line.
    Outcome(&'r Outcome),
    /// Can the player to move win within a number of plies (`--max-depth`)?
    Bounded(&'r Bounded),
    /// The score under best play (`--value`).
    Valued(&'r Valued),
}

/// Prints reports about one game, with the terms shown by the engine that solved it.
pub struct Renderer<'a> {
    engine: &'a Engine,
    game: &'a Game,
    players: Players,
    /// In text, the plies of a principal line shown before the middle is elided (JSON has
    /// them all).
    show_plies: usize,
}

impl<'a> Renderer<'a> {
    /// A renderer for `game`, whose players it names as the game declares them.
    pub fn new(engine: &'a Engine, game: &'a Game, show_plies: usize) -> Renderer<'a> {
        Renderer {
            engine,
            game,
            players: Players::of_game(game, &engine.program().sig),
            show_plies,
        }
    }

    pub fn text(&self, report: &Report) -> String {
        match report {
            Report::Outcome(o) => outcome_text(self, o),
            Report::Bounded(b) => bounded_text(self, b),
            Report::Valued(v) => valued_text(self, v),
        }
    }

    pub fn json(&self, report: &Report) -> serde_json::Value {
        match report {
            Report::Outcome(o) => outcome_json(self, o),
            Report::Bounded(b) => bounded_json(self, b),
            Report::Valued(v) => valued_json(self, v),
        }
    }

    /// Print to standard output: one line of JSON, or the text.
    pub fn print(&self, report: &Report, json: bool) {
        if json {
            println!("{}", self.json(report));
        } else {
            print!("{}", self.text(report));
        }
    }
}

/// Milliseconds rounded to the microsecond, as JSON gives them (`millis`).
fn millis(elapsed: std::time::Duration) -> f64 {
    (elapsed.as_secs_f64() * 1e6).round() / 1e3
}

fn valued_json(r: &Renderer, v: &Valued) -> serde_json::Value {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    let mut j = json!({
        "game": game.name,
        "start": engine.show(v.start),
        "to_move": players.name(v.to_move),
        "value": value_json(&v.value),
        "positions": v.positions,
        "rewrites": v.steps,
        "millis": millis(v.elapsed),
    });
    if let Some(d) = v.max_depth {
        j["max_depth"] = json!(d);
    }
    j
}

/// A value in JSON: an integer as a JSON number.
fn value_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Int(n) => json!(n),
    }
}

fn valued_text(r: &Renderer, v: &Valued) -> String {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    format!(
        "game {}: {} with {} to move\nvalue under best play{}: {} (B maximises, R minimises)\npositions: {}   rewrites: {}   time: {:.3} ms\n",
        game.name,
        engine.show(v.start),
        players.name(v.to_move),
        match v.max_depth {
            Some(d) => format!(" within {d} plies"),
            None => String::new(),
        },
        v.value,
        v.positions,
        v.steps,
        millis(v.elapsed)
    )
}

fn outcome_json(r: &Renderer, o: &Outcome) -> serde_json::Value {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    json!({
        "game": game.name,
        "start": engine.show(o.start),
        "to_move": players.name(o.to_move),
        "winner": players.verdict(o.winner),
        "best_move": o.best_move.map(|m| engine.show(m)),
        "principal_line": o.line.iter().map(|c| engine.show(*c)).collect::<Vec<_>>(),
        "depth": o.line.len() - 1,
        "depth_optimal": o.depth_optimal,
        "plies": o.line.len() - 1,
        "positions": o.positions,
        "rewrites": o.steps,
        "millis": millis(o.elapsed),
    })
}

fn outcome_text(r: &Renderer, o: &Outcome) -> String {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "game {}: {} with {} to move",
        game.name,
        engine.show(o.start),
        players.name(o.to_move)
    );
    match o.winner {
        Verdict::Win(w) => {
            let _ = writeln!(out, "winner: {} ({})", players.name(w), w.full_name());
        }
        Verdict::Draw => {
            let _ = writeln!(out, "winner: none, a draw under best play");
        }
    }
    match o.best_move {
        Some(m) => {
            let _ = writeln!(
                out,
                "winning move: {} -> {}",
                engine.show(o.start),
                engine.show(m)
            );
        }
        None if o.line.len() == 1 => {
            let _ = writeln!(out, "no move: play has already halted");
        }
        None if o.winner == Verdict::Draw => {
            let _ = writeln!(out, "no winning move: with best play neither player wins");
        }
        None => {
            let _ = writeln!(
                out,
                "no winning move for {}: every move loses",
                players.name(o.to_move)
            );
        }
    }
    let plies = o.line.len() - 1;
    // Say when the line is not the fastest win: its search went past --line-budget.
    let kind = if o.depth_optimal || o.winner == Verdict::Draw {
        ""
    } else {
        ", first winning moves, not the fastest win"
    };
    let _ = write!(
        out,
        "principal line ({plies} plies{kind}): {}",
        engine.show(o.line[0])
    );
    for k in 1..=plies {
        if k > r.show_plies && k < plies {
            // Elide the middle of a long line, but always show how it ends.
            let _ = write!(out, " ... ({} plies) ...", plies - k);
            let _ = write!(
                out,
                " {}-> {}",
                players.name(o.mover(plies)),
                engine.show(o.line[plies])
            );
            break;
        }
        let _ = write!(
            out,
            " {}-> {}",
            players.name(o.mover(k)),
            engine.show(o.line[k])
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "positions: {}   rewrites: {}   time: {:.3} ms",
        o.positions,
        o.steps,
        o.elapsed.as_secs_f64() * 1e3
    );
    out
}

fn bounded_json(r: &Renderer, b: &Bounded) -> serde_json::Value {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    json!({
        "game": game.name,
        "start": engine.show(b.start),
        "to_move": players.name(b.to_move),
        "max_depth": b.max_depth,
        "wins_within": b.wins,
        "positions": b.positions,
        "rewrites": b.steps,
        "millis": millis(b.elapsed),
    })
}

fn bounded_text(r: &Renderer, b: &Bounded) -> String {
    let (engine, game, players) = (r.engine, r.game, &r.players);
    format!(
        "game {}: {} with {} to move\n{} {} force a win within {} plies\npositions: {}   rewrites: {}   time: {:.3} ms\n",
        game.name,
        engine.show(b.start),
        players.name(b.to_move),
        players.name(b.to_move),
        if b.wins { "can" } else { "cannot" },
        b.max_depth,
        b.positions,
        b.steps,
        b.elapsed.as_secs_f64() * 1e3
    )
}

/// The start and the principal line drawn by the game's `display` (nothing if it has none).
pub fn draw_line(
    engine: &mut Engine,
    game: &Game,
    o: &Outcome,
    show: usize,
) -> Result<String, SolveError> {
    use std::fmt::Write;
    let players = Players::of_game(game, &engine.program().sig);
    let d = GameDriver::new(engine, game)?;
    let mut out = String::new();
    let Some(start) = d.draw(engine, o.line[0])? else {
        return Ok(out);
    };
    let indent = |text: &str| {
        text.lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    };
    let _ = write!(
        out,
        "\nstart, {} to move:\n{}",
        players.name(o.to_move),
        indent(&start)
    );
    for k in 1..o.line.len().min(show + 1) {
        if let Some(text) = d.draw(engine, o.line[k])? {
            let _ = write!(
                out,
                "\nply {k}, {} moved:\n{}",
                players.name(o.mover(k)),
                indent(&text)
            );
        }
    }
    if o.line.len() > show + 1 {
        let _ = writeln!(out, "\n... {} more plies", o.line.len() - 1 - show);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An integer value prints as the integer (text) and as a JSON number, as `--value`
    /// printed the `i64` it was before `Value`.
    #[test]
    fn integer_values_print_as_before() {
        for n in [-7i64, 0, 4, i64::MAX] {
            assert_eq!(Value::Int(n).to_string(), n.to_string());
            assert_eq!(value_json(&Value::Int(n)).to_string(), n.to_string());
            assert_eq!(Value::from(n), n);
        }
    }
}
