//! Playing by email (issue 7): a real SMTP server on loopback (Python's aiosmtpd, which
//! `.ci/run` installs) receives what `ravenpost mail send` delivers; the other player's
//! `ravenpost mail import` reads what the server stored. Two archives (Ann's and Bo's),
//! each with its own HOME and git identity; fixed times through RAVENPOST_TIME.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::smtp::{Smtp, free_port, test_ca};
use common::tools::keygen;
use common::{T0, git, identity, ravenpost_at, text};
use mail_parser::{MessageParser, MimeHeaders};

struct Player {
    home: PathBuf,
    archive: PathBuf,
}

impl Player {
    fn new(root: &Path, who: &str, name: &str, email: &str) -> Player {
        let home = identity(&root.join(format!("home-{who}")), name, email);
        let p = Player { home, archive: root.join(format!("archive-{who}")) };
        p.ok(T0, &["init", p.archive.to_str().unwrap(), "--layout", "flat"]);
        p
    }

    fn run(&self, time: i64, args: &[&str]) -> Output {
        ravenpost_at(&self.home, &self.home, time)
            .arg("--archive")
            .arg(&self.archive)
            .args(args)
            .output()
            .unwrap()
    }

    fn ok(&self, time: i64, args: &[&str]) -> String {
        let o = self.run(time, args);
        assert!(o.status.success(), "ravenpost {args:?}: {}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    }

    /// Fails with exit code 1; returns standard error.
    fn refused(&self, time: i64, args: &[&str]) -> String {
        let o = self.run(time, args);
        assert_eq!(o.status.code(), Some(1), "ravenpost {args:?} should be refused: {}", text(&o));
        String::from_utf8(o.stderr).unwrap()
    }

    fn git(&self, args: &[&str]) -> String {
        git(&self.archive, &self.home, args)
    }

    fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    fn game(&self, id: &str) -> String {
        self.git(&["show", &format!("HEAD:games/gygax/{id}.pgn")])
    }
}

struct Parsed {
    message_id: String,
    in_reply_to: Option<String>,
    references: Vec<String>,
    subject: String,
    from: String,
    to: String,
    body: String,
    attachment: (String, String, String),
}

fn parse(path: &Path) -> Parsed {
    let bytes = std::fs::read(path).unwrap();
    let m = MessageParser::default().parse(&bytes).expect("a message");
    let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
        match v {
            mail_parser::HeaderValue::Text(t) => vec![t.to_string()],
            mail_parser::HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
            _ => vec![],
        }
    };
    let att = m.attachments().next().expect("an attachment");
    let ct = att.content_type().unwrap();
    Parsed {
        message_id: m.message_id().unwrap().to_string(),
        in_reply_to: ids(m.in_reply_to()).first().cloned(),
        references: ids(m.references()),
        subject: m.subject().unwrap().to_string(),
        from: m.from().unwrap().first().unwrap().address().unwrap().to_string(),
        to: m.to().unwrap().first().unwrap().address().unwrap().to_string(),
        body: m.body_text(0).unwrap().to_string(),
        attachment: (
            att.attachment_name().unwrap().to_string(),
            format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or("")),
            String::from_utf8(att.contents().to_vec()).unwrap(),
        ),
    }
}

/// Ann (Gold) and Bo (Scarlet) play a Gygax Chess game through a real SMTP server until
/// Bo resigns; every message is imported by the other side from what the server stored.
#[test]
fn a_game_by_email_through_a_local_smtp_server() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo Example", "bo@example.net");
    let smtp = Smtp::start(t.path(), "maildir", None);
    let server = smtp.addr();
    let send = ["--smtp", server.as_str(), "--security", "none"];

    ann.ok(
        T0,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "Bo Example",
            "--id",
            "ann-bo",
            "--time-control",
            "1/3d",
            "--white-email",
            "ann@example.org",
            "--black-email",
            "bo@example.net",
        ],
    );
    // Ply 1, Ann: played, mailed, imported by Bo (which creates the game on his side).
    ann.ok(T0 + 3600, &["move", "ann-bo", "2e3"]);
    let out = ann.ok(T0 + 3700, &[&["mail", "send", "ann-bo"][..], &send[..]].concat());
    assert!(out.contains("Sent ann-bo ply 1 to Bo Example <bo@example.net> via SMTP"), "{out}");
    let m1 = smtp.newest(0);
    let p1 = parse(&m1);
    assert_eq!(p1.message_id, "ann-bo.1@example.org");
    assert_eq!(p1.subject, "[ravenpost] ann-bo: 1. 2e3");
    assert_eq!((p1.from.as_str(), p1.to.as_str()), ("ann@example.org", "bo@example.net"));
    assert_eq!(p1.attachment.0, "ann-bo.pgn");
    assert_eq!(p1.attachment.1, "application/vnd.chess-pgn");
    assert_eq!(p1.attachment.2, ann.game("ann-bo"), "the attachment is the game file, byte for byte");
    assert!(p1.attachment.2.contains("1. 2e3 {ravenpost: at 2025-11-29T08:06:40Z}"), "{}", p1.attachment.2);
    assert!(p1.body.contains("Last move: 1. 2e3 by Ann Example (ply 1)"), "{}", p1.body);
    assert!(p1.body.contains("Scarlet to move (move 1): Bo Example."), "{}", p1.body);

    let out = bo.ok(T0 + 7200, &["mail", "import", m1.to_str().unwrap()]);
    assert!(out.contains("game ann-bo: imported new game; ply 1 2e3 by Ann Example"), "{out}");
    assert_eq!(bo.game("ann-bo"), ann.game("ann-bo"), "both archives hold the same game file");
    // The game was created by Ann's commit, then her ply: `verify` accepts Bo's history.
    assert!(bo.ok(T0 + 7200, &["verify"]).contains("1 game verified, 0 problems"));
    let log = bo.git(&["log", "--format=%an <%ae>|%s", "main"]);
    assert!(
        log.starts_with("Ann Example <ann@example.org>|ann-bo: ply 1 2e3 (from mail <ann-bo.1@example.org>)"),
        "{log}"
    );
    // The clock uses the move's recorded time, not the import's commit time: Bo's three
    // days run from 08:06:40, Ann's move.
    let status = bo.ok(T0 + 7200, &["status"]);
    assert!(status.contains("deadline 2025-12-02T08:06:40Z"), "{status}");
    // Importing the same message again changes nothing.
    let head = bo.head();
    let out = bo.ok(T0 + 7300, &["mail", "import", m1.to_str().unwrap()]);
    assert!(out.contains("nothing new"), "{out}");
    assert_eq!(bo.head(), head);

    // Ply 2, Bo; ply 3, Ann.
    bo.ok(T0 + 10_000, &["move", "ann-bo", "Sa3b6"]);
    bo.ok(T0 + 10_100, &[&["mail", "send", "ann-bo"][..], &send[..]].concat());
    let m2 = smtp.newest(1);
    let p2 = parse(&m2);
    assert_eq!(p2.message_id, "ann-bo.2@example.net");
    assert_eq!(p2.in_reply_to.as_deref(), Some("ann-bo.1@example.org"), "threaded under Ann's ply 1");
    assert!(p2.references.contains(&"ann-bo.1@example.org".to_string()), "{:?}", p2.references);
    assert_eq!(p2.subject, "[ravenpost] ann-bo: 1... Sa3b6");
    assert_eq!(p2.from, "bo@example.net");
    let out = ann.ok(T0 + 20_000, &["mail", "import", m2.to_str().unwrap()]);
    assert!(out.contains("imported ply 2 Sa3b6 by Bo Example"), "{out}");
    ann.ok(T0 + 30_000, &["move", "ann-bo", "2f3"]);
    ann.ok(T0 + 30_100, &[&["mail", "send", "ann-bo"][..], &send[..]].concat());
    let m3 = smtp.newest(2);
    assert_eq!(parse(&m3).in_reply_to.as_deref(), Some("ann-bo.2@example.net"));

    // Tampered copies of Ann's ply 3, each refused with the reason; Bo's archive untouched.
    let good = ann.game("ann-bo");
    let head = bo.head();
    let tampered = |name: &str, game: &str| -> PathBuf {
        let p = t.path().join(format!("{name}.eml"));
        std::fs::write(&p, hand_made_message("ann-bo", game)).unwrap();
        p
    };
    let cases = [
        (
            "illegal",
            good.replace("2. 2f3", "2. 2f5"),
            "illegal move `2f5` (Gold, move 2): no Warrior of Gold can go to 2f5",
        ),
        ("rewritten", good.replace("1. 2e3", "1. 2d3"), "ply 1 was changed"),
        // Ann's move and one played in Bo's name.
        ("wrong-side", good.replace(" *\n", " 2... Sc3d6 *\n"), "played for Bo Example, you"),
        (
            "future",
            good.replace(
                "2. 2f3 {ravenpost: at 2025-11-29T15:26:40Z}",
                "2. 2f3 {ravenpost: at 2026-01-01T00:00:00Z}",
            ),
            "a move cannot be timed in the future",
        ),
        (
            "back-dated",
            good.replace(
                "2. 2f3 {ravenpost: at 2025-11-29T15:26:40Z}",
                "2. 2f3 {ravenpost: at 2025-11-29T07:00:00Z}",
            ),
            "ply 3: the move time `2025-11-29T07:00:00Z` is before ply 2's",
        ),
        (
            "untimed",
            good.replace("2. 2f3 {ravenpost: at 2025-11-29T15:26:40Z}", "2. 2f3"),
            "ply 3 (2f3) carries no move time",
        ),
    ];
    for (name, game, why) in &cases {
        assert_ne!(game, &good, "{name}: the test's replacement must change the game:\n{good}");
        let err = bo.refused(T0 + 40_000, &["mail", "import", tampered(name, game).to_str().unwrap()]);
        assert!(
            err.contains("game ann-bo: refused, nothing committed") && err.contains(why),
            "{name}: {err}"
        );
        assert_eq!(bo.head(), head, "{name}: nothing committed");
    }
    // A game Bo does not play in and does not have.
    let stranger = good
        .replace("Ann Example", "Cy Example")
        .replace("Bo Example", "Di Example")
        .replace("ann@example.org", "cy@example.org")
        .replace("bo@example.net", "di@example.net");
    let p = t.path().join("stranger.eml");
    std::fs::write(&p, hand_made_message("cy-di", &stranger)).unwrap();
    let err = bo.refused(T0 + 40_000, &["mail", "import", p.to_str().unwrap()]);
    assert!(
        err.contains(
            "unknown game cy-di: it is not in this archive, and Bo Example is not one of its players"
        ),
        "{err}"
    );
    // A new game for Bo that comes with a move already made in his name.
    let p = t.path().join("new-with-bo-move.eml");
    std::fs::write(&p, hand_made_message("ann-bo-2", &good)).unwrap();
    let err = bo.refused(T0 + 40_000, &["mail", "import", p.to_str().unwrap()]);
    assert!(
        err.contains("game ann-bo-2: refused") && err.contains("ply 2 (Sa3b6) is played for Bo Example, you"),
        "{err}"
    );
    assert_eq!(bo.head(), head);
    assert_eq!(bo.git(&["ls-files", "games"]).lines().count(), 1, "no game was created");

    // The whole Maildir, in one go: Ann's old ply 1 and Bo's own ply 2 are nothing new,
    // her ply 3 is imported.
    let out = bo.ok(T0 + 40_000, &["mail", "import", "--json", smtp.maildir.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let statuses: Vec<&str> =
        report.as_array().unwrap().iter().map(|l| l["status"].as_str().unwrap()).collect();
    assert_eq!(statuses.iter().filter(|s| **s == "imported").count(), 1, "{out}");
    assert_eq!(statuses.iter().filter(|s| **s == "nothing-new").count(), 2, "{out}");
    let imported = report.as_array().unwrap().iter().find(|l| l["status"] == "imported").unwrap();
    assert_eq!(imported["plies"], serde_json::json!([{"ply": 3, "move": "2f3", "player": "Ann Example"}]));
    assert_eq!(imported["message_id"], "ann-bo.3@example.org");
    assert_eq!(bo.game("ann-bo"), ann.game("ann-bo"));

    // Bo resigns and mails it; Ann imports the result.
    bo.ok(T0 + 50_000, &["resign", "ann-bo"]);
    bo.ok(T0 + 50_100, &[&["mail", "send", "ann-bo"][..], &send[..]].concat());
    let m4 = smtp.newest(3);
    let p4 = parse(&m4);
    assert_eq!(p4.message_id, "ann-bo.3.end@example.net");
    assert_eq!(p4.in_reply_to.as_deref(), Some("ann-bo.3@example.org"));
    assert_eq!(p4.subject, "[ravenpost] ann-bo: Bo Example (Scarlet) resigns \u{2014} 1-0");
    // Ann's mail program keeps everything in one mbox file: her own two messages and
    // Bo's reply are nothing new, his resignation is imported.
    let mbox = t.path().join("ann.mbox");
    let mut all = Vec::new();
    for m in [&m1, &m2, &m3, &m4] {
        all.extend_from_slice(b"From MAILER-DAEMON Sat Nov 29 12:00:00 2025\n");
        all.extend(std::fs::read(m).unwrap());
        all.extend_from_slice(b"\n");
    }
    std::fs::write(&mbox, all).unwrap();
    let out = ann.ok(T0 + 60_000, &["mail", "import", mbox.to_str().unwrap()]);
    assert_eq!(out.matches("nothing new").count(), 3, "{out}");
    assert!(
        out.contains(
            "<ann-bo.3.end@example.net>: game ann-bo: imported: Bo Example (Scarlet) resigns; result 1-0"
        ),
        "{out}"
    );
    assert_eq!(ann.game("ann-bo"), bo.game("ann-bo"));
    let words = ann.game("ann-bo").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("{Scarlet resigns.} 1-0"), "{words}");
    for p in [&ann, &bo] {
        assert!(p.ok(T0 + 60_000, &["verify"]).contains("1 game verified, 0 problems"));
    }
    // Re-reading everything the server got changes nothing on either side.
    for p in [&ann, &bo] {
        let head = p.head();
        p.ok(T0 + 70_000, &["mail", "import", smtp.maildir.to_str().unwrap()]);
        assert_eq!(p.head(), head);
    }
}

/// A message from Ann as another mail program might write it: the game file as a plain
/// 7-bit attachment.
fn hand_made_message(id: &str, game: &str) -> String {
    hand_made_message_from("Ann Example <ann@example.org>", id, game)
}

/// [`hand_made_message`] from `from`.
fn hand_made_message_from(from: &str, id: &str, game: &str) -> String {
    let game = game.replace('\n', "\r\n");
    format!(
        "From: {from}\r\nTo: Bo Example <bo@example.net>\r\n\
         Subject: [ravenpost] {id}: a move\r\nMessage-ID: <{id}.forged@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\nMy move.\r\n\
         --b\r\nContent-Type: application/x-chess-pgn\r\n\
         Content-Disposition: attachment; filename=\"{id}.pgn\"\r\n\r\n{game}\r\n--b--\r\n"
    )
}

/// `mail export` writes the same message to a file; read back, it has the headers and the
/// game file; without any address the command says what is missing.
#[test]
fn export_writes_a_message_that_reads_back() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    ann.ok(T0, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "g1"]);
    let err = ann.run(T0, &["mail", "export", "g1"]);
    assert_eq!(err.status.code(), Some(2));
    assert!(text(&err).contains("no email address for Bo Example: pass --to"), "{}", text(&err));
    ann.ok(T0 + 60, &["move", "g1", "2e3"]);
    let file = t.path().join("g1.eml");
    let out = ann
        .ok(T0 + 120, &["mail", "export", "g1", "--to", "Bo <bo@example.net>", "-o", file.to_str().unwrap()]);
    assert!(out.contains("Message-ID <g1.1@example.org>"), "{out}");
    let raw = std::fs::read_to_string(&file).unwrap();
    assert!(raw.contains("\r\n"), "RFC 5322 line ends");
    let p = parse(&file);
    assert_eq!(p.message_id, "g1.1@example.org");
    assert_eq!(p.in_reply_to.as_deref(), None, "ply 1 of a game its mover created: the thread's root");
    assert_eq!(p.to, "bo@example.net");
    assert_eq!(p.attachment.2, ann.game("g1"));
    // The diagram: Gygax Chess's three levels, the last move's squares marked.
    assert!(p.body.contains("   W W W W[.]W W W W W W W   "), "{}", p.body);
    // Standard output by default: the same bytes but for the Date, which is fixed here.
    let stdout = ann.run(T0 + 120, &["mail", "export", "g1", "--to", "Bo <bo@example.net>"]);
    assert!(stdout.status.success());
    let a = MessageParser::default().parse(&stdout.stdout).unwrap();
    assert_eq!(a.message_id(), Some("g1.1@example.org"));
    assert_eq!(a.date().map(|d| d.to_timestamp()), Some(T0 + 120));
}

/// `mail send --sendmail CMD` hands the message to a sendmail-compatible command: here a
/// script that stores its arguments and standard input.
#[test]
fn send_through_a_sendmail_command() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    ann.ok(T0, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "sm"]);
    ann.ok(T0 + 60, &["move", "sm", "2e3"]);
    let script = t.path().join("fake-sendmail");
    let out = t.path().join("sent");
    std::fs::write(&script, format!("#!/bin/sh\necho \"$@\" > '{0}.args'\ncat > '{0}.eml'\n", out.display()))
        .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let line = ann.ok(
        T0 + 120,
        &["mail", "send", "sm", "--to", "bo@example.net", "--sendmail", script.to_str().unwrap()],
    );
    assert!(line.contains("via sendmail"), "{line}");
    let args = std::fs::read_to_string(t.path().join("sent.args")).unwrap();
    assert!(args.contains("-f ann@example.org") && args.trim_end().ends_with("bo@example.net"), "{args}");
    let p = parse(&t.path().join("sent.eml"));
    assert_eq!(p.message_id, "sm.1@example.org");
    assert_eq!(p.attachment.2, ann.game("sm"));
    // No way to send configured: a usage error naming the ways.
    let o = ann.run(T0 + 120, &["mail", "send", "sm", "--to", "bo@example.net"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("no way to send mail: pass --smtp"), "{}", text(&o));
}

/// Failures to send say why and that nothing was sent: a server that is not there, and
/// an SMTP user without the password variable (never read from the archive).
#[test]
fn send_failures_are_explained() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    ann.ok(T0, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "e"]);
    // A loopback port with nothing listening.
    let port = free_port();
    let server = format!("127.0.0.1:{port}");
    let to = ["--to", "bo@example.net", "--smtp", server.as_str(), "--security", "none"];
    let err = ann.refused(T0, &[&["mail", "send", "e"][..], &to[..]].concat());
    assert!(err.contains(&format!("SMTP server 127.0.0.1:{port} refused the connection")), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    let o = ann.run(T0, &[&["mail", "send", "e", "--user", "ann"][..], &to[..]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("needs a password: set $RAVENPOST_SMTP_PASSWORD"), "{}", text(&o));
}

/// A game pasted into the text of a message (no attachment) is found too, and its id
/// comes from the subject.
#[test]
fn a_game_in_the_message_text_is_read() {
    let game =
        "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\n1. 2e3 *\n";
    let msg = format!(
        "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: Re: [ravenpost] ann-bo: 1. 2e3\r\n\
         Message-ID: <x@example.org>\r\nIn-Reply-To: <ann-bo.0@example.net>\r\n\r\nMy move:\r\n\r\n{}",
        game.replace('\n', "\r\n")
    );
    let m = ravenpost::mail::read_messages(msg.as_bytes()).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].game_id.as_deref(), Some("ann-bo"));
    assert_eq!(m[0].message_id.as_deref(), Some("x@example.org"));
    assert_eq!(m[0].in_reply_to.as_deref(), Some("ann-bo.0@example.net"));
    assert_eq!(m[0].from.as_ref().map(|f| f.email.as_str()), Some("ann@example.org"));
    assert_eq!(m[0].game.as_deref(), Ok(game));
    // No game anywhere: said so.
    let none = ravenpost::mail::read_messages(b"Subject: hello\r\n\r\nJust a letter.\r\n").unwrap();
    assert!(none[0].game.as_ref().unwrap_err().contains("no game file"), "{:?}", none[0].game);
}

/// STARTTLS: the server requires it (aiosmtpd refuses MAIL FROM before STARTTLS) and
/// presents a certificate of a private CA that `--ca-file` makes trusted. The settings
/// come from ravenpost.yaml's `mail.smtp` section.
#[test]
fn send_with_starttls_from_the_archive_settings() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let (ca, cert, key) = test_ca(dir);
    let smtp = Smtp::start(dir, "maildir", Some((&cert, &key)));

    let ann = Player::new(dir, "ann", "Ann Example", "ann@example.org");
    ann.ok(
        T0,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "Bo Example",
            "--id",
            "tls",
            "--black-email",
            "bo@example.net",
        ],
    );
    ann.ok(T0 + 60, &["move", "tls", "2e3"]);
    // Without the CA the server's certificate is not trusted: nothing is sent.
    let err = ann.refused(T0 + 60, &["mail", "send", "tls", "--smtp", &smtp.addr()]);
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(smtp.messages().is_empty());
    // Settings in ravenpost.yaml (committed, as archive settings are).
    let yaml = std::fs::read_to_string(ann.archive.join("ravenpost.yaml")).unwrap();
    let yaml = format!(
        "{yaml}mail:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: starttls\n    ca-file: {}\n",
        smtp.port,
        ca.display()
    );
    std::fs::write(ann.archive.join("ravenpost.yaml"), yaml).unwrap();
    ann.git(&["commit", "--quiet", "-am", "mail settings"]);
    let out = ann.ok(T0 + 120, &["mail", "send", "tls"]);
    assert!(out.contains("via SMTP 127.0.0.1:") && out.contains("(STARTTLS)"), "{out}");
    let p = parse(&smtp.newest(0));
    assert_eq!(p.message_id, "tls.1@example.org");
    assert_eq!(p.attachment.2, ann.game("tls"));
}

/// A message carries what happened since the last one: a draw offer made with a move, or
/// a move followed by a resignation. Import splits them into the steps ravenpost records
/// (offer, then move; move, then resignation), each checked and committed as its
/// player's. A game that requires signed moves cannot go by email.
#[test]
fn offers_and_resignations_travel_with_moves() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo Example", "bo@example.net");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "g"];
    ann.ok(
        T0,
        &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat(),
    );
    let mail = |p: &Player, time: i64, n: u32| -> String {
        let f = t.path().join(format!("m{n}.eml"));
        p.ok(time, &["mail", "export", "g", "-o", f.to_str().unwrap()]);
        f.to_str().unwrap().to_string()
    };
    ann.ok(T0 + 10, &["move", "g", "2e3"]);
    let m1 = mail(&ann, T0 + 20, 1);
    bo.ok(T0 + 30, &["mail", "import", &m1]);

    // Bo offers a draw and moves; Ann imports both steps and may accept.
    bo.ok(T0 + 40, &["draw", "offer", "g"]);
    bo.ok(T0 + 50, &["move", "g", "Sa3b6"]);
    let m2 = mail(&bo, T0 + 60, 2);
    let out = ann.ok(T0 + 70, &["mail", "import", &m2, "--json"]);
    assert!(out.contains("\"status\": \"imported\""), "{out}");
    let log = ann.ok(T0 + 70, &["log", "g"]);
    assert!(log.contains("Bo Example (Scarlet) offers a draw") && log.contains("ply 2 Sa3b6"), "{log}");
    let st = ann.ok(T0 + 70, &["status"]);
    assert!(st.contains("draw offered by Bo Example (Scarlet)"), "{st}");
    assert_eq!(ann.game("g"), bo.game("g"));

    // Ann declines by moving, then resigns; Bo imports the move and the resignation.
    ann.ok(T0 + 80, &["move", "g", "Rx3b6"]);
    ann.ok(T0 + 90, &["resign", "g"]);
    let m3 = mail(&ann, T0 + 100, 3);
    bo.ok(T0 + 110, &["mail", "import", &m3]);
    assert_eq!(ann.game("g"), bo.game("g"));
    let words = bo.game("g").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("2. Rx3b6 {ravenpost: at 2025-11-29T07:08:00Z} {Gold resigns.} 0-1"), "{words}");
    for p in [&ann, &bo] {
        assert!(p.ok(T0 + 120, &["verify"]).contains("0 problems"));
    }

    // Signed games stay in git.
    let (_key, pubkey) = keygen(t.path(), "k");
    ann.ok(
        T0,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "Bo Example",
            "--id",
            "s",
            "--white-key",
            &pubkey,
        ],
    );
    let err = ann.refused(T0, &["mail", "export", "s", "--to", "bo@example.net"]);
    assert!(err.contains("requires signed moves (WhiteSigningKey)"), "{err}");
}

/// A Fantasy Grand game whose armies were chosen in secret in one archive can be mailed:
/// the receiving archive has no choice file, and verifies the game as it is.
#[test]
fn a_game_from_a_secret_army_choice_travels_by_email() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo Example", "bo@example.net");
    let new = ["new", "fantasy-grand", "--white", "Ann Example", "--black", "Bo Example", "--id", "fg"];
    let emails = ["--white-email", "ann@example.org", "--black-email", "bo@example.net"];
    ann.ok(T0, &[&new[..], &["--secret-armies"], &emails[..]].concat());
    ann.ok(T0, &["army", "commit", "fg", "elves"]);
    ann.ok(T0, &["army", "commit", "fg", "dwarves", "--as", "Bo Example"]);
    ann.ok(T0, &["army", "reveal", "fg"]);
    ann.ok(T0, &["army", "reveal", "fg", "--as", "Bo Example"]);
    ann.ok(T0 + 10, &["move", "fg", "e4"]);
    let f = t.path().join("fg.eml");
    ann.ok(T0 + 20, &["mail", "export", "fg", "-o", f.to_str().unwrap()]);
    bo.ok(T0 + 30, &["mail", "import", f.to_str().unwrap()]);
    let game = bo.git(&["show", "HEAD:games/fantasy-grand/fg.pgn"]);
    assert!(game.contains("[BlackArmy \"dwarves\"]") && game.contains("[WhiteArmyCommitment \""), "{game}");
    assert!(bo.ok(T0 + 40, &["verify"]).contains("0 problems"));
    assert!(ann.ok(T0 + 40, &["verify"]).contains("0 problems"));
}

/// Regression (fresh-user review): a player whose git name is not the game's player name
/// is still recognised by the game's email tag: a message that moves for them is refused,
/// the first import creates the game, and `move` without `--as` does not move for the
/// opponent.
#[test]
fn players_are_recognised_by_their_email_tag() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo", "bo@example.net");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "g"];
    ann.ok(
        T0,
        &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat(),
    );
    ann.ok(T0 + 10, &["move", "g", "2e3"]);
    // Not Ann's turn: without --as, Ann's clone refuses to move for Bo.
    let err = ann.refused(T0 + 15, &["move", "g", "Sa3b6"]);
    assert!(err.contains("not Ann Example's turn"), "{err}");
    let f1 = t.path().join("1.eml");
    ann.ok(T0 + 20, &["mail", "export", "g", "-o", f1.to_str().unwrap()]);
    bo.ok(T0 + 30, &["mail", "import", f1.to_str().unwrap()]);
    bo.ok(T0 + 40, &["move", "g", "Sa3b6"]);
    // Bo forges a reply that also plays Ann's next move.
    let f2 = t.path().join("2.eml");
    bo.ok(T0 + 50, &["mail", "export", "g", "-o", f2.to_str().unwrap()]);
    let game = bo.game("g");
    let forged = common::records::play_move_at(&game, "Rx3b6", None, None, Some(T0 + 45)).unwrap().text;
    let f3 = t.path().join("3.eml");
    std::fs::write(&f3, hand_made_message_from("Bo <bo@example.net>", "g", &forged)).unwrap();
    let err = ann.refused(T0 + 60, &["mail", "import", f3.to_str().unwrap()]);
    assert!(err.contains("refusing a move made in your name"), "{err}");
    ann.ok(T0 + 70, &["mail", "import", f2.to_str().unwrap()]);
}

/// A message from Ann with a text part and then `parts` (each a MIME part of boundary
/// `b`, the closing `--b--` included or not).
fn multipart(parts: &str) -> String {
    format!(
        "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: [ravenpost] ann-bo: 1. 2e3\r\n\
         Message-ID: <x@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\nMy move.\r\n{parts}"
    )
}

/// A `.pgn` attachment part named `name` with more `headers` and the (encoded) `body`.
fn pgn_part(name: &str, headers: &str, body: &str) -> String {
    format!(
        "--b\r\nContent-Type: application/x-chess-pgn{headers}\r\n\
         Content-Disposition: attachment; filename=\"{name}\"\r\n\r\n{body}\r\n"
    )
}

/// The one message's game as `mail import` would take it.
fn game_of(message: &str) -> (Option<String>, Result<String, String>) {
    let mut m = ravenpost::mail::read_messages(message.as_bytes()).unwrap();
    assert_eq!(m.len(), 1);
    let m = m.remove(0);
    (m.game_id, m.game)
}

const SMALL_GAME: &str =
    "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\n1. 2e3 *\n";
/// [`SMALL_GAME`] with CRLF line ends, base64-encoded by Python's `base64.encodebytes`.
const SMALL_GAME_BASE64: &str = "W0V2ZW50ICI/Il0NCltXaGl0ZSAiQW5uIl0NCltCbGFjayAiQm8iXQ0KW1Jlc3VsdCAiKiJdDQpb\r\n\
                                 VmFyaWFudCAiZ3lnYXgiXQ0KDQoxLiAyZTMgKg0K\r\n";

/// Attachments encoded as mail clients send them: base64, and quoted-printable with a
/// UTF-8 name (`=C3=9C` is Ü) and a soft line break inside a tag; a charset nobody knows
/// on a plain ASCII game is harmless.
#[test]
fn encoded_attachments_are_decoded() {
    let b64 = multipart(&format!(
        "{}--b--\r\n",
        pgn_part("ann-bo.pgn", "\r\nContent-Transfer-Encoding: base64", SMALL_GAME_BASE64)
    ));
    assert_eq!(game_of(&b64), (Some("ann-bo".into()), Ok(SMALL_GAME.to_string())));
    let qp_body = "[Event \"?\"]\r\n[White \"Ann =C3=9Cnal\"]\r\n[Black \"Bo\"]\r\n[Result \"*\"]\r\n\
                   [Variant \"gy=\r\ngax\"]\r\n\r\n1. 2e3 *\r\n";
    let qp = multipart(&format!(
        "{}--b--\r\n",
        pgn_part("ann-bo.pgn", "; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable", qp_body)
    ));
    assert_eq!(game_of(&qp).1, Ok(SMALL_GAME.replace("\"Ann\"", "\"Ann Ünal\"")));
    let odd = multipart(&format!(
        "{}--b--\r\n",
        pgn_part("ann-bo.pgn", "; charset=x-no-such-charset", &SMALL_GAME.replace('\n', "\r\n"))
    ));
    assert_eq!(game_of(&odd).1, Ok(SMALL_GAME.to_string()));
}

/// A second `.pgn` attachment is ignored: the first is the game, and names it.
#[test]
fn a_second_attachment_is_ignored() {
    let other = "[Event \"?\"]\r\n[White \"Cy\"]\r\n[Black \"Di\"]\r\n[Result \"*\"]\r\n[Variant \"gygax\"]\r\n\r\n*\r\n";
    let two = multipart(&format!(
        "{}{}--b--\r\n",
        pgn_part("ann-bo.pgn", "\r\nContent-Transfer-Encoding: base64", SMALL_GAME_BASE64),
        pgn_part("cy-di.pgn", "", other)
    ));
    assert_eq!(game_of(&two), (Some("ann-bo".into()), Ok(SMALL_GAME.to_string())));
}

/// A game cut off in the middle (no closing boundary) is not taken for the part it has:
/// `mail import` refuses it as cut off, committing nothing.
#[test]
fn a_truncated_multipart_is_refused_on_import() {
    let cut = multipart(&pgn_part("ann-bo.pgn", "", "[Event \"?\"]\r\n[White \"Ann\"]\r\n[Bla"));
    assert_eq!(game_of(&cut).1, Err(CUT_OFF.to_string()));
    let t = tempfile::tempdir().unwrap();
    let bo = Player::new(t.path(), "bo", "Bo", "bo@example.net");
    let head = bo.head();
    let f = t.path().join("cut.eml");
    std::fs::write(&f, cut).unwrap();
    let err = bo.refused(T0, &["mail", "import", f.to_str().unwrap()]);
    assert_eq!(
        err,
        format!(
            "ravenpost: {} <x@example.org>: game ann-bo: refused, nothing committed: {CUT_OFF}\n\
             ravenpost: 1 message refused\n",
            f.display()
        )
    );
    assert_eq!(bo.head(), head);
}

/// Why an attachment `ann-bo.pgn` whose message ends before it does is not taken.
const CUT_OFF: &str = "the attached game file ann-bo.pgn is cut off: the message ends inside it, before the MIME \
                       boundary that closes it (ask the sender for the message again)";

/// Regression (issue 38): a base64 attachment cut off before its closing boundary was
/// returned still encoded, as if the base64 text were the game. Now it is refused as cut
/// off (mail-parser marks the part it could not decode to its end).
#[test]
fn a_truncated_base64_attachment_is_not_taken_as_text() {
    let cut =
        multipart(&pgn_part("ann-bo.pgn", "\r\nContent-Transfer-Encoding: base64", &SMALL_GAME_BASE64[..40]));
    assert_eq!(game_of(&cut), (Some("ann-bo".into()), Err(CUT_OFF.to_string())));
    // Whole, but with a character base64 does not have: malformed, not cut off.
    let bad = multipart(&format!(
        "{}--b--\r\n",
        pgn_part(
            "ann-bo.pgn",
            "\r\nContent-Transfer-Encoding: base64",
            &SMALL_GAME_BASE64.replacen('I', "%", 1)
        )
    ));
    assert_eq!(
        game_of(&bad).1,
        Err("the attached game file ann-bo.pgn cannot be decoded: its base64 text is malformed".to_string())
    );
}

/// Regression (issue 38): an attachment that declares its charset (`iso-8859-1`) was
/// refused as "not UTF-8 text", though game files in Latin-1 are read (tests/game_files.rs
/// `latin1_player_names_are_read`). Now the declared charset is decoded (mail-parser's
/// decoders).
#[test]
fn a_latin1_attachment_with_its_charset_is_read() {
    let body = "[Event \"?\"]\r\n[White \"Ann =DCnal\"]\r\n[Black \"Bo\"]\r\n[Result \"*\"]\r\n[Variant \"gygax\"]\r\n\r\n\
                1. 2e3 *\r\n";
    let latin1 = multipart(&format!(
        "{}--b--\r\n",
        pgn_part("ann-bo.pgn", "; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable", body)
    ));
    assert_eq!(game_of(&latin1).1, Ok(SMALL_GAME.replace("\"Ann\"", "\"Ann Ünal\"")));
    // Not UTF-8, and no charset said: refused with what to declare.
    let undeclared = multipart(&format!(
        "{}--b--\r\n",
        pgn_part("ann-bo.pgn", "\r\nContent-Transfer-Encoding: quoted-printable", body)
    ));
    assert_eq!(
        game_of(&undeclared).1,
        Err("the attached game file ann-bo.pgn is not UTF-8 text and declares no charset (such as \
             `charset=iso-8859-1`) that says what it is"
            .to_string())
    );
}

/// `text` in Windows-1252 (Latin-1 but for 0x80-0x9F), quoted-printable: the characters
/// outside ASCII, and `=`, as `=XX`.
fn cp1252_quoted_printable(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let byte = match c {
            'Š' => 0x8A,
            'Œ' => 0x8C,
            '–' => 0x96,
            c if u32::from(c) < 0x100 => u32::from(c) as u8,
            c => panic!("{c} is not in Windows-1252 here"),
        };
        if byte >= 0x80 || byte == b'=' {
            out.push_str(&format!("={byte:02X}"));
        } else {
            out.push(byte as char);
        }
    }
    out
}

/// Regression (issue 38): a game mailed in Latin-1 or Windows-1252, its charset declared,
/// was refused as "not UTF-8 text". Now it imports with the names intact.
#[test]
fn a_windows1252_or_latin1_game_was_refused_as_not_utf8() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Ünal", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo Škoda", "bo@example.net");
    for (id, charset, black) in
        [("ann-bo", "windows-1252", "Bo Škoda–Œster"), ("ann-bo-2", "iso-8859-1", "Bo Ørsted")]
    {
        let new = ["new", "gygax", "--white", "Ann Ünal", "--black", black, "--id", id];
        let emails = ["--white-email", "ann@example.org", "--black-email", "bo@example.net"];
        ann.ok(T0, &[&new[..], &emails[..]].concat());
        ann.ok(T0 + 10, &["move", id, "2e3"]);
        let game = ann.game(id);
        let message = format!(
            "From: Ann <ann@example.org>\r\nTo: bo@example.net\r\nSubject: [ravenpost] {id}: 1. 2e3\r\n\
             Message-ID: <{id}.1@example.org>\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nMy move.\r\n{}--b--\r\n",
            pgn_part(
                &format!("{id}.pgn"),
                &format!("; charset={charset}\r\nContent-Transfer-Encoding: quoted-printable"),
                &cp1252_quoted_printable(&game.replace('\n', "\r\n"))
            )
        );
        assert!(message.is_ascii() && !message.contains(black), "{message}");
        let f = t.path().join(format!("{id}.eml"));
        std::fs::write(&f, message).unwrap();
        let out = bo.ok(T0 + 20, &["mail", "import", "--as", black, f.to_str().unwrap()]);
        assert!(out.contains(&format!("game {id}: imported new game; ply 1 2e3 by Ann Ünal")), "{out}");
        assert_eq!(bo.game(id), game, "{charset}");
    }
}

/// TLS from the first byte (`--security tls`, SMTPS as on port 465): refused without
/// the private CA, delivered with `--ca-file`; the server got the game as committed.
#[test]
fn send_with_tls_from_the_start() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let (ca, cert, key) = test_ca(dir);
    let smtp = Smtp::start_smtps(dir, "maildir", &cert, &key);
    let ann = Player::new(dir, "ann", "Ann Example", "ann@example.org");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "tls"];
    ann.ok(T0, &[&new[..], &["--black-email", "bo@example.net"]].concat());
    ann.ok(T0 + 60, &["move", "tls", "2e3"]);
    let send = ["mail", "send", "tls", "--smtp", &smtp.addr(), "--security", "tls"];
    let err = ann.refused(T0 + 60, &send);
    assert!(
        err.contains(&format!(
            "SMTP server {}: the server's certificate is not signed by a CA this client trusts: give the CA",
            smtp.addr()
        )),
        "{err}"
    );
    assert!(err.contains("nothing was sent"), "{err}");
    assert!(smtp.messages().is_empty());
    let out = ann.ok(T0 + 120, &[&send[..], &["--ca-file", ca.to_str().unwrap()]].concat());
    assert!(out.contains(&format!("via SMTP {} (TLS)", smtp.addr())), "{out}");
    let p = parse(&smtp.newest(0));
    assert_eq!((p.message_id.as_str(), p.to.as_str()), ("tls.1@example.org", "bo@example.net"));
    assert_eq!(p.attachment.2, ann.game("tls"));
}

/// The club trial: a server's self-signed certificate, which is its own CA, given with
/// `--ca-file` was refused as `invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))`.
/// The refusal now says what is wrong and what to make instead.
#[test]
fn a_self_signed_server_certificate_was_refused_in_rustls_debug_notation() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let (cert, key) = common::smtp::self_signed_ca(dir);
    let smtp = Smtp::start_smtps(dir, "maildir", &cert, &key);
    let ann = Player::new(dir, "ann", "Ann Example", "ann@example.org");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "ss"];
    ann.ok(T0, &[&new[..], &["--black-email", "bo@example.net"]].concat());
    let send = ["mail", "send", "ss", "--smtp", &smtp.addr(), "--security", "tls", "--ca-file"];
    let err = ann.refused(T0 + 60, &[&send[..], &[cert.to_str().unwrap()]].concat());
    assert!(
        err.contains("presents a CA certificate (basicConstraints CA:TRUE) as its own")
            && err.contains("signed by it (basicConstraints CA:FALSE)")
            && !err.contains("OtherError"),
        "{err}"
    );
    assert!(smtp.messages().is_empty());
    // A CA file with no certificate in it trusted nothing, silently.
    let junk = dir.join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let o = ann.run(T0 + 60, &[&send[..], &[junk.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(2), "a usage error: {}", text(&o));
    assert!(text(&o).contains("junk.pem: no certificate in it"), "{}", text(&o));
    // TLS asked of a plain-text server: rustls's "received corrupt message of type
    // InvalidContentType" said nothing of STARTTLS.
    let plain = Smtp::start(dir, "plain", None);
    let send = ["mail", "send", "ss", "--smtp", &plain.addr(), "--security", "tls"];
    let err = ann.refused(T0 + 60, &send);
    assert!(err.contains("the server did not answer in TLS") && err.contains("--security starttls"), "{err}");
}

/// Regression (s7 trial): a server that took the connection and said nothing made `mail
/// send` wait 60 s and then print "Resource temporarily unavailable (os error 11)". Now the
/// wait is `--timeout` (or `timeout:` under mail.smtp) and the refusal says the server did
/// not answer.
#[test]
fn a_silent_smtp_server_was_reported_as_os_error_11() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "si"];
    ann.ok(T0, &[&new[..], &["--black-email", "bo@example.net"]].concat());
    // Takes connections, never answers (held until the test ends).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = silent.local_addr().unwrap().to_string();
    let held = std::thread::spawn(move || {
        // Two connections: plain text, then TLS from the start.
        let first = silent.accept().map(|(s, _)| s);
        (first, silent.accept().map(|(s, _)| s))
    });
    for security in ["none", "tls"] {
        let send = ["mail", "send", "si", "--smtp", &addr, "--security", security, "--timeout", "1"];
        let err = ann.refused(T0 + 60, &send);
        assert!(
            err.contains(&format!("SMTP server {addr} did not answer within 1 s"))
                && !err.contains("os error"),
            "{security}: {err}"
        );
    }
    drop(held.join());
    let o = ann.run(T0 + 60, &["mail", "send", "si", "--smtp", &addr, "--timeout", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    // The settings' `timeout:` is held to the flag's range (the s8 trial: 0 failed at
    // once, 99999 waited a day).
    let settings = ann.home.join("config/ravenpost");
    std::fs::create_dir_all(&settings).unwrap();
    let (host, port) = addr.split_once(':').unwrap();
    for t in ["0", "99999"] {
        let mail = format!(
            "mail:\n  smtp:\n    host: {host}\n    port: {port}\n    security: none\n    timeout: {t}\n"
        );
        std::fs::write(settings.join("config.yaml"), mail).unwrap();
        let o = ann.run(T0 + 60, &["mail", "send", "si"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(
            text(&o).contains(&format!("mail.smtp.timeout: {t} is not a number of seconds from 1 to 3600"))
        );
    }
    std::fs::remove_file(settings.join("config.yaml")).unwrap();
    // Nothing listens on the port any more: "refused or failed: Connection error:
    // Connection refused (os error 111)" said the same thing three times.
    let err = ann.refused(T0 + 60, &["mail", "send", "si", "--smtp", &addr, "--security", "none"]);
    assert!(
        err.contains(&format!("SMTP server {addr} refused the connection: nothing listens on port {port}")),
        "{err}"
    );
}

/// A home with no git identity at all (a fresh machine's).
fn home_without_identity(root: &Path, who: &str) -> PathBuf {
    let home = root.join(format!("home-{who}"));
    std::fs::create_dir_all(&home).unwrap();
    let config = "[init]\n\tdefaultBranch = main\n";
    std::fs::write(home.join("gitconfig"), config).unwrap();
    std::fs::write(home.join(".gitconfig"), config).unwrap();
    home
}

/// Regression (s4 fresh-user report (a)3): on a fresh machine (no archive, no identity)
/// `mail import` of the first move refused, saying to start a game with `new`; with an
/// archive it refused again with "you is not one of its players". Now the first import
/// makes the per-user archive, the receiving player is the one whose `WhiteEmail` or
/// `BlackEmail` tag the message was sent `To:`, and when no player can be told the
/// refusal says that no identity is set.
#[test]
fn mail_import_on_a_fresh_machine_found_no_archive_and_no_player() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "ab"];
    ann.ok(
        T0,
        &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat(),
    );
    ann.ok(T0 + 10, &["move", "ab", "2e3"]);
    let m1 = t.path().join("move1.eml");
    ann.ok(T0 + 20, &["mail", "export", "ab", "-o", m1.to_str().unwrap()]);

    let bo = home_without_identity(t.path(), "bo");
    let o = ravenpost_at(&bo, &bo, T0 + 30).args(["mail", "import", m1.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("game ab: imported new game; ply 1 2e3 by Ann Example"), "{}", text(&o));
    // In the per-user archive, as the game Ann has.
    let archive = bo.join("data/ravenpost/archive");
    // The per-user archive made on the fresh machine is new: in the fan-out.
    let path = format!("HEAD:{}", common::cli::fan_out_path("gygax", "ab"));
    assert_eq!(git(&archive, &bo, &["show", &path]), ann.game("ab"));
    // Bo plays on from there: the side to move is his, and Ann made the last step.
    let o = ravenpost_at(&bo, &bo, T0 + 40).args(["move", "ab", "Sa3b6"]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));

    // A game whose tags name no address of the message's recipient: said why.
    ann.ok(
        T0 + 50,
        &[
            "new",
            "gygax",
            "--white",
            "Ann Example",
            "--black",
            "Cy",
            "--id",
            "ac",
            "--white-email",
            "ann@example.org",
        ],
    );
    ann.ok(T0 + 60, &["move", "ac", "2e3"]);
    let m2 = t.path().join("move2.eml");
    ann.ok(T0 + 70, &["mail", "export", "ac", "--to", "Cy <cy@example.com>", "-o", m2.to_str().unwrap()]);
    let cy = home_without_identity(t.path(), "cy");
    let o = ravenpost_at(&cy, &cy, T0 + 80).args(["mail", "import", m2.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("unknown game ac: it is not in this archive, and no identity is set to say which of its players (Ann Example and Cy) you are"),
        "{err}"
    );
    assert!(err.contains("`--as NAME`") && !err.contains("you is"), "{err}");
    // Said who, it is imported.
    let o = ravenpost_at(&cy, &cy, T0 + 90)
        .args(["mail", "import", m2.to_str().unwrap(), "--as", "Cy"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// Regression (s4 fresh-user report (b)10): sending to a local server without STARTTLS
/// failed with lettre's bare "internal client error" and no way out. Now the message drops
/// that prefix and suggests `--security none` for a local or test server.
#[test]
fn starttls_refused_by_a_local_server_said_internal_client_error() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    ann.ok(T0, &["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "e"]);
    let smtp = Smtp::start(t.path(), "maildir", None);
    let server = smtp.addr();
    let err = ann.refused(T0, &["mail", "send", "e", "--to", "bo@example.net", "--smtp", server.as_str()]);
    assert!(
        err.contains(&format!("SMTP server {server} refused or failed: STARTTLS is not supported")),
        "{err}"
    );
    assert!(err.contains("pass `--security none`") && !err.contains("internal client error"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
}

// ------------------------------------------------- the NeoMutt play-through (issue 19)

/// Ann (Gold) and Bo (Scarlet) with a game `nm` between them, mailed as files.
fn two_players(root: &Path) -> (Player, Player) {
    let ann = Player::new(root, "ann", "Ann Example", "ann@example.org");
    let bo = Player::new(root, "bo", "Bo Example", "bo@example.net");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "nm"];
    ann.ok(
        T0,
        &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat(),
    );
    (ann, bo)
}

/// `mail export` of `p` into `root/<name>.eml`.
fn export(p: &Player, root: &Path, time: i64, name: &str) -> PathBuf {
    let f = root.join(format!("{name}.eml"));
    p.ok(time, &["mail", "export", "nm", "-o", f.to_str().unwrap()]);
    f
}

/// `log nm --json` as (author, what, time) per commit.
fn log_of(p: &Player, time: i64) -> Vec<(String, String, String)> {
    let log: serde_json::Value = serde_json::from_str(&p.ok(time, &["log", "nm", "--json"])).unwrap();
    log.as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let s = |k: &str| l[k].as_str().unwrap_or_default().to_string();
            (s("author"), s("what"), s("time"))
        })
        .collect()
}

/// Regression (s4 NeoMutt report, item 3): with the opponent's move the newest ply,
/// `mail send` sent that move back to him under his own Message-ID. Now it refuses (exit
/// code 1, nothing sent) and says whose step is last and what to do; the sender's own
/// steps without a move (a draw offer, a decline) are still theirs to send, also after
/// `mail export`.
#[test]
fn mail_send_after_the_opponents_move_resent_his_message() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    let smtp = Smtp::start(t.path(), "maildir", None);
    let server = smtp.addr();
    let send = ["mail", "send", "nm", "--smtp", server.as_str(), "--security", "none"];
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    let out = ann.ok(T0 + 20, &send);
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "a line of the report wider than 80 columns: {line:?}");
    }
    assert!(out.contains("\n  [ravenpost] nm: 1. 2e3\n  (Message-ID <nm.1@example.org>)"), "{out}");
    bo.ok(T0 + 30, &["mail", "import", smtp.newest(0).to_str().unwrap()]);
    bo.ok(T0 + 40, &["move", "nm", "Sa3b6"]);
    bo.ok(T0 + 50, &send);
    ann.ok(T0 + 60, &["mail", "import", smtp.newest(1).to_str().unwrap()]);

    // Bo's move is the newest step in Ann's archive: nothing of hers to send.
    let err = ann.refused(T0 + 70, &send);
    assert_eq!(
        err,
        "ravenpost: nm: nothing of Ann Example's to send: the last step is Bo Example's (ply 2 Sa3b6); \
         play your move first (`ravenpost move nm MOVE`), then `ravenpost mail send nm`\n",
    );
    assert_eq!(smtp.messages().len(), 2, "nothing was sent");
    // The same in Bo's archive, asked as Ann; Bo himself still may (his move is the last).
    let err = bo.refused(T0 + 70, &[&send[..], &["--as", "Ann Example"]].concat());
    assert!(err.contains("nothing of Ann Example's to send: the last step is Bo Example's"), "{err}");
    assert_eq!(smtp.messages().len(), 2);
    // The help says so, with the exit code.
    let help = ann.ok(T0, &["mail", "send", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("the last step is the opponent's, nothing is sent and the exit code is 1"),
        "{help}"
    );

    // Ann's own draw offer (before her move) is hers to send, after `mail export` too, and
    // goes under an id of its own.
    ann.ok(T0 + 80, &["draw", "offer", "nm"]);
    export(&ann, t.path(), T0 + 85, "offer");
    ann.ok(T0 + 90, &send);
    let offer = parse(&smtp.newest(2));
    assert_ne!(offer.message_id, "nm.2@example.net", "never the opponent's id");
    assert!(offer.subject.contains("Ann Example (Gold) offers a draw"), "{}", offer.subject);
    // In Bo's archive the offer is Ann's, the last step: nothing of his to send; he waits.
    bo.ok(T0 + 100, &["mail", "import", smtp.newest(2).to_str().unwrap()]);
    let err = bo.refused(T0 + 105, &send);
    assert!(
        err.contains("nothing of Bo Example's to send: the last step is Ann Example's (Gold offers a draw); wait for Ann Example's move"),
        "{err}"
    );
    // Ann moves with her offer; Bo declines it: his decline is his to send.
    ann.ok(T0 + 110, &["move", "nm", "2f3"]);
    ann.ok(T0 + 115, &send);
    bo.ok(T0 + 120, &["mail", "import", smtp.newest(3).to_str().unwrap()]);
    bo.ok(T0 + 125, &["draw", "decline", "nm"]);
    bo.ok(T0 + 130, &send);
    let decline = parse(&smtp.newest(4));
    assert!(decline.subject.contains("Bo Example (Scarlet) declines the draw"), "{}", decline.subject);
}

/// Regression (s4 NeoMutt report, item 5): Bo declined Ann's draw offer (one message),
/// then moved (a second); Ann imported the move first and the decline then was "nothing
/// new", so her history lacked the decline that Bo's has. Now the move's message names
/// the decline (`X-Ravenpost-Declined-Before`), the import records it first, as Bo's
/// archive has it, and the late decline is "already in the archive"; in the other order
/// both are imported. Either way the three histories are the same steps by the same
/// players at the same move times.
#[test]
fn a_decline_imported_after_the_next_move_vanished() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["draw", "offer", "nm"]);
    ann.ok(T0 + 20, &["move", "nm", "2e3"]);
    let offer = export(&ann, t.path(), T0 + 30, "offer");
    bo.ok(T0 + 40, &["mail", "import", offer.to_str().unwrap()]);
    bo.ok(T0 + 50, &["draw", "decline", "nm"]);
    let decline = export(&bo, t.path(), T0 + 60, "decline");
    bo.ok(T0 + 70, &["move", "nm", "Sa3b6"]);
    let moved = export(&bo, t.path(), T0 + 80, "moved");
    let raw = std::fs::read_to_string(&moved).unwrap();
    assert!(raw.contains("\r\nX-Ravenpost-Declined-Before: 2\r\n"), "{raw}");

    // A second copy of Ann's archive as it is now, for the other order.
    let copy = t.path().join("archive-ann-copy");
    git(t.path(), &ann.home, &["clone", "-q", ann.archive.to_str().unwrap(), copy.to_str().unwrap()]);
    let ann2 = Player { home: ann.home.clone(), archive: copy };

    // A third copy gets the move's message as an older ravenpost sent it, without the
    // header: the late decline is then nothing new, and said why.
    let copy = t.path().join("archive-ann-old");
    git(t.path(), &ann.home, &["clone", "-q", ann.archive.to_str().unwrap(), copy.to_str().unwrap()]);
    let ann3 = Player { home: ann.home.clone(), archive: copy };
    let old = t.path().join("moved-old.eml");
    std::fs::write(&old, raw.replace("X-Ravenpost-Declined-Before: 2\r\n", "")).unwrap();
    let out = ann3.ok(T0 + 900, &["mail", "import", old.to_str().unwrap()]);
    assert!(out.contains("game nm: imported ply 2 Sa3b6 by Bo Example\n"), "{out}");
    let out = ann3.ok(T0 + 910, &["mail", "import", decline.to_str().unwrap()]);
    assert!(
        out.contains(
            "game nm: nothing new (Bo Example (Scarlet) declines the draw after ply 1, but the archive is at \
             ply 2: the move that followed ended the offer too)"
        ),
        "{out}"
    );

    // The move first, then the decline.
    let out = ann.ok(T0 + 1000, &["mail", "import", moved.to_str().unwrap()]);
    assert!(
        out.contains("game nm: imported Bo Example (Scarlet) declines the draw, ply 2 Sa3b6 by Bo Example\n"),
        "{out}"
    );
    let out = ann.ok(T0 + 1100, &["mail", "import", decline.to_str().unwrap()]);
    assert!(
        out.contains("game nm: nothing new (already in the archive: Bo Example (Scarlet) declines the draw, before ply 2)"),
        "{out}"
    );
    // The decline first, then the move.
    let out = ann2.ok(T0 + 2000, &["mail", "import", decline.to_str().unwrap()]);
    assert!(out.contains("game nm: imported: Bo Example (Scarlet) declines the draw\n"), "{out}");
    let out = ann2.ok(T0 + 2100, &["mail", "import", moved.to_str().unwrap()]);
    assert!(out.contains("game nm: imported ply 2 Sa3b6 by Bo Example\n"), "{out}");

    let steps = |p: &Player| -> Vec<(String, String)> {
        log_of(p, T0 + 3000).into_iter().map(|(who, what, _)| (who, what)).collect()
    };
    let bos = steps(&bo);
    assert_eq!(
        bos.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>(),
        ["created", "Gold offers a draw (*)", "ply 1 2e3", "Scarlet declines the draw (*)", "ply 2 Sa3b6"],
    );
    assert_eq!(steps(&ann), bos, "the move first: the same history as Bo's");
    assert_eq!(steps(&ann2), bos, "the decline first: the same history as Bo's");
    // The moves' commits carry the move times both players' logs show.
    let ply_times = |p: &Player| -> Vec<String> {
        log_of(p, T0 + 3000)
            .into_iter()
            .filter(|(_, w, _)| w.starts_with("ply "))
            .map(|(_, _, t)| t)
            .collect()
    };
    assert_eq!(ply_times(&ann), ply_times(&bo));
    assert_eq!(ply_times(&ann2), ply_times(&bo));
    for p in [&ann, &ann2, &bo] {
        assert!(p.ok(T0 + 3000, &["verify"]).contains("1 game verified, 0 problems"));
        assert_eq!(p.game("nm"), bo.game("nm"));
    }
}

/// Regression (s4 NeoMutt report, item 16): an imported move's commit was dated at the
/// import, so the two players' `log`s gave different times for the same move. Now the
/// commit's author time is the move's recorded time (what the clock already uses); the
/// committer's time stays the arrival, and a move dated after its arrival is still
/// refused (the tampered cases of `a_game_by_email_through_a_local_smtp_server`).
#[test]
fn an_imported_moves_commit_time_was_the_import_time() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    let m = export(&ann, t.path(), T0 + 200, "m1");
    bo.ok(T0 + 5000, &["mail", "import", m.to_str().unwrap()]);
    let times = bo.git(&["log", "-1", "--format=%at %ct", "main"]);
    assert_eq!(
        times.trim(),
        format!("{} {}", T0 + 100, T0 + 5000),
        "author: the move; committer: the arrival"
    );
    let ann_log = ann.git(&["log", "-1", "--format=%at", "main"]);
    assert_eq!(ann_log.trim(), (T0 + 100).to_string());
    let last = |p: &Player| log_of(p, T0 + 6000).pop().unwrap();
    assert_eq!(last(&bo), last(&ann), "the same ply, author and time in both logs");
}

/// Regression (s4 NeoMutt report, item 4): NeoMutt started outside the archive piped a
/// message into `mail import -`; the import was refused, yet the per-user archive was
/// made, and the refusal spoke of "your archive" without saying which. Now nothing is left
/// on disk when nothing is committed, and the refusal names the archive's directory.
#[test]
fn a_refused_import_made_the_per_user_archive() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    let m1 = export(&ann, t.path(), T0 + 20, "m1");
    bo.ok(T0 + 30, &["mail", "import", m1.to_str().unwrap()]);
    bo.ok(T0 + 40, &["move", "nm", "Sa3b6"]);
    let m2 = export(&bo, t.path(), T0 + 50, "m2");
    ann.ok(T0 + 60, &["mail", "import", m2.to_str().unwrap()]);
    ann.ok(T0 + 70, &["move", "nm", "2f3"]);
    let m3 = export(&ann, t.path(), T0 + 80, "m3");

    // Bo's mail client, started in his home: no archive there, no per-user archive yet.
    let per_user = bo.home.join("data/ravenpost/archive");
    assert!(!per_user.exists());
    let o = ravenpost_at(&bo.home, &bo.home, T0 + 90)
        .args(["mail", "import", m3.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "ply 2 (Sa3b6) is played for Bo Example, you, but your archive ({}) does not have it",
            per_user.display()
        )),
        "{err}"
    );
    assert!(err.contains(&format!("no archive was made at {}", per_user.display())), "{err}");
    assert!(!per_user.exists(), "nothing on disk: {:?}", std::fs::read_dir(bo.home.join("data")).ok());
    assert!(!bo.home.join("data/ravenpost").exists(), "not even its parent");
    // In his own archive the same message is imported.
    let out = bo.ok(T0 + 100, &["mail", "import", m3.to_str().unwrap()]);
    assert!(out.contains("imported ply 3 2f3 by Ann Example"), "{out}");
}

/// Regressions (s4 NeoMutt report, items 9, 10, 11 and 16): the body put the boards first
/// (46 lines: the essentials on a second 40-row pager screen); a declined draw's message
/// told the reader to move, though the decliner is still to move; a draw offer's message
/// said nowhere how to answer it, nor did its subject or the moves mention it; the body
/// said `Gold offers a draw.` where the rest of it names the players. Now the essentials
/// come first, the decline says to wait, the offer says how to answer, is in the subject
/// and marked `(=)` in the moves, and sides are named with their players.
#[test]
fn a_declined_draws_mail_told_the_receiver_to_move() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["draw", "offer", "nm"]);
    ann.ok(T0 + 20, &["move", "nm", "2e3"]);
    let offer = export(&ann, t.path(), T0 + 30, "offer");
    let p = parse(&offer);
    assert_eq!(p.subject, "[ravenpost] nm: 1. 2e3 (draw offered)");
    let words = p.body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "Ann Example (Gold) offers a draw: accept it with `ravenpost draw accept nm` or \
             decline it with `ravenpost draw decline nm` (playing a move instead declines it \
             too), then answer with `ravenpost mail send nm`."
        ),
        "{}",
        p.body
    );
    let body = p.body.replace("\r\n", "\n");
    assert!(body.contains("Moves:\n1. 2e3 (=) *\n(=): a draw offer made with the move\n"), "{body}");
    let raw = std::fs::read_to_string(&offer).unwrap();
    assert!(raw.contains("\r\nList-Id: <nm.gygax.ravenpost>\r\n"), "{raw}");
    // The essentials within a 40-row screen: whose move and the move, how to answer, the
    // board (10 lines, compact), then the players, the last move and whose turn it is.
    let lines: Vec<&str> = p.body.lines().collect();
    let at =
        |s: &str| lines.iter().position(|l| l.starts_with(s)).unwrap_or_else(|| panic!("{s}: {}", p.body));
    assert_eq!(lines[0], "Game nm: Bo Example (Scarlet) to move after 1. 2e3.", "{}", p.body);
    assert!(lines[1].starts_with("To answer: pipe this mail into `ravenpost mail import -`"), "{}", p.body);
    let first_board = lines.iter().position(|l| l.trim_start().starts_with("Air (3)")).expect("a board");
    assert_eq!(first_board, 3, "{}", p.body);
    for essential in
        ["Last move: 1. 2e3 by Ann Example (ply 1)", "Scarlet to move (move 1): Bo Example.", "Moves:"]
    {
        assert!(at(essential) > first_board && at(essential) < 38, "{essential}\n{}", p.body);
    }
    assert!(at("To take the move into your archive, pipe this message") < 38, "{}", p.body);

    bo.ok(T0 + 40, &["mail", "import", offer.to_str().unwrap()]);
    bo.ok(T0 + 50, &["draw", "decline", "nm"]);
    let decline = parse(&export(&bo, t.path(), T0 + 60, "decline"));
    let words = decline.body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("then wait for Bo Example's move: Bo Example (Scarlet) is to move, not you."),
        "{}",
        decline.body
    );
    assert!(!words.contains("then play with"), "{}", decline.body);
    // Past the offer, Bo's next move message still shows where it was made.
    bo.ok(T0 + 70, &["move", "nm", "Sa3b6"]);
    let moved = parse(&export(&bo, t.path(), T0 + 80, "moved"));
    let body = moved.body.replace("\r\n", "\n");
    assert!(body.contains("Moves:\n1. 2e3 (=) Sa3b6 *\n"), "{body}");
    assert_eq!(moved.subject, "[ravenpost] nm: 1... Sa3b6");
}

/// Regression (found fixing item 3 of the s4 NeoMutt report): Ann offered a draw on its
/// own and mailed it; Bo imported it; the message of Ann's next move, which carries the
/// offer, was then refused ("you have already offered a draw"), the import making the
/// offer a second time. Now an offer the archive already has is not made again.
#[test]
fn an_offer_mailed_alone_made_the_next_moves_message_refused() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    bo.ok(T0 + 20, &["mail", "import", export(&ann, t.path(), T0 + 15, "m1").to_str().unwrap()]);
    bo.ok(T0 + 30, &["move", "nm", "Sa3b6"]);
    ann.ok(T0 + 40, &["mail", "import", export(&bo, t.path(), T0 + 35, "m2").to_str().unwrap()]);
    ann.ok(T0 + 50, &["draw", "offer", "nm"]);
    let offer = export(&ann, t.path(), T0 + 55, "offer");
    let out = bo.ok(T0 + 60, &["mail", "import", offer.to_str().unwrap()]);
    assert!(out.contains("game nm: imported: Ann Example (Gold) offers a draw\n"), "{out}");
    ann.ok(T0 + 70, &["move", "nm", "2f3"]);
    let moved = export(&ann, t.path(), T0 + 75, "moved");
    let out = bo.ok(T0 + 80, &["mail", "import", moved.to_str().unwrap()]);
    assert!(out.contains("game nm: imported ply 3 2f3 by Ann Example\n"), "{out}");
    assert_eq!(bo.game("nm"), ann.game("nm"));
    assert!(bo.ok(T0 + 90, &["status"]).contains("draw offered by Ann Example (Gold)"));
    let whats = |p: &Player| log_of(p, T0 + 90).into_iter().map(|(_, w, _)| w).collect::<Vec<_>>();
    assert_eq!(whats(&bo), whats(&ann));
}

/// A message as a mail client pipes it: an mbox of one (`From ` line first).
fn mbox_of_one(message: &Path) -> PathBuf {
    let mut bytes = b"From MAILER-DAEMON Tue Dec  1 18:43:33 2026\n".to_vec();
    bytes.extend(std::fs::read(message).unwrap());
    let f = message.with_extension("mbox");
    std::fs::write(&f, bytes).unwrap();
    f
}

/// Regressions (s5 NeoMutt report, N4 and N11): a first import into the per-user
/// archive, made for it because the mail client did not run in an archive, succeeded
/// without a word of where the game went; and the commit said `(from mail message 1
/// <…>)` for the one message a mail client pipes (an mbox of one). Now standard error
/// names the archive made, and the commit names the message by its Message-ID only.
#[test]
fn a_first_import_into_a_made_archive_did_not_say_where() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    let m1 = mbox_of_one(&export(&ann, t.path(), T0 + 20, "m1"));
    let per_user = bo.home.join("data/ravenpost/archive");
    assert!(!per_user.exists());
    let o = ravenpost_at(&bo.home, &bo.home, T0 + 30)
        .args(["mail", "import", m1.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(out.contains(": game nm: imported new game; ply 1 2e3 by Ann Example"), "{out}");
    assert!(!out.contains("message 1"), "{out}");
    assert!(
        err.contains(&format!("ravenpost: imported into the archive at {}, made for it", per_user.display())),
        "{err}"
    );
    let subjects = git(&per_user, &bo.home, &["log", "--format=%s"]);
    assert!(subjects.contains("nm: ply 1 2e3 (from mail <nm.1@example.org>)"), "{subjects}");
    assert!(!subjects.contains("message 1"), "{subjects}");
    // Into an archive that exists, nothing is said of where.
    let o = bo.run(T0 + 40, &["mail", "import", m1.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("made for it"), "{}", text(&o));
}

/// Regressions (s5 NeoMutt report, N5, N10, N11 and item 16): the body's import tip did
/// not mention `--archive DIR`; its 78-column wrapping split commands inside their
/// backticks (`ravenpost draw accept` / `nm``); a draw offer's answer came before how to
/// import the move; the end said `(Scarlet resigns.).`, with no player's name.
#[test]
fn mail_bodies_split_backticked_commands_and_doubled_punctuation() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["draw", "offer", "nm"]);
    ann.ok(T0 + 20, &["move", "nm", "2e3"]);
    let offer = export(&ann, t.path(), T0 + 30, "offer");
    let body = parse(&offer).body.replace("\r\n", "\n");
    for line in body.lines() {
        assert!(line.chars().count() <= 78, "{line:?}");
        assert_eq!(line.matches('`').count() % 2, 0, "a command split across lines: {line:?}\n{body}");
    }
    let words = body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "pipe this message into `ravenpost mail import -` (with `--archive DIR` when your mail \
             client does not run in your archive;"
        ),
        "{body}"
    );
    assert!(
        body.lines()
            .any(|l| l.ends_with("`ravenpost draw accept nm`") || l.contains("`ravenpost draw accept nm`"))
    );
    let at = |s: &str| words.find(s).unwrap_or_else(|| panic!("{s}: {body}"));
    assert!(at("To take the move into your archive") < at("offers a draw: accept it with"), "{body}");

    bo.ok(T0 + 40, &["mail", "import", offer.to_str().unwrap()]);
    bo.ok(T0 + 50, &["resign", "nm"]);
    let end = parse(&export(&bo, t.path(), T0 + 60, "end")).body.replace("\r\n", "\n");
    let words = end.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("The game has ended: 1-0 (Bo Example (Scarlet) resigns)."), "{end}");
    assert!(!end.contains(".)."), "{end}");
}

/// Regression (s5 NeoMutt report, N3 / item 12): importing a resignation or an accepted
/// draw said `imported recorded; result 1/2-1/2: Bo Example (Scarlet) accepts the draw`.
/// Now it says what was imported, then the result.
#[test]
fn import_summary_of_an_accepted_draw_said_imported_recorded() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 10, &["draw", "offer", "nm"]);
    ann.ok(T0 + 20, &["move", "nm", "2e3"]);
    let offer = export(&ann, t.path(), T0 + 30, "offer");
    bo.ok(T0 + 40, &["mail", "import", offer.to_str().unwrap()]);
    bo.ok(T0 + 50, &["draw", "accept", "nm"]);
    let accept = export(&bo, t.path(), T0 + 60, "accept");
    let out = ann.ok(T0 + 70, &["mail", "import", accept.to_str().unwrap()]);
    assert!(
        out.contains("game nm: imported: Bo Example (Scarlet) accepts the draw; result 1/2-1/2\n"),
        "{out}"
    );
    assert!(!out.contains("recorded"), "{out}");
}

/// Regression (s5 NeoMutt report, N11): `mail send` of a step already sent (after one's
/// own resignation, say) sent it again under the same Message-ID, and said `Sent` as for
/// a new message. The Message-ID stays (it is the same step); the report says it is a
/// resend.
#[test]
fn a_resend_did_not_say_it_was_one() {
    let t = tempfile::tempdir().unwrap();
    let (ann, _bo) = two_players(t.path());
    let smtp = Smtp::start(t.path(), "maildir", None);
    let server = smtp.addr();
    let send = ["mail", "send", "nm", "--smtp", server.as_str(), "--security", "none"];
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    let first = ann.ok(T0 + 20, &send);
    assert!(first.starts_with("Sent nm ply 1 to Bo Example"), "{first}");
    assert!(first.contains("(Message-ID <nm.1@example.org>)"), "{first}");
    let again = ann.ok(T0 + 30, &send);
    assert!(again.starts_with("Sent again: nm ply 1 to Bo Example"), "{again}");
    assert!(again.contains("(Message-ID <nm.1@example.org>, as before: a resend)"), "{again}");
    assert_eq!(parse(&smtp.newest(1)).message_id, "nm.1@example.org", "the same Message-ID");
}

/// `git log` of `p`'s branch: author, author email and time, committer, committer email
/// and time, subject; newest first.
fn names_and_times(p: &Player) -> Vec<String> {
    p.git(&["log", "--format=%an|%ae|%at|%cn|%ce|%ct|%s", "main"]).lines().map(str::to_string).collect()
}

/// Regression (s6 play-through, item 1): `mail import` committed each imported step with
/// the sender as committer too, as if the opponent had committed in the importer's
/// archive. Now a step is its player's as author (at the move's recorded time) and the
/// importer's as committer (at the arrival), as `move` names a step played for another;
/// `verify` judges both archives as before.
#[test]
fn mail_import_committed_with_the_sender_as_committer() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    let m1 = export(&ann, t.path(), T0 + 200, "m1");
    bo.ok(T0 + 5000, &["mail", "import", m1.to_str().unwrap()]);
    let bos = names_and_times(&bo);
    assert_eq!(
        bos[0],
        format!(
            "Ann Example|ann@example.org|{}|Bo Example|bo@example.net|{}|nm: ply 1 2e3 (from mail <nm.1@example.org>)",
            T0 + 100,
            T0 + 5000
        ),
        "{bos:#?}"
    );
    // The creation the message implies is Ann's too, committed by Bo at the arrival.
    assert!(
        bos[1].starts_with("Ann Example|ann@example.org|")
            && bos[1].ends_with(&format!(
                "|Bo Example|bo@example.net|{}|nm: new game from mail <nm.1@example.org>",
                T0 + 5000
            )),
        "{bos:#?}"
    );
    // Bo's reply, imported by Ann: his, committed by her. On his side his own move names
    // him twice, as `move` does.
    bo.ok(T0 + 6000, &["move", "nm", "Sa3b6"]);
    let own = &names_and_times(&bo)[0];
    assert!(
        own.starts_with(&format!(
            "Bo Example|bo@example.net|{t}|Bo Example|bo@example.net|{t}|nm: ply 2 Sa3b6",
            t = T0 + 6000
        )),
        "{own}"
    );
    let m2 = export(&bo, t.path(), T0 + 6100, "m2");
    ann.ok(T0 + 9000, &["mail", "import", m2.to_str().unwrap()]);
    assert_eq!(
        names_and_times(&ann)[0],
        format!(
            "Bo Example|bo@example.net|{}|Ann Example|ann@example.org|{}|nm: ply 2 Sa3b6 (from mail <nm.2@example.net>)",
            T0 + 6000,
            T0 + 9000
        )
    );
    // The referee reads authors and their times: the verdicts and the plies' lines agree.
    for p in [&ann, &bo] {
        assert!(p.ok(T0 + 9000, &["verify"]).contains("1 game verified, 0 problems"));
    }
    let plies = |p: &Player| -> Vec<(String, String, String)> {
        log_of(p, T0 + 9000).into_iter().filter(|(_, w, _)| w.starts_with("ply ")).collect()
    };
    assert_eq!(plies(&ann), plies(&bo));
    assert_eq!(plies(&ann).len(), 2);
}

/// Regression (s6 play-through): after the first import of a new game the importer's
/// `log` had the game's creation (dated at the arrival) later than ply 1 (dated at the
/// move's recorded time), so the archive's `log`, in time order, listed `created` after
/// ply 1. Now the creation a message implies takes its first move's time (the arrival's
/// when that is earlier); the committer's time stays the arrival.
#[test]
fn a_game_created_by_mail_import_was_logged_after_its_first_move() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    let m1 = export(&ann, t.path(), T0 + 200, "m1");
    bo.ok(T0 + 5000, &["mail", "import", m1.to_str().unwrap()]);
    let times = bo.git(&["log", "--format=%at %ct %s", "main", "--", "games"]);
    assert_eq!(
        times.lines().collect::<Vec<_>>(),
        [
            format!("{} {} nm: ply 1 2e3 (from mail <nm.1@example.org>)", T0 + 100, T0 + 5000),
            format!("{} {} nm: new game from mail <nm.1@example.org>", T0 + 100, T0 + 5000),
        ]
    );
    let game = log_of(&bo, T0 + 5000);
    assert_eq!(game.iter().map(|(_, w, _)| w.as_str()).collect::<Vec<_>>(), ["created", "ply 1 2e3"]);
    assert_eq!(game[0].2, game[1].2, "the creation at the first move's time");
    // The whole archive's log, in time order: the creation first.
    let all: serde_json::Value = serde_json::from_str(&bo.ok(T0 + 5000, &["log", "--json"])).unwrap();
    let whats: Vec<&str> = all.as_array().unwrap().iter().map(|e| e["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["created", "ply 1 2e3"]);
    let text = bo.ok(T0 + 5000, &["log"]);
    let created = text.lines().position(|l| l.ends_with(" created")).unwrap();
    let ply = text.lines().position(|l| l.ends_with(" ply 1 2e3")).unwrap();
    assert!(created < ply, "{text}");
    assert!(bo.ok(T0 + 5000, &["verify"]).contains("1 game verified, 0 problems"));
    // A message without a move: the creation keeps the arrival time.
    let (cy, di) = (
        Player::new(t.path(), "cy", "Cy Example", "cy@example.org"),
        Player::new(t.path(), "di", "Di Example", "di@example.net"),
    );
    let new = ["new", "gygax", "--white", "Di Example", "--black", "Cy Example", "--id", "cd"];
    cy.ok(T0, &[&new[..], &["--white-email", "di@example.net", "--black-email", "cy@example.org"]].concat());
    let m = t.path().join("cd.eml");
    cy.ok(T0 + 10, &["mail", "export", "cd", "-o", m.to_str().unwrap()]);
    di.ok(T0 + 700, &["mail", "import", m.to_str().unwrap()]);
    assert_eq!(
        di.git(&["log", "-1", "--format=%at %ct", "main"]).trim(),
        format!("{} {}", T0 + 700, T0 + 700)
    );
}

/// Regression (s6 play-through, item 2): `mail export` right after importing the
/// opponent's move wrote that move's message again as the importer's, under the
/// opponent's Message-ID. Now it refuses as `mail send` does (exit code 1, nothing
/// written, the same words, naming `mail export`); `--as` the opponent still writes the
/// opponent's own message (a copy for a third party), and the importer's next step is
/// his to export.
#[test]
fn mail_export_wrote_the_opponents_step_under_his_message_id() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    let m1 = export(&ann, t.path(), T0 + 200, "m1");
    bo.ok(T0 + 5000, &["mail", "import", m1.to_str().unwrap()]);
    let f = t.path().join("not-his.eml");
    let err = bo.refused(T0 + 5100, &["mail", "export", "nm", "-o", f.to_str().unwrap()]);
    assert_eq!(
        err,
        "ravenpost: nm: nothing of Bo Example's to send: the last step is Ann Example's (ply 1 2e3); play \
         your move first (`ravenpost move nm MOVE`), then `ravenpost mail export nm` (to write Ann Example's \
         own message, add `--as \"Ann Example\"`)\n"
    );
    assert!(!f.exists(), "nothing written");
    let o = bo.run(T0 + 5100, &["mail", "export", "nm"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(o.stdout.is_empty(), "nothing on standard output: {}", text(&o));
    // Named, Ann's message is written as she sent it.
    let copy = t.path().join("copy.eml");
    bo.ok(T0 + 5200, &["mail", "export", "nm", "--as", "Ann Example", "-o", copy.to_str().unwrap()]);
    let (sent, copied) = (parse(&m1), parse(&copy));
    assert_eq!(copied.message_id, "nm.1@example.org");
    assert_eq!((copied.from.as_str(), copied.to.as_str()), ("ann@example.org", "bo@example.net"));
    assert_eq!(copied.attachment.2, sent.attachment.2);
    // His own move is his to export.
    bo.ok(T0 + 6000, &["move", "nm", "Sa3b6"]);
    assert_eq!(parse(&export(&bo, t.path(), T0 + 6100, "m2")).message_id, "nm.2@example.net");
    let help = bo.ok(T0, &["mail", "export", "--help"]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(help.contains("nothing is written and the exit code is 1"), "{help}");
    assert!(help.contains("`--as NAME` writes NAME's message whatever the last step"), "{help}");
}

/// Regression (s6 play-through, item 7): `ravenpost mail --help` did not say where your
/// own mail settings live nor name their keys. Now its long help does; the example it
/// gives is a settings file ravenpost reads (each key it names is a real one).
#[test]
fn mail_help_omitted_the_personal_settings() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let help = ann.ok(T0, &["mail", "--help"]);
    for said in [
        "~/.config/ravenpost/config.yaml",
        "$RAVENPOST_CONFIG",
        "$RAVENPOST_SMTP_PASSWORD",
        "identity:",
        "smtp:",
        "host:",
        "port:",
        "security:",
        "user:",
        "password-env:",
        "ca-file:",
        "sendmail:",
    ] {
        assert!(help.contains(said), "{said} in: {help}");
    }
    // The example, without its right-hand notes, as a settings file: read without error.
    let start = help.find("  identity:").unwrap();
    let end = help[start..].find("\n\n").map_or(help.len(), |e| start + e);
    let yaml: String = help[start..end]
        .lines()
        .map(|l| {
            let indent = l.len() - l.trim_start().len();
            let rest = &l[indent..];
            let value = rest.find("  ").map_or(rest, |i| &rest[..i]);
            format!("{}{value}\n", &l[..indent])
        })
        .collect();
    let file = t.path().join("settings.yaml");
    std::fs::write(&file, &yaml).unwrap();
    let o = ravenpost_at(&ann.home, &ann.home, T0)
        .env("RAVENPOST_CONFIG", &file)
        .args(["--archive", ann.archive.to_str().unwrap(), "status"])
        .output()
        .unwrap();
    assert!(o.status.success(), "the help's example is a settings file:\n{yaml}\n{}", text(&o));
    // A key the settings do not have is refused, so the check above can fail.
    std::fs::write(&file, yaml.replace("password-env:", "password-variable:")).unwrap();
    let o = ravenpost_at(&ann.home, &ann.home, T0)
        .env("RAVENPOST_CONFIG", &file)
        .args(["--archive", ann.archive.to_str().unwrap(), "status"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// Regression (s6 play-through, item 3): the first mailed move's `In-Reply-To` and every
/// later message's `References` named `<game>.0@…`, the new game's message, which was
/// never sent when the game's creator moved first (NeoMutt shows the thread as broken).
/// Now a reply names only messages that were sent: the first move's message is the
/// thread's root when its mover created the game; when the other player created it (and
/// so mailed the new game), ply 1 still answers that message.
#[test]
fn the_first_mailed_move_replied_to_a_message_never_sent() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    let mut sent: Vec<Parsed> = Vec::new();
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    sent.push(parse(&export(&ann, t.path(), T0 + 110, "m1")));
    bo.ok(T0 + 200, &["mail", "import", t.path().join("m1.eml").to_str().unwrap()]);
    bo.ok(T0 + 300, &["move", "nm", "Sa3b6"]);
    sent.push(parse(&export(&bo, t.path(), T0 + 310, "m2")));
    ann.ok(T0 + 400, &["mail", "import", t.path().join("m2.eml").to_str().unwrap()]);
    ann.ok(T0 + 500, &["move", "nm", "2f3"]);
    sent.push(parse(&export(&ann, t.path(), T0 + 510, "m3")));
    assert_eq!((sent[0].message_id.as_str(), sent[0].in_reply_to.as_deref()), ("nm.1@example.org", None));
    assert!(sent[0].references.is_empty(), "{:?}", sent[0].references);
    assert_eq!(sent[1].in_reply_to.as_deref(), Some("nm.1@example.org"));
    assert_eq!(sent[1].references, ["nm.1@example.org"]);
    assert_eq!(sent[2].in_reply_to.as_deref(), Some("nm.2@example.net"));
    assert_eq!(sent[2].references, ["nm.1@example.org", "nm.2@example.net"]);

    // Bo creates a game in which Ann moves first: he mails the new game, ply 1 answers it.
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "bn"];
    bo.ok(T0, &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat());
    let f0 = t.path().join("bn0.eml");
    bo.ok(T0 + 10, &["mail", "export", "bn", "-o", f0.to_str().unwrap()]);
    let created = parse(&f0);
    assert_eq!((created.message_id.as_str(), created.in_reply_to.as_deref()), ("bn.0@example.net", None));
    ann.ok(T0 + 20, &["mail", "import", f0.to_str().unwrap()]);
    ann.ok(T0 + 30, &["move", "bn", "2e3"]);
    let f1 = t.path().join("bn1.eml");
    ann.ok(T0 + 40, &["mail", "export", "bn", "-o", f1.to_str().unwrap()]);
    let first = parse(&f1);
    assert_eq!(first.in_reply_to.as_deref(), Some("bn.0@example.net"));
    assert_eq!(first.references, ["bn.0@example.net"]);
    bo.ok(T0 + 50, &["mail", "import", f1.to_str().unwrap()]);
    bo.ok(T0 + 60, &["move", "bn", "Sa3b6"]);
    let f2 = t.path().join("bn2.eml");
    bo.ok(T0 + 70, &["mail", "export", "bn", "-o", f2.to_str().unwrap()]);
    assert_eq!(parse(&f2).references, ["bn.0@example.net", "bn.1@example.org"]);
    sent.extend([created, first, parse(&f2)]);

    // Every message a header names was sent.
    let ids: Vec<&str> = sent.iter().map(|m| m.message_id.as_str()).collect();
    for m in &sent {
        for named in m.in_reply_to.iter().chain(&m.references) {
            assert!(ids.contains(&named.as_str()), "{} names {named}, never sent: {ids:?}", m.message_id);
        }
    }
}

// ------------------------------------------- forged and malformed messages (issue 29)

/// The headers of Ann's message of ply 1 of game `nm` (as `mail export` writes them, less
/// the MIME ones).
const ANN_PLY_1: [&str; 5] = [
    "From: Ann Example <ann@example.org>",
    "To: Bo Example <bo@example.net>",
    "Subject: [ravenpost] nm: 1. 2e3",
    "Message-ID: <nm.1@example.org>",
    "X-Ravenpost-Game: gygax/nm",
];

/// `headers` with each change made: `("Name", Some(value))` replaces the header `Name`
/// (or adds it when missing), `("Name", None)` removes it, and `("+Name", Some(value))`
/// adds another `Name` header.
fn changed(headers: &[impl AsRef<str>], changes: &[(&str, Option<&str>)]) -> Vec<String> {
    let mut out: Vec<String> = headers.iter().map(|h| h.as_ref().to_string()).collect();
    for (name, value) in changes {
        if let Some(extra) = name.strip_prefix('+') {
            out.push(format!("{extra}: {}", value.unwrap()));
            continue;
        }
        let at = out.iter().position(|h| h.split_once(':').unwrap().0.eq_ignore_ascii_case(name));
        match (at, value) {
            (Some(i), Some(v)) => out[i] = format!("{name}: {v}"),
            (Some(i), None) => drop(out.remove(i)),
            (None, Some(v)) => out.push(format!("{name}: {v}")),
            (None, None) => {}
        }
    }
    out
}

/// A message with `headers`, a text part and each of `games` (file name, game file) as a
/// 7-bit attachment.
fn game_message(headers: &[String], games: &[(&str, &str)]) -> String {
    let mut m: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    m.push_str(
        "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\nMy move.\r\n",
    );
    for (name, game) in games {
        m.push_str(&pgn_part(name, "", &game.replace('\n', "\r\n")));
    }
    m.push_str("--b--\r\n");
    m
}

/// Each of `cases` (a name, the message, the reason expected) imported by `p` is refused
/// with that reason, and nothing is committed.
fn each_refused(p: &Player, root: &Path, time: i64, cases: &[(&str, Vec<u8>, String)]) {
    let head = p.head();
    for (name, message, why) in cases {
        let f = root.join(format!("{name}.eml"));
        std::fs::write(&f, message).unwrap();
        let err = p.refused(time, &["mail", "import", f.to_str().unwrap()]);
        assert!(err.contains("refused, nothing committed: "), "{name}: {err}");
        assert!(err.contains(why.as_str()), "{name}: expected {why:?} in\n{err}");
        assert_eq!(p.head(), head, "{name}: the branch moved");
    }
}

/// Ann (Gold) and Bo (Scarlet) with game `nm`; Ann has played ply 1 (2e3), and Bo has
/// not imported it. Returns the players and Ann's game file.
fn ann_played_ply_1(root: &Path) -> (Player, Player, String) {
    let (ann, bo) = two_players(root);
    ann.ok(T0 + 100, &["move", "nm", "2e3"]);
    let game = ann.game("nm");
    (ann, bo, game)
}

/// Regression (issue 29): a message `From: mallory@evil.example` with Ann's ply 3 changed
/// was committed as Ann's move, and Ann's genuine message was then refused as "ply 3 was
/// changed or removed". Now a step is taken only from its player's address in the game
/// (ours, not the message's tags), compared without case; the genuine message imports.
#[test]
fn a_move_mailed_from_a_stranger_was_committed_as_the_players() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, _) = ann_played_ply_1(t.path());
    bo.ok(T0 + 200, &["mail", "import", export(&ann, t.path(), T0 + 150, "m1").to_str().unwrap()]);
    bo.ok(T0 + 300, &["move", "nm", "Sa3b6"]);
    ann.ok(T0 + 400, &["mail", "import", export(&bo, t.path(), T0 + 350, "m2").to_str().unwrap()]);
    ann.ok(T0 + 500, &["move", "nm", "2f3"]);
    let m3 = export(&ann, t.path(), T0 + 550, "m3");
    let good = ann.game("nm");
    let ply_3 = changed(
        &ANN_PLY_1,
        &[("Subject", Some("[ravenpost] nm: 2. 2f3")), ("Message-ID", Some("<nm.3@example.org>"))],
    );
    let mallory = changed(&ply_3, &[("From", Some("Mallory <mallory@evil.example>"))]);
    let other_move = good.replace("2. 2f3", "2. 2d3");
    assert_ne!(other_move, good);
    let stranger = "the message is from mallory@evil.example, but ply 3 is Ann Example's, whose address is \
                    ann@example.org (the game's WhiteEmail tag): a step is taken only from its player's address";
    let cases = [
        ("stranger", game_message(&mallory, &[("nm.pgn", &other_move)]).into_bytes(), stranger.to_string()),
        // The stranger's address written into the game's tag: ours is the one compared.
        (
            "stranger-tag",
            game_message(
                &mallory,
                &[("nm.pgn", &other_move.replace("ann@example.org", "mallory@evil.example"))],
            )
            .into_bytes(),
            stranger.to_string(),
        ),
        (
            "sender",
            game_message(
                &changed(&ply_3, &[("Sender", Some("mallory@evil.example"))]),
                &[("nm.pgn", &other_move)],
            )
            .into_bytes(),
            "the Sender header names mallory@evil.example, the From header ann@example.org".to_string(),
        ),
        // Ann's own message sent again with a step added under its Message-ID.
        (
            "copied-id",
            game_message(
                &changed(&ply_3, &[("Message-ID", Some("<nm.1@example.org>"))]),
                &[("nm.pgn", &good)],
            )
            .into_bytes(),
            "Message-ID <nm.1@example.org> was imported before (commit ".to_string(),
        ),
    ];
    each_refused(&bo, t.path(), T0 + 600, &cases);
    let out = bo.ok(T0 + 600, &["mail", "import", m3.to_str().unwrap()]);
    assert!(out.contains("game nm: imported ply 3 2f3 by Ann Example"), "{out}");
    assert_eq!(bo.game("nm"), good);
    // Read again: nothing new, nothing committed.
    let head = bo.head();
    assert!(bo.ok(T0 + 650, &["mail", "import", m3.to_str().unwrap()]).contains("nothing new"));
    assert_eq!(bo.head(), head);
    // The address is compared without case.
    bo.ok(T0 + 700, &["move", "nm", "Sc3d6"]);
    let m4 = std::fs::read_to_string(export(&bo, t.path(), T0 + 750, "m4")).unwrap();
    let shouted = t.path().join("m4-shouted.eml");
    std::fs::write(
        &shouted,
        m4.replace("From: \"Bo Example\" <bo@example.net>", "From: Bo <BO@Example.NET>"),
    )
    .unwrap();
    assert!(std::fs::read_to_string(&shouted).unwrap().contains("BO@Example.NET"), "{m4}");
    let out = ann.ok(T0 + 800, &["mail", "import", shouted.to_str().unwrap()]);
    assert!(out.contains("game nm: imported ply 4 Sc3d6 by Bo Example"), "{out}");
}

/// Regression (issue 29): a message with two `From:` headers, a `From` naming two
/// addresses, a `Sender` other than the `From`, or no `From` at all was imported as if
/// its first address had sent it. Now a game message has exactly one sender.
#[test]
fn a_message_with_two_senders_was_taken_from_the_first() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, game) = ann_played_ply_1(t.path());
    let message = |changes: &[(&str, Option<&str>)]| {
        game_message(&changed(&ANN_PLY_1, changes), &[("nm.pgn", &game)]).into_bytes()
    };
    let cases = [
        (
            "two-from-headers",
            message(&[("+From", Some("Mallory <mallory@evil.example>"))]),
            "the message has 2 From headers (ann@example.org, mallory@evil.example): a game message has exactly \
             one sender"
                .to_string(),
        ),
        (
            "two-from-addresses",
            message(&[("From", Some("Ann Example <ann@example.org>, Mallory <mallory@evil.example>"))]),
            "the From header names 2 addresses (ann@example.org, mallory@evil.example)".to_string(),
        ),
        (
            "sender-mismatch",
            message(&[("Sender", Some("Mallory <mallory@evil.example>"))]),
            "the Sender header names mallory@evil.example, the From header ann@example.org: a game message is \
             sent by the player it is from"
                .to_string(),
        ),
        ("no-from", message(&[("From", None)]), "no sender: the message has no From address".to_string()),
        (
            "from-a-stranger",
            message(&[("From", Some("Mallory <mallory@evil.example>"))]),
            "the message is from mallory@evil.example, but the new game is Ann Example's, whose address is \
             ann@example.org"
                .to_string(),
        ),
    ];
    each_refused(&bo, t.path(), T0 + 200, &cases);
    // A Sender naming the From address is fine; so is the genuine message.
    let same = t.path().join("same-sender.eml");
    std::fs::write(&same, message(&[("Sender", Some("ann@EXAMPLE.org"))])).unwrap();
    let out = bo.ok(T0 + 300, &["mail", "import", same.to_str().unwrap()]);
    assert!(out.contains("game nm: imported new game; ply 1 2e3 by Ann Example"), "{out}");
    assert_eq!(bo.game("nm"), ann.game("nm"));
}

/// Regression (issue 29): of two different attachments of the same game the first was
/// taken silently, and an `X-Ravenpost-Game` header or a subject naming another game
/// than the attachment was not looked at. Now such a message is refused; two identical
/// copies, and another game's attachment, are harmless.
#[test]
fn conflicting_copies_of_a_game_were_taken_silently() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, game) = ann_played_ply_1(t.path());
    let other_move = game.replace("1. 2e3", "1. 2d3");
    assert_ne!(other_move, game);
    let with = |changes: &[(&str, Option<&str>)], games: &[(&str, &str)]| {
        game_message(&changed(&ANN_PLY_1, changes), games).into_bytes()
    };
    let cases = [
        (
            "two-copies",
            with(&[], &[("nm.pgn", &game), ("nm.pgn", &other_move)]),
            "two different copies of the game are attached (nm.pgn and nm.pgn, the game files 1 and 2): which one \
             was sent cannot be told"
                .to_string(),
        ),
        (
            "header-names-another-game",
            with(&[("X-Ravenpost-Game", Some("gygax/ann-cy"))], &[("nm.pgn", &game)]),
            "the X-Ravenpost-Game header names game ann-cy, but the attached game file is nm.pgn".to_string(),
        ),
        (
            "header-names-another-variant",
            with(&[("X-Ravenpost-Game", Some("fidchell/nm"))], &[("nm.pgn", &game)]),
            "the X-Ravenpost-Game header names a fidchell game, but the attached game is a gygax game".to_string(),
        ),
        (
            "two-game-headers",
            with(&[("+X-Ravenpost-Game", Some("gygax/ann-cy"))], &[("nm.pgn", &game)]),
            "two X-Ravenpost-Game headers name different games (nm and ann-cy)".to_string(),
        ),
        (
            "subject-names-another-game",
            with(&[("Subject", Some("Re: [ravenpost] ann-cy: 1. 2e3"))], &[("nm.pgn", &game)]),
            "the subject names game ann-cy, but the attached game file is nm.pgn".to_string(),
        ),
        (
            "subject-contradicts-the-header",
            with(&[("Subject", Some("[ravenpost] ann-cy: 1. 2e3"))], &[]),
            "the subject names game ann-cy, but the X-Ravenpost-Game header names game nm".to_string(),
        ),
    ];
    each_refused(&bo, t.path(), T0 + 200, &cases);
    let twice = t.path().join("twice.eml");
    std::fs::write(&twice, with(&[], &[("nm.pgn", &game), ("nm.pgn", &game), ("cy-di.pgn", &other_move)]))
        .unwrap();
    let out = bo.ok(T0 + 300, &["mail", "import", twice.to_str().unwrap()]);
    assert!(out.contains("game nm: imported new game; ply 1 2e3 by Ann Example"), "{out}");
    assert_eq!(bo.game("nm"), ann.game("nm"));
}

/// Regression (issue 29): a message without a `Message-ID` was imported ("(from mail )"),
/// and so was a game whose tags list no address for its mover. Now both are refused with
/// the reason; a message read again stays "nothing new".
#[test]
fn a_message_without_a_message_id_was_imported_as_from_mail_nothing() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, game) = ann_played_ply_1(t.path());
    let no_address = game.replace("[WhiteEmail \"ann@example.org\"]\n", "");
    assert_ne!(no_address, game);
    let cases = [
        (
            "no-message-id",
            game_message(&changed(&ANN_PLY_1, &[("Message-ID", None)]), &[("nm.pgn", &game)]).into_bytes(),
            "no Message-ID header: every game message has one".to_string(),
        ),
        (
            "no-address-for-the-mover",
            game_message(&changed(&ANN_PLY_1, &[]), &[("nm.pgn", &no_address)]).into_bytes(),
            "the new game is Ann Example's, and the game lists no address for Ann Example (no WhiteEmail tag) to \
             check the sender ann@example.org against"
                .to_string(),
        ),
    ];
    each_refused(&bo, t.path(), T0 + 200, &cases);
    let m1 = export(&ann, t.path(), T0 + 150, "m1");
    assert!(bo.ok(T0 + 300, &["mail", "import", m1.to_str().unwrap()]).contains("imported new game"));
    let head = bo.head();
    let again = bo.ok(T0 + 400, &["mail", "import", m1.to_str().unwrap()]);
    assert!(again.contains("<nm.1@example.org>: game nm: nothing new"), "{again}");
    assert_eq!(bo.head(), head);
}

/// A new game of `plies` plies (2e3 and Sa3b6 and back, each with its move time) between
/// Ann and Bo: move-shaped text, refused before any ply of it is replayed.
fn long_game(plies: usize) -> String {
    let mut g = String::from(
        "[Event \"?\"]\n[White \"Ann Example\"]\n[Black \"Bo Example\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\
         [WhiteEmail \"ann@example.org\"]\n[BlackEmail \"bo@example.net\"]\n\n",
    );
    let moves = ["2e3", "Sa3b6", "2e3e2", "Sb6a3"];
    for k in 0..plies {
        if k % 2 == 0 {
            g.push_str(&format!("{}. ", k / 2 + 1));
        }
        g.push_str(&format!("{} {{ravenpost: at 2025-11-29T08:06:40Z}}\n", moves[k % 4]));
    }
    g.push_str("*\n");
    g
}

/// Regression (issue 29): `mail import` of a 58 MB message (a new game of a million
/// plies) used 980 MB and 15 s before refusing it for a reason visible at ply 2. Now a
/// message over the archive's limit is refused by its size before it is read, and within
/// the limits a game too large or too long before it is replayed (`limits:` in
/// ravenpost.yaml), also on standard input.
#[test]
fn a_huge_message_was_replayed_before_it_was_refused() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, game) = ann_played_ply_1(t.path());
    // Base64-encoded, as mail clients send it.
    let encoded = data_encoding::BASE64_MIME.encode(long_game(1_000_000).as_bytes());
    let headers: String = ANN_PLY_1.iter().map(|h| format!("{h}\r\n")).collect();
    let huge = format!(
        "{headers}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n{}--b--\r\n",
        pgn_part("nm.pgn", "\r\nContent-Transfer-Encoding: base64", &encoded)
    );
    drop(encoded);
    assert!(huge.len() > 58_000_000, "{}", huge.len());
    let f = t.path().join("huge.eml");
    std::fs::write(&f, &huge).unwrap();
    let head = bo.head();
    let err = bo.refused(T0 + 200, &["mail", "import", f.to_str().unwrap()]);
    assert!(
        err.contains(&format!(
            "huge.eml: game ?: refused, nothing committed: the message is {:.1} MiB, over the limit of 32 MiB for \
             one message",
            huge.len() as f64 / f64::from(1 << 20)
        )),
        "{err}"
    );
    assert_eq!(bo.head(), head);
    drop(huge);
    // A club's tighter limits, committed in Bo's ravenpost.yaml.
    let settings = bo.archive.join("ravenpost.yaml");
    let mut yaml = std::fs::read_to_string(&settings).unwrap();
    yaml.push_str("limits:\n  game-bytes: 4096\n  plies: 40\n  message-bytes: 65536\n");
    std::fs::write(&settings, yaml).unwrap();
    bo.git(&["commit", "-q", "-m", "Tighter limits", "ravenpost.yaml"]);
    let long = long_game(41);
    assert!(long.len() < 4096, "{}", long.len());
    let padded = game.replace("1. 2e3", &format!("{{{}}} 1. 2e3", "a long comment ".repeat(300)));
    let cases = [
        (
            "too-many-plies",
            game_message(&changed(&ANN_PLY_1, &[]), &[("nm.pgn", &long)]).into_bytes(),
            "the game in the message has 41 plies, over the limit of 40 for one game (`limits: plies:` in the \
             archive's ravenpost.yaml); nothing of it was replayed"
                .to_string(),
        ),
        (
            "game-too-large",
            game_message(&changed(&ANN_PLY_1, &[]), &[("nm.pgn", &padded)]).into_bytes(),
            format!(
                "the attached game file nm.pgn is {:.1} KiB, over the limit of 4 KiB for a game (`limits: \
                 game-bytes:` in the archive's ravenpost.yaml)",
                (padded.len() + padded.matches('\n').count()) as f64 / 1024.0
            ),
        ),
        (
            "message-too-large",
            game_message(&changed(&ANN_PLY_1, &[]), &[("nm.pgn", &game), ("notes.pgn", &"x".repeat(70_000))])
                .into_bytes(),
            "over the limit of 64 KiB for one message".to_string(),
        ),
    ];
    each_refused(&bo, t.path(), T0 + 300, &cases);
    // On standard input, read only as far as the limit.
    let head = bo.head();
    let mut child = ravenpost_at(&bo.home, &bo.home, T0 + 400)
        .args(["--archive", bo.archive.to_str().unwrap(), "mail", "import", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        // The reader stops after the limit: a broken pipe here is expected.
        let _ = stdin.write_all(&vec![b'x'; 1 << 20]);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(
            "<stdin>: game ?: refused, nothing committed: the message is over the limit of 64 KiB for one message"
        ),
        "{}",
        text(&o)
    );
    assert_eq!(bo.head(), head);
    // The genuine message is within the limits.
    let m1 = export(&ann, t.path(), T0 + 150, "m1");
    assert!(bo.ok(T0 + 500, &["mail", "import", m1.to_str().unwrap()]).contains("imported new game"));
}

/// `--accept-sender` takes a step from another address than its player's, and the
/// commit says who sent it.
#[test]
fn accept_sender_takes_a_step_from_another_address_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo, game) = ann_played_ply_1(t.path());
    let from_work = changed(&ANN_PLY_1, &[("From", Some("Ann Example <ann@work.example>"))]);
    let f = t.path().join("from-work.eml");
    std::fs::write(&f, game_message(&from_work, &[("nm.pgn", &game)])).unwrap();
    let err = bo.refused(T0 + 200, &["mail", "import", f.to_str().unwrap()]);
    assert!(err.contains("(to take it all the same, add --accept-sender)"), "{err}");
    let out = bo.ok(T0 + 300, &["mail", "import", "--accept-sender", f.to_str().unwrap()]);
    assert!(out.contains("game nm: imported new game; ply 1 2e3 by Ann Example"), "{out}");
    assert_eq!(bo.game("nm"), ann.game("nm"));
    let log = bo.git(&["log", "--format=%B--", "main", "--", "games"]);
    let note = "The sender was not the mover: the message is from ann@work.example, and Ann Example's address \
                is ann@example.org; taken with `mail import --accept-sender`.";
    assert_eq!(log.matches(note).count(), 2, "the creation and ply 1: {log}");
    let help = bo.ok(T0, &["mail", "import", "--help"]);
    assert!(help.contains("--accept-sender"), "{help}");
}

/// Issue 34: a move with a draw offer and a comment in one command (`move --offer-draw
/// --comment`), in email play with a time control. The offer and the move are two steps
/// (as `draw offer` then `move`); the comment is kept in the record after the move; the
/// opponent's mail body shows the comment, the offer, the deadline and the time each
/// player has used; both archives verify.
#[test]
fn move_with_a_draw_offer_and_a_comment_travels_by_email() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann Example", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo Example", "bo@example.net");
    let new = ["new", "gygax", "--white", "Ann Example", "--black", "Bo Example", "--id", "nm"];
    let tags =
        ["--white-email", "ann@example.org", "--black-email", "bo@example.net", "--time-control", "1/3d"];
    ann.ok(T0, &[&new[..], &tags[..]].concat());
    let out = ann.ok(T0 + 3600, &["move", "nm", "2e3", "--offer-draw", "--comment", "Good luck,\n  Bo!"]);
    assert_eq!(out, "Ann Example (Gold) offers a draw\nAnn Example (Gold) plays 2e3 (ply 1)\n");
    assert_eq!(
        ann.git(&["log", "--format=%s", "-2"]),
        "nm: ply 1 2e3 (Gold plays 2e3)\nnm: Gold offers a draw\n"
    );
    let file = ann.game("nm");
    let (offer, comment) = (file.find("{ravenpost: draw offered by Gold}"), file.find("{Good luck, Bo!}"));
    assert!(offer.is_some() && comment.is_some() && offer < comment, "{file}");
    assert_eq!(ann.ok(T0 + 3600, &["verify"]), "1 game verified, 0 problems\n");
    // A comment that would read as one of ravenpost's notes is refused, nothing written.
    let head = ann.head();
    let err = ann.refused(
        T0 + 3600,
        &["move", "nm", "Sa3b6", "--as", "Bo Example", "--comment", "ravenpost: at 2020"],
    );
    assert!(
        err.contains("comment refused: `ravenpost: at 2020`: a comment may not start with `ravenpost:`"),
        "{err}"
    );
    assert_eq!(ann.head(), head);

    let m1 = export(&ann, t.path(), T0 + 3700, "m1");
    let p = parse(&m1);
    let body = p.body.replace("\r\n", "\n");
    assert!(
        body.contains(
            "Last move: 1. 2e3 by Ann Example (ply 1)\nComment by Ann Example (Gold): Good luck, Bo!\n"
        ),
        "{body}"
    );
    assert!(body.contains("Ann Example (Gold) offers a draw."), "{body}");
    let deadline = chrono::DateTime::from_timestamp(T0 + 3600 + 3 * 86_400, 0).unwrap();
    assert!(
        body.contains(&format!(
            "Deadline for Bo Example's move: {}.\n",
            deadline.format("%Y-%m-%dT%H:%M:%SZ")
        )),
        "{body}"
    );
    assert!(body.contains("Time used: Ann Example (Gold) 1h 0m, Bo Example (Scarlet) 0m.\n"), "{body}");
    assert!(p.attachment.2.contains("{Good luck, Bo!}"), "{}", p.attachment.2);
    assert!(body.lines().all(|l| l.chars().count() <= 78), "{body}");
    let out = bo.ok(T0 + 3800, &["mail", "import", m1.to_str().unwrap()]);
    assert!(out.contains("game nm: imported"), "{out}");
    assert_eq!(bo.game("nm"), ann.game("nm"));
    assert_eq!(bo.ok(T0 + 3800, &["verify"]), "1 game verified, 0 problems\n");
    assert!(bo.ok(T0 + 3800, &["status"]).contains("draw offered by Ann Example (Gold)"));
    // Bo answers with a comment of his own; Ann takes it in.
    bo.ok(T0 + 7200, &["move", "nm", "Sa3b6", "--comment", "Thanks {and you}"]);
    let m2 = export(&bo, t.path(), T0 + 7300, "m2");
    let body = parse(&m2).body.replace("\r\n", "\n");
    assert!(body.contains("Comment by Bo Example (Scarlet): Thanks {and you}\n"), "{body}");
    let out = ann.ok(T0 + 7400, &["mail", "import", m2.to_str().unwrap()]);
    assert!(out.contains("imported ply 2 Sa3b6 by Bo Example"), "{out}");
    assert_eq!(ann.game("nm"), bo.game("nm"));
    assert_eq!(ann.ok(T0 + 7400, &["verify"]), "1 game verified, 0 problems\n");
}

/// Issue 34: the mailed record told the opponent which replies were prepared (the
/// `{ravenpost: prepared}` note). The opponent's mail no longer carries it; the owner's
/// archive keeps it, and the opponent's next message still imports there.
#[test]
fn the_mailed_record_marked_the_prepared_replies() {
    let t = tempfile::tempdir().unwrap();
    let (ann, bo) = two_players(t.path());
    let import = |p: &Player, time: i64, m: &Path| p.ok(time, &["mail", "import", m.to_str().unwrap()]);
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    import(&bo, T0 + 20, &export(&ann, t.path(), T0 + 15, "m1"));
    ann.ok(T0 + 25, &["conditional", "add", "nm", "1... Sa3b6 2. Rx3b6"]);
    bo.ok(T0 + 30, &["move", "nm", "Sa3b6"]);
    let out = import(&ann, T0 + 40, &export(&bo, t.path(), T0 + 35, "m2"));
    assert!(out.contains("prepared reply"), "{out}");
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let noted = "2. Rx3b6 {ravenpost: at 2025-11-29T07:07:20Z} {ravenpost: prepared} *";
    assert!(words(&ann.game("nm")).contains(noted), "{}", ann.game("nm"));
    let m3 = export(&ann, t.path(), T0 + 45, "m3");
    let raw = std::fs::read_to_string(&m3).unwrap();
    assert!(!raw.contains("prepared"), "{raw}");
    let mailed = parse(&m3).attachment.2;
    assert!(words(&mailed).contains("2. Rx3b6 {ravenpost: at 2025-11-29T07:07:20Z} *"), "{mailed}");
    let out = import(&bo, T0 + 50, &m3);
    assert!(out.contains("imported ply 3 Rx3b6 by Ann Example"), "{out}");
    assert!(!bo.game("nm").contains("prepared"));
    assert_eq!(bo.ok(T0 + 50, &["verify"]), "1 game verified, 0 problems\n");
    // Bo's answer, without the note, imports into Ann's archive, which keeps it.
    bo.ok(T0 + 60, &["move", "nm", "U2c6"]);
    let out = import(&ann, T0 + 70, &export(&bo, t.path(), T0 + 65, "m4"));
    assert!(out.contains("imported ply 4 U2c6 by Bo Example"), "{out}");
    assert!(words(&ann.game("nm")).contains("{ravenpost: prepared}"), "{}", ann.game("nm"));
    assert_eq!(ann.ok(T0 + 70, &["verify"]), "1 game verified, 0 problems\n");
}

/// Issue 33, item 5: a prepared reply that `mail import` played was committed but never
/// mailed, and nothing said so. Now the import names the command that mails it, and
/// `--send` mails it to the opponent through the SMTP server.
#[test]
fn a_prepared_reply_played_by_mail_import_was_committed_but_not_sent() {
    let t = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(t.path(), "maildir", None);
    let (ann, bo) = two_players(t.path());
    let settings = ann.home.join("config/ravenpost");
    std::fs::create_dir_all(&settings).unwrap();
    let mail = format!("mail:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n", smtp.port);
    std::fs::write(settings.join("config.yaml"), mail).unwrap();
    let import = |p: &Player, time: i64, m: &Path, more: &[&str]| {
        p.ok(time, &[&["mail", "import", m.to_str().unwrap()][..], more].concat())
    };
    ann.ok(T0 + 10, &["move", "nm", "2e3"]);
    import(&bo, T0 + 20, &export(&ann, t.path(), T0 + 15, "m1"), &[]);
    ann.ok(T0 + 25, &["conditional", "add", "nm", "1... Sa3b6 2. Rx3b6 2... U2c6 3. 2d3"]);
    bo.ok(T0 + 30, &["move", "nm", "Sa3b6"]);
    let out = import(&ann, T0 + 40, &export(&bo, t.path(), T0 + 35, "m2"), &[]);
    assert!(
        out.contains("nm: the prepared reply is committed but not mailed yet: `ravenpost mail send nm`"),
        "{out}"
    );
    assert!(smtp.messages().is_empty());
    // Mailed by hand, it reaches Bo, who answers; the next prepared reply goes out itself.
    ann.ok(T0 + 45, &["mail", "send", "nm"]);
    let m3 = smtp.newest(0);
    assert!(import(&bo, T0 + 50, &m3, &[]).contains("imported ply 3 Rx3b6 by Ann Example"));
    bo.ok(T0 + 60, &["move", "nm", "U2c6"]);
    let out = import(&ann, T0 + 70, &export(&bo, t.path(), T0 + 65, "m4"), &["--send"]);
    assert!(!out.contains("not mailed"), "{out}");
    let m5 = smtp.newest(1);
    let parsed = parse(&m5);
    assert_eq!(parsed.to, "bo@example.net");
    assert!(parsed.subject.contains("3. 2d3"), "{}", parsed.subject);
    assert!(import(&bo, T0 + 80, &m5, &[]).contains("imported ply 5 2d3 by Ann Example"));
    assert_eq!(bo.ok(T0 + 80, &["verify"]), "1 game verified, 0 problems\n");
}
