//! The server telling the player to move: `ravenpost hook notify`, run by the
//! `post-receive` hook that `ravenpost hook install --notify` writes.
//!
//! For every pushed commit (on the first-parent line) that adds a ply to a game file,
//! one message goes to the player to move after it, at the address of the game's
//! `WhiteEmail`/`BlackEmail` tag: the message `mail export` writes for that ply (the
//! board, the opponent's move, the game file attached, threaded per game by
//! `Message-ID`/`In-Reply-To`/`References`), with the deadline of the player to move when
//! the game has a clock. It comes from the mover's address (their email tag, else
//! `ravenpost@` the recipient's domain) and is delivered through the archive's mail
//! settings (`ravenpost.yaml`, `mail:`, as the pushed commit holds them: a club that adds
//! or changes `mail:` with `ravenpost archive settings` is heard from its next push on;
//! the password from `$RAVENPOST_SMTP_PASSWORD`).
//!
//! The push has already been accepted when this runs: a failure to deliver (no address,
//! no mail settings, the server down) never rejects or undoes it. Every attempt, sent or
//! failed, is one line in the log [`log_path`] (`<git dir>/ravenpost/notify.log` on the
//! server).

use std::io::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::clock::clock_of_game;
use super::error::Error as Failure;
use super::mail::{Delivery, deliver};
use super::session::Session;
use crate::archive::{Archive, ArchiveCommit, CommitId, GamePath};
use crate::mail::{Mailbox, Outgoing};
use crate::record;
use crate::referee::players::email_tag;

/// One notification: sent or not, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Notice {
    /// The game id.
    pub game: String,
    /// The ply the message reports.
    pub ply: usize,
    /// The commit (short id).
    pub commit: String,
    /// The recipient's address, when the game has one.
    pub to: Option<String>,
    /// The message's `Message-ID`, when it was built.
    pub message_id: Option<String>,
    /// `None` when delivered; else why not.
    pub failure: Option<String>,
}

/// Where notifications are logged: `ravenpost/notify.log` in the repository's git
/// directory.
pub fn log_path(archive: &Archive) -> PathBuf {
    archive.secrets_dir().join("notify.log")
}

/// `ravenpost hook notify <old> <new> <ref>`: mails the player to move for every ply
/// pushed between `old` (exclusive; `None`: a new branch) and `new`, and logs each
/// attempt. Never fails because of a delivery: only when the repository cannot be read.
///
/// # Errors
/// The archive's errors.
pub fn notify(
    session: &Session,
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
) -> Result<Vec<Notice>, Failure> {
    let mut notices = Vec::new();
    for c in archive.commits_between(old, new)? {
        notices.extend(notices_of(session, archive, &c, new)?);
    }
    let mut log = String::new();
    for n in &notices {
        log.push_str(&format!(
            "{} {} {} ply {} to {}: {}\n",
            crate::referee::problem::rfc3339(&crate::referee::problem::time_from_unix(
                session.now().unix_seconds()
            )),
            n.commit,
            n.game,
            n.ply,
            n.to.as_deref().unwrap_or("-"),
            match &n.failure {
                None => format!("sent <{}>", n.message_id.as_deref().unwrap_or_default()),
                Some(f) => format!("NOT SENT: {f}"),
            }
        ));
    }
    if !log.is_empty() {
        let path = log_path(archive);
        // The log is best effort too: a push is never undone for it.
        let _ = std::fs::create_dir_all(archive.secrets_dir());
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&path) {
            let _ = f.write_all(log.as_bytes());
        }
    }
    Ok(notices)
}

/// The notices of commit `c` of a push whose tip is `pushed` (whose settings give the
/// mail server: those of the archive as pushed, a settings change in the push too).
fn notices_of(
    session: &Session,
    archive: &Archive,
    c: &ArchiveCommit,
    pushed: CommitId,
) -> Result<Vec<Notice>, Failure> {
    let mut out = Vec::new();
    // The definitions a pinned game uses, as the commit holds them: read once, if needed.
    let mut definitions = None;
    for ch in &c.changes {
        let Some(path) = GamePath::parse(&ch.path) else { continue };
        let Some(text) = ch.contents.as_deref().and_then(|b| std::str::from_utf8(b).ok()) else { continue };
        let definitions = match &definitions {
            Some(d) => d,
            None => definitions.insert(super::definitions::at(archive, Some(c.commit))?),
        };
        let Ok(game) = super::definitions::load(definitions, text) else { continue };
        let before = match c.parent {
            Some(p) => archive.read_file_at(p, &ch.path)?,
            None => None,
        };
        let plies_before = before
            .as_deref()
            .and_then(|t| super::definitions::load(definitions, t).ok())
            .map(|g| g.moves.len());
        let ply = game.moves.len();
        if plies_before.is_none_or(|b| b + 1 != ply) {
            continue;
        }
        let mover = game.position().side_to_move().opponent();
        let other = mover.opponent();
        let mut notice = Notice {
            game: path.id().to_string(),
            ply,
            commit: c.commit.short(),
            to: game.text.tag(email_tag(other)).map(str::to_string),
            message_id: None,
            failure: None,
        };
        if let Err(why) = send_one(session, archive, (&path, &game, text), (c, pushed), &mut notice) {
            notice.failure = Some(why);
        }
        out.push(notice);
    }
    Ok(out)
}

fn send_one(
    session: &Session,
    archive: &Archive,
    (path, game, text): (&GamePath, &crate::record::game::Game, &str),
    (c, pushed): (&ArchiveCommit, CommitId),
    notice: &mut Notice,
) -> Result<(), String> {
    // The player who moved: the opponent of the one to move now.
    let mover = game.position().side_to_move().opponent();
    let Some(to_email) = notice.to.clone() else {
        return Err(format!("the game has no {} tag", email_tag(mover.opponent())));
    };
    let to = Mailbox { name: record::player(game, mover.opponent()), email: to_email.clone() };
    let from_email = game
        .text
        .tag(email_tag(mover))
        .map(str::to_string)
        .unwrap_or_else(|| format!("ravenpost@{}", crate::mail::domain(&to_email)));
    let from = Mailbox { name: record::player(game, mover), email: from_email };
    let time = c.time.unix_seconds();
    let deadline = clock_of_game(archive, path, game, time).ok().flatten().map(|k| k.deadline);
    // The opponent is not told which of the mover's replies were prepared.
    let unnoted = record::without_prepared_notes(game);
    let unnoted_text = unnoted.as_ref().map(crate::record::game::Game::canonical_text);
    let built = crate::mail::build(&Outgoing {
        game_id: path.id(),
        text: unnoted_text.as_deref().unwrap_or(text),
        game: unnoted.as_ref().unwrap_or(game),
        sender: mover,
        from: from.clone(),
        to: to.clone(),
        date: time,
        deadline,
        used: super::clock::time_used_in_game(archive, path, game).ok().flatten(),
    })
    .map_err(|e| e.to_string())?;
    notice.message_id = Some(built.message_id.clone());
    let delivery = Delivery { settings_at: Some(pushed), ..Delivery::default() };
    deliver(session, archive, &delivery, &from, &to, &built.bytes).map_err(|e| e.to_string())?;
    Ok(())
}

/// `ravenpost hook notify <old> <new> <ref>` in the repository at the current directory
/// (or `$GIT_DIR`): [`notify`] for one updated branch (a deleted branch, or a ref that is
/// no branch, notifies nobody).
///
/// # Errors
/// The archive's errors.
pub fn hook_notify(session: &Session, old: &str, new: &str, refname: &str) -> Result<Vec<Notice>, Failure> {
    let archive = Archive::open_for_hook(&session.cwd, session.git_env)?;
    if !refname.starts_with("refs/heads/") {
        return Ok(Vec::new());
    }
    let old = archive.resolve(old)?;
    let Some(new) = archive.resolve(new)? else { return Ok(Vec::new()) };
    notify(session, &archive, old, new)
}
