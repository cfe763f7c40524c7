//! A playable variant: definition + move tables + rules; move generation, legality,
//! making moves, game end and perft.

use std::fmt;
use std::sync::Arc;

use super::def::GameDef;
use super::geometry::{Square, SquareSet};
use super::piece::{Piece, PieceKind, Side};
use super::position::{MAX_KINDS, Move, Position};
use super::tables::{NO_SQUARE, Tables};

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `winner` won.
    Win {
        /// The winning side.
        winner: Side,
        /// Why.
        reason: EndReason,
    },
    /// A draw.
    Draw {
        /// Why.
        reason: EndReason,
    },
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move.
    Stalemate,
    /// The side to move's royal piece was captured and nothing may take its place
    /// (Fidchell, rulings §3.8).
    RoyalCaptured,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::RoyalCaptured => "king captured",
        })
    }
}

/// Variant behaviour the data cannot express. One implementation per game; the generic
/// engine (atoms, tables, check) does everything else.
pub trait Rules: Send + Sync + fmt::Debug {
    /// Pseudo-legal moves beyond the pieces' atoms (drops, portal entries, en passant):
    /// pushed onto `out`. Default: none.
    fn extra_moves(&self, _v: &Variant, _pos: &Position, _out: &mut Vec<Move>) {}

    /// The result when the side to move has no legal move; `in_check` says whether its
    /// royal piece is attacked.
    fn no_legal_moves(&self, pos: &Position, in_check: bool) -> Outcome;

    /// Fills in what the start position holds beyond the definition's setup (pieces in
    /// hand or reserve, variant state). Default: nothing.
    fn init_start(&self, _v: &Variant, _pos: &mut Position) {}

    /// The variant's own legality: keeps the legal moves of `moves` (all pseudo-legal in
    /// `pos`) and returns `true`; or returns `false` (the default) to let the engine apply
    /// the usual rule that no move may leave the mover's royal piece attacked.
    fn filter_legal(&self, _v: &Variant, _pos: &Position, _moves: &mut Vec<Move>) -> bool {
        false
    }

    /// Whether [`Rules::filter_legal`] decides legality for this variant (so one move's
    /// legality cannot be judged alone). Default: no.
    fn own_legality(&self) -> bool {
        false
    }

    /// Attacks the movement tables do not show (Fidchell: the Unicorn's jump, the
    /// Wyvern's long leaps): whether `by` could capture on `target`. Default: none.
    fn extra_attack(&self, _v: &Variant, _pos: &Position, _target: Square, _by: Side) -> bool {
        false
    }

    /// Updates variant state once `mv` has been played from `before` into `after`
    /// (before the side to move changes). Default: nothing.
    fn after_make(&self, _v: &Variant, _before: &Position, _mv: &Move, _after: &mut Position) {}

    /// Whether a position may be set up with the side not to move in check (Fidchell:
    /// a King may be left attacked while a successor is on the field). Default: no.
    fn allows_royal_left_attacked(&self) -> bool {
        false
    }
}

/// A variant ready to play: its definition, precomputed tables and rules.
///
/// Cheap to share: hold it in an [`Arc`].
pub struct Variant {
    def: GameDef,
    tables: Tables,
    rules: Box<dyn Rules>,
    /// Freezing kinds: (offset from the freezer to the frozen square, mask of kinds).
    freezer: Option<(super::geometry::Offset, u64)>,
    royal_kinds: u64,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant").field("slug", &self.def.slug).finish()
    }
}

/// Why a position could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A piece stands on a square the board does not have.
    #[error("square {0} is not on the board")]
    OffBoard(usize),
    /// Two pieces on one square.
    #[error("two pieces on one square ({0})")]
    Occupied(String),
    /// A piece kind the variant does not have.
    #[error("piece kind {0} does not exist in this variant")]
    UnknownKind(usize),
    /// More than one royal piece for a side.
    #[error("{0} has more than one royal piece")]
    TwoRoyals(String),
    /// The side not to move is in check: its royal piece could be captured at once.
    #[error("the side not to move is in check")]
    OpponentInCheck,
}

impl Variant {
    /// Builds a variant from its definition and rules.
    ///
    /// # Panics
    /// If the definition has more than [`MAX_KINDS`] kinds (definitions are checked when
    /// read, see [`crate::variants`]).
    pub fn new(def: GameDef, rules: Box<dyn Rules>) -> Arc<Variant> {
        assert!(def.kinds.len() <= MAX_KINDS, "too many piece kinds");
        let tables = Tables::build(&def);
        let mut freezer = None;
        let mut royal_kinds = 0u64;
        for (i, k) in def.kinds.iter().enumerate() {
            if let Some(off) = k.freezes {
                let e = freezer.get_or_insert((off, 0u64));
                e.1 |= 1 << i;
            }
            if k.royal {
                royal_kinds |= 1 << i;
            }
        }
        Arc::new(Variant { def, tables, rules, freezer, royal_kinds })
    }

    /// The variant's definition.
    pub fn def(&self) -> &GameDef {
        &self.def
    }

    /// The start position.
    pub fn start_position(&self) -> Position {
        let mut pos =
            self.setup(&self.def.setup, Side::White, &[]).expect("built-in setups are valid (tested)");
        self.rules.init_start(self, &mut pos);
        pos
    }

    /// A position with `pieces` on the board, `side` to move and `hand` (side, kind,
    /// count) off the board; clocks at 0 and move 1.
    ///
    /// # Errors
    /// [`SetupError`] when a square is off the board or doubly used, a kind unknown, a
    /// side has two royal pieces, or the side not to move is in check.
    pub fn setup(
        &self,
        pieces: &[(Square, Piece)],
        side: Side,
        hand: &[(Side, PieceKind, u8)],
    ) -> Result<Position, SetupError> {
        let mut pos = Position::empty(side);
        for &(sq, p) in pieces {
            if !self.def.dims.contains(sq) {
                return Err(SetupError::OffBoard(sq.index()));
            }
            if p.kind.index() >= self.def.kinds.len() {
                return Err(SetupError::UnknownKind(p.kind.index()));
            }
            if pos.piece_at(sq).is_some() {
                return Err(SetupError::Occupied(self.def.dims.name(sq)));
            }
            pos.put(sq, p);
            if self.is_royal(p.kind) {
                if pos.royal[p.side.index()].is_some() {
                    return Err(SetupError::TwoRoyals(self.def.side_name(p.side).to_string()));
                }
                pos.royal[p.side.index()] = Some(sq);
            }
        }
        for &(s, k, n) in hand {
            if k.index() >= self.def.kinds.len() {
                return Err(SetupError::UnknownKind(k.index()));
            }
            pos.set_hand(s, k, n);
        }
        if let Some(k) = pos.royal[side.opponent().index()]
            && !self.rules.allows_royal_left_attacked()
            && self.attacked(&pos, k, side)
        {
            return Err(SetupError::OpponentInCheck);
        }
        Ok(pos)
    }

    /// Sets the clocks of `pos` (used when reading position strings).
    pub fn set_clocks(&self, pos: &mut Position, halfmove_clock: u16, fullmove_number: u16) {
        pos.halfmove_clock = halfmove_clock;
        pos.fullmove_number = fullmove_number.max(1);
    }

    #[inline]
    fn is_royal(&self, kind: PieceKind) -> bool {
        self.royal_kinds & (1 << kind.index()) != 0
    }

    /// Whether the piece on `sq` is frozen: an enemy freezer stands at the freezer's
    /// offset below it (rulings §2.9). Frozen pieces cannot move and give no check.
    #[inline]
    pub fn is_frozen(&self, pos: &Position, sq: Square) -> bool {
        let Some((off, mask)) = self.freezer else { return false };
        let Some(p) = pos.piece_at(sq) else { return false };
        let back = super::geometry::Offset::new(-off.dl, -off.df, -off.dr);
        // The freezer's offset is given for the first side; mirror for the second.
        let back = if p.side == Side::White { back.mirrored() } else { back };
        match self.def.dims.offset(sq, back) {
            Some(f) => match pos.piece_at(f) {
                Some(fp) => fp.side != p.side && mask & (1 << fp.kind.index()) != 0,
                None => false,
            },
            None => false,
        }
    }

    /// Whether a piece of side `by` could capture on `target` now (an attack; for the
    /// royal piece, a check). Frozen pieces do not attack.
    pub fn attacked(&self, pos: &Position, target: Square, by: Side) -> bool {
        let cands = self.tables.reach_to[by.index() * super::geometry::SQUARE_COUNT + target.index()]
            .intersection(&pos.occupied[by.index()]);
        for from in cands.iter() {
            let p = pos.piece_at(from).expect("occupied");
            let kind = p.kind.index();
            if !self.tables.attack_mask[super::tables::slot(kind, by, from)].contains(target) {
                continue;
            }
            if self.freezer.is_some() && self.is_frozen(pos, from) {
                continue;
            }
            for ray in self.tables.rays(kind, by, from) {
                if !ray.mode.captures() {
                    continue;
                }
                if ray.via != NO_SQUARE && pos.board[ray.via as usize] != 0 {
                    continue;
                }
                let mut screened = false;
                for &q in self.tables.squares(ray) {
                    if q as usize == target.index() {
                        if !ray.hop || screened {
                            return true;
                        }
                        break;
                    }
                    if pos.board[q as usize] != 0 {
                        if ray.hop && !screened {
                            screened = true;
                        } else {
                            break;
                        }
                    }
                }
            }
        }
        self.rules.extra_attack(self, pos, target, by)
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self, pos: &Position) -> bool {
        let s = pos.side_to_move;
        match pos.royal[s.index()] {
            Some(k) => self.attacked(pos, k, s.opponent()),
            None => false,
        }
    }

    /// Pseudo-legal moves: what the pieces' movement allows, before king safety.
    pub fn pseudo_legal_moves(&self, pos: &Position, out: &mut Vec<Move>) {
        let side = pos.side_to_move;
        let own = pos.occupied[side.index()];
        let check_freeze = self.freezer.is_some();
        for from in own.iter() {
            let piece = pos.piece_at(from).expect("occupied").kind;
            if check_freeze && self.is_frozen(pos, from) {
                continue;
            }
            self.piece_moves(pos, from, piece, side, out);
        }
        self.rules.extra_moves(self, pos, out);
    }

    fn piece_moves(&self, pos: &Position, from: Square, piece: PieceKind, side: Side, out: &mut Vec<Move>) {
        let k = piece.index();
        let kdef = &self.def.kinds[k];
        let dedupe = self.tables.overlapping[super::tables::slot(k, side, from)];
        let mut seen = SquareSet::EMPTY;
        let mut emit = |to: Square, capture: Option<PieceKind>, out: &mut Vec<Move>| {
            if dedupe {
                if seen.contains(to) {
                    return;
                }
                seen.insert(to);
            }
            self.push_with_promotion(piece, side, from, to, capture, out);
        };
        for ray in self.tables.rays(k, side, from) {
            if ray.via != NO_SQUARE && pos.board[ray.via as usize] != 0 {
                continue;
            }
            let mut screened = false;
            for &q in self.tables.squares(ray) {
                let to = Square::from_index(q as usize).expect("valid");
                match pos.piece_at(to) {
                    None => {
                        if ray.mode.moves() && !screened && !ray.remote {
                            emit(to, None, out);
                        }
                    }
                    Some(t) => {
                        if ray.hop && !screened {
                            screened = true;
                            continue;
                        }
                        if t.side != side && ray.mode.captures() && (!ray.hop || screened) {
                            if ray.remote {
                                out.push(Move::Remote { piece, from, target: to, capture: t.kind });
                            } else {
                                emit(to, Some(t.kind), out);
                            }
                        }
                        break;
                    }
                }
            }
        }
        if kdef.return_to_start_from & (1 << from.level().index()) != 0 {
            for to in self.tables.start_squares[k * 2 + side.index()].iter() {
                if pos.board[to.index()] == 0 {
                    emit(to, None, out);
                }
            }
        }
    }

    fn push_with_promotion(
        &self,
        piece: PieceKind,
        side: Side,
        from: Square,
        to: Square,
        capture: Option<PieceKind>,
        out: &mut Vec<Move>,
    ) {
        if let Some(promo) = &self.def.kinds[piece.index()].promotion {
            let ranks = self.def.dims.ranks() as usize;
            let r = to.rank().index();
            let depth = if side == Side::White { ranks - 1 - r } else { r };
            if depth < promo.zone as usize {
                for &k in &promo.to {
                    out.push(Move::Normal { piece, from, to, capture, promotion: Some(k) });
                }
                if promo.mandatory {
                    return;
                }
            }
        }
        out.push(Move::Normal { piece, from, to, capture, promotion: None });
    }

    /// Plays `mv` on a copy of `pos` without checking it. Use only with moves from
    /// [`Variant::legal_moves`] or [`Variant::pseudo_legal_moves`] of `pos`.
    pub fn make(&self, pos: &Position, mv: &Move) -> Position {
        let mut p = pos.clone();
        let side = p.side_to_move;
        let mut reset_clock = false;
        match *mv {
            Move::Normal { piece, from, to, promotion, .. } => {
                p.take(from);
                if let Some(c) = p.take(to) {
                    reset_clock = true;
                    if self.is_royal(c.kind) {
                        p.royal[c.side.index()] = None;
                    }
                }
                let kind = promotion.unwrap_or(piece);
                p.put(to, Piece::new(side, kind));
                if self.is_royal(kind) {
                    p.royal[side.index()] = Some(to);
                }
                reset_clock |= promotion.is_some() || self.def.kinds[piece.index()].pawn;
            }
            Move::Remote { target, .. } => {
                if let Some(c) = p.take(target)
                    && self.is_royal(c.kind)
                {
                    p.royal[c.side.index()] = None;
                }
                reset_clock = true;
            }
            Move::Drop { piece, to } => {
                let n = p.hand[side.index()][piece.index()];
                p.set_hand(side, piece, n.saturating_sub(1));
                let pc = Piece::new(side, piece);
                p.put(to, pc);
                if self.is_royal(piece) {
                    p.royal[side.index()] = Some(to);
                }
                reset_clock = true;
            }
            Move::Replace { piece, to, .. } => {
                p.take(to);
                p.put(to, Piece::new(side, piece));
                if self.is_royal(piece) {
                    p.royal[side.index()] = Some(to);
                }
                reset_clock = true;
            }
        }
        p.halfmove_clock = if reset_clock { 0 } else { p.halfmove_clock.saturating_add(1) };
        self.rules.after_make(self, pos, mv, &mut p);
        p.flip_side();
        p
    }

    /// Whether `mv`, pseudo-legal in `pos`, leaves the mover's royal piece safe.
    fn leaves_royal_safe(&self, after: &Position, mover: Side) -> bool {
        match after.royal[mover.index()] {
            Some(k) => !self.attacked(after, k, mover.opponent()),
            None => true,
        }
    }

    /// Whether `mv`, a pseudo-legal move of `pos`, is legal. For variants with the usual
    /// rule this tests the one move; a variant with its own legality
    /// ([`Rules::own_legality`], which can depend on the other moves, as Fidchell's
    /// compulsory King capture does) has the whole list computed.
    pub fn is_legal_pseudo(&self, pos: &Position, mv: &Move) -> bool {
        if self.rules.own_legality() {
            return self.legal_moves(pos).contains(mv);
        }
        self.leaves_royal_safe(&self.make(pos, mv), pos.side_to_move)
    }

    /// Every legal move in `pos`, in generation order (by origin square, then atom).
    pub fn legal_moves(&self, pos: &Position) -> Vec<Move> {
        let mut out = Vec::with_capacity(128);
        self.pseudo_legal_moves(pos, &mut out);
        if !self.rules.filter_legal(self, pos, &mut out) {
            out.retain(|m| self.is_legal_pseudo(pos, m));
        }
        out
    }

    /// Whether `mv` is legal in `pos`.
    pub fn is_legal(&self, pos: &Position, mv: &Move) -> bool {
        self.legal_moves(pos).contains(mv)
    }

    /// The game's end in `pos`, if it is over by the rules alone (no legal move).
    /// Draws that must be claimed (repetition, ply count) are not reported here.
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if self.legal_moves(pos).is_empty() {
            Some(self.rules.no_legal_moves(pos, self.in_check(pos)))
        } else {
            None
        }
    }

    /// Number of leaf nodes of the legal move tree of `depth` plies from `pos` (perft).
    /// Counts the last ply in bulk (the number of legal moves, without making them).
    pub fn perft(&self, pos: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut moves = Vec::with_capacity(128);
        self.pseudo_legal_moves(pos, &mut moves);
        if self.rules.filter_legal(self, pos, &mut moves) {
            if depth == 1 {
                return moves.len() as u64;
            }
            return moves.iter().map(|m| self.perft(&self.make(pos, m), depth - 1)).sum();
        }
        let mover = pos.side_to_move;
        let mut n = 0;
        for m in &moves {
            let next = self.make(pos, m);
            if !self.leaves_royal_safe(&next, mover) {
                continue;
            }
            n += if depth == 1 { 1 } else { self.perft(&next, depth - 1) };
        }
        n
    }

    /// Perft split by first move: each legal move of `pos` with its subtree count.
    pub fn perft_divide(&self, pos: &Position, depth: u32) -> Vec<(Move, u64)> {
        if depth == 0 {
            return Vec::new();
        }
        self.legal_moves(pos)
            .into_iter()
            .map(|m| {
                let n = self.perft(&self.make(pos, &m), depth - 1);
                (m, n)
            })
            .collect()
    }
}
