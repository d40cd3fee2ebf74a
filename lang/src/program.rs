//! The elaborated program: a global order-sorted signature and the equations, with terms as
//! trees over operator ids. This is what `lang` hands to `runtime`.
//!
//! Every module instance elaborates into the same global tables; a module is a *view* on
//! them (the sorts and operators it can see). Operator ids are unique per declaration per
//! module instance, so `_,_` of `SET{TwoHeaps}` and `_,_` of `SET{Nat}` are different ops.

use crate::span::Span;
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

/// A connected component of the subsort graph (Maude's "kind").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KindId(pub u32);

#[derive(Clone, Debug)]
pub struct SortInfo {
    pub name: String,
    pub span: Option<Span>,
    pub kind: KindId,
}

/// One piece of an operator's mixfix form: `if_then_else_fi` is
/// `[Lit("if"), Hole, Lit("then"), Hole, Lit("else"), Hole, Lit("fi")]`.
/// A prefix operator `f : A B -> C` has the form `[Lit("f"), Lit("("), Hole, Lit(","), Hole, Lit(")")]`
/// and a constant `c` the form `[Lit("c")]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatPiece {
    Hole,
    Lit(String),
}

/// Operations implemented natively on values (integers and Booleans).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    // Bool constants and connectives. `and`, `or`, … are strict; `and-then`, `or-else`
    // and `if_then_else_fi` are lazy: they evaluate their first argument only, then the
    // branch that is needed.
    True,
    False,
    Not,
    And,
    Or,
    Xor,
    Implies,
    AndThen,
    OrElse,
    IfThenElse,
    /// `_==_` / `_=/=_` on any kind: compare normal forms.
    Equal,
    NotEqual,
    // Integer arithmetic on literals (checked: overflow is an error, never a wrap).
    Add,
    Sub,
    Mul,
    Quo,
    Rem,
    Neg,
    Abs,
    Min,
    Max,
    Lt,
    Le,
    Gt,
    Ge,
    Divides,
    /// Maude's successor `s_` on the built-in naturals: `x + 1` (in left-hand sides,
    /// `s N` is read as a positive number, see `lang/src/elab/successor.rs`).
    Succ,
    /// The greatest common divisor of the absolute values (`gcd(0, 0)` is 0).
    Gcd,
    /// The least common multiple of the absolute values (0 if either is 0).
    Lcm,
    /// The symmetric difference `|x - y|` (Maude's `sd`).
    Sd,
    /// `x ^ y`, `y` not negative (`0 ^ 0` is 1, as in Maude).
    Pow,
    /// Maude's `modExp(x, y, m)`: `x ^ y rem m` for `x, y >= 0` and `m > 0`, by repeated
    /// squaring (the power itself need not fit). The one built-in on numbers of three
    /// arguments.
    ModExp,
    // Bit operations on integers as 64-bit two's complement words (boards as bit masks).
    // Shifts are exact: a negative amount is an error, and so is a left shift that loses
    // bits or changes the sign (as for `*`); a right shift rounds down.
    BitAnd,
    BitOr,
    BitXor,
    /// `~ x`: every bit flipped (`-x - 1`).
    BitNot,
    Shl,
    Shr,
    /// The number of 1 bits.
    Popcount,
    /// The lowest 1 bit alone (`x band -x`), 0 for 0.
    Lowbit,
    /// The index of the lowest 1 bit; an error for 0.
    LowbitIndex,
    // Grid games (stdlib/grid.game, runtime/src/grid.rs): packed boards and compiled
    // actions and goals.
    /// The hidden constructor of packed boards.
    GridPacked,
    /// `board("x../.o.")`: a board from its rows.
    GridBoard,
    /// `initial-board(width, height, cells)`.
    GridInitial,
    /// `moves(board, actions)`: the set of boards the actions lead to.
    GridMoves,
    /// `holds(board, goals)`.
    GridHolds,
    /// `at(board, x, y)`: the piece on a cell.
    GridAt,
    GridColumns,
    GridRows,
    /// `pieces(board, piece)`: the number of cells holding the piece.
    GridPieces,
    // Finite maps (stdlib/map.game, runtime/src/term/map.rs): a map of two or more entries
    // is one term of the store holding a persistent `imbl::OrdMap`, so an override shares
    // the rest of the map; `nomap` and a single entry `k |-> v` stay ordinary terms.
    /// `map-union(M, N)`: the entries of both (stuck where they disagree on a key).
    MapUnion,
    /// `map-agree(M, N)`: do M and N give the same value to every key they share?
    MapAgree,
    /// `map-get(k, M)`: the value of `k` (stuck outside the domain).
    MapGet,
    /// `M <+ N`: override, N's entries win.
    MapOverride,
    /// `remove(k, M)`.
    MapRemove,
    /// `k in-dom M`.
    MapInDom,
    /// `v in-ran M`.
    MapInRan,
    /// `only(v, M)`: M is not empty and every value is v.
    MapOnly,
    /// `size(M)`: the number of entries.
    MapSize,
    /// `dom(M)`: the domain as a set (the stdlib's `Set{K}`).
    MapDom,
    /// `ran(M)`: the range as a set (`Set{V}`).
    MapRan,
    // Finite sets (stdlib/set.game, runtime/src/term/set.rs): computed on the elements of
    // a normal set, where the equations they stand for would match `(e, S)` element by
    // element. Each declines (and the equations decide) where an argument is not of the
    // sorts those equations' variables have.
    /// `e in S`.
    SetIn,
    /// `| S |`: the number of elements.
    SetSize,
    /// `delete(e, S)`: `S` without `e`.
    SetDelete,
    /// `intersection(S, T)`: the elements of both.
    SetIntersection,
    /// `S \ T`: the elements of `S` not in `T`.
    SetDifference,
    /// `S subset T`: every element of `S` is in `T`.
    SetSubset,
    /// `S psubset T`: `S subset T` and `S =/= T`.
    SetProperSubset,
    // Maude's STRING and CONVERSION (stdlib/prelude.game, runtime/src/engine/strings.rs):
    // strings are values of the store (`TermData::Str`, or the literal constant of the
    // same text), positions count bytes as Maude's do.
    /// `S + T`: the concatenation.
    StrConcat,
    /// `length(S)`.
    StrLength,
    /// `substr(S, i, n)`: the (at most) `n` characters from position `i` (from 0).
    StrSubstr,
    /// `find(S, T, i)`: the first position `>= i` where `T` occurs in `S`, or `notFound`.
    StrFind,
    /// `rfind(S, T, i)`: the last position `<= i` where `T` occurs in `S`, or `notFound`.
    StrRFind,
    /// `S < T` and the like: the lexicographic order of the bytes as signed characters,
    /// as Maude's.
    StrLt,
    StrLe,
    StrGt,
    StrGe,
    StrUpper,
    StrLower,
    /// `ascii(C)`: the code of a one-character string.
    StrAscii,
    /// `char(N)`: the one-character string of code `N` (0 to 255).
    StrChar,
    /// `string(N, B)`: the digits of the integer `N` in base `B` (2 to 36).
    StrOfInt,
    /// `rat(S, B)`: the integer written `S` in base `B` (Maude's `rat` on integers).
    IntOfStr,
}

impl Builtin {
    /// Is this one of the finite-map built-ins?
    pub fn is_map(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            MapUnion
                | MapAgree
                | MapGet
                | MapOverride
                | MapRemove
                | MapInDom
                | MapInRan
                | MapOnly
                | MapSize
                | MapDom
                | MapRan
        )
    }

    /// Is this built-in associative and commutative, as Maude declares it (`assoc comm`),
    /// though gamelang's operator for it is binary? Its prefix form then also reads with
    /// more arguments, `gcd(12, 18, 8)` for `gcd(12, gcd(18, 8))` (see `mixfix.rs`).
    pub fn is_associative(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            Add | Mul | Min | Max | Gcd | Lcm | BitAnd | BitOr | BitXor | And | Or | Xor
        )
    }

    /// Is this one of the string built-ins (Maude's STRING and CONVERSION)?
    pub fn is_string(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            StrConcat
                | StrLength
                | StrSubstr
                | StrFind
                | StrRFind
                | StrLt
                | StrLe
                | StrGt
                | StrGe
                | StrUpper
                | StrLower
                | StrAscii
                | StrChar
                | StrOfInt
                | IntOfStr
        )
    }

    /// Is this one of the finite-set built-ins?
    pub fn is_set(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            SetIn
                | SetSize
                | SetDelete
                | SetIntersection
                | SetDifference
                | SetSubset
                | SetProperSubset
        )
    }

    /// Is this one of the grid-game built-ins (whose arguments the engine reads itself)?
    pub fn is_grid(self) -> bool {
        use Builtin::*;
        matches!(
            self,
            GridPacked
                | GridBoard
                | GridInitial
                | GridMoves
                | GridHolds
                | GridAt
                | GridColumns
                | GridRows
                | GridPieces
        )
    }
}

#[derive(Clone, Debug, Default)]
pub struct OpAttrs {
    pub ctor: bool,
    pub assoc: bool,
    pub comm: bool,
    /// Idempotent (`x, x = x`), used for sets: an `assoc comm idem` operator keeps its
    /// flattened argument list sorted and without duplicates.
    pub idem: bool,
    /// `id: c` where `c` is a constant operator.
    pub identity: Option<OpId>,
    /// Maude's `left id: c` (`c op x = x`) and `right id: c` (`x op c = x`).
    pub left_identity: Option<OpId>,
    pub right_identity: Option<OpId>,
    pub memo: bool,
    /// Mixfix precedence: lower binds tighter (Maude's convention).
    pub prec: u32,
    /// Maude's gathering pattern `gather (E e)`, one entry per argument; `None` is the
    /// default (see `lang/src/elab/mixfix.rs`).
    pub gather: Option<Vec<Gather>>,
    pub builtin: Option<Builtin>,
    /// `weak`: the declaration gives way to any other operator of its name. It is not
    /// seen (parsed) in a module where another operator of that name is visible, so the
    /// prelude's Maude spellings (`gcd`, `_^_`, `_&_`, `_<<_`, …) change nothing in a
    /// module that declares, or imports, an operator of one of those names for itself.
    pub weak: bool,
}

impl OpAttrs {
    /// Has equational attributes, so that its applications are normalised by the term
    /// store (flattened, ordered, without identities).
    pub fn equational(&self) -> bool {
        self.assoc
            || self.comm
            || self.idem
            || self.identity.is_some()
            || self.left_identity.is_some()
            || self.right_identity.is_some()
    }
}

/// What precedence an argument may have, relative to its operator's (Maude's `gather`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gather {
    /// `e`: strictly lower (binding tighter).
    Below,
    /// `E`: at most the operator's own.
    AtMost,
    /// `&`: any.
    Any,
}

#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The name as declared: `_,_`, `(__)`, `w`, `next-config`.
    pub name: String,
    pub form: Vec<PatPiece>,
    pub args: Vec<SortId>,
    pub result: SortId,
    pub attrs: OpAttrs,
    pub span: Option<Span>,
    /// The module (instance) that declared it, e.g. `SET{TwoHeaps}`.
    pub module: String,
    /// Maude's subsort overloading: narrower declarations of this same operator
    /// (`_+_ : NzNat Nat -> NzNat` beside `_+_ : Nat Nat -> Nat`), merged into it when
    /// its module was elaborated. An application has the least result sort among the
    /// declarations its arguments fit ([`Signature::app_sort`]); `args` and `result`
    /// above are the widest declaration, which every other is below.
    pub overloads: Vec<OpRank>,
}

/// One declaration of a subsort-overloaded operator: its argument and result sorts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRank {
    pub args: Vec<SortId>,
    pub result: SortId,
}

/// The sort of an application of a subsort-overloaded operator to arguments of sorts
/// `args`: the least result among its declarations (`widest`, the declared result, and
/// `overloads`) that the arguments fit, both argument orders for a `comm` operator, by the
/// subsort order `leq`. The one rule for the parser ([`Signature::app_sort`]) and the
/// runtime's term store, which keeps its own `leq`.
pub fn least_result(
    widest: SortId,
    overloads: &[OpRank],
    comm: bool,
    args: &[SortId],
    leq: impl Fn(SortId, SortId) -> bool,
) -> SortId {
    let fits = |decl: &[SortId]| {
        args.len() == decl.len()
            && (args.iter().zip(decl).all(|(&a, &d)| leq(a, d))
                || (comm && args.iter().rev().zip(decl).all(|(&a, &d)| leq(a, d))))
    };
    let mut best = widest;
    for rank in overloads {
        if fits(&rank.args) && leq(rank.result, best) {
            best = rank.result;
        }
    }
    best
}

/// The global order-sorted signature.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    pub sorts: Vec<SortInfo>,
    pub ops: Vec<OpInfo>,
    /// `leq[a][b]`: sort `a` is a subsort of (or equal to) `b`; reflexive and transitive.
    leq: Vec<Vec<bool>>,
    /// The sorts of the built-in values, fixed by the prelude.
    pub bool_sort: Option<SortId>,
    pub nat_sort: Option<SortId>,
    pub int_sort: Option<SortId>,
    /// Maude's finer sorts of the integers: the least sorts of `0`, of the positive and of
    /// the negative literals ([`Signature::literal_sort`]).
    pub zero_sort: Option<SortId>,
    pub nz_nat_sort: Option<SortId>,
    pub nz_int_sort: Option<SortId>,
    pub true_op: Option<OpId>,
    pub false_op: Option<OpId>,
    /// The prelude's `String` and `Char` (BOOL: string literals are constants of these
    /// sorts, a one-character literal a `Char`), and `notFound` (STRING: what `find`
    /// gives when there is nothing to find).
    pub string_sort: Option<SortId>,
    pub char_sort: Option<SortId>,
    pub not_found_op: Option<OpId>,
    /// The pseudo-sort of the polymorphic built-ins (`_==_`, `if_then_else_fi`): an argument
    /// declared with it accepts a term of any sort.
    pub universal_sort: Option<SortId>,
    /// Can a term of a running program be an application of a subsort-overloaded operator
    /// ([`OpInfo::overloads`])? Not when only parameterized modules, which are checked and
    /// never run (the prelude's `LIST{X}`), have them: the runtime's term store then skips
    /// recording sorts altogether.
    pub overloads_in_use: bool,
}

impl Signature {
    pub fn sort(&self, s: SortId) -> &SortInfo {
        &self.sorts[s.0 as usize]
    }

    pub fn op(&self, o: OpId) -> &OpInfo {
        &self.ops[o.0 as usize]
    }

    /// The least sort of the integer `n`, as in Maude: `Zero` for 0, `NzNat` above, `NzInt`
    /// below (`Nat` and `Int` where a prelude without the finer sorts is loaded).
    pub fn literal_sort(&self, n: i64) -> Option<SortId> {
        let (fine, coarse) = match n.signum() {
            0 => (self.zero_sort, self.nat_sort),
            1 => (self.nz_nat_sort, self.nat_sort),
            _ => (self.nz_int_sort, self.int_sort),
        };
        fine.or(coarse).or(self.int_sort)
    }

    /// Is `a` a subsort of (or equal to) `b`?
    pub fn leq(&self, a: SortId, b: SortId) -> bool {
        self.leq[a.0 as usize][b.0 as usize]
    }

    pub fn same_kind(&self, a: SortId, b: SortId) -> bool {
        self.sort(a).kind == self.sort(b).kind
    }

    pub fn add_sort(&mut self, name: String, span: Option<Span>) -> SortId {
        let id = SortId(self.sorts.len() as u32);
        self.sorts.push(SortInfo {
            name,
            span,
            kind: KindId(id.0),
        });
        for row in &mut self.leq {
            row.push(false);
        }
        let mut row = vec![false; self.sorts.len()];
        row[id.0 as usize] = true;
        self.leq.push(row);
        id
    }

    /// Declare `sub < sup`, keeping `leq` transitively closed and kinds up to date.
    pub fn add_subsort(&mut self, sub: SortId, sup: SortId) {
        let n = self.sorts.len();
        let below: Vec<usize> = (0..n).filter(|&a| self.leq[a][sub.0 as usize]).collect();
        let above: Vec<usize> = (0..n).filter(|&b| self.leq[sup.0 as usize][b]).collect();
        for &a in &below {
            for &b in &above {
                self.leq[a][b] = true;
            }
        }
        // Merge the two kinds (connected components).
        let (ka, kb) = (self.sort(sub).kind, self.sort(sup).kind);
        if ka != kb {
            let keep = ka.min(kb);
            for s in &mut self.sorts {
                if s.kind == ka || s.kind == kb {
                    s.kind = keep;
                }
            }
        }
    }

    /// The sort of `op` applied to arguments of sorts `args`: the declared result, or for a
    /// subsort-overloaded operator the least result among the declarations the arguments
    /// fit (both argument orders for a `comm` one, since both terms are the same). The
    /// loop finds the least one whenever the fitting results have a least (Maude's
    /// preregularity); otherwise it gives one of them, below the widest declaration's.
    pub fn app_sort(&self, op: OpId, args: &[SortId]) -> SortId {
        let info = self.op(op);
        least_result(
            info.result,
            &info.overloads,
            info.attrs.comm,
            args,
            |a, b| self.leq(a, b),
        )
    }

    pub fn add_op(&mut self, info: OpInfo) -> OpId {
        let id = OpId(self.ops.len() as u32);
        self.ops.push(info);
        id
    }
}

/// A term in an equation, a condition or a game declaration.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pat {
    /// A variable, by its index in the enclosing [`Equation::vars`].
    Var(u32),
    App(OpId, Vec<Pat>),
    Int(i64),
}

#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: String,
    pub sort: SortId,
}

/// `lhs = rhs if cond`, read left to right as a rewrite rule.
#[derive(Clone, Debug)]
pub struct Equation {
    /// Always an application; its operator is the one the equation is indexed by.
    pub lhs: Pat,
    pub rhs: Pat,
    /// A Bool term that must reduce to `true` for the equation to apply. Conjunctions
    /// `C1 /\ C2` are elaborated to `C1 and-then C2` and `t = u` to `t == u`.
    pub cond: Option<Pat>,
    /// Tried only after every non-`owise` equation of the same operator has failed.
    pub owise: bool,
    pub vars: Vec<VarInfo>,
    pub span: Span,
    /// The module (instance) the equation belongs to.
    pub module: String,
}

impl Equation {
    pub fn top_op(&self) -> OpId {
        match &self.lhs {
            Pat::App(op, _) => *op,
            _ => {
                unreachable!("elaboration only builds equations whose left side is an application")
            }
        }
    }
}

/// Everything the runtime needs to rewrite: the signature and the equations.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub sig: Signature,
    pub equations: Vec<Equation>,
    /// Equations by their top operator, `owise` ones last (filled by [`Program::index`]).
    pub eqs_by_op: FxHashMap<OpId, Vec<usize>>,
}

impl Program {
    /// Rebuild [`Program::eqs_by_op`] after equations were added.
    pub fn index(&mut self) {
        self.eqs_by_op.clear();
        for owise in [false, true] {
            for (i, eq) in self.equations.iter().enumerate() {
                if eq.owise == owise {
                    self.eqs_by_op.entry(eq.top_op()).or_default().push(i);
                }
            }
        }
    }

    /// Does the operator have equations (so it is a defined function, not a constructor)?
    pub fn is_defined(&self, op: OpId) -> bool {
        self.eqs_by_op.get(&op).is_some_and(|v| !v.is_empty())
    }
}

/// C's named escapes, as Maude reads and prints them: the letter after the backslash and
/// the byte it stands for.
const NAMED_ESCAPES: [(u8, u8); 7] = [
    (b'n', b'\n'),
    (b't', b'\t'),
    (b'r', b'\r'),
    (b'a', 7),
    (b'b', 8),
    (b'f', 12),
    (b'v', 11),
];

/// The bytes of a string literal, as Maude reads it: quotes removed, and the escapes of C
/// read: `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`, `\"`, `\\`, and up to three octal
/// digits (`\0`, `\101` for `A`, the value taken modulo 256 as Maude does); a backslash
/// before anything else stands for that character (`\q` is `q`).
pub fn unquote_bytes(literal: &str) -> Vec<u8> {
    let inner = literal.as_bytes();
    let inner = &inner[1..inner.len().saturating_sub(1).max(1)];
    let mut out = Vec::with_capacity(inner.len());
    let mut i = 0;
    while i < inner.len() {
        let c = inner[i];
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = inner.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        if let Some(&(_, byte)) = NAMED_ESCAPES.iter().find(|(letter, _)| *letter == e) {
            out.push(byte);
            continue;
        }
        out.push(match e {
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                for _ in 0..2 {
                    match inner.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                (v % 256) as u8
            }
            other => other,
        });
    }
    out
}

/// The text of a string literal ([`unquote_bytes`]), bytes that are not UTF-8 replaced
/// (a game's `display`, a board's rows).
pub fn unquote(literal: &str) -> String {
    String::from_utf8_lossy(&unquote_bytes(literal)).into_owned()
}

/// The literal that reads as the bytes `text`, written as Maude writes it: printable
/// ASCII as it is (`"` and `\` escaped), C's named escapes for the control characters
/// that have one, three octal digits for any other byte (`"\000"`, `"\303\251"`).
pub fn quote(text: &[u8]) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for &c in text {
        if let Some(&(letter, _)) = NAMED_ESCAPES.iter().find(|(_, byte)| *byte == c) {
            out.push('\\');
            out.push(letter as char);
            continue;
        }
        match c {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(c as char);
            }
            32..=126 => out.push(c as char),
            _ => out.push_str(&format!("\\{c:03o}")),
        }
    }
    out.push('"');
    out
}
