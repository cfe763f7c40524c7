//! A club's server acting for its members' accounts (`ravenpost serve --account-header`):
//! which side of a game an account plays, as the pre-receive hook judges a push by that
//! account, and the repository's post-receive hook run after a step committed straight
//! into the club's repository, as git runs it after a push.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::archive::{Archive, CommitId};
use crate::engine::Side;
use crate::record::game::Game;
use crate::referee::players::{ClubAccounts, account_plays, side_of_account};

use super::error::Error as Failure;

/// The accounts the archive's settings (`ravenpost.yaml`) register: admins, and each
/// player's accounts.
///
/// # Errors
/// The settings file does not read.
pub fn club_accounts(archive: &Archive) -> Result<ClubAccounts, Failure> {
    Ok(archive.config()?.club_accounts())
}

/// The side of `game` whose steps `account` may take (the one the hook lets it push);
/// `None` when it plays neither.
pub fn account_side(club: &ClubAccounts, game: &Game, account: &str) -> Option<Side> {
    side_of_account(game, club, account)
}

/// Whether `account` may push the steps of the player named `player` whose game's
/// account tag for that side is `tag`.
pub fn plays_as(club: &ClubAccounts, player: &str, tag: Option<&str>, account: &str) -> bool {
    account_plays(club, player, tag, account)
}

/// What a post-receive hook said, when one ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookRun {
    /// Whether it exited with success.
    pub success: bool,
    /// Its standard output and error, as lossy UTF-8.
    pub output: String,
}

/// Runs the bare repository's `hooks/post-receive` (when it has one that can run) for
/// the branch's move from `old` to `new`, as git runs it after a push: in the
/// repository, with `GIT_DIR` set and the line `old new ref` on its standard input. A
/// working copy's hooks are its own business: nothing runs there (`None`).
///
/// # Errors
/// The branch cannot be read.
pub fn run_post_receive(
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
) -> Result<Option<HookRun>, Failure> {
    if !archive.is_bare() {
        return Ok(None);
    }
    let hook = archive.git_dir().join("hooks").join("post-receive");
    if !hook.is_file() {
        return Ok(None);
    }
    let zero = "0".repeat(new.hex().len());
    let line = format!("{} {} {}\n", old.map_or(zero, |o| o.hex()), new.hex(), archive.branch()?);
    let child = Command::new(&hook)
        .current_dir(archive.git_dir())
        .env("GIT_DIR", ".")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Ok(Some(HookRun { success: false, output: format!("{}: {e}", hook.display()) })),
    };
    if let Some(mut stdin) = child.stdin.take() {
        // A hook that does not read its input is no failure.
        let _ = stdin.write_all(line.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| crate::archive::ArchiveError::io("run post-receive", hook.clone(), e))?;
    let mut output = String::from_utf8_lossy(&out.stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stderr));
    Ok(Some(HookRun { success: out.status.success(), output }))
}

/// Runs the post-receive hook for the branch's move from `old` to `new` (nothing when it
/// did not move) as [`run_post_receive`] does; what went wrong, in words, when it failed
/// or did not run.
pub fn post_receive_failure(
    archive: &Archive,
    old: Option<CommitId>,
    new: Option<CommitId>,
) -> Option<String> {
    let new = new.filter(|n| Some(*n) != old)?;
    match run_post_receive(archive, old, new) {
        Ok(Some(run)) if !run.success => Some(format!("the post-receive hook failed: {}", run.output.trim())),
        Ok(_) => None,
        Err(e) => Some(format!("the post-receive hook did not run: {e}")),
    }
}
