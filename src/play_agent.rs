//! `gamelang play GAME.game --agent SPEC`: a person plays one seat of any `.game` game in
//! the terminal against one of seed 004's agents (`gamelang agents` lists them): a
//! two-player game, or a chance game (`instance CHANCE{…}`) whose other players are all
//! played by the agent.
//!
//! Each turn of the person's shows the board (the game's `display`, or the term) and the
//! moves, numbered. A line of input is a move's number, a move typed as a term (a
//! configuration, or a chance game's choice; it must be one of the moves once reduced),
//! `undo` (back to the person's previous turn), `hint` (the move the agent would play in
//! the person's place), `moves`, `help` or `quit`. After a move with chance outcomes the
//! outcome drawn (from `--seed`) is shown with its probability. A refused line is
//! reported on stderr and the person types again; read from a pipe, the session then
//! ends with exit status 1 (a script with a mistake fails).

use crate::agents::{load, with_rules, GameArgs, Which};
use gamelang_agents::rules::side;
use gamelang_agents::{Agent, AgentSpec, Node, Pos, Rng, Rules, Turn};
use gamelang_game::{self as driver, SolveError};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::Session;
use gamelang_lang::span::Span;
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

/// What `gamelang play --agent` was asked.
pub struct Options {
    pub game: GameArgs,
    pub agent: String,
    /// The player the person plays (default: the one that moves first).
    pub side: Option<String>,
}

const HELP: &str = "type a move's number or the move as a term (a configuration, a choice); \
`undo` takes back your last move, `hint` shows what the agent would play for you, `moves` \
shows the board and the moves again, `quit` leaves";

/// One game between the person and the agent.
struct Table<'w> {
    session: Session,
    which: &'w Which,
    spec: AgentSpec,
    agent: Box<dyn Agent>,
    /// The same agent on its own random stream, for `hint`.
    hinter: Box<dyn Agent>,
    /// Chance outcomes are drawn from this stream.
    events: Rng,
    /// The person's player (an index into the game's players).
    human: usize,
    players: Vec<String>,
    /// The positions so far, the start first, each with the player to move there (none
    /// once play is over).
    line: Vec<(Pos, Option<usize>)>,
    color: bool,
}

/// What a line of the person's input did.
enum Input {
    /// A move was played (or taken back): show the position again.
    Moved,
    /// Nothing changed (a hint, the help).
    Stay,
    Quit,
}

pub fn run(opts: Options) -> ExitCode {
    let (session, which) = match load(&opts.game) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let color = std::io::stderr().is_terminal();
    let refuse = |d: Diag| {
        eprint!("{}", d.render(&session.sources, color));
        ExitCode::FAILURE
    };
    let spec = match AgentSpec::parse(&opts.agent) {
        Ok(s) => s,
        Err(e) => {
            return refuse(
                Diag::error(format!("--agent: {e}"))
                    .note("`gamelang agents` lists the agents, e.g. --agent mcts:1000"),
            )
        }
    };
    // (`astar` without a distance to goal: refused now, not after the person's first move.)
    let program = crate::app::program(&session, &which.modules());
    if let Err(d) = crate::agents::check_agents(&program, &which, &[spec]) {
        return refuse(d);
    }
    let mut engine = gamelang_runtime::Engine::new(program);
    let seed = opts.game.seed;
    let mut table = Table {
        which: &which,
        spec,
        agent: spec.build(Rng::derive(seed, 0)),
        hinter: spec.build(Rng::derive(seed, 1)),
        events: Rng::derive(seed, 2),
        human: 0,
        players: Vec::new(),
        line: Vec::new(),
        color,
        session,
    };
    let side = opts.side.as_deref().map(str::trim);
    let played = with_rules(&mut engine, &which, |rules, start| {
        table.players = rules.players();
        let first = table.player_at(rules, start)?;
        table.human = match side {
            None => first.unwrap_or(0),
            Some(name) => match table
                .players
                .iter()
                .position(|p| p.eq_ignore_ascii_case(name))
            {
                Some(i) => i,
                None => {
                    let d = Diag::error(format!("--as: `{name}` is not a player")).note(format!(
                        "write {}",
                        table
                            .players
                            .iter()
                            .map(|p| format!("--as {p}"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ));
                    return Ok(table.refuse(d));
                }
            },
        };
        table.line.push((start, first));
        table.greet();
        table.play(rules)
    });
    match played {
        Ok(code) => code,
        Err(e) => table.refuse(driver::diagnose(&engine, &e)),
    }
}

impl Table<'_> {
    fn refuse(&self, d: Diag) -> ExitCode {
        eprint!("{}", d.render(&self.session.sources, self.color));
        ExitCode::FAILURE
    }

    /// A player as the person reads it: `B (Benny)` in a two-player game, else its name.
    fn who(&self, i: usize) -> String {
        match self.which {
            Which::Plain(_) => format!("{} ({})", side(i).name(), side(i).full_name()),
            Which::Chance(_) => self.players[i].clone(),
        }
    }

    fn greet(&self) {
        let others: Vec<String> = (0..self.players.len())
            .filter(|&i| i != self.human)
            .map(|i| self.who(i))
            .collect();
        println!(
            "game {}: you play {}, {} plays {}; {HELP}",
            self.which.name(),
            self.who(self.human),
            self.spec,
            others.join(", ")
        );
    }

    /// The player to move at `p`, or `None` when play is over.
    fn player_at(&self, rules: &mut dyn Rules, p: Pos) -> Result<Option<usize>, SolveError> {
        Ok(match rules.node(p)? {
            Node::Turn(t) => Some(t.player),
            Node::Over { .. } => None,
        })
    }

    fn here(&self) -> Pos {
        self.line.last().expect("the start is always there").0
    }

    /// The board as the game draws it, ending with a newline.
    fn board(&self, rules: &mut dyn Rules, p: Pos) -> String {
        let mut text = rules.draw(p);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// Play `turn.moves[i]` at `p` for `player` (`who` says it): the outcome drawn by
    /// chance is shown when there is more than one.
    fn take(
        &mut self,
        rules: &mut dyn Rules,
        turn: &Turn,
        i: usize,
        said: String,
    ) -> Result<(), SolveError> {
        let m = &turn.moves[i];
        println!("{said} {}", rules.show(m.label));
        let next = gamelang_agents::mcts::draw(&mut self.events, m);
        if m.outcomes.len() > 1 {
            let prob = m
                .outcomes
                .iter()
                .find(|(_, q)| *q == next)
                .map_or(0.0, |(pr, _)| *pr);
            let events = rules.events_to(self.here(), m.label, next)?;
            let events = if events.is_empty() {
                String::new()
            } else {
                format!("{} ", events.join(" or "))
            };
            println!(
                "chance: {events}(probability {}): {}",
                fraction(prob),
                rules.show(next.config)
            );
        }
        let player = self.player_at(rules, next)?;
        self.line.push((next, player));
        Ok(())
    }

    /// The game, until it ends or the person leaves.
    fn play(&mut self, rules: &mut dyn Rules) -> Result<ExitCode, SolveError> {
        let interactive = std::io::stdin().is_terminal();
        let mut lines = std::io::stdin().lock().lines();
        let mut refused = false;
        let mut show = true;
        loop {
            let p = self.here();
            let turn = match rules.node(p)? {
                Node::Turn(t) => t,
                Node::Over { winners } => {
                    print!("{}", self.board(rules, p));
                    let text = match self.which {
                        Which::Plain(_) => {
                            let v = match winners[..] {
                                [w] => format!("{} wins", self.who(w)),
                                _ => "a draw".into(),
                            };
                            format!(
                                "play has halted at {} with {} to move: {v}",
                                rules.show(p.config),
                                p.to_move.name()
                            )
                        }
                        Which::Chance(_) => {
                            let v = if winners.is_empty() {
                                "nobody wins".to_string()
                            } else {
                                let w: Vec<String> = winners.iter().map(|&w| self.who(w)).collect();
                                format!("{} won", w.join(" and "))
                            };
                            format!("play has ended at {}: {v}", rules.show(p.config))
                        }
                    };
                    let you = if winners.contains(&self.human) {
                        " — you win!".to_string()
                    } else if winners.is_empty() {
                        String::new()
                    } else {
                        format!(" — {} wins", self.spec)
                    };
                    println!("{text}{you}");
                    return Ok(status(refused, interactive));
                }
            };
            if turn.player != self.human {
                let i = self.agent.choose(rules, p, &turn)?;
                let said = format!("{} ({}) plays", self.spec, self.players[turn.player]);
                self.take(rules, &turn, i, said)?;
                show = true;
                continue;
            }
            if show {
                self.show_turn(rules, p, &turn);
                show = false;
            }
            if interactive {
                print!("your move> ");
                let _ = std::io::stdout().flush();
            }
            let line = match lines.next() {
                Some(Ok(line)) => line,
                None => {
                    println!("(end of input: the game is left unfinished)");
                    return Ok(status(refused, interactive));
                }
                // Not text (invalid UTF-8) or not readable: an error, not the end of the
                // game (the lines after it would be dropped without a word).
                Some(Err(e)) => {
                    return Ok(self.refuse(
                        Diag::error(format!(
                            "cannot read the next move from standard input: {e}"
                        ))
                        .code("gamelang::io"),
                    ));
                }
            };
            match self.input(rules, line.trim(), p, &turn) {
                Ok(Input::Moved) => show = true,
                Ok(Input::Stay) => {}
                Ok(Input::Quit) => return Ok(status(refused, interactive)),
                Err(Refusal::Input(d)) => {
                    refused = true;
                    eprint!("{}", d.render(&self.session.sources, self.color));
                }
                Err(Refusal::Game(e)) => return Err(e),
            }
        }
    }

    fn show_turn(&self, rules: &mut dyn Rules, p: Pos, turn: &Turn) {
        print!("{}", self.board(rules, p));
        println!(
            "your move ({}), {} possible:",
            self.players[turn.player],
            turn.moves.len()
        );
        let width = turn.moves.len().to_string().len();
        for (i, m) in turn.moves.iter().enumerate() {
            println!("  {:>width$}  {}", i + 1, rules.show(m.label));
        }
    }

    /// One line of the person's input at their turn `p`.
    fn input(
        &mut self,
        rules: &mut dyn Rules,
        text: &str,
        p: Pos,
        turn: &Turn,
    ) -> Result<Input, Refusal> {
        match text {
            "" => return Ok(Input::Stay),
            "quit" | "stop" | "exit" => return Ok(Input::Quit),
            "help" | "?" => {
                println!("{HELP}");
                return Ok(Input::Stay);
            }
            "moves" | "board" => return Ok(Input::Moved),
            "undo" => return self.undo().map(|()| Input::Moved),
            "hint" => {
                let i = self.hinter.choose(rules, p, turn)?;
                println!(
                    "hint: {} would play {}  {}",
                    self.spec,
                    i + 1,
                    rules.show(turn.moves[i].label)
                );
                return Ok(Input::Stay);
            }
            _ => {}
        }
        let n = turn.moves.len();
        let i = if let Ok(k) = text.parse::<i64>() {
            if k < 1 || k as usize > n {
                return Err(Refusal::Input(
                    Diag::error(format!("there is no move {k}"))
                        .note(format!("pick a move from 1 to {n}")),
                ));
            }
            k as usize - 1
        } else {
            self.typed_move(rules, text, turn)?
        };
        let said = format!("you ({}) play", self.players[turn.player]);
        self.take(rules, turn, i, said)?;
        Ok(Input::Moved)
    }

    /// A move typed as a term: which of the moves it is, once reduced.
    fn typed_move(
        &mut self,
        rules: &mut dyn Rules,
        text: &str,
        turn: &Turn,
    ) -> Result<usize, Refusal> {
        let (module, sort) = match self.which {
            Which::Plain(g) => (g.module, g.config_sort),
            Which::Chance(g) => (g.module, g.choice_sort),
        };
        let file = self.session.add_input("your move", text);
        let pat = self
            .session
            .parse_term_in(module, file, 0..text.len(), Some(sort))
            .map_err(|d| {
                Refusal::Input(d.note(format!(
                    "type a move's number, a move as a term, or one of: {}",
                    "undo, hint, moves, help, quit"
                )))
            })?;
        let Some(engine) = rules.engine() else {
            return Err(Refusal::Input(Diag::error(
                "this game reads no typed moves: type a move's number",
            )));
        };
        // Parsing may have added symbols (a new string): the engine must know them.
        if engine.program().sig.ops.len() != self.session.program.sig.ops.len() {
            engine.set_program(crate::app::program(&self.session, &self.which.modules()));
        }
        let t = engine.build(&pat, &[]);
        let at = Span::new(file, 0, text.len());
        let c = match engine.reduce(t) {
            Ok(c) => c,
            Err(e) => {
                let failure = SolveError::Runtime(engine.failure(e));
                if driver::is_interrupted(&failure) {
                    return Err(Refusal::Game(failure));
                }
                // What was typed does not reduce (`(2 (5 quo 0))`, a bad board string):
                // the person's mistake, located in what they typed; the game goes on.
                let d = driver::diagnose(engine, &failure);
                let d = if d.span().is_some() {
                    d.secondary(at, "while reducing the move typed here")
                } else {
                    d.primary(at, "in the move typed here")
                };
                return Err(Refusal::Input(d.note("type the move again, or its number")));
            }
        };
        match turn.moves.iter().position(|m| m.label == c) {
            Some(i) => Ok(i),
            None => Err(Refusal::Input(
                Diag::at(
                    at,
                    format!("`{}` is not a move from here", rules.show(c)),
                    "not one of the moves",
                )
                .note("`moves` lists the moves; type a number or one of them"),
            )),
        }
    }

    /// Back to the person's previous turn.
    fn undo(&mut self) -> Result<(), Refusal> {
        let earlier = self.line[..self.line.len() - 1]
            .iter()
            .rposition(|&(_, p)| p == Some(self.human));
        match earlier {
            Some(i) => {
                self.line.truncate(i + 1);
                println!("taken back");
                Ok(())
            }
            None => Err(Refusal::Input(Diag::error(
                "nothing to undo: you have not moved yet",
            ))),
        }
    }
}

/// A probability as a short fraction when it is one with a small denominator (`1/6`),
/// else as a decimal.
fn fraction(p: f64) -> String {
    for d in 1..=1000u32 {
        let n = (p * d as f64).round();
        if (n / d as f64 - p).abs() < 1e-9 {
            return format!("{n}/{d}");
        }
    }
    format!("{p:.4}")
}

/// Why a line of input was not played.
enum Refusal {
    /// The person's mistake: reported, and they type again.
    Input(Diag),
    /// The game's equations failed (or Ctrl-C): the session ends.
    Game(SolveError),
}

impl From<SolveError> for Refusal {
    fn from(e: SolveError) -> Refusal {
        Refusal::Game(e)
    }
}

fn status(refused: bool, interactive: bool) -> ExitCode {
    if refused && !interactive {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
