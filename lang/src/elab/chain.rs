//! Linear-time parsing of long chains: `1 + 1 + … + 1`, `0, 1, …, 199`, a BDDL goal list
//! `g1 | g2 | …`, an `#init` written as cells side by side.
//!
//! The chart parser of [`super::mixfix`] tries every split of every span, which is cubic in
//! the length of a chain. A span whose top level (outside parentheses) is a sequence of
//! *items* — a token, a parenthesised group, or a prefix application `f(…)` — joined by
//! binary infix operators (`_+_`, `_,_`, `_|_`) or by juxtaposition (`__`) is read here
//! instead: it is split at the loosest of those operators, each part is read by the chart
//! parser (or by this, if it is itself a long chain), and the parts are combined from the
//! left with the same precedence and sort checks as the chart parser makes. Anything else
//! at the top level (a mixfix keyword such as `if`, a prefix operator without
//! parentheses, two operators of the loosest precedence that differ in associativity)
//! leaves the span to the chart parser, so the readings found are the chart parser's.

use super::mixfix::{RPat, Reading, TermParser};
use crate::elab::mixfix::SymTarget;
use crate::program::PatPiece;
use rustc_hash::FxHashMap;

/// Spans shorter than this are left to the chart parser.
pub const CHAIN_MIN: usize = 16;

/// What a top-level token of a chain is.
enum Piece {
    /// Tokens `start..end`: an item.
    Item(usize, usize),
    /// An infix operator token at this position, with its symbols' precedence.
    Op(usize, u32),
}

impl<'a> TermParser<'a> {
    /// The readings of tokens `i..j` if they form a chain (see the module documentation).
    pub(super) fn chain(&mut self, i: usize, j: usize) -> Option<Vec<Reading>> {
        if j - i < CHAIN_MIN || !self.balanced(i, j) {
            return None;
        }
        // One parenthesised group: its inside, unless some operator's form itself starts
        // with `(` (the heaps game's `(__)`), which the chart parser must consider.
        if self.toks[i].text == "(" && self.below[i + 1] == j && !self.grammar.chains().paren_first
        {
            let inner = self.span(i + 1, j - 1);
            return Some(
                inner
                    .iter()
                    .map(|r| Reading {
                        prec: 0,
                        ..r.clone()
                    })
                    .collect(),
            );
        }
        // One bracket around a long inside (`{x y …}`, a bag of 600 boxes): its forms
        // applied to the inside's readings (the chart parser tried every split of the whole
        // span first, and refuses it past 4,000 tokens).
        if let Some(out) = self.one_bracket(i, j) {
            return Some(out);
        }
        let pieces = self.pieces(i, j)?;
        // The loosest level: infix operators, or juxtaposition between adjacent items.
        let loosest_op = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Op(_, prec) => Some(*prec),
                Piece::Item(..) => None,
            })
            .max();
        let adjacent = pieces
            .windows(2)
            .any(|w| matches!(w, [Piece::Item(..), Piece::Item(..)]));
        let juxtaposition: Vec<usize> = self.grammar.chains().juxtaposition.clone();
        let jux_prec = juxtaposition
            .iter()
            .map(|&s| self.grammar.syms[s].prec)
            .max();
        // Parts between the splitting points, and the operator before each part.
        let mut parts: Vec<(Option<usize>, usize, usize)> = Vec::new();
        match loosest_op {
            Some(level) => {
                if adjacent && jux_prec.is_none_or(|p| p >= level) {
                    return None;
                }
                let mut start = i;
                let mut op_before = None;
                for p in &pieces {
                    if let Piece::Op(k, prec) = *p {
                        if prec == level {
                            parts.push((op_before, start, k));
                            op_before = Some(k);
                            start = k + 1;
                        }
                    }
                }
                parts.push((op_before, start, j));
            }
            None => {
                if juxtaposition.is_empty() {
                    return None;
                }
                for p in &pieces {
                    if let Piece::Item(a, b) = *p {
                        parts.push((None, a, b));
                    }
                }
            }
        }
        if parts.len() < 2 {
            return None;
        }
        // With an associative operator at the loosest level, the chart parser also finds
        // right-nested readings; they are the same term (flattened) only if every joint
        // is the same operator. Otherwise (`a |> b <| c`) it finds an ambiguity: leave it.
        let mut level_syms: Vec<usize> = Vec::new();
        for &(op, _, _) in &parts[1..] {
            let syms: Vec<usize> = match op {
                Some(k) => self.grammar.chains().infix(&self.toks[k].text).to_vec(),
                None => juxtaposition.clone(),
            };
            for s in syms {
                if !level_syms.contains(&s) {
                    level_syms.push(s);
                }
            }
        }
        // (Overloads of one operator, `_,_` on several sorts, count as one: their mixed
        // readings are settled by sort, as the chart parser settles them.)
        let names: Vec<&str> = {
            let mut v: Vec<&str> = level_syms
                .iter()
                .map(|&s| self.grammar.syms[s].name.as_str())
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        if names.len() > 1 && level_syms.iter().any(|&s| self.grammar.syms[s].assoc) {
            return None;
        }
        let syms_at = |p: &Self, op: Option<usize>| -> Vec<usize> {
            match op {
                Some(k) => p.grammar.chains().infix(&p.toks[k].text).to_vec(),
                None => juxtaposition.clone(),
            }
        };
        let (_, a, b) = parts[0];
        let mut acc: Vec<Reading> = self.span(a, b).iter().cloned().collect();
        for &(op, a, b) in &parts[1..] {
            let syms = syms_at(self, op);
            let right: Vec<Reading> = self.span(a, b).iter().cloned().collect();
            let left_end = op.unwrap_or(a);
            acc = self.combine(&syms, acc, right, (i, left_end), (a, b), (i, b));
            if acc.is_empty() {
                break;
            }
        }
        // A chain of an operator that is not associative and cannot be read (well sorted)
        // from the left, such as a list `1 ; 2 ; … ; nil` of `_;_ : Int Rows -> Rows`, is
        // read from the right too: the chart parser would find that grouping (see
        // `Reading::right`), and prefers it only when it is better sorted. (Groupings mixing
        // both directions are the chart parser's alone: a long chain needing one is not
        // read.)
        let well_sorted = acc.iter().any(|r| r.ill == 0);
        if !well_sorted && level_syms.iter().all(|&s| !self.grammar.syms[s].assoc) {
            let &(_, a, b) = parts.last().expect("two parts or more");
            let mut from_right: Vec<Reading> = self.span(a, b).iter().cloned().collect();
            for w in (0..parts.len() - 1).rev() {
                if from_right.is_empty() {
                    break;
                }
                let (_, a, b) = parts[w];
                let (op, c, _) = parts[w + 1];
                let syms = syms_at(self, op);
                let left: Vec<Reading> = self.span(a, b).iter().cloned().collect();
                let right_start = op.map_or(c, |k| k + 1);
                from_right =
                    self.combine(&syms, left, from_right, (a, b), (right_start, j), (a, j));
            }
            for r in from_right {
                super::mixfix::push(&mut acc, r);
            }
        }
        Some(acc)
    }

    /// Split tokens `i..j` into items and infix operators, or `None` if something else is
    /// at the top level.
    fn pieces(&self, i: usize, j: usize) -> Option<Vec<Piece>> {
        let no_juxtaposition = self.grammar.chains().juxtaposition.is_empty();
        // For the tokens asked about: whether a form they open can be ignored here.
        let mut ignorable: FxHashMap<String, bool> = FxHashMap::default();
        let mut out = Vec::new();
        let mut k = i;
        while k < j {
            let t = self.toks[k].text.as_str();
            if t == "(" {
                let end = self.below[k + 1].min(j);
                // The group's `)` is at end - 1 (balanced: depth returns at `end`).
                out.push(Piece::Item(k, end));
                k = end;
                continue;
            }
            if t == ")" {
                return None;
            }
            let forms: Vec<&[PatPiece]> = (self.grammar.chains().top_level(t).iter())
                .map(|&s| self.grammar.syms[s].form.as_slice())
                .collect();
            if forms.is_empty() || forms.iter().all(|f| f.len() == 1) {
                // A variable, a number or a constant; or the head of an application.
                let group = k + 1 < j && self.toks[k + 1].text == "(";
                if group && !forms.is_empty() {
                    return None; // a constant juxtaposed with a group: leave it
                }
                out.push(Piece::Item(k, k + 1));
                k += 1;
                continue;
            }
            // A bracketed item `{x y}`: every form of the token opens a bracket that one
            // other token closes (a bag in braces: `{x y} ; {x y} ; …` was left to the
            // chart parser, cubic: 80 bags took 3 s).
            if let Some(end) = self.bracket_end(t, k, j) {
                out.push(Piece::Item(k, end));
                k = end;
                continue;
            }
            // An infix operator; its token may also be a bracket of another form (`|_|`),
            // which cannot stand right after an item, or a prefix operator (`-_` beside
            // `_-_`, `~_` beside `_~_`), which cannot either unless something joins items
            // side by side (then `a - b` might be `a (- b)`).
            let lit = |p: Option<&PatPiece>| matches!(p, Some(PatPiece::Lit(l)) if l == t);
            let bracket = |f: &&[PatPiece]| f.len() >= 3 && lit(f.first()) && lit(f.last());
            let prefix = |f: &&[PatPiece]| {
                f.len() == 2 && lit(f.first()) && f[1] == PatPiece::Hole && no_juxtaposition
            };
            let after_item = matches!(out.last(), Some(Piece::Item(..)));
            // A form that opens with another token (`<_;_>` for `;` in `{x y} ; {x y} ;
            // …`) cannot be what this token is at the top level of the span if that token
            // is absent from the span, or opens brackets only (each is an item, which
            // holds the form's other tokens).
            let mut opened_elsewhere = |f: &&[PatPiece]| match f.first() {
                Some(PatPiece::Lit(o)) if o != t => {
                    *ignorable.entry(o.clone()).or_insert_with(|| {
                        self.bracket_close(o).is_some()
                            || !self.toks[i..j].iter().any(|x| x.text == *o)
                    })
                }
                _ => false,
            };
            if forms.iter().any(|f| is_infix(f, t))
                && forms.iter().all(|f| {
                    is_infix(f, t)
                        || (after_item && (bracket(f) || prefix(f)))
                        || opened_elsewhere(f)
                })
            {
                let precs: Vec<u32> = (self.grammar.chains().infix(t).iter())
                    .map(|&s| self.grammar.syms[s].prec)
                    .collect();
                if precs.iter().any(|&p| p != precs[0]) {
                    return None;
                }
                // An explicit `gather` is read as the chart parser reads it: `combine`
                // checks each argument's precedence against it, so `(E e)` (`_-_`) reads
                // from the left, and `(e E)` (a right-associative `_^_`), which no reading
                // from the left satisfies, from the right (below).
                if matches!(out.last(), None | Some(Piece::Op(..))) {
                    return None;
                }
                out.push(Piece::Op(k, precs[0]));
                k += 1;
                continue;
            }
            // A prefix application `f(…)`: every form of `f` starts `f (`.
            if k + 1 < j
                && self.toks[k + 1].text == "("
                && forms.iter().all(|f| {
                    f.len() >= 2
                        && f[1] == PatPiece::Lit("(".into())
                        && f[0] == PatPiece::Lit(t.into())
                })
            {
                let end = self.below[k + 2].min(j);
                out.push(Piece::Item(k, end));
                k = end;
                continue;
            }
            return None;
        }
        if matches!(out.last(), Some(Piece::Op(..))) {
            return None;
        }
        // Associativity must agree at the loosest level (left-associative or assoc).
        Some(out)
    }

    /// The readings of tokens `i..j` if they are one bracket `t … c` whose forms (those
    /// of token `t`) all have one argument (`{_}`): each form applied to each reading of
    /// the inside that fits it, as the chart parser would apply it.
    fn one_bracket(&mut self, i: usize, j: usize) -> Option<Vec<Reading>> {
        let t = self.toks[i].text.as_str();
        let grammar = self.grammar;
        let syms = grammar.chains().top_level(t);
        let forms: Vec<&[PatPiece]> = syms
            .iter()
            .map(|&s| grammar.syms[s].form.as_slice())
            .collect();
        if forms.iter().any(|f| f.len() != 3) || self.bracket_end(t, i, j)? != j {
            return None;
        }
        let inside = self.span(i + 1, j - 1);
        let mut out = Vec::new();
        for &s in syms {
            let sym = &grammar.syms[s];
            for r in inside.iter() {
                let Some(ill) = self.arg_fit(sym, 0, r, (i + 1, j - 1), (i, j)) else {
                    continue;
                };
                let arg = Reading { ill, ..r.clone() };
                if let Some(reading) = self.build(sym, vec![arg], (i, j)) {
                    super::mixfix::push(&mut out, reading);
                }
            }
        }
        Some(out)
    }

    /// If every form of token `t` is a bracket `t … c` closed by one other token `c`
    /// (`{_}`, `{_,_}`, `[_]`), that token.
    fn bracket_close(&self, t: &str) -> Option<&'a str> {
        let grammar = self.grammar;
        let forms = grammar
            .chains()
            .top_level(t)
            .iter()
            .map(|&s| grammar.syms[s].form.as_slice());
        let close = |f: &'a [PatPiece]| match (f.first(), f.last()) {
            (Some(PatPiece::Lit(o)), Some(PatPiece::Lit(c))) if f.len() >= 3 && o == t => {
                Some(c.as_str())
            }
            _ => None,
        };
        let mut c = None;
        for f in forms {
            let cf = close(f)?;
            if c.is_some_and(|c| c != cf) {
                return None;
            }
            c = Some(cf);
        }
        c.filter(|&c| c != t && c != "(" && c != ")")
    }

    /// If token `t` at `k` opens a bracket ([`TermParser::bracket_close`]), the end of
    /// that bracket: one past its closing token, nested brackets and parenthesised groups
    /// passed over; `None` otherwise, or if it is not closed before `j`.
    fn bracket_end(&self, t: &str, k: usize, j: usize) -> Option<usize> {
        let c = self.bracket_close(t)?;
        let mut depth = 0usize;
        let mut m = k;
        while m < j {
            let tm = self.toks[m].text.as_str();
            if tm == "(" {
                m = self.below[m + 1];
                continue;
            }
            if tm == t {
                depth += 1;
            } else if tm == c {
                depth -= 1;
                if depth == 0 {
                    return Some(m + 1);
                }
            }
            m += 1;
        }
        None
    }

    /// Apply each binary symbol of `syms` to every pair of a left and a right reading.
    fn combine(
        &mut self,
        syms: &[usize],
        left: Vec<Reading>,
        right: Vec<Reading>,
        left_span: (usize, usize),
        part: (usize, usize),
        whole: (usize, usize),
    ) -> Vec<Reading> {
        // Which combinations fit (precedence and sort), before building any: the readings
        // of the side read so far can be large (the left one, or the right one when the
        // chain is read from the right), and each is moved into its last use rather than
        // copied.
        let mut combos: Vec<(usize, usize, usize, u32, u32)> = Vec::new();
        // (Symbols borrowed from the grammar, which outlives the parser: not cloned.)
        let grammar = self.grammar;
        for &s in syms {
            let sym = &grammar.syms[s];
            let lmax = self.allowed_prec(sym, 0);
            let rmax = self.allowed_prec(sym, sym.form.len() - 1);
            for (li, l) in left.iter().enumerate() {
                if l.prec > lmax {
                    continue;
                }
                let Some(lill) = self.arg_fit(sym, 0, l, left_span, whole) else {
                    continue;
                };
                for (ri, r) in right.iter().enumerate() {
                    if r.prec > rmax {
                        continue;
                    }
                    let Some(rill) = self.arg_fit(sym, 1, r, part, whole) else {
                        continue;
                    };
                    combos.push((s, li, ri, lill, rill));
                }
            }
        }
        let mut left = Uses::new(left, combos.iter().map(|c| c.1));
        let mut right = Uses::new(right, combos.iter().map(|c| c.2));
        let mut out = Vec::new();
        for (s, li, ri, lfit, rfit) in combos {
            let sym = &grammar.syms[s];
            let l = Reading {
                ill: lfit,
                ..left.take(li)
            };
            let r = Reading {
                ill: rfit,
                ..right.take(ri)
            };
            let reading = match (&sym.target, sym.assoc, sym.builtin) {
                // Flattening in place: `build` would copy the whole chain at every step.
                (SymTarget::Op(op), true, None) => {
                    let ill = l.ill + r.ill;
                    let mut args = l.pat.into_args_of(*op).unwrap_or_else(|other| vec![other]);
                    match r.pat.into_args_of(*op) {
                        Ok(inner) => args.extend(inner),
                        Err(other) => args.push(other),
                    }
                    Some(Reading {
                        pat: RPat::app(*op, args),
                        // Subsort overloading: the chain's sort so far with the next one.
                        sort: self.sig.app_sort(*op, &[l.sort, r.sort]),
                        prec: sym.prec,
                        ill,
                        right: l.right + r.right,
                    })
                }
                _ => self.build(sym, vec![l, r], whole),
            };
            if let Some(reading) = reading {
                super::mixfix::push(&mut out, reading);
            }
        }
        out
    }
}

/// Readings each used a known number of times: moved into the last use, cloned before.
struct Uses {
    readings: Vec<Option<Reading>>,
    uses: Vec<usize>,
}

impl Uses {
    fn new(readings: Vec<Reading>, used: impl Iterator<Item = usize>) -> Self {
        let mut uses = vec![0usize; readings.len()];
        for k in used {
            uses[k] += 1;
        }
        Uses {
            readings: readings.into_iter().map(Some).collect(),
            uses,
        }
    }

    fn take(&mut self, k: usize) -> Reading {
        self.uses[k] -= 1;
        if self.uses[k] == 0 {
            self.readings[k].take().expect("used once more")
        } else {
            self.readings[k].clone().expect("still here")
        }
    }
}

/// Is `form` the binary infix form `_t_`?
fn is_infix(form: &[PatPiece], t: &str) -> bool {
    matches!(form, [PatPiece::Hole, PatPiece::Lit(l), PatPiece::Hole] if l == t)
}
