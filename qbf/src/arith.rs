//! The seed's auxiliary arithmetic circuits (section 4.3) over bit vectors (least
//! significant bit first, unsigned): ADD and SUB of a constant (SUB(V, k) = ADD(V, -k) in
//! two's complement, so one adder serves both, as the seed says), EQ of two vectors or of a
//! vector and a constant, and LT of a vector and a constant (and the range test built from
//! two LTs that BDCIR uses).
//!
//! Every circuit works modulo 2^width: `add_const` drops the carry out. The encoding only
//! relies on the result where the implicit bounds (BDCIR) hold, and there a position plus an
//! offset stays on the board, hence below 2^width: no wrap-around is ever observed there.

use crate::circuit::{Circuit, Lit};

/// 2^width as an i128 (widths are small: at most 32 in practice).
fn pow2(width: usize) -> i128 {
    if width >= 100 {
        i128::MAX
    } else {
        1i128 << width
    }
}

/// The bits of `k` modulo 2^width as constant literals.
pub fn constant(width: usize, k: i64) -> Vec<Lit> {
    let m = pow2(width);
    let k = (k as i128).rem_euclid(m);
    (0..width)
        .map(|i| {
            if (k >> i) & 1 == 1 {
                Lit::TRUE
            } else {
                Lit::FALSE
            }
        })
        .collect()
}

/// ADD(V, k): the bits of (V + k) mod 2^|V| (k may be negative: SUB(V, -k)).
/// A ripple-carry adder whose second operand is a constant, so each bit costs one XOR and
/// one AND or OR (and nothing where the carry is constant).
pub fn add_const(c: &mut Circuit, v: &[Lit], k: i64) -> Vec<Lit> {
    let kb = constant(v.len(), k);
    let mut carry = Lit::FALSE;
    let mut out = Vec::with_capacity(v.len());
    for (i, &b) in v.iter().enumerate() {
        if kb[i] == Lit::TRUE {
            // b + 1 + carry: sum = ¬(b ⊕ carry), carry' = b ∨ carry.
            out.push(!c.xor(b, carry));
            carry = c.or2(b, carry);
        } else {
            // b + carry: sum = b ⊕ carry, carry' = b ∧ carry.
            out.push(c.xor(b, carry));
            carry = c.and2(b, carry);
        }
    }
    out
}

/// EQ(A, B) for two vectors (the shorter one is padded with zeros).
pub fn eq(c: &mut Circuit, a: &[Lit], b: &[Lit]) -> Lit {
    let n = a.len().max(b.len());
    let bits: Vec<Lit> = (0..n)
        .map(|i| {
            let x = a.get(i).copied().unwrap_or(Lit::FALSE);
            let y = b.get(i).copied().unwrap_or(Lit::FALSE);
            c.iff(x, y)
        })
        .collect();
    c.and(&bits)
}

/// EQ(V, k) for a constant k: a single AND of literals (false if k does not fit in |V| bits).
pub fn eq_const(c: &mut Circuit, v: &[Lit], k: i64) -> Lit {
    if k < 0 || (k as i128) >= pow2(v.len()) {
        return Lit::FALSE;
    }
    let bits: Vec<Lit> = v
        .iter()
        .enumerate()
        .map(|(i, &b)| if (k >> i) & 1 == 1 { b } else { !b })
        .collect();
    c.and(&bits)
}

/// LT(V, k): V < k, for a constant k. From the most significant bit down: V < k iff at the
/// first bit where they differ, V has 0 and k has 1.
pub fn lt_const(c: &mut Circuit, v: &[Lit], k: i64) -> Lit {
    if k <= 0 {
        return Lit::FALSE;
    }
    if (k as i128) >= pow2(v.len()) {
        return Lit::TRUE;
    }
    // lt over bits 0..i (exclusive), built from the least significant bit up.
    let mut lt = Lit::FALSE;
    for (i, &b) in v.iter().enumerate() {
        lt = if (k >> i) & 1 == 1 {
            // k has 1 here: V < k iff V has 0 here, or V has 1 and the lower bits are less.
            c.or2(!b, lt)
        } else {
            // k has 0 here: V needs 0 here and the lower bits less.
            c.and2(!b, lt)
        };
    }
    lt
}

/// lo ≤ V ≤ hi: ¬LT(V, lo) ∧ LT(V, hi + 1), the two halves of BDCIR for one axis.
pub fn in_range(c: &mut Circuit, v: &[Lit], lo: i64, hi: i64) -> Lit {
    if lo > hi {
        return Lit::FALSE;
    }
    let ge = !lt_const(c, v, lo);
    let le = lt_const(c, v, hi.saturating_add(1));
    c.and2(ge, le)
}

/// The number of bits needed to write 0..n-1 (0 for n ≤ 1).
pub fn bits_for(n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize
    }
}
