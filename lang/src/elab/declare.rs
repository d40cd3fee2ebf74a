//! A module's own declarations: imports, sorts, operators (with their attributes) and
//! equations (with their variables and conditions).

use super::builtins::builtin;
use super::{binding, mixfix, quote_list, Module, ModuleId, ParamBinding, Session};
use crate::ast::{self, Decl, ModuleDecl, ModuleKind, Token, TokenRun};
use crate::diag::{suggest, Diag};
use crate::program::{
    Builtin, Equation, Gather, OpAttrs, OpId, OpInfo, Pat, PatPiece, SortId, VarInfo,
};
use crate::span::{FileId, Span};
use mixfix::{Grammar, Sym, SymTarget, VarScope};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::rc::Rc;

impl Session {
    pub(super) fn unknown_sort(&self, m: ModuleId, name: &str, at: Span) -> Diag {
        let names: Vec<&str> = self.modules[m].sorts.keys().map(String::as_str).collect();
        let mut d = Diag::at(
            at,
            format!("unknown sort `{name}`"),
            format!("no sort of this name in `{}`", self.modules[m].name),
        );
        let hints = suggest(name, names);
        if !hints.is_empty() {
            d = d.note(format!("did you mean {}?", quote_list(&hints)));
        }
        // The prelude's sorts are not visible without importing them.
        if matches!(name, "Nat" | "NzNat" | "Int" | "NzInt") {
            d = d.note("the integers come from the prelude: add `protecting INT .` to the module (the errors after this one may all come from it)");
        } else if name == "Bool" {
            d = d.note("the Booleans come from the prelude: add `protecting BOOL .` (or `protecting INT .`) to the module");
        }
        d
    }

    // ----- declarations -----------------------------------------------------------------------

    pub(super) fn elaborate(
        &mut self,
        decl: &ModuleDecl,
        params: Vec<ParamBinding>,
        display: String,
        check_only: bool,
    ) -> Result<ModuleId, Diag> {
        let id = self.modules.len();
        self.modules.push(Module {
            name: display,
            kind: decl.kind,
            span: decl.name.span,
            sorts: FxHashMap::default(),
            export_sorts: FxHashMap::default(),
            ops: Vec::new(),
            op_set: FxHashSet::default(),
            imports: Vec::new(),
            macros: Vec::new(),
            vars: FxHashMap::default(),
            library_vars: FxHashSet::default(),
            own_sorts: Vec::new(),
            own_ops: Vec::new(),
            own_by_name: FxHashMap::default(),
            params: Vec::new(),
            param_sorts: Vec::new(),
            param_ops: Vec::new(),
            shared: Vec::new(),
            grammar: RefCell::new(None),
        });
        let is_prelude_bool = decl.name.name == "BOOL" && self.bool_module.is_none();
        if is_prelude_bool {
            let u = self.program.sig.universal_sort.expect("universal sort");
            self.modules[id].sorts.insert("Universal".into(), u);
            self.modules[id].export_sorts.insert("Universal".into(), u);
        } else if let Some(b) = self.bool_module {
            self.import(id, b, decl.name.span)?;
        }
        // Parameters: import what the view targets and the theory shares, then alias the
        // theory's sorts and operators.
        for p in &params {
            if let Some(t) = p.binding.target {
                self.import(id, t, decl.name.span)?;
            }
            for &s in &p.binding.shared {
                self.import(id, s, decl.name.span)?;
            }
            for (&ts, &target) in &p.binding.sort_map {
                let n = self.program.sig.sort(ts).name.clone();
                self.modules[id]
                    .sorts
                    .insert(format!("{}${n}", p.param), target);
                self.modules[id].sorts.entry(n).or_insert(target);
            }
            let mut ops: Vec<(&OpId, &Pat)> = p.binding.op_map.iter().collect();
            ops.sort_by_key(|(o, _)| **o);
            for (&top, pat) in ops {
                let tinfo = self.program.sig.op(top).clone();
                let map = |s: SortId| *p.binding.sort_map.get(&s).unwrap_or(&s);
                if let Pat::App(target, args) = pat {
                    let direct = args
                        .iter()
                        .enumerate()
                        .all(|(i, a)| *a == Pat::Var(i as u32));
                    if direct && self.program.sig.op(*target).name == tinfo.name {
                        self.add_visible_op(id, *target);
                        continue;
                    }
                }
                self.modules[id].macros.push(Sym {
                    name: tinfo.name.clone(),
                    form: tinfo.form.clone(),
                    args: tinfo.args.iter().map(|s| map(*s)).collect(),
                    result: map(tinfo.result),
                    prec: tinfo.attrs.prec,
                    gather: tinfo.attrs.gather.clone(),
                    assoc: false,
                    builtin: None,
                    target: SymTarget::Macro(Rc::new(pat.clone())),
                });
            }
        }
        self.modules[id].params = params;
        // As in Maude, operators, variables and equations may come before what they use:
        // imports, sorts and subsorts are elaborated first (in the order written, since an
        // import may instantiate a module on the module's own sort: `SET{Position}`), then
        // operators, variables and equations, each kind in the order written. The errors
        // are then put back in the order of the text.
        let rank = |d: &Decl| match d {
            Decl::Import { .. } | Decl::Sorts { .. } | Decl::Subsorts { .. } => 0,
            // Constants before the operators whose `id:` they may be.
            Decl::Op { args, .. } if args.is_empty() => 1,
            Decl::Op { .. } => 2,
            Decl::Vars { .. } => 3,
            Decl::Eq { .. } => 4,
        };
        let mut order: Vec<&Decl> = decl.decls.iter().collect();
        let reordered = order.windows(2).any(|w| rank(w[0]) > rank(w[1]));
        order.sort_by_key(|d| rank(d));
        let first_error = self.errors.len();
        let mut merged = false;
        for d in order {
            if rank(d) > 2 && !merged {
                self.merge_overloads(id, check_only);
                merged = true;
            }
            if let Err(e) = self.declaration(id, d, check_only) {
                self.errors.push(e);
            }
        }
        if !merged {
            self.merge_overloads(id, check_only);
        }
        if reordered {
            self.errors[first_error..].sort_by_key(|d| d.span().map(|s| (s.file.0, s.start)));
        }
        // The prelude's (declared before its INT; a program's own QID is another module).
        if decl.name.name == "QID"
            && self.qid_module.is_none()
            && self.program.sig.int_sort.is_none()
        {
            self.qid_module = Some(id);
        }
        if is_prelude_bool {
            self.bool_module = Some(id);
            let sig = &self.program.sig;
            let find = |name: &str| {
                self.modules[id]
                    .ops
                    .iter()
                    .copied()
                    .find(|&o| sig.op(o).name == name)
            };
            let (t, f, eq, at) = (
                find("true"),
                find("false"),
                find("_==_"),
                find("_and-then_"),
            );
            let bool_sort = self.modules[id].sorts.get("Bool").copied();
            self.program.sig.true_op = t;
            self.program.sig.false_op = f;
            self.program.sig.bool_sort = bool_sort;
            self.program.sig.string_sort = self.modules[id].sorts.get("String").copied();
            self.program.sig.char_sort = self.modules[id].sorts.get("Char").copied();
            self.equal_op = eq;
            self.and_then_op = at;
        }
        if decl.name.name == "STRING" && self.program.sig.not_found_op.is_none() {
            let sig = &self.program.sig;
            self.program.sig.not_found_op = (self.modules[id].ops.iter().copied())
                .find(|&o| sig.op(o).name == "notFound" && sig.op(o).args.is_empty());
        }
        if decl.name.name == "INT" && self.program.sig.int_sort.is_none() {
            self.program.sig.nat_sort = self.modules[id].sorts.get("Nat").copied();
            self.program.sig.int_sort = self.modules[id].sorts.get("Int").copied();
            self.program.sig.zero_sort = self.modules[id].sorts.get("Zero").copied();
            self.program.sig.nz_nat_sort = self.modules[id].sorts.get("NzNat").copied();
            self.program.sig.nz_int_sort = self.modules[id].sorts.get("NzInt").copied();
            let sig = &self.program.sig;
            let builtin = |b: Builtin| {
                (self.modules[id].ops.iter().copied()).find(|&o| sig.op(o).attrs.builtin == Some(b))
            };
            if let (Some(succ), Some(sub), Some(ge), Some(and_then)) = (
                builtin(Builtin::Succ),
                builtin(Builtin::Sub),
                builtin(Builtin::Ge),
                self.and_then_op,
            ) {
                self.successor_ops = Some(super::successor::SuccessorOps {
                    succ,
                    sub,
                    ge,
                    and_then,
                });
            }
        }
        Ok(id)
    }

    pub(super) fn add_visible_op(&mut self, m: ModuleId, op: OpId) {
        let module = &mut self.modules[m];
        if module.op_set.insert(op) {
            module.ops.push(op);
            *module.grammar.borrow_mut() = None;
        }
    }

    pub(super) fn import(&mut self, m: ModuleId, from: ModuleId, at: Span) -> Result<(), Diag> {
        if !self.modules[m].imports.contains(&from) {
            self.modules[m].imports.push(from);
        }
        let sorts: Vec<(String, SortId)> = self.modules[from]
            .export_sorts
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        for (name, s) in sorts {
            if let Some(&old) = self.modules[m].sorts.get(&name) {
                if old != s {
                    return Err(Diag::at(
                        at,
                        format!("two different sorts are called `{name}` here"),
                        format!("importing `{}`", self.modules[from].name),
                    )
                    .note("rename one of them"));
                }
            }
            self.modules[m].sorts.insert(name.clone(), s);
            self.modules[m].export_sorts.insert(name, s);
        }
        let ops = self.modules[from].ops.clone();
        for op in ops {
            self.add_visible_op(m, op);
        }
        if self.modules[from].kind == ModuleKind::Theory
            && self.modules[m].kind == ModuleKind::Theory
        {
            // A theory importing a theory: the imported theory's symbols are parameters too.
            let (ps, po) = (
                self.modules[from].param_sorts.clone(),
                self.modules[from].param_ops.clone(),
            );
            for s in ps {
                if !self.modules[m].param_sorts.contains(&s) {
                    self.modules[m].param_sorts.push(s);
                }
            }
            for o in po {
                if !self.modules[m].param_ops.contains(&o) {
                    self.modules[m].param_ops.push(o);
                }
            }
            for s in self.modules[from].shared.clone() {
                if !self.modules[m].shared.contains(&s) {
                    self.modules[m].shared.push(s);
                }
            }
        }
        Ok(())
    }

    pub(super) fn declaration(
        &mut self,
        m: ModuleId,
        d: &Decl,
        check_only: bool,
    ) -> Result<(), Diag> {
        match d {
            // protecting / extending / including are not distinguished: nothing checks that
            // an import is protected yet.
            Decl::Import { target, span, .. } => {
                let imported = self.module_expr(target, Some(m))?;
                self.import(m, imported, *span)?;
                if self.modules[m].kind == ModuleKind::Theory
                    && self.modules[imported].kind == ModuleKind::Module
                {
                    self.modules[m].shared.push(imported);
                }
                Ok(())
            }
            Decl::Sorts { sorts, .. } => {
                for s in sorts {
                    let name = self.rename_sort(m, &s.name);
                    if let Some(&old) = self.modules[m].sorts.get(&name) {
                        if self.modules[m].own_sorts.contains(&old) {
                            return Err(Diag::at(
                                s.span,
                                format!("sort `{name}` is declared twice"),
                                "declared again here",
                            ));
                        }
                        // An imported sort declared again is that sort, as in Maude
                        // (which warns): `sorts Zero Num .` beside `protecting INT .`.
                        continue;
                    }
                    let id = self.program.sig.add_sort(name.clone(), Some(s.span));
                    let module = &mut self.modules[m];
                    module.sorts.insert(name.clone(), id);
                    module.export_sorts.insert(name, id);
                    module.own_sorts.push(id);
                    if module.kind == ModuleKind::Theory {
                        module.param_sorts.push(id);
                    }
                }
                Ok(())
            }
            Decl::Subsorts { chain, .. } => {
                let mut levels = Vec::new();
                for level in chain {
                    let mut ids = Vec::new();
                    for s in level {
                        ids.push(self.sort(m, s)?);
                    }
                    levels.push(ids);
                }
                for w in levels.windows(2) {
                    for &a in &w[0] {
                        for &b in &w[1] {
                            if self.program.sig.leq(b, a) && a != b {
                                return Err(Diag::at(
                                    chain[0][0].span.to(chain[chain.len() - 1][0].span),
                                    "cyclic subsort declaration",
                                    "this would make two sorts subsorts of each other",
                                ));
                            }
                            self.program.sig.add_subsort(a, b);
                        }
                    }
                }
                Ok(())
            }
            Decl::Op {
                names,
                args,
                result,
                attrs,
                span,
            } => {
                let arg_sorts = args
                    .iter()
                    .map(|a| self.sort(m, a))
                    .collect::<Result<Vec<_>, _>>()?;
                let res = self.sort(m, result)?;
                for name in names {
                    let form = op_form(&name.name, arg_sorts.len())
                        .map_err(|msg| Diag::at(name.span, msg, "in this operator name"))?;
                    let op_attrs = self.op_attrs(m, attrs, &form, &arg_sorts, res)?;
                    if op_attrs.assoc && (arg_sorts.len() != 2) {
                        return Err(Diag::at(
                            name.span,
                            "an `assoc` operator must be binary",
                            "not binary",
                        ));
                    }
                    // `f(f(a, b), c)` must be well formed: the result is an argument again
                    // (Maude refuses the declaration too).
                    let sig = &self.program.sig;
                    let declared = || {
                        let args: Vec<&str> = arg_sorts
                            .iter()
                            .map(|&a| sig.sort(a).name.as_str())
                            .collect();
                        format!(
                            "{} : {} -> {}",
                            name.name,
                            args.join(" "),
                            sig.sort(res).name
                        )
                    };
                    if op_attrs.assoc && arg_sorts.iter().any(|&a| !sig.same_kind(a, res)) {
                        return Err(Diag::at(
                            name.span,
                            format!(
                                "an `assoc` operator's arguments and result must be of one kind, and `{}` mixes kinds",
                                declared()
                            ),
                            "its result cannot be its argument",
                        ));
                    }
                    // `comm` swaps the arguments: `b * a` must be well formed too.
                    if op_attrs.comm
                        && (arg_sorts.len() != 2 || !sig.same_kind(arg_sorts[0], arg_sorts[1]))
                    {
                        return Err(Diag::at(
                            name.span,
                            format!(
                                "a `comm` operator takes two arguments of one kind, and `{}` does not",
                                declared()
                            ),
                            "its arguments cannot be swapped",
                        ));
                    }
                    // The same name on the same argument sorts is one operator twice,
                    // unless the results are of unrelated kinds (`nil` of lists and of
                    // trees, which Maude allows too): the context tells them apart.
                    let sig = &self.program.sig;
                    let same_name = self.modules[m].own_by_name.get(&name.name);
                    let dup = same_name.is_some_and(|ops| {
                        ops.iter().any(|&o| {
                            let i = sig.op(o);
                            i.args == arg_sorts && sig.same_kind(i.result, res)
                        })
                    });
                    if dup {
                        return Err(Diag::at(
                            name.span,
                            format!(
                                "operator `{}` is declared twice with the same argument sorts",
                                name.name
                            ),
                            "declared again here",
                        ));
                    }
                    let info = OpInfo {
                        name: name.name.clone(),
                        form,
                        args: arg_sorts.clone(),
                        result: res,
                        attrs: op_attrs,
                        span: Some(*span),
                        module: self.modules[m].name.clone(),
                        overloads: Vec::new(),
                    };
                    let id = self.program.sig.add_op(info);
                    self.add_visible_op(m, id);
                    let module = &mut self.modules[m];
                    module.own_ops.push(id);
                    (module.own_by_name.entry(name.name.clone()).or_default()).push(id);
                    if module.kind == ModuleKind::Theory {
                        module.param_ops.push(id);
                    }
                }
                Ok(())
            }
            Decl::Vars { names, sort, span } => {
                let s = self.sort(m, sort)?;
                let library = self.library_files.contains(&span.file);
                for n in names {
                    let module = &mut self.modules[m];
                    module.vars.insert(n.name.clone(), s);
                    if library {
                        module.library_vars.insert(n.name.clone());
                    } else {
                        module.library_vars.remove(&n.name);
                    }
                }
                Ok(())
            }
            Decl::Eq {
                lhs,
                rhs,
                cond,
                attrs,
                span,
            } => {
                let mut eqs = self.equation(m, lhs, rhs, cond.as_ref(), attrs, *span)?;
                if let Some(ops) = self.successor_ops {
                    for eq in &mut eqs {
                        super::successor::read_successors(eq, ops, &self.program.sig)?;
                    }
                }
                let executable = self.modules[m].kind == ModuleKind::Module && !check_only;
                for eq in eqs.into_iter().filter(|_| executable) {
                    let extended = extensions(&self.program.sig, &eq);
                    let collapsed = identity_variants(&self.program.sig, &eq);
                    self.program.equations.push(eq);
                    self.program.equations.extend(extended);
                    self.program.equations.extend(collapsed);
                }
                Ok(())
            }
        }
    }

    /// `Set{X}` inside `SET{X :: TRIV}` instantiated with `TwoHeaps` is `Set{TwoHeaps}`.
    fn rename_sort(&self, m: ModuleId, name: &str) -> String {
        let params = &self.modules[m].params;
        if params.is_empty() || !name.contains('{') {
            return name.to_string();
        }
        let mut out = String::new();
        let mut word = String::new();
        let flush = |word: &mut String, out: &mut String| {
            let replaced = params
                .iter()
                .find(|p| p.param == *word)
                .map(|p| p.binding.display.clone());
            out.push_str(&replaced.unwrap_or_else(|| word.clone()));
            word.clear();
        };
        let mut depth = 0;
        for ch in name.chars() {
            match ch {
                '{' | '}' | ',' => {
                    if depth > 0 {
                        flush(&mut word, &mut out);
                    } else {
                        out.push_str(&word);
                        word.clear();
                    }
                    if ch == '{' {
                        depth += 1;
                    } else if ch == '}' {
                        depth -= 1;
                    }
                    out.push(ch);
                }
                _ => word.push(ch),
            }
        }
        out.push_str(&word);
        out
    }

    pub(super) fn sort(&self, m: ModuleId, s: &ast::SortRef) -> Result<SortId, Diag> {
        let name = self.rename_sort(m, &s.name);
        self.modules[m]
            .sorts
            .get(&name)
            .copied()
            .ok_or_else(|| self.unknown_sort(m, &name, s.span))
    }

    /// The constant of `id: c` whose `id:` is `attrs[i]`.
    fn identity_attr(
        &self,
        m: ModuleId,
        attrs: &TokenRun,
        i: usize,
        res: SortId,
    ) -> Result<OpId, Diag> {
        let t = &attrs[i];
        let Some(c) = attrs.get(i + 1) else {
            return Err(Diag::at(
                t.span,
                "`id:` needs a constant",
                "expected the identity element after this",
            ));
        };
        let sig = &self.program.sig;
        let found = self.modules[m].ops.iter().copied().find(|&o| {
            let oi = sig.op(o);
            oi.name == c.text && oi.args.is_empty() && sig.same_kind(oi.result, res)
        });
        // A numeral is a constant of the module's where it declares one (Peano
        // style `op 0 : -> N`, `[id: 0]`); a built-in number cannot be one.
        if found.is_none() && c.text.parse::<i64>().is_ok() {
            return Err(Diag::at(
                c.span,
                format!("a number (`{}`) cannot be an identity here", c.text),
                "not a declared constant",
            )
            .note("an identity must be a constant operator of the operator's kind, e.g. `op none : -> Cond [ctor] .` then `[id: none]`; built-in numbers are not supported as identities"));
        }
        found.ok_or_else(|| {
            Diag::at(
                c.span,
                format!(
                    "no constant `{}` of this operator's kind to be its identity",
                    c.text
                ),
                "declare it (`op … : -> …`) in the module or one it imports",
            )
        })
    }

    fn op_attrs(
        &self,
        m: ModuleId,
        attrs: &TokenRun,
        form: &[PatPiece],
        args: &[SortId],
        res: SortId,
    ) -> Result<OpAttrs, Diag> {
        let open = matches!(form.first(), Some(PatPiece::Hole))
            || matches!(form.last(), Some(PatPiece::Hole));
        // Maude's default precedences: 15 for a unary open operator (`s_`, `-_`), so that
        // `s s 0 + s 0` is `(s s 0) + (s 0)`; 41 for other open operators.
        let default_prec = match (open, args.len()) {
            (false, _) => 0,
            (true, 1) => 15,
            (true, _) => 41,
        };
        let mut a = OpAttrs {
            prec: default_prec,
            ..OpAttrs::default()
        };
        let mut i = 0;
        while i < attrs.len() {
            let t = &attrs[i];
            match t.text.as_str() {
                "ctor" => a.ctor = true,
                "assoc" => a.assoc = true,
                "comm" => a.comm = true,
                "idem" => a.idem = true,
                "memo" => a.memo = true,
                "weak" => a.weak = true,
                "id:" => {
                    a.identity = Some(self.identity_attr(m, attrs, i, res)?);
                    i += 1;
                }
                // Maude's one-sided identities: `x op e = x` (`right id: e`) or
                // `e op x = x` (`left id: e`); both sides for a `comm` operator.
                side @ ("left" | "right") if attrs.get(i + 1).is_some_and(|n| n.text == "id:") => {
                    let c = self.identity_attr(m, attrs, i + 1, res)?;
                    if side == "left" {
                        a.left_identity = Some(c);
                    } else {
                        a.right_identity = Some(c);
                    }
                    i += 2;
                }
                "prec" => {
                    let n = attrs.get(i + 1).and_then(|n| n.text.parse::<u32>().ok());
                    a.prec = n.ok_or_else(|| {
                        Diag::at(t.span, "`prec` needs a number", "e.g. `prec 33`")
                    })?;
                    i += 1;
                }
                "builtin" => {
                    let Some(n) = attrs.get(i + 1) else {
                        return Err(Diag::at(t.span, "`builtin` needs a name", "here"));
                    };
                    a.builtin = Some(builtin(&n.text).ok_or_else(|| {
                        Diag::at(
                            n.span,
                            format!("unknown built-in `{}`", n.text),
                            "not a built-in operation",
                        )
                    })?);
                    i += 1;
                }
                "gather" => {
                    // `gather (E e)`: one of `e`, `E`, `&` per argument.
                    let open_at = attrs.get(i + 1).filter(|n| n.text == "(");
                    let close =
                        open_at.and_then(|_| (i + 2..attrs.len()).find(|&k| attrs[k].text == ")"));
                    let (Some(_), Some(close)) = (open_at, close) else {
                        return Err(Diag::at(
                            t.span,
                            "`gather` needs a pattern in parentheses",
                            "expected `(…)` after this",
                        )
                        .note("one of `e` (an argument of lower precedence), `E` (at most the operator's) and `&` (any) per argument: `gather (E e)`"));
                    };
                    // `(E e)` may come as one word `E e` split by spaces, or as `Ee`.
                    let letters: String = attrs[i + 2..close]
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect();
                    let pattern: Option<Vec<Gather>> = letters
                        .chars()
                        .map(|c| match c {
                            'e' => Some(Gather::Below),
                            'E' => Some(Gather::AtMost),
                            '&' => Some(Gather::Any),
                            _ => None,
                        })
                        .collect();
                    let whole = attrs[i + 1].span.to(attrs[close].span);
                    match pattern {
                        Some(p) if p.len() == args.len() => a.gather = Some(p),
                        Some(p) => {
                            return Err(Diag::at(
                                whole,
                                format!(
                                    "`gather` has {} entries for an operator of {} arguments",
                                    p.len(),
                                    args.len()
                                ),
                                "one entry per argument",
                            ))
                        }
                        None => {
                            return Err(Diag::at(whole, "a `gather` pattern is made of `e`, `E` and `&`", "here")
                                .note("`e`: an argument of lower precedence than the operator; `E`: at most the operator's; `&`: any"))
                        }
                    }
                    i = close;
                }
                "format" => {
                    // Accepted for Maude compatibility (a layout for printing): skip the
                    // parenthesised list.
                    if attrs.get(i + 1).is_some_and(|n| n.text == "(") {
                        let mut depth = 0;
                        i += 1;
                        while i < attrs.len() {
                            match attrs[i].text.as_str() {
                                "(" => depth += 1,
                                ")" => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            i += 1;
                        }
                    }
                }
                other => {
                    let known = [
                        "ctor",
                        "assoc",
                        "comm",
                        "idem",
                        "id:",
                        "left id:",
                        "right id:",
                        "memo",
                        "prec",
                        "gather",
                        "format",
                    ];
                    let mut d = Diag::at(
                        t.span,
                        format!("unknown operator attribute `{other}`"),
                        "not an attribute",
                    );
                    let hints = suggest(other, known);
                    if !hints.is_empty() {
                        d = d.note(format!("did you mean {}?", quote_list(&hints)));
                    }
                    // Maude's attributes gamelang does not have, with what to do instead.
                    let instead = match other {
                        "ditto" => Some("`ditto` (the attributes of another declaration of the operator) is not supported: write them out"),
                        "iter" | "frozen" | "strat" | "poly" | "special" | "config" | "object" | "msg" => {
                            Some("this Maude attribute is not supported (docs/language.md, Maude compatibility)")
                        }
                        _ => None,
                    };
                    if let Some(instead) = instead {
                        d = d.note(instead);
                    }
                    return Err(d.note(format!("operator attributes: {}", known.join(", "))));
                }
            }
            i += 1;
        }
        if a.comm && args.len() != 2 {
            return Err(Diag::at(
                attrs[0].span,
                "a `comm` operator must be binary",
                "here",
            ));
        }
        // For a commutative operator an identity on one side is one on both.
        if a.comm && a.identity.is_none() {
            a.identity = a.left_identity.or(a.right_identity);
        }
        if a.comm {
            (a.left_identity, a.right_identity) = (None, None);
        }
        if (a.left_identity.is_some() || a.right_identity.is_some()) && args.len() != 2 {
            return Err(Diag::at(
                attrs[0].span,
                "an operator with `left id:` or `right id:` must be binary",
                "here",
            ));
        }
        Ok(a)
    }

    pub(super) fn equation(
        &mut self,
        m: ModuleId,
        lhs: &TokenRun,
        rhs: &TokenRun,
        cond: Option<&TokenRun>,
        attrs: &TokenRun,
        span: Span,
    ) -> Result<Vec<Equation>, Diag> {
        let mut owise = false;
        let mut nonexec = false;
        let mut i = 0;
        while i < attrs.len() {
            match attrs[i].text.as_str() {
                "owise" | "otherwise" => owise = true,
                "nonexec" => nonexec = true,
                "label" | "metadata" => i += 1,
                other => {
                    return Err(Diag::at(
                        attrs[i].span,
                        format!("unknown equation attribute `{other}`"),
                        "not an attribute",
                    )
                    .note("equation attributes: owise, nonexec, label NAME"));
                }
            }
            i += 1;
        }
        let grammar = self.grammar(m);
        let sig = &self.program.sig;
        let mut vars = EqVars {
            module: &self.modules[m],
            user: !self.library_files.contains(&span.file),
            table: Vec::new(),
            spans: Vec::new(),
        };
        let (l, lsort) = mixfix::parse_term(sig, &grammar, lhs, &mut vars, None)?;
        let lhs_span = lhs[0].span.to(lhs[lhs.len() - 1].span);
        if !matches!(l, Pat::App(..)) {
            return Err(Diag::at(
                lhs_span,
                "the left-hand side of an equation must be an operator application",
                "a variable or a number cannot be rewritten",
            ));
        }
        let lhs_vars = vars.table.len();
        let parts = cond.map(|c| binding::condition_parts(c)).transpose()?;
        if let Some(parts) = parts.filter(|ps| ps.iter().any(|p| binding::binding_at(p).is_some()))
        {
            // Matching conditions bind variables for what follows them: the condition is
            // read first, then the right-hand side (see `binding`).
            let mut bound = lhs_vars;
            let mut items = Vec::new();
            for part in parts {
                match binding::binding_at(part) {
                    Some(k) => {
                        let (subject, sort) =
                            mixfix::parse_term(sig, &grammar, &part[k + 1..], &mut vars, None)?;
                        if !nonexec {
                            unbound(&vars, bound, &part[k + 1..], (span, lhs_span), true)?;
                        }
                        if k == 0 {
                            return Err(Diag::at(
                                part[0].span,
                                "a matching condition needs a pattern before `:=`",
                                "nothing to match",
                            ));
                        }
                        let (pattern, _) =
                            mixfix::parse_term(sig, &grammar, &part[..k], &mut vars, Some(sort))?;
                        bound = vars.table.len();
                        items.push(binding::CondPart::Match {
                            pattern,
                            subject,
                            sort,
                        });
                    }
                    None => {
                        let test = condition_part(sig, &grammar, part, &mut vars, self.equal_op)?;
                        if !nonexec {
                            unbound(&vars, bound, part, (span, lhs_span), true)?;
                        }
                        items.push(binding::CondPart::Test(test));
                    }
                }
            }
            let (r, rsort) = mixfix::parse_term(sig, &grammar, rhs, &mut vars, Some(lsort))?;
            if !nonexec {
                unbound(&vars, bound, rhs, (span, lhs_span), true)?;
            }
            // (The sides' kinds agree: the right one was read at the left one's.)
            debug_assert!(sig.same_kind(lsort, rsort));
            if nonexec {
                return Ok(Vec::new());
            }
            let parts = binding::Parts {
                lhs: l,
                sort: lsort,
                cond: items,
                rhs: r,
                owise,
                vars: vars.table,
                span,
                module: self.modules[m].name.clone(),
            };
            return Ok(self.bind_matches(parts));
        }
        // The right side is read at the left side's kind (which settles overloaded
        // constants such as `empty`); if it has no reading there, say how the sorts differ.
        let (r, rsort) = match mixfix::parse_term(sig, &grammar, rhs, &mut vars, Some(lsort)) {
            Ok(x) => x,
            Err(e) => match mixfix::parse_term(sig, &grammar, rhs, &mut vars, None) {
                Ok((_, other)) => (Pat::Int(0), other),
                Err(_) => return Err(e),
            },
        };
        if !sig.same_kind(lsort, rsort) {
            let rhs_span = rhs[0].span.to(rhs[rhs.len() - 1].span);
            return Err(Diag::at(
                rhs_span,
                format!(
                    "the sides of this equation have unrelated sorts: `{}` and `{}`",
                    sig.sort(lsort).name,
                    sig.sort(rsort).name
                ),
                format!("of sort `{}`", sig.sort(rsort).name),
            )
            .secondary(lhs_span, format!("of sort `{}`", sig.sort(lsort).name)));
        }
        let c = match cond {
            None => None,
            Some(cond) => Some(condition(
                sig,
                &grammar,
                cond,
                &mut vars,
                self.equal_op,
                self.and_then_op,
            )?),
        };
        // Every variable used on the right or in the condition must be bound by the left.
        let written: Vec<Token> = rhs
            .iter()
            .chain(cond.into_iter().flatten())
            .cloned()
            .collect();
        // (A `nonexec` equation is never run: it may have variables of its own, as in
        // Maude, where a theory's axioms often do.)
        if !nonexec {
            unbound(&vars, lhs_vars, &written, (span, lhs_span), false)?;
        }
        // The simplest loop there is (`eq foo = foo .`, often a typo): the term rewrites
        // to itself forever, until the step budget runs out minutes later.
        if l == r && !nonexec {
            let rhs_span = rhs[0].span.to(rhs[rhs.len() - 1].span);
            return Err(Diag::at(
                rhs_span,
                "this equation rewrites its left-hand side to itself",
                "the same term as the left-hand side",
            )
            .secondary(lhs_span, "the left-hand side")
            .note(if c.is_some() {
                "whenever its condition holds, the reduction would never end"
            } else {
                "the reduction would never end; did you mean another operator on the right?"
            }));
        }
        if nonexec {
            return Ok(Vec::new());
        }
        Ok(vec![Equation {
            lhs: l,
            rhs: r,
            cond: c,
            owise,
            vars: vars.table,
            span,
            module: self.modules[m].name.clone(),
        }])
    }
}

/// For an equation whose left-hand side is headed by an `assoc` operator, `f(p1, …, pn)`,
/// the same equation applied to part of a larger term, as Maude matches it (with an
/// *extension*), each a fresh variable of the operator's result sort:
///
/// - `assoc comm`: `f(p1, …, pn, E) = f(R, E)`. Without it, `eq N ; N = N .` would only
///   rewrite a multiset of exactly two elements.
/// - `assoc` alone: the part may have elements on its left, its right or both:
///   `f(L, p1, …, pn) = f(L, R)`, `f(p1, …, pn, E) = f(R, E)` and
///   `f(L, p1, …, pn, E) = f(L, R, E)`. Without them, `eq a . b = c .` left `x . a . b`
///   as it was, where Maude gives `x . c`.
///
/// The extended equations are tried after the original, in that order.
fn extensions(sig: &crate::program::Signature, eq: &Equation) -> Vec<Equation> {
    let Pat::App(op, args) = &eq.lhs else {
        return Vec::new();
    };
    let info = sig.op(*op);
    if !info.attrs.assoc || args.len() < 2 {
        return Vec::new();
    }
    let sides: &[(bool, bool)] = if info.attrs.comm {
        &[(false, true)]
    } else {
        &[(true, false), (false, true), (true, true)]
    };
    sides
        .iter()
        .map(|&(left, right)| {
            let mut e = eq.clone();
            let mut fresh = |name: &str| {
                e.vars.push(VarInfo {
                    name: name.into(),
                    sort: info.result,
                });
                Pat::Var(e.vars.len() as u32 - 1)
            };
            let l = left.then(|| fresh("%left-extension"));
            let r = right.then(|| fresh("%extension"));
            let mut lhs_args: Vec<Pat> = l.iter().cloned().collect();
            lhs_args.extend(args.iter().cloned());
            lhs_args.extend(r.iter().cloned());
            let mut rhs_args: Vec<Pat> = l.into_iter().collect();
            rhs_args.push(eq.rhs.clone());
            rhs_args.extend(r);
            e.lhs = Pat::App(*op, lhs_args);
            e.rhs = Pat::App(*op, rhs_args);
            e
        })
        .collect()
}

/// Variants of an equation for identity matching where the matcher does not do it: an
/// operator with `id:` but not `assoc` (`_+_ [comm id: e]`), or with `left id:` or
/// `right id:`. As in Maude, the pattern `U + A` matches a lone `a` with `U = e`: the
/// subject `a + e` is kept as `a`, so the left-hand side's application must collapse too.
/// Each variant drops a variable argument that may be the identity (any, the first or the
/// last, as the attribute says; one whose sort the identity belongs to) and puts the
/// identity for that variable everywhere in the equation: `n(U + A) = 1 + n(U)` gives
/// `n(A) = 1 + n(e)`. Collapses nest (a few levels at most); the variants are tried after
/// the equation itself. (`assoc` with `id:` is the matcher's: it matches lists with the
/// identity as an empty part.) Without them, `n(a + a + a)` was 2 under `eq n(U + A) = 1 +
/// n(U)` and `eq n(U) = 0 [owise]`, where Maude gives 3.
fn identity_variants(sig: &crate::program::Signature, eq: &Equation) -> Vec<Equation> {
    /// Variants at most, per equation.
    const MAX: usize = 16;
    let mut out: Vec<Equation> = Vec::new();
    let mut todo = vec![eq.clone()];
    while let Some(e) = todo.pop() {
        for (lhs, var, id) in collapses(sig, &e.lhs, &e.vars) {
            if out.len() >= MAX {
                return out;
            }
            if out.iter().any(|o| o.lhs == lhs) || lhs == eq.lhs {
                continue;
            }
            let with = Pat::App(id, Vec::new());
            let mut v = e.clone();
            v.lhs = substitute(&lhs, var, &with);
            v.rhs = substitute(&e.rhs, var, &with);
            v.cond = e.cond.as_ref().map(|c| substitute(c, var, &with));
            todo.push(v.clone());
            out.push(v);
        }
    }
    out
}

/// The patterns `p` collapses to by one identity argument dropped (see
/// [`identity_variants`]), each with the variable dropped and the identity it stands for.
fn collapses(
    sig: &crate::program::Signature,
    p: &Pat,
    vars: &[VarInfo],
) -> Vec<(Pat, u32, crate::program::OpId)> {
    let Pat::App(op, args) = p else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let a = &sig.op(*op).attrs;
    let full = a.identity.filter(|_| !a.assoc);
    let sides = [
        (full.or(a.left_identity), 0usize),
        (full.or(a.right_identity), args.len().wrapping_sub(1)),
    ];
    if args.len() >= 2 {
        for (i, arg) in args.iter().enumerate() {
            let Pat::Var(v) = arg else { continue };
            let id = match full {
                Some(id) => Some(id),
                None => sides
                    .iter()
                    .find(|(id, at)| id.is_some() && *at == i)
                    .and_then(|s| s.0),
            };
            let Some(id) = id else { continue };
            if !sig.leq(sig.op(id).result, vars[*v as usize].sort) {
                continue;
            }
            let mut rest: Vec<Pat> = args.clone();
            rest.remove(i);
            let collapsed = if rest.len() == 1 {
                rest.pop().expect("one argument")
            } else {
                Pat::App(*op, rest)
            };
            out.push((collapsed, *v, id));
        }
    }
    // Below the top: the same in each argument, the rest kept.
    for (i, arg) in args.iter().enumerate() {
        for (q, v, id) in collapses(sig, arg, vars) {
            let mut args = args.clone();
            args[i] = q;
            out.push((Pat::App(*op, args), v, id));
        }
    }
    out
}

/// `p` with the variable `var` replaced by `with`.
fn substitute(p: &Pat, var: u32, with: &Pat) -> Pat {
    match p {
        Pat::Var(v) if *v == var => with.clone(),
        Pat::App(op, args) => {
            Pat::App(*op, args.iter().map(|a| substitute(a, var, with)).collect())
        }
        other => other.clone(),
    }
}

/// The variables of one equation: declared ones (`var c : Config .`) and inline ones
/// (`c:Config`), numbered in order of first occurrence.
pub(super) struct EqVars<'a> {
    module: &'a Module,
    /// The equation is the user's (not the standard library's): the module's library
    /// variables are not in scope.
    user: bool,
    table: Vec<VarInfo>,
    spans: Vec<Span>,
}

/// The variables of a term to reduce (Maude's `red s 0 + N .`), with the user's scope.
pub(super) fn term_vars(module: &Module) -> EqVars<'_> {
    EqVars {
        module,
        user: true,
        table: Vec::new(),
        spans: Vec::new(),
    }
}

impl EqVars<'_> {
    /// The variables met, in order of their indices.
    pub(super) fn into_table(self) -> Vec<VarInfo> {
        self.table
    }

    fn index(&mut self, name: &str, sort: SortId) -> u32 {
        if let Some(i) = self
            .table
            .iter()
            .position(|v| v.name == name && v.sort == sort)
        {
            return i as u32;
        }
        self.table.push(VarInfo {
            name: name.to_string(),
            sort,
        });
        self.spans.push(Span::new(FileId(0), 0, 0));
        (self.table.len() - 1) as u32
    }
}

impl VarScope for EqVars<'_> {
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)> {
        if let Some(&s) = self.module.vars.get(name) {
            if !(self.user && self.module.library_vars.contains(name)) {
                return Some((self.index(name, s), s));
            }
        }
        // An inline variable used again without its sort.
        let v = self.table.iter().position(|v| v.name == name)?;
        Some((v as u32, self.table[v].sort))
    }
    fn inline(&mut self, name: &str, sort: &str) -> Option<(u32, SortId)> {
        let s = *self.module.sorts.get(sort)?;
        Some((self.index(name, s), s))
    }
    fn names(&self) -> Vec<String> {
        self.module
            .vars
            .keys()
            .filter(|n| !(self.user && self.module.library_vars.contains(*n)))
            .cloned()
            .collect()
    }
    fn sort_names(&self) -> Vec<String> {
        self.module.sorts.keys().cloned().collect()
    }
}

/// An error if the equation's variables past the first `bound` ones are used: the first
/// of them, located at its first token in `written` (the right-hand side or a condition);
/// `matching`: the equation has matching conditions, which bind variables too.
fn unbound(
    vars: &EqVars<'_>,
    bound: usize,
    written: &[Token],
    (span, lhs_span): (Span, Span),
    matching: bool,
) -> Result<(), Diag> {
    let Some(v) = vars.table.get(bound) else {
        return Ok(());
    };
    let name = &v.name;
    let inline = format!("{name}:");
    let s = written
        .iter()
        .find(|t| t.text == *name || t.text.starts_with(&inline))
        .map_or(span, |t| t.span);
    let mut d = Diag::at(
        s,
        format!("variable `{name}` does not occur in the left-hand side"),
        "unbound: the equation could not give it a value",
    )
    .secondary(lhs_span, "the left-hand side");
    if matching {
        d = d.note("a variable is bound by the left-hand side, or by the pattern of a matching condition `P := T` before its use");
    }
    Err(d)
}

/// A condition `C1 /\ C2 /\ …` where each part is a Bool term or `t = u`, as one Bool term.
fn condition(
    sig: &crate::program::Signature,
    grammar: &Grammar,
    toks: &TokenRun,
    vars: &mut dyn VarScope,
    equal: Option<OpId>,
    and_then: Option<OpId>,
) -> Result<Pat, Diag> {
    let mut result: Option<Pat> = None;
    for part in binding::condition_parts(toks)? {
        let pat = condition_part(sig, grammar, part, vars, equal)?;
        result = Some(match result {
            None => pat,
            Some(prev) => Pat::App(and_then.expect("prelude defines and-then"), vec![prev, pat]),
        });
    }
    Ok(result.expect("at least one part"))
}

/// One part of a condition, a Bool term or `t = u` (as `t == u`).
fn condition_part(
    sig: &crate::program::Signature,
    grammar: &Grammar,
    part: &[Token],
    vars: &mut dyn VarScope,
    equal: Option<OpId>,
) -> Result<Pat, Diag> {
    let mut depth = 0;
    let eq_at = part.iter().position(|t| {
        match t.text.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        depth == 0 && t.text == "="
    });
    Ok(match eq_at {
        Some(k) => {
            let (a, asort) = mixfix::parse_term(sig, grammar, &part[..k], vars, None)?;
            let (b, _) = mixfix::parse_term(sig, grammar, &part[k + 1..], vars, Some(asort))?;
            Pat::App(equal.expect("prelude defines _==_"), vec![a, b])
        }
        None => mixfix::parse_term(sig, grammar, part, vars, sig.bool_sort)?.0,
    })
}

/// The mixfix form of an operator name: `_,_` → hole `,` hole; `f` with arity 2 → `f ( _ , _ )`.
pub fn op_form(name: &str, arity: usize) -> Result<Vec<PatPiece>, String> {
    if !name.contains('_') {
        if arity == 0 {
            return Ok(vec![PatPiece::Lit(name.to_string())]);
        }
        let mut form = vec![PatPiece::Lit(name.to_string()), PatPiece::Lit("(".into())];
        for i in 0..arity {
            if i > 0 {
                form.push(PatPiece::Lit(",".into()));
            }
            form.push(PatPiece::Hole);
        }
        form.push(PatPiece::Lit(")".into()));
        return Ok(form);
    }
    let mut form = Vec::new();
    let mut lit = String::new();
    for ch in name.chars() {
        let self_delimiting = matches!(ch, '(' | ')' | '[' | ']' | '{' | '}' | ',');
        if ch == '_' || self_delimiting {
            if !lit.is_empty() {
                form.push(PatPiece::Lit(std::mem::take(&mut lit)));
            }
            if ch == '_' {
                form.push(PatPiece::Hole);
            } else {
                form.push(PatPiece::Lit(ch.to_string()));
            }
        } else {
            lit.push(ch);
        }
    }
    if !lit.is_empty() {
        form.push(PatPiece::Lit(lit));
    }
    let holes = form.iter().filter(|p| **p == PatPiece::Hole).count();
    if holes != arity {
        return Err(format!("the name `{name}` has {holes} argument place(s) `_`, but the operator is declared with {arity} argument sort(s)"));
    }
    Ok(form)
}
