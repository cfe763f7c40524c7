//! The four Fidchell fields of a position string (`notation-spec/position-strings.md` §4):
//! hand, captured, portals, pending.
//!
//! ```text
//! piece-list = "-" | "[" item-piece { item-piece } "]"   (* hand, captured *)
//! portals    = use use use use "/" use use use use       (* use = "0" | "1" | "2" *)
//! pending    = "-" | "Q"
//! ```
//!
//! Reading accepts the pieces of a list in any order; writing lists the first side's
//! pieces, then the second side's, each in the definition's table order, and writes `-`
//! for an empty list. The portal pieces in reserve are not written: each is its portal's
//! limit minus its uses.

use crate::engine::fidchell::{CAPTURED, FidchellRules, IN_HAND, PORTALS, QUEEN_PENDING, RETURNABLE, USES};
use crate::engine::{GameDef, Piece, PieceKind, Position, Side, Variant};

use super::position_string::{PositionError, kind_of, piece_token};

/// The Fidchell fields as read, before they are applied to a position.
#[derive(Debug, Clone, Default)]
pub(crate) struct FidchellFields {
    /// Pieces in hand: (side, kind, count), the reserve included.
    pub hand: Vec<(Side, PieceKind, u8)>,
    /// Captured pieces by side and [`RETURNABLE`] slot.
    captured: [[u8; RETURNABLE.len()]; 2],
    uses: [u8; 8],
    pending: bool,
}

/// Reads the items of a piece list (`-` or `[...]`) in `field`.
fn piece_list(def: &GameDef, text: &str, field: &str) -> Result<Vec<Piece>, PositionError> {
    if field == "-" {
        return Ok(Vec::new());
    }
    let inner = field
        .strip_prefix('[')
        .and_then(|f| f.strip_suffix(']'))
        .filter(|f| !f.is_empty())
        .ok_or_else(|| PositionError::at(text, field, "expected `-` or a list of pieces in `[...]`"))?;
    let mut out = Vec::new();
    let mut rest = inner;
    while !rest.is_empty() {
        let (token, next) = if let Some(r) = rest.strip_prefix('(') {
            let end = r.find(')').ok_or_else(|| PositionError::at(text, rest, "unclosed `(`"))?;
            (&r[..end], &r[end + 1..])
        } else {
            let c = rest.chars().next().expect("not empty");
            rest.split_at(c.len_utf8())
        };
        let p = kind_of(def, token)
            .ok_or_else(|| PositionError::at(text, rest, format!("unknown piece code `{token}`")))?;
        out.push(p);
        rest = next;
    }
    Ok(out)
}

/// Reads the fields `hand captured portals pending` (`fields` holds exactly these four).
pub(crate) fn parse(
    def: &GameDef,
    text: &str,
    fields: &[&str],
    side: Side,
) -> Result<FidchellFields, PositionError> {
    let [hand, captured, portals, pending] = fields else { unreachable!("the caller passes four fields") };
    let mut f = FidchellFields::default();
    let mut counts = [[0u8; 64]; 2];
    for p in piece_list(def, text, hand)? {
        let code = def.kind(p.kind).code.as_str();
        let Some((_, max)) = IN_HAND.iter().find(|(c, _)| *c == code) else {
            return Err(PositionError::at(text, hand, format!("`{code}` is never held in hand")));
        };
        let n = &mut counts[p.side.index()][p.kind.index()];
        *n += 1;
        if *n > *max {
            return Err(PositionError::at(text, hand, format!("more than {max} `{code}` in hand")));
        }
    }
    for p in piece_list(def, text, captured)? {
        let i = p.kind.index();
        if i >= RETURNABLE.len() {
            return Err(PositionError::at(
                text,
                captured,
                format!(
                    "`{}` cannot come back through a portal (unpromoted kinds only)",
                    def.kind(p.kind).code
                ),
            ));
        }
        f.captured[p.side.index()][i] = f.captured[p.side.index()][i].saturating_add(1);
    }
    let b = portals.as_bytes();
    if b.len() != 9 || b[4] != b'/' {
        return Err(PositionError::at(
            text,
            portals,
            "portal uses: four digits `/` four digits, e.g. `0000/0000`",
        ));
    }
    for (i, spec) in PORTALS.iter().enumerate() {
        let c = b[if i < 4 { i } else { i + 1 }];
        let n = c.wrapping_sub(b'0');
        if !c.is_ascii_digit() || n > spec.max_uses {
            return Err(PositionError::at(
                text,
                &portals[if i < 4 { i } else { i + 1 }..],
                format!("the {} portal is used at most {} times", spec.name, spec.max_uses),
            ));
        }
        f.uses[i] = n;
    }
    f.pending = match *pending {
        "-" => false,
        "Q" => true,
        _ => return Err(PositionError::at(text, pending, "pending: `Q` or `-`")),
    };
    let in_hand = |s: Side| counts[s.index()].iter().any(|n| *n > 0);
    if (in_hand(Side::White) || in_hand(Side::Black)) && !in_hand(side) {
        return Err(PositionError::at(
            text,
            hand,
            "introduction phase: the side to move must have a piece in hand",
        ));
    }
    for s in Side::ALL {
        for (k, n) in counts[s.index()].iter().enumerate() {
            if *n > 0 {
                f.hand.push((s, PieceKind::new(k as u8), *n));
            }
        }
    }
    for (i, spec) in PORTALS.iter().enumerate() {
        if let Some(code) = spec.admits {
            let k = def.kind_by_code(code).expect("the rules checked the definition");
            f.hand.push((spec.side, k, spec.max_uses - f.uses[i]));
        }
    }
    Ok(f)
}

/// Sets the variant state of `pos` from `f` (the hand is set up with the position).
pub(crate) fn apply(pos: &mut Position, f: &FidchellFields) {
    for (i, n) in f.uses.iter().enumerate() {
        pos.set_variant_byte(USES + i, *n);
    }
    pos.set_variant_byte(QUEEN_PENDING, f.pending as u8);
    for s in Side::ALL {
        for (slot, n) in f.captured[s.index()].iter().enumerate() {
            pos.set_variant_byte(CAPTURED + s.index() * RETURNABLE.len() + slot, *n);
        }
    }
}

/// Writes the fields `hand captured portals pending` of `pos`.
pub(crate) fn write(variant: &Variant, pos: &Position) -> [String; 4] {
    let def = variant.def();
    let list = |items: Vec<(Side, PieceKind, u8)>| {
        let mut s = String::new();
        for (side, k, n) in items {
            for _ in 0..n {
                s.push_str(&piece_token(def, Piece::new(side, k)));
            }
        }
        if s.is_empty() { "-".to_string() } else { format!("[{s}]") }
    };
    let mut hand = Vec::new();
    let mut captured = Vec::new();
    for s in Side::ALL {
        for (code, _) in IN_HAND {
            let k = def.kind_by_code(code).expect("the rules checked the definition");
            hand.push((s, k, pos.in_hand(s, k)));
        }
        for slot in 0..RETURNABLE.len() {
            captured.push((s, PieceKind::new(slot as u8), FidchellRules::captured(pos, s, slot)));
        }
    }
    let uses: String = (0..8)
        .map(|i| {
            let d = (b'0' + FidchellRules::uses(pos, i)) as char;
            if i == 4 { format!("/{d}") } else { d.to_string() }
        })
        .collect();
    let pending = if FidchellRules::queen_pending(pos) { "Q" } else { "-" };
    [list(hand), list(captured), uses, pending.to_string()]
}
