//! Text diagrams of positions: one board per level, side by side (Gygax Chess: Air,
//! Land, Subterranean from left to right), files along the bottom, ranks on both sides.
//!
//! Pieces are their position-string tokens (upper case for the first side); empty light
//! squares are `.`, empty dark squares `:` (square `a1` of each level is dark). The last
//! move's squares are marked with brackets. No colour: the caller decides about terminals.

use crate::engine::{Move, Position, Side, Square, Variant};

use super::position_string::piece_token;

/// Draws `pos`; `last` marks the last move's squares.
pub fn diagram(v: &Variant, pos: &Position, last: Option<&Move>) -> String {
    let def = v.def();
    let dims = def.dims;
    let marked: Vec<Square> = match last {
        None => vec![],
        Some(m) => m.from().into_iter().chain(std::iter::once(m.to())).collect(),
    };
    // Each cell is 3 characters wide: " X ", "[X]".
    let cell = |sq: Square| -> String {
        let dark = (sq.file().index() + sq.rank().index()).is_multiple_of(2);
        let body = match pos.piece_at(sq) {
            Some(p) => piece_token(def, p),
            None => (if dark { ":" } else { "." }).to_string(),
        };
        let body = if body.chars().count() > 1 { body.trim_matches(['(', ')']).to_string() } else { body };
        if marked.contains(&sq) {
            format!("[{body}]")
        } else if body.chars().count() >= 2 {
            format!("{body:<3}")
        } else {
            format!(" {body} ")
        }
    };
    let levels: Vec<u8> = (0..dims.levels()).rev().collect();
    let width = dims.files() as usize * 3;
    let gap = "    ";
    let mut lines = Vec::new();
    if dims.levels() > 1 {
        let mut head = String::new();
        for (i, l) in levels.iter().enumerate() {
            if i > 0 {
                head.push_str(gap);
            }
            let name = format!("{} ({})", def.level_names[*l as usize], l + 1);
            head.push_str(&format!("    {name:^width$}   "));
        }
        lines.push(head.trim_end().to_string());
    }
    for r in (0..dims.ranks()).rev() {
        let mut line = String::new();
        for (i, l) in levels.iter().enumerate() {
            if i > 0 {
                line.push_str(gap);
            }
            line.push_str(&format!("{:>2} ", r + 1));
            for f in 0..dims.files() {
                let sq = dims.square_at(*l as i32, f as i32, r as i32).expect("on board");
                line.push_str(&cell(sq));
            }
            line.push_str(&format!(" {:<2}", r + 1));
        }
        lines.push(line.trim_end().to_string());
    }
    let mut files = String::new();
    for (i, _) in levels.iter().enumerate() {
        if i > 0 {
            files.push_str(gap);
        }
        files.push_str("   ");
        for f in 0..dims.files() {
            files.push_str(&format!(" {} ", (b'a' + f) as char));
        }
        files.push_str("   ");
    }
    lines.push(files.trim_end().to_string());
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// One line saying whose move it is, e.g. `Gold to move (move 12)`.
pub fn side_line(v: &Variant, pos: &Position) -> String {
    let s: Side = pos.side_to_move();
    format!("{} to move (move {})", v.def().side_name(s), pos.fullmove_number())
}
