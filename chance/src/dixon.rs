//! Exact solution of large sparse linear systems with integer coefficients, by p-adic
//! lifting (Dixon 1982) over one LU factorisation modulo a word-size prime.
//!
//! Elimination over the rationals is hopeless on a system of ten thousand unknowns whose
//! solution has thousands of digits: every fill-in coefficient becomes a rational of that
//! size. Modulo a prime nothing grows, so the system is factored once, modulo `p`
//! ([`crate::lu`], in a minimum-degree order), and the solution is built digit by digit in
//! base `p`: with `r₀ = b`, each step solves `A·yₖ ≡ rₖ (mod p)` with the factors (digits
//! `yₖ` in `(−p/2, p/2]`) and sets `rₖ₊₁ = (rₖ − A·yₖ) / p`, an exact division of
//! integers. By induction, exactly over the integers,
//!
//! ```text
//!     b = A·(y₀ + y₁·p + … + yₖ₋₁·pᵏ⁻¹) + pᵏ·rₖ ,
//! ```
//!
//! and the residuals `rₖ` stay small (|rₖ| ≤ |rₖ₋₁|/p + Σ|A_row|/2). Two passes:
//!
//! 1. **The denominator.** The rational solution is `x = A⁻¹·b`; its digits, read as a
//!    p-adic number, determine `x` once `pᵏ` exceeds twice the product of the sizes of a
//!    numerator and the denominator (rational reconstruction: the half-way extended Euclid
//!    on `pᵏ` and the p-adic value). Sizes are not known in advance, so reconstruction is
//!    tried as `k` grows (by an eighth each time) on one number mixing every entry and
//!    every right-hand side with pseudo-random weights (so that no entry's denominator is
//!    missed); the first success gives a candidate common denominator `D`.
//! 2. **The certificate.** The same lifting on `D·b`. If `D` is a common denominator, the
//!    solution `D·x` is an integer vector, and once `pᵏ` is past twice its size the
//!    signed digits *are* its base-`p` expansion and the residual is exactly **zero**: then
//!    the identity above says `A·Y = D·b` over the integers, so `x = Y / D` is the
//!    solution — proved by exact integer arithmetic, whatever happened in pass 1. If the
//!    residual does not vanish within a generous number of steps, the candidate was wrong
//!    and the solver says so (the caller falls back to another method). When the
//!    right-hand sides add up to a constant solution (one winner at every end: the
//!    probabilities add up to 1), the last one is not lifted but taken as the difference.
//!
//! The work is one factorisation plus, per digit, two triangular solves and a product by
//! the integer matrix: linear in the size of the answer, where rational elimination is
//! quadratic in it per coefficient.

use crate::lu::{Factors, Scratch, Symbolic};
use crate::modp::{prime, Modp};
use crate::Q;
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// A square system `A x = B` with `n` right-hand sides: `A` sparse with small integer
/// coefficients, `B` integers of any size.
pub struct IntSystem {
    /// Row `k` of `A`: (column, coefficient), the diagonal included.
    pub rows: Vec<Vec<(u32, i64)>>,
    /// Row `k` of `B`: `n` integers.
    pub rhs: Vec<Vec<BigInt>>,
    pub n: usize,
}

/// The solution: `num[k][i] / den` for the wanted rows, every row in floating point.
pub struct Solved {
    pub den: BigInt,
    /// The numerators of the rows asked for (`None` for the others).
    pub num: Vec<Option<Vec<BigInt>>>,
    /// Every row, `n` values each, as `f64` (each correct to the last bit but one; a
    /// column not lifted, see [`Solved::lifted`], to a few units of the last place of the
    /// constant the columns add up to, except in the wanted rows).
    pub float: Vec<f64>,
    /// The right-hand sides lifted in pass 2: `n`, or `n − 1` when they add up to a
    /// constant solution and the last one is their difference.
    pub lifted: usize,
    /// Digits (lifting steps) of the two passes.
    pub steps: (usize, usize),
    /// Machine multiplications done (the factorisation and the lifting).
    pub ops: u64,
}

impl Solved {
    /// Row `k` as rationals (in lowest terms), when it was asked for.
    pub fn exact(&self, k: usize) -> Option<Vec<Q>> {
        self.num[k].as_ref().map(|v| {
            v.iter()
                .map(|a| Q::new(a.clone(), self.den.clone()))
                .collect()
        })
    }
}

/// Why a system was not solved.
#[derive(Debug)]
pub enum Stop {
    /// The coefficients do not suit this method (too large, too many unknowns).
    Unsuitable(String),
    /// The work passed the budget (machine multiplications).
    Budget(String),
    /// The matrix is singular (a zero pivot modulo several primes), or the certificate
    /// never came.
    Failed(String),
    /// The caller's `stopped` said so (Ctrl-C), at one of the points the budget is checked.
    Interrupted,
}

/// The residual vector `r` of the lifting: integers, in 128 bits where they fit (after a
/// few divisions by `p`, all of them; at the start, every entry whose right-hand side is
/// small, e.g. zero), the few others as big integers.
struct Residual {
    small: Vec<i128>,
    /// (entry, value) for the entries too big for `small` (whose slot there is unused).
    big: Vec<(usize, BigInt)>,
    /// Is the entry in `big`?
    is_big: Vec<bool>,
}

struct Lifting<'a> {
    sys: &'a IntSystem,
    sym: &'a Symbolic,
    fac: &'a Factors,
    /// Right-hand sides lifted together.
    n: usize,
    r: Residual,
    /// Scratch: one digit vector, in the order of the factorisation, n per position.
    work: Vec<u64>,
    scratch: Scratch,
}

/// Beyond this a residual entry is kept as a big integer (so that a row's sum of
/// coefficient × digit cannot overflow `i128`).
const SMALL: i128 = 1 << 100;

impl<'a> Lifting<'a> {
    fn new(
        sys: &'a IntSystem,
        sym: &'a Symbolic,
        fac: &'a Factors,
        b: Vec<BigInt>,
        n: usize,
    ) -> Self {
        let mut r = Residual {
            small: vec![0; b.len()],
            big: Vec::new(),
            is_big: vec![false; b.len()],
        };
        for (e, x) in b.into_iter().enumerate() {
            match x.to_i128().filter(|v| v.abs() < SMALL) {
                Some(v) => r.small[e] = v,
                None => {
                    r.is_big[e] = true;
                    r.big.push((e, x));
                }
            }
        }
        Lifting {
            sys,
            sym,
            fac,
            n,
            r,
            work: vec![0; sys.rows.len() * n],
            scratch: Scratch::default(),
        }
    }

    fn is_zero(&self) -> bool {
        self.r.big.is_empty() && self.r.small.iter().all(|&x| x == 0)
    }

    /// `(A·y)` of entry `e` = (row, column).
    fn ay(&self, e: usize, y: &[i64]) -> i128 {
        let n = self.n;
        let (v, i) = (e / n, e % n);
        self.sys.rows[v]
            .iter()
            .map(|&(j, a)| a as i128 * y[j as usize * n + i] as i128)
            .sum()
    }

    /// One digit: `y` (signed, per unknown, n each) with `A·y ≡ r (mod p)`, and
    /// `r ← (r − A·y) / p`.
    fn step(&mut self, y: &mut [i64]) -> Result<(), Stop> {
        let f = &self.fac.f;
        let n = self.n;
        let m = self.sys.rows.len();
        let pb = BigInt::from(f.p);
        for v in 0..m {
            let k = self.sym.pos[v] as usize;
            for i in 0..n {
                self.work[k * n + i] = f.from_i128(self.r.small[v * n + i]);
            }
        }
        for (e, x) in &self.r.big {
            let rem = x.mod_floor(&pb).to_i128().expect("below p");
            let (v, i) = (e / n, e % n);
            self.work[self.sym.pos[v] as usize * n + i] = f.from_i128(rem);
        }
        self.fac
            .solve(self.sym, n, &mut self.work, &mut self.scratch);
        for v in 0..m {
            let k = self.sym.pos[v] as usize;
            for i in 0..n {
                y[v * n + i] = f.to_signed(self.work[k * n + i]);
            }
        }
        let p = f.p as i128;
        let not_divisible = || Stop::Failed("a residual not divisible by p".into());
        for e in 0..m * n {
            if self.r.is_big[e] {
                continue;
            }
            let d = self.r.small[e] - self.ay(e, y);
            if d % p != 0 {
                return Err(not_divisible());
            }
            self.r.small[e] = d / p;
            if self.r.small[e].abs() >= SMALL {
                return Err(Stop::Failed("the residual grew".into()));
            }
        }
        let big = std::mem::take(&mut self.r.big);
        for (e, x) in big {
            let d = x - BigInt::from(self.ay(e, y));
            let (q, rem) = d.div_rem(&pb);
            if !rem.is_zero() {
                return Err(not_divisible());
            }
            match q.to_i128().filter(|v| v.abs() < SMALL) {
                Some(v) => {
                    self.r.small[e] = v;
                    self.r.is_big[e] = false;
                }
                None => self.r.big.push((e, q)),
            }
        }
        Ok(())
    }
}

/// `Σ digits[j]·p^j` for the digits of one entry (signed digits), by Horner's rule.
fn assemble<D: Into<BigInt>>(digits: impl DoubleEndedIterator<Item = D>, p: u64) -> BigInt {
    let pb = BigInt::from(p);
    let mut x = BigInt::zero();
    for d in digits.rev() {
        x *= &pb;
        x += d.into();
    }
    x
}

/// Pass 1's digits kept for the certificate, in bytes at most (past it, pass 2 lifts `D·B`
/// instead): 50 MB for two-seat Snakes and Ladders (518 digits of 12,116 unknowns).
const KEEP_BYTES: usize = 512 << 20;

/// The digits of `|x|` in base `p`, least significant first.
fn base_p(x: &BigInt, p: u64) -> Vec<u64> {
    let pb = BigUint::from(p);
    let mut x = x.magnitude().clone();
    let mut digits = Vec::new();
    while !x.is_zero() {
        let (q, r) = x.div_rem(&pb);
        digits.push(r.to_u64().expect("below p"));
        x = q;
    }
    digits
}

/// `(hi·2^128 + lo) / p` and its remainder, for `hi < p`.
#[inline(always)]
fn divmod_wide(hi: u64, lo: u128, p: u64) -> (u128, u64) {
    debug_assert!(hi < p);
    let p = p as u128;
    let n1 = (hi as u128) << 64 | lo >> 64;
    let (q1, r1) = (n1 / p, n1 % p);
    let n0 = r1 << 64 | (lo as u64 as u128);
    let (q0, r0) = (n0 / p, n0 % p);
    (q1 << 64 | q0, r0 as u64)
}

/// `Y = D·X mod p^K` in the symmetric range, for every entry: `kept[t][e]` is digit `t`
/// of entry `e` of the p-adic solution `X` (signed, as the lifting gives them), `dd` the
/// digits of `D`, and `K = kept.len()`. Returns `K` signed digits (in `(−p/2, p/2]`) per
/// entry, entry after entry (`[e·K + t]`).
///
/// A product of p-adic numbers digit by digit: `Sₜ = Σⱼ dⱼ·xₜ₋ⱼ` plus the carry gives
/// digit `t` and the next carry; what passes `p^K` is dropped. Entries are taken eight at
/// a time, so that reading digit `t` of each (one row of `kept`) reads one cache line.
fn scaled_digits(p: u64, dd: &[u64], kept: &[Vec<i64>]) -> Vec<i64> {
    const LANES: usize = 8;
    let k = kept.len();
    let entries = kept.first().map_or(0, Vec::len);
    let mut out = vec![0i64; entries * k];
    // Lane l's digits of X, in [0, p), contiguous (x[l·k + t]).
    let mut x = vec![0u64; LANES * k];
    let half = (p / 2) as i64;
    for e0 in (0..entries).step_by(LANES) {
        let lanes = LANES.min(entries - e0);
        // X's digits in [0, p): a signed digit below zero borrows one from the next.
        let mut borrow = [0i64; LANES];
        for (t, row) in kept.iter().enumerate() {
            let row = &row[e0..e0 + lanes];
            for l in 0..lanes {
                let mut z = row[l] + borrow[l];
                borrow[l] = 0;
                if z < 0 {
                    z += p as i64;
                    borrow[l] = -1;
                }
                x[l * k + t] = z as u64;
            }
        }
        for l in 0..lanes {
            let xl = &x[l * k..(l + 1) * k];
            let o = &mut out[(e0 + l) * k..(e0 + l + 1) * k];
            let (mut carry, mut up) = (0u128, 0i64);
            for t in 0..k {
                let (mut lo, mut hi) = (carry, 0u64);
                // Σ dⱼ·xₜ₋ⱼ: D's digits up, X's down from t (zipped: no index checks).
                let n = dd.len().min(t + 1);
                for (&d, &xd) in dd[..n].iter().zip(xl[t + 1 - n..=t].iter().rev()) {
                    let (s, over) = lo.overflowing_add(d as u128 * xd as u128);
                    lo = s;
                    hi += over as u64;
                }
                let (q, r) = divmod_wide(hi, lo, p);
                carry = q;
                // Balanced digits: one above p/2 becomes negative and carries one up.
                let mut z = r as i64 + up;
                up = 0;
                if z > half {
                    z -= p as i64;
                    up = 1;
                }
                o[t] = z;
            }
        }
    }
    out
}

/// Is `A·Y = D·B` exactly, over the integers? `y[e·K + t]` is digit `t` (signed, base `p`)
/// of entry `e` of `Y` (`cols` columns per unknown, as lifted). Each row's sum is formed
/// digit by digit and must vanish with its carries: a proof, not a test modulo something.
fn check_exact(
    sys: &IntSystem,
    p: u64,
    (den, dd): (&BigInt, &[u64]),
    y: &[i64],
    cols: usize,
) -> bool {
    let m = sys.rows.len();
    let k = y.len() / (m * cols).max(1);
    let pi = p as i128;
    let mut acc: Vec<i128> = Vec::new();
    for (v, row) in sys.rows.iter().enumerate() {
        for i in 0..cols {
            acc.clear();
            acc.resize(k, 0);
            for &(j, a) in row {
                let e = j as usize * cols + i;
                for (s, &d) in acc.iter_mut().zip(&y[e * k..(e + 1) * k]) {
                    *s += a as i128 * d as i128;
                }
            }
            // − D·b, digit by digit.
            let b = &sys.rhs[v][i];
            if !b.is_zero() {
                match b.to_i64().filter(|b| b.unsigned_abs() < 1 << 62) {
                    Some(b) => {
                        let mut carry = 0i128;
                        let mut t = 0;
                        while t < dd.len() || carry != 0 {
                            let s = dd.get(t).map_or(0, |&d| d as i128) * b as i128 + carry;
                            if t >= acc.len() {
                                acc.push(0);
                            }
                            // Truncated, so that the carry of a negative product
                            // shrinks to zero too (digits take the product's sign).
                            acc[t] -= s % pi;
                            carry = s / pi;
                            t += 1;
                        }
                    }
                    None => {
                        let db = den * b;
                        let sign: i128 = if db.is_negative() { -1 } else { 1 };
                        for (t, d) in base_p(&db, p).into_iter().enumerate() {
                            if t >= acc.len() {
                                acc.push(0);
                            }
                            acc[t] -= sign * d as i128;
                        }
                    }
                }
            }
            let mut carry = 0i128;
            for &s in &acc {
                let s = s + carry;
                if s % pi != 0 {
                    return false;
                }
                carry = s / pi;
            }
            if carry != 0 {
                return false;
            }
        }
    }
    true
}

/// The fraction `a / b` with `a ≡ b·x (mod m)`, |a| and b below `√(m/2)` and |a|·b below
/// `m / 2^64`, if there is one (Wang's rational reconstruction: the extended Euclidean
/// algorithm stopped half-way).
pub fn reconstruct(x: &BigInt, m: &BigInt) -> Option<(BigInt, BigInt)> {
    let bound = (m / 2u32).sqrt();
    let (mut r0, mut r1) = (m.clone(), x.mod_floor(m));
    let (mut t0, mut t1) = (BigInt::zero(), BigInt::one());
    while r1 > bound {
        let (q, r2) = r0.div_rem(&r1);
        let t2 = &t0 - &q * &t1;
        (r0, r1, t0, t1) = (r1, r2, t1, t2);
    }
    if t1.is_zero() || t1.abs() > bound {
        return None;
    }
    let (a, b) = if t1.is_negative() {
        (-r1, -t1)
    } else {
        (r1, t1)
    };
    // Half of all residues have *some* fraction within Wang's bounds; a true answer leaves
    // room to spare, so ask for 64 bits of it (a spurious fraction passes with
    // probability about 2^-64; and a wrong one is caught by the certificate anyway).
    if a.bits() + b.bits() + 64 < m.bits() && a.gcd(&b).is_one() {
        Some((a, b))
    } else {
        None
    }
}

/// Solve `sys` exactly: the rows `wanted` as rationals, every row as floating point.
/// `max_ops` bounds the machine multiplications (the factorisation's and the lifting's);
/// `stopped` is asked wherever that budget is checked (every lifting step), so that Ctrl-C
/// ends a long lifting.
pub fn solve(
    sys: &IntSystem,
    wanted: &[bool],
    max_ops: u64,
    stopped: &dyn Fn() -> bool,
) -> Result<Solved, Stop> {
    solve_with(sys, wanted, max_ops, stopped, true)
}

/// [`solve`], with the certificate taken from pass 1's digits when `from_digits` (else,
/// for the tests, pass 2 always lifts `D·B`).
fn solve_with(
    sys: &IntSystem,
    wanted: &[bool],
    max_ops: u64,
    stopped: &dyn Fn() -> bool,
    from_digits: bool,
) -> Result<Solved, Stop> {
    let m = sys.rows.len();
    let n = sys.n;
    if m > crate::lu::MAX_ORDER {
        return Err(Stop::Unsuitable(format!("{m} unknowns")));
    }
    let row_weight = sys
        .rows
        .iter()
        .map(|r| r.iter().map(|&(_, a)| a.unsigned_abs()).sum::<u64>())
        .max()
        .unwrap_or(0);
    if row_weight >= 1 << 30 {
        return Err(Stop::Unsuitable("coefficients too large".into()));
    }
    let sym = Symbolic::new(
        m,
        sys.rows
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.iter().map(move |&(j, _)| (i as u32, j))),
    );
    let fill = sym.fill() as u64 + m as u64;
    let trace = std::env::var_os("GAMELANG_TRACE_LIFTING").is_some();
    let t0 = std::time::Instant::now();
    if trace {
        eprintln!(
            "lifting: {m} unknowns, L+U {} coefficients, factorisation {} multiplications ({:.2} s CPU)",
            sym.fill(),
            sym.factor_ops,
            cpu()
        );
    }
    let nnz: u64 = sys.rows.iter().map(|r| r.len() as u64).sum();
    let mut ops = sym.factor_ops;
    let budget = |ops: u64| -> Result<(), Stop> {
        if stopped() {
            Err(Stop::Interrupted)
        } else if ops > max_ops {
            Err(Stop::Budget(format!(
                "the exact solution passed its budget of {max_ops:e} multiplications modulo p"
            )))
        } else {
            Ok(())
        }
    };
    budget(ops)?;
    // A prime at which no pivot vanishes (over the rationals none does).
    let mut fac = None;
    for k in 0..4 {
        if let Some(f) = Factors::new(&sym, &sys.rows, Modp::new(prime(k))) {
            fac = Some(f);
            break;
        }
    }
    let Some(fac) = fac else {
        return Err(Stop::Failed("a zero pivot modulo four primes".into()));
    };
    let p = fac.f.p;
    let pb = BigInt::from(p);
    if trace {
        eprintln!(
            "lifting: factored in {:?} ({:.2} s CPU)",
            t0.elapsed(),
            cpu()
        );
    }

    // Pass 1: a candidate denominator, from one number that mixes every unknown of every
    // column lifted: the columns are weighted 1, 2, 3…, and the solution's entries with
    // pseudo-random weights below 2^20, so that (barring a coincidence, which the
    // certificate would catch) its denominator is the least common one of all entries. Its
    // p-adic digits are the weighted sums of the digits (carries are left to the
    // assembly). When the right-hand sides add up to a constant solution (`A·(c, …, c) =
    // Σᵢ Bᵢ`: a chain where every path ends with exactly one winner, whose probabilities
    // add up to 1), the last column is not lifted: its denominator divides the others'.
    // The digits of every entry are kept for the certificate (below), within `KEEP_BYTES`.
    let sum = if n >= 2 { constant_sum(sys) } else { None };
    let cols = if sum.is_some() { n - 1 } else { n };
    let b1: Vec<BigInt> = sys
        .rhs
        .iter()
        .flat_map(|r| r[..cols].iter().cloned())
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let weights: Vec<i128> = (0..m)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 44) as i128 + 1
        })
        .collect();
    let mut lift = Lifting::new(sys, &sym, &fac, b1, cols);
    let mut kept: Option<Vec<Vec<i64>>> = Some(Vec::new());
    let keep_limit = KEEP_BYTES / (8 * m * cols).max(1);
    let mut digits: Vec<i128> = Vec::new();
    let mut next_try = 4usize;
    let mut modulus = BigInt::one();
    let den = loop {
        let mut y = vec![0i64; m * cols];
        lift.step(&mut y)?;
        ops += (fill + nnz) * cols as u64;
        budget(ops)?;
        modulus *= &pb;
        digits.push(
            y.iter()
                .enumerate()
                .map(|(e, &d)| d as i128 * weights[e / cols] * (e % cols + 1) as i128)
                .sum(),
        );
        kept = kept.filter(|k| k.len() < keep_limit).map(|mut k| {
            k.push(y);
            k
        });
        let k = digits.len();
        if lift.is_zero() {
            // The solution is an integer vector (denominator 1 so far).
            break BigInt::one();
        }
        if k < next_try {
            continue;
        }
        next_try = k + (k / 8).max(2);
        if let Some((_, b)) = reconstruct(&assemble(digits.iter().copied(), p), &modulus) {
            break b;
        }
    };
    let steps1 = digits.len();
    if trace {
        eprintln!(
            "lifting: pass 1, {steps1} digits, denominator {} bits, {:?} ({:.2} s CPU)",
            den.bits(),
            t0.elapsed(),
            cpu()
        );
    }

    // The certificate. `D·x` is an integer vector if `D` is a common denominator; pass 1's
    // digits give `x` modulo `p^k`, so `Y = D·x mod p^K` (K a little past the size of `D`,
    // in the symmetric range) is `D·x` itself when `|x| < p/2` — a product of p-adic
    // numbers, digit by digit (`scaled_digits`), far cheaper than lifting `D·B` again.
    // Then `A·Y = D·B` is checked exactly over the integers (`check_exact`), which proves
    // `x = Y / D` whatever happened before. If it fails (a larger `|x|`, or a `D` that
    // misses a factor), `K` is taken as every digit kept, and failing that, pass 2.
    let mut certified = None;
    if let Some(kept) = kept.as_ref().filter(|_| from_digits) {
        let dd = base_p(&den, p);
        let mut tries = vec![(dd.len() + 2).min(steps1), steps1];
        tries.dedup();
        for k in tries {
            if k > kept.len() {
                continue;
            }
            ops += (m * cols * k * dd.len()) as u64;
            budget(ops)?;
            let y = scaled_digits(p, &dd, &kept[..k]);
            if check_exact(sys, p, (&den, &dd), &y, cols) {
                // The digits as the rest reads them: digit after digit, [t][e].
                let entries = m * cols;
                let by_digit = (0..k)
                    .map(|t| (0..entries).map(|e| y[e * k + t]).collect())
                    .collect();
                certified = Some(by_digit);
                break;
            }
        }
    }

    // Pass 2 (when the certificate above failed): lift D·B until the residual is exactly
    // zero. The entries whose digits have
    // not stopped by the limit are not integers: D misses a factor of their denominators
    // (rows with smaller denominators than others, e.g. parts of the chain that cannot
    // reach the probes). Their fractions are reconstructed from these digits, D is
    // multiplied by their denominators, and the pass starts again (up to four times).
    // As in pass 1, the last column is not lifted when the columns add up to a constant:
    // `Y_last = D·c − Σ Yᵢ` (then `A·Y_last = D·c·A·1 − Σ D·Bᵢ = D·B_last`, exact like the
    // rest).
    let mut den = den;
    let mut rounds = 0;
    let by_certificate = certified.is_some();
    let all = match certified {
        Some(y) => y,
        None => loop {
            let scaled: Vec<BigInt> = sys
                .rhs
                .iter()
                .flat_map(|r| r[..cols].iter().map(|x| x * &den))
                .collect();
            let mut lift = Lifting::new(sys, &sym, &fac, scaled, cols);
            let mut all: Vec<Vec<i64>> = Vec::new();
            let limit = 2 * steps1 + 8;
            while !lift.is_zero() && all.len() < limit {
                let mut y = vec![0i64; m * cols];
                lift.step(&mut y)?;
                ops += (fill + nnz) * cols as u64;
                budget(ops)?;
                all.push(y);
            }
            if lift.is_zero() {
                break all;
            }
            rounds += 1;
            if rounds > 4 {
                return Err(Stop::Failed(format!(
                    "no exact certificate after {limit} digits"
                )));
            }
            let modulus = pb.pow(all.len() as u32);
            let last = all.last().expect("at least one digit");
            let mut extra = BigInt::one();
            for e in 0..m * cols {
                if last[e] != 0 {
                    let x = assemble(all.iter().map(|y| y[e]), p);
                    let Some((_, b)) = reconstruct(&x, &modulus) else {
                        return Err(Stop::Failed(format!(
                            "no exact certificate after {limit} digits"
                        )));
                    };
                    extra = extra.lcm(&b);
                }
            }
            if extra.is_one() {
                return Err(Stop::Failed(format!(
                    "no exact certificate after {limit} digits"
                )));
            }
            den *= extra;
        },
    };
    // Y = Σ digits·p^j exactly; the wanted rows as integers, every row as f64 from its
    // three leading digits (|the rest| < p^(t−2), so the relative error is below p^-2).
    let steps2 = all.len();
    if trace {
        let how = if by_certificate {
            "certified from pass 1's digits"
        } else {
            "lifted again (pass 2)"
        };
        eprintln!(
            "lifting: {steps2} digits of {cols} column(s), {how}, {:?} ({:.2} s CPU)",
            t0.elapsed(),
            cpu()
        );
    }
    let dc = sum.as_ref().map(|c| &den * c);
    let mut num = vec![None; m];
    for k in 0..m {
        if wanted[k] {
            let mut v: Vec<BigInt> = (0..cols)
                .map(|i| assemble(all.iter().map(|y| y[k * cols + i]), p))
                .collect();
            if let Some(dc) = &dc {
                let rest = v.iter().fold(dc.clone(), |a, y| a - y);
                v.push(rest);
            }
            num[k] = Some(v);
        }
    }
    let den_shift = den.bits().saturating_sub(60);
    let den_top = (&den >> den_shift).to_f64().expect("60 bits");
    let mut powers: Vec<Option<BigInt>> = vec![None; steps2 + 1];
    let mut float = vec![0.0f64; m * n];
    for k in 0..m {
        for i in 0..cols {
            let Some(t) = (0..steps2).rev().find(|&j| all[j][k * cols + i] != 0) else {
                continue;
            };
            let lo = t.saturating_sub(2);
            let top = assemble((lo..=t).map(|j| all[j][k * cols + i]), p);
            let scale = powers[lo].get_or_insert_with(|| pb.pow(lo as u32));
            let y = top * &*scale;
            float[k * n + i] = ratio(&y, den_shift, den_top);
        }
        if let Some(c) = &sum {
            // The column not lifted: from the exact numerator where there is one, else
            // `c` minus the others (to within a few units of the last place of `c`).
            float[k * n + cols] = match &num[k] {
                Some(v) => ratio(&v[cols], den_shift, den_top),
                None => {
                    c.to_f64().unwrap_or(f64::NAN) - float[k * n..k * n + cols].iter().sum::<f64>()
                }
            };
        }
    }
    Ok(Solved {
        den,
        num,
        float,
        steps: (steps1, steps2),
        ops,
        lifted: cols,
    })
}

/// The integer `c` with `A·(c, …, c) = Σᵢ Bᵢ`, when there is one: every row's right-hand
/// sides add up to `c` times the row's sum of coefficients (and to zero where that sum is
/// zero). Checked exactly on every row; `None` also when no row fixes `c`.
fn constant_sum(sys: &IntSystem) -> Option<BigInt> {
    let mut c: Option<BigInt> = None;
    for (row, rhs) in sys.rows.iter().zip(&sys.rhs) {
        let weight: i128 = row.iter().map(|&(_, a)| a as i128).sum();
        let total: BigInt = rhs.iter().sum();
        if weight == 0 {
            if !total.is_zero() {
                return None;
            }
            continue;
        }
        let (q, r) = total.div_rem(&BigInt::from(weight));
        if !r.is_zero() || c.as_ref().is_some_and(|c| *c != q) {
            return None;
        }
        c = Some(q);
    }
    c
}

/// The process's CPU time so far in seconds, for the trace (`GAMELANG_TRACE_LIFTING`), where
/// the system says (Linux); 0 elsewhere.
fn cpu() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields 14 and 15 (user and system time in clock ticks of 1/100 s), after the
    // command name in parentheses.
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = after
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    f.iter().sum::<f64>() / 100.0
}

/// `y / d` in floating point, `d = den_top · 2^den_shift`.
fn ratio(y: &BigInt, den_shift: u64, den_top: f64) -> f64 {
    let neg = y.sign() == Sign::Minus;
    let a = y.abs();
    let bits = a.bits();
    let shift = bits.saturating_sub(60);
    let top = (&a >> shift).to_f64().expect("60 bits");
    let e = shift as i64 - den_shift as i64;
    let v = top / den_top * 2f64.powi(e.clamp(-1100, 1100) as i32);
    if neg {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linear::System;

    /// A small xorshift generator (the tests must not depend on a crate's sequence).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// A chain built row by row twice over: as the integer system lifting solves, and as
    /// the rational system [`crate::linear`] solves by elimination (the reference).
    struct TwoWays {
        rows: Vec<Vec<(u32, i64)>>,
        rhs: Vec<Vec<BigInt>>,
        sys: System<Q>,
    }

    impl TwoWays {
        fn new(m: usize, n: usize) -> Self {
            TwoWays {
                rows: Vec::new(),
                rhs: Vec::new(),
                sys: System::new(m, n),
            }
        }

        /// The next row: its coefficients (dense) and right-hand sides.
        fn push(&mut self, row: &[i64], b: Vec<BigInt>) {
            let k = self.rows.len();
            let entries: Vec<(u32, i64)> = row
                .iter()
                .enumerate()
                .filter(|(_, &a)| a != 0)
                .map(|(j, &a)| (j as u32, a))
                .collect();
            for &(j, a) in &entries {
                self.sys.set(k, j as usize, Q::from_integer(a.into()));
            }
            for (i, bi) in b.iter().enumerate() {
                self.sys.rhs_mut(k)[i] = Q::from_integer(bi.clone());
            }
            self.rows.push(entries);
            self.rhs.push(b);
        }

        /// The reference solution (`None`: singular), and the integer system.
        fn split(mut self, n: usize) -> (Option<Vec<Vec<Q>>>, IntSystem) {
            let want = self.sys.solve(|_, _| Ok(())).ok();
            let int = IntSystem {
                rows: self.rows,
                rhs: self.rhs,
                n,
            };
            (want, int)
        }
    }

    /// Random Markov chains with exits, scaled to integers (`6·(I − P)`, die-like
    /// transitions), solved by p-adic lifting and by rational elimination
    /// ([`crate::linear`]): the same rationals, every row.
    #[test]
    fn lifting_agrees_with_rational_elimination() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..30 {
            let m = 2 + round * 3;
            let n = 1 + round % 3;
            let mut chain = TwoWays::new(m, n);
            for k in 0..m {
                // Six throws of a die: each to a random unknown, or out (an exit paying a
                // random amount to each right-hand side).
                let mut row = vec![0i64; m];
                row[k] += 6;
                let mut b = vec![BigInt::zero(); n];
                for _ in 0..6 {
                    if rng.below(3) == 0 {
                        // Every fourth system has right-hand sides of 40 digits and more
                        // (the residual's big-integer entries).
                        let big = BigInt::from(10u32).pow(if round % 4 == 0 { 40 } else { 0 });
                        for bi in b.iter_mut() {
                            *bi += (BigInt::from(rng.below(1000)) - 300) * &big;
                        }
                    } else {
                        row[rng.below(m as u64) as usize] -= 1;
                    }
                }
                // Make sure every unknown can leave: the last row always exits.
                if k == m - 1 && row[k] == 0 {
                    row[k] = 6;
                }
                chain.push(&row, b);
            }
            let (Some(want), int) = chain.split(n) else {
                continue; // a chain that cannot leave: singular, not a test case
            };
            let wanted = vec![true; m];
            // Certified from pass 1's digits, and by lifting `D·B` again (pass 2).
            let got = solve(&int, &wanted, u64::MAX, &|| false).expect("solved");
            let again = solve_with(&int, &wanted, u64::MAX, &|| false, false).expect("solved");
            for k in 0..m {
                let e = got.exact(k).unwrap();
                assert_eq!(e, want[k], "round {round}, row {k}");
                assert_eq!(again.exact(k).unwrap(), want[k], "round {round}, row {k}");
                for i in 0..n {
                    let w = want[k][i].to_f64().unwrap();
                    assert!(
                        (got.float[k * n + i] - w).abs() <= 1e-14 * w.abs().max(1e-300),
                        "round {round}, row {k}: {} vs {w}",
                        got.float[k * n + i]
                    );
                }
            }
        }
    }

    /// Ctrl-C during a lifting: `stopped` is asked at every step, and a `true` ends the
    /// solution with [`Stop::Interrupted`] wherever it comes; never asked `true`, the same
    /// system is solved.
    #[test]
    fn a_lifting_stops_when_asked() {
        let m = 40;
        let mut chain = TwoWays::new(m, 1);
        for k in 0..m {
            let mut row = vec![0i64; m];
            row[k] += 6;
            row[(k + 1) % m] -= 2;
            row[(k * 7 + 3) % m] -= 3;
            chain.push(&row, vec![BigInt::from(k as i64 + 1)]);
        }
        let (Some(want), int) = chain.split(1) else {
            panic!("the chain leaves at every state")
        };
        let wanted = vec![true; m];
        let asked = std::cell::Cell::new(0u32);
        let count = || {
            asked.set(asked.get() + 1);
            false
        };
        let got = solve(&int, &wanted, u64::MAX, &count).expect("solved");
        assert_eq!(got.exact(0).unwrap(), want[0]);
        let steps = asked.get();
        assert!(steps > 5, "asked only {steps} times");
        for stop_at in [1, 2, steps / 2, steps] {
            let asked = std::cell::Cell::new(0u32);
            let stop = || {
                asked.set(asked.get() + 1);
                asked.get() >= stop_at
            };
            match solve(&int, &wanted, u64::MAX, &stop) {
                Err(Stop::Interrupted) => assert_eq!(asked.get(), stop_at),
                other => panic!("stop at {stop_at} of {steps}: {:?}", other.map(|s| s.ops)),
            }
        }
    }

    /// Random chains whose every exit pays one of `n` players `c` (so the columns add up
    /// to the constant solution `c`, as in a game with exactly one winner): pass 2 lifts
    /// `n − 1` columns and the last is their difference, and the answers are still those of
    /// rational elimination — exact in the wanted rows, in floating point in every row.
    /// With one row spoiled (paying one player a little more), all `n` are lifted.
    #[test]
    fn columns_adding_up_to_a_constant_lift_one_column_less() {
        let mut rng = Rng(0x51_7cc1_b727_220a);
        for round in 0..24 {
            let m = 3 + round * 4;
            let n = 2 + round % 3;
            let c: i64 = if round % 2 == 0 { 1 } else { 7 };
            let spoil = round % 4 == 3;
            let mut chain = TwoWays::new(m, n);
            for k in 0..m {
                let mut row = vec![0i64; m];
                row[k] += 6;
                let mut b = vec![0i64; n];
                for _ in 0..6 {
                    if rng.below(3) == 0 || k == m - 1 {
                        b[rng.below(n as u64) as usize] += c;
                    } else {
                        row[rng.below(m as u64) as usize] -= 1;
                    }
                }
                if spoil && k == m / 2 {
                    b[0] += 1;
                }
                chain.push(&row, b.into_iter().map(BigInt::from).collect());
            }
            let (Some(want), int) = chain.split(n) else {
                continue;
            };
            let wanted: Vec<bool> = (0..m).map(|k| k % 2 == 0).collect();
            let got = solve(&int, &wanted, u64::MAX, &|| false).expect("solved");
            assert_eq!(got.lifted, if spoil { n } else { n - 1 }, "round {round}");
            for k in 0..m {
                if wanted[k] {
                    assert_eq!(got.exact(k).unwrap(), want[k], "round {round}, row {k}");
                }
                for i in 0..n {
                    let w = want[k][i].to_f64().unwrap();
                    let tol = if wanted[k] || i + 1 < n || spoil {
                        1e-14 * w.abs()
                    } else {
                        1e-14 * c as f64
                    };
                    assert!(
                        (got.float[k * n + i] - w).abs() <= tol.max(1e-300),
                        "round {round}, row {k}, column {i}: {} vs {w}",
                        got.float[k * n + i]
                    );
                }
            }
        }
    }

    /// `scaled_digits` is the product of p-adic numbers: against big-integer arithmetic,
    /// `D·X mod p^K` in the symmetric range, with random signed digits (a few entries,
    /// more than one group of eight) and denominators of one to many digits.
    #[test]
    fn scaled_digits_agree_with_big_integers() {
        let mut rng = Rng(0x0dd_ba11_cafe_f00d);
        let p = prime(0);
        let half = (p / 2) as i64;
        let signed = |r: &mut Rng| (r.below(p) as i64) - half + 1;
        for (entries, k, dlen) in [
            (1usize, 1usize, 1usize),
            (3, 5, 2),
            (11, 9, 4),
            (17, 30, 12),
        ] {
            let kept: Vec<Vec<i64>> = (0..k)
                .map(|_| (0..entries).map(|_| signed(&mut rng)).collect())
                .collect();
            let mut den = BigInt::zero();
            for _ in 0..dlen {
                den = den * BigInt::from(p) + BigInt::from(rng.below(p));
            }
            den += 1;
            let dd = base_p(&den, p);
            let y = scaled_digits(p, &dd, &kept);
            let pk = BigInt::from(p).pow(k as u32);
            for e in 0..entries {
                let x = assemble(kept.iter().map(|r| r[e]), p);
                let mut want = (&den * &x).mod_floor(&pk);
                if &want * 2 > pk {
                    want -= &pk;
                }
                let got = assemble(y[e * k..(e + 1) * k].iter().copied(), p);
                assert_eq!(got, want, "entries {entries}, K {k}, entry {e}");
                assert!(y[e * k..(e + 1) * k].iter().all(|&d| d.abs() <= half + 1));
            }
        }
    }

    /// The certificate is a proof: the true `Y = D·x` passes, and a `Y` off by one unit in
    /// any digit of any entry, or a wrong `D`, does not.
    #[test]
    fn the_exact_check_refuses_a_wrong_solution() {
        // A small system, its solution as rationals from the reference solver.
        let mut chain = TwoWays::new(3, 1);
        chain.push(&[6, -1, 0], vec![BigInt::from(5)]);
        chain.push(&[-2, 6, -3], vec![BigInt::from(4)]);
        chain.push(&[0, -1, 6], vec![BigInt::from(-7)]);
        let (Some(want), sys) = chain.split(1) else {
            panic!("singular")
        };
        let p = prime(0);
        let den = want.iter().fold(BigInt::one(), |d, x| d.lcm(x[0].denom()));
        let k = 3;
        let digits_of = |v: &BigInt| -> Vec<i64> {
            // Balanced base-p digits of a small integer.
            let mut v = v.clone();
            let mut out = Vec::new();
            for _ in 0..k {
                let r = v.mod_floor(&BigInt::from(p)).to_i64().unwrap();
                let r = if r > (p / 2) as i64 { r - p as i64 } else { r };
                out.push(r);
                v = (v - r) / BigInt::from(p);
            }
            out
        };
        let mut y: Vec<i64> = want
            .iter()
            .flat_map(|x| digits_of(&(x[0].numer() * (&den / x[0].denom()))))
            .collect();
        let (dd, den2) = (base_p(&den, p), &den * 2);
        assert!(check_exact(&sys, p, (&den, &dd), &y, 1));
        assert!(!check_exact(&sys, p, (&den2, &base_p(&den2, p)), &y, 1));
        for i in 0..y.len() {
            y[i] += 1;
            assert!(
                !check_exact(&sys, p, (&den, &dd), &y, 1),
                "digit {i} off by one"
            );
            y[i] -= 1;
        }
    }

    #[test]
    fn reconstruction_finds_small_fractions() {
        let m = BigInt::from(prime(0)) * BigInt::from(prime(1));
        for (a, b) in [(3i64, 7i64), (-5, 11), (0, 1), (12345, 678)] {
            let inv = BigInt::from(b).modinv(&m).unwrap();
            let x = (BigInt::from(a) * inv).mod_floor(&m);
            let (ra, rb) = reconstruct(&x, &m).unwrap();
            let g = BigInt::from(a).gcd(&BigInt::from(b));
            assert_eq!((ra, rb), (BigInt::from(a) / &g, BigInt::from(b) / &g));
        }
        // A fraction with too little room to spare is not trusted: of residues taken at
        // random, (almost) none is accepted.
        let mut rng = Rng(12345);
        let accepted = (0..1000)
            .filter(|_| {
                let x = BigInt::from(rng.next()) * BigInt::from(rng.next());
                reconstruct(&x, &m).is_some()
            })
            .count();
        assert!(accepted < 5, "{accepted}");
    }
}
