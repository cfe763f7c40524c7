//! The archive's game commands: every change a player makes (a new game, a move, a
//! resignation, a draw action, a timeout claim, leave, an army choice step) read from the
//! branch tip, decided by the [`crate::referee`] and the record rules, and committed on
//! that tip with a compare-and-swap; and the questions asked of an archive (`status`,
//! `log`, `verify`, what the pre-receive hook and `sync` accept; a tournament's
//! standings, the ratings, the games waiting for one player), answered from the
//! archive's history index.
//!
//! Each function here is what one `ravenpost` command runs; the command line only parses
//! its arguments and formats the answer.

mod armies;
mod checks;
mod conditional;
mod definitions;
mod exchange;
mod games;
mod session;
mod tournament;

pub use armies::{ArmyOutcome, army_commit, army_reveal};
pub use checks::{
    LogLine, ShallowBoundary, StatusLine, UncheckedGame, VerifyProblem, VerifyReport, choice_history,
    clock_of_game, history, status, verify,
};
pub use conditional::{
    Answer, AnswerOutcome, Prepared, SyncAnswered, TreeRefused, WatchRound, answer_prepared, conditional_add,
    conditional_clear, conditional_show, prepared_owners, sync_answering, sync_watch,
};
pub use exchange::{
    GITOLITE_HOOK_NAME, HOOK_EXE_ENV, HookTarget, PUSHER_VAR_ENV, PUSHER_VARIABLES, PusherUnnamed,
    SyncOutcome, SyncRefusal, SyncReport, SyncStep, check_range, check_range_pushed, hook_check,
    hook_explain, hook_script, hook_script_with, install_hook, install_hook_to, install_notify_hook,
    notify_hook_script, open_for_sync, pusher_from, sync,
};
pub use games::{
    ClubSetup, Made, NewGame, claim_timeout, draw, find, init, init_club, leave, new_game, open,
    open_or_make, per_user_dir, play, resign, step_committer,
};
pub use session::{Clock, Session};
pub use tournament::{
    Created, ELO_K, ELO_START, NewTournament, PlayerRating, RatedGame, Ratings, identity_name,
    list_tournaments, ratings, standings, to_move, tournament_new, verify_tournaments,
};

use crate::notation::san::SanError;
use crate::record::Refusal;
use crate::referee::ClockRefusal;

use super::ArchiveError;

/// Why a game command did nothing. Nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The archive could not be read or written.
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// The rules refused the change.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The clock refused a claim or leave.
    #[error(transparent)]
    Clock(#[from] ClockRefusal),
    /// The game changed while the command ran (another writer's commit won the
    /// compare-and-swap).
    #[error(
        "the game moved on: {id} changed while this command ran; nothing was written (look again with `ravenpost show {id}`)"
    )]
    MovedOn {
        /// The game id.
        id: String,
    },
    /// A step that must be signed, with no signing key to sign it.
    #[error(
        "{player}'s moves in {id} must be signed ({tag} tag): pass --signing-key ~/.ssh/id_ed25519 (or its .pub with the key in ssh-agent), or set `git config user.signingKey`; nothing was written"
    )]
    NoSigningKey {
        /// The player.
        player: String,
        /// The game id.
        id: String,
        /// The tag listing the player's key.
        tag: &'static str,
    },
    /// The game's armies are still being chosen in secret: it has no game file yet.
    #[error(
        "{id}: the armies are still being chosen in secret (see `ravenpost status`); the game file is made when both players have revealed (`ravenpost army reveal {id}`)"
    )]
    ChoosingArmies {
        /// The game id.
        id: String,
    },
    /// The command ran and declined (the sentence says why): a problem, not bad input.
    #[error("{0}")]
    Declined(String),
    /// `mail send` by a player whose step is not the game's last: the newest step is the
    /// opponent's (or the game ended by it), so there is nothing of the sender's to send,
    /// and the opponent's own message must never go back to them under its id.
    #[error("{id}: nothing of {sender}'s to send: the last step is {last_player}'s ({last_step}); {advice}")]
    NothingToSend {
        /// The game id.
        id: String,
        /// The player who would send.
        sender: String,
        /// The player whose step is the last.
        last_player: String,
        /// That step, e.g. `ply 12, 6... S3l6`.
        last_step: String,
        /// What the sender can do, e.g. play their move first.
        advice: String,
    },
    /// `move` given the game's last ply again (the same move with the same move number,
    /// as when the command is run twice): it is recorded already, nothing was written.
    #[error(
        "{id}: `{numbered}` is already recorded (ply {ply}, at {at}); nothing was written. {to_move} is to move"
    )]
    AlreadyRecorded {
        /// The game id.
        id: String,
        /// The move with its number, as ravenpost writes it (`1. 2e3`).
        numbered: String,
        /// Its ply.
        ply: usize,
        /// When it was played (its recorded time, else its commit's), RFC 3339.
        at: String,
        /// Who is to move now: `Scarlet (Bo)`.
        to_move: String,
    },
    /// `sync` refused: the remote's history was rewritten, has illegal commits, or moved
    /// in the same game; nothing was changed.
    #[error(transparent)]
    Sync(Box<SyncRefusal>),
    /// The game's pinned variant definition is missing or changed at the tip.
    #[error("{id}: {problem}")]
    Definition {
        /// The game id.
        id: String,
        /// What is wrong with the definition.
        problem: Box<crate::referee::Problem>,
    },
    /// A conditional tree refused at entry (`conditional add`).
    #[error(transparent)]
    Tree(Box<TreeRefused>),
    /// Bad input: an unknown game, a malformed name, id, key or address.
    #[error("{0}")]
    Usage(String),
}

impl From<SyncRefusal> for Error {
    fn from(r: SyncRefusal) -> Error {
        Error::Sync(Box::new(r))
    }
}

impl From<crate::referee::InvalidGamePath> for Error {
    fn from(e: crate::referee::InvalidGamePath) -> Error {
        Error::Archive(e.into())
    }
}

impl Error {
    /// Whether the change was committed all the same: only the working copy could not be
    /// brought up to date ([`ArchiveError::WorkingCopyUpdate`]).
    pub fn is_saved(&self) -> bool {
        matches!(self, Error::Archive(ArchiveError::WorkingCopyUpdate { .. }))
    }

    /// Whether the command was given bad input (exit code 2) rather than refused
    /// (exit code 1).
    pub fn is_usage(&self) -> bool {
        match self {
            Error::Usage(_) => true,
            // A move that cannot be read (not a square, an unknown piece code) is bad
            // input; a well-formed move the rules refuse is a refusal.
            Error::Refused(Refusal::Illegal(SanError::Syntax { .. } | SanError::UnknownCode { .. })) => true,
            Error::Archive(e) => !matches!(
                e,
                ArchiveError::Moved { .. }
                    | ArchiveError::Unchanged { .. }
                    | ArchiveError::Signing { .. }
                    | ArchiveError::MissingObject { .. }
            ),
            _ => false,
        }
    }
}
