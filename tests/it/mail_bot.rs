//! A computer player in a club whose referee runs the mailbox (issue 35, "Done when": "a
//! complete game by the referee mailbox"). `ravenpost.yaml` lists the computer player
//! with `plays-by: bot`; Ann plays it with nothing but a mail client. The test is her
//! mail client: it sends each of her moves to the club's address with Python's smtplib
//! (a real SMTP server, aiosmtpd, delivers it into the referee's Maildir, which a real
//! dovecot serves over IMAP with TLS), and reads her own mailbox (where the club's mails
//! arrive, on a second dovecot) with Python's imaplib. The referee (`ravenpost mail serve
//! --imap … --once`, run in the club's bare repository) judges and commits her move, makes
//! the computer's reply with `ravenpost bot`'s search and commits it as the computer
//! player, and the post-receive hook mails it to Ann as it mails any opponent's move.

use crate::common;

use std::path::PathBuf;

use common::dns::{DkimKey, Dns, dkim_key, dkim_sign};
use common::dovecot::Dovecot;
use common::smtp::Smtp;
use common::{T0 as GIT_T0, git, identity, ok_at, ravenpost_at, text};
use mail_parser::MessageParser;

/// Later than the commits the `git` helper dates (its fixed clock, an hour after T0).
const T0: i64 = GIT_T0 + 7200;

const REFEREE: &str = "games@club.example.org";
const ANN: &str = "ann@mail.example.com";

/// Ann's moves (Gold) in the game the tests play. Found offline by letting Ann choose, at
/// each turn, the move after which the computer's search (2,000 nodes, as the referee
/// plays it here) likes its position best, and the computer answer with its own best
/// move: with those real replies, the computer mates her on its 12th move. The search
/// with a node budget is deterministic, so the line replays the same every time.
const ANN_LINE: [&str; 12] =
    ["R3f1", "H2a3", "K3g1", "U2a3", "S3b3", "G3a4", "Se3f3", "R3a6", "M1f1", "P3j1", "Sg3h3", "B1c2"];

/// The club: its bare repository (both hooks, mails through the sink), the admin's clone,
/// the referee's mailbox (SMTP in, IMAP out) and Ann's (SMTP in, IMAP out), the DNS the
/// referee asks about DKIM, and the DKIM keys of the club's domain and of Ann's provider
/// (published there).
struct Club {
    _t: tempfile::TempDir,
    admin: PathBuf,
    server: PathBuf,
    /// The admin's clone, where games are created.
    org: PathBuf,
    inbox: Smtp,
    referee_imap: Dovecot,
    _sink: Smtp,
    ann_imap: Dovecot,
    ca: PathBuf,
    dns: Dns,
    club_key: DkimKey,
    ann_key: DkimKey,
}

/// A mail as Ann's client shows it.
#[derive(Debug)]
struct Got {
    id: String,
    to: String,
    subject: String,
    body: String,
}

/// The club, with `computer` (YAML lines of the computer player's entry under
/// `players: Computer:`, `plays-by: bot` among them) and `more_club` (lines under
/// `club:`); the game `ac`, Ann (Gold) v Computer (Scarlet), created and pushed.
fn club(computer: &str, more_club: &str, new_game: &[&str]) -> Club {
    let t = tempfile::tempdir().unwrap();
    // Both dovecots read their Maildirs below it, as another user when run as root.
    std::fs::set_permissions(t.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let admin = identity(&t.path().join("admin-home"), "Club Admin", "admin@club.example.org");
    let (ca, cert, key) = common::smtp::test_ca(t.path());
    let club_key = dkim_key(t.path(), "club2026", "club.example.org");
    let ann_key = dkim_key(t.path(), "mail2026", "mail.example.com");
    let dns = Dns::start(t.path(), &[club_key.record.clone(), ann_key.record.clone()]);
    let (referee_side, ann_side) = (t.path().join("referee"), t.path().join("ann"));
    std::fs::create_dir_all(&referee_side).unwrap();
    std::fs::create_dir_all(&ann_side).unwrap();
    let inbox = Smtp::start(&referee_side, "inbox", None);
    let referee_imap = Dovecot::start(&referee_side, &cert, &key, &inbox.maildir);
    let sink = Smtp::start(&ann_side, "mailbox", None);
    let ann_imap = Dovecot::start(&ann_side, &cert, &key, &sink.maildir);
    let server = t.path().join("server.git");
    git(t.path(), &admin, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok_at(t.path(), &admin, T0, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    let org = t.path().join("org");
    git(t.path(), &admin, &["clone", "--quiet", server.to_str().unwrap(), org.to_str().unwrap()]);
    let settings = format!(
        "version: 1\nlayout: fan-out\nplayers:\n  Ann:\n    email: {ANN}\n    plays-by: mail\n  Computer:\n\
         {computer}club:\n  referee: {REFEREE}\n{more_club}mail:\n  smtp:\n    host: 127.0.0.1\n    \
         port: {}\n    security: none\n",
        sink.port
    );
    std::fs::write(org.join("ravenpost.yaml"), settings).unwrap();
    git(&org, &admin, &["add", "ravenpost.yaml"]);
    git(&org, &admin, &["commit", "--quiet", "-m", "club settings"]);
    let mut new = vec!["new", "gygax", "--white", "Ann", "--black", "Computer", "--id", "ac"];
    new.extend_from_slice(new_game);
    ok_at(&org, &admin, T0, &new);
    ok_at(&org, &admin, T0, &["sync"]);
    Club { _t: t, admin, server, org, inbox, referee_imap, _sink: sink, ann_imap, ca, dns, club_key, ann_key }
}

impl Club {
    /// One pass of the referee over the club's mailbox, over IMAP, the computer searching
    /// 2,000 nodes a move: its JSON lines. Every post-receive hook it ran ran cleanly.
    fn referee(&self, time: i64) -> Vec<serde_json::Value> {
        let url = format!("imaps://{}@127.0.0.1:{}/INBOX", self.referee_imap.user, self.referee_imap.port);
        let o = ravenpost_at(&self.server, &self.admin, time)
            .env("RAVENPOST_IMAP_PASSWORD", self.referee_imap.password)
            .args(["mail", "serve", "--imap", &url, "--ca-file", self.ca.to_str().unwrap()])
            .args(["--dns", &self.dns.addr(), "--bot-nodes", "2000", "--once", "--json"])
            .output()
            .unwrap();
        assert!(o.status.success(), "mail serve: {}", text(&o));
        let served: Vec<serde_json::Value> =
            String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        for s in &served {
            assert!(s["hook"].is_null(), "{s}");
        }
        served
    }

    /// Ann's new mail, fetched from her mailbox over IMAP.
    fn ann_mail(&self) -> Vec<Got> {
        let got: Vec<Got> = self
            .ann_imap
            .fetch_unseen(&self.ca)
            .iter()
            .map(|raw| {
                let m = MessageParser::default().parse(raw).expect("a message");
                Got {
                    id: m.message_id().unwrap().to_string(),
                    to: m.to().and_then(|a| a.first()).and_then(|a| a.address()).unwrap().to_string(),
                    subject: m.subject().unwrap_or_default().to_string(),
                    body: m.body_text(0).unwrap_or_default().into_owned(),
                }
            })
            .collect();
        for m in &got {
            assert_eq!(m.to, ANN, "the club mails Ann only: {m:#?}");
        }
        got
    }

    /// Sends the message `raw` from `from` to the club's address with smtplib.
    fn send_raw(&self, from: &str, raw: &[u8]) {
        common::smtp::send_raw(self.inbox.port, from, REFEREE, raw);
    }

    /// The server's branch log, one line a commit: author, address, subject.
    fn server_log(&self) -> String {
        git(&self.server, &self.admin, &["log", "--format=%an <%ae> %s", "main"])
    }
}

/// A plain-text mail from `from` to the club's address, a reply to `to`, with `body`.
fn reply(from: &str, id: &str, to: &Got, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {REFEREE}\r\nSubject: Re: {}\r\nMessage-ID: <{id}>\r\nIn-Reply-To: <{}>\r\n\
         References: <{1}>\r\nDate: Mon, 07 Dec 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        to.subject, to.id
    )
    .into_bytes()
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The referee's answer (its own Message-ID, `answer.…`) and the hook's mail among `got`.
fn answer_and_notice(got: Vec<Got>) -> (Got, Got) {
    assert_eq!(got.len(), 2, "the referee's answer and the hook's mail: {got:#?}");
    let (answers, notices): (Vec<Got>, Vec<Got>) = got.into_iter().partition(|m| m.id.starts_with("answer."));
    assert_eq!((answers.len(), notices.len()), (1, 1), "{answers:#?} {notices:#?}");
    (answers.into_iter().next().unwrap(), notices.into_iter().next().unwrap())
}

/// A complete Gygax Chess game by the referee mailbox: Ann mails each of her 12 moves
/// ([`ANN_LINE`]) in reply to the club's last mail; each referee pass plays her move and
/// the computer's reply, and Ann's mailbox then holds the referee's answer and the hook's
/// mail with the computer's move, which the test reads the move from (it is the one the
/// referee reports and the one the game file holds). The game ends by the computer's
/// checkmate on ply 24 (a fixed line of Ann's moves, chosen to lose, answered by the
/// bot's real replies; not a resignation or an agreed draw): 0-1. `verify` is clean, and `log` and the server's
/// history show both sides' moves, the computer's committed as the computer player
/// under the referee's address.
#[test]
fn a_bot_plays_a_whole_gygax_game_through_the_referee_mailbox() {
    let c = club("    plays-by: bot\n", "", &[]);
    // The new game: mailed to Ann only (a computer player is never mailed).
    let new = c.ann_mail();
    assert_eq!(new.len(), 1, "{new:#?}");
    assert!(new[0].body.starts_with("Game ac: Ann (Gold) to move"), "{new:#?}");
    let mut last = new.into_iter().next().unwrap();
    let mut t = T0 + 60;
    let mut computer_moves = Vec::new();
    for (i, token) in ANN_LINE.iter().enumerate() {
        c.send_raw(ANN, &reply(ANN, &format!("ann-{i}@mail.example.com"), &last, token));
        let served = c.referee(t);
        assert_eq!(served.len(), 2, "Ann's mail, then the computer's move: {served:#?}");
        assert_eq!(served[0]["verdict"], "played", "{served:#?}");
        assert_eq!(served[0]["ply"], 2 * i + 1, "{served:#?}");
        let computer = &served[1];
        assert_eq!(computer["player"], "Computer", "{computer}");
        let moves = computer["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 1, "{computer}");
        assert_eq!(
            (moves[0]["game"].as_str(), moves[0]["ply"].as_u64()),
            (Some("ac"), Some(2 * i as u64 + 2))
        );
        assert_eq!(moves[0]["action"], "move", "{computer}");
        let reported = moves[0]["san"].as_str().unwrap().to_string();

        let (answer, notice) = answer_and_notice(c.ann_mail());
        assert!(words(&answer.body).contains(&format!("Played: Ann (Gold) plays {token}.")), "{answer:#?}");
        let over = i + 1 == ANN_LINE.len();
        // The mail's first line names the computer's move: `Game ac: Ann (Gold) to move
        // after 3... Rx3b3.`, and once it ended the game `Game ac has ended: 0-1 (12...
        // R3g2#).`
        let head = match over {
            false => format!("Game ac: Ann (Gold) to move after {}... ", i + 1),
            true => format!("Game ac has ended: 0-1 ({}... ", i + 1),
        };
        let first = notice.body.lines().next().unwrap_or_default();
        let rest = first.strip_prefix(&head).unwrap_or_else(|| panic!("{head:?}: {notice:#?}"));
        let mailed = rest.trim_end_matches('.').trim_end_matches(')').to_string();
        assert_eq!(mailed, reported, "the mail carries the computer's move: {notice:#?}");
        assert_eq!(moves[0]["result"].as_str(), over.then_some("0-1"), "{computer}");
        computer_moves.push(mailed);
        last = notice;
        t += 120;
    }
    assert!(computer_moves.last().unwrap().ends_with('#'), "mate: {computer_moves:?}");

    // Nothing waits for anyone now: the next pass does nothing.
    assert!(c.referee(t).is_empty());
    let o = ravenpost_at(&c.server, &c.admin, t).arg("verify").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o), "1 game verified, 0 problems\n");
    let status = text(&ravenpost_at(&c.server, &c.admin, t).arg("status").output().unwrap());
    assert!(
        status.contains("ac  gygax  Ann v Computer  ply 24   finished 0-1 (Ann (Gold) is checkmated)"),
        "{status}"
    );
    // `log`: both sides' moves, in turn, each by its player.
    let log = text(&ravenpost_at(&c.server, &c.admin, t).args(["log", "ac"]).output().unwrap());
    let plies: Vec<(String, String)> = log
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let at = f.iter().position(|w| *w == "ply")?;
            Some((f[at - 1].to_string(), f[at + 2].trim_end_matches(',').to_string()))
        })
        .collect();
    let expected: Vec<(String, String)> = ANN_LINE
        .iter()
        .zip(&computer_moves)
        .flat_map(|(a, b)| [("Ann".to_string(), a.to_string()), ("Computer".to_string(), b.clone())])
        .collect();
    assert_eq!(plies, expected, "{log}");
    // The computer's moves are committed by the referee as the computer player, under
    // the referee's address (the computer has none of its own); Ann's under hers.
    let history = c.server_log();
    let by = |who: &str| history.lines().filter(|l| l.starts_with(who)).count();
    assert_eq!((by(&format!("Ann <{ANN}> ac: ply")), by(&format!("Computer <{REFEREE}> ac: ply"))), (12, 12));
}

/// No mail acts for a computer player, however it is signed: under `dkim: required`, a
/// mail with a valid DKIM signature of the club's own domain, from the address the club
/// registered for the computer, from the address the game's tag gives it, or from the
/// referee's own address, resigning the computer's game, is refused like a stranger's
/// (not taken, not answered, nothing committed, its Message-ID not recorded); Ann's own
/// mail is then played and the computer answers it.
#[test]
fn a_mail_signed_as_the_bot_is_refused() {
    const COMPUTER: &str = "computer@club.example.org";
    const TAGGED: &str = "bot@club.example.org";
    let c = club(
        &format!("    email: {COMPUTER}\n    plays-by: bot\n"),
        "  dkim: required\n",
        &["--black-email", TAGGED],
    );
    let new = c.ann_mail();
    assert_eq!(new.len(), 1, "{new:#?}");
    let before = c.server_log();
    for (i, from) in [COMPUTER, TAGGED, REFEREE].into_iter().enumerate() {
        let forged =
            dkim_sign(&reply(from, &format!("forged-{i}@club.example.org"), &new[0], "resign"), &c.club_key);
        c.send_raw(from, &forged);
    }
    // Signed as the computer, a move of its own (it is Ann's turn; who sent it comes first).
    let forged = dkim_sign(&reply(COMPUTER, "forged-move@club.example.org", &new[0], "2e6"), &c.club_key);
    c.send_raw(COMPUTER, &forged);
    let served = c.referee(T0 + 60);
    let refusals: Vec<(&str, &str, &str)> = served
        .iter()
        .map(|h| {
            let v = (h["verdict"].as_str(), h["refusal"]["kind"].as_str(), h["refusal"]["address"].as_str());
            (v.0.unwrap_or(""), v.1.unwrap_or(""), v.2.unwrap_or(""))
        })
        .collect();
    assert_eq!(
        refusals,
        [
            ("forged", "not-a-player", COMPUTER),
            ("forged", "not-a-player", TAGGED),
            ("forged", "not-a-player", REFEREE),
            ("forged", "not-a-player", COMPUTER)
        ],
        "{served:#?}"
    );
    assert!(served.iter().all(|h| h["answer"].is_null()), "nobody is answered: {served:#?}");
    assert_eq!(c.server_log(), before, "nothing is committed");
    assert!(c.ann_mail().is_empty(), "nobody was mailed");
    let ledger = std::fs::read_to_string(c.server.join("ravenpost/referee-mail.log")).unwrap_or_default();
    assert!(!ledger.contains("forged-"), "no forged Message-ID is recorded: {ledger}");

    // Ann's own mail, signed by her provider, is played, and the computer answers it.
    c.send_raw(ANN, &dkim_sign(&reply(ANN, "ann-0@mail.example.com", &new[0], "2e3"), &c.ann_key));
    let served = c.referee(T0 + 120);
    assert_eq!(served.len(), 2, "{served:#?}");
    assert_eq!((served[0]["verdict"].as_str(), served[0]["ply"].as_u64()), (Some("played"), Some(1)));
    assert_eq!(
        (served[1]["player"].as_str(), served[1]["moves"][0]["ply"].as_u64()),
        (Some("Computer"), Some(2))
    );
    let (_, notice) = answer_and_notice(c.ann_mail());
    let san = served[1]["moves"][0]["san"].as_str().unwrap();
    assert!(
        notice.body.starts_with(&format!("Game ac: Ann (Gold) to move after 1... {san}.")),
        "{notice:#?}"
    );
    // Committed by the referee as the computer player, under the address the club gave it.
    let history = c.server_log();
    let ledger = std::fs::read_to_string(c.server.join("ravenpost/referee-mail.log")).unwrap();
    assert!(ledger.contains("ann-0@mail.example.com") && !ledger.contains("forged-"), "{ledger}");
    let lines: Vec<&str> = history.lines().collect();
    assert!(lines[0].starts_with(&format!("Computer <{COMPUTER}> ac: ply 2 {san} ")), "{history}");
    assert!(lines[1].starts_with(&format!("Ann <{ANN}> ac: ply 1 2e3 ")), "{history}");
}

/// A game pushed with the computer to move (it plays Gold) waits for no mail: the
/// referee's next pass makes its first move and Ann is mailed it; the pass after that,
/// with nothing new, does nothing. A move for the computer pushed by a git player is
/// refused by the pre-receive hook.
#[test]
fn a_game_pushed_with_the_computer_to_move_is_answered_on_the_referees_next_pass() {
    let c = club("    plays-by: bot\n", "", &[]);
    assert_eq!(c.ann_mail().len(), 1, "the game ac");
    let new = ["new", "gygax", "--white", "Computer", "--black", "Ann", "--id", "ca"];
    ok_at(&c.org, &c.admin, T0 + 30, &new);
    ok_at(&c.org, &c.admin, T0 + 30, &["sync"]);
    let created = c.ann_mail();
    assert_eq!(created.len(), 1, "{created:#?}");
    let head = "Game ca: new Gygax Chess game, Computer v Ann; Computer (Gold) to move.";
    assert!(created[0].body.starts_with(head), "{created:#?}");
    // A git player cannot push a move for the computer: the hook refuses it.
    ok_at(&c.org, &c.admin, T0 + 40, &["move", "ca", "2e3", "--as", "Computer"]);
    // Pushed as the admin (gitolite's `GL_USER`), as a club's server authenticates it.
    let pushed =
        ravenpost_at(&c.org, &c.admin, T0 + 40).env("GL_USER", "admin").arg("sync").output().unwrap();
    assert!(!pushed.status.success(), "{}", text(&pushed));
    assert!(
        words(&text(&pushed)).contains(
            "Computer is a computer player (plays-by: bot in ravenpost.yaml): its steps are made only by the \
             club's referee mailbox, never pushed"
        ),
        "{}",
        text(&pushed)
    );
    // The hook led with "Computer's steps must be pushed by the account `Computer`",
    // as if another push could make the step: the computer's reason now comes first.
    let said = words(&text(&pushed));
    let account = said.find("must be pushed by the account");
    assert!(account.is_some(), "the push is authenticated: {said}");
    assert!(said.find("is a computer player") < account, "{said}");
    let served = c.referee(T0 + 60);
    assert_eq!(served.len(), 1, "no mail, the computer's move: {served:#?}");
    let m = &served[0]["moves"][0];
    assert_eq!(
        (m["game"].as_str(), m["ply"].as_u64(), m["action"].as_str()),
        (Some("ca"), Some(1), Some("move"))
    );
    let san = m["san"].as_str().unwrap();
    let mailed = c.ann_mail();
    assert_eq!(mailed.len(), 1, "{mailed:#?}");
    let head = format!("Game ca: Ann (Scarlet) to move after 1. {san}.");
    assert!(mailed[0].body.starts_with(&head), "{head:?}: {mailed:#?}");
    assert!(c.referee(T0 + 120).is_empty(), "nothing more is due");
    assert!(
        c.server_log().starts_with(&format!("Computer <{REFEREE}> ca: ply 1 {san} ")),
        "{}",
        c.server_log()
    );
}

/// The club trial: over IMAP, a computer player's move made due by a move that did not
/// come by mail (a game pushed with the computer to move) waited for IDLE to end, a
/// minute or more. The referee now looks at the branch every `--interval` seconds while
/// in IDLE, and ends IDLE when it moved.
#[test]
fn a_computer_move_made_due_by_a_push_waited_for_the_imap_idle_to_end() {
    let c = club("    plays-by: bot\n", "", &[]);
    let url = format!("imaps://{}@127.0.0.1:{}/INBOX", c.referee_imap.user, c.referee_imap.port);
    /// The referee, stopped however the test ends.
    struct Running(std::process::Child);
    impl Drop for Running {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _referee = Running(
        ravenpost_at(&c.server, &c.admin, T0 + 20)
            .env("RAVENPOST_IMAP_PASSWORD", c.referee_imap.password)
            .args(["mail", "serve", "--imap", &url, "--ca-file", c.ca.to_str().unwrap()])
            .args(["--dns", &c.dns.addr(), "--bot-nodes", "2000", "--interval", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    // Nothing is due: the referee takes the unseen mail (none) and waits in IDLE, which
    // ends by itself only after 60 seconds.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let new = ["new", "gygax", "--white", "Computer", "--black", "Ann", "--id", "ca"];
    ok_at(&c.org, &c.admin, T0 + 30, &new);
    ok_at(&c.org, &c.admin, T0 + 30, &["sync"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !c.server_log().starts_with(&format!("Computer <{REFEREE}> ca: ply 1 ")) {
        assert!(std::time::Instant::now() < deadline, "no move by the computer: {}", c.server_log());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
