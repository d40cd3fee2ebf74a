//! Helpers shared by the BDDL tests: the corpus copy kept in the repository, and parsing
//! from strings with the sources kept for locating errors.

#![allow(dead_code)] // each test file uses a different part of this module

use gamelang_bddl::Model;
use gamelang_lang::diag::Diag;
use gamelang_lang::span::Sources;
use std::path::{Path, PathBuf};

/// The corpus copied verbatim from the shared corpus (Q-sage's BDDL models) into the
/// repository, so that the tests run on a fresh clone.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// One problem of the corpus with its folder's domain file.
pub struct Problem {
    /// `folder/file`, as INDEX.md names it.
    pub name: String,
    pub domain_path: PathBuf,
    pub problem_path: PathBuf,
    pub domain: String,
    pub problem: String,
}

/// Every problem file of the corpus (`*.ig` other than `domain.ig`, and hex's `*.pg`),
/// sorted by name.
pub fn problems() -> Vec<Problem> {
    let mut out = Vec::new();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("the corpus copy bddl/tests/corpus exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let domain_path = folder.join("domain.ig");
        let domain = std::fs::read_to_string(&domain_path).expect("every folder has a domain.ig");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("a corpus folder")
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| {
                let ext = p.extension().and_then(|e| e.to_str());
                p.file_name().and_then(|n| n.to_str()) != Some("domain.ig")
                    && matches!(ext, Some("ig" | "pg"))
            })
            .collect();
        files.sort();
        for problem_path in files {
            let name = format!(
                "{}/{}",
                folder.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
                problem_path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("?")
            );
            out.push(Problem {
                name,
                problem: std::fs::read_to_string(&problem_path).expect("a problem file"),
                domain_path: domain_path.clone(),
                problem_path,
                domain: domain.clone(),
            });
        }
    }
    out
}

/// Parse a domain and a problem given as text (named `domain.ig` and `problem.ig`).
pub fn parse_texts(domain: &str, problem: &str) -> (Sources, Result<Model, Vec<Diag>>) {
    let mut sources = Sources::new();
    let d = sources.add("domain.ig", domain);
    let p = sources.add("problem.ig", problem);
    let result = gamelang_bddl::parse(&mut sources, d, p);
    (sources, result)
}

/// Parse text that must be valid; a failure shows the rendered errors.
pub fn model(domain: &str, problem: &str) -> Model {
    let (sources, result) = parse_texts(domain, problem);
    match result {
        Ok(m) => m,
        Err(e) => panic!(
            "expected the files to parse:\n{}",
            gamelang_lang::diag::render_all(&e, &sources, false)
        ),
    }
}

/// A small valid domain (tic-tac-toe's `occupy`), for tests about the problem file.
pub const OCCUPY: &str = "#blackactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (black(?x,?y))\n#whiteactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (white(?x,?y))\n";

/// A small valid problem (3x3, depth 9, lines of three), for tests about the domain file.
pub const TIC: &str = "#boardsize\n3 3\n#init\n#depth\n9\n#blackgoal\nblack(?x,?y) black(?x+1,?y) black(?x+2,?y)\n#whitegoal\nwhite(?x,?y) white(?x,?y+1) white(?x,?y+2)\n";
