//! The string built-ins: Maude's STRING (`_+_`, `length`, `substr`, `find`, `rfind`, the
//! order, `upperCase`, `lowerCase`, `ascii`, `char`) and the integer part of CONVERSION
//! (`string(N, B)`, `rat(S, B)`), as Maude 3 computes them.
//!
//! Strings are byte strings in Maude: positions and lengths count bytes, and so they do
//! here. The store keeps a string as UTF-8 text, so a position that would cut a
//! character of several bytes in two is an error rather than a broken string (programs
//! written for Maude use ASCII, where bytes and characters are the same).
//!
//! Like `modExp`, these read their arguments themselves (up to three): `quick` and the
//! unboxed expressions decline them, and `try_builtin` comes here.

use super::builtin::BuiltinError;
use super::*;
use gamelang_lang::program::Builtin;

/// A built-in's value before it is a term.
enum Out {
    Str(String),
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
        let store = &self.store;
        let text = |i: usize| args.get(i).and_then(|&t| store.str_text(t));
        let int = |i: usize| args.get(i).and_then(|&t| store.int(t));
        let out =
            match (b, args.len()) {
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
                    Out::Str(substr(x, i, n)?.to_string())
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
                    let o = x.as_bytes().cmp(y.as_bytes());
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
                    match x.as_bytes() {
                        [c] => Out::Int(*c as i64),
                        _ => return Err(BuiltinError::OutOfRange("`ascii` needs one character")),
                    }
                }
                (Builtin::StrChar, 1) => {
                    let Some(n) = int(0) else { return Ok(None) };
                    match u8::try_from(n) {
                        Ok(c) if c.is_ascii() => Out::Str((c as char).to_string()),
                        _ => return Err(BuiltinError::OutOfRange(
                            "`char` needs a code from 0 to 127 (strings are ASCII or UTF-8 text)",
                        )),
                    }
                }
                (Builtin::StrOfInt, 2) => {
                    let (Some(n), Some(base)) = (int(0), int(1)) else {
                        return Ok(None);
                    };
                    Out::Str(to_base(n, base)?)
                }
                (Builtin::IntOfStr, 2) => {
                    let (Some(x), Some(base)) = (text(0), int(1)) else {
                        return Ok(None);
                    };
                    Out::Int(from_base(x, base)?)
                }
                _ => return Ok(None),
            };
        Ok(match out {
            Out::Str(s) => self.store.mk_str(&s),
            Out::Int(v) => Some(self.store.mk_int(v)),
            Out::Bool(v) => self.mk_bool(v),
            Out::NotFound => match self.program.sig.not_found_op {
                Some(op) => Some(self.store.mk_app(op, &[])),
                None => None,
            },
        })
    }
}

/// The byte position `i` of `x` as an index, if it is one (at most the length), and not
/// inside a character.
fn position(x: &str, i: i64) -> Result<usize, BuiltinError> {
    let i = usize::try_from(i)
        .map_err(|_| BuiltinError::OutOfRange("a string position must not be negative"))?;
    let i = i.min(x.len());
    if !x.is_char_boundary(i) {
        return Err(BuiltinError::OutOfRange(
            "the position is inside a character of several bytes",
        ));
    }
    Ok(i)
}

/// Maude's `substr(x, i, n)`: the bytes `i .. i + n` of `x`, cut at its end.
fn substr(x: &str, i: i64, n: i64) -> Result<&str, BuiltinError> {
    if n < 0 {
        return Err(BuiltinError::OutOfRange(
            "a string length must not be negative",
        ));
    }
    let lo = position(x, i)?;
    let hi = position(x, (lo as i64).saturating_add(n))?;
    Ok(&x[lo..hi])
}

/// Maude's `find(x, y, i)`: the least position `>= i` where `y` occurs in `x`.
fn find(x: &str, y: &str, i: i64) -> Result<Option<usize>, BuiltinError> {
    if i < 0 {
        return Err(BuiltinError::OutOfRange(
            "a string position must not be negative",
        ));
    }
    let i = i as u64;
    if i > x.len() as u64 {
        return Ok(None);
    }
    let i = i as usize;
    let (x, y) = (x.as_bytes(), y.as_bytes());
    Ok((i..=x.len().saturating_sub(y.len()))
        .find(|&p| p + y.len() <= x.len() && &x[p..p + y.len()] == y))
}

/// Maude's `rfind(x, y, i)`: the greatest position `<= i` where `y` occurs in `x`.
fn rfind(x: &str, y: &str, i: i64) -> Result<Option<usize>, BuiltinError> {
    if i < 0 {
        return Err(BuiltinError::OutOfRange(
            "a string position must not be negative",
        ));
    }
    let (x, y) = (x.as_bytes(), y.as_bytes());
    if y.len() > x.len() {
        return Ok(None);
    }
    let top = (i as u64).min((x.len() - y.len()) as u64) as usize;
    Ok((0..=top).rev().find(|&p| &x[p..p + y.len()] == y))
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
    let b = radix(base)? as u64;
    let mut m = n.unsigned_abs();
    let mut digits = Vec::new();
    loop {
        digits.push(std::char::from_digit((m % b) as u32, b as u32).unwrap_or('?'));
        m /= b;
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
fn from_base(x: &str, base: i64) -> Result<i64, BuiltinError> {
    let b = radix(base)?;
    let digits = x.strip_prefix('-').unwrap_or(x);
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(b)) {
        return Err(BuiltinError::OutOfRange(
            "`rat` needs the digits of an integer in the base given",
        ));
    }
    i64::from_str_radix(x, b).map_err(|_| BuiltinError::Overflow)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_maudes() {
        assert_eq!(substr("hello", 1, 3).ok(), Some("ell"));
        assert_eq!(substr("hello", 3, 10).ok(), Some("lo"));
        assert_eq!(substr("hello", 9, 2).ok(), Some(""));
        assert_eq!(find("hello", "l", 0).ok(), Some(Some(2)));
        assert_eq!(find("hello", "l", 3).ok(), Some(Some(3)));
        assert_eq!(find("hello", "l", 4).ok(), Some(None));
        assert_eq!(find("abc", "", 3).ok(), Some(Some(3)));
        assert_eq!(find("abc", "", 4).ok(), Some(None));
        assert_eq!(rfind("hello", "l", 9).ok(), Some(Some(3)));
        assert_eq!(rfind("hello", "l", 2).ok(), Some(Some(2)));
        assert_eq!(rfind("hello", "l", 1).ok(), Some(None));
        assert_eq!(to_base(-255, 16).ok().as_deref(), Some("-ff"));
        assert_eq!(to_base(0, 2).ok().as_deref(), Some("0"));
        assert_eq!(from_base("-ff", 16).ok(), Some(-255));
        assert!(from_base("12a", 10).is_err());
        assert!(from_base("-", 10).is_err());
        assert!(matches!(
            from_base("99999999999999999999", 10),
            Err(BuiltinError::Overflow)
        ));
    }
}
