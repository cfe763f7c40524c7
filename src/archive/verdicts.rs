//! The verdict cache: what a checker concluded about one file at one commit, kept between
//! runs so that checking an archive again after N new commits costs N checks.
//!
//! A [`VerdictCache`] maps `(commit id, path)` to a string the caller chose (the referee
//! layer stores its serialized verdict). It lives in
//! `<common git dir>/ravenpost/verdicts-<namespace>`, never committed. The namespace names
//! the checker and its version, so a new release, whose rules may judge differently,
//! starts with an empty cache instead of trusting the old verdicts.
//!
//! **Why an entry cannot go wrong.** A commit id is the hash of the commit, its tree and
//! (through its parents' ids) its whole history: a file at a commit, and everything that
//! led to it, is fixed by the id. A rewritten branch consists of new commits with new ids,
//! which have no entries yet; the old entries are merely unused. So the cache only has to
//! survive bad bytes, which it does: each line carries a checksum, and a line that does
//! not parse or check (a crash in the middle of a write, two writers interleaving, a disk
//! error) is ignored, as is a file that cannot be read. [`VerdictCache::save`] appends the
//! entries added since loading, one `write` call per save.
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
//! assert_eq!(archive.verdict_cache("doc-0.1").get(tip, "ravenpost.yaml"), Some("ok"));
//! assert_eq!(archive.verdict_cache("doc-0.2").get(tip, "ravenpost.yaml"), None);
//! ```

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::PathBuf;

use super::index::{IdMap, checksum, escape, is_lower_hex, oid, unescape};
use super::{Archive, ArchiveError, CommitId};

/// Verdicts by commit and path, loaded from and saved to the git directory; see the
/// [module docs](self).
///
/// Loading reads the file and notes where each commit's lines are; a line is checked and
/// read only when a verdict of its commit is asked for, so a question about one game pays
/// for that game's verdicts, not for the whole archive's.
#[derive(Debug)]
pub struct VerdictCache {
    file: PathBuf,
    /// The file as loaded.
    bytes: Vec<u8>,
    /// Where the lines are in `bytes` (start, end), in file order, by the first 16 hex
    /// digits of their commit (compared in full when read); not yet checked. Lines with
    /// escapes (a backslash) are not here but in `decoded`.
    lines: IdMap<u64, Vec<(usize, usize)>>,
    /// The lines with escapes, checked and decoded when loading (few: most verdicts have
    /// no line break, tab or backslash): path, value and where the line starts.
    decoded: IdMap<CommitId, Vec<(String, String, usize)>>,
    /// Verdicts put since loading (they take precedence over the file's).
    added: HashMap<CommitId, Vec<(String, String)>>,
    /// Entries added since loading, in order: what [`VerdictCache::save`] appends.
    unsaved: Vec<(CommitId, String)>,
    /// Lines appended in batches ([`VerdictCache::append`]), saved after `unsaved`.
    appended: String,
}

impl Archive {
    /// The verdict cache of `namespace` (e.g. `referee-0.3.1`), loaded from the git
    /// directory: empty if there is none yet or it cannot be read.
    pub fn verdict_cache(&self, namespace: &str) -> VerdictCache {
        let mut name = String::from("verdicts-");
        for b in namespace.bytes() {
            if b.is_ascii_alphanumeric() || b"-_.".contains(&b) {
                name.push(char::from(b));
            } else {
                name.push_str(&format!("%{b:02X}"));
            }
        }
        VerdictCache::load(self.secrets_dir().join(name))
    }
}

impl VerdictCache {
    fn load(file: PathBuf) -> VerdictCache {
        let bytes = fs::read(&file).unwrap_or_default();
        let mut lines: IdMap<u64, Vec<(usize, usize)>> = IdMap::default();
        let mut decoded: IdMap<CommitId, Vec<(String, String, usize)>> = IdMap::default();
        let mut start = 0;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n);
            let line = &bytes[start..end];
            if memchr::memchr(b'\\', line).is_none() {
                if let Some(key) = line.get(..16).and_then(prefix_key) {
                    lines.entry(key).or_default().push((start, end));
                }
            } else if let Some(commit) =
                line.get(..40).and_then(|h| std::str::from_utf8(h).ok()).and_then(oid)
            {
                let commit = CommitId(commit);
                if let Some((path, value)) = check_line(line)
                    && let (Some(path), Some(value)) = (unescape(path), unescape(value))
                {
                    decoded.entry(commit).or_default().push((path, value, start));
                }
            }
            start = end + 1;
        }
        VerdictCache {
            file,
            bytes,
            lines,
            decoded,
            added: HashMap::new(),
            unsaved: Vec::new(),
            appended: String::new(),
        }
    }

    /// The verdict stored for `path` at `commit`: the last one put, else the file's last
    /// good line for them.
    pub fn get(&self, commit: CommitId, path: &str) -> Option<&str> {
        if let Some((_, v)) = self.added.get(&commit).and_then(|s| s.iter().find(|(p, _)| p == path)) {
            return Some(v.as_str());
        }
        let decoded = self
            .decoded
            .get(&commit)
            .and_then(|d| d.iter().rev().find(|(p, _, _)| p == path))
            .map(|(_, v, at)| (*at, v.as_str()));
        // The key of `prefix_key` (its first 16 hex digits) without writing the id in hex.
        let key = commit.0.as_bytes().get(..8).and_then(|b| b.try_into().ok()).map(u64::from_be_bytes);
        let plain = key.and_then(|k| self.lines.get(&k)).and_then(|lines| {
            let hex = commit.to_string();
            lines.iter().rev().find_map(|&(start, end)| {
                let line = &self.bytes[start..end];
                if !line.starts_with(hex.as_bytes()) {
                    return None;
                }
                let (p, v) = check_line(line)?;
                (p == path).then_some((start, v))
            })
        });
        match (plain, decoded) {
            (Some(a), Some(b)) => Some(if a.0 > b.0 { a.1 } else { b.1 }),
            (a, b) => a.or(b).map(|x| x.1),
        }
    }

    /// Stores a verdict for `path` at `commit` (replacing one stored before), to be
    /// written by [`VerdictCache::save`].
    pub fn put(&mut self, commit: CommitId, path: &str, verdict: String) {
        if self.get(commit, path) == Some(verdict.as_str()) {
            return;
        }
        let slot = self.added.entry(commit).or_default();
        match slot.iter_mut().find(|(p, _)| p == path) {
            Some((_, v)) => *v = verdict,
            None => slot.push((path.to_string(), verdict)),
        }
        self.unsaved.push((commit, path.to_string()));
    }

    /// How many verdicts the cache holds (every line of the file is checked).
    pub fn len(&self) -> usize {
        let mut keys: std::collections::HashSet<(CommitId, &str)> = std::collections::HashSet::new();
        for lines in self.lines.values() {
            for &(start, end) in lines {
                let line = &self.bytes[start..end];
                let commit = std::str::from_utf8(&line[..40.min(line.len())]).ok().and_then(oid);
                if let (Some(commit), Some((p, _))) = (commit, check_line(line)) {
                    keys.insert((CommitId(commit), p));
                }
            }
        }
        for (commit, d) in &self.decoded {
            for (p, _, _) in d {
                keys.insert((*commit, p.as_str()));
            }
        }
        for (commit, slot) in &self.added {
            for (p, _) in slot {
                keys.insert((*commit, p.as_str()));
            }
        }
        keys.len()
    }

    /// Whether the cache holds no verdict.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cache file.
    pub fn path(&self) -> &std::path::Path {
        &self.file
    }

    /// Appends the verdicts put since loading (or the last save) to the file.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Io`] when the file cannot be written (callers that only use the
    /// cache to go faster may ignore it).
    pub fn save(&mut self) -> Result<(), ArchiveError> {
        if self.unsaved.is_empty() && self.appended.is_empty() {
            return Ok(());
        }
        // A line cut off by an earlier crash must not swallow the first new one.
        let mut text = String::from("\n");
        for (commit, path) in &self.unsaved {
            let value = self.added.get(commit).and_then(|s| s.iter().find(|(p, _)| p == path));
            if let Some((_, value)) = value {
                push_line(&mut text, *commit, path, value);
            }
        }
        text.push_str(&self.appended);
        if let Some(dir) = self.file.parent() {
            fs::create_dir_all(dir).map_err(|e| ArchiveError::io("create directory", dir, e))?;
        }
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.file)
            .map_err(|e| ArchiveError::io("open", &self.file, e))?;
        file.write_all(text.as_bytes()).map_err(|e| ArchiveError::io("write", &self.file, e))?;
        self.unsaved.clear();
        self.appended.clear();
        Ok(())
    }
}

/// The first 16 lowercase hex digits of a commit id as a number (the key lines are found
/// by; the whole id is compared when a line is read).
fn prefix_key(hex: &[u8]) -> Option<u64> {
    let hex = std::str::from_utf8(hex.get(..16)?).ok()?;
    if !is_lower_hex(hex, 16) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// A line's escaped path and escaped value, if its checksum and shape are right.
fn check_line(line: &[u8]) -> Option<(&str, &str)> {
    let line = std::str::from_utf8(line).ok()?;
    let (body, sum) = line.rsplit_once('\t')?;
    if !is_lower_hex(sum, 16) || u64::from_str_radix(sum, 16).ok()? != checksum(body.as_bytes()) {
        return None;
    }
    let mut f = body.split('\t');
    if !is_lower_hex(f.next()?, 40) {
        return None;
    }
    let (path, value) = (f.next()?, f.next()?);
    if f.next().is_some() || unescape(path).is_none() || unescape(value).is_none() {
        return None;
    }
    Some((path, value))
}

/// Verdicts to add to a [`VerdictCache`] in one batch ([`VerdictCache::append`]), written
/// as the cache file's lines as they are put: what a thread or a callback can gather
/// while the cache itself is still being read. They are not read back before they are
/// saved ([`VerdictCache::get`] does not see them).
#[derive(Debug, Default)]
pub struct VerdictLines {
    text: String,
}

impl VerdictLines {
    /// Adds the verdict `value` of `path` at `commit`.
    pub fn put(&mut self, commit: CommitId, path: &str, value: &str) {
        push_line(&mut self.text, commit, path, value);
    }

    /// Whether no verdict was put.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl VerdictCache {
    /// Adds `lines` to what [`VerdictCache::save`] appends.
    pub fn append(&mut self, lines: VerdictLines) {
        self.appended.push_str(&lines.text);
    }
}

/// Appends `commit TAB escaped path TAB escaped value TAB checksum` and a line feed to
/// `out`.
fn push_line(out: &mut String, commit: CommitId, path: &str, value: &str) {
    use std::fmt::Write as _;
    let start = out.len();
    let _ = write!(out, "{commit}\t");
    escape(path, out);
    out.push('\t');
    escape(value, out);
    let sum = checksum(&out.as_bytes()[start..]);
    let _ = writeln!(out, "\t{sum:016x}");
}

#[cfg(test)]
fn format_line(commit: CommitId, path: &str, value: &str) -> String {
    let mut line = String::new();
    push_line(&mut line, commit, path, value);
    line
}

#[cfg(test)]
fn parse_line(line: &[u8]) -> Option<(CommitId, String, String)> {
    let line = std::str::from_utf8(line).ok()?;
    let (body, sum) = line.rsplit_once('\t')?;
    if !is_lower_hex(sum, 16) || u64::from_str_radix(sum, 16).ok()? != checksum(body.as_bytes()) {
        return None;
    }
    let mut f = body.split('\t');
    let commit = f.next()?;
    if !is_lower_hex(commit, 40) {
        return None;
    }
    let commit: CommitId = commit.parse().ok()?;
    let path = unescape(f.next()?)?;
    let value = unescape(f.next()?)?;
    if f.next().is_some() {
        return None;
    }
    Some((commit, path, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_garbage_is_refused() {
        let c: CommitId = "0123456789abcdef0123456789abcdef01234567".parse().unwrap();
        let line = format_line(c, "games/grand/a\tb.pgn", "ok\nply 3");
        let body = line.strip_suffix('\n').unwrap();
        assert_eq!(parse_line(body.as_bytes()), Some((c, "games/grand/a\tb.pgn".into(), "ok\nply 3".into())));
        for len in 0..body.len() {
            assert_eq!(parse_line(&body.as_bytes()[..len]), None, "cut at {len}");
        }
        let mut flipped = body.as_bytes().to_vec();
        flipped[45] ^= 1;
        assert_eq!(parse_line(&flipped), None);
    }
}
