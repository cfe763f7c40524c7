//! User-defined variants: a definition file read from outside the binary, checked, with
//! errors placed at a line and column of the file, and the content hash that pins it.
//!
//! The format is the built-in definitions' (`notation-spec/variant-files.md`). A user
//! file may name its rules with `engine.rules` (`chess` for any game its piece data
//! fully describes); without it, a built-in slug keeps its built-in rules and any other
//! slug gets `chess`.
//!
//! A game played with a user definition pins it: its `VariantFile` tag names the file in
//! the archive and its `VariantHash` tag holds the file's [`content_hash`]
//! (`notation-spec/variant-files.md` §8). Replaying such a game takes the definition with
//! that hash from the [`Definitions`] its caller passes (an archive's, after checking
//! them): keyed by the content hash, an entry can never be the wrong definition, only
//! missing ([`VariantError::NotLoaded`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

use crate::engine::{GameDef, Side, Variant};

use super::{
    FrontMatter, RulesKind, VariantError, apply_options, army_name, front_matter, read_pairing, rules_of,
};

/// A definition file read and checked: its [`GameDef`] (default options and pairing), its
/// rules, its text and content hash.
#[derive(Debug, Clone)]
pub struct Definition {
    def: GameDef,
    rules: RulesKind,
    text: String,
    hash: String,
    has_armies: bool,
}

/// Why a definition file was refused, and where in the file (1-based line and column,
/// in characters), when the place is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionError {
    /// The line of the file, from 1.
    pub line: Option<usize>,
    /// The column of that line, from 1.
    pub column: Option<usize>,
    /// What is wrong.
    pub error: VariantError,
}

impl std::fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.error),
            (Some(l), None) => write!(f, "line {l}: {}", self.error),
            _ => write!(f, "{}", self.error),
        }
    }
}

impl DefinitionError {
    /// The error in the one location format compilers use: `FILE:LINE:COLUMN: message`
    /// (`FILE:LINE: message`, `FILE: message` when less is known).
    pub fn located(&self, file: &str) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{file}:{l}:{c}: {}", self.error),
            (Some(l), None) => format!("{file}:{l}: {}", self.error),
            _ => format!("{file}: {}", self.error),
        }
    }
}

impl std::error::Error for DefinitionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// The content hash of a definition file: `sha256:` and the lower-case hex SHA-256 of
/// its bytes exactly as given (no normalisation: any change, even of the Markdown body
/// or a line ending, is a different definition).
pub fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Reads and checks a definition file: front matter, pieces, setup, rules, and the start
/// position (a royal piece per side where the rules need one, nobody left in check).
///
/// # Errors
/// [`DefinitionError`]: the [`VariantError`] and, when it can be placed, its line and
/// column in `text`.
pub fn load_definition(text: &str) -> Result<Definition, DefinitionError> {
    let (yaml, _) =
        front_matter(text).map_err(|error| DefinitionError { line: Some(1), column: Some(1), error })?;
    // The YAML starts on the line after the opening `---` (and after a byte order mark).
    let first_line = 2;
    let fm: FrontMatter = serde_yaml_ng::from_str(yaml).map_err(|e| DefinitionError {
        line: e.location().map(|l| l.line() + first_line - 1),
        column: e.location().map(|l| l.column()),
        error: VariantError::Yaml(strip_location(&e.to_string())),
    })?;
    let place = |error: VariantError| {
        let (line, column) = match locate(yaml, &error) {
            Some((l, c)) => (Some(l + first_line - 1), Some(c)),
            None => (None, None),
        };
        DefinitionError { line, column, error }
    };
    let rules = RulesKind::read(fm.engine.rules.as_deref(), fm.engine.stalemate.as_deref(), &fm.slug)
        .map_err(place)?;
    let def = super::read_definition(text).map_err(place)?;
    let has_armies = fm.engine.armies.is_some() || fm.engine.armies_from.is_some();
    let d = Definition { def, rules, text: text.to_string(), hash: content_hash(text), has_armies };
    d.variant(&[]).map_err(place)?;
    Ok(d)
}

/// serde_yaml_ng's message without its own ", line L column C" (the file's line is
/// given instead).
fn strip_location(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

impl Definition {
    /// The definition as read (default options; a game of armies with the file's pairing).
    pub fn def(&self) -> &GameDef {
        &self.def
    }

    /// The rules that play it.
    pub fn rules(&self) -> RulesKind {
        self.rules
    }

    /// The file's text, exactly as read.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// [`content_hash`] of the text.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The playable variant with game options (those of its slug, see
    /// [`super::options_of`]; for a game of armies also `army-white`, `army-black`).
    ///
    /// # Errors
    /// [`VariantError::Option`] for an unknown option or army; [`VariantError::Start`]
    /// when the start position breaks a rule.
    pub fn variant(&self, options: &[(String, String)]) -> Result<Arc<Variant>, VariantError> {
        let mut def =
            if self.has_armies && options.iter().any(|(k, _)| k == "army-white" || k == "army-black") {
                let default = self.def.armies.clone();
                let pick = |key: &str, i: usize| -> Result<String, VariantError> {
                    match options.iter().rev().find(|(k, _)| k == key) {
                        Some((_, v)) => army_name(v)
                            .map(str::to_string)
                            .ok_or_else(|| VariantError::Option(format!("{key}={v}: no such army"))),
                        None => Ok(default.get(i).cloned().unwrap_or_else(|| "humans".into())),
                    }
                };
                let (w, b) = (pick("army-white", 0)?, pick("army-black", 1)?);
                read_pairing(&self.text, Some((&w, &b)))?
            } else {
                self.def.clone()
            };
        apply_options(&mut def, options)?;
        let rules = rules_of(self.rules, &def)?;
        let setup = def.setup.clone();
        let v = Variant::new(def, rules);
        v.setup(&setup, Side::White, &[]).map_err(VariantError::Start)?;
        Ok(v)
    }
}

/// The user definitions a replay may use, by content hash: those the caller found for
/// the games at hand (an archive's `variants/` folder at a commit or over its history,
/// the folder beside a file). A game uses only the one its `VariantHash` names, so a set
/// holding more is never wrong; one without it refuses the game
/// ([`VariantError::NotLoaded`]). A value, passed down: two archives in one process
/// never see each other's definitions.
#[derive(Debug, Default)]
pub struct Definitions {
    by_hash: HashMap<String, Arc<Definition>>,
    /// The variants built from them, by content hash and game options: a cache.
    built: Mutex<HashMap<PinnedKey, Arc<Variant>>>,
}

/// A pinned variant: the definition's content hash and the game options.
type PinnedKey = (String, Vec<(String, String)>);

impl Clone for Definitions {
    fn clone(&self) -> Definitions {
        Definitions { by_hash: self.by_hash.clone(), built: Mutex::default() }
    }
}

impl Definitions {
    /// No definitions: games of the built-in variants only.
    pub fn new() -> Definitions {
        Definitions::default()
    }

    /// Adds `definition` (a second one with the same content is the same) and gives it
    /// back shared.
    pub fn insert(&mut self, definition: Definition) -> Arc<Definition> {
        self.by_hash.entry(definition.hash.clone()).or_insert_with(|| Arc::new(definition)).clone()
    }

    /// The definition whose content hash is `hash`, if held.
    pub fn get(&self, hash: &str) -> Option<&Arc<Definition>> {
        self.by_hash.get(hash)
    }

    /// How many definitions are held.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// The variant of a game that pins the definition `file` by its content hash `hash`
    /// (`VariantFile` and `VariantHash` tags) and names it `slug` (`Variant` tag), with
    /// the game's options.
    ///
    /// # Errors
    /// [`VariantError::NotLoaded`] when no definition with that hash is held;
    /// [`VariantError::PinnedSlug`] when its slug is not `slug`; as
    /// [`Definition::variant`].
    pub fn variant(
        &self,
        slug: &str,
        file: &str,
        hash: &str,
        options: &[(String, String)],
    ) -> Result<Arc<Variant>, VariantError> {
        let key = (hash.to_string(), options.to_vec());
        if let Some(v) = self.built.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(v.clone());
        }
        let definition = self
            .get(hash)
            .ok_or_else(|| VariantError::NotLoaded { file: file.to_string(), hash: hash.to_string() })?;
        if definition.def.slug != slug {
            return Err(VariantError::PinnedSlug {
                slug: slug.to_string(),
                defined: definition.def.slug.clone(),
                file: file.to_string(),
            });
        }
        let v = definition.variant(options)?;
        self.built.lock().unwrap_or_else(|e| e.into_inner()).insert(key, v.clone());
        Ok(v)
    }
}

/// Where in the front matter `error` is: (line, column) from 1, within `yaml`.
fn locate(yaml: &str, error: &VariantError) -> Option<(usize, usize)> {
    let lines: Vec<&str> = yaml.lines().collect();
    // The first line at or after `from` containing `needle`, and the column of it.
    let find = |from: usize, needle: &str| -> Option<(usize, usize)> {
        lines.iter().enumerate().skip(from).find_map(|(i, l)| {
            let code = l.split(" #").next().unwrap_or(l);
            code.find(needle).map(|b| (i, code[..b].chars().count() + 1))
        })
    };
    let piece_line =
        |piece: &str| -> usize { find(0, &format!("name: {piece}")).map(|(i, _)| i).unwrap_or(0) };
    let found = match error {
        VariantError::Movement { piece, token, .. } => find(piece_line(piece), token),
        VariantError::UnknownSpecial { piece, special } => find(piece_line(piece), special),
        VariantError::UnknownVia { piece, via } => find(piece_line(piece), &format!("via: {via}")),
        VariantError::UnknownLevel { level, .. } => lines.iter().enumerate().find_map(|(i, l)| {
            let on = l.find("on:")?;
            l[on..].find(level.as_str()).map(|b| (i, l[..on + b].chars().count() + 1))
        }),
        VariantError::UnknownCode { code } => lines.iter().enumerate().find_map(|(i, l)| {
            let to = l.find("to:")?;
            l[to..].find(code.as_str()).map(|b| (i, l[..to + b].chars().count() + 1))
        }),
        VariantError::UnknownRules { field, .. } if field.starts_with("counting") => find(0, "counting:"),
        VariantError::UnknownRules { field, .. } => find(0, &format!("{field}:")),
        VariantError::Invalid(m) if m.starts_with("counting") => find(0, "counting:"),
        VariantError::Setup { index, error } => {
            let (start, _) = find(0, "setup:")?;
            let item = lines
                .iter()
                .enumerate()
                .skip(start + 1)
                .filter(|(_, l)| l.trim_start().starts_with("- "))
                .nth(index - 1)?;
            let quote = item.1.find('"').map(|b| b + 1).unwrap_or_else(|| item.1.find("- ").unwrap_or(0) + 2);
            Some((item.0, item.1[..quote].chars().count() + error.column))
        }
        VariantError::Start(_) => find(0, "setup:"),
        VariantError::Invalid(m) if m.contains("layer labels") => find(0, "layer_labels:"),
        VariantError::Invalid(m) if m.contains("setup strings") => find(0, "setup:"),
        VariantError::Invalid(m) if m.contains("players") => find(0, "players:"),
        VariantError::Invalid(m) if m.contains("board") => find(0, "topology:"),
        _ => None,
    };
    found.map(|(i, c)| (i + 1, c))
}
