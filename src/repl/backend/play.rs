//! `play`: the user picks moves by number for one side, gamelang answers for the other
//! with a move that keeps its best outcome (a winning move where one exists), until play
//! halts and the winner is announced. With `--agent SPEC` one of seed 004's agents answers
//! instead (crate `gamelang-agents`, on the REPL's own engine). `undo` takes back the user's
//! last move; `hint` shows the move gamelang would play in the user's place.

use super::{Args, Backend, Reply};
use gamelang_agents::{Agent, AgentSpec, EngineRules, Pos, Rng, Turn};
use gamelang_game::{GameDriver, Side, Verdict};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::Game;
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::{Engine, TermId};

/// A game being played.
pub(super) struct Play {
    pub game: Game,
    /// The side the user plays.
    pub human: Side,
    /// The positions so far, the start first: who is to move, and the configuration.
    pub line: Vec<(Side, TermId)>,
    /// Play has halted (the result was announced); `undo` reopens it.
    pub over: bool,
    /// The agent answering, when `play --agent SPEC` asked for one; otherwise exhaustive
    /// search answers.
    pub opponent: Option<Opponent>,
}

/// An agent playing against the user.
pub(super) struct Opponent {
    pub spec: AgentSpec,
    pub agent: Box<dyn Agent>,
    /// The same agent on a random stream of its own, for `hint`.
    pub hinter: Box<dyn Agent>,
}

/// "R (Rebecca) wins", "a draw".
pub(super) fn verdict_text(v: Verdict) -> String {
    match v {
        Verdict::Win(s) => format!("{} ({}) wins", s.name(), s.full_name()),
        Verdict::Draw => "a draw".to_string(),
    }
}

/// The moves, one per line, numbered from 1.
pub(super) fn numbered(engine: &Engine, moves: &[TermId]) -> String {
    let width = moves.len().to_string().len();
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| format!("  {:>width$}  {}\n", i + 1, engine.show(*m)))
        .collect()
}

impl Backend {
    pub(super) fn start_play(
        &mut self,
        file: FileId,
        args: &Args,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
        if let Some(game) = self.chance_game_for(args, &text) {
            return self.start_chance_play(game, file, args, r);
        }
        let game = self.pick_game(file, args, &text)?;
        let (_, _, c, p) = self.position(&game, file, args)?;
        let human = match args.get("--as") {
            Some(range) => {
                let pat =
                    self.session
                        .parse_term_in(game.module, file, range, Some(game.player_sort))?;
                let d =
                    GameDriver::new(&mut self.engine, &game).map_err(|e| self.runtime_diag(&e))?;
                let t = self.engine.build(&pat, &[]);
                d.side(&mut self.engine, t)
                    .map_err(|e| self.runtime_diag(&e))?
            }
            // By default the user plays the side that moves first.
            None => p,
        };
        let opponent = self.opponent(file, args)?;
        let who = match &opponent {
            Some(o) => o.spec.to_string(),
            None => "gamelang".to_string(),
        };
        r.out(format!(
            "game {}: you play {} ({}), {who} plays {} ({}); type a move's number, \
             `undo` to take a move back, `stop` to leave\n",
            game.name,
            human.name(),
            human.full_name(),
            human.opponent().name(),
            human.opponent().full_name()
        ));
        self.chance_play = None;
        let previous = self.play.replace(Play {
            game,
            human,
            line: vec![(p, c)],
            over: false,
            opponent,
        });
        if let Err(d) = self.advance(r) {
            self.play = previous;
            return Err(d);
        }
        Ok(())
    }

    /// The agent of `--agent SPEC` (with `--seed S`), if asked for.
    fn opponent(&mut self, file: FileId, args: &Args) -> Result<Option<Opponent>, Diag> {
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
        let Some(range) = args.get("--agent") else {
            return Ok(None);
        };
        let spec = AgentSpec::parse(&text[range.clone()]).map_err(|e| {
            Diag::at(Span::new(file, range.start, range.end), e, "not an agent")
                .note("`gamelang agents` describes the agents, e.g. --agent mcts:1000")
        })?;
        Ok(Some(Opponent {
            spec,
            agent: spec.build(Rng::derive(seed, 0)),
            hinter: spec.build(Rng::derive(seed, 1)),
        }))
    }

    /// A move picked by number.
    pub(super) fn pick(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
        let k: usize = text.trim().parse().unwrap_or(0);
        let (game, human, (p, c)) = {
            let play = self.play.as_ref().expect("playing");
            (
                play.game.clone(),
                play.human,
                *play.line.last().expect("a start"),
            )
        };
        let d = GameDriver::new(&mut self.engine, &game).map_err(|e| self.runtime_diag(&e))?;
        let moves = d
            .moves(&mut self.engine, p, c)
            .map_err(|e| self.runtime_diag(&e))?;
        if k == 0 || k > moves.len() {
            return Err(Diag::error(format!("there is no move {k}"))
                .note(format!("pick a move from 1 to {}", moves.len())));
        }
        let m = moves[k - 1];
        let mut said = format!(
            "you ({}) play {} -> {}",
            human.name(),
            self.engine.show(c),
            self.engine.show(m)
        );
        // Against exhaustive search the game is small enough to say when a move throws a
        // win away; against an agent it need not be.
        let against_search = self.play.as_ref().is_some_and(|p| p.opponent.is_none());
        if against_search {
            let before = d
                .verdict(&mut self.engine, p, c)
                .map_err(|e| self.runtime_diag(&e))?;
            let after = d
                .verdict(&mut self.engine, p.opponent(), m)
                .map_err(|e| self.runtime_diag(&e))?;
            if before == Verdict::Win(human) && after != Verdict::Win(human) {
                said.push_str("   (this gives away your win: `undo` takes it back)");
            }
        }
        r.out(said + "\n");
        let play = self.play.as_mut().expect("playing");
        let saved = play.line.len();
        play.line.push((p.opponent(), m));
        if let Err(d) = self.advance(r) {
            // Interrupted or failed while answering: back to before the move.
            if let Some(play) = self.play.as_mut() {
                play.line.truncate(saved);
                // Say so: the game quietly went back to before the move.
                let (_, at) = *play.line.last().expect("a start");
                return Err(d.note(format!(
                    "your move was taken back: the game is at {} again, your turn",
                    self.engine.show(at)
                )));
            }
            return Err(d);
        }
        Ok(())
    }

    pub(super) fn undo(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let Some(play) = self.play.as_mut() else {
            return Err(Diag::error("no game is being played").note("`play` starts one"));
        };
        let human = play.human;
        let last_turn = play
            .line
            .iter()
            .enumerate()
            .take(play.line.len() - 1)
            .rev()
            .find(|(_, (p, _))| *p == human)
            .map(|(i, _)| i);
        let Some(i) = last_turn else {
            return Err(Diag::error("nothing to undo: you have not moved yet"));
        };
        play.line.truncate(i + 1);
        play.over = false;
        r.out("taken back\n");
        self.advance(r)
    }

    /// Let gamelang move while it is its turn, then show the user's position and moves;
    /// or announce the result when play halts.
    fn advance(&mut self, r: &mut Reply) -> Result<(), Diag> {
        loop {
            let (game, human, (p, c)) = {
                let play = self.play.as_ref().expect("playing");
                (
                    play.game.clone(),
                    play.human,
                    *play.line.last().expect("a start"),
                )
            };
            let d = GameDriver::new(&mut self.engine, &game).map_err(|e| self.runtime_diag(&e))?;
            let halted = d
                .halted(&mut self.engine, p, c)
                .map_err(|e| self.runtime_diag(&e))?;
            let moves = if halted {
                Vec::new()
            } else {
                d.moves(&mut self.engine, p, c)
                    .map_err(|e| self.runtime_diag(&e))?
            };
            if moves.is_empty() {
                let v = d
                    .verdict(&mut self.engine, p, c)
                    .map_err(|e| self.runtime_diag(&e))?;
                // (The agent by name, as `gamelang play` says it.)
                let opponent = (self.play.as_ref())
                    .and_then(|p| p.opponent.as_ref())
                    .map_or("gamelang".to_string(), |o| o.spec.to_string());
                let who = match v {
                    Verdict::Win(s) if s == human => " — you win!".to_string(),
                    Verdict::Win(_) => format!(" — {opponent} wins"),
                    Verdict::Draw => String::new(),
                };
                r.out(format!(
                    "play has halted at {} with {} to move: {}{who}\n",
                    self.engine.show(c),
                    p.name(),
                    verdict_text(v)
                ));
                self.play.as_mut().expect("playing").over = true;
                return Ok(());
            }
            if p == human {
                r.out(format!(
                    "{} — your move ({}):\n",
                    self.engine.show(c),
                    p.name()
                ));
                r.out(numbered(&self.engine, &moves));
                return Ok(());
            }
            let chosen = if let Some(i) = self.agent_choice(&game, p, c, &moves, false)? {
                let spec = self
                    .play
                    .as_ref()
                    .and_then(|p| p.opponent.as_ref())
                    .map(|o| o.spec);
                r.out(format!(
                    "{} ({}) plays {} -> {}\n",
                    spec.map_or("gamelang".to_string(), |s| s.to_string()),
                    p.name(),
                    self.engine.show(c),
                    self.engine.show(moves[i])
                ));
                moves[i]
            } else {
                let (chosen, why) = self.best_move(&d, p, c, &moves)?;
                r.out(format!(
                    "gamelang ({}) plays {} -> {}   ({why})\n",
                    p.name(),
                    self.engine.show(c),
                    self.engine.show(chosen)
                ));
                chosen
            };
            self.play
                .as_mut()
                .expect("playing")
                .line
                .push((p.opponent(), chosen));
        }
    }

    /// The opponent agent's choice among `moves` at (p, c) (its hinter's with `hint`), or
    /// `None` when exhaustive search is the opponent.
    fn agent_choice(
        &mut self,
        game: &Game,
        p: Side,
        c: TermId,
        moves: &[TermId],
        hint: bool,
    ) -> Result<Option<usize>, Diag> {
        let Some(opponent) = self.play.as_mut().and_then(|p| p.opponent.as_mut()) else {
            return Ok(None);
        };
        let agent = if hint {
            &mut opponent.hinter
        } else {
            &mut opponent.agent
        };
        // The agent sees the game through the REPL's engine (and its memo tables).
        let chosen = EngineRules::new(&mut self.engine, game).and_then(|mut rules| {
            let at = Pos {
                to_move: p,
                config: c,
            };
            agent.choose(&mut rules, at, &Turn::without_chance(at, moves))
        });
        chosen.map(Some).map_err(|e| self.runtime_diag(&e))
    }

    /// Exhaustive search's move at (p, c): one that keeps the best outcome of the player to
    /// move (the first one, in the successor set's order; when every move loses, the first
    /// move), and why.
    fn best_move(
        &mut self,
        d: &GameDriver,
        p: Side,
        c: TermId,
        moves: &[TermId],
    ) -> Result<(TermId, &'static str), Diag> {
        let best = d
            .verdict(&mut self.engine, p, c)
            .map_err(|e| self.runtime_diag(&e))?;
        let mut chosen = moves[0];
        for &m in moves {
            let v = d
                .verdict(&mut self.engine, p.opponent(), m)
                .map_err(|e| self.runtime_diag(&e))?;
            if v == best {
                chosen = m;
                break;
            }
        }
        let why = match best {
            Verdict::Win(s) if s == p => "a winning move",
            Verdict::Win(_) => "every move loses",
            Verdict::Draw => "keeps the draw",
        };
        Ok((chosen, why))
    }

    /// `hint`: the move gamelang would play in the user's place.
    pub(super) fn hint(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let Some(play) = self.play.as_ref() else {
            return Err(Diag::error("no game is being played").note("`play` starts one"));
        };
        if play.over {
            return Err(Diag::error("the game is over").note(
                "`undo` takes back your last move, `play` starts a new game, `stop` leaves it",
            ));
        }
        let (game, (p, c)) = (play.game.clone(), *play.line.last().expect("a start"));
        let d = GameDriver::new(&mut self.engine, &game).map_err(|e| self.runtime_diag(&e))?;
        let moves = d
            .moves(&mut self.engine, p, c)
            .map_err(|e| self.runtime_diag(&e))?;
        let (i, why) = match self.agent_choice(&game, p, c, &moves, true)? {
            Some(i) => (i, String::new()),
            None => {
                let (m, why) = self.best_move(&d, p, c, &moves)?;
                let i = moves.iter().position(|&x| x == m).unwrap_or(0);
                (i, format!("   ({why})"))
            }
        };
        r.out(format!(
            "hint: {}  {}{why}\n",
            i + 1,
            self.engine.show(moves[i])
        ));
        Ok(())
    }
}
