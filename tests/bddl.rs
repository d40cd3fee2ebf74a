//! `gamelang bddl solve`, `bddl convert` and `lower --to bddl`, end to end through the binary:
//! answers checked against a brute force of seed 001's Definitions 4-10 written here (on the
//! parsed model, with its own boards, bounds and transitions — nothing from the runtime's grid
//! compiler), critical depths, the round trip BDDL → gamelang → BDDL → gamelang, and errors.

mod support;
use gamelang_bddl::{Atom, Coord, Model, Piece};
use gamelang_lang::span::Sources;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use support::cli::{corpus_files, gamelang, json};

fn model(domain: &str, problem: &str) -> Model {
    let mut sources = Sources::default();
    let d = sources.add(domain, std::fs::read_to_string(domain).expect("domain"));
    let p = sources.add(problem, std::fs::read_to_string(problem).expect("problem"));
    gamelang_bddl::parse(&mut sources, d, p).expect("the corpus parses")
}

// ----- the brute force --------------------------------------------------------------------

/// Cells row by row: 0 open, 1 black, 2 white.
type State = Vec<u8>;

struct Brute<'m> {
    m: &'m Model,
    memo: HashMap<(State, bool, u64), bool>,
}

fn code(p: Piece) -> u8 {
    match p {
        Piece::Open => 0,
        Piece::Black => 1,
        Piece::White => 2,
    }
}

impl Brute<'_> {
    fn at(&self, c: Coord, i: i64, max: i64) -> i64 {
        match c {
            Coord::Rel(k) => i + k,
            Coord::Abs(v) => v,
            Coord::Min => 1,
            Coord::Max => max,
        }
    }

    /// The cell an atom names at (i, j), if it is on the board (Definition 4: a position is
    /// in a condition's bounds when every atom's cell is on the board).
    fn cell(&self, a: &Atom, i: i64, j: i64) -> Option<usize> {
        let (x, y) = (
            self.at(a.x, i, self.m.width),
            self.at(a.y, j, self.m.height),
        );
        (x >= 1 && y >= 1 && x <= self.m.width && y <= self.m.height)
            .then(|| ((y - 1) * self.m.width + (x - 1)) as usize)
    }

    fn positions(&self) -> Vec<(i64, i64)> {
        let mut out = Vec::new();
        for j in 1..=self.m.height {
            for i in 1..=self.m.width {
                out.push((i, j));
            }
        }
        out
    }

    fn holds(&self, s: &State, atoms: &[Atom], i: i64, j: i64) -> Option<bool> {
        let mut all = true;
        for a in atoms {
            let k = self.cell(a, i, j)?;
            if (s[k] == code(a.piece)) == a.negated {
                all = false;
            }
        }
        Some(all)
    }

    fn goal(&self, s: &State, goals: &[Vec<Atom>]) -> bool {
        goals.iter().any(|g| {
            self.positions()
                .into_iter()
                .any(|(i, j)| self.holds(s, g, i, j) == Some(true))
        })
    }

    fn moves(&self, s: &State, black: bool) -> Vec<State> {
        let acts = if black {
            &self.m.black_actions
        } else {
            &self.m.white_actions
        };
        let mut out: Vec<State> = Vec::new();
        for a in acts {
            for (i, j) in self.positions() {
                // In bounds for precondition and effect alike (Definition 7's I_a).
                if a.eff.iter().any(|e| self.cell(e, i, j).is_none()) {
                    continue;
                }
                if self.holds(s, &a.pre, i, j) != Some(true) {
                    continue;
                }
                let mut t = s.clone();
                for e in &a.eff {
                    t[self.cell(e, i, j).expect("checked")] = code(e.piece);
                }
                if !out.contains(&t) {
                    out.push(t);
                }
            }
        }
        out
    }

    /// Definition 10 as a recursion over plies left, either player to move.
    fn win(&mut self, s: &State, black: bool, d: u64) -> bool {
        if d == 0 {
            return false;
        }
        let key = (s.clone(), black, d);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let moves = self.moves(s, black);
        let v = if black {
            moves
                .iter()
                .any(|t| self.goal(t, &self.m.black_goals) || self.win(t, false, d - 1))
        } else {
            moves
                .iter()
                .all(|t| !self.goal(t, &self.m.white_goals) && self.win(t, true, d - 1))
        };
        self.memo.insert(key, v);
        v
    }

    fn start(&self) -> State {
        let mut s = vec![0; (self.m.width * self.m.height) as usize];
        for &(p, x, y) in &self.m.init {
            s[((y - 1) * self.m.width + (x - 1)) as usize] = code(p);
        }
        s
    }
}

fn brute_wins(m: &Model, d: u64) -> bool {
    let mut b = Brute {
        m,
        memo: HashMap::new(),
    };
    let s = b.start();
    b.win(&s, m.black_first, d)
}

/// The problem file `lower --to bddl` wrote into `dir` (beside its domain.ig).
fn lowered_problem(dir: &Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .expect("the output directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.file_name().is_some_and(|n| n != "domain.ig"))
        .expect("a problem file")
}

// ----- tests ------------------------------------------------------------------------------

/// Small corpus instances from every game, with every quirk of the files: connect-c's extra
/// parentheses around NOT and its `occupy-bottom` that ignores ?y, the duplicated atoms of
/// evader_pursuer_dual, Black second, ground goals (Hex), `False` goals (Domineering),
/// constant goals (Evader-Pursuer).
const SMALL: &[(&str, &str)] = &[
    ("domineering", "2x2_2.ig"),
    ("domineering", "2x3_4.ig"),
    ("domineering", "3x3_4.ig"),
    ("domineering", "4x2_5.ig"),
    ("domineering", "2x5_6.ig"),
    ("httt", "3x3_3_domino.ig"),
    ("httt", "3x3_5_el.ig"),
    ("connect-c", "3x3_3_connect2.ig"),
    ("connect-c", "3x3_9_connect3.ig"),
    ("breakthrough", "2x4_13.ig"),
    ("breakthrough-second-player", "2x4_8.ig"),
    ("evader_pursuer", "4x4_3_e-4-1_p-2-3.ig"),
    ("evader_pursuer_dual", "4x4_2_e-4-1_p-1-2.ig"),
    ("hex", "hein_04_3x3-05.pg"),
    ("hex", "hein_09_4x4-05.pg"),
];

#[test]
fn bddl_solve_agrees_with_the_brute_force_at_every_depth() {
    for (game, problem) in SMALL {
        let (d, p) = corpus_files(game, problem);
        let m = model(&d, &p);
        let top = m.depth as u64 + 2;
        for depth in 0..=top {
            let j = json(&[
                "bddl",
                "solve",
                &d,
                &p,
                "--json",
                "--depth",
                &depth.to_string(),
            ]);
            let want = brute_wins(&m, depth);
            assert_eq!(
                j["black_wins"], want,
                "{game}/{problem} at depth {depth}: gamelang {} brute force {want}",
                j["black_wins"]
            );
            assert_eq!(j["depth"], depth);
            if want {
                // The principal line starts with the winning move and is a line of moves.
                let line = j["principal_line"].as_array().expect("a line");
                assert!(!line.is_empty() && line.len() as u64 <= depth);
                assert!(j["best_move"].is_string());
            } else {
                assert!(j["best_move"].is_null());
            }
        }
    }
}

#[test]
fn critical_depth_is_the_least_odd_depth_at_which_black_wins() {
    for (game, problem) in SMALL {
        let (d, p) = corpus_files(game, problem);
        let m = model(&d, &p);
        let max = 11;
        let j = json(&[
            "bddl",
            "solve",
            &d,
            &p,
            "--json",
            "--depth",
            "auto",
            "--max-depth",
            "11",
        ]);
        let want = (1..=max).step_by(2).find(|&k| brute_wins(&m, k));
        assert_eq!(
            j["critical_depth"].as_u64(),
            want,
            "{game}/{problem}: critical depth"
        );
        assert_eq!(j["black_wins"], want.is_some());
        let least = (0..=max).find(|&k| brute_wins(&m, k));
        if want.is_some() {
            assert_eq!(
                j["least_depth"].as_u64(),
                least,
                "{game}/{problem}: least depth"
            );
        }
    }
}

#[test]
fn the_files_depth_is_the_default_and_the_text_draws_the_line() {
    let (d, p) = corpus_files("httt", "3x3_5_el.ig");
    let j = json(&["bddl", "solve", &d, &p, "--json"]);
    assert_eq!(j["depth"], 5);
    assert_eq!(j["problem_depth"], 5);
    assert_eq!(j["board"], "3x3");
    let out = gamelang(&["bddl", "solve", &d, &p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.contains("Black has a winning strategy within 5 plies"),
        "{text}"
    );
    assert!(text.contains("winning move: occupy("), "{text}");
    // The start and each ply drawn with column letters and row numbers.
    assert!(text.contains("start, Black to move:"), "{text}");
    assert!(text.contains("     a b c"), "{text}");
    assert!(text.contains("ply 5, Black played occupy("), "{text}");
}

#[test]
fn a_full_tic_tac_toe_board_is_a_black_win_under_definition_10() {
    // BDDL: a player who cannot move loses, so filling the board wins for Black at depth 11
    // although tic-tac-toe (here without diagonals) is a draw.
    let (d, p) = corpus_files("httt", "3x3_9_tic.ig");
    let at9 = json(&["bddl", "solve", &d, &p, "--json"]);
    assert_eq!(at9["black_wins"], false);
    let at11 = json(&["bddl", "solve", &d, &p, "--json", "--depth", "11"]);
    assert_eq!(at11["black_wins"], true);
    assert_eq!(at11["least_depth"], 10);
    let line = at11["principal_line"].as_array().expect("line");
    assert_eq!(line.last().and_then(|m| m.as_str()), Some("(cannot move)"));
}

#[test]
fn the_round_trip_bddl_gamelang_bddl_gamelang_keeps_the_game() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (game, problem) in SMALL {
        let (d, p) = corpus_files(game, problem);
        let original = model(&d, &p);
        // BDDL → gamelang
        let g1 = tmp.path().join("g1.game");
        let out = gamelang(&["bddl", "convert", &d, &p, "-o", g1.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // gamelang → BDDL
        let dir = tmp.path().join(format!("{game}-{problem}"));
        let out = gamelang(&[
            "lower",
            g1.to_str().unwrap(),
            "--to",
            "bddl",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let domain2 = dir.join("domain.ig");
        let problem2 = lowered_problem(&dir);
        let back = model(domain2.to_str().unwrap(), problem2.to_str().unwrap());
        // The same game: board, turn, depth, actions and goals as read back (the initial
        // cells in board order, as lowering writes them).
        let mut init = original.init.clone();
        init.sort_by_key(|&(_, x, y)| (y, x));
        init.dedup();
        assert_eq!(back.init, init, "{game}/{problem}: initial cells");
        assert_eq!(
            (back.width, back.height, back.depth, back.black_first),
            (
                original.width,
                original.height,
                original.depth,
                original.black_first
            )
        );
        assert_eq!(
            back.black_actions, original.black_actions,
            "{game}/{problem}"
        );
        assert_eq!(
            back.white_actions, original.white_actions,
            "{game}/{problem}"
        );
        assert_eq!(back.black_goals, original.black_goals, "{game}/{problem}");
        assert_eq!(back.white_goals, original.white_goals, "{game}/{problem}");
        // … and the same moves from every position reached within 3 plies, by the brute
        // force's transition function on both models.
        let (a, b) = (
            Brute {
                m: &original,
                memo: HashMap::new(),
            },
            Brute {
                m: &back,
                memo: HashMap::new(),
            },
        );
        let mut frontier = vec![(a.start(), original.black_first)];
        assert_eq!(a.start(), b.start());
        for _ in 0..3 {
            let mut next = Vec::new();
            for (s, black) in frontier {
                let (ma, mb) = (a.moves(&s, black), b.moves(&s, black));
                assert_eq!(ma, mb, "{game}/{problem}: moves differ");
                next.extend(ma.into_iter().map(|t| (t, !black)));
            }
            next.truncate(200);
            frontier = next;
        }
        // And gamelang solves the round-tripped files the same way.
        let j1 = json(&["bddl", "solve", &d, &p, "--json"]);
        let j2 = json(&[
            "bddl",
            "solve",
            domain2.to_str().unwrap(),
            problem2.to_str().unwrap(),
            "--json",
        ]);
        assert_eq!(j1["black_wins"], j2["black_wins"], "{game}/{problem}");
    }
}

#[test]
fn lowered_examples_solve_as_the_game_does() {
    // A grid game written in gamelang, lowered to BDDL, solved from the BDDL files: the same
    // answer as `gamelang solve --max-depth` on the game (Black = B moves first).
    let tmp = tempfile::tempdir().expect("tempdir");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/grid/domineering.game");
    let dir = tmp.path().join("dom");
    for (w, h) in [(3, 3), (2, 4), (4, 2)] {
        let out = gamelang(&[
            "lower",
            example.to_str().unwrap(),
            "--to",
            "bddl",
            "--out",
            dir.to_str().unwrap(),
            "--set",
            &format!("width={w}"),
            "--set",
            &format!("height={h}"),
            "--depth",
            "7",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let domain = dir.join("domain.ig");
        let problem = lowered_problem(&dir);
        for depth in [1u64, 2, 3, 5, 7] {
            let from_bddl = json(&[
                "bddl",
                "solve",
                domain.to_str().unwrap(),
                problem.to_str().unwrap(),
                "--json",
                "--depth",
                &depth.to_string(),
            ]);
            let from_game = json(&[
                "solve",
                example.to_str().unwrap(),
                "--json",
                "--set",
                &format!("width={w}"),
                "--set",
                &format!("height={h}"),
                "--max-depth",
                &depth.to_string(),
            ]);
            assert_eq!(
                from_bddl["black_wins"], from_game["wins_within"],
                "{w}x{h} at depth {depth}"
            );
        }
    }
}

#[test]
fn bad_bddl_is_a_located_error_not_a_panic() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let domain = tmp.path().join("domain.ig");
    let problem = tmp.path().join("p.ig");
    std::fs::write(
        &domain,
        "#blackactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (red(?x,?y))\n:effect (black(?x,?y))\n#whiteactions\n",
    )
    .unwrap();
    std::fs::write(
        &problem,
        "#boardsize\n3 3\n#init\n\n#depth\n3\n#blackgoal\nblack(5,1)\n#whitegoal\n",
    )
    .unwrap();
    let out = gamelang(&[
        "bddl",
        "solve",
        domain.to_str().unwrap(),
        problem.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("red"), "{err}");
    assert!(err.contains("domain.ig:4:"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A goal outside the board, once the domain is right.
    std::fs::write(
        &domain,
        "#blackactions\n:action occupy\n:parameters (?x, ?y)\n:precondition (open(?x,?y))\n:effect (black(?x,?y))\n#whiteactions\n",
    )
    .unwrap();
    let out = gamelang(&[
        "bddl",
        "solve",
        domain.to_str().unwrap(),
        problem.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("p.ig:8:"), "{err}");
    assert!(err.contains('5'), "{err}");
    // A missing file.
    let out = gamelang(&[
        "bddl",
        "solve",
        "no/such/domain.ig",
        problem.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn lowering_a_game_that_is_not_a_grid_game_is_an_error() {
    let heaps = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/heaps.game");
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = gamelang(&[
        "lower",
        heaps.to_str().unwrap(),
        "--to",
        "bddl",
        "--out",
        tmp.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a grid game"));
}

#[test]
fn the_readme_example_is_what_bddl_solve_prints() {
    // The README shows the first lines of this run; they must stay true.
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let block = readme
        .split("```")
        .find(|b| b.contains("$ gamelang bddl solve"))
        .expect("the README's bddl example");
    let mut lines = block.lines().filter(|l| !l.trim().is_empty());
    let command = lines
        .next()
        .expect("a command")
        .trim_start_matches("$ gamelang ");
    let args: Vec<&str> = command.split_whitespace().collect();
    let out = Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    for line in lines.filter(|l| *l != "…") {
        assert!(
            text.lines().any(|t| t == line),
            "README line {line:?} not in\n{text}"
        );
    }
}

/// `--max-depth` without `--depth auto` is refused (exit 2): it was ignored, and the
/// search went to the file's depth. With `play --qbf --depth 0` no strategy was asked for,
/// so none "FAILED": the goal simply does not hold.
#[test]
fn depth_flags_that_would_be_ignored_are_refused() {
    let (d, p) = support::cli::corpus_files("httt", "3x3_3_domino.ig");
    let o = support::cli::gamelang(&["bddl", "solve", &d, &p, "--max-depth", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-depth goes with --depth auto"));
    let o = support::cli::gamelang_with_input(
        &[
            "play",
            "examples/grid/domineering.game",
            "--qbf",
            "--depth",
            "0",
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("Black has no winning strategy within 0 plies"),
        "{out}"
    );
    assert!(!out.contains("FAILED"), "{out}");
}

/// `--set` and `--game` with a BDDL domain and problem are refused (exit 2): they were
/// ignored, and the formula of the file as it is written out.
#[test]
fn game_flags_with_a_bddl_pair_are_refused() {
    let (d, p) = support::cli::corpus_files("httt", "3x3_3_domino.ig");
    for extra in [&["--set", "width=4"][..], &["--game", "foo"][..]] {
        let mut args = vec!["lower", &d, &p, "--to", "qdimacs"];
        args.extend_from_slice(extra);
        let o = support::cli::gamelang(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--game and --set are for a `.game` file"),
            "{err}"
        );
    }
    let o = support::cli::gamelang(&["lower", &d, &p, "--to", "qdimacs"]);
    assert!(o.status.success());
}
