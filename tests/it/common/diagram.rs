//! An independent reading of text diagrams, to back each diagram snapshot with a check
//! that does not come from the diagram writer: the pieces a diagram shows, square by
//! square, must be those of the position string of the same position.

use ravenpost::engine::{Move, Position, Variant};
use ravenpost::notation::position_string::write_position;

/// A board as shown: rows top to bottom as printed, cells left to right; a cell is the
/// piece code (`"S"`, `"md"`) or `""` for an empty square.
pub type Board = Vec<Vec<String>>;

/// The last line of `text` that is a diagram's file letters (8 or more single lowercase
/// letters).
fn file_letters(text: &str) -> &str {
    text.lines()
        .rfind(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            t.len() >= 8 && t.iter().all(|t| t.len() == 1 && t.as_bytes()[0].is_ascii_lowercase())
        })
        .unwrap_or_else(|| panic!("no file letters in {text}"))
}

/// The boards of a text diagram (levels side by side, left to right), and the cells
/// marked as the last move's (`[x]`, or `xy]` for a two-letter code), as (board, row,
/// column) in printed order. A rank row is read as tokens: its label, one token a file (a
/// piece code, `.`, `:`, `*`, or a marked cell, which may touch the next token), its
/// label again, then the next board's; the file letters under the boards say how many
/// files each has.
pub fn read_diagram(text: &str) -> (Vec<Board>, Vec<(usize, usize, usize)>) {
    let letters = file_letters(text);
    // The compact layout: letters 2 columns apart, one-character cells.
    let positions: Vec<usize> =
        letters.char_indices().filter(|(_, c)| !c.is_whitespace()).map(|(i, _)| i).collect();
    if positions.windows(2).next().is_some_and(|w| w[1] == w[0] + 2) {
        let (boards, marked) = read_compact(text);
        return (boards, marked.into_iter().map(|(b, r, c, _)| (b, r, c)).collect());
    }
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

/// A marked cell of a compact diagram: (board, row, column, the character before it).
pub type Marked = (usize, usize, usize, char);

/// The boards of a diagram in the compact layout, read by column: the file letters under
/// the boards give each file's column (a board ends where the letters start again at
/// `a`, or run the other way when flipped), a rank row gives a cell at each of them (a
/// piece code, or `""` for `.`, `:`, `*` and `+`); with the cells marked `[x]` or `(x)`
/// (`|` between two marked cells), as (board, row, column, the character before it).
pub fn read_compact(text: &str) -> (Vec<Board>, Vec<Marked>) {
    let lines: Vec<&str> = text.lines().collect();
    let letters = file_letters(text);
    let columns: Vec<(usize, char)> = letters.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
    // A board's letters are 2 columns apart; the next board's start further on.
    let mut board_of = Vec::new();
    let mut b = 0;
    for (i, (x, _)) in columns.iter().enumerate() {
        if i > 0 && *x > columns[i - 1].0 + 2 {
            b += 1;
        }
        board_of.push(b);
    }
    let mut boards: Vec<Board> = vec![Vec::new(); b + 1];
    let mut marked = Vec::new();
    // A rank row: its number right-aligned before the column of the first file's mark.
    let label = columns[0].0 - 1;
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.chars().count() > columns[0].0)
        .filter(|l| l.get(..label).is_some_and(|p| p.trim().parse::<u32>().is_ok()))
        .collect();
    for (row, line) in rows.iter().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
        let mut col = 0;
        for (i, &(x, _)) in columns.iter().enumerate() {
            let b = board_of[i];
            if i > 0 && board_of[i - 1] != b {
                col = 0;
            }
            if boards[b].len() <= row {
                boards[b].push(Vec::new());
            }
            let c = at(x);
            if matches!((at(x - 1), at(x + 1)), ('[' | '|', ']' | '|') | ('(' | '|', ')' | '|')) {
                marked.push((b, row, col, at(x - 1)));
            }
            boards[b][row].push(if matches!(c, '.' | ':' | '+' | '*') {
                String::new()
            } else {
                c.to_string()
            });
            col += 1;
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
