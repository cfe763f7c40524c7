//! Reading what many commits changed at once, through git's own log.
//!
//! Building the [history index](super::index) from scratch takes every commit's changes
//! relative to its first parent. With libgit2 that is a tree diff per commit, and each tree
//! version is rebuilt from its pack's delta chain again (the same cause as for blobs, see
//! [`super::blobs`]): on an archive of 26,000 moves the walk took seconds per thousand
//! commits. `git log --raw` reads the same trees through git's delta-base cache, about ten
//! times faster.
//!
//! So a long walk (more than [`BULK`] commits) asks one `git log --first-parent --raw -z`
//! for the changes, while the commits themselves (ids, parents, authors, messages, the
//! shallow boundary) are still read with libgit2. git's answer is used only if it names
//! exactly the commits of libgit2's walk, in order, and parses completely; anything else
//! (git missing, an error, another answer) and the walk diffs the trees with libgit2, as
//! for short walks. git is a speed-up here, never a dependency. Settings that change what
//! `git log` prints (renames, `log.showRoot`, replace refs, colour, signatures) are
//! overridden on its command line.

use std::process::{Command, Stdio};

use git2::Oid;

/// Walks of fewer commits than this diff trees with libgit2 (starting git costs a few
/// milliseconds, about what libgit2 takes for this many commits).
pub(crate) const BULK: usize = 256;

/// One change `git log --raw` listed: the path's bytes, the new blob (`None`: deleted) and
/// the new mode (0 when deleted).
pub(crate) type RawChange = (Vec<u8>, Option<Oid>, u32);

/// The changes of the first-parent line ending at `tip`, newest first, `count` commits,
/// each as (commit, its changes); `None` when git cannot answer.
pub(crate) fn first_parent_changes(
    git_dir: &std::path::Path,
    tip: Oid,
    count: usize,
) -> Option<Vec<(Oid, Vec<RawChange>)>> {
    let output = Command::new("git")
        .env("GIT_NO_REPLACE_OBJECTS", "1")
        .arg("--git-dir")
        .arg(git_dir)
        .args([
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
        ])
        .arg(format!("--max-count={count}"))
        .arg(tip.to_string())
        .arg("--")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    parse(&output.stdout)
}

/// Parses `git log -z --raw --format='commit %H'` output: a header token per commit, then
/// for each change a `:<old mode> <new mode> <old id> <new id> <status>` token and its path.
fn parse(bytes: &[u8]) -> Option<Vec<(Oid, Vec<RawChange>)>> {
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
