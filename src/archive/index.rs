//! The history index: the branch's first-parent line, walked once and kept in the cache
//! database.
//!
//! Every question about an archive's past (a game's versions, the commits a push adds, the
//! whole archive's log) is a question about the first-parent line of one commit. Walking
//! that line in git costs a commit read and a tree diff per commit. A [`HistoryIndex`] is
//! that walk done once: for every commit of the line (oldest first) its id, first parent,
//! author name, email and time, message, and every path it added, changed or deleted
//! relative to its first parent with the new blob id (or the deletion). File contents are
//! not in it; [`Archive::read_blob_text`] reads a blob on demand.
//!
//! **Where it is kept.** In the archive's cache database ([`super::cache`]): a table of
//! commits numbered along the line (`seq`, rising from the oldest to the newest), a table
//! of changes keyed by path and commit, and a row saying which commit the stored line ends
//! at and whether it is stored back to its root. A question about one game reads that
//! game's rows (an index lookup), never the whole line; an index holds a snapshot of the
//! database (a read transaction), so what it answers does not change under it while
//! another command writes.
//!
//! **Keeping it current.** A commit id is the hash of the commit, which names its parent,
//! which names its own parent, and so on: the line ending at a commit, and what each of its
//! commits changed, can never change while the id stays the same. So the stored line can
//! only be *behind*, never wrong:
//!
//! - when the branch tip descends from a stored commit (new moves; also a `git reset`
//!   followed by new commits), the rows after that commit are dropped and the new commits
//!   added, oldest first, in transactions of at most [`BATCH`] commits;
//! - when the tip is on the stored line (a reset), the rows after it are dropped;
//! - otherwise (another history), and when the database is missing or unusable, the line
//!   is walked from scratch, newest first, streamed into the database in transactions of
//!   [`BATCH`] commits numbered downwards; a walk cut short by a crash is continued where it
//!   stopped by the next command;
//! - a line cut by a shallow clone is walked again as soon as the missing parent is
//!   present (after `git fetch --deepen`), so the cut never outlives its cause.
//!
//! A database that cannot be written (a read-only repository) is replaced by one in
//! memory for the run.
//!
//! **Walking.** A long walk (more than [`super::gitlog::BULK`] commits) streams `git log
//! --first-parent --raw` (see [`super::gitlog`]), checked commit by commit against the line
//! (each commit must be the first parent of the one before); short walks, and anything git
//! cannot answer, diff the trees with libgit2. Memory stays bounded by a batch, whatever
//! the length of the line.
//!
//! **Shallow clones.** The walk stops at a commit whose first parent is not in the
//! repository; that commit's changes are taken against an empty tree (as `git log` shows
//! a shallow boundary) and [`HistoryIndex::shallow`] names it, so that callers can say
//! that the history is cut there instead of failing.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use git2::{ErrorCode, Oid};
use rusqlite::{Connection, OptionalExtension, params};

use super::cache;
use super::gitlog::{BULK, GitCommit};
use super::guess::TreeWalk;
use super::{Archive, ArchiveError, BlobId, CommitId, Timestamp, commit_meta};

/// A walk writes at most this many commits per transaction (what a crash can lose, and what
/// a walk holds in memory).
pub const BATCH: usize = 20_000;

/// How many commits a tree walk diffs before it may give up: past this, when it has
/// diffed more than it proved, git lists the rest of the changes (a diff through
/// `git cat-file` costs more than `git log --raw`'s).
const DIFFS_BEFORE_GIVING_UP: usize = 2_000;

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

/// Maps keyed by object ids.
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

#[cfg(test)]
thread_local! {
    /// Tests: walk with libgit2 even when the walk is long.
    static WALK_WITH_LIBGIT2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Tests: how many walks took their changes from git's log.
    static WALKS_THROUGH_GIT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    /// Tests: how many segments of git's log were listed ahead of the walk.
    static SEGMENTS_LISTED_AHEAD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many commits one `git log` lists (see [`CommitSource`]).
#[cfg(not(test))]
fn segment() -> usize {
    BATCH
}

#[cfg(test)]
fn segment() -> usize {
    SEGMENT.with(std::cell::Cell::get)
}

#[cfg(test)]
thread_local! {
    /// Tests: segments shorter than a batch, so that short lines take several.
    static SEGMENT: std::cell::Cell<usize> = const { std::cell::Cell::new(BATCH) };
}

#[cfg(test)]
fn tests_walk_with_libgit2() -> bool {
    WALK_WITH_LIBGIT2.with(std::cell::Cell::get)
}

#[cfg(not(test))]
fn tests_walk_with_libgit2() -> bool {
    false
}

/// A file a commit added, changed or deleted, as the index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedChange {
    /// The path in the archive (lossy UTF-8: files added by hand may have any name).
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
    /// The author's name (lossy UTF-8).
    pub author_name: Arc<str>,
    /// The author's email address (lossy UTF-8).
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
    /// The commit's position on the line (0 the oldest; see [`HistoryIndex::position`]).
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
/// The line is the stored part (rows of the cache database, read through a snapshot that
/// the index holds) followed by commits walked in memory (a pushed commit that the hook
/// checks, which is not on the branch). Every question reads what it asks about: a
/// path's versions read that path's rows, a commit its own row.
#[derive(Debug, Clone, Default)]
pub struct HistoryIndex {
    /// The snapshot of the stored part; `None` when nothing is stored.
    db: Option<Arc<Snapshot>>,
    /// How many commits of the line are stored (positions `0..stored`).
    stored: usize,
    /// The `seq` of position 0 in the database.
    low: i64,
    /// The last stored commit of the line.
    stored_tip: Option<CommitId>,
    /// The commits after the stored ones, oldest first.
    walked: Vec<IndexedCommit>,
    /// Where each walked commit is.
    walked_ids: IdMap<CommitId, usize>,
    /// The positions of the walked commits that change each path.
    walked_paths: HashMap<Arc<str>, Vec<usize>>,
    shallow: Option<CommitId>,
}

/// A read transaction on the cache database, open for as long as an index uses it.
#[derive(Debug)]
struct Snapshot {
    conn: Mutex<Connection>,
    /// Where the database is, to drop it when a read fails.
    dir: Option<PathBuf>,
    /// Set when a read failed: later answers come from a walk in memory.
    fallback: OnceLock<Option<Box<HistoryIndex>>>,
    /// The repository, to walk again after a failed read.
    git_dir: PathBuf,
}

/// A change to a path: position, blob (`None`: deleted), mode.
type Change = (usize, Option<BlobId>, u32);

/// The row of the database that says what is stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Meta {
    /// The newest stored commit of the line (`None`: nothing stored).
    tip: Option<Oid>,
    /// The `seq`s of the oldest and newest stored commits.
    low: i64,
    high: i64,
    /// Whether the line is stored back to its root (or shallow boundary): a walk from
    /// scratch that was cut short is not.
    complete: bool,
    /// The shallow boundary, if the stored line ends at one.
    shallow: Option<Oid>,
}

/// Why the index could not be read or stored: git (reported) or the database (which is
/// made again, or replaced by one in memory).
#[derive(Debug)]
enum Failure {
    Git(ArchiveError),
    Db,
}

impl From<rusqlite::Error> for Failure {
    fn from(_: rusqlite::Error) -> Failure {
        Failure::Db
    }
}

impl From<ArchiveError> for Failure {
    fn from(e: ArchiveError) -> Failure {
        Failure::Git(e)
    }
}

fn oid_of(bytes: &[u8]) -> rusqlite::Result<Oid> {
    Oid::from_bytes(bytes).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn read_meta(c: &Connection) -> rusqlite::Result<Meta> {
    let mut meta = Meta::default();
    let mut stmt = c.prepare_cached("SELECT key, value FROM meta")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let key: String = row.get(0)?;
        match key.as_str() {
            "tip" => meta.tip = row.get::<_, Option<Vec<u8>>>(1)?.map(|b| oid_of(&b)).transpose()?,
            "low" => meta.low = row.get(1)?,
            "high" => meta.high = row.get(1)?,
            "complete" => meta.complete = row.get::<_, i64>(1)? != 0,
            "shallow" => meta.shallow = row.get::<_, Option<Vec<u8>>>(1)?.map(|b| oid_of(&b)).transpose()?,
            _ => {}
        }
    }
    Ok(meta)
}

fn write_meta(c: &Connection, meta: &Meta) -> rusqlite::Result<()> {
    let mut stmt = c.prepare_cached("INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)")?;
    stmt.execute(params!["tip", meta.tip.map(|t| t.as_bytes().to_vec())])?;
    stmt.execute(params!["low", meta.low])?;
    stmt.execute(params!["high", meta.high])?;
    stmt.execute(params!["complete", i64::from(meta.complete)])?;
    stmt.execute(params!["shallow", meta.shallow.map(|t| t.as_bytes().to_vec())])?;
    Ok(())
}

/// The `seq` of `commit` in the database, if it is stored on the line (at or below
/// `high`; rows above it are a walk under way or left by a crash).
fn seq_of(c: &Connection, commit: Oid, high: i64) -> rusqlite::Result<Option<i64>> {
    c.prepare_cached("SELECT seq FROM commits WHERE id = ?1 AND seq <= ?2")?
        .query_row(params![commit.as_bytes(), high], |r| r.get(0))
        .optional()
}

/// Numbers for paths and authors while a walk writes (each looked up or added once).
#[derive(Default)]
struct Numbers {
    paths: HashMap<Arc<str>, i64>,
    authors: HashMap<(Arc<str>, Arc<str>), i64>,
}

impl Numbers {
    fn path(&mut self, c: &Connection, path: &Arc<str>) -> rusqlite::Result<i64> {
        if let Some(&n) = self.paths.get(path) {
            return Ok(n);
        }
        c.prepare_cached("INSERT OR IGNORE INTO paths (path) VALUES (?1)")?.execute([&**path])?;
        let n =
            c.prepare_cached("SELECT id FROM paths WHERE path = ?1")?.query_row([&**path], |r| r.get(0))?;
        self.paths.insert(path.clone(), n);
        Ok(n)
    }

    fn author(&mut self, c: &Connection, name: &Arc<str>, email: &Arc<str>) -> rusqlite::Result<i64> {
        let key = (name.clone(), email.clone());
        if let Some(&n) = self.authors.get(&key) {
            return Ok(n);
        }
        c.prepare_cached("INSERT OR IGNORE INTO authors (name, email) VALUES (?1, ?2)")?
            .execute([&**name, &**email])?;
        let n = c
            .prepare_cached("SELECT id FROM authors WHERE name = ?1 AND email = ?2")?
            .query_row([&**name, &**email], |r| r.get(0))?;
        self.authors.insert(key, n);
        Ok(n)
    }
}

/// Writes `commit` as the row `seq` (inside the caller's transaction).
fn insert_commit(
    c: &Connection,
    numbers: &mut Numbers,
    seq: i64,
    commit: &IndexedCommit,
) -> rusqlite::Result<()> {
    let author = numbers.author(c, &commit.author_name, &commit.author_email)?;
    c.prepare_cached(
        "INSERT INTO commits (seq, id, parent, author, time, offset, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(params![
        seq,
        commit.commit.0.as_bytes(),
        commit.parent.map(|p| p.0.as_bytes().to_vec()),
        author,
        commit.time.unix_seconds(),
        commit.time.offset_minutes(),
        commit.message,
    ])?;
    for (n, change) in commit.changes.iter().enumerate() {
        let path = numbers.path(c, &change.path)?;
        c.prepare_cached("INSERT INTO changes (path, seq, n, blob, mode) VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![
                path,
                seq,
                n as i64,
                change.blob.map(|b| b.0.as_bytes().to_vec()),
                change.mode
            ])?;
    }
    Ok(())
}

/// Empties the stored line (paths and authors stay: they are only names).
fn clear_line(c: &Connection) -> rusqlite::Result<()> {
    c.execute_batch("DELETE FROM changes; DELETE FROM commits; DELETE FROM meta;")
}

/// Drops the rows after `seq`.
fn cut_after(c: &Connection, seq: i64) -> rusqlite::Result<()> {
    c.prepare_cached("DELETE FROM changes WHERE seq > ?1")?.execute([seq])?;
    c.prepare_cached("DELETE FROM commits WHERE seq > ?1")?.execute([seq])?;
    Ok(())
}

/// The commit of a row whose columns from `at` are id, parent, author name and email,
/// time, offset and message (its changes not read).
fn commit_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<IndexedCommit> {
    Ok(IndexedCommit {
        commit: CommitId(oid_of(&r.get::<_, Vec<u8>>(at)?)?),
        parent: r.get::<_, Option<Vec<u8>>>(at + 1)?.map(|b| oid_of(&b)).transpose()?.map(CommitId),
        author_name: Arc::from(r.get::<_, String>(at + 2)?),
        author_email: Arc::from(r.get::<_, String>(at + 3)?),
        time: Timestamp::from_unix(r.get(at + 4)?, r.get(at + 5)?),
        message: r.get(at + 6)?,
        changes: Vec::new(),
    })
}

/// The change of a row whose columns from `at` are path, blob and mode.
fn change_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<IndexedChange> {
    Ok(IndexedChange {
        path: Arc::from(r.get::<_, String>(at)?),
        blob: r.get::<_, Option<Vec<u8>>>(at + 1)?.map(|b| oid_of(&b)).transpose()?.map(BlobId),
        mode: r.get(at + 2)?,
    })
}

/// Reads the commit stored at `seq`.
fn read_commit(c: &Connection, seq: i64) -> rusqlite::Result<IndexedCommit> {
    let mut commit = c
        .prepare_cached(
            "SELECT c.id, c.parent, a.name, a.email, c.time, c.offset, c.message
             FROM commits c JOIN authors a ON a.id = c.author WHERE c.seq = ?1",
        )?
        .query_row([seq], |r| commit_row(r, 0))?;
    let mut stmt = c.prepare_cached(
        "SELECT p.path, ch.blob, ch.mode FROM changes ch JOIN paths p ON p.id = ch.path
         WHERE ch.seq = ?1 ORDER BY ch.n",
    )?;
    let mut rows = stmt.query([seq])?;
    while let Some(r) = rows.next()? {
        commit.changes.push(change_row(r, 0)?);
    }
    Ok(commit)
}

/// The stored changes to `path` up to `high`, oldest first (`newest_first`: newest first):
/// seq, commit, blob, mode.
fn stored_changes(
    c: &Connection,
    path: &str,
    high: i64,
    newest_first: bool,
    mut f: impl FnMut(i64, Oid, Option<Oid>, u32) -> bool,
) -> rusqlite::Result<()> {
    let sql = if newest_first {
        "SELECT ch.seq, c.id, ch.blob, ch.mode FROM paths p JOIN changes ch ON ch.path = p.id
         JOIN commits c ON c.seq = ch.seq WHERE p.path = ?1 AND ch.seq <= ?2 ORDER BY ch.seq DESC, ch.n DESC"
    } else {
        "SELECT ch.seq, c.id, ch.blob, ch.mode FROM paths p JOIN changes ch ON ch.path = p.id
         JOIN commits c ON c.seq = ch.seq WHERE p.path = ?1 AND ch.seq <= ?2 ORDER BY ch.seq, ch.n"
    };
    let mut stmt = c.prepare_cached(sql)?;
    let mut rows = stmt.query(params![path, high])?;
    while let Some(r) = rows.next()? {
        let blob = r.get::<_, Option<Vec<u8>>>(2)?.map(|b| oid_of(&b)).transpose()?;
        if !f(r.get(0)?, oid_of(&r.get::<_, Vec<u8>>(1)?)?, blob, r.get(3)?) {
            break;
        }
    }
    Ok(())
}

impl HistoryIndex {
    /// An index of `commits` (each a child of the one before), held in memory.
    #[cfg(test)]
    pub(crate) fn from_commits(commits: Vec<IndexedCommit>, shallow: Option<CommitId>) -> HistoryIndex {
        let mut index = HistoryIndex { shallow, ..HistoryIndex::default() };
        index.extend(commits);
        index
    }

    /// Appends walked commits (each a child of the last).
    fn extend(&mut self, commits: Vec<IndexedCommit>) {
        for c in commits {
            let position = self.len();
            self.walked_ids.insert(c.commit, position);
            for change in &c.changes {
                let at = self.walked_paths.entry(change.path.clone()).or_default();
                if at.last() != Some(&position) {
                    at.push(position);
                }
            }
            self.walked.push(c);
        }
    }

    /// Asks the stored part (`f` gets the connection and the `seq`s of positions 0 and
    /// `stored - 1`). When the database fails, the line is walked again in memory and asked
    /// instead (`g`); the database is dropped so that the next command makes it again.
    fn ask<T: Default>(
        &self,
        f: impl Fn(&Connection, i64, i64) -> rusqlite::Result<T>,
        g: impl Fn(&HistoryIndex) -> T,
    ) -> T {
        let Some(db) = &self.db else { return T::default() };
        if self.stored == 0 {
            return T::default();
        }
        if db.fallback.get().is_none() {
            let high = self.low + self.stored as i64 - 1;
            let answer = match db.conn.lock() {
                Ok(conn) => f(&conn, self.low, high),
                Err(_) => Err(rusqlite::Error::InvalidQuery),
            };
            match answer {
                Ok(t) => return t,
                Err(_) => {
                    if let Some(dir) = &db.dir {
                        cache::remove(dir);
                    }
                }
            }
        }
        let walked = db.fallback.get_or_init(|| {
            let tip = self.stored_tip?;
            let archive = Archive::open_git_dir(&db.git_dir).ok()?;
            let line = archive.walk_line(tip, &mut |_| ()).ok()?;
            Some(Box::new(line))
        });
        match walked {
            Some(index) => g(index),
            None => T::default(),
        }
    }

    /// The commit at `position` (see [`HistoryIndex::position`]).
    ///
    /// # Panics
    ///
    /// If `position` is not below [`HistoryIndex::len`].
    pub fn commit_at(&self, position: usize) -> IndexedCommit {
        assert!(position < self.len(), "position {position} is past the line's {} commits", self.len());
        if position >= self.stored {
            return self.walked[position - self.stored].clone();
        }
        let missing = || IndexedCommit {
            commit: CommitId(Oid::ZERO_SHA1),
            parent: None,
            author_name: Arc::from(""),
            author_email: Arc::from(""),
            time: Timestamp::from_unix(0, 0),
            message: String::new(),
            changes: Vec::new(),
        };
        let got: Option<IndexedCommit> = self.ask(
            |c, low, _| read_commit(c, low + position as i64).map(Some),
            |w| Some(w.commit_at(position)),
        );
        got.unwrap_or_else(missing)
    }

    /// Every commit of the line, oldest first. This holds the whole line in memory: for
    /// questions about one game, [`HistoryIndex::versions`] and [`HistoryIndex::commit_at`]
    /// cost less, and [`HistoryIndex::for_each_commit`] streams.
    pub fn commits(&self) -> Vec<IndexedCommit> {
        let mut out = Vec::with_capacity(self.len());
        self.for_each_commit(0, |c| {
            out.push(c);
            true
        });
        out
    }

    /// Calls `f` with each commit from position `from` on, oldest first, until it returns
    /// false; reads the stored ones in one pass, holding one at a time.
    pub fn for_each_commit(&self, from: usize, mut f: impl FnMut(IndexedCommit) -> bool) {
        let mut go_on = true;
        if from < self.stored {
            let f = std::cell::RefCell::new(&mut f);
            let done = std::cell::Cell::new(from);
            go_on = self.ask(
                |c, low, high| {
                    // Resumes where an earlier (failed) pass stopped.
                    let start = low + done.get() as i64;
                    let mut commits = c.prepare_cached(
                        "SELECT c.seq, c.id, c.parent, a.name, a.email, c.time, c.offset, c.message
                         FROM commits c JOIN authors a ON a.id = c.author WHERE c.seq BETWEEN ?1 AND ?2 ORDER BY c.seq",
                    )?;
                    let mut changes = c.prepare_cached(
                        "SELECT ch.seq, p.path, ch.blob, ch.mode FROM changes ch JOIN paths p ON p.id = ch.path
                         WHERE ch.seq BETWEEN ?1 AND ?2 ORDER BY ch.seq, ch.n",
                    )?;
                    let mut rows = commits.query([start, high])?;
                    let mut change_rows = changes.query([start, high])?;
                    let mut pending: Option<(i64, IndexedChange)> = None;
                    let next_change = |rows: &mut rusqlite::Rows<'_>| -> rusqlite::Result<Option<(i64, IndexedChange)>> {
                        let Some(r) = rows.next()? else { return Ok(None) };
                        Ok(Some((r.get(0)?, change_row(r, 1)?)))
                    };
                    pending = match pending {
                        None => next_change(&mut change_rows)?,
                        p => p,
                    };
                    while let Some(r) = rows.next()? {
                        let seq: i64 = r.get(0)?;
                        let mut commit = commit_row(r, 1)?;
                        while let Some((s, _)) = &pending {
                            if *s > seq {
                                break;
                            }
                            let (s, ch) = pending.take().expect("a change");
                            if s == seq {
                                commit.changes.push(ch);
                            }
                            pending = next_change(&mut change_rows)?;
                        }
                        done.set((seq - low) as usize + 1);
                        if !(f.borrow_mut())(commit) {
                            return Ok(false);
                        }
                    }
                    Ok(true)
                },
                |w| {
                    let mut go_on = true;
                    for p in done.get()..self.stored {
                        if !(f.borrow_mut())(w.commit_at(p)) {
                            go_on = false;
                            break;
                        }
                    }
                    go_on
                },
            );
        }
        if go_on {
            for c in &self.walked[from.saturating_sub(self.stored)..] {
                if !f(c.clone()) {
                    break;
                }
            }
        }
    }

    /// The commit the line ends at; `None` for an unborn branch.
    pub fn tip(&self) -> Option<CommitId> {
        self.walked.last().map(|c| c.commit).or(self.stored_tip)
    }

    /// How many commits the line has.
    pub fn len(&self) -> usize {
        self.stored + self.walked.len()
    }

    /// Whether the line has no commit (an unborn branch).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where `commit` is on the line (0 the oldest); `None` if it is not on the line.
    pub fn position(&self, commit: CommitId) -> Option<usize> {
        if let Some(&p) = self.walked_ids.get(&commit) {
            return Some(p);
        }
        let seq: Option<i64> =
            self.ask(|c, _, high| seq_of(c, commit.0, high), |w| w.position(commit).map(|p| p as i64));
        // From the fallback, a position; from the database, a seq.
        match (&self.db, seq) {
            (Some(db), Some(s)) if db.fallback.get().is_none() => usize::try_from(s - self.low).ok(),
            (_, Some(p)) => usize::try_from(p).ok(),
            _ => None,
        }
    }

    /// The commit `commit` of the line, if it is on it.
    pub fn commit(&self, commit: CommitId) -> Option<IndexedCommit> {
        self.position(commit).map(|i| self.commit_at(i))
    }

    /// The commits after `from` (exclusive), oldest first: all of them when `from` is
    /// `None` or not on the line.
    pub fn since(&self, from: Option<CommitId>) -> Vec<IndexedCommit> {
        let first = from.and_then(|f| self.position(f)).map_or(0, |i| i + 1);
        let mut out = Vec::with_capacity(self.len().saturating_sub(first));
        self.for_each_commit(first, |c| {
            out.push(c);
            true
        });
        out
    }

    /// Every change to `path` by a walked commit, oldest first: position, blob, mode.
    fn walked_changes(&self, path: &str) -> Vec<Change> {
        let mut out = Vec::new();
        for &p in self.walked_paths.get(path).map_or(&[][..], |v| &v[..]) {
            for ch in self.walked[p - self.stored].changes.iter().filter(|ch| &*ch.path == path) {
                out.push((p, ch.blob, ch.mode));
            }
        }
        out
    }

    /// The versions of `path`, oldest first: the commits that created it, changed its
    /// contents or deleted it, each with the blob it left (empty for a path never used).
    pub fn versions(&self, path: &str) -> Vec<PathVersion> {
        let mut out: Vec<PathVersion> = self.ask(
            |c, low, high| {
                let mut out: Vec<PathVersion> = Vec::new();
                stored_changes(c, path, high, false, |seq, commit, blob, mode| {
                    let blob = blob.map(BlobId);
                    if out.last().and_then(|v| v.blob) != blob {
                        let position = (seq - low) as usize;
                        out.push(PathVersion { position, commit: CommitId(commit), blob, mode });
                    }
                    true
                })?;
                Ok(out)
            },
            |w| w.versions(path),
        );
        for (position, blob, mode) in self.walked_changes(path) {
            // A change of mode alone leaves the contents as they were: no new version.
            if out.last().and_then(|v| v.blob) != blob {
                out.push(PathVersion {
                    position,
                    commit: self.walked[position - self.stored].commit,
                    blob,
                    mode,
                });
            }
        }
        out
    }

    /// [`HistoryIndex::versions`] of `path`, each with its commit as
    /// [`HistoryIndex::commit_at`] reads it but for its `changes`, left empty: one query
    /// reads both (for judging a game, which asks nothing about the commit's other files).
    pub fn version_commits(&self, path: &str) -> Vec<(PathVersion, IndexedCommit)> {
        let mut out: Vec<(PathVersion, IndexedCommit)> = self.ask(
            |c, low, high| {
                let mut out: Vec<(PathVersion, IndexedCommit)> = Vec::new();
                let mut stmt = c.prepare_cached(
                    "SELECT ch.seq, ch.blob, ch.mode, c.id, c.parent, a.name, a.email, c.time, c.offset,
                     c.message FROM paths p JOIN changes ch ON ch.path = p.id JOIN commits c ON c.seq = ch.seq
                     JOIN authors a ON a.id = c.author WHERE p.path = ?1 AND ch.seq <= ?2 ORDER BY ch.seq, ch.n",
                )?;
                let mut rows = stmt.query(params![path, high])?;
                while let Some(r) = rows.next()? {
                    let blob = r.get::<_, Option<Vec<u8>>>(1)?.map(|b| oid_of(&b)).transpose()?.map(BlobId);
                    // A change of mode alone leaves the contents as they were: no new version.
                    if out.last().and_then(|(v, _)| v.blob) == blob {
                        continue;
                    }
                    let commit = commit_row(r, 3)?;
                    let position = (r.get::<_, i64>(0)? - low) as usize;
                    let version = PathVersion { position, commit: commit.commit, blob, mode: r.get(2)? };
                    out.push((version, commit));
                }
                Ok(out)
            },
            |w| w.version_commits(path),
        );
        for (position, blob, mode) in self.walked_changes(path) {
            if out.last().and_then(|(v, _)| v.blob) != blob {
                let commit =
                    IndexedCommit { changes: Vec::new(), ..self.walked[position - self.stored].clone() };
                out.push((PathVersion { position, commit: commit.commit, blob, mode }, commit));
            }
        }
        out
    }

    /// The last of [`HistoryIndex::versions`] of `path`, reading only the newest changes
    /// to it (a question about the files at the tip reads no history).
    pub fn last_version(&self, path: &str) -> Option<PathVersion> {
        // The newest change starts a run of changes that leave the same blob (changes of
        // mode alone): the version is the run's oldest. A run that reaches back to the
        // first change and deletes is no version at all.
        let walked = self.walked_changes(path);
        let mut run: Option<Change> = None;
        let mut ended = false;
        for &(p, b, m) in walked.iter().rev() {
            match run {
                None => run = Some((p, b, m)),
                Some((_, blob, _)) if blob == b => run = Some((p, b, m)),
                Some(_) => {
                    ended = true;
                    break;
                }
            }
        }
        if !ended {
            // `None`: the database failed (the fallback answers through the versions).
            let stored: Option<(Option<Change>, bool)> = self.ask(
                |c, low, high| {
                    let mut run = run;
                    let mut ended = false;
                    stored_changes(c, path, high, true, |seq, _, blob, mode| {
                        let (p, b) = ((seq - low) as usize, blob.map(BlobId));
                        match run {
                            Some((_, blob, _)) if blob != b => {
                                ended = true;
                                false
                            }
                            _ => {
                                run = Some((p, b, mode));
                                true
                            }
                        }
                    })?;
                    Ok(Some((run, ended)))
                },
                |_| None,
            );
            match stored {
                Some((r, e)) => (run, ended) = (r, e),
                None if self.stored > 0 => return self.versions(path).last().copied(),
                None => {}
            }
        }
        let (position, blob, mode) = run?;
        if blob.is_none() && !ended {
            return None;
        }
        let commit = if position >= self.stored {
            self.walked[position - self.stored].commit
        } else {
            self.commit_id_at(position)?
        };
        Some(PathVersion { position, commit, blob, mode })
    }

    /// The id of the stored commit at `position`.
    fn commit_id_at(&self, position: usize) -> Option<CommitId> {
        self.ask(
            |c, low, _| {
                c.prepare_cached("SELECT id FROM commits WHERE seq = ?1")?
                    .query_row([low + position as i64], |r| {
                        Ok(Some(CommitId(oid_of(&r.get::<_, Vec<u8>>(0)?)?)))
                    })
            },
            |w| Some(w.commit_at(position).commit),
        )
    }

    /// Every path any commit of the line touched (deleted ones too), sorted.
    pub fn paths(&self) -> Vec<String> {
        let mut out: Vec<String> = self.ask(
            |c, _, high| {
                let mut stmt = c.prepare_cached(
                    "SELECT p.path FROM paths p WHERE EXISTS
                     (SELECT 1 FROM changes ch WHERE ch.path = p.id AND ch.seq <= ?1)",
                )?;
                let rows = stmt.query_map([high], |r| r.get::<_, String>(0))?;
                rows.collect()
            },
            |w| w.paths(),
        );
        out.extend(self.walked_paths.keys().map(|p| p.to_string()));
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Every path some commit of the line deleted, sorted: one pass over the changes, not
    /// one question per path.
    pub fn deleted_paths(&self) -> Vec<String> {
        let mut out: Vec<String> = self.ask(
            |c, low, high| {
                let mut stmt = c.prepare_cached(
                    "SELECT DISTINCT p.path FROM changes ch JOIN paths p ON p.id = ch.path
                     WHERE ch.blob IS NULL AND ch.seq BETWEEN ?1 AND ?2",
                )?;
                let rows = stmt.query_map([low, high], |r| r.get::<_, String>(0))?;
                rows.collect()
            },
            |w| w.deleted_paths(),
        );
        for (path, at) in &self.walked_paths {
            let deleted = at.iter().any(|&p| {
                self.walked[p - self.stored].changes.iter().any(|ch| ch.path == *path && ch.blob.is_none())
            });
            if deleted {
                out.push(path.to_string());
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The paths under the folder `dir` (e.g. `variants`) that any commit of the line
    /// touched, sorted: one range of the paths' index, not every path of the archive.
    pub fn paths_under(&self, dir: &str) -> Vec<String> {
        let prefix = format!("{dir}/");
        // Every path that starts with `dir/` sorts from `dir/` up to (not with) `dir0`.
        let end = format!("{dir}0");
        let mut out: Vec<String> = self.ask(
            |c, _, high| {
                let mut stmt = c.prepare_cached(
                    "SELECT p.path FROM paths p WHERE p.path >= ?1 AND p.path < ?2 AND EXISTS
                     (SELECT 1 FROM changes ch WHERE ch.path = p.id AND ch.seq <= ?3)",
                )?;
                let rows = stmt.query_map(params![prefix, end, high], |r| r.get::<_, String>(0))?;
                rows.collect()
            },
            |w| w.paths_under(dir),
        );
        out.extend(self.walked_paths.keys().filter(|p| p.starts_with(&prefix)).map(|p| p.to_string()));
        out.sort_unstable();
        out.dedup();
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
    /// database when it is current, else brought up to date there; see the
    /// [module docs](super::index).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures reading commits. A bad cache is no
    /// error (it is made again), nor is a cache that cannot be written.
    pub fn index(&self) -> Result<HistoryIndex, ArchiveError> {
        match self.tip()? {
            Some(tip) => self.index_at(tip),
            None => Ok(HistoryIndex::default()),
        }
    }

    /// The history index of the first-parent line ending at `at`, which need not be on the
    /// branch (a pushed commit the pre-receive hook checks). The database keeps the line of
    /// the branch tip, or of `at` when `at` descends from the tip (or the branch is
    /// unborn); any other line is the stored one up to where they part, plus the rest walked
    /// in memory.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`], git failures reading commits.
    pub fn index_at(&self, at: CommitId) -> Result<HistoryIndex, ArchiveError> {
        self.find_commit(at)?;
        let dir = self.secrets_dir();
        let tip = self.tip().ok().flatten();
        let target = match tip {
            None => at,
            Some(tip) if tip == at => at,
            Some(tip) => {
                if self.repo.graph_descendant_of(at.0, tip.0).unwrap_or(false) {
                    at
                } else {
                    tip
                }
            }
        };
        for _ in 0..3 {
            let Some(conn) = cache::open(&dir) else { break };
            match self.store_line(&conn, &dir, target) {
                Ok(()) => {}
                Err(Failure::Git(e)) => return Err(e),
                Err(Failure::Db) => {
                    drop(conn);
                    cache::remove(&dir);
                    continue;
                }
            }
            match self.view(conn, Some(dir.clone()), at) {
                Ok(Some(index)) => return Ok(index),
                Ok(None) => continue,
                Err(Failure::Git(e)) => return Err(e),
                Err(Failure::Db) => cache::remove(&dir),
            }
        }
        // No usable database here: the line in memory.
        self.walk_line(at, &mut |_| ())
    }

    /// The line ending at `at`, walked into a database in memory (no cache is read or
    /// written). `progress` is called with the number of commits walked so far.
    pub(crate) fn walk_line(
        &self,
        at: CommitId,
        progress: &mut dyn FnMut(usize),
    ) -> Result<HistoryIndex, ArchiveError> {
        let conn = cache::in_memory().ok_or_else(|| {
            ArchiveError::io(
                "open",
                std::path::Path::new(":memory:"),
                std::io::Error::other("SQLite cannot open a database in memory"),
            )
        })?;
        let mut numbers = Numbers::default();
        match self.walk_from_scratch(&conn, &mut numbers, at.0, 0, progress) {
            Ok(()) => {}
            Err(Failure::Git(e)) => return Err(e),
            Err(Failure::Db) => {
                return Err(ArchiveError::io(
                    "write",
                    std::path::Path::new(":memory:"),
                    std::io::Error::other("SQLite failed on a database in memory"),
                ));
            }
        }
        match self.view(conn, None, at) {
            Ok(Some(index)) => Ok(index),
            Ok(None) | Err(Failure::Db) => Err(ArchiveError::io(
                "read",
                std::path::Path::new(":memory:"),
                std::io::Error::other("SQLite failed on a database in memory"),
            )),
            Err(Failure::Git(e)) => Err(e),
        }
    }

    /// Opens a snapshot of the database and makes the index of the line ending at `at`:
    /// the stored line up to `at` when `at` is on it, else the stored line up to where
    /// `at`'s line leaves it and the rest walked in memory. `None` when the stored line is
    /// not complete (another command is walking it: ask again).
    fn view(
        &self,
        conn: Connection,
        dir: Option<PathBuf>,
        at: CommitId,
    ) -> Result<Option<HistoryIndex>, Failure> {
        conn.execute_batch("BEGIN")?;
        let meta = read_meta(&conn)?;
        if meta.tip.is_some() && !meta.complete {
            return Ok(None);
        }
        let shallow = meta.shallow.map(CommitId);
        let snapshot = |conn: Connection| {
            Arc::new(Snapshot {
                conn: Mutex::new(conn),
                dir,
                fallback: OnceLock::new(),
                git_dir: self.repo.path().to_path_buf(),
            })
        };
        let stored_index = |conn: Connection, seq: i64, commit: CommitId| HistoryIndex {
            db: Some(snapshot(conn)),
            stored: (seq - meta.low + 1) as usize,
            low: meta.low,
            stored_tip: Some(commit),
            shallow,
            ..HistoryIndex::default()
        };
        if let Some(seq) = seq_of(&conn, at.0, meta.high)? {
            return Ok(Some(stored_index(conn, seq, at)));
        }
        // Walked back until the stored line.
        let mut line = Vec::new();
        let mut met = None;
        let mut walk_shallow = None;
        let mut commit = self.find_commit(at)?;
        loop {
            if let Some(seq) = seq_of(&conn, commit.id(), meta.high)? {
                met = Some((seq, CommitId(commit.id())));
                break;
            }
            let (parent_id, parent) = match self.first_parent(&commit)? {
                None => (None, None),
                Some((id, Some(p))) => (Some(id), Some(p)),
                Some((id, None)) => {
                    walk_shallow = Some(CommitId(commit.id()));
                    (Some(id), None)
                }
            };
            line.push((commit, parent_id));
            match parent {
                Some(p) => commit = p,
                None => break,
            }
        }
        let mut walked = Vec::with_capacity(line.len());
        let mut parent_tree = match &met {
            Some((_, c)) => Some(self.tree_of(&self.find_commit(*c)?)?),
            None => None,
        };
        for (commit, parent) in line.into_iter().rev() {
            let tree = self.tree_of(&commit)?;
            walked.push(self.diff_commit(&commit, parent, parent_tree.as_ref(), &tree)?);
            parent_tree = Some(tree);
        }
        let mut index = match met {
            Some((seq, c)) => stored_index(conn, seq, c),
            None => HistoryIndex { shallow: walk_shallow, ..HistoryIndex::default() },
        };
        index.extend(walked);
        Ok(Some(index))
    }

    /// The commit `commit` with its changes against `parent_tree` (its first parent's tree;
    /// `None`: an empty tree), by libgit2 ([`super::treediff`]).
    fn diff_commit(
        &self,
        commit: &git2::Commit<'_>,
        parent: Option<Oid>,
        parent_tree: Option<&git2::Tree<'_>>,
        tree: &git2::Tree<'_>,
    ) -> Result<IndexedCommit, ArchiveError> {
        // Only the folders whose ids changed are read (libgit2's own tree diff reads all).
        let changes = super::treediff::tree_changes(&self.repo, parent_tree, Some(tree))
            .map_err(|e| ArchiveError::git_oid("diff commit", commit.id(), e))?;
        let (author_name, author_email, time, message) = commit_meta(commit);
        Ok(IndexedCommit {
            commit: CommitId(commit.id()),
            parent: parent.map(CommitId),
            author_name: Arc::from(author_name),
            author_email: Arc::from(author_email),
            time,
            message,
            changes,
        })
    }

    /// Brings the stored line to the line ending at `target` (see the module docs), under
    /// the writers' lock.
    fn store_line(&self, conn: &Connection, dir: &std::path::Path, target: CommitId) -> Result<(), Failure> {
        // Nothing to do (the usual case): no lock, no walk.
        let meta = read_meta(conn)?;
        if meta.complete && meta.tip == Some(target.0) && !self.shallow_cut_gone(&meta) {
            return Ok(());
        }
        let _lock = cache::WriterLock::take(dir);
        // A page cache of 16 MiB (SQLite's default is 2): an extension writes rows all over
        // the lookup indexes, and the end of a walk from scratch sorts them.
        conn.pragma_update(None, "cache_size", -16_384)?;
        let mut numbers = Numbers::default();
        let mut meta = read_meta(conn)?;
        if self.shallow_cut_gone(&meta) {
            conn.execute_batch("BEGIN IMMEDIATE")?;
            clear_line(conn)?;
            conn.execute_batch("COMMIT")?;
            meta = Meta::default();
        }
        if meta.tip.is_some() && !meta.complete {
            // A walk from scratch that was cut short: continued from its oldest commit.
            self.continue_walk(conn, &mut numbers, &meta, &mut |_| ())?;
            meta = read_meta(conn)?;
        }
        if meta.tip == Some(target.0) {
            return Ok(());
        }
        if meta.tip.is_none() {
            return self.walk_from_scratch(conn, &mut numbers, target.0, 0, &mut |_| ());
        }
        // Walked back (ids only) until the stored line.
        let mut ids: Vec<Oid> = Vec::new();
        let mut met: Option<i64> = None;
        let mut commit = self.find_commit(target)?;
        loop {
            if let Some(seq) = seq_of(conn, commit.id(), meta.high)? {
                met = Some(seq);
                break;
            }
            ids.push(commit.id());
            match self.first_parent(&commit)? {
                Some((_, Some(p))) => commit = p,
                _ => break,
            }
        }
        let Some(seq) = met else {
            // Another history: walked from scratch.
            conn.execute_batch("BEGIN IMMEDIATE")?;
            clear_line(conn)?;
            conn.execute_batch("COMMIT")?;
            return self.walk_from_scratch(conn, &mut numbers, target.0, 0, &mut |_| ());
        };
        // The new commits, newest first, numbered down from `seq + k`, in batches; the line
        // is moved to them in the last batch's transaction. Until then the rows above `seq`
        // are no part of the stored line (every question reads up to its `high`), and a
        // crash leaves them for the next extension to drop.
        let k = ids.len();
        drop(ids);
        conn.execute_batch("BEGIN IMMEDIATE")?;
        cut_after(conn, seq)?;
        write_meta(conn, &Meta { tip: Some(commit.id()), high: seq, ..meta })?;
        conn.execute_batch("COMMIT")?;
        let mut source = CommitSource::new(target.0, k > segment());
        // A few commits: libgit2 diffs them faster than git starts.
        source.use_git &= k > BULK;
        let mut next_seq = seq + k as i64;
        let mut left = k;
        while left > 0 {
            let n = left.min(BATCH);
            let mut batch = Vec::with_capacity(n);
            for _ in 0..n {
                match source.next(self)? {
                    Some(c) => batch.push(c),
                    None => return Err(Failure::Db),
                }
            }
            conn.execute_batch("BEGIN IMMEDIATE")?;
            for c in &batch {
                insert_commit(conn, &mut numbers, next_seq, c)?;
                next_seq -= 1;
            }
            left -= n;
            if left == 0 {
                write_meta(conn, &Meta { tip: Some(target.0), high: seq + k as i64, ..meta })?;
            }
            conn.execute_batch("COMMIT")?;
        }
        #[cfg(test)]
        if source.through_git && k > BULK {
            WALKS_THROUGH_GIT.with(|w| w.set(w.get() + 1));
        }
        Ok(())
    }

    /// Whether the stored line ends at a shallow boundary whose parent is now present.
    fn shallow_cut_gone(&self, meta: &Meta) -> bool {
        let Some(cut) = meta.shallow else { return false };
        let Ok(commit) = self.repo.find_commit(cut) else { return true };
        match self.first_parent(&commit) {
            Ok(Some((_, Some(_)))) => true,
            Ok(_) => false,
            Err(_) => true,
        }
    }

    /// Walks the line ending at `from` newest first into the (empty) stored line, numbering
    /// its commits `seq`, `seq - 1`, ... in transactions of [`BATCH`] commits.
    fn walk_from_scratch(
        &self,
        conn: &Connection,
        numbers: &mut Numbers,
        from: Oid,
        seq: i64,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(), Failure> {
        let meta = Meta { tip: Some(from), low: seq + 1, high: seq, complete: false, shallow: None };
        conn.execute_batch("BEGIN IMMEDIATE")?;
        conn.execute_batch(cache::NO_LOOKUPS)?;
        write_meta(conn, &meta)?;
        conn.execute_batch("COMMIT")?;
        self.walk_down(conn, numbers, meta, from, progress)
    }

    /// Continues a walk from scratch that was cut short (see [`Meta::complete`]).
    fn continue_walk(
        &self,
        conn: &Connection,
        numbers: &mut Numbers,
        meta: &Meta,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(), Failure> {
        if meta.low > meta.high {
            // Nothing stored yet.
            let tip = meta.tip.expect("a walk under way names its tip");
            return self.walk_down(conn, numbers, *meta, tip, progress);
        }
        let oldest = read_commit(conn, meta.low)?;
        match oldest.parent {
            Some(parent) if self.repo.find_commit(parent.0).is_ok() => {
                self.walk_down(conn, numbers, *meta, parent.0, progress)
            }
            end => {
                // The root, or a shallow boundary: the walk had ended.
                conn.execute_batch("BEGIN IMMEDIATE")?;
                let shallow = end.map(|_| oldest.commit.0);
                conn.execute_batch(cache::LOOKUPS)?;
                write_meta(conn, &Meta { complete: true, shallow, ..*meta })?;
                conn.execute_batch("COMMIT")?;
                Ok(())
            }
        }
    }

    /// Writes the line from `from` (the first parent of the oldest stored commit, or the
    /// tip) down to its root, below `meta.low`.
    fn walk_down(
        &self,
        conn: &Connection,
        numbers: &mut Numbers,
        mut meta: Meta,
        from: Oid,
        progress: &mut dyn FnMut(usize),
    ) -> Result<(), Failure> {
        let mut source = CommitSource::new(from, true);
        let mut walked = 0usize;
        loop {
            let mut batch = Vec::with_capacity(BATCH.min(4096));
            let mut end = None;
            while batch.len() < BATCH {
                match source.next(self)? {
                    Some(c) => batch.push(c),
                    None => {
                        end = Some(source.shallow);
                        break;
                    }
                }
            }
            conn.execute_batch("BEGIN IMMEDIATE")?;
            for c in &batch {
                meta.low -= 1;
                insert_commit(conn, numbers, meta.low, c)?;
            }
            if let Some(shallow) = end {
                meta.complete = true;
                meta.shallow = shallow.map(|s| s.0);
                conn.execute_batch(cache::LOOKUPS)?;
            }
            write_meta(conn, &meta)?;
            conn.execute_batch("COMMIT")?;
            walked += batch.len();
            progress(walked);
            if end.is_some() {
                #[cfg(test)]
                if source.through_git {
                    WALKS_THROUGH_GIT.with(|w| w.set(w.get() + 1));
                }
                return Ok(());
            }
        }
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

    /// The cache database's path: `ravenpost/cache.sqlite3` in the (common) git directory.
    pub fn index_path(&self) -> PathBuf {
        cache::cache_file(&self.secrets_dir())
    }
}

/// An [`IndexedCommit`] of what `git log` listed.
fn git_commit(c: GitCommit) -> IndexedCommit {
    let mut changes: Vec<IndexedChange> = c
        .changes
        .into_iter()
        .map(|(path, blob, mode)| IndexedChange {
            path: Arc::from(String::from_utf8_lossy(&path)),
            blob: blob.map(BlobId),
            mode,
        })
        .collect();
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    IndexedCommit {
        commit: CommitId(c.id),
        parent: c.parent.map(CommitId),
        author_name: Arc::from(String::from_utf8_lossy(&c.name)),
        author_email: Arc::from(String::from_utf8_lossy(&c.email)),
        time: Timestamp::from_unix(c.seconds, c.offset_minutes),
        message: {
            let m = String::from_utf8_lossy(&c.message);
            m.strip_suffix('\n').unwrap_or(&m).to_string()
        },
        changes,
    }
}

/// The commits of a first-parent line, newest first: from `git log` while it answers the
/// line (each commit the first parent of the one before), else by libgit2's tree diffs.
/// git lists the line in segments of [`BATCH`] commits, one `git log` each: git keeps every
/// commit it has listed in memory, so one `git log` of a whole long line would hold it all.
struct CommitSource {
    log: Option<super::gitlog::FirstParentLog>,
    /// Whether the walk is long enough (more than a segment) for the next segment to be
    /// listed while this one is read ([`super::gitlog::log_ahead`]).
    long: bool,
    /// The next segment's log, started where this one's line goes on.
    ahead: Option<super::gitlog::Ahead>,
    /// Whether git is still asked (it answered the line so far).
    use_git: bool,
    /// How many commits the running `git log` has listed.
    listed: usize,
    /// The commit expected next (`None`: the line has ended).
    next: Option<Oid>,
    /// The shallow boundary, once the walk reached it.
    shallow: Option<CommitId>,
    /// The tree of the commit the walk is at, on a long walk whose changes git does not
    /// list; without it git lists them (`git log --raw`).
    tree_walk: Option<TreeWalk>,
    /// The commit git listed after the one taken last (its tree proved that one's changes).
    pending: Option<super::gitlog::GitCommit>,
    /// Whether the tree walk was started (once, at the start of a long walk).
    tree_walk_tried: bool,
    #[cfg(test)]
    through_git: bool,
}

impl CommitSource {
    /// A walk of the line from `from`; `long`: of more than a segment.
    fn new(from: Oid, long: bool) -> CommitSource {
        CommitSource {
            #[cfg(test)]
            through_git: !tests_walk_with_libgit2(),
            log: None,
            long,
            ahead: None,
            use_git: !tests_walk_with_libgit2(),
            listed: 0,
            next: Some(from),
            shallow: None,
            tree_walk: None,
            pending: None,
            tree_walk_tried: false,
        }
    }

    fn next(&mut self, archive: &Archive) -> Result<Option<IndexedCommit>, ArchiveError> {
        let Some(want) = self.next else { return Ok(None) };
        if self.use_git {
            if let Some(c) = self.next_through_git(archive, want) {
                return Ok(Some(c));
            }
            // Anything else than the commit expected: git is not asked again.
            #[cfg(test)]
            {
                self.through_git = false;
            }
            self.log = None;
            self.use_git = false;
            self.pending = None;
            self.tree_walk = None;
        }
        if let Some(ahead) = self.ahead.take() {
            // Stopped (dropped) before it lists more.
            drop(ahead.join());
        }
        let commit = archive.find_commit(CommitId(want))?;
        let (parent, parent_tree, next) = match archive.first_parent(&commit)? {
            None => (None, None, None),
            Some((id, Some(p))) => (Some(id), Some(archive.tree_of(&p)?), Some(id)),
            Some((id, None)) => {
                self.shallow = Some(CommitId(want));
                (Some(id), None, None)
            }
        };
        let tree = archive.tree_of(&commit)?;
        let c = archive.diff_commit(&commit, parent, parent_tree.as_ref(), &tree)?;
        self.next = next;
        Ok(Some(c))
    }

    /// The commit `want` as git lists it, with its changes (from the listing, or proven by
    /// the [`TreeWalk`] from its parent's tree, which git lists next); `None` when git
    /// lists anything else, fails, or `want` is a shallow boundary (libgit2 reads those).
    fn next_through_git(&mut self, archive: &Archive, want: Oid) -> Option<IndexedCommit> {
        let mut c = match self.pending.take() {
            Some(c) => c,
            None => self.list(archive, want)?,
        };
        // git shows a shallow boundary as a root: libgit2 reads its parent.
        if c.parent.is_none() && archive.repo.is_shallow() {
            return None;
        }
        if self.tree_walk.is_some() {
            match self.proven_changes(archive, &c) {
                Some(changes) => c.changes = changes,
                None => {
                    // The tree walk cannot go on (a tree no git writes, a failed read) or
                    // does not pay: git lists the changes from this commit on, as without it.
                    self.stop_tree_walk();
                    c = self.list(archive, want)?;
                }
            }
        }
        let c = git_commit(c);
        self.next = c.parent.map(|p| p.0);
        Some(c)
    }

    /// The changes of `c` from the tree walk, its parent listed to know its tree; `None`
    /// when the walk fails, or has diffed more commits than it proved (past
    /// [`DIFFS_BEFORE_GIVING_UP`]: messages that name no game, say).
    fn proven_changes(&mut self, archive: &Archive, c: &GitCommit) -> Option<Vec<super::gitlog::RawChange>> {
        let walk = self.tree_walk.as_ref()?;
        if walk.diffed > DIFFS_BEFORE_GIVING_UP && walk.diffed > walk.proven {
            return None;
        }
        let parent_tree = match c.parent {
            Some(p) => {
                let listed = self.list(archive, p)?;
                let tree = listed.tree;
                self.pending = Some(listed);
                Some(tree)
            }
            None => None,
        };
        self.tree_walk.as_mut()?.changes(archive, c.tree, parent_tree, &c.message).ok()
    }

    /// Ends the tree walk: the logs listed without changes are stopped, and the next
    /// listing lists them.
    fn stop_tree_walk(&mut self) {
        self.tree_walk = None;
        self.pending = None;
        self.log = None;
        self.listed = 0;
        if let Some(ahead) = self.ahead.take() {
            drop(ahead.join());
        }
    }

    /// The next commit git lists, when it is `want`: from the running segment's log, or
    /// a new one's (a long walk lists without changes when its tree can be walked).
    fn list(&mut self, archive: &Archive, want: Oid) -> Option<super::gitlog::GitCommit> {
        if self.log.is_none() {
            if let Some(move_ends) = archive.options.move_ends
                && self.long
                && !self.tree_walk_tried
            {
                self.tree_walk_tried = true;
                // Once, at the start of a long walk: guessing pays when no folder is huge.
                let tree = archive.repo.find_commit(want).ok()?.tree_id();
                self.tree_walk = TreeWalk::start(archive, tree, move_ends).ok().flatten();
            }
            self.log = self.segment_from(archive, want);
            self.listed = 0;
        }
        let c = self.log.as_mut()?.next()?.ok().filter(|c| c.id == want)?;
        self.listed += 1;
        if self.listed == segment() {
            // The next segment starts at this commit's parent: git lists it while the
            // caller stores this one.
            self.log = c.parent.and_then(|next| self.segment_from(archive, next));
            self.listed = 0;
        }
        Some(c)
    }

    /// The `git log` of the segment starting at `start`: the one listed ahead when it
    /// starts there, else started now; and, on a long walk, the segment after it started
    /// ahead.
    fn segment_from(&mut self, archive: &Archive, start: Oid) -> Option<super::gitlog::FirstParentLog> {
        let dir = archive.repo.path();
        let listed_ahead = match self.ahead.take().and_then(|a| a.join().ok().flatten()) {
            Some((from, log)) if from == start => Some(log),
            // Another line (not expected): stopped.
            _ => None,
        };
        #[cfg(test)]
        if listed_ahead.is_some() {
            SEGMENTS_LISTED_AHEAD.with(|n| n.set(n.get() + 1));
        }
        let log = listed_ahead
            .or_else(|| super::gitlog::first_parent_log(dir, start, segment(), self.tree_walk.is_none()))?;
        if self.long {
            self.ahead = super::gitlog::log_ahead(dir, start, segment(), segment(), self.tree_walk.is_none());
        }
        Some(log)
    }
}

impl Drop for CommitSource {
    fn drop(&mut self) {
        // The segment listed ahead is stopped now, not left to list to its end.
        if let Some(ahead) = self.ahead.take() {
            drop(ahead.join());
        }
    }
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

    /// An archive of `BULK + 40` commits made with libgit2: additions, changes, deletions,
    /// a mode change, a file become a symbolic link, a submodule entry, empty commits,
    /// nested folders, a path that is not UTF-8, messages without a final line break.
    fn odd_archive() -> (tempfile::TempDir, Archive, CommitId) {
        use git2::FileMode;
        let dir = tempfile::tempdir().unwrap();
        let ann = crate::archive::Identity::new("Ann Example", "ann@example.com");
        let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let tip = {
            let repo = &archive.repo;
            let sig =
                git2::Signature::new("Ann Example", "ann@example.com", &git2::Time::new(1_740_830_400, 90))
                    .unwrap();
            let mut head = repo.head().unwrap().peel_to_commit().unwrap();
            for i in 0..(BULK + 40) {
                let base = head.tree().unwrap();
                let mut update = git2::build::TreeUpdateBuilder::new();
                let blob = |text: String| repo.blob(text.as_bytes()).unwrap();
                let game = format!("games/grand/g{:02}.pgn", i % 7);
                match i % 11 {
                    0 | 3 | 5 | 8 => {
                        update.upsert(&game, blob(format!("move {i}\n")), FileMode::Blob);
                    }
                    1 => {
                        update.upsert(
                            format!("games/gygax/deep/h{i}.pgn"),
                            blob(format!("{i}")),
                            FileMode::Blob,
                        );
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
                let message = if i % 3 == 0 { format!("step {i}") } else { format!("step {i}\n\nbody\n") };
                let id = repo.commit(Some("HEAD"), &sig, &sig, &message, &tree, &[&head]).unwrap();
                head = repo.find_commit(id).unwrap();
            }
            CommitId(head.id())
        };
        (dir, archive, tip)
    }

    /// The line to `tip` walked as the commands walk it, with the notation's finder of
    /// moves (so through the tree walk), in segments of 50 commits (so that a short line
    /// is a long walk).
    fn walk_proving(archive: &mut Archive, tip: CommitId) -> HistoryIndex {
        let mut options = archive.options().clone();
        options.move_ends = Some(crate::notation::pgn::move_ends);
        archive.set_options(options);
        SEGMENT.with(|s| s.set(50));
        let line = archive.walk_line(tip, &mut |_| ()).unwrap();
        SEGMENT.with(|s| s.set(BATCH));
        line
    }

    fn same(a: &HistoryIndex, b: &HistoryIndex) {
        assert_eq!(a.len(), b.len());
        assert_eq!(a.commits(), b.commits());
        assert_eq!(a.paths(), b.paths());
        for p in a.paths() {
            assert_eq!(a.versions(&p), b.versions(&p), "{p}");
            assert_eq!(a.last_version(&p), b.last_version(&p), "{p}");
            assert_eq!(a.last_version(&p), a.versions(&p).last().copied(), "{p}");
            // Each version with its commit as read alone, but for the commit's changes.
            let want: Vec<(PathVersion, IndexedCommit)> = a
                .versions(&p)
                .into_iter()
                .map(|v| (v, IndexedCommit { changes: Vec::new(), ..a.commit_at(v.position) }))
                .collect();
            assert_eq!(a.version_commits(&p), want, "{p}");
            assert_eq!(b.version_commits(&p), want, "{p}");
        }
        // A deletion is a version without a blob.
        let deleted: Vec<String> =
            a.paths().into_iter().filter(|p| a.versions(p).iter().any(|v| v.blob.is_none())).collect();
        assert!(!deleted.is_empty(), "the archive deletes a file");
        assert_eq!(a.deleted_paths(), deleted);
        assert_eq!(b.deleted_paths(), deleted);
        for p in [0, 1, a.len() / 2, a.len() - 1] {
            let c = a.commit_at(p);
            assert_eq!(b.position(c.commit), Some(p));
            assert_eq!(b.commit_at(p), c);
        }
    }

    /// The walk through git's log and the walk through libgit2's tree diffs give the same
    /// index; so do the database and an index held in memory of the same commits.
    #[test]
    fn a_long_walk_through_git_log_equals_the_libgit2_walk() {
        let (_dir, archive, tip) = odd_archive();
        let before = WALKS_THROUGH_GIT.with(std::cell::Cell::get);
        let ahead_before = SEGMENTS_LISTED_AHEAD.with(std::cell::Cell::get);
        // In segments of 50 commits: six `git log`s, each after the first listed while the
        // one before was read.
        SEGMENT.with(|s| s.set(50));
        let through_git = archive.walk_line(tip, &mut |_| ()).unwrap();
        SEGMENT.with(|s| s.set(BATCH));
        assert_eq!(WALKS_THROUGH_GIT.with(std::cell::Cell::get), before + 1, "git's log answered");
        assert_eq!(SEGMENTS_LISTED_AHEAD.with(std::cell::Cell::get), ahead_before + 5);
        WALK_WITH_LIBGIT2.with(|w| w.set(true));
        let through_libgit2 = archive.walk_line(tip, &mut |_| ()).unwrap();
        WALK_WITH_LIBGIT2.with(|w| w.set(false));
        assert_eq!(through_git.len(), BULK + 41);
        same(&through_git, &through_libgit2);
        // With the finder of moves, the tree walk diffs each of these commits (no guess
        // holds): links, a submodule, a type change, names that are no UTF-8, deletions.
        let mut archive = archive;
        let through_tree_walk = walk_proving(&mut archive, tip);
        same(&through_tree_walk, &through_libgit2);
        let in_memory = HistoryIndex::from_commits(through_git.commits(), None);
        same(&through_git, &in_memory);
        // A type change alone is no new version of the path (its bytes are the same).
        assert_eq!(through_git.versions("games/grand/link.pgn").len(), 1);
        // Stored in the cache database with the branch at a prefix, then extended to the
        // tip through git's log.
        let prefix = through_git.commit_at(20).commit;
        let branch = archive.repo.head().unwrap().name().unwrap().to_string();
        archive.repo.reference(&branch, prefix.0, true, "back").unwrap();
        let stored = archive.index().unwrap();
        assert_eq!(stored.len(), 21);
        archive.repo.reference(&branch, tip.0, true, "forth").unwrap();
        let before = WALKS_THROUGH_GIT.with(std::cell::Cell::get);
        SEGMENT.with(|s| s.set(50));
        let extended = archive.index().unwrap();
        SEGMENT.with(|s| s.set(BATCH));
        assert_eq!(WALKS_THROUGH_GIT.with(std::cell::Cell::get), before + 1, "extended through git's log");
        same(&extended, &through_git);
    }

    /// Games grown one move a commit, as ravenpost writes them, beside commits no guess
    /// explains (a draw offer, a resignation, a hand edit under a move's message, two games
    /// at once, a file beside them, an empty commit, a deletion): a long walk through git's
    /// log proves most moves and every game's making by hashing trees, and its index is the
    /// libgit2 walk's.
    #[test]
    fn a_long_walk_proves_added_moves_by_hashing_trees() {
        use crate::record::{self, DrawAction};
        use git2::FileMode;
        let dir = tempfile::tempdir().unwrap();
        let ann = crate::archive::Identity::new("Ann Example", "ann@example.com");
        let mut archive =
            Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let (tip, moves) = {
            let repo = &archive.repo;
            let sig =
                git2::Signature::new("Ann Example", "ann@example.com", &git2::Time::new(1_740_830_400, 0))
                    .unwrap();
            let mut head = repo.head().unwrap().peel_to_commit().unwrap();
            let mut commit = |files: &[(&str, Option<&str>)], message: &str| {
                let mut update = git2::build::TreeUpdateBuilder::new();
                for (path, text) in files {
                    match text {
                        Some(t) => update.upsert(*path, repo.blob(t.as_bytes()).unwrap(), FileMode::Blob),
                        None => update.remove(*path),
                    };
                }
                let tree =
                    repo.find_tree(update.create_updated(repo, &head.tree().unwrap()).unwrap()).unwrap();
                let id = repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[&head]).unwrap();
                head = repo.find_commit(id).unwrap();
            };
            // g1 and g2 share a folder; g3 is alone in its own, which its making makes.
            let paths = ["games/grand/a/b/g1.pgn", "games/grand/a/b/g2.pgn", "games/grand/c/d/g3.pgn"];
            let tags: Vec<(String, String)> = [("White", "Ann"), ("Black", "Bo"), ("Variant", "grand")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let mut texts = vec![record::game_text_from_tags(&tags); 3];
            for (g, path) in paths.iter().enumerate() {
                commit(&[(path, Some(&texts[g]))], &format!("g{}: new game", g + 1));
            }
            let mut moves = 0;
            for ply in 0..30_usize {
                for g in 0..3 {
                    let game = record::load(&texts[g]).unwrap();
                    let pos = game.position();
                    let legal = game.variant.legal_moves(&pos);
                    let mv = legal[(ply * 7 + g) % legal.len()];
                    let san = crate::notation::san::write_move(&game.variant, &pos, &mv);
                    texts[g] = record::play(&game, &san, record::Play::default()).unwrap().0.text;
                    let message = format!("g{}: ply {} {san}", g + 1, ply + 1);
                    match (ply, g) {
                        (10, 2) => {
                            // A hand edit under a move's message: lines ending in CR LF.
                            texts[g] = texts[g].replace('\n', "\r\n");
                            commit(&[(paths[g], Some(&texts[g]))], &message);
                        }
                        (14, 0) => {
                            // Two games in one commit.
                            let other =
                                record::draw(&record::load(&texts[1]).unwrap(), None, DrawAction::Offer);
                            texts[1] = other.unwrap().0.text;
                            commit(&[(paths[0], Some(&texts[0])), (paths[1], Some(&texts[1]))], &message);
                        }
                        _ => {
                            commit(&[(paths[g], Some(&texts[g]))], &message);
                            moves += 1;
                        }
                    }
                }
                if ply == 20 {
                    commit(&[("notes.txt", Some("a file beside the games\n"))], "g1: a note");
                    commit(&[], "g2: nothing");
                }
            }
            let resigned = record::resign(&record::load(&texts[0]).unwrap(), Some("Bo")).unwrap().0.text;
            commit(&[(paths[0], Some(&resigned))], "g1: Bo resigns");
            commit(&[(paths[1], None)], "g2: deleted");
            (CommitId(head.id()), moves)
        };
        // Without the finder of moves, git lists the changes; with it, the tree walk proves.
        let through_raw_log = archive.walk_line(tip, &mut |_| ()).unwrap();
        let through_git = walk_proving(&mut archive, tip);
        WALK_WITH_LIBGIT2.with(|w| w.set(true));
        let through_libgit2 = archive.walk_line(tip, &mut |_| ()).unwrap();
        WALK_WITH_LIBGIT2.with(|w| w.set(false));
        assert_eq!(through_git.len(), 1 + 3 + 90 + 2 + 2);
        same(&through_git, &through_libgit2);
        same(&through_raw_log, &through_libgit2);
        // The walk itself, commit by commit: the changes of each, and how many it proved.
        let tree = |c: &IndexedCommit| archive.repo.find_commit(c.commit.0).unwrap().tree_id();
        let newest = through_git.commit_at(through_git.len() - 1);
        let start = || {
            TreeWalk::start(&archive, tree(&newest), crate::notation::pgn::move_ends)
                .unwrap()
                .expect("small folders")
        };
        // Holding one game's text at most: the other games' commits are diffed.
        let mut one_text = start();
        one_text.text_limit = 1;
        let mut walk = start();
        for p in (0..through_git.len()).rev() {
            let c = through_git.commit_at(p);
            let parent = (p > 0).then(|| tree(&through_git.commit_at(p - 1)));
            let changes = walk.changes(&archive, tree(&c), parent, c.message.as_bytes()).unwrap();
            let mut held = one_text.changes(&archive, tree(&c), parent, c.message.as_bytes()).unwrap();
            let mut sorted = changes.clone();
            held.sort();
            sorted.sort();
            assert_eq!(held, sorted, "{}", c.message);
            let commit = git_commit(GitCommit {
                id: c.commit.0,
                tree: tree(&c),
                parent: c.parent.map(|p| p.0),
                name: c.author_name.as_bytes().to_vec(),
                email: c.author_email.as_bytes().to_vec(),
                seconds: c.time.unix_seconds(),
                offset_minutes: 0,
                message: c.message.clone().into_bytes(),
                changes,
            });
            assert_eq!(commit.changes, through_libgit2.commit_at(p).changes, "{}", c.message);
        }
        // The makings (3) and most of the 88 plain moves: not those after the CR LF edit
        // (no cut of a later text), nor the move of g2 after its draw offer.
        assert!(walk.proven >= 3 + 60, "{} of {} proven", walk.proven, 3 + moves);
        assert!(walk.proven <= 3 + moves, "{} of {} proven", walk.proven, 3 + moves);
        assert!(one_text.proven > 0 && one_text.proven < walk.proven, "{} with one text", one_text.proven);
    }

    /// Regression: trees that no git writes, made in the object database by hand. A
    /// game's mode written as `100664` was listed by the tree walk as such (the referee
    /// then called the file no regular file) where git reads 100644; and a folder's
    /// entries out of git's order were merged as if sorted, blaming deletions on other
    /// commits. The walk lists what `git log --raw` lists for both.
    #[test]
    fn a_mode_100664_and_a_tree_out_of_order_are_listed_as_git_lists_them() {
        let (_dir, mut archive, _) = odd_archive();
        let tip = {
            let repo = &archive.repo;
            let odb = repo.odb().unwrap();
            let blob = |t: &str| repo.blob(t.as_bytes()).unwrap();
            // A tree of raw entries (mode, name, id), written in the order given.
            let tree = |entries: &[(&str, &str, Oid)]| {
                let mut bytes = Vec::new();
                for (mode, name, id) in entries {
                    bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
                    bytes.extend_from_slice(id.as_bytes());
                }
                odb.write(git2::ObjectType::Tree, &bytes).unwrap()
            };
            let root = |grand: &[(&str, &str, Oid)]| {
                let games = tree(&[("40000", "grand", tree(grand))]);
                tree(&[("40000", "games", games)])
            };
            let sig =
                git2::Signature::new("Ann Example", "ann@example.com", &git2::Time::new(1_740_830_400, 0))
                    .unwrap();
            let mut head = repo.head().unwrap().peel_to_commit().unwrap();
            let (a, b) = (blob("a\n"), blob("b\n"));
            let commits = [
                ("g00: out of order", root(&[("100644", "g01.pgn", b), ("100644", "g00.pgn", a)])),
                ("g00: in order", root(&[("100644", "g00.pgn", a), ("100644", "g01.pgn", b)])),
                ("g00: mode 100664", root(&[("100664", "g00.pgn", blob("c\n")), ("100644", "g01.pgn", b)])),
                ("g00: mode 100644", root(&[("100644", "g00.pgn", blob("d\n")), ("100644", "g01.pgn", b)])),
            ];
            for (message, id) in commits {
                let t = repo.find_tree(id).unwrap();
                let id = repo.commit(Some("HEAD"), &sig, &sig, message, &t, &[&head]).unwrap();
                head = repo.find_commit(id).unwrap();
            }
            CommitId(head.id())
        };
        let through_raw_log = archive.walk_line(tip, &mut |_| ()).unwrap();
        let through_tree_walk = walk_proving(&mut archive, tip);
        same(&through_tree_walk, &through_raw_log);
        let n = through_raw_log.len();
        let mode = through_raw_log.commit_at(n - 2).changes[0].mode;
        assert_eq!(mode, 0o100_644, "git reads the mode 100664 as 100644");
    }

    /// A walk from scratch killed between two of its transactions is continued by the next
    /// command from where it stopped, with the answers of a walk done at once.
    #[test]
    fn a_walk_cut_short_is_continued() {
        let (_dir, archive, tip) = odd_archive();
        let whole = archive.walk_line(tip, &mut |_| ()).unwrap();
        let dir = archive.secrets_dir();
        let conn = cache::open(&dir).unwrap();
        // What a walk writes before its second transaction: the newest commits, numbered
        // down from 0, the line not complete.
        let mut numbers = Numbers::default();
        let newest = 100;
        conn.execute_batch("BEGIN").unwrap();
        for k in 0..newest {
            insert_commit(&conn, &mut numbers, -(k as i64), &whole.commit_at(whole.len() - 1 - k)).unwrap();
        }
        let meta =
            Meta { tip: Some(tip.0), low: -(newest as i64 - 1), high: 0, complete: false, shallow: None };
        write_meta(&conn, &meta).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        drop(conn);
        same(&archive.index().unwrap(), &whole);
        let meta = read_meta(&cache::open(&dir).unwrap()).unwrap();
        assert!(meta.complete);
        assert_eq!(meta.high - meta.low + 1, whole.len() as i64);
    }

    /// Two file names that read the same in lossy UTF-8 (`x\xff` and `x\xfe`) share a
    /// path: one commit that renames the one into the other changes it twice; both
    /// changes are kept, and the last version is that commit's last change.
    #[test]
    fn a_lossy_path_changed_twice_in_one_commit_keeps_both_changes() {
        let id = |n: u8| CommitId(Oid::from_bytes(&[n; 20]).unwrap());
        let blob = |n: u8| Some(BlobId(Oid::from_bytes(&[n; 20]).unwrap()));
        let path: Arc<str> = "games/grand/x\u{fffd}.pgn".into();
        let change = |blob: Option<BlobId>| IndexedChange {
            path: path.clone(),
            blob,
            mode: if blob.is_some() { 0o100_644 } else { 0 },
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
        let commits = vec![c(1, vec![change(blob(11))]), c(2, vec![change(blob(11)), change(None)])];
        let walked = HistoryIndex::from_commits(commits.clone(), None);
        let want = [(0, blob(11)), (1, None)];
        assert_eq!(walked.versions(&path).iter().map(|v| (v.position, v.blob)).collect::<Vec<_>>(), want);
        // The same commits in a database.
        let conn = cache::in_memory().unwrap();
        let mut numbers = Numbers::default();
        for (k, commit) in commits.iter().enumerate() {
            insert_commit(&conn, &mut numbers, k as i64, commit).unwrap();
        }
        let stored = HistoryIndex {
            db: Some(Arc::new(Snapshot {
                conn: Mutex::new(conn),
                dir: None,
                fallback: OnceLock::new(),
                git_dir: PathBuf::new(),
            })),
            stored: 2,
            low: 0,
            stored_tip: Some(id(2)),
            ..HistoryIndex::default()
        };
        assert_eq!(stored.versions(&path), walked.versions(&path));
        assert_eq!(stored.last_version(&path), walked.versions(&path).last().copied());
        assert_eq!(stored.commits(), commits);
    }
}
