//! `ravenpost leave`: book leave.

use std::io::Write;

use crate::cli::args::day_start;
use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Book leave: the player's clock stops for these days.
#[derive(Debug, clap::Args)]
pub(crate) struct LeaveArgs {
    /// The game id.
    game: String,
    /// Number of days.
    #[arg(long)]
    days: u32,
    /// First day (YYYY-MM-DD, UTC; default: now).
    #[arg(long, value_name = "DATE", value_parser = day_start)]
    from: Option<i64>,
    /// Whose leave (a player of the game).
    #[arg(long = "as", value_name = "NAME")]
    who: String,
}

/// `ravenpost leave GAME --days N --as NAME`.
pub(crate) fn run(s: &Session, a: LeaveArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let start = a.from.unwrap_or_else(|| s.now().unix_seconds());
    let applied = ops::leave(&archive, &a.game, &a.who, start, a.days, s)?;
    writeln!(out, "{}", applied.said).map_err(io)
}
