//! The REPL backend: everything the REPL does, independent of how lines are read. A front
//! end (the line editor, or plain standard input) hands it complete inputs and prints the
//! [`Reply`]; it asks [`Backend::unfinished`] whether to read another line first.
//!
//! State: an elaboration [`Session`] and an [`Engine`] over its program, plus a log of
//! what was loaded (files, and modules and declarations typed at the prompt), from which
//! the session is rebuilt on `load` and `reload`, and after an input that failed half-way
//! (so that an input either applies entirely or not at all). An error never ends the
//! session: it is rendered into the reply and the state stays as it was.

mod games;
mod load;
mod play;
mod play_chance;
mod show;
mod solve_chance;

use super::commands::{self, ArgError, Args, Cmd, CommandInfo};
use gamelang_game::{self as driver, SolveError};
use gamelang_lang::diag::{suggest, Diag};
use gamelang_lang::elab::{ModuleId, Session};
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::error::RuntimeError;
use gamelang_runtime::{Engine, Limits, TermId};
use play::Play;
use play_chance::ChancePlay;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// One piece of output, for standard output or standard error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Out(String),
    Err(String),
}

/// What one input produced, in order.
#[derive(Debug, Default)]
pub struct Reply {
    pub parts: Vec<Part>,
    /// The input asked to leave.
    pub quit: bool,
}

impl Reply {
    fn out(&mut self, text: impl Into<String>) {
        self.parts.push(Part::Out(text.into()));
    }

    fn err(&mut self, text: impl Into<String>) {
        self.parts.push(Part::Err(text.into()));
    }

    /// Everything for standard output, concatenated (for tests).
    #[cfg(test)]
    pub fn stdout(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Out(s) => Some(s.as_str()),
                Part::Err(_) => None,
            })
            .collect()
    }

    /// Everything for standard error, concatenated (for tests).
    #[cfg(test)]
    pub fn stderr(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Err(s) => Some(s.as_str()),
                Part::Out(_) => None,
            })
            .collect()
    }
}

/// Something loaded into the session, replayed in order when it is rebuilt.
#[derive(Clone, Debug)]
enum Entry {
    /// A file, with the text that last loaded without errors (`None`: it never did, but
    /// `reload` tries it again).
    File { path: PathBuf, text: Option<String> },
    /// Modules, theories, views or games typed at the prompt.
    Items { origin: String, text: String },
    /// Declarations typed at the prompt, added to a module.
    Decls {
        module: String,
        origin: String,
        text: String,
    },
    /// A game parameter set at the prompt (`set NAME VALUE`): the session rebuilt for a
    /// `load` keeps it; `reload` goes back to the files' values.
    Param { game: String, assignment: String },
}

/// Names that completion offers, from the current module.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    /// The words of operators (`next-heaps`, `if`, `then`, `and-then`, constants).
    pub words: Vec<String>,
    pub sorts: Vec<String>,
    /// Modules and games (for `select`, `ops`, `sorts`, `--game`).
    pub modules: Vec<String>,
}

/// The module that is current when nothing is loaded.
const DEFAULT_MODULE: &str = "INT";

/// How many plies of the principal line `solve` shows (as `gamelang solve`).
const SHOW_PLIES: usize = 30;

pub struct Backend {
    session: Session,
    engine: Engine,
    log: Vec<Entry>,
    /// The current module, by name (names survive a rebuild, ids need not).
    module: String,
    /// The current game, by name.
    game: Option<String>,
    /// The chance game `select` made current, by name: the one `solve`, `value`, `play`
    /// and `set` then mean. Without one, they mean the last chance game loaded when no
    /// two-player game is.
    chance_game: Option<String>,
    play: Option<Play>,
    /// A chance game being played (`play` on an `instance CHANCE{…}` game).
    chance_play: Option<ChancePlay>,
    interrupt: Arc<AtomicBool>,
    limits: Limits,
    /// Render diagnostics with ANSI colours.
    pub color: bool,
    inputs: usize,
    /// `set print-limit N`: cut printed normal forms after about N bytes (0: in full).
    print_limit: usize,
    /// Some input failed (a script's exit status).
    pub failed: bool,
    /// The modules the engine's program was scoped to by [`Backend::sync_program`]
    /// (`None`: the session's whole program).
    scope: Option<Vec<ModuleId>>,
}

impl Backend {
    /// A backend with the standard library loaded. `interrupt` is the flag Ctrl-C raises.
    pub fn new(interrupt: Arc<AtomicBool>, limits: Limits) -> Result<Backend, String> {
        let session = Session::new()?;
        let engine = new_engine(&session, &interrupt, limits);
        Ok(Backend {
            session,
            engine,
            log: Vec::new(),
            module: DEFAULT_MODULE.to_string(),
            game: None,
            chance_game: None,
            play: None,
            chance_play: None,
            interrupt,
            limits,
            color: false,
            inputs: 0,
            print_limit: 0,
            failed: false,
            scope: None,
        })
    }

    /// The prompt for a new input.
    pub fn prompt(&self) -> String {
        match (&self.play, &self.chance_play) {
            (Some(p), _) if !p.over => format!("play {}> ", p.game.name),
            (_, Some(p)) if !p.over => format!("play {}> ", p.game.name),
            _ => format!("{}> ", self.module),
        }
    }

    /// The prompt for a continuation line.
    pub fn continuation_prompt(&self) -> String {
        "... ".to_string()
    }

    /// Is `text` an unfinished input, which the next line should continue? Decided by
    /// the parsers: a declaration that stops inside a declaration, a term that stops
    /// where more of a term could follow (an open parenthesis, `1 +`).
    pub fn unfinished(&mut self, text: &str) -> bool {
        let trimmed = text.trim_start();
        let Some(first) = trimmed.split_whitespace().next() else {
            return false;
        };
        let start = text.len() - trimmed.len();
        if self.playing() && first.parse::<usize>().is_ok() {
            return false;
        }
        if let Some(c) = commands::lookup(first) {
            if !matches!(c.cmd, Cmd::Reduce | Cmd::Moves | Cmd::Solve | Cmd::Play) {
                return false;
            }
            let Ok(args) = commands::split_args(text, start + first.len(), c.options) else {
                return false;
            };
            let module = if c.cmd == Cmd::Reduce {
                Some(self.current())
            } else {
                self.game_named(args.get("--game").map(|r| text[r].to_string()))
                    .map(|g| g.module)
            };
            return match module {
                Some(m) => self.session.term_unfinished(m, &text[args.term]),
                None => false,
            };
        }
        if commands::ITEM_KEYWORDS.contains(&first) {
            return gamelang_lang::elab::extend::items_unfinished(text);
        }
        if commands::DECLARATION_KEYWORDS.contains(&first) {
            return gamelang_lang::elab::extend::declarations_unfinished(text);
        }
        let m = self.current();
        self.session.term_unfinished(m, text)
    }

    /// Forget an earlier Ctrl-C. Front ends call this before reading the next input, so
    /// that a Ctrl-C pressed after that (once the input is read) stops its computation,
    /// however early it comes.
    pub fn clear_interrupt(&self) {
        self.interrupt.store(false, Ordering::SeqCst);
    }

    /// Run one complete input.
    pub fn execute(&mut self, text: &str) -> Reply {
        let mut r = Reply::default();
        let trimmed = text.trim();
        if trimmed.is_empty() || trimmed.starts_with("---") || trimmed.starts_with("***") {
            return r;
        }
        self.inputs += 1;
        let first = trimmed.split_whitespace().next().unwrap_or("");
        let start = text.len() - text.trim_start().len();
        let args_at = start + first.len();
        let number = first == trimmed && first.parse::<usize>().is_ok();
        let result = if number && self.chance_play.as_ref().is_some_and(|p| !p.over) {
            self.chance_pick(text, &mut r)
        } else if number && self.playing() {
            self.pick(text, &mut r)
        } else if number && (self.play.is_some() || self.chance_play.is_some()) {
            Err(Diag::error("the game is over").note(
                "`undo` takes back your last move, `play` starts a new game, `stop` leaves it",
            ))
        } else if let Some(c) = commands::lookup(first) {
            self.command(c, text, args_at, &mut r)
        } else if commands::ITEM_KEYWORDS.contains(&first) {
            self.items(text, &mut r)
        } else if commands::DECLARATION_KEYWORDS.contains(&first) {
            self.declarations(text, &mut r)
        } else {
            let file = self.input(text);
            self.reduce(file, 0..text.len(), &mut r).map_err(|d| {
                // `movs (2 5)`: a mistyped command is read as a term; say so.
                let hints = suggest(first, commands::COMMANDS.iter().map(|c| c.name));
                if hints.is_empty() || !d.message.contains(&format!("`{first}`")) {
                    return d;
                }
                d.note(format!(
                    "`{first}` is not a command either: did you mean `{}`?",
                    hints.join("` or `")
                ))
            })
        };
        if let Err(d) = result {
            self.fail(&d, &mut r);
        }
        r
    }

    /// Load `path` before the first prompt. `quiet`: print nothing when it loads.
    pub fn load_startup(&mut self, path: &Path, quiet: bool) -> Reply {
        let mut r = Reply::default();
        if let Err(d) = self.load(path, true, &mut r) {
            self.fail(&d, &mut r);
        }
        if quiet {
            r.parts.retain(|p| matches!(p, Part::Err(_)));
        }
        r
    }

    /// Select a game at start-up (`gamelang repl FILE --game NAME`). `quiet`: print
    /// nothing when it works.
    pub fn select_startup(&mut self, name: &str, quiet: bool) -> Reply {
        let mut r = Reply::default();
        if let Err(d) = self.select(name, None, &mut r) {
            self.fail(&d, &mut r);
        }
        if quiet {
            r.parts.retain(|p| matches!(p, Part::Err(_)));
        }
        r
    }

    /// Names for tab completion.
    pub fn vocabulary(&mut self) -> Vocabulary {
        let m = self.current();
        let grammar = self.session.grammar(m);
        let mut words: Vec<String> = grammar
            .syms
            .iter()
            .flat_map(|s| s.form.iter())
            .filter_map(|p| match p {
                gamelang_lang::program::PatPiece::Lit(l)
                    if !matches!(l.as_str(), "(" | ")" | "," | "[" | "]" | "{" | "}") =>
                {
                    Some(l.clone())
                }
                _ => None,
            })
            .collect();
        words.sort();
        words.dedup();
        let mut sorts: Vec<String> = self.session.modules[m]
            .sorts
            .keys()
            .filter(|s| s.as_str() != "Universal")
            .cloned()
            .collect();
        sorts.sort();
        let mut modules: Vec<String> = self
            .session
            .modules
            .iter()
            .filter(|m| !show::schematic(m))
            .map(|m| m.name.clone())
            .chain(self.session.games.iter().map(|g| g.name.clone()))
            .collect();
        modules.sort();
        modules.dedup();
        Vocabulary {
            words,
            sorts,
            modules,
        }
    }

    // ----- plumbing ---------------------------------------------------------------------

    fn fail(&mut self, d: &Diag, r: &mut Reply) {
        self.failed = true;
        r.err(d.render(&self.session.sources, self.color));
    }

    /// Register an input as a source of the session, for diagnostics.
    fn input(&mut self, text: &str) -> FileId {
        let name = format!("<input {}>", self.inputs);
        self.session.add_input(&name, text)
    }

    fn playing(&self) -> bool {
        self.play.as_ref().is_some_and(|p| !p.over)
    }

    /// The current module (the default one if the current one is gone).
    fn current(&self) -> ModuleId {
        self.session
            .module_by_name(&self.module)
            .or_else(|| self.session.module_by_name(DEFAULT_MODULE))
            .unwrap_or(0)
    }

    /// Reduce `t`, as a diagnostic on failure.
    fn reduce_term(&mut self, t: TermId) -> Result<TermId, Diag> {
        self.engine.reduce(t).map_err(|e| {
            let interrupted = matches!(e, RuntimeError::Interrupted { .. });
            let failure = self.engine.failure(e);
            // A term typed (or a file's `reduce`), not a game's search: the runtime's
            // wording (`driver::diagnose` says a cycle in a game's terms).
            let d = gamelang_runtime::diagnose::failure(&self.engine, &failure);
            let mut d = self.at_the_prompt(d, &SolveError::Runtime(failure));
            if interrupted {
                // Name the term typed, not the one the engine was on at that moment.
                d.message = driver::interrupted_message(&self.engine, t);
            }
            d
        })
    }

    fn arg_error(&mut self, file: FileId, e: ArgError) -> Diag {
        let mut d = Diag::at(Span::new(file, e.at.start, e.at.end), e.message, e.label);
        if let Some(n) = e.note {
            d = d.note(n);
        }
        d
    }

    // ----- commands -----------------------------------------------------------------------

    fn command(
        &mut self,
        c: &'static CommandInfo,
        text: &str,
        at: usize,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        let rest = text[at..].trim();
        let no_args = |c: &CommandInfo| -> Result<(), Diag> {
            if rest.is_empty() || rest.starts_with("---") {
                Ok(())
            } else {
                Err(Diag::error(format!("`{}` takes no arguments", c.name))
                    .note(format!("usage: {}", commands::usage(c))))
            }
        };
        match c.cmd {
            Cmd::Reduce => {
                let file = self.input(text);
                let args = commands::split_args(text, at, c.options)
                    .map_err(|e| self.arg_error(file, e))?;
                self.reduce(file, args.term, r)
            }
            Cmd::Moves | Cmd::Solve | Cmd::Value | Cmd::Play => {
                let file = self.input(text);
                let args = commands::split_args(text, at, c.options)
                    .map_err(|e| self.arg_error(file, e))?;
                let result = match c.cmd {
                    Cmd::Moves => self.moves(file, &args, r),
                    Cmd::Solve => self.solve(file, &args, r),
                    Cmd::Value => self.value(file, &args, r),
                    _ => self.start_play(file, &args, r),
                };
                // A run-time error is about the configuration typed, or the game's.
                result.map_err(|d| {
                    if !args.term.is_empty() {
                        let at = Span::new(file, args.term.start, args.term.end);
                        return locate(d, at, "from this configuration");
                    }
                    let game = args.get("--game").map(|g| text[g].to_string());
                    match self.game_named(game) {
                        Some(g) => locate(d, g.span, "in this game"),
                        None => d,
                    }
                })
            }
            Cmd::Undo => {
                no_args(c)?;
                if self.chance_play.is_some() {
                    return self.chance_undo(r);
                }
                self.undo(r)
            }
            Cmd::Hint => {
                no_args(c)?;
                if self.chance_play.is_some() {
                    return self.chance_hint(r);
                }
                self.hint(r)
            }
            Cmd::Stop => {
                no_args(c)?;
                if let Some(p) = self.chance_play.take() {
                    if !p.over {
                        r.out(format!("left the game {}\n", p.game.name));
                        return Ok(());
                    }
                }
                match self.play.take() {
                    Some(p) if !p.over => r.out(format!("left the game {}\n", p.game.name)),
                    _ => r.out("no game is being played\n"),
                }
                Ok(())
            }
            Cmd::Load => {
                let path = rest.trim_matches(|c| c == '"' || c == '\'');
                if path.is_empty() {
                    return Err(Diag::error("`load` needs a file").note("usage: load FILE"));
                }
                self.load(Path::new(path), false, r)
            }
            Cmd::Reload => {
                no_args(c)?;
                self.reload(r)
            }
            Cmd::Show => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let what = words.first().copied().unwrap_or("");
                if !commands::SHOWABLE.contains(&what) {
                    return Err(Diag::error(if what.is_empty() {
                        "`show` needs what to show".to_string()
                    } else {
                        format!("cannot show `{what}`")
                    })
                    .note(format!("usage: {}", commands::usage(c))));
                }
                let name = rest[what.len()..].trim();
                if what == "modules" {
                    if !name.is_empty() {
                        return Err(Diag::error("`show modules` takes no arguments"));
                    }
                    r.out(self.show_modules());
                    return Ok(());
                }
                if what == "profile" {
                    return match name {
                        "" => self.show_profile(r, crate::profile::Format::Table),
                        "json" => self.show_profile(r, crate::profile::Format::Json),
                        _ => Err(Diag::error(format!("cannot show the profile as `{name}`"))
                            .note("usage: show profile | show profile json")),
                    };
                }
                let m = if name.is_empty() {
                    self.current()
                } else {
                    let file = self.input(text);
                    let start = text.rfind(name).unwrap_or(0);
                    self.module_arg(name, Span::new(file, start, start + name.len()))?
                };
                r.out(if what == "sorts" {
                    self.show_sorts(m)
                } else {
                    self.show_ops(m)
                });
                Ok(())
            }
            Cmd::Select => {
                if rest.is_empty() {
                    return Err(Diag::error("`select` needs a module or game")
                        .note("usage: select MODULE | GAME (`modules` lists them)"));
                }
                let file = self.input(text);
                let start = at + (text[at..].len() - text[at..].trim_start().len());
                self.select(rest, Some((file, start..start + rest.len())), r)
            }
            Cmd::Set => self.set(rest, r),
            Cmd::Help => {
                if rest.is_empty() {
                    r.out(commands::overview());
                    return Ok(());
                }
                match commands::lookup(rest) {
                    Some(c) => {
                        r.out(commands::detail(c));
                        Ok(())
                    }
                    None => {
                        let names = commands::COMMANDS.iter().map(|c| c.name);
                        let mut d = Diag::error(format!("no command `{rest}`"));
                        let hints = suggest(rest, names);
                        if !hints.is_empty() {
                            d = d.note(format!("did you mean `{}`?", hints.join("` or `")));
                        }
                        Err(d.note("`help` lists the commands"))
                    }
                }
            }
            Cmd::Quit => {
                no_args(c)?;
                r.quit = true;
                Ok(())
            }
        }
    }

    /// A module (or game) named on a command line, at `at`.
    fn module_arg(&mut self, name: &str, at: Span) -> Result<ModuleId, Diag> {
        if let Some(m) = self.session.module_by_name(name) {
            return Ok(m);
        }
        if let Some(g) = self.session.games.iter().rev().find(|g| g.name == name) {
            return Ok(g.module);
        }
        Err(self.unknown_module(name, at))
    }

    fn unknown_module(&mut self, name: &str, at: Span) -> Diag {
        if let Some(d) = self.session.parameterised_error(name) {
            return d.primary(at, "a parameterised module");
        }
        let names = self.vocabulary().modules;
        let mut d = Diag::at(
            at,
            format!("no module or game `{name}` is loaded"),
            "unknown name",
        );
        let hints = suggest(name, names.iter().map(String::as_str));
        if !hints.is_empty() {
            d = d.note(format!("did you mean `{}`?", hints.join("` or `")));
        }
        d.note("`show modules` lists what is loaded")
    }

    /// Give the engine the program as the modules `roots` see it (the module a term is
    /// reduced in, a game's: `Session::program_for`), and the grown signature of a term
    /// typed at the prompt (string literals are interned on first use). Switching drops
    /// the memo tables, which is rare (a string never seen before; a file where a module
    /// adds equations to an operator another module declares, and the question moves
    /// between modules that see different ones) and only costs time.
    pub(super) fn sync_program(&mut self, roots: &[ModuleId]) {
        let grown = self.engine.program().sig.ops.len() != self.session.program.sig.ops.len();
        match self.session.program_for(roots) {
            None => {
                if grown || self.scope.is_some() {
                    self.engine
                        .set_program(Arc::new(self.session.program.clone()));
                    self.scope = None;
                }
            }
            Some(p) => {
                if grown || self.scope.as_deref() != Some(roots) {
                    self.engine.set_program(Arc::new(p));
                    self.scope = Some(roots.to_vec());
                }
            }
        }
    }

    /// The engine was given the session's whole program (after a load, a declaration, a
    /// parameter set): [`Backend::sync_program`] scopes it again where needed.
    fn whole_program(&mut self) {
        self.engine
            .set_program(Arc::new(self.session.program.clone()));
        self.scope = None;
    }

    fn reduce(&mut self, file: FileId, term: Range<usize>, r: &mut Reply) -> Result<(), Diag> {
        let m = self.current();
        let at = Span::new(file, term.start, term.end);
        let pat = self.session.parse_term_in(m, file, term, None)?;
        self.reduce_and_show(&pat, m, at, None, r)
    }

    /// Reduce the term `pat` (written at `at`) and print its normal form, its sort and the
    /// rewrites it took, as `gamelang reduce` does; a file's `reduce` command is first
    /// announced as `reduce in MODULE : TERM .` (`announce_in`: its module).
    pub(super) fn reduce_and_show(
        &mut self,
        pat: &gamelang_lang::program::Pat,
        module: ModuleId,
        at: Span,
        announce_in: Option<&str>,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        self.sync_program(&[module]);
        let t = self.engine.build(pat, &[]);
        if let Some(module) = announce_in {
            r.out(format!("reduce in {module} : {} .\n", self.engine.show(t)));
        }
        let (steps, began) = (self.engine.steps(), Instant::now());
        let v = self
            .reduce_term(t)
            .map_err(|d| locate(d, at, "while reducing this"))?;
        let elapsed = began.elapsed();
        let sig = &self.engine.program().sig;
        let sort = self.engine.store().sort_of(v);
        let sort = sig
            .sorts
            .get(sort.0 as usize)
            .map_or("?", |s| s.name.as_str());
        let shown = match self.print_limit {
            0 => self.engine.show(v),
            n => self.engine.show_limited(v, n),
        };
        r.out(format!("result {sort}: {shown}\n"));
        r.out(format!(
            "rewrites: {}   time: {:.3} ms\n",
            self.engine.steps() - steps,
            elapsed.as_secs_f64() * 1e3
        ));
        Ok(())
    }

    /// `show profile [json]`: the counts since `set profile on` or the last `show profile`,
    /// which start again from zero, as a table or as one line of JSON.
    pub(super) fn show_profile(
        &mut self,
        r: &mut Reply,
        format: crate::profile::Format,
    ) -> Result<(), Diag> {
        let Some(profile) = self.engine.take_profile() else {
            return Err(Diag::error("no profile is being recorded")
                .note("`set profile on` first, then run what you want counted"));
        };
        let mut text = Vec::new();
        let _ = crate::profile::write_as(
            &mut text,
            &profile,
            self.engine.program(),
            &self.session.sources,
            format,
        );
        r.out(String::from_utf8_lossy(&text).into_owned());
        Ok(())
    }

    /// `set NAME VALUE` for a parameter of `game` (its name, parameters and module),
    /// whose equations are those of `roots`: the defining equation replaced, unless the
    /// game's `requires` then fail (the parameter keeps its value); the memo tables,
    /// computed with the old value, dropped.
    fn set_parameter(
        &mut self,
        (game, params, module): (&str, &[(String, gamelang_lang::program::OpId)], ModuleId),
        roots: &[ModuleId],
        requires: &[gamelang_lang::elab::Requirement],
        name: &str,
        value: &str,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        let assignment = format!("{name}={value}");
        let before = self.session.program.clone();
        // (Named as typed: the user wrote no `--set`.)
        self.session
            .set_parameter_of("set", game, params, module, &assignment)?;
        if let Err(d) = crate::app::check_requirements(&self.session, roots, game, params, requires)
        {
            self.session.program = before;
            return Err(d);
        }
        self.whole_program();
        self.log.push(Entry::Param {
            game: game.to_string(),
            assignment,
        });
        r.out(format!("{name} = {value}\n"));
        Ok(())
    }

    fn set(&mut self, rest: &str, r: &mut Reply) -> Result<(), Diag> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            [] => {
                r.out(format!(
                    "max-steps {}\nmax-nesting {}\nprint-limit {}\nprofile {}\n",
                    self.limits.max_steps,
                    self.limits.max_depth,
                    self.print_limit,
                    if self.engine.profiling() { "on" } else { "off" }
                ));
                Ok(())
            }
            ["profile", value @ ("on" | "off")] => {
                self.engine.set_profiling(*value == "on");
                r.out(format!("profile {value}\n"));
                Ok(())
            }
            ["profile", ..] => Err(Diag::error(format!("cannot set `{rest}`"))
                .note("usage: set profile on | set profile off")),
            [name, value] if commands::SETTINGS.contains(name) => {
                let n: u64 = value.replace('_', "").parse().map_err(|_| {
                    Diag::error(format!("`{value}` is not a number"))
                        .note(format!("e.g. `set {name} 1000000`"))
                })?;
                if *name == "print-limit" {
                    self.print_limit = usize::try_from(n).unwrap_or(usize::MAX);
                    r.out(format!("{name} {n}\n"));
                    return Ok(());
                }
                if n == 0 {
                    return Err(Diag::error(format!("{name} must be at least 1")));
                }
                match *name {
                    "max-steps" => self.limits.max_steps = n,
                    _ => self.limits.max_depth = usize::try_from(n).unwrap_or(usize::MAX),
                }
                self.engine.limits = self.limits;
                r.out(format!("{name} {n}\n"));
                Ok(())
            }
            [name, value]
                if self
                    .game_named(None)
                    .is_some_and(|g| g.params.iter().any(|(p, _)| p == name)) =>
            {
                // A game parameter, as `--set name=value`: its defining equation is replaced
                // and the memo tables (computed with the old value) are dropped.
                let g = self.game_named(None).expect("checked").clone();
                let game = (g.name.as_str(), g.params.as_slice(), g.module);
                self.set_parameter(game, &g.modules(), &g.requires, name, value, r)
            }
            [name, value]
                if self.game_named(None).is_none()
                    && self
                        .current_chance_game()
                        .is_some_and(|g| g.params.iter().any(|(p, _)| p == name)) =>
            {
                // The same for the current chance game.
                let g = self.current_chance_game().expect("checked").clone();
                let game = (g.name.as_str(), g.params.as_slice(), g.module);
                self.set_parameter(game, &[g.module], &g.requires, name, value, r)
            }
            _ => {
                // The current game, two-player or chance, and its parameters.
                let current: Option<(String, Vec<String>)> = match self.game_named(None) {
                    Some(g) => Some((
                        g.name.clone(),
                        g.params.iter().map(|(p, _)| p.clone()).collect(),
                    )),
                    None => self.current_chance_game().map(|g| {
                        (
                            g.name.clone(),
                            g.params.iter().map(|(p, _)| p.clone()).collect(),
                        )
                    }),
                };
                let message = match (words.as_slice(), &current) {
                    ([name, _], Some((game, _))) => format!(
                        "cannot set `{rest}`: `{name}` is neither a setting nor a parameter of game `{game}`"
                    ),
                    _ => format!("cannot set `{rest}`"),
                };
                let mut d = Diag::error(message).note(
                    "usage: set [max-steps N | max-nesting N | print-limit N | profile on|off | PARAMETER VALUE]",
                );
                if let Some((game, params)) = &current {
                    d = d.note(match params.is_empty() {
                        true => format!("game `{game}` has no parameters"),
                        false => format!("game `{game}`'s parameters: {}", params.join(", ")),
                    });
                }
                Err(d)
            }
        }
    }

    fn select(
        &mut self,
        name: &str,
        at: Option<(FileId, Range<usize>)>,
        r: &mut Reply,
    ) -> Result<(), Diag> {
        if let Some(g) = self.session.games.iter().rev().find(|g| g.name == name) {
            let module = self.session.modules[g.module].name.clone();
            self.game = Some(g.name.clone());
            self.chance_game = None;
            self.module = module;
            r.out(format!(
                "current game: {name}; current module: {}\n",
                self.module
            ));
            return Ok(());
        }
        if let Some(g) = self
            .session
            .chance_games
            .iter()
            .rev()
            .find(|g| g.name == name)
        {
            // A chance game: it becomes the current game (of `solve`, `value`, `play` and
            // `set`), and its module the current one.
            self.module = self.session.modules[g.module].name.clone();
            self.game = None;
            self.chance_game = Some(name.to_string());
            r.out(format!(
                "current game: {name} (a chance game); current module: {}\n",
                self.module
            ));
            return Ok(());
        }
        match self.session.module_by_name(name) {
            Some(m) => {
                self.module = self.session.modules[m].name.clone();
                r.out(format!("current module: {}\n", self.module));
                Ok(())
            }
            None => {
                let span = match at {
                    Some((file, range)) => Span::new(file, range.start, range.end),
                    None => {
                        let file = self.session.add_input("--game", name);
                        Span::new(file, 0, name.len())
                    }
                };
                Err(self.unknown_module(name, span))
            }
        }
    }
}

/// Give a diagnostic without a primary label (a run-time error) one: the input it arose
/// from.
fn locate(d: Diag, at: Span, label: &str) -> Diag {
    if d.span().is_some() {
        d
    } else {
        d.primary(at, label)
    }
}

/// A fresh engine for a session's program, with the REPL's interrupt flag and limits.
fn new_engine(session: &Session, interrupt: &Arc<AtomicBool>, limits: Limits) -> Engine {
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.interrupt = interrupt.clone();
    engine.limits = limits;
    engine
}

#[cfg(test)]
mod tests;
