//! The standard library's A* (`ASTAR{X :: SEARCH-GRAPH}` in stdlib/paths.game) against a
//! breadth-first search written here: on random graphs (no heuristic) and on random grids
//! with walls (the heuristic "rows left to the goal row", which is consistent), `dist(n)` of
//! every node is the length of a shortest path to a goal, or -1 when none can be reached.

mod support;

use gamelang_lang::elab::Session;
use gamelang_runtime::Engine;
use std::collections::VecDeque;
use std::fmt::Write;
use std::sync::Arc;
use support::Rng;

/// Shortest distances to any goal, by BFS from every node (`None`: no goal reachable).
fn bfs(adj: &[Vec<usize>], goal: &[bool]) -> Vec<Option<usize>> {
    (0..adj.len())
        .map(|s| {
            let mut seen = vec![false; adj.len()];
            let mut queue = VecDeque::from([(s, 0)]);
            seen[s] = true;
            while let Some((v, d)) = queue.pop_front() {
                if goal[v] {
                    return Some(d);
                }
                for &w in &adj[v] {
                    if !seen[w] {
                        seen[w] = true;
                        queue.push_back((w, d + 1));
                    }
                }
            }
            None
        })
        .collect()
}

/// The graph as a module `G` (nodes are naturals), its view to SEARCH-GRAPH and `T` = ASTAR{GNav};
/// `h` is the heuristic's equation.
fn module(adj: &[Vec<usize>], goal: &[bool], h: &str) -> String {
    let mut s = String::from(
        "fmod G is\n  protecting INT .\n  protecting SET{Nat} .\n  op neighbours : Nat -> Set{Nat} .\n  \
         op goal : Nat -> Bool .\n  op h : Nat -> Nat .\n  var n : Nat .\n",
    );
    for (v, ws) in adj.iter().enumerate() {
        let set = if ws.is_empty() {
            "empty".to_string()
        } else {
            ws.iter()
                .map(|w| w.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(s, "  eq neighbours({v}) = {set} .").unwrap();
    }
    let goals: Vec<String> = (0..adj.len())
        .filter(|&v| goal[v])
        .map(|v| format!("n == {v}"))
        .collect();
    let goals = if goals.is_empty() {
        "false".to_string()
    } else {
        goals.join(" or ")
    };
    writeln!(s, "  eq goal(n) = {goals} .\n  {h}\nendfm").unwrap();
    s.push_str(
        "view GNav from SEARCH-GRAPH to G is\n  sort Node to Nat .\n  sort SetNode to Set{Nat} .\nendv\n\
         fmod T is\n  protecting ASTAR{GNav} .\nendfm\n",
    );
    s
}

/// `dist(v)` of every node, reduced by gamelang.
fn gamelang_dists(text: &str, nodes: usize) -> Vec<i64> {
    let mut session = Session::new().expect("stdlib");
    if let Err(e) = session.load_source("graph.game", text) {
        panic!(
            "{}\n{text}",
            gamelang_lang::diag::render_all(&e, &session.sources, false)
        );
    }
    let m = session.module_by_name("T").expect("module T");
    let pats: Vec<_> = (0..nodes)
        .map(|v| {
            session
                .parse_term(m, "test", &format!("dist({v})"), None)
                .unwrap_or_else(|d| panic!("{}", d.render(&session.sources, false)))
        })
        .collect();
    let mut engine = Engine::new(Arc::new(session.program.clone()));
    pats.iter()
        .map(|p| {
            let t = engine.build(p, &[]);
            let v = engine
                .reduce(t)
                .unwrap_or_else(|e| panic!("{}", engine.describe(&e)));
            engine.store().int(v).expect("dist is an integer")
        })
        .collect()
}

fn expected(adj: &[Vec<usize>], goal: &[bool]) -> Vec<i64> {
    bfs(adj, goal)
        .into_iter()
        .map(|d| d.map_or(-1, |d| d as i64))
        .collect()
}

#[test]
fn dist_is_the_bfs_distance_on_random_graphs() {
    let mut rng = Rng(0x5eed_0004);
    let mut unreachable = 0;
    for round in 0..12 {
        let n = 8 + rng.below(20) as usize;
        let adj: Vec<Vec<usize>> = (0..n)
            .map(|_| {
                let k = rng.below(4);
                let mut ws: Vec<usize> = (0..k).map(|_| rng.below(n as u64) as usize).collect();
                ws.sort();
                ws.dedup();
                ws
            })
            .collect();
        let goal: Vec<bool> = (0..n).map(|_| rng.below(6) == 0).collect();
        let want = expected(&adj, &goal);
        unreachable += want.iter().filter(|&&d| d < 0).count();
        let got = gamelang_dists(&module(&adj, &goal, "eq h(n) = 0 ."), n);
        assert_eq!(got, want, "round {round}: graph {adj:?}, goals {goal:?}");
    }
    // The graphs exercise both answers.
    assert!(unreachable > 0);
}

#[test]
fn dist_with_a_consistent_heuristic_on_grids_with_walls() {
    let mut rng = Rng(0xa57a_2026);
    for round in 0..8 {
        let (w, h) = (3 + rng.below(5) as usize, 3 + rng.below(5) as usize);
        let cell = |x: usize, y: usize| y * w + x;
        let mut adj = vec![Vec::new(); w * h];
        // Each edge between neighbouring cells is open with probability 3/4.
        for y in 0..h {
            for x in 0..w {
                if x + 1 < w && rng.below(4) != 0 {
                    adj[cell(x, y)].push(cell(x + 1, y));
                    adj[cell(x + 1, y)].push(cell(x, y));
                }
                if y + 1 < h && rng.below(4) != 0 {
                    adj[cell(x, y)].push(cell(x, y + 1));
                    adj[cell(x, y + 1)].push(cell(x, y));
                }
            }
        }
        // The goal is the last row; h = rows left to it.
        let goal: Vec<bool> = (0..w * h).map(|v| v / w == h - 1).collect();
        let heur = format!("eq h(n) = {} - n quo {w} .", h - 1);
        let want = expected(&adj, &goal);
        let got = gamelang_dists(&module(&adj, &goal, &heur), w * h);
        assert_eq!(got, want, "round {round}: {w}x{h} grid {adj:?}");
    }
}
