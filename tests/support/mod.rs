//! What several test files need: independent brute-force solvers of the games, written from
//! the rules (never from gamelang or from a formula).
// Each test file uses some of these helpers; the rest would be dead code in that file.
#![allow(dead_code)]

/// The two-heaps game of seed 003: take a positive multiple of either heap's size from one
/// heap; whoever cannot move (at (0 0)) has lost.
pub mod heaps {
    use std::collections::HashMap;

    /// The positions one move away from (k n), sorted, without repeats.
    pub fn moves(k: u64, n: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        for d in [k, n] {
            if d == 0 {
                continue;
            }
            let mut take = d;
            while take <= k {
                out.push((k - take, n));
                take += d;
            }
            let mut take = d;
            while take <= n {
                out.push((k, n - take));
                take += d;
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Does the player to move at (k n) win?
    pub fn mover_wins(k: u64, n: u64, memo: &mut HashMap<(u64, u64), bool>) -> bool {
        if let Some(&v) = memo.get(&(k, n)) {
            return v;
        }
        let v = moves(k, n)
            .into_iter()
            .any(|(a, b)| !mover_wins(a, b, memo));
        memo.insert((k, n), v);
        v
    }
}
