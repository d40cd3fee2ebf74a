//! The strict built-ins on Booleans and machine integers, and (computed by the term store,
//! see `term/map.rs` and `term/set.rs`) on finite maps and sets.

use super::*;

impl Engine {
    pub(super) fn as_bool(&self, t: TermId) -> Option<bool> {
        if Some(t) == self.true_t {
            Some(true)
        } else if Some(t) == self.false_t {
            Some(false)
        } else {
            None
        }
    }

    /// Evaluate the strict built-in `b` of operator `op` on its `n` normal arguments (the
    /// first two are `a0`, `a1`): `Ok(None)` if they are not values of the right kind.
    #[inline(always)]
    pub(super) fn builtin_of(
        &mut self,
        b: Builtin,
        op: OpId,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Result<Option<TermId>, BuiltinError> {
        // The set built-ins need their operator (its instance); the others do not, and
        // `builtin` without it is what `quick` inlines (an extra argument there cost the
        // heaps sweep 0.5%). `quick` never meets a set built-in: they have equations.
        if b.is_set() {
            Ok(self.set_builtin(b, op, n, a0, a1))
        } else {
            self.builtin(b, n, a0, a1)
        }
    }

    /// A finite-set built-in, computed on a set's elements by the store (`term/set.rs`).
    #[inline(never)]
    fn set_builtin(
        &mut self,
        b: Builtin,
        op: OpId,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Option<TermId> {
        let v = self.store.set_builtin(b, op, n, a0, a1);
        self.store_value(v)
    }

    /// The term of what a built-in computed by the store gave (`None`: it declined).
    fn store_value(&mut self, v: Option<crate::term::StoreValue>) -> Option<TermId> {
        use crate::term::StoreValue;
        match v? {
            StoreValue::Term(t) => Some(t),
            StoreValue::Bool(x) => self.mk_bool(x),
            StoreValue::Int(v) => Some(self.store.mk_int(v)),
        }
    }

    /// The term of a built-in's integer or truth value (`None`: the program has no
    /// Booleans).
    #[inline(always)]
    pub(super) fn num_term(&mut self, v: Num) -> Option<TermId> {
        match v {
            Num::Int(v) => Some(self.store.mk_int(v)),
            Num::Bool(v) => self.mk_bool(v),
        }
    }

    /// `modExp(x, y, m)` on the subject's arguments: `Ok(None)` unless they are three
    /// integers (see [`mod_exp`]).
    #[cold]
    #[inline(never)]
    pub(super) fn mod_exp_of(&mut self, subj: Subj) -> Result<Option<TermId>, BuiltinError> {
        let args = if subj.is_open() {
            let b = subj.base as usize;
            &self.vals[b..b + subj.n as usize]
        } else {
            self.store.args(subj.term)
        };
        let &[x, y, m] = args else {
            return Ok(None);
        };
        let int = |t| self.store.int(t);
        let (Some(x), Some(y), Some(m)) = (int(x), int(y), int(m)) else {
            return Ok(None);
        };
        let v = mod_exp(x, y, m)?;
        Ok(self.num_term(Num::Int(v)))
    }

    /// Evaluate a strict built-in other than a set built-in on its `n` normal arguments
    /// (the first two are `a0`, `a1`): `Ok(None)` if they are not values of the right kind.
    #[inline]
    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Result<Option<TermId>, BuiltinError> {
        use Builtin::*;
        let args = [a0, a1];
        match b {
            True | False | AndThen | OrElse | IfThenElse => Ok(None),
            // Read their arguments themselves: see `grid_builtin`.
            GridPacked | GridBoard | GridInitial | GridMoves | GridHolds | GridAt | GridColumns
            | GridRows | GridPieces => Ok(None),
            // Finite maps: the store computes them on its map terms.
            MapUnion | MapAgree | MapGet | MapOverride | MapRemove | MapInDom | MapInRan
            | MapOnly | MapSize | MapDom | MapRan => {
                let v = self.store.map_builtin(b, n, a0, a1);
                Ok(self.store_value(v))
            }
            // Finite sets: computed by `builtin_of`.
            SetIn | SetSize | SetDelete | SetIntersection | SetDifference | SetSubset
            | SetProperSubset => Ok(None),
            // Three arguments: see `mod_exp_of`.
            ModExp => Ok(None),
            // Strings: see `strings.rs`.
            StrConcat | StrLength | StrSubstr | StrFind | StrRFind | StrLt | StrLe | StrGt
            | StrGe | StrUpper | StrLower | StrAscii | StrChar | StrOfInt | IntOfStr => Ok(None),
            Not => Ok(match (n, self.as_bool(a0)) {
                (1, Some(x)) => self.mk_bool(bool_builtin(b, x, false)),
                _ => None,
            }),
            And | Or | Xor | Implies => {
                if n != 2 {
                    return Ok(None);
                }
                let (Some(x), Some(y)) = (self.as_bool(args[0]), self.as_bool(args[1])) else {
                    return Ok(None);
                };
                Ok(self.mk_bool(bool_builtin(b, x, y)))
            }
            Equal | NotEqual => {
                if n != 2 {
                    return Ok(None);
                }
                let eq = args[0] == args[1];
                Ok(self.mk_bool(if b == Equal { eq } else { !eq }))
            }
            Neg | Abs | Popcount | Lowbit | LowbitIndex | BitNot | Succ => {
                let (1, Some(x)) = (n, self.store.int(a0)) else {
                    return Ok(None);
                };
                let v = int_builtin(b, x, 0)?;
                Ok(self.num_term(v))
            }
            Add | Sub | Mul | Quo | Rem | Min | Max | Lt | Le | Gt | Ge | Divides | Gcd | Lcm
            | Sd | Pow | BitAnd | BitOr | BitXor | Shl | Shr => {
                let (2, Some(x), Some(y)) = (n, self.store.int(a0), self.store.int(a1)) else {
                    return Ok(None);
                };
                let v = int_builtin(b, x, y)?;
                Ok(self.num_term(v))
            }
        }
    }
}

/// What a built-in on integers gives: an integer, or a truth value (the comparisons).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Num {
    Int(i64),
    Bool(bool),
}

/// The built-in `b` on integers, computed on the integers `x` and `y` (`y` unused by the
/// one-argument ones: `-_`, `abs`, `popcount`, `lowbit`, `lowbit-index`, `~_`, `s_`). `b` must be
/// one of those, the arithmetic, the comparisons or the bit operations. Shared by
/// [`Engine::builtin`], which reads the integers out of terms, and the unboxed
/// expressions of `arith.rs`, which keep them in registers.
#[inline(always)]
pub(super) fn int_builtin(b: Builtin, x: i64, y: i64) -> Result<Num, BuiltinError> {
    use Builtin::*;
    let r = match b {
        Lt => return Ok(Num::Bool(x < y)),
        Le => return Ok(Num::Bool(x <= y)),
        Gt => return Ok(Num::Bool(x > y)),
        Ge => return Ok(Num::Bool(x >= y)),
        // `x divides y`: y is a multiple of x (0 divides only 0).
        Divides => {
            let d = if x == 0 {
                y == 0
            } else {
                y.checked_rem(x).is_none_or(|r| r == 0)
            };
            return Ok(Num::Bool(d));
        }
        Add => x.checked_add(y),
        Sub => x.checked_sub(y),
        Mul => x.checked_mul(y),
        Quo | Rem => {
            if y == 0 {
                return Err(BuiltinError::DivisionByZero);
            }
            if b == Quo {
                x.checked_div(y)
            } else {
                // i64::MIN rem -1 is 0 (only the quotient overflows).
                Some(x.wrapping_rem(y))
            }
        }
        Min => Some(x.min(y)),
        Max => Some(x.max(y)),
        Gcd | Lcm | Sd | Pow => return maude_nat(b, x, y),
        Neg => x.checked_neg(),
        Succ => x.checked_add(1),
        Abs => x.checked_abs(),
        _ => return bits(b, x, y).map(Num::Int),
    };
    r.map(Num::Int).ok_or(BuiltinError::Overflow)
}

/// Maude's `gcd`, `lcm`, `sd` and `_^_` (`int_builtin`'s rarer operations, kept out of
/// line: inlined where `quick` and the unboxed expressions evaluate built-ins, they made
/// the common ones' code slower, +1.6% instructions on the heaps sweep).
#[inline(never)]
fn maude_nat(b: Builtin, x: i64, y: i64) -> Result<Num, BuiltinError> {
    use Builtin::*;
    let r = match b {
        // On the absolute values, as in Maude: `gcd(-4, 6)` is 2, `lcm(-4, 6)` 12. Only
        // `i64::MIN`'s absolute value does not fit.
        Gcd => gcd(x.unsigned_abs(), y.unsigned_abs()).try_into().ok(),
        Lcm => {
            let (a, b) = (x.unsigned_abs(), y.unsigned_abs());
            if a == 0 || b == 0 {
                Some(0)
            } else {
                (a / gcd(a, b))
                    .checked_mul(b)
                    .and_then(|l| i64::try_from(l).ok())
            }
        }
        Sd => x.abs_diff(y).try_into().ok(),
        Pow if y < 0 => {
            return Err(BuiltinError::OutOfRange(
                "the exponent must not be negative",
            ))
        }
        Pow => match u32::try_from(y) {
            Ok(k) => x.checked_pow(k),
            // Past 2^32 only 0, 1 and -1 to the power fit.
            Err(_) => match x {
                0 | 1 => Some(x),
                -1 => Some(if y % 2 == 0 { 1 } else { -1 }),
                _ => None,
            },
        },
        _ => unreachable!("not one of Maude's NAT operations: {b:?}"),
    };
    r.map(Num::Int).ok_or(BuiltinError::Overflow)
}

/// Maude's `modExp(x, y, m)`: `x ^ y rem m`, by repeated squaring on 128-bit products (so
/// the power itself, which rarely fits, is never formed). Maude declares it on `Nat Nat
/// NzNat`; the prelude on integers, as `gcd` and `_^_`, so that a negative base or
/// exponent, or a modulus that is not positive, is an error saying so.
pub(super) fn mod_exp(x: i64, y: i64, m: i64) -> Result<i64, BuiltinError> {
    if x < 0 || y < 0 {
        return Err(BuiltinError::OutOfRange(
            "the base and the exponent must not be negative",
        ));
    }
    if m <= 0 {
        return Err(BuiltinError::OutOfRange("the modulus must be positive"));
    }
    let m = m as u128;
    let (mut base, mut k, mut r) = (x as u128 % m, y as u64, 1 % m);
    while k > 0 {
        if k & 1 == 1 {
            r = r * base % m;
        }
        base = base * base % m;
        k >>= 1;
    }
    // Below m, which fits.
    Ok(r as i64)
}

/// The built-in `b` on truth values (`y` unused by `not`): `b` must be `not`, `and`,
/// `or`, `xor` or `implies`.
#[inline(always)]
pub(super) fn bool_builtin(b: Builtin, x: bool, y: bool) -> bool {
    use Builtin::*;
    match b {
        Not => !x,
        And => x && y,
        Or => x || y,
        Xor => x != y,
        _ => !x || y,
    }
}

/// Why a strict built-in could not produce a value.
pub(super) enum BuiltinError {
    Overflow,
    DivisionByZero,
    /// An argument outside the built-in's domain, and why.
    OutOfRange(&'static str),
}

/// A bit operation on 64-bit two's complement words (`y` is unused by the one-argument
/// ones); only the bit operations come here.
fn bits(b: Builtin, x: i64, y: i64) -> Result<i64, BuiltinError> {
    use Builtin::*;
    // Exact for any amount, as Maude's `_<<_` and `_>>_` on its unbounded integers: past
    // 63 a right shift leaves the sign (0 or -1), and a left shift of anything but 0
    // overflows.
    let shift = || {
        if y < 0 {
            return Err(BuiltinError::OutOfRange(
                "the shift amount must not be negative",
            ));
        }
        Ok(y.min(63) as u32)
    };
    Ok(match b {
        BitAnd => x & y,
        BitOr => x | y,
        BitXor => x ^ y,
        BitNot => !x,
        Shl => {
            let k = shift()?;
            let r = x << k;
            // Checked like `*`: shifting back must give x again (at 63 and beyond, only
            // 0 does).
            if r >> k != x || (y > 63 && x != 0) {
                return Err(BuiltinError::Overflow);
            }
            r
        }
        Shr => x >> shift()?,
        Popcount => i64::from(x.count_ones()),
        Lowbit => x & x.wrapping_neg(),
        LowbitIndex => {
            if x == 0 {
                return Err(BuiltinError::OutOfRange("0 has no lowest 1 bit"));
            }
            i64::from(x.trailing_zeros())
        }
        _ => unreachable!("not a bit operation: {b:?}"),
    })
}

/// The greatest common divisor (Euclid's algorithm; `gcd(0, 0)` is 0).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
