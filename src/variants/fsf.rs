//! Fairy-Stockfish's `variants.ini` read as it is: one section (`[name]` or
//! `[name:parent]`, the parent `chess` or an earlier section of the file) translated into
//! a ravenpost definition file (`notation-spec/variant-files.md`).
//!
//! What the translation cannot express is refused by its key and line, never dropped:
//! drops and hands, pawn types, regions other than whole last ranks and every other key
//! this module does not know. Keys that only name things for
//! Fairy-Stockfish's own use (its piece table for GUIs, its evaluation) are skipped, and
//! the draw rules of the club (move and repetition rules) stay ravenpost's; the written
//! definition says so in a comment.

use std::collections::BTreeMap;
use std::fmt;

use crate::engine::movement::parse_betza;

/// Why a section could not be imported: where, which key, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsfError {
    /// The line of the file, from 1 (0: the file as a whole).
    pub line: usize,
    /// The key (or section name) refused.
    pub key: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for FsfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.key, self.reason)
        } else {
            write!(f, "line {}: `{}`: {}", self.line, self.key, self.reason)
        }
    }
}

impl std::error::Error for FsfError {}

fn err(line: usize, key: &str, reason: impl Into<String>) -> FsfError {
    FsfError { line, key: key.to_string(), reason: reason.into() }
}

/// One `[name:parent]` section: its entries with their lines.
#[derive(Debug, Clone)]
struct Section {
    name: String,
    parent: Option<String>,
    line: usize,
    entries: Vec<(usize, String, String)>,
}

/// The sections of a `variants.ini` text, in order.
fn sections(text: &str) -> Result<Vec<Section>, FsfError> {
    let mut out: Vec<Section> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(head) = line.strip_prefix('[') {
            let head = head
                .strip_suffix(']')
                .ok_or_else(|| err(i + 1, line, "a section header is `[name]` or `[name:parent]`"))?;
            let (name, parent) = match head.split_once(':') {
                Some((n, p)) => (n.trim(), Some(p.trim().to_string())),
                None => (head.trim(), None),
            };
            out.push(Section { name: name.to_string(), parent, line: i + 1, entries: Vec::new() });
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| err(i + 1, line, "expected `key = value` or a `[section]`"))?;
        let section = out.last_mut().ok_or_else(|| err(i + 1, key.trim(), "a key before any `[section]`"))?;
        section.entries.push((i + 1, key.trim().to_string(), value.trim().to_string()));
    }
    Ok(out)
}

/// The names of the sections of a `variants.ini` text.
///
/// # Errors
/// [`FsfError`] for a line that is neither a section, a key nor a comment.
pub fn section_names(text: &str) -> Result<Vec<String>, FsfError> {
    Ok(sections(text)?.into_iter().map(|s| s.name).collect())
}

/// One piece: its letter (lower case) and Betza movement; the pawn's is `None` (its
/// moves come from `doubleStep`).
#[derive(Debug, Clone)]
struct PieceSpec {
    name: String,
    betza: Option<String>,
    royal: bool,
}

/// A variant as the keys so far describe it (Fairy-Stockfish's defaults first).
#[derive(Debug, Clone)]
struct Spec {
    ranks: u8,
    files: u8,
    pieces: BTreeMap<char, PieceSpec>,
    start_fen: String,
    promotion: String,
    promotion_rank: Option<u8>,
    /// The highest rank of Black's promotion region (`promotionRegionBlack = *1`).
    promotion_black: Option<u8>,
    mandatory_promotion: bool,
    double_step: bool,
    /// The ranks of the pawns' double step (`doubleStepRegionWhite`/`Black`, one rank).
    double_step_ranks: (u8, u8),
    castling: bool,
    castling_files: (char, char),
    castling_rank: u8,
    castling_rooks: String,
    /// `chess960 = true`: the start drawn 960-style (`castling.chess960`), with the
    /// key's line.
    chess960: Option<usize>,
    stalemate: &'static str,
    extinction_value: Option<&'static str>,
    extinction_kinds: String,
    extinction_count: u8,
    extinction_opponent: u8,
    extinction_claim: bool,
    /// `countingRule`: `makruk`, `cambodian` or `asean`.
    counting: Option<&'static str>,
    notes: Vec<String>,
}

/// Fairy-Stockfish's built-in pieces by name, with their Betza movement.
const PIECES: &[(&str, &str)] = &[
    ("knight", "N"),
    ("bishop", "B"),
    ("rook", "R"),
    ("queen", "Q"),
    ("fers", "F"),
    ("met", "F"),
    ("alfil", "A"),
    ("fersAlfil", "FA"),
    ("silver", "FfW"),
    ("khon", "FfW"),
    ("aiwok", "RNF"),
    ("bers", "RF"),
    ("dragon", "RF"),
    ("archbishop", "BN"),
    ("chancellor", "RN"),
    ("amazon", "QN"),
    ("knibis", "mNcB"),
    ("biskni", "mBcN"),
    ("kniroo", "mNcR"),
    ("rookni", "mRcN"),
    ("shogiPawn", "fW"),
    ("lance", "fR"),
    ("shogiKnight", "fN"),
    ("gold", "WfF"),
    ("dragonHorse", "BW"),
    ("cannon", "mRcpR"),
    ("soldier", "fsW"),
    ("horse", "nN"),
    ("elephant", "nA"),
    ("wazir", "W"),
    ("commoner", "K"),
    ("centaur", "KN"),
    ("immobile", ""),
];

/// Keys that only serve Fairy-Stockfish itself (GUI piece tables, evaluation).
const SKIPPED: &[&str] = &["pieceToCharTable", "variantTemplate", "nnueAlias", "pocketSize", "endgameEval"];

impl Spec {
    /// Fairy-Stockfish's `chess`, the parent most sections name.
    fn chess() -> Spec {
        let mut s = Spec::empty();
        for (c, name, betza, royal) in [
            ('p', "pawn", None, false),
            ('n', "knight", Some("N"), false),
            ('b', "bishop", Some("B"), false),
            ('r', "rook", Some("R"), false),
            ('q', "queen", Some("Q"), false),
            ('k', "king", Some("K"), true),
        ] {
            s.pieces.insert(c, PieceSpec { name: name.into(), betza: betza.map(Into::into), royal });
        }
        s
    }

    /// Fairy-Stockfish's built-in `gardner` (5×5) and `losalamos` (6×6, no bishops).
    fn small(name: &str) -> Option<Spec> {
        let mut s = Spec::chess();
        s.double_step = false;
        s.castling = false;
        match name {
            "gardner" => {
                (s.ranks, s.files) = (5, 5);
                s.start_fen = "rnbqk/ppppp/5/PPPPP/RNBQK w - - 0 1".into();
            }
            "losalamos" => {
                (s.ranks, s.files) = (6, 6);
                s.pieces.remove(&'b');
                s.start_fen = "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w - - 0 1".into();
                s.promotion = "qrn".into();
            }
            _ => return None,
        }
        s.promotion_rank = Some(s.ranks);
        s.promotion_black = Some(1);
        Some(s)
    }

    /// A section without a parent: Fairy-Stockfish's defaults, no pieces.
    fn empty() -> Spec {
        Spec {
            ranks: 8,
            files: 8,
            pieces: BTreeMap::new(),
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            promotion: "qrbn".into(),
            promotion_rank: None,
            promotion_black: None,
            mandatory_promotion: true,
            double_step: true,
            double_step_ranks: (2, 7),
            castling: true,
            castling_files: ('g', 'c'),
            castling_rank: 1,
            castling_rooks: "r".into(),
            chess960: None,
            stalemate: "draw",
            extinction_value: None,
            extinction_kinds: String::new(),
            extinction_count: 0,
            extinction_opponent: 0,
            extinction_claim: false,
            counting: None,
            notes: Vec::new(),
        }
    }

    /// Applies one `key = value` of line `line`.
    fn apply(&mut self, line: usize, key: &str, value: &str) -> Result<(), FsfError> {
        let bad = |reason: &str| err(line, key, reason.to_string());
        let boolean = || match value {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(bad("expected true or false")),
        };
        let number = || value.parse::<u8>().map_err(|_| bad("expected a number"));
        let outcome = || match value {
            "win" => Ok("win"),
            "loss" => Ok("loss"),
            "draw" => Ok("draw"),
            _ => Err(bad("expected win, loss or draw (ravenpost has no other game values)")),
        };
        match key {
            k if SKIPPED.contains(&k) => {}
            "maxRank" => {
                self.ranks = number()?;
                if !(1..=12).contains(&self.ranks) {
                    return Err(bad("ravenpost plays boards of 1 to 12 ranks"));
                }
            }
            "maxFile" => {
                self.files = match value.parse::<u8>() {
                    Ok(n) => n,
                    Err(_) => value
                        .bytes()
                        .next()
                        .filter(|b| b.is_ascii_lowercase() && value.len() == 1)
                        .map(|b| b - b'a' + 1)
                        .ok_or_else(|| bad("expected a number or a file letter"))?,
                };
                if !(1..=12).contains(&self.files) {
                    return Err(bad("ravenpost plays boards of 1 to 12 files (a to l)"));
                }
            }
            "startFen" => self.start_fen = value.to_string(),
            "promotionPieceTypes" => self.promotion = if value == "-" { String::new() } else { value.into() },
            "promotionRank" => {
                self.promotion_rank = Some(number()?);
                self.promotion_black = None;
            }
            "promotionRegionWhite" | "promotionRegionBlack" => {
                let ranks = whole_ranks(value).ok_or_else(|| bad("a region of whole ranks `*N` only"))?;
                let (lo, hi) = (ranks[0], ranks[ranks.len() - 1]);
                if key == "promotionRegionWhite" {
                    if hi != self.ranks {
                        return Err(bad("a promotion region short of the last rank"));
                    }
                    self.promotion_rank = Some(lo);
                } else {
                    if lo != 1 {
                        return Err(bad("a promotion region short of the first rank"));
                    }
                    self.promotion_black = Some(hi);
                }
            }
            "mandatoryPawnPromotion" => self.mandatory_promotion = boolean()?,
            "doubleStep" => self.double_step = boolean()?,
            "castling" => self.castling = boolean()?,
            "chess960" => self.chess960 = boolean()?.then_some(line),
            "doubleStepRegionWhite" | "doubleStepRegionBlack" => {
                let ranks = whole_ranks(value).filter(|r| r.len() == 1);
                let rank = ranks.ok_or_else(|| bad("a double-step region of one whole rank `*N` only"))?[0];
                if key == "doubleStepRegionWhite" {
                    self.double_step_ranks.0 = rank;
                } else {
                    self.double_step_ranks.1 = rank;
                }
            }
            "castlingKingPiece" if value == "k" => {}
            "castlingKingsideFile" | "castlingQueensideFile" => {
                let f = value.chars().next().filter(|c| c.is_ascii_lowercase() && value.len() == 1);
                let f = f.ok_or_else(|| bad("expected a file letter"))?;
                if key == "castlingKingsideFile" {
                    self.castling_files.0 = f;
                } else {
                    self.castling_files.1 = f;
                }
            }
            "castlingRank" => self.castling_rank = number()?,
            "castlingRookPiece" | "castlingRookPieces" => self.castling_rooks = value.to_lowercase(),
            "stalemateValue" => self.stalemate = outcome()?,
            "extinctionValue" if value == "none" => self.extinction_value = None,
            "extinctionValue" => self.extinction_value = Some(outcome()?),
            "extinctionPieceTypes" => self.extinction_kinds = value.to_lowercase(),
            "extinctionPieceCount" => self.extinction_count = number()?,
            "extinctionOpponentPieceCount" => self.extinction_opponent = number()?,
            "extinctionClaim" => self.extinction_claim = boolean()?,
            "countingRule" => {
                self.counting = match value {
                    "makruk" => Some("makruk"),
                    "cambodian" => Some("cambodian"),
                    "asean" => Some("asean"),
                    "none" => None,
                    _ => return Err(bad("expected makruk, cambodian, asean or none")),
                }
            }
            "checking" if value == "true" => {}
            "nMoveRule" | "nFoldRule" | "nFoldValue" => {
                self.notes.push(format!("Fairy-Stockfish: {key} = {value}; the club's own draw rules apply"));
            }
            _ => return self.apply_piece(line, key, value),
        }
        Ok(())
    }

    /// Applies a piece key: a built-in piece's name, `customPieceN` or `king`.
    fn apply_piece(&mut self, line: usize, key: &str, value: &str) -> Result<(), FsfError> {
        let builtin = PIECES.iter().find(|(n, _)| *n == key).map(|(_, b)| *b);
        let custom = key.strip_prefix("customPiece").is_some_and(|n| n.parse::<u8>().is_ok());
        if builtin.is_none() && !custom && key != "king" && key != "pawn" {
            return Err(err(line, key, "ravenpost cannot express this rule (or does not know the key)"));
        }
        // Removing a piece: `name = -`.
        if value == "-" {
            self.pieces.retain(|_, p| p.name != key);
            return Ok(());
        }
        let mut chars = value.chars();
        let letter = chars.next().filter(char::is_ascii_alphabetic).map(|c| c.to_ascii_lowercase());
        let letter =
            letter.ok_or_else(|| err(line, key, "expected a letter, then optionally `:` and Betza"))?;
        let given = match chars.as_str() {
            "" => None,
            rest => Some(
                rest.strip_prefix(':')
                    .ok_or_else(|| err(line, key, "expected a letter, then optionally `:` and Betza"))?
                    .to_string(),
            ),
        };
        let betza = match (key, given, builtin) {
            ("pawn", None, _) => None,
            ("pawn", Some(_), _) => return Err(err(line, key, "a pawn with its own Betza movement")),
            ("king", None, _) => Some("K".to_string()),
            (_, Some(b), _) if custom || key == "king" => Some(b),
            (_, Some(_), _) => return Err(err(line, key, "a built-in piece with its own Betza movement")),
            (_, None, Some(b)) => Some(b.to_string()),
            (_, None, None) => return Err(err(line, key, "a custom piece needs `letter:Betza`")),
        };
        self.pieces.retain(|c, p| p.name != key && *c != letter);
        self.pieces.insert(letter, PieceSpec { name: key.to_string(), betza, royal: key == "king" });
        Ok(())
    }
}

/// Translates the section `name` of a `variants.ini` text (the only one when `name` is
/// `None`) into a ravenpost definition file.
///
/// # Errors
/// [`FsfError`] naming the key and line ravenpost cannot express, or the section that
/// is missing.
pub fn import(text: &str, name: Option<&str>) -> Result<(String, String), FsfError> {
    let all = sections(text)?;
    let wanted = match name {
        Some(n) => n.to_string(),
        None => match all.as_slice() {
            [one] => one.name.clone(),
            _ => {
                let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
                return Err(err(0, "NAME", format!("the file has several sections: {}", names.join(" "))));
            }
        },
    };
    let spec = resolve(&all, &wanted, 0)?;
    let at = all.iter().rfind(|s| s.name == wanted).map_or(0, |s| s.line);
    Ok((wanted.clone(), write(&wanted, &spec, at)?))
}

/// The ranks of a region written as whole ranks (`*6 *7 *8`), ascending and without a
/// gap; `None` for another region.
fn whole_ranks(value: &str) -> Option<Vec<u8>> {
    let mut ranks: Vec<u8> =
        value.split_whitespace().map(|t| t.strip_prefix('*')?.parse().ok()).collect::<Option<_>>()?;
    ranks.sort_unstable();
    let contiguous = ranks.windows(2).all(|w| w[1] == w[0] + 1);
    (!ranks.is_empty() && contiguous).then_some(ranks)
}

/// The spec of section `name`, the last of that name among `all`: its parent's (the
/// built-in template, or a section before it: Fairy-Stockfish knows only the variants
/// read so far), then its own keys.
fn resolve(all: &[Section], name: &str, depth: usize) -> Result<Spec, FsfError> {
    if depth > 16 {
        return Err(err(0, name, "templates inherit in a circle"));
    }
    let Some(at) = all.iter().rposition(|s| s.name == name) else {
        if let Some(spec) = builtin(name) {
            return Ok(spec);
        }
        let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        return Err(err(0, name, format!("no such section (sections: {})", names.join(" "))));
    };
    let section = &all[at];
    let earlier = &all[..at];
    let mut spec = match &section.parent {
        None => Spec::empty(),
        Some(p) if earlier.iter().any(|s| &s.name == p) => resolve(earlier, p, depth + 1)?,
        Some(p) => match (builtin(p), all[at..].iter().find(|s| &s.name == p)) {
            (Some(spec), _) => spec,
            // As in Fairy-Stockfish, a parent must be read before its children.
            (None, Some(later)) => {
                return Err(err(
                    section.line,
                    p,
                    format!("defined below, at line {}: move it above this section", later.line),
                ));
            }
            (None, None) => {
                return Err(err(
                    section.line,
                    p,
                    "ravenpost knows the templates `chess`, `gardner`, `losalamos` and the sections of this file, \
                     not this built-in: write the variant on the `chess` template (e.g. `[name:chess]` with its \
                     pieces, board and rules)",
                ));
            }
        },
    };
    for (line, key, value) in &section.entries {
        spec.apply(*line, key, value)?;
    }
    Ok(spec)
}

/// The built-in templates ravenpost knows.
fn builtin(name: &str) -> Option<Spec> {
    if name == "chess" { Some(Spec::chess()) } else { Spec::small(name) }
}

/// The definition file of `spec`.
fn write(name: &str, spec: &Spec, line: usize) -> Result<String, FsfError> {
    if spec.files > 12 || spec.ranks > 12 || spec.files == 0 || spec.ranks == 0 {
        let key = if spec.files > 12 || spec.files == 0 { "maxFile" } else { "maxRank" };
        return Err(err(line, key, "ravenpost plays boards of 1 to 12 files and ranks"));
    }
    let fields: Vec<&str> = spec.start_fen.split_whitespace().collect();
    let placement = *fields.first().ok_or_else(|| err(line, "startFen", "empty"))?;
    if placement.contains(['[', '*', '~', '+']) {
        return Err(err(line, "startFen", "pieces in hand, walls or promoted pieces"));
    }
    if fields.get(1).is_some_and(|s| *s != "w") {
        return Err(err(line, "startFen", "black to move first"));
    }
    let rights = fields.get(2).copied().unwrap_or("-");
    let ranks: Vec<&str> = placement.split('/').collect();
    for c in placement.chars().filter(char::is_ascii_alphabetic) {
        if !spec.pieces.contains_key(&c.to_ascii_lowercase()) {
            return Err(err(line, "startFen", format!("`{c}` is no piece of the variant")));
        }
    }
    let mut y = String::new();
    let slug: String =
        name.to_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    y.push_str(&format!("---\ntitle: {name}\nslug: {slug}\nengine:\n"));
    y.push_str(&format!("  topology: {{ rows: {}, cols: {} }}\n", spec.ranks, spec.files));
    y.push_str("  players: [white, black]\n  rules: chess\n  chess_fields: true\n");
    y.push_str(&format!("  stalemate: {}\n", spec.stalemate));
    for n in &spec.notes {
        y.push_str(&format!("  # {n}\n"));
    }
    y.push_str(&format!("  # Fairy-Stockfish's startFen: {}\n", spec.start_fen));
    let setup: Vec<&str> = ranks.iter().rev().copied().collect();
    y.push_str(&format!("  setup:\n    - \"{}\"\n", setup.join("/")));
    write_castling(&mut y, spec, rights, line)?;
    write_extinction(&mut y, spec, line)?;
    write_counting(&mut y, spec);
    y.push_str("  pieces:\n");
    for (c, p) in &spec.pieces {
        write_piece(&mut y, spec, *c, p, &ranks, line)?;
    }
    y.push_str(&format!(
        "---\n\n# {name}\n\nImported from Fairy-Stockfish's `variants.ini` by `ravenpost variant import-fsf`.\n"
    ));
    Ok(y)
}

fn write_castling(y: &mut String, spec: &Spec, rights: &str, line: usize) -> Result<(), FsfError> {
    if let Some(at) = spec.chess960.filter(|_| !spec.castling || rights == "-") {
        return Err(err(
            at,
            "chess960",
            "a 960-style start without castling (ravenpost draws it for castling games)",
        ));
    }
    if !spec.castling || rights == "-" {
        return Ok(());
    }
    let king = spec.pieces.iter().find(|(_, p)| p.royal).map(|(c, _)| *c);
    let Some(_) = king else {
        return Ok(());
    };
    if rights != "KQkq" {
        return Err(err(
            line,
            "startFen",
            format!("castling rights `{rights}` at the start (ravenpost: all or none)"),
        ));
    }
    let rooks: Vec<String> =
        spec.castling_rooks.chars().map(|c| c.to_ascii_uppercase().to_string()).collect();
    y.push_str(&format!(
        "  castling: {{ rooks: [{}], king-side-file: {}, queen-side-file: {}, rank: {}{} }}\n",
        rooks.join(", "),
        spec.castling_files.0,
        spec.castling_files.1,
        spec.castling_rank,
        if spec.chess960.is_some() { ", chess960: true" } else { "" }
    ));
    Ok(())
}

fn write_extinction(y: &mut String, spec: &Spec, line: usize) -> Result<(), FsfError> {
    let Some(value) = spec.extinction_value else {
        return Ok(());
    };
    let kinds: Vec<String> = if spec.extinction_kinds == "*" {
        Vec::new()
    } else {
        spec.extinction_kinds.chars().map(|c| c.to_ascii_uppercase().to_string()).collect()
    };
    if kinds.is_empty() && spec.extinction_kinds != "*" {
        return Err(err(line, "extinctionPieceTypes", "an extinction rule without piece types"));
    }
    y.push_str(&format!(
        "  extinction: {{ kinds: [{}], count: {}, opponent-count: {}, claim: {}, result: {value} }}\n",
        kinds.join(", "),
        spec.extinction_count,
        spec.extinction_opponent,
        spec.extinction_claim
    ));
    Ok(())
}

/// The counting rule, with the pieces Fairy-Stockfish's limits name (its built-in rook,
/// khon and knight, by the letters the section gives them).
fn write_counting(y: &mut String, spec: &Spec) {
    let Some(rule) = spec.counting else {
        return;
    };
    let codes = |name: &str| -> String {
        let c: Vec<String> = spec
            .pieces
            .iter()
            .filter(|(_, p)| p.name == name)
            .map(|(c, _)| c.to_ascii_uppercase().to_string())
            .collect();
        c.join(", ")
    };
    y.push_str(&format!(
        "  counting: {{ rule: {rule}, rooks: [{}], khons: [{}], knights: [{}] }}\n",
        codes("rook"),
        codes("khon"),
        codes("knight")
    ));
}

/// Splits Betza text into the ordinary part and the moves marked `i` (initial).
fn split_initial(betza: &str) -> (String, String) {
    let (mut plain, mut initial) = (String::new(), String::new());
    let mut token = String::new();
    let mut chars = betza.chars().peekable();
    while let Some(c) = chars.next() {
        token.push(c);
        if c.is_ascii_uppercase() {
            while let Some(&n) = chars.peek() {
                if n == c || n.is_ascii_digit() {
                    token.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            let (to, t) = if token.contains('i') {
                (&mut initial, token.replace('i', ""))
            } else {
                (&mut plain, token.clone())
            };
            if !to.is_empty() {
                to.push(' ');
            }
            to.push_str(&t);
            token.clear();
        }
    }
    (plain, initial)
}

fn write_piece(
    y: &mut String,
    spec: &Spec,
    c: char,
    p: &PieceSpec,
    fen_ranks: &[&str],
    line: usize,
) -> Result<(), FsfError> {
    let code = c.to_ascii_uppercase();
    let (plain, initial) = match &p.betza {
        Some(b) => split_initial(b),
        None => ("mfW cfF".to_string(), if spec.double_step { "mfnD".to_string() } else { String::new() }),
    };
    for b in [&plain, &initial] {
        if !b.is_empty() {
            parse_betza(b, 1, &[], false)
                .map_err(|e| err(line, &p.name, format!("movement `{}`: {}", e.token, e.reason)))?;
        }
    }
    y.push_str(&format!("    - code: {code}\n      name: {}\n", p.name));
    if p.royal {
        y.push_str("      royal: true\n");
    }
    if p.betza.is_none() {
        y.push_str("      pawn: true\n      letterless: true\n      en-passant: true\n");
        if spec.double_step && !pawns_on_double_step_ranks(fen_ranks, c, spec) {
            return Err(err(line, "doubleStep", "pawns that start off the ranks of their double step"));
        }
        let zone = match spec.promotion_rank {
            Some(r) if r >= 1 && r <= spec.ranks => spec.ranks - r + 1,
            Some(_) => return Err(err(line, "promotionRank", "not a rank of the board")),
            None if spec.ranks == 8 => 1,
            None => {
                return Err(err(
                    line,
                    "promotionRank",
                    "the default promotion on rank 8 of a board of other size",
                ));
            }
        };
        if spec.promotion_black.unwrap_or(zone) != zone {
            return Err(err(
                line,
                "promotionRegionBlack",
                "promotion zones of different depths for the two sides",
            ));
        }
        let to: Vec<String> = spec
            .promotion
            .chars()
            .filter(|t| spec.pieces.contains_key(&t.to_ascii_lowercase()))
            .map(|t| t.to_ascii_uppercase().to_string())
            .collect();
        if !to.is_empty() {
            y.push_str(&format!(
                "      promotion: {{ to: [{}], zone: {zone}, mandatory: {} }}\n",
                to.join(", "),
                spec.mandatory_promotion
            ));
        }
    }
    y.push_str("      moves:\n");
    if !plain.is_empty() {
        y.push_str(&format!("        - {{ betza: \"{plain}\" }}\n"));
    }
    if !initial.is_empty() {
        y.push_str(&format!("        - {{ betza: \"{initial}\", initial: true }}\n"));
    }
    if plain.is_empty() && initial.is_empty() {
        // A piece that never moves (Fairy-Stockfish's `immobile`): no moves at all.
        y.truncate(y.len() - "      moves:\n".len());
        y.push_str("      moves: []\n");
    }
    Ok(())
}

/// Whether every pawn (`c`) of the start stands on its side's double-step rank, where
/// Fairy-Stockfish allows it (ravenpost's: the setup ranks).
fn pawns_on_double_step_ranks(fen_ranks: &[&str], c: char, spec: &Spec) -> bool {
    fen_ranks.iter().enumerate().all(|(i, r)| {
        let rank = spec.ranks as usize - i; // the first FEN rank is the highest
        let white = r.contains(c.to_ascii_uppercase());
        let black = r.contains(c);
        (!white || rank == spec.double_step_ranks.0 as usize)
            && (!black || rank == spec.double_step_ranks.1 as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::CountingRule;

    #[test]
    fn a_section_inherits_chess_and_refuses_what_it_cannot_say() {
        let ini = "# comment\n[centaurking:chess]\nking = k:KN\n\n[house:chess]\npieceDrops = true\n";
        let (name, text) = import(ini, Some("centaurking")).unwrap();
        assert_eq!(name, "centaurking");
        let d = crate::variants::load_definition(&text).unwrap();
        assert_eq!(d.variant(&[]).unwrap().legal_moves(&d.variant(&[]).unwrap().start_position()).len(), 22);
        let e = import(ini, Some("house")).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (6, "pieceDrops"));
        assert!(import(ini, None).unwrap_err().to_string().contains("centaurking house"));
    }

    /// Regression (a new user's trial): a parent defined after its child was refused as
    /// "not this built-in", though it is a section of the file; now the message says where
    /// it is and to move it above (Fairy-Stockfish reads a parent first too).
    #[test]
    fn a_parent_below_its_child_was_called_no_built_in() {
        let ini = "[a:b]\nking = k:KN\n\n[b:chess]\n";
        let e = import(ini, Some("a")).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (1, "b"), "{e}");
        assert!(e.reason.contains("defined below, at line 4: move it above"), "{e}");
        let e = import("[a:shatranj]\n", Some("a")).unwrap_err();
        assert!(e.reason.contains("write the variant on the `chess` template"), "{e}");
    }

    /// Regression (a new user's trial): `maxRank = 99` and `maxRank = 0` were refused as
    /// "line 1: `maxFile`: the board is larger than ravenpost's 12×12", naming the wrong
    /// key and line (and wrong for 0). Now the key and its line are named.
    #[test]
    fn a_board_too_large_or_empty_blamed_max_file_on_line_1() {
        for (key, value, why) in [
            ("maxRank", "99", "1 to 12 ranks"),
            ("maxRank", "0", "1 to 12 ranks"),
            ("maxFile", "13", "1 to 12 files"),
            ("maxFile", "m", "1 to 12 files"),
        ] {
            let ini = format!("[a:chess]\n# the board\n{key} = {value}\n");
            let e = import(&ini, Some("a")).unwrap_err();
            assert_eq!((e.line, e.key.as_str()), (3, key), "{e}");
            assert!(e.reason.contains(why), "{e}");
        }
    }

    #[test]
    fn counting_rule_is_translated_with_the_pieces_its_limits_name() {
        let ini = "[thai:chess]\nbishop = -\nqueen = -\nkhon = s\nmet = m\n\
                   startFen = rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1\n\
                   promotionPieceTypes = m\ndoubleStep = false\ncastling = false\ncountingRule = makruk\n\
                   [bad:thai]\ncountingRule = burmese\n";
        let (_, text) = import(ini, Some("thai")).unwrap();
        assert!(
            text.contains("  counting: { rule: makruk, rooks: [R], khons: [S], knights: [N] }\n"),
            "{text}"
        );
        let def = crate::variants::load_definition(&text).unwrap();
        let c = def.def().counting.clone().unwrap();
        assert_eq!((c.rule, c.rooks.len(), c.khons.len(), c.knights.len()), (CountingRule::Makruk, 1, 1, 1));
        let e = import(ini, Some("bad")).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (12, "countingRule"));
        assert!(e.reason.contains("makruk, cambodian, asean or none"), "{e}");
    }

    #[test]
    fn chess960_is_translated_to_a_start_drawn_960_style() {
        let ini = "[fischer:chess]\nchess960 = true\n\n[stiff:chess]\ncastling = false\nchess960 = true\n";
        let (_, text) = import(ini, Some("fischer")).unwrap();
        assert!(
            text.contains(
                "  castling: { rooks: [R], king-side-file: g, queen-side-file: c, rank: 1, chess960: true }\n"
            ),
            "{text}"
        );
        let def = crate::variants::load_definition(&text).unwrap();
        assert_eq!(crate::engine::shuffle::arrangements(def.def()).len(), 960);
        let e = import(ini, Some("stiff")).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (6, "chess960"));
    }

    #[test]
    fn initial_moves_are_split_from_the_others() {
        assert_eq!(split_initial("mWfceFifmnD"), ("mW fceF".to_string(), "fmnD".to_string()));
        assert_eq!(split_initial("RR2N"), ("RR2 N".to_string(), String::new()));
    }
}
