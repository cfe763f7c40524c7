//! The club's mails (issue 33): every event a push records (a new game, a move, a draw
//! offered, accepted or declined, a resignation, a win on time, leave booked) mailed by
//! the post-receive hook to the players who need to know, once, with the instructions of
//! each player's channel (`players:` in ravenpost.yaml); and `ravenpost notify`, the
//! timer command: deadline reminders and the daily digest, each sent once.

use crate::common;

use std::path::{Path, PathBuf};

use common::smtp::Smtp;
use common::{DAY, T0, git, git_command, identity, ok_at, text};
use mail_parser::MessageParser;

/// A bare repository with both hooks and the organiser's clone; ravenpost.yaml sends
/// through the SMTP sink at `port`, lists Bo as a mail player (address bo@b.example) and
/// names the referee mailbox; Ann is not listed (she plays from a clone).
pub(crate) struct Club {
    pub _t: tempfile::TempDir,
    pub home: PathBuf,
    pub server: PathBuf,
    pub org: PathBuf,
}

pub(crate) fn club(port: u16, extra: &str) -> Club {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Organiser", "org@club.example");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok_at(t.path(), &home, T0, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    let org = t.path().join("org");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), org.to_str().unwrap()]);
    ok_at(&org, &home, T0, &["init"]);
    let config = org.join("ravenpost.yaml");
    let mut yaml = std::fs::read_to_string(&config).unwrap();
    yaml.push_str(&format!(
        "mail:\n  smtp:\n    host: 127.0.0.1\n    port: {port}\n    security: none\nplayers:\n  Bo:\n    \
         email: bo@b.example\n    plays-by: mail\nclub:\n  referee: games@club.example\n{extra}"
    ));
    std::fs::write(&config, yaml).unwrap();
    git(&org, &home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    push(&org, &home, T0);
    Club { _t: t, home, server, org }
}

/// `git push origin main` at `time`; returns what the remote said.
pub(crate) fn push(dir: &Path, home: &Path, time: i64) -> String {
    let mut cmd = git_command(dir, home);
    cmd.env("RAVENPOST_TIME", time.to_string()).args(["push", "origin", "main"]);
    let o = cmd.output().expect("git runs");
    assert!(o.status.success(), "push refused: {}", text(&o));
    text(&o)
}

/// A received message, as the test reads it.
#[derive(Debug, Clone)]
pub(crate) struct Mail {
    pub id: String,
    /// The `From` address and display name.
    pub from: (String, String),
    pub to: String,
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
}

pub(crate) fn read(path: &Path) -> Mail {
    let bytes = std::fs::read(path).unwrap();
    let m = MessageParser::default().parse(&bytes).expect("a message");
    let first = |a: Option<&mail_parser::Address<'_>>| {
        a.and_then(|a| a.first()).and_then(|a| a.address()).map(str::to_string)
    };
    Mail {
        id: m.message_id().unwrap().to_string(),
        from: m
            .from()
            .and_then(|a| a.first())
            .map(|a| (a.address().unwrap_or("").to_string(), a.name().unwrap_or("").to_string()))
            .unwrap(),
        to: first(m.to()).unwrap(),
        reply_to: first(m.reply_to()),
        subject: m.subject().unwrap().to_string(),
        body: m.body_text(0).unwrap().replace("\r\n", "\n"),
    }
}

/// The messages the sink received since `before`.
pub(crate) fn since(smtp: &Smtp, before: usize) -> Vec<Mail> {
    smtp.messages()[before..].iter().map(|p| read(p)).collect()
}

/// Every line of the body within 78 columns; the first screen (18 lines under
/// NeoMutt's headers at 80×24) holds each of `first_screen`.
pub(crate) fn fits(m: &Mail, first_screen: &[&str]) {
    for l in m.body.lines() {
        assert!(l.chars().count() <= 78, "{} columns: {l:?}\n{}", l.chars().count(), m.body);
    }
    let top = m.body.lines().take(18).collect::<Vec<_>>().join("\n");
    let words = top.split_whitespace().collect::<Vec<_>>().join(" ");
    for s in first_screen {
        assert!(words.contains(s), "{s:?} not in the first 18 lines:\n{top}");
    }
}

/// What a git player's mail must say, and never.
fn sync_not_import(m: &Mail) {
    let waits = m.body.lines().nth(2).is_some_and(|l| l.starts_with("Nothing to do now"));
    assert!(m.body.contains("ravenpost sync") || waits, "{}", m.body);
    assert!(!m.body.contains("mail import") && !m.body.contains("mail send"), "{}", m.body);
    club_sender(m, "games@club.example");
}

/// A club that has an address (`club: referee:`) sends its mail from it, for the player
/// who acted (`Ann via ravenpost`), so that the receiver's SPF and DMARC checks pass; a
/// git or web player's reply goes to that player (`Reply-To`), a mail player's to the
/// referee. Without a club address, the mail is from the player, with no `Reply-To`.
pub(crate) fn club_sender(m: &Mail, club: &str) {
    // The club's own timed mails (reminders, digests) are from `ravenpost` at its address.
    if m.from.0 != club || m.from.1 == "ravenpost" {
        assert_eq!(m.reply_to, None, "{m:#?}");
        return;
    }
    assert!(m.from.1.ends_with(" via ravenpost"), "{m:#?}");
    let reply = m.reply_to.as_deref().unwrap_or_else(|| panic!("no Reply-To: {m:#?}"));
    assert!(reply.contains('@') && reply != club && reply != m.to, "{m:#?}");
    let domain = club.split('@').nth(1).unwrap();
    assert!(m.id.ends_with(&format!("@{domain}")), "the thread's ids are at the club's domain: {m:#?}");
}

/// What a mail player's mail must say: reply, to the referee.
fn reply_to_the_referee(m: &Mail) {
    assert_eq!(m.reply_to.as_deref(), Some("games@club.example"), "{}", m.id);
    assert!(!m.body.contains("ravenpost "), "a mail player runs no ravenpost: {}", m.body);
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn deadline(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Regression (issue 33): the hook's mail told a club player with a clone to
/// `mail import` and `mail send`, which broke their next `sync`. A git player's mail now
/// says `ravenpost sync`; a mail player's says reply, with the referee as Reply-To.
#[test]
fn club_mail_tells_a_git_player_to_sync_not_import() {
    let smtp_root = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(smtp_root.path(), "maildir", None);
    let c = club(smtp.port, "");
    let (org, home) = (&c.org, &c.home);
    let new = [
        "new",
        "gygax",
        "--white",
        "Ann",
        "--black",
        "Bo",
        "--id",
        "ab",
        "--white-email",
        "ann@a.example",
        "--black-email",
        "bo@tag.example",
        "--time-control",
        "1/3d",
    ];
    ok_at(org, home, T0 + 60, &new);
    push(org, home, T0 + 60);
    let mails = since(&smtp, 0);
    assert_eq!(mails.len(), 2, "the new game to both: {mails:?}");
    let ann = mails.iter().find(|m| m.to == "ann@a.example").expect("Ann's");
    // Bo's address is his players: entry's, over the game's tag.
    let bo = mails.iter().find(|m| m.to == "bo@b.example").expect("Bo's");
    assert_ne!(ann.id, bo.id);
    sync_not_import(ann);
    fits(
        ann,
        &["Game ab: Ann (Gold) to move", "Deadline for Ann's move:", "To answer: `ravenpost sync`, then"],
    );
    reply_to_the_referee(bo);
    fits(bo, &["new Gygax Chess game, Ann v Bo; Ann (Gold) to move.", "Nothing to do now"]);

    // A move: to Bo, who replies.
    ok_at(org, home, T0 + 120, &["move", "ab", "2e3", "--as", "Ann"]);
    push(org, home, T0 + 120);
    let m = since(&smtp, 2);
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].to.as_str(), m[0].subject.as_str()), ("bo@b.example", "[ravenpost] ab: 1. 2e3"));
    reply_to_the_referee(&m[0]);
    fits(
        &m[0],
        &[
            "Game ab: Bo (Scarlet) to move after 1. 2e3.",
            &format!("Deadline for Bo's move: {}.", deadline(T0 + 120 + 3 * DAY)),
            "To answer: reply to this mail with your move on the first line",
        ],
    );
    // Bo offers a draw, then moves; Ann declines; Bo books leave; Ann resigns. The offer
    // and the move it stands with, pushed together, are one mail.
    ok_at(org, home, T0 + 180, &["draw", "offer", "ab", "--as", "Bo"]);
    ok_at(org, home, T0 + 240, &["move", "ab", "Sa3b6", "--as", "Bo"]);
    ok_at(org, home, T0 + 300, &["draw", "decline", "ab", "--as", "Ann"]);
    ok_at(org, home, T0 + 360, &["leave", "ab", "--days", "2", "--as", "Bo"]);
    ok_at(org, home, T0 + 420, &["resign", "ab", "--as", "Ann"]);
    let out = push(org, home, T0 + 420);
    assert!(!out.contains("not mailed"), "{out}");
    let m = since(&smtp, 3);
    let got: Vec<(&str, &str)> = m.iter().map(|m| (m.to.as_str(), m.subject.as_str())).collect();
    assert_eq!(
        got,
        [
            ("ann@a.example", "[ravenpost] ab: 1... Sa3b6 (draw offered)"),
            ("bo@b.example", "[ravenpost] ab: Ann (Gold) declines the draw after 1... Sa3b6"),
            (
                "ann@a.example",
                &*format!(
                    "[ravenpost] ab: Bo (Scarlet) books 2 days of leave from {} after 1... Sa3b6",
                    deadline(T0 + 360)
                )
            ),
            ("bo@b.example", "[ravenpost] ab: Ann (Gold) resigns \u{2014} 0-1"),
        ],
        "{m:#?}"
    );
    fits(&m[0], &["Ann (Gold) to move after 1... Sa3b6.", "Deadline for Ann's move:", "`ravenpost sync`"]);
    assert!(
        words(&m[0].body).contains("after `ravenpost sync`, accept it with `ravenpost draw accept ab`"),
        "{}",
        m[0].body
    );
    fits(&m[3], &["Game ab has ended: 0-1", "Nothing to do: the game is over."]);
    for m in &m {
        if m.to == "ann@a.example" { sync_not_import(m) } else { reply_to_the_referee(m) }
    }
    let log = std::fs::read_to_string(c.server.join("ravenpost/notify.log")).unwrap();
    assert_eq!(log.lines().count(), 7, "{log}");
    assert!(log.lines().all(|l| l.contains(": sent <")), "{log}");
}

/// A draw accepted, a win on time: each mailed to the other player.
#[test]
fn a_draw_accepted_and_a_win_on_time_are_mailed_to_the_other_player() {
    let smtp_root = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(smtp_root.path(), "maildir", None);
    let c = club(smtp.port, "");
    let (org, home) = (&c.org, &c.home);
    for (id, tc) in [("d", "1/3d"), ("t", "1/1d")] {
        let args = [
            "new",
            "gygax",
            "--white",
            "Ann",
            "--black",
            "Bo",
            "--id",
            id,
            "--white-email",
            "ann@a.example",
            "--time-control",
            tc,
        ];
        ok_at(org, home, T0 + 60, &args);
    }
    ok_at(org, home, T0 + 120, &["draw", "offer", "d", "--as", "Ann"]);
    ok_at(org, home, T0 + 180, &["move", "d", "2e3", "--as", "Ann"]);
    ok_at(org, home, T0 + 240, &["draw", "accept", "d", "--as", "Bo"]);
    ok_at(org, home, T0 + 300, &["move", "t", "2e3", "--as", "Ann"]);
    push(org, home, T0 + 300);
    let before = smtp.messages().len();
    ok_at(org, home, T0 + 300 + 2 * DAY, &["claim", "timeout", "t", "--as", "Ann"]);
    push(org, home, T0 + 300 + 2 * DAY);
    let m = since(&smtp, 0);
    // 2 games × 2, the move with its offer, the acceptance, t's move; then the claim.
    assert_eq!(m.len(), 8, "{m:#?}");
    assert_eq!(before, 7);
    let accepted = &m[5];
    assert_eq!(accepted.to, "ann@a.example");
    assert_eq!(accepted.subject, "[ravenpost] d: Draw agreed \u{2014} 1/2-1/2");
    fits(accepted, &["Game d has ended: 1/2-1/2"]);
    sync_not_import(accepted);
    let claim = &m[7];
    assert_eq!(claim.to, "bo@b.example");
    assert!(
        claim.subject.starts_with("[ravenpost] t: Time forfeit:") && claim.subject.ends_with("\u{2014} 1-0"),
        "{}",
        claim.subject
    );
    reply_to_the_referee(claim);
    fits(claim, &["Game t has ended: 1-0"]);
    // Each step's message once.
    let mut ids: Vec<&str> = m.iter().map(|m| m.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 8);
}

/// `ravenpost notify` on the server's repository: a reminder 3 days and 1 day before a
/// deadline, a daily digest; each once, whether the command runs twice or was killed
/// while writing its ledger.
#[test]
fn the_timer_sends_each_reminder_and_digest_once() {
    let smtp_root = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(smtp_root.path(), "maildir", None);
    let c = club(smtp.port, "  reminders: [3, 1]\n  digest: true\n");
    let (org, home, server) = (&c.org, &c.home, &c.server);
    let new = |id: &str, tc: Option<&str>| {
        let mut args = vec![
            "new",
            "gygax",
            "--white",
            "Ann",
            "--black",
            "Bo",
            "--id",
            id,
            "--white-email",
            "ann@a.example",
        ];
        if let Some(tc) = tc {
            args.extend(["--time-control", tc]);
        }
        ok_at(org, home, T0 + 60, &args);
    };
    new("ab", Some("1/5d"));
    new("cd", None);
    ok_at(org, home, T0 + 120, &["move", "ab", "2e3", "--as", "Ann"]);
    push(org, home, T0 + 120);
    let hook_mails = smtp.messages().len();
    assert_eq!(hook_mails, 5);
    let deadline_at = T0 + 120 + 5 * DAY;
    // Nothing due yet (5 days left), but the digests.
    let out = ok_at(server, home, T0 + 180, &["notify", "--dry-run"]);
    let day0 = deadline(T0 + 180)[..10].to_string();
    assert_eq!(
        out,
        format!(
            "digest Ann {day0}: would send to ann@a.example: [ravenpost] 1 game to move, {day0}\n\
             digest Bo {day0}: would send to bo@b.example: [ravenpost] 1 game to move, {day0}\n"
        )
    );
    assert_eq!(smtp.messages().len(), hook_mails, "a dry run sends nothing");
    // Two days later: 3 days left for Bo's move.
    let t1 = T0 + 120 + 2 * DAY + 60;
    let day1 = deadline(t1)[..10].to_string();
    let out = ok_at(server, home, t1, &["notify"]);
    assert_eq!(
        out.lines().map(|l| l.split(':').next().unwrap()).collect::<Vec<_>>(),
        ["remind ab 1 3d", &*format!("digest Ann {day1}"), &*format!("digest Bo {day1}")],
        "{out}"
    );
    assert!(out.lines().all(|l| l.contains(": sent to ")), "{out}");
    let m = since(&smtp, hook_mails);
    assert_eq!(m.len(), 3);
    let remind = &m[0];
    assert_eq!(remind.to, "bo@b.example");
    assert_eq!(remind.id, "ab.1.remind-3d@b.example");
    assert_eq!(remind.reply_to.as_deref(), Some("games@club.example"));
    fits(
        remind,
        &[
            &format!(
                "Reminder: 3 days or less left for your move in game ab (deadline {})",
                deadline(deadline_at)
            ),
            "Bo (Scarlet) to move after 1. 2e3.",
            &format!("Deadline for Bo's move: {}.", deadline(deadline_at)),
            "reply to this mail with your move",
        ],
    );
    let ann = &m[1];
    assert_eq!(
        (ann.to.as_str(), ann.id.as_str()),
        ("ann@a.example", &*format!("digest.{day1}.ann@a.example"))
    );
    assert!(words(&ann.body).contains("- cd: Ann v Bo, ply 0, no clock"), "{}", ann.body);
    sync_not_import(ann);
    fits(&m[2], &["- ab: Ann v Bo, ply 1, deadline", "Reply to each game's own mail"]);
    // Run again: nothing twice.
    assert_eq!(ok_at(server, home, t1 + 60, &["notify"]), "Nothing to send now.\n");
    assert_eq!(smtp.messages().len(), hook_mails + 3);

    // One day left, the next day; a run killed while writing its ledger left a torn line
    // (the 1-day reminder cut short): that reminder is sent (again) once, with the rest.
    let t2 = deadline_at - DAY + 60;
    let ledger = server.join("ravenpost/notify-sent");
    let mut torn = std::fs::read_to_string(&ledger).unwrap();
    assert_eq!(torn.lines().count(), 3, "{torn}");
    torn.push_str("remind ab 1 1");
    std::fs::write(&ledger, &torn).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&ok_at(server, home, t2, &["notify", "--json"])).unwrap();
    let events: Vec<&str> = json.as_array().unwrap().iter().map(|n| n["event"].as_str().unwrap()).collect();
    let day2 = deadline(t2)[..10].to_string();
    assert_eq!(events, ["remind ab 1 1d", &*format!("digest Ann {day2}"), &*format!("digest Bo {day2}")]);
    assert!(json.as_array().unwrap().iter().all(|n| n["status"] == "sent"), "{json}");
    assert_eq!(smtp.messages().len(), hook_mails + 6);
    assert_eq!(ok_at(server, home, t2 + 60, &["notify"]), "Nothing to send now.\n");
    let ledger_text = std::fs::read_to_string(&ledger).unwrap();
    assert!(ledger_text.ends_with('\n'), "{ledger_text}");
    assert_eq!(ledger_text.lines().filter(|l| l.starts_with("remind ab 1 1d\t")).count(), 1, "{ledger_text}");
    assert_eq!(smtp.messages().len(), hook_mails + 6);
}
