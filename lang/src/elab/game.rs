//! The `game … endgame` block resolved to a [`Game`]: its instance, start, parameters,
//! symmetry, and the standard-library solver (`SOLVE`, `VALUE`) instances it runs.

use super::{mixfix, parse_diag, Binding, ModuleId, ParamBinding, Session};
use crate::ast::{self, Ident, ModExpr, Token};
use crate::diag::Diag;
use crate::parser;
use crate::program::{Equation, OpId, Pat, SortId};
use crate::span::Span;

/// A `requires COND .` field of a game: a Boolean term over the game's parameters (and
/// anything else of its module) that must reduce to `true` for the game to be played:
/// `requires n rem 2 == 0 and 2 <= n .` Where a field's values are only meaningful in a
/// range (the side of an Othello board), this turns a nonsensical `--set` into a located
/// error instead of an answer about some other game.
#[derive(Clone, Debug)]
pub struct Requirement {
    pub cond: Pat,
    /// The condition as written (its tokens' span).
    pub span: Span,
}

/// A `game` declaration, resolved: everything `solve` and the REPL need.
#[derive(Clone, Debug)]
pub struct Game {
    pub name: String,
    pub span: Span,
    /// The instance of `WINS` (or of any module with the same interface) that is the game.
    pub module: ModuleId,
    pub player_sort: SortId,
    pub config_sort: SortId,
    pub start: Pat,
    pub first: Pat,
    /// `w : Player Config -> Bool`, true when R has a winning strategy.
    pub w: OpId,
    /// Templates over `Var(0)` = player, `Var(1)` = configuration.
    pub halted: Pat,
    /// The moves as the game defines them (what a player can do; the principal line and
    /// `play` show these).
    pub next_config: Pat,
    /// The moves a solver explores: `next_config`, or with a `symmetry` its successors'
    /// canonical forms.
    pub solver_next: Pat,
    /// `won(p, c)` (R has won the halted position) and, in a game with draws, `lost(p, c)`
    /// (B has won it); `score(p, c)` for a game with a score.
    pub won: Pat,
    pub lost: Option<Pat>,
    pub score: Option<Pat>,
    /// The set union operator of the successor sets (`_,_`).
    pub set_union: OpId,
    /// The constants `B` and `R`.
    pub players: [OpId; 2],
    /// Can halted positions be drawn (the game's theory is DRAW-GAME, with `lost`)? If
    /// not, B wins wherever R does not and `w` alone decides.
    pub draws: bool,
    /// The standard library's `SOLVE` instance for this game (through `WIN-LOSE` for a
    /// win/lose game), which shares the `WINS` instance (and so `w`'s memo table).
    pub solver: ModuleId,
    /// The standard library's `VALUE` instance, for a game with a score (`value` lives
    /// there).
    pub value_module: Option<ModuleId>,
    /// Operators of the solver: `wb` (B can force a win), `outcome` (R, B or draw),
    /// `r-within` / `b-within` (R / B can force a win within d plies).
    pub wb: OpId,
    pub outcome: OpId,
    /// The constant `draw` (an `Outcome`).
    pub draw: OpId,
    /// Named parameters (`param n .`): constants of the game whose defining equation
    /// `--set n=6` replaces.
    pub params: Vec<(String, OpId)>,
    /// What the parameters must satisfy (`requires n rem 2 == 0 .`), checked whenever
    /// they are set.
    pub requires: Vec<Requirement>,
    /// `value` of the standard library's VALUE instance, for games with a `score`.
    pub value: Option<OpId>,
    /// `display : Config -> String` of the game's module, which draws a configuration.
    pub display: Option<OpId>,
    /// `_++_` on strings (to read what `display` produced).
    pub concat: Option<OpId>,
    pub r_within: OpId,
    pub b_within: OpId,
    /// What agents may use (seed 004, section 4), optional operators of the game's module
    /// over (player to move, configuration); a missing one means the agents' generic
    /// default. `eval : Players Config -> Int`, a static evaluation counted for B (like a
    /// score: B maximises it);
    pub eval: Option<OpId>,
    /// `goal-distance : Players Config -> Int`, how far the player is from its goal (the
    /// `astar` agent moves to lessen its own);
    pub goal_distance: Option<OpId>,
    /// `randomizable : Players Config -> SetConfig`, the moves a random player may take
    /// without making the game go on forever (the `semi-random` agent).
    pub randomizable: Option<OpId>,
    /// `forced : Players Config -> SetConfig`, for the solvers: when not empty, moves of
    /// `next-config(p, c)` among which a best one lies, so that the solver searches only
    /// them (a move that wins at once; the move that stops the opponent's). Empty: no
    /// such knowledge, every move is searched.
    pub forced: Option<OpId>,
    /// `mirror : Players Config -> Config`, for the solvers: a configuration worth the same
    /// as `c` with `p` to move (its mirror image), so that the two share what the solver's
    /// table learns of either.
    pub mirror: Option<OpId>,
}

impl Game {
    /// The modules the game runs in (its instance, its solver's and its value's): where
    /// its equations come from ([`Session::program_for`]).
    pub fn modules(&self) -> Vec<ModuleId> {
        let mut m = vec![self.module, self.solver];
        m.extend(self.value_module);
        m
    }
}

impl Session {
    /// `--set name=value`: give a game parameter a new value, replacing the equation that
    /// defines its default. `text` is `name=value`, e.g. `n=6`.
    pub fn set_parameter(&mut self, game: &Game, text: &str) -> Result<(), Diag> {
        self.set_parameter_of("--set", &game.name, &game.params, game.module, text)
    }

    /// `--set name=value` for the game `game_name` with these parameters, whose terms are
    /// parsed in `module`; `origin` names the text in diagnostics (`--set`, or `--range`
    /// for a sweep over a parameter).
    pub fn set_parameter_of(
        &mut self,
        origin: &str,
        game_name: &str,
        game_params: &[(String, OpId)],
        game_module: ModuleId,
        text: &str,
    ) -> Result<(), Diag> {
        let file = self.sources.add(origin, text);
        let whole = Span::new(file, 0, text.len());
        let Some((name, value)) = text.split_once('=') else {
            return Err(Diag::at(whole, "expected `name=value`", "e.g. `n=6`"));
        };
        let name = name.trim();
        let Some(&(_, op)) = game_params.iter().find(|(n, _)| n == name) else {
            let names: Vec<&str> = game_params.iter().map(|(n, _)| n.as_str()).collect();
            let mut d = Diag::at(
                Span::new(file, 0, name.len()),
                format!("game `{game_name}` has no parameter `{name}`"),
                "unknown parameter",
            );
            d = d.note(if names.is_empty() {
                "it declares no parameters".to_string()
            } else {
                format!("its parameters: {}", names.join(", "))
            });
            return Err(d);
        };
        let offset = text.len() - value.len();
        // Lex the value alone (`n=6` is one word), then place its spans after the `=`.
        let shift = |mut span: Span| {
            span.start += offset as u32;
            span.end += offset as u32;
            span
        };
        let toks = parser::lex_run(file, value).map_err(|e| {
            let mut d = parse_diag(&e);
            for l in &mut d.labels {
                l.span = shift(l.span);
            }
            d
        })?;
        let toks: Vec<Token> = toks
            .into_iter()
            .map(|t| Token {
                span: shift(t.span),
                ..t
            })
            .collect();
        if toks.is_empty() {
            return Err(Diag::at(
                whole,
                format!("no value for `{name}`"),
                "expected a value after `=`",
            ));
        }
        let grammar = self.grammar(game_module);
        let result = self.program.sig.op(op).result;
        let mut nv = mixfix::NoVars;
        let (pat, sort) =
            mixfix::parse_term(&self.program.sig, &grammar, &toks, &mut nv, Some(result))?;
        // The parser accepts any term of the parameter's kind (`-1` for a `Nat`); the
        // value must be of the declared sort.
        if !self.program.sig.leq(sort, result) {
            let sig = &self.program.sig;
            let span = toks[0].span.to(toks[toks.len() - 1].span);
            return Err(Diag::at(
                span,
                format!(
                    "`{}` is of sort {}, but parameter `{name}` is a {}",
                    value.trim(),
                    sig.sort(sort).name,
                    sig.sort(result).name
                ),
                format!("not a {}", sig.sort(result).name),
            )
            .note(if toks.len() > 1 {
                // (`n=2 + 1`: the sort of `_+_`'s result, Int, is not Nat's, whatever its
                // value; the value is not reduced before it is checked.)
                format!(
                    "a parameter's value is checked as written, before any reduction: give `{name}` the value itself, of sort {}",
                    sig.sort(result).name
                )
            } else {
                format!("give `{name}` a value of sort {}", sig.sort(result).name)
            }));
        }
        let lhs = Pat::App(op, Vec::new());
        let module = self.program.sig.op(op).module.clone();
        self.program.equations.retain(|e| e.lhs != lhs);
        self.program.equations.push(Equation {
            lhs,
            rhs: pat,
            cond: None,
            owise: false,
            vars: Vec::new(),
            span: whole,
            module,
        });
        self.program.index();
        Ok(())
    }

    // ----- games --------------------------------------------------------------------------------

    pub(super) fn game(&mut self, g: &ast::GameDecl) -> Result<Game, Diag> {
        let field = |key: &str| g.fields.iter().find(|f| f.key.name == key);
        for f in &g.fields {
            if !matches!(
                f.key.name.as_str(),
                "instance" | "start" | "first" | "param" | "symmetry" | "requires"
            ) {
                return Err(Diag::at(
                    f.key.span,
                    format!("unknown game field `{}`", f.key.name),
                    "not a field of `game`",
                )
                .note("game fields: instance, start, first, param, requires, symmetry"));
            }
        }
        once(&g.fields, &["instance", "start", "first", "symmetry"])?;
        let Some(inst) = field("instance") else {
            return Err(Diag::at(
                g.name.span,
                "a game needs an `instance` field",
                "in this game",
            )
            .note("e.g. `instance WINS{HeapsGame} .`"));
        };
        let expr = mod_expr_from_tokens(&inst.value)?;
        let module = self.module_expr(&expr, None)?;
        let sig = &self.program.sig;
        let binding = self.modules[module]
            .params
            .iter()
            .find(|p| {
                p.binding.op_by_name(sig, "next-config").is_some()
                    && p.binding.op_by_name(sig, "halted").is_some()
            })
            .map(|p| p.binding.clone())
            .ok_or_else(|| {
                Diag::at(
                    inst.span,
                    format!(
                        "`{}` is not a game: it has no parameter with `halted` and `next-config`",
                        self.modules[module].name
                    ),
                    "instantiate WINS{…} with a view of your game",
                )
            })?;
        // The moves as the game defines them (the driver shows these); with a symmetry the
        // solver's own moves go through the canonical form instead.
        let raw_next = binding
            .op_by_name(sig, "next-config")
            .cloned()
            .expect("checked");
        let (module, binding) = match field("symmetry") {
            Some(f) => self.symmetric(&expr, binding, f)?,
            None => (module, binding),
        };
        let sig = &self.program.sig;
        let draws = binding.op_by_name(sig, "lost").is_some();
        let w = self.modules[module]
            .ops
            .iter()
            .copied()
            .find(|&o| sig.op(o).name == "w" && sig.op(o).args.len() == 2)
            .ok_or_else(|| {
                Diag::at(
                    inst.span,
                    format!(
                        "`{}` has no operator `w : Player Config -> Bool`",
                        self.modules[module].name
                    ),
                    "the solver needs `w`",
                )
            })?;
        let halted = binding.op_by_name(sig, "halted").cloned().expect("checked");
        let solver_next = binding
            .op_by_name(sig, "next-config")
            .cloned()
            .expect("checked");
        let won = binding.op_by_name(sig, "won").cloned().ok_or_else(|| {
            Diag::at(
                inst.span,
                "the game has no `won`",
                "map `won` in the view of GAME-TREE",
            )
        })?;
        let lost = binding.op_by_name(sig, "lost").cloned();
        let next_config = raw_next;
        let set_union = match binding.op_by_name(sig, "_,_") {
            Some(Pat::App(op, _)) => *op,
            _ => {
                return Err(Diag::at(
                    inst.span,
                    "the game's successor sets have no `_,_` union",
                    "map `_,_` in the view",
                ))
            }
        };
        let w_info = sig.op(w).clone();
        let (player_sort, config_sort) = (w_info.args[0], w_info.args[1]);
        let start_pat = self.game_start(g, module, config_sort, "(2 5)")?;
        let player = |name: &str| {
            let sig = &self.program.sig;
            self.modules[module].ops.iter().copied().find(|&o| {
                sig.op(o).name == name
                    && sig.op(o).args.is_empty()
                    && sig.op(o).result == player_sort
            })
        };
        let (Some(b_op), Some(r_op)) = (player("B"), player("R")) else {
            return Err(Diag::at(
                inst.span,
                "the game's players must be `B` and `R` (module PLAYERS)",
                "in this instance",
            ));
        };
        let display = {
            let sig = &self.program.sig;
            self.modules[module].ops.iter().copied().find(|&o| {
                let i = sig.op(o);
                i.name == "display"
                    && i.args.len() == 1
                    && sig.same_kind(i.args[0], config_sort)
                    && Some(i.result) == self.string_sort()
            })
        };
        // The optional operators of agents: (player, configuration) -> anything; the agents
        // check the values (an integer, a set of configurations) when they use them.
        let agent_op = |name: &str| {
            let sig = &self.program.sig;
            self.modules[module].ops.iter().copied().find(|&o| {
                let i = sig.op(o);
                i.name == name
                    && i.args.len() == 2
                    && sig.same_kind(i.args[0], player_sort)
                    && sig.same_kind(i.args[1], config_sort)
            })
        };
        let (eval, goal_distance, randomizable, forced, mirror) = (
            agent_op("eval"),
            agent_op("goal-distance"),
            agent_op("randomizable"),
            agent_op("forced"),
            agent_op("mirror"),
        );
        // Their results, by kind: a value of another one was an error only when an agent
        // or a solver first asked, located at the game block.
        {
            let sig = &self.program.sig;
            let int = sig.int_sort;
            let wanted = [
                (eval, int, "Int"),
                (goal_distance, int, "Int"),
                (randomizable, Some(config_sort), "a set of configurations"),
                (forced, Some(config_sort), "a set of configurations"),
                (mirror, Some(config_sort), "a configuration"),
            ];
            for (op, kind, what) in wanted {
                let (Some(op), Some(kind)) = (op, kind) else {
                    continue;
                };
                let i = sig.op(op);
                if !sig.same_kind(i.result, kind) {
                    let d = Diag::error(format!(
                        "`{}` gives {}, but the agents and solvers read it as {what}",
                        i.name,
                        sig.sort(i.result).name
                    ))
                    .note(format!(
                        "declare `op {} : Players Config -> {}` (with the game's sorts), or name this operator otherwise",
                        i.name,
                        if what == "Int" { "Int" } else if what == "a configuration" { "Config" } else { "SetConfig" }
                    ));
                    return Err(match i.span {
                        Some(s) => d.primary(s, "declared here"),
                        None => d.primary(inst.span, "in this game"),
                    });
                }
            }
        }
        if !draws {
            if let Some(own) = agent_op("lost") {
                // WIN-LOSE{…} declares `lost` on the same sorts, and the solver would see
                // both (as an ambiguous term deep in the standard library): say so here.
                let info = self.program.sig.op(own);
                let at = info.span.unwrap_or(inst.span);
                return Err(Diag::at(
                    at,
                    format!(
                        "`{}` declares its own `lost`, which a win/lose game may not",
                        info.module
                    ),
                    "declared here",
                )
                .note(format!(
                    "a game given by `{}{{…}}` has no draws: the standard library supplies \
                     its `lost` itself (R has lost wherever R has not won)",
                    expr.name.name
                ))
                .note(
                    "for a game with draws, map `lost` in a view from DRAW-GAME and write \
                     `instance SOLVE{…}`; otherwise rename this operator",
                ));
            }
        }
        let solver = self.solver_for(&binding, draws, inst.span)?;
        let (value, score, value_module) = match self.value_for(&binding, inst.span)? {
            Some((v, s, m)) => (Some(v), Some(s), Some(m)),
            None => (None, None, None),
        };
        let params = self.game_params(g, module)?;
        let requires = self.game_requires(g, module)?;
        let op_named = |name: &str| {
            let sig = &self.program.sig;
            self.modules[solver]
                .ops
                .iter()
                .copied()
                .find(|&o| sig.op(o).name == name)
                .ok_or_else(|| {
                    Diag::at(
                        inst.span,
                        format!("the standard library's SOLVE has no `{name}`"),
                        "in this game's solver",
                    )
                })
        };
        let grammar = self.grammar(module);
        let mut nv = mixfix::NoVars;
        let first_pat = match field("first") {
            Some(f) => {
                mixfix::parse_term(
                    &self.program.sig,
                    &grammar,
                    &f.value,
                    &mut nv,
                    Some(player_sort),
                )?
                .0
            }
            None => Pat::App(r_op, Vec::new()),
        };
        Ok(Game {
            name: g.name.name.clone(),
            span: g.span,
            module,
            player_sort,
            config_sort,
            start: start_pat,
            first: first_pat,
            w,
            halted,
            next_config,
            solver_next,
            won,
            lost,
            score,
            set_union,
            players: [b_op, r_op],
            draws,
            solver,
            value_module,
            wb: op_named("wb")?,
            outcome: op_named("outcome")?,
            draw: op_named("draw")?,
            params,
            requires,
            value,
            display,
            concat: self.string_concat(),
            r_within: op_named("r-within")?,
            b_within: op_named("b-within")?,
            eval,
            goal_distance,
            randomizable,
            forced,
            mirror,
        })
    }

    /// The `start` field of a game, parsed in `module` as a term of `sort` (`example` shows
    /// one in the error when the field is missing).
    pub(super) fn game_start(
        &mut self,
        g: &ast::GameDecl,
        module: ModuleId,
        sort: SortId,
        example: &str,
    ) -> Result<Pat, Diag> {
        let Some(start) = g.fields.iter().find(|f| f.key.name == "start") else {
            return Err(
                Diag::at(g.name.span, "a game needs a `start` field", "in this game")
                    .note(format!("e.g. `start {example} .`")),
            );
        };
        let grammar = self.grammar(module);
        let mut nv = mixfix::NoVars;
        let (pat, _) = mixfix::parse_term(
            &self.program.sig,
            &grammar,
            &start.value,
            &mut nv,
            Some(sort),
        )?;
        Ok(pat)
    }

    /// The `requires` fields of a game: Boolean terms of its module, without variables.
    pub(super) fn game_requires(
        &mut self,
        g: &ast::GameDecl,
        module: ModuleId,
    ) -> Result<Vec<Requirement>, Diag> {
        let mut out = Vec::new();
        for f in g.fields.iter().filter(|f| f.key.name == "requires") {
            let (Some(first), Some(last)) = (f.value.first(), f.value.last()) else {
                return Err(Diag::at(
                    f.key.span,
                    "`requires` needs a condition",
                    "e.g. `requires n rem 2 == 0 .`",
                ));
            };
            let span = first.span.to(last.span);
            let grammar = self.grammar(module);
            let mut nv = mixfix::NoVars;
            let bool_sort = self.program.sig.bool_sort;
            // (The parser refuses a term of another sort, located.)
            let (cond, _) =
                mixfix::parse_term(&self.program.sig, &grammar, &f.value, &mut nv, bool_sort)?;
            out.push(Requirement { cond, span });
        }
        Ok(out)
    }

    /// The `param` fields of a game: constants of its module with a default equation.
    pub(super) fn game_params(
        &mut self,
        g: &ast::GameDecl,
        module: ModuleId,
    ) -> Result<Vec<(String, OpId)>, Diag> {
        let mut params = Vec::new();
        for f in g.fields.iter().filter(|f| f.key.name == "param") {
            for t in &f.value {
                let sig = &self.program.sig;
                let op = self.modules[module]
                    .ops
                    .iter()
                    .copied()
                    .find(|&o| sig.op(o).name == t.text && sig.op(o).args.is_empty());
                let Some(op) = op else {
                    return Err(Diag::at(t.span, format!("`{}` is not a constant of the game", t.text), "a parameter names a constant")
                        .note(format!("declare it in the game's module with a default, e.g. `op {} : -> Nat .` and `eq {} = 4 .`", t.text, t.text)));
                };
                let defined = self
                    .program
                    .equations
                    .iter()
                    .any(|e| e.lhs == Pat::App(op, Vec::new()));
                if !defined {
                    return Err(Diag::at(
                        t.span,
                        format!("parameter `{}` has no default", t.text),
                        "no equation defines it",
                    )
                    .note(format!("add `eq {} = … .` to the game's module", t.text)));
                }
                params.push((t.text.clone(), op));
            }
        }
        Ok(params)
    }

    /// `SOLVE{…}` for a game given by the binding of its `GAME-TREE` (or `DRAW-GAME`)
    /// parameter. A win/lose game goes through `WIN-LOSE{…}`, which supplies `lost`.
    fn solver_for(&mut self, binding: &Binding, draws: bool, at: Span) -> Result<ModuleId, Diag> {
        let template = |s: &Session, name: &str| {
            s.templates.get(name).cloned().ok_or_else(|| {
                Diag::at(
                    at,
                    format!("the standard library has no `{name}`"),
                    "needed to solve this game",
                )
            })
        };
        let solve = template(self, "SOLVE")?;
        let draw_game = self.theory(&Ident {
            name: "DRAW-GAME".into(),
            span: at,
        })?;
        let game_binding = if draws {
            binding.clone()
        } else {
            let win_lose = template(self, "WIN-LOSE")?;
            let param = ParamBinding {
                param: win_lose.params[0].name.name.clone(),
                theory: "GAME-TREE".into(),
                binding: binding.clone(),
            };
            let wl = self.instantiate(&win_lose, vec![param], at)?;
            let display = binding.display.clone();
            self.by_name(draw_game, wl, display, Some(wl), &[], at)?
        };
        let param = ParamBinding {
            param: solve.params[0].name.name.clone(),
            theory: "DRAW-GAME".into(),
            binding: game_binding,
        };
        self.instantiate(&solve, vec![param], at)
    }

    /// The game instance `expr` (e.g. `WINS{TicTacToe}`) re-instantiated so that its moves
    /// are canonical forms: `next-config` becomes `canon-all(next-config(p, c))`, with
    /// `canon` the operator the `symmetry` field names.
    fn symmetric(
        &mut self,
        expr: &ModExpr,
        binding: Binding,
        f: &ast::GameField,
    ) -> Result<(ModuleId, Binding), Diag> {
        let Some(target) = binding.target else {
            return Err(Diag::at(
                f.span,
                "`symmetry` needs the game to be given by a view or a module",
                "here",
            ));
        };
        let [name] = f.value.as_slice() else {
            return Err(Diag::at(
                f.span,
                "`symmetry` takes the name of one operator",
                "e.g. `symmetry canon .`",
            ));
        };
        let config = binding
            .sort_map
            .iter()
            .find(|(t, _)| self.program.sig.sort(**t).name == "Config")
            .map(|(_, s)| *s);
        let sig = &self.program.sig;
        let canon = self.modules[target].ops.iter().copied().find(|&o| {
            let i = sig.op(o);
            i.name == name.text
                && i.args.len() == 1
                && Some(i.args[0]) == config
                && Some(i.result) == config
        });
        let Some(canon) = canon else {
            return Err(Diag::at(name.span, format!("`{}` is not an operator from configurations to configurations", name.text), "no such operator in the game")
                .note("declare e.g. `op canon : Board -> Board .` with equations choosing one board of each class"));
        };
        let theory = self.theory(&Ident {
            name: "SYMMETRY".into(),
            span: f.span,
        })?;
        let canon_theory = self.modules[theory]
            .param_ops
            .iter()
            .copied()
            .find(|&o| self.program.sig.op(o).name == "canon")
            .expect("SYMMETRY declares canon");
        let mut b = binding.clone();
        b.op_map
            .insert(canon_theory, Pat::App(canon, vec![Pat::Var(0)]));
        let template = |s: &Session, n: &str| {
            s.templates.get(n).cloned().ok_or_else(|| {
                Diag::at(
                    f.span,
                    format!("the standard library has no `{n}`"),
                    "needed for symmetry",
                )
            })
        };
        let canon_module = template(self, "CANON")?;
        let param = ParamBinding {
            param: canon_module.params[0].name.name.clone(),
            theory: "SYMMETRY".into(),
            binding: b,
        };
        let instance = self.instantiate(&canon_module, vec![param], f.span)?;
        let sig = &self.program.sig;
        let canon_all = self.modules[instance]
            .ops
            .iter()
            .copied()
            .find(|&o| sig.op(o).name == "canon-all")
            .expect("CANON declares canon-all");
        let mut moved = binding.clone();
        let next = moved
            .op_map
            .iter()
            .find(|(o, _)| sig.op(**o).name == "next-config")
            .map(|(o, p)| (*o, p.clone()))
            .expect("a game has next-config");
        moved
            .op_map
            .insert(next.0, Pat::App(canon_all, vec![next.1]));
        moved.display = format!("{}/{}", binding.display, name.text);
        let game_template = template(self, &expr.name.name)?;
        let param = ParamBinding {
            param: game_template.params[0].name.name.clone(),
            theory: String::new(),
            binding: moved.clone(),
        };
        let module = self.instantiate(&game_template, vec![param], f.span)?;
        Ok((module, moved))
    }

    /// `VALUE{…}` for a game whose module defines `score` (None otherwise).
    /// The game's `value` (of the standard library's VALUE) and its `score` as a template
    /// over the player and the configuration, for a game whose module declares a score.
    fn value_for(
        &mut self,
        binding: &Binding,
        at: Span,
    ) -> Result<Option<(OpId, Pat, ModuleId)>, Diag> {
        let target = match binding.target {
            Some(t) => t,
            None => return Ok(None),
        };
        let sig = &self.program.sig;
        // A `score` of the game's sorts (`Players Config -> Int`): an operator of another
        // shape called so is the game's own business (a helper `score : Players Pos ->
        // Bool` made even a plain `solve` fail, on a theory the user never wrote).
        let config = binding
            .sort_map
            .iter()
            .find(|(t, _)| sig.sort(**t).name == "Config")
            .map(|(_, s)| *s);
        let has_score = self.modules[target].ops.iter().any(|&o| {
            let i = sig.op(o);
            i.name == "score"
                && i.args.len() == 2
                && config.is_some_and(|c| sig.same_kind(i.args[1], c))
                && sig.int_sort.is_some_and(|n| sig.same_kind(i.result, n))
        });
        if !has_score {
            return Ok(None);
        }
        let Some(value) = self.templates.get("VALUE").cloned() else {
            return Ok(None);
        };
        let theory = self.theory(&Ident {
            name: "SCORED-GAME".into(),
            span: at,
        })?;
        // The scored theory maps by name in the game's module, with the sorts of the view.
        let fixed: Vec<(SortId, SortId)> = binding.sort_map.iter().map(|(a, b)| (*a, *b)).collect();
        let mut b = self.by_name(
            theory,
            target,
            binding.display.clone(),
            Some(target),
            &fixed,
            at,
        )?;
        // Operators the view maps explicitly (next-config to a term) keep their mapping.
        for (op, pat) in &binding.op_map {
            b.op_map.insert(*op, pat.clone());
        }
        let score = b.op_by_name(&self.program.sig, "score").cloned();
        let param = ParamBinding {
            param: value.params[0].name.name.clone(),
            theory: "SCORED-GAME".into(),
            binding: b,
        };
        let m = self.instantiate(&value, vec![param], at)?;
        let sig = &self.program.sig;
        let value = self.modules[m]
            .ops
            .iter()
            .copied()
            .find(|&o| sig.op(o).name == "value" && sig.op(o).args.len() == 2);
        Ok(value.zip(score).map(|(v, s)| (v, s, m)))
    }
}

/// The fields of `names` may be given once in a game block: a second one (`first B .`
/// after `first R .`) was ignored without a word.
pub(super) fn once(fields: &[ast::GameField], names: &[&str]) -> Result<(), Diag> {
    for (k, f) in fields.iter().enumerate() {
        if !names.contains(&f.key.name.as_str()) {
            continue;
        }
        if let Some(first) = fields[..k].iter().find(|e| e.key.name == f.key.name) {
            return Err(Diag::at(
                f.span,
                format!("`{}` is given twice in this game", f.key.name),
                "given again here",
            )
            .secondary(first.span, "first given here")
            .note("a game has one instance, one start and one first player; keep one of them"));
        }
    }
    Ok(())
}

/// `WINS{HeapsGame}` written as tokens (in a game's `instance` field).
pub(super) fn mod_expr_from_tokens(toks: &[Token]) -> Result<ModExpr, Diag> {
    fn go(toks: &[Token], i: &mut usize) -> Result<ModExpr, Diag> {
        let t = toks
            .get(*i)
            .ok_or_else(|| Diag::at(toks[toks.len() - 1].span, "expected a module name", "here"))?;
        let name = Ident {
            name: t.text.clone(),
            span: t.span,
        };
        *i += 1;
        let mut args = Vec::new();
        if toks.get(*i).is_some_and(|t| t.text == "{") {
            *i += 1;
            loop {
                args.push(go(toks, i)?);
                match toks.get(*i).map(|t| t.text.as_str()) {
                    Some(",") => *i += 1,
                    Some("}") => {
                        *i += 1;
                        break;
                    }
                    _ => {
                        return Err(Diag::at(
                            toks[(*i).min(toks.len() - 1)].span,
                            "expected `,` or `}`",
                            "in this module expression",
                        ))
                    }
                }
            }
        }
        let span = name.span.to(toks[*i - 1].span);
        Ok(ModExpr { name, args, span })
    }
    let mut i = 0;
    let e = go(toks, &mut i)?;
    if i != toks.len() {
        return Err(Diag::at(
            toks[i].span,
            "unexpected token after the module expression",
            "here",
        ));
    }
    Ok(e)
}
