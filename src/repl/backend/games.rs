//! The commands about a game: picking it (`--game`), its positions, `moves`, `solve` and
//! `value`.

use super::commands::Args;
use super::{play, Backend, Reply, SHOW_PLIES};
use crate::report::{Renderer, Report};
use gamelang_game::{self as driver, GameDriver, Side, SolveError};
use gamelang_lang::diag::{suggest, Diag};
use gamelang_lang::elab::Game;
use gamelang_lang::program::Pat;
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::error::RuntimeError;
use gamelang_runtime::TermId;

impl Backend {
    pub(super) fn game_named(&self, name: Option<String>) -> Option<&Game> {
        let name = name.or_else(|| self.game.clone())?;
        self.session.games.iter().rev().find(|g| g.name == name)
    }

    /// A run-time error as a diagnostic, with what to do about it in the REPL.
    pub(super) fn runtime_diag(&self, e: &SolveError) -> Diag {
        self.at_the_prompt(driver::diagnose(&self.engine, e), e)
    }

    /// The diagnostic `d` of the error `e`, with what to do about it in the REPL.
    pub(super) fn at_the_prompt(&self, mut d: Diag, e: &SolveError) -> Diag {
        if let SolveError::Runtime(f) = e {
            match f.error {
                RuntimeError::Interrupted { .. } => {
                    d = d.note("stopped by Ctrl-C; the session is intact (what was computed before is kept)");
                }
                RuntimeError::StepBudget { .. } => {
                    // The command-line flag's advice, in the REPL's terms.
                    for n in &mut d.notes {
                        *n = n.replace("`--max-steps N`", "`set max-steps N`");
                    }
                }
                RuntimeError::DepthLimit { .. } => {
                    d = d.note("at this prompt: `set max-nesting N` raises the limit");
                }
                _ => {}
            }
        }
        d
    }

    /// The game a command is about: `--game NAME` or the current one.
    pub(super) fn pick_game(
        &mut self,
        file: FileId,
        args: &Args,
        text_of: &str,
    ) -> Result<Game, Diag> {
        let wanted = args.get("--game");
        if let Some(range) = wanted.clone() {
            let name = &text_of[range.clone()];
            if let Some(g) = self.session.games.iter().rev().find(|g| g.name == name) {
                return Ok(g.clone());
            }
            let (file_span, unknown) = (Span::new(file, range.start, range.end), "unknown game");
            if self.session.chance_games.iter().any(|g| g.name == name) {
                // (`solve`, `value` and `play` look for a chance game first.)
                return Err(Diag::at(
                    file_span,
                    format!("`{name}` is a chance game, and this command works on two-player games (`instance WINS{{…}}`)"),
                    "a chance game",
                )
                .note("at this prompt, `solve` and `value` solve it and `play` plays it"));
            }
            let names: Vec<String> = (self.session.games.iter().map(|g| g.name.clone()))
                .chain(self.session.chance_games.iter().map(|g| g.name.clone()))
                .collect();
            let mut d = Diag::at(file_span, format!("no game `{name}` is loaded"), unknown);
            let hints = suggest(name, names.iter().map(String::as_str));
            if !hints.is_empty() {
                d = d.note(format!("did you mean `{}`?", hints.join("` or `")));
            }
            return Err(d.note(if names.is_empty() {
                "no games are loaded".to_string()
            } else {
                format!("loaded games: {}", names.join(", "))
            }));
        }
        match self.game_named(None) {
            Some(g) => Ok(g.clone()),
            None => match self
                .current_chance_game()
                .or(self.session.chance_games.last())
            {
                // (This command is the two-player games'.)
                Some(c) => Err(Diag::error(format!(
                    "`{}` is a chance game, and this command works on two-player games \
                     (`instance WINS{{…}}`)",
                    c.name
                ))
                .note(
                    "at this prompt, `solve` and `value` solve it and `play` plays it; on the \
                     command line, `gamelang simulate` samples it (docs/chance.md)",
                )),
                None => Err(Diag::error("no game is loaded").note(
                    "load a file that declares one (`load examples/heaps.game`), or type a \
                     `game NAME is instance WINS{View} . start TERM . endgame` block",
                )),
            },
        }
    }

    /// The configuration (reduced) and the player to move given by a command's arguments,
    /// with the game's `start` and `first` as defaults; also as patterns, for `solve`.
    pub(super) fn position(
        &mut self,
        game: &Game,
        file: FileId,
        args: &Args,
    ) -> Result<(Pat, Pat, TermId, Side), Diag> {
        let config = if args.term.is_empty() {
            game.start.clone()
        } else {
            self.session.parse_term_in(
                game.module,
                file,
                args.term.clone(),
                Some(game.config_sort),
            )?
        };
        let first = match args.get("--first") {
            Some(range) => {
                self.session
                    .parse_term_in(game.module, file, range, Some(game.player_sort))?
            }
            None => game.first.clone(),
        };
        self.sync_program(&game.modules());
        let d = GameDriver::new(&mut self.engine, game).map_err(|e| self.runtime_diag(&e))?;
        let c = self.engine.build(&config, &[]);
        let c = self.reduce_term(c)?;
        let p = self.engine.build(&first, &[]);
        let p = d
            .side(&mut self.engine, p)
            .map_err(|e| self.runtime_diag(&e))?;
        Ok((config, first, c, p))
    }

    pub(super) fn moves(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
        let game = self.pick_game(file, args, &text)?;
        let (_, _, c, p) = self.position(&game, file, args)?;
        let d = GameDriver::new(&mut self.engine, &game).map_err(|e| self.runtime_diag(&e))?;
        let halted = d
            .halted(&mut self.engine, p, c)
            .map_err(|e| self.runtime_diag(&e))?;
        let shown = self.engine.show(c);
        if halted {
            let v = d
                .verdict(&mut self.engine, p, c)
                .map_err(|e| self.runtime_diag(&e))?;
            r.out(format!(
                "no moves: play has halted at {shown} with {} to move ({})\n",
                p.name(),
                play::verdict_text(v)
            ));
            return Ok(());
        }
        let moves = d
            .moves(&mut self.engine, p, c)
            .map_err(|e| self.runtime_diag(&e))?;
        let n = moves.len();
        r.out(format!(
            "{} to move from {shown}: {n} move{}\n",
            p.name(),
            if n == 1 { "" } else { "s" }
        ));
        r.out(play::numbered(&self.engine, &moves));
        Ok(())
    }

    pub(super) fn solve(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
        if let Some(game) = self.chance_game_for(args, &text) {
            return self.solve_chance(game, file, args, false, r);
        }
        let game = self.pick_game(file, args, &text)?;
        let (config, first, _, _) = self.position(&game, file, args)?;
        if let Some(range) = args.get("--max-depth") {
            let text_d = &text[range.clone()];
            let plies: u64 = text_d.replace('_', "").parse().map_err(|_| {
                Diag::at(
                    Span::new(file, range.start, range.end),
                    format!("`{text_d}` is not a number of plies"),
                    "expected a number",
                )
            })?;
            let b = driver::solve_within(&mut self.engine, &game, &config, &first, plies)
                .map_err(|e| self.runtime_diag(&e))?;
            let shown = Renderer::new(&self.engine, &game, SHOW_PLIES);
            r.out(shown.text(&Report::Bounded(&b)));
            return Ok(());
        }
        let o = driver::solve(&mut self.engine, &game, &config, &first)
            .map_err(|e| self.runtime_diag(&e))?;
        let shown = Renderer::new(&self.engine, &game, SHOW_PLIES);
        r.out(shown.text(&Report::Outcome(&o)));
        // The principal line drawn with the game's `display`, as `gamelang solve` draws it.
        let drawn = crate::report::draw_line(&mut self.engine, &game, &o, SHOW_PLIES)
            .map_err(|e| self.runtime_diag(&e))?;
        r.out(drawn);
        Ok(())
    }

    pub(super) fn value(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
        if let Some(game) = self.chance_game_for(args, &text) {
            return self.solve_chance(game, file, args, true, r);
        }
        let game = self.pick_game(file, args, &text)?;
        let (config, first, _, _) = self.position(&game, file, args)?;
        let v = driver::solve_value(&mut self.engine, &game, &config, &first)
            .map_err(|e| self.runtime_diag(&e))?;
        r.out(format!(
            "value under best play from {} with {} to move: {} (B maximises, R minimises)\n",
            self.engine.show(v.start),
            v.to_move.name(),
            v.value
        ));
        Ok(())
    }
}
