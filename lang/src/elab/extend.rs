//! Input typed at a prompt (the REPL): declarations that extend a module for the rest of
//! a session, terms parsed at a position inside a longer input line (so that diagnostics
//! point into what was typed), and whether an input is *unfinished* — whether more lines
//! could complete it — as decided by the parsers themselves, not by counting brackets.

use super::{mixfix, parse_diag, ModuleId, Session};
use crate::ast::{Decl, Token};
use crate::diag::Diag;
use crate::parser::{self, ParseError};
use crate::program::{OpId, OpInfo, Pat, PatPiece, Signature, SortId};
use crate::span::{FileId, Span};
use mixfix::Grammar;
use rustc_hash::{FxHashMap, FxHashSet};
use std::ops::Range;

/// What a successful [`Session::extend_module`] added, counted by kind of declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extension {
    pub imports: usize,
    pub sorts: usize,
    pub subsorts: usize,
    pub ops: usize,
    pub vars: usize,
    pub equations: usize,
}

impl Extension {
    /// "1 operator, 2 equations".
    pub fn describe(&self) -> String {
        let parts: Vec<String> = [
            (self.imports, "import", "imports"),
            (self.sorts, "sort", "sorts"),
            (self.subsorts, "subsort declaration", "subsort declarations"),
            (self.ops, "operator", "operators"),
            (self.vars, "variable", "variables"),
            (self.equations, "equation", "equations"),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|&(n, one, many)| format!("{n} {}", if n == 1 { one } else { many }))
        .collect();
        if parts.is_empty() {
            "nothing".to_string()
        } else {
            parts.join(", ")
        }
    }
}

/// A file id for text that is only checked, never shown in a diagnostic.
const SCRATCH: FileId = FileId(usize::MAX);

/// Is `text` the beginning of declarations (`op …`, `eq …`) that stops inside one, so
/// that another line could complete it?
pub fn declarations_unfinished(text: &str) -> bool {
    matches!(parser::parse_decls(SCRATCH, text), Err(e) if e.unexpected_eof)
}

/// Is `text` the beginning of a file's items (`fmod … endfm`, `view …`, `game …`) that
/// stops inside one?
pub fn items_unfinished(text: &str) -> bool {
    matches!(parser::parse_file(SCRATCH, text), Err(e) if e.unexpected_eof)
}

impl Session {
    /// Register text typed at a prompt as a source, so that diagnostics can show it.
    pub fn add_input(&mut self, name: &str, text: &str) -> FileId {
        self.sources.add(name, text)
    }

    /// Parse the term written at `range` of the source `file` (see [`Session::add_input`])
    /// in module `m`; spans in errors point into the whole source. With `expected`, the
    /// term must be of that sort's kind. A final ` .` is not part of the term.
    pub fn parse_term_in(
        &mut self,
        m: ModuleId,
        file: FileId,
        range: Range<usize>,
        expected: Option<SortId>,
    ) -> Result<Pat, Diag> {
        let toks = self.term_tokens(file, range.clone())?;
        if toks.is_empty() {
            let end = range.end.max(range.start);
            return Err(Diag::at(
                Span::new(file, range.start, end),
                "expected a term",
                "nothing here",
            ));
        }
        // String literals name constants, created on first use (`board("x../...")`):
        // the signature may grow, and a caller holding an engine must then update it.
        self.intern_literals(&toks, Some(m));
        let grammar = self.grammar(m);
        let mut vars = mixfix::NoVars;
        let (pat, _) = mixfix::parse_term(&self.program.sig, &grammar, &toks, &mut vars, expected)?;
        Ok(pat)
    }

    /// Could the term `text` be completed by more input? True when it does not parse but
    /// is the beginning of a term of module `m`'s grammar (an open parenthesis, an
    /// operator waiting for its next argument: `f(1,`, `1 +`, `if b then`); false for a
    /// complete term and for one that no more input can mend.
    pub fn term_unfinished(&mut self, m: ModuleId, text: &str) -> bool {
        let Ok(toks) = lex_term(SCRATCH, text, 0) else {
            return false;
        };
        if toks.is_empty() {
            return false;
        }
        // The recognizer below is slow on long input (a million parentheses took
        // gigabytes): there, only an unclosed parenthesis asks for more.
        if toks.len() > mixfix::MAX_TOKENS {
            let open = toks.iter().filter(|t| t.text == "(").count();
            let close = toks.iter().filter(|t| t.text == ")").count();
            return open > close;
        }
        let grammar = self.grammar(m);
        let mut vars = mixfix::NoVars;
        if mixfix::parse_term(&self.program.sig, &grammar, &toks, &mut vars, None).is_ok() {
            return false;
        }
        let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
        let (viable, complete) = Recognizer::new(&grammar).run(&texts);
        viable && !complete
    }

    /// The tokens of the term at `range` of `file`, without a final `.`, located in the
    /// whole file.
    pub fn term_tokens(&self, file: FileId, range: Range<usize>) -> Result<Vec<Token>, Diag> {
        let text = self.sources.text(file).get(range.clone()).unwrap_or("");
        lex_term(file, text, range.start)
    }

    /// Add the declarations written in source `file` (see [`Session::add_input`]) to
    /// module `m`, as if they had been written at the end of it: imports, sorts,
    /// subsorts, operators, variables and equations. Modules elaborated earlier that
    /// import `m` do not see the new sorts and operators, but new equations apply
    /// everywhere their operator is used.
    ///
    /// On error nothing is rolled back: a caller that wants all-or-nothing rebuilds the
    /// session without this input.
    pub fn extend_module(&mut self, m: ModuleId, file: FileId) -> Result<Extension, Vec<Diag>> {
        let text = self.sources.text(file).to_string();
        let decls = parser::parse_decls(file, &text).map_err(|e| vec![parse_diag(&e)])?;
        self.errors.clear();
        let mut errors = Vec::new();
        let mut added = Extension::default();
        for d in &decls {
            match self.declaration(m, d, false) {
                Ok(()) => match d {
                    Decl::Import { .. } => added.imports += 1,
                    Decl::Sorts { sorts, .. } => added.sorts += sorts.len(),
                    Decl::Subsorts { .. } => added.subsorts += 1,
                    Decl::Op { names, .. } => added.ops += names.len(),
                    Decl::Vars { names, .. } => added.vars += names.len(),
                    Decl::Eq { .. } => added.equations += 1,
                },
                Err(e) => errors.push(e),
            }
        }
        errors.append(&mut self.errors);
        self.program.index();
        if errors.is_empty() {
            Ok(added)
        } else {
            Err(errors)
        }
    }
}

impl Session {
    /// Add to `d` (an error about a theory operator `name` that found no counterpart in
    /// module `m`) a label at each operator of that name `m` does have, saying what it
    /// is: it has the wrong number of arguments, or sorts of the wrong kinds.
    pub(super) fn with_misfits(&self, mut d: Diag, m: ModuleId, name: &str) -> Diag {
        let sig = &self.program.sig;
        for &op in &self.modules[m].ops {
            let info = sig.op(op);
            if info.name != name {
                continue;
            }
            let label = format!(
                "`{}` is declared here, and does not fit",
                op_signature(sig, info)
            );
            d = match info.span {
                Some(span) => d.secondary(span, label),
                None => d.note(label),
            };
        }
        d
    }
}

/// `won : Players Nat -> Bool`.
fn op_signature(sig: &Signature, info: &OpInfo) -> String {
    let args: Vec<&str> = info
        .args
        .iter()
        .map(|s| sig.sort(*s).name.as_str())
        .collect();
    if args.is_empty() {
        format!("{} : -> {}", info.name, sig.sort(info.result).name)
    } else {
        format!(
            "{} : {} -> {}",
            info.name,
            args.join(" "),
            sig.sort(info.result).name
        )
    }
}

/// The error for a term with several well-sorted readings: each reading, fully
/// parenthesised (with the sorts of the operators that have several declarations, when
/// that is all the readings differ in), where those declarations are, and the fix.
pub(super) fn ambiguous(
    sig: &Signature,
    readings: &[(&Pat, SortId)],
    var_names: &FxHashMap<u32, String>,
    whole: Span,
) -> Diag {
    // Operators of one name used with different declarations across the readings.
    let mut by_name: FxHashMap<&str, Vec<OpId>> = FxHashMap::default();
    for (pat, _) in readings {
        collect_ops(pat, &mut |op| {
            let ops = by_name.entry(sig.op(op).name.as_str()).or_default();
            if !ops.contains(&op) {
                ops.push(op);
            }
        });
    }
    let mut overloaded: Vec<(&str, Vec<OpId>)> = by_name
        .into_iter()
        .filter(|(_, ops)| ops.len() > 1)
        .collect();
    overloaded.sort();
    let plain: Vec<String> = readings
        .iter()
        .map(|(p, _)| show_reading(sig, p, &[], var_names))
        .collect();
    let structural = plain.iter().collect::<FxHashSet<_>>().len() == plain.len();
    let mut d = Diag::at(
        whole,
        format!("ambiguous term: {} readings", readings.len()),
        "this term can be read in more than one way",
    );
    for (k, (pat, sort)) in readings.iter().enumerate().take(6) {
        let text = if structural {
            plain[k].clone()
        } else {
            show_reading(sig, pat, &overloaded, var_names)
        };
        d = d.note(format!("reading: {text}   (sort {})", sig.sort(*sort).name));
    }
    for (name, ops) in &overloaded {
        for &op in ops {
            let info = sig.op(op);
            let label = format!(
                "`{}` is declared in {}",
                op_signature(sig, info),
                info.module
            );
            d = match info.span {
                Some(span) => d.secondary(span, label),
                None => d.note(label),
            };
        }
        d = d.note(format!(
            "`{name}` has {} declarations visible here; the readings differ in which one is meant",
            ops.len()
        ));
    }
    if structural {
        return d.note("add parentheses to choose one");
    }
    // Subsort overloading (Maude's `__ : NeList List -> NeList` beside
    // `__ : List List -> List`) that `overload::merge_overloads` left apart: one
    // declaration on sorts at or above every other's, but with other equational attributes,
    // or above two imported ones.
    for (_, ops) in &overloaded {
        let Some(w) = (ops.iter().copied())
            .find(|&w| ops.iter().all(|&o| super::overload::covers(sig, w, o)))
        else {
            continue;
        };
        let mut modules: Vec<&str> = ops.iter().map(|&o| sig.op(o).module.as_str()).collect();
        modules.dedup();
        let keep = op_signature(sig, sig.op(w));
        let across = if modules.len() == 1 {
            String::new()
        } else {
            format!(" across modules ({})", modules.join(", "))
        };
        if let Some(&b) = ops.iter().find(|&&o| sig.op(o).attrs.builtin.is_some()) {
            // A built-in (the prelude's `gcd`, `_&_`) declared again on its own sorts.
            let b = sig.op(b);
            return d
                .note(format!("`{}` of {} is a built-in: a module cannot declare it again on sorts of its kind (Maude rejects such a module too: the attributes differ from the built-in's)", b.name, b.module))
                .note(format!("use the built-in `{}`, or give yours another name", op_signature(sig, b)));
        }
        if ops
            .iter()
            .any(|&o| !super::overload::same_attributes(sig, o, w))
        {
            return d.note(format!("this is subsort overloading{across}, which gamelang takes as one operator of the lowest sort that fits its arguments (as Maude does) when the declarations have the same equational attributes (`assoc`, `comm`, `idem`, `id:`); these differ"))
                .note(format!("give them the same attributes, or keep only `{keep}`, which covers the others"));
        }
        return d
            .note(format!("this is subsort overloading{across}: gamelang takes declarations as one operator when a module declares one above or below the single declaration of the operator that it imports, and these are not such (docs/language.md, Maude compatibility)"))
            .note(format!("declare them in one module, or keep only `{keep}`, which covers the others"));
    }
    d.note("rename one of the declarations, or import only the module whose operator you mean")
}

fn collect_ops(pat: &Pat, f: &mut impl FnMut(OpId)) {
    if let Pat::App(op, args) = pat {
        f(*op);
        for a in args {
            collect_ops(a, f);
        }
    }
}

/// A reading of a term, fully parenthesised, with its variables by name and the
/// operators in `overloaded` followed by their result sort: `(zero : Foo) == (zero : Foo)`.
fn show_reading(
    sig: &Signature,
    pat: &Pat,
    overloaded: &[(&str, Vec<OpId>)],
    var_names: &FxHashMap<u32, String>,
) -> String {
    let show = |p: &Pat| show_reading(sig, p, overloaded, var_names);
    match pat {
        Pat::Var(i) => var_names.get(i).cloned().unwrap_or_else(|| format!("?{i}")),
        Pat::Int(n) => n.to_string(),
        Pat::App(op, args) => {
            let info = sig.op(*op);
            let holes = info.form.iter().filter(|p| **p == PatPiece::Hole).count();
            let out = if args.is_empty() {
                info.name.clone()
            } else if holes != args.len() {
                // A flattened associative application.
                let parts: Vec<String> = args.iter().map(show).collect();
                format!("{}({})", info.name, parts.join(", "))
            } else {
                let mut k = 0;
                let mut parts = Vec::new();
                for piece in &info.form {
                    match piece {
                        PatPiece::Lit(l) => parts.push(l.clone()),
                        PatPiece::Hole => {
                            parts.push(show(&args[k]));
                            k += 1;
                        }
                    }
                }
                parts.join(" ")
            };
            if overloaded.iter().any(|(_, ops)| ops.contains(op)) {
                format!("({out} : {})", sig.sort(info.result).name)
            } else if args.is_empty() {
                out
            } else {
                format!("({out})")
            }
        }
    }
}

/// The tokens of a term written at byte `offset` of `file`, without a final `.`.
fn lex_term(file: FileId, text: &str, offset: usize) -> Result<Vec<Token>, Diag> {
    let shift = |s: Span| Span {
        file,
        start: s.start + offset as u32,
        end: s.end + offset as u32,
    };
    let mut toks = parser::lex_run(file, text).map_err(|e: ParseError| {
        parse_diag(&ParseError {
            span: shift(e.span),
            ..e
        })
    })?;
    for t in &mut toks {
        t.span = shift(t.span);
    }
    if toks.last().is_some_and(|t| t.text == ".") {
        toks.pop();
    }
    Ok(toks)
}

/// One symbol of a rule of the sort-free term grammar.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Part {
    /// A term.
    Term,
    /// This exact token.
    Lit(String),
    /// One token that can stand alone as a term (a number, a constant, a variable, or a
    /// word the grammar does not know, which the real parser reports).
    Atom,
}

/// An Earley recognizer for the module's term grammar with sorts and precedences left
/// out: `T → atom | ( T ) | form of each operator | f T` (a unary prefix operator
/// juxtaposed with a parenthesised argument). It over-approximates the real parser, so
/// it can tell whether a token sequence is the beginning of some term (`viable`) and
/// whether it is a whole one.
struct Recognizer {
    rules: Vec<Vec<Part>>,
    literals: FxHashSet<String>,
    constants: FxHashSet<String>,
}

impl Recognizer {
    fn new(grammar: &Grammar) -> Recognizer {
        let mut rules = vec![
            vec![Part::Atom],
            vec![Part::Lit("(".into()), Part::Term, Part::Lit(")".into())],
        ];
        let mut literals = FxHashSet::default();
        let mut constants = FxHashSet::default();
        for sym in &grammar.syms {
            if sym.args.is_empty() {
                if let [PatPiece::Lit(name)] = sym.form.as_slice() {
                    constants.insert(name.clone());
                }
                continue;
            }
            let rule: Vec<Part> = sym
                .form
                .iter()
                .map(|p| match p {
                    PatPiece::Hole => Part::Term,
                    PatPiece::Lit(l) => {
                        literals.insert(l.clone());
                        Part::Lit(l.clone())
                    }
                })
                .collect();
            if let [PatPiece::Lit(f), PatPiece::Lit(open), PatPiece::Hole, PatPiece::Lit(_)] =
                sym.form.as_slice()
            {
                if open == "(" {
                    rules.push(vec![Part::Lit(f.clone()), Part::Term]);
                }
            }
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        Recognizer {
            rules,
            literals,
            constants,
        }
    }

    fn is_atom(&self, tok: &str) -> bool {
        if matches!(tok, "(" | ")" | ",") {
            return false;
        }
        self.constants.contains(tok) || tok.contains(':') || !self.literals.contains(tok)
    }

    fn matches(&self, part: &Part, tok: &str) -> bool {
        match part {
            Part::Lit(l) => l == tok,
            Part::Atom => self.is_atom(tok),
            Part::Term => false,
        }
    }

    /// `(viable, complete)`: is `toks` the beginning of a term, and is it a whole term?
    fn run(&self, toks: &[&str]) -> (bool, bool) {
        let r = self.chart(toks);
        (r.reached == toks.len(), r.complete)
    }

    /// Run the recognizer over `toks`.
    fn chart(&self, toks: &[&str]) -> Run {
        // An item: (rule, dot, origin); rule `START` is the start rule `S → T`.
        const START: usize = usize::MAX;
        type Item = (usize, usize, usize);
        let n = toks.len();
        let mut sets: Vec<Vec<Item>> = vec![Vec::new(); n + 1];
        let mut seen: Vec<FxHashSet<Item>> = vec![FxHashSet::default(); n + 1];
        let add =
            |sets: &mut Vec<Vec<Item>>, seen: &mut Vec<FxHashSet<Item>>, k: usize, item: Item| {
                if seen[k].insert(item) {
                    sets[k].push(item);
                }
            };
        add(&mut sets, &mut seen, 0, (START, 0, 0));
        let mut reached = 0;
        for k in 0..=n {
            if sets[k].is_empty() {
                break;
            }
            reached = k;
            let mut i = 0;
            while i < sets[k].len() {
                let (rule, dot, origin) = sets[k][i];
                i += 1;
                let next = if rule == START {
                    (dot == 0).then_some(&Part::Term)
                } else {
                    self.rules[rule].get(dot)
                };
                match next {
                    Some(Part::Term) => {
                        // Predict (no rule is empty, so no nullable completion is needed).
                        for r in 0..self.rules.len() {
                            add(&mut sets, &mut seen, k, (r, 0, k));
                        }
                    }
                    Some(part) => {
                        if k < n && self.matches(part, toks[k]) {
                            add(&mut sets, &mut seen, k + 1, (rule, dot + 1, origin));
                        }
                    }
                    None => {
                        // Complete: advance every item at `origin` waiting for a term.
                        let waiting: Vec<Item> = sets[origin]
                            .iter()
                            .copied()
                            .filter(|&(r, d, _)| {
                                if r == START {
                                    d == 0
                                } else {
                                    self.rules[r].get(d) == Some(&Part::Term)
                                }
                            })
                            .collect();
                        for (r, d, o) in waiting {
                            add(&mut sets, &mut seen, k, (r, d + 1, o));
                        }
                    }
                }
            }
        }
        // What the items at the furthest position wait for.
        let (mut expected, mut infix) = (Vec::new(), Vec::new());
        let mut term = false;
        for &(rule, dot, _) in &sets[reached] {
            if rule == START {
                continue;
            }
            match self.rules[rule].get(dot) {
                // An operator that would take the term before as its first argument.
                Some(Part::Lit(l)) if dot == 1 && self.rules[rule][0] == Part::Term => {
                    infix.push(l.clone())
                }
                Some(Part::Lit(l)) if dot > 0 => expected.push(l.clone()),
                Some(Part::Term) => term = true,
                _ => {}
            }
        }
        for list in [&mut expected, &mut infix] {
            list.sort();
            list.dedup();
        }
        Run {
            reached,
            complete: seen[n].contains(&(START, 1, 0)),
            expected,
            infix,
            term,
        }
    }
}

/// What the recognizer found.
struct Run {
    /// How many tokens form the beginning of some term.
    reached: usize,
    /// All the tokens form a term.
    complete: bool,
    /// The tokens that could come next after the first `reached` tokens, inside an
    /// operator already begun (`,` `)` `then` …).
    expected: Vec<String>,
    /// Operators that could continue the term just before (`+` `*` `==` …).
    infix: Vec<String>,
    /// A new term could begin there.
    term: bool,
}

impl Run {
    /// "`,` or `)`", "a term", "`,` (or an operator such as `*`, `+`, … after `a`)".
    fn expected_text(&self, before: Option<&str>) -> String {
        const MAX: usize = 6;
        let quoted = |list: &[String]| -> Vec<String> {
            let mut items: Vec<String> = list.iter().take(MAX).map(|l| format!("`{l}`")).collect();
            if list.len() > MAX {
                items.push("…".to_string());
            }
            items
        };
        let mut items: Vec<String> = Vec::new();
        if self.term {
            items.push("a term".to_string());
        }
        items.extend(quoted(&self.expected));
        let main = match items.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        };
        if self.infix.is_empty() {
            return if main.is_empty() {
                "nothing".to_string()
            } else {
                main
            };
        }
        let after = before.map_or(String::new(), |b| format!(" after `{b}`"));
        let ops = format!(
            "an operator such as {}{after}",
            quoted(&self.infix).join(", ")
        );
        if main.is_empty() {
            ops
        } else {
            format!("{main} (or {ops})")
        }
    }
}

/// Why the tokens `toks` are not a term of `grammar`, when no better reason (an unknown
/// name, an argument of the wrong sort) was found: where the reading broke down (the
/// first token no operator's form can continue with, or the end of an unfinished term)
/// and what could have come there; or, when every token fits the operators' forms, that
/// no grouping respects their precedences and sorts.
pub(super) fn explain_no_parse(grammar: &Grammar, toks: &[Token], whole: Span) -> Diag {
    let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
    let run = Recognizer::new(grammar).chart(&texts);
    let shown = texts.join(" ");
    if run.complete {
        return Diag::at(
            whole,
            format!("no well-formed reading of `{shown}`"),
            "the tokens fit the operators' forms, but no grouping respects their precedences and sorts",
        )
        .note("add parentheses to show how the term is grouped, e.g. `f((a b), c)` or `(a + b) * c`");
    }
    if run.reached == toks.len() {
        let last = toks[toks.len() - 1].span;
        let end = Span {
            start: last.end,
            ..last
        };
        return Diag::at(
            end,
            format!("unfinished term `{shown}`"),
            "the term stops here",
        )
        .secondary(whole, "the beginning of a term")
        .note(format!("expected {} next", run.expected_text(None)));
    }
    let bad = &toks[run.reached];
    let d = if run.reached == 0 {
        Diag::at(
            bad.span,
            format!("no parse: a term cannot begin with `{}`", bad.text),
            "not the start of any operator's form",
        )
    } else {
        let prefix = toks[0].span.to(toks[run.reached - 1].span);
        Diag::at(
            bad.span,
            format!(
                "no parse for `{shown}`: nothing in this module continues `{}` with `{}`",
                texts[..run.reached].join(" "),
                bad.text
            ),
            "parsing failed here",
        )
        .secondary(prefix, "this much is the beginning of a term")
    };
    let before = (run.reached > 0).then(|| texts[run.reached - 1]);
    d.note(format!("expected {} here", run.expected_text(before)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_with(src: &str) -> (Session, ModuleId) {
        let mut s = Session::new().expect("stdlib loads");
        s.load_source("test.game", src).expect("test source loads");
        let m = s.module_by_name("T").expect("module T");
        (s, m)
    }

    const SRC: &str = "fmod T is\n  protecting INT .\n  sort P .\n  op (__) : Nat Nat -> P [ctor] .\n  op f : Nat Nat -> Nat .\n  op g : P -> Nat .\n  eq f(a:Nat, b:Nat) = a + b .\n  eq g((a:Nat b:Nat)) = a .\nendfm\n";

    fn unfinished(s: &mut Session, m: ModuleId, text: &str) -> bool {
        s.term_unfinished(m, text)
    }

    #[test]
    fn unfinished_terms_are_beginnings_of_terms() {
        let (mut s, m) = session_with(SRC);
        for text in [
            "f(1,",
            "f(1, 2",
            "1 +",
            "(1 + 2",
            "if true then 1",
            "g((1 2)",
            "g (1",
            "not",
        ] {
            assert!(unfinished(&mut s, m, text), "{text:?} should be unfinished");
        }
        for text in [
            "f(1, 2)",
            "1 + 2",
            "g (1 2)",
            "1 + + 2",
            "f(1, 2))",
            "(1 2) + 1", // whole but ill-sorted: an error now, not a continuation
            "zzz",
            "1 2 3",
            "f(1, 2) .",
        ] {
            assert!(!unfinished(&mut s, m, text), "{text:?} should be finished");
        }
    }

    #[test]
    fn terms_are_parsed_at_their_place_in_the_input() {
        let (mut s, m) = session_with(SRC);
        let text = "red f(1, 2) .";
        let file = s.add_input("<input 1>", text);
        let pat = s.parse_term_in(m, file, 4..text.len(), None).unwrap();
        assert!(matches!(pat, Pat::App(_, ref a) if a.len() == 2));
        let text = "red f(1, zz)";
        let file = s.add_input("<input 2>", text);
        let d = s.parse_term_in(m, file, 4..text.len(), None).unwrap_err();
        assert_eq!(d.message, "unknown operator or variable `zz`");
        assert_eq!(d.span().unwrap().range(), 9..11);
        let file = s.add_input("<input 3>", "red  ");
        let d = s.parse_term_in(m, file, 4..5, None).unwrap_err();
        assert_eq!(d.message, "expected a term");
    }

    #[test]
    fn declarations_extend_a_module() {
        let (mut s, m) = session_with(SRC);
        let decls = s.add_input(
            "<input>",
            "op double : Nat -> Nat .\nvar n : Nat .\neq double(n) = n + n .",
        );
        let added = s.extend_module(m, decls).unwrap();
        assert_eq!(added.describe(), "1 operator, 1 variable, 1 equation");
        let text = "double(21)";
        let file = s.add_input("<input>", text);
        assert!(s.parse_term_in(m, file, 0..text.len(), None).is_ok());
        assert!(s.program.equations.iter().any(|e| e.span.file == decls));

        let file = s.add_input("<input>", "eq double(n) = zork .");
        let errs = s.extend_module(m, file).unwrap_err();
        assert_eq!(errs[0].message, "unknown operator or variable `zork`");
    }

    #[test]
    fn unfinished_declarations_and_items() {
        assert!(declarations_unfinished("op f : Nat -> Nat"));
        assert!(declarations_unfinished("eq f(1) = 2 +\n"));
        assert!(declarations_unfinished("op f : Nat -> Nat [ctor"));
        assert!(!declarations_unfinished("op f : Nat -> Nat ."));
        assert!(!declarations_unfinished("op f : . Nat"));
        assert!(!declarations_unfinished("op f : Nat -> Nat . endfm"));
        assert!(items_unfinished("fmod A is\n  sort S ."));
        assert!(!items_unfinished("fmod A is sort S . endfm"));
        assert!(!items_unfinished("fmod A is sort S . endfth"));
    }

    #[test]
    fn declaration_errors_read_as_in_a_file() {
        let e = parser::parse_decls(FileId(0), "op f : Nat -> Nat").unwrap_err();
        assert_eq!(
            e.message,
            "missing ` .` at the end of the declaration: the input ends without it"
        );
        assert!(e.unexpected_eof);
        let e = parser::parse_decls(FileId(0), "op f : Nat -> Nat\nop g : -> Nat .").unwrap_err();
        assert_eq!(
            e.message,
            "missing ` .` at the end of the declaration before `op`"
        );
        assert_eq!(e.span.range(), 14..17);
        let e = parser::parse_decls(FileId(0), "sort S . endfm").unwrap_err();
        assert!(e.message.starts_with("unexpected `endfm`"), "{}", e.message);
        assert_eq!(e.span.range(), 9..14);
        let d = parser::parse_decls(FileId(0), "sort S . var x : S .").unwrap();
        assert_eq!(d.len(), 2);
    }
}
