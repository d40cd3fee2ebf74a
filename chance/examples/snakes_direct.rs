//! Snakes and Ladders written directly against `ChanceModel` (no rewriting engine), to
//! measure the solver alone: `cargo run --release -p gamelang-chance --example
//! snakes_direct -- PLAYERS [exact]`. Same rules as `examples/snakes-ladders.game`.
//! With `exact`, the exact solver (`--exact`): the two-seat game's lifting, measured
//! without the engine.

use gamelang_chance::model::{ChanceError, ChanceModel, Node, Opt};
use gamelang_chance::Prob;
use std::time::Instant;

fn jump(x: u8) -> u8 {
    match x {
        1 => 38,
        4 => 14,
        9 => 31,
        21 => 42,
        28 => 84,
        36 => 44,
        51 => 67,
        71 => 91,
        80 => 100,
        16 => 6,
        47 => 26,
        49 => 11,
        56 => 53,
        62 => 19,
        64 => 60,
        87 => 24,
        93 => 73,
        95 => 75,
        98 => 78,
        _ => x,
    }
}

struct Snakes {
    players: usize,
}

impl ChanceModel for Snakes {
    type State = ([u8; 4], u8);
    type Choice = ();
    fn players(&mut self) -> Result<Vec<String>, ChanceError> {
        Ok((1..=self.players).map(|i| format!("p{i}")).collect())
    }
    fn start(&mut self) -> Result<Self::State, ChanceError> {
        Ok(([0; 4], 0))
    }
    fn expand(&mut self, (pos, turn): Self::State) -> Result<Node<Self::State, ()>, ChanceError> {
        if let Some(w) = pos.iter().position(|&x| x == 100) {
            return Ok(Node::Final { winners: vec![w] });
        }
        let mut outcomes: Vec<(Prob, Self::State)> = Vec::new();
        for d in 1..=6u8 {
            let mut p = pos;
            let t = p[turn as usize] + d;
            if t <= 100 {
                p[turn as usize] = jump(t);
            }
            let next = ((turn as usize + 1) % self.players) as u8;
            let s = (p, next);
            match outcomes.iter_mut().find(|(_, x)| *x == s) {
                Some((q, _)) => *q += &Prob::ratio(1, 6),
                None => outcomes.push((Prob::ratio(1, 6), s)),
            }
        }
        Ok(Node::Turn {
            player: turn as usize,
            options: vec![Opt {
                choice: (),
                outcomes,
            }],
        })
    }
    fn score(&mut self, _s: Self::State) -> Result<Option<Vec<i64>>, ChanceError> {
        Ok(None)
    }
    fn show_state(&self, s: Self::State) -> String {
        format!("{s:?}")
    }
    fn show_choice(&self, _c: &()) -> String {
        "throw".into()
    }
}

fn main() {
    let players: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("PLAYERS"))
        .unwrap_or(3);
    let t = Instant::now();
    let mut m = Snakes { players };
    let g = gamelang_chance::graph::explore(&mut m, false, usize::MAX).expect("explore");
    let explored = t.elapsed();
    let exact = std::env::args().nth(2).as_deref() == Some("exact");
    let opts = gamelang_chance::solve::Options {
        exactness: if exact {
            gamelang_chance::solve::Exactness::Exact
        } else {
            gamelang_chance::solve::Exactness::Float
        },
        ..Default::default()
    };
    let t = Instant::now();
    let sol = gamelang_chance::solve::solve(&g, &opts).expect("solve");
    println!(
        "{} states, explored in {:.3} s, solved in {:.3} s: {:?} {:?}",
        g.len(),
        explored.as_secs_f64(),
        t.elapsed().as_secs_f64(),
        sol.value,
        sol.method
    );
    if let Some(x) = &sol.exact {
        for q in x {
            println!(
                "exact: {} / {} digits",
                q.numer().to_string().len(),
                q.denom().to_string().len()
            );
        }
    }
}
