//! Arithmetic modulo a prime below 2^62, in Montgomery form, for the exact solver of large
//! linear systems ([`crate::dixon`]): a product is three machine multiplications and no
//! division, and residues never grow, unlike rationals.

/// The integers modulo the prime `p` (p < 2^62, odd). Residues are kept in Montgomery form
/// (`a·2^64 mod p`); [`Modp::from_i128`] and [`Modp::to_u64`] convert.
#[derive(Clone, Copy, Debug)]
pub struct Modp {
    pub p: u64,
    /// −p⁻¹ mod 2^64.
    pinv: u64,
    /// 2^128 mod p (turns a residue into Montgomery form with one product).
    r2: u64,
    /// 1 in Montgomery form.
    pub one: u64,
}

impl Modp {
    pub fn new(p: u64) -> Modp {
        assert!(
            !p.is_multiple_of(2) && p < 1 << 62,
            "an odd modulus below 2^62"
        );
        // Newton's iteration for p⁻¹ mod 2^64 (each step doubles the correct low bits).
        let mut inv = p;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(p.wrapping_mul(inv)));
        }
        let r = ((1u128 << 64) % p as u128) as u64;
        let r2 = ((r as u128 * r as u128) % p as u128) as u64;
        Modp {
            p,
            pinv: inv.wrapping_neg(),
            r2,
            one: r,
        }
    }

    /// t·2^-64 mod p, for t < p·2^64.
    #[inline(always)]
    fn redc(&self, t: u128) -> u64 {
        let m = (t as u64).wrapping_mul(self.pinv);
        let u = ((t + m as u128 * self.p as u128) >> 64) as u64;
        if u >= self.p {
            u - self.p
        } else {
            u
        }
    }

    /// The Montgomery-form value of a sum of products of Montgomery-form values (each
    /// product `< p²`), accumulated without reduction: `t·2^-64 mod p`. With `p < 2^56`,
    /// up to 2^15 products (and one value shifted by 64 bits) fit 128 bits (the high word
    /// is folded below `p` first).
    #[inline(always)]
    pub fn reduce_wide(&self, t: u128) -> u64 {
        let hi = ((t >> 64) as u64) % self.p;
        self.redc(((hi as u128) << 64) | (t as u64 as u128))
    }

    #[inline(always)]
    pub fn mul(&self, a: u64, b: u64) -> u64 {
        self.redc(a as u128 * b as u128)
    }

    #[inline(always)]
    pub fn add(&self, a: u64, b: u64) -> u64 {
        let s = a + b;
        if s >= self.p {
            s - self.p
        } else {
            s
        }
    }

    #[inline(always)]
    pub fn sub(&self, a: u64, b: u64) -> u64 {
        if a >= b {
            a - b
        } else {
            a + self.p - b
        }
    }

    /// The residue of an integer, in Montgomery form.
    pub fn from_i128(&self, x: i128) -> u64 {
        let r = x.rem_euclid(self.p as i128) as u64;
        self.mul(r, self.r2)
    }

    /// The residue in `0..p` of a Montgomery-form value.
    pub fn to_u64(&self, a: u64) -> u64 {
        self.redc(a as u128)
    }

    /// The representative in `(−p/2, p/2]` of a Montgomery-form value.
    pub fn to_signed(&self, a: u64) -> i64 {
        let r = self.to_u64(a);
        if r > self.p / 2 {
            r as i64 - self.p as i64
        } else {
            r as i64
        }
    }

    pub fn pow(&self, mut a: u64, mut e: u64) -> u64 {
        let mut r = self.one;
        while e > 0 {
            if e & 1 == 1 {
                r = self.mul(r, a);
            }
            a = self.mul(a, a);
            e >>= 1;
        }
        r
    }

    /// The inverse of a non-zero residue (Fermat).
    pub fn inv(&self, a: u64) -> u64 {
        self.pow(a, self.p - 2)
    }
}

/// Is `n` prime? (Miller-Rabin with the first twelve primes as bases: exact below 2^64.)
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for &b in &BASES {
        if n.is_multiple_of(b) {
            return n == b;
        }
    }
    let mulmod = |a: u64, b: u64| ((a as u128 * b as u128) % n as u128) as u64;
    let (mut d, mut s) = (n - 1, 0);
    while d.is_multiple_of(2) {
        d /= 2;
        s += 1;
    }
    'bases: for &b in &BASES {
        let mut x = 1u64;
        let (mut base, mut e) = (b, d);
        while e > 0 {
            if e & 1 == 1 {
                x = mulmod(x, base);
            }
            base = mulmod(base, base);
            e >>= 1;
        }
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mulmod(x, x);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// The `k`-th prime below 2^56 counting down (0: the largest): small enough that sums of
/// 2^15 products fit 128 bits ([`Modp::reduce_wide`]).
pub fn prime(k: usize) -> u64 {
    let mut n = (1u64 << 56) - 1;
    let mut found = 0;
    loop {
        if is_prime(n) {
            if found == k {
                return n;
            }
            found += 1;
        }
        n -= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn montgomery_arithmetic_agrees_with_u128_arithmetic() {
        let p = prime(0);
        assert!(is_prime(p) && p < 1 << 56 && p > 1 << 55);
        assert!(!is_prime(p - 2) || prime(1) == p - 2);
        let f = Modp::new(p);
        let vals: [i128; 6] = [0, 1, -1, 123_456_789_012_345, -(p as i128) - 5, 1 << 100];
        for &a in &vals {
            for &b in &vals {
                let (ra, rb) = (a.rem_euclid(p as i128), b.rem_euclid(p as i128));
                let want = (ra * rb).rem_euclid(p as i128) as u64;
                let got = f.to_u64(f.mul(f.from_i128(a), f.from_i128(b)));
                assert_eq!(got, want, "{a} * {b}");
                let want = (ra - rb).rem_euclid(p as i128) as u64;
                assert_eq!(f.to_u64(f.sub(f.from_i128(a), f.from_i128(b))), want);
                let want = (ra + rb).rem_euclid(p as i128) as u64;
                assert_eq!(f.to_u64(f.add(f.from_i128(a), f.from_i128(b))), want);
            }
            if a.rem_euclid(p as i128) != 0 {
                let x = f.from_i128(a);
                assert_eq!(f.to_u64(f.mul(x, f.inv(x))), 1);
            }
        }
        // Sums of products reduced once.
        let xs: Vec<u64> = (0..1000u64)
            .map(|i| f.from_i128((i * i * 7919) as i128 - 99))
            .collect();
        let wide: u128 = xs.iter().map(|&x| x as u128 * xs[7] as u128).sum();
        let slow = xs.iter().fold(0, |acc, &x| f.add(acc, f.mul(x, xs[7])));
        assert_eq!(f.reduce_wide(wide), slow);
        assert_eq!(f.to_signed(f.from_i128(-7)), -7);
        assert_eq!(f.to_signed(f.from_i128(7)), 7);
        // Small primes and composites.
        let small: Vec<u64> = (0..40).filter(|&n| is_prime(n)).collect();
        assert_eq!(small, [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]);
        assert!(!is_prime(3_215_031_751)); // a strong pseudoprime to bases 2, 3, 5, 7
    }
}
