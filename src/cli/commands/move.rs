//! `ravenpost move`: play a move.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::notation::san::SanError;
use crate::record::Refusal;
use crate::usecases::{self as ops, Session};

/// Play a move: checked by the rules, then appended in canonical form and committed
/// (author: the player).
// Its long help ends with the built-in variants' pieces (`variant::pieces_help`), added
// by `cli::help` only where help is shown: they are read from the variants' definitions,
// work a move need not do.
#[derive(Debug, clap::Args)]
pub(crate) struct MoveArgs {
    /// The game id.
    game: String,
    /// The move, e.g. 2e3, Rx3a7, R:2f4, W2e2-2e3.
    #[arg(value_name = "MOVE", allow_hyphen_values = true)]
    mv: String,
    /// Who plays it; refused unless that player is to move (default: you, if your
    /// identity's name or email is a player's, else the player to move).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
    /// The ply you mean to play (1 = the first move); refused if the game is elsewhere.
    #[arg(long, value_name = "N")]
    expect_ply: Option<usize>,
    /// Offer a draw with the move: the offer, then the move (two commits, as `draw
    /// offer` then `move`); the opponent answers it after your move.
    #[arg(long)]
    offer_draw: bool,
    /// A comment to your opponent, kept in the record after the move and shown in the
    /// mail and on the site.
    #[arg(long, value_name = "TEXT")]
    comment: Option<String>,
}

/// `ravenpost move GAME MOVE`.
pub(crate) fn run(s: &Session, a: MoveArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let with = ops::WithMove { offer_draw: a.offer_draw, comment: a.comment.clone() };
    let steps = match ops::play_with(&archive, &a.game, &a.mv, a.who.as_deref(), a.expect_ply, &with, s) {
        Err(ops::Error::Refused(Refusal::Illegal(SanError::Illegal { reason, legal }))) => {
            let mut text = illegal_move_text(&a.game, &a.mv, &reason, &legal);
            // The piece's destinations on the board, above where to see every move.
            if let Some(board) = crate::cli::failure::illegal_board(s, &a.game, &legal)
                && let Some(at) = text.rfind('\n')
            {
                text.insert_str(at + 1, &board);
            }
            return Err(Failure::refused(text));
        }
        other => other?,
    };
    for applied in steps {
        match applied.san {
            Some(_) => writeln!(out, "{} (ply {})", applied.said, applied.ply).map_err(io)?,
            None => writeln!(out, "{}", applied.said).map_err(io)?,
        }
        if let Some(r) = applied.result {
            writeln!(out, "Result: {r}").map_err(io)?;
        }
    }
    super::conditional::answer(s, &archive, out)
}

/// `move`'s refusal of an illegal move `token` in `game`: the reason, then the nearest
/// legal moves (`legal`, those of the piece the token names, else those to its square)
/// wrapped within 80 columns, then where to see every legal move.
fn illegal_move_text(game: &str, token: &str, reason: &str, legal: &[String]) -> String {
    let mut text = format!("illegal move `{token}`: {reason}");
    if !legal.is_empty() {
        let list = format!("legal: {}", legal.join(" "));
        let options = textwrap::Options::new(80).subsequent_indent("       ");
        for line in textwrap::wrap(&list, options) {
            text.push('\n');
            text.push_str(&line);
        }
    }
    text.push_str(&format!("\nevery legal move: `ravenpost moves {game}`"));
    text
}
