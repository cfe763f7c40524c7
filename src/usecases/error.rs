//! Why a use case did nothing: [`Error`], and the refusals it carries (a `sync` refused,
//! a conditional tree refused), in a leaf file every use case can name.

use crate::notation::san::SanError;
use crate::record::Refusal;
use crate::referee::ClockRefusal;

use crate::archive::ArchiveError;
use crate::referee::conditional::TreeRefusal;

use serde::Serialize;

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

/// A tree the command line refused, with the movetext it was read from (for the
/// diagnostic that quotes the offending line).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{id}: conditional tree refused: {refusal}")]
pub struct TreeRefused {
    /// The game id.
    pub id: String,
    /// Why.
    pub refusal: TreeRefusal,
    /// The movetext as given.
    pub movetext: String,
}

/// One commit `sync` fetched, replayed, pushed or found vanished: the game (or file) it
/// changed and what it did there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncStep {
    /// The game id (for a file that is no game: its path).
    pub game: String,
    /// The short commit id.
    pub commit: String,
    /// What it did: `Ann's ply 3 Sa3b6`, `the new game`, a recorded action.
    pub what: String,
    /// The ply, for a move.
    pub ply: Option<usize>,
    /// The move (SAN), for a move.
    pub san: Option<String>,
    /// The player who moved, for a move.
    pub player: Option<String>,
}

impl std::fmt::Display for SyncStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({})", self.game, self.what, self.commit)
    }
}

/// Why `sync` changed nothing.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[serde(tag = "refused", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SyncRefusal {
    /// The remote's branch no longer contains the tip `sync` last accepted from it: its
    /// history was rewritten (a force push: a takeback, a changed move).
    #[error(
        "{remote}/{branch} no longer contains {accepted}, the commit this archive last accepted from it: its history was rewritten (a force push). {} commit{} vanished: {}.{} Nothing was changed here.\nIf the rewrite is not agreed, restore the remote from this clone (your copy of the\nvanished commits is kept):\n    git push --force {remote} {accepted}:{branch}\nTo accept the rewritten history instead:\n    git update-ref -d refs/ravenpost/accepted/{remote}/{branch}\n    git fetch {remote}\n    git reset --hard {remote}/{branch}\n    ravenpost sync",
        vanished.len(),
        if vanished.len() == 1 { "" } else { "s" },
        steps(vanished),
        if replaced_by.is_empty() { String::new() } else { format!(" In their place {remote} has: {}.", steps(replaced_by)) }
    )]
    Rewritten {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The accepted tip (short id).
        accepted: String,
        /// The remote's tip now (short id; `None`: the branch is gone).
        remote_tip: Option<String>,
        /// The accepted commits the remote no longer has, oldest first.
        vanished: Vec<SyncStep>,
        /// The remote's commits since the last commit both still share, oldest first.
        replaced_by: Vec<SyncStep>,
    },
    /// Neither side has the branch, but the remote has other branches (a server whose
    /// `HEAD` names another branch than the archive's: a clone of it checks out nothing).
    #[error(
        "{remote} has no branch `{branch}`, and this archive has no commits on it yet; {remote} has {}. Switch to the archive's branch and sync again: `git switch {}` (or `git checkout {}`), then `ravenpost sync`.",
        others.iter().map(|b| format!("`{b}`")).collect::<Vec<_>>().join(", "),
        others[0],
        others[0]
    )]
    NoSuchBranch {
        /// The remote.
        remote: String,
        /// This archive's branch (short name).
        branch: String,
        /// The remote's branches (short names; not empty).
        others: Vec<String>,
    },
    /// The remote has commits that are not legal steps.
    #[error(
        "{remote} has commits that are not legal steps; nothing was changed here:\n{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n")
    )]
    Illegal {
        /// The remote.
        remote: String,
        /// One line a problem: `<game> <commit>: <reason>`.
        problems: Vec<String>,
    },
    /// Both sides moved in the same game: the remote's move came first and stands.
    #[error(
        "{remote}/{branch} and this archive have both moved on since {}.\n{remote} has:\n{}\nThis archive has:\n{}\nIn {} the move on {remote} came first and stands; yours was made on the older position.\nNothing was changed and your commits stay here.\nTo continue from {remote}, keeping your commits on the branch ravenpost-unsent:\n    git branch ravenpost-unsent\n    git reset --hard {remote}/{branch}\nthen replay your moves with `ravenpost move` and `ravenpost sync`.",
        base.as_deref().unwrap_or("the start"),
        few_lines(theirs, clash),
        few_lines(ours, clash),
        clash.join(", ")
    )]
    Diverged {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The last commit both share (short id; `None`: they share none).
        base: Option<String>,
        /// The remote's commits since then.
        theirs: Vec<SyncStep>,
        /// This archive's commits since then.
        ours: Vec<SyncStep>,
        /// The games both changed.
        clash: Vec<String>,
    },
    /// This archive's step that crossed the remote's in the same game (a resignation, a
    /// draw action, booked leave), taken again on top of the remote's, no longer holds.
    #[error(
        "{remote}/{branch} and this archive have both moved on in {game}: {remote} has {}; here, {what} crossed it and no longer holds after it ({why}). Nothing was changed and your commits stay here.\nTo continue from {remote}, keeping your commits on the branch ravenpost-unsent:\n    git branch ravenpost-unsent\n    git reset --hard {remote}/{branch}",
        list(theirs)
    )]
    RetakeRefused {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The game.
        game: String,
        /// The remote's commits since the last commit both share.
        theirs: Vec<SyncStep>,
        /// This archive's step, e.g. `Ann (Gold) claims a draw (…)`.
        what: String,
        /// Why it no longer holds.
        why: String,
    },
    /// This archive's commits, replayed on top of the remote's, are not legal steps there.
    #[error(
        "this archive's commits, replayed on top of {remote}'s, are not legal steps there; nothing was changed:\n{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n")
    )]
    ReplayRefused {
        /// The remote.
        remote: String,
        /// One line a problem.
        problems: Vec<String>,
    },
    /// The remote refused the push.
    #[error("{remote} refused the push (nothing changed there): {why}{}", drop_refused(remote, branch.as_deref()))]
    PushRefused {
        /// The remote.
        remote: String,
        /// Its reasons (the server hook's lines, without git's padding and the hook's
        /// `ravenpost:` prefix).
        why: String,
        /// The remote's branch (short name) when it exists, with its remote-tracking
        /// branch at the remote's tip: the refused commits are dropped by a reset to it.
        branch: Option<String>,
    },
    /// This archive's own commits, about to be pushed, are not legal steps (judged here as
    /// the remote's hook judges a push: a move committed by hand with `git commit`).
    #[error(
        "this archive's commits are not legal steps; nothing was pushed to {remote}:\n{}{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n"),
        drop_refused(remote, branch.as_deref())
    )]
    UnpushedIllegal {
        /// The remote.
        remote: String,
        /// One line a problem: `<game> <commit>: <reason>`.
        problems: Vec<String>,
        /// The remote's branch (short name) when it exists, with its remote-tracking
        /// branch at the remote's tip: the refused commits are dropped by a reset to it.
        branch: Option<String>,
    },
    /// Other clones kept pushing between this one's fetch and push.
    #[error(
        "{remote} moved on again between fetch and push {attempts} times (other clones pushing): nothing was pushed; run `ravenpost sync` again"
    )]
    KeptMoving {
        /// The remote.
        remote: String,
        /// How many attempts were made.
        attempts: usize,
    },
}

/// After a refused push: how to drop the refused commits, keeping them on a branch; each
/// command on a line of its own, indented, to copy.
fn drop_refused(remote: &str, branch: Option<&str>) -> String {
    match branch {
        Some(b) => format!(
            "\nThe refused commits stay in this archive. To drop them, keeping a copy on the\n\
             branch ravenpost-refused, run:\n    git branch -f ravenpost-refused\n    git reset --hard {remote}/{b}"
        ),
        None => String::new(),
    }
}

/// Steps for a message: at most 20, then how many more.
fn steps(v: &[SyncStep]) -> String {
    let mut parts: Vec<String> = v.iter().take(20).map(ToString::to_string).collect();
    if v.len() > 20 {
        parts.push(format!("and {} more", v.len() - 20));
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
}

/// The most steps of one side a refusal lists.
const FEW: usize = 3;

/// At most [`FEW`] of the steps `v`, those in the games of `clash` first, one an indented
/// line, then `and N more`.
fn few_lines(v: &[SyncStep], clash: &[String]) -> String {
    let mut shown: Vec<&SyncStep> = v.iter().filter(|s| clash.contains(&s.game)).collect();
    shown.extend(v.iter().filter(|s| !clash.contains(&s.game)));
    let mut lines: Vec<String> = shown.iter().take(FEW).map(|s| format!("    {s}")).collect();
    if v.len() > FEW {
        lines.push(format!("    and {} more", v.len() - FEW));
    }
    if lines.is_empty() { "    none".to_string() } else { lines.join("\n") }
}

fn list(v: &[SyncStep]) -> String {
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(game: &str, n: usize) -> SyncStep {
        SyncStep {
            game: game.into(),
            commit: format!("{n:012x}"),
            what: format!("ply {n} 2e3 by Ann (Gold)"),
            ply: Some(n),
            san: Some("2e3".into()),
            player: Some("Ann".into()),
        }
    }

    /// Regression (issue 33, the club's mails): a diverged `sync` listed all 15 commits of
    /// unrelated games on one line of about 1,000 characters.
    #[test]
    fn a_diverged_sync_lists_a_few_steps_a_line() {
        let theirs: Vec<SyncStep> =
            (1..=15).map(|n| step(&format!("h{n}"), n)).chain([step("g", 16)]).collect();
        let e = SyncRefusal::Diverged {
            remote: "origin".into(),
            branch: "main".into(),
            base: Some("7795c97c2568".into()),
            theirs,
            ours: vec![step("g", 16)],
            clash: vec!["g".into()],
        };
        let m = e.to_string();
        assert!(m.lines().all(|l| l.chars().count() <= 100), "{m}");
        assert!(
            m.contains(
                "origin has:\n    g: ply 16 2e3 by Ann (Gold) (000000000010)\n    h1: ply 1 2e3 by Ann (Gold) (000000000001)\n    h2: ply 2 2e3 by Ann (Gold) (000000000002)\n    and 13 more\nThis archive has:\n    g: ply 16 2e3 by Ann (Gold) (000000000010)\nIn g the move"
            ),
            "{m}"
        );
    }
}
