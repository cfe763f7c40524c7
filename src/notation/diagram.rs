//! Text diagrams of positions: one board per level, side by side (Gygax Chess: Air,
//! Land, Subterranean from left to right) or stacked (Air on top), files along the
//! bottom, ranks on both sides. [`Layout::fitting`] picks the layout for a width in
//! columns (a terminal's, a mail body's 78).
//!
//! Pieces are their position-string tokens (upper case for the first side); empty light
//! squares are `.`, empty dark squares `:` (square `a1` of each level is dark). The last
//! move's squares are marked with brackets (`[G]`, `[:]`; a two-letter code, which takes
//! two of a cell's three columns, with the closing one only: `Or]`). Empty Fidchell
//! portal squares are `*`.
//!
//! [`diagram_styled`] can add ANSI colours (square colours from the variant's render
//! data, the last move's squares and the portals highlighted); whether a terminal gets
//! them is the caller's choice.

use crate::engine::{Move, Position, Side, Square, Variant};

use super::position_string::piece_token;

/// How to draw a diagram.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiagramStyle {
    /// Colour squares and pieces with ANSI escapes (24-bit colours).
    pub color: bool,
    /// Turn each board half a turn: the second side's view, the highest rank at the bottom
    /// and files from right to left (levels stay in their order).
    pub flip: bool,
}

/// Where the levels of a many-level board go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// Side by side, the highest level on the left (Gygax Chess: 134 columns).
    #[default]
    SideBySide,
    /// One above the other, the highest level on top (Gygax Chess: 42 columns).
    Stacked,
    /// Side by side in one-character cells a column apart, rank numbers on the left only
    /// (Gygax Chess: 78 columns, 10 lines). A board of one level, or one whose pieces
    /// need two letters, is drawn as [`Layout::SideBySide`] or [`Layout::Stacked`].
    Compact,
}

/// Columns of one level's board: rank numbers on both sides, 3 per file.
fn board_width(v: &Variant) -> usize {
    3 + v.def().dims.files() as usize * 3 + 3
}

/// The gap between levels side by side.
const GAP: &str = "    ";

/// The gap between levels in the compact layout (beside the columns that hold marks).
const COMPACT_GAP: usize = 3;

/// Columns of the rank labels of `v` (`8`, `12`).
fn label_width(v: &Variant) -> usize {
    v.def().dims.ranks().to_string().len()
}

/// Columns of the compact layout: the rank label, a space, then each level's cells a
/// column apart, the levels [`COMPACT_GAP`] apart, and a column for the mark after the
/// last cell.
fn compact_width(v: &Variant) -> usize {
    let dims = v.def().dims;
    let (levels, files) = (dims.levels() as usize, dims.files() as usize);
    label_width(v) + 1 + levels * (2 * files - 1) + (levels - 1) * COMPACT_GAP + 1
}

/// Whether every piece of `v` is written with one letter (the compact layout's cells).
fn one_letter_codes(v: &Variant) -> bool {
    v.def().kinds.iter().all(|k| k.code.chars().count() == 1)
}

/// How a square is marked on a diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A square of the last move (and the origin of listed moves): `[X]`.
    Last,
    /// A square a listed move reaches, empty: `+`.
    To,
    /// A piece a listed move captures: `(x)`.
    Capture,
}

impl Mark {
    /// The characters before and after a marked square.
    fn brackets(self) -> Option<(char, char)> {
        match self {
            Mark::Last => Some(('[', ']')),
            Mark::Capture => Some(('(', ')')),
            Mark::To => None,
        }
    }

    /// The background colour of a marked square.
    fn color(self) -> &'static str {
        match self {
            Mark::Last => LAST_MOVE_COLOR,
            Mark::To => TARGET_COLOR,
            Mark::Capture => CAPTURE_COLOR,
        }
    }
}

/// The marks of the last move `last`: its origin and destination.
pub fn last_move_marks(last: Option<&Move>) -> Vec<(Square, Mark)> {
    move_squares(last).into_iter().map(|sq| (sq, Mark::Last)).collect()
}

/// The marks of `moves` of the pieces on `origins`: each origin [`Mark::Last`], each
/// destination [`Mark::To`] or, with an enemy piece on it, [`Mark::Capture`].
pub fn move_marks(pos: &Position, origins: &[Square], moves: &[Move]) -> Vec<(Square, Mark)> {
    let mut marks: Vec<(Square, Mark)> = origins.iter().map(|&sq| (sq, Mark::Last)).collect();
    for m in moves {
        let to = m.to();
        let capture = pos.piece_at(to).is_some_and(|p| p.side != pos.side_to_move());
        let mark = if capture { Mark::Capture } else { Mark::To };
        if !marks.iter().any(|(sq, _)| *sq == to) {
            marks.push((to, mark));
        }
    }
    marks
}

impl Layout {
    /// The widest line of `v`'s diagram in this layout, in columns.
    pub fn width(self, v: &Variant) -> usize {
        let levels = v.def().dims.levels() as usize;
        match self.drawn(v) {
            Layout::SideBySide => levels * board_width(v) + (levels - 1) * GAP.len(),
            Layout::Stacked => board_width(v),
            Layout::Compact => compact_width(v),
        }
    }

    /// Side by side when that fits in `columns`, else compact (one-character cells) when
    /// the variant can be drawn so and it fits, else stacked.
    pub fn fitting(v: &Variant, columns: usize) -> Layout {
        if Layout::SideBySide.width(v) <= columns {
            Layout::SideBySide
        } else if Layout::Compact.drawn(v) == Layout::Compact && compact_width(v) <= columns {
            Layout::Compact
        } else {
            Layout::Stacked
        }
    }

    /// The layout really drawn for `v`: [`Layout::Compact`] becomes side by side for a
    /// board of one level and stacked for pieces with codes of two letters or more.
    pub fn drawn(self, v: &Variant) -> Layout {
        match self {
            Layout::Compact if v.def().dims.levels() == 1 => Layout::SideBySide,
            Layout::Compact if !one_letter_codes(v) => Layout::Stacked,
            other => other,
        }
    }
}

/// Light and dark square colours used when a variant's render data has none for a level.
pub const DEFAULT_LIGHT: &str = "#f0d9b5";
/// See [`DEFAULT_LIGHT`].
pub const DEFAULT_DARK: &str = "#b58863";
/// Background of the last move's squares.
pub const LAST_MOVE_COLOR: &str = "#e0c040";
/// Background of portal squares.
pub const PORTAL_COLOR: &str = "#a070c8";
/// Background of the empty squares listed moves reach.
pub const TARGET_COLOR: &str = "#80c080";
/// Background of the pieces listed moves capture.
pub const CAPTURE_COLOR: &str = "#e07060";

/// The light and dark colours of `level` (index 0 = lowest): the render data's, else
/// [`DEFAULT_LIGHT`] / [`DEFAULT_DARK`].
pub fn level_colors(v: &Variant, level: u8) -> (String, String) {
    let c = v.def().render.level_colors.get(level as usize);
    let pick =
        |s: Option<&String>, d: &str| s.filter(|s| !s.is_empty()).cloned().unwrap_or_else(|| d.to_string());
    (pick(c.map(|c| &c.light), DEFAULT_LIGHT), pick(c.map(|c| &c.dark), DEFAULT_DARK))
}

/// Whether `sq` is dark (square `a1` of each level is dark).
pub fn is_dark(sq: Square) -> bool {
    (sq.file().index() + sq.rank().index()).is_multiple_of(2)
}

/// The portal squares of `v` (Fidchell's eight; none elsewhere).
pub fn portal_squares(v: &Variant) -> Vec<Square> {
    if v.def().slug != "fidchell" {
        return vec![];
    }
    let dims = v.def().dims;
    crate::engine::fidchell::PORTALS
        .iter()
        .filter_map(|p| dims.square_at(0, p.square.0 as i32, p.square.1 as i32))
        .collect()
}

/// The squares of `last`: its origin (if any) and its destination.
pub fn move_squares(last: Option<&Move>) -> Vec<Square> {
    match last {
        None => vec![],
        Some(m) => m.from().into_iter().chain(std::iter::once(m.to())).collect(),
    }
}

/// The label of a piece: its position-string token without brackets.
pub fn piece_label(v: &Variant, p: crate::engine::Piece) -> String {
    let t = piece_token(v.def(), p);
    if t.chars().count() > 1 { t.trim_matches(['(', ')']).to_string() } else { t }
}

fn rgb(hex: &str) -> (u8, u8, u8) {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| h.get(i..i + 2).and_then(|s| u8::from_str_radix(s, 16).ok()).unwrap_or(128);
    (c(0), c(2), c(4))
}

/// Draws `pos` without colour; `last` marks the last move's squares.
pub fn diagram(v: &Variant, pos: &Position, last: Option<&Move>) -> String {
    diagram_styled(v, pos, last, DiagramStyle::default())
}

/// Draws `pos` in `style`, levels side by side; `last` marks the last move's squares.
pub fn diagram_styled(v: &Variant, pos: &Position, last: Option<&Move>, style: DiagramStyle) -> String {
    diagram_laid_out(v, pos, last, style, Layout::SideBySide)
}

/// Draws `pos` in `style`, the levels placed as `layout` says (one-level boards look the
/// same either way); `last` marks the last move's squares.
pub fn diagram_laid_out(
    v: &Variant,
    pos: &Position,
    last: Option<&Move>,
    style: DiagramStyle,
    layout: Layout,
) -> String {
    diagram_marked(v, pos, &last_move_marks(last), style, layout)
}

/// The colour escape around `text` for square `sq` holding `piece`, marked `mark`.
fn colored(
    v: &Variant,
    sq: Square,
    piece: Option<crate::engine::Piece>,
    mark: Option<Mark>,
    text: &str,
) -> String {
    let (light, dark_c) = level_colors(v, sq.level().index() as u8);
    let bg = match mark {
        Some(m) => m.color().to_string(),
        None if portal_squares(v).contains(&sq) => PORTAL_COLOR.to_string(),
        None if is_dark(sq) => dark_c,
        None => light,
    };
    let (r, g, b) = rgb(&bg);
    let fg = match piece {
        Some(p) if p.side == Side::White => "1;97",
        Some(_) => "1;30",
        None => "2;30",
    };
    format!("\x1b[48;2;{r};{g};{b}m\x1b[{fg}m{text}\x1b[0m")
}

/// The text of square `sq` without marks: its piece's label, else `*` (an empty portal),
/// `:` (dark) or `.` (light).
fn square_text(v: &Variant, pos: &Position, portals: &[Square], sq: Square) -> String {
    match pos.piece_at(sq) {
        Some(p) => piece_label(v, p),
        None if portals.contains(&sq) => "*".to_string(),
        None if is_dark(sq) => ":".to_string(),
        None => ".".to_string(),
    }
}

/// Draws `pos` in `style`, the levels placed as `layout` says, the squares of `marks`
/// marked: the last move's (or listed moves' origins) in brackets, an empty square a
/// listed move reaches as `+`, a piece it captures in parentheses.
pub fn diagram_marked(
    v: &Variant,
    pos: &Position,
    marks: &[(Square, Mark)],
    style: DiagramStyle,
    layout: Layout,
) -> String {
    let dims = v.def().dims;
    let portals = portal_squares(v);
    let mark_of = |sq: Square| marks.iter().find(|(s, _)| *s == sq).map(|(_, m)| *m);
    let layout = layout.drawn(v);
    if layout == Layout::Compact {
        let mut out = compact(v, pos, &mark_of, style).join("\n");
        out.push('\n');
        return out;
    }
    // Each cell is 3 characters wide: " X ", "[X]"; a two-letter code fills all but the
    // last column ("Or "), which is all its mark can take ("Or]"): a mark never moves a
    // code's letters, nor the rest of the rank.
    let cell = |sq: Square| -> String {
        let mark = mark_of(sq);
        let mut body = square_text(v, pos, &portals, sq);
        if mark == Some(Mark::To) && pos.piece_at(sq).is_none() {
            body = "+".to_string();
        }
        let brackets = mark.and_then(Mark::brackets);
        let text = match (brackets, body.chars().count()) {
            (Some((open, close)), 1) => format!("{open}{body}{close}"),
            (Some((_, close)), 2) => format!("{body}{close}"),
            (None, 1) => format!(" {body} "),
            // Three letters or more leave no room for a mark (colours still show it).
            (_, _) => format!("{body:<3}"),
        };
        if style.color { colored(v, sq, pos.piece_at(sq), mark, &text) } else { text }
    };
    let levels: Vec<u8> = (0..dims.levels()).rev().collect();
    let groups: Vec<Vec<u8>> = match layout {
        Layout::Stacked => levels.into_iter().map(|l| vec![l]).collect(),
        _ => vec![levels],
    };
    let blocks: Vec<String> = groups
        .iter()
        .map(|group| {
            let lines = boards(v, group, style.flip, &cell);
            lines.join("\n")
        })
        .collect();
    let mut out = blocks.join("\n\n");
    out.push('\n');
    out
}

/// The lines of the compact layout: level names, one line a rank (its number, then each
/// level's one-character cells a column apart; a mark's brackets take the columns beside
/// its cell, `|` between two marked cells), the file letters.
fn compact(
    v: &Variant,
    pos: &Position,
    mark_of: &dyn Fn(Square) -> Option<Mark>,
    style: DiagramStyle,
) -> Vec<String> {
    let def = v.def();
    let dims = def.dims;
    let (files, w) = (dims.files() as usize, label_width(v));
    let board = 2 * files - 1;
    let portals = portal_squares(v);
    let levels: Vec<u8> = (0..dims.levels()).rev().collect();
    // Where the cells of the board at index `i` (left to right) start.
    let left = |i: usize| w + 1 + i * (board + COMPACT_GAP);
    let width = compact_width(v);
    let mut lines = Vec::new();
    let mut head = " ".repeat(width);
    for (i, l) in levels.iter().enumerate() {
        let name = format!("{} ({})", def.level_names[*l as usize], l + 1);
        let name = format!("{name:^board$}");
        head.replace_range(left(i)..left(i) + name.len().min(board), &name[..name.len().min(board)]);
        if name.len() > board {
            head.insert_str(left(i) + board, &name[board..]);
        }
    }
    lines.push(head.trim_end().to_string());
    let ranks: Vec<u8> =
        if style.flip { (0..dims.ranks()).collect() } else { (0..dims.ranks()).rev().collect() };
    let file_order: Vec<u8> =
        if style.flip { (0..dims.files()).rev().collect() } else { (0..dims.files()).collect() };
    for r in ranks {
        // One string a column: plain characters, or a coloured cell.
        let mut cols: Vec<String> = vec![" ".to_string(); width];
        for (i, ch) in format!("{:>w$}", r + 1).chars().enumerate() {
            cols[i] = ch.to_string();
        }
        for (i, l) in levels.iter().enumerate() {
            for (k, &f) in file_order.iter().enumerate() {
                let sq = dims.square_at(*l as i32, f as i32, r as i32).expect("on board");
                let x = left(i) + 2 * k;
                let mark = mark_of(sq);
                let mut text = square_text(v, pos, &portals, sq);
                if mark == Some(Mark::To) && pos.piece_at(sq).is_none() {
                    text = "+".to_string();
                }
                cols[x] = if style.color { colored(v, sq, pos.piece_at(sq), mark, &text) } else { text };
                if let Some((open, close)) = mark.and_then(Mark::brackets) {
                    cols[x - 1] = if cols[x - 1] == " " { open.to_string() } else { "|".to_string() };
                    cols[x + 1] = close.to_string();
                }
            }
        }
        lines.push(cols.concat().trim_end().to_string());
    }
    let mut letters = vec![" ".to_string(); width];
    for i in 0..levels.len() {
        for (k, &f) in file_order.iter().enumerate() {
            letters[left(i) + 2 * k] = ((b'a' + f) as char).to_string();
        }
    }
    lines.push(letters.concat().trim_end().to_string());
    lines
}

/// The lines of the boards of `levels` side by side (a heading naming each level when
/// the variant has more than one), each cell drawn by `cell`.
fn boards(v: &Variant, levels: &[u8], flip: bool, cell: &dyn Fn(Square) -> String) -> Vec<String> {
    let def = v.def();
    let dims = def.dims;
    let width = dims.files() as usize * 3;
    let gap = GAP;
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
    let ranks: Vec<u8> = if flip { (0..dims.ranks()).collect() } else { (0..dims.ranks()).rev().collect() };
    let file_order: Vec<u8> =
        if flip { (0..dims.files()).rev().collect() } else { (0..dims.files()).collect() };
    for r in ranks {
        let mut line = String::new();
        for (i, l) in levels.iter().enumerate() {
            if i > 0 {
                line.push_str(gap);
            }
            line.push_str(&format!("{:>2} ", r + 1));
            for &f in &file_order {
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
        for &f in &file_order {
            files.push_str(&format!(" {} ", (b'a' + f) as char));
        }
        files.push_str("   ");
    }
    lines.push(files.trim_end().to_string());
    lines
}

/// One line saying whose move it is, e.g. `Gold to move (move 12)`.
pub fn side_line(v: &Variant, pos: &Position) -> String {
    let s: Side = pos.side_to_move();
    format!("{} to move (move {})", v.def().side_name(s), pos.fullmove_number())
}

/// The pieces in hand of each side (Fidchell's), e.g. `In hand: White W W; Black -`;
/// `None` when neither side has any.
pub fn hand_line(v: &Variant, pos: &Position) -> Option<String> {
    let def = v.def();
    let mut any = false;
    let sides: Vec<String> = Side::ALL
        .into_iter()
        .map(|side| {
            let mut pieces = Vec::new();
            for (i, k) in def.kinds.iter().enumerate() {
                let n = pos.in_hand(side, crate::engine::PieceKind::new(i as u8));
                if n > 0 {
                    any = true;
                    pieces.push(if n == 1 { k.code.clone() } else { format!("{n}{}", k.code) });
                }
            }
            let list = if pieces.is_empty() { "-".to_string() } else { pieces.join(" ") };
            format!("{} {list}", def.side_name(side))
        })
        .collect();
    any.then(|| format!("In hand: {}", sides.join("; ")))
}

/// A ply beyond the end of a game was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: the game has {plies} plies")]
pub struct PlyOutOfRange {
    /// The ply asked for.
    pub ply: usize,
    /// How many plies the game has (its main line).
    pub plies: usize,
}

/// The plain diagram of `pos` (`last` marked) as comment texts for a game file, one per
/// diagram line, each starting with [`super::pgn::VERBATIM_MARK`] so that it is written
/// and read back verbatim as a `;` line.
pub fn diagram_comments(v: &Variant, pos: &Position, last: Option<&Move>) -> Vec<String> {
    diagram(v, pos, last)
        .lines()
        .map(|l| format!("{}{l}", super::pgn::VERBATIM_MARK).trim_end().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact layout of Gygax Chess: 10 lines within 78 columns, every level's 12
    /// files, the last move's two squares in brackets; two marked squares side by side
    /// share a `|`.
    #[test]
    fn compact_gygax_is_ten_lines_within_78_columns_with_marks_in_text() {
        let v = crate::variants::by_name("gygax", &[]).unwrap();
        let pos = v.start_position();
        let m =
            v.legal_moves(&pos).into_iter().find(|m| crate::notation::moves::long_form(&v, m) == "W2e2-2e3");
        let text = diagram_laid_out(&v, &pos, None, DiagramStyle::default(), Layout::Compact);
        assert_eq!(text.lines().count(), 10, "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
        assert_eq!(
            text.lines().next().unwrap().trim(),
            "Air (3)                  Land (2)              Subterranean (1)"
        );
        let after = v.make(&pos, m.as_ref().unwrap());
        let marked = diagram_laid_out(&v, &after, m.as_ref(), DiagramStyle::default(), Layout::Compact);
        let lines: Vec<&str> = marked.lines().collect();
        assert_eq!(lines[6], "3 : . : . : . : . : . : .   : . : .[W]. : . : . : .   : . : . : . : . : . : .");
        assert_eq!(lines[7], "2 S : S : S : S : S : S :   W W W W[.]W W W W W W W   . D . D . D . D . D . D");
        // Two marked squares side by side: `[.|W]`.
        let e2 = v.def().dims.parse_square("2e2").unwrap();
        let f2 = v.def().dims.parse_square("2f2").unwrap();
        let both = diagram_marked(
            &v,
            &pos,
            &[(e2, Mark::Last), (f2, Mark::Capture)],
            DiagramStyle::default(),
            Layout::Compact,
        );
        assert!(both.contains("W W W W[W|W)W W W W W W"), "{both}");
        // Colour keeps the text marks.
        let colored = diagram_laid_out(
            &v,
            &after,
            m.as_ref(),
            DiagramStyle { color: true, flip: false },
            Layout::Compact,
        );
        assert!(colored.contains('[') && colored.contains("\x1b[48;2;"), "{colored}");
        // A one-level board is drawn as ever.
        let f = crate::variants::by_name("fidchell", &[]).unwrap();
        let p = f.start_position();
        assert_eq!(
            diagram_laid_out(&f, &p, None, DiagramStyle::default(), Layout::Compact),
            diagram_laid_out(&f, &p, None, DiagramStyle::default(), Layout::SideBySide)
        );
    }
}
