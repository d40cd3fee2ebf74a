//! Sparse LU factorisation modulo a prime, in a fill-reducing order, for [`crate::dixon`].
//!
//! The systems are `(I − P) x = b` of a Markov chain (scaled to integers): non-singular,
//! and eliminated without pivoting in any order over the rationals, so modulo a prime the
//! only risk is a pivot that happens to be divisible by the prime (then another prime is
//! taken). The order is **minimum degree** on the symmetric pattern of `A + Aᵀ`: the
//! symbolic elimination is done once, on bit sets (a row of `m` bits per unknown, so
//! this is for components of at most [`MAX_ORDER`] unknowns), and gives the pattern of
//! `L + U`, which every prime then reuses. On Snakes and Ladders with two players (11,552
//! unknowns) the natural order fills towards a dense matrix; minimum degree keeps it to a
//! few million coefficients.

use crate::modp::Modp;

/// The largest system ordered here (its bit sets take `m²/8` bytes: 112 MB at this size).
pub const MAX_ORDER: usize = 30_000;

/// The result of the symbolic elimination: the order and the pattern of `L + U`.
pub struct Symbolic {
    /// `order[k]`: the unknown eliminated `k`-th.
    pub order: Vec<u32>,
    /// `pos[v]`: where unknown `v` is in the order.
    pub pos: Vec<u32>,
    /// Row `k` of U (positions > k).
    upper: Vec<Vec<u32>>,
    /// Row `k` of L: the positions `j < k` whose U row holds `k`, increasing.
    lower: Vec<Vec<u32>>,
    /// The multiplications of one numeric factorisation.
    pub factor_ops: u64,
}

impl Symbolic {
    /// Coefficients of `L + U` (the diagonal excluded).
    pub fn fill(&self) -> usize {
        self.upper
            .iter()
            .chain(&self.lower)
            .map(Vec::len)
            .sum::<usize>()
    }

    /// Order the unknowns `0..m` of a system whose off-diagonal entries are `edges`
    /// (row, column), by least Markowitz count: eliminate next the unknown `v` whose
    /// elimination creates the fewest entries, (rows with an entry in column v) × (columns
    /// of row v), ties to the lower number. The pattern is kept as bit sets, the rows of
    /// each column and the columns of each row.
    pub fn new(m: usize, edges: impl Iterator<Item = (u32, u32)>) -> Symbolic {
        assert!(m <= MAX_ORDER);
        let words = m.div_ceil(64);
        // outs[v]: the columns of row v; ins[v]: the rows with an entry in column v.
        let mut outs = vec![0u64; m * words];
        let mut ins = vec![0u64; m * words];
        for (i, j) in edges {
            if i != j {
                let (i, j) = (i as usize, j as usize);
                outs[i * words + j / 64] |= 1 << (j % 64);
                ins[j * words + i / 64] |= 1 << (i % 64);
            }
        }
        let count = |set: &[u64], v: usize| -> u64 {
            set[v * words..(v + 1) * words]
                .iter()
                .map(|w| w.count_ones() as u64)
                .sum()
        };
        let mut score: Vec<u64> = (0..m).map(|v| count(&ins, v) * count(&outs, v)).collect();
        let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32)>> = (0..m)
            .map(|v| std::cmp::Reverse((score[v], v as u32)))
            .collect();
        let mut done = vec![false; m];
        let mut order = Vec::with_capacity(m);
        let mut ins_of: Vec<Vec<u32>> = Vec::with_capacity(m);
        let mut outs_of: Vec<Vec<u32>> = Vec::with_capacity(m);
        let (mut row, mut col) = (vec![0u64; words], vec![0u64; words]);
        let members = |set: &[u64]| -> Vec<u32> {
            let mut out = Vec::new();
            for (w, &bits) in set.iter().enumerate() {
                let mut b = bits;
                while b != 0 {
                    out.push((w * 64 + b.trailing_zeros() as usize) as u32);
                    b &= b - 1;
                }
            }
            out
        };
        while let Some(std::cmp::Reverse((sc, v))) = heap.pop() {
            let v = v as usize;
            if done[v] || sc != score[v] {
                continue;
            }
            done[v] = true;
            order.push(v as u32);
            row.copy_from_slice(&outs[v * words..(v + 1) * words]);
            col.copy_from_slice(&ins[v * words..(v + 1) * words]);
            let (r, c) = (members(&row), members(&col));
            // Eliminating v gives every row of column v the columns of row v, and every
            // column of row v the rows of column v.
            for &u in &c {
                let u = u as usize;
                let o = &mut outs[u * words..(u + 1) * words];
                for (a, b) in o.iter_mut().zip(&row) {
                    *a |= b;
                }
                o[u / 64] &= !(1 << (u % 64));
                o[v / 64] &= !(1 << (v % 64));
            }
            for &w in &r {
                let w = w as usize;
                let i = &mut ins[w * words..(w + 1) * words];
                for (a, b) in i.iter_mut().zip(&col) {
                    *a |= b;
                }
                i[w / 64] &= !(1 << (w % 64));
                i[v / 64] &= !(1 << (v % 64));
            }
            for &u in c.iter().chain(&r) {
                let u = u as usize;
                let sc = count(&ins, u) * count(&outs, u);
                if sc != score[u] {
                    score[u] = sc;
                    heap.push(std::cmp::Reverse((sc, u as u32)));
                }
            }
            ins_of.push(c);
            outs_of.push(r);
        }
        drop((outs, ins));
        let mut pos = vec![0u32; m];
        for (k, &v) in order.iter().enumerate() {
            pos[v as usize] = k as u32;
        }
        let upper: Vec<Vec<u32>> = outs_of
            .into_iter()
            .map(|ns| {
                let mut r: Vec<u32> = ns.into_iter().map(|u| pos[u as usize]).collect();
                r.sort_unstable();
                r
            })
            .collect();
        let mut lower: Vec<Vec<u32>> = vec![Vec::new(); m];
        let mut factor_ops = 0u64;
        for (k, c) in ins_of.iter().enumerate() {
            for &u in c {
                lower[pos[u as usize] as usize].push(k as u32);
            }
            factor_ops += c.len() as u64 * upper[k].len() as u64;
        }
        Symbolic {
            order,
            pos,
            upper,
            lower,
            factor_ops,
        }
    }
}

/// `A = L·U` modulo a prime, in the order of a [`Symbolic`] (positions, not unknowns).
pub struct Factors {
    pub f: Modp,
    /// Row `k` of L below the diagonal, in the pattern `Symbolic::lower[k]` (unit diagonal).
    l: Vec<Vec<u64>>,
    /// Row `k` of U right of the diagonal, in the pattern `Symbolic::upper[k]`.
    u: Vec<Vec<u64>>,
    /// 1 / U[k][k].
    uinv: Vec<u64>,
}

impl Factors {
    /// Factor the matrix whose row `v` is `rows[v]` (unknown, integer coefficient; the
    /// pattern must be within the one `sym` was made from). `None` when a pivot is
    /// divisible by the prime.
    pub fn new(sym: &Symbolic, rows: &[Vec<(u32, i64)>], f: Modp) -> Option<Factors> {
        let m = sym.order.len();
        // The row being eliminated, as unreduced sums of products (Montgomery values times
        // 2^64): an update is one multiplication and an addition, reduced once when read.
        let mut w = vec![0u128; m];
        let (mut l, mut u, mut uinv) = (Vec::with_capacity(m), Vec::with_capacity(m), vec![0; m]);
        for k in 0..m {
            for &(j, a) in &rows[sym.order[k] as usize] {
                let j = sym.pos[j as usize] as usize;
                w[j] += (f.from_i128(a as i128) as u128) << 64;
            }
            let lower = &sym.lower[k];
            let mut lk = Vec::with_capacity(lower.len());
            for &j in lower {
                let j = j as usize;
                let x = f.mul(f.reduce_wide(std::mem::take(&mut w[j])), uinv[j]);
                lk.push(x);
                if x != 0 {
                    // w −= x·U[j], as w += (p − x)·U[j].
                    let nx = (f.p - x) as u128;
                    for (&c, &a) in sym.upper[j].iter().zip(&u[j]) {
                        w[c as usize] += nx * a as u128;
                    }
                }
            }
            let uk: Vec<u64> = sym.upper[k]
                .iter()
                .map(|&c| f.reduce_wide(std::mem::take(&mut w[c as usize])))
                .collect();
            let pivot = f.reduce_wide(std::mem::take(&mut w[k]));
            if pivot == 0 {
                return None;
            }
            uinv[k] = f.inv(pivot);
            l.push(lk);
            let uk: Vec<u64> = uk;
            u.push(uk);
        }
        Some(Factors { f, l, u, uinv })
    }

    /// Solve `A x = b` for `n` right-hand sides at once: `b` holds, for each position in
    /// the order, its `n` values (Montgomery form), and is overwritten by the solution.
    pub fn solve(&self, sym: &Symbolic, n: usize, b: &mut [u64]) {
        let f = &self.f;
        let m = self.uinv.len();
        if n == 1 {
            // The common case (and pass 1 of the lifting): a plain dot product per row.
            for k in 0..m {
                let acc: u128 = sym.lower[k]
                    .iter()
                    .zip(&self.l[k])
                    .map(|(&j, &x)| x as u128 * b[j as usize] as u128)
                    .sum();
                b[k] = f.sub(b[k], f.reduce_wide(acc));
            }
            for k in (0..m).rev() {
                let acc: u128 = sym.upper[k]
                    .iter()
                    .zip(&self.u[k])
                    .map(|(&j, &x)| x as u128 * b[j as usize] as u128)
                    .sum();
                b[k] = f.mul(f.sub(b[k], f.reduce_wide(acc)), self.uinv[k]);
            }
            return;
        }
        let mut acc = vec![0u128; n];
        for k in 0..m {
            acc.iter_mut().for_each(|a| *a = 0);
            for (&j, &x) in sym.lower[k].iter().zip(&self.l[k]) {
                let j = j as usize;
                for i in 0..n {
                    acc[i] += x as u128 * b[j * n + i] as u128;
                }
            }
            for i in 0..n {
                b[k * n + i] = f.sub(b[k * n + i], f.reduce_wide(acc[i]));
            }
        }
        for k in (0..m).rev() {
            acc.iter_mut().for_each(|a| *a = 0);
            for (&j, &x) in sym.upper[k].iter().zip(&self.u[k]) {
                let j = j as usize;
                for i in 0..n {
                    acc[i] += x as u128 * b[j * n + i] as u128;
                }
            }
            for i in 0..n {
                let v = f.sub(b[k * n + i], f.reduce_wide(acc[i]));
                b[k * n + i] = f.mul(v, self.uinv[k]);
            }
        }
    }
}
