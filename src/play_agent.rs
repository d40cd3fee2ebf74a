//! `gamelang play GAME.game --agent SPEC`: a person plays one side of any `.game` game in
//! the terminal against one of seed 004's agents (`gamelang agents` lists them).
//!
//! Each turn of the person's shows the board (the game's `display`, or the configuration)
//! and the moves, numbered. A line of input is a move's number, a configuration typed as a
//! term (it must be one of the moves once reduced), `undo` (back to the person's previous
//! turn), `hint` (the move the agent would play in the person's place), `moves`, `help` or
//! `quit`. A refused line is reported on stderr and the person types again; read from a
//! pipe, the session then ends with exit status 1 (a script with a mistake fails).

use crate::agents::{load, GameArgs};
use gamelang_agents::{Agent, AgentSpec, EngineRules, Pos, Rng, Rules};
use gamelang_game::{self as driver, Side, SolveError, Verdict};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{Game, Session};
use gamelang_lang::span::Span;
use gamelang_runtime::{Engine, TermId};
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// What `gamelang play --agent` was asked.
pub struct Options {
    pub game: GameArgs,
    pub agent: String,
    /// The side the person plays (default: the side that moves first).
    pub side: Option<String>,
}

const HELP: &str = "type a move's number or a configuration; `undo` takes back your last \
move, `hint` shows what the agent would play for you, `moves` shows the board and the moves \
again, `quit` leaves";

/// One game between the person and the agent.
struct Table<'g> {
    session: Session,
    game: &'g Game,
    rules: EngineRules<'g>,
    spec: AgentSpec,
    agent: Box<dyn Agent>,
    /// The same agent on its own random stream, for `hint`.
    hinter: Box<dyn Agent>,
    human: Side,
    /// The positions so far, the start first.
    line: Vec<Pos>,
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
    let (session, game) = match load(&opts.game) {
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
    let engine = Engine::new(Arc::new(session.program.clone()));
    let rules = match EngineRules::new(engine, &game) {
        Ok(r) => r,
        Err(e) => {
            let d = driver::diagnose(&Engine::new(Arc::new(session.program.clone())), &e);
            return refuse(d);
        }
    };
    let seed = opts.game.seed;
    let mut table = Table {
        game: &game,
        rules,
        spec,
        agent: spec.build(Rng::derive(seed, 0)),
        hinter: spec.build(Rng::derive(seed, 1)),
        human: Side::B,
        line: Vec::new(),
        color,
        session,
    };
    let start = match table.rules.start() {
        Ok(p) => p,
        Err(e) => return table.runtime(e),
    };
    table.human = match opts.side.as_deref().map(str::trim) {
        None => start.to_move,
        Some("B" | "b") => Side::B,
        Some("R" | "r") => Side::R,
        Some(other) => {
            return table.refuse(
                Diag::error(format!("--as: `{other}` is not a player"))
                    .note("write --as B or --as R"),
            )
        }
    };
    table.line.push(start);
    println!(
        "game {}: you play {} ({}), {} plays {} ({}); {HELP}",
        game.name,
        table.human.name(),
        table.human.full_name(),
        spec,
        table.human.opponent().name(),
        table.human.opponent().full_name()
    );
    match table.play() {
        Ok(code) => code,
        Err(e) => table.runtime(e),
    }
}

impl Table<'_> {
    fn refuse(&self, d: Diag) -> ExitCode {
        eprint!("{}", d.render(&self.session.sources, self.color));
        ExitCode::FAILURE
    }

    /// A run-time failure of the game's equations (or Ctrl-C).
    fn runtime(&self, e: SolveError) -> ExitCode {
        self.refuse(driver::diagnose(&self.rules.engine, &e))
    }

    fn here(&self) -> Pos {
        *self.line.last().expect("the start is always there")
    }

    /// The moves at `p`; none when play has halted.
    fn moves(&mut self, p: Pos) -> Result<Vec<TermId>, SolveError> {
        if self.rules.halted(p)? {
            Ok(Vec::new())
        } else {
            self.rules.moves(p)
        }
    }

    /// The board as the game draws it, ending with a newline.
    fn board(&mut self, c: TermId) -> String {
        let mut text = self.rules.draw(c);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The game, until it ends or the person leaves.
    fn play(&mut self) -> Result<ExitCode, SolveError> {
        let interactive = std::io::stdin().is_terminal();
        let mut lines = std::io::stdin().lock().lines();
        let mut refused = false;
        let mut show = true;
        loop {
            let p = self.here();
            let moves = self.moves(p)?;
            if moves.is_empty() {
                print!("{}", self.board(p.config));
                let v = self.rules.result(p)?;
                let who = match v {
                    Verdict::Win(s) if s == self.human => " — you win!".to_string(),
                    Verdict::Win(_) => format!(" — {} wins", self.spec),
                    Verdict::Draw => String::new(),
                };
                let v = match v {
                    Verdict::Win(s) => format!("{} ({}) wins", s.name(), s.full_name()),
                    Verdict::Draw => "a draw".into(),
                };
                println!(
                    "play has halted at {} with {} to move: {v}{who}",
                    self.rules.show(p.config),
                    p.to_move.name()
                );
                return Ok(status(refused, interactive));
            }
            if p.to_move != self.human {
                let i = self.agent.choose(&mut self.rules, p, &moves)?;
                let m = moves[i];
                println!(
                    "{} ({}) plays {}",
                    self.spec,
                    p.to_move.name(),
                    self.rules.show(m)
                );
                self.line.push(p.after(m));
                show = true;
                continue;
            }
            if show {
                self.show_turn(p, &moves);
                show = false;
            }
            if interactive {
                print!("your move> ");
                let _ = std::io::stdout().flush();
            }
            let Some(Ok(line)) = lines.next() else {
                println!("(end of input: the game is left unfinished)");
                return Ok(status(refused, interactive));
            };
            match self.input(line.trim(), p, &moves) {
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

    fn show_turn(&mut self, p: Pos, moves: &[TermId]) {
        print!("{}", self.board(p.config));
        println!(
            "your move ({}), {} possible:",
            p.to_move.name(),
            moves.len()
        );
        let width = moves.len().to_string().len();
        for (i, &m) in moves.iter().enumerate() {
            println!("  {:>width$}  {}", i + 1, self.rules.show(m));
        }
    }

    /// One line of the person's input at their turn `p`.
    fn input(&mut self, text: &str, p: Pos, moves: &[TermId]) -> Result<Input, Refusal> {
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
                let i = self.hinter.choose(&mut self.rules, p, moves)?;
                println!(
                    "hint: {} would play {}  {}",
                    self.spec,
                    i + 1,
                    self.rules.show(moves[i])
                );
                return Ok(Input::Stay);
            }
            _ => {}
        }
        let i = if let Ok(k) = text.parse::<i64>() {
            if k < 1 || k as usize > moves.len() {
                return Err(Refusal::Input(
                    Diag::error(format!("there is no move {k}"))
                        .note(format!("pick a move from 1 to {}", moves.len())),
                ));
            }
            k as usize - 1
        } else {
            self.typed_move(text, moves)?
        };
        let m = moves[i];
        println!("you ({}) play {}", p.to_move.name(), self.rules.show(m));
        self.line.push(p.after(m));
        Ok(Input::Moved)
    }

    /// A configuration typed as a term: which of `moves` it is, once reduced.
    fn typed_move(&mut self, text: &str, moves: &[TermId]) -> Result<usize, Refusal> {
        let file = self.session.add_input("your move", text);
        let pat = self
            .session
            .parse_term_in(
                self.game.module,
                file,
                0..text.len(),
                Some(self.game.config_sort),
            )
            .map_err(|d| {
                Refusal::Input(d.note(format!(
                    "type a move's number, a configuration of the game, or one of: {}",
                    "undo, hint, moves, help, quit"
                )))
            })?;
        // Parsing may have added symbols (a new string): the engine must know them.
        let engine = &mut self.rules.engine;
        if engine.program().sig.ops.len() != self.session.program.sig.ops.len() {
            engine.set_program(Arc::new(self.session.program.clone()));
        }
        let t = engine.build(&pat, &[]);
        let c = engine
            .reduce(t)
            .map_err(|e| Refusal::Game(SolveError::Runtime(engine.failure(e))))?;
        match moves.iter().position(|&m| m == c) {
            Some(i) => Ok(i),
            None => {
                let at = Span::new(file, 0, text.len());
                Err(Refusal::Input(
                    Diag::at(
                        at,
                        format!("`{}` is not a move from here", self.rules.show(c)),
                        "not one of the moves",
                    )
                    .note("`moves` lists the moves; type a number or one of them"),
                ))
            }
        }
    }

    /// Back to the person's previous turn.
    fn undo(&mut self) -> Result<(), Refusal> {
        let earlier = self.line[..self.line.len() - 1]
            .iter()
            .rposition(|p| p.to_move == self.human);
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
