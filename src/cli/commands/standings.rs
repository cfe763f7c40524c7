//! `ravenpost standings`: a tournament's crosstable.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::referee::knockout::bracket_text;
use crate::referee::swiss::table_text;
use crate::referee::tournament::crosstable_text;
use crate::usecases::{self as ops, Session};

/// A tournament's crosstable: each game's result, points, games left,
/// Sonneborn-Berger and place (as ICCF prints it); a knockout's bracket: each match's
/// score, who advanced and why; a Swiss's table: each player's rounds, points and
/// tie-breaks (Buchholz Cut-1, Buchholz, Sonneborn-Berger, direct encounter) by place.
#[derive(Debug, clap::Args)]
pub(crate) struct StandingsArgs {
    /// The tournament (default: every tournament in the archive).
    tournament: Option<String>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `ravenpost standings`.
pub(crate) fn run(s: &Session, args: StandingsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(s, false)?;
    let all = ops::standings(&a, args.tournament.as_deref(), s)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&all).expect("json")).map_err(io)?;
        return Ok(());
    }
    if all.is_empty() {
        writeln!(out, "No tournaments in {} (make one with `ravenpost tournament new`)", a.dir().display())
            .map_err(io)?;
    }
    for (k, s) in all.iter().enumerate() {
        if k > 0 {
            writeln!(out).map_err(io)?;
        }
        match (&s.knockout, &s.swiss) {
            (Some(b), _) => write!(out, "{}", bracket_text(&s.tournament, &s.variant, b)).map_err(io)?,
            (None, Some(t)) => write!(out, "{}", table_text(&s.tournament, &s.variant, t)).map_err(io)?,
            (None, None) => write!(out, "{}", crosstable_text(s)).map_err(io)?,
        }
    }
    Ok(())
}
