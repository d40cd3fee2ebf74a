//! The board on its own: cells set and read back, the packed words, the compact and drawn
//! forms, and the moves of an action, checked against boards written out by hand.

use gamelang_board::{holds, Action, Atom, Board, Compiled, Coord, Piece};

fn atom(piece: Piece, x: i64, y: i64, negated: bool) -> Atom {
    Atom {
        piece,
        x: Coord::Rel(x),
        y: Coord::Rel(y),
        negated,
    }
}

#[test]
fn cells_read_back_through_every_form() {
    let mut b = Board::new(3, 2).unwrap();
    b.set(1, 1, Piece::Black);
    b.set(3, 2, Piece::White);
    assert_eq!(b.get(1, 1), Piece::Black);
    assert_eq!(b.get(2, 1), Piece::Open);
    assert_eq!(b.compact(), "x../..o");
    assert_eq!(Board::parse("x../..o").unwrap(), b);
    let again = Board::from_words(3, 2, b.words().to_vec()).unwrap();
    assert_eq!(again, b);
    // Six cells fit one word: two words are not a 3 x 2 board.
    assert!(Board::from_words(3, 2, vec![(0, 0), (0, 0)]).is_none());
    assert_eq!(b.draw(), "    a b c\n  1 x . .\n  2 . . o\n");
}

#[test]
fn a_drop_action_moves_to_every_open_cell() {
    // "Put a black stone on an open cell": one move per open cell, in row order.
    let drop = Action {
        name: "drop".into(),
        pre: vec![atom(Piece::Open, 0, 0, false)],
        eff: vec![atom(Piece::Black, 0, 0, false)],
        captures: Default::default(),
    };
    let b = Board::parse(".o/x.").unwrap();
    let moves = Compiled::new(vec![drop], 2, 2).unwrap().successors(&b);
    let got: Vec<(i64, i64, String)> = moves
        .into_iter()
        .map(|(_, i, j, next)| (i, j, next.compact()))
        .collect();
    assert_eq!(
        got,
        vec![(1, 1, "xo/x.".to_string()), (2, 2, ".o/xx".to_string())]
    );
    // A goal "two black stones in a column" holds after the first move only.
    let column = vec![vec![
        atom(Piece::Black, 0, 0, false),
        atom(Piece::Black, 0, 1, false),
    ]];
    assert!(holds(&Board::parse("xo/x.").unwrap(), &column));
    assert!(!holds(&Board::parse(".o/xx").unwrap(), &column));
}
