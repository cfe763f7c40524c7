//! `sync` with conditional moves: fetch, play the prepared replies that are due, push;
//! and `sync --watch`, which does so every interval until a signal.

use serde::Serialize;

use crate::archive::Archive;

use super::conditional::{Answer, answer_prepared};
use super::error::Error as Failure;
use super::exchange::{SyncReport, sync};
use super::session::Session;

/// What `sync` did, with the prepared replies it played.
#[derive(Debug, Clone, Serialize)]
pub struct SyncAnswered {
    /// The sync that fetched the opponent's moves.
    pub sync: SyncReport,
    /// What became of the clone's trees.
    pub prepared: Vec<Answer>,
    /// The sync that pushed the replies, when any was played.
    pub pushed: Option<SyncReport>,
}

/// `ravenpost sync` with conditional moves: fetches, checks, fast-forwards and pushes
/// ([`sync`]), plays the prepared replies that are now due ([`answer_prepared`]), and
/// pushes them.
///
/// # Errors
/// As [`sync`] and [`answer_prepared`].
pub fn sync_answering(archive: &Archive, remote: &str, session: &Session) -> Result<SyncAnswered, Failure> {
    let first = sync(archive, remote, session)?;
    let prepared = answer_prepared(archive, session)?;
    let pushed =
        if prepared.iter().any(Answer::played) { Some(sync(archive, remote, session)?) } else { None };
    Ok(SyncAnswered { sync: first, prepared, pushed })
}

/// One round of `sync --watch`: when it ran, and what it did or why it failed.
#[derive(Debug)]
pub struct WatchRound {
    /// The round (from 1).
    pub round: usize,
    /// When it started.
    pub at: crate::archive::Timestamp,
    /// What it did.
    pub outcome: Result<SyncAnswered, Failure>,
}

/// `ravenpost sync --watch`: [`sync_answering`] every `interval` until Ctrl-C (SIGINT,
/// SIGTERM or SIGHUP, held throughout, so that a signal never cuts a round short: the
/// round ends, then the loop), each round reported to `report` as it ends; a round that
/// fails (the remote cannot be reached, say) is reported and the next one runs all the
/// same. `rounds` limits the number of rounds (none: until a signal). The number of
/// rounds run.
///
/// # Errors
/// None of its own: failures are rounds' outcomes.
pub fn sync_watch(
    archive: &Archive,
    remote: &str,
    session: &Session,
    interval: std::time::Duration,
    rounds: Option<usize>,
    report: &mut dyn FnMut(WatchRound),
) -> Result<usize, Failure> {
    let held = crate::archive::HoldSignals::new();
    let mut round = 0;
    let mut stop = false;
    while !stop && rounds.is_none_or(|n| round < n) {
        round += 1;
        let at = session.now();
        let outcome = sync_answering(archive, remote, session);
        report(WatchRound { round, at, outcome });
        stop = held.take_arrived();
        let until = std::time::Instant::now() + interval;
        while !stop && rounds.is_none_or(|n| round < n) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(100).min(interval));
            stop = held.take_arrived();
        }
    }
    Ok(round)
}
