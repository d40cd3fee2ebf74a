//! End to end: the generic win/lose solver, written as equations, on a subtraction game,
//! checked against a direct brute force.

mod common;
use common::*;

/// "Take m ∈ moves from n (m ≤ n); the player who cannot move loses."
fn subtraction_game(moves: &[i64]) -> Spec {
    let mut s = Spec::new();
    s.op("R", &[], "Player", "ctor");
    s.op("B", &[], "Player", "ctor");
    s.set_of("Nat", "CSet");
    s.op("moves", &[], "CSet", "");
    let set = moves
        .iter()
        .rev()
        .fold("empty".to_string(), |acc, m| format!("[_,_ {m} {acc}]"));
    s.eq("", "moves", &set);
    s.op("opts", &["Nat", "CSet"], "CSet", "");
    s.eq("n:Nat", "[opts n empty]", "empty");
    s.ceq(
        "n:Nat m:Nat S:CSet",
        "[opts n [_,_ m S]]",
        "[_,_ [_-_ n m] [opts n S]]",
        "[_<=_ m n]",
    );
    s.owise("n:Nat m:Nat S:CSet", "[opts n [_,_ m S]]", "[opts n S]");
    s.op("next-config", &["Player", "Nat"], "CSet", "");
    s.eq("p:Player n:Nat", "[next-config p n]", "[opts n moves]");
    s.op("halted", &["Player", "Nat"], "Bool", "");
    s.eq(
        "p:Player n:Nat",
        "[halted p n]",
        "[_==_ [next-config p n] empty]",
    );
    s.op("won", &["Player", "Nat"], "Bool", "");
    s.eq(
        "p:Player c:Nat",
        "[won p c]",
        "[_and_ [_==_ p B] [halted p c]]",
    );
    // the generic solver
    s.op("w", &["Player", "Nat"], "Bool", "memo");
    s.op("w-aux", &["Player", "CSet"], "Bool", "");
    s.ceq("p:Player c:Nat", "[w p c]", "[won p c]", "[halted p c]");
    s.ceq(
        "c:Nat",
        "[w R c]",
        "[w-aux B [next-config R c]]",
        "[not_ [halted R c]]",
    );
    s.ceq(
        "c:Nat",
        "[w B c]",
        "[w-aux R [next-config B c]]",
        "[not_ [halted B c]]",
    );
    s.eq("", "[w-aux R empty]", "true");
    s.eq(
        "c:Nat S:CSet",
        "[w-aux R [_,_ c S]]",
        "[_and-then_ [w R c] [w-aux R S]]",
    );
    s.eq("", "[w-aux B empty]", "false");
    s.eq(
        "c:Nat S:CSet",
        "[w-aux B [_,_ c S]]",
        "[_or-else_ [w B c] [w-aux B S]]",
    );
    s
}

/// `win[p][n]`: R has a winning strategy from `n` with `p` to move (0 = R, 1 = B).
fn brute_force(moves: &[i64], max: usize) -> [Vec<bool>; 2] {
    let mut win = [vec![false; max + 1], vec![false; max + 1]];
    for n in 0..=max {
        let succ: Vec<usize> = moves
            .iter()
            .filter(|&&m| m as usize <= n)
            .map(|&m| n - m as usize)
            .collect();
        if succ.is_empty() {
            win[0][n] = false; // R to move, cannot move: R loses
            win[1][n] = true;
        } else {
            win[0][n] = succ.iter().any(|&c| win[1][c]);
            win[1][n] = succ.iter().all(|&c| win[0][c]);
        }
    }
    win
}

#[allow(clippy::needless_range_loop)]
fn check(moves: &[i64], max: usize) {
    let s = subtraction_game(moves);
    let want = brute_force(moves, max);
    let mut shared = s.engine();
    for n in 0..=max {
        for (pi, p) in ["R", "B"].iter().enumerate() {
            let src = format!("[w {p} {n}]");
            // a fresh engine and one whose memo tables accumulate
            let mut fresh = s.engine();
            let expect = if want[pi][n] { "true" } else { "false" };
            assert_eq!(red(&s, &mut fresh, &src), expect, "{moves:?} {src}");
            assert_eq!(
                red(&s, &mut shared, &src),
                expect,
                "{moves:?} {src} (shared)"
            );
        }
    }
    assert!(shared.memo_len(s.id("w")) >= 2 * max);
}

#[test]
fn take_one_or_two() {
    check(&[1, 2], 40);
    let want = brute_force(&[1, 2], 40);
    for (n, &r_wins) in want[0].iter().enumerate() {
        assert_eq!(r_wins, n % 3 != 0);
    }
}

#[test]
fn take_one_three_or_four() {
    check(&[1, 3, 4], 40);
}

#[test]
fn long_game_is_deep_but_fine() {
    let s = subtraction_game(&[1, 2]);
    let mut e = s.engine();
    assert_eq!(red(&s, &mut e, "[w R 30000]"), "false");
    assert_eq!(red(&s, &mut e, "[w R 30001]"), "true");
}

/// Rough throughput measure: `cargo test --release -p gamelang-runtime --test game -- --ignored --nocapture`.
#[test]
#[ignore]
fn bench_subtraction_game() {
    for (moves, n) in [
        (&[1i64, 2][..], 300_000usize),
        (&[1, 3, 4, 7, 11, 13, 17, 19, 23, 29][..], 100_000),
    ] {
        let s = subtraction_game(moves);
        let mut e = s.engine();
        let start = std::time::Instant::now();
        let r = red(&s, &mut e, &format!("[w R {n}]"));
        let el = start.elapsed().as_secs_f64();
        println!(
            "moves {moves:?} n={n}: {r} in {el:.3}s, {} steps, {:.1} M steps/s, {} terms",
            e.steps(),
            e.steps() as f64 / el / 1e6,
            e.store().len()
        );
    }
}
