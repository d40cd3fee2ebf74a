//! The REPL backend: everything the REPL does, independent of how lines are read. A front
//! end (the line editor, or plain standard input) hands it complete inputs and prints the
//! [`Reply`]; it asks [`Backend::unfinished`] whether to read another line first.
//!
//! State: an elaboration [`Session`] and an [`Engine`] over its program, plus a log of
//! what was loaded (files, and modules and declarations typed at the prompt), from which
//! the session is rebuilt on `load` and `reload`, and after an input that failed half-way
//! (so that an input either applies entirely or not at all). An error never ends the
//! session: it is rendered into the reply and the state stays as it was.

mod play;
mod show;

use super::commands::{self, ArgError, Args, Cmd, CommandInfo};
use gamelang_game::{self as driver, GameDriver, Side, SolveError};
use gamelang_lang::diag::{suggest, Diag};
use gamelang_lang::elab::{Game, Loaded, ModuleId, Session};
use gamelang_lang::parser;
use gamelang_lang::program::Pat;
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::error::RuntimeError;
use gamelang_runtime::{Engine, Limits, TermId};
use play::Play;
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
    play: Option<Play>,
    interrupt: Arc<AtomicBool>,
    limits: Limits,
    /// Render diagnostics with ANSI colours.
    pub color: bool,
    inputs: usize,
    /// `set print-limit N`: cut printed normal forms after about N bytes (0: in full).
    print_limit: usize,
    /// Some input failed (a script's exit status).
    pub failed: bool,
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
            play: None,
            interrupt,
            limits,
            color: false,
            inputs: 0,
            print_limit: 0,
            failed: false,
        })
    }

    /// The prompt for a new input.
    pub fn prompt(&self) -> String {
        match &self.play {
            Some(p) if !p.over => format!("play {}> ", p.game.name),
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
        let result = if number && self.playing() {
            self.pick(text, &mut r)
        } else if number && self.play.is_some() {
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

    fn game_named(&self, name: Option<String>) -> Option<&Game> {
        let name = name.or_else(|| self.game.clone())?;
        self.session.games.iter().rev().find(|g| g.name == name)
    }

    /// A run-time error as a diagnostic, with what to do about it in the REPL.
    fn runtime_diag(&self, e: &SolveError) -> Diag {
        let mut d = driver::diagnose(&self.engine, e);
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

    /// Reduce `t`, as a diagnostic on failure.
    fn reduce_term(&mut self, t: TermId) -> Result<TermId, Diag> {
        self.engine.reduce(t).map_err(|e| {
            let interrupted = matches!(e, RuntimeError::Interrupted { .. });
            let f = SolveError::Runtime(self.engine.failure(e));
            let mut d = self.runtime_diag(&f);
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
                self.undo(r)
            }
            Cmd::Hint => {
                no_args(c)?;
                self.hint(r)
            }
            Cmd::Stop => {
                no_args(c)?;
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

    /// A term typed at the prompt may have added constants (string literals are interned on
    /// first use): give the engine the grown signature. This drops its memo tables, which is
    /// rare (a string never seen before) and only costs time.
    fn sync_signature(&mut self) {
        if self.engine.program().sig.ops.len() != self.session.program.sig.ops.len() {
            self.engine
                .set_program(Arc::new(self.session.program.clone()));
        }
    }

    fn reduce(&mut self, file: FileId, term: Range<usize>, r: &mut Reply) -> Result<(), Diag> {
        let m = self.current();
        let at = Span::new(file, term.start, term.end);
        let pat = self.session.parse_term_in(m, file, term, None)?;
        self.sync_signature();
        let t = self.engine.build(&pat, &[]);
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

    /// The game a command is about: `--game NAME` or the current one.
    fn pick_game(&mut self, file: FileId, args: &Args, text_of: &str) -> Result<Game, Diag> {
        let wanted = args.get("--game");
        if let Some(range) = wanted.clone() {
            let name = &text_of[range.clone()];
            if let Some(g) = self.session.games.iter().rev().find(|g| g.name == name) {
                return Ok(g.clone());
            }
            let names: Vec<String> = self.session.games.iter().map(|g| g.name.clone()).collect();
            let mut d = Diag::at(
                Span::new(file, range.start, range.end),
                format!("no game `{name}` is loaded"),
                "unknown game",
            );
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
            None => Err(Diag::error("no game is loaded").note(
                "load a file that declares one (`load examples/heaps.game`), or type a \
                 `game NAME is instance WINS{View} . start TERM . endgame` block",
            )),
        }
    }

    /// The configuration (reduced) and the player to move given by a command's arguments,
    /// with the game's `start` and `first` as defaults; also as patterns, for `solve`.
    fn position(
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
        self.sync_signature();
        let d = GameDriver::new(&mut self.engine, game).map_err(|e| self.runtime_diag(&e))?;
        let c = self.engine.build(&config, &[]);
        let c = self.reduce_term(c)?;
        let p = self.engine.build(&first, &[]);
        let p = d
            .side(&mut self.engine, p)
            .map_err(|e| self.runtime_diag(&e))?;
        Ok((config, first, c, p))
    }

    fn moves(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
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

    fn solve(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
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
            r.out(crate::solve::bounded_text(&self.engine, &game, &b));
            return Ok(());
        }
        let o = driver::solve(&mut self.engine, &game, &config, &first)
            .map_err(|e| self.runtime_diag(&e))?;
        r.out(crate::solve::to_text(&self.engine, &game, &o, SHOW_PLIES));
        Ok(())
    }

    fn value(&mut self, file: FileId, args: &Args, r: &mut Reply) -> Result<(), Diag> {
        let text = self.session.sources.text(file).to_string();
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

    fn set(&mut self, rest: &str, r: &mut Reply) -> Result<(), Diag> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            [] => {
                r.out(format!(
                    "max-steps {}\nmax-nesting {}\nprint-limit {}\n",
                    self.limits.max_steps, self.limits.max_depth, self.print_limit
                ));
                Ok(())
            }
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
                let game = self.game_named(None).expect("checked").clone();
                self.session
                    .set_parameter(&game, &format!("{name}={value}"))?;
                self.engine
                    .set_program(std::sync::Arc::new(self.session.program.clone()));
                r.out(format!("{name} = {value}\n"));
                Ok(())
            }
            _ => {
                let params: Vec<String> = self
                    .game_named(None)
                    .map(|g| g.params.iter().map(|(p, _)| p.clone()).collect())
                    .unwrap_or_default();
                let mut d = Diag::error(format!("cannot set `{rest}`")).note(
                    "usage: set [max-steps N | max-nesting N | print-limit N | PARAMETER VALUE]",
                );
                if !params.is_empty() {
                    d = d.note(format!(
                        "the current game's parameters: {}",
                        params.join(", ")
                    ));
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
            self.module = module;
            r.out(format!(
                "current game: {name}; current module: {}\n",
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

    // ----- loading ------------------------------------------------------------------------

    /// Load a file. `remember`: if it has errors, keep it in the log anyway, so that
    /// `reload` tries it again (the file given on the command line).
    fn load(&mut self, path: &Path, remember: bool, r: &mut Reply) -> Result<(), Diag> {
        let text = gamelang_lang::span::read_source(path).map_err(Diag::error)?;
        let same = |p: &Path| {
            p == path || matches!((p.canonicalize(), path.canonicalize()), (Ok(a), Ok(b)) if a == b)
        };
        let mut log = self.log.clone();
        let index = match log
            .iter()
            .position(|e| matches!(e, Entry::File { path: p, .. } if same(p)))
        {
            Some(i) => {
                log[i] = Entry::File {
                    path: path.to_path_buf(),
                    text: Some(text),
                };
                i
            }
            None => {
                log.push(Entry::File {
                    path: path.to_path_buf(),
                    text: Some(text),
                });
                log.len() - 1
            }
        };
        match build(&log, self.color) {
            Ok((session, loaded)) => {
                self.install(session, log, r);
                let what = self.adopt(&loaded[index]);
                r.out(format!("loaded {}{what}\n", path.display()));
                Ok(())
            }
            Err(Failed { rendered: errors }) => {
                self.failed = true;
                for d in &errors {
                    r.err(d.clone());
                }
                // Remember the file, so that `reload` tries it again once it is fixed.
                if remember
                    && !self
                        .log
                        .iter()
                        .any(|e| matches!(e, Entry::File { path: p, .. } if same(p)))
                {
                    self.log.push(Entry::File {
                        path: path.to_path_buf(),
                        text: None,
                    });
                }
                let n = errors.len();
                Err(Diag::error(format!(
                    "{} could not be loaded ({n} error{}); fix it and {}",
                    path.display(),
                    if n == 1 { "" } else { "s" },
                    if remember {
                        "`reload`"
                    } else {
                        "`load` it again"
                    }
                )))
            }
        }
    }

    fn reload(&mut self, r: &mut Reply) -> Result<(), Diag> {
        let mut log = self.log.clone();
        let mut files = Vec::new();
        for e in &mut log {
            if let Entry::File { path, text } = e {
                let t = gamelang_lang::span::read_source(path).map_err(Diag::error)?;
                *text = Some(t);
                files.push(path.display().to_string());
            }
        }
        if files.is_empty() {
            r.out("no files to reload\n");
            return Ok(());
        }
        match build(&log, self.color) {
            Ok((session, _)) => {
                self.install(session, log, r);
                if self.game_named(None).is_none() {
                    self.game = self.session.games.first().map(|g| g.name.clone());
                }
                r.out(format!(
                    "reloaded {} (memo tables dropped)\n",
                    files.join(", ")
                ));
                Ok(())
            }
            Err(Failed { rendered: errors }) => {
                self.failed = true;
                for d in &errors {
                    r.err(d.clone());
                }
                Err(Diag::error(format!(
                    "reload failed ({} error{}); the previous version stays loaded",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" }
                )))
            }
        }
    }

    /// Switch to a rebuilt session: a new engine (memo tables dropped), the game being
    /// played abandoned, the current module kept if it still exists.
    fn install(&mut self, session: Session, log: Vec<Entry>, r: &mut Reply) {
        self.session = session;
        self.log = log;
        self.engine = new_engine(&self.session, &self.interrupt, self.limits);
        if let Some(p) = self.play.take() {
            if !p.over {
                r.out(format!(
                    "(the game of {} being played was abandoned: the program changed)\n",
                    p.game.name
                ));
            }
        }
        if self.session.module_by_name(&self.module).is_none() {
            self.module = DEFAULT_MODULE.to_string();
        }
    }

    /// Make what an input declared current: its first game (and that game's instance),
    /// else its last module. Returns a description for the user.
    fn adopt(&mut self, loaded: &Loaded) -> String {
        let mut parts = Vec::new();
        if !loaded.modules.is_empty() {
            let names: Vec<&str> = loaded
                .modules
                .iter()
                .map(|&m| self.session.modules[m].name.as_str())
                .collect();
            parts.push(format!(
                "module{} {}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        if !loaded.games.is_empty() {
            let names: Vec<&str> = loaded
                .games
                .iter()
                .map(|&g| self.session.games[g].name.as_str())
                .collect();
            parts.push(format!(
                "game{} {}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        if let Some(&g) = loaded.games.first() {
            let game = &self.session.games[g];
            self.game = Some(game.name.clone());
            self.module = self.session.modules[game.module].name.clone();
        } else if let Some(&m) = loaded.modules.last() {
            self.module = self.session.modules[m].name.clone();
        }
        let mut out = String::new();
        if !parts.is_empty() {
            out = format!(": {}", parts.join("; "));
        }
        out.push_str(&format!(" (current module: {})", self.module));
        out
    }

    /// `fmod … endfm`, `view …`, `game …` typed at the prompt.
    fn items(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
        let origin = format!("<input {}>", self.inputs);
        if let Err(e) = parser::parse_file(FileId(usize::MAX), text) {
            // Nothing is registered yet: report against the input alone.
            let file = self.session.add_input(&origin, text);
            let e = parser::ParseError {
                span: Span { file, ..e.span },
                ..e
            };
            return Err(gamelang_lang::elab::parse_diag(&e));
        }
        match self.session.load_source(&origin, text) {
            Ok(loaded) => {
                self.log.push(Entry::Items {
                    origin,
                    text: text.to_string(),
                });
                self.engine
                    .set_program(Arc::new(self.session.program.clone()));
                let what = self.adopt(&loaded);
                r.out(format!("declared{what}\n"));
                Ok(())
            }
            Err(errors) => self.undo_failed_input(errors, r),
        }
    }

    /// Declarations typed at the prompt: added to the current module.
    fn declarations(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
        let origin = format!("<input {}>", self.inputs);
        let file = self.session.add_input(&origin, text);
        if let Err(e) = parser::parse_decls(file, text) {
            return Err(gamelang_lang::elab::parse_diag(&e));
        }
        let m = self.current();
        let module = self.session.modules[m].name.clone();
        match self.session.extend_module(m, file) {
            Ok(added) => {
                self.log.push(Entry::Decls {
                    module: module.clone(),
                    origin,
                    text: text.to_string(),
                });
                self.engine
                    .set_program(Arc::new(self.session.program.clone()));
                r.out(format!(
                    "added to {module}: {} (memo tables dropped)\n",
                    added.describe()
                ));
                Ok(())
            }
            Err(errors) => self.undo_failed_input(errors, r),
        }
    }

    /// Report the errors of an input that may have changed the session half-way, then
    /// rebuild the session without it.
    fn undo_failed_input(&mut self, errors: Vec<Diag>, r: &mut Reply) -> Result<(), Diag> {
        self.failed = true;
        for d in &errors {
            r.err(d.render(&self.session.sources, self.color));
        }
        match build(&self.log, self.color) {
            // The same program as before the input (elaboration is deterministic): the
            // engine, its memo tables and a game being played stay valid.
            Ok((session, _)) if same_program(&session.program, self.engine.program()) => {
                self.session = session;
                Ok(())
            }
            Ok((session, _)) => {
                let log = self.log.clone();
                self.install(session, log, r);
                Ok(())
            }
            // The log loaded before, so this does not happen; keep the session as it is.
            Err(_) => Ok(()),
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

/// Do two programs declare the same sorts, operators and equations (as a rebuild from
/// the same inputs does)?
fn same_program(a: &gamelang_lang::program::Program, b: &gamelang_lang::program::Program) -> bool {
    a.sig.sorts.len() == b.sig.sorts.len()
        && a.equations.len() == b.equations.len()
        && a.sig.ops.len() == b.sig.ops.len()
        && a.sig
            .ops
            .iter()
            .zip(&b.sig.ops)
            .all(|(x, y)| x.name == y.name && x.args == y.args)
}

/// A fresh engine for a session's program, with the REPL's interrupt flag and limits.
fn new_engine(session: &Session, interrupt: &Arc<AtomicBool>, limits: Limits) -> Engine {
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    engine.interrupt = interrupt.clone();
    engine.limits = limits;
    engine
}

/// Why a rebuild failed: the errors, rendered (against the failed session's sources).
struct Failed {
    rendered: Vec<String>,
}

/// A session with everything in `log` loaded, and what each entry declared.
fn build(log: &[Entry], color: bool) -> Result<(Session, Vec<Loaded>), Failed> {
    let mut session = Session::new().expect("the standard library loaded before");
    let mut loaded = Vec::new();
    for e in log {
        let result = match e {
            Entry::File {
                path,
                text: Some(text),
            } => session.load_source(&path.display().to_string(), text),
            Entry::File { text: None, .. } => Ok(Loaded::default()),
            Entry::Items { origin, text } => session.load_source(origin, text),
            Entry::Decls {
                module,
                origin,
                text,
            } => {
                let file = session.add_input(origin, text);
                match session.module_by_name(module) {
                    Some(m) => session.extend_module(m, file).map(|_| Loaded::default()),
                    None => Err(vec![Diag::at(
                        Span::new(file, 0, text.len()),
                        format!("the module `{module}` these declarations were added to is gone"),
                        "typed at the prompt",
                    )]),
                }
            }
        };
        match result {
            Ok(l) => loaded.push(l),
            Err(errors) => {
                return Err(Failed {
                    rendered: errors
                        .iter()
                        .map(|d| d.render(&session.sources, color))
                        .collect(),
                })
            }
        }
    }
    Ok((session, loaded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend() -> Backend {
        let mut b = Backend::new(Arc::new(AtomicBool::new(false)), Limits::default())
            .expect("stdlib loads");
        let heaps = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
        let r = b.load_startup(Path::new(heaps), true);
        assert!(r.parts.is_empty(), "{:?}", r.parts);
        b
    }

    #[test]
    fn unfinished_is_decided_by_the_parsers() {
        let mut b = backend();
        for text in [
            "red next-heaps((2 5)",
            "red 1 +",
            "next-heaps(",
            "moves (2",
            "op f : Nat -> Nat",
            "eq f(1) = 2",
            "fmod A is\n  sort S .",
            "view V from GAME-TREE to A is",
        ] {
            assert!(b.unfinished(text), "{text:?} should ask for more");
        }
        for text in [
            "red next-heaps((2 5))",
            "red 1 + + 2",
            "w(R, (2 5))",
            "moves (2 5) --first B",
            "op f : Nat -> Nat .",
            "fmod A is sort S . endfm",
            "help",
            "load examples/heaps.game",
            "",
            "--- a comment",
        ] {
            assert!(!b.unfinished(text), "{text:?} should be complete");
        }
        // An option with no value is an error, not a continuation; the same goes for
        // an unknown command word that reads as an unknown operator.
        assert!(!b.unfinished("solve --first"));
    }

    #[test]
    fn a_failed_input_changes_nothing() {
        let mut b = backend();
        // The first declaration is fine, the second is not: neither is kept.
        let r = b.execute("op aa : -> Nat .\nop bb : -> Nta .");
        assert!(r.stderr().contains("unknown sort `Nta`"), "{}", r.stderr());
        let r = b.execute("aa");
        assert!(
            r.stderr().contains("unknown operator or variable `aa`"),
            "{}",
            r.stderr()
        );
        // The session is whole: the game still solves, the current module is the same.
        let r = b.execute("solve");
        assert!(r.stdout().contains("winner: R (Rebecca)"), "{}", r.stderr());
        assert_eq!(b.prompt(), "WINS{HeapsGame}> ");
        assert!(b.failed);
        // A game being played goes on after a failed declaration.
        assert!(b.execute("play").stdout().contains("your move (R)"));
        assert!(b.execute("op cc : -> Nta .").stderr().contains("Nta"));
        assert_eq!(b.prompt(), "play heaps> ");
        let r = b.execute("4");
        assert!(
            r.stdout().contains("you (R) play (2 5) -> (2 3)"),
            "{:?}",
            r.parts
        );
    }

    #[test]
    fn declarations_survive_a_reload() {
        let mut b = backend();
        let r = b.execute("op triple : Nat -> Nat .\neq triple(n:Nat) = 3 * n .");
        assert!(
            r.stdout().contains("1 operator, 1 equation"),
            "{:?}",
            r.parts
        );
        let r = b.execute("reload");
        assert!(r.stdout().contains("reloaded"), "{:?}", r.parts);
        let r = b.execute("triple(14)");
        assert_eq!(r.stdout().lines().next(), Some("result Nat: 42"));
    }

    #[test]
    fn select_and_vocabulary() {
        let mut b = backend();
        let v = b.vocabulary();
        for w in ["next-heaps", "w", "w-aux", "and-then", "if"] {
            assert!(v.words.iter().any(|x| x == w), "{w} in {:?}", v.words);
        }
        assert!(
            v.sorts.iter().any(|s| s == "Set{TwoHeaps}"),
            "{:?}",
            v.sorts
        );
        assert!(v.modules.iter().any(|m| m == "heaps"), "{:?}", v.modules);
        assert!(!v.modules.iter().any(|m| m == "WINS{X}"), "{:?}", v.modules);
        let r = b.execute("select TWO-HEAPS");
        assert_eq!(r.stdout(), "current module: TWO-HEAPS\n");
        assert_eq!(b.prompt(), "TWO-HEAPS> ");
        assert!(!b.vocabulary().words.iter().any(|w| w == "next-heaps"));
        let r = b.execute("select heaps");
        assert!(r.stdout().contains("current game: heaps"), "{}", r.stdout());
        let r = b.execute("select NOPE");
        assert!(
            r.stderr().contains("no module or game `NOPE`"),
            "{}",
            r.stderr()
        );
    }

    #[test]
    fn ops_and_sorts_listings() {
        let mut b = backend();
        let out = b.execute("show ops HEAPS-GAME").stdout();
        assert!(
            out.starts_with("operators of HEAPS-GAME:\n  --- from HEAPS-GAME\n"),
            "{out}"
        );
        assert!(
            out.contains("  op next-heaps : TwoHeaps -> Set{TwoHeaps} .\n"),
            "{out}"
        );
        assert!(
            out.contains("op (__) : Nat Nat -> TwoHeaps [ctor] ."),
            "{out}"
        );
        let out = b.execute("show ops").stdout();
        assert!(
            out.contains("parameter operators, mapped to terms by a view"),
            "{out}"
        );
        assert!(
            out.contains("op next-config : Players TwoHeaps -> Set{TwoHeaps} ."),
            "{out}"
        );
        let out = b.execute("show sorts").stdout();
        assert!(
            out.contains("  TwoHeaps < Set{TwoHeaps}   (also written Config, X$Config)\n"),
            "{out}"
        );
        assert!(out.contains("  Nat < Int\n"), "{out}");
    }

    #[test]
    fn settings() {
        let mut b = backend();
        assert_eq!(
            b.execute("set max-steps 1_000").stdout(),
            "max-steps 1000\n"
        );
        assert!(b
            .execute("set")
            .stdout()
            .starts_with("max-steps 1000\nmax-nesting "));
        assert!(b
            .execute("set max-steps lots")
            .stderr()
            .contains("`lots` is not a number"));
        assert!(b
            .execute("set colour on")
            .stderr()
            .contains("cannot set `colour on`"));
        let r = b.execute("quit now");
        assert!(!r.quit);
        assert!(b.execute("quit").quit);
    }
}
