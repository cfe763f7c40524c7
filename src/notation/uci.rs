//! Moves as UCI engines write them (Fairy-Stockfish's long algebraic on a 2-D board): the
//! origin square, the destination square, then a promotion's piece code in lower case:
//! `e3e5`, `h9h10q`.

use crate::engine::{Move, Position, Variant};

/// The UCI writing of `mv`; `None` for moves UCI has no writing for (captures without
/// moving, replacements, removals). A drop is written `P@e4`, castling as the king's move.
pub fn write_uci(v: &Variant, mv: &Move) -> Option<String> {
    let d = v.def().dims;
    let code = |k| v.def().kind(k).code.to_lowercase();
    match *mv {
        Move::Normal { from, to, promotion, .. } | Move::EnPassant { from, to, promotion, .. } => {
            Some(format!("{}{}{}", d.name(from), d.name(to), promotion.map(code).unwrap_or_default()))
        }
        Move::Castle { from, to, .. } => Some(format!("{}{}", d.name(from), d.name(to))),
        Move::Drop { piece, to } => {
            Some(format!("{}@{}", v.def().kind(piece).code.to_uppercase(), d.name(to)))
        }
        _ => None,
    }
}

/// The legal move of `p` that an engine's `bestmove` token names: the one [`write_uci`]
/// writes so, else the one [`read_uci`] reads (Fairy-Stockfish's other castling form).
pub fn engine_move(v: &Variant, p: &Position, token: &str) -> Option<Move> {
    let legal = v.legal_moves(p);
    legal
        .iter()
        .find(|m| write_uci(v, m).as_deref() == Some(token))
        .copied()
        .or_else(|| read_uci(v, p, token))
}

/// The legal move of `p` that the UCI move `uci` names; `None` when it names none (or,
/// on a board where that can happen, more than one).
pub fn read_uci(v: &Variant, p: &Position, uci: &str) -> Option<Move> {
    let dims = v.def().dims;
    // The destination starts at the first file letter after the origin's.
    let split = 1 + uci.get(1..)?.find(|c: char| c.is_ascii_lowercase())?;
    let (from, rest) = uci.split_at(split);
    let digits = 1 + rest.get(1..)?.bytes().take_while(u8::is_ascii_digit).count();
    let (to, promotion) = rest.split_at(digits.min(rest.len()));
    let code = (!promotion.is_empty()).then(|| promotion.to_ascii_uppercase());
    let mut found = v.legal_moves(p).into_iter().filter(|m| {
        m.from().map(|f| dims.name(f)).as_deref() == Some(from)
            && (dims.name(m.to()) == to
                // Fairy-Stockfish's castling in Chess960 mode: the king takes its own rook.
                || matches!(m, Move::Castle { rook_from, .. } if dims.name(*rook_from) == to))
            && m.promotion().map(|k| v.def().kind(k).code.clone()) == code
    });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::read_uci;

    #[test]
    fn a_uci_move_names_one_legal_move_or_none() {
        let v = crate::variants::by_name("grand", &[]).unwrap();
        let p = v.start_position();
        let m = read_uci(&v, &p, "e3e5").expect("a pawn's double step");
        assert_eq!(crate::notation::san::write_move(&v, &p, &m), "e5");
        for bad in ["", "e", "e3", "e3e", "e3e9", "z9z10", "e3e5q", "\u{e9}3e5"] {
            assert_eq!(read_uci(&v, &p, bad), None, "{bad:?}");
        }
    }
}
