//! The parallel part of a sweep: one engine per worker thread of a rayon pool, points
//! handed out in chunks (in grid order) from a shared counter, results sent back to the
//! calling thread in batches.

use super::chance::{self, Question};
use super::grid::Grid;
use super::Kind;
use gamelang_chance::model::ChanceError;
use gamelang_game::{self as driver, GameDriver, Side, SolveError};
use gamelang_lang::diag::Diag;
use gamelang_lang::elab::chance::ChanceGame;
use gamelang_lang::elab::Game;
use gamelang_lang::program::{Pat, Program};
use gamelang_runtime::engine::SharedMemo;
use gamelang_runtime::{Engine, Profile, TermId};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// The game swept: a two-player game of `WINS`/`SOLVE`, or a chance game and what to ask
/// the chance solver at each point.
#[derive(Clone)]
pub enum Target {
    Classic(Game),
    /// With `Kind::Chance`, the question; with `Kind::Value`, none.
    Chance(ChanceGame, Option<Question>),
}

impl Target {
    /// The modules the game runs in, whose equations apply
    /// (`gamelang_lang::elab::Session::program_for`).
    pub fn modules(&self) -> Vec<gamelang_lang::elab::ModuleId> {
        match self {
            Target::Classic(g) => g.modules(),
            Target::Chance(g, _) => vec![g.module],
        }
    }
}

/// Everything a worker needs (shared read-only by all of them).
pub struct Job {
    pub program: Arc<Program>,
    pub game: Target,
    pub kind: Kind,
    /// The swept term, `Var(i)` standing for range variable `i` (for a chance game: the
    /// start state).
    pub template: Pat,
    /// Only the points where this Bool term (over the same variables) is true.
    pub filter: Option<Pat>,
    pub grid: Grid,
    pub max_steps: u64,
    /// Is this the sweep's last run (the last group of game parameters)? Its workers then
    /// end without freeing their memory, which the process's exit frees at once; the
    /// workers of the other runs free theirs, or a sweep over many parameter values would
    /// hold every run's.
    pub last: bool,
    /// Share memo tables between the engines.
    pub share: bool,
    /// With `--profile`: the workers' profiles, added up as each worker ends.
    pub profile: Option<Mutex<Profile>>,
}

/// How the sweep ended.
pub enum Outcome {
    Complete,
    /// Stopped by Ctrl-C (every finished point was handed back).
    Interrupted,
    /// A point could not be evaluated.
    Failed {
        point: usize,
        diag: Diag,
    },
}

/// A finished point: its index and result (`None`: excluded by `--where`).
pub type Done = (usize, Option<String>);

enum Msg {
    Batch(Vec<Done>),
    Failed(usize, Diag),
}

/// Which player the (ground) term `first` is.
pub fn side_of(program: &Program, game: &Game, first: &Pat) -> Result<Side, String> {
    let mut engine = Engine::new(Arc::new(program.clone()));
    let d = GameDriver::new(&mut engine, game).map_err(|e| describe(&engine, &e))?;
    let t = engine.build(first, &[]);
    d.side(&mut engine, t).map_err(|e| describe(&engine, &e))
}

fn describe(engine: &Engine, e: &SolveError) -> String {
    driver::diagnose(engine, e).message
}

/// Points per chunk: small enough to balance the threads and keep the progress bar moving,
/// large enough that handing them out costs nothing.
fn chunk_size(n: usize, threads: usize) -> usize {
    (n / (threads * 64).max(1)).clamp(1, 1000)
}

/// Evaluate the points `todo` (indices into `job.grid`) on `threads` threads. `on_batch`
/// is called on the calling thread with finished points and their results, as they come.
pub fn run(
    job: &Job,
    todo: &[usize],
    threads: usize,
    stop: &Arc<AtomicBool>,
    mut on_batch: impl FnMut(&[Done]),
) -> Outcome {
    if todo.is_empty() {
        return Outcome::Complete;
    }
    // (No more workers than points: each holds an engine.)
    let threads = threads.min(todo.len()).max(1);
    let chunk = chunk_size(todo.len(), threads);
    let keep = (KEEP_POSITIONS / threads).max(KEEP_MIN);
    let next = AtomicUsize::new(0);
    let shared = job.share.then(SharedMemo::new);
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut failed: Option<(usize, Diag)> = None;
    std::thread::scope(|s| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("sweep-{i}"))
            .build();
        let (next, shared) = (&next, shared.as_ref());
        let spawned = s.spawn(move || match pool {
            Ok(pool) => {
                pool.broadcast(|_| worker(job, todo, next, chunk, keep, stop, shared, tx.clone()));
            }
            Err(_) => worker(job, todo, next, chunk, keep, stop, shared, tx),
        });
        for msg in rx {
            match msg {
                Msg::Batch(b) => on_batch(&b),
                Msg::Failed(point, diag) => {
                    failed.get_or_insert((point, diag));
                }
            }
        }
        let _ = spawned.join();
    });
    match failed {
        Some((point, diag)) => Outcome::Failed { point, diag },
        None if next.load(Ordering::SeqCst) * chunk < todo.len() || stop.load(Ordering::SeqCst) => {
            // Stopped before every chunk was handed out (or while some were running).
            Outcome::Interrupted
        }
        None => Outcome::Complete,
    }
}

/// Evaluate chunks of `chunk` points of `todo` until none is left, keeping at most `keep`
/// positions in the search tables across a garbage collection ([`collect_between_points`]).
#[allow(clippy::too_many_arguments)]
fn worker(
    job: &Job,
    todo: &[usize],
    next: &AtomicUsize,
    chunk: usize,
    keep: usize,
    stop: &Arc<AtomicBool>,
    shared: Option<&SharedMemo>,
    tx: mpsc::Sender<Msg>,
) {
    let mut engine = Engine::new(job.program.clone());
    engine.limits.max_steps = job.max_steps;
    engine.interrupt = stop.clone();
    engine.set_profiling(job.profile.is_some());
    if let Some(sh) = shared {
        engine.share_memo(sh.clone());
    }
    let d = match &job.game {
        Target::Classic(game) => match GameDriver::new(&mut engine, game) {
            Ok(d) => Some(d),
            Err(e) => {
                let _ = tx.send(Msg::Failed(todo[0], driver::diagnose(&engine, &e)));
                stop.store(true, Ordering::SeqCst);
                return;
            }
        },
        Target::Chance(..) => None,
    };
    // The searches `solve` runs, with tables kept from point to point.
    let mut searches = driver::Searches::new();
    let mut point = Vec::new();
    let mut ints: Vec<TermId> = Vec::new();
    // What a worker reports as it ends: its profile, and its figures if asked.
    let stats = |engine: &mut Engine| {
        if let (Some(total), Some(p)) = (&job.profile, engine.take_profile()) {
            total.lock().unwrap_or_else(|e| e.into_inner()).add(&p);
        }
        if std::env::var_os("GAMELANG_SWEEP_STATS").is_some() {
            eprintln!(
                "worker: {} steps, {} collections ({} full), {} terms ({} ids, {} segment elements), {} memo entries, shared {:?}",
                engine.steps(),
                engine.collections(),
                engine.full_collections(),
                engine.store().len(),
                engine.store().capacity(),
                engine.store().segment_elements(),
                engine.memo_total(),
                engine.shared_stats()
            );
        }
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            stats(&mut engine);
            return;
        }
        let lo = next.fetch_add(1, Ordering::SeqCst) * chunk;
        if lo >= todo.len() {
            stats(&mut engine);
            if job.last {
                // The process ends with this run: freeing the store and the tables term by
                // term (hundreds of MB on a large sweep) would only delay the exit.
                std::mem::forget(engine);
                std::mem::forget(searches);
            }
            return;
        }
        let hi = (lo + chunk).min(todo.len());
        let mut batch = Vec::with_capacity(hi - lo);
        for &i in &todo[lo..hi] {
            job.grid.point(i, &mut point);
            ints.clear();
            for v in &point {
                ints.push(engine.mk_int(*v));
            }
            let result = match &job.filter {
                Some(f) => {
                    let c = engine.build(f, &ints);
                    included(&mut engine, c)
                }
                None => Ok(true),
            }
            .and_then(|yes| {
                if !yes {
                    return Ok(None);
                }
                match &job.game {
                    Target::Chance(game, Some(q)) if matches!(job.kind, Kind::Chance) => {
                        let start = chance::instantiate(&job.template, &point);
                        chance::evaluate(&mut engine, game, q, start)
                            .map(Some)
                            .map_err(Failure::Chance)
                    }
                    _ => evaluate(&mut engine, d.as_ref(), &mut searches, job, &ints).map(Some),
                }
            });
            match result {
                Ok(text) => {
                    batch.push((i, text));
                    // Free the transient terms of the points done (cheap unless the store
                    // has doubled since the last collection).
                    collect_between_points(&mut engine, &mut searches, keep);
                }
                Err(e) => {
                    let _ = tx.send(Msg::Batch(batch));
                    let diag = match e {
                        Failure::Classic(e) if !driver::is_interrupted(&e) => {
                            Some(driver::diagnose(&engine, &e))
                        }
                        Failure::Chance(e) if !matches!(e, ChanceError::Interrupted) => {
                            Some(crate::chance::error_diag(e))
                        }
                        _ => None,
                    };
                    if let Some(diag) = diag {
                        let _ = tx.send(Msg::Failed(i, diag));
                    }
                    stop.store(true, Ordering::SeqCst);
                    return;
                }
            }
        }
        let _ = tx.send(Msg::Batch(batch));
        if std::env::var_os("GAMELANG_SWEEP_GC").is_some() {
            eprintln!(
                "chunk {lo}: {} terms, {} ids, {} seg elements",
                engine.store().len(),
                engine.store().capacity(),
                engine.store().segment_elements()
            );
        }
        collect_between_points(&mut engine, &mut searches, keep);
    }
}

/// Positions the workers' search tables may hold together across a garbage collection
/// (about 250 bytes each with the terms they keep alive), shared out among them; each
/// worker may keep at least [`KEEP_MIN`]. Past it a worker's collection forgets its
/// tables.
const KEEP_POSITIONS: usize = 1 << 19;
const KEEP_MIN: usize = 1 << 16;

/// Between points: collect garbage if the store has grown. Only constants are held here
/// besides the searches' tables; those are kept, their positions rooted, while they hold
/// at most `keep` positions, and forgotten past that (they would otherwise hold every
/// position of every point). Kept, the next points find the positions they share with
/// the points before already decided. On the heaps sweep, one thread (keep 2^19): N = 400
/// 8.98 M rewrites and 1.00 s before (53 MB), 6.76 M and 0.83 s after (92 MB); N = 1000
/// 103 M and 12.1 s (78 MB), 70.5 M and 10.2 s (206 MB).
fn collect_between_points(engine: &mut Engine, searches: &mut driver::Searches, keep: usize) {
    if !engine.store_has_grown() {
        return;
    }
    if searches.kept() <= keep {
        // Every term the tables held at the last collection was a root of it, so a young
        // collection needs only those written since.
        engine.collect_due_with(|full| {
            let young = (!full).then(|| searches.held_since_collection());
            young.flatten().unwrap_or_else(|| searches.held())
        });
    } else {
        searches.clear();
        engine.collect_garbage(&[]);
    }
    searches.collected();
}

/// Why a point could not be evaluated.
enum Failure {
    Classic(SolveError),
    Chance(ChanceError),
}

impl From<SolveError> for Failure {
    fn from(e: SolveError) -> Failure {
        Failure::Classic(e)
    }
}

/// Is the point in the sweep (its `--where` condition reduces to `true`)?
fn included(engine: &mut Engine, c: TermId) -> Result<bool, Failure> {
    let v = engine
        .reduce(c)
        .map_err(|e| SolveError::Runtime(engine.failure(e)))?;
    if Some(v) == engine.true_term() {
        Ok(true)
    } else if Some(v) == engine.false_term() {
        Ok(false)
    } else {
        Err(Failure::Classic(SolveError::Game(format!(
            "the --where condition reduced to `{}`, not to true or false",
            engine.show(v)
        ))))
    }
}

/// The swept term at one point (`ints`, the values of the range variables): the winner
/// (`--from`), or the term's normal form (`--expr`), by the searches where the term is one
/// of the game's solver operators and by the engine otherwise.
fn evaluate(
    engine: &mut Engine,
    d: Option<&GameDriver<'_>>,
    searches: &mut driver::Searches,
    job: &Job,
    ints: &[TermId],
) -> Result<String, Failure> {
    if let (Kind::Value, Some(d)) = (job.kind, d) {
        if let Some(v) = searches.answer(engine, d, &job.template, ints)? {
            return Ok(engine.show(v));
        }
    }
    let t = engine.build(&job.template, ints);
    let v = engine
        .reduce(t)
        .map_err(|e| SolveError::Runtime(engine.failure(e)))?;
    match job.kind {
        Kind::Outcome(side) => {
            let d = d.expect("a winner is swept on a two-player game, which has a driver");
            Ok(searches.verdict(engine, d, side, v)?.name().to_string())
        }
        Kind::Value => Ok(engine.show(v)),
        Kind::Chance => unreachable!("a chance question is answered by the chance solver"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gamelang_lang::elab::Session;
    use std::collections::HashMap;

    /// Does the player to move win the two-heaps game from (k, n)? By brute force.
    fn mover_wins(k: u64, n: u64, memo: &mut HashMap<(u64, u64), bool>) -> bool {
        if let Some(&w) = memo.get(&(k, n)) {
            return w;
        }
        let mut next = Vec::new();
        for m in [k, n].into_iter().filter(|&m| m > 0) {
            next.extend((1..=n / m).map(|i| (k, n - i * m)));
            next.extend((1..=k / m).map(|i| (k - i * m, n)));
        }
        let w = next.into_iter().any(|(a, b)| !mover_wins(a, b, memo));
        memo.insert((k, n), w);
        w
    }

    /// Who wins each point of the heaps sweep over 1..=size², the searches' tables kept
    /// across collections while they hold at most `keep` positions; and the collections
    /// made, and whether the tables held anything after the last of them.
    fn sweep(size: u64, keep: usize) -> (Vec<bool>, u64, bool) {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game");
        let text = std::fs::read_to_string(path).expect("examples/heaps.game");
        let mut session = Session::new().expect("stdlib");
        session.load_source(path, &text).expect("loads");
        let game = session.games[0].clone();
        let mut engine = Engine::new(Arc::new(session.program.clone()));
        // Collect after every few points, not after thousands.
        engine.collect_min_terms = 512;
        let d = GameDriver::new(&mut engine, &game).expect("a game");
        let mut searches = driver::Searches::new();
        let (mut wins, mut kept_after) = (Vec::new(), false);
        for k in 1..=size {
            for n in 1..=size {
                let pat = session
                    .parse_term(game.module, "test", &format!("({k} {n})"), None)
                    .expect("parses");
                let c = engine.build(&pat, &[]);
                let c = engine.reduce(c).expect("a configuration");
                let v = searches
                    .verdict(&mut engine, &d, Side::R, c)
                    .expect("solved");
                wins.push(v == driver::Verdict::Win(Side::R));
                let before = engine.collections();
                collect_between_points(&mut engine, &mut searches, keep);
                if engine.collections() > before {
                    kept_after = searches.kept() > 0;
                }
            }
        }
        (wins, engine.collections(), kept_after)
    }

    #[test]
    fn tables_kept_across_collections_give_the_same_answers_as_brute_force() {
        let size = 24;
        let mut memo = HashMap::new();
        let want: Vec<bool> = (1..=size)
            .flat_map(|k| (1..=size).map(move |n| (k, n)))
            .map(|(k, n)| mover_wins(k, n, &mut memo))
            .collect();
        // Tables kept (every position of the sweep fits), and forgotten at every
        // collection: the same answers, and collections in both.
        let first_wrong = |got: &[bool]| {
            let i = got.iter().zip(&want).position(|(g, w)| g != w)?;
            Some((i as u64 / size + 1, i as u64 % size + 1))
        };
        let (kept, collections, held) = sweep(size, usize::MAX);
        assert_eq!(
            first_wrong(&kept),
            None,
            "the first point (k, n) answered wrongly"
        );
        assert!(
            collections > 3 && held,
            "{collections} collections, kept {held}"
        );
        let (forgot, collections, held) = sweep(size, 0);
        assert_eq!(
            first_wrong(&forgot),
            None,
            "the first point (k, n) answered wrongly"
        );
        assert!(
            collections > 3 && !held,
            "{collections} collections, kept {held}"
        );
    }
}
