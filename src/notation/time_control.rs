//! The `TimeControl` tag (`notation-spec/movetext.md` §2): PGN's form with day and hour
//! units for correspondence play.
//!
//! ```text
//! time-control = "?" | "-" | period { ":" period }
//! period       = [ moves "/" ] span [ "+" span ] | "*" span
//! span         = number [ "d" | "h" ]            (* no unit: seconds *)
//! ```
//!
//! Reading accepts any unit; writing gives each span in days if it is a whole number of
//! days, else in hours if a whole number of hours, else in seconds, so `1/259200` (a
//! site's seconds) is written `1/3d`.

use nom::branch::alt;
use nom::character::complete::{char, digit1, one_of};
use nom::combinator::{all_consuming, map, map_res, opt, value};
use nom::multi::separated_list1;
use nom::sequence::{pair, preceded, terminated};
use nom::{IResult, Parser};

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Period {
    /// `moves` moves (or the whole game, if `None`) in `seconds`, plus `increment`
    /// seconds after each move.
    Moves {
        /// Moves in the period; `None` for the rest of the game.
        moves: Option<u32>,
        /// The time for them, in seconds.
        seconds: u64,
        /// Added after each move, in seconds.
        increment: Option<u64>,
    },
    /// `*span`: this much time for each move (sandclock).
    PerMove {
        /// Seconds for each move.
        seconds: u64,
    },
}

/// A time control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// `?`: unknown.
    Unknown,
    /// `-`: none.
    None,
    /// The periods, in order (the last repeats).
    Periods(Vec<Period>),
}

/// `span = number [ "d" | "h" ]`, in seconds.
fn span(input: &str) -> IResult<&str, u64> {
    map_res(pair(digit1, opt(one_of("dh"))), |(n, unit): (&str, Option<char>)| -> Result<u64, String> {
        let n: u64 = n.parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
        let factor = match unit {
            Some('d') => 86_400,
            Some('h') => 3_600,
            _ => 1,
        };
        n.checked_mul(factor).ok_or_else(|| "time too long".to_string())
    })
    .parse(input)
}

/// `period = [ moves "/" ] span [ "+" span ] | "*" span`
fn period(input: &str) -> IResult<&str, Period> {
    alt((
        map(preceded(char('*'), span), |seconds| Period::PerMove { seconds }),
        map(
            (
                opt(terminated(map_res(digit1, str::parse::<u32>), char('/'))),
                span,
                opt(preceded(char('+'), span)),
            ),
            |(moves, seconds, increment)| Period::Moves { moves, seconds, increment },
        ),
    ))
    .parse(input)
}

/// `time-control = "?" | "-" | period { ":" period }`
fn time_control(input: &str) -> IResult<&str, TimeControl> {
    alt((
        value(TimeControl::Unknown, char('?')),
        value(TimeControl::None, char('-')),
        map(separated_list1(char(':'), period), TimeControl::Periods),
    ))
    .parse(input)
}

/// Reads a `TimeControl` value.
///
/// # Errors
/// A message saying what the grammar expects, when `text` does not follow it.
pub fn parse(text: &str) -> Result<TimeControl, String> {
    all_consuming(time_control).parse(text.trim()).map(|(_, t)| t).map_err(|_| {
        format!(
            "TimeControl `{text}`: expected e.g. `1/3d` (3 days a move), `10/30d`, `30d+1d`, `600+5`, `-` or `?`"
        )
    })
}

fn write_span(seconds: u64) -> String {
    if seconds > 0 && seconds.is_multiple_of(86_400) {
        format!("{}d", seconds / 86_400)
    } else if seconds > 0 && seconds.is_multiple_of(3_600) {
        format!("{}h", seconds / 3_600)
    } else {
        seconds.to_string()
    }
}

/// Writes a time control in canonical form.
pub fn write(tc: &TimeControl) -> String {
    match tc {
        TimeControl::Unknown => "?".into(),
        TimeControl::None => "-".into(),
        TimeControl::Periods(ps) => ps
            .iter()
            .map(|p| match *p {
                Period::PerMove { seconds } => format!("*{}", write_span(seconds)),
                Period::Moves { moves, seconds, increment } => {
                    let mut s = moves.map(|m| format!("{m}/")).unwrap_or_default();
                    s.push_str(&write_span(seconds));
                    if let Some(i) = increment {
                        s.push('+');
                        s.push_str(&write_span(i));
                    }
                    s
                }
            })
            .collect::<Vec<_>>()
            .join(":"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn correspondence_forms_read_and_write_canonically() {
        for (input, canonical) in [
            ("1/3d", "1/3d"),
            ("1/259200", "1/3d"),
            ("10/30d", "10/30d"),
            ("30d+1d", "30d+1d"),
            ("10/30d:1/3d", "10/30d:1/3d"),
            ("600+5", "600+5"),
            ("1/72h", "1/3d"),
            ("1/36h", "1/36h"),
            ("*86400", "*1d"),
            ("-", "-"),
            ("?", "?"),
        ] {
            let tc = parse(input).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(write(&tc), canonical, "{input}");
            assert_eq!(parse(canonical).unwrap(), tc);
        }
    }

    #[test]
    fn garbage_is_refused() {
        for bad in ["", "garbage", "1/", "/3d", "3x", "1/3d+", "1/3d::1", "99999999999999999999d", "3dd"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}

/// Seconds a player may have used in all, by the time they complete their move number
/// `m` (1-based), under `periods` (the last period repeats). `None` when the time control
/// sets no cumulative limit (`PerMove` periods limit each move on their own).
pub fn allowance(periods: &[Period], m: u32) -> Option<u64> {
    let mut total: u64 = 0;
    let mut covered: u32 = 0;
    let mut increment: u64 = 0;
    for (i, p) in periods.iter().enumerate() {
        if covered >= m {
            break;
        }
        let Period::Moves { moves, seconds, increment: inc } = *p else { return None };
        increment = inc.unwrap_or(0);
        // The last period repeats: as many times as the moves still to cover need, counted
        // at once (a loop over the repeats would run m / moves times).
        let times = match moves {
            Some(n) if n > 0 && i + 1 == periods.len() => (m - covered).div_ceil(n),
            _ => 1,
        };
        total = total.saturating_add(seconds.saturating_mul(u64::from(times)));
        covered = match moves {
            Some(n) if n > 0 => covered.saturating_add(n.saturating_mul(times)),
            _ => u32::MAX,
        };
    }
    if covered < m {
        return None;
    }
    // Increments are earned by the moves already made (m - 1 of them).
    Some(total.saturating_add(increment.saturating_mul(u64::from(m.saturating_sub(1)))))
}

/// When the player to move must have moved, in Unix seconds.
///
/// `turn_start` is when their clock started (the opponent's last move, or the start of
/// the game); `used` the seconds they used on their earlier moves (leave excluded);
/// `next_move` the number of the move they are to make (1-based); `paused` the seconds
/// of booked leave in the current turn. `None` without a deadline (`-`, `?`).
pub fn deadline(tc: &TimeControl, turn_start: i64, used: u64, next_move: u32, paused: u64) -> Option<i64> {
    let TimeControl::Periods(periods) = tc else { return None };
    let left = match periods.last() {
        Some(Period::PerMove { seconds }) if periods.len() == 1 => *seconds,
        _ => allowance(periods, next_move)?.saturating_sub(used),
    };
    Some(turn_start.saturating_add(left as i64).saturating_add(paused as i64))
}

#[cfg(test)]
mod clock_tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        parse(s).unwrap()
    }

    #[test]
    fn allowances_accumulate_by_period() {
        let TimeControl::Periods(p) = tc("10/30d") else { panic!() };
        assert_eq!(allowance(&p, 1), Some(30 * 86_400));
        assert_eq!(allowance(&p, 10), Some(30 * 86_400));
        assert_eq!(allowance(&p, 11), Some(60 * 86_400), "the period repeats");
        let TimeControl::Periods(p) = tc("1/3d") else { panic!() };
        assert_eq!(allowance(&p, 4), Some(12 * 86_400), "unused days carry over");
        let TimeControl::Periods(p) = tc("30d+1d") else { panic!() };
        assert_eq!(allowance(&p, 1), Some(30 * 86_400));
        assert_eq!(allowance(&p, 3), Some(32 * 86_400), "one day per move made");
        let TimeControl::Periods(p) = tc("10/30d:1/3d") else { panic!() };
        assert_eq!(allowance(&p, 11), Some(33 * 86_400));
    }

    /// Found by the `parse_time_control` fuzz target: the allowance at move `u32::MAX`
    /// repeated the last period once per move (four billion turns of a loop).
    #[test]
    fn allowance_at_the_largest_move_number_counts_the_repeats_at_once() {
        let TimeControl::Periods(p) = tc("1/3d") else { panic!() };
        assert_eq!(allowance(&p, u32::MAX), Some(u64::from(u32::MAX) * 3 * 86_400));
        let TimeControl::Periods(p) = tc("10/30d:7/1d+1h") else { panic!() };
        // 30 days for moves 1-10, then 1 day per 7 moves: moves 11..=4294967295 are
        // 4294967285 moves, exactly 613566755 periods of 7; 1 hour per move made.
        let want = 30 * 86_400 + 613_566_755 * 86_400 + (u64::from(u32::MAX) - 1) * 3_600;
        assert_eq!(allowance(&p, u32::MAX), Some(want));
        let TimeControl::Periods(p) = tc("10/30d:*1d") else { panic!() };
        assert_eq!(allowance(&p, u32::MAX), None, "a per-move period sets no cumulative limit");
        assert_eq!(allowance(&p, 10), Some(30 * 86_400));
    }

    #[test]
    fn deadlines() {
        let day = 86_400;
        // 3 days a move; 1 day used of the first 3; now on move 2: 5 days left.
        assert_eq!(deadline(&tc("1/3d"), 1000, day as u64, 2, 0), Some(1000 + 5 * day));
        // Sandclock: each move on its own.
        assert_eq!(deadline(&tc("*2d"), 1000, 99 * day as u64, 7, 0), Some(1000 + 2 * day));
        // Leave pauses the clock.
        assert_eq!(deadline(&tc("1/3d"), 0, 0, 1, 2 * day as u64), Some(5 * day));
        assert_eq!(deadline(&tc("-"), 0, 0, 1, 0), None);
    }
}
