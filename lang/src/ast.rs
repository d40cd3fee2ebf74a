//! The surface syntax tree produced by the declaration grammar.
//!
//! The grammar (lalrpop) fixes the *structure* of a file: modules, theories, views, games
//! and their declarations. Terms are not parsed there: a term is kept as the run of tokens
//! it was written with ([`TokenRun`]) and parsed later against the signature of the module
//! it occurs in (see `elab::mixfix`), so that user-declared mixfix operators work.

use crate::span::Span;

/// One token of a term as written: its text and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub span: Span,
}

/// A term (or an attribute list) still to be parsed: the tokens as written.
pub type TokenRun = Vec<Token>;

/// A name with its position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole source file.
#[derive(Clone, Debug, Default)]
pub struct SourceFile {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Module(ModuleDecl),
    View(ViewDecl),
    Game(GameDecl),
    /// Maude's `reduce TERM .` (`red`), or `reduce in MODULE : TERM .`, between modules.
    Reduce(ReduceDecl),
    /// Maude's `set WORDS .` or `show WORDS .` between modules.
    Setting(SettingDecl),
}

/// Maude's `set WORDS .` (`show`: `show WORDS .`), as written; the elaborator reads the
/// ones gamelang knows (`Session::setting`).
#[derive(Clone, Debug)]
pub struct SettingDecl {
    pub show: bool,
    pub words: Vec<String>,
    pub span: Span,
}

/// `reduce [in MODULE :] TERM .`: reduce `TERM` in `MODULE`, or in the last module declared
/// before it in the file (as Maude does). `gamelang reduce FILE` runs these.
#[derive(Clone, Debug)]
pub struct ReduceDecl {
    pub module: Option<Ident>,
    pub term: TokenRun,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleKind {
    /// `fmod … endfm`: initial semantics, executable.
    Module,
    /// `fth … endfth`: loose semantics, used as a parameter interface.
    Theory,
}

/// `fmod NAME{X :: THEORY, …} is DECLS endfm` (or `fth … endfth`).
#[derive(Clone, Debug)]
pub struct ModuleDecl {
    pub kind: ModuleKind,
    pub name: Ident,
    pub params: Vec<Param>,
    pub decls: Vec<Decl>,
    pub span: Span,
}

/// `X :: THEORY` in a module header.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub theory: Ident,
}

/// A module expression: `INT`, `SET{TwoHeaps}`, `WINS{HeapsGame}`.
/// Arguments are names resolved at elaboration: a view, a module (implicit view) or a sort.
#[derive(Clone, Debug)]
pub struct ModExpr {
    pub name: Ident,
    pub args: Vec<ModExpr>,
    pub span: Span,
}

/// A sort as written: `Nat`, `X$Config`, `Set{TwoHeaps}` (the name includes the braces,
/// spelt without spaces and with `,` between arguments).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SortRef {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportMode {
    Protecting,
    Extending,
    Including,
}

/// A declaration inside a module or theory.
#[derive(Clone, Debug)]
pub enum Decl {
    /// `protecting M .`, `extending M .`, `including M .` (and `pr`/`ex`/`inc`).
    Import {
        mode: ImportMode,
        target: ModExpr,
        span: Span,
    },
    /// `sort S .` / `sorts S T .`
    Sorts { sorts: Vec<SortRef>, span: Span },
    /// `subsort A < B .` / `subsorts A B < C < D .`: each inner Vec is one level of the chain.
    Subsorts {
        chain: Vec<Vec<SortRef>>,
        span: Span,
    },
    /// `op NAME : ARGS -> RESULT [ATTRS] .` / `ops N1 N2 : … .`
    Op {
        names: Vec<Ident>,
        args: Vec<SortRef>,
        result: SortRef,
        /// The tokens between `[` and `]`, uninterpreted (empty when there are none).
        attrs: TokenRun,
        span: Span,
    },
    /// `var x : S .` / `vars x y : S .`
    Vars {
        names: Vec<Ident>,
        sort: SortRef,
        span: Span,
    },
    /// `eq L = R [ATTRS] .` and `ceq L = R if C [ATTRS] .`
    Eq {
        lhs: TokenRun,
        rhs: TokenRun,
        /// The condition of a `ceq` (the tokens after its condition `if`).
        cond: Option<TokenRun>,
        attrs: TokenRun,
        span: Span,
    },
}

/// `view NAME from THEORY to MODULE is MAPS endv`.
#[derive(Clone, Debug)]
pub struct ViewDecl {
    pub name: Ident,
    pub from: ModExpr,
    pub to: ModExpr,
    pub maps: Vec<ViewMap>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ViewMap {
    /// `sort A to B .`
    Sort {
        from: SortRef,
        to: SortRef,
        span: Span,
    },
    /// `op f to g .`
    Op { from: Ident, to: Ident, span: Span },
    /// `op f(x:S, y:T) to term TERM .`
    OpToTerm {
        from: TokenRun,
        to: TokenRun,
        span: Span,
    },
}

/// `game NAME is FIELDS endgame`: which instantiation is the game to solve, where it starts
/// and who moves first. Fields are `KEY TOKENS .` and interpreted at elaboration, so that
/// new fields need no grammar change.
#[derive(Clone, Debug)]
pub struct GameDecl {
    pub name: Ident,
    pub fields: Vec<GameField>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct GameField {
    pub key: Ident,
    pub value: TokenRun,
    pub span: Span,
}
