//! A game's clock: the time each player has used, read from the record's times or, when
//! a ply records none, from the file's history.

use crate::archive::{Archive, GamePath, HistoryIndex};
use crate::record::game::Game;
use crate::record::result_of;
use crate::referee::clock::{self, Clock, PlyTimes, TimedVersion};

use super::error::Error as Failure;

/// The clock of the game `game` (the file at `path` at the tip) at `now`: from the move
/// times the file records and the game's creation time (from the history index), or from
/// the file's history when a ply records no time. `None` when no clock runs.
///
/// # Errors
/// The archive's errors.
pub fn clock_of_game(
    archive: &Archive,
    path: &GamePath,
    game: &Game,
    now: i64,
) -> Result<Option<Clock>, Failure> {
    clock_with_index(archive, &archive.index()?, path, game, now)
}

pub(crate) fn clock_with_index(
    archive: &Archive,
    index: &HistoryIndex,
    path: &GamePath,
    game: &Game,
    now: i64,
) -> Result<Option<Clock>, Failure> {
    if result_of(game) != "*" || game.text.tag("TimeControl").is_none() {
        return Ok(None);
    }
    let times = ply_times(archive, index, path, game)?;
    Ok(times.and_then(|t| clock::clock(game, &t, now)))
}

/// The time each side has used on its moves in the game `game` (the file at `path` at
/// the tip; index [`crate::engine::Side::index`]), as its clock counts it: `None` when
/// the game has no time control or its plies' times cannot be told.
///
/// # Errors
/// The archive's errors.
pub fn time_used_in_game(
    archive: &Archive,
    path: &GamePath,
    game: &Game,
) -> Result<Option<[u64; 2]>, Failure> {
    if game.text.tag("TimeControl").is_none_or(|t| matches!(t, "-" | "?")) {
        return Ok(None);
    }
    let times = ply_times(archive, &archive.index()?, path, game)?;
    Ok(times.and_then(|t| clock::time_used(game, &t)))
}

/// The time of the game's creation and of each ply: from the move times the file
/// records, else from the file's history.
fn ply_times(
    archive: &Archive,
    index: &HistoryIndex,
    path: &GamePath,
    game: &Game,
) -> Result<Option<PlyTimes>, Failure> {
    let file = path.path();
    let versions = super::layout::game_versions(index, path);
    let Some(first) = versions.first() else { return Ok(None) };
    let created = index.commit_at(first.position).time.unix_seconds();
    let times = match PlyTimes::from_record(game, created) {
        Some(t) => Some(t),
        None => {
            let history = super::layout::followed_history(archive, &file, None)?;
            let versions: Vec<TimedVersion<'_>> = history
                .iter()
                .map(|v| TimedVersion { time: v.time.unix_seconds(), text: v.contents.as_deref() })
                .collect();
            PlyTimes::from_history(&versions, game)
        }
    };
    Ok(times)
}
