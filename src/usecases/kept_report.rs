//! The whole archive's `verify` report, kept in the verdict cache between runs so that a
//! run after a few new commits reads and writes only what those commits changed.
//!
//! It is kept as rows of one namespace ([`KeptReport::NAMESPACE`]), all under the zero commit id: a
//! head row (the tip it describes, how many games there are, the deletions and the
//! problems of files that are no record) and one row for each game or army choice file
//! **with** problems. A clean archive of 30,000 games is one row; a new move rewrites the
//! head and, when the game it changed has or had problems, that game's row.

use serde::{Deserialize, Serialize};

use crate::archive::{CommitId, GamePath, VerdictCache};

use super::report::{VerifyProblem, VerifyReport};

/// The head row's path.
const HEAD: &str = "archive";

/// The prefix of an army choice's row (a game's row is its path, `games/…`).
const CHOICE: &str = "armies:";

/// The report's head: what is not a file's own problems.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Head {
    /// The commit it describes.
    pub tip: String,
    /// How many game files there are at the tip.
    pub games: usize,
    /// Deleted records, in history order.
    pub deletions: Vec<VerifyProblem>,
    /// Paths not allowed, definitions changed, tournaments, layout: what only other files
    /// change.
    pub rest: Vec<VerifyProblem>,
}

/// Which file a row is about.
pub(super) enum Row<'a> {
    /// A game file, by path.
    Game(&'a str),
    /// An army choice file, by game id.
    Choice(&'a str),
}

/// The kept report: its rows in the verdict cache, read one question at a time.
pub(super) struct KeptReport {
    cache: VerdictCache,
}

fn key() -> CommitId {
    "0000000000000000000000000000000000000000".parse().expect("a zero id")
}

fn row_path(row: &Row<'_>) -> String {
    match row {
        Row::Game(path) => (*path).to_string(),
        Row::Choice(id) => format!("{CHOICE}{id}"),
    }
}

impl KeptReport {
    /// The report kept in `cache` (made by [`crate::archive::Archive::verdict_cache`] with
    /// [`KeptReport::NAMESPACE`]).
    pub fn new(cache: VerdictCache) -> KeptReport {
        KeptReport { cache }
    }

    /// The namespace to open the verdict cache with (the referee's version is in it: a
    /// new release checks the archive again).
    pub const NAMESPACE: &'static str = concat!("referee-", env!("CARGO_PKG_VERSION"), "-3-archive");

    /// The head, when a report is kept (and reads).
    pub fn head(&self) -> Option<Head> {
        self.cache.get(key(), HEAD).and_then(|s| serde_json::from_str(&s).ok())
    }

    /// Sets one file's problems (its row removed when there are none).
    pub fn set(&mut self, row: &Row<'_>, problems: &[VerifyProblem]) {
        let path = row_path(row);
        if problems.is_empty() {
            self.cache.remove(key(), &path);
        } else {
            self.cache.put(key(), &path, serde_json::to_string(problems).expect("problems serialise"));
        }
    }

    /// Forgets every row (before a report made from scratch is written).
    pub fn clear(&mut self) {
        for (path, _) in self.cache.at_commit(key()) {
            self.cache.remove(key(), &path);
        }
    }

    /// Sets the head and writes what was set, in one transaction; a cache that cannot be
    /// written only costs the next run time.
    pub fn save(&mut self, head: &Head) {
        self.cache.put(key(), HEAD, serde_json::to_string(head).expect("a head serialises"));
        let _ = self.cache.save();
    }

    /// The report as kept (with what was set since), in the order of a full check: games
    /// by path, army choices by id, deletions, the rest. `None` when there is no head.
    pub fn report(&self) -> Option<VerifyReport> {
        let head = self.head()?;
        let mut games = Vec::new();
        let mut choices = Vec::new();
        for (path, value) in self.cache.at_commit(key()) {
            let Ok(problems) = serde_json::from_str::<Vec<VerifyProblem>>(&value) else { continue };
            if let Some(id) = path.strip_prefix(CHOICE) {
                choices.push((id.to_string(), problems));
            } else if let Some(g) = GamePath::parse(&path) {
                games.push((g, problems));
            }
        }
        games.sort_by(|a, b| a.0.cmp(&b.0));
        choices.sort_by(|a, b| a.0.cmp(&b.0));
        let problems = (games.into_iter().flat_map(|(_, p)| p))
            .chain(choices.into_iter().flat_map(|(_, p)| p))
            .chain(head.deletions)
            .chain(head.rest)
            .collect();
        Some(VerifyReport { games: head.games, problems, shallow: None })
    }
}
