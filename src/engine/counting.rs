//! Counting rules (makruk, Cambodian, ASEAN): the count a position carries and how a
//! move changes it, as Fairy-Stockfish plays them (its `countingRule`; the rules of the
//! games are described in `notation-spec/variant-files.md` §2.1).
//!
//! A count has a limit in plies and the plies counted so far. Every ply adds one. A
//! count starts after a move when the side now to move may count (the limits of the
//! rule are not zero for it) and none runs yet, and starts again when that side has
//! only its king left and the move captured or promoted (pieces' honour replaces the
//! board's, and the limit follows the stronger side's pieces). It starts from 0 when the
//! counting side keeps other pieces (board's honour), from twice the number of pieces
//! on the board when its king is alone. In makruk and Cambodian chess a lone king that
//! has just taken the last pawn starts its own count at once, one ply less. The game is
//! drawn when the plies counted pass the limit, unless the side to move is checkmated.

use super::def::{Counting, CountingRule};
use super::piece::{Piece, PieceKind, Side};
use super::position::Position;
use super::variant::Variant;

/// What the limits look at: each side's pieces on the board, by role, and the pawns.
struct Material {
    total: [u16; 2],
    rooks: [u16; 2],
    khons: [u16; 2],
    knights: [u16; 2],
    pawns: u16,
}

impl Material {
    fn of(v: &Variant, c: &Counting, pos: &Position) -> Material {
        let mut m = Material { total: [0; 2], rooks: [0; 2], khons: [0; 2], knights: [0; 2], pawns: 0 };
        let has = |kinds: &[PieceKind], k: PieceKind| u16::from(kinds.contains(&k));
        for (_, piece) in pos.pieces() {
            let s = piece.side.index();
            m.total[s] += 1;
            m.rooks[s] += has(&c.rooks, piece.kind);
            m.khons[s] += has(&c.khons, piece.kind);
            m.knights[s] += has(&c.knights, piece.kind);
            m.pawns += u16::from(v.def().kind(piece.kind).pawn);
        }
        m
    }

    /// The limit in moves for `side` to count now; 0 when it may not count.
    fn limit(&self, rule: CountingRule, side: Side) -> u16 {
        let (own, other) = (side.index(), side.opponent().index());
        let (rooks, khons, knights) = (self.rooks[other], self.khons[other], self.knights[other]);
        // The pieces' honour against a lone king: the stronger side's best pieces.
        let honour = |shorter: u16| {
            let table = if rooks > 1 {
                8
            } else if rooks == 1 {
                16
            } else if khons > 1 {
                22
            } else if knights > 1 {
                32
            } else if khons == 1 {
                44
            } else {
                64
            };
            table - shorter
        };
        match rule {
            CountingRule::Makruk => {
                if self.pawns > 0 || self.total[other] == 1 {
                    0
                } else if self.total[own] > 1 {
                    64
                } else {
                    honour(0)
                }
            }
            CountingRule::Cambodian => {
                if self.total[own] > 3 || self.total[other] == 1 {
                    0
                } else if self.total[own] > 1 {
                    63
                } else if self.pawns > 0 {
                    0
                } else {
                    honour(1)
                }
            }
            CountingRule::Asean => {
                if self.pawns > 0 || self.total[own] > 1 {
                    0
                } else if rooks > 0 {
                    16
                } else if khons > 0 {
                    44
                } else if knights > 0 {
                    64
                } else {
                    0
                }
            }
        }
    }
}

/// Updates the count of `after` (whose side to move has already changed) for a move
/// that captured `captured` and promoted when `promoted`.
pub(crate) fn after_move(
    v: &Variant,
    c: &Counting,
    after: &mut Position,
    captured: Option<Piece>,
    promoted: bool,
) {
    if after.count_limit != 0 {
        after.count_ply = after.count_ply.saturating_add(1);
    }
    let m = Material::of(v, c, after);
    let to_move = after.side_to_move;
    let mover = to_move.opponent();
    let all = m.total[0] + m.total[1];
    let took_pawn = captured.is_some_and(|p| v.def().kind(p.kind).pawn);
    if c.rule != CountingRule::Asean && took_pawn && m.total[mover.index()] == 1 && m.pawns == 0 {
        let limit = m.limit(c.rule, mover);
        if limit != 0 {
            after.count_limit = 2 * limit;
            after.count_ply = 2 * all - 1;
        }
    }
    let bared = (captured.is_some() || promoted) && m.total[to_move.index()] == 1;
    if after.count_limit == 0 || bared {
        let limit = m.limit(c.rule, to_move);
        if limit != 0 {
            after.count_limit = 2 * limit;
            let board = c.rule == CountingRule::Asean || m.total[to_move.index()] > 1;
            after.count_ply = if board { 0 } else { 2 * all };
        }
    }
}

/// Whether the count of `pos` has passed its limit (the game is over unless the side to
/// move is checkmated).
#[inline]
pub(crate) fn run_out(pos: &Position) -> bool {
    pos.count_limit != 0 && pos.count_ply > pos.count_limit
}
