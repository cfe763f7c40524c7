//! `ravenpost claim timeout`: win on time.

use std::io::Write;

use clap::Subcommand;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Claim a win because the player to move is over time (checked from the recorded
/// times of the moves and the game's TimeControl).
#[derive(Debug, clap::Args)]
pub(crate) struct ClaimArgs {
    /// What is claimed.
    #[command(subcommand)]
    what: ClaimWhat,
}

/// What `claim` can claim.
#[derive(Debug, Subcommand)]
enum ClaimWhat {
    /// The opponent has not moved by their deadline: the game is won on time.
    Timeout {
        /// The game id.
        game: String,
        /// Who claims (the player waiting for the move).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
    },
}

/// `ravenpost claim timeout GAME`.
pub(crate) fn run(s: &Session, a: ClaimArgs, out: &mut impl Write) -> Result<(), Failure> {
    let ClaimWhat::Timeout { game, who } = a.what;
    let archive = ops::open(s, false)?;
    let applied = ops::claim_timeout(&archive, &game, who.as_deref(), s)?;
    writeln!(out, "{}", applied.said).map_err(io)
}
