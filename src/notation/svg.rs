//! SVG pictures of positions, written by hand: one board per level, side by side (Gygax
//! Chess: Air, Land, Subterranean from left to right, each with its name above it), files
//! along the bottom, ranks on the left.
//!
//! Square colours and the cell size come from the variant's render data; a variant
//! without it gets [`DEFAULT_CELL_SIZE`] and the diagram's default colours
//! ([`super::diagram::DEFAULT_LIGHT`], [`super::diagram::DEFAULT_DARK`]). Every square
//! is one `<rect class="square">`. Pieces are their position-string tokens on a disc:
//! black on white for the first side, white on black for the second. The last move's
//! squares are outlined (`class="last"`) in [`LAST_MOVE_OUTLINE`], Fidchell's portals ringed
//! (`class="portal"`).
//!
//! [`svg_styled`] also turns the boards half a turn ([`PictureStyle::flip`]: rank 1 on top,
//! files from right to left, as the text diagram's `flip`) and writes a caption under
//! them ([`PictureStyle::caption`]: one `<text class="caption">` per line, and the same
//! lines in the document's `<desc>`), which is widened to hold it.

use std::fmt::Write;

use crate::engine::{Move, Position, Side, Variant};

use super::diagram::{PORTAL_COLOR, is_dark, level_colors, move_squares, piece_label, portal_squares};

/// Cell size in pixels when the render data gives none.
pub const DEFAULT_CELL_SIZE: u32 = 40;
/// Outline colour of the last move's squares: a near-black violet, whose contrast ratio
/// (WCAG 2) against every square colour of the built-in variants and the default colours
/// is at least 4:1 (Gygax's green Land board: 5.5 and 10.4), past the 3:1 that WCAG asks
/// of graphics. The red it replaces had 1.5 against Land's dark squares.
pub const LAST_MOVE_OUTLINE: &str = "#1a0033";

/// How [`svg_styled`] draws beyond the position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PictureStyle {
    /// Half a turn: rank 1 on top, files from right to left (levels keep their order).
    pub flip: bool,
    /// Lines of text under the boards (none: no caption).
    pub caption: Vec<String>,
}

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
    draw(v, Some(pos), last, &PictureStyle::default())
}

/// As [`svg`], flipped and captioned as `style` says.
pub fn svg_styled(v: &Variant, pos: &Position, last: Option<&Move>, style: &PictureStyle) -> String {
    draw(v, Some(pos), last, style)
}

/// Draws the empty board of `v` (squares, coordinates, level names, portals) as an SVG
/// document: the picture [`svg`] puts pieces on, for a page that places them itself.
pub fn board_svg(v: &Variant) -> String {
    draw(v, None, None, &PictureStyle::default())
}

fn draw(v: &Variant, pos: Option<&Position>, last: Option<&Move>, style: &PictureStyle) -> String {
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
    let font = (c * 9 / 20).max(6);
    // The caption: a line every 1.5 font sizes, under the file letters.
    let caption_font = font.max(12);
    let line = caption_font * 3 / 2;
    let boards_w = n * (margin + board_w) + (n - 1) * gap + c / 2;
    // About 0.6 font sizes per character of a sans-serif font, and a margin each side.
    let caption_w =
        style.caption.iter().map(|l| l.chars().count() as u32 * caption_font * 3 / 5 + 2 * margin).max();
    let width = boards_w.max(caption_w.unwrap_or(0));
    let boards_h = top + ranks * c + margin;
    let height =
        boards_h + if style.caption.is_empty() { 0 } else { style.caption.len() as u32 * line + c / 4 };
    // Where file `f` and rank `r` are drawn, counted from the left and from the bottom.
    let flip_x = |f: u32| if style.flip { files - 1 - f } else { f };
    let flip_y = |r: u32| if style.flip { ranks - 1 - r } else { r };
    let marked = move_squares(last);
    let portals = portal_squares(v);

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, "<title>{}</title>", escape(&def.title));
    if !style.caption.is_empty() {
        let _ = writeln!(s, "<desc>{}</desc>", escape(&style.caption.join("\n")));
    }
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
            let y = top + (ranks - 1 - flip_y(r as u32)) * c;
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="{font}" text-anchor="middle" dominant-baseline="central">{}</text>"#,
                x0 - c / 2,
                y + c / 2,
                r + 1
            );
            for f in 0..dims.files() {
                let sq = dims.square_at(l as i32, f as i32, r as i32).expect("on board");
                let x = x0 + flip_x(f as u32) * c;
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
                x0 + flip_x(f as u32) * c + c / 2,
                top + ranks * c + c / 2,
                (b'a' + f) as char
            );
        }
        s.push_str("</g>\n");
    }
    for (i, text) in style.caption.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<text class="caption" x="{margin}" y="{}" font-size="{caption_font}">{}</text>"#,
            boards_h + i as u32 * line + caption_font,
            escape(text)
        );
    }
    s.push_str("</svg>\n");
    s
}
