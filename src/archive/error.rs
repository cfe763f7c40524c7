//! [`ArchiveError`]: everything that can go wrong in the archive, with the context a user
//! needs to act on it (the path, the commit, the git operation, and a hint).

use std::path::PathBuf;
use std::time::Duration;

use super::CommitId;

/// An archive operation failed.
///
/// Each message is one line and, where the user can do something about it, ends with what
/// to do; [`ArchiveError::hint`] gives that part alone.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArchiveError {
    /// A git operation failed in a way this module does not classify further.
    #[error("git: {op}{}{}: {message}", ctx_path(path), ctx_oid(oid))]
    Git {
        /// The operation, e.g. `"write commit"`.
        op: &'static str,
        /// The file or directory concerned, if any.
        path: Option<String>,
        /// The object concerned (hex), if any.
        oid: Option<String>,
        /// libgit2's message.
        message: String,
    },
    /// A file system operation failed.
    #[error("{op} {}: {source}", path.display())]
    Io {
        /// The operation, e.g. `"write"`.
        op: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The directory is not a git repository.
    #[error("{}: not a git repository (create an archive there with `ravenpost init`)", dir.display())]
    NotARepository {
        /// The directory.
        dir: PathBuf,
    },
    /// The repository has no `ravenpost.yaml` on its branch, so it is no archive.
    #[error("{}: not a ravenpost archive (no ravenpost.yaml on branch {branch}; run `ravenpost init` there to make it one)", dir.display())]
    NotAnArchive {
        /// The repository's directory.
        dir: PathBuf,
        /// The branch looked at (`HEAD`'s branch).
        branch: String,
    },
    /// `init` on a repository that already is an archive.
    #[error("{}: already a ravenpost archive", dir.display())]
    AlreadyAnArchive {
        /// The repository's directory.
        dir: PathBuf,
    },
    /// `init` on a directory that has files but is no git repository.
    #[error("{}: directory is not empty and not a git repository (run `git init` there first to make it an archive anyway)", dir.display())]
    DirectoryNotEmpty {
        /// The directory.
        dir: PathBuf,
    },
    /// `HEAD` points at a commit, not at a branch, so there is nothing to commit on.
    #[error("{}: HEAD is detached (check out a branch, e.g. `git switch main`)", dir.display())]
    DetachedHead {
        /// The repository's directory.
        dir: PathBuf,
    },
    /// The branch tip is not the commit the caller expected: someone else committed first.
    #[error(
        "{path}: the game moved on: expected the archive at {}, found it at {} (read the game again and retry)",
        opt_id(expected),
        opt_id(actual)
    )]
    Moved {
        /// The file being written.
        path: String,
        /// The tip the caller expected (`None`: an unborn branch).
        expected: Option<CommitId>,
        /// The tip found (`None`: an unborn branch).
        actual: Option<CommitId>,
    },
    /// `create_file` on a path that exists at the expected tip.
    #[error("{path}: already exists in the archive")]
    AlreadyExists {
        /// The path.
        path: String,
    },
    /// The new contents equal the old: a commit would record nothing.
    #[error("{path}: unchanged, nothing to commit")]
    Unchanged {
        /// The path.
        path: String,
    },
    /// A path that cannot name a file in the archive.
    #[error("{path:?}: invalid archive path: {reason}")]
    InvalidPath {
        /// The path as given.
        path: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// A commit id that is malformed or not in the repository.
    #[error("commit {oid}: {reason}")]
    UnknownCommit {
        /// The id as given (hex).
        oid: String,
        /// `"malformed"` or `"not in the archive"`.
        reason: &'static str,
    },
    /// A stored file is not UTF-8 text.
    #[error("{path}: not UTF-8 text (blob {oid})")]
    NotText {
        /// The path.
        path: String,
        /// The blob (hex).
        oid: String,
    },
    /// The working tree's copy of a file has changes that are not in the archive; writing
    /// would overwrite them.
    #[error(
        "{path}: the working copy has changes not recorded in the archive (commit them with git, or discard them with `git checkout -- {path}`)"
    )]
    DirtyWorkingCopy {
        /// The path.
        path: String,
    },
    /// The commit was recorded, but the working tree or index could not be brought up to
    /// date with it.
    #[error(
        "{path}: the change is saved (commit {commit}), but the working copy could not be brought up to date: {message}; the next ravenpost command tries again, or run `git checkout HEAD -- {path}`"
    )]
    WorkingCopyUpdate {
        /// The path.
        path: String,
        /// The commit that was recorded.
        commit: CommitId,
        /// What failed.
        message: String,
    },
    /// A file under `games/` in the working tree that is not a regular file (a symbolic
    /// link, a device, a pipe): ravenpost neither reads nor replaces it.
    #[error(
        "{path}: a {what} in the working tree, not a regular file: ravenpost reads and writes only regular files under games/ (remove it, then run `git checkout HEAD -- {path}`); nothing was written"
    )]
    NotARegularFile {
        /// The path.
        path: String,
        /// What it is: `"symbolic link"`, `"special file"`.
        what: &'static str,
    },
    /// Another git command holds the branch's ref lock (`refs/heads/<b>.lock`) for longer
    /// than a write takes; nothing was written.
    #[error("{}: another git command is updating the branch (it holds the ref lock); nothing was written: retry when it has finished, or remove that file if no git command is running", path.display())]
    RefLocked {
        /// The ref lock file.
        path: PathBuf,
    },
    /// No author identity: none given, none in `ravenpost.yaml`, none in git's config.
    #[error(
        "no author identity: pass --author \"Your Name <you@example.com>\", or run `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`"
    )]
    MissingIdentity,
    /// An identity git cannot record (empty, or with `<`, `>` or a newline).
    #[error("invalid identity {name:?} <{email}>: {reason}")]
    InvalidIdentity {
        /// The name.
        name: String,
        /// The email address.
        email: String,
        /// Why it was refused.
        reason: &'static str,
    },
    /// Another writer holds the archive's lock and did not let go in time.
    #[error("{}: archive is locked by another writer ({holder}, {}s old); waited {}s", path.display(), age.as_secs(), waited.as_secs())]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How old the lock is.
        age: Duration,
        /// What the lock file says about its holder.
        holder: String,
        /// How long we waited.
        waited: Duration,
    },
    /// The archive's lock is older than any write takes: its holder probably crashed.
    #[error("{}: stale archive lock, {} old ({holder}); if no ravenpost is running, remove it with `rm {}` or retry with --break-lock", path.display(), human_age(*age), path.display())]
    StaleLock {
        /// The lock file.
        path: PathBuf,
        /// How old the lock is.
        age: Duration,
        /// What the lock file says about its holder.
        holder: String,
    },
    /// `ravenpost.yaml` cannot be read.
    #[error("{path}: {message}")]
    Config {
        /// The config file's path in the archive.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Another git command holds the repository's index lock, so the working copy could
    /// not be brought up to date after a commit; nothing was written.
    #[error("{}: another git command is using this repository (it holds the index lock); nothing was written: retry when it has finished, or remove that file if no git command is running", path.display())]
    GitBusy {
        /// The index lock file.
        path: PathBuf,
    },
    /// A commit could not be signed (`ssh-keygen -Y sign`).
    #[error("signing: {message}")]
    Signing {
        /// What went wrong, with ssh-keygen's words.
        message: String,
    },
    /// The working tree's `ravenpost.yaml` differs from the committed one: the archive's
    /// settings are the committed file's, so a command that reads them refuses rather than
    /// ignore the edit.
    #[error(
        "{path}: the working copy has edits that are not committed, and the archive's settings are the committed file's (every clone and the hook read those); nothing was done: commit the edit (`ravenpost archive settings --file {path}`, as an admin) or undo it (`git checkout -- {path}`); your own settings (SMTP server, identity, signing key) belong in your settings file ($RAVENPOST_CONFIG, else ravenpost/config.yaml in your config directory)"
    )]
    UncommittedSettings {
        /// The settings file's path in the archive.
        path: String,
    },
    /// The user's own settings file could not be read.
    #[error("{}: {message}", path.display())]
    UserSettings {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        message: String,
    },
    /// No per-user data directory could be found (no home directory).
    #[error("no per-user data directory (HOME is not set); set RAVENPOST_ARCHIVE to an archive directory")]
    NoDataDirectory,
    /// A partial clone (`git clone --filter=...`) lacks an object ravenpost needs, and
    /// fetching it from the promisor remote failed (or the clone has no promisor remote).
    #[error(
        "{path}: object {oid} is not in this partial clone and could not be fetched from {remote} ({why}); once {remote} can be reached, retry (ravenpost fetches what it reads), or fetch it with `git -C {} cat-file -e {oid}`",
        dir.display()
    )]
    MissingObject {
        /// The file the object holds a version of.
        path: String,
        /// The object (hex).
        oid: String,
        /// Why fetching it failed.
        why: String,
        /// The promisor remote (or `origin`).
        remote: String,
        /// The repository's directory.
        dir: PathBuf,
    },
}

impl ArchiveError {
    /// What the user can do about the error, when there is something to do.
    pub fn hint(&self) -> Option<String> {
        let s = match self {
            ArchiveError::NotARepository { .. } | ArchiveError::NotAnArchive { .. } => {
                "run `ravenpost init` there".to_string()
            }
            ArchiveError::DirectoryNotEmpty { .. } => "run `git init` there first".to_string(),
            ArchiveError::DetachedHead { .. } => "check out a branch, e.g. `git switch main`".to_string(),
            ArchiveError::Moved { .. } => "read the game again and retry".to_string(),
            ArchiveError::DirtyWorkingCopy { path } => format!("run `git checkout -- {path}`"),
            ArchiveError::WorkingCopyUpdate { path, .. } => format!("run `git checkout HEAD -- {path}`"),
            ArchiveError::NotARegularFile { path, .. } => {
                format!("remove it, then run `git checkout HEAD -- {path}`")
            }
            ArchiveError::RefLocked { path } => {
                format!("retry when it has finished; if no git command is running, remove {}", path.display())
            }
            ArchiveError::MissingIdentity => "pass --author \"Your Name <you@example.com>\", or run `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`, or set `identity:` in your user settings file".to_string(),
            ArchiveError::StaleLock { path, .. } => {
                format!("if no ravenpost is running, remove it with `rm {}` or retry with --break-lock", path.display())
            }
            ArchiveError::Locked { .. } => "retry when the other writer has finished".to_string(),
            ArchiveError::GitBusy { path } => {
                format!("retry when it has finished; if no git command is running, remove {}", path.display())
            }
            ArchiveError::NoDataDirectory => "set RAVENPOST_ARCHIVE to an archive directory".to_string(),
            ArchiveError::UncommittedSettings { path } => format!(
                "commit the edit (`ravenpost archive settings --file {path}`, as an admin) or undo it (`git checkout -- {path}`); your own settings (SMTP server, identity, signing key) go in your user settings file (${}, else ravenpost/{} in your config directory)",
                super::settings::CONFIG_ENV,
                super::settings::FILE_NAME
            ),
            _ => return None,
        };
        Some(s)
    }

    pub(crate) fn git(op: &'static str, e: git2::Error) -> ArchiveError {
        ArchiveError::Git { op, path: None, oid: None, message: e.message().to_string() }
    }

    pub(crate) fn git_path(op: &'static str, path: impl Into<String>, e: git2::Error) -> ArchiveError {
        ArchiveError::Git { op, path: Some(path.into()), oid: None, message: e.message().to_string() }
    }

    pub(crate) fn git_oid(op: &'static str, oid: git2::Oid, e: git2::Error) -> ArchiveError {
        ArchiveError::Git { op, path: None, oid: Some(oid.to_string()), message: e.message().to_string() }
    }

    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> ArchiveError {
        ArchiveError::Io { op, path: path.into(), source }
    }
}

fn ctx_path(path: &Option<String>) -> String {
    path.as_ref().map(|p| format!(" {p}")).unwrap_or_default()
}

fn ctx_oid(oid: &Option<String>) -> String {
    oid.as_ref().map(|o| format!(" ({o})")).unwrap_or_default()
}

fn opt_id(id: &Option<CommitId>) -> String {
    id.map(|c| c.short()).unwrap_or_else(|| "no commit".to_string())
}

/// `95s` → `1 min 35 s`, `2 h 3 min`: lock ages for people.
pub(crate) fn human_age(age: Duration) -> String {
    let s = age.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        3600..86400 => format!("{} h {} min", s / 3600, (s % 3600) / 60),
        _ => format!("{} d {} h", s / 86400, (s % 86400) / 3600),
    }
}

impl From<crate::referee::InvalidGamePath> for ArchiveError {
    fn from(e: crate::referee::InvalidGamePath) -> ArchiveError {
        ArchiveError::InvalidPath { path: e.path, reason: e.reason }
    }
}
