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
//! operator: an operator whose hits saved fewer than one step in [`USEFUL`] calls over a
//! window of [`WINDOW`] calls is not cached for the next [`REST`] calls, then tried
//! again — after each further window that did not pay, for twice as many calls (up to
//! [`MAX_BACKOFF`] doublings; a window that pays starts over); and the table grows only
//! while the entries it loses would be worth keeping.
//!
//! # What an entry is worth
//!
//! Each entry knows what its call cost: the steps its rewriting took. Hits are weighed by
//! it (one hit of `rev(L)` on a list of 1,500 saves 1.1 million steps, a thousand hits of
//! `app(nil, M)` save a thousand), both when deciding whether an operator is worth caching
//! and when a new entry falls in an occupied slot: a much cheaper newcomer does not
//! replace an expensive resident, but wears it down by its own cost, so a resident stays
//! as long as the cheap calls it turned away have not cost together what it saves
//! (GreedyDual replacement, per slot). And the few most expensive entries ([`KEEP`], of at
//! least [`KEEP_COST`] steps) are *kept*: a garbage collection does not free their terms
//! ([`CallCache::kept`]), as if they were memo entries. Without this, the naive reverse of
//! a list done ten times (`revs`) costs ten reversals where two suffice: `rev(rev(L))` is
//! `L`, whose reverse the cache knows if it kept it. (Keeping every expensive entry would
//! not do: the reverses of all the suffixes of a list are expensive too, and together
//! they hold a quadratic number of terms.)
//!
//! `GAMELANG_NO_CALL_CACHE=1` (or [`Engine::call_cache`](super::Engine)) turns it off,
//! to compare.

use crate::term::TermId;
use gamelang_lang::program::OpId;

/// Calls of at most this many arguments are cached.
pub(super) const MAX_ARGS: usize = 4;

/// Slots of a new cache.
const FIRST_SLOTS: usize = 1 << 12;

/// The cache grows no further than this many slots (28 bytes each: 1.75 MiB, within a
/// core's second-level cache here, 2 MiB). A table that does not fit misses the
/// processor's caches on every lookup, which costs more than the short calls it saves in
/// a game's rules: with 2^18 slots the heaps sweep at N = 1000 took 14.1–14.3 s on one
/// thread against 12.2–12.6 s, and the subtraction-game benchmark 1.24–1.36 s against
/// 1.13–1.21 s; no program of the rewriting benchmark grows the table past 2^16.
const MAX_SLOTS: usize = 1 << 16;

/// Calls of an operator counted before deciding whether caching it pays.
const WINDOW: u32 = 4096;

/// Caching an operator pays when at least one call in this many hits.
const USEFUL: u32 = 32;

/// Calls of an operator not cached after a window in which it did not pay; doubled after
/// each further window that did not pay either, up to `REST << MAX_BACKOFF` (so an
/// operator whose calls never repeat, such as `add` on bit lists, is tried again more and
/// more rarely: a window costs a look-up and a record per call).
const REST: u32 = 1 << 16;

/// How many times the rest doubles at most.
const MAX_BACKOFF: u32 = 6;

/// A newcomer replaces a resident entry unless the resident cost more than this many
/// times as much.
const RESIST: u32 = 8;

/// At a garbage collection, the [`KEEP`] most expensive entries keep their terms alive if
/// their calls cost at least this many steps (see the module documentation).
const KEEP_COST: u32 = 1024;

/// How many entries keep their terms alive (the memory this holds is what their values
/// and arguments hold).
const KEEP: usize = 16;

/// An unused slot or argument.
const EMPTY: u32 = u32::MAX;

/// A cached call being rewritten by the direct evaluator (`Engine::asking`): `op(key)`,
/// asked when `Engine::steps` was `since` — or, with `since` [`MEMO`], a call of a memo
/// function marked in its memo table as being computed (`Engine::d_memo_begin`). Its
/// arguments are roots for a collection.
#[derive(Clone, Copy, Debug)]
pub(super) struct Asked {
    pub op: OpId,
    pub key: [u32; MAX_ARGS],
    pub since: u64,
    /// The constructors pending when it was asked (`Engine::conses`): its value is the
    /// value built when as many are left.
    pub level: u32,
}

/// The `since` of an [`Asked`] call of a memo-pair function (its key: the arguments).
pub(super) const MEMO: u64 = u64::MAX;

/// The `since` of an [`Asked`] call of another memo function (its key: the call's term).
pub(super) const MEMO_TERM: u64 = u64::MAX - 1;

impl Asked {
    /// A memo-pair call `op(args)` (at most two arguments) being computed.
    pub(super) fn memo(op: OpId, args: &[TermId], level: u32) -> Asked {
        let mut key = [EMPTY; MAX_ARGS];
        for (slot, a) in key.iter_mut().zip(args) {
            *slot = a.0;
        }
        Asked {
            op,
            key,
            since: MEMO,
            level,
        }
    }

    /// A memo call, the term `t` of `op`, being computed.
    pub(super) fn memo_term(op: OpId, t: TermId, level: u32) -> Asked {
        let mut key = [EMPTY; MAX_ARGS];
        key[0] = t.0;
        Asked {
            op,
            key,
            since: MEMO_TERM,
            level,
        }
    }

    /// Is it a memo call (not a cached one)?
    pub(super) fn is_memo(&self) -> bool {
        self.since >= MEMO_TERM
    }
}

/// The arguments in a key.
pub(super) fn key_args(key: &[u32; MAX_ARGS]) -> impl Iterator<Item = TermId> + '_ {
    key.iter().filter(|&&a| a != EMPTY).map(|&a| TermId(a))
}

#[derive(Clone, Copy)]
struct Entry {
    op: u32,
    args: [u32; MAX_ARGS],
    value: u32,
    /// The steps the call took (at least 1), worn down by the cheaper calls that did not
    /// replace it.
    cost: u32,
}

const FREE: Entry = Entry {
    op: EMPTY,
    args: [EMPTY; MAX_ARGS],
    value: EMPTY,
    cost: 0,
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
    /// Steps the window's hits saved.
    saved: u32,
    rest: u32,
    /// Windows in a row that did not pay (the next rest is `REST << backoff`).
    backoff: u32,
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
            if st.saved.saturating_mul(USEFUL) < WINDOW {
                st.rest = REST << st.backoff;
                st.backoff = (st.backoff + 1).min(MAX_BACKOFF);
            } else {
                st.backoff = 0;
            }
            st.tries = 0;
            st.saved = 0;
        }
        true
    }

    /// The value recorded for `op(args)`, if any.
    #[inline]
    pub(super) fn get(&mut self, op: OpId, args: &[u32; MAX_ARGS]) -> Option<TermId> {
        let e = &self.slots[hash(op.0, args) & (self.slots.len() - 1)];
        let hit = e.op == op.0 && e.args == *args;
        if hit {
            let st = &mut self.ops[op.0 as usize];
            st.saved = st.saved.saturating_add(e.cost);
            self.hits += 1;
        }
        hit.then_some(TermId(e.value))
    }

    /// Record that `op(args)` reduces to `value`, a call that took `cost` steps.
    #[inline]
    pub(super) fn put(&mut self, op: OpId, args: &[u32; MAX_ARGS], value: TermId, cost: u64) {
        let cost = cost.clamp(1, u32::MAX as u64) as u32;
        let mask = self.slots.len() - 1;
        let e = &mut self.slots[hash(op.0, args) & mask];
        if e.op != EMPTY && (e.op != op.0 || e.args != *args) {
            if cost.saturating_mul(RESIST) < e.cost {
                // Worth more than the newcomer: stays, worn down by what it turned away.
                e.cost -= cost;
                return;
            }
            self.lost += 1;
        }
        *e = Entry {
            op: op.0,
            args: *args,
            value: value.0,
            cost,
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

    /// The terms (arguments and values) of the entries that keep them alive: the [`KEEP`]
    /// most expensive, of those whose call cost at least [`KEEP_COST`] steps and whose
    /// operator is being cached now. (An operator at rest is not looked up: its entries
    /// would hold their terms for nothing. `binary-mul`'s `mul(inc(A), B)` calls cost
    /// thousands of steps each and never repeat; keeping sixteen of them held sixteen
    /// products of thousands of bits alive, which every collection marked again.)
    pub(super) fn kept(&self, out: &mut Vec<TermId>) {
        let resting = |op: u32| self.ops.get(op as usize).is_some_and(|st| st.rest > 0);
        let mut dear: Vec<&Entry> = self
            .slots
            .iter()
            .filter(|e| e.op != EMPTY && e.cost >= KEEP_COST && !resting(e.op))
            .collect();
        if dear.len() > KEEP {
            dear.select_nth_unstable_by_key(KEEP - 1, |e| std::cmp::Reverse(e.cost));
            dear.truncate(KEEP);
        }
        for e in dear {
            out.push(TermId(e.value));
            out.extend(key_args(&e.args));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls of `op` that `wanted` lets through out of `n`.
    fn let_through(c: &mut CallCache, op: OpId, n: u64) -> u64 {
        (0..n).filter(|_| c.wanted(op)).count() as u64
    }

    /// An operator whose windows never pay rests `REST`, then twice, four times … as
    /// long, up to `REST << MAX_BACKOFF`; a window that pays starts over.
    #[test]
    fn rests_double_while_windows_do_not_pay() {
        let mut c = CallCache::default();
        let op = OpId(3);
        let (w, r) = (WINDOW as u64, REST as u64);
        for k in 0..=MAX_BACKOFF as u64 + 2 {
            assert_eq!(let_through(&mut c, op, w), w, "window {k}");
            let rest = r << k.min(MAX_BACKOFF as u64);
            assert_eq!(let_through(&mut c, op, rest), 0, "rest {k}");
        }
        // A window whose hits save enough: no rest after it, and the next failure rests
        // `REST` again.
        assert_eq!(let_through(&mut c, op, w - 1), w - 1);
        c.ops[op.0 as usize].saved = WINDOW;
        assert!(c.wanted(op));
        assert_eq!(let_through(&mut c, op, w), w);
        assert_eq!(let_through(&mut c, op, r), 0);
        assert!(c.wanted(op));
    }

    /// Expensive entries keep their terms alive only while their operator is cached: an
    /// operator at rest is not looked up.
    #[test]
    fn entries_of_a_resting_operator_keep_nothing_alive() {
        let mut c = CallCache::default();
        let (busy, idle) = (OpId(1), OpId(2));
        assert!(c.wanted(busy) && c.wanted(idle));
        let key = |a: u32| [a, EMPTY, EMPTY, EMPTY];
        c.put(busy, &key(10), TermId(11), KEEP_COST as u64);
        c.put(idle, &key(20), TermId(21), KEEP_COST as u64 * 2);
        let kept = |c: &CallCache| {
            let mut v = Vec::new();
            c.kept(&mut v);
            v.sort();
            v
        };
        assert_eq!(
            kept(&c),
            vec![TermId(10), TermId(11), TermId(20), TermId(21)]
        );
        // A window of `idle` that does not pay: it rests, and its entry keeps nothing.
        let_through(&mut c, idle, WINDOW as u64);
        assert!(!c.wanted(idle));
        assert_eq!(kept(&c), vec![TermId(10), TermId(11)]);
    }
}
