//! Sparse Gaussian elimination, written once for every number type the solvers use:
//! exact rationals (policy evaluation) and floating point (the jumps of value iteration).
//!
//! The systems are `(I - P) x = b` of a Markov chain restricted to states that reach an
//! exit: a non-singular M-matrix, so elimination in the given order needs no pivoting.
//! Rows are sparse maps; `cols[j]` remembers which rows may have an entry in column `j`,
//! so eliminating a pivot visits only the rows it touches.

use crate::Q;
use num_traits::{One, Zero};
use std::collections::BTreeMap;

/// The arithmetic the elimination needs.
pub trait Field: Clone {
    fn zero() -> Self;
    fn one() -> Self;
    /// Zero, or too small to divide by (floating point).
    fn negligible(&self) -> bool;
    fn div(&self, by: &Self) -> Self;
    /// `self -= f * a`.
    fn sub_mul(&mut self, f: &Self, a: &Self);
    /// What multiplying by `self` costs, for the elimination's work budget (bits for
    /// rationals, whose size grows; 1 for machine numbers).
    fn cost(&self) -> u64;
}

impl Field for Q {
    fn zero() -> Q {
        Zero::zero()
    }
    fn one() -> Q {
        One::one()
    }
    fn negligible(&self) -> bool {
        self.is_zero()
    }
    fn div(&self, by: &Q) -> Q {
        self / by
    }
    fn sub_mul(&mut self, f: &Q, a: &Q) {
        if f.is_zero() || a.is_zero() {
            return;
        }
        // self − f·a = (s·f'·a' − f·a·s') / (s'·f'·a') (primes: denominators), reduced once:
        // `-=` of a product reduces after the product and again after the difference, and
        // the gcds of big integers were most of the elimination's time.
        let (fd_ad, fn_an) = (f.denom() * a.denom(), f.numer() * a.numer());
        let num = self.numer() * &fd_ad - fn_an * self.denom();
        let den = self.denom() * fd_ad;
        *self = Q::new(num, den);
    }
    fn cost(&self) -> u64 {
        self.numer().bits() + self.denom().bits()
    }
}

impl Field for f64 {
    fn zero() -> f64 {
        0.0
    }
    fn one() -> f64 {
        1.0
    }
    fn negligible(&self) -> bool {
        self.abs() < 1e-300
    }
    fn div(&self, by: &f64) -> f64 {
        self / by
    }
    fn sub_mul(&mut self, f: &f64, a: &f64) {
        *self -= f * a;
    }
    fn cost(&self) -> u64 {
        1
    }
}

/// Why a system was not solved.
#[derive(Debug)]
pub enum Stop {
    /// A zero pivot.
    Singular,
    /// The budget check said stop, with its reason.
    Budget(String),
}

/// A sparse system of `m` equations with `n` right-hand sides (one per player).
pub struct System<F> {
    rows: Vec<BTreeMap<usize, F>>,
    rhs: Vec<Vec<F>>,
    cols: Vec<Vec<usize>>,
    /// Non-zero coefficients created so far (the entries set, then the fill-in).
    pub fill: usize,
    /// The sum of the costs of the multiplications done so far.
    pub work: u64,
}

impl<F: Field> System<F> {
    pub fn new(m: usize, n: usize) -> System<F> {
        System {
            rows: vec![BTreeMap::new(); m],
            rhs: vec![vec![F::zero(); n]; m],
            cols: vec![Vec::new(); m],
            fill: 0,
            work: 0,
        }
    }

    /// Set the coefficient of `x[j]` in equation `k` to `v`.
    pub fn set(&mut self, k: usize, j: usize, v: F) {
        if self.rows[k].insert(j, v).is_none() {
            self.fill += 1;
            if k != j {
                self.cols[j].push(k);
            }
        }
    }

    /// Subtract `v` from the coefficient of `x[j]` in equation `k`.
    pub fn sub(&mut self, k: usize, j: usize, v: &F) {
        let fill = &mut self.fill;
        let e = self.rows[k].entry(j).or_insert_with(|| {
            *fill += 1;
            F::zero()
        });
        e.sub_mul(&F::one(), v);
        if k != j {
            self.cols[j].push(k);
        }
    }

    /// The right-hand sides of equation `k`.
    pub fn rhs_mut(&mut self, k: usize) -> &mut Vec<F> {
        &mut self.rhs[k]
    }

    /// Solve by elimination in the order of the equations; `check(fill, work)` is asked
    /// after each pivot whether to go on.
    pub fn solve(
        &mut self,
        mut check: impl FnMut(usize, u64) -> Result<(), String>,
    ) -> Result<Vec<Vec<F>>, Stop> {
        let m = self.rows.len();
        for k in 0..m {
            self.rows[k].retain(|_, v| !v.negligible());
            let pivot = self.rows[k].get(&k).cloned().unwrap_or_else(F::zero);
            if pivot.negligible() {
                return Err(Stop::Singular);
            }
            let row_k: Vec<(usize, F)> = self.rows[k]
                .range(k + 1..)
                .map(|(&c, v)| (c, v.div(&pivot)))
                .collect();
            let rhs_k: Vec<F> = self.rhs[k].iter().map(|v| v.div(&pivot)).collect();
            self.rows[k] = row_k.iter().cloned().collect();
            self.rhs[k] = rhs_k.clone();
            let mut users = std::mem::take(&mut self.cols[k]);
            users.sort_unstable();
            users.dedup();
            for j in users {
                if j <= k {
                    continue;
                }
                let Some(f) = self.rows[j].remove(&k) else {
                    continue;
                };
                let fc = f.cost();
                for (c, a) in &row_k {
                    let fill = &mut self.fill;
                    let e = self.rows[j].entry(*c).or_insert_with(|| {
                        *fill += 1;
                        F::zero()
                    });
                    self.work += fc + a.cost();
                    e.sub_mul(&f, a);
                    self.cols[*c].push(j);
                }
                for (x, r) in self.rhs[j].iter_mut().zip(&rhs_k) {
                    self.work += fc + r.cost();
                    x.sub_mul(&f, r);
                }
            }
            check(self.fill, self.work).map_err(Stop::Budget)?;
        }
        // Back substitution (each row is now normalised: an implicit 1 on the diagonal).
        let mut x: Vec<Vec<F>> = vec![Vec::new(); m];
        for k in (0..m).rev() {
            let mut v = std::mem::take(&mut self.rhs[k]);
            for (&c, a) in &self.rows[k] {
                for (vi, xi) in v.iter_mut().zip(&x[c]) {
                    vi.sub_mul(a, xi);
                }
            }
            x[k] = v;
        }
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BigInt;

    fn q(a: i64, b: i64) -> Q {
        Q::new(BigInt::from(a), BigInt::from(b))
    }

    /// A random-walk chain on 0..m (exits at both ends), solved exactly and in floating
    /// point: the solution satisfies every equation (checked by substitution).
    #[test]
    fn both_number_types_solve_a_chain() {
        let m = 7;
        let mut exact: System<Q> = System::new(m, 1);
        let mut float: System<f64> = System::new(m, 1);
        let mut a = vec![vec![q(0, 1); m]; m];
        let mut b = vec![q(0, 1); m];
        for k in 0..m {
            exact.set(k, k, q(1, 1));
            float.set(k, k, 1.0);
            a[k][k] = q(1, 1);
            // Step left with 1/3 (from 0: a self-loop), right with 2/3 (from m-1: exit with 1).
            let left = k.saturating_sub(1);
            exact.sub(k, left, &q(1, 3));
            float.sub(k, left, &(1.0 / 3.0));
            a[k][left] -= q(1, 3);
            if k + 1 < m {
                exact.sub(k, k + 1, &q(2, 3));
                float.sub(k, k + 1, &(2.0 / 3.0));
                a[k][k + 1] -= q(2, 3);
            } else {
                exact.rhs_mut(k)[0] = q(2, 3);
                float.rhs_mut(k)[0] = 2.0 / 3.0;
                b[k] = q(2, 3);
            }
        }
        let x = exact.solve(|_, _| Ok(())).unwrap();
        let y = float.solve(|_, _| Ok(())).unwrap();
        for k in 0..m {
            let lhs: Q = (0..m).map(|j| &a[k][j] * &x[j][0]).sum();
            assert_eq!(lhs, b[k], "equation {k}");
            let xf: f64 = num_traits::ToPrimitive::to_f64(&x[k][0]).unwrap();
            assert!((xf - y[k][0]).abs() < 1e-12, "{xf} vs {}", y[k][0]);
        }
        // A budget that says stop stops.
        let mut s: System<f64> = System::new(1, 1);
        s.set(0, 0, 1.0);
        assert!(matches!(
            s.solve(|_, _| Err("budget".into())),
            Err(Stop::Budget(_))
        ));
        let mut s: System<f64> = System::new(1, 1);
        s.set(0, 0, 0.0);
        assert!(matches!(s.solve(|_, _| Ok(())), Err(Stop::Singular)));
    }
}
