//! Which rules implementation plays a definition, and the plain `chess` rules that user
//! definitions of other games get.
//!
//! A definition's data says how pieces move, promote, freeze and capture en passant;
//! the rest (the end of the game, drops, portals) is a [`Rules`] implementation chosen by
//! `engine.rules` in the definition file, or by its slug for the built-in games.

use crate::engine::{EndReason, Outcome, Position, Rules};

use super::VariantError;

/// What the side to move gets when it has no legal move and is not in check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stalemate {
    /// A draw (chess, Grand Chess, Makruk).
    #[default]
    Draw,
    /// The stalemated side loses (Shatranj, Gygax Chess).
    Loss,
    /// The stalemated side wins.
    Win,
}

impl Stalemate {
    /// The values `engine.stalemate` accepts.
    pub const KNOWN: &'static str = "draw, loss, win";

    /// Reads `engine.stalemate`.
    ///
    /// # Errors
    /// [`VariantError::UnknownRules`] for another value.
    pub fn parse(text: &str) -> Result<Stalemate, VariantError> {
        match text {
            "draw" => Ok(Stalemate::Draw),
            "loss" => Ok(Stalemate::Loss),
            "win" => Ok(Stalemate::Win),
            other => Err(VariantError::UnknownRules {
                field: "stalemate",
                value: other.to_string(),
                known: Stalemate::KNOWN,
            }),
        }
    }
}

/// The rules implementation of a definition (`engine.rules`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesKind {
    /// Gygax Chess: stalemate loses, the legality shortcut.
    Gygax,
    /// Gygax's Fidchell: introduction phase, portals, royal succession.
    Fidchell,
    /// Grand and Fantasy Grand Chess: the Orc's removal, stalemate draws.
    Grand,
    /// Checkmate wins, stalemate as given; nothing beyond the piece data.
    Chess {
        /// The stalemate rule.
        stalemate: Stalemate,
    },
}

impl RulesKind {
    /// The values `engine.rules` accepts.
    pub const KNOWN: &'static str = "gygax, fidchell, grand, chess";

    /// The built-in rules of a built-in slug.
    pub fn of_slug(slug: &str) -> Option<RulesKind> {
        match slug {
            "gygax" => Some(RulesKind::Gygax),
            "fidchell" => Some(RulesKind::Fidchell),
            "fantasy-grand" | "grand" => Some(RulesKind::Grand),
            _ => None,
        }
    }

    /// Reads `engine.rules` and `engine.stalemate`; without `rules`, the built-in rules
    /// of `slug`, else `chess`.
    ///
    /// # Errors
    /// [`VariantError::UnknownRules`] for an unknown name, or a `stalemate` given with
    /// rules other than `chess` (they fix their own).
    pub fn read(rules: Option<&str>, stalemate: Option<&str>, slug: &str) -> Result<RulesKind, VariantError> {
        let kind = match rules {
            None => RulesKind::of_slug(slug).unwrap_or(RulesKind::Chess { stalemate: Stalemate::Draw }),
            Some("gygax") => RulesKind::Gygax,
            Some("fidchell") => RulesKind::Fidchell,
            Some("grand") => RulesKind::Grand,
            Some("chess") => RulesKind::Chess { stalemate: Stalemate::Draw },
            Some(other) => {
                return Err(VariantError::UnknownRules {
                    field: "rules",
                    value: other.to_string(),
                    known: RulesKind::KNOWN,
                });
            }
        };
        match (kind, stalemate) {
            (_, None) => Ok(kind),
            (RulesKind::Chess { .. }, Some(s)) => Ok(RulesKind::Chess { stalemate: Stalemate::parse(s)? }),
            (_, Some(s)) => Err(VariantError::UnknownRules {
                field: "stalemate",
                value: s.to_string(),
                known: "none: only `rules: chess` takes a stalemate rule",
            }),
        }
    }
}

/// Rules for a game its piece data says everything about: the royal piece may not be
/// left attacked, checkmate wins, stalemate as [`Stalemate`] says.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChessRules {
    /// What stalemate gives.
    pub stalemate: Stalemate,
}

impl Rules for ChessRules {
    fn no_legal_moves(&self, pos: &Position, in_check: bool) -> Outcome {
        let stuck = pos.side_to_move();
        if in_check {
            return Outcome::Win { winner: stuck.opponent(), reason: EndReason::Checkmate };
        }
        let reason = EndReason::Stalemate;
        match self.stalemate {
            Stalemate::Draw => Outcome::Draw { reason },
            Stalemate::Loss => Outcome::Win { winner: stuck.opponent(), reason },
            Stalemate::Win => Outcome::Win { winner: stuck, reason },
        }
    }

    /// Every attack is a capture of the movement tables: no rule adds one.
    fn legality_shortcut(&self) -> bool {
        true
    }
}
