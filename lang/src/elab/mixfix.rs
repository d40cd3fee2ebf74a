//! Parsing terms against a module's signature.
//!
//! The declaration grammar keeps every term as the run of tokens it was written with; here
//! such a run is parsed with the operators the module can see, in their mixfix forms
//! (`(__)`, `_,_`, `if_then_else_fi`, prefix `f(_, _)`). The parser is a chart parser over
//! token spans: every span gets the set of its readings (term, sort, precedence), built from
//! the readings of smaller spans. Readings are filtered by sort (an argument must be in the
//! kind of the declared argument sort) and by precedence (Maude's convention: lower binds
//! tighter; operators are left-associative), so that what remains is usually one reading.
//! When several remain the term is ambiguous and the error lists them; when none remain the
//! error points at the first unknown token or at the argument whose sort does not fit.

use crate::ast::Token;
use crate::diag::{suggest, Diag};
use crate::program::{Builtin, Gather, OpId, Pat, PatPiece, Signature, SortId};
use crate::span::Span;
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// What a parsed operator symbol stands for.
#[derive(Clone, Debug)]
pub enum SymTarget {
    Op(OpId),
    /// A theory operator mapped by a view to a term: the template's `Var(i)` is argument i.
    Macro(Rc<Pat>),
}

/// An operator as the term parser sees it.
#[derive(Clone, Debug)]
pub struct Sym {
    pub name: String,
    pub form: Vec<PatPiece>,
    pub args: Vec<SortId>,
    pub result: SortId,
    pub prec: u32,
    /// Maude's gathering pattern, one entry per argument (`None`: the default, see
    /// [`TermParser::allowed_prec`]).
    pub gather: Option<Vec<Gather>>,
    /// Flatten nested applications of this (associative) operator.
    pub assoc: bool,
    pub builtin: Option<Builtin>,
    pub target: SymTarget,
}

impl Sym {
    fn same_target(&self, other: &Sym) -> bool {
        match (&self.target, &other.target) {
            (SymTarget::Op(a), SymTarget::Op(b)) => a == b,
            (SymTarget::Macro(a), SymTarget::Macro(b)) => a == b && self.name == other.name,
            _ => false,
        }
    }
}

/// The operator symbols visible in a module, indexed for parsing.
#[derive(Debug, Default)]
pub struct Grammar {
    pub syms: Vec<Sym>,
    /// Every literal piece of every form: tokens that belong to operators (made when an
    /// error first needs them: a module's grammar is built for every module, the set
    /// only for a term that does not parse).
    literals: std::cell::OnceCell<FxHashSet<String>>,
    /// The symbols with arguments whose form begins with a literal, by that literal, and
    /// those whose form begins with an argument: the only symbols a span can be read
    /// with, found without trying every symbol on every span (in increasing order).
    by_first: FxHashMap<String, Vec<usize>>,
    hole_first: Vec<usize>,
    /// For the chain parser, made when it first asks.
    chains: std::cell::OnceCell<ChainIndex>,
    /// The module sees the built-in integers (it imports `INT`): a numeral is one of them
    /// even where the module declares a constant of that name (`op 0 : -> Nat`, Peano
    /// style), which without `INT` is the numeral's only reading, as in Maude.
    pub numbers: bool,
    /// The `weak` operators the module does not see, each with the operator of its name
    /// that it sees instead (`Session::grammar`), for a term using them that does not
    /// parse.
    pub hidden_weak: Vec<(OpId, OpId)>,
}

/// The symbols the chain parser (`chain.rs`) asks about, in increasing order.
#[derive(Debug, Default)]
pub(super) struct ChainIndex {
    /// The symbols of form `_t_`, by their token `t`.
    infix: FxHashMap<String, Vec<usize>>,
    /// The symbols of form `__`.
    pub(super) juxtaposition: Vec<usize>,
    /// The symbols whose form has a literal outside its parentheses, by that literal.
    top_level: FxHashMap<String, Vec<usize>>,
    /// Does some form begin with `(`?
    pub(super) paren_first: bool,
}

impl ChainIndex {
    fn new(syms: &[Sym]) -> ChainIndex {
        let mut index = ChainIndex::default();
        for (i, sym) in syms.iter().enumerate() {
            match sym.form.as_slice() {
                [PatPiece::Hole, PatPiece::Lit(t), PatPiece::Hole] => {
                    index.infix.entry(t.clone()).or_default().push(i)
                }
                [PatPiece::Hole, PatPiece::Hole] => index.juxtaposition.push(i),
                _ => {}
            }
            let mut depth = 0i32;
            let mut seen: Vec<&str> = Vec::new();
            for p in &sym.form {
                if let PatPiece::Lit(l) = p {
                    if depth == 0 && !seen.contains(&l.as_str()) {
                        seen.push(l);
                        index.top_level.entry(l.clone()).or_default().push(i);
                    }
                    match l.as_str() {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                }
            }
        }
        index.paren_first =
            (syms.iter()).any(|s| matches!(s.form.first(), Some(PatPiece::Lit(l)) if l == "("));
        index
    }

    /// The symbols of form `_t_`.
    pub(super) fn infix(&self, t: &str) -> &[usize] {
        self.infix.get(t).map_or(&[], |v| v.as_slice())
    }

    /// The symbols whose form has the literal `t` outside its parentheses.
    pub(super) fn top_level(&self, t: &str) -> &[usize] {
        self.top_level.get(t).map_or(&[], |v| v.as_slice())
    }
}

impl Grammar {
    pub fn new(syms: Vec<Sym>) -> Grammar {
        // The first symbol of each target: operators by a set (a module sees hundreds),
        // the few macros by comparison.
        let mut unique: Vec<Sym> = Vec::with_capacity(syms.len());
        let mut seen_ops: FxHashSet<OpId> = FxHashSet::default();
        let mut macros: Vec<usize> = Vec::new();
        for s in syms {
            let new = match s.target {
                SymTarget::Op(op) => seen_ops.insert(op),
                SymTarget::Macro(_) => !macros.iter().any(|&m| unique[m].same_target(&s)),
            };
            if new {
                if matches!(s.target, SymTarget::Macro(_)) {
                    macros.push(unique.len());
                }
                unique.push(s);
            }
        }
        // Maude's prefix form of a mixfix operator, `_+_(I, J)`, `if_then_else_fi(B, X, Y)`:
        // one more symbol for the same operator, read as a prefix application of its name.
        let prefix_forms: Vec<Sym> = (unique.iter())
            .filter(|s| !s.args.is_empty() && s.name.contains('_'))
            .filter(|s| s.form.first() != Some(&PatPiece::Lit(s.name.clone())))
            .map(|s| {
                let mut form = vec![PatPiece::Lit(s.name.clone()), PatPiece::Lit("(".into())];
                for i in 0..s.args.len() {
                    if i > 0 {
                        form.push(PatPiece::Lit(",".into()));
                    }
                    form.push(PatPiece::Hole);
                }
                form.push(PatPiece::Lit(")".into()));
                Sym {
                    form,
                    prec: 0,
                    gather: None,
                    ..s.clone()
                }
            })
            .collect();
        unique.extend(prefix_forms);
        let mut by_first: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        let mut hole_first = Vec::new();
        for (i, sym) in unique.iter().enumerate() {
            if sym.args.is_empty() {
                continue; // constants are atoms
            }
            match sym.form.first() {
                Some(PatPiece::Lit(l)) => by_first.entry(l.clone()).or_default().push(i),
                _ => hole_first.push(i),
            }
        }
        Grammar {
            syms: unique,
            literals: std::cell::OnceCell::new(),
            by_first,
            hole_first,
            chains: std::cell::OnceCell::new(),
            numbers: true,
            hidden_weak: Vec::new(),
        }
    }

    /// The symbols with arguments that a span beginning with the token `first` may be read
    /// with, in increasing order: those whose form begins with `first`, and those of
    /// `hole_first` (the grammar's symbols whose form begins with an argument, or those of
    /// them a term can use: `TermParser::hole_first`).
    fn candidates<'a>(
        &'a self,
        first: &str,
        hole_first: &'a [usize],
    ) -> impl Iterator<Item = usize> + 'a {
        let lit = self.by_first.get(first).map_or(&[][..], |v| v.as_slice());
        merge_sorted(lit, hole_first)
    }

    /// What the chain parser asks about the symbols.
    pub(super) fn chains(&self) -> &ChainIndex {
        self.chains.get_or_init(|| ChainIndex::new(&self.syms))
    }

    /// Every literal piece of every form: tokens that belong to operators.
    fn literals(&self) -> &FxHashSet<String> {
        self.literals.get_or_init(|| {
            (self.syms.iter())
                .flat_map(|s| s.form.iter())
                .filter_map(|p| match p {
                    PatPiece::Lit(l) => Some(l.clone()),
                    PatPiece::Hole => None,
                })
                .collect()
        })
    }

    pub fn op_names(&self) -> impl Iterator<Item = &str> {
        self.syms.iter().map(|s| s.name.as_str())
    }
}

/// Variables visible while parsing one equation (or a term at the prompt).
pub trait VarScope {
    /// A variable declared with `var`, by name.
    fn declared(&mut self, name: &str) -> Option<(u32, SortId)>;
    /// An inline variable `name:Sort`; `None` when the sort is unknown.
    fn inline(&mut self, name: &str, sort: &str) -> Option<(u32, SortId)>;
    /// All variable names, for suggestions.
    fn names(&self) -> Vec<String>;
    /// All sort names, for suggestions.
    fn sort_names(&self) -> Vec<String>;
    /// Why a variable written `X:Sort` cannot be here, if it cannot: the error's message
    /// and note (the scope has no such variables, so `inline` said no).
    fn inline_refused(&self, _text: &str) -> Option<(String, String)> {
        None
    }
}

/// No variables (terms on the command line).
pub struct NoVars;

impl VarScope for NoVars {
    fn declared(&mut self, _: &str) -> Option<(u32, SortId)> {
        None
    }
    fn inline(&mut self, _: &str, _: &str) -> Option<(u32, SortId)> {
        None
    }
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
    fn sort_names(&self) -> Vec<String> {
        Vec::new()
    }
    /// (A configuration, a parameter's value, a term at the prompt: evaluated as it is.)
    fn inline_refused(&self, text: &str) -> Option<(String, String)> {
        Some((
            format!("no variables here: `{text}` is one"),
            "this term is evaluated as it is, so it must be ground: write a value in its \
             place (`gamelang reduce FILE TERM` reduces terms with variables)"
                .to_string(),
        ))
    }
}

/// A reading's term: a [`Pat`] whose children are shared, so that a reading built over
/// another shares it instead of copying it (the chart keeps every reading of every span:
/// copied, a term nested n deep took time and memory n², 3 GB for `abs(` nested 8,000
/// deep). [`RPat::to_pat`] makes the chosen reading a `Pat`.
#[derive(Clone, Debug)]
pub(super) enum RPat {
    Var(u32),
    Int(i64),
    App(OpId, Rc<Vec<RPat>>),
}

impl PartialEq for RPat {
    fn eq(&self, other: &RPat) -> bool {
        match (self, other) {
            (RPat::Var(a), RPat::Var(b)) => a == b,
            (RPat::Int(a), RPat::Int(b)) => a == b,
            (RPat::App(p, x), RPat::App(q, y)) => p == q && (Rc::ptr_eq(x, y) || x == y),
            _ => false,
        }
    }
}

impl RPat {
    pub(super) fn app(op: OpId, args: Vec<RPat>) -> RPat {
        RPat::App(op, Rc::new(args))
    }

    /// The pattern read.
    pub(super) fn to_pat(&self) -> Pat {
        match self {
            RPat::Var(v) => Pat::Var(*v),
            RPat::Int(n) => Pat::Int(*n),
            RPat::App(op, args) => Pat::App(*op, args.iter().map(RPat::to_pat).collect()),
        }
    }

    /// `p` as a reading's term.
    pub(super) fn of(p: &Pat) -> RPat {
        match p {
            Pat::Var(v) => RPat::Var(*v),
            Pat::Int(n) => RPat::Int(*n),
            Pat::App(op, args) => RPat::app(*op, args.iter().map(RPat::of).collect()),
        }
    }

    /// The arguments of an application of `op` (taken without a copy when nothing else
    /// holds them), or the term itself back if it is not one.
    pub(super) fn into_args_of(self, op: OpId) -> Result<Vec<RPat>, RPat> {
        match self {
            RPat::App(o, args) if o == op => {
                Ok(Rc::try_unwrap(args).unwrap_or_else(|rc| (*rc).clone()))
            }
            other => Err(other),
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Reading {
    pub(super) pat: RPat,
    pub(super) sort: SortId,
    pub(super) prec: u32,
    /// How many arguments are only kind-correct (their sort is not below the declared one).
    /// Among several readings, the best-sorted wins.
    pub(super) ill: u32,
    /// How many arguments group to the right: the last argument of a binary open operator
    /// (`_;_`) with the operator's own precedence, as in `1 ; (2 ; nil)` written without
    /// the parentheses. Among readings as well sorted, the fewest win, so that `a - b - c`
    /// is `(a - b) - c`; a list `1 ; 2 ; nil` whose left grouping is ill-sorted (`1 ; 2`
    /// is no list) still reads, to the right, as Maude reads it.
    pub(super) right: u32,
}

impl Reading {
    /// The order in which readings are preferred: best sorted first, then the fewest
    /// right groupings.
    fn rank(&self) -> (u32, u32) {
        (self.ill, self.right)
    }

    /// Is `self` at least as good as `other` wherever `other` could stand (same sort, no
    /// looser precedence) and better ranked? Then `other` need not be kept.
    fn dominates(&self, other: &Reading) -> bool {
        self.sort == other.sort
            && self.prec <= other.prec
            && self.ill <= other.ill
            && self.right <= other.right
            && self.rank() < other.rank()
    }
}

/// The closest the parser came to a reading: an operator whose form fitted the tokens but
/// one of whose arguments has a sort of another kind.
struct NearMiss {
    width: usize,
    diag: Diag,
}

/// Words that end a block: met inside a term, they too mean a missing ` .`.
const END_KEYWORDS: &[&str] = &["endfm", "endfth", "endv", "endgame"];

/// The fields of a `game` block: one met inside a term (and not an operator there) means
/// the ` .` of the field before it is missing (`start < 5 | 4 >` then `first R .`).
const GAME_FIELDS: &[&str] = &[
    "instance", "start", "first", "param", "symmetry", "requires",
];

/// More readings than this for one span means a pathological grammar; keep the first ones.
const MAX_READINGS: usize = 24;
/// A span longer than this that is not a chain (see [`super::chain`]) is rejected rather
/// than parsed slowly (the chart parser is cubic).
pub const MAX_TOKENS: usize = 4000;
/// Parentheses nested deeper than this are rejected (the parser recurses on them).
pub const MAX_NESTING: usize = 10_000;

pub struct TermParser<'a> {
    pub(super) sig: &'a Signature,
    pub(super) grammar: &'a Grammar,
    pub(super) toks: Vec<Token>,
    vars: &'a mut dyn VarScope,
    chart: FxHashMap<(usize, usize), Rc<Vec<Reading>>>,
    /// depth[i]: parenthesis depth before token i (for pruning unbalanced splits).
    depth: Vec<i32>,
    /// below[i]: the first m > i with depth[m] < depth[i] (or depth.len()), so that
    /// `balanced` is a constant-time test: it is asked for every split of every span.
    pub(super) below: Vec<usize>,
    near: Option<NearMiss>,
    bad_sort: Option<Diag>,
    /// A span too long for the chart parser.
    too_long: Option<Diag>,
    /// The sort the term must be of (its kind), if the caller says.
    expected: Option<SortId>,
    /// The grammar's symbols whose form begins with an argument, less those with a literal
    /// piece that no token of this term is (`_subset_` in a term without `subset`): tried
    /// at every span, they were most of the start-up's parsing.
    hole_first: Rc<[usize]>,
}

/// Parse `toks` as one term; with `expected`, the term must be of that sort's kind.
pub fn parse_term(
    sig: &Signature,
    grammar: &Grammar,
    toks: &[Token],
    vars: &mut dyn VarScope,
    expected: Option<SortId>,
) -> Result<(Pat, SortId), Diag> {
    let Some(first) = toks.first() else {
        return Err(Diag::error("expected a term, found nothing"));
    };
    let whole = first.span.to(toks[toks.len() - 1].span);
    let toks = merge_inline_sorts(toks);
    check_parens(&toks)?;
    let mut depth = Vec::with_capacity(toks.len() + 1);
    let mut d = 0;
    for t in &toks {
        depth.push(d);
        match t.text.as_str() {
            "(" => d += 1,
            ")" => d -= 1,
            _ => {}
        }
    }
    depth.push(d);
    let mut below = vec![depth.len(); depth.len()];
    let mut open: Vec<usize> = Vec::new();
    for (m, &dm) in depth.iter().enumerate() {
        while open.last().is_some_and(|&k| depth[k] > dm) {
            below[open.pop().expect("non-empty")] = m;
        }
        open.push(m);
    }
    let n = toks.len();
    let present: FxHashSet<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    let hole_first = (grammar.hole_first.iter().copied())
        .filter(|&s| {
            grammar.syms[s].form.iter().all(|p| match p {
                PatPiece::Lit(l) => present.contains(l.as_str()),
                PatPiece::Hole => true,
            })
        })
        .collect();
    drop(present);
    let mut p = TermParser {
        sig,
        grammar,
        toks,
        vars,
        chart: FxHashMap::default(),
        depth,
        below,
        near: None,
        bad_sort: None,
        too_long: None,
        expected,
        hole_first,
    };
    let readings = p.span(0, n);
    let mut readings: Vec<Reading> = readings.iter().cloned().collect();
    if let Some(e) = expected {
        readings.retain(|r| sig.same_kind(r.sort, e) || Some(e) == sig.universal_sort);
        if readings.is_empty() && !p.span(0, n).is_empty() {
            let r = &p.span(0, n)[0];
            return Err(Diag::at(
                whole,
                format!(
                    "expected a term of sort `{}`, but this term has sort `{}`",
                    sig.sort(e).name,
                    sig.sort(r.sort).name
                ),
                format!("of sort `{}`", sig.sort(r.sort).name),
            ));
        }
    }
    if readings.is_empty() {
        if let Some(d) = p.too_long.take() {
            return Err(d);
        }
        let mut d = p.explain_failure(whole);
        for note in hidden_weak_notes(sig, grammar, &p.toks) {
            d = d.note(note);
        }
        return Err(d);
    }
    let best = readings.iter().map(Reading::rank).min().unwrap_or((0, 0));
    readings.retain(|r| r.rank() == best);
    if readings.len() > 1 {
        let pats: Vec<Pat> = readings.iter().map(|r| r.pat.to_pat()).collect();
        let readings: Vec<(&Pat, SortId)> = pats
            .iter()
            .zip(readings.iter())
            .map(|(p, r)| (p, r.sort))
            .collect();
        // The variables' names, to show the readings as written (the lookups were all
        // made while parsing, so they change nothing).
        let mut names = FxHashMap::default();
        for t in &p.toks {
            let found = match t.text.split_once(':') {
                Some((name, sort)) if !name.is_empty() && !sort.is_empty() => {
                    p.vars.inline(name, sort).map(|v| (v.0, name.to_string()))
                }
                _ => p.vars.declared(&t.text).map(|v| (v.0, t.text.clone())),
            };
            if let Some((i, name)) = found {
                names.entry(i).or_insert(name);
            }
        }
        return Err(super::extend::ambiguous(sig, &readings, &names, whole));
    }
    let r = readings.pop().expect("one reading");
    Ok((r.pat.to_pat(), r.sort))
}

/// `S:Set{TwoHeaps}` is lexed as `S:Set` `{` `TwoHeaps` `}`; glue such inline-variable sorts
/// back together so the variable is one token.
fn merge_inline_sorts(toks: &[Token]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let is_inline_var =
            t.text.contains(':') && !t.text.starts_with(':') && !t.text.ends_with(':');
        if is_inline_var && toks.get(i + 1).is_some_and(|n| n.text == "{") {
            let mut depth = 0;
            let mut j = i + 1;
            let mut text = t.text.clone();
            while j < toks.len() {
                match toks[j].text.as_str() {
                    "{" => depth += 1,
                    "}" => depth -= 1,
                    _ => {}
                }
                text.push_str(&toks[j].text);
                j += 1;
                if depth == 0 {
                    break;
                }
            }
            out.push(Token {
                text,
                span: t.span.to(toks[j - 1].span),
            });
            i = j;
        } else {
            out.push(t.clone());
            i += 1;
        }
    }
    out
}

fn check_parens(toks: &[Token]) -> Result<(), Diag> {
    let mut open: Vec<Span> = Vec::new();
    for t in toks {
        match t.text.as_str() {
            "(" if open.len() >= MAX_NESTING => {
                return Err(Diag::at(
                    t.span,
                    format!("parentheses nested more than {MAX_NESTING} deep"),
                    "too deep here",
                )
                .note("name a part of the term with an operator and an equation instead"));
            }
            "(" => open.push(t.span),
            ")" if open.pop().is_none() => {
                return Err(Diag::at(
                    t.span,
                    "unbalanced parenthesis",
                    "this `)` closes nothing",
                ));
            }
            _ => {}
        }
    }
    if let Some(s) = open.pop() {
        return Err(Diag::at(
            s,
            "unbalanced parenthesis",
            "this `(` is never closed",
        ));
    }
    Ok(())
}

fn int_literal(text: &str) -> Option<Result<i64, ()>> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(text.parse::<i64>().map_err(|_| ()))
}

impl TermParser<'_> {
    pub(super) fn span(&mut self, i: usize, j: usize) -> Rc<Vec<Reading>> {
        if let Some(r) = self.chart.get(&(i, j)) {
            return r.clone();
        }
        // Mark as in progress (empty) so a degenerate grammar cannot recurse forever.
        self.chart.insert((i, j), Rc::new(Vec::new()));
        if j - i >= super::chain::CHAIN_MIN {
            if let Some(out) = self.chain(i, j) {
                let rc = Rc::new(out);
                self.chart.insert((i, j), rc.clone());
                return rc;
            }
            // A prefix application `f(…)` around a long chain (`len(1 ; 2 ; … ; nil)`) is
            // read by the chart parser in time linear in its top-level commas.
            let prefix_application =
                j - i > 3 && self.toks[i + 1].text == "(" && self.below[i + 2] == j;
            if j - i > MAX_TOKENS && !prefix_application {
                let whole = self.toks[i].span.to(self.toks[j - 1].span);
                self.too_long.get_or_insert(
                    Diag::at(
                        whole,
                        format!("term too complex to parse ({} tokens)", j - i),
                        "this part",
                    )
                    .note(format!(
                        "a long term must be a chain of binary operators (`a + b + …`, `x, y, …`) or of items side by side; any other part may be at most {MAX_TOKENS} tokens: add parentheses or name parts with operators"
                    )),
                );
                return self.chart[&(i, j)].clone();
            }
        }
        let mut out: Vec<Reading> = Vec::new();
        if j == i + 1 {
            self.atom(i, &mut out);
        }
        if j >= i + 2
            && self.toks[i].text == "("
            && self.toks[j - 1].text == ")"
            && self.balanced(i + 1, j - 1)
        {
            for r in self.span(i + 1, j - 1).iter() {
                push(
                    &mut out,
                    Reading {
                        prec: 0,
                        ..r.clone()
                    },
                );
            }
        }
        // Maude's sort qualification `(t).S`: the readings of `t` of a sort named `S` or
        // below it (which picks among constants of one name on several sorts).
        // The sort may be an instance's, written in pieces: `(nil).List{Nat}`.
        let q = self.qualifier_start(i, j);
        if let Some(q) = q.filter(|&q| {
            q >= i + 3
                && self.toks[i].text == "("
                && self.toks[q - 1].text == ")"
                && self.balanced(i + 1, q - 1)
        }) {
            let name: String = std::iter::once(&self.toks[q].text[1..])
                .chain(self.toks[q + 1..j].iter().map(|t| t.text.as_str()))
                .collect();
            let name = name.as_str();
            let j = q + 1;
            let sig = self.sig;
            let named: Vec<SortId> = (0..sig.sorts.len() as u32)
                .map(SortId)
                .filter(|&s| sig.sort(s).name == name)
                .collect();
            for r in self.span(i + 1, j - 2).iter() {
                if named.iter().any(|&s| sig.leq(r.sort, s)) {
                    push(
                        &mut out,
                        Reading {
                            prec: 0,
                            ..r.clone()
                        },
                    );
                }
            }
        }
        self.juxtaposed_argument(i, j, &mut out);
        let grammar = self.grammar;
        let hole_first = self.hole_first.clone();
        for s in grammar.candidates(&self.toks[i].text, &hole_first) {
            if out.len() >= MAX_READINGS {
                break;
            }
            let sym = &grammar.syms[s];
            // A quick rejection on the last piece (the first one fits: `candidates`).
            if let Some(PatPiece::Lit(l)) = sym.form.last() {
                if self.toks[j - 1].text != *l {
                    continue;
                }
            }
            let mut holes = Vec::new();
            let mut splits = Vec::new();
            self.splits(s, 0, i, j, &mut holes, &mut splits);
            for holes in splits {
                self.apply(s, &holes, i, j, &mut out);
            }
        }
        if out.is_empty() {
            self.assoc_prefix(i, j, &mut out);
        }
        let rc = Rc::new(out);
        self.chart.insert((i, j), rc.clone());
        rc
    }

    /// Maude's n-ary form of an associative prefix operator: `f(a, b, c)` for
    /// `f(a, f(b, c))`, which is also how terms of an `assoc` operator are printed; and of
    /// the built-ins Maude declares `assoc comm` and gamelang binary (`gcd(12, 18, 8)`,
    /// `min(a, b, c)`, `_+_(1, 2, 3)`: [`Builtin::is_associative`]). Tried only for a span
    /// nothing else reads (so a term that parsed before reads as before: `f(a, b, c)` with
    /// a `_,_` of its own is still `f(a, (b, c))` where that fits), of the shape
    /// `f ( … , … , … )` with at least two commas outside any parentheses.
    fn assoc_prefix(&mut self, i: usize, j: usize, out: &mut Vec<Reading>) {
        if j < i + 8
            || self.toks[i + 1].text != "("
            || self.toks[j - 1].text != ")"
            || self.below[i + 2] != j
        {
            return;
        }
        let inner = self.depth[i + 2];
        let mut pieces = Vec::new();
        let mut from = i + 2;
        for k in i + 2..j - 1 {
            if self.toks[k].text == "," && self.depth[k] == inner {
                pieces.push((from, k));
                from = k + 1;
            }
        }
        pieces.push((from, j - 1));
        if pieces.len() < 3 || pieces.iter().any(|&(a, b)| a == b) {
            return;
        }
        let grammar = self.grammar;
        let binary_prefix = |s: &Sym| {
            (s.assoc || s.builtin.is_some_and(Builtin::is_associative))
                && s.args.len() == 2
                && matches!(s.form.as_slice(),
                    [PatPiece::Lit(_), PatPiece::Lit(open), PatPiece::Hole, PatPiece::Lit(comma),
                     PatPiece::Hole, PatPiece::Lit(close)]
                    if open == "(" && comma == "," && close == ")")
        };
        for s in grammar.candidates(&self.toks[i].text, &[]) {
            let sym = &grammar.syms[s];
            if !binary_prefix(sym) {
                continue;
            }
            // The readings of each piece that fit its place in `f(a, f(b, c))` (the second
            // argument's sort for the last piece, the first's for the others); none for
            // one piece, no reading of this operator.
            let mut choices: Vec<Vec<Reading>> = Vec::with_capacity(pieces.len());
            for (k, &(a, b)) in pieces.iter().enumerate() {
                let place = usize::from(k + 1 == pieces.len());
                let readings = self.span(a, b);
                let fits: Vec<Reading> = (readings.iter())
                    .filter_map(|r| {
                        let ill = self.fit_as(sym, place, k + 1, r, (a, b), (i, j))?;
                        Some(Reading { ill, ..r.clone() })
                    })
                    .collect();
                if fits.is_empty() {
                    break;
                }
                choices.push(fits);
            }
            if choices.len() < pieces.len() {
                continue;
            }
            // Nested to the right, `f(a, f(b, c))`: for an `assoc` operator `build`
            // flattens it; a built-in stays nested (its operator is binary), which gives
            // the same value whichever way it is nested.
            for mut args in combinations(choices) {
                let Some(last) = args.pop() else {
                    continue;
                };
                let mut acc = Some(last);
                for r in args.into_iter().rev() {
                    acc = acc.and_then(|acc| self.build(sym, vec![r, acc], (i, j)));
                }
                if let Some(r) = acc {
                    push(out, r);
                }
            }
        }
    }

    /// `next-heaps (0 0)`: a unary prefix operator whose parentheses are those of its
    /// argument's own form (here `(__)`). Maude reads the seed's appendix A this way, and
    /// the one-argument case is unambiguous: `f (a b)` can mean nothing else.
    fn juxtaposed_argument(&mut self, i: usize, j: usize, out: &mut Vec<Reading>) {
        if j < i + 3 || self.toks[i + 1].text != "(" || self.toks[j - 1].text != ")" {
            return;
        }
        let head = &self.toks[i].text;
        let lit = |p: &PatPiece, text: &str| matches!(p, PatPiece::Lit(l) if l == text);
        let unary: Vec<usize> = (self.grammar.by_first.get(head))
            .map_or(&[][..], |v| v.as_slice())
            .iter()
            .copied()
            .filter(|&s| {
                let sym = &self.grammar.syms[s];
                sym.args.len() == 1 && sym.form.len() == 4 && lit(&sym.form[1], "(")
            })
            .collect();
        if unary.is_empty() {
            return;
        }
        let readings = self.span(i + 1, j);
        let grammar = self.grammar;
        for r in readings.iter() {
            let parenthesised_form = match &r.pat {
                RPat::App(op, args) if !args.is_empty() => {
                    let form = &self.sig.op(*op).form;
                    form.first() == Some(&PatPiece::Lit("(".into()))
                        && form.last() == Some(&PatPiece::Lit(")".into()))
                }
                _ => false,
            };
            if !parenthesised_form {
                continue;
            }
            for &s in &unary {
                let sym = &grammar.syms[s];
                let declared = sym.args[0];
                let ill = if self.sig.leq(r.sort, declared) {
                    r.ill
                } else if self.sig.same_kind(r.sort, declared) {
                    r.ill + 1
                } else {
                    continue;
                };
                if let Some(reading) = self.build(sym, vec![Reading { ill, ..r.clone() }], (i, j)) {
                    push(out, reading);
                }
            }
        }
    }

    /// Where a sort qualification ending at `j` begins: `.S` at `j - 1`, or `.List`
    /// followed by `{Nat}` (an instance's sort, lexed in pieces) ending at `j`.
    fn qualifier_start(&self, i: usize, j: usize) -> Option<usize> {
        let qualifier = |k: usize| {
            let t = &self.toks[k].text;
            t.len() > 1 && t.starts_with('.')
        };
        if j < i + 2 {
            return None;
        }
        if qualifier(j - 1) {
            return Some(j - 1);
        }
        if self.toks[j - 1].text != "}" {
            return None;
        }
        // Back over balanced braces (a few tokens: `{Set{Nat}}` at most in practice).
        let mut depth = 0i32;
        for k in (i + 1..j).rev().take(16) {
            match self.toks[k].text.as_str() {
                "}" => depth += 1,
                "{" => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                return (k > i && qualifier(k - 1)).then(|| k - 1);
            }
        }
        None
    }

    /// Tokens i..j are balanced: the depth is the same at both ends and never lower between.
    pub(super) fn balanced(&self, i: usize, j: usize) -> bool {
        self.depth[i] == self.depth[j] && self.below[i] >= j
    }

    /// Readings of a single token: an integer, a variable or a constant.
    fn atom(&mut self, i: usize, out: &mut Vec<Reading>) {
        let text = self.toks[i].text.clone();
        if let Some(v) = int_literal(&text) {
            let declared = self.constants(&text, out);
            match v {
                Ok(_) if declared && !self.grammar.numbers => {}
                Ok(n) => {
                    if let Some(sort) = self.sig.literal_sort(n) {
                        push(
                            out,
                            Reading {
                                pat: RPat::Int(n),
                                sort,
                                prec: 0,
                                ill: 0,
                                right: 0,
                            },
                        );
                    }
                }
                Err(()) => {
                    self.bad_sort.get_or_insert(Diag::at(
                        self.toks[i].span,
                        "integer literal out of range",
                        "integers are 64-bit: from -9223372036854775808 to 9223372036854775807",
                    ));
                }
            }
            return;
        }
        // `X:Sort` is a variable; a string literal with a colon in it is not.
        if let Some((name, sort)) = text.split_once(':').filter(|_| !text.starts_with('"')) {
            if !name.is_empty() && !sort.is_empty() {
                match self.vars.inline(name, sort) {
                    Some((v, s)) => push(
                        out,
                        Reading {
                            pat: RPat::Var(v),
                            sort: s,
                            prec: 0,
                            ill: 0,
                            right: 0,
                        },
                    ),
                    None => {
                        // (Where the scope has no such variables, said so: said as the sort
                        // being unknown, it sent people looking for the sort `Nat`.)
                        let d = match self.vars.inline_refused(&text) {
                            Some((message, note)) => {
                                Diag::at(self.toks[i].span, message, "a variable").note(note)
                            }
                            None => {
                                let d = Diag::at(
                                    self.toks[i].span,
                                    format!("unknown sort `{sort}` in variable `{text}`"),
                                    "no such sort here",
                                );
                                let names = self.vars.sort_names();
                                let hints = suggest(sort, names.iter().map(String::as_str));
                                match hints.is_empty() {
                                    true => d,
                                    false => {
                                        d.note(format!("did you mean {}?", quote_list(&hints)))
                                    }
                                }
                            }
                        };
                        self.bad_sort.get_or_insert(d);
                    }
                }
                return;
            }
        }
        if let Some((v, s)) = self.vars.declared(&text) {
            push(
                out,
                Reading {
                    pat: RPat::Var(v),
                    sort: s,
                    prec: 0,
                    ill: 0,
                    right: 0,
                },
            );
        }
        self.constants(&text, out);
    }

    /// The readings of the constants named `text` (operators and view macros without
    /// arguments): whether there are any.
    fn constants(&mut self, text: &str, out: &mut Vec<Reading>) -> bool {
        let mut any = false;
        for sym in &self.grammar.syms {
            if sym.args.is_empty()
                && matches!(sym.form.as_slice(), [PatPiece::Lit(l)] if *l == text)
            {
                let pat = match &sym.target {
                    SymTarget::Op(op) => RPat::app(*op, Vec::new()),
                    SymTarget::Macro(t) => RPat::of(t),
                };
                push(
                    out,
                    Reading {
                        pat,
                        sort: sym.result,
                        prec: 0,
                        ill: 0,
                        right: 0,
                    },
                );
                any = true;
            }
        }
        any
    }

    /// Every way of laying the form of symbol `s` over tokens `i..j`: the span of each hole.
    fn splits(
        &self,
        s: usize,
        piece: usize,
        i: usize,
        j: usize,
        holes: &mut Vec<(usize, usize)>,
        out: &mut Vec<Vec<(usize, usize)>>,
    ) {
        let form = &self.grammar.syms[s].form;
        if out.len() > 256 {
            return;
        }
        if piece == form.len() {
            if i == j {
                out.push(holes.clone());
            }
            return;
        }
        if i >= j {
            return;
        }
        match &form[piece] {
            PatPiece::Lit(l) => {
                if self.toks[i].text == *l {
                    self.splits(s, piece + 1, i + 1, j, holes, out);
                }
            }
            PatPiece::Hole => {
                // Where the hole may end: the span's end for the last piece, else before a
                // token that is the next literal (or anywhere, before another hole).
                let (ends, next) = match form.get(piece + 1) {
                    None => (j..j + 1, None),
                    Some(PatPiece::Lit(next)) => (i + 1..j, Some(next)),
                    Some(PatPiece::Hole) => (i + 1..j, None),
                };
                for k in ends {
                    if next.is_some_and(|l| self.toks[k].text != *l) || !self.balanced(i, k) {
                        continue;
                    }
                    holes.push((i, k));
                    self.splits(s, piece + 1, k, j, holes, out);
                    holes.pop();
                }
            }
        }
    }

    /// Build the readings of symbol `s` applied to the readings of its holes.
    fn apply(
        &mut self,
        s: usize,
        holes: &[(usize, usize)],
        i: usize,
        j: usize,
        out: &mut Vec<Reading>,
    ) {
        // (Borrowed from the grammar, which outlives the parser: not cloned per call.)
        let grammar = self.grammar;
        let sym = &grammar.syms[s];
        let hole_pieces: Vec<usize> = sym
            .form
            .iter()
            .enumerate()
            .filter(|(_, p)| **p == PatPiece::Hole)
            .map(|(k, _)| k)
            .collect();
        let mut choices: Vec<Vec<Reading>> = Vec::with_capacity(holes.len());
        for (a, &(hi, hj)) in holes.iter().enumerate() {
            let piece = hole_pieces[a];
            let max_prec = self.allowed_prec(sym, piece);
            let declared = sym.args[a];
            let mut ok = Vec::new();
            let readings = self.span(hi, hj);
            for r in readings.iter() {
                if r.prec > max_prec {
                    continue;
                }
                if Some(declared) == self.sig.universal_sort || self.sig.leq(r.sort, declared) {
                    ok.push(r.clone());
                } else if self.sig.same_kind(r.sort, declared) {
                    ok.push(Reading {
                        ill: r.ill + 1,
                        ..r.clone()
                    });
                } else {
                    self.near_miss(sym, a, r, (hi, hj), (i, j));
                }
            }
            if ok.is_empty() {
                return;
            }
            choices.push(ok);
        }
        for args in combinations(choices) {
            if let Some(r) = self.build(sym, args, (i, j)) {
                push(out, r);
            }
        }
    }

    /// The highest precedence an argument in form piece `piece` may have.
    pub(super) fn allowed_prec(&self, sym: &Sym, piece: usize) -> u32 {
        let form = &sym.form;
        let lit_before = piece > 0 && matches!(form[piece - 1], PatPiece::Lit(_));
        let lit_after = piece + 1 < form.len() && matches!(form[piece + 1], PatPiece::Lit(_));
        if lit_before && lit_after {
            return u32::MAX; // enclosed: anything goes
        }
        if let Some(gather) = &sym.gather {
            // An explicit `gather (e E)`: `e` strictly below the operator's precedence,
            // `E` at most it, `&` anything (Maude's meaning).
            let hole = form[..piece]
                .iter()
                .filter(|p| **p == PatPiece::Hole)
                .count();
            return match gather.get(hole) {
                Some(Gather::Below) => sym.prec.saturating_sub(1),
                Some(Gather::AtMost) | None => sym.prec,
                Some(Gather::Any) => u32::MAX,
            };
        }
        // The last argument of a binary open operator may have the operator's own
        // precedence too (Maude's default gathering, `E`): such a reading groups to the
        // right and counts one in `Reading::right` (see `build`), so that left grouping
        // wins wherever it is as well sorted.
        sym.prec
    }

    /// Does an argument of precedence `prec` in the last place of `sym` (with these many
    /// holes) group to the right, where left associativity would have refused it?
    fn groups_right(sym: &Sym, n_holes: usize, prec: u32) -> bool {
        n_holes > 1
            && sym.gather.is_none()
            && !sym.assoc
            && sym.prec > 0
            && prec == sym.prec
            && sym.form.last() == Some(&PatPiece::Hole)
    }

    /// How argument `a` of `sym` fits reading `r`: the reading's `ill` count with this
    /// argument (one more when only its kind fits), or `None` (a near miss, recorded).
    pub(super) fn arg_fit(
        &mut self,
        sym: &Sym,
        a: usize,
        r: &Reading,
        arg: (usize, usize),
        whole: (usize, usize),
    ) -> Option<u32> {
        self.fit_as(sym, a, a + 1, r, arg, whole)
    }

    /// [`TermParser::arg_fit`] for a reading in argument place `a` that the user wrote as
    /// argument `number` (they differ in the n-ary form `f(a, b, c)`: see
    /// [`TermParser::assoc_prefix`]), which a near miss names.
    fn fit_as(
        &mut self,
        sym: &Sym,
        a: usize,
        number: usize,
        r: &Reading,
        arg: (usize, usize),
        whole: (usize, usize),
    ) -> Option<u32> {
        let declared = sym.args[a];
        if Some(declared) == self.sig.universal_sort || self.sig.leq(r.sort, declared) {
            Some(r.ill)
        } else if self.sig.same_kind(r.sort, declared) {
            Some(r.ill + 1)
        } else {
            self.near_miss_as(sym, a, number, r, arg, whole);
            None
        }
    }

    pub(super) fn build(
        &mut self,
        sym: &Sym,
        args: Vec<Reading>,
        (i, j): (usize, usize),
    ) -> Option<Reading> {
        let ill: u32 = args.iter().map(|a| a.ill).sum();
        let last_prec = args.last().map_or(0, |a| a.prec);
        let right: u32 = args.iter().map(|a| a.right).sum::<u32>()
            + u32::from(Self::groups_right(sym, args.len(), last_prec));
        let mut sort = match sym.target {
            SymTarget::Op(op) if !self.sig.op(op).overloads.is_empty() => {
                let sorts: Vec<SortId> = args.iter().map(|a| a.sort).collect();
                self.sig.app_sort(op, &sorts)
            }
            _ => sym.result,
        };
        let mut extra_ill = 0;
        match sym.builtin {
            Some(Builtin::IfThenElse) => {
                let (a, b) = (args[1].sort, args[2].sort);
                if self.sig.leq(a, b) {
                    sort = b;
                } else if self.sig.leq(b, a) {
                    sort = a;
                } else if self.sig.same_kind(a, b) {
                    sort = a;
                    extra_ill = 1;
                } else {
                    self.near_miss(sym, 2, &args[2], (i, j), (i, j));
                    return None;
                }
            }
            Some(Builtin::Equal | Builtin::NotEqual)
                if !self.sig.same_kind(args[0].sort, args[1].sort) =>
            {
                self.near_miss(sym, 1, &args[1], (i, j), (i, j));
                return None;
            }
            _ => {}
        }
        let pats: Vec<RPat> = args.into_iter().map(|a| a.pat).collect();
        let pat = match &sym.target {
            SymTarget::Op(op) => {
                if sym.assoc {
                    let mut flat = Vec::with_capacity(pats.len());
                    for p in pats {
                        match p.into_args_of(*op) {
                            Ok(inner) => flat.extend(inner),
                            Err(other) => flat.push(other),
                        }
                    }
                    RPat::app(*op, flat)
                } else {
                    RPat::app(*op, pats)
                }
            }
            SymTarget::Macro(template) => substitute(template, &pats),
        };
        Some(Reading {
            pat,
            sort,
            prec: sym.prec,
            ill: ill + extra_ill,
            right,
        })
    }

    fn near_miss(
        &mut self,
        sym: &Sym,
        arg: usize,
        r: &Reading,
        hole: (usize, usize),
        whole: (usize, usize),
    ) {
        self.near_miss_as(sym, arg, arg + 1, r, hole, whole);
    }

    /// [`TermParser::near_miss`] for argument place `arg`, written as argument `number`.
    fn near_miss_as(
        &mut self,
        sym: &Sym,
        arg: usize,
        number: usize,
        r: &Reading,
        (hi, hj): (usize, usize),
        (i, j): (usize, usize),
    ) {
        let width = j - i;
        if self.near.as_ref().is_some_and(|n| n.width >= width) {
            return;
        }
        let arg_span = self.toks[hi].span.to(self.toks[hj - 1].span);
        let expected = if arg < sym.args.len() && Some(sym.args[arg]) != self.sig.universal_sort {
            format!("`{}`", self.sig.sort(sym.args[arg]).name)
        } else {
            "the kind of the other argument".to_string()
        };
        let diag = Diag::at(
            arg_span,
            format!(
                "argument {number} of `{}` has the wrong sort: expected {expected}, found `{}`",
                sym.name,
                self.sig.sort(r.sort).name
            ),
            format!("this is of sort `{}`", self.sig.sort(r.sort).name),
        )
        .secondary(
            self.toks[i].span.to(self.toks[j - 1].span),
            format!("in this application of `{}`", sym.name),
        )
        .note(format!(
            "`{}` : {} -> {}",
            sym.name,
            sym.args
                .iter()
                .map(|s| self.sig.sort(*s).name.clone())
                .collect::<Vec<_>>()
                .join(" "),
            self.sig.sort(sym.result).name
        ));
        self.near = Some(NearMiss { width, diag });
    }

    /// Why did nothing parse? The first unknown token, else the closest near miss, else the
    /// whole term.
    fn explain_failure(&mut self, whole: Span) -> Diag {
        if let Some(d) = self.bad_sort.take() {
            return d;
        }
        for (i, t) in self.toks.iter().enumerate() {
            let known = matches!(t.text.as_str(), "(" | ")" | ",")
                || int_literal(&t.text).is_some()
                || self.grammar.literals().contains(&t.text)
                || self.vars.declared(&t.text).is_some();
            // Maude's sort qualification `(t).S` after a parenthesised term, of an
            // unknown sort or one no reading of `t` has.
            let qualifier = t.text.len() > 1
                && t.text.starts_with('.')
                && i > 0
                && self.toks[i - 1].text == ")";
            if !known && qualifier {
                let name = &t.text[1..];
                let exists =
                    (0..self.sig.sorts.len() as u32).any(|s| self.sig.sort(SortId(s)).name == name);
                return if exists {
                    Diag::at(
                        t.span,
                        format!(
                            "the term before `{}` has no reading of sort `{name}`",
                            t.text
                        ),
                        "no reading of this sort",
                    )
                    .note("`(t).S` chooses, among the readings of `t`, those of sort `S` or below")
                } else {
                    Diag::at(
                        t.span,
                        format!("unknown sort `{name}`"),
                        "in this sort qualification",
                    )
                    .note("`(t).S` chooses, among the readings of `t`, those of sort `S` or below")
                };
            }
            if !known {
                // A term of one unknown token where a sort is expected (`--first X`): the
                // constants of that sort's kind first (not `w`, an operator of WINS).
                let constants: Vec<&str> = match self.expected {
                    Some(e) if self.toks.len() == 1 => (self.grammar.syms.iter())
                        .filter(|s| s.args.is_empty() && self.sig.same_kind(s.result, e))
                        .map(|s| s.name.as_str())
                        .collect(),
                    _ => Vec::new(),
                };
                let mut hints = suggest(&t.text, constants.iter().copied());
                if hints.is_empty() {
                    let mut names: Vec<String> =
                        self.grammar.op_names().map(|s| s.to_string()).collect();
                    names.extend(self.vars.names());
                    hints = suggest(&t.text, names.iter().map(String::as_str));
                }
                let mut d = Diag::at(
                    t.span,
                    format!("unknown operator or variable `{}`", t.text),
                    "not declared in this module",
                );
                if !hints.is_empty() {
                    d = d.note(format!("did you mean {}?", quote_list(&hints)));
                }
                // Maude's `s_`, `gcd`, `modExp`… of `NAT`, in a module that does not
                // import the prelude's `INT`, which has them.
                if let Some(note) = prelude_int_note(self.sig, &t.text) {
                    d = d.note(note);
                }
                if crate::parser::DECLARATION_KEYWORDS.contains(&t.text.as_str())
                    || END_KEYWORDS.contains(&t.text.as_str())
                    || GAME_FIELDS.contains(&t.text.as_str())
                {
                    d = match i.checked_sub(1).map(|j| &self.toks[j]) {
                        // The term ran on into the next declaration: its ` .` is missing
                        // after the token before the keyword, which is where it is shown.
                        Some(last) => Diag::at(
                            last.span,
                            format!("missing ` .` at the end of the declaration before `{}`", t.text),
                            "the declaration ends here, without ` .`",
                        )
                        .secondary(t.span, "the next declaration starts here")
                        .note(format!(
                            "help: add ` .` after `{}`: every declaration ends with a period; without it the declaration runs on into the `{}` that follows",
                            last.text, t.text
                        )),
                        None => Diag::at(t.span, format!("`{}` inside a term: is the ` .` ending the previous declaration missing?", t.text), "a declaration keyword, not an operator")
                            .note("every declaration ends with ` .` (a dot after a space)"),
                    };
                }
                return d;
            }
        }
        if let Some(n) = self.near.take() {
            return n.diag;
        }
        super::extend::explain_no_parse(self.grammar, &self.toks, whole)
    }
}

pub(super) fn push(out: &mut Vec<Reading>, r: Reading) {
    if let Some(existing) = out.iter_mut().find(|o| o.pat == r.pat) {
        if r.rank() < existing.rank() {
            *existing = r;
        }
        return;
    }
    // A reading another one beats wherever it could stand is not kept (nor counted
    // towards the limit): the right groupings of a chain `a - b - c - d` that also
    // groups to the left, which would otherwise multiply (every bracketing of the chain).
    if out.iter().any(|o| o.dominates(&r)) {
        return;
    }
    out.retain(|o| !r.dominates(o));
    if out.len() < MAX_READINGS {
        out.push(r);
    }
}

/// Every choice of one reading per argument from `choices` (each argument's readings), up
/// to about [`MAX_READINGS`] of them. When each argument has one reading (the common case)
/// they are moved into the one choice: a product of copies would copy every argument's
/// pattern once per argument, a quadratic time for `f(…)` of thousands of arguments.
fn combinations(choices: Vec<Vec<Reading>>) -> Vec<Vec<Reading>> {
    if choices.iter().all(|c| c.len() == 1) {
        return vec![choices.into_iter().filter_map(|mut c| c.pop()).collect()];
    }
    let mut combos: Vec<Vec<Reading>> = vec![Vec::new()];
    for c in &choices {
        let mut next = Vec::new();
        for prefix in &combos {
            for r in c {
                let mut p = prefix.clone();
                p.push(r.clone());
                next.push(p);
                if next.len() > MAX_READINGS {
                    break;
                }
            }
        }
        combos = next;
    }
    combos
}

/// For a term that does not parse: the `weak` operators whose tokens it uses and that the
/// module does not see, because it sees another of their name (INT's `_&_` where a map's
/// `_&_` is visible), with the built-in's other name where the module sees one (`band`).
fn hidden_weak_notes(sig: &Signature, grammar: &Grammar, toks: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    for &(weak, instead) in &grammar.hidden_weak {
        let (w, i) = (sig.op(weak), sig.op(instead));
        let used = w.form.iter().all(|p| match p {
            PatPiece::Lit(l) => toks.iter().any(|t| &t.text == l),
            PatPiece::Hole => true,
        });
        if !used {
            continue;
        }
        let mut note = format!(
            "{}'s `{}` is `weak`: this module sees the `{}` of {} instead (docs/language.md, Operator attributes)",
            w.module, w.name, i.name, i.module
        );
        let alias = (grammar.syms.iter()).find_map(|s| match s.target {
            SymTarget::Op(o)
                if w.attrs.builtin.is_some() && sig.op(o).attrs.builtin == w.attrs.builtin =>
            {
                Some(sig.op(o).name.clone())
            }
            _ => None,
        });
        if let Some(a) = alias {
            note.push_str(&format!("; its other name `{a}` is seen here"));
        }
        out.push(note);
    }
    out
}

/// For an unknown name that begins an operator of the prelude's `INT` (Maude's `s_`,
/// `gcd`, `modExp`, …, which a Maude program gets from `NAT`): where that operator is.
fn prelude_int_note(sig: &Signature, name: &str) -> Option<String> {
    let op = (sig.ops.iter()).find(|o| {
        o.module == "INT" && matches!(o.form.first(), Some(PatPiece::Lit(l)) if l == name)
    })?;
    Some(format!(
        "`{}` is the prelude's, in `INT` (also named `NAT`), which this module does not import: add `protecting INT .`",
        op.name
    ))
}

/// Replace `Var(i)` in a view's term template by the i-th argument (a reading's term,
/// shared, not copied).
fn substitute(template: &Pat, args: &[RPat]) -> RPat {
    match template {
        Pat::Var(i) => args[*i as usize].clone(),
        Pat::App(op, xs) => RPat::app(*op, xs.iter().map(|x| substitute(x, args)).collect()),
        Pat::Int(n) => RPat::Int(*n),
    }
}

fn quote_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// A fully parenthesised rendering of a parsed term, for showing alternative readings.
pub fn show_pat(sig: &Signature, pat: &Pat) -> String {
    match pat {
        Pat::Var(i) => format!("?{i}"),
        Pat::Int(n) => n.to_string(),
        Pat::App(op, args) => {
            let info = sig.op(*op);
            if args.is_empty() {
                return info.name.clone();
            }
            let holes = info.form.iter().filter(|p| **p == PatPiece::Hole).count();
            if holes != args.len() {
                // Flattened associative application.
                let parts: Vec<String> = args.iter().map(|a| show_pat(sig, a)).collect();
                return format!("{}({})", info.name, parts.join(", "));
            }
            let mut out = String::from("(");
            let mut k = 0;
            for (n, piece) in info.form.iter().enumerate() {
                if n > 0 {
                    out.push(' ');
                }
                match piece {
                    PatPiece::Lit(l) => out.push_str(l),
                    PatPiece::Hole => {
                        out.push_str(&show_pat(sig, &args[k]));
                        k += 1;
                    }
                }
            }
            out.push(')');
            out
        }
    }
}

/// The union of two increasing lists of indices, in increasing order.
fn merge_sorted<'a>(a: &'a [usize], b: &'a [usize]) -> impl Iterator<Item = usize> + 'a {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || {
        let next = match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) => x.min(y),
            (Some(&x), None) | (None, Some(&x)) => x,
            (None, None) => return None,
        };
        i += usize::from(a.get(i) == Some(&next));
        j += usize::from(b.get(j) == Some(&next));
        Some(next)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elab::Session;

    /// The index of symbols by first piece gives, for every token, exactly the symbols a
    /// scan of all of them would try, in the same order (the order readings are found in,
    /// which decides the first `MAX_READINGS` and how an ambiguity is reported).
    #[test]
    fn candidates_are_the_symbols_a_full_scan_would_try_in_order() {
        let mut s = Session::new().expect("stdlib loads");
        let src = "fmod T is\n  protecting SET{Nat} .\n  protecting MAP{Nat, Nat} .\n  op (__) : Nat Nat -> Nat [ctor] .\n  op f : Nat -> Nat .\n  op _$_ : Nat Nat -> Nat .\nendfm\n";
        s.load_source("test.game", src).expect("loads");
        let g = s.grammar(s.module_by_name("T").expect("module T"));
        let mut tokens: Vec<String> = g.literals().iter().cloned().collect();
        tokens.extend(["x".to_string(), "1".to_string()]);
        for t in &tokens {
            let scan: Vec<usize> = (0..g.syms.len())
                .filter(|&i| {
                    let sym = &g.syms[i];
                    !sym.args.is_empty()
                        && !matches!(sym.form.first(), Some(PatPiece::Lit(l)) if l != t)
                })
                .collect();
            assert_eq!(
                g.candidates(t, &g.hole_first).collect::<Vec<_>>(),
                scan,
                "token {t:?}"
            );
            // The chain parser's indexes against scans of every symbol.
            let infix: Vec<usize> = (0..g.syms.len())
                .filter(|&i| matches!(g.syms[i].form.as_slice(), [PatPiece::Hole, PatPiece::Lit(l), PatPiece::Hole] if l == t))
                .collect();
            assert_eq!(g.chains().infix(t), infix.as_slice(), "infix {t:?}");
            let top: Vec<usize> = (0..g.syms.len())
                .filter(|&i| top_level_scan(&g.syms[i].form, t))
                .collect();
            assert_eq!(g.chains().top_level(t), top.as_slice(), "top level {t:?}");
        }
        let jux: Vec<usize> = (0..g.syms.len())
            .filter(|&i| g.syms[i].form == [PatPiece::Hole, PatPiece::Hole])
            .collect();
        assert_eq!(g.chains().juxtaposition, jux);
        let paren = (g.syms.iter()).any(|s| s.form.first() == Some(&PatPiece::Lit("(".into())));
        assert_eq!(g.chains().paren_first, paren);
        assert!(g.syms.len() > 50 && !g.hole_first.is_empty() && g.by_first.len() > 10);
        assert!(!g.chains().infix.is_empty() && !g.chains().top_level.is_empty());
    }

    /// Does `t` occur in `form` outside the form's own parentheses? (What the chain
    /// parser asked of every symbol before the grammar indexed it.)
    fn top_level_scan(form: &[PatPiece], t: &str) -> bool {
        let mut depth = 0i32;
        for p in form {
            if let PatPiece::Lit(l) = p {
                if l == t && depth == 0 {
                    return true;
                }
                match l.as_str() {
                    "(" => depth += 1,
                    ")" => depth -= 1,
                    _ => {}
                }
            }
        }
        false
    }

    #[test]
    fn merge_sorted_is_the_ordered_union() {
        let cases: [(&[usize], &[usize]); 5] = [
            (&[], &[]),
            (&[1, 4, 9], &[]),
            (&[], &[2, 3]),
            (&[0, 5, 7], &[1, 5, 8, 9]),
            (&[3], &[0, 1, 2, 3]),
        ];
        for (a, b) in cases {
            let mut want: Vec<usize> = a.iter().chain(b).copied().collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(merge_sorted(a, b).collect::<Vec<_>>(), want, "{a:?} {b:?}");
        }
    }
}
