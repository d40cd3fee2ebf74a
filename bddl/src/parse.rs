//! Reading BDDL: a domain file and a problem file into a [`Model`], every error a [`Diag`]
//! that points at the text it is about.
//!
//! The files are read as the corpus writes them (`tests/corpus/INDEX.md` lists every
//! irregularity) and as the paper's listings do:
//!
//! * `%` starts a comment that runs to the end of the line; blank lines and spaces around
//!   anything are ignored;
//! * `#name` starts a section (`#blackactions` and `#whiteactions` in the domain file;
//!   `#boardsize`, `#init`, `#depth`, `#blackgoal`, `#whitegoal` and `#blackturn` in the
//!   problem file, with the paper's spellings `#blackgoals` / `#whitegoals` too). What
//!   follows the name on the same line belongs to the section (the paper writes
//!   `#boardsize 5 4`);
//! * a condition is atoms (`black(?x,?y+1)`, `NOT(open(?x,ymax))`) written side by side, with
//!   or without spaces between them, and parentheses around any of them are only grouping:
//!   connect-c's `(open(?x,?y) (NOT(open(?x,?y+1))))` is two atoms. A condition ends with
//!   its line, except that a parenthesised group may go on over several lines (the paper's
//!   Listings 6 and 14);
//! * in a goal section every such condition is one goal (a conjunction) and the goals are
//!   alternatives; the word `False` or nothing at all means no goal;
//! * an action is four parts in order: `:action NAME`, `:parameters (?x, ?y)`,
//!   `:precondition COND` and `:effect COND` (a condition may start on the line after its
//!   keyword, as in the paper's Listing 10);
//! * `#init` is one condition of `black(i,j)` / `white(i,j)` cells given by number, on one
//!   line or in one parenthesised group (the reference implementation reads only the first
//!   line, so a second one is an error rather than silently ignored);
//! * sections come in any order, each at most once; `#init`, `#whitegoal` and `#blackturn`
//!   (`first` or `second`) may be left out;
//! * an explicit `()` is an empty condition (the paper's grammar allows it: a pass move, or
//!   a goal that always holds); no condition at all after `:precondition` is an error.
//!
//! Atoms are kept in file order with their duplicates (`open(?x,ymax) open(?x,ymax)`): the
//! model says what the file says. Checks that need the board size (absolute coordinates of
//! actions, goals and initial cells) are made once both files have been read.

use crate::{Action, Atom, Coord, Goals, Model, Piece};
use gamelang_board::MAX_SIDE;
use gamelang_lang::diag::{suggest, Diag};
use gamelang_lang::span::{FileId, Sources, Span};
use std::collections::HashMap;

/// Largest offset accepted in `?x+k` / `?y-k`. Any offset beyond a board side means the
/// atom never fits; the bound only keeps arithmetic on coordinates far from overflowing.
const MAX_OFFSET: i64 = 1_000_000;

/// How deeply parentheses may nest inside a condition (the corpus needs two levels; the
/// bound keeps a garbled file from recursing without end).
const MAX_NESTING: usize = 32;

/// The shape of an action, repeated in the errors about one.
const FOUR_PARTS: &str = "an action is four lines, in this order: `:action NAME`, \
     `:parameters (?x, ?y)`, `:precondition (ATOMS)` and `:effect (ATOMS)`";

/// Read a BDDL game from its domain file (`#blackactions`, `#whiteactions`) and problem
/// file (`#boardsize`, `#init`, `#depth`, `#blackgoal`, `#whitegoal`, `#blackturn`), both
/// already added to `sources`. Every error found in either file is returned, each located
/// in its file.
pub fn parse(sources: &mut Sources, domain: FileId, problem: FileId) -> Result<Model, Vec<Diag>> {
    // Reading is all that is needed (callers hold the sources mutably to add the files).
    let sources: &Sources = sources;
    if let Some(d) = swapped(sources, domain, problem) {
        return Err(vec![d]);
    }
    let mut st = State::default();
    for (file, role) in [(domain, Role::Domain), (problem, Role::Problem)] {
        let text = sources.text(file);
        st.read_file(file, text, role);
    }
    st.finish()
}

/// The files given the other way round: the "domain" has only problem sections and the
/// "problem" only domain sections. One error says so, instead of one for every section.
fn swapped(sources: &Sources, domain: FileId, problem: FileId) -> Option<Diag> {
    let roles = |file: FileId| -> Vec<(Role, Token)> {
        lex(sources.text(file))
            .into_iter()
            .filter_map(|t| match t.tok {
                Tok::Header(name) => Kind::of(name).map(|k| (k.role(), t)),
                _ => None,
            })
            .collect()
    };
    let (d, p) = (roles(domain), roles(problem));
    let all = |v: &[(Role, Token)], r: Role| !v.is_empty() && v.iter().all(|(role, _)| *role == r);
    if !(all(&d, Role::Problem) && all(&p, Role::Domain)) {
        return None;
    }
    let first = d[0].1;
    Some(
        Diag::at(
            Span::new(domain, first.start, first.end),
            "the domain and problem files are given the other way round",
            "a problem section in the domain file",
        )
        .note("give the domain file (`#blackactions`, `#whiteactions`) first, then the problem file (`#boardsize`, `#init`, `#depth`, `#blackgoal`, `#whitegoal`)"),
    )
}

/// Which of the two files is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Domain,
    Problem,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Domain => "domain",
            Role::Problem => "problem",
        }
    }
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    /// `#name` (the name without `#`, possibly empty).
    Header(&'a str),
    /// `:name` (the name without `:`, possibly empty).
    Keyword(&'a str),
    Open,
    Close,
    Comma,
    /// Anything else up to a space, parenthesis, comma, `%` or `#`: a predicate, a
    /// coordinate, a number, an action name, `False`, `second`, …
    Word(&'a str),
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    tok: Tok<'a>,
    start: usize,
    end: usize,
    /// 0-based line of the token's first character: conditions end with their line.
    line: usize,
}

impl Token<'_> {
    /// The token as written, for messages.
    fn show(&self) -> String {
        match self.tok {
            Tok::Header(n) => format!("#{n}"),
            Tok::Keyword(n) => format!(":{n}"),
            Tok::Open => "(".into(),
            Tok::Close => ")".into(),
            Tok::Comma => ",".into(),
            Tok::Word(w) => w.into(),
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '_'
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | ',' | '%' | '#')
}

/// Split a file into tokens, dropping spaces and `%` comments.
fn lex(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut line = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        // The end of the run of characters satisfying `keep` that follows the current one.
        let mut run_end = |keep: &dyn Fn(char) -> bool| loop {
            match chars.peek() {
                Some(&(_, c)) if keep(c) => {
                    chars.next();
                }
                Some(&(j, _)) => break j,
                None => break text.len(),
            }
        };
        let (tok, end) = match c {
            '\n' => {
                line += 1;
                continue;
            }
            c if c.is_whitespace() => continue,
            '%' => {
                run_end(&|c| c != '\n');
                continue;
            }
            '(' => (Tok::Open, i + 1),
            ')' => (Tok::Close, i + 1),
            ',' => (Tok::Comma, i + 1),
            '#' | ':' => {
                let end = run_end(&is_name_char);
                let name = text.get(i + 1..end).unwrap_or("");
                let tok = if c == '#' {
                    Tok::Header(name)
                } else {
                    Tok::Keyword(name)
                };
                (tok, end)
            }
            _ => {
                let end = run_end(&|c| !ends_word(c));
                (Tok::Word(text.get(i..end).unwrap_or("")), end)
            }
        };
        out.push(Token {
            tok,
            start: i,
            end,
            line,
        });
    }
    out
}

// ---------------------------------------------------------------------------------------
// Sections

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    BlackActions,
    WhiteActions,
    BoardSize,
    Init,
    Depth,
    BlackGoal,
    WhiteGoal,
    BlackTurn,
}

/// Every section name read, with its kind (the paper's plural goal spellings included).
const SECTIONS: &[(&str, Kind)] = &[
    ("blackactions", Kind::BlackActions),
    ("whiteactions", Kind::WhiteActions),
    ("boardsize", Kind::BoardSize),
    ("init", Kind::Init),
    ("depth", Kind::Depth),
    ("blackgoal", Kind::BlackGoal),
    ("blackgoals", Kind::BlackGoal),
    ("whitegoal", Kind::WhiteGoal),
    ("whitegoals", Kind::WhiteGoal),
    ("blackturn", Kind::BlackTurn),
];

/// Sections the reference implementation (Q-sage) reads but BDDL as the paper defines it
/// does not have.
const UNSUPPORTED: &[&str] = &["goalcheck", "invariant", "counterbound"];

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        SECTIONS.iter().find(|(n, _)| *n == name).map(|&(_, k)| k)
    }

    fn role(self) -> Role {
        match self {
            Kind::BlackActions | Kind::WhiteActions => Role::Domain,
            _ => Role::Problem,
        }
    }

    /// The section's name as the corpus writes it.
    fn header(self) -> &'static str {
        match self {
            Kind::BlackActions => "#blackactions",
            Kind::WhiteActions => "#whiteactions",
            Kind::BoardSize => "#boardsize",
            Kind::Init => "#init",
            Kind::Depth => "#depth",
            Kind::BlackGoal => "#blackgoal",
            Kind::WhiteGoal => "#whitegoal",
            Kind::BlackTurn => "#blackturn",
        }
    }
}

/// The sections a file must have.
fn required(role: Role) -> &'static [Kind] {
    match role {
        Role::Domain => &[Kind::BlackActions, Kind::WhiteActions],
        Role::Problem => &[Kind::BoardSize, Kind::Depth, Kind::BlackGoal],
    }
}

/// "Did you mean" candidates for a name, case differences first (`#BlackGoal`).
fn did_you_mean<'c>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'c str> + Clone,
) -> Vec<String> {
    let same_letters: Vec<String> = candidates
        .clone()
        .into_iter()
        .filter(|c| c.eq_ignore_ascii_case(wanted) && *c != wanted)
        .map(str::to_string)
        .collect();
    if !same_letters.is_empty() {
        return same_letters;
    }
    suggest(wanted, candidates)
}

/// "did you mean `a` or `b`?" for a non-empty list of names.
fn did_you_mean_note(names: &[String], prefix: &str) -> Option<String> {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{prefix}{n}`")).collect();
    (!quoted.is_empty()).then(|| format!("did you mean {}?", quoted.join(" or ")))
}

// ---------------------------------------------------------------------------------------
// Reading a section's tokens

/// An atom with the places of its parts (errors found after both files are read point at
/// a coordinate).
#[derive(Clone, Copy, Debug)]
struct Loc {
    atom: Atom,
    span: Span,
    x: Span,
    y: Span,
}

/// The tokens of one section and a position in them.
struct Cur<'a, 't> {
    file: FileId,
    toks: &'t [Token<'a>],
    pos: usize,
    /// The section's `#name`, where errors about what is missing from it point.
    head: Token<'a>,
}

impl<'a> Cur<'a, '_> {
    fn peek(&self) -> Option<Token<'a>> {
        self.toks.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.peek();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn span(&self, t: &Token) -> Span {
        Span::new(self.file, t.start, t.end)
    }

    /// The section's name, for messages.
    fn section(&self) -> String {
        self.head.show()
    }

    /// An error at `t`, or at the section's name when the section ended first.
    fn error_at(&self, t: Option<Token>, message: String, label: &str) -> Diag {
        match t {
            Some(t) => Diag::at(self.span(&t), message, label),
            None => Diag::at(self.span(&self.head), message, label),
        }
    }

    /// The next token, which must be on `line`: what a section or part ends with.
    fn next_on_line(&mut self, line: usize) -> Option<Token<'a>> {
        match self.peek() {
            Some(t) if t.line == line => self.next(),
            _ => None,
        }
    }

    fn unclosed(&self, open: &Token) -> Diag {
        Diag::at(
            self.span(open),
            "unbalanced parentheses: this `(` is never closed",
            "opened here",
        )
        .note("a parenthesised group may run over several lines, but it must be closed before the next `:keyword` or `#section`")
    }

    /// One condition: items (atoms, `NOT(atom)`s, parenthesised groups of them) as long as
    /// each starts on the line where the previous one ended. Empty when the section ends
    /// or a `:keyword` follows.
    fn conjunction(&mut self) -> Result<Vec<Loc>, Diag> {
        let mut out = Vec::new();
        let Some(first) = self.peek() else {
            return Ok(out);
        };
        let mut line = first.line;
        while let Some(t) = self.peek() {
            if t.line != line || matches!(t.tok, Tok::Keyword(_) | Tok::Header(_)) {
                break;
            }
            line = self.item(&mut out, 0)?;
        }
        Ok(out)
    }

    /// One item of a condition, its atoms appended to `out`; the line it ends on.
    fn item(&mut self, out: &mut Vec<Loc>, depth: usize) -> Result<usize, Diag> {
        let Some(t) = self.next() else {
            return Err(self.error_at(
                None,
                format!("`{}` ends in the middle of a condition", self.section()),
                "in this section",
            ));
        };
        match t.tok {
            Tok::Open => {
                if depth >= MAX_NESTING {
                    return Err(Diag::at(
                        self.span(&t),
                        "parentheses nested too deeply",
                        format!("more than {MAX_NESTING} levels"),
                    ));
                }
                loop {
                    match self.peek() {
                        None
                        | Some(Token {
                            tok: Tok::Keyword(_) | Tok::Header(_),
                            ..
                        }) => return Err(self.unclosed(&t)),
                        Some(c) if c.tok == Tok::Close => {
                            self.next();
                            return Ok(c.line);
                        }
                        Some(_) => {
                            self.item(out, depth + 1)?;
                        }
                    }
                }
            }
            Tok::Close => Err(Diag::at(
                self.span(&t),
                "unbalanced parentheses: this `)` closes nothing",
                "no `(` to match",
            )),
            Tok::Word("NOT") => {
                let open = self.expect_open(
                    &t,
                    "`NOT` is followed by `(` and one atom: `NOT(open(?x,?y))`",
                )?;
                let inner = match self.next() {
                    Some(
                        w @ Token {
                            tok: Tok::Word(_), ..
                        },
                    ) => w,
                    other => {
                        return Err(self.error_at(
                            other,
                            "`NOT` applies to one atom: `NOT(open(?x,?y))`".into(),
                            "expected an atom here",
                        ))
                    }
                };
                if inner.tok == Tok::Word("NOT") {
                    return Err(Diag::at(
                        self.span(&inner),
                        "`NOT` applies to an atom, not to another `NOT`",
                        "a second NOT",
                    ));
                }
                let (mut loc, _) = self.atom(inner)?;
                match self.next() {
                    Some(c) if c.tok == Tok::Close => {
                        loc.atom.negated = true;
                        loc.span = self.span(&t).to(self.span(&c));
                        out.push(loc);
                        Ok(c.line)
                    }
                    None => Err(self.unclosed(&open)),
                    other => Err(self.error_at(
                        other,
                        "`NOT(...)` holds exactly one atom".into(),
                        "expected `)` here",
                    )),
                }
            }
            Tok::Word(_) => {
                let (loc, line) = self.atom(t)?;
                out.push(loc);
                Ok(line)
            }
            Tok::Comma => Err(Diag::at(
                self.span(&t),
                "unexpected `,` between atoms",
                "atoms are separated by spaces (or nothing), not commas",
            )),
            Tok::Keyword(_) | Tok::Header(_) => Err(Diag::at(
                self.span(&t),
                format!("expected an atom, found `{}`", t.show()),
                "not an atom",
            )),
        }
    }

    /// The `(` after `after`, or an error saying what should have come.
    fn expect_open(&mut self, after: &Token, what: &str) -> Result<Token<'a>, Diag> {
        match self.peek() {
            Some(o) if o.tok == Tok::Open => {
                self.next();
                Ok(o)
            }
            _ => Err(Diag::at(
                self.span(after),
                format!(
                    "expected an atom such as `black(?x,?y)`, found `{}`",
                    after.show()
                ),
                what,
            )),
        }
    }

    /// `pred(X,Y)` starting at the word `name`; the line of its `)`.
    fn atom(&mut self, name: Token<'a>) -> Result<(Loc, usize), Diag> {
        let Tok::Word(word) = name.tok else {
            return Err(Diag::at(self.span(&name), "expected an atom", "here"));
        };
        let open = self.expect_open(
            &name,
            "an atom is a predicate and two coordinates: `black(?x,?y+1)`",
        )?;
        let piece = match word {
            "open" => Piece::Open,
            "black" => Piece::Black,
            "white" => Piece::White,
            _ => {
                let mut d = Diag::at(
                    self.span(&name),
                    format!("unknown predicate `{word}`"),
                    "not black, white or open",
                )
                .note("the predicates are `black`, `white` and `open`, and `NOT(...)` negates one");
                let hint = did_you_mean(word, ["black", "white", "open", "NOT"]);
                if let Some(n) = did_you_mean_note(&hint, "") {
                    d = d.note(n);
                }
                return Err(d);
            }
        };
        let (xtext, xspan, _) = self.coordinate(&open, Tok::Comma, "x")?;
        let (ytext, yspan, close) = self.coordinate(&open, Tok::Close, "y")?;
        let x = read_coord(&xtext, xspan, Axis::X)?;
        let y = read_coord(&ytext, yspan, Axis::Y)?;
        Ok((
            Loc {
                atom: Atom {
                    piece,
                    negated: false,
                    x,
                    y,
                },
                span: self.span(&name).to(self.span(&close)),
                x: xspan,
                y: yspan,
            },
            close.line,
        ))
    }

    /// The words of one coordinate up to `stop` (`,` after x, `)` after y), joined (so that
    /// `?x + 1` reads as `?x+1`), with their span and the `stop` token.
    fn coordinate(
        &mut self,
        open: &Token,
        stop: Tok,
        axis: &str,
    ) -> Result<(String, Span, Token<'a>), Diag> {
        let mut text = String::new();
        let mut span: Option<Span> = None;
        loop {
            let t = match self.peek() {
                None
                | Some(Token {
                    tok: Tok::Keyword(_) | Tok::Header(_),
                    ..
                }) => return Err(self.unclosed(open)),
                Some(t) => t,
            };
            if t.tok == stop {
                self.next();
                let Some(span) = span else {
                    return Err(Diag::at(
                        self.span(&t),
                        format!("missing {axis}-coordinate"),
                        format!("expected the {axis}-coordinate before this"),
                    )
                    .note("an atom is a predicate and two coordinates: `black(?x,?y+1)`"));
                };
                return Ok((text, span, t));
            }
            match t.tok {
                Tok::Word(w) => {
                    self.next();
                    text.push_str(w);
                    let s = self.span(&t);
                    span = Some(span.map_or(s, |sp| sp.to(s)));
                }
                Tok::Close => {
                    return Err(Diag::at(
                        self.span(&t),
                        "an atom has two coordinates, column and row",
                        "expected `,` and the y-coordinate before this",
                    ))
                }
                Tok::Comma => {
                    return Err(Diag::at(
                        self.span(&t),
                        "an atom has two coordinates, column and row, not more",
                        "expected `)` here",
                    ))
                }
                _ => {
                    return Err(Diag::at(
                        self.span(&t),
                        format!("unexpected `{}` in a coordinate", t.show()),
                        "not part of a coordinate",
                    )
                    .note("coordinates are `?x`, `?x+2`, `?x-1`, a number, `xmin` or `xmax` (and likewise with y)"))
                }
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axis {
    X,
    Y,
}

impl Axis {
    fn letter(self) -> char {
        match self {
            Axis::X => 'x',
            Axis::Y => 'y',
        }
    }

    fn other(self) -> Axis {
        match self {
            Axis::X => Axis::Y,
            Axis::Y => Axis::X,
        }
    }

    fn what(self) -> &'static str {
        match self {
            Axis::X => "an x-coordinate (a column)",
            Axis::Y => "a y-coordinate (a row)",
        }
    }
}

/// Read a coordinate of `axis`: `?x`, `?x+k`, `?x-k`, a number, `xmin` or `xmax`.
fn read_coord(text: &str, span: Span, axis: Axis) -> Result<Coord, Diag> {
    let a = axis.letter();
    let var = format!("?{a}");
    let forms = format!(
        "{} is `?{a}`, `?{a}+k`, `?{a}-k` (k a number), a number, `{a}min` or `{a}max`",
        axis.what()
    );
    let malformed = |why: &str| {
        Diag::at(
            span,
            format!("malformed coordinate `{text}`"),
            why.to_string(),
        )
        .note(forms.clone())
    };
    if text == var {
        return Ok(Coord::Rel(0));
    }
    if text == format!("{a}min") {
        return Ok(Coord::Min);
    }
    if text == format!("{a}max") {
        return Ok(Coord::Max);
    }
    if let Some(rest) = text.strip_prefix(&var) {
        let (sign, digits) = if let Some(d) = rest.strip_prefix('+') {
            (1, d)
        } else if let Some(d) = rest.strip_prefix('-') {
            (-1, d)
        } else {
            return Err(malformed("an offset is `+k` or `-k`"));
        };
        if digits.is_empty() {
            return Err(malformed("a number must follow the sign"));
        }
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed("an offset is a whole number"));
        }
        return match digits.parse::<i64>() {
            Ok(k) if k <= MAX_OFFSET => Ok(Coord::Rel(sign * k)),
            _ => Err(Diag::at(
                span,
                format!("offset too large in `{text}`"),
                format!("at most {MAX_OFFSET}"),
            )
            .note(format!("boards have at most {MAX_SIDE} columns and rows"))),
        };
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return match text.parse::<i64>() {
            Ok(v) => Ok(Coord::Abs(v)),
            Err(_) => Err(malformed("this number is too large")),
        };
    }
    let o = axis.other().letter();
    if text.starts_with(&format!("?{o}")) || text == format!("{o}min") || text == format!("{o}max")
    {
        return Err(Diag::at(
            span,
            format!(
                "`{text}` is {}, in the place of {}",
                axis.other().what(),
                axis.what()
            ),
            format!("expected {}", axis.what()),
        )
        .note(forms)
        .note("an atom is `pred(X,Y)`: the column first, then the row"));
    }
    Err(malformed("not a coordinate"))
}

// ---------------------------------------------------------------------------------------
// The two files

/// What both files said so far, with the places needed for the final checks.
#[derive(Default)]
struct State {
    errors: Vec<Diag>,
    /// The `#name` of every section read, for duplicates and missing sections.
    seen: HashMap<Kind, Span>,
    /// Sections suggested for a misspelt `#name`.
    meant: Vec<Kind>,
    black_actions: Option<Vec<Action>>,
    white_actions: Option<Vec<Action>>,
    /// Columns, rows, and the place they are written.
    size: Option<(i64, i64, Span)>,
    init: Option<Vec<(Piece, i64, i64)>>,
    depth: Option<u32>,
    black_goals: Option<Goals>,
    white_goals: Option<Goals>,
    /// Where each goal is written (for the sanity check of the initial state).
    black_goal_spans: Vec<Span>,
    white_goal_spans: Vec<Span>,
    black_first: Option<bool>,
    /// Every atom read, with what it belongs to, for the checks against the board size.
    atoms: Vec<(Loc, String)>,
}

impl State {
    fn read_file(&mut self, file: FileId, text: &str, role: Role) {
        let toks = lex(text);
        // Everything before the first `#section` must be nothing but comments.
        let first_header = toks
            .iter()
            .position(|t| matches!(t.tok, Tok::Header(_)))
            .unwrap_or(toks.len());
        if let Some(t) = toks.first().filter(|_| first_header > 0) {
            self.errors.push(
                Diag::at(
                    Span::new(file, t.start, t.end),
                    format!(
                        "`{}` before the first section of the {} file",
                        t.show(),
                        role.name()
                    ),
                    "expected a `#section` line",
                )
                .note(section_note(role)),
            );
        }
        let mut k = first_header;
        while k < toks.len() {
            let head = toks[k];
            let end = toks[k + 1..]
                .iter()
                .position(|t| matches!(t.tok, Tok::Header(_)))
                .map_or(toks.len(), |p| k + 1 + p);
            let cur = Cur {
                file,
                toks: &toks[k + 1..end],
                pos: 0,
                head,
            };
            self.section(cur, role);
            k = end;
        }
        for &kind in required(role) {
            // A misspelt section has been reported with a suggestion already.
            if !self.seen.contains_key(&kind) && !self.meant.contains(&kind) {
                let at = text.trim_end().len();
                self.errors.push(
                    Diag::at(
                        Span::new(file, at, at),
                        format!(
                            "the {} file has no `{}` section",
                            role.name(),
                            kind.header()
                        ),
                        format!("`{}` expected", kind.header()),
                    )
                    .note(format!("`{}` is required", kind.header()))
                    .note(section_note(role)),
                );
            }
        }
    }

    /// Read one section (its tokens after `#name`).
    fn section(&mut self, mut cur: Cur, role: Role) {
        let Tok::Header(name) = cur.head.tok else {
            return;
        };
        let head = cur.span(&cur.head);
        let Some(kind) = Kind::of(name) else {
            let (d, meant) = unknown_section(name, head, role);
            self.errors.push(d);
            self.meant.extend(meant);
            return;
        };
        if kind.role() != role {
            let mut d = Diag::at(
                head,
                format!(
                    "`#{name}` belongs in the {} file, not the {} file",
                    kind.role().name(),
                    role.name()
                ),
                format!("a {} section", kind.role().name()),
            );
            if role == Role::Domain {
                d = d.note("were the domain and problem files given the other way round? The domain file comes first");
            }
            self.errors.push(d.note(section_note(role)));
            return;
        }
        if let Some(&first) = self.seen.get(&kind) {
            self.errors.push(
                Diag::at(
                    head,
                    format!("`{}` is given twice", kind.header()),
                    "again here",
                )
                .secondary(first, "first given here"),
            );
            return;
        }
        self.seen.insert(kind, head);
        let result = match kind {
            Kind::BlackActions => self
                .actions(&mut cur, "Black")
                .map(|a| self.black_actions = Some(a)),
            Kind::WhiteActions => self
                .actions(&mut cur, "White")
                .map(|a| self.white_actions = Some(a)),
            Kind::BoardSize => board_size(&mut cur).map(|s| self.size = Some(s)),
            Kind::Init => self.init(&mut cur).map(|i| self.init = Some(i)),
            Kind::Depth => depth(&mut cur).map(|d| self.depth = Some(d)),
            Kind::BlackGoal => self.goals(&mut cur, "a goal of Black").map(|(g, s)| {
                self.black_goals = Some(g);
                self.black_goal_spans = s;
            }),
            Kind::WhiteGoal => self.goals(&mut cur, "a goal of White").map(|(g, s)| {
                self.white_goals = Some(g);
                self.white_goal_spans = s;
            }),
            Kind::BlackTurn => black_turn(&mut cur).map(|b| self.black_first = Some(b)),
        };
        if let Err(d) = result {
            self.errors.push(d);
        }
    }

    /// `#blackactions` / `#whiteactions`: actions, each four parts in order.
    fn actions(&mut self, cur: &mut Cur, player: &str) -> Result<Vec<Action>, Diag> {
        let mut out = Vec::new();
        while let Some(t) = cur.next() {
            if t.tok != Tok::Keyword("action") {
                let message = match t.tok {
                    Tok::Keyword(k) if ["parameters", "precondition", "effect"].contains(&k) => {
                        format!("`:{k}` before `:action`: an action starts with `:action NAME`")
                    }
                    Tok::Keyword(k) => return Err(unknown_keyword(cur, &t, k)),
                    _ => format!("expected `:action NAME`, found `{}`", t.show()),
                };
                return Err(
                    Diag::at(cur.span(&t), message, "expected `:action` here").note(FOUR_PARTS)
                );
            }
            let name = match cur.next_on_line(t.line) {
                Some(Token {
                    tok: Tok::Word(w),
                    start,
                    end,
                    ..
                }) => {
                    if !w
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    {
                        return Err(Diag::at(
                            Span::new(cur.file, start, end),
                            format!("`{w}` is not an action name"),
                            "letters, digits, `-` and `_` only",
                        ));
                    }
                    w.to_string()
                }
                other => {
                    return Err(cur
                        .error_at(
                            other.or(Some(t)),
                            "`:action` needs a name: `:action occupy`".into(),
                            "the action's name expected here",
                        )
                        .note(FOUR_PARTS))
                }
            };
            if let Some(extra) = cur.next_on_line(t.line) {
                return Err(Diag::at(
                    cur.span(&extra),
                    format!(
                        "unexpected `{}` after the name of action `{name}`",
                        extra.show()
                    ),
                    "the name is one word",
                ));
            }
            self.part(cur, "parameters", &name)?;
            parameters(cur, &name)?;
            // An explicit `()` is an empty condition (the paper's grammar allows it); no
            // condition at all is a missing part.
            let pre_kw = self.part(cur, "precondition", &name)?;
            let before = cur.pos;
            let pre = cur.conjunction()?;
            if cur.pos == before {
                return Err(missing_condition(cur, &pre_kw, "precondition", &name));
            }
            let eff_kw = self.part(cur, "effect", &name)?;
            let before = cur.pos;
            let eff = cur.conjunction()?;
            if cur.pos == before {
                return Err(missing_condition(cur, &eff_kw, "effect", &name));
            }
            if let Some(n) = eff.iter().find(|l| l.atom.negated) {
                return Err(Diag::at(n.span, format!("`NOT` in the effect of action `{name}`"), "an effect cannot be negated")
                    .note("an effect says what the cells hold afterwards: to empty a cell, write `open(..)`"));
            }
            let what = format!("action `{name}` of {player}");
            self.atoms
                .extend(pre.iter().chain(&eff).map(|l| (*l, what.clone())));
            out.push(Action {
                name,
                pre: pre.iter().map(|l| l.atom).collect(),
                eff: eff.iter().map(|l| l.atom).collect(),
                captures: Default::default(),
            });
        }
        Ok(out)
    }

    /// The `:keyword` that must come next in action `name`.
    fn part<'a>(
        &self,
        cur: &mut Cur<'a, '_>,
        keyword: &str,
        name: &str,
    ) -> Result<Token<'a>, Diag> {
        match cur.next() {
            Some(t) if t.tok == Tok::Keyword(keyword) => Ok(t),
            Some(
                t @ Token {
                    tok: Tok::Keyword(k),
                    ..
                },
            ) if !["action", "parameters", "precondition", "effect"].contains(&k) => {
                Err(unknown_keyword(cur, &t, k))
            }
            other => {
                let found = match other {
                    Some(t) => format!("found `{}`", t.show()),
                    None => format!("`{}` ends here", cur.section()),
                };
                Err(cur
                    .error_at(
                        other,
                        format!("expected `:{keyword}` in action `{name}`, {found}"),
                        &format!("`:{keyword}` expected here"),
                    )
                    .note(FOUR_PARTS))
            }
        }
    }

    /// `#init`: one condition of black and white cells given by number.
    fn init(&mut self, cur: &mut Cur) -> Result<Vec<(Piece, i64, i64)>, Diag> {
        let cells = cur.conjunction()?;
        if let Some(t) = cur.peek() {
            return Err(Diag::at(cur.span(&t), "the initial cells must all be on one line", "a second line")
                .note("the reference implementation reads only the first line after `#init`; put every cell on it, or group them in one `( ... )`"));
        }
        let mut out: Vec<(Piece, i64, i64)> = Vec::new();
        let mut places: HashMap<(i64, i64), Span> = HashMap::new();
        for l in &cells {
            let a = l.atom;
            if a.negated {
                return Err(Diag::at(
                    l.span,
                    "`NOT` in `#init`",
                    "an initial cell is black(X,Y) or white(X,Y)",
                ));
            }
            if a.piece == Piece::Open {
                return Err(
                    Diag::at(l.span, "`open` in `#init`", "cells not listed are open").note(
                        "`#init` lists the black and white cells; every other cell starts open",
                    ),
                );
            }
            let (Coord::Abs(x), Coord::Abs(y)) = (a.x, a.y) else {
                let span = if matches!(a.x, Coord::Abs(_)) {
                    l.y
                } else {
                    l.x
                };
                return Err(Diag::at(
                    span,
                    "an initial cell is given by numbers",
                    "expected a number",
                )
                .note("`#init` lists cells such as `black(1,3) white(2,4)`"));
            };
            if let Some(&first) = places.get(&(x, y)) {
                return Err(Diag::at(
                    l.span,
                    format!("the initial cell ({x},{y}) is given twice"),
                    "again here",
                )
                .secondary(first, "first given here"));
            }
            places.insert((x, y), l.span);
            out.push((a.piece, x, y));
            self.atoms.push((*l, "an initial cell".into()));
        }
        Ok(out)
    }

    /// `#blackgoal` / `#whitegoal`: one goal a line (or a parenthesised group); `False` or
    /// nothing for none.
    fn goals(&mut self, cur: &mut Cur, what: &str) -> Result<(Goals, Vec<Span>), Diag> {
        let mut out = Vec::new();
        let mut spans = Vec::new();
        while let Some(t) = cur.peek() {
            if t.tok == Tok::Word("False") {
                cur.next();
                if let Some(extra) = cur.next_on_line(t.line) {
                    return Err(Diag::at(
                        cur.span(&extra),
                        "`False` stands alone on its line",
                        "unexpected here",
                    )
                    .note("`False` (or no line at all) says the player has no goal"));
                }
                continue;
            }
            if let Tok::Keyword(k) = t.tok {
                return Err(Diag::at(
                    cur.span(&t),
                    format!("unexpected `:{k}` in `{}`", cur.section()),
                    "goals are atoms",
                )
                .note("actions belong in the domain file"));
            }
            // `()` is an empty conjunction, a goal that always holds (the paper's grammar
            // allows it; the corpus never writes one).
            let goal = cur.conjunction()?;
            let span = match (goal.first(), goal.last()) {
                (Some(a), Some(b)) => Span {
                    end: b.span.end,
                    ..a.span
                },
                _ => cur.span(&t),
            };
            spans.push(span);
            self.atoms
                .extend(goal.iter().map(|l| (*l, what.to_string())));
            out.push(goal.iter().map(|l| l.atom).collect());
        }
        Ok((out, spans))
    }

    /// Check the absolute coordinates against the board and assemble the model.
    fn finish(mut self) -> Result<Model, Vec<Diag>> {
        if let Some((w, h, size_span)) = self.size {
            for (l, what) in &self.atoms {
                for (c, span, max, axis) in
                    [(l.atom.x, l.x, w, "column"), (l.atom.y, l.y, h, "row")]
                {
                    if let Coord::Abs(v) = c {
                        if v < 1 || v > max {
                            self.errors.push(
                                Diag::at(
                                    span,
                                    format!(
                                        "{what} refers to {axis} {v}, outside the {w}x{h} board"
                                    ),
                                    format!("{axis}s are 1 to {max}"),
                                )
                                .secondary(size_span, "the board size"),
                            );
                        }
                    }
                }
            }
        }
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        match (
            self.size,
            self.depth,
            self.black_actions,
            self.white_actions,
            self.black_goals,
        ) {
            (
                Some((width, height, _)),
                Some(depth),
                Some(black_actions),
                Some(white_actions),
                Some(black_goals),
            ) => {
                let model = Model {
                    width,
                    height,
                    init: self.init.unwrap_or_default(),
                    black_actions,
                    white_actions,
                    black_goals,
                    white_goals: self.white_goals.unwrap_or_default(),
                    depth,
                    black_first: self.black_first.unwrap_or(true),
                    stuck_loses: true,
                };
                // Definition 9: the initial state is won by neither player.
                if let Some((black, k)) = model.goal_holding_initially() {
                    let spans = if black {
                        &self.black_goal_spans
                    } else {
                        &self.white_goal_spans
                    };
                    let who = if black { "Black" } else { "White" };
                    let mut d = match spans.get(k) {
                        Some(&span) => Diag::at(
                            span,
                            format!("{who}'s goal already holds in the initial position"),
                            "this goal holds on the #init board",
                        ),
                        None => Diag::error(format!(
                            "{who}'s goal {} already holds in the initial position",
                            k + 1
                        )),
                    };
                    if let Some(&init) = self.seen.get(&Kind::Init) {
                        d = d.secondary(init, "the initial position");
                    }
                    return Err(vec![d.note(
                        "seed 001's Definition 9 requires that the initial state is won by \
                         neither player (Definition 10 checks a goal only after its player's \
                         move); change `#init` or the goal",
                    )]);
                }
                Ok(model)
            }
            // Unreachable: a missing or unreadable section has been reported.
            _ => Err(vec![Diag::error("the BDDL files are incomplete")]),
        }
    }
}

fn missing_condition(cur: &Cur, keyword: &Token, part: &str, name: &str) -> Diag {
    Diag::at(
        cur.span(keyword),
        format!("the {part} of action `{name}` is missing"),
        "atoms in parentheses expected after this",
    )
    .note(FOUR_PARTS)
}

/// `:parameters (?x, ?y)`, always the same.
fn parameters(cur: &mut Cur, name: &str) -> Result<(), Diag> {
    let expected = [
        Tok::Open,
        Tok::Word("?x"),
        Tok::Comma,
        Tok::Word("?y"),
        Tok::Close,
    ];
    let mut last = cur
        .pos
        .checked_sub(1)
        .and_then(|p| cur.toks.get(p))
        .copied();
    for want in expected {
        match cur.next() {
            Some(t) if t.tok == want => last = Some(t),
            other => {
                return Err(cur
                    .error_at(
                        other.or(last),
                        format!("the parameters of action `{name}` must be `(?x, ?y)`"),
                        "expected `(?x, ?y)`",
                    )
                    .note("every action is played at a position (?x, ?y) of the board"))
            }
        }
    }
    if let Some(extra) = last.and_then(|l| cur.next_on_line(l.line)) {
        return Err(Diag::at(
            cur.span(&extra),
            format!("unexpected `{}` after the parameters", extra.show()),
            "the next part starts on a new line",
        )
        .note(FOUR_PARTS));
    }
    Ok(())
}

fn unknown_keyword(cur: &Cur, t: &Token, k: &str) -> Diag {
    let mut d = Diag::at(
        cur.span(t),
        format!("unknown keyword `:{k}`"),
        "not a part of an action",
    )
    .note(FOUR_PARTS);
    if let Some(n) = did_you_mean_note(
        &did_you_mean(k, ["action", "parameters", "precondition", "effect"]),
        ":",
    ) {
        d = d.note(n);
    }
    d
}

/// The error for `#name`, and the sections it may have been meant as (these are not also
/// reported missing).
fn unknown_section(name: &str, head: Span, role: Role) -> (Diag, Vec<Kind>) {
    if UNSUPPORTED.contains(&name) {
        let d = Diag::at(
            head,
            format!("`#{name}` is not supported"),
            "not part of BDDL as the paper defines it",
        )
        .note(section_note(role));
        return (d, Vec::new());
    }
    let mut d = Diag::at(
        head,
        format!("unknown section `#{name}`"),
        "not a BDDL section",
    )
    .note(section_note(role));
    // Suggest the corpus' spellings only (not also the paper's plural aliases).
    let names = SECTIONS
        .iter()
        .filter(|(n, k)| k.header().get(1..) == Some(*n))
        .map(|(n, _)| *n);
    let hint = did_you_mean(name, names);
    if let Some(n) = did_you_mean_note(&hint, "#") {
        d = d.note(n);
    }
    (d, hint.iter().filter_map(|h| Kind::of(h)).collect())
}

/// The words of a one-line section such as `#depth`, at most `n` of them.
fn words<'a>(cur: &mut Cur<'a, '_>, n: usize) -> Result<Vec<(&'a str, Span)>, Diag> {
    let mut out = Vec::new();
    while let Some(t) = cur.next() {
        match t.tok {
            Tok::Word(w) if out.len() < n => out.push((w, cur.span(&t))),
            _ => {
                return Err(Diag::at(
                    cur.span(&t),
                    format!("unexpected `{}` in `{}`", t.show(), cur.section()),
                    "not expected here",
                ))
            }
        }
    }
    Ok(out)
}

/// `#boardsize`: columns and rows, each 1 to [`MAX_SIDE`].
fn board_size(cur: &mut Cur) -> Result<(i64, i64, Span), Diag> {
    let usage =
        "`#boardsize` is followed by two numbers: the columns (x) and the rows (y), e.g. `3 4`";
    let ws = words(cur, 2).map_err(|d| d.note(usage))?;
    // Each word is a number in range, and there are two of them.
    let mut sides = Vec::with_capacity(2);
    for &(text, span) in &ws {
        let v = text.parse::<i64>().map_err(|_| {
            Diag::at(
                span,
                format!("malformed board size: `{text}` is not a number"),
                "a number expected",
            )
            .note(usage)
        })?;
        if !(1..=MAX_SIDE).contains(&v) {
            return Err(Diag::at(
                span,
                format!("a board side must be between 1 and {MAX_SIDE}, not {v}"),
                "out of range",
            ));
        }
        sides.push((v, span));
    }
    let [(width, ws_), (height, hs)] = sides[..] else {
        return Err(cur
            .error_at(
                None,
                "`#boardsize` needs two numbers, columns and rows".into(),
                "two numbers expected after this",
            )
            .note(usage));
    };
    Ok((width, height, ws_.to(hs)))
}

/// `#depth`: a positive number of plies.
fn depth(cur: &mut Cur) -> Result<u32, Diag> {
    let note = "`#depth` is followed by the number of plies, a positive integer";
    let ws = words(cur, 1).map_err(|d| d.note(note))?;
    let Some(&(text, span)) = ws.first() else {
        return Err(cur
            .error_at(
                None,
                "`#depth` needs a number".into(),
                "a number expected after this",
            )
            .note(note));
    };
    match text.parse::<u32>() {
        Ok(d) if d > 0 => Ok(d),
        _ => Err(Diag::at(
            span,
            format!("`#depth` must be a positive integer, not `{text}`"),
            "not a positive integer",
        )
        .note(note)),
    }
}

/// `#blackturn`: `first` (the default) or `second`.
fn black_turn(cur: &mut Cur) -> Result<bool, Diag> {
    let note = "`#blackturn` is followed by `first` or `second`";
    let ws = words(cur, 1).map_err(|d| d.note(note))?;
    match ws.first() {
        Some(&("first", _)) => Ok(true),
        Some(&("second", _)) => Ok(false),
        Some(&(text, span)) => Err(Diag::at(
            span,
            format!("`#blackturn` is `first` or `second`, not `{text}`"),
            "expected `first` or `second`",
        )),
        None => Err(cur
            .error_at(
                None,
                "`#blackturn` needs `first` or `second`".into(),
                "expected after this",
            )
            .note(note)),
    }
}

fn section_note(role: Role) -> String {
    match role {
        Role::Domain => "a domain file has the sections `#blackactions` and `#whiteactions`".into(),
        Role::Problem => "a problem file has the sections `#boardsize`, `#init`, `#depth`, `#blackgoal`, `#whitegoal` and, optionally, `#blackturn`".into(),
    }
}
