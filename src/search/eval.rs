//! The evaluation: material, mobility and king safety, from the variant's data.
//!
//! No built-in definition declares piece values, so each kind's value is derived from
//! its mean mobility on an empty board ([`ValueSource::Mobility`]): the piece alone, of
//! the first side, on every square of the board where it has a move, its pseudo-legal
//! moves counted and averaged, and `value = 60 + 40 × mean` centipawns. On an 8×8 board
//! this gives a pawn about 100, a knight 270, a bishop 410, a rook 620 and a queen 970: a
//! knight a little low and a rook a little high, but in order, and the same rule works
//! for the Gygax Dragon, a Fidchell Wyvern or a user-defined piece. Royal kinds get the
//! same rule; while both sides keep theirs it cancels out, and in Fidchell, where a King
//! may be captured, losing it costs its value.
//!
//! Only the pieces' own movement data is counted: moves a variant's rules add (the Fidchell
//! Unicorn's jump, the Wyvern's long leaps, drops) are not, so those pieces are valued low.
//!
//! The score is from the side to move's view: material (pieces on the board, and half
//! the value of those off it, in hand or reserve: [`HAND_SHARE`]), less each side's
//! material in the start position (the armies of Fidchell and of a Fantasy Grand pairing
//! differ by design, and are taken as equal at the start), plus [`MOBILITY`] for each pseudo-legal move of each piece (a
//! frozen piece has none), plus king safety: [`SHELTER`] for each own piece next to the
//! royal piece, minus [`TROPISM`] for each enemy piece within two steps of it.

use crate::engine::{Move, Piece, PieceKind, Position, Side, Square, Variant};

/// Centipawns per pseudo-legal move of a piece.
pub const MOBILITY: i32 = 3;
/// A piece off the board (in hand, in reserve) counts its value divided by this: it may
/// never come in (a Fidchell reserve waits for its portal).
pub const HAND_SHARE: i32 = 2;
/// Centipawns per own piece next to the royal piece (any level, one step).
pub const SHELTER: i32 = 8;
/// Centipawns lost per enemy piece within two steps of the royal piece.
pub const TROPISM: i32 = 10;

/// Where a kind's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// Derived from the mean mobility on an empty board.
    Mobility,
}

/// One kind's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceValue {
    /// Centipawns.
    pub centipawns: i32,
    /// The mean number of moves on an empty board, in hundredths.
    pub mean_mobility_x100: i32,
    /// Where the value comes from.
    pub source: ValueSource,
}

/// A variant's evaluation: its piece values, computed once.
#[derive(Clone, Debug)]
pub struct Evaluator {
    values: Vec<PieceValue>,
    /// Each side's material in the start position, taken off its score.
    start_material: [i32; 2],
}

impl Evaluator {
    /// The evaluation of `v`: each kind's value from its mobility on an empty board.
    pub fn new(v: &Variant) -> Evaluator {
        let values = (0..v.def().kinds.len()).map(|k| mobility_value(v, PieceKind::new(k as u8))).collect();
        let mut e = Evaluator { values, start_material: [0; 2] };
        let start = v.start_position();
        e.start_material = Side::ALL.map(|side| e.material(v, &start, side));
        e
    }

    /// The material of `side` in `pos`: its pieces on the board, and those off it at
    /// 1/[`HAND_SHARE`] of their value.
    pub fn material(&self, v: &Variant, pos: &Position, side: Side) -> i32 {
        let mut m = 0;
        for k in 0..v.def().kinds.len() {
            let kind = PieceKind::new(k as u8);
            m += i32::from(pos.in_hand(side, kind)) * self.value(kind) / HAND_SHARE;
        }
        for sq in pos.occupied_by(side).iter() {
            m += pos.piece_at(sq).map_or(0, |p| self.value(p.kind));
        }
        m
    }

    /// Each kind's value, in the order of the variant's kinds.
    pub fn values(&self) -> &[PieceValue] {
        &self.values
    }

    /// The value of `kind` in centipawns.
    #[inline]
    pub fn value(&self, kind: PieceKind) -> i32 {
        self.values.get(kind.index()).map_or(0, |p| p.centipawns)
    }

    /// What `mv` wins at once: the value of what it captures or removes, plus what a
    /// promotion adds (0 for a quiet move).
    pub fn gain(&self, mv: &Move) -> i32 {
        let mut g = mv.capture().map_or(0, |k| self.value(k));
        if let Move::Removal { removed, piece, .. } = *mv {
            g += self.value(removed) - self.value(piece);
        }
        if let Some(p) = mv.promotion() {
            g += self.value(p) - self.value(mv.piece());
        }
        g
    }

    /// The score of `pos` in centipawns, from the side to move's view; `buf` is scratch
    /// space for move lists.
    pub fn evaluate(&self, v: &Variant, pos: &Position, buf: &mut Vec<Move>) -> i32 {
        let mut score = Side::ALL.map(|side| self.material(v, pos, side) - self.start_material[side.index()]);
        for (sq, piece) in pos.pieces() {
            let s = piece.side.index();
            if v.is_frozen(pos, sq) {
                continue;
            }
            buf.clear();
            v.piece_pseudo_moves(pos, sq, buf);
            score[s] += MOBILITY * buf.len() as i32;
        }
        for side in Side::ALL {
            score[side.index()] += king_safety(v, pos, side);
        }
        let me = pos.side_to_move().index();
        score[me] - score[1 - me]
    }
}

/// Shelter and tropism around `side`'s royal piece (0 without one).
fn king_safety(v: &Variant, pos: &Position, side: Side) -> i32 {
    let Some(k) = pos.royal_square(side) else {
        return 0;
    };
    let mut s = 0;
    for (sq, piece) in pos.pieces() {
        if sq == k || v.is_royal_kind(piece.kind) {
            continue;
        }
        let d = distance(sq, k);
        if piece.side == side && d <= 1 {
            s += SHELTER;
        } else if piece.side != side && d <= 2 {
            s -= TROPISM;
        }
    }
    s
}

/// Steps between two squares: the largest of the level, file and rank differences.
fn distance(a: Square, b: Square) -> usize {
    let df = a.file().index().abs_diff(b.file().index());
    let dr = a.rank().index().abs_diff(b.rank().index());
    let dl = a.level().index().abs_diff(b.level().index());
    df.max(dr).max(dl)
}

/// The value of `kind` from its mean mobility on an empty board.
fn mobility_value(v: &Variant, kind: PieceKind) -> PieceValue {
    let side = if v.def().kind(kind).owned_by(Side::White) { Side::White } else { Side::Black };
    let mut buf = Vec::with_capacity(64);
    let (mut total, mut squares) = (0usize, 0usize);
    for sq in v.def().dims.squares() {
        let mut pos = Position::empty(side);
        pos.put(sq, Piece::new(side, kind));
        buf.clear();
        v.piece_pseudo_moves(&pos, sq, &mut buf);
        if !buf.is_empty() {
            total += buf.len();
            squares += 1;
        }
    }
    let mean_x100 = (total * 100).checked_div(squares).unwrap_or(0) as i32;
    PieceValue {
        centipawns: 60 + 40 * mean_x100 / 100,
        mean_mobility_x100: mean_x100,
        source: ValueSource::Mobility,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(name: &str) -> std::sync::Arc<Variant> {
        crate::variants::by_name(name, &[]).expect("built-in")
    }

    #[test]
    fn mobility_values_order_the_gygax_pieces() {
        let v = variant("gygax");
        let e = Evaluator::new(&v);
        let val = |code: &str| e.value(v.def().kind_by_code(code).unwrap());
        // Warrior (a pawn) 1 move, Unicorn (a knight) 5.66, Thief (a bishop) 10.5,
        // Oliphant (a rook) 18: 60 + 40 × mean.
        assert_eq!(val("W"), 100);
        assert_eq!(val("U"), 286);
        assert_eq!(val("T"), 480);
        assert_eq!(val("O"), 780);
        // The Dragon (bishop or wazir in the Air) is worth more than a Sylph.
        assert!(val("R") > val("S"));
    }

    #[test]
    fn the_start_position_is_level() {
        let v = variant("grand");
        let e = Evaluator::new(&v);
        let p = v.start_position();
        assert_eq!(e.evaluate(&v, &p, &mut Vec::new()), 0);
    }

    /// Regression: the Fidchell start scored +3168 for White, whose reserve (Unicorns,
    /// Immortals) is valued above Black's (Fiends, Wyverns); the armies are now taken as
    /// equal at the start, and so are a Fantasy Grand pairing's.
    #[test]
    fn the_fidchell_start_is_level_despite_its_different_reserves() {
        let opts = |w: &str, b: &str| {
            vec![("army-white".to_string(), w.to_string()), ("army-black".to_string(), b.to_string())]
        };
        for (name, options) in [("fidchell", vec![]), ("fantasy-grand", opts("elves", "giants"))] {
            let v = crate::variants::by_name(name, &options).unwrap();
            let e = Evaluator::new(&v);
            let p = v.start_position();
            let white = e.material(&v, &p, Side::White);
            let black = e.material(&v, &p, Side::Black);
            assert_eq!(e.start_material, [white, black], "{name}");
            // Only mobility and king safety remain, well under a pawn.
            let score = e.evaluate(&v, &p, &mut Vec::new());
            assert!(score.abs() < 100, "{name}: {score}");
        }
    }
}
