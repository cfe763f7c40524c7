//! An independent reading of text diagrams, to back each diagram snapshot with a check
//! that does not come from the diagram writer: the pieces a diagram shows, square by
//! square, must be those of the position string of the same position.

use ravenpost::engine::{Move, Position, Variant};
use ravenpost::notation::position_string::write_position;

/// A board as shown: rows top to bottom as printed, cells left to right; a cell is the
/// piece code (`"S"`, `"md"`) or `""` for an empty square.
pub type Board = Vec<Vec<String>>;

/// The boards of a text diagram (levels side by side, left to right), and the cells
/// marked as the last move's (`[x]`, or `xy]` for a two-letter code), as (board, row,
/// column) in printed order. A rank row is read as tokens: its label, one token a file (a
/// piece code, `.`, `:`, `*`, or a marked cell, which may touch the next token), its
/// label again, then the next board's; the file letters under the boards say how many
/// files each has.
pub fn read_diagram(text: &str) -> (Vec<Board>, Vec<(usize, usize, usize)>) {
    let letters = text
        .lines()
        .rfind(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() >= 8 && t.iter().all(|t| t.len() == 1 && t.as_bytes()[0].is_ascii_lowercase())
        })
        .unwrap_or_else(|| panic!("no file letters in {text}"));
    // The files of each board: its letters stand 3 columns apart.
    let mut files: Vec<usize> = Vec::new();
    let mut last = None;
    for (i, _) in letters.char_indices().filter(|(_, c)| !c.is_whitespace()) {
        match (last, files.last_mut()) {
            (Some(l), Some(n)) if i == l + 3 => *n += 1,
            _ => files.push(1),
        }
        last = Some(i);
    }
    let mut boards: Vec<Board> = vec![Vec::new(); files.len()];
    let mut marked = Vec::new();
    let rank_rows =
        text.lines().filter(|l| l.split_whitespace().next().is_some_and(|t| t.parse::<u32>().is_ok()));
    for (row, line) in rank_rows.enumerate() {
        let mut tokens = tokens(line).into_iter();
        for (b, &n) in files.iter().enumerate() {
            let label = tokens.next().unwrap_or_else(|| panic!("{line}"));
            let mut cells = Vec::new();
            for col in 0..n {
                let t = tokens.next().unwrap_or_else(|| panic!("{line}"));
                let inner = t.strip_suffix(']').map(|t| t.strip_prefix('[').unwrap_or(t));
                if inner.is_some() {
                    marked.push((b, row, col));
                }
                let t = inner.unwrap_or(&t).to_string();
                // `.` and `:` are empty light and dark squares, `*` an empty portal.
                cells.push(if matches!(t.as_str(), "." | ":" | "*") { String::new() } else { t });
            }
            assert_eq!(tokens.next().as_ref(), Some(&label), "{line}");
            boards[b].push(cells);
        }
    }
    (boards, marked)
}

/// The tokens of a rank row: runs of non-blank characters, a `[...]` group being one,
/// and a run ending at a `]` (a marked two-letter code, `Or]`).
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '[' {
            let mut t = String::new();
            for c in chars.by_ref() {
                t.push(c);
                if c == ']' {
                    break;
                }
            }
            out.push(t);
        } else {
            let mut t = String::new();
            while let Some(&c) = chars.peek().filter(|c| !c.is_whitespace() && **c != '[') {
                t.push(c);
                chars.next();
                if c == ']' {
                    break;
                }
            }
            out.push(t);
        }
    }
    out
}

/// The boards of a position string's first `levels` fields (top level first), rows
/// from the highest rank down, files from a: the order a diagram prints.
pub fn read_placements(position: &str, levels: usize) -> Vec<Board> {
    position
        .split_whitespace()
        .take(levels)
        .map(|field| {
            field
                .split('/')
                .map(|rank| {
                    let mut cells = Vec::new();
                    let mut chars = rank.chars().peekable();
                    while let Some(c) = chars.next() {
                        if c.is_ascii_digit() {
                            let mut n = c.to_digit(10).unwrap();
                            while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                                n = n * 10 + d;
                                chars.next();
                            }
                            cells.extend((0..n).map(|_| String::new()));
                        } else if c == '(' {
                            let code: String = chars.by_ref().take_while(|&c| c != ')').collect();
                            cells.push(code);
                        } else {
                            cells.push(c.to_string());
                        }
                    }
                    cells
                })
                .collect()
        })
        .collect()
}

/// A board turned half a turn (as `--flip` shows it): rows and files reversed.
pub fn flip(board: &Board) -> Board {
    board.iter().rev().map(|r| r.iter().rev().cloned().collect()).collect()
}

/// The independent check behind each diagram snapshot: the pieces `text` shows are
/// those of the position string of `pos` (read by `common::diagram`, not by the
/// diagram writer), turned half a turn if `flipped`; the last move marks two squares,
/// the one it left (now empty) and the one it reached (now taken).
pub fn check_pieces(v: &Variant, pos: &Position, last: Option<&Move>, text: &str, flipped: bool) {
    let (boards, marked) = read_diagram(text);
    let mut expected = read_placements(&write_position(v, pos), boards.len());
    if flipped {
        expected = expected.iter().map(flip).collect();
    }
    assert!(!boards.is_empty());
    assert_eq!(boards, expected, "{text}");
    match last {
        None => assert_eq!(marked, [], "{text}"),
        Some(_) => {
            let empty: Vec<bool> = marked.iter().map(|&(b, r, c)| boards[b][r][c].is_empty()).collect();
            assert_eq!(marked.len(), 2, "{text}");
            assert_eq!(empty.iter().filter(|e| **e).count(), 1, "{text}");
        }
    }
}
