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

use gamelang_lang::program::{OpId, Signature, SortId};
use smallvec::SmallVec;
use std::cmp::Ordering;

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

/// The arguments of an application (inline up to three).
pub type Args = SmallVec<[TermId; 3]>;

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
}

/// The sort returned by [`TermStore::sort_of`] when it has none (an integer literal in a
/// program without the built-in `Nat`/`Int` sorts). It is below no sort.
pub const NO_SORT: SortId = SortId(u32::MAX);

/// What the store needs to know about an operator to normalise its applications.
#[derive(Clone, Debug)]
pub(crate) struct OpMeta {
    pub assoc: bool,
    pub comm: bool,
    pub idem: bool,
    /// The identity constant as a term.
    pub identity_term: Option<TermId>,
    pub result: SortId,
    /// Any of assoc / comm / idem / identity: applications need normalising.
    pub norm: bool,
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

/// The hash-consed store of all terms built by an engine. Terms are never freed.
pub struct TermStore {
    terms: Vec<TermData>,
    /// Open addressing (linear probing) table: `hash << 32 | id`, `EMPTY` for a free slot.
    /// Keeping the hash next to the id makes a miss cost one cache line of the table.
    table: Vec<u64>,
    ops: Vec<OpMeta>,
    nat_sort: SortId,
    int_sort: SortId,
    nsorts: usize,
    /// `leq` as a flat bit matrix: bit `a * nsorts + b`.
    leq: Vec<u64>,
}

impl TermStore {
    /// An empty store for the operators of `sig`.
    pub fn new(sig: &Signature) -> TermStore {
        let mut store = TermStore {
            terms: Vec::new(),
            table: vec![EMPTY; 1024],
            ops: Vec::new(),
            nat_sort: NO_SORT,
            int_sort: NO_SORT,
            nsorts: 0,
            leq: Vec::new(),
        };
        store.set_signature(sig);
        store
    }

    /// Adopt a new (usually extended) signature. Existing terms are kept: an id stays valid
    /// as long as the operators it mentions keep their meaning.
    pub fn set_signature(&mut self, sig: &Signature) {
        self.nat_sort = sig.nat_sort.or(sig.int_sort).unwrap_or(NO_SORT);
        self.int_sort = sig.int_sort.or(sig.nat_sort).unwrap_or(NO_SORT);
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
        self.ops.clear();
        for info in &sig.ops {
            let a = &info.attrs;
            self.ops.push(OpMeta {
                assoc: a.assoc,
                comm: a.comm,
                idem: a.idem,
                identity_term: None,
                result: info.result,
                norm: a.assoc || a.comm || a.idem || a.identity.is_some(),
            });
        }
        for (i, info) in sig.ops.iter().enumerate() {
            if let Some(id) = info.attrs.identity {
                let t = self.intern_app(id, &[]);
                self.ops[i].identity_term = Some(t);
            }
        }
    }

    /// Number of distinct terms built so far.
    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// Is the store empty?
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// The data of a term.
    #[inline]
    pub fn data(&self, t: TermId) -> &TermData {
        &self.terms[t.index()]
    }

    /// The operator at the top of `t` (`None` for an integer).
    #[inline]
    pub fn op(&self, t: TermId) -> Option<OpId> {
        match &self.terms[t.index()] {
            TermData::App { op, .. } => Some(*op),
            TermData::Int(_) => None,
        }
    }

    /// The arguments of `t` (empty for constants and integers).
    #[inline]
    pub fn args(&self, t: TermId) -> &[TermId] {
        match &self.terms[t.index()] {
            TermData::App { args, .. } => args,
            TermData::Int(_) => &[],
        }
    }

    /// The value of an integer literal.
    #[inline]
    pub fn int(&self, t: TermId) -> Option<i64> {
        match self.terms[t.index()] {
            TermData::Int(v) => Some(v),
            TermData::App { .. } => None,
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

    /// The declared result sort of an operator.
    #[inline]
    pub fn op_result(&self, op: OpId) -> SortId {
        self.ops[op.0 as usize].result
    }

    /// Is `a` a subsort of (or equal to) `b`? Always false for [`NO_SORT`].
    #[inline]
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
    #[inline]
    pub fn sort_of(&self, t: TermId) -> SortId {
        match &self.terms[t.index()] {
            TermData::App { op, .. } => self.ops[op.0 as usize].result,
            TermData::Int(v) => {
                if *v >= 0 {
                    self.nat_sort
                } else {
                    self.int_sort
                }
            }
        }
    }

    /// The integer literal `v`.
    pub fn mk_int(&mut self, v: i64) -> TermId {
        let h = hash_int(v);
        let mask = self.table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let entry = self.table[i];
            if entry == EMPTY {
                break;
            }
            let id = entry as u32;
            if (entry >> 32) as u32 == h && self.terms[id as usize] == TermData::Int(v) {
                return TermId(id);
            }
            i = (i + 1) & mask;
        }
        self.insert_at(i, h, TermData::Int(v))
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
        let (assoc, comm, idem, id) = (meta.assoc, meta.comm, meta.idem, meta.identity_term);
        let mut buf: SmallVec<[TermId; 8]> = SmallVec::new();
        if assoc {
            for &a in args {
                match &self.terms[a.index()] {
                    TermData::App { op: o, args: sub } if *o == op => buf.extend_from_slice(sub),
                    _ => buf.push(a),
                }
            }
        } else {
            buf.extend_from_slice(args);
        }
        if let Some(id) = id {
            buf.retain(|a| *a != id);
        }
        if comm && buf.len() > 1 {
            // Stable sort: it detects the already sorted runs of flattened sub-lists.
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
            1 if assoc || id.is_some() || args.len() > 1 => return buf[0],
            _ => {}
        }
        self.intern_app(op, &buf)
    }

    /// Build `op(elems…)` from a sub-list of the arguments of an already normalised term
    /// of the `assoc` operator `op` (sorted, flattened, no identity, no duplicates if
    /// `idem`): no re-normalisation is needed. Empty → the identity (`None` when `op` has
    /// none), singleton → the element.
    pub(crate) fn mk_flat(&mut self, op: OpId, elems: &[TermId]) -> Option<TermId> {
        match elems.len() {
            0 => self.ops[op.0 as usize].identity_term,
            1 => Some(elems[0]),
            _ => Some(self.intern_app(op, elems)),
        }
    }

    /// The flattened arguments of `t` seen as an `op`-list: the arguments when `t` is headed
    /// by `op`, nothing when `t` is the identity of `op`, `t` alone otherwise.
    pub fn elements<'a>(&'a self, t: &'a TermId, op: OpId) -> &'a [TermId] {
        match &self.terms[t.index()] {
            TermData::App { op: o, args } if *o == op => args,
            _ if self.ops[op.0 as usize].identity_term == Some(*t) => &[],
            _ => std::slice::from_ref(t),
        }
    }

    /// The structural total order used to sort the arguments of `comm` operators:
    /// integers before applications, integers by value, applications by operator id then
    /// arguments lexicographically (then by length). It does not depend on term ids, so it
    /// does not depend on the order in which terms were created. No recursion on depth.
    pub fn compare(&self, a: TermId, b: TermId) -> Ordering {
        if a == b {
            return Ordering::Equal;
        }
        // Fast path: the tops differ.
        match (&self.terms[a.index()], &self.terms[b.index()]) {
            (TermData::Int(x), TermData::Int(y)) => return x.cmp(y),
            (TermData::Int(_), TermData::App { .. }) => return Ordering::Less,
            (TermData::App { .. }, TermData::Int(_)) => return Ordering::Greater,
            (TermData::App { op: o1, .. }, TermData::App { op: o2, .. }) if o1 != o2 => {
                return o1.cmp(o2)
            }
            _ => {}
        }
        self.compare_args(a, b)
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
                    match (&self.terms[a.index()], &self.terms[b.index()]) {
                        (TermData::Int(x), TermData::Int(y)) => {
                            if x != y {
                                return x.cmp(y);
                            }
                        }
                        (TermData::Int(_), TermData::App { .. }) => return Ordering::Less,
                        (TermData::App { .. }, TermData::Int(_)) => return Ordering::Greater,
                        (
                            TermData::App { op: o1, args: a1 },
                            TermData::App { op: o2, args: a2 },
                        ) => {
                            if o1 != o2 {
                                return o1.cmp(o2);
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
    pub(crate) fn intern_app(&mut self, op: OpId, args: &[TermId]) -> TermId {
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
        self.insert_at(
            i,
            h,
            TermData::App {
                op,
                args: SmallVec::from_slice(args),
            },
        )
    }

    fn insert_at(&mut self, slot: usize, h: u32, data: TermData) -> TermId {
        let id = self.terms.len();
        assert!(id < u32::MAX as usize, "term store overflow (2^32 terms)");
        self.terms.push(data);
        self.table[slot] = (h as u64) << 32 | id as u64;
        if self.terms.len() * 2 > self.table.len() {
            self.grow();
        }
        TermId(id as u32)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let mask = size - 1;
        let mut table = vec![EMPTY; size];
        for &entry in self.table.iter().filter(|e| **e != EMPTY) {
            let mut i = (entry >> 32) as usize & mask;
            while table[i] != EMPTY {
                i = (i + 1) & mask;
            }
            table[i] = entry;
        }
        self.table = table;
    }
}
