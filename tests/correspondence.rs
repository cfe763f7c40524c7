//! Correspondence through a shared bare repository: the pre-receive hook installed by
//! `ravenpost hook install` checks every push made with the real `git push`, and
//! `ravenpost sync` fetches, checks, fast-forwards and pushes. Deterministic: fixed time,
//! no system git config.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ravenpost"))
        .args(args)
        .current_dir(dir)
        .env("RAVENPOST_TIME", "1764400000")
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env_remove("RAVENPOST_ARCHIVE")
        .env_remove("RAVENPOST_HOOK_EXE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn ok(dir: &Path, home: &Path, args: &[&str]) -> String {
    let o = run(dir, home, args);
    assert!(o.status.success(), "ravenpost {args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

fn git_out(dir: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_AUTHOR_DATE", "2025-11-29T08:00:00Z")
        .env("GIT_COMMITTER_DATE", "2025-11-29T08:00:00Z")
        .env("RAVENPOST_TIME", "1764400000")
        .env_remove("RAVENPOST_HOOK_EXE")
        .output()
        .unwrap()
}

fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let o = git_out(dir, home, args);
    assert!(o.status.success(), "git {args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

struct Setup {
    _t: tempfile::TempDir,
    home: PathBuf,
    server: PathBuf,
    ann: PathBuf,
    bo: PathBuf,
}

impl Setup {
    fn server_tip(&self) -> String {
        git(&self.server, &self.home, &["rev-parse", "refs/heads/main"]).trim().to_string()
    }
}

/// A bare repository with the hook, and two clones: Ann's and Bo's. Ann starts the
/// archive and the game `g` and syncs; Bo syncs.
fn setup() -> Setup {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = "[user]\n\tname = Referee\n\temail = referee@example.org\n[init]\n\tdefaultBranch = main\n";
    std::fs::write(home.join("gitconfig"), config).unwrap();
    std::fs::write(home.join(".gitconfig"), config).unwrap();
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    let out = ok(t.path(), &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    assert!(out.contains("pre-receive"), "{out}");
    let mut clones = Vec::new();
    for name in ["Ann", "Bo"] {
        let dir = t.path().join(name.to_lowercase());
        git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
        git(&dir, &home, &["config", "user.name", name]);
        git(&dir, &home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
        clones.push(dir);
    }
    let bo = clones.pop().unwrap();
    let ann = clones.pop().unwrap();
    ok(&ann, &home, &["init"]);
    ok(&ann, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let s = ok(&ann, &home, &["sync"]);
    assert!(s.contains("Pushed"), "{s}");
    let s = ok(&bo, &home, &["sync"]);
    assert!(s.contains("Fetched"), "{s}");
    Setup { _t: t, home, server, ann, bo }
}

const GAME: &str = "games/gygax/g.pgn";

/// Plays the first four plies alternately, each player in their own clone, with `sync`
/// after every move.
fn play_four(s: &Setup) {
    let moves = ["2e3", "Sa3b6", "Rx3b6", "U2c6"];
    for (i, m) in moves.iter().enumerate() {
        let (dir, who) = if i % 2 == 0 { (&s.ann, "Ann") } else { (&s.bo, "Bo") };
        ok(dir, &s.home, &["sync"]);
        let ply = (i + 1).to_string();
        ok(dir, &s.home, &["move", "g", m, "--as", who, "--expect-ply", &ply]);
        let out = ok(dir, &s.home, &["sync"]);
        assert!(out.contains("Pushed 1 commit"), "{out}");
    }
    ok(&s.ann, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["sync"]);
}

/// Pushes Ann's branch with the real `git push`, expects the hook to refuse it with
/// `reason` and the server's branch to stay where it was; then resets Ann's clone.
fn refused(s: &Setup, force: bool, reason: &str) {
    let before = s.server_tip();
    let mut args = vec!["push", "origin", "main"];
    if force {
        args.push("--force");
    }
    let o = git_out(&s.ann, &s.home, &args);
    let err = text(&o);
    assert!(!o.status.success(), "push accepted: {err}");
    assert!(err.contains("remote: ravenpost: g "), "{err}");
    assert!(err.contains(reason), "expected {reason:?} in: {err}");
    assert!(err.contains("pre-receive hook declined"), "{err}");
    assert_eq!(s.server_tip(), before);
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
}

#[test]
fn a_game_by_correspondence_and_pushes_the_hook_refuses() {
    let s = setup();
    play_four(&s);
    // Both clones and the server agree, and the history verifies.
    let tip = s.server_tip();
    for dir in [&s.ann, &s.bo] {
        assert_eq!(git(dir, &s.home, &["rev-parse", "HEAD"]).trim(), tip);
        assert_eq!(git(dir, &s.home, &["status", "--porcelain"]), "");
        let v = ok(dir, &s.home, &["verify"]);
        assert!(v.contains("0 problems"), "{v}");
    }
    let log = git(&s.server, &s.home, &["log", "--format=%an", "main"]);
    assert_eq!(log.lines().collect::<Vec<_>>(), ["Bo", "Ann", "Bo", "Ann", "Ann", "Ann"]);

    let pgn = s.ann.join(GAME);
    let current = std::fs::read_to_string(&pgn).unwrap();
    assert!(current.trim_end().ends_with('*'), "{current}");

    // 1. An illegal move committed by hand.
    let illegal = format!("{} 3. 2a9 *\n", current.trim_end().trim_end_matches('*').trim_end());
    std::fs::write(&pgn, illegal).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "g: ply 5 2a9"]);
    refused(&s, false, "2a9");

    // 2. Two moves in a row by one side: Ann commits Bo's reply too.
    ok(&s.ann, &s.home, &["move", "g", "2d3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["move", "g", "2d6", "--as", "Bo"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "--amend", "--no-edit", "--reset-author"]);
    refused(&s, false, "ply 6 was committed by Ann, but Bo (Scarlet) was to move");

    // 3. A rewritten history: amend an earlier move's commit and force-push.
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "HEAD~1"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "--amend", "-m", "g: ply 3 (amended)"]);
    let o = git_out(&s.ann, &s.home, &["push", "--force", "origin", "main"]);
    let err = text(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("remote: ravenpost: history rewritten"), "{err}");
    assert_eq!(s.server_tip(), tip);
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);

    // 4. Ann's move committed as Bo.
    ok(&s.ann, &s.home, &["move", "g", "2d3", "--as", "Ann"]);
    git(&s.ann, &s.home, &["reset", "--quiet", "--soft", "HEAD~1"]);
    git(&s.ann, &s.home, &["-c", "user.name=Bo", "commit", "--quiet", "-m", "g: ply 5 2d3"]);
    refused(&s, false, "ply 5 was committed by Bo, but Ann (Gold) was to move");

    // 5. Nothing but a game file may change.
    std::fs::write(s.ann.join("notes.txt"), "hello\n").unwrap();
    git(&s.ann, &s.home, &["add", "notes.txt"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", "notes"]);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("notes.txt"), "{}", text(&o));
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);

    // After all that, a legal move still goes through the hook.
    ok(&s.ann, &s.home, &["move", "g", "2d3", "--as", "Ann"]);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_ne!(s.server_tip(), tip);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.contains("Ann's ply 5"), "{out}");
}

#[test]
fn sync_refuses_a_diverged_branch_and_keeps_both_sides() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["sync"]);
    // Bo has not synced: he starts another game on the old tip.
    ok(&s.bo, &s.home, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "h"]);
    let bo_tip = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let server = s.server_tip();
    let o = run(&s.bo, &s.home, &["sync"]);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("have both moved on"), "{err}");
    assert!(err.contains("g: Ann's ply 1 2e3"), "{err}");
    assert!(err.contains("h: the new game"), "{err}");
    assert!(err.contains("git reset --hard origin/main"), "{err}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), bo_tip);
    assert_eq!(s.server_tip(), server);
    assert!(!s.bo.join(GAME).exists() || std::fs::read_to_string(s.bo.join(GAME)).unwrap().contains("\n*"));
}

#[test]
fn sync_refuses_incoming_commits_that_break_the_rules() {
    let s = setup();
    // The server without its hook accepts anything.
    let hook = s.server.join("hooks/pre-receive");
    std::fs::rename(&hook, s.server.join("hooks/off")).unwrap();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "--amend", "--no-edit", "--author", "Bo <bo@example.org>"]);
    git(&s.ann, &s.home, &["push", "--quiet", "origin", "main"]);
    let before = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let o = run(&s.bo, &s.home, &["sync"]);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("ravenpost: g "), "{err}");
    assert!(err.contains("ply 1 was committed by Bo, but Ann (Gold) was to move"), "{err}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), before);
    // `hook check` on its own says the same.
    let tip = s.server_tip();
    let o = run(&s.server, &s.home, &["hook", "check", before.trim(), &tip, "refs/heads/main"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("was committed by Bo"), "{}", text(&o));
}
