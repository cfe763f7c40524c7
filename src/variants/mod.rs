//! The built-in variants and the reader of variant definition files.
//!
//! A definition is a Markdown file with YAML front matter in the format of
//! `shared/seeds/gygax-chess.md`: `engine.topology` (board shape, level labels from the
//! bottom up), `engine.players` (side names), `engine.setup` (one string per level, top
//! level first, each rank 1 first) and `render`. ravenpost adds `engine.pieces` (the
//! movement of each piece kind) and `aliases`. A file without `engine.pieces` (the seed
//! itself) takes the piece set of the built-in variant with the same `slug`.
//!
//! The built-in definitions are embedded in the binary; their Markdown bodies are the
//! project's rules documents.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;

use crate::engine::fantasy_grand::FantasyGrandRules;
use crate::engine::fidchell::{DEFAULT_ARRANGEMENT, FidchellRules, INTRODUCTION_RANK};
use crate::engine::gygax::GygaxRules;
use crate::engine::movement::{parse_betza, parse_shape};
use crate::engine::{
    Castling, Counting, CountingRule, Dims, EndValue, Extinction, GameDef, KindDef, LevelColors, Offset,
    Piece, PieceKind, Promotion, Render, Rules, Side, Variant,
};
use crate::notation::position_string::{PositionError, RankOrder, parse_placement};

pub mod fsf;
pub mod import;
pub mod legend;
mod rules;
mod user;

pub use rules::{ChessRules, RulesKind, Stalemate};
pub use user::{Definition, DefinitionError, Definitions, content_hash, load_definition};

/// The Gygax Chess definition and rules document.
pub const GYGAX_MD: &str = include_str!("gygax.md");

/// The Fantasy Grand Chess definition (all six armies) and rules document.
pub const FANTASY_GRAND_MD: &str = include_str!("fantasy-grand.md");

/// The Grand Chess definition (Humans v Humans of Fantasy Grand Chess).
pub const GRAND_MD: &str = include_str!("grand.md");

/// Every built-in variant: (slug, definition file text).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("gygax", GYGAX_MD),
    ("fidchell", FIDCHELL_MD),
    ("fantasy-grand", FANTASY_GRAND_MD),
    ("grand", GRAND_MD),
];

/// The Gygax's Fidchell definition and rules document.
pub const FIDCHELL_MD: &str = include_str!("fidchell.md");
/// The armies of Fantasy Grand Chess, as written in options and position strings.
pub const ARMIES: &[&str] = &["humans", "elves", "dwarves", "evil-horde", "giants", "druid"];

/// The army named `name` as [`ARMIES`] writes it: read case-insensitively, `horde`
/// accepted for `evil-horde` (`notation-spec/position-strings.md` §4).
pub fn army_name(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let lower = if lower == "horde" { "evil-horde".to_string() } else { lower };
    ARMIES.iter().copied().find(|a| *a == lower)
}

/// Why a variant could not be found or built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VariantError {
    /// No variant of that name.
    #[error("unknown variant `{name}` (known: {known})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The known names and aliases.
        known: String,
    },
    /// The definition file has no `---` front matter.
    #[error("no YAML front matter (a file starting with `---`)")]
    NoFrontMatter,
    /// The YAML does not have the expected shape.
    #[error("front matter: {0}")]
    Yaml(String),
    /// The definition is inconsistent (the message says how).
    #[error("definition: {0}")]
    Invalid(String),
    /// A setup string is malformed.
    #[error("setup string {index}: {error}")]
    Setup {
        /// 1-based index of the setup string.
        index: usize,
        /// What is wrong, with the column.
        error: PositionError,
    },
    /// A game option is unknown or has a bad value.
    #[error("game option: {0}")]
    Option(String),
    /// A piece's movement cannot be read: an unknown atom or modifier.
    #[error("{piece}: movement `{token}`: {reason}")]
    Movement {
        /// The piece's name.
        piece: String,
        /// The token refused (a Betza token, or a `special:` shape).
        token: String,
        /// Why.
        reason: String,
    },
    /// A `special:` that is neither `return-to-start` nor a known shape.
    #[error("{piece}: unknown special `{special}` (known: return-to-start, bent X Y, turning X N)")]
    UnknownSpecial {
        /// The piece's name.
        piece: String,
        /// The special as written.
        special: String,
    },
    /// A `via:` other than `plane` and `level`.
    #[error("{piece}: unknown via `{via}` (known: plane, level)")]
    UnknownVia {
        /// The piece's name.
        piece: String,
        /// The via as written.
        via: String,
    },
    /// A level name in `on:` that the topology does not have.
    #[error("unknown level `{level}` (levels: {known})")]
    UnknownLevel {
        /// The level as written.
        level: String,
        /// The topology's level names.
        known: String,
    },
    /// A promotion names a piece code the definition does not have.
    #[error("unknown piece code `{code}` in a promotion")]
    UnknownCode {
        /// The code as written.
        code: String,
    },
    /// `engine.rules` or `engine.stalemate` names nothing ravenpost knows.
    #[error("unknown {field} `{value}` (known: {known})")]
    UnknownRules {
        /// `rules` or `stalemate`.
        field: &'static str,
        /// The value as written.
        value: String,
        /// The accepted values.
        known: &'static str,
    },
    /// The start position breaks a rule of the engine (no royal piece, the side not to
    /// move in check, a piece unpromoted in its promotion zone, …).
    #[error("start position: {0}")]
    Start(crate::engine::SetupError),
    /// A game pins a user definition (`VariantHash`) that is not at hand.
    #[error(
        "the game's variant is defined by `{file}` ({hash}), which is not at hand: open the game in the archive that holds that file, unchanged"
    )]
    NotLoaded {
        /// The `VariantFile` tag.
        file: String,
        /// The `VariantHash` tag.
        hash: String,
    },
    /// The pinned definition has another slug than the game's `Variant` tag.
    #[error("the Variant tag says `{slug}`, but `{file}` defines `{defined}`")]
    PinnedSlug {
        /// The `Variant` tag.
        slug: String,
        /// The definition's slug.
        defined: String,
        /// The `VariantFile` tag.
        file: String,
    },
}

#[derive(Deserialize)]
struct FrontMatter {
    title: String,
    slug: String,
    #[serde(default)]
    aliases: Vec<String>,
    engine: EngineYaml,
    #[serde(default)]
    render: Option<RenderYaml>,
}

#[derive(Deserialize)]
struct EngineYaml {
    topology: Topology,
    players: Vec<String>,
    #[serde(default)]
    setup: Vec<String>,
    #[serde(default)]
    pieces: Option<Vec<PieceYaml>>,
    /// Position strings carry FEN's castling and en passant fields.
    #[serde(default)]
    chess_fields: bool,
    /// Armies, each side choosing one (Fantasy Grand Chess).
    #[serde(default)]
    armies: Option<BTreeMap<String, ArmyYaml>>,
    /// Take `armies` from this built-in variant.
    #[serde(default)]
    armies_from: Option<String>,
    /// The fixed pairing (white, black); without it the options choose.
    #[serde(default)]
    pairing: Option<Vec<String>>,
    /// Position strings end with the two army names.
    #[serde(default)]
    army_fields: bool,
    /// Codes this variant writes differently from the armies' (army code → code).
    #[serde(default)]
    recode: BTreeMap<String, String>,
    /// Which rules play the definition (`gygax`, `fidchell`, `grand`, `chess`); default:
    /// the built-in rules of the slug, else `chess` ([`RulesKind`]).
    #[serde(default)]
    rules: Option<String>,
    /// Under `chess` rules: what a player with no legal move who is not in check gets
    /// (`draw`, `loss`, `win`; default `draw`).
    #[serde(default)]
    stalemate: Option<String>,
    /// Castling (Fairy-Stockfish's `castling` and its files).
    #[serde(default)]
    castling: Option<CastlingYaml>,
    /// Extinction: the game ends when a side keeps too few pieces of some kinds.
    #[serde(default)]
    extinction: Option<ExtinctionYaml>,
    /// The bare-king rule (`loss`, `win`, `draw` for the bared side): extinction of all
    /// pieces but the king while the other side has more, unless the bared side can bare
    /// the other king at once.
    #[serde(default, rename = "bare-king")]
    bare_king: Option<String>,
    /// A counting rule (Fairy-Stockfish's `countingRule`): a draw when the count passes
    /// its limit.
    #[serde(default)]
    counting: Option<CountingYaml>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct CountingYaml {
    /// `makruk`, `cambodian` or `asean`.
    rule: String,
    /// The codes of the kinds that count as rooks (Ruea) for the limits.
    #[serde(default)]
    rooks: Vec<String>,
    /// … as Khon.
    #[serde(default)]
    khons: Vec<String>,
    /// … as knights (Ma).
    #[serde(default)]
    knights: Vec<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct CastlingYaml {
    /// The castling king's code (default: the royal kind's).
    #[serde(default)]
    king: Option<String>,
    /// The codes of the kinds that castle as the rook.
    rooks: Vec<String>,
    /// File letter where the king lands castling towards the higher files.
    #[serde(rename = "king-side-file")]
    king_side_file: char,
    /// File letter where the king lands castling towards the lower files.
    #[serde(rename = "queen-side-file")]
    queen_side_file: char,
    /// The castling rank, counted from each side's own side (default 1).
    #[serde(default = "one")]
    rank: u8,
    /// The start's castling rank is drawn 960-style (Fairy-Stockfish's `chess960`).
    #[serde(default)]
    chess960: bool,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct ExtinctionYaml {
    /// The codes of the kinds counted; empty or left out: every piece together.
    #[serde(default)]
    kinds: Vec<String>,
    /// A side with this many pieces or fewer of a counted kind is extinct (default 0).
    #[serde(default)]
    count: u8,
    /// … while the other side keeps at least this many (default 0).
    #[serde(default, rename = "opponent-count")]
    opponent_count: u8,
    /// The extinct side may answer at once (its opponent needs one more).
    #[serde(default)]
    claim: bool,
    /// `loss`, `win` or `draw`, for the extinct side (default `loss`).
    #[serde(default)]
    result: Option<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct ArmyYaml {
    name: String,
    /// Setup of the first side, rank 1 first, only the ranks used.
    setup: Vec<String>,
    pieces: Vec<PieceYaml>,
}

#[derive(Deserialize)]
struct Topology {
    rows: u8,
    cols: u8,
    #[serde(default = "one")]
    layers: u8,
    #[serde(default)]
    layer_labels: Vec<String>,
}

fn one() -> u8 {
    1
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct PieceYaml {
    code: String,
    name: String,
    /// How it moves in one line, for the legend (optional: derived from `moves`).
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    royal: bool,
    #[serde(default)]
    pawn: bool,
    #[serde(default, rename = "en-passant")]
    en_passant: bool,
    #[serde(default)]
    letterless: bool,
    #[serde(default)]
    promotion: Option<PromotionYaml>,
    #[serde(default)]
    freezes: Option<OffsetYaml>,
    moves: Vec<MoveYaml>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct PromotionYaml {
    to: Vec<String>,
    zone: u8,
    #[serde(default = "yes")]
    mandatory: bool,
    #[serde(default)]
    forced_zone: u8,
    #[serde(default)]
    lost: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct OffsetYaml {
    #[serde(default)]
    level: i8,
    #[serde(default)]
    file: i8,
    #[serde(default)]
    rank: i8,
}

#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum OneOrMany {
    One(i8),
    Many(Vec<i8>),
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct MoveYaml {
    #[serde(default)]
    on: Vec<String>,
    #[serde(default)]
    initial: bool,
    #[serde(default)]
    betza: Option<String>,
    #[serde(default)]
    level: Option<OneOrMany>,
    #[serde(default)]
    slide: bool,
    #[serde(default)]
    via: Option<String>,
    #[serde(default)]
    remote: bool,
    #[serde(default)]
    special: Option<String>,
}

#[derive(Deserialize)]
struct RenderYaml {
    #[serde(rename = "cellSize", default)]
    cell_size: u32,
    #[serde(rename = "layerColors", default)]
    layer_colors: Vec<BTreeMap<String, String>>,
}

/// Splits a Markdown file into its YAML front matter and body.
fn front_matter(text: &str) -> Result<(&str, &str), VariantError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(VariantError::NoFrontMatter)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(VariantError::NoFrontMatter)
}

/// Reads a definition file into a [`GameDef`]. Pieces missing from the file are taken
/// from the built-in definition with the same slug.
///
/// # Errors
/// [`VariantError`] when the front matter is missing or malformed, a setup string does
/// not fit the board, or the piece data is inconsistent.
pub fn read_definition(text: &str) -> Result<GameDef, VariantError> {
    read_pairing(text, None)
}

/// Reads a definition file; for a game of armies (Fantasy Grand Chess), with the armies
/// `pairing` (white, black) instead of the file's default.
///
/// # Errors
/// As [`read_definition`]; [`VariantError::Option`] for an unknown army.
pub fn read_pairing(text: &str, pairing: Option<(&str, &str)>) -> Result<GameDef, VariantError> {
    let (yaml, _body) = front_matter(text)?;
    let fm: FrontMatter = serde_yaml_ng::from_str(yaml).map_err(|e| VariantError::Yaml(e.to_string()))?;
    let t = &fm.engine.topology;
    let dims = Dims::new(t.layers, t.cols, t.rows).ok_or_else(|| {
        VariantError::Invalid(format!(
            "board {}×{}×{} does not fit 3 levels × 12 files × 12 ranks",
            t.layers, t.cols, t.rows
        ))
    })?;
    let level_names = if t.layer_labels.is_empty() {
        (1..=t.layers).map(|l| format!("Level {l}")).collect()
    } else if t.layer_labels.len() == t.layers as usize {
        t.layer_labels.clone()
    } else {
        return Err(VariantError::Invalid(format!(
            "{} layer labels for {} layers",
            t.layer_labels.len(),
            t.layers
        )));
    };
    let [white, black] = fm.engine.players.as_slice() else {
        return Err(VariantError::Invalid("`players` must name two sides".into()));
    };
    let side_names = [capitalise(white), capitalise(black)];
    let armies = match (&fm.engine.armies, &fm.engine.armies_from) {
        (Some(a), _) => Some(a.clone()),
        (None, Some(from)) => {
            let text = BUILT_IN
                .iter()
                .find(|(slug, _)| slug == from)
                .ok_or_else(|| VariantError::Invalid(format!("armies_from: no built-in `{from}`")))?
                .1;
            let (yaml, _) = front_matter(text)?;
            let b: FrontMatter =
                serde_yaml_ng::from_str(yaml).map_err(|e| VariantError::Yaml(e.to_string()))?;
            Some(b.engine.armies.ok_or_else(|| VariantError::Invalid(format!("`{from}` has no armies")))?)
        }
        (None, None) => None,
    };
    let mut def = GameDef {
        slug: fm.slug.clone(),
        aliases: fm.aliases.clone(),
        title: fm.title.clone(),
        dims,
        side_names,
        level_names: level_names.clone(),
        kinds: Vec::new(),
        setup: Vec::new(),
        render: Render::default(),
        chess_fields: fm.engine.chess_fields,
        armies: Vec::new(),
        army_fields: fm.engine.army_fields,
        castling: None,
        extinction: None,
        counting: None,
    };
    if let Some(armies) = armies {
        let (white, black) = match (pairing, &fm.engine.pairing) {
            (Some((w, b)), _) => (w.to_string(), b.to_string()),
            (None, Some(p)) if p.len() == 2 => (p[0].clone(), p[1].clone()),
            (None, Some(_)) => {
                return Err(VariantError::Invalid("`pairing` names two armies".into()));
            }
            (None, None) => ("humans".to_string(), "humans".to_string()),
        };
        let (kinds, setup) = army_pairing(&armies, &white, &black, dims, &level_names)?;
        def.kinds = kinds;
        for k in &mut def.kinds {
            if let Some(c) = fm.engine.recode.get(&k.code) {
                // The army's own code stays readable (`notation-spec/piece-codes.md` §4).
                k.read_codes.push(std::mem::replace(&mut k.code, c.clone()));
            }
        }
        def.setup = setup;
        def.armies = vec![white, black];
    } else {
        let pieces = match fm.engine.pieces {
            Some(p) => p,
            None => {
                let builtin = BUILT_IN.iter().find(|(slug, _)| *slug == fm.slug).ok_or_else(|| {
                    VariantError::Invalid(format!("no `engine.pieces` and no built-in `{}`", fm.slug))
                })?;
                let (yaml, _) = front_matter(builtin.1)?;
                let b: FrontMatter =
                    serde_yaml_ng::from_str(yaml).map_err(|e| VariantError::Yaml(e.to_string()))?;
                b.engine.pieces.ok_or_else(|| VariantError::Invalid("built-in without pieces".into()))?
            }
        };
        def.kinds = read_pieces(&pieces, &level_names, 0)?;
        if fm.engine.setup.len() != dims.levels() as usize {
            return Err(VariantError::Invalid(format!(
                "{} setup strings for {} levels",
                fm.engine.setup.len(),
                dims.levels()
            )));
        }
        for (i, s) in fm.engine.setup.iter().enumerate() {
            let level = dims.levels() - 1 - i as u8;
            let placed = parse_placement(&def, s, s, level, RankOrder::LowestFirst)
                .map_err(|error| VariantError::Setup { index: i + 1, error })?;
            def.setup.extend(placed);
        }
    }
    def.castling = fm.engine.castling.as_ref().map(|c| read_castling(&def, c)).transpose()?;
    if def.castling.is_some() {
        def.chess_fields = true;
    }
    def.extinction = read_extinction(&def, fm.engine.extinction.as_ref(), fm.engine.bare_king.as_deref())?;
    def.counting = fm.engine.counting.as_ref().map(|c| read_counting(&def, c)).transpose()?;
    if let Some(r) = fm.render {
        // `layerColors` lists the top level first, like `setup`.
        let mut colors: Vec<LevelColors> = r
            .layer_colors
            .iter()
            .map(|m| LevelColors {
                light: m.get("cell-light").cloned().unwrap_or_default(),
                dark: m.get("cell-dark").cloned().unwrap_or_default(),
            })
            .collect();
        colors.reverse();
        def.render = Render { cell_size: r.cell_size, level_colors: colors };
    }
    Ok(def)
}

/// The kind of `def` whose code is `code`, or which codes there are.
fn code_of(def: &GameDef, code: &str, what: &str) -> Result<PieceKind, VariantError> {
    def.kind_by_code(code).ok_or_else(|| {
        let known: Vec<&str> = def.kinds.iter().map(|k| k.code.as_str()).collect();
        VariantError::Invalid(format!("{what}: no piece `{code}` (codes: {})", known.join(" ")))
    })
}

/// Reads `engine.castling`.
fn read_castling(def: &GameDef, c: &CastlingYaml) -> Result<Castling, VariantError> {
    let king = match &c.king {
        Some(code) => code_of(def, code, "castling king")?,
        None => def
            .kinds
            .iter()
            .position(|k| k.royal)
            .map(|i| PieceKind::new(i as u8))
            .ok_or_else(|| VariantError::Invalid("castling: no royal piece to castle".into()))?,
    };
    if !def.kind(king).royal {
        return Err(VariantError::Invalid(format!(
            "castling king `{}`: only a royal piece castles",
            def.kind(king).code
        )));
    }
    let rooks = c.rooks.iter().map(|r| code_of(def, r, "castling rooks")).collect::<Result<Vec<_>, _>>()?;
    let files = def.dims.files();
    let file = |f: char, what: &str| -> Result<u8, VariantError> {
        let i = (f as u32).wrapping_sub('a' as u32);
        if i >= files as u32 {
            return Err(VariantError::Invalid(format!(
                "castling {what} `{f}`: expected a file letter a–{}",
                (b'a' + files - 1) as char
            )));
        }
        Ok(i as u8)
    };
    let king_side_file = file(c.king_side_file, "king-side-file")?;
    let queen_side_file = file(c.queen_side_file, "queen-side-file")?;
    if king_side_file == 0 || queen_side_file + 1 >= files {
        return Err(VariantError::Invalid(
            "castling: the rook must land beside the king, on the board".into(),
        ));
    }
    if c.rank == 0 || c.rank > def.dims.ranks() {
        return Err(VariantError::Invalid(format!(
            "castling rank {}: expected 1–{}",
            c.rank,
            def.dims.ranks()
        )));
    }
    Ok(Castling { king, rooks, king_side_file, queen_side_file, rank: c.rank - 1, chess960: c.chess960 })
}

/// Reads `engine.extinction` and `engine.bare-king` (at most one of them).
fn read_extinction(
    def: &GameDef,
    e: Option<&ExtinctionYaml>,
    bare_king: Option<&str>,
) -> Result<Option<Extinction>, VariantError> {
    let value = |text: Option<&str>, field: &'static str| -> Result<EndValue, VariantError> {
        match text {
            None | Some("loss") => Ok(EndValue::Loss),
            Some("win") => Ok(EndValue::Win),
            Some("draw") => Ok(EndValue::Draw),
            Some(other) => {
                Err(VariantError::UnknownRules { field, value: other.to_string(), known: "loss, win, draw" })
            }
        }
    };
    match (e, bare_king) {
        (Some(_), Some(_)) => {
            Err(VariantError::Invalid("give `extinction` or `bare-king`, not both (bare-king is one)".into()))
        }
        (None, None) => Ok(None),
        (None, Some(b)) => Ok(Some(Extinction {
            kinds: Vec::new(),
            count: 1,
            opponent_count: 2,
            claim: true,
            result: value(Some(b), "bare-king")?,
        })),
        (Some(e), None) => Ok(Some(Extinction {
            kinds: e.kinds.iter().map(|k| code_of(def, k, "extinction kinds")).collect::<Result<_, _>>()?,
            count: e.count,
            opponent_count: e.opponent_count,
            claim: e.claim,
            result: value(e.result.as_deref(), "extinction result")?,
        })),
    }
}

/// Reads `engine.counting`.
fn read_counting(def: &GameDef, c: &CountingYaml) -> Result<Counting, VariantError> {
    let rule = match c.rule.as_str() {
        "makruk" => CountingRule::Makruk,
        "cambodian" => CountingRule::Cambodian,
        "asean" => CountingRule::Asean,
        other => {
            return Err(VariantError::UnknownRules {
                field: "counting rule",
                value: other.to_string(),
                known: "makruk, cambodian, asean",
            });
        }
    };
    let kinds = |codes: &[String], what: &str| -> Result<Vec<PieceKind>, VariantError> {
        codes.iter().map(|k| code_of(def, k, what)).collect()
    };
    Ok(Counting {
        rule,
        rooks: kinds(&c.rooks, "counting rooks")?,
        khons: kinds(&c.khons, "counting khons")?,
        knights: kinds(&c.knights, "counting knights")?,
    })
}

/// A start position: pieces and their squares.
type Setup = Vec<(crate::engine::Square, Piece)>;

/// The piece kinds and start position of `white`'s army against `black`'s: the first
/// army's kinds, then (unless it is the same army) the second's, each owned by its side
/// only; the second side's setup is the first's mirror image (ranks reflected, files
/// kept; rulings §4.1).
fn army_pairing(
    armies: &BTreeMap<String, ArmyYaml>,
    white: &str,
    black: &str,
    dims: Dims,
    level_names: &[String],
) -> Result<(Vec<KindDef>, Setup), VariantError> {
    let get = |name: &str| {
        armies.get(name).ok_or_else(|| {
            VariantError::Option(format!(
                "army `{name}`: expected one of {}",
                armies.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    };
    let (wa, ba) = (get(white)?, get(black)?);
    let same = white == black;
    let mut kinds = read_pieces(&wa.pieces, level_names, 0)?;
    let black_base = if same { 0 } else { kinds.len() };
    for k in &mut kinds {
        k.sides = if same { 3 } else { 1 };
    }
    if !same {
        let mut b = read_pieces(&ba.pieces, level_names, black_base as u8)?;
        for k in &mut b {
            k.sides = 2;
        }
        kinds.extend(b);
    }
    if kinds.len() > crate::engine::position::MAX_KINDS {
        return Err(VariantError::Invalid(format!("{} piece kinds; at most 64", kinds.len())));
    }
    let mut setup = Vec::new();
    for (side, army, base) in [(Side::White, wa, 0), (Side::Black, ba, black_base)] {
        // Read the army's own setup with a table of its kinds only.
        let own = read_pieces(&army.pieces, level_names, 0)?;
        let tmp = GameDef {
            slug: String::new(),
            aliases: vec![],
            title: army.name.clone(),
            dims,
            side_names: ["White".into(), "Black".into()],
            level_names: level_names.to_vec(),
            kinds: own,
            setup: vec![],
            render: Render::default(),
            chess_fields: false,
            armies: vec![],
            army_fields: false,
            castling: None,
            extinction: None,
            counting: None,
        };
        if army.setup.len() > dims.ranks() as usize {
            return Err(VariantError::Invalid(format!("{}: more setup ranks than the board has", army.name)));
        }
        let mut ranks = army.setup.clone();
        while ranks.len() < dims.ranks() as usize {
            ranks.push(dims.files().to_string());
        }
        let text = ranks.join("/");
        let placed = parse_placement(&tmp, &text, &text, 0, RankOrder::LowestFirst)
            .map_err(|error| VariantError::Setup { index: 1, error })?;
        for (sq, p) in placed {
            let sq = if side == Side::White {
                sq
            } else {
                dims.square_at(
                    0,
                    sq.file().index() as i32,
                    dims.ranks() as i32 - 1 - sq.rank().index() as i32,
                )
                .expect("mirrored squares are on the board")
            };
            setup.push((sq, Piece::new(side, PieceKind::new((p.kind.index() + base) as u8))));
        }
    }
    Ok((kinds, setup))
}

/// `s` with its first letter in upper case.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn read_pieces(pieces: &[PieceYaml], level_names: &[String], base: u8) -> Result<Vec<KindDef>, VariantError> {
    let level_mask = |names: &[String]| -> Result<u8, VariantError> {
        let mut m = 0u8;
        for n in names {
            let i = level_names
                .iter()
                .position(|l| l.eq_ignore_ascii_case(n))
                .or_else(|| {
                    n.parse::<usize>().ok().filter(|x| *x >= 1 && *x <= level_names.len()).map(|x| x - 1)
                })
                .ok_or_else(|| VariantError::UnknownLevel {
                    level: n.clone(),
                    known: level_names.join(", "),
                })?;
            m |= 1 << i;
        }
        Ok(m)
    };
    let code_index = |code: &str| -> Result<PieceKind, VariantError> {
        pieces
            .iter()
            .position(|p| p.code == code)
            .map(|i| PieceKind::new(i as u8 + base))
            .ok_or_else(|| VariantError::UnknownCode { code: code.to_string() })
    };
    let mut kinds = Vec::new();
    for p in pieces {
        let mut atoms = Vec::new();
        let mut return_to_start_from = 0u8;
        for m in &p.moves {
            let from = if m.on.is_empty() { (1u8 << level_names.len()) - 1 } else { level_mask(&m.on)? };
            if let Some(s) = &m.special {
                match s.as_str() {
                    "return-to-start" => return_to_start_from |= from,
                    other => match parse_shape(other, from).map_err(|e| VariantError::Movement {
                        piece: p.name.clone(),
                        token: e.token,
                        reason: e.reason,
                    })? {
                        Some(mut shaped) => {
                            for a in &mut shaped {
                                a.initial = m.initial;
                            }
                            atoms.extend(shaped);
                        }
                        None => {
                            return Err(VariantError::UnknownSpecial {
                                piece: p.name.clone(),
                                special: other.to_string(),
                            });
                        }
                    },
                }
                continue;
            }
            let betza = m.betza.as_deref().ok_or_else(|| {
                VariantError::Invalid(format!("{}: a move needs `betza` or `special`", p.name))
            })?;
            let levels: Vec<i8> = match &m.level {
                None => vec![],
                Some(OneOrMany::One(l)) => vec![*l],
                Some(OneOrMany::Many(v)) => v.clone(),
            };
            let mut parsed = parse_betza(betza, from, &levels, m.slide).map_err(|e| {
                VariantError::Movement { piece: p.name.clone(), token: e.token, reason: e.reason }
            })?;
            for a in &mut parsed {
                a.remote = m.remote;
                a.initial = m.initial;
                match m.via.as_deref() {
                    None => {}
                    Some("plane") => a.via = Some(Offset::new(0, a.step.df, a.step.dr)),
                    Some("level") => a.via = Some(Offset::new(a.step.dl, 0, 0)),
                    Some(o) => {
                        return Err(VariantError::UnknownVia { piece: p.name.clone(), via: o.to_string() });
                    }
                }
            }
            atoms.extend(parsed);
        }
        let promotion = match &p.promotion {
            None => None,
            Some(pr) => Some(Promotion {
                to: pr.to.iter().map(|c| code_index(c)).collect::<Result<_, _>>()?,
                zone: pr.zone,
                mandatory: pr.mandatory,
                forced_zone: pr.forced_zone,
                lost_only: pr.lost,
            }),
        };
        let summary = p.summary.clone().unwrap_or_else(|| {
            let texts: Vec<legend::MoveText<'_>> = p
                .moves
                .iter()
                .map(|m| legend::MoveText {
                    on: &m.on,
                    betza: m.betza.as_deref(),
                    special: m.special.as_deref(),
                    level: match &m.level {
                        None => vec![],
                        Some(OneOrMany::One(l)) => vec![*l],
                        Some(OneOrMany::Many(l)) => l.clone(),
                    },
                    slide: m.slide,
                    remote: m.remote,
                    initial: m.initial,
                })
                .collect();
            legend::describe_moves(&texts, level_names)
        });
        kinds.push(KindDef {
            code: p.code.clone(),
            name: p.name.clone(),
            summary,
            atoms,
            royal: p.royal,
            pawn: p.pawn,
            letterless: p.letterless,
            promotion,
            return_to_start_from,
            freezes: p.freezes.as_ref().map(|o| Offset::new(o.level, o.file, o.rank)),
            read_codes: Vec::new(),
            sides: 3,
            en_passant: p.en_passant,
        });
    }
    if kinds.iter().filter(|k| k.letterless).count() > 1 {
        return Err(VariantError::Invalid("more than one letterless kind".into()));
    }
    if kinds.len() > crate::engine::position::MAX_KINDS {
        return Err(VariantError::Invalid(format!("{} piece kinds; at most 64", kinds.len())));
    }
    Ok(kinds)
}

/// Game options (`K=V`) a variant understands, with their default values.
pub fn options_of(slug: &str) -> &'static [(&'static str, &'static [&'static str])] {
    match slug {
        // Rulings §2.2: the Sylph's return goes to its own empty start squares only;
        // `above` also allows the Air square directly above it, as some programs do.
        "gygax" => &[("sylph-return", &["start-squares", "above"])],
        // Rulings §4.2: each side's army, and whether both players agreed to allow the
        // Druid army (refused unless `druid=allowed`).
        "fantasy-grand" => {
            &[("army-white", ARMIES), ("army-black", ARMIES), ("druid", &["forbidden", "allowed"])]
        }
        // Rulings §3.3: `phase` plays the introduction phase; `default` starts with the
        // default arrangement on the third ranks.
        "fidchell" => &[("introduction", &["phase", "default"])],
        _ => &[],
    }
}

/// Applies game options to a definition.
fn apply_options(def: &mut GameDef, options: &[(String, String)]) -> Result<(), VariantError> {
    let known = options_of(&def.slug);
    let druid_allowed = options.iter().any(|(k, v)| k == "druid" && v == "allowed");
    if def.armies.iter().any(|a| a == "druid") && def.slug == "fantasy-grand" && !druid_allowed {
        return Err(VariantError::Option(
            "the Druid army is played only when both players agree to allow it (rulings §4.2): \
             add the option druid=allowed"
                .into(),
        ));
    }
    for (k, v) in options {
        let Some((_, values)) = known.iter().find(|(name, _)| name == k) else {
            let names: Vec<&str> = known.iter().map(|(n, _)| *n).collect();
            return Err(VariantError::Option(format!(
                "{k}: {} has no such option (options: {})",
                def.title,
                if names.is_empty() { "none".to_string() } else { names.join(", ") }
            )));
        };
        let army_option = k == "army-white" || k == "army-black";
        let accepted = values.contains(&v.as_str()) || (army_option && army_name(v).is_some());
        if !accepted {
            return Err(VariantError::Option(format!("{k}={v}: expected one of {}", values.join(", "))));
        }
        if def.slug == "gygax" && k == "sylph-return" && v == "above" {
            let land = 1u8 << 1;
            let sylph =
                def.kind_by_code("S").ok_or_else(|| VariantError::Option("sylph-return: no Sylph".into()))?;
            let extra = parse_betza("mO", land, &[1], false).expect("valid movement");
            def.kinds[sylph.index()].atoms.extend(extra);
        }
        if def.slug == "fidchell" && k == "introduction" && v == "default" {
            place_default_arrangement(def)?;
        }
    }
    Ok(())
}

/// Puts Fidchell's default arrangement (rulings §3.3) on both third ranks.
fn place_default_arrangement(def: &mut GameDef) -> Result<(), VariantError> {
    for side in crate::engine::Side::ALL {
        for (file, code) in DEFAULT_ARRANGEMENT.iter().enumerate() {
            let kind = def
                .kind_by_code(code)
                .ok_or_else(|| VariantError::Option(format!("introduction=default: no piece `{code}`")))?;
            let sq = def
                .dims
                .square_at(0, file as i32, INTRODUCTION_RANK[side.index()] as i32)
                .ok_or_else(|| VariantError::Option("introduction=default: board too small".into()))?;
            if def.setup.iter().any(|(s, _)| *s == sq) {
                return Err(VariantError::Option(format!(
                    "introduction=default: {} is taken",
                    def.dims.name(sq)
                )));
            }
            def.setup.push((sq, crate::engine::Piece::new(side, kind)));
        }
    }
    Ok(())
}

/// The rules implementation for a definition's slug: the part of a game its data
/// cannot say. A definition file may redefine pieces and setup, not these.
fn rules_for(def: &GameDef) -> Result<Box<dyn Rules>, VariantError> {
    match RulesKind::of_slug(&def.slug) {
        Some(kind) => rules_of(kind, def),
        None => Err(VariantError::Invalid(format!("no rules for variant `{}`", def.slug))),
    }
}

/// The rules implementation `kind` for `def`.
fn rules_of(kind: RulesKind, def: &GameDef) -> Result<Box<dyn Rules>, VariantError> {
    match kind {
        RulesKind::Gygax => Ok(Box::new(GygaxRules)),
        RulesKind::Fidchell => {
            Ok(Box::new(FidchellRules::new(def).map_err(|e| VariantError::Invalid(e.to_string()))?))
        }
        RulesKind::Grand => Ok(Box::new(FantasyGrandRules::new(def))),
        RulesKind::Chess { stalemate } => Ok(Box::new(rules::ChessRules { stalemate })),
    }
}

/// Builds a playable variant from a definition and game options.
///
/// # Errors
/// [`VariantError::Option`] for an unknown option or value; [`VariantError::Invalid`]
/// when ravenpost has no rules for the definition's slug.
pub fn build(mut def: GameDef, options: &[(String, String)]) -> Result<Arc<Variant>, VariantError> {
    apply_options(&mut def, options)?;
    let rules = rules_for(&def)?;
    Ok(Variant::new(def, rules))
}

/// A variant name as compared: lower case, without spaces, `-`, `_` and `'`
/// (`notation-spec/movetext.md` §2, `Variant`).
fn normalise(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '-' | '_' | '\'')).map(|c| c.to_ascii_lowercase()).collect()
}

/// The built-in variant called `name` (its slug or an alias, compared without case,
/// spaces, `-`, `_` and `'`, so `Gygax Chess` and `Dragonchess` both name `gygax`), with
/// options.
///
/// # Errors
/// [`VariantError::Unknown`] listing the known names, or an option error.
pub fn by_name(name: &str, options: &[(String, String)]) -> Result<Arc<Variant>, VariantError> {
    type Cache = std::sync::Mutex<std::collections::HashMap<(String, Vec<(String, String)>), Arc<Variant>>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let key = (normalise(name), options.to_vec());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(v.clone());
    }
    let v = load_by_name(name, options)?;
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, v.clone());
    Ok(v)
}

fn load_by_name(name: &str, options: &[(String, String)]) -> Result<Arc<Variant>, VariantError> {
    let wanted = normalise(name);
    // A slug names its entry without reading the others (each read is a YAML parse and,
    // for a game of armies, the armies' pieces); an alias is found by reading them all.
    let by_slug = BUILT_IN.iter().filter(|(slug, _)| normalise(slug) == wanted);
    for (_, text) in by_slug.chain(BUILT_IN.iter()) {
        let def = read_definition(text)?;
        if normalise(&def.slug) == wanted || def.aliases.iter().any(|a| normalise(a) == wanted) {
            if def.armies.is_empty() || def.slug != "fantasy-grand" {
                return build(def, options);
            }
            let pick = |key: &str| {
                options
                    .iter()
                    .rev()
                    .find(|(k, _)| k == key)
                    .and_then(|(_, v)| army_name(v))
                    .unwrap_or("humans")
            };
            for (k, v) in options {
                if (k == "army-white" || k == "army-black") && army_name(v).is_none() {
                    return Err(VariantError::Option(format!(
                        "{k}={v}: expected one of {}",
                        ARMIES.join(", ")
                    )));
                }
            }
            let def = read_pairing(text, Some((pick("army-white"), pick("army-black"))))?;
            return build(def, options);
        }
    }
    Err(VariantError::Unknown { name: name.to_string(), known: known_names().join(", ") })
}

/// Game options implied by a position string: for Fantasy Grand Chess, the two army
/// names a position string may end with (`... 0 1 humans elves`) become `army-white` and
/// `army-black` unless `options` already set them.
pub fn options_for_position(
    name: &str,
    options: &[(String, String)],
    position: &str,
) -> Vec<(String, String)> {
    let mut out = options.to_vec();
    if normalise(name) == "fantasygrand" || normalise(name) == "fantasygrandchess" {
        let fields: Vec<&str> = position.split_whitespace().collect();
        if fields.len() == 8 {
            for (key, value) in [("army-white", fields[6]), ("army-black", fields[7])] {
                if !out.iter().any(|(k, _)| k == key) {
                    out.push((key.to_string(), value.to_string()));
                }
            }
        }
    }
    out
}

/// Every built-in variant name and alias.
pub fn known_names() -> Vec<String> {
    let mut v = Vec::new();
    for (_, text) in BUILT_IN {
        if let Ok(def) = read_definition(text) {
            v.push(def.slug.clone());
            v.extend(def.aliases.iter().cloned());
        }
    }
    v
}
