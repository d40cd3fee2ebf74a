//! Optimal winning probabilities and expected scores of chance games with n players.
//!
//! **Semantics (max-n).** At a state where player `p` chooses, `p` takes an option that
//! maximises `p`'s own value (probability of winning, or expected score); among options
//! with the same value for `p` it prefers the one giving the other players together the
//! least, and among those the first in the order of the game's choice set. At a chance
//! outcome the value is the expectation. A play that never ends is won by nobody (and
//! scores the points collected on the way, which must then be finite).
//!
//! **Algorithms.** The graph of reachable states is split into strongly connected
//! components, solved from the end of the game backwards (each component after all the
//! components it leads to):
//! - *exact* (rationals): a component of one state without a loop is solved by backward
//!   induction; a component with cycles by policy iteration: a policy (from value iteration
//!   when players have choices) is evaluated by solving its linear system exactly (sparse
//!   Gaussian elimination over the rationals for small components, p-adic lifting modulo a
//!   prime with an exact certificate from [`Options::lifting_component`] states,
//!   [`crate::dixon`]), then improved until no player gains by changing one choice; a game
//!   without choices is solved as one system when lifting applies;
//! - *value iteration* (floating point): Gauss-Seidel sweeps over each cyclic component
//!   (in compact arrays, [`crate::block`], in a depth-first post-order) until the largest
//!   change in a sweep is below the tolerance; small components jump to the solution of
//!   their current choices' linear system, large Markov chains extrapolate along the last
//!   changes once they shrink geometrically. Used when the game is too large
//!   for exact arithmetic; the tolerance and what was achieved are reported.

use crate::block::{Block, OUTSIDE};
use crate::dixon;
use crate::graph::{sccs, Graph, Kind};
use crate::linear::{Stop, System};
use crate::model::ChanceError;
use crate::{BigInt, Q};
use num_traits::{ToPrimitive, Zero};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Each player's probability of winning.
    Win,
    /// Each player's expected total score (points collected at every state visited).
    Score,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exactness {
    /// Exact when the game is small enough, value iteration otherwise.
    Auto,
    Exact,
    Float,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub goal: Goal,
    pub exactness: Exactness,
    /// Value iteration stops when no value changes by more than this in a sweep.
    pub tolerance: f64,
    pub max_sweeps: usize,
    /// Auto: exact only for games of at most this many states…
    pub exact_states: usize,
    /// …whose cyclic components have at most this many states…
    pub exact_component: usize,
    /// …and whose linear systems stay below this many non-zero coefficients…
    pub fill_budget: usize,
    /// …and this much arithmetic: the sizes in bits of the operands of the eliminations'
    /// multiplications, added up (rationals grow as they are combined, so the work is not
    /// just the number of operations).
    pub work_budget: u64,
    /// Cyclic components of at least this many states are solved exactly by p-adic
    /// lifting ([`crate::dixon`]) instead of rational elimination…
    pub lifting_component: usize,
    /// …within this many multiplications modulo a prime in all (Auto).
    pub lifting_budget: u64,
    /// Value iteration sweeps a cyclic component with more values than this (`n` per
    /// state) in the reverse order of discovery, for locality of memory, instead of in
    /// depth-first post-order, for the fewest sweeps. Default 2^18 values (2 MiB, the size
    /// of a core's L2 cache on this machine and a common size elsewhere).
    pub locality_values: usize,
    /// Raised when the user asks to stop (Ctrl-C): the solver then ends with
    /// [`ChanceError::Interrupted`], between two components, policy rounds, pivots of an
    /// elimination or sweeps.
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl Options {
    /// Has the user asked to stop?
    fn stopped(&self) -> bool {
        self.interrupt
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            goal: Goal::Win,
            exactness: Exactness::Auto,
            tolerance: 1e-12,
            max_sweeps: 1_000_000,
            exact_states: 50_000,
            exact_component: 2_000,
            fill_budget: 2_000_000,
            work_budget: 50_000_000,
            lifting_component: 16,
            lifting_budget: 2_000_000_000,
            locality_values: 1 << 18,
            interrupt: None,
        }
    }
}

/// How the answer was computed.
#[derive(Clone, Debug)]
pub enum Method {
    /// Exact rationals; `cyclic` components were solved as linear systems
    /// (`rounds` of policy improvement in all).
    Exact { cyclic: usize, rounds: usize },
    /// Floating-point value iteration over the cyclic components.
    ValueIteration {
        tolerance: f64,
        /// The largest change in the last sweep of any component.
        residual: f64,
        /// An estimate of the remaining error: the last change times max(1, r / (1 - r)), r the
        /// ratio of the last two changes (the rate of geometric convergence), over all
        /// components; infinite when the iteration was not contracting.
        error_estimate: f64,
        sweeps: usize,
        converged: bool,
    },
}

#[derive(Clone, Debug)]
pub struct Solution {
    /// Value of each player at the start.
    pub value: Vec<f64>,
    /// The same, exactly, when computed exactly.
    pub exact: Option<Vec<Q>>,
    pub method: Method,
    /// Why exact arithmetic was not used (Auto mode).
    pub fallback: Option<String>,
    /// The option the player to move at the start takes (index into `graph.opts`).
    pub best_option: Option<usize>,
    pub components: usize,
    pub cyclic_components: usize,
    pub largest_component: usize,
    /// Values of every state (`n` per state), in floating point.
    pub all: Vec<f64>,
}

/// Solve the explored game `g` from its start (state 0).
pub fn solve<S, C>(g: &Graph<S, C>, opts: &Options) -> Result<Solution, ChanceError> {
    let comps = sccs(g);
    let cyclic: Vec<bool> = comps.iter().map(|c| is_cyclic(g, c)).collect();
    let cyclic_components = cyclic.iter().filter(|&&c| c).count();
    let largest = comps
        .iter()
        .zip(&cyclic)
        .filter(|(_, &c)| c)
        .map(|(c, _)| c.len())
        .max()
        .unwrap_or(0);
    let n = g.n_players();
    let mut fallback = None;
    let try_exact = match opts.exactness {
        Exactness::Exact => true,
        Exactness::Float => false,
        Exactness::Auto => {
            if g.len() > opts.exact_states {
                fallback = Some(format!(
                    "{} states, more than the {} solved exactly",
                    g.len(),
                    opts.exact_states
                ));
                false
            } else if largest > opts.exact_component {
                fallback = Some(format!(
                    "a cycle through {largest} states, more than the {} solved exactly",
                    opts.exact_component
                ));
                false
            } else {
                true
            }
        }
    };
    let mut sol = Solution {
        value: Vec::new(),
        exact: None,
        method: Method::Exact {
            cyclic: cyclic_components,
            rounds: 0,
        },
        fallback: None,
        best_option: None,
        components: comps.len(),
        cyclic_components,
        largest_component: largest,
        all: Vec::new(),
    };
    if try_exact {
        match exact(g, &comps, &cyclic, opts) {
            Ok((values, floats, rounds)) => {
                sol.all = floats;
                sol.value = sol.all[0..n].to_vec();
                // (With one option there is nothing to compare, and the successors' exact
                // values may not have been kept: see `whole_chain`.)
                sol.best_option = if g.options(0).len() == 1 {
                    Some(g.options(0).start)
                } else {
                    best_exact(g, 0, &values, opts.goal)
                };
                sol.exact = Some(values.into_iter().next().expect("the start"));
                sol.method = Method::Exact {
                    cyclic: cyclic_components,
                    rounds,
                };
                return Ok(sol);
            }
            Err(Fallback::Game(e)) => return Err(e),
            Err(Fallback::TooBig(why)) => {
                if opts.exactness == Exactness::Exact {
                    return Err(ChanceError::game(format!(
                        "exact solution abandoned: {why}"
                    )));
                }
                fallback = Some(why);
            }
        }
    }
    let (all, residual, error_estimate, sweeps, converged) = float(g, &comps, &cyclic, opts)?;
    sol.best_option = best_float(g, 0, &all);
    sol.value = all[0..n].to_vec();
    sol.all = all;
    sol.fallback = fallback;
    sol.method = Method::ValueIteration {
        tolerance: opts.tolerance,
        residual,
        error_estimate,
        sweeps,
        converged,
    };
    Ok(sol)
}

fn is_cyclic<S, C>(g: &Graph<S, C>, comp: &[u32]) -> bool {
    comp.len() > 1
        || g.options(comp[0] as usize)
            .any(|o| g.outcomes(o).iter().any(|&(t, _)| t == comp[0]))
}

/// The points a visit of `s` gives each player.
fn reward<S, C>(g: &Graph<S, C>, s: usize, goal: Goal, out: &mut [f64]) {
    let n = g.n_players();
    match goal {
        Goal::Win => match g.kind[s] {
            Kind::Final { winners } => {
                for (i, o) in out.iter_mut().enumerate() {
                    *o = if winners >> i & 1 == 1 { 1.0 } else { 0.0 };
                }
            }
            Kind::Turn { .. } => out.iter_mut().for_each(|o| *o = 0.0),
        },
        Goal::Score => {
            let sc = g.scores.as_ref().expect("explored with scores");
            for (i, o) in out.iter_mut().enumerate() {
                *o = sc[s * n + i] as f64;
            }
        }
    }
}

fn reward_q<S, C>(g: &Graph<S, C>, s: usize, goal: Goal) -> Vec<Q> {
    let n = g.n_players();
    let mut v = vec![0.0; n];
    reward(g, s, goal, &mut v);
    v.into_iter()
        .map(|x| Q::from_integer((x as i64).into()))
        .collect()
}

fn mover<S, C>(g: &Graph<S, C>, s: usize) -> usize {
    match g.kind[s] {
        Kind::Turn { player, .. } => player as usize,
        Kind::Final { .. } => 0,
    }
}

// ----- floating point ---------------------------------------------------------------------

const TIE: f64 = 1e-13;

fn others(v: &[f64], p: usize) -> f64 {
    v.iter()
        .enumerate()
        .filter(|(i, _)| *i != p)
        .map(|(_, x)| x)
        .sum()
}

/// Is the option value `a` better for player `p` than `b` (max-n with the tie rule)?
fn better_f(a: &[f64], b: &[f64], p: usize) -> bool {
    a[p] > b[p] + TIE || ((a[p] - b[p]).abs() <= TIE && others(a, p) < others(b, p) - TIE)
}

/// The value of option `o` of state `s` (its reward plus the expected next value).
fn option_value_f<S, C>(g: &Graph<S, C>, o: usize, base: &[f64], vals: &[f64], out: &mut [f64]) {
    let n = g.n_players();
    out.copy_from_slice(base);
    for &(t, p) in g.outcomes(o) {
        let pf = g.probs_f[p as usize];
        let t = t as usize * n;
        for i in 0..n {
            out[i] += pf * vals[t + i];
        }
    }
}

/// The best option of `s` given values, and its value written to `best`.
fn step_f<S, C>(
    g: &Graph<S, C>,
    s: usize,
    goal: Goal,
    vals: &[f64],
    best: &mut [f64],
    scratch: &mut [f64],
    base: &mut [f64],
) -> Option<usize> {
    reward(g, s, goal, base);
    let p = mover(g, s);
    let mut choice = None;
    for o in g.options(s) {
        option_value_f(g, o, base, vals, scratch);
        if choice.is_none() || better_f(scratch, best, p) {
            best.copy_from_slice(scratch);
            choice = Some(o);
        }
    }
    if choice.is_none() {
        best.copy_from_slice(base);
    }
    choice
}

type FloatResult = (Vec<f64>, f64, f64, usize, bool);

fn float<S, C>(
    g: &Graph<S, C>,
    comps: &[Vec<u32>],
    cyclic: &[bool],
    opts: &Options,
) -> Result<FloatResult, ChanceError> {
    let n = g.n_players();
    let mut vals = vec![0.0f64; g.len() * n];
    let (mut best, mut scratch, mut base) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut residual = 0.0f64;
    let mut estimate = 0.0f64;
    let mut sweeps = 0usize;
    let mut converged = true;
    // Scratch for the cyclic components: global state number -> local (crate::block).
    let mut local = vec![OUTSIDE; g.len()];
    // `GAMELANG_TRACE_SWEEPS`: say what each component of a thousand states or more cost.
    let trace = std::env::var_os("GAMELANG_TRACE_SWEEPS").is_some();
    for (comp, &cyc) in comps.iter().zip(cyclic) {
        if cyc && opts.stopped() {
            return Err(ChanceError::Interrupted);
        }
        if !cyc {
            let s = comp[0] as usize;
            step_f(g, s, opts.goal, &vals, &mut best, &mut scratch, &mut base);
            vals[s * n..s * n + n].copy_from_slice(&best);
            continue;
        }
        // Sweep in a depth-first post-order of the component: a state comes after the
        // states it leads to, except along the edges that close a cycle, so one
        // Gauss-Seidel sweep carries values back along every path without a cycle. (Before:
        // the reverse order of discovery; the post-order takes 113 instead of 133 sweeps on
        // Snakes and Ladders with two players, 9,276 instead of 12,370 on Pig with goal 40.)
        // A component whose values do not fit the processor's cache is swept in the reverse
        // order of discovery instead: exploring is breadth first, so the successors of a
        // state were mostly numbered together and their values share cache lines, where a
        // depth-first order scatters them (Snakes and Ladders with three players, one
        // component of 1.3 million states: 97 sweeps at about 250 ms in post-order, 70 at
        // about 70 ms in reverse discovery order, one loaded run each).
        let order = if comp.len() * n > opts.locality_values {
            descending(comp, &mut local)
        } else {
            postorder(g, comp, &mut local)
        };
        let mut k = 0;
        let t_comp = std::time::Instant::now();
        let mut previous = f64::INFINITY;
        // On a small component, once the choices have settled roughly, jump to the values
        // of the current choices by solving their linear system (in floating point); the
        // sweeps that follow check them against the tolerance like any other values.
        // (At three levels of the change, in case the first choices were not yet the best.)
        let mut jumps: &[f64] = if comp.len() > opts.exact_component {
            &[]
        } else {
            &[1e-2, 1e-5, 1e-9]
        };
        // The component in compact arrays (crate::block): its values are iterated in `x`,
        // local to it, and written back to `vals` for a jump and at the end.
        let block = Block::new(g, order, &vals, &mut local, |s, out| {
            reward(g, s, opts.goal, out)
        });
        let comp = &block.states;
        let mut x = block.load(&vals);
        // On a large component where nobody chooses (a Markov chain, too large for the
        // jumps), once the largest change shrinks by a steady ratio r per sweep the error
        // is mostly along one direction, shrinking by r a sweep: extrapolate along the last
        // changes d to where the geometric series ends (x + d·r/(1 − r), Aitken's Δ² for
        // the whole vector). The sweeps that follow judge the result against the tolerance
        // like any other values, so this only saves sweeps; it is never trusted by itself.
        let extrapolate = jumps.is_empty() && !block.has_choices();
        let mut changes = if extrapolate {
            vec![0.0; x.len()]
        } else {
            Vec::new()
        };
        let (mut ratio, mut steady, mut since) = (f64::NAN, 0usize, 0usize);
        // The rate of convergence seen before the last extrapolation: the error estimate
        // does not trust a faster rate measured just after it.
        let mut seen_rate = 0.0f64;
        loop {
            // The changes are recorded only by a sweep after which the extrapolation can
            // happen (the ratio steady twice already, ten sweeps since the last): writing
            // them is a fifth of a sweep's memory traffic on three-seat Snakes (about 1-2%
            // of its run, same values).
            let record = extrapolate && steady >= 2 && since + 1 >= 10;
            let delta = if record {
                block.sweep(&mut x, &mut changes, better_f)
            } else {
                block.sweep(&mut x, &mut [], better_f)
            };
            k += 1;
            since += 1;
            // After every sweep: a sweep of a large component takes milliseconds, and a
            // whole iteration may be fewer than 256 of them (three-seat Snakes: 249 sweeps
            // of 1.3 million states, 2 s, ran to the end through a Ctrl-C).
            if opts.stopped() {
                return Err(ChanceError::Interrupted);
            }
            if !delta.is_finite() {
                // A value that is infinite or not a number: the iteration diverged. Say
                // so (not converged, no error bound) rather than stop as if it had
                // converged, which `delta < tolerance` alone would not catch for NaN.
                converged = false;
                residual = f64::INFINITY;
                estimate = f64::INFINITY;
                block.store(&x, &mut vals);
                break;
            }
            // (A sweep that changed nothing is a fixed point, whatever the tolerance: with
            // a tolerance of 0 it is the only way to stop.)
            let done = delta < opts.tolerance || delta == 0.0;
            if extrapolate && !done && previous.is_finite() && previous > 0.0 {
                let r = delta / previous;
                steady = if (r - ratio).abs() < 1e-3 * r {
                    steady + 1
                } else {
                    0
                };
                ratio = r;
                if steady >= 3 && since >= 10 && r < 0.999 {
                    let f = r / (1.0 - r);
                    for (xi, di) in x.iter_mut().zip(&changes) {
                        *xi += di * f;
                    }
                    (ratio, steady, since) = (f64::NAN, 0, 0);
                    seen_rate = seen_rate.max(r);
                    previous = f64::INFINITY;
                    continue;
                }
            }
            if let Some((&level, rest)) = jumps.split_first() {
                if !done && k < opts.max_sweeps && delta < level {
                    jumps = rest;
                    block.store(&x, &mut vals);
                    jump(g, comp, opts.goal, &mut vals);
                    x = block.load(&vals);
                    previous = f64::INFINITY;
                    continue;
                }
            }
            if done || k >= opts.max_sweeps {
                residual = residual.max(delta);
                let rate = if previous.is_finite() && previous > 0.0 {
                    delta / previous
                } else {
                    0.0
                }
                .max(seen_rate);
                estimate = estimate.max(if delta == 0.0 {
                    0.0
                } else if rate < 1.0 {
                    delta * (rate / (1.0 - rate)).max(1.0)
                } else {
                    f64::INFINITY
                });
                converged = converged && done;
                block.store(&x, &mut vals);
                break;
            }
            previous = delta;
        }
        sweeps += k;
        if trace && comp.len() >= 1000 {
            eprintln!(
                "value iteration: component of {} states, {k} sweeps, {:?}",
                comp.len(),
                t_comp.elapsed()
            );
        }
    }
    Ok((vals, residual, estimate, sweeps, converged))
}

/// The states of `comp` from the highest number down. A component of more than a sixteenth
/// of all states is marked in `mark` (an entry per state, all [`OUTSIDE`], left so) and read
/// off in one pass, instead of sorted: three-seat Snakes' 1.3 million states took about a
/// billion instructions to sort.
fn descending(comp: &[u32], mark: &mut [u32]) -> Vec<u32> {
    if comp.len() < mark.len() / 16 {
        let mut o = comp.to_vec();
        o.sort_unstable_by(|a, b| b.cmp(a));
        return o;
    }
    for &s in comp {
        mark[s as usize] = 0;
    }
    let mut o = Vec::with_capacity(comp.len());
    for s in (0..mark.len()).rev() {
        if mark[s] != OUTSIDE {
            mark[s] = OUTSIDE;
            o.push(s as u32);
        }
    }
    o
}

/// The states of the component `comp` in the order a depth-first search finishes them
/// (following only edges inside it; searches started from its states in the order of
/// discovery, so from the one nearest the start first). `mark` has an entry per state, all
/// [`OUTSIDE`], and is left so.
fn postorder<S, C>(g: &Graph<S, C>, comp: &[u32], mark: &mut [u32]) -> Vec<u32> {
    const TODO: u32 = 0;
    const SEEN: u32 = 1;
    for &s in comp {
        mark[s as usize] = TODO;
    }
    // The stack holds (state, next option, next outcome of that option).
    let mut stack: Vec<(u32, usize, usize)> = Vec::new();
    let mut roots = comp.to_vec();
    roots.sort_unstable();
    let mut out = Vec::with_capacity(comp.len());
    for r in roots {
        if mark[r as usize] != TODO {
            continue;
        }
        mark[r as usize] = SEEN;
        stack.push((r, g.options(r as usize).start, 0));
        while let Some(top) = stack.last_mut() {
            let (v, o, e) = *top;
            let opts = g.options(v as usize);
            if o >= opts.end {
                out.push(v);
                stack.pop();
                continue;
            }
            let outs = g.outcomes(o);
            if e >= outs.len() {
                *top = (v, o + 1, 0);
                continue;
            }
            *top = (v, o, e + 1);
            let w = outs[e].0;
            if mark[w as usize] == TODO {
                mark[w as usize] = SEEN;
                stack.push((w, g.options(w as usize).start, 0));
            }
        }
    }
    for &s in comp {
        mark[s as usize] = OUTSIDE;
    }
    out
}

/// Replace the values of a cyclic component by those of its current greedy choices, from
/// their linear system solved by sparse Gaussian elimination (no pivoting: an M-matrix).
/// Leaves the values alone when some state cannot leave the component under the choices.
fn jump<S, C>(g: &Graph<S, C>, comp: &[u32], goal: Goal, vals: &mut [f64]) {
    let n = g.n_players();
    let m = comp.len();
    let local: rustc_hash::FxHashMap<u32, usize> =
        comp.iter().enumerate().map(|(k, &s)| (s, k)).collect();
    let (mut best, mut scratch, mut base) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let policy: Vec<Option<usize>> = comp
        .iter()
        .map(|&s| {
            step_f(
                g,
                s as usize,
                goal,
                vals,
                &mut best,
                &mut scratch,
                &mut base,
            )
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut reaches = vec![false; m];
    let mut queue = Vec::new();
    for k in 0..m {
        let Some(o) = policy[k] else { return };
        for &(t, _) in g.outcomes(o) {
            match local.get(&t) {
                Some(&j) => preds[j].push(k),
                None if !reaches[k] => {
                    reaches[k] = true;
                    queue.push(k);
                }
                None => {}
            }
        }
    }
    while let Some(j) = queue.pop() {
        for &k in &preds[j] {
            if !reaches[k] {
                reaches[k] = true;
                queue.push(k);
            }
        }
    }
    if reaches.iter().any(|r| !r) {
        return;
    }
    let mut sys: System<f64> = System::new(m, n);
    for k in 0..m {
        reward(g, comp[k] as usize, goal, sys.rhs_mut(k));
        sys.set(k, k, 1.0);
        for &(t, p) in g.outcomes(policy[k].expect("checked")) {
            let pf = g.probs_f[p as usize];
            match local.get(&t) {
                Some(&j) => sys.sub(k, j, &pf),
                None => {
                    for i in 0..n {
                        sys.rhs_mut(k)[i] += pf * vals[t as usize * n + i];
                    }
                }
            }
        }
    }
    let Ok(x) = sys.solve(|_, _| Ok(())) else {
        return;
    };
    for k in 0..m {
        let s = comp[k] as usize;
        vals[s * n..s * n + n].copy_from_slice(&x[k]);
    }
}

fn best_float<S, C>(g: &Graph<S, C>, s: usize, vals: &[f64]) -> Option<usize> {
    let n = g.n_players();
    let (mut best, mut scratch, base) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let p = mover(g, s);
    let mut choice = None;
    for o in g.options(s) {
        option_value_f(g, o, &base, vals, &mut scratch);
        if choice.is_none() || better_f(&scratch, &best, p) {
            best.copy_from_slice(&scratch);
            choice = Some(o);
        }
    }
    choice
}

// ----- exact ------------------------------------------------------------------------------

enum Fallback {
    /// Too large for exact arithmetic (why).
    TooBig(String),
    Game(ChanceError),
}

fn others_q(v: &[Q], p: usize) -> Q {
    v.iter()
        .enumerate()
        .filter(|(i, _)| *i != p)
        .fold(Q::zero(), |acc, (_, x)| acc + x)
}

/// Compare option values for player `p`: Greater when `a` is better.
fn cmp_q(a: &[Q], b: &[Q], p: usize) -> std::cmp::Ordering {
    a[p].cmp(&b[p])
        .then_with(|| others_q(b, p).cmp(&others_q(a, p)))
}

fn option_value_q<S, C>(
    g: &Graph<S, C>,
    s: usize,
    o: usize,
    goal: Goal,
    vals: &[Vec<Q>],
) -> Vec<Q> {
    let mut v = reward_q(g, s, goal);
    for &(t, p) in g.outcomes(o) {
        let q = &g.probs[p as usize];
        for (i, x) in v.iter_mut().enumerate() {
            *x += q * &vals[t as usize][i];
        }
    }
    v
}

/// The best option of `s` (first among equals) and its value.
fn best_q<S, C>(g: &Graph<S, C>, s: usize, goal: Goal, vals: &[Vec<Q>]) -> (Option<usize>, Vec<Q>) {
    let p = mover(g, s);
    let mut best: Option<(usize, Vec<Q>)> = None;
    for o in g.options(s) {
        let v = option_value_q(g, s, o, goal, vals);
        let take = match &best {
            None => true,
            Some((_, b)) => cmp_q(&v, b, p) == std::cmp::Ordering::Greater,
        };
        if take {
            best = Some((o, v));
        }
    }
    match best {
        Some((o, v)) => (Some(o), v),
        None => (None, reward_q(g, s, goal)),
    }
}

fn best_exact<S, C>(g: &Graph<S, C>, s: usize, vals: &[Vec<Q>], goal: Goal) -> Option<usize> {
    // The start's reward is added to every option alike, so it does not change the choice.
    best_q(g, s, goal, vals).0
}

/// The exact values (every state a predecessor or the start needs; the others of large
/// Markov chains solved by lifting are left empty), every state's value in floating point,
/// and the rounds of policy iteration.
type ExactResult = (Vec<Vec<Q>>, Vec<f64>, usize);

fn exact<S, C>(
    g: &Graph<S, C>,
    comps: &[Vec<u32>],
    cyclic: &[bool],
    opts: &Options,
) -> Result<ExactResult, Fallback> {
    let n = g.n_players();
    let mut vals: Vec<Vec<Q>> = vec![Vec::new(); g.len()];
    // Which states' exact values are read later: the start and the states entered from
    // another component (a component is solved after every component it leads to).
    let mut comp_of = vec![0u32; g.len()];
    for (c, comp) in comps.iter().enumerate() {
        for &s in comp {
            comp_of[s as usize] = c as u32;
        }
    }
    let mut read_later = vec![false; g.len()];
    read_later[0] = true;
    for s in 0..g.len() {
        for o in g.options(s) {
            for &(t, _) in g.outcomes(o) {
                if comp_of[t as usize] != comp_of[s] {
                    read_later[t as usize] = true;
                }
            }
        }
    }
    let mut rounds = 0;
    let mut fill = 0usize;
    let mut work = 0u64;
    // Multiplications modulo p done by the lifting (its own budget).
    let mut lifted = 0u64;
    // The values in floating point, for the value iteration that finds a first policy: each
    // state's converted once, when it is solved (converting every solved state again for
    // every component took a third of the time of Pig with goal 20).
    let mut fv = vec![0.0f64; g.len() * n];
    let to_f = |fv: &mut [f64], s: usize, v: &[Q]| {
        for (i, q) in v.iter().enumerate() {
            fv[s * n + i] = q.to_f64().unwrap_or(0.0);
        }
    };
    // A Markov chain (nobody ever chooses) large enough for lifting is solved as one
    // system over all its states at once (the final states' values on the right): then
    // only the start's value is a rational. Component by component, every state entered
    // from another component would need its exact value, a rational of thousands of digits
    // on Snakes and Ladders, and the backward induction over them would be gcds of such
    // numbers (most of the time, measured).
    let chain = (0..g.len()).all(|s| g.options(s).len() <= 1);
    let live: Vec<u32> = (0..g.len() as u32)
        .filter(|&s| !g.options(s as usize).is_empty())
        .collect();
    if chain && cyclic.iter().any(|&c| c) && live.len() >= opts.lifting_component {
        for s in 0..g.len() {
            if g.options(s).is_empty() {
                vals[s] = reward_q(g, s, opts.goal);
                to_f(&mut fv, s, &vals[s]);
            }
        }
        let policy: Vec<usize> = live.iter().map(|&s| g.options(s as usize).start).collect();
        let wanted: Vec<bool> = live.iter().map(|&s| s == 0).collect();
        let (x, xf) = evaluate(
            g,
            &live,
            &policy,
            &vals,
            &wanted,
            opts,
            &mut fill,
            &mut work,
            &mut lifted,
            true,
        )?;
        store(&live, x, xf, &mut vals, &mut fv);
        if !vals[0].is_empty() {
            return Ok((vals, fv, 1));
        }
        // (Lifting did not apply, e.g. a coefficient too large for a machine word, or more
        // than `lu::MAX_ORDER` states: component by component below.)
        vals.iter_mut().for_each(Vec::clear);
    }
    for (comp, &cyc) in comps.iter().zip(cyclic) {
        if opts.stopped() {
            return Err(Fallback::Game(ChanceError::Interrupted));
        }
        if !cyc {
            let s = comp[0] as usize;
            vals[s] = best_q(g, s, opts.goal, &vals).1;
            to_f(&mut fv, s, &vals[s]);
            continue;
        }
        if comp.len() > opts.exact_component && opts.exactness == Exactness::Auto {
            return Err(Fallback::TooBig(format!(
                "a cycle through {} states",
                comp.len()
            )));
        }
        // A first policy: value iteration on this component (its exits are known exactly).
        let mut policy: Vec<usize> = comp.iter().map(|&s| g.options(s as usize).start).collect();
        let has_choices = comp.iter().any(|&s| g.options(s as usize).len() > 1);
        if has_choices {
            let (mut best, mut scratch, mut base) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            for _ in 0..10_000 {
                let mut delta = 0.0f64;
                for &s in comp {
                    let s = s as usize;
                    step_f(g, s, opts.goal, &fv, &mut best, &mut scratch, &mut base);
                    for i in 0..n {
                        delta = delta.max((best[i] - fv[s * n + i]).abs());
                        fv[s * n + i] = best[i];
                    }
                }
                if delta < 1e-13 {
                    break;
                }
            }
            for (k, &s) in comp.iter().enumerate() {
                let s = s as usize;
                if let Some(o) = step_f(g, s, opts.goal, &fv, &mut best, &mut scratch, &mut base) {
                    policy[k] = o;
                }
            }
        }
        loop {
            if opts.stopped() {
                return Err(Fallback::Game(ChanceError::Interrupted));
            }
            rounds += 1;
            if rounds > 50 * comps.len().max(1) {
                return Err(Fallback::TooBig("policy iteration did not settle".into()));
            }
            // Policy improvement reads every state's value; a Markov chain only those read
            // later.
            let wanted: Vec<bool> = if has_choices {
                vec![true; comp.len()]
            } else {
                comp.iter().map(|&s| read_later[s as usize]).collect()
            };
            let (x, xf) = evaluate(
                g,
                comp,
                &policy,
                &vals,
                &wanted,
                opts,
                &mut fill,
                &mut work,
                &mut lifted,
                false,
            )?;
            store(comp, x, xf, &mut vals, &mut fv);
            let mut changed = false;
            for (k, &s) in comp.iter().enumerate() {
                let s = s as usize;
                if g.options(s).len() < 2 {
                    continue;
                }
                let p = mover(g, s);
                let current = option_value_q(g, s, policy[k], opts.goal, &vals);
                for o in g.options(s) {
                    if o == policy[k] {
                        continue;
                    }
                    let v = option_value_q(g, s, o, opts.goal, &vals);
                    let c = cmp_q(&v, &current, p);
                    if c == std::cmp::Ordering::Greater
                        || (c == std::cmp::Ordering::Equal && o < policy[k])
                    {
                        policy[k] = o;
                        changed = true;
                        break;
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }
    Ok((vals, fv, rounds))
}

/// Exact values of a component's states (empty where not wanted) and their floating-point
/// values.
type Evaluated = (Vec<Vec<Q>>, Vec<Vec<f64>>);

/// Store the values `x` (exact) and `xf` (floating point, `n` players each) that
/// `evaluate` found for `states`.
fn store(states: &[u32], x: Vec<Vec<Q>>, xf: Vec<Vec<f64>>, vals: &mut [Vec<Q>], fv: &mut [f64]) {
    for (&s, (v, f)) in states.iter().zip(x.into_iter().zip(xf)) {
        let (s, n) = (s as usize, f.len());
        vals[s] = v;
        fv[s * n..s * n + n].copy_from_slice(&f);
    }
}

/// The exact values of the states of a cyclic component under a fixed policy (the option
/// `policy[k]` at `comp[k]`), the states after it already solved in `vals`: at least those
/// `wanted` exactly, all in floating point.
#[allow(clippy::too_many_arguments)]
fn evaluate<S, C>(
    g: &Graph<S, C>,
    comp: &[u32],
    policy: &[usize],
    vals: &[Vec<Q>],
    wanted: &[bool],
    opts: &Options,
    fill: &mut usize,
    work: &mut u64,
    lifted: &mut u64,
    lifting_only: bool,
) -> Result<Evaluated, Fallback> {
    let n = g.n_players();
    let m = comp.len();
    let local: rustc_hash::FxHashMap<u32, usize> =
        comp.iter().enumerate().map(|(k, &s)| (s, k)).collect();
    // States that reach an exit of the component under the policy; the others loop for ever.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); m];
    let mut reaches = vec![false; m];
    let mut queue = Vec::new();
    for k in 0..m {
        for &(t, _) in g.outcomes(policy[k]) {
            match local.get(&t) {
                Some(&j) => preds[j].push(k),
                None => {
                    if !reaches[k] {
                        reaches[k] = true;
                        queue.push(k);
                    }
                }
            }
        }
    }
    while let Some(j) = queue.pop() {
        for &k in &preds[j] {
            if !reaches[k] {
                reaches[k] = true;
                queue.push(k);
            }
        }
    }
    let zero = vec![Q::zero(); n];
    for k in 0..m {
        if !reaches[k] && reward_q(g, comp[k] as usize, opts.goal) != zero {
            return Err(Fallback::Game(ChanceError::game(format!(
                "the expected score is infinite: play can loop for ever through state #{} collecting points",
                comp[k]
            ))));
        }
    }
    if m >= opts.lifting_component {
        if let Some(sys) = integer_system(g, comp, policy, vals, &local, &reaches, opts.goal) {
            let budget = if opts.exactness == Exactness::Auto {
                opts.lifting_budget.saturating_sub(*lifted)
            } else {
                u64::MAX
            };
            match dixon::solve(&sys.system, wanted, budget, &|| opts.stopped()) {
                Ok(sol) => {
                    let one = sys.scale == BigInt::from(1);
                    let scale = Q::from_integer(sys.scale.clone());
                    let e = sys.scale.to_f64().unwrap_or(f64::INFINITY);
                    let exact = (0..m)
                        .map(|k| {
                            sol.exact(k)
                                .map(|v| {
                                    v.into_iter()
                                        .map(|q| if one { q } else { q / &scale })
                                        .collect()
                                })
                                .unwrap_or_default()
                        })
                        .collect();
                    let floats = (0..m)
                        .map(|k| {
                            (0..n)
                                .map(|i| {
                                    if e.is_finite() {
                                        sol.float[k * n + i] / e
                                    } else {
                                        f64::NAN
                                    }
                                })
                                .collect()
                        })
                        .collect();
                    *lifted += sol.ops;
                    return Ok((exact, floats));
                }
                Err(dixon::Stop::Budget(why)) => return Err(Fallback::TooBig(why)),
                Err(dixon::Stop::Interrupted) => {
                    return Err(Fallback::Game(ChanceError::Interrupted))
                }
                // Not for this method: rational elimination below.
                Err(dixon::Stop::Unsuitable(_)) | Err(dixon::Stop::Failed(_)) => {}
            }
        }
    }
    if lifting_only {
        // (The caller solves component by component instead: no exact values here.)
        return Ok((vec![Vec::new(); m], vec![vec![0.0; n]; m]));
    }
    // (I - P) x = r + (exits), over the states that reach an exit.
    let mut sys: System<Q> = System::new(m, n);
    for k in 0..m {
        sys.set(k, k, Q::from_integer(1.into()));
        if !reaches[k] {
            continue;
        }
        let s = comp[k] as usize;
        *sys.rhs_mut(k) = reward_q(g, s, opts.goal);
        for &(t, p) in g.outcomes(policy[k]) {
            let q = &g.probs[p as usize];
            match local.get(&t) {
                Some(&j) if reaches[j] => sys.sub(k, j, q),
                Some(_) => {}
                None => {
                    for (i, x) in sys.rhs_mut(k).iter_mut().enumerate() {
                        *x += q * &vals[t as usize][i];
                    }
                }
            }
        }
    }
    let (fill0, work0) = (*fill, *work);
    let auto = opts.exactness == Exactness::Auto;
    let x = sys
        .solve(|f, w| {
            if opts.stopped() {
                Err("interrupted".into())
            } else if auto && work0 + w > opts.work_budget {
                Err(format!(
                    "the exact elimination passed its budget of {:e} bit operations",
                    opts.work_budget as f64
                ))
            } else if auto && fill0 + f > opts.fill_budget {
                Err(format!(
                    "the linear system grew past {} coefficients",
                    opts.fill_budget
                ))
            } else {
                Ok(())
            }
        })
        .map_err(|e| match e {
            _ if opts.stopped() => Fallback::Game(ChanceError::Interrupted),
            Stop::Singular => Fallback::TooBig("a singular linear system".into()),
            Stop::Budget(why) => Fallback::TooBig(why),
        })?;
    *fill += sys.fill;
    *work += sys.work;
    let floats = x
        .iter()
        .map(|v| v.iter().map(|q| q.to_f64().unwrap_or(f64::NAN)).collect())
        .collect();
    Ok((x, floats))
}

/// The system of [`evaluate`] with integer coefficients, for [`dixon::solve`]: each row
/// `(I − P)ₖ x = bₖ` multiplied by the least common denominator of its probabilities, and
/// every right-hand side by `scale`, one integer; the solution is the lifted one divided
/// by `scale`. `None` when a coefficient does not fit a machine word.
struct Scaled {
    system: dixon::IntSystem,
    scale: BigInt,
}

fn integer_system<S, C>(
    g: &Graph<S, C>,
    comp: &[u32],
    policy: &[usize],
    vals: &[Vec<Q>],
    local: &rustc_hash::FxHashMap<u32, usize>,
    reaches: &[bool],
    goal: Goal,
) -> Option<Scaled> {
    use num_integer::Integer;
    let n = g.n_players();
    let m = comp.len();
    let mut rows = Vec::with_capacity(m);
    let mut rhs: Vec<Vec<Q>> = Vec::with_capacity(m);
    for k in 0..m {
        if !reaches[k] {
            rows.push(vec![(k as u32, 1i64)]);
            rhs.push(vec![Q::zero(); n]);
            continue;
        }
        let s = comp[k] as usize;
        let mut coef: Vec<(u32, Q)> = vec![(k as u32, Q::from_integer(1.into()))];
        let mut b = reward_q(g, s, goal);
        for &(t, p) in g.outcomes(policy[k]) {
            let q = &g.probs[p as usize];
            match local.get(&t) {
                Some(&j) if reaches[j] => match coef.iter_mut().find(|(c, _)| *c == j as u32) {
                    Some((_, a)) => *a -= q,
                    None => coef.push((j as u32, -q)),
                },
                Some(_) => {}
                None => {
                    for (i, x) in b.iter_mut().enumerate() {
                        *x += q * &vals[t as usize][i];
                    }
                }
            }
        }
        let den = coef
            .iter()
            .fold(BigInt::from(1), |d, (_, a)| d.lcm(a.denom()));
        let mut row = Vec::with_capacity(coef.len());
        for (j, a) in coef {
            let v = (a * Q::from_integer(den.clone())).to_integer().to_i64()?;
            if v != 0 {
                row.push((j, v));
            }
        }
        rows.push(row);
        let dq = Q::from_integer(den);
        rhs.push(b.into_iter().map(|x| x * &dq).collect());
    }
    let scale = rhs
        .iter()
        .flatten()
        .fold(BigInt::from(1), |d, x| d.lcm(x.denom()));
    let sq = Q::from_integer(scale.clone());
    let rhs = rhs
        .into_iter()
        .map(|r| r.into_iter().map(|x| (x * &sq).to_integer()).collect())
        .collect();
    Some(Scaled {
        system: dixon::IntSystem { rows, rhs, n },
        scale,
    })
}
