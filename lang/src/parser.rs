//! The declaration parser: tokens from [`crate::lexer`] through the lalrpop grammar
//! (`grammar.lalrpop`) into an [`ast::SourceFile`], with errors phrased for humans.

use crate::ast::{self, Ident, Token, TokenRun};
use crate::lexer::{lex, Tok};
use crate::span::{FileId, Span};
use lalrpop_util::ParseError as LalrpopError;

// Generated code: its style is lalrpop's business, not ours.
lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all)]
    grammar
);

/// A lexing or parsing error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// A complete sentence for the user, e.g. "unexpected `op`; expected one of `.`, `[`".
    pub message: String,
    /// The offending token; for an unexpected end of input, the empty span at its end.
    pub span: Span,
    /// What the parser would have accepted instead, as shown to users (`` `endfm` ``,
    /// "a name"), deduplicated; empty when the error is not about an unexpected token.
    pub expected: Vec<String>,
    /// The input ended too early: more text could make it parse (lets a REPL ask for
    /// another line instead of reporting an error).
    pub unexpected_eof: bool,
    /// The label under the span, when "unexpected here" would not fit.
    pub label: Option<String>,
    /// What to do about it (rendered as a note).
    pub help: Option<String>,
}

impl ParseError {
    /// An error that is not about an unexpected token.
    pub(crate) fn new(message: impl Into<String>, span: Span) -> ParseError {
        ParseError {
            message: message.into(),
            span,
            expected: Vec::new(),
            unexpected_eof: false,
            label: None,
            help: None,
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a whole `.game` file.
pub fn parse_file(file: FileId, src: &str) -> Result<ast::SourceFile, ParseError> {
    let mut tokens = lex(file, src)?;
    crate::lexer::periods_in_terms(&mut tokens);
    crate::lexer::mark_commands(&mut tokens);
    grammar::FileParser::new()
        .parse(file, tokens.iter().cloned())
        .map_err(|err| humanize(file, src, &tokens, err))
}

/// Lexes a term typed on the command line or at the REPL into a token run (no grammar).
/// A final `.` is kept as a token; callers that accept one strip it.
pub fn lex_run(file: FileId, src: &str) -> Result<TokenRun, ParseError> {
    Ok(lex(file, src)?
        .into_iter()
        .map(|(l, tok, r)| Token {
            text: tok.into_text(),
            span: Span::new(file, l, r),
        })
        .collect())
}

/// Parses declarations typed at a prompt (`op f : Nat -> Nat .`, `eq f(0) = 1 .`), outside
/// any module. They are parsed as the body of a module, so errors read as they would in a
/// file; input that stops inside a declaration is an unexpected end of input
/// (`unexpected_eof`), which lets a REPL ask for another line.
pub fn parse_decls(file: FileId, src: &str) -> Result<Vec<ast::Decl>, ParseError> {
    let user = lex(file, src)?;
    let end = src.len();
    // `fmod <prompt> is` USER-TOKENS `endfm`, the frame spanning nothing.
    let mut tokens = vec![
        (0, Tok::Fmod, 0),
        (0, Tok::Word("<prompt>".into()), 0),
        (0, Tok::Is, 0),
    ];
    tokens.extend(user.iter().cloned());
    tokens.push((end, Tok::Endfm, end));
    let closing = tokens.len() - 1;
    match grammar::FileParser::new().parse(file, tokens.iter().cloned()) {
        Ok(ast) => match ast.items.into_iter().next() {
            Some(ast::Item::Module(m)) => Ok(m.decls),
            _ => unreachable!("the frame is one module"),
        },
        Err(LalrpopError::UnrecognizedToken {
            token: (l, Tok::Endfm, r),
            expected,
        }) if (l, r) == (end, end) && !expected.iter().any(|e| e == "\"fmod\"") => {
            // The frame's `endfm` came too early: the input stops inside a declaration.
            Err(humanize(
                file,
                src,
                &tokens[..closing],
                LalrpopError::UnrecognizedEof {
                    location: end,
                    expected,
                },
            ))
        }
        Err(LalrpopError::UnrecognizedToken {
            token: (l, Tok::Endfm, r),
            ..
        }) if (l, r) == (end, end) => {
            // The user's own `endfm` closed the frame.
            let at = user
                .iter()
                .rev()
                .find(|(_, t, _)| *t == Tok::Endfm)
                .map_or(Span::new(file, end, end), |&(l, _, r)| {
                    Span::new(file, l, r)
                });
            Err(ParseError::new(
                "unexpected `endfm`: declarations typed here are added to the current module, \
                 which is not closed with `endfm`",
                at,
            ))
        }
        Err(err) => {
            // The frame's `endfm` is not something to suggest.
            let mut e = humanize(file, src, &tokens, err);
            for (frame, plain) in [
                ("`endfm` or ", ""),
                (" or `endfm`", ""),
                ("`endfm`, ", ""),
                (", `endfm`", ""),
            ] {
                e.message = e.message.replace(frame, plain);
            }
            e.expected.retain(|x| x != "`endfm`");
            Err(e)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Helpers for the grammar's actions

/// The name written as `tokens`, spelt without spaces (`_` `,` `_` is `_,_`). `tokens` is
/// never empty: the grammar only calls this on non-empty runs.
pub(crate) fn concat_tokens(tokens: &[Token]) -> Ident {
    let name = tokens.iter().map(|t| t.text.as_str()).collect();
    let span = match (tokens.first(), tokens.last()) {
        (Some(first), Some(last)) => first.span.to(last.span),
        _ => unreachable!("token runs in the grammar are non-empty"),
    };
    Ident { name, span }
}

/// The keywords that end a block: an equation's right-hand side that contains one has
/// run past the end of its module because its ` .` is missing (the run goes on to the
/// next `.`, several lines further, where the error would otherwise be reported).
const BLOCK_ENDS: &[&str] = &["endfm", "endfth", "endv", "endgame"];

/// An error at the end of an equation whose right-hand side `rhs` ran past the end of its
/// module: at the token before the block's closing keyword, where the ` .` is missing.
pub(crate) fn check_equation_end(rhs: &TokenRun) -> Result<(), ParseError> {
    let Some(i) = rhs
        .iter()
        .position(|t| BLOCK_ENDS.contains(&t.text.as_str()))
    else {
        return Ok(());
    };
    let keyword = &rhs[i].text;
    let (span, after) = match i.checked_sub(1).map(|j| &rhs[j]) {
        Some(last) => (last.span, format!(" after `{}`", last.text)),
        None => (rhs[i].span, String::new()),
    };
    Err(ParseError {
        label: Some("the equation ends here, without ` .`".to_string()),
        help: Some(format!(
            "add ` .`{after}: every equation ends with a period; without it the equation runs on past `{keyword}` into what follows"
        )),
        ..ParseError::new(
            format!("missing ` .` at the end of the equation before `{keyword}`"),
            span,
        )
    })
}

/// An `eq` whose right-hand side has a condition `if` (as [`split_condition`] finds it): the
/// conditional equation was meant, which is written `ceq`. Without this check the whole
/// `R if C` is parsed as one term and fails with a sort error far from the cause.
pub(crate) fn check_no_condition(rhs: &TokenRun) -> Result<(), ParseError> {
    let Some((term, _)) = split_condition(rhs.clone()) else {
        return Ok(());
    };
    let at = rhs[term.len()].span;
    Err(ParseError {
        label: Some("a condition in an `eq`".to_string()),
        help: Some(
            "an equation with a condition is written with `ceq`: `ceq L = R if C .`".to_string(),
        ),
        ..ParseError::new("an `eq` cannot have a condition: use `ceq`", at)
    })
}

/// Splits the right-hand side of a `ceq` into the term and its condition, at the condition
/// `if`: the rightmost `if` outside parentheses that does not open an `if … fi` closed
/// further right, so that `if_then_else_fi` may be used in the term, and a user's operator
/// whose name begins with `if` inside parentheses (`(if X b)` of `if__`, as Maude reads
/// it). `None` if there is no such `if` or either side would be empty.
pub(crate) fn split_condition(mut rhs: TokenRun) -> Option<(TokenRun, TokenRun)> {
    let mut depth = 0usize;
    let mut parens = 0usize;
    let mut split = None;
    for (i, tok) in rhs.iter().enumerate().rev() {
        match tok.text.as_str() {
            ")" => parens += 1,
            "(" => parens = parens.saturating_sub(1),
            _ if parens > 0 => {}
            "fi" => depth += 1,
            "if" if depth > 0 => depth -= 1,
            "if" => {
                split = Some(i);
                break;
            }
            _ => {}
        }
    }
    let at = split?;
    let cond = rhs.split_off(at + 1);
    rhs.pop(); // the `if` itself
    (!rhs.is_empty() && !cond.is_empty()).then_some((rhs, cond))
}

/// The names an equation's attribute list may begin with (`[owise]`, `[label l]`, …).
const EQUATION_ATTRIBUTES: &[&str] = &[
    "owise",
    "otherwise",
    "nonexec",
    "label",
    "metadata",
    "print",
    "variant",
];

/// Words that wait for an argument after them, so that a bracket after them opens a term
/// (`if [I] == [J]`), not an attribute list.
const OPERATOR_WORDS: &[&str] = &[
    "if", "then", "else", "and", "or", "xor", "not", "implies", "quo", "rem", "divides",
];

/// Split the run after an equation's `=` into the right-hand side (with its condition)
/// and the attribute list at its end, brackets removed (empty when there is none). A term
/// may use brackets too (`op [_] : Int -> A`), so the last bracketed group is the attribute
/// list when it begins with an attribute's name, or when it follows a complete term (a
/// closing bracket or a name, not an operator token like `+` or `=` that waits for an
/// argument) — never when it is the whole run. An unknown attribute after a term
/// (`[owse]`) is so still reported as an attribute.
pub(crate) fn split_attributes(mut rhs: TokenRun) -> (TokenRun, TokenRun) {
    if rhs.last().is_none_or(|t| t.text != "]") {
        return (rhs, Vec::new());
    }
    let mut depth = 0usize;
    let mut open = None;
    for (i, tok) in rhs.iter().enumerate().rev() {
        match tok.text.as_str() {
            "]" => depth += 1,
            "[" => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(open) = open.filter(|&i| i > 0) else {
        return (rhs, Vec::new());
    };
    let keyword = rhs
        .get(open + 1)
        .is_some_and(|t| EQUATION_ATTRIBUTES.contains(&t.text.as_str()));
    let before = rhs[open - 1].text.as_str();
    let after_term = matches!(before, ")" | "]" | "}")
        || (before.starts_with(|c: char| c.is_alphanumeric() || c == '\'' || c == '"')
            && !OPERATOR_WORDS.contains(&before));
    if !keyword && !after_term {
        return (rhs, Vec::new());
    }
    let mut attrs = rhs.split_off(open);
    attrs.remove(0);
    attrs.pop();
    (rhs, attrs)
}

/// The left-hand side of an equation without Maude's statement label `[NAME] :` in front
/// (accepted and, like the `[label NAME]` attribute, not used: gamelang names an equation
/// by its place in the file).
pub(crate) fn strip_label(mut lhs: TokenRun) -> TokenRun {
    let label = lhs.len() > 4
        && lhs[0].text == "["
        && lhs[2].text == "]"
        && lhs[3].text == ":"
        && lhs[1].text.starts_with(|c: char| c.is_alphanumeric());
    if label {
        lhs.drain(..4);
    }
    lhs
}

// ---------------------------------------------------------------------------------------
// Error messages

type Triple = (usize, Tok, usize);
type RawError = LalrpopError<usize, Tok, ParseError>;

/// An expected set at least this large means the parser is inside a token run, where
/// nearly every token is acceptable (structural states accept at most ~20 tokens, runs
/// ~40); listing them all would drown the few that actually end the run.
const RUN_STATE_MIN_EXPECTED: usize = 28;

/// The keywords that start a declaration inside a module (shown together as "a declaration"
/// when all are expected; the REPL and the term parser use the same list).
pub const DECLARATION_KEYWORDS: &[&str] = &[
    "protecting",
    "pr",
    "extending",
    "ex",
    "including",
    "inc",
    "sort",
    "sorts",
    "subsort",
    "subsorts",
    "op",
    "ops",
    "var",
    "vars",
    "eq",
    "ceq",
];

/// The name lalrpop gives the word terminal in `expected` lists.
const WORD_TERMINAL: &str = "Word";

fn humanize(file: FileId, src: &str, tokens: &[Triple], err: RawError) -> ParseError {
    match err {
        LalrpopError::User { error } => error,
        // A declaration without its ` .` at the end of the input (a file's last line):
        // at its last token, not at the end of the file.
        LalrpopError::UnrecognizedEof { expected, .. } if expects_dot(file, tokens, &expected) => {
            match missing_dot(file, tokens, None) {
                Some(e) => ParseError {
                    unexpected_eof: true,
                    ..e
                },
                None => humanize_eof(file, src, tokens, expected),
            }
        }
        LalrpopError::UnrecognizedEof { expected, .. } => humanize_eof(file, src, tokens, expected),
        // A declaration without its ` .`, followed by the next one (or the end of the
        // block): at the declaration's last token, not at the next one's keyword.
        LalrpopError::UnrecognizedToken {
            token: (l, ref tok, _),
            ref expected,
        } if starts_statement(tok) && expects_dot(file, before(tokens, l), expected) => {
            match missing_dot(file, before(tokens, l), Some(tok)) {
                Some(e) => e,
                None => humanize_token(file, tokens, err),
            }
        }
        err => humanize_token(file, tokens, err),
    }
}

/// Would a ` .` here end the declaration (so it may just be missing)? Inside a token run
/// that also accepts `.` (an `ops` group), a `.` would not end anything.
fn expects_dot(file: FileId, prefix: &[Triple], expected: &[String]) -> bool {
    let dot = |e: &String| e == "\".\"";
    if expected.len() < RUN_STATE_MIN_EXPECTED {
        expected.iter().any(dot)
    } else {
        run_closers(file, prefix, expected).iter().any(dot)
    }
}

/// A token that starts a declaration or ends a block: met where a ` .` could be, it means
/// the ` .` before it is missing.
fn starts_statement(tok: &Tok) -> bool {
    let text = tok.to_string();
    DECLARATION_KEYWORDS.contains(&text.as_str())
        || BLOCK_ENDS.contains(&text.as_str())
        || ["fmod", "fth", "view", "game", "reduce", "red"].contains(&text.as_str())
}

/// "missing ` .`" at the last of `tokens` (the declaration's end), before `next` (or the
/// end of the input). `None` when there is no token of the input to point at.
fn missing_dot(file: FileId, tokens: &[Triple], next: Option<&Tok>) -> Option<ParseError> {
    // The declaration's tokens run from after the last ` .` (or `is`). One of them that
    // ends a block (`eq f(X) = X + 1` then `endfm`, `first R` then `endgame`) means the
    // declaration ran on past the end of its block, into the next command or to the end
    // of the input: its ` .` is missing before that keyword, where it is shown.
    let from = tokens
        .iter()
        .rposition(|(_, t, _)| matches!(t.text(), "." | "is"))
        .map_or(0, |i| i + 1);
    let block_end = tokens[from..]
        .iter()
        .position(|(_, t, _)| BLOCK_ENDS.contains(&t.text()))
        .filter(|&k| k > 0)
        .map(|k| from + k);
    if let Some(k) = block_end {
        return missing_dot(file, &tokens[..k], Some(&tokens[k].1));
    }
    // The REPL's frame tokens (`fmod <prompt> is`) span nothing.
    let &(l, ref last, r) = tokens.last().filter(|&&(l, _, r)| r > l)?;
    // An equation says so (the most common case); anything else is a declaration.
    let what = match tokens
        .iter()
        .rev()
        .find(|(_, t, _)| starts_statement(t))
        .map(|(_, t, _)| t.to_string())
        .as_deref()
    {
        Some("eq") | Some("ceq") => "equation",
        _ => "declaration",
    };
    let (message, runs_on) = match next {
        Some(tok) => (
            format!("missing ` .` at the end of the {what} before `{tok}`"),
            format!("without it the {what} runs on into the `{tok}` that follows"),
        ),
        None => (
            format!("missing ` .` at the end of the {what}: the input ends without it"),
            "the input ends before it".to_string(),
        ),
    };
    Some(ParseError {
        label: Some(format!("the {what} ends here, without ` .`")),
        help: Some(format!(
            "add ` .` after `{last}`: every {what} ends with a period; {runs_on}"
        )),
        ..ParseError::new(message, Span::new(file, l, r))
    })
}

/// The tokens before position `l`.
fn before(tokens: &[Triple], l: usize) -> &[Triple] {
    &tokens[..tokens.partition_point(|&(start, _, _)| start < l)]
}

fn humanize_eof(file: FileId, src: &str, tokens: &[Triple], expected: Vec<String>) -> ParseError {
    let what = describe_expected(file, tokens, &expected, false);
    ParseError {
        message: format!("unexpected end of input; {what}"),
        span: Span::new(file, src.len(), src.len()),
        expected: render_all(&expected),
        unexpected_eof: true,
        label: None,
        help: None,
    }
}

/// What to say of a keyword of Maude's that gamelang does not have, met where a
/// declaration or a command could start: `mod`, `rl`, `rew`, `load`, …
fn maude_only(word: &str) -> Option<&'static str> {
    Some(match word {
        "mod" | "endm" | "omod" | "smod" | "th" | "rl" | "crl" | "rew" | "rewrite" | "frew"
        | "frewrite" | "erew" | "search" => {
            "gamelang runs Maude's functional modules (`fmod … endfm`, equations, `reduce`); system modules with rules (`mod`, `rl`, `rewrite`, `search`) are not supported (docs/language.md, Maude compatibility)"
        }
        "load" | "in" | "sload" | "quit" | "q" | "select" | "parse" => {
            "gamelang reads one file and runs its `reduce` commands (and `set profile on .`, `show profile .`, `set show timing off .`); Maude's other commands are not supported (docs/language.md, Maude compatibility)"
        }
        "mb" | "cmb" => "membership axioms are not supported (docs/language.md, Maude compatibility)",
        _ => return None,
    })
}

fn humanize_token(file: FileId, tokens: &[Triple], err: RawError) -> ParseError {
    match err {
        LalrpopError::User { error } => error,
        LalrpopError::UnrecognizedEof { location, .. } => ParseError::new(
            "unexpected end of input",
            Span::new(file, location, location),
        ),
        LalrpopError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let prefix = &tokens[..tokens.partition_point(|&(start, _, _)| start < l)];
            let what = describe_expected(file, prefix, &expected, true);
            let text = tok.to_string();
            ParseError {
                message: format!("unexpected `{tok}`; {what}"),
                span: Span::new(file, l, r),
                expected: render_all(&expected),
                unexpected_eof: false,
                label: None,
                help: maude_only(text.trim_matches('`')).map(str::to_string),
            }
        }
        LalrpopError::ExtraToken { token: (l, tok, r) } => ParseError::new(
            format!("unexpected `{tok}`; expected the end of the input"),
            Span::new(file, l, r),
        ),
        // Only lalrpop's built-in lexer produces this; ours reports bad input itself.
        LalrpopError::InvalidToken { location } => {
            ParseError::new("invalid token", Span::new(file, location, location))
        }
    }
}

/// "expected …" for an error after the tokens `prefix`, given lalrpop's expected terminals.
fn describe_expected(
    file: FileId,
    prefix: &[Triple],
    expected: &[String],
    at_token: bool,
) -> String {
    if expected.len() < RUN_STATE_MIN_EXPECTED {
        return format!(
            "expected {}",
            or_list(&collapse_declarations(render_all(expected)))
        );
    }
    let closers = run_closers(file, prefix, expected);
    if !closers.is_empty() {
        format!(
            "expected {} (or more tokens)",
            or_list(&render_all(&closers))
        )
    } else if at_token {
        "expected at least one token before it".to_string()
    } else {
        "expected more tokens".to_string()
    }
}

/// Which expected terminals would *end* the token run the parser is in, rather than
/// continue it. The expected set alone cannot tell (a run accepts almost anything, its
/// closer included), so each candidate is tried: the parser is fed the candidate and then
/// a plain word, and the candidate ends the run if that leads somewhere other than the
/// word alone does. This stays right whatever the grammar's runs look like.
fn run_closers(file: FileId, prefix: &[Triple], expected: &[String]) -> Vec<String> {
    let end = prefix.last().map_or(0, |&(_, _, r)| r);
    let word = || (end + 1, Tok::Word("x".to_string()), end + 2);
    let outcome = |extra: Vec<Triple>| {
        let tokens = prefix.iter().cloned().chain(extra);
        match grammar::FileParser::new().parse(file, tokens) {
            Ok(_) => None,
            Err(err) => Some(match err {
                LalrpopError::UnrecognizedEof { expected, .. } => (None, expected),
                LalrpopError::UnrecognizedToken { token, expected } => (Some(token.0), expected),
                // A user error (a `ceq` closed without a condition) or anything else.
                _ => (Some(usize::MAX), Vec::new()),
            }),
        }
    };
    let baseline = outcome(vec![word()]);
    expected
        .iter()
        .filter(|terminal| terminal.as_str() != WORD_TERMINAL)
        .filter(|terminal| {
            let tok = Tok::from_text(terminal.trim_matches('"'));
            outcome(vec![(end, tok, end + 1), word()]) != baseline
        })
        .cloned()
        .collect()
}

/// lalrpop's terminal names as users know them, in the lexer's order of importance.
fn render_all(expected: &[String]) -> Vec<String> {
    let order = |terminal: &String| {
        let text = terminal.trim_matches('"');
        // The commands after the items they may follow.
        if let Some(k) = ["reduce", "set", "show"].iter().position(|&c| c == text) {
            return Tok::FIXED_TEXTS.len() + 1 + k;
        }
        Tok::FIXED_TEXTS
            .iter()
            .position(|&t| t == text)
            .map_or(0, |i| i + 1) // `Word` first: "a name" reads best before punctuation
    };
    let mut terminals: Vec<&String> = expected.iter().collect();
    terminals.sort_by(|a, b| order(a).cmp(&order(b)).then(a.cmp(b)));
    terminals.dedup();
    terminals.into_iter().map(|t| render(t)).collect()
}

fn render(terminal: &str) -> String {
    if terminal == WORD_TERMINAL {
        "a name".to_string()
    } else {
        format!("`{}`", terminal.trim_matches('"'))
    }
}

/// Replaces the declaration keywords by "a declaration" when they are all present.
fn collapse_declarations(rendered: Vec<String>) -> Vec<String> {
    let keywords: Vec<String> = DECLARATION_KEYWORDS
        .iter()
        .map(|k| format!("`{k}`"))
        .collect();
    if !keywords.iter().all(|k| rendered.contains(k)) {
        return rendered;
    }
    let first = rendered
        .iter()
        .position(|i| keywords.contains(i))
        .unwrap_or(0);
    let mut out: Vec<String> = rendered
        .into_iter()
        .filter(|i| !keywords.contains(i))
        .collect();
    out.insert(first, "a declaration".to_string());
    out
}

/// `a`, `a or b`, `one of a, b, c`.
fn or_list(items: &[String]) -> String {
    match items {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => format!("one of {}", items.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::*;

    const FILE: FileId = FileId(0);

    fn parse(src: &str) -> SourceFile {
        parse_file(FILE, src).unwrap_or_else(|e| {
            panic!(
                "{} at {:?}: {:?}",
                e.message,
                e.span.range(),
                &src[e.span.range()]
            )
        })
    }

    fn err(src: &str) -> ParseError {
        parse_file(FILE, src).unwrap_err()
    }

    fn texts(run: &[Token]) -> Vec<&str> {
        run.iter().map(|t| t.text.as_str()).collect()
    }

    fn names(sorts: &[SortRef]) -> Vec<&str> {
        sorts.iter().map(|s| s.name.as_str()).collect()
    }

    fn idents(idents: &[Ident]) -> Vec<&str> {
        idents.iter().map(|i| i.name.as_str()).collect()
    }

    /// The source text a span covers.
    fn at(src: &str, span: Span) -> &str {
        &src[span.range()]
    }

    fn only_module(file: &SourceFile) -> &ModuleDecl {
        match file.items.as_slice() {
            [Item::Module(m)] => m,
            other => panic!("expected one module, got {other:?}"),
        }
    }

    #[test]
    fn module_with_every_declaration() {
        let src = "\
fmod HEAPS is
  protecting NAT .
  pr SET{TwoHeaps} .
  extending A . ex B . including C . inc D .
  sort Heap .
  sorts TwoHeaps Set{TwoHeaps} .
  subsort Nat < Heap .
  subsorts A B < C < D .
  op heaps : Nat Nat -> TwoHeaps [ctor] .
  op _,_ : Set{X} Set{X} -> Set{X} [assoc comm id: empty] .
  op (__) : Nat -> Nat .
  op if_then_else_fi : Bool Nat Nat -> Nat .
  op empty : -> Set{TwoHeaps} .
  ops a b : -> Nat .
  ops (_+_) (_*_) : Nat Nat -> Nat [assoc] .
  var x : Nat .
  vars y z : Set{TwoHeaps} .
  eq take(heaps(s N, M)) = heaps(N, M) [label take] .
  eq x =/= y = not (x = y) .
  ceq f(x) = y if x > 0 .
endfm
";
        let file = parse(src);
        let m = only_module(&file);
        assert_eq!(m.kind, ModuleKind::Module);
        assert_eq!(m.name.name, "HEAPS");
        assert_eq!(at(src, m.name.span), "HEAPS");
        assert!(m.params.is_empty());
        assert_eq!(at(src, m.span), src.trim_end());

        let mut decls = m.decls.iter();
        let mut import = |mode: ImportMode, name: &str, args: &[&str]| match decls.next() {
            Some(Decl::Import {
                mode: m,
                target,
                span,
            }) => {
                assert_eq!(*m, mode);
                assert_eq!(target.name.name, name);
                let got: Vec<_> = target.args.iter().map(|a| a.name.name.as_str()).collect();
                assert_eq!(got, args);
                assert!(at(src, *span).ends_with(" ."), "{:?}", at(src, *span));
            }
            other => panic!("expected an import, got {other:?}"),
        };
        import(ImportMode::Protecting, "NAT", &[]);
        import(ImportMode::Protecting, "SET", &["TwoHeaps"]);
        import(ImportMode::Extending, "A", &[]);
        import(ImportMode::Extending, "B", &[]);
        import(ImportMode::Including, "C", &[]);
        import(ImportMode::Including, "D", &[]);
        let decls: Vec<&Decl> = decls.collect();

        match decls[0] {
            Decl::Sorts { sorts, span } => {
                assert_eq!(names(sorts), ["Heap"]);
                assert_eq!(at(src, *span), "sort Heap .");
            }
            other => panic!("{other:?}"),
        }
        match decls[1] {
            Decl::Sorts { sorts, .. } => {
                assert_eq!(names(sorts), ["TwoHeaps", "Set{TwoHeaps}"]);
                assert_eq!(at(src, sorts[1].span), "Set{TwoHeaps}");
            }
            other => panic!("{other:?}"),
        }
        match decls[2] {
            Decl::Subsorts { chain, span } => {
                let chain: Vec<_> = chain.iter().map(|level| names(level)).collect();
                assert_eq!(chain, [vec!["Nat"], vec!["Heap"]]);
                assert_eq!(at(src, *span), "subsort Nat < Heap .");
            }
            other => panic!("{other:?}"),
        }
        match decls[3] {
            Decl::Subsorts { chain, .. } => {
                let chain: Vec<_> = chain.iter().map(|level| names(level)).collect();
                assert_eq!(chain, [vec!["A", "B"], vec!["C"], vec!["D"]]);
            }
            other => panic!("{other:?}"),
        }
        let op = |decl: &Decl| match decl {
            Decl::Op {
                names: n,
                args,
                result,
                attrs,
                span,
            } => (
                idents(n).join(" "),
                names(args).join(" "),
                result.name.clone(),
                texts(attrs).join(" "),
                at(src, *span).to_string(),
            ),
            other => panic!("expected an op, got {other:?}"),
        };
        let (n, args, result, attrs, span) = op(decls[4]);
        assert_eq!((n.as_str(), args.as_str()), ("heaps", "Nat Nat"));
        assert_eq!((result.as_str(), attrs.as_str()), ("TwoHeaps", "ctor"));
        assert_eq!(span, "op heaps : Nat Nat -> TwoHeaps [ctor] .");
        let (n, args, result, attrs, _) = op(decls[5]);
        assert_eq!((n.as_str(), args.as_str()), ("_,_", "Set{X} Set{X}"));
        assert_eq!(result, "Set{X}");
        assert_eq!(attrs, "assoc comm id: empty");
        assert_eq!(op(decls[6]).0, "(__)");
        assert_eq!(op(decls[7]).0, "if_then_else_fi");
        let (n, args, result, attrs, _) = op(decls[8]);
        assert_eq!((n.as_str(), args.as_str()), ("empty", ""));
        assert_eq!((result.as_str(), attrs.as_str()), ("Set{TwoHeaps}", ""));
        assert_eq!(op(decls[9]).0, "a b");
        let (n, _, _, attrs, _) = op(decls[10]);
        assert_eq!((n.as_str(), attrs.as_str()), ("_+_ _*_", "assoc"));
        // The name of a multi-token op covers all of its tokens.
        match (decls[5], decls[10]) {
            (Decl::Op { names: single, .. }, Decl::Op { names: many, .. }) => {
                assert_eq!(at(src, single[0].span), "_,_");
                assert_eq!(at(src, many[0].span), "_+_");
                assert_eq!(at(src, many[1].span), "_*_");
            }
            other => panic!("{other:?}"),
        }

        match decls[11] {
            Decl::Vars {
                names: n,
                sort,
                span,
            } => {
                assert_eq!(idents(n), ["x"]);
                assert_eq!(sort.name, "Nat");
                assert_eq!(at(src, *span), "var x : Nat .");
            }
            other => panic!("{other:?}"),
        }
        match decls[12] {
            Decl::Vars { names: n, sort, .. } => {
                assert_eq!(idents(n), ["y", "z"]);
                assert_eq!(sort.name, "Set{TwoHeaps}");
            }
            other => panic!("{other:?}"),
        }
        match decls[13] {
            Decl::Eq {
                lhs,
                rhs,
                cond,
                attrs,
                span,
            } => {
                assert_eq!(
                    texts(lhs),
                    ["take", "(", "heaps", "(", "s", "N", ",", "M", ")", ")"]
                );
                assert_eq!(texts(rhs), ["heaps", "(", "N", ",", "M", ")"]);
                assert_eq!(*cond, None);
                assert_eq!(texts(attrs), ["label", "take"]);
                assert_eq!(
                    at(src, *span),
                    "eq take(heaps(s N, M)) = heaps(N, M) [label take] ."
                );
                assert_eq!(at(src, lhs[0].span), "take");
            }
            other => panic!("{other:?}"),
        }
        match decls[14] {
            // The right-hand side may contain `=`.
            Decl::Eq { lhs, rhs, .. } => {
                assert_eq!(texts(lhs), ["x", "=/=", "y"]);
                assert_eq!(texts(rhs), ["not", "(", "x", "=", "y", ")"]);
            }
            other => panic!("{other:?}"),
        }
        match decls[15] {
            Decl::Eq { lhs, rhs, cond, .. } => {
                assert_eq!(texts(lhs), ["f", "(", "x", ")"]);
                assert_eq!(texts(rhs), ["y"]);
                assert_eq!(texts(cond.as_ref().unwrap()), ["x", ">", "0"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(decls.len(), 16);
    }

    #[test]
    fn parameterised_module() {
        let src = "fmod WINS{X :: GAME-TREE, Y :: TRIV} is protecting EXT-BOOL . endfm";
        let file = parse(src);
        let m = only_module(&file);
        assert_eq!(m.name.name, "WINS");
        let params: Vec<_> = m
            .params
            .iter()
            .map(|p| (p.name.name.as_str(), p.theory.name.as_str()))
            .collect();
        assert_eq!(params, [("X", "GAME-TREE"), ("Y", "TRIV")]);
        assert_eq!(at(src, m.params[0].theory.span), "GAME-TREE");
    }

    #[test]
    fn theory() {
        let src = "fth GAME-TREE is sort Config . op start : -> Config . endfth";
        let m = only_module(&parse(src)).clone();
        assert_eq!(m.kind, ModuleKind::Theory);
        assert_eq!(m.name.name, "GAME-TREE");
        assert_eq!(m.decls.len(), 2);
        // `endfm` does not close a theory.
        let e = err("fth T is sort S . endfm");
        assert_eq!(
            e.message,
            "unexpected `endfm`; expected `endfth` or a declaration"
        );
    }

    #[test]
    fn view_with_every_map_form() {
        let src = "\
view HeapsGame from GAME-TREE to HEAPS{Nat} is
  sort Config to TwoHeaps .
  sort SetConfig to Set{TwoHeaps} .
  op start to initial .
  op _,_ to _;_ .
  op next-config(p:Players, c:Config) to term next-heaps(c:TwoHeaps) .
endv
";
        let file = parse(src);
        let [Item::View(v)] = file.items.as_slice() else {
            panic!("{:?}", file.items)
        };
        assert_eq!(v.name.name, "HeapsGame");
        assert_eq!(v.from.name.name, "GAME-TREE");
        assert_eq!(v.to.name.name, "HEAPS");
        assert_eq!(v.to.args[0].name.name, "Nat");
        assert_eq!(at(src, v.to.span), "HEAPS{Nat}");
        assert_eq!(at(src, v.span), src.trim_end());
        match &v.maps[0] {
            ViewMap::Sort { from, to, span } => {
                assert_eq!(
                    (from.name.as_str(), to.name.as_str()),
                    ("Config", "TwoHeaps")
                );
                assert_eq!(at(src, *span), "sort Config to TwoHeaps .");
            }
            other => panic!("{other:?}"),
        }
        match &v.maps[1] {
            ViewMap::Sort { to, .. } => assert_eq!(to.name, "Set{TwoHeaps}"),
            other => panic!("{other:?}"),
        }
        match &v.maps[2] {
            ViewMap::Op { from, to, span } => {
                assert_eq!((from.name.as_str(), to.name.as_str()), ("start", "initial"));
                assert_eq!(at(src, *span), "op start to initial .");
            }
            other => panic!("{other:?}"),
        }
        match &v.maps[3] {
            ViewMap::Op { from, to, .. } => {
                assert_eq!((from.name.as_str(), to.name.as_str()), ("_,_", "_;_"));
                assert_eq!(at(src, from.span), "_,_");
            }
            other => panic!("{other:?}"),
        }
        match &v.maps[4] {
            ViewMap::OpToTerm { from, to, span } => {
                assert_eq!(
                    texts(from),
                    ["next-config", "(", "p:Players", ",", "c:Config", ")"]
                );
                assert_eq!(texts(to), ["next-heaps", "(", "c:TwoHeaps", ")"]);
                assert_eq!(
                    at(src, *span),
                    "op next-config(p:Players, c:Config) to term next-heaps(c:TwoHeaps) ."
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(v.maps.len(), 5);
    }

    #[test]
    fn game_block() {
        let src =
            "game nim is\n  module WINS{HeapsGame} .\n  start heaps(3, 4) .\n  first A .\nendgame";
        let file = parse(src);
        let [Item::Game(g)] = file.items.as_slice() else {
            panic!("{:?}", file.items)
        };
        assert_eq!(g.name.name, "nim");
        assert_eq!(at(src, g.span), src);
        let fields: Vec<_> = g
            .fields
            .iter()
            .map(|f| (f.key.name.as_str(), texts(&f.value).join(" ")))
            .collect();
        assert_eq!(
            fields,
            [
                ("module", "WINS { HeapsGame }".to_string()),
                ("start", "heaps ( 3 , 4 )".to_string()),
                ("first", "A".to_string()),
            ]
        );
        assert_eq!(at(src, g.fields[1].span), "start heaps(3, 4) .");
    }

    #[test]
    fn several_items_and_keywords_inside_terms() {
        let src = "fmod A is eq f(to, term, sort, is) = g(op : x) . endfm\n\
                   game g is start to is from . endgame";
        let file = parse(src);
        assert_eq!(file.items.len(), 2);
        let m = match &file.items[0] {
            Item::Module(m) => m,
            other => panic!("{other:?}"),
        };
        match &m.decls[0] {
            Decl::Eq { lhs, rhs, .. } => {
                assert_eq!(texts(lhs).join(" "), "f ( to , term , sort , is )");
                assert_eq!(texts(rhs).join(" "), "g ( op : x )");
            }
            other => panic!("{other:?}"),
        }
        assert!(parse("").items.is_empty());
    }

    #[test]
    fn ceq_splits_at_the_condition_if() {
        let src = "fmod A is ceq f(x) = if a then b else c fi if x > 0 [owise] . endfm";
        let file = parse(src);
        match &only_module(&file).decls[0] {
            Decl::Eq {
                lhs,
                rhs,
                cond,
                attrs,
                ..
            } => {
                assert_eq!(texts(lhs), ["f", "(", "x", ")"]);
                assert_eq!(texts(rhs), ["if", "a", "then", "b", "else", "c", "fi"]);
                assert_eq!(texts(cond.as_ref().unwrap()), ["x", ">", "0"]);
                assert_eq!(texts(attrs), ["owise"]);
            }
            other => panic!("{other:?}"),
        }
        // An `if … fi` inside the condition is not the split point either.
        let run = lex_run(FILE, "a if if b then c else d fi").unwrap();
        let (rhs, cond) = split_condition(run).unwrap();
        assert_eq!(texts(&rhs), ["a"]);
        assert_eq!(texts(&cond), ["if", "b", "then", "c", "else", "d", "fi"]);
        // Either side empty: no split.
        assert!(split_condition(lex_run(FILE, "if c").unwrap()).is_none());
        assert!(split_condition(lex_run(FILE, "a if").unwrap()).is_none());
        assert!(split_condition(lex_run(FILE, "if a then b else c fi").unwrap()).is_none());
    }

    #[test]
    fn ceq_without_condition_is_an_error_at_the_equation() {
        let src = "fmod A is\n  ceq f(x) = if a then b else c fi .\nendfm";
        let e = err(src);
        assert_eq!(e.message, "a `ceq` needs a condition: `ceq L = R if C .`");
        assert_eq!(at(src, e.span), "ceq f(x) = if a then b else c fi .");
        assert!(!e.unexpected_eof);
    }

    #[test]
    fn missing_dot() {
        let src = "fmod A is\n  op f : Nat -> Nat\n  op g : -> Nat .\nendfm";
        let e = err(src);
        // At the end of the declaration without its ` .`, not at the next `op`.
        assert_eq!(
            e.message,
            "missing ` .` at the end of the declaration before `op`"
        );
        assert_eq!(at(src, e.span), "Nat");
        assert_eq!(e.span.start as usize, src.find("Nat\n").unwrap());
        assert!(e
            .help
            .as_deref()
            .unwrap()
            .starts_with("add ` .` after `Nat`"));
        assert!(!e.unexpected_eof);
        assert_eq!(e.to_string(), e.message);

        // The last equation of a module: at its end, not at the next `.` lines later.
        let src = "fmod A is\n  eq a = b\nendfm\nfmod B is\n  sort S .\nendfm";
        let e = err(src);
        assert_eq!(
            e.message,
            "missing ` .` at the end of the equation before `endfm`"
        );
        assert_eq!(at(src, e.span), "b");
        assert!(e.help.unwrap().starts_with("add ` .` after `b`"));

        let src = "fmod A is protecting NAT endfm";
        let e = err(src);
        assert_eq!(
            e.message,
            "missing ` .` at the end of the declaration before `endfm`"
        );
        assert_eq!(at(src, e.span), "NAT");
    }

    #[test]
    fn a_condition_in_an_eq_asks_for_ceq() {
        let src = "fmod A is\n  op d : Nat -> Nat .\n  var n : Nat .\n  eq d(n) = n + 1 if n < 3 .\nendfm";
        let e = err(src);
        assert_eq!(e.message, "an `eq` cannot have a condition: use `ceq`");
        assert_eq!(at(src, e.span), "if");
        assert_eq!(e.span.start as usize, src.find("if n").unwrap());
        assert!(e.help.unwrap().contains("`ceq L = R if C .`"));
        // `if_then_else_fi` in the right-hand side is not a condition.
        let ok = "fmod A is\n  op d : Nat -> Nat .\n  var n : Nat .\n  eq d(n) = if n < 3 then n else 0 fi .\nendfm";
        assert!(crate::parser::parse_file(FILE, ok).is_ok());
        // Nor a user's operator `if__` inside parentheses (Maude reads it so); a condition
        // after it still is.
        let ok = "fmod A is\n  sort S .\n  ops a b : -> S .\n  op if__ : S S -> S .\n  var X : S .\n  eq a = (if X b) .\nendfm";
        assert!(crate::parser::parse_file(FILE, ok).is_ok());
        let src = "fmod A is\n  sort S .\n  ops a b : -> S .\n  op if__ : S S -> S .\n  var X : S .\n  eq a = (if X b) if (X == b) .\nendfm";
        let e = err(src);
        assert_eq!(e.message, "an `eq` cannot have a condition: use `ceq`");
        assert_eq!(e.span.start as usize, src.find("if (X").unwrap());
    }

    #[test]
    fn missing_endfm_at_end_of_input() {
        let src = "fmod A is\n  sort S .\n";
        let e = err(src);
        assert_eq!(
            e.message,
            "unexpected end of input; expected `endfm` or a declaration"
        );
        assert!(e.unexpected_eof);
        assert_eq!(e.span, Span::new(FILE, src.len(), src.len()));
        assert!(e.expected.contains(&"`endfm`".to_string()));
        assert!(e.expected.contains(&"`ceq`".to_string()));
    }

    #[test]
    fn errors_inside_token_runs_name_what_ends_the_run() {
        let cases = [
            (
                "fmod A is eq a = b",
                "missing ` .` at the end of the equation: the input ends without it",
            ),
            (
                "fmod A is eq f(x) .",
                "unexpected `.`; expected `=` (or more tokens)",
            ),
            (
                "fmod A is eq = b .",
                "unexpected `=`; expected at least one token before it",
            ),
            (
                "fmod A is op f .",
                "unexpected `.`; expected `:` (or more tokens)",
            ),
            (
                "fmod A is op f : -> S [ctor",
                "unexpected end of input; expected `]` (or more tokens)",
            ),
            (
                "fmod A is ops (_+_ : S S -> S .",
                "unexpected end of input; expected `)` (or more tokens)",
            ),
            (
                "view V from T to M is op f",
                "unexpected end of input; expected `to` (or more tokens)",
            ),
            (
                "view V from T to M is op f to term",
                "unexpected end of input; expected more tokens",
            ),
            (
                "game g is start",
                "unexpected end of input; expected more tokens",
            ),
            (
                "game g is start x",
                "missing ` .` at the end of the declaration: the input ends without it",
            ),
        ];
        for (src, message) in cases {
            assert_eq!(err(src).message, message, "for {src:?}");
        }
    }

    #[test]
    fn other_errors() {
        let e = err("foo");
        assert_eq!(
            e.message,
            "unexpected `foo`; expected one of `fmod`, `fth`, `view`, `game`, `reduce`, `set`, `show`"
        );
        // `red` is a command between items, and an ordinary word inside a module.
        let f = parse_file(FILE, "fmod A is op red : -> A . endfm red red .").unwrap();
        assert!(matches!(&f.items[1], ast::Item::Reduce(r) if r.term[0].text == "red"));
        // So are `set` and `show`.
        let f = parse_file(
            FILE,
            "set show timing off . fmod A is op show : -> A . op set : A -> A . endfm red set(show) . show profile .",
        )
        .unwrap();
        assert!(
            matches!(&f.items[0], ast::Item::Setting(s) if !s.show && s.words == ["show", "timing", "off"])
        );
        assert!(matches!(&f.items[2], ast::Item::Reduce(r) if r.term[0].text == "set"));
        assert!(matches!(&f.items[3], ast::Item::Setting(s) if s.show && s.words == ["profile"]));
        let e = err("fmod A is var x Nat .");
        assert_eq!(e.message, "unexpected `.`; expected a name or `:`");
        assert_eq!(e.span, Span::new(FILE, 20, 21));
        // Lexer errors come through unchanged.
        let e = err("fmod A is \u{7} endfm");
        assert_eq!(e.span, Span::new(FILE, 10, 11));
        assert!(e.message.contains("U+0007"));
    }

    #[test]
    fn lex_run_keeps_keywords_and_spans() {
        let run = lex_run(FILE, "w(A, to) = x .").unwrap();
        assert_eq!(texts(&run), ["w", "(", "A", ",", "to", ")", "=", "x", "."]);
        assert_eq!(run[4].span, Span::new(FILE, 5, 7));
        assert!(lex_run(FILE, "  ").unwrap().is_empty());
    }

    #[test]
    fn seed_paper_code() {
        let src = "\
fmod WINS{X :: GAME-TREE} is
  protecting EXT-BOOL .
  op w : Players X$Config -> Bool .
  op w-aux : Players X$SetConfig -> Bool .
  var p : Players .
  var c : X$Config .
  var S : X$SetConfig .
  ceq w(p, c) = won(p, c) if halted(p, c).
  ceq w(R, c) = w-aux(B, next-config (R, c)) if not halted(R, c) .
  eq w-aux(R, empty) = true .
  eq w-aux(R, (c, S)) = w(R, c) and-then w-aux(R, S) .
endfm
fth SET-CONFIG is
  protecting CONFIG .
  sort SetConfig .
  subsort Config < SetConfig .
  op empty : -> SetConfig [ctor] .
  op _,_ : SetConfig SetConfig -> SetConfig [assoc comm id: empty] .
endfth
";
        let file = parse(src);
        assert_eq!(file.items.len(), 2);
        let (wins, set) = match file.items.as_slice() {
            [Item::Module(a), Item::Module(b)] => (a, b),
            other => panic!("{other:?}"),
        };
        assert_eq!(wins.kind, ModuleKind::Module);
        assert_eq!(wins.params[0].theory.name, "GAME-TREE");
        assert_eq!(wins.decls.len(), 10);
        match &wins.decls[1] {
            Decl::Op { args, .. } => assert_eq!(names(args), ["Players", "X$Config"]),
            other => panic!("{other:?}"),
        }
        match &wins.decls[6] {
            Decl::Eq {
                rhs, cond, span, ..
            } => {
                assert_eq!(texts(rhs), ["won", "(", "p", ",", "c", ")"]);
                assert_eq!(
                    texts(cond.as_ref().unwrap()),
                    ["halted", "(", "p", ",", "c", ")"]
                );
                assert_eq!(at(src, *span), "ceq w(p, c) = won(p, c) if halted(p, c).");
            }
            other => panic!("{other:?}"),
        }
        match &wins.decls[7] {
            Decl::Eq { cond, .. } => assert_eq!(
                texts(cond.as_ref().unwrap()),
                ["not", "halted", "(", "R", ",", "c", ")"]
            ),
            other => panic!("{other:?}"),
        }
        match &wins.decls[9] {
            Decl::Eq { lhs, rhs, .. } => {
                assert_eq!(texts(lhs).join(" "), "w-aux ( R , ( c , S ) )");
                assert_eq!(texts(rhs).join(" "), "w ( R , c ) and-then w-aux ( R , S )");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(set.kind, ModuleKind::Theory);
        assert_eq!(set.name.name, "SET-CONFIG");
        match &set.decls[4] {
            Decl::Op {
                names: n, attrs, ..
            } => {
                assert_eq!(idents(n), ["_,_"]);
                assert_eq!(texts(attrs), ["assoc", "comm", "id:", "empty"]);
            }
            other => panic!("{other:?}"),
        }
    }
}
