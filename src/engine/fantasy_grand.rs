//! Grand Chess and Fantasy Grand Chess: the rules their piece data cannot say.
//!
//! Movement, pawn double steps, en passant (generic: kinds marked `en-passant` in the
//! data, captured by pawns), promotion to lost pieces (generic: `lost: true` in the
//! data) all live in `src/variants/fantasy-grand.md`. What is left:
//!
//! - the Evil Horde **Orc's removal** (rulings §4.6): an Orc move that ends on its last
//!   three ranks may also remove the Orc and one enemy non-pawn, non-royal piece
//!   ([`Move::Removal`]); when the enemy has no such piece before the move, its royal
//!   piece may be removed instead, so such an Orc gives check;
//! - the end of the game: stalemate is a draw (Grand Chess, rulings §4.8).

use super::def::GameDef;
use super::geometry::Square;
use super::piece::{PieceKind, Side};
use super::position::{Move, Position};
use super::variant::{EndReason, Outcome, Rules, Variant};

/// Rulings §4.8: stalemate is a draw, as in Grand Chess.
pub const STALEMATE_DRAWS: bool = true;

/// Rulings §4.6: how many ranks, counted from the far rank, an Orc's move must end on to
/// allow its removal (the pawns' promotion zone).
pub const ORC_ZONE: u8 = 3;

/// The name of the piece kind that has the removal rule.
pub const ORC_NAME: &str = "Orc";

/// Grand Chess / Fantasy Grand Chess rules.
#[derive(Debug, Default)]
pub struct FantasyGrandRules {
    /// Each side's Orc kind, if its army has one.
    orc: [Option<PieceKind>; 2],
}

impl FantasyGrandRules {
    /// The rules for the pairing `def` describes.
    pub fn new(def: &GameDef) -> FantasyGrandRules {
        let find = |side: Side| {
            def.kinds
                .iter()
                .position(|k| k.name == ORC_NAME && k.owned_by(side))
                .map(|i| PieceKind::new(i as u8))
        };
        FantasyGrandRules { orc: [find(Side::White), find(Side::Black)] }
    }

    /// Whether `sq` is within the Orc zone of `side`.
    fn in_zone(v: &Variant, side: Side, sq: Square) -> bool {
        let ranks = v.def().dims.ranks() as usize;
        let r = sq.rank().index();
        let depth = if side == Side::White { ranks - 1 - r } else { r };
        depth < ORC_ZONE as usize
    }

    /// `side`'s pieces that an Orc may remove: non-pawn, non-royal.
    fn removable(v: &Variant, pos: &Position, side: Side) -> Vec<(Square, PieceKind)> {
        pos.occupied_by(side)
            .iter()
            .filter_map(|sq| {
                let p = pos.piece_at(sq)?;
                let k = v.def().kind(p.kind);
                (!k.pawn && !k.royal).then_some((sq, p.kind))
            })
            .collect()
    }
}

impl Rules for FantasyGrandRules {
    fn extra_moves(&self, v: &Variant, pos: &Position, out: &mut Vec<Move>) {
        let side = pos.side_to_move();
        let Some(orc) = self.orc[side.index()] else {
            return;
        };
        let enemy = side.opponent();
        let mut targets: Option<Vec<(Square, PieceKind)>> = None;
        let n = out.len();
        for i in 0..n {
            let (piece, from, to, capture) = match out[i] {
                Move::Normal { piece, from, to, capture, .. } => (piece, from, to, capture.map(|c| (to, c))),
                Move::EnPassant { piece, from, to, victim, capture, .. } => {
                    (piece, from, to, Some((victim, capture)))
                }
                _ => continue,
            };
            if piece != orc || !Self::in_zone(v, side, to) {
                continue;
            }
            let t = targets.get_or_insert_with(|| {
                let list = Self::removable(v, pos, enemy);
                if list.is_empty() {
                    // No such piece before the move: the royal piece instead (a win).
                    pos.royal_square(enemy)
                        .and_then(|k| pos.piece_at(k).map(|p| (k, p.kind)))
                        .into_iter()
                        .collect()
                } else {
                    list
                }
            });
            for &(target, removed) in t.iter() {
                if capture.is_some_and(|(sq, _)| sq == target) {
                    continue;
                }
                out.push(Move::Removal { piece, from, to, capture, target, removed });
            }
        }
    }

    fn no_legal_moves(&self, pos: &Position, in_check: bool) -> Outcome {
        let loser = pos.side_to_move();
        if in_check {
            Outcome::Win { winner: loser.opponent(), reason: EndReason::Checkmate }
        } else if STALEMATE_DRAWS {
            Outcome::Draw { reason: EndReason::Stalemate }
        } else {
            Outcome::Win { winner: loser.opponent(), reason: EndReason::Stalemate }
        }
    }

    fn legality_shortcut(&self) -> bool {
        // The Orc's check is not a capture of the movement tables.
        self.orc.iter().all(Option::is_none)
    }

    /// The Orc's check (rulings §4.6): `target` is the royal square of a side without
    /// non-pawn, non-royal pieces, and an Orc of `by` has a move ending in its zone.
    fn extra_attack(&self, v: &Variant, pos: &Position, target: Square, by: Side) -> bool {
        let Some(orc) = self.orc[by.index()] else {
            return false;
        };
        if pos.royal_square(by.opponent()) != Some(target) {
            return false;
        }
        let holds_a_piece = pos.occupied_by(by.opponent()).iter().any(|sq| {
            pos.piece_at(sq).is_some_and(|p| {
                let k = v.def().kind(p.kind);
                !k.pawn && !k.royal
            })
        });
        if holds_a_piece {
            return false;
        }
        let mut moves = Vec::new();
        for from in pos.occupied_by(by).iter() {
            if pos.piece_at(from).is_some_and(|p| p.kind == orc) {
                v.piece_pseudo_moves(pos, from, &mut moves);
            }
        }
        if pos.side_to_move() == by {
            // An en passant capture by an Orc counts too (the right is `by`'s now).
            let mut all = Vec::new();
            v.en_passant_captures(pos, &mut all);
            moves.extend(all.into_iter().filter(|m| m.piece() == orc));
        }
        moves.iter().any(|m| Self::in_zone(v, by, m.to()))
    }
}
