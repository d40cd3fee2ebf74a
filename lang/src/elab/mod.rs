//! Elaboration: from the declaration tree to the global signature and equations.
//!
//! A [`Session`] holds every module, theory and view loaded so far (the standard library
//! first, then user files). Modules are elaborated on demand, once per instantiation:
//! `SET{TwoHeaps}` and `WINS{HeapsGame}` are elaborated by re-reading the parameterised
//! module's declarations in a scope where the parameter's sorts and operators stand for
//! what the view maps them to. A parameter operator mapped to a term (`op next-config(p, c)
//! to term next-heaps(c)`) becomes a macro of the instance's term parser.
//!
//! Lighter than Maude, on purpose: a module's argument may be a view, a module (the view is
//! then implicit: every theory symbol maps to the symbol of the same name) or, for a
//! one-sort theory such as `TRIV`, a sort (`SET{TwoHeaps}`); a view only lists the
//! symbols whose names differ; the parameter's sorts can be written `X$Config` or `Config`.

mod chain;
pub mod chance;
pub mod extend;
pub mod mixfix;

use crate::ast::{
    self, Decl, Ident, Item, ModExpr, ModuleDecl, ModuleKind, Token, TokenRun, ViewDecl, ViewMap,
};
use crate::diag::{suggest, Diag};
use crate::parser;
use crate::program::{
    Builtin, Equation, OpAttrs, OpId, OpInfo, Pat, PatPiece, Program, SortId, VarInfo,
};
use crate::span::{FileId, Sources, Span};
use mixfix::{Grammar, Sym, SymTarget, VarScope};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::rc::Rc;

pub type ModuleId = usize;

/// An elaborated module (or theory, or instance of a parameterised module): what it can see.
#[derive(Debug)]
pub struct Module {
    /// `HEAPS-GAME`, `SET{TwoHeaps}`, `WINS{HeapsGame}`.
    pub name: String,
    pub kind: ModuleKind,
    pub span: Span,
    /// Visible sorts by name, including the parameter aliases (`X$Config`, `Config`).
    pub sorts: FxHashMap<String, SortId>,
    /// Sorts that importers see (no parameter aliases).
    pub export_sorts: FxHashMap<String, SortId>,
    /// Visible operators.
    pub ops: Vec<OpId>,
    op_set: FxHashSet<OpId>,
    /// Parameter operators mapped to terms, visible only inside this instance.
    macros: Vec<Sym>,
    pub vars: FxHashMap<String, SortId>,
    /// The variables of [`Module::vars`] declared in the standard library's source (a
    /// library module or an instance of one): equations written by the user (a prompt
    /// declaration added to an instance of `WINS`) never see them.
    library_vars: FxHashSet<String>,
    /// Sorts and operators declared by this module itself (for listings).
    pub own_sorts: Vec<SortId>,
    pub own_ops: Vec<OpId>,
    /// For an instance: how each parameter was bound.
    pub params: Vec<ParamBinding>,
    /// For a theory: the sorts and operators a view must map (own and from imported theories).
    pub param_sorts: Vec<SortId>,
    pub param_ops: Vec<OpId>,
    /// For a theory: the modules (fmods) it imports, which instances share rather than map.
    shared: Vec<ModuleId>,
    grammar: RefCell<Option<Rc<Grammar>>>,
}

/// How one parameter of an instance is bound.
#[derive(Clone, Debug)]
pub struct ParamBinding {
    pub param: String,
    pub theory: String,
    pub binding: Binding,
}

/// A resolved view: theory sorts and operators to sorts and terms of the target.
#[derive(Clone, Debug)]
pub struct Binding {
    /// How the argument is named in instance names: `HeapsGame`, `TwoHeaps`.
    pub display: String,
    pub sort_map: FxHashMap<SortId, SortId>,
    /// Theory operator → term over its arguments (`Var(i)` = argument i).
    pub op_map: FxHashMap<OpId, Pat>,
    /// Modules the instance must import (the view's target).
    pub target: Option<ModuleId>,
    /// Fmods the theory imports (shared, not mapped), e.g. `PLAYERS` for `GAME-TREE`.
    pub shared: Vec<ModuleId>,
}

impl Binding {
    fn key(&self) -> String {
        let mut sorts: Vec<_> = self.sort_map.iter().map(|(a, b)| (a.0, b.0)).collect();
        sorts.sort();
        let mut ops: Vec<_> = self
            .op_map
            .iter()
            .map(|(a, p)| format!("{}={:?}", a.0, p))
            .collect();
        ops.sort();
        format!("{sorts:?}{ops:?}")
    }

    /// The term a theory operator stands for, by the operator's name.
    pub fn op_by_name<'a>(
        &'a self,
        sig: &crate::program::Signature,
        name: &str,
    ) -> Option<&'a Pat> {
        self.op_map
            .iter()
            .find(|(op, _)| sig.op(**op).name == name)
            .map(|(_, p)| p)
    }
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
}

/// Everything loaded so far: sources, signature, equations, modules, views and games.
pub struct Session {
    pub sources: Sources,
    pub program: Program,
    pub modules: Vec<Module>,
    pub games: Vec<Game>,
    /// Games with chance and any number of players (`instance CHANCE{…}`, seed 002).
    pub chance_games: Vec<chance::ChanceGame>,
    templates: FxHashMap<String, Rc<ModuleDecl>>,
    views: FxHashMap<String, Rc<ViewDecl>>,
    view_cache: FxHashMap<String, Binding>,
    instances: FxHashMap<String, ModuleId>,
    in_progress: Vec<String>,
    errors: Vec<Diag>,
    bool_module: Option<ModuleId>,
    /// `_==_` and `_and-then_`, used to elaborate conditions `t = u /\ C`.
    equal_op: Option<OpId>,
    and_then_op: Option<OpId>,
    /// The files of the standard library (loaded by [`Session::new`]).
    library_files: FxHashSet<FileId>,
}

/// The outcome of loading one file: what it declared.
#[derive(Debug, Default)]
pub struct Loaded {
    pub modules: Vec<ModuleId>,
    pub games: Vec<usize>,
    pub chance_games: Vec<usize>,
    /// The file's `reduce` commands, in order.
    pub reductions: Vec<Reduction>,
}

/// A `reduce TERM .` of a file: the term, not yet parsed, and the module to parse and
/// reduce it in (see [`Session::reduction_term`]).
#[derive(Clone, Debug)]
pub struct Reduction {
    pub module: ModuleId,
    pub term: TokenRun,
    pub span: Span,
}

impl Session {
    /// A session with the standard library loaded. The standard library failing to load is
    /// a bug in gamelang; the error is its rendered diagnostics.
    pub fn new() -> Result<Session, String> {
        let mut s = Session {
            sources: Sources::new(),
            program: Program::default(),
            modules: Vec::new(),
            games: Vec::new(),
            chance_games: Vec::new(),
            templates: FxHashMap::default(),
            views: FxHashMap::default(),
            view_cache: FxHashMap::default(),
            instances: FxHashMap::default(),
            in_progress: Vec::new(),
            errors: Vec::new(),
            bool_module: None,
            equal_op: None,
            and_then_op: None,
            library_files: FxHashSet::default(),
        };
        let universal = s.program.sig.add_sort("Universal".into(), None);
        s.program.sig.universal_sort = Some(universal);
        for (name, text) in gamelang_stdlib::FILES {
            if let Err(e) = s.load_source(name, text) {
                return Err(crate::diag::render_all(&e, &s.sources, false));
            }
        }
        // Each file loaded above added exactly one source, in order, from id 0.
        for i in 0..gamelang_stdlib::FILES.len() {
            s.library_files.insert(FileId(i));
        }
        Ok(s)
    }

    /// Load a file from disk.
    pub fn load_file(&mut self, path: &std::path::Path) -> Result<Loaded, Vec<Diag>> {
        let text = crate::span::read_source(path)
            .map_err(|e| vec![Diag::error(e).code("gamelang::io")])?;
        self.load_source(&path.display().to_string(), &text)
    }

    /// Load source text: parse it, register its modules, theories and views, and elaborate
    /// everything it declares (so errors anywhere in it are reported now).
    pub fn load_source(&mut self, name: &str, text: &str) -> Result<Loaded, Vec<Diag>> {
        let file = self.sources.add(name, text);
        let ast = parser::parse_file(file, text).map_err(|e| vec![parse_diag(&e)])?;
        self.intern_file_strings(&ast);
        self.errors.clear();
        let mut loaded = Loaded::default();
        let mut plain = Vec::new();
        let mut params = Vec::new();
        let mut views = Vec::new();
        let mut games = Vec::new();
        // `reduce` commands with the module they name or follow (`None`: no module before).
        let mut reductions: Vec<(Option<Ident>, ast::ReduceDecl)> = Vec::new();
        let mut last_module: Option<Ident> = None;
        for item in ast.items {
            match item {
                Item::Module(m) => {
                    if m.kind == ModuleKind::Module {
                        last_module = Some(m.name.clone());
                    }
                    if let Some(old) = self.templates.get(&m.name.name) {
                        let d = Diag::at(
                            m.name.span,
                            format!("module `{}` is declared twice", m.name.name),
                            "declared again here",
                        )
                        .secondary(old.name.span, "first declared here");
                        self.errors.push(d);
                        continue;
                    }
                    let m = Rc::new(m);
                    self.templates.insert(m.name.name.clone(), m.clone());
                    if m.params.is_empty() {
                        plain.push(m);
                    } else {
                        params.push(m);
                    }
                }
                Item::View(v) => {
                    if let Some(old) = self.views.get(&v.name.name) {
                        let d = Diag::at(
                            v.name.span,
                            format!("view `{}` is declared twice", v.name.name),
                            "declared again here",
                        )
                        .secondary(old.name.span, "first declared here");
                        self.errors.push(d);
                        continue;
                    }
                    let v = Rc::new(v);
                    self.views.insert(v.name.name.clone(), v.clone());
                    views.push(v);
                }
                Item::Game(g) => games.push(g),
                Item::Reduce(r) => {
                    let module = r.module.clone().or_else(|| last_module.clone());
                    reductions.push((module, r));
                }
            }
        }
        for m in plain {
            let expr = ModExpr {
                name: m.name.clone(),
                args: Vec::new(),
                span: m.name.span,
            };
            match self.module_expr(&expr, None) {
                Ok(id) => loaded.modules.push(id),
                Err(d) => self.errors.push(d),
            }
        }
        for m in params {
            if let Err(d) = self.check_parameterised(&m) {
                self.errors.push(d);
            }
        }
        for v in views {
            if let Err(d) = self.view(&v.name) {
                self.errors.push(d);
            }
        }
        for g in games {
            if chance::is_chance(&g) {
                match self.chance_game(&g) {
                    Ok(game) => {
                        loaded.chance_games.push(self.chance_games.len());
                        self.chance_games.push(game);
                    }
                    Err(d) => self.errors.push(d),
                }
                continue;
            }
            match self.game(&g) {
                Ok(game) => {
                    loaded.games.push(self.games.len());
                    self.games.push(game);
                }
                Err(d) => self.errors.push(d),
            }
        }
        for (module, r) in reductions {
            let Some(name) = module else {
                self.errors.push(Diag::at(
                    r.span,
                    "a `reduce` needs a module: write it after an `fmod`, or `reduce in MODULE : TERM .`",
                    "no module before this",
                ));
                continue;
            };
            let expr = ModExpr {
                span: name.span,
                name,
                args: Vec::new(),
            };
            match self.module_expr(&expr, None) {
                Ok(m) => loaded.reductions.push(Reduction {
                    module: m,
                    term: r.term,
                    span: r.span,
                }),
                Err(d) => self.errors.push(d),
            }
        }
        self.program.index();
        if self.errors.is_empty() {
            Ok(loaded)
        } else {
            Err(std::mem::take(&mut self.errors))
        }
    }

    /// The term of a file's `reduce` command, parsed in its module.
    pub fn reduction_term(&mut self, r: &Reduction) -> Result<Pat, Diag> {
        self.intern_strings(&r.term, Some(r.module));
        let grammar = self.grammar(r.module);
        let mut vars = mixfix::NoVars;
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, &r.term, &mut vars, None)?;
        Ok(pat)
    }

    pub fn module_by_name(&self, name: &str) -> Option<ModuleId> {
        self.instances
            .get(name)
            .copied()
            .or_else(|| self.modules.iter().position(|m| m.name == name))
    }

    /// The grammar of a module's terms (cached).
    pub fn grammar(&self, m: ModuleId) -> Rc<Grammar> {
        let module = &self.modules[m];
        if let Some(g) = module.grammar.borrow().as_ref() {
            return g.clone();
        }
        // Inside an instance, a parameter operator mapped to a term shadows an imported
        // operator of the same name and arity (with a symmetry, `next-config` means the
        // canonicalising mapping, not the game module's own `next-config`).
        let shadowed = |op: &OpId| {
            let i = self.program.sig.op(*op);
            module
                .macros
                .iter()
                .any(|m| m.name == i.name && m.args.len() == i.args.len())
        };
        let mut syms: Vec<Sym> = module
            .ops
            .iter()
            .filter(|op| !shadowed(op))
            .map(|&op| self.sym_of(op))
            .collect();
        syms.extend(module.macros.iter().cloned());
        let g = Rc::new(Grammar::new(syms));
        *module.grammar.borrow_mut() = Some(g.clone());
        g
    }

    fn sym_of(&self, op: OpId) -> Sym {
        let info = self.program.sig.op(op);
        Sym {
            name: info.name.clone(),
            form: info.form.clone(),
            args: info.args.clone(),
            result: info.result,
            prec: info.attrs.prec,
            assoc: info.attrs.assoc,
            builtin: info.attrs.builtin,
            target: SymTarget::Op(op),
        }
    }

    /// Parse a term typed outside any file (command line, REPL) in module `m`.
    /// `origin` names the source in diagnostics, e.g. `--from`.
    pub fn parse_term(
        &mut self,
        m: ModuleId,
        origin: &str,
        text: &str,
        expected: Option<SortId>,
    ) -> Result<Pat, Diag> {
        let file = self.sources.add(origin, text);
        let toks = parser::lex_run(file, text).map_err(|e| parse_diag(&e))?;
        if toks.is_empty() {
            return Err(Diag::at(
                Span::new(file, 0, text.len()),
                "expected a term",
                "empty",
            ));
        }
        self.intern_strings(&toks, Some(m));
        let grammar = self.grammar(m);
        let mut vars = mixfix::NoVars;
        // A term of the expected kind but not (yet) of the expected sort is accepted: it may
        // reduce to one, which the caller checks on the value.
        let (pat, _sort) =
            mixfix::parse_term(&self.program.sig, &grammar, &toks, &mut vars, expected)?;
        Ok(pat)
    }

    /// `--set name=value`: give a game parameter a new value, replacing the equation that
    /// defines its default. `text` is `name=value`, e.g. `n=6`.
    pub fn set_parameter(&mut self, game: &Game, text: &str) -> Result<(), Diag> {
        self.set_parameter_of(&game.name, &game.params, game.module, text)
    }

    /// `--set name=value` for the game `game_name` with these parameters, whose terms are
    /// parsed in `module`.
    pub(crate) fn set_parameter_of(
        &mut self,
        game_name: &str,
        game_params: &[(String, OpId)],
        game_module: ModuleId,
        text: &str,
    ) -> Result<(), Diag> {
        let file = self.sources.add("--set", text);
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
            .note(format!(
                "give `{name}` a value of sort {}",
                sig.sort(result).name
            )));
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

    // ----- module expressions and instantiation --------------------------------------------

    /// Elaborate a module expression (`INT`, `SET{TwoHeaps}`, `WINS{HeapsGame}`), from the
    /// scope of module `ctx` (where its arguments are resolved) or from the top level.
    fn module_expr(&mut self, expr: &ModExpr, ctx: Option<ModuleId>) -> Result<ModuleId, Diag> {
        let Some(decl) = self.templates.get(&expr.name.name).cloned() else {
            let names: Vec<String> = self.templates.keys().cloned().collect();
            let mut d = Diag::at(
                expr.name.span,
                format!("unknown module `{}`", expr.name.name),
                "no module or theory of this name",
            );
            let hints = suggest(&expr.name.name, names.iter().map(String::as_str));
            if !hints.is_empty() {
                d = d.note(format!("did you mean {}?", quote_list(&hints)));
            }
            return Err(d);
        };
        if decl.params.len() != expr.args.len() {
            let want = if decl.params.is_empty() {
                "no arguments".to_string()
            } else {
                format!(
                    "{} argument(s): {}",
                    decl.params.len(),
                    decl.params
                        .iter()
                        .map(|p| format!("{} :: {}", p.name.name, p.theory.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(Diag::at(
                expr.span,
                format!("module `{}` takes {want}", decl.name.name),
                format!("given {} argument(s)", expr.args.len()),
            )
            .secondary(decl.name.span, "declared here"));
        }
        let mut bindings = Vec::new();
        for (param, arg) in decl.params.iter().zip(&expr.args) {
            let theory = self.theory(&param.theory)?;
            let b = self.argument(arg, ctx, theory)?;
            bindings.push(ParamBinding {
                param: param.name.name.clone(),
                theory: param.theory.name.clone(),
                binding: b,
            });
        }
        self.instantiate(&decl, bindings, expr.span)
    }

    /// The instance of module `decl` with these parameter bindings, elaborated once and
    /// shared by everything that instantiates it the same way.
    fn instantiate(
        &mut self,
        decl: &Rc<ModuleDecl>,
        bindings: Vec<ParamBinding>,
        at: Span,
    ) -> Result<ModuleId, Diag> {
        let display = if bindings.is_empty() {
            decl.name.name.clone()
        } else {
            format!(
                "{}{{{}}}",
                decl.name.name,
                bindings
                    .iter()
                    .map(|b| b.binding.display.clone())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        let key = format!(
            "{display}#{}",
            bindings
                .iter()
                .map(|b| b.binding.key())
                .collect::<Vec<_>>()
                .join("|")
        );
        if let Some(&id) = self.instances.get(&key) {
            return Ok(id);
        }
        if self.in_progress.contains(&key) {
            return Err(Diag::at(
                at,
                format!("module `{display}` imports itself"),
                "import cycle through here",
            ));
        }
        self.in_progress.push(key.clone());
        let result = self.elaborate(decl, bindings, display, false);
        self.in_progress.pop();
        let id = result?;
        self.instances.insert(key, id);
        Ok(id)
    }

    /// The theory called `name` (elaborated once), or an error if it is a module.
    fn theory(&mut self, name: &Ident) -> Result<ModuleId, Diag> {
        let expr = ModExpr {
            name: name.clone(),
            args: Vec::new(),
            span: name.span,
        };
        let theory = self.module_expr(&expr, None)?;
        if self.modules[theory].kind != ModuleKind::Theory {
            return Err(Diag::at(
                name.span,
                format!("`{}` is not a theory", name.name),
                "a parameter must be declared with a theory (`fth`)",
            ));
        }
        Ok(theory)
    }

    /// Check a parameterised module once on its own, with each parameter bound to its
    /// theory, so that its errors show at its definition rather than at first use.
    fn check_parameterised(&mut self, decl: &Rc<ModuleDecl>) -> Result<(), Diag> {
        let mut bindings = Vec::new();
        for param in &decl.params {
            let theory = self.theory(&param.theory)?;
            let t = &self.modules[theory];
            let mut b = Binding {
                display: param.name.name.clone(),
                sort_map: t.param_sorts.iter().map(|&s| (s, s)).collect(),
                op_map: FxHashMap::default(),
                target: None,
                shared: self.shared_imports(theory),
            };
            for &op in &t.param_ops {
                let n = self.program.sig.op(op).args.len() as u32;
                b.op_map
                    .insert(op, Pat::App(op, (0..n).map(Pat::Var).collect()));
            }
            bindings.push(ParamBinding {
                param: param.name.name.clone(),
                theory: param.theory.name.clone(),
                binding: b,
            });
        }
        let display = format!(
            "{}{{{}}}",
            decl.name.name,
            decl.params
                .iter()
                .map(|p| p.name.name.clone())
                .collect::<Vec<_>>()
                .join(",")
        );
        self.elaborate(decl, bindings, display, true).map(|_| ())
    }

    /// The fmods a theory imports (directly or through other theories): shared by every
    /// instance rather than mapped by views.
    fn shared_imports(&self, theory: ModuleId) -> Vec<ModuleId> {
        self.modules[theory].shared.clone()
    }

    /// Resolve a module argument against `theory`: a parameter of the enclosing module, a
    /// view, a module (implicit view) or a sort (implicit view of a one-sort theory).
    fn argument(
        &mut self,
        arg: &ModExpr,
        ctx: Option<ModuleId>,
        theory: ModuleId,
    ) -> Result<Binding, Diag> {
        let name = &arg.name.name;
        let mut wrong_view = None;
        if arg.args.is_empty() {
            if let Some(c) = ctx {
                if let Some(p) = self.modules[c].params.iter().find(|p| &p.param == name) {
                    // A parameter passed on: map the theory by name in the current scope,
                    // where the parameter's sorts and operators are visible. The instance
                    // is named after what the parameter is bound to (`WINS{HeapsGame}`).
                    // Each theory sort goes to this parameter's own sort (`K$Elt`), not to
                    // whichever parameter's sort has the plain name `Elt`: in MAP{K, V},
                    // SET{V} must be the set of V's elements.
                    let display = p.binding.display.clone();
                    let fixed: Vec<(SortId, SortId)> = self.modules[theory]
                        .param_sorts
                        .iter()
                        .filter_map(|&s| {
                            let own = format!("{name}${}", self.program.sig.sort(s).name);
                            self.modules[c].sorts.get(&own).map(|&t| (s, t))
                        })
                        .collect();
                    return self.by_name(theory, c, display, None, &fixed, arg.span);
                }
            }
            // A view is chosen only if it is from the parameter's theory: `SET{Nim}` inside
            // the module NIM means the sort Nim even when a view `Nim` from GAME-TREE exists.
            if let Some(v) = self.views.get(name).cloned() {
                if v.from.name.name == self.modules[theory].name {
                    return self.view(&arg.name);
                }
                wrong_view = Some(Diag::at(
                    arg.span,
                    format!(
                        "view `{name}` is from `{}`, but this parameter needs a view from `{}`",
                        v.from.name.name, self.modules[theory].name
                    ),
                    "wrong theory",
                ));
            }
        }
        if self.templates.contains_key(name) {
            let target = self.module_expr(arg, ctx)?;
            let display = self.modules[target].name.clone();
            return self.by_name(theory, target, display, Some(target), &[], arg.span);
        }
        if arg.args.is_empty() {
            if let Some(c) = ctx {
                if let Some(&sort) = self.modules[c].sorts.get(name) {
                    let t = &self.modules[theory];
                    if t.param_sorts.len() != 1 {
                        return Err(Diag::at(arg.span, format!("the sort `{name}` can only stand for a theory with one sort; `{}` has {}", t.name, t.param_sorts.len()), "write a view instead"));
                    }
                    let ts = t.param_sorts[0];
                    return self.by_name(theory, c, name.clone(), None, &[(ts, sort)], arg.span);
                }
            }
        }
        if let Some(d) = wrong_view {
            return Err(d);
        }
        let mut names: Vec<String> = self
            .views
            .keys()
            .chain(self.templates.keys())
            .cloned()
            .collect();
        if let Some(c) = ctx {
            names.extend(self.modules[c].sorts.keys().cloned());
        }
        let mut d = Diag::at(
            arg.span,
            format!("unknown view, module or sort `{name}`"),
            "cannot instantiate the parameter with this",
        );
        let hints = suggest(name, names.iter().map(String::as_str));
        if !hints.is_empty() {
            d = d.note(format!("did you mean {}?", quote_list(&hints)));
        }
        Err(d)
    }

    /// A binding mapping every theory symbol to the symbol of the same name in `scope`,
    /// except the sorts given in `fixed`.
    fn by_name(
        &mut self,
        theory: ModuleId,
        scope: ModuleId,
        display: String,
        target: Option<ModuleId>,
        fixed: &[(SortId, SortId)],
        at: Span,
    ) -> Result<Binding, Diag> {
        let mut b = Binding {
            display,
            sort_map: fixed.iter().copied().collect(),
            op_map: FxHashMap::default(),
            target,
            shared: self.shared_imports(theory),
        };
        self.complete_by_name(
            theory,
            scope,
            &mut b,
            &FxHashSet::default(),
            Wording::Implicit,
            at,
        )?;
        Ok(b)
    }

    /// Map every theory sort and operator that `b` does not map yet (and that is not in
    /// `skip`) to the symbol of the same name in module `scope`. `wording` says whether a
    /// failure is reported as an implicit view or as a view that leaves a symbol unmapped.
    fn complete_by_name(
        &mut self,
        theory: ModuleId,
        scope: ModuleId,
        b: &mut Binding,
        skip: &FxHashSet<OpId>,
        wording: Wording,
        at: Span,
    ) -> Result<(), Diag> {
        let scope_name = self.modules[scope].name.clone();
        let theory_name = self.modules[theory].name.clone();
        for s in self.modules[theory].param_sorts.clone() {
            if b.sort_map.contains_key(&s) {
                continue;
            }
            let sname = self.program.sig.sort(s).name.clone();
            match self.modules[scope].sorts.get(&sname) {
                Some(&t) => {
                    b.sort_map.insert(s, t);
                }
                None => {
                    return Err(match wording {
                        Wording::Implicit => Diag::at(at, format!("`{scope_name}` has no sort `{sname}` for the parameter theory `{theory_name}`"), "implicit view needs a sort of the same name")
                            .note(format!("write a view: `view V from {theory_name} to {scope_name} is sort {sname} to … . endv`")),
                        Wording::InView => Diag::at(at, format!("the view does not map the theory sort `{sname}`, and `{scope_name}` has no sort of that name"), "in this view")
                            .note(format!("add `sort {sname} to … .`")),
                    });
                }
            }
        }
        for op in self.modules[theory].param_ops.clone() {
            if skip.contains(&op) || b.op_map.contains_key(&op) {
                continue;
            }
            match self.op_by_name(op, b, scope) {
                Some(p) => {
                    b.op_map.insert(op, p);
                }
                None => {
                    let info = self.program.sig.op(op);
                    let mapped = self.describe_op_mapped(op, b);
                    let d = match wording {
                        Wording::Implicit => Diag::at(at, format!("`{scope_name}` has no operator `{}` for the parameter theory `{theory_name}`", info.name), "implicit view needs an operator of the same name and arity")
                            .note(format!("expected `{mapped}`; write a view mapping it, e.g. `op {} to …` or `op {}(…) to term …`", info.name, info.name)),
                        Wording::InView => Diag::at(at, format!("the view does not map the theory operator `{}`, and `{scope_name}` has no operator of that name and arity", info.name), "in this view")
                            .note(format!("the theory operator is `{mapped}`; add `op {} to … .` or `op {}(…) to term … .`", info.name, info.name)),
                    };
                    return Err(self.with_misfits(d, scope, &info.name));
                }
            }
        }
        Ok(())
    }

    fn describe_op_mapped(&self, op: OpId, b: &Binding) -> String {
        let sig = &self.program.sig;
        let info = sig.op(op);
        let map = |s: SortId| sig.sort(*b.sort_map.get(&s).unwrap_or(&s)).name.clone();
        format!(
            "{} : {} -> {}",
            info.name,
            info.args
                .iter()
                .map(|s| map(*s))
                .collect::<Vec<_>>()
                .join(" "),
            map(info.result)
        )
    }

    /// The operator of `scope` that a theory operator maps to by name, as a term template.
    fn op_by_name(&self, op: OpId, b: &Binding, scope: ModuleId) -> Option<Pat> {
        let sig = &self.program.sig;
        let info = sig.op(op);
        let want_args: Vec<SortId> = info
            .args
            .iter()
            .map(|s| *b.sort_map.get(s).unwrap_or(s))
            .collect();
        let want_res = *b.sort_map.get(&info.result).unwrap_or(&info.result);
        let ops = &self.modules[scope].ops;
        let candidates: Vec<OpId> = ops
            .iter()
            .copied()
            .filter(|&o| {
                let oi = sig.op(o);
                oi.name == info.name
                    && oi.args.len() == want_args.len()
                    && oi
                        .args
                        .iter()
                        .zip(&want_args)
                        .all(|(a, w)| sig.same_kind(*a, *w))
                    && sig.same_kind(oi.result, want_res)
            })
            .collect();
        let exact = candidates.iter().copied().find(|&o| {
            let oi = sig.op(o);
            oi.args == want_args && oi.result == want_res
        });
        if let Some(chosen) = exact.or_else(|| candidates.first().copied()) {
            return Some(Pat::App(
                chosen,
                (0..want_args.len() as u32).map(Pat::Var).collect(),
            ));
        }
        // A parameter operator of the scope that its own view maps to a term (when a
        // parameter is passed on, e.g. `next-config` inside `SOLVE{X}`).
        let macros = &self.modules[scope].macros;
        macros
            .iter()
            .find(|s| {
                s.name == info.name
                    && s.args.len() == want_args.len()
                    && s.args
                        .iter()
                        .zip(&want_args)
                        .all(|(a, w)| sig.same_kind(*a, *w))
            })
            .and_then(|s| match &s.target {
                SymTarget::Macro(t) => Some((**t).clone()),
                SymTarget::Op(_) => None,
            })
    }

    /// Elaborate (once) the view called `name`.
    fn view(&mut self, name: &Ident) -> Result<Binding, Diag> {
        if let Some(b) = self.view_cache.get(&name.name) {
            return Ok(b.clone());
        }
        let v = self.views[&name.name].clone();
        let theory = self.module_expr(&v.from, None)?;
        if self.modules[theory].kind != ModuleKind::Theory {
            return Err(Diag::at(
                v.from.span,
                format!(
                    "a view maps a theory, and `{}` is a module",
                    v.from.name.name
                ),
                "not a theory (`fth`)",
            ));
        }
        let target = self.module_expr(&v.to, None)?;
        let mut fixed = Vec::new();
        let mut op_maps: Vec<(&ViewMap, OpId)> = Vec::new();
        for map in &v.maps {
            match map {
                ViewMap::Sort { from, to, span } => {
                    let Some(&ts) = self.modules[theory]
                        .sorts
                        .get(&from.name)
                        .filter(|s| self.modules[theory].param_sorts.contains(s))
                    else {
                        return Err(Diag::at(
                            from.span,
                            format!("theory `{}` has no sort `{}`", v.from.name.name, from.name),
                            "not a sort of the theory",
                        ));
                    };
                    let Some(&ms) = self.modules[target].sorts.get(&to.name) else {
                        return Err(self
                            .unknown_sort(target, &to.name, to.span)
                            .secondary(*span, "in this sort mapping"));
                    };
                    fixed.push((ts, ms));
                }
                ViewMap::Op { from, .. } => {
                    let op = self.theory_op(theory, &from.name, None, from.span)?;
                    op_maps.push((map, op));
                }
                ViewMap::OpToTerm { from, span, .. } => {
                    let Some(first) = from.first() else {
                        return Err(Diag::at(
                            *span,
                            "expected an operator before `to term`",
                            "here",
                        ));
                    };
                    let arity = from.iter().filter(|t| t.text.contains(':')).count();
                    let op = self.theory_op(theory, &first.text, Some(arity), first.span)?;
                    op_maps.push((map, op));
                }
            }
        }
        // Start from the implicit (by-name) mapping for everything not listed.
        let explicit: FxHashSet<OpId> = op_maps.iter().map(|(_, o)| *o).collect();
        let mut b = Binding {
            display: name.name.clone(),
            sort_map: fixed.iter().copied().collect(),
            op_map: FxHashMap::default(),
            target: Some(target),
            shared: self.shared_imports(theory),
        };
        self.complete_by_name(
            theory,
            target,
            &mut b,
            &explicit,
            Wording::InView,
            v.name.span,
        )?;
        for (map, op) in op_maps {
            let pat = match map {
                ViewMap::Op { to, .. } => {
                    let info = self.program.sig.op(op).clone();
                    let want: Vec<SortId> = info
                        .args
                        .iter()
                        .map(|s| *b.sort_map.get(s).unwrap_or(s))
                        .collect();
                    let want_result = *b.sort_map.get(&info.result).unwrap_or(&info.result);
                    let found = self.modules[target].ops.iter().copied().find(|&o| {
                        let oi = self.program.sig.op(o);
                        oi.name == to.name
                            && oi.args.len() == want.len()
                            && oi
                                .args
                                .iter()
                                .zip(&want)
                                .all(|(a, w)| self.program.sig.same_kind(*a, *w))
                            && self.program.sig.same_kind(oi.result, want_result)
                    });
                    match found {
                        Some(o) => Pat::App(o, (0..want.len() as u32).map(Pat::Var).collect()),
                        None => {
                            let d = Diag::at(
                                to.span,
                                format!(
                                "`{}` has no operator `{}` with {} argument(s) of the right sorts",
                                self.modules[target].name,
                                to.name,
                                want.len()
                            ),
                                "no such operator",
                            )
                            .note(format!(
                                "the theory operator is `{}`",
                                self.describe_op_mapped(op, &b)
                            ));
                            return Err(self.with_misfits(d, target, &to.name));
                        }
                    }
                }
                ViewMap::OpToTerm { from, to, .. } => self.op_to_term(op, from, to, target, &b)?,
                ViewMap::Sort { .. } => unreachable!(),
            };
            b.op_map.insert(op, pat);
        }
        self.view_cache.insert(name.name.clone(), b.clone());
        Ok(b)
    }

    fn theory_op(
        &self,
        theory: ModuleId,
        name: &str,
        arity: Option<usize>,
        at: Span,
    ) -> Result<OpId, Diag> {
        let t = &self.modules[theory];
        let found = t.param_ops.iter().copied().find(|&o| {
            let i = self.program.sig.op(o);
            i.name == name && arity.is_none_or(|a| a == i.args.len())
        });
        found.ok_or_else(|| {
            let names: Vec<String> = t
                .param_ops
                .iter()
                .map(|&o| self.program.sig.op(o).name.clone())
                .collect();
            let mut d = Diag::at(
                at,
                format!("theory `{}` has no operator `{name}`", t.name),
                "not an operator of the theory",
            );
            let hints = suggest(name, names.iter().map(String::as_str));
            if !hints.is_empty() {
                d = d.note(format!("did you mean {}?", quote_list(&hints)));
            }
            d
        })
    }

    /// `op next-config(p:Players, c:Config) to term next-heaps(c:TwoHeaps)`.
    fn op_to_term(
        &mut self,
        op: OpId,
        from: &TokenRun,
        to: &TokenRun,
        target: ModuleId,
        b: &Binding,
    ) -> Result<Pat, Diag> {
        let info = self.program.sig.op(op).clone();
        let mut names = Vec::new();
        for t in from.iter().skip(1) {
            if let Some((n, _)) = t.text.split_once(':') {
                names.push((n.to_string(), t.span));
            }
        }
        if names.len() != info.args.len() {
            return Err(Diag::at(
                from[0].span.to(from[from.len() - 1].span),
                format!(
                    "`{}` takes {} argument(s); write them as `x:Sort`",
                    info.name,
                    info.args.len()
                ),
                "here",
            ));
        }
        let mut vars = TemplateVars {
            names: names.iter().map(|(n, _)| n.clone()).collect(),
            sorts: info
                .args
                .iter()
                .map(|s| *b.sort_map.get(s).unwrap_or(s))
                .collect(),
        };
        let grammar = self.grammar(target);
        let want = *b.sort_map.get(&info.result).unwrap_or(&info.result);
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, to, &mut vars, Some(want))?;
        Ok(pat)
    }

    fn unknown_sort(&self, m: ModuleId, name: &str, at: Span) -> Diag {
        let names: Vec<&str> = self.modules[m].sorts.keys().map(String::as_str).collect();
        let mut d = Diag::at(
            at,
            format!("unknown sort `{name}`"),
            format!("no sort of this name in `{}`", self.modules[m].name),
        );
        let hints = suggest(name, names);
        if !hints.is_empty() {
            d = d.note(format!("did you mean {}?", quote_list(&hints)));
        }
        // The prelude's sorts are not visible without importing them.
        if matches!(name, "Nat" | "NzNat" | "Int" | "NzInt") {
            d = d.note("the integers come from the prelude: add `protecting INT .` to the module (the errors after this one may all come from it)");
        } else if name == "Bool" {
            d = d.note("the Booleans come from the prelude: add `protecting BOOL .` (or `protecting INT .`) to the module");
        }
        d
    }

    // ----- declarations -----------------------------------------------------------------------

    fn elaborate(
        &mut self,
        decl: &ModuleDecl,
        params: Vec<ParamBinding>,
        display: String,
        check_only: bool,
    ) -> Result<ModuleId, Diag> {
        let id = self.modules.len();
        self.modules.push(Module {
            name: display,
            kind: decl.kind,
            span: decl.name.span,
            sorts: FxHashMap::default(),
            export_sorts: FxHashMap::default(),
            ops: Vec::new(),
            op_set: FxHashSet::default(),
            macros: Vec::new(),
            vars: FxHashMap::default(),
            library_vars: FxHashSet::default(),
            own_sorts: Vec::new(),
            own_ops: Vec::new(),
            params: Vec::new(),
            param_sorts: Vec::new(),
            param_ops: Vec::new(),
            shared: Vec::new(),
            grammar: RefCell::new(None),
        });
        let is_prelude_bool = decl.name.name == "BOOL" && self.bool_module.is_none();
        if is_prelude_bool {
            let u = self.program.sig.universal_sort.expect("universal sort");
            self.modules[id].sorts.insert("Universal".into(), u);
            self.modules[id].export_sorts.insert("Universal".into(), u);
        } else if let Some(b) = self.bool_module {
            self.import(id, b, decl.name.span)?;
        }
        // Parameters: import what the view targets and the theory shares, then alias the
        // theory's sorts and operators.
        for p in &params {
            if let Some(t) = p.binding.target {
                self.import(id, t, decl.name.span)?;
            }
            for &s in &p.binding.shared {
                self.import(id, s, decl.name.span)?;
            }
            for (&ts, &target) in &p.binding.sort_map {
                let n = self.program.sig.sort(ts).name.clone();
                self.modules[id]
                    .sorts
                    .insert(format!("{}${n}", p.param), target);
                self.modules[id].sorts.entry(n).or_insert(target);
            }
            let mut ops: Vec<(&OpId, &Pat)> = p.binding.op_map.iter().collect();
            ops.sort_by_key(|(o, _)| **o);
            for (&top, pat) in ops {
                let tinfo = self.program.sig.op(top).clone();
                let map = |s: SortId| *p.binding.sort_map.get(&s).unwrap_or(&s);
                if let Pat::App(target, args) = pat {
                    let direct = args
                        .iter()
                        .enumerate()
                        .all(|(i, a)| *a == Pat::Var(i as u32));
                    if direct && self.program.sig.op(*target).name == tinfo.name {
                        self.add_visible_op(id, *target);
                        continue;
                    }
                }
                self.modules[id].macros.push(Sym {
                    name: tinfo.name.clone(),
                    form: tinfo.form.clone(),
                    args: tinfo.args.iter().map(|s| map(*s)).collect(),
                    result: map(tinfo.result),
                    prec: tinfo.attrs.prec,
                    assoc: false,
                    builtin: None,
                    target: SymTarget::Macro(Rc::new(pat.clone())),
                });
            }
        }
        self.modules[id].params = params;
        for d in &decl.decls {
            if let Err(e) = self.declaration(id, d, check_only) {
                self.errors.push(e);
            }
        }
        if is_prelude_bool {
            self.bool_module = Some(id);
            let sig = &self.program.sig;
            let find = |name: &str| {
                self.modules[id]
                    .ops
                    .iter()
                    .copied()
                    .find(|&o| sig.op(o).name == name)
            };
            let (t, f, eq, at) = (
                find("true"),
                find("false"),
                find("_==_"),
                find("_and-then_"),
            );
            let bool_sort = self.modules[id].sorts.get("Bool").copied();
            self.program.sig.true_op = t;
            self.program.sig.false_op = f;
            self.program.sig.bool_sort = bool_sort;
            self.equal_op = eq;
            self.and_then_op = at;
        }
        if decl.name.name == "INT" && self.program.sig.int_sort.is_none() {
            self.program.sig.nat_sort = self.modules[id].sorts.get("Nat").copied();
            self.program.sig.int_sort = self.modules[id].sorts.get("Int").copied();
        }
        Ok(id)
    }

    fn add_visible_op(&mut self, m: ModuleId, op: OpId) {
        let module = &mut self.modules[m];
        if module.op_set.insert(op) {
            module.ops.push(op);
            *module.grammar.borrow_mut() = None;
        }
    }

    fn import(&mut self, m: ModuleId, from: ModuleId, at: Span) -> Result<(), Diag> {
        let sorts: Vec<(String, SortId)> = self.modules[from]
            .export_sorts
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        for (name, s) in sorts {
            if let Some(&old) = self.modules[m].sorts.get(&name) {
                if old != s {
                    return Err(Diag::at(
                        at,
                        format!("two different sorts are called `{name}` here"),
                        format!("importing `{}`", self.modules[from].name),
                    )
                    .note("rename one of them"));
                }
            }
            self.modules[m].sorts.insert(name.clone(), s);
            self.modules[m].export_sorts.insert(name, s);
        }
        let ops = self.modules[from].ops.clone();
        for op in ops {
            self.add_visible_op(m, op);
        }
        if self.modules[from].kind == ModuleKind::Theory
            && self.modules[m].kind == ModuleKind::Theory
        {
            // A theory importing a theory: the imported theory's symbols are parameters too.
            let (ps, po) = (
                self.modules[from].param_sorts.clone(),
                self.modules[from].param_ops.clone(),
            );
            for s in ps {
                if !self.modules[m].param_sorts.contains(&s) {
                    self.modules[m].param_sorts.push(s);
                }
            }
            for o in po {
                if !self.modules[m].param_ops.contains(&o) {
                    self.modules[m].param_ops.push(o);
                }
            }
            for s in self.modules[from].shared.clone() {
                if !self.modules[m].shared.contains(&s) {
                    self.modules[m].shared.push(s);
                }
            }
        }
        Ok(())
    }

    fn declaration(&mut self, m: ModuleId, d: &Decl, check_only: bool) -> Result<(), Diag> {
        match d {
            // protecting / extending / including are not distinguished: nothing checks that
            // an import is protected yet.
            Decl::Import { target, span, .. } => {
                let imported = self.module_expr(target, Some(m))?;
                self.import(m, imported, *span)?;
                if self.modules[m].kind == ModuleKind::Theory
                    && self.modules[imported].kind == ModuleKind::Module
                {
                    self.modules[m].shared.push(imported);
                }
                Ok(())
            }
            Decl::Sorts { sorts, .. } => {
                for s in sorts {
                    let name = self.rename_sort(m, &s.name);
                    if let Some(&old) = self.modules[m].sorts.get(&name) {
                        if self.modules[m].own_sorts.contains(&old) {
                            return Err(Diag::at(
                                s.span,
                                format!("sort `{name}` is declared twice"),
                                "declared again here",
                            ));
                        }
                        return Err(Diag::at(
                            s.span,
                            format!("sort `{name}` is already imported"),
                            "a sort of this name is visible here already",
                        )
                        .note("sorts are shared through imports; declare it once"));
                    }
                    let id = self.program.sig.add_sort(name.clone(), Some(s.span));
                    let module = &mut self.modules[m];
                    module.sorts.insert(name.clone(), id);
                    module.export_sorts.insert(name, id);
                    module.own_sorts.push(id);
                    if module.kind == ModuleKind::Theory {
                        module.param_sorts.push(id);
                    }
                }
                Ok(())
            }
            Decl::Subsorts { chain, .. } => {
                let mut levels = Vec::new();
                for level in chain {
                    let mut ids = Vec::new();
                    for s in level {
                        ids.push(self.sort(m, s)?);
                    }
                    levels.push(ids);
                }
                for w in levels.windows(2) {
                    for &a in &w[0] {
                        for &b in &w[1] {
                            if self.program.sig.leq(b, a) && a != b {
                                return Err(Diag::at(
                                    chain[0][0].span.to(chain[chain.len() - 1][0].span),
                                    "cyclic subsort declaration",
                                    "this would make two sorts subsorts of each other",
                                ));
                            }
                            self.program.sig.add_subsort(a, b);
                        }
                    }
                }
                Ok(())
            }
            Decl::Op {
                names,
                args,
                result,
                attrs,
                span,
            } => {
                let arg_sorts = args
                    .iter()
                    .map(|a| self.sort(m, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let res = self.sort(m, result)?;
                for name in names {
                    let form = op_form(&name.name, arg_sorts.len())
                        .map_err(|msg| Diag::at(name.span, msg, "in this operator name"))?;
                    let op_attrs = self.op_attrs(m, attrs, &form, &arg_sorts, res)?;
                    if op_attrs.assoc && (arg_sorts.len() != 2) {
                        return Err(Diag::at(
                            name.span,
                            "an `assoc` operator must be binary",
                            "not binary",
                        ));
                    }
                    let dup = self.modules[m].own_ops.iter().any(|&o| {
                        let i = self.program.sig.op(o);
                        i.name == name.name && i.args == arg_sorts
                    });
                    if dup {
                        return Err(Diag::at(
                            name.span,
                            format!(
                                "operator `{}` is declared twice with the same argument sorts",
                                name.name
                            ),
                            "declared again here",
                        ));
                    }
                    let info = OpInfo {
                        name: name.name.clone(),
                        form,
                        args: arg_sorts.clone(),
                        result: res,
                        attrs: op_attrs,
                        span: Some(*span),
                        module: self.modules[m].name.clone(),
                    };
                    let id = self.program.sig.add_op(info);
                    self.add_visible_op(m, id);
                    let module = &mut self.modules[m];
                    module.own_ops.push(id);
                    if module.kind == ModuleKind::Theory {
                        module.param_ops.push(id);
                    }
                }
                Ok(())
            }
            Decl::Vars { names, sort, span } => {
                let s = self.sort(m, sort)?;
                let library = self.library_files.contains(&span.file);
                for n in names {
                    let module = &mut self.modules[m];
                    module.vars.insert(n.name.clone(), s);
                    if library {
                        module.library_vars.insert(n.name.clone());
                    } else {
                        module.library_vars.remove(&n.name);
                    }
                }
                Ok(())
            }
            Decl::Eq {
                lhs,
                rhs,
                cond,
                attrs,
                span,
            } => {
                let eq = self.equation(m, lhs, rhs, cond.as_ref(), attrs, *span)?;
                let executable = self.modules[m].kind == ModuleKind::Module && !check_only;
                if let Some(eq) = eq.filter(|_| executable) {
                    let extended = ac_extension(&self.program.sig, &eq);
                    self.program.equations.push(eq);
                    self.program.equations.extend(extended);
                }
                Ok(())
            }
        }
    }

    /// `Set{X}` inside `SET{X :: TRIV}` instantiated with `TwoHeaps` is `Set{TwoHeaps}`.
    fn rename_sort(&self, m: ModuleId, name: &str) -> String {
        let params = &self.modules[m].params;
        if params.is_empty() || !name.contains('{') {
            return name.to_string();
        }
        let mut out = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let replaced = params
                .iter()
                .find(|p| p.param == *word)
                .map(|p| p.binding.display.clone());
            out.push_str(&replaced.unwrap_or_else(|| word.clone()));
            word.clear();
        };
        let mut depth = 0;
        for ch in name.chars() {
            match ch {
                '{' | '}' | ',' => {
                    if depth > 0 {
                        flush(&mut word, &mut out);
                    } else {
                        out.push_str(&word);
                        word.clear();
                    }
                    if ch == '{' {
                        depth += 1;
                    } else if ch == '}' {
                        depth -= 1;
                    }
                    out.push(ch);
                }
                _ => word.push(ch),
            }
        }
        out.push_str(&word);
        out
    }

    fn sort(&self, m: ModuleId, s: &ast::SortRef) -> Result<SortId, Diag> {
        let name = self.rename_sort(m, &s.name);
        self.modules[m]
            .sorts
            .get(&name)
            .copied()
            .ok_or_else(|| self.unknown_sort(m, &name, s.span))
    }

    fn op_attrs(
        &self,
        m: ModuleId,
        attrs: &TokenRun,
        form: &[PatPiece],
        args: &[SortId],
        res: SortId,
    ) -> Result<OpAttrs, Diag> {
        let open = matches!(form.first(), Some(PatPiece::Hole))
            || matches!(form.last(), Some(PatPiece::Hole));
        let mut a = OpAttrs {
            prec: if open { 41 } else { 0 },
            ..OpAttrs::default()
        };
        let mut i = 0;
        while i < attrs.len() {
            let t = &attrs[i];
            match t.text.as_str() {
                "ctor" => a.ctor = true,
                "assoc" => a.assoc = true,
                "comm" => a.comm = true,
                "idem" => a.idem = true,
                "memo" => a.memo = true,
                "id:" => {
                    let Some(c) = attrs.get(i + 1) else {
                        return Err(Diag::at(
                            t.span,
                            "`id:` needs a constant",
                            "expected the identity element after this",
                        ));
                    };
                    if c.text.parse::<i64>().is_ok() {
                        return Err(Diag::at(
                            c.span,
                            format!("a number (`{}`) cannot be an identity here", c.text),
                            "not a declared constant",
                        )
                        .note("an identity must be a constant operator of the operator's kind, e.g. `op none : -> Cond [ctor] .` then `[id: none]`; built-in numbers are not supported as identities"));
                    }
                    let sig = &self.program.sig;
                    let found = self.modules[m].ops.iter().copied().find(|&o| {
                        let oi = sig.op(o);
                        oi.name == c.text && oi.args.is_empty() && sig.same_kind(oi.result, res)
                    });
                    a.identity = Some(found.ok_or_else(|| {
                        Diag::at(
                            c.span,
                            format!(
                                "no constant `{}` of this operator's kind to be its identity",
                                c.text
                            ),
                            "declare it (`op … : -> …`) before this operator",
                        )
                    })?);
                    i += 1;
                }
                "prec" => {
                    let n = attrs.get(i + 1).and_then(|n| n.text.parse::<u32>().ok());
                    a.prec = n.ok_or_else(|| {
                        Diag::at(t.span, "`prec` needs a number", "e.g. `prec 33`")
                    })?;
                    i += 1;
                }
                "builtin" => {
                    let Some(n) = attrs.get(i + 1) else {
                        return Err(Diag::at(t.span, "`builtin` needs a name", "here"));
                    };
                    a.builtin = Some(builtin(&n.text).ok_or_else(|| {
                        Diag::at(
                            n.span,
                            format!("unknown built-in `{}`", n.text),
                            "not a built-in operation",
                        )
                    })?);
                    i += 1;
                }
                "gather" | "format" => {
                    // Accepted for Maude compatibility; precedence and left associativity
                    // are fixed by our convention. Skip the parenthesised list.
                    if attrs.get(i + 1).is_some_and(|n| n.text == "(") {
                        let mut depth = 0;
                        i += 1;
                        while i < attrs.len() {
                            match attrs[i].text.as_str() {
                                "(" => depth += 1,
                                ")" => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                }
                other => {
                    let known = [
                        "ctor", "assoc", "comm", "idem", "id:", "memo", "prec", "gather", "format",
                    ];
                    let mut d = Diag::at(
                        t.span,
                        format!("unknown operator attribute `{other}`"),
                        "not an attribute",
                    );
                    let hints = suggest(other, known);
                    if !hints.is_empty() {
                        d = d.note(format!("did you mean {}?", quote_list(&hints)));
                    }
                    return Err(d.note(format!("operator attributes: {}", known.join(", "))));
                }
            }
            i += 1;
        }
        if a.comm && args.len() != 2 {
            return Err(Diag::at(
                attrs[0].span,
                "a `comm` operator must be binary",
                "here",
            ));
        }
        Ok(a)
    }

    fn equation(
        &mut self,
        m: ModuleId,
        lhs: &TokenRun,
        rhs: &TokenRun,
        cond: Option<&TokenRun>,
        attrs: &TokenRun,
        span: Span,
    ) -> Result<Option<Equation>, Diag> {
        let mut owise = false;
        let mut nonexec = false;
        let mut i = 0;
        while i < attrs.len() {
            match attrs[i].text.as_str() {
                "owise" | "otherwise" => owise = true,
                "nonexec" => nonexec = true,
                "label" | "metadata" => i += 1,
                other => {
                    return Err(Diag::at(
                        attrs[i].span,
                        format!("unknown equation attribute `{other}`"),
                        "not an attribute",
                    )
                    .note("equation attributes: owise, nonexec, label NAME"));
                }
            }
            i += 1;
        }
        let grammar = self.grammar(m);
        let sig = &self.program.sig;
        let mut vars = EqVars {
            module: &self.modules[m],
            user: !self.library_files.contains(&span.file),
            table: Vec::new(),
            spans: Vec::new(),
        };
        let (l, lsort) = mixfix::parse_term(sig, &grammar, lhs, &mut vars, None)?;
        let lhs_span = lhs[0].span.to(lhs[lhs.len() - 1].span);
        if !matches!(l, Pat::App(..)) {
            return Err(Diag::at(
                lhs_span,
                "the left-hand side of an equation must be an operator application",
                "a variable or a number cannot be rewritten",
            ));
        }
        let lhs_vars = vars.table.len();
        // The right side is read at the left side's kind (which settles overloaded
        // constants such as `empty`); if it has no reading there, say how the sorts differ.
        let (r, rsort) = match mixfix::parse_term(sig, &grammar, rhs, &mut vars, Some(lsort)) {
            Ok(x) => x,
            Err(e) => match mixfix::parse_term(sig, &grammar, rhs, &mut vars, None) {
                Ok((_, other)) => (Pat::Int(0), other),
                Err(_) => return Err(e),
            },
        };
        if !sig.same_kind(lsort, rsort) {
            let rhs_span = rhs[0].span.to(rhs[rhs.len() - 1].span);
            return Err(Diag::at(
                rhs_span,
                format!(
                    "the sides of this equation have unrelated sorts: `{}` and `{}`",
                    sig.sort(lsort).name,
                    sig.sort(rsort).name
                ),
                format!("of sort `{}`", sig.sort(rsort).name),
            )
            .secondary(lhs_span, format!("of sort `{}`", sig.sort(lsort).name)));
        }
        let c = match cond {
            None => None,
            Some(cond) => Some(condition(
                sig,
                &grammar,
                cond,
                &mut vars,
                self.equal_op,
                self.and_then_op,
            )?),
        };
        // Every variable used on the right or in the condition must be bound by the left.
        if vars.table.len() > lhs_vars {
            let name = &vars.table[lhs_vars].name;
            // Where it is first used: its token on the right or in the condition.
            let inline = format!("{name}:");
            let s = rhs
                .iter()
                .chain(cond.into_iter().flatten())
                .find(|t| t.text == *name || t.text.starts_with(&inline))
                .map_or(span, |t| t.span);
            return Err(Diag::at(
                s,
                format!("variable `{name}` does not occur in the left-hand side"),
                "unbound: the equation could not give it a value",
            )
            .secondary(lhs_span, "the left-hand side"));
        }
        // The simplest loop there is (`eq foo = foo .`, often a typo): the term rewrites
        // to itself forever, until the step budget runs out minutes later.
        if l == r && !nonexec {
            let rhs_span = rhs[0].span.to(rhs[rhs.len() - 1].span);
            return Err(Diag::at(
                rhs_span,
                "this equation rewrites its left-hand side to itself",
                "the same term as the left-hand side",
            )
            .secondary(lhs_span, "the left-hand side")
            .note(if c.is_some() {
                "whenever its condition holds, the reduction would never end"
            } else {
                "the reduction would never end; did you mean another operator on the right?"
            }));
        }
        if nonexec {
            return Ok(None);
        }
        Ok(Some(Equation {
            lhs: l,
            rhs: r,
            cond: c,
            owise,
            vars: vars.table,
            span,
            module: self.modules[m].name.clone(),
        }))
    }

    // ----- games --------------------------------------------------------------------------------

    fn game(&mut self, g: &ast::GameDecl) -> Result<Game, Diag> {
        let field = |key: &str| g.fields.iter().find(|f| f.key.name == key);
        for f in &g.fields {
            if !matches!(
                f.key.name.as_str(),
                "instance" | "start" | "first" | "param" | "symmetry"
            ) {
                return Err(Diag::at(
                    f.key.span,
                    format!("unknown game field `{}`", f.key.name),
                    "not a field of `game`",
                )
                .note("game fields: instance, start, first, param, symmetry"));
            }
        }
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
        let (eval, goal_distance, randomizable) = (
            agent_op("eval"),
            agent_op("goal-distance"),
            agent_op("randomizable"),
        );
        let solver = self.solver_for(&binding, draws, inst.span)?;
        let (value, score, value_module) = match self.value_for(&binding, inst.span)? {
            Some((v, s, m)) => (Some(v), Some(s), Some(m)),
            None => (None, None, None),
        };
        let params = self.game_params(g, module)?;
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
            value,
            display,
            concat: self.string_concat(),
            r_within: op_named("r-within")?,
            b_within: op_named("b-within")?,
            eval,
            goal_distance,
            randomizable,
        })
    }
}

impl Session {
    /// The `start` field of a game, parsed in `module` as a term of `sort` (`example` shows
    /// one in the error when the field is missing).
    fn game_start(
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

    /// The `param` fields of a game: constants of its module with a default equation.
    fn game_params(
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
}

impl Session {
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
}

impl Session {
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

    /// The prelude's `String` sort.
    pub fn string_sort(&self) -> Option<SortId> {
        self.bool_module
            .and_then(|b| self.modules[b].sorts.get("String").copied())
    }

    /// The prelude's `_++_`.
    pub fn string_concat(&self) -> Option<OpId> {
        let b = self.bool_module?;
        let sig = &self.program.sig;
        self.modules[b]
            .ops
            .iter()
            .copied()
            .find(|&o| sig.op(o).name == "_++_")
    }

    /// Make every string literal of a file a constant before its modules are elaborated,
    /// so that each module sees them through its (implicit) import of BOOL.
    fn intern_file_strings(&mut self, ast: &ast::SourceFile) {
        let mut runs: Vec<&TokenRun> = Vec::new();
        for item in &ast.items {
            match item {
                Item::Module(m) => {
                    for d in &m.decls {
                        if let Decl::Eq { lhs, rhs, cond, .. } = d {
                            runs.push(lhs);
                            runs.push(rhs);
                            if let Some(c) = cond {
                                runs.push(c);
                            }
                        }
                    }
                }
                Item::View(v) => {
                    for map in &v.maps {
                        if let ViewMap::OpToTerm { to, .. } = map {
                            runs.push(to);
                        }
                    }
                }
                Item::Game(g) => runs.extend(g.fields.iter().map(|f| &f.value)),
                Item::Reduce(r) => runs.push(&r.term),
            }
        }
        let toks: Vec<Token> = runs.into_iter().flatten().cloned().collect();
        self.intern_strings(&toks, None);
    }

    /// String literals (`"X"`) among `toks` become constants of sort String, visible from
    /// BOOL (and so from every module elaborated later) and from `module`.
    fn intern_strings(&mut self, toks: &[Token], module: Option<ModuleId>) {
        let (Some(b), Some(string)) = (self.bool_module, self.string_sort()) else {
            return;
        };
        for t in toks {
            let text = &t.text;
            if !(text.len() >= 2 && text.starts_with('"') && text.ends_with('"')) {
                continue;
            }
            let sig = &self.program.sig;
            let existing = self.modules[b]
                .ops
                .iter()
                .copied()
                .find(|&o| sig.op(o).name == *text && sig.op(o).args.is_empty());
            let op = match existing {
                Some(op) => op,
                None => {
                    let info = OpInfo {
                        name: text.clone(),
                        form: vec![PatPiece::Lit(text.clone())],
                        args: Vec::new(),
                        result: string,
                        attrs: OpAttrs {
                            ctor: true,
                            ..OpAttrs::default()
                        },
                        span: Some(t.span),
                        module: "BOOL".into(),
                    };
                    let op = self.program.sig.add_op(info);
                    self.add_visible_op(b, op);
                    op
                }
            };
            if let Some(m) = module {
                self.add_visible_op(m, op);
            }
        }
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
        let has_score = self.modules[target]
            .ops
            .iter()
            .any(|&o| sig.op(o).name == "score" && sig.op(o).args.len() == 2);
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

/// For an equation whose left-hand side is headed by an `assoc comm` operator, `f(p1, …,
/// pn)`, the same equation applied to part of a larger term, as Maude matches it (with an
/// *extension*): `f(p1, …, pn, E) = f(R, E)` for a fresh variable `E` of the operator's
/// result sort. Without it, `eq N ; N = N .` would only rewrite a multiset of exactly two
/// elements. The extended equation is tried after the original.
fn ac_extension(sig: &crate::program::Signature, eq: &Equation) -> Option<Equation> {
    let Pat::App(op, args) = &eq.lhs else {
        return None;
    };
    let info = sig.op(*op);
    if !(info.attrs.assoc && info.attrs.comm) || args.len() < 2 {
        return None;
    }
    let mut e = eq.clone();
    let v = Pat::Var(e.vars.len() as u32);
    e.vars.push(VarInfo {
        name: "%extension".into(),
        sort: info.result,
    });
    let mut lhs_args = args.clone();
    lhs_args.push(v.clone());
    e.lhs = Pat::App(*op, lhs_args);
    e.rhs = Pat::App(*op, vec![eq.rhs.clone(), v]);
    Some(e)
}

/// How a failed by-name mapping is reported: as an implicit view (a module or sort given
/// as an argument) or as a symbol a written view leaves unmapped.
#[derive(Clone, Copy)]
enum Wording {
    Implicit,
    InView,
}

/// The variables of one equation: declared ones (`var c : Config .`) and inline ones
/// (`c:Config`), numbered in order of first occurrence.
struct EqVars<'a> {
    module: &'a Module,
    /// The equation is the user's (not the standard library's): the module's library
    /// variables are not in scope.
    user: bool,
    table: Vec<VarInfo>,
    spans: Vec<Span>,
}

impl EqVars<'_> {
    fn index(&mut self, name: &str, sort: SortId) -> u32 {
        if let Some(i) = self
            .table
            .iter()
            .position(|v| v.name == name && v.sort == sort)
        {
            return i as u32;
        }
        self.table.push(VarInfo {
            name: name.to_string(),
            sort,
        });
        self.spans.push(Span::new(FileId(0), 0, 0));
        (self.table.len() - 1) as u32
    }
}

impl VarScope for EqVars<'_> {
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)> {
        if let Some(&s) = self.module.vars.get(name) {
            if !(self.user && self.module.library_vars.contains(name)) {
                return Some((self.index(name, s), s));
            }
        }
        // An inline variable used again without its sort.
        let v = self.table.iter().position(|v| v.name == name)?;
        Some((v as u32, self.table[v].sort))
    }
    fn inline(&mut self, name: &str, sort: &str) -> Option<(u32, SortId)> {
        let s = *self.module.sorts.get(sort)?;
        Some((self.index(name, s), s))
    }
    fn names(&self) -> Vec<String> {
        self.module
            .vars
            .keys()
            .filter(|n| !(self.user && self.module.library_vars.contains(*n)))
            .cloned()
            .collect()
    }
    fn sort_names(&self) -> Vec<String> {
        self.module.sorts.keys().cloned().collect()
    }
}

/// The argument variables of a view's `op f(x:S, …) to term T`.
struct TemplateVars {
    names: Vec<String>,
    sorts: Vec<SortId>,
}

impl VarScope for TemplateVars {
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)> {
        let i = self.names.iter().position(|n| n == name)?;
        Some((i as u32, self.sorts[i]))
    }
    fn inline(&mut self, name: &str, _sort: &str) -> Option<(u32, SortId)> {
        self.declared(name)
    }
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }
    fn sort_names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A condition `C1 /\ C2 /\ …` where each part is a Bool term or `t = u`, as one Bool term.
fn condition(
    sig: &crate::program::Signature,
    grammar: &Grammar,
    toks: &TokenRun,
    vars: &mut dyn VarScope,
    equal: Option<OpId>,
    and_then: Option<OpId>,
) -> Result<Pat, Diag> {
    let mut parts: Vec<&[Token]> = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "/\\" if depth == 0 => {
                parts.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&toks[start..]);
    let mut result: Option<Pat> = None;
    for part in parts {
        if part.is_empty() {
            let at = toks.first().map(|t| t.span).expect("non-empty condition");
            return Err(Diag::at(at, "empty part in a condition", "around here"));
        }
        let mut depth = 0;
        let eq_at = part.iter().position(|t| {
            match t.text.as_str() {
                "(" => depth += 1,
                ")" => depth -= 1,
                _ => {}
            }
            depth == 0 && t.text == "="
        });
        let pat = match eq_at {
            Some(k) => {
                let (a, asort) = mixfix::parse_term(sig, grammar, &part[..k], vars, None)?;
                let (b, _) = mixfix::parse_term(sig, grammar, &part[k + 1..], vars, Some(asort))?;
                Pat::App(equal.expect("prelude defines _==_"), vec![a, b])
            }
            None => mixfix::parse_term(sig, grammar, part, vars, sig.bool_sort)?.0,
        };
        result = Some(match result {
            None => pat,
            Some(prev) => Pat::App(and_then.expect("prelude defines and-then"), vec![prev, pat]),
        });
    }
    Ok(result.expect("at least one part"))
}

/// The mixfix form of an operator name: `_,_` → hole `,` hole; `f` with arity 2 → `f ( _ , _ )`.
pub fn op_form(name: &str, arity: usize) -> Result<Vec<PatPiece>, String> {
    if !name.contains('_') {
        if arity == 0 {
            return Ok(vec![PatPiece::Lit(name.to_string())]);
        }
        let mut form = vec![PatPiece::Lit(name.to_string()), PatPiece::Lit("(".into())];
        for i in 0..arity {
            if i > 0 {
                form.push(PatPiece::Lit(",".into()));
            }
            form.push(PatPiece::Hole);
        }
        form.push(PatPiece::Lit(")".into()));
        return Ok(form);
    }
    let mut form = Vec::new();
    let mut lit = String::new();
    for ch in name.chars() {
        let self_delimiting = matches!(ch, '(' | ')' | '[' | ']' | '{' | '}' | ',');
        if ch == '_' || self_delimiting {
            if !lit.is_empty() {
                form.push(PatPiece::Lit(std::mem::take(&mut lit)));
            }
            if ch == '_' {
                form.push(PatPiece::Hole);
            } else {
                form.push(PatPiece::Lit(ch.to_string()));
            }
        } else {
            lit.push(ch);
        }
    }
    if !lit.is_empty() {
        form.push(PatPiece::Lit(lit));
    }
    let holes = form.iter().filter(|p| **p == PatPiece::Hole).count();
    if holes != arity {
        return Err(format!("the name `{name}` has {holes} argument place(s) `_`, but the operator is declared with {arity} argument sort(s)"));
    }
    Ok(form)
}

fn builtin(name: &str) -> Option<Builtin> {
    use Builtin::*;
    Some(match name {
        "true" => True,
        "false" => False,
        "not" => Not,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        "implies" => Implies,
        "and-then" => AndThen,
        "or-else" => OrElse,
        "if" => IfThenElse,
        "equal" => Equal,
        "not-equal" => NotEqual,
        "add" => Add,
        "sub" => Sub,
        "mul" => Mul,
        "quo" => Quo,
        "rem" => Rem,
        "neg" => Neg,
        "abs" => Abs,
        "min" => Min,
        "max" => Max,
        "lt" => Lt,
        "le" => Le,
        "gt" => Gt,
        "ge" => Ge,
        "divides" => Divides,
        "grid-packed" => GridPacked,
        "grid-board" => GridBoard,
        "grid-initial" => GridInitial,
        "grid-moves" => GridMoves,
        "grid-holds" => GridHolds,
        "grid-at" => GridAt,
        "grid-columns" => GridColumns,
        "grid-rows" => GridRows,
        // Finite maps (stdlib/map.game).
        "map-union" => MapUnion,
        "map-agree" => MapAgree,
        "map-get" => MapGet,
        "map-override" => MapOverride,
        "map-remove" => MapRemove,
        "map-in-dom" => MapInDom,
        "map-in-ran" => MapInRan,
        "map-only" => MapOnly,
        "map-size" => MapSize,
        "map-dom" => MapDom,
        "map-ran" => MapRan,
        _ => return None,
    })
}

/// `WINS{HeapsGame}` written as tokens (in a game's `instance` field).
fn mod_expr_from_tokens(toks: &[Token]) -> Result<ModExpr, Diag> {
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

fn quote_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A parse error as a diagnostic.
pub fn parse_diag(e: &parser::ParseError) -> Diag {
    let label = match &e.label {
        Some(label) => label.as_str(),
        None if e.unexpected_eof => "the input ends here",
        None => "unexpected here",
    };
    let d = Diag::at(e.span, e.message.clone(), label);
    match &e.help {
        Some(help) => d.note(format!("help: {help}")),
        None => d,
    }
}
