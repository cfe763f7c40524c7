//! Reading many commits and their changes at once, through git's own log.
//!
//! Building the [history index](super::index) takes every commit's changes relative to its
//! first parent. With libgit2 that is a tree diff per commit, and each tree version is
//! rebuilt from its pack's delta chain again (the same cause as for blobs, see
//! [`super::blobs`]). `git log --raw` reads the same trees through git's delta-base cache,
//! about ten times faster.
//!
//! So a long walk (more than [`BULK`] commits) reads `git log --first-parent --raw -z`,
//! one commit at a time as git writes it ([`FirstParentLog`], parsed by a thread of its own
//! while the caller stores the commits before): its id, first parent, author, time and
//! message, and its changes. The caller checks that each commit is the one
//! the line needs next (the first parent of the one before) and walks with libgit2 from
//! there when it is not, or when git is missing or fails: git is a speed-up here, never a
//! dependency. Settings that change what `git log` prints (renames, `log.showRoot`,
//! replace refs, colour, signatures, mailmap) are overridden on its command line.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread::JoinHandle;

use git2::Oid;

/// Walks of fewer commits than this diff trees with libgit2 (starting git costs a few
/// milliseconds, about what libgit2 takes for this many commits).
pub(crate) const BULK: usize = 256;

/// One change `git log --raw` listed: the path's bytes, the new blob (`None`: deleted) and
/// the new mode (0 when deleted).
pub(crate) type RawChange = (Vec<u8>, Option<Oid>, u32);

/// A commit as `git log` listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitCommit {
    pub(crate) id: Oid,
    /// Its tree.
    pub(crate) tree: Oid,
    /// Its first parent (`None`: a root, or a shallow boundary, which git shows as one).
    pub(crate) parent: Option<Oid>,
    pub(crate) name: Vec<u8>,
    pub(crate) email: Vec<u8>,
    pub(crate) seconds: i64,
    pub(crate) offset_minutes: i32,
    /// The raw message.
    pub(crate) message: Vec<u8>,
    /// Its changes (listed only by a log with `raw`, see [`first_parent_log`]).
    pub(crate) changes: Vec<RawChange>,
}

/// A running `git log` of a first-parent line, newest first, read one commit at a time.
/// An item is `Err` when git's output does not parse (the caller stops reading it); the
/// log ends when git does. Dropping it stops git.
///
/// A thread reads and parses git's output as git writes it, up to [`RUN_AHEAD`] commits
/// ahead of the caller: git goes on listing while the caller stores what it has read.
#[derive(Debug)]
pub(crate) struct FirstParentLog {
    child: Child,
    commits: Option<Receiver<Vec<Result<GitCommit, ()>>>>,
    /// The commits received and not yet taken, the next one last.
    received: Vec<Result<GitCommit, ()>>,
    reader: Option<JoinHandle<()>>,
}

/// How many listed commits the reading thread passes on at once.
const CHUNK: usize = 256;

/// How many chunks the reading thread holds for the caller at most: a whole segment of a
/// long walk ([`super::index::BATCH`] commits), so that the segment listed ahead
/// ([`log_ahead`]) is listed to its end while the one before is read.
const RUN_AHEAD: usize = super::index::BATCH.div_ceil(CHUNK);

/// Reads `git log`'s output one commit at a time.
struct LogReader {
    out: BufReader<ChildStdout>,
    /// A token read ahead: the next commit's header.
    header: Option<Vec<u8>>,
    failed: bool,
}

impl Drop for FirstParentLog {
    fn drop(&mut self) {
        // The reader stops at its next commit (nobody receives) or at the end of git's
        // output (git killed).
        drop(self.commits.take());
        let _ = self.child.kill();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let _ = self.child.wait();
    }
}

/// Starts `git log` on the first-parent line ending at `tip`, at most `count` commits, with
/// each commit's changes when `raw` (git then diffs each commit's tree against its
/// parent's: most of its work); `None` when git cannot start.
pub(crate) fn first_parent_log(
    git_dir: &std::path::Path,
    tip: Oid,
    count: usize,
    raw: bool,
) -> Option<FirstParentLog> {
    let mut command = Command::new("git");
    command.env("GIT_NO_REPLACE_OBJECTS", "1").arg("--git-dir").arg(git_dir).args([
        "-c",
        "log.mailmap=false",
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        if raw { "--raw" } else { "--no-patch" },
        "--no-abbrev",
        "-z",
        "--root",
        "--no-renames",
        "--no-color",
        "--no-show-signature",
        "--no-relative",
        "--no-mailmap",
        "--ignore-submodules=none",
        "--date=raw",
        "--format=commit %H %T %P%x00%an%x00%ae%x00%ad%x00%B",
    ]);
    if count < usize::MAX {
        command.arg(format!("--max-count={count}"));
    }
    command.arg(tip.to_string()).arg("--").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = command.spawn().ok()?;
    let Some(out) = child.stdout.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    let mut log = LogReader { out: BufReader::with_capacity(1 << 16, out), header: None, failed: false };
    let (send, commits) = sync_channel(RUN_AHEAD);
    let reader = std::thread::Builder::new().name("git log".into()).spawn(move || {
        let mut chunk = Vec::with_capacity(CHUNK);
        for item in log.by_ref() {
            chunk.push(item);
            if chunk.len() == CHUNK
                && send.send(std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK))).is_err()
            {
                return;
            }
        }
        let _ = send.send(chunk);
    });
    match reader {
        Ok(reader) => {
            Some(FirstParentLog { child, commits: Some(commits), received: Vec::new(), reader: Some(reader) })
        }
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    }
}

/// The next segment of a long walk, listed while the caller reads the one before.
pub(crate) type Ahead = JoinHandle<Option<(Oid, FirstParentLog)>>;

/// Starts, in a thread of its own, the `git log` of the segment after the one starting at
/// `from`: the commit `skip` first parents down from `from` (found by `git rev-list`,
/// which reads no tree) and the `count` commits from it. A second git lists while the
/// first does (a listing of changes is git's slowest part of a long walk, and takes one
/// core). The thread's answer is `None` when the line is shorter or git fails; the caller
/// checks that the segment starts where its walk goes on.
pub(crate) fn log_ahead(
    git_dir: &std::path::Path,
    from: Oid,
    skip: usize,
    count: usize,
    raw: bool,
) -> Option<Ahead> {
    let git_dir = git_dir.to_path_buf();
    std::thread::Builder::new()
        .name("git log ahead".into())
        .spawn(move || {
            let out = Command::new("git")
                .env("GIT_NO_REPLACE_OBJECTS", "1")
                .arg("--git-dir")
                .arg(&git_dir)
                .args(["rev-list", "--first-parent", &format!("--skip={skip}"), "--max-count=1"])
                .arg(from.to_string())
                .arg("--")
                .stdin(Stdio::null())
                .stderr(Stdio::null())
                .output()
                .ok()?;
            if !out.status.success() {
                return None;
            }
            let start = Oid::from_str(std::str::from_utf8(&out.stdout).ok()?.trim()).ok()?;
            Some((start, first_parent_log(&git_dir, start, count, raw)?))
        })
        .ok()
}

impl Iterator for FirstParentLog {
    type Item = Result<GitCommit, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.received.is_empty() {
            let mut chunk = self.commits.as_ref()?.recv().ok()?;
            chunk.reverse();
            self.received = chunk;
        }
        self.received.pop()
    }
}

impl LogReader {
    /// The next NUL-terminated token, without a line feed git puts before some; `None` at
    /// the end.
    fn token(&mut self) -> Option<Vec<u8>> {
        let mut buf = Vec::new();
        match self.out.read_until(0, &mut buf) {
            Ok(0) | Err(_) => None,
            Ok(_) => {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                Some(buf)
            }
        }
    }

    fn read_commit(&mut self, header: Vec<u8>) -> Option<GitCommit> {
        let header = std::str::from_utf8(header.strip_prefix(b"commit ")?).ok()?;
        let mut ids = header.split(' ');
        let id = Oid::from_str(ids.next()?).ok()?;
        let tree = Oid::from_str(ids.next()?).ok()?;
        let parent = match ids.next().filter(|p| !p.is_empty()) {
            Some(p) => Some(Oid::from_str(p).ok()?),
            None => None,
        };
        let name = self.token()?;
        let email = self.token()?;
        let date = self.token()?;
        let message = self.token()?;
        let (seconds, offset_minutes) = parse_date(std::str::from_utf8(&date).ok()?)?;
        let mut commit = GitCommit {
            id,
            tree,
            parent,
            name,
            email,
            seconds,
            offset_minutes,
            message,
            changes: Vec::new(),
        };
        while let Some(token) = self.token() {
            let token = token.strip_prefix(b"\n").unwrap_or(&token).to_vec();
            if token.is_empty() {
                continue;
            }
            if token.starts_with(b"commit ") {
                self.header = Some(token);
                break;
            }
            let meta = std::str::from_utf8(token.strip_prefix(b":")?).ok()?;
            let path = self.token()?;
            commit.changes.push(parse_change(meta, path)?);
        }
        Some(commit)
    }
}

impl Iterator for LogReader {
    type Item = Result<GitCommit, ()>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let header = match self.header.take() {
            Some(h) => h,
            None => loop {
                let token = self.token()?;
                let token = token.strip_prefix(b"\n").unwrap_or(&token).to_vec();
                if !token.is_empty() {
                    break token;
                }
            },
        };
        match self.read_commit(header) {
            Some(c) => Some(Ok(c)),
            None => {
                self.failed = true;
                Some(Err(()))
            }
        }
    }
}

/// `1740830400 +0130` → seconds and offset in minutes.
fn parse_date(s: &str) -> Option<(i64, i32)> {
    let (seconds, zone) = s.trim().split_once(' ')?;
    let seconds = seconds.parse().ok()?;
    let (sign, digits) = match zone.as_bytes().first()? {
        b'+' => (1, &zone[1..]),
        b'-' => (-1, &zone[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some((seconds, sign * (hours * 60 + minutes)))
}

/// A `:<old mode> <new mode> <old id> <new id> <status>` token and its path.
fn parse_change(meta: &str, path: Vec<u8>) -> Option<RawChange> {
    let mut fields = meta.split(' ');
    let (_old_mode, new_mode, _old_id, new_id, status) =
        (fields.next()?, fields.next()?, fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() || path.is_empty() {
        return None;
    }
    match status {
        "D" => Some((path, None, 0)),
        "A" | "M" | "T" => {
            let mode = u32::from_str_radix(new_mode, 8).ok()?;
            Some((path, Some(Oid::from_str(new_id).ok()?), mode))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_libgit2_reads_them() {
        assert_eq!(parse_date("1740830400 +0130"), Some((1_740_830_400, 90)));
        assert_eq!(parse_date("5 -0800"), Some((5, -480)));
        assert_eq!(parse_date("5 0800"), None);
        assert_eq!(parse_date("5"), None);
    }

    /// Commits with and without changes, an empty message, a message without a final line
    /// break and one of several lines, a deletion, a path that is no UTF-8: what git lists
    /// is what libgit2 reads.
    #[test]
    fn the_log_lists_each_commit_as_libgit2_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let sig =
            git2::Signature::new("Ann Ex", "ann@example.com", &git2::Time::new(1_740_830_400, 90)).unwrap();
        let mut parent: Option<git2::Commit<'_>> = None;
        let messages = ["first\n\nbody\n", "", "no break", "x\n"];
        for (i, m) in messages.iter().enumerate() {
            let mut tree = repo.treebuilder(parent.as_ref().map(|p| p.tree().unwrap()).as_ref()).unwrap();
            if i != 1 {
                let blob = repo.blob(format!("move {i}\n").as_bytes()).unwrap();
                tree.insert(format!("g{}.pgn", i % 2), blob, 0o100644).unwrap();
            }
            if i == 3 {
                tree.remove("g0.pgn").unwrap();
                tree.insert(b"odd-\xff".as_slice(), repo.blob(b"x").unwrap(), 0o100644).unwrap();
            }
            let tree = repo.find_tree(tree.write().unwrap()).unwrap();
            let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
            let id = repo.commit(None, &sig, &sig, m, &tree, &parents).unwrap();
            parent = Some(repo.find_commit(id).unwrap());
        }
        let tip = parent.unwrap();
        let listed: Vec<GitCommit> =
            first_parent_log(repo.path(), tip.id(), usize::MAX, true).unwrap().map(Result::unwrap).collect();
        assert_eq!(listed.len(), 4);
        let mut c = tip;
        for l in &listed {
            assert_eq!(l.id, c.id());
            assert_eq!(l.message, c.message_bytes());
            assert_eq!(
                (l.name.as_slice(), l.email.as_slice()),
                (c.author().name_bytes(), c.author().email_bytes())
            );
            assert_eq!((l.seconds, l.offset_minutes), (1_740_830_400, 90));
            assert_eq!(l.parent, c.parent_id(0).ok());
            assert_eq!(l.tree, c.tree_id());
            match c.parent(0) {
                Ok(p) => c = p,
                Err(_) => break,
            }
        }
        let changes: Vec<usize> = listed.iter().map(|l| l.changes.len()).collect();
        assert_eq!(changes, [3, 1, 0, 1]);
        assert!(listed[0].changes.contains(&(b"g0.pgn".to_vec(), None, 0)));
        assert!(listed[0].changes.iter().any(|c| c.0 == b"odd-\xff"));
        let two: Vec<_> = first_parent_log(repo.path(), listed[0].id, 2, true).unwrap().collect();
        assert_eq!(two.len(), 2);
        // Without the changes: the same commits, none listed.
        let bare: Vec<GitCommit> = first_parent_log(repo.path(), listed[0].id, usize::MAX, false)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let without = |l: &GitCommit| GitCommit { changes: Vec::new(), ..l.clone() };
        assert_eq!(bare, listed.iter().map(without).collect::<Vec<_>>());
    }
}
