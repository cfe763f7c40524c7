//! Move tokens in the SAN style of `notation-spec/moves.md`: reading against a position's
//! legal moves, and writing the one canonical token.
//!
//! Reading is lenient where the input is unambiguous (long form, surplus origin, missing
//! `x`, missing compulsory single promotion, wrong check marks); writing gives the least
//! origin that identifies the move, and is checked by reading it back, so every written
//! token reads as the move it was written for.

use std::fmt;

use crate::engine::{Move, PieceKind, Position, Side, Square, Variant};

/// Why a move token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SanError {
    /// The token does not have the shape of a move.
    Syntax {
        /// What is wrong with it.
        reason: String,
    },
    /// It names a code the mover's piece table does not have.
    UnknownCode {
        /// The code as written (the token's leading capitals).
        code: String,
        /// The codes that exist.
        known: Vec<String>,
    },
    /// No legal move matches.
    Illegal {
        /// Why, as precisely as the position allows.
        reason: String,
        /// Canonical tokens of the nearest legal moves (that piece's, else to that square).
        legal: Vec<String>,
    },
    /// Several legal moves match.
    Ambiguous {
        /// Canonical tokens of the candidates.
        candidates: Vec<String>,
    },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax { reason } => write!(f, "not a move: {reason}"),
            SanError::UnknownCode { code, known } => {
                write!(f, "unknown piece code `{code}` (codes: {})", known.join(" "))
            }
            SanError::Illegal { reason, legal } => {
                write!(f, "illegal move: {reason}")?;
                if !legal.is_empty() {
                    write!(f, "; legal: {}", legal.join(" "))?;
                }
                Ok(())
            }
            SanError::Ambiguous { candidates } => {
                write!(f, "ambiguous move: could be {}", candidates.join(" or "))
            }
        }
    }
}

impl std::error::Error for SanError {}

/// The origin part of a token: whatever of level, file and rank it gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Origin {
    level: Option<u8>,
    file: Option<u8>,
    rank: Option<u8>,
}

impl Origin {
    fn matches(&self, sq: Square) -> bool {
        self.level.is_none_or(|l| l as usize == sq.level().index())
            && self.file.is_none_or(|f| f as usize == sq.file().index())
            && self.rank.is_none_or(|r| r as usize == sq.rank().index())
    }
    fn is_full(&self, levels: u8) -> bool {
        self.file.is_some() && self.rank.is_some() && (levels == 1 || self.level.is_some())
    }
    fn is_empty(&self) -> bool {
        self.level.is_none() && self.file.is_none() && self.rank.is_none()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    Drop(Square),
    Remote(Origin, Square),
    Ordinary { origin: Origin, capture: bool, dest: Square },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parts {
    code: Option<PieceKind>,
    body: Body,
    promotion: Option<PieceKind>,
    /// The `ep` suffix (en passant).
    ep: bool,
    /// The `=x` suffix: the square of the piece removed with an Orc.
    removal: Option<Square>,
}

impl Parts {
    /// The square the token acts on: every move it agrees with has it as [`Move::to`].
    fn square(&self) -> Square {
        match self.body {
            Body::Drop(sq) | Body::Remote(_, sq) | Body::Ordinary { dest: sq, .. } => sq,
        }
    }

    /// The kinds whose moves the token may agree with, as a mask (bit `k` for kind `k`):
    /// the kind of its code, or without a code the letterless kinds.
    fn kinds(&self, v: &Variant) -> u64 {
        match self.code {
            Some(c) => 1 << c.index(),
            None => {
                v.def().kinds.iter().enumerate().filter(|(_, k)| k.letterless).fold(0, |m, (i, _)| m | 1 << i)
            }
        }
    }
}

/// The kinds whose codes `side` may use.
fn table(v: &Variant, side: Side) -> impl Iterator<Item = (PieceKind, &str)> {
    v.codes(side).iter().map(|(k, c)| (*k, c.as_str()))
}

fn letterless(v: &Variant, side: Side) -> Option<PieceKind> {
    v.def().kinds.iter().position(|k| k.letterless && k.owned_by(side)).map(|i| PieceKind::new(i as u8))
}

/// The longest code of `side`'s table that starts `text` (the last of equals).
fn longest_code<'a>(v: &Variant, side: Side, text: &'a str) -> Option<(PieceKind, &'a str)> {
    // This runs for every token read and every token written: one pass over the side's
    // codes, held together by the variant.
    let first = text.as_bytes().first();
    let mut best: Option<(PieceKind, usize)> = None;
    for (k, c) in v.codes(side) {
        if c.as_bytes().first().is_none_or(|b| Some(b) == first)
            && text.starts_with(c.as_str())
            && best.is_none_or(|(_, len)| c.len() >= len)
        {
            best = Some((*k, c.len()));
        }
    }
    best.map(|(k, len)| (k, &text[len..]))
}

fn syntax(reason: impl Into<String>) -> SanError {
    SanError::Syntax { reason: reason.into() }
}

/// Splits `text` into a destination square and what stands before it (the origin part).
fn split_destination(v: &Variant, text: &str) -> Result<(String, Square), SanError> {
    let dims = v.def().dims;
    let b = text.as_bytes();
    let mut i = b.len();
    while i > 0 && b[i - 1].is_ascii_digit() {
        i -= 1;
    }
    if i == b.len() {
        return Err(syntax("no destination rank"));
    }
    let last_file = char::from(b'a' + dims.files() - 1);
    if i == 0 || !(b'a'..=b'l').contains(&b[i - 1]) {
        return Err(syntax(match text[..i].chars().next_back() {
            Some(c) => format!("`{c}` is not a file: the files are a to {last_file}"),
            None => format!("no destination file (a to {last_file})"),
        }));
    }
    let mut start = i - 1;
    if dims.levels() > 1 {
        if start == 0 || !b[start - 1].is_ascii_digit() {
            // What fits this board: the square as written, on each of its levels.
            let square = &text[start..];
            let mut on: Vec<String> = (1..=dims.levels()).map(|l| format!("`{l}{square}`")).collect();
            let last = on.pop().unwrap_or_default();
            return Err(syntax(format!(
                "the square `{square}` needs its level digit, 1 to {}: {} or {last}",
                dims.levels(),
                on.join(", ")
            )));
        }
        start -= 1;
    }
    let sq = dims
        .parse_square(&text[start..])
        .ok_or_else(|| syntax(format!("`{}` is not a square of this board", &text[start..])))?;
    Ok((text[..start].to_string(), sq))
}

/// Reads an origin part: `level | [level] file [rank]` on multi-level boards,
/// `file | rank | file rank` on one-level boards.
fn parse_origin(v: &Variant, text: &str) -> Result<Origin, SanError> {
    let dims = v.def().dims;
    let b = text.as_bytes();
    let mut o = Origin::default();
    let mut i = 0;
    if dims.levels() > 1 && i < b.len() && b[i].is_ascii_digit() {
        if b[i] == b'0' || b[i] - b'1' >= dims.levels() {
            return Err(syntax(format!("level {} does not exist", b[i] as char)));
        }
        o.level = Some(b[i] - b'1');
        i += 1;
    }
    if i < b.len() && (b'a'..=b'l').contains(&b[i]) {
        let f = b[i] - b'a';
        if f >= dims.files() {
            return Err(syntax(format!("file {} is not on this board", b[i] as char)));
        }
        o.file = Some(f);
        i += 1;
    }
    if i < b.len() {
        let digits = &text[i..];
        if !digits.bytes().all(|c| c.is_ascii_digit()) || digits.starts_with('0') || digits.len() > 2 {
            return Err(syntax(format!("cannot read the origin `{text}`")));
        }
        if dims.levels() > 1 && o.file.is_none() {
            return Err(syntax(format!("cannot read the origin `{text}`: a rank needs its file")));
        }
        let r: u8 = digits.parse().map_err(|_| syntax("bad rank"))?;
        if r == 0 || r > dims.ranks() {
            return Err(syntax(format!("rank {r} is not on this board")));
        }
        o.rank = Some(r - 1);
    }
    Ok(o)
}

/// Splits a token into its parts (`notation-spec/moves.md` §4, "Splitting").
fn split(v: &Variant, side: Side, token: &str) -> Result<Parts, SanError> {
    let token = token.trim_end_matches(['!', '?']);
    if token.is_empty() {
        return Err(syntax("empty move"));
    }
    let (code, rest) = if token.starts_with(|c: char| c.is_ascii_uppercase()) {
        match longest_code(v, side, token) {
            Some(x) => (Some(x.0), x.1),
            None => {
                return Err(SanError::UnknownCode {
                    code: token.chars().take_while(char::is_ascii_uppercase).collect(),
                    known: table(v, side).map(|(_, c)| c.to_string()).collect(),
                });
            }
        }
    } else {
        (None, token)
    };
    // Suffixes start at the first `ep`, `=`, `+` or `#`.
    let cut = [rest.find("ep"), rest.find('='), rest.find('+'), rest.find('#')].into_iter().flatten().min();
    let (body, mut suffix) = match cut {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut ep = false;
    if let Some(s) = suffix.strip_prefix("ep") {
        if !v.def().chess_fields {
            return Err(syntax("`ep` (en passant) does not occur in this game"));
        }
        ep = true;
        suffix = s;
    }
    let mut promotion = None;
    let mut removal = None;
    if let Some(s) = suffix.strip_prefix("=x") {
        let end = s.find(['+', '#']).unwrap_or(s.len());
        let sq =
            v.def().dims.parse_square(&s[..end]).ok_or_else(|| {
                syntax(format!("`=x{}`: expected the square of the removed piece", &s[..end]))
            })?;
        removal = Some(sq);
        suffix = &s[end..];
    } else if let Some(s) = suffix.strip_prefix('=') {
        let Some((k, after)) = longest_code(v, side, s) else {
            return Err(syntax(format!("`={s}`: expected a piece code after `=`")));
        };
        promotion = Some(k);
        suffix = after;
    }
    match suffix {
        "" | "+" | "#" => {}
        other => return Err(syntax(format!("unexpected `{other}` at the end"))),
    }
    let body = if let Some(sq) = body.strip_prefix('_') {
        if code.is_none() {
            return Err(syntax("a drop needs the piece code (e.g. W_c3)"));
        }
        let s = v
            .def()
            .dims
            .parse_square(sq)
            .ok_or_else(|| syntax(format!("`{sq}` is not a square of this board")))?;
        Body::Drop(s)
    } else if let Some((o, t)) = body.split_once(':') {
        if code.is_none() {
            return Err(syntax("a capture without moving needs the piece code (e.g. R:2e4)"));
        }
        let target = v
            .def()
            .dims
            .parse_square(t)
            .ok_or_else(|| syntax(format!("`{t}` is not a square of this board")))?;
        Body::Remote(parse_origin(v, o)?, target)
    } else {
        let (before, dest) = split_destination(v, body)?;
        let (origin_text, sep) = match before.strip_suffix('x') {
            Some(o) => (o, Some('x')),
            None => match before.strip_suffix('-') {
                Some(o) => (o, Some('-')),
                None => (before.as_str(), None),
            },
        };
        let origin = parse_origin(v, origin_text)?;
        if sep == Some('-') && !origin.is_full(v.def().dims.levels()) {
            return Err(syntax("`-` goes only after a full origin square (long form)"));
        }
        if code.is_none() && origin.file.is_none() && !origin.is_empty() {
            return Err(syntax("a move without a piece code gives its origin file, if any origin"));
        }
        Body::Ordinary { origin, capture: sep == Some('x'), dest }
    };
    Ok(Parts { code, body, promotion, ep, removal })
}

/// Whether the legal move `m` agrees with `parts` (`moves.md` §4, "Matching").
fn agrees(v: &Variant, parts: &Parts, m: &Move) -> bool {
    let kind_ok = |k: PieceKind| match parts.code {
        Some(c) => c == k,
        None => v.def().kind(k).letterless,
    };
    let promotion_ok = |piece: PieceKind, promotion: Option<PieceKind>| match (parts.promotion, promotion) {
        (None, None) => true,
        (Some(a), Some(b)) => a == b,
        (Some(_), None) => false,
        (None, Some(_)) => {
            v.def().kind(piece).promotion.as_ref().is_some_and(|p| p.mandatory && p.to.len() == 1)
        }
    };
    match (parts.body, *m) {
        (Body::Drop(sq), Move::Drop { piece, to } | Move::Replace { piece, to, .. }) => {
            kind_ok(piece) && sq == to
        }
        (Body::Remote(o, t), Move::Remote { piece, from, target, .. }) => {
            kind_ok(piece) && o.matches(from) && t == target
        }
        (
            Body::Ordinary { origin, capture, dest },
            Move::Normal { piece, from, to, capture: cap, promotion },
        ) => {
            if !kind_ok(piece) || to != dest || !origin.matches(from) || parts.ep || parts.removal.is_some() {
                return false;
            }
            if capture && cap.is_none() {
                return false;
            }
            promotion_ok(piece, promotion)
        }
        (Body::Ordinary { origin, capture, dest }, Move::EnPassant { piece, from, to, promotion, .. }) => {
            // `x` or `ep` is required: without both it is the plain move (rulings §4.4).
            kind_ok(piece)
                && to == dest
                && origin.matches(from)
                && (parts.ep || capture)
                && parts.removal.is_none()
                && promotion_ok(piece, promotion)
        }
        (
            Body::Ordinary { origin, capture, dest },
            Move::Removal { piece, from, to, capture: cap, target, .. },
        ) => {
            let is_ep = cap.is_some_and(|(sq, _)| sq != to);
            kind_ok(piece)
                && to == dest
                && origin.matches(from)
                && parts.removal == Some(target)
                && parts.promotion.is_none()
                && !(capture && cap.is_none())
                && (!is_ep || parts.ep || capture)
                && (!parts.ep || is_ep)
        }
        _ => false,
    }
}

/// Reads `token` as a move of the side to move in `pos`.
///
/// # Errors
/// [`SanError`]: the token's shape is wrong, its code unknown, no legal move matches (with
/// the reason and the nearest legal moves), or several do (with their canonical tokens).
pub fn read_move(v: &Variant, pos: &Position, token: &str) -> Result<Move, SanError> {
    read_generating(v, pos, token, false).map(|(m, _)| m)
}

/// [`read_move`], and the pseudo-legal moves of `pos` to the move's square when the move
/// was found among them (`None` when the legal moves had to be generated to read it):
/// those of every kind if `every_kind`, else only those of the kinds the token may name.
fn read_generating(
    v: &Variant,
    pos: &Position,
    token: &str,
    every_kind: bool,
) -> Result<(Move, Option<Vec<Move>>), SanError> {
    // Fast path: test legality only for the pseudo-legal moves the token matches. Every
    // move a token agrees with acts on the token's square, with a piece of a kind it may
    // name: only the pieces that could reach that square have their moves generated, and
    // only their moves onto it.
    if castle_token(token).is_some() {
        return read_among(v, pos, &v.legal_moves(pos), token).map(|m| (m, None));
    }
    let parts = split(v, pos.side_to_move(), token)?;
    let kinds = if every_kind { u64::MAX } else { parts.kinds(v) };
    let mut pseudo = Vec::with_capacity(16);
    v.pseudo_legal_moves_to(pos, parts.square(), kinds, &mut pseudo);
    let mut found = pseudo.iter().filter(|m| agrees(v, &parts, m) && v.is_legal_pseudo(pos, m));
    match (found.next().copied(), found.next()) {
        (Some(m), None) => Ok((m, Some(pseudo))),
        _ => read_among(v, pos, &v.legal_moves(pos), token).map(|m| (m, None)),
    }
}

/// [`read_move`] with the legal moves of `pos` already known.
///
/// # Errors
/// As [`read_move`].
pub fn read_among(v: &Variant, pos: &Position, legal: &[Move], token: &str) -> Result<Move, SanError> {
    if let Some(king_side) = castle_token(token) {
        return read_castle(v, pos, legal, king_side);
    }
    let parts = split(v, pos.side_to_move(), token)?;
    let found: Vec<&Move> = legal.iter().filter(|m| agrees(v, &parts, m)).collect();
    match found.as_slice() {
        [one] => Ok(**one),
        [] => Err(explain_illegal(v, pos, legal, &parts)),
        many => Err(SanError::Ambiguous { candidates: many.iter().map(|m| write_move(v, pos, m)).collect() }),
    }
}

/// Whether `token` castles: `Some(true)` for `O-O` (towards the higher files),
/// `Some(false)` for `O-O-O`; `0` is read for `O`, and check marks and `!`/`?` are
/// ignored.
fn castle_token(token: &str) -> Option<bool> {
    let t = token.trim_end_matches(['!', '?', '+', '#']);
    match t {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    }
}

/// The castling move of `legal` on the wing asked, or why there is none.
fn read_castle(v: &Variant, pos: &Position, legal: &[Move], king_side: bool) -> Result<Move, SanError> {
    let wanted = if king_side { "O-O" } else { "O-O-O" };
    if let Some(m) = legal.iter().find(|m| m.castles_king_side() == Some(king_side)) {
        return Ok(*m);
    }
    let castles: Vec<String> =
        legal.iter().filter(|m| m.castles_king_side().is_some()).map(|m| write_move(v, pos, m)).collect();
    let side = v.def().side_name(pos.side_to_move());
    let reason = if v.def().castling.is_none() {
        format!("{wanted}: this game has no castling")
    } else if pos.castling_rook(pos.side_to_move(), king_side).is_none() {
        format!("{wanted}: {side} has no castling right on that wing (its king or that rook has moved)")
    } else {
        let mut pseudo = Vec::new();
        v.pseudo_legal_moves(pos, &mut pseudo);
        if pseudo.iter().any(|m| m.castles_king_side() == Some(king_side)) {
            format!("{wanted}: the king would be left in check")
        } else {
            format!(
                "{wanted}: the squares the king and rook cross must be empty, and the king may not castle \
                 out of, through or into check"
            )
        }
    };
    Err(SanError::Illegal { reason, legal: castles })
}

fn explain_illegal(v: &Variant, pos: &Position, legal: &[Move], parts: &Parts) -> SanError {
    let def = v.def();
    let dims = def.dims;
    let side = pos.side_to_move();
    let kind = parts.code.or_else(|| letterless(v, pos.side_to_move()));
    let kind_name = kind.map(|k| def.kind(k).name.clone()).unwrap_or_else(|| "piece".into());
    let write = |ms: Vec<&Move>| -> Vec<String> {
        let mut t: Vec<String> = ms.into_iter().map(|m| write_move(v, pos, m)).collect();
        t.sort();
        t
    };
    let (origin, dest) = match parts.body {
        Body::Drop(sq) => (Origin::default(), sq),
        Body::Remote(o, t) => (o, t),
        Body::Ordinary { origin, dest, .. } => (origin, dest),
    };
    // The Dragon's capture written with `x`.
    if let Body::Ordinary { .. } = parts.body
        && let Some(r) = legal.iter().find(
            |m| matches!(m, Move::Remote { target, piece, .. } if *target == dest && Some(*piece) == kind),
        )
    {
        return SanError::Illegal {
            reason: format!(
                "the {kind_name} captures on {} without moving: write it with `:`",
                dims.name(dest)
            ),
            legal: vec![write_move(v, pos, r)],
        };
    }
    // A pseudo-legal match means the move exposes the royal piece.
    let mut pseudo = Vec::new();
    v.pseudo_legal_moves(pos, &mut pseudo);
    if pseudo.iter().any(|m| agrees(v, parts, m)) {
        let royal = def.kinds.iter().find(|k| k.royal).map(|k| k.name.as_str()).unwrap_or("royal piece");
        return SanError::Illegal {
            reason: format!("it would leave the {royal} of {} in check", def.side_name(side)),
            legal: write(legal.iter().filter(|m| Some(m.piece()) == kind).collect()),
        };
    }
    // Pieces of that kind the origin could mean, and whether they are frozen.
    let own: Vec<Square> = pos
        .pieces()
        .filter(|(sq, p)| p.side == side && Some(p.kind) == kind && origin.matches(*sq))
        .map(|(sq, _)| sq)
        .collect();
    if let [only] = own.as_slice()
        && v.is_frozen(pos, *only)
    {
        return SanError::Illegal {
            reason: format!("the {kind_name} on {} is frozen by a Basilisk below it", dims.name(*only)),
            legal: vec![],
        };
    }
    // A promotion that must be chosen: the moves that name a piece.
    if parts.promotion.is_none() {
        let choices: Vec<&Move> = legal
            .iter()
            .filter(|m| {
                m.promotion().is_some() && agrees(v, &Parts { promotion: m.promotion(), ..*parts }, m)
            })
            .collect();
        if !choices.is_empty() {
            let choices = write(choices);
            return SanError::Illegal {
                reason: format!(
                    "the {kind_name} that goes to {} must promote: name the piece, one of {}",
                    dims.name(dest),
                    choices.join(", ")
                ),
                legal: choices,
            };
        }
    }
    let reason = if kind.is_some() && own.is_empty() && !matches!(parts.body, Body::Drop(_)) {
        format!("{} has no {kind_name} {}", def.side_name(side), describe_origin(&origin))
    } else {
        // Say what the origin was read as: `Sa3b5` is a Sylph on the a-file going to 3b5.
        let from = if origin.is_empty() { String::new() } else { format!(" {}", describe_origin(&origin)) };
        let mut reason =
            format!("no {kind_name} of {}{from} can go to {}", def.side_name(side), dims.name(dest));
        // Why, when the square says it: a piece of the mover's own side stands there.
        if let Some(there) = pos.piece_at(dest).filter(|p| p.side == side) {
            reason.push_str(&format!(
                ": {} holds {}'s own {}",
                dims.name(dest),
                def.side_name(side),
                def.kind(there.kind).name
            ));
        }
        reason
    };
    let mut near: Vec<&Move> = legal
        .iter()
        .filter(|m| Some(m.piece()) == kind && m.from().is_none_or(|f| origin.matches(f)))
        .collect();
    if near.is_empty() {
        near = legal.iter().filter(|m| m.to() == dest).collect();
    }
    SanError::Illegal { reason, legal: write(near) }
}

/// Where the origin part of a token says the piece stands, for a message: `on a3`, `on
/// the a-file`, `on rank 3`, each `of level 2` when the level is given too, `on level 2`.
fn describe_origin(o: &Origin) -> String {
    let file = o.file.map(|f| ((b'a' + f) as char).to_string());
    let rank = o.rank.map(|r| (r + 1).to_string());
    let place = match (file, rank) {
        (Some(f), Some(r)) => Some(format!("{f}{r}")),
        (Some(f), None) => Some(format!("the {f}-file")),
        (None, Some(r)) => Some(format!("rank {r}")),
        (None, None) => None,
    };
    match (place, o.level) {
        (Some(p), Some(l)) => format!("on {p} of level {}", l + 1),
        (Some(p), None) => format!("on {p}"),
        (None, Some(l)) => format!("on level {}", l + 1),
        (None, None) => "on the board".into(),
    }
}

/// The check mark `mv` earns: `#` if it ends the game by checkmate, `+` if it attacks the
/// opponent's royal piece, else nothing.
fn check_mark(v: &Variant, pos: &Position, mv: &Move) -> &'static str {
    let after = v.make(pos, mv);
    if !v.in_check(&after) {
        return "";
    }
    match v.outcome(&after) {
        Some(crate::engine::Outcome::Win { reason: crate::engine::EndReason::Checkmate, .. }) => "#",
        _ => "+",
    }
}

/// Writes the canonical token of `mv`, a legal move of `pos` (`moves.md` §5).
pub fn write_move(v: &Variant, pos: &Position, mv: &Move) -> String {
    // A token names its move's square (`agrees` requires it): only the legal moves to that
    // square can share a token, and their legality is all that is tested.
    write_among(v, pos, mv, &v.legal_moves_to(pos, mv.to()))
}

/// [`read_move`], and the canonical token of the move read ([`write_move`]'s), from one
/// generation of the moves of `pos`.
///
/// # Errors
/// As [`read_move`].
pub fn read_move_written(v: &Variant, pos: &Position, token: &str) -> Result<(Move, String), SanError> {
    let (m, pseudo) = read_generating(v, pos, token, true)?;
    let written = match pseudo {
        Some(pseudo) => write_among(v, pos, &m, &v.legal_moves_among(pos, &pseudo, |r| r.to() == m.to())),
        None => write_move(v, pos, &m),
    };
    Ok((m, written))
}

/// [`write_move`], given `rivals`: the legal moves of `pos` to `mv`'s square.
fn write_among(v: &Variant, pos: &Position, mv: &Move, rivals: &[Move]) -> String {
    let mark = check_mark(v, pos, mv);
    let def = v.def();
    let dims = def.dims;
    let code = |k: PieceKind| def.kind(k).code.clone();
    let unique = |t: &str| {
        let parts = match split(v, pos.side_to_move(), t) {
            Ok(p) => p,
            Err(_) => return false,
        };
        let mut found = rivals.iter().filter(|m| agrees(v, &parts, m));
        found.next() == Some(mv) && found.next().is_none()
    };
    let token = match *mv {
        Move::Castle { from, rook_from, .. } => {
            if rook_from.index() > from.index() { "O-O" } else { "O-O-O" }.to_string()
        }
        // Fidchell's King re-introduction and Queen return are drops onto the square of
        // the piece they replace (`moves.md` §6).
        Move::Drop { piece, to } | Move::Replace { piece, to, .. } => {
            format!("{}_{}", code(piece), dims.name(to))
        }
        Move::Remote { piece, from, target, .. } => {
            let c = code(piece);
            let t = dims.name(target);
            origins(v, from)
                .into_iter()
                .map(|o| format!("{c}{o}:{t}"))
                .find(|tok| unique(tok))
                .unwrap_or_else(|| format!("{c}{}:{t}", dims.name(from)))
        }
        Move::EnPassant { piece, from, to, promotion, .. } => {
            // `ep` except under `grand`, as Fairy-Stockfish programs write it (moves.md §5).
            let ep = if def.slug == "grand" { "" } else { "ep" };
            let promo = promotion.map(|k| format!("={}", code(k))).unwrap_or_default();
            ordinary(v, from, to, piece, true, &format!("{ep}{promo}"), &unique)
        }
        Move::Removal { piece, from, to, capture, target, .. } => {
            let ep = if capture.is_some_and(|(sq, _)| sq != to) { "ep" } else { "" };
            ordinary(v, from, to, piece, capture.is_some(), &format!("{ep}=x{}", dims.name(target)), &unique)
        }
        Move::Normal { piece, from, to, capture, promotion } => {
            let is_letterless = def.kind(piece).letterless;
            let c = if is_letterless { String::new() } else { code(piece) };
            let x = if capture.is_some() { "x" } else { "" };
            let promo = promotion.map(|k| format!("={}", code(k))).unwrap_or_default();
            let dest = dims.name(to);
            let mut tries = origins(v, from);
            if is_letterless && capture.is_some() {
                // Pawn-style captures always give the origin file.
                tries.retain(|o| o.chars().any(|ch| ch.is_ascii_lowercase()));
            }
            tries
                .into_iter()
                .map(|o| format!("{c}{o}{x}{dest}{promo}"))
                .find(|tok| unique(tok))
                .unwrap_or_else(|| {
                    let sep = if capture.is_some() { "x" } else { "-" };
                    format!("{c}{}{sep}{dest}{promo}", dims.name(from))
                })
        }
    };
    format!("{token}{mark}")
}

/// The token of an ordinary-shaped move with `suffix` after the destination.
fn ordinary(
    v: &Variant,
    from: Square,
    to: Square,
    piece: PieceKind,
    capture: bool,
    suffix: &str,
    unique: &dyn Fn(&str) -> bool,
) -> String {
    let def = v.def();
    let dims = def.dims;
    let is_letterless = def.kind(piece).letterless;
    let c = if is_letterless { String::new() } else { def.kind(piece).code.clone() };
    let x = if capture { "x" } else { "" };
    let dest = dims.name(to);
    let mut tries = origins(v, from);
    if is_letterless && capture {
        tries.retain(|o| o.chars().any(|ch| ch.is_ascii_lowercase()));
    }
    tries.into_iter().map(|o| format!("{c}{o}{x}{dest}{suffix}")).find(|tok| unique(tok)).unwrap_or_else(
        || {
            let sep = if capture { "x" } else { "-" };
            format!("{c}{}{sep}{dest}{suffix}", dims.name(from))
        },
    )
}

/// Origins to try, least first: one-level boards: nothing, file, rank, file and rank;
/// multi-level boards: nothing, file, level (then the caller's long form).
fn origins(v: &Variant, from: Square) -> Vec<String> {
    let f = from.file().char().to_string();
    if v.def().dims.levels() > 1 {
        vec![String::new(), f, from.level().number().to_string()]
    } else {
        let r = from.rank().number().to_string();
        vec![String::new(), f.clone(), r.clone(), format!("{f}{r}")]
    }
}

/// A move number written before a move token, as game text has it: `17.` (White's move
/// 17) or `17...` (Black's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveNumber {
    /// The number.
    pub number: u32,
    /// `...`: the second player's move.
    pub second: bool,
}

/// Splits a move number off the front of `token` (`17... Mbh8`, `17...Mbh8`, `3. e5`):
/// the number, if there is one, and the move token after it.
pub fn split_move_number(token: &str) -> (Option<MoveNumber>, &str) {
    let t = token.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &t[digits..];
    let dots = rest.bytes().take_while(|&b| b == b'.').count();
    if digits == 0 || dots == 0 || (dots != 1 && dots != 3) {
        return (None, t);
    }
    let Ok(number) = t[..digits].parse() else { return (None, t) };
    let move_token = rest[dots..].trim_start();
    if move_token.is_empty() {
        return (None, t);
    }
    (Some(MoveNumber { number, second: dots == 3 }), move_token)
}
