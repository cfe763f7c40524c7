//! A playable variant: definition + move tables + rules; move generation, legality,
//! making moves, game end and perft.

use std::fmt;
use std::sync::Arc;

use super::def::GameDef;
use super::geometry::{Square, SquareSet};
use super::piece::{Piece, PieceKind, Side};
use super::position::{EnPassant, MAX_KINDS, Move, Position};
use super::tables::{NO_SQUARE, Tables};

thread_local! {
    /// How many times this thread generated a position's moves: a counter for the tests
    /// that check how often a command replays a game ([`generations`]). No setting: it
    /// only counts.
    static GENERATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has generated a position's moves
/// ([`Variant::pseudo_legal_moves`], which every legal-move generation starts with). For
/// tests that count the replays of a command.
#[doc(hidden)]
pub fn generations() -> u64 {
    GENERATIONS.with(std::cell::Cell::get)
}

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

/// Why a game ended. Serialised (in the referee's steps and the verdict cache) as its
/// words in kebab case: `checkmate`, `bare-king`, `counting`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    /// The side to move is in check and has no legal move.
    Checkmate,
    /// The side to move is not in check and has no legal move.
    Stalemate,
    /// The side to move's royal piece was captured and nothing may take its place
    /// (Fidchell, rulings §3.8).
    RoyalCaptured,
    /// A side has only its king left (shatranj, courier: Fairy-Stockfish's extinction of
    /// all pieces but one), and the other side cannot bare it in return at once.
    BareKing,
    /// A side has lost every piece of a kind the definition's extinction rule counts.
    Extinction,
    /// The count of a counting rule (makruk, Cambodian, ASEAN) passed its limit: a draw.
    Counting,
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::RoyalCaptured => "king captured",
            EndReason::BareKing => "bare king",
            EndReason::Extinction => "extinction",
            EndReason::Counting => "counting rule",
        })
    }
}

/// Variant behaviour the data cannot express. One implementation per game; the generic
/// engine (atoms, tables, check) does everything else.
pub trait Rules: Send + Sync + fmt::Debug {
    /// Pseudo-legal moves beyond the pieces' atoms and en passant (drops, portal
    /// entries, the Orc's removals): pushed onto `out`, which already holds the generic
    /// moves (a rule may read them, e.g. to add variants of some). Default: none.
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

    /// Whether every position has one royal piece per side (Gygax Chess, Fantasy Grand
    /// Chess). Fidchell: no, a captured King waits for its re-introduction. Default: yes.
    fn requires_royal(&self) -> bool {
        true
    }

    /// Whether the engine may judge a move legal without making it: when the mover is not
    /// in check, a plain move of a non-royal piece that leaves (and, for hoppers, enters)
    /// no square on an enemy piece's path to the mover's royal piece (see `LegalFilter`).
    /// Only sound when every attack is a capture of the movement tables (no
    /// [`Rules::extra_attack`]), no rule changes the board beyond the move itself, and
    /// [`Rules::extra_moves`] does not read the generic moves (perft counts some of them
    /// without listing them). Freezing is allowed: moves of freezing pieces (which may unfreeze an enemy
    /// attacker) are always made and checked. Default: no.
    fn legality_shortcut(&self) -> bool {
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
    /// `[kind][side]` → how many pieces of that kind the side has in the setup.
    start_count: Vec<[u8; 2]>,
    /// Whether any kind may be captured en passant.
    has_en_passant: bool,
    /// Whether legality may be decided without making the move (see [`LegalFilter`]).
    shortcut: bool,
    /// `[slot(kind, side, sq)]` → whether perft may count that piece's moves without
    /// listing them: no capture without moving, no move into a promotion zone.
    countable: Vec<bool>,
    /// `[side]` → the codes that side's pieces are read by, in the kinds' order: each
    /// kind's code, then its other read codes ([`Variant::codes`]).
    codes: [Vec<(PieceKind, String)>; 2],
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant").field("slug", &self.def.slug).finish()
    }
}

/// The rook of a castling right as a position string names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastleRook {
    /// `K`/`k`: the outermost castling rook towards the higher files.
    KingSide,
    /// `Q`/`q`: the outermost castling rook towards the lower files.
    QueenSide,
    /// A file letter (Shredder-FEN, X-FEN): the rook on that file, 0 = a.
    File(u8),
}

impl CastleRook {
    /// The letter as `side` writes it.
    pub fn field(self, side: Side) -> String {
        let c = match self {
            CastleRook::KingSide => 'K',
            CastleRook::QueenSide => 'Q',
            CastleRook::File(f) => (b'A' + f) as char,
        };
        if side == Side::White { c.to_string() } else { c.to_ascii_lowercase().to_string() }
    }
}

/// Why a position could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// A piece stands on a square the board does not have.
    #[error("square {0} is not on the board")]
    OffBoard(usize),
    /// The en passant field names a square no two-square move could have passed.
    #[error("no en passant capture can go to {0}")]
    EnPassant(String),
    /// Two pieces on one square.
    #[error("two pieces on one square ({0})")]
    Occupied(String),
    /// A piece kind the variant does not have.
    #[error("piece kind {0} does not exist in this variant")]
    UnknownKind(usize),
    /// More than one royal piece for a side.
    #[error("{0} has more than one royal piece")]
    TwoRoyals(String),
    /// A side has no royal piece where the variant needs one.
    #[error("{0} has no royal piece")]
    NoRoyal(String),
    /// A castling right the position cannot have: no castling king on its rank, or no
    /// castling rook where the right names one.
    #[error("no castling right `{0}` here: {1}")]
    Castling(String, String),
    /// The side not to move is in check: its royal piece could be captured at once.
    #[error("the side not to move is in check")]
    OpponentInCheck,
    /// A piece stands unpromoted where it must have promoted on arrival (a Warrior on its
    /// far rank, a Grand Chess pawn on its last rank).
    #[error("{side} {kind} on {square} must have promoted there")]
    MustHavePromoted {
        /// The side's name.
        side: String,
        /// The piece kind's name.
        kind: String,
        /// The square's name.
        square: String,
    },
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
        let mut start_count = vec![[0u8; 2]; def.kinds.len()];
        for (_, p) in &def.setup {
            start_count[p.kind.index()][p.side.index()] += 1;
        }
        let has_en_passant = def.kinds.iter().any(|k| k.en_passant);
        let shortcut = rules.legality_shortcut() && !rules.own_legality();
        let countable = countable_slots(&def, &tables);
        let codes = Side::ALL.map(|side| {
            let owned = def.kinds.iter().enumerate().filter(|(_, k)| k.owned_by(side));
            owned
                .flat_map(|(i, k)| {
                    std::iter::once(&k.code)
                        .chain(&k.read_codes)
                        .map(move |c| (PieceKind::new(i as u8), c.clone()))
                })
                .collect()
        });
        Arc::new(Variant {
            def,
            tables,
            rules,
            freezer,
            royal_kinds,
            start_count,
            has_en_passant,
            shortcut,
            countable,
            codes,
        })
    }

    /// The codes the pieces of `side` are read by, in the order of the kinds: each kind's
    /// code, then its other read codes (kinds `side` cannot own are left out).
    pub fn codes(&self, side: Side) -> &[(PieceKind, String)] {
        &self.codes[side.index()]
    }

    /// The variant's definition.
    pub fn def(&self) -> &GameDef {
        &self.def
    }

    /// The start position.
    pub fn start_position(&self) -> Position {
        self.start_from(&self.def.setup).expect("built-in setups are valid (tested)")
    }

    /// The start position with `setup`'s pieces in place of the definition's: the first
    /// side to move, each outermost castling rook's right, the rules' start state.
    ///
    /// # Errors
    /// [`SetupError`] as for [`Variant::setup`].
    pub fn start_from(&self, setup: &[(Square, Piece)]) -> Result<Position, SetupError> {
        let mut pos = self.setup(setup, Side::White, &[])?;
        for side in Side::ALL {
            for king_side in [true, false] {
                if let Some(rook) = self.outermost_rook(&pos, side, king_side) {
                    pos.set_castling(side.index() * 2 + usize::from(!king_side), Some(rook));
                }
            }
        }
        self.rules.init_start(self, &mut pos);
        Ok(pos)
    }

    /// A position with `pieces` on the board, `side` to move and `hand` (side, kind,
    /// count) off the board; clocks at 0 and move 1.
    ///
    /// # Errors
    /// [`SetupError`] when a square is off the board or doubly used, a kind unknown, a
    /// piece stands unpromoted in its compulsory promotion zone, a side has two royal
    /// pieces, or the side not to move is in check.
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
            if let Some(promo) = &self.def.kinds[p.kind.index()].promotion {
                let ranks = self.def.dims.ranks() as usize;
                let r = sq.rank().index();
                let depth = if p.side == Side::White { ranks - 1 - r } else { r };
                if (promo.mandatory && depth < promo.zone as usize) || depth < promo.forced_zone as usize {
                    return Err(SetupError::MustHavePromoted {
                        side: self.def.side_name(p.side).to_string(),
                        kind: self.def.kinds[p.kind.index()].name.clone(),
                        square: self.def.dims.name(sq),
                    });
                }
            }
            pos.put(sq, p);
            if self.is_royal(p.kind) {
                if pos.royal[p.side.index()].is_some() {
                    return Err(SetupError::TwoRoyals(self.def.side_name(p.side).to_string()));
                }
                pos.royal[p.side.index()] = Some(sq);
            }
        }
        if self.royal_kinds != 0 && self.rules.requires_royal() {
            for s in Side::ALL {
                if pos.royal[s.index()].is_none() {
                    return Err(SetupError::NoRoyal(self.def.side_name(s).to_string()));
                }
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

    /// Sets the en passant right of `pos` (used when reading position strings).
    ///
    /// # Errors
    /// [`SetupError::EnPassant`] unless the victim is a piece of the side not to move
    /// whose kind may be captured en passant, standing two steps in a line from an empty
    /// origin square with `passed` empty between them.
    pub fn set_en_passant(&self, pos: &mut Position, ep: Option<EnPassant>) -> Result<(), SetupError> {
        if let Some(e) = ep {
            let bad = || SetupError::EnPassant(self.def.dims.name(e.passed));
            let victim = pos.piece_at(e.victim).ok_or_else(bad)?;
            let (vf, vr) = (e.victim.file().index() as i32, e.victim.rank().index() as i32);
            let (pf, pr) = (e.passed.file().index() as i32, e.passed.rank().index() as i32);
            let origin = self.def.dims.square_at(e.passed.level().index() as i32, 2 * pf - vf, 2 * pr - vr);
            let ok = victim.side != pos.side_to_move
                && self.def.kinds[victim.kind.index()].en_passant
                && (vf - pf).abs() <= 1
                && (vr - pr).abs() == 1
                && pos.piece_at(e.passed).is_none()
                && origin.is_some_and(|o| pos.piece_at(o).is_none());
            if !ok {
                return Err(bad());
            }
        }
        pos.set_en_passant(ep);
        Ok(())
    }

    /// How many pieces of `kind` `side` has in the start position.
    pub fn start_count(&self, side: Side, kind: PieceKind) -> u8 {
        self.start_count[kind.index()][side.index()]
    }

    /// Whether `kind` is royal (its capture or removal ends the game).
    pub fn is_royal_kind(&self, kind: PieceKind) -> bool {
        self.is_royal(kind)
    }

    /// The pseudo-legal moves of the piece on `from` (its atoms only; no en passant).
    pub fn piece_pseudo_moves(&self, pos: &Position, from: Square, out: &mut Vec<Move>) {
        if let Some(p) = pos.piece_at(from) {
            self.piece_moves(pos, from, p.kind, p.side, out);
        }
    }

    /// The en passant captures of the side to move (rulings §4.4).
    pub fn en_passant_captures(&self, pos: &Position, out: &mut Vec<Move>) {
        if let Some(ep) = pos.en_passant {
            self.en_passant_moves(pos, ep, pos.side_to_move, Some(out));
        }
    }

    /// The castling rank of `side` on the board (rank index), if the game castles.
    fn castling_rank(&self, side: Side) -> Option<i32> {
        let c = self.def.castling.as_ref()?;
        let last = self.def.dims.ranks() as i32 - 1;
        Some(if side == Side::White { c.rank as i32 } else { last - c.rank as i32 })
    }

    /// The square of `side`'s castling king, if it stands on its castling rank.
    fn castling_king(&self, pos: &Position, side: Side) -> Option<Square> {
        let c = self.def.castling.as_ref()?;
        let k = pos.royal[side.index()]?;
        let on_rank = k.rank().index() as i32 == self.castling_rank(side)?;
        (on_rank && pos.piece_at(k).is_some_and(|p| p.kind == c.king)).then_some(k)
    }

    /// Whether `sq` holds a castling rook of `side`.
    fn is_castling_rook(&self, pos: &Position, side: Side, sq: Square) -> bool {
        let Some(c) = &self.def.castling else {
            return false;
        };
        pos.piece_at(sq).is_some_and(|p| p.side == side && c.rooks.contains(&p.kind))
    }

    /// The outermost castling rook of `side` on its castling rank towards the higher files
    /// (`king_side`) or the lower from its castling king: the rook `K` or `Q` of a
    /// position string names.
    pub fn outermost_rook(&self, pos: &Position, side: Side, king_side: bool) -> Option<Square> {
        let k = self.castling_king(pos, side)?;
        let (level, rank, kf) = (k.level().index() as i32, k.rank().index() as i32, k.file().index() as i32);
        let files = self.def.dims.files() as i32;
        let order: Vec<i32> = if king_side { ((kf + 1)..files).rev().collect() } else { (0..kf).collect() };
        order
            .into_iter()
            .filter_map(|f| self.def.dims.square_at(level, f, rank))
            .find(|&sq| self.is_castling_rook(pos, side, sq))
    }

    /// Gives `side` the castling right with the rook `rook` names (used when reading
    /// position strings).
    ///
    /// # Errors
    /// [`SetupError::Castling`] when the game has no castling, `side`'s castling king is
    /// not on its castling rank, or no castling rook of `side` stands where `rook` says.
    pub fn add_castling_right(
        &self,
        pos: &mut Position,
        side: Side,
        rook: CastleRook,
    ) -> Result<(), SetupError> {
        let field = rook.field(side);
        let bad = |why: &str| SetupError::Castling(field.clone(), why.to_string());
        if self.def.castling.is_none() {
            return Err(bad("this game has no castling"));
        }
        let k = self
            .castling_king(pos, side)
            .ok_or_else(|| bad("the castling king is not on its castling rank"))?;
        let sq = match rook {
            CastleRook::KingSide => self.outermost_rook(pos, side, true),
            CastleRook::QueenSide => self.outermost_rook(pos, side, false),
            CastleRook::File(f) => self
                .def
                .dims
                .square_at(k.level().index() as i32, f as i32, k.rank().index() as i32)
                .filter(|&sq| self.is_castling_rook(pos, side, sq)),
        }
        .ok_or_else(|| bad("no castling rook of that side stands there"))?;
        let king_side = sq.file().index() > k.file().index();
        pos.set_castling(side.index() * 2 + usize::from(!king_side), Some(sq));
        Ok(())
    }

    /// The castling moves of the side to move: the right still there, the squares king
    /// and rook cross empty, and the king neither in check nor crossing or landing on an
    /// attacked square (whether it is left in check at all is judged as for any move).
    fn castling_moves(&self, pos: &Position, out: &mut Vec<Move>) {
        let Some(c) = &self.def.castling else {
            return;
        };
        let side = pos.side_to_move;
        if pos.castling[side.index() * 2] == super::position::NO_CASTLING
            && pos.castling[side.index() * 2 + 1] == super::position::NO_CASTLING
        {
            return;
        }
        let Some(k) = self.castling_king(pos, side) else {
            return;
        };
        let (level, rank) = (k.level().index() as i32, k.rank().index() as i32);
        let mut in_check = None;
        for king_side in [true, false] {
            let Some(r) = pos.castling_rook(side, king_side) else {
                continue;
            };
            let kf = i32::from(if king_side { c.king_side_file } else { c.queen_side_file });
            let rf = if king_side { kf - 1 } else { kf + 1 };
            let (Some(kto), Some(rto)) =
                (self.def.dims.square_at(level, kf, rank), self.def.dims.square_at(level, rf, rank))
            else {
                continue;
            };
            let span = |a: Square, b: Square| {
                let (x, y) = (a.file().index() as i32, b.file().index() as i32);
                x.min(y)..=x.max(y)
            };
            let crossed = span(k, kto).chain(span(r, rto));
            let blocked = crossed
                .filter_map(|f| self.def.dims.square_at(level, f, rank))
                .any(|sq| sq != k && sq != r && pos.piece_at(sq).is_some());
            if blocked || !self.is_castling_rook(pos, side, r) {
                continue;
            }
            if *in_check.get_or_insert_with(|| self.attacked(pos, k, side.opponent())) {
                return;
            }
            let by = side.opponent();
            let attacked = span(k, kto)
                .filter_map(|f| self.def.dims.square_at(level, f, rank))
                .any(|sq| sq != k && self.attacked(pos, sq, by));
            if attacked {
                continue;
            }
            let rook = pos.piece_at(r).expect("castling rook").kind;
            out.push(Move::Castle { piece: c.king, from: k, to: kto, rook, rook_from: r, rook_to: rto });
        }
    }

    /// Clears the castling rights `mv` (played from `before` into `after`) ends: a king
    /// that moved or was taken loses both, a rook that moved or was taken its own.
    fn update_castling(&self, before: &Position, mv: &Move, after: &mut Position) {
        for side in Side::ALL {
            let king_moved = before.royal[side.index()] != after.royal[side.index()];
            for wing in 0..2 {
                let slot = side.index() * 2 + wing;
                let Some(r) = after.castling_rook(side, wing == 0) else {
                    continue;
                };
                if king_moved || mv.from() == Some(r) || !self.is_castling_rook(after, side, r) {
                    after.set_castling(slot, None);
                }
            }
        }
    }

    /// How the game ends by extinction in `pos`, if it does (the definition's
    /// [`super::def::Extinction`]; Fairy-Stockfish's order: the side not to move first).
    pub fn extinct(&self, pos: &Position) -> Option<Outcome> {
        let e = self.def.extinction.as_ref()?;
        let count = |side: Side, kind: Option<PieceKind>| -> u32 {
            let on_board = pos.occupied[side.index()]
                .iter()
                .filter(|&sq| kind.is_none_or(|k| pos.piece_at(sq).is_some_and(|p| p.kind == k)))
                .count() as u32;
            let in_hand: u32 = match kind {
                Some(k) => u32::from(pos.hand[side.index()][k.index()]),
                None => pos.hand[side.index()].iter().map(|&n| u32::from(n)).sum(),
            };
            on_board + in_hand
        };
        let kinds: Vec<Option<PieceKind>> =
            if e.kinds.is_empty() { vec![None] } else { e.kinds.iter().copied().map(Some).collect() };
        let stm = pos.side_to_move;
        for side in [stm.opponent(), stm] {
            for &kind in &kinds {
                let needed = u32::from(e.opponent_count) + u32::from(e.claim && side == stm);
                if count(side, kind) <= u32::from(e.count) && count(side.opponent(), kind) >= needed {
                    let reason = if e.kinds.is_empty() && e.count == 1 {
                        EndReason::BareKing
                    } else {
                        EndReason::Extinction
                    };
                    return Some(match e.result {
                        super::def::EndValue::Loss => Outcome::Win { winner: side.opponent(), reason },
                        super::def::EndValue::Win => Outcome::Win { winner: side, reason },
                        super::def::EndValue::Draw => Outcome::Draw { reason },
                    });
                }
            }
        }
        None
    }

    /// Whether the game is over in `pos` before its moves: by extinction, or by a count
    /// that passed its limit. Such a position has no legal move.
    #[inline]
    fn ended_before_moves(&self, pos: &Position) -> bool {
        super::counting::run_out(pos) || (self.def.extinction.is_some() && self.extinct(pos).is_some())
    }

    /// Sets the count of a counting rule in `pos` (used when reading position strings):
    /// `ply` plies counted of a limit of `limit` plies (0: no count).
    ///
    /// # Errors
    /// When the variant has no counting rule and `limit` is not 0.
    pub fn set_count(&self, pos: &mut Position, ply: u16, limit: u16) -> Result<(), String> {
        if self.def.counting.is_none() && limit != 0 {
            return Err("this game has no counting rule".into());
        }
        pos.count_ply = if limit == 0 { 0 } else { ply };
        pos.count_limit = limit;
        Ok(())
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
        let Some((off, mask)) = self.freezer else {
            return false;
        };
        let Some(p) = pos.piece_at(sq) else {
            return false;
        };
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
        if self.captures_on(pos, target, by, cands.iter(), |q| pos.board[q] != 0) {
            return true;
        }
        self.rules.extra_attack(self, pos, target, by)
    }

    /// The position after the side to move passes: a null move, which no game's rules
    /// allow but a search's pruning plays (the other side to move, no en passant right,
    /// the ply clock one more; the variant's own state unchanged).
    pub fn make_null(&self, pos: &Position) -> Position {
        let mut p = pos.clone();
        p.set_en_passant(None);
        p.halfmove_clock = p.halfmove_clock.saturating_add(1);
        p.flip_side();
        p
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
        GENERATIONS.with(|n| n.set(n.get() + 1));
        if self.ended_before_moves(pos) {
            return;
        }
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
        if let Some(ep) = pos.en_passant {
            self.en_passant_moves(pos, ep, side, Some(out));
        }
        self.castling_moves(pos, out);
        self.rules.extra_moves(self, pos, out);
    }

    /// Pushes onto `out` the pseudo-legal moves of `pos` that act on `to` ([`Move::to`]) and
    /// whose piece's kind is in `kinds` (bit `k` for kind `k`; `u64::MAX` for all), in the
    /// order of [`Variant::pseudo_legal_moves`]: the same as generating all and keeping
    /// those, but only the pieces of those kinds that could reach `to` on an empty board
    /// have their moves generated, and only their moves onto `to`. Counts as one
    /// generation ([`generations`]).
    pub fn pseudo_legal_moves_to(&self, pos: &Position, to: Square, kinds: u64, out: &mut Vec<Move>) {
        GENERATIONS.with(|n| n.set(n.get() + 1));
        if self.ended_before_moves(pos) {
            return;
        }
        let start = out.len();
        let side = pos.side_to_move;
        let check_freeze = self.freezer.is_some();
        let cands = self.arrive_from(side, to, kinds).intersection(&pos.occupied[side.index()]);
        for from in cands.iter() {
            let piece = pos.piece_at(from).expect("occupied").kind;
            if kinds & (1 << piece.index()) == 0
                || !self.tables.reach_mask[super::tables::slot(piece.index(), side, from)].contains(to)
                || (check_freeze && self.is_frozen(pos, from))
            {
                continue;
            }
            self.piece_moves_onto(pos, from, piece, side, Some(to), out);
        }
        if let Some(ep) = pos.en_passant
            && ep.passed == to
        {
            self.en_passant_moves(pos, ep, side, Some(out));
        }
        self.castling_moves(pos, out);
        // The rules' moves may be made from the generic ones (the Orc's removals: from its
        // moves to `to`, the removals to `to`); the others are kept only if they act on `to`.
        self.rules.extra_moves(self, pos, out);
        keep_to(out, start, to, kinds);
    }

    /// The squares from which a piece of `side` of a kind in `kinds` could end a move on
    /// `to` on an empty board: the union of each kind's squares when a few kinds are
    /// asked (a move token names one, or the letterless ones), else every kind's.
    fn arrive_from(&self, side: Side, to: Square, kinds: u64) -> SquareSet {
        let known = self.def.kinds.len();
        if kinds.count_ones() > 4 {
            return self.tables.arrive_from[side.index() * super::geometry::SQUARE_COUNT + to.index()];
        }
        let mut from = SquareSet::EMPTY;
        let mut bits = kinds;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if k < known {
                from = from.union(&self.tables.arrive_kind[super::tables::slot(k, side, to)]);
            }
        }
        from
    }

    /// The legal moves of `pos` that act on `to` ([`Move::to`]), in generation order:
    /// [`Variant::legal_moves_where`] with `m.to() == to`, from
    /// [`Variant::pseudo_legal_moves_to`].
    pub fn legal_moves_to(&self, pos: &Position, to: Square) -> Vec<Move> {
        if self.rules.own_legality() {
            return self.legal_moves_where(pos, |m| m.to() == to);
        }
        let mut out = Vec::with_capacity(16);
        self.pseudo_legal_moves_to(pos, to, u64::MAX, &mut out);
        self.legal_among(pos, out)
    }

    /// En passant captures onto `ep.passed` by `side`'s pawns (rulings §4.4): pushed onto
    /// `out` when given; returns whether there is any.
    fn en_passant_moves(
        &self,
        pos: &Position,
        ep: EnPassant,
        side: Side,
        mut out: Option<&mut Vec<Move>>,
    ) -> bool {
        let Some(victim) = pos.piece_at(ep.victim) else {
            return false;
        };
        if victim.side == side || pos.piece_at(ep.passed).is_some() {
            return false;
        }
        let cands = self.tables.reach_to[side.index() * super::geometry::SQUARE_COUNT + ep.passed.index()]
            .intersection(&pos.occupied[side.index()]);
        let mut any = false;
        for from in cands.iter() {
            let p = pos.piece_at(from).expect("occupied");
            let k = p.kind.index();
            if !self.def.kinds[k].pawn || (self.freezer.is_some() && self.is_frozen(pos, from)) {
                continue;
            }
            let reaches = self.tables.rays(k, side, from).iter().any(|ray| {
                if !ray.mode.captures() || ray.hop || ray.remote {
                    return false;
                }
                if ray.via != NO_SQUARE && pos.board[ray.via as usize] != 0 {
                    return false;
                }
                for &q in self.tables.squares(ray) {
                    if q as usize == ep.passed.index() {
                        return true;
                    }
                    if pos.board[q as usize] != 0 {
                        return false;
                    }
                }
                false
            });
            if !reaches {
                continue;
            }
            any = true;
            match out.as_deref_mut() {
                Some(out) => {
                    self.push_with_promotion(pos, p.kind, side, ep.passed, out, |promotion| Move::EnPassant {
                        piece: p.kind,
                        from,
                        to: ep.passed,
                        victim: ep.victim,
                        capture: victim.kind,
                        promotion,
                    })
                }
                None => return true,
            }
        }
        any
    }

    fn piece_moves(&self, pos: &Position, from: Square, piece: PieceKind, side: Side, out: &mut Vec<Move>) {
        self.piece_moves_onto(pos, from, piece, side, None, out);
    }

    /// [`Variant::piece_moves`], keeping only the moves that act on `onto` when given.
    fn piece_moves_onto(
        &self,
        pos: &Position,
        from: Square,
        piece: PieceKind,
        side: Side,
        onto: Option<Square>,
        out: &mut Vec<Move>,
    ) {
        let k = piece.index();
        let kdef = &self.def.kinds[k];
        let dedupe = self.tables.overlapping[super::tables::slot(k, side, from)];
        let mut seen = SquareSet::EMPTY;
        let mut emit = |to: Square, capture: Option<PieceKind>, out: &mut Vec<Move>| {
            if onto.is_some_and(|t| t != to) {
                return;
            }
            if dedupe {
                if seen.contains(to) {
                    return;
                }
                seen.insert(to);
            }
            self.push_with_promotion(pos, piece, side, to, out, |promotion| Move::Normal {
                piece,
                from,
                to,
                capture,
                promotion,
            });
        };
        for ray in self.tables.rays(k, side, from) {
            if ray.via != NO_SQUARE && pos.board[ray.via as usize] != 0 {
                continue;
            }
            let mut squares = self.tables.squares(ray);
            if let Some(onto) = onto {
                // Only a ray through `onto` can act on it, and only up to it.
                match squares.iter().position(|&q| q as usize == onto.index()) {
                    Some(i) => squares = &squares[..=i],
                    None => continue,
                }
            }
            let mut screened = false;
            for &q in squares {
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
                                if onto.is_none_or(|o| o == to) {
                                    out.push(Move::Remote { piece, from, target: to, capture: t.kind });
                                }
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

    /// Pushes the move `mk(promotion)` for each promotion choice of `piece` arriving on
    /// `to`, and `mk(None)` unless promotion is compulsory there.
    fn push_with_promotion(
        &self,
        pos: &Position,
        piece: PieceKind,
        side: Side,
        to: Square,
        out: &mut Vec<Move>,
        mk: impl Fn(Option<PieceKind>) -> Move,
    ) {
        if let Some(promo) = &self.def.kinds[piece.index()].promotion {
            let ranks = self.def.dims.ranks() as usize;
            let r = to.rank().index();
            let depth = if side == Side::White { ranks - 1 - r } else { r };
            if depth < promo.zone as usize {
                if promo.lost_only {
                    let mut on_board = [0u8; MAX_KINDS];
                    for sq in pos.occupied[side.index()].iter() {
                        on_board[pos.piece_at(sq).expect("occupied").kind.index()] += 1;
                    }
                    for &k in &promo.to {
                        if self.start_count[k.index()][side.index()] > on_board[k.index()] {
                            out.push(mk(Some(k)));
                        }
                    }
                } else {
                    for &k in &promo.to {
                        out.push(mk(Some(k)));
                    }
                }
                if promo.mandatory || depth < promo.forced_zone as usize {
                    return;
                }
            }
        }
        out.push(mk(None));
    }

    /// Plays `mv` on a copy of `pos` without checking it. Use only with moves from
    /// [`Variant::legal_moves`] or [`Variant::pseudo_legal_moves`] of `pos`.
    pub fn make(&self, pos: &Position, mv: &Move) -> Position {
        let mut p = pos.clone();
        let side = p.side_to_move;
        let mut reset_clock = false;
        let mut new_ep = None;
        let mut captured = None;
        match *mv {
            Move::Normal { piece, from, to, promotion, .. } => {
                p.take(from);
                if let Some(c) = p.take(to) {
                    captured = Some(c);
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
                if self.has_en_passant && self.def.kinds[piece.index()].en_passant {
                    new_ep = self.two_step(from, to);
                }
            }
            Move::EnPassant { piece, from, to, victim, promotion, .. } => {
                p.take(from);
                captured = p.take(victim);
                let kind = promotion.unwrap_or(piece);
                p.put(to, Piece::new(side, kind));
                reset_clock = true;
            }
            Move::Removal { from, capture, target, .. } => {
                p.take(from);
                if let Some((sq, _)) = capture {
                    captured = p.take(sq);
                }
                if let Some(c) = p.take(target) {
                    captured = Some(c);
                    if self.is_royal(c.kind) {
                        p.royal[c.side.index()] = None;
                    }
                }
                reset_clock = true;
            }
            Move::Remote { target, .. } => {
                if let Some(c) = p.take(target) {
                    captured = Some(c);
                    if self.is_royal(c.kind) {
                        p.royal[c.side.index()] = None;
                    }
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
            Move::Castle { piece, from, to, rook, rook_from, rook_to } => {
                p.take(from);
                p.take(rook_from);
                p.put(to, Piece::new(side, piece));
                p.put(rook_to, Piece::new(side, rook));
                if self.is_royal(piece) {
                    p.royal[side.index()] = Some(to);
                }
            }
        }
        if p.castling != [super::position::NO_CASTLING; 4] {
            self.update_castling(pos, mv, &mut p);
        }
        p.halfmove_clock = if reset_clock { 0 } else { p.halfmove_clock.saturating_add(1) };
        self.rules.after_make(self, pos, mv, &mut p);
        p.flip_side();
        if let Some(c) = &self.def.counting {
            super::counting::after_move(self, c, &mut p, captured, mv.promotion().is_some());
        }
        if p.en_passant.is_some() || new_ep.is_some() {
            // Kept only when the side to move has a legal en passant capture, so equal
            // positions have equal hashes and position strings (position-strings.md §4).
            let keep = new_ep.filter(|ep| {
                let mut caps = Vec::new();
                self.en_passant_moves(&p, *ep, p.side_to_move, Some(&mut caps));
                caps.iter().any(|m| self.leaves_royal_safe(&self.make(&p, m), p.side_to_move))
            });
            p.set_en_passant(keep);
        }
        p
    }

    /// The en passant right of a two-square move in a line from `from` to `to`, if it is one.
    fn two_step(&self, from: Square, to: Square) -> Option<EnPassant> {
        let df = to.file().index() as i32 - from.file().index() as i32;
        let dr = to.rank().index() as i32 - from.rank().index() as i32;
        if dr.abs() != 2 || !(df == 0 || df.abs() == 2) || to.level() != from.level() {
            return None;
        }
        let passed = self.def.dims.square_at(
            from.level().index() as i32,
            from.file().index() as i32 + df / 2,
            from.rank().index() as i32 + dr / 2,
        )?;
        Some(EnPassant { passed, victim: to })
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
        if let Some(safe) = self.step_leaves_royal_safe(pos, mv) {
            return safe;
        }
        self.leaves_royal_safe(&self.make(pos, mv), pos.side_to_move)
    }

    /// Whether the plain move `mv`, pseudo-legal in `pos`, leaves the mover's royal piece
    /// safe, judged without making it; `None` when that needs the move made (other moves,
    /// promotions, moves of freezing pieces, variants without the legality shortcut).
    #[inline]
    fn step_leaves_royal_safe(&self, pos: &Position, mv: &Move) -> Option<bool> {
        let Move::Normal { piece, from, to, promotion: None, .. } = *mv else {
            return None;
        };
        // A freezing piece that moves may free an attacker; the others change no freezing
        // that matters (a captured freezer only froze the mover's own pieces).
        if !self.shortcut || self.freezer.is_some_and(|(_, kinds)| kinds & (1 << piece.index()) != 0) {
            return None;
        }
        let side = pos.side_to_move;
        let royal = if self.is_royal(piece) { to } else { pos.royal[side.index()]? };
        Some(!self.attacked_after_step(pos, royal, from, to, side.opponent()))
    }

    /// Every legal move in `pos`, in generation order (by origin square, then atom).
    pub fn legal_moves(&self, pos: &Position) -> Vec<Move> {
        let mut out = Vec::with_capacity(128);
        self.pseudo_legal_moves(pos, &mut out);
        let filter = self.legal_filter(pos);
        if !self.rules.filter_legal(self, pos, &mut out) {
            out.retain(|m| filter.safe_without_make(m) || self.is_legal_pseudo(pos, m));
        }
        out
    }

    /// The legal moves of `pos` that `keep` accepts, in generation order: the same as
    /// [`Variant::legal_moves`] filtered by `keep`, with legality tested only for the moves
    /// `keep` accepts (a variant with its own legality has the whole list computed).
    pub fn legal_moves_where(&self, pos: &Position, keep: impl Fn(&Move) -> bool) -> Vec<Move> {
        if self.rules.own_legality() {
            let mut legal = self.legal_moves(pos);
            legal.retain(|m| keep(m));
            return legal;
        }
        let mut out = Vec::with_capacity(128);
        self.pseudo_legal_moves(pos, &mut out);
        out.retain(|m| keep(m));
        self.legal_among(pos, out)
    }

    /// [`Variant::legal_moves_where`], given `pseudo`, the pseudo-legal moves of `pos` as
    /// [`Variant::pseudo_legal_moves`] lists them (not generated again).
    pub fn legal_moves_among(
        &self,
        pos: &Position,
        pseudo: &[Move],
        keep: impl Fn(&Move) -> bool,
    ) -> Vec<Move> {
        if self.rules.own_legality() {
            return self.legal_moves_where(pos, keep);
        }
        self.legal_among(pos, pseudo.iter().copied().filter(|m| keep(m)).collect())
    }

    /// The moves of `out` (pseudo-legal in `pos`) that are legal.
    fn legal_among(&self, pos: &Position, mut out: Vec<Move>) -> Vec<Move> {
        let filter = self.legal_filter(pos);
        out.retain(|m| filter.safe_without_make(m) || self.is_legal_pseudo(pos, m));
        out
    }

    /// Whether the side to move in `pos` has a legal move (`!legal_moves(pos).is_empty()`,
    /// stopping at the first legal move found).
    pub fn has_legal_move(&self, pos: &Position) -> bool {
        let mut out = Vec::with_capacity(128);
        self.pseudo_legal_moves(pos, &mut out);
        if self.rules.filter_legal(self, pos, &mut out) {
            return !out.is_empty();
        }
        let filter = self.legal_filter(pos);
        out.iter().any(|m| filter.safe_without_make(m) || self.is_legal_pseudo(pos, m))
    }

    /// What decides, for most moves of `pos`, that they are legal without making them.
    fn legal_filter(&self, pos: &Position) -> LegalFilter {
        let side = pos.side_to_move;
        let mut f = LegalFilter {
            active: false,
            danger: SquareSet::EMPTY,
            hop: false,
            // Moving a freezing piece may unfreeze an enemy attacker: always checked.
            unsafe_kinds: self.royal_kinds | self.freezer.map_or(0, |(_, kinds)| kinds),
        };
        if !self.shortcut {
            return f;
        }
        let Some(k) = pos.royal[side.index()] else {
            return f;
        };
        let by = side.opponent();
        let cands = self.tables.reach_to[by.index() * super::geometry::SQUARE_COUNT + k.index()]
            .intersection(&pos.occupied[by.index()]);
        for from in cands.iter() {
            let kind = pos.piece_at(from).expect("occupied").kind.index();
            if !self.tables.attack_mask[super::tables::slot(kind, by, from)].contains(k) {
                continue;
            }
            for ray in self.tables.rays(kind, by, from) {
                if !ray.mode.captures() {
                    continue;
                }
                let sqs = self.tables.squares(ray);
                let Some(i) = sqs.iter().position(|&q| q as usize == k.index()) else {
                    continue;
                };
                let path = sqs[..i].iter().copied().chain((ray.via != NO_SQUARE).then_some(ray.via));
                if ray.hop {
                    // A hop's screen may come or go: every square of the path counts.
                    for q in path {
                        f.danger.insert(Square::from_index(q as usize).expect("valid"));
                    }
                    f.hop = true;
                    continue;
                }
                // Only the one piece that blocks the path can open it by leaving (with
                // two or more, one stays; with none the royal piece is in check).
                let mut blockers = path.filter(|&q| pos.board[q as usize] != 0);
                if let (Some(q), None) = (blockers.next(), blockers.next()) {
                    f.danger.insert(Square::from_index(q as usize).expect("valid"));
                }
            }
        }
        f.active = !self.attacked(pos, k, by);
        f
    }

    /// Whether `mv` is legal in `pos`.
    pub fn is_legal(&self, pos: &Position, mv: &Move) -> bool {
        self.legal_moves(pos).contains(mv)
    }

    /// The game's end in `pos`, if it is over by the rules alone: extinction, a counting
    /// rule's count run out, or no legal move. Draws that must be claimed (repetition,
    /// ply count) are not reported here.
    pub fn outcome(&self, pos: &Position) -> Option<Outcome> {
        if let Some(end) = self.extinct(pos) {
            return Some(end);
        }
        if super::counting::run_out(pos) {
            // Checkmate still wins when the count has run out (Fairy-Stockfish: the count
            // ends the game only when the side to move has a move or is not in check).
            let mut uncounted = pos.clone();
            uncounted.count_limit = 0;
            if self.in_check(pos) && !self.has_legal_move(&uncounted) {
                return Some(self.rules.no_legal_moves(pos, true));
            }
            return Some(Outcome::Draw { reason: EndReason::Counting });
        }
        if !self.has_legal_move(pos) {
            Some(self.rules.no_legal_moves(pos, self.in_check(pos)))
        } else {
            None
        }
    }

    /// Number of leaf nodes of the legal move tree of `depth` plies from `pos` (perft).
    /// Counts the last ply in bulk (the number of legal moves, without making them).
    pub fn perft(&self, pos: &Position, depth: u32) -> u64 {
        // One move list a ply, reused by every node of that ply.
        let mut lists: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(128)).collect();
        self.perft_with(pos, depth, &mut lists)
    }

    fn perft_with(&self, pos: &Position, depth: u32, lists: &mut [Vec<Move>]) -> u64 {
        let Some((moves, deeper)) = lists.split_first_mut() else {
            return 1;
        };
        moves.clear();
        let filter = if depth == 1 { self.legal_filter(pos) } else { LegalFilter::inactive() };
        if filter.active {
            return self.count_legal(pos, &filter, moves);
        }
        self.pseudo_legal_moves(pos, moves);
        if self.rules.filter_legal(self, pos, moves) {
            if depth == 1 {
                return moves.len() as u64;
            }
            return moves.iter().map(|m| self.perft_with(&self.make(pos, m), depth - 1, deeper)).sum();
        }
        let mover = pos.side_to_move;
        let mut n = 0;
        for m in moves.iter() {
            let next = self.make(pos, m);
            if !self.leaves_royal_safe(&next, mover) {
                continue;
            }
            n += if depth == 1 { 1 } else { self.perft_with(&next, depth - 1, deeper) };
        }
        n
    }

    /// The number of legal moves of `pos`, given its active `filter`: the moves of the
    /// pieces the filter clears are counted without being listed; the others are listed
    /// in `list` and tested one by one.
    fn count_legal(&self, pos: &Position, filter: &LegalFilter, list: &mut Vec<Move>) -> u64 {
        GENERATIONS.with(|n| n.set(n.get() + 1));
        if self.ended_before_moves(pos) {
            return 0;
        }
        let side = pos.side_to_move;
        let check_freeze = self.freezer.is_some();
        let mut n = 0;
        for from in pos.occupied[side.index()].iter() {
            let piece = pos.piece_at(from).expect("occupied").kind;
            if check_freeze && self.is_frozen(pos, from) {
                continue;
            }
            let cleared = filter.unsafe_kinds & (1 << piece.index()) == 0
                && self.countable[super::tables::slot(piece.index(), side, from)]
                && !filter.danger.contains(from)
                && !filter.hop;
            if cleared {
                n += self.count_piece_moves(pos, from, piece.index(), side);
            } else {
                self.piece_moves(pos, from, piece, side, list);
            }
        }
        if let Some(ep) = pos.en_passant {
            self.en_passant_moves(pos, ep, side, Some(list));
        }
        self.castling_moves(pos, list);
        self.rules.extra_moves(self, pos, list);
        for m in list.iter() {
            let legal = filter.safe_without_make(m)
                || match self.step_leaves_royal_safe(pos, m) {
                    Some(safe) => safe,
                    None => self.leaves_royal_safe(&self.make(pos, m), side),
                };
            n += u64::from(legal);
        }
        n
    }

    /// Whether `by` attacks `target` once the piece on `from` has moved to `to` (capturing
    /// what stood there) in a variant without [`Rules::extra_attack`]: the attacks of
    /// [`Variant::attacked`], frozen pieces judged in `pos` (the piece that moves must not
    /// freeze).
    fn attacked_after_step(
        &self,
        pos: &Position,
        target: Square,
        from: Square,
        to: Square,
        by: Side,
    ) -> bool {
        let mut cands = self.tables.reach_to[by.index() * super::geometry::SQUARE_COUNT + target.index()]
            .intersection(&pos.occupied[by.index()]);
        cands.remove(to);
        let occupied = |q: usize| q == to.index() || (q != from.index() && pos.board[q] != 0);
        self.captures_on(pos, target, by, cands.iter(), occupied)
    }

    /// Whether one of the pieces of side `by` on `cands` could capture on `target` by a
    /// ray, with `occupied` saying which squares hold a piece (frozen pieces judged in
    /// `pos`).
    fn captures_on(
        &self,
        pos: &Position,
        target: Square,
        by: Side,
        cands: impl Iterator<Item = Square>,
        occupied: impl Fn(usize) -> bool,
    ) -> bool {
        for at in cands {
            let kind = pos.piece_at(at).expect("occupied").kind.index();
            if !self.tables.attack_mask[super::tables::slot(kind, by, at)].contains(target)
                || (self.freezer.is_some() && self.is_frozen(pos, at))
            {
                continue;
            }
            for ray in self.tables.rays(kind, by, at) {
                if !ray.mode.captures() || (ray.via != NO_SQUARE && occupied(ray.via as usize)) {
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
                    if occupied(q as usize) {
                        if ray.hop && !screened {
                            screened = true;
                        } else {
                            break;
                        }
                    }
                }
            }
        }
        false
    }

    /// How many moves [`Variant::piece_moves`] lists for the piece of kind `k` on `from`,
    /// which cannot promote from there and has no capture without moving.
    fn count_piece_moves(&self, pos: &Position, from: Square, k: usize, side: Side) -> u64 {
        let s = super::tables::slot(k, side, from);
        let dedupe = self.tables.overlapping[s];
        let mut seen = SquareSet::EMPTY;
        let mut n = 0;
        let mut count = |q: usize| {
            if dedupe {
                let to = Square::from_index(q).expect("valid");
                if seen.contains(to) {
                    return;
                }
                seen.insert(to);
            }
            n += 1;
        };
        let enemy = if side == Side::White { 0x80 } else { 0 };
        for ray in self.tables.rays(k, side, from) {
            if ray.via != NO_SQUARE && pos.board[ray.via as usize] != 0 {
                continue;
            }
            let mut screened = false;
            for &q in self.tables.squares(ray) {
                let b = pos.board[q as usize];
                if b == 0 {
                    if ray.mode.moves() && !screened {
                        count(q as usize);
                    }
                    continue;
                }
                if ray.hop && !screened {
                    screened = true;
                    continue;
                }
                if b & 0x80 == enemy && ray.mode.captures() && (!ray.hop || screened) {
                    count(q as usize);
                }
                break;
            }
        }
        if self.def.kinds[k].return_to_start_from & (1 << from.level().index()) != 0 {
            for to in self.tables.start_squares[k * 2 + side.index()].iter() {
                if pos.board[to.index()] == 0 {
                    count(to.index());
                }
            }
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

/// `[slot(kind, side, sq)]` → whether the piece's moves from there are one a square it
/// reaches: no capture without moving (a kind with one is never counted) and no square in
/// its promotion zone (where a move may be several, one a promotion choice).
fn countable_slots(def: &GameDef, tables: &Tables) -> Vec<bool> {
    let ranks = def.dims.ranks() as usize;
    let mut out = vec![false; def.kinds.len() * 2 * super::geometry::SQUARE_COUNT];
    for (k, kind) in def.kinds.iter().enumerate() {
        if kind.atoms.iter().any(|a| a.remote) {
            continue;
        }
        for side in Side::ALL {
            for from in def.dims.squares() {
                let s = super::tables::slot(k, side, from);
                out[s] = match &kind.promotion {
                    None => true,
                    Some(promo) => tables.reach_mask[s].iter().all(|to| {
                        let r = to.rank().index();
                        let depth = if side == Side::White { ranks - 1 - r } else { r };
                        depth >= promo.zone as usize
                    }),
                };
            }
        }
    }
    out
}

/// Keeps, of the moves of `out` from index `first` on, those that act on `to` with a
/// piece of a kind in `kinds`.
fn keep_to(out: &mut Vec<Move>, first: usize, to: Square, kinds: u64) {
    let mut w = first;
    for r in first..out.len() {
        if out[r].to() == to && kinds & (1 << out[r].piece().index()) != 0 {
            out[w] = out[r];
            w += 1;
        }
    }
    out.truncate(w);
}

/// Legality without making the move: when the mover is not in check, a plain move of a
/// non-royal piece can expose its royal piece only by leaving a square on an enemy
/// piece's path to it (or, for hoppers, by entering one). `danger` holds those squares.
struct LegalFilter {
    active: bool,
    danger: SquareSet,
    hop: bool,
    /// Kinds whose moves are always made and checked: royal pieces, freezing pieces.
    unsafe_kinds: u64,
}

impl LegalFilter {
    fn inactive() -> LegalFilter {
        LegalFilter { active: false, danger: SquareSet::EMPTY, hop: false, unsafe_kinds: 0 }
    }

    #[inline]
    fn safe_without_make(&self, m: &Move) -> bool {
        if !self.active {
            return false;
        }
        match *m {
            Move::Normal { piece, from, to, .. } => {
                self.unsafe_kinds & (1 << piece.index()) == 0
                    && !self.danger.contains(from)
                    && !(self.hop && self.danger.contains(to))
            }
            _ => false,
        }
    }
}
