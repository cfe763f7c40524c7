//! Gygax's Fidchell: the rules its piece data cannot say (rulings §3).
//!
//! The pieces' ordinary movement and promotions are data in `src/variants/fidchell.md`.
//! This module adds:
//!
//! - the **introduction phase** (§3.3): while either side still holds Warriors, Pikes or
//!   Men-at-arms in hand, the only legal move is a drop of one of them on an empty square
//!   of the mover's third rank;
//! - the two movements Betza data cannot express (§3.4): the **Unicorn**'s optional jump
//!   over exactly one piece on its orthogonal slide, and the **Wyvern**'s leaps (1,4) to
//!   (1,11) (its (1,3) camel leap is data);
//! - the eight **portals** (§3.6) with their openers, use counts and order;
//! - the **Queen's return** (§3.7) and the **King's re-introduction** (§3.8);
//! - **legality** (§3.8): King captures are compulsory and always legal; a move may leave
//!   the King attacked while an Aetheling, Noble or Queen of its side is on the field;
//! - the **end** of the game: checkmate, a King lost with no successor, stalemate (a draw).
//!
//! State kept off the board lives in the position's variant-state bytes: the portal use
//! counts ([`USES`]), the Queen's one-turn right of return ([`QUEEN_PENDING`]) and each
//! side's captured pieces that a Subterranean portal may bring back ([`CAPTURED`]). Pieces
//! in hand and the portal pieces in reserve are the position's hand counts.

use super::def::GameDef;
use super::geometry::{Dims, Offset, Square};
use super::piece::{Piece, PieceKind, Side};
use super::position::{MAX_KINDS, Move, Position, VARIANT_STATE_LEN};
use super::variant::{EndReason, Outcome, Rules, Variant};

/// Variant-state bytes `USES..USES + 8`: how often each portal of [`PORTALS`] was used.
pub const USES: usize = 0;
/// Variant-state byte: 1 when the side to move may use this turn to return its Queen.
pub const QUEEN_PENDING: usize = 8;
/// Variant-state bytes `CAPTURED + side * RETURNABLE.len() + i`: how many pieces of kind
/// `RETURNABLE[i]` of `side` were captured and not yet brought back.
pub const CAPTURED: usize = 9;

/// The kinds a Subterranean portal may bring back (seed, "SUBTERRAREAN"), in unpromoted
/// form. They are the first kinds of the definition's table, in this order.
pub const RETURNABLE: [&str; 15] =
    ["W", "P", "Mk", "Mq", "Md", "Mb", "L", "E", "G", "S", "J", "T", "C", "N", "A"];

/// The pieces each side holds in hand for the introduction phase (seed; rulings §3.2).
pub const IN_HAND: [(&str, u8); 6] = [("W", 6), ("P", 2), ("Mk", 1), ("Mq", 1), ("Md", 1), ("Mb", 1)];

/// The third rank of each side (0-based rank index), where the introduction drops go.
pub const INTRODUCTION_RANK: [u8; 2] = [2, 9];

/// The `default` arrangement of the game option `introduction=default`, files a–l of
/// ranks 3 and 10 (rulings §3.3).
pub const DEFAULT_ARRANGEMENT: [&str; 12] = ["W", "W", "W", "P", "Md", "Mk", "Mq", "Mb", "P", "W", "W", "W"];

/// Kinds that may take the captured King's place, in order of priority (rulings §3.8).
/// While one of them is on the field, its King may stand attacked.
pub const SUCCESSORS: [&str; 3] = ["AE", "N", "Q"];

/// Promoted kinds and the kind they were (a Subterranean portal returns the latter).
pub const UNPROMOTED: [(&str, &str); 10] = [
    ("W+", "W"),
    ("PG", "P"),
    ("AE", "Mk"),
    ("RP", "Mq"),
    ("D+", "Md"),
    ("B+", "Mb"),
    ("LG", "L"),
    ("GG", "G"),
    ("S+", "S"),
    ("T+", "T"),
];

/// The Wyvern's leaps beyond the camel: (1, n) for these n (seed: 2×5 … 2×12 areas).
pub const WYVERN_LONG_LEAPS: std::ops::RangeInclusive<i8> = 4..=11;

/// One portal (rulings §3.6).
#[derive(Clone, Copy, Debug)]
pub struct PortalSpec {
    /// Name, e.g. `Astral`.
    pub name: &'static str,
    /// The side that may use it.
    pub side: Side,
    /// Its square: 0-based file and rank.
    pub square: (u8, u8),
    /// The reserve kind it admits; `None` for a Subterranean portal (own captured pieces).
    pub admits: Option<&'static str>,
    /// Own kinds of which one must stand next to the portal square for it to open.
    pub openers: &'static [&'static str],
    /// How often it may be used.
    pub max_uses: u8,
    /// A portal (index into [`PORTALS`]) that must have been used before this one opens.
    pub after: Option<usize>,
}

const DRUIDIC: &[&str] = &["K", "D", "AE", "D+"];
const FAERIE: &[&str] = &["Q", "B", "RP", "B+"];
const DELVERS: &[&str] = &["A", "C", "J", "T", "N"];

/// The eight portals, in the order of the position strings' `portals` field.
pub const PORTALS: [PortalSpec; 8] = [
    PortalSpec {
        name: "Astral",
        side: Side::White,
        square: (4, 0),
        admits: Some("I"),
        openers: DRUIDIC,
        max_uses: 2,
        after: Some(4),
    },
    PortalSpec {
        name: "Faerie Seelie",
        side: Side::White,
        square: (7, 0),
        admits: Some("U"),
        openers: FAERIE,
        max_uses: 2,
        after: None,
    },
    PortalSpec {
        name: "Subterranean",
        side: Side::White,
        square: (5, 5),
        admits: None,
        openers: DELVERS,
        max_uses: 1,
        after: None,
    },
    PortalSpec {
        name: "Subterranean",
        side: Side::White,
        square: (6, 5),
        admits: None,
        openers: DELVERS,
        max_uses: 1,
        after: None,
    },
    PortalSpec {
        name: "Abyssal",
        side: Side::Black,
        square: (4, 11),
        admits: Some("F"),
        openers: DRUIDIC,
        max_uses: 2,
        after: None,
    },
    PortalSpec {
        name: "Faerie Unseelie",
        side: Side::Black,
        square: (7, 11),
        admits: Some("Y"),
        openers: FAERIE,
        max_uses: 2,
        after: Some(1),
    },
    PortalSpec {
        name: "Subterranean",
        side: Side::Black,
        square: (5, 6),
        admits: None,
        openers: DELVERS,
        max_uses: 1,
        after: None,
    },
    PortalSpec {
        name: "Subterranean",
        side: Side::Black,
        square: (6, 6),
        admits: None,
        openers: DELVERS,
        max_uses: 1,
        after: None,
    },
];

const _: () = assert!(CAPTURED + 2 * RETURNABLE.len() <= VARIANT_STATE_LEN);

#[derive(Debug, Clone, Copy)]
struct Portal {
    square: Square,
    side: Side,
    admits: Option<PieceKind>,
    openers: u64,
    max_uses: u8,
    after: Option<usize>,
}

/// Why a definition cannot be played with the Fidchell rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("fidchell rules: {0}")]
pub struct FidchellError(String);

/// Gygax's Fidchell rules, with the definition's kinds resolved.
#[derive(Debug)]
pub struct FidchellRules {
    dims: Dims,
    king: PieceKind,
    queen: PieceKind,
    princess: PieceKind,
    unicorn: PieceKind,
    wyvern: PieceKind,
    aetheling: PieceKind,
    noble: PieceKind,
    hand: Vec<(PieceKind, u8)>,
    hand_mask: u64,
    successor_mask: u64,
    portals: Vec<Portal>,
    /// Per kind: the [`RETURNABLE`] slot of its unpromoted form, if it has one.
    slot: [Option<u8>; MAX_KINDS],
}

fn mask(def: &GameDef, codes: &[&str]) -> Result<u64, FidchellError> {
    let mut m = 0;
    for c in codes {
        m |= 1u64 << kind(def, c)?.index();
    }
    Ok(m)
}

fn kind(def: &GameDef, code: &str) -> Result<PieceKind, FidchellError> {
    def.kind_by_code(code).ok_or_else(|| FidchellError(format!("no piece kind `{code}`")))
}

impl FidchellRules {
    /// Resolves the rules' piece kinds in `def`.
    ///
    /// # Errors
    /// [`FidchellError`] when a kind the rules name is missing, or the returnable kinds
    /// are not the first of the table in [`RETURNABLE`] order.
    pub fn new(def: &GameDef) -> Result<FidchellRules, FidchellError> {
        for (i, code) in RETURNABLE.iter().enumerate() {
            if kind(def, code)?.index() != i {
                return Err(FidchellError(format!("`{code}` must be kind {} of the table", i + 1)));
            }
        }
        let mut slot = [None; MAX_KINDS];
        for (i, s) in slot.iter_mut().enumerate().take(RETURNABLE.len()) {
            *s = Some(i as u8);
        }
        for (promoted, base) in UNPROMOTED {
            slot[kind(def, promoted)?.index()] = Some(kind(def, base)?.index() as u8);
        }
        let hand = IN_HAND.iter().map(|(c, n)| Ok((kind(def, c)?, *n))).collect::<Result<Vec<_>, _>>()?;
        let hand_mask = hand.iter().fold(0u64, |m, (k, _)| m | 1 << k.index());
        let portals = PORTALS
            .iter()
            .map(|p| {
                Ok(Portal {
                    square: def
                        .dims
                        .square_at(0, p.square.0 as i32, p.square.1 as i32)
                        .ok_or_else(|| FidchellError(format!("{} portal off the board", p.name)))?,
                    side: p.side,
                    admits: p.admits.map(|c| kind(def, c)).transpose()?,
                    openers: mask(def, p.openers)?,
                    max_uses: p.max_uses,
                    after: p.after,
                })
            })
            .collect::<Result<Vec<_>, FidchellError>>()?;
        Ok(FidchellRules {
            dims: def.dims,
            king: kind(def, "K")?,
            queen: kind(def, "Q")?,
            princess: kind(def, "RP")?,
            unicorn: kind(def, "U")?,
            wyvern: kind(def, "Y")?,
            aetheling: kind(def, "AE")?,
            noble: kind(def, "N")?,
            hand,
            hand_mask,
            successor_mask: mask(def, &SUCCESSORS)?,
            portals,
            slot,
        })
    }

    /// Whether the game is in its introduction phase: either side still holds a piece in
    /// hand (rulings §3.3).
    pub fn in_introduction(&self, pos: &Position) -> bool {
        self.hand.iter().any(|(k, _)| pos.in_hand(Side::White, *k) > 0 || pos.in_hand(Side::Black, *k) > 0)
    }

    /// Whether `kind` is one of the kinds held in hand for the introduction.
    pub fn is_hand_kind(&self, kind: PieceKind) -> bool {
        self.hand_mask & (1 << kind.index()) != 0
    }

    /// Whether `side` has an Aetheling, Noble or Queen on the field.
    pub fn has_successor(&self, pos: &Position, side: Side) -> bool {
        pos.occupied[side.index()].iter().any(|sq| {
            Piece::unpack(pos.board[sq.index()])
                .is_some_and(|p| self.successor_mask & (1 << p.kind.index()) != 0)
        })
    }

    /// How often portal `i` of [`PORTALS`] has been used.
    pub fn uses(pos: &Position, i: usize) -> u8 {
        pos.variant_state[USES + i]
    }

    /// How many pieces of the [`RETURNABLE`] kind `slot` of `side` wait to be brought back.
    pub fn captured(pos: &Position, side: Side, slot: usize) -> u8 {
        pos.variant_state[CAPTURED + side.index() * RETURNABLE.len() + slot]
    }

    /// Whether the side to move may return its Queen this turn.
    pub fn queen_pending(pos: &Position) -> bool {
        pos.variant_state[QUEEN_PENDING] != 0
    }

    fn pieces_of(&self, pos: &Position, side: Side, kind: PieceKind) -> impl Iterator<Item = Square> {
        let want = Piece::new(side, kind).pack();
        pos.occupied[side.index()].iter().filter(move |sq| pos.board[sq.index()] == want)
    }

    fn portal_open(&self, pos: &Position, i: usize) -> bool {
        let p = &self.portals[i];
        if pos.board[p.square.index()] != 0 || Self::uses(pos, i) >= p.max_uses {
            return false;
        }
        if let Some(a) = p.after
            && Self::uses(pos, a) == 0
        {
            return false;
        }
        (-1..=1).any(|df| {
            (-1..=1).any(|dr| {
                (df, dr) != (0, 0)
                    && self.dims.offset(p.square, Offset::new(0, df, dr)).is_some_and(|q| {
                        Piece::unpack(pos.board[q.index()])
                            .is_some_and(|pc| pc.side == p.side && p.openers & (1 << pc.kind.index()) != 0)
                    })
            })
        })
    }

    fn unicorn_jumps(&self, pos: &Position, side: Side, out: &mut Vec<Move>) {
        for from in self.pieces_of(pos, side, self.unicorn) {
            for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
                let mut at = from;
                let mut jumped = false;
                while let Some(q) = self.dims.offset(at, Offset::new(0, df, dr)) {
                    at = q;
                    match Piece::unpack(pos.board[q.index()]) {
                        None => {
                            if jumped {
                                out.push(Move::Normal {
                                    piece: self.unicorn,
                                    from,
                                    to: q,
                                    capture: None,
                                    promotion: None,
                                });
                            }
                        }
                        Some(t) => {
                            if !jumped {
                                jumped = true;
                                continue;
                            }
                            if t.side != side {
                                out.push(Move::Normal {
                                    piece: self.unicorn,
                                    from,
                                    to: q,
                                    capture: Some(t.kind),
                                    promotion: None,
                                });
                            }
                            break;
                        }
                    }
                }
            }
        }
    }

    fn wyvern_offsets() -> impl Iterator<Item = Offset> {
        WYVERN_LONG_LEAPS.flat_map(|n| {
            [(1, n), (-1, n), (1, -n), (-1, -n), (n, 1), (-n, 1), (n, -1), (-n, -1)]
                .into_iter()
                .map(|(df, dr)| Offset::new(0, df, dr))
        })
    }

    fn wyvern_leaps(&self, pos: &Position, side: Side, out: &mut Vec<Move>) {
        for from in self.pieces_of(pos, side, self.wyvern) {
            for off in Self::wyvern_offsets() {
                let Some(to) = self.dims.offset(from, off) else { continue };
                match Piece::unpack(pos.board[to.index()]) {
                    None => out.push(Move::Normal {
                        piece: self.wyvern,
                        from,
                        to,
                        capture: None,
                        promotion: None,
                    }),
                    Some(t) if t.side != side => out.push(Move::Normal {
                        piece: self.wyvern,
                        from,
                        to,
                        capture: Some(t.kind),
                        promotion: None,
                    }),
                    Some(_) => {}
                }
            }
        }
    }

    fn reintroductions(&self, pos: &Position, side: Side, out: &mut Vec<Move>) {
        for k in [self.aetheling, self.noble, self.queen] {
            let before = out.len();
            for sq in self.pieces_of(pos, side, k) {
                out.push(Move::Replace { piece: self.king, to: sq, replaced: k });
            }
            if out.len() > before {
                return;
            }
        }
    }

    fn set_captured(pos: &mut Position, side: Side, slot: usize, n: u8) {
        pos.set_variant_byte(CAPTURED + side.index() * RETURNABLE.len() + slot, n);
    }
}

impl Rules for FidchellRules {
    fn extra_moves(&self, _v: &Variant, pos: &Position, out: &mut Vec<Move>) {
        let side = pos.side_to_move;
        if self.in_introduction(pos) {
            let rank = INTRODUCTION_RANK[side.index()] as i32;
            for &(k, _) in &self.hand {
                if pos.in_hand(side, k) == 0 {
                    continue;
                }
                for file in 0..self.dims.files() as i32 {
                    let sq = self.dims.square_at(0, file, rank).expect("third rank");
                    if pos.board[sq.index()] == 0 {
                        out.push(Move::Drop { piece: k, to: sq });
                    }
                }
            }
            return;
        }
        if pos.royal[side.index()].is_none() {
            self.reintroductions(pos, side, out);
            return;
        }
        self.unicorn_jumps(pos, side, out);
        self.wyvern_leaps(pos, side, out);
        for (i, p) in self.portals.iter().enumerate() {
            if p.side != side || !self.portal_open(pos, i) {
                continue;
            }
            match p.admits {
                Some(k) => {
                    if pos.in_hand(side, k) > 0 {
                        out.push(Move::Drop { piece: k, to: p.square });
                    }
                }
                None => {
                    for slot in 0..RETURNABLE.len() {
                        if Self::captured(pos, side, slot) > 0 {
                            out.push(Move::Drop { piece: PieceKind::new(slot as u8), to: p.square });
                        }
                    }
                }
            }
        }
        if Self::queen_pending(pos) {
            for sq in self.pieces_of(pos, side, self.princess) {
                out.push(Move::Replace { piece: self.queen, to: sq, replaced: self.princess });
            }
        }
    }

    fn own_legality(&self) -> bool {
        true
    }

    fn requires_royal(&self) -> bool {
        false
    }

    fn filter_legal(&self, v: &Variant, pos: &Position, moves: &mut Vec<Move>) -> bool {
        let side = pos.side_to_move;
        if self.in_introduction(pos) {
            moves.retain(|m| matches!(m, Move::Drop { piece, .. } if self.is_hand_kind(*piece)));
            return true;
        }
        if pos.royal[side.index()].is_none() {
            moves.retain(|m| matches!(m, Move::Replace { piece, .. } if *piece == self.king));
            return true;
        }
        if moves.iter().any(|m| m.capture() == Some(self.king)) {
            moves.retain(|m| m.capture() == Some(self.king));
            return true;
        }
        if self.has_successor(pos, side) {
            return true;
        }
        let opponent = side.opponent();
        moves.retain(|m| {
            let after = v.make(pos, m);
            match after.royal[side.index()] {
                Some(k) => !v.attacked(&after, k, opponent) || self.has_successor(&after, side),
                None => true,
            }
        });
        true
    }

    fn extra_attack(&self, _v: &Variant, pos: &Position, target: Square, by: Side) -> bool {
        let unicorn = Piece::new(by, self.unicorn).pack();
        for (df, dr) in [(0, 1), (0, -1), (1, 0), (-1, 0)] {
            let mut at = target;
            let mut screened = false;
            while let Some(q) = self.dims.offset(at, Offset::new(0, df, dr)) {
                at = q;
                let b = pos.board[q.index()];
                if b == 0 {
                    continue;
                }
                if !screened {
                    screened = true;
                    continue;
                }
                if b == unicorn {
                    return true;
                }
                break;
            }
        }
        let wyvern = Piece::new(by, self.wyvern).pack();
        Self::wyvern_offsets()
            .any(|off| self.dims.offset(target, off).is_some_and(|q| pos.board[q.index()] == wyvern))
    }

    fn after_make(&self, _v: &Variant, before: &Position, mv: &Move, after: &mut Position) {
        let side = before.side_to_move;
        let opponent = side.opponent();
        after.set_variant_byte(QUEEN_PENDING, 0);
        if let Some(c) = mv.capture() {
            if c == self.queen && self.pieces_of(after, opponent, self.princess).next().is_some() {
                after.set_variant_byte(QUEEN_PENDING, 1);
            }
            if let Some(slot) = self.slot[c.index()] {
                let n = Self::captured(after, opponent, slot as usize);
                Self::set_captured(after, opponent, slot as usize, n.saturating_add(1));
            }
        }
        if let Move::Drop { piece, to } = *mv
            && let Some(i) = self.portals.iter().position(|p| p.square == to && p.side == side)
        {
            after.set_variant_byte(USES + i, Self::uses(after, i) + 1);
            if self.portals[i].admits.is_none() {
                let slot = piece.index();
                let n = Self::captured(after, side, slot);
                Self::set_captured(after, side, slot, n.saturating_sub(1));
            }
        }
    }

    fn init_start(&self, _v: &Variant, pos: &mut Position) {
        for side in Side::ALL {
            for &(k, n) in &self.hand {
                let placed = self.pieces_of(pos, side, k).count() as u8;
                pos.set_hand(side, k, n.saturating_sub(placed));
            }
        }
        for p in &self.portals {
            if let Some(k) = p.admits {
                pos.set_hand(p.side, k, p.max_uses);
            }
        }
    }

    fn allows_royal_left_attacked(&self) -> bool {
        true
    }

    fn no_legal_moves(&self, pos: &Position, in_check: bool) -> Outcome {
        let side = pos.side_to_move;
        if !self.in_introduction(pos) && pos.royal[side.index()].is_none() {
            return Outcome::Win { winner: side.opponent(), reason: EndReason::RoyalCaptured };
        }
        if in_check && !self.has_successor(pos, side) {
            Outcome::Win { winner: side.opponent(), reason: EndReason::Checkmate }
        } else {
            Outcome::Draw { reason: EndReason::Stalemate }
        }
    }
}
