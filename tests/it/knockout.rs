//! Knockout tournaments (issue 36, item 2) end to end: an 8-player knockout of 2-game
//! matches with the extra-game tie-break, made with `tournament new --format knockout`,
//! its later games with `tournament next`, every commit pushed to a bare repository with
//! the pre-receive hook and the bracket checked against a hand count; the higher-seed
//! rule, and a forged next-round commit refused; byes with 6 players; bad input.

use crate::common;

use std::path::PathBuf;

use common::smtp::Smtp;
use common::{T0, git, git_command, identity, ok_at, run_at, text};

/// A bare repository with the pre-receive hook (and with `smtp`, the post-receive hook
/// mailing through that port of 127.0.0.1), and the organiser's clone of it with an
/// archive pushed.
pub(crate) struct Club {
    _t: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) server: PathBuf,
    pub(crate) org: PathBuf,
}

pub(crate) fn club(smtp: Option<u16>) -> Club {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Organiser", "org@club.example");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    let mut install = vec!["hook", "install", "--repo", server.to_str().unwrap()];
    if smtp.is_some() {
        install.push("--notify");
    }
    let out = ok_at(t.path(), &home, T0, &install);
    assert!(out.contains("pre-receive"), "{out}");
    let org = t.path().join("org");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), org.to_str().unwrap()]);
    ok_at(&org, &home, T0, &["init"]);
    if let Some(port) = smtp {
        let config = org.join("ravenpost.yaml");
        let mut yaml = std::fs::read_to_string(&config).unwrap();
        yaml.push_str(&format!(
            "mail:\n  smtp:\n    host: 127.0.0.1\n    port: {port}\n    security: none\n"
        ));
        std::fs::write(&config, yaml).unwrap();
        git(&org, &home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    }
    let c = Club { _t: t, home, server, org };
    c.push(T0);
    c
}

impl Club {
    /// `git push origin main` at `time`: what the remote said, or why it refused.
    pub(crate) fn try_push(&self, time: i64) -> Result<String, String> {
        let mut cmd = git_command(&self.org, &self.home);
        cmd.env("RAVENPOST_TIME", time.to_string()).args(["push", "origin", "main"]);
        let o = cmd.output().expect("git runs");
        if o.status.success() { Ok(text(&o)) } else { Err(text(&o)) }
    }

    pub(crate) fn push(&self, time: i64) -> String {
        self.try_push(time).unwrap_or_else(|e| panic!("push refused: {e}"))
    }

    pub(crate) fn ok(&self, time: i64, args: &[&str]) -> String {
        ok_at(&self.org, &self.home, time, args)
    }
}

/// A game's result as the script plays it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum R {
    White,
    Black,
    Draw,
}

/// Plays game `id` between `white` and `black` to result `r`: a win by the opponent's
/// resignation after White's first move (White) or at once (Black), a draw offered and
/// accepted.
pub(crate) fn play(c: &Club, t: &mut i64, id: &str, white: &str, black: &str, r: R) {
    let mut step = |args: &[&str]| {
        *t += 60;
        c.ok(*t, args);
    };
    match r {
        R::White => {
            step(&["move", id, "2e3", "--as", white]);
            step(&["resign", id, "--as", black]);
        }
        R::Black => step(&["resign", id, "--as", white]),
        R::Draw => {
            step(&["draw", "offer", id, "--as", white]);
            step(&["move", id, "2e3", "--as", white]);
            step(&["draw", "accept", id, "--as", black]);
        }
    }
}

/// The games a `tournament new`/`next --json` made: (id, White, Black).
pub(crate) fn made(json: &str, key: &str) -> Vec<(String, String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let games = if key.is_empty() { &v["games"] } else { &v[key]["games"] };
    games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let s = |k: &str| g[k].as_str().unwrap().to_string();
            (s("id"), s("white"), s("black"))
        })
        .collect()
}

fn ids(games: &[(String, String, String)]) -> Vec<String> {
    games.iter().map(|g| format!("{} {}-{}", g.0, g.1, g.2)).collect()
}

/// Plays each of `games` to the result `plan` gives its id, then pushes.
fn play_all(c: &Club, t: &mut i64, games: &[(String, String, String)], plan: &dyn Fn(&str) -> R) {
    for (id, w, b) in games {
        play(c, t, id, w, b, plan(id));
    }
    *t += 60;
    c.push(*t);
}

/// The 8-player cup, seeds in the order given: Ann 1, Bo 2, Cy 3, Di 4, Ed 5, Fay 6,
/// Gus 7, Hal 8. The bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6; then the winners of matches
/// 1 and 2, of 3 and 4) and the script's results, by hand:
///
/// Round 1
/// - m1 Ann v Hal: g1 (Ann White) 1-0, g2 (Hal White) 0-1: Ann 2-0, won.
/// - m2 Di v Ed: g1 (Di White) ½, g2 (Ed White) ½: level 1-1; extra g3 (Di White) ½,
///   g4 (Ed White) 1-0: Ed advances on a tie-break game, 1½-2½.
/// - m3 Bo v Gus: g1 (Bo White) 1-0, g2 (Gus White) ½: Bo 1½-½, won.
/// - m4 Cy v Fay: g1 (Cy White) ½, g2 (Fay White) 1-0: Fay 1½-½, won (the upset).
///
/// Round 2
/// - m1 Ann (1) v Ed (5): g1 (Ann White) 0-1, g2 (Ed White) 0-1: level 1-1; extra g3
///   (Ann White) 1-0: Ann advances on a tie-break game, 2-1.
/// - m2 Bo (2) v Fay (6): g1 (Bo White) 1-0, g2 (Fay White) ½: Bo 1½-½, won.
///
/// Final: Ann (1) v Bo (2): g1 (Ann White) ½, g2 (Bo White) 1-0: Bo 1½-½, the winner.
fn cup_plan(id: &str) -> R {
    let game = id.strip_prefix("cup-").unwrap();
    match game {
        "r1-m1-g1" | "r1-m3-g1" | "r1-m2-g4" | "r2-m1-g3" | "r2-m2-g1" | "r1-m4-g2" | "r3-m1-g2" => R::White,
        "r1-m1-g2" | "r2-m1-g1" | "r2-m1-g2" => R::Black,
        _ => R::Draw,
    }
}

#[test]
fn an_eight_player_knockout_with_a_tied_match_played_through_the_hook() {
    let smtp_root = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(smtp_root.path(), "maildir", None);
    let c = club(Some(smtp.port));
    let mut t = T0 + 60;
    let names = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"];
    let email = |p: &str| format!("{}@club.example", p.to_lowercase());
    let players: Vec<String> = names.iter().map(|p| format!("{p} <{}>", email(p))).collect();
    let players = players.join(",");
    let args = [
        "tournament",
        "new",
        "cup",
        "gygax",
        "--format",
        "knockout",
        "--games",
        "2",
        "--tie-break",
        "extra-game",
    ];
    let json = c.ok(t, &[&args[..], &["--players", &players, "--json"]].concat());
    let first = made(&json, "tournament");
    assert_eq!(
        ids(&first),
        [
            "cup-r1-m1-g1 Ann-Hal",
            "cup-r1-m1-g2 Hal-Ann",
            "cup-r1-m2-g1 Di-Ed",
            "cup-r1-m2-g2 Ed-Di",
            "cup-r1-m3-g1 Bo-Gus",
            "cup-r1-m3-g2 Gus-Bo",
            "cup-r1-m4-g1 Cy-Fay",
            "cup-r1-m4-g2 Fay-Cy",
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["tournament"]["knockout"], serde_json::json!({"games": 2, "tie-break": "extra-game"}));
    let files = git(&c.org, &c.home, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files.lines().count(), 9, "the tournament file and its 8 games in one commit: {files}");
    c.push(t);

    // Round 1's games. Before any result nothing is due.
    // Nothing due is no error (a timer may run `next`): exit 0, nothing committed.
    let tip = git(&c.org, &c.home, &["rev-parse", "HEAD"]);
    let o = run_at(&c.org, &c.home, t, &["tournament", "next", "cup"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("cup: no game is due, waiting for the results of cup-r1-m1-g1"),
        "{}",
        text(&o)
    );
    assert_eq!(git(&c.org, &c.home, &["rev-parse", "HEAD"]), tip);
    play_all(&c, &mut t, &first, &cup_plan);
    // m2 is level: its first extra game; m3 and m4 are decided: round 2's second match.
    let next = |t: &mut i64| {
        *t += 60;
        let json = c.ok(*t, &["tournament", "next", "cup", "--json"]);
        *t += 60;
        c.push(*t);
        made(&json, "")
    };
    let second = next(&mut t);
    assert_eq!(ids(&second), ["cup-r1-m2-g3 Di-Ed", "cup-r2-m2-g1 Bo-Fay", "cup-r2-m2-g2 Fay-Bo"]);
    play_all(&c, &mut t, &second, &cup_plan);
    let third = next(&mut t);
    assert_eq!(ids(&third), ["cup-r1-m2-g4 Ed-Di"], "still level: one more game, colours alternating");
    play_all(&c, &mut t, &third, &cup_plan);
    let fourth = next(&mut t);
    assert_eq!(ids(&fourth), ["cup-r2-m1-g1 Ann-Ed", "cup-r2-m1-g2 Ed-Ann"]);
    play_all(&c, &mut t, &fourth, &cup_plan);
    let fifth = next(&mut t);
    assert_eq!(ids(&fifth), ["cup-r2-m1-g3 Ann-Ed"]);
    play_all(&c, &mut t, &fifth, &cup_plan);
    let last = next(&mut t);
    assert_eq!(ids(&last), ["cup-r3-m1-g1 Ann-Bo", "cup-r3-m1-g2 Bo-Ann"]);
    play_all(&c, &mut t, &last, &cup_plan);
    let o = run_at(&c.org, &c.home, t, &["tournament", "next", "cup"]);
    assert!(text(&o).contains("no game is due, it is over: Bo won"), "{}", text(&o));

    assert_eq!(
        git(&c.server, &c.home, &["rev-parse", "main"]),
        git(&c.org, &c.home, &["rev-parse", "HEAD"]),
        "the server has every step"
    );
    let v = c.ok(t, &["verify"]);
    assert!(v.contains("17 games verified, 0 problems"), "{v}");

    // The post-receive hook announced every game, the later rounds' too, to both players.
    let log = std::fs::read_to_string(c.server.join("ravenpost/notify.log")).unwrap();
    let created: Vec<&str> = log.lines().filter(|l| l.ends_with(" (created)")).collect();
    assert_eq!(created.len(), 2 * 17, "{log}");
    assert!(created.iter().all(|l| l.contains(" sent <")), "{log}");
    for (id, white, black) in [&first[..], &second, &third, &fourth, &fifth, &last].concat() {
        for p in [white, black] {
            let line = format!(" {id} ply 0 to {}: sent <", email(&p));
            assert!(created.iter().any(|l| l.contains(&line)), "{line} in {log}");
        }
    }
    assert_eq!(smtp.messages().len(), log.lines().count(), "every mail logged was received");

    // The bracket, as counted by hand above.
    let s: serde_json::Value = serde_json::from_str(&c.ok(t, &["standings", "cup", "--json"])).unwrap();
    let b = &s[0]["knockout"];
    assert_eq!(b["winner"], "Bo");
    assert_eq!(b["rounds"], 3);
    let matches: Vec<String> = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            format!(
                "r{} m{}: {} {}-{} {}, {} games: {} ({})",
                m["round"],
                m["number"],
                m["higher"]["name"].as_str().unwrap(),
                m["higher_points"],
                m["lower_points"],
                m["lower"]["name"].as_str().unwrap(),
                m["games"].as_array().unwrap().len(),
                m["advanced"].as_str().unwrap(),
                m["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        matches,
        [
            "r1 m1: Ann 2.0-0.0 Hal, 2 games: Ann (won)",
            "r1 m2: Di 1.5-2.5 Ed, 4 games: Ed (tie-break-game)",
            "r1 m3: Bo 1.5-0.5 Gus, 2 games: Bo (won)",
            "r1 m4: Cy 0.5-1.5 Fay, 2 games: Fay (won)",
            "r2 m1: Ann 2.0-1.0 Ed, 3 games: Ann (tie-break-game)",
            "r2 m2: Bo 1.5-0.5 Fay, 2 games: Bo (won)",
            "r3 m1: Ann 0.5-1.5 Bo, 2 games: Bo (won)",
        ]
    );
    assert_eq!(s[0]["finished"], 17);
    let table = c.ok(t, &["standings", "cup"]);
    assert!(
        table.contains(
            "  match 2: (4) Di 1½-2½ (5) Ed, 4 of 4 games finished: Ed advances (won a tie-break game)\n"
        ),
        "{table}"
    );
    assert!(table.contains("Round 3 (final)\n  match 1: (1) Ann ½-1½ (2) Bo, 2 of 2 games finished: Bo advances (won the match)\n"), "{table}");
    assert!(table.ends_with("\nWinner: Bo\n"), "{table}");
}

/// Regression for issue 36: a next-round commit is judged like a tournament's creation.
/// With the higher-seed rule a level match sends the higher seed on; a commit that pairs
/// the final with the lower seed instead (the tournament file and the game file edited
/// alike) is refused by the hook and reported by `verify`.
#[test]
fn a_forged_next_round_pairing_the_wrong_players_is_refused() {
    let c = club(None);
    let mut t = T0 + 60;
    let args = [
        "tournament",
        "new",
        "cup",
        "gygax",
        "--format",
        "knockout",
        "--games",
        "1",
        "--tie-break",
        "higher-seed",
        "--players",
        "Ann,Bo,Cy,Di",
        "--json",
    ];
    let first = made(&c.ok(t, &args), "tournament");
    assert_eq!(ids(&first), ["cup-r1-m1-g1 Ann-Di", "cup-r1-m2-g1 Bo-Cy"]);
    c.push(t);
    // Ann and Di draw: level, Ann goes on as the higher seed; Cy beats Bo with Black.
    let plan = |id: &str| if id == "cup-r1-m1-g1" { R::Draw } else { R::Black };
    play_all(&c, &mut t, &first, &plan);
    t += 60;
    let good = made(&c.ok(t, &["tournament", "next", "cup", "--json"]), "");
    assert_eq!(ids(&good), ["cup-r2-m1-g1 Ann-Cy"]);

    // Forge it: Di in the final instead of Ann.
    let yaml = c.org.join("tournaments/cup.yaml");
    let before = std::fs::read_to_string(&yaml).unwrap();
    let at = before.find("id: cup-r2-m1-g1").unwrap();
    let forged = format!("{}{}", &before[..at], before[at..].replacen("white: Ann", "white: Di", 1));
    std::fs::write(&yaml, forged).unwrap();
    let game = c.org.join(crate::common::cli::fan_out_path("gygax", "cup-r2-m1-g1"));
    let pgn = std::fs::read_to_string(&game).unwrap();
    std::fs::write(&game, pgn.replace("[White \"Ann\"]", "[White \"Di\"]")).unwrap();
    git(&c.org, &c.home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    let refused = c.try_push(t + 60).unwrap_err();
    assert!(refused.contains("remote: ravenpost: cup "), "{refused}");
    assert!(
        refused.contains("the games due are cup-r2-m1-g1 Ann v Cy; the commit adds cup-r2-m1-g1 Di v Cy"),
        "{refused}"
    );
    let o = run_at(&c.org, &c.home, t + 60, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("the games due are cup-r2-m1-g1 Ann v Cy"), "{}", text(&o));

    // Made again as `tournament next` makes it: accepted, played, standings.
    git(&c.org, &c.home, &["reset", "--quiet", "--hard", "HEAD~1"]);
    t += 120;
    let good = made(&c.ok(t, &["tournament", "next", "cup", "--json"]), "");
    assert_eq!(ids(&good), ["cup-r2-m1-g1 Ann-Cy"]);
    t += 60;
    c.push(t);
    play_all(&c, &mut t, &good, &|_| R::Draw);
    let s: serde_json::Value = serde_json::from_str(&c.ok(t, &["standings", "cup", "--json"])).unwrap();
    let b = &s[0]["knockout"];
    let reasons: Vec<(&str, &str)> = b["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["advanced"].as_str().unwrap(), m["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(reasons, [("Ann", "higher-seed"), ("Cy", "won"), ("Ann", "higher-seed")]);
    assert_eq!(b["winner"], "Ann");
    let v = c.ok(t, &["verify"]);
    assert!(v.contains("3 games verified, 0 problems"), "{v}");
}

/// `tournament next` made while a player pushed results that make another match due:
/// `sync` replays the organiser's commit on top (its games are still due, a whole match),
/// the hook accepts it, and the next `tournament next` makes the other match.
#[test]
fn a_next_round_commit_replayed_by_sync_after_other_results_is_accepted() {
    let c = club(None);
    let mut t = T0 + 60;
    let args = ["tournament", "new", "cup", "gygax", "--format", "knockout", "--games", "1", "--tie-break"];
    let made_json =
        c.ok(t, &[&args[..], &["higher-seed", "--players", "A,B,C,D,E,F,G,H", "--json"]].concat());
    let first = made(&made_json, "tournament");
    assert_eq!(ids(&first), ["cup-r1-m1-g1 A-H", "cup-r1-m2-g1 D-E", "cup-r1-m3-g1 B-G", "cup-r1-m4-g1 C-F"]);
    c.push(t);
    let player = c.org.parent().unwrap().join("player");
    git(
        c.org.parent().unwrap(),
        &c.home,
        &["clone", "--quiet", c.server.to_str().unwrap(), player.to_str().unwrap()],
    );
    // The organiser's side: matches 1 and 2 end (White wins), round 2 match 1 is made.
    for id in ["cup-r1-m1-g1", "cup-r1-m2-g1"] {
        t += 60;
        c.ok(t, &["resign", id, "--as", if id.contains("m1") { "H" } else { "E" }]);
    }
    t += 60;
    let mine = made(&c.ok(t, &["tournament", "next", "cup", "--json"]), "");
    assert_eq!(ids(&mine), ["cup-r2-m1-g1 A-D"]);
    // Meanwhile matches 3 and 4 end in the player's clone and reach the server first.
    for (id, loser) in [("cup-r1-m3-g1", "G"), ("cup-r1-m4-g1", "F")] {
        t += 60;
        ok_at(&player, &c.home, t, &["resign", id, "--as", loser]);
    }
    t += 60;
    ok_at(&player, &c.home, t, &["sync"]);
    t += 60;
    let synced = c.ok(t, &["sync"]);
    assert_eq!(
        git(&c.server, &c.home, &["rev-parse", "main"]),
        git(&c.org, &c.home, &["rev-parse", "HEAD"]),
        "{synced}"
    );
    // The organiser's three commits replayed on top of the player's two, not merged.
    let log = git(&c.server, &c.home, &["log", "--format=%s", "-5", "main"]);
    let games: Vec<&str> = log.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(games, ["cup", "cup-r1-m2-g1", "cup-r1-m1-g1", "cup-r1-m4-g1", "cup-r1-m3-g1"], "{log}");
    assert_eq!(git(&c.server, &c.home, &["rev-list", "--merges", "main"]), "", "no merge: {log}");
    t += 60;
    let rest = made(&c.ok(t, &["tournament", "next", "cup", "--json"]), "");
    assert_eq!(ids(&rest), ["cup-r2-m2-g1 B-C"]);
    t += 60;
    c.ok(t, &["sync"]);
    let v = c.ok(t, &["verify"]);
    assert!(v.contains("6 games verified, 0 problems"), "{v}");
}

/// Six players in a bracket of eight: seeds 1 and 2 have byes, the first games are
/// 4 v 5 and 3 v 6, and round 2 waits for both.
#[test]
fn a_knockout_of_six_gives_byes_to_the_top_two_seeds() {
    let (_t, dir, home) = common::archive();
    let json = ok_at(
        &dir,
        &home,
        T0,
        &[
            "tournament",
            "new",
            "six",
            "gygax",
            "--format",
            "knockout",
            "--games",
            "1",
            "--tie-break",
            "higher-seed",
            "--players",
            "Ann,Bo,Cy,Di,Ed,Fay",
            "--json",
        ],
    );
    assert_eq!(ids(&made(&json, "tournament")), ["six-r1-m2-g1 Di-Ed", "six-r1-m4-g1 Cy-Fay"]);
    let table = ok_at(&dir, &home, T0, &["standings", "six"]);
    assert!(table.contains("  match 1: (1) Ann has a bye and advances\n"), "{table}");
    assert!(table.contains("  match 3: (2) Bo has a bye and advances\n"), "{table}");
    assert!(table.contains("Round 2\n  match 1: (1) Ann v ?\n  match 2: (2) Bo v ?\n"), "{table}");
    // Di beats Ed: round 2's first match is due, the second still waits for Cy v Fay.
    ok_at(&dir, &home, T0 + 60, &["resign", "six-r1-m2-g1", "--as", "Ed"]);
    let out = ok_at(&dir, &home, T0 + 120, &["tournament", "next", "six"]);
    assert!(out.contains("  round  2 match 1 game 1: six-r2-m1-g1  Ann v Di\n"), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
    let v = ok_at(&dir, &home, T0 + 180, &["verify"]);
    assert!(v.contains("3 games verified, 0 problems"), "{v}");

    // The site's standings page shows the bracket from the same figures.
    let out = dir.parent().unwrap().join("site");
    ok_at(&dir, &home, T0 + 180, &["site", out.to_str().unwrap()]);
    let printed = ok_at(&dir, &home, T0 + 180, &["standings", "--json"]);
    assert_eq!(std::fs::read_to_string(out.join("tournaments/six.json")).unwrap(), printed);
    let page = std::fs::read_to_string(out.join("tournaments/six.html")).unwrap();
    let rows: Vec<String> =
        page.split("<tr data-round=").skip(1).map(crate::common::cli::shown_row).collect();
    assert_eq!(
        rows,
        [
            "1 1 (1) Ann v bye Ann (bye)",
            "1 2 (4) Di v (5) Ed 1-0 1-0 Di (won the match)",
            "1 3 (2) Bo v bye Bo (bye)",
            "1 4 (3) Cy v (6) Fay 0-0 ·",
            "2 1 (1) Ann v (4) Di 0-0 ·",
            "2 2 (2) Bo v ?",
            "3 1 ? v ?",
        ],
        "{page}"
    );
}

#[test]
fn bad_knockout_input_says_what_would_be_legal() {
    let (_t, dir, home) = common::archive();
    let new = |extra: &[&str]| {
        let base = ["tournament", "new", "cup", "gygax", "--players", "Ann,Bo,Cy"];
        run_at(&dir, &home, T0, &[&base[..], extra].concat())
    };
    let failed = |o: std::process::Output, says: &str| {
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(says), "{says} in {}", text(&o));
    };
    failed(
        new(&["--format", "knockout", "--games", "0", "--tie-break", "extra-game"]),
        "a knockout match needs at least one game and at most 100 (--games 1 to 100), not 0",
    );
    failed(
        new(&["--format", "knockout", "--games", "4294967295", "--tie-break", "extra-game"]),
        "(--games 1 to 100), not 4294967295",
    );
    failed(
        new(&["--format", "knockout", "--games", "2", "--tie-break", "coin-toss"]),
        "[possible values: extra-game, higher-seed]",
    );
    failed(
        new(&["--format", "knockout", "--games", "2"]),
        "--format knockout needs --games N (the games of a match, 1 to 100) and --tie-break extra-game or --tie-break higher-seed",
    );
    failed(new(&["--games", "2"]), "--games and --tie-break are for --format knockout");
    failed(
        new(&["--format", "knockout", "--games", "2", "--tie-break", "extra-game", "--double"]),
        "--double is for round robins",
    );
    failed(new(&["--format", "league"]), "[possible values: round-robin, knockout, swiss]");
    // Nothing was made; a round robin has no next games.
    assert!(ok_at(&dir, &home, T0, &["tournament", "list"]).is_empty());
    ok_at(&dir, &home, T0, &["tournament", "new", "rr", "gygax", "--players", "Ann,Bo"]);
    failed(
        run_at(&dir, &home, T0, &["tournament", "next", "rr"]),
        "tournament rr is a round robin: its games were all made with it; `tournament next` is for knockouts",
    );
    failed(run_at(&dir, &home, T0, &["tournament", "next", "nope"]), "no tournament `nope` in the archive");
}
