//! Where records live in an archive: `games/<variant>/<bucket>/<id>.pgn` for a game
//! ([`GamePath`]; `games/<variant>/<id>.pgn` in the flat [`Layout`] of archives made
//! before the fan-out), `games/fantasy-grand/<bucket>/<id>.armies.yaml` for a secret army
//! choice ([`crate::referee::ArmyChoice`], beside its game), `variants/<name>.md` for a variant definition a
//! game may pin ([`definition_path`]), `tournaments/<name>.yaml` for a tournament
//! ([`crate::referee::tournament::Tournament`]), and `ravenpost.yaml` at the root (the
//! archive's settings). Beside them an archive may hold the files of [`ALLOWED_FILES`]
//! (a README, git's own `.gitattributes`, `.gitignore`, `.mailmap`), which describe the
//! archive and are never judged. [`classify`] tells which a path is; what a commit may
//! change follows from it ([`crate::referee::judge`]), for the hook and `verify` alike.

use std::fmt;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::army::ArmyChoice;

/// Where an archive keeps its game and army choice files (its settings' `layout:`).
///
/// A git tree is listed whole whenever one of its entries changes: with every game of a
/// variant in one folder, each commit's change costs git a walk of thousands of entries
/// (`git log --raw`, which builds the history index, pays it for every commit). The
/// fan-out puts each game in one of 256 bucket folders, so that a move changes a folder
/// of a few dozen entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// `games/<variant>/<id>.pgn`: archives made before the fan-out (the settings name no
    /// layout).
    #[default]
    Flat,
    /// `games/<variant>/<bucket>/<id>.pgn`, the bucket being [`bucket`] of the id: what
    /// `ravenpost init` makes.
    FanOut,
}

impl Layout {
    /// Whether this is [`Layout::Flat`] (the settings leave it out).
    pub fn is_flat(&self) -> bool {
        *self == Layout::Flat
    }

    /// The word the settings use: `flat` or `fan-out`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Flat => "flat",
            Layout::FanOut => "fan-out",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bucket folders of game `id` in the [`Layout::FanOut`]: the first two hex digits
/// (lower case) of the SHA-256 of the id's bytes, one folder each, e.g. `7/f`: 16 folders
/// of 16, so that a commit's change rewrites three small trees (measured against one
/// level of 256: git's walk of the history took a quarter less).
pub fn bucket(id: &str) -> String {
    let digest = Sha256::digest(id.as_bytes());
    format!("{:x}/{:x}", digest[0] >> 4, digest[0] & 0xf)
}

/// The folder of game `id` of `variant` in `layout`: `games/<variant>` or
/// `games/<variant>/<bucket>`.
fn folder(layout: Layout, variant: &str, id: &str) -> String {
    match layout {
        Layout::Flat => format!("{}/{variant}", GamePath::DIR),
        Layout::FanOut => format!("{}/{variant}/{}", GamePath::DIR, bucket(id)),
    }
}

/// Splits `rest` (a path below `games/<variant>/`) into its layout and file name: a plain
/// name is [`Layout::Flat`], `<x>/<y>/<name>` is [`Layout::FanOut`] with the bucket
/// `<x>/<y>`, which the caller checks against the id.
fn split_bucket(rest: &str) -> Option<(Layout, Option<&str>, &str)> {
    match rest.rsplit_once('/') {
        None => Some((Layout::Flat, None, rest)),
        Some((b, name)) if b.len() == 3 && b.as_bytes()[1] == b'/' => Some((Layout::FanOut, Some(b), name)),
        Some(_) => None,
    }
}

/// The path of the army choice file of game `id` in `layout`, beside the game's file:
/// `games/fantasy-grand/<bucket>/<id>.armies.yaml` (flat: without the bucket).
pub fn army_choice_path(layout: Layout, id: &str) -> String {
    format!("{}/{id}{}", folder(layout, ArmyChoice::VARIANT, id), ArmyChoice::SUFFIX)
}

/// The layout and game id of an army choice file's path (the bucket must be the id's);
/// `None` for any other path.
pub fn parse_army_choice_path(path: &str) -> Option<(Layout, &str)> {
    let rest = path.strip_prefix(GamePath::DIR)?.strip_prefix('/')?.strip_prefix(ArmyChoice::VARIANT)?;
    let (layout, b, name) = split_bucket(rest.strip_prefix('/')?)?;
    let id = name.strip_suffix(ArmyChoice::SUFFIX)?;
    // Only a choice for a game that can exist: its id must make a game path.
    GamePath::in_layout(layout, ArmyChoice::VARIANT, id).ok()?;
    (b.is_none_or(|b| b == bucket(id))).then_some((layout, id))
}

/// The archive's settings file, at the root.
pub const CONFIG_PATH: &str = "ravenpost.yaml";

/// The folder of the archive's own variant definitions, at the root.
pub const DEFINITIONS_DIR: &str = "variants";

/// The path of the archive's definition `name`: `variants/<name>.md`.
pub fn definition_path(name: &str) -> String {
    format!("{DEFINITIONS_DIR}/{name}.md")
}

/// The name of the definition at `path` (`variants/<name>.md`, a name as a game id's);
/// `None` for any other path.
pub fn parse_definition_path(path: &str) -> Option<&str> {
    let name = path.strip_prefix(DEFINITIONS_DIR)?.strip_prefix('/')?.strip_suffix(".md")?;
    check_name(name).ok().map(|_| name)
}

/// The git attributes file at the root, which `ravenpost init` writes in the same first
/// commit as the settings (it pins the line endings of game files).
pub const ATTRIBUTES_PATH: &str = ".gitattributes";

/// The files other than records and settings that an archive may hold, at its root, in
/// any commit (alone or beside a record's change): a description of the archive
/// (`README.md`, `README`, `LICENSE`) and git's own files (`.gitattributes`, which
/// `ravenpost init` writes, `.gitignore`, `.mailmap`). Their contents are never judged;
/// any other path outside the records is [`Problem::NotAGameFile`](super::Problem::NotAGameFile).
pub const ALLOWED_FILES: &[&str] =
    &["README.md", "README", "LICENSE", ATTRIBUTES_PATH, ".gitignore", ".mailmap"];

/// A variant or game id that cannot be part of a game's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct InvalidGamePath {
    /// The path that would have been made.
    pub path: String,
    /// Why not.
    pub reason: &'static str,
}

/// Where a game lives: `games/<variant>/<bucket>/<id>.pgn` ([`Layout::FanOut`]) or
/// `games/<variant>/<id>.pgn` ([`Layout::Flat`]). Two paths of one game in the two
/// layouts are different paths (a migration moves the file from one to the other).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GamePath {
    variant: String,
    id: String,
    layout: Layout,
}

impl GamePath {
    /// The folder holding all games.
    pub const DIR: &'static str = "games";
    /// The extension of game files.
    pub const EXTENSION: &'static str = "pgn";

    /// The path of game `id` of `variant` in the [`Layout::Flat`] (archives made before
    /// the fan-out); [`GamePath::in_layout`] for an archive's own layout.
    ///
    /// # Errors
    ///
    /// As [`GamePath::in_layout`].
    pub fn new(variant: &str, id: &str) -> Result<GamePath, InvalidGamePath> {
        GamePath::in_layout(Layout::Flat, variant, id)
    }

    /// The path of game `id` of `variant` in an archive of `layout`.
    ///
    /// # Errors
    ///
    /// [`InvalidGamePath`] unless both are made of ASCII letters, digits, `-`,
    /// `_` and `.`, do not start with `.`, and are at most 100 bytes.
    pub fn in_layout(layout: Layout, variant: &str, id: &str) -> Result<GamePath, InvalidGamePath> {
        let g = GamePath { variant: variant.to_string(), id: id.to_string(), layout };
        for part in [variant, id] {
            if let Err(reason) = check_name(part) {
                return Err(InvalidGamePath { path: g.path(), reason });
            }
        }
        Ok(g)
    }

    /// Reads a path of the form `games/<variant>/<id>.pgn` ([`Layout::Flat`]) or
    /// `games/<variant>/<bucket>/<id>.pgn` ([`Layout::FanOut`], only with the id's own
    /// [`bucket`]); `None` for any other path.
    pub fn parse(path: &str) -> Option<GamePath> {
        let rest = path.strip_prefix(Self::DIR)?.strip_prefix('/')?;
        let (variant, rest) = rest.split_once('/')?;
        let (layout, b, file) = split_bucket(rest)?;
        let id = file.strip_suffix(Self::EXTENSION)?.strip_suffix('.')?;
        let g = GamePath::in_layout(layout, variant, id).ok()?;
        b.is_none_or(|b| b == bucket(id)).then_some(g)
    }

    /// The layout this path is in.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The path of the same game in `layout`.
    pub fn with_layout(&self, layout: Layout) -> GamePath {
        GamePath { layout, ..self.clone() }
    }

    /// The variant's folder name, e.g. `gygax`.
    pub fn variant(&self) -> &str {
        &self.variant
    }

    /// The game id, e.g. `2025-03-01-ann-bo`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The path in the archive, e.g. `games/gygax/3c/2025-03-01-ann-bo.pgn`
    /// (`games/gygax/2025-03-01-ann-bo.pgn` in the flat layout).
    pub fn path(&self) -> String {
        format!("{}/{}.{}", folder(self.layout, &self.variant, &self.id), self.id, Self::EXTENSION)
    }
}

impl fmt::Display for GamePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path())
    }
}

fn check_name(s: &str) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err("empty variant or game id");
    }
    if s.len() > 100 {
        return Err("variant or game id longer than 100 bytes");
    }
    if s.starts_with('.') {
        return Err("variant or game id starts with `.`");
    }
    if !s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
        return Err("variant or game id has a character other than letters, digits, `-`, `_`, `.`");
    }
    Ok(())
}

/// What a path in the archive holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathKind {
    /// A game file.
    Game(GamePath),
    /// A Fantasy Grand army choice file, for the game with this id.
    ArmyChoice(String),
    /// A tournament file (`tournaments/<name>.yaml`), of the tournament with this name.
    Tournament(String),
    /// The archive's settings.
    Config,
    /// A variant definition, with its name (`variants/<name>.md`).
    Definition(String),
    /// The git attributes file at the root.
    Attributes,
    /// Another file of [`ALLOWED_FILES`] (a README, `.gitignore`, `.mailmap`): allowed,
    /// never judged.
    Allowed,
    /// Anything else.
    Other,
}

/// The layout of a record's path (a game file or an army choice file); `None` for any
/// other path.
pub fn record_layout(path: &str) -> Option<Layout> {
    GamePath::parse(path).map(|g| g.layout()).or_else(|| parse_army_choice_path(path).map(|(l, _)| l))
}

/// What `path` holds.
pub fn classify(path: &str) -> PathKind {
    if path == CONFIG_PATH {
        PathKind::Config
    } else if path == ATTRIBUTES_PATH {
        PathKind::Attributes
    } else if ALLOWED_FILES.contains(&path) {
        PathKind::Allowed
    } else if let Some(id) = ArmyChoice::parse_path(path) {
        PathKind::ArmyChoice(id.to_string())
    } else if let Some(g) = GamePath::parse(path) {
        PathKind::Game(g)
    } else if let Some(name) = parse_definition_path(path) {
        PathKind::Definition(name.to_string())
    } else if let Some(name) = super::tournament::Tournament::parse_path(path) {
        PathKind::Tournament(name.to_string())
    } else {
        PathKind::Other
    }
}

/// Why a new path is not portable, if it is not: one of its names is a device name on
/// Windows (`CON`, `nul.pgn`, `com1.txt`: any case, any extension), starts with `-` (read
/// as an option by command lines), or ends with `.` or a space (dropped by Windows).
/// Collisions of names that differ only in case are the caller's to find (they depend on
/// the tree), with [`case_collision`].
pub fn portability_problem(path: &str) -> Option<String> {
    const DEVICES: [&str; 4] = ["con", "prn", "aux", "nul"];
    for name in path.split('/') {
        let stem = name.split('.').next().unwrap_or(name).trim_end().to_ascii_lowercase();
        let numbered = ["com", "lpt"]
            .iter()
            .any(|d| stem.strip_prefix(d).is_some_and(|n| n.len() == 1 && n.as_bytes()[0].is_ascii_digit()));
        if DEVICES.contains(&stem.as_str()) || numbered {
            return Some(format!(
                "`{name}` is a device name on Windows (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension): a clone there could not hold it"
            ));
        }
        if name.starts_with('-') {
            return Some(format!("`{name}` starts with `-`, which command lines read as an option"));
        }
        if name.ends_with('.') || name.ends_with(' ') {
            return Some(format!("`{name}` ends with `.` or a space, which Windows drops"));
        }
    }
    None
}

/// The name among `siblings` (the other names in the new file's folder) that `name`
/// differs from only in case: on macOS and Windows the two would be one file.
pub fn case_collision<'a>(name: &str, siblings: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    siblings.into_iter().find(|s| *s != name && s.eq_ignore_ascii_case(name))
}

/// What is wrong with the tree entry at `path` of git file mode `mode` (as git writes
/// it: `0o100644` a file, `0o120000` a symbolic link, `0o160000` a submodule): under
/// `games/` only regular files (executable or not) may be; anything else is
/// [`Problem::NotARegularFile`](super::Problem::NotARegularFile). `None` for a regular
/// file, a folder, or a path outside `games/`.
pub fn entry_problem(path: &str, mode: u32) -> Option<super::Problem> {
    let under_games = path.strip_prefix(GamePath::DIR).is_some_and(|r| r.starts_with('/'));
    let what = match mode {
        0o100_644 | 0o100_755 | 0o040_000 => return None,
        _ if !under_games => return None,
        0o120_000 => "symbolic link".to_string(),
        0o160_000 => "submodule".to_string(),
        m => format!("file of git mode {m:06o}"),
    };
    Some(super::Problem::NotARegularFile { path: path.to_string(), what })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_that_break_other_systems_were_accepted() {
        for bad in
            ["games/gygax/CON.pgn", "games/gygax/nul.pgn", "games/gygax/Com1.pgn", "games/gygax/-rf.pgn"]
        {
            assert!(portability_problem(bad).is_some(), "{bad}");
        }
        for fine in ["games/gygax/console.pgn", "games/gygax/com10.pgn", "games/gygax/a-b.pgn", "README.md"] {
            assert_eq!(portability_problem(fine), None, "{fine}");
        }
        assert_eq!(case_collision("G.pgn", ["a.pgn", "g.pgn"]), Some("g.pgn"));
        assert_eq!(case_collision("g.pgn", ["g.pgn", "h.pgn"]), None);
    }

    #[test]
    fn the_allowed_files_are_no_records() {
        assert_eq!(classify("README.md"), PathKind::Allowed);
        assert_eq!(classify(".mailmap"), PathKind::Allowed);
        assert_eq!(classify(".gitattributes"), PathKind::Attributes);
        assert_eq!(classify("docs/README.md"), PathKind::Other);
        assert_eq!(classify("readme.md"), PathKind::Other);
        assert_eq!(classify("notes.txt"), PathKind::Other);
    }

    #[test]
    fn only_regular_files_under_games() {
        assert_eq!(entry_problem("games/gygax/g.pgn", 0o100_644), None);
        assert_eq!(entry_problem("games/gygax/g.pgn", 0o100_755), None);
        assert_eq!(entry_problem("README", 0o120_000), None);
        let p = entry_problem("games/gygax/g.pgn", 0o120_000).unwrap();
        assert_eq!(
            p.to_string(),
            "games/gygax/g.pgn is a symbolic link, not a regular file: game files are regular files (git mode 100644), never links to elsewhere"
        );
        assert!(entry_problem("games/x", 0o160_000).unwrap().to_string().contains("submodule"));
    }
}
