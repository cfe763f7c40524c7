//! A club of four playing through the referee mailbox (issue 33, "Done when"): Ann and Cy
//! play from git clones of the club's bare repository; Bo and Dee have nothing but a
//! mail client (their mails are sent with Python's smtplib, no ravenpost on their side)
//! and answer the mails the post-receive hook sends them, replying to each with
//! `In-Reply-To`. Two games, Ann v Bo and Dee v Cy: moves each way, an illegal move
//! refused with the legal moves, draw offers accepted and declined, a resignation; every
//! mail tells its reader how to answer on their channel; the bare repository verifies
//! clean and both clones hold every move. And the board mail of a game with a clock, on
//! NeoMutt's first screen in an 80×24 tmux window. The club's mailbox is on a real
//! dovecot, read over IMAP with TLS.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::notify::{Mail, read, since};
use common::long_game::{LongGame, random_game};
use common::smtp::Smtp;
use common::tmux::{Tmux, keep};
use common::tools::require;
use common::{DAY, T0 as GIT_T0, fan_out_path, git, identity, ok_at, ravenpost_at, text};
use ravenpost::notation::san::{SanError, read_move, write_move};

/// Later than the commits the `git` helper dates (its fixed clock, an hour after T0).
const T0: i64 = GIT_T0 + 7200;

const REFEREE: &str = "games@club.example.org";
const ANN: &str = "ann@club.example.org";
const BO: &str = "bo@post.example.net";
const CY: &str = "cy@club.example.org";
const DEE: &str = "dee@mail.example.com";

/// A member who plays from a clone: its directory and home.
struct Clone {
    dir: PathBuf,
    home: PathBuf,
}

/// The club: the bare repository, the two clones, the referee's inbox (aiosmtpd delivers
/// the club's mail into the Maildir a real dovecot serves over IMAP with TLS, which the
/// referee reads), and the sink where the players' mail arrives.
struct Club {
    t: tempfile::TempDir,
    admin: PathBuf,
    server: PathBuf,
    ann: Clone,
    cy: Clone,
    inbox: Smtp,
    sink: Smtp,
    imap: common::dovecot::Dovecot,
    /// The test CA that signed dovecot's certificate.
    ca: PathBuf,
    /// The DNS server the referee asks about DKIM (none of the members' domains signs or
    /// publishes a DMARC policy: their mail is taken on its From).
    dns: common::dns::Dns,
}

/// The club, with `new` (arguments of `ravenpost new` after the variant) for each game,
/// created in Ann's clone and pushed; Cy clones after that.
fn club(games: &[&[&str]]) -> Club {
    let t = tempfile::tempdir().unwrap();
    let admin = identity(&t.path().join("admin"), "Club Admin", "admin@club.example.org");
    let inbox = Smtp::start(t.path(), "inbox", None);
    let sink = Smtp::start(t.path(), "sink", None);
    let (ca, cert, key) = common::smtp::test_ca(t.path());
    let imap = common::dovecot::Dovecot::start(t.path(), &cert, &key, &inbox.maildir);
    let dns = common::dns::Dns::start(t.path(), &[]);
    let server = t.path().join("server.git");
    git(t.path(), &admin, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok_at(t.path(), &admin, T0, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    let clone = |name: &str, email: &str| {
        let home = identity(&t.path().join(format!("{name}-home")), name, email);
        let dir = t.path().join(name.to_lowercase());
        git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
        Clone { dir, home }
    };
    let ann = clone("Ann", ANN);
    let settings = format!(
        "version: 1\nlayout: fan-out\nplayers:\n  Ann:\n    email: {ANN}\n  Bo:\n    email: {BO}\n    \
         plays-by: mail\n  Cy:\n    email: {CY}\n  Dee:\n    email: {DEE}\n    plays-by: mail\n\
         club:\n  referee: {REFEREE}\nmail:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    \
         security: none\n",
        sink.port
    );
    std::fs::write(ann.dir.join("ravenpost.yaml"), settings).unwrap();
    git(&ann.dir, &ann.home, &["add", "ravenpost.yaml"]);
    git(&ann.dir, &ann.home, &["commit", "--quiet", "-m", "club settings"]);
    for new in games {
        let mut args = vec!["new", "gygax"];
        args.extend_from_slice(new);
        ok_at(&ann.dir, &ann.home, T0, &args);
    }
    ok_at(&ann.dir, &ann.home, T0, &["sync"]);
    let cy = clone("Cy", CY);
    Club { t, admin, server, ann, cy, inbox, sink, imap, ca, dns }
}

impl Club {
    /// One pass of the referee over the club's mailbox, over IMAP: its JSON lines. The
    /// post-receive hook it runs after a played step must have run cleanly.
    fn referee(&self, time: i64) -> Vec<serde_json::Value> {
        let url = format!("imaps://{}@127.0.0.1:{}/INBOX", self.imap.user, self.imap.port);
        let o = ravenpost_at(&self.server, &self.admin, time)
            .env("RAVENPOST_IMAP_PASSWORD", self.imap.password)
            .args([
                "mail",
                "serve",
                "--imap",
                &url,
                "--ca-file",
                self.ca.to_str().unwrap(),
                "--dns",
                &self.dns.addr(),
                "--once",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "mail serve: {}", text(&o));
        let handled: Vec<serde_json::Value> =
            String::from_utf8(o.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        for h in &handled {
            assert!(h["hook"].is_null(), "{h}");
        }
        handled
    }

    /// The tip of the server's branch.
    fn tip(&self) -> String {
        git(&self.server, &self.admin, &["rev-parse", "main"])
    }

    /// The game file `id` on the server's branch.
    fn server_game(&self, id: &str) -> String {
        git(&self.server, &self.admin, &["show", &format!("main:{}", fan_out_path("gygax", id))])
    }

    /// A plain mail from `from` to the club's address, sent with Python's smtplib as a
    /// reply to `to` (the mail the member received), with `body`.
    fn reply(&self, from: &str, id: &str, to: &Mail, body: &str) {
        let script = format!(
            "import smtplib\nfrom email.message import EmailMessage\nm = EmailMessage()\n\
             m['From'] = {from:?}\nm['To'] = {REFEREE:?}\nm['Subject'] = {:?}\nm['Message-ID'] = '<{id}>'\n\
             m['In-Reply-To'] = '<{1}>'\nm['References'] = '<{1}>'\nm.set_content({body:?})\n\
             s = smtplib.SMTP('127.0.0.1', {2})\ns.send_message(m)\ns.quit()\n",
            format!("Re: {}", to.subject),
            to.id,
            self.inbox.port
        );
        let o = Command::new("python3").arg("-c").arg(&script).output().unwrap();
        assert!(o.status.success(), "smtplib: {}", text(&o));
    }

    /// The one mail the hook sent to `to` since `before` messages (answers of the
    /// referee left out).
    fn hook_mail_to(&self, before: usize, to: &str) -> Mail {
        let got: Vec<Mail> =
            since(&self.sink, before).into_iter().filter(|m| m.to == to && !is_answer(m)).collect();
        assert_eq!(got.len(), 1, "one hook mail to {to}: {got:#?}");
        got.into_iter().next().unwrap()
    }

    /// The referee's one answer to `to` since `before` messages.
    fn answer_to(&self, before: usize, to: &str) -> Mail {
        let got: Vec<Mail> =
            since(&self.sink, before).into_iter().filter(|m| m.to == to && is_answer(m)).collect();
        assert_eq!(got.len(), 1, "one answer to {to}: {got:#?}");
        got.into_iter().next().unwrap()
    }

    fn sent(&self) -> usize {
        self.sink.messages().len()
    }
}

/// A referee's answer (its own Message-ID), not a hook's mail.
fn is_answer(m: &Mail) -> bool {
    m.id.starts_with("answer.")
}

/// `ravenpost move ID TOKEN` then `sync` in a clone at `time`.
fn play(c: &Clone, time: i64, id: &str, token: &str, extra: &[&str]) {
    let mut args = vec!["move", id, token];
    args.extend_from_slice(extra);
    ok_at(&c.dir, &c.home, time, &["sync"]);
    ok_at(&c.dir, &c.home, time, &args);
    ok_at(&c.dir, &c.home, time, &["sync"]);
}

/// The single mail a referee's pass handled, which must have the verdict `verdict`.
fn one(handled: &[serde_json::Value], verdict: &str) -> serde_json::Value {
    assert_eq!(handled.len(), 1, "{handled:#?}");
    assert_eq!(handled[0]["verdict"], verdict, "{handled:#?}");
    handled[0].clone()
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What every mail of the hook must say, on the recipient's channel: a mail player is
/// told to reply (to the referee, Reply-To) when it is their move and never to run
/// ravenpost; a git player is told `ravenpost sync`, never `mail import`/`mail send`.
/// A mail that only tells its reader to wait (the opponent still to move after a step
/// without a move) says so on its second line and need not say more.
fn instructions(m: &Mail) {
    let first = m.body.lines().next().unwrap_or_default();
    let name = match m.to.as_str() {
        ANN => "Ann",
        BO => "Bo",
        CY => "Cy",
        DEE => "Dee",
        other => panic!("a mail to a stranger, {other}: {m:#?}"),
    };
    let their_move = first.contains(&format!(": {name} (")) && first.contains(") to move");
    for l in m.body.lines() {
        assert!(l.chars().count() <= 78, "a line longer than 78 columns: {l:?}\n{}", m.body);
    }
    assert!(!m.body.contains("mail import") && !m.body.contains("mail send"), "{m:#?}");
    if name == "Bo" || name == "Dee" {
        assert_eq!(m.reply_to.as_deref(), Some(REFEREE), "{m:#?}");
        assert!(!m.body.contains("ravenpost "), "a mail player runs no ravenpost: {m:#?}");
        if their_move {
            assert!(words(&m.body).contains("To answer: reply to this mail with your move"), "{m:#?}");
        }
    } else {
        // From the club, for the player who acted; a reply goes to that player.
        assert_eq!((m.from.0.as_str(), m.from.1.ends_with(" via ravenpost")), (REFEREE, true), "{m:#?}");
        let reply = m.reply_to.as_deref().unwrap_or_default();
        assert!([ANN, BO, CY, DEE].contains(&reply) && reply != m.to, "{m:#?}");
        let waits = m.body.lines().nth(1).is_some_and(|l| l.starts_with("Nothing to do now"));
        assert!(m.body.contains("`ravenpost sync`") || waits, "{m:#?}");
        if their_move {
            assert!(words(&m.body).contains("To answer: `ravenpost sync`, then `ravenpost move"), "{m:#?}");
        }
    }
}

/// The position of `line` after `plies` plies.
fn position_after(line: &LongGame, plies: usize) -> ravenpost::engine::Position {
    let mut p = line.variant.start_position();
    for m in &line.moves[..plies] {
        p = line.variant.make(&p, m);
    }
    p
}

/// A token of a piece with a letter that the side to move after `plies` plies of `line`
/// cannot play (no legal move matches), and the sorted legal moves of that letter.
fn illegal_move(line: &LongGame, plies: usize) -> (String, char, Vec<String>) {
    let v = &line.variant;
    let p = position_after(line, plies);
    let mut legal: Vec<String> = v.legal_moves(&p).iter().map(|m| write_move(v, &p, m)).collect();
    legal.sort();
    legal.dedup();
    for s in legal.iter().filter(|s| s.starts_with(|c: char| c.is_ascii_uppercase())) {
        let head = &s[..s.len() - 2];
        for file in 'a'..='l' {
            for rank in 1..=8 {
                let token = format!("{head}{file}{rank}");
                if matches!(read_move(v, &p, &token), Err(SanError::Illegal { .. })) {
                    let letter = s.chars().next().unwrap();
                    let same: Vec<String> = legal.iter().filter(|l| l.starts_with(letter)).cloned().collect();
                    return (token, letter, same);
                }
            }
        }
    }
    panic!("no illegal move of a lettered piece found after {plies} plies");
}

/// The game's SANs as the file `text` records them.
fn sans(text: &str) -> Vec<String> {
    let game = ravenpost::record::load(text).expect("the game reads");
    let mut p = game.variant.start_position();
    let mut out = Vec::new();
    for m in &game.moves {
        out.push(write_move(&game.variant, &p, m));
        p = game.variant.make(&p, m);
    }
    out
}

/// The server verifies clean at `t`; it holds every move of the two games (`ab` drawn,
/// `dc` resigned by Gold); both clones, after `sync`, hold the same game files and tip.
fn every_move_everywhere(c: &Club, ab: &LongGame, dc: &LongGame, t: i64) {
    let o = ravenpost_at(&c.server, &c.admin, t).arg("verify").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o), "2 games verified, 0 problems\n");
    let ab_file = c.server_game("ab");
    let dc_file = c.server_game("dc");
    assert_eq!(sans(&ab_file), ab.tokens);
    assert_eq!(sans(&dc_file), dc.tokens);
    assert!(ab_file.contains("[Result \"1/2-1/2\"]"), "{ab_file}");
    assert!(dc_file.contains("[Result \"0-1\"]"), "{dc_file}");
    for clone in [&c.ann, &c.cy] {
        ok_at(&clone.dir, &clone.home, t, &["sync"]);
        for (id, file) in [("ab", &ab_file), ("dc", &dc_file)] {
            let here = std::fs::read_to_string(clone.dir.join(fan_out_path("gygax", id))).unwrap();
            assert_eq!(&here, file, "{} {id}", clone.dir.display());
        }
        assert_eq!(git(&clone.dir, &clone.home, &["rev-parse", "HEAD"]), c.tip());
    }
}

#[test]
fn four_members_two_by_mail_only_play_git_players_through_the_referee_mailbox() {
    let c = club(&[
        &["--white", "Ann", "--black", "Bo", "--id", "ab"],
        &["--white", "Dee", "--black", "Cy", "--id", "dc"],
    ]);
    let ab = random_game("gygax", 6, 33);
    let dc = random_game("gygax", 6, 34);
    // The new games: mailed to all four; Dee is to move in hers.
    let new = since(&c.sink, 0);
    assert_eq!(new.len(), 4, "{new:#?}");
    let mut dee_mail = c.hook_mail_to(0, DEE);
    assert!(dee_mail.body.starts_with("Game dc: Dee (Gold) to move"), "{dee_mail:#?}");
    let mut t = T0 + 60;

    // Ann v Bo: three moves each way, Bo answering each mail of the hook by mail.
    for (i, pair) in ab.tokens[..4].chunks(2).enumerate() {
        let before = c.sent();
        play(&c.ann, t, "ab", &pair[0], &[]);
        let to_bo = c.hook_mail_to(before, BO);
        assert!(
            to_bo.body.starts_with(&format!("Game ab: Bo (Scarlet) to move after {}", i + 1)),
            "{to_bo:#?}"
        );
        let before = c.sent();
        c.reply(
            BO,
            &format!("bo-{i}@post.example.net"),
            &to_bo,
            &format!("{}\n\n> {}\n", pair[1], to_bo.subject),
        );
        let played = one(&c.referee(t + 10), "played");
        assert_eq!((played["game"].as_str(), played["ply"].as_u64()), (Some("ab"), Some(2 * i as u64 + 2)));
        let to_ann = c.hook_mail_to(before, ANN);
        assert!(words(&to_ann.body).contains(&format!("Ann (Gold) to move after {}... {}", i + 1, pair[1])));
        assert!(c.answer_to(before, BO).body.contains("Played: Bo (Scarlet) plays"));
        t += 100;

        // Dee v Cy, in between: Dee answers the hook's mail, Cy syncs and answers.
        let before = c.sent();
        c.reply(DEE, &format!("dee-{i}@mail.example.com"), &dee_mail, &format!("{}\n", dc.tokens[2 * i]));
        one(&c.referee(t), "played");
        let to_cy = c.hook_mail_to(before, CY);
        assert!(words(&to_cy.body).contains(&format!(
            "Cy (Scarlet) to move after {}. {}",
            i + 1,
            dc.tokens[2 * i]
        )));
        let before = c.sent();
        play(&c.cy, t + 10, "dc", &dc.tokens[2 * i + 1], &[]);
        dee_mail = c.hook_mail_to(before, DEE);
        t += 100;
    }

    // Ann's third move; Bo answers with an illegal move: refused with the legal moves of
    // that piece, and nothing committed.
    let before = c.sent();
    play(&c.ann, t, "ab", &ab.tokens[4], &[]);
    let to_bo = c.hook_mail_to(before, BO);
    let (illegal, letter, legal) = illegal_move(&ab, 5);
    let tip = c.tip();
    let before = c.sent();
    c.reply(BO, "bo-illegal@post.example.net", &to_bo, &format!("{illegal}\n"));
    let refused = one(&c.referee(t + 10), "refused");
    assert_eq!(refused["game"], "ab", "{refused}");
    assert_eq!(c.tip(), tip, "a refused move commits nothing");
    assert_eq!(since(&c.sink, before).len(), 1, "only the answer: no hook mail");
    let answer = c.answer_to(before, BO);
    assert!(answer.body.contains("Not played:"), "{}", answer.body);
    let head = format!("The legal moves of the {letter} pieces ({}):", legal.len());
    let listed: Vec<String> = answer
        .body
        .split(&head)
        .nth(1)
        .unwrap_or_else(|| panic!("{head:?} not in:\n{}", answer.body))
        .split("\n\n")
        .next()
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(listed, legal, "{}", answer.body);
    instructions(&to_bo);

    // Bo plays his third move with a draw offer; Ann accepts it in her clone.
    let before = c.sent();
    c.reply(BO, "bo-draw@post.example.net", &to_bo, &format!("{} draw\n", ab.tokens[5]));
    one(&c.referee(t + 20), "played");
    // Two steps, the offer and the move it stands with, in one mail.
    let to_ann: Vec<Mail> = since(&c.sink, before).into_iter().filter(|m| m.to == ANN).collect();
    assert_eq!(to_ann.len(), 1, "{to_ann:#?}");
    let to_ann = &to_ann[0];
    assert!(to_ann.subject.ends_with("(draw offered)"), "{to_ann:#?}");
    assert!(words(&to_ann.body).contains("accept it with `ravenpost draw accept ab`"), "{to_ann:#?}");
    let before = c.sent();
    ok_at(&c.ann.dir, &c.ann.home, t + 30, &["sync"]);
    ok_at(&c.ann.dir, &c.ann.home, t + 30, &["draw", "accept", "ab", "--as", "Ann"]);
    ok_at(&c.ann.dir, &c.ann.home, t + 30, &["sync"]);
    let drawn = c.hook_mail_to(before, BO);
    assert_eq!(drawn.subject, "[ravenpost] ab: Draw agreed \u{2014} 1/2-1/2");
    assert!(drawn.body.starts_with("Game ab has ended: 1/2-1/2"), "{drawn:#?}");
    t += 100;

    // Dee v Cy: Cy offers a draw with his move; Dee declines by mail, plays on, and
    // then resigns by mail.
    let before = c.sent();
    c.reply(DEE, "dee-4@mail.example.com", &dee_mail, &format!("{}\n", dc.tokens[4]));
    one(&c.referee(t), "played");
    let to_cy = c.hook_mail_to(before, CY);
    instructions(&to_cy);
    let before = c.sent();
    ok_at(&c.cy.dir, &c.cy.home, t + 10, &["sync"]);
    ok_at(&c.cy.dir, &c.cy.home, t + 10, &["draw", "offer", "dc", "--as", "Cy"]);
    ok_at(&c.cy.dir, &c.cy.home, t + 10, &["move", "dc", &dc.tokens[5]]);
    ok_at(&c.cy.dir, &c.cy.home, t + 10, &["sync"]);
    let offers: Vec<Mail> = since(&c.sink, before).into_iter().filter(|m| m.to == DEE).collect();
    assert_eq!(offers.len(), 1, "the offer and the move, in one mail: {offers:#?}");
    let dee_mail = offers[0].clone();
    assert!(dee_mail.subject.ends_with("(draw offered)"), "{dee_mail:#?}");
    assert!(
        words(&dee_mail.body).contains("reply with `accept` or `decline` on the first line"),
        "{dee_mail:#?}"
    );
    let tip = c.tip();
    let before = c.sent();
    c.reply(DEE, "dee-decline@mail.example.com", &dee_mail, "decline\n");
    one(&c.referee(t + 20), "played");
    assert_ne!(c.tip(), tip);
    let declined = c.hook_mail_to(before, CY);
    assert!(declined.subject.contains("declines the draw"), "{declined:#?}");
    let before = c.sent();
    c.reply(DEE, "dee-resign@mail.example.com", &dee_mail, "resign\n");
    let resigned = one(&c.referee(t + 30), "played");
    assert!(resigned["said"].as_str().unwrap().contains("resigns"), "{resigned}");
    let to_cy = c.hook_mail_to(before, CY);
    assert!(to_cy.body.starts_with("Game dc has ended: 0-1"), "{to_cy:#?}");

    // Every mail of the hook told its reader how to answer on their channel.
    let all = since(&c.sink, 0);
    let hook: Vec<&Mail> = all.iter().filter(|m| !is_answer(m)).collect();
    assert!(hook.len() >= 19, "{}", hook.len());
    for m in &hook {
        instructions(m);
    }
    for m in all.iter().filter(|m| is_answer(m)) {
        assert!([BO, DEE].contains(&m.to.as_str()), "answers go to the mail players: {m:#?}");
    }

    every_move_everywhere(&c, &ab, &dc, t + 100);
}

/// `mail`'s raw message from the sink, as an mbox of one message NeoMutt opens.
fn mbox_of(dir: &Path, name: &str, raw: &Path) -> PathBuf {
    let message = std::fs::read_to_string(raw).unwrap().replace("\r\n", "\n");
    let mbox = dir.join(name);
    std::fs::write(&mbox, format!("From ravenpost@example.org Sat Nov 29 07:06:40 2025\n{message}\n"))
        .unwrap();
    mbox
}

/// The first screen of the one message of `mbox` in NeoMutt, 80×24 in tmux; kept.
fn neomutt_first_screen(dir: &Path, name: &str, mbox: &Path, subject: &str) -> String {
    let muttrc = dir.join(format!("muttrc-{name}"));
    std::fs::write(
        &muttrc,
        format!(
            "set mbox_type=mbox\nset folder={0}\nset spoolfile={1}\nset mbox={1}\nset record=\"\"\n\
             set header_cache=\"\"\nset message_cachedir=\"\"\n",
            dir.display(),
            mbox.display()
        ),
    )
    .unwrap();
    let home = identity(&dir.join(format!("mutt-home-{name}")), "Reader", "reader@example.org");
    let nm = Tmux::start(dir, &home, name, &format!("neomutt -F {} -f {}", muttrc.display(), mbox.display()));
    nm.screen_when(|s| s.contains("[ravenpost] ab:"));
    nm.keys(&["Enter"]);
    let screen = nm.screen_when(|s| s.contains(&format!("Subject: {subject}")) && s.contains("to move"));
    keep(dir, "club-mail", name, &screen);
    nm.keys(&["q", "q"]);
    assert!(screen.lines().count() <= 24, "{screen}");
    screen
}

fn deadline(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0).unwrap().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[test]
fn the_board_mail_on_neomutts_first_screen_says_whose_move_the_move_the_deadline_and_how_to_answer() {
    require("neomutt", &["-v"], "neomutt");
    let c = club(&[&["--white", "Ann", "--black", "Bo", "--id", "ab", "--time-control", "1/3d"]]);
    // Ann moves: the hook mails Bo, a mail player.
    let before = c.sent();
    play(&c.ann, T0 + 60, "ab", "2e3", &[]);
    let to_bo_path =
        c.sink.messages()[before..].iter().find(|p| read(p).to == BO).expect("the hook's mail to Bo").clone();
    let to_bo = read(&to_bo_path);
    // Bo answers by mail: the hook mails Ann, a git player.
    let before = c.sent();
    c.reply(BO, "bo-1@post.example.net", &to_bo, "Sa3b6\n");
    one(&c.referee(T0 + 120), "played");
    let to_ann_path = c.sink.messages()[before..]
        .iter()
        .find(|p| {
            let m = read(p);
            m.to == ANN && !is_answer(&m)
        })
        .expect("the hook's mail to Ann")
        .clone();
    // The referee's answer to Bo shows the game as his move left it, and Ann's deadline.
    let answer = c.sink.messages()[before..]
        .iter()
        .map(|p| read(p))
        .find(|m| m.to == BO && is_answer(m))
        .expect("the referee's answer to Bo");
    let answer_words = words(&answer.body);
    for said in [
        "Played: Bo (Scarlet) plays Sa3b6.",
        "Air (3)",
        "Ann to move.",
        &format!("Deadline for Ann's move: {}.", deadline(T0 + 120 + 2 * 3 * DAY - 60)),
        "You will be mailed when Ann has moved.",
    ] {
        assert!(answer_words.contains(said), "{said:?} not in the answer:\n{}", answer.body);
    }

    let dir = c.t.path();
    let bo_screen =
        neomutt_first_screen(dir, "club-mail-player", &mbox_of(dir, "bo.mbox", &to_bo_path), &to_bo.subject);
    let bo_words = words(&bo_screen);
    for said in [
        "Game ab: Bo (Scarlet) to move after 1. 2e3.",
        &format!("Deadline for Bo's move: {}.", deadline(T0 + 60 + 3 * DAY)),
        "To answer: reply to this mail with your move on the first line",
    ] {
        assert!(bo_words.contains(said), "{said:?} not on the first screen:\n{bo_screen}");
    }
    assert!(!bo_screen.contains("ravenpost sync"), "{bo_screen}");

    let ann_subject = read(&to_ann_path).subject;
    let ann_screen =
        neomutt_first_screen(dir, "club-git-player", &mbox_of(dir, "ann.mbox", &to_ann_path), &ann_subject);
    let ann_words = words(&ann_screen);
    for said in [
        "Game ab: Ann (Gold) to move after 1... Sa3b6.",
        // 1/3d accumulates: two moves' 3 days, less the minute her first move took.
        &format!("Deadline for Ann's move: {}.", deadline(T0 + 120 + 2 * 3 * DAY - 60)),
        "To answer: `ravenpost sync`, then `ravenpost move ab MOVE` and `ravenpost sync`.",
    ] {
        assert!(ann_words.contains(said), "{said:?} not on the first screen:\n{ann_screen}");
    }
}
