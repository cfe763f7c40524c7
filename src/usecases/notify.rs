//! The server telling the players what happened: `ravenpost hook notify`, run by the
//! `post-receive` hook that `ravenpost hook install --notify` writes.
//!
//! Every pushed commit (on the first-parent line) that changes a game file is one
//! [`Event`] (typed from the game files before and after it, not from the commit
//! message): a game created (mailed to both players), a move (to the player to move, or
//! the loser of a game the move ended), a draw offered, accepted, declined or claimed, a
//! resignation, a win on time, leave booked (each to the other player). The message is
//! the one `mail export` writes for that step (the board, the last move, the game file
//! attached, threaded per game by `Message-ID`/`In-Reply-To`/`References`), with the
//! deadline of the player to move when the game has a clock, and with the instructions
//! of the recipient's channel ([`AnswerBy`], from `players:` in `ravenpost.yaml`: a git
//! player syncs, a mail player replies to the referee mailbox, a web player opens the
//! game's page; a player the file does not list plays from a clone). It goes to the
//! player's address (`players: NAME: email:`, else the game's `WhiteEmail`/`BlackEmail`
//! tag) from the actor's, and is delivered through the archive's mail settings
//! (`ravenpost.yaml`, `mail:`, as the pushed commit holds them: a club that adds or
//! changes them with `ravenpost archive settings` is heard from that push on; the
//! password from `$RAVENPOST_SMTP_PASSWORD`).
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
use crate::archive::{Archive, ArchiveCommit, ArchiveConfig, CommitId, GamePath, PlaysBy};
use crate::engine::Side;
use crate::mail::{AnswerBy, Mailbox, Outgoing, Steps};
use crate::record::game::Game;
use crate::record::{self, Action, DrawAction};
use crate::referee::players::email_tag;

/// What one pushed commit did to one game: the kind of step and who took it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The side that acted (for a new game, the side not to move).
    #[serde(skip)]
    pub by: Side,
}

/// The kinds of [`Event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// The game file was added.
    Created,
    /// A ply was added (it may end the game by rule: mate, a position the rules end).
    Move,
    /// The player to move offered a draw (it stands with their next move).
    DrawOffered,
    /// The player to move accepted the opponent's draw offer.
    DrawAccepted,
    /// The player to move declined it.
    DrawDeclined,
    /// The player to move claimed a draw by rule (repetition, ply count).
    DrawClaimed,
    /// A player resigned.
    Resigned,
    /// The waiting player claimed the win on time.
    TimeForfeit,
    /// A player booked leave.
    LeaveBooked,
}

impl EventKind {
    /// The word the log and the command's output use: `move`, `draw-offered`.
    pub fn word(self) -> &'static str {
        match self {
            EventKind::Created => "created",
            EventKind::Move => "move",
            EventKind::DrawOffered => "draw-offered",
            EventKind::DrawAccepted => "draw-accepted",
            EventKind::DrawDeclined => "draw-declined",
            EventKind::DrawClaimed => "draw-claimed",
            EventKind::Resigned => "resigned",
            EventKind::TimeForfeit => "time-forfeit",
            EventKind::LeaveBooked => "leave-booked",
        }
    }
}

/// What one commit did to a game: `before` (`None`: the file is new) to `after`; `None`
/// when it is none of the steps a player takes (an edit the hook refused would not be
/// here; a commit that only rewrites tags or comments is no event).
pub fn classify(before: Option<&Game>, after: &Game) -> Option<Event> {
    let Some(before) = before else {
        return Some(Event { kind: EventKind::Created, by: after.position_at(0).side_to_move().opponent() });
    };
    let (b, a) = (before.moves.len(), after.moves.len());
    if b + 1 == a {
        return Some(Event { kind: EventKind::Move, by: before.position().side_to_move() });
    }
    if b != a {
        return None;
    }
    let (action, applied) = record::recognise_step(before, after)?;
    let kind = match action {
        Action::Resign(_) => EventKind::Resigned,
        Action::Draw(_, DrawAction::Offer) => EventKind::DrawOffered,
        Action::Draw(_, DrawAction::Accept) => EventKind::DrawAccepted,
        Action::Draw(_, DrawAction::Decline) => EventKind::DrawDeclined,
        Action::Draw(_, DrawAction::Claim) => EventKind::DrawClaimed,
        Action::TimeForfeit(_) => EventKind::TimeForfeit,
        Action::Leave(..) => EventKind::LeaveBooked,
    };
    Some(Event { kind, by: applied.side })
}

impl Event {
    /// Who is told: both players of a new game, else the other player.
    pub fn recipients(&self) -> Vec<Side> {
        match self.kind {
            EventKind::Created => Side::ALL.to_vec(),
            _ => vec![self.by.opponent()],
        }
    }
}

/// How `player` answers the club's mails, as `ravenpost.yaml` says (`players:`, `club:`);
/// a player it does not list plays from a clone of the shared archive.
///
/// # Errors
/// Why no mail can tell them: a mail or web player without the club's referee or web
/// address.
pub fn answer_by(config: &ArchiveConfig, player: &str) -> Result<AnswerBy, String> {
    match config.player(player).map(|p| p.plays_by).unwrap_or_default() {
        PlaysBy::Git => Ok(AnswerBy::Sync),
        PlaysBy::Mail => match &config.club.referee {
            Some(referee) => Ok(AnswerBy::Reply { referee: referee.clone() }),
            None => Err(format!(
                "{player} plays by mail, but ravenpost.yaml names no referee mailbox (`club: referee:`)"
            )),
        },
        PlaysBy::Web => match &config.club.web {
            Some(url) => Ok(AnswerBy::Web { url: url.clone() }),
            None => {
                Err(format!("{player} plays on the web, but ravenpost.yaml names no `club: web:` address"))
            }
        },
        PlaysBy::Bot => Err(format!("{player} is a computer player: the referee mailbox makes its moves")),
    }
}

/// The address of the player of `side`: `players: NAME: email:`, else the game's email
/// tag; none for a computer player (`plays-by: bot`), who is never mailed.
pub fn address_of(config: &ArchiveConfig, game: &Game, side: Side) -> Option<String> {
    let name = record::player(game, side);
    if config.is_computer(&name) {
        return None;
    }
    config
        .player(&name)
        .and_then(|p| p.email.clone())
        .or_else(|| game.text.tag(email_tag(side)).map(str::to_string))
}

/// One notification: sent or not, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Notice {
    /// The game id.
    pub game: String,
    /// The ply the message reports.
    pub ply: usize,
    /// What happened.
    pub event: EventKind,
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

/// `ravenpost hook notify <old> <new> <ref>`: mails the players for every step pushed
/// between `old` (exclusive; `None`: a new branch) and `new`, and logs each attempt.
/// Never fails because of a delivery: only when the repository cannot be read.
///
/// # Errors
/// The archive's errors.
pub fn notify(
    session: &Session,
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
) -> Result<Vec<Notice>, Failure> {
    // The players' channels and the mail server: the settings as pushed (a club that
    // changes them with `ravenpost archive settings` is heard from that push on; a broken
    // file: everyone syncs).
    let config = archive
        .read_file_at(new, ArchiveConfig::PATH)?
        .and_then(|t| ArchiveConfig::from_yaml(&t).ok())
        .unwrap_or_default();
    let mut notices = Vec::new();
    let commits = archive.commits_between(old, new)?;
    // The last commit of the push that changes each file: a draw offer followed, in the
    // same push, by the same player's move is told in the move's mail only.
    let last_change: std::collections::HashMap<&str, usize> = commits
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.changes.iter().map(move |ch| (ch.path.as_str(), i)))
        .collect();
    for (i, c) in commits.iter().enumerate() {
        let changed_later = |path: &str| last_change.get(path).is_some_and(|&last| last > i);
        notices.extend(notices_of(session, archive, &config, c, new, &changed_later)?);
    }
    let mut log = String::new();
    for n in &notices {
        log.push_str(&format!(
            "{} {} {} ply {} to {}: {} ({})\n",
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
            },
            n.event.word()
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

fn notices_of(
    session: &Session,
    archive: &Archive,
    config: &ArchiveConfig,
    c: &ArchiveCommit,
    pushed: CommitId,
    changed_later: &dyn Fn(&str) -> bool,
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
        let before = match before.as_deref().map(|t| super::definitions::load(definitions, t)) {
            None => None,
            Some(Ok(g)) => Some(g),
            // A file that did not replay before: nothing to compare with.
            Some(Err(_)) => continue,
        };
        let Some(event) = classify(before.as_ref(), &game) else { continue };
        if event.kind == EventKind::DrawOffered && changed_later(&ch.path) {
            // The player's next step in this push (the move the offer stands with) says it.
            continue;
        }
        // What the step was, as the history says it (`Scarlet declines the draw`).
        let summary = before.as_ref().and_then(|b| record::recognise_action(b, &game)).map(|a| a.summary);
        let step = Step { path: &path, game: &game, text, commit: c, event, summary, pushed };
        // A computer player is told nothing: the referee mailbox plays its moves.
        let people =
            event.recipients().into_iter().filter(|s| !config.is_computer(&record::player(&game, *s)));
        for recipient in people {
            let mut notice = Notice {
                game: path.id().to_string(),
                ply: game.moves.len(),
                event: event.kind,
                commit: c.commit.short(),
                to: address_of(config, &game, recipient),
                message_id: None,
                failure: None,
            };
            if let Err(why) = send_one(session, archive, config, &step, recipient, &mut notice) {
                notice.failure = Some(why);
            }
            out.push(notice);
        }
    }
    Ok(out)
}

/// One game's event in one commit, being mailed.
struct Step<'a> {
    path: &'a GamePath,
    game: &'a Game,
    text: &'a str,
    commit: &'a ArchiveCommit,
    event: Event,
    /// A step without a move, as the history says it.
    summary: Option<String>,
    /// The pushed tip, whose settings give the mail server.
    pushed: CommitId,
}

fn send_one(
    session: &Session,
    archive: &Archive,
    config: &ArchiveConfig,
    step: &Step<'_>,
    recipient: Side,
    notice: &mut Notice,
) -> Result<(), String> {
    let (game, path) = (step.game, step.path);
    let Some(to_email) = notice.to.clone() else {
        let name = record::player(game, recipient);
        return Err(format!(
            "no address for {name}: no {} tag in the game, no `players: {name}: email:` in ravenpost.yaml",
            email_tag(recipient)
        ));
    };
    let to = Mailbox { name: record::player(game, recipient), email: to_email.clone() };
    let answer_by = answer_by(config, &to.name)?;
    // The message comes from the other player (who acted, but for a new game).
    let sender = recipient.opponent();
    let from_email = address_of(config, game, sender)
        .unwrap_or_else(|| format!("ravenpost@{}", crate::mail::domain(&to_email)));
    let from = Mailbox { name: record::player(game, sender), email: from_email };
    // A club with an address sends from it (its server may send as its own domain only).
    let via = config.club.referee.clone();
    let envelope = via
        .as_ref()
        .map_or_else(|| from.clone(), |club| Mailbox { name: from.name.clone(), email: club.clone() });
    let time = step.commit.time.unix_seconds();
    let deadline = clock_of_game(archive, path, game, time).ok().flatten().map(|k| k.deadline);
    let mut steps = Steps::default();
    match step.event.kind {
        EventKind::DrawOffered | EventKind::DrawDeclined | EventKind::LeaveBooked => {
            steps.answer = Some(crate::mail::Answer {
                summary: step.summary.clone().unwrap_or_else(|| step.commit.message.clone()),
                commit: step.commit.commit.short(),
            });
        }
        // Each player's copy of the new game's message is a message of its own.
        EventKind::Created if recipient == game.position_at(0).side_to_move() => {
            steps.message_id = Some(format!("{}.0.new@{}", path.id(), crate::mail::domain(&envelope.email)));
        }
        _ => {}
    }
    // The opponent is not told which of the mover's replies were prepared.
    let unnoted = record::without_prepared_notes(game);
    let unnoted_text = unnoted.as_ref().map(Game::canonical_text);
    let built = crate::mail::build_steps(
        &Outgoing {
            game_id: path.id(),
            text: unnoted_text.as_deref().unwrap_or(step.text),
            game: unnoted.as_ref().unwrap_or(game),
            sender,
            from: from.clone(),
            to: to.clone(),
            date: time,
            deadline,
            used: super::clock::time_used_in_game(archive, path, game).ok().flatten(),
            answer_by,
            via,
        },
        &steps,
    )
    .map_err(|e| e.to_string())?;
    notice.message_id = Some(built.message_id.clone());
    let delivery = Delivery { settings_at: Some(step.pushed), ..Delivery::default() };
    deliver(session, archive, &delivery, &envelope, &to, &built.bytes).map_err(|e| e.to_string())?;
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
