//! The string built-ins: Maude's STRING (`_+_`, `length`, `substr`, `find`, `rfind`, the
//! order, `upperCase`, `lowerCase`, `ascii`, `char`) and the integer part of CONVERSION
//! (`string(N, B)`, `rat(S, B)`), as Maude 3 computes them.
//!
//! Strings are byte strings, as in Maude: positions and lengths count bytes (`"é"` has
//! length 2), `char` takes any code from 0 to 255, and the order compares bytes as C's
//! signed `char`s, as Maude's does (so `char(200) < "d"`: measured on Maude 3.2).
//! `upperCase` and `lowerCase` change the ASCII letters only (Maude's C locale).
//!
//! Like `modExp`, these read their arguments themselves (up to three): `quick` and the
//! unboxed expressions decline them, and `try_builtin` comes here.

use super::builtin::BuiltinError;
use super::*;
use gamelang_lang::program::Builtin;

/// A built-in's value before it is a term.
enum Out {
    Str(Vec<u8>),
    Int(i64),
    Bool(bool),
    NotFound,
}

impl Engine {
    /// Evaluate the string built-in `b` on the subject's arguments: `Ok(None)` unless they
    /// are values of the right kinds.
    #[cold]
    #[inline(never)]
    pub(super) fn string_builtin(
        &mut self,
        subj: Subj,
        b: Builtin,
    ) -> Result<Option<TermId>, BuiltinError> {
        let args: SmallVec<[TermId; 3]> = if subj.is_open() {
            let base = subj.base as usize;
            SmallVec::from_slice(&self.vals[base..base + subj.n as usize])
        } else {
            SmallVec::from_slice(self.store.args(subj.term))
        };
        let Some(out) = compute(&self.store, b, &args)? else {
            return Ok(None);
        };
        Ok(match out {
            Out::Str(s) => self.store.mk_str(&s),
            Out::Int(v) => Some(self.store.mk_int(v)),
            Out::Bool(v) => self.mk_bool(v),
            Out::NotFound => (self.program.sig.not_found_op).map(|op| self.store.mk_app(op, &[])),
        })
    }
}

/// What `b` gives on `args`: `None` unless they are values of the right kinds.
fn compute(store: &TermStore, b: Builtin, args: &[TermId]) -> Result<Option<Out>, BuiltinError> {
    let text = |i: usize| args.get(i).and_then(|&t| store.str_text(t));
    let int = |i: usize| args.get(i).and_then(|&t| store.int(t));
    let out = match (b, args.len()) {
        (Builtin::StrConcat, 2) => {
            let (Some(x), Some(y)) = (text(0), text(1)) else {
                return Ok(None);
            };
            Out::Str([x, y].concat())
        }
        (Builtin::StrLength, 1) => {
            let Some(x) = text(0) else { return Ok(None) };
            Out::Int(x.len() as i64)
        }
        (Builtin::StrSubstr, 3) => {
            let (Some(x), Some(i), Some(n)) = (text(0), int(1), int(2)) else {
                return Ok(None);
            };
            Out::Str(substr(x, i, n)?.to_vec())
        }
        (Builtin::StrFind | Builtin::StrRFind, 3) => {
            let (Some(x), Some(y), Some(i)) = (text(0), text(1), int(2)) else {
                return Ok(None);
            };
            let found = if b == Builtin::StrFind {
                find(x, y, i)?
            } else {
                rfind(x, y, i)?
            };
            found.map_or(Out::NotFound, |p| Out::Int(p as i64))
        }
        (Builtin::StrLt | Builtin::StrLe | Builtin::StrGt | Builtin::StrGe, 2) => {
            let (Some(x), Some(y)) = (text(0), text(1)) else {
                return Ok(None);
            };
            // Byte by byte as signed characters, as Maude compares (`char(200) < "d"`).
            let o = signed(x).cmp(signed(y));
            Out::Bool(match b {
                Builtin::StrLt => o.is_lt(),
                Builtin::StrLe => o.is_le(),
                Builtin::StrGt => o.is_gt(),
                _ => o.is_ge(),
            })
        }
        (Builtin::StrUpper, 1) => {
            let Some(x) = text(0) else { return Ok(None) };
            Out::Str(x.to_ascii_uppercase())
        }
        (Builtin::StrLower, 1) => {
            let Some(x) = text(0) else { return Ok(None) };
            Out::Str(x.to_ascii_lowercase())
        }
        (Builtin::StrAscii, 1) => {
            let Some(x) = text(0) else { return Ok(None) };
            match x {
                [c] => Out::Int(i64::from(*c)),
                _ => return Err(BuiltinError::OutOfRange("`ascii` needs one character")),
            }
        }
        (Builtin::StrChar, 1) => {
            let Some(n) = int(0) else { return Ok(None) };
            match u8::try_from(n) {
                Ok(c) => Out::Str(vec![c]),
                _ => {
                    return Err(BuiltinError::OutOfRange(
                        "`char` needs a code from 0 to 255",
                    ))
                }
            }
        }
        (Builtin::StrOfInt, 2) => {
            let (Some(n), Some(base)) = (int(0), int(1)) else {
                return Ok(None);
            };
            Out::Str(to_base(n, base)?.into_bytes())
        }
        (Builtin::IntOfStr, 2) => {
            let (Some(x), Some(base)) = (text(0), int(1)) else {
                return Ok(None);
            };
            Out::Int(from_base(x, base)?)
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// The bytes of `s` as C's signed `char`s.
fn signed(s: &[u8]) -> impl Iterator<Item = i8> + '_ {
    s.iter().map(|&c| c as i8)
}

/// A position or a length as an index: a negative one is an error (the sorts say `Nat`,
/// but a program may compute one), a huge one is past any string's end.
fn index(i: i64, what: &'static str) -> Result<usize, BuiltinError> {
    if i < 0 {
        return Err(BuiltinError::OutOfRange(what));
    }
    Ok(usize::try_from(i).unwrap_or(usize::MAX))
}

/// Maude's `substr(x, i, n)`: the bytes `i .. i + n` of `x`, cut at its end.
fn substr(x: &[u8], i: i64, n: i64) -> Result<&[u8], BuiltinError> {
    let lo = index(i, "a string position must not be negative")?.min(x.len());
    let n = index(n, "a string length must not be negative")?;
    Ok(&x[lo..lo.saturating_add(n).min(x.len())])
}

/// Maude's `find(x, y, i)`: the least position `>= i` where `y` occurs in `x`.
fn find(x: &[u8], y: &[u8], i: i64) -> Result<Option<usize>, BuiltinError> {
    let i = index(i, "a string position must not be negative")?;
    if i > x.len() {
        return Ok(None);
    }
    Ok((i..=x.len()).find(|&p| x[p..].starts_with(y)))
}

/// Maude's `rfind(x, y, i)`: the greatest position `<= i` where `y` occurs in `x`.
fn rfind(x: &[u8], y: &[u8], i: i64) -> Result<Option<usize>, BuiltinError> {
    let i = index(i, "a string position must not be negative")?.min(x.len());
    Ok((0..=i).rev().find(|&p| x[p..].starts_with(y)))
}

/// The base of `string` and `rat`, checked.
fn radix(base: i64) -> Result<u32, BuiltinError> {
    match u32::try_from(base) {
        Ok(b) if (2..=36).contains(&b) => Ok(b),
        _ => Err(BuiltinError::OutOfRange("the base must be from 2 to 36")),
    }
}

/// `n` written in base `base` (lower-case digits, a `-` before a negative number).
fn to_base(n: i64, base: i64) -> Result<String, BuiltinError> {
    let b = radix(base)?;
    let mut m = n.unsigned_abs();
    let mut digits = Vec::new();
    loop {
        digits.push(std::char::from_digit((m % u64::from(b)) as u32, b).unwrap_or('?'));
        m /= u64::from(b);
        if m == 0 {
            break;
        }
    }
    if n < 0 {
        digits.push('-');
    }
    Ok(digits.into_iter().rev().collect())
}

/// The integer written `x` in base `base` (an optional `-`, then digits of the base).
fn from_base(x: &[u8], base: i64) -> Result<i64, BuiltinError> {
    let b = radix(base)?;
    let not_digits =
        || BuiltinError::OutOfRange("`rat` needs the digits of an integer in the base given");
    let digits = x.strip_prefix(b"-").unwrap_or(x);
    if digits.is_empty() || !digits.iter().all(|&c| (c as char).is_digit(b)) {
        return Err(not_digits());
    }
    let x = std::str::from_utf8(x).map_err(|_| not_digits())?;
    i64::from_str_radix(x, b).map_err(|_| BuiltinError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_maudes() {
        // Cases of Maude's own tests (tests/BuiltIn/string.maude in the Maude sources),
        // with the results Maude gives there.
        let abc = b"abcdefghijklmnopqrstuvwxyz";
        assert_eq!(substr(abc, 10, 5).ok(), Some(&b"klmno"[..]));
        assert_eq!(
            substr(abc, 1_000_000_000_000_000_000, 5).ok(),
            Some(&b""[..])
        );
        assert_eq!(
            substr(abc, 10, 500_000_000_000_000_000).ok(),
            Some(&abc[10..])
        );
        assert_eq!(substr(b"a\"\"b", 4, 1).ok(), Some(&b""[..]));
        let twice = b"abcdefghijabcdefghij";
        for (i, want) in [(0, Some(2)), (1, Some(2)), (2, Some(2)), (3, Some(12))] {
            assert_eq!(find(twice, b"cde", i).ok(), Some(want));
        }
        for (i, want) in [
            (0, None),
            (1, None),
            (2, Some(2)),
            (12, Some(12)),
            (13, Some(12)),
        ] {
            assert_eq!(rfind(twice, b"cde", i).ok(), Some(want));
        }
        assert_eq!(find(b"catcat", b"tc", 0).ok(), Some(Some(2)));
        assert_eq!(rfind(b"catcat", b"t", 10).ok(), Some(Some(5)));
        assert_eq!(rfind(b"catcat", b"t", 4).ok(), Some(Some(2)));
        assert_eq!(find(b"abc", b"", 3).ok(), Some(Some(3)));
        assert_eq!(find(b"abc", b"", 4).ok(), Some(None));
        assert!(substr(b"abc", -1, 1).is_err());
        assert_eq!(to_base(-255, 16).ok().as_deref(), Some("-ff"));
        assert_eq!(to_base(0, 2).ok().as_deref(), Some("0"));
        assert_eq!(from_base(b"-ff", 16).ok(), Some(-255));
        assert!(from_base(b"12a", 10).is_err());
        assert!(from_base(b"-", 10).is_err());
        assert!(matches!(
            from_base(b"99999999999999999999", 10),
            Err(BuiltinError::Overflow)
        ));
    }
}
