//! Sides, piece kinds and pieces.

use std::fmt;

/// One of the two players.
///
/// `White` is the side that moves first (rulings §1.2): Gold in Gygax Chess, White in
/// Fidchell and Fantasy Grand Chess. `Black` is Scarlet in Gygax Chess. Displays use the
/// variant's own side names ([`crate::engine::GameDef::side_name`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The first player (Gold in Gygax Chess).
    White = 0,
    /// The second player (Scarlet in Gygax Chess).
    Black = 1,
}

impl Side {
    /// Both sides, first player first.
    pub const ALL: [Side; 2] = [Side::White, Side::Black];

    /// The other side.
    #[inline]
    pub const fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    /// 0 for White, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// A piece kind: an index into its variant's piece table
/// ([`crate::engine::GameDef::kinds`]). Kinds mean nothing without their variant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceKind(pub(crate) u8);

impl PieceKind {
    /// The kind with index `i` in its variant's table.
    pub const fn new(i: u8) -> PieceKind {
        PieceKind(i)
    }
    /// Index in the variant's table.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece: whose it is and what kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The owner.
    pub side: Side,
    /// The kind, in the owner's variant.
    pub kind: PieceKind,
}

impl Piece {
    /// A piece of `side` and `kind`.
    pub const fn new(side: Side, kind: PieceKind) -> Piece {
        Piece { side, kind }
    }
    /// Packs the piece into one non-zero byte for the board array (0 = empty square).
    #[inline]
    pub(crate) const fn pack(self) -> u8 {
        ((self.side as u8) << 7) | (self.kind.0 + 1)
    }
    /// The piece packed by [`Piece::pack`], or `None` for 0.
    #[inline]
    pub(crate) const fn unpack(b: u8) -> Option<Piece> {
        if b == 0 {
            None
        } else {
            let side = if b & 0x80 != 0 { Side::Black } else { Side::White };
            Some(Piece { side, kind: PieceKind((b & 0x7f) - 1) })
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::White => "white",
            Side::Black => "black",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_pack_into_one_byte() {
        for side in Side::ALL {
            for k in 0..100u8 {
                let p = Piece::new(side, PieceKind::new(k));
                assert_ne!(p.pack(), 0);
                assert_eq!(Piece::unpack(p.pack()), Some(p));
            }
        }
        assert_eq!(Piece::unpack(0), None);
    }
}
