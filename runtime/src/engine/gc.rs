//! Garbage collection of the term store.
//!
//! Hash-consing keeps every term ever built, and a long computation builds many that are
//! needed only for a moment (successor sets, the rest of a set being walked, intermediate
//! numbers). Between reductions, [`Engine::collect_garbage`] frees every term that is not
//! reachable from the *roots*: the memo tables (keys and values), the call cache's
//! expensive entries (see `calls`), the terms the compiled
//! program refers to, every constant, the last error's trace, and the terms the caller
//! names. Freed ids are reused, so memory stays proportional to what is live (mostly the
//! memo tables) rather than to the work done.
//!
//! Ids held outside the engine and not named as roots become invalid: the caller decides
//! when to collect ([`Engine::collect_garbage_if_grown`] does it when the store has doubled
//! since the last collection).
//!
//! # Young collections
//!
//! Most collections are due in long runs (a sweep, a search, a long reduction) whose roots
//! hold many terms that stay alive from one collection to the next: the positions a search
//! keeps, the memo tables. Marking them again each time cost a fifth of the seed's program
//! (a quarter million positions held, hundreds of collections). So the collections the
//! engine decides on ([`Engine::collect_due`]) are usually of the *young* terms only, those
//! made since the last collection: a term refers only to older terms (terms do not change;
//! the one exception, a list in chunks turned into a segment view in place, keeps its
//! elements and marks its new segment old), so every term alive after the last collection
//! can be taken as alive without looking at it, and the marking stops at the first old
//! term. The garbage among the old terms is freed by a full collection, which runs when
//! what the collections kept has grown by half since the last full one, and whenever a
//! caller asks for one ([`Engine::collect_garbage`]: after forgetting a table, say).

use super::{Engine, Frame, Node, IN_PROGRESS, NONE};
use crate::term::TermId;

/// Do not collect before the store holds this many segment elements (for terms, see
/// `Engine::collect_min_terms`).
const MIN_SEG_ELEMS: usize = 1 << 20;

/// Collect when this many bytes of strings have been made since the last collection
/// (`TermStore::string_bytes`), whatever the term count: a string is one term however
/// long, and a reduction that appends to a long string at every step grew by the square
/// of its steps (40,000 appends of six characters: 6 GB). (Long argument lists, counted
/// the same way, were tried: nrev did 8% more work collecting, for no memory saved.)
const MIN_STRING_BYTES: usize = 1 << 24;

/// Collect when this many ids have been stored in long argument lists since the last
/// collection (`TermStore::spilled_arguments`: 64 MiB of them), or as many as the last
/// collection left alive if that is more: an `assoc` list is one term however long, and
/// a list built by prepending under a recursion (`mk(N) = e(N) mk(N - 1)`) is a new copy
/// at each level, n²/2 ids for n elements (1.3 GB at 25,600) while a term count sees
/// 25,600 terms. Far above what a program that works on lists of a few thousand elements
/// makes between its collections (nrev), which a lower threshold only made collect more
/// for nothing (tried at the term threshold). The live part keeps collections from
/// coming back ever more often while what is alive grows (each level of `len(Q L) =
/// 1 + len(L)` holds its rest), which took `len(mk(25600))` from 3.0 s to 5.0 s.
const MIN_SPILLED: usize = 1 << 24;

impl Engine {
    /// Free every term not reachable from the roots (see the module documentation) or
    /// from `roots`. Must be called between reductions. Returns how many terms were freed.
    pub fn collect_garbage(&mut self, roots: &[TermId]) -> usize {
        self.collect(roots, false)
    }

    /// A collection when one is due (the store has grown: [`Engine::store_has_grown`]),
    /// with `roots` as [`Engine::collect_garbage`] takes them: of the young terms only (see
    /// the module documentation), unless what the last collections kept has grown by half
    /// since the last full one, which then runs. Returns how many terms were freed.
    pub fn collect_due(&mut self, roots: &[TermId]) -> usize {
        let full = self.next_collection_is_full();
        self.collect(roots, !full)
    }

    /// [`Engine::collect_due`] with the roots `roots(full)` gives, `full` saying which
    /// collection it is: a young collection needs only the roots made since the last
    /// collection (the others are old), which a caller holding many terms from one
    /// collection to the next (a sweep's searches) can give for less.
    pub fn collect_due_with(&mut self, roots: impl FnOnce(bool) -> Vec<TermId>) -> usize {
        let full = self.next_collection_is_full();
        let roots = roots(full);
        self.collect(&roots, !full)
    }

    /// Is the collection [`Engine::collect_due`] would run now a full one?
    fn next_collection_is_full(&self) -> bool {
        2 * self.gc_live > 3 * self.full_live
            || 2 * self.gc_segs > 3 * self.full_segs.max(MIN_SEG_ELEMS / 2)
    }

    /// A collection: of every term, or of the young ones only (every old term kept).
    fn collect(&mut self, roots: &[TermId], young_only: bool) -> usize {
        // Compiled grid actions and goals are keyed by term ids, which may be reused.
        self.grid_cache.clear();
        // A cache, like the grid's: its terms need not stay alive.
        self.nf = Default::default();
        let cap = self.store.capacity();
        let mut marks = vec![0u64; cap.div_ceil(64) + 1];
        let mut all: Vec<TermId> = roots.to_vec();
        for m in &self.memo {
            for (k, v) in m {
                all.push(*k);
                if *v != IN_PROGRESS {
                    all.push(*v);
                }
            }
        }
        for (op, m) in self.memo2.iter().enumerate() {
            if m.is_empty() {
                continue;
            }
            let n = self.program.sig.ops[op].args.len();
            for (k, v) in m {
                all.extend(
                    [TermId(*k as u32), TermId((*k >> 32) as u32)]
                        .into_iter()
                        .take(n),
                );
                if *v != IN_PROGRESS {
                    all.push(*v);
                }
            }
        }
        for n in &self.nodes {
            if let Node::Term(t) = n {
                all.push(*t);
            }
        }
        for eq in &self.eqs {
            eq.lhs.ground_terms(&mut all);
            for g in &eq.guards {
                if let super::compile::Guard::Exact { term, .. } = g {
                    all.push(*term);
                }
            }
        }
        all.extend(self.true_t);
        all.extend(self.false_t);
        all.extend(self.trace.iter().copied());
        all.extend_from_slice(self.store.constants());
        // The call cache's most expensive entries keep their terms alive (`calls::KEEP`);
        // of the others, only those whose terms are alive anyway stay.
        self.calls.kept(&mut all);
        self.store.mark(all, &mut marks, young_only);
        let before = self.store.len();
        self.store.sweep(&marks, young_only);
        self.calls.retain(|t| self.store.is_old(t));
        // A freed term is not normal any more (its id will be a new term): the live ones
        // (the old ones of the next collection) keep their bits, word by word.
        let alive = self.store.old_words();
        for (i, w) in self.normal.iter_mut().enumerate() {
            *w &= alive.get(i).copied().unwrap_or(0);
        }
        debug_assert!(self.store.len() <= before);
        self.gc_live = self.store.len();
        self.gc_segs = self.store.segment_elements();
        self.gc_strings = self.store.string_bytes();
        self.gc_spilled = self.store.spilled_arguments();
        self.gc_live_spilled = self.store.live_spilled();
        if !young_only {
            self.full_live = self.gc_live;
            self.full_segs = self.gc_segs;
            self.full_collections += 1;
        }
        self.collections += 1;
        before - self.gc_live
    }

    /// Has the store (terms or segment elements) doubled since the last collection, and is
    /// it past the minimum worth collecting? (A caller that must gather its roots first,
    /// such as a search holding a table of positions, asks this before gathering them.)
    pub fn store_has_grown(&self) -> bool {
        self.store.len() > self.collect_min_terms.max(2 * self.gc_live)
            || self.store.segment_elements() > MIN_SEG_ELEMS.max(2 * self.gc_segs)
            || self.store.string_bytes().saturating_sub(self.gc_strings) > MIN_STRING_BYTES
            || self
                .store
                .spilled_arguments()
                .saturating_sub(self.gc_spilled)
                > MIN_SPILLED.max(self.gc_live_spilled)
    }

    /// How many garbage collections the engine has done.
    pub fn collections(&self) -> u64 {
        self.collections
    }

    /// How many of them were full (not of the young terms only).
    pub fn full_collections(&self) -> u64 {
        self.full_collections
    }

    /// During a reduction (see [`Engine::collect_in_reduce`]): collect if the store has
    /// grown, with every term the pending work holds as a root — `task` (the term being
    /// evaluated or returned), the frames, the value and environment stacks, and the
    /// matchers suspended while conditions are evaluated.
    pub(super) fn collect_pending_if_grown(&mut self, task: Option<TermId>) {
        if !self.store_has_grown() {
            return;
        }
        let mut roots: Vec<TermId> = task.into_iter().collect();
        if self.reduce_root != NONE {
            roots.push(self.reduce_root);
        }
        for f in &self.frames {
            match *f {
                Frame::Args { term, .. }
                | Frame::Lazy { term }
                | Frame::Memo { term }
                | Frame::Remember { term } => roots.push(term),
                Frame::Cond { subj, .. } if !subj.is_open() => roots.push(subj.term),
                // The arguments of a cached call being rewritten: its value is recorded.
                Frame::Cache { key, .. } => roots.extend(super::calls::key_args(&key)),
                // An open subject's values are on `vals`; a memo-pair key is a memo-table
                // key; nodes refer to `envs` and to terms that are roots anyway.
                Frame::Cond { .. }
                | Frame::Memo2 { .. }
                | Frame::BArgs { .. }
                | Frame::BLazy { .. }
                | Frame::Fill { .. } => {}
            }
        }
        roots.extend(
            self.asking
                .iter()
                .flat_map(|a| super::calls::key_args(&a.key)),
        );
        roots.extend(self.vals.iter().copied());
        roots.extend(self.envs.iter().copied().filter(|t| *t != NONE));
        for m in &self.matchers[..self.nconds] {
            m.terms(&mut roots);
        }
        self.loop_roots(&mut roots);
        self.collect_due(&roots);
    }

    /// [`Engine::collect_due`] if the store has grown to twice what was live after the
    /// last collection (and is not small). Returns whether it collected.
    pub fn collect_garbage_if_grown(&mut self, roots: &[TermId]) -> bool {
        if self.store_has_grown() {
            self.collect_due(roots);
            true
        } else {
            false
        }
    }
}
