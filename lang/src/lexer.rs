//! Maude-style lexer.
//!
//! Whitespace separates tokens, and `( ) [ ] { } ,` are tokens of their own wherever they
//! occur. Everything else is a *word*: a maximal run of other non-whitespace characters, so
//! `next-config`, `X$Config`, `c:Config`, `=/=` and `-5` are single words. Operators are
//! user-declared mixfix, so the lexer cannot know more; terms are split into their parts
//! later, against the signature (see `elab::mixfix`).
//!
//! Three refinements on top of that:
//! - a word starting with `---` or `***` starts a comment running to the end of the line,
//!   except `---(` and `***(`, which start a comment running to the matching `)` over any
//!   number of lines (Maude's `---( … )---`);
//! - a word of more than one character that ends in `.` and is followed by whitespace or the
//!   end of input is split into the word and a `.` token, so that `empty.` ends a
//!   declaration as in Maude;
//! - a word whose whole text is a keyword of the declaration grammar becomes that keyword
//!   (see [`Tok`]); the grammar still accepts keywords inside terms.

use crate::parser::ParseError;
use crate::span::{FileId, Span};
use logos::Logos;

/// Declares [`Tok`] from one list, so that a token's text and its variant cannot drift apart.
macro_rules! tokens {
    ($($variant:ident => $text:literal,)*) => {
        /// A token of the declaration grammar.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Tok {
            $(
                #[doc = concat!("`", $text, "`")]
                $variant,
            )*
            /// Any other word.
            Word(String),
            /// `reduce` or `red` where a module, view or game may start: Maude's command
            /// (see [`mark_commands`]); elsewhere these are words.
            Reduce,
            /// `set` where a module, view or game may start: Maude's command (`set profile
            /// on .`, `set show timing off .`; see [`mark_commands`]).
            Set,
            /// `show` where a module, view or game may start: Maude's command (`show
            /// profile .`).
            Show,
        }

        impl Tok {
            /// The token a word (or self-delimiting character) stands for: a keyword when
            /// the text is exactly one, a [`Tok::Word`] otherwise.
            pub fn from_text(text: &str) -> Tok {
                match text {
                    $($text => Tok::$variant,)*
                    _ => Tok::Word(text.to_string()),
                }
            }

            /// The token as written in the source (keywords are matched exactly, so this
            /// is the source text for every token).
            pub fn text(&self) -> &str {
                match self {
                    $(Tok::$variant => $text,)*
                    Tok::Word(word) => word,
                    Tok::Reduce => "reduce",
                    Tok::Set => "set",
                    Tok::Show => "show",
                }
            }

            /// The texts of every token but [`Tok::Word`], in declaration order; error
            /// messages list expected tokens in this order.
            pub const FIXED_TEXTS: &'static [&'static str] = &[$($text,)*];
        }
    };
}

// Punctuation comes first: it is what a confused reader most often lacks, and error
// messages list expected tokens in this order.
tokens! {
    Dot => ".",
    Colon => ":",
    Arrow => "->",
    Equals => "=",
    Lt => "<",
    ColonColon => "::",
    LParen => "(",
    RParen => ")",
    LBracket => "[",
    RBracket => "]",
    LBrace => "{",
    RBrace => "}",
    Comma => ",",
    Is => "is",
    From => "from",
    To => "to",
    Term => "term",
    Fmod => "fmod",
    Endfm => "endfm",
    Fth => "fth",
    Endfth => "endfth",
    View => "view",
    Endv => "endv",
    Game => "game",
    Endgame => "endgame",
    Protecting => "protecting",
    Pr => "pr",
    Extending => "extending",
    Ex => "ex",
    Including => "including",
    Inc => "inc",
    Sort => "sort",
    Sorts => "sorts",
    Subsort => "subsort",
    Subsorts => "subsorts",
    Op => "op",
    Ops => "ops",
    Var => "var",
    Vars => "vars",
    Eq => "eq",
    Ceq => "ceq",
}

impl Tok {
    /// The token's text, owned (a word's string is moved out rather than copied).
    pub fn into_text(self) -> String {
        match self {
            Tok::Word(word) => word,
            other => other.text().to_string(),
        }
    }
}

impl std::fmt::Display for Tok {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// What logos recognises; words are classified (and split) afterwards in [`lex`], because
/// whether a word is a keyword depends on its whole text after the trailing-dot rule.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
// A byte-order mark is skipped like whitespace so files saved by some editors still lex.
#[logos(skip r"[\s\u{FEFF}]+")]
// Comment patterns are longer (or, for a bare `---`, of higher priority) than the word
// pattern, so a word that *starts* with `---` or `***` becomes a comment; `a---b` is a word
// because matching starts at `a`.
#[logos(skip r"---([^(\n][^\n]*)?")]
#[logos(skip r"\*\*\*([^(\n][^\n]*)?")]
enum Raw {
    /// `---(` or `***(`: a comment to the matching `)`, skipped by [`lex`].
    #[token("---(")]
    #[token("***(")]
    BlockComment,
    #[token("(")]
    #[token(")")]
    #[token("[")]
    #[token("]")]
    #[token("{")]
    #[token("}")]
    #[token(",")]
    SelfDelimiting,
    // Control characters are excluded so that stray binary junk is reported, not swallowed.
    #[regex(r"[^\s\p{Cc}\u{FEFF}()\[\]{},]+")]
    Word,
    // A string literal ("X", "a b", "\n") is one token, spaces and punctuation included;
    // it wins over a word of the same length.
    #[regex(r#""([^"\\\n]|\\.)*""#, priority = 10)]
    Str,
}

/// Maude's operators written with a period (`op _._ : Elt List -> List`): where a file
/// declares one, a `.` in a module (`fmod`, `fth`) or in a `reduce` command that is
/// followed by more of a term — not by the end, a keyword that begins a declaration, an
/// item or a command — is that operator's token, not the end of the statement
/// (`eq len(X . Y . nil) = 2 .`). Files without such an operator are untouched, so a
/// missing keyword after a `.` is still reported as it always was.
pub fn periods_in_terms(tokens: &mut [(usize, Tok, usize)]) {
    let declares_period_op = tokens.windows(2).any(|w| {
        matches!(w[0].1, Tok::Op | Tok::Ops)
            && matches!(&w[1].1, Tok::Word(n) if n.contains('_') && (n.contains("_.") || n.contains("._")))
    }) || tokens.windows(2).any(|w| {
        // `ops a (_._) : …`: a parenthesised name after `ops`.
        matches!(&w[1].1, Tok::Word(n) if n.contains("_._")) && w[0].1 == Tok::LParen
    });
    if !declares_period_op {
        return;
    }
    let ends_statement = |next: Option<&Tok>| match next {
        None => true,
        Some(Tok::Word(w)) => matches!(w.as_str(), "red" | "reduce" | "q" | "quit"),
        Some(t) => !matches!(t, Tok::LParen | Tok::LBracket | Tok::LBrace),
    };
    // Inside a module or theory, or at the top level (where only `reduce` commands have
    // terms); not in views and games, whose fields are words.
    let mut in_term_block = true;
    for k in 0..tokens.len() {
        match tokens[k].1 {
            Tok::Fmod | Tok::Fth => in_term_block = true,
            Tok::View | Tok::Game => in_term_block = false,
            Tok::Endv | Tok::Endgame => in_term_block = true,
            Tok::Dot if in_term_block && !ends_statement(tokens.get(k + 1).map(|t| &t.1)) => {
                tokens[k].1 = Tok::Word(".".into());
            }
            _ => {}
        }
    }
}

/// Marks Maude's `reduce` (`red`), `set` and `show` commands: a word `reduce` or `red` that
/// stands where an item (module, theory, view, game) may start becomes [`Tok::Reduce`]
/// (`set`, `show`: [`Tok::Set`], [`Tok::Show`]). Everywhere else,
/// inside modules and terms, the two are ordinary words (an operator may be called `red`).
pub fn mark_commands(tokens: &mut Vec<(usize, Tok, usize)>) {
    let command = |w: &str| match w {
        "reduce" | "red" => Some(Tok::Reduce),
        "set" => Some(Tok::Set),
        "show" => Some(Tok::Show),
        _ => None,
    };
    let mut at_top = true;
    let mut in_command = false;
    let mut quit = None;
    for (k, (_, tok, _)) in tokens.iter_mut().enumerate() {
        if in_command {
            in_command = *tok != Tok::Dot;
            continue;
        }
        match tok {
            Tok::Word(w) if at_top => {
                if let Some(c) = command(w) {
                    *tok = c;
                    in_command = true;
                } else if w == "quit" || w == "q" {
                    // Maude's `quit` (`q`) between items ends the file: Maude reads no
                    // further.
                    quit = Some(k);
                    break;
                }
            }
            Tok::Fmod | Tok::Fth | Tok::View | Tok::Game => at_top = false,
            Tok::Endfm | Tok::Endfth | Tok::Endv | Tok::Endgame => at_top = true,
            _ => {}
        }
    }
    if let Some(k) = quit {
        tokens.truncate(k);
    }
}

/// Splits `src` into tokens with their byte offsets (`(start, token, end)`, the triple
/// lalrpop expects).
pub fn lex(file: FileId, src: &str) -> Result<Vec<(usize, Tok, usize)>, ParseError> {
    let mut tokens = Vec::new();
    let mut lexer = Raw::lexer(src);
    while let Some(raw) = lexer.next() {
        let range = lexer.span();
        let text = lexer.slice();
        match raw {
            Ok(Raw::BlockComment) => {
                let mut depth = 1;
                let end = src[range.end..].char_indices().find_map(|(k, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(k + 1)
                });
                let Some(end) = end else {
                    return Err(ParseError {
                        message: format!("unterminated comment: `{text}` has no matching `)`"),
                        span: Span::new(file, range.start, range.end),
                        expected: Vec::new(),
                        unexpected_eof: true,
                        label: Some("the comment starts here".into()),
                        help: Some(format!("a comment `{text} …` runs to the `)` that closes its `(`: add it where the comment ends")),
                    });
                };
                lexer.bump(end);
            }
            Ok(Raw::SelfDelimiting) => tokens.push((range.start, Tok::from_text(text), range.end)),
            Ok(Raw::Str) => tokens.push((range.start, Tok::Word(text.to_string()), range.end)),
            Ok(Raw::Word) => {
                let followed_by_space = src[range.end..]
                    .chars()
                    .next()
                    .is_none_or(char::is_whitespace);
                if text.len() > 1 && text.ends_with('.') && followed_by_space {
                    let dot = range.end - 1;
                    tokens.push((range.start, Tok::from_text(&text[..text.len() - 1]), dot));
                    tokens.push((dot, Tok::Dot, range.end));
                } else {
                    tokens.push((range.start, Tok::from_text(text), range.end));
                }
            }
            Err(()) => {
                let c = src[range.start..].chars().next().unwrap_or('\0');
                let end = range.start + c.len_utf8();
                return Err(ParseError {
                    message: format!("invalid character U+{:04X} in the source", c as u32),
                    span: Span::new(file, range.start, end),
                    expected: Vec::new(),
                    unexpected_eof: false,
                    label: None,
                    help: None,
                });
            }
        }
    }
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: FileId = FileId(0);

    fn texts(src: &str) -> Vec<String> {
        lex(FILE, src)
            .unwrap()
            .into_iter()
            .map(|(_, t, _)| t.into_text())
            .collect()
    }

    fn toks(src: &str) -> Vec<Tok> {
        lex(FILE, src)
            .unwrap()
            .into_iter()
            .map(|(_, t, _)| t)
            .collect()
    }

    fn word(w: &str) -> Tok {
        Tok::Word(w.to_string())
    }

    #[test]
    fn string_literals_are_single_tokens() {
        assert_eq!(
            texts(r#"f("a b", "X") ++ "\n""#),
            ["f", "(", r#""a b""#, ",", r#""X""#, ")", "++", r#""\n""#]
        );
        assert_eq!(texts(r#""" ."#), [r#""""#, "."]);
    }

    #[test]
    fn self_delimiting_punctuation_splits_words() {
        assert_eq!(texts("_,_"), ["_", ",", "_"]);
        assert_eq!(texts("(__)"), ["(", "__", ")"]);
        assert_eq!(
            texts("w-aux(R,(c, S))"),
            ["w-aux", "(", "R", ",", "(", "c", ",", "S", ")", ")"]
        );
        assert_eq!(
            texts("Map{K,V}[ctor]"),
            ["Map", "{", "K", ",", "V", "}", "[", "ctor", "]"]
        );
    }

    #[test]
    fn everything_else_is_one_word() {
        assert_eq!(
            toks("next-config X$Config c:Config id: <= =/= -5 and-then"),
            [
                word("next-config"),
                word("X$Config"),
                word("c:Config"),
                word("id:"),
                word("<="),
                word("=/="),
                word("-5"),
                word("and-then"),
            ]
        );
    }

    #[test]
    fn keywords_are_whole_words_only() {
        assert_eq!(
            toks("fmod fmodx : :: -> < . = to term endfm"),
            [
                Tok::Fmod,
                word("fmodx"),
                Tok::Colon,
                Tok::ColonColon,
                Tok::Arrow,
                Tok::Lt,
                Tok::Dot,
                Tok::Equals,
                Tok::To,
                Tok::Term,
                Tok::Endfm,
            ]
        );
        // Keywords are case-sensitive, as in Maude.
        assert_eq!(toks("FMOD Op"), [word("FMOD"), word("Op")]);
        // `if`/`fi` are ordinary words: only `ceq` gives them meaning.
        assert_eq!(toks("if fi"), [word("if"), word("fi")]);
    }

    #[test]
    fn block_comments_run_to_the_matching_parenthesis() {
        assert_eq!(
            texts("a ---( one\n two (nested) three\n)--- rest of line\nb ***( x ) c"),
            ["a", "b", "c"]
        );
        // `---` and `***` followed by anything else are still line comments.
        assert_eq!(texts("a ---x ( y\nb ***\nc"), ["a", "b", "c"]);
        let e = lex(FILE, "fmod A is ---( never closed\n sort S .").unwrap_err();
        assert!(e.message.contains("unterminated comment"), "{}", e.message);
        assert_eq!((e.span.start, e.span.end), (10, 14));
    }

    #[test]
    fn comments_run_to_end_of_line() {
        assert_eq!(
            texts("a --- comment . eq\nb *** another\n(--- also a comment\nc) a---b"),
            ["a", "b", "(", "c", ")", "a---b"]
        );
        assert_eq!(texts("---"), Vec::<String>::new());
        assert_eq!(texts("x ***"), ["x"]);
    }

    #[test]
    fn trailing_dot_is_split_before_whitespace_or_end() {
        assert_eq!(toks("empty."), [word("empty"), Tok::Dot]);
        assert_eq!(toks("empty.\n"), [word("empty"), Tok::Dot]);
        assert_eq!(
            toks("halted(p, c)."),
            [
                word("halted"),
                Tok::LParen,
                word("p"),
                Tok::Comma,
                word("c"),
                Tok::RParen,
                Tok::Dot
            ]
        );
        // The word left over is classified on its own.
        assert_eq!(toks("endfm."), [Tok::Endfm, Tok::Dot]);
        // Not followed by whitespace: part of the word.
        assert_eq!(toks("a.b x.)"), [word("a.b"), word("x."), Tok::RParen]);
        // A lone `.` is the keyword; `..` is a `.` word followed by the split-off dot.
        assert_eq!(toks(". .."), [Tok::Dot, Tok::Dot, Tok::Dot]);
    }

    #[test]
    fn spans_are_byte_offsets() {
        let tokens = lex(FILE, "op f(é) : -> S .").unwrap();
        let spans: Vec<_> = tokens.iter().map(|&(l, _, r)| (l, r)).collect();
        assert_eq!(
            spans,
            [
                (0, 2),
                (3, 4),
                (4, 5),
                (5, 7),
                (7, 8),
                (9, 10),
                (11, 13),
                (14, 15),
                (16, 17)
            ]
        );
        let tokens = lex(FILE, "  x.").unwrap();
        assert_eq!(tokens, [(2, word("x"), 3), (3, Tok::Dot, 4)]);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        assert_eq!(texts("\u{FEFF}fmod"), ["fmod"]);
    }

    #[test]
    fn control_characters_are_errors() {
        let err = lex(FILE, "ab \u{1} c").unwrap_err();
        assert_eq!(err.span, Span::new(FILE, 3, 4));
        assert!(err.message.contains("U+0001"), "{}", err.message);
        assert!(!err.unexpected_eof);
    }
}
