//! The call cache: the normal forms of calls of defined functions (open calls: free, not
//! `memo`), remembered by operator and argument ids.
//!
//! Terms are hash-consed, so two calls `f(a, b)` with the same argument ids are the same
//! redex, and — the engine being deterministic and its built-ins pure — have the same
//! normal form. The direct evaluator (and the machine, for the calls it rewrites, through
//! a `Frame::Cache`) looks each call up here before rewriting it and records its value
//! after, which makes a program that asks the same question many times
//! (`fib(N - 1) + fib(N - 2)`, `tak`, Ackermann, the
//! moves `take-second((a b), m)` shared by the positions of a heaps game) cost one
//! computation per distinct call, as if every function were `memo`, without the memory of
//! a memo table: the cache is a fixed-size table (lossy: a new entry replaces the one in
//! its slot), and grows only while entries are being lost at a high rate and lookups
//! hit often, up to [`MAX_SLOTS`].
//!
//! It is *weak*: its entries keep no term alive. A garbage collection drops the entries
//! whose arguments or value were freed ([`CallCache::retain`]), since their ids may be
//! reused. Calls that fail (an error, an interruption) are never recorded, so the cache
//! changes how many rewrites a reduction takes, never its normal form or its errors.
//!
//! A cache costs a lookup and a record per call, which is most of a rewrite of
//! `app(cons(X, L), M)` when the table is out of the processor's cache. So it adapts per
//! operator: an operator whose calls rarely hit (fewer than one in [`USEFUL`] over a
//! window of [`WINDOW`] calls) is not cached for the next [`REST`] calls, then tried
//! again; and the table grows only while the entries it loses would be worth keeping.
//!
//! `GAMELANG_NO_CALL_CACHE=1` (or [`Engine::call_cache`](super::Engine)) turns it off,
//! to compare.

use crate::term::TermId;
use gamelang_lang::program::OpId;

/// Calls of at most this many arguments are cached.
pub(super) const MAX_ARGS: usize = 4;

/// Slots of a new cache.
const FIRST_SLOTS: usize = 1 << 12;

/// The cache grows no further than this many slots (24 bytes each: 6 MiB; a larger
/// table misses the processor's cache on every lookup, which costs more than the short
/// calls it saves in a game's rules).
const MAX_SLOTS: usize = 1 << 18;

/// Calls of an operator counted before deciding whether caching it pays.
const WINDOW: u32 = 4096;

/// Caching an operator pays when at least one call in this many hits.
const USEFUL: u32 = 32;

/// Calls of an operator not cached after a window in which it did not pay.
const REST: u32 = 1 << 16;

/// An unused slot or argument.
const EMPTY: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Entry {
    op: u32,
    args: [u32; MAX_ARGS],
    value: u32,
}

const FREE: Entry = Entry {
    op: EMPTY,
    args: [EMPTY; MAX_ARGS],
    value: EMPTY,
};

/// See the module documentation.
pub(super) struct CallCache {
    slots: Vec<Entry>,
    /// Entries replaced by another since the cache last grew.
    lost: usize,
    /// Lookups that hit since the cache last grew.
    hits: usize,
    /// Per operator (by id; grown on demand): its current window or rest.
    ops: Vec<OpStat>,
}

/// An operator's calls in the current window, or the calls left in its rest.
#[derive(Clone, Copy, Default)]
struct OpStat {
    tries: u32,
    hits: u32,
    rest: u32,
}

impl Default for CallCache {
    fn default() -> CallCache {
        CallCache {
            slots: vec![FREE; FIRST_SLOTS],
            lost: 0,
            hits: 0,
            ops: Vec::new(),
        }
    }
}

/// The key of a call: `None` for calls with too many arguments.
#[inline]
pub(super) fn key(args: &[TermId]) -> Option<[u32; MAX_ARGS]> {
    if args.len() > MAX_ARGS {
        return None;
    }
    let mut k = [EMPTY; MAX_ARGS];
    for (slot, a) in k.iter_mut().zip(args) {
        *slot = a.0;
    }
    Some(k)
}

#[inline]
fn hash(op: u32, args: &[u32; MAX_ARGS]) -> usize {
    // FxHash's mixing step over the five words.
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
    let mut h = (op as u64).wrapping_mul(K);
    for &a in args {
        h = (h.rotate_left(5) ^ a as u64).wrapping_mul(K);
    }
    (h >> 20) as usize
}

impl CallCache {
    /// Is `op` being cached now? (Counts the call towards the operator's window.)
    #[inline]
    pub(super) fn wanted(&mut self, op: OpId) -> bool {
        let i = op.0 as usize;
        if i >= self.ops.len() {
            self.ops.resize(i + 1, OpStat::default());
        }
        let st = &mut self.ops[i];
        if st.rest > 0 {
            st.rest -= 1;
            return false;
        }
        st.tries += 1;
        if st.tries == WINDOW {
            if st.hits * USEFUL < WINDOW {
                st.rest = REST;
            }
            st.tries = 0;
            st.hits = 0;
        }
        true
    }

    /// The value recorded for `op(args)`, if any.
    #[inline]
    pub(super) fn get(&mut self, op: OpId, args: &[u32; MAX_ARGS]) -> Option<TermId> {
        let e = &self.slots[hash(op.0, args) & (self.slots.len() - 1)];
        let hit = e.op == op.0 && e.args == *args;
        if hit {
            self.ops[op.0 as usize].hits += 1;
            self.hits += 1;
        }
        hit.then_some(TermId(e.value))
    }

    /// Record that `op(args)` reduces to `value`.
    #[inline]
    pub(super) fn put(&mut self, op: OpId, args: &[u32; MAX_ARGS], value: TermId) {
        let mask = self.slots.len() - 1;
        let e = &mut self.slots[hash(op.0, args) & mask];
        if e.op != EMPTY && (e.op != op.0 || e.args != *args) {
            self.lost += 1;
        }
        *e = Entry {
            op: op.0,
            args: *args,
            value: value.0,
        };
        // Losing entries at a high rate while hitting often: the calls a program repeats
        // may not fit. (Calls that never repeat lose entries too; for them a table that
        // stays small stays in the processor's cache.)
        if self.lost > self.slots.len() && 4 * self.hits > self.lost && self.slots.len() < MAX_SLOTS
        {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let size = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![FREE; size]);
        self.lost = 0;
        self.hits = 0;
        let mask = self.slots.len() - 1;
        for e in old.into_iter().filter(|e| e.op != EMPTY) {
            self.slots[hash(e.op, &e.args) & mask] = e;
        }
    }

    /// Drop every entry whose arguments or value are not `live` (after a garbage
    /// collection, whose freed ids may be reused).
    pub(super) fn retain(&mut self, live: impl Fn(TermId) -> bool) {
        for e in &mut self.slots {
            if e.op == EMPTY {
                continue;
            }
            let alive =
                live(TermId(e.value)) && e.args.iter().all(|&a| a == EMPTY || live(TermId(a)));
            if !alive {
                *e = FREE;
            }
        }
    }

    /// Forget everything (the program changed).
    pub(super) fn clear(&mut self) {
        *self = CallCache::default();
    }
}
