//! Domineering (`examples/domineering.game`): Vertical (B) and Horizontal (R) place
//! dominoes on empty cells; the player to move who cannot has lost.

use super::Game;

#[derive(Clone)]
pub struct Domineering {
    vertical: Vec<u64>,
    horizontal: Vec<u64>,
}

/// Whose turn (true: Vertical) and the covered cells.
pub type Pos = (bool, u64);

impl Domineering {
    pub fn new(rows: u32, cols: u32) -> Domineering {
        let cell = |r: u32, c: u32| 1u64 << (r * cols + c);
        let mut vertical = Vec::new();
        let mut horizontal = Vec::new();
        // Central placements first: they tend to be the strong ones.
        let mut cells: Vec<(u32, u32)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .collect();
        let centre = |&(r, c): &(u32, u32)| {
            (2 * r as i32 - rows as i32 + 1).abs() + (2 * c as i32 - cols as i32 + 1).abs()
        };
        cells.sort_by_key(centre);
        for (r, c) in cells {
            if r + 1 < rows {
                vertical.push(cell(r, c) | cell(r + 1, c));
            }
            if c + 1 < cols {
                horizontal.push(cell(r, c) | cell(r, c + 1));
            }
        }
        Domineering {
            vertical,
            horizontal,
        }
    }

    pub fn start(&self, vertical_first: bool) -> Pos {
        (vertical_first, 0)
    }
}

impl Game for Domineering {
    type Pos = Pos;

    fn children(&self, &(vertical, covered): &Pos, out: &mut Vec<Pos>) {
        let dominoes = if vertical {
            &self.vertical
        } else {
            &self.horizontal
        };
        out.extend(
            dominoes
                .iter()
                .filter(|&&d| covered & d == 0)
                .map(|&d| (!vertical, covered | d)),
        );
    }

    fn final_score(&self, _: &Pos) -> i32 {
        -1
    }
}
