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
//! `<common git dir>/ravenpost/index-v1` (never committed, never pushed), written to a
//! temporary file and renamed into place, so a reader sees the old file or the new one,
//! never half of one. The file names the commit it describes. A commit id is the hash of
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
use std::io::Write;
use std::path::PathBuf;

use git2::{ErrorCode, Oid};

use super::{Archive, ArchiveError, BlobId, CommitId, Timestamp, commit_meta};

/// The cache file's name in [`Archive::secrets_dir`].
pub(crate) const INDEX_FILE: &str = "index-v1";

/// The first line of a cache file.
const MAGIC: &str = "ravenpost history index v1";

/// A file a commit added, changed or deleted, as the index records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedChange {
    /// The path in the archive (lossy UTF-8: files added by hand may have any name).
    pub path: String,
    /// The blob the commit left there; `None` if it deleted the file.
    pub blob: Option<BlobId>,
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
    pub author_name: String,
    /// The author's email address (lossy UTF-8).
    pub author_email: String,
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
}

/// The first-parent line ending at one commit, with every commit's changes; see the
/// [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct HistoryIndex {
    commits: Vec<IndexedCommit>,
    positions: HashMap<CommitId, usize>,
    paths: HashMap<String, Vec<PathVersion>>,
    shallow: Option<CommitId>,
}

impl HistoryIndex {
    fn from_commits(commits: Vec<IndexedCommit>, shallow: Option<CommitId>) -> HistoryIndex {
        let mut index =
            HistoryIndex { commits: Vec::new(), positions: HashMap::new(), paths: HashMap::new(), shallow };
        index.extend(commits);
        index
    }

    /// Appends commits (each a child of the last) and records their changes per path.
    fn extend(&mut self, commits: Vec<IndexedCommit>) {
        self.commits.reserve(commits.len());
        for c in commits {
            let position = self.commits.len();
            self.positions.insert(c.commit, position);
            for change in &c.changes {
                let versions = self.paths.entry(change.path.clone()).or_default();
                // A change of mode alone leaves the contents as they were: no new version.
                if versions.last().and_then(|v| v.blob) != change.blob {
                    versions.push(PathVersion { position, commit: c.commit, blob: change.blob });
                }
            }
            self.commits.push(c);
        }
    }

    /// The line cut after position `keep` (inclusive).
    fn truncate(mut self, keep: usize) -> HistoryIndex {
        if keep + 1 >= self.commits.len() {
            return self;
        }
        for c in self.commits.drain(keep + 1..) {
            self.positions.remove(&c.commit);
        }
        self.paths.retain(|_, versions| {
            versions.retain(|v| v.position <= keep);
            !versions.is_empty()
        });
        self
    }

    /// Every commit of the line, oldest first.
    pub fn commits(&self) -> &[IndexedCommit] {
        &self.commits
    }

    /// The commit the line ends at; `None` for an unborn branch.
    pub fn tip(&self) -> Option<CommitId> {
        self.commits.last().map(|c| c.commit)
    }

    /// How many commits the line has.
    pub fn len(&self) -> usize {
        self.commits.len()
    }

    /// Whether the line has no commit (an unborn branch).
    pub fn is_empty(&self) -> bool {
        self.commits.is_empty()
    }

    /// Where `commit` is in [`HistoryIndex::commits`]; `None` if it is not on the line.
    pub fn position(&self, commit: CommitId) -> Option<usize> {
        self.positions.get(&commit).copied()
    }

    /// The commit `commit` of the line, if it is on it.
    pub fn commit(&self, commit: CommitId) -> Option<&IndexedCommit> {
        self.position(commit).map(|i| &self.commits[i])
    }

    /// The commits after `from` (exclusive), oldest first: all of them when `from` is
    /// `None` or not on the line.
    pub fn since(&self, from: Option<CommitId>) -> &[IndexedCommit] {
        match from.and_then(|f| self.position(f)) {
            Some(i) => &self.commits[i + 1..],
            None => &self.commits,
        }
    }

    /// The versions of `path`, oldest first: the commits that created it, changed its
    /// contents or deleted it, each with the blob it left (empty for a path never used).
    pub fn versions(&self, path: &str) -> &[PathVersion] {
        self.paths.get(path).map_or(&[], Vec::as_slice)
    }

    /// Every path any commit of the line touched (deleted ones too), sorted.
    pub fn paths(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.paths.keys().map(String::as_str).collect();
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
        let cached = self.load_index();
        let cached_tip = cached.as_ref().and_then(HistoryIndex::tip);
        let index = match cached {
            Some(cached) if cached.tip() == Some(at) => return Ok(cached),
            Some(cached) => match cached.position(at) {
                Some(i) => cached.truncate(i),
                None => self.walk_index(at, Some(cached))?,
            },
            None => self.walk_index(at, None)?,
        };
        match self.tip().ok().flatten() {
            Some(tip) if tip == at => self.store_index(&index),
            // A line past the branch tip (a push being checked): the cache catches up to
            // the tip, so that the next push walks only its own commits.
            Some(tip) if cached_tip != Some(tip) => {
                if let Some(i) = index.position(tip) {
                    self.store_index(&index.clone().truncate(i));
                }
            }
            _ => {}
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

    /// The cache file's path: `ravenpost/index-v1` in the (common) git directory.
    pub fn index_path(&self) -> PathBuf {
        self.secrets_dir().join(INDEX_FILE)
    }

    /// The first-parent line ending at `at`: walked back until a commit of `known`'s line
    /// (kept up to there), a root, or a missing parent.
    fn walk_index(&self, at: CommitId, known: Option<HistoryIndex>) -> Result<HistoryIndex, ArchiveError> {
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
        let mut parent_tree = match &base {
            Some((_, c)) => Some(self.tree_of(c)?),
            None => None,
        };
        for (commit, parent) in line.into_iter().rev() {
            let tree = self.tree_of(&commit)?;
            let diff = self
                .repo
                .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), None)
                .map_err(|e| ArchiveError::git_oid("diff commit", commit.id(), e))?;
            let mut changes: Vec<IndexedChange> = diff
                .deltas()
                .filter_map(|d| {
                    let path = d.new_file().path_bytes().or_else(|| d.old_file().path_bytes())?;
                    let blob = match d.status() {
                        git2::Delta::Deleted => None,
                        _ => Some(BlobId(d.new_file().id())),
                    };
                    Some(IndexedChange { path: String::from_utf8_lossy(path).into_owned(), blob })
                })
                .collect();
            changes.sort_by(|a, b| a.path.cmp(&b.path));
            let (author_name, author_email, time, message) = commit_meta(&commit);
            let parent = parent.map(CommitId);
            out.push(IndexedCommit {
                commit: CommitId(commit.id()),
                parent,
                author_name,
                author_email,
                time,
                message,
                changes,
            });
            parent_tree = Some(tree);
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

    /// The cached index, if the file is there, whole and consistent with the repository.
    fn load_index(&self) -> Option<HistoryIndex> {
        let bytes = fs::read(self.index_path()).ok()?;
        let index = decode(&bytes)?;
        // The tip must be in the repository (a cache copied from elsewhere is not ours),
        // and a shallow cut must still be one.
        let odb = self.repo.odb().ok()?;
        if !index.tip().is_some_and(|t| odb.exists(t.0)) {
            return None;
        }
        if let Some(cut) = index.shallow {
            let parent = index.commit(cut)?.parent?;
            if odb.exists(parent.0) {
                return None;
            }
        }
        Some(index)
    }

    /// Writes the cache atomically; failures are ignored (the cache is only a cache).
    fn store_index(&self, index: &HistoryIndex) {
        if index.is_empty() {
            return;
        }
        let dir = self.secrets_dir();
        let write = || -> std::io::Result<()> {
            fs::create_dir_all(&dir)?;
            let mut tmp = tempfile::Builder::new().prefix(".index-").tempfile_in(&dir)?;
            tmp.write_all(&encode(index))?;
            tmp.as_file().sync_data()?;
            tmp.persist(dir.join(INDEX_FILE)).map_err(|e| e.error)?;
            Ok(())
        };
        let _ = write();
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

/// The cache file: a header, a table of paths and one of authors, then one line per
/// commit (oldest first), then `end <checksum>`:
///
/// ```text
/// ravenpost history index v1
/// shallow <commit>|-
/// paths <n>            then n lines: an escaped path
/// authors <n>          then n lines: escaped name TAB escaped email
/// commits <n>          then n lines: id TAB parent|- TAB author# TAB seconds TAB offset
///                      TAB escaped message TAB changes (path#:blob|path#:- joined by spaces)
/// end <16 hex digits>  the checksum of everything before this line
/// ```
fn encode(index: &HistoryIndex) -> Vec<u8> {
    let mut path_ids: HashMap<&str, usize> = HashMap::new();
    let mut paths: Vec<&str> = Vec::new();
    let mut author_ids: HashMap<(&str, &str), usize> = HashMap::new();
    let mut authors: Vec<(&str, &str)> = Vec::new();
    for c in &index.commits {
        let key = (c.author_name.as_str(), c.author_email.as_str());
        author_ids.entry(key).or_insert_with(|| {
            authors.push(key);
            authors.len() - 1
        });
        for ch in &c.changes {
            if !path_ids.contains_key(ch.path.as_str()) {
                path_ids.insert(&ch.path, paths.len());
                paths.push(&ch.path);
            }
        }
    }
    let mut s = String::with_capacity(index.commits.len() * 160 + 1024);
    s.push_str(MAGIC);
    s.push('\n');
    match index.shallow {
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
    s.push_str(&format!("commits {}\n", index.commits.len()));
    for c in &index.commits {
        use std::fmt::Write as _;
        let author = author_ids[&(c.author_name.as_str(), c.author_email.as_str())];
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
            let _ = write!(s, "{}:", path_ids[ch.path.as_str()]);
            match ch.blob {
                Some(b) => {
                    let _ = write!(s, "{b}");
                }
                None => s.push('-'),
            }
        }
        s.push('\n');
    }
    let sum = checksum(s.as_bytes());
    s.push_str(&format!("end {sum:016x}\n"));
    s.into_bytes()
}

/// Reads a cache file; `None` for anything but a whole, well-formed one.
fn decode(bytes: &[u8]) -> Option<HistoryIndex> {
    let body_end = bytes.strip_suffix(b"\n")?.iter().rposition(|&b| b == b'\n')? + 1;
    let (body, last) = bytes.split_at(body_end);
    let sum = std::str::from_utf8(last).ok()?.strip_prefix("end ")?.strip_suffix('\n')?;
    if !is_lower_hex(sum, 16) || u64::from_str_radix(sum, 16).ok()? != checksum(body) {
        return None;
    }
    let text = std::str::from_utf8(body).ok()?;
    let mut lines = text.lines();
    if lines.next()? != MAGIC {
        return None;
    }
    let shallow = match lines.next()?.strip_prefix("shallow ")? {
        "-" => None,
        hex => Some(CommitId(oid(hex)?)),
    };
    let count = |line: &str, what: &str| -> Option<usize> { line.strip_prefix(what)?.parse().ok() };
    let n = count(lines.next()?, "paths ")?;
    let mut paths = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        paths.push(unescape(lines.next()?)?);
    }
    let n = count(lines.next()?, "authors ")?;
    let mut authors = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let (name, email) = lines.next()?.split_once('\t')?;
        authors.push((unescape(name)?, unescape(email)?));
    }
    let n = count(lines.next()?, "commits ")?;
    let mut commits = Vec::with_capacity(n.min(1 << 24));
    for _ in 0..n {
        let mut f = lines.next()?.split('\t');
        let commit = CommitId(oid(f.next()?)?);
        let parent = match f.next()? {
            "-" => None,
            hex => Some(CommitId(oid(hex)?)),
        };
        let (author_name, author_email) = authors.get(f.next()?.parse::<usize>().ok()?)?.clone();
        let seconds = f.next()?.parse().ok()?;
        let offset = f.next()?.parse().ok()?;
        let message = unescape(f.next()?)?;
        let changes_field = f.next()?;
        if f.next().is_some() {
            return None;
        }
        let mut changes = Vec::new();
        for ch in changes_field.split(' ').filter(|c| !c.is_empty()) {
            let (p, b) = ch.split_once(':')?;
            let path = paths.get(p.parse::<usize>().ok()?)?.clone();
            let blob = match b {
                "-" => None,
                hex => Some(BlobId(oid(hex)?)),
            };
            changes.push(IndexedChange { path, blob });
        }
        commits.push(IndexedCommit {
            commit,
            parent,
            author_name,
            author_email,
            time: Timestamp::from_unix(seconds, offset),
            message,
            changes,
        });
    }
    if lines.next().is_some() {
        return None;
    }
    // Each commit must be its successor's first parent: a line, not a heap of commits.
    if commits.windows(2).any(|w| w[1].parent != Some(w[0].commit)) {
        return None;
    }
    if shallow.is_some() && shallow != commits.first().map(|c| c.commit) {
        return None;
    }
    Some(HistoryIndex::from_commits(commits, shallow))
}

/// Whether `s` is `len` lowercase hex digits (as ravenpost writes them: one spelling only).
pub(crate) fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A full lowercase hex id, decoded by hand (libgit2's parser costs more than the rest of
/// a cache line).
fn oid(hex: &str) -> Option<Oid> {
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
                    .map(|(p, blob)| IndexedChange { path: p.into(), blob })
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

    #[test]
    fn encode_then_decode_gives_the_same_index() {
        let index = sample();
        let back = decode(&encode(&index)).expect("decodes");
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
            assert!(decode(&bytes[..len]).is_none(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x20;
            assert!(decode(&b).is_none(), "byte {i} flipped");
        }
    }

    #[test]
    fn truncate_keeps_the_prefix_and_its_versions() {
        let cut = sample().truncate(2);
        assert_eq!(cut.len(), 3);
        assert_eq!(cut.paths(), ["games/grand/g 1.pgn", "ravenpost.yaml"]);
        assert_eq!(cut.versions("games/grand/g 1.pgn").len(), 1);
        assert_eq!(cut.position(CommitId(Oid::from_bytes(&[4; 20]).unwrap())), None);
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
