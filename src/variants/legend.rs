//! The legend of a variant: one line a piece kind, its letter, its name and how it moves
//! in one line, from the variant's definition. A built-in definition's piece may carry
//! its own `summary`; without one, the line is derived from the piece's `moves`
//! ([`describe_moves`]: Betza's letters in words).

use crate::engine::{GameDef, Side};

/// One line of movement derived from a piece's moves, e.g. `"moves 1 forward, captures
/// 1 diagonally forward"` for a Warrior's `mfW cfF`.
pub(crate) fn describe_moves(moves: &[MoveText<'_>], levels: &[String]) -> String {
    let parts: Vec<String> =
        moves.iter().map(|m| describe_one(m, levels)).filter(|s| !s.is_empty()).collect();
    parts.join("; ")
}

/// What [`describe_moves`] reads of one entry of a piece's `moves`.
pub(crate) struct MoveText<'a> {
    /// The levels it applies on (empty: all).
    pub on: &'a [String],
    /// Betza's movement text.
    pub betza: Option<&'a str>,
    /// A named shape (`bent F W`, `turning W 2`, `return-to-start`).
    pub special: Option<&'a str>,
    /// The level changes.
    pub level: Vec<i8>,
    /// Whether the level change repeats.
    pub slide: bool,
    /// A capture without moving.
    pub remote: bool,
    /// Only from the kind's setup rank.
    pub initial: bool,
}

fn describe_one(m: &MoveText<'_>, levels: &[String]) -> String {
    let mut text = match (m.betza, m.special) {
        (Some(b), _) => merged(b.split_whitespace().map(token).collect()).join(", "),
        (None, Some("return-to-start")) => "moves back to an empty start square".to_string(),
        (None, Some(s)) => special(s),
        (None, None) => String::new(),
    };
    if !m.level.is_empty() {
        let up = m.level.iter().any(|l| *l > 0);
        let down = m.level.iter().any(|l| *l < 0);
        let n = m.level.iter().map(|l| l.unsigned_abs()).max().unwrap_or(1);
        let way = match (up, down) {
            (true, true) => "up or down",
            (true, false) => "up",
            _ => "down",
        };
        let count = if m.slide {
            "levels".to_string()
        } else if n == 1 {
            "1 level".into()
        } else {
            format!("{n} levels")
        };
        text = text.replace(" straight", "");
        text = if text.trim().is_empty() || text == "moves" || text == "captures" {
            format!("{text} {count} {way}").trim().to_string()
        } else {
            format!("{text}, {count} {way}")
        };
    }
    if m.remote {
        text.push_str(" (captures without moving)");
    }
    if m.initial {
        text.push_str(" (from its start rank)");
    }
    if !m.on.is_empty() && m.on.len() < levels.len() {
        text = format!("{}: {text}", m.on.join("/"));
    }
    text.trim().to_string()
}

/// `phrases` with neighbours that differ only in their direction made one:
/// `moves 1 orthogonally forward` and `moves 1 orthogonally sideways` become `moves 1
/// orthogonally forward or sideways`.
fn merged(phrases: Vec<String>) -> Vec<String> {
    const DIRECTION: [&str; 4] = ["forward", "backward", "sideways", "or"];
    let mut out: Vec<String> = Vec::new();
    for p in phrases {
        let joined = out.last().and_then(|prev| {
            let (a, b): (Vec<&str>, Vec<&str>) = (prev.split(' ').collect(), p.split(' ').collect());
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let (da, db) = (&a[common..], &b[common..]);
            let only_direction = |d: &[&str]| !d.is_empty() && d.iter().all(|w| DIRECTION.contains(w));
            (common > 0 && only_direction(da) && only_direction(db))
                .then(|| format!("{} {} or {}", a[..common].join(" "), da.join(" "), db.join(" ")))
        });
        match joined {
            Some(j) => *out.last_mut().expect("a previous phrase") = j,
            None => out.push(p),
        }
    }
    out
}

/// A named shape in words.
fn special(s: &str) -> String {
    let w: Vec<&str> = s.split_whitespace().collect();
    match w.as_slice() {
        ["bent", a, b] => format!("{} then a line {} outward", step(a), step(b)),
        ["turning", a, n] => format!("up to {n} steps {}, turning", step(a).trim_start_matches("1 ")),
        _ => s.to_string(),
    }
}

/// One step of Betza's letter `l`, in words.
fn step(l: &str) -> String {
    match l {
        "W" => "1 orthogonally".into(),
        "F" => "1 diagonally".into(),
        "K" => "1 any way".into(),
        "D" => "a leap of 2 orthogonally".into(),
        "A" => "a leap of 2 diagonally".into(),
        "H" => "a leap of 3 orthogonally".into(),
        "G" => "a leap of 3 diagonally".into(),
        "N" => "a knight's leap".into(),
        "L" => "a camel's leap (3,1)".into(),
        "J" => "a zebra's leap (3,2)".into(),
        "O" => "straight".into(),
        "R" => "any distance orthogonally".into(),
        "B" => "any distance diagonally".into(),
        "Q" => "any distance in a line".into(),
        other => other.to_string(),
    }
}

/// A Betza token (`mfW`, `R4`, `cpR`, `NN`) in words.
fn token(t: &str) -> String {
    let mods: String = t.chars().take_while(|c| c.is_ascii_lowercase()).collect();
    let rest = &t[mods.len()..];
    let letters: String = rest.chars().take_while(|c| c.is_ascii_uppercase()).collect();
    let range: String = rest[letters.len()..].to_string();
    let mut words: Vec<String> = Vec::new();
    if mods.contains('m') && !mods.contains('c') {
        words.push("moves".into());
    } else if mods.contains('c') && !mods.contains('m') {
        words.push("captures".into());
    }
    let mut what = match (letters.len(), range.as_str()) {
        (2, _) if letters.chars().next() == letters.chars().nth(1) => {
            let one = &letters[..1];
            format!("{} repeated in a line", step(one).trim_start_matches("a "))
        }
        (_, "") => step(&letters),
        (_, n) => match letters.as_str() {
            "W" | "R" => format!("up to {n} orthogonally"),
            "F" | "B" => format!("up to {n} diagonally"),
            "K" | "Q" => format!("up to {n} in a line"),
            _ => format!("{} up to {n} times", step(&letters)),
        },
    };
    if mods.contains('z') {
        what = format!("zigzag {what}");
    }
    words.push(what);
    let dirs: Vec<&str> = mods
        .chars()
        .filter_map(|c| match c {
            'f' => Some("forward"),
            'b' => Some("backward"),
            's' => Some("sideways"),
            'v' => Some("forward or backward"),
            'l' => Some("to the left"),
            'r' => Some("to the right"),
            _ => None,
        })
        .collect();
    if !dirs.is_empty() {
        words.push(dirs.join(" or "));
    }
    if mods.contains('p') {
        words.push("over one piece".into());
    }
    if mods.contains('n') {
        words.push("(not over a piece)".into());
    }
    words.join(" ")
}

/// One entry of a legend: a piece kind's code, name, the side that owns it when only one
/// does, and its line of movement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegendEntry {
    /// The code written in moves (`S`, `Mk`).
    pub code: String,
    /// The name (`Sylph`).
    pub name: String,
    /// The side that owns the kind, when it is one side's only (an army's).
    pub side: Option<Side>,
    /// How it moves, in one line.
    pub summary: String,
}

/// The legend of `def`: every piece kind, in the definition's order.
pub fn legend(def: &GameDef) -> Vec<LegendEntry> {
    def.kinds
        .iter()
        .map(|k| {
            let mut summary = k.summary.clone();
            if let Some(f) = k.freezes {
                let place = match f.dl {
                    l if l > 0 => "directly above it",
                    l if l < 0 => "directly below it",
                    _ => "beside it",
                };
                summary.push_str(&format!("; freezes the enemy piece {place}"));
            }
            if let Some(p) = &k.promotion {
                let names: Vec<&str> = p.to.iter().map(|t| def.kind(*t).name.as_str()).collect();
                summary.push_str(&format!("; promotes to {}", names.join(", ")));
            }
            (k, summary)
        })
        .map(|(k, summary)| LegendEntry {
            code: k.code.clone(),
            name: k.name.clone(),
            side: match k.sides {
                1 => Some(Side::White),
                2 => Some(Side::Black),
                _ => None,
            },
            summary,
        })
        .collect()
}

/// The legend of `def` as text lines of at most `width` columns: a heading, then a line a
/// kind (`S   Sylph      Air: moves 1 diagonally forward, …`), continuation lines
/// indented under the movement.
pub fn legend_lines(def: &GameDef, width: usize) -> Vec<String> {
    let entries = legend(def);
    let code_w = entries.iter().map(|e| e.code.chars().count()).max().unwrap_or(1);
    let name = |e: &LegendEntry| match e.side {
        Some(s) => format!("{} ({})", e.name, def.side_name(s)),
        None => e.name.clone(),
    };
    let name_w = entries.iter().map(|e| name(e).chars().count()).max().unwrap_or(4).min(24);
    let mut lines = vec![format!(
        "Pieces of {} (upper case {}, lower case {}):",
        def.title,
        def.side_name(Side::White),
        def.side_name(Side::Black)
    )];
    let indent = " ".repeat(code_w + name_w + 4);
    for e in &entries {
        let head = format!("{:<code_w$}  {:<name_w$}  ", e.code, name(e));
        let text = format!("{head}{}", e.summary);
        let options = textwrap::Options::new(width.max(40))
            .subsequent_indent(&indent)
            .word_separator(textwrap::WordSeparator::AsciiSpace);
        lines.extend(textwrap::wrap(&text, options).into_iter().map(|l| l.trim_end().to_string()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn betza_tokens_read_as_words() {
        assert_eq!(token("mfW"), "moves 1 orthogonally forward");
        assert_eq!(token("cfF"), "captures 1 diagonally forward");
        assert_eq!(token("R4"), "up to 4 orthogonally");
        assert_eq!(token("N"), "a knight's leap");
        assert_eq!(token("NN"), "knight's leap repeated in a line");
        assert_eq!(token("cpR"), "captures any distance orthogonally over one piece");
        let levels = vec!["Subterranean".to_string(), "Land".into(), "Air".into()];
        let on = vec!["Air".to_string()];
        let m = MoveText {
            on: &on,
            betza: Some("cO"),
            special: None,
            level: vec![-1],
            slide: false,
            remote: false,
            initial: false,
        };
        assert_eq!(describe_moves(&[m], &levels), "Air: captures 1 level down");
    }

    /// Fidchell's King's Man read "moves 1 orthogonally forward, moves 1 orthogonally
    /// sideways, captures 1 diagonally forward": neighbours that differ only in their
    /// direction are one phrase.
    #[test]
    fn phrases_differing_only_in_direction_are_merged() {
        let words = |b: &str| merged(b.split_whitespace().map(token).collect()).join(", ");
        assert_eq!(
            words("mfW msW cfF"),
            "moves 1 orthogonally forward or sideways, captures 1 diagonally forward"
        );
        assert_eq!(words("fW sW"), "1 orthogonally forward or sideways");
        // Different steps, or a direction against none, stay apart.
        assert_eq!(words("fW fF"), "1 orthogonally forward, 1 diagonally forward");
        assert_eq!(words("W fF"), "1 orthogonally, 1 diagonally forward");
        assert_eq!(words("mfW cfW"), "moves 1 orthogonally forward, captures 1 orthogonally forward");
    }
}
