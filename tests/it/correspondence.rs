//! Correspondence through a shared bare repository: the pre-receive hook installed by
//! `ravenpost hook install` checks every push made with the real `git push`, and
//! `ravenpost sync` fetches, checks, fast-forwards and pushes. Deterministic: fixed time,
//! no system git config.

use crate::common;

use std::path::PathBuf;

use common::tools::{SshAgent, askpass, keygen, keygen_with};
use common::{
    T0, expect_failure, fails, git, git_command, git_out, identity, ok, ok_at, ravenpost_at, run, run_git,
    text,
};

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
    let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
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

const GAME: &str = "games/gygax/c/d/g.pgn";

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
    refused_in(s, "g", force, reason);
}

/// As [`refused`], for the game `game`.
fn refused_in(s: &Setup, game: &str, force: bool, reason: &str) {
    let before = s.server_tip();
    let mut args = vec!["push", "origin", "main"];
    if force {
        args.push("--force");
    }
    let o = git_out(&s.ann, &s.home, &args);
    let err = text(&o);
    assert!(!o.status.success(), "push accepted: {err}");
    assert!(err.contains(&format!("remote: ravenpost: {game} ")), "{err}");
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
    refused(&s, false, "ply 6 was authored by Ann, but Bo (Scarlet) was to move");

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
    refused(&s, false, "ply 5 was authored by Bo, but Ann (Gold) was to move");

    // 5. Nothing but a game file may change.
    std::fs::write(s.ann.join("notes.txt"), "hello\n").unwrap();
    git(&s.ann, &s.home, &["add", "notes.txt"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", "notes"]);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("notes.txt"), "{}", text(&o));
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);

    // 6. Bo's resignation, committed by Ann.
    ok(&s.ann, &s.home, &["resign", "g", "--as", "Bo"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "--amend", "--no-edit", "--reset-author"]);
    refused(&s, false, "\"Scarlet resigns\" was authored by Ann, but only Bo can do that");

    // 7. A result typed in by hand.
    let typed = current.replace("[Result \"*\"]", "[Result \"1-0\"]").replace(" *\n", " 1-0\n");
    std::fs::write(&pgn, typed).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "g: I win"]);
    refused(&s, false, "the result was set to 1-0 without a resignation");

    // After all that, a legal move still goes through the hook.
    ok(&s.ann, &s.home, &["move", "g", "2d3", "--as", "Ann"]);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_ne!(s.server_tip(), tip);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.contains("ply 5 2d3 by Ann (Gold)"), "{out}");

    // The game ends: Bo offers a draw with his move, Ann declines, Bo resigns; each step
    // goes through the hook, and both clones agree on the finished game.
    ok(&s.bo, &s.home, &["draw", "offer", "g"]);
    ok(&s.bo, &s.home, &["move", "g", "2d6"]);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.contains("Pushed 2 commits"), "{out}");
    ok(&s.ann, &s.home, &["sync"]);
    ok(&s.ann, &s.home, &["draw", "decline", "g"]);
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Pushed 1 commit"));
    ok(&s.bo, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["resign", "g"]);
    assert!(ok(&s.bo, &s.home, &["sync"]).contains("Pushed 1 commit"));
    ok(&s.ann, &s.home, &["sync"]);
    for dir in [&s.ann, &s.bo] {
        let st = ok(dir, &s.home, &["status"]);
        assert!(st.contains("finished 1-0 (Bo (Scarlet) resigns)"), "{st}");
        assert!(ok(dir, &s.home, &["verify"]).contains("0 problems"));
    }
    let pgn = std::fs::read_to_string(s.bo.join(GAME)).unwrap();
    assert!(pgn.contains("{Scarlet resigns.} 1-0"), "{pgn}");
    // Nothing more can be added to the finished game.
    ok(&s.ann, &s.home, &["sync"]);
    let o = run(&s.ann, &s.home, &["move", "g", "2c3"]);
    assert!(text(&o).contains("the game is over (1-0)"), "{}", text(&o));
}

#[test]
fn sync_refuses_a_diverged_branch_and_keeps_both_sides() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    // A game h of Ann's, pushed first: the same game Bo starts below (moves in different
    // games are replayed, see tests/sync_club.rs; in the same game the first stands).
    ok(&s.ann, &s.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "h"]);
    ok(&s.ann, &s.home, &["sync"]);
    // Bo has not synced: he starts another game on the old tip.
    ok(&s.bo, &s.home, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "h"]);
    let bo_tip = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let server = s.server_tip();
    let o = run(&s.bo, &s.home, &["sync"]);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("have both moved on"), "{err}");
    assert!(err.contains("g: ply 1 2e3 by Ann (Gold)"), "{err}");
    assert!(err.contains("h: the new game"), "{err}");
    assert!(err.contains("git reset --hard origin/main"), "{err}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), bo_tip);
    assert_eq!(s.server_tip(), server);
    // Bo's copy of g is still the one at his tip (no move), and nothing is left changed.
    let at_tip = git(&s.bo, &s.home, &["show", &format!("HEAD:{GAME}")]);
    assert_eq!(std::fs::read_to_string(s.bo.join(GAME)).unwrap(), at_tip);
    assert!(at_tip.trim_end().ends_with("\n*") && !at_tip.contains("2e3"), "{at_tip}");
    assert_eq!(git(&s.bo, &s.home, &["status", "--porcelain"]), "");
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
    assert!(err.contains("ply 1 was authored by Bo, but Ann (Gold) was to move"), "{err}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), before);
    // `hook check` on its own says the same.
    let tip = s.server_tip();
    let o = run(&s.server, &s.home, &["hook", "check", before.trim(), &tip, "refs/heads/main"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("was authored by Bo"), "{}", text(&o));
}

#[test]
fn signed_moves_are_required_where_the_game_lists_keys() {
    let s = setup();
    let keys = s.home.join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let (ann_key, ann_pub) = keygen(&keys, "ann");
    let (bo_key, bo_pub) = keygen(&keys, "bo");
    ok(
        &s.ann,
        &s.home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "s"]
            .into_iter()
            .chain(["--white-key", &ann_pub, "--black-key", &bo_pub])
            .collect::<Vec<_>>(),
    );
    // One key for both players, or two key lines in one argument: refused.
    let o = run(
        &s.ann,
        &s.home,
        &[
            "new",
            "gygax",
            "--white",
            "Ann",
            "--black",
            "Bo",
            "--white-key",
            &ann_pub,
            "--black-key",
            &ann_pub,
        ],
    );
    assert!(text(&o).contains("are the same key"), "{}", text(&o));
    let two = format!(
        "{}\n{}",
        std::fs::read_to_string(&ann_pub).unwrap().trim(),
        std::fs::read_to_string(&bo_pub).unwrap().trim()
    );
    let o = run(&s.ann, &s.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--white-key", &two]);
    assert!(text(&o).contains("one key line expected"), "{}", text(&o));
    let pgn = std::fs::read_to_string(s.ann.join("games/gygax/0/4/s.pgn")).unwrap();
    let ann_line = std::fs::read_to_string(&ann_pub).unwrap();
    assert!(pgn.contains(&format!("[WhiteSigningKey \"{}\"]", ann_line.trim())), "{pgn}");
    ok(&s.ann, &s.home, &["sync"]);
    let tip = s.server_tip();

    // Without a key, or with the opponent's: refused before anything is written.
    let count = || git(&s.ann, &s.home, &["rev-list", "--count", "HEAD"]);
    let before = count();
    let o = run(&s.ann, &s.home, &["move", "s", "2e3"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("Ann's moves in s must be signed (WhiteSigningKey tag)"), "{}", text(&o));
    let o = run(&s.ann, &s.home, &["move", "s", "2e3", "--signing-key", &bo_key]);
    assert!(!o.status.success());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("is not Ann's key (WhiteSigningKey); nothing was written"), "{}", text(&o));
    assert_eq!(count(), before);
    assert_eq!(git(&s.ann, &s.home, &["status", "--porcelain"]), "");

    // With her own key: a commit git itself verifies, and the hook accepts.
    ok(&s.ann, &s.home, &["move", "s", "2e3", "--signing-key", &ann_key]);
    let allowed = keys.join("allowed_signers");
    std::fs::write(&allowed, format!("ann@example.org {ann_line}")).unwrap();
    let v = git(
        &s.ann,
        &s.home,
        &["-c", &format!("gpg.ssh.allowedSignersFile={}", allowed.display()), "log", "-1", "--format=%G?"],
    );
    assert_eq!(v.trim(), "G", "git's own verdict on the signature");
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Pushed 1 commit"));

    // Bo signs with git's user.signingKey.
    ok(&s.bo, &s.home, &["sync"]);
    git(&s.bo, &s.home, &["config", "user.signingKey", &bo_key]);
    ok(&s.bo, &s.home, &["move", "s", "Sa3b6"]);
    assert!(ok(&s.bo, &s.home, &["sync"]).contains("Pushed 1 commit"));
    ok(&s.ann, &s.home, &["sync"]);
    let v = ok(&s.ann, &s.home, &["verify", "s"]);
    assert!(v.contains("0 problems"), "{v}");

    // An unsigned move committed with git: the hook refuses it.
    let file = s.ann.join("games/gygax/0/4/s.pgn");
    let current = std::fs::read_to_string(&file).unwrap();
    let next = common::records::play_move(&current, "Rx3b6", Some("Ann"), None).unwrap().text;
    std::fs::write(&file, &next).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "s: ply 3"]);
    refused_in(
        &s,
        "s",
        false,
        "the commit is not signed, but Ann's steps in this game must be (WhiteSigningKey)",
    );
    // Signed by git with Bo's key but authored by Ann: refused.
    std::fs::write(&file, &next).unwrap();
    let sign_with = |key: &str| {
        git(
            &s.ann,
            &s.home,
            &[
                "-c",
                "gpg.format=ssh",
                "-c",
                &format!("user.signingKey={key}"),
                "commit",
                "--quiet",
                "-S",
                "-am",
                "s: ply 3",
            ],
        )
    };
    sign_with(&bo_key);
    refused_in(&s, "s", false, "Ann's signature is not good");
    // Signed by git with Ann's key (`git commit -S`, gpg.format=ssh): accepted.
    std::fs::write(&file, &next).unwrap();
    sign_with(&ann_key);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_ne!(s.server_tip(), tip);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.contains("s: ply 3 ") && out.contains(" by Ann (Gold) ("), "{out}");
}

#[test]
fn secret_army_choice_through_the_hook() {
    let s = setup();
    let args = ["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "fg", "--secret-armies"];
    let out = ok(&s.ann, &s.home, &args);
    assert!(out.contains("army commit fg"), "{out}");
    ok(&s.ann, &s.home, &["sync"]);
    let choice_file = "games/fantasy-grand/c/3/fg.armies.yaml";

    // Nothing to reveal before committing; no game to move in yet.
    let o = run(&s.ann, &s.home, &["army", "reveal", "fg"]);
    assert!(text(&o).contains("Ann has not committed to an army in fg yet"), "{}", text(&o));
    let o = run(&s.ann, &s.home, &["move", "fg", "e4"]);
    assert!(text(&o).contains("the armies are still being chosen in secret"), "{}", text(&o));

    // Ann commits; the archive shows a hash, not the army.
    let out = ok(&s.ann, &s.home, &["army", "commit", "fg", "elves"]);
    assert!(out.contains("Ann committed to an army for fg; it stays secret until both reveal (waiting for Bo's army commitment)"), "{out}");
    let shared = std::fs::read_to_string(s.ann.join(choice_file)).unwrap();
    assert!(!shared.contains("elves") && shared.contains("white-commitment:"), "{shared}");
    // The commitment is SHA-256 of the documented bytes (checked with coreutils' sha256sum).
    let secret = std::fs::read_to_string(s.ann.join(".git/ravenpost/armies/fg.white.yaml")).unwrap();
    let salt = secret.lines().find_map(|l| l.strip_prefix("salt: ")).unwrap().trim().to_string();
    assert_eq!(salt.len(), 64);
    let mut sha = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    sha.stdin
        .take()
        .unwrap()
        .write_all(format!("ravenpost-army-v1\nfg\nwhite\nelves\n{salt}").as_bytes())
        .unwrap();
    let digest = String::from_utf8(sha.wait_with_output().unwrap().stdout).unwrap();
    let digest = digest.split_whitespace().next().unwrap();
    assert!(shared.contains(&format!("white-commitment: {digest}")), "{shared}\n{digest}");
    // Revealing before the opponent has committed is refused.
    let o = run(&s.ann, &s.home, &["army", "reveal", "fg"]);
    assert!(text(&o).contains("Bo has not committed yet"), "{}", text(&o));
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Pushed 1 commit"));

    // Bo: sync lists the commitment, the status says what the choice waits for; a Druid
    // is not allowed in this game.
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.contains("fg: Ann commits to an army (secret until both reveal)"), "{out}");
    let st = ok(&s.bo, &s.home, &["status"]);
    assert!(st.contains("choosing armies in secret: waiting for Bo's army commitment"), "{st}");
    let o = run(&s.bo, &s.home, &["army", "commit", "fg", "druid"]);
    assert!(!o.status.success() && text(&o).contains("druid=allowed"), "{}", text(&o));
    ok(&s.bo, &s.home, &["army", "commit", "fg", "giants"]);
    ok(&s.bo, &s.home, &["sync"]);

    // Ann reveals.
    ok(&s.ann, &s.home, &["sync"]);
    let out = ok(&s.ann, &s.home, &["army", "reveal", "fg"]);
    assert!(out.contains("Ann reveals elves for fg (waiting for Bo's reveal)"), "{out}");
    ok(&s.ann, &s.home, &["sync"]);

    // Bo tries another army than the one committed to: refused, nothing written.
    ok(&s.bo, &s.home, &["sync"]);
    let secret = std::fs::read_to_string(s.bo.join(".git/ravenpost/armies/fg.black.yaml")).unwrap();
    let bo_salt = secret.lines().find_map(|l| l.strip_prefix("salt: ")).unwrap().trim().to_string();
    let before = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let o = run(&s.bo, &s.home, &["army", "reveal", "fg", "--army", "dwarves", "--salt", &bo_salt]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("do not match Bo's commitment"), "{}", text(&o));
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), before);
    // The same cheat committed with git by hand: the hook refuses it.
    let file = s.bo.join(choice_file);
    let yaml = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{yaml}black-reveal:\n  army: dwarves\n  salt: {bo_salt}\n")).unwrap();
    git(&s.bo, &s.home, &["commit", "--quiet", "-am", "fg: Bo reveals dwarves"]);
    let o = git_out(&s.bo, &s.home, &["push", "origin", "main"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("Bo's reveal (dwarves) does not match their commitment"), "{}", text(&o));
    git(&s.bo, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);

    // The real reveal starts the game, with both armies and the commitments as tags.
    let out = ok(&s.bo, &s.home, &["army", "reveal", "fg"]);
    assert!(out.contains("Ann plays elves, Bo plays giants. The game fg starts"), "{out}");
    let pgn = std::fs::read_to_string(s.bo.join("games/fantasy-grand/c/3/fg.pgn")).unwrap();
    for tag in
        ["[WhiteArmy \"elves\"]", "[BlackArmy \"giants\"]", &format!("[WhiteArmyCommitment \"{digest}\"]")]
    {
        assert!(pgn.contains(tag), "{tag} in {pgn}");
    }
    // A game file made by hand with other armies than revealed: refused by the hook.
    let good = git(&s.bo, &s.home, &["rev-parse", "HEAD"]).trim().to_string();
    std::fs::create_dir_all(s.bo.join("games/fantasy-grand/c/3")).unwrap();
    std::fs::write(s.bo.join("games/fantasy-grand/c/3/fg.pgn"), pgn.replace("giants", "dwarves")).unwrap();
    git(&s.bo, &s.home, &["commit", "--quiet", "--amend", "-a", "--no-edit"]);
    let o = git_out(&s.bo, &s.home, &["push", "origin", "main"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("Bo plays dwarves in the game file, but revealed giants (BlackArmy)"),
        "{}",
        text(&o)
    );
    git(&s.bo, &s.home, &["reset", "--quiet", "--hard", &good]);
    assert!(ok(&s.bo, &s.home, &["sync"]).contains("Pushed 2 commits"));

    // Both sides verify the whole history, and the game is played.
    ok(&s.ann, &s.home, &["sync"]);
    for dir in [&s.ann, &s.bo] {
        let v = ok(dir, &s.home, &["verify"]);
        assert!(v.contains("0 problems"), "{v}");
    }
    ok(&s.ann, &s.home, &["move", "fg", "e4"]);
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Pushed 1 commit"));
    let log = ok(&s.ann, &s.home, &["log", "fg"]);
    let steps: Vec<&str> = log.lines().map(|l| l.split("  ").last().unwrap().trim()).collect();
    assert_eq!(
        steps,
        [
            "army choice opened",
            "Ann commits to an army",
            "Bo commits to an army",
            "Ann reveals elves",
            "Bo reveals giants",
            "created",
            "ply 1 e4"
        ],
        "{log}"
    );
}

/// Ann's game `tc` (one move each three days), her first move synced, and the text of her
/// win on time: the set-up, the game file and the claim.
fn timed_game_and_claim() -> (Setup, PathBuf, String) {
    let s = setup();
    ok(
        &s.ann,
        &s.home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "tc", "--time-control", "1/3d"],
    );
    ok(&s.ann, &s.home, &["move", "tc", "2e3"]);
    ok(&s.ann, &s.home, &["sync"]);
    let file = s.ann.join("games/gygax/8/f/tc.pgn");
    let current = std::fs::read_to_string(&file).unwrap();
    let claim = common::records::time_forfeit(&current, Some("Ann"), "Bo did not move in time").unwrap().text;
    (s, file, claim)
}

/// A win on time is checked against the recorded times by the hook: claimed an hour
/// after the opponent's turn began (a 3-day limit), it is refused; claimed four days
/// later, it goes through.
#[test]
fn the_hook_checks_timeout_claims_against_the_clock() {
    let (s, file, claim) = timed_game_and_claim();
    // Committed (by git, as Ann) at 2025-11-29T08:00Z: Bo's turn began at 07:06:40Z.
    std::fs::write(&file, &claim).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "tc: Ann wins on time"]);
    refused_in(
        &s,
        "tc",
        false,
        "a win on time was claimed at 2025-11-29T08:00:00Z, but Bo had until 2025-12-02T07:06:40Z",
    );
    // The same claim four days later stands.
    std::fs::write(&file, &claim).unwrap();
    run_git(
        git_command(&s.ann, &s.home)
            .args(["commit", "--quiet", "-am", "tc: Ann wins on time"])
            .env("GIT_AUTHOR_DATE", "2025-12-03T08:00:00Z")
            .env("GIT_COMMITTER_DATE", "2025-12-03T08:00:00Z"),
    );
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    ok(&s.bo, &s.home, &["sync"]);
    let v = ok(&s.bo, &s.home, &["verify", "tc"]);
    assert!(v.contains("0 problems"), "{v}");
}

/// Regression: the hook judged a win on time at the time the claimant gave its commit, so
/// a claim dated after the deadline but pushed before it passed. The server's clock says
/// when a push arrives: a commit dated later (beyond the 15 minutes of clock skew) is
/// refused, and a claim dated within the skew counts at its arrival.
#[test]
fn a_timeout_claim_dated_ahead_passed_the_hook() {
    let (s, file, claim) = timed_game_and_claim();
    // Bo's turn began at 2025-11-29T07:06:40Z; his three days end 2025-12-02T07:06:40Z.
    let push_at = |dated: &str, arrives: &str| {
        std::fs::write(&file, &claim).unwrap();
        run_git(
            git_command(&s.ann, &s.home)
                .args(["commit", "--quiet", "-am", "tc: Ann wins on time"])
                .env("GIT_AUTHOR_DATE", dated)
                .env("GIT_COMMITTER_DATE", dated),
        );
        let arrives = chrono::DateTime::parse_from_rfc3339(arrives).unwrap().timestamp();
        git_command(&s.ann, &s.home)
            .args(["push", "origin", "main"])
            .env("RAVENPOST_TIME", arrives.to_string())
            .output()
            .unwrap()
    };
    let refused = |o: std::process::Output, reason: &str| {
        let err = text(&o);
        assert!(!o.status.success(), "push accepted: {err}");
        assert!(err.contains("remote: ravenpost: tc "), "{err}");
        assert!(err.contains(reason), "expected {reason:?} in: {err}");
        git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
    };
    // Dated after the deadline, pushed four days before it.
    refused(
        push_at("2025-12-03T08:00:00Z", "2025-11-29T08:00:00Z"),
        "the commit is dated 2025-12-03T08:00:00Z, later than it arrived (2025-11-29T08:00:00Z)",
    );
    // Dated three minutes after the deadline, pushed seven minutes before it (within the
    // skew): judged when it arrived, before the deadline.
    refused(
        push_at("2025-12-02T07:09:40Z", "2025-12-02T06:59:40Z"),
        "a win on time was claimed at 2025-12-02T06:59:40Z, but Bo had until 2025-12-02T07:06:40Z",
    );
    // The same claim arriving after the deadline stands.
    let o = push_at("2025-12-02T07:09:40Z", "2025-12-02T07:10:00Z");
    assert!(o.status.success(), "{}", text(&o));
    ok_at(&s.bo, &s.home, T0 + 4 * 86_400, &["sync"]);
    let v = ok(&s.bo, &s.home, &["verify", "tc"]);
    assert!(v.contains("0 problems"), "{v}");
}

/// Regressions from a breaker's review: army options cannot pre-empt a secret choice,
/// a choice file that names armies is refused, a deleted choice file is reported by
/// `verify`, and a final reveal committed by hand still lets the game start.
#[test]
fn army_choice_tampering_is_caught() {
    let s = setup();
    let new = ["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--secret-armies"];
    let o = run(&s.ann, &s.home, &[&new[..], &["--id", "x", "--option", "army-black=evil-horde"]].concat());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("leave out --army-white, --army-black and army options"), "{}", text(&o));
    let o = run(&s.ann, &s.home, &["new", "fantasy-grand", "--white", "Ann", "--black", "Ann", "--id", "x"]);
    assert!(text(&o).contains("the two players must have different names"), "{}", text(&o));

    // A choice file written by hand that fixes White's army: the hook refuses it.
    ok(&s.ann, &s.home, &[&new[..], &["--id", "a"]].concat());
    let file = s.ann.join("games/fantasy-grand/c/a/a.armies.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    std::fs::create_dir_all(s.ann.join("games/fantasy-grand/a/a")).unwrap();
    std::fs::write(
        s.ann.join("games/fantasy-grand/a/a/h.armies.yaml"),
        yaml.replace("tags:\n", "tags:\n  WhiteArmy: giants\n"),
    )
    .unwrap();
    git(&s.ann, &s.home, &["add", "."]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", "h"]);
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("the choice's tags may not include WhiteArmy"), "{}", text(&o));
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "HEAD~1"]);

    // Both commit; Bo reveals with ravenpost, Ann's reveal is committed by hand: the
    // game file is then made by `army reveal`.
    ok(&s.ann, &s.home, &["army", "commit", "a", "elves"]);
    ok(&s.ann, &s.home, &["army", "commit", "a", "giants", "--as", "Bo"]);
    ok(&s.ann, &s.home, &["army", "reveal", "a", "--as", "Bo"]);
    let secret = std::fs::read_to_string(s.ann.join(".git/ravenpost/armies/a.white.yaml")).unwrap();
    let salt = secret.lines().find_map(|l| l.strip_prefix("salt: ")).unwrap().trim().to_string();
    let yaml = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{yaml}white-reveal:\n  army: elves\n  salt: {salt}\n")).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "a: Ann reveals elves"]);
    assert!(ok(&s.ann, &s.home, &["verify"]).contains("0 problems"));
    let out = ok(&s.ann, &s.home, &["army", "reveal", "a"]);
    assert!(out.contains("the game a starts now"), "{out}");
    // Pushed after the reveal was committed by hand (dated GIT_DATE): the hook refuses a
    // commit dated later than it arrives.
    assert!(ok_at(&s.ann, &s.home, T0 + 3_600, &["sync"]).contains("Pushed"));

    // A deleted choice file is reported by verify, not only by the hook.
    git(&s.ann, &s.home, &["rm", "--quiet", "games/fantasy-grand/c/a/a.armies.yaml"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", "gone"]);
    let o = run(&s.ann, &s.home, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("games/fantasy-grand/c/a/a.armies.yaml was deleted"), "{}", text(&o));
}

/// `sync REMOTE` uses the remote named, not `origin`; a remote that does not exist or
/// cannot be reached is an error (exit 2) that names it, and changes nothing.
#[test]
fn sync_with_a_named_remote_and_unreachable_ones() {
    let s = setup();
    let mirror = s.server.with_file_name("mirror.git");
    git(&s.server, &s.home, &["init", "--quiet", "--bare", "-b", "main", mirror.to_str().unwrap()]);
    ok(&s.server, &s.home, &["hook", "install", "--repo", mirror.to_str().unwrap()]);
    git(&s.ann, &s.home, &["remote", "add", "mirror", mirror.to_str().unwrap()]);
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let before = s.server_tip();
    assert_eq!(ok(&s.ann, &s.home, &["sync", "mirror"]), "Pushed this archive to mirror/main\n");
    let head = git(&s.ann, &s.home, &["rev-parse", "HEAD"]);
    assert_eq!(git(&mirror, &s.home, &["rev-parse", "refs/heads/main"]), head);
    assert_eq!(s.server_tip(), before, "origin is left alone");

    fails(
        &s.ann,
        &s.home,
        &["sync", "nowhere"],
        2,
        "ravenpost: git: find remote nowhere: remote 'nowhere' does not exist\n",
    );
    let gone = s.server.with_file_name("gone.git");
    git(&s.ann, &s.home, &["remote", "add", "gone", gone.to_str().unwrap()]);
    let err = fails(&s.ann, &s.home, &["sync", "gone"], 2, "");
    assert!(
        err.starts_with(&format!(
            "ravenpost: git: git fetch {0}: fatal: '{0}' does not appear to be a git repository\n",
            gone.display()
        )),
        "{err}"
    );
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(&s.ann, &s.home, &["status", "--porcelain"]), "");
}

/// Regression, `sync_named_no_missing_branch` (a new club admin hit it): a gitolite
/// repository's `HEAD` names `master` while the archive's branch is `main`, so a player's
/// clone checks out nothing, and `sync` said "Nothing to sync: neither this archive nor
/// origin has commits". It now names the remote's branch to switch to.
#[test]
fn sync_in_a_clone_whose_server_head_names_another_branch_says_which_to_switch_to() {
    let s = setup();
    git(&s.server, &s.home, &["symbolic-ref", "HEAD", "refs/heads/master"]);
    let cy = s.server.with_file_name("cy");
    git(&s.home, &s.home, &["clone", "--quiet", s.server.to_str().unwrap(), cy.to_str().unwrap()]);
    let err = fails(&cy, &s.home, &["sync"], 1, "");
    assert_eq!(
        err,
        "ravenpost: origin has no branch `master`, and this archive has no commits on it yet; origin has \
         `main`. Switch to the archive's branch and sync again: `git switch main` (or `git checkout main`), \
         then `ravenpost sync`.\n"
    );
    git(&cy, &s.home, &["switch", "--quiet", "main"]);
    ok(&cy, &s.home, &["sync"]);
    assert_eq!(git(&cy, &s.home, &["rev-parse", "HEAD"]), git(&s.ann, &s.home, &["rev-parse", "HEAD"]));
    assert!(ok(&cy, &s.home, &["status"]).contains("Ann v Bo"));
}

/// Two players' `sync` push at the same moment (the hook made slow, so that both fetch
/// before either push lands): one wins, the other is refused with nothing changed on
/// either side, and its next `sync` says that both moved on.
#[test]
fn two_racing_sync_pushes_one_wins() {
    let s = setup();
    ok(&s.ann, &s.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "a1"]);
    // The same game id on both sides: moves in different games would both get through
    // (the loser's sync replays its commit and retries), in the same game one wins.
    ok(&s.bo, &s.home, &["new", "gygax", "--white", "Bo", "--black", "Ann", "--id", "a1"]);
    let slow = s.server.with_file_name("slow-ravenpost");
    std::fs::write(&slow, format!("#!/bin/sh\nsleep 1\nexec '{}' \"$@\"\n", env!("CARGO_BIN_EXE_ravenpost")))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    let spawn = |dir: &std::path::Path| {
        ravenpost_at(dir, &s.home, T0)
            .arg("sync")
            .env("RAVENPOST_HOOK_EXE", &slow)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let heads: Vec<String> =
        [&s.ann, &s.bo].iter().map(|d| git(d, &s.home, &["rev-parse", "HEAD"])).collect();
    let (a, b) = (spawn(&s.ann), spawn(&s.bo));
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    let won: Vec<usize> = (0..2).filter(|&i| outs[i].status.success()).collect();
    assert_eq!(won.len(), 1, "exactly one wins: {} | {}", text(&outs[0]), text(&outs[1]));
    let (w, l) = (won[0], 1 - won[0]);
    let dirs = [&s.ann, &s.bo];
    assert_eq!(String::from_utf8_lossy(&outs[w].stdout), "Pushed 1 commit to origin/main\n");
    assert_eq!(s.server_tip(), heads[w].trim());
    assert_eq!(outs[l].status.code(), Some(1), "{}", text(&outs[l]));
    let err = String::from_utf8_lossy(&outs[l].stderr);
    // Both fetched first (the usual case with the slow hook): git refuses the second ref
    // update. Or the loser fetched after the winner's push: sync sees both moved on.
    assert!(
        err.starts_with("ravenpost: origin refused the push (nothing changed there): ")
            || err.contains("have both moved on"),
        "{err}"
    );
    assert_eq!(git(dirs[l], &s.home, &["rev-parse", "HEAD"]), heads[l], "the loser keeps its commit");
    let o = run(dirs[l], &s.home, &["sync"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("have both moved on"), "{}", text(&o));
}

/// The hook refuses a push that deletes a game file; it refuses a branch other than the
/// archive's own (a stranger's other history of `main` among them), tags and branch
/// deletions.
#[test]
fn the_hook_refuses_deleted_games_tags_and_branch_deletions() {
    let s = setup();
    git(&s.ann, &s.home, &["rm", "-q", GAME]);
    git(&s.ann, &s.home, &["commit", "-q", "-m", "g: gone"]);
    let id = git(&s.ann, &s.home, &["rev-parse", "--short=12", "HEAD"]);
    refused(&s, false, &format!("g {}: the game file was deleted; games are never deleted", id.trim()));

    // Another branch, even with a legal move, is not the archive's: refused.
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let push = |args: &[&str]| git_out(&s.ann, &s.home, &[&["push", "origin"][..], args].concat());
    let o = push(&["HEAD:refs/heads/side"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(
            "remote: ravenpost: refs/heads/side: only the archive's branch main may be pushed (ravenpost.yaml `branches:` lists any others a club allows)"
        ),
        "{}",
        text(&o)
    );
    let o = git_out(&s.server, &s.home, &["rev-parse", "--verify", "--quiet", "refs/heads/side"]);
    assert!(!o.status.success(), "the server has a branch side");

    git(&s.ann, &s.home, &["tag", "t1", "HEAD~1"]);
    let o = push(&["t1"]);
    assert!(!o.status.success());
    assert!(
        text(&o)
            .contains("remote: ravenpost: refs/tags/t1: only branches may be pushed to a ravenpost archive"),
        "{}",
        text(&o)
    );
    let o = push(&[":refs/heads/main"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("remote: ravenpost: refs/heads/main: deleting a branch is refused"),
        "{}",
        text(&o)
    );
    assert_eq!(git(&s.server, &s.home, &["tag"]), "");
}

/// A new branch carrying another history of `main` (a stranger's rewrite of the games)
/// was accepted beside it; a club that allows other branches names them in ravenpost.yaml.
#[test]
fn a_new_branch_with_another_history_of_main_was_accepted() {
    let s = setup();
    play_four(&s);
    let tip = s.server_tip();
    // Bo rewrites Ann's last move on a branch of his own.
    git(&s.bo, &s.home, &["reset", "--quiet", "--hard", "HEAD~2"]);
    ok(&s.bo, &s.home, &["move", "g", "2d3", "--as", "Ann", "--author", "Ann <ann@example.org>"]);
    let o = git_out(&s.bo, &s.home, &["push", "origin", "HEAD:refs/heads/main-fixed"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("refs/heads/main-fixed: only the archive's branch main may be pushed"),
        "{}",
        text(&o)
    );
    assert_eq!(s.server_tip(), tip);

    // An archive whose ravenpost.yaml allows `review/*` takes pushes there, judged as main's.
    let t = tempfile::tempdir().unwrap();
    let server = t.path().join("allowing.git");
    git(t.path(), &s.home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok(t.path(), &s.home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    let dir = t.path().join("clone");
    git(t.path(), &s.home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
    ok(&dir, &s.home, &["init"]);
    std::fs::write(
        dir.join("ravenpost.yaml"),
        format!("{}branches:\n- review/*\n", std::fs::read_to_string(dir.join("ravenpost.yaml")).unwrap()),
    )
    .unwrap();
    git(&dir, &s.home, &["commit", "--quiet", "--all", "--amend", "--no-edit"]);
    ok(&dir, &s.home, &["sync"]);
    ok(&dir, &s.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let o = git_out(&dir, &s.home, &["push", "origin", "HEAD:refs/heads/review/g"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = git_out(&dir, &s.home, &["push", "origin", "HEAD:refs/heads/other"]);
    assert!(
        !o.status.success() && text(&o).contains("refs/heads/other: only the archive's branch main"),
        "{}",
        text(&o)
    );
}

/// Commits `file` with `contents` in Ann's clone, by plain git.
fn commit_by_hand(s: &Setup, file: &str, contents: &[u8]) {
    let path = s.ann.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    git(&s.ann, &s.home, &["add", file]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", file]);
}

#[test]
fn game_ids_that_break_other_systems_and_a_40_mb_readme_were_accepted() {
    let s = setup();
    let start = std::fs::read(s.ann.join(GAME)).unwrap();
    for (file, why) in [
        ("games/gygax/a/3/CON.pgn", "games/gygax/a/3/CON.pgn: `CON.pgn` is a device name on Windows"),
        ("games/gygax/9/9/nul.pgn", "games/gygax/9/9/nul.pgn: `nul.pgn` is a device name on Windows"),
        (
            "games/gygax/6/8/-rf.pgn",
            "games/gygax/6/8/-rf.pgn: `-rf.pgn` starts with `-`, which command lines read as an option",
        ),
        (
            "games/gygax/3/3/G.pgn",
            "games/gygax/3/3/G.pgn: game id `G` differs from `g` (games/gygax/c/d/g.pgn) only in case",
        ),
    ] {
        commit_by_hand(&s, file, &start);
        refused_in(&s, file, false, why);
    }
    // `new` refuses the same ids.
    for (id, why) in [("aux", "is a device name on Windows"), ("G", "differs only in case")] {
        let o = run(&s.ann, &s.home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", id]);
        assert!(o.status.code() == Some(2) && text(&o).contains(why), "{id}: {}", text(&o));
    }
    // A file that is no record, over the 1 MiB limit.
    commit_by_hand(&s, "README.md", &vec![b'x'; 2 << 20]);
    refused_in(
        &s,
        "README.md",
        false,
        "README.md has 2 MiB, over the limit of 1 MiB for a file that is no record (ravenpost.yaml `limits: file-bytes:` may raise it)",
    );
    commit_by_hand(&s, "README.md", b"# Our games\n");
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
}

/// An archive whose ravenpost.yaml sets `limits:`; its server and Ann's clone, where the
/// game `g` is set up and pushed.
fn limited(limits: &str, admins: &[&str]) -> Setup {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok(t.path(), &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    let ann = t.path().join("ann");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), ann.to_str().unwrap()]);
    git(&ann, &home, &["config", "user.name", "Ann"]);
    git(&ann, &home, &["config", "user.email", "ann@example.org"]);
    let mut init = vec!["init"];
    for a in admins {
        init.extend(["--admin", a]);
    }
    ok(&ann, &home, &init);
    let yaml = std::fs::read_to_string(ann.join("ravenpost.yaml")).unwrap();
    std::fs::write(ann.join("ravenpost.yaml"), format!("{yaml}{limits}")).unwrap();
    git(&ann, &home, &["commit", "--quiet", "--all", "--amend", "--no-edit"]);
    ok(&ann, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    // Pushed by an admin, or by the account named like the player.
    let by = admins.first().copied().unwrap_or("Ann");
    let o = git_command(&ann, &home).args(["push", "origin", "main"]).env("GL_USER", by).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    git(&ann, &home, &["fetch", "--quiet"]);
    Setup { _t: t, home, server, bo: ann.clone(), ann }
}

#[test]
fn a_game_over_the_archives_ply_limit_is_refused_before_it_is_replayed() {
    let s = limited("limits:\n  plies: 4\n", &[]);
    for (m, who) in ["2e3", "Sa3b6", "Rx3b6", "U2c6", "2d3"].iter().zip(["Ann", "Bo", "Ann", "Bo", "Ann"]) {
        ok(&s.ann, &s.home, &["move", "g", m, "--as", who]);
    }
    git(&s.ann, &s.home, &["reset", "--quiet", "--soft", "origin/main"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "-m", "g: five plies at once"]);
    refused(
        &s,
        false,
        "the game has 5 plies, over the limit of 4 (ravenpost.yaml `limits: plies:` may raise it)",
    );
}

#[test]
fn any_gitattributes_edit_was_accepted_from_any_pusher() {
    let s = limited("", &["admin"]);
    let attributes = std::fs::read_to_string(s.ann.join(".gitattributes")).unwrap();
    std::fs::write(s.ann.join(".gitattributes"), format!("{attributes}*.pgn filter=mine\n")).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "--all", "-m", "attributes"]);
    let push = |who: &str| {
        git_command(&s.ann, &s.home).args(["push", "origin", "main"]).env("GL_USER", who).output().unwrap()
    };
    let o = push("ann");
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains(".gitattributes may be changed only by an admin (the account `admin`, ravenpost.yaml admins), but this push was authenticated as `ann` (GL_USER)"),
        "{}",
        text(&o)
    );
    let o = push("admin");
    assert!(o.status.success(), "{}", text(&o));
}

#[test]
fn sync_took_a_move_made_in_your_name_by_your_opponent() {
    let s = setup();
    // Bo plays Ann's first move in her name from his clone; the server names no pusher.
    ok(&s.bo, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    assert_eq!(git(&s.bo, &s.home, &["log", "-1", "--format=%an|%ce"]).trim(), "Ann|bo@example.org");
    let o = git_out(&s.bo, &s.home, &["push", "origin", "main"]);
    assert!(o.status.success(), "{}", text(&o));
    let before = git(&s.ann, &s.home, &["rev-parse", "HEAD"]);
    let o = run(&s.ann, &s.home, &["sync"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let id = git(&s.bo, &s.home, &["rev-parse", "--short=12", "HEAD"]);
    let want = format!(
        "ravenpost: g {}: a step in your name (Ann) that you did not make: committed by Bo <bo@example.org>, unsigned",
        id.trim()
    );
    assert!(text(&o).contains(&want), "expected {want:?} in {}", text(&o));
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "HEAD"]), before, "Ann's branch moved");
    // Bo's own clone takes it: the step is not in his name.
    ok(&s.bo, &s.home, &["sync"]);
}

/// Signing keys as players keep them: a private key with a passphrase (read through
/// `SSH_ASKPASS`, never a terminal: a wrong one is refused and nothing is written), and a
/// key held by ssh-agent, named by its public half. `verify` accepts both signatures.
#[test]
fn signing_keys_with_a_passphrase_or_in_ssh_agent() {
    let (t, dir, home) = common::archive();
    let (ann_key, ann_pub) = keygen_with(t.path(), "ann", "ann-secret");
    let (bo_key, bo_pub) = keygen_with(t.path(), "bo", "bo-secret");
    let new = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "s", "--white-key", &ann_pub];
    ok(&dir, &home, &[&new[..], &["--black-key", &bo_pub]].concat());
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    let with_askpass = |script: &std::path::Path, args: &[&str]| {
        ravenpost_at(&dir, &home, T0)
            .args(args)
            .env("SSH_ASKPASS", script)
            .env("SSH_ASKPASS_REQUIRE", "force")
            .env("DISPLAY", ":0")
            .output()
            .unwrap()
    };
    let wrong = askpass(t.path(), "wrong", "not it");
    let o = with_askpass(&wrong, &["move", "s", "2e3", "--signing-key", &ann_key]);
    expect_failure(
        &o,
        "wrong passphrase",
        1,
        &format!(
            "ravenpost: signing: ssh-keygen -Y sign with {ann_key} failed: Load key \"{ann_key}\": incorrect \
             passphrase supplied to decrypt private key"
        ),
    );
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), tip);
    assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
    let right = askpass(t.path(), "right", "ann-secret");
    let o = with_askpass(&right, &["move", "s", "2e3", "--signing-key", &ann_key]);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Ann (Gold) plays 2e3 (ply 1)\n", "{}", text(&o));

    // Bo's key is in an agent; he names its public half.
    let agent = SshAgent::start(t.path());
    agent.add(&bo_key, &askpass(t.path(), "bo-pass", "bo-secret"));
    let o = ravenpost_at(&dir, &home, T0)
        .args(["move", "s", "Sa3b6", "--signing-key", &bo_pub])
        .env("SSH_AUTH_SOCK", &agent.socket)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Bo (Scarlet) plays Sa3b6 (ply 2)\n", "{}", text(&o));
    for rev in ["HEAD", "HEAD~1"] {
        let raw = git(&dir, &home, &["cat-file", "commit", rev]);
        assert!(raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"), "{raw}");
    }
    drop(agent);
    assert_eq!(ok(&dir, &home, &["verify"]), "1 game verified, 0 problems\n");
}

/// A key that is not an SSH public key line (nor a file) is refused by `new`, exit 2.
#[test]
fn malformed_signing_keys_are_refused() {
    let (_t, dir, home) = common::archive();
    for key in ["ssh-ed25519 AAAAnotakey ann", "not a key at all"] {
        fails(
            &dir,
            &home,
            &["new", "gygax", "--white", "Ann", "--black", "Bo", "--white-key", key],
            2,
            &format!(
                "ravenpost: --white-key {key}: neither an SSH public key line nor a readable file (No such file or \
                 directory (os error 2))\n"
            ),
        );
    }
    assert_eq!(git(&dir, &home, &["rev-list", "--count", "HEAD"]), "1\n", "nothing committed");
}

/// Regression (a game file whose `WhiteSigningKey` tag is no key, `ssh-ed25519
/// AAAAbroken`, as `new` refuses, passed `validate` and, committed by hand, `verify`: no
/// move of White's could ever be signed by it).
#[test]
fn a_malformed_signing_key_tag_is_a_problem() {
    let (t, dir, home) = common::archive();
    let bad = "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\
               [WhiteSigningKey \"ssh-ed25519 AAAAbroken\"]\n\n*\n";
    let f = t.path().join("bad.pgn");
    std::fs::write(&f, bad).unwrap();
    let o = run(&dir, &home, &["validate", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("WhiteSigningKey"), "{}", text(&o));
}

/// Regression (CHANGELOG: the hook and `sync` check a new game file that already has
/// moves): a game file added with a ply already played is refused by the hook, and by
/// `sync` when it comes from a remote without the hook; nothing changes on either side.
#[test]
fn hook_and_sync_refuse_a_new_game_file_with_moves() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let played = std::fs::read_to_string(s.ann.join(GAME)).unwrap();
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
    std::fs::create_dir_all(s.ann.join("games/gygax/1/4")).unwrap();
    std::fs::write(s.ann.join("games/gygax/1/4/p.pgn"), played).unwrap();
    git(&s.ann, &s.home, &["add", "games/gygax/1/4/p.pgn"]);
    git(&s.ann, &s.home, &["commit", "-q", "-m", "p: by hand"]);
    let id = git(&s.ann, &s.home, &["rev-parse", "--short=12", "HEAD"]);
    let why =
        format!("p {}: the game appeared with 1 plies already played: games start with none", id.trim());
    // `refused` resets Ann's clone afterwards: push it elsewhere first.
    let plain = s.server.with_file_name("plain.git");
    git(&s.server, &s.home, &["init", "--quiet", "--bare", "-b", "main", plain.to_str().unwrap()]);
    git(&s.ann, &s.home, &["push", "--quiet", plain.to_str().unwrap(), "main"]);
    refused_in(&s, "p", false, &why);

    git(&s.bo, &s.home, &["remote", "add", "plain", plain.to_str().unwrap()]);
    let head = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    fails(
        &s.bo,
        &s.home,
        &["sync", "plain"],
        1,
        &format!(
            "ravenpost: plain has commits that are not legal steps; nothing was changed here:\nravenpost: {why}\n"
        ),
    );
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), head);
    assert!(!s.bo.join("games/gygax/1/4/p.pgn").exists());
}

/// Regression (s4 admin report (c)8 and (c)9): a refusal relayed by `sync` (and its
/// `--json` `"why"`) carried git's padding after each `remote:` line and the hook's own
/// `ravenpost:` prefix inside ravenpost's, and did not say how to drop the refused
/// commit. Now the reason is the hook's line alone, and the message gives the commands
/// (a branch that keeps the commit, then a reset to the remote's branch), each on a line
/// of its own (s5 NeoMutt play-through item 14), and they work. The server refuses what
/// only it can judge: Ann's legal move pushed by the account `bo` (the hook reads the
/// pusher from `GL_USER`, which a local push hands it).
#[test]
fn push_refusal_relayed_by_sync_kept_git_padding_and_a_doubled_prefix() {
    let s = setup();
    let before = s.server_tip();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let as_bo =
        |args: &[&str]| ravenpost_at(&s.ann, &s.home, T0).env("GL_USER", "bo").args(args).output().unwrap();
    let o = as_bo(&["sync", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on standard output");
    assert_eq!(v["refused"], "push-refused", "{v}");
    assert_eq!(v["branch"], "main", "{v}");
    let why = v["why"].as_str().unwrap();
    assert!(why.starts_with("g "), "the hook's line alone: {why:?}");
    assert!(why.contains("authenticated as `bo`"), "{why:?}");
    assert_eq!(why, why.trim_end(), "no padding: {why:?}");
    assert!(!why.contains("ravenpost:") && !why.contains("  "), "{why:?}");
    let o = as_bo(&["sync"]);
    let err = expect_failure(&o, "sync as bo", 1, "origin refused the push (nothing changed there): g ");
    assert!(!err.contains("): ravenpost:"), "{err}");
    assert!(
        err.ends_with(
            "\nThe refused commits stay in this archive. To drop them, keeping a copy on the\n\
             branch ravenpost-refused, run:\n    git branch -f ravenpost-refused\n    git reset --hard origin/main\n"
        ),
        "{err}"
    );
    assert_eq!(s.server_tip(), before);
    // The advice works: the refused commit is kept on a branch, the clone is the server's.
    let refused_commit = git(&s.ann, &s.home, &["rev-parse", "HEAD"]);
    git(&s.ann, &s.home, &["branch", "-f", "ravenpost-refused"]);
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim(), before);
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "ravenpost-refused"]), refused_commit);
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Up to date with origin/main"), "the clone syncs again");
}

/// Regression (a new user's trial): the advice after a refused push said `git branch
/// ravenpost-refused`, which fails the second time (the branch exists), so the reset on
/// the next line threw the refused commit away. It now says `git branch -f`: followed
/// twice in one clone, each time the branch keeps the latest refused commit.
#[test]
fn the_refused_push_advice_failed_the_second_time_and_lost_the_commit() {
    let s = setup();
    let before = s.server_tip();
    let as_bo =
        |args: &[&str]| ravenpost_at(&s.ann, &s.home, T0).env("GL_USER", "bo").args(args).output().unwrap();
    for token in ["2e3", "2d3"] {
        ok(&s.ann, &s.home, &["move", "g", token, "--as", "Ann"]);
        let err = expect_failure(&as_bo(&["sync"]), "sync as bo", 1, "origin refused the push");
        let advice: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix("    ")).collect();
        assert_eq!(advice, ["git branch -f ravenpost-refused", "git reset --hard origin/main"], "{err}");
        let refused = git(&s.ann, &s.home, &["rev-parse", "HEAD"]);
        for line in advice {
            let args: Vec<&str> = line.split(' ').skip(1).collect();
            git(&s.ann, &s.home, &args);
        }
        assert_eq!(git(&s.ann, &s.home, &["rev-parse", "ravenpost-refused"]), refused, "after {token}");
        assert_eq!(git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim(), before);
    }
}

/// Regression (s5 NeoMutt play-through item 14): `sync` pushed an illegal move committed
/// by hand (plain `git commit`) without judging it, so the server's hook was the first to
/// refuse it; the relayed position `15:28` had no file name. Now `sync` judges its own
/// commits as the hook does before it pushes, refuses them with the file, line and
/// column and the same recovery commands (each on its own line, and they work), and the
/// server is never asked. Both for a clone ahead of the remote and for a first push.
#[test]
fn sync_pushed_a_hand_made_illegal_commit_without_judging_it() {
    let s = setup();
    let before = s.server_tip();
    let pgn = s.ann.join(GAME);
    let current = std::fs::read_to_string(&pgn).unwrap();
    let body = current.trim_end().trim_end_matches('*').trim_end();
    // Three legal plies, then an illegal one: the a-file's Sylph went to 3b6 at ply 2.
    std::fs::write(&pgn, format!("{body} 1. 2e3 Sa3b6 2. 2d3 Sa3b5 *\n")).unwrap();
    git(&s.ann, &s.home, &["commit", "--quiet", "-am", "g: plies 1 to 4"]);
    let line = std::fs::read_to_string(&pgn).unwrap().lines().position(|l| l.contains("Sa3b5")).unwrap() + 1;
    let column =
        std::fs::read_to_string(&pgn).unwrap().lines().nth(line - 1).unwrap().find("Sa3b5").unwrap() + 1;
    let commit = git(&s.ann, &s.home, &["rev-parse", "--short=12", "HEAD"]).trim().to_string();
    let o = run(&s.ann, &s.home, &["sync", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on standard output");
    assert_eq!(v["refused"], "unpushed-illegal", "{v}");
    assert_eq!(v["branch"], "main", "{v}");
    let problem = format!(
        "g {commit}: games/gygax/c/d/g.pgn:{line}:{column}: illegal move `Sa3b5` (Scarlet, move 2): \
         Scarlet has no Sylph on the a-file"
    );
    assert_eq!(v["problems"], serde_json::json!([problem]), "{v}");
    let err = fails(&s.ann, &s.home, &["sync"], 1, "");
    assert_eq!(
        err,
        format!(
            "ravenpost: this archive's commits are not legal steps; nothing was pushed to origin:\n\
             ravenpost: {problem}\n\
             The refused commits stay in this archive. To drop them, keeping a copy on the\n\
             branch ravenpost-refused, run:\n    git branch -f ravenpost-refused\n    git reset --hard origin/main\n"
        )
    );
    assert_eq!(s.server_tip(), before, "the server was not asked");
    // The advice works.
    let refused_commit = git(&s.ann, &s.home, &["rev-parse", "HEAD"]);
    git(&s.ann, &s.home, &["branch", "-f", "ravenpost-refused"]);
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim(), before);
    assert_eq!(git(&s.ann, &s.home, &["rev-parse", "ravenpost-refused"]), refused_commit);
    assert!(ok(&s.ann, &s.home, &["sync"]).contains("Up to date with origin/main"));

    // A first push to an empty remote is judged too (no branch there to reset to).
    let empty = s.server.with_file_name("empty.git");
    git(&s.ann, &s.home, &["init", "--quiet", "--bare", "-b", "main", empty.to_str().unwrap()]);
    git(&s.ann, &s.home, &["remote", "add", "empty", empty.to_str().unwrap()]);
    git(&s.ann, &s.home, &["reset", "--quiet", "--hard", "ravenpost-refused"]);
    let err = fails(&s.ann, &s.home, &["sync", "empty"], 1, "");
    assert_eq!(
        err,
        format!(
            "ravenpost: this archive's commits are not legal steps; nothing was pushed to empty:\nravenpost: {problem}\n"
        )
    );
    assert!(
        git_out(&empty, &s.home, &["rev-parse", "--verify", "--quiet", "refs/heads/main"]).stdout.is_empty()
    );
}

/// Regression (s4 admin report (a)1): a password in a remote's URL
/// (`http://bo:secret@host/…`) was printed in clear when `sync` failed. Now every
/// message shows such a URL with the password hidden, as git does.
#[test]
fn password_in_a_remote_url_was_printed_in_clear() {
    let s = setup();
    // Nothing listens on this loopback port: the fetch fails and names the remote.
    let port = common::smtp::free_port();
    let url = format!("http://bo:s3cr3t-pw@127.0.0.1:{port}/git/chess.git");
    git(&s.bo, &s.home, &["remote", "set-url", "origin", &url]);
    for args in [&["sync"][..], &["sync", "--json"]] {
        let o = run(&s.bo, &s.home, args);
        assert!(!o.status.success(), "{}", text(&o));
        let all = text(&o);
        assert!(!all.contains("s3cr3t-pw"), "{args:?}: the password shows: {all}");
        assert!(
            all.contains(&format!("http://bo:<redacted>@127.0.0.1:{port}/git/chess.git")),
            "{args:?}: {all}"
        );
    }
}

/// Regression (s4 admin report (c)10, (c)11 and fresh-user report (c)22): `hook check`
/// run by hand called a short commit id "malformed", printed nothing when the push would
/// be accepted, and `--explain` indented its continuation lines by the source's 17
/// spaces. Now a unique abbreviation is resolved (one no commit has is named as such),
/// success prints one line, and every `--explain` line starts flush left.
#[test]
fn hook_check_by_hand_said_malformed_for_a_short_id() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["sync"]);
    let tip = s.server_tip();
    let parent = git(&s.server, &s.home, &["rev-parse", "main~1"]).trim().to_string();
    let out = ok(&s.server, &s.home, &["hook", "check", &parent[..8], &tip[..10], "refs/heads/main"]);
    assert_eq!(out, format!("ravenpost: refs/heads/main {}..{}: accepted\n", &parent[..8], &tip[..10]));
    let out = ok(&s.server, &s.home, &["hook", "check", &parent, &tip, "refs/heads/main"]);
    assert_eq!(out, format!("ravenpost: refs/heads/main {}..{}: accepted\n", &parent[..12], &tip[..12]));
    // An abbreviation no commit has: said so, as bad input.
    let absent = if tip.starts_with("0000") { "ffff0000" } else { "00000000" };
    let o = run(&s.server, &s.home, &["hook", "check", absent, &tip, "refs/heads/main"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("commit {absent}: no commit of the repository starts so")),
        "{}",
        text(&o)
    );
    // --explain: one paragraph a line, none indented.
    let mut cmd = ravenpost_at(&s.server, &s.home, T0);
    let out = run_git(cmd.args(["hook", "check", "--explain"]).env("REMOTE_USER", "ann"));
    assert!(out.lines().count() >= 4, "{out}");
    for line in out.lines() {
        assert!(!line.starts_with(' '), "an indented line: {line:?} in {out}");
    }
}

/// Regression (s5 NeoMutt play-through item 16): `sync` printed `git1: Scarlet offers a
/// draw` (the side) next to `git1: Bo's ply 6 Se3f6` (the player). Now a draw action
/// names its player too, with the side: `Ann (Gold) offers a draw`.
#[test]
fn sync_named_the_side_for_draw_actions_and_the_player_for_moves() {
    let s = setup();
    ok(&s.ann, &s.home, &["draw", "offer", "g", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["sync"]);
    let ids = git(&s.ann, &s.home, &["log", "--reverse", "--format=%h", "--abbrev=12", "-2"]);
    let ids: Vec<&str> = ids.lines().collect();
    assert_eq!(
        ok(&s.bo, &s.home, &["sync"]),
        format!(
            "Fetched 2 commit(s) from origin/main:\n  g: Ann (Gold) offers a draw ({})\n  g: ply 1 2e3 by Ann (Gold) ({})\n",
            ids[0], ids[1]
        )
    );
    ok(&s.bo, &s.home, &["draw", "decline", "g", "--as", "Bo"]);
    ok(&s.bo, &s.home, &["sync"]);
    let id = git(&s.bo, &s.home, &["log", "--format=%h", "--abbrev=12", "-1"]);
    assert_eq!(
        ok(&s.ann, &s.home, &["sync"]),
        format!(
            "Fetched 1 commit(s) from origin/main:\n  g: Bo (Scarlet) declines the draw ({})\n",
            id.trim()
        )
    );
}

/// Regression (s6 play-through, item 6): the pre-receive hook refused a ply pushed in
/// the wrong player's name saying it "was committed by" the commit's author, while the
/// committer was someone else (here the referee pushed Ann's clone's commit authored by
/// Bo). Now it says "authored by", the name `log` shows for that commit; the committer
/// is not named.
#[test]
fn hook_refusal_said_committed_by_for_the_commits_author() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    git(&s.ann, &s.home, &["commit", "--quiet", "--amend", "--no-edit", "--author", "Bo <bo@example.org>"]);
    let names = git(&s.ann, &s.home, &["log", "-1", "--format=%an|%cn"]);
    assert_eq!(names.trim(), "Bo|Ann", "authored by Bo, committed by Ann");
    let log = ok(&s.ann, &s.home, &["log", "g"]);
    let last = log.lines().last().unwrap();
    assert!(last.contains("  Bo  ") && last.contains("INVALID: ply 1 was authored by Bo, but Ann"), "{log}");
    let o = git_out(&s.ann, &s.home, &["push", "origin", "main"]);
    let err = text(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("remote: ravenpost: g "), "{err}");
    assert!(err.contains("ply 1 was authored by Bo, but Ann (Gold) was to move"), "{err}");
    assert!(!err.contains("committed by"), "{err}");
}

/// Regression (s6 play-through, item 4): `sync --json` printed a refusal's sentence on
/// standard error beside the JSON, and a failure that is no sync refusal (an unknown
/// remote) as text alone. Now standard output is one JSON document in every case (the
/// refusal's fields, `refused: "error"` for other failures, the text form's sentence as
/// `message`, the exit code as `exit_code`), standard error stays empty, and the exit
/// code is the refusal's.
#[test]
fn sync_json_printed_a_text_refusal() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    // Ann's move pushed by the account `bo`: the server refuses the push.
    let as_bo =
        |args: &[&str]| ravenpost_at(&s.ann, &s.home, T0).env("GL_USER", "bo").args(args).output().unwrap();
    let o = as_bo(&["sync", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(o.stderr.is_empty(), "nothing on standard error: {}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["refused"], "push-refused", "{v}");
    assert_eq!(v["exit_code"], 1, "{v}");
    let plain = as_bo(&["sync"]);
    assert_eq!(plain.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(plain.stderr).unwrap(),
        format!("ravenpost: {}\n", v["message"].as_str().unwrap()),
        "the text form's sentence"
    );
    // An unknown remote: bad input, exit code 2, as JSON too.
    let o = run(&s.bo, &s.home, &["sync", "nowhere", "--json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(o.stderr.is_empty(), "nothing on standard error: {}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    assert_eq!(v["refused"], "error", "{v}");
    assert_eq!(v["exit_code"], 2, "{v}");
    let plain = run(&s.bo, &s.home, &["sync", "nowhere"]);
    assert_eq!(plain.status.code(), Some(2));
    let said = String::from_utf8(plain.stderr).unwrap();
    assert!(said.contains("nowhere"), "{said}");
    assert_eq!(said, format!("ravenpost: {}\n", v["message"].as_str().unwrap()));
}

/// Both players reveal their secret armies at about the same time: the second to sync is
/// told that the first's reveal came first and to reset to the server's branch; its own
/// reveal, never pushed, is then gone, and so was its saved choice (deleted by the reveal),
/// so that it could reveal again only by finding its salt in the unsent commit (found by
/// a helper playing as a club). The saved choice now stays after the reveal.
#[test]
fn a_reveal_lost_to_a_reset_left_no_saved_choice() {
    let s = setup();
    let args = ["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "fg", "--secret-armies"];
    ok(&s.ann, &s.home, &args);
    ok(&s.ann, &s.home, &["army", "commit", "fg", "elves"]);
    ok(&s.ann, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["army", "commit", "fg", "giants"]);
    ok(&s.bo, &s.home, &["sync"]);
    ok(&s.ann, &s.home, &["sync"]);
    // Ann reveals and pushes; Bo reveals before fetching it.
    ok(&s.ann, &s.home, &["army", "reveal", "fg"]);
    ok(&s.ann, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["army", "reveal", "fg"]);
    let o = run(&s.bo, &s.home, &["sync"]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("reset --hard origin/main"), "{}", text(&o));
    // As sync says: the server's branch, then the reveal again, from the saved choice.
    git(&s.bo, &s.home, &["reset", "--quiet", "--hard", "origin/main"]);
    let out = ok(&s.bo, &s.home, &["army", "reveal", "fg"]);
    assert!(out.contains("both armies are revealed"), "{out}");
    ok(&s.bo, &s.home, &["sync"]);
    let st = ok(&s.ann, &s.home, &["sync"]);
    assert!(st.contains("fg"), "{st}");
    assert!(ok(&s.ann, &s.home, &["verify"]).contains("0 problems"));
}

/// A shallow clone whose history starts after a tournament was made and a secret army
/// choice was completed: `verify` judged the boundary commit, which shows every file as
/// added, as the making of the tournament ("… is not a game of the tournament") and as the
/// opening of the army choice ("… which is already a game"); a full clone has no problem
/// (found by a helper playing as a club). The boundary is taken as given for them too,
/// as for games.
#[test]
fn a_shallow_clone_reported_its_boundary_as_a_tournament_and_an_army_choice() {
    let s = setup();
    ok(&s.ann, &s.home, &["tournament", "new", "t", "grand", "--players", "Ann,Bo,Cy"]);
    let args = ["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "fg", "--secret-armies"];
    ok(&s.ann, &s.home, &args);
    ok(&s.ann, &s.home, &["army", "commit", "fg", "elves", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["army", "commit", "fg", "giants", "--as", "Bo"]);
    ok(&s.ann, &s.home, &["army", "reveal", "fg", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["army", "reveal", "fg", "--as", "Bo"]);
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    ok(&s.ann, &s.home, &["sync"]);
    assert!(ok(&s.ann, &s.home, &["verify"]).contains(", 0 problems"));
    let shallow = s.home.parent().unwrap().join("shallow");
    let url = format!("file://{}", s.server.display());
    git(&s.home, &s.home, &["clone", "--quiet", "--depth", "2", &url, shallow.to_str().unwrap()]);
    let out = ok(&shallow, &s.home, &["verify"]);
    assert!(out.contains(", 0 problems") && out.contains("shallow clone"), "{out}");
}

/// The finding (issue 34): Bo resigned in his clone while Ann's move, already on the
/// server, crossed it; `sync` refused ("the move on origin came first") and Bo needed a
/// `git reset --hard`. A resignation holds at any ply: it is taken again on top of Ann's
/// move, judged again by the server's hook, and pushed.
#[test]
fn sync_refused_a_resignation_that_crossed_a_move() {
    let s = setup();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["sync"]);
    let ann_move = s.server_tip();
    // Bo has not synced: he resigns on the position before Ann's move.
    let out = ok(&s.bo, &s.home, &["resign", "g"]);
    assert_eq!(out, "Bo (Scarlet) resigns\n");
    let resigned = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(
        out.starts_with("Fetched 1 commit(s) from origin/main:\n  g: ply 1 2e3 by Ann (Gold) ("),
        "{out}"
    );
    assert!(
        out.contains("\nReplayed 1 commit of this archive on top of them (each judged again) and pushed to origin/main:\n  g: Bo (Scarlet) resigns ("),
        "{out}"
    );
    // On the server: the resignation on top of the move, by Bo, the game finished 1-0.
    let log = git(&s.server, &s.home, &["log", "--format=%P %an %s", "-1", "main"]);
    assert_eq!(log, format!("{ann_move} Bo g: Scarlet resigns\n"));
    let on_server = git(&s.server, &s.home, &["show", &format!("main:{GAME}")]);
    assert!(on_server.contains("[Result \"1-0\"]"), "{on_server}");
    assert!(on_server.contains("1. 2e3"), "{on_server}");
    assert!(on_server.contains("{Scarlet resigns.}"), "{on_server}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]).trim(), s.server_tip());
    assert_eq!(git(&s.bo, &s.home, &["status", "--porcelain"]), "");
    // A sync whose push landed but that stopped before moving Bo's branch: the next one
    // finds the resignation, taken again, on the server and takes the server's line.
    let tip = s.server_tip();
    git(&s.bo, &s.home, &["reset", "--quiet", "--hard", resigned.trim()]);
    let out = ok(&s.bo, &s.home, &["sync"]);
    assert!(out.starts_with("Fetched 2 commit(s) from origin/main:") && !out.contains("Replayed"), "{out}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]).trim(), tip);
    assert_eq!(s.server_tip(), tip, "nothing pushed twice");
    // Ann takes it in; both clones verify clean (the server's hook judged it the same).
    let out = ok(&s.ann, &s.home, &["sync"]);
    assert!(out.contains("g: Bo (Scarlet) resigns ("), "{out}");
    for dir in [&s.ann, &s.bo] {
        assert_eq!(ok(dir, &s.home, &["verify"]), "1 game verified, 0 problems\n");
        assert_eq!(std::fs::read_to_string(dir.join(GAME)).unwrap(), on_server);
    }
    let status = ok(&s.ann, &s.home, &["status"]);
    assert!(status.contains("finished 1-0"), "{status}");
}

/// A crossing step taken again that no longer holds is refused, saying why, and changes
/// nothing: Bo resigns while Ann's resignation is already on the server.
#[test]
fn sync_refuses_a_crossing_resignation_of_a_game_already_over() {
    let s = setup();
    ok(&s.ann, &s.home, &["resign", "g", "--as", "Ann"]);
    ok(&s.ann, &s.home, &["sync"]);
    let server = s.server_tip();
    ok(&s.bo, &s.home, &["resign", "g", "--as", "Bo"]);
    let bo_tip = git(&s.bo, &s.home, &["rev-parse", "HEAD"]);
    let o = run(&s.bo, &s.home, &["sync"]);
    let err = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("have both moved on in g: origin has g: Ann (Gold) resigns"), "{err}");
    assert!(
        err.contains("here, Bo (Scarlet) resigns crossed it and no longer holds after it (the game is over"),
        "{err}"
    );
    assert!(err.contains("git reset --hard origin/main"), "{err}");
    assert_eq!(git(&s.bo, &s.home, &["rev-parse", "HEAD"]), bo_tip);
    assert_eq!(s.server_tip(), server);
}

/// The finding (issue 34): `sync` pushed with the server's `remote:` lines (a notify
/// hook's "mailed …") thrown away, where a plain `git push` shows them. They are relayed,
/// before sync's own summary, and kept in `--json` as `server`.
#[test]
fn sync_hid_the_servers_remote_lines() {
    let s = setup();
    let hook = s.server.join("hooks/post-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'mailed bo@example.org: g, your move'\necho 'ledger updated' >&2\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let out = ok(&s.ann, &s.home, &["sync"]);
    assert_eq!(
        out,
        "remote: mailed bo@example.org: g, your move\nremote: ledger updated\nPushed 1 commit to origin/main\n"
    );
    ok(&s.bo, &s.home, &["sync"]);
    ok(&s.bo, &s.home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    let o = run(&s.bo, &s.home, &["sync", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["server"],
        serde_json::json!(["remote: mailed bo@example.org: g, your move", "remote: ledger updated"])
    );
}

/// A draw claim that crossed the opponent's step in the same game (Bo booked leave, on
/// the server, while Ann claimed in her clone) is judged again on the game as the server
/// has it, where the repetition still holds, and pushed.
#[test]
fn sync_takes_a_crossing_draw_claim_again_on_the_servers_game() {
    let s = setup();
    let moves = ["U2c3", "U2c6", "U2b1", "U2b8", "U2c3", "U2c6", "U2b1", "U2b8"];
    for (i, m) in moves.iter().enumerate() {
        let (dir, who) = if i % 2 == 0 { (&s.ann, "Ann") } else { (&s.bo, "Bo") };
        ok(dir, &s.home, &["sync"]);
        ok(dir, &s.home, &["move", "g", m, "--as", who]);
        ok(dir, &s.home, &["sync"]);
    }
    ok(&s.ann, &s.home, &["sync"]);
    assert_eq!(
        ok(&s.bo, &s.home, &["leave", "g", "--as", "Bo", "--days", "2"]),
        "Bo (Scarlet) books 2 days of leave from 2025-11-29T07:06:40Z\n"
    );
    ok(&s.bo, &s.home, &["sync"]);
    let leave = s.server_tip();
    let out = ok(&s.ann, &s.home, &["draw", "claim", "g"]);
    assert_eq!(out, "Ann (Gold) claims a draw (the position has occurred 3 times)\n");
    let out = ok(&s.ann, &s.home, &["sync"]);
    assert!(out.contains("\n  g: Ann (Gold) claims a draw (the position has occurred 3 times) ("), "{out}");
    let log = git(&s.server, &s.home, &["log", "--format=%P %an %s", "-1", "main"]);
    assert_eq!(log, format!("{leave} Ann g: Gold claims a draw (the position has occurred 3 times)\n"));
    ok(&s.bo, &s.home, &["sync"]);
    assert_eq!(ok(&s.bo, &s.home, &["verify"]), "1 game verified, 0 problems\n");
    assert!(ok(&s.bo, &s.home, &["status"]).contains("finished 1/2-1/2"));
}

/// The same with ravenpost's own notify hook (`hook install --notify`): what it says
/// about the move it was to mail (here, that the game gives no address to mail it to)
/// reaches the player who synced.
#[test]
fn sync_relays_the_notify_hooks_line() {
    let s = setup();
    let out = ok(&s.server, &s.home, &["hook", "install", "--notify", "--repo", s.server.to_str().unwrap()]);
    assert!(out.contains("post-receive"), "{out}");
    ok(&s.ann, &s.home, &["move", "g", "2e3", "--as", "Ann"]);
    let out = ok(&s.ann, &s.home, &["sync"]);
    assert_eq!(
        out,
        "remote: ravenpost: g ply 1: not mailed (no address for Bo: no BlackEmail tag in the game, no \
         `players: Bo: email:` in ravenpost.yaml; logged)\nPushed 1 commit to origin/main\n"
    );
}
