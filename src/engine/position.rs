//! Positions and moves.

use super::geometry::{SQUARE_COUNT, Square, SquareSet};
use super::piece::{Piece, PieceKind, Side};

/// Most piece kinds one game may have (Fidchell has 33; a Fantasy Grand Chess pairing
/// fewer than 50).
pub const MAX_KINDS: usize = 64;

/// Bytes of variant-specific state a position carries beyond board, hands and clocks
/// (Fidchell: portal uses, the Queen's right of return, captured pieces by kind; see
/// [`crate::engine::fidchell`]). Each byte is part of the hash.
pub const VARIANT_STATE_LEN: usize = 40;

/// A castling right that is not there.
pub(crate) const NO_CASTLING: u16 = u16::MAX;

/// A move of any of our games. Squares are of the game's board; kinds of its variant.
///
/// The move carries what it captures, so it can be written (`x`) and checked without
/// the position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A piece goes from `from` to `to`, capturing what stands there, maybe promoting.
    Normal {
        /// The moving piece's kind.
        piece: PieceKind,
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Kind of the enemy piece on `to`, if any.
        capture: Option<PieceKind>,
        /// Kind the piece becomes on arrival, if it promotes.
        promotion: Option<PieceKind>,
    },
    /// Capture without moving (the Gygax Dragon, rulings §2.3): the piece on `from`
    /// stays; the enemy piece on `target` is removed.
    Remote {
        /// The capturing piece's kind.
        piece: PieceKind,
        /// Where it stands (and stays).
        from: Square,
        /// The captured piece's square.
        target: Square,
        /// The captured piece's kind.
        capture: PieceKind,
    },
    /// An en passant capture (rulings §4.4): a pawn goes from `from` to the empty square
    /// `to` that an enemy piece just passed over with its two-square move, and removes
    /// that piece from `victim`. Distinct from a plain move to the same square.
    EnPassant {
        /// The capturing pawn's kind.
        piece: PieceKind,
        /// Origin.
        from: Square,
        /// Destination: the passed-over square.
        to: Square,
        /// Where the captured piece stands.
        victim: Square,
        /// The captured piece's kind.
        capture: PieceKind,
        /// Kind the pawn becomes on arrival, if it promotes.
        promotion: Option<PieceKind>,
    },
    /// Castling: the king goes from `from` to `to` and the rook from `rook_from` to
    /// `rook_to` (written `O-O` towards the higher files, `O-O-O` towards the lower).
    Castle {
        /// The king's kind.
        piece: PieceKind,
        /// The king's square.
        from: Square,
        /// Where the king lands.
        to: Square,
        /// The rook's kind.
        rook: PieceKind,
        /// The rook's square.
        rook_from: Square,
        /// Where the rook lands.
        rook_to: Square,
    },
    /// A move after which the moving piece and one enemy piece leave the board (the
    /// Fantasy Grand Chess Orc, rulings §4.6): the piece goes from `from` to `to`
    /// (capturing as a plain move or en passant would), then it and the enemy piece on
    /// `target` are removed.
    Removal {
        /// The moving piece's kind.
        piece: PieceKind,
        /// Origin.
        from: Square,
        /// Destination (where the piece is removed from).
        to: Square,
        /// What the move itself captures, and where it stood (`to`, or the passed-over
        /// piece's square for an en passant capture).
        capture: Option<(Square, PieceKind)>,
        /// The square of the enemy piece removed with it.
        target: Square,
        /// That piece's kind.
        removed: PieceKind,
    },
    /// A piece from off the board (hand, reserve, portal) is put on the empty square `to`.
    Drop {
        /// The placed piece's kind.
        piece: PieceKind,
        /// Where it is placed.
        to: Square,
    },
    /// A piece from off the board takes the place of an own piece, which leaves the field
    /// for good (Fidchell: the King's re-introduction, the Queen's return; rulings
    /// §3.7–3.8). Written as a drop on that square: `K_f5`.
    Replace {
        /// The placed piece's kind.
        piece: PieceKind,
        /// The square of the piece it replaces.
        to: Square,
        /// The kind of the replaced own piece.
        replaced: PieceKind,
    },
}

impl Move {
    /// The kind of the piece that moves (or captures, or is placed).
    pub fn piece(&self) -> PieceKind {
        match *self {
            Move::Normal { piece, .. }
            | Move::Remote { piece, .. }
            | Move::Drop { piece, .. }
            | Move::EnPassant { piece, .. }
            | Move::Removal { piece, .. }
            | Move::Castle { piece, .. }
            | Move::Replace { piece, .. } => piece,
        }
    }
    /// The origin square, if the piece was on the board.
    pub fn from(&self) -> Option<Square> {
        match *self {
            Move::Normal { from, .. }
            | Move::Remote { from, .. }
            | Move::EnPassant { from, .. }
            | Move::Castle { from, .. }
            | Move::Removal { from, .. } => Some(from),
            Move::Drop { .. } | Move::Replace { .. } => None,
        }
    }
    /// The square the move acts on: destination, capture target, or placement square.
    pub fn to(&self) -> Square {
        match *self {
            Move::Normal { to, .. }
            | Move::Drop { to, .. }
            | Move::Replace { to, .. }
            | Move::EnPassant { to, .. }
            | Move::Castle { to, .. }
            | Move::Removal { to, .. } => to,
            Move::Remote { target, .. } => target,
        }
    }
    /// The captured kind, if the move captures.
    pub fn capture(&self) -> Option<PieceKind> {
        match *self {
            Move::Normal { capture, .. } => capture,
            Move::Remote { capture, .. } | Move::EnPassant { capture, .. } => Some(capture),
            Move::Removal { capture, .. } => capture.map(|c| c.1),
            Move::Drop { .. } | Move::Replace { .. } | Move::Castle { .. } => None,
        }
    }
    /// Whether the move castles towards the higher files (`O-O`); `None` for other moves.
    pub fn castles_king_side(&self) -> Option<bool> {
        match *self {
            Move::Castle { from, rook_from, .. } => Some(rook_from.index() > from.index()),
            _ => None,
        }
    }
    /// The promotion kind, if the move promotes.
    pub fn promotion(&self) -> Option<PieceKind> {
        match *self {
            Move::Normal { promotion, .. } | Move::EnPassant { promotion, .. } => promotion,
            _ => None,
        }
    }
}

/// The en passant right after a two-square move (rulings §4.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnPassant {
    /// The square passed over: where a capturing pawn goes.
    pub passed: Square,
    /// The square of the piece that made the two-square move.
    pub victim: Square,
}

/// A position: pieces on squares, side to move, clocks, pieces off the board, and the
/// position's hash. A plain value: copy it to keep it (copy-make).
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [u8; SQUARE_COUNT],
    pub(crate) occupied: [SquareSet; 2],
    pub(crate) royal: [Option<Square>; 2],
    pub(crate) side_to_move: Side,
    pub(crate) halfmove_clock: u16,
    pub(crate) fullmove_number: u16,
    pub(crate) hand: [[u8; MAX_KINDS]; 2],
    pub(crate) hash: u64,
    pub(crate) en_passant: Option<EnPassant>,
    /// Castling rights: `[side * 2 + wing]` (wing 0 towards the higher files, 1 towards
    /// the lower) → the square of the rook that may castle, [`NO_CASTLING`] for none.
    pub(crate) castling: [u16; 4],
    /// Variant-specific state, all zero unless the variant's rules use it.
    pub(crate) variant_state: [u8; VARIANT_STATE_LEN],
    /// A counting rule's count ([`super::def::Counting`]): plies counted so far, and the
    /// limit in plies (0: no count runs). Not hashed: Fairy-Stockfish's repetitions
    /// ignore it too.
    pub(crate) count_ply: u16,
    pub(crate) count_limit: u16,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Position")
            .field("side_to_move", &self.side_to_move)
            .field("pieces", &self.pieces().collect::<Vec<_>>())
            .field("halfmove_clock", &self.halfmove_clock)
            .field("fullmove_number", &self.fullmove_number)
            .finish()
    }
}

impl Position {
    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::unpack(self.board[sq.index()])
    }
    /// Every piece on the board with its square, ascending square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied[0]
            .union(&self.occupied[1])
            .iter()
            .map(|sq| (sq, self.piece_at(sq).expect("occupied squares hold pieces")))
    }
    /// The squares holding `side`'s pieces.
    pub fn occupied_by(&self, side: Side) -> SquareSet {
        self.occupied[side.index()]
    }
    /// The side to move.
    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }
    /// Plies since the last capture, promotion, drop or pawn-type move (rulings §1.3).
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }
    /// The counting rule's count while one runs: (plies counted, limit in plies). The
    /// game is drawn once the plies counted pass the limit ([`super::def::Counting`]).
    pub fn count(&self) -> Option<(u16, u16)> {
        (self.count_limit != 0).then_some((self.count_ply, self.count_limit))
    }
    /// Move number: starts at 1, goes up after the second side moves.
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }
    /// Where `side`'s royal piece stands, if it is on the board.
    pub fn royal_square(&self, side: Side) -> Option<Square> {
        self.royal[side.index()]
    }
    /// How many pieces of `kind` `side` holds off the board (in hand or reserve).
    pub fn in_hand(&self, side: Side, kind: PieceKind) -> u8 {
        self.hand[side.index()][kind.index()]
    }
    /// The en passant right, if the last move was a two-square move that an enemy pawn
    /// could capture en passant.
    pub fn en_passant(&self) -> Option<EnPassant> {
        self.en_passant
    }
    /// The square of the rook `side` may castle with towards the higher files
    /// (`king_side`) or the lower, if it has that right.
    pub fn castling_rook(&self, side: Side, king_side: bool) -> Option<Square> {
        let v = self.castling[side.index() * 2 + usize::from(!king_side)];
        if v == NO_CASTLING { None } else { Square::from_index(v as usize) }
    }

    pub(crate) fn set_castling(&mut self, slot: usize, rook: Option<Square>) {
        let z = zobrist();
        let old = self.castling[slot];
        if old != NO_CASTLING {
            self.hash ^= z.castles[slot * SQUARE_COUNT + old as usize];
        }
        let new = rook.map_or(NO_CASTLING, |sq| sq.index() as u16);
        if new != NO_CASTLING {
            self.hash ^= z.castles[slot * SQUARE_COUNT + new as usize];
        }
        self.castling[slot] = new;
    }

    /// A 64-bit hash of everything that makes positions the same for repetition
    /// (pieces, side to move, pieces off the board, variant state, en passant and
    /// castling rights);
    /// clocks are not included.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    pub(crate) fn empty(side_to_move: Side) -> Position {
        let mut p = Position {
            board: [0; SQUARE_COUNT],
            occupied: [SquareSet::EMPTY; 2],
            royal: [None; 2],
            side_to_move,
            halfmove_clock: 0,
            fullmove_number: 1,
            hand: [[0; MAX_KINDS]; 2],
            hash: 0,
            en_passant: None,
            castling: [NO_CASTLING; 4],
            variant_state: [0; VARIANT_STATE_LEN],
            count_ply: 0,
            count_limit: 0,
        };
        if side_to_move == Side::Black {
            p.hash ^= zobrist().side;
        }
        p
    }

    #[inline]
    pub(crate) fn put(&mut self, sq: Square, piece: Piece) {
        debug_assert_eq!(self.board[sq.index()], 0);
        self.board[sq.index()] = piece.pack();
        self.occupied[piece.side.index()].insert(sq);
        self.hash ^= zobrist().piece(piece, sq);
    }

    #[inline]
    pub(crate) fn take(&mut self, sq: Square) -> Option<Piece> {
        let p = Piece::unpack(self.board[sq.index()])?;
        self.board[sq.index()] = 0;
        self.occupied[p.side.index()].remove(sq);
        self.hash ^= zobrist().piece(p, sq);
        Some(p)
    }

    pub(crate) fn set_hand(&mut self, side: Side, kind: PieceKind, n: u8) {
        let z = zobrist();
        let old = self.hand[side.index()][kind.index()];
        self.hash ^= z.hand(side, kind, old) ^ z.hand(side, kind, n);
        self.hand[side.index()][kind.index()] = n;
    }

    pub(crate) fn set_en_passant(&mut self, ep: Option<EnPassant>) {
        if let Some(old) = self.en_passant {
            self.hash ^= zobrist().ep(old.passed);
        }
        if let Some(new) = ep {
            self.hash ^= zobrist().ep(new.passed);
        }
        self.en_passant = ep;
    }

    /// The variant-specific state bytes (their meaning is the variant's rules').
    pub fn variant_state(&self) -> &[u8; VARIANT_STATE_LEN] {
        &self.variant_state
    }

    /// Sets variant-state byte `i` to `value`, keeping the hash up to date.
    pub(crate) fn set_variant_byte(&mut self, i: usize, value: u8) {
        let z = zobrist();
        let old = self.variant_state[i];
        self.hash ^= z.variant(i, old) ^ z.variant(i, value);
        self.variant_state[i] = value;
    }

    pub(crate) fn flip_side(&mut self) {
        if self.side_to_move == Side::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.side_to_move = self.side_to_move.opponent();
        self.hash ^= zobrist().side;
    }
}

/// Zobrist keys, made once from a fixed seed (so hashes are stable across runs).
pub(crate) struct Zobrist {
    pieces: Vec<u64>,
    hands: Vec<u64>,
    eps: Vec<u64>,
    side: u64,
    variant: Vec<u64>,
    castles: Vec<u64>,
}

impl Zobrist {
    #[inline]
    fn piece(&self, p: Piece, sq: Square) -> u64 {
        self.pieces[(p.side.index() * MAX_KINDS + p.kind.index()) * SQUARE_COUNT + sq.index()]
    }
    #[inline]
    fn ep(&self, sq: Square) -> u64 {
        self.eps[sq.index()]
    }
    #[inline]
    fn hand(&self, side: Side, kind: PieceKind, n: u8) -> u64 {
        if n == 0 { 0 } else { self.hands[(side.index() * MAX_KINDS + kind.index()) * 256 + n as usize] }
    }
    #[inline]
    fn variant(&self, i: usize, value: u8) -> u64 {
        if value == 0 { 0 } else { self.variant[i * 256 + value as usize] }
    }
}

pub(crate) fn zobrist() -> &'static Zobrist {
    static Z: std::sync::OnceLock<Zobrist> = std::sync::OnceLock::new();
    Z.get_or_init(|| {
        // splitmix64
        let mut state: u64 = 0x5241_5645_4e50_4f53; // "RAVENPOS"
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let pieces = (0..2 * MAX_KINDS * SQUARE_COUNT).map(|_| next()).collect();
        let hands = (0..2 * MAX_KINDS * 256).map(|_| next()).collect();
        let side = next();
        // Drawn after the others, so the hashes of positions without variant state stay
        // what they were.
        let variant = (0..VARIANT_STATE_LEN * 256).map(|_| next()).collect();
        let eps = (0..SQUARE_COUNT).map(|_| next()).collect();
        let castles = (0..4 * SQUARE_COUNT).map(|_| next()).collect();
        Zobrist { pieces, hands, eps, side, variant, castles }
    })
}
