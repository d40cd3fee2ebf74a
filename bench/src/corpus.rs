//! The BDDL corpus (bddl/tests/corpus) for the benchmark binaries: its problems, game by
//! game, in natural order.

use std::path::{Path, PathBuf};

/// One problem file of the corpus.
pub struct Problem {
    /// `game/file` (`httt/3x3_9_tic.ig`), as the tables print it.
    pub name: String,
    pub domain: PathBuf,
    pub path: PathBuf,
}

/// Every problem of the corpus at `corpus` (of the games `only` names, if given): the games
/// in name order, each game's problems in natural order (`3x3_9` before `3x3_11`).
pub fn problems(corpus: &Path, only: Option<&[String]>) -> Result<Vec<Problem>, String> {
    let dirs =
        std::fs::read_dir(corpus).map_err(|e| format!("no corpus at {}: {e}", corpus.display()))?;
    let mut games: Vec<PathBuf> = dirs
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("domain.ig").exists())
        .collect();
    games.sort();
    let mut out = Vec::new();
    for dir in games {
        let game = file_name(&dir);
        if only.is_some_and(|o| !o.contains(&game)) {
            continue;
        }
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        files.retain(|p| {
            p.file_name().is_some_and(|n| n != "domain.ig")
                && p.extension().is_some_and(|e| e == "ig" || e == "pg")
        });
        files.sort_by_key(|p| natural_key(&file_name(p)));
        for path in files {
            out.push(Problem {
                name: format!("{game}/{}", file_name(&path)),
                domain: dir.join("domain.ig"),
                path,
            });
        }
    }
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string()
}

/// Sort `3x3_9_tic` before `3x3_11_...`: numbers compared as numbers.
fn natural_key(name: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                out.push((std::mem::take(&mut text), num.parse().unwrap_or(0)));
                num.clear();
            }
            text.push(c);
        }
    }
    out.push((text, num.parse().unwrap_or(0)));
    out
}
