//! DepQBF's answers on the encoding of corpus problems at small depths agree with the
//! brute force of the recursion, and the decoded first moves are legal and winning.

mod common;

use common::{check, load};

fn run(name: &str, depths: std::ops::RangeInclusive<u32>) -> Vec<bool> {
    let m = load(name);
    depths.map(|d| check(name, &m, d)).collect()
}

#[test]
fn domineering() {
    run("domineering/2x2_2.ig", 1..=4);
    run("domineering/2x3_4.ig", 1..=4);
    run("domineering/3x3_4.ig", 1..=4);
}

#[test]
fn httt() {
    run("httt/3x3_3_domino.ig", 1..=5);
    run("httt/3x3_5_el.ig", 1..=5);
}

#[test]
fn connect() {
    run("connect-c/2x2_3_connect2.ig", 1..=3);
    run("connect-c/3x3_3_connect2.ig", 1..=3);
}

#[test]
fn breakthrough_second_player() {
    run("breakthrough-second-player/2x4_8.ig", 1..=9);
}

#[test]
fn evader_pursuer() {
    run("evader_pursuer/4x4_3_e-4-1_p-2-3.ig", 1..=3);
    run("evader_pursuer_dual/4x4_2_e-4-1_p-1-2.ig", 1..=3);
}

#[test]
fn more_corpus() {
    run("httt/3x3_9_tic.ig", 1..=5);
    run("connect-c/3x3_9_connect3.ig", 1..=5);
    run("breakthrough/2x4_13.ig", 1..=7);
    run("domineering/4x2_5.ig", 1..=5);
    run("evader_pursuer_dual/4x4_10_e-4-1_p-2-3.ig", 1..=4);
    run("hex/hein_09_4x4-05.pg", 1..=7);
}

/// Evader-Pursuer 4x4 with the pursuer at (1,2): Black never wins, even at the depth of
/// the file name (21): White's pursuer may step onto Black's piece.
#[test]
fn evader_pursuer_deep() {
    let m = load("evader_pursuer/4x4_21_e-4-1_p-1-2.ig");
    for d in [5, 9, 21] {
        assert!(!check("evader_pursuer/4x4_21", &m, d));
    }
}

#[test]
fn hex() {
    run("hex/hein_04_3x3-03.pg", 1..=5);
    run("hex/hein_04_3x3-05.pg", 1..=5);
}
