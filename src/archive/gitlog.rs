//! Reading what many commits changed at once, through git's own log.
//!
//! Building the [history index](super::index) from scratch takes every commit's changes
//! relative to its first parent. With libgit2 that is a tree diff per commit, and each tree
//! version is rebuilt from its pack's delta chain again (the same cause as for blobs, see
//! [`super::blobs`]): on an archive of 26,000 moves the walk took seconds per thousand
//! commits. `git log --raw` reads the same trees through git's delta-base cache, about ten
//! times faster.
//!
//! So a long walk (more than [`BULK`] commits) asks `git log --first-parent --raw -z` for
//! the changes, while the commits themselves (ids, parents, authors, messages, the
//! shallow boundary) are still read with libgit2. A walk from scratch starts git before
//! libgit2 walks, so that both run at once, and lists a line of many thousand commits in
//! consecutive parts (`--skip`, `--max-count`), one git per core: on 2 cores the walk of
//! 25,000 commits takes about half as long. git's answer is used only if it names
//! exactly the commits of libgit2's walk, in order, and parses completely; anything else
//! (git missing, an error, another answer) and the walk diffs the trees with libgit2, as
//! for short walks. git is a speed-up here, never a dependency. Settings that change what
//! `git log` prints (renames, `log.showRoot`, replace refs, colour, signatures) are
//! overridden on its command line.

use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;

use git2::Oid;

/// Walks of fewer commits than this diff trees with libgit2 (starting git costs a few
/// milliseconds, about what libgit2 takes for this many commits).
pub(crate) const BULK: usize = 256;

/// A part of the line one `git log` lists has at least this many commits: splitting a
/// shorter line gains less than each extra git costs in delta bases read twice.
const PART: usize = 4096;

/// At most this many `git log`s list parts of one line at once.
const MAX_PARTS: usize = 4;

/// One change `git log --raw` listed: the path's bytes, the new blob (`None`: deleted) and
/// the new mode (0 when deleted).
pub(crate) type RawChange = (Vec<u8>, Option<Oid>, u32);

/// The changes of a first-parent line, newest first, each as (commit, its changes).
pub(crate) type LineChanges = Vec<(Oid, Vec<RawChange>)>;

/// `git log`s under way, each listing a consecutive part of the first-parent line ending
/// at a tip (newest part first), started by [`start_first_parent_changes`] so that they run
/// while the caller walks the same line with libgit2.
#[derive(Debug)]
pub(crate) struct Listing {
    parts: Vec<JoinHandle<Option<Vec<u8>>>>,
}

impl Listing {
    /// The changes of the whole line, newest first; `None` when a git failed or answered
    /// something that does not parse.
    pub(crate) fn finish(self) -> Option<LineChanges> {
        let mut out = Vec::new();
        let mut failed = false;
        // Every part is waited for, so that no git outlives the walk.
        for part in self.parts {
            match part.join().ok().flatten().and_then(|bytes| parse(&bytes)) {
                Some(changes) if !failed => out.extend(changes),
                _ => failed = true,
            }
        }
        (!failed).then_some(out)
    }
}

/// The `git log` that lists the changes of `count` commits of the first-parent line ending
/// at `tip`, after skipping the `skip` newest (`count` `None`: to the line's end).
fn log_command(git_dir: &std::path::Path, tip: Oid, skip: usize, count: Option<usize>) -> Command {
    let mut command = Command::new("git");
    command.env("GIT_NO_REPLACE_OBJECTS", "1").arg("--git-dir").arg(git_dir).args([
        "log",
        "--first-parent",
        "--diff-merges=first-parent",
        "--raw",
        "--no-abbrev",
        "-z",
        "--root",
        "--no-renames",
        "--no-color",
        "--no-show-signature",
        "--no-relative",
        "--ignore-submodules=none",
        "--format=commit %H",
    ]);
    if skip > 0 {
        command.arg(format!("--skip={skip}"));
    }
    if let Some(count) = count {
        command.arg(format!("--max-count={count}"));
    }
    command.arg(tip.to_string()).arg("--").stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    command
}

/// Collects a started git's output on its own thread (a full pipe would stop git while
/// the caller is busy elsewhere); `None` when it fails.
fn collect(mut child: Child) -> JoinHandle<Option<Vec<u8>>> {
    std::thread::spawn(move || {
        use std::io::Read;
        let mut bytes = Vec::new();
        let read = child.stdout.take().map(|mut out| out.read_to_end(&mut bytes));
        let status = child.wait().ok()?;
        (status.success() && matches!(read, Some(Ok(_)))).then_some(bytes)
    })
}

/// Starts listing the changes of the first-parent line ending at `tip`, when it is long
/// (at least [`BULK`] commits, by `git rev-list --count`): in one `git log`, or for a line
/// of several times [`PART`] commits in up to [`MAX_PARTS`] (at most one per core), each
/// listing a consecutive part. `None` when the line is short or git cannot start.
pub(crate) fn start_first_parent_changes(git_dir: &std::path::Path, tip: Oid) -> Option<Listing> {
    let counted = Command::new("git")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["rev-list", "--first-parent", "--count"])
        .arg(tip.to_string())
        .arg("--")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let total: usize = std::str::from_utf8(&counted.stdout).ok()?.trim().parse().ok()?;
    if !counted.status.success() || total < BULK {
        return None;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    start_in_parts(git_dir, tip, total, (total / PART).clamp(1, MAX_PARTS.min(cores.max(1))))
}

/// Starts `parts` `git log`s, each listing a consecutive part of the `total` commits of
/// the first-parent line ending at `tip` (the last part runs to the line's end).
fn start_in_parts(git_dir: &std::path::Path, tip: Oid, total: usize, parts: usize) -> Option<Listing> {
    let parts = parts.max(1);
    let size = total.div_ceil(parts);
    let mut listing = Listing { parts: Vec::with_capacity(parts) };
    for k in 0..parts {
        // The last part runs to the line's end, whatever the count said.
        let count = (k + 1 < parts).then_some(size);
        match log_command(git_dir, tip, k * size, count).spawn() {
            Ok(child) => listing.parts.push(collect(child)),
            Err(_) => {
                drop(listing.finish());
                return None;
            }
        }
    }
    Some(listing)
}

/// The changes of the first-parent line ending at `tip`, newest first, `count` commits,
/// each as (commit, its changes); `None` when git cannot answer.
pub(crate) fn first_parent_changes(git_dir: &std::path::Path, tip: Oid, count: usize) -> Option<LineChanges> {
    let child = log_command(git_dir, tip, 0, Some(count)).spawn().ok()?;
    Listing { parts: vec![collect(child)] }.finish()
}

/// Parses `git log -z --raw --format='commit %H'` output: a header token per commit, then
/// for each change a `:<old mode> <new mode> <old id> <new id> <status>` token and its path.
fn parse(bytes: &[u8]) -> Option<LineChanges> {
    let mut out: Vec<(Oid, Vec<RawChange>)> = Vec::new();
    let mut tokens = bytes.split(|&b| b == 0);
    while let Some(token) = tokens.next() {
        let token = token.strip_prefix(b"\n").unwrap_or(token);
        if token.is_empty() {
            continue;
        }
        if let Some(hex) = token.strip_prefix(b"commit ") {
            let id = Oid::from_str(std::str::from_utf8(hex).ok()?).ok()?;
            out.push((id, Vec::new()));
            continue;
        }
        let meta = std::str::from_utf8(token.strip_prefix(b":")?).ok()?;
        let path = tokens.next()?.to_vec();
        let mut fields = meta.split(' ');
        let (_old_mode, new_mode, _old_id, new_id, status) =
            (fields.next()?, fields.next()?, fields.next()?, fields.next()?, fields.next()?);
        if fields.next().is_some() || path.is_empty() {
            return None;
        }
        let change = match status {
            "D" => (path, None, 0),
            "A" | "M" | "T" => {
                let mode = u32::from_str_radix(new_mode, 8).ok()?;
                (path, Some(Oid::from_str(new_id).ok()?), mode)
            }
            _ => return None,
        };
        out.last_mut()?.1.push(change);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line listed in parts by several gits at once is the line listed by one: the same
    /// commits in the same order, with the same changes.
    #[test]
    fn a_line_listed_in_parts_is_the_line_listed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        let sig = git2::Signature::new("Ann", "ann@example.com", &git2::Time::new(1_740_830_400, 0)).unwrap();
        let mut parent: Option<git2::Commit<'_>> = None;
        for i in 0..61 {
            let mut tree = repo.treebuilder(parent.as_ref().map(|p| p.tree().unwrap()).as_ref()).unwrap();
            let blob = repo.blob(format!("move {i}\n").as_bytes()).unwrap();
            tree.insert(format!("g{}.pgn", i % 5), blob, 0o100644).unwrap();
            let tree = repo.find_tree(tree.write().unwrap()).unwrap();
            let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
            let id = repo.commit(None, &sig, &sig, &format!("step {i}"), &tree, &parents).unwrap();
            parent = Some(repo.find_commit(id).unwrap());
        }
        let tip = parent.unwrap().id();
        let whole = first_parent_changes(repo.path(), tip, 61).unwrap();
        assert_eq!(whole.len(), 61);
        assert_eq!(whole[60].1, vec![(b"g0.pgn".to_vec(), Some(repo.blob(b"move 0\n").unwrap()), 0o100644)]);
        for parts in [1, 2, 3, 7, 61] {
            let listed = start_in_parts(repo.path(), tip, 61, parts).unwrap().finish().unwrap();
            assert_eq!(listed, whole, "in {parts} parts");
        }
        // A count that is no longer true (the line grew or shrank) is caught by the caller,
        // who compares the commits with libgit2's walk: the last part runs to the end.
        assert_eq!(start_in_parts(repo.path(), tip, 40, 2).unwrap().finish().unwrap(), whole);
        assert!(start_in_parts(repo.path(), Oid::ZERO_SHA1, 61, 2).unwrap().finish().is_none());
    }

    #[test]
    fn parses_headers_changes_and_empty_commits() {
        let a = "1111111111111111111111111111111111111111";
        let b = "2222222222222222222222222222222222222222";
        let z = "0000000000000000000000000000000000000000";
        let text = format!(
            "commit {a}\0\n:100644 100644 {b} {b} M\0games/x.pgn\0:000000 120000 {z} {b} A\0l\0\
             :100644 000000 {b} {z} D\0gone\0commit {b}\0commit {a}\0"
        );
        let parsed = parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.len(), 3);
        assert_eq!(parsed[0].0.to_string(), a);
        let ob = Oid::from_str(b).unwrap();
        assert_eq!(
            parsed[0].1,
            vec![
                (b"games/x.pgn".to_vec(), Some(ob), 0o100644),
                (b"l".to_vec(), Some(ob), 0o120000),
                (b"gone".to_vec(), None, 0)
            ]
        );
        assert!(parsed[1].1.is_empty() && parsed[2].1.is_empty());
        // A rename or copy (never asked for), a change before any commit, a cut-off change:
        // no answer.
        assert!(parse(format!("commit {a}\0:100644 100644 {b} {b} R100\0x\0y\0").as_bytes()).is_none());
        assert!(parse(format!(":100644 100644 {b} {b} M\0x\0").as_bytes()).is_none());
        assert!(parse(format!("commit {a}\0:100644 100644 {b} {b} M\0").as_bytes()).is_none());
    }
}
