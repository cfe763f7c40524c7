//! Variant definitions as plain data: board shape, sides, piece kinds, setup, render data.
//!
//! A [`GameDef`] is what a variant's Markdown-with-YAML definition file says once it has
//! been read (the reading lives in [`crate::variants`]). The engine turns it into a
//! playable [`crate::engine::Variant`] with precomputed move tables.

use super::geometry::{Dims, Offset, Square};
use super::movement::Atom;
use super::piece::{Piece, PieceKind, Side};

/// How a piece kind promotes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Promotion {
    /// The kinds it may become (one entry: that kind, automatically).
    pub to: Vec<PieceKind>,
    /// Depth of the promotion zone in ranks, counted from the far rank (1 = far rank only).
    pub zone: u8,
    /// Whether promotion is compulsory on reaching the zone.
    pub mandatory: bool,
    /// Depth (from the far rank) of the part of the zone where promotion is compulsory
    /// even when `mandatory` is false (Grand Chess: 1, the last rank). 0: none.
    pub forced_zone: u8,
    /// Only to kinds its side has lost: start count minus pieces of that kind on the
    /// board (Grand Chess). A compulsory promotion with nothing lost is no move at all.
    pub lost_only: bool,
}

/// One piece kind of a variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindDef {
    /// Code used in moves and position strings, e.g. `R` (the Gygax Dragon), `Mk`.
    pub code: String,
    /// Name, e.g. `Dragon`.
    pub name: String,
    /// How it moves, in one line for a legend (the definition's `summary`, else derived
    /// from its moves).
    pub summary: String,
    /// How it moves and captures.
    pub atoms: Vec<Atom>,
    /// Whether it is the royal piece (check, checkmate).
    pub royal: bool,
    /// Whether its moves reset the ply clock like a pawn's (rulings §1.3).
    pub pawn: bool,
    /// Whether moves of this kind are written without its code (`2e3` for a Warrior;
    /// `notation-spec/moves.md` §2). At most one kind per variant.
    pub letterless: bool,
    /// How it promotes, if it does.
    pub promotion: Option<Promotion>,
    /// Levels (bit per level index) from which it may move, without capturing, to any
    /// empty square where a piece of its kind and side stood in the setup (the Gygax
    /// Sylph's return to Air, seed "Sylph"; rulings §2.2).
    pub return_to_start_from: u8,
    /// An enemy piece standing at this offset from it cannot move and gives no check
    /// (the Basilisk's freeze: the Land square directly above; rulings §2.9).
    pub freezes: Option<Offset>,
    /// Other codes read (never written) for this kind, e.g. `M` for the Marshall under
    /// `grand`, whose own code is Fairy-Stockfish's `C`.
    pub read_codes: Vec<String>,
    /// Which sides may own it (bit 0 = first side, bit 1 = second): armies of Fantasy
    /// Grand Chess are per side. 3 for both.
    pub sides: u8,
    /// Its two-square move (a move of two steps in a line) may be captured en passant by
    /// an enemy pawn on the next move only (rulings §4.4).
    pub en_passant: bool,
}

impl KindDef {
    /// Whether `code` names this kind on read: its code or one of its `read_codes`.
    pub fn is_read_as(&self, code: &str) -> bool {
        self.code == code || self.read_codes.iter().any(|c| c == code)
    }
    /// Whether `side` may own pieces of this kind.
    pub fn owned_by(&self, side: Side) -> bool {
        self.sides & (1 << side.index()) != 0
    }
}

/// Castling as Fairy-Stockfish plays it: the king (a royal kind) and a rook (one of the
/// castling kinds) of the same side, both unmoved, on the side's castling rank; the king
/// goes to a fixed file on its wing and the rook to the square beside it on the inside.
/// The squares both cross must be empty, and the king may not castle out of, through or
/// into check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Castling {
    /// The kind that castles as the king (royal).
    pub king: PieceKind,
    /// The kinds that may castle as the rook.
    pub rooks: Vec<PieceKind>,
    /// Where the king lands castling towards the higher files (`O-O`), 0 = file a.
    pub king_side_file: u8,
    /// Where the king lands castling towards the lower files (`O-O-O`).
    pub queen_side_file: u8,
    /// The castling rank counted from each side's own first rank (0 = rank 1 for the
    /// first side and the last rank for the second).
    pub rank: u8,
    /// The start's castling rank is drawn 960-style (Fairy-Stockfish's `chess960`):
    /// its pieces shuffled, the king between two castling rooks, the pieces of each kind
    /// that keeps to one square colour spread over both colours, the second side's rank
    /// the mirror of the first's ([`super::shuffle`]).
    pub chess960: bool,
}

/// How many pieces of which kinds a side keeps, below which the game ends (extinction;
/// Fairy-Stockfish's `extinctionValue` rules: shatranj's bare king is "one piece left,
/// all kinds counted, while the other side has two or more").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extinction {
    /// The kinds counted (pieces on the board and in hand); empty: every kind together.
    pub kinds: Vec<PieceKind>,
    /// A side with this many pieces or fewer of a counted kind is extinct.
    pub count: u8,
    /// … while the other side keeps at least this many (0: always).
    pub opponent_count: u8,
    /// The side to move may still answer: when it is the extinct one, the other side
    /// needs one piece more for the game to end (shatranj: bare the other king at once).
    pub claim: bool,
    /// What the extinct side gets.
    pub result: EndValue,
}

/// Fairy-Stockfish's counting rules (its `countingRule`): once no pawn is left (or,
/// in Cambodian counting, once a side is down to three pieces), the side that counts
/// has a limit of moves in which the other side must mate it; when the count passes
/// the limit the game is a draw. The limits depend on the pieces the stronger side
/// keeps, named by their roles here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counting {
    /// Which table of limits.
    pub rule: CountingRule,
    /// The kinds that count as Ruea (rooks) for the limits.
    pub rooks: Vec<PieceKind>,
    /// The kinds that count as Khon.
    pub khons: Vec<PieceKind>,
    /// The kinds that count as Ma (knights).
    pub knights: Vec<PieceKind>,
}

/// The three counting rules Fairy-Stockfish knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountingRule {
    /// Makruk (Thai chess): board's honour (64 moves) once no pawn is left, pieces'
    /// honour (8 to 64 moves by the stronger side's pieces) against a bare king.
    Makruk,
    /// Ouk Chatrang (Cambodian chess): the same one move shorter, the board's honour from
    /// three pieces left even with pawns.
    Cambodian,
    /// ASEAN chess: pieces' honour only, against a bare king with no pawn left.
    Asean,
}

impl CountingRule {
    /// The name in definition files and Fairy-Stockfish's `countingRule`.
    pub fn name(self) -> &'static str {
        match self {
            CountingRule::Makruk => "makruk",
            CountingRule::Cambodian => "cambodian",
            CountingRule::Asean => "asean",
        }
    }
}

/// What a rule gives the side it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EndValue {
    /// That side loses.
    #[default]
    Loss,
    /// That side wins.
    Win,
    /// A draw.
    Draw,
}

/// Colours for drawing one level.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LevelColors {
    /// Light squares, `#rrggbb`.
    pub light: String,
    /// Dark squares, `#rrggbb`.
    pub dark: String,
}

/// How to draw the board: cell size in pixels, colours per level (index 0 = level 1).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Render {
    /// Side of one square, in pixels.
    pub cell_size: u32,
    /// Colours of each level, lowest level first.
    pub level_colors: Vec<LevelColors>,
}

/// A variant as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameDef {
    /// Short name used on the command line and in `Variant` tags, e.g. `gygax`.
    pub slug: String,
    /// Other accepted names, e.g. `dragonchess`.
    pub aliases: Vec<String>,
    /// Display title, e.g. `Gygax Chess`.
    pub title: String,
    /// Board shape.
    pub dims: Dims,
    /// Side names, first player first, e.g. `["Gold", "Scarlet"]`.
    pub side_names: [String; 2],
    /// Level names, lowest level (index 0, written `1`) first.
    pub level_names: Vec<String>,
    /// Piece kinds; a [`PieceKind`] indexes this table.
    pub kinds: Vec<KindDef>,
    /// The start position's pieces.
    pub setup: Vec<(Square, Piece)>,
    /// Drawing data.
    pub render: Render,
    /// Position strings carry FEN's castling (always `-`) and en passant fields after
    /// the side to move (Grand Chess, Fantasy Grand Chess).
    pub chess_fields: bool,
    /// The two sides' army names, first side first (Fantasy Grand Chess); empty when the
    /// game has no armies.
    pub armies: Vec<String>,
    /// Position strings end with the two army names.
    pub army_fields: bool,
    /// Castling, if the game has it.
    pub castling: Option<Castling>,
    /// Extinction rules (the bare king), checked before the moves of a position.
    pub extinction: Option<Extinction>,
    /// A counting rule (makruk, cambodian, ASEAN), ending a game as a draw.
    pub counting: Option<Counting>,
}

impl GameDef {
    /// The display name of `side` (e.g. `Gold`).
    pub fn side_name(&self, side: Side) -> &str {
        &self.side_names[side.index()]
    }
    /// The kind of `side` whose code is `code` (exact, case-sensitive).
    pub fn kind_of_side(&self, side: Side, code: &str) -> Option<PieceKind> {
        self.kinds.iter().position(|k| k.code == code && k.owned_by(side)).map(|i| PieceKind::new(i as u8))
    }
    /// The kind whose code is `code` (exact, case-sensitive).
    pub fn kind_by_code(&self, code: &str) -> Option<PieceKind> {
        self.kinds.iter().position(|k| k.code == code).map(|i| PieceKind::new(i as u8))
    }
    /// The definition of `kind`.
    ///
    /// # Panics
    /// If `kind` is not of this variant.
    pub fn kind(&self, kind: PieceKind) -> &KindDef {
        &self.kinds[kind.index()]
    }
}
