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

/// The largest system ordered here (its bit sets take `m²/4` bytes: 225 MB at this size;
/// and below 2^15, so that a row's sum of products fits 128 bits, `Modp::reduce_wide`).
pub const MAX_ORDER: usize = 30_000;
const _: () = assert!(MAX_ORDER < 1 << 15 && MAX_ORDER <= u16::MAX as usize + 1);

/// The result of the symbolic elimination: the order and the pattern of `L + U`.
pub struct Symbolic {
    /// `order[k]`: the unknown eliminated `k`-th.
    pub order: Vec<u32>,
    /// `pos[v]`: where unknown `v` is in the order.
    pub pos: Vec<u32>,
    /// Row `k` of U (positions > k).
    upper: Rows,
    /// Row `k` of L: the positions `j < k` whose U row holds `k`, increasing.
    lower: Rows,
    /// The multiplications of one numeric factorisation.
    pub factor_ops: u64,
}

impl Symbolic {
    /// Coefficients of `L + U` (the diagonal excluded).
    pub fn fill(&self) -> usize {
        self.upper.idx.len() + self.lower.idx.len()
    }

    /// Order the unknowns `0..m` of a system whose off-diagonal entries are `edges`
    /// (row, column), by least Markowitz count: eliminate next the unknown `v` whose
    /// elimination creates the fewest entries, (rows with an entry in column v) × (columns
    /// of row v), ties to the lower number. The pattern is kept as bit sets, the rows of
    /// each column and the columns of each row.
    pub fn new(m: usize, edges: impl Iterator<Item = (u32, u32)>) -> Symbolic {
        assert!(m <= MAX_ORDER);
        // The bit sets are over *compact* numbers of the unknowns not yet eliminated
        // (`Compact`), renumbered whenever half of them are gone: the last thousand
        // unknowns of two-seat Snakes and Ladders form a nearly dense block, and with sets
        // as wide as the whole system each of its eliminations walked ~190 words per row
        // joined where ~20 now do (two-seat Snakes: 0.97 -> 0.41 s CPU up to the order). The counts,
        // the heap and the result use the unknowns' own numbers, so the order (ties to the
        // lower unknown) is the same as without renumbering.
        let mut sets = Compact::new(m, edges);
        let mut n_in: Vec<u64> = (0..m).map(|v| sets.count_in(v)).collect();
        let mut n_out: Vec<u64> = (0..m).map(|v| sets.count_out(v)).collect();
        // (Breaking ties by the fewer or by the more entries both filled more on Snakes and
        // Ladders with two players: 4.5 M and 4.3 M coefficients against 4.2 M.)
        let markowitz = |i: u64, o: u64| i * o;
        let score: Vec<u64> = (0..m).map(|v| markowitz(n_in[v], n_out[v])).collect();
        let mut heap = Heap::new(&score);
        let mut order = Vec::with_capacity(m);
        let mut ins_of: Vec<Vec<u32>> = Vec::with_capacity(m);
        let mut outs_of: Vec<Vec<u32>> = Vec::with_capacity(m);
        let mut left = m;
        while let Some(v) = heap.pop() {
            order.push(v as u32);
            left -= 1;
            let (r, c) = sets.eliminate(v, &mut n_in, &mut n_out);
            for &u in c.iter().chain(&r) {
                let u = u as usize;
                heap.set(u, markowitz(n_in[u], n_out[u]));
            }
            ins_of.push(c);
            outs_of.push(r);
            if left >= 64 && 2 * left <= sets.width() {
                sets.renumber();
            }
        }
        drop(sets);
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
            upper: Rows::new(upper),
            lower: Rows::new(lower),
            factor_ops,
        }
    }
}

/// The pattern during the symbolic elimination: for each unknown not yet eliminated, the
/// columns of its row (`outs`) and the rows with an entry in its column (`ins`), as bit
/// sets over compact numbers (`orig[i]` is the unknown numbered `i`; `id[v]` the number of
/// unknown `v`). [`Compact::renumber`] drops the eliminated unknowns from the numbering.
struct Compact {
    /// Words per set.
    words: usize,
    outs: Vec<u64>,
    ins: Vec<u64>,
    orig: Vec<u32>,
    id: Vec<u32>,
    /// Eliminated (by unknown).
    gone: Vec<bool>,
}

impl Compact {
    fn new(m: usize, edges: impl Iterator<Item = (u32, u32)>) -> Compact {
        let words = m.div_ceil(64);
        let mut outs = vec![0u64; m * words];
        let mut ins = vec![0u64; m * words];
        for (i, j) in edges {
            if i != j {
                let (i, j) = (i as usize, j as usize);
                outs[i * words + j / 64] |= 1 << (j % 64);
                ins[j * words + i / 64] |= 1 << (i % 64);
            }
        }
        Compact {
            words,
            outs,
            ins,
            orig: (0..m as u32).collect(),
            id: (0..m as u32).collect(),
            gone: vec![false; m],
        }
    }

    /// The numbers in use (eliminated unknowns not yet dropped included).
    fn width(&self) -> usize {
        self.orig.len()
    }

    fn count(set: &[u64]) -> u64 {
        set.iter().map(|w| w.count_ones() as u64).sum()
    }

    fn count_in(&self, v: usize) -> u64 {
        let i = self.id[v] as usize;
        Self::count(&self.ins[i * self.words..(i + 1) * self.words])
    }

    fn count_out(&self, v: usize) -> u64 {
        let i = self.id[v] as usize;
        Self::count(&self.outs[i * self.words..(i + 1) * self.words])
    }

    /// The compact numbers in `set`, increasing.
    fn members(set: &[u64]) -> Vec<u32> {
        let mut out = Vec::new();
        for (w, &bits) in set.iter().enumerate() {
            let mut b = bits;
            while b != 0 {
                out.push((w * 64 + b.trailing_zeros() as usize) as u32);
                b &= b - 1;
            }
        }
        out
    }

    /// Eliminate unknown `v`: every row of column `v` gets the columns of row `v`, and
    /// every column of row `v` the rows of column `v` (the counts `n_in`, `n_out` kept up
    /// to date). Returns the columns of row `v` and the rows of column `v`, as unknowns.
    fn eliminate(&mut self, v: usize, n_in: &mut [u64], n_out: &mut [u64]) -> (Vec<u32>, Vec<u32>) {
        let words = self.words;
        let cv = self.id[v] as usize;
        let row = self.outs[cv * words..(cv + 1) * words].to_vec();
        let col = self.ins[cv * words..(cv + 1) * words].to_vec();
        let (r, c) = (Self::members(&row), Self::members(&col));
        // Only the words where the added set has bits are visited, and the counts are kept
        // up to date word by word.
        let span = |set: &[u64]| -> std::ops::Range<usize> {
            let lo = set.iter().position(|&w| w != 0).unwrap_or(0);
            let hi = set.iter().rposition(|&w| w != 0).map_or(0, |h| h + 1);
            lo..hi.max(lo)
        };
        let join = |sets: &mut [u64],
                    cnt: &mut u64,
                    u: usize,
                    add: &[u64],
                    range: &std::ops::Range<usize>| {
            let o = &mut sets[u * words..(u + 1) * words];
            let mut gained = 0u64;
            for w in range.clone() {
                let new = o[w] | add[w];
                gained += (new ^ o[w]).count_ones() as u64;
                o[w] = new;
            }
            *cnt += gained;
            for x in [u, cv] {
                if o[x / 64] >> (x % 64) & 1 == 1 {
                    o[x / 64] &= !(1 << (x % 64));
                    *cnt -= 1;
                }
            }
        };
        let (rs, cs) = (span(&row), span(&col));
        for &u in &c {
            let ou = self.orig[u as usize] as usize;
            join(&mut self.outs, &mut n_out[ou], u as usize, &row, &rs);
        }
        for &w in &r {
            let ow = self.orig[w as usize] as usize;
            join(&mut self.ins, &mut n_in[ow], w as usize, &col, &cs);
        }
        self.gone[v] = true;
        let to_unknowns = |set: Vec<u32>| set.into_iter().map(|i| self.orig[i as usize]).collect();
        (to_unknowns(r), to_unknowns(c))
    }

    /// Number the unknowns left `0, 1, …` in increasing order (so ties still go to the
    /// lower unknown) and rebuild the sets over those numbers.
    fn renumber(&mut self) {
        let orig: Vec<u32> = self
            .orig
            .iter()
            .copied()
            .filter(|&v| !self.gone[v as usize])
            .collect();
        let words = orig.len().div_ceil(64);
        // Old compact number -> new one (eliminated: none; no set holds them).
        let mut new_of = vec![u32::MAX; self.orig.len()];
        for (i, &v) in orig.iter().enumerate() {
            new_of[self.id[v as usize] as usize] = i as u32;
        }
        let mut outs = vec![0u64; orig.len() * words];
        let mut ins = vec![0u64; orig.len() * words];
        for (i, &v) in orig.iter().enumerate() {
            let old = self.id[v as usize] as usize;
            for (sets, new) in [(&self.outs, &mut outs), (&self.ins, &mut ins)] {
                let set = &sets[old * self.words..(old + 1) * self.words];
                for j in Self::members(set) {
                    let nj = new_of[j as usize];
                    debug_assert!(nj != u32::MAX, "an eliminated unknown left in a set");
                    new[i * words + nj as usize / 64] |= 1 << (nj % 64);
                }
            }
        }
        for (i, &v) in orig.iter().enumerate() {
            self.id[v as usize] = i as u32;
        }
        self.outs = outs;
        self.ins = ins;
        self.orig = orig;
        self.words = words;
    }
}

/// The unknowns not yet eliminated by their Markowitz counts, least first, ties to the
/// lower number: a binary heap that knows where each unknown is, so that a count that
/// changes moves its one entry. (A heap of (count, unknown) pairs with the stale ones
/// skipped when popped grew to millions of entries on Snakes and Ladders, each update an
/// insertion: 9% of the exact solve, against a heap of 12,116 entries here.)
struct Heap {
    /// (count, unknown), a binary min-heap.
    items: Vec<(u64, u32)>,
    /// `at[v]`: where unknown `v` is in `items`, or `GONE`.
    at: Vec<u32>,
}

const GONE: u32 = u32::MAX;

impl Heap {
    fn new(score: &[u64]) -> Heap {
        let mut h = Heap {
            items: score
                .iter()
                .enumerate()
                .map(|(v, &s)| (s, v as u32))
                .collect(),
            at: (0..score.len() as u32).collect(),
        };
        for i in (0..h.items.len() / 2).rev() {
            h.down(i);
        }
        h
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.items.swap(i, j);
        self.at[self.items[i].1 as usize] = i as u32;
        self.at[self.items[j].1 as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.items[i] >= self.items[parent] {
                break;
            }
            self.swap(i, parent);
            i = parent;
        }
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut least = i;
            if l < self.items.len() && self.items[l] < self.items[least] {
                least = l;
            }
            if r < self.items.len() && self.items[r] < self.items[least] {
                least = r;
            }
            if least == i {
                break;
            }
            self.swap(i, least);
            i = least;
        }
    }

    /// The unknown of least count, taken out.
    fn pop(&mut self) -> Option<usize> {
        let last = self.items.len().checked_sub(1)?;
        self.swap(0, last);
        let (_, v) = self.items.pop().expect("not empty");
        self.at[v as usize] = GONE;
        if !self.items.is_empty() {
            self.down(0);
        }
        Some(v as usize)
    }

    /// A new count for `v` (nothing if it was taken out).
    fn set(&mut self, v: usize, count: u64) {
        let i = self.at[v];
        if i == GONE {
            return;
        }
        let i = i as usize;
        let old = self.items[i].0;
        self.items[i].0 = count;
        if count < old {
            self.up(i);
        } else if count > old {
            self.down(i);
        }
    }
}

/// A sparse pattern, row after row in one array. Positions are below [`MAX_ORDER`], so
/// 16 bits each: the triangular solves of the lifting read the whole pattern with the
/// factors for every digit, and at 10 bytes a coefficient instead of 12 they read less.
struct Rows {
    /// Row `k` is `idx[start[k]..start[k + 1]]`.
    start: Vec<usize>,
    idx: Vec<u16>,
}

impl Rows {
    fn new(rows: Vec<Vec<u32>>) -> Rows {
        let mut start = Vec::with_capacity(rows.len() + 1);
        start.push(0);
        let mut idx = Vec::with_capacity(rows.iter().map(Vec::len).sum());
        for r in rows {
            idx.extend(r.iter().map(|&j| j as u16));
            start.push(idx.len());
        }
        Rows { start, idx }
    }

    fn range(&self, k: usize) -> std::ops::Range<usize> {
        self.start[k]..self.start[k + 1]
    }

    fn row(&self, k: usize) -> &[u16] {
        &self.idx[self.range(k)]
    }
}

/// One column of the block's rows being eliminated (see [`Factors::new`]), on a cache line
/// of its own: the updates reach the columns at random, and a column straddling two lines
/// (the allocator only promises 16 bytes) made the factorisation of two-seat Snakes and
/// Ladders take 2.0 s instead of 1.2 s, depending on where the vector happened to start.
#[derive(Clone, Copy)]
#[repr(align(64))]
struct Acc([u128; BLOCK]);

/// `A = L·U` modulo a prime, in the order of a [`Symbolic`] (positions, not unknowns).
pub struct Factors {
    pub f: Modp,
    /// L below the diagonal, in the pattern `Symbolic::lower` (unit diagonal).
    l: Vec<u64>,
    /// U right of the diagonal, in the pattern `Symbolic::upper`.
    u: Vec<u64>,
    /// 1 / U[k][k].
    uinv: Vec<u64>,
}

impl Factors {
    /// Factor the matrix whose row `v` is `rows[v]` (unknown, integer coefficient; the
    /// pattern must be within the one `sym` was made from). `None` when a pivot is
    /// divisible by the prime.
    ///
    /// Rows are eliminated [`BLOCK`] at a time: each row of U computed before the block
    /// is read once for all of them (it is subtracted from every row of the block whose L
    /// has an entry in its column, times that entry), then the rows of the block are
    /// finished one after the other. Row by row, each row of U was read again for every
    /// later row that needs it: 12 GB read for the 1.2·10^9 multiplications of two-seat
    /// Snakes and Ladders, whose U (21 MB) does not fit the processor's cache.
    pub fn new(sym: &Symbolic, rows: &[Vec<(u32, i64)>], f: Modp) -> Option<Factors> {
        let m = sym.order.len();
        // The rows being eliminated, as unreduced sums of products (Montgomery values
        // times 2^64): an update is one multiplication and an addition, reduced once when
        // read. `w[c][b]` is column `c` of the block's row `b`.
        let mut w = vec![Acc([0u128; BLOCK]); m];
        let mut l = vec![0u64; sym.lower.idx.len()];
        let mut u = vec![0u64; sym.upper.idx.len()];
        let mut uinv = vec![0; m];
        let mut k0 = 0;
        while k0 < m {
            let rows_in = BLOCK.min(m - k0);
            for b in 0..rows_in {
                for &(j, a) in &rows[sym.order[k0 + b] as usize] {
                    let j = sym.pos[j as usize] as usize;
                    w[j].0[b] += (f.from_i128(a as i128) as u128) << 64;
                }
            }
            // Where each row of the block is in its L pattern.
            let mut at = [0usize; BLOCK];
            // The columns before the block, in increasing order over all its rows.
            loop {
                let next = |at: &[usize; BLOCK], b: usize| -> Option<usize> {
                    let j = *sym.lower.row(k0 + b).get(at[b])? as usize;
                    (j < k0).then_some(j)
                };
                let Some(j) = (0..rows_in).filter_map(|b| next(&at, b)).min() else {
                    break;
                };
                // w[b] −= x·U[j], as w[b] += (p − x)·U[j]; 0 for the rows without j.
                // The multipliers as words: a product of two words is one `mul` (as u128
                // the compiler may multiply the high halves too, and did).
                let mut nx = [0u64; BLOCK];
                for b in 0..rows_in {
                    if next(&at, b) == Some(j) {
                        let x = f.mul(f.reduce_wide(std::mem::take(&mut w[j].0[b])), uinv[j]);
                        l[sym.lower.start[k0 + b] + at[b]] = x;
                        at[b] += 1;
                        if x != 0 {
                            nx[b] = f.p - x;
                        }
                    }
                }
                if nx.iter().any(|&x| x != 0) {
                    let r = sym.upper.range(j);
                    for (&c, &a) in sym.upper.idx[r.clone()].iter().zip(&u[r]) {
                        let wc = &mut w[c as usize].0;
                        for b in 0..BLOCK {
                            wc[b] += nx[b] as u128 * a as u128;
                        }
                    }
                }
            }
            // The block's own columns, row after row.
            for b in 0..rows_in {
                let k = k0 + b;
                let lower = sym.lower.row(k);
                for (t, &j) in lower.iter().enumerate().skip(at[b]) {
                    let j = j as usize;
                    let x = f.mul(f.reduce_wide(std::mem::take(&mut w[j].0[b])), uinv[j]);
                    l[sym.lower.start[k] + t] = x;
                    if x != 0 {
                        let nx = (f.p - x) as u128;
                        let r = sym.upper.range(j);
                        for (&c, &a) in sym.upper.idx[r.clone()].iter().zip(&u[r]) {
                            w[c as usize].0[b] += nx * a as u128;
                        }
                    }
                }
                let r = sym.upper.range(k);
                for (&c, out) in sym.upper.idx[r.clone()].iter().zip(&mut u[r]) {
                    *out = f.reduce_wide(std::mem::take(&mut w[c as usize].0[b]));
                }
                let pivot = f.reduce_wide(std::mem::take(&mut w[k].0[b]));
                if pivot == 0 {
                    return None;
                }
                uinv[k] = f.inv(pivot);
            }
            k0 += rows_in;
        }
        Some(Factors { f, l, u, uinv })
    }

    /// Solve `A x = b` for `n` right-hand sides at once: `b` holds, for each position in
    /// the order, its `n` values (Montgomery form), and is overwritten by the solution.
    /// `scratch` holds the vectors the solves work on (allocated once per lifting, not per
    /// digit).
    pub fn solve(&self, sym: &Symbolic, n: usize, b: &mut [u64], scratch: &mut Scratch) {
        // Columns two at a time, side by side: the solves stream the factors from memory
        // (4.2 M coefficients of 10 bytes on Snakes and Ladders with two players, far
        // more than the caches), so a second column read along with the first costs
        // little more than its multiplications. (Columns were once interleaved `n` to a
        // position and indexed through `n` in the inner loop; that took 2.9 times as long
        // as one column.)
        let m = self.uinv.len();
        let mut i = 0;
        if n >= 2 {
            let pair = scratch.pair.get_or_insert_with(|| boxed([0; 2]));
            while i + 1 < n {
                for k in 0..m {
                    pair[k] = [b[k * n + i], b[k * n + i + 1]];
                }
                self.solve_two(sym, pair);
                for k in 0..m {
                    [b[k * n + i], b[k * n + i + 1]] = pair[k];
                }
                i += 2;
            }
        }
        if i < n {
            let col = scratch.col.get_or_insert_with(|| boxed(0));
            for k in 0..m {
                col[k] = b[k * n + i];
            }
            self.solve_one(sym, col);
            for k in 0..m {
                b[k * n + i] = col[k];
            }
        }
    }

    /// The triangular solves for two right-hand sides side by side.
    fn solve_two(&self, sym: &Symbolic, b: &mut [[u64; 2]; SPAN]) {
        let f = &self.f;
        let m = self.uinv.len();
        for k in 0..m {
            let r = sym.lower.range(k);
            let [a0, a1] = dot2(&sym.lower.idx[r.clone()], &self.l[r], b);
            b[k] = [
                f.sub(b[k][0], f.reduce_wide(a0)),
                f.sub(b[k][1], f.reduce_wide(a1)),
            ];
        }
        for k in (0..m).rev() {
            let r = sym.upper.range(k);
            let [a0, a1] = dot2(&sym.upper.idx[r.clone()], &self.u[r], b);
            let inv = self.uinv[k];
            b[k] = [
                f.mul(f.sub(b[k][0], f.reduce_wide(a0)), inv),
                f.mul(f.sub(b[k][1], f.reduce_wide(a1)), inv),
            ];
        }
    }

    /// The triangular solves for one right-hand side.
    fn solve_one(&self, sym: &Symbolic, b: &mut [u64; SPAN]) {
        let f = &self.f;
        let m = self.uinv.len();
        for k in 0..m {
            let r = sym.lower.range(k);
            let acc = dot(&sym.lower.idx[r.clone()], &self.l[r], b);
            b[k] = f.sub(b[k], f.reduce_wide(acc));
        }
        for k in (0..m).rev() {
            let r = sym.upper.range(k);
            let acc = dot(&sym.upper.idx[r.clone()], &self.u[r], b);
            b[k] = f.mul(f.sub(b[k], f.reduce_wide(acc)), self.uinv[k]);
        }
    }
}

/// Rows eliminated together by [`Factors::new`].
const BLOCK: usize = 4;

/// Positions are 16 bits, so a vector of `SPAN` entries indexed by one needs no bounds
/// check: the triangular solves work on such vectors (their inner loops are a gather, a
/// multiplication and an addition per coefficient, and a check there was a third of the
/// instructions).
const SPAN: usize = 1 << 16;

/// The vectors [`Factors::solve`] works on, made when first needed.
#[derive(Default)]
pub struct Scratch {
    col: Option<Box<[u64; SPAN]>>,
    pair: Option<Box<[[u64; 2]; SPAN]>>,
}

/// A vector of `SPAN` copies of `x` on the heap.
fn boxed<T: Copy + std::fmt::Debug>(x: T) -> Box<[T; SPAN]> {
    vec![x; SPAN]
        .into_boxed_slice()
        .try_into()
        .expect("SPAN entries")
}

/// `Σ vals[i]·b[idx[i]]`, unreduced, with four independent sums (one 128-bit sum is a chain
/// of dependent additions; four let the multiplications overlap).
#[inline(always)]
fn dot(idx: &[u16], vals: &[u64], b: &[u64; SPAN]) -> u128 {
    let mut acc = [0u128; 4];
    let (ic, vc) = (idx.chunks_exact(4), vals.chunks_exact(4));
    let (ir, vr) = (ic.remainder(), vc.remainder());
    for (i, v) in ic.zip(vc) {
        for t in 0..4 {
            acc[t] += v[t] as u128 * b[i[t] as usize] as u128;
        }
    }
    for (&i, &v) in ir.iter().zip(vr) {
        acc[0] += v as u128 * b[i as usize] as u128;
    }
    acc[0] + acc[1] + acc[2] + acc[3]
}

/// [`dot`] for two right-hand sides side by side: two independent sums per column.
#[inline(always)]
fn dot2(idx: &[u16], vals: &[u64], b: &[[u64; 2]; SPAN]) -> [u128; 2] {
    let mut acc = [[0u128; 2]; 2];
    let (ic, vc) = (idx.chunks_exact(2), vals.chunks_exact(2));
    let (ir, vr) = (ic.remainder(), vc.remainder());
    for (i, v) in ic.zip(vc) {
        for t in 0..2 {
            let x = b[i[t] as usize];
            acc[t][0] += v[t] as u128 * x[0] as u128;
            acc[t][1] += v[t] as u128 * x[1] as u128;
        }
    }
    for (&i, &v) in ir.iter().zip(vr) {
        let x = b[i as usize];
        acc[0][0] += v as u128 * x[0] as u128;
        acc[0][1] += v as u128 * x[1] as u128;
    }
    [acc[0][0] + acc[1][0], acc[0][1] + acc[1][1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift generator from `seed` (the tests must not depend on a crate's sequence).
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// The symbolic elimination (bit sets renumbered as unknowns go) gives the order and
    /// the pattern of `L + U` of a plain minimum-Markowitz elimination on a dense Boolean
    /// matrix, on random sparse patterns large enough to be renumbered several times.
    #[test]
    fn symbolic_elimination_matches_a_dense_reference() {
        let mut next = xorshift(0x51_7cc1_b727_220a);
        for (m, per_row) in [
            (1usize, 1u64),
            (5, 2),
            (70, 3),
            (200, 3),
            (300, 6),
            (513, 2),
        ] {
            let mut edges = Vec::new();
            for i in 0..m {
                for _ in 0..=next() % per_row {
                    edges.push((i as u32, (next() % m as u64) as u32));
                }
            }
            let sym = Symbolic::new(m, edges.iter().copied());
            // The reference: a dense pattern, eliminated by least (in × out, unknown).
            let mut a = vec![vec![false; m]; m];
            for &(i, j) in &edges {
                if i != j {
                    a[i as usize][j as usize] = true;
                }
            }
            let mut left = vec![true; m];
            let mut order = Vec::new();
            let mut rows_of = Vec::new();
            let mut cols_of = Vec::new();
            for _ in 0..m {
                let count = |v: usize, a: &Vec<Vec<bool>>| {
                    let ins = (0..m).filter(|&u| left[u] && a[u][v]).count() as u64;
                    let outs = (0..m).filter(|&w| left[w] && a[v][w]).count() as u64;
                    ins * outs
                };
                let v = (0..m)
                    .filter(|&v| left[v])
                    .min_by_key(|&v| (count(v, &a), v))
                    .unwrap();
                left[v] = false;
                let rows: Vec<usize> = (0..m).filter(|&u| left[u] && a[u][v]).collect();
                let cols: Vec<usize> = (0..m).filter(|&w| left[w] && a[v][w]).collect();
                for &u in &rows {
                    for &w in &cols {
                        if u != w {
                            a[u][w] = true;
                        }
                    }
                }
                order.push(v as u32);
                rows_of.push(rows);
                cols_of.push(cols);
            }
            assert_eq!(sym.order, order, "m = {m}");
            let mut ops = 0;
            for k in 0..m {
                let mut upper: Vec<u16> = cols_of[k].iter().map(|&w| sym.pos[w] as u16).collect();
                upper.sort_unstable();
                assert_eq!(sym.upper.row(k), &upper[..], "m = {m}, U row {k}");
                ops += (rows_of[k].len() * cols_of[k].len()) as u64;
            }
            for k in 0..m {
                // Row k of L: the earlier pivots whose column held unknown order[k].
                let lower: Vec<u16> = (0..k)
                    .filter(|&j| rows_of[j].contains(&(order[k] as usize)))
                    .map(|j| j as u16)
                    .collect();
                assert_eq!(sym.lower.row(k), &lower[..], "m = {m}, L row {k}");
            }
            assert_eq!(sym.factor_ops, ops, "m = {m}");
        }
    }

    /// The heap of Markowitz counts pops what a scan for the least (count, unknown) pair
    /// finds, through random changes of counts, including changes of unknowns already
    /// popped (ignored).
    #[test]
    fn heap_pops_the_least_count_first_ties_to_the_lower_unknown() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for m in [1usize, 2, 7, 64, 300] {
            let mut count: Vec<u64> = (0..m).map(|_| next() % 20).collect();
            let mut heap = Heap::new(&count);
            let mut left: Vec<bool> = vec![true; m];
            for _ in 0..m {
                for _ in 0..(next() % 6) {
                    let v = (next() % m as u64) as usize;
                    let c = next() % 20;
                    heap.set(v, c);
                    if left[v] {
                        count[v] = c;
                    }
                }
                let want = (0..m)
                    .filter(|&v| left[v])
                    .min_by_key(|&v| (count[v], v))
                    .unwrap();
                assert_eq!(heap.pop(), Some(want), "m = {m}");
                left[want] = false;
            }
            assert_eq!(heap.pop(), None);
        }
    }
}
