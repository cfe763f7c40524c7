//! Gygax Chess (Dragonchess): the rules its piece data cannot say.
//!
//! Everything about movement (cross-level moves, the Dragon's capture without moving,
//! the Basilisk's freeze, the Sylph's return, the Warrior's promotion) is data in
//! `src/variants/gygax.md`. What is left is the end of the game.

use super::piece::Side;
use super::position::Position;
use super::variant::{EndReason, Outcome, Rules};

/// Rulings §2.12: "A player who cannot make any legal move loses" (seed, "Objective").
/// Most programs call stalemate a draw; the seed does not. One constant, so the choice
/// can change in one place.
pub const STALEMATE_LOSES: bool = true;

/// Gygax Chess rules.
#[derive(Debug, Default)]
pub struct GygaxRules;

impl Rules for GygaxRules {
    fn no_legal_moves(&self, pos: &Position, in_check: bool) -> Outcome {
        let loser: Side = pos.side_to_move();
        let reason = if in_check { EndReason::Checkmate } else { EndReason::Stalemate };
        if in_check || STALEMATE_LOSES {
            Outcome::Win { winner: loser.opponent(), reason }
        } else {
            Outcome::Draw { reason }
        }
    }

    /// Every Gygax attack is a capture of the movement tables (the Dragon's capture
    /// without moving included); the Basilisk's freeze is handled by the engine.
    fn legality_shortcut(&self) -> bool {
        true
    }
}
