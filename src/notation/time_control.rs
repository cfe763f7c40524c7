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
