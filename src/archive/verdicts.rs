//! The verdict cache: what a checker concluded about one file at one commit, kept between
//! runs so that checking an archive again after N new commits costs N checks.
//!
//! A [`VerdictCache`] maps `(commit id, path)` to a string the caller chose (the referee
//! layer stores its serialized verdict), in the archive's cache database
//! ([`super::cache`], never committed). The namespace names the checker and its version,
//! so a new release, whose rules may judge differently, starts with no verdicts instead of
//! trusting the old ones.
//!
//! **Why an entry cannot go wrong.** A commit id is the hash of the commit, its tree and
//! (through its parents' ids) its whole history: a file at a commit, and everything that
//! led to it, is fixed by the id. A rewritten branch consists of new commits with new ids,
//! which have no entries yet; the old entries are merely unused. What a crash or a bad
//! file can do to the database is [`super::cache`]'s to survive (it is made again).
//! [`VerdictCache::save`] writes the verdicts put since loading in one transaction.
//!
//! ```
//! use ravenpost::archive::{Archive, Identity, Timestamp};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let ann = Identity::new("Ann Example", "ann@example.com");
//! let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
//! let tip = archive.tip().unwrap().unwrap();
//! let mut cache = archive.verdict_cache("doc-0.1");
//! cache.put(tip, "ravenpost.yaml", "ok".to_string());
//! cache.save().unwrap();
//! assert_eq!(archive.verdict_cache("doc-0.1").get(tip, "ravenpost.yaml").as_deref(), Some("ok"));
//! assert_eq!(archive.verdict_cache("doc-0.2").get(tip, "ravenpost.yaml"), None);
//! ```

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use rusqlite::{Connection, OptionalExtension, params};

use super::{Archive, ArchiveError, CommitId, cache};

/// Verdicts by commit and path, read from and saved to the cache database; see the
/// [module docs](self). Each question reads one row.
#[derive(Debug)]
pub struct VerdictCache {
    namespace: String,
    file: PathBuf,
    /// The database; `None` when it cannot be opened (then only what is put is known).
    conn: Option<Mutex<Connection>>,
    /// Verdicts put since loading (they take precedence over the database's), in order.
    added: HashMap<(CommitId, String), String>,
    unsaved: Vec<(CommitId, String)>,
    /// Verdicts added in batches ([`VerdictCache::append`]), saved after `unsaved`.
    appended: Vec<(CommitId, String, String)>,
    /// Verdicts removed since loading ([`VerdictCache::remove`]), deleted by `save`.
    removed: Vec<(CommitId, String)>,
}

impl Archive {
    /// The verdict cache of `namespace` (e.g. `referee-0.3.1`): empty if there is none yet
    /// or the database cannot be read.
    pub fn verdict_cache(&self, namespace: &str) -> VerdictCache {
        let dir = self.secrets_dir();
        VerdictCache {
            namespace: namespace.to_string(),
            file: cache::cache_file(&dir),
            conn: cache::open(&dir).map(Mutex::new),
            added: HashMap::new(),
            unsaved: Vec::new(),
            appended: Vec::new(),
            removed: Vec::new(),
        }
    }
}

impl VerdictCache {
    /// The verdict stored for `path` at `commit`: the last one put, else the database's.
    pub fn get(&self, commit: CommitId, path: &str) -> Option<String> {
        let key = (commit, path.to_string());
        if let Some(v) = self.added.get(&key) {
            return Some(v.clone());
        }
        if self.removed.contains(&key) {
            return None;
        }
        let conn = self.conn.as_ref()?.lock().ok()?;
        conn.prepare_cached(
            "SELECT verdict FROM verdicts WHERE namespace = ?1 AND path = ?2 AND commit_id = ?3",
        )
        .and_then(|mut s| {
            s.query_row(params![self.namespace, path, commit.0.as_bytes()], |r| r.get(0)).optional()
        })
        .ok()
        .flatten()
    }

    /// Every verdict stored for `path`, by commit (what was put since loading included):
    /// one read for all the versions of a file.
    pub fn for_path(&self, path: &str) -> HashMap<CommitId, String> {
        let mut out = HashMap::new();
        if let Some(conn) = self.conn.as_ref().and_then(|c| c.lock().ok()) {
            let read = conn
                .prepare_cached("SELECT commit_id, verdict FROM verdicts WHERE namespace = ?1 AND path = ?2")
                .and_then(|mut s| {
                    let rows = s.query_map(params![self.namespace, path], |r| {
                        Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?))
                    })?;
                    for row in rows {
                        let (id, v) = row?;
                        if let Ok(id) = git2::Oid::from_bytes(&id) {
                            out.insert(CommitId(id), v);
                        }
                    }
                    Ok(())
                });
            if read.is_err() {
                out.clear();
            }
        }
        for ((commit, p), v) in &self.added {
            if p == path {
                out.insert(*commit, v.clone());
            }
        }
        out
    }

    /// Every verdict stored at `commit`, by path (what was put or removed since loading
    /// included), in the order of the paths: one read for the rows a caller keeps under
    /// one key commit.
    pub fn at_commit(&self, commit: CommitId) -> Vec<(String, String)> {
        let mut out = std::collections::BTreeMap::new();
        if let Some(conn) = self.conn.as_ref().and_then(|c| c.lock().ok()) {
            let read = conn
                .prepare_cached("SELECT path, verdict FROM verdicts WHERE namespace = ?1 AND commit_id = ?2")
                .and_then(|mut s| {
                    let rows = s.query_map(params![self.namespace, commit.0.as_bytes()], |r| {
                        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                    })?;
                    for row in rows {
                        let (path, v) = row?;
                        out.insert(path, v);
                    }
                    Ok(())
                });
            if read.is_err() {
                out.clear();
            }
        }
        for (c, path) in &self.removed {
            if *c == commit {
                out.remove(path);
            }
        }
        for ((c, path), v) in &self.added {
            if *c == commit {
                out.insert(path.clone(), v.clone());
            }
        }
        out.into_iter().collect()
    }

    /// Removes the verdict of `path` at `commit` (if there is one), when
    /// [`VerdictCache::save`] writes.
    pub fn remove(&mut self, commit: CommitId, path: &str) {
        let key = (commit, path.to_string());
        if self.added.remove(&key).is_some() {
            self.unsaved.retain(|k| *k != key);
        }
        if !self.removed.contains(&key) {
            self.removed.push(key);
        }
    }

    /// Stores a verdict for `path` at `commit` (replacing one stored before), to be
    /// written by [`VerdictCache::save`].
    pub fn put(&mut self, commit: CommitId, path: &str, verdict: String) {
        let key = (commit, path.to_string());
        // Put back after a removal: the stored row stays (or is replaced below).
        self.removed.retain(|k| *k != key);
        if self.get(commit, path).as_deref() == Some(verdict.as_str()) {
            return;
        }
        if self.added.insert((commit, path.to_string()), verdict).is_none() {
            self.unsaved.push((commit, path.to_string()));
        }
    }

    /// How many verdicts of this namespace the cache holds.
    pub fn len(&self) -> usize {
        let stored: i64 = self
            .conn
            .as_ref()
            .and_then(|c| c.lock().ok())
            .and_then(|c| {
                c.query_row("SELECT count(*) FROM verdicts WHERE namespace = ?1", [&self.namespace], |r| {
                    r.get(0)
                })
                .ok()
            })
            .unwrap_or(0);
        let new = self.unsaved.iter().filter(|(c, p)| self.stored(*c, p).is_none()).count();
        stored as usize + new
    }

    /// The database's verdict, ignoring what was put since loading.
    fn stored(&self, commit: CommitId, path: &str) -> Option<String> {
        let conn = self.conn.as_ref()?.lock().ok()?;
        conn.query_row(
            "SELECT verdict FROM verdicts WHERE namespace = ?1 AND path = ?2 AND commit_id = ?3",
            params![self.namespace, path, commit.0.as_bytes()],
            |r| r.get(0),
        )
        .optional()
        .ok()
        .flatten()
    }

    /// Whether the cache holds no verdict.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The database file.
    pub fn path(&self) -> &std::path::Path {
        &self.file
    }

    /// Writes the verdicts put since loading (or the last save), in one transaction.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Io`] when the database cannot be written (callers that only use the
    /// cache to go faster may ignore it).
    pub fn save(&mut self) -> Result<(), ArchiveError> {
        if self.unsaved.is_empty() && self.appended.is_empty() && self.removed.is_empty() {
            return Ok(());
        }
        let failed = |e: rusqlite::Error| ArchiveError::io("write", &self.file, std::io::Error::other(e));
        let Some(conn) = self.conn.as_ref() else {
            return Err(ArchiveError::io("open", &self.file, std::io::Error::other("no cache database")));
        };
        let conn = conn
            .lock()
            .map_err(|_| ArchiveError::io("write", &self.file, std::io::Error::other("poisoned")))?;
        conn.execute_batch("BEGIN IMMEDIATE").map_err(failed)?;
        let written = (|| -> rusqlite::Result<()> {
            let mut delete = conn.prepare_cached(
                "DELETE FROM verdicts WHERE namespace = ?1 AND path = ?2 AND commit_id = ?3",
            )?;
            for (commit, path) in &self.removed {
                delete.execute(params![self.namespace, path, commit.0.as_bytes()])?;
            }
            let mut stmt = conn.prepare_cached(
                "INSERT OR REPLACE INTO verdicts (namespace, commit_id, path, verdict) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (commit, path) in &self.unsaved {
                if let Some(v) = self.added.get(&(*commit, path.clone())) {
                    stmt.execute(params![self.namespace, commit.0.as_bytes(), path, v])?;
                }
            }
            for (commit, path, v) in &self.appended {
                stmt.execute(params![self.namespace, commit.0.as_bytes(), path, v])?;
            }
            Ok(())
        })();
        match written {
            Ok(()) => conn.execute_batch("COMMIT").map_err(failed)?,
            Err(e) => {
                let _ = conn.execute_batch("ROLLBACK");
                return Err(failed(e));
            }
        }
        self.unsaved.clear();
        self.appended.clear();
        self.removed.clear();
        Ok(())
    }
}

/// Verdicts to add to a [`VerdictCache`] in one batch ([`VerdictCache::append`]): what a
/// thread or a callback can gather while the cache itself is still being read. They are
/// not read back before they are saved ([`VerdictCache::get`] does not see them).
#[derive(Debug, Default)]
pub struct VerdictLines {
    lines: Vec<(CommitId, String, String)>,
}

impl VerdictLines {
    /// Adds the verdict `value` of `path` at `commit`.
    pub fn put(&mut self, commit: CommitId, path: &str, value: &str) {
        self.lines.push((commit, path.to_string(), value.to_string()));
    }

    /// Whether no verdict was put.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl VerdictCache {
    /// Adds `lines` to what [`VerdictCache::save`] writes.
    pub fn append(&mut self, lines: VerdictLines) {
        self.appended.extend(lines.lines);
    }
}
