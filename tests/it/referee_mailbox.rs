//! The referee mailbox (issue 33, item 4): a member with nothing but a mail client plays
//! a git player of the same club archive. Plain mails are sent with Python's smtplib (no
//! ravenpost) to a real SMTP server (aiosmtpd) that delivers into the club's Maildir;
//! `ravenpost mail serve --once` referees that Maildir in the club's bare repository
//! (pre-receive hook and `--notify` post-receive hook installed) and answers through a
//! second SMTP server, the sink where the players' mail arrives.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::dns::{DkimKey, Dns, dkim_key, dkim_sign, dkim_sign_with};
use common::long_game;
use common::smtp::Smtp;
use common::{T0 as GIT_T0, git, identity, ok_at, ravenpost_at, text};
use mail_parser::MessageParser;

/// The club: its bare repository, Ann's clone, the two SMTP servers.
struct Club {
    t: tempfile::TempDir,
    home: PathBuf,
    server: PathBuf,
    ann: PathBuf,
    /// The club's address delivers here: the referee's Maildir.
    inbox: Smtp,
    /// Answers and notifications arrive here.
    sink: Smtp,
    /// The DNS server the referee asks for DKIM keys and DMARC policies.
    dns: Dns,
    /// Bo's mail provider's DKIM key (published in `dns`).
    bo_key: DkimKey,
}

/// Later than the commits the `git` helper dates (its fixed clock, an hour after T0).
const T0: i64 = GIT_T0 + 7200;

const REFEREE: &str = "games@club.example.org";
const BO: &str = "bo@post.example.net";

fn club() -> Club {
    club_with("")
}

/// The club, with `more_players` (YAML lines under `players:`) registered too.
fn club_with(more_players: &str) -> Club {
    club_full(more_players, "", &[])
}

/// The club, with `more_players` (YAML lines under `players:`) registered, `more_club`
/// (lines under `club:`) set, and the DNS answering `records` too.
fn club_full(more_players: &str, more_club: &str, records: &[(String, String)]) -> Club {
    let t = tempfile::tempdir().unwrap();
    let bo_key = dkim_key(t.path(), "mail2026", "post.example.net");
    let mut published = vec![bo_key.record.clone()];
    published.extend_from_slice(records);
    let dns = Dns::start(t.path(), &published);
    let home = identity(&t.path().join("home"), "Club Admin", "admin@club.example.org");
    let inbox = Smtp::start(t.path(), "inbox", None);
    let sink = Smtp::start(t.path(), "sink", None);
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok_at(t.path(), &home, T0, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    let ann = t.path().join("ann");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), ann.to_str().unwrap()]);
    git(&ann, &home, &["config", "user.name", "Ann"]);
    git(&ann, &home, &["config", "user.email", "ann@example.org"]);
    let settings = format!(
        "version: 1\nlayout: fan-out\nplayers:\n  Ann:\n    email: ann@example.org\n  Bo:\n    email: {BO}\n    \
         plays-by: mail\n{more_players}club:\n  referee: {REFEREE}\n{more_club}mail:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    \
         security: none\n",
        sink.port
    );
    std::fs::write(ann.join("ravenpost.yaml"), settings).unwrap();
    git(&ann, &home, &["add", "ravenpost.yaml"]);
    git(&ann, &home, &["commit", "--quiet", "-m", "club settings"]);
    ok_at(&ann, &home, T0, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "ab"]);
    ok_at(&ann, &home, T0, &["sync"]);
    Club { t, home, server, ann, inbox, sink, dns, bo_key }
}

impl Club {
    fn ravenpost(&self, time: i64, args: &[&str]) -> std::process::Output {
        ravenpost_at(&self.server, &self.home, time).args(args).output().unwrap()
    }

    /// One pass of the referee over the club's Maildir; its JSON lines.
    fn referee(&self, time: i64) -> Vec<serde_json::Value> {
        let maildir = self.inbox.maildir.to_str().unwrap().to_string();
        let dns = self.dns.addr();
        let o = self
            .ravenpost(time, &["mail", "serve", "--maildir", &maildir, "--dns", &dns, "--once", "--json"]);
        assert!(o.status.success(), "mail serve: {}", text(&o));
        String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    fn server_log(&self) -> String {
        git(&self.server, &self.home, &["log", "--format=%an <%ae> %s", "main"])
    }

    /// Sends a plain mail to the club's address with Python's smtplib.
    fn mail(&self, from: &str, id: &str, subject: &str, in_reply_to: Option<&str>, body: &str) {
        let reply = in_reply_to.map(|r| format!("m['In-Reply-To'] = '<{r}>'\nm['References'] = '<{r}>'\n"));
        let script = format!(
            "import smtplib\nfrom email.message import EmailMessage\nm = EmailMessage()\n\
             m['From'] = {from:?}\nm['To'] = {REFEREE:?}\nm['Subject'] = {subject:?}\nm['Message-ID'] = '<{id}>'\n\
             {}m.set_content({body:?})\ns = smtplib.SMTP('127.0.0.1', {})\ns.send_message(m)\ns.quit()\n",
            reply.unwrap_or_default(),
            self.inbox.port
        );
        let o = Command::new("python3").arg("-c").arg(&script).output().unwrap();
        assert!(o.status.success(), "smtplib: {}", text(&o));
    }

    /// The mails at the sink for `to`, as (subject, body, Reply-To), oldest first.
    fn mails_to(&self, to: &str) -> Vec<(String, String, Option<String>)> {
        self.sink
            .messages()
            .iter()
            .filter_map(|p| {
                let bytes = std::fs::read(p).unwrap();
                let m = MessageParser::default().parse(&bytes)?;
                let rcpt = m.to()?.first()?.address()?.to_string();
                (rcpt == to).then(|| {
                    let reply_to =
                        m.reply_to().and_then(|r| r.first()).and_then(|a| a.address()).map(str::to_string);
                    (
                        m.subject().unwrap_or("").to_string(),
                        m.body_text(0).unwrap_or_default().into_owned(),
                        reply_to,
                    )
                })
            })
            .collect()
    }

    fn path(&self) -> &Path {
        self.t.path()
    }

    /// Delivers the message `raw` into the club's Maildir as it is, byte for byte (as an
    /// MTA that passes odd headers through would).
    fn deliver_raw(&self, name: &str, raw: &[u8]) {
        std::fs::write(self.inbox.maildir.join("new").join(name), raw).unwrap();
    }

    /// Sends the message `raw` (as it is, signature and all) from `from` to the club's
    /// address with Python's smtplib.
    fn send_raw(&self, from: &str, raw: &[u8]) {
        common::smtp::send_raw(self.inbox.port, from, REFEREE, raw);
    }
}

/// A plain-text mail from `from` to the club's address answering Ann's first move, with
/// CRLF line ends (as on the wire).
fn reply_to_first_move(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {REFEREE}\r\nSubject: Re: [ravenpost] ab: 1. 2e3\r\nMessage-ID: <{id}>\r\n\
         In-Reply-To: <ab.1@example.org>\r\nDate: Mon, 07 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

fn verdict(v: &serde_json::Value) -> &str {
    v["verdict"].as_str().unwrap()
}

#[test]
fn a_mail_only_member_plays_a_git_player_through_the_referee_mailbox() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    // Bo replies to the board mail with his move, from a plain mail client.
    c.mail(
        BO,
        "bo-1@post.example.net",
        "Re: [ravenpost] ab: 1. 2e3",
        Some("ab.1@example.org"),
        "Sa3b6\n\n> 1. 2e3\n",
    );
    let handled = c.referee(T0 + 20);
    assert_eq!(handled.len(), 1, "{handled:?}");
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
    assert_eq!(handled[0]["game"], "ab");
    assert_eq!(handled[0]["ply"], 2);
    let log = c.server_log();
    assert!(log.starts_with(&format!("Bo <{BO}> ab: ply 2 Sa3b6")), "{log}");
    // Bo is answered at his address, from the referee.
    let answers = c.mails_to(BO);
    let played = answers.iter().find(|(s, _, _)| s == "Re: [ravenpost] ab: 1. 2e3").expect("an answer");
    assert!(played.1.contains("Played: Bo (Scarlet) plays Sa3b6."), "{}", played.1);
    // Ann's clone receives the move with `sync`, and the archive verifies clean.
    let out = ok_at(&c.ann, &c.home, T0 + 30, &["sync"]);
    assert!(out.contains("Fetched"), "{out}");
    assert_eq!(ok_at(&c.ann, &c.home, T0 + 30, &["verify"]), "1 game verified, 0 problems\n");
    let game = git(&c.ann, &c.home, &["show", &format!("HEAD:{}", common::fan_out_path("gygax", "ab"))]);
    assert!(game.contains("1... Sa3b6 {ravenpost: at"), "{game}");

    // The same message delivered again is applied once.
    c.mail(BO, "bo-1@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6\n");
    let again = c.referee(T0 + 40);
    assert_eq!(verdict(&again[0]), "already-applied", "{again:?}");
    assert_eq!(c.server_log(), log);

    // An illegal move is refused with the legal moves of that piece; nothing committed.
    ok_at(&c.ann, &c.home, T0 + 50, &["move", "ab", "2d3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 51, &["sync"]);
    let before = c.server_log();
    c.mail(BO, "bo-2@post.example.net", "Re: [ravenpost] ab: 2. 2d3", Some("ab.3@example.org"), "Sa3a1\n");
    let refused = c.referee(T0 + 60);
    assert_eq!(verdict(&refused[0]), "refused", "{refused:?}");
    assert_eq!(c.server_log(), before);
    let answer = c.mails_to(BO).into_iter().find(|(s, _, _)| s == "Re: [ravenpost] ab: 2. 2d3").unwrap();
    assert!(answer.1.contains("Not played:"), "{}", answer.1);
    assert!(answer.1.contains("The legal moves of the S pieces ("), "{}", answer.1);
    assert!(answer.1.lines().all(|l| l.chars().count() <= 78), "{}", answer.1);
}

#[test]
fn forged_and_secretless_mails_to_the_referee_commit_nothing() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let before = c.server_log();
    // A stranger writes Bo's move: not taken, and not answered (the sender may be forged).
    c.mail(
        "mallory@evil.example",
        "m-1@evil.example",
        "Re: [ravenpost] ab: 1. 2e3",
        Some("ab.1@example.org"),
        "resign",
    );
    // Ann writes a move for Bo's side: she is a player, but not the one to move.
    c.mail(
        "ann@example.org",
        "a-1@example.org",
        "Re: [ravenpost] ab: 1. 2e3",
        Some("ab.1@example.org"),
        "Sa3b6",
    );
    let handled = c.referee(T0 + 20);
    assert_eq!(handled.len(), 2, "{handled:?}");
    let by = |from: &str| handled.iter().find(|h| h["from"] == from).unwrap();
    assert_eq!(verdict(by("mallory@evil.example")), "forged");
    assert_eq!(by("mallory@evil.example")["refusal"]["kind"], "not-a-player");
    assert!(by("mallory@evil.example")["answer"].is_null());
    assert_eq!(verdict(by("ann@example.org")), "refused", "{handled:?}");
    assert_eq!(c.server_log(), before);
    assert!(c.mails_to("mallory@evil.example").is_empty());

    // Bo is given a secret: a mail without it, or with another, is refused and Bo is told.
    let o = c.ravenpost(T0, &["mail", "secret", "Bo"]);
    assert!(o.status.success(), "{}", text(&o));
    let secret = String::from_utf8(o.stdout).unwrap().lines().next().unwrap().to_string();
    assert_eq!(secret.len(), 24, "{secret}");
    c.mail(BO, "bo-1@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6");
    c.mail(
        BO,
        "bo-2@post.example.net",
        "Re: [ravenpost] ab: 1. 2e3",
        Some("ab.1@example.org"),
        "Sa3b6\nsecret: nope",
    );
    let handled = c.referee(T0 + 30);
    let kinds: Vec<&str> = handled.iter().map(|h| h["refusal"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["missing-secret", "wrong-secret"], "{handled:?}");
    assert_eq!(c.server_log(), before);
    assert_eq!(c.mails_to(BO).iter().filter(|(_, b, _)| b.contains("Your mail was not taken")).count(), 2);
    // With it, the move is played.
    let body = format!("Sa3b6\nsecret: {secret}\n");
    c.mail(BO, "bo-3@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), &body);
    let handled = c.referee(T0 + 40);
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
    assert!(c.path().join("inbox/cur").read_dir().unwrap().count() >= 5);
}

#[test]
fn draws_resignations_and_questions_by_mail() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let subject = "Re: [ravenpost] ab: 1. 2e3";
    c.mail(BO, "q-1@post.example.net", subject, Some("ab.1@example.org"), "moves");
    c.mail(BO, "q-2@post.example.net", "game ab", None, "board");
    c.mail(BO, "q-5@post.example.net", subject, Some("ab.1@example.org"), "moves 3a7");
    // `draw`, then the move on the next line: the move with a draw offer.
    c.mail(BO, "q-3@post.example.net", subject, Some("ab.1@example.org"), "draw\nSa3b6");
    let handled = c.referee(T0 + 20);
    let verdicts: Vec<&str> = handled.iter().map(verdict).collect();
    assert_eq!(verdicts, ["answered", "answered", "answered", "played"], "{handled:?}");
    assert_eq!(handled[3]["said"], "Bo (Scarlet) offers a draw; Bo (Scarlet) plays Sa3b6", "{handled:?}");
    // The moves of the piece on a square, as many as `ravenpost moves --from` lists.
    let from = ok_at(&c.ann, &c.home, T0, &["moves", "ab", "--from", "3a7", "--json"]);
    let from: serde_json::Value = serde_json::from_str(&from).unwrap();
    let n = from["moves"].as_array().unwrap().len();
    assert!(n > 0);
    let said = format!("Bo to move: {n} legal move{} of the piece on 3a7:", if n == 1 { "" } else { "s" });
    assert!(c.mails_to(BO).iter().any(|(_, b, _)| b.contains(&said)), "{said}");
    let answers = c.mails_to(BO);
    // The count is the engine's, as `ravenpost moves` lists them in Ann's clone.
    let listed = ok_at(&c.ann, &c.home, T0, &["moves", "ab", "--json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
    let n = listed["moves"].as_array().unwrap().len();
    let said = format!("Bo to move: {n} legal moves:");
    assert!(answers.iter().any(|(_, b, _)| b.contains(&said)), "{said} in {answers:?}");
    assert!(answers.iter().any(|(s, b, _)| s == "Re: game ab" && b.contains("Bo to move.")), "{answers:?}");
    // The moves of Bo's own piece while Ann is to move, or of an empty square: said so,
    // not "no legal moves".
    c.mail(BO, "q-7@post.example.net", "game ab", None, "moves 3b6");
    c.mail(BO, "q-8@post.example.net", "game ab", None, "moves 2e6");
    let handled = c.referee(T0 + 25);
    assert_eq!(handled.iter().map(verdict).collect::<Vec<_>>(), ["answered", "answered"], "{handled:?}");
    let words = |b: &str| b.split_whitespace().collect::<Vec<_>>().join(" ");
    let answers: Vec<String> = c.mails_to(BO).into_iter().map(|(_, b, _)| words(&b)).collect();
    let other = "The piece on 3b6 is Scarlet's, and Gold is to move (Ann): its moves are listed when it is Scarlet's turn.";
    assert!(answers.iter().any(|b| b.contains(other)), "{answers:?}");
    assert!(answers.iter().any(|b| b.contains("There is no piece on 2e6.")), "{answers:?}");
    // Bo's move carried a draw offer: Ann declines in her clone, then Bo resigns by mail.
    ok_at(&c.ann, &c.home, T0 + 30, &["sync"]);
    let game = git(&c.ann, &c.home, &["show", &format!("HEAD:{}", common::fan_out_path("gygax", "ab"))]);
    assert!(game.contains("{ravenpost: draw offered by Scarlet}"), "{game}");
    ok_at(&c.ann, &c.home, T0 + 31, &["move", "ab", "2d3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 32, &["sync"]);
    // A mail that names no game is about Bo's one game to move.
    c.mail(BO, "q-6@post.example.net", "hello", None, "board");
    let handled = c.referee(T0 + 35);
    assert_eq!(
        (verdict(&handled[0]), &handled[0]["game"]),
        ("answered", &serde_json::json!("ab")),
        "{handled:?}"
    );
    c.mail(BO, "q-4@post.example.net", "Re: [ravenpost] ab: 2. 2d3", Some("ab.3@example.org"), "resign");
    let handled = c.referee(T0 + 40);
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
    assert!(handled[0]["said"].as_str().unwrap().contains("resigns"), "{handled:?}");
    ok_at(&c.ann, &c.home, T0 + 50, &["sync"]);
    assert_eq!(ok_at(&c.ann, &c.home, T0 + 50, &["verify"]), "1 game verified, 0 problems\n");
    let game = git(&c.ann, &c.home, &["show", &format!("HEAD:{}", common::fan_out_path("gygax", "ab"))]);
    assert!(game.contains("[Result \"1-0\"]"), "{game}");
}

/// Sends every mail of `mails` (from, Message-ID, subject, body) to the club's address
/// in order, over one SMTP connection.
fn send_all(c: &Club, mails: &[(String, String, String, String)]) {
    let list: Vec<String> =
        mails.iter().map(|(f, id, s, b)| format!("({f:?}, {:?}, {s:?}, {b:?})", format!("<{id}>"))).collect();
    let script = format!(
        "import smtplib\nfrom email.message import EmailMessage\ns = smtplib.SMTP('127.0.0.1', {})\n\
         for f, i, sub, b in [{}]:\n    m = EmailMessage()\n    m['From'] = f\n    m['To'] = {REFEREE:?}\n    \
         m['Subject'] = sub\n    m['Message-ID'] = i\n    m.set_content(b)\n    s.send_message(m)\ns.quit()\n",
        c.inbox.port,
        list.join(", ")
    );
    let o = Command::new("python3").arg("-c").arg(&script).output().unwrap();
    assert!(o.status.success(), "smtplib: {}", text(&o));
}

/// The referee killed with SIGKILL at random points while it works through 100 mails
/// (40 moves of two mail-only players, questions, and moves delivered twice): no mail is
/// lost, none is applied twice, and the archive verifies clean.
#[test]
fn the_referee_killed_at_random_points_loses_no_mail_and_applies_none_twice() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let cy = "cy@post.example.net";
    let c = club_with(&format!("  Cy:\n    email: {cy}\n    plays-by: mail\n"));
    ok_at(&c.ann, &c.home, T0, &["new", "gygax", "--white", "Bo", "--black", "Cy", "--id", "bc"]);
    ok_at(&c.ann, &c.home, T0, &["sync"]);
    let line = long_game::random_game("gygax", 40, 33);
    let mut mails: Vec<(String, String, String, String)> = Vec::new();
    for (i, token) in line.tokens.iter().enumerate() {
        let from = if i % 2 == 0 { BO } else { cy };
        mails.push((from.into(), format!("move-{i}@post.example.net"), "game bc".into(), token.clone()));
        let question = if i % 3 == 0 { "board" } else { "moves" };
        mails.push((from.into(), format!("q-{i}@post.example.net"), "game bc".into(), question.into()));
        if i % 2 == 1 {
            // The move before, delivered again (a mail server's retry).
            let again = mails[mails.len() - 4].clone();
            mails.push(again);
        }
    }
    assert_eq!(mails.len(), 100);
    send_all(&c, &mails);
    let maildir = c.inbox.maildir.to_str().unwrap().to_string();
    let seen = || {
        std::fs::read_dir(c.inbox.maildir.join("cur"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(",S"))
            .count()
    };
    let mut rng = common::rng::Lcg(7);
    let mut kills = 0;
    while seen() < 100 {
        let mut child = ravenpost_at(&c.server, &c.home, T0 + 100)
            .args(["mail", "serve", "--maildir", &maildir, "--dns", &c.dns.addr(), "--interval", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20 + rng.below(300) as u64));
        kill(Pid::from_raw(child.id() as i32), Signal::SIGKILL).unwrap();
        child.wait().unwrap();
        kills += 1;
        assert!(kills < 2000, "the referee made no headway");
    }
    assert!(kills >= 5, "only {kills} interruptions");
    eprintln!("the referee was killed {kills} times");
    // A last pass finds nothing left, and the archive is not locked.
    assert!(c.referee(T0 + 200).is_empty());
    let file = git(&c.server, &c.home, &["show", &format!("main:{}", common::fan_out_path("gygax", "bc"))]);
    let game = ravenpost::record::load(&file).expect("the game reads");
    let mut p = game.variant.start_position();
    let mut played = Vec::new();
    for m in &game.moves {
        played.push(ravenpost::notation::san::write_move(&game.variant, &p, m));
        p = game.variant.make(&p, m);
    }
    assert_eq!(played, line.tokens, "after {kills} interruptions");
    let o = c.ravenpost(T0 + 200, &["verify"]);
    assert!(o.status.success() && text(&o).contains("0 problems"), "{}", text(&o));
    let ledger = std::fs::read_to_string(c.server.join("ravenpost/referee-mail.log")).unwrap();
    for (_, id, _, _) in &mails {
        assert!(ledger.contains(&format!("done\t{id}\t")), "{id} not done after {kills} interruptions");
    }
}

/// The club's mailbox on a real IMAP server over TLS: aiosmtpd delivers the club's mail
/// into the Maildir dovecot serves as the referee account's INBOX, and the referee reads
/// it with `--imap imaps://…` (the test CA trusted with `--ca-file`).
fn imap_club() -> (Club, common::dovecot::Dovecot, PathBuf) {
    let c = club();
    let (ca, cert, key) = common::smtp::test_ca(c.path());
    let dovecot = common::dovecot::Dovecot::start(c.path(), &cert, &key, &c.inbox.maildir);
    (c, dovecot, ca)
}

fn imap_url(d: &common::dovecot::Dovecot) -> String {
    format!("imaps://{}@127.0.0.1:{}/INBOX", d.user, d.port)
}

#[test]
fn the_referee_reads_the_clubs_mailbox_over_imap_with_tls() {
    let (c, dovecot, ca) = imap_club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    c.mail(BO, "bo-1@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6\n");
    c.mail("mallory@evil.example", "m-1@evil.example", "Re: [ravenpost] ab: 1. 2e3", None, "resign\n");
    let (url, ca) = (imap_url(&dovecot), ca.to_str().unwrap().to_string());
    let serve = |time: i64, password: &str| {
        ravenpost_at(&c.server, &c.home, time)
            .env("RAVENPOST_IMAP_PASSWORD", password)
            .args([
                "mail",
                "serve",
                "--imap",
                &url,
                "--ca-file",
                &ca,
                "--dns",
                &c.dns.addr(),
                "--once",
                "--json",
            ])
            .output()
            .unwrap()
    };
    // A wrong password is refused by the server; nothing is taken.
    let o = serve(T0 + 15, "wrong");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("login"), "{}", text(&o));
    let o = serve(T0 + 20, dovecot.password);
    assert!(o.status.success(), "{}", text(&o));
    let handled: Vec<serde_json::Value> =
        String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let verdicts: Vec<&str> = handled.iter().map(verdict).collect();
    assert_eq!(verdicts, ["played", "forged"], "{handled:?}");
    assert_eq!(handled[0]["source"], "uid 1");
    assert!(c.server_log().starts_with(&format!("Bo <{BO}> ab: ply 2 Sa3b6")), "{}", c.server_log());
    // Both are marked seen on the server: a second pass finds nothing.
    let o = serve(T0 + 30, dovecot.password);
    assert!(o.status.success() && o.stdout.is_empty(), "{}", text(&o));
    // Without the test CA the server's certificate is not trusted.
    let o = ravenpost_at(&c.server, &c.home, T0 + 40)
        .env("RAVENPOST_IMAP_PASSWORD", dovecot.password)
        .args(["mail", "serve", "--imap", &url, "--dns", &c.dns.addr(), "--once"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("the server's certificate is not signed by a CA this client trusts"),
        "{}",
        text(&o)
    );
}

/// The club trial: dovecot serving a self-signed certificate (its own CA) given with
/// `--ca-file` was refused as `invalid peer certificate: Other(OtherError(CaUsedAsEndEntity))`.
#[test]
fn a_self_signed_imap_certificate_was_refused_in_rustls_debug_notation() {
    let c = club();
    let (cert, key) = common::smtp::self_signed_ca(c.path());
    let dovecot = common::dovecot::Dovecot::start(c.path(), &cert, &key, &c.inbox.maildir);
    let o = ravenpost_at(&c.server, &c.home, T0 + 40)
        .env("RAVENPOST_IMAP_PASSWORD", dovecot.password)
        .args(["mail", "serve", "--imap", &imap_url(&dovecot), "--ca-file", cert.to_str().unwrap()])
        .args(["--dns", &c.dns.addr(), "--once"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("presents a CA certificate (basicConstraints CA:TRUE) as its own"), "{said}");
    assert!(!said.contains("OtherError"), "{said}");
}

/// Regression (s8): an IMAP server that took the connection and said nothing (a wrong
/// port) was waited for without end, even with `--once`. Now `--timeout` bounds the wait
/// and the refusal says the server did not answer.
#[test]
fn a_silent_imap_server_was_waited_for_without_end() {
    let c = club();
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::thread::spawn(move || silent.accept().map(|(s, _)| s));
    let o = ravenpost_at(&c.server, &c.home, T0 + 40)
        .env("RAVENPOST_IMAP_PASSWORD", "secret")
        .args(["mail", "serve", "--imap", &format!("imaps://club@127.0.0.1:{port}/INBOX")])
        .args(["--dns", &c.dns.addr(), "--once", "--timeout", "1"])
        .output()
        .unwrap();
    drop(held.join());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains(&format!("127.0.0.1:{port}: did not answer within 1 s")), "{said}");
}

/// Waits (at most 60 s) until the server's branch log starts with `line`.
fn wait_for_commit(c: &Club, line: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !c.server_log().starts_with(line) {
        assert!(std::time::Instant::now() < deadline, "no commit `{line}`: {}", c.server_log());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn the_imap_referee_waits_with_idle_and_connects_again_after_the_server_restarts() {
    let (c, dovecot, ca) = imap_club();
    let (cert, key) = (c.path().join("cert.pem"), c.path().join("key.pem"));
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let url = imap_url(&dovecot);
    let mut referee = ravenpost_at(&c.server, &c.home, T0 + 20)
        .env("RAVENPOST_IMAP_PASSWORD", dovecot.password)
        .args(["mail", "serve", "--imap", &url, "--ca-file", ca.to_str().unwrap(), "--dns", &c.dns.addr()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The referee is waiting in IDLE when Bo's move arrives.
    c.mail(BO, "bo-1@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6\n");
    wait_for_commit(&c, &format!("Bo <{BO}> ab: ply 2 Sa3b6"));
    // The server goes away and comes back on its port: the referee connects again.
    let port = dovecot.port;
    dovecot.kick();
    drop(dovecot);
    ok_at(&c.ann, &c.home, T0 + 30, &["sync"]);
    ok_at(&c.ann, &c.home, T0 + 31, &["move", "ab", "2d3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 32, &["sync"]);
    c.mail(BO, "bo-2@post.example.net", "Re: [ravenpost] ab: 2. 2d3", Some("ab.3@example.org"), "resign\n");
    let _back = common::dovecot::Dovecot::start_on(port, c.path(), &cert, &key, &c.inbox.maildir);
    wait_for_commit(&c, &format!("Bo <{BO}> ab: Scarlet resigns"));
    let _ = referee.kill();
    let out = referee.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("the IMAP connection was lost"), "{said}");
}

/// A move mailed out of turn was answered with the legal moves of the opponent's pieces,
/// which the sender cannot play: the refusal now lists none.
#[test]
fn a_move_mailed_out_of_turn_listed_the_opponents_legal_moves() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    c.mail(BO, "bo-1@post.example.net", "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6\n");
    assert_eq!(verdict(&c.referee(T0 + 20)[0]), "played");
    // Ann is to move; Bo writes another move.
    c.mail(BO, "bo-2@post.example.net", "game ab", None, "Sc3d6\n");
    let refused = c.referee(T0 + 30);
    assert_eq!(verdict(&refused[0]), "refused", "{refused:?}");
    let answer = c.mails_to(BO).into_iter().find(|(s, _, _)| s == "Re: game ab").expect("an answer");
    assert!(answer.1.contains("Not played: not Bo's turn"), "{}", answer.1);
    assert!(!answer.1.contains("legal moves"), "{}", answer.1);
}

#[test]
fn a_club_that_requires_dkim_takes_only_mail_its_senders_domain_signed() {
    let attacker = |dir: &Path| dkim_key(dir, "x", "evil.example");
    let t = tempfile::tempdir().unwrap();
    let evil = attacker(t.path());
    let c = club_full("", "  dkim: required\n", std::slice::from_ref(&evil.record));
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let before = c.server_log();
    // Unsigned, as anyone can write it.
    c.send_raw(BO, &reply_to_first_move(BO, "u-1@post.example.net", "Sa3b6"));
    // Signed by Bo's provider, then changed on the way.
    let signed = dkim_sign(&reply_to_first_move(BO, "u-2@post.example.net", "Sa3b6"), &c.bo_key);
    let changed = String::from_utf8(signed).unwrap().replace("Sa3b6", "Sa3a4");
    c.send_raw(BO, changed.as_bytes());
    // Signed, and the signature verifies, but by the attacker's own domain.
    c.send_raw(BO, &dkim_sign(&reply_to_first_move(BO, "u-3@post.example.net", "Sa3b6"), &evil));
    let handled = c.referee(T0 + 20);
    let refusals: Vec<(&str, &str)> =
        handled.iter().map(|h| (verdict(h), h["refusal"]["kind"].as_str().unwrap_or(""))).collect();
    assert_eq!(refusals, [("forged", "unsigned"); 3], "{handled:?}");
    assert_eq!(c.server_log(), before, "nothing is committed");
    let why: Vec<&str> = handled.iter().map(|h| h["refusal"]["why"].as_str().unwrap()).collect();
    assert!(why[0].ends_with("the mail has no DKIM signature"), "{}", why[0]);
    assert!(why[1].contains("its DKIM signature by post.example.net does not verify"), "{}", why[1]);
    assert!(why[2].contains("its DKIM signature is by evil.example, not post.example.net"), "{}", why[2]);
    // Bo is told at his registered address, each time.
    let told: Vec<String> = c
        .mails_to(BO)
        .into_iter()
        .filter(|(s, _, _)| s.starts_with("Re: "))
        .map(|(_, body, _)| body)
        .collect();
    assert_eq!(told.len(), 3, "{told:?}");
    let words = |body: &str| body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words(&told[0]).starts_with(
            "Your mail was not taken. The club takes only mail signed by its sender's domain (DKIM), and the \
             mail has no DKIM signature. Write from the address the club has for you, through your \
             provider's own server (its webmail or its SMTP server), which signs your mail; if it does not \
             sign it, ask the club's admin. Nothing was played."
        ),
        "{}",
        told[0]
    );
    assert!(words(&told[1]).contains("(Calculated body hash does not match signature hash)"), "{}", told[1]);
    assert!(told.iter().all(|body| words(body).contains("Nothing was played.")));

    // Bo's own signed mail, sent again by someone who got hold of it: a signature that
    // leaves the headers naming the game unsigned, or covers only the body's first
    // bytes (`l=`), does not count.
    let loose = reply_to_first_move(BO, "w-1@post.example.net", "Sa3b6");
    c.send_raw(BO, &dkim_sign_with(&loose, &c.bo_key, Some(&["from", "to", "date"]), false));
    let mut short =
        dkim_sign_with(&reply_to_first_move(BO, "w-2@post.example.net", "Sa3b6"), &c.bo_key, None, true);
    short.extend_from_slice(b"resign\r\n");
    c.send_raw(BO, &short);
    let handled = c.referee(T0 + 25);
    let why: Vec<&str> = handled.iter().map(|h| h["refusal"]["why"].as_str().unwrap_or("")).collect();
    assert!(
        why[0].ends_with(
            "its DKIM signature by post.example.net does not sign its message-id, subject, in-reply-to"
        ),
        "{handled:?}"
    );
    // (mail-auth refuses a signature whose l= leaves text unsigned; one whose l= covers
    // the whole text is refused here.)
    assert!(
        why[1].ends_with("a DKIM signature does not count (Insecure 'l=' tag found in Signature)"),
        "{handled:?}"
    );
    assert_eq!(c.server_log(), before, "nothing is committed");

    // The mail as Bo's provider signed it is taken.
    c.send_raw(BO, &dkim_sign(&reply_to_first_move(BO, "s-1@post.example.net", "Sa3b6"), &c.bo_key));
    let handled = c.referee(T0 + 30);
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
    assert!(c.server_log().starts_with(&format!("Bo <{BO}> ab: ply 2 Sa3b6")), "{}", c.server_log());
}

#[test]
fn a_domain_that_publishes_dmarc_reject_needs_a_signature_under_the_default_policy() {
    let cy = "cy@strict.example";
    let t = tempfile::tempdir().unwrap();
    let cy_key = dkim_key(t.path(), "k1", "strict.example");
    let dmarc = ("_dmarc.strict.example".to_string(), "v=DMARC1; p=reject".to_string());
    let c = club_full(
        &format!("  Cy:\n    email: {cy}\n    plays-by: mail\n"),
        "",
        &[cy_key.record.clone(), dmarc],
    );
    ok_at(&c.ann, &c.home, T0 + 5, &["new", "gygax", "--white", "Ann", "--black", "Cy", "--id", "ac"]);
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["move", "ac", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 12, &["sync"]);
    let reply_ac = |id: &str| {
        String::from_utf8(reply_to_first_move(cy, id, "Sa3b6")).unwrap().replace("ab", "ac").into_bytes()
    };
    // Bo's domain publishes no DMARC policy: his unsigned mail is taken on its From.
    c.send_raw(BO, &reply_to_first_move(BO, "d-1@post.example.net", "Sa3b6"));
    // Cy's domain asks that its unsigned mail be refused.
    c.send_raw(cy, &reply_ac("d-2@strict.example"));
    let handled = c.referee(T0 + 20);
    let verdicts: Vec<&str> = handled.iter().map(verdict).collect();
    assert_eq!(verdicts, ["played", "forged"], "{handled:?}");
    let why = handled[1]["refusal"]["why"].as_str().unwrap();
    assert_eq!(
        why,
        "strict.example asks that its unsigned mail be refused (DMARC p=reject), and the mail has no DKIM \
         signature"
    );
    // Signed by Cy's domain, it is taken.
    c.send_raw(cy, &dkim_sign(&reply_ac("d-3@strict.example"), &cy_key));
    let handled = c.referee(T0 + 30);
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
    assert!(c.server_log().starts_with(&format!("Cy <{cy}> ac: ply 2 Sa3b6")), "{}", c.server_log());
}

#[test]
fn a_mail_is_left_for_the_next_pass_when_the_dns_cannot_answer() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    c.send_raw(BO, &dkim_sign(&reply_to_first_move(BO, "n-1@post.example.net", "Sa3b6"), &c.bo_key));
    // A DNS server that is not there.
    let nowhere = format!("127.0.0.1:{}", common::smtp::free_port());
    let maildir = c.inbox.maildir.to_str().unwrap().to_string();
    let o = c
        .ravenpost(T0 + 20, &["mail", "serve", "--maildir", &maildir, "--dns", &nowhere, "--once", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let h: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(verdict(&h), "deferred", "{h}");
    assert!(h["reason"].as_str().unwrap().contains("post.example.net"), "{h}");
    // Nothing taken, nothing answered, nothing in the ledger; the mail is still new.
    assert!(c.server_log().starts_with("Ann"), "{}", c.server_log());
    assert!(c.mails_to(BO).iter().all(|(subject, _, _)| !subject.starts_with("Re: ")), "no answer");
    let ledger = std::fs::read_to_string(c.server.join("ravenpost/referee-mail.log")).unwrap_or_default();
    assert!(!ledger.contains("n-1@post.example.net"), "{ledger}");
    assert_eq!(std::fs::read_dir(c.inbox.maildir.join("new")).unwrap().count(), 1);
    // With the DNS back, the next pass takes it.
    let handled = c.referee(T0 + 30);
    assert_eq!(verdict(&handled[0]), "played", "{handled:?}");
}

/// Regression (a break-in attempt): mail-parser, which the referee reads a mail's sender
/// with, and mail-auth, which checks its signature, read the header block two ways: a
/// header named `From\x0c` is a From to one and not to the other, and a line without a
/// colon ends the header block for one only. A mail whose first parser saw Bo's address
/// and whose second saw the attacker's own, signed by the attacker's domain, was played
/// as Bo under `dkim: required`. Now a header name no mail program writes, two of a
/// header the referee reads, or a From read two ways refuse the mail.
#[test]
fn a_mail_two_parsers_read_two_ways_was_played_as_the_player() {
    let t = tempfile::tempdir().unwrap();
    let evil = dkim_key(t.path(), "x", "evil.example");
    let c = club_full("", "  dkim: required\n", std::slice::from_ref(&evil.record));
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let before = c.server_log();
    let body = b"--XYZ\n\nSa3b6\n--XYZ--\n".to_vec();
    let lower = b"From: mallory@evil.example\nSubject: hi\nMessage-ID: <m-split@evil.example>\n".to_vec();
    let signed_part = [lower.clone(), b"\n".to_vec(), body.clone()].concat();
    let signed = dkim_sign_with(&signed_part, &evil, Some(&["from", "subject", "message-id"]), false);
    let signature =
        String::from_utf8(signed[..signed.len() - signed_part.len()].to_vec()).unwrap().replace("\r\n", "\n");
    let upper = b"From\x0c: bo@post.example.net\nSubject: Re: [ravenpost] ab: 1. 2e3\nMessage-ID: <split@evil.example>\n\
                  Content-Type: multipart/mixed; boundary=XYZ\nX-Junk\n \n"
        .to_vec();
    c.deliver_raw("split", &[upper, lower, signature.into_bytes(), b"\n".to_vec(), body].concat());
    // A signed mail of Bo's own, sent again with a header name mail-parser reads as
    // Message-ID and mail-auth does not (so the signature still verifies).
    let genuine = dkim_sign(&reply_to_first_move(BO, "bo-orig@post.example.net", "Sa3b6"), &c.bo_key);
    let genuine = String::from_utf8(genuine).unwrap();
    let (head, rest) = genuine.split_once("\r\n\r\n").unwrap();
    let replayed = format!("{head}\r\nMessage-ID : <replay-1@evil.example>\r\n\r\n{rest}");
    c.deliver_raw("replayed", replayed.as_bytes());
    let handled = c.referee(T0 + 20);
    assert_eq!(handled.len(), 2, "{handled:?}");
    for h in &handled {
        assert_eq!((verdict(h), h["refusal"]["kind"].as_str()), ("forged", Some("unsigned")), "{handled:?}");
        assert!(h["refusal"]["why"].as_str().unwrap().contains("which no mail program writes"), "{h}");
    }
    assert_eq!(c.server_log(), before, "nothing is committed");
}

/// Regression (a break-in attempt): a stranger's mail was recorded in the ledger as done
/// under its Message-ID before anyone was checked, so Bo's own mail with that id was
/// then dropped, unanswered, as applied before. Only what acted is recorded now.
#[test]
fn a_strangers_mail_with_the_players_message_id_made_the_players_own_mail_already_applied() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let id = "bo-next@post.example.net";
    c.mail("mallory@evil.example", id, "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "resign");
    let first = c.referee(T0 + 20);
    assert_eq!(verdict(&first[0]), "forged", "{first:?}");
    c.mail(BO, id, "Re: [ravenpost] ab: 1. 2e3", Some("ab.1@example.org"), "Sa3b6");
    let second = c.referee(T0 + 30);
    assert_eq!(verdict(&second[0]), "played", "{second:?}");
}

/// Regression (a break-in attempt): the ledger wrote a Message-ID's tabs and line ends
/// as spaces but looked the raw id up, so a mail whose id held a tab (or was folded)
/// was applied again each time it was delivered again.
#[test]
fn a_message_id_with_a_tab_was_applied_twice() {
    let c = club();
    ok_at(&c.ann, &c.home, T0 + 10, &["move", "ab", "2e3", "--as", "Ann"]);
    ok_at(&c.ann, &c.home, T0 + 11, &["sync"]);
    let raw = reply_to_first_move(BO, "dup\tmove@post.example.net", "Sa3b6");
    c.deliver_raw("first", &raw);
    let first = c.referee(T0 + 20);
    assert_eq!(verdict(&first[0]), "played", "{first:?}");
    let log = c.server_log();
    c.deliver_raw("again", &raw);
    let again = c.referee(T0 + 30);
    assert_eq!(verdict(&again[0]), "already-applied", "{again:?}");
    assert_eq!(c.server_log(), log);
}
