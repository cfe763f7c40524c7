//! The correspondence clock (the project's rules, README "Time control"): a player's
//! clock runs from the opponent's move (or the game's creation) to their own, except
//! during their booked leave; unused time carries over; the time control says how much
//! each move or each block of moves may take.
//!
//! Each ply's time is the time recorded after it in the game file (`{ravenpost: at …}`,
//! so a mailed game carries its clock), else the time of the commit that added it.
//! [`PlyTimes`] holds those times; it can be read from the game file alone when every
//! ply carries its time ([`PlyTimes::from_record`]), else from the file's history
//! ([`PlyTimes::from_history`]).

use serde::{Deserialize, Serialize};

use crate::engine::Side;
use crate::notation::pgn::GameReader;
use crate::notation::time_control;
use crate::record::game::Game;
use crate::record::{self, result_of};

use super::problem::{Problem, Span, Time, rfc3339, time_from_unix};

/// The clock of the player to move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    /// The player to move.
    pub player: String,
    /// When they must have moved.
    pub deadline: Time,
    /// Seconds left (negative when over time).
    pub seconds_left: i64,
    /// Whether the deadline has passed.
    pub overdue: bool,
}

/// One version of a game file, as the clock reads history: when it was committed and
/// its text (`None`: deleted).
#[derive(Debug, Clone, Copy)]
pub struct TimedVersion<'a> {
    /// The commit's time, Unix seconds.
    pub time: i64,
    /// The file's text.
    pub text: Option<&'a str>,
}

/// The time of the game's creation and of each ply (Unix seconds): index 0 the
/// creation, index k the k-th ply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlyTimes(pub Vec<i64>);

impl PlyTimes {
    /// From the game file alone, when every ply records its time: `created` is the
    /// game's creation time. `None` when a ply has no recorded time.
    pub fn from_record(game: &Game, created: i64) -> Option<PlyTimes> {
        let recorded = record::move_times(&game.text).ok()?;
        let mut times = Vec::with_capacity(recorded.len() + 1);
        times.push(created);
        for t in recorded {
            times.push(t?);
        }
        Some(PlyTimes(times))
    }

    /// From the file's versions, oldest first (the commit where the main line first
    /// reached each length), with the times recorded in `game` (the last version)
    /// winning over commit times (a game imported from a message is committed when it
    /// arrives, not when the move was made). `None` when the history does not account for
    /// every ply of `game`.
    pub fn from_history(versions: &[TimedVersion<'_>], game: &Game) -> Option<PlyTimes> {
        let mut times: Vec<i64> = Vec::new();
        for v in versions {
            let Some(c) = v.text else { continue };
            // Parsing is enough here; `verify` is where each step's legality is checked.
            let Some(Ok(text)) = GameReader::new(c.as_bytes()).next() else { continue };
            if times.is_empty() {
                times.push(v.time);
            }
            while times.len() <= text.moves.len() {
                times.push(v.time);
            }
        }
        if times.len() != game.moves.len() + 1 {
            return None;
        }
        if let Ok(recorded) = record::move_times(&game.text) {
            for (k, t) in recorded.into_iter().enumerate() {
                if let Some(t) = t {
                    times[k + 1] = t;
                }
            }
        }
        Some(PlyTimes(times))
    }
}

/// Seconds of `[a, b)` that fall within `[c, d)`.
fn overlap(a: i64, b: i64, c: i64, d: i64) -> u64 {
    (b.min(d) - a.max(c)).max(0) as u64
}

/// The clock at `now` (Unix seconds) of `game` with the ply times `times`: `None` when
/// the game is over, has no (readable) `TimeControl`, or `times` do not fit it.
pub fn clock(game: &Game, times: &PlyTimes, now: i64) -> Option<Clock> {
    if result_of(game) != "*" {
        return None;
    }
    let tc = game.text.tag("TimeControl").and_then(|t| time_control::parse(t).ok())?;
    let times = &times.0;
    if times.len() != game.moves.len() + 1 {
        return None;
    }
    let side = game.position().side_to_move();
    let name = record::player(game, side);
    let leaves = merged_leave(game, &name);
    let paused = |a: i64, b: i64| -> u64 { leaves.iter().map(|&(c, d)| overlap(a, b, c, d)).sum() };
    let plies = times.len() - 1;
    let first = game.start.side_to_move();
    let mut used: u64 = 0;
    let mut made: u32 = 0;
    for k in 1..=plies {
        if mover_of(first, k) == side {
            let (a, b) = (times[k - 1], times[k]);
            used += ((b - a).max(0) as u64).saturating_sub(paused(a, b));
            made += 1;
        }
    }
    let turn_start = times[plies];
    // Leave stops the clock only when it starts before the deadline it would move; each
    // stretch of leave that does moves the deadline by the part of it after the turn began.
    let mut deadline = time_control::deadline(&tc, turn_start, used, made + 1, 0)?;
    for &(a, b) in &leaves {
        if b > turn_start && a < deadline {
            deadline = deadline.saturating_add(b - a.max(turn_start));
        }
    }
    Some(Clock {
        player: name,
        deadline: time_from_unix(deadline),
        seconds_left: deadline - now,
        overdue: now > deadline,
    })
}

/// `player`'s booked leave in `game` as stretches of time (start, end), sorted and with
/// overlapping bookings merged: a day booked twice stops the clock once.
/// The time each side has used on its moves so far (seconds; index 0 the first side,
/// [`Side::index`]), its booked leave left out, as [`clock`] counts the side to move's.
/// `None` when `times` does not have a time for each ply.
pub fn time_used(game: &Game, times: &PlyTimes) -> Option<[u64; 2]> {
    let times = &times.0;
    if times.len() != game.moves.len() + 1 {
        return None;
    }
    let first = game.start.side_to_move();
    let mut used = [0u64; 2];
    for side in Side::ALL {
        let leaves = merged_leave(game, &record::player(game, side));
        let paused = |a: i64, b: i64| -> u64 { leaves.iter().map(|&(c, d)| overlap(a, b, c, d)).sum() };
        for k in 1..times.len() {
            if mover_of(first, k) == side {
                let (a, b) = (times[k - 1], times[k]);
                used[side.index()] += ((b - a).max(0) as u64).saturating_sub(paused(a, b));
            }
        }
    }
    Some(used)
}

fn merged_leave(game: &Game, player: &str) -> Vec<(i64, i64)> {
    let mut leaves: Vec<(i64, i64)> =
        record::leaves(game).into_iter().filter(|(p, _, _)| p == player).map(|(_, a, b)| (a, b)).collect();
    leaves.sort_unstable();
    let mut merged: Vec<(i64, i64)> = Vec::with_capacity(leaves.len());
    for (a, b) in leaves {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

/// Whether the game `game` is a time-forfeit claim (its `Termination` tag).
pub fn is_timeout_claim(game: &Game) -> bool {
    game.text.tag("Termination").map(str::to_ascii_lowercase).as_deref() == Some("time forfeit")
}

/// What is wrong with a win on time claimed at `at` (Unix seconds) in the game whose
/// state before the claim is `before` with ply times `times`: nothing when the player to
/// move was over time.
pub fn timeout_claim_problem(before: Option<(&Game, PlyTimes)>, at: i64) -> Option<Problem> {
    match before.and_then(|(g, t)| clock(g, &t, at)) {
        Some(c) if c.overdue => None,
        Some(c) => Some(Problem::ClaimBeforeDeadline {
            at: time_from_unix(at),
            player: c.player,
            deadline: c.deadline,
            left: Span(c.seconds_left),
        }),
        None => Some(Problem::ClaimWithoutClock),
    }
}

/// What is wrong with a commit dated `commit` (Unix seconds) that arrives at `arrived`
/// (the hook's or `sync`'s clock): dated later than its arrival, beyond
/// [`record::MAX_CLOCK_SKEW`] ([`Problem::DatedInFuture`]).
pub fn arrival_problem(commit: i64, arrived: i64) -> Option<Problem> {
    (commit > arrived + record::MAX_CLOCK_SKEW)
        .then(|| Problem::DatedInFuture { commit: time_from_unix(commit), arrived: time_from_unix(arrived) })
}

/// The time a step that arrives at `arrived` counts at: its commit's time, but never
/// later than its arrival (a win on time is judged when it is claimed, not when the
/// claimant dated it).
pub fn arrival_time(commit: i64, arrived: i64) -> i64 {
    commit.min(arrived)
}

/// Why a command on the clock is refused (nothing is written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClockRefusal {
    /// A timeout claim by someone other than the waiting player.
    #[error("timeout claim refused: only {waiting}, who is waiting for a move, can claim a win on time")]
    NotWaiting {
        /// The waiting player.
        waiting: String,
    },
    /// No clock runs in the game.
    #[error("{id}: no clock runs (no TimeControl, or the game is over)")]
    NoClock {
        /// The game id.
        id: String,
    },
    /// The player to move still has time.
    #[error("timeout claim refused: {player} has until {} ({left} left)", rfc3339(.deadline))]
    NotOverdue {
        /// The player to move.
        player: String,
        /// Their deadline.
        deadline: Time,
        /// How long they have left.
        left: Span,
    },
    /// Leave starting before today.
    #[error(
        "leave refused: it would start on {}, before today ({}): leave is booked in advance",
        rfc3339(.from),
        rfc3339(.today)
    )]
    LeaveInThePast {
        /// The leave's first day.
        from: Time,
        /// Today (00:00 UTC).
        today: Time,
    },
}

/// Checks a timeout claim by `claimant` (if named) at `now` against `clock`; the reason
/// recorded with the win.
///
/// # Errors
/// The [`ClockRefusal`].
pub fn check_timeout_claim(
    id: &str,
    game: &Game,
    claimant: Option<&str>,
    clock: Option<&Clock>,
) -> Result<String, ClockRefusal> {
    let waiting = record::player(game, game.position().side_to_move().opponent());
    if let Some(w) = claimant
        && w != waiting
    {
        return Err(ClockRefusal::NotWaiting { waiting });
    }
    let Some(c) = clock else { return Err(ClockRefusal::NoClock { id: id.to_string() }) };
    if !c.overdue {
        return Err(ClockRefusal::NotOverdue {
            player: c.player.clone(),
            deadline: c.deadline,
            left: Span(c.seconds_left),
        });
    }
    Ok(format!("{} did not move by {}", c.player, rfc3339(&c.deadline)))
}

/// Checks that leave booked at `now` starting `from` (Unix seconds) is booked in advance:
/// it may not start before today (UTC).
///
/// # Errors
/// [`ClockRefusal::LeaveInThePast`].
pub fn check_leave_start(from: i64, now: i64) -> Result<(), ClockRefusal> {
    let today = now.div_euclid(86_400) * 86_400;
    if from < today {
        return Err(ClockRefusal::LeaveInThePast {
            from: time_from_unix(from),
            today: time_from_unix(today),
        });
    }
    Ok(())
}

/// The side that made ply `ply` (1-based) of a game whose first mover is `first`: the
/// first mover made the odd plies.
pub fn mover_of(first: Side, ply: usize) -> Side {
    if ply % 2 == 1 { first } else { first.opponent() }
}
