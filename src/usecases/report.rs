//! What the use cases report: the answers the front ends print or serialise, in a file
//! of their own so that every use case can name them without importing another.

use serde::{Deserialize, Serialize};

/// A problem `verify` found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerifyProblem {
    /// The game id (empty for a deleted file).
    pub game: String,
    /// The short commit id (empty when the game's history could not be read).
    pub commit: String,
    /// The commit's author.
    pub author: String,
    /// What is wrong.
    pub problem: String,
}

/// What `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// How many games were verified.
    pub games: usize,
    /// Every problem, game by game.
    pub problems: Vec<VerifyProblem>,
    /// In a shallow clone: where the history that could be checked starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow: Option<ShallowBoundary>,
}

/// A shallow clone's boundary, as `verify` reports it: the oldest commit the clone has;
/// what came before it is not in the clone and was not checked (`git fetch --unshallow`
/// brings it).
#[derive(Debug, Clone, Serialize)]
pub struct ShallowBoundary {
    /// The boundary commit (short id).
    pub commit: String,
    /// The games that were already under way there.
    pub games: Vec<UncheckedGame>,
}

/// A game whose start lies before a shallow clone's boundary.
#[derive(Debug, Clone, Serialize)]
pub struct UncheckedGame {
    /// The game id.
    pub game: String,
    /// The plies it had at the boundary (played before it, not checked).
    pub plies: usize,
}
