//! The history index: the branch's first-parent line walked once, kept in a cache file.
//!
//! Every question about an archive's past (a game's versions, the commits a push adds, the
//! whole archive's log) is a question about the first-parent line of one commit. Walking
//! that line in git costs a commit read and a tree diff per commit; on an archive of
//! 26,000 moves that is seconds per walk, and minutes when it is done once per game. A
//! [`HistoryIndex`] is that walk done once: for every commit of the line (oldest first)
//! its id, first parent, author name, email and time, message, and every path it added,
//! changed or deleted relative to its first parent with the new blob id (or the deletion).
//! File contents are not in it; [`Archive::read_blob_text`] reads a blob on demand.
//!
//! **The cache.** [`Archive::index`] keeps the index of the branch tip in
//! `<common git dir>/ravenpost/index-v2` (never committed, never pushed): a sequence of
//! blocks, each a run of commits continuing the one before, with its own checksum. New
//! commits on the branch become one more block appended to the file in place, when the
//! file is still as long as when it was read (no commit is decoded or encoded again, and
//! the file is not copied); anything else (a reset, another history, more than
//! [`MAX_BLOCKS`] blocks, a file changed meanwhile) writes the whole line as one block, in
//! a new file beside the old one renamed into place. A reader takes the blocks up to the
//! first that is cut short (half-appended, or torn by a crash), fails its checksum or does
//! not continue the line (two processes appending the same commits): what it keeps is
//! still the first-parent line of the last commit kept, only shorter, and the file is
//! written again.
//!
//! **What a reader decodes.** Loading checks every block's checksum and reads each line's
//! commit id and parent (the line must continue); each block ends with a table of
//! versions, the lines that change each of its paths. Nothing else is decoded until asked
//! for: a game's versions ([`HistoryIndex::versions`]) decode the lines its table names,
//! its last version ([`HistoryIndex::last_version`], what `status` needs of each game)
//! the newest of them, a commit's author and message ([`HistoryIndex::commit_at`]) its own
//! line. So `status`, and `log` or `verify` of one game, cost what the games asked about
//! cost, plus one read of the file. A block written before the tables of versions (by
//! ravenpost 0.2.0) is read from its lines, each checked in full as then.
//!
//! A commit id is the hash of
//! the commit, which names its parent, which names its own parent, and so on: the first
//! parent line ending at a commit, and what each of its commits changed, can never change
//! while the id stays the same. So the cache can only be *incomplete*, never wrong:
//!
//! - when the branch tip descends from a commit of the cached line (the usual case: new
//!   moves; also a `git reset` followed by new commits), the cached line up to that commit
//!   is kept and only the commits after it are walked, then the cache is rewritten;
//! - when the tip is on the cached line (a reset), the cached line is cut there;
//! - otherwise (another history), and when the file is missing, truncated, fails its
//!   checksum or does not parse, the line is walked from scratch, silently;
//! - a cache whose history was cut by a shallow clone is dropped as soon as the missing
//!   parent is present (after `git fetch --deepen`), so the cut never outlives its cause.
//!
//! A cache that cannot be written (a read-only repository) is simply not written.
//!
//! **Shallow clones.** The walk stops at a commit whose first parent is not in the
//! repository; that commit's changes are taken against an empty tree (as `git log` shows
//! a shallow boundary) and [`HistoryIndex::shallow`] names it, so that callers can say
//! that the history is cut there instead of failing.

use std::collections::HashMap;
use std::fs;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use git2::{ErrorCode, Oid};

use super::{Archive, ArchiveError, BlobId, CommitId, Timestamp, commit_meta};

/// The cache file's name in [`Archive::secrets_dir`].
pub(crate) const INDEX_FILE: &str = "index-v2";

/// The file earlier releases wrote (removed when the new one is written).
const OLD_INDEX_FILE: &str = "index-v1";

/// The first line of each block of a cache file.
const MAGIC: &str = "ravenpost history index v2";

/// A cache file with more blocks than this is rewritten as one block.
pub const MAX_BLOCKS: usize = 64;

/// Appends `block` to the cache file at `path` in place, if the file is still `len` bytes
/// long (as read). A reader that catches the block half-written, or finds it torn by a
/// crash, takes the blocks before it and writes the file again.
fn append_block(path: &std::path::Path, len: u64, block: &[u8]) -> std::io::Result<()> {
    let mut file = fs::OpenOptions::new().append(true).open(path)?;
    if file.metadata()?.len() != len {
        return Err(std::io::Error::other("the cache file changed since it was read"));
    }
    file.write_all(block)
}

/// A hasher for object ids, which are already uniformly distributed (SHA-1 or SHA-256):
/// their first eight bytes are the hash.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut word = [0u8; 8];
        let n = bytes.len().min(8);
        word[..n].copy_from_slice(&bytes[..n]);
        self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_usize(&mut self, _length: usize) {
        // The length prefix of the id's byte array: the same for every id.
    }
}

#[cfg(test)]
thread_local! {
    /// Tests: walk with libgit2 even when the walk is long.
    static WALK_WITH_LIBGIT2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests: how many walks took their changes from git's log.
    static WALKS_THROUGH_GIT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
fn tests_walk_with_libgit2() -> bool {
    WALK_WITH_LIBGIT2.with(std::cell::Cell::get)
}

#[cfg(not(test))]
fn tests_walk_with_libgit2() -> bool {
    false
}

/// Maps keyed by object ids.
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A file a commit added, changed or deleted, as the index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedChange {
    /// The path in the archive (lossy UTF-8: files added by hand may have any name).
    /// Shared by every change of the same path.
    pub path: Arc<str>,
    /// The blob the commit left there; `None` if it deleted the file.
    pub blob: Option<BlobId>,
    /// The git mode of the entry the commit left (`0o100644` a file, `0o100755` an
    /// executable one, `0o120000` a symbolic link, `0o160000` a submodule; 0 if deleted).
    pub mode: u32,
}

/// One commit of a first-parent line, with what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedCommit {
    /// The commit.
    pub commit: CommitId,
    /// Its first parent (`None` for a root commit). At a shallow boundary
    /// ([`HistoryIndex::shallow`]) the parent is named but not in the repository.
    pub parent: Option<CommitId>,
    /// The author's name (lossy UTF-8; shared by the author's commits).
    pub author_name: Arc<str>,
    /// The author's email address (lossy UTF-8; shared by the author's commits).
    pub author_email: Arc<str>,
    /// When the author made the commit.
    pub time: Timestamp,
    /// The commit message without its final line break (lossy UTF-8).
    pub message: String,
    /// The files it added, changed or deleted relative to its first parent, sorted by
    /// path (a file whose mode alone changed is listed with its unchanged blob).
    pub changes: Vec<IndexedChange>,
}

/// One version of a path: a commit that changed its contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathVersion {
    /// The commit's position in [`HistoryIndex::commits`].
    pub position: usize,
    /// The commit.
    pub commit: CommitId,
    /// The blob the commit left at the path; `None` if it deleted the file.
    pub blob: Option<BlobId>,
    /// The git mode of the entry it left (see [`IndexedChange::mode`]).
    pub mode: u32,
}

/// The first-parent line ending at one commit, with every commit's changes; see the
/// [module docs](self).
///
/// An index read from the cache file keeps the file's bytes and decodes what is asked for
/// when it is asked for: a commit's author, time, message and changes
/// ([`HistoryIndex::commit_at`]), a path's versions ([`HistoryIndex::versions`], from the
/// lines that its block's table of versions names), where a commit is
/// ([`HistoryIndex::position`]). Loading reads the commit ids, the line's continuity and
/// each block's tables, so that a question about one game costs what that game's
/// history costs, not what the archive's does.
#[derive(Debug, Clone, Default)]
pub struct HistoryIndex {
    entries: Vec<Entry>,
    /// Where each commit is: made on first use.
    positions: std::sync::OnceLock<IdMap<CommitId, usize>>,
    /// Every path any commit of the line touched, with where its versions are.
    paths: HashMap<Arc<str>, PathSlot>,
    shallow: Option<CommitId>,
    /// The cache file the stored entries are read from, and its blocks' tables.
    file: Arc<String>,
    blocks: Vec<Arc<BlockTables>>,
    /// Every commit decoded, made when [`HistoryIndex::commits`] is first called.
    all: std::sync::OnceLock<Vec<IndexedCommit>>,
}

/// One commit of the line: decoded, or still a line of the cache file.
#[derive(Debug, Clone)]
enum Entry {
    /// A commit walked in git (or decoded).
    Owned(Box<IndexedCommit>),
    /// A line of the cache file, checked when loading: `file[start..end]` of block `block`.
    Stored { commit: CommitId, block: u32, start: usize, end: usize },
}

impl Entry {
    fn commit(&self) -> CommitId {
        match self {
            Entry::Owned(c) => c.commit,
            Entry::Stored { commit, .. } => *commit,
        }
    }
}

/// A block's tables of paths and authors, which its lines refer to by number.
#[derive(Debug, Default)]
struct BlockTables {
    paths: Vec<Arc<str>>,
    authors: Vec<(Arc<str>, Arc<str>)>,
}

/// Where one path's versions are: the stored lines that change it, then the commits
/// walked since (always after every stored line), and the versions made from both on
/// first use.
#[derive(Debug, Clone, Default)]
struct PathSlot {
    /// The positions of the stored lines that change the path, each with the path's
    /// number in the table of the line's block and whether the line deletes it.
    stored: Vec<(usize, u32, bool)>,
    /// The changes to the path by commits walked (not read from the cache file):
    /// position, blob, mode.
    walked: Vec<(usize, Option<BlobId>, u32)>,
    /// The versions, oldest first.
    versions: std::sync::OnceLock<Vec<PathVersion>>,
}

impl PathSlot {
    fn is_empty(&self) -> bool {
        self.stored.is_empty() && self.walked.is_empty()
    }

    /// Cuts what comes after position `keep`.
    fn truncate(&mut self, keep: usize) {
        self.stored.retain(|&(p, _, _)| p <= keep);
        self.walked.retain(|&(p, _, _)| p <= keep);
        self.versions = std::sync::OnceLock::new();
    }
}

impl HistoryIndex {
    fn from_commits(commits: Vec<IndexedCommit>, shallow: Option<CommitId>) -> HistoryIndex {
        let mut index = HistoryIndex { shallow, ..HistoryIndex::default() };
        index.extend(commits);
        index
    }

    /// The slot of `path`, made if it has none.
    fn slot(&mut self, path: &Arc<str>) -> &mut PathSlot {
        if !self.paths.contains_key(path) {
            self.paths.insert(path.clone(), PathSlot::default());
        }
        self.paths.get_mut(path).expect("a slot for every path")
    }

    /// Appends commits (each a child of the last) and records their changes per path.
    fn extend(&mut self, commits: Vec<IndexedCommit>) {
        self.all = std::sync::OnceLock::new();
        self.entries.reserve(commits.len());
        for c in commits {
            let position = self.entries.len();
            if let Some(positions) = self.positions.get_mut() {
                positions.insert(c.commit, position);
            }
            for change in &c.changes {
                let slot = self.slot(&change.path);
                slot.walked.push((position, change.blob, change.mode));
                slot.versions = std::sync::OnceLock::new();
            }
            self.entries.push(Entry::Owned(Box::new(c)));
        }
    }

    /// The line cut after position `keep` (inclusive).
    fn truncate(mut self, keep: usize) -> HistoryIndex {
        if keep + 1 >= self.entries.len() {
            return self;
        }
        self.all = std::sync::OnceLock::new();
        for e in self.entries.drain(keep + 1..) {
            if let Some(positions) = self.positions.get_mut() {
                positions.remove(&e.commit());
            }
        }
        self.paths.retain(|_, slot| {
            slot.truncate(keep);
            !slot.is_empty()
        });
        self
    }

    /// The changes that the stored line at `position` makes to the path numbered `number`
    /// in its block, in the line's order: the blob and mode each leaves (the blob `None`
    /// for a deletion). Usually one; two paths whose names read the same in lossy UTF-8
    /// (`x\xff` and `x\xfe`) share a number, so one commit can change it twice.
    fn stored_changes(&self, position: usize, number: u32) -> Vec<(Option<BlobId>, u32)> {
        let mut found = Vec::new();
        let Entry::Stored { block, start, end, .. } = &self.entries[position] else { return found };
        let tables = &self.blocks[*block as usize];
        // The block's checksum held when loading: the line is as it was written, its
        // changes the last field (no other field holds a tab).
        let line = &self.file[*start..*end];
        let Some(tab) = memchr::memrchr(b'\t', line.as_bytes()) else { return found };
        // The changes that start with the path's number and a colon.
        for change in line[tab + 1..].split(' ') {
            let digits = change.bytes().take_while(u8::is_ascii_digit).count();
            if change.as_bytes().get(digits) == Some(&b':')
                && change[..digits].parse::<u32>().ok() == Some(number)
            {
                let _ = for_each_change(change, tables.paths.len(), |_, blob, mode| found.push((blob, mode)));
            }
        }
        found
    }

    /// Every change to a path, oldest first: position, blob, mode.
    fn changes_of<'s>(
        &'s self,
        slot: &'s PathSlot,
    ) -> impl DoubleEndedIterator<Item = (usize, Option<BlobId>, u32)> + 's {
        let stored = slot.stored.iter().flat_map(|&(position, number, _)| {
            self.stored_changes(position, number).into_iter().map(move |(b, m)| (position, b, m))
        });
        stored.chain(slot.walked.iter().copied())
    }

    /// The versions of a path from where its slot says they are, oldest first.
    fn make_versions(&self, slot: &PathSlot) -> Vec<PathVersion> {
        let mut out: Vec<PathVersion> = Vec::with_capacity(slot.stored.len() + slot.walked.len());
        for (position, blob, mode) in self.changes_of(slot) {
            // A change of mode alone leaves the contents as they were: no new version.
            if out.last().and_then(|v| v.blob) != blob {
                out.push(PathVersion { position, commit: self.entries[position].commit(), blob, mode });
            }
        }
        out
    }

    /// The commit at `position` (see [`HistoryIndex::position`]), decoded.
    ///
    /// # Panics
    ///
    /// If `position` is not below [`HistoryIndex::len`].
    pub fn commit_at(&self, position: usize) -> IndexedCommit {
        if let Some(all) = self.all.get() {
            return all[position].clone();
        }
        self.decode_entry(&self.entries[position])
    }

    fn decode_entry(&self, entry: &Entry) -> IndexedCommit {
        match entry {
            Entry::Owned(c) => (**c).clone(),
            Entry::Stored { commit, block, start, end } => {
                let line = &self.file[*start..*end];
                // The line was checked when the file was read, so this cannot fail; if it
                // did, the commit would show with no author, message or changes.
                decode_line(line, &self.blocks[*block as usize]).unwrap_or_else(|| IndexedCommit {
                    commit: *commit,
                    parent: None,
                    author_name: Arc::from(""),
                    author_email: Arc::from(""),
                    time: Timestamp::from_unix(0, 0),
                    message: String::new(),
                    changes: Vec::new(),
                })
            }
        }
    }

    /// Every commit of the line, oldest first (decoded on first use: for questions about
    /// one game, [`HistoryIndex::versions`] and [`HistoryIndex::commit_at`] cost less).
    pub fn commits(&self) -> &[IndexedCommit] {
        self.all.get_or_init(|| self.entries.iter().map(|e| self.decode_entry(e)).collect())
    }

    /// The commit the line ends at; `None` for an unborn branch.
    pub fn tip(&self) -> Option<CommitId> {
        self.entries.last().map(Entry::commit)
    }

    /// How many commits the line has.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the line has no commit (an unborn branch).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where `commit` is in [`HistoryIndex::commits`]; `None` if it is not on the line.
    pub fn position(&self, commit: CommitId) -> Option<usize> {
        let positions = self.positions.get_or_init(|| {
            let mut map = IdMap::default();
            map.reserve(self.entries.len());
            for (i, e) in self.entries.iter().enumerate() {
                map.insert(e.commit(), i);
            }
            map
        });
        positions.get(&commit).copied()
    }

    /// The commit `commit` of the line, if it is on it.
    pub fn commit(&self, commit: CommitId) -> Option<IndexedCommit> {
        self.position(commit).map(|i| self.commit_at(i))
    }

    /// The commits after `from` (exclusive), oldest first: all of them when `from` is
    /// `None` or not on the line.
    pub fn since(&self, from: Option<CommitId>) -> Vec<IndexedCommit> {
        let first = from.and_then(|f| self.position(f)).map_or(0, |i| i + 1);
        (first..self.len()).map(|i| self.commit_at(i)).collect()
    }

    /// The versions of `path`, oldest first: the commits that created it, changed its
    /// contents or deleted it, each with the blob it left (empty for a path never used).
    pub fn versions(&self, path: &str) -> &[PathVersion] {
        match self.paths.get(path) {
            Some(slot) => slot.versions.get_or_init(|| self.make_versions(slot)),
            None => &[],
        }
    }

    /// Whether any commit of the line deletes `path` (read from the tables of versions:
    /// no line is decoded). A path never deleted has no deletion among its versions.
    pub fn has_deletions(&self, path: &str) -> bool {
        self.paths
            .get(path)
            .is_some_and(|slot| slot.stored.iter().any(|s| s.2) || slot.walked.iter().any(|w| w.1.is_none()))
    }

    /// The last of [`HistoryIndex::versions`] of `path`, reading only the newest changes
    /// to it (a question about the files at the tip reads no history).
    pub fn last_version(&self, path: &str) -> Option<PathVersion> {
        let slot = self.paths.get(path)?;
        if let Some(versions) = slot.versions.get() {
            return versions.last().copied();
        }
        // The newest change starts a run of changes that leave the same blob (changes of
        // mode alone): the version is the run's oldest. A run that reaches back to the
        // first change and deletes is no version at all.
        let mut changes = self.changes_of(slot).rev();
        let (mut position, blob, mut mode) = changes.next()?;
        let mut reaches_first = true;
        for (p, b, m) in changes {
            if b != blob {
                reaches_first = false;
                break;
            }
            (position, mode) = (p, m);
        }
        if blob.is_none() && reaches_first {
            return None;
        }
        Some(PathVersion { position, commit: self.entries[position].commit(), blob, mode })
    }

    /// Every path any commit of the line touched (deleted ones too), sorted.
    pub fn paths(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.paths.keys().map(|p| &**p).collect();
        out.sort_unstable();
        out
    }

    /// The oldest commit of the line if the history is cut there (a shallow clone: its
    /// first parent is not in the repository); `None` for a complete history.
    pub fn shallow(&self) -> Option<CommitId> {
        self.shallow
    }
}

impl Archive {
    /// The history index of the branch tip (empty for an unborn branch), from the cache
    /// when it is current, else extended or rebuilt and stored; see the
    /// [module docs](super::index).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures reading commits. A bad cache is no
    /// error (it is rebuilt), nor is a cache that cannot be written.
    pub fn index(&self) -> Result<HistoryIndex, ArchiveError> {
        match self.tip()? {
            Some(tip) => self.index_at(tip),
            None => Ok(HistoryIndex::default()),
        }
    }

    /// The history index of the first-parent line ending at `at`, which need not be on the
    /// branch (a pushed commit the pre-receive hook checks). The cached line is reused up
    /// to where `at`'s line leaves it; the cache is stored only for the branch tip (when
    /// `at` descends from it, for the part of `at`'s line that ends there).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`], git failures reading commits.
    pub fn index_at(&self, at: CommitId) -> Result<HistoryIndex, ArchiveError> {
        let (cached, on_disk) = match self.load_index() {
            Some((index, stored)) => (Some(index), Some(stored)),
            None => (None, None),
        };
        let index = match cached {
            // A file with a bad tail is written again.
            Some(cached) if cached.tip() == Some(at) && on_disk.is_some_and(|d| d.whole) => {
                return Ok(cached);
            }
            Some(cached) if cached.tip() == Some(at) => cached,
            Some(cached) => match cached.position(at) {
                Some(i) => cached.truncate(i),
                None => self.walk_index(at, Some(cached))?,
            },
            None => self.walk_index(at, None)?,
        };
        // The cache describes the branch tip only; a line past it (a push being checked)
        // brings the cache up to the tip, so that the next push walks only its own commits.
        if let Some(tip) = self.tip().ok().flatten()
            && on_disk.is_none_or(|d| d.tip != tip || !d.whole)
            && let Some(i) = index.position(tip)
        {
            self.store_index(&index, i, on_disk);
        }
        Ok(index)
    }

    /// The text of blob `blob` (found at `path`, which only names it in errors).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::NotText`] for contents that are not UTF-8, git failures (a blob not
    /// in the repository).
    pub fn read_blob_text(&self, blob: BlobId, path: &str) -> Result<String, ArchiveError> {
        self.blob_text(blob.0, path)
    }

    /// The bytes of blob `blob` (found at `path`, which only names it in errors).
    ///
    /// # Errors
    ///
    /// Git failures (a blob not in the repository).
    pub fn read_blob_bytes(&self, blob: BlobId, path: &str) -> Result<Vec<u8>, ArchiveError> {
        self.blob_bytes(blob.0, path)
    }

    /// The cache file's path: `ravenpost/index-v2` in the (common) git directory.
    pub fn index_path(&self) -> PathBuf {
        self.secrets_dir().join(INDEX_FILE)
    }

    /// The first-parent line ending at `at`: walked back until a commit of `known`'s line
    /// (kept up to there), a root, or a missing parent.
    fn walk_index(&self, at: CommitId, known: Option<HistoryIndex>) -> Result<HistoryIndex, ArchiveError> {
        // A walk from scratch is long unless the archive is small: git lists the changes
        // while libgit2 reads the commits.
        let listing = (known.is_none() && !tests_walk_with_libgit2())
            .then(|| super::gitlog::start_first_parent_changes(self.repo.path(), at.0))
            .flatten();
        let mut line = Vec::new(); // newest first
        let mut base = None;
        let mut shallow = None;
        let mut commit = self.find_commit(at)?;
        loop {
            if let Some(i) = known.as_ref().and_then(|k| k.position(CommitId(commit.id()))) {
                base = Some((i, commit));
                break;
            }
            let (parent_id, parent) = match self.first_parent(&commit)? {
                None => (None, None),
                Some((id, Some(p))) => (Some(id), Some(p)),
                Some((id, None)) => {
                    shallow = Some(CommitId(commit.id()));
                    (Some(id), None)
                }
            };
            line.push((commit, parent_id));
            match parent {
                Some(p) => commit = p,
                None => break,
            }
        }
        let mut out = Vec::with_capacity(line.len());
        // A long walk takes the changes from git's log when it names the same commits.
        let listed = match listing {
            Some(listing) => listing.finish(),
            None => (line.len() >= super::gitlog::BULK && !tests_walk_with_libgit2())
                .then(|| super::gitlog::first_parent_changes(self.repo.path(), at.0, line.len()))
                .flatten(),
        };
        let mut bulk = listed
            .filter(|b| b.len() == line.len() && b.iter().zip(&line).all(|((id, _), (c, _))| *id == c.id()));
        #[cfg(test)]
        if bulk.is_some() {
            WALKS_THROUGH_GIT.with(|w| w.set(w.get() + 1));
        }
        let mut parent_tree = match (&base, &bulk) {
            (Some((_, c)), None) => Some(self.tree_of(c)?),
            _ => None,
        };
        let mut strings = Interner::default();
        for (commit, parent) in line.into_iter().rev() {
            let mut changes: Vec<IndexedChange> = if let Some(b) = bulk.as_mut() {
                let (_, raw) = b.pop().expect("as many as the line");
                raw.into_iter()
                    .map(|(path, blob, mode)| IndexedChange {
                        path: strings.get(&String::from_utf8_lossy(&path)),
                        blob: blob.map(BlobId),
                        mode,
                    })
                    .collect()
            } else {
                let tree = self.tree_of(&commit)?;
                let diff = self
                    .repo
                    // A type change (a file become a symbolic link) is one change, as git
                    // lists it, not a deletion and an addition.
                    .diff_tree_to_tree(
                        parent_tree.as_ref(),
                        Some(&tree),
                        Some(git2::DiffOptions::new().include_typechange(true)),
                    )
                    .map_err(|e| ArchiveError::git_oid("diff commit", commit.id(), e))?;
                parent_tree = Some(tree);
                diff.deltas()
                    .filter_map(|d| {
                        let path = d.new_file().path_bytes().or_else(|| d.old_file().path_bytes())?;
                        let (blob, mode) = match d.status() {
                            git2::Delta::Deleted => (None, 0),
                            _ => (
                                Some(BlobId(d.new_file().id())),
                                u32::try_from(i32::from(d.new_file().mode())).unwrap_or(0),
                            ),
                        };
                        Some(IndexedChange { path: strings.get(&String::from_utf8_lossy(path)), blob, mode })
                    })
                    .collect()
            };
            changes.sort_by(|a, b| a.path.cmp(&b.path));
            let (author_name, author_email, time, message) = commit_meta(&commit);
            let parent = parent.map(CommitId);
            out.push(IndexedCommit {
                commit: CommitId(commit.id()),
                parent,
                author_name: strings.get(&author_name),
                author_email: strings.get(&author_email),
                time,
                message,
                changes,
            });
        }
        Ok(match (known, base) {
            (Some(known), Some((i, _))) => {
                let mut index = known.truncate(i);
                index.extend(out);
                index
            }
            _ => HistoryIndex::from_commits(out, shallow),
        })
    }

    /// The first parent of `commit`: its id and the commit, `None` for a missing one (a
    /// shallow clone's boundary, which libgit2 also shows as a root: then the id is read
    /// from the commit's own header).
    #[allow(clippy::type_complexity)]
    fn first_parent(
        &self,
        commit: &git2::Commit<'_>,
    ) -> Result<Option<(Oid, Option<git2::Commit<'_>>)>, ArchiveError> {
        if commit.parent_count() == 0 {
            if !self.repo.is_shallow() {
                return Ok(None);
            }
            let header = String::from_utf8_lossy(commit.raw_header_bytes()).into_owned();
            let id = header.lines().find_map(|l| l.strip_prefix("parent ")).and_then(oid);
            return Ok(id.map(|id| (id, None)));
        }
        let id = commit.parent_id(0).map_err(|e| ArchiveError::git_oid("read parent", commit.id(), e))?;
        match self.repo.find_commit(id) {
            Ok(p) => Ok(Some((id, Some(p)))),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(Some((id, None))),
            Err(e) => Err(ArchiveError::git_oid("read commit", id, e)),
        }
    }

    /// The cached index, if the file is there and consistent with the repository, with
    /// what the file holds.
    fn load_index(&self) -> Option<(HistoryIndex, Stored)> {
        let bytes = fs::read(self.index_path()).ok()?;
        let size = bytes.len();
        let (index, blocks, whole) = decode(bytes)?;
        // The tip must be in the repository (a cache copied from elsewhere is not ours),
        // and a shallow cut must still be one.
        let odb = self.repo.odb().ok()?;
        let tip = index.tip().filter(|t| odb.exists(t.0))?;
        if let Some(cut) = index.shallow {
            let parent = index.commit(cut)?.parent?;
            if odb.exists(parent.0) {
                return None;
            }
        }
        let stored = Stored { tip, len: index.len(), blocks, whole, bytes: size };
        Some((index, stored))
    }

    /// Stores the line up to position `upto` (inclusive). When that continues what
    /// `on_disk` says the file holds (and `index` was read from it), one block is appended
    /// to the file in place; else the line is written as one block, in a new file beside the
    /// old one renamed into place. Failures are ignored (the cache is only a cache).
    fn store_index(&self, index: &HistoryIndex, upto: usize, on_disk: Option<Stored>) {
        if upto >= index.len() {
            return;
        }
        let dir = self.secrets_dir();
        let bytes = match on_disk {
            Some(d)
                if d.whole
                    && d.blocks < MAX_BLOCKS
                    && d.len <= upto
                    && index.file.len() == d.bytes
                    && index.position(d.tip) == Some(d.len - 1) =>
            {
                let new: Vec<IndexedCommit> = (d.len..=upto).map(|i| index.commit_at(i)).collect();
                let block = encode_block(&new, None);
                if append_block(&dir.join(INDEX_FILE), d.bytes as u64, &block).is_ok() {
                    return;
                }
                [index.file.as_bytes(), &block[..]].concat()
            }
            // The walked commits as they are (not copied into `commits()`), the stored
            // ones decoded.
            _ => {
                let line: Vec<std::borrow::Cow<'_, IndexedCommit>> = index.entries[..=upto]
                    .iter()
                    .map(|e| match e {
                        Entry::Owned(c) => std::borrow::Cow::Borrowed(&**c),
                        Entry::Stored { .. } => std::borrow::Cow::Owned(index.decode_entry(e)),
                    })
                    .collect();
                encode_block(&line, index.shallow)
            }
        };
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(&dir)?;
            let mut tmp = tempfile::Builder::new().prefix(".index-").tempfile_in(&dir)?;
            tmp.write_all(&bytes)?;
            tmp.persist(dir.join(INDEX_FILE)).map_err(|e| e.error)?;
            Ok(())
        };
        if write().is_ok() {
            let _ = fs::remove_file(dir.join(OLD_INDEX_FILE));
        }
    }
}

/// What the cache file held when it was read.
#[derive(Debug, Clone, Copy)]
struct Stored {
    /// The last commit of its line.
    tip: CommitId,
    /// How many commits its line has.
    len: usize,
    /// How many blocks it has.
    blocks: usize,
    /// Whether every byte was part of a good block (else the next write rewrites it).
    whole: bool,
    /// The file's size.
    bytes: usize,
}

/// One shared copy of each distinct string (paths, names, addresses) of a walk.
#[derive(Default)]
struct Interner(HashMap<String, Arc<str>>);

impl Interner {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(s.to_string(), a.clone());
        a
    }
}

/// A fast 64-bit checksum (not cryptographic: it catches truncation and stray bytes).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = 0x243f_6a88_85a3_08d3 ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(23) ^ u64::from(b)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Escapes `\`, tab, line feed and carriage return, so that a field is one tab-free line.
pub(crate) fn escape(s: &str, out: &mut String) {
    // Most fields have nothing to escape: copied whole.
    if !s.bytes().any(|b| matches!(b, b'\\' | b'\t' | b'\n' | b'\r')) {
        out.push_str(s);
        return;
    }
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

/// Undoes [`escape`]; `None` for a malformed escape.
pub(crate) fn unescape(s: &str) -> Option<String> {
    if !s.contains('\\') {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            't' => '\t',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// One block of the cache file: a header, a table of paths and one of authors, then one
/// line per commit (oldest first), the table of versions, then `end <checksum>`:
///
/// ```text
/// ravenpost history index v2
/// shallow <commit>|-   the shallow boundary (first block only; later ones say -)
/// paths <n>            then n lines: an escaped path
/// authors <n>          then n lines: escaped name TAB escaped email
/// commits <n>          then n lines: id TAB parent|- TAB author# TAB seconds TAB offset
///                      TAB escaped message TAB changes (path#:blob, path#:blob:mode in
///                      octal for an entry that is not a plain file, path#:- for a
///                      deletion; joined by spaces)
/// versions <n>         then n lines, one per path of the table in its order: the numbers
///                      of the commit lines (from 0) that change it, ascending, joined
///                      by spaces, each followed by `-` if the line deletes it
/// end <16 hex digits>  the checksum of the block up to this line
/// ```
///
/// The table of versions came after release 0.2.0: a block without one (as 0.2.0 wrote
/// them) is still read, its versions taken from its lines when loading. A 0.2.0 reader
/// finds `versions` where it expects `end`, takes the block for a bad one and writes the
/// file again: no release misreads another's blocks.
fn encode_block<C: std::borrow::Borrow<IndexedCommit>>(commits: &[C], shallow: Option<CommitId>) -> Vec<u8> {
    let mut path_ids: HashMap<&str, usize> = HashMap::new();
    let mut paths: Vec<&str> = Vec::new();
    let mut author_ids: HashMap<(&str, &str), usize> = HashMap::new();
    let mut authors: Vec<(&str, &str)> = Vec::new();
    for c in commits {
        let c = c.borrow();
        let key = (&*c.author_name, &*c.author_email);
        author_ids.entry(key).or_insert_with(|| {
            authors.push(key);
            authors.len() - 1
        });
        for ch in &c.changes {
            if !path_ids.contains_key(&*ch.path) {
                path_ids.insert(&ch.path, paths.len());
                paths.push(&ch.path);
            }
        }
    }
    let mut s = String::with_capacity(commits.len() * 160 + 1024);
    s.push_str(MAGIC);
    s.push('\n');
    match shallow {
        Some(c) => s.push_str(&format!("shallow {c}\n")),
        None => s.push_str("shallow -\n"),
    }
    s.push_str(&format!("paths {}\n", paths.len()));
    for p in &paths {
        escape(p, &mut s);
        s.push('\n');
    }
    s.push_str(&format!("authors {}\n", authors.len()));
    for (name, email) in &authors {
        escape(name, &mut s);
        s.push('\t');
        escape(email, &mut s);
        s.push('\n');
    }
    s.push_str(&format!("commits {}\n", commits.len()));
    // The lines that change each path, by the path's number, and whether they delete it:
    // the table of versions.
    let mut lines_of: Vec<Vec<(usize, bool)>> = vec![Vec::new(); paths.len()];
    for (line, c) in commits.iter().enumerate() {
        use std::fmt::Write as _;
        let c = c.borrow();
        let author = author_ids[&(&*c.author_name, &*c.author_email)];
        let _ = write!(s, "{}\t", c.commit);
        match c.parent {
            Some(p) => {
                let _ = write!(s, "{p}\t");
            }
            None => s.push_str("-\t"),
        }
        let _ = write!(s, "{author}\t{}\t{}\t", c.time.unix_seconds(), c.time.offset_minutes());
        escape(&c.message, &mut s);
        s.push('\t');
        for (i, ch) in c.changes.iter().enumerate() {
            if i > 0 {
                s.push(' ');
            }
            let number = path_ids[&*ch.path];
            match lines_of[number].last_mut() {
                Some(last) if last.0 == line => last.1 |= ch.blob.is_none(),
                _ => lines_of[number].push((line, ch.blob.is_none())),
            }
            let _ = write!(s, "{number}:");
            match ch.blob {
                Some(b) if ch.mode == REGULAR => {
                    let _ = write!(s, "{b}");
                }
                Some(b) => {
                    let _ = write!(s, "{b}:{:o}", ch.mode);
                }
                None => s.push('-'),
            }
        }
        s.push('\n');
    }
    s.push_str(&format!("versions {}\n", lines_of.len()));
    for lines in &lines_of {
        use std::fmt::Write as _;
        for (i, (line, deletes)) in lines.iter().enumerate() {
            let _ = write!(s, "{}{line}{}", if i > 0 { " " } else { "" }, if *deletes { "-" } else { "" });
        }
        s.push('\n');
    }
    let sum = checksum(s.as_bytes());
    s.push_str(&format!("end {sum:016x}\n"));
    s.into_bytes()
}

/// Lines of a text with the offset after each.
struct Lines<'a> {
    bytes: &'a str,
    at: usize,
}

impl<'a> Lines<'a> {
    /// The next line (without its line feed); `None` at the end or for a line that is
    /// not terminated.
    fn next_line(&mut self) -> Option<&'a str> {
        let rest = &self.bytes[self.at..];
        let n = memchr::memchr(b'\n', rest.as_bytes())?;
        self.at += n + 1;
        Some(&rest[..n])
    }
}

/// Reads a cache file: the line of its good blocks, how many there were, and whether
/// every byte belonged to one; `None` when not even the first block is good.
fn decode(bytes: Vec<u8>) -> Option<(HistoryIndex, usize, bool)> {
    let file = Arc::new(String::from_utf8(bytes).ok()?);
    let text = file.as_str();
    let mut index = HistoryIndex { file: file.clone(), ..HistoryIndex::default() };
    let mut lines = Lines { bytes: text, at: 0 };
    while lines.at < text.len() {
        let start = lines.at;
        let kept = index.entries.len();
        if decode_block(&mut lines, &mut index).is_none() {
            // Undo what the bad block added: the index is the blocks before it.
            if kept == 0 {
                return None;
            }
            index = index.truncate(kept - 1);
            lines.at = start;
            break;
        }
    }
    if index.blocks.is_empty() {
        return None;
    }
    let (blocks, whole) = (index.blocks.len(), lines.at == text.len());
    Some((index, blocks, whole))
}

/// The seven tab-separated fields of a commit line.
fn fields(line: &str) -> Option<[&str; 7]> {
    let mut out = [""; 7];
    let mut tabs = memchr::memchr_iter(b'\t', line.as_bytes());
    let mut from = 0;
    for slot in out.iter_mut().take(6) {
        let tab = tabs.next()?;
        *slot = &line[from..tab];
        from = tab + 1;
    }
    if tabs.next().is_some() {
        return None;
    }
    out[6] = &line[from..];
    Some(out)
}

/// Whether every backslash of `s` starts one of [`escape`]'s escapes.
fn escapes_are_valid(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(n) = memchr::memchr(b'\\', &b[i..]) {
        if !matches!(b.get(i + n + 1), Some(b'\\' | b't' | b'n' | b'r')) {
            return false;
        }
        i += n + 2;
    }
    true
}

/// The git mode of a plain file, which the cache file leaves unsaid.
const REGULAR: u32 = 0o100_644;

/// Calls `f` with each change of a commit line: the path's number in the block's table
/// (below `paths`), its blob and its mode. `None` for a malformed field.
fn for_each_change(field: &str, paths: usize, mut f: impl FnMut(usize, Option<BlobId>, u32)) -> Option<()> {
    for ch in field.split(' ').filter(|c| !c.is_empty()) {
        let (p, b) = ch.split_once(':')?;
        let p: usize = p.parse().ok()?;
        if p >= paths {
            return None;
        }
        let (blob, mode) = match b.split_once(':') {
            None if b == "-" => (None, 0),
            None => (Some(BlobId(oid(b)?)), REGULAR),
            Some((hex, mode)) => {
                let mode = u32::from_str_radix(mode, 8).ok().filter(|&m| m != REGULAR && m != 0)?;
                (Some(BlobId(oid(hex)?)), mode)
            }
        };
        f(p, blob, mode);
    }
    Some(())
}

/// Decodes a commit line checked by [`decode_block`].
fn decode_line(line: &str, tables: &BlockTables) -> Option<IndexedCommit> {
    let [commit, parent, author, seconds, offset, message, changes] = fields(line)?;
    let (author_name, author_email) = tables.authors.get(author.parse::<usize>().ok()?)?.clone();
    Some(IndexedCommit {
        commit: CommitId(oid(commit)?),
        parent: match parent {
            "-" => None,
            hex => Some(CommitId(oid(hex)?)),
        },
        author_name,
        author_email,
        time: Timestamp::from_unix(seconds.parse().ok()?, offset.parse().ok()?),
        message: unescape(message)?,
        changes: {
            let mut out = Vec::new();
            for_each_change(changes, tables.paths.len(), |p, blob, mode| {
                out.push(IndexedChange { path: tables.paths[p].clone(), blob, mode });
            })?;
            out
        },
    })
}

/// Reads one block into `index`, which holds the blocks before it: each line is checked
/// (so that decoding it later cannot fail: for a block with a table of versions, its
/// checksum vouches for the changes) and its commit id recorded, each path's lines from
/// the table of versions (or, in a block without one, from the lines); the rest is
/// decoded when asked for. `None` for a bad block (`index` may then hold part of it: the
/// caller cuts it off).
fn decode_block(lines: &mut Lines<'_>, index: &mut HistoryIndex) -> Option<()> {
    let start = lines.at;
    let first = index.blocks.is_empty();
    if lines.next_line()? != MAGIC {
        return None;
    }
    let shallow = match lines.next_line()?.strip_prefix("shallow ")? {
        "-" => None,
        hex => Some(CommitId(oid(hex)?)),
    };
    if shallow.is_some() && !first {
        return None;
    }
    let count = |line: &str, what: &str| -> Option<usize> { line.strip_prefix(what)?.parse().ok() };
    let n = count(lines.next_line()?, "paths ")?;
    let mut tables = BlockTables::default();
    tables.paths.reserve(n.min(1 << 20));
    for _ in 0..n {
        tables.paths.push(Arc::from(unescape(lines.next_line()?)?));
    }
    let n = count(lines.next_line()?, "authors ")?;
    tables.authors.reserve(n.min(1 << 20));
    for _ in 0..n {
        let (name, email) = lines.next_line()?.split_once('\t')?;
        tables.authors.push((Arc::from(unescape(name)?), Arc::from(unescape(email)?)));
    }
    let n = count(lines.next_line()?, "commits ")?;
    if n == 0 && !first {
        return None;
    }
    let block = u32::try_from(index.blocks.len()).ok()?;
    // The previous commit's id as written: each line's parent must be it.
    let tip = index.tip().map(|t| t.to_string());
    let mut previous: Option<&str> = tip.as_deref();
    let mut first_commit = None;
    let first_position = index.entries.len();
    for _ in 0..n {
        let line_start = lines.at;
        let line = lines.next_line()?;
        // The id and the parent, which must continue the line.
        let commit_hex = line.get(..40)?;
        let commit = CommitId(oid(commit_hex)?);
        let rest = line[40..].strip_prefix('\t')?;
        let parent = &rest[..memchr::memchr(b'\t', rest.as_bytes())?];
        let continues = match (previous, parent) {
            (None, "-") => true,
            (None, hex) => first && oid(hex).is_some(),
            (Some(p), hex) => p == hex,
        };
        if !continues {
            return None;
        }
        index.entries.push(Entry::Stored { commit, block, start: line_start, end: lines.at - 1 });
        first_commit.get_or_insert(commit);
        previous = Some(commit_hex);
    }
    let mut line = lines.next_line()?;
    if let Some(count) = line.strip_prefix("versions ") {
        // The table of versions: the lines of each path, ascending.
        if count.parse::<usize>().ok()? != tables.paths.len() {
            return None;
        }
        for (number, path) in tables.paths.iter().enumerate() {
            let mut last = None;
            let slot = index.slot(path);
            for k in lines.next_line()?.split(' ').filter(|k| !k.is_empty()) {
                let (k, deletes) = match k.strip_suffix('-') {
                    Some(k) => (k, true),
                    None => (k, false),
                };
                let k: usize = k.parse().ok()?;
                if k >= n || last.is_some_and(|l| l >= k) {
                    return None;
                }
                last = Some(k);
                slot.stored.push((first_position + k, number as u32, deletes));
            }
        }
        line = lines.next_line()?;
    } else {
        // A block written before the tables of versions: each line is checked in full,
        // and says which paths it changes.
        for k in 0..n {
            let Entry::Stored { start, end, .. } = index.entries[first_position + k] else { return None };
            let [_, _, author, seconds, offset, message, changes] = fields(&lines.bytes[start..end])?;
            if author.parse::<usize>().ok()? >= tables.authors.len()
                || seconds.parse::<i64>().is_err()
                || offset.parse::<i32>().is_err()
                || !escapes_are_valid(message)
            {
                return None;
            }
            for_each_change(changes, tables.paths.len(), |p, blob, _| {
                // A line that changes a path twice (two names that read the same) is
                // listed once: reading it gives both changes.
                let stored = &mut index.slot(&tables.paths[p]).stored;
                match stored.last_mut() {
                    Some(last) if (last.0, last.1) == (first_position + k, p as u32) => {
                        last.2 |= blob.is_none()
                    }
                    _ => stored.push((first_position + k, p as u32, blob.is_none())),
                }
            })?;
        }
    }
    let body_end = lines.at - line.len() - 1;
    let sum = line.strip_prefix("end ")?;
    if !is_lower_hex(sum, 16)
        || u64::from_str_radix(sum, 16).ok()? != checksum(&lines.bytes.as_bytes()[start..body_end])
    {
        return None;
    }
    if shallow.is_some() && shallow != first_commit {
        return None;
    }
    if first {
        index.shallow = shallow;
    }
    index.blocks.push(Arc::new(tables));
    Some(())
}

/// Whether `s` is `len` lowercase hex digits (as ravenpost writes them: one spelling only).
pub(crate) fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A full lowercase hex id, decoded by hand (libgit2's parser costs more than the rest of
/// a cache line).
pub(crate) fn oid(hex: &str) -> Option<Oid> {
    /// Each byte's value as a lowercase hex digit, 0xFF for any other byte.
    const DIGITS: [u8; 256] = {
        let mut t = [0xFF; 256];
        let mut i = 0;
        while i < 10 {
            t[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            t[b'a' as usize + i] = 10 + i as u8;
            i += 1;
        }
        t
    };
    let hex = hex.as_bytes();
    if hex.len() != 40 {
        return None;
    }
    let mut bytes = [0u8; 20];
    let mut bad = 0u8;
    for (out, pair) in bytes.iter_mut().zip(hex.chunks_exact(2)) {
        let (h, l) = (DIGITS[usize::from(pair[0])], DIGITS[usize::from(pair[1])]);
        bad |= h | l;
        *out = (h << 4) | (l & 0x0F);
    }
    if bad & 0xF0 != 0 {
        return None;
    }
    Oid::from_bytes(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oid_reads_lowercase_hex_only() {
        let hex = "0123456789abcdef0123456789abcdeffedcba98";
        assert_eq!(oid(hex).map(|o| o.to_string()).as_deref(), Some(hex));
        assert_eq!(oid(&hex.to_uppercase()), None, "one spelling only");
        assert_eq!(oid(&hex.replace('f', "g")), None);
        assert_eq!(oid(&hex[..39]), None);
        assert_eq!(oid(&format!("{hex}0")), None);
    }

    /// The walk through git's log and the walk through libgit2's tree diffs give the same
    /// index: additions, changes, deletions, a mode change, a file become a symbolic link, a
    /// submodule entry, empty commits, nested folders, a path that is not UTF-8.
    #[test]
    fn a_long_walk_through_git_log_equals_the_libgit2_walk() {
        use git2::FileMode;
        let dir = tempfile::tempdir().unwrap();
        let ann = crate::archive::Identity::new("Ann Example", "ann@example.com");
        let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let repo = &archive.repo;
        let sig = git2::Signature::new("Ann Example", "ann@example.com", &git2::Time::new(1_740_830_400, 0))
            .unwrap();
        let mut head = repo.head().unwrap().peel_to_commit().unwrap();
        for i in 0..(super::super::gitlog::BULK + 40) {
            let base = head.tree().unwrap();
            let mut update = git2::build::TreeUpdateBuilder::new();
            let blob = |text: String| repo.blob(text.as_bytes()).unwrap();
            let game = format!("games/grand/g{:02}.pgn", i % 7);
            match i % 11 {
                0 | 3 | 5 | 8 => {
                    update.upsert(&game, blob(format!("move {i}\n")), FileMode::Blob);
                }
                1 => {
                    update.upsert(format!("games/gygax/deep/h{i}.pgn"), blob(format!("{i}")), FileMode::Blob);
                }
                2 if base.get_path(std::path::Path::new(&game)).is_ok() => {
                    update.remove(&game);
                }
                4 => {
                    update.upsert(
                        "notes/run.sh",
                        blob(format!("echo {}\n", i / 11)),
                        FileMode::BlobExecutable,
                    );
                }
                6 => {
                    // The same bytes, now a symbolic link (a type change), and back.
                    let mode = if (i / 11) % 2 == 0 { FileMode::Link } else { FileMode::Blob };
                    update.upsert("games/grand/link.pgn", blob("g00.pgn".into()), mode);
                }
                7 => {
                    update.upsert("vendor/sub", head.id(), FileMode::Commit);
                }
                9 => {
                    let mut name = b"odd/odd-\xff-".to_vec();
                    name.extend(i.to_string().bytes());
                    update.upsert(name, blob("x".into()), FileMode::Blob);
                }
                _ => {} // an empty commit
            }
            let tree = repo.find_tree(update.create_updated(repo, &base).unwrap()).unwrap();
            let id = repo.commit(Some("HEAD"), &sig, &sig, &format!("step {i}"), &tree, &[&head]).unwrap();
            head = repo.find_commit(id).unwrap();
        }
        let tip = CommitId(head.id());
        let through_git = archive.walk_index(tip, None).unwrap();
        assert_eq!(WALKS_THROUGH_GIT.with(std::cell::Cell::get), 1, "git's log answered");
        WALK_WITH_LIBGIT2.with(|w| w.set(true));
        let through_libgit2 = archive.walk_index(tip, None).unwrap();
        WALK_WITH_LIBGIT2.with(|w| w.set(false));
        assert_eq!(WALKS_THROUGH_GIT.with(std::cell::Cell::get), 1);
        assert_eq!(through_git.len(), super::super::gitlog::BULK + 41);
        assert_eq!(through_git.commits(), through_libgit2.commits());
        let mut paths = through_git.paths();
        paths.sort_unstable();
        let mut other = through_libgit2.paths();
        other.sort_unstable();
        assert_eq!(paths, other);
        for p in paths {
            assert_eq!(through_git.versions(p), through_libgit2.versions(p), "{p}");
        }
        // A type change alone is no new version of the path (its bytes are the same).
        assert_eq!(through_git.versions("games/grand/link.pgn").len(), 1);
        // A continued walk from a known prefix agrees too.
        let half = through_git.clone().truncate(100);
        let continued = archive.walk_index(tip, Some(half)).unwrap();
        assert_eq!(continued.commits(), through_git.commits());
    }

    /// New commits are appended to the cache file in place (the same file, longer); a block
    /// torn by a crash is dropped by the next reader, which writes the file again whole.
    #[test]
    fn new_commits_are_appended_in_place_and_a_torn_block_is_dropped() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let ann = crate::archive::Identity::new("Ann Example", "ann@example.com");
        let t = |s| Timestamp::from_unix(1_740_830_400 + s, 0);
        let archive = Archive::init(dir.path(), Some(&ann), t(0)).unwrap();
        let mut tip = archive.tip().unwrap();
        let mut commit = |i: i64| {
            tip = Some(
                archive.commit_file("notes.txt", format!("{i}\n"), tip, Some(&ann), t(i), "note").unwrap(),
            );
        };
        commit(1);
        let first = archive.index().unwrap();
        let path = archive.index_path();
        let (inode, len) = (fs::metadata(&path).unwrap().ino(), fs::metadata(&path).unwrap().len());
        commit(2);
        let second = archive.index().unwrap();
        assert_eq!(second.len(), first.len() + 1);
        let meta = fs::metadata(&path).unwrap();
        assert_eq!(meta.ino(), inode, "the same file");
        assert!(meta.len() > len);
        let (_, blocks, whole) = decode(fs::read(&path).unwrap()).unwrap();
        assert_eq!((blocks, whole), (2, true));
        // A crash halfway through appending the next block.
        commit(3);
        let full = fs::read(&path).unwrap();
        let torn_at = full.len();
        let block = encode_block(&[archive.index().unwrap().commit_at(second.len())], None);
        fs::write(&path, [&full[..torn_at], &block[..block.len() / 2]].concat()).unwrap();
        let third = archive.index().unwrap();
        assert_eq!(third.len(), second.len() + 1);
        assert_eq!(
            third.commits(),
            archive.walk_index(archive.tip().unwrap().unwrap(), None).unwrap().commits()
        );
        let (_, _, whole) = decode(fs::read(&path).unwrap()).unwrap();
        assert!(whole, "written again without the torn tail");
    }

    fn sample() -> HistoryIndex {
        let id = |n: u8| CommitId(Oid::from_bytes(&[n; 20]).unwrap());
        let blob = |n: u8| Some(BlobId(Oid::from_bytes(&[n; 20]).unwrap()));
        let c = |n: u8, parent: Option<CommitId>, message: &str, changes: Vec<(&str, Option<BlobId>)>| {
            IndexedCommit {
                commit: id(n),
                parent,
                author_name: "Ann\tExample\\".into(),
                author_email: "ann@example.org".into(),
                time: Timestamp::from_unix(1_740_830_400 + i64::from(n), -90),
                message: message.into(),
                changes: changes
                    .into_iter()
                    .map(|(p, blob)| {
                        // An executable file and a symbolic link beside plain files: modes
                        // other than a plain file's are written out.
                        let mode = match (blob, p) {
                            (None, _) => 0,
                            (_, "ravenpost.yaml") if n == 1 => 0o100_755,
                            (_, "games/grand/g 1.pgn") if n == 4 => 0o120_000,
                            _ => REGULAR,
                        };
                        IndexedChange { path: p.into(), blob, mode }
                    })
                    .collect(),
            }
        };
        HistoryIndex::from_commits(
            vec![
                c(1, None, "Start", vec![("ravenpost.yaml", blob(11))]),
                c(2, Some(id(1)), "New game\n\nbody", vec![("games/grand/g 1.pgn", blob(12))]),
                c(3, Some(id(2)), "", vec![]),
                c(4, Some(id(3)), "mode", vec![("games/grand/g 1.pgn", blob(12)), ("x\ny", None)]),
                c(5, Some(id(4)), "gone", vec![("games/grand/g 1.pgn", None)]),
            ],
            None,
        )
    }

    fn encode(index: &HistoryIndex) -> Vec<u8> {
        encode_block(index.commits(), index.shallow)
    }

    fn decoded(bytes: &[u8]) -> Option<HistoryIndex> {
        decode(bytes.to_vec()).map(|(index, _, _)| index)
    }

    #[test]
    fn encode_then_decode_gives_the_same_index() {
        let index = sample();
        let (back, blocks, whole) = decode(encode(&index)).expect("decodes");
        assert_eq!((blocks, whole), (1, true));
        assert_eq!(back.commits(), index.commits());
        assert_eq!(back.paths(), ["games/grand/g 1.pgn", "ravenpost.yaml", "x\ny"]);
        // The change of mode alone (commit 4) is no new version.
        let positions: Vec<usize> = back.versions("games/grand/g 1.pgn").iter().map(|v| v.position).collect();
        assert_eq!(positions, [1, 4]);
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_refused() {
        let bytes = encode(&sample());
        for len in 0..bytes.len() {
            assert!(decoded(&bytes[..len]).is_none(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert!(decoded(&b).is_none(), "byte {i} flipped");
        }
    }

    /// Appended blocks continue the line; a block cut short, damaged or not continuing
    /// the line ends what is read, and what was read before it is kept.
    #[test]
    fn appended_blocks_extend_the_line_and_a_bad_block_ends_it() {
        let index = sample();
        let all = index.commits();
        let mut bytes = encode_block(&all[..2], None);
        let first = bytes.len();
        bytes.extend(encode_block(&all[2..4], None));
        let second = bytes.len();
        bytes.extend(encode_block(&all[4..], None));
        let (back, blocks, whole) = decode(bytes.clone()).unwrap();
        assert_eq!((back.commits(), blocks, whole), (all, 3, true));
        assert_eq!(back.versions("games/grand/g 1.pgn").len(), 2);
        for len in first..second {
            let (back, blocks, whole) = decode(bytes[..len].to_vec()).unwrap();
            assert_eq!((back.len(), blocks, whole), (2, 1, len == first), "cut at {len}");
        }
        // The same block twice (two appenders at once): the second does not continue.
        let mut twice = bytes[..second].to_vec();
        twice.extend_from_slice(&bytes[first..second]);
        let (back, blocks, whole) = decode(twice.clone()).unwrap();
        assert_eq!((back.len(), blocks, whole), (4, 2, false));
        // A shallow mark is only for the first block.
        let mut late = bytes[..first].to_vec();
        late.extend(encode_block(&all[2..], Some(all[2].commit)));
        assert_eq!(decode(late.clone()).map(|(i, b, w)| (i.len(), b, w)), Some((2, 1, false)));
    }

    #[test]
    fn truncate_keeps_the_prefix_and_its_versions() {
        let cut = sample().truncate(2);
        assert_eq!(cut.len(), 3);
        assert_eq!(cut.paths(), ["games/grand/g 1.pgn", "ravenpost.yaml"]);
        assert_eq!(cut.versions("games/grand/g 1.pgn").len(), 1);
        assert_eq!(cut.position(CommitId(Oid::from_bytes(&[4; 20]).unwrap())), None);
    }

    /// A block as ravenpost 0.2.0 wrote it, without a table of versions, is read from its
    /// lines, with the same commits and versions.
    #[test]
    fn a_block_without_a_table_of_versions_is_read_from_its_lines() {
        let index = sample();
        let text = String::from_utf8(encode(&index)).unwrap();
        let (body, _) = text.split_once("\nversions ").unwrap();
        let body = format!("{body}\n");
        let old = format!("{body}end {:016x}\n", checksum(body.as_bytes()));
        let (back, blocks, whole) = decode(old.clone().into_bytes()).unwrap();
        assert_eq!((blocks, whole), (1, true));
        assert_eq!(back.commits(), index.commits());
        for path in index.paths() {
            assert_eq!(back.versions(path), index.versions(path), "{path}");
        }
        // Followed by a block with a table, as a newer release appends one.
        let all = index.commits();
        let mut mixed = encode_block(&all[..3], None);
        let cut = String::from_utf8(mixed.clone()).unwrap();
        let (body, _) = cut.split_once("\nversions ").unwrap();
        let body = format!("{body}\n");
        mixed = format!("{body}end {:016x}\n", checksum(body.as_bytes())).into_bytes();
        mixed.extend(encode_block(&all[3..], None));
        let (back, blocks, whole) = decode(mixed).unwrap();
        assert_eq!((back.commits(), blocks, whole), (all, 2, true));
        assert_eq!(back.versions("games/grand/g 1.pgn"), index.versions("games/grand/g 1.pgn"));
        // Such a block's lines are checked when loading: a bad author number is refused,
        // checksum or not.
        let bad = old.replacen("\t0\t", "\t7\t", 1);
        let (body, _) = bad.rsplit_once("end ").unwrap();
        let bad = format!("{body}end {:016x}\n", checksum(body.as_bytes()));
        assert!(decoded(bad.as_bytes()).is_none());
    }

    /// The last version of a path, read from its newest changes alone, is the last of its
    /// versions: for a change of mode alone at the end, a deletion, a path only ever
    /// deleted, and changes both read from the cache file and walked after it.
    #[test]
    fn the_last_version_is_the_last_of_the_versions() {
        let index = sample();
        let bytes = encode(&index);
        let mixed = {
            let mut m = decoded(&bytes).unwrap().truncate(2);
            m.extend(index.commits()[3..].to_vec());
            m
        };
        for (what, fresh) in [
            ("walked", sample()),
            ("read", decoded(&bytes).unwrap()),
            ("read, cut after a change of mode", decoded(&bytes).unwrap().truncate(3)),
            ("read, then walked", mixed),
        ] {
            let paths: Vec<String> = fresh.paths().into_iter().map(str::to_string).collect();
            // Asked before the versions are made, then after.
            let lasts: Vec<Option<PathVersion>> = paths.iter().map(|p| fresh.last_version(p)).collect();
            for (path, last) in paths.iter().zip(lasts) {
                assert_eq!(last, fresh.versions(path).last().copied(), "{what}: {path}");
                assert_eq!(fresh.last_version(path), last, "{what}: {path}");
            }
            let deleted: Vec<bool> = paths.iter().map(|p| fresh.has_deletions(p)).collect();
            let want = match what {
                // g 1.pgn is deleted by commit 5, x\ny by commit 4 (its only change).
                "read, cut after a change of mode" => [false, false, true],
                _ => [true, false, true],
            };
            assert_eq!(deleted, want, "{what}: {paths:?}");
        }
        let cut = decoded(&bytes).unwrap().truncate(3);
        assert_eq!(cut.last_version("games/grand/g 1.pgn").map(|v| v.position), Some(1));
        assert_eq!(cut.last_version("x\ny"), None, "a path only ever deleted has no version");
        assert_eq!(cut.last_version("never/there"), None);
    }

    /// Two file names that read the same in lossy UTF-8 (`x\xff` and `x\xfe`) share a
    /// path: one commit that renames the one into the other changes it twice. The table of
    /// versions names that line once and reading it must give both changes (it gave the
    /// first: the deletion was lost), and the last version of a path whose first commit
    /// changes it twice is that commit's last change (it was none).
    #[test]
    fn a_lossy_path_changed_twice_in_one_commit_lost_a_version() {
        let id = |n: u8| CommitId(Oid::from_bytes(&[n; 20]).unwrap());
        let blob = |n: u8| Some(BlobId(Oid::from_bytes(&[n; 20]).unwrap()));
        let path: Arc<str> = "games/grand/x\u{fffd}.pgn".into();
        let other: Arc<str> = "k\u{fffd}".into();
        let change = |p: &Arc<str>, blob: Option<BlobId>| IndexedChange {
            path: p.clone(),
            blob,
            mode: if blob.is_some() { REGULAR } else { 0 },
        };
        let c = |n: u8, changes: Vec<IndexedChange>| IndexedCommit {
            commit: id(n),
            parent: (n > 1).then(|| id(n - 1)),
            author_name: "Hand".into(),
            author_email: "hand@example.org".into(),
            time: Timestamp::from_unix(1_740_830_400 + i64::from(n), 0),
            message: format!("commit {n}"),
            changes,
        };
        let walked = HistoryIndex::from_commits(
            vec![
                c(1, vec![change(&path, blob(11))]),
                c(2, vec![change(&path, blob(11)), change(&path, None)]),
                c(3, vec![change(&other, blob(12)), change(&other, None)]),
            ],
            None,
        );
        assert_eq!(
            walked.versions(&path).iter().map(|v| (v.position, v.blob)).collect::<Vec<_>>(),
            [(0, blob(11)), (1, None)]
        );
        let bytes = encode(&walked);
        let text = String::from_utf8(bytes.clone()).unwrap();
        let (body, _) = text.split_once("\nversions ").unwrap();
        let body = format!("{body}\n");
        let old = format!("{body}end {:016x}\n", checksum(body.as_bytes()));
        for (what, index) in [
            ("walked", walked.clone()),
            ("read", decoded(&bytes).unwrap()),
            ("read, 0.2.0", decoded(old.as_bytes()).unwrap()),
        ] {
            for p in [&path, &other] {
                let last = index.last_version(p);
                assert_eq!(index.versions(p), walked.versions(p), "{what}: {p}");
                assert_eq!(last, walked.versions(p).last().copied(), "{what}: {p}");
            }
        }
    }

    #[test]
    fn escape_round_trips() {
        for s in ["", "a\\b", "\t\n\r\\\\n", "plain text é"] {
            let mut e = String::new();
            escape(s, &mut e);
            assert!(!e.contains(['\t', '\n', '\r']));
            assert_eq!(unescape(&e).as_deref(), Some(s));
        }
        assert_eq!(unescape("bad\\x"), None);
    }
}
