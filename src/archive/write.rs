//! Writing: one file changed per commit, the branch moved by compare-and-swap, then the
//! working copy brought up to date.
//!
//! The order makes every crash safe. Blob, trees and commit are written first as
//! unreferenced objects (a crash leaves garbage for `git gc`, the archive as before). The
//! branch update is the commit point: libgit2 locks the ref file, compares its value with
//! the expected tip and renames the new value into place. The working copy follows (file
//! written to a temporary name and renamed, then the index entry); a crash before that
//! leaves the working copy one version behind, which the next write recognises as its own
//! and brings forward.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use git2::{ErrorCode, ObjectType, Oid};

use super::lock::Journal;
use super::{Archive, ArchiveConfig, ArchiveError, CommitId, Identity, SshSigner, Timestamp};

/// Blob file mode in a tree.
const MODE_BLOB: i32 = 0o100_644;
/// Tree file mode in a tree.
const MODE_TREE: i32 = 0o040_000;

/// Checks an archive path (`/`-separated, relative, no `.`/`..`/`.git` parts) and
/// returns its parts.
pub(crate) fn check_path(path: &str) -> Result<Vec<&str>, ArchiveError> {
    let bad = |reason| Err(ArchiveError::InvalidPath { path: path.to_string(), reason });
    if path.is_empty() {
        return bad("empty");
    }
    if path.len() > 1024 {
        return bad("longer than 1024 bytes");
    }
    if path.starts_with('/') {
        return bad("absolute (archive paths are relative to the archive's root)");
    }
    if path.contains(['\\', '\0', '\n', '\r']) {
        return bad("contains a backslash, NUL or line break");
    }
    let parts: Vec<&str> = path.split('/').collect();
    for part in &parts {
        if part.is_empty() {
            return bad("empty part (`//` or a trailing `/`)");
        }
        if *part == "." || *part == ".." {
            return bad("`.` or `..` part");
        }
        if part.eq_ignore_ascii_case(".git") {
            return bad("`.git` part");
        }
    }
    Ok(parts)
}

/// Who a commit names, and when ([`Change::names`]): most often one person at one time
/// ([`CommitNames::by`]); a step made by one person and committed by another at another
/// time names both: a mailed move is its mover's (the author) at the move's recorded time,
/// committed by the player who imported it (the committer) at its arrival.
#[derive(Debug, Clone, Copy)]
pub struct CommitNames<'a> {
    /// Whose step it is: the commit's author.
    pub author: &'a Identity,
    /// When the step was made: the author's time.
    pub author_time: Timestamp,
    /// Who ran the command that commits it: the committer.
    pub committer: &'a Identity,
    /// When it was committed here: the committer's time.
    pub time: Timestamp,
}

impl<'a> CommitNames<'a> {
    /// `who` as author and committer, both at `time`.
    pub fn by(who: &'a Identity, time: Timestamp) -> CommitNames<'a> {
        CommitNames { author: who, author_time: time, committer: who, time }
    }
}

/// One file a [`Change`] writes.
#[derive(Debug, Clone, Copy)]
pub struct FileWrite<'a> {
    /// Its path in the repository.
    pub path: &'a str,
    /// Its new contents.
    pub contents: &'a [u8],
    /// A new file: refused ([`ArchiveError::AlreadyExists`]) if it exists at the tip.
    pub new: bool,
}

/// One commit for [`Archive::commit`]: the files it writes on the branch tip it expects,
/// who makes it and when (resolved by the caller), its message and its signer.
#[derive(Debug, Clone)]
pub struct Change<'a> {
    /// The files, in order (the first names the commit in errors and in the journal).
    pub files: Vec<FileWrite<'a>>,
    /// The tip the change is made on (`None`: the branch has no commit yet).
    pub expected_tip: Option<CommitId>,
    /// The author and committer, and their times.
    pub names: CommitNames<'a>,
    /// The commit message (its subject capped, see [`capped_message`]).
    pub message: &'a str,
    /// Signs the commit (an SSH signature in the `gpgsig` header, as `git commit -S` with
    /// `gpg.format=ssh` makes), when given.
    pub signer: Option<&'a SshSigner>,
}

impl<'a> Change<'a> {
    /// A change without files yet, unsigned.
    pub fn new(names: CommitNames<'a>, expected_tip: Option<CommitId>, message: &'a str) -> Change<'a> {
        Change { files: Vec::new(), expected_tip, names, message, signer: None }
    }

    /// Writes `contents` at `path`, whether or not the file exists.
    #[must_use]
    pub fn write(mut self, path: &'a str, contents: &'a [u8]) -> Change<'a> {
        self.files.push(FileWrite { path, contents, new: false });
        self
    }

    /// Creates the file `path`: the change is refused if it exists.
    #[must_use]
    pub fn create(mut self, path: &'a str, contents: &'a [u8]) -> Change<'a> {
        self.files.push(FileWrite { path, contents, new: true });
        self
    }

    /// Signed by `signer`, when given.
    #[must_use]
    pub fn signed(mut self, signer: Option<&'a SshSigner>) -> Change<'a> {
        self.signer = signer;
        self
    }
}

impl Archive {
    /// Commits `change`: the files it writes, each in the tree of `change.expected_tip`
    /// (neither the index nor the working tree are used for it), by its author and
    /// committer at their times, signed when it names a signer. The one way ravenpost
    /// commits, for one file or many (a tournament and its games, `init`'s two files).
    ///
    /// The branch moves only if it still points at `expected_tip` (`None`: the branch has
    /// no commit yet), atomically. Then, in a non-bare repository, each working-tree file
    /// is replaced atomically and its index entry updated, so `git status` stays clean.
    /// Each step is journaled first, so that a write killed at any point is finished or
    /// undone by the next command ([`Archive::recover`]).
    ///
    /// # Errors
    ///
    /// - [`ArchiveError::Moved`]: the branch is not at `expected_tip` (someone else
    ///   committed first); nothing was changed.
    /// - [`ArchiveError::AlreadyExists`]: a file the change creates exists at the tip.
    /// - [`ArchiveError::Unchanged`]: a file's contents equal the file at the tip.
    /// - [`ArchiveError::DirtyWorkingCopy`]: a working-tree file has edits that are not in
    ///   the archive; nothing was changed.
    /// - [`ArchiveError::WorkingCopyUpdate`]: committed, but the working copy could not be
    ///   updated (the error carries the new commit).
    /// - [`ArchiveError::Signing`] (nothing was changed), [`ArchiveError::InvalidIdentity`],
    ///   [`ArchiveError::InvalidPath`] (also for a change without files),
    ///   [`ArchiveError::UnknownCommit`], [`ArchiveError::DetachedHead`], the errors of
    ///   [`Archive::lock`], git failures.
    pub fn commit(&self, change: &Change<'_>) -> Result<CommitId, ArchiveError> {
        let Some(first) = change.files.first().map(|f| f.path) else {
            return Err(ArchiveError::InvalidPath { path: String::new(), reason: "no files to commit" });
        };
        let parts: Vec<Vec<&str>> =
            change.files.iter().map(|f| check_path(f.path)).collect::<Result<_, _>>()?;
        let expected = change.expected_tip;
        let _lock = self.lock()?;
        let refname = self.branch()?;
        let names = &change.names;
        names.author.validate()?;
        names.committer.validate()?;
        let signature = |who: &Identity, at: Timestamp| {
            git2::Signature::new(&who.name, &who.email, &at.to_git())
                .map_err(|e| ArchiveError::git("make signature", e))
        };
        let author = signature(names.author, names.author_time)?;
        let committer = signature(names.committer, names.time)?;

        let parent = expected.map(|id| self.find_commit(id)).transpose()?;
        let base = parent.as_ref().map(|c| self.tree_of(c)).transpose()?;
        // The tree before the parent: a working copy left behind by a crash between commit
        // and update holds a file's version there.
        let grandparent = match parent.as_ref().filter(|c| c.parent_count() > 0) {
            Some(c) => {
                let id = c.parent_id(0).map_err(|e| ArchiveError::git_oid("read parent", c.id(), e))?;
                Some(self.tree_of(&self.find_commit(CommitId(id))?)?)
            }
            None => None,
        };
        let mut tree = base.as_ref().map(git2::Tree::id);
        for (file, parts) in change.files.iter().zip(&parts) {
            let path = file.path;
            let old = match &base {
                Some(t) => self.blob_at(t, path)?,
                None => None,
            };
            let new = Oid::hash_object(ObjectType::Blob, file.contents)
                .map_err(|e| ArchiveError::git_path("hash", path, e))?;
            if file.new && old.is_some() {
                let err = ArchiveError::AlreadyExists { path: path.to_string() };
                return Err(self.moved_or(&refname, path, expected, err));
            }
            if old == Some(new) {
                let err = ArchiveError::Unchanged { path: path.to_string() };
                return Err(self.moved_or(&refname, path, expected, err));
            }
            let before = match &grandparent {
                Some(t) => self.blob_at(t, path)?,
                None => None,
            };
            if let Err(err) = self.check_working_copy(path, &[Some(new), old, before]) {
                return Err(self.moved_or(&refname, path, expected, err));
            }
            let blob =
                self.repo.blob(file.contents).map_err(|e| ArchiveError::git_path("write blob", path, e))?;
            let with = tree
                .map(|id| self.repo.find_tree(id).map_err(|e| ArchiveError::git_oid("read tree", id, e)))
                .transpose()?;
            tree = Some(self.insert_blob(with.as_ref(), parts, blob, path)?);
        }
        let tree = tree.expect("at least one file was inserted");
        let tree = self.repo.find_tree(tree).map_err(|e| ArchiveError::git_oid("read tree", tree, e))?;
        let message = capped_message(change.message);
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let commit =
            self.write_commit((&author, &committer), &message, &tree, &parents, change.signer, |op, e| {
                ArchiveError::git_path(op, first, e)
            })?;
        let summary = message.lines().next().unwrap_or_default();
        let journal = |step: &str, path: &str| Journal::of(step, &refname, path, expected, commit);
        self.note(&journal("objects", first));
        test_pause("objects");
        // From the ref update to the index entries: an interrupt (Ctrl-C, SIGTERM, SIGHUP)
        // waits until the working copy has the commit, so the change is everywhere or
        // nowhere. A SIGKILL cannot wait: the journal lets the next command finish.
        let _hold = HoldSignals::new();
        self.note(&journal("ref", first));
        test_pause("ref");
        self.swap_branch(&refname, commit, expected, first, &format!("ravenpost: {summary}"))?;
        let id = CommitId(commit);
        if self.repo.workdir().is_some() {
            // Always under the lock file, even without `write_lock`: two writers that both
            // won (one after the other) must not leave the older version in the working tree.
            // Any failure from here on is reported with the commit, which has been made.
            // Tests pause in the first file's steps, before any file is in place.
            for (k, file) in change.files.iter().enumerate() {
                let synced = match self.lock_if(true) {
                    Ok(_lock) => {
                        self.note(&journal("worktree", file.path));
                        if k == 0 {
                            test_pause("worktree");
                        }
                        let written =
                            self.sync_working_copy(&refname, file.path, commit, file.contents, &|| {
                                self.note(&journal("index", file.path));
                                if k == 0 {
                                    test_pause("index");
                                }
                            });
                        if written.is_err() {
                            // The next command brings the working copy up to date.
                            self.keep_journal();
                        }
                        written
                    }
                    Err(e) => Err(e.to_string()),
                };
                synced.map_err(|message| ArchiveError::WorkingCopyUpdate {
                    path: file.path.to_string(),
                    commit: id,
                    message,
                })?;
            }
        }
        self.note(&journal("done", first));
        test_pause("done");
        drop(_hold);
        self.pack_if_needed();
        Ok(id)
    }

    /// Commits the moves `moves` (each file from its path to another, with the same
    /// blob) and `write` (a file's new contents) in one commit on `expected_tip`, under the
    /// write lock, the branch moved only if it is still there (as [`Archive::commit`]).
    /// The working copy, which must hold no edit of a moved file, follows by a safe
    /// checkout. What `ravenpost archive migrate-layout` commits.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Moved`], [`ArchiveError::DirtyWorkingCopy`], a moved file missing
    /// at the tip ([`ArchiveError::InvalidPath`]), the errors of [`Archive::lock`], git
    /// failures.
    pub fn commit_moves(
        &self,
        moves: &[(String, String)],
        write: (&str, &[u8]),
        expected_tip: CommitId,
        names: CommitNames<'_>,
        message: &str,
    ) -> Result<CommitId, ArchiveError> {
        for (from, to) in moves {
            check_path(from)?;
            check_path(to)?;
        }
        check_path(write.0)?;
        let _lock = self.lock()?;
        let refname = self.branch()?;
        if self.ref_target(&refname)?.map(CommitId) != Some(expected_tip) {
            let actual = self.ref_target(&refname)?.map(CommitId);
            return Err(ArchiveError::Moved {
                path: write.0.to_string(),
                expected: Some(expected_tip),
                actual,
            });
        }
        let signature = |who: &Identity, at: Timestamp| {
            git2::Signature::new(&who.name, &who.email, &at.to_git())
                .map_err(|e| ArchiveError::git("make signature", e))
        };
        let author = signature(names.author, names.author_time)?;
        let committer = signature(names.committer, names.time)?;
        let parent = self.find_commit(expected_tip)?;
        let base = self.tree_of(&parent)?;
        let mut update = git2::build::TreeUpdateBuilder::new();
        for (from, to) in moves {
            let Some(blob) = self.blob_at(&base, from)? else {
                return Err(ArchiveError::InvalidPath {
                    path: from.clone(),
                    reason: "is not in the archive",
                });
            };
            if self.repo.workdir().is_some() {
                self.check_working_copy(from, &[Some(blob)])?;
                self.check_working_copy(to, &[Some(blob)])?;
            }
            update.remove(from.as_str());
            update.upsert(to.as_str(), blob, git2::FileMode::Blob);
        }
        let blob = self.repo.blob(write.1).map_err(|e| ArchiveError::git_path("write blob", write.0, e))?;
        update.upsert(write.0, blob, git2::FileMode::Blob);
        let tree =
            update.create_updated(&self.repo, &base).map_err(|e| ArchiveError::git("write tree", e))?;
        let tree = self.repo.find_tree(tree).map_err(|e| ArchiveError::git_oid("read tree", tree, e))?;
        let message = capped_message(message);
        let commit =
            self.write_commit((&author, &committer), &message, &tree, &[&parent], None, |op, e| {
                ArchiveError::git_path(op, write.0, e)
            })?;
        let summary = message.lines().next().unwrap_or_default().to_string();
        let _hold = HoldSignals::new();
        self.swap_branch(&refname, commit, Some(expected_tip), write.0, &format!("ravenpost: {summary}"))?;
        let id = CommitId(commit);
        if self.repo.workdir().is_some() {
            // Each moved file was checked to hold no edit: only those paths are forced.
            let mut checkout = git2::build::CheckoutBuilder::new();
            checkout.force();
            for (from, to) in moves {
                checkout.path(from).path(to);
            }
            checkout.path(write.0);
            self.repo.checkout_head(Some(&mut checkout)).map_err(|e| ArchiveError::WorkingCopyUpdate {
                path: write.0.to_string(),
                commit: id,
                message: e.message().to_string(),
            })?;
        }
        drop(_hold);
        Ok(id)
    }

    /// Commits `contents` as the file at `path`, as [`Archive::commit`] does, by
    /// [`Archive::identity`]`(author)` as author and committer at `time`.
    ///
    /// # Errors
    ///
    /// As [`Archive::commit`]; [`ArchiveError::MissingIdentity`] without an identity.
    pub fn commit_file(
        &self,
        path: &str,
        contents: impl AsRef<[u8]>,
        expected_tip: Option<CommitId>,
        author: Option<&Identity>,
        time: Timestamp,
        message: &str,
    ) -> Result<CommitId, ArchiveError> {
        let who = self.identity(author)?;
        let change =
            Change::new(CommitNames::by(&who, time), expected_tip, message).write(path, contents.as_ref());
        self.commit(&change)
    }

    /// As [`Archive::commit_file`], for a new file: refuses with
    /// [`ArchiveError::AlreadyExists`] if `path` exists at `expected_tip`.
    ///
    /// # Errors
    ///
    /// As [`Archive::commit_file`], and [`ArchiveError::AlreadyExists`].
    pub fn create_file(
        &self,
        path: &str,
        contents: impl AsRef<[u8]>,
        expected_tip: Option<CommitId>,
        author: Option<&Identity>,
        time: Timestamp,
        message: &str,
    ) -> Result<CommitId, ArchiveError> {
        let who = self.identity(author)?;
        let change =
            Change::new(CommitNames::by(&who, time), expected_tip, message).create(path, contents.as_ref());
        self.commit(&change)
    }

    /// Commits new settings as `ravenpost.yaml`, as [`Archive::commit_file`] does.
    ///
    /// # Errors
    ///
    /// As [`Archive::commit_file`].
    pub fn write_config(
        &self,
        config: &ArchiveConfig,
        expected_tip: Option<CommitId>,
        author: Option<&Identity>,
        time: Timestamp,
        message: &str,
    ) -> Result<CommitId, ArchiveError> {
        let text = config.to_yaml();
        ArchiveConfig::from_yaml(&text)?;
        self.commit_file(ArchiveConfig::PATH, text, expected_tip, author, time, message)
    }

    /// `Moved` if the branch is no longer at `expected`; otherwise `err`. Used before
    /// reporting a refusal, so that a caller with a stale view hears about that first.
    fn moved_or(
        &self,
        refname: &str,
        path: &str,
        expected: Option<CommitId>,
        err: ArchiveError,
    ) -> ArchiveError {
        match self.ref_target(refname) {
            Ok(actual) if actual.map(CommitId) != expected => {
                ArchiveError::Moved { path: path.to_string(), expected, actual: actual.map(CommitId) }
            }
            _ => err,
        }
    }

    /// Writes the tree `base` with the blob at `parts`, and returns it.
    fn insert_blob(
        &self,
        base: Option<&git2::Tree<'_>>,
        parts: &[&str],
        blob: Oid,
        path: &str,
    ) -> Result<Oid, ArchiveError> {
        let git = |e| ArchiveError::git_path("write tree", path, e);
        let mut builder = self.repo.treebuilder(base).map_err(git)?;
        let (first, rest) = parts.split_first().expect("check_path gives at least one part");
        let existing = base.and_then(|t| t.get_name(first));
        let existing_kind = existing.as_ref().and_then(|e| e.kind());
        if rest.is_empty() {
            if existing_kind == Some(ObjectType::Tree) {
                return Err(ArchiveError::InvalidPath {
                    path: path.to_string(),
                    reason: "is a folder in the archive",
                });
            }
            builder.insert(first, blob, MODE_BLOB).map_err(git)?;
        } else {
            let sub = match (existing, existing_kind) {
                (Some(e), Some(ObjectType::Tree)) => Some(
                    self.repo
                        .find_tree(e.id())
                        .map_err(|err| ArchiveError::git_oid("read tree", e.id(), err))?,
                ),
                (Some(_), _) => {
                    return Err(ArchiveError::InvalidPath {
                        path: path.to_string(),
                        reason: "a folder on the path is a file in the archive",
                    });
                }
                (None, _) => None,
            };
            let sub = self.insert_blob(sub.as_ref(), rest, blob, path)?;
            builder.insert(first, sub, MODE_TREE).map_err(git)?;
        }
        builder.write().map_err(git)
    }

    /// Moves `refname` from `expected` to `new`, or fails with `Moved`.
    fn swap_branch(
        &self,
        refname: &str,
        new: Oid,
        expected: Option<CommitId>,
        path: &str,
        reflog: &str,
    ) -> Result<(), ArchiveError> {
        let mut pause = Duration::from_millis(1);
        let mut attempts = 0;
        loop {
            let result = match expected {
                Some(old) => self.repo.reference_matching(refname, new, true, old.0, reflog),
                None => self.repo.reference(refname, new, false, reflog),
            };
            let err = match result {
                Ok(_) => return Ok(()),
                Err(e) => e,
            };
            // Another process is mid-update of the ref: wait for it to finish, then compare.
            if err.code() == ErrorCode::Locked && attempts < 500 {
                attempts += 1;
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
                continue;
            }
            let actual = self.ref_target(refname)?.map(CommitId);
            if actual != expected {
                return Err(ArchiveError::Moved { path: path.to_string(), expected, actual });
            }
            if err.code() == ErrorCode::Locked {
                let path = self.repo.commondir().join(format!("{refname}.lock"));
                return Err(ArchiveError::RefLocked { path });
            }
            return Err(ArchiveError::Git {
                op: "update branch",
                path: Some(refname.to_string()),
                oid: Some(new.to_string()),
                message: err.message().to_string(),
            });
        }
    }

    /// Refuses to overwrite a working-tree file unless it is one of `ours` (the blob being
    /// written, the one at the expected tip, or the one before it: a working copy left
    /// behind by a crash between commit and update).
    fn check_working_copy(&self, path: &str, ours: &[Option<Oid>]) -> Result<(), ArchiveError> {
        let Some(workdir) = self.repo.workdir() else { return Ok(()) };
        // The index must be writable after the commit: wait a little for a git command
        // holding its lock, then refuse before anything is written.
        let index_lock = self.repo.path().join("index.lock");
        let mut pause = Duration::from_millis(1);
        let mut waited = Duration::ZERO;
        while index_lock.exists() {
            if waited >= Duration::from_secs(4) {
                return Err(ArchiveError::GitBusy { path: index_lock });
            }
            std::thread::sleep(pause);
            waited += pause;
            pause = (pause * 2).min(Duration::from_millis(20));
        }
        let file = workdir.join(path);
        if let Some(what) = not_a_regular_file(&file) {
            return Err(ArchiveError::NotARegularFile { path: path.to_string(), what });
        }
        let bytes = match fs::read(&file) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => {
                return Err(ArchiveError::InvalidPath {
                    path: path.to_string(),
                    reason: "is a folder in the working tree",
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(ArchiveError::InvalidPath {
                    path: path.to_string(),
                    reason: "a folder on the path is a file in the working tree",
                });
            }
            Err(e) => return Err(ArchiveError::io("read", file, e)),
        };
        if ours.contains(&Some(self.working_blob(path, &bytes)?)) {
            Ok(())
        } else {
            Err(ArchiveError::DirtyWorkingCopy { path: path.to_string() })
        }
    }

    /// The blob `git add` would make of the working-tree file `path` holding `bytes`: the
    /// bytes as they are, or, when they hold a carriage return, as git's filters
    /// (`core.autocrlf`, `.gitattributes`) clean them on the way in.
    fn working_blob(&self, path: &str, bytes: &[u8]) -> Result<Oid, ArchiveError> {
        let raw =
            Oid::hash_object(ObjectType::Blob, bytes).map_err(|e| ArchiveError::git_path("hash", path, e))?;
        if !bytes.contains(&b'\r') || self.repo.find_blob(raw).is_ok() {
            return Ok(raw);
        }
        // libgit2 applies the filters only on the way into the object database: the
        // object written is the one the index would hold (an unreferenced one is garbage
        // for `git gc`, as any `git add` of an edit that is then undone).
        let git = |e| ArchiveError::git_path("hash the working copy", path, e);
        let mut writer = self.repo.blob_writer(Some(Path::new(path))).map_err(git)?;
        writer.write_all(bytes).map_err(|e| ArchiveError::io("hash the working copy", path, e))?;
        writer.commit().map_err(git)
    }

    /// Brings the working-tree file at `path` and its index entry to the branch tip's
    /// version (`contents` if the tip is still our `commit`): a temporary file renamed into
    /// place, then the index entry. Called under the lock file.
    fn sync_working_copy(
        &self,
        refname: &str,
        path: &str,
        commit: Oid,
        contents: &[u8],
        before_index: &dyn Fn(),
    ) -> Result<(), String> {
        let Some(workdir) = self.repo.workdir() else { return Ok(()) };
        let tip = self.ref_target(refname).map_err(|e| e.to_string())?;
        let newer;
        let contents = match tip {
            Some(tip) if tip != commit => {
                let found = self.read_bytes_at(CommitId(tip), path).map_err(|e| e.to_string())?;
                match found {
                    Some(bytes) => {
                        newer = bytes;
                        &newer[..]
                    }
                    None => return Ok(()),
                }
            }
            _ => contents,
        };
        let file = workdir.join(path);
        let dir = file.parent().expect("a file in the working tree has a parent");
        fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        let name = file.file_name().expect("check_path refuses empty parts").to_string_lossy();
        let (tmp, created) = self.temporary_file(dir, &name);
        let written = created.and_then(|mut f| f.write_all(contents)).and_then(|()| fs::rename(&tmp, &file));
        if let Err(e) = written {
            let _ = fs::remove_file(&tmp);
            return Err(format!("write {}: {e}", file.display()));
        }
        before_index();
        self.update_index_entry(path)
    }

    /// A new temporary file beside `name` in `dir`, named by the process and this value's
    /// count (`.NAME.ravenpost-PID-N.tmp`), created only if no file has that name: another
    /// archive value of the process, or a leftover, takes the next number.
    fn temporary_file(
        &self,
        dir: &std::path::Path,
        name: &str,
    ) -> (std::path::PathBuf, std::io::Result<fs::File>) {
        loop {
            let n = self.next_temporary.get();
            self.next_temporary.set(n + 1);
            let tmp = dir.join(format!(".{name}.ravenpost-{}-{n}.tmp", std::process::id()));
            match fs::OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1_000 => {}
                created => return (tmp, created),
            }
        }
    }

    /// The index entry of `path` made from the working-tree file (git's filters apply),
    /// waiting a little for a git command that holds the index lock: by git itself when
    /// the index is large ([`GIT_UPDATES_INDEX_FROM`]) and git runs, else by libgit2.
    fn update_index_entry(&self, path: &str) -> Result<(), String> {
        let large =
            fs::metadata(self.repo.path().join("index")).is_ok_and(|m| m.len() >= GIT_UPDATES_INDEX_FROM);
        if large && self.update_index_entry_by_git(path) {
            return Ok(());
        }
        let mut index = self.repo.index().map_err(|e| format!("open index: {}", e.message()))?;
        // Read again only if the file changed since libgit2 loaded it (by its stamp).
        index.read(false).map_err(|e| format!("read index: {}", e.message()))?;
        index.add_path(Path::new(path)).map_err(|e| format!("update index entry: {}", e.message()))?;
        // `git status` and other git commands take the index lock for a moment: retry.
        let mut pause = Duration::from_millis(1);
        for attempt in 0.. {
            match index.write() {
                Ok(()) => break,
                Err(e) if e.code() == ErrorCode::Locked && attempt < 200 => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                Err(e) => return Err(format!("write index: {}", e.message())),
            }
        }
        Ok(())
    }
}

/// An index file at least this large (some 5,000 entries) is updated by `git
/// update-index`: libgit2 reads, checks and writes the whole file four times slower than
/// git (40 ms against 10 ms at 30,000 entries, 2.8 MB), and git's start (a few ms) is
/// repaid only on a large one.
const GIT_UPDATES_INDEX_FROM: u64 = 512 * 1024;

impl Archive {
    /// `git update-index --add -- PATH` in this repository, retried while another git
    /// holds the index lock; false when git cannot run or refuses (libgit2 then does it).
    fn update_index_entry_by_git(&self, path: &str) -> bool {
        let Some(workdir) = self.repo.workdir() else { return false };
        let mut pause = Duration::from_millis(1);
        for attempt in 0.. {
            let out = std::process::Command::new("git")
                // The index of this repository, whatever the environment names.
                .env_remove("GIT_INDEX_FILE")
                .env_remove("GIT_OBJECT_DIRECTORY")
                .arg("--git-dir")
                .arg(self.repo.path())
                .arg("--work-tree")
                .arg(workdir)
                .args(["update-index", "--add", "--"])
                .arg(path)
                .stdin(std::process::Stdio::null())
                .output();
            match out {
                Ok(o) if o.status.success() => return true,
                Ok(o) if attempt < 200 && String::from_utf8_lossy(&o.stderr).contains("index.lock") => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(20));
                }
                _ => return false,
            }
        }
        false
    }
}

/// What the working-tree entry at `file` is when it is neither missing nor a regular
/// file: `"symbolic link"`, `"folder"` or `"special file"`.
pub(crate) fn not_a_regular_file(file: &Path) -> Option<&'static str> {
    let meta = fs::symlink_metadata(file).ok()?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        Some("symbolic link")
    } else if kind.is_dir() {
        // A folder where a file belongs has its own message (`InvalidPath`).
        None
    } else if kind.is_file() {
        None
    } else {
        Some("special file")
    }
}

/// The test-only pause of the crash tests: when `RAVENPOST_TEST_PAUSE_AT` names `step`,
/// the write stops there for `RAVENPOST_TEST_PAUSE_MS` milliseconds (default 60 000), so
/// that a test can interrupt it at that exact point (the lock file's journal says which
/// step it is at). Steps, in order: `objects` (commit made, branch not yet moved), `ref`
/// (about to move the branch), `worktree` (branch moved, about to write the working-tree
/// file), `index` (file written, about to write the index entry), `done` (all written,
/// lock still held). Not for use outside tests.
fn test_pause(step: &str) {
    if std::env::var_os("RAVENPOST_TEST_PAUSE_AT").is_some_and(|s| s == step) {
        let ms = std::env::var("RAVENPOST_TEST_PAUSE_MS").ok().and_then(|s| s.parse().ok()).unwrap_or(60_000);
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// While one lives (in any thread), SIGINT, SIGTERM and SIGHUP are held back: one that
/// arrives is acted on (its default action: the process ends) when the last one goes.
/// Outside, they act at once as usual.
pub(crate) struct HoldSignals(());

#[cfg(unix)]
mod hold {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex, OnceLock};

    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

    pub(super) struct State {
        /// Whether a signal acts at once (no holder).
        pub act: Arc<AtomicBool>,
        /// A signal that arrived while held, per signal.
        pub pending: Vec<(i32, Arc<AtomicBool>)>,
        /// How many holders live.
        pub holders: Mutex<usize>,
    }

    pub(super) fn state() -> Option<&'static State> {
        static STATE: OnceLock<Option<State>> = OnceLock::new();
        STATE
            .get_or_init(|| {
                let act = Arc::new(AtomicBool::new(true));
                let mut pending = Vec::new();
                for sig in [SIGINT, SIGTERM, SIGHUP] {
                    let flag = Arc::new(AtomicBool::new(false));
                    signal_hook::flag::register(sig, Arc::clone(&flag)).ok()?;
                    signal_hook::flag::register_conditional_default(sig, Arc::clone(&act)).ok()?;
                    pending.push((sig, flag));
                }
                Some(State { act, pending, holders: Mutex::new(0) })
            })
            .as_ref()
    }

    pub(super) fn enter() {
        let Some(s) = state() else { return };
        let mut n = s.holders.lock().unwrap_or_else(|e| e.into_inner());
        if *n == 0 {
            for (_, flag) in &s.pending {
                flag.store(false, Ordering::SeqCst);
            }
            s.act.store(false, Ordering::SeqCst);
        }
        *n += 1;
    }

    pub(super) fn take_arrived() -> bool {
        let Some(s) = state() else { return false };
        let mut any = false;
        for (_, flag) in &s.pending {
            any |= flag.swap(false, Ordering::SeqCst);
        }
        any
    }

    pub(super) fn leave() {
        let Some(s) = state() else { return };
        let mut n = s.holders.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        if *n == 0 {
            s.act.store(true, Ordering::SeqCst);
            for (sig, flag) in &s.pending {
                if flag.swap(false, Ordering::SeqCst) {
                    let _ = signal_hook::low_level::emulate_default_handler(*sig);
                }
            }
        }
    }
}

impl HoldSignals {
    pub(crate) fn new() -> HoldSignals {
        #[cfg(unix)]
        hold::enter();
        HoldSignals(())
    }

    /// Whether a held signal (Ctrl-C, say) has arrived since the last call; it is taken,
    /// so that it does not act when the last holder goes: for a loop that holds signals
    /// throughout and stops cleanly when one arrives (`sync --watch`).
    #[cfg(unix)]
    pub(crate) fn take_arrived(&self) -> bool {
        hold::take_arrived()
    }

    /// As on unix: no signal is held elsewhere.
    #[cfg(not(unix))]
    pub(crate) fn take_arrived(&self) -> bool {
        false
    }
}

impl Drop for HoldSignals {
    fn drop(&mut self) {
        #[cfg(unix)]
        hold::leave();
    }
}

impl Archive {
    /// Notes the step a write is about to take in the lock file's journal (when this
    /// archive holds the lock file).
    fn note(&self, journal: &Journal) {
        if let Some(lock) = self.lock_file.borrow().as_ref() {
            lock.note(journal);
        }
    }

    /// Leaves the lock file's journal behind when the lock goes, so that the next
    /// command finishes the write (a working copy that could not be updated).
    fn keep_journal(&self) {
        if let Some(lock) = self.lock_file.borrow_mut().as_mut() {
            lock.keep();
        }
    }

    /// Finishes or undoes what a writer that died while holding the lock left half done,
    /// from the last step its journal names:
    ///
    /// - `ref`: it was moving the branch; the ref's lock file (`refs/heads/<b>.lock`) is
    ///   its own and is removed. Whether the branch moved or not, both are consistent.
    /// - `index`: it was writing the index; `index.lock` is its own and is removed.
    /// - `ref` to `index`: when the branch holds its commit, the working-tree file (if it
    ///   is one of the versions the writer knew, not someone's edit) and its index entry
    ///   are brought to the branch's version; its temporary file is removed.
    ///
    /// Called with the lock held.
    pub(crate) fn recover(&self, journal: &Journal) -> Result<(), ArchiveError> {
        let step = journal.step.as_str();
        if !["ref", "worktree", "index"].contains(&step) {
            return Ok(());
        }
        if step == "ref" {
            let ref_lock = self.repo.commondir().join(format!("{}.lock", journal.refname));
            remove_if_there(&ref_lock)?;
        }
        if step == "index" {
            remove_if_there(&self.repo.path().join("index.lock"))?;
        }
        if self.repo.workdir().is_none() {
            return Ok(());
        }
        let (Ok(new), Some(tip)) = (journal.new.parse::<Oid>(), self.ref_target(&journal.refname)?) else {
            return self.remove_temporary_files(&journal.path);
        };
        if tip != new {
            // Not committed (or moved on since): the working copy was not touched.
            return self.remove_temporary_files(&journal.path);
        }
        // Every file the commit wrote: the journal's, and those written with it (a
        // tournament's games, `init`'s `.gitattributes`).
        let expected = journal.expected.parse::<Oid>().ok();
        let mut paths = vec![journal.path.clone()];
        for p in self.paths_written(expected, new)? {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
        for path in &paths {
            self.remove_temporary_files(path)?;
            self.recover_path(journal, path, expected, new)?;
        }
        Ok(())
    }

    /// The paths of the files commit `new` adds or changes against `expected` (its
    /// parent; `None`: every file of `new`).
    fn paths_written(&self, expected: Option<Oid>, new: Oid) -> Result<Vec<String>, ArchiveError> {
        let tree = |c: Oid| -> Result<git2::Tree<'_>, ArchiveError> {
            self.tree_of(&self.find_commit(CommitId(c))?)
        };
        let old = expected.map(tree).transpose()?;
        let new_tree = tree(new)?;
        let changes = super::treediff::tree_changes(&self.repo, old.as_ref(), Some(&new_tree))
            .map_err(|e| ArchiveError::git_oid("diff commit", new, e))?;
        Ok(changes.into_iter().filter(|c| c.blob.is_some()).map(|c| c.path.to_string()).collect())
    }

    /// Removes the temporary files a write of `path` in the working tree may have left.
    fn remove_temporary_files(&self, path: &str) -> Result<(), ArchiveError> {
        let Some(workdir) = self.repo.workdir() else { return Ok(()) };
        if check_path(path).is_err() {
            return Ok(());
        }
        let file = workdir.join(path);
        if let (Some(dir), Some(name)) = (file.parent(), file.file_name()) {
            let prefix = format!(".{}.ravenpost-", name.to_string_lossy());
            if let Ok(entries) = fs::read_dir(dir) {
                for e in entries.flatten() {
                    let n = e.file_name().to_string_lossy().into_owned();
                    if n.starts_with(&prefix) && n.ends_with(".tmp") {
                        let _ = fs::remove_file(e.path());
                    }
                }
            }
        }
        Ok(())
    }

    /// Brings the working-tree file `path` and its index entry to commit `new`'s version,
    /// when the file is one of the versions the writer knew (`expected`'s or `new`'s, or
    /// missing), not someone's edit.
    fn recover_path(
        &self,
        journal: &Journal,
        path: &str,
        expected: Option<Oid>,
        new: Oid,
    ) -> Result<(), ArchiveError> {
        let Some(workdir) = self.repo.workdir() else { return Ok(()) };
        if check_path(path).is_err() {
            return Ok(());
        }
        let file = workdir.join(path);
        let blob_in = |c: Oid| -> Result<Option<Oid>, ArchiveError> {
            let commit = self.find_commit(CommitId(c))?;
            self.blob_at(&self.tree_of(&commit)?, path)
        };
        let new_blob = blob_in(new)?;
        let old_blob = match expected {
            Some(e) => blob_in(e)?,
            None => None,
        };
        let Some(new_blob) = new_blob else { return Ok(()) };
        let on_disk = match fs::read(&file) {
            Ok(bytes) if not_a_regular_file(&file).is_none() => Some(self.working_blob(path, &bytes)?),
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(ArchiveError::io("read", file, e)),
        };
        if on_disk.is_some() && on_disk != Some(new_blob) && on_disk != old_blob {
            // Someone's own edit: leave it (the next write refuses with the reason).
            return Ok(());
        }
        let contents = self.blob_bytes(new_blob, path)?;
        let fail = |message: String| ArchiveError::WorkingCopyUpdate {
            path: path.to_string(),
            commit: CommitId(new),
            message,
        };
        // The recovery takes git's index.lock as the write it finishes did: journaled as
        // that write's `index` step, so that a recovery killed while it holds the lock
        // leaves the next one the step that removes it.
        let index_step = Journal { step: "index".to_string(), path: path.to_string(), ..journal.clone() };
        if on_disk != Some(new_blob) {
            let note = || {
                self.note(&index_step);
                test_pause("recovery-index");
            };
            self.sync_working_copy(&journal.refname, path, new, &contents, &note).map_err(fail)?;
        } else {
            self.note(&index_step);
            test_pause("recovery-index");
            self.update_index_entry(path).map_err(fail)?;
        }
        Ok(())
    }
}

fn remove_if_there(path: &Path) -> Result<(), ArchiveError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(ArchiveError::io("remove the lock file of an interrupted write", path, e)),
    }
}

impl Archive {
    /// Writes a commit object (not moving any ref), signed by `signer` when given (an SSH
    /// signature in the `gpgsig` header, as `git commit -S` with `gpg.format=ssh` makes).
    /// `git_error` gives libgit2's failures their context.
    pub(crate) fn write_commit(
        &self,
        (author, committer): (&git2::Signature<'_>, &git2::Signature<'_>),
        message: &str,
        tree: &git2::Tree<'_>,
        parents: &[&git2::Commit<'_>],
        signer: Option<&SshSigner>,
        git_error: impl Fn(&'static str, git2::Error) -> ArchiveError,
    ) -> Result<Oid, ArchiveError> {
        let Some(signer) = signer else {
            return self
                .repo
                .commit(None, author, committer, message, tree, parents)
                .map_err(|e| git_error("write commit", e));
        };
        let buf = self
            .repo
            .commit_create_buffer(author, committer, message, tree, parents)
            .map_err(|e| git_error("write commit", e))?;
        let text = buf
            .as_str()
            .map_err(|_| ArchiveError::Signing { message: "the commit text is not UTF-8".to_string() })?;
        let signature = signer.sign(text.as_bytes())?;
        self.repo.commit_signed(text, &signature, None).map_err(|e| git_error("write signed commit", e))
    }
}

/// The longest commit subject ravenpost writes, in characters (git's and the forges'
/// customary limit).
pub const SUBJECT_LIMIT: usize = 72;

/// `message` with its first line (the subject) at most [`SUBJECT_LIMIT`] characters: a
/// longer one is cut at the last space that keeps it within the limit with `…`, and the
/// whole line opens the body, so nothing is lost. Ends with a line break.
pub fn capped_message(message: &str) -> String {
    let (subject, body) = match message.split_once('\n') {
        Some((s, b)) => (s, Some(b)),
        None => (message, None),
    };
    let mut out = if subject.chars().count() <= SUBJECT_LIMIT {
        message.to_string()
    } else {
        let room: usize = subject.char_indices().nth(SUBJECT_LIMIT - 1).map_or(subject.len(), |(i, _)| i);
        let head = &subject[..room];
        let cut = head.rfind(' ').filter(|&i| i > 0).map_or(head, |i| &head[..i]);
        let mut out = format!("{}…\n\n{subject}\n", cut.trim_end());
        if let Some(b) = body {
            out.push_str(b.trim_start_matches('\n'));
        }
        out
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod subject_tests {
    use super::*;

    #[test]
    fn long_subjects_are_cut_at_a_word_and_kept_whole_in_the_body() {
        assert_eq!(capped_message("g: ply 3 2e3"), "g: ply 3 2e3\n");
        let long = format!("g: new gygax game, {} v Bo", "Zoë Ünal-Longname ".repeat(5).trim_end());
        assert!(long.chars().count() > 72);
        let m = capped_message(&long);
        let (subject, rest) = m.split_once('\n').unwrap();
        assert!(subject.chars().count() <= 72, "{subject}");
        assert!(subject.ends_with('…'));
        assert_eq!(subject, "g: new gygax game, Zoë Ünal-Longname Zoë Ünal-Longname Zoë…");
        assert_eq!(rest, format!("\n{long}\n"));
        let with_body = capped_message(&format!("{long}\n\nmore"));
        assert!(with_body.ends_with(&format!("\n\n{long}\nmore\n")), "{with_body}");
        // 72 characters exactly stay as they are.
        let exact = "x".repeat(72);
        assert_eq!(capped_message(&exact), format!("{exact}\n"));
        // No space to cut at: cut at the limit.
        let m = capped_message(&"y".repeat(100));
        assert_eq!(m.lines().next().unwrap().chars().count(), 72);
    }
}

#[cfg(test)]
mod index_tests {
    use super::*;

    /// The entry git writes for a changed game file is the one libgit2 would write: the
    /// committed blob, and `git status` finds the working tree clean.
    #[test]
    fn git_updates_an_index_entry_as_libgit2_does() {
        let dir = tempfile::tempdir().unwrap();
        let ann = Identity::new("Ann Example", "ann@example.com");
        let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(dir.path())
                .args(args)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", dir.path())
                .output()
                .expect("git must be installed to run this test");
            assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        for (name, text) in [("a.txt", "one\n"), ("new/b.txt", "two\n")] {
            std::fs::create_dir_all(dir.path().join(name).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(name), text).unwrap();
            assert!(archive.update_index_entry_by_git(name), "{name}");
            let blob = Oid::hash_object(ObjectType::Blob, text.as_bytes()).unwrap();
            let staged = git(&["ls-files", "--stage", "--", name]);
            assert!(staged.starts_with(&format!("100644 {blob} 0\t{name}")), "{staged}");
        }
        git(&["-c", "user.name=Ann", "-c", "user.email=ann@example.com", "commit", "-q", "-m", "files"]);
        assert_eq!(git(&["status", "--porcelain"]), "");
    }
}

#[cfg(test)]
mod temporary_tests {
    use super::*;

    /// Regression (the temporary names came from a counter global to the process): each
    /// archive value counts its own, so one finds names another value of the process
    /// (or a leftover) took; it takes the next free name and never writes into another's.
    #[test]
    fn a_temporary_name_taken_by_another_writer_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let ann = Identity::new("Ann Example", "ann@example.com");
        let first = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let name = |n: u64| dir.path().join(format!(".g.pgn.ravenpost-{}-{n}.tmp", std::process::id()));
        fs::write(name(0), "left over").unwrap();
        let (a, made) = first.reopen().unwrap().temporary_file(dir.path(), "g.pgn");
        made.unwrap().write_all(b"first").unwrap();
        assert_eq!(a, name(1));
        let (b, made) = first.reopen().unwrap().temporary_file(dir.path(), "g.pgn");
        made.unwrap().write_all(b"second").unwrap();
        assert_eq!(b, name(2));
        assert_eq!(fs::read(name(0)).unwrap(), b"left over");
        assert_eq!(fs::read(&a).unwrap(), b"first");
    }
}
