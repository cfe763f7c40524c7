//! The archive's layout ([`Layout`]): moving an archive from the flat layout to the
//! fan-out (`ravenpost archive migrate-layout`, [`migrate_layout`]), following a game's
//! history across that move ([`game_versions`], [`followed_history`]), and what `verify`
//! finds wrong with where records are ([`layout_problems`]). The referee judges
//! ([`crate::referee::judge_layout`]); this reads the archive for it.
//!
//! A migration is one commit: every game and army choice file moved to its fan-out path
//! with the same blob, and `layout: fan-out` set in `ravenpost.yaml`. Before it a game's
//! versions are at its flat path; the commit deletes that path and adds the fan-out path
//! with the same blob. A game's history is the two joined: the flat path's versions but
//! its deletion, then the fan-out path's but the copy the migration made.

use serde::Serialize;

use crate::archive::{
    Archive, ArchiveConfig, CommitId, CommitNames, FileVersion, GamePath, HistoryIndex, IndexedCommit,
    Layout, PathVersion,
};
use crate::referee::judge::Finding;
use crate::referee::judge_layout::{self, SettingsChange};
use crate::referee::layout::{CONFIG_PATH, parse_army_choice_path, record_layout};

use super::error::Error as Failure;
use super::report::VerifyProblem;
use super::session::Session;

/// How the settings `after` (a commit's new `ravenpost.yaml`: its bytes, `None` for a
/// deletion) differ from the text `before` (the file before the commit): only by the
/// layout (a migration), by other settings (a settings change, with `version` and
/// `layout` kept, or naming the one that changed, or a file that does not read), or
/// otherwise (a deletion, or settings before that did not read).
pub(crate) fn settings_change(before: Option<&str>, after: Option<&[u8]>) -> SettingsChange {
    let (Some(b), Some(after)) = (before.and_then(|t| ArchiveConfig::from_yaml(t).ok()), after) else {
        return SettingsChange::Other;
    };
    let a = match std::str::from_utf8(after) {
        Err(_) => return SettingsChange::Unreadable { why: "it is not UTF-8 text".to_string() },
        Ok(text) => match ArchiveConfig::from_yaml(text) {
            Ok(a) => a,
            Err(crate::archive::ArchiveError::Config { message, .. }) => {
                return SettingsChange::Unreadable { why: message };
            }
            Err(e) => return SettingsChange::Unreadable { why: e.to_string() },
        },
    };
    if a.layout != b.layout {
        if (ArchiveConfig { layout: b.layout, ..a.clone() }) == b {
            return SettingsChange::Layout { from: b.layout, to: a.layout };
        }
        return SettingsChange::Fixed { key: "layout" };
    }
    if a.version != b.version {
        return SettingsChange::Fixed { key: "version" };
    }
    SettingsChange::Settings
}

/// The flat path of the record at the fan-out path `path` (a game or army choice file);
/// `None` for any other path.
fn flat_twin(path: &str) -> Option<String> {
    if let Some((Layout::FanOut, id)) = parse_army_choice_path(path) {
        return Some(crate::referee::layout::army_choice_path(Layout::Flat, id));
    }
    GamePath::parse(path).filter(|g| g.layout() == Layout::FanOut).map(|g| g.with_layout(Layout::Flat).path())
}

/// Joins a record's versions at its flat path (`before`) and at its fan-out path
/// (`here`) when a migration commit moved it: `before` ends in a deletion by the commit
/// that made `here`'s first version. The deletion is dropped, and `here`'s first version
/// too when it holds what the flat path last held (a moved file, unchanged). Before the
/// migration (`here` empty: a history up to an earlier commit) the record is `before`.
fn join<V: Clone>(
    before: &[V],
    here: Vec<V>,
    commit: impl Fn(&V) -> CommitId,
    content: impl Fn(&V) -> Option<Vec<u8>>,
) -> Vec<V> {
    if here.is_empty() {
        return before.to_vec();
    }
    let (Some(first), [earlier @ .., last]) = (here.first(), before) else { return here };
    if content(last).is_some() || commit(last) != commit(first) {
        return here;
    }
    let mut out = earlier.to_vec();
    let moved = out.last().is_some_and(|prev| content(prev).is_some() && content(prev) == content(first));
    out.extend(here.into_iter().skip(usize::from(moved)));
    out
}

/// The versions of the record at `path` (a game or army choice file), oldest first,
/// followed across the migration that moved it to its fan-out path.
pub(crate) fn record_versions(index: &HistoryIndex, path: &str) -> Vec<PathVersion> {
    followed_versions(path, |p| index.versions(p), |v| v)
}

/// The versions of game `g`, oldest first, across a migration ([`record_versions`]).
pub(crate) fn game_versions(index: &HistoryIndex, g: &GamePath) -> Vec<PathVersion> {
    record_versions(index, &g.path())
}

/// [`game_versions`] with each version's commit ([`HistoryIndex::version_commits`]).
pub(crate) fn game_version_commits(index: &HistoryIndex, g: &GamePath) -> Vec<(PathVersion, IndexedCommit)> {
    followed_versions(&g.path(), |p| index.version_commits(p), |(v, _)| v)
}

/// What `read` says of each version of `path` and, before a migration, of its flat path
/// ([`join`]); `version` is the version an item is of.
fn followed_versions<V: Clone>(
    path: &str,
    read: impl Fn(&str) -> Vec<V>,
    version: impl Fn(&V) -> &PathVersion,
) -> Vec<V> {
    let here = read(path);
    let Some(flat) = flat_twin(path) else { return here };
    let before = read(&flat);
    join(&before, here, |x| version(x).commit, |x| version(x).blob.map(|b| b.to_string().into_bytes()))
}

/// The history of the record at `path` up to `at` (or the tip), each version's text, with
/// its versions at its flat path before a migration joined ([`record_versions`]).
///
/// # Errors
/// The archive's errors.
pub(crate) fn followed_history(
    archive: &Archive,
    path: &str,
    at: Option<CommitId>,
) -> Result<Vec<FileVersion>, crate::archive::ArchiveError> {
    let read = |p: &str| match at {
        Some(c) => archive.file_history_at(p, c),
        None => archive.file_history(p),
    };
    let here = read(path)?;
    let Some(flat) = flat_twin(path) else { return Ok(here) };
    let before = read(&flat)?;
    Ok(join(&before, here, |v| v.commit, |v| v.contents.clone().map(String::into_bytes)))
}

/// The positions in `index` of the commits that change the archive's layout (a
/// migration), with what the referee finds wrong with each.
///
/// # Errors
/// The archive's errors.
pub(crate) fn migrations(
    archive: &Archive,
    index: &HistoryIndex,
) -> Result<Vec<(usize, Vec<Finding>)>, Failure> {
    let mut out = Vec::new();
    let versions: Vec<PathVersion> = index.versions(CONFIG_PATH).to_vec();
    for pair in versions.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let text = |v: &PathVersion| v.blob.and_then(|b| archive.read_blob_text(b, CONFIG_PATH).ok());
        let bytes = after.blob.and_then(|b| archive.read_blob_bytes(b, CONFIG_PATH).ok());
        let change = settings_change(text(before).as_deref(), bytes.as_deref());
        if !matches!(change, SettingsChange::Layout { .. }) {
            continue;
        }
        let c = index.commit_at(after.position);
        let changes: Vec<(&str, Option<crate::archive::BlobId>)> =
            c.changes.iter().map(|ch| (&*ch.path, ch.blob)).collect();
        let old = |p: &str| {
            index.versions(p).iter().take_while(|v| v.position < after.position).last().and_then(|v| v.blob)
        };
        let tree = archive.record_paths_at(c.commit)?;
        let tree: Vec<&str> = tree.iter().map(String::as_str).collect();
        out.push((after.position, judge_layout::judge_migration(&changes, old, change, &tree)));
    }
    Ok(out)
}

/// The layout a path under `games/` has by its shape alone (`games/V/F`: flat,
/// `games/V/X/Y/F`: fan-out), before any check of its names; `None` for other shapes.
fn shape_layout(path: &str) -> Option<Layout> {
    let rest = path.strip_prefix("games/")?;
    match rest.bytes().filter(|b| *b == b'/').count() {
        1 => Some(Layout::Flat),
        3 => Some(Layout::FanOut),
        _ => None,
    }
}

/// What `verify` finds wrong with where the records are: a migration commit that is no
/// migration ([`judge_layout::judge_migration`]), a record written at a path of the layout
/// the archive did not use then, and one game id at two paths among `games` (the games at
/// the tip). Returns the problems and the positions of the migration commits (their
/// deletions and settings change are theirs, judged here). Reads the history index's
/// paths, and one tree, of the commit before a migration, only in a migrated archive.
///
/// # Errors
/// The archive's errors.
pub(crate) fn layout_problems(
    archive: &Archive,
    index: &HistoryIndex,
    games: &[GamePath],
) -> Result<(Vec<VerifyProblem>, Vec<usize>), Failure> {
    let found = migrations(archive, index)?;
    let mut problems = Vec::new();
    let problem = |c: &crate::archive::IndexedCommit, f: Finding| VerifyProblem {
        game: f.subject,
        commit: c.commit.short(),
        author: c.author_name.to_string(),
        problem: f.problem.to_string(),
    };
    for (position, findings) in &found {
        let c = index.commit_at(*position);
        problems.extend(findings.iter().cloned().map(|f| problem(&c, f)));
    }
    // The layout of the root commit's settings, until the first migration.
    let root_layout = match index.versions(CONFIG_PATH).first().and_then(|v| v.blob) {
        Some(b) => archive
            .read_blob_text(b, CONFIG_PATH)
            .ok()
            .and_then(|t| ArchiveConfig::from_yaml(&t).ok())
            .map_or(Layout::Flat, |c| c.layout),
        None => Layout::Flat,
    };
    let migrated = found.first().map(|(p, _)| *p);
    // Fan-out records that were there before the migration.
    let early: Vec<String> = match migrated.and_then(|m| index.commit_at(m).parent) {
        Some(parent) => archive
            .record_paths_at(parent)?
            .into_iter()
            .filter(|p| record_layout(p) == Some(Layout::FanOut))
            .collect(),
        None => Vec::new(),
    };
    let paths = index.paths();
    for path in paths.iter().map(String::as_str) {
        let Some(shape) = shape_layout(path) else { continue };
        let wrong = match (shape, migrated) {
            // A flat path written after the archive moved to the fan-out (its deletion by
            // the migration is the move).
            (Layout::Flat, Some(m)) => {
                index.last_version(path).filter(|v| v.position > m || (v.position == m && v.blob.is_some()))
            }
            (Layout::FanOut, Some(_)) if early.iter().any(|e| e == path) => {
                index.versions(path).first().copied()
            }
            (l, None) if l != root_layout => index.versions(path).iter().find(|v| v.blob.is_some()).copied(),
            _ => None,
        };
        let Some(v) = wrong else { continue };
        let archive_layout =
            if migrated.is_some_and(|m| v.position >= m) { Layout::FanOut } else { root_layout };
        if let Some(p) = judge_layout::layout_problem(path, archive_layout) {
            let c = index.commit_at(v.position);
            problems.push(problem(&c, Finding { subject: path.to_string(), problem: p }));
        }
    }
    // One game id at two paths (sorted by id: no path is made unless there is one).
    let mut ids: Vec<&GamePath> = games.iter().collect();
    ids.sort_unstable_by(|a, b| a.id().cmp(b.id()));
    if let (Some(at), true) = (archive.tip()?, ids.windows(2).any(|w| w[0].id() == w[1].id())) {
        let paths: Vec<String> = ids.iter().map(|g| g.path()).collect();
        for f in judge_layout::duplicate_ids(paths.iter().map(String::as_str)) {
            problems.push(VerifyProblem {
                game: f.subject,
                commit: at.short(),
                author: String::new(),
                problem: f.problem.to_string(),
            });
        }
    }
    Ok((problems, found.into_iter().map(|(p, _)| p).collect()))
}

/// What `ravenpost archive migrate-layout` did.
#[derive(Debug, Serialize)]
pub struct Migrated {
    /// The migration commit (short id).
    pub commit: String,
    /// The game files moved.
    pub games: usize,
    /// The army choice files moved.
    pub army_choices: usize,
}

/// `ravenpost archive migrate-layout`: moves every game and army choice file of a flat
/// archive to its fan-out path and sets `layout: fan-out` in `ravenpost.yaml`, in one
/// commit (the same blobs) by the caller's identity, under the write lock. The hook
/// accepts it from an admin when the archive names admins (as the archive's set-up).
///
/// # Errors
/// An archive already in the fan-out (a usage error), an archive without commits, the
/// archive's errors.
pub fn migrate_layout(archive: &Archive, session: &Session) -> Result<Migrated, Failure> {
    let config = archive.config()?;
    if config.layout == Layout::FanOut {
        return Err(Failure::Usage("the archive is in the fan-out layout already: nothing to move".into()));
    }
    let Some(tip) = archive.tip()? else {
        return Err(Failure::Usage("the archive has no commit yet: nothing to move".into()));
    };
    let text = archive.read_file_at(tip, CONFIG_PATH)?.unwrap_or_default();
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.starts_with("layout:")).collect();
    lines.push("layout: fan-out");
    let new_text = format!("{}\n", lines.join("\n"));
    let (mut games, mut army_choices) = (0, 0);
    let mut moves = Vec::new();
    for path in archive.record_paths_at(tip)? {
        let to = if let Some((Layout::Flat, id)) = parse_army_choice_path(&path) {
            army_choices += 1;
            crate::referee::layout::army_choice_path(Layout::FanOut, id)
        } else if let Some(g) = GamePath::parse(&path).filter(|g| g.layout() == Layout::Flat) {
            games += 1;
            g.with_layout(Layout::FanOut).path()
        } else {
            continue;
        };
        moves.push((path, to));
    }
    moves.sort();
    let me = archive.identity(session.identity())?;
    let message = format!(
        "Move to the fan-out layout: {games} games, {army_choices} army choices\n\nEach game file moves from games/<variant>/<id>.pgn to\ngames/<variant>/<x>/<y>/<id>.pgn (x, y: the first two hex digits of the SHA-256\nof the id), its army choice file beside it; ravenpost.yaml says layout: fan-out."
    );
    let names = CommitNames::by(&me, session.now());
    let commit = archive.commit_moves(&moves, (CONFIG_PATH, new_text.as_bytes()), tip, names, &message)?;
    Ok(Migrated { commit: commit.short(), games, army_choices })
}
