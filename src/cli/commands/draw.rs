//! `ravenpost draw offer|accept|decline|claim`.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::record::{DrawAction, Refusal};
use crate::usecases::{self as ops, Session};

/// Offer, accept, decline or claim a draw (a claim is checked: threefold repetition or
/// 100 plies without progress).
#[derive(Debug, clap::Args)]
pub(crate) struct DrawArgs {
    /// offer, accept, decline or claim.
    #[arg(value_enum)]
    action: DrawArg,
    /// The game id.
    game: String,
    /// Who acts (default: you, if your identity's name or email is a player's, else the
    /// player to move).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
}

/// The draw actions.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum DrawArg {
    /// Offer a draw with your next move.
    Offer,
    /// Accept the opponent's offer.
    Accept,
    /// Decline the opponent's offer.
    Decline,
    /// Claim a draw by threefold repetition or 100 plies without progress.
    Claim,
}

impl From<DrawArg> for DrawAction {
    fn from(a: DrawArg) -> DrawAction {
        match a {
            DrawArg::Offer => DrawAction::Offer,
            DrawArg::Accept => DrawAction::Accept,
            DrawArg::Decline => DrawAction::Decline,
            DrawArg::Claim => DrawAction::Claim,
        }
    }
}

/// `ravenpost draw ACTION GAME`.
pub(crate) fn run(s: &Session, a: DrawArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let game = &a.game;
    let offer = matches!(a.action, DrawArg::Offer);
    let applied = match ops::draw(&archive, game, a.who.as_deref(), a.action.into(), s) {
        // An offer after one's own move: the commands, in the order they go.
        Err(ops::Error::Refused(Refusal::OfferAfterMove { player, to_move })) => {
            return Err(Failure::refused(format!(
                "not {player}'s turn: {to_move} is to move\n\
                 A draw offer goes with a move: make it in your turn, before you move:\n    \
                 ravenpost draw offer {game}\n    ravenpost move {game} MOVE"
            )));
        }
        other => other?,
    };
    writeln!(out, "{}", applied.said).map_err(io)?;
    if offer {
        // The offer is recorded now; the opponent answers it after the offerer's move.
        writeln!(out, "It goes with your next move: ravenpost move {game} MOVE").map_err(io)?;
    }
    super::conditional::answer(s, &archive, out)
}
