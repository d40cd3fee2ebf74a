//! Draws, optimal depths and the bounded question, checked against brute-force solvers
//! written here (not against gamelang itself), and Theorem 2.1 of seed 003 checked on the
//! language's own `w` and its dual `w'`.

use gamelang_game::{GameDriver, Side, Verdict};
use std::collections::HashMap;
mod support;
use support::heaps::moves as heap_moves;
use support::{load, Loaded};

// ----- tic-tac-toe ------------------------------------------------------------------------

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// 0 empty, 1 X (B), 2 O (R).
type Board = [u8; 9];

fn three(b: &Board, mark: u8) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| b[i] == mark))
}

/// (outcome, plies to the end under best play: winner fastest, loser slowest; in a draw
/// the game is played out, so it is the number of empty cells)
fn ttt(
    b: &Board,
    x_to_move: bool,
    memo: &mut HashMap<(Board, bool), (Verdict, u32)>,
) -> (Verdict, u32) {
    if let Some(&v) = memo.get(&(*b, x_to_move)) {
        return v;
    }
    let result = if three(b, 1) {
        (Verdict::Win(Side::B), 0)
    } else if three(b, 2) {
        (Verdict::Win(Side::R), 0)
    } else if b.iter().all(|&c| c != 0) {
        (Verdict::Draw, 0)
    } else {
        let me = if x_to_move { Side::B } else { Side::R };
        let children: Vec<(Verdict, u32)> = (0..9)
            .filter(|&i| b[i] == 0)
            .map(|i| {
                let mut n = *b;
                n[i] = if x_to_move { 1 } else { 2 };
                ttt(&n, !x_to_move, memo)
            })
            .collect();
        let wins: Vec<u32> = children
            .iter()
            .filter(|c| c.0 == Verdict::Win(me))
            .map(|c| c.1)
            .collect();
        if let Some(&fast) = wins.iter().min() {
            (Verdict::Win(me), fast + 1)
        } else if let Some(d) = children
            .iter()
            .filter(|c| c.0 == Verdict::Draw)
            .map(|c| c.1)
            .max()
        {
            (Verdict::Draw, d + 1)
        } else {
            (
                Verdict::Win(me.opponent()),
                children.iter().map(|c| c.1).max().unwrap() + 1,
            )
        }
    };
    memo.insert((*b, x_to_move), result);
    result
}

fn ttt_text(b: &Board) -> String {
    let set = |mark: u8| {
        let cells: Vec<String> = (0..9)
            .filter(|&i| b[i] == mark)
            .map(|i| (i + 1).to_string())
            .collect();
        if cells.is_empty() {
            "empty".to_string()
        } else {
            cells.join(", ")
        }
    };
    format!("({} | {})", set(1), set(2))
}

fn reachable(b: Board, x_to_move: bool, out: &mut HashMap<(Board, bool), ()>) {
    if out.insert((b, x_to_move), ()).is_some() || three(&b, 1) || three(&b, 2) {
        return;
    }
    for i in 0..9 {
        if b[i] == 0 {
            let mut n = b;
            n[i] = if x_to_move { 1 } else { 2 };
            reachable(n, !x_to_move, out);
        }
    }
}

#[test]
fn tictactoe_is_a_draw() {
    let mut t = load("examples/tictactoe.game");
    assert!(t.game.draws);
    let o = t.solve("(empty | empty)", "B");
    assert_eq!(o.winner, Verdict::Draw);
    assert!(o.best_move.is_none());
    assert_eq!(
        o.line.len(),
        10,
        "a drawn game of noughts and crosses fills the board"
    );
}

#[test]
fn tictactoe_outcomes_match_brute_force_on_every_reachable_position() {
    let mut t = load("examples/tictactoe.game");
    let mut positions = HashMap::new();
    reachable([0; 9], true, &mut positions);
    let mut memo = HashMap::new();
    let game = t.game.clone();
    let d = GameDriver::new(&mut t.engine, &game).unwrap();
    let (mut draws, mut wins) = (0, 0);
    for (b, x_to_move) in positions.keys() {
        let (expected, _) = ttt(b, *x_to_move, &mut memo);
        let c = t.config(&ttt_text(b));
        let p = if *x_to_move { Side::B } else { Side::R };
        let got = d.verdict(&mut t.engine, p, c).unwrap();
        assert_eq!(got, expected, "{} with {} to move", ttt_text(b), p.name());
        if expected == Verdict::Draw {
            draws += 1;
        } else {
            wins += 1;
        }
    }
    assert!(
        draws > 100 && wins > 100,
        "the check covers both kinds: {draws} draws, {wins} wins"
    );
}

#[test]
fn tictactoe_principal_lines_are_legal_and_optimal() {
    let mut t = load("examples/tictactoe.game");
    let mut memo = HashMap::new();
    // Positions where someone wins: the winner takes the fastest win, the loser the slowest loss.
    let samples: [(Board, bool); 4] = [
        ([1, 0, 0, 0, 2, 0, 0, 0, 1], false),
        ([1, 2, 0, 0, 0, 0, 0, 0, 0], true),
        ([1, 0, 0, 0, 0, 0, 0, 0, 2], true),
        ([1, 1, 0, 2, 2, 0, 0, 0, 0], true),
    ];
    for (b, x_to_move) in samples {
        let (verdict, depth) = ttt(&b, x_to_move, &mut memo);
        let o = t.solve(&ttt_text(&b), if x_to_move { "B" } else { "R" });
        assert_eq!(o.winner, verdict, "{}", ttt_text(&b));
        if let Verdict::Win(_) = verdict {
            assert_eq!(
                o.line.len() - 1,
                depth as usize,
                "optimal depth from {}",
                ttt_text(&b)
            );
        }
        // Every step of the line places exactly one mark of the player to move.
        let shown: Vec<String> = o.line.iter().map(|&c| t.engine.show(c)).collect();
        let mut cur = b;
        let mut x = x_to_move;
        for next in &shown[1..] {
            let placed: Vec<usize> = (0..9)
                .filter(|&i| cur[i] == 0)
                .filter(|&i| {
                    let mut n = cur;
                    n[i] = if x { 1 } else { 2 };
                    ttt_text(&n) == *next
                })
                .collect();
            assert_eq!(
                placed.len(),
                1,
                "illegal step to {next} from {}",
                ttt_text(&cur)
            );
            cur[placed[0]] = if x { 1 } else { 2 };
            x = !x;
        }
    }
}

// ----- heaps: Theorem 2.1 and the bounded question ---------------------------------------------

/// (mover wins?, plies under best play: winner fastest, loser slowest)
fn heaps(k: u64, n: u64, memo: &mut HashMap<(u64, u64), (bool, u32)>) -> (bool, u32) {
    if let Some(&v) = memo.get(&(k, n)) {
        return v;
    }
    let children: Vec<(bool, u32)> = heap_moves(k, n)
        .into_iter()
        .map(|(a, b)| heaps(a, b, memo))
        .collect();
    let v = match children.iter().filter(|c| !c.0).map(|c| c.1).min() {
        Some(fast) => (true, fast + 1),
        None => (false, children.iter().map(|c| c.1 + 1).max().unwrap_or(0)),
    };
    memo.insert((k, n), v);
    v
}

#[test]
fn theorem_2_1_w_prime_is_not_w() {
    let mut h = load("examples/heaps.game");
    for k in 0..=12 {
        for n in 0..=12 {
            for p in ["R", "B"] {
                let w = h.value(&format!("w({p}, ({k} {n}))"));
                let w_dual = h.value(&format!("w'({p}, ({k} {n}))"));
                let not_w = h.value(&format!("not w({p}, ({k} {n}))"));
                assert_eq!(
                    w_dual, not_w,
                    "w'({p}, ({k} {n})) must be the negation of w"
                );
                assert_ne!(w, w_dual);
            }
        }
    }
}

#[test]
fn heaps_depths_and_critical_depths_match_brute_force() {
    let mut h = load("examples/heaps.game");
    let mut memo = HashMap::new();
    let game = h.game.clone();
    for k in 1..=9 {
        for n in 1..=9 {
            let (mover_wins, depth) = heaps(k, n, &mut memo);
            let o = h.solve(&format!("({k} {n})"), "R");
            assert_eq!(o.line.len() - 1, depth as usize, "depth of ({k} {n})");
            let start = h.config(&format!("({k} {n})"));
            // The least D at which R can force a win within D plies is the optimal depth.
            let d = GameDriver::new(&mut h.engine, &game).unwrap();
            let wins = |h: &mut Loaded, plies: u64| {
                d.wins_within(&mut h.engine, Side::R, Side::R, start, plies)
                    .unwrap()
            };
            if mover_wins {
                assert!(wins(&mut h, depth as u64), "({k} {n}) within {depth}");
                assert!(
                    !wins(&mut h, depth as u64 - 1),
                    "({k} {n}) not within {}",
                    depth - 1
                );
            } else {
                assert!(
                    !wins(&mut h, 40),
                    "({k} {n}) is lost for the mover at any depth"
                );
            }
        }
    }
}

// ----- Nim and Wythoff -------------------------------------------------------------------------

/// Does the player to move win? Generic normal-play search over a move function.
fn mover_wins<P: Clone + Eq + std::hash::Hash>(
    p: &P,
    moves: &dyn Fn(&P) -> Vec<P>,
    memo: &mut HashMap<P, bool>,
) -> bool {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    let v = moves(p).iter().any(|q| !mover_wins(q, moves, memo));
    memo.insert(p.clone(), v);
    v
}

fn check_impartial(
    path: &str,
    positions: Vec<(String, Vec<u64>)>,
    moves: &dyn Fn(&Vec<u64>) -> Vec<Vec<u64>>,
) {
    let mut g = load(path);
    let mut memo = HashMap::new();
    for (text, heaps) in positions {
        let wins = mover_wins(&heaps, moves, &mut memo);
        for first in [Side::R, Side::B] {
            let o = g.solve(&text, first.name());
            let expected = if wins { first } else { first.opponent() };
            assert_eq!(
                o.winner,
                Verdict::Win(expected),
                "{text} with {} to move",
                first.name()
            );
            if let Some(m) = o.best_move {
                // The reported move is legal and leaves the opponent lost.
                let shown = g.engine.show(m);
                let next: Vec<u64> = shown
                    .trim_matches(|c| c == '(' || c == ')')
                    .split(' ')
                    .map(|x| x.parse().unwrap())
                    .collect();
                assert!(
                    moves(&heaps).contains(&next),
                    "{text} -> {shown} is not a move"
                );
                assert!(
                    !mover_wins(&next, moves, &mut memo),
                    "{text} -> {shown} does not win"
                );
            }
        }
    }
}

#[test]
fn nim_matches_brute_force() {
    let moves = |h: &Vec<u64>| -> Vec<Vec<u64>> {
        let mut out = Vec::new();
        for i in 0..h.len() {
            for v in 0..h[i] {
                let mut n = h.clone();
                n[i] = v;
                out.push(n);
            }
        }
        out
    };
    let mut positions = Vec::new();
    for a in 0..=4u64 {
        for b in 0..=4u64 {
            positions.push((format!("({a} {b})"), vec![a, b]));
            for c in 0..=3u64 {
                positions.push((format!("({a} {b} {c})"), vec![a, b, c]));
            }
        }
    }
    positions.push(("(2 1 3 1)".into(), vec![2, 1, 3, 1]));
    check_impartial("examples/nim.game", positions, &moves);
}

#[test]
fn wythoff_matches_brute_force() {
    let moves = |h: &Vec<u64>| -> Vec<Vec<u64>> {
        let (a, b) = (h[0], h[1]);
        let mut out = Vec::new();
        for i in 1..=a {
            out.push(vec![a - i, b]);
        }
        for i in 1..=b {
            out.push(vec![a, b - i]);
        }
        for i in 1..=a.min(b) {
            out.push(vec![a - i, b - i]);
        }
        out
    };
    let mut positions = Vec::new();
    for a in 0..=10u64 {
        for b in 0..=10u64 {
            positions.push((format!("({a} {b})"), vec![a, b]));
        }
    }
    check_impartial("examples/wythoff.game", positions, &moves);
}

// ----- the colouring game and Domineering -----------------------------------------------------

/// Minimax value of the colouring game (blue minus red, Benny maximising), boards as bit sets.
fn colouring(
    n: u32,
    blue: u64,
    red: u64,
    benny: bool,
    memo: &mut HashMap<(u64, u64, bool), i64>,
) -> i64 {
    if let Some(&v) = memo.get(&(blue, red, benny)) {
        return v;
    }
    let free = |i: u32| (blue | red) & (1 << i) == 0;
    let mut children = Vec::new();
    if benny {
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let i = r * n + c;
                let square = [i, i + 1, i + n, i + n + 1];
                if square.iter().all(|&j| free(j)) {
                    children.push(square.iter().fold(blue, |b, &j| b | 1 << j));
                }
            }
        }
    } else {
        for i in 0..n * n {
            if free(i) {
                children.push(red | 1 << i);
            }
        }
    }
    let v = if children.is_empty() {
        2 * blue.count_ones() as i64 - (n * n) as i64
    } else if benny {
        children
            .iter()
            .map(|&b| colouring(n, b, red, false, memo))
            .max()
            .unwrap()
    } else {
        children
            .iter()
            .map(|&r| colouring(n, blue, r, true, memo))
            .min()
            .unwrap()
    };
    memo.insert((blue, red, benny), v);
    v
}

#[test]
fn colouring_outcomes_and_values_match_brute_force() {
    for n in 2..=4u32 {
        let mut g = load("examples/colouring.game");
        g.set("n", n);
        let expected = colouring(n, 0, 0, true, &mut HashMap::new());
        let o = g.solve("board(0, 0)", "B");
        let verdict = match expected.signum() {
            1 => Verdict::Win(Side::B),
            -1 => Verdict::Win(Side::R),
            _ => Verdict::Draw,
        };
        assert_eq!(o.winner, verdict, "{n} x {n}");
        let start = g.term_of("board(0, 0)", Some(g.game.config_sort));
        let first = g.term_of("B", Some(g.game.player_sort));
        let v = gamelang_game::solve_value(&mut g.engine, &g.game, &start, &first).unwrap();
        assert_eq!(v.value, expected, "value of {n} x {n}");
    }
}

/// Any solver is sweepable: the standard library's `value`, `outcome` and `r-within` can be
/// swept over a game parameter (they live in instances that import the game's module).
#[test]
fn scores_and_outcomes_of_a_game_can_be_swept() {
    let dir = tempfile::tempdir().unwrap();
    for (expr, column) in [
        ("value(B, board(0, 0))", "value"),
        ("outcome(B, board(0, 0))", "outcome"),
    ] {
        let csv = dir.path().join(format!("{column}.csv"));
        let o = support::cli::gamelang(&[
            "sweep",
            "examples/colouring.game",
            "--range",
            "n=2..4",
            "--expr",
            expr,
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&csv).unwrap();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .skip(1)
            .collect();
        assert_eq!(rows.len(), 3, "{text}");
        for (row, n) in rows.iter().zip(2..=4u32) {
            let v = colouring(n, 0, 0, true, &mut HashMap::new());
            let want = match column {
                "value" => v.to_string(),
                _ => match v.signum() {
                    1 => "B".to_string(),
                    -1 => "R".to_string(),
                    _ => "draw".to_string(),
                },
            };
            assert_eq!(*row, format!("{n},{want}"), "{expr} at n = {n}");
        }
    }
}

fn domineering(
    rows: u32,
    cols: u32,
    covered: u64,
    vertical: bool,
    memo: &mut HashMap<(u64, bool), bool>,
) -> bool {
    if let Some(&v) = memo.get(&(covered, vertical)) {
        return v;
    }
    let free = |i: u32| covered & (1 << i) == 0;
    let mut wins = false;
    for r in 0..rows {
        for c in 0..cols {
            let i = r * cols + c;
            let j = if vertical { i + cols } else { i + 1 };
            let fits = if vertical { r + 1 < rows } else { c + 1 < cols };
            if fits
                && free(i)
                && free(j)
                && !domineering(rows, cols, covered | 1 << i | 1 << j, !vertical, memo)
            {
                wins = true;
            }
        }
    }
    memo.insert((covered, vertical), wins);
    wins
}

#[test]
fn domineering_matches_brute_force() {
    for (rows, cols) in [
        (1, 2),
        (2, 2),
        (2, 3),
        (3, 2),
        (3, 3),
        (2, 4),
        (4, 2),
        (1, 5),
    ] {
        let mut g = load("examples/domineering.game");
        g.set("rows", rows);
        g.set("cols", cols);
        for first in [Side::B, Side::R] {
            let mover_wins = domineering(rows, cols, 0, first == Side::B, &mut HashMap::new());
            let o = g.solve("board(empty)", first.name());
            let expected = if mover_wins { first } else { first.opponent() };
            assert_eq!(
                o.winner,
                Verdict::Win(expected),
                "{rows} x {cols}, {} first",
                first.name()
            );
        }
    }
}

/// Connect-c by brute force: boards as bit sets indexed y * w + x from the bottom.
fn connect(
    w: i32,
    h: i32,
    c: i32,
    mine: u64,
    theirs: u64,
    memo: &mut HashMap<(u64, u64), Verdict>,
    me: Side,
) -> Verdict {
    // Outcome with `me` to move, stones `mine` (me) and `theirs`.
    if let Some(&v) = memo.get(&(mine, theirs)) {
        return v;
    }
    let has_line = |s: u64| {
        (0..w * h).any(|i| {
            let (x0, y0) = (i % w, i / w);
            [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                (0..c).all(|k| {
                    let (x, y) = (x0 + k * dx, y0 + k * dy);
                    x >= 0 && x < w && y >= 0 && y < h && s & (1 << (y * w + x)) != 0
                })
            })
        })
    };
    let v = if has_line(theirs) {
        Verdict::Win(me.opponent())
    } else if has_line(mine) {
        Verdict::Win(me)
    } else if (mine | theirs).count_ones() as i32 == w * h {
        Verdict::Draw
    } else {
        let mut best = Verdict::Win(me.opponent());
        for x in 0..w {
            if let Some(y) = (0..h).find(|y| (mine | theirs) & (1 << (y * w + x)) == 0) {
                let after = connect(
                    w,
                    h,
                    c,
                    theirs,
                    mine | 1 << (y * w + x),
                    memo,
                    me.opponent(),
                );
                if after == Verdict::Win(me) {
                    best = after;
                    break;
                }
                if after == Verdict::Draw {
                    best = Verdict::Draw;
                }
            }
        }
        best
    };
    memo.insert((mine, theirs), v);
    v
}

/// `gamelang solve` lets the search collect the engine's garbage as it goes (keeping the
/// positions of its table and stack): with a collection every few hundred terms, every
/// answer stays — the winner against the brute force, the line and the positions against
/// the same solve without collections.
#[test]
fn solving_while_collecting_garbage_keeps_every_answer() {
    // Budget 0: the line of first moves, which pins what it holds across its searches.
    for (w, h, c, budget) in [
        (4, 4, 3, gamelang_game::line::DEFAULT_LINE_BUDGET),
        (5, 3, 3, gamelang_game::line::DEFAULT_LINE_BUDGET),
        (3, 4, 3, gamelang_game::line::DEFAULT_LINE_BUDGET),
        (4, 4, 3, 0),
        (4, 3, 3, 0),
    ] {
        let solve = |collect: bool| {
            let mut g = load("examples/connect.game");
            for (name, v) in [("width", w), ("height", h), ("c", c)] {
                g.set(name, v);
            }
            g.engine.collect_min_terms = 256;
            let (start, first) = (g.game.start.clone(), g.game.first.clone());
            let o = gamelang_game::solve_collecting(
                &mut g.engine,
                &g.game,
                &start,
                &first,
                budget,
                collect,
            )
            .unwrap();
            let line: Vec<String> = o.line.iter().map(|&t| g.engine.show(t)).collect();
            (o.winner, line, o.positions, g.engine.collections())
        };
        let (winner, line, positions, collections) = solve(true);
        let expected = connect(w, h, c, 0, 0, &mut HashMap::new(), Side::B);
        assert_eq!(winner, expected, "Connect-{c} on {w} x {h}");
        assert!(collections > 2, "{w} x {h}: {collections} collections");
        let (winner2, line2, positions2, none) = solve(false);
        assert_eq!(none, 0);
        assert_eq!((winner, line, positions), (winner2, line2, positions2));
    }
}

/// Cells of a Connect position as printed, `(1, 2 | 0)`: B's mask and R's.
fn connect_masks(text: &str) -> (u64, u64) {
    let inner = text.trim_start_matches('(').trim_end_matches(')');
    let (x, o) = inner.split_once('|').expect("a Connect position");
    let mask = |s: &str| {
        s.split(',')
            .map(str::trim)
            .filter(|t| *t != "empty")
            .map(|t| 1u64 << t.parse::<u32>().expect("a cell"))
            .fold(0, |m, b| m | b)
    };
    (mask(x), mask(o))
}

/// `gamelang solve --table-size N`: the outcome search keeps at most N positions and a
/// collection forgets the engine's memo tables past 2N entries. With N tiny (4 on the
/// c = 3 boards, 16) and a collection every few hundred terms, the answers stay: the
/// winner is the brute force's; the line is legal (one stone of the player to move a ply,
/// dropped on its column), keeps the verdict at every position (brute force) and ends the
/// game; a depth-optimal line is the unbounded solve's.
#[test]
fn solving_with_a_tiny_table_keeps_every_answer() {
    let mut forgot = 0;
    for (w, h, c) in [(4, 4, 3), (3, 4, 3), (3, 5, 3), (4, 4, 4)] {
        for budget in [gamelang_game::line::DEFAULT_LINE_BUDGET, 0] {
            if c == 4 && budget > 0 {
                continue; // a draw: the same line of first moves either way
            }
            let solve = |table: usize| {
                let mut g = load("examples/connect.game");
                for (name, v) in [("width", w), ("height", h), ("c", c)] {
                    g.set(name, v);
                }
                g.engine.collect_min_terms = 256;
                let (start, first) = (g.game.start.clone(), g.game.first.clone());
                let memory = gamelang_game::Memory {
                    collect: true,
                    table,
                };
                let o = gamelang_game::solve_in_memory(
                    &mut g.engine,
                    &g.game,
                    &start,
                    &first,
                    budget,
                    memory,
                )
                .unwrap();
                let line: Vec<String> = o.line.iter().map(|&t| g.engine.show(t)).collect();
                (o.winner, line, o.depth_optimal, o.positions)
            };
            let (_, full_line, _, full_positions) = solve(usize::MAX);
            for table in [4, 16].into_iter().filter(|&t| c < 4 || t > 4) {
                let at = format!("Connect-{c} on {w} x {h}, budget {budget}, table {table}");
                let (winner, line, optimal, positions) = solve(table);
                let memo = &mut HashMap::new();
                assert_eq!(winner, connect(w, h, c, 0, 0, memo, Side::B), "{at}");
                if optimal {
                    assert_eq!(line, full_line, "{at}");
                }
                if positions > full_positions {
                    forgot += 1;
                }
                // Each position of the line, from the mover's side, keeps the verdict.
                let mut before = (0u64, 0u64);
                for (ply, text) in line.iter().enumerate() {
                    let (x, o) = connect_masks(text);
                    let (me, mine, theirs) = match ply % 2 {
                        0 => (Side::B, x, o),
                        _ => (Side::R, o, x),
                    };
                    let memo = &mut HashMap::new();
                    assert_eq!(
                        connect(w, h, c, mine, theirs, memo, me),
                        winner,
                        "{at}: {text}"
                    );
                    if ply > 0 {
                        // The stone of the player who moved, on the lowest free cell.
                        let (new, moved) = match ply % 2 {
                            1 => (x ^ before.0, o == before.1 && x & before.0 == before.0),
                            _ => (o ^ before.1, x == before.0 && o & before.1 == before.1),
                        };
                        let cell = new.trailing_zeros() as i32;
                        let under = cell < w || (before.0 | before.1) & 1 << (cell - w) != 0;
                        assert!(moved && new.count_ones() == 1 && under, "{at}: {text}");
                    }
                    before = (x, o);
                }
                // The line ends where play does: a full board, or c in a row.
                let (x, o) = before;
                let full = (x | o).count_ones() as i32 == w * h;
                let row = |s: u64| {
                    (0..w * h).any(|i| {
                        [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                            (0..c).all(|k| {
                                let (x, y) = (i % w + k * dx, i / w + k * dy);
                                (0..w).contains(&x)
                                    && (0..h).contains(&y)
                                    && s & 1 << (y * w + x) != 0
                            })
                        })
                    })
                };
                assert!(
                    full || row(x) || row(o),
                    "{at}: the line stops at {}",
                    line.last().unwrap()
                );
            }
        }
    }
    assert!(
        forgot > 4,
        "{forgot} solves searched forgotten positions again"
    );
}

/// A game's `forced` that names a configuration which is not one of the moves is an error
/// naming it, not a wrong answer.
#[test]
fn a_forced_configuration_that_is_not_a_move_is_an_error() {
    let text = std::fs::read_to_string("examples/nim.game")
        .unwrap()
        .replace(
            "  op next-config : Players Nim -> Set{Nim} .",
            "  op next-config : Players Nim -> Set{Nim} .\n  op forced : Players Nim -> Set{Nim} .",
        )
        .replace(
            "  eq next-config(p, (S)) = from(nil, S) .",
            "  eq next-config(p, (S)) = from(nil, S) .\n  eq forced(p, (S)) = (S 9) .",
        );
    assert!(text.contains("eq forced"));
    let mut g = support::load_source("nim-forced.game", &text);
    let (start, first) = (g.game.start.clone(), g.game.first.clone());
    let e = gamelang_game::solve(&mut g.engine, &g.game, &start, &first).unwrap_err();
    let gamelang_game::SolveError::Game(shown) = e else {
        panic!("{e:?}")
    };
    assert!(
        shown.contains("`forced` gave `(3 4 5 9)`, which is not one of the moves from `(3 4 5)`"),
        "{shown}"
    );
}

#[test]
fn connect_matches_brute_force() {
    for (w, h, c) in [
        (3, 3, 3),
        (3, 4, 3),
        (4, 2, 2),
        (2, 3, 2),
        (2, 2, 3),
        (4, 4, 3),
        (5, 3, 3),
    ] {
        let mut g = load("examples/connect.game");
        for (name, v) in [("width", w), ("height", h), ("c", c)] {
            g.set(name, v);
        }
        // B moves first; the memo is keyed by (mover's stones, other's stones), and whose turn
        // it is follows from the stone counts, so one table serves both players.
        let expected = connect(w, h, c, 0, 0, &mut HashMap::new(), Side::B);
        let o = g.solve("(empty | empty)", "B");
        assert_eq!(o.winner, expected, "Connect-{c} on {w} x {h}");
    }
}

/// Connect's `eval` (move ordering): each stone is worth the lines of c through its cell,
/// each free cell on which a player would make c in a row 16, B's minus R's; the lines and
/// the winning cells counted here cell by cell.
#[test]
fn connect_eval_counts_the_lines_through_each_stone() {
    let mut threats_seen = 0;
    for (w, h, c) in [(7i64, 6i64, 4i64), (5, 4, 3), (4, 4, 4), (4, 4, 2)] {
        let mut g = load("examples/connect.game");
        for (name, v) in [("width", w), ("height", h), ("c", c)] {
            g.set(name, v);
        }
        let lines_through = |i: i64| {
            let (x, y) = (i % w, i / w);
            let on = |x: i64, y: i64| (0..w).contains(&x) && (0..h).contains(&y);
            let mut n = 0;
            for (dx, dy) in [(1, 0), (0, 1), (1, 1), (-1, 1)] {
                // Lines starting k steps back from (x, y).
                n += (0..c)
                    .filter(|&k| (0..c).all(|j| on(x + (j - k) * dx, y + (j - k) * dy)))
                    .count() as i64;
            }
            n
        };
        // B holds the even cells of the lower half, R the odd ones.
        let (xs, os): (Vec<i64>, Vec<i64>) = (0..w * h / 2).partition(|i| i % 2 == 0);
        let on = |x: i64, y: i64| (0..w).contains(&x) && (0..h).contains(&y);
        // Free cells i with c in a row through i once i is added to `stones`.
        let winning_cells = |stones: &[i64]| {
            (0..w * h)
                .filter(|i| !xs.contains(i) && !os.contains(i))
                .filter(|&i| {
                    let (x, y) = (i % w, i / w);
                    [(1, 0), (0, 1), (1, 1), (-1, 1)].iter().any(|&(dx, dy)| {
                        (0..c).any(|k| {
                            (0..c).all(|j| {
                                let (cx, cy) = (x + (j - k) * dx, y + (j - k) * dy);
                                on(cx, cy) && (j == k || stones.contains(&(cy * w + cx)))
                            })
                        })
                    })
                })
                .count() as i64
        };
        let threat = 16 * (winning_cells(&xs) - winning_cells(&os));
        threats_seen += (threat != 0) as usize;
        let expected: i64 = xs.iter().map(|&i| lines_through(i)).sum::<i64>()
            - os.iter().map(|&i| lines_through(i)).sum::<i64>()
            + threat;
        let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let t = g.value(&format!("eval(B, ({} | {}))", list(&xs), list(&os)));
        assert_eq!(
            g.engine.store().int(t),
            Some(expected),
            "{w} x {h}, c = {c}"
        );
        if w == 7 && c == 4 {
            // The classic table's bottom row.
            let row: Vec<i64> = (0..7).map(lines_through).collect();
            assert_eq!(row, [3, 4, 5, 7, 5, 4, 3]);
        }
    }
    assert!(
        threats_seen > 0,
        "no board had winning cells: the test would not see them"
    );
}

/// A Connect board of the test's own: `w` columns, `h` rows, `c` stones in a row to win; a
/// set of stones is a bit mask, cell `y * w + x` (row 0 at the bottom), as in
/// `examples/connect.game`.
struct ConnectBoard {
    w: i32,
    h: i32,
    c: i32,
}

impl ConnectBoard {
    /// `examples/connect.game` set to this board.
    fn load(&self) -> Loaded {
        let mut g = load("examples/connect.game");
        for (name, v) in [("width", self.w), ("height", self.h), ("c", self.c)] {
            g.set(name, v);
        }
        g
    }

    /// Do the stones `s` hold `c` in a row, in any of the four directions?
    fn has_line(&self, s: u64) -> bool {
        let (w, h, c) = (self.w, self.h, self.c);
        (0..w * h).any(|i| {
            let (x0, y0) = (i % w, i / w);
            [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| {
                (0..c).all(|k| {
                    let (x, y) = (x0 + k * dx, y0 + k * dy);
                    x >= 0 && x < w && y >= 0 && y < h && s & (1u64 << (y * w + x)) != 0
                })
            })
        })
    }

    /// The stones `m` written as the game writes a set of cells.
    fn list(&self, m: u64) -> String {
        let cells: Vec<String> = (0..self.w * self.h)
            .filter(|&i| m & (1u64 << i) != 0)
            .map(|i| i.to_string())
            .collect();
        if cells.is_empty() {
            "empty".to_string()
        } else {
            cells.join(", ")
        }
    }
}

/// Connect's `forced` (the moves the solver searches) on random positions, against the rule
/// computed here cell by cell: a move that makes c in a row; else the one onto the
/// opponent's winning cell (the lowest, if several); else the moves not just below one of
/// the opponent's winning cells when some are and some are not; else none (all searched).
#[test]
fn connect_forced_moves_win_block_or_stay_safe() {
    let mut rng = support::Rng(0x5eed_c0ec);
    let mut seen = [0usize; 4];
    for (w, h, c) in [
        (7i32, 6i32, 4i32),
        (5, 4, 3),
        (4, 4, 4),
        (6, 6, 4),
        (3, 5, 2),
        (4, 3, 1),
    ] {
        let board = ConnectBoard { w, h, c };
        let mut g = board.load();
        let n = w * h;
        let bit = |x: i32| 1u64 << x;
        let has_line = |s: u64| board.has_line(s);
        let playable = |taken: u64| -> Vec<i32> {
            (0..w)
                .filter_map(|x| (0..h).map(|y| y * w + x).find(|&i| taken & bit(i) == 0))
                .collect()
        };
        let list = |m: u64| board.list(m);
        for _ in 0..100 {
            // A position reached by random moves, play not over.
            let (mut xs, mut os) = (0u64, 0u64);
            let plies = rng.below(n as u64) as usize;
            for k in 0..plies {
                let free = playable(xs | os);
                let Some(&i) = free.get(rng.below(free.len().max(1) as u64) as usize) else {
                    break;
                };
                let (next_x, next_o) = if k % 2 == 0 {
                    (xs | bit(i), os)
                } else {
                    (xs, os | bit(i))
                };
                if has_line(next_x)
                    || has_line(next_o)
                    || (next_x | next_o).count_ones() as i32 == n
                {
                    break;
                }
                (xs, os) = (next_x, next_o);
            }
            for p in [Side::B, Side::R] {
                let (mine, theirs) = if p == Side::B { (xs, os) } else { (os, xs) };
                let free = playable(xs | os);
                let wins = |s: u64| free.iter().copied().filter(|&i| has_line(s | bit(i))).min();
                let cells: Vec<i32> = if let Some(i) = wins(mine) {
                    seen[0] += 1;
                    vec![i]
                } else if let Some(i) = wins(theirs) {
                    seen[1] += 1;
                    vec![i]
                } else {
                    let safe: Vec<i32> = free
                        .iter()
                        .copied()
                        .filter(|&i| i + w >= n || !has_line(theirs | bit(i + w)))
                        .collect();
                    if safe.is_empty() || safe.len() == free.len() {
                        seen[3] += 1;
                        vec![]
                    } else {
                        seen[2] += 1;
                        safe
                    }
                };
                let mut expected: Vec<(u64, u64)> = cells
                    .iter()
                    .map(|&i| {
                        if p == Side::B {
                            (xs | bit(i), os)
                        } else {
                            (xs, os | bit(i))
                        }
                    })
                    .collect();
                expected.sort();
                let position = format!("({} | {})", list(xs), list(os));
                let t = g.value(&format!("forced({}, {position})", p.name()));
                let mut got: Vec<(u64, u64)> = g
                    .engine
                    .elements(t, g.game.set_union)
                    .into_iter()
                    .map(|b| g.engine.show(b))
                    .filter(|shown| shown != "empty")
                    .map(|shown| {
                        let (x, o) = shown.split_once('|').unwrap();
                        let set = |s: &str| numbers(s).iter().fold(0u64, |m, &i| m | 1 << i);
                        (set(x), set(o))
                    })
                    .collect();
                got.sort();
                assert_eq!(
                    got,
                    expected,
                    "{w} x {h}, c = {c}: forced({}, {position})",
                    p.name()
                );
            }
        }
    }
    // Each of the four cases came up (the safe moves are the rarest: 5 times in 1,200).
    assert!(seen.iter().all(|&k| k > 0), "cases seen: {seen:?}");
}

/// Connect's `halted` (c in a row, found as a stone on one of its own player's winning
/// cells) and `mirror` (columns reversed) on random positions, play over or not, against
/// the lines and the mirror image computed here cell by cell.
#[test]
fn connect_halted_and_mirror_match_the_board_cell_by_cell() {
    let mut rng = support::Rng(0x11e5_0fc4);
    let mut ended = 0;
    for (w, h, c) in [
        (6i32, 6i32, 4i32),
        (5, 4, 3),
        (4, 4, 4),
        (7, 6, 4),
        (3, 5, 2),
        (4, 3, 1),
        (3, 3, 5),
    ] {
        let board = ConnectBoard { w, h, c };
        let mut g = board.load();
        let n = w * h;
        let bit = |x: i32| 1u64 << x;
        let has_line = |s: u64| board.has_line(s);
        let list = |m: u64| board.list(m);
        let flip = |m: u64| {
            (0..n)
                .filter(|&i| m & bit(i) != 0)
                .fold(0u64, |f, i| f | bit(i / w * w + (w - 1 - i % w)))
        };
        for _ in 0..60 {
            // Random moves until play is over, stopped at a random ply (the end included).
            let (mut xs, mut os) = (0u64, 0u64);
            let plies = rng.below(n as u64 + 1) as usize;
            for k in 0..plies {
                let taken = xs | os;
                let free: Vec<i32> = (0..w)
                    .filter_map(|x| (0..h).map(|y| y * w + x).find(|&i| taken & bit(i) == 0))
                    .collect();
                if free.is_empty() || has_line(xs) || has_line(os) {
                    break;
                }
                let i = free[rng.below(free.len() as u64) as usize];
                if k % 2 == 0 {
                    xs |= bit(i)
                } else {
                    os |= bit(i)
                }
            }
            let over = has_line(xs) || has_line(os) || (xs | os).count_ones() as i32 == n;
            ended += usize::from(over);
            let position = format!("({} | {})", list(xs), list(os));
            for p in ["B", "R"] {
                let t = g.value(&format!("halted({p}, {position})"));
                let shown = g.engine.show(t);
                assert_eq!(
                    shown,
                    over.to_string(),
                    "{w} x {h}, c = {c}: halted({p}, {position})"
                );
                let t = g.value(&format!("mirror({p}, {position})"));
                let image = format!("({} | {})", list(flip(xs)), list(flip(os)));
                assert_eq!(
                    g.engine.show(t),
                    image,
                    "{w} x {h}: mirror({p}, {position})"
                );
            }
        }
    }
    // Both kinds came up: positions where play is over and where it goes on.
    assert!(ended > 20 && ended < 400, "{ended} of 420 over");
}

#[test]
fn symmetry_evaluates_each_class_once_and_keeps_the_answers() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tictactoe.game"
    ))
    .unwrap();
    assert!(
        src.contains("symmetry canon ."),
        "the example declares its symmetry"
    );
    let solve = |text: &str| {
        let mut l = support::load_source("tictactoe.game", text);
        gamelang_game::solve(&mut l.engine, &l.game, &l.game.start, &l.game.first).unwrap()
    };
    let with = solve(&src);
    let without = solve(&src.replace("symmetry canon .", ""));
    assert_eq!(with.winner, Verdict::Draw);
    assert_eq!(without.winner, Verdict::Draw);
    assert!(
        with.positions * 3 < without.positions,
        "{} positions with symmetry, {} without",
        with.positions,
        without.positions
    );
    assert_eq!(with.line.len(), without.line.len());
}

#[test]
fn sweeping_a_game_parameter_solves_each_board_size() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("colouring.csv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_gamelang"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "sweep",
            "examples/colouring.game",
            "--from",
            "board(0, 0)",
            "--range",
            "n=2..4",
            "--csv",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut expected =
        String::from("# gamelang sweep: game colouring, --from board(0, 0), --first B\nn,winner\n");
    for n in 2..=4u32 {
        let v = colouring(n, 0, 0, true, &mut HashMap::new());
        let w = match v.signum() {
            1 => "B",
            -1 => "R",
            _ => "draw",
        };
        expected.push_str(&format!("{n},{w}\n"));
    }
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), expected);
}

/// The numbers in a printed configuration such as `board(195, 4)` or `board(1, 4, 5)`.
fn numbers(shown: &str) -> Vec<u64> {
    shown
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

#[test]
fn colouring_and_domineering_lines_are_legal_and_end_as_reported() {
    // Colouring: each step colours a free 2x2 square (Benny) or a free cell (Rebecca), and
    // the final score has the sign of the reported winner.
    for n in 3..=4u32 {
        let mut g = load("examples/colouring.game");
        g.set("n", n);
        let o = g.solve("board(0, 0)", "B");
        let boards: Vec<(u64, u64)> = o
            .line
            .iter()
            .map(|&c| {
                let v = numbers(&g.engine.show(c));
                (v[0], v[1])
            })
            .collect();
        for (k, w) in boards.windows(2).enumerate() {
            let ((b0, r0), (b1, r1)) = (w[0], w[1]);
            let free = !(b0 | r0);
            if k % 2 == 0 {
                let added = b1 ^ b0;
                let square = (0..n - 1)
                    .flat_map(|r| (0..n - 1).map(move |c| r * n + c))
                    .any(|i| added == (1 << i) | 1 << (i + 1) | 1 << (i + n) | 1 << (i + n + 1));
                assert!(
                    r1 == r0 && b1 & b0 == b0 && added & free == added && square,
                    "illegal Benny move on {n}x{n}"
                );
            } else {
                let added = r1 ^ r0;
                assert!(
                    b1 == b0 && added.count_ones() == 1 && added & free == added,
                    "illegal Rebecca move on {n}x{n}"
                );
            }
        }
        let (blue, _) = *boards.last().unwrap();
        let score = 2 * blue.count_ones() as i64 - (n * n) as i64;
        let expected = match score.signum() {
            1 => Verdict::Win(Side::B),
            -1 => Verdict::Win(Side::R),
            _ => Verdict::Draw,
        };
        assert_eq!(
            o.winner, expected,
            "the line of the {n}x{n} game ends with the reported result"
        );
    }
    // Domineering: each step places one domino of the mover's orientation on free cells; the
    // player to move at the end cannot move and is the loser.
    for (rows, cols) in [(2u64, 3u64), (3, 3), (2, 4)] {
        let mut g = load("examples/domineering.game");
        g.set("rows", rows);
        g.set("cols", cols);
        for first in [Side::B, Side::R] {
            let o = g.solve("board(empty)", first.name());
            let covered: Vec<Vec<u64>> =
                o.line.iter().map(|&c| numbers(&g.engine.show(c))).collect();
            for (k, w) in covered.windows(2).enumerate() {
                let new: Vec<u64> = w[1].iter().copied().filter(|x| !w[0].contains(x)).collect();
                assert_eq!(new.len(), 2, "one domino per move");
                let vertical = o.mover(k + 1) == Side::B;
                let (a, b) = (new[0].min(new[1]), new[0].max(new[1]));
                let ok = if vertical {
                    b == a + cols
                } else {
                    b == a + 1 && a % cols != cols - 1
                };
                assert!(
                    ok,
                    "{rows}x{cols}: illegal domino {a},{b} for {}",
                    o.mover(k + 1).name()
                );
            }
            let last: u64 = covered.last().unwrap().iter().fold(0, |m, &i| m | 1 << i);
            let stuck = o.mover(o.line.len());
            assert!(
                !domineering(
                    rows as u32,
                    cols as u32,
                    last,
                    stuck == Side::B,
                    &mut HashMap::new()
                ),
                "the last player to move has no move"
            );
            assert_eq!(
                o.winner,
                Verdict::Win(stuck.opponent()),
                "{rows}x{cols}, {} first",
                first.name()
            );
        }
    }
}

#[test]
fn connect_lines_are_legal_and_end_as_reported() {
    let (w, h, c) = (3i32, 4i32, 3i32);
    let mut g = load("examples/connect.game");
    for (name, v) in [("width", w), ("height", h), ("c", c)] {
        g.set(name, v);
    }
    for from in ["(empty | empty)", "(1 | 0)", "(0, 1 | 3, 4)"] {
        let o = g.solve(from, "B");
        // (X | O) as two bit sets.
        let boards: Vec<(u64, u64)> = o
            .line
            .iter()
            .map(|&t| {
                let shown = g.engine.show(t);
                let (x, y) = shown
                    .trim_matches(|ch| ch == '(' || ch == ')')
                    .split_once('|')
                    .unwrap();
                let set = |s: &str| numbers(s).iter().fold(0u64, |m, &i| m | 1 << i);
                (set(x), set(y))
            })
            .collect();
        for (k, pair) in boards.windows(2).enumerate() {
            let (x0, o0) = pair[0];
            let (x1, o1) = pair[1];
            let b_moves = o.mover(k + 1) == Side::B;
            let added = if b_moves { x1 ^ x0 } else { o1 ^ o0 };
            assert_eq!(
                if b_moves { o1 } else { x1 },
                if b_moves { o0 } else { x0 },
                "only the mover's stones change"
            );
            assert_eq!(added.count_ones(), 1, "one stone per move");
            let i = added.trailing_zeros() as i32;
            let below_filled = i < w || (x0 | o0) & (1 << (i - w)) != 0;
            assert!(
                (x0 | o0) & added == 0 && below_filled,
                "{from}: stone at {i} does not rest on the bottom or a stone"
            );
        }
        // The end: the position is decided as reported (a line of c for the winner, or full).
        let (x, y) = *boards.last().unwrap();
        let mover = o.mover(o.line.len());
        let (mine, theirs) = if mover == Side::B { (x, y) } else { (y, x) };
        let end = connect(w, h, c, mine, theirs, &mut HashMap::new(), mover);
        assert_eq!(
            end, o.winner,
            "{from}: the line ends with the reported result"
        );
    }
}

#[test]
fn the_seeds_order_as_a_symmetry_of_the_heaps_game_keeps_every_answer() {
    // Seed 003 orders heap pairs (a <= b) to halve the work; declared as a symmetry, the
    // solver sees ordered pairs only, and every answer must stay the brute force's.
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/heaps.game"))
        .unwrap();
    let at = src.rfind("endfm").unwrap();
    let src = format!(
        "{}  op order : TwoHeaps -> TwoHeaps .\n  eq order((a b)) = if a <= b then (a b) else (b a) fi .\n{}",
        &src[..at],
        &src[at..]
    )
    .replace("  first R .\nendgame", "  first R .\n  symmetry order .\nendgame");
    let support::Loaded {
        session: mut s,
        game: g,
        mut engine,
    } = support::load_source("heaps-symmetric.game", &src);
    let mut memo = HashMap::new();
    for k in 0..=15u64 {
        for n in 0..=15u64 {
            let start = s
                .parse_term(g.module, "test", &format!("({k} {n})"), Some(g.config_sort))
                .unwrap();
            let o = gamelang_game::solve(&mut engine, &g, &start, &g.first).unwrap();
            let expected = if support::heaps::mover_wins(k, n, &mut memo) {
                Side::R
            } else {
                Side::B
            };
            assert_eq!(o.winner, Verdict::Win(expected), "({k} {n})");
        }
    }
}
