//! One cyclic component laid out for Gauss-Seidel sweeps of value iteration.
//!
//! A sweep visits every state of the component and every outcome of every option, dozens
//! or hundreds of times over (70 sweeps of 1.3 million states for Snakes and Ladders with
//! three players), so what it reads decides its speed. Here the component's states are
//! numbered locally in sweep order, the outcomes are one flat array (`u32` local target,
//! `u32` index into the table of probabilities), and everything that stays fixed while the component is iterated — the
//! state's reward and the outcomes that leave the component, whose values are already
//! final — is added up once per option into a constant. The sweep then reads only the
//! component's own values, stored contiguously in sweep order.

use crate::graph::{Graph, Kind};

/// The player to move at `s` (0 at a final state, which has no options).
fn mover<S, C>(g: &Graph<S, C>, s: usize) -> usize {
    match g.kind[s] {
        Kind::Turn { player, .. } => player as usize,
        Kind::Final { .. } => 0,
    }
}

/// In the map from global to local numbers: not in the component.
pub const OUTSIDE: u32 = u32::MAX;

pub struct Block {
    /// Number of players (values per state).
    n: usize,
    /// The states, by global number, in sweep order (local number = position here).
    pub states: Vec<u32>,
    /// The options of local state `k`: `opt_start[k]..opt_start[k + 1]`.
    opt_start: Vec<u32>,
    /// The player to move at each local state.
    mover: Vec<u32>,
    /// The outcomes inside the component of option `o`: `out_start[o]..out_start[o + 1]`.
    out_start: Vec<u32>,
    /// `n` per option: the state's reward plus the expected value of the outcomes that
    /// leave the component.
    konst: Vec<f64>,
    /// Local target of each outcome inside the component, and its probability as an index
    /// into `probs` (the graph's table of distinct probabilities: a handful in most games,
    /// so the look-up stays in the first-level cache, and an outcome takes 8 bytes instead
    /// of 12 with an `f64`: the sweeps stream these arrays, 8 million outcomes on
    /// Snakes and Ladders with three players).
    outs: Vec<(u32, u32)>,
    probs: Vec<f64>,
    /// The same component laid out for a Markov chain, when nobody chooses anywhere in it
    /// (then `opt_start`, `mover` and `out_start` are empty: see [`Chain`]).
    chain: Option<Chain>,
    /// Values iterated per state: `n`, or `n − 1` when the last is derived (below).
    width: usize,
    /// In a chain whose values add up to the constant `c` at every state (every path ends
    /// with exactly one winner, say, and the game ends with certainty), `Some(c)`: the
    /// last player's value is `c` minus the others' and is not iterated. `konst` then has
    /// `n − 1` entries per state.
    derived: Option<f64>,
}

/// A component where every state has exactly one option (nobody chooses: a Markov chain),
/// in fewer bytes a sweep streams: no option or mover tables, and each outcome one word,
/// the local target in the high 24 bits and the probability's index in the low 8. On
/// Snakes and Ladders with three players (1.3 million states, 8 million outcomes, 70
/// sweeps) a state is 44 bytes here (with the last value derived, see `Block::derived`)
/// against 84 in the general layout.
struct Chain {
    /// The outcomes of local state `k`: `start[k]..start[k + 1]`.
    start: Vec<u32>,
    outs: Vec<u32>,
}

/// A chain's outcome targets are below 2^24 and its probabilities' indices below 2^8.
const CHAIN_TARGETS: usize = 1 << 24;
const CHAIN_PROBS: usize = 1 << 8;
/// A chain's sweep is written for one to four values a state (`[f64; N]`); games of more
/// players are swept in the general layout.
const CHAIN_PLAYERS: usize = 4;

impl Block {
    /// The component `states` (in sweep order) of `g`, with `vals` (`n` per global state)
    /// final for every state outside it, and `reward(s, out)` the points of a visit of `s`.
    /// `local` has an entry per state of `g`, all [`OUTSIDE`]; it is used as the map from
    /// global to local numbers and left as it was found (so that one array serves every
    /// component, instead of a hash table of up to a million entries each).
    pub fn new<S, C>(
        g: &Graph<S, C>,
        states: Vec<u32>,
        vals: &[f64],
        local: &mut [u32],
        mut reward: impl FnMut(usize, &mut [f64]),
    ) -> Block {
        let n = g.n_players();
        for (k, &s) in states.iter().enumerate() {
            local[s as usize] = k as u32;
        }
        let mut b = Block {
            n,
            opt_start: Vec::new(),
            mover: Vec::new(),
            out_start: vec![0],
            konst: Vec::new(),
            outs: Vec::new(),
            probs: g.probs_f.clone(),
            states: Vec::new(),
            chain: None,
            width: n,
            derived: None,
        };
        let mut rew = vec![0.0; n];
        // Nobody chooses anywhere in it: laid out as a chain from the start (option k is
        // state k's, so the outcome ranges are the states'), without the general tables.
        let is_chain = n <= CHAIN_PLAYERS
            && states.len() < CHAIN_TARGETS
            && b.probs.len() <= CHAIN_PROBS
            && states.iter().all(|&s| g.options(s as usize).len() == 1);
        let mut packed: Vec<u32> = Vec::new();
        if !is_chain {
            b.opt_start.push(0);
        }
        for &s in &states {
            let s = s as usize;
            reward(s, &mut rew);
            if !is_chain {
                b.mover.push(mover(g, s) as u32);
            }
            for o in g.options(s) {
                let base = b.konst.len();
                b.konst.extend_from_slice(&rew);
                for &(t, p) in g.outcomes(o) {
                    let pf = g.probs_f[p as usize];
                    match local[t as usize] {
                        OUTSIDE => {
                            let v = &vals[t as usize * n..t as usize * n + n];
                            for i in 0..n {
                                b.konst[base + i] += pf * v[i];
                            }
                        }
                        j if is_chain => packed.push(j << 8 | p),
                        j => b.outs.push((j, p)),
                    }
                }
                b.out_start
                    .push((if is_chain { packed.len() } else { b.outs.len() }) as u32);
            }
            if !is_chain {
                b.opt_start.push((b.out_start.len() - 1) as u32);
            }
        }
        for &s in &states {
            local[s as usize] = OUTSIDE;
        }
        b.states = states;
        if is_chain {
            b.chain = Some(Chain {
                start: std::mem::take(&mut b.out_start),
                outs: packed,
            });
            if let Some(c) = b.constant_sum(g, vals, local, &mut reward) {
                let w = n - 1;
                b.konst = b
                    .konst
                    .chunks_exact(n)
                    .flat_map(|k| k[..w].iter().copied())
                    .collect();
                (b.width, b.derived) = (w, Some(c));
            }
        }
        b
    }

    /// For a chain (`self.chain`, just built, with `n ≥ 2`): `Some(c)` when the values of
    /// its states add up to `c` at every state. That holds when no state of it scores
    /// (`reward` zero), the values of the states it leads out to each add up to `c`, and
    /// it does lead out somewhere: then the sums `S` solve `S = P·S + (1 − P·1)·c` with
    /// `P` the probabilities inside the component, whose only solution is `c` (from every
    /// state of a strongly connected component with an exit, play leaves it with
    /// certainty). A component without exit (play stays in it for ever: every value 0)
    /// or with sums that differ by more than rounding is iterated in full.
    fn constant_sum<S, C>(
        &self,
        g: &Graph<S, C>,
        vals: &[f64],
        local: &mut [u32],
        reward: &mut impl FnMut(usize, &mut [f64]),
    ) -> Option<f64> {
        let n = self.n;
        if n < 2 {
            return None;
        }
        let mut rew = vec![0.0; n];
        for &s in &self.states {
            reward(s as usize, &mut rew);
            if rew.iter().any(|&r| r != 0.0) {
                return None;
            }
        }
        for (k, &s) in self.states.iter().enumerate() {
            local[s as usize] = k as u32;
        }
        let mut c: Option<f64> = None;
        let mut ok = true;
        'states: for &s in &self.states {
            for o in g.options(s as usize) {
                for &(t, _) in g.outcomes(o) {
                    if local[t as usize] != OUTSIDE {
                        continue;
                    }
                    let sum: f64 = vals[t as usize * n..t as usize * n + n].iter().sum();
                    match c {
                        None => c = Some(sum),
                        Some(c) if (sum - c).abs() <= 1e-9 * c.abs().max(1.0) => {}
                        Some(_) => {
                            ok = false;
                            break 'states;
                        }
                    }
                }
            }
        }
        for &s in &self.states {
            local[s as usize] = OUTSIDE;
        }
        c.filter(|_| ok)
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// The component's values from `vals` (global), in local order.
    pub fn load(&self, vals: &[f64]) -> Vec<f64> {
        let (n, w) = (self.n, self.width);
        let mut x = Vec::with_capacity(self.len() * w);
        for &s in &self.states {
            x.extend_from_slice(&vals[s as usize * n..s as usize * n + w]);
        }
        x
    }

    /// Write the local values `x` back into `vals`.
    pub fn store(&self, x: &[f64], vals: &mut [f64]) {
        let (n, w) = (self.n, self.width);
        for (k, &s) in self.states.iter().enumerate() {
            let v = &mut vals[s as usize * n..s as usize * n + n];
            v[..w].copy_from_slice(&x[k * w..k * w + w]);
            if let Some(c) = self.derived {
                v[w] = c - v[..w].iter().sum::<f64>();
            }
        }
    }

    /// Does some state have a choice (more than one option)?
    pub fn has_choices(&self) -> bool {
        self.opt_start.windows(2).any(|w| w[1] - w[0] > 1)
    }

    /// One Gauss-Seidel sweep over `x` (local values, updated in place): each state takes
    /// its best option under max-n with the tie rule of `better`. Returns the largest
    /// change of a value. When `changes` is not empty, each value's change is written there.
    pub fn sweep(
        &self,
        x: &mut [f64],
        changes: &mut [f64],
        better: impl Fn(&[f64], &[f64], usize) -> bool,
    ) -> f64 {
        if let Some(chain) = &self.chain {
            return match (self.width, changes.is_empty()) {
                (1, true) => self.sweep_chain::<1, false>(chain, x, changes),
                (2, true) => self.sweep_chain::<2, false>(chain, x, changes),
                (3, true) => self.sweep_chain::<3, false>(chain, x, changes),
                (4, true) => self.sweep_chain::<4, false>(chain, x, changes),
                (1, false) => self.sweep_chain::<1, true>(chain, x, changes),
                (2, false) => self.sweep_chain::<2, true>(chain, x, changes),
                (3, false) => self.sweep_chain::<3, true>(chain, x, changes),
                (4, false) => self.sweep_chain::<4, true>(chain, x, changes),
                _ => unreachable!("a chain has at most CHAIN_PLAYERS values a state"),
            };
        }
        // The loops over players, unrolled for the usual numbers of players.
        match (self.n, changes.is_empty()) {
            (1, true) => self.sweep_n::<1, false>(x, changes, &better),
            (2, true) => self.sweep_n::<2, false>(x, changes, &better),
            (3, true) => self.sweep_n::<3, false>(x, changes, &better),
            (4, true) => self.sweep_n::<4, false>(x, changes, &better),
            (_, true) => self.sweep_n::<0, false>(x, changes, &better),
            (1, false) => self.sweep_n::<1, true>(x, changes, &better),
            (2, false) => self.sweep_n::<2, true>(x, changes, &better),
            (3, false) => self.sweep_n::<3, true>(x, changes, &better),
            (4, false) => self.sweep_n::<4, true>(x, changes, &better),
            (_, false) => self.sweep_n::<0, true>(x, changes, &better),
        }
    }

    /// [`Block::sweep`] of a [`Chain`], for `N` values a state (1 to 4), recording the
    /// changes when `RECORD`.
    fn sweep_chain<const N: usize, const RECORD: bool>(
        &self,
        chain: &Chain,
        x: &mut [f64],
        changes: &mut [f64],
    ) -> f64 {
        // Written for the compiler to see every index in range: values by `[f64; N]`
        // arrays, probabilities from a 256-entry table indexed by a byte. (With slices and
        // a `Vec` for the running sum, a sweep of three-seat Snakes took about 200
        // instructions a state, bounds checks and loops over `n` included.)
        let mut table = [0.0f64; CHAIN_PROBS];
        table[..self.probs.len()].copy_from_slice(&self.probs);
        let derived = self.derived.is_some();
        let mut delta = 0.0f64;
        let konst = self.konst.chunks_exact(N);
        for (k, (c, w)) in konst.zip(chain.start.windows(2)).enumerate() {
            let mut v: [f64; N] = c.try_into().expect("N values");
            for &o in &chain.outs[w[0] as usize..w[1] as usize] {
                let pr = table[(o & 0xFF) as usize];
                let t = (o >> 8) as usize * N;
                let xt: &[f64; N] = x[t..t + N].try_into().expect("N values");
                for i in 0..N {
                    v[i] += pr * xt[i];
                }
            }
            let xs: &mut [f64; N] = (&mut x[k * N..k * N + N]).try_into().expect("N values");
            // The derived value changes by minus the sum of the others' changes.
            let mut moved = 0.0f64;
            let mut d = [0.0f64; N];
            for i in 0..N {
                d[i] = v[i] - xs[i];
                delta = delta.max(d[i].abs());
                moved += d[i];
                xs[i] = v[i];
            }
            if RECORD {
                changes[k * N..k * N + N].copy_from_slice(&d);
            }
            if derived {
                delta = delta.max(moved.abs());
            }
        }
        delta
    }

    /// [`Block::sweep`] for `N` players (`N = 0`: any number, `self.n`), recording the
    /// changes when `RECORD`.
    fn sweep_n<const N: usize, const RECORD: bool>(
        &self,
        x: &mut [f64],
        changes: &mut [f64],
        better: &impl Fn(&[f64], &[f64], usize) -> bool,
    ) -> f64 {
        let n = if N == 0 { self.n } else { N };
        let mut best = vec![0.0f64; n];
        let mut cand = vec![0.0f64; n];
        let mut delta = 0.0f64;
        for k in 0..self.len() {
            let (o0, o1) = (self.opt_start[k] as usize, self.opt_start[k + 1] as usize);
            let p = self.mover[k] as usize;
            for o in o0..o1 {
                let v = if o == o0 { &mut best } else { &mut cand };
                v.copy_from_slice(&self.konst[o * n..o * n + n]);
                let (e0, e1) = (self.out_start[o] as usize, self.out_start[o + 1] as usize);
                for &(t, p) in &self.outs[e0..e1] {
                    let (t, pr) = (t as usize * n, self.probs[p as usize]);
                    for i in 0..n {
                        v[i] += pr * x[t + i];
                    }
                }
                if o > o0 && better(&cand, &best, p) {
                    best.copy_from_slice(&cand);
                }
            }
            let xs = &mut x[k * n..k * n + n];
            for i in 0..n {
                delta = delta.max((best[i] - xs[i]).abs());
                if RECORD {
                    changes[k * n + i] = best[i] - xs[i];
                }
                xs[i] = best[i];
            }
        }
        delta
    }
}
