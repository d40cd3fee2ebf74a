//! Writing a [`Model`]: back to BDDL in the corpus' syntax ([`Model::domain_text`],
//! [`Model::problem_text`], which [`crate::parse`] reads back to the same model) and as a
//! gamelang grid game ([`Model::to_game`]) over the standard library's GRID module.

use crate::{Atom, Coord, Model};
use gamelang_lang::lexer::Tok;
use std::collections::BTreeSet;
use std::fmt::Write;

/// Offsets GRID-SYNTAX declares (`?x+1` … `?x+20`, `?x-1` … `?x-20`); a game using larger
/// ones declares them itself.
const GRID_OFFSETS: i64 = 20;

/// `?x`, `?x+2`, `?x-1`, a number, `xmin` or `xmax` (`axis` is `'x'` or `'y'`); the same in
/// BDDL and in GRID-SYNTAX.
fn coord(c: Coord, axis: char) -> String {
    match c {
        Coord::Rel(0) => format!("?{axis}"),
        Coord::Rel(k) if k > 0 => format!("?{axis}+{k}"),
        Coord::Rel(k) => format!("?{axis}-{}", k.unsigned_abs()),
        Coord::Abs(v) => v.to_string(),
        Coord::Min => format!("{axis}min"),
        Coord::Max => format!("{axis}max"),
    }
}

/// An atom; `sep` goes between the coordinates (BDDL writes none, gamelang a space).
fn atom(a: &Atom, sep: &str) -> String {
    let inner = format!(
        "{}({},{sep}{})",
        a.piece.name(),
        coord(a.x, 'x'),
        coord(a.y, 'y')
    );
    if a.negated {
        format!("NOT({inner})")
    } else {
        inner
    }
}

/// Atoms side by side.
fn atoms(c: &[Atom], sep: &str) -> String {
    c.iter().map(|a| atom(a, sep)).collect::<Vec<_>>().join(" ")
}

/// A condition in gamelang: atoms side by side, or `no-cells` (the empty condition, which
/// always holds).
fn game_cond(c: &[Atom]) -> String {
    if c.is_empty() {
        "no-cells".into()
    } else {
        atoms(c, " ")
    }
}

/// A name the BDDL parser reads back as one word: letters, digits, `-` and `_` (a model
/// built from a gamelang game may name an action with any string).
fn bddl_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "action".into()
    } else {
        cleaned
    }
}

/// A gamelang string literal.
fn string_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Lists longer than this are written in nested groups of this many.
const CHUNK: usize = 4;

/// The lines of a list of actions or goals joined by `sep` (`;` or `|`), one item a line.
/// A short list is written as it is. In a longer one every item is parenthesised and the
/// items are grouped, `CHUNK` at a time, in nested parentheses: the term parser takes time
/// growing steeply with the length of a chain of multi-atom items (a 28-goal Hex problem
/// took 47 s to load written flat, 0.3 s grouped), and parentheses bound each chain.
fn list_lines(items: Vec<String>, sep: &str) -> Vec<String> {
    let indent = |lines: Vec<String>| lines.into_iter().map(|l| format!("    {l}")).collect();
    if items.len() <= CHUNK {
        return indent(join_units(
            items.into_iter().map(|i| vec![i]).collect(),
            sep,
        ));
    }
    let mut units: Vec<Vec<String>> = items.into_iter().map(|i| vec![format!("({i})")]).collect();
    while units.len() > CHUNK {
        units = units
            .chunks(CHUNK)
            .map(|chunk| {
                let mut lines = join_units(chunk.to_vec(), sep);
                for (k, l) in lines.iter_mut().enumerate() {
                    *l = format!("{}{l}", if k == 0 { "(" } else { " " });
                }
                if let Some(last) = lines.last_mut() {
                    last.push(')');
                }
                lines
            })
            .collect();
    }
    indent(join_units(units, sep))
}

/// Units (each one or more lines) joined by `sep` at the start of each unit's first line.
fn join_units(units: Vec<Vec<String>>, sep: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (k, unit) in units.into_iter().enumerate() {
        for (j, line) in unit.into_iter().enumerate() {
            let lead = if k > 0 && j == 0 { sep } else { " " };
            out.push(format!("{lead} {line}"));
        }
    }
    out
}

/// A word made of letters, digits, `-` and `_` from `name` (other characters become `-`).
fn word(name: &str) -> String {
    let w: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    let w = w.trim_matches('-').to_string();
    // A keyword (`is`, `endgame`, …) cannot name a game.
    if w.is_empty() {
        "bddl".into()
    } else if !matches!(Tok::from_text(&w), Tok::Word(_)) {
        format!("bddl-{w}")
    } else {
        w
    }
}

impl Model {
    /// The domain file: `#blackactions` and `#whiteactions`, each action in the corpus' four
    /// lines (`:action NAME`, `:parameters (?x, ?y)`, `:precondition (...)`, `:effect (...)`).
    /// Action names are written with characters other than letters, digits, `-` and `_`
    /// replaced by `-`.
    pub fn domain_text(&self) -> String {
        let mut s = String::new();
        for (header, actions) in [
            ("#blackactions", &self.black_actions),
            ("#whiteactions", &self.white_actions),
        ] {
            s.push_str(header);
            s.push('\n');
            for a in actions {
                let _ = writeln!(s, ":action {}", bddl_name(&a.name));
                s.push_str(":parameters (?x, ?y)\n");
                let _ = writeln!(s, ":precondition ({})", atoms(&a.pre, ""));
                let _ = writeln!(s, ":effect ({})", atoms(&a.eff, ""));
            }
        }
        s
    }

    /// The problem file: `#boardsize`, `#init` (one line, absent when empty), `#depth`,
    /// `#blackgoal` (one goal a line, `False` for none, as the corpus writes Domineering),
    /// `#whitegoal` (nothing for none) and, when White moves first, `#blackturn second`.
    pub fn problem_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "#boardsize\n{} {}", self.width, self.height);
        s.push_str("#init\n");
        if !self.init.is_empty() {
            let cells: Vec<String> = self
                .init
                .iter()
                .map(|&(p, x, y)| format!("{}({x},{y})", p.name()))
                .collect();
            let _ = writeln!(s, "{}", cells.join(" "));
        }
        let _ = writeln!(s, "#depth\n{}", self.depth);
        s.push_str("#blackgoal\n");
        if self.black_goals.is_empty() {
            s.push_str("False\n");
        }
        // An empty goal (it always holds) needs its parentheses to be seen at all.
        let goal_line = |g: &Vec<Atom>| {
            if g.is_empty() {
                "()".into()
            } else {
                atoms(g, "")
            }
        };
        for g in &self.black_goals {
            let _ = writeln!(s, "{}", goal_line(g));
        }
        s.push_str("#whitegoal\n");
        for g in &self.white_goals {
            let _ = writeln!(s, "{}", goal_line(g));
        }
        if !self.black_first {
            s.push_str("#blackturn\nsecond\n");
        }
        s
    }

    /// The model as a gamelang grid game named `name` (stdlib/grid.game): a module
    /// satisfying GRID-GAME (upper-case `name`), a view from DRAW-GAME to `GRID{..}` and a
    /// `game` block solving it, Black (B) or White (R) first. A player who cannot move loses
    /// (`no-move-loses`, as in BDDL), and the problem's `#depth` is the constant `depth`.
    ///
    /// An empty condition (an empty initial board, an empty precondition or goal, which
    /// always hold) is GRID-SYNTAX's `no-cells`.
    pub fn to_game(&self, name: &str) -> String {
        let game = word(name);
        let mut module: String = game
            .to_uppercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        // A module name must not start with a digit or clash with the standard library.
        if !module.starts_with(|c: char| c.is_ascii_alphabetic()) {
            module = format!("BDDL-{module}");
        }
        while gamelang_stdlib::module_names().any(|m| m == module) {
            module.push_str("-BDDL");
        }
        let view = format!("{module}-VIEW");
        let (black_actions, white_actions) = (&self.black_actions, &self.white_actions);
        let (black_goals, white_goals) = (&self.black_goals, &self.white_goals);

        let mut s = String::new();
        let _ = writeln!(
            s,
            "--- {game}: a BDDL game (seed 001) as a gamelang grid game (stdlib/grid.game)."
        );
        s.push_str(
            "--- Generated from the BDDL domain and problem files by `gamelang bddl convert DOMAIN PROBLEM`\n\
             --- (gamelang-bddl's Model::to_game): regenerate it rather than edit it.\n\
             --- Black is B and White is R; a player who cannot move loses.\n\n",
        );
        let _ = writeln!(s, "fmod {module} is");
        s.push_str("  protecting GRID-SYNTAX .\n");
        // Offsets beyond GRID-SYNTAX's ±20: any constant named `?x+k` is a coordinate.
        let mut extra: BTreeSet<(char, i64)> = BTreeSet::new();
        let all_atoms = black_actions
            .iter()
            .chain(white_actions)
            .flat_map(|a| a.pre.iter().chain(&a.eff))
            .chain(black_goals.iter().chain(white_goals).flatten());
        for a in all_atoms {
            for (c, axis) in [(a.x, 'x'), (a.y, 'y')] {
                if let Coord::Rel(k) = c {
                    if k.unsigned_abs() > GRID_OFFSETS as u64 {
                        extra.insert((axis, k));
                    }
                }
            }
        }
        for (axis, k) in &extra {
            let sort = if *axis == 'x' { "XPos" } else { "YPos" };
            let _ = writeln!(
                s,
                "  op {} : -> {sort} [ctor] .",
                coord(Coord::Rel(*k), *axis)
            );
        }
        let _ = writeln!(
            s,
            "  ops width height : -> Nat .\n  eq width = {} .\n  eq height = {} .",
            self.width, self.height
        );
        s.push_str("  op init : -> Cond .\n");
        if self.init.is_empty() {
            s.push_str("  eq init = no-cells .\n");
        } else {
            let cells: Vec<String> = self
                .init
                .iter()
                .map(|&(p, x, y)| format!("{}({x}, {y})", p.name()))
                .collect();
            let _ = writeln!(s, "  eq init = {} .", cells.join(" "));
        }
        s.push_str("  ops black-actions white-actions : -> Actions .\n");
        for (op, actions) in [
            ("black-actions", black_actions),
            ("white-actions", white_actions),
        ] {
            if actions.is_empty() {
                let _ = writeln!(s, "  eq {op} = no-actions .");
                continue;
            }
            let items = actions
                .iter()
                .map(|a| {
                    format!(
                        "action {} : {} => {}",
                        string_literal(&a.name),
                        game_cond(&a.pre),
                        game_cond(&a.eff)
                    )
                })
                .collect();
            let _ = writeln!(s, "  eq {op} =\n{} .", list_lines(items, ";").join("\n"));
        }
        s.push_str("  ops black-goals white-goals : -> Goals .\n");
        for (op, goals) in [("black-goals", black_goals), ("white-goals", white_goals)] {
            if goals.is_empty() {
                let _ = writeln!(s, "  eq {op} = no-goal .");
                continue;
            }
            let items = goals.iter().map(|g| game_cond(g)).collect();
            let _ = writeln!(s, "  eq {op} =\n{} .", list_lines(items, "|").join("\n"));
        }
        let _ = writeln!(
            s,
            "  op no-move-loses : -> Bool .\n  eq no-move-loses = {} .",
            self.stuck_loses
        );
        let _ = writeln!(
            s,
            "  --- The problem's #depth (plies), kept for writing the BDDL back.\n  op depth : -> Nat .\n  eq depth = {} .",
            self.depth
        );
        s.push_str("endfm\n\n");
        let _ = writeln!(
            s,
            "view {view} from DRAW-GAME to GRID{{{module}}} is\n  sort Config to Position .\n  sort SetConfig to Set{{Position}} .\nendv\n"
        );
        let _ = writeln!(
            s,
            "game {game} is\n  instance SOLVE{{{view}}} .\n  start start .\n  first {} .\nendgame",
            if self.black_first { "B" } else { "R" }
        );
        s
    }
}
