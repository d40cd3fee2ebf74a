//! The hash-consed term store.
//!
//! Every term lives exactly once in a [`TermStore`] and is named by a [`TermId`]: two terms
//! are equal iff their ids are equal, so equality tests, memo-table lookups and
//! normal-form marks are integer operations.
//!
//! Terms are kept in a *normal form modulo the equational attributes* of their operators:
//! [`TermStore::mk_app`] flattens `assoc` operators, sorts the arguments of `comm`
//! operators by a structural total order ([`TermStore::compare`]), drops identity
//! elements, removes duplicates of `idem` operators and collapses empty / singleton
//! applications. Two terms equal modulo these axioms therefore get the same id.
//!
//! # Long associative terms
//!
//! The flattened, sorted argument list of an `assoc comm` operator (a set, a multiset) with
//! more than [`LONG_MIN`] elements is not stored in the term itself but as a *view*
//! `[lo, hi)` of a shared segment buffer ([`TermData::Long`]). Segments grow at both ends,
//! so the operations that games use all the time are cheap:
//!
//! * adding an element above the largest (or below the smallest) of a set whose view ends
//!   (starts) where its segment does writes it in place: building an `n`-element set one
//!   element at a time costs `O(n)`, not `O(n²)`;
//! * removing the first or last element (`(c, S)` matching `S` to the rest) is a narrower
//!   view of the same segment: `O(1)`, nothing copied.
//!
//! Removing an element from the middle, or inserting one there, copies the list (its
//! prefix sums derived from the segment's, [`Desc::Pieces`]); past [`TREE_MIN`] elements
//! the result is kept in shared chunks instead ([`TermData::Tree`], see [`tree`]), which
//! such a change copies only one chunk of.
//!
//! Hash-consing needs a hash of the contents: a long term's hash is the sum of a hash of
//! each element (kept as prefix sums in the segment, so any view's is a subtraction), and
//! the length.
//!
//! Long lists of an `assoc` operator that is not `comm` (Maude's `LIST`, `__ [assoc id:
//! nil]`) are views of segments too, so the rest `L` of a match `Q L` or `L Q` is a
//! narrower view and `e(N) L` or `L Q` writes in place: walking or building a list one
//! element at a time is linear, as in Maude (whose lists are persistent deques), not
//! quadratic. Their hash must depend on the order (a list and its permutations are
//! different terms, and should not collide): the element at place `j` weighs `B^j`, and a
//! view's weighted prefix-sum difference is brought back to place 0 by `B^-lo`
//! ([`Contents`]). A list in chunks has the same hash as a view of the same elements, and the
//! table compares across the two, so equal terms still have equal ids whichever
//! representation each was given.
//!
//! # Finite maps
//!
//! A map of the standard library's `MAP{K, V}` with two or more entries is one term,
//! [`TermData::Map`], holding a persistent `imbl::OrdMap` from key ids to value ids, so an
//! override or a removal shares the rest of the map (`O(log n)`, not a copy). Its hash is
//! the sum of a hash of each entry, updated as entries change, so hash-consing a changed
//! map costs `O(log n)` too. See [`map`](self::map) for the operations and the canonical
//! form (`nomap` and a single entry stay ordinary applications).
//!
//! # Garbage
//!
//! The store keeps every term until [`TermStore::sweep`] frees those a mark phase did not
//! reach (the engine decides the roots: see `Engine::collect_garbage`). Freed ids are reused.

use gamelang_lang::program::{least_result, OpId, OpRank, Signature, SortId};
pub(crate) use map::MapFamily;
pub use map::MapTerm;
pub(crate) use set::SetOps;
use smallvec::SmallVec;
use std::cell::Cell;
use std::cmp::Ordering;

mod map;
mod set;
mod string;
mod tree;
pub use tree::TreeTerm;
pub(crate) use tree::{List, TREE_MIN};

/// What a built-in computed by the store (on maps, `map.rs`, and sets, `set.rs`) gives: a
/// term, or a truth value or a number, of which the engine makes its term.
pub(crate) enum StoreValue {
    Term(TermId),
    Bool(bool),
    Int(i64),
}

/// The name of a term in a [`TermStore`]. Equal terms have equal ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TermId(pub u32);

impl TermId {
    /// The id as an index (terms are numbered densely from 0).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The arguments of an application (inline up to five: a `TermData` is 40 bytes with three
/// or five, 48 with six).
pub type Args = SmallVec<[TermId; 5]>;

/// `dst.copy_from_slice(src)` for the short argument lists terms have: a copy whose length
/// is unknown at compile time becomes a call of the C library's `memcpy`, which costs more
/// than copying one to three ids (3.6% of the instructions of `binary-add`).
///
/// # Panics
/// If the lengths differ, as `copy_from_slice` does.
#[inline(always)]
pub(crate) fn copy_args(dst: &mut [TermId], src: &[TermId]) {
    match (dst, src) {
        ([d0], [s0]) => *d0 = *s0,
        ([d0, d1], [s0, s1]) => {
            *d0 = *s0;
            *d1 = *s1;
        }
        ([d0, d1, d2], [s0, s1, s2]) => {
            *d0 = *s0;
            *d1 = *s1;
            *d2 = *s2;
        }
        (d, s) => d.copy_from_slice(s),
    }
}

/// `Args::from_slice(src)` without a `memcpy` call for the short lists (see [`copy_args`]).
#[inline(always)]
fn args_from(src: &[TermId]) -> Args {
    let mut a = Args::new();
    match *src {
        [] => {}
        [s0] => a.push(s0),
        [s0, s1] => {
            a.push(s0);
            a.push(s1);
        }
        [s0, s1, s2] => {
            a.push(s0);
            a.push(s1);
            a.push(s2);
        }
        _ => return Args::from_slice(src),
    }
    a
}

/// Flattened argument lists of `assoc` operators longer than this are stored as views of
/// segments ([`TermData::Long`]); shorter ones inline ([`TermData::App`]).
pub const LONG_MIN: usize = 8;

/// What a term is: an operator applied to (normalised) arguments, or an integer literal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TermData {
    /// `op(args…)`; constants have no arguments. For an `assoc` operator the arguments are
    /// the flattened list (never headed by `op` itself), for `comm` ones they are sorted.
    App {
        /// The operator.
        op: OpId,
        /// The arguments (normalised, see above).
        args: Args,
    },
    /// An integer literal (sort `Nat` when ≥ 0, `Int` when negative).
    Int(i64),
    /// `op(args…)` for an `assoc` operator with more than [`LONG_MIN`] arguments: the
    /// arguments are positions `lo..hi` of segment `seg` (read them with
    /// [`TermStore::args`]).
    Long {
        /// The operator.
        op: OpId,
        /// The segment holding the arguments.
        seg: u32,
        /// First position.
        lo: u32,
        /// One past the last position.
        hi: u32,
    },
    /// A finite map of two or more entries (see the module documentation). It has no
    /// operator and no arguments: like an integer it is a value, matched only by variables.
    Map(Box<MapTerm>),
    /// `op(args…)` for an `assoc comm` operator with more than [`LONG_MIN`] arguments, in
    /// chunks shared with the lists it was made from: a long list that had elements
    /// removed from or added to its middle (see [`tree`](self::tree)).
    Tree(Box<TreeTerm>),
    /// A string a program computed (Maude's STRING, see [`string`](self::string)) whose
    /// bytes no literal constant has: like an integer, a value matched only by variables.
    Str(Box<[u8]>),
}

/// The sort returned by [`TermStore::sort_of`] when it has none (an integer literal in a
/// program without the built-in `Nat`/`Int` sorts). It is below no sort.
pub const NO_SORT: SortId = SortId(u32::MAX);

/// [`OpMeta::result`] of a subsort-overloaded operator (`OpInfo::overloads`).
const OVERLOADED: SortId = SortId(u32::MAX - 1);

/// [`TermStore::app_sorts`] of a long list of an overloaded `assoc` operator whose sort
/// has not been asked yet. Its sort is a fold over all its elements: worked out when each
/// rest of a walk `len(Q L) = 1 + len(L)` is made, that made the walk quadratic, where the
/// rests' sorts are usually never asked (`L` of the kind's top sort is not checked).
const LAZY: SortId = SortId(u32::MAX - 2);

/// What the store needs to know about an operator to normalise its applications.
#[derive(Clone, Debug)]
pub(crate) struct OpMeta {
    pub assoc: bool,
    pub comm: bool,
    pub idem: bool,
    /// The identity constant as a term.
    pub identity_term: Option<TermId>,
    /// Maude's one-sided identities as terms: `left id: e` (`e op x = x`), `right id: e`
    /// (`x op e = x`).
    pub left_id_term: Option<TermId>,
    pub right_id_term: Option<TermId>,
    /// The sort of every application, or [`OVERLOADED`] for a subsort-overloaded
    /// operator, whose applications' sorts depend on their arguments' and are kept per
    /// term ([`TermStore::app_sorts`]). One field, so that `sort_of` reads one load.
    pub result: SortId,
    /// The declared result sort (of the widest declaration, for an overloaded operator).
    pub widest: SortId,
    /// The declared sorts of the arguments.
    pub args: Box<[SortId]>,
    /// Any of assoc / comm / idem / identity: applications need normalising.
    pub norm: bool,
    /// The narrower declarations of an overloaded operator (`OpInfo::overloads`).
    pub overloads: Box<[OpRank]>,
}

const EMPTY: u64 = u64::MAX;
const K: u64 = 0xf135_7aea_2e62_a9c5;

#[inline]
fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(26) ^ x).wrapping_mul(K)
}

#[inline]
fn finish(h: u64) -> u32 {
    let h = (h ^ (h >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 32) as u32
}

fn hash_app(op: OpId, args: &[TermId]) -> u32 {
    let mut h = mix(0x243f_6a88_85a3_08d3, op.0 as u64);
    for a in args {
        h = mix(h, a.0 as u64);
    }
    finish(mix(h, args.len() as u64))
}

fn hash_int(v: i64) -> u32 {
    finish(mix(mix(0x1319_8a2e_0370_7344, v as u64), u64::MAX))
}

/// The hash of one element of a long term (summed over the elements).
#[inline]
fn elem_hash(e: TermId) -> u64 {
    let mut z = (e.0 as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn hash_long(op: OpId, sum: u64, len: usize) -> u32 {
    finish(mix(
        mix(mix(0xa409_3822_299f_31d0, op.0 as u64), sum),
        len as u64,
    ))
}

/// The base of an `assoc` (not `comm`) list's hash: the element at place `j` of a list
/// weighs `B^j` (mod 2^64), so that a list and its permutations have different hashes.
/// Odd, hence invertible.
const B: u64 = 0x9E37_79B9_7F4A_7C15;

/// `B`'s inverse mod 2^64 (Newton's iteration doubles the correct low bits each time).
const B_INV: u64 = {
    let mut x = B;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(B.wrapping_mul(x)));
        i += 1;
    }
    x
};

/// `b^e` mod 2^64.
#[inline]
fn pow(mut b: u64, mut e: u32) -> u64 {
    let mut r = 1u64;
    while e != 0 {
        if e & 1 != 0 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

/// The contents hash of a long list: for an `assoc comm` operator the sum of its
/// elements' hashes (the order is the sorted one, so it need not count); for an `assoc`
/// one, `Σ h(e_j)·B^j`. With the length, it names the concatenation of two contents
/// ([`Contents::then`]) without the elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Contents {
    sum: u64,
    len: usize,
}

impl Contents {
    const EMPTY: Contents = Contents { sum: 0, len: 0 };

    /// These contents followed by `next`.
    #[inline]
    fn then(self, next: Contents, ordered: bool) -> Contents {
        let tail = if ordered {
            next.sum.wrapping_mul(pow(B, self.len as u32))
        } else {
            next.sum
        };
        Contents {
            sum: self.sum.wrapping_add(tail),
            len: self.len + next.len,
        }
    }

    /// These contents followed by the elements `xs`.
    #[inline]
    fn then_elems(self, xs: &[TermId], ordered: bool) -> Contents {
        let mut sum = self.sum;
        if ordered {
            let mut w = pow(B, self.len as u32);
            for &x in xs {
                sum = sum.wrapping_add(elem_hash(x).wrapping_mul(w));
                w = w.wrapping_mul(B);
            }
        } else {
            for &x in xs {
                sum = sum.wrapping_add(elem_hash(x));
            }
        }
        Contents {
            sum,
            len: self.len + xs.len(),
        }
    }
}

/// The place of a new segment's first slot. Views name *places* of a segment, not
/// indices into its buffer, so that a segment out of room at the front can move its
/// elements into a larger buffer ([`Seg::grow_front`]) and every view of it stays valid:
/// a list built by prepending (`e(N) mk(N - 1)`) stays in one segment, and its earlier
/// states are views of that segment, told equal to the views a later match makes of it
/// by their places, not by comparing their elements.
const SEG_ORIGIN: u32 = 1 << 30;

/// A growable-at-both-ends buffer of elements with prefix sums of their hashes.
#[derive(Debug, Default)]
struct Seg {
    /// The elements at places `base..`; valid at places `front..self.end()`.
    elems: Vec<TermId>,
    /// `sums[i] - sums[j]` is the hash sum of `elems[j..i]`, each element's hash weighed
    /// by `B^p` at place `p` if `ordered`; valid at places `front..=self.end()`.
    sums: Vec<u64>,
    /// The place of `elems[0]`.
    base: u32,
    /// The place of the first valid element.
    front: u32,
    /// The elements of an `assoc` list that is not `comm`: their order counts in the hash
    /// (see [`Contents`]).
    ordered: bool,
}

impl Seg {
    /// A segment holding `items` after `front` free slots, with room for `back` more; the
    /// first item is at place `SEG_ORIGIN + front`.
    fn with_slack(front: usize, items: &[TermId], back: usize, ordered: bool) -> Seg {
        let mut elems = Vec::with_capacity(front + items.len() + back);
        elems.resize(front, TermId(0));
        elems.extend_from_slice(items);
        let mut sums = Vec::with_capacity(elems.capacity() + 1);
        sums.resize(front + 1, 0);
        let mut s = 0u64;
        if ordered {
            let mut w = pow(B, SEG_ORIGIN + front as u32);
            for &e in items {
                s = s.wrapping_add(elem_hash(e).wrapping_mul(w));
                w = w.wrapping_mul(B);
                sums.push(s);
            }
        } else {
            for &e in items {
                s = s.wrapping_add(elem_hash(e));
                sums.push(s);
            }
        }
        Seg {
            elems,
            sums,
            base: SEG_ORIGIN,
            front: SEG_ORIGIN + front as u32,
            ordered,
        }
    }

    /// One past the place of the last element.
    #[inline]
    fn end(&self) -> u32 {
        self.base + self.elems.len() as u32
    }

    /// The elements at places `lo..hi`.
    #[inline(always)]
    fn slice(&self, lo: u32, hi: u32) -> &[TermId] {
        &self.elems[(lo - self.base) as usize..(hi - self.base) as usize]
    }

    /// The prefix sum at place `p`.
    #[inline]
    fn psum(&self, p: u32) -> u64 {
        self.sums[(p - self.base) as usize]
    }

    /// Make room for at least `k` more elements before `front`, by moving the elements
    /// into a larger buffer (at least doubling it, so that prepending costs `O(1)` an
    /// element over time): the places of the elements, hence every view and every prefix
    /// sum, stay as they were. The number of slots added.
    fn grow_front(&mut self, k: u32) -> usize {
        let add = (k as usize).max(self.elems.len()).max(8);
        let mut elems = Vec::with_capacity(add + self.elems.capacity());
        elems.resize(add, TermId(0));
        elems.extend_from_slice(&self.elems);
        let mut sums = Vec::with_capacity(add + self.sums.capacity());
        sums.resize(add, 0);
        sums.extend_from_slice(&self.sums);
        let grown = elems.capacity() - self.elems.capacity();
        self.elems = elems;
        self.sums = sums;
        self.base -= add as u32;
        grown
    }

    /// The hash sum of the elements at places `lo..hi` (for an ordered segment, as if they
    /// began at place 0, so that equal lists anywhere have equal sums).
    #[inline]
    fn sum(&self, lo: u32, hi: u32) -> u64 {
        let d = self.psum(hi).wrapping_sub(self.psum(lo));
        if self.ordered {
            d.wrapping_mul(pow(B_INV, lo))
        } else {
            d
        }
    }

    /// The contents of `elems[lo..hi]`.
    #[inline]
    fn contents(&self, lo: u32, hi: u32) -> Contents {
        Contents {
            sum: self.sum(lo, hi),
            len: (hi - lo) as usize,
        }
    }

    /// A new segment holding `pieces` (runs of this segment, and new elements) in order,
    /// from place `SEG_ORIGIN` on:
    /// the runs copied whole, their prefix sums this segment's shifted by a constant, so
    /// only the new elements are hashed.
    fn copy_pieces(&self, pieces: &[Piece]) -> Seg {
        let len = pieces
            .iter()
            .map(|p| match *p {
                Piece::Run(lo, hi) => (hi - lo) as usize,
                Piece::One(_) => 1,
            })
            .sum::<usize>();
        let mut elems = Vec::with_capacity(len);
        let mut sums = Vec::with_capacity(len + 1);
        sums.push(0u64);
        let mut s = 0u64;
        for p in pieces {
            match *p {
                Piece::Run(lo, hi) if self.ordered => {
                    // Weights move from place `lo..` here to `at..` there: one product
                    // per element, no element hashed again.
                    let at = SEG_ORIGIN + elems.len() as u32;
                    let factor = pow(B, at).wrapping_mul(pow(B_INV, lo));
                    let (lo, hi) = ((lo - self.base) as usize, (hi - self.base) as usize);
                    elems.extend_from_slice(&self.elems[lo..hi]);
                    let base = self.sums[lo];
                    sums.extend(
                        self.sums[lo + 1..=hi]
                            .iter()
                            .map(|&x| s.wrapping_add(x.wrapping_sub(base).wrapping_mul(factor))),
                    );
                    s = *sums.last().expect("the sum before the run");
                }
                Piece::Run(lo, hi) => {
                    let (lo, hi) = ((lo - self.base) as usize, (hi - self.base) as usize);
                    elems.extend_from_slice(&self.elems[lo..hi]);
                    // The run's sums, less what precedes it here, plus what precedes it
                    // in the new segment.
                    let shift = s.wrapping_sub(self.sums[lo]);
                    sums.extend(
                        self.sums[lo + 1..=hi]
                            .iter()
                            .map(|&x| x.wrapping_add(shift)),
                    );
                    s = self.sums[hi].wrapping_add(shift);
                }
                Piece::One(x) => {
                    let w = if self.ordered {
                        pow(B, SEG_ORIGIN + elems.len() as u32)
                    } else {
                        1
                    };
                    elems.push(x);
                    s = s.wrapping_add(elem_hash(x).wrapping_mul(w));
                    sums.push(s);
                }
            }
        }
        Seg {
            elems,
            sums,
            base: SEG_ORIGIN,
            front: SEG_ORIGIN,
            ordered: self.ordered,
        }
    }
}

/// Contents of a long term about to be interned, described without building it.
#[derive(Clone, Copy)]
enum Desc<'a> {
    /// Elements given in full.
    Slice(&'a [TermId]),
    /// `seg[lo..hi]` followed by `extra`.
    Append {
        seg: u32,
        lo: u32,
        hi: u32,
        extra: &'a [TermId],
    },
    /// `extra` followed by `seg[lo..hi]`.
    Prepend {
        seg: u32,
        lo: u32,
        hi: u32,
        extra: &'a [TermId],
    },
    /// `pieces` in order: runs of the segment `seg` and new elements. A long list with an
    /// element taken out of its middle (the rest of a match `(c, S)` where a condition
    /// refused the first elements) or put into it is two or three pieces: its hash is
    /// summed from the segment's prefix sums, and if it is new its contents are copied
    /// run by run with prefix sums derived from the segment's, so no element is hashed
    /// again (see [`TermStore::without`]).
    Pieces { seg: u32, pieces: &'a [Piece] },
}

/// A piece of a long list being built ([`Desc::Pieces`]): the run `lo..hi` of a segment,
/// or one element.
#[derive(Clone, Copy, Debug)]
enum Piece {
    Run(u32, u32),
    One(TermId),
}

/// The hash-consed store of all terms built by an engine.
pub struct TermStore {
    terms: Vec<TermData>,
    /// Open addressing (linear probing) table: `hash << 32 | id`, `EMPTY` for a free slot.
    /// Keeping the hash next to the id makes a miss cost one cache line of the table.
    table: Vec<u64>,
    /// Entries in `table`.
    in_table: usize,
    /// The table for applications of one or two arguments (the pairs and numerals games
    /// build all the time): the key is stored in the entry, so a probe costs one cache
    /// line, not one for the table and one for the term.
    small: Vec<SmallEntry>,
    in_small: usize,
    /// For each term, the first two applications built with it as their *anchor* (their
    /// argument with the largest id): `NO_PARENT` where there is none yet, `SEE_TABLE` where
    /// one was freed. See [`TermStore::intern_app`].
    first_parent: Vec<[u32; 2]>,
    /// Ids freed by [`TermStore::sweep`], one bit an id (set: free), reused first, lowest
    /// first. A freed slot keeps its stale data until it is reused (the sweep does not
    /// touch the data of dead terms, except maps, which own memory: see `maps`).
    free: Vec<u64>,
    /// Free ids (bits set in `free`).
    nfree: usize,
    /// No free id below word `free_from` of `free`.
    free_from: usize,
    /// The ids of the map and tree terms (which own memory the sweep releases at once).
    owners: Vec<u32>,
    segs: Vec<Seg>,
    free_segs: Vec<u32>,
    /// The *old* terms: those alive after the last collection (a bit per id). A term only
    /// refers to terms older than itself (its arguments, elements and entries existed when
    /// it was made, and terms do not change), so a collection of the young terms alone
    /// (`young_only` in [`TermStore::mark`] and [`TermStore::sweep`]) may take every old
    /// term as alive without looking at it: the roots' old terms cost a bit test each, not
    /// a walk of what they hold. A freed id is never old; reused, it is a young term.
    old: Vec<u64>,
    /// The segments in use after the last collection, which a collection of the young
    /// terms keeps (it does not read the old terms to learn which segments they use).
    seg_old: Vec<bool>,
    /// Elements held by all segments (with slack), for deciding when to collect.
    seg_elems: usize,
    /// See [`TermStore::spilled_arguments`].
    spilled_args: usize,
    /// Of `spilled_args`, what the sweeps have released (see [`TermStore::live_spilled`]).
    freed_spilled: usize,
    /// The terms whose data owns a heap block counted in `spilled_args` (an argument list
    /// too long to be inline, a computed string): a sweep releases a dead one's block at
    /// once. (Other dead slots keep their data until the slot is reused, which costs
    /// nothing for inline data; a dead list of 25,000 ids kept 100 KB each until then,
    /// and a collection freed no memory from a program building long `assoc` lists.)
    heavy: Vec<u32>,
    /// See [`TermStore::string_bytes`].
    string_bytes: usize,
    /// The instances of the standard library's `MAP{K, V}` (see [`map`](self::map)).
    map_families: Vec<MapFamily>,
    /// For each operator, the map family whose `nomap` or `_|->_` it is (`u32::MAX`: none).
    map_family_of_op: Vec<u32>,
    /// For each operator declared as a set built-in, its instance's union and sorts (see
    /// [`set`](self::set)).
    set_ops: Vec<Option<SetOps>>,
    /// The constants built so far (see [`TermStore::constants`]).
    constants: Vec<TermId>,
    /// The ids of the literals `SMALL_LO..SMALL_HI` (`NO_TERM` until built): no hashing.
    small_ints: Vec<TermId>,
    ops: Vec<OpMeta>,
    /// The least sorts of the negative integers, of 0 and of the positive ones
    /// ([`Signature::literal_sort`]), by [`sign_index`].
    literal_sorts: [SortId; 3],
    /// Per sort, which of those three its numbers fit (bit [`sign_index`]), for
    /// [`TermStore::has_sort`].
    int_fits: Vec<u8>,
    nsorts: usize,
    /// `leq` as a flat bit matrix: bit `a * nsorts + b`.
    leq: Vec<u64>,
    /// For each sort: is it the greatest sort of its kind (every sort of the kind below
    /// it)? See [`TermStore::is_kind_top`].
    kind_top: Vec<bool>,
    /// Does any operator have subsort overloads? (Only then is [`TermStore::app_sorts`]
    /// kept, at the cost of one test when a term is made.)
    any_overloads: bool,
    /// The sort of each application of a subsort-overloaded operator, by term id, set when
    /// the term is made (its arguments' sorts are known by then). A freed id's entry is
    /// stale until the id is reused: only an overloaded operator's application reads it,
    /// and making one writes it. A long list's is [`LAZY`] until it is first asked (a
    /// `Cell`, so that [`TermStore::sort_of`] can record it).
    app_sorts: Vec<Cell<SortId>>,
    /// The strings' values (see [`string`](self::string)).
    strings: string::Strings,
}

/// Integer literals in this range are found by index, not hashed (and never collected).
const SMALL_LO: i64 = -1024;
const SMALL_HI: i64 = 1 << 16;
const NO_TERM: TermId = TermId(u32::MAX);

/// `first_parent` of a term no application has been anchored at.
const NO_PARENT: u32 = u32::MAX;
/// `first_parent` of a term whose first anchored application was freed: look in the table.
const SEE_TABLE: u32 = u32::MAX - 1;

/// An entry of `TermStore::small`: `op(a0)` (`a1 = u32::MAX`) or `op(a0, a1)` is term `id`.
#[derive(Clone, Copy, Debug)]
struct SmallEntry {
    op: u32,
    a0: u32,
    a1: u32,
    id: u32,
}

const SMALL_EMPTY: SmallEntry = SmallEntry {
    op: 0,
    a0: 0,
    a1: 0,
    id: u32::MAX,
};

#[inline]
fn hash_small(op: u32, a0: u32, a1: u32) -> u32 {
    finish(mix(
        mix(mix(0x4528_21e6_38d0_1377, op as u64), a0 as u64),
        a1 as u64,
    ))
}

/// A freed slot (never in the table).
const DEAD: TermData = TermData::Int(i64::MIN);

/// Remove from the open-addressing table `slots` (linear probing, fewer than half full)
/// the entries `keep` refuses, in place, and return how many are left. `home` is an
/// entry's first slot. Each entry left is moved back to the first free slot on its path
/// from its home, so every one stays findable: the slots are visited in probe order from a
/// slot free before the removals, so a probe path (which never crosses a free slot) is
/// visited from its start, and an entry is settled once every slot before it is.
fn retain_in_place<T: Copy>(
    slots: &mut [T],
    is_free: impl Fn(&T) -> bool,
    home: impl Fn(&T) -> usize,
    keep: impl Fn(&T) -> bool,
    free: T,
) -> usize {
    let mask = slots.len() - 1;
    let Some(start) = slots.iter().position(&is_free) else {
        unreachable!("a table is never full")
    };
    let mut kept = 0;
    for k in 1..slots.len() {
        let i = (start + k) & mask;
        let e = slots[i];
        if is_free(&e) {
            continue;
        }
        if !keep(&e) {
            slots[i] = free;
            continue;
        }
        kept += 1;
        let mut j = home(&e);
        while j != i {
            if is_free(&slots[j]) {
                slots[j] = e;
                slots[i] = free;
                break;
            }
            j = (j + 1) & mask;
        }
    }
    kept
}

/// A collection removes the dead entries of a table one by one while they are fewer than
/// one in this many of its slots, and otherwise filters the whole table in one pass: finding
/// an entry is a random access, visiting a slot in the pass a sequential one.
const REMOVE_ONE_BY_ONE: usize = 32;

/// Remove from the open-addressing table `slots` (linear probing, never full) the entry
/// that `is_it` picks on the probe path of `key` (whose home slot `home` gives), if it is
/// there, leaving `free` behind, and say whether it was. The entries after it on their
/// path are shifted back into the hole (backward-shift deletion), so every entry stays
/// findable without tombstones.
fn remove_entry<T: Copy>(
    slots: &mut [T],
    is_free: impl Fn(&T) -> bool,
    home: impl Fn(&T) -> usize,
    key: T,
    is_it: impl Fn(&T) -> bool,
    free: T,
) -> bool {
    let mask = slots.len() - 1;
    let mut i = home(&key);
    loop {
        let e = &slots[i];
        if is_free(e) {
            return false;
        }
        if is_it(e) {
            break;
        }
        i = (i + 1) & mask;
    }
    // Slot `i` is the hole. An entry at `j` further on may fill it when its home is not
    // in the cyclic range (i, j]: its probe path then passes through `i`.
    let mut j = i;
    loop {
        j = (j + 1) & mask;
        let e = slots[j];
        if is_free(&e) {
            break;
        }
        let h = home(&e);
        let home_in_between = if i <= j {
            i < h && h <= j
        } else {
            i < h || h <= j
        };
        if !home_in_between {
            slots[i] = e;
            i = j;
        }
    }
    slots[i] = free;
    true
}

impl TermStore {
    /// An empty store for the operators of `sig`.
    pub fn new(sig: &Signature) -> TermStore {
        let mut store = TermStore {
            terms: Vec::new(),
            table: vec![EMPTY; 1024],
            in_table: 0,
            small: vec![SMALL_EMPTY; 1024],
            in_small: 0,
            first_parent: Vec::new(),
            free: Vec::new(),
            nfree: 0,
            free_from: 0,
            owners: Vec::new(),
            segs: Vec::new(),
            free_segs: Vec::new(),
            old: Vec::new(),
            seg_old: Vec::new(),
            seg_elems: 0,
            spilled_args: 0,
            freed_spilled: 0,
            heavy: Vec::new(),
            string_bytes: 0,
            map_families: Vec::new(),
            set_ops: Vec::new(),
            map_family_of_op: Vec::new(),
            small_ints: Vec::new(),
            constants: Vec::new(),
            ops: Vec::new(),
            literal_sorts: [NO_SORT; 3],
            int_fits: Vec::new(),
            nsorts: 0,
            leq: Vec::new(),
            kind_top: Vec::new(),
            any_overloads: false,
            app_sorts: Vec::new(),
            strings: string::Strings::default(),
        };
        store.set_signature(sig);
        store
    }

    /// Adopt a new (usually extended) signature. Existing terms are kept: an id stays valid
    /// as long as the operators it mentions keep their meaning.
    pub fn set_signature(&mut self, sig: &Signature) {
        self.literal_sorts = [-1, 0, 1].map(|n| sig.literal_sort(n).unwrap_or(NO_SORT));
        let n = sig.sorts.len();
        self.nsorts = n;
        self.leq = vec![0; (n * n).div_ceil(64)];
        for a in 0..n {
            for b in 0..n {
                if sig.leq(SortId(a as u32), SortId(b as u32)) {
                    let bit = a * n + b;
                    self.leq[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        self.kind_top = (0..n)
            .map(|s| {
                let s = SortId(s as u32);
                (0..n)
                    .map(|t| SortId(t as u32))
                    .all(|t| !sig.same_kind(s, t) || sig.leq(t, s))
            })
            .collect();
        self.int_fits = (0..n as u32)
            .map(|s| {
                let fits = |i: usize| self.leq(self.literal_sorts[i], SortId(s));
                (0..3).filter(|&i| fits(i)).fold(0, |m, i| m | 1 << i)
            })
            .collect();
        // An operator overloaded anew (a module declared at the REPL's prompt may add
        // declarations to an operator whose terms exist): the sorts recorded for existing
        // terms are recomputed below.
        let overloads_changed =
            (sig.ops.iter().zip(&self.ops)).any(|(info, m)| info.overloads[..] != m.overloads[..]);
        self.ops.clear();
        for info in &sig.ops {
            let a = &info.attrs;
            self.ops.push(OpMeta {
                assoc: a.assoc,
                comm: a.comm,
                idem: a.idem,
                identity_term: None,
                left_id_term: None,
                right_id_term: None,
                result: if info.overloads.is_empty() {
                    info.result
                } else {
                    OVERLOADED
                },
                widest: info.result,
                args: info.args.clone().into_boxed_slice(),
                norm: a.equational(),
                overloads: info.overloads.clone().into_boxed_slice(),
            });
        }
        self.any_overloads = sig.overloads_in_use;
        self.strings = string::Strings::new(sig);
        if overloads_changed {
            self.recompute_app_sorts();
        }
        self.discover_map_families(sig);
        self.discover_set_ops(sig);
        for (i, info) in sig.ops.iter().enumerate() {
            if let Some(id) = info.attrs.identity {
                let t = self.intern_app(id, &[]);
                self.ops[i].identity_term = Some(t);
            }
            if let Some(id) = info.attrs.left_identity {
                let t = self.intern_app(id, &[]);
                self.ops[i].left_id_term = Some(t);
            }
            if let Some(id) = info.attrs.right_identity {
                let t = self.intern_app(id, &[]);
                self.ops[i].right_id_term = Some(t);
            }
        }
    }

    /// Number of distinct (live) terms in the store.
    pub fn len(&self) -> usize {
        self.terms.len() - self.nfree
    }

    /// Is the store empty?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One more than the largest id in use (the size of per-term tables).
    pub fn capacity(&self) -> usize {
        self.terms.len()
    }

    /// Elements held by the segments of long terms (including unused slack), plus an
    /// estimate of the entries the map terms hold on their own (see `map::own_cells`): what
    /// the term count does not show, for deciding when to collect.
    pub fn segment_elements(&self) -> usize {
        self.seg_elems
    }

    /// The data of a term.
    #[inline]
    pub fn data(&self, t: TermId) -> &TermData {
        &self.terms[t.index()]
    }

    /// The operator at the top of `t` (`None` for an integer).
    #[inline]
    pub fn op(&self, t: TermId) -> Option<OpId> {
        // The application first, alone: it is nearly every term asked about (the
        // dispatch on argument heads asks here for every call).
        if let TermData::App { op, .. } = &self.terms[t.index()] {
            return Some(*op);
        }
        match &self.terms[t.index()] {
            TermData::App { op, .. } | TermData::Long { op, .. } => Some(*op),
            TermData::Tree(t) => Some(t.op),
            TermData::Int(_) | TermData::Map(_) | TermData::Str(_) => None,
        }
    }

    /// The arguments of `t` (empty for constants and integers).
    #[inline]
    pub fn args(&self, t: TermId) -> &[TermId] {
        // The application first, alone, small enough to be inlined everywhere (with every
        // kind of term in one `match`, the direct evaluator called it: binary-add +2%).
        if let TermData::App { args, .. } = &self.terms[t.index()] {
            return args;
        }
        self.args_of_other(t)
    }

    /// [`TermStore::args`] of a term that is not a plain application.
    fn args_of_other(&self, t: TermId) -> &[TermId] {
        match &self.terms[t.index()] {
            TermData::App { args, .. } => args,
            TermData::Int(_) | TermData::Map(_) | TermData::Str(_) => &[],
            TermData::Long { seg, lo, hi, .. } => self.segs[*seg as usize].slice(*lo, *hi),
            TermData::Tree(t) => t.flat(),
        }
    }

    /// The operator and arguments of an application (`None` for an integer).
    #[inline]
    pub fn app(&self, t: TermId) -> Option<(OpId, &[TermId])> {
        // The application first, alone (as in `args`).
        if let TermData::App { op, args } = &self.terms[t.index()] {
            return Some((*op, args));
        }
        self.app_of_other(t)
    }

    /// [`TermStore::app`] of a term that is not a plain application.
    fn app_of_other(&self, t: TermId) -> Option<(OpId, &[TermId])> {
        match &self.terms[t.index()] {
            TermData::App { op, args } => Some((*op, args)),
            TermData::Int(_) | TermData::Map(_) | TermData::Str(_) => None,
            TermData::Long { op, seg, lo, hi } => {
                Some((*op, self.segs[*seg as usize].slice(*lo, *hi)))
            }
            TermData::Tree(t) => Some((t.op, t.flat())),
        }
    }

    /// The value of an integer literal.
    #[inline]
    pub fn int(&self, t: TermId) -> Option<i64> {
        match self.terms[t.index()] {
            TermData::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The identity constant of `op` as a term, if it has one.
    #[inline]
    pub fn identity(&self, op: OpId) -> Option<TermId> {
        self.ops[op.0 as usize].identity_term
    }

    /// Is the operator `assoc`?
    #[inline]
    pub fn is_assoc(&self, op: OpId) -> bool {
        self.ops[op.0 as usize].assoc
    }

    /// Is the operator `comm`?
    #[inline]
    pub fn is_comm(&self, op: OpId) -> bool {
        self.ops[op.0 as usize].comm
    }

    /// Does `op` have no equational attribute (its applications are stored as written)?
    pub fn is_free(&self, op: OpId) -> bool {
        !self.ops[op.0 as usize].norm
    }

    /// The declared result sort of an operator.
    #[inline]
    pub fn op_result(&self, op: OpId) -> SortId {
        self.ops[op.0 as usize].widest
    }

    /// The declared sorts of the arguments of `op`.
    pub fn op_args(&self, op: OpId) -> &[SortId] {
        &self.ops[op.0 as usize].args
    }

    /// Can an application of `op` have a sort at most `sort`: its declared result, or for
    /// a subsort-overloaded operator any of its declarations' results?
    pub fn op_may_be_below(&self, op: OpId, sort: SortId) -> bool {
        let m = &self.ops[op.0 as usize];
        self.leq(m.widest, sort) || m.overloads.iter().any(|r| self.leq(r.result, sort))
    }

    /// `op` applied to arguments of sorts `args`, for a subsort-overloaded operator (as
    /// `Signature::app_sort` computes it for the parser).
    fn overloaded_sort(&self, op: OpId, args: &[SortId]) -> SortId {
        let m = &self.ops[op.0 as usize];
        least_result(m.widest, &m.overloads, m.comm, args, |a, b| self.leq(a, b))
    }

    /// The sorts of every live application of an overloaded operator, recorded again
    /// (after [`TermStore::set_signature`] changed an operator's declarations): arguments
    /// first, by an explicit stack (a term's arguments may have larger ids than the term,
    /// when it took a freed id, and may nest deeper than the native stack allows).
    #[cold]
    fn recompute_app_sorts(&mut self) {
        let n = self.terms.len();
        let free = |store: &TermStore, i: usize| {
            store
                .free
                .get(i / 64)
                .is_some_and(|w| w & (1 << (i % 64)) != 0)
        };
        let mut done = vec![false; n];
        let mut stack: Vec<(u32, bool)> = Vec::new();
        for root in 0..n {
            if done[root] || free(self, root) {
                continue;
            }
            stack.push((root as u32, false));
            while let Some((u, args_done)) = stack.pop() {
                let u = u as usize;
                if done[u] {
                    continue;
                }
                let Some(op) = self.op(TermId(u as u32)) else {
                    done[u] = true;
                    continue;
                };
                if self.ops[op.0 as usize].result != OVERLOADED {
                    done[u] = true;
                    continue;
                }
                if args_done {
                    self.note_app_sort(TermId(u as u32));
                    done[u] = true;
                } else {
                    stack.push((u as u32, true));
                    let args = self.args(TermId(u as u32));
                    stack.extend(
                        args.iter()
                            .filter(|a| !done[a.index()])
                            .map(|a| (a.0, false)),
                    );
                }
            }
        }
    }

    /// Record the sort of the new term `t` if it is an application of a subsort-overloaded
    /// operator: for an `assoc` one, the sorts of its flattened arguments folded from the
    /// left (`a b c` is `(a b) c`), otherwise its arguments' sorts together.
    #[cold]
    #[inline(never)]
    fn note_app_sort(&mut self, t: TermId) {
        let sort = match self.terms[t.index()] {
            TermData::Long { .. } | TermData::Tree(_) => LAZY,
            _ => self.app_sort(t),
        };
        if self.app_sorts.len() <= t.index() {
            self.app_sorts.resize(t.index() + 1, Cell::new(NO_SORT));
        }
        self.app_sorts[t.index()].set(sort);
    }

    /// The sort of the application `t` of an overloaded operator, from its arguments'.
    fn app_sort(&self, t: TermId) -> SortId {
        let Some((op, args)) = self.app(t) else {
            return NO_SORT;
        };
        match args {
            [first, rest @ ..] if self.ops[op.0 as usize].assoc && rest.len() > 1 => (rest.iter())
                .fold(self.sort_of(*first), |acc, &a| {
                    self.overloaded_sort(op, &[acc, self.sort_of(a)])
                }),
            _ => {
                let sorts: SmallVec<[SortId; 4]> = args.iter().map(|&a| self.sort_of(a)).collect();
                self.overloaded_sort(op, &sorts)
            }
        }
    }

    /// Is `a` a subsort of (or equal to) `b`? Always false for [`NO_SORT`].
    #[inline]
    /// Is `s` the greatest sort of its kind? Every term has a sort of the kind its
    /// position expects (equations keep kinds, and terms are parsed and built by
    /// operators of declared arities), so a variable of such a sort matches any term
    /// without a sort check.
    pub fn is_kind_top(&self, s: SortId) -> bool {
        self.kind_top.get(s.0 as usize).copied().unwrap_or(false)
    }

    /// Does term `t` have sort `s` (its least sort at or below `s`)? A number is checked
    /// against its sign's bit in `int_fits`: its least sort (`NzNat`) is seldom the sort
    /// asked (`Nat`), which `leq` would look up in its matrix (1% of a heaps sweep).
    #[inline(always)]
    pub fn has_sort(&self, t: TermId, s: SortId) -> bool {
        match &self.terms[t.index()] {
            TermData::Int(v) => {
                (self.int_fits.get(s.0 as usize)).is_some_and(|&m| m >> sign_index(*v) & 1 != 0)
            }
            _ => self.leq(self.sort_of(t), s),
        }
    }

    pub fn leq(&self, a: SortId, b: SortId) -> bool {
        if a == b {
            return a != NO_SORT;
        }
        let (a, b) = (a.0 as usize, b.0 as usize);
        if a >= self.nsorts || b >= self.nsorts {
            return false;
        }
        let bit = a * self.nsorts + b;
        self.leq[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The (least) sort of a term: `Nat` for literals ≥ 0, `Int` for negative ones, the
    /// declared result sort of the top operator otherwise.
    #[inline(always)]
    pub fn sort_of(&self, t: TermId) -> SortId {
        match &self.terms[t.index()] {
            TermData::App { op, .. } | TermData::Long { op, .. } => {
                let r = self.ops[op.0 as usize].result;
                if r == OVERLOADED {
                    return self.overloaded_sort_of(t);
                }
                r
            }
            TermData::Int(v) => self.literal_sorts[sign_index(*v)],
            TermData::Tree(tree) => {
                let r = self.ops[tree.op.0 as usize].result;
                if r == OVERLOADED {
                    return self.overloaded_sort_of(t);
                }
                r
            }
            // Out of line: the arms above stay small enough to be inlined everywhere.
            TermData::Map(_) | TermData::Str(_) => self.sort_of_value(t),
        }
    }

    #[cold]
    #[inline(never)]
    fn overloaded_sort_of(&self, t: TermId) -> SortId {
        match self.app_sorts.get(t.index()).map(Cell::get) {
            Some(LAZY) => {
                let s = self.app_sort(t);
                self.app_sorts[t.index()].set(s);
                s
            }
            Some(s) if s != NO_SORT => s,
            // Every application of an overloaded operator is recorded when it is made (or
            // by `recompute_app_sorts`); should one not be, its declared (widest) sort is
            // an upper bound, never a panic.
            _ => self.op(t).map_or(NO_SORT, |op| self.op_result(op)),
        }
    }

    #[cold]
    #[inline(never)]
    fn sort_of_value(&self, t: TermId) -> SortId {
        match &self.terms[t.index()] {
            TermData::Map(m) => self.map_families[m.family as usize].sort,
            TermData::Str(text) => self.strings.sort_of(text),
            _ => unreachable!("a map or a string"),
        }
    }

    /// The integer literal `v`.
    #[inline]
    pub fn mk_int(&mut self, v: i64) -> TermId {
        if (SMALL_LO..SMALL_HI).contains(&v) {
            let i = (v - SMALL_LO) as usize;
            if let Some(&t) = self.small_ints.get(i) {
                if t != NO_TERM {
                    return t;
                }
            }
            let t = self.intern_int(v);
            if self.small_ints.len() <= i {
                self.small_ints.resize(i + 1, NO_TERM);
            }
            self.small_ints[i] = t;
            return t;
        }
        self.intern_int(v)
    }

    fn intern_int(&mut self, v: i64) -> TermId {
        let h = hash_int(v);
        // (Compared in place: `== TermData::Int(v)` built and dropped a `TermData`.)
        match self.probe(h, |d| matches!(d, TermData::Int(x) if *x == v)) {
            Ok(t) => t,
            Err(slot) => self.insert_at(slot, h, TermData::Int(v)),
        }
    }

    /// The constant `op`.
    pub fn mk_const(&mut self, op: OpId) -> TermId {
        self.mk_app(op, &[])
    }

    /// `op(args…)`, normalised according to the attributes of `op` (see the module
    /// documentation). The result may not be headed by `op`: `_,_(x)` is `x` and an
    /// application of an `id:` operator to identities only is the identity constant.
    pub fn mk_app(&mut self, op: OpId, args: &[TermId]) -> TermId {
        let meta = &self.ops[op.0 as usize];
        if !meta.norm {
            return self.intern_app(op, args);
        }
        if meta.assoc && meta.comm {
            return self.mk_ac(op, args);
        }
        let (assoc, comm, idem, id) = (meta.assoc, meta.comm, meta.idem, meta.identity_term);
        let (left, right) = (meta.left_id_term, meta.right_id_term);
        if assoc && !idem && left.is_none() && right.is_none() {
            if let Some(t) = self.extend_long_list(op, args, id) {
                return t;
            }
        }
        let mut buf: SmallVec<[TermId; 8]> = SmallVec::new();
        if assoc {
            for &a in args {
                match &self.terms[a.index()] {
                    TermData::App { op: o, args: sub } if *o == op => buf.extend_from_slice(sub),
                    TermData::Long { op: o, .. } if *o == op => {
                        buf.extend_from_slice(self.args_of_other(a))
                    }
                    _ => buf.push(a),
                }
            }
        } else {
            buf.extend_from_slice(args);
        }
        if let Some(id) = id {
            buf.retain(|a| *a != id);
        }
        // A right identity goes wherever something stands before it (`x op e` is `x`, and
        // with `assoc` so is `x op e op y`), a left one wherever something stands after it.
        if let Some(r) = right {
            let mut k = 1;
            buf.retain(|a| {
                k -= 1;
                k >= 0 || *a != r
            });
        }
        if let Some(l) = left {
            let last = buf.len().saturating_sub(1);
            let mut k = 0;
            buf.retain(|a| {
                k += 1;
                k > last || *a != l
            });
        }
        let one_sided = left.is_some() || right.is_some();
        if comm && buf.len() > 1 {
            buf.sort_by(|&a, &b| self.compare(a, b));
        }
        if idem {
            buf.dedup();
        }
        match buf.len() {
            0 => {
                if let Some(id) = id {
                    return id;
                }
            }
            // A singleton collapses for assoc / id: operators, and for an idem one whose
            // arguments were all equal (`f(x, x)` → `x`).
            1 if assoc || id.is_some() || one_sided || args.len() > 1 => return buf[0],
            n if assoc && n > LONG_MIN => return self.intern_long(op, Desc::Slice(&buf)),
            _ => {}
        }
        self.intern_app(op, &buf)
    }

    /// `op(args…)` for an `assoc` operator that is not `comm` (nor `idem`, nor with a
    /// one-sided identity) when exactly one argument is a long `op`-list: that list's
    /// segment with the other arguments' elements before and after it, written in place
    /// where the view reaches the segment's end (start). `e(N) mk(N - 1)`, `L Q` built
    /// one element at a time, costs `O(1)` an element, not a copy of the list. `None`
    /// when no argument (or more than one) is such a list.
    fn extend_long_list(
        &mut self,
        op: OpId,
        args: &[TermId],
        id: Option<TermId>,
    ) -> Option<TermId> {
        let mut long = None;
        for (i, &a) in args.iter().enumerate() {
            if let TermData::Long { op: o, .. } = self.terms[a.index()] {
                if o == op {
                    if long.is_some() {
                        return None;
                    }
                    long = Some(i);
                }
            }
        }
        let at = long?;
        let TermData::Long { seg, lo, hi, .. } = self.terms[args[at].index()] else {
            unreachable!("a long list")
        };
        let elements = |store: &TermStore, out: &mut SmallVec<[TermId; 8]>, part: &[TermId]| {
            for &a in part {
                if Some(a) != id {
                    out.extend_from_slice(store.elements(&a, op));
                }
            }
        };
        let (mut before, mut after) = (SmallVec::new(), SmallVec::new());
        elements(self, &mut before, &args[..at]);
        elements(self, &mut after, &args[at + 1..]);
        let d = match (before.is_empty(), after.is_empty()) {
            (true, _) => Desc::Append {
                seg,
                lo,
                hi,
                extra: &after,
            },
            (false, true) => Desc::Prepend {
                seg,
                lo,
                hi,
                extra: &before,
            },
            (false, false) => {
                let pieces: SmallVec<[Piece; 16]> = (before.iter().map(|&x| Piece::One(x)))
                    .chain(std::iter::once(Piece::Run(lo, hi)))
                    .chain(after.iter().map(|&x| Piece::One(x)))
                    .collect();
                return Some(self.intern_long(
                    op,
                    Desc::Pieces {
                        seg,
                        pieces: &pieces,
                    },
                ));
            }
        };
        Some(self.intern_long(op, d))
    }

    /// `op(args…)` for an `assoc comm` operator: merge the sorted argument lists of the
    /// arguments headed by `op` with the other arguments, writing in place when the new
    /// elements all go after (or before) one long list.
    fn mk_ac(&mut self, op: OpId, args: &[TermId]) -> TermId {
        let meta = &self.ops[op.0 as usize];
        let (idem, id) = (meta.idem, meta.identity_term);
        let mut lists: SmallVec<[TermId; 4]> = SmallVec::new();
        let mut singles: SmallVec<[TermId; 8]> = SmallVec::new();
        for &a in args {
            if Some(a) == id {
                continue;
            }
            match self.op(a) {
                Some(o) if o == op => lists.push(a),
                _ => singles.push(a),
            }
        }
        if singles.len() > 1 {
            singles.sort_by(|&a, &b| self.compare(a, b));
            if idem {
                singles.dedup();
            }
        }
        if lists.is_empty() {
            return self.sorted_term(op, &singles);
        }
        if lists.len() == 1 {
            let list = lists[0];
            if singles.is_empty() {
                return list;
            }
            match &self.terms[list.index()] {
                &TermData::Long { seg, lo, hi, .. } => {
                    if let Some(t) = self.insert_into_long(op, idem, seg, lo, hi, &mut singles) {
                        return t;
                    }
                    if (hi - lo) as usize > TREE_MIN {
                        let (elems, sum) = self.tree_of_view(seg, lo, hi);
                        return self.insert_into_tree(op, idem, elems, sum, &singles);
                    }
                    return self.insert_inside_long(op, idem, seg, lo, hi, &singles);
                }
                TermData::Tree(t) => {
                    let (elems, sum) = (t.elems.clone(), t.sum);
                    return self.insert_into_tree(op, idem, elems, sum, &singles);
                }
                _ => {}
            }
        }
        // General case: merge everything (short lists, mostly: on the stack).
        let mut merged: Merged = SmallVec::new();
        let mut tmp: Merged = SmallVec::new();
        merged.extend_from_slice(&singles);
        for &l in &lists {
            tmp.clear();
            merge_sorted(self, &merged, self.args(l), idem, &mut tmp);
            std::mem::swap(&mut merged, &mut tmp);
        }
        self.sorted_term(op, &merged)
    }

    /// Add the sorted `singles` (deduplicated if `idem`) anywhere into the long list
    /// `seg[lo..hi]`: each one's place found by binary search, the runs between copied
    /// whole (with their prefix sums: [`Desc::Pieces`]), and the hash summed from the
    /// segment's prefix sums plus the new elements. A
    /// merge would compare and hash every element of the list: inserting one number into
    /// a set of a thousand cost a thousand comparisons (issue 11's `ac-set`).
    fn insert_inside_long(
        &mut self,
        op: OpId,
        idem: bool,
        seg: u32,
        lo: u32,
        hi: u32,
        singles: &[TermId],
    ) -> TermId {
        let sg = &self.segs[seg as usize];
        let elems = sg.slice(lo, hi);
        let mut sum = sg.sum(lo, hi);
        let mut len = elems.len();
        let mut pieces: SmallVec<[Piece; 8]> = SmallVec::new();
        let mut from = 0;
        let run = |a: usize, b: usize| Piece::Run(lo + a as u32, lo + b as u32);
        for &x in singles {
            // As `merge_sorted`: an element equal to a list element goes before it (or,
            // for an `idem` operator, is dropped).
            let at =
                from + elems[from..].partition_point(|&e| self.compare(e, x) == Ordering::Less);
            if idem
                && elems
                    .get(at)
                    .is_some_and(|&e| self.compare(e, x) == Ordering::Equal)
            {
                continue;
            }
            if at > from {
                pieces.push(run(from, at));
            }
            from = at;
            pieces.push(Piece::One(x));
            sum = sum.wrapping_add(elem_hash(x));
            len += 1;
        }
        if from < elems.len() {
            pieces.push(run(from, elems.len()));
        }
        self.intern_long_summed(
            op,
            Desc::Pieces {
                seg,
                pieces: &pieces,
            },
            (sum, len),
        )
    }

    /// Add the sorted `singles` to the long list `seg[lo..hi]`: `None` unless they all go
    /// after its last element or all before its first.
    fn insert_into_long(
        &mut self,
        op: OpId,
        idem: bool,
        seg: u32,
        lo: u32,
        hi: u32,
        singles: &mut SmallVec<[TermId; 8]>,
    ) -> Option<TermId> {
        let s = &self.segs[seg as usize];
        let view = s.slice(lo, hi);
        let (first, last) = (view[0], view[view.len() - 1]);
        let lowest = singles[0];
        let highest = singles[singles.len() - 1];
        match self.compare(lowest, last) {
            Ordering::Greater => {
                return Some(self.intern_long(
                    op,
                    Desc::Append {
                        seg,
                        lo,
                        hi,
                        extra: singles,
                    },
                ))
            }
            Ordering::Equal if idem && singles.len() == 1 => {
                return Some(self.long_view(op, seg, lo, hi));
            }
            _ => {}
        }
        match self.compare(highest, first) {
            Ordering::Less => Some(self.intern_long(
                op,
                Desc::Prepend {
                    seg,
                    lo,
                    hi,
                    extra: singles,
                },
            )),
            Ordering::Equal if idem && singles.len() == 1 => Some(self.long_view(op, seg, lo, hi)),
            _ => {
                if idem && singles.len() == 1 {
                    // Already an element? (binary search)
                    let x = singles[0];
                    let s = self.segs[seg as usize].slice(lo, hi);
                    if s.binary_search_by(|e| self.compare(*e, x)).is_ok() {
                        return Some(self.long_view(op, seg, lo, hi));
                    }
                }
                None
            }
        }
    }

    /// The existing long term `seg[lo..hi]` (it was interned when it was built).
    fn long_view(&mut self, op: OpId, seg: u32, lo: u32, hi: u32) -> TermId {
        self.intern_view(op, seg, lo, hi)
    }

    /// An `assoc comm` term from its sorted, deduplicated (if `idem`) elements: the
    /// identity when empty, the element itself when alone, inline when short, long
    /// otherwise.
    fn sorted_term(&mut self, op: OpId, elems: &[TermId]) -> TermId {
        match elems.len() {
            0 => match self.ops[op.0 as usize].identity_term {
                Some(id) => id,
                None => self.intern_app(op, &[]),
            },
            1 => elems[0],
            n if n <= LONG_MIN => self.intern_app(op, elems),
            _ => self.intern_long(op, Desc::Slice(elems)),
        }
    }

    /// Build `op(elems…)` from a sub-list of the arguments of an already normalised term
    /// of the `assoc` operator `op` (sorted, flattened, no identity, no duplicates if
    /// `idem`): no re-normalisation is needed. Empty → the identity (`None` when `op` has
    /// none), singleton → the element.
    pub(crate) fn mk_flat(&mut self, op: OpId, elems: &[TermId]) -> Option<TermId> {
        match elems.len() {
            0 => self.ops[op.0 as usize].identity_term,
            1 => Some(elems[0]),
            n if n > LONG_MIN => Some(self.intern_long(op, Desc::Slice(elems))),
            _ => Some(self.intern_app(op, elems)),
        }
    }

    /// The elements `from..to` of the `op`-list `t` (indices into
    /// [`TermStore::elements`]) as a term, as [`TermStore::mk_flat`] builds it: a view of
    /// `t`'s own segment when `t` is long, so that the rest `L` of a match `Q L` on a long
    /// list costs `O(1)`, not a copy of `L`.
    pub(crate) fn sublist(
        &mut self,
        t: TermId,
        op: OpId,
        from: usize,
        to: usize,
    ) -> Option<TermId> {
        if let TermData::Long { op: o, seg, lo, .. } = self.terms[t.index()] {
            if o == op && to - from > LONG_MIN {
                return Some(self.intern_view(op, seg, lo + from as u32, lo + to as u32));
            }
        }
        let part: SmallVec<[TermId; 16]> =
            self.elements(&t, op)[from..to].iter().copied().collect();
        self.mk_flat(op, &part)
    }

    /// The `op`-list `t` without its element number `skip` (an index into
    /// [`TermStore::elements`]): without copying when `skip` is the first or last element
    /// of a long term; from the middle of one, hashed from the segment's prefix sums and
    /// copied (if new) without hashing its elements again ([`Desc::Pieces`]). The seed's
    /// `order((a b), S)` of a heaps position with a condition refusing the first element
    /// takes the second each time: hashing the rest element by element made its
    /// recursion cost a multiple of the square of the set's size in hashing.
    pub(crate) fn without(&mut self, t: TermId, op: OpId, skip: usize) -> Option<TermId> {
        if let TermData::Long { op: o, seg, lo, hi } = self.terms[t.index()] {
            if o == op {
                let n = (hi - lo) as usize;
                if n - 1 > LONG_MIN {
                    if skip == 0 || skip == n - 1 {
                        let (lo, hi) = if skip == 0 {
                            (lo + 1, hi)
                        } else {
                            (lo, hi - 1)
                        };
                        return Some(self.intern_view(op, seg, lo, hi));
                    }
                    if n > TREE_MIN && self.ops[op.0 as usize].comm {
                        let (elems, sum) = self.tree_of_view(seg, lo, hi);
                        return self.tree_without(op, elems, sum, 0, skip);
                    }
                    let at = lo + skip as u32;
                    let pieces = [Piece::Run(lo, at), Piece::Run(at + 1, hi)];
                    return Some(self.intern_long(
                        op,
                        Desc::Pieces {
                            seg,
                            pieces: &pieces,
                        },
                    ));
                }
            }
        }
        if let TermData::Tree(tr) = &self.terms[t.index()] {
            if tr.op == op {
                let (elems, sum, peels) = (tr.elems.clone(), tr.sum, tr.peels);
                return self.tree_without(op, elems, sum, peels, skip);
            }
        }
        let elems = self.elements(&t, op);
        // A short list (the common case: `(c, S)` on a position's few moves) copied element
        // by element: `extend_from_slice` of an unknown length is a call of `memcpy`, two
        // per rest, which cost more than the copying (about a third of the subtraction
        // game's `without`).
        const SHORT: usize = 8;
        match elems.len() {
            2 => Some(elems[1 - skip]),
            n if n <= SHORT => {
                let mut rest = [TermId(0); SHORT];
                let mut k = 0;
                for (i, &e) in elems.iter().enumerate() {
                    if i != skip {
                        rest[k] = e;
                        k += 1;
                    }
                }
                self.mk_flat(op, &rest[..k])
            }
            n => {
                let mut rest: SmallVec<[TermId; 16]> = SmallVec::with_capacity(n - 1);
                rest.extend_from_slice(&elems[..skip]);
                rest.extend_from_slice(&elems[skip + 1..]);
                self.mk_flat(op, &rest)
            }
        }
    }

    /// The flattened arguments of `t` seen as an `op`-list: the arguments when `t` is headed
    /// by `op`, nothing when `t` is the identity of `op`, `t` alone otherwise.
    #[inline(always)]
    pub fn elements<'a>(&'a self, t: &'a TermId, op: OpId) -> &'a [TermId] {
        match &self.terms[t.index()] {
            TermData::App { op: o, args } if *o == op => args,
            TermData::Long { op: o, seg, lo, hi } if *o == op => {
                self.segs[*seg as usize].slice(*lo, *hi)
            }
            TermData::Tree(t) if t.op == op => t.flat(),
            _ if self.ops[op.0 as usize].identity_term == Some(*t) => &[],
            _ => std::slice::from_ref(t),
        }
    }

    /// The structural total order used to sort the arguments of `comm` operators:
    /// integers, then maps, then computed strings, then applications; integers by value,
    /// strings by their bytes, applications by operator id then arguments
    /// lexicographically (then by length). It does not depend on term ids, so it
    /// does not depend on the order in which terms were created. No recursion on depth.
    #[inline]
    pub fn compare(&self, a: TermId, b: TermId) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        let (x, y) = (&self.terms[a.index()], &self.terms[b.index()]);
        match (x, y) {
            (TermData::Int(x), TermData::Int(y)) => x.cmp(y),
            (TermData::Int(_), _) => Ordering::Less,
            (_, TermData::Int(_)) => Ordering::Greater,
            // Maps come after integers and before applications.
            (TermData::Map(x), TermData::Map(y)) => self.compare_maps(x, y),
            (TermData::Map(_), _) => Ordering::Less,
            (_, TermData::Map(_)) => Ordering::Greater,
            (TermData::App { op: o1, args: a1 }, TermData::App { op: o2, args: a2 }) => {
                if o1 != o2 {
                    return o1.cmp(o2);
                }
                // Fast path: the first differing arguments are integers (`(3 5)` vs `(3 7)`).
                for (p, q) in a1.iter().zip(a2.iter()) {
                    if p == q {
                        continue;
                    }
                    if let (TermData::Int(u), TermData::Int(v)) =
                        (&self.terms[p.index()], &self.terms[q.index()])
                    {
                        return u.cmp(v);
                    }
                    return self.compare_args(a, b);
                }
                a1.len().cmp(&a2.len())
            }
            // Computed strings by their bytes; after integers and maps, before the
            // applications (below: no operator comes first). Here, not above, so that
            // two applications are compared with no more tests than before strings.
            (TermData::Str(x), TermData::Str(y)) => x.cmp(y),
            _ => {
                let (o1, o2) = (self.op(a), self.op(b));
                if o1 != o2 {
                    return o1.cmp(&o2);
                }
                self.compare_args(a, b)
            }
        }
    }

    #[inline(never)]
    fn compare_args(&self, a: TermId, b: TermId) -> Ordering {
        enum Item {
            Pair(TermId, TermId),
            Len(usize, usize),
        }
        let mut stack: SmallVec<[Item; 16]> = SmallVec::new();
        stack.push(Item::Pair(a, b));
        while let Some(item) = stack.pop() {
            match item {
                Item::Len(x, y) => {
                    if x != y {
                        return x.cmp(&y);
                    }
                }
                Item::Pair(a, b) => {
                    if a == b {
                        continue;
                    }
                    match (self.app(a), self.app(b)) {
                        // Integers and maps (no arguments to walk).
                        (None, None) => {
                            let o = self.compare(a, b);
                            if o != Ordering::Equal {
                                return o;
                            }
                        }
                        (None, Some(_)) => return Ordering::Less,
                        (Some(_), None) => return Ordering::Greater,
                        (Some((o1, a1)), Some((o2, a2))) => {
                            if o1 != o2 {
                                return o1.cmp(&o2);
                            }
                            stack.push(Item::Len(a1.len(), a2.len()));
                            for i in (0..a1.len().min(a2.len())).rev() {
                                stack.push(Item::Pair(a1[i], a2[i]));
                            }
                        }
                    }
                }
            }
        }
        Ordering::Equal
    }

    /// Hash-cons `op(args)` exactly as given (no normalisation).
    ///
    /// An application is found either as the *first parent* of its anchor (the argument
    /// with the largest id) or in the hash table; every application is in exactly one of
    /// the two. Building a new term over a new one (`s(N plus M)`, `cons(x, L)` with `L`
    /// just built) thus costs no hash-table probe: the new argument has no parent yet, so
    /// the application cannot exist, and it becomes that argument's first parent. The
    /// anchor and its first parent are usually recent, hence in cache; a probe of a large
    /// table is usually a cache miss.
    #[inline]
    pub(crate) fn intern_app(&mut self, op: OpId, args: &[TermId]) -> TermId {
        if let Some(anchor) = args.iter().copied().max() {
            for k in 0..2 {
                let fp = self.first_parent[anchor.index()][k];
                if fp == NO_PARENT {
                    let id = self.alloc_app(op, args);
                    self.first_parent[anchor.index()][k] = id.0;
                    return id;
                }
                if fp != SEE_TABLE {
                    if let TermData::App { op: o, args: a } = &self.terms[fp as usize] {
                        if *o == op && a.as_slice() == args {
                            return TermId(fp);
                        }
                    }
                }
            }
        }
        if let [a0] | [a0, _] = args {
            let (a0, a1) = (a0.0, args.get(1).map_or(u32::MAX, |a| a.0));
            let mask = self.small.len() - 1;
            let mut i = hash_small(op.0, a0, a1) as usize & mask;
            loop {
                let e = self.small[i];
                if e.id == u32::MAX {
                    break;
                }
                if e.op == op.0 && e.a0 == a0 && e.a1 == a1 {
                    return TermId(e.id);
                }
                i = (i + 1) & mask;
            }
            let id = self.alloc_app(op, args);
            self.small[i] = SmallEntry {
                op: op.0,
                a0,
                a1,
                id: id.0,
            };
            self.in_small += 1;
            if self.in_small * 2 > self.small.len() {
                self.rehash_small(self.small.len() * 2, |_| true);
            }
            return id;
        }
        let h = hash_app(op, args);
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let entry = self.table[i];
            if entry == EMPTY {
                break;
            }
            if (entry >> 32) as u32 == h {
                let id = entry as u32;
                if let TermData::App { op: o, args: a } = &self.terms[id as usize] {
                    if *o == op && a.as_slice() == args {
                        return TermId(id);
                    }
                }
            }
            i = (i + 1) & mask;
        }
        let id = self.insert_at(
            i,
            h,
            TermData::App {
                op,
                args: args_from(args),
            },
        );
        self.count_spilled(id, args.len());
        if args.is_empty() {
            self.constants.push(id);
        }
        id
    }

    /// Every constant (application of no arguments) built so far. Garbage collection
    /// keeps them all, and reads them here rather than walking every term to find them.
    pub(crate) fn constants(&self) -> &[TermId] {
        &self.constants
    }

    /// The elements described by `d`, pushed on `out`.
    fn desc_contents(&self, d: Desc<'_>, out: &mut Vec<TermId>) {
        let view = |seg: u32, lo: u32, hi: u32| self.segs[seg as usize].slice(lo, hi);
        match d {
            Desc::Slice(s) => out.extend_from_slice(s),
            Desc::Append { seg, lo, hi, extra } => {
                out.extend_from_slice(view(seg, lo, hi));
                out.extend_from_slice(extra);
            }
            Desc::Prepend { seg, lo, hi, extra } => {
                out.extend_from_slice(extra);
                out.extend_from_slice(view(seg, lo, hi));
            }
            Desc::Pieces { seg, pieces } => {
                for p in pieces {
                    match *p {
                        Piece::Run(lo, hi) => out.extend_from_slice(view(seg, lo, hi)),
                        Piece::One(x) => out.push(x),
                    }
                }
            }
        }
    }

    /// The hash sum and length of the contents `d` of a long list of `op`.
    fn desc_sum_len(&self, op: OpId, d: Desc<'_>) -> (u64, usize) {
        let ordered = !self.ops[op.0 as usize].comm;
        let c = match d {
            Desc::Slice(s) => Contents::EMPTY.then_elems(s, ordered),
            Desc::Append { seg, lo, hi, extra } => self.segs[seg as usize]
                .contents(lo, hi)
                .then_elems(extra, ordered),
            Desc::Prepend { seg, lo, hi, extra } => Contents::EMPTY
                .then_elems(extra, ordered)
                .then(self.segs[seg as usize].contents(lo, hi), ordered),
            Desc::Pieces { seg, pieces } => {
                let sg = &self.segs[seg as usize];
                pieces.iter().fold(Contents::EMPTY, |c, p| match *p {
                    Piece::Run(lo, hi) => c.then(sg.contents(lo, hi), ordered),
                    Piece::One(x) => c.then_elems(&[x], ordered),
                })
            }
        };
        (c.sum, c.len)
    }

    /// Do the elements `seg2[lo2..hi2]` equal the contents described by `d`?
    fn desc_equal(&self, seg2: u32, lo2: u32, hi2: u32, d: Desc<'_>) -> bool {
        let cand = self.segs[seg2 as usize].slice(lo2, hi2);
        match d {
            Desc::Slice(s) => cand == s,
            Desc::Append { seg, lo, hi, extra } => {
                let n = (hi - lo) as usize;
                if cand.len() != n + extra.len() || cand[n..] != *extra {
                    return false;
                }
                (seg == seg2 && lo == lo2) || cand[..n] == *self.segs[seg as usize].slice(lo, hi)
            }
            Desc::Prepend { seg, lo, hi, extra } => {
                let n = (hi - lo) as usize;
                let k = extra.len();
                if cand.len() != n + k || cand[..k] != *extra {
                    return false;
                }
                (seg == seg2 && hi == hi2) || cand[k..] == *self.segs[seg as usize].slice(lo, hi)
            }
            Desc::Pieces { seg, pieces } => {
                let src = &self.segs[seg as usize];
                let mut at = 0;
                for p in pieces {
                    match *p {
                        Piece::Run(lo, hi) => {
                            let run = src.slice(lo, hi);
                            if cand.get(at..at + run.len()) != Some(run) {
                                return false;
                            }
                            at += run.len();
                        }
                        Piece::One(x) => {
                            if cand.get(at) != Some(&x) {
                                return false;
                            }
                            at += 1;
                        }
                    }
                }
                at == cand.len()
            }
        }
    }

    /// Hash-cons the long term of `op` with the contents `d` (more than [`LONG_MIN`]
    /// elements, sorted and normalised), writing the contents in place at the end (or the
    /// start) of a segment when the view described reaches it.
    fn intern_long(&mut self, op: OpId, d: Desc<'_>) -> TermId {
        let sum_len = self.desc_sum_len(op, d);
        self.intern_long_summed(op, d, sum_len)
    }

    /// [`TermStore::intern_long`] given the contents' hash sum and length (as
    /// `desc_sum_len` computes them).
    fn intern_long_summed(&mut self, op: OpId, d: Desc<'_>, (sum, len): (u64, usize)) -> TermId {
        debug_assert!(len > LONG_MIN);
        debug_assert_eq!(self.desc_sum_len(op, d), (sum, len));
        let h = hash_long(op, sum, len);
        let found = self.probe(h, |data| match *data {
            TermData::Long { op: o, seg, lo, hi } => o == op && self.desc_equal(seg, lo, hi, d),
            // The same elements may already be a tree term.
            TermData::Tree(ref t) => t.op == op && t.sum == sum && self.tree_equal(t, d),
            _ => false,
        });
        match found {
            Ok(id) => id,
            Err(slot) => {
                let (seg, lo, hi) = self.materialise(op, d);
                self.insert_at(slot, h, TermData::Long { op, seg, lo, hi })
            }
        }
    }

    /// Look up hash `h` in the table: the term with that hash whose data `same` accepts,
    /// or else the free slot where a new one goes.
    #[inline(always)]
    fn probe(&self, h: u32, same: impl Fn(&TermData) -> bool) -> Result<TermId, usize> {
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let entry = self.table[i];
            if entry == EMPTY {
                return Err(i);
            }
            if (entry >> 32) as u32 == h && same(&self.terms[entry as u32 as usize]) {
                return Ok(TermId(entry as u32));
            }
            i = (i + 1) & mask;
        }
    }

    /// The long term for the view `seg[lo..hi]` of an existing segment.
    fn intern_view(&mut self, op: OpId, seg: u32, lo: u32, hi: u32) -> TermId {
        self.intern_long(
            op,
            Desc::Append {
                seg,
                lo,
                hi,
                extra: &[],
            },
        )
    }

    /// Store the contents `d` in a segment (in place when possible): (segment, lo, hi).
    fn materialise(&mut self, op: OpId, d: Desc<'_>) -> (u32, u32, u32) {
        let ordered = !self.ops[op.0 as usize].comm;
        match d {
            Desc::Slice(s) => {
                let seg = self.new_seg(Seg::with_slack(0, s, 0, ordered));
                (seg, SEG_ORIGIN, SEG_ORIGIN + s.len() as u32)
            }
            Desc::Append { seg, lo, hi, extra } => {
                if extra.is_empty() {
                    return (seg, lo, hi);
                }
                let sg = &mut self.segs[seg as usize];
                if hi == sg.end() {
                    let before = sg.elems.capacity();
                    let mut s = sg.psum(hi);
                    let (mut w, step) = if sg.ordered { (pow(B, hi), B) } else { (1, 1) };
                    for &e in extra {
                        sg.elems.push(e);
                        s = s.wrapping_add(elem_hash(e).wrapping_mul(w));
                        w = w.wrapping_mul(step);
                        sg.sums.push(s);
                    }
                    let grown = sg.elems.capacity() - before;
                    self.seg_elems += grown;
                    (seg, lo, hi + extra.len() as u32)
                } else {
                    let n = (hi - lo) as usize;
                    let mut items: Vec<TermId> = Vec::with_capacity(n + extra.len());
                    items.extend_from_slice(sg.slice(lo, hi));
                    items.extend_from_slice(extra);
                    let fresh = Seg::with_slack(0, &items, n, sg.ordered);
                    let len = items.len() as u32;
                    (self.new_seg(fresh), SEG_ORIGIN, SEG_ORIGIN + len)
                }
            }
            Desc::Prepend { seg, lo, hi, extra } => {
                if extra.is_empty() {
                    return (seg, lo, hi);
                }
                let k = extra.len() as u32;
                let sg = &mut self.segs[seg as usize];
                // In place when the view starts where the segment does, and there is room,
                // or the view is most of the segment (a short prefix of a long list is
                // copied rather than the whole segment moved for it).
                let room = sg.front - sg.base >= k;
                if lo == sg.front && (room || 2 * (hi - lo) >= sg.end() - sg.front) {
                    if !room {
                        self.seg_elems += sg.grow_front(k);
                    }
                    let sg = &mut self.segs[seg as usize];
                    let new_lo = lo - k;
                    let mut s = sg.psum(lo);
                    let (mut w, step) = if sg.ordered {
                        (pow(B, lo - 1), B_INV)
                    } else {
                        (1, 1)
                    };
                    for (j, &e) in extra.iter().enumerate().rev() {
                        let p = (new_lo - sg.base) as usize + j;
                        sg.elems[p] = e;
                        s = s.wrapping_sub(elem_hash(e).wrapping_mul(w));
                        w = w.wrapping_mul(step);
                        sg.sums[p] = s;
                    }
                    sg.front = new_lo;
                    (seg, new_lo, hi)
                } else {
                    let n = (hi - lo) as usize;
                    let mut items: Vec<TermId> = Vec::with_capacity(n + extra.len());
                    items.extend_from_slice(extra);
                    items.extend_from_slice(sg.slice(lo, hi));
                    let slack = n.max(8);
                    let fresh = Seg::with_slack(slack, &items, 0, sg.ordered);
                    let len = items.len() as u32;
                    let first = SEG_ORIGIN + slack as u32;
                    (self.new_seg(fresh), first, first + len)
                }
            }
            Desc::Pieces { seg, pieces } => {
                let fresh = self.segs[seg as usize].copy_pieces(pieces);
                let len = fresh.elems.len() as u32;
                (self.new_seg(fresh), SEG_ORIGIN, SEG_ORIGIN + len)
            }
        }
    }

    fn new_seg(&mut self, s: Seg) -> u32 {
        self.seg_elems += s.elems.capacity();
        match self.free_segs.pop() {
            Some(i) => {
                self.segs[i as usize] = s;
                self.seg_old[i as usize] = false;
                i
            }
            None => {
                self.segs.push(s);
                self.seg_old.push(false);
                (self.segs.len() - 1) as u32
            }
        }
    }

    /// Is `t` an old term (alive after the last collection; right after one, the terms it
    /// kept)?
    #[inline]
    pub(crate) fn is_old(&self, t: TermId) -> bool {
        let i = t.index();
        self.old
            .get(i >> 6)
            .is_some_and(|w| w & (1 << (i & 63)) != 0)
    }

    /// The old terms (alive after the last collection), a bit per id in words of 64.
    pub(crate) fn old_words(&self) -> &[u64] {
        &self.old
    }

    /// A new term, not yet findable (the caller records it in the table or as a first
    /// parent), its sort recorded if it is an overloaded operator's application.
    ///
    /// Always inlined: called, it received the new data through memory, written by
    /// narrow stores and read back by wide loads (a failed store-to-load forwarding, half
    /// of `alloc`'s time in `perf annotate` on `binary-add`); inlined, the data is written
    /// straight into its slot.
    #[inline(always)]
    fn alloc(&mut self, data: TermData) -> TermId {
        let id = self.alloc_slot(data);
        if self.any_overloads {
            if let Some(op) = self.op(id) {
                self.note_if_overloaded(id, op);
            }
        }
        id
    }

    /// [`TermStore::alloc`] without recording an overloaded application's sort.
    #[inline(always)]
    fn alloc_slot(&mut self, data: TermData) -> TermId {
        if self.nfree > 0 {
            if let Some(id) = self.take_free() {
                if matches!(data, TermData::Map(_) | TermData::Tree(_)) {
                    self.owners.push(id);
                }
                // The slot's stale data is dropped here, not by the sweep (but for a
                // heavy term's: see `heavy`).
                self.terms[id as usize] = data;
                // A freed id is a new term.
                self.first_parent[id as usize] = [NO_PARENT; 2];
                return TermId(id);
            }
        }
        let id = self.terms.len();
        assert!(id < SEE_TABLE as usize, "term store overflow (2^32 terms)");
        if matches!(data, TermData::Map(_) | TermData::Tree(_)) {
            self.owners.push(id as u32);
        }
        self.terms.push(data);
        self.first_parent.push([NO_PARENT; 2]);
        TermId(id as u32)
    }

    /// The new application `op(args)`, not yet findable (as [`TermStore::alloc`]).
    ///
    /// A reused slot whose stale data is an application with inline arguments is
    /// overwritten field by field. Built whole and moved into the slot, the new data went
    /// through the stack, written by narrow stores and read back by wide loads: a failed
    /// store-to-load forwarding that `perf annotate` put at a third of `intern_app`'s time
    /// (6% of `binary-add`'s).
    #[inline(always)]
    fn alloc_app(&mut self, op: OpId, args: &[TermId]) -> TermId {
        if self.nfree > 0 {
            if let Some(id) = self.take_free() {
                self.first_parent[id as usize] = [NO_PARENT; 2];
                match &mut self.terms[id as usize] {
                    TermData::App { op: o, args: a } if !a.spilled() && args.len() <= 5 => {
                        *o = op;
                        a.clear();
                        for &x in args {
                            a.push(x);
                        }
                    }
                    slot => {
                        if args.len() > 5 {
                            self.spilled_args += args.len();
                            self.heavy.push(id);
                        }
                        *slot = TermData::App {
                            op,
                            args: args_from(args),
                        }
                    }
                }
                self.note_if_overloaded(TermId(id), op);
                return TermId(id);
            }
        }
        let id = self.alloc_slot(TermData::App {
            op,
            args: args_from(args),
        });
        self.count_spilled(id, args.len());
        self.note_if_overloaded(id, op);
        id
    }

    /// The application `id` of `n` arguments was stored: past [`Args`]' inline capacity
    /// they are a heap block, which [`TermStore::spilled_arguments`] counts and the
    /// sweep releases at once when `id` dies (see `heavy`).
    #[inline(always)]
    fn count_spilled(&mut self, id: TermId, n: usize) {
        if n > 5 {
            self.spilled_args += n;
            self.heavy.push(id.0);
        }
    }

    /// Ids stored in argument lists too long to be held inline, and string bytes in fours,
    /// over the store's life (never decreasing): the memory a term count does not show,
    /// for the memory budget's checks and the collections' (a long `assoc` list copied at
    /// every step is one term of 200,000 ids).
    pub fn spilled_arguments(&self) -> usize {
        self.spilled_args
    }

    /// Of [`TermStore::spilled_arguments`], what live terms (or dead ones not yet swept)
    /// hold: for pacing collections by what survives them.
    pub fn live_spilled(&self) -> usize {
        self.spilled_args - self.freed_spilled
    }

    /// Bytes of the computed strings made, over the store's life (never decreasing): one
    /// term each, however long, so a term count does not see them (see
    /// `Engine::store_has_grown`).
    pub fn string_bytes(&self) -> usize {
        self.string_bytes
    }

    /// [`TermStore::note_app_sort`] for a new application of `op`: one test of a flag when
    /// no running module has overloaded operators (the prelude's `LIST{X}` has, but is
    /// never run itself), one of the operator otherwise.
    #[inline(always)]
    fn note_if_overloaded(&mut self, t: TermId, op: OpId) {
        if self.any_overloads && self.ops[op.0 as usize].result == OVERLOADED {
            self.note_app_sort(t);
        }
    }

    /// The lowest free id, taken out of the free set.
    #[inline]
    fn take_free(&mut self) -> Option<u32> {
        while let Some(w) = self.free.get_mut(self.free_from) {
            if *w != 0 {
                let b = w.trailing_zeros();
                *w &= *w - 1;
                self.nfree -= 1;
                return Some((self.free_from as u32) << 6 | b);
            }
            self.free_from += 1;
        }
        None
    }

    fn insert_at(&mut self, slot: usize, h: u32, data: TermData) -> TermId {
        let id = self.alloc(data);
        self.table[slot] = (h as u64) << 32 | id.0 as u64;
        self.in_table += 1;
        if self.in_table * 2 > self.table.len() {
            self.grow();
        }
        id
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        self.rehash(size, |_| true);
    }

    /// Rebuild the table at `size` slots with the entries whose id passes `keep`.
    fn rehash(&mut self, size: usize, keep: impl Fn(u32) -> bool) {
        let mask = size - 1;
        let mut table = vec![EMPTY; size];
        self.in_table = 0;
        for &entry in self.table.iter().filter(|e| **e != EMPTY) {
            if !keep(entry as u32) {
                continue;
            }
            self.in_table += 1;
            let mut i = (entry >> 32) as usize & mask;
            while table[i] != EMPTY {
                i = (i + 1) & mask;
            }
            table[i] = entry;
        }
        self.table = table;
    }

    /// Rebuild the small table at `size` slots with the entries whose id passes `keep`.
    fn rehash_small(&mut self, size: usize, keep: impl Fn(u32) -> bool) {
        let mask = size - 1;
        let mut small = vec![SMALL_EMPTY; size];
        self.in_small = 0;
        for e in self.small.iter().filter(|e| e.id != u32::MAX && keep(e.id)) {
            let mut i = hash_small(e.op, e.a0, e.a1) as usize & mask;
            while small[i].id != u32::MAX {
                i = (i + 1) & mask;
            }
            small[i] = *e;
            self.in_small += 1;
        }
        self.small = small;
    }

    /// Mark everything reachable from `roots` in the bit set `marks` (indexed by id). With
    /// `young_only`, the old terms are neither marked nor walked: the sweep that follows
    /// (with `young_only` too) keeps them all.
    pub(crate) fn mark(
        &self,
        roots: impl IntoIterator<Item = TermId>,
        marks: &mut [u64],
        young_only: bool,
    ) {
        let mut stack: Vec<TermId> = Vec::new();
        let push = |t: TermId, marks: &mut [u64], stack: &mut Vec<TermId>| {
            let i = t.index();
            if young_only && self.is_old(t) {
                // Alive, with everything it holds (which is older still).
                return;
            }
            if i < self.terms.len() && marks[i >> 6] & (1 << (i & 63)) == 0 {
                marks[i >> 6] |= 1 << (i & 63);
                stack.push(t);
            }
        };
        for r in roots {
            push(r, marks, &mut stack);
        }
        for &t in &self.small_ints {
            if t != NO_TERM {
                push(t, marks, &mut stack);
            }
        }
        while let Some(t) = stack.pop() {
            match &self.terms[t.index()] {
                // A map's keys and values are not arguments but are as much alive.
                TermData::Map(m) => {
                    for (&k, &v) in m.entries.iter() {
                        push(k, marks, &mut stack);
                        push(v, marks, &mut stack);
                    }
                }
                // Read from the chunks: `args` would copy them out.
                TermData::Tree(tr) => {
                    for a in tr.elems.iter() {
                        push(a, marks, &mut stack);
                    }
                }
                _ => {
                    for &a in self.args(t) {
                        push(a, marks, &mut stack);
                    }
                }
            }
        }
    }

    /// Free every term not marked in `marks` (and the segments only they used) — with
    /// `young_only`, every young term not marked: the old ones and their segments stay.
    /// Live ids do not change. The terms alive after it are the old ones of the next.
    ///
    /// The data of a dead term is left in its slot (it is dropped when the slot is reused,
    /// by `alloc`, which also resets the slot's first parents), except a map's, which is
    /// dropped at once. Besides a few word operations per 64 terms, the sweep reads either
    /// each term that dies or each live one, whichever are fewer (see below), and the
    /// young live ones for their segments.
    pub(crate) fn sweep(&mut self, marks: &[u64], young_only: bool) {
        let n = self.terms.len();
        let words = n.div_ceil(64);
        let word = |m: &[u64], w: usize| m.get(w).copied().unwrap_or(0);
        // The bits of word `w` that are ids of the store.
        let valid = |w: usize| {
            if (w + 1) * 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n - w * 64)) - 1
            }
        };
        // The old terms, which a collection of the young terms keeps unread.
        let kept_old = |w: usize| if young_only { word(&self.old, w) } else { 0 };
        self.free.resize(words, 0);
        // Alive: marked (or old, collecting the young only) and not already free (a free id
        // is never reached from a live term; a stale root naming one does not bring it back).
        let alive_words: Vec<u64> = (0..words)
            .map(|w| (word(marks, w) | kept_old(w)) & !self.free[w] & valid(w))
            .collect();
        let live = |i: usize| word(&alive_words, i >> 6) & (1 << (i & 63)) != 0;
        // The segments the old terms use are kept when only the young are collected.
        let mut seg_live = if young_only {
            self.seg_old.clone()
        } else {
            vec![false; self.segs.len()]
        };
        // The terms that die here. A term dies once, so walking them finds every anchored
        // first parent that dies (its anchor, an argument, was alive until now) and every
        // entry of `small` to remove. Walking the live terms finds the first parents too
        // (and then `small` is filtered in one pass): each way reads one term per term
        // walked, so the collection walks the fewer. In a young collection of a long run
        // most live terms are old and few die; a long reduction's dead are the many.
        let died: Vec<u64> = (0..words)
            .map(|w| !alive_words[w] & valid(w) & !self.free[w])
            .collect();
        let ndied: u32 = died.iter().map(|d| d.count_ones()).sum();
        let nalive: u32 = alive_words.iter().map(|a| a.count_ones()).sum();
        let by_the_dead = ndied < nalive;
        // The entries of `small` whose terms die here, while they are few enough to be
        // removed one by one (`None` past that: the table is filtered in one pass).
        let most_removed = self.small.len() / REMOVE_ONE_BY_ONE;
        let mut small_dead: Option<Vec<SmallEntry>> = by_the_dead.then(Vec::new);
        let mut nfree = 0;
        for (w, &alive) in alive_words.iter().enumerate() {
            let mut dying = if by_the_dead { died[w] } else { 0 };
            while dying != 0 {
                let i = w * 64 + dying.trailing_zeros() as usize;
                dying &= dying - 1;
                let TermData::App { op, args } = &self.terms[i] else {
                    continue;
                };
                // Anchored at its largest argument, whose slot now sends the look-ups of
                // its applications to the table (this id, freed, must not be found).
                if let Some(anchor) = args.iter().max() {
                    for fp in &mut self.first_parent[anchor.index()] {
                        if *fp == i as u32 {
                            *fp = SEE_TABLE;
                        }
                    }
                }
                if let (Some(dead), [a0] | [a0, _]) = (&mut small_dead, args.as_slice()) {
                    dead.push(SmallEntry {
                        op: op.0,
                        a0: a0.0,
                        a1: args.get(1).map_or(u32::MAX, |a| a.0),
                        id: i as u32,
                    });
                    if dead.len() > most_removed {
                        small_dead = None;
                    }
                }
            }
            let free = !alive & valid(w);
            self.free[w] = free;
            nfree += free.count_ones() as usize;
            // The live terms not kept unread, whose segments are read from the terms.
            let read = alive & !kept_old(w);
            let mut rest = if by_the_dead { read } else { alive };
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                let i = w * 64 + b as usize;
                if read & (1 << b) != 0 {
                    if let TermData::Long { seg, .. } = self.terms[i] {
                        seg_live[seg as usize] = true;
                    }
                }
                if !by_the_dead {
                    // A live term whose first parent died keeps its other parents in the
                    // table.
                    for fp in &mut self.first_parent[i] {
                        if *fp < SEE_TABLE && !live(*fp as usize) {
                            *fp = SEE_TABLE;
                        }
                    }
                }
            }
        }
        self.nfree = nfree;
        self.free_from = 0;
        // Maps and trees own memory (and count in `seg_elems`): released now.
        let mut owners = std::mem::take(&mut self.owners);
        owners.retain(|&m| {
            let m = m as usize;
            if live(m) {
                return true;
            }
            match &self.terms[m] {
                TermData::Map(t) => {
                    self.seg_elems -= map::own_cells(t.len());
                    self.terms[m] = DEAD;
                }
                TermData::Tree(_) => self.release_tree(m),
                _ => {}
            }
            false
        });
        self.owners = owners;
        // Dead heavy terms' blocks released now (see `heavy`).
        let mut heavy = std::mem::take(&mut self.heavy);
        heavy.retain(|&t| {
            let t = t as usize;
            if live(t) {
                return true;
            }
            self.freed_spilled += match &self.terms[t] {
                TermData::App { args, .. } if args.len() > 5 => args.len(),
                TermData::Str(x) => x.len() / 4,
                _ => 0,
            };
            self.terms[t] = DEAD;
            false
        });
        self.heavy = heavy;
        let mut was_free_seg = vec![false; self.segs.len()];
        for &f in &self.free_segs {
            was_free_seg[f as usize] = true;
        }
        for (i, alive) in seg_live.iter().enumerate() {
            if !alive && !was_free_seg[i] {
                self.seg_elems -= self.segs[i].elems.capacity();
                self.segs[i] = Seg::default();
                self.free_segs.push(i as u32);
            }
        }
        self.seg_old = seg_live;
        // The tables lose their dead entries in place, in one pass over each. A table much
        // larger than its live entries need (room for them to double before the next
        // collection) is rebuilt smaller instead, which keeps lookups in cache. (Rebuilding
        // at every collection, as before, cost a sweep through the seed's program at
        // N = 700 a third of its time in the sweep: the tables are as large as the store
        // at its peak, and re-inserting their live entries missed the cache on each.)
        let mask = self.table.len() - 1;
        self.in_table = retain_in_place(
            &mut self.table,
            |e| *e == EMPTY,
            |e| (*e >> 32) as usize & mask,
            |e| live(*e as u32 as usize),
            EMPTY,
        );
        if self.table.len() > 16 * self.in_table.max(256) {
            let size = (self.in_table * 4).next_power_of_two().max(1024);
            self.rehash(size, |_| true);
        }
        let mask = self.small.len() - 1;
        let home = |e: &SmallEntry| hash_small(e.op, e.a0, e.a1) as usize & mask;
        let is_free = |e: &SmallEntry| e.id == u32::MAX;
        match small_dead {
            // A young collection usually frees few of the table's entries (in the seed's
            // program, 1 to 10% of them): finding each is cheaper than the whole pass.
            Some(dead) => {
                for e in dead {
                    let is_it = |s: &SmallEntry| s.id == e.id;
                    if remove_entry(&mut self.small, is_free, home, e, is_it, SMALL_EMPTY) {
                        self.in_small -= 1;
                    }
                }
            }
            None => {
                let keep = |e: &SmallEntry| live(e.id as usize);
                self.in_small = retain_in_place(&mut self.small, is_free, home, keep, SMALL_EMPTY);
            }
        }
        if self.small.len() > 16 * self.in_small.max(256) {
            let size = (self.in_small * 4).next_power_of_two().max(1024);
            self.rehash_small(size, |_| true);
        }
        // Every term alive now is old for the next collection.
        self.old = alive_words;
    }
}

/// Merge two sorted lists into `out` (dropping duplicates across them if `idem`).
/// The elements of an `assoc comm` term being merged (see `TermStore::mk_ac`): up to a
/// long list's threshold and more, without a heap allocation.
type Merged = SmallVec<[TermId; 2 * LONG_MIN]>;

fn merge_sorted(store: &TermStore, a: &[TermId], b: &[TermId], idem: bool, out: &mut Merged) {
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match store.compare(a[i], b[j]) {
            Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                if idem {
                    j += 1;
                }
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// 0 for a negative number, 1 for 0, 2 for a positive one: the index of its least sort in
/// `TermStore::literal_sorts` and its bit in `int_fits`. Without branches (a hot path: the
/// sort checks of variables), and provably below 3 (no bounds check).
#[inline(always)]
fn sign_index(v: i64) -> usize {
    (v > 0) as usize + (v >= 0) as usize
}

#[cfg(test)]
mod tests {
    use super::{remove_entry, retain_in_place};

    /// Random tables of every load up to a half, with runs that wrap around the end:
    /// after `retain_in_place`, or after `remove_entry` of each refused entry, the entries
    /// kept are exactly those `keep` admits, each findable by probing from its home, and
    /// the count is right.
    #[test]
    fn filtering_a_table_or_removing_entries_keeps_every_entry_findable() {
        const FREE: u64 = u64::MAX;
        let mut r: u64 = 7;
        let mut next = || {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            r >> 17
        };
        let home = |e: &u64| (*e >> 32) as usize;
        for round in 0..600 {
            let size = 1usize << (3 + round % 6);
            let mask = size - 1;
            // An entry is (home << 32 | key); homes bunch up near the end to make runs wrap.
            let mut slots = vec![FREE; size];
            let n = (next() as usize) % (size / 2);
            let mut all = Vec::new();
            for key in 0..n as u64 {
                let home = if next() % 3 == 0 {
                    size - 1 - (next() as usize % 3)
                } else {
                    next() as usize % size
                };
                let e = (home as u64) << 32 | key;
                let mut i = home;
                while slots[i] != FREE {
                    i = (i + 1) & mask;
                }
                slots[i] = e;
                all.push(e);
            }
            let dead: Vec<bool> = (0..n).map(|_| next() % 2 == 0).collect();
            let keep = |e: &u64| !dead[(*e & 0xffff_ffff) as usize];
            let is_free = |e: &u64| *e == FREE;
            let kept = if round % 2 == 0 {
                retain_in_place(&mut slots, is_free, home, keep, FREE)
            } else {
                for &e in all.iter().filter(|e| !keep(e)) {
                    assert!(remove_entry(
                        &mut slots,
                        is_free,
                        home,
                        e,
                        |s| *s == e,
                        FREE
                    ));
                    // Gone now: a second removal finds nothing.
                    assert!(!remove_entry(
                        &mut slots,
                        is_free,
                        home,
                        e,
                        |s| *s == e,
                        FREE
                    ));
                }
                slots.iter().filter(|e| !is_free(e)).count()
            };
            let want: Vec<u64> = all.iter().copied().filter(|e| keep(e)).collect();
            assert_eq!(kept, want.len(), "round {round}");
            let mut left: Vec<u64> = slots.iter().copied().filter(|&e| e != FREE).collect();
            left.sort_unstable();
            let mut sorted = want.clone();
            sorted.sort_unstable();
            assert_eq!(left, sorted, "round {round}");
            for &e in &want {
                let mut i = (e >> 32) as usize;
                while slots[i] != e {
                    assert_ne!(
                        slots[i], FREE,
                        "round {round}: {e:#x} not found from its home"
                    );
                    i = (i + 1) & mask;
                }
            }
        }
    }
}
