//! `gamelang sweep`: evaluate who wins (or any term) over a grid of integer parameters, in
//! parallel, writing a CSV and a picture, and reporting the boundary sequences of a
//! two-dimensional Boolean or outcome sweep (seed 003, section 5). On a chance game
//! (`instance CHANCE{…}`) it sweeps a player's probability of winning or expected score
//! (`--expr 'win(p1)'`, see [`chance`]).
//!
//! The term is parsed once, with the range variables as variables, and instantiated per
//! point. Each worker thread has its own engine (an engine is single-threaded); what their
//! memo tables learn is shared through a [`gamelang_runtime::engine::SharedMemo`] when that
//! pays (see `docs/benchmarks.md`).

mod boundary;
mod chance;
mod csv;
mod grid;
mod picture;
mod work;

use crate::failure::Failure;
use gamelang_game::Side;
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::mixfix::{self, VarScope};
use gamelang_lang::elab::{ModuleId, Session};

use gamelang_lang::program::{Pat, SortId};
use gamelang_lang::span::{FileId, Span};
use grid::{has_value, Grid, Range, Values, PENDING, SKIPPED};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args)]
#[command(after_help = "Example (Figure 2 of seed 003):\n  \
gamelang sweep examples/heaps.game --from '(k n)' --range k=1..100 --range n=1..100 \\\n      \
--csv heaps.csv --png heaps.png")]
pub struct SweepArgs {
    /// The `.game` file declaring the game.
    pub file: PathBuf,
    /// Sweep the winner from this configuration, written as in the file with the range
    /// variables in it, e.g. '(k n)'.
    #[arg(long, value_name = "TERM", conflicts_with = "expr")]
    pub from: Option<String>,
    /// Sweep the value of any term (a Bool, a number, …) instead, e.g. 'w(B, (k n))'.
    /// On a chance game: 'win(PLAYER)' or 'value(PLAYER)' (probability of winning or
    /// expected score under optimal play, by the chance solver), from the game's start or
    /// from a state with the variables in it: 'win(p1, pig(k, 0, 0, p1))'.
    #[arg(long, value_name = "TERM")]
    pub expr: Option<String>,
    /// Only the points where this Bool term over the variables holds, e.g. 'k <= n'
    /// (the others are left out of the CSV and blank in the picture).
    #[arg(long = "where", value_name = "COND")]
    pub filter: Option<String>,
    /// A variable and its values, both ends included: k=1..100. Repeat for more variables;
    /// the first is the outermost (the rows of the CSV, the horizontal axis of the picture).
    #[arg(long = "range", value_name = "VAR=LO..HI", required = true)]
    pub ranges: Vec<String>,
    /// Who moves first at every point: `B` or `R` (default: the game's `first`).
    #[arg(long, value_name = "PLAYER")]
    pub first: Option<String>,
    /// Which game of the file, by the name in `game NAME is …` (default: the first one).
    #[arg(long, value_name = "NAME")]
    pub game: Option<String>,
    /// Write one row per point (the variables, then the result) to this CSV file: rows are
    /// appended as points finish, and the file is rewritten in grid order at the end, so it
    /// must be a regular file (or a link to one), not standard output or a pipe.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw the grid (one or two variables) to this PNG file.
    #[arg(long, value_name = "FILE")]
    pub png: Option<PathBuf>,
    /// Continue an interrupted sweep: skip the points already in this CSV and append to it
    /// (unless --csv names another file).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Worker threads (default: one per core; at most one per point and eight per core).
    /// Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Give up with an error when one point takes more than this many rewrite steps.
    #[arg(long, value_name = "N", default_value_t = 10_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_steps: u64,
    /// Do not print the boundary sequences.
    #[arg(long)]
    pub no_boundaries: bool,
    /// Do not share memo tables between the worker threads.
    #[arg(long, hide = true)]
    pub no_share: bool,
    /// When done (or interrupted), print to standard error what the rewrites of all the
    /// workers were: each equation's applications (and the matches its condition
    /// refused) and each built-in's evaluations, most first, with where each equation is
    /// written. The calls the call cache or a memo table answered (not rewritten)
    /// follow, by operator. Profiling makes the sweep slower.
    /// `--profile=json` prints it as one line of JSON instead (keys `rewrites`,
    /// `equations`, `builtins`, `answered`, as the README says).
    #[arg(long, value_name = "FORMAT", value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "table")]
    pub profile: Option<crate::profile::Format>,
}

/// The range variables, visible while parsing the swept term.
struct RangeVars {
    /// By range: its variable's name (`None` for a range over a game parameter).
    names: Vec<Option<String>>,
    sorts: Vec<SortId>,
}

impl VarScope for RangeVars {
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)> {
        let i = self.names.iter().position(|n| n.as_deref() == Some(name))?;
        Some((i as u32, self.sorts[i]))
    }
    fn inline(&mut self, _: &str, _: &str) -> Option<(u32, SortId)> {
        None
    }
    fn names(&self) -> Vec<String> {
        self.names.iter().flatten().cloned().collect()
    }
    fn sort_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn inline_refused(&self, text: &str) -> Option<(String, String)> {
        let names = self.names();
        Some((
            format!("`{text}` is a variable, but a sweep's only variables are its ranges"),
            match names.is_empty() {
                true => "this sweep's ranges are all game parameters".to_string(),
                false => format!("the ranges' variables here: {}", names.join(", ")),
            },
        ))
    }
}

/// Which of `points` the `--where` condition `filter` leaves out (with the session's
/// program as it is: the parameters of their group set). A point it cannot decide is not
/// left out.
fn left_out(
    session: &Session,
    roots: &[ModuleId],
    filter: &Pat,
    grid: &Grid,
    points: &[usize],
) -> Vec<bool> {
    let mut engine = crate::app::engine(session, roots);
    let mut point = Vec::new();
    points
        .iter()
        .map(|&i| {
            grid.point(i, &mut point);
            let ints: Vec<_> = point.iter().map(|&v| engine.mk_int(v)).collect();
            let c = engine.build(filter, &ints);
            engine
                .reduce(c)
                .is_ok_and(|v| Some(v) == engine.false_term())
        })
        .collect()
}

/// Does `filter` leave out every one of `points`?
fn none_included(
    session: &Session,
    roots: &[ModuleId],
    filter: &Pat,
    grid: &Grid,
    points: &[usize],
) -> bool {
    left_out(session, roots, filter, grid, points)
        .iter()
        .all(|&out| out)
}

/// The first of `points` (resumed from a CSV) that `filter` leaves out, if any.
fn first_left_out(
    session: &Session,
    roots: &[ModuleId],
    filter: &Pat,
    grid: &Grid,
    points: &[usize],
) -> Option<usize> {
    if points.is_empty() {
        return None;
    }
    let out = left_out(session, roots, filter, grid, points);
    points
        .iter()
        .zip(out)
        .find(|(_, out)| *out)
        .map(|(&i, _)| i)
}

/// What is computed at each point.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// The winner (or draw) from the configuration, with this player to move.
    Outcome(Side),
    /// The normal form of the term.
    Value,
    /// A chance game's probability of winning or expected score (the question is in the
    /// job's target).
    Chance,
}

///
/// A range over a game parameter (`--range n=2..6` for `param n .`) is no variable: `n`
/// in the term is the parameter itself, which has the point's value when the term is
/// evaluated (were it also a variable, every `n` would have two readings).
///
/// The term is the `range` of source `file` (the state of `win(p1, STATE)` is part of
/// `--expr`), located in the whole of it.
fn parse_with_ranges(
    session: &mut Session,
    module: usize,
    (file, range): (FileId, std::ops::Range<usize>),
    grid: &Grid,
    params: &[(String, gamelang_lang::program::OpId)],
    expected: Option<SortId>,
) -> Result<(Pat, SortId), Diag> {
    let toks = session.term_tokens(file, range.clone())?;
    if toks.is_empty() {
        return Err(Diag::at(
            Span::new(file, range.start, range.end),
            "expected a term",
            "empty",
        ));
    }
    let sig = &session.program.sig;
    let sort = |lo: i64| {
        if lo >= 0 {
            sig.nat_sort.or(sig.int_sort)
        } else {
            sig.int_sort.or(sig.nat_sort)
        }
    };
    let Some(sorts) = grid
        .ranges
        .iter()
        .map(|r| sort(r.lo))
        .collect::<Option<Vec<SortId>>>()
    else {
        return Err(Diag::error("the program has no integers to sweep over"));
    };
    let mut vars = RangeVars {
        names: grid
            .ranges
            .iter()
            .map(|r| {
                let param = params.iter().any(|(p, _)| *p == r.name);
                (!param).then(|| r.name.clone())
            })
            .collect(),
        sorts,
    };
    let grammar = session.grammar(module);
    mixfix::parse_term(&session.program.sig, &grammar, &toks, &mut vars, expected)
}

/// The output files must be files, and no two of the options (nor an output and the
/// program) may name the same one: `--resume r.csv --png r.csv` would draw the picture
/// over the work being resumed.
fn check_outputs(args: &SweepArgs) -> Result<(), String> {
    for (option, path) in [("--csv", &args.csv), ("--resume", &args.resume)] {
        if let Some(p) = path {
            csv::check_output(option, p)?;
        }
    }
    let csvs = [("--csv", &args.csv), ("--resume", &args.resume)];
    let named: Vec<(&str, &PathBuf)> = csvs
        .iter()
        .chain(&[("--png", &args.png)])
        .filter_map(|(o, p)| p.as_ref().map(|p| (*o, p)))
        .collect();
    let program = csv::identity(&args.file);
    for (i, (option, path)) in named.iter().enumerate() {
        let id = csv::identity(path);
        if id == program {
            return Err(format!(
                "{option} `{}` is the program `{}`: writing it would overwrite the program",
                path.display(),
                args.file.display()
            ));
        }
        for (other, p) in &named[..i] {
            // (--csv and --resume may name one file: the resumed CSV, completed in place.)
            let both_csv = *other != "--png" && *option != "--png";
            if !both_csv && csv::identity(p) == id {
                return Err(format!(
                    "{other} `{}` and {option} `{}` are the same file: give the {} its own file",
                    p.display(),
                    path.display(),
                    if *option == "--png" { "picture" } else { "CSV" }
                ));
            }
        }
    }
    Ok(())
}

fn side_letter(s: Side) -> &'static str {
    match s {
        Side::B => "B",
        Side::R => "R",
    }
}

fn uses_var(p: &Pat, v: u32) -> bool {
    match p {
        Pat::Var(x) => *x == v,
        Pat::Int(_) => false,
        Pat::App(_, args) => args.iter().any(|a| uses_var(a, v)),
    }
}

pub fn run(args: SweepArgs) -> ExitCode {
    let usage = |msg: String| Failure::usage(msg).report();
    let ranges = match args
        .ranges
        .iter()
        .map(|r| Range::parse(r))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(r) => r,
        Err(e) => return usage(format!("--range {e}")),
    };
    for (i, r) in ranges.iter().enumerate() {
        if ranges[..i].iter().any(|q| q.name == r.name) {
            return usage(format!("the variable `{}` has two ranges", r.name));
        }
    }
    let grid = match Grid::new(ranges) {
        Ok(g) => g,
        Err(e) => return usage(e),
    };
    if args.from.is_none() && args.expr.is_none() {
        return usage("say what to sweep: --from CONFIG (who wins) or --expr TERM".into());
    }
    // (Before the work, not after it.)
    if let Some(png) = &args.png {
        if !(1..=2).contains(&grid.ranges.len()) {
            return usage(format!(
                "--png draws one or two variables; this sweep has {}",
                grid.ranges.len()
            ));
        }
        let dir = match png.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if !dir.is_dir() {
            return Failure::io(format!(
                "cannot write `{}`: no directory `{}`",
                png.display(),
                dir.display()
            ))
            .report();
        }
    }
    if args.threads == Some(0) {
        return usage("--threads must be at least 1".into());
    }
    if let Err(msg) = check_outputs(&args) {
        return usage(msg);
    }

    let mut session = match crate::app::load(&args.file) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let fail = |session: &Session, d: Diag| crate::failure::diag(&session.sources, &d);
    let target = match crate::chance::chosen(&session, args.game.as_deref()) {
        Some(g) => {
            if args.from.is_some() || args.first.is_some() {
                return usage(format!(
                    "`{}` is a chance game: sweep a player's probability of winning with --expr 'win(PLAYER)' (or from a state: 'win(PLAYER, STATE)'), not --from/--first",
                    g.name
                ));
            }
            let question = args.expr.as_deref().and_then(chance::Question::parse);
            work::Target::Chance(g.clone(), question)
        }
        None => match crate::app::pick_game(&session, &args.file, args.game.as_deref()) {
            Ok(g) => work::Target::Classic(g.clone()),
            Err(d) => return fail(&session, d),
        },
    };
    let (name, module, params) = match &target {
        work::Target::Classic(g) => (g.name.clone(), g.module, g.params.clone()),
        work::Target::Chance(g, _) => (g.name.clone(), g.module, g.params.clone()),
    };
    let (origin, text, expected) = match (&args.from, &args.expr, &target) {
        (Some(t), _, work::Target::Classic(g)) => ("--from", t, Some(g.config_sort)),
        (None, Some(t), _) => ("--expr", t, None),
        _ => unreachable!("checked above"),
    };
    // The swept term (and `--where`) as sources of their own, read from here on.
    let file = session.sources.add(origin, text);
    let whole = (file, 0..text.len());
    // A chance question's player is a term of the game's player sort (which of the
    // players it is, the solve says once the game is explored).
    if let work::Target::Chance(g, Some(q)) = &target {
        let at = q.player_at..q.player_at + q.player.len();
        if let Err(d) = parse_with_ranges(
            &mut session,
            module,
            (file, at),
            &grid,
            &params,
            Some(g.player_sort),
        ) {
            return fail(&session, d);
        }
    }
    let template = match &target {
        work::Target::Chance(g, Some(q)) => match &q.state {
            Some(state) => parse_with_ranges(
                &mut session,
                module,
                (file, q.state_at..q.state_at + state.len()),
                &grid,
                &params,
                Some(g.state_sort),
            )
            .map(|(p, sort)| (p, module, sort)),
            None => Ok((g.start.clone(), module, g.state_sort)),
        },
        // A question about a classic game may use the solvers of the standard library
        // (`outcome`, `wb`, `r-within`, `value`), whose instances import the game's module:
        // the term is read in the game's module, else in theirs.
        work::Target::Classic(g) => {
            let mut modules = vec![module, g.solver];
            modules.extend(g.value_module);
            let mut first_error = None;
            let mut parsed = None;
            for m in modules {
                match parse_with_ranges(&mut session, m, whole.clone(), &grid, &params, expected) {
                    Ok((p, sort)) => {
                        parsed = Some((p, m, sort));
                        break;
                    }
                    Err(d) => {
                        first_error.get_or_insert(d);
                    }
                }
            }
            parsed.ok_or_else(|| first_error.expect("at least one module was tried"))
        }
        _ => parse_with_ranges(&mut session, module, whole, &grid, &params, expected)
            .map(|(p, sort)| (p, module, sort)),
    };
    // (The module and sort the term was read in: `--resume` reads its values so.)
    let (template, value_module, value_sort) = match template {
        Ok(t) => t,
        Err(d) => return fail(&session, d),
    };
    let filter = match &args.filter {
        Some(cond) => {
            let bool_sort = session.program.sig.bool_sort;
            let file = session.sources.add("--where", cond);
            let whole = (file, 0..cond.len());
            match parse_with_ranges(&mut session, module, whole, &grid, &params, bool_sort) {
                Ok((p, _)) => Some(p),
                Err(d) => return fail(&session, d),
            }
        }
        None => None,
    };
    // Ranges over the game's parameters (`--range n=2..6` for `param n .`) change the
    // program itself: their points are solved in groups, one program per parameter value.
    let param_dims: Vec<usize> = grid
        .ranges
        .iter()
        .enumerate()
        .filter(|(_, r)| params.iter().any(|(p, _)| *p == r.name))
        .map(|(i, _)| i)
        .collect();
    for (i, r) in grid.ranges.iter().enumerate() {
        if uses_var(&template, i as u32) || param_dims.contains(&i) {
            continue;
        }
        if !filter.as_ref().is_some_and(|f| uses_var(f, i as u32)) {
            // Used nowhere: most likely a misspelt parameter (`--range gol=2..4`), which
            // would otherwise solve the same default game at every point.
            let names: Vec<&str> = params.iter().map(|(n, _)| n.as_str()).collect();
            return usage(format!(
                "`{}` is neither in `{text}`{} nor a parameter of game `{name}` ({})",
                r.name,
                if args.filter.is_some() {
                    " or --where"
                } else {
                    ""
                },
                if names.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("its parameters: {}", names.join(", "))
                }
            ));
        }
        crate::failure::warning(&format!(
            "`{}` does not occur in `{text}`: every value of it gives the same result",
            r.name
        ));
    }
    let kind = if let work::Target::Chance(_, Some(_)) = &target {
        Kind::Chance
    } else if let (Some(_), work::Target::Classic(game)) = (&args.from, &target) {
        let first = match &args.first {
            Some(text) => {
                match session.parse_term(game.module, "--first", text, Some(game.player_sort)) {
                    Ok(p) => p,
                    Err(d) => return fail(&session, d),
                }
            }
            None => game.first.clone(),
        };
        match work::side_of(
            &crate::app::program(&session, &game.modules()),
            game,
            &first,
        ) {
            Ok(s) => Kind::Outcome(s),
            Err(msg) => return fail(&session, Diag::error(msg)),
        }
    } else {
        Kind::Value
    };
    let question_of = |t: &work::Target| match t {
        work::Target::Chance(_, Some(q)) => Some(q.clone()),
        _ => None,
    };
    let chance_question = question_of(&target);
    let columns: Vec<&str> = match (kind, &chance_question) {
        (Kind::Outcome(_), _) => vec!["winner"],
        (Kind::Chance, Some(q)) => q.columns().to_vec(),
        _ => vec!["value"],
    };
    // The question, written into the CSV so that --resume refuses another sweep's file.
    let mut question = format!("game {name}, {origin} {}", text.trim());
    if let Kind::Outcome(side) = kind {
        let _ = write!(question, ", --first {}", side_letter(side));
    }
    if let Some(cond) = &args.filter {
        let _ = write!(question, ", --where {}", cond.trim());
    }
    let header = csv::header(&grid, &columns, &question);
    // A resumed row's result must be one this sweep could have written: a winner; a
    // term of the swept term's sort (read as the term was, each distinct value once); a
    // probability between 0 and 1 whose decimal and fraction agree.
    let mut read_values: HashMap<String, Result<(), String>> = HashMap::new();
    let mut valid = |r: &str| match (kind, &chance_question) {
        (Kind::Outcome(_), _) => match ["B", "R", "draw"].contains(&r) {
            true => Ok(()),
            false => Err("the winner is B, R or draw".to_string()),
        },
        (Kind::Value, _) => read_values
            .entry(r.to_string())
            .or_insert_with(|| {
                let sig = &session.program.sig;
                let want = sig.sort(value_sort).name.clone();
                match session.parse_term(value_module, "--resume", r, Some(value_sort)) {
                    Ok(_) => Ok(()),
                    Err(d) => Err(format!("not a term of sort `{want}` ({})", d.message)),
                }
            })
            .clone(),
        (Kind::Chance, q) => chance::valid(r, q.as_ref().map(|q| q.goal)),
    };

    // Points already computed (--resume).
    let mut results = vec![PENDING; grid.len()];
    let mut values = Values::default();
    let mut resumed = 0;
    if let Some(path) = &args.resume {
        match csv::read_existing(path, &grid, &header, &mut valid, &mut results, &mut values) {
            Ok(n) => resumed = n,
            Err(e) => return Failure::resume(e)
                .help("resume with the command that wrote the CSV, or start afresh with --csv FILE")
                .report(),
        }
    }
    let csv_path = args.csv.clone().or_else(|| args.resume.clone());
    let mut appender = match &csv_path {
        Some(path) => {
            if args.resume.as_deref().map(csv::identity) != Some(csv::identity(path)) {
                // A fresh file (or another one than the resumed CSV): start it with the
                // points already known.
                if let Err(e) = csv::write_sorted(path, &grid, &header, &results, &values) {
                    return Failure::io(e).report();
                }
            }
            match csv::Appender::open(path, &header) {
                Ok(a) => Some(a),
                Err(e) => return Failure::io(e).report(),
            }
        }
        None => None,
    };

    let stop = Arc::new(AtomicBool::new(false));
    crate::app::stop_on_ctrl_c(&stop);
    let todo: Vec<usize> = (0..grid.len()).filter(|&i| results[i] == PENDING).collect();
    // No more workers than points (each has an engine of its own) or than the cores can
    // use.
    let threads = crate::app::worker_threads(args.threads, todo.len());
    let progress = if std::io::stderr().is_terminal() && !todo.is_empty() {
        let bar = indicatif::ProgressBar::new(todo.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} points ({rate}, {eta} left)",
            )
            .expect("progress template")
            .with_key(
                "rate",
                |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{:.0} points/s", s.per_sec());
                },
            )
            .progress_chars("=> "),
        );
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };

    let began = Instant::now();
    let mut job = work::Job {
        program: crate::app::program(&session, &target.modules()),
        game: target.clone(),
        kind,
        template,
        filter,
        grid: grid.clone(),
        max_steps: args.max_steps,
        share: !args.no_share && threads > 1,
        last: false,
        profile: args.profile.map(|_| Default::default()),
    };
    // The points by the values of the parameter ranges (one group when there are none):
    // those to compute, and the resumed ones, which --where must keep (it may name a
    // parameter, so it is asked with the group's values set).
    type Group = (Vec<usize>, Vec<usize>);
    let mut groups: std::collections::BTreeMap<Vec<i64>, Group> = Default::default();
    let mut point = Vec::new();
    let check_resumed = resumed > 0 && job.filter.is_some();
    for (i, &r) in results.iter().enumerate() {
        let pending = r == PENDING;
        if !(pending || check_resumed && has_value(r)) {
            continue;
        }
        grid.point(i, &mut point);
        let key: Vec<i64> = param_dims.iter().map(|&d| point[d]).collect();
        let (todo_here, resumed_here) = groups.entry(key).or_default();
        match pending {
            true => todo_here.push(i),
            false => resumed_here.push(i),
        }
    }
    let mut write_error: Option<String> = None;
    let mut outcome = work::Outcome::Complete;
    let last_run = groups.values().rposition(|(todo, _)| !todo.is_empty());
    for (run, (key, (points, resumed_here))) in groups.into_iter().enumerate() {
        job.last = Some(run) == last_run;
        for (&d, value) in param_dims.iter().zip(&key) {
            let assignment = format!("{}={value}", grid.ranges[d].name);
            if let Err(diag) =
                session.set_parameter_of("--range", &name, &params, module, &assignment)
            {
                return fail(&session, diag);
            }
        }
        if let (Some(f), Some(path)) = (&job.filter, &args.resume) {
            if let Some(i) = first_left_out(&session, &target.modules(), f, &grid, &resumed_here) {
                grid.point(i, &mut point);
                let at: Vec<String> = point.iter().map(|v| v.to_string()).collect();
                return Failure::resume(format!(
                    "`{}` has a row for the point ({}), which --where leaves out: this sweep did not write it (remove the line, or start the sweep afresh)",
                    path.display(),
                    at.join(", ")
                ))
                .report();
            }
        }
        if points.is_empty() {
            continue;
        }
        // The game's `requires`, with the parameters of this group of points.
        let (params, requires) = match &target {
            work::Target::Classic(g) => (&g.params, &g.requires),
            work::Target::Chance(g, _) => (&g.params, &g.requires),
        };
        if let Err(mut diag) =
            crate::app::check_requirements(&session, &target.modules(), &name, params, requires)
        {
            // Not an error if `--where` leaves every point of the group out (`--where 'n
            // rem 2 == 0'` over a game that requires an even `n`).
            if let Some(f) = &job.filter {
                if none_included(&session, &target.modules(), f, &grid, &points) {
                    for &i in &points {
                        results[i] = SKIPPED;
                    }
                    progress.inc(points.len() as u64);
                    continue;
                }
            }
            if !param_dims.is_empty() {
                let at: Vec<String> = param_dims
                    .iter()
                    .zip(&key)
                    .map(|(&d, v)| format!("{}={v}", grid.ranges[d].name))
                    .collect();
                diag = diag.note(format!(
                    "at the points with {}; leave them out with --where",
                    at.join(", ")
                ));
            }
            return fail(&session, diag);
        }
        if !param_dims.is_empty() {
            job.program = crate::app::program(&session, &target.modules());
        }
        outcome = work::run(&job, &points, threads, &stop, |batch| {
            for (i, text) in batch {
                let Some(text) = text else {
                    results[*i] = SKIPPED;
                    continue;
                };
                results[*i] = values.intern(text);
                if let Some(a) = appender.as_mut() {
                    if let Err(e) = a.push(&grid, *i, text) {
                        write_error.get_or_insert(e.to_string());
                    }
                }
            }
            if let Some(a) = appender.as_mut() {
                if let Err(e) = a.flush() {
                    write_error.get_or_insert(e.to_string());
                }
            }
            progress.inc(batch.len() as u64);
        });
        if !matches!(outcome, work::Outcome::Complete) {
            break;
        }
    }
    progress.finish_and_clear();
    let elapsed = began.elapsed();
    drop(appender);
    if let Some(e) = write_error {
        let path = csv_path.as_ref().expect("a CSV was being written");
        return Failure::io(format!("cannot write `{}`: {e}", path.display())).report();
    }
    let done = results.iter().filter(|r| has_value(**r)).count();
    // With --profile, what the workers' rewrites were: after the report, or after what
    // an interruption leaves.
    let profile = |job: &mut work::Job| {
        if let Some(profile) = job.profile.take() {
            let profile = profile.into_inner().unwrap_or_else(|e| e.into_inner());
            let format = args.profile.unwrap_or_default();
            crate::profile::to_stderr(&profile, &job.program, &session.sources, format);
        }
    };
    match outcome {
        work::Outcome::Complete => {}
        work::Outcome::Interrupted => {
            profile(&mut job);
            let stopped = format!("interrupted: {done} of {} points computed", grid.len());
            return match &csv_path {
                Some(p) => {
                    Failure::interrupted(format!("{stopped}; `{}` holds all of them", p.display()))
                        .help(format!(
                            "continue with the same command and --resume {}",
                            p.display()
                        ))
                }
                None => Failure::interrupted(format!("{stopped} (no --csv: they are lost)"))
                    .help("give --csv FILE to keep the points computed and resume later"),
            }
            .report();
        }
        work::Outcome::Failed { point, diag } => {
            let mut p = Vec::new();
            grid.point(point, &mut p);
            let at: Vec<String> = grid
                .ranges
                .iter()
                .zip(&p)
                .map(|(r, v)| format!("{}={v}", r.name))
                .collect();
            let diag = diag.note(format!(
                "at the point {} of the sweep{}",
                at.join(", "),
                match &csv_path {
                    Some(path) =>
                        format!("; the {done} points computed are in `{}`", path.display()),
                    None => String::new(),
                }
            ));
            return fail(&session, diag);
        }
    }

    // Complete: the CSV in grid order, the picture, the report.
    if let Some(path) = &csv_path {
        if let Err(e) = csv::write_sorted(path, &grid, &header, &results, &values) {
            return Failure::io(e).status(2).report();
        }
    }
    let what = match (kind, &chance_question) {
        (Kind::Outcome(side), _) => {
            format!("winner from {} with {} to move", text.trim(), side.name())
        }
        (Kind::Chance, Some(q)) => q.describe(),
        _ => format!("value of {}", text.trim()),
    };
    let dims: Vec<String> = grid.ranges.iter().map(|r| r.to_string()).collect();
    if let Some(path) = &args.png {
        let (title, shading) = match &chance_question {
            Some(_) => (format!("{name}: {}", text.trim()), picture::Shading::Scale),
            None => (format!("{name}: {what}"), picture::Shading::Categories),
        };
        if let Err(e) = picture::draw(path, &grid, &results, &values, &title, columns[0], shading) {
            return Failure::io(e).report();
        }
    }
    // The report goes to standard output in one piece (a closed pipe is not an error).
    let mut report = String::new();
    let _ = writeln!(report, "sweep of {name} over {}: {what}", dims.join(" × "));
    let counts: Vec<String> = if chance_question.is_some() {
        chance::summary(&grid, &results, &values)
    } else {
        boundary::value_order(&values)
            .iter()
            .map(|v| {
                let n = results.iter().filter(|r| **r == *v).count();
                format!("{} {n}", values.name(*v))
            })
            .collect()
    };
    let skipped = results.iter().filter(|r| **r == SKIPPED).count();
    let mut how = vec![format!(
        "{} points in {:.3} s with {threads} thread{}",
        done,
        elapsed.as_secs_f64(),
        if threads == 1 { "" } else { "s" }
    )];
    if resumed > 0 {
        how.push(format!("{resumed} of them read from the resumed CSV"));
    }
    if skipped > 0 {
        how.push(format!("{skipped} left out by --where"));
    }
    // (No counts when every point was left out by --where.)
    let _ = match counts.is_empty() {
        true => writeln!(report, "{}", how.join(", ")),
        false => writeln!(report, "{}: {}", how.join(", "), counts.join(", ")),
    };
    let mut wrote = Vec::new();
    if let Some(p) = &csv_path {
        wrote.push(format!("csv: {}", p.display()));
    }
    if let Some(p) = &args.png {
        wrote.push(format!("picture: {}", p.display()));
    }
    if !wrote.is_empty() {
        let _ = writeln!(report, "{}", wrote.join("   "));
    }
    let boolean = values.names.iter().all(|n| n == "true" || n == "false");
    if grid.ranges.len() == 2
        && !args.no_boundaries
        && (matches!(kind, Kind::Outcome(_)) || boolean)
    {
        let what = match kind {
            Kind::Outcome(_) => "the winner",
            Kind::Value | Kind::Chance => "the value",
        };
        report.push_str(&boundary::report(&grid, &results, &values, what));
    }
    let _ = std::io::stdout().lock().write_all(report.as_bytes());
    profile(&mut job);
    ExitCode::SUCCESS
}
