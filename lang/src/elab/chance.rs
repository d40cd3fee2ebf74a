//! Chance games (seed 002): a `game` block whose instance is `CHANCE{V}`, with `V` a view
//! from the standard library's `CHANCE-GAME` theory (or a module whose names match it).
//! What the solver needs is resolved here into a [`ChanceGame`]: the game's operators as
//! templates over their arguments, its start, parameters and where things are declared
//! (so that run-time checks, such as probabilities that do not sum to 1, are located).

use super::game::mod_expr_from_tokens;
use super::Session;
use crate::ast;
use crate::diag::Diag;
use crate::program::{OpId, Pat, SortId};
use crate::span::Span;

/// A chance game, resolved. Templates use `Var(i)` for argument `i` of the theory operator.
#[derive(Clone, Debug)]
pub struct ChanceGame {
    pub name: String,
    pub span: Span,
    /// The `CHANCE{…}` instance (terms typed for the game are parsed in it).
    pub module: super::ModuleId,
    pub state_sort: SortId,
    pub player_sort: SortId,
    pub event_sort: SortId,
    pub choice_sort: SortId,
    pub start: Pat,
    /// `participants` (no arguments): the declared players.
    pub players: Pat,
    /// `final(s)`, `winner(s)`, `turn(s)`, `choices(s)`: Var(0) = state.
    pub final_: Pat,
    pub winner: Pat,
    pub turn: Pat,
    pub choices: Pat,
    /// `events(c, s)`: Var(0) = choice, Var(1) = state.
    pub events: Pat,
    /// `move(e, c, s)`.
    pub moves: Pat,
    /// `score(p, s)` of the game's module, if it defines one: points player `p` collects at
    /// each visit of `s` (final states included).
    pub score: Option<Pat>,
    /// `display : State -> String`, if the game's module defines it.
    pub display: Option<OpId>,
    pub params: Vec<(String, OpId)>,
    /// What the parameters must satisfy (see [`super::game::Requirement`]).
    pub requires: Vec<super::game::Requirement>,
    /// Where the game's operators are declared (for located run-time errors), by theory
    /// name: `events`, `winner`, `choices`, `players`, `move`, ….
    pub decl_spans: Vec<(String, Span)>,
}

impl ChanceGame {
    /// Where the operator the theory calls `name` is declared, if known.
    pub fn decl_span(&self, name: &str) -> Option<Span> {
        self.decl_spans
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }
}

/// Is this `game` block a chance game (`instance CHANCE{…}`)?
pub(super) fn is_chance(g: &ast::GameDecl) -> bool {
    g.fields
        .iter()
        .any(|f| f.key.name == "instance" && f.value.first().is_some_and(|t| t.text == "CHANCE"))
}

impl Session {
    pub(super) fn chance_game(&mut self, g: &ast::GameDecl) -> Result<ChanceGame, Diag> {
        let field = |key: &str| g.fields.iter().find(|f| f.key.name == key);
        for f in &g.fields {
            if !matches!(
                f.key.name.as_str(),
                "instance" | "start" | "param" | "requires"
            ) {
                return Err(Diag::at(
                    f.key.span,
                    format!("unknown field `{}` of a chance game", f.key.name),
                    "not a field of a chance game",
                )
                .note("chance game fields: instance, start, param, requires (whose turn it is is part of the state)"));
            }
        }
        super::game::once(&g.fields, &["instance", "start"])?;
        let inst = field("instance").expect("is_chance checked");
        let expr = mod_expr_from_tokens(&inst.value)?;
        let module = self.module_expr(&expr, None)?;
        let sig = &self.program.sig;
        let binding = self.modules[module]
            .params
            .iter()
            .find(|p| p.theory == "CHANCE-GAME")
            .map(|p| p.binding.clone())
            .ok_or_else(|| {
                Diag::at(
                    inst.span,
                    "a chance game is `CHANCE{V}` with V a view from CHANCE-GAME",
                    "here",
                )
            })?;
        let op = |name: &str| -> Result<Pat, Diag> {
            binding.op_by_name(sig, name).cloned().ok_or_else(|| {
                Diag::at(
                    inst.span,
                    format!("the game maps no `{name}`"),
                    "in this instance",
                )
            })
        };
        let players = op("participants")?;
        let final_ = op("final")?;
        let winner = op("winner")?;
        let turn = op("turn")?;
        let choices = op("choices")?;
        let events = op("events")?;
        let moves = op("move")?;
        let sort = |name: &str| -> Result<SortId, Diag> {
            binding
                .sort_map
                .iter()
                .find(|(t, _)| sig.sort(**t).name == name)
                .map(|(_, s)| *s)
                .ok_or_else(|| {
                    Diag::at(
                        inst.span,
                        format!("the game maps no sort `{name}`"),
                        "in this instance",
                    )
                })
        };
        let state_sort = sort("State")?;
        let player_sort = sort("Player")?;
        let event_sort = sort("Event")?;
        let choice_sort = sort("Choice")?;
        let mut decl_spans = Vec::new();
        for (name, pat) in [
            ("participants", &players),
            ("final", &final_),
            ("winner", &winner),
            ("turn", &turn),
            ("choices", &choices),
            ("events", &events),
            ("move", &moves),
        ] {
            if let Pat::App(o, _) = pat {
                if let Some(s) = sig.op(*o).span {
                    decl_spans.push((name.to_string(), s));
                }
            }
        }
        let target = binding.target;
        let find = |pred: &dyn Fn(&crate::program::OpInfo) -> bool| {
            target.and_then(|t| {
                self.modules[t]
                    .ops
                    .iter()
                    .copied()
                    .find(|&o| pred(sig.op(o)))
            })
        };
        let score = find(&|i| {
            i.name == "score"
                && i.args.len() == 2
                && sig.same_kind(i.args[0], player_sort)
                && sig.same_kind(i.args[1], state_sort)
        })
        .map(|o| Pat::App(o, vec![Pat::Var(0), Pat::Var(1)]));
        let string = self.string_sort();
        let display = find(&|i| {
            i.name == "display"
                && i.args.len() == 1
                && sig.same_kind(i.args[0], state_sort)
                && Some(i.result) == string
        });
        let start = self.game_start(g, module, state_sort, "st(0, 0, a)")?;
        let params = self.game_params(g, module)?;
        let requires = self.game_requires(g, module)?;
        Ok(ChanceGame {
            name: g.name.name.clone(),
            span: g.span,
            module,
            state_sort,
            player_sort,
            event_sort,
            choice_sort,
            start,
            players,
            final_,
            winner,
            turn,
            choices,
            events,
            moves,
            score,
            display,
            params,
            requires,
            decl_spans,
        })
    }

    /// `--set name=value` for a chance game.
    pub fn set_chance_parameter(&mut self, game: &ChanceGame, text: &str) -> Result<(), Diag> {
        self.set_parameter_of("--set", &game.name, &game.params, game.module, text)
    }
}
