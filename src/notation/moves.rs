//! Moves in long form: piece code, origin, `-` or `x`, destination, `=` promotion.
//!
//! | move | long form |
//! |---|---|
//! | ordinary | `W2e2-2e3` |
//! | capture | `R3g1x3a7` |
//! | promotion | `W2c7-2c8=H` |
//! | capture without moving | `R3f5:2f4` (the piece stays on `3f5`) |
//! | drop / placement | `W_c3` |
//! | en passant | `Pf6xe7ep` (distinct from a plain move `Pf6-e7` to the same square) |
//! | Orc removal | `Orc7-d8=xh1`: the Orc moves, then it and the enemy piece on `h1` leave the board; `Orc7xd8=xh1` when the move captures; `Orc7xd8ep=xh1` en passant |
//! | replacement (Fidchell King, Queen) | `K_f5` (the square of the replaced piece) |
//! | castling | `O-O` towards the higher files, `O-O-O` towards the lower |
//!
//! Piece codes of more than one letter are written as they are (`Mk2c2-2c3`). The SAN
//! short form and its reader come with the game-file notation (`notation-spec/moves.md`).

use crate::engine::{Move, Variant};

/// Writes `mv` in long form.
pub fn long_form(variant: &Variant, mv: &Move) -> String {
    let def = variant.def();
    let d = def.dims;
    match *mv {
        Move::Normal { piece, from, to, capture, promotion } => {
            let mut s = format!(
                "{}{}{}{}",
                def.kind(piece).code,
                d.name(from),
                if capture.is_some() { 'x' } else { '-' },
                d.name(to)
            );
            if let Some(p) = promotion {
                s.push('=');
                s.push_str(&def.kind(p).code);
            }
            s
        }
        Move::Remote { piece, from, target, .. } => {
            format!("{}{}:{}", def.kind(piece).code, d.name(from), d.name(target))
        }
        Move::Drop { piece, to } | Move::Replace { piece, to, .. } => {
            format!("{}_{}", def.kind(piece).code, d.name(to))
        }
        Move::Castle { from, rook_from, .. } => {
            if rook_from.index() > from.index() { "O-O" } else { "O-O-O" }.to_string()
        }
        Move::EnPassant { piece, from, to, promotion, .. } => {
            let mut s = format!("{}{}x{}ep", def.kind(piece).code, d.name(from), d.name(to));
            if let Some(p) = promotion {
                s.push('=');
                s.push_str(&def.kind(p).code);
            }
            s
        }
        Move::Removal { piece, from, to, capture, target, .. } => {
            let ep = capture.is_some_and(|(sq, _)| sq != to);
            format!(
                "{}{}{}{}{}=x{}",
                def.kind(piece).code,
                d.name(from),
                if capture.is_some() { 'x' } else { '-' },
                d.name(to),
                if ep { "ep" } else { "" },
                d.name(target)
            )
        }
    }
}
