//! Agent specifications as users write them: `NAME` or `NAME:N` (one number, the agent's
//! strength), e.g. `random`, `alphabeta:3`, `mcts:1000`. `gamelang agents` prints
//! [`CATALOGUE`].

use crate::agent::Agent;
use crate::rng::Rng;
use crate::{alphabeta, mcts, simple};
use std::fmt;

/// One agent and its option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AgentSpec {
    Random,
    SemiRandom,
    AlphaBeta { depth: u32 },
    Mcts { simulations: u32 },
    AStar,
    Exact,
}

/// What `gamelang agents` lists: the spelling, then what the agent does.
pub const CATALOGUE: &[(&str, &str)] = &[
    (
        "random",
        "a move chosen uniformly at random (seed 004 §4.1.1)",
    ),
    (
        "semi-random",
        "a random move among the game's `randomizable` moves and the `astar` move (seed 004 \
         §4.1.2); a random move when the game declares no `randomizable`",
    ),
    (
        "alphabeta:D",
        "minimax with alpha-beta pruning to depth D plies, iterative deepening and a \
         transposition table; leaves scored by the game's `eval` (counted for B), or 0 when it \
         has none (then only forced wins and losses count). With more than two players: \
         paranoid search (the others play together against the one deciding); a chance move \
         is worth the expectation of its outcomes",
    ),
    (
        "mcts:N",
        "Monte Carlo tree search, N simulations from the position, UCT with exploration \
         constant c = 1.4 (about sqrt 2), one random playout per simulation (1 to each winner, \
         0 to the others, 1/n each when nobody wins); plays the most visited move. Each player \
         maximises its own reward (max-n, any number of players); chance outcomes are drawn \
         by their probabilities",
    ),
    (
        "astar",
        "the move that brings its own `goal-distance` lowest (seed 004's A* agent; games that \
         declare `goal-distance`, e.g. Quoridor by the standard library's A*)",
    ),
    (
        "exact",
        "the solver's move: a winning move if there is one, else a drawing one (exhaustive \
         search; games small enough to solve); on a chance game the move of highest \
         probability of winning by the chance solver (max-n)",
    ),
];

impl AgentSpec {
    /// Parse `NAME` or `NAME:N`.
    pub fn parse(text: &str) -> Result<AgentSpec, String> {
        let (name, arg) = match text.split_once(':') {
            Some((n, a)) => (n.trim(), Some(a.trim())),
            None => (text.trim(), None),
        };
        let number = |what: &str| -> Result<u32, String> {
            let Some(a) = arg else {
                return Err(format!("`{name}` needs {what}: write `{name}:N`"));
            };
            match a.parse::<u32>() {
                Ok(n) if n > 0 => Ok(n),
                // A whole number, only too large for one.
                _ if !a.is_empty()
                    && a.bytes().all(|b| b.is_ascii_digit())
                    && !a.trim_start_matches('0').is_empty() =>
                {
                    Err(format!(
                        "`{text}`: {what} must be at most {}, not `{a}`",
                        u32::MAX
                    ))
                }
                _ => Err(format!(
                    "`{text}`: {what} must be a positive whole number, not `{a}`"
                )),
            }
        };
        let none = |spec: AgentSpec| -> Result<AgentSpec, String> {
            match arg {
                None => Ok(spec),
                Some(a) => Err(format!("`{name}` takes no option (`:{a}`)")),
            }
        };
        match name {
            "random" => none(AgentSpec::Random),
            "semi-random" => none(AgentSpec::SemiRandom),
            "astar" => none(AgentSpec::AStar),
            "exact" => none(AgentSpec::Exact),
            "alphabeta" => Ok(AgentSpec::AlphaBeta {
                depth: number("a depth")?,
            }),
            "mcts" => Ok(AgentSpec::Mcts {
                simulations: number("a number of simulations")?,
            }),
            _ => Err(format!(
                "unknown agent `{name}`; the agents are {} (`gamelang agents` describes them)",
                CATALOGUE
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// A comma-separated list: `alphabeta:3,mcts:1000`.
    pub fn parse_list(text: &str) -> Result<Vec<AgentSpec>, String> {
        text.split(',').map(AgentSpec::parse).collect()
    }

    /// The agent, with its own random stream.
    pub fn build(self, rng: Rng) -> Box<dyn Agent> {
        match self {
            AgentSpec::Random => Box::new(simple::Random { rng }),
            AgentSpec::SemiRandom => Box::new(simple::SemiRandom { rng }),
            AgentSpec::AStar => Box::new(simple::AStar { rng }),
            AgentSpec::Exact => Box::new(simple::Exact { rng }),
            AgentSpec::AlphaBeta { depth } => Box::new(alphabeta::AlphaBeta::new(depth, rng)),
            AgentSpec::Mcts { simulations } => Box::new(mcts::Mcts::new(simulations, rng)),
        }
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::SemiRandom => write!(f, "semi-random"),
            AgentSpec::AStar => write!(f, "astar"),
            AgentSpec::Exact => write!(f, "exact"),
            AgentSpec::AlphaBeta { depth } => write!(f, "alphabeta:{depth}"),
            AgentSpec::Mcts { simulations } => write!(f, "mcts:{simulations}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_read_back_as_written() {
        for text in [
            "random",
            "semi-random",
            "alphabeta:3",
            "mcts:1000",
            "astar",
            "exact",
        ] {
            assert_eq!(AgentSpec::parse(text).unwrap().to_string(), text);
        }
        // Every catalogue entry parses (with a number for the `:N` ones).
        for (name, _) in CATALOGUE {
            let text = name.replace(":D", ":2").replace(":N", ":5");
            assert!(AgentSpec::parse(&text).is_ok(), "{text}");
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let e = AgentSpec::parse("alphabeta").unwrap_err();
        assert!(e.contains("`alphabeta:N`"), "{e}");
        let e = AgentSpec::parse("mcts:0").unwrap_err();
        assert!(e.contains("positive whole number"), "{e}");
        let e = AgentSpec::parse("alphabeta:4294967296").unwrap_err();
        assert!(e.contains("must be at most 4294967295"), "{e}");
        let e = AgentSpec::parse("random:3").unwrap_err();
        assert!(e.contains("takes no option"), "{e}");
        let e = AgentSpec::parse("minimax:3").unwrap_err();
        assert!(
            e.contains("unknown agent `minimax`") && e.contains("alphabeta:D"),
            "{e}"
        );
    }
}
