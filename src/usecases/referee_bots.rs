//! The referee mailbox's computer players: the players `ravenpost.yaml` lists with
//! `plays-by: bot`. As their moves become due (after a member's step by mail, or a game
//! pushed with the computer to move), the referee (`ravenpost mail serve`) makes them in
//! the club's repository with the search of `ravenpost bot` ([`bot_pass`]), each checked
//! by the rules and committed as the computer player, and runs the repository's
//! post-receive hook, which mails the opponent the move as it mails any other.
//!
//! **Who acts.** Only the referee process makes a computer player's steps: no mail acts
//! for one (the mailbox refuses a mail from any address for that side, as it refuses a
//! stranger's), and the commits are made here, in the repository, not pushed (the
//! pre-receive hook refuses a pushed one).

use std::cell::Cell;

use serde::Serialize;

use super::analysis::Budget;
use super::bot::{BotPass, bot_pass};
use super::error::Error as Failure;
use super::session::Session;
use crate::archive::{Archive, CommitId, Identity};

/// How the referee plays its computer players.
#[derive(Debug)]
pub struct Computers {
    /// The search's budget for each move.
    pub budget: Budget,
    /// The tip of the last look: while it stands, no move can have become due.
    looked_at: Cell<Option<CommitId>>,
}

impl Computers {
    /// Computer players searching each move within `budget`.
    pub fn new(budget: Budget) -> Computers {
        Computers { budget, looked_at: Cell::new(None) }
    }

    /// Whether a computer player's move may have become due since the last look: the
    /// branch moved, and the club lists a computer player.
    pub fn may_be_due(&self, archive: &Archive) -> bool {
        let Ok(tip) = archive.tip() else { return false };
        tip != self.looked_at.get() && archive.config().is_ok_and(|c| !c.computers().is_empty())
    }
}

/// What one computer player did in a look.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComputerMoves {
    /// Its pass: the player, its moves (and draws), the games it left alone and why.
    #[serde(flatten)]
    pub pass: BotPass,
    /// What the post-receive hook said when it failed.
    pub hook: Option<String>,
}

/// Plays, for each computer player of the archive's settings, one pass over the games it
/// is to move in; its steps are committed as that player, under its `players:` address
/// (else `referee`, the referee's own), and told to the opponents by the repository's
/// post-receive hook. Nothing is looked at while the archive's tip is the one of the last
/// look. Only the computer players that moved, or left a game alone, are returned.
///
/// # Errors
/// The archive's errors.
pub fn computers_move(
    archive: &Archive,
    session: &Session,
    computers: &Computers,
    referee: &str,
) -> Result<Vec<ComputerMoves>, Failure> {
    let tip = archive.tip()?;
    if tip.is_some() && tip == computers.looked_at.get() {
        return Ok(Vec::new());
    }
    let config = archive.config()?;
    let mut out = Vec::new();
    for name in config.computers() {
        let email = config.player(&name).and_then(|p| p.email.clone()).unwrap_or_else(|| referee.to_string());
        let mut session = session.clone();
        session.identity = Some(Identity { name: name.clone(), email });
        let before = archive.tip()?;
        let pass = bot_pass(archive, &name, &[], computers.budget, &session)?;
        let hook = super::club::post_receive_failure(archive, before, archive.tip()?);
        if !pass.moves.is_empty() || !pass.skipped.is_empty() {
            out.push(ComputerMoves { pass, hook });
        }
    }
    computers.looked_at.set(archive.tip()?);
    Ok(out)
}
