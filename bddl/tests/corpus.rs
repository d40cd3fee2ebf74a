//! The whole corpus (bddl/tests/corpus, Q-sage's BDDL models copied verbatim): every file
//! parses, the models agree with every row of the corpus' INDEX.md, writing them back gives
//! the corpus' own text and reads back to the same model, and their gamelang translations
//! load and solve.

mod common;

use common::{model, parse_texts, problems, Problem};
use gamelang_bddl::Model;
use gamelang_game::solve_within;
use gamelang_lang::diag::render_all;
use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::collections::HashMap;
use std::sync::Arc;

fn parse_problem(p: &Problem) -> Model {
    let (sources, result) = parse_texts(&p.domain, &p.problem);
    match result {
        Ok(m) => m,
        Err(e) => panic!(
            "{} does not parse:\n{}",
            p.name,
            render_all(&e, &sources, false)
        ),
    }
}

#[test]
fn every_corpus_file_parses() {
    let all = problems();
    // 8 folders: 6 + 6 + 12 + 25 + 4 + 4 + 30 + 15 problem files, each with its domain.
    assert_eq!(all.len(), 102, "problem files in the corpus copy");
    let folders: std::collections::BTreeSet<_> =
        all.iter().map(|p| p.domain_path.clone()).collect();
    assert_eq!(folders.len(), 8, "domain files in the corpus copy");
    for p in &all {
        let m = parse_problem(p);
        assert!(
            !m.black_actions.is_empty() && !m.white_actions.is_empty(),
            "{}",
            p.name
        );
    }
}

/// One row of INDEX.md's tables.
struct Row {
    board: (i64, i64),
    depth: u32,
    init: String,
    black_goals: String,
    white_goals: String,
    second: bool,
}

fn index_rows() -> HashMap<String, Row> {
    let text = std::fs::read_to_string(common::corpus().join("INDEX.md")).expect("INDEX.md");
    let mut rows = HashMap::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "", file, board, depth, depth in name, init, black goals, white goals, turn, ""
        assert_eq!(cells.len(), 10, "an INDEX.md row: {line}");
        let (w, h) = cells[2].split_once(' ').expect("board `X Y`");
        rows.insert(
            cells[1].trim_matches('`').to_string(),
            Row {
                board: (w.parse().expect("columns"), h.parse().expect("rows")),
                depth: cells[3].parse().expect("depth"),
                init: cells[5].to_string(),
                black_goals: cells[6].to_string(),
                white_goals: cells[7].to_string(),
                second: cells[8] == "second",
            },
        );
    }
    rows
}

/// A goal or initial cells as written in INDEX.md, read with the parser on a board of the
/// same size.
fn read_goal(text: &str, m: &Model) -> Vec<gamelang_bddl::Atom> {
    let problem = format!(
        "#boardsize\n{} {}\n#depth\n1\n#blackgoal\n{text}\n",
        m.width, m.height
    );
    model(common::OCCUPY, &problem).black_goals.remove(0)
}

/// Check a goals column: `4`, `1: \`black(?x,ymin)\``, `` `False` `` or `0 (maker-breaker)`.
fn check_goals(column: &str, goals: &gamelang_bddl::Goals, m: &Model, name: &str) {
    if column == "`False`" {
        assert!(goals.is_empty(), "{name}: False is no goal");
        return;
    }
    let count: usize = column
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{name}: goal column {column}"));
    assert_eq!(goals.len(), count, "{name}: number of goals ({column})");
    if let Some((_, shown)) = column.split_once(": ") {
        assert_eq!(
            goals[0],
            read_goal(shown.trim_matches('`'), m),
            "{name}: the goal"
        );
    }
}

#[test]
fn the_models_agree_with_every_row_of_the_index() {
    let rows = index_rows();
    let all = problems();
    assert_eq!(rows.len(), all.len(), "INDEX.md lists every problem file");
    for p in &all {
        let row = rows
            .get(&p.name)
            .unwrap_or_else(|| panic!("INDEX.md has no row for {}", p.name));
        let m = parse_problem(p);
        assert_eq!((m.width, m.height), row.board, "{}: board", p.name);
        assert_eq!(m.depth, row.depth, "{}: depth", p.name);
        assert_eq!(m.black_first, !row.second, "{}: turn", p.name);
        if row.init == "(empty)" {
            assert!(m.init.is_empty(), "{}: init", p.name);
        } else {
            let cells: Vec<_> = read_goal(&row.init, &m)
                .into_iter()
                .map(|a| match (a.x, a.y) {
                    (gamelang_bddl::Coord::Abs(x), gamelang_bddl::Coord::Abs(y)) => (a.piece, x, y),
                    _ => panic!("INDEX.md's init is given by numbers"),
                })
                .collect();
            assert_eq!(m.init, cells, "{}: init", p.name);
        }
        check_goals(&row.black_goals, &m.black_goals, &m, &p.name);
        check_goals(&row.white_goals, &m.white_goals, &m, &p.name);
    }
}

#[test]
fn a_sample_of_models_in_full() {
    use gamelang_bddl::{Atom, Coord, Piece};
    let by_name: HashMap<String, Problem> = problems()
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect();
    let at = |piece, negated, x, y| Atom {
        piece,
        negated,
        x,
        y,
    };
    // Breakthrough, second player: a 2x4 board, 8 pawns, Black second, one goal each.
    let m = parse_problem(&by_name["breakthrough-second-player/2x4_8.ig"]);
    assert_eq!(m.init.len(), 8);
    assert_eq!(m.init[0], (Piece::Black, 1, 4));
    assert_eq!(m.init[7], (Piece::White, 2, 2));
    assert!(!m.black_first);
    assert_eq!(
        m.black_goals,
        vec![vec![at(Piece::Black, false, Coord::Rel(0), Coord::Min)]]
    );
    assert_eq!(
        m.white_goals,
        vec![vec![at(Piece::White, false, Coord::Rel(0), Coord::Max)]]
    );
    let names: Vec<&str> = m.black_actions.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["forward", "left-diagonal", "right-diagonal"]);
    assert_eq!(
        m.black_actions[1].pre,
        [
            at(Piece::Black, false, Coord::Rel(0), Coord::Rel(0)),
            at(Piece::Black, true, Coord::Rel(-1), Coord::Rel(-1))
        ]
    );
    // Evader and pursuer: 13 and 5 actions, constant goals.
    let m = parse_problem(&by_name["evader_pursuer/8x8_11_e-8-1_p-2-3.ig"]);
    assert_eq!((m.black_actions.len(), m.white_actions.len()), (13, 5));
    assert_eq!(m.init, [(Piece::Black, 8, 1), (Piece::White, 2, 3)]);
    assert_eq!(
        m.black_goals,
        vec![vec![at(Piece::Black, false, Coord::Min, Coord::Min)]]
    );
    // The dual: the roles swapped (Black the 5-move pursuer), White's preconditions padded
    // with duplicates, which are kept.
    let m = parse_problem(&by_name["evader_pursuer_dual/8x8_6_e-8-1_p-2-3.ig"]);
    assert_eq!((m.black_actions.len(), m.white_actions.len()), (5, 13));
    assert!(m.white_goals.is_empty(), "an empty #whitegoal");
    let stay = m
        .white_actions
        .iter()
        .find(|a| a.name == "stay")
        .expect("stay");
    assert_eq!(
        stay.pre,
        [at(Piece::White, false, Coord::Rel(0), Coord::Rel(0)); 3]
    );
    // Hex: ground goals with trailing spaces, a 1-row board.
    let m = parse_problem(&by_name["hex/hein_04_3x3-05.pg"]);
    assert_eq!((m.width, m.height), (5, 1));
    assert_eq!(m.black_goals.len(), 4);
    assert_eq!(m.black_goals[1].len(), 3);
    assert_eq!(
        m.black_goals[1][2],
        at(Piece::Black, false, Coord::Abs(4), Coord::Abs(1))
    );
    // Domineering: False and an empty #whitegoal.
    let m = parse_problem(&by_name["domineering/3x4_6.ig"]);
    assert!(m.black_goals.is_empty() && m.white_goals.is_empty());
    assert_eq!(m.black_actions[0].eff.len(), 2);
}

/// The file as its meaning is written: no comments, no blank lines, no trailing spaces.
fn normalised(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with('%'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn writing_gives_the_corpus_own_text() {
    let all = problems();
    for p in &all {
        let m = parse_problem(p);
        assert_eq!(m.problem_text(), normalised(&p.problem), "{}", p.name);
        // connect-c's extra parentheses around NOT are not written back.
        let domain = normalised(&p.domain).replace("(NOT(open(?x,?y+1))))", "NOT(open(?x,?y+1)))");
        assert_eq!(m.domain_text(), domain, "{}", p.domain_path.display());
    }
}

#[test]
fn write_then_parse_gives_the_same_model() {
    for p in &problems() {
        let m = parse_problem(p);
        let (sources, again) = parse_texts(&m.domain_text(), &m.problem_text());
        match again {
            Ok(again) => assert_eq!(again, m, "{}", p.name),
            Err(e) => panic!(
                "{}: the written files do not parse:\n{}",
                p.name,
                render_all(&e, &sources, false)
            ),
        }
    }
}

/// Load `model.to_game(name)` in a fresh session and answer "can the player to move win
/// within `plies`?", failing with the rendered errors if it does not load.
fn wins_within(m: &Model, name: &str, plies: u64) -> bool {
    let mut session = Session::new().expect("the standard library loads");
    let text = m.to_game(name);
    if let Err(e) = session.load_source(&format!("{name}.game"), &text) {
        panic!(
            "{name}: the translation does not load:\n{}\n{text}",
            render_all(&e, &session.sources, false)
        );
    }
    assert_eq!(session.games.len(), 1, "{name}: one game");
    let game = session.games[0].clone();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    match solve_within(&mut engine, &game, &game.start, &game.first, plies) {
        Ok(b) => b.wins,
        Err(e) => panic!(
            "{name}: solving failed: {}",
            gamelang_game::diagnose(&engine, &e).render(&session.sources, false)
        ),
    }
}

#[test]
fn every_translation_loads_and_solves_one_ply() {
    for p in &problems() {
        let m = parse_problem(p);
        let name = format!("bddl-{}", p.name.replace(['/', '.', '_'], "-"));
        wins_within(&m, &name, 1);
    }
}

#[test]
fn translations_give_known_answers() {
    let by_name: HashMap<String, Problem> = problems()
        .into_iter()
        .map(|p| (p.name.clone(), p))
        .collect();
    let m = |n: &str| parse_problem(&by_name[n]);
    // Domineering 2x2: Black's domino leaves White no room, and White's failed attempt to
    // move is the second ply (seed 001's Definition 10).
    let dom = m("domineering/2x2_2.ig");
    assert!(!wins_within(&dom, "dom", 1));
    assert!(wins_within(&dom, "dom", 2));
    // A domino on 3x3: Black takes the centre; White cannot block all four neighbours.
    let domino = m("httt/3x3_3_domino.ig");
    assert!(!wins_within(&domino, "domino", 1));
    assert!(wins_within(&domino, "domino", 3));
    // Hex on two cells that Black needs both of: White takes the other one.
    assert!(!wins_within(&m("hex/hein_04_3x3-03.pg"), "hex2", 3));
}
