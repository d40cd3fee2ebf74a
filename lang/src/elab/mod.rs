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
//!
//! The files, one job each: this one holds the session and loading a file; [`declare`]
//! elaborates a module's sorts, operators and equations; [`instance`] module expressions,
//! theories, views and instances; [`game`] the `game … endgame` block; [`chance`] games
//! with chance; [`builtins`] the built-in names and string literals; [`mixfix`] (with
//! [`chain`] and [`extend`]) parses terms.

mod binding;
mod builtins;
mod chain;
pub mod chance;
mod declare;
pub mod extend;
mod game;
mod instance;
pub mod mixfix;
mod overload;
mod successor;

pub use declare::op_form;
pub use game::{Game, Requirement};

use crate::ast::{self, Ident, Item, ModExpr, ModuleDecl, ModuleKind, Token, TokenRun, ViewDecl};
use crate::diag::Diag;
use crate::parser;
use crate::program::{Equation, OpAttrs, OpId, OpInfo, Pat, PatPiece, Program, SortId};
use crate::span::{FileId, Sources, Span};
use mixfix::{Grammar, Sym, SymTarget};
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
    /// The modules imported (by `protecting`, `including`, `extending`, or as what an
    /// instance's parameters bind): whose equations apply here ([`Session::program_for`]).
    imports: Vec<ModuleId>,
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
    /// [`Module::own_ops`] by name, for the checks that compare an operator with the
    /// module's own of its name (a scan of them all made a module of 200,000 constants
    /// take minutes to load). Kept with `own_ops` (an `op` declaration in `declare.rs`,
    /// overloads retired in `overload.rs`).
    own_by_name: FxHashMap<String, Vec<OpId>>,
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
    /// The prelude's `QID`, whose constants are the quoted identifiers (`builtins.rs`).
    qid_module: Option<ModuleId>,
    /// `_==_` and `_and-then_`, used to elaborate conditions `t = u /\ C`.
    equal_op: Option<OpId>,
    and_then_op: Option<OpId>,
    /// The operators that read Maude's `s N` in left-hand sides (`successor.rs`), once the
    /// prelude's `INT` is loaded.
    successor_ops: Option<successor::SuccessorOps>,
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
    /// The file's `set … .` and `show … .` commands that gamelang reads, in order, each
    /// with the number of `reduce` commands before it.
    pub settings: Vec<(usize, FileSetting)>,
}

impl Loaded {
    /// The file's settings that come after `k` of its `reduce` commands and before the
    /// next one (`k` = the number of reductions: those after the last), in order.
    pub fn settings_before(&self, k: usize) -> impl Iterator<Item = FileSetting> + '_ {
        self.settings
            .iter()
            .filter(move |(before, _)| *before == k)
            .map(|(_, s)| *s)
    }
}

/// A Maude `set … .` or `show … .` command of a file that gamelang reads: what
/// `gamelang reduce FILE` (and the REPL's `load`) do with them is theirs to say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileSetting {
    /// `set profile on .` / `set profile off .`: count the rewrites of the reductions.
    Profile(bool),
    /// `show profile .`: print what the last reduction's rewrites were.
    ShowProfile,
    /// `set show timing on|off .`: the time after each result.
    ShowTiming(bool),
    /// `set show stats on|off .`: the rewrites (and time) after each result.
    ShowStats(bool),
    /// A setting of Maude's output that gamelang has nothing to do with
    /// (`set show advisories off .`: gamelang prints no advisories).
    Ignored,
}

/// The settings gamelang reads, as Maude writes them (for error messages).
const SETTINGS_READ: &str = "set profile on|off, show profile, set show timing on|off, set show stats on|off, set show advisories on|off";

/// What Maude's `set WORDS .` (`show WORDS .` if `show`) asks of gamelang, or why it cannot.
fn file_setting(s: &ast::SettingDecl) -> Result<FileSetting, Diag> {
    let words: Vec<&str> = s.words.iter().map(String::as_str).collect();
    let on = |w: &str| match w {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    };
    let read = match (s.show, words.as_slice()) {
        (false, ["profile", w]) => on(w).map(FileSetting::Profile),
        (true, ["profile"]) => Some(FileSetting::ShowProfile),
        (false, ["show", "timing", w]) => on(w).map(FileSetting::ShowTiming),
        (false, ["show", "stats", w]) => on(w).map(FileSetting::ShowStats),
        (false, ["show", "advisories", w]) => on(w).map(|_| FileSetting::Ignored),
        _ => None,
    };
    read.ok_or_else(|| {
        let command = format!(
            "{} {}",
            if s.show { "show" } else { "set" },
            s.words.join(" ")
        );
        Diag::at(
            s.span,
            format!("gamelang does not read Maude's `{command} .`"),
            "not read",
        )
        .note(format!(
            "the commands it reads besides `reduce`: {SETTINGS_READ}"
        ))
    })
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
            qid_module: None,
            equal_op: None,
            and_then_op: None,
            successor_ops: None,
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
        self.intern_file_literals(&ast);
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
                        // Older Maude programs declare the views Maude's prelude now has
                        // (`view Int from TRIV to INT is sort Elt to Int . endv`): the
                        // same view again is the prelude's.
                        let library = self.library_files.contains(&old.name.span.file);
                        if library && self.same_view(old, &v) {
                            continue;
                        }
                        let mut d = Diag::at(
                            v.name.span,
                            format!("view `{}` is declared twice", v.name.name),
                            "declared again here",
                        )
                        .secondary(old.name.span, "first declared here");
                        if library {
                            d = d.note(format!(
                                "the standard library declares the view `{}`; use it, or give yours another name",
                                v.name.name
                            ));
                        }
                        self.errors.push(d);
                        continue;
                    }
                    let v = Rc::new(v);
                    self.views.insert(v.name.name.clone(), v.clone());
                    views.push(v);
                }
                Item::Game(g) => games.push(g),
                Item::Reduce(r) => {
                    // `reduce in M : …` makes M the module of the `reduce`s after it,
                    // as in Maude, until the next module.
                    if r.module.is_some() {
                        last_module = r.module.clone();
                    }
                    let module = r.module.clone().or_else(|| last_module.clone());
                    reductions.push((module, r));
                }
                Item::Setting(setting) => match file_setting(&setting) {
                    Ok(read) => loaded.settings.push((reductions.len(), read)),
                    Err(d) => self.errors.push(d),
                },
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
        // Two games of one name in one load: the second was kept beside the first, and
        // `--game NAME` took the first without a word.
        let mut named: FxHashMap<String, Span> = FxHashMap::default();
        for g in games {
            if let Some(&first) = named.get(&g.name.name) {
                self.errors.push(
                    Diag::at(
                        g.name.span,
                        format!("a second game is called `{}`", g.name.name),
                        "declared again here",
                    )
                    .secondary(first, "first declared here")
                    .note("give each game its own name (`--game NAME` picks one)"),
                );
                continue;
            }
            named.insert(g.name.name.clone(), g.name.span);
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
            // One fault met along two paths (a view that does not elaborate, checked on
            // its own and again by the instance that uses it; an equation of a
            // parameterised module, checked at its definition and again in an instance,
            // whose hints may differ by what each has in scope) is one error: the same
            // message at the same places, reported the first way it was met.
            let mut errors = std::mem::take(&mut self.errors);
            let mut seen = FxHashSet::default();
            errors.retain(|d| seen.insert((d.message.clone(), d.labels.clone())));
            Err(errors)
        }
    }

    /// The term of a file's `reduce` command, parsed in its module.
    pub fn reduction_term(&mut self, r: &Reduction) -> Result<Pat, Diag> {
        self.intern_literals(&r.term, Some(r.module));
        let grammar = self.grammar(r.module);
        let mut vars = mixfix::NoVars;
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, &r.term, &mut vars, None)?;
        Ok(pat)
    }

    /// The term of a file's `reduce` command for `gamelang reduce`, in which variables
    /// stand for constants (see [`Session::symbolic_term`]).
    pub fn symbolic_reduction_term(&mut self, r: &Reduction) -> Result<Pat, Diag> {
        self.intern_literals(&r.term, Some(r.module));
        self.symbolic_term(r.module, &r.term.clone())
    }

    /// A term given to `gamelang reduce FILE TERM`, in which variables stand for
    /// constants (see [`Session::symbolic_term`]).
    pub fn parse_symbolic_term(
        &mut self,
        m: ModuleId,
        origin: &str,
        text: &str,
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
        self.intern_literals(&toks, Some(m));
        self.symbolic_term(m, &toks)
    }

    /// `toks` parsed in module `m`, where a variable (one the module declares with `var`,
    /// or inline, `N:Nat`) stands for a new constant of its sort named after it, as in
    /// Maude: `red s 0 + N .` is `s N`, a proof by reduction with `N` arbitrary. The
    /// constants are new operators of the signature: an engine made before does not know
    /// them, so only `gamelang reduce`, which makes its engine after reading its terms,
    /// asks for them.
    fn symbolic_term(&mut self, m: ModuleId, toks: &[Token]) -> Result<Pat, Diag> {
        let grammar = self.grammar(m);
        let mut vars = declare::term_vars(&self.modules[m]);
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, toks, &mut vars, None)?;
        let table = vars.into_table();
        if table.is_empty() {
            return Ok(pat);
        }
        let module = self.modules[m].name.clone();
        let constants: Vec<OpId> = table
            .into_iter()
            .map(|v| {
                self.program.sig.add_op(OpInfo {
                    name: v.name.clone(),
                    form: vec![PatPiece::Lit(v.name)],
                    args: Vec::new(),
                    result: v.sort,
                    attrs: OpAttrs {
                        ctor: true,
                        ..OpAttrs::default()
                    },
                    span: None,
                    module: module.clone(),
                    overloads: Vec::new(),
                })
            })
            .collect();
        fn constant(p: Pat, c: &[OpId]) -> Pat {
            match p {
                Pat::Var(i) => Pat::App(c[i as usize], Vec::new()),
                Pat::App(op, args) => {
                    Pat::App(op, args.into_iter().map(|a| constant(a, c)).collect())
                }
                other => other,
            }
        }
        Ok(constant(pat, &constants))
    }

    /// The program as seen from the modules `roots` (a game's instances, the module a
    /// term is reduced in): every equation except those that a module which `roots` do
    /// not import added to an operator declared in another module. As in Maude, a
    /// module's equations apply only where it is imported: two variants of a game that
    /// each give a base module's `next-config` equations of their own (`including BASE`)
    /// must not see each other's, and the base sees neither. (One program holds every
    /// module's equations, indexed by operator; equations on a module's own operators
    /// apply wherever the operator is visible, which is where the module is imported.)
    /// Equations of no module (`--set`'s) are kept. `None`: every equation applies (the
    /// session's program as it is).
    pub fn program_for(&self, roots: &[ModuleId]) -> Option<Program> {
        let mut seen: FxHashSet<ModuleId> = FxHashSet::default();
        let mut todo: Vec<ModuleId> = roots.to_vec();
        while let Some(m) = todo.pop() {
            if seen.insert(m) {
                todo.extend(self.modules[m].imports.iter().copied());
            }
        }
        let inside: FxHashSet<&str> = seen
            .iter()
            .map(|&m| self.modules[m].name.as_str())
            .collect();
        let known: FxHashSet<&str> = self.modules.iter().map(|m| m.name.as_str()).collect();
        let sig = &self.program.sig;
        let applies = |e: &Equation| {
            e.module == sig.op(e.top_op()).module
                || inside.contains(e.module.as_str())
                || !known.contains(e.module.as_str())
        };
        if self.program.equations.iter().all(applies) {
            return None;
        }
        let mut program = Program {
            sig: self.program.sig.clone(),
            equations: self
                .program
                .equations
                .iter()
                .filter(|e| applies(e))
                .cloned()
                .collect(),
            eqs_by_op: Default::default(),
        };
        program.index();
        Some(program)
    }

    /// The header of the parameterised module (or theory) `name`, as written
    /// (`P{X :: TRIV}`), if there is one: it has no terms of its own, only its instances.
    pub fn parameterised(&self, name: &str) -> Option<String> {
        let m = self.templates.get(name).filter(|m| !m.params.is_empty())?;
        let params: Vec<String> = (m.params.iter())
            .map(|p| format!("{} :: {}", p.name.name, p.theory.name))
            .collect();
        Some(format!("{}{{{}}}", m.name.name, params.join(", ")))
    }

    /// The error for the parameterised module `name` named where a module's terms are
    /// wanted (`reduce --module`, the REPL's `select`), if it is one.
    pub fn parameterised_error(&self, name: &str) -> Option<Diag> {
        let header = self.parameterised(name)?;
        Some(
            Diag::error(format!(
                "module `{header}` is parameterised: its terms are those of an instance"
            ))
            .note(format!(
                "name a module that imports an instance of it (`protecting {name}{{…}} .`, with a view or a sort for each parameter)"
            )),
        )
    }

    pub fn module_by_name(&self, name: &str) -> Option<ModuleId> {
        self.instances
            .get(name)
            .copied()
            .or_else(|| self.modules.iter().position(|m| m.name == name))
    }

    /// The grammar of a module's terms (cached).
    /// Do two views say the same: the same theory, target (`NAT` is `INT` here) and
    /// mappings, written alike up to spacing?
    fn same_view(&self, a: &ast::ViewDecl, b: &ast::ViewDecl) -> bool {
        let target = |v: &ast::ViewDecl| match v.to.name.name.as_str() {
            "NAT" => "INT".to_string(),
            other => other.to_string(),
        };
        let maps = |v: &ast::ViewDecl| -> Vec<String> {
            (v.maps.iter())
                .map(|m| {
                    let span = match m {
                        ast::ViewMap::Sort { span, .. }
                        | ast::ViewMap::Op { span, .. }
                        | ast::ViewMap::OpToTerm { span, .. } => *span,
                    };
                    let text = self.sources.snippet(span);
                    text.split_whitespace().collect::<Vec<_>>().join(" ")
                })
                .collect()
        };
        a.from.name.name == b.from.name.name
            && a.from.args.is_empty()
            && b.from.args.is_empty()
            && b.to.args.is_empty()
            && target(a) == target(b)
            && maps(a) == maps(b)
    }

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
        // An operator the module declares hides an imported one of the same name and
        // rank (a program's own `union : Set{Nat} Set{Nat} -> Set{Nat}` beside the
        // prelude's): without this every use of the name would be ambiguous. The imported
        // operator keeps its equations, and its own module still sees it.
        let sig = &self.program.sig;
        let hidden_by_own = |op: &OpId| {
            let i = sig.op(*op);
            let own = module
                .own_by_name
                .get(&i.name)
                .map_or(&[][..], Vec::as_slice);
            !own.contains(op)
                && own.iter().any(|&o| {
                    let own = sig.op(o);
                    own.args == i.args && own.result == i.result
                })
        };
        // A `weak` operator gives way to any other of its name (see `OpAttrs::weak`): the
        // pairs of the one not seen and the one seen instead, for the parser's errors.
        let gives_way = |op: &OpId| {
            let i = sig.op(*op);
            if !i.attrs.weak {
                return None;
            }
            (module.ops.iter().copied()).find(|o| {
                let other = sig.op(*o);
                other.name == i.name && !other.attrs.weak && !shadowed(o)
            })
        };
        let mut hidden_weak = Vec::new();
        let mut syms: Vec<Sym> = Vec::with_capacity(module.ops.len());
        for op in &module.ops {
            if shadowed(op) || hidden_by_own(op) {
                continue;
            }
            if let Some(instead) = gives_way(op) {
                hidden_weak.push((*op, instead));
                continue;
            }
            syms.push(self.sym_of(*op));
        }
        syms.extend(module.macros.iter().cloned());
        let mut g = Grammar::new(syms);
        let sig = &self.program.sig;
        g.hidden_weak = hidden_weak;
        g.numbers =
            (module.sorts.values()).any(|&s| Some(s) == sig.int_sort || Some(s) == sig.nat_sort);
        let g = Rc::new(g);
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
            gather: info.attrs.gather.clone(),
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
        self.intern_literals(&toks, Some(m));
        let grammar = self.grammar(m);
        let mut vars = mixfix::NoVars;
        // A term of the expected kind but not (yet) of the expected sort is accepted: it may
        // reduce to one, which the caller checks on the value.
        let (pat, _sort) =
            mixfix::parse_term(&self.program.sig, &grammar, &toks, &mut vars, expected)?;
        Ok(pat)
    }
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
