//! The interface a chance game offers the solvers.

use crate::prob::Prob;
use gamelang_lang::span::Span;

/// One option of the player to move: a choice and the distribution of next states after it
/// (probabilities positive, summing to 1; a next state appears once).
#[derive(Clone, Debug)]
pub struct Opt<S, C> {
    pub choice: C,
    pub outcomes: Vec<(Prob, S)>,
}

impl<S, C> Opt<S, C> {
    /// The outcomes with their probabilities as floating-point numbers, for sampling (the
    /// simulation and the agents draw next states from them).
    pub fn outcomes_f64(self) -> Vec<(f64, S)> {
        self.outcomes
            .into_iter()
            .map(|(q, t)| (q.to_f64(), t))
            .collect()
    }
}

/// What a state is.
#[derive(Clone, Debug)]
pub enum Node<S, C> {
    /// Play has stopped; the winners are indices into the players.
    Final { winners: Vec<usize> },
    /// `player` chooses one of `options` (at least one).
    Turn {
        player: usize,
        options: Vec<Opt<S, C>>,
    },
}

/// Why a game could not be explored or solved.
#[derive(Clone, Debug)]
pub enum ChanceError {
    /// The rewriting engine failed (stuck term, step budget, …), with its diagnostic.
    Engine(Box<gamelang_lang::diag::Diag>),
    /// The game breaks a rule of chance games (probabilities not summing to 1, a winner
    /// outside the players, …): where the offending operator is declared, and the state.
    Game {
        message: String,
        span: Option<Span>,
        state: Option<String>,
    },
    /// Stopped by the user (Ctrl-C).
    Interrupted,
}

impl ChanceError {
    /// The failure as a diagnostic: located at the offending operator's declaration when
    /// known, with the state as a note.
    pub fn into_diag(self) -> gamelang_lang::diag::Diag {
        use gamelang_lang::diag::Diag;
        match self {
            ChanceError::Engine(d) => *d,
            ChanceError::Game {
                message,
                span,
                state,
            } => {
                let mut d = match span {
                    Some(s) => Diag::at(s, message, "declared here"),
                    None => Diag::error(message),
                };
                if let Some(st) = state {
                    d = d.note(format!("in state {st}"));
                }
                d
            }
            ChanceError::Interrupted => Diag::error("interrupted"),
        }
    }

    pub fn game(message: impl Into<String>) -> ChanceError {
        ChanceError::Game {
            message: message.into(),
            span: None,
            state: None,
        }
    }
}

/// A game with chance and `players().len()` players.
pub trait ChanceModel {
    /// A state; equal states must compare equal (the solvers merge them).
    type State: Copy + Eq + std::hash::Hash;
    /// A choice, as shown to the user.
    type Choice: Clone;
    fn players(&mut self) -> Result<Vec<String>, ChanceError>;
    fn start(&mut self) -> Result<Self::State, ChanceError>;
    fn expand(&mut self, s: Self::State) -> Result<Node<Self::State, Self::Choice>, ChanceError>;
    /// Points each player collects at a visit of `s` (for expected scores); `None` when the
    /// game defines no score.
    fn score(&mut self, s: Self::State) -> Result<Option<Vec<i64>>, ChanceError>;
    fn show_state(&self, s: Self::State) -> String;
    fn show_choice(&self, c: &Self::Choice) -> String;
    /// A small number identifying `s` among the model's values (numbered densely from 0),
    /// if it has one: the explorer then finds states in an array instead of a hash table.
    /// It must stay the state's for as long as the explorer holds the state (the states
    /// passed to [`ChanceModel::collect`] keep theirs).
    fn dense_index(&self, _s: Self::State) -> Option<usize> {
        None
    }
    /// Has the user asked to stop?
    fn interrupted(&self) -> bool {
        false
    }
    /// Free what the model no longer needs (the rewriting engine's intermediate terms).
    /// The explorer calls this every so often between expansions; everything it still
    /// holds is among `states` and `choices`, which must stay valid.
    fn collect(
        &mut self,
        _states: &[Self::State],
        _choices: &mut dyn Iterator<Item = &Self::Choice>,
    ) {
    }
}
