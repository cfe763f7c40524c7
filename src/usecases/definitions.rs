//! The archive's variant definitions (`variants/<name>.md`, `notation-spec/variant-files.md`
//! §10): gathered for the replay of the games that pin them ([`at`], [`history`]), added
//! by `ravenpost new --variant-file` ([`definition_for_new`]), and the commits that
//! changed or deleted one, for `verify` ([`changed_definitions`]).
//!
//! Which definition a game may use at a commit is the referee's decision
//! ([`crate::referee::definitions`]); gathering a definition only makes it available, by
//! its content hash, to the replays the gathered [`Definitions`] are passed to.

use crate::archive::{Archive, ArchiveError, CommitId, HistoryIndex};
use crate::record::{self, game::Game};
use crate::referee::Problem;
use crate::referee::definitions::{check_definition_change, check_pin, pin_of};
use crate::referee::layout::{DEFINITIONS_DIR, definition_path, parse_definition_path};
use crate::variants::{self, Definition, Definitions, load_definition};

use super::error::Error as Failure;
use super::report::VerifyProblem;

/// Every definition in the folder `variants/` of commit `at` that loads (one that does not
/// is left out: the games that pin it do not replay).
///
/// # Errors
/// The archive's errors.
pub fn at(archive: &Archive, at: Option<CommitId>) -> Result<Definitions, ArchiveError> {
    let mut found = Definitions::new();
    let Some(at) = at else { return Ok(found) };
    for path in archive.list_files_at(at, DEFINITIONS_DIR)? {
        if parse_definition_path(&path).is_none() {
            continue;
        }
        // A file that does not read (not text) is left out like one that does not load.
        if let Ok(Some(text)) = archive.read_file_at(at, &path)
            && let Ok(d) = load_definition(&text)
        {
            found.insert(d);
        }
    }
    Ok(found)
}

/// The definitions of the archive's branch tip ([`at`]).
///
/// # Errors
/// The archive's errors.
pub fn at_tip(archive: &Archive) -> Result<Definitions, ArchiveError> {
    at(archive, archive.tip()?)
}

/// Every version of every definition the branch's history holds (for judging games whose
/// definition was changed later: their earlier versions still replay).
///
/// # Errors
/// The archive's errors.
pub(crate) fn history(archive: &Archive, index: &HistoryIndex) -> Result<Definitions, ArchiveError> {
    let mut found = Definitions::new();
    for path in &index.paths_under(DEFINITIONS_DIR) {
        if parse_definition_path(path).is_none() {
            continue;
        }
        for blob in index.versions(path).iter().filter_map(|v| v.blob) {
            if let Ok(text) = archive.read_blob_text(blob, path)
                && let Ok(d) = load_definition(&text)
            {
                found.insert(d);
            }
        }
    }
    Ok(found)
}

/// Replays `text` with the user variant it pins, if any, taken from `definitions`.
///
/// # Errors
/// As [`record::load`].
pub(crate) fn load(definitions: &Definitions, text: &str) -> Result<Game, record::Refusal> {
    record::Loader::new().definitions(definitions).load(text).map(|l| l.game)
}

/// The game `id` (its file's `text` at `tip`) replayed, after the definition it pins, if
/// any, is checked against the archive at `tip` ([`crate::referee::definitions::check_pin`]):
/// before a player's change is made to it.
///
/// # Errors
/// [`Failure::Definition`] with the referee's problem; the game's and the archive's errors.
pub(crate) fn load_pinned_at(
    archive: &Archive,
    tip: Option<CommitId>,
    id: &str,
    text: &str,
) -> Result<Game, Failure> {
    let mut definitions = Definitions::new();
    if let (Some(pin), Some(tip)) = (pin_of(text), tip) {
        let found = archive.read_file_at(tip, &pin.file)?;
        let checked = check_pin(&pin, found.as_deref(), &definitions)
            .map_err(|problem| Failure::Definition { id: id.to_string(), problem: Box::new(problem) })?;
        if let Some(d) = checked {
            definitions.insert(d);
        }
    }
    Ok(load(&definitions, text)?)
}

/// Every commit of the branch that changed or deleted a committed definition, or added
/// one that is not playable (from the index; only the added versions are read).
///
/// # Errors
/// The archive's errors.
pub(crate) fn changed_definitions(
    archive: &Archive,
    index: &HistoryIndex,
) -> Result<Vec<VerifyProblem>, ArchiveError> {
    let mut found = Vec::new();
    let paths = index.paths_under(DEFINITIONS_DIR);
    for path in &paths {
        let Some(name) = parse_definition_path(path) else { continue };
        let versions = index.versions(path);
        for (i, v) in versions.iter().enumerate() {
            let earlier = i.checked_sub(1).map(|e| versions[e]);
            let problem = match (earlier.and_then(|e| e.blob), v.blob) {
                (Some(_), None) => Some(Problem::DefinitionDeleted { file: path.to_string() }),
                (Some(old), Some(new)) if old != new => {
                    Some(Problem::DefinitionChanged { file: path.to_string() })
                }
                (None, Some(new)) => {
                    let bytes = archive.read_blob_text(new, path).map(String::into_bytes);
                    match bytes {
                        Ok(b) => check_definition_change(name, None, Some(&b)).err(),
                        Err(ArchiveError::NotText { .. }) => {
                            check_definition_change(name, None, Some(&[0xff])).err()
                        }
                        Err(e) => return Err(e),
                    }
                }
                _ => None,
            };
            if let Some(p) = problem {
                found.push((v.position, path, p));
            }
        }
    }
    // In history order, as the commits made them.
    found.sort_by_key(|(position, path, _)| (*position, *path));
    let out = found
        .into_iter()
        .map(|(position, path, p)| {
            let c = index.commit_at(position);
            VerifyProblem {
                // The definition's path is the line's subject, as in the hook's lines.
                game: path.to_string(),
                commit: c.commit.short(),
                author: c.author_name.to_string(),
                problem: p.to_string(),
            }
        })
        .collect();
    Ok(out)
}

/// The definition a new game is played with, when `variant` is no built-in name: the
/// file `given` (`--variant-file`: its text), or the archive's `variants/<variant>.md` at
/// `tip`. Returns the definition and whether its file must first be committed (given,
/// and not yet in the archive).
///
/// # Errors
/// [`Failure::Usage`]: the file does not load, or the archive holds another definition at
/// its path; the archive's errors.
pub(crate) fn definition_for_new(
    archive: &Archive,
    tip: Option<CommitId>,
    variant: &str,
    given: Option<(&str, &str)>,
) -> Result<Option<(Definition, bool)>, Failure> {
    let in_archive = |name: &str| -> Result<Option<String>, Failure> {
        Ok(match tip {
            Some(t) => archive.read_file_at(t, &definition_path(name))?,
            None => None,
        })
    };
    match given {
        Some((file, text)) => {
            let d = load_definition(text).map_err(|e| Failure::Usage(e.located(file)))?;
            let slug = d.def().slug.clone();
            let path = definition_path(&slug);
            if parse_definition_path(&path).is_none() {
                return Err(Failure::Usage(format!("{file}: the slug `{slug}` cannot be a file name")));
            }
            match in_archive(&slug)? {
                None => Ok(Some((d, true))),
                Some(t) if t == text => Ok(Some((d, false))),
                Some(t) => Err(Failure::Usage(format!(
                    "{file}: the archive already has another definition of `{slug}` ({path}, {}; yours is {}): committed definitions never change, so give yours another slug, or start the game with `ravenpost new {slug}` to play the archive's",
                    variants::content_hash(&t),
                    d.hash()
                ))),
            }
        }
        None => {
            if variants::by_name(variant, &[]).is_ok()
                || parse_definition_path(&definition_path(variant)).is_none()
            {
                return Ok(None);
            }
            let Some(text) = in_archive(variant)? else { return Ok(None) };
            let path = definition_path(variant);
            let d = load_definition(&text).map_err(|e| Failure::Usage(e.located(&path)))?;
            Ok(Some((d, false)))
        }
    }
}

/// A section of Fairy-Stockfish's `variants.ini` (`text`) as a ravenpost definition file:
/// the section's name and the file's text, checked to read and play (`ravenpost variant
/// import-fsf`). `name` may be left out when the file has one section.
///
/// # Errors
/// [`Error::Declined`] naming the key and line that cannot be expressed, or why the
/// translation does not play.
pub fn import_fsf(text: &str, name: Option<&str>) -> Result<(String, String), super::Error> {
    let (name, definition) =
        variants::fsf::import(text, name).map_err(|e| super::Error::Declined(e.to_string()))?;
    let d = load_definition(&definition)
        .map_err(|e| super::Error::Declined(format!("{name}: the translation does not read: {e}")))?;
    d.variant(&[])
        .map_err(|e| super::Error::Declined(format!("{name}: the translation does not play: {e}")))?;
    Ok((name, definition))
}
