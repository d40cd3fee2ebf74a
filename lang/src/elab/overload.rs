//! Maude's subsort overloading: declarations of one name whose argument and result sorts
//! are of the same kinds (`_+_ : Nat Nat -> Nat`, `_+_ : NzNat Nat -> NzNat`,
//! `_+_ : Int Int -> Int`) are one operator, whose applications have the least sort the
//! arguments allow ([`Signature::app_sort`](crate::program::Signature::app_sort); the
//! runtime's term store computes the same for the terms it makes).
//!
//! Run once per module, after its operators and before its variables and equations
//! ([`Session::merge_overloads`]): the declarations become the widest one (at or above
//! every other, argument by argument and in its result) with the others as its
//! [`OpInfo::overloads`](crate::program::OpInfo::overloads), and the others are no longer
//! visible, so the module's equations and terms read only the one.
//!
//! Left apart, and so still an ambiguous term where both fit (the error says why:
//! `extend.rs`): declarations without a widest one, with different equational attributes
//! (Maude requires them equal), and an imported declaration narrower than the module's own
//! (two instances of a parameterized module, `SEQ{IntE}` inside `SEQ{IntSeq}`): the
//! imported one is used by its own module's equations and cannot be retired.

use super::{ModuleId, Session};
use crate::ast::ModuleKind;
use crate::program::{KindId, OpId, OpRank, Signature};
use rustc_hash::{FxHashMap, FxHashSet};

/// The equational attributes, which the declarations of one operator must share.
fn equational(sig: &Signature, o: OpId) -> impl PartialEq {
    let a = &sig.op(o).attrs;
    (
        a.assoc,
        a.comm,
        a.idem,
        a.identity,
        a.left_identity,
        a.right_identity,
        a.builtin,
    )
}

/// Is declaration `o` at or below `w`, argument by argument and in its result?
pub(super) fn covers(sig: &Signature, w: OpId, o: OpId) -> bool {
    let (wi, oi) = (sig.op(w), sig.op(o));
    oi.args.len() == wi.args.len()
        && oi.args.iter().zip(&wi.args).all(|(&a, &b)| sig.leq(a, b))
        && sig.leq(oi.result, wi.result)
}

/// The name and kinds of a declaration: those of one operator are the same.
fn key(sig: &Signature, o: OpId) -> (&str, Vec<KindId>) {
    let oi = sig.op(o);
    let kinds = (oi.args.iter().chain([&oi.result]))
        .map(|&s| sig.sort(s).kind)
        .collect();
    (&oi.name, kinds)
}

impl Session {
    /// `check_only`: the module is checked, never run (a parameterized module, as opposed
    /// to its instances): its operators' applications are never made.
    pub(super) fn merge_overloads(&mut self, m: ModuleId, check_only: bool) {
        if self.modules[m].kind == ModuleKind::Theory || self.modules[m].own_ops.is_empty() {
            return;
        }
        if self.merge_own_overloads(m) && !check_only {
            self.program.sig.overloads_in_use = true;
        }
        // The standard library overloads no imported operator: its modules (and their
        // instances) skip the look at every visible operator (1% of a short run).
        if !self.library_files.contains(&self.modules[m].span.file) {
            self.merge_into_imported(m);
        }
    }

    /// The module's own declarations of one operator, merged into the widest: whether
    /// any were.
    fn merge_own_overloads(&mut self, m: ModuleId) -> bool {
        let sig = &self.program.sig;
        // Most modules declare no name twice: that is checked first, cheaply.
        let mut names = FxHashSet::default();
        let own = &self.modules[m].own_ops;
        if own.iter().all(|&o| names.insert(sig.op(o).name.as_str())) {
            return false;
        }
        let mut groups: FxHashMap<(&str, Vec<KindId>), Vec<OpId>> = FxHashMap::default();
        for &o in own {
            groups.entry(key(sig, o)).or_default().push(o);
        }
        let mut groups: Vec<Vec<OpId>> = groups.into_values().filter(|g| g.len() > 1).collect();
        groups.sort();
        let mut any = false;
        for group in groups {
            let sig = &self.program.sig;
            let Some(widest) = group
                .iter()
                .copied()
                .find(|&w| group.iter().all(|&o| covers(sig, w, o)))
            else {
                continue;
            };
            let attrs = equational(sig, widest);
            if group.iter().any(|&o| equational(sig, o) != attrs) {
                continue;
            }
            let others: Vec<OpId> = group.iter().copied().filter(|&o| o != widest).collect();
            // A constructor only if every declaration is one, so that a term no equation
            // reduces is reported whenever one of them says it should reduce.
            let ctor = group.iter().all(|&o| sig.op(o).attrs.ctor);
            self.program.sig.ops[widest.0 as usize].attrs.ctor = ctor;
            self.retire_into(m, widest, &others);
            any = true;
        }
        any
    }

    /// The module's own declarations below an imported one of the same operator (Maude's
    /// `__ : NeList List -> NeList` in a module importing `__ : List List -> List`), added
    /// to it. The imported operator is changed for every module that sees it, which only
    /// lowers the sorts of its applications to arguments of the new declarations' sorts.
    fn merge_into_imported(&mut self, m: ModuleId) {
        let sig = &self.program.sig;
        let module = &self.modules[m];
        let own: FxHashSet<OpId> = module.own_ops.iter().copied().collect();
        let names: FxHashSet<&str> = own.iter().map(|&o| sig.op(o).name.as_str()).collect();
        let mut pairs: Vec<(OpId, OpId)> = Vec::new();
        for &g in module.ops.iter().filter(|g| !own.contains(g)) {
            if !names.contains(sig.op(g).name.as_str()) {
                continue;
            }
            let (gkey, gattrs) = (key(sig, g), equational(sig, g));
            for &o in &module.own_ops {
                let same_rank =
                    sig.op(o).args == sig.op(g).args && sig.op(o).result == sig.op(g).result;
                if !same_rank
                    && key(sig, o) == gkey
                    && covers(sig, g, o)
                    && equational(sig, o) == gattrs
                    && !pairs.iter().any(|&(p, _)| p == o)
                {
                    pairs.push((o, g));
                }
            }
        }
        // The imported operator may run, whether this module does or not.
        self.program.sig.overloads_in_use |= !pairs.is_empty();
        for (o, g) in pairs {
            self.retire_into(m, g, &[o]);
        }
    }

    /// Declarations `others` of module `m` become overloads of `widest`: their ranks (and
    /// theirs, if merged before) added to it, and no longer visible in `m`.
    fn retire_into(&mut self, m: ModuleId, widest: OpId, others: &[OpId]) {
        let sig = &mut self.program.sig;
        let mut ranks: Vec<OpRank> = Vec::new();
        for &o in others {
            let oi = sig.op(o);
            ranks.push(OpRank {
                args: oi.args.clone(),
                result: oi.result,
            });
            ranks.extend(oi.overloads.iter().cloned());
        }
        sig.ops[widest.0 as usize].overloads.extend(ranks);
        // An identity declared twice (`nil` on `List` and on `NeList`) is the merged one.
        for &o in &self.modules[m].own_ops {
            let attrs = &mut sig.ops[o.0 as usize].attrs;
            for id in [
                &mut attrs.identity,
                &mut attrs.left_identity,
                &mut attrs.right_identity,
            ] {
                if id.is_some_and(|i| others.contains(&i)) {
                    *id = Some(widest);
                }
            }
        }
        let module = &mut self.modules[m];
        module.own_ops.retain(|o| !others.contains(o));
        module.ops.retain(|o| !others.contains(o));
        for o in others {
            module.op_set.remove(o);
        }
        *module.grammar.borrow_mut() = None;
    }
}
