//! Compiled left-hand sides and order-sorted matching modulo associativity, commutativity
//! and identity.
//!
//! A left-hand side is compiled once ([`Pattern::compile`]) into a linear *matching
//! program*: a sequence of steps executed left to right over registers holding subject
//! subterms. Some steps are *choice points* (which element of an AC list a sub-pattern
//! takes, which order a commutative pair is matched in, how a list is split, how the rest
//! of an AC list is distributed over several variables). The search is a backtracking loop
//! over the step index whose whole state lives in a [`Matcher`] (no Rust recursion, no
//! closures), so it can be suspended after a match — while the engine evaluates the
//! condition of a conditional equation — and resumed for the next match
//! ([`Matcher::next`]).
//!
//! The order of the steps is fixed at compile time, so whether a variable occurrence is
//! the binding one or a repeated one (an equality check) is known statically.
//!
//! Cost: the elements of an AC subject are read in place (never copied), ground elements
//! and bound variables are found by binary search (elements are sorted), and the rest of
//! `(c, S)` when `c` takes the first (or last) element is a view of the subject's segment
//! ([`crate::term`]): the first match of `(c, S)` against an `n`-element set costs
//! `O(1)` for a long set, `O(n)` only for a short one (≤ 8) or a middle element.

use crate::term::{List, TermData, TermId, TermStore, NO_SORT};
use gamelang_lang::program::{OpId, Pat, SortId, VarInfo};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

/// A variable occurrence handed to a rest-distribution step.
#[derive(Clone, Debug)]
struct RestVar {
    var: u32,
    sort: SortId,
    /// First occurrence (binds) or repeated one (checks equality).
    first: bool,
    /// Every sub-collection of a list of the operator is of a sort below `sort` (its
    /// result sort, its arguments' and its identity's are): the sort check cannot fail.
    fits: bool,
    /// The value is read (by the right-hand side, the condition or a repeated occurrence):
    /// when not, and it `fits`, the rest is not built (see [`Pattern::drop_unneeded_rests`]).
    needed: bool,
}

/// One item of an associative (list) pattern.
#[derive(Clone, Copy, Debug)]
struct ListItem {
    /// Takes exactly one element (a non-variable pattern or a variable of an element sort)
    /// or a segment (a variable whose sort contains the list sort).
    single: bool,
    out: u32,
}

#[derive(Clone, Debug)]
enum Step {
    /// `regs[reg]` must be exactly `term` (a ground sub-pattern, prebuilt).
    Ground { reg: u32, term: TermId },
    /// First occurrence of a variable: sort check, then bind.
    Bind { reg: u32, var: u32, sort: SortId },
    /// First occurrence of a variable whose sort check cannot fail: bind. `regs[reg]` is
    /// an argument of a constructor term inside the (normal) subject, and constructor
    /// terms are checked when they are built (`Engine::complete_ctor`, `no_equation`), so
    /// its sort is at most the argument's declared sort, itself below the variable's.
    /// (Not at the top: a defined function's arguments may be of any sort of the kind, as
    /// in `g(f(0))` with `f(0) = -1`.)
    Take { reg: u32, var: u32 },
    /// Repeated occurrence: must equal the binding.
    Check { reg: u32, var: u32 },
    /// `regs[reg]` (a subterm of the subject that a non-variable sub-pattern matched) is
    /// also the value of the hidden variable `var`: a right-hand side that writes the same
    /// sub-pattern again reads it instead of rebuilding it.
    Alias { reg: u32, var: u32 },
    /// `regs[reg]` must be `op(a1..an)`: `regs[out + i] = ai`.
    Free {
        reg: u32,
        op: OpId,
        arity: u32,
        out: u32,
    },
    /// Binary commutative operator: choice of the argument order.
    Comm { reg: u32, op: OpId, out: u32 },
    /// Load the elements of `regs[reg]` as an `op`-list into AC frame `frame`.
    AcStart {
        reg: u32,
        op: OpId,
        frame: u32,
        min: u32,
    },
    /// Remove (consume) an element equal to `term`.
    AcGround { frame: u32, term: TermId },
    /// Remove the elements of the (already bound) variable `var`.
    AcBound { frame: u32, op: OpId, var: u32 },
    /// Choice: consume one unused element, `regs[out] = it`. With `dup`, only elements
    /// that have an unused equal element (the pattern takes the same variable twice, as in
    /// `N ; N`): elements are sorted, so equal ones are neighbours, and the others need no
    /// try (each would cost a binary search for its copy).
    AcPick {
        frame: u32,
        out: u32,
        head: Option<OpId>,
        dup: bool,
        /// An argument of the element (its index, and its value) known before the pick:
        /// only the elements headed by `head` with that argument are tried. For the first
        /// argument they are found by binary search in a long list (`get((K |-> V) M,
        /// K)` with `K` bound: one look-up, not a scan of the map); for another, the
        /// others are passed over at the cost of one comparison each, not of a match
        /// begun and undone (`(C *x^ E) + (D *x^ E)`, like terms of a polynomial).
        key: Option<(u32, PickKey)>,
        /// The list's identity, when the picked variable's sort holds it (`op none :
        /// -> Elt` under `__ : Bag Bag -> Bag [id: none]`): after every element, the
        /// variable also takes no element and is bound to the identity, as in Maude
        /// (`{E B} ; w(E, I)` matches `{x} ; w(none, 5)` with `E = none`, `B = x`).
        or_identity: Option<TermId>,
    },
    /// Distribute the unused elements over `vars` (all elements must be used when empty).
    AcRest {
        frame: u32,
        op: OpId,
        vars: Box<[RestVar]>,
        slot: u32,
    },
    /// Choice: split the `op`-list `regs[reg]` over `items` (segments for collection
    /// variables, one element for the others). `lo` is the least segment length.
    ListSplit {
        reg: u32,
        op: OpId,
        frame: u32,
        items: Box<[ListItem]>,
        nsingle: u32,
        lo: u32,
        slot: u32,
        /// Pairs of one-element items that are the same variable (`L Q L' Q L''`): a
        /// split whose elements there differ is passed over before its segments are
        /// built (the later `Check` would refuse it): `dedup(L Q L' Q L'')` tried every
        /// split of a list, building three segments for each.
        same: Box<[(ItemAt, ItemAt)]>,
        /// One-element items known before the split: ground (`L e(7) L'`) or a variable
        /// bound before it (`del(L Q L', Q)` with `Q` bound by the second argument). A
        /// split with another element there is passed over before its segments are
        /// built, with every split that keeps the segments before it: finding an element
        /// in a list of n made two segments for each of the n places tried.
        known: Box<[(ItemAt, Known)]>,
        /// The greatest length of each segment beyond `lo` (`u32::MAX`: unbounded); empty
        /// when every segment is unbounded.
        caps: Box<[u32]>,
    },
}

/// What a one-element item of a `ListSplit` must be, known before the split.
#[derive(Clone, Copy, Debug)]
enum Known {
    Term(TermId),
    Var(u32),
}

/// Where a one-element item of a `ListSplit` is, under a split: after `singles`
/// one-element items and the first `segments` segments (whose lengths the split gives).
#[derive(Clone, Copy, Debug)]
struct ItemAt {
    singles: u32,
    segments: u32,
}

impl ItemAt {
    /// The item's element index under segment lengths `lo + lens[k]`.
    #[inline]
    fn index(self, lens: &[u32], lo: u32) -> usize {
        let segs = &lens[..self.segments as usize];
        (self.singles + self.segments * lo + segs.iter().sum::<u32>()) as usize
    }
}

/// An argument of an element an `AcPick` takes, when known before the pick.
#[derive(Clone, Copy, Debug)]
enum PickKey {
    /// A ground sub-pattern, prebuilt.
    Term(TermId),
    /// A variable bound by an earlier step.
    Var(u32),
    /// Not the argument itself but one element of it, an AC list: `Pattern::probes[i]`
    /// (`{a(I) B'}` with `I` bound: the bags holding `a(I)`).
    Holds(u32),
}

/// An element an argument of a picked element must hold (see `PickKey::Holds`): `head`
/// applied to the values of `parts`, or with no head, the value of `parts[0]`.
#[derive(Clone, Debug)]
struct Probe {
    /// The AC operator of the argument's list.
    list: OpId,
    head: Option<OpId>,
    /// Each a `Term` or a `Var`.
    parts: Box<[PickKey]>,
}

/// A [`PickKey`] with its values: what the argument must be, or hold.
#[derive(Clone, Copy, Debug)]
enum Want {
    Eq(TermId),
    Holds(OpId, TermId),
}

/// Where a variable of a left-hand side read by loads is (see [`Pattern::arg_loads`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// The subject's argument `0`.
    Arg(u32),
    /// Argument `1` of the subject's argument `0`.
    Kid(u32, u32),
    /// Not bound by the left-hand side (only in an equation that is invalid anyway).
    Unbound,
}

/// A simple left-hand side as loads from the subject's arguments ([`Pattern::arg_loads`]).
#[derive(Clone, Debug)]
pub struct ArgLoads {
    /// The number of arguments of the left-hand side's top.
    pub arity: u32,
    /// Per variable (declared, then hidden), where its value is.
    pub loads: Box<[Load]>,
    /// The variables whose values must be of a sort (variable, sort): those bound at the
    /// top of a defined function's arguments, whose sort is not the greatest of its kind.
    pub sorts: Box<[(u32, SortId)]>,
}

/// What [`Pattern::compile_lhs`] gives.
pub(crate) struct CompiledLhs<'p> {
    pub pattern: Pattern,
    /// Which variables (declared and hidden) the pattern binds.
    pub bound: Vec<bool>,
    /// The hidden variables: a sub-pattern and the variable its subject subterm is bound to.
    pub aliases: Vec<(&'p Pat, u32)>,
}

/// A compiled left-hand side (or any pattern to match against ground terms).
#[derive(Clone, Debug)]
pub struct Pattern {
    steps: Vec<Step>,
    nregs: u32,
    nframes: u32,
    nslots: u32,
    nvars: u32,
    top: Option<OpId>,
    /// Variables bound to a sub-collection of an AC subject (the `S` of `(c, S)`) or to a
    /// segment of an associative list: new terms, unlike the other bindings, which are
    /// subterms of the subject.
    rest_vars: Vec<u32>,
    /// The elements `PickKey::Holds` keys look for.
    probes: Vec<Probe>,
    /// No step is a choice point (only `Ground`, `Bind`, `Check`, `Alias` and `Free`): the
    /// pattern has at most one match, found by [`Pattern::match_simple`] in one pass.
    simple: bool,
    /// The pattern is simple but for AC lists matched by removals, rests and at most one
    /// picked element (`(c, S)`, `e in (e, S)`): its first match, the one the [`Matcher`]
    /// finds first, is found by [`Pattern::match_ac_first`] without the matcher.
    ac_first: bool,
}

/// An AC list being matched by [`Pattern::match_ac_first`].
#[derive(Clone, Debug)]
struct AcList {
    subject: TermId,
    op: Option<OpId>,
    /// The number of elements.
    len: usize,
    /// The indices of the elements used (few: one per removal or pick).
    used: SmallVec<[u32; 4]>,
}

impl Default for AcList {
    fn default() -> AcList {
        AcList {
            subject: NO_VALUE,
            op: None,
            len: 0,
            used: SmallVec::new(),
        }
    }
}

impl AcList {
    fn elems<'s>(&'s self, store: &'s TermStore) -> &'s [TermId] {
        match self.op {
            Some(op) => store.elements(&self.subject, op),
            None => &[],
        }
    }

    /// The elements, read one at a time (a tree term's are not copied out).
    fn list<'s>(&'s self, store: &'s TermStore) -> List<'s> {
        match self.op {
            Some(op) => store.list(&self.subject, op),
            None => List::Slice(&[]),
        }
    }
}

struct Compiler<'a, 'p> {
    store: &'a mut TermStore,
    vars: &'a [VarInfo],
    /// Sub-patterns to bind to hidden variables (see `Step::Alias`), and those bound.
    wanted: &'a FxHashSet<&'p Pat>,
    aliases: Vec<(&'p Pat, u32)>,
    steps: Vec<Step>,
    bound: Vec<bool>,
    nregs: u32,
    nframes: u32,
    nslots: u32,
    rest_vars: Vec<u32>,
    /// For each register, a sort its contents are known to be at most (see `Step::Take`),
    /// or `NO_SORT`.
    known: Vec<SortId>,
    probes: Vec<Probe>,
}

/// Can `steps` (a compiled left-hand side, at a free operator's top) be matched by
/// [`Pattern::match_ac_first`]: besides simple steps, AC lists matched by removals
/// (`AcGround`, `AcBound`), the rest bound to one collection variable or to nothing
/// (`AcRest`), and at most one choice point, an `AcPick` of one element (not a repeated
/// variable)? With one choice point, the matcher's backtracking is a loop over the
/// elements it may pick.
fn is_ac_first(steps: &[Step]) -> bool {
    if !matches!(steps.first(), Some(Step::Free { reg: 0, .. })) {
        return false;
    }
    let mut picks = 0;
    let mut lists = 0;
    for s in steps {
        match s {
            Step::Ground { .. }
            | Step::Bind { .. }
            | Step::Take { .. }
            | Step::Check { .. }
            | Step::Alias { .. }
            | Step::Free { .. }
            | Step::AcGround { .. }
            | Step::AcBound { .. } => {}
            Step::AcStart { .. } => lists += 1,
            Step::AcPick {
                dup: false,
                or_identity: None,
                ..
            } => picks += 1,
            Step::AcRest { vars, .. } if vars.len() <= 1 => {}
            _ => return false,
        }
    }
    (1..=MAX_AC_LISTS).contains(&lists) && picks <= 1
}

/// [`Pattern::match_ac_first`]'s "no element picked": a fresh match, or a match of a
/// pattern without a choice point.
pub const NO_PICK: usize = usize::MAX;

/// The AC lists a left-hand side matched by [`Pattern::match_ac_first`] may have (each
/// is matched in a frame of its own: `meets((w, U), (w, W))` has two).
const MAX_AC_LISTS: usize = 2;

/// One step of a simple pattern (`Ground`, `Bind`, `Check`, `Alias`, `Take`, `Free`; see
/// [`Pattern::match_simple`]): whether it succeeded.
#[inline(always)]
fn simple_step(s: &Step, store: &TermStore, regs: &mut [TermId], subst: &mut [TermId]) -> bool {
    match *s {
        Step::Ground { reg, term } => regs[reg as usize] == term,
        Step::Bind { reg, var, sort } => {
            let t = regs[reg as usize];
            subst[var as usize] = t;
            store.has_sort(t, sort)
        }
        Step::Check { reg, var } => subst[var as usize] == regs[reg as usize],
        Step::Alias { reg, var } | Step::Take { reg, var } => {
            subst[var as usize] = regs[reg as usize];
            true
        }
        Step::Free {
            reg,
            op,
            arity,
            out,
        } => match store.data(regs[reg as usize]) {
            TermData::App { op: o, args } if *o == op && args.len() == arity as usize => {
                let out = out as usize;
                crate::term::copy_args(&mut regs[out..out + args.len()], args);
                true
            }
            _ => false,
        },
        _ => unreachable!("a choice point where only simple steps are"),
    }
}

/// The first unused element of the sorted `elems` equal to `term`. Terms are
/// hash-consed, so equal elements have equal ids: a short list is scanned for the id, a
/// long one searched by the order it is sorted in (equal elements are neighbours, the first
/// unused one is the same either way).
fn first_unused(
    elems: List<'_>,
    store: &TermStore,
    term: TermId,
    is_used: impl Fn(usize) -> bool,
) -> Option<usize> {
    let start = match elems {
        List::Slice(elems) if elems.len() <= SCAN => {
            return (0..elems.len()).find(|&i| elems[i] == term && !is_used(i));
        }
        List::Slice(elems) => {
            elems.partition_point(|e| store.compare(*e, term) == std::cmp::Ordering::Less)
        }
        // Searched in the chunks: a slice of a list in chunks would be a copy of it.
        List::Tree(v) => v.lower_bound(|e| store.compare(e, term)),
    };
    (start..elems.len())
        .take_while(|&i| elems.get(i) == term)
        .find(|&i| !is_used(i))
}

/// Where `e`, an element of a sorted AC list, is in the structural order
/// ([`TermStore::compare`]) against the elements headed by `head` whose first argument is
/// `key`: before them, among them, or after them.
fn key_order(store: &TermStore, e: TermId, head: OpId, key: TermId) -> std::cmp::Ordering {
    match store.data(e) {
        TermData::App { op, args } if *op == head => args
            .first()
            .map_or(std::cmp::Ordering::Less, |&a| store.compare(a, key)),
        // Integers, maps and strings come before every application; other terms by
        // their operator.
        _ => match store.op(e) {
            None => std::cmp::Ordering::Less,
            Some(o) => o.cmp(&head),
        },
    }
}

/// The indices of the sorted `elems` that an element pattern headed by `head` with first
/// argument `key` can take: found by binary search in a long list; a short one is given
/// whole, its elements tested by [`has_key`].
fn key_range(elems: List<'_>, store: &TermStore, head: OpId, key: TermId) -> (usize, usize) {
    let n = elems.len();
    if n <= SCAN {
        return (0, n);
    }
    let order = |e: TermId| key_order(store, e, head, key);
    let lo = match elems {
        List::Slice(s) => s.partition_point(|&e| order(e) == std::cmp::Ordering::Less),
        List::Tree(v) => v.lower_bound(order),
    };
    let mut hi = lo;
    while hi < n && order(elems.get(hi)) == std::cmp::Ordering::Equal {
        hi += 1;
    }
    (lo, hi)
}

/// Is the argument `arg` of `e` what `want` says? (Its head is tested apart.)
#[inline]
fn has_key(store: &TermStore, e: TermId, arg: u32, want: Want) -> bool {
    let TermData::App { args, .. } = store.data(e) else {
        return false;
    };
    let Some(&a) = args.get(arg as usize) else {
        return false;
    };
    match want {
        Want::Eq(k) => a == k,
        Want::Holds(op, k) => first_unused(store.list(&a, op), store, k, |_| false).is_some(),
    }
}

impl Pattern {
    /// The values of `key` under the bindings `val` gives. A probe's element is built (a
    /// small application, usually existing already). `None` when the probe is the list's
    /// identity: no list holds it as an element, but an element variable bound to it
    /// matches there (`{E B}` with `E` = `none`, `B` the whole bag), so nothing is
    /// filtered.
    #[inline(never)]
    fn want(
        &self,
        key: PickKey,
        store: &mut TermStore,
        val: impl Fn(u32) -> TermId,
    ) -> Option<Want> {
        let one = |k: &PickKey| match *k {
            PickKey::Term(t) => t,
            PickKey::Var(v) => val(v),
            PickKey::Holds(_) => unreachable!("a probe's parts are terms and variables"),
        };
        Some(match key {
            PickKey::Term(t) => Want::Eq(t),
            PickKey::Var(v) => Want::Eq(val(v)),
            PickKey::Holds(i) => {
                let pr = &self.probes[i as usize];
                let t = match pr.head {
                    None => one(&pr.parts[0]),
                    Some(h) => {
                        let vals: SmallVec<[TermId; 4]> = pr.parts.iter().map(one).collect();
                        store.mk_app(h, &vals)
                    }
                };
                if store.identity(pr.list) == Some(t) {
                    return None;
                }
                Want::Holds(pr.list, t)
            }
        })
    }
}

/// The binding of a collection variable whose rest is not built (see
/// [`Pattern::drop_unneeded_rests`]): no term.
const NO_VALUE: TermId = TermId(u32::MAX);

/// Lists up to this long are scanned for an element rather than searched (see
/// [`first_unused`]).
const SCAN: usize = 16;

/// Mark used the first unused element of `elems` equal to `term` (as `Frame::find_unused`
/// finds it): whether there is one.
fn take_unused(
    elems: List<'_>,
    store: &TermStore,
    term: TermId,
    used: &mut SmallVec<[u32; 4]>,
) -> bool {
    match first_unused(elems, store, term, |i| used.contains(&(i as u32))) {
        Some(i) => {
            used.push(i as u32);
            true
        }
        None => false,
    }
}

/// Has `p` no variables?
pub(crate) fn is_ground(p: &Pat) -> bool {
    match p {
        Pat::Var(_) => false,
        Pat::Int(_) => true,
        Pat::App(_, args) => args.iter().all(is_ground),
    }
}

/// Build a ground pattern as a term (normalised by `mk_app`, not reduced).
pub(crate) fn build_ground(store: &mut TermStore, p: &Pat) -> TermId {
    match p {
        Pat::Var(v) => panic!("build_ground: variable #{v} in a ground pattern"),
        Pat::Int(i) => store.mk_int(*i),
        Pat::App(op, args) => {
            let a: smallvec::SmallVec<[TermId; 8]> =
                args.iter().map(|a| build_ground(store, a)).collect();
            store.mk_app(*op, &a)
        }
    }
}

impl<'p> Compiler<'_, 'p> {
    fn reg(&mut self, n: u32) -> u32 {
        let r = self.nregs;
        self.nregs += n;
        self.known.resize(self.nregs as usize, NO_SORT);
        r
    }

    fn var_sort(&self, v: u32) -> SortId {
        self.vars[v as usize].sort
    }

    fn flatten(&self, op: OpId, pats: &'p [Pat], out: &mut Vec<&'p Pat>) {
        let id = self.store.identity(op);
        for p in pats {
            match p {
                Pat::App(o, args) if *o == op => self.flatten(op, args, out),
                Pat::App(o, args)
                    if args.is_empty() && id.is_some_and(|t| self.store.op(t) == Some(*o)) => {}
                _ => out.push(p),
            }
        }
    }

    fn var(&mut self, v: u32, reg: u32) {
        if self.bound[v as usize] {
            self.steps.push(Step::Check { reg, var: v });
        } else {
            self.bound[v as usize] = true;
            let sort = self.var_sort(v);
            let known = self.known.get(reg as usize).copied().unwrap_or(NO_SORT);
            if (known != NO_SORT && self.store.leq(known, sort)) || self.store.is_kind_top(sort) {
                self.steps.push(Step::Take { reg, var: v });
            } else {
                self.steps.push(Step::Bind { reg, var: v, sort });
            }
        }
    }

    /// Is a variable of `sort` able to take several elements of an `op`-list?
    /// (For a subsort-overloaded operator, when any of its declarations' results is: `L`
    /// of sort `NeList` takes `1 2` under `__ : NeList List -> NeList`; the bound list's
    /// sort is checked.)
    fn is_collection(&self, op: OpId, sort: SortId) -> bool {
        self.store.op_may_be_below(op, sort)
    }

    fn head_filter(&self, p: &Pat) -> Option<OpId> {
        match p {
            Pat::App(o, _) if !self.store.is_assoc(*o) => Some(*o),
            _ => None,
        }
    }

    /// The first argument of `p`, an element pattern of an AC list, that is known before
    /// the element is picked (ground, or a variable bound by an earlier step), with its
    /// index. Only for a free head (neither `assoc` nor `comm`, whose arguments stay in
    /// place). The first argument is preferred: it is the first thing the structural
    /// order compares after the head, so the elements it can take are neighbours in the
    /// sorted list.
    ///
    /// Else an argument that is an AC pattern with an element known before the pick
    /// (ground, a bound element variable, or a free operator applied to those): only the
    /// elements whose argument holds it are tried (`PickKey::Holds`).
    fn pick_key(&mut self, p: &'p Pat) -> Option<(u32, PickKey)> {
        let Pat::App(op, args) = p else { return None };
        if self.store.is_assoc(*op) || self.store.is_comm(*op) {
            return None;
        }
        let known = args
            .iter()
            .enumerate()
            .find_map(|(i, a)| self.known_part(a).map(|k| (i as u32, k)));
        if known.is_some() {
            return known;
        }
        for (i, a) in args.iter().enumerate() {
            let Pat::App(list, kids) = a else { continue };
            if !(self.store.is_assoc(*list) && self.store.is_comm(*list)) {
                continue;
            }
            let mut children = Vec::new();
            self.flatten(*list, kids, &mut children);
            for c in children {
                if let Some((head, parts)) = self.probe_of(*list, c) {
                    self.probes.push(Probe {
                        list: *list,
                        head,
                        parts: parts.into_boxed_slice(),
                    });
                    return Some((i as u32, PickKey::Holds(self.probes.len() as u32 - 1)));
                }
            }
        }
        None
    }

    /// `c`, an element pattern of an `list`-list, as a probe's head and parts when its
    /// value is known before the pick.
    fn probe_of(&mut self, list: OpId, c: &Pat) -> Option<(Option<OpId>, Vec<PickKey>)> {
        match c {
            Pat::Var(v) if !self.bound[*v as usize] => None,
            // A bound collection variable stands for several elements.
            Pat::Var(v) if self.is_collection(list, self.var_sort(*v)) => None,
            Pat::App(h, qs) if !is_ground(c) => {
                if self.store.is_assoc(*h) || self.store.is_comm(*h) {
                    return None;
                }
                let parts: Option<Vec<PickKey>> = qs.iter().map(|q| self.known_part(q)).collect();
                parts.map(|ps| (Some(*h), ps))
            }
            _ => self.known_part(c).map(|k| (None, vec![k])),
        }
    }

    /// A sub-pattern whose value is known before a pick: a variable bound by an earlier
    /// step, or a ground term (prebuilt).
    fn known_part(&mut self, q: &Pat) -> Option<PickKey> {
        match q {
            Pat::Var(v) if self.bound[*v as usize] => Some(PickKey::Var(*v)),
            q if is_ground(q) => Some(PickKey::Term(build_ground(self.store, q))),
            _ => None,
        }
    }

    fn node(&mut self, p: &'p Pat, reg: u32) {
        // Below the top, every register holds an existing subterm of the subject.
        if reg != 0 && self.wanted.contains(p) && !self.aliases.iter().any(|(q, _)| *q == p) {
            let var = self.bound.len() as u32;
            self.bound.push(true);
            self.aliases.push((p, var));
            self.steps.push(Step::Alias { reg, var });
        }
        // The top of a free pattern is always a `Free` step, even when ground, so that
        // `Matcher::first_args` can match a subject given as operator + arguments.
        let free_top = reg == 0
            && matches!(p, Pat::App(op, _) if !self.store.is_assoc(*op) && !self.store.is_comm(*op));
        if is_ground(p) && !free_top {
            let term = build_ground(self.store, p);
            self.steps.push(Step::Ground { reg, term });
            return;
        }
        let (op, args) = match p {
            Pat::Var(v) => return self.var(*v, reg),
            Pat::App(op, args) => (*op, args),
            Pat::Int(_) => unreachable!(),
        };
        let (assoc, comm) = (self.store.is_assoc(op), self.store.is_comm(op));
        if assoc {
            let mut children = Vec::new();
            self.flatten(op, args, &mut children);
            if children.len() == 1 {
                return self.node(children[0], reg);
            }
            // Children are non-empty here: an all-identity pattern is ground.
            if comm {
                self.ac(op, &children, reg)
            } else {
                self.list(op, &children, reg)
            }
        } else if comm && args.len() == 2 {
            let out = self.reg(2);
            self.steps.push(Step::Comm { reg, op, out });
            self.node(&args[0], out);
            self.node(&args[1], out + 1);
        } else {
            let out = self.reg(args.len() as u32);
            self.steps.push(Step::Free {
                reg,
                op,
                arity: args.len() as u32,
                out,
            });
            if reg != 0 {
                // An application inside the normal subject: its arguments were checked.
                let decl = self.store.op_args(op);
                if decl.len() == args.len() {
                    for (i, &d) in decl.iter().enumerate() {
                        self.known[out as usize + i] = d;
                    }
                }
            }
            // Arguments without an associative list first: they bind their variables with
            // no choice, so a list after them finds those variables bound and removes
            // their elements by one search (`AcBound`), where it would otherwise try each
            // element in turn, and build the rest for each, before a later argument
            // refused it (`del((c, S), c)`: a rest per element before the one that
            // matches). The matches, and their order, are the same.
            let choice = |a: &Pat| self.has_list(a);
            let (plain, lists): (Vec<_>, Vec<_>) =
                args.iter().enumerate().partition(|(_, a)| !choice(a));
            for (i, a) in plain.into_iter().chain(lists) {
                self.node(a, out + i as u32);
            }
        }
    }

    /// Does `p` hold an associative list that is not ground (a choice point when matched)?
    fn has_list(&self, p: &Pat) -> bool {
        match p {
            Pat::App(op, args) => {
                (self.store.is_assoc(*op) && !is_ground(p)) || args.iter().any(|a| self.has_list(a))
            }
            _ => false,
        }
    }

    fn ac(&mut self, op: OpId, children: &[&'p Pat], reg: u32) {
        let frame = self.nframes;
        self.nframes += 1;
        let start = self.steps.len();
        self.steps.push(Step::AcStart {
            reg,
            op,
            frame,
            min: 0,
        });
        let mut min = 0;
        // 1. ground elements: deterministic removal.
        for c in children.iter().filter(|c| is_ground(c)) {
            let term = build_ground(self.store, c);
            self.steps.push(Step::AcGround { frame, term });
            min += 1;
        }
        // 2. non-variable patterns: pick an element, match it.
        for c in children
            .iter()
            .filter(|c| !is_ground(c) && !matches!(c, Pat::Var(_)))
        {
            let out = self.reg(1);
            let head = self.head_filter(c);
            let key = self.pick_key(c);
            self.steps.push(Step::AcPick {
                frame,
                out,
                head,
                dup: false,
                key,
                or_identity: None,
            });
            self.node(c, out);
            min += 1;
        }
        // 3. variables: bound ones are removed, element variables pick one element,
        //    collection variables share the rest.
        let mut rest: Vec<RestVar> = Vec::new();
        let mut in_rest = FxHashSet::default();
        for c in children {
            let Pat::Var(v) = c else { continue };
            let v = *v;
            let sort = self.var_sort(v);
            if self.bound[v as usize] {
                self.steps.push(Step::AcBound { frame, op, var: v });
            } else if in_rest.contains(&v) {
                rest.push(RestVar {
                    var: v,
                    sort,
                    first: false,
                    fits: false,
                    needed: true,
                });
            } else if !self.is_collection(op, sort) {
                let out = self.reg(1);
                let twice = children
                    .iter()
                    .filter(|c| matches!(c, Pat::Var(w) if *w == v))
                    .count()
                    > 1;
                let or_identity = self.identity_of_sort(op, sort);
                self.steps.push(Step::AcPick {
                    frame,
                    out,
                    head: None,
                    dup: twice,
                    key: None,
                    or_identity,
                });
                self.var(v, out);
                if or_identity.is_none() {
                    min += 1;
                }
            } else {
                in_rest.insert(v);
                let fits = self.every_part_fits(op, sort);
                rest.push(RestVar {
                    var: v,
                    sort,
                    first: true,
                    fits,
                    needed: true,
                });
            }
        }
        if self.store.identity(op).is_none() {
            min += rest.len() as u32;
        }
        for r in &rest {
            self.bound[r.var as usize] = true;
            if r.first {
                self.rest_vars.push(r.var);
            }
        }
        let slot = self.nslots;
        self.nslots += 1;
        self.steps.push(Step::AcRest {
            frame,
            op,
            vars: rest.into_boxed_slice(),
            slot,
        });
        self.steps[start] = Step::AcStart {
            reg,
            op,
            frame,
            min,
        };
    }

    /// The identity of `op`, if it is of `sort`: a variable of `sort` that takes one
    /// element of an `op`-list may also take none (and be bound to the identity).
    fn identity_of_sort(&self, op: OpId, sort: SortId) -> Option<TermId> {
        self.store
            .identity(op)
            .filter(|&id| self.store.has_sort(id, sort))
    }

    /// Is every sub-collection of a (sort-checked) `op`-list of a sort at most `sort`: the
    /// operator's result (two elements or more), its arguments' declared sorts (one
    /// element) and its identity's (none)?
    fn every_part_fits(&self, op: OpId, sort: SortId) -> bool {
        let store = &*self.store;
        store.leq(store.op_result(op), sort)
            && store.op_args(op).iter().all(|&a| store.leq(a, sort))
            && store.identity(op).is_none_or(|id| store.has_sort(id, sort))
    }

    fn list(&mut self, op: OpId, children: &[&'p Pat], reg: u32) {
        let frame = self.nframes;
        self.nframes += 1;
        let slot = self.nslots;
        self.nslots += 1;
        let out = self.reg(children.len() as u32);
        // A variable of an element sort that holds the list's identity takes one element
        // or none, as in Maude (`L Q L' Q L''` with the identity `op nil : -> Elt`
        // matches `1 2 3` with `Q = nil`): a segment of at most one element.
        let mut items = Vec::with_capacity(children.len());
        let mut caps = Vec::new();
        for (i, c) in children.iter().enumerate() {
            let single = match c {
                Pat::Var(v) if self.is_collection(op, self.var_sort(*v)) => {
                    caps.push(u32::MAX);
                    false
                }
                Pat::Var(v) if self.identity_of_sort(op, self.var_sort(*v)).is_some() => {
                    caps.push(1);
                    false
                }
                _ => true,
            };
            items.push(ListItem {
                single,
                out: out + i as u32,
            });
        }
        let nsingle = items.iter().filter(|i| i.single).count() as u32;
        let at = |i: usize| {
            let singles = items[..i].iter().filter(|it| it.single).count() as u32;
            ItemAt {
                singles,
                segments: i as u32 - singles,
            }
        };
        let mut same = Vec::new();
        let mut known = Vec::new();
        for (i, c) in children.iter().enumerate() {
            if !items[i].single {
                continue;
            }
            match c {
                Pat::Var(v) if self.bound[*v as usize] => known.push((at(i), Known::Var(*v))),
                _ if is_ground(c) => known.push((at(i), Known::Term(build_ground(self.store, c)))),
                _ => {}
            }
        }
        for (i, c) in children.iter().enumerate() {
            if let (Pat::Var(v), true) = (c, items[i].single) {
                if let Some(j) = (i + 1..children.len())
                    .find(|&j| items[j].single && matches!(children[j], Pat::Var(w) if w == v))
                {
                    same.push((at(i), at(j)));
                }
            }
        }
        let lo = if self.store.identity(op).is_some() {
            0
        } else {
            1
        };
        // What each segment may take beyond `lo`; none when every segment is unbounded.
        let caps: Box<[u32]> = if caps.iter().all(|&c| c == u32::MAX) {
            Box::new([])
        } else {
            caps.into_iter().map(|c| c.saturating_sub(lo)).collect()
        };
        self.steps.push(Step::ListSplit {
            reg,
            op,
            frame,
            items: items.clone().into_boxed_slice(),
            nsingle,
            lo,
            slot,
            same: same.into_boxed_slice(),
            known: known.into_boxed_slice(),
            caps,
        });
        for (i, c) in children.iter().enumerate() {
            // A segment bound to a variable is a new term, like an AC rest: the engine
            // marks it normal (a sub-list of a normal list of a constructor without
            // equations is normal), so that it is not checked element by element again
            // when it is used (`len(Q L) = 1 + len(L)` checked every `L`: quadratic).
            if let (Pat::Var(v), false) = (c, items[i].single) {
                if !self.bound[*v as usize] {
                    self.rest_vars.push(*v);
                }
            }
            self.node(c, out + i as u32);
        }
    }
}

impl Pattern {
    /// Compile `pat` (whose variables are described by `vars`) against the operators known
    /// to `store`. Ground sub-patterns are built once, as terms, and matched by id.
    pub fn compile(pat: &Pat, vars: &[VarInfo], store: &mut TermStore) -> Pattern {
        Self::compile_lhs(pat, vars, store, &FxHashSet::default()).pattern
    }

    /// Compile the left-hand side of an equation: like [`Pattern::compile`], also saying
    /// which variables it binds, and binding each sub-pattern in `wanted` (below the top)
    /// to a hidden variable numbered after the declared ones (see `Step::Alias`).
    pub(crate) fn compile_lhs<'p>(
        pat: &'p Pat,
        vars: &[VarInfo],
        store: &mut TermStore,
        wanted: &FxHashSet<&'p Pat>,
    ) -> CompiledLhs<'p> {
        let nvars = vars.len().max(max_var(pat).map_or(0, |v| v as usize + 1));
        let mut c = Compiler {
            store,
            vars,
            wanted,
            aliases: Vec::new(),
            steps: Vec::new(),
            bound: vec![false; nvars],
            nregs: 1,
            nframes: 0,
            nslots: 0,
            rest_vars: Vec::new(),
            probes: Vec::new(),
            known: vec![NO_SORT; 1],
        };
        c.node(pat, 0);
        let top = match pat {
            Pat::App(op, _) => Some(*op),
            _ => None,
        };
        let simple = c.steps.iter().all(|s| {
            matches!(
                s,
                Step::Ground { .. }
                    | Step::Bind { .. }
                    | Step::Take { .. }
                    | Step::Check { .. }
                    | Step::Alias { .. }
                    | Step::Free { .. }
            )
        });
        let ac_first = !simple && is_ac_first(&c.steps);
        let pattern = Pattern {
            simple,
            ac_first,
            steps: c.steps,
            nregs: c.nregs,
            nframes: c.nframes,
            nslots: c.nslots,
            nvars: c.bound.len() as u32,
            top,
            rest_vars: c.rest_vars,
            probes: c.probes,
        };
        CompiledLhs {
            pattern,
            bound: c.bound,
            aliases: c.aliases,
        }
    }

    /// Number of variable slots of a substitution for this pattern.
    pub fn nvars(&self) -> usize {
        self.nvars as usize
    }

    /// The operator at the top of the pattern, if it is an application.
    pub fn top(&self) -> Option<OpId> {
        self.top
    }

    /// The variables bound to sub-collections of an AC argument list or to segments of an
    /// associative one.
    pub fn rest_vars(&self) -> &[u32] {
        &self.rest_vars
    }

    /// Has the pattern no choice points (see [`Pattern::match_simple`])?
    #[inline]
    pub fn is_simple(&self) -> bool {
        self.simple
    }

    /// Is the pattern simple but for AC lists matched with at most one choice point (see
    /// [`Pattern::match_ac_first`])?
    #[inline]
    pub fn is_ac_first(&self) -> bool {
        self.ac_first
    }

    /// Mark the collection variables of AC lists that nothing reads — not the right-hand
    /// side or the condition (`read` says which variables they read), nor a later step of
    /// the pattern (a repeated occurrence) — and whose sort check cannot fail: the
    /// matchers then bind them to no value instead of building the rest (`e in (e, S) =
    /// true` builds no `S`).
    pub fn drop_unneeded_rests(&mut self, read: impl Fn(u32) -> bool) {
        let again = |v: u32| {
            self.steps.iter().any(|s| match s {
                Step::Check { var, .. } | Step::AcBound { var, .. } => *var == v,
                Step::AcRest { vars, .. } => vars.iter().any(|r| r.var == v && !r.first),
                _ => false,
            })
        };
        let unread: Vec<u32> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::AcRest { vars, .. } => match &vars[..] {
                    [v] if v.first && v.fits && !read(v.var) && !again(v.var) => Some(v.var),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        for s in &mut self.steps {
            if let Step::AcRest { vars, .. } = s {
                if let [v] = &mut vars[..] {
                    v.needed &= !unread.contains(&v.var);
                }
            }
        }
    }

    /// Registers [`Pattern::match_simple`] needs.
    #[inline]
    pub fn nregs(&self) -> usize {
        self.nregs as usize
    }

    /// The operator, arity and first output register of the top step when it is `Free` at
    /// register 0: a subject given as operator + arguments is matched by writing its
    /// arguments there and starting at step 1.
    #[inline]
    pub fn free_top(&self) -> Option<(OpId, usize, usize)> {
        match self.steps.first() {
            Some(&Step::Free {
                reg: 0,
                op,
                arity,
                out,
            }) => Some((op, arity as usize, out as usize)),
            _ => None,
        }
    }

    /// Match a simple pattern in one pass, with no [`Matcher`]: the same steps as
    /// [`Matcher::first`] runs, without its choice-point bookkeeping, which is most of the
    /// cost of matching `app(cons(X, L), M)`. `regs` holds the subject in register 0 (or,
    /// from `start` = 1, the arguments of a `free_top` subject); the bindings go to
    /// `subst[var]`.
    #[inline]
    pub fn match_simple(
        &self,
        store: &TermStore,
        regs: &mut [TermId],
        start: usize,
        subst: &mut [TermId],
    ) -> bool {
        debug_assert!(self.simple);
        self.steps[start..]
            .iter()
            .all(|s| simple_step(s, store, regs, subst))
    }

    /// The first match of an [`Pattern::is_ac_first`] pattern — the one the [`Matcher`]
    /// finds first — without the matcher: the steps of [`Pattern::match_simple`], AC
    /// lists' removals and rests as the matcher does them, and its one choice point
    /// (an element picked) retried in the matcher's order — the next unused element at a
    /// greater index, not equal to the one just tried, of the right head — whenever a
    /// later step fails. With `after` the index picked by a match found before
    /// ([`NO_PICK`] for none), the match the matcher finds next (as its `next` does when
    /// a condition refused that one). The index picked ([`NO_PICK`] when the pattern has
    /// no choice point), or `None`; the bindings in `subst`.
    pub fn match_ac_first(
        &self,
        store: &mut TermStore,
        regs: &mut [TermId],
        start: usize,
        subst: &mut [TermId],
        after: usize,
    ) -> Option<usize> {
        debug_assert!(self.ac_first);
        // Per AC list: its subject and operator, and the indices of the elements used.
        let mut lists: [AcList; MAX_AC_LISTS] = Default::default();
        // The choice point, once reached: its step, the index picked, and how many
        // elements each list had used before it.
        let mut choice: Option<(usize, usize, [usize; MAX_AC_LISTS])> = None;
        let mut pc = start;
        while pc < self.steps.len() {
            let ok = match self.steps[pc] {
                Step::AcPick {
                    frame,
                    out,
                    head,
                    key,
                    ..
                } => {
                    let key = key.and_then(|(i, k)| {
                        let want = self.want(k, store, |v| subst[v as usize]);
                        want.map(|w| (i, w))
                    });
                    let l = &lists[frame as usize];
                    let elems = l.list(store);
                    // After the pick tried last (in this call, or the match `after`).
                    let last = match &choice {
                        Some((_, i, _)) => Some(*i),
                        None => (after != NO_PICK).then_some(after),
                    };
                    let from = last.map_or(0, |i| i + 1);
                    let skip = last.map(|i| elems.get(i));
                    let (lo, hi) = match (head, key) {
                        (Some(h), Some((0, Want::Eq(k)))) => key_range(elems, store, h, k),
                        _ => (0, elems.len()),
                    };
                    let found = (from.max(lo)..hi).find(|&i| {
                        let e = elems.get(i);
                        Some(e) != skip
                            && !l.used.contains(&(i as u32))
                            && head.is_none_or(|h| store.op(e) == Some(h))
                            && key.is_none_or(|(i, k)| has_key(store, e, i, k))
                    });
                    match found {
                        Some(i) => {
                            regs[out as usize] = elems.get(i);
                            let before = std::array::from_fn(|k| lists[k].used.len());
                            lists[frame as usize].used.push(i as u32);
                            choice = Some((pc, i, before));
                            true
                        }
                        None => return None,
                    }
                }
                Step::AcStart {
                    reg,
                    op,
                    frame,
                    min,
                } => {
                    let subject = regs[reg as usize];
                    let len = store.list(&subject, op).len();
                    lists[frame as usize] = AcList {
                        subject,
                        op: Some(op),
                        len,
                        used: SmallVec::new(),
                    };
                    len >= min as usize
                }
                Step::AcGround { frame, term } => {
                    let l = &mut lists[frame as usize];
                    let (subject, list_op) = (l.subject, l.op.expect("the AC list started"));
                    let elems = store.list(&subject, list_op);
                    take_unused(elems, store, term, &mut l.used)
                }
                Step::AcBound { frame, op, var } => {
                    let l = &mut lists[frame as usize];
                    let (subject, list_op) = (l.subject, l.op.expect("the AC list started"));
                    let val = subst[var as usize];
                    let elems = store.list(&subject, list_op);
                    store
                        .elements(&val, op)
                        .iter()
                        .all(|&e| take_unused(elems, store, e, &mut l.used))
                }
                Step::AcRest {
                    frame,
                    op,
                    ref vars,
                    ..
                } => {
                    let l = &lists[frame as usize];
                    let left = l.len - l.used.len();
                    match vars.first() {
                        // No collection variable: every element must be used.
                        None => left == 0,
                        Some(v) if !v.needed => {
                            subst[v.var as usize] = NO_VALUE;
                            // The rest would be built unless empty without an identity.
                            left > 0 || store.identity(op).is_some()
                        }
                        Some(v) => {
                            // As `Matcher::rest_term`, then `Matcher::bind_rest`.
                            let rest = match l.used[..] {
                                [] => Some(l.subject),
                                [i] => store.without(l.subject, op, i as usize),
                                _ => {
                                    let kept: SmallVec<[TermId; 16]> = l
                                        .elems(store)
                                        .iter()
                                        .enumerate()
                                        .filter(|(i, _)| !l.used.contains(&(*i as u32)))
                                        .map(|(_, &e)| e)
                                        .collect();
                                    store.mk_flat(op, &kept)
                                }
                            };
                            match rest {
                                Some(t) if v.first => {
                                    subst[v.var as usize] = t;
                                    store.has_sort(t, v.sort)
                                }
                                Some(t) => subst[v.var as usize] == t,
                                None => false,
                            }
                        }
                    }
                }
                ref step => simple_step(step, store, regs, subst),
            };
            if ok {
                pc += 1;
                continue;
            }
            // Back to the choice point, with what the lists used before it.
            let Some((at, _, before)) = &choice else {
                return None;
            };
            for (l, &n) in lists.iter_mut().zip(before) {
                l.used.truncate(n);
            }
            pc = *at;
        }
        Some(choice.map_or(NO_PICK, |(_, i, _)| i))
    }

    /// The left-hand side `f(p1, …, pn)` read as loads from the subject's arguments, when
    /// every `pi` is a variable, a ground term, or a free operator applied to variables and
    /// ground terms (the shape of functions defined by cases on constructors): where each
    /// variable's value is, and which values need a sort check. The heads of the `pi`
    /// (and the ground `pi`) are *not* tested by the loads: the caller uses them only
    /// where a dispatch on those heads has already established them (`settled`
    /// candidates of `engine::dispatch`). `None` for any other shape: repeated variables,
    /// patterns two levels deep, choice points.
    pub fn arg_loads(&self) -> Option<ArgLoads> {
        #[derive(Clone, Copy)]
        enum Src {
            Unknown,
            Arg(u32),
            Kid(u32, u32),
        }
        let (_, n, out) = self.free_top()?;
        if !self.simple {
            return None;
        }
        let mut regs = vec![Src::Unknown; self.nregs as usize];
        for (i, r) in regs[out..out + n].iter_mut().enumerate() {
            *r = Src::Arg(i as u32);
        }
        let load = |s: Src| match s {
            Src::Arg(a) => Some(Load::Arg(a)),
            Src::Kid(a, k) => Some(Load::Kid(a, k)),
            Src::Unknown => None,
        };
        let mut loads = vec![Load::Unbound; self.nvars as usize];
        let mut sorts = Vec::new();
        for s in &self.steps[1..] {
            match *s {
                Step::Free {
                    reg, arity, out, ..
                } => {
                    let Src::Arg(a) = regs[reg as usize] else {
                        return None;
                    };
                    for k in 0..arity {
                        regs[(out + k) as usize] = Src::Kid(a, k);
                    }
                }
                Step::Ground { reg, .. } => {
                    if !matches!(regs[reg as usize], Src::Arg(_)) {
                        return None;
                    }
                }
                Step::Take { reg, var } | Step::Alias { reg, var } => {
                    loads[var as usize] = load(regs[reg as usize])?;
                }
                Step::Bind { reg, var, sort } => {
                    loads[var as usize] = load(regs[reg as usize])?;
                    sorts.push((var, sort));
                }
                _ => return None,
            }
        }
        Some(ArgLoads {
            arity: n as u32,
            loads: loads.into_boxed_slice(),
            sorts: sorts.into_boxed_slice(),
        })
    }

    /// The ground terms the pattern matches against (prebuilt when it was compiled).
    pub fn ground_terms(&self, out: &mut Vec<TermId>) {
        for s in &self.steps {
            match s {
                Step::Ground { term, .. } | Step::AcGround { term, .. } => out.push(*term),
                _ => {}
            }
        }
    }
}

fn max_var(p: &Pat) -> Option<u32> {
    match p {
        Pat::Var(v) => Some(*v),
        Pat::Int(_) => None,
        Pat::App(_, args) => args.iter().filter_map(max_var).max(),
    }
}

/// The state of one AC argument list being matched: the subject whose elements are
/// consumed (read in place from the store, never copied) and which of them are used, as
/// (element index, step) pairs — few, since each consuming step takes one element or the
/// elements of one bound variable.
#[derive(Clone, Debug, Default)]
struct Frame {
    subject: Option<TermId>,
    op: Option<OpId>,
    used: SmallVec<[(u32, u32); 4]>,
    /// The list (`assoc`, not `comm`) being split, and its operator: its elements are read
    /// from the store, not copied (a walk `len(Q L)` would copy the list at every level),
    /// and its segments are built from it (views of its own, when it is long).
    list_of: Option<(TermId, OpId)>,
    /// For the keyed picks of this frame whose key is not the first argument: the
    /// elements by that argument (see [`KeyIndex`]); valid for the current subject only.
    keyed: Vec<KeyIndex>,
}

/// The indices of a long AC list's elements by their argument `arg`, in increasing order,
/// made the first time a pick of step `pc` looks for a key there: `(C *x^ E) + (D *x^ E)`
/// tried, for each element taken as the first, every element as the second (one
/// comparison each: 88% of `(1 + x)^150` mod p, quadratic in the terms of the sum, and
/// the most where there are no like terms to find); with the index, each first element's
/// candidates are its key's entries.
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    pc: u32,
    valid: bool,
    by_key: FxHashMap<TermId, SmallVec<[u32; 2]>>,
}

/// The shortest AC list whose keyed picks use an index ([`KeyIndex`]) rather than a scan.
const KEY_INDEX_MIN: usize = 24;

impl Frame {
    #[inline]
    fn elems<'s>(&'s self, store: &'s TermStore) -> &'s [TermId] {
        match (&self.subject, self.op) {
            (Some(t), Some(op)) => store.elements(t, op),
            _ => &[],
        }
    }

    /// The elements, read one at a time (a tree term's are not copied out).
    #[inline]
    fn list<'s>(&'s self, store: &'s TermStore) -> List<'s> {
        match (&self.subject, self.op) {
            (Some(t), Some(op)) => store.list(t, op),
            _ => List::Slice(&[]),
        }
    }

    #[inline]
    fn is_used(&self, i: usize) -> bool {
        self.used.iter().any(|&(j, _)| j as usize == i)
    }

    /// May a pick take element `i` of `elems` (this frame's)? Not `skip` (whose
    /// alternatives are exhausted), unused, headed by `head` if given, and with `dup`
    /// beside an unused equal element (the sorted list's neighbours). A pick's tests but
    /// its key's.
    #[inline(always)]
    fn can_pick(
        &self,
        store: &TermStore,
        elems: &[TermId],
        i: usize,
        skip: Option<TermId>,
        head: Option<OpId>,
        dup: bool,
    ) -> bool {
        let e = elems[i];
        let copy = |j: usize| elems.get(j) == Some(&e) && !self.is_used(j);
        Some(e) != skip
            && !self.is_used(i)
            && (!dup || copy(i + 1) || (i > 0 && copy(i - 1)))
            && head.is_none_or(|h| store.op(e) == Some(h))
    }

    /// The first unused element equal to `term`.
    fn find_unused(&self, store: &TermStore, term: TermId) -> Option<usize> {
        first_unused(self.list(store), store, term, |i| self.is_used(i))
    }
}

/// The state of a (suspendable) search for matches of a [`Pattern`] against a subject.
/// Reuse one matcher for many searches to avoid allocations.
#[derive(Clone, Debug, Default)]
pub struct Matcher {
    alt: Vec<u32>,
    regs: Vec<TermId>,
    subst: Vec<Option<TermId>>,
    frames: Vec<Frame>,
    slots: Vec<Vec<u32>>,
    tmp: Vec<TermId>,
    tmp2: Vec<TermId>,
    /// No further match: `next` keeps answering false.
    exhausted: bool,
}

impl Matcher {
    /// A fresh matcher.
    pub fn new() -> Matcher {
        Matcher::default()
    }

    /// The substitution of the current match, indexed by variable.
    pub fn subst(&self) -> &[Option<TermId>] {
        &self.subst
    }

    /// Every term the matcher holds (for a garbage collection while its search is
    /// suspended). Conservative: it may name terms of an earlier search too.
    pub(crate) fn terms(&self, out: &mut Vec<TermId>) {
        out.extend(self.regs.iter().copied());
        out.extend(self.subst.iter().flatten().copied());
        for f in &self.frames {
            out.extend(f.subject);
            out.extend(f.list_of.map(|(t, _)| t));
        }
    }

    /// Start a search: is there a match of `p` against `subject`? On success the
    /// substitution is [`Matcher::subst`]; [`Matcher::next`] then looks for the next one.
    pub fn first(&mut self, p: &Pattern, store: &mut TermStore, subject: TermId) -> bool {
        self.prepare(p);
        self.regs[0] = subject;
        self.search(p, store, 0, true)
    }

    fn prepare(&mut self, p: &Pattern) {
        // Choice points and registers are written before they are read: only make room.
        let nsteps = p.steps.len();
        if self.alt.len() < nsteps {
            self.alt.resize(nsteps, 0);
        }
        if self.regs.len() < p.nregs as usize {
            self.regs.resize(p.nregs as usize, TermId(0));
        }
        self.subst.clear();
        self.subst.resize(p.nvars as usize, None);
        if self.frames.len() < p.nframes as usize {
            self.frames.resize_with(p.nframes as usize, Frame::default);
        }
        if self.slots.len() < p.nslots as usize {
            self.slots.resize_with(p.nslots as usize, Vec::new);
        }
        self.exhausted = false;
    }

    /// Like [`Matcher::first`] for the subject `op(args…)` given by its parts, without
    /// building it (its arguments must be normalised terms and `op` must not be `assoc` or
    /// `comm`). `None` when the pattern needs the subject as a term (its top is not a free
    /// application).
    pub fn first_args(
        &mut self,
        p: &Pattern,
        store: &mut TermStore,
        op: OpId,
        args: &[TermId],
    ) -> Option<bool> {
        let Some(&Step::Free {
            reg: 0,
            op: o,
            arity,
            out,
        }) = p.steps.first()
        else {
            return None;
        };
        if o != op || arity as usize != args.len() {
            return Some(false);
        }
        self.prepare(p);
        let out = out as usize;
        crate::term::copy_args(&mut self.regs[out..out + args.len()], args);
        Some(self.search(p, store, 1, true))
    }

    /// The next match of the search started by [`Matcher::first`] (false when there are
    /// no more). Must be called with the same pattern.
    pub fn next(&mut self, p: &Pattern, store: &mut TermStore) -> bool {
        if self.exhausted || p.steps.is_empty() {
            self.exhausted = true;
            return false;
        }
        self.search(p, store, p.steps.len() - 1, false)
    }

    /// Every match of `p` against `subject`, in search order (convenience for tests and
    /// tools; the engine enumerates lazily).
    pub fn all(
        &mut self,
        p: &Pattern,
        store: &mut TermStore,
        subject: TermId,
    ) -> Vec<Vec<Option<TermId>>> {
        let mut out = Vec::new();
        let mut ok = self.first(p, store, subject);
        while ok {
            out.push(self.subst.clone());
            ok = self.next(p, store);
        }
        out
    }

    fn search(
        &mut self,
        p: &Pattern,
        store: &mut TermStore,
        mut pc: usize,
        mut forward: bool,
    ) -> bool {
        let n = p.steps.len();
        loop {
            if forward {
                if pc == n {
                    return true;
                }
                if self.enter(p, store, pc) {
                    pc += 1;
                    continue;
                }
                forward = false;
            } else if self.retry(p, store, pc) {
                forward = true;
                pc += 1;
                continue;
            }
            if pc == 0 {
                self.exhausted = true;
                return false;
            }
            pc -= 1;
        }
    }

    /// Execute step `pc` for the first time. On failure it leaves no effect.
    fn enter(&mut self, p: &Pattern, store: &mut TermStore, pc: usize) -> bool {
        match &p.steps[pc] {
            Step::Ground { reg, term } => self.regs[*reg as usize] == *term,
            Step::Bind { reg, var, sort } => {
                let t = self.regs[*reg as usize];
                if !store.has_sort(t, *sort) {
                    return false;
                }
                self.subst[*var as usize] = Some(t);
                true
            }
            Step::Check { reg, var } => self.subst[*var as usize] == Some(self.regs[*reg as usize]),
            Step::Alias { reg, var } | Step::Take { reg, var } => {
                self.subst[*var as usize] = Some(self.regs[*reg as usize]);
                true
            }
            Step::Free {
                reg,
                op,
                arity,
                out,
            } => match store.data(self.regs[*reg as usize]) {
                TermData::App { op: o, args } if o == op && args.len() == *arity as usize => {
                    let out = *out as usize;
                    crate::term::copy_args(&mut self.regs[out..out + args.len()], args);
                    true
                }
                _ => false,
            },
            Step::Comm { reg, op, out } => match store.data(self.regs[*reg as usize]) {
                TermData::App { op: o, args } if o == op && args.len() == 2 => {
                    let out = *out as usize;
                    self.regs[out] = args[0];
                    self.regs[out + 1] = args[1];
                    self.alt[pc] = 0;
                    true
                }
                _ => false,
            },
            Step::AcStart {
                reg,
                op,
                frame,
                min,
            } => {
                let subject = self.regs[*reg as usize];
                let f = &mut self.frames[*frame as usize];
                f.subject = Some(subject);
                f.op = Some(*op);
                f.used.clear();
                f.keyed.iter_mut().for_each(|k| k.valid = false);
                store.elements(&subject, *op).len() >= *min as usize
            }
            Step::AcGround { frame, term } => {
                let f = &mut self.frames[*frame as usize];
                match f.find_unused(store, *term) {
                    Some(i) => {
                        f.used.push((i as u32, pc as u32));
                        self.alt[pc] = i as u32;
                        true
                    }
                    None => false,
                }
            }
            Step::AcBound { frame, op, var } => {
                let val = self.subst[*var as usize].expect("bound variable");
                let f = &mut self.frames[*frame as usize];
                for e in store.elements(&val, *op) {
                    match f.find_unused(store, *e) {
                        Some(i) => f.used.push((i as u32, pc as u32)),
                        None => {
                            release_all(f, pc);
                            return false;
                        }
                    }
                }
                true
            }
            Step::AcPick {
                frame,
                out,
                head,
                dup,
                key,
                or_identity,
            } => {
                let key = self.want_of(p, *key, store);
                self.pick(store, pc, *frame, 0, None, *head, key, *dup, *out)
                    || self.take_identity(pc, *or_identity, *out)
            }
            Step::AcRest {
                frame,
                op,
                vars,
                slot,
            } => match vars.len() {
                0 => {
                    let f = &self.frames[*frame as usize];
                    f.used.len() == f.elems(store).len()
                }
                1 if !vars[0].needed => {
                    // Not read, and of the right sort whatever it is: not built, only
                    // required to exist (it is unless empty without an identity).
                    let f = &self.frames[*frame as usize];
                    self.subst[vars[0].var as usize] = None;
                    f.elems(store).len() > f.used.len() || store.identity(*op).is_some()
                }
                1 => {
                    let Some(t) = self.rest_term(store, *frame, *op) else {
                        return false;
                    };
                    self.bind_rest(store, &vars[0], t)
                }
                _ if vars.iter().any(|r| !r.first) => {
                    // A variable taken more than once (`A ^ A`): by multiplicities.
                    self.collect_rest(store, *frame);
                    self.mult_first(store, *op, vars, *slot as usize)
                }
                k => {
                    self.collect_rest(store, *frame);
                    let digits = &mut self.slots[*slot as usize];
                    digits.clear();
                    digits.resize(self.tmp.len(), 0);
                    loop {
                        if self.try_distribution(store, *op, vars, *slot as usize) {
                            return true;
                        }
                        if !increment(&mut self.slots[*slot as usize], k as u32) {
                            return false;
                        }
                    }
                }
            },
            Step::ListSplit {
                reg,
                op,
                frame,
                items,
                nsingle,
                lo,
                slot,
                same,
                known,
                caps,
            } => {
                let subject = self.regs[*reg as usize];
                let f = &mut self.frames[*frame as usize];
                f.list_of = Some((subject, *op));
                let n = store.elements(&subject, *op).len() as u32;
                let ncoll = items.len() as u32 - nsingle;
                if n < *nsingle || n - nsingle < ncoll * lo {
                    return false;
                }
                let excess = n - nsingle - ncoll * lo;
                let lens = &mut self.slots[*slot as usize];
                lens.clear();
                lens.resize(ncoll as usize, 0);
                if !first_composition(lens, caps, excess)
                    || !self.agreeing_split(store, *frame, *lo, *slot, same, known, caps, false)
                {
                    return false;
                }
                self.apply_split(store, *op, *frame, items, *lo, *slot);
                true
            }
        }
    }

    /// Undo step `pc` and try its next alternative. On failure it leaves no effect.
    fn retry(&mut self, p: &Pattern, store: &mut TermStore, pc: usize) -> bool {
        match &p.steps[pc] {
            Step::Ground { .. }
            | Step::Bind { .. }
            | Step::Take { .. }
            | Step::Alias { .. }
            | Step::Check { .. }
            | Step::Free { .. }
            | Step::AcStart { .. } => false,
            Step::Comm { out, .. } => {
                let out = *out as usize;
                if self.alt[pc] == 0 && self.regs[out] != self.regs[out + 1] {
                    self.alt[pc] = 1;
                    self.regs.swap(out, out + 1);
                    true
                } else {
                    false
                }
            }
            Step::AcGround { frame, .. } => {
                release_all(&mut self.frames[*frame as usize], pc);
                false
            }
            Step::AcBound { frame, .. } => {
                release_all(&mut self.frames[*frame as usize], pc);
                false
            }
            Step::AcPick {
                frame,
                out,
                head,
                dup,
                key,
                or_identity,
            } => {
                if self.alt[pc] == TOOK_IDENTITY {
                    return false;
                }
                let key = self.want_of(p, *key, store);
                let f = &mut self.frames[*frame as usize];
                let prev = self.alt[pc] as usize;
                release_all(f, pc);
                let prev_term = f.elems(store)[prev];
                self.pick(
                    store,
                    pc,
                    *frame,
                    prev + 1,
                    Some(prev_term),
                    *head,
                    key,
                    *dup,
                    *out,
                ) || self.take_identity(pc, *or_identity, *out)
            }
            Step::AcRest {
                frame,
                op,
                vars,
                slot,
            } => {
                let k = vars.len() as u32;
                if k < 2 {
                    return false;
                }
                self.collect_rest(store, *frame);
                if vars.iter().any(|r| !r.first) {
                    return self.mult_next(store, *op, vars, *slot as usize);
                }
                while increment(&mut self.slots[*slot as usize], k) {
                    if self.try_distribution(store, *op, vars, *slot as usize) {
                        return true;
                    }
                }
                false
            }
            Step::ListSplit {
                op,
                frame,
                items,
                lo,
                slot,
                same,
                known,
                caps,
                ..
            } => {
                if !self.agreeing_split(store, *frame, *lo, *slot, same, known, caps, true) {
                    return false;
                }
                self.apply_split(store, *op, *frame, items, *lo, *slot);
                true
            }
        }
    }

    /// Consume the first unused element at index ≥ `start` (different from `skip`, whose
    /// alternatives were exhausted, and headed by `head` if given).
    #[allow(clippy::too_many_arguments)]
    fn pick(
        &mut self,
        store: &TermStore,
        pc: usize,
        frame: u32,
        start: usize,
        skip: Option<TermId>,
        head: Option<OpId>,
        key: Option<(u32, Want)>,
        dup: bool,
        out: u32,
    ) -> bool {
        let f = &mut self.frames[frame as usize];
        let elems = f.elems(store);
        if dup && head.is_none() && f.used.is_empty() {
            // The first element that has an equal neighbour, found by comparing ids
            // pairwise (a duplicate-free list — what `N ; N = N` is tried on after every
            // insertion — is one pass of the tightest loop). Elements are sorted, so the
            // first such index is the first of a pair, except at `start` when it follows
            // an equal element; that one is `skip` (a retry starts after the element it
            // picked), so it is passed over, as the loop below passes it over.
            let found = elems
                .get(start..)
                .unwrap_or(&[])
                .windows(2)
                .enumerate()
                .find(|(_, w)| w[0] == w[1] && Some(w[0]) != skip)
                .map(|(k, _)| start + k);
            return match found {
                Some(i) => {
                    let e = elems[i];
                    self.take(frame, pc, i, e, out)
                }
                None => false,
            };
        }
        let (lo, hi) = match (head, key) {
            (Some(h), Some((0, Want::Eq(k)))) => key_range(List::Slice(elems), store, h, k),
            (_, Some((arg, Want::Eq(k)))) if elems.len() >= KEY_INDEX_MIN => {
                return self.pick_by_index(store, pc, frame, start, skip, head, (arg, k), dup, out);
            }
            _ => (0, elems.len()),
        };
        for (i, &e) in elems.iter().enumerate().take(hi).skip(start.max(lo)) {
            // The tests of `Frame::can_pick`, written out: the key's first, and the loop
            // kept plain (as one `find` over `can_pick` it cost 12% more instructions on
            // the polynomial program, 0.7% on ac-set).
            if Some(e) == skip || f.is_used(i) {
                continue;
            }
            if key.is_some_and(|(i, k)| !has_key(store, e, i, k)) {
                continue;
            }
            if dup {
                let copy = |j: usize| elems.get(j) == Some(&e) && !f.is_used(j);
                if !(copy(i + 1) || (i > 0 && copy(i - 1))) {
                    continue;
                }
            }
            if head.is_some_and(|h| store.op(e) != Some(h)) {
                continue;
            }
            return self.take(frame, pc, i, e, out);
        }
        false
    }

    /// Element `i` (`e`) of `frame`'s list is what step `pc` picks, into `regs[out]`.
    #[inline(always)]
    fn take(&mut self, frame: u32, pc: usize, i: usize, e: TermId, out: u32) -> bool {
        self.frames[frame as usize].used.push((i as u32, pc as u32));
        self.alt[pc] = i as u32;
        self.regs[out as usize] = e;
        true
    }

    /// [`Matcher::pick`] for a key that is an argument `arg` equal to `k`, in a long list:
    /// the candidates are read from the frame's index of that argument (made on first
    /// use), in the order the scan would meet them, with the scan's other tests.
    #[allow(clippy::too_many_arguments)]
    fn pick_by_index(
        &mut self,
        store: &TermStore,
        pc: usize,
        frame: u32,
        start: usize,
        skip: Option<TermId>,
        head: Option<OpId>,
        (arg, k): (u32, TermId),
        dup: bool,
        out: u32,
    ) -> bool {
        let f = &mut self.frames[frame as usize];
        let (Some(subject), Some(op)) = (f.subject, f.op) else {
            return false;
        };
        let elems = store.elements(&subject, op);
        let slot = match f.keyed.iter().position(|x| x.pc == pc as u32) {
            Some(i) => i,
            None => {
                f.keyed.push(KeyIndex {
                    pc: pc as u32,
                    ..KeyIndex::default()
                });
                f.keyed.len() - 1
            }
        };
        let index = &mut f.keyed[slot];
        if !index.valid {
            index.by_key.clear();
            for (i, &e) in elems.iter().enumerate() {
                if let TermData::App { args, .. } = store.data(e) {
                    if let Some(&a) = args.get(arg as usize) {
                        index.by_key.entry(a).or_default().push(i as u32);
                    }
                }
            }
            index.valid = true;
        }
        let f = &self.frames[frame as usize];
        let Some(cands) = f.keyed[slot].by_key.get(&k) else {
            return false;
        };
        let from = cands.partition_point(|&i| (i as usize) < start);
        let found = (cands[from..].iter().map(|&i| i as usize))
            .find(|&i| f.can_pick(store, elems, i, skip, head, dup));
        match found {
            Some(i) => self.take(frame, pc, i, elems[i], out),
            None => false,
        }
    }

    /// An `AcPick`'s last alternative, after every element: no element, the variable
    /// bound to the list's identity (when its sort holds it).
    fn take_identity(&mut self, pc: usize, identity: Option<TermId>, out: u32) -> bool {
        let Some(id) = identity else { return false };
        self.alt[pc] = TOOK_IDENTITY;
        self.regs[out as usize] = id;
        true
    }

    /// An `AcPick`'s key with its values under the bindings so far.
    #[inline(always)]
    fn want_of(
        &self,
        p: &Pattern,
        key: Option<(u32, PickKey)>,
        store: &mut TermStore,
    ) -> Option<(u32, Want)> {
        key.and_then(|(i, k)| {
            let val = |v: u32| self.subst[v as usize].expect("a key variable is bound");
            p.want(k, store, val).map(|w| (i, w))
        })
    }

    /// The unused elements of `frame`, copied to `tmp`.
    fn collect_rest(&mut self, store: &TermStore, frame: u32) {
        let f = &self.frames[frame as usize];
        self.tmp.clear();
        self.tmp.extend(
            f.elems(store)
                .iter()
                .enumerate()
                .filter(|(i, _)| !f.is_used(*i))
                .map(|(_, e)| *e),
        );
    }

    /// The unused elements of `frame` as one term: the subject itself when none is used, a
    /// view of it without copying when the one used element is the first or the last.
    fn rest_term(&mut self, store: &mut TermStore, frame: u32, op: OpId) -> Option<TermId> {
        let f = &self.frames[frame as usize];
        let subject = f.subject.expect("AC frame started");
        match f.used.as_slice() {
            // Nothing used: the rest is the whole subject.
            [] => Some(subject),
            [(i, _)] => store.without(subject, op, *i as usize),
            _ => {
                self.collect_rest(store, frame);
                store.mk_flat(op, &self.tmp)
            }
        }
    }

    fn bind_rest(&mut self, store: &TermStore, v: &RestVar, t: TermId) -> bool {
        if v.first {
            if !store.has_sort(t, v.sort) {
                return false;
            }
            self.subst[v.var as usize] = Some(t);
            true
        } else {
            self.subst[v.var as usize] == Some(t)
        }
    }

    /// Try the distribution of `tmp` given by the digits in `slot` (element `i` goes to
    /// variable `digits[i]`).
    fn try_distribution(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        vars: &[RestVar],
        slot: usize,
    ) -> bool {
        for (j, v) in vars.iter().enumerate() {
            self.tmp2.clear();
            let digits = &self.slots[slot];
            for (i, e) in self.tmp.iter().enumerate() {
                if digits[i] == j as u32 {
                    self.tmp2.push(*e);
                }
            }
            let Some(t) = store.mk_flat(op, &self.tmp2) else {
                return false;
            };
            if !self.bind_rest(store, v, t) {
                return false;
            }
        }
        true
    }

    /// The rest `tmp` distributed over `vars`, some variable taken more than once (`A ^ A`,
    /// `A ; A ; R`), by multiplicities: each distinct element `e` (`m` copies) is shared
    /// among the distinct variables so that a variable taken `k` times gets `c` copies
    /// with the `k · c` summing to `m`. The distribution of elements one by one (as
    /// `try_distribution` does for distinct variables) tried `k^n` assignments of `n`
    /// elements, and an element without an even count of copies under `A ^ A` fails at
    /// once here: `x1 ^ … ^ x16` under `eq A ^ A = ff` took 33 s (Maude: 0.02 s).
    /// `slots[slot]` holds the counts, a row of one count per distinct variable for each
    /// distinct element, the first variable given the most first. The first distribution
    /// that binds.
    fn mult_first(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        vars: &[RestVar],
        slot: usize,
    ) -> bool {
        let (groups, ks) = self.mult_shape(vars);
        let v = ks.len();
        let counts = &mut self.slots[slot];
        counts.clear();
        counts.resize(groups.len() * v, 0);
        for (g, &(_, m)) in groups.iter().enumerate() {
            if !first_counts(&mut counts[g * v..(g + 1) * v], &ks, m) {
                return false;
            }
        }
        self.mult_try_from(store, op, vars, slot, &groups, &ks)
    }

    /// The next distribution by multiplicities after the one in `slots[slot]` that binds.
    fn mult_next(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        vars: &[RestVar],
        slot: usize,
    ) -> bool {
        let (groups, ks) = self.mult_shape(vars);
        if !mult_advance(&mut self.slots[slot], &groups, &ks) {
            return false;
        }
        self.mult_try_from(store, op, vars, slot, &groups, &ks)
    }

    /// The distinct elements of `tmp` with their counts, and how many times each distinct
    /// variable of `vars` is taken (in the order of their first occurrences).
    fn mult_shape(&self, vars: &[RestVar]) -> (Vec<(TermId, u32)>, SmallVec<[u32; 4]>) {
        let mut groups: Vec<(TermId, u32)> = Vec::new();
        for &e in &self.tmp {
            match groups.iter_mut().rev().find(|(t, _)| *t == e) {
                Some((_, m)) => *m += 1,
                None => groups.push((e, 1)),
            }
        }
        let ks = (vars.iter().filter(|r| r.first))
            .map(|r| vars.iter().filter(|o| o.var == r.var).count() as u32)
            .collect();
        (groups, ks)
    }

    /// Try the distributions from the one in `slots[slot]` on, in order, until one binds.
    fn mult_try_from(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        vars: &[RestVar],
        slot: usize,
        groups: &[(TermId, u32)],
        ks: &[u32],
    ) -> bool {
        loop {
            if self.mult_try(store, op, vars, slot, groups) {
                return true;
            }
            if !mult_advance(&mut self.slots[slot], groups, ks) {
                return false;
            }
        }
    }

    /// Bind `vars` by the distribution in `slots[slot]`: whether every part fits.
    fn mult_try(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        vars: &[RestVar],
        slot: usize,
        groups: &[(TermId, u32)],
    ) -> bool {
        let firsts: SmallVec<[&RestVar; 4]> = vars.iter().filter(|r| r.first).collect();
        let v = firsts.len();
        for (j, r) in firsts.iter().enumerate() {
            self.tmp2.clear();
            for (g, &(e, _)) in groups.iter().enumerate() {
                let c = self.slots[slot][g * v + j];
                self.tmp2.extend(std::iter::repeat_n(e, c as usize));
            }
            let Some(t) = store.mk_flat(op, &self.tmp2) else {
                return false;
            };
            if !self.bind_rest(store, r, t) {
                return false;
            }
        }
        // The repeated occurrences are the same parts, bound above.
        true
    }

    /// From the split in `slot` (or the one after it, with `past`), the first whose pairs
    /// of one-element items in `same` take equal elements; false when there is none.
    /// A split refused by a pair is passed over with every later split that keeps the
    /// segments before the pair's second item (they all put that item on the same
    /// element): `ceq q2(L1 Q L2 I L3 Q L4 R L5)` on 200 elements tried every split of
    /// five segments (66 million, 1.5 s; Maude 0.02 s), now the splits of the first three.
    #[allow(clippy::too_many_arguments)]
    fn agreeing_split(
        &mut self,
        store: &TermStore,
        frame: u32,
        lo: u32,
        slot: u32,
        same: &[(ItemAt, ItemAt)],
        known: &[(ItemAt, Known)],
        caps: &[u32],
        mut past: bool,
    ) -> bool {
        let (t, op) = self.frames[frame as usize]
            .list_of
            .expect("a list being split");
        let list = store.elements(&t, op);
        loop {
            let lens = &mut self.slots[slot as usize];
            if past && !next_composition(lens, caps) {
                return false;
            }
            past = true;
            let lens = &self.slots[slot as usize];
            let mut refused = same
                .iter()
                .find(|&&(a, b)| list[a.index(lens, lo)] != list[b.index(lens, lo)])
                .map(|&(_, b)| b);
            if refused.is_none() && !known.is_empty() {
                let want = |k: Known| match k {
                    Known::Term(t) => Some(t),
                    Known::Var(v) => self.subst[v as usize],
                };
                refused = known
                    .iter()
                    .find(|&&(a, k)| Some(list[a.index(lens, lo)]) != want(k))
                    .map(|&(a, _)| a);
            }
            match refused {
                None => return true,
                Some(at) => {
                    // Every later split keeping the segments before `at` puts the same
                    // element there.
                    let keep = at.segments as usize;
                    last_with_prefix(&mut self.slots[slot as usize], caps, keep);
                }
            }
        }
    }

    fn apply_split(
        &mut self,
        store: &mut TermStore,
        op: OpId,
        frame: u32,
        items: &[ListItem],
        lo: u32,
        slot: u32,
    ) {
        let (list, _) = self.frames[frame as usize]
            .list_of
            .expect("a list being split");
        let lens = &self.slots[slot as usize];
        let mut pos = 0usize;
        let mut k = 0usize;
        for it in items {
            if it.single {
                self.regs[it.out as usize] = store.elements(&list, op)[pos];
                pos += 1;
            } else {
                let len = (lens[k] + lo) as usize;
                k += 1;
                let t = store
                    .sublist(list, op, pos, pos + len)
                    .expect("segments are non-empty without an identity");
                self.regs[it.out as usize] = t;
                pos += len;
            }
        }
    }
}

/// An `AcPick`'s alternative (in `Matcher::alt`) when it took no element but the identity.
const TOOK_IDENTITY: u32 = u32::MAX;

fn release_all(f: &mut Frame, pc: usize) {
    f.used.retain(|(_, step)| *step != pc as u32);
}

/// Next assignment in base `k` (little-endian); false when it wraps around.
fn increment(digits: &mut [u32], k: u32) -> bool {
    for d in digits.iter_mut() {
        *d += 1;
        if *d < k {
            return true;
        }
        *d = 0;
    }
    false
}

/// The first counts (in the order [`next_counts`] goes) of `m` copies of an element shared
/// among variables taken `ks` times: `sum(ks[i] · c[i]) == m`, the first variables given
/// the most. False if there are none (`m` odd, every variable taken twice).
fn first_counts(c: &mut [u32], ks: &[u32], m: u32) -> bool {
    fill_from(c, ks, m, 0);
    counts_valid(c, ks, m) || next_counts(c, ks, m)
}

/// Give each of `c[from..]` but the last the most it can have after `c[..from]`.
fn fill_from(c: &mut [u32], ks: &[u32], m: u32, from: usize) {
    let v = c.len();
    let mut left = m - (0..from).map(|i| ks[i] * c[i]).sum::<u32>();
    for i in from..v.saturating_sub(1) {
        c[i] = left / ks[i];
        left -= ks[i] * c[i];
    }
    if v > 0 {
        c[v - 1] = left / ks[v - 1];
    }
}

/// Do the counts `c` share exactly `m` copies?
fn counts_valid(c: &[u32], ks: &[u32], m: u32) -> bool {
    c.iter().zip(ks).map(|(c, k)| c * k).sum::<u32>() == m
}

/// The next counts after `c` that share exactly `m` copies (the free counts, all but the
/// last, decreasing as a number; the last is what is left); false past the last.
fn next_counts(c: &mut [u32], ks: &[u32], m: u32) -> bool {
    let v = c.len();
    loop {
        let Some(i) = (0..v.saturating_sub(1)).rev().find(|&i| c[i] > 0) else {
            return false;
        };
        c[i] -= 1;
        fill_from(c, ks, m, i + 1);
        if counts_valid(c, ks, m) {
            return true;
        }
    }
}

/// The next distribution by multiplicities (an odometer over the elements' rows of
/// counts, the first element's row turning fastest); false past the last.
fn mult_advance(counts: &mut [u32], groups: &[(TermId, u32)], ks: &[u32]) -> bool {
    let v = ks.len();
    for (g, &(_, m)) in groups.iter().enumerate() {
        let row = &mut counts[g * v..(g + 1) * v];
        if next_counts(row, ks, m) {
            return true;
        }
        first_counts(row, ks, m);
    }
    false
}

/// The first composition of `total` (excess lengths, each at most its cap) in the order
/// [`next_composition`] goes, the least in lexicographic order: filled from the right, the
/// last segments as long as they may be. False if the caps cannot hold `total`.
fn first_composition(e: &mut [u32], caps: &[u32], mut total: u32) -> bool {
    if caps.is_empty() {
        e.fill(0);
        return match e.last_mut() {
            Some(last) => {
                *last = total;
                true
            }
            None => total == 0,
        };
    }
    for (x, &cap) in e.iter_mut().zip(caps).rev() {
        *x = total.min(cap);
        total -= *x;
    }
    total == 0
}

/// Move composition `e` to the last one (in [`next_composition`]'s order) that keeps its
/// first `keep` lengths: the rest given to the earliest segments that can take it.
fn last_with_prefix(e: &mut [u32], caps: &[u32], keep: usize) {
    let Some(tail) = e.get_mut(keep..) else {
        return;
    };
    let mut total: u32 = tail.iter().sum();
    for (k, x) in tail.iter_mut().enumerate() {
        let cap = caps.get(keep + k).copied().unwrap_or(u32::MAX);
        *x = total.min(cap);
        total -= *x;
    }
}

/// Next composition (excess lengths summing to a constant, each at most its cap) in
/// lexicographic order, from `(0, …, 0, E)` to `(E, 0, …, 0)` when uncapped: the last
/// segment before the end that can grow by one takes one from those after it, which are
/// then refilled from the right.
fn next_composition(e: &mut [u32], caps: &[u32]) -> bool {
    if caps.is_empty() {
        // Every segment unbounded (the usual case, kept to a few instructions: a split of
        // a long list goes through a quadratic number of compositions): the rightmost
        // non-zero length moves one to its left neighbour and the rest to the end.
        let Some(r) = e.iter().rposition(|&x| x > 0) else {
            return false;
        };
        if r == 0 {
            return false;
        }
        let v = e[r];
        e[r] = 0;
        e[r - 1] += 1;
        let last = e.len() - 1;
        e[last] = v - 1;
        return true;
    }
    let mut after = 0u32;
    for i in (0..e.len()).rev() {
        if after > 0 && e[i] < caps[i] {
            e[i] += 1;
            return first_composition(&mut e[i + 1..], &caps[i + 1..], after - 1);
        }
        after += e[i];
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{first_composition, last_with_prefix, next_composition};

    /// Every composition of `total` into `caps.len()` parts, each at most its cap, in
    /// lexicographic order: by counting through all tuples.
    fn by_brute_force(caps: &[u32], total: u32) -> Vec<Vec<u32>> {
        let n = caps.len();
        let bound = |c: u32| c.min(total);
        let mut out = Vec::new();
        let mut t = vec![0u32; n];
        loop {
            if t.iter().sum::<u32>() == total {
                out.push(t.clone());
            }
            // Count with the last part turning fastest: lexicographic order.
            let Some(i) = (0..n).rev().find(|&i| t[i] < bound(caps[i])) else {
                return out;
            };
            t[i] += 1;
            t[i + 1..].iter_mut().for_each(|x| *x = 0);
        }
    }

    /// The compositions a list split goes through (segments capped at one element for a
    /// variable that takes one element or none, unbounded otherwise) are all of them, each
    /// once, in lexicographic order; and the split a refused pair skips to is the last
    /// that keeps the lengths the pair depends on.
    #[test]
    fn capped_compositions_are_enumerated_in_order() {
        let m = u32::MAX;
        for caps in [
            vec![],
            vec![m],
            vec![m, m, m],
            vec![1],
            vec![m, 1, m],
            vec![m, 1, m, 1, m],
            vec![1, 1, 1],
            vec![1, m],
            vec![m, 1],
            vec![2, 0, 3, m],
        ] {
            // Unbounded segments are also given as no caps at all (the split's fast path).
            let uncapped = caps.iter().all(|&c| c == m);
            for given in [&caps[..], &[]][..1 + usize::from(uncapped)].iter() {
                for total in 0..7 {
                    let mut got = Vec::new();
                    let mut e = vec![0; caps.len()];
                    if first_composition(&mut e, given, total) {
                        got.push(e.clone());
                        while next_composition(&mut e, given) {
                            got.push(e.clone());
                        }
                    }
                    let want = by_brute_force(&caps, total);
                    assert_eq!(got, want, "caps {given:?} of {caps:?}, total {total}");
                    // Passing over the splits that keep a prefix lands on the last of them.
                    for e in &want {
                        for keep in 0..=e.len() {
                            let mut skipped = e.clone();
                            last_with_prefix(&mut skipped, given, keep);
                            let last = want.iter().rfind(|w| w[..keep] == e[..keep]);
                            assert_eq!(Some(&skipped), last, "{e:?} keeping {keep}");
                        }
                    }
                }
            }
        }
    }
}
