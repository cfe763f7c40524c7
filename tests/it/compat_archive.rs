//! Archives written by earlier releases keep loading and verifying: an archive made by
//! ravenpost 0.1.0 (the release before the referee layer and the history index; made by
//! `tests/data/archives/make-0.1.0.sh` with that release's binary) is kept as a git
//! bundle, with what 0.1.0 answered for it (`*.expected`). This release must answer the
//! same: every game's `log --json`, `status --json` and `verify --json`, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/archives").join(name)
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A clone of the 0.1.0 archive, and the time its answers were taken at.
fn clone_of_0_1_0() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    let out = Command::new("git")
        .args(["clone", "--quiet", "--branch", "main"])
        .arg(data("ravenpost-0.1.0.bundle"))
        .arg(&archive)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir.path())
        .output()
        .expect("git must be installed to run this test");
    assert!(out.status.success(), "git clone: {}", String::from_utf8_lossy(&out.stderr));
    let time = expected("0.1.0-time.expected").trim().to_string();
    (dir, archive, time)
}

fn ravenpost(home: &Path, archive: &Path, time: &str, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_ravenpost"))
        .arg("--archive")
        .arg(archive)
        .args(args)
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("RAVENPOST_TIME", time)
        .env_remove("RAVENPOST_ARCHIVE")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn archive_of_0_1_0_verifies_and_logs_as_0_1_0_did() {
    let (dir, archive, time) = clone_of_0_1_0();
    let (out, err, code) = ravenpost(dir.path(), &archive, &time, &["verify", "--json"]);
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    assert_eq!(out, expected("0.1.0-verify.expected"));
    for game in ["g-ann-bo", "grand-tc", "fid-1", "fg-secret", "fg-draw", "g-clock"] {
        let (out, err, code) = ravenpost(dir.path(), &archive, &time, &["log", game, "--json"]);
        assert_eq!((code, err.as_str()), (0, ""), "{game}");
        assert_eq!(out, expected(&format!("0.1.0-log-{game}.expected")), "log of {game}");
    }
    let (out, _, code) = ravenpost(dir.path(), &archive, &time, &["status", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(out, expected("0.1.0-status.expected"));
    // Again, from the standings cached by the first `status`.
    let (out, _, code) = ravenpost(dir.path(), &archive, &time, &["status", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(out, expected("0.1.0-status.expected"), "cached");
    let db = rusqlite::Connection::open(archive.join(".git/ravenpost/cache.sqlite3")).unwrap();
    let standings: i64 = db
        .query_row("SELECT count(*) FROM verdicts WHERE namespace LIKE 'standings-%'", [], |r| r.get(0))
        .unwrap();
    assert!(standings > 0, "the standings are cached");
}

/// The same answers when the caches (history index, verdicts) are warm, deleted, or full
/// of random bytes: a cache only saves work, it never changes a verdict.
#[test]
fn caches_deleted_or_corrupted_change_no_verdict_of_the_0_1_0_archive() {
    let (dir, archive, time) = clone_of_0_1_0();
    let caches = archive.join(".git/ravenpost");
    let log = |dir: &Path| ravenpost(dir, &archive, &time, &["log", "grand-tc", "--json"]).0;
    let verify = |dir: &Path| ravenpost(dir, &archive, &time, &["verify", "--json"]).0;
    assert_eq!(verify(dir.path()), expected("0.1.0-verify.expected"), "cold");
    let files: Vec<PathBuf> =
        std::fs::read_dir(&caches).expect("verify keeps its caches").map(|e| e.unwrap().path()).collect();
    assert!(files.iter().any(|f| f.file_name().unwrap() == "cache.sqlite3"), "{files:?}");
    assert_eq!(verify(dir.path()), expected("0.1.0-verify.expected"), "warm");
    assert_eq!(log(dir.path()), expected("0.1.0-log-grand-tc.expected"), "warm log");
    // Random bytes (a fixed pattern, so the test is repeatable) in every cache file.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for f in &files {
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        std::fs::write(f, bytes).unwrap();
    }
    assert_eq!(verify(dir.path()), expected("0.1.0-verify.expected"), "random bytes");
    assert_eq!(log(dir.path()), expected("0.1.0-log-grand-tc.expected"), "random bytes, log");
    std::fs::remove_dir_all(&caches).unwrap();
    assert_eq!(log(dir.path()), expected("0.1.0-log-grand-tc.expected"), "deleted");
    assert_eq!(verify(dir.path()), expected("0.1.0-verify.expected"), "deleted");
}

/// A branch rewritten under warm caches: a hand-made bad commit is found, and once the
/// branch is reset past it (and a different commit made in its place) the verdicts are
/// those of the new history, not of the cached one.
#[test]
fn branch_rewritten_under_warm_caches_changes_no_verdict() {
    let (dir, archive, time) = clone_of_0_1_0();
    let git = |args: &[&str]| git_as_di(dir.path(), &archive, args);
    let verify = || ravenpost(dir.path(), &archive, &time, &["verify", "--json"]);
    assert_eq!(verify().0, expected("0.1.0-verify.expected"), "warm the caches");
    // A comment slipped into the going game by hand: not a step ravenpost records.
    let file = archive.join("games/gygax/g-clock.pgn");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replacen("*\n", "{a note} *\n", 1)).unwrap();
    git(&["commit", "-qam", "g-clock: a note"]);
    let bad = git(&["rev-parse", "--short=12", "HEAD"]);
    let (out, _, code) = verify();
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{out}");
    assert_eq!(problems[0]["game"], "g-clock");
    assert_eq!(problems[0]["commit"], bad.as_str());
    assert!(problems[0]["problem"].as_str().unwrap().starts_with("the change is not a move"), "{out}");
    // Rewritten: the bad commit dropped, another made in its place.
    git(&["reset", "-q", "--hard", "HEAD~1"]);
    assert_eq!(verify().0, expected("0.1.0-verify.expected"), "after the reset");
    let renamed = text.replacen("[White \"Bo\"]", "[White \"Bob\"]", 1);
    std::fs::write(&file, renamed).unwrap();
    git(&["commit", "-qam", "g-clock: renamed"]);
    let (out, _, code) = verify();
    assert_eq!(code, 1, "{out}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["problems"][0]["problem"], "the game's tags or start position were changed", "{out}");
}

/// `kill -9` at 100 random points of commands that build, continue or extend the history
/// index and the verdicts (a cold `verify`, then `verify` and `log` after new commits):
/// afterwards every answer equals a cold rebuild's.
#[test]
fn index_updates_killed_100_times_answer_as_a_cold_rebuild() {
    let (dir, archive, time) = clone_of_0_1_0();
    // A longer line to walk: commits that change the README (never judged).
    let mut readme_commits = 0;
    let mut add_commits = |n: usize| {
        let mut script = String::new();
        for _ in 0..n {
            readme_commits += 1;
            let text = format!("note {readme_commits}\n");
            script.push_str(&format!(
                "commit refs/heads/main\ncommitter Di <di@example.org> {} +0000\ndata 5\nnote\nfrom refs/heads/main^0\nM 100644 inline README.md\ndata {}\n{text}\n",
                1_800_000_000 + readme_commits,
                text.len()
            ));
        }
        script.push_str("done\n");
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&archive)
            .args(["fast-import", "--quiet", "--done", "--force"])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        assert!(child.wait().unwrap().success());
    };
    add_commits(6000);
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ravenpost"))
            .arg("--archive")
            .arg(&archive)
            .args(args)
            .env("HOME", dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("RAVENPOST_TIME", &time)
            .env_remove("RAVENPOST_ARCHIVE")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let caches = archive.join(".git/ravenpost");
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut killed = 0;
    for i in 0..100 {
        // Every other run walks from scratch (long enough to be killed in the middle on any
        // machine); the others extend what the runs before left.
        if i % 2 == 0 {
            let _ = std::fs::remove_dir_all(&caches);
        }
        // Every command has commits to add to the index.
        add_commits(150);
        let command: &[&str] =
            if i % 3 == 0 { &["log", "grand-tc", "--json"] } else { &["verify", "--json"] };
        let mut child = run(command);
        std::thread::sleep(std::time::Duration::from_millis(next() % 30));
        let _ = child.kill();
        let status = child.wait().unwrap();
        if !status.success() {
            killed += 1;
        }
    }
    eprintln!("{killed} of 100 runs killed halfway");
    assert!(killed >= 40, "runs were killed halfway ({killed} of 100)");
    let verify = || ravenpost(dir.path(), &archive, &time, &["verify", "--json"]);
    let log = || ravenpost(dir.path(), &archive, &time, &["log", "grand-tc", "--json"]);
    let after_kills = (verify(), log());
    std::fs::remove_dir_all(&caches).unwrap();
    let cold = (verify(), log());
    assert_eq!(after_kills, cold);
    assert_eq!(cold.0.2, 0, "{}", cold.0.1);
    assert_eq!(cold.1.0, expected("0.1.0-log-grand-tc.expected"));
}

/// `verify` after a few commits to game files answers from the report it kept, with those
/// games judged again: the same answers as a check of the whole archive with no cache, for
/// a game changed by hand (a problem found), a game deleted, and a README changed.
#[test]
fn verify_after_new_commits_answers_as_a_full_check() {
    let (dir, archive, time) = clone_of_0_1_0();
    let git = |args: &[&str]| {
        git_as_di(dir.path(), &archive, args);
    };
    let verify = || ravenpost(dir.path(), &archive, &time, &["verify", "--json"]);
    let caches = archive.join(".git/ravenpost");
    let first = verify();
    assert_eq!(first.0, expected("0.1.0-verify.expected"));
    let mut games: Vec<PathBuf> = std::fs::read_dir(archive.join("games"))
        .unwrap()
        .flat_map(|v| std::fs::read_dir(v.unwrap().path()).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    games.sort();
    assert!(games.len() >= 2, "{games:?}");
    let steps: Vec<Box<dyn Fn()>> = vec![
        Box::new(|| {
            std::fs::write(archive.join("README.md"), "the club's games\n").unwrap();
            git(&["add", "README.md"]);
            git(&["commit", "-q", "-m", "readme"]);
        }),
        Box::new(|| {
            let text = std::fs::read_to_string(&games[0]).unwrap();
            std::fs::write(&games[0], text.replace("\n\n", "\n\n{ a note by hand }\n")).unwrap();
            git(&["commit", "-q", "-am", "by hand"]);
        }),
        Box::new(|| {
            git(&["rm", "-q", games[1].to_str().unwrap()]);
            git(&["commit", "-q", "-m", "gone"]);
        }),
        // A new game (one more game counted), then a move in it.
        Box::new(|| {
            let new =
                ["--author", "Club <club@example.org>", "new", "grand", "--white", "Ed", "--black", "Flo"];
            let (out, err, code) =
                ravenpost(dir.path(), &archive, &time, &[&new[..], &["--id", "late"]].concat());
            assert_eq!(code, 0, "{out}{err}");
        }),
        Box::new(|| {
            let play = ["--author", "Club <club@example.org>", "move", "late", "e4", "--as", "Ed"];
            let (out, err, code) = ravenpost(dir.path(), &archive, &time, &play);
            assert_eq!(code, 0, "{out}{err}");
        }),
    ];
    for (k, step) in steps.iter().enumerate() {
        step();
        let kept = verify();
        let _ = std::fs::remove_dir_all(&caches);
        let full = verify();
        assert_eq!(kept, full, "after step {k}");
        // And again from the kept report, unchanged.
        assert_eq!(verify(), full, "after step {k}, again");
    }
    let last = verify().0;
    assert!(last.contains("deleted"), "{last}");
    let games_now = |out: &str| serde_json::from_str::<serde_json::Value>(out).unwrap()["games"].as_u64();
    assert_eq!(games_now(&last), games_now(&first.0), "one game deleted, one new");
}

/// Runs git in `archive` as Di (with `home` as its home), failing the test when it fails;
/// its output, trimmed.
fn git_as_di(home: &Path, archive: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(archive)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Di")
        .env("GIT_AUTHOR_EMAIL", "di@example.org")
        .env("GIT_COMMITTER_NAME", "Di")
        .env("GIT_COMMITTER_EMAIL", "di@example.org")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The caches ravenpost 0.2.0 kept (its own history index and verdict files, made by
/// `tests/data/archives/make-0.2.0-cache.sh` with that release's binary) in a clone of the
/// 0.1.0 archive: this release answers as 0.1.0 did, warm and again, and leaves no file
/// of the old formats behind.
#[test]
fn caches_written_by_0_2_0_change_no_verdict_of_the_0_1_0_archive() {
    let (dir, archive, time) = clone_of_0_1_0();
    let caches = archive.join(".git/ravenpost");
    std::fs::create_dir_all(&caches).unwrap();
    let out = Command::new("tar")
        .arg("-C")
        .arg(&caches)
        .arg("-xf")
        .arg(data("0.2.0-cache.tar"))
        .output()
        .expect("tar must be installed to run this test");
    assert!(out.status.success(), "tar: {}", String::from_utf8_lossy(&out.stderr));
    let old: Vec<String> = std::fs::read_dir(&caches)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("cache.sqlite3"))
        .collect();
    assert!(!old.is_empty(), "the 0.2.0 caches are in place");
    for round in ["first", "again"] {
        let (out, err, code) = ravenpost(dir.path(), &archive, &time, &["verify", "--json"]);
        assert_eq!((code, err.as_str()), (0, ""), "{round}: {out}");
        assert_eq!(out, expected("0.1.0-verify.expected"), "{round}");
        for game in ["g-ann-bo", "grand-tc", "fid-1", "fg-secret", "fg-draw", "g-clock"] {
            let (out, _, code) = ravenpost(dir.path(), &archive, &time, &["log", game, "--json"]);
            assert_eq!(code, 0, "{round}: {game}");
            assert_eq!(out, expected(&format!("0.1.0-log-{game}.expected")), "{round}: log of {game}");
        }
        let (out, _, code) = ravenpost(dir.path(), &archive, &time, &["status", "--json"]);
        assert_eq!(code, 0);
        assert_eq!(out, expected("0.1.0-status.expected"), "{round}: status");
    }
    let left: Vec<String> = std::fs::read_dir(&caches)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| old.contains(n))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "files of the old formats are removed");
}
