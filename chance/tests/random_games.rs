//! The solvers on small random games given directly through the `ChanceModel` trait:
//! exact answers against a dense Gauss-Jordan elimination over the rationals written here,
//! value iteration against the exact answers, on Markov chains and on two-player games with
//! choices. The games come from a fixed seed (no clock).

// The hand-written elimination indexes its matrix by row and column.
#![allow(clippy::needless_range_loop)]

use gamelang_chance::graph::explore;
use gamelang_chance::model::{ChanceError, ChanceModel, Node, Opt};
use gamelang_chance::simulate::Rng;
use gamelang_chance::solve::{solve, Exactness, Goal, Options};
use gamelang_chance::{BigInt, Prob, Q};
use num_traits::{One, ToPrimitive, Zero};

/// States 0..n: the last two are final (won by player 0, by player 1); every other state
/// has `options[s]`, each a list of (numerator over 12, next state).
struct Random {
    n: usize,
    mover: Vec<usize>,
    options: Vec<Vec<Vec<(i64, usize)>>>,
}

impl ChanceModel for Random {
    type State = usize;
    type Choice = usize;
    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        Ok(vec!["x".into(), "y".into()])
    }
    fn start(&mut self) -> Result<usize, ChanceError> {
        Ok(0)
    }
    fn expand(&mut self, s: usize) -> Result<Node<usize, usize>, ChanceError> {
        if s == self.n - 2 {
            return Ok(Node::Final { winners: vec![0] });
        }
        if s == self.n - 1 {
            return Ok(Node::Final { winners: vec![1] });
        }
        Ok(Node::Turn {
            player: self.mover[s],
            options: self.options[s]
                .iter()
                .enumerate()
                .map(|(c, outs)| Opt {
                    choice: c,
                    outcomes: outs.iter().map(|&(w, t)| (Prob::ratio(w, 12), t)).collect(),
                })
                .collect(),
        })
    }
    fn score(&mut self, _: usize) -> Result<Option<Vec<i64>>, ChanceError> {
        Ok(None)
    }
    fn show_state(&self, s: usize) -> String {
        s.to_string()
    }
    fn show_choice(&self, c: &usize) -> String {
        c.to_string()
    }
}

/// A random game of `n` states whose states all reach a final one (every distribution
/// gives weight 1/12 to a final state), with `choices` options per state.
fn random(rng: &mut Rng, n: usize, choices: usize) -> Random {
    let mut options = Vec::new();
    let mut mover = Vec::new();
    for _ in 0..n - 2 {
        mover.push(rng.below(2));
        let mut opts = Vec::new();
        for _ in 0..choices {
            // 11 twelfths spread over up to 3 random states, 1 twelfth to a final state.
            let mut outs: Vec<(i64, usize)> = vec![(1, n - 2 + rng.below(2))];
            let mut left = 11i64;
            for k in 0..3 {
                let w = if k == 2 {
                    left
                } else {
                    rng.below(left as usize + 1) as i64
                };
                left -= w;
                if w > 0 {
                    let t = rng.below(n);
                    match outs.iter_mut().find(|(_, u)| *u == t) {
                        Some((w0, _)) => *w0 += w,
                        None => outs.push((w, t)),
                    }
                }
            }
            opts.push(outs);
        }
        options.push(opts);
    }
    Random { n, mover, options }
}

/// P(player 0 wins) from every state of a Markov chain (one option per state), by
/// Gauss-Jordan elimination of x = P x + b over the rationals.
fn gauss_jordan(g: &Random) -> Vec<Q> {
    let m = g.n - 2;
    let mut a = vec![vec![Q::zero(); m]; m];
    let mut b = vec![Q::zero(); m];
    for s in 0..m {
        a[s][s] += Q::one();
        for &(w, t) in &g.options[s][0] {
            let p = Q::new(BigInt::from(w), BigInt::from(12));
            if t == g.n - 2 {
                b[s] += p;
            } else if t < m {
                a[s][t] -= p;
            }
        }
    }
    for col in 0..m {
        let piv = (col..m)
            .find(|&r| !a[r][col].is_zero())
            .expect("non-singular");
        a.swap(col, piv);
        b.swap(col, piv);
        let p = a[col][col].clone();
        for k in 0..m {
            a[col][k] = &a[col][k] / &p;
        }
        b[col] = &b[col] / &p;
        for r in 0..m {
            if r != col && !a[r][col].is_zero() {
                let f = a[r][col].clone();
                for k in 0..m {
                    let v = &f * &a[col][k];
                    a[r][k] -= v;
                }
                let v = &f * &b[col];
                b[r] -= v;
            }
        }
    }
    b
}

fn options(exactness: Exactness) -> Options {
    Options {
        goal: Goal::Win,
        exactness,
        tolerance: 1e-13,
        ..Options::default()
    }
}

#[test]
fn exact_markov_chains_match_gauss_jordan() {
    let mut rng = Rng::new(15);
    for round in 0..40 {
        let n = 3 + round % 12;
        let mut game = random(&mut rng, n, 1);
        let want = gauss_jordan(&game);
        let g = explore(&mut game, false, 1000).unwrap();
        let sol = solve(&g, &options(Exactness::Exact)).unwrap();
        let exact = sol.exact.expect("exact");
        assert_eq!(exact[0], want[0], "round {round}");
        // Every state reaches a final one: the two players' chances add up to 1.
        assert_eq!(&exact[0] + &exact[1], Q::one(), "round {round}");
        // Value iteration agrees within its tolerance.
        let f = solve(&g, &options(Exactness::Float)).unwrap();
        assert!(
            (f.value[0] - want[0].to_f64().unwrap()).abs() < 1e-9,
            "round {round}"
        );
    }
}

#[test]
fn exact_and_value_iteration_agree_with_choices() {
    let mut rng = Rng::new(2026);
    for round in 0..40 {
        let n = 4 + round % 10;
        let mut game = random(&mut rng, n, 2);
        let g = explore(&mut game, false, 1000).unwrap();
        let e = solve(&g, &options(Exactness::Exact)).unwrap();
        let f = solve(&g, &options(Exactness::Float)).unwrap();
        let exact = e.exact.expect("exact");
        for p in 0..2 {
            let x = exact[p].to_f64().unwrap();
            assert!(
                (x - f.value[p]).abs() < 1e-9,
                "round {round}: {x} vs {}",
                f.value[p]
            );
        }
        // Optimality: at every state the mover's value is at least what each of its
        // options gives it (checked in floating point on the value iteration's values).
        for s in 0..g.len() {
            for o in g.options(s) {
                let gamelang_chance::graph::Kind::Turn { player, .. } = g.kind[s] else {
                    continue;
                };
                let p = player as usize;
                let v: f64 = g
                    .outcomes(o)
                    .iter()
                    .map(|&(t, q)| g.probs_f[q as usize] * f.all[t as usize * 2 + p])
                    .sum();
                assert!(v <= f.all[s * 2 + p] + 1e-9, "round {round}, state {s}");
            }
        }
    }
}

/// A Markov chain of `m` states and `k` players: from each state 1/12 goes to a final state
/// won by a random player (states m..m+k, state m + i won by player i), the other 11/12 to
/// up to three random states of the chain.
struct Chain {
    m: usize,
    k: usize,
    outs: Vec<Vec<(i64, usize)>>,
    /// The last final state is won by players 0 and `k − 1` together (the values then
    /// add up to different sums at different states).
    shared: bool,
}

impl ChanceModel for Chain {
    type State = usize;
    type Choice = usize;
    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        Ok((0..self.k).map(|i| format!("p{i}")).collect())
    }
    fn start(&mut self) -> Result<usize, ChanceError> {
        Ok(0)
    }
    fn expand(&mut self, s: usize) -> Result<Node<usize, usize>, ChanceError> {
        if s >= self.m {
            let i = s - self.m;
            let winners = if self.shared && i + 1 == self.k {
                vec![0, i]
            } else {
                vec![i]
            };
            return Ok(Node::Final { winners });
        }
        Ok(Node::Turn {
            player: s % self.k,
            options: vec![Opt {
                choice: 0,
                outcomes: self.outs[s]
                    .iter()
                    .map(|&(w, t)| (Prob::ratio(w, 12), t))
                    .collect(),
            }],
        })
    }
    fn score(&mut self, _: usize) -> Result<Option<Vec<i64>>, ChanceError> {
        Ok(None)
    }
    fn show_state(&self, s: usize) -> String {
        s.to_string()
    }
    fn show_choice(&self, c: &usize) -> String {
        c.to_string()
    }
}

fn chain(rng: &mut Rng, m: usize, k: usize) -> Chain {
    let outs = (0..m)
        .map(|_| {
            let mut outs: Vec<(i64, usize)> = vec![(1, m + rng.below(k))];
            let mut left = 11i64;
            for j in 0..3 {
                let w = if j == 2 {
                    left
                } else {
                    rng.below(left as usize + 1) as i64
                };
                left -= w;
                let t = rng.below(m);
                if w > 0 {
                    match outs.iter_mut().find(|(_, u)| *u == t) {
                        Some((w0, _)) => *w0 += w,
                        None => outs.push((w, t)),
                    }
                }
            }
            outs
        })
        .collect();
    Chain {
        m,
        k,
        outs,
        shared: false,
    }
}

/// `c` with a trap: states `m − 2` and `m − 1` lead only to each other (play that reaches
/// them goes on for ever, and nobody wins), and state 0 has a way in.
fn trapped(mut c: Chain) -> Chain {
    let m = c.m;
    c.outs[m - 2] = vec![(12, m - 1)];
    c.outs[m - 1] = vec![(12, m - 2)];
    let first = &mut c.outs[0];
    if let Some(o) = first.iter_mut().find(|o| o.1 < m && o.0 >= 2) {
        o.0 -= 1;
        first.push((1, m - 1));
    }
    c
}

/// P(each player wins) from state 0 of a chain, by Gauss-Jordan elimination of
/// x = P x + b over the rationals (one right-hand side per player).
fn chain_gauss_jordan(c: &Chain) -> Vec<Q> {
    let m = c.m;
    let mut a = vec![vec![Q::zero(); m]; m];
    let mut b = vec![vec![Q::zero(); c.k]; m];
    // The states from which no final state can be reached are worth 0 to everybody.
    let mut reaches = vec![false; m];
    loop {
        let mut grew = false;
        for s in 0..m {
            if !reaches[s] && c.outs[s].iter().any(|&(_, t)| t >= m || reaches[t]) {
                reaches[s] = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    for s in 0..m {
        a[s][s] += Q::one();
        if !reaches[s] {
            continue;
        }
        for &(w, t) in &c.outs[s] {
            let p = Q::new(BigInt::from(w), BigInt::from(12));
            if t >= m {
                b[s][t - m] += p.clone();
                if c.shared && t - m + 1 == c.k && c.k > 1 {
                    b[s][0] += p;
                }
            } else {
                a[s][t] -= p;
            }
        }
    }
    for col in 0..m {
        let piv = (col..m)
            .find(|&r| !a[r][col].is_zero())
            .expect("non-singular");
        a.swap(col, piv);
        b.swap(col, piv);
        let p = a[col][col].clone();
        for j in 0..m {
            a[col][j] = &a[col][j] / &p;
        }
        for x in b[col].iter_mut() {
            *x = &*x / &p;
        }
        for r in 0..m {
            if r != col && !a[r][col].is_zero() {
                let f = a[r][col].clone();
                for j in 0..m {
                    let v = &f * &a[col][j];
                    a[r][j] -= v;
                }
                for i in 0..c.k {
                    let v = &f * &b[col][i];
                    b[r][i] -= v;
                }
            }
        }
    }
    b.swap_remove(0)
}

/// Value iteration on large cyclic components (no jumps to linear solutions: every
/// component counts as large) for 1 to 5 players — the sweeps over compact arrays for each
/// number of players, in depth-first post-order and in reverse discovery order, and the
/// extrapolation along the last changes of a chain — agrees with Gauss-Jordan elimination over the rationals.
#[test]
fn value_iteration_on_large_chains_matches_gauss_jordan_for_any_number_of_players() {
    let mut rng = Rng::new(77);
    for round in 0..45 {
        let k = 1 + round % 5;
        // Plain chains (every value adds up to 1: the last player's is derived from the
        // others'), chains with a shared win (sums that differ: iterated in full), and
        // chains with a trap (sums of 0 inside it: iterated in full).
        let mut c = chain(&mut rng, 12 + 2 * (round % 15), k);
        match round / 15 {
            0 => {}
            1 => c.shared = true,
            _ => c = trapped(c),
        }
        let want = chain_gauss_jordan(&c);
        let g = explore(&mut c, false, 10_000).unwrap();
        let opts = Options {
            exact_component: 0,
            ..options(Exactness::Float)
        };
        // Swept in depth-first post-order, and in the reverse order of discovery (the
        // order of components too large for the cache).
        for locality_values in [usize::MAX, 0] {
            let opts = Options {
                locality_values,
                ..opts.clone()
            };
            let f = solve(&g, &opts).unwrap();
            for i in 0..k {
                let x = want[i].to_f64().unwrap();
                assert!(
                    (x - f.value[i]).abs() < 1e-10,
                    "round {round}, player {i}, locality {locality_values}: {x} vs {}",
                    f.value[i]
                );
            }
        }
    }
}

/// The same with choices (where nothing is extrapolated), against the exact solution.
#[test]
fn value_iteration_on_large_components_with_choices_matches_exact() {
    let mut rng = Rng::new(4242);
    for round in 0..20 {
        let mut game = random(&mut rng, 6 + round, 2);
        let g = explore(&mut game, false, 1000).unwrap();
        let e = solve(&g, &options(Exactness::Exact)).unwrap();
        let exact = e.exact.expect("exact");
        for locality_values in [usize::MAX, 0] {
            let opts = Options {
                exact_component: 0,
                locality_values,
                ..options(Exactness::Float)
            };
            let f = solve(&g, &opts).unwrap();
            for p in 0..2 {
                let x = exact[p].to_f64().unwrap();
                assert!(
                    (x - f.value[p]).abs() < 1e-9,
                    "round {round}, locality {locality_values}: {x} vs {}",
                    f.value[p]
                );
            }
        }
    }
}

/// Tarjan's components (`graph::sccs`) are exactly the classes of mutual reachability,
/// each listed once, a component after every component it leads to — checked against
/// reachability computed by a search from every state.
#[test]
fn components_are_the_mutual_reachability_classes_in_reverse_topological_order() {
    use gamelang_chance::graph::sccs;
    let mut rng = Rng::new(2026);
    for round in 0..30 {
        let mut game = random(&mut rng, 5 + round * 3, 1 + round % 3);
        let g = explore(&mut game, false, 10_000).unwrap();
        let n = g.len();
        let succ = |s: usize| -> Vec<usize> {
            g.options(s)
                .flat_map(|o| g.outcomes(o).iter().map(|&(t, _)| t as usize))
                .collect()
        };
        // reach[s][t]: t can be reached from s (in zero or more steps).
        let reach: Vec<Vec<bool>> = (0..n)
            .map(|s| {
                let mut seen = vec![false; n];
                let mut stack = vec![s];
                seen[s] = true;
                while let Some(v) = stack.pop() {
                    for w in succ(v) {
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                seen
            })
            .collect();
        let comps = sccs(&g);
        let mut comp_of = vec![usize::MAX; n];
        for (c, comp) in comps.iter().enumerate() {
            for &s in comp {
                assert_eq!(
                    comp_of[s as usize],
                    usize::MAX,
                    "round {round}: listed twice"
                );
                comp_of[s as usize] = c;
            }
        }
        for s in 0..n {
            assert_ne!(
                comp_of[s],
                usize::MAX,
                "round {round}: state {s} in no component"
            );
            for t in 0..n {
                let mutual = reach[s][t] && reach[t][s];
                assert_eq!(
                    comp_of[s] == comp_of[t],
                    mutual,
                    "round {round}: {s} and {t}"
                );
                if reach[s][t] && !mutual {
                    assert!(comp_of[t] < comp_of[s], "round {round}: {s} leads to {t}");
                }
            }
        }
    }
}

/// A model whose states have a dense index ([`ChanceModel::dense_index`]): explored through
/// the array, the graph is the one explored through the hash table.
struct Dense(Random);

impl ChanceModel for Dense {
    type State = usize;
    type Choice = usize;
    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        self.0.players()
    }
    fn start(&mut self) -> Result<usize, ChanceError> {
        self.0.start()
    }
    fn expand(&mut self, s: usize) -> Result<Node<usize, usize>, ChanceError> {
        self.0.expand(s)
    }
    fn score(&mut self, s: usize) -> Result<Option<Vec<i64>>, ChanceError> {
        self.0.score(s)
    }
    fn show_state(&self, s: usize) -> String {
        self.0.show_state(s)
    }
    fn show_choice(&self, c: &usize) -> String {
        self.0.show_choice(c)
    }
    fn dense_index(&self, s: usize) -> Option<usize> {
        // Spread out, so that the array grows in steps with holes.
        Some(7 * s + 3)
    }
}

#[test]
fn exploring_by_dense_index_gives_the_graph_of_the_hash_table() {
    let mut rng = Rng::new(99);
    for round in 0..20 {
        let game = random(&mut rng, 5 + round * 4, 1 + round % 3);
        let mut hashed = Random {
            n: game.n,
            mover: game.mover.clone(),
            options: game.options.clone(),
        };
        let a = explore(&mut hashed, false, 10_000).unwrap();
        let b = explore(&mut Dense(game), false, 10_000).unwrap();
        assert_eq!(a.states, b.states, "round {round}");
        assert_eq!(a.kind, b.kind, "round {round}");
        assert_eq!(a.outs, b.outs, "round {round}");
        assert!(a.len() > 1, "round {round}");
    }
}

#[test]
fn a_raised_interrupt_stops_every_method_and_a_lowered_one_changes_nothing() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut rng = Rng::new(7);
    let mut game = random(&mut rng, 12, 2);
    let g = explore(&mut game, false, 1000).unwrap();
    for exactness in [Exactness::Exact, Exactness::Float, Exactness::Auto] {
        let flag = Arc::new(AtomicBool::new(false));
        let with = |flag: &Arc<AtomicBool>| Options {
            interrupt: Some(flag.clone()),
            ..options(exactness)
        };
        // Lowered: the same answer as without a flag.
        let plain = solve(&g, &options(exactness)).unwrap();
        let watched = solve(&g, &with(&flag)).unwrap();
        assert_eq!(plain.value, watched.value, "{exactness:?}");
        assert_eq!(plain.exact, watched.exact, "{exactness:?}");
        // Raised (Ctrl-C): stopped, whatever the method.
        flag.store(true, Ordering::Relaxed);
        assert!(
            matches!(solve(&g, &with(&flag)), Err(ChanceError::Interrupted)),
            "{exactness:?}"
        );
    }
}
