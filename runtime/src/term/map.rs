//! Finite maps of the standard library's `MAP{K, V}` (stdlib/map.game) in the term store.
//!
//! # Canonical form
//!
//! A map is a value with exactly one representation, so that hash-consing keeps "equal
//! iff same id":
//!
//! * no entry: the constant `nomap` of its instance;
//! * one entry: the application `k |-> v` (an `Entry{K, V}`, as it was written);
//! * two or more: a [`TermData::Map`] term holding an `imbl::OrdMap` from key ids to value
//!   ids. The map is persistent: an override clones it in `O(1)` and changes `O(log n)`
//!   nodes, sharing the rest with the original.
//!
//! The hash of a map term is derived from the *sum* of a hash of each entry, so a changed
//! map is re-hashed by subtracting the old entry's hash and adding the new one, never by
//! walking the whole map.
//!
//! # Families
//!
//! Each instance `MAP{K, V}` of the standard library is a *family*: its `nomap`, `_|->_` and
//! `_&_` (for printing), found by name in the instance's module when the signature is set,
//! like the grid built-ins find `_,_`. `dom` and `ran` (module `MAP-SETS`) also need the set
//! union of their result sort `Set{K}` / `Set{V}`; it is found by its attributes (`assoc
//! comm idem` with an identity).

use super::{elem_hash, finish, mix, StoreValue, TermData, TermId, TermStore, K};
use gamelang_lang::program::{Builtin, OpId, Signature, SortId};
use imbl::OrdMap;
use std::cmp::Ordering;

/// A map of two or more entries.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapTerm {
    /// Index of its family in the store.
    pub(crate) family: u32,
    /// Key id → value id.
    pub(crate) entries: OrdMap<TermId, TermId>,
    /// The wrapping sum of [`entry_hash`] over the entries.
    pub(crate) sum: u64,
}

impl MapTerm {
    /// The entries, in the order of the keys' ids (not the structural order).
    pub fn entries(&self) -> impl Iterator<Item = (TermId, TermId)> + '_ {
        self.entries.iter().map(|(&k, &v)| (k, v))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a map term has at least two entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One instance of `MAP{K, V}`.
#[derive(Clone, Debug)]
pub(crate) struct MapFamily {
    /// `Map{K, V}`.
    pub sort: SortId,
    /// `_|->_`.
    pub entry: OpId,
    /// `nomap`.
    pub empty: OpId,
    /// `_&_`, to print a map term as its entries joined.
    pub join: Option<OpId>,
    /// The set union of `Set{K}`, for `dom`.
    pub dom_set: Option<OpId>,
    /// The set union of `Set{V}`, for `ran`.
    pub ran_set: Option<OpId>,
}

/// A map value however it is represented.
#[derive(Clone, Copy)]
pub(crate) enum MapView<'a> {
    Empty,
    One(TermId, TermId),
    Many(&'a MapTerm),
}

impl<'a> MapView<'a> {
    fn len(self) -> usize {
        match self {
            MapView::Empty => 0,
            MapView::One(..) => 1,
            MapView::Many(m) => m.entries.len(),
        }
    }

    fn get(self, k: TermId) -> Option<TermId> {
        match self {
            MapView::Empty => None,
            MapView::One(k1, v) => (k1 == k).then_some(v),
            MapView::Many(m) => m.entries.get(&k).copied(),
        }
    }

    fn for_each(self, mut f: impl FnMut(TermId, TermId) -> bool) -> bool {
        match self {
            MapView::Empty => true,
            MapView::One(k, v) => f(k, v),
            MapView::Many(m) => m.entries.iter().all(|(&k, &v)| f(k, v)),
        }
    }

    /// The entries as a persistent map and its hash sum (`O(1)` for a map term).
    fn owned(self) -> (OrdMap<TermId, TermId>, u64) {
        match self {
            MapView::Empty => (OrdMap::new(), 0),
            MapView::One(k, v) => (OrdMap::unit(k, v), entry_hash(k, v)),
            MapView::Many(m) => (m.entries.clone(), m.sum),
        }
    }
}

/// The hash of one entry (summed over a map's entries; not symmetric in key and value).
#[inline]
pub(super) fn entry_hash(k: TermId, v: TermId) -> u64 {
    elem_hash(k) ^ elem_hash(v).rotate_left(29).wrapping_mul(K)
}

fn hash_map(family: u32, sum: u64, len: usize) -> u32 {
    finish(mix(
        mix(mix(0x0801_f2e2_8584_4ed3, family as u64), sum),
        len as u64,
    ))
}

const NO_FAMILY: u32 = u32::MAX;

/// An estimate of the entries a map term of `len` entries holds on its own, not shared with
/// the map it was made from: an update copies the path of tree nodes (of up to 64 entries)
/// from the root to the entry. Counted with the segment elements of long terms, so that a
/// program making many large maps is collected as often as one making many long sets.
pub(super) fn own_cells(len: usize) -> usize {
    let (mut depth, mut reach) = (1, 64usize);
    while reach < len {
        reach = reach.saturating_mul(64);
        depth += 1;
    }
    len.min(64) * depth
}

impl TermStore {
    /// Find the instances of `MAP{K, V}` in `sig` (see the module documentation). Family
    /// numbers only grow as the signature is extended, so existing map terms keep theirs.
    pub(super) fn discover_map_families(&mut self, sig: &Signature) {
        let mut families: Vec<MapFamily> = Vec::new();
        let mut of_op = vec![NO_FAMILY; sig.ops.len()];
        let find = |module: &str, name: &str, arity: usize| {
            sig.ops
                .iter()
                .position(|o| o.module == module && o.name == name && o.args.len() == arity)
        };
        for (i, info) in sig.ops.iter().enumerate() {
            if info.name != "nomap" || !info.args.is_empty() {
                continue;
            }
            let Some(entry) = find(&info.module, "_|->_", 2) else {
                continue;
            };
            let f = families.len() as u32;
            of_op[i] = f;
            of_op[entry] = f;
            families.push(MapFamily {
                sort: info.result,
                entry: OpId(entry as u32),
                empty: OpId(i as u32),
                join: find(&info.module, "_&_", 2).map(|j| OpId(j as u32)),
                dom_set: None,
                ran_set: None,
            });
        }
        // The set unions `dom` and `ran` build: the `assoc comm idem` operator with an
        // identity whose result is the declared result of `dom` / `ran`.
        let set_union = |sort: SortId| {
            sig.ops.iter().position(|o| {
                o.result == sort
                    && o.attrs.assoc
                    && o.attrs.comm
                    && o.attrs.idem
                    && o.attrs.identity.is_some()
            })
        };
        for info in &sig.ops {
            let b = info.attrs.builtin;
            if !matches!(b, Some(Builtin::MapDom | Builtin::MapRan)) || info.args.len() != 1 {
                continue;
            }
            let Some(fam) = families.iter_mut().find(|f| f.sort == info.args[0]) else {
                continue;
            };
            let set = set_union(info.result).map(|j| OpId(j as u32));
            if b == Some(Builtin::MapDom) {
                fam.dom_set = set;
            } else {
                fam.ran_set = set;
            }
        }
        self.map_families = families;
        self.map_family_of_op = of_op;
    }

    /// The family of a map family's operator (`nomap` or `_|->_`).
    fn family_of_op(&self, op: OpId) -> Option<u32> {
        self.map_family_of_op
            .get(op.0 as usize)
            .copied()
            .filter(|&f| f != NO_FAMILY)
    }

    /// `t` as a map of its family, if it is one (`nomap`, an entry, or a map term).
    pub(crate) fn map_view(&self, t: TermId) -> Option<(u32, MapView<'_>)> {
        match &self.terms[t.index()] {
            TermData::Map(m) => Some((m.family, MapView::Many(m))),
            TermData::App { op, args } => {
                let f = self.family_of_op(*op)?;
                let fam = &self.map_families[f as usize];
                if *op == fam.empty && args.is_empty() {
                    Some((f, MapView::Empty))
                } else if *op == fam.entry && args.len() == 2 {
                    Some((f, MapView::One(args[0], args[1])))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// The map term `t`, if it is one (two or more entries).
    pub fn map_term(&self, t: TermId) -> Option<&MapTerm> {
        match &self.terms[t.index()] {
            TermData::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The `_&_` and `_|->_` of the family of map term `t`, for printing it.
    pub(crate) fn map_print_ops(&self, t: TermId) -> Option<(Option<OpId>, OpId)> {
        let m = self.map_term(t)?;
        let fam = &self.map_families[m.family as usize];
        Some((fam.join, fam.entry))
    }

    /// The entries of `t` in canonical (structural) order of their keys, if `t` is a map of
    /// two or more entries.
    pub fn map_entries_sorted(&self, t: TermId) -> Option<Vec<(TermId, TermId)>> {
        let m = self.map_term(t)?;
        let mut e: Vec<(TermId, TermId)> = m.entries().collect();
        e.sort_by(|a, b| self.compare(a.0, b.0));
        Some(e)
    }

    /// The family of the map term `t` and its entries in structural order of the keys (the
    /// portable encoding of shared memo tables: family numbers are the same in every engine
    /// running the same program).
    pub(crate) fn map_parts_sorted(&self, t: TermId) -> Option<(u32, Vec<(TermId, TermId)>)> {
        let family = self.map_term(t)?.family;
        Some((family, self.map_entries_sorted(t)?))
    }

    /// The map of `family` with the entries `k0, v0, k1, v1, …` (distinct keys), as
    /// [`TermStore::map_parts_sorted`] gave them.
    pub(crate) fn mk_map_of(&mut self, family: u32, kv: &[TermId]) -> TermId {
        let mut map = OrdMap::new();
        let mut sum = 0u64;
        for e in kv.chunks_exact(2) {
            sum = sum.wrapping_add(entry_hash(e[0], e[1]));
            map.insert(e[0], e[1]);
        }
        self.mk_map(family, map, sum)
    }

    /// The canonical term of a map of `family` with `entries` (hash sum `sum`).
    fn mk_map(&mut self, family: u32, entries: OrdMap<TermId, TermId>, sum: u64) -> TermId {
        let fam = &self.map_families[family as usize];
        match entries.len() {
            0 => {
                let op = fam.empty;
                self.intern_app(op, &[])
            }
            1 => {
                let op = fam.entry;
                let (&k, &v) = entries.iter().next().expect("one entry");
                self.intern_app(op, &[k, v])
            }
            n => {
                let h = hash_map(family, sum, n);
                let found = self.probe(h, |d| {
                    matches!(d, TermData::Map(m) if m.family == family
                        && m.sum == sum
                        && (m.entries.ptr_eq(&entries) || m.entries == entries))
                });
                let i = match found {
                    Ok(t) => return t,
                    Err(slot) => slot,
                };
                self.seg_elems += own_cells(n);
                let data = TermData::Map(Box::new(MapTerm {
                    family,
                    entries,
                    sum,
                }));
                self.insert_at(i, h, data)
            }
        }
    }

    /// Two map terms in the structural order: by family, size, then the entries in the
    /// structural order of their keys (so the order does not depend on term ids).
    pub(super) fn compare_maps(&self, a: &MapTerm, b: &MapTerm) -> Ordering {
        let o = a.family.cmp(&b.family).then(a.len().cmp(&b.len()));
        if o != Ordering::Equal {
            return o;
        }
        let sorted = |m: &MapTerm| {
            let mut e: Vec<(TermId, TermId)> = m.entries().collect();
            e.sort_by(|x, y| self.compare(x.0, y.0));
            e
        };
        for ((k1, v1), (k2, v2)) in sorted(a).into_iter().zip(sorted(b)) {
            let o = self.compare(k1, k2).then_with(|| self.compare(v1, v2));
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// `a` with the entries of `b` added (`b` wins on a shared key); `None` when `agree` and
    /// they disagree on a key, or they are maps of different families.
    fn map_merge(&mut self, a: TermId, b: TermId, agree: bool) -> Option<TermId> {
        let (fa, va) = self.map_view(a)?;
        let (fb, vb) = self.map_view(b)?;
        if fa != fb {
            return None;
        }
        if vb.len() == 0 {
            return Some(a);
        }
        if va.len() == 0 {
            return Some(b);
        }
        // Insert the smaller into (a copy of) the larger; without `agree` the entries of
        // `b` must win, so a larger `a` is the base and `b`'s entries overwrite it, while
        // a larger `b` is the base and only `a`'s keys that `b` lacks go in.
        let b_is_base = vb.len() > va.len();
        let (base, other) = if b_is_base { (vb, va) } else { (va, vb) };
        let (mut map, mut sum) = base.owned();
        let ok = other.for_each(|k, v| {
            match map.get(&k).copied() {
                Some(old) if old == v => {}
                Some(old) => {
                    if agree {
                        return false;
                    }
                    if !b_is_base {
                        // `other` is `b`: it wins.
                        sum = sum
                            .wrapping_sub(entry_hash(k, old))
                            .wrapping_add(entry_hash(k, v));
                        map.insert(k, v);
                    }
                }
                None => {
                    sum = sum.wrapping_add(entry_hash(k, v));
                    map.insert(k, v);
                }
            }
            true
        });
        if !ok {
            return None;
        }
        Some(self.mk_map(fa, map, sum))
    }

    fn map_remove(&mut self, k: TermId, m: TermId) -> Option<TermId> {
        let (f, view) = self.map_view(m)?;
        let Some(v) = view.get(k) else {
            return Some(m);
        };
        let (mut map, sum) = view.owned();
        map.remove(&k);
        Some(self.mk_map(f, map, sum.wrapping_sub(entry_hash(k, v))))
    }

    /// The set of the keys (`dom`) or values (`ran`) of `m`.
    fn map_set(&mut self, m: TermId, keys: bool) -> Option<TermId> {
        let (f, view) = self.map_view(m)?;
        let fam = &self.map_families[f as usize];
        let union = if keys { fam.dom_set } else { fam.ran_set }?;
        let mut elems: Vec<TermId> = Vec::with_capacity(view.len());
        view.for_each(|k, v| {
            elems.push(if keys { k } else { v });
            true
        });
        if elems.is_empty() {
            return self.identity(union);
        }
        Some(self.mk_app(union, &elems))
    }

    /// Evaluate a map built-in on its `n` normal arguments (`a0`, `a1`): `None` if they are
    /// not maps (or keys) of the right kind, or a lookup falls outside the domain.
    pub(crate) fn map_builtin(
        &mut self,
        b: Builtin,
        n: usize,
        a0: TermId,
        a1: TermId,
    ) -> Option<StoreValue> {
        use Builtin::*;
        let arity = match b {
            MapSize | MapDom | MapRan => 1,
            _ => 2,
        };
        if n != arity {
            return None;
        }
        Some(match b {
            MapUnion => StoreValue::Term(self.map_merge(a0, a1, true)?),
            MapOverride => StoreValue::Term(self.map_merge(a0, a1, false)?),
            MapAgree => {
                let (fa, va) = self.map_view(a0)?;
                let (fb, vb) = self.map_view(a1)?;
                if fa != fb {
                    return None;
                }
                let (small, large) = if va.len() <= vb.len() {
                    (va, vb)
                } else {
                    (vb, va)
                };
                StoreValue::Bool(small.for_each(|k, v| large.get(k).is_none_or(|w| w == v)))
            }
            MapGet => StoreValue::Term(self.map_view(a1)?.1.get(a0)?),
            MapRemove => StoreValue::Term(self.map_remove(a0, a1)?),
            MapInDom => StoreValue::Bool(self.map_view(a1)?.1.get(a0).is_some()),
            MapInRan => StoreValue::Bool(!self.map_view(a1)?.1.for_each(|_, v| v != a0)),
            MapOnly => {
                let view = self.map_view(a1)?.1;
                StoreValue::Bool(view.len() > 0 && view.for_each(|_, v| v == a0))
            }
            MapSize => StoreValue::Int(self.map_view(a0)?.1.len() as i64),
            MapDom => StoreValue::Term(self.map_set(a0, true)?),
            MapRan => StoreValue::Term(self.map_set(a0, false)?),
            _ => return None,
        })
    }
}
