//! Module expressions, theories, views and instances: `SET{TwoHeaps}` elaborated by
//! re-reading the parameterised module with each parameter bound by a view.

use super::{mixfix, quote_list, Binding, ModuleId, ParamBinding, Session};
use crate::ast::{Ident, ModExpr, ModuleDecl, ModuleKind, TokenRun, ViewMap};
use crate::diag::{suggest, Diag};
use crate::program::{OpId, Pat, SortId};
use crate::span::Span;
use mixfix::{SymTarget, VarScope};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

impl Session {
    // ----- module expressions and instantiation --------------------------------------------

    /// Elaborate a module expression (`INT`, `SET{TwoHeaps}`, `WINS{HeapsGame}`), from the
    /// scope of module `ctx` (where its arguments are resolved) or from the top level.
    pub(super) fn module_expr(
        &mut self,
        expr: &ModExpr,
        ctx: Option<ModuleId>,
    ) -> Result<ModuleId, Diag> {
        let Some(decl) = self.templates.get(&expr.name.name).cloned() else {
            let names: Vec<String> = self.templates.keys().cloned().collect();
            let mut d = Diag::at(
                expr.name.span,
                format!("unknown module `{}`", expr.name.name),
                "no module or theory of this name",
            );
            let hints = suggest(&expr.name.name, names.iter().map(String::as_str));
            if !hints.is_empty() {
                d = d.note(format!("did you mean {}?", quote_list(&hints)));
            }
            return Err(d);
        };
        if decl.params.len() != expr.args.len() {
            let want = if decl.params.is_empty() {
                "no arguments".to_string()
            } else {
                format!(
                    "{} argument(s): {}",
                    decl.params.len(),
                    decl.params
                        .iter()
                        .map(|p| format!("{} :: {}", p.name.name, p.theory.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return Err(Diag::at(
                expr.span,
                format!("module `{}` takes {want}", decl.name.name),
                format!("given {} argument(s)", expr.args.len()),
            )
            .secondary(decl.name.span, "declared here"));
        }
        let mut bindings = Vec::new();
        for (param, arg) in decl.params.iter().zip(&expr.args) {
            let theory = self.theory(&param.theory)?;
            let b = self.argument(arg, ctx, theory)?;
            bindings.push(ParamBinding {
                param: param.name.name.clone(),
                theory: param.theory.name.clone(),
                binding: b,
            });
        }
        self.instantiate(&decl, bindings, expr.span)
    }

    /// The instance of module `decl` with these parameter bindings, elaborated once and
    /// shared by everything that instantiates it the same way.
    pub(super) fn instantiate(
        &mut self,
        decl: &Rc<ModuleDecl>,
        bindings: Vec<ParamBinding>,
        at: Span,
    ) -> Result<ModuleId, Diag> {
        let display = if bindings.is_empty() {
            decl.name.name.clone()
        } else {
            format!(
                "{}{{{}}}",
                decl.name.name,
                bindings
                    .iter()
                    .map(|b| b.binding.display.clone())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        let key = format!(
            "{display}#{}",
            bindings
                .iter()
                .map(|b| b.binding.key())
                .collect::<Vec<_>>()
                .join("|")
        );
        if let Some(&id) = self.instances.get(&key) {
            return Ok(id);
        }
        if let Some(from) = self.in_progress.iter().position(|k| *k == key) {
            // The chain of imports, by the modules' names (a key is `NAME#BINDINGS`).
            let chain: Vec<&str> = (self.in_progress[from..].iter())
                .chain(std::iter::once(&key))
                .map(|k| k.split_once('#').map_or(k.as_str(), |(name, _)| name))
                .collect();
            let mut d = Diag::at(
                at,
                format!("module `{display}` imports itself"),
                "import cycle through here",
            );
            if chain.len() > 2 {
                d = d.note(format!("the imports go round: {}", chain.join(" → ")));
            }
            return Err(d);
        }
        self.in_progress.push(key.clone());
        let result = self.elaborate(decl, bindings, display, false);
        self.in_progress.pop();
        let id = result?;
        self.instances.insert(key, id);
        Ok(id)
    }

    /// The theory called `name` (elaborated once), or an error if it is a module.
    pub(super) fn theory(&mut self, name: &Ident) -> Result<ModuleId, Diag> {
        let expr = ModExpr {
            name: name.clone(),
            args: Vec::new(),
            span: name.span,
        };
        let theory = self.module_expr(&expr, None)?;
        if self.modules[theory].kind != ModuleKind::Theory {
            return Err(Diag::at(
                name.span,
                format!("`{}` is not a theory", name.name),
                "a parameter must be declared with a theory (`fth`)",
            ));
        }
        Ok(theory)
    }

    /// Check a parameterised module once on its own, with each parameter bound to its
    /// theory, so that its errors show at its definition rather than at first use.
    pub(super) fn check_parameterised(&mut self, decl: &Rc<ModuleDecl>) -> Result<(), Diag> {
        let mut bindings = Vec::new();
        for param in &decl.params {
            let theory = self.theory(&param.theory)?;
            let t = &self.modules[theory];
            let mut b = Binding {
                display: param.name.name.clone(),
                sort_map: t.param_sorts.iter().map(|&s| (s, s)).collect(),
                op_map: FxHashMap::default(),
                target: None,
                shared: self.shared_imports(theory),
            };
            for &op in &t.param_ops {
                let n = self.program.sig.op(op).args.len() as u32;
                b.op_map
                    .insert(op, Pat::App(op, (0..n).map(Pat::Var).collect()));
            }
            bindings.push(ParamBinding {
                param: param.name.name.clone(),
                theory: param.theory.name.clone(),
                binding: b,
            });
        }
        let display = format!(
            "{}{{{}}}",
            decl.name.name,
            decl.params
                .iter()
                .map(|p| p.name.name.clone())
                .collect::<Vec<_>>()
                .join(",")
        );
        self.elaborate(decl, bindings, display, true).map(|_| ())
    }

    /// The fmods a theory imports (directly or through other theories): shared by every
    /// instance rather than mapped by views.
    fn shared_imports(&self, theory: ModuleId) -> Vec<ModuleId> {
        self.modules[theory].shared.clone()
    }

    /// Resolve a module argument against `theory`: a parameter of the enclosing module, a
    /// view, a module (implicit view) or a sort (implicit view of a one-sort theory).
    pub(super) fn argument(
        &mut self,
        arg: &ModExpr,
        ctx: Option<ModuleId>,
        theory: ModuleId,
    ) -> Result<Binding, Diag> {
        let name = &arg.name.name;
        let mut wrong_view = None;
        if arg.args.is_empty() {
            if let Some(c) = ctx {
                if let Some(p) = self.modules[c].params.iter().find(|p| &p.param == name) {
                    // A parameter passed on: map the theory by name in the current scope,
                    // where the parameter's sorts and operators are visible. The instance
                    // is named after what the parameter is bound to (`WINS{HeapsGame}`).
                    // Each theory sort goes to this parameter's own sort (`K$Elt`), not to
                    // whichever parameter's sort has the plain name `Elt`: in MAP{K, V},
                    // SET{V} must be the set of V's elements.
                    let display = p.binding.display.clone();
                    let fixed: Vec<(SortId, SortId)> = self.modules[theory]
                        .param_sorts
                        .iter()
                        .filter_map(|&s| {
                            let own = format!("{name}${}", self.program.sig.sort(s).name);
                            self.modules[c].sorts.get(&own).map(|&t| (s, t))
                        })
                        .collect();
                    return self.by_name(theory, c, display, None, &fixed, arg.span);
                }
            }
            // A view is chosen only if it is from the parameter's theory: `SET{Nim}` inside
            // the module NIM means the sort Nim even when a view `Nim` from GAME-TREE exists.
            if let Some(v) = self.views.get(name).cloned() {
                if v.from.name.name == self.modules[theory].name {
                    return self.view(&arg.name);
                }
                wrong_view = Some(Diag::at(
                    arg.span,
                    format!(
                        "view `{name}` is from `{}`, but this parameter needs a view from `{}`",
                        v.from.name.name, self.modules[theory].name
                    ),
                    "wrong theory",
                ));
            }
        }
        if self.templates.contains_key(name) {
            let target = self.module_expr(arg, ctx)?;
            let display = self.modules[target].name.clone();
            return self.by_name(theory, target, display, Some(target), &[], arg.span);
        }
        // A sort, possibly of an instance itself (`LIST{Set{Nat}}`: the sort `Set{Nat}`,
        // spelt as sorts are, braces included).
        let spelt = sort_spelling(arg);
        let name = &spelt;
        if let Some(c) = ctx {
            if let Some(&sort) = self.modules[c].sorts.get(name) {
                let t = &self.modules[theory];
                if t.param_sorts.len() != 1 {
                    return Err(Diag::at(arg.span, format!("the sort `{name}` can only stand for a theory with one sort; `{}` has {}", t.name, t.param_sorts.len()), "write a view instead"));
                }
                let ts = t.param_sorts[0];
                return self.by_name(theory, c, name.clone(), None, &[(ts, sort)], arg.span);
            }
        }
        if let Some(d) = wrong_view {
            return Err(d);
        }
        let mut names: Vec<String> = self
            .views
            .keys()
            .chain(self.templates.keys())
            .cloned()
            .collect();
        if let Some(c) = ctx {
            names.extend(self.modules[c].sorts.keys().cloned());
        }
        let mut d = Diag::at(
            arg.span,
            format!("unknown view, module or sort `{name}`"),
            "cannot instantiate the parameter with this",
        );
        let hints = suggest(name, names.iter().map(String::as_str));
        if !hints.is_empty() {
            d = d.note(format!("did you mean {}?", quote_list(&hints)));
        }
        Err(d)
    }

    /// A binding mapping every theory symbol to the symbol of the same name in `scope`,
    /// except the sorts given in `fixed`.
    pub(super) fn by_name(
        &mut self,
        theory: ModuleId,
        scope: ModuleId,
        display: String,
        target: Option<ModuleId>,
        fixed: &[(SortId, SortId)],
        at: Span,
    ) -> Result<Binding, Diag> {
        let mut b = Binding {
            display,
            sort_map: fixed.iter().copied().collect(),
            op_map: FxHashMap::default(),
            target,
            shared: self.shared_imports(theory),
        };
        self.complete_by_name(
            theory,
            scope,
            &mut b,
            &FxHashSet::default(),
            Wording::Implicit,
            at,
        )?;
        Ok(b)
    }

    /// Map every theory sort and operator that `b` does not map yet (and that is not in
    /// `skip`) to the symbol of the same name in module `scope`. `wording` says whether a
    /// failure is reported as an implicit view or as a view that leaves a symbol unmapped.
    fn complete_by_name(
        &mut self,
        theory: ModuleId,
        scope: ModuleId,
        b: &mut Binding,
        skip: &FxHashSet<OpId>,
        wording: Wording,
        at: Span,
    ) -> Result<(), Diag> {
        let scope_name = self.modules[scope].name.clone();
        let theory_name = self.modules[theory].name.clone();
        for s in self.modules[theory].param_sorts.clone() {
            if b.sort_map.contains_key(&s) {
                continue;
            }
            let sname = self.program.sig.sort(s).name.clone();
            match self.modules[scope].sorts.get(&sname) {
                Some(&t) => {
                    b.sort_map.insert(s, t);
                }
                None => {
                    return Err(match wording {
                        Wording::Implicit => Diag::at(at, format!("`{scope_name}` has no sort `{sname}` for the parameter theory `{theory_name}`"), "implicit view needs a sort of the same name")
                            .note(format!("write a view: `view V from {theory_name} to {scope_name} is sort {sname} to … . endv`")),
                        Wording::InView => Diag::at(at, format!("the view does not map the theory sort `{sname}`, and `{scope_name}` has no sort of that name"), "in this view")
                            .note(format!("add `sort {sname} to … .`")),
                    });
                }
            }
        }
        for op in self.modules[theory].param_ops.clone() {
            if skip.contains(&op) || b.op_map.contains_key(&op) {
                continue;
            }
            match self.op_by_name(op, b, scope) {
                Some(p) => {
                    b.op_map.insert(op, p);
                }
                None => {
                    let info = self.program.sig.op(op);
                    let mapped = self.describe_op_mapped(op, b);
                    let d = match wording {
                        Wording::Implicit => Diag::at(at, format!("`{scope_name}` has no operator `{}` for the parameter theory `{theory_name}`", info.name), "implicit view needs an operator of the same name and arity")
                            .note(format!("expected `{mapped}`; write a view mapping it, e.g. `op {} to …` or `op {}(…) to term …`", info.name, info.name)),
                        Wording::InView => Diag::at(at, format!("the view does not map the theory operator `{}`, and `{scope_name}` has no operator of that name and arity", info.name), "in this view")
                            .note(format!("the theory operator is `{mapped}`; add `op {} to … .` or `op {}(…) to term … .`", info.name, info.name)),
                    };
                    return Err(self.with_misfits(d, scope, &info.name));
                }
            }
        }
        Ok(())
    }

    fn describe_op_mapped(&self, op: OpId, b: &Binding) -> String {
        let sig = &self.program.sig;
        let info = sig.op(op);
        let map = |s: SortId| sig.sort(*b.sort_map.get(&s).unwrap_or(&s)).name.clone();
        format!(
            "{} : {} -> {}",
            info.name,
            info.args
                .iter()
                .map(|s| map(*s))
                .collect::<Vec<_>>()
                .join(" "),
            map(info.result)
        )
    }

    /// The operator of `scope` that a theory operator maps to by name, as a term template.
    pub(super) fn op_by_name(&self, op: OpId, b: &Binding, scope: ModuleId) -> Option<Pat> {
        let sig = &self.program.sig;
        let info = sig.op(op);
        let want_args: Vec<SortId> = info
            .args
            .iter()
            .map(|s| *b.sort_map.get(s).unwrap_or(s))
            .collect();
        let want_res = *b.sort_map.get(&info.result).unwrap_or(&info.result);
        let ops = &self.modules[scope].ops;
        let candidates: Vec<OpId> = ops
            .iter()
            .copied()
            .filter(|&o| {
                let oi = sig.op(o);
                oi.name == info.name
                    && oi.args.len() == want_args.len()
                    && oi
                        .args
                        .iter()
                        .zip(&want_args)
                        .all(|(a, w)| sig.same_kind(*a, *w))
                    && sig.same_kind(oi.result, want_res)
            })
            .collect();
        let exact = candidates.iter().copied().find(|&o| {
            let oi = sig.op(o);
            oi.args == want_args && oi.result == want_res
        });
        if let Some(chosen) = exact.or_else(|| candidates.first().copied()) {
            return Some(Pat::App(
                chosen,
                (0..want_args.len() as u32).map(Pat::Var).collect(),
            ));
        }
        // A parameter operator of the scope that its own view maps to a term (when a
        // parameter is passed on, e.g. `next-config` inside `SOLVE{X}`).
        let macros = &self.modules[scope].macros;
        macros
            .iter()
            .find(|s| {
                s.name == info.name
                    && s.args.len() == want_args.len()
                    && s.args
                        .iter()
                        .zip(&want_args)
                        .all(|(a, w)| sig.same_kind(*a, *w))
            })
            .and_then(|s| match &s.target {
                SymTarget::Macro(t) => Some((**t).clone()),
                SymTarget::Op(_) => None,
            })
    }

    /// Elaborate (once) the view called `name`.
    pub(super) fn view(&mut self, name: &Ident) -> Result<Binding, Diag> {
        if let Some(b) = self.view_cache.get(&name.name) {
            return Ok(b.clone());
        }
        let v = self.views[&name.name].clone();
        let theory = self.module_expr(&v.from, None)?;
        if self.modules[theory].kind != ModuleKind::Theory {
            return Err(Diag::at(
                v.from.span,
                format!(
                    "a view maps a theory, and `{}` is a module",
                    v.from.name.name
                ),
                "not a theory (`fth`)",
            ));
        }
        let target = self.module_expr(&v.to, None)?;
        let mut fixed = Vec::new();
        let mut op_maps: Vec<(&ViewMap, OpId)> = Vec::new();
        for map in &v.maps {
            match map {
                ViewMap::Sort { from, to, span } => {
                    let Some(&ts) = self.modules[theory]
                        .sorts
                        .get(&from.name)
                        .filter(|s| self.modules[theory].param_sorts.contains(s))
                    else {
                        return Err(Diag::at(
                            from.span,
                            format!("theory `{}` has no sort `{}`", v.from.name.name, from.name),
                            "not a sort of the theory",
                        ));
                    };
                    let Some(&ms) = self.modules[target].sorts.get(&to.name) else {
                        return Err(self
                            .unknown_sort(target, &to.name, to.span)
                            .secondary(*span, "in this sort mapping"));
                    };
                    fixed.push((ts, ms));
                }
                ViewMap::Op { from, .. } => {
                    let op = self.theory_op(theory, &from.name, None, from.span)?;
                    op_maps.push((map, op));
                }
                ViewMap::OpToTerm { from, span, .. } => {
                    let Some(first) = from.first() else {
                        return Err(Diag::at(
                            *span,
                            "expected an operator before `to term`",
                            "here",
                        ));
                    };
                    let arity = from.iter().filter(|t| t.text.contains(':')).count();
                    let op = self.theory_op(theory, &first.text, Some(arity), first.span)?;
                    op_maps.push((map, op));
                }
            }
        }
        // Start from the implicit (by-name) mapping for everything not listed.
        let explicit: FxHashSet<OpId> = op_maps.iter().map(|(_, o)| *o).collect();
        let mut b = Binding {
            display: name.name.clone(),
            sort_map: fixed.iter().copied().collect(),
            op_map: FxHashMap::default(),
            target: Some(target),
            shared: self.shared_imports(theory),
        };
        self.complete_by_name(
            theory,
            target,
            &mut b,
            &explicit,
            Wording::InView,
            v.name.span,
        )?;
        for (map, op) in op_maps {
            let pat = match map {
                ViewMap::Op { to, .. } => {
                    let info = self.program.sig.op(op).clone();
                    let want: Vec<SortId> = info
                        .args
                        .iter()
                        .map(|s| *b.sort_map.get(s).unwrap_or(s))
                        .collect();
                    let want_result = *b.sort_map.get(&info.result).unwrap_or(&info.result);
                    let found = self.modules[target].ops.iter().copied().find(|&o| {
                        let oi = self.program.sig.op(o);
                        oi.name == to.name
                            && oi.args.len() == want.len()
                            && oi
                                .args
                                .iter()
                                .zip(&want)
                                .all(|(a, w)| self.program.sig.same_kind(*a, *w))
                            && self.program.sig.same_kind(oi.result, want_result)
                    });
                    match found {
                        Some(o) => Pat::App(o, (0..want.len() as u32).map(Pat::Var).collect()),
                        None => {
                            let d = Diag::at(
                                to.span,
                                format!(
                                "`{}` has no operator `{}` with {} argument(s) of the right sorts",
                                self.modules[target].name,
                                to.name,
                                want.len()
                            ),
                                "no such operator",
                            )
                            .note(format!(
                                "the theory operator is `{}`",
                                self.describe_op_mapped(op, &b)
                            ));
                            return Err(self.with_misfits(d, target, &to.name));
                        }
                    }
                }
                ViewMap::OpToTerm { from, to, .. } => self.op_to_term(op, from, to, target, &b)?,
                ViewMap::Sort { .. } => unreachable!(),
            };
            b.op_map.insert(op, pat);
        }
        self.view_cache.insert(name.name.clone(), b.clone());
        Ok(b)
    }

    fn theory_op(
        &self,
        theory: ModuleId,
        name: &str,
        arity: Option<usize>,
        at: Span,
    ) -> Result<OpId, Diag> {
        let t = &self.modules[theory];
        let found = t.param_ops.iter().copied().find(|&o| {
            let i = self.program.sig.op(o);
            i.name == name && arity.is_none_or(|a| a == i.args.len())
        });
        found.ok_or_else(|| {
            let names: Vec<String> = t
                .param_ops
                .iter()
                .map(|&o| self.program.sig.op(o).name.clone())
                .collect();
            let mut d = Diag::at(
                at,
                format!("theory `{}` has no operator `{name}`", t.name),
                "not an operator of the theory",
            );
            let hints = suggest(name, names.iter().map(String::as_str));
            if !hints.is_empty() {
                d = d.note(format!("did you mean {}?", quote_list(&hints)));
            }
            d
        })
    }

    /// `op next-config(p:Players, c:Config) to term next-heaps(c:TwoHeaps)`.
    fn op_to_term(
        &mut self,
        op: OpId,
        from: &TokenRun,
        to: &TokenRun,
        target: ModuleId,
        b: &Binding,
    ) -> Result<Pat, Diag> {
        let info = self.program.sig.op(op).clone();
        let mut names = Vec::new();
        for t in from.iter().skip(1) {
            if let Some((n, _)) = t.text.split_once(':') {
                names.push((n.to_string(), t.span));
            }
        }
        if names.len() != info.args.len() {
            return Err(Diag::at(
                from[0].span.to(from[from.len() - 1].span),
                format!(
                    "`{}` takes {} argument(s); write them as `x:Sort`",
                    info.name,
                    info.args.len()
                ),
                "here",
            ));
        }
        let mut vars = TemplateVars {
            names: names.iter().map(|(n, _)| n.clone()).collect(),
            sorts: info
                .args
                .iter()
                .map(|s| *b.sort_map.get(s).unwrap_or(s))
                .collect(),
        };
        let grammar = self.grammar(target);
        let want = *b.sort_map.get(&info.result).unwrap_or(&info.result);
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, to, &mut vars, Some(want))?;
        Ok(pat)
    }
}

/// How a failed by-name mapping is reported: as an implicit view (a module or sort given
/// as an argument) or as a symbol a written view leaves unmapped.
#[derive(Clone, Copy)]
enum Wording {
    Implicit,
    InView,
}

/// The argument variables of a view's `op f(x:S, …) to term T`.
struct TemplateVars {
    names: Vec<String>,
    sorts: Vec<SortId>,
}

impl VarScope for TemplateVars {
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)> {
        let i = self.names.iter().position(|n| n == name)?;
        Some((i as u32, self.sorts[i]))
    }
    fn inline(&mut self, name: &str, _sort: &str) -> Option<(u32, SortId)> {
        self.declared(name)
    }
    fn names(&self) -> Vec<String> {
        self.names.clone()
    }
    fn sort_names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A module expression read as a sort name: `Set{Nat}`, `Map{Nat,Set{Nat}}` (as
/// [`crate::ast::SortRef`] spells sorts: no spaces, `,` between arguments).
fn sort_spelling(e: &ModExpr) -> String {
    if e.args.is_empty() {
        return e.name.name.clone();
    }
    let args: Vec<String> = e.args.iter().map(sort_spelling).collect();
    format!("{}{{{}}}", e.name.name, args.join(","))
}
