//! Loading: files, and modules and declarations typed at the prompt, kept in a log from
//! which the session is rebuilt (`load`, `reload`, and after an input that failed half-way).

use super::{new_engine, Backend, Entry, Reply, DEFAULT_MODULE};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::{FileSetting, Loaded, Session};
use gamelang_lang::parser;
use gamelang_lang::span::{FileId, Span};
use std::path::Path;

impl Backend {
    // ----- loading ------------------------------------------------------------------------

    /// Load a file. `remember`: if it has errors, keep it in the log anyway, so that
    /// `reload` tries it again (the file given on the command line).
    pub(super) fn load(&mut self, path: &Path, remember: bool, r: &mut Reply) -> Result<(), Diag> {
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
                self.run_reductions(&loaded[index], r)
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

    pub(super) fn reload(&mut self, r: &mut Reply) -> Result<(), Diag> {
        // The files' own values of the parameters: those set at the prompt are dropped.
        let mut log: Vec<Entry> = (self.log.iter())
            .filter(|e| !matches!(e, Entry::Param { .. }))
            .cloned()
            .collect();
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
        self.scope = None;
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

    /// Run a loaded file's `reduce TERM .` commands in order, as Maude's `load` does,
    /// each announced by the module and the term; the first that fails stops the rest.
    /// Its `set profile on|off .` is the REPL's `set profile`, and its `show profile .`
    /// shows the last reduction's counts, as in Maude; the settings of what follows a
    /// result (`set show timing off .`) are `gamelang reduce`'s, not the prompt's.
    fn run_reductions(&mut self, loaded: &Loaded, r: &mut Reply) -> Result<(), Diag> {
        for (k, red) in loaded.reductions.iter().enumerate() {
            for setting in loaded.settings_before(k) {
                self.file_setting(setting, r)?;
            }
            let pat = self.session.reduction_term(red)?;
            let module = self.session.modules[red.module].name.clone();
            // As in Maude (and `gamelang reduce`), a file's `show profile .` shows the
            // last reduction's counts: each starts from zero.
            self.engine.take_profile();
            self.reduce_and_show(&pat, red.module, red.span, Some(&module), r)?;
        }
        for setting in loaded.settings_before(loaded.reductions.len()) {
            self.file_setting(setting, r)?;
        }
        Ok(())
    }

    fn file_setting(&mut self, setting: FileSetting, r: &mut Reply) -> Result<(), Diag> {
        match setting {
            FileSetting::Profile(on) => {
                self.engine.set_profiling(on);
                Ok(())
            }
            FileSetting::ShowProfile if !self.engine.profiling() => {
                r.out(format!("{}\n", crate::profile::NOTHING_PROFILED));
                Ok(())
            }
            FileSetting::ShowProfile => self.show_profile(r, crate::profile::Format::Table),
            FileSetting::ShowTiming(_) | FileSetting::ShowStats(_) | FileSetting::Ignored => Ok(()),
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
        // A chance game selected before is current no more: the file's first game is,
        // or else the last chance game loaded.
        self.chance_game = None;
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
    pub(super) fn items(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
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
                self.whole_program();
                let what = self.adopt(&loaded);
                r.out(format!("declared{what}\n"));
                Ok(())
            }
            Err(errors) => self.undo_failed_input(errors, r),
        }
    }

    /// Declarations typed at the prompt: added to the current module.
    pub(super) fn declarations(&mut self, text: &str, r: &mut Reply) -> Result<(), Diag> {
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
                self.whole_program();
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
    ///
    /// (Does `session` give the engine the program it has, as scoped by
    /// `Backend::sync_program`?)
    fn same_as_engine(&self, session: &Session) -> bool {
        let scoped = self
            .scope
            .as_deref()
            .and_then(|roots| session.program_for(roots));
        same_program(
            scoped.as_ref().unwrap_or(&session.program),
            self.engine.program(),
        )
    }

    fn undo_failed_input(&mut self, errors: Vec<Diag>, r: &mut Reply) -> Result<(), Diag> {
        self.failed = true;
        for d in &errors {
            r.err(d.render(&self.session.sources, self.color));
        }
        match build(&self.log, self.color) {
            // The same program as before the input (elaboration is deterministic): the
            // engine, its memo tables and a game being played stay valid.
            Ok((session, _)) if self.same_as_engine(&session) => {
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
            // A parameter set at the prompt, set again (unless its game is gone).
            Entry::Param { game, assignment } => {
                let plain = session.games.iter().find(|g| &g.name == game).cloned();
                let chance = session
                    .chance_games
                    .iter()
                    .find(|g| &g.name == game)
                    .cloned();
                let set = match (plain, chance) {
                    (Some(g), _) => session.set_parameter(&g, assignment),
                    (None, Some(g)) => session.set_chance_parameter(&g, assignment),
                    (None, None) => Ok(()),
                };
                set.map(|_| Loaded::default()).map_err(|d| vec![d])
            }
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
