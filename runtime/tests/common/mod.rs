//! Test helper: build small programs by hand.
//!
//! Terms are written as bracketed prefix expressions: `[w p [_,_ c S]]`, integers as
//! `5` / `-3`, constants and variables bare. Operator attributes are a string:
//! `"ctor assoc comm idem id:empty memo prec:41"`.

#![allow(dead_code)]

use gamelang_lang::program::{
    Builtin, Equation, OpAttrs, OpId, OpInfo, Pat, PatPiece, Program, Signature, SortId, VarInfo,
};
use gamelang_lang::span::{FileId, Span};
use gamelang_runtime::{Engine, TermId};
use std::collections::HashMap;
use std::sync::Arc;

pub struct Spec {
    pub sig: Signature,
    pub eqs: Vec<Equation>,
    pub ops: HashMap<String, OpId>,
    pub sorts: HashMap<String, SortId>,
}

/// The mixfix form of a declared name, as the elaborator builds it.
pub fn form_of(name: &str, nargs: usize) -> Vec<PatPiece> {
    if name.contains('_') {
        let mut form = Vec::new();
        let mut lit = String::new();
        for ch in name.chars() {
            if ch == '_' {
                if !lit.is_empty() {
                    form.push(PatPiece::Lit(std::mem::take(&mut lit)));
                }
                form.push(PatPiece::Hole);
            } else {
                lit.push(ch);
            }
        }
        if !lit.is_empty() {
            form.push(PatPiece::Lit(lit));
        }
        form
    } else if nargs == 0 {
        vec![PatPiece::Lit(name.to_string())]
    } else {
        let mut form = vec![PatPiece::Lit(name.to_string()), PatPiece::Lit("(".into())];
        for i in 0..nargs {
            if i > 0 {
                form.push(PatPiece::Lit(",".into()));
            }
            form.push(PatPiece::Hole);
        }
        form.push(PatPiece::Lit(")".into()));
        form
    }
}

fn span() -> Span {
    Span::new(FileId(0), 0, 0)
}

impl Default for Spec {
    fn default() -> Self {
        Self::new()
    }
}

impl Spec {
    /// Bool, Nat < Int, a top sort `Top` above everything, and the built-in operators.
    pub fn new() -> Spec {
        let mut s = Spec {
            sig: Signature::default(),
            eqs: Vec::new(),
            ops: HashMap::new(),
            sorts: HashMap::new(),
        };
        s.sort("Top");
        let b = s.sort("Bool");
        let n = s.sort("Nat");
        let i = s.sort("Int");
        s.subsort("Nat", "Int");
        s.sig.bool_sort = Some(b);
        s.sig.nat_sort = Some(n);
        s.sig.int_sort = Some(i);
        let t = s.builtin("true", &[], "Bool", Builtin::True, 0);
        let f = s.builtin("false", &[], "Bool", Builtin::False, 0);
        s.sig.true_op = Some(t);
        s.sig.false_op = Some(f);
        use Builtin::*;
        for (name, args, res, b, prec) in [
            ("not_", &["Bool"][..], "Bool", Not, 53),
            ("_and_", &["Bool", "Bool"][..], "Bool", And, 55),
            ("_or_", &["Bool", "Bool"], "Bool", Or, 59),
            ("_xor_", &["Bool", "Bool"], "Bool", Xor, 57),
            ("_implies_", &["Bool", "Bool"], "Bool", Implies, 61),
            ("_and-then_", &["Bool", "Bool"], "Bool", AndThen, 55),
            ("_or-else_", &["Bool", "Bool"], "Bool", OrElse, 59),
            (
                "if_then_else_fi",
                &["Bool", "Top", "Top"],
                "Top",
                IfThenElse,
                0,
            ),
            ("_==_", &["Top", "Top"], "Bool", Equal, 51),
            ("_=/=_", &["Top", "Top"], "Bool", NotEqual, 51),
            ("_+_", &["Int", "Int"], "Int", Add, 33),
            ("_-_", &["Int", "Int"], "Int", Sub, 33),
            ("_*_", &["Int", "Int"], "Int", Mul, 31),
            ("_quo_", &["Int", "Int"], "Int", Quo, 31),
            ("_rem_", &["Int", "Int"], "Int", Rem, 31),
            ("-_", &["Int"], "Int", Neg, 15),
            ("abs", &["Int"], "Int", Abs, 0),
            ("min", &["Int", "Int"], "Int", Min, 0),
            ("max", &["Int", "Int"], "Int", Max, 0),
            ("_<_", &["Int", "Int"], "Bool", Lt, 37),
            ("_<=_", &["Int", "Int"], "Bool", Le, 37),
            ("_>_", &["Int", "Int"], "Bool", Gt, 37),
            ("_>=_", &["Int", "Int"], "Bool", Ge, 37),
            ("_divides_", &["Int", "Int"], "Bool", Divides, 51),
        ] {
            s.builtin(name, args, res, b, prec);
        }
        s
    }

    fn builtin(&mut self, name: &str, args: &[&str], res: &str, b: Builtin, prec: u32) -> OpId {
        let id = self.op(name, args, res, &format!("prec:{prec}"));
        self.sig.ops[id.0 as usize].attrs.builtin = Some(b);
        id
    }

    /// A set of `elem`s as games use them: the sort `set` above `elem`, the constant
    /// `empty` and the constructor `_,_` (assoc comm idem, identity `empty`). Returns `_,_`.
    pub fn set_of(&mut self, elem: &str, set: &str) -> OpId {
        self.subsort(elem, set);
        self.op("empty", &[], set, "ctor");
        self.op(
            "_,_",
            &[set, set],
            set,
            "ctor assoc comm idem id:empty prec:121",
        )
    }

    /// Get or declare a sort (every sort is below `Top`).
    pub fn sort(&mut self, name: &str) -> SortId {
        if let Some(s) = self.sorts.get(name) {
            return *s;
        }
        let s = self.sig.add_sort(name.to_string(), None);
        self.sorts.insert(name.to_string(), s);
        if let Some(&top) = self.sorts.get("Top") {
            self.sig.add_subsort(s, top);
        }
        s
    }

    pub fn subsort(&mut self, a: &str, b: &str) {
        let (a, b) = (self.sort(a), self.sort(b));
        self.sig.add_subsort(a, b);
    }

    /// Declare an operator; `attrs` like `"ctor assoc comm idem id:empty memo prec:41"`.
    pub fn op(&mut self, name: &str, args: &[&str], result: &str, attrs: &str) -> OpId {
        // Maude's defaults: 41 for open mixfix forms, 0 otherwise.
        let open = name.starts_with('_') || name.ends_with('_');
        let mut a = OpAttrs {
            prec: if open { 41 } else { 0 },
            ..OpAttrs::default()
        };
        for w in attrs.split_whitespace() {
            match w {
                "ctor" => a.ctor = true,
                "assoc" => a.assoc = true,
                "comm" => a.comm = true,
                "idem" => a.idem = true,
                "memo" => a.memo = true,
                _ if w.starts_with("id:") => a.identity = Some(self.id(&w[3..])),
                _ if w.starts_with("prec:") => a.prec = w[5..].parse().unwrap(),
                _ => panic!("unknown attribute {w}"),
            }
        }
        let args: Vec<SortId> = args.iter().map(|s| self.sort(s)).collect();
        let result = self.sort(result);
        let id = self.sig.add_op(OpInfo {
            name: name.to_string(),
            form: form_of(name, args.len()),
            args,
            result,
            attrs: a,
            span: None,
            module: "TEST".into(),
            overloads: Vec::new(),
        });
        self.ops.insert(name.to_string(), id);
        id
    }

    pub fn id(&self, name: &str) -> OpId {
        *self
            .ops
            .get(name)
            .unwrap_or_else(|| panic!("no operator {name}"))
    }

    fn vars(&mut self, vars: &str) -> Vec<VarInfo> {
        vars.split_whitespace()
            .map(|v| {
                let (n, s) = v.split_once(':').expect("name:Sort");
                VarInfo {
                    name: n.to_string(),
                    sort: self.sort(s),
                }
            })
            .collect()
    }

    /// Parse a bracketed prefix term; names in `vars` are variables.
    pub fn pat(&self, src: &str, vars: &[VarInfo]) -> Pat {
        let spaced = src.replace('[', " [ ").replace(']', " ] ");
        let toks: Vec<&str> = spaced.split_whitespace().collect();
        let mut pos = 0;
        let p = self.parse(&toks, &mut pos, vars);
        assert_eq!(pos, toks.len(), "trailing tokens in {src}");
        p
    }

    fn parse(&self, toks: &[&str], pos: &mut usize, vars: &[VarInfo]) -> Pat {
        let t = toks[*pos];
        *pos += 1;
        if t == "[" {
            let op = self.id(toks[*pos]);
            *pos += 1;
            let mut args = Vec::new();
            while toks[*pos] != "]" {
                args.push(self.parse(toks, pos, vars));
            }
            *pos += 1;
            Pat::App(op, args)
        } else if let Ok(i) = t.parse::<i64>() {
            Pat::Int(i)
        } else if let Some(v) = vars.iter().position(|v| v.name == t) {
            Pat::Var(v as u32)
        } else {
            Pat::App(self.id(t), vec![])
        }
    }

    fn push_eq(&mut self, vars: &str, lhs: &str, rhs: &str, cond: Option<&str>, owise: bool) {
        let vars = self.vars(vars);
        let eq = Equation {
            lhs: self.pat(lhs, &vars),
            rhs: self.pat(rhs, &vars),
            cond: cond.map(|c| self.pat(c, &vars)),
            owise,
            vars,
            span: span(),
            module: "TEST".into(),
        };
        self.eqs.push(eq);
    }

    pub fn eq(&mut self, vars: &str, lhs: &str, rhs: &str) {
        self.push_eq(vars, lhs, rhs, None, false);
    }

    pub fn ceq(&mut self, vars: &str, lhs: &str, rhs: &str, cond: &str) {
        self.push_eq(vars, lhs, rhs, Some(cond), false);
    }

    pub fn owise(&mut self, vars: &str, lhs: &str, rhs: &str) {
        self.push_eq(vars, lhs, rhs, None, true);
    }

    pub fn program(&self) -> Arc<Program> {
        let mut p = Program {
            sig: self.sig.clone(),
            equations: self.eqs.clone(),
            ..Program::default()
        };
        p.index();
        Arc::new(p)
    }

    pub fn engine(&self) -> Engine {
        Engine::new(self.program())
    }
}

/// Build a ground term in `e`.
pub fn term(spec: &Spec, e: &mut Engine, src: &str) -> TermId {
    let p = spec.pat(src, &[]);
    e.build(&p, &[])
}

/// Reduce a ground term and print the result.
pub fn red(spec: &Spec, e: &mut Engine, src: &str) -> String {
    let t = term(spec, e, src);
    match e.reduce(t) {
        Ok(v) => e.show(v),
        Err(err) => format!("ERROR: {}", e.describe(&err)),
    }
}

/// Lists of integers with append, naive reverse and a position-weighted checksum (the shape
/// of the `nrev` benchmark): `nil`, `cons`, `app`, `rev`, `chk` (`chk(L, 1)` is the sum of
/// `i * x_i`).
#[allow(dead_code)] // Not every test file uses it.
pub fn reverse_lists() -> Spec {
    let mut s = Spec::new();
    s.op("nil", &[], "List", "ctor");
    s.op("cons", &["Int", "List"], "List", "ctor");
    s.op("app", &["List", "List"], "List", "");
    s.op("rev", &["List"], "List", "");
    s.op("chk", &["List", "Int"], "Int", "");
    s.eq("m:List", "[app nil m]", "m");
    s.eq(
        "x:Int l:List m:List",
        "[app [cons x l] m]",
        "[cons x [app l m]]",
    );
    s.eq("", "[rev nil]", "nil");
    s.eq(
        "x:Int l:List",
        "[rev [cons x l]]",
        "[app [rev l] [cons x nil]]",
    );
    s.eq("i:Int", "[chk nil i]", "0");
    s.eq(
        "x:Int l:List i:Int",
        "[chk [cons x l] i]",
        "[_+_ [_*_ i x] [chk l [_+_ i 1]]]",
    );
    s
}

/// Bit lists, least significant bit outermost (`e` ends the list, `o` = 0, `i` = 1), with
/// increment, addition with carry and their value (the shape of the `binary-add`
/// benchmark): `inc`, `add`, `val`.
#[allow(dead_code)] // Not every test file uses it.
pub fn bit_lists() -> Spec {
    let mut s = Spec::new();
    s.op("e", &[], "Bin", "ctor");
    s.op("o", &["Bin"], "Bin", "ctor");
    s.op("i", &["Bin"], "Bin", "ctor");
    s.op("inc", &["Bin"], "Bin", "");
    s.op("add", &["Bin", "Bin"], "Bin", "");
    s.op("val", &["Bin"], "Int", "");
    s.eq("", "[inc e]", "[i e]");
    s.eq("a:Bin", "[inc [o a]]", "[i a]");
    s.eq("a:Bin", "[inc [i a]]", "[o [inc a]]");
    s.eq("b:Bin", "[add e b]", "b");
    s.eq("a:Bin", "[add [o a] e]", "[o a]");
    s.eq("a:Bin", "[add [i a] e]", "[i a]");
    s.eq("a:Bin b:Bin", "[add [o a] [o b]]", "[o [add a b]]");
    s.eq("a:Bin b:Bin", "[add [o a] [i b]]", "[i [add a b]]");
    s.eq("a:Bin b:Bin", "[add [i a] [o b]]", "[i [add a b]]");
    s.eq("a:Bin b:Bin", "[add [i a] [i b]]", "[o [inc [add a b]]]");
    s.eq("", "[val e]", "0");
    s.eq("a:Bin", "[val [o a]]", "[_*_ 2 [val a]]");
    s.eq("a:Bin", "[val [i a]]", "[_+_ [_*_ 2 [val a]] 1]");
    s
}

/// `bit_lists` with the loop of the `binary-add` benchmark, which builds a great deal of
/// garbage: `sumto(k, a, b)` is b + (a+1) + … + (a+k). `inc(a)` is written twice in the
/// right-hand side, so it is a shared slot.
#[allow(dead_code)] // Not every test file uses it.
pub fn sumto_bits() -> Spec {
    let mut s = bit_lists();
    s.op("sumto", &["Int", "Bin", "Bin"], "Bin", "");
    s.eq("a:Bin b:Bin", "[sumto 0 a b]", "b");
    s.owise(
        "k:Int a:Bin b:Bin",
        "[sumto k a b]",
        "[sumto [_-_ k 1] [inc a] [add b [inc a]]]",
    );
    s
}
