//! Club play end to end: a 6-player double round robin of Gygax Chess (30 games)
//! created with `ravenpost tournament new` and played to its end through a bare
//! repository with both hooks (`hook install --notify`), every move mailed by the
//! post-receive hook to a real SMTP server on 127.0.0.1 (aiosmtpd); the crosstable,
//! the Sonneborn-Berger tie-break (hand-computed below) and the Elo ratings (computed
//! here with the skillratings crate itself) checked against the results the script
//! played; a push with the SMTP server down; `status --to-move` with fixed clocks.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::smtp::{Smtp, free_port};
use common::{DAY, T0, git, git_command, identity, ok, ok_at, run_at, text};
use mail_parser::MessageParser;
use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};

const PLAYERS: [&str; 6] = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"];

/// Each player's address, each at a domain of their own (so that the thread headers
/// show whose message each is).
fn email(player: &str) -> String {
    let p = player.to_lowercase();
    format!("{p}@{p}.example")
}

fn domain(player: &str) -> String {
    format!("{}.example", player.to_lowercase())
}

fn index(player: &str) -> usize {
    PLAYERS.iter().position(|p| *p == player).unwrap()
}

/// The result the script plays, as White's score in half points, for the game of
/// `white` against `black` in the given cycle (0: first, 1: second round robin).
///
/// By pair (the first-named player's score over both games):
/// Ann–Bo 2, Ann–Cy 1 (two draws), Ann–Di 2, Ann–Ed 2, Ann–Fay 2;
/// Bo–Cy 1 (White wins each), Bo–Di 2, Bo–Ed 1½ (a win, then a draw), Bo–Fay 2;
/// Cy–Di 2, Cy–Ed 1½ (a win, then a draw), Cy–Fay 1 (two draws);
/// Di–Ed 1 (two draws), Di–Fay 2; Ed–Fay 2.
fn planned(white: &str, black: &str, cycle: usize) -> u32 {
    let (w, b) = (index(white), index(black));
    let (first, second) = (w.min(b), w.max(b));
    // The score of the first-named player of the pair in this game, in halves.
    let first_halves = match (PLAYERS[first], PLAYERS[second]) {
        ("Bo", "Cy") => return 2,
        ("Ann", "Cy") | ("Cy", "Fay") | ("Di", "Ed") => 1,
        ("Bo", "Ed") | ("Cy", "Ed") => {
            if cycle == 0 {
                2
            } else {
                1
            }
        }
        _ => 2,
    };
    if w == first { first_halves } else { 2 - first_halves }
}

/// A clock for the script: every command one minute after the one before.
struct Clock(i64);

impl Clock {
    fn tick(&mut self) -> i64 {
        self.0 += 60;
        self.0
    }
}

struct Club {
    _t: tempfile::TempDir,
    home: PathBuf,
    server: PathBuf,
    org: PathBuf,
}

/// A bare repository with both hooks, and the organiser's clone, whose archive's mail
/// settings send through 127.0.0.1:`port` without TLS (the root commit's ravenpost.yaml,
/// pushed first).
fn club(port: u16) -> Club {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Organiser", "org@club.example");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    let out =
        ok_at(t.path(), &home, T0, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    assert!(out.contains("pre-receive") && out.contains("post-receive"), "{out}");
    let org = t.path().join("org");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), org.to_str().unwrap()]);
    ok_at(&org, &home, T0, &["init"]);
    let config = org.join("ravenpost.yaml");
    let mut yaml = std::fs::read_to_string(&config).unwrap();
    yaml.push_str(&format!("mail:\n  smtp:\n    host: 127.0.0.1\n    port: {port}\n    security: none\n"));
    std::fs::write(&config, yaml).unwrap();
    git(&org, &home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    push(&org, &home, T0);
    Club { _t: t, home, server, org }
}

/// `git push origin main` at `time` (the hooks run the binary at that time); returns
/// what the remote said.
fn push(dir: &Path, home: &Path, time: i64) -> String {
    let mut cmd = git_command(dir, home);
    cmd.env("RAVENPOST_TIME", time.to_string()).args(["push", "origin", "main"]);
    let o = cmd.output().expect("git runs");
    assert!(o.status.success(), "push refused: {}", text(&o));
    text(&o)
}

/// A message as the test reads it.
#[derive(Debug)]
struct Mail {
    to: String,
    from: String,
    in_reply_to: Option<String>,
    references: Vec<String>,
    body: String,
}

fn read_mail(path: &Path) -> (String, Mail) {
    let bytes = std::fs::read(path).unwrap();
    let m = MessageParser::default().parse(&bytes).expect("a message");
    let ids = |v: &mail_parser::HeaderValue<'_>| -> Vec<String> {
        match v {
            mail_parser::HeaderValue::Text(t) => vec![t.to_string()],
            mail_parser::HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
            _ => vec![],
        }
    };
    let mail = Mail {
        to: m.to().unwrap().first().unwrap().address().unwrap().to_string(),
        from: m.from().unwrap().first().unwrap().address().unwrap().to_string(),
        in_reply_to: ids(m.in_reply_to()).first().cloned(),
        references: ids(m.references()),
        body: m.body_text(0).unwrap().to_string(),
    };
    (m.message_id().unwrap().to_string(), mail)
}

/// A game as the tournament file lists it.
#[derive(Debug, Clone)]
struct Scheduled {
    id: String,
    round: u64,
    white: String,
    black: String,
}

fn schedule(json: &serde_json::Value) -> Vec<Scheduled> {
    json["tournament"]["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| Scheduled {
            id: g["id"].as_str().unwrap().to_string(),
            round: g["round"].as_u64().unwrap(),
            white: g["white"].as_str().unwrap().to_string(),
            black: g["black"].as_str().unwrap().to_string(),
        })
        .collect()
}

#[test]
fn a_double_round_robin_of_six_played_through_both_hooks() {
    let smtp_root = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(smtp_root.path(), "maildir", None);
    let c = club(smtp.port);
    let (org, home) = (&c.org, &c.home);
    let mut clock = Clock(T0);

    // The tournament: one commit with the tournament file and its 30 games.
    let players: Vec<String> = PLAYERS.iter().map(|p| format!("{p} <{}>", email(p))).collect();
    let t = clock.tick();
    let created = ok_at(
        org,
        home,
        t,
        &[
            "tournament",
            "new",
            "club",
            "gygax",
            "--double",
            "--time-control",
            "1/3d",
            "--players",
            &players.join(","),
            "--json",
        ],
    );
    let created: serde_json::Value = serde_json::from_str(&created).unwrap();
    let games = schedule(&created);
    assert_eq!(games.len(), 30);
    let files = git(org, home, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.lines().count(), 31, "one commit: the tournament file and every game: {files}");
    assert!(files.lines().any(|l| l == "tournaments/club.yaml"), "{files}");
    // Every pair meets twice, once with each colour; each player has White five times.
    for p in PLAYERS {
        assert_eq!(games.iter().filter(|g| g.white == p).count(), 5, "{p}");
        for q in PLAYERS.iter().filter(|q| **q != p) {
            assert_eq!(games.iter().filter(|g| g.white == p && g.black == *q).count(), 1, "{p} v {q}");
        }
    }
    let first = git(
        org,
        home,
        &["show", &format!("HEAD:{}", crate::common::cli::fan_out_path("gygax", &games[0].id))],
    );
    assert!(first.contains("[Event \"club\"]") && first.contains("[Round \"1\"]"), "{first}");
    assert!(first.contains(&format!("[WhiteEmail \"{}\"]", email(&games[0].white))), "{first}");
    push(org, home, t);

    // Play every round, then push it: the pre-receive hook judges each commit, the
    // post-receive hook mails each move.
    let mut moves: Vec<(String, usize, String, i64)> = Vec::new(); // (game, ply, mover, time)
    let mut finished: Vec<(i64, String)> = Vec::new(); // (time of the result, game)
    let mut timeouts: Vec<&Scheduled> = Vec::new();
    let mut others = 0; // the steps without a move mailed on their own, to the other player
    let cycle_of = |g: &Scheduled| usize::from(g.round > 5);
    for round in 1..=10 {
        for (k, g) in games.iter().enumerate().filter(|(_, g)| g.round == round) {
            let (w, b) = (g.white.as_str(), g.black.as_str());
            let id = g.id.as_str();
            let mut step = |args: &[&str]| {
                let t = clock.tick();
                ok_at(org, home, t, args);
                t
            };
            // Each command is a move or another step: (ply, SAN, player) or arguments.
            enum S<'a> {
                Move(usize, &'a str, &'a str),
                Do(Vec<&'a str>),
            }
            let script: Vec<S<'_>> = match (planned(w, b, cycle_of(g)), k % 2) {
                (2, 0) => vec![S::Move(1, "2e3", w), S::Do(vec!["resign", id, "--as", b])],
                // Black never answers: White claims the win on time after the deadline.
                (2, _) => vec![S::Move(1, "2e3", w)],
                (0, 0) => vec![S::Do(vec!["resign", id, "--as", w])],
                (0, _) => {
                    vec![S::Move(1, "2e3", w), S::Move(2, "Sa3b6", b), S::Do(vec!["resign", id, "--as", w])]
                }
                (_, 0) => vec![
                    S::Do(vec!["draw", "offer", id, "--as", w]),
                    S::Move(1, "2e3", w),
                    S::Do(vec!["draw", "accept", id, "--as", b]),
                ],
                _ => vec![
                    S::Move(1, "2e3", w),
                    S::Do(vec!["draw", "offer", id, "--as", b]),
                    S::Move(2, "Sa3b6", b),
                    S::Do(vec!["draw", "accept", id, "--as", w]),
                ],
            };
            let timeout = matches!(script.last(), Some(S::Move(..)));
            let mut end = 0;
            for s in script {
                end = match s {
                    S::Move(ply, san, who) => {
                        let t = step(&["move", id, san, "--as", who]);
                        moves.push((id.to_string(), ply, who.to_string(), t));
                        t
                    }
                    S::Do(args) => {
                        // A resignation, a draw offered or accepted: one mail to the other;
                        // a draw offered with the move that follows it in the same push is
                        // said in that move's mail.
                        if args[..2] != ["draw", "offer"] {
                            others += 1;
                        }
                        step(&args)
                    }
                };
            }
            if timeout {
                timeouts.push(g);
                continue;
            }
            finished.push((end, g.id.clone()));
        }
        let out = push(org, home, clock.0);
        assert!(!out.contains("not mailed"), "every notification went out: {out}");
    }
    // Four days later every unanswered game is over time (1/3d): White claims it.
    let later = clock.0 + 4 * DAY;
    let mut clock = Clock(later);
    for g in &timeouts {
        let t = clock.tick();
        let out = ok_at(org, home, t, &["claim", "timeout", &g.id, "--as", &g.white]);
        assert!(out.to_lowercase().contains("time"), "{out}");
        finished.push((t, g.id.clone()));
    }
    push(org, home, clock.0);
    assert!(!timeouts.is_empty(), "the script plays some wins on time");
    assert_eq!(finished.len(), 30);
    assert_eq!(
        git(&c.server, home, &["rev-parse", "main"]),
        git(org, home, &["rev-parse", "HEAD"]),
        "the server has every step"
    );
    let v = ok_at(org, home, clock.0, &["verify"]);
    assert!(v.contains("30 games verified, 0 problems"), "{v}");

    // Notifications: one message per move, to the player to move, threaded per game; one
    // to each player of each new game; one to the other player of each other step.
    let mut received: BTreeMap<String, Mail> = BTreeMap::new();
    for path in smtp.messages() {
        let (id, mail) = read_mail(&path);
        assert!(received.insert(id.clone(), mail).is_none(), "one message per step: {id} twice");
    }
    let all = moves.len() + 2 * games.len() + others + timeouts.len();
    assert_eq!(received.len(), all, "one message per move, two per new game, one per other step");
    let new_games = received.keys().filter(|k| k.contains(".0@") || k.contains(".0.new@")).count();
    assert_eq!(new_games, 2 * games.len(), "{:?}", received.keys());
    for m in received.values() {
        assert!(m.body.contains("ravenpost sync") || m.body.contains("Nothing to do"), "{}", m.body);
        assert!(!m.body.contains("mail import"), "a club mail never says import: {}", m.body);
    }
    let colour =
        |id: &str| games.iter().find(|g| g.id == id).map(|g| (g.white.clone(), g.black.clone())).unwrap();
    for (id, ply, mover, time) in &moves {
        let (w, b) = colour(id);
        let other = if *mover == w { &b } else { &w };
        // The message of ply k comes from its mover; ply 0's "sender" is Black (the
        // player not to move), so ply 1 answers `<id>.0@<Black's domain>`.
        let sender_of = |k: usize| if k % 2 == 1 { w.clone() } else { b.clone() };
        let mid = |k: usize| format!("{id}.{k}@{}", domain(&sender_of(k)));
        let m = received
            .get(&mid(*ply))
            .unwrap_or_else(|| panic!("no message {} in {:?}", mid(*ply), received.keys()));
        assert_eq!(m.to, email(other), "{id} ply {ply} goes to {other}");
        assert_eq!(m.from, email(mover), "{id} ply {ply} comes from {mover}");
        assert_eq!(m.in_reply_to.as_deref(), Some(mid(ply - 1).as_str()), "{id} ply {ply}");
        let refs: Vec<String> = (0..*ply).map(mid).collect();
        assert_eq!(m.references, refs, "{id} ply {ply}");
        assert!(m.body.contains(&format!("by {mover} (ply {ply})")), "{}", m.body);
        if *ply == 1 {
            // Black's first deadline: three days from White's move.
            let deadline = chrono::DateTime::from_timestamp(time + 3 * DAY, 0).unwrap();
            let line = format!("Deadline for {b}'s move: {}.", deadline.format("%Y-%m-%dT%H:%M:%SZ"));
            assert!(m.body.contains(&line), "{line} in {}", m.body);
        }
    }
    let log = std::fs::read_to_string(c.server.join("ravenpost/notify.log")).unwrap();
    assert_eq!(log.lines().count(), all, "{log}");
    assert!(log.lines().all(|l| l.contains(" sent <")), "{log}");

    // Standings: the crosstable has each game's result as played.
    let json = ok_at(org, home, clock.0, &["standings", "club", "--json"]);
    let standings: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = standings[0]["rows"].as_array().unwrap();
    assert_eq!(standings[0]["finished"], 30);
    for g in &games {
        let h = planned(&g.white, &g.black, cycle_of(g));
        let (wi, bi) = (index(&g.white), index(&g.black));
        let find = |row: usize, col: usize| -> u64 {
            let cell = rows[row]["cells"][col].as_array().unwrap();
            let game = cell.iter().find(|c| c["id"] == g.id.as_str()).unwrap();
            game["halves"].as_u64().unwrap()
        };
        assert_eq!(find(wi, bi), u64::from(h), "{} as White in {}", g.white, g.id);
        assert_eq!(find(bi, wi), u64::from(2 - h), "{} as Black in {}", g.black, g.id);
    }
    let points: Vec<f64> = rows.iter().map(|r| r["points"].as_f64().unwrap()).collect();
    // From the pair scores in `planned`:
    // Ann 2+1+2+2+2 = 9; Bo 0+1+2+1½+2 = 6½; Cy 1+1+2+1½+1 = 6½; Di 0+0+0+1+2 = 3;
    // Ed 0+½+½+1+2 = 4; Fay 0+0+1+0+0 = 1 (30 in all).
    assert_eq!(points, [9.0, 6.5, 6.5, 3.0, 4.0, 1.0]);
    // The constructed tie, Bo and Cy on 6½, broken by Sonneborn-Berger (Σ score in each
    // game × that opponent's points):
    // Bo: v Ann 0×9 = 0; v Cy 1×6½ = 6½; v Di 2×3 = 6; v Ed 1½×4 = 6; v Fay 2×1 = 2: 20½.
    // Cy: v Ann 1×9 = 9; v Bo 1×6½ = 6½; v Di 2×3 = 6; v Ed 1½×4 = 6; v Fay 1×1 = 1: 28½.
    // Ann: v Bo 2×6½ = 13; v Cy 1×6½ = 6½; v Di 2×3 = 6; v Ed 2×4 = 8; v Fay 2×1 = 2: 35½.
    assert_eq!(rows[1]["sonneborn_berger"].as_f64(), Some(20.5));
    assert_eq!(rows[2]["sonneborn_berger"].as_f64(), Some(28.5));
    assert_eq!(rows[0]["sonneborn_berger"].as_f64(), Some(35.5));
    let places: Vec<u64> = rows.iter().map(|r| r["rank"].as_u64().unwrap()).collect();
    assert_eq!(places, [1, 3, 2, 5, 4, 6], "Cy ahead of Bo on the tie-break");
    let table = ok_at(org, home, clock.0, &["standings", "club"]);
    let ann = table.lines().find(|l| l.contains(" Ann ")).unwrap();
    assert_eq!(
        ann.split_whitespace().collect::<Vec<_>>(),
        ["1", "Ann", "xx", "11", "½½", "11", "11", "11", "9", "0", "35.50", "1"],
        "{table}"
    );

    // Ratings: the same results, in the order they were committed, rated here with
    // skillratings itself (Elo, K = 20, every player from 1500).
    finished.sort();
    let expected = |upto: i64| -> BTreeMap<String, f64> {
        let mut r: BTreeMap<String, EloRating> = BTreeMap::new();
        for (_, id) in finished.iter().filter(|(t, _)| *t <= upto) {
            let g = games.iter().find(|g| g.id == *id).unwrap();
            let h = planned(&g.white, &g.black, cycle_of(g));
            let outcome = match h {
                2 => Outcomes::WIN,
                1 => Outcomes::DRAW,
                _ => Outcomes::LOSS,
            };
            let start = EloRating { rating: 1500.0 };
            let (w0, b0) = (*r.get(&g.white).unwrap_or(&start), *r.get(&g.black).unwrap_or(&start));
            let (w1, b1) = elo(&w0, &b0, &outcome, &EloConfig { k: 20.0 });
            r.insert(g.white.clone(), w1);
            r.insert(g.black.clone(), b1);
        }
        r.into_iter().map(|(p, e)| (p, e.rating.round())).collect()
    };
    let got = |args: &[&str]| -> BTreeMap<String, f64> {
        let json: serde_json::Value = serde_json::from_str(&ok_at(org, home, clock.0, args)).unwrap();
        assert_eq!(json["variants"]["gygax"], json["overall"], "one variant: the same list");
        json["overall"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p["name"].as_str().unwrap().to_string(), p["rating"].as_f64().unwrap()))
            .collect()
    };
    assert_eq!(got(&["ratings", "--method", "elo", "--json"]), expected(i64::MAX));
    // Up to the day of the round robin's last move: the wins on time (4 days later) are
    // left out.
    let day = chrono::DateTime::from_timestamp(T0, 0).unwrap().format("%Y-%m-%d").to_string();
    let before_claims = got(&["ratings", "--method", "elo", "--to", &day, "--json"]);
    assert_eq!(before_claims, expected(later - 1));
    assert_ne!(before_claims, expected(i64::MAX));

    // A tournament file never changes: verify reports an edit, the hook refuses it.
    let file = org.join("tournaments/club.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, yaml.replacen("double: true", "double: false", 1)).unwrap();
    git(org, home, &["commit", "--quiet", "-am", "club: single round robin after all"]);
    let o = run_at(org, home, clock.0, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("tournament club: a tournament file never changes"), "{}", text(&o));
    let o = git_command(org, home).args(["push", "origin", "main"]).output().unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("remote: ravenpost: club "), "{}", text(&o));
    assert!(text(&o).contains("never changes"), "{}", text(&o));
}

#[test]
fn a_tournament_commit_that_is_not_its_games_is_refused() {
    let c = club(free_port());
    let (org, home) = (&c.org, &c.home);
    ok_at(org, home, T0 + 60, &["tournament", "new", "cup", "gygax", "--players", "Ann,Bo,Cy"]);
    // Swap the colours of one game in its file, as an organiser might by hand.
    let game = org.join("games/gygax/2/e/cup-r1-b1.pgn");
    let pgn = std::fs::read_to_string(&game).unwrap();
    let swapped = pgn
        .replace("[White \"Bo\"]", "[White \"X\"]")
        .replace("[Black \"Cy\"]", "[Black \"Bo\"]")
        .replace("[White \"X\"]", "[White \"Cy\"]");
    assert_ne!(swapped, pgn, "{pgn}");
    std::fs::write(&game, swapped).unwrap();
    git(org, home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    let mut cmd = git_command(org, home);
    cmd.args(["push", "origin", "main"]);
    let o = cmd.output().unwrap();
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("remote: ravenpost: cup "), "{}", text(&o));
    assert!(text(&o).contains("its White tag is `Cy` but the tournament says `Bo`"), "{}", text(&o));
}

#[test]
fn notifications_never_hold_up_a_push() {
    // Nothing listens on this port: every delivery fails.
    let c = club(free_port());
    let (org, home) = (&c.org, &c.home);
    ok_at(
        org,
        home,
        T0 + 60,
        &[
            "new",
            "gygax",
            "--white",
            "Ann",
            "--black",
            "Bo",
            "--id",
            "g",
            "--white-email",
            "ann@a.example",
            "--black-email",
            "bo@b.example",
        ],
    );
    ok_at(org, home, T0 + 120, &["new", "gygax", "--white", "Cy", "--black", "Di", "--id", "h"]);
    ok_at(org, home, T0 + 180, &["move", "g", "2e3", "--as", "Ann"]);
    ok_at(org, home, T0 + 240, &["move", "h", "2e3", "--as", "Cy"]);
    let out = push(org, home, T0 + 300);
    assert!(out.contains("g ply 1: not mailed"), "{out}");
    assert_eq!(git(&c.server, home, &["rev-parse", "main"]), git(org, home, &["rev-parse", "HEAD"]));
    let log = std::fs::read_to_string(c.server.join("ravenpost/notify.log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    // Each new game to both players, then each move to the player to move.
    assert_eq!(lines.len(), 6, "{log}");
    assert!(lines[0].contains(" g ply 0 to ann@a.example: NOT SENT: SMTP server 127.0.0.1:"), "{log}");
    assert!(lines[0].ends_with(" (created)"), "{log}");
    assert!(lines[3].contains(" h ply 0 to -: NOT SENT: no address for Di: no BlackEmail tag"), "{log}");
    assert!(lines[4].contains(" g ply 1 to bo@b.example: NOT SENT: SMTP server 127.0.0.1:"), "{log}");
    assert!(lines[4].ends_with(" (move)"), "{log}");
    assert!(lines[5].contains(" h ply 1 to -: NOT SENT: no address for Di: no BlackEmail tag"), "{log}");
    // The game goes on: the next move is accepted and pushed too.
    ok_at(org, home, T0 + 360, &["move", "g", "Sa3b6", "--as", "Bo"]);
    push(org, home, T0 + 420);
    let v = ok_at(org, home, T0 + 480, &["verify"]);
    assert!(v.contains("2 games verified, 0 problems"), "{v}");
}

#[test]
fn status_to_move_lists_the_most_urgent_deadline_first() {
    let (_t, dir, home) = common::archive();
    let at = |t: i64, args: &[&str]| ok_at(&dir, &home, t, args);
    // Ann's deadlines, by the fixed clock: g4 T0+2h+1d, g2 T0+1h+2d, g1 T0+5d; g3 has no
    // clock; in g5 Di is to move.
    at(T0, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g1", "--time-control", "1/5d"]);
    at(T0, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "g2", "--time-control", "1/2d"]);
    at(T0, &["new", "gygax", "--white", "Ann", "--black", "Cy", "--id", "g3"]);
    at(T0, &["new", "gygax", "--white", "Cy", "--black", "Ann", "--id", "g4", "--time-control", "1/1d"]);
    at(T0, &["new", "gygax", "--white", "Ann", "--black", "Di", "--id", "g5", "--time-control", "1/1d"]);
    at(T0 + 3600, &["move", "g2", "2e3", "--as", "Bo"]);
    at(T0 + 7200, &["move", "g4", "2e3", "--as", "Cy"]);
    at(T0 + 7200, &["move", "g5", "2e3", "--as", "Ann"]);
    let now = T0 + 3 * 3600;
    let list = |args: &[&str]| -> Vec<(String, Option<i64>)> {
        let json: serde_json::Value = serde_json::from_str(&at(now, args)).unwrap();
        json.as_array()
            .unwrap()
            .iter()
            .map(|l| (l["id"].as_str().unwrap().to_string(), l["clock"]["seconds_left"].as_i64()))
            .collect()
    };
    let expected = vec![
        ("g4".to_string(), Some(T0 + 7200 + DAY - now)),
        ("g2".to_string(), Some(T0 + 3600 + 2 * DAY - now)),
        ("g1".to_string(), Some(T0 + 5 * DAY - now)),
        ("g3".to_string(), None),
    ];
    assert_eq!(list(&["status", "--to-move", "Ann", "--json"]), expected);
    // Without a name: the identity's.
    assert_eq!(list(&["status", "--to-move", "--json", "--author", "Ann <ann@example.org>"]), expected);
    assert_eq!(
        list(&["status", "--to-move", "Di", "--json"]),
        [("g5".to_string(), Some(T0 + 7200 + DAY - now))]
    );
    let text = at(now, &["status", "--to-move", "Ann"]);
    let ids: Vec<&str> = text.lines().skip(1).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(ids, ["g4", "g2", "g1", "g3"], "{text}");
    let none = at(now, &["status", "--to-move", "Zed"]);
    assert!(none.starts_with("No games waiting for Zed's move"), "{none}");
}

#[test]
fn fantasy_grand_tournaments_choose_armies_as_the_tournament_says() {
    let c = club(free_port());
    let (org, home) = (&c.org, &c.home);
    // Fixed: each player brings one army to every game.
    let fixed = [
        "tournament",
        "new",
        "fixed",
        "fantasy-grand",
        "--players",
        "Ann,Bo,Cy",
        "--army-choice",
        "fixed",
        "--army",
        "Ann=elves",
        "--army",
        "Bo=giants",
        "--army",
        "Cy=dwarves",
    ];
    ok_at(org, home, T0 + 60, &fixed);
    let g = git(org, home, &["show", "HEAD:games/fantasy-grand/9/1/fixed-r1-b1.pgn"]);
    assert!(g.contains("[White \"Bo\"]") && g.contains("[WhiteArmy \"giants\"]"), "{g}");
    assert!(g.contains("[Black \"Cy\"]") && g.contains("[BlackArmy \"dwarves\"]"), "{g}");
    // Secret: every game starts as an army choice, created in the tournament's commit.
    ok_at(
        org,
        home,
        T0 + 120,
        &["tournament", "new", "secret", "fantasy-grand", "--players", "Ann,Bo", "--army-choice", "secret"],
    );
    let files = git(org, home, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["games/fantasy-grand/c/8/secret-r1-b1.armies.yaml", "tournaments/secret.yaml"]
    );
    push(org, home, T0 + 180);
    let v = ok_at(org, home, T0 + 240, &["verify"]);
    assert!(v.contains("3 games verified, 0 problems"), "{v}");
    let s: serde_json::Value =
        serde_json::from_str(&ok_at(org, home, T0 + 240, &["standings", "--json"])).unwrap();
    let names: Vec<&str> = s.as_array().unwrap().iter().map(|t| t["tournament"].as_str().unwrap()).collect();
    assert_eq!(names, ["fixed", "secret"]);
    assert_eq!(s[1]["rows"][0]["left"], 1);
    // Bad input says what would be legal.
    let o = run_at(
        org,
        home,
        T0 + 300,
        &[
            "tournament",
            "new",
            "x",
            "fantasy-grand",
            "--players",
            "Ann,Bo",
            "--army-choice",
            "fixed",
            "--army",
            "Ann=elves",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no army for Bo (give one per player: --army \"Bo=elves\")"), "{}", text(&o));
    let o = run_at(org, home, T0 + 300, &["tournament", "new", "x", "gygax", "--players", "Ann"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("at least two players"), "{}", text(&o));
}

/// Regression (a new user's trial): one game's secret army choice is `new
/// --secret-armies`, a tournament's was only `--army-choice secret`, and the first
/// spelling was refused there. Now `tournament new --secret-armies` makes the same army
/// choices; given with `--army-choice` it is refused.
#[test]
fn tournament_new_refused_the_secret_armies_flag_of_new() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Org", "org@example.org");
    let dir = t.path().join("arc");
    ok_at(t.path(), &home, T0, &["init", dir.to_str().unwrap()]);
    let new = ["tournament", "new", "hidden", "fantasy-grand", "--players", "Ann,Bo"];
    ok_at(&dir, &home, T0 + 60, &[&new[..], &["--secret-armies"]].concat());
    let files = git(&dir, &home, &["show", "--name-only", "--format=", "HEAD"]);
    let files: Vec<&str> = files.lines().collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files[0].ends_with("/hidden-r1-b1.armies.yaml"), "{files:?}");
    assert_eq!(files[1], "tournaments/hidden.yaml");
    let status = ok_at(&dir, &home, T0 + 120, &["status"]);
    assert!(status.contains("hidden-r1-b1") && status.contains("army commitment"), "{status}");
    let both = [&new[..], &["--secret-armies", "--army-choice", "fixed"]].concat();
    let o = run_at(&dir, &home, T0 + 120, &both);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("cannot be used with"), "{}", text(&o));
}

/// Regression (s4 fresh-user report (c)22): the pairings `tournament new` printed for an
/// odd number of players did not say who has the bye in each round. Now each round ends
/// with its bye line: the one player of no board that round, each player once.
#[test]
fn odd_tournament_pairings_did_not_name_the_bye() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Org", "org@example.org");
    let dir = t.path().join("arc");
    ok_at(t.path(), &home, T0, &["init", dir.to_str().unwrap()]);
    let out = ok_at(&dir, &home, T0 + 60, &["tournament", "new", "trio", "gygax", "--players", "Ann,Bo,Cy"]);
    let players = ["Ann", "Bo", "Cy"];
    let mut byes = Vec::new();
    for round in 1..=3 {
        let tag = format!("  round {round:>2} ");
        let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(&tag)).collect();
        assert_eq!(lines.len(), 2, "one board and one bye in round {round}: {out}");
        let board = lines[0];
        let bye = lines[1].strip_prefix(&format!("{tag}bye: ")).unwrap_or_else(|| panic!("{out}"));
        let idle: Vec<&str> = players
            .iter()
            .copied()
            .filter(|p| !board.contains(&format!(" {p} ")) && !board.ends_with(&format!(" {p}")))
            .collect();
        assert_eq!(idle, [bye], "round {round}: {out}");
        byes.push(bye.to_string());
    }
    byes.sort();
    assert_eq!(byes, players, "each player sits out once: {out}");
}

/// A game in two registered players' names, written by hand with a stranger's account
/// tags and committed with plain git, then resigned: `verify` reports it, and `ratings`
/// does not count it (Ann stayed at 1500, Bo too).
#[test]
fn a_forged_game_contradicting_the_registry_moved_the_ratings() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Mallory", "mallory@example.org");
    let dir = t.path().join("club");
    std::fs::create_dir_all(&dir).unwrap();
    ok_at(&dir, &home, T0, &["init", "--account", "Ann=ann", "--account", "Bo=bo"]);
    ok_at(&dir, &home, T0, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "forged"]);
    let file = dir.join("games/gygax/c/c/forged.pgn");
    let pgn = std::fs::read_to_string(&file).unwrap();
    let at = pgn.find("[Ruleset ").unwrap();
    let end = at + pgn[at..].find('\n').unwrap() + 1;
    let tags = "[WhiteAccount \"mallory\"]\n[BlackAccount \"mallory\"]\n";
    std::fs::write(&file, format!("{}{tags}{}", &pgn[..end], &pgn[end..])).unwrap();
    git(&dir, &home, &["commit", "--quiet", "--all", "--amend", "--no-edit"]);
    ok_at(&dir, &home, T0 + 60, &["move", "forged", "2e3", "--as", "Ann"]);
    ok_at(&dir, &home, T0 + 120, &["resign", "forged", "--as", "Bo"]);
    let o = run_at(&dir, &home, T0 + 180, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(
            "the WhiteAccount tag names `mallory` for Ann, but ravenpost.yaml registers Ann's steps to the account `ann`"
        ),
        "{}",
        text(&o)
    );
    let ratings: serde_json::Value =
        serde_json::from_str(&ok_at(&dir, &home, T0 + 180, &["ratings", "--method", "elo", "--json"]))
            .unwrap();
    assert_eq!(ratings["games"], serde_json::json!([]), "{ratings}");
    assert_eq!(ratings["overall"], serde_json::json!([]), "{ratings}");
}

/// Issue 36: Glicko-2 as `ratings` computes it reproduces the worked example of
/// Glickman's "Example of the Glicko-2 system" (glicko.net, 2013): a player rated 1500,
/// RD 200, volatility 0.06 beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700
/// (RD 300) in one rating period, τ = 0.5: r' = 1464.06, RD' = 151.52, σ' = 0.05999.
/// The paper works on the Glicko-2 scale and prints μ' = −0.2069 and φ' = 0.8722 (four
/// places), then converts those rounded figures back (× 173.7178, + 1500); so do we.
/// (Unrounded, r' is 1464.05.)
#[test]
fn glicko2_reproduces_glickmans_worked_example() {
    use skillratings::glicko2::Glicko2Rating;
    let r = |rating, deviation| Glicko2Rating { rating, deviation, volatility: 0.06 };
    let after = ravenpost::usecases::glicko2_period(
        &r(1500.0, 200.0),
        &[
            (r(1400.0, 30.0), Outcomes::WIN),
            (r(1550.0, 100.0), Outcomes::LOSS),
            (r(1700.0, 300.0), Outcomes::LOSS),
        ],
    );
    let four = |x: f64| (x * 1e4).round() / 1e4;
    let (mu, phi) = (four((after.rating - 1500.0) / 173.7178), four(after.deviation / 173.7178));
    assert_eq!((mu, phi), (-0.2069, 0.8722), "μ' and φ'");
    assert_eq!(format!("{:.2}", 173.7178 * mu + 1500.0), "1464.06");
    assert_eq!(format!("{:.2}", 173.7178 * phi), "151.52");
    // σ' = 0.059996: the paper prints its first five places.
    assert!((0.05999..0.06).contains(&after.volatility), "σ' = {}", after.volatility);
    assert_eq!(ravenpost::usecases::GLICKO2_TAU, 0.5);
}

/// Issue 36: after one game each player's Glicko-2 rating is provisional (RD above
/// 110) and `ratings` marks it with `?`; Elo stays available.
#[test]
fn a_player_who_has_played_once_has_a_provisional_glicko2_rating() {
    let (_t, dir, home) = common::archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g1"]);
    ok(&dir, &home, &["resign", "g1", "--as", "Bo"]);
    let json: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["ratings", "--json"])).unwrap();
    assert_eq!(json["method"], "glicko2");
    let overall = json["overall"].as_array().unwrap();
    assert_eq!(overall[0]["name"], "Ann");
    assert!(
        overall[0]["rating"].as_f64().unwrap() > 1500.0 && overall[1]["rating"].as_f64().unwrap() < 1500.0
    );
    for p in overall {
        assert_eq!(p["provisional"], true, "{p}");
        let rd = p["deviation"].as_f64().unwrap();
        assert!(rd > 110.0 && rd < 350.0, "one game narrows the RD from 350, not below 110: {rd}");
    }
    let text = ok(&dir, &home, &["ratings"]);
    let ann = text.lines().find(|l| l.trim_start().starts_with("Ann")).unwrap();
    assert!(ann.split_whitespace().nth(1).unwrap().ends_with('?'), "{text}");
    let elo: serde_json::Value =
        serde_json::from_str(&ok(&dir, &home, &["ratings", "--method", "elo", "--json"])).unwrap();
    assert_eq!(
        (elo["method"].clone(), elo["k"].clone()),
        (serde_json::json!("elo"), serde_json::json!(20.0))
    );
    assert_eq!(elo["overall"][0]["rating"], 1510.0, "Elo: 1500 + 20 × 0.5");
    assert!(elo["overall"][0].get("provisional").is_none());
}
