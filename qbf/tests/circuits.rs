//! The auxiliary circuits (ADD/SUB of a constant, EQ, LT, the range test of BDCIR)
//! evaluated on every input for bit widths 1..=5 against integer arithmetic, and the
//! circuit builder's structural hashing and constant folding.

use gamelang_qbf::arith::{add_const, bits_for, constant, eq, eq_const, in_range, lt_const};
use gamelang_qbf::circuit::{Circuit, Lit};

/// A circuit with `n` input variables (1..=n) as bit vector(s).
fn inputs(c: &mut Circuit, first: u32, n: usize) -> Vec<Lit> {
    (0..n as u32).map(|i| c.var(first + i)).collect()
}

/// The value of a bit vector under `value`.
fn value(c: &Circuit, bits: &[Lit], v: &dyn Fn(u32) -> bool) -> i64 {
    bits.iter()
        .enumerate()
        .map(|(i, &b)| (c.eval(b, v) as i64) << i)
        .sum()
}

/// Variable i (1-based) of the assignment given as an integer: bit i-1.
fn assign(x: u64) -> impl Fn(u32) -> bool {
    move |v| (x >> (v - 1)) & 1 == 1
}

#[test]
fn add_and_sub_constants() {
    for w in 1..=5usize {
        let m = 1i64 << w;
        for k in -(m + 3)..=(m + 3) {
            let mut c = Circuit::new();
            let v = inputs(&mut c, 1, w);
            let sum = add_const(&mut c, &v, k);
            assert_eq!(sum.len(), w);
            for x in 0..m {
                let got = value(&c, &sum, &assign(x as u64));
                assert_eq!(got, (x + k).rem_euclid(m), "width {w}: {x} + {k}");
            }
        }
    }
}

#[test]
fn equality_of_vectors() {
    for wa in 1..=5usize {
        for wb in [wa, wa.saturating_sub(1).max(1), wa + 1] {
            let mut c = Circuit::new();
            let a = inputs(&mut c, 1, wa);
            let b = inputs(&mut c, wa as u32 + 1, wb);
            let e = eq(&mut c, &a, &b);
            for x in 0..(1u64 << wa) {
                for y in 0..(1u64 << wb) {
                    let v = assign(x | (y << wa));
                    assert_eq!(c.eval(e, &v), x == y, "widths {wa},{wb}: {x} = {y}");
                }
            }
        }
    }
}

#[test]
fn equality_with_constants() {
    for w in 1..=5usize {
        let m = 1i64 << w;
        for k in -2..=(m + 2) {
            let mut c = Circuit::new();
            let v = inputs(&mut c, 1, w);
            let e = eq_const(&mut c, &v, k);
            for x in 0..m {
                assert_eq!(c.eval(e, &assign(x as u64)), x == k, "width {w}: {x} = {k}");
            }
        }
    }
}

#[test]
fn less_than_constants() {
    for w in 1..=5usize {
        let m = 1i64 << w;
        for k in -2..=(m + 2) {
            let mut c = Circuit::new();
            let v = inputs(&mut c, 1, w);
            let lt = lt_const(&mut c, &v, k);
            for x in 0..m {
                assert_eq!(c.eval(lt, &assign(x as u64)), x < k, "width {w}: {x} < {k}");
            }
        }
    }
}

#[test]
fn ranges() {
    for w in 1..=4usize {
        let m = 1i64 << w;
        for lo in -1..=m {
            for hi in -1..=m {
                let mut c = Circuit::new();
                let v = inputs(&mut c, 1, w);
                let r = in_range(&mut c, &v, lo, hi);
                for x in 0..m {
                    assert_eq!(
                        c.eval(r, &assign(x as u64)),
                        lo <= x && x <= hi,
                        "width {w}: {lo} <= {x} <= {hi}"
                    );
                }
            }
        }
    }
}

#[test]
fn zero_width_vectors() {
    // A 1-wide board has positions without bits: the value is 0.
    let mut c = Circuit::new();
    assert_eq!(eq_const(&mut c, &[], 0), Lit::TRUE);
    assert_eq!(eq_const(&mut c, &[], 1), Lit::FALSE);
    assert_eq!(lt_const(&mut c, &[], 1), Lit::TRUE);
    assert_eq!(lt_const(&mut c, &[], 0), Lit::FALSE);
    assert_eq!(in_range(&mut c, &[], 0, 0), Lit::TRUE);
    assert_eq!(eq(&mut c, &[], &[]), Lit::TRUE);
    assert!(add_const(&mut c, &[], 3).is_empty());
    assert_eq!(constant(3, -1), vec![Lit::TRUE; 3]);
    let expect = [0, 0, 1, 2, 2, 3, 3, 3, 3, 4];
    for (n, &b) in expect.iter().enumerate() {
        assert_eq!(bits_for(n), b, "bits for {n} values");
    }
}

#[test]
fn structural_hashing_and_folding() {
    let mut c = Circuit::new();
    let (x, y, z) = (c.var(1), c.var(2), c.var(3));
    assert_eq!(c.var(1), x);
    assert_eq!(c.and(&[x, !x]), Lit::FALSE);
    assert_eq!(c.and(&[x, x]), x);
    assert_eq!(c.and(&[x, Lit::TRUE]), x);
    assert_eq!(c.and(&[x, Lit::FALSE, y]), Lit::FALSE);
    assert_eq!(c.and(&[]), Lit::TRUE);
    assert_eq!(c.or(&[]), Lit::FALSE);
    assert_eq!(c.or(&[x, !x]), Lit::TRUE);
    let a = c.and(&[x, y, z]);
    assert_eq!(c.and(&[z, x, y, x]), a, "the same gate, whatever the order");
    let n = c.len();
    c.and(&[y, z, x]);
    assert_eq!(c.len(), n, "no new node");
    assert_eq!(c.xor(x, x), Lit::FALSE);
    assert_eq!(c.xor(x, !x), Lit::TRUE);
    assert_eq!(c.xor(x, Lit::FALSE), x);
    assert_eq!(c.xor(Lit::TRUE, x), !x);
    assert_eq!(c.xor(!x, y), !c.xor(x, y));
    assert_eq!(c.xor(y, x), c.xor(x, y));
    assert_eq!(c.ite(x, y, y), y);
    assert_eq!(c.ite(x, Lit::TRUE, Lit::FALSE), x);
    assert_eq!(c.implies(Lit::FALSE, x), Lit::TRUE);
    // ite, iff, implies evaluate correctly.
    let ite = c.ite(x, y, z);
    let iff = c.iff(x, y);
    let imp = c.implies(x, y);
    for a in 0..8u64 {
        let v = assign(a);
        let (xv, yv, zv) = (v(1), v(2), v(3));
        assert_eq!(c.eval(ite, &v), if xv { yv } else { zv });
        assert_eq!(c.eval(iff, &v), xv == yv);
        assert_eq!(c.eval(imp, &v), !xv || yv);
    }
}
