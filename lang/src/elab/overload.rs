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
//! A module's declarations of an operator it imports join the imported one, which stays
//! the operator, whether they are below it or above it (two instances of a parameterized
//! module, `SEQ{IntE}` inside `SEQ{IntSeq}`: the imported declarations on `Seq{IntE}` take
//! the module's own on `Seq{IntSeq}` as their widest).
//!
//! Left apart, and so still an ambiguous term where both fit (the error says why:
//! `extend.rs`): declarations without a widest one, with different equational attributes
//! (Maude requires them equal), and two imported declarations below one of the module's
//! own (they cannot both stay the operator).

use super::{ModuleId, Session};
use crate::ast::ModuleKind;
use crate::program::{KindId, OpId, OpRank, Signature};
use rustc_hash::{FxHashMap, FxHashSet};

/// Do declarations `a` and `b` have the same equational attributes, as the declarations
/// of one operator must?
pub(super) fn same_attributes(sig: &Signature, a: OpId, b: OpId) -> bool {
    equational(sig, a) == equational(sig, b)
}

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
            self.retire_into(m, widest, &others);
            any = true;
        }
        any
    }

    /// The module's declarations of an operator it imports, merged with the imported one,
    /// which stays the operator (its module's equations use it):
    ///
    /// - an own declaration below it (Maude's `__ : NeList List -> NeList` in a module
    ///   importing `__ : List List -> List`) is added to its overloads;
    /// - an own declaration above it (`_;_` on `Seq{IntSeq}` in `SEQ{IntSeq}`, which
    ///   imports `SEQ{IntE}`'s `_;_` on `Seq{IntE}`, a subsort of `Seq{IntSeq}`) becomes its
    ///   widest declaration, the imported one an overload; only where one imported
    ///   declaration is below it (two could not both stay the operator).
    ///
    /// The imported operator is changed for every module that sees it, which only adds
    /// the sorts of the new declarations to it. Constants are merged first, so that an
    /// `id:` naming a merged constant (`id: eps` in both instances) names the same one.
    fn merge_into_imported(&mut self, m: ModuleId) {
        let sig = &self.program.sig;
        let module = &self.modules[m];
        let own: FxHashSet<OpId> = module.own_ops.iter().copied().collect();
        let names: FxHashSet<&str> = own.iter().map(|&o| sig.op(o).name.as_str()).collect();
        let imported: Vec<OpId> = (module.ops.iter().copied())
            .filter(|g| !own.contains(g) && names.contains(sig.op(*g).name.as_str()))
            .collect();
        // Most modules declare no name they import: nothing more to look at.
        if imported.is_empty() {
            return;
        }
        for constants in [true, false] {
            let pairs = self.imported_pairs(m, &imported, constants);
            // The imported operator may run, whether this module does or not.
            self.program.sig.overloads_in_use |= !pairs.is_empty();
            for (o, g) in pairs {
                if !covers(&self.program.sig, g, o) {
                    self.widen(g, o);
                }
                self.retire_into(m, g, &[o]);
            }
        }
    }

    /// The own declarations of module `m` (constants, or the others) to merge into one of
    /// the `imported` declarations of their names, each with it (see
    /// [`Session::merge_into_imported`]).
    fn imported_pairs(&self, m: ModuleId, imported: &[OpId], constants: bool) -> Vec<(OpId, OpId)> {
        let sig = &self.program.sig;
        let imported: Vec<OpId> = (imported.iter().copied())
            .filter(|&g| sig.op(g).args.is_empty() == constants)
            .collect();
        let mut pairs = Vec::new();
        for &o in &self.modules[m].own_ops {
            let oi = sig.op(o);
            if !imported.iter().any(|&g| sig.op(g).name == oi.name) {
                continue;
            }
            let (okey, oattrs) = (key(sig, o), equational(sig, o));
            let same = |g: OpId| {
                let gi = sig.op(g);
                !(gi.args == oi.args && gi.result == oi.result)
                    && key(sig, g) == okey
                    && equational(sig, g) == oattrs
            };
            if let Some(&g) = imported.iter().find(|&&g| same(g) && covers(sig, g, o)) {
                pairs.push((o, g));
                continue;
            }
            let below: Vec<OpId> = (imported.iter().copied())
                .filter(|&g| same(g) && covers(sig, o, g))
                .collect();
            if let [g] = below[..] {
                pairs.push((o, g));
            }
        }
        pairs
    }

    /// The imported declaration `g` takes the rank of the module's own `o`, which is
    /// above it: `g`'s own rank becomes one of its overloads.
    fn widen(&mut self, g: OpId, o: OpId) {
        let sig = &mut self.program.sig;
        let (args, result) = (sig.op(o).args.clone(), sig.op(o).result);
        let info = &mut sig.ops[g.0 as usize];
        let old = OpRank {
            args: std::mem::replace(&mut info.args, args),
            result: std::mem::replace(&mut info.result, result),
        };
        info.overloads.push(old);
    }

    /// Declarations `others` of module `m` become overloads of `widest`: their ranks (and
    /// theirs, if merged before) added to it, and no longer visible in `m`.
    fn retire_into(&mut self, m: ModuleId, widest: OpId, others: &[OpId]) {
        let sig = &mut self.program.sig;
        let w = sig.op(widest);
        let top = OpRank {
            args: w.args.clone(),
            result: w.result,
        };
        // A constructor only if every declaration is one, so that a term no equation
        // reduces is reported whenever one of them says it should reduce.
        let mut ctor = w.attrs.ctor;
        let mut ranks: Vec<OpRank> = Vec::new();
        for &o in others {
            let oi = sig.op(o);
            ctor &= oi.attrs.ctor;
            ranks.push(OpRank {
                args: oi.args.clone(),
                result: oi.result,
            });
            ranks.extend(oi.overloads.iter().cloned());
        }
        // (A declaration that became the widest, `widen`, is not an overload too.)
        ranks.retain(|r| *r != top);
        let w = &mut sig.ops[widest.0 as usize];
        w.attrs.ctor = ctor;
        w.overloads.extend(ranks);
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
        for o in others {
            if let Some(ops) = module.own_by_name.get_mut(&sig.op(*o).name) {
                ops.retain(|x| x != o);
            }
        }
        module.ops.retain(|o| !others.contains(o));
        for o in others {
            module.op_set.remove(o);
        }
        *module.grammar.borrow_mut() = None;
    }
}
