//! `play` on a chance game (`instance CHANCE{…}`, any number of players): the user plays
//! one player (`--as NAME`, default the one to move at the start), one of seed 004's agents
//! every other (`--agent SPEC`, default `mcts:200`), as `gamelang play` does. Chance
//! outcomes are drawn from `--seed` and printed with the events that led to them and their
//! probability. `undo` takes back the user's last decision (and what followed), `hint`
//! shows the agent's move in the user's place. The agents see the game through the
//! REPL's engine, a model and rules made afresh for each command.

use super::{Args, Backend, Reply};
use gamelang_agents::chance::solve_error;
use gamelang_agents::mcts::draw;
use gamelang_agents::{Agent, AgentSpec, ChanceRules, Node, Pos, Rng, Rules, Turn};
use gamelang_chance::engine::EngineModel;
use gamelang_game::SolveError;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::TermId;

/// The agent when `play` on a chance game names none.
const DEFAULT_AGENT: &str = "mcts:200";

/// A chance game being played.
pub(super) struct ChancePlay {
    pub game: ChanceGame,
    pub players: Vec<String>,
    /// The player the user plays.
    pub human: usize,
    /// The states so far, the start first, and whether the user was to decide at each.
    pub line: Vec<(TermId, bool)>,
    pub over: bool,
    pub spec: AgentSpec,
    pub agent: Box<dyn Agent>,
    /// The same agent on a random stream of its own, for `hint`.
    pub hinter: Box<dyn Agent>,
    /// Where chance outcomes come from.
    pub events: Rng,
}

/// What the user is shown of a chance move's outcome: the events that led to it and its
/// probability, e.g. `chance: 4 (probability 1/6): pig(0, 0, 4, p1)`.
fn outcome_line(
    rules: &mut dyn Rules,
    at: Pos,
    turn: &Turn,
    i: usize,
    next: Pos,
) -> Result<Option<String>, SolveError> {
    let m = &turn.moves[i];
    if m.outcomes.len() < 2 {
        return Ok(None);
    }
    let prob = m
        .outcomes
        .iter()
        .find(|(_, q)| *q == next)
        .map_or(0.0, |(pr, _)| *pr);
    let events = rules.events_to(at, m.label, next)?;
    let events = if events.is_empty() {
        String::new()
    } else {
        format!("{} ", events.join(" or "))
    };
    Ok(Some(format!(
        "chance: {events}(probability {}): {}",
        fraction(prob),
        rules.show(next.config)
    )))
}

/// A probability as a short fraction (`1/6`) when it is one, else as a decimal.
fn fraction(p: f64) -> String {
    for d in 1..=1000u32 {
        let n = (p * d as f64).round();
        if (n / d as f64 - p).abs() < 1e-9 {
            return format!("{n}/{d}");
        }
    }
    format!("{p:.4}")
}

impl Backend {
    /// The chance game a command names (`--game NAME`), or the current one; `None` when
    /// the command is about a two-player game.
    pub(super) fn chance_game_for(&self, args: &Args, text: &str) -> Option<ChanceGame> {
        match args.get("--game") {
            Some(range) => (self.session.chance_games.iter().rev())
                .find(|g| g.name == text[range.clone()])
                .cloned(),
            None => self.current_chance_game().cloned(),
        }
    }

    /// The chance game `select` made current, or else the last one loaded when no
    /// two-player game is.
    pub(super) fn current_chance_game(&self) -> Option<&ChanceGame> {
        let games = &self.session.chance_games;
        match &self.chance_game {
            Some(name) => games.iter().rev().find(|g| &g.name == name),
            None if self.session.games.is_empty() => games.last(),
            None => None,
        }
    }

    /// Run `f` on the rules of the chance game being played, over the REPL's engine.
    fn with_chance_rules<T>(
        &mut self,
        game: &ChanceGame,
        f: impl FnOnce(&mut ChanceRules<'_, EngineModel<'_>>) -> Result<T, SolveError>,
    ) -> Result<T, Diag> {
        let result = match EngineModel::new(&mut self.engine, game, None) {
            Ok(mut model) => {
                model.remember = true;
                ChanceRules::new(&mut model).and_then(|mut rules| f(&mut rules))
            }
            Err(e) => Err(solve_error(e)),
        };
        result.map_err(|e| self.runtime_diag(&e))
    }

    pub(super) fn start_chance_play(
        &mut self,
        game: ChanceGame,
        file: FileId,
        args: &Args,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
        let seed = match args.get("--seed") {
            None => 1,
            Some(range) => text[range.clone()].parse::<u64>().map_err(|_| {
                Diag::at(
                    Span::new(file, range.start, range.end),
                    format!("`{}` is not a seed", &text[range]),
                    "expected a whole number",
                )
            })?,
        };
        let spec = match args.get("--agent") {
            None => AgentSpec::parse(DEFAULT_AGENT).expect("a valid spec"),
            Some(range) => AgentSpec::parse(&text[range.clone()]).map_err(|e| {
                Diag::at(Span::new(file, range.start, range.end), e, "not an agent")
                    .note("`gamelang agents` describes the agents, e.g. --agent mcts:1000")
            })?,
        };
        let (players, start, first) = self.with_chance_rules(&game, |rules| {
            let start = rules.start()?;
            let first = match rules.node(start)? {
                Node::Turn(t) => t.player,
                Node::Over { .. } => 0,
            };
            Ok((rules.players(), start.config, first))
        })?;
        let human = match args.get("--as") {
            None => first,
            Some(range) => {
                let name = text[range.clone()].trim();
                players.iter().position(|p| p == name).ok_or_else(|| {
                    Diag::at(
                        Span::new(file, range.start, range.end),
                        format!("`{name}` is not a player of {}", game.name),
                        "not a player",
                    )
                    .note(format!("the players: {}", players.join(", ")))
                })?
            }
        };
        r.out(format!(
            "game {}: you play {}, {spec} plays {}; type a move's number, `hint`, \
             `undo` to take a move back, `stop` to leave\n",
            game.name,
            players[human],
            players
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != human)
                .map(|(_, p)| p.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        self.play = None;
        let previous = self.chance_play.replace(ChancePlay {
            game,
            players,
            human,
            line: vec![(start, false)],
            over: false,
            spec,
            agent: spec.build(Rng::derive(seed, 0)),
            hinter: spec.build(Rng::derive(seed, 1)),
            events: Rng::derive(seed, u64::MAX),
        });
        if let Err(d) = self.chance_advance(r) {
            self.chance_play = previous;
            return Err(d);
        }
        Ok(())
    }

    /// Let the agent play every other player until it is the user's turn (then show the
    /// state and the moves) or play is over (then say who won).
    fn chance_advance(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let mut play = self.chance_play.take().expect("playing a chance game");
        let game = play.game.clone();
        let mut out = String::new();
        let result = self.with_chance_rules(&game, |rules| loop {
            let at = Pos::state(play.line.last().expect("a start").0);
            let turn = match rules.node(at)? {
                Node::Over { winners } => {
                    let names: Vec<&str> =
                        winners.iter().map(|&w| play.players[w].as_str()).collect();
                    let you = if winners.contains(&play.human) {
                        " — you win!".to_string()
                    } else if winners.is_empty() {
                        String::new()
                    } else {
                        format!(" — {} wins", play.spec)
                    };
                    out.push_str(&format!(
                        "play has ended at {}: {}{you}\n",
                        rules.show(at.config),
                        if names.is_empty() {
                            "nobody wins".to_string()
                        } else {
                            format!("{} won", names.join(" and "))
                        }
                    ));
                    play.over = true;
                    return Ok(());
                }
                Node::Turn(t) => t,
            };
            if turn.player == play.human {
                play.line.last_mut().expect("a start").1 = true;
                out.push_str(&format!(
                    "{}\nyour move ({}):\n",
                    rules.draw(at).trim_end(),
                    play.players[play.human]
                ));
                let labels: Vec<TermId> = turn.moves.iter().map(|m| m.label).collect();
                out.push_str(&super::play::numbered(
                    rules.engine().expect("an engine"),
                    &labels,
                ));
                return Ok(());
            }
            let i = play.agent.choose(rules, at, &turn)?;
            let next = draw(&mut play.events, &turn.moves[i]);
            out.push_str(&format!(
                "{} ({}) plays {}\n",
                play.spec,
                play.players[turn.player],
                rules.show(turn.moves[i].label)
            ));
            if let Some(line) = outcome_line(rules, at, &turn, i, next)? {
                out.push_str(&line);
                out.push('\n');
            }
            play.line.push((next.config, false));
        });
        r.out(out);
        self.chance_play = Some(play);
        result
    }

    /// The user's move `k` (from 1).
    pub(super) fn chance_pick(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
        let k: usize = text.trim().parse().unwrap_or(0);
        let mut play = self.chance_play.take().expect("playing a chance game");
        let game = play.game.clone();
        let saved = play.line.len();
        let picked = self.with_chance_rules(&game, |rules| {
            let at = Pos::state(play.line.last().expect("a start").0);
            let Node::Turn(turn) = rules.node(at)? else {
                return Ok(Err(0));
            };
            if k == 0 || k > turn.moves.len() {
                return Ok(Err(turn.moves.len()));
            }
            let next = draw(&mut play.events, &turn.moves[k - 1]);
            let mut said = format!(
                "you ({}) play {}\n",
                play.players[play.human],
                rules.show(turn.moves[k - 1].label)
            );
            if let Some(line) = outcome_line(rules, at, &turn, k - 1, next)? {
                said.push_str(&line);
                said.push('\n');
            }
            play.line.push((next.config, false));
            Ok(Ok(said))
        });
        self.chance_play = Some(play);
        match picked? {
            Err(n) => Err(Diag::error(format!("there is no move {k}"))
                .note(format!("pick a move from 1 to {n}"))),
            Ok(said) => {
                r.out(said);
                self.chance_advance(r).inspect_err(|_| {
                    if let Some(p) = self.chance_play.as_mut() {
                        p.line.truncate(saved);
                    }
                })
            }
        }
    }

    /// `undo`: back to the user's previous decision.
    pub(super) fn chance_undo(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let play = self.chance_play.as_mut().expect("a chance game");
        let last = play.line.len() - 1;
        let Some(i) = (0..last).rev().find(|&i| play.line[i].1) else {
            return Err(Diag::error("nothing to undo: you have not moved yet"));
        };
        play.line.truncate(i + 1);
        play.over = false;
        r.out("taken back\n");
        self.chance_advance(r)
    }

    /// `hint`: the agent's move in the user's place.
    pub(super) fn chance_hint(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let mut play = self.chance_play.take().expect("a chance game");
        let game = play.game.clone();
        let hint = if play.over {
            Ok(None)
        } else {
            self.with_chance_rules(&game, |rules| {
                let at = Pos::state(play.line.last().expect("a start").0);
                let Node::Turn(turn) = rules.node(at)? else {
                    return Ok(None);
                };
                let i = play.hinter.choose(rules, at, &turn)?;
                Ok(Some(format!(
                    "hint: {}  {}\n",
                    i + 1,
                    rules.show(turn.moves[i].label)
                )))
            })
        };
        self.chance_play = Some(play);
        match hint? {
            Some(h) => {
                r.out(h);
                Ok(())
            }
            None => Err(Diag::error("the game is over").note(
                "`undo` takes back your last move, `play` starts a new game, `stop` leaves it",
            )),
        }
    }
}
