//! Listings: `modules`, `sorts`, `ops`.

use super::Backend;
use gamelang_lang::ast::ModuleKind;
use gamelang_lang::elab::mixfix::SymTarget;
use gamelang_lang::elab::{Module, ModuleId};
use gamelang_lang::program::{OpInfo, PatPiece, Signature, SortId};
use std::fmt::Write;

/// A parameterised module checked on its own (`WINS{X}` with `X` bound to its theory),
/// not a usable instance.
pub(super) fn schematic(m: &Module) -> bool {
    !m.params.is_empty()
        && m.params
            .iter()
            .all(|p| p.binding.target.is_none() && p.binding.display == p.param)
}

fn is_stdlib(file: &str) -> bool {
    gamelang_stdlib::FILES.iter().any(|(name, _)| *name == file)
}

/// `op _+_ : Int Int -> Int [assoc comm prec 33] .`
fn op_decl(sig: &Signature, info: &OpInfo) -> String {
    let args: Vec<&str> = info
        .args
        .iter()
        .map(|s| sig.sort(*s).name.as_str())
        .collect();
    let a = &info.attrs;
    let mut attrs = Vec::new();
    if a.ctor {
        attrs.push("ctor".to_string());
    }
    if a.assoc {
        attrs.push("assoc".to_string());
    }
    if a.comm {
        attrs.push("comm".to_string());
    }
    if a.idem {
        attrs.push("idem".to_string());
    }
    if let Some(id) = a.identity {
        attrs.push(format!("id: {}", sig.op(id).name));
    }
    if a.memo {
        attrs.push("memo".to_string());
    }
    let open = matches!(info.form.first(), Some(PatPiece::Hole))
        || matches!(info.form.last(), Some(PatPiece::Hole));
    if a.prec != if open { 41 } else { 0 } {
        attrs.push(format!("prec {}", a.prec));
    }
    let attrs = if attrs.is_empty() {
        String::new()
    } else {
        format!(" [{}]", attrs.join(" "))
    };
    let arrow = if args.is_empty() {
        "->".to_string()
    } else {
        format!("{} ->", args.join(" "))
    };
    format!(
        "op {} : {arrow} {}{attrs} .",
        info.name,
        sig.sort(info.result).name
    )
}

impl Backend {
    pub(super) fn show_modules(&self) -> String {
        let current = self.current();
        let sources = &self.session.sources;
        let mut out = String::from("modules (* marks the current one):\n");
        let mut stdlib = Vec::new();
        for (id, m) in self.session.modules.iter().enumerate() {
            if schematic(m) {
                // A parameterised module of the user's: listed by its header, since it
                // cannot be selected (its terms are its instances').
                let file = sources.name(m.span.file);
                if !is_stdlib(file) {
                    let (line, _) = sources.line_col(m.span.file, m.span.start);
                    let base = m.name.split_once('{').map_or(m.name.as_str(), |(b, _)| b);
                    let header =
                        (self.session.parameterised(base)).unwrap_or_else(|| m.name.clone());
                    let kind = match m.kind {
                        ModuleKind::Theory => "fth",
                        ModuleKind::Module => "fmod",
                    };
                    let _ = writeln!(out, "  {kind:8} {header:24} {file}:{line}");
                }
                continue;
            }
            let file = sources.name(m.span.file);
            let mark = if id == current { "*" } else { " " };
            let kind = match (m.kind, m.params.is_empty()) {
                (ModuleKind::Theory, _) => "fth",
                (ModuleKind::Module, true) => "fmod",
                (ModuleKind::Module, false) => "instance",
            };
            if is_stdlib(file) && m.params.is_empty() && id != current {
                stdlib.push(m.name.as_str());
                continue;
            }
            let place = if m.params.is_empty() {
                let (line, _) = sources.line_col(m.span.file, m.span.start);
                format!("{file}:{line}")
            } else {
                let args: Vec<String> = m
                    .params
                    .iter()
                    .map(|p| format!("{} :: {} by {}", p.param, p.theory, p.binding.display))
                    .collect();
                args.join(", ")
            };
            let _ = writeln!(out, "{mark} {kind:8} {:24} {place}", m.name);
        }
        let _ = writeln!(out, "  standard library: {}", stdlib.join(", "));
        if !self.session.chance_games.is_empty() {
            out.push_str("chance games (`play` plays the last one):\n");
            for g in &self.session.chance_games {
                let _ = writeln!(
                    out,
                    "  {:12} instance {}",
                    g.name, self.session.modules[g.module].name
                );
            }
        }
        if self.session.games.is_empty() {
            out.push_str("games: none\n");
        } else {
            out.push_str("games (* marks the current one):\n");
            for g in &self.session.games {
                let mark = if self.game.as_deref() == Some(g.name.as_str()) {
                    "*"
                } else {
                    " "
                };
                let sig = &self.session.program.sig;
                let first = match &g.first {
                    gamelang_lang::program::Pat::App(op, _) => sig.op(*op).name.clone(),
                    _ => "?".into(),
                };
                let _ = writeln!(
                    out,
                    "{mark} {:12} instance {}, {first} moves first",
                    g.name, self.session.modules[g.module].name
                );
            }
        }
        out
    }

    pub(super) fn show_sorts(&self, m: ModuleId) -> String {
        let sig = &self.session.program.sig;
        let module = &self.session.modules[m];
        let mut ids: Vec<SortId> = module
            .sorts
            .values()
            .copied()
            .filter(|&s| Some(s) != sig.universal_sort)
            .collect();
        ids.sort_by(|a, b| sig.sort(*a).name.cmp(&sig.sort(*b).name));
        ids.dedup();
        let mut out = format!("sorts of {}:\n", module.name);
        for &s in &ids {
            let name = &sig.sort(s).name;
            let mut line = format!("  {name}");
            let above: Vec<&str> = ids
                .iter()
                .filter(|&&t| t != s && sig.leq(s, t))
                .map(|&t| sig.sort(t).name.as_str())
                .collect();
            if !above.is_empty() {
                let _ = write!(line, " < {}", above.join(" "));
            }
            let mut aliases: Vec<&str> = module
                .sorts
                .iter()
                .filter(|(alias, &t)| t == s && *alias != name)
                .map(|(alias, _)| alias.as_str())
                .collect();
            aliases.sort();
            if !aliases.is_empty() {
                let _ = write!(line, "   (also written {})", aliases.join(", "));
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    pub(super) fn show_ops(&self, m: ModuleId) -> String {
        let sig = &self.session.program.sig;
        let module = &self.session.modules[m];
        let mut groups: Vec<(&str, Vec<String>)> = Vec::new();
        for &op in &module.ops {
            let info = sig.op(op);
            let mut decls = vec![op_decl(sig, info)];
            // Subsort overloading: the narrower declarations merged into this operator.
            for rank in &info.overloads {
                let narrower = OpInfo {
                    args: rank.args.clone(),
                    result: rank.result,
                    overloads: Vec::new(),
                    ..info.clone()
                };
                decls.push(format!(
                    "{}   (the same operator: subsort overloading)",
                    op_decl(sig, &narrower)
                ));
            }
            match groups.iter_mut().find(|(g, _)| *g == info.module.as_str()) {
                Some((_, lines)) => lines.extend(decls),
                None => groups.push((info.module.as_str(), decls)),
            }
        }
        // The module's own operators first, then the others by module name.
        groups.sort_by_key(|(g, _)| (*g != module.name, *g));
        let mut out = format!("operators of {}:\n", module.name);
        for (g, lines) in &groups {
            let _ = writeln!(out, "  --- from {g}");
            for l in lines {
                let _ = writeln!(out, "  {l}");
            }
        }
        let grammar = self.session.grammar(m);
        let mapped: Vec<String> = grammar
            .syms
            .iter()
            .filter(|s| matches!(s.target, SymTarget::Macro(_)))
            .map(|s| {
                let args: Vec<&str> = s.args.iter().map(|a| sig.sort(*a).name.as_str()).collect();
                format!(
                    "op {} : {} -> {} .",
                    s.name,
                    args.join(" "),
                    sig.sort(s.result).name
                )
            })
            .collect();
        if !mapped.is_empty() {
            out.push_str("  --- parameter operators, mapped to terms by a view\n");
            for l in mapped {
                let _ = writeln!(out, "  {l}");
            }
        }
        out
    }
}
