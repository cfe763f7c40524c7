//! The game archive: a git repository of game files, one commit per change.
//!
//! An archive is a git repository whose branch (the one `HEAD` names) holds
//!
//! - `ravenpost.yaml` at the root: the archive's settings ([`ArchiveConfig`]), and
//! - `games/<variant>/<game-id>.pgn`: one game a file ([`GamePath`]).
//!
//! This module stores and retrieves the files' text and their history; it does not read
//! game files (that is `notation`'s job). All git work goes through [`Archive`]; no git2
//! type appears in its interface, and every failure is an [`ArchiveError`].
//!
//! **Writes** ([`Archive::commit_file`], [`Archive::create_file`]) build the new commit
//! from the tree of the tip the caller expects plus one changed file, without the index or
//! the working tree, then move the branch with a compare-and-swap: when two writers start
//! from the same tip, exactly one wins and the other gets [`ArchiveError::Moved`]. Only
//! then is the working copy (file and index entry) brought up to date. Local writers are
//! also serialised by a lock file in the git directory ([`Archive::lock`]), which callers
//! can hold across their own read-check-write sequence. After a write, loose objects are
//! packed when git would pack them (`git gc --auto`; see [`Archive::pack_if_needed`]).
//!
//! **History** ([`Archive::file_history`], [`Archive::history`],
//! [`Archive::commits_between`]) is read from the [`HistoryIndex`]: the branch's
//! first-parent line walked once and cached in the git directory ([`Archive::index`]),
//! extended by the new commits only. Checkers keep their conclusions per commit in a
//! [`VerdictCache`] beside it.
//!
//! ```
//! use ravenpost::archive::{Archive, Identity, Timestamp};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let ann = Identity::new("Ann Example", "ann@example.com");
//! let t = Timestamp::from_unix(1_740_830_400, 0);
//! let archive = Archive::init(dir.path(), Some(&ann), t).unwrap();
//! let tip = archive.tip().unwrap();
//! archive.create_file("games/gygax/g1.pgn", "[Result \"*\"]\n\n*\n", tip, Some(&ann), t, "New game").unwrap();
//! assert_eq!(archive.read_file("games/gygax/g1.pgn").unwrap().unwrap(), "[Result \"*\"]\n\n*\n");
//! assert_eq!(archive.list_games().unwrap()[0].id(), "g1");
//! ```

mod blobs;
mod cache;
mod config;
mod error;
mod gc;
mod gitlog;
mod guess;
pub mod hook_input;
mod index;
mod locate;
mod lock;
mod remote;
pub mod settings;
mod signing;
mod treediff;
mod types;
mod verdicts;
mod write;

use std::cell::{Cell, RefCell};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::{ErrorCode, ObjectType, Oid, Repository};

pub use crate::referee::{ArmyChoice, ArmyReveal, COMMITMENT_TAGS, ChoiceStep, GamePath, check_choice_step};
pub use blobs::{CutPoints, VersionSource};
pub use config::{
    ArchiveConfig, ClubSettings, Diagrams, DkimPolicy, Layout, MailConfig, PlayerSettings, PlaysBy,
    SmtpConfig, SmtpSecurity,
};
pub use error::ArchiveError;
pub use hook_input::{HookLineError, RefUpdate, read_ref_updates};
pub use index::{HistoryIndex, IndexedChange, IndexedCommit, PathVersion};
pub use locate::{ArchiveSource, RAVENPOST_ARCHIVE, default_archive};
pub use remote::{PushOutcome, hook_accepted_line, redact_url_passwords};
pub use signing::{
    CommitSignature, NAMESPACE as SIGNATURE_NAMESPACE, SshSigner, is_public_key, verify_ssh_signature,
};
pub use types::{ArchiveCommit, BlobId, CommitId, FileChange, FileVersion, Identity, Timestamp};
pub use verdicts::{VerdictCache, VerdictLines};
pub(crate) use write::HoldSignals;
pub use write::{Change, CommitNames, FileWrite};

/// The attributes file `init` commits beside `ravenpost.yaml`.
pub const ATTRIBUTES_PATH: &str = crate::referee::layout::ATTRIBUTES_PATH;

/// What `init` writes there: game files and the settings are text with LF line endings
/// in every clone (so `core.autocrlf=true`, Git for Windows' default, changes nothing).
/// Game files are diffed as text by the `pgn` driver: with [`PGN_FUNCNAME`] as its
/// `xfuncname` (which `init` sets in the repository's config) each hunk of `git diff` and
/// `git log -p` is headed by the movetext line it is in; a clone without the setting
/// diffs them as plain text.
pub const ATTRIBUTES: &str = "# Written by `ravenpost init`: game files keep LF line endings in every clone.\n\
games/** text eol=lf\n\
ravenpost.yaml text eol=lf\n\
# Diffs of games as text; `git config diff.pgn.xfuncname '^[0-9]+\\..*$'` heads each hunk with its move line.\n\
games/**/*.pgn diff=pgn\n";

/// The `diff.pgn.xfuncname` that `init` sets: a hunk header is the last line before it
/// that starts with a move number, whole.
pub const PGN_FUNCNAME: &str = r"^[0-9]+\..*$";

/// Where an archive looks for git's `user.name` and `user.email`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum GitConfigScope {
    /// The repository's config, then the user's (`~/.gitconfig`, XDG) and the system's,
    /// as git does.
    #[default]
    All,
    /// Only the repository's own `.git/config` (tests, and runs that must not depend on the
    /// user's settings).
    RepositoryOnly,
}

/// How an [`Archive`] locks, where it finds identities, and what it may know of game texts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ArchiveOptions {
    /// How long a writer waits for another local writer's lock (default 10 s).
    pub lock_timeout: Duration,
    /// A lock older than this is reported as stale instead of waited for (default 2 min;
    /// a write takes milliseconds).
    pub stale_lock_after: Duration,
    /// Remove a lock older than this and go on (default: never).
    pub break_locks_older_than: Option<Duration>,
    /// Take the lock file around writes (default true). Without it the compare-and-swap on
    /// the branch still keeps every commit, but local writers may fail with
    /// [`ArchiveError::Moved`] more often.
    pub write_lock: bool,
    /// Where to look for git's identity settings.
    pub git_config: GitConfigScope,
    /// [`Archive::init_with_config`] also commits [`ATTRIBUTES`] as `.gitattributes`
    /// (default false; `ravenpost init` sets it).
    pub pin_line_endings: bool,
    /// Where the moves of a game file's text end: the notation's finder, given by the
    /// layers above (default none). With it a long walk of the history proves most
    /// commits' changes by hashing trees instead of having git diff them
    /// (`archive/guess.rs`); the index is the same either way.
    pub move_ends: Option<CutPoints>,
}

impl Default for ArchiveOptions {
    fn default() -> ArchiveOptions {
        ArchiveOptions {
            lock_timeout: Duration::from_secs(10),
            stale_lock_after: Duration::from_secs(120),
            break_locks_older_than: None,
            write_lock: true,
            git_config: GitConfigScope::All,
            pin_line_endings: false,
            move_ends: None,
        }
    }
}

/// An open archive.
///
/// `Archive` is `Send` but not `Sync`: give each thread its own (opening is cheap).
pub struct Archive {
    repo: Repository,
    options: ArchiveOptions,
    lock_depth: Cell<usize>,
    lock_file: RefCell<Option<lock::LockFile>>,
    /// git's object reader for bulk reads, started on first use ([`blobs`]).
    cat_file: RefCell<Option<blobs::CatFile>>,
    /// Set when git's reader could not be used: every later read goes through libgit2.
    cat_file_failed: Cell<bool>,
    /// The number of the next temporary file this value writes (with the process id, its
    /// name; one taken by another writer is skipped).
    next_temporary: Cell<u64>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive").field("dir", &self.dir()).field("options", &self.options).finish()
    }
}

/// The archive's write lock, held until dropped; see [`Archive::lock`].
#[derive(Debug)]
#[must_use = "the lock is released when this is dropped"]
pub struct WriteLock<'a> {
    archive: &'a Archive,
}

impl Drop for WriteLock<'_> {
    fn drop(&mut self) {
        let depth = self.archive.lock_depth.get() - 1;
        self.archive.lock_depth.set(depth);
        if depth == 0 {
            self.archive.lock_file.borrow_mut().take();
        }
    }
}

fn not_found(e: &git2::Error) -> bool {
    e.code() == ErrorCode::NotFound
}

impl Archive {
    fn from_repo(repo: Repository) -> Archive {
        Archive {
            repo,
            options: ArchiveOptions::default(),
            lock_depth: Cell::new(0),
            lock_file: RefCell::new(None),
            cat_file: RefCell::new(None),
            cat_file_failed: Cell::new(false),
            next_temporary: Cell::new(0),
        }
    }

    /// The same repository opened again, with the same options: for another thread
    /// (an `Archive` is not `Sync`).
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn reopen(&self) -> Result<Archive, ArchiveError> {
        let repo = Repository::open(self.repo.path()).map_err(|e| {
            ArchiveError::git_path("open repository", self.repo.path().display().to_string(), e)
        })?;
        let mut archive = Archive::from_repo(repo);
        archive.options = self.options.clone();
        Ok(archive)
    }

    /// Opens the archive whose repository is exactly `dir` (its working tree, or its git
    /// directory if bare; parent directories are not searched).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::NotARepository`], [`ArchiveError::NotAnArchive`] (no
    /// `ravenpost.yaml` on the branch), [`ArchiveError::Config`] (unreadable settings).
    pub fn open(dir: &Path) -> Result<Archive, ArchiveError> {
        let repo = match Repository::open(dir) {
            Ok(r) => r,
            Err(e) if not_found(&e) => return Err(ArchiveError::NotARepository { dir: dir.to_path_buf() }),
            Err(e) => return Err(ArchiveError::git_path("open repository", dir.display().to_string(), e)),
        };
        let archive = Archive::from_repo(repo);
        archive.check_is_archive()?;
        Ok(archive)
    }

    /// The repository whose git directory is `git_dir`, as it is (no check that it holds
    /// an archive): what a history index reopens to walk again.
    pub(crate) fn open_git_dir(git_dir: &Path) -> Result<Archive, ArchiveError> {
        Repository::open(git_dir)
            .map(Archive::from_repo)
            .map_err(|e| ArchiveError::git_path("open repository", git_dir.display().to_string(), e))
    }

    /// The archive containing `cwd`: the git repository `cwd` is in, searching parent
    /// directories as git does, if its branch has `ravenpost.yaml`. `Ok(None)` when `cwd`
    /// is in no repository or in one that is no archive.
    ///
    /// # Errors
    ///
    /// Git failures other than "not found", and [`ArchiveError::Config`] for an archive
    /// whose settings cannot be read.
    pub fn discover(cwd: &Path) -> Result<Option<Archive>, ArchiveError> {
        let repo = match Repository::discover(cwd) {
            Ok(r) => r,
            Err(e) if not_found(&e) => return Ok(None),
            Err(e) => {
                return Err(ArchiveError::git_path("discover repository", cwd.display().to_string(), e));
            }
        };
        let archive = Archive::from_repo(repo);
        match archive.check_is_archive() {
            Ok(()) => Ok(Some(archive)),
            Err(ArchiveError::NotAnArchive { .. } | ArchiveError::DetachedHead { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Makes `dir` an archive with the default settings; see [`Archive::init_with_config`].
    ///
    /// # Errors
    ///
    /// As [`Archive::init_with_config`].
    pub fn init(dir: &Path, author: Option<&Identity>, time: Timestamp) -> Result<Archive, ArchiveError> {
        Archive::init_with_config(dir, &ArchiveConfig::default(), author, time, ArchiveOptions::default())
    }

    /// Makes `dir` an archive by committing `ravenpost.yaml` on its branch.
    ///
    /// - A missing or empty `dir` becomes a new repository on git's `init.defaultBranch`,
    ///   or `main`.
    /// - An existing repository (`dir` being its working tree, or its git directory if
    ///   bare) gets the file committed on the branch `HEAD` names, on top of its tip, or
    ///   as the first commit of an unborn branch. Other files, the index's other entries
    ///   and uncommitted changes are left alone.
    ///
    /// The commit is made as `author`, else the settings' author, else git's
    /// `user.name`/`user.email`, else [`Identity::ravenpost`]. With
    /// [`GitConfigScope::RepositoryOnly`] in `options`, the user's and system's git config
    /// are not read (a new repository's branch is then `main`). With
    /// [`ArchiveOptions::pin_line_endings`], the first commit also has a `.gitattributes`
    /// ([`ATTRIBUTES`]) unless the repository has one. The archive keeps `options`.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DirectoryNotEmpty`] for a non-empty directory that is no repository,
    /// [`ArchiveError::AlreadyAnArchive`], [`ArchiveError::DetachedHead`], and the
    /// failures of [`Archive::create_file`].
    pub fn init_with_config(
        dir: &Path,
        config: &ArchiveConfig,
        author: Option<&Identity>,
        time: Timestamp,
        options: ArchiveOptions,
    ) -> Result<Archive, ArchiveError> {
        let repo = match Repository::open(dir) {
            Ok(r) => r,
            Err(e) if not_found(&e) => {
                match fs::read_dir(dir) {
                    Ok(mut entries) => {
                        if entries.next().is_some() {
                            return Err(ArchiveError::DirectoryNotEmpty { dir: dir.to_path_buf() });
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        fs::create_dir_all(dir).map_err(|e| ArchiveError::io("create directory", dir, e))?;
                    }
                    Err(e) => return Err(ArchiveError::io("read directory", dir, e)),
                }
                let configured = match options.git_config {
                    GitConfigScope::All => git2::Config::open_default()
                        .and_then(|mut c| c.snapshot())
                        .and_then(|c| c.get_string("init.defaultBranch"))
                        .ok(),
                    GitConfigScope::RepositoryOnly => None,
                };
                let branch = configured.unwrap_or_else(|| "main".to_string());
                let mut opts = git2::RepositoryInitOptions::new();
                opts.initial_head(&branch).no_reinit(true);
                Repository::init_opts(dir, &opts)
                    .map_err(|e| ArchiveError::git_path("init repository", dir.display().to_string(), e))?
            }
            Err(e) => return Err(ArchiveError::git_path("open repository", dir.display().to_string(), e)),
        };
        let mut archive = Archive::from_repo(repo);
        archive.set_options(options);
        let tip = archive.tip()?;
        if archive.read_bytes(ArchiveConfig::PATH)?.is_some() {
            return Err(ArchiveError::AlreadyAnArchive { dir: archive.dir().to_path_buf() });
        }
        let author = match author {
            Some(a) => a.clone(),
            None => match &config.author {
                Some(a) => a.clone(),
                None => archive.git_identity()?.unwrap_or_else(Identity::ravenpost),
            },
        };
        let yaml = config.to_yaml();
        let message = "Start a ravenpost archive";
        // Game files keep LF endings in every clone, whatever `core.autocrlf` says; a
        // repository that has its own `.gitattributes` keeps it.
        let attributes_there = !archive.options.pin_line_endings
            || archive.read_bytes(ATTRIBUTES_PATH)?.is_some()
            || archive.repo.workdir().is_some_and(|w| fs::symlink_metadata(w.join(ATTRIBUTES_PATH)).is_ok());
        if attributes_there {
            archive.create_file(ArchiveConfig::PATH, yaml, tip, Some(&author), time, message)?;
        } else {
            // The diff driver the attributes name, in this repository's own config.
            if let Ok(mut c) = archive.repo.config().and_then(|c| c.open_level(git2::ConfigLevel::Local)) {
                let _ = c.set_str("diff.pgn.xfuncname", PGN_FUNCNAME);
            }
            let who = archive.identity(Some(&author))?;
            let change = Change::new(CommitNames::by(&who, time), tip, message)
                .create(ArchiveConfig::PATH, yaml.as_bytes())
                .create(ATTRIBUTES_PATH, ATTRIBUTES.as_bytes());
            archive.commit(&change)?;
        }
        Ok(archive)
    }

    /// Replaces the archive's options.
    pub fn set_options(&mut self, options: ArchiveOptions) {
        self.options = options;
    }

    /// The archive's options.
    pub fn options(&self) -> &ArchiveOptions {
        &self.options
    }

    /// The archive's directory: the working tree, or the git directory if bare.
    pub fn dir(&self) -> &Path {
        self.repo.workdir().unwrap_or_else(|| self.repo.path())
    }

    /// The repository's git directory (`.git` of a working copy, or the bare repository).
    pub fn git_dir(&self) -> &Path {
        self.repo.path()
    }

    /// Whether the repository is bare (no working tree to keep up to date).
    pub fn is_bare(&self) -> bool {
        self.repo.is_bare()
    }

    /// The full name of the branch `HEAD` names, e.g. `refs/heads/main`.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`].
    pub fn branch(&self) -> Result<String, ArchiveError> {
        let head = self.repo.find_reference("HEAD").map_err(|e| ArchiveError::git("read HEAD", e))?;
        match head.symbolic_target() {
            Ok(Some(name)) => Ok(name.to_string()),
            Ok(None) | Err(_) => Err(ArchiveError::DetachedHead { dir: self.dir().to_path_buf() }),
        }
    }

    fn ref_target(&self, refname: &str) -> Result<Option<Oid>, ArchiveError> {
        match self.repo.refname_to_id(refname) {
            Ok(oid) => Ok(Some(oid)),
            Err(e) if not_found(&e) => Ok(None),
            Err(e) => Err(ArchiveError::git_path("read branch", refname, e)),
        }
    }

    /// The branch's tip; `None` while the branch has no commit.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn tip(&self) -> Result<Option<CommitId>, ArchiveError> {
        Ok(self.ref_target(&self.branch()?)?.map(CommitId))
    }

    /// The committer of `commit` (who ran the command that made it; the author is whose
    /// step it is), name and email as lossy UTF-8.
    ///
    /// # Errors
    /// [`ArchiveError::UnknownCommit`], git failures.
    pub fn committer_of(&self, commit: CommitId) -> Result<Identity, ArchiveError> {
        let c = self.find_commit(commit)?;
        let who = c.committer();
        Ok(Identity::new(
            String::from_utf8_lossy(who.name_bytes()).into_owned(),
            String::from_utf8_lossy(who.email_bytes()).into_owned(),
        ))
    }

    fn find_commit(&self, id: CommitId) -> Result<git2::Commit<'_>, ArchiveError> {
        self.repo.find_commit(id.0).map_err(|e| {
            if not_found(&e) {
                ArchiveError::UnknownCommit { oid: id.hex(), reason: "not in the archive" }
            } else {
                ArchiveError::git_oid("read commit", id.0, e)
            }
        })
    }

    fn tree_of<'r>(&self, commit: &git2::Commit<'r>) -> Result<git2::Tree<'r>, ArchiveError> {
        commit.tree().map_err(|e| ArchiveError::git_oid("read tree", commit.id(), e))
    }

    /// The git file mode of the entry at `path` in commit `at`'s tree (`0o100644` a
    /// file, `0o120000` a symbolic link, …); `None` if there is none.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::InvalidPath`], [`ArchiveError::UnknownCommit`], git failures.
    pub fn entry_mode_at(&self, at: CommitId, path: &str) -> Result<Option<u32>, ArchiveError> {
        write::check_path(path)?;
        let tree = self.tree_of(&self.find_commit(at)?)?;
        match tree.get_path(Path::new(path)) {
            Ok(entry) => Ok(Some(entry.filemode() as u32)),
            Err(e) if not_found(&e) => Ok(None),
            Err(e) => Err(ArchiveError::git_path("read tree", path, e)),
        }
    }

    /// The names of the entries of the folder `dir` (`""`: the root) at commit `at`; empty
    /// when there is no such folder.
    ///
    /// # Errors
    ///
    /// As [`Archive::entry_mode_at`].
    pub fn names_at(&self, at: CommitId, dir: &str) -> Result<Vec<String>, ArchiveError> {
        let root = self.tree_of(&self.find_commit(at)?)?;
        let tree = if dir.is_empty() {
            root
        } else {
            match root.get_path(Path::new(dir)) {
                Ok(entry) if entry.kind() == Some(ObjectType::Tree) => self
                    .repo
                    .find_tree(entry.id())
                    .map_err(|e| ArchiveError::git_path("read tree", dir, e))?,
                Ok(_) => return Ok(Vec::new()),
                Err(e) if not_found(&e) => return Ok(Vec::new()),
                Err(e) => return Err(ArchiveError::git_path("read tree", dir, e)),
            }
        };
        Ok(tree.iter().map(|e| String::from_utf8_lossy(e.name_bytes()).into_owned()).collect())
    }

    /// The problem of the entry at `path` in commit `at` if it is not a regular file
    /// under `games/` ([`crate::referee::layout::entry_problem`]).
    ///
    /// # Errors
    ///
    /// As [`Archive::entry_mode_at`].
    pub fn entry_problem_at(
        &self,
        at: CommitId,
        path: &str,
    ) -> Result<Option<crate::referee::Problem>, ArchiveError> {
        Ok(self.entry_mode_at(at, path)?.and_then(|m| crate::referee::layout::entry_problem(path, m)))
    }

    fn check_is_archive(&self) -> Result<(), ArchiveError> {
        let branch = self.branch()?;
        match self.read_file(ArchiveConfig::PATH)? {
            None => Err(ArchiveError::NotAnArchive { dir: self.dir().to_path_buf(), branch }),
            Some(text) => ArchiveConfig::from_yaml(&text).map(|_| ()),
        }
    }

    /// The committed `ravenpost.yaml` at the tip, refused when the working tree's copy
    /// differs from it (an edit not committed would otherwise be silently ignored: the
    /// archive's settings are the committed file's, the ones every clone and the hook
    /// read). Line endings are not compared.
    fn settings_text(&self) -> Result<Option<String>, ArchiveError> {
        let text = self.read_file(ArchiveConfig::PATH)?;
        if let (Some(t), Some(w)) = (&text, self.repo.workdir()) {
            let file = w.join(ArchiveConfig::PATH);
            // Read no more than the committed text and a little (line endings): a link to
            // an endless file (/dev/zero) or a special file differs, and is never read whole.
            let read = || -> std::io::Result<Vec<u8>> {
                use std::io::Read;
                let mut b = Vec::new();
                let cap = 2 * t.len() as u64 + 2;
                fs::File::open(&file)?.take(cap).read_to_end(&mut b)?;
                Ok(b)
            };
            let differs = write::not_a_regular_file(&file).is_some()
                || match read() {
                    Ok(b) => String::from_utf8_lossy(&b).replace("\r\n", "\n") != t.replace("\r\n", "\n"),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                    Err(e) => return Err(ArchiveError::io("read", file, e)),
                };
            if differs {
                return Err(ArchiveError::UncommittedSettings { path: ArchiveConfig::PATH.to_string() });
            }
        }
        Ok(text)
    }

    /// The archive's settings, from `ravenpost.yaml` at the tip.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::NotAnArchive`], [`ArchiveError::Config`],
    /// [`ArchiveError::UncommittedSettings`] when the working tree's `ravenpost.yaml` is not
    /// the committed one, git failures.
    pub fn config(&self) -> Result<ArchiveConfig, ArchiveError> {
        match self.settings_text()? {
            None => Err(ArchiveError::NotAnArchive { dir: self.dir().to_path_buf(), branch: self.branch()? }),
            Some(text) => ArchiveConfig::from_yaml(&text),
        }
    }

    /// The blob at `path` in `tree`, `None` if there is nothing there.
    fn blob_at(&self, tree: &git2::Tree<'_>, path: &str) -> Result<Option<Oid>, ArchiveError> {
        match tree.get_path(Path::new(path)) {
            Ok(entry) if entry.kind() == Some(ObjectType::Blob) => Ok(Some(entry.id())),
            Ok(_) => Err(ArchiveError::InvalidPath {
                path: path.to_string(),
                reason: "is a folder in the archive",
            }),
            Err(e) if not_found(&e) => Ok(None),
            Err(e) => Err(ArchiveError::git_path("look up path", path, e)),
        }
    }

    fn blob_bytes(&self, oid: Oid, path: &str) -> Result<Vec<u8>, ArchiveError> {
        let git = |e: git2::Error| ArchiveError::Git {
            op: "read blob",
            path: Some(path.to_string()),
            oid: Some(oid.to_string()),
            message: e.message().to_string(),
        };
        match self.repo.find_blob(oid) {
            Ok(blob) => Ok(blob.content().to_vec()),
            // A partial clone: fetch the blob from its promisor remote, as git would.
            Err(e) if not_found(&e) && self.promisor_remote().is_some() => {
                self.fetch_missing_blobs(&[BlobId(oid)], path)?;
                let blob = self.repo.find_blob(oid).map_err(git)?;
                Ok(blob.content().to_vec())
            }
            Err(e) => Err(git(e)),
        }
    }

    fn blob_text(&self, oid: Oid, path: &str) -> Result<String, ArchiveError> {
        String::from_utf8(self.blob_bytes(oid, path)?)
            .map_err(|_| ArchiveError::NotText { path: path.to_string(), oid: oid.to_string() })
    }

    /// The file at `path` at commit `at`, as bytes; `None` if there is no such file.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::InvalidPath`], [`ArchiveError::UnknownCommit`], git failures.
    pub fn read_bytes_at(&self, at: CommitId, path: &str) -> Result<Option<Vec<u8>>, ArchiveError> {
        write::check_path(path)?;
        let commit = self.find_commit(at)?;
        let tree = self.tree_of(&commit)?;
        self.blob_at(&tree, path)?.map(|oid| self.blob_bytes(oid, path)).transpose()
    }

    /// The file at `path` at commit `at`, as text; `None` if there is no such file.
    ///
    /// # Errors
    ///
    /// As [`Archive::read_bytes_at`], and [`ArchiveError::NotText`].
    pub fn read_file_at(&self, at: CommitId, path: &str) -> Result<Option<String>, ArchiveError> {
        write::check_path(path)?;
        let commit = self.find_commit(at)?;
        let tree = self.tree_of(&commit)?;
        self.blob_at(&tree, path)?.map(|oid| self.blob_text(oid, path)).transpose()
    }

    /// The file at `path` at the branch tip, as bytes; `None` if there is no such file (or
    /// no commit yet).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::InvalidPath`], [`ArchiveError::DetachedHead`], git failures.
    pub fn read_bytes(&self, path: &str) -> Result<Option<Vec<u8>>, ArchiveError> {
        write::check_path(path)?;
        match self.tip()? {
            None => Ok(None),
            Some(tip) => self.read_bytes_at(tip, path),
        }
    }

    /// The file at `path` at the branch tip, as text; `None` if there is no such file.
    ///
    /// # Errors
    ///
    /// As [`Archive::read_bytes`], and [`ArchiveError::NotText`].
    pub fn read_file(&self, path: &str) -> Result<Option<String>, ArchiveError> {
        self.read_bytes(path)?
            .map(|bytes| {
                String::from_utf8(bytes).map_err(|e| {
                    let oid = Oid::hash_object(ObjectType::Blob, e.as_bytes()).map(|o| o.to_string());
                    ArchiveError::NotText { path: path.to_string(), oid: oid.unwrap_or_default() }
                })
            })
            .transpose()
    }

    /// Every game file at the tip (`games/<variant>/<bucket>/<id>.pgn`, or
    /// `games/<variant>/<id>.pgn` in the flat layout: both are listed), sorted by variant
    /// then id. Other files under `games/` are ignored.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn list_games(&self) -> Result<Vec<GamePath>, ArchiveError> {
        let Some(tip) = self.tip()? else { return Ok(Vec::new()) };
        let mut out: Vec<GamePath> =
            self.record_paths_at(tip)?.iter().filter_map(|p| GamePath::parse(p)).collect();
        out.sort();
        Ok(out)
    }

    /// The paths of the files under `games/` in commit `at`'s tree that may be records: a
    /// variant's folder's files and those two bucket folders down (in no order).
    ///
    /// # Errors
    ///
    /// git failures.
    pub fn record_paths_at(&self, at: CommitId) -> Result<Vec<String>, ArchiveError> {
        let root = self.tree_of(&self.find_commit(at)?)?;
        let Some(games) = root.get_name(GamePath::DIR) else { return Ok(Vec::new()) };
        let Ok(games) = self.repo.find_tree(games.id()) else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for variant in games.iter() {
            let Ok(variant_name) = std::str::from_utf8(variant.name_bytes()) else { continue };
            self.collect_record_paths(
                variant.id(),
                &format!("{}/{variant_name}", GamePath::DIR),
                2,
                &mut out,
            )?;
        }
        Ok(out)
    }

    /// Adds the files of the tree `oid` at `dir`, and of its folders `depth` deep, to `out`.
    fn collect_record_paths(
        &self,
        oid: Oid,
        dir: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), ArchiveError> {
        let Ok(tree) = self.repo.find_tree(oid) else { return Ok(()) };
        for entry in tree.iter() {
            let Ok(name) = std::str::from_utf8(entry.name_bytes()) else { continue };
            match entry.kind() {
                Some(ObjectType::Blob) => out.push(format!("{dir}/{name}")),
                Some(ObjectType::Tree) if depth > 0 => {
                    self.collect_record_paths(entry.id(), &format!("{dir}/{name}"), depth - 1, out)?
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The game files at the tip whose id is `id`, in any variant and either layout: what
    /// [`Archive::list_games`] lists with that id, from a few tree entries (a game's path
    /// follows from its variant and id), not from the whole archive.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn games_with_id(&self, id: &str) -> Result<Vec<GamePath>, ArchiveError> {
        let Some(tip) = self.tip()? else { return Ok(Vec::new()) };
        let tree = self.tree_of(&self.find_commit(tip)?)?;
        let Some(games) = tree.get_name(GamePath::DIR).filter(|e| e.kind() == Some(ObjectType::Tree)) else {
            return Ok(Vec::new());
        };
        let games =
            self.repo.find_tree(games.id()).map_err(|e| ArchiveError::git_oid("read tree", games.id(), e))?;
        let mut out = Vec::new();
        for variant in games.iter().filter(|e| e.kind() == Some(ObjectType::Tree)) {
            let Ok(variant) = std::str::from_utf8(variant.name_bytes()) else { continue };
            for layout in [Layout::Flat, Layout::FanOut] {
                let Ok(g) = GamePath::in_layout(layout, variant, id) else { continue };
                if matches!(tree.get_path(Path::new(&g.path())), Ok(e) if e.kind() == Some(ObjectType::Blob))
                {
                    out.push(g);
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// Whether an army choice file of game `id` is at the tip (in either layout): one
    /// question of [`Archive::list_army_choices`], from two tree entries.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn has_army_choice(&self, id: &str) -> Result<bool, ArchiveError> {
        let Some(tip) = self.tip()? else { return Ok(false) };
        let tree = self.tree_of(&self.find_commit(tip)?)?;
        Ok([Layout::Flat, Layout::FanOut].into_iter().any(|layout| {
            let path = crate::referee::layout::army_choice_path(layout, id);
            ArmyChoice::parse_path(&path) == Some(id)
                && matches!(tree.get_path(Path::new(&path)), Ok(e) if e.kind() == Some(ObjectType::Blob))
        }))
    }

    /// The game ids of every army choice file at the tip
    /// (`games/fantasy-grand/<bucket>/<id>.armies.yaml`, or without the bucket in the flat
    /// layout: [`ArmyChoice`]), sorted.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn list_army_choices(&self) -> Result<Vec<String>, ArchiveError> {
        let Some(tip) = self.tip()? else { return Ok(Vec::new()) };
        let mut out: Vec<String> = self
            .record_paths_at(tip)?
            .iter()
            .filter_map(|p| ArmyChoice::parse_path(p).map(str::to_string))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The archive's layout ([`Layout`]), from its settings at the tip; the flat layout of
    /// old archives when there are none yet.
    ///
    /// # Errors
    ///
    /// As [`Archive::config`].
    pub fn layout(&self) -> Result<Layout, ArchiveError> {
        match self.read_file(ArchiveConfig::PATH)? {
            None => Ok(Layout::Flat),
            Some(text) => Ok(ArchiveConfig::from_yaml(&text)?.layout),
        }
    }

    /// The paths of the files directly in the folder `dir` of commit `at`'s tree
    /// (e.g. `variants/loft.md` for `variants`), sorted; empty when there is no such folder.
    ///
    /// # Errors
    ///
    /// git failures.
    pub fn list_files_at(&self, at: CommitId, dir: &str) -> Result<Vec<String>, ArchiveError> {
        let root = self.tree_of(&self.find_commit(at)?)?;
        let Ok(entry) = root.get_path(Path::new(dir)) else { return Ok(Vec::new()) };
        let Ok(tree) = self.repo.find_tree(entry.id()) else { return Ok(Vec::new()) };
        let mut out: Vec<String> = tree
            .iter()
            .filter(|f| f.kind() == Some(ObjectType::Blob))
            .filter_map(|f| std::str::from_utf8(f.name_bytes()).ok().map(|name| format!("{dir}/{name}")))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The directory for this clone's own secrets, never committed: `ravenpost/` in the
    /// (common) git directory. Army choice salts wait there for the reveal.
    pub fn secrets_dir(&self) -> PathBuf {
        self.repo.commondir().join("ravenpost")
    }

    /// Every version of the file at `path`, oldest first: one entry for each commit on the
    /// branch's first-parent line that created, changed or deleted it. Read from the
    /// [history index](Archive::index); in a shallow clone the history starts at the
    /// boundary commit ([`HistoryIndex::shallow`]), whose files count as created there.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::InvalidPath`], [`ArchiveError::NotText`], [`ArchiveError::DetachedHead`],
    /// git failures.
    pub fn file_history(&self, path: &str) -> Result<Vec<FileVersion>, ArchiveError> {
        match self.tip()? {
            Some(tip) => self.file_history_at(path, tip),
            None => Ok(Vec::new()),
        }
    }

    /// As [`Archive::file_history`], on the first-parent line that ends at `at` (a commit
    /// that need not be on the branch yet: the pre-receive hook's incoming commits).
    ///
    /// # Errors
    ///
    /// As [`Archive::file_history`], and [`ArchiveError::UnknownCommit`].
    pub fn file_history_at(&self, path: &str, at: CommitId) -> Result<Vec<FileVersion>, ArchiveError> {
        write::check_path(path)?;
        // A folder at `path` is refused, as reading the file there would be.
        self.blob_at(&self.tree_of(&self.find_commit(at)?)?, path)?;
        let index = self.index_at(at)?;
        index
            .versions(path)
            .iter()
            .map(|v| {
                let c = &index.commit_at(v.position);
                let mut changed_paths: Vec<String> = c.changes.iter().map(|ch| ch.path.to_string()).collect();
                changed_paths.dedup();
                Ok(FileVersion {
                    commit: c.commit,
                    parent: c.parent,
                    author_name: c.author_name.to_string(),
                    author_email: c.author_email.to_string(),
                    time: c.time,
                    message: c.message.clone(),
                    contents: v.blob.map(|b| self.blob_text(b.0, path)).transpose()?,
                    changed_paths,
                })
            })
            .collect()
    }

    /// The branch's first-parent history, oldest first, each commit with the files it
    /// changed and their new contents: one walk for checking or listing the whole archive
    /// (where [`Archive::file_history`] per game would walk it once per game).
    ///
    /// `newest`: only the last this many commits. Contents are held in memory; for a
    /// long history, pass a limit (or use [`Archive::index`], which reads no contents).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn history(&self, newest: Option<usize>) -> Result<Vec<ArchiveCommit>, ArchiveError> {
        let index = self.index()?;
        let from = newest.map_or(0, |n| index.len().saturating_sub(n));
        let mut out = Vec::new();
        let mut failed = None;
        index.for_each_commit(from, |c| match self.archive_commit(&c) {
            Ok(a) => {
                out.push(a);
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// The first-parent commits after `from` (exclusive; `None`: from the root) up to `to`
    /// (inclusive), oldest first, each with its changes as in [`Archive::history`]. If
    /// `from` is not on `to`'s first-parent line, the walk goes to the root.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`], git failures.
    pub fn commits_between(
        &self,
        from: Option<CommitId>,
        to: CommitId,
    ) -> Result<Vec<ArchiveCommit>, ArchiveError> {
        let index = self.index_at(to)?;
        index.since(from).iter().map(|c| self.archive_commit(c)).collect()
    }

    /// An indexed commit with the contents of the files it changed.
    fn archive_commit(&self, c: &IndexedCommit) -> Result<ArchiveCommit, ArchiveError> {
        let changes = c
            .changes
            .iter()
            .map(|ch| {
                Ok(FileChange {
                    path: ch.path.to_string(),
                    contents: ch.blob.map(|b| self.blob_bytes(b.0, &ch.path)).transpose()?,
                })
            })
            .collect::<Result<Vec<_>, ArchiveError>>()?;
        Ok(ArchiveCommit {
            commit: c.commit,
            parent: c.parent,
            author_name: c.author_name.to_string(),
            author_email: c.author_email.to_string(),
            time: c.time,
            message: c.message.clone(),
            changes,
        })
    }

    /// Takes the archive's write lock (the file `ravenpost.lock` in the git directory) and
    /// holds it until the returned guard is dropped, so that a read-check-write sequence
    /// is not interleaved with other local writers. Writes through this `Archive` while
    /// the guard lives use it; writes take it themselves otherwise. Nested calls are fine.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Locked`] after waiting [`ArchiveOptions::lock_timeout`] for another
    /// holder; [`ArchiveError::StaleLock`] for a lock older than
    /// [`ArchiveOptions::stale_lock_after`] (unless
    /// [`ArchiveOptions::break_locks_older_than`] lets it be removed);
    /// [`ArchiveError::Io`].
    pub fn lock(&self) -> Result<WriteLock<'_>, ArchiveError> {
        self.lock_if(self.options.write_lock)
    }

    /// As [`Archive::lock`], taking the lock file only if `take_file` (and it is not held
    /// yet). A file taken while an outer guard lives is kept until that guard goes.
    pub(crate) fn lock_if(&self, take_file: bool) -> Result<WriteLock<'_>, ArchiveError> {
        if take_file && self.lock_file.borrow().is_none() {
            let path = self.lock_path();
            let acquired = lock::acquire(&path, &self.options)?;
            *self.lock_file.borrow_mut() = Some(acquired.lock);
            if let Some(journal) = acquired.interrupted {
                // A writer died holding the lock: finish what it left half done first.
                let recovered = self.recover(&journal);
                if recovered.is_ok()
                    && let Some(lock) = self.lock_file.borrow().as_ref()
                {
                    lock.recovered();
                }
                if let Err(e) = recovered {
                    let mut held = self.lock_file.borrow_mut();
                    if let Some(lock) = held.as_mut() {
                        // Keep its journal for the next try.
                        lock.note(&journal);
                        lock.keep();
                    }
                    held.take();
                    return Err(e);
                }
            }
        }
        self.lock_depth.set(self.lock_depth.get() + 1);
        Ok(WriteLock { archive: self })
    }

    /// Finishes a write that a ravenpost process left half done when it died (killed
    /// between moving the branch and updating the working copy, say), if one did and
    /// nobody holds the lock now: see [`Archive::lock`]. Every write does this itself
    /// when it takes the lock; commands call it first so that `git status` is right
    /// again at once.
    ///
    /// # Errors
    ///
    /// As [`Archive::lock`] (except that a held lock is not waited for: nothing is done).
    pub fn recover_interrupted_write(&self) -> Result<(), ArchiveError> {
        if self.lock_file.borrow().is_some() || !self.lock_path().exists() {
            return Ok(());
        }
        let mut options = self.options.clone();
        options.lock_timeout = Duration::ZERO;
        let acquired = match lock::acquire(&self.lock_path(), &options) {
            Ok(a) => a,
            Err(ArchiveError::Locked { .. } | ArchiveError::StaleLock { .. }) => return Ok(()),
            Err(e) => return Err(e),
        };
        *self.lock_file.borrow_mut() = Some(acquired.lock);
        let result = match &acquired.interrupted {
            Some(journal) => self.recover(journal),
            None => Ok(()),
        };
        let mut held = self.lock_file.borrow_mut();
        if let (Err(_), Some(lock), Some(journal)) = (&result, held.as_mut(), &acquired.interrupted) {
            lock.note(journal);
            lock.keep();
        }
        held.take();
        result
    }

    /// The lock file's path: `ravenpost.lock` in the (common) git directory.
    pub fn lock_path(&self) -> PathBuf {
        self.repo.commondir().join(lock::LOCK_FILE)
    }

    /// git's `user.signingKey` (see [`SshSigner`] for its forms), read as
    /// [`ArchiveOptions::git_config`] says; `None` when unset.
    ///
    /// # Errors
    /// [`ArchiveError::Git`] if git's config cannot be read.
    pub fn git_signing_key(&self) -> Result<Option<String>, ArchiveError> {
        let Some(mut config) = self.git_config()? else { return Ok(None) };
        let snap = config.snapshot().map_err(|e| ArchiveError::git("read git config", e))?;
        Ok(snap.get_string("user.signingkey").ok().filter(|s| !s.trim().is_empty()))
    }

    fn git_config(&self) -> Result<Option<git2::Config>, ArchiveError> {
        let config = self.repo.config().map_err(|e| ArchiveError::git("read git config", e))?;
        Ok(match self.options.git_config {
            GitConfigScope::All => Some(config),
            GitConfigScope::RepositoryOnly => config.open_level(git2::ConfigLevel::Local).ok(),
        })
    }

    fn git_identity(&self) -> Result<Option<Identity>, ArchiveError> {
        let config = self.repo.config().map_err(|e| ArchiveError::git("read git config", e))?;
        let config = match self.options.git_config {
            GitConfigScope::All => config,
            GitConfigScope::RepositoryOnly => match config.open_level(git2::ConfigLevel::Local) {
                Ok(c) => c,
                Err(_) => return Ok(None),
            },
        };
        let mut config = config;
        let snap = config.snapshot().map_err(|e| ArchiveError::git("read git config", e))?;
        let name = snap.get_string("user.name").ok().filter(|s| !s.trim().is_empty());
        let email = snap.get_string("user.email").ok().filter(|s| !s.trim().is_empty());
        Ok(name.zip(email).map(|(n, e)| Identity::new(n, e)))
    }

    /// The identity a commit is made under: `given` (the command line's `--author`, else
    /// the identity of the user's settings, [`settings::UserSettings::identity`]), else the
    /// author in `ravenpost.yaml`, else git's `user.name` and `user.email` (see
    /// [`ArchiveOptions::git_config`]).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::MissingIdentity`] when there is none, with what to run;
    /// [`ArchiveError::InvalidIdentity`]; [`ArchiveError::Config`].
    pub fn identity(&self, given: Option<&Identity>) -> Result<Identity, ArchiveError> {
        let configured = match given {
            None => self.settings_text()?.map(|text| ArchiveConfig::from_yaml(&text)).transpose()?,
            Some(_) => None,
        }
        .and_then(|c| c.author);
        self.identity_over(given.or(configured.as_ref()))
    }

    /// As [`Archive::identity`], with `given` standing for both the caller's identity and
    /// the settings' author (a caller that read the settings itself, as the settings
    /// change does while the working tree's copy is being replaced): else git's.
    ///
    /// # Errors
    ///
    /// As [`Archive::identity`].
    pub fn identity_over(&self, given: Option<&Identity>) -> Result<Identity, ArchiveError> {
        let id = match given {
            Some(g) => g.clone(),
            None => self.git_identity()?.ok_or(ArchiveError::MissingIdentity)?,
        };
        id.validate()?;
        Ok(id)
    }
}

/// A commit's author name and email, author time, and message without its final line
/// break (lossy UTF-8: commits made by hand may hold any bytes).
fn commit_meta(commit: &git2::Commit<'_>) -> (String, String, Timestamp, String) {
    let author = commit.author();
    let message = String::from_utf8_lossy(commit.message_bytes());
    (
        String::from_utf8_lossy(author.name_bytes()).into_owned(),
        String::from_utf8_lossy(author.email_bytes()).into_owned(),
        Timestamp::from_git(author.when()),
        message.strip_suffix('\n').unwrap_or(&message).to_string(),
    )
}
