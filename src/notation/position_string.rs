//! Position strings: a FEN-like text form of any position of any variant.
//!
//! Grammar (full text in `notation-spec/position-strings.md`):
//!
//! ```text
//! position   = placement { " " placement } " " side [ " " castling " " en-passant ]
//!              " " halfmove " " fullmove [ " " army " " army ]
//! placement  = rank { "/" rank }              (* highest rank first *)
//! rank       = { empty-run | piece }
//! empty-run  = digit { digit }                (* 1..=12 empty squares *)
//! piece      = letter | "(" code ")"           (* upper case: first side *)
//! side       = letter                          (* g/s in Gygax Chess, w/b elsewhere *)
//! castling   = "-" | { "K" | "Q" | "k" | "q" | file letter }  (* KQkq, Shredder/X-FEN *)
//! en-passant = "-" | square                    (* the square passed over *)
//! army       = name                            (* Fantasy Grand Chess: white's, black's *)
//! ```
//!
//! The castling and en passant fields appear in Grand Chess, Fantasy Grand Chess and
//! definitions with `chess_fields` or castling (as Fairy-Stockfish writes them); a
//! definition without them also reads a string that has them when both are `-`.
//! Castling rights are `K`/`Q` (white) and `k`/`q` (black) for the outermost castling rook
//! on that wing, or the rook's file letter (upper case for white) for another one, as
//! X-FEN writes them; Shredder-FEN's file letters are read too. The en passant field is written only when a
//! pawn could capture en passant; read, it may name any square a two-square move just
//! passed. In a game with a counting rule, a running count is written as Fairy-Stockfish
//! writes it: its limit in plies in place of the en passant field, the plies counted in
//! place of the halfmove clock. Fantasy Grand Chess strings end with the two armies; read, they may be left
//! out (the game's armies are then assumed, Humans v Humans by default).
//!
//! There is one placement field per level, the top level first (Gygax Chess: Air, Land,
//! Subterranean). Reading is lenient about runs of spaces; writing is canonical: single
//! spaces, the shortest empty runs, codes of more than one letter in parentheses.
//!
//! Variant definitions (the seed's front matter) write placements with rank 1 first;
//! [`parse_placement`] reads both orders.

use nom::branch::alt;
use nom::bytes::complete::take_while1;
use nom::character::complete::{char, digit1, satisfy};
use nom::combinator::{all_consuming, map};
use nom::multi::{many1, separated_list1};
use nom::sequence::delimited;
use nom::{IResult, Parser};

use crate::engine::{
    CastleRook, EnPassant, GameDef, Move, Piece, PieceKind, Position, Side, Square, Variant,
};

/// Why a position string (or a setup string) was refused, and at which column.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {reason}")]
pub struct PositionError {
    /// 1-based column (in characters) of the problem in the text read.
    pub column: usize,
    /// What is wrong.
    pub reason: String,
}

impl PositionError {
    /// An error at the start of `at`, which must be a sub-slice of `text` (any other
    /// slice is reported at the end of `text`).
    pub(crate) fn at(text: &str, at: &str, reason: impl Into<String>) -> PositionError {
        let start = text.as_ptr() as usize;
        let here = at.as_ptr() as usize;
        let offset = if here >= start && here <= start + text.len() { here - start } else { text.len() };
        let offset = (0..=offset).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        PositionError { column: text[..offset].chars().count() + 1, reason: reason.into() }
    }
}

/// Which rank a placement lists first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RankOrder {
    /// Highest rank first, as FEN (position strings).
    HighestFirst,
    /// Rank 1 first, as the variant definitions' `setup` strings.
    LowestFirst,
}

#[derive(Debug, Clone, Copy)]
enum Token<'a> {
    Empty(&'a str),
    Piece(&'a str),
}

/// `empty-run = digit { digit }`
fn empty_run(input: &str) -> IResult<&str, Token<'_>> {
    map(digit1, Token::Empty).parse(input)
}

/// `piece = letter | "(" code ")"`
fn piece(input: &str) -> IResult<&str, Token<'_>> {
    alt((
        map(nom::combinator::recognize(satisfy(|c| c.is_ascii_alphabetic())), Token::Piece),
        map(
            delimited(char('('), take_while1(|c: char| c.is_ascii_alphanumeric() || c == '+'), char(')')),
            Token::Piece,
        ),
    ))
    .parse(input)
}

/// `rank = { empty-run | piece }`
fn rank(input: &str) -> IResult<&str, Vec<(&str, Token<'_>)>> {
    many1(|i| {
        let (rest, t) = alt((empty_run, piece)).parse(i)?;
        Ok((rest, (i, t)))
    })
    .parse(input)
}

/// `placement = rank { "/" rank }`
fn placement(input: &str) -> IResult<&str, Vec<Vec<(&str, Token<'_>)>>> {
    separated_list1(char('/'), rank).parse(input)
}

/// The kind and side written as `token` (a letter, or a code from inside parentheses).
pub(crate) fn kind_of(def: &GameDef, token: &str) -> Option<Piece> {
    let first = token.chars().next()?;
    let side = if first.is_ascii_uppercase() { Side::White } else { Side::Black };
    def.kinds.iter().enumerate().find_map(|(i, k)| {
        let matches = k.owned_by(side)
            && std::iter::once(&k.code).chain(k.read_codes.iter()).any(|code| match side {
                Side::White => code == token,
                Side::Black => {
                    code.to_lowercase() == token && code.starts_with(|c: char| c.is_ascii_uppercase())
                }
            });
        matches.then(|| Piece::new(side, PieceKind::new(i as u8)))
    })
}

/// Reads one level's placement. `text` is the whole string being read (for columns),
/// `field` the part holding this placement.
///
/// # Errors
/// [`PositionError`] when the syntax is wrong, a code is unknown, or a rank does not add
/// up to the board's width, or the number of ranks is not the board's.
pub fn parse_placement(
    def: &GameDef,
    text: &str,
    field: &str,
    level: u8,
    order: RankOrder,
) -> Result<Vec<(Square, Piece)>, PositionError> {
    let dims = def.dims;
    let (rest, ranks) = placement(field).map_err(|e| match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => {
            PositionError::at(text, e.input, "expected a piece letter, `(code)` or a number of empty squares")
        }
        nom::Err::Incomplete(_) => PositionError::at(text, &field[field.len()..], "unexpected end"),
    })?;
    if !rest.is_empty() {
        return Err(PositionError::at(
            text,
            rest,
            format!(
                "unexpected `{}`: expected a piece letter, `(code)`, a number of empty squares or `/`",
                rest.chars().next().unwrap_or(' ')
            ),
        ));
    }
    if ranks.len() != dims.ranks() as usize {
        return Err(PositionError::at(
            text,
            field,
            format!("{} ranks in this placement; the board has {}", ranks.len(), dims.ranks()),
        ));
    }
    let mut out = Vec::new();
    for (i, tokens) in ranks.iter().enumerate() {
        let rank_index = match order {
            RankOrder::HighestFirst => dims.ranks() as usize - 1 - i,
            RankOrder::LowestFirst => i,
        };
        let mut file = 0usize;
        for (at, tok) in tokens {
            match tok {
                Token::Empty(d) => {
                    let n: usize = d.parse().unwrap_or(usize::MAX);
                    if n == 0 || d.starts_with('0') {
                        return Err(PositionError::at(
                            text,
                            at,
                            "an empty run is 1 to 12, without leading zeros",
                        ));
                    }
                    file = file.saturating_add(n);
                }
                Token::Piece(code) => {
                    let Some(p) = kind_of(def, code) else {
                        let known: Vec<&str> = def.kinds.iter().map(|k| k.code.as_str()).collect();
                        return Err(PositionError::at(
                            text,
                            at,
                            format!("unknown piece code `{code}` (known: {})", known.join(" ")),
                        ));
                    };
                    if file < dims.files() as usize {
                        let sq = dims
                            .square_at(level as i32, file as i32, rank_index as i32)
                            .expect("inside the board");
                        out.push((sq, p));
                    }
                    file += 1;
                }
            }
            if file > dims.files() as usize {
                return Err(PositionError::at(
                    text,
                    at,
                    format!("rank {} has more than {} squares", rank_index + 1, dims.files()),
                ));
            }
        }
        if file != dims.files() as usize {
            let end = tokens.last().map(|(a, _)| *a).unwrap_or(field);
            return Err(PositionError::at(
                text,
                end,
                format!("rank {} has {file} squares; the board has {} files", rank_index + 1, dims.files()),
            ));
        }
    }
    Ok(out)
}

/// The letter written for `side` in the side-to-move field: the first letter of the
/// side's name, lower case (`g`/`s` in Gygax Chess, `w`/`b` elsewhere).
pub fn side_letter(def: &GameDef, side: Side) -> char {
    def.side_name(side).chars().next().map(|c| c.to_ascii_lowercase()).unwrap_or('?')
}

/// Reads a position string of `variant` (format in the module docs).
///
/// # Errors
/// [`PositionError`] with the 1-based column of the first problem: a wrong number of
/// fields, a bad placement, an unknown side letter, a bad clock, or a position the rules
/// refuse (two pieces on a square, two royal pieces, the side not to move in check).
pub fn parse_position(variant: &Variant, text: &str) -> Result<Position, PositionError> {
    let def = variant.def();
    let levels = def.dims.levels() as usize;
    let fields: Vec<&str> = text.split(' ').filter(|f| !f.is_empty()).collect();
    // Fidchell: hand, captured, portals, pending between the side and the clocks.
    let fidchell = def.slug == "fidchell";
    if let Some(full) = fsf_abbreviated(def, text, fields.len()) {
        return parse_position(variant, &full);
    }
    // Grand Chess games: castling and en passant there.
    // Fairy-Stockfish's strings have the castling and en passant fields in every game.
    let fsf_fields = !fidchell && !def.army_fields && fields.len() == levels + 5;
    let chess = if def.chess_fields || fsf_fields { 2 } else { 0 };
    let extra = if fidchell { 4 } else { chess };
    let want = levels + 3 + extra;
    let armies_given = (def.army_fields || def.chess_fields) && fields.len() == want + 2;
    if fields.len() != want && !armies_given {
        let rest = fields.get(want).copied().unwrap_or("");
        let at = if rest.is_empty() { &text[text.len()..] } else { rest };
        return Err(PositionError::at(
            text,
            at,
            format!(
                "{} fields; a {} position has {want}{}: {} placement{}, side to move, {}{}halfmove clock, move number{}",
                fields.len(),
                def.title,
                if def.army_fields { format!(" or {}", want + 2) } else { String::new() },
                levels,
                if levels > 1 { "s (top level first)" } else { "" },
                match (chess > 0, def.castling.is_some()) {
                    (false, _) => "",
                    (true, false) => "castling (`-`: no castling in this game), en passant square or `-`, ",
                    (true, true) =>
                        "castling rights (`-`, or K, Q, k, q and file letters), en passant square or `-`, ",
                },
                if fidchell { "hand, captured, portals, pending, " } else { "" },
                if def.army_fields { ", and optionally the two armies" } else { "" },
            ),
        ));
    }
    if def.army_fields || def.chess_fields {
        // Left out means Humans v Humans (`notation-spec/position-strings.md` §4).
        let given: Vec<String> = if armies_given {
            fields[want..].iter().map(|f| army_text(f)).collect()
        } else {
            vec!["humans".into(), "humans".into()]
        };
        for (i, g) in given.iter().enumerate() {
            if !def.armies.is_empty() && def.armies.get(i) != Some(g) {
                let at = if armies_given { fields[want + i] } else { &text[text.len()..] };
                return Err(PositionError::at(
                    text,
                    at,
                    format!(
                        "army `{g}`{}: this game is {} v {} (choose the armies with the game options)",
                        if armies_given { "" } else { " (no army fields)" },
                        def.armies[0],
                        def.armies.get(1).map(String::as_str).unwrap_or("?")
                    ),
                ));
            }
        }
    }
    let mut pieces = Vec::new();
    for (i, field) in fields[..levels].iter().enumerate() {
        let level = (levels - 1 - i) as u8;
        pieces.extend(parse_placement(def, text, field, level, RankOrder::HighestFirst)?);
    }
    let side_field = fields[levels];
    let side = match side_field {
        s if s.len() == 1 && s.starts_with(side_letter(def, Side::White)) => Side::White,
        s if s.len() == 1 && s.starts_with(side_letter(def, Side::Black)) => Side::Black,
        _ => {
            return Err(PositionError::at(
                text,
                side_field,
                format!(
                    "side to move `{side_field}`: expected `{}` ({}) or `{}` ({})",
                    side_letter(def, Side::White),
                    def.side_name(Side::White),
                    side_letter(def, Side::Black),
                    def.side_name(Side::Black)
                ),
            ));
        }
    };
    let number = |f: &str, what: &str, min: u16| field_number(text, f, what, min);
    let variant_fields = if fidchell {
        Some(super::fidchell_fields::parse(def, text, &fields[levels + 1..levels + 5], side)?)
    } else {
        None
    };
    let halfmove = number(fields[levels + 1 + extra], "the halfmove clock", 0)?;
    let fullmove = number(fields[levels + 2 + extra], "the move number", 1)?;
    let hand = variant_fields.as_ref().map(|f| f.hand.as_slice()).unwrap_or(&[]);
    let mut pos =
        variant.setup(&pieces, side, hand).map_err(|e| PositionError::at(text, fields[0], e.to_string()))?;
    if let Some(f) = &variant_fields {
        super::fidchell_fields::apply(&mut pos, f);
    }
    variant.set_clocks(&mut pos, halfmove, fullmove);
    if chess > 0 {
        castling_field(variant, &mut pos, text, fields[levels + 1])?;
        en_passant_or_count(variant, &mut pos, text, fields[levels + 2], halfmove, fullmove)?;
    }
    Ok(pos)
}

/// A number field of `text` (`f`): digits without a leading zero, from `min` to 65535.
fn field_number(text: &str, f: &str, what: &str, min: u16) -> Result<u16, PositionError> {
    all_consuming(digit1::<&str, nom::error::Error<&str>>)
        .parse(f)
        .ok()
        .and_then(|(_, d)| d.parse::<u16>().ok())
        .filter(|n| *n >= min && (f == "0" || !f.starts_with('0')))
        .ok_or_else(|| PositionError::at(text, f, format!("{what} must be a number from {min} to 65535")))
}

/// The en passant field `ep_field` of `text` set in `pos`, or, as Fairy-Stockfish writes a
/// running count there, the counting limit (with `halfmove` the plies counted).
fn en_passant_or_count(
    variant: &Variant,
    pos: &mut Position,
    text: &str,
    ep_field: &str,
    halfmove: u16,
    fullmove: u16,
) -> Result<(), PositionError> {
    let numeric = ep_field.bytes().all(|b| b.is_ascii_digit());
    if numeric && variant.def().counting.is_none() {
        return Err(PositionError::at(
            text,
            ep_field,
            format!("counting limit `{ep_field}`: this game has no counting rule; write `-`"),
        ));
    }
    if numeric {
        // Fairy-Stockfish writes a running count's limit in place of the en passant
        // square and the plies counted in place of the halfmove clock.
        let limit = field_number(text, ep_field, "the counting limit", 0)?;
        if limit != 0 {
            variant.set_clocks(pos, 0, fullmove);
            variant.set_count(pos, halfmove, limit).map_err(|e| PositionError::at(text, ep_field, e))?;
        }
    } else if ep_field != "-" {
        let ep = en_passant_field(variant, pos, ep_field).ok_or_else(|| {
            PositionError::at(
                text,
                ep_field,
                format!(
                    "en passant field `{ep_field}`: no piece of the side that just moved passed that \
                     square with a double step; write `-`, or the square passed over"
                ),
            )
        })?;
        variant.set_en_passant(pos, Some(ep)).map_err(|e| {
            PositionError::at(
                text,
                ep_field,
                format!("en passant field `{ep_field}`: {e}; write `-`, or the square passed over"),
            )
        })?;
        // Canonical: kept only when a legal en passant capture exists.
        if !has_legal_en_passant(variant, pos) {
            variant
                .set_en_passant(pos, None)
                .map_err(|e| PositionError::at(text, ep_field, e.to_string()))?;
        }
    }
    Ok(())
}

/// A Fairy-Stockfish position string with its last fields left out, as Fairy-Stockfish
/// reads it (its `variants.ini` start positions are often written so, and a UCI `position
/// fen` may be): `text` with the missing fields added as Fairy-Stockfish takes them (the
/// first side to move, no castling, no en passant, halfmove clock 0, move 1). `None` for a
/// string with all its fields, or one this reading does not apply to: a game of several
/// levels, of armies or Fidchell; in a game without `chess_fields` (where `placement side
/// halfmove fullmove` is the full string), only the placement, with or without the side.
fn fsf_abbreviated(def: &GameDef, text: &str, given: usize) -> Option<String> {
    if def.dims.levels() != 1 || def.army_fields || def.slug == "fidchell" || given == 0 {
        return None;
    }
    let most = if def.chess_fields { 5 } else { 2 };
    if given > most {
        return None;
    }
    let side = side_letter(def, Side::White).to_string();
    let defaults = [side.as_str(), "-", "-", "0", "1"];
    let missing: Vec<&str> = if def.chess_fields {
        defaults[given - 1..].to_vec()
    } else {
        defaults[given - 1..1].iter().chain(&defaults[3..]).copied().collect()
    };
    Some(format!("{} {}", text.trim_end(), missing.join(" ")))
}

/// Reads the castling field into `pos`: `-`, or rights as `K`, `Q`, `k`, `q` and file
/// letters.
fn castling_field(
    variant: &Variant,
    pos: &mut Position,
    text: &str,
    field: &str,
) -> Result<(), PositionError> {
    if field == "-" {
        return Ok(());
    }
    if variant.def().castling.is_none() {
        return Err(PositionError::at(
            text,
            field,
            format!(
                "castling field `{field}`: there is no castling in this game (its definition has no \
                 `castling`); write `-`"
            ),
        ));
    }
    let files = variant.def().dims.files();
    for (i, c) in field.char_indices() {
        let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
        let rook = match c.to_ascii_uppercase() {
            'K' => CastleRook::KingSide,
            'Q' => CastleRook::QueenSide,
            f @ 'A'..='Z' if (f as u8 - b'A') < files => CastleRook::File(f as u8 - b'A'),
            _ => {
                return Err(PositionError::at(
                    text,
                    &field[i..],
                    format!(
                        "castling field: `{c}` is not a right; write `-`, or K, Q, k, q or file letters a–{}",
                        (b'a' + files - 1) as char
                    ),
                ));
            }
        };
        variant
            .add_castling_right(pos, side, rook)
            .map_err(|e| PositionError::at(text, &field[i..], e.to_string()))?;
    }
    Ok(())
}

/// The castling field of `pos`: `-`, or each side's rights (white first, the right
/// towards the higher files first), `K`/`Q` for the outermost rook, else its file letter.
fn write_castling(variant: &Variant, pos: &Position) -> String {
    let mut out = String::new();
    for side in Side::ALL {
        for king_side in [true, false] {
            let Some(rook) = pos.castling_rook(side, king_side) else {
                continue;
            };
            let r = if variant.outermost_rook(pos, side, king_side) == Some(rook) {
                if king_side { CastleRook::KingSide } else { CastleRook::QueenSide }
            } else {
                CastleRook::File(rook.file().index() as u8)
            };
            out.push_str(&r.field(side));
        }
    }
    if out.is_empty() { "-".to_string() } else { out }
}

/// An army name as position strings write it: lower case, `horde` read as `evil-horde`.
fn army_text(field: &str) -> String {
    let lower = field.to_ascii_lowercase();
    if lower == "horde" { "evil-horde".into() } else { lower }
}

/// Whether the side to move has a legal en passant capture.
fn has_legal_en_passant(variant: &Variant, pos: &Position) -> bool {
    pos.en_passant().is_some()
        && variant.legal_moves(pos).iter().any(|m| match *m {
            Move::EnPassant { .. } => true,
            Move::Removal { to, capture: Some((sq, _)), .. } => sq != to,
            _ => false,
        })
}

/// The en passant right written `field`: `passed` or `passed:victim`. Without the
/// victim, the piece that passed stands on the next square straight on, one rank further
/// from its own side.
fn en_passant_field(variant: &Variant, pos: &Position, field: &str) -> Option<EnPassant> {
    let dims = variant.def().dims;
    let (p, v) = match field.split_once(':') {
        Some((p, v)) => (p, Some(v)),
        None => (field, None),
    };
    let passed = dims.parse_square(p)?;
    let victim = match v {
        Some(v) => dims.parse_square(v)?,
        None => {
            let fwd = if pos.side_to_move() == Side::White { -1 } else { 1 };
            dims.square_at(
                passed.level().index() as i32,
                passed.file().index() as i32,
                passed.rank().index() as i32 + fwd,
            )?
        }
    };
    Some(EnPassant { passed, victim })
}

/// The FEN token of `piece`: its code (lower case for the second side), in parentheses
/// when longer than one character.
pub fn piece_token(def: &GameDef, piece: Piece) -> String {
    let code = &def.kind(piece.kind).code;
    let code = if piece.side == Side::White { code.clone() } else { code.to_lowercase() };
    if code.chars().count() == 1 { code } else { format!("({code})") }
}

/// Writes `pos` as the canonical position string of `variant`.
pub fn write_position(variant: &Variant, pos: &Position) -> String {
    let def = variant.def();
    let dims = def.dims;
    let mut fields = Vec::new();
    for level in (0..dims.levels()).rev() {
        let mut ranks = Vec::new();
        for rank in (0..dims.ranks()).rev() {
            let mut s = String::new();
            let mut empty = 0;
            for file in 0..dims.files() {
                let sq = dims.square_at(level as i32, file as i32, rank as i32).expect("on board");
                match pos.piece_at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        s.push_str(&piece_token(def, p));
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            ranks.push(s);
        }
        fields.push(ranks.join("/"));
    }
    fields.push(side_letter(def, pos.side_to_move()).to_string());
    if let Some((ply, limit)) = pos.count() {
        // As Fairy-Stockfish writes a running count: the limit in the en passant field,
        // the plies counted in the halfmove clock's (which is not kept).
        fields.push(if def.chess_fields { write_castling(variant, pos) } else { "-".into() });
        fields.push(limit.to_string());
        fields.push(ply.to_string());
        fields.push(pos.fullmove_number().to_string());
        return fields.join(" ");
    }
    if def.chess_fields {
        fields.push(write_castling(variant, pos));
        let ep = pos.en_passant().filter(|_| has_legal_en_passant(variant, pos));
        fields.push(match ep {
            None => "-".to_string(),
            Some(e) if e.victim.file() == e.passed.file() => dims.name(e.passed),
            Some(e) => format!("{}:{}", dims.name(e.passed), dims.name(e.victim)),
        });
    }
    if def.slug == "fidchell" {
        fields.extend(super::fidchell_fields::write(variant, pos));
    }
    fields.push(pos.halfmove_clock().to_string());
    fields.push(pos.fullmove_number().to_string());
    if def.army_fields && def.armies.iter().any(|a| a != "humans") {
        fields.extend(def.armies.iter().cloned());
    }
    fields.join(" ")
}
