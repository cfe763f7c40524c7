//! `ravenpost resign`: resign a game.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Resign a game.
#[derive(Debug, clap::Args)]
pub(crate) struct ResignArgs {
    /// The game id.
    game: String,
    /// Who resigns, at any time (default: you, if your identity's name or email is a
    /// player's, else the player to move).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
}

/// `ravenpost resign GAME`.
pub(crate) fn run(s: &Session, a: ResignArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let applied = ops::resign(&archive, &a.game, a.who.as_deref(), s)?;
    writeln!(out, "{}", applied.said).map_err(io)?;
    super::conditional::answer(s, &archive, out)
}
