//! `sync` as a club relies on it (issue 13): a force-pushed takeback on a server without
//! the hook is refused by the victim's `sync`, changing nothing; two players moving in
//! different games both get through (the second's commits are replayed on top of the
//! first's, judged again, and pushed); shallow and blobless clones stay valid for git,
//! and `verify`/`log` say where a shallow history starts; and a club of eight players in
//! sixteen games plays 400 moves in a seeded random order through one bare repository
//! with the hook, syncing with the real binary and the real git, some of them at once.
//!
//! Every clone, server and git run is isolated as in `tests/correspondence.rs`.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::rng::Lcg;
use common::tools::keygen;
use common::{T0, git, git_out, identity, ok, ok_at, ravenpost_at, run, text};
use ravenpost::archive::{Archive, Identity};

/// A bare repository (with or without the hook) and one clone per player.
struct Club {
    _t: tempfile::TempDir,
    home: PathBuf,
    server: PathBuf,
    clones: Vec<PathBuf>,
}

impl Club {
    fn new(players: &[&str], hook: bool) -> Club {
        let t = tempfile::tempdir().unwrap();
        let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
        let server = t.path().join("server.git");
        git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
        // Partial clones need the server to filter.
        git(&server, &home, &["config", "uploadpack.allowFilter", "true"]);
        if hook {
            let out = ok(t.path(), &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
            assert!(out.contains("pre-receive"), "{out}");
        }
        let mut clones = Vec::new();
        for name in players {
            let dir = t.path().join(name.to_lowercase());
            git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
            configure(&dir, &home, name);
            clones.push(dir);
        }
        Club { _t: t, home, server, clones }
    }

    fn dir(&self) -> &Path {
        self._t.path()
    }

    fn server_tip(&self) -> String {
        git(&self.server, &self.home, &["rev-parse", "refs/heads/main"]).trim().to_string()
    }

    fn sync(&self, who: usize) -> String {
        ok(&self.clones[who], &self.home, &["sync"])
    }
}

fn configure(dir: &Path, home: &Path, name: &str) {
    git(dir, home, &["config", "user.name", name]);
    git(dir, home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
}

fn head(dir: &Path, home: &Path) -> String {
    git(dir, home, &["rev-parse", "HEAD"]).trim().to_string()
}

/// Everything about a clone that a refused `sync` must leave alone: every ref (ravenpost's
/// own and the remote-tracking ones included), the status, and every file of the
/// working copy with its contents.
fn snapshot(dir: &Path, home: &Path) -> String {
    let refs = git(dir, home, &["for-each-ref", "--format=%(refname) %(objectname)"]);
    let status = git(dir, home, &["status", "--porcelain", "--ignored"]);
    let mut files = String::new();
    for f in git(dir, home, &["ls-files"]).lines() {
        files.push_str(&format!("{f}\n{}\n", std::fs::read_to_string(dir.join(f)).unwrap()));
    }
    format!("{refs}--\n{status}--\n{files}")
}

/// Ann (Gold) and Bo (Scarlet) in game `g`, four plies played, each synced after every
/// move; both clones at the server's tip.
fn four_plies(club: &Club) {
    let (ann, bo) = (&club.clones[0], &club.clones[1]);
    ok(ann, &club.home, &["init", "--layout", "flat"]);
    ok(ann, &club.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    club.sync(0);
    club.sync(1);
    for (i, m) in ["2e3", "Sa3b6", "Rx3b6", "U2c6"].iter().enumerate() {
        let (dir, who) = if i % 2 == 0 { (ann, "Ann") } else { (bo, "Bo") };
        club.sync(i % 2);
        ok(dir, &club.home, &["move", "g", m, "--as", who, "--expect-ply", &(i + 1).to_string()]);
        let out = club.sync(i % 2);
        assert!(out.contains("Pushed 1 commit"), "{out}");
    }
    club.sync(0);
    club.sync(1);
    assert_eq!(head(ann, &club.home), club.server_tip());
    assert_eq!(head(bo, &club.home), club.server_tip());
}

/// The finding: with a server that has no hook, Ann takes back her ply 3 (which Bo has
/// answered) by resetting and force-pushing another move. Bo's `sync` used to call it a
/// conflict in which the remote's move stands. It must refuse, change nothing in Bo's
/// clone, and name the moves that vanished.
#[test]
fn sync_refuses_force_pushed_takeback() {
    let club = Club::new(&["Ann", "Bo"], false);
    four_plies(&club);
    let (ann, bo, home) = (&club.clones[0], &club.clones[1], &club.home);
    let answered = head(bo, home);
    // Ann rewrites: back to ply 2, another ply 3, force-pushed (no hook stops it).
    git(ann, home, &["reset", "--quiet", "--hard", "HEAD~2"]);
    ok(ann, home, &["move", "g", "2a3", "--as", "Ann", "--expect-ply", "3"]);
    git(ann, home, &["push", "--quiet", "--force", "origin", "main"]);
    let rewritten = club.server_tip();
    assert_ne!(rewritten, answered);

    let before = snapshot(bo, home);
    let o = run(bo, home, &["sync"]);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let short = &answered[..12];
    assert!(err.contains(&format!("origin/main no longer contains {short}")), "{err}");
    assert!(err.contains("2 commits vanished: g: ply 3 Rx3b6 by Ann (Gold) ("), "{err}");
    assert!(err.contains("g: ply 4 U2c6 by Bo (Scarlet) ("), "{err}");
    assert!(err.contains("In their place origin has: g: ply 3 2a3 by Ann (Gold) ("), "{err}");
    assert!(!err.contains("came first and stands"), "{err}");
    assert_eq!(snapshot(bo, home), before, "a refused sync changes nothing");
    assert_eq!(head(bo, home), answered);
    assert_eq!(club.server_tip(), rewritten, "nor is the server touched");

    // Again, as JSON: typed, with the game, ply and move of each vanished commit.
    let o = run(bo, home, &["sync", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("sync --json prints JSON");
    assert_eq!(v["refused"], "rewritten");
    assert_eq!(v["accepted"], short);
    assert_eq!(v["remote_tip"], &rewritten[..12]);
    let vanished: Vec<(String, u64, String)> = v["vanished"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["game"].as_str().unwrap().into(),
                s["ply"].as_u64().unwrap(),
                s["san"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(vanished, [("g".into(), 3, "Rx3b6".into()), ("g".into(), 4, "U2c6".into())]);
    assert_eq!(snapshot(bo, home), before);
    // Bo's verify still passes on his own (unrewritten) history.
    ok(bo, home, &["verify"]);

    // Restoring the server from Bo's clone (the advice) makes everyone agree again.
    git(bo, home, &["push", "--quiet", "--force", "origin", &format!("{answered}:main")]);
    let out = club.sync(1);
    assert!(out.starts_with("Up to date with origin/main"), "{out}");
}

/// The finding: two players moving in different games blocked each other ("both moved
/// on"). Now the second `sync` replays its commit on top of the first's, the hook judges
/// it, and both clones end at the same commit with `verify` clean.
#[test]
fn sync_merges_moves_in_unrelated_games() {
    let club = Club::new(&["Ann", "Bo"], true);
    let (ann, bo, home) = (&club.clones[0], &club.clones[1], &club.home);
    ok(ann, home, &["init", "--layout", "flat"]);
    ok(ann, home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(ann, home, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "h"]);
    club.sync(0);
    club.sync(1);
    // Both move, in different games, from the same tip.
    ok(ann, home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(bo, home, &["move", "h", "2e3", "--as", "Bo"]);
    let bo_before = head(bo, home);
    assert_eq!(club.sync(0), "Pushed 1 commit to origin/main\n");
    let ann_pushed = club.server_tip();
    let o = run(bo, home, &["sync", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"], "rebased");
    assert_eq!(v["pushed"], 1);
    assert_eq!(v["fetched"][0]["game"], "g");
    assert_eq!(v["fetched"][0]["san"], "2e3");
    assert_eq!(v["rebased"][0]["game"], "h");
    assert_eq!(v["rebased"][0]["player"], "Bo");
    let tip = club.server_tip();
    assert_eq!(head(bo, home), tip);
    assert_ne!(tip, bo_before, "Bo's commit was written again on top of Ann's");
    assert_eq!(v["tip"], &tip[..12]);
    // On the server: Bo's move on top of Ann's, authored by Bo, with its message.
    let log = git(&club.server, home, &["log", "--format=%P %an %s", "-2", "main"]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines[0], format!("{ann_pushed} Bo h: ply 1 2e3 (Gold plays 2e3)"), "{log}");
    assert!(lines[1].ends_with("Ann g: ply 1 2e3 (Gold plays 2e3)"), "{log}");
    assert_eq!(git(bo, home, &["status", "--porcelain"]), "");
    let out = club.sync(0);
    assert!(out.contains("h: ply 1 2e3 by Bo (Gold)"), "{out}");
    assert_eq!(head(ann, home), tip);
    for dir in [ann, bo] {
        assert_eq!(ok(dir, home, &["verify"]), "2 games verified, 0 problems\n");
        assert_eq!(git(dir, home, &["status", "--porcelain"]), "");
        let f = std::fs::read_to_string(dir.join("games/gygax/h.pgn")).unwrap();
        assert_eq!(f, git(&club.server, home, &["show", "main:games/gygax/h.pgn"]));
    }
    // Text output of a replay.
    ok(ann, home, &["move", "h", "Sa3b6", "--as", "Ann"]);
    ok(bo, home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    club.sync(0);
    let out = club.sync(1);
    assert!(
        out.starts_with("Fetched 1 commit(s) from origin/main:\n  h: ply 2 Sa3b6 by Ann (Scarlet) ("),
        "{out}"
    );
    assert!(out.contains("\nReplayed 1 commit of this archive on top of them (each judged again) and pushed to origin/main:\n  g: ply 2 Sa3b6 by Bo (Scarlet) ("), "{out}");

    // A sync whose push landed but which stopped before moving the local branch: the
    // next one finds its own commit, replayed, on the remote and takes the remote's line.
    club.sync(0);
    ok(ann, home, &["move", "g", "Rx3b6", "--as", "Ann"]);
    ok(bo, home, &["move", "h", "Rx3b6", "--as", "Bo"]);
    club.sync(0);
    let original = head(bo, home);
    let out = club.sync(1);
    assert!(out.contains("\nReplayed 1 commit"), "{out}");
    let tip = club.server_tip();
    git(bo, home, &["reset", "--quiet", "--hard", &original]);
    let out = club.sync(1);
    assert!(out.starts_with("Fetched 2 commit(s) from origin/main:"), "{out}");
    assert!(!out.contains("Replayed"), "{out}");
    assert_eq!(head(bo, home), tip);
    assert_eq!(git(&club.server, home, &["rev-parse", "main"]).trim(), tip, "nothing pushed twice");
    assert_eq!(ok(bo, home, &["verify"]), "2 games verified, 0 problems\n");
}

/// Two players' syncs push at the same moment, in different games (the hook made slow,
/// so that both fetch before either push lands): the loser's push is overtaken, so it
/// fetches again, replays its commit on top of the winner's, and pushes; both land.
#[test]
fn racing_syncs_in_different_games_both_land() {
    let club = Club::new(&["Ann", "Bo"], true);
    let (ann, bo, home) = (&club.clones[0], &club.clones[1], &club.home);
    ok(ann, home, &["init", "--layout", "flat"]);
    club.sync(0);
    club.sync(1);
    ok(ann, home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "a1"]);
    ok(bo, home, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "b1"]);
    let slow = club.dir().join("slow-ravenpost");
    std::fs::write(&slow, format!("#!/bin/sh\nsleep 1\nexec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_ravenpost")))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spawn = |dir: &Path| {
        ravenpost_at(dir, home, T0)
            .args(["sync", "--json"])
            .env("RAVENPOST_HOOK_EXE", &slow)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(ann), spawn(bo));
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let mut outcomes = Vec::new();
    for o in &outs {
        assert!(o.status.success(), "{}", text(o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        outcomes.push((v["outcome"].as_str().unwrap().to_string(), v["attempts"].as_u64().unwrap()));
    }
    outcomes.sort();
    assert_eq!(outcomes[0].0, "pushed", "{outcomes:?}");
    assert_eq!(outcomes[1].0, "rebased", "{outcomes:?}");
    eprintln!("racing syncs: {outcomes:?}");
    let tip = club.server_tip();
    let files = git(&club.server, home, &["ls-tree", "-r", "--name-only", "main"]);
    // `ravenpost init` commits the archive's `.gitattributes` beside `ravenpost.yaml`.
    assert_eq!(files, ".gitattributes\ngames/gygax/a1.pgn\ngames/gygax/b1.pgn\nravenpost.yaml\n");
    club.sync(0);
    club.sync(1);
    for dir in [ann, bo] {
        assert_eq!(head(dir, home), tip);
        assert_eq!(ok(dir, home, &["verify"]), "2 games verified, 0 problems\n");
    }
}

/// Four plies on a server, then a shallow clone of depth 2 for Bo: its boundary is the
/// commit of ply 3.
fn shallow_setup() -> (Club, PathBuf) {
    let club = Club::new(&["Ann", "Bo"], true);
    four_plies(&club);
    let shallow = club.dir().join("bo-shallow");
    let url = format!("file://{}", club.server.display());
    git(club.dir(), &club.home, &["clone", "--quiet", "--depth", "2", &url, shallow.to_str().unwrap()]);
    configure(&shallow, &club.home, "Bo");
    (club, shallow)
}

/// The finding: `sync` into a shallow clone deleted `.git/shallow`, after which `git log`
/// and `git fsck` failed. Now the clone stays valid through a fetch and a push.
#[test]
fn sync_into_shallow_clone_keeps_it_valid() {
    let (club, shallow) = shallow_setup();
    let home = &club.home;
    let boundary = std::fs::read_to_string(shallow.join(".git/shallow")).unwrap();
    ok(&club.clones[0], home, &["move", "g", "2a3", "--as", "Ann"]);
    club.sync(0);
    let out = ok(&shallow, home, &["sync"]);
    assert!(out.contains("g: ply 5 2a3 by Ann (Gold)"), "{out}");
    assert_eq!(head(&shallow, home), club.server_tip());
    let check = |what: &str| {
        assert_eq!(std::fs::read_to_string(shallow.join(".git/shallow")).unwrap(), boundary, "{what}");
        let fsck = git_out(&shallow, home, &["fsck", "--no-progress"]);
        assert!(fsck.status.success() && fsck.stderr.is_empty(), "{what}: git fsck: {}", text(&fsck));
        let log = git(&shallow, home, &["log", "--oneline"]);
        assert_eq!(
            log.lines().count(),
            git(&shallow, home, &["rev-list", "--count", "HEAD"]).trim().parse::<usize>().unwrap()
        );
        log.lines().count()
    };
    assert_eq!(check("after a fetch"), 3, "the boundary, ply 4 and ply 5");
    // Bo moves in the shallow clone and pushes from it; the hook accepts.
    ok(&shallow, home, &["move", "g", "2a6", "--as", "Bo"]);
    let out = ok(&shallow, home, &["sync"]);
    assert_eq!(out, "Pushed 1 commit to origin/main\n");
    assert_eq!(club.server_tip(), head(&shallow, home));
    assert_eq!(check("after a push"), 4);
    // Git can still deepen it.
    git(&shallow, home, &["fetch", "--quiet", "--unshallow", "origin"]);
    assert!(!shallow.join(".git/shallow").exists());
    let fsck = git_out(&shallow, home, &["fsck", "--no-progress"]);
    assert!(fsck.status.success(), "{}", text(&fsck));
    assert_eq!(ok(&shallow, home, &["verify"]), "1 game verified, 0 problems\n");
}

/// The finding: `verify` and `log` called a shallow clone's boundary invalid ("the game
/// appeared with 3 plies already played"). They now take it as the start of what can be
/// checked, and say so.
#[test]
fn verify_in_shallow_clone_names_the_boundary() {
    let (club, shallow) = shallow_setup();
    let home = &club.home;
    let boundary = std::fs::read_to_string(shallow.join(".git/shallow")).unwrap().trim().to_string();
    // The boundary is ply 3's commit: three plies before it, by hand count.
    assert_eq!(
        git(&shallow, home, &["log", "-1", "--format=%s", &boundary]),
        "g: ply 3 Rx3b6 (Gold plays Rx3b6)\n"
    );
    let out = ok(&shallow, home, &["verify"]);
    assert_eq!(
        out,
        format!(
            "1 game verified, 0 problems\nshallow clone: the history starts at {}; 3 earlier plies in 1 game not checked (`git fetch --unshallow` brings them)\n",
            &boundary[..12]
        )
    );
    let v: serde_json::Value = serde_json::from_str(&ok(&shallow, home, &["verify", "--json"])).unwrap();
    assert_eq!(v["problems"].as_array().unwrap().len(), 0);
    assert_eq!(v["shallow"]["commit"], &boundary[..12]);
    assert_eq!(v["shallow"]["games"], serde_json::json!([{ "game": "g", "plies": 3 }]));
    let log = ok(&shallow, home, &["log", "g"]);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "{log}");
    assert!(lines[0].starts_with(&boundary[..12]), "{log}");
    assert!(
        lines[0].ends_with("history starts here (shallow clone): 3 plies before it not checked"),
        "{log}"
    );
    assert!(lines[1].ends_with("ply 4 U2c6"), "{log}");
    let v: serde_json::Value = serde_json::from_str(&ok(&shallow, home, &["log", "g", "--json"])).unwrap();
    assert_eq!(v[0]["shallow_boundary"], 3);
    assert_eq!(v[0]["problem"], serde_json::Value::Null);
    assert_eq!(v[1]["san"], "U2c6");
    assert!(v[1].get("shallow_boundary").is_none(), "only the boundary line has the field");
    // A complete clone's JSON has no such fields.
    let full: serde_json::Value =
        serde_json::from_str(&ok(&club.clones[1], home, &["verify", "--json"])).unwrap();
    assert!(full.get("shallow").is_none(), "{full}");
}

/// Missing blobs before and after: `git rev-list --objects --missing=print` lists them
/// with a leading `?`.
fn missing_objects(dir: &Path, home: &Path) -> usize {
    let out = git(dir, home, &["rev-list", "--objects", "--all", "--missing=print"]);
    out.lines().filter(|l| l.starts_with('?')).count()
}

/// The finding: in a blobless clone `verify` and `log` exited 2 with libgit2's "object
/// not found". Now the missing versions are fetched from the promisor remote; when that
/// remote cannot be reached, the command fails with exit 1 and says how to fetch them.
#[test]
fn verify_in_blobless_clone_fetches_or_explains() {
    let club = Club::new(&["Ann", "Bo"], true);
    four_plies(&club);
    let home = &club.home;
    let url = format!("file://{}", club.server.display());
    let blobless = club.dir().join("bo-blobless");
    git(club.dir(), home, &["clone", "--quiet", "--filter=blob:none", &url, blobless.to_str().unwrap()]);
    configure(&blobless, home, "Bo");
    // Five versions of the game file; only the tip's came with the clone.
    assert_eq!(missing_objects(&blobless, home), 4);
    assert_eq!(ok(&blobless, home, &["verify"]), "1 game verified, 0 problems\n");
    assert_eq!(missing_objects(&blobless, home), 0, "verify fetched what it read");
    let log = ok(&blobless, home, &["log", "g"]);
    assert_eq!(log.lines().count(), 5, "{log}");
    // A move in the blobless clone and syncs both ways keep it valid for git.
    ok(&club.clones[0], home, &["move", "g", "2a3", "--as", "Ann"]);
    club.sync(0);
    let out = ok(&blobless, home, &["sync"]);
    assert!(out.contains("g: ply 5 2a3 by Ann (Gold)"), "{out}");
    ok(&blobless, home, &["move", "g", "2a6", "--as", "Bo"]);
    assert_eq!(ok(&blobless, home, &["sync"]), "Pushed 1 commit to origin/main\n");
    let fsck = git_out(&blobless, home, &["fsck", "--no-progress"]);
    assert!(fsck.status.success(), "{}", text(&fsck));

    // A second blobless clone whose promisor remote has gone away.
    let lost = club.dir().join("lost");
    git(club.dir(), home, &["clone", "--quiet", "--filter=blob:none", &url, lost.to_str().unwrap()]);
    assert!(missing_objects(&lost, home) > 0);
    let moved = club.server.with_file_name("moved.git");
    std::fs::rename(&club.server, &moved).unwrap();
    for args in [&["verify"][..], &["log", "g"][..]] {
        let o = run(&lost, home, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", text(&o));
        assert!(err.contains("is not in this partial clone and could not be fetched"), "{err}");
        assert!(err.contains("could not be fetched from origin"), "{err}");
        assert!(err.contains(&format!("or fetch it with `git -C {} cat-file -e ", lost.display())), "{err}");
        assert!(!err.contains("object not found"), "no raw libgit2 error: {err}");
    }
    std::fs::rename(&moved, &club.server).unwrap();
    assert_eq!(ok(&lost, home, &["verify"]), "1 game verified, 0 problems\n");
}

/// The club: 8 players, 16 games (each player in 4), one bare repository with the hook,
/// each player in their own clone. 400 moves in a seeded random order: a player syncs
/// (mostly), plays a random legal move in one of their games where they are to move
/// (through the library, as `ravenpost move` does), and syncs again or not (then their
/// next sync replays it on top of the others'). Every 20 moves, every player with
/// unsent moves syncs at the same moment (the pushes race; the losers fetch, replay and
/// retry). At the end: every clone at the server's tip, each game holding exactly the
/// moves its players were told were played, in order, and `verify` clean everywhere.
#[test]
fn a_club_of_eight_players_in_sixteen_games_plays_four_hundred_moves() {
    const PLAYERS: [&str; 8] = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"];
    const MOVES: usize = 400;
    let club = Club::new(&PLAYERS, true);
    let home = &club.home;
    // The moves are played through the library, by this machine's clock: the syncs that
    // push them (and the hook they run, which refuses a commit dated later than it
    // arrives) run by the same clock.
    let wall_clock =
        || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let sync = |p: usize| ok_at(&club.clones[p], home, wall_clock(), &["sync"]);
    ok(&club.clones[0], home, &["init", "--layout", "flat"]);
    let mut games: Vec<(String, usize, usize)> = Vec::new();
    for k in 0..16 {
        let (white, black) = (k % 8, (k + 1 + k / 8) % 8);
        let id = format!("g{k:02}");
        ok(
            &club.clones[0],
            home,
            &["new", "gygax", "--white", PLAYERS[white], "--black", PLAYERS[black], "--id", &id],
        );
        games.push((id, white, black));
    }
    sync(0);
    for p in 1..8 {
        sync(p);
    }
    let mut rng = Lcg(0x5eed_c1ab);
    // What each player was told was played: per game, the plies in order.
    let mut told: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    let mut unsent = [false; 8];
    let mut played = 0;
    let mut replays = 0;
    let mut idle = 0;
    while played < MOVES {
        let p = rng.below(8);
        if rng.below(10) < 8 {
            let out = sync(p);
            replays += usize::from(out.contains("\nReplayed "));
            unsent[p] = false;
        }
        if let Some((id, ply, san)) = play_random(&club.clones[p], PLAYERS[p], &games, &mut rng) {
            let list = told.entry(id).or_default();
            assert_eq!(list.len() + 1, ply, "the ply the move was told it had");
            list.push((ply, san));
            played += 1;
            unsent[p] = true;
            if rng.below(10) < 6 {
                let out = sync(p);
                replays += usize::from(out.contains("\nReplayed "));
                unsent[p] = false;
            }
        } else {
            idle += 1;
        }
        if played % 20 == 0 && unsent.iter().filter(|u| **u).count() > 1 {
            // A race: everyone with unsent moves syncs at once.
            let racers: Vec<usize> = (0..8).filter(|&q| unsent[q]).collect();
            let children: Vec<_> = racers
                .iter()
                .map(|&q| {
                    ravenpost_at(&club.clones[q], home, wall_clock())
                        .args(["sync", "--json"])
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap()
                })
                .collect();
            for (child, &q) in children.into_iter().zip(&racers) {
                let o = child.wait_with_output().unwrap();
                assert!(o.status.success(), "{} in the race: {}", PLAYERS[q], text(&o));
                let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                replays += usize::from(v["outcome"] == "rebased");
                unsent[q] = false;
            }
        }
    }
    // Everyone syncs until nothing is left to send, then once more to take everything.
    for p in 0..8 {
        sync(p);
    }
    for p in 0..8 {
        let out = sync(p);
        assert!(out.starts_with("Up to date with origin/main") || out.starts_with("Fetched "), "{out}");
    }
    let tip = club.server_tip();
    let server = Archive::open(&club.server).unwrap();
    let mut plies = 0;
    for (id, _, _) in &games {
        let file = format!("games/gygax/{id}.pgn");
        let game = ravenpost::record::load(&server.read_file(&file).unwrap().unwrap()).unwrap();
        let mut pos = game.start.clone();
        let sans: Vec<(usize, String)> = game
            .moves
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let san = ravenpost::notation::san::write_move(&game.variant, &pos, m);
                pos = game.variant.make(&pos, m);
                (i + 1, san)
            })
            .collect();
        assert_eq!(
            &sans,
            told.get(id).unwrap_or(&Vec::new()),
            "{id}: the moves told played, no more, no fewer"
        );
        plies += sans.len();
    }
    assert_eq!(plies, MOVES);
    // One commit per move, plus the archive's and the games' first commits.
    let commits: usize = git(&club.server, home, &["rev-list", "--count", "main"]).trim().parse().unwrap();
    assert_eq!(commits, MOVES + 1 + games.len());
    for (p, dir) in club.clones.iter().enumerate() {
        assert_eq!(head(dir, home), tip, "{}'s clone", PLAYERS[p]);
        assert_eq!(git(dir, home, &["status", "--porcelain"]), "", "{}'s working copy", PLAYERS[p]);
        assert_eq!(ok(dir, home, &["verify"]), "16 games verified, 0 problems\n", "{}", PLAYERS[p]);
    }
    eprintln!("club: {MOVES} moves, {replays} replays, {idle} idle turns");
    assert!(replays >= 20, "the random order made {replays} replays (idle turns: {idle})");
}

/// `player` plays a random legal move (one that does not end the game) in one of their
/// games where they are to move in their clone: (game, ply, SAN) as the command reports
/// it; `None` if they are to move nowhere.
fn play_random(
    dir: &Path,
    player: &str,
    games: &[(String, usize, usize)],
    rng: &mut Lcg,
) -> Option<(String, usize, String)> {
    let archive = Archive::open(dir).unwrap();
    let mine: Vec<(String, ravenpost::record::game::Game)> = games
        .iter()
        .filter_map(|(id, _, _)| {
            let text = archive.read_file(&format!("games/gygax/{id}.pgn")).unwrap()?;
            let game = ravenpost::record::load(&text).unwrap();
            let side = game.position().side_to_move();
            (ravenpost::record::player(&game, side) == player && ravenpost::record::result_of(&game) == "*")
                .then(|| (id.clone(), game))
        })
        .collect();
    if mine.is_empty() {
        return None;
    }
    let (id, game) = &mine[rng.below(mine.len())];
    let v = &game.variant;
    let pos = game.position();
    let mut legal = v.legal_moves(&pos);
    while !legal.is_empty() {
        let m = legal.swap_remove(rng.below(legal.len()));
        if v.outcome(&v.make(&pos, &m)).is_some() {
            continue;
        }
        let san = ravenpost::notation::san::write_move(v, &pos, &m);
        let me = Identity::new(player, format!("{}@example.org", player.to_lowercase()));
        let session = ravenpost::usecases::Session::new().with_identity(me);
        let applied = ravenpost::usecases::play(&archive, id, &san, Some(player), None, &session)
            .unwrap_or_else(|e| panic!("{player} in {id}: {san}: {e}"));
        assert_eq!(applied.san.as_deref(), Some(san.as_str()));
        return Some((id.clone(), applied.ply, san));
    }
    None
}

/// Replayed commits of a game that lists the players' keys must be signed again (their
/// parent changed, so the old signature no longer holds): with the player's key set as
/// `user.signingKey` the replay is signed and the hook accepts it; without it, `sync`
/// refuses with what to set, changing nothing.
#[test]
fn sync_signs_replayed_commits_again() {
    let club = Club::new(&["Ann", "Bo"], true);
    let (ann, bo, home) = (&club.clones[0], &club.clones[1], &club.home);
    let keys = club.dir().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let (ann_key, ann_pub) = keygen(&keys, "ann");
    let (bo_key, bo_pub) = keygen(&keys, "bo");
    ok(ann, home, &["init", "--layout", "flat"]);
    for (id, white, black, wk, bk) in
        [("g", "Ann", "Bo", &ann_pub, &bo_pub), ("h", "Bo", "Ann", &bo_pub, &ann_pub)]
    {
        ok(
            ann,
            home,
            &[
                "new",
                "gygax",
                "--white",
                white,
                "--black",
                black,
                "--id",
                id,
                "--white-key",
                wk,
                "--black-key",
                bk,
            ],
        );
    }
    club.sync(0);
    club.sync(1);
    git(ann, home, &["config", "user.signingKey", &ann_key]);
    ok(ann, home, &["move", "g", "2e3"]);
    ok(bo, home, &["move", "h", "2e3", "--signing-key", &bo_key]);
    club.sync(0);
    // Bo has no user.signingKey: the replay cannot be signed.
    let before = snapshot(bo, home);
    let server = club.server_tip();
    let o = run(bo, home, &["sync"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("is signed and must be signed again on top of the remote's commits: set `git config user.signingKey`"), "{}", text(&o));
    assert_eq!(club.server_tip(), server);
    // The remote's commits were legal, so they are accepted as the remote's history (the
    // remote-tracking branch moves); the branch, working copy and files do not.
    let after = snapshot(bo, home);
    let strip = |s: &str| s.lines().filter(|l| !l.starts_with("refs/r")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&after), strip(&before));
    git(bo, home, &["config", "user.signingKey", &bo_key]);
    let out = club.sync(1);
    assert!(out.contains("\nReplayed 1 commit"), "{out}");
    let signed = git(&club.server, home, &["cat-file", "commit", "main"]);
    assert!(signed.contains("gpgsig -----BEGIN SSH SIGNATURE-----"), "{signed}");
    club.sync(0);
    for dir in [ann, bo] {
        assert_eq!(head(dir, home), club.server_tip());
        assert_eq!(ok(dir, home, &["verify"]), "2 games verified, 0 problems\n");
    }
}

/// Regression (issue 33, the club's mails): Bo imported the hook's mail of Ann's pushed
/// move (`mail import` commits it anew: another commit id and time), moved, and `sync`
/// was refused as diverged ("the move on origin came first") though origin held the very
/// same ply. Now the imported commit is recognised by the plies it records and dropped,
/// and Bo's move is replayed on top of origin's and pushed.
#[test]
fn sync_after_mail_import_of_a_pushed_move_is_not_refused() {
    let t = tempfile::tempdir().unwrap();
    let smtp = common::smtp::Smtp::start(t.path(), "maildir", None);
    let home = identity(&t.path().join("home"), "Referee", "referee@club.example");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok(t.path(), &home, &["hook", "install", "--notify", "--repo", server.to_str().unwrap()]);
    let clone = |name: &str| {
        let dir = t.path().join(name.to_lowercase());
        git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
        configure(&dir, &home, name);
        dir
    };
    let (ann, bo) = (clone("Ann"), clone("Bo"));
    ok_at(&ann, &home, T0, &["init"]);
    let config = ann.join("ravenpost.yaml");
    let yaml = std::fs::read_to_string(&config).unwrap();
    let mail = format!("mail:\n  smtp:\n    host: 127.0.0.1\n    port: {}\n    security: none\n", smtp.port);
    std::fs::write(&config, format!("{yaml}{mail}")).unwrap();
    git(&ann, &home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    let new = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"];
    let emails = ["--white-email", "ann@club.example", "--black-email", "bo@club.example"];
    ok_at(&ann, &home, T0, &[&new[..], &emails[..]].concat());
    ok_at(&ann, &home, T0, &["sync"]);
    ok_at(&bo, &home, T0, &["sync"]);
    // The new game was mailed to both players.
    let created = smtp.messages().len();
    assert_eq!(created, 2);
    // Ann moves and pushes: the hook mails Bo.
    ok_at(&ann, &home, T0 + 100, &["move", "g", "2e3", "--as", "Ann"]);
    ok_at(&ann, &home, T0 + 100, &["sync"]);
    let message = smtp.newest(created);
    // Bo follows the mail: imports it, moves, syncs.
    let out = ok_at(&bo, &home, T0 + 200, &["mail", "import", message.to_str().unwrap()]);
    assert!(out.contains("2e3"), "{out}");
    ok_at(&bo, &home, T0 + 300, &["move", "g", "Sa3b6", "--as", "Bo"]);
    let out = ok_at(&bo, &home, T0 + 300, &["sync"]);
    assert!(out.contains("Replayed 1 commit of this archive on top of them"), "{out}");
    assert!(out.contains("  g: ply 2 Sa3b6 by Bo (Scarlet) ("), "{out}");
    // The server holds Ann's commit, then Bo's move; every clone agrees and verifies.
    let log = git(&server, &home, &["log", "--format=%an %s", "main"]);
    let lines: Vec<&str> = log.lines().take(2).collect();
    assert_eq!(
        lines,
        ["Bo g: ply 2 Sa3b6 (Scarlet plays Sa3b6)", "Ann g: ply 1 2e3 (Gold plays 2e3)"],
        "{log}"
    );
    assert_eq!(head(&bo, &home), git(&server, &home, &["rev-parse", "main"]).trim());
    assert_eq!(ok_at(&bo, &home, T0 + 300, &["verify"]), "1 game verified, 0 problems\n");
    ok_at(&ann, &home, T0 + 400, &["sync"]);
    assert_eq!(ok_at(&ann, &home, T0 + 400, &["verify"]), "1 game verified, 0 problems\n");
    assert_eq!(ok_at(&server, &home, T0 + 400, &["verify"]), "1 game verified, 0 problems\n");
}
