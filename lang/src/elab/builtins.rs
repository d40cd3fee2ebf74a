//! Built-ins: the names of `builtin` operator attributes, and the prelude's strings
//! (string literals become constants of sort `String`).

use super::{ModuleId, Session};
use crate::ast::{self, Decl, Item, Token, TokenRun, ViewMap};
use crate::program::{Builtin, OpAttrs, OpId, OpInfo, PatPiece, SortId};

impl Session {
    /// The prelude's `String` sort.
    pub fn string_sort(&self) -> Option<SortId> {
        self.program.sig.string_sort
    }

    /// The prelude's `_++_`.
    pub fn string_concat(&self) -> Option<OpId> {
        let b = self.bool_module?;
        let sig = &self.program.sig;
        self.modules[b]
            .ops
            .iter()
            .copied()
            .find(|&o| sig.op(o).name == "_++_")
    }

    /// Make every string literal (and quoted identifier) of a file a constant before its
    /// modules are elaborated, so that each module sees them through its (implicit) import
    /// of BOOL (its import of QID).
    pub(super) fn intern_file_literals(&mut self, ast: &ast::SourceFile) {
        let mut runs: Vec<&TokenRun> = Vec::new();
        for item in &ast.items {
            match item {
                Item::Module(m) => {
                    for d in &m.decls {
                        if let Decl::Eq { lhs, rhs, cond, .. } = d {
                            runs.push(lhs);
                            runs.push(rhs);
                            if let Some(c) = cond {
                                runs.push(c);
                            }
                        }
                    }
                }
                Item::View(v) => {
                    for map in &v.maps {
                        if let ViewMap::OpToTerm { to, .. } = map {
                            runs.push(to);
                        }
                    }
                }
                Item::Game(g) => runs.extend(g.fields.iter().map(|f| &f.value)),
                Item::Reduce(r) => runs.push(&r.term),
                Item::Setting(_) => {}
            }
        }
        let toks: Vec<Token> = runs.into_iter().flatten().cloned().collect();
        self.intern_literals(&toks, None);
    }

    /// String literals (`"X"`) among `toks` become constants of sort String, visible from
    /// BOOL (and so from every module elaborated later) and from `module`; quoted
    /// identifiers (`'hello`), constants of sort Qid, visible from QID (and so from every
    /// module elaborated later that imports it) and from `module` if it imports QID.
    pub(super) fn intern_literals(&mut self, toks: &[Token], module: Option<ModuleId>) {
        if let (Some(b), Some(string)) = (self.bool_module, self.string_sort()) {
            let char_sort = self.program.sig.char_sort;
            for t in toks {
                let text = &t.text;
                if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
                    // As in Maude, a string of one character is a `Char` (below `String`).
                    let sort = match char_sort {
                        Some(c) if crate::program::unquote_bytes(text).len() == 1 => c,
                        _ => string,
                    };
                    self.literal_constant(t, b, sort, module);
                }
            }
        }
        let Some(q) = self.qid_module else {
            return;
        };
        let Some(&qid) = self.modules[q].sorts.get("Qid") else {
            return;
        };
        let module = module.filter(|&m| self.modules[m].sorts.get("Qid") == Some(&qid));
        for t in toks {
            let text = &t.text;
            let quoted = text.len() >= 2
                && text.starts_with('\'')
                && !text[1..].starts_with(|c: char| c == '\'' || c.is_whitespace());
            if quoted {
                self.literal_constant(t, q, qid, module);
            }
        }
    }

    /// The constant named by the literal token `t`, of sort `sort`, declared (once) in the
    /// prelude's module `home` and made visible from `module` too.
    fn literal_constant(
        &mut self,
        t: &Token,
        home: ModuleId,
        sort: SortId,
        module: Option<ModuleId>,
    ) {
        let text = &t.text;
        let sig = &self.program.sig;
        let existing = (self.modules[home].ops.iter().copied())
            .find(|&o| sig.op(o).name == *text && sig.op(o).args.is_empty());
        let op = match existing {
            Some(op) => op,
            None => {
                let info = OpInfo {
                    name: text.clone(),
                    form: vec![PatPiece::Lit(text.clone())],
                    args: Vec::new(),
                    result: sort,
                    attrs: OpAttrs {
                        ctor: true,
                        ..OpAttrs::default()
                    },
                    span: Some(t.span),
                    module: self.modules[home].name.clone(),
                    overloads: Vec::new(),
                };
                let op = self.program.sig.add_op(info);
                self.add_visible_op(home, op);
                op
            }
        };
        if let Some(m) = module {
            self.add_visible_op(m, op);
        }
    }
}

pub(super) fn builtin(name: &str) -> Option<Builtin> {
    use Builtin::*;
    Some(match name {
        "true" => True,
        "false" => False,
        "not" => Not,
        "and" => And,
        "or" => Or,
        "xor" => Xor,
        "implies" => Implies,
        "and-then" => AndThen,
        "or-else" => OrElse,
        "if" => IfThenElse,
        "equal" => Equal,
        "not-equal" => NotEqual,
        "add" => Add,
        "sub" => Sub,
        "mul" => Mul,
        "quo" => Quo,
        "rem" => Rem,
        "neg" => Neg,
        "abs" => Abs,
        "min" => Min,
        "max" => Max,
        "lt" => Lt,
        "le" => Le,
        "gt" => Gt,
        "ge" => Ge,
        "divides" => Divides,
        "succ" => Succ,
        "gcd" => Gcd,
        "lcm" => Lcm,
        "sd" => Sd,
        "pow" => Pow,
        "modexp" => ModExp,
        "band" => BitAnd,
        "bor" => BitOr,
        "bxor" => BitXor,
        "bnot" => BitNot,
        "shl" => Shl,
        "shr" => Shr,
        "popcount" => Popcount,
        "lowbit" => Lowbit,
        "lowbit-index" => LowbitIndex,
        "grid-packed" => GridPacked,
        "grid-board" => GridBoard,
        "grid-initial" => GridInitial,
        "grid-moves" => GridMoves,
        "grid-holds" => GridHolds,
        "grid-at" => GridAt,
        "grid-columns" => GridColumns,
        "grid-rows" => GridRows,
        "grid-pieces" => GridPieces,
        // Finite maps (stdlib/map.game).
        "map-union" => MapUnion,
        "map-agree" => MapAgree,
        "map-get" => MapGet,
        "map-override" => MapOverride,
        "map-remove" => MapRemove,
        "map-in-dom" => MapInDom,
        "map-in-ran" => MapInRan,
        "map-only" => MapOnly,
        "map-size" => MapSize,
        "map-dom" => MapDom,
        "map-ran" => MapRan,
        // Finite sets (stdlib/set.game).
        "set-in" => SetIn,
        "set-size" => SetSize,
        "set-delete" => SetDelete,
        "set-intersection" => SetIntersection,
        "set-difference" => SetDifference,
        "set-subset" => SetSubset,
        "set-psubset" => SetProperSubset,
        // Strings (Maude's STRING and CONVERSION).
        "str-concat" => StrConcat,
        "str-length" => StrLength,
        "str-substr" => StrSubstr,
        "str-find" => StrFind,
        "str-rfind" => StrRFind,
        "str-lt" => StrLt,
        "str-le" => StrLe,
        "str-gt" => StrGt,
        "str-ge" => StrGe,
        "str-upper" => StrUpper,
        "str-lower" => StrLower,
        "str-ascii" => StrAscii,
        "str-char" => StrChar,
        "str-of-int" => StrOfInt,
        "int-of-str" => IntOfStr,
        _ => return None,
    })
}
