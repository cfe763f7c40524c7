//! The files one commit changes: its tree against its parent's, reading only the folders
//! whose ids differ.
//!
//! libgit2's `diff_tree_to_tree` reads every folder of both trees, changed or not: in an
//! archive of 30,000 games in the fan-out layout that is tens of thousands of tree objects
//! for a commit that changes one file. Here the two trees are merged entry by entry in
//! git's order and a folder is read only when its id changed, as `git diff-tree -r` does;
//! the changes are those `git log --raw --no-renames` lists (a file that became a symbolic
//! link is one change, a file that became a folder is a deletion and the additions).

use std::sync::Arc;

use git2::{ObjectType, Repository, Tree, TreeEntry};

use super::{BlobId, IndexedChange};

/// The changes from `old` to `new` (`None`: an empty tree), sorted by path.
pub(crate) fn tree_changes(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
) -> Result<Vec<IndexedChange>, git2::Error> {
    let mut out = Vec::new();
    walk(repo, old, new, "", &mut out)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The order of two entries as git sorts a tree: by name, a folder's name read with a `/`
/// after it (compared in place: this runs for every entry of every folder read).
fn git_order(x: &TreeEntry<'_>, y: &TreeEntry<'_>) -> std::cmp::Ordering {
    let (a, b) = (x.name_bytes(), y.name_bytes());
    let a = a.iter().copied().chain(is_tree(x).then_some(b'/'));
    a.cmp(b.iter().copied().chain(is_tree(y).then_some(b'/')))
}

fn is_tree(e: &TreeEntry<'_>) -> bool {
    e.kind() == Some(ObjectType::Tree)
}

fn path_of(prefix: &str, e: &TreeEntry<'_>) -> String {
    format!("{prefix}{}", String::from_utf8_lossy(e.name_bytes()))
}

fn walk(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    prefix: &str,
    out: &mut Vec<IndexedChange>,
) -> Result<(), git2::Error> {
    let mut a = old.into_iter().flat_map(Tree::iter).peekable();
    let mut b = new.into_iter().flat_map(Tree::iter).peekable();
    loop {
        let Some(order) = merge_order(a.peek(), b.peek(), git_order) else { return Ok(()) };
        match order {
            std::cmp::Ordering::Less => {
                let x = a.next().expect("peeked");
                side(repo, &x, prefix, false, out)?;
            }
            std::cmp::Ordering::Greater => {
                let y = b.next().expect("peeked");
                side(repo, &y, prefix, true, out)?;
            }
            std::cmp::Ordering::Equal => {
                let (x, y) = (a.next().expect("peeked"), b.next().expect("peeked"));
                if x.id() == y.id() && x.filemode() == y.filemode() {
                    continue;
                }
                if is_tree(&x) {
                    // Same name with a `/`: both are folders.
                    let (tx, ty) = (repo.find_tree(x.id())?, repo.find_tree(y.id())?);
                    walk(repo, Some(&tx), Some(&ty), &format!("{}/", path_of(prefix, &x)), out)?;
                } else {
                    out.push(change(prefix, &y));
                }
            }
        }
    }
}

/// Which of the next entries of two sorted lists comes first (`Less`: `x`, `Greater`: `y`,
/// `Equal`: both, of one name), by `order`; `None` when both lists have ended.
pub(crate) fn merge_order<T>(
    x: Option<&T>,
    y: Option<&T>,
    order: impl Fn(&T, &T) -> std::cmp::Ordering,
) -> Option<std::cmp::Ordering> {
    match (x, y) {
        (None, None) => None,
        (Some(_), None) => Some(std::cmp::Ordering::Less),
        (None, Some(_)) => Some(std::cmp::Ordering::Greater),
        (Some(x), Some(y)) => Some(order(x, y)),
    }
}

/// An entry on one side only: a file added or deleted, or every file of a folder.
fn side(
    repo: &Repository,
    e: &TreeEntry<'_>,
    prefix: &str,
    added: bool,
    out: &mut Vec<IndexedChange>,
) -> Result<(), git2::Error> {
    if is_tree(e) {
        let t = repo.find_tree(e.id())?;
        let inner = format!("{}/", path_of(prefix, e));
        return if added {
            walk(repo, None, Some(&t), &inner, out)
        } else {
            walk(repo, Some(&t), None, &inner, out)
        };
    }
    out.push(if added {
        change(prefix, e)
    } else {
        IndexedChange { path: Arc::from(path_of(prefix, e)), blob: None, mode: 0 }
    });
    Ok(())
}

/// The new version of a file (its blob, or a submodule's commit) and mode.
fn change(prefix: &str, e: &TreeEntry<'_>) -> IndexedChange {
    IndexedChange {
        path: Arc::from(path_of(prefix, e)),
        blob: Some(BlobId(e.id())),
        mode: u32::try_from(e.filemode()).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree of `files` (path, contents; a contents starting with `->` is a symbolic
    /// link to the rest).
    fn tree<'r>(repo: &'r Repository, files: &[(&str, &str)]) -> Tree<'r> {
        let mut index = git2::Index::new().unwrap();
        for (path, text) in files {
            let (bytes, mode) = match text.strip_prefix("->") {
                Some(target) => (target.as_bytes(), 0o120_000),
                None => (text.as_bytes(), 0o100_644),
            };
            let id = repo.blob(bytes).unwrap();
            let entry = git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode,
                uid: 0,
                gid: 0,
                file_size: 0,
                id,
                flags: 0,
                flags_extended: 0,
                path: path.as_bytes().to_vec(),
            };
            index.add(&entry).unwrap();
        }
        let id = index.write_tree_to(repo).unwrap();
        repo.find_tree(id).unwrap()
    }

    fn listed(changes: &[IndexedChange]) -> Vec<(String, Option<String>, u32)> {
        changes.iter().map(|c| (c.path.to_string(), c.blob.map(|b| b.0.to_string()), c.mode)).collect()
    }

    /// The same changes as libgit2's whole-tree diff (with type changes), on trees with
    /// a changed file deep in folders, added and deleted folders, a file become a folder,
    /// a file become a symbolic link, names that sort differently as folders (`a` and
    /// `a.b`), and an executable bit.
    #[test]
    fn tree_changes_are_those_of_libgit2s_diff() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init_bare(dir.path()).unwrap();
        let old = tree(
            &repo,
            &[
                ("games/grand/a/b/g1.pgn", "1"),
                ("games/grand/a/b/g2.pgn", "2"),
                ("games/grand/c/d/g3.pgn", "3"),
                ("gone/x", "x"),
                ("a.b", "ab"),
                ("a/z", "z"),
                ("becomes-dir", "f"),
                ("link", "plain"),
                ("README.md", "r"),
            ],
        );
        let new = tree(
            &repo,
            &[
                ("games/grand/a/b/g1.pgn", "1 changed"),
                ("games/grand/a/b/g2.pgn", "2"),
                ("games/grand/c/d/g3.pgn", "3"),
                ("games/grand/e/f/g4.pgn", "4"),
                ("a.b", "ab"),
                ("a/z", "z2"),
                ("becomes-dir/inner", "i"),
                ("link", "->plain"),
                ("README.md", "r"),
            ],
        );
        for (from, to) in
            [(Some(&old), Some(&new)), (Some(&new), Some(&old)), (None, Some(&new)), (Some(&old), None)]
        {
            let mine = tree_changes(&repo, from, to).unwrap();
            let diff = repo
                .diff_tree_to_tree(from, to, Some(git2::DiffOptions::new().include_typechange(true)))
                .unwrap();
            let mut theirs: Vec<IndexedChange> = diff
                .deltas()
                .map(|d| {
                    let path = d.new_file().path_bytes().or_else(|| d.old_file().path_bytes()).unwrap();
                    let (blob, mode) = match d.status() {
                        git2::Delta::Deleted => (None, 0),
                        _ => (
                            Some(BlobId(d.new_file().id())),
                            u32::try_from(i32::from(d.new_file().mode())).unwrap(),
                        ),
                    };
                    IndexedChange { path: Arc::from(String::from_utf8_lossy(path)), blob, mode }
                })
                .collect();
            theirs.sort_by(|a, b| a.path.cmp(&b.path));
            assert_eq!(listed(&mine), listed(&theirs));
            assert!(!mine.is_empty());
        }
        assert_eq!(tree_changes(&repo, Some(&old), Some(&old)).unwrap().len(), 0);
    }
}
