//! The archive's cache database: the history index and the verdicts, in SQLite.
//!
//! Both are caches of what git already holds: a commit id names its tree and its whole
//! history, so an entry keyed by a commit can only be *missing*, never wrong. They live in
//! one SQLite database, `<common git dir>/ravenpost/cache.sqlite3` (never committed, never
//! pushed), in write-ahead-log mode: readers see one consistent snapshot for as long as
//! they keep it ([`super::HistoryIndex`] keeps one), while one writer at a time adds rows
//! in transactions. A crash (or `kill -9`) at any point leaves the last committed
//! transaction, which SQLite guarantees; the index's own bookkeeping (which part of the
//! line is stored, see [`super::index`]) is committed in the same transaction as the rows
//! it describes.
//!
//! **What is never trusted.** A file that is not a database, a database whose schema is
//! another one (written by another release), a file shorter than its header says (cut off
//! by a full disk or a copy), or any error while reading it: the file is deleted and made
//! again from git, silently, and if that fails too the answer is computed in memory. So
//! every question gets the answer a cold rebuild would give.
//!
//! Writers of the index also take an advisory lock on `cache.lock` beside it, so that
//! two commands that both find the index behind do the walk once; the kernel drops the
//! lock with the process, so a crash leaves nothing locked.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

/// The database's file name in [`super::Archive::secrets_dir`].
pub(crate) const CACHE_FILE: &str = "cache.sqlite3";

/// The lock file index writers hold (see the module docs).
const LOCK_FILE: &str = "cache.lock";

/// The schema's version (SQLite's `user_version`): a database with another one is made
/// again. 0 is a new, empty database.
const SCHEMA_VERSION: i64 = 5;

/// The files earlier releases kept in the same folder (their own formats), removed when the
/// database is made.
const OLD_FILES: &[&str] = &["index-v1", "index-v2"];

/// The prefix of earlier releases' verdict files, removed with them.
const OLD_VERDICT_PREFIX: &str = "verdicts-";

/// How long a reader or writer waits for another's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

const SCHEMA: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,
    UNIQUE (name, email));
CREATE TABLE paths (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE commits (seq INTEGER PRIMARY KEY, id BLOB NOT NULL, parent BLOB,
    author INTEGER NOT NULL, time INTEGER NOT NULL, offset INTEGER NOT NULL,
    message TEXT NOT NULL);
CREATE TABLE changes (seq INTEGER NOT NULL, n INTEGER NOT NULL, path INTEGER NOT NULL,
    blob BLOB, mode INTEGER NOT NULL, PRIMARY KEY (seq, n)) WITHOUT ROWID;
CREATE TABLE verdicts (namespace TEXT NOT NULL, commit_id BLOB NOT NULL, path TEXT NOT NULL,
    verdict TEXT NOT NULL, PRIMARY KEY (namespace, path, commit_id)) WITHOUT ROWID;
";

/// The indexes that look up a commit by id and a path's changes (with each change's blob
/// and mode, so that a path's versions read no row of `changes`). A walk from scratch
/// writes its rows without them (rows in commit order go in at one end of their tables;
/// these indexes would take them all over, and rewrite most of their pages in every
/// batch) and makes them when it ends, from the sorted rows.
pub(crate) const LOOKUPS: &str = "
CREATE UNIQUE INDEX IF NOT EXISTS commits_by_id ON commits (id);
CREATE INDEX IF NOT EXISTS changes_by_path ON changes (path, seq, n, blob, mode);
";

/// Drops [`LOOKUPS`] (before a walk from scratch).
pub(crate) const NO_LOOKUPS: &str = "
DROP INDEX IF EXISTS commits_by_id;
DROP INDEX IF EXISTS changes_by_path;
";

/// The database file of the git directory `dir` (the archive's secrets folder).
pub(crate) fn cache_file(dir: &Path) -> PathBuf {
    dir.join(CACHE_FILE)
}

/// Opens the cache database in `dir` (made if missing or unusable, see the module docs);
/// `None` when it cannot be opened or made there (a read-only repository), and the caller
/// works in memory.
pub(crate) fn open(dir: &Path) -> Option<Connection> {
    for attempt in 0..2 {
        match try_open(dir) {
            Ok(c) => return Some(c),
            Err(_) if attempt == 0 => remove(dir),
            Err(_) => {}
        }
    }
    None
}

/// A new empty database in memory, with the same tables.
pub(crate) fn in_memory() -> Option<Connection> {
    let c = Connection::open_in_memory().ok()?;
    stable_plans(&c).ok()?;
    c.execute_batch(SCHEMA).ok()?;
    c.execute_batch(LOOKUPS).ok()?;
    c.pragma_update(None, "user_version", SCHEMA_VERSION).ok()?;
    Some(c)
}

/// Keeps each statement's query plan whatever values are bound to it. Without this
/// SQLite compiles some statements again whenever a parameter's value changes (it did for
/// the index's questions by commit and by path: a third of a cold `verify`'s judging
/// went into compiling the same SQL again); their plans do not depend on the values.
fn stable_plans(c: &Connection) -> rusqlite::Result<bool> {
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
}

/// Deletes the database of `dir` (and its log), so that the next open makes it again.
pub(crate) fn remove(dir: &Path) {
    let file = cache_file(dir);
    for suffix in ["", "-wal", "-shm"] {
        let mut name = file.clone().into_os_string();
        name.push(suffix);
        let _ = fs::remove_file(PathBuf::from(name));
    }
}

fn try_open(dir: &Path) -> Result<Connection, Box<dyn std::error::Error>> {
    fs::create_dir_all(dir)?;
    let file = cache_file(dir);
    if let Some(problem) = header_problem(&file) {
        return Err(problem.into());
    }
    let flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let c = Connection::open_with_flags(&file, flags)?;
    stable_plans(&c)?;
    c.busy_timeout(BUSY_TIMEOUT)?;
    // WAL: readers keep a snapshot while a writer commits. NORMAL: a commit is durable
    // against a crash of the process (not of the machine), which is all a cache needs.
    let mode: String = c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err("the cache database cannot use a write-ahead log".into());
    }
    c.pragma_update(None, "synchronous", "NORMAL")?;
    let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if version == 0 {
        c.execute_batch("BEGIN IMMEDIATE")?;
        // Another process may have made it meanwhile.
        let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version == 0 {
            c.execute_batch(SCHEMA)?;
            c.execute_batch(LOOKUPS)?;
            c.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        }
        c.execute_batch("COMMIT")?;
        for old in OLD_FILES {
            let _ = fs::remove_file(dir.join(old));
        }
        if let Ok(entries) = fs::read_dir(dir) {
            for e in entries.flatten() {
                if e.file_name().to_string_lossy().starts_with(OLD_VERDICT_PREFIX) {
                    let _ = fs::remove_file(e.path());
                }
            }
        }
    } else if version != SCHEMA_VERSION {
        return Err("the cache database has another schema".into());
    }
    // A query that reads the schema: a file that is no database fails here.
    let _: Option<String> =
        c.query_row("SELECT value FROM meta WHERE key = 'none'", [], |r| r.get(0)).optional()?;
    Ok(c)
}

/// Why the file at `file` cannot be a whole database, judged from its 100-byte header: not
/// SQLite's, or shorter than the page count the header states (cut off). `None` when the
/// file is missing (it will be made) or looks whole.
fn header_problem(file: &Path) -> Option<&'static str> {
    use std::io::Read;
    let mut f = fs::File::open(file).ok()?;
    let len = f.metadata().ok()?.len();
    if len == 0 {
        return None;
    }
    let mut header = [0u8; 100];
    if f.read_exact(&mut header).is_err() || &header[..16] != b"SQLite format 3\0" {
        return Some("not a database");
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => u64::from(n),
    };
    let pages = u64::from(u32::from_be_bytes([header[28], header[29], header[30], header[31]]));
    // The page count is valid when the change counter equals the version-valid-for number.
    let valid = header[24..28] == header[92..96];
    (valid && pages > 0 && len < pages * page_size).then_some("shorter than its header says")
}

/// The advisory lock index writers hold while they walk and write (see the module docs);
/// released when dropped (or when the process ends, however it ends).
pub(crate) struct WriterLock(fs::File);

impl WriterLock {
    /// Takes the lock of `dir`, waiting for another writer; `None` when it cannot be taken
    /// (the caller then writes without it: SQLite's own locking still keeps the database
    /// whole).
    pub(crate) fn take(dir: &Path) -> Option<WriterLock> {
        let f =
            fs::OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(LOCK_FILE)).ok()?;
        f.lock().ok()?;
        Some(WriterLock(f))
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: SQLite compiled the index's questions by commit and by path again each
    /// time their parameter changed (a third of a cold `verify`'s judging); every
    /// connection, on disk and in memory, keeps its plans.
    #[test]
    fn cache_connections_keep_their_query_plans() {
        let dir = tempfile::tempdir().unwrap();
        let qpsg = rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG;
        assert!(open(dir.path()).unwrap().db_config(qpsg).unwrap());
        assert!(in_memory().unwrap().db_config(qpsg).unwrap());
        assert!(!Connection::open_in_memory().unwrap().db_config(qpsg).unwrap(), "off by default");
    }

    #[test]
    fn a_file_that_is_no_database_or_is_cut_off_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let c = open(dir.path()).unwrap();
        c.execute("INSERT INTO meta (key, value) VALUES ('x', 1)", []).unwrap();
        for i in 0..200 {
            c.execute("INSERT INTO paths (path) VALUES (?1)", [format!("games/grand/{i:0>300}.pgn")])
                .unwrap();
        }
        c.pragma_update(None, "wal_checkpoint", "TRUNCATE").unwrap();
        drop(c);
        let file = cache_file(dir.path());
        let whole = fs::read(&file).unwrap();
        assert!(whole.len() > 8192);
        assert_eq!(header_problem(&file), None);
        fs::write(&file, &whole[..whole.len() - 4096]).unwrap();
        assert_eq!(header_problem(&file), Some("shorter than its header says"));
        let c = open(dir.path()).unwrap();
        let n: i64 = c.query_row("SELECT count(*) FROM paths", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0, "made again, empty");
        drop(c);
        fs::write(&file, vec![0x5a; 20_000]).unwrap();
        assert_eq!(header_problem(&file), Some("not a database"));
        assert!(open(dir.path()).is_some());
        // Another schema (a later release's).
        let c = open(dir.path()).unwrap();
        c.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        c.execute("INSERT INTO meta (key, value) VALUES ('y', 1)", []).unwrap();
        drop(c);
        let c = open(dir.path()).unwrap();
        let n: i64 = c.query_row("SELECT count(*) FROM meta", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 0);
    }
}
