//! The pre-receive hook's input: git writes one line per ref a push updates,
//! `<old-id> SP <new-id> SP <refname>`, the ids as 40 hex digits and all zeros for "none"
//! (a ref created or deleted). The hook script reads each line with the shell's
//! `read -r old new ref` and hands the three fields to `ravenpost hook check`, which reads
//! them with [`RefUpdate::from_fields`]; [`RefUpdate::parse_line`] and [`read_ref_updates`]
//! read whole lines the way that `read` splits them.
//!
//! Nothing here opens a repository: whether the commits exist is the archive's question.

use std::fmt;

use super::{ArchiveError, CommitId};
use crate::referee::Problem;

/// The all-zero id git writes for "no commit".
const ZERO: &str = "0000000000000000000000000000000000000000";

/// One ref update of a push, as the hook receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefUpdate {
    /// The ref's commit before the push; `None` when the push creates the ref.
    pub old: Option<CommitId>,
    /// The ref's commit after the push; `None` when the push deletes the ref.
    pub new: Option<CommitId>,
    /// The ref, e.g. `refs/heads/main`.
    pub refname: String,
}

/// Why a line of hook input could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HookLineError {
    /// Fewer than three fields.
    #[error("hook input line {line}: {found} field(s), expected `<old-id> <new-id> <refname>`")]
    Fields {
        /// The line's number, from 1.
        line: usize,
        /// How many fields it has.
        found: usize,
    },
    /// An id that is not 40 hex digits.
    #[error("hook input line {line}: {source}")]
    Id {
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with the id.
        source: Box<ArchiveError>,
    },
}

fn read_id(text: &str) -> Result<Option<CommitId>, ArchiveError> {
    let id: CommitId = text.parse()?;
    Ok(if id.0.is_zero() { None } else { Some(id) })
}

/// The shell's default field separators (`IFS`): space, tab and line feed.
fn is_ifs(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

impl RefUpdate {
    /// Reads the three fields the hook script passes to `hook check`.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`] (malformed) for an id that is not 40 hex digits.
    pub fn from_fields(old: &str, new: &str, refname: &str) -> Result<RefUpdate, ArchiveError> {
        Ok(RefUpdate { old: read_id(old)?, new: read_id(new)?, refname: refname.to_string() })
    }

    /// Reads one line as `read -r old new ref` splits it: surrounding blanks dropped, the
    /// first two fields ended by blanks, the refname the rest of the line. `line` is the
    /// line's number, for the error.
    ///
    /// # Errors
    ///
    /// [`HookLineError`]: too few fields, or a malformed id.
    pub fn parse_line(text: &str, line: usize) -> Result<RefUpdate, HookLineError> {
        let mut rest = text.trim_matches(is_ifs);
        let mut fields = Vec::with_capacity(2);
        while fields.len() < 2 {
            let Some((field, after)) = rest.split_once(is_ifs) else { break };
            fields.push(field);
            rest = after.trim_start_matches(is_ifs);
        }
        if fields.len() < 2 || rest.is_empty() {
            let found = fields.len() + usize::from(!rest.is_empty());
            return Err(HookLineError::Fields { line, found });
        }
        RefUpdate::from_fields(fields[0], fields[1], rest)
            .map_err(|source| HookLineError::Id { line, source: Box::new(source) })
    }

    /// The line git would write for this update (without its line feed).
    pub fn to_line(&self) -> String {
        self.to_string()
    }

    /// Why the hook refuses this update whatever the commits hold: a deleted ref, or a
    /// ref that is not a branch (tags, notes and names git would not accept).
    pub fn problem(&self) -> Option<Problem> {
        if self.new.is_none() {
            return Some(Problem::BranchDeleted { refname: self.refname.clone() });
        }
        if !self.refname.starts_with("refs/heads/") || !git2::Reference::is_valid_name(&self.refname) {
            return Some(Problem::NotABranch { refname: self.refname.clone() });
        }
        None
    }
}

impl fmt::Display for RefUpdate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = |c: &Option<CommitId>| c.map_or_else(|| ZERO.to_string(), |c| c.hex());
        write!(f, "{} {} {}", id(&self.old), id(&self.new), self.refname)
    }
}

/// Reads every line of the hook's standard input; blank lines are skipped.
///
/// # Errors
///
/// The first line that cannot be read.
pub fn read_ref_updates(input: &str) -> Result<Vec<RefUpdate>, HookLineError> {
    input
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_matches(is_ifs).is_empty())
        .map(|(i, l)| RefUpdate::parse_line(l, i + 1))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn a_line_splits_as_the_shells_read_does() {
        let u = RefUpdate::parse_line(&format!("  {A}\t {B}  refs/heads/main \n"), 1).unwrap();
        assert_eq!(u.old.unwrap().hex(), A);
        assert_eq!(u.new.unwrap().hex(), B);
        assert_eq!(u.refname, "refs/heads/main");
        assert!(u.problem().is_none());
        assert_eq!(u.to_line(), format!("{A} {B} refs/heads/main"));
    }

    #[test]
    fn zero_ids_are_no_commit_and_a_deletion_or_a_tag_is_refused() {
        let created = RefUpdate::parse_line(&format!("{ZERO} {B} refs/heads/new"), 1).unwrap();
        assert_eq!((created.old, created.problem()), (None, None));
        let deleted = RefUpdate::parse_line(&format!("{A} {ZERO} refs/heads/main"), 1).unwrap();
        assert!(matches!(deleted.problem(), Some(Problem::BranchDeleted { .. })));
        let tag = RefUpdate::parse_line(&format!("{A} {B} refs/tags/v1"), 1).unwrap();
        assert!(matches!(tag.problem(), Some(Problem::NotABranch { .. })));
        let bad = RefUpdate::parse_line(&format!("{A} {B} refs/heads/a..b"), 1).unwrap();
        assert!(matches!(bad.problem(), Some(Problem::NotABranch { .. })));
    }

    #[test]
    fn short_lines_and_bad_ids_say_which_line() {
        let e = read_ref_updates(&format!("{A} {B} refs/heads/main\n\n{A} {B}\n")).unwrap_err();
        assert!(matches!(e, HookLineError::Fields { line: 3, found: 2 }), "{e:?}");
        assert_eq!(e.to_string(), "hook input line 3: 2 field(s), expected `<old-id> <new-id> <refname>`");
        let e = RefUpdate::parse_line(&format!("{A} 12345 refs/heads/main"), 7).unwrap_err();
        assert_eq!(e.to_string(), "hook input line 7: commit 12345: malformed");
    }
}
