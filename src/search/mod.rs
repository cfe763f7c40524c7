//! A game-tree search on the engine's move generator: iterative deepening principal
//! variation search with a transposition table, quiescence on tactical moves and move
//! ordering; and an evaluation derived from each variant's data.
//!
//! No I/O, no git, no settings read from the process: what to search and for how long
//! come in a [`Limits`] value (a deadline is checked every [`CHECK_EVERY`] nodes), and
//! the answer is a [`Report`]. The layer names only [`crate::engine`].
//!
//! The rules are the engine's: the legal moves of [`crate::engine::Variant`], the end of
//! the game as [`crate::engine::Variant::outcome`] reports it (checkmate, stalemate, a
//! Fidchell King captured), and the draws a player may claim (the position repeated, 100
//! plies without a capture or a pawn-type move) scored as draws.

mod eval;
mod order;
mod pvs;
mod tt;

pub use eval::{Evaluator, PieceValue, ValueSource};
pub use pvs::{CHECK_EVERY, Limits, Line, MAX_PLY, Report, Score, search};
