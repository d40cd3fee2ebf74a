//! The language reference's examples are programs: every ```-block of docs/language.md
//! that declares a `game` must load and solve, so the reference cannot drift from the
//! implementation.

use gamelang_game::{Side, Verdict};
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::sync::Arc;

fn code_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            match current.take() {
                Some(b) => blocks.push(b),
                None => current = Some(String::new()),
            }
        } else if let Some(b) = current.as_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    blocks
}

#[test]
fn the_first_game_of_the_reference_solves_correctly() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/language.md")).unwrap();
    let games: Vec<String> = code_blocks(&doc)
        .into_iter()
        .filter(|b| b.contains("endgame") && b.contains("fmod"))
        .collect();
    assert!(!games.is_empty(), "the reference shows a complete game");
    for src in games {
        let mut s = Session::new().unwrap();
        if let Err(e) = s.load_source("docs/language.md", &src) {
            panic!("{}", gamelang_lang::diag::render_all(&e, &s.sources, false));
        }
        let g = s.games[0].clone();
        let mut engine = Engine::new(Arc::new(s.program.clone()));
        // "Take 1 or 2 tokens": the player to move loses exactly on multiples of 3.
        for n in 0..=40 {
            let start = s
                .parse_term(g.module, "n", &n.to_string(), Some(g.config_sort))
                .unwrap();
            let o = gamelang_game::solve(&mut engine, &g, &start, &g.first).unwrap_or_else(|e| {
                panic!(
                    "{}",
                    gamelang_game::diagnose(&engine, &e).render(&s.sources, false)
                )
            });
            let mover_loses = n % 3 == 0;
            assert_eq!(o.winner == Verdict::Win(Side::R), !mover_loses, "n = {n}");
        }
    }
}
