//! `solve` and `value` on a chance game (`instance CHANCE{…}`, any number of players):
//! each player's probability of winning under optimal play, or expected score, exactly
//! where possible — the report of `gamelang solve FILE --game NAME [--value]`, with the
//! command's defaults, over the REPL's engine.

use super::{Args, Backend, Reply};
use crate::chance::{solve_chance, ChanceOptions, ChanceUnsolved};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::span::{FileId, Span};

impl Backend {
    /// Solve `game` from the state typed (its `start` if none); `value`: expected scores.
    pub(super) fn solve_chance(
        &mut self,
        game: ChanceGame,
        file: FileId,
        args: &Args,
        value: bool,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        for option in ["--first", "--max-depth"] {
            if let Some(range) = args.get(option) {
                return Err(Diag::at(
                    Span::new(file, range.start, range.end),
                    format!("`{option}` is for two-player games without chance"),
                    "not for a chance game",
                )
                .note(format!(
                    "`{}` is a chance game: whose turn it is is part of its state",
                    game.name
                )));
            }
        }
        let start = if args.term.is_empty() {
            None
        } else {
            Some(self.session.parse_term_in(
                game.module,
                file,
                args.term.clone(),
                Some(game.state_sort),
            )?)
        };
        self.sync_program(&[game.module]);
        match solve_chance(&mut self.engine, &game, start, &ChanceOptions::new(value)) {
            Ok(solved) => {
                r.out(solved.text);
                if !solved.converged {
                    return Err(Diag::error(
                        "value iteration did not converge: the values above are not within its tolerance",
                    )
                    .note(format!(
                        "`gamelang solve FILE --game {} --tolerance T` with a larger T accepts these values; `--exact` solves exactly where the players' best choices settle (with three or more players they may not)",
                        game.name
                    )));
                }
                Ok(())
            }
            Err(ChanceUnsolved::Interrupted(how)) => {
                Err(Diag::error(how).note("stopped by Ctrl-C; the session is intact"))
            }
            Err(ChanceUnsolved::Failed(mut d)) => {
                // The command-line flags' wording, in the REPL's terms.
                d.message = d.message.replace("--value needs", "`value` needs");
                for n in &mut d.notes {
                    *n = n.replace("`--max-steps N`", "`set max-steps N`");
                }
                if d.span().is_none() {
                    d = d.primary(game.span, "while solving this game");
                }
                Err(d)
            }
        }
    }
}
