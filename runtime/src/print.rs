//! Printing terms in the concrete mixfix syntax, so that the output parses back to the
//! same term.
//!
//! * integers in decimal, constants bare, prefix operators as `f(a, b)`;
//! * mixfix operators by their form: literal pieces and arguments separated by single
//!   spaces, except no space after `(` `[` `{`, none before `)` `]` `}` `,`, and none
//!   between a name and the `(` that opens its argument list;
//! * terms of `assoc` operators flattened: `a, b, c`;
//! * an argument in a hole that is not enclosed between two literal pieces is
//!   parenthesised when its own operator is an *open* mixfix operator (its form starts or
//!   ends with a hole) whose precedence is ≥ the parent's (not for the flattened arguments
//!   of an `assoc` operator, which are never headed by it);
//!   A list built by a binary operator that can only nest to the right (`_;_ : Int Rows ->
//!   Rows`: its first argument is of another kind than its result, so `(1 ; 2) ; nil`
//!   cannot be read) is the exception: its last argument headed by the same operator is
//!   not parenthesised, `1 ; 2 ; nil`, as Maude prints it and as the parser reads it back;
//!   nor is an argument in the last hole headed by an operator whose form starts with a
//!   token and whose precedence is not above the parent's (`s s 0`, `- - 1`);
//! * an argument in an enclosed hole is parenthesised only when it is headed by an open
//!   operator whose form uses one of the two delimiting literals: `f((a, b), c)`;
//! * a finite map of two or more entries (a map term of the store) as its entries joined
//!   by its `_&_`, keys in structural order: `a |-> 1 & b |-> 0`; it is parenthesised as
//!   an application of `_&_` would be.
//!
//! [`Engine::show`] prints a term in full, however large or deep (the printer keeps its
//! own stack, so a term nested 100,000 deep prints without overflowing the thread's);
//! [`Engine::show_limited`] cuts the output with `…` after about `max_chars` bytes.

use crate::engine::Engine;
use crate::term::{TermId, TermStore};
use gamelang_lang::program::{Gather, OpId, OpInfo, PatPiece, Signature};
use rustc_hash::FxHashMap;

/// Print `t` in concrete syntax, eliding with `…` beyond about `max_chars` bytes
/// (`usize::MAX`: in full).
pub fn print_term(sig: &Signature, store: &TermStore, t: TermId, max_chars: usize) -> String {
    let mut p = Printer {
        sig,
        store,
        out: String::new(),
        max: max_chars,
        full: false,
        right_nesting: FxHashMap::default(),
    };
    p.run(t);
    if p.full {
        p.out.push('…');
    }
    p.out
}

impl Engine {
    /// `t` in concrete syntax, in full (parses back to `t`).
    pub fn show(&self, t: TermId) -> String {
        print_term(&self.program().sig, self.store(), t, usize::MAX)
    }

    /// `t` in concrete syntax, cut with `…` after about `max_chars` bytes.
    pub fn show_limited(&self, t: TermId, max_chars: usize) -> String {
        print_term(&self.program().sig, self.store(), t, max_chars)
    }
}

#[derive(Clone, Copy)]
enum Item<'a> {
    Lit(&'a str),
    Arg,
}

/// What is left to print, innermost last: the printer's explicit stack.
enum Task<'a> {
    Text(&'a str),
    Owned(String),
    Term(TermId),
    /// An argument of an operator: parenthesised or not (see [`Printer::arg`]).
    /// `last`: in the operator's last hole, at the end of its form.
    Arg {
        arg: TermId,
        parent: OpId,
        enclosed: Option<(&'a str, &'a str)>,
        /// Which argument (hole) of the operator.
        hole: usize,
        /// In the operator's first hole, at the start of its form.
        first: bool,
        last: bool,
    },
}

struct Printer<'a> {
    sig: &'a Signature,
    store: &'a TermStore,
    out: String,
    max: usize,
    full: bool,
    /// Whether each binary operator asked about nests only to the right (see
    /// [`Printer::nests_right`]).
    right_nesting: FxHashMap<OpId, bool>,
}

fn space_between(prev: Item<'_>, next: Item<'_>) -> bool {
    if let Item::Lit(p) = prev {
        if p.ends_with(['(', '[', '{']) {
            return false;
        }
    }
    if let Item::Lit(n) = next {
        if n.starts_with([')', ']', '}', ',']) {
            return false;
        }
        // `f(`: a name directly followed by the opening parenthesis of its arguments.
        if n == "(" {
            if let Item::Lit(p) = prev {
                if p.ends_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_' || c == '\'') {
                    return false;
                }
            }
        }
    }
    true
}

fn is_open(form: &[PatPiece]) -> bool {
    matches!(form.first(), Some(PatPiece::Hole)) || matches!(form.last(), Some(PatPiece::Hole))
}

/// The pieces of one term, in order, before they go on the stack.
struct Pieces<'a> {
    items: Vec<Task<'a>>,
}

impl<'a> Pieces<'a> {
    fn sep(&mut self, prev: Option<Item<'_>>, next: Item<'_>) {
        if let Some(prev) = prev {
            if space_between(prev, next) {
                self.items.push(Task::Text(" "));
            }
        }
    }
}

impl<'a> Printer<'a> {
    fn push(&mut self, s: &str) {
        if self.full {
            return;
        }
        if self.out.len().saturating_add(s.len()) > self.max {
            let mut cut = self.max.saturating_sub(self.out.len()).min(s.len());
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            self.out.push_str(&s[..cut]);
            self.full = true;
        } else {
            self.out.push_str(s);
        }
    }

    fn run(&mut self, t: TermId) {
        let mut stack = vec![Task::Term(t)];
        while let Some(task) = stack.pop() {
            if self.full {
                return;
            }
            let pieces = match task {
                Task::Text(s) => {
                    self.push(s);
                    continue;
                }
                Task::Owned(s) => {
                    self.push(&s);
                    continue;
                }
                Task::Term(t) => self.term(t),
                Task::Arg {
                    arg,
                    parent,
                    enclosed,
                    hole,
                    first,
                    last,
                } => self.arg(arg, parent, enclosed, (hole, first, last)),
            };
            stack.extend(pieces.items.into_iter().rev());
        }
    }

    /// The pieces of `t`: literal text, and its arguments still to print.
    fn term(&self, t: TermId) -> Pieces<'a> {
        let mut p = Pieces { items: Vec::new() };
        if let Some(entries) = self.store.map_entries_sorted(t) {
            return self.map(t, entries);
        }
        // A string, computed or a literal, as Maude writes it: `"\a"`, `"\000"`, however
        // the literal was spelled (`"\007"`, `"\0"`).
        if let Some(text) = self.store.str_text(t) {
            p.items.push(Task::Owned(quote(text)));
            return p;
        }
        let Some((op, args)) = self.store.app(t) else {
            let v = self.store.int(t).unwrap_or_default();
            p.items.push(Task::Owned(v.to_string()));
            return p;
        };
        let sig: &'a Signature = self.sig;
        let info = sig.op(op);
        if info.attrs.builtin == Some(gamelang_lang::program::Builtin::GridPacked) {
            if let Some(b) =
                <crate::grid::Board as crate::grid::BoardTerm>::from_term(self.store, op, t)
            {
                p.items
                    .push(Task::Owned(format!("board(\"{}\")", b.compact())));
                return p;
            }
        }
        let form = info.form.as_slice();
        let holes = form.iter().filter(|p| matches!(p, PatPiece::Hole)).count();
        if args.is_empty() && holes == 0 {
            let mut prev = None;
            if form.is_empty() {
                p.items.push(Task::Text(&info.name));
            }
            for piece in form {
                if let PatPiece::Lit(s) = piece {
                    p.sep(prev, Item::Lit(s));
                    p.items.push(Task::Text(s));
                    prev = Some(Item::Lit(s));
                }
            }
            return p;
        }
        // Flattened assoc term with a binary infix form `_ sep… _`.
        let infix = holes == 2
            && form.len() >= 2
            && matches!(form.first(), Some(PatPiece::Hole))
            && matches!(form.last(), Some(PatPiece::Hole));
        if info.attrs.assoc && args.len() > 2 && infix {
            let seps = &form[1..form.len() - 1];
            for (i, &a) in args.iter().enumerate() {
                let mut prev = None;
                if i > 0 {
                    prev = Some(Item::Arg);
                    for piece in seps {
                        if let PatPiece::Lit(s) = piece {
                            p.sep(prev, Item::Lit(s));
                            p.items.push(Task::Text(s));
                            prev = Some(Item::Lit(s));
                        }
                    }
                }
                p.sep(prev, Item::Arg);
                p.items.push(Task::arg(a, op));
            }
            return p;
        }
        if holes != args.len() {
            // No usable form: prefix notation with the declared name.
            p.items.push(Task::Text(&info.name));
            p.items.push(Task::Text("("));
            for (i, &a) in args.iter().enumerate() {
                if i > 0 {
                    p.items.push(Task::Text(", "));
                }
                p.items.push(Task::Term(a));
            }
            p.items.push(Task::Text(")"));
            return p;
        }
        let mut prev: Option<Item<'_>> = None;
        let mut next_arg = 0;
        for (j, piece) in form.iter().enumerate() {
            match piece {
                PatPiece::Lit(s) => {
                    p.sep(prev, Item::Lit(s));
                    p.items.push(Task::Text(s));
                    prev = Some(Item::Lit(s));
                }
                PatPiece::Hole => {
                    let (before, after) =
                        match (j.checked_sub(1).map(|i| &form[i]), form.get(j + 1)) {
                            (Some(PatPiece::Lit(b)), Some(PatPiece::Lit(a))) => {
                                (Some(b.as_str()), Some(a.as_str()))
                            }
                            _ => (None, None),
                        };
                    p.sep(prev, Item::Arg);
                    p.items.push(Task::Arg {
                        arg: args[next_arg],
                        parent: op,
                        enclosed: before.zip(after),
                        hole: next_arg,
                        first: j == 0,
                        last: j + 1 == form.len(),
                    });
                    next_arg += 1;
                    prev = Some(Item::Arg);
                }
            }
        }
        p
    }

    /// The pieces of the map term `t`: `k1 |-> v1 & k2 |-> v2 …` (`map(k1 |-> v1, …)` if
    /// its module declares no `_&_`, which the standard library's always does).
    fn map(&self, t: TermId, entries: Vec<(TermId, TermId)>) -> Pieces<'a> {
        let mut p = Pieces { items: Vec::new() };
        let Some((join, entry)) = self.store.map_print_ops(t) else {
            return p;
        };
        let sig: &'a Signature = self.sig;
        let arrow: &'a str = sig
            .op(entry)
            .form
            .iter()
            .find_map(|piece| match piece {
                PatPiece::Lit(s) => Some(s.as_str()),
                PatPiece::Hole => None,
            })
            .unwrap_or("|->");
        let sep: &'a str = join
            .and_then(|j| {
                sig.op(j).form.iter().find_map(|piece| match piece {
                    PatPiece::Lit(s) => Some(s.as_str()),
                    PatPiece::Hole => None,
                })
            })
            .unwrap_or(",");
        if join.is_none() {
            p.items.push(Task::Text("map("));
        }
        for (i, (k, v)) in entries.into_iter().enumerate() {
            if i > 0 {
                p.items.push(Task::Text(" "));
                p.items.push(Task::Text(sep));
                p.items.push(Task::Text(" "));
            }
            p.items.push(Task::arg(k, entry));
            p.items.push(Task::Text(" "));
            p.items.push(Task::Text(arrow));
            p.items.push(Task::Text(" "));
            p.items.push(Task::arg(v, entry));
        }
        if join.is_none() {
            p.items.push(Task::Text(")"));
        }
        p
    }

    /// An argument of `parent`. `enclosed` gives the literal pieces around its hole when
    /// both are literals.
    fn arg(
        &mut self,
        a: TermId,
        parent: OpId,
        enclosed: Option<(&str, &str)>,
        (hole, first, last): (usize, bool, bool),
    ) -> Pieces<'a> {
        // A map term is printed as an application of its `_&_`.
        let head = self
            .store
            .op(a)
            .or_else(|| self.store.map_print_ops(a).and_then(|(join, _)| join));
        let gathered = (self.sig.op(parent).attrs.gather.as_ref()).and_then(|g| g.get(hole));
        let parens = match (head, gathered) {
            (Some(op), Some(&g)) if enclosed.is_none() => {
                self.gathered_parens(op, parent, g, first)
            }
            _ => self.default_parens(head, parent, enclosed, first, last, a),
        };
        let mut p = Pieces { items: Vec::new() };
        if parens {
            p.items.push(Task::Text("("));
            p.items.push(Task::Term(a));
            p.items.push(Task::Text(")"));
        } else {
            p.items.push(Task::Term(a));
        }
        p
    }

    /// Does an argument headed by `op` in a hole of `parent` whose `gather` entry is `g`
    /// need parentheses? When its precedence is above what `g` allows; and, at the
    /// precedence `E` allows, unless the other grouping is excluded by `op`'s own
    /// `gather`: `x ^ (y ^ z)` of a right-associative `_^_` (`gather (e E)`) prints
    /// `x ^ y ^ z`, since `(x ^ y) ^ z` would need an `E` in `_^_`'s first place.
    fn gathered_parens(&self, op: OpId, parent: OpId, g: Gather, first: bool) -> bool {
        let (info, outer) = (self.sig.op(op), self.sig.op(parent));
        if !is_open(&info.form) {
            return false;
        }
        let prec = info.attrs.prec;
        match g {
            Gather::Below => prec >= outer.attrs.prec,
            Gather::Any => true,
            Gather::AtMost if prec < outer.attrs.prec => false,
            Gather::AtMost if prec > outer.attrs.prec => true,
            Gather::AtMost => {
                // The other grouping puts `parent` inside `op`, in `op`'s last place (the
                // argument is in `parent`'s first) or its first.
                let other_side = match &info.attrs.gather {
                    Some(og) if first => og.last(),
                    Some(og) => og.first(),
                    None => None,
                };
                other_side != Some(&Gather::Below)
            }
        }
    }

    /// The same without a `gather` (see the module documentation).
    fn default_parens(
        &mut self,
        head: Option<OpId>,
        parent: OpId,
        enclosed: Option<(&str, &str)>,
        first: bool,
        last: bool,
        a: TermId,
    ) -> bool {
        match head {
            Some(op) if op == parent && last && self.nests_right(op) => false,
            Some(op) if first && self.groups_left(a, op, parent) => false,
            // In the last hole, an operator whose form starts with a token (`s_`,
            // `let_in_`) cannot take what stands before it: `s s 0`, as Maude prints it.
            Some(op)
                if last
                    && matches!(self.sig.op(op).form.first(), Some(PatPiece::Lit(_)))
                    && self.sig.op(op).attrs.prec <= self.sig.op(parent).attrs.prec =>
            {
                false
            }
            Some(op) if op != parent || !self.sig.op(parent).attrs.assoc => {
                let info = self.sig.op(op);
                is_open(&info.form)
                    && match enclosed {
                        None => info.attrs.prec >= self.sig.op(parent).attrs.prec,
                        // Enclosed, but the argument's own operator uses one of the
                        // delimiters: `f((a, b), c)`.
                        Some((before, after)) => info
                            .form
                            .iter()
                            .any(|p| matches!(p, PatPiece::Lit(l) if l == before || l == after)),
                    }
            }
            _ => false,
        }
    }
}

impl Task<'_> {
    /// An argument of `parent` in a hole that is neither enclosed nor last.
    fn arg(arg: TermId, parent: OpId) -> Self {
        Task::Arg {
            arg,
            parent,
            enclosed: None,
            hole: 0,
            first: false,
            last: false,
        }
    }
}

impl Printer<'_> {
    /// May the argument `a` (headed by `op`) in the first hole of `parent` go without
    /// parentheses because the parser reads it back there? `x -- y -- z` is read as
    /// `(x -- y) -- z` when that reading is well sorted: both operators binary, open and
    /// not `assoc`, of one precedence, so that the other grouping `x -- (y -- z)` counts
    /// a right grouping and loses (`Reading::right` in `lang/src/elab/mixfix.rs`), as in
    /// Maude, which prints `i | o | o` for `(i | o) | o`.
    fn groups_left(&self, a: TermId, op: OpId, parent: OpId) -> bool {
        let (info, outer) = (self.sig.op(op), self.sig.op(parent));
        let binary_open = |o: &OpInfo| {
            o.args.len() == 2
                && o.form.len() == 3
                && matches!(o.form.first(), Some(PatPiece::Hole))
                && matches!(o.form.last(), Some(PatPiece::Hole))
                && !o.attrs.assoc
        };
        // The other grouping puts `parent` in `op`'s last place: a default `op` counts it
        // as a right grouping, one whose `gather` ends in `e` refuses it.
        let other_refused = match &info.attrs.gather {
            None => true,
            Some(g) => g.last() == Some(&Gather::Below),
        };
        binary_open(info)
            && binary_open(outer)
            && other_refused
            && info.attrs.prec > 0
            && info.attrs.prec == outer.attrs.prec
            && self.sig.leq(self.store.sort_of(a), outer.args[0])
    }

    /// Does `op` nest only to the right, so that its last argument headed by `op` needs no
    /// parentheses? A binary open operator `_;_` that is not `assoc`, such that the left
    /// grouping `(x ; y) ; z` of a list `x ; y ; z` is never well-kinded, so that the
    /// parser reads it to the right (see `lang/src/elab/mixfix.rs`): no operator of its
    /// name that could stand outside (its last argument of the list's kind) takes as first
    /// argument a sort an operator of its name gives (`op` itself included:
    /// `_;_ : Int Rows -> Rows`, or another module's `_;_` on other sorts; with
    /// `Elt < List`, `_:_ : Elt List -> List` too: the left grouping of `a : b : nil` is
    /// only kind-correct, so the parser prefers the right one, as Maude does).
    fn nests_right(&mut self, op: OpId) -> bool {
        let sig = self.sig;
        *self.right_nesting.entry(op).or_insert_with(|| {
            let info = sig.op(op);
            let binary_open = |o: &OpInfo| {
                o.args.len() == 2
                    && matches!(o.form.first(), Some(PatPiece::Hole))
                    && matches!(o.form.last(), Some(PatPiece::Hole))
            };
            if !binary_open(info)
                || info.attrs.assoc
                || info.attrs.prec == 0
                || info.attrs.gather.is_some()
            {
                return false;
            }
            // A `weak` operator is not seen where another of its name is, so it cannot
            // stand around one that is not weak.
            let same_name: Vec<&OpInfo> = sig
                .ops
                .iter()
                .filter(|o| o.name == info.name && binary_open(o))
                .filter(|o| info.attrs.weak || !o.attrs.weak)
                .collect();
            same_name
                .iter()
                .filter(|outer| sig.same_kind(outer.args[1], info.args[1]))
                .all(|outer| {
                    same_name
                        .iter()
                        .all(|inner| !sig.leq(inner.result, outer.args[0]))
                })
        })
    }
}

pub use gamelang_lang::program::{quote, unquote};
