//! `ravenpost notify`: the club's timed mails, run from cron or a systemd timer on the
//! server's repository. Deadline reminders (`club: reminders: [3, 1]` in
//! ravenpost.yaml: that many days before the deadline of the player to move) and a daily
//! digest of each player's games to move (`club: digest: true`).
//!
//! Each mail is one event with a deterministic id (`remind ab 12 3d`, `digest Bo
//! 2026-12-01`) and a deterministic `Message-ID` (`ab.12.remind-3d@domain`,
//! `digest.2026-12-01.bo@domain`). The events sent are a ledger, `notify-sent` in the
//! repository's secrets directory (`ravenpost/` of the git directory, beside
//! notify.log): one line per event, appended and flushed to disk (fsync) only after the
//! SMTP server accepted the message. A run that finds an event in the ledger sends
//! nothing for it, so the command may run twice, or be killed halfway: a line cut short
//! by a crash is not read (its event is sent again, with the same `Message-ID`, which
//! mail clients recognise as the same message).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::Error as Failure;
use super::mail::{Delivery, deliver};
use super::notify::{address_of, answer_by};
use super::session::Session;
use crate::archive::{Archive, ArchiveConfig};
use crate::mail::{Digest, DigestGame, Mailbox, Outgoing, Steps};
use crate::record;

const DAY: i64 = 86_400;

/// One timed mail: sent, to be sent (`--dry-run`), or failed.
#[derive(Debug, Clone, Serialize)]
pub struct TimedNotice {
    /// The event's id, as the ledger keeps it: `remind ab 12 3d`, `digest Bo 2026-12-01`.
    pub event: String,
    /// The recipient's address.
    pub to: Option<String>,
    /// The subject.
    pub subject: Option<String>,
    /// The `Message-ID`.
    pub message_id: Option<String>,
    /// `sent`, `would-send` (a dry run) or `failed`.
    pub status: &'static str,
    /// Why it failed.
    pub failure: Option<String>,
}

/// The ledger of the events sent: `notify-sent` in the repository's secrets directory.
pub fn ledger_path(archive: &Archive) -> PathBuf {
    archive.secrets_dir().join("notify-sent")
}

/// The events the ledger holds: every whole line's event id (before the tab); a last
/// line without its line end (a write cut short) is not one.
fn read_ledger(path: &Path) -> BTreeSet<String> {
    let text = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let whole = match text.rfind('\n') {
        Some(i) => &text[..i],
        None => "",
    };
    whole.lines().filter_map(|l| l.split('\t').next()).filter(|e| !e.is_empty()).map(str::to_string).collect()
}

/// Appends `event` (and its message id) to the ledger and flushes it to disk; a torn last
/// line is ended first, so that this one stands on a line of its own.
fn record_sent(path: &Path, event: &str, message_id: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let torn = std::fs::read(path).is_ok_and(|b| b.last().is_some_and(|&c| c != b'\n'));
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let line = format!("{}{event}\t{message_id}\n", if torn { "\n" } else { "" });
    f.write_all(line.as_bytes())?;
    f.sync_data()
}

/// A mail to send: its event id, recipient, sender and bytes.
struct Pending {
    event: String,
    from: Mailbox,
    to: Mailbox,
    built: Result<crate::mail::Built, String>,
}

/// `ravenpost notify [--dry-run]`: the reminders and digests due at the session's time
/// and not in the ledger, sent (unless `dry_run`) and recorded.
///
/// # Errors
/// The archive's errors; a ledger that cannot be written.
pub fn timed(session: &Session, archive: &Archive, dry_run: bool) -> Result<Vec<TimedNotice>, Failure> {
    let config = archive.config()?;
    let ledger = ledger_path(archive);
    let done = read_ledger(&ledger);
    let now = session.now().unix_seconds();
    let mut pending = reminders(archive, session, &config, now)?;
    if config.club.digest {
        pending.extend(digests(archive, session, &config, now)?);
    }
    let mut out = Vec::new();
    for p in pending.into_iter().filter(|p| !done.contains(&p.event)) {
        let mut n = TimedNotice {
            event: p.event.clone(),
            to: Some(p.to.email.clone()),
            subject: p.built.as_ref().ok().map(|b| b.subject.clone()),
            message_id: p.built.as_ref().ok().map(|b| b.message_id.clone()),
            status: "would-send",
            failure: None,
        };
        match (&p.built, dry_run) {
            (Err(why), _) => (n.status, n.failure) = ("failed", Some(why.clone())),
            (Ok(_), true) => {}
            (Ok(b), false) => match deliver(session, archive, &Delivery::default(), &p.from, &p.to, &b.bytes)
            {
                Ok(_) => {
                    record_sent(&ledger, &p.event, &b.message_id).map_err(|e| {
                        Failure::Usage(format!("{}: the ledger cannot be written: {e}", ledger.display()))
                    })?;
                    n.status = "sent";
                }
                Err(e) => (n.status, n.failure) = ("failed", Some(e.to_string())),
            },
        }
        out.push(n);
    }
    Ok(out)
}

/// The sender of the club's timed mails: the referee mailbox, else `ravenpost@` the
/// reader's domain.
fn club_sender(config: &ArchiveConfig, to: &str) -> Mailbox {
    let email =
        config.club.referee.clone().unwrap_or_else(|| format!("ravenpost@{}", crate::mail::domain(to)));
    Mailbox { name: "ravenpost".into(), email }
}

/// The reminders due at `now`: for each game with a clock, the smallest number of days
/// of `club.reminders` whose time has come before the deadline (one reminder per move
/// and number; a run that missed the 3-day one sends the 1-day one only).
fn reminders(
    archive: &Archive,
    session: &Session,
    config: &ArchiveConfig,
    now: i64,
) -> Result<Vec<Pending>, Failure> {
    let mut days = config.club.reminders.clone();
    days.sort_unstable();
    let mut out = Vec::new();
    if days.is_empty() {
        return Ok(out);
    }
    let definitions = super::definitions::at_tip(archive)?;
    for line in super::status(archive, session)? {
        let Some(clock) = &line.clock else { continue };
        if clock.overdue || line.result != "*" {
            continue;
        }
        let left = clock.seconds_left;
        let Some(&d) = days.iter().find(|&&d| left <= i64::from(d) * DAY) else { continue };
        let path = super::find(archive, &line.id)?;
        let Some(text) = archive.read_file(&path.path())? else { continue };
        let Ok(game) = super::definitions::load(&definitions, &text) else { continue };
        let side = game.position().side_to_move();
        let name = record::player(&game, side);
        let Some(email) = address_of(config, &game, side) else { continue };
        let to = Mailbox { name: name.clone(), email };
        let from = club_sender(config, &to.email);
        let event = format!("remind {} {} {d}d", line.id, line.ply);
        let lead = format!(
            "Reminder: {} days or less left for your move in game {} (deadline {}).",
            d,
            line.id,
            crate::referee::problem::rfc3339(&clock.deadline)
        );
        let steps = Steps {
            message_id: Some(format!(
                "{}.{}.remind-{d}d@{}",
                line.id,
                line.ply,
                crate::mail::domain(&to.email)
            )),
            lead: Some(lead),
            ..Steps::default()
        };
        let built = answer_by(config, &name).and_then(|answer_by| {
            let unnoted = record::without_prepared_notes(&game);
            let unnoted_text = unnoted.as_ref().map(crate::record::game::Game::canonical_text);
            crate::mail::build_steps(
                &Outgoing {
                    game_id: path.id(),
                    text: unnoted_text.as_deref().unwrap_or(&text),
                    game: unnoted.as_ref().unwrap_or(&game),
                    sender: side.opponent(),
                    from: from.clone(),
                    to: to.clone(),
                    date: now,
                    deadline: Some(clock.deadline),
                    used: None,
                    answer_by,
                    via: None,
                },
                &steps,
            )
            .map_err(|e| e.to_string())
        });
        out.push(Pending { event, from, to, built });
    }
    Ok(out)
}

/// Today's digests: one per player with games to move and an address.
fn digests(
    archive: &Archive,
    session: &Session,
    config: &ArchiveConfig,
    now: i64,
) -> Result<Vec<Pending>, Failure> {
    let day =
        crate::referee::problem::rfc3339(&crate::referee::problem::time_from_unix(now))[..10].to_string();
    let definitions = super::definitions::at_tip(archive)?;
    // Player → (address, games), the most urgent deadline first.
    let mut by_player: std::collections::BTreeMap<String, (Option<String>, Vec<DigestGame>)> =
        std::collections::BTreeMap::new();
    let mut lines = super::status(archive, session)?;
    lines.sort_by_key(|l| l.clock.as_ref().map_or(i64::MAX, |c| c.seconds_left));
    for line in lines {
        let Some(player) = &line.to_move else { continue };
        if line.result != "*" {
            continue;
        }
        let entry = by_player.entry(player.clone()).or_default();
        if entry.0.is_none() {
            let path = super::find(archive, &line.id)?;
            let game = archive
                .read_file(&path.path())?
                .and_then(|t| super::definitions::load(&definitions, &t).ok());
            entry.0 = game.and_then(|g| address_of(config, &g, g.position().side_to_move()));
        }
        entry.1.push(DigestGame {
            id: line.id.clone(),
            players: format!("{} v {}", line.white, line.black),
            ply: line.ply,
            deadline: line.clock.as_ref().map(|c| c.deadline),
        });
    }
    let mut out = Vec::new();
    for (player, (email, games)) in by_player {
        let Some(email) = email else { continue };
        let to = Mailbox { name: player.clone(), email };
        let from = club_sender(config, &to.email);
        let slug: String = player
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
            .collect();
        let message_id = format!("digest.{day}.{slug}@{}", crate::mail::domain(&to.email));
        let built = answer_by(config, &player).and_then(|answer_by| {
            crate::mail::build_digest(&Digest {
                from: from.clone(),
                to: to.clone(),
                date: now,
                day: day.clone(),
                message_id,
                games,
                answer_by,
            })
            .map_err(|e| e.to_string())
        });
        out.push(Pending { event: format!("digest {player} {day}"), from, to, built });
    }
    Ok(out)
}
