//! The changes of a long walk's commits, most of them proven without reading a tree.
//!
//! `git log --raw` diffs each commit's tree against its parent's: in an archive of the
//! fan-out layout that is some ten tree objects read for a commit that changes one game,
//! most of a cold `verify`'s work. But nearly every commit ravenpost makes adds one move
//! to the game its message names (`g12: ply 7 …`), and that game's version before is its
//! text one move shorter ([`Cuts`], as the judging rebuilds it), whose git blob id is the
//! SHA-1 of those bytes.
//!
//! So [`TreeWalk`] holds the tree of the commit the walk is at (each folder's entries, as
//! git stores them) and guesses the parent's: that game's entry set to the id of its text
//! one move shorter, or, for the commit that made the game, without it. It hashes the few
//! folders on the game's path as git hashes trees and compares the root's id with the
//! parent's tree id, which `git log` lists: the same id is the same tree (git names its
//! objects by the same SHA-1, and hashed the stored tree with a SHA-1 that refuses the
//! inputs of known collision attacks, as for a rebuilt blob in [`super::blobs`]), so the
//! commit's one change is proven. Any other commit (a
//! draw offer, a result, an edit by hand, a tournament, a settings change), and any guess
//! that fails, is diffed against its parent, reading only the parent's folders whose ids
//! differ from those held. The changes are those `git log --raw --no-renames` lists.

use std::collections::HashMap;

use git2::Oid;
use sha1::Digest;

use super::blobs::{CutPoints, Cuts};
use super::gitlog::RawChange;
use super::{Archive, ArchiveError, BlobId};

/// A folder with more entries than this is no fan-out folder: hashing it for every commit
/// would cost more than git's diff (an archive of the flat layout is walked by
/// `git log --raw`).
pub(crate) const MAX_FOLDER: usize = 1024;

/// How many bytes of game texts a walk holds at most (each game's, from its first
/// commit met to the one that made it): the commits of a game met once the walk holds this
/// much are diffed, so that memory is bounded whatever the archive's size.
const MAX_TEXT_BYTES: usize = 48 << 20;

/// The id of git's empty tree.
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// One entry of a tree, as git stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// The mode in octal digits, exactly as stored (old gits wrote some with a leading 0).
    mode: Box<[u8]>,
    name: Box<[u8]>,
    id: Oid,
}

impl Entry {
    /// The mode as git reads it (`canon_mode`): a regular file is 100644 or 100755
    /// whatever else its permission bits say, a link 120000, a folder 40000, and any other
    /// a submodule, 160000; `git log --raw` lists these.
    fn mode_bits(&self) -> u32 {
        let raw = self.mode.iter().fold(0u32, |m, d| (m << 3) | u32::from(d.wrapping_sub(b'0') & 7));
        match raw & 0o170_000 {
            0o100_000 if raw & 0o100 != 0 => 0o100_755,
            0o100_000 => 0o100_644,
            0o120_000 => 0o120_000,
            0o040_000 => 0o040_000,
            _ => 0o160_000,
        }
    }

    fn is_tree(&self) -> bool {
        self.mode_bits() == 0o040_000
    }

    fn is_file(&self) -> bool {
        self.mode_bits() & 0o170_000 == 0o100_000
    }
}

/// A game file's text at the version the walk is at: a later version read (`bytes`, cut
/// after each move by `cuts`) cut to its first `moves` moves.
struct Text {
    bytes: Vec<u8>,
    cuts: Option<Cuts>,
    moves: usize,
}

impl Text {
    /// About how many bytes it holds.
    fn size(&self) -> usize {
        self.bytes.len() + self.cuts.as_ref().map_or(0, |c| 8 * (c.moves() + 1))
    }
}

/// The tree of the commit a walk is at, newest first, and the texts of the games it has
/// met; see the [module docs](self).
#[derive(Default)]
pub(crate) struct TreeWalk {
    /// The id of the tree held (`None`: none yet).
    root: Option<Oid>,
    /// Each folder's entries in git's order, by path (`""` the root, else ending in `/`).
    folders: HashMap<Vec<u8>, Vec<Entry>>,
    /// The folder of each game file under `games/` by file name (`None`: in two folders).
    games: HashMap<Box<[u8]>, Option<Vec<u8>>>,
    texts: HashMap<Vec<u8>, Text>,
    /// The sum of the texts' sizes.
    text_bytes: usize,
    /// How many bytes of texts it may hold ([`MAX_TEXT_BYTES`]; the tests set less).
    pub(crate) text_limit: usize,
    /// Where the moves of a game's text end.
    move_ends: Option<CutPoints>,
    /// How many commits' changes were proven without a diff.
    pub(crate) proven: usize,
    /// How many commits were diffed (no guess held).
    pub(crate) diffed: usize,
}

impl std::fmt::Debug for TreeWalk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeWalk").field("root", &self.root).field("folders", &self.folders.len()).finish()
    }
}

impl TreeWalk {
    /// A walk that holds the tree `tree`, finding where a game text's moves end with
    /// `move_ends`; `None` when a folder of it is too large for guessing to pay
    /// ([`MAX_FOLDER`]).
    ///
    /// # Errors
    /// Git failures (a tree missing or malformed).
    pub(crate) fn start(
        archive: &Archive,
        tree: Oid,
        move_ends: CutPoints,
    ) -> Result<Option<TreeWalk>, ArchiveError> {
        let mut walk =
            TreeWalk { move_ends: Some(move_ends), text_limit: MAX_TEXT_BYTES, ..TreeWalk::default() };
        walk.load(archive, tree)?;
        Ok(walk.folders.values().all(|f| f.len() <= MAX_FOLDER).then_some(walk))
    }

    /// The changes of the commit whose tree is `tree` and message `message` against its
    /// first parent's tree `parent` (`None`: a root commit, every file added). Afterwards
    /// the walk holds `parent`.
    ///
    /// # Errors
    /// Git failures (a tree or blob missing or malformed).
    pub(crate) fn changes(
        &mut self,
        archive: &Archive,
        tree: Oid,
        parent: Option<Oid>,
        message: &[u8],
    ) -> Result<Vec<RawChange>, ArchiveError> {
        if self.root != Some(tree) {
            self.load(archive, tree)?;
        }
        let Some(parent) = parent else {
            let mut out = Vec::new();
            self.files_under(b"", false, &mut |path, e| out.push((path, Some(e.id), e.mode_bits())));
            return Ok(out);
        };
        if parent == tree {
            return Ok(Vec::new());
        }
        if let Some(change) = self.guess(archive, parent, message)? {
            self.proven += 1;
            return Ok(vec![change]);
        }
        self.diffed += 1;
        let mut out = Vec::new();
        let entries = parse_tree(&archive.read_tree_bytes(parent)?, parent)?;
        self.merge(archive, Vec::new(), entries, &mut out)?;
        self.root = Some(parent);
        for (path, _, _) in &out {
            self.forget(path);
        }
        Ok(out)
    }

    /// Drops the text held for the game file at `path`.
    fn forget(&mut self, path: &[u8]) {
        if let Some(t) = self.texts.remove(path) {
            self.text_bytes -= t.size();
        }
    }

    /// Holds the tree `tree`, read whole.
    fn load(&mut self, archive: &Archive, tree: Oid) -> Result<(), ArchiveError> {
        self.folders.clear();
        self.games.clear();
        self.texts.clear();
        self.text_bytes = 0;
        let mut out = Vec::new();
        self.read_folder(archive, Vec::new(), tree, &mut out)?;
        self.root = Some(tree);
        Ok(())
    }

    /// Reads the folder `prefix` (tree `tree`) and every folder in it into the walk, each
    /// file listed in `out` as deleted (what a commit that lacks the folder does).
    fn read_folder(
        &mut self,
        archive: &Archive,
        prefix: Vec<u8>,
        tree: Oid,
        out: &mut Vec<RawChange>,
    ) -> Result<(), ArchiveError> {
        let entries = parse_tree(&archive.read_tree_bytes(tree)?, tree)?;
        for e in &entries {
            self.parent_only(archive, &prefix, e, out)?;
        }
        self.folders.insert(prefix, entries);
        Ok(())
    }

    /// Takes in the parent's entry `e` of the folder `prefix`, which the commit lacks: a
    /// file the commit deleted, or a folder of such files.
    fn parent_only(
        &mut self,
        archive: &Archive,
        prefix: &[u8],
        e: &Entry,
        out: &mut Vec<RawChange>,
    ) -> Result<(), ArchiveError> {
        let path = [prefix, &e.name].concat();
        if e.is_tree() {
            self.read_folder(archive, [&path[..], b"/"].concat(), e.id, out)
        } else {
            self.met_game(prefix, e);
            out.push((path, None, 0));
            Ok(())
        }
    }

    /// Notes where a game file is.
    fn met_game(&mut self, folder: &[u8], e: &Entry) {
        if folder.starts_with(b"games/") && e.name.ends_with(b".pgn") && e.is_file() {
            self.games
                .entry(e.name.clone())
                .and_modify(|f| {
                    if f.as_deref() != Some(folder) {
                        *f = None;
                    }
                })
                .or_insert_with(|| Some(folder.to_vec()));
        }
    }

    /// Every file under the folder `prefix` (path, entry), oldest folder first; the folders
    /// are taken out of the walk when `take`.
    fn files_under(&mut self, prefix: &[u8], take: bool, f: &mut dyn FnMut(Vec<u8>, &Entry)) {
        let entries = if take {
            self.folders.remove(prefix).unwrap_or_default()
        } else {
            self.folders.get(prefix).cloned().unwrap_or_default()
        };
        for e in &entries {
            let path = [prefix, &e.name].concat();
            if e.is_tree() {
                self.files_under(&[&path[..], b"/"].concat(), take, f);
            } else {
                f(path, e);
            }
        }
    }

    /// The change of the commit when it is one move added to the game its message names,
    /// or the game made: proven when the tree so guessed has the parent's id `parent`
    /// (the walk then holds it).
    fn guess(
        &mut self,
        archive: &Archive,
        parent: Oid,
        message: &[u8],
    ) -> Result<Option<RawChange>, ArchiveError> {
        let Some(id) = message.split(|b| *b == b':').next().filter(|id| {
            !id.is_empty()
                && id.len() < message.len()
                && !id.iter().any(|b| b.is_ascii_whitespace() || *b == b'/')
        }) else {
            return Ok(None);
        };
        let name: Box<[u8]> = [id, b".pgn"].concat().into();
        let Some(Some(folder)) = self.games.get(&name).cloned() else { return Ok(None) };
        let Some(entry) = self.folders.get(&folder).and_then(|f| f.iter().find(|e| e.name == name)).cloned()
        else {
            return Ok(None);
        };
        if !entry.is_file() {
            return Ok(None);
        }
        let path = [&folder[..], &name].concat();
        if !self.texts.contains_key(&path) {
            if self.text_bytes >= self.text_limit {
                return Ok(None);
            }
            let shown = String::from_utf8_lossy(&path).into_owned();
            let bytes = archive.read_blobs_from(&[BlobId(entry.id)], &shown, true)?.pop().unwrap_or_default();
            let cuts = self.move_ends.and_then(|f| Cuts::of(&bytes, f));
            let moves = cuts.as_ref().map_or(0, Cuts::moves);
            let text = Text { bytes, cuts, moves };
            self.text_bytes += text.size();
            self.texts.insert(path.clone(), text);
        }
        let change = (path.clone(), Some(entry.id), entry.mode_bits());
        let text = &self.texts[&path];
        if let (Some(cuts), Some(j)) = (&text.cuts, text.moves.checked_sub(1)) {
            for candidate in cuts.candidate_ids(&text.bytes, j) {
                if let Some(ids) =
                    self.hash_up(&folder, &name, Some(candidate)).filter(|ids| root_of(ids) == parent)
                {
                    self.apply(&folder, &name, Some(candidate), &ids);
                    if let Some(t) = self.texts.get_mut(&path) {
                        t.moves = j;
                    }
                    return Ok(Some(change));
                }
            }
        }
        if let Some(ids) = self.hash_up(&folder, &name, None).filter(|ids| root_of(ids) == parent) {
            self.apply(&folder, &name, None, &ids);
            self.forget(&path);
            self.games.remove(&name);
            return Ok(Some(change));
        }
        Ok(None)
    }

    /// The ids of the folders from `folder` up to the root were the entry `name` of
    /// `folder` the object `new` (`None`: removed); `None` in a slot for a folder left
    /// empty (no tree: git keeps no empty folder but the root). `None` when a folder on the
    /// way is not held.
    fn hash_up(&self, folder: &[u8], name: &[u8], new: Option<Oid>) -> Option<Vec<Option<Oid>>> {
        let mut ids = Vec::new();
        let (mut folder, mut name, mut new) = (folder, name, new);
        loop {
            let id = folder_id(self.folders.get(folder)?, name, new, folder.is_empty());
            ids.push(id);
            if folder.is_empty() {
                return Some(ids);
            }
            let (up, last) = split_folder(folder);
            (folder, name, new) = (up, last, id);
        }
    }

    /// Makes the change [`TreeWalk::hash_up`] hashed (`ids` its answer).
    fn apply(&mut self, folder: &[u8], name: &[u8], new: Option<Oid>, ids: &[Option<Oid>]) {
        let (mut folder, mut name, mut new) = (folder.to_vec(), name.to_vec(), new);
        for id in ids {
            if let Some(entries) = self.folders.get_mut(&folder) {
                match (entries.iter().position(|e| *e.name == *name), new) {
                    (Some(k), Some(n)) => entries[k].id = n,
                    (Some(k), None) => {
                        entries.remove(k);
                    }
                    (None, _) => {}
                }
                if entries.is_empty() && !folder.is_empty() {
                    self.folders.remove(&folder);
                }
            }
            if folder.is_empty() {
                self.root = *id;
                return;
            }
            let (up, last) = split_folder(&folder);
            (folder, name, new) = (up.to_vec(), last.to_vec(), *id);
        }
    }

    /// Merges the folder `prefix` held (the commit's) with the parent's `parent` entries in
    /// git's order, reading the parent's folders whose ids differ, and listing in `out` the
    /// commit's changes; the walk then holds the parent's folder.
    fn merge(
        &mut self,
        archive: &Archive,
        prefix: Vec<u8>,
        parent: Vec<Entry>,
        out: &mut Vec<RawChange>,
    ) -> Result<(), ArchiveError> {
        let ours = self.folders.remove(&prefix).unwrap_or_default();
        let (mut a, mut b) = (ours.iter().peekable(), parent.iter().peekable());
        while let Some(order) = super::treediff::merge_order(a.peek().copied(), b.peek().copied(), git_order)
        {
            match order {
                std::cmp::Ordering::Less => {
                    // The commit's only: added by it.
                    let x = a.next().expect("peeked");
                    let path = [&prefix[..], &x.name].concat();
                    if x.is_tree() {
                        self.files_under(&[&path[..], b"/"].concat(), true, &mut |p, e| {
                            out.push((p, Some(e.id), e.mode_bits()));
                        });
                    } else {
                        out.push((path, Some(x.id), x.mode_bits()));
                    }
                    self.games.remove(&x.name);
                }
                std::cmp::Ordering::Greater => {
                    // The parent's only: deleted by the commit.
                    let y = b.next().expect("peeked");
                    self.parent_only(archive, &prefix, y, out)?;
                }
                std::cmp::Ordering::Equal => {
                    let (x, y) = (a.next().expect("peeked"), b.next().expect("peeked"));
                    if x.id == y.id && x.mode_bits() == y.mode_bits() {
                        continue;
                    }
                    let path = [&prefix[..], &x.name].concat();
                    if x.is_tree() {
                        let entries = parse_tree(&archive.read_tree_bytes(y.id)?, y.id)?;
                        self.merge(archive, [&path[..], b"/"].concat(), entries, out)?;
                    } else {
                        out.push((path, Some(x.id), x.mode_bits()));
                    }
                }
            }
        }
        if !parent.is_empty() || prefix.is_empty() {
            self.folders.insert(prefix, parent);
        }
        Ok(())
    }
}

/// The root's id of [`TreeWalk::hash_up`]'s answer.
fn root_of(ids: &[Option<Oid>]) -> Oid {
    ids.last().copied().flatten().unwrap_or_else(|| Oid::from_str(EMPTY_TREE).expect("an id"))
}

/// `a/b/c/` → (`a/b/`, `c`).
fn split_folder(folder: &[u8]) -> (&[u8], &[u8]) {
    let inner = &folder[..folder.len() - 1];
    match memchr::memrchr(b'/', inner) {
        Some(i) => (&folder[..=i], &inner[i + 1..]),
        None => (&[][..], inner),
    }
}

/// The order of two entries as git sorts a tree: by name, a folder's read with a `/`
/// after it.
fn git_order(x: &Entry, y: &Entry) -> std::cmp::Ordering {
    let a = x.name.iter().copied().chain(x.is_tree().then_some(b'/'));
    a.cmp(y.name.iter().copied().chain(y.is_tree().then_some(b'/')))
}

/// The git id of the tree of `entries` with the entry `name` the object `new` (`None`:
/// without it); `None` for an empty tree, but the `root`'s.
fn folder_id(entries: &[Entry], name: &[u8], new: Option<Oid>, root: bool) -> Option<Oid> {
    let mut body = Vec::with_capacity(entries.len() * 48);
    for e in entries {
        let id = if *e.name == *name {
            match new {
                Some(id) => id,
                None => continue,
            }
        } else {
            e.id
        };
        body.extend_from_slice(&e.mode);
        body.push(b' ');
        body.extend_from_slice(&e.name);
        body.push(0);
        body.extend_from_slice(id.as_bytes());
    }
    if body.is_empty() && !root {
        return None;
    }
    let mut hasher = sha1::Sha1::new();
    hasher.update(format!("tree {}\0", body.len()).as_bytes());
    hasher.update(&body);
    Oid::from_bytes(&hasher.finalize()).ok()
}

/// The entries of a tree object's raw bytes; an error for entries out of git's order
/// (which no git writes: merged entry by entry, such a tree would give other changes than
/// git's diff).
fn parse_tree(mut bytes: &[u8], id: Oid) -> Result<Vec<Entry>, ArchiveError> {
    let bad = || ArchiveError::git_oid("read tree", id, git2::Error::from_str("malformed tree"));
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let space = memchr::memchr(b' ', bytes).ok_or_else(bad)?;
        let nul = memchr::memchr(0, &bytes[space..]).ok_or_else(bad)? + space;
        let end = nul + 1 + 20;
        let raw = bytes.get(nul + 1..end).ok_or_else(bad)?;
        let mode = &bytes[..space];
        if mode.is_empty() || !mode.iter().all(|d| (b'0'..=b'7').contains(d)) {
            return Err(bad());
        }
        out.push(Entry {
            mode: mode.into(),
            name: bytes[space + 1..nul].into(),
            id: Oid::from_bytes(raw).map_err(|_| bad())?,
        });
        bytes = &bytes[end..];
    }
    if out.windows(2).any(|w| git_order(&w[0], &w[1]) != std::cmp::Ordering::Less) {
        return Err(bad());
    }
    Ok(out)
}
