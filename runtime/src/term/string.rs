//! Strings as values of the store (Maude's STRING).
//!
//! A string literal of a program is a constant operator (`"abc"`, declared by the
//! elaborator in the prelude's BOOL). A string the program *computes* (`"ab" + "c"`,
//! `string(42, 10)`) must be the same term as the literal of the same text, or `==`,
//! memo tables and matching would tell them apart. So a computed text is made into
//! the literal constant when the program has one of that text, and otherwise into a
//! [`TermData::Str`] term, hash-consed by its bytes: one term per text either way.
//!
//! `++` (the prelude's `assoc` constructor joining strings for a game's `display`)
//! is not a string operation here: `"a" ++ "b"` stays a term of two pieces, as before.

use super::{finish, mix, TermData, TermId, TermStore, NO_SORT};
use gamelang_lang::program::{unquote_bytes, OpId, Signature, SortId};
use rustc_hash::FxHashMap;

/// What the store knows of the program's strings: the literal constants by text and the
/// texts of the literal constants, and the sorts of the values.
#[derive(Default)]
pub(super) struct Strings {
    /// The literal constant of each text a program's literals have.
    literal_of: FxHashMap<Box<[u8]>, OpId>,
    /// The text of each operator that is a string literal (`None` for the others).
    text_of: Vec<Option<Box<[u8]>>>,
    string_sort: Option<SortId>,
    char_sort: Option<SortId>,
}

impl Strings {
    pub(super) fn new(sig: &Signature) -> Strings {
        let mut s = Strings {
            string_sort: sig.string_sort,
            char_sort: sig.char_sort,
            ..Strings::default()
        };
        let Some(string) = sig.string_sort else {
            return s;
        };
        for (i, info) in sig.ops.iter().enumerate() {
            let literal = info.args.is_empty()
                && info.name.len() >= 2
                && info.name.starts_with('"')
                && info.name.ends_with('"')
                && sig.leq(info.result, string);
            if !literal {
                continue;
            }
            let text: Box<[u8]> = unquote_bytes(&info.name).into();
            if s.text_of.len() <= i {
                s.text_of.resize(i + 1, None);
            }
            s.text_of[i] = Some(text.clone());
            // Two spellings of one text (`"\a"` and `"a"`): the first declared stands for it.
            s.literal_of.entry(text).or_insert(OpId(i as u32));
        }
        s
    }

    /// The sort of a computed string: `Char` for one byte, else `String`.
    pub(super) fn sort_of(&self, text: &[u8]) -> SortId {
        let s = if text.len() == 1 {
            self.char_sort.or(self.string_sort)
        } else {
            self.string_sort
        };
        s.unwrap_or(NO_SORT)
    }
}

fn hash_str(text: &[u8]) -> u32 {
    let mut h = 0x2545_f491_4f6c_dd1d_u64;
    for chunk in text.chunks(8) {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        h = mix(h, u64::from_le_bytes(w));
    }
    finish(mix(h, text.len() as u64))
}

impl TermStore {
    /// The string `text`: the literal constant of that text if the program has one,
    /// else the (hash-consed) string value. `None` if the program has no strings.
    pub fn mk_str(&mut self, text: &[u8]) -> Option<TermId> {
        self.strings.string_sort?;
        if let Some(&op) = self.strings.literal_of.get(text) {
            return Some(self.mk_app(op, &[]));
        }
        let h = hash_str(text);
        Some(
            match self.probe(h, |d| matches!(d, TermData::Str(x) if **x == *text)) {
                Ok(t) => t,
                Err(slot) => {
                    // (Memory a term count does not show: see `string_bytes`.)
                    self.spilled_args += text.len() / 4;
                    self.string_bytes += text.len();
                    let id = self.insert_at(slot, h, TermData::Str(text.into()));
                    self.heavy.push(id.0);
                    id
                }
            },
        )
    }

    /// The text of `t` if it is a string: a computed one or a literal constant.
    pub fn str_text(&self, t: TermId) -> Option<&[u8]> {
        match &self.terms[t.index()] {
            TermData::Str(text) => Some(text),
            TermData::App { op, args } if args.is_empty() => self
                .strings
                .text_of
                .get(op.0 as usize)
                .and_then(|x| x.as_deref()),
            _ => None,
        }
    }
}
