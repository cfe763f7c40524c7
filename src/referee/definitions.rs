//! The archive's variant definitions as the referee sees them
//! (`notation-spec/variant-files.md` §10): a game that pins a definition (`VariantFile`
//! and `VariantHash` tags) is judged with the file at its path in the judged commit, which
//! must have the pinned content hash ([`check_pin`]); a commit may add a definition, never
//! change or delete one ([`check_definition_change`]).

use crate::variants::{Definition, Definitions, content_hash, load_definition};

use super::layout::{definition_path, parse_definition_path};
use super::problem::Problem;

/// The definition a game file pins: its `VariantFile` and `VariantHash` tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The definition's path in the archive.
    pub file: String,
    /// Its content hash ([`content_hash`]).
    pub hash: String,
}

/// The definition `text` (a game file) pins, read from its tag pairs: `None` when it has
/// no `VariantFile` tag (a built-in variant). A `VariantFile` without a `VariantHash`
/// pins the empty hash, which no file has.
///
/// Only the tag section at the top of the file is read (a tag line is `[Name "value"]`),
/// so that the game is not parsed twice; a value written with escapes is not recognised
/// here, and the game's replay then refuses it as unpinned.
pub fn pin_of(text: &str) -> Option<Pin> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut file, mut hash) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else { break };
        let Some((name, value)) = inner.split_once(char::is_whitespace) else { continue };
        let value = value.trim().strip_prefix('"').and_then(|v| v.strip_suffix('"'));
        match (name, value) {
            ("VariantFile", Some(v)) => file = Some(v.to_string()),
            ("VariantHash", Some(v)) => hash = Some(v.to_string()),
            _ => {}
        }
    }
    Some(Pin { file: file?, hash: hash.unwrap_or_default() })
}

/// Checks the pinned definition against `found`, the text at its path in the judged
/// commit (`None`: no such file): on success, the definition when `known` does not hold
/// it yet (the game replays with it).
///
/// # Errors
/// [`Problem::NotADefinitionPath`], [`Problem::DefinitionMissing`],
/// [`Problem::DefinitionHashMismatch`], [`Problem::DefinitionInvalid`].
pub fn check_pin(pin: &Pin, found: Option<&str>, known: &Definitions) -> Result<Option<Definition>, Problem> {
    if parse_definition_path(&pin.file).is_none() {
        return Err(Problem::NotADefinitionPath { file: pin.file.clone() });
    }
    let Some(text) = found else { return Err(Problem::DefinitionMissing { file: pin.file.clone() }) };
    let hash = content_hash(text);
    if hash != pin.hash {
        return Err(Problem::DefinitionHashMismatch {
            file: pin.file.clone(),
            pinned: pin.hash.clone(),
            found: hash,
        });
    }
    if known.get(&hash).is_some() {
        return Ok(None);
    }
    let definition = load_definition(text)
        .map_err(|e| Problem::DefinitionInvalid { file: pin.file.clone(), why: e.to_string() })?;
    Ok(Some(definition))
}

/// Judges one commit's change to the definition `name` (`variants/<name>.md`):
/// `previous` its text in the parent commit, `new` its bytes after (`None`: deleted). A
/// new definition must load and define the slug `name`; a committed one is never changed
/// or deleted. The definition a commit adds, loaded.
///
/// # Errors
/// [`Problem::DefinitionChanged`], [`Problem::DefinitionDeleted`],
/// [`Problem::DefinitionInvalid`], [`Problem::DefinitionMisnamed`].
pub fn check_definition_change(
    name: &str,
    previous: Option<&[u8]>,
    new: Option<&[u8]>,
) -> Result<Option<Definition>, Problem> {
    let file = definition_path(name);
    match (previous, new) {
        (Some(_), None) => Err(Problem::DefinitionDeleted { file }),
        (Some(old), Some(new)) if old != new => Err(Problem::DefinitionChanged { file }),
        (Some(_), Some(_)) | (None, None) => Ok(None),
        (None, Some(bytes)) => {
            let text = std::str::from_utf8(bytes).map_err(|_| Problem::DefinitionInvalid {
                file: file.clone(),
                why: "not UTF-8 text".into(),
            })?;
            let definition = load_definition(text)
                .map_err(|e| Problem::DefinitionInvalid { file: file.clone(), why: e.to_string() })?;
            if definition.def().slug != name {
                return Err(Problem::DefinitionMisnamed { file, slug: definition.def().slug.clone() });
            }
            Ok(Some(definition))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pin_is_read_from_the_tag_section_only() {
        let text = "[Event \"?\"]\n[Variant \"loft\"]\n[VariantFile \"variants/loft.md\"]\n[VariantHash \"sha256:ab\"]\n\n1. a2 {[VariantHash \"x\"]} *\n";
        assert_eq!(pin_of(text), Some(Pin { file: "variants/loft.md".into(), hash: "sha256:ab".into() }));
        assert_eq!(pin_of("[Variant \"gygax\"]\n\n1. 2e3 *\n"), None);
        let unhashed = pin_of("[VariantFile \"variants/loft.md\"]\n").unwrap();
        assert_eq!(unhashed.hash, "");
        assert_eq!(
            check_pin(&unhashed, Some("---\n"), &Definitions::new()).err(),
            Some(Problem::DefinitionHashMismatch {
                file: "variants/loft.md".into(),
                pinned: String::new(),
                found: content_hash("---\n"),
            })
        );
    }

    #[test]
    fn a_pin_outside_the_definitions_folder_or_missing_is_refused() {
        let pin = Pin { file: "../loft.md".into(), hash: "sha256:00".into() };
        assert_eq!(
            check_pin(&pin, Some("x"), &Definitions::new()).err(),
            Some(Problem::NotADefinitionPath { file: "../loft.md".into() })
        );
        let pin = Pin { file: "variants/loft.md".into(), hash: "sha256:00".into() };
        assert_eq!(
            check_pin(&pin, None, &Definitions::new()).err(),
            Some(Problem::DefinitionMissing { file: "variants/loft.md".into() })
        );
    }

    #[test]
    fn a_committed_definition_may_be_added_never_changed_or_deleted() {
        let (a, b): (&[u8], &[u8]) = (b"one", b"two");
        assert_eq!(
            check_definition_change("loft", Some(a), Some(b)).err(),
            Some(Problem::DefinitionChanged { file: "variants/loft.md".into() })
        );
        assert_eq!(
            check_definition_change("loft", Some(a), None).err(),
            Some(Problem::DefinitionDeleted { file: "variants/loft.md".into() })
        );
        assert!(matches!(
            check_definition_change("loft", None, Some(b"no front matter")),
            Err(Problem::DefinitionInvalid { .. })
        ));
    }
}
