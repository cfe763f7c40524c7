//! The rules engine: coordinates, pieces, movement, positions, legal moves, game end.
//!
//! No parsing of game files, no git, no I/O: the layers above ([`crate::notation`],
//! [`crate::cli`]) do that. One generic move generator reads each variant's movement
//! data ([`movement`]); what data cannot say sits behind the [`Rules`] trait, one
//! implementation per game ([`gygax`]; [`fantasy_grand`] for Grand and Fantasy Grand Chess).

pub mod counting;
pub mod def;
pub mod fantasy_grand;
pub mod fidchell;
pub mod geometry;
pub mod gygax;
pub mod movement;
pub mod piece;
pub mod position;
pub mod shuffle;
mod tables;
pub mod variant;

pub use def::{
    Castling, Counting, CountingRule, EndValue, Extinction, GameDef, KindDef, LevelColors, Promotion, Render,
};
pub use geometry::{Dims, File, Level, Offset, Rank, Square, SquareSet};
pub use movement::{Atom, Mode, Shape};
pub use piece::{Piece, PieceKind, Side};
pub use position::{EnPassant, Move, Position};
pub use variant::{CastleRook, EndReason, Outcome, Rules, SetupError, Variant};
