//! Exact probabilities that cost what a pair of machine words costs while they fit in one.
//!
//! Exploring a game handles a probability per outcome of every option of every state (about
//! seven million for Pig with goal 100), and the probabilities a game writes are small
//! fractions (`1 / 6`). A big rational allocates twice per value and divides by a gcd at
//! every addition, which made exploring spend more instructions on checking that each
//! distribution sums to 1 than on rewriting. [`Prob`] keeps a fraction of two `u64` in
//! lowest terms, adding in `u128`, and becomes a big rational only when a result does not
//! fit — so it is exact whatever the game writes.

use crate::{BigInt, Q};
use num_traits::{ToPrimitive, Zero};

/// A non-negative exact rational (a negative one is kept too, as a big rational, so that
/// the check that refuses it can show it). The representation is canonical — a fraction of
/// machine words in lowest terms whenever the value is one — so equality and hashing are
/// those of the value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prob(Repr);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Repr {
    /// `num / den`, `den > 0`, `gcd(num, den) = 1`.
    Small { num: u64, den: u64 },
    /// Any value that is not a `Small`.
    Big(Box<Q>),
}

fn gcd(a: u128, b: u128) -> u128 {
    // Division of 128-bit numbers is several times slower than of 64-bit ones, and the
    // values are nearly always small.
    if let (Ok(mut a), Ok(mut b)) = (u64::try_from(a), u64::try_from(b)) {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        return a as u128;
    }
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Prob {
    pub fn zero() -> Prob {
        Prob(Repr::Small { num: 0, den: 1 })
    }

    pub fn one() -> Prob {
        Prob(Repr::Small { num: 1, den: 1 })
    }

    /// `a / b` (`b` non-zero).
    pub fn ratio(a: i64, b: i64) -> Prob {
        assert!(b != 0, "a probability with denominator 0");
        if (a >= 0) == (b > 0) || a == 0 {
            Prob::small(a.unsigned_abs() as u128, b.unsigned_abs() as u128)
        } else {
            Prob(Repr::Big(Box::new(Q::new(
                BigInt::from(a),
                BigInt::from(b),
            ))))
        }
    }

    /// `num / den` (`den` non-zero) for a sum of numerators over one denominator.
    pub fn small_sum(num: i128, den: i64) -> Prob {
        assert!(den != 0, "a probability with denominator 0");
        if num == 0 || (num > 0) == (den > 0) {
            Prob::small(num.unsigned_abs(), den.unsigned_abs() as u128)
        } else {
            Prob::big(Q::new(BigInt::from(num), BigInt::from(den)))
        }
    }

    /// `num / den` in lowest terms, a big rational when it does not fit in machine words.
    fn small(num: u128, den: u128) -> Prob {
        let g = gcd(num, den).max(1);
        let (num, den) = (num / g, den / g);
        match (u64::try_from(num), u64::try_from(den)) {
            (Ok(num), Ok(den)) => Prob(Repr::Small { num, den }),
            _ => Prob(Repr::Big(Box::new(Q::new(
                BigInt::from(num),
                BigInt::from(den),
            )))),
        }
    }

    /// The canonical form of a big rational.
    fn big(q: Q) -> Prob {
        let fits = (q.numer().to_u64(), q.denom().to_u64());
        match fits {
            (Some(num), Some(den)) => Prob(Repr::Small { num, den }),
            _ => Prob(Repr::Big(Box::new(q))),
        }
    }

    pub fn to_q(&self) -> Q {
        match &self.0 {
            Repr::Small { num, den } => Q::new_raw(BigInt::from(*num), BigInt::from(*den)),
            Repr::Big(q) => (**q).clone(),
        }
    }

    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Small { num, den } => *num as f64 / *den as f64,
            Repr::Big(q) => q.to_f64().unwrap_or(f64::NAN),
        }
    }

    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Small { num, .. } => *num == 0,
            Repr::Big(q) => q.is_zero(),
        }
    }

    pub fn is_one(&self) -> bool {
        matches!(self.0, Repr::Small { num: 1, den: 1 })
    }

    pub fn is_negative(&self) -> bool {
        match &self.0 {
            Repr::Small { .. } => false,
            Repr::Big(q) => num_traits::Signed::is_negative(&**q),
        }
    }
}

impl std::ops::AddAssign<&Prob> for Prob {
    fn add_assign(&mut self, other: &Prob) {
        let sum = match (&self.0, &other.0) {
            (&Repr::Small { num: a, den: b }, &Repr::Small { num: c, den: d }) => {
                if b == d {
                    Prob::small(a as u128 + c as u128, b as u128)
                } else {
                    // a/b + c/d = (a·d + c·b) / (b·d): each product < 2^128, their sum may
                    // not be.
                    let (x, y) = (a as u128 * d as u128, c as u128 * b as u128);
                    match x.checked_add(y) {
                        Some(n) => Prob::small(n, b as u128 * d as u128),
                        None => Prob::big(self.to_q() + other.to_q()),
                    }
                }
            }
            _ => Prob::big(self.to_q() + other.to_q()),
        };
        *self = sum;
    }
}

impl From<Q> for Prob {
    fn from(q: Q) -> Prob {
        Prob::big(q)
    }
}

impl std::fmt::Display for Prob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Small { num, den: 1 } => write!(f, "{num}"),
            Repr::Small { num, den } => write!(f, "{num}/{den}"),
            Repr::Big(q) => write!(f, "{q}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(a: i64, b: i64) -> Q {
        Q::new(BigInt::from(a), BigInt::from(b))
    }

    /// Sums of fractions, small and past machine words, agree with big rationals, and the
    /// representation is canonical (equal values are equal `Prob`s).
    #[test]
    fn sums_agree_with_big_rationals() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let mut p = Prob::zero();
            let mut want = q(0, 1);
            for _ in 0..(next() % 8) {
                // Some denominators near 2^62, so that sums leave machine words.
                let den = if next() % 4 == 0 {
                    (next() >> 2) as i64 | 1
                } else {
                    (next() % 12 + 1) as i64
                };
                let num = (next() % 13) as i64;
                p += &Prob::ratio(num, den);
                want += q(num, den);
            }
            assert_eq!(p.to_q(), want);
            assert_eq!(p, Prob::from(want.clone()));
            assert_eq!(p.is_one(), want == q(1, 1));
            assert_eq!(p.is_zero(), want == q(0, 1));
            assert!(
                (p.to_f64() - want.to_f64().unwrap()).abs()
                    <= 1e-12 * want.to_f64().unwrap().max(1.0)
            );
        }
        let sixth = Prob::ratio(1, 6);
        let mut total = Prob::zero();
        for _ in 0..6 {
            total += &sixth;
        }
        assert!(total.is_one());
        assert_eq!(Prob::ratio(2, 12), sixth);
        assert_eq!(Prob::ratio(-2, -12), sixth);
        assert!(Prob::ratio(-1, 6).is_negative());
        assert!(Prob::ratio(1, -6).is_negative());
        assert_eq!(Prob::ratio(1, -6).to_q(), q(-1, 6));
        assert_eq!(Prob::ratio(0, -6), Prob::zero());
        assert_eq!(sixth.to_string(), "1/6");
        assert!(Prob::small_sum(6, 6).is_one());
        assert!(Prob::small_sum(-6, -6).is_one());
        assert_eq!(Prob::small_sum(-5, 6).to_q(), q(-5, 6));
        assert_eq!(Prob::small_sum(4, 6), Prob::ratio(2, 3));
        assert_eq!(Prob::small_sum(0, -6), Prob::zero());
    }
}
