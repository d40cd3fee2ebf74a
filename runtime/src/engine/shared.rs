//! Memo tables shared between engines.
//!
//! An engine is single-threaded and its term ids mean nothing to another engine, so what
//! one engine's memo tables learn is shared with others (running the same program on other
//! threads, e.g. the workers of `gamelang sweep`) through a [`SharedMemo`]: a concurrent
//! map from the *portable encoding* of a memo key (the term in preorder: operators and
//! integers, no ids) to the portable encoding of its value. An engine asks it when its own
//! table misses, before computing, and publishes the values it computes — the small ones:
//! a large value (a set of successors) costs about as much to copy as to recompute.
//!
//! Results do not depend on sharing: the value of a memoised term is a function of the term
//! (innermost rewriting with a fixed equation order and a structural order on AC
//! arguments), whichever engine computed it.

use super::Engine;
use crate::term::TermId;
use gamelang_lang::program::OpId;
use rustc_hash::{FxHashMap, FxHasher};
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// A term in preorder: `op << 32 | arity << 2` for an application, `v << 2 | 1` for an
/// integer that fits in 62 bits, `2` followed by the value for any other integer, and
/// `family << 32 | entries << 2 | 3` followed by the keys and values for a map term (a
/// finite map of two or more entries, keys in structural order: see `term/map.rs`).
pub(crate) type Portable = SmallVec<[u64; 5]>;
type Value = SmallVec<[u64; 1]>;

const SHARDS: usize = 64;

/// The low byte of the first word of a computed string in a portable encoding (its length
/// above it): the tag 2 of a large integer, which is the word 2 exactly, and a 1 above it.
const STRING_TAG: u64 = 6;

/// What an encoded term being decoded is headed by: an operator, or a map family.
#[derive(Clone, Copy)]
enum Head {
    Op(OpId),
    Map(u32),
}

/// Values whose encoding is longer than this many words are not shared: copying them
/// between engines costs about as much as recomputing them (a set of successors), while
/// the values worth sharing (who wins from a position) are a word or two.
const MAX_SHARED_VALUE: usize = 6;

/// Memo tables shared by several engines (cheap to clone: all clones are the same tables).
#[derive(Clone)]
pub struct SharedMemo {
    shards: Arc<[Mutex<FxHashMap<Portable, Value>>]>,
}

impl Default for SharedMemo {
    fn default() -> SharedMemo {
        SharedMemo::new()
    }
}

impl std::fmt::Debug for SharedMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedMemo({} entries)", self.len())
    }
}

/// How an engine used its shared memo tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SharedStats {
    /// Local misses looked up in the shared tables.
    pub lookups: u64,
    /// … of which found there (computed by another engine).
    pub hits: u64,
    /// Values this engine computed and published.
    pub published: u64,
}

impl SharedMemo {
    /// Empty shared tables.
    pub fn new() -> SharedMemo {
        SharedMemo {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect::<Vec<_>>()
                .into(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.lock().map_or(0, |m| m.len()))
            .sum()
    }

    /// Are the tables empty?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn shard(&self, key: &[u64]) -> &Mutex<FxHashMap<Portable, Value>> {
        let mut h = FxHasher::default();
        key.hash(&mut h);
        &self.shards[(h.finish() >> 7) as usize % SHARDS]
    }

    fn get(&self, key: &Portable) -> Option<Value> {
        self.shard(key).lock().ok()?.get(key).cloned()
    }

    fn insert(&self, key: Portable, value: Value) {
        if let Ok(mut m) = self.shard(&key).lock() {
            m.entry(key).or_insert(value);
        }
    }
}

impl Engine {
    /// Share this engine's memo tables with every engine given a clone of `shared` (they
    /// must run the same program).
    pub fn share_memo(&mut self, shared: SharedMemo) {
        self.shared = Some(shared);
    }

    /// How this engine used its shared memo tables.
    pub fn shared_stats(&self) -> SharedStats {
        self.shared_stats
    }

    /// Append the portable encoding of `t` to `out`.
    pub(crate) fn encode(&self, t: TermId, out: &mut SmallVec<impl smallvec::Array<Item = u64>>) {
        let mut stack: SmallVec<[TermId; 8]> = SmallVec::new();
        stack.push(t);
        while let Some(t) = stack.pop() {
            match self.store.app(t) {
                Some((op, args)) => {
                    out.push((op.0 as u64) << 32 | (args.len() as u64) << 2);
                    stack.extend(args.iter().rev().copied());
                }
                None if self.store.map_term(t).is_some() => {
                    let (family, entries) = self.store.map_parts_sorted(t).unwrap_or_default();
                    out.push((family as u64) << 32 | (entries.len() as u64) << 2 | 3);
                    for &(k, v) in entries.iter().rev() {
                        stack.push(v);
                        stack.push(k);
                    }
                }
                None => {
                    // A computed string (a literal is a constant, above): its length, then
                    // its bytes, eight to a word.
                    if let Some(text) = self.store.str_text(t) {
                        out.push((text.len() as u64) << 8 | STRING_TAG);
                        for chunk in text.chunks(8) {
                            let mut w = [0u8; 8];
                            w[..chunk.len()].copy_from_slice(chunk);
                            out.push(u64::from_le_bytes(w));
                        }
                        continue;
                    }
                    let v = self.store.int(t).unwrap_or_default();
                    if (-(1i64 << 61)..(1i64 << 61)).contains(&v) {
                        out.push((v << 2) as u64 | 1);
                    } else {
                        out.push(2);
                        out.push(v as u64);
                    }
                }
            }
        }
    }

    /// Build the term encoded in `code` (normalised, not reduced).
    pub(crate) fn decode(&mut self, code: &[u64]) -> TermId {
        let mut vals: SmallVec<[TermId; 8]> = SmallVec::new();
        // (operator or map family, arity, where its arguments start on `vals`)
        let mut pending: SmallVec<[(Head, usize, usize); 8]> = SmallVec::new();
        let mut i = 0;
        while i < code.len() {
            let w = code[i];
            i += 1;
            let mut v = match w & 3 {
                1 => self.store.mk_int((w as i64) >> 2),
                2 if w == 2 => {
                    let x = code[i] as i64;
                    i += 1;
                    self.store.mk_int(x)
                }
                2 => {
                    let len = (w >> 8) as usize;
                    let words = len.div_ceil(8);
                    let mut bytes: Vec<u8> = code[i..i + words]
                        .iter()
                        .flat_map(|w| w.to_le_bytes())
                        .collect();
                    i += words;
                    bytes.truncate(len);
                    self.store
                        .mk_str(&bytes)
                        .expect("a string of a program with strings")
                }
                3 => {
                    // A map: its keys and values follow (never none: it has two or more).
                    let n = ((w & 0xFFFF_FFFF) >> 2) as usize;
                    pending.push((Head::Map((w >> 32) as u32), 2 * n, vals.len()));
                    continue;
                }
                _ => {
                    let op = OpId((w >> 32) as u32);
                    let n = ((w & 0xFFFF_FFFF) >> 2) as usize;
                    if n > 0 {
                        pending.push((Head::Op(op), n, vals.len()));
                        continue;
                    }
                    self.store.mk_app(op, &[])
                }
            };
            loop {
                vals.push(v);
                match pending.last() {
                    Some(&(head, n, base)) if vals.len() - base == n => {
                        pending.pop();
                        v = match head {
                            Head::Op(op) => self.store.mk_app(op, &vals[base..]),
                            Head::Map(family) => self.store.mk_map_of(family, &vals[base..]),
                        };
                        vals.truncate(base);
                    }
                    _ => break,
                }
            }
        }
        debug_assert!(pending.is_empty() && vals.len() == 1);
        vals[0]
    }

    /// On a local memo miss of `t`: its value if another engine has published it.
    pub(crate) fn shared_lookup(&mut self, t: TermId) -> Option<TermId> {
        let shared = self.shared.clone()?;
        let mut key = Portable::new();
        self.encode(t, &mut key);
        self.shared_stats.lookups += 1;
        let code = shared.get(&key)?;
        self.shared_stats.hits += 1;
        let v = self.decode(&code);
        self.set_normal(v);
        Some(v)
    }

    /// Like [`Engine::shared_lookup`] for the key `op(args…)` given by its parts.
    pub(crate) fn shared_lookup_app(&mut self, op: OpId, args: &[TermId]) -> Option<TermId> {
        let shared = self.shared.clone()?;
        let mut key = Portable::new();
        self.encode_app(op, args, &mut key);
        self.shared_stats.lookups += 1;
        let code = shared.get(&key)?;
        self.shared_stats.hits += 1;
        let v = self.decode(&code);
        self.set_normal(v);
        Some(v)
    }

    /// Like [`Engine::shared_publish`] for the key `op(args…)` given by its parts.
    pub(crate) fn shared_publish_app(&mut self, op: OpId, args: &[TermId], v: TermId) {
        self.publish_with(v, |e, key| e.encode_app(op, args, key));
    }

    /// The portable encoding of `op(args…)` (a free operator) without building it.
    fn encode_app(&self, op: OpId, args: &[TermId], out: &mut Portable) {
        out.push((op.0 as u64) << 32 | (args.len() as u64) << 2);
        for &a in args {
            self.encode(a, out);
        }
    }

    /// Publish the value `v` just computed for the memo key `t`.
    pub(crate) fn shared_publish(&mut self, t: TermId, v: TermId) {
        self.publish_with(v, |e, key| e.encode(t, key));
    }

    /// Publish `v` under the key `encode_key` writes, unless its encoding is too large to
    /// be worth sharing (then the key is not encoded at all).
    fn publish_with(&mut self, v: TermId, encode_key: impl FnOnce(&Self, &mut Portable)) {
        let Some(shared) = self.shared.clone() else {
            return;
        };
        if self.store.args(v).len() > MAX_SHARED_VALUE {
            return;
        }
        let mut value = Value::new();
        self.encode(v, &mut value);
        if value.len() > MAX_SHARED_VALUE {
            return;
        }
        let mut key = Portable::new();
        encode_key(self, &mut key);
        self.shared_stats.published += 1;
        shared.insert(key, value);
    }
}
