//! The archive's small value types: commit ids, identities, timestamps, game paths and
//! file versions. None of them shows a git2 type.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};

use super::ArchiveError;

/// The id of a commit in the archive (its hash).
///
/// Written and read as the full lowercase hex hash.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CommitId(pub(crate) git2::Oid);

impl CommitId {
    /// The full hex hash.
    pub fn hex(&self) -> String {
        self.0.to_string()
    }

    /// The first 12 hex digits, for messages.
    pub fn short(&self) -> String {
        let mut s = self.0.to_string();
        s.truncate(12);
        s
    }
}

impl fmt::Display for CommitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for CommitId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CommitId({})", self.0)
    }
}

impl FromStr for CommitId {
    type Err = ArchiveError;

    /// Reads a full hex hash (not an abbreviation: resolving one needs the repository).
    fn from_str(s: &str) -> Result<CommitId, ArchiveError> {
        if s.len() != 40 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ArchiveError::UnknownCommit { oid: s.to_string(), reason: "malformed" });
        }
        git2::Oid::from_str(s)
            .map(CommitId)
            .map_err(|_| ArchiveError::UnknownCommit { oid: s.to_string(), reason: "malformed" })
    }
}

/// Who made a commit: a name and an email address, as git records them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Identity {
    /// The name, e.g. `Ann Example`.
    pub name: String,
    /// The email address, e.g. `ann@example.com`.
    pub email: String,
}

impl Identity {
    /// An identity from a name and an email address.
    pub fn new(name: impl Into<String>, email: impl Into<String>) -> Identity {
        Identity { name: name.into(), email: email.into() }
    }

    /// The identity ravenpost itself commits under when it creates an archive and nobody
    /// was named: `ravenpost <ravenpost@localhost>`.
    pub fn ravenpost() -> Identity {
        Identity::new("ravenpost", "ravenpost@localhost")
    }

    /// Checks that git can record the identity.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::InvalidIdentity`] for an empty name or email, or one containing
    /// `<`, `>` or a line break.
    pub fn validate(&self) -> Result<(), ArchiveError> {
        let bad = |reason| {
            Err(ArchiveError::InvalidIdentity { name: self.name.clone(), email: self.email.clone(), reason })
        };
        if self.name.trim().is_empty() {
            return bad("empty name");
        }
        if self.email.trim().is_empty() {
            return bad("empty email");
        }
        let forbidden = |s: &str| s.contains(['<', '>', '\n', '\r', '\0']);
        if forbidden(&self.name) || forbidden(&self.email) {
            return bad("contains <, > or a line break");
        }
        Ok(())
    }
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} <{}>", self.name, self.email)
    }
}

impl FromStr for Identity {
    type Err = ArchiveError;

    /// Reads `Name <email>`, as `git commit --author` takes it.
    fn from_str(s: &str) -> Result<Identity, ArchiveError> {
        let invalid =
            |reason| ArchiveError::InvalidIdentity { name: s.to_string(), email: String::new(), reason };
        let (name, rest) = s.split_once('<').ok_or_else(|| invalid("expected `Name <email>`"))?;
        let email = rest.strip_suffix('>').ok_or_else(|| invalid("expected `Name <email>`"))?;
        let id = Identity::new(name.trim(), email.trim());
        id.validate()?;
        Ok(id)
    }
}

/// A moment with the UTC offset it was recorded in, to the second (git's resolution).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Timestamp {
    seconds: i64,
    offset_minutes: i32,
}

impl Timestamp {
    /// Seconds since the Unix epoch, and the offset from UTC in minutes (`60` for
    /// UTC+01:00).
    pub fn from_unix(seconds: i64, offset_minutes: i32) -> Timestamp {
        Timestamp { seconds, offset_minutes }
    }

    /// Now, in UTC.
    pub fn now() -> Timestamp {
        let seconds = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
        };
        Timestamp { seconds, offset_minutes: 0 }
    }

    /// Seconds since the Unix epoch.
    pub fn unix_seconds(&self) -> i64 {
        self.seconds
    }

    /// The offset from UTC in minutes.
    pub fn offset_minutes(&self) -> i32 {
        self.offset_minutes
    }

    /// As a chrono date-time in its own offset (`None` if out of chrono's range).
    pub fn to_datetime(&self) -> Option<DateTime<FixedOffset>> {
        let offset = FixedOffset::east_opt(self.offset_minutes.checked_mul(60)?)?;
        Some(DateTime::from_timestamp(self.seconds, 0)?.with_timezone(&offset))
    }

    pub(crate) fn to_git(self) -> git2::Time {
        git2::Time::new(self.seconds, self.offset_minutes)
    }

    pub(crate) fn from_git(t: git2::Time) -> Timestamp {
        Timestamp { seconds: t.seconds(), offset_minutes: t.offset_minutes() }
    }
}

impl From<DateTime<FixedOffset>> for Timestamp {
    fn from(t: DateTime<FixedOffset>) -> Timestamp {
        Timestamp { seconds: t.timestamp(), offset_minutes: t.offset().local_minus_utc() / 60 }
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339, e.g. `2025-03-01T12:00:00+01:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_datetime() {
            Some(t) => write!(f, "{}", t.to_rfc3339()),
            None => write!(f, "@{}{:+}", self.seconds, self.offset_minutes),
        }
    }
}

/// One version of a file: the commit that wrote it and what it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileVersion {
    /// The commit.
    pub commit: CommitId,
    /// Its first parent (`None` for a root commit).
    pub parent: Option<CommitId>,
    /// The author's name.
    pub author_name: String,
    /// The author's email address.
    pub author_email: String,
    /// When the author made the commit.
    pub time: Timestamp,
    /// The commit message, without its final line break.
    pub message: String,
    /// The file as this commit left it; `None` if the commit deleted it.
    pub contents: Option<String>,
    /// Every file the commit added, changed or deleted (this one included), sorted: a
    /// ravenpost commit changes exactly one.
    pub changed_paths: Vec<String>,
}

/// One commit of the archive's history, with what it changed; see
/// [`Archive::history`](super::Archive::history).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveCommit {
    /// The commit.
    pub commit: CommitId,
    /// Its first parent (`None` for a root commit).
    pub parent: Option<CommitId>,
    /// The author's name.
    pub author_name: String,
    /// The author's email address.
    pub author_email: String,
    /// When the author made the commit.
    pub time: Timestamp,
    /// The commit message, without its final line break.
    pub message: String,
    /// The files it added, changed or deleted, sorted by path: a ravenpost commit changes
    /// exactly one.
    pub changes: Vec<FileChange>,
}

/// A file a commit added, changed or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The path in the archive.
    pub path: String,
    /// The file as the commit left it (bytes: any file may be changed by hand); `None` if
    /// it was deleted.
    pub contents: Option<Vec<u8>>,
}

/// The id of a blob (a file's contents) in the archive (its hash), as the
/// [history index](super::HistoryIndex) records it; read it with
/// [`Archive::read_blob_text`](super::Archive::read_blob_text).
///
/// Written and read as the full lowercase hex hash.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlobId(pub(crate) git2::Oid);

impl BlobId {
    /// The full hex hash.
    pub fn hex(&self) -> String {
        self.0.to_string()
    }
}

impl fmt::Display for BlobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for BlobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BlobId({})", self.0)
    }
}
