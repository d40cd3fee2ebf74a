//! The key the searches' history heuristic knows a move by (`gamelang_game::movekey`): the
//! same move made at two positions has one key, different moves at one position have
//! different keys. Checked on Domineering (a board is the set of covered cells, a move
//! covers two more) and the colouring game (bit masks), against the moves' cells computed
//! here from the terms' elements.

mod support;
use gamelang_game::movekey::move_key;
use gamelang_game::{GameDriver, Side};
use gamelang_runtime::TermId;
use std::collections::BTreeSet;
use support::load;

/// What the move from `a` to `b` added: for Domineering, the cells (the set's elements);
/// for colouring, the bits set in each mask.
fn added(l: &support::Loaded, a: TermId, b: TermId) -> String {
    let s = l.engine.store();
    let show = |t: TermId| l.engine.show(t);
    let (xa, xb) = (s.args(a), s.args(b));
    match (
        xa.iter().map(|&t| s.int(t)).collect::<Option<Vec<_>>>(),
        xb.iter().map(|&t| s.int(t)).collect::<Option<Vec<_>>>(),
    ) {
        (Some(ia), Some(ib)) => format!(
            "{:?}",
            ia.iter().zip(&ib).map(|(x, y)| x ^ y).collect::<Vec<_>>()
        ),
        _ => {
            let cells = |t: TermId| -> BTreeSet<String> {
                show(t)
                    .trim_start_matches("board(")
                    .trim_end_matches(')')
                    .split(", ")
                    .filter(|c| *c != "empty")
                    .map(str::to_string)
                    .collect()
            };
            format!("{:?}", cells(b).difference(&cells(a)).collect::<Vec<_>>())
        }
    }
}

fn check(file: &str, sets: &[(&str, i64)]) {
    let mut l = load(file);
    for (name, value) in sets {
        l.set(name, value);
    }
    let game = l.game.clone();
    let d = GameDriver::new(&mut l.engine, &game).unwrap();
    let start = l.engine.build(&game.start, &[]);
    let start = l.engine.reduce(start).unwrap();
    // Positions: the start and those after one move of each player; at each, every move.
    let mut positions = vec![start];
    for p in [Side::B, Side::R] {
        positions.extend(d.moves(&mut l.engine, p, start).unwrap());
    }
    let mut by_key: std::collections::HashMap<(Side, u64), String> = Default::default();
    let mut same = 0;
    for &c in &positions {
        for p in [Side::B, Side::R] {
            let mut here = BTreeSet::new();
            for m in d.moves(&mut l.engine, p, c).unwrap() {
                let key = move_key(l.engine.store(), c, m);
                let what = added(&l, c, m);
                assert!(
                    here.insert(key),
                    "{file}: two moves of {p:?} at one position share a key"
                );
                match by_key.get(&(p, key)) {
                    Some(w) => {
                        assert_eq!(w, &what, "{file}: one key for two different moves");
                        same += 1;
                    }
                    None => {
                        by_key.insert((p, key), what);
                    }
                }
            }
        }
    }
    // The same moves recur at other positions, under the same key.
    assert!(same > 20, "{file}: {same} recurring moves");
    let distinct: BTreeSet<&String> = by_key.values().collect();
    assert_eq!(distinct.len(), by_key.len(), "{file}: one move, two keys");
}

#[test]
fn a_move_has_one_key_wherever_it_is_made() {
    check("examples/domineering.game", &[]);
    check("examples/colouring.game", &[("n", 4)]);
}
