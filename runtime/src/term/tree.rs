//! Long associative-commutative lists kept in shared chunks.
//!
//! A long list (more than [`LONG_MIN`] elements) is first a view of a segment (see the
//! module documentation of `term`): cheap to grow and to peel at either end, but a list
//! with an element taken out of its middle, or put into it, is a copy of the whole list.
//! A program that does that over and over costs the square of the list's length: the
//! seed's `order((a b), S)`, whose condition refuses a heaps position's first move, takes
//! the second each time; a set grown by inserting numbers in no particular order copies
//! itself at every insertion. Past [`TREE_MIN`] elements such a list becomes a
//! [`TreeTerm`] instead: its elements in chunks of about [`CHUNK`] ([`Chunked`]), shared
//! with the list it came from, so that removing or inserting an element copies one chunk
//! and the list of chunks (`O(CHUNK + n / CHUNK)`), not the whole list, and taking off
//! its first or last element copies nothing — as Maude keeps large AC arguments in
//! balanced trees. (`imbl::Vector`, tried first, splits and joins
//! its tree for an insertion or removal in the middle: the seed's program took twice as
//! long as with copies.)
//!
//! A tree term is the same term as a segment view of the same elements: its hash is the
//! same sum of element hashes (kept in the term, updated per element added or removed),
//! and the table finds either from the other, so two equal lists still get one id,
//! whichever way each was built. Readers that need the elements as a slice
//! ([`TermStore::args`], printing, comparison, the general matcher) get a copy made the
//! first time they ask ([`TreeTerm::flat`]); the AC matcher's picks and rests
//! ([`TermStore::list`], [`TermStore::without`]) and insertions of elements do not.

use super::{hash_long, Desc, Seg, TermData, TermId, TermStore, LONG_MIN, SEG_ORIGIN};
use gamelang_lang::program::OpId;
use smallvec::SmallVec;
use std::cell::OnceCell;
use std::rc::Rc;

/// A long list with an element removed from (or added to) its middle becomes a tree term
/// past this many elements; a shorter one is copied (see the module documentation).
pub(crate) const TREE_MIN: usize = 256;

/// Elements a chunk holds after a split (and at most twice as many).
const CHUNK: usize = 64;

/// A tree term made by taking this many first or last elements off in a row (from the
/// list it came from, and so on back to one changed in the middle) becomes a segment view
/// (one copy), which further peeling reads without allocating: a selection sort peels
/// the rest of its list down to nothing, and the bag it sorts, built by insertions in the
/// middle, is a tree (`ac-sort` of the rewriting benchmark: +8% instructions without
/// this). Not at the first peel: the seed's program peels a set and changes it in the
/// middle in turn, and a copy at each peel cost it more than it saved.
const PEELS_TO_VIEW: u32 = 16;

/// A list's part of one of its chunks, with the chunk when the part is all of it.
type Part<'a> = (&'a [TermId], Option<&'a Rc<[TermId]>>);

/// A list of elements in chunks shared between the lists made from one another: a
/// persistent list. Taking the first or last element off is `O(1)` (a narrower window on
/// the same chunks); inserting or removing one anywhere else is `O(CHUNK + n / CHUNK)` (a
/// new chunk, and a new list of the chunks).
#[derive(Clone, Debug)]
pub(crate) struct Chunked {
    /// The chunks in order, none empty, each with the number of elements before it.
    top: Rc<[(u32, Rc<[TermId]>)]>,
    /// The list is the elements `lo..hi` of the chunks together.
    lo: u32,
    hi: u32,
}

impl Chunked {
    /// The elements of `items` (in chunks of [`CHUNK`]).
    pub(crate) fn from_slice(items: &[TermId]) -> Chunked {
        Chunked::from_chunks(items.chunks(CHUNK).map(Rc::from))
    }

    /// The elements of `chunks` (none empty), in order.
    fn from_chunks(chunks: impl Iterator<Item = Rc<[TermId]>>) -> Chunked {
        let mut at = 0u32;
        let top: Rc<[(u32, Rc<[TermId]>)]> = chunks
            .map(|ch| {
                let start = at;
                at += ch.len() as u32;
                (start, ch)
            })
            .collect();
        Chunked { top, lo: 0, hi: at }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        (self.hi - self.lo) as usize
    }

    /// The chunk holding the chunks' element `abs`, and `abs`'s place in it.
    #[inline]
    fn locate_abs(&self, abs: u32) -> (usize, usize) {
        // The first chunk first: where a list peeled from the front is read.
        let c = if self.top.get(1).is_none_or(|&(s, _)| abs < s) {
            0
        } else {
            self.top.partition_point(|&(s, _)| s <= abs) - 1
        };
        (c, (abs - self.top[c].0) as usize)
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> TermId {
        let (c, o) = self.locate_abs(self.lo + i as u32);
        self.top[c].1[o]
    }

    /// The first and last chunks the list uses (it is never empty: a tree term has more
    /// than [`LONG_MIN`] elements).
    fn chunk_range(&self) -> (usize, usize) {
        (self.locate_abs(self.lo).0, self.locate_abs(self.hi - 1).0)
    }

    /// The list's part of chunk `c` (one of those it uses) and the list's index of its
    /// first element.
    #[inline]
    fn part(&self, c: usize) -> (&[TermId], usize) {
        let (start, ch) = &self.top[c];
        let from = self.lo.saturating_sub(*start) as usize;
        let to = ((self.hi - start) as usize).min(ch.len());
        (&ch[from..to], (*start as usize + from) - self.lo as usize)
    }

    /// The list's part of each chunk it uses, in order, with the chunk when the part is
    /// all of it.
    fn parts(&self) -> impl Iterator<Item = Part<'_>> + '_ {
        let (first, last) = self.chunk_range();
        (first..=last).map(|c| {
            let (part, _) = self.part(c);
            let ch = &self.top[c].1;
            (part, (part.len() == ch.len()).then_some(ch))
        })
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = TermId> + '_ {
        self.parts().flat_map(|(p, _)| p.iter().copied())
    }

    fn ptr_eq(&self, other: &Chunked) -> bool {
        Rc::ptr_eq(&self.top, &other.top) && self.lo == other.lo && self.hi == other.hi
    }

    /// The list with the chunk holding its element `i` (or, for `i` = len, the last)
    /// replaced by what `change` makes of it (given the list's part of that chunk and
    /// `i`'s place in the part): the other chunks shared, a chunk the list uses only part
    /// of copied.
    fn rebuild(
        &self,
        i: usize,
        change: impl FnOnce(&[TermId], usize) -> SmallVec<[Rc<[TermId]>; 2]>,
    ) -> Chunked {
        let parts: SmallVec<[Part<'_>; 16]> = self.parts().collect();
        let mut at = 0;
        let mut k = 0;
        while k + 1 < parts.len() && at + parts[k].0.len() <= i {
            at += parts[k].0.len();
            k += 1;
        }
        let keep = |&(part, whole): &Part<'_>| match whole {
            Some(ch) => ch.clone(),
            None => Rc::from(part),
        };
        let changed = change(parts[k].0, i - at);
        let chunks = parts[..k]
            .iter()
            .map(keep)
            .chain(changed)
            .chain(parts[k + 1..].iter().map(keep));
        Chunked::from_chunks(chunks)
    }

    /// The list without element `i`, and that element.
    pub(crate) fn remove(&self, i: usize) -> (Chunked, TermId) {
        let gone = self.get(i);
        if i == 0 || i + 1 == self.len() {
            let (lo, hi) = if i == 0 {
                (self.lo + 1, self.hi)
            } else {
                (self.lo, self.hi - 1)
            };
            let list = Chunked {
                top: self.top.clone(),
                lo,
                hi,
            };
            return (list, gone);
        }
        let list = self.rebuild(i, |ch, o| {
            let mut new = SmallVec::new();
            if ch.len() > 1 {
                new.push(ch[..o].iter().chain(&ch[o + 1..]).copied().collect());
            }
            new
        });
        (list, gone)
    }

    /// The list with `x` inserted before element `i` (at the end for `i` = len).
    pub(crate) fn insert(&self, i: usize, x: TermId) -> Chunked {
        self.rebuild(i, |ch, o| {
            let grown = || {
                ch[..o]
                    .iter()
                    .copied()
                    .chain([x])
                    .chain(ch[o..].iter().copied())
            };
            let mut new = SmallVec::new();
            if ch.len() < 2 * CHUNK {
                new.push(grown().collect());
            } else {
                let half = ch.len().div_ceil(2);
                new.push(grown().take(half).collect());
                new.push(grown().skip(half).collect());
            }
            new
        })
    }

    /// The first place whose element `f` does not order before the one sought (`f` of
    /// an element: its order against it): a binary search of the chunks by their last
    /// elements, then of the chunk.
    pub(crate) fn lower_bound(&self, mut f: impl FnMut(TermId) -> std::cmp::Ordering) -> usize {
        let less = std::cmp::Ordering::Less;
        let (first, last) = self.chunk_range();
        // The first chunk whose last element is not less.
        let (mut a, mut b) = (first, last + 1);
        while a < b {
            let m = (a + b) / 2;
            let (part, _) = self.part(m);
            if f(part[part.len() - 1]) == less {
                a = m + 1;
            } else {
                b = m;
            }
        }
        if a > last {
            return self.len();
        }
        let (part, at) = self.part(a);
        at + part.partition_point(|&e| f(e) == less)
    }

    /// Binary search by `f` (the order of the elements): `Ok` of an element it finds equal,
    /// or `Err` of the place where such an element would go.
    pub(crate) fn binary_search_by(
        &self,
        mut f: impl FnMut(TermId) -> std::cmp::Ordering,
    ) -> Result<usize, usize> {
        let at = self.lower_bound(&mut f);
        if at < self.len() && f(self.get(at)) == std::cmp::Ordering::Equal {
            Ok(at)
        } else {
            Err(at)
        }
    }

    /// Roughly the memory a new list made by one insertion or removal holds that the list
    /// it came from does not, in segment elements (for deciding when to collect).
    fn new_cells(&self) -> usize {
        CHUNK + self.top.len()
    }
}

impl PartialEq for Chunked {
    fn eq(&self, other: &Chunked) -> bool {
        self.len() == other.len() && (self.ptr_eq(other) || self.iter().eq(other.iter()))
    }
}

/// The flattened, sorted argument list of an `assoc comm` operator, in shared chunks.
#[derive(Clone, Debug)]
pub struct TreeTerm {
    /// The operator.
    pub(crate) op: OpId,
    /// The elements, in the structural order (`TermStore::compare`).
    pub(crate) elems: Chunked,
    /// The wrapping sum of `elem_hash` over the elements (as a segment's prefix sums give
    /// it for a view).
    pub(crate) sum: u64,
    /// First or last elements taken off in a row to make it ([`PEELS_TO_VIEW`]).
    pub(crate) peels: u32,
    /// The elements as a slice, made when first asked for.
    flat: OnceCell<Box<[TermId]>>,
}

impl PartialEq for TreeTerm {
    fn eq(&self, other: &TreeTerm) -> bool {
        self.op == other.op && self.elems == other.elems
    }
}

impl Eq for TreeTerm {}

impl std::hash::Hash for TreeTerm {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.op.hash(state);
        self.sum.hash(state);
    }
}

impl TreeTerm {
    /// The elements as a slice (copied out of the chunks the first time).
    pub fn flat(&self) -> &[TermId] {
        self.flat.get_or_init(|| self.elems.iter().collect())
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.elems.len()
    }

    /// Always false: a tree term has more than [`LONG_MIN`] elements.
    pub fn is_empty(&self) -> bool {
        self.elems.len() == 0
    }
}

/// The elements of an `op`-list, read one at a time without copying a tree term's.
#[derive(Clone, Copy)]
pub(crate) enum List<'a> {
    Slice(&'a [TermId]),
    Tree(&'a Chunked),
}

impl List<'_> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            List::Slice(s) => s.len(),
            List::Tree(v) => v.len(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> TermId {
        match self {
            List::Slice(s) => s[i],
            List::Tree(v) => v.get(i),
        }
    }
}

impl TermStore {
    /// The elements of `t` seen as an `op`-list (as [`TermStore::elements`]), without
    /// copying a tree term's.
    #[inline(always)]
    pub(crate) fn list<'a>(&'a self, t: &'a TermId, op: OpId) -> List<'a> {
        match &self.terms[t.index()] {
            TermData::Tree(tr) if tr.op == op => List::Tree(&tr.elems),
            _ => List::Slice(self.elements(t, op)),
        }
    }

    /// The tree term of `op` with the elements of the view `seg[lo..hi]`.
    pub(super) fn tree_of_view(&self, seg: u32, lo: u32, hi: u32) -> (Chunked, u64) {
        let sg = &self.segs[seg as usize];
        let elems = Chunked::from_slice(sg.slice(lo, hi));
        (elems, sg.sum(lo, hi))
    }

    /// The `op`-list `elems` (hash sum `sum`, made by `peels` peels in a row) without its
    /// element number `skip`.
    pub(super) fn tree_without(
        &mut self,
        op: OpId,
        elems: Chunked,
        sum: u64,
        peels: u32,
        skip: usize,
    ) -> Option<TermId> {
        let peels = if skip == 0 || skip + 1 == elems.len() {
            peels + 1
        } else {
            0
        };
        let (elems, gone) = elems.remove(skip);
        if elems.len() > LONG_MIN {
            let sum = sum.wrapping_sub(super::elem_hash(gone));
            let t = self.intern_tree(op, elems, sum, peels);
            if peels >= PEELS_TO_VIEW {
                self.tree_to_long(t);
            }
            return Some(t);
        }
        let rest: SmallVec<[TermId; LONG_MIN]> = elems.iter().collect();
        self.mk_flat(op, &rest)
    }

    /// Add the sorted `singles` (deduplicated if `idem`) to the `op`-list `elems` (hash sum
    /// `sum`), each at its place (found by binary search): an element equal to one of the
    /// list's is dropped if `idem`, else goes beside it.
    pub(super) fn insert_into_tree(
        &mut self,
        op: OpId,
        idem: bool,
        mut elems: Chunked,
        mut sum: u64,
        singles: &[TermId],
    ) -> TermId {
        for &x in singles {
            let at = match elems.binary_search_by(|e| self.compare(e, x)) {
                Ok(_) if idem => continue,
                Ok(at) | Err(at) => at,
            };
            elems = elems.insert(at, x);
            sum = sum.wrapping_add(super::elem_hash(x));
        }
        self.intern_tree(op, elems, sum, 0)
    }

    /// Hash-cons the long `op`-list `elems` (more than [`LONG_MIN`] elements, sorted and
    /// normalised; hash sum `sum`): the existing term with these elements, a segment view
    /// or a tree, or a new tree term.
    fn intern_tree(&mut self, op: OpId, elems: Chunked, sum: u64, peels: u32) -> TermId {
        let len = elems.len();
        debug_assert!(len > LONG_MIN);
        debug_assert_eq!(
            elems
                .iter()
                .fold(0u64, |s, e| s.wrapping_add(super::elem_hash(e))),
            sum
        );
        let h = hash_long(op, sum, len);
        let found = self.probe(h, |data| match *data {
            TermData::Tree(ref t) => t.op == op && t.sum == sum && t.elems == elems,
            TermData::Long { op: o, seg, lo, hi } => {
                o == op
                    && (hi - lo) as usize == len
                    && self.segs[seg as usize]
                        .slice(lo, hi)
                        .iter()
                        .copied()
                        .eq(elems.iter())
            }
            _ => false,
        });
        let slot = match found {
            Ok(id) => return id,
            Err(slot) => slot,
        };
        self.seg_elems += elems.new_cells();
        let data = TermData::Tree(Box::new(TreeTerm {
            op,
            elems,
            sum,
            peels,
            flat: OnceCell::new(),
        }));
        self.insert_at(slot, h, data)
    }

    /// Make `t`, if it is a tree term, a segment view of the same elements, in place: same
    /// id, same hash (the sum of its elements' hashes either way), so the table still
    /// finds it.
    fn tree_to_long(&mut self, t: TermId) {
        let TermData::Tree(tr) = &self.terms[t.index()] else {
            return;
        };
        let (op, cells) = (tr.op, tr.elems.new_cells());
        let items: Vec<TermId> = tr.elems.iter().collect();
        let seg = self.new_seg(Seg::with_slack(0, &items, 0, false));
        self.seg_elems -= cells;
        // An old term using a new segment: a collection of the young terms must keep the
        // segment without reading the term (the one case of an old term changed in place;
        // its elements are the same, and older).
        if self.is_old(t) {
            self.seg_old[seg as usize] = true;
        }
        // (Its id stays in `owners` until it dies: the sweep passes over a segment view.)
        self.terms[t.index()] = TermData::Long {
            op,
            seg,
            lo: SEG_ORIGIN,
            hi: SEG_ORIGIN + items.len() as u32,
        };
    }

    /// Is the tree term `t` the contents described by `d`? (A segment view being interned
    /// may already exist as a tree.)
    pub(super) fn tree_equal(&self, t: &TreeTerm, d: Desc<'_>) -> bool {
        let mut contents: Vec<TermId> = Vec::with_capacity(t.len());
        self.desc_contents(d, &mut contents);
        contents.len() == t.len() && contents.iter().copied().eq(t.elems.iter())
    }

    /// Free the memory of a tree term that died (its slot becomes a dead integer).
    pub(super) fn release_tree(&mut self, id: usize) {
        if let TermData::Tree(t) = &self.terms[id] {
            self.seg_elems -= t.elems.new_cells();
            self.terms[id] = super::DEAD;
        }
    }
}
