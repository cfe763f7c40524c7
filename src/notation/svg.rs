//! SVG pictures of positions, written by hand: one board per level, side by side (Gygax
//! Chess: Air, Land, Subterranean from left to right, each with its name above it), files
//! along the bottom, ranks on the left.
//!
//! Square colours and the cell size come from the variant's render data; a variant
//! without it gets [`DEFAULT_CELL_SIZE`] and the diagram's default colours
//! ([`super::diagram::DEFAULT_LIGHT`], [`super::diagram::DEFAULT_DARK`]). Every square
//! is one `<rect class="square">`. Pieces are their position-string tokens on a disc:
//! black on white for the first side, white on black for the second. The last move's
//! squares are outlined (`class="last"`), Fidchell's portals ringed (`class="portal"`).

use std::fmt::Write;

use crate::engine::{Move, Position, Side, Variant};

use super::diagram::{PORTAL_COLOR, is_dark, level_colors, move_squares, piece_label, portal_squares};

/// Cell size in pixels when the render data gives none.
pub const DEFAULT_CELL_SIZE: u32 = 40;
/// Outline colour of the last move's squares.
pub const LAST_MOVE_OUTLINE: &str = "#d03020";

/// Escapes `s` for XML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Draws `pos` as an SVG document; `last` outlines the last move's squares.
pub fn svg(v: &Variant, pos: &Position, last: Option<&Move>) -> String {
    draw(v, Some(pos), last)
}

/// Draws the empty board of `v` (squares, coordinates, level names, portals) as an SVG
/// document: the picture [`svg`] puts pieces on, for a page that places them itself.
pub fn board_svg(v: &Variant) -> String {
    draw(v, None, None)
}

fn draw(v: &Variant, pos: Option<&Position>, last: Option<&Move>) -> String {
    let def = v.def();
    let dims = def.dims;
    let c = if def.render.cell_size > 0 { def.render.cell_size } else { DEFAULT_CELL_SIZE };
    let files = dims.files() as u32;
    let ranks = dims.ranks() as u32;
    let multi = dims.levels() > 1;
    let margin = c;
    let gap = c;
    let top = if multi { c } else { c / 2 };
    let board_w = files * c;
    let levels: Vec<u8> = (0..dims.levels()).rev().collect();
    let n = levels.len() as u32;
    let width = n * (margin + board_w) + (n - 1) * gap + c / 2;
    let height = top + ranks * c + margin;
    let font = (c * 9 / 20).max(6);
    let marked = move_squares(last);
    let portals = portal_squares(v);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&def.title));
    let _ = writeln!(
        s,
        r##"<rect class="background" x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    for (i, &l) in levels.iter().enumerate() {
        let x0 = i as u32 * (margin + board_w + gap) + margin;
        let (light, dark) = level_colors(v, l);
        let _ = writeln!(s, r#"<g class="level" data-level="{}">"#, l + 1);
        if multi {
            let name = def.level_names.get(l as usize).cloned().unwrap_or_default();
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="{font}" text-anchor="middle">{} ({})</text>"#,
                x0 + board_w / 2,
                top - c / 4,
                escape(&name),
                l + 1
            );
        }
        for r in 0..dims.ranks() {
            let y = top + (ranks - 1 - r as u32) * c;
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="{font}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                x0 - c / 2,
                y + c / 2,
                r + 1
            );
            for f in 0..dims.files() {
                let sq = dims.square_at(l as i32, f as i32, r as i32).expect("on board");
                let x = x0 + f as u32 * c;
                let fill = if is_dark(sq) { &dark } else { &light };
                let name = format!(
                    "{}{}{}",
                    if multi { (l + 1).to_string() } else { String::new() },
                    (b'a' + f) as char,
                    r + 1
                );
                let _ = writeln!(
                    s,
                    r#"<rect class="square" id="{name}" x="{x}" y="{y}" width="{c}" height="{c}" fill="{}"/>"#,
                    escape(fill)
                );
                let (cx, cy) = (x + c / 2, y + c / 2);
                if portals.contains(&sq) {
                    let _ = writeln!(
                        s,
                        r#"<circle class="portal" cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="{PORTAL_COLOR}" stroke-width="{}" stroke-dasharray="3 2"/>"#,
                        c * 9 / 20,
                        (c / 12).max(1)
                    );
                }
                if let Some(p) = pos.and_then(|pos| pos.piece_at(sq)) {
                    let (disc, ink) =
                        if p.side == Side::White { ("#ffffff", "#000000") } else { ("#000000", "#ffffff") };
                    let label = piece_label(v, p);
                    let size = if label.chars().count() > 1 { font * 3 / 4 } else { font };
                    let _ = writeln!(
                        s,
                        r#"<circle class="piece" cx="{cx}" cy="{cy}" r="{}" fill="{disc}" stroke="{ink}" stroke-width="1"/>"#,
                        c * 2 / 5
                    );
                    let _ = writeln!(
                        s,
                        r#"<text x="{cx}" y="{cy}" font-size="{size}" font-weight="bold" fill="{ink}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                        escape(&label)
                    );
                }
                if marked.contains(&sq) {
                    let w = (c / 10).max(2);
                    let _ = writeln!(
                        s,
                        r#"<rect class="last" x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{LAST_MOVE_OUTLINE}" stroke-width="{w}"/>"#,
                        x + w / 2,
                        y + w / 2,
                        c - w,
                        c - w
                    );
                }
            }
        }
        for f in 0..dims.files() {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="{font}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                x0 + f as u32 * c + c / 2,
                top + ranks * c + c / 2,
                (b'a' + f) as char
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</svg>\n");
    s
}
