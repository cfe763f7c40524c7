//! Issue 13 (part A): an archive that survives interrupted commands, other machines' git
//! settings and odd files, and commands that never play for a side they did not mean.
//!
//! The torture test interrupts `move` (SIGKILL and SIGINT, at random moments and at each
//! named step of a write, which the binary's test-only `RAVENPOST_TEST_PAUSE_AT` holds
//! open) and after each checks with the real `git` that the repository is sound, that
//! `verify` is clean, that the branch holds exactly the moves played, and that the next
//! `move` works at once and leaves `git status` clean.

use crate::common;

use crate::common::long_game;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::rng::Lcg;
use common::{T0, git, git_out, ok, ravenpost_at, run, text};

/// A fresh archive in the fan-out of new archives (these tests name its paths).
fn archive() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    common::cli::archive_with(&["--layout", "fan-out"])
}
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const GAME: &str = "games/grand/c/d/g.pgn";

/// The moves on the branch, as the real `git` reads the game file there.
fn branch_moves(dir: &Path, home: &Path) -> Vec<String> {
    let file = git(dir, home, &["show", &format!("main:{GAME}")]);
    let game = ravenpost::record::load(&file).expect("the game on the branch reads");
    let mut out = Vec::new();
    let mut p = game.variant.start_position();
    for m in &game.moves {
        out.push(ravenpost::notation::san::write_move(&game.variant, &p, m));
        p = game.variant.make(&p, m);
    }
    out
}

/// `git fsck` finds nothing wrong (unreferenced objects of an interrupted write are
/// garbage, not damage).
fn assert_fsck_clean(dir: &Path, home: &Path, what: &str) {
    let o = git_out(dir, home, &["fsck", "--no-dangling", "--no-progress"]);
    assert!(
        o.status.success() && o.stdout.is_empty() && o.stderr.is_empty(),
        "{what}: git fsck: {}",
        text(&o)
    );
}

/// `git status` is clean and the working copy holds the branch's version of the game.
fn assert_working_copy_is_the_branch(dir: &Path, home: &Path, what: &str) {
    assert_eq!(git(dir, home, &["status", "--porcelain", "--untracked-files=all"]), "", "{what}: git status");
    let on_branch = git(dir, home, &["show", &format!("main:{GAME}")]);
    assert_eq!(std::fs::read_to_string(dir.join(GAME)).unwrap(), on_branch, "{what}: working copy");
}

fn move_command(dir: &Path, home: &Path, token: &str, ply: usize) -> Command {
    let who = if ply % 2 == 1 { "Ann" } else { "Bo" };
    let mut cmd = ravenpost_at(dir, home, T0 + ply as i64);
    cmd.args(["move", "g", token, "--as", who, "--expect-ply", &ply.to_string()]);
    cmd
}

/// Plays ply `ply`, which must succeed and say so.
fn play(dir: &Path, home: &Path, token: &str, ply: usize, what: &str) {
    let o = move_command(dir, home, token, ply).output().unwrap();
    assert!(o.status.success(), "{what}: the next move ply {ply} {token}: {}", text(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("(ply {ply})")), "{what}: {}", text(&o));
}

/// Waits until the lock file's journal says the write is at `step` (the binary then
/// sleeps there).
fn wait_for_step(dir: &Path, child: &mut Child, step: &str) {
    let lock = dir.join(".git/ravenpost.lock");
    let start = Instant::now();
    loop {
        if std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&format!("step {step} "))) {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the move ended ({status}) before reaching step {step}");
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the move never reached step {step}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Runs the write `cmd` in the archive `dir` and kills it (SIGKILL) at `step`.
fn killed_at(cmd: &mut Command, dir: &Path, step: &str) {
    let mut child = cmd.env("RAVENPOST_TEST_PAUSE_AT", step).stdout(Stdio::null()).spawn().unwrap();
    wait_for_step(dir, &mut child, step);
    // A write of several files journals the step for each and pauses at the second: the
    // first file is written on the way, so the kill waits for the pause.
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, Signal::SIGKILL);
    child.wait().unwrap();
}

fn signal(child: &Child, sig: Signal) {
    kill(Pid::from_raw(child.id() as i32), sig).unwrap();
}

/// The steps of a write at which `RAVENPOST_TEST_PAUSE_AT` stops it.
const STEPS: [&str; 5] = ["objects", "ref", "worktree", "index", "done"];

/// What an interrupted write may leave that the next command must clear: git's own
/// lock files, as a writer killed inside libgit2's ref or index update leaves them.
fn plant_git_lock(dir: &Path, step: &str) {
    match step {
        "ref" => std::fs::write(dir.join(".git/refs/heads/main.lock"), "0".repeat(40) + "\n").unwrap(),
        "index" => std::fs::write(dir.join(".git/index.lock"), "DIRC half-written").unwrap(),
        _ => {}
    }
}

#[test]
fn interrupted_moves_torture() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    const INTERRUPTIONS: usize = 200;
    let line = long_game::random_game("grand", 2 * INTERRUPTIONS + 10, 13);
    let tokens = &line.tokens;
    let mut rng = Lcg(2026);
    // How long one move takes here: the random moments are spread over it.
    let start = Instant::now();
    play(&dir, &home, &tokens[0], 1, "first move");
    play(&dir, &home, &tokens[1], 2, "second move");
    let span = (start.elapsed() / 2).max(Duration::from_millis(5));
    let mut played = 2;
    let (mut killed_before, mut killed_after, mut finished) = (0, 0, 0);
    for round in 0..INTERRUPTIONS {
        let ply = played + 1;
        let sig = if rng.below(2) == 0 { Signal::SIGKILL } else { Signal::SIGINT };
        // One round in three stops at a named step; the others at a random moment.
        let step = (round % 3 == 0).then(|| STEPS[(round / 3) % STEPS.len()]);
        let what = format!("round {round}: {sig:?} at {}", step.unwrap_or("a random moment"));
        let mut cmd = move_command(&dir, &home, &tokens[ply - 1], ply);
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Some(s) = step {
            // A kill comes during the pause; an interrupt is held back, so the write goes on
            // after a short one.
            let ms = if sig == Signal::SIGKILL { "20000" } else { "200" };
            cmd.env("RAVENPOST_TEST_PAUSE_AT", s).env("RAVENPOST_TEST_PAUSE_MS", ms);
        }
        let mut child = cmd.spawn().unwrap();
        match step {
            Some(s) => {
                wait_for_step(&dir, &mut child, s);
                if sig == Signal::SIGKILL {
                    plant_git_lock(&dir, s);
                }
            }
            None => std::thread::sleep(span.mul_f64(rng.below(1200) as f64 / 1000.0)),
        }
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        if step.is_some() && sig == Signal::SIGINT && step != Some("objects") {
            // Held back until the write is whole: the process ends by the signal after.
            assert_eq!(
                std::os::unix::process::ExitStatusExt::signal(&out.status),
                Some(libc_sigint()),
                "{what}: {}",
                text(&out)
            );
        }
        let reported = out.status.success();
        if reported {
            assert!(
                String::from_utf8_lossy(&out.stdout).contains(&format!("(ply {ply})")),
                "{what}: {}",
                text(&out)
            );
        }
        assert_fsck_clean(&dir, &home, &what);
        let moves = branch_moves(&dir, &home);
        // Exactly the moves played: the interrupted one is there or not, never half.
        if moves.len() == ply {
            if reported {
                finished += 1;
            } else {
                killed_after += 1;
            }
            played = ply;
        } else {
            assert!(!reported, "{what}: reported played but not on the branch");
            killed_before += 1;
        }
        assert_eq!(moves, tokens[..played].to_vec(), "{what}: the moves on the branch");
        // The next move works at once, whatever was left.
        play(&dir, &home, &tokens[played], played + 1, &what);
        played += 1;
        assert_eq!(branch_moves(&dir, &home), tokens[..played].to_vec(), "{what}: after the next move");
        assert_working_copy_is_the_branch(&dir, &home, &what);
        assert!(!dir.join(".git/ravenpost.lock").exists(), "{what}: a lock file was left");
        let o = run(&dir, &home, &["verify"]);
        assert!(o.status.success(), "{what}: verify: {}", text(&o));
    }
    assert_fsck_clean(&dir, &home, "the end");
    // The run did interrupt writes on both sides of the commit point.
    assert!(
        killed_before > 0 && killed_after > 0,
        "before {killed_before}, after {killed_after}, finished {finished}"
    );
    eprintln!(
        "{INTERRUPTIONS} interruptions: {killed_before} before the commit, {killed_after} after it, {finished} too late"
    );
}

fn libc_sigint() -> i32 {
    Signal::SIGINT as i32
}

/// Regression (issue 13): a `move` killed while libgit2 held `refs/heads/main.lock` left
/// the lock behind, and every later move waited 5 s and failed with a raw libgit2 error;
/// one killed while holding the archive lock blocked every later write.
#[test]
fn crash_leaves_no_stale_lock() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 8, 5);
    for (k, step) in ["ref", "index", "worktree"].iter().enumerate() {
        let ply = 2 * k + 1;
        let mut child = move_command(&dir, &home, &line.tokens[ply - 1], ply)
            .env("RAVENPOST_TEST_PAUSE_AT", step)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_step(&dir, &mut child, step);
        plant_git_lock(&dir, step);
        signal(&child, Signal::SIGKILL);
        child.wait().unwrap();
        assert!(dir.join(".git/ravenpost.lock").exists(), "the killed move's lock file is there");
        // The next move goes ahead at once: no wait for a lock, no raw git error.
        let next = if step == &"ref" { ply } else { ply + 1 };
        let start = Instant::now();
        play(&dir, &home, &line.tokens[next - 1], next, step);
        assert!(start.elapsed() < Duration::from_secs(4), "{step}: the next move waited");
        if next == ply {
            play(&dir, &home, &line.tokens[ply], ply + 1, step);
        }
        assert!(!dir.join(".git/refs/heads/main.lock").exists(), "{step}: ref lock left");
        assert!(!dir.join(".git/index.lock").exists(), "{step}: index lock left");
        assert!(!dir.join(".git/ravenpost.lock").exists(), "{step}: archive lock left");
        assert_working_copy_is_the_branch(&dir, &home, step);
        assert_fsck_clean(&dir, &home, step);
    }
    assert_eq!(branch_moves(&dir, &home), line.tokens[..6].to_vec());
}

/// Regression (issue 13): about one in ten interrupted moves left the index holding the
/// old file after the move was committed (`git status` then showed the move undone as a
/// staged change). The next command, even a read-only one, finishes the write.
#[test]
fn crash_after_commit_leaves_no_stale_index() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 2, 7);
    for step in ["worktree", "index"] {
        let ply = if step == "worktree" { 1 } else { 2 };
        let mut child = move_command(&dir, &home, &line.tokens[ply - 1], ply)
            .env("RAVENPOST_TEST_PAUSE_AT", step)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_step(&dir, &mut child, step);
        signal(&child, Signal::SIGKILL);
        child.wait().unwrap();
        assert_eq!(branch_moves(&dir, &home).len(), ply, "{step}: the move is on the branch");
        assert_ne!(git(&dir, &home, &["status", "--porcelain"]), "", "{step}: the kill left the copy behind");
        ok(&dir, &home, &["status"]);
        assert_working_copy_is_the_branch(&dir, &home, step);
    }
}

/// An interrupt (Ctrl-C) after the branch moved waits until the working copy has the
/// move: the move is everywhere, with nothing left to recover.
#[test]
fn interrupt_during_a_write_finishes_it_first() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 1, 9);
    let mut child = move_command(&dir, &home, &line.tokens[0], 1)
        .env("RAVENPOST_TEST_PAUSE_AT", "worktree")
        .env("RAVENPOST_TEST_PAUSE_MS", "300")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_step(&dir, &mut child, "worktree");
    signal(&child, Signal::SIGINT);
    let status = child.wait().unwrap();
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(libc_sigint()));
    assert!(!dir.join(".git/ravenpost.lock").exists() || lock_is_free_journal(&dir));
    assert_working_copy_is_the_branch(&dir, &home, "after Ctrl-C");
    assert_eq!(branch_moves(&dir, &home), line.tokens[..1].to_vec());
}

/// A lock file left behind whose journal says the write was done.
fn lock_is_free_journal(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(".git/ravenpost.lock")).is_ok_and(|t| t.contains("step done "))
}

/// Regression (issue 13): a writer that holds the lock names itself, and a waiter that
/// gives up says who holds it (process, start time, host); `--break-lock`, which the
/// stale-lock message names, is a real option.
#[test]
fn a_held_lock_names_its_owner_and_break_lock_exists() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 2, 3);
    let mut child = move_command(&dir, &home, &line.tokens[0], 1)
        .env("RAVENPOST_TEST_PAUSE_AT", "objects")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_step(&dir, &mut child, "objects");
    let lock = std::fs::read_to_string(dir.join(".git/ravenpost.lock")).unwrap();
    assert!(lock.contains(&format!("pid {}\n", child.id())), "{lock}");
    assert!(lock.contains("started ") && lock.contains("host "), "{lock}");
    signal(&child, Signal::SIGKILL);
    child.wait().unwrap();
    // A 0.1.0-style lock file (no advisory lock): stale, and --break-lock removes it.
    std::fs::write(dir.join(".git/ravenpost.lock"), "pid 4242 on elsewhere\n").unwrap();
    let f = std::fs::File::options().write(true).open(dir.join(".git/ravenpost.lock")).unwrap();
    f.set_modified(std::time::SystemTime::now() - Duration::from_secs(3 * 3600)).unwrap();
    let o = move_command(&dir, &home, &line.tokens[0], 1).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--break-lock"), "{}", text(&o));
    let o = move_command(&dir, &home, &line.tokens[0], 1).arg("--break-lock").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_working_copy_is_the_branch(&dir, &home, "after --break-lock");
}

// ---------------------------------------------------------------- line endings

/// An archive as ravenpost 0.1.0 made it: `ravenpost.yaml` alone in the first commit,
/// no `.gitattributes`; one game with two moves. Returns the bare repository to clone.
fn old_style_archive(t: &Path, home: &Path) -> std::path::PathBuf {
    let made = t.join("made");
    std::fs::create_dir_all(&made).unwrap();
    git(&made, home, &["init", "-q", "-b", "main"]);
    let (_t2, modern, _) = archive();
    std::fs::write(made.join("ravenpost.yaml"), git(&modern, home, &["show", "main:ravenpost.yaml"]))
        .unwrap();
    git(&made, home, &["add", "ravenpost.yaml"]);
    git(&made, home, &["commit", "-q", "-m", "Start a ravenpost archive"]);
    ok(&made, home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let bare = t.join("origin.git");
    git(t, home, &["clone", "-q", "--bare", made.to_str().unwrap(), bare.to_str().unwrap()]);
    bare
}

/// Plays a game in a clone of `bare` made with `core.autocrlf=<autocrlf>`: moves, a draw
/// offer, a resignation, each committed with `git status` clean, then synced back.
fn play_with_autocrlf(autocrlf: &str, bare: &Path, t: &Path, home: &Path) {
    let clone = t.join(format!("clone-{autocrlf}"));
    let setting = format!("core.autocrlf={autocrlf}");
    git(t, home, &["clone", "-q", "-c", &setting, bare.to_str().unwrap(), clone.to_str().unwrap()]);
    let file = std::fs::read(clone.join(GAME)).unwrap();
    let crlf = file.windows(2).any(|w| w == b"\r\n");
    let line = long_game::random_game("grand", 4, 11);
    for (i, token) in line.tokens.iter().enumerate() {
        let who = if i % 2 == 0 { "Ann" } else { "Bo" };
        ok(&clone, home, &["move", "g", token, "--as", who]);
        assert_eq!(git(&clone, home, &["status", "--porcelain"]), "", "{autocrlf}: after {token}");
    }
    ok(&clone, home, &["draw", "offer", "g", "--as", "Ann"]);
    ok(&clone, home, &["resign", "g", "--as", "Ann"]);
    assert_eq!(git(&clone, home, &["status", "--porcelain"]), "", "{autocrlf}: after the resignation");
    ok(&clone, home, &["verify"]);
    ok(&clone, home, &["sync"]);
    let on_remote = git(bare, home, &["show", &format!("main:{GAME}")]);
    assert!(on_remote.contains("[Result \"0-1\"]") && !on_remote.contains('\r'), "{autocrlf}: {on_remote}");
    eprintln!("core.autocrlf={autocrlf}: checked out with CRLF: {crlf}");
}

/// Regression (issue 13): with `core.autocrlf=true` (Git for Windows' default) git checks
/// game files out with CRLF, and `move`, `resign` and `draw offer` said "the working copy
/// has changes" while `git status` was clean; now the working copy is compared as git
/// sees it after its filters. Older archives (no `.gitattributes`) are the hard case.
#[test]
fn autocrlf_true_move_works() {
    let t = tempfile::tempdir().unwrap();
    let home = common::identity(&t.path().join("home"), "Referee", "referee@example.org");
    let bare = old_style_archive(t.path(), &home);
    // The case the issue is about: the clone really holds CRLF files.
    let probe = t.path().join("probe");
    git(
        t.path(),
        &home,
        &["clone", "-q", "-c", "core.autocrlf=true", bare.to_str().unwrap(), probe.to_str().unwrap()],
    );
    assert!(std::fs::read(probe.join(GAME)).unwrap().windows(2).any(|w| w == b"\r\n"), "no CRLF checkout");
    play_with_autocrlf("true", &bare, t.path(), &home);
}

/// `core.autocrlf=input` (git converts CRLF to LF on the way in only) plays a game too.
#[test]
fn autocrlf_input_move_works() {
    let t = tempfile::tempdir().unwrap();
    let home = common::identity(&t.path().join("home"), "Referee", "referee@example.org");
    let bare = old_style_archive(t.path(), &home);
    play_with_autocrlf("input", &bare, t.path(), &home);
}

/// `init` pins the line endings of game files in a `.gitattributes` committed with
/// `ravenpost.yaml` (which the hook accepts in the first commit), so a clone with
/// `core.autocrlf=true` checks game files out with LF.
#[test]
fn init_writes_gitattributes_pinning_game_files() {
    let (t, dir, home) = archive();
    let attributes = git(&dir, &home, &["show", "main:.gitattributes"]);
    assert!(attributes.lines().any(|l| l == "games/** text eol=lf"), "{attributes}");
    assert_eq!(git(&dir, &home, &["rev-list", "--count", "main"]).trim(), "1");
    assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let bare = t.path().join("pinned.git");
    git(t.path(), &home, &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    ok(t.path(), &home, &["hook", "install", "--repo", bare.to_str().unwrap()]);
    git(&dir, &home, &["push", "-q", bare.to_str().unwrap(), "main"]);
    let clone = t.path().join("pinned");
    git(
        t.path(),
        &home,
        &["clone", "-q", "-c", "core.autocrlf=true", bare.to_str().unwrap(), clone.to_str().unwrap()],
    );
    assert!(!std::fs::read(clone.join(GAME)).unwrap().contains(&b'\r'), "a CRLF checkout");
    play_with_autocrlf("true", &bare, t.path(), &home);
}

// ---------------------------------------------------------------- who a move is for

/// Regression (issue 13): two identical `move` commands (no `--as`, no `--expect-ply`,
/// an identity that plays no side) both succeeded, the second for the opponent. Now the
/// second is refused, saying how to play the move meant; another identity (a referee's
/// archive shared by several) still plays for the side to move.
#[test]
fn same_move_twice_does_not_play_other_side() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 3, 21);
    let first = ok(&dir, &home, &["move", "g", &line.tokens[0]]);
    assert!(first.contains("(ply 1)"), "{first}");
    let o = run(&dir, &home, &["move", "g", &line.tokens[0]]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--as Bo") && err.contains("--expect-ply 2") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(branch_moves(&dir, &home), line.tokens[..1].to_vec());
    // Said whose it is, it plays.
    ok(&dir, &home, &["move", "g", &line.tokens[1], "--expect-ply", "2"]);
    // Another non-player identity plays for the side to move, as before.
    ok(&dir, &home, &["--author", "Judge <judge@example.org>", "move", "g", &line.tokens[2]]);
    assert_eq!(branch_moves(&dir, &home), line.tokens[..3].to_vec());
}

/// Regression (s4 fresh-user report (a)2): `resign`, `draw offer|accept|decline|claim`
/// and `claim timeout` skipped the "who moves" guard `move` has: right after its own
/// move, a referee's identity (or no identity at all) resigned or offered a draw for the
/// other side. Now every step has the one guard: refused, asking for `--as` (a step its
/// own rules refuse anyway is refused for that); said whose it is, it plays; a step for
/// the side whose step the last one was (a move after one's own draw offer) and another
/// identity's steps still play.
#[test]
fn resign_and_draw_skipped_the_who_moves_guard() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 3, 21);
    ok(&dir, &home, &["move", "g", &line.tokens[0]]);
    let tip = git(&dir, &home, &["rev-parse", "main"]);
    for step in [&["resign", "g"][..], &["draw", "offer", "g"]] {
        let o = run(&dir, &home, step);
        assert_eq!(o.status.code(), Some(1), "{step:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("g: whose step is this? Referee <referee@example.org> is not a player of this game")
                && err.contains("--as Bo")
                && err.contains("nothing was written"),
            "{step:?}: {err}"
        );
    }
    // A claim the position does not support is refused as such, before the guard.
    let o = run(&dir, &home, &["draw", "claim", "g"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("claim refused: no draw"), "{}", text(&o));
    assert_eq!(git(&dir, &home, &["rev-parse", "main"]), tip, "nothing was committed");
    // A timeout claim is the waiting side's: Ann's, whose move the last step was, so the
    // guard lets it through to the clock (this game has none).
    let o = run(&dir, &home, &["claim", "timeout", "g"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!text(&o).contains("whose step"), "{}", text(&o));
    // Said whose it is, Bo offers a draw; the move after it is Bo's too, so it plays.
    assert_eq!(
        ok(&dir, &home, &["draw", "offer", "g", "--as", "Bo"]).trim(),
        "Bo (Black) offers a draw\nIt goes with your next move: ravenpost move g MOVE"
    );
    assert!(ok(&dir, &home, &["move", "g", &line.tokens[1]]).contains("(ply 2)"));
    // Ann's answer, by the identity that made Bo's move: refused; by another: played.
    let o = run(&dir, &home, &["draw", "decline", "g"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("to decline the draw for Ann, say so with `--as Ann`"), "{}", text(&o));
    let judge = ["--author", "Judge <judge@example.org>"];
    assert_eq!(
        ok(&dir, &home, &[&judge[..], &["draw", "decline", "g"]].concat()).trim(),
        "Ann (White) declines the draw"
    );
    assert_eq!(branch_moves(&dir, &home), line.tokens[..2].to_vec());

    // Without any identity, every step is committed under the players' names, and the
    // guard says that no identity is set rather than "you".
    let t = tempfile::tempdir().unwrap();
    let bare_home = t.path().join("home");
    std::fs::create_dir_all(&bare_home).unwrap();
    let config = "[init]\n\tdefaultBranch = main\n";
    std::fs::write(bare_home.join("gitconfig"), config).unwrap();
    std::fs::write(bare_home.join(".gitconfig"), config).unwrap();
    let dir = t.path().join("arc");
    ok(t.path(), &bare_home, &["init", dir.to_str().unwrap()]);
    ok(&dir, &bare_home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &bare_home, &["move", "g", &line.tokens[0]]);
    let o = run(&dir, &bare_home, &["resign", "g"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("no identity is set")
            && text(&o).contains("`--as Bo`")
            && !text(&o).contains("You "),
        "{}",
        text(&o)
    );
    assert_eq!(ok(&dir, &bare_home, &["resign", "g", "--as", "Bo"]).trim(), "Bo (Black) resigns");
}

// ---------------------------------------------------------------- odd files

/// Regression (issue 13): the hook accepted a symbolic link as a new game (which then
/// could not be played, and `verify` contradicted itself about it). A symbolic link
/// under games/, in a commit or in the working tree, is refused by the hook, `verify`
/// and `move`, each saying what it is.
#[test]
fn symlink_game_refused_by_hook_and_verify() {
    let (t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let bare = t.path().join("server.git");
    git(t.path(), &home, &["init", "-q", "--bare", "-b", "main", bare.to_str().unwrap()]);
    ok(t.path(), &home, &["hook", "install", "--repo", bare.to_str().unwrap()]);
    git(&dir, &home, &["push", "-q", bare.to_str().unwrap(), "main"]);
    std::fs::create_dir_all(dir.join("games/grand/0/4")).unwrap();
    std::os::unix::fs::symlink("g.pgn", dir.join("games/grand/0/4/s.pgn")).unwrap();
    git(&dir, &home, &["add", "games/grand/0/4/s.pgn"]);
    git(&dir, &home, &["commit", "-q", "--author", "Ann <ann@example.org>", "-m", "s: new game"]);
    assert_eq!(
        git(&dir, &home, &["ls-files", "-s", "games/grand/0/4/s.pgn"]).split(' ').next(),
        Some("120000")
    );
    let push = git_out(&dir, &home, &["push", bare.to_str().unwrap(), "main"]);
    assert!(!push.status.success(), "the hook took a symbolic link: {}", text(&push));
    assert!(
        text(&push).contains("games/grand/0/4/s.pgn is a symbolic link, not a regular file"),
        "{}",
        text(&push)
    );
    let o = run(&dir, &home, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is a symbolic link, not a regular file"),
        "{}",
        text(&o)
    );
    let line = long_game::random_game("grand", 1, 4);
    let o = run(&dir, &home, &["move", "s", &line.tokens[0], "--as", "Ann"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"), "{}", text(&o));
    // A symbolic link in the working tree where a game file belongs is not followed.
    let tip = git(&dir, &home, &["rev-parse", "main"]);
    let copy = t.path().join("copy.pgn");
    std::fs::copy(dir.join(GAME), &copy).unwrap();
    std::fs::remove_file(dir.join(GAME)).unwrap();
    std::os::unix::fs::symlink(&copy, dir.join(GAME)).unwrap();
    let o = run(&dir, &home, &["move", "g", &line.tokens[0], "--as", "Ann"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("a symbolic link in the working tree"),
        "{}",
        text(&o)
    );
    assert_eq!(git(&dir, &home, &["rev-parse", "main"]), tip, "nothing was committed");
}

/// Regression: a submodule entry (mode 160000, a commit's id) in a game file's history
/// made `verify` fail with "git: read blob …: the requested type does not match" and no
/// commit named (the versions' texts were read before their modes were looked at). It is
/// now that version's problem, as a symbolic link is (found by an adversarial trial).
#[test]
fn a_submodule_at_a_game_path_is_a_problem_not_a_read_error() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let head = git(&dir, &home, &["rev-parse", "HEAD"]);
    git(&dir, &home, &["rm", "-q", "--cached", GAME]);
    git(&dir, &home, &["update-index", "--add", "--cacheinfo", &format!("160000,{},{GAME}", head.trim())]);
    git(&dir, &home, &["commit", "-q", "--author", "Ann <ann@example.org>", "-m", "g: a submodule"]);
    // And back to the game file (still in the working tree).
    git(&dir, &home, &["rm", "-q", "--cached", GAME]);
    git(&dir, &home, &["add", GAME]);
    git(&dir, &home, &["commit", "-q", "--author", "Ann <ann@example.org>", "-m", "g: the file again"]);
    let o = run(&dir, &home, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{GAME} is a submodule, not a regular file")), "{}", text(&o));
    assert!(!err.contains("does not match"), "{}", text(&o));
}

/// Regression (issue 13): a move committed whose working-copy write then failed exited 2
/// and advised `git checkout -- <file>`, which restores the old file. Now it says the
/// move is saved and how to refresh the working copy (exit 3, documented), and the next
/// command brings the working copy up to date by itself.
#[test]
fn committed_move_whose_working_copy_write_fails_says_saved() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 1, 8);
    let mut child = move_command(&dir, &home, &line.tokens[0], 1)
        .env("RAVENPOST_TEST_PAUSE_AT", "worktree")
        .env("RAVENPOST_TEST_PAUSE_MS", "500")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_step(&dir, &mut child, "worktree");
    // The game's folder becomes a file: the working copy cannot be written.
    let folder = dir.join("games/grand");
    let aside = dir.join("aside");
    std::fs::rename(&folder, &aside).unwrap();
    std::fs::write(&folder, "in the way\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the change is saved") && err.contains(&format!("git checkout HEAD -- {GAME}")),
        "{err}"
    );
    assert!(!err.contains(&format!("git checkout -- {GAME}")), "{err}");
    assert_eq!(branch_moves(&dir, &home), line.tokens[..1].to_vec(), "the move is on the branch");
    std::fs::remove_file(&folder).unwrap();
    std::fs::rename(&aside, &folder).unwrap();
    ok(&dir, &home, &["status"]);
    assert_working_copy_is_the_branch(&dir, &home, "after the next command");
}

/// Regression (issue 13): `new` inside a plain git repository silently wrote to the
/// per-user archive. Now it refuses there, saying how to make the repository an archive;
/// outside any repository it says which archive it used.
#[test]
fn new_inside_plain_git_repository_refused() {
    let t = tempfile::tempdir().unwrap();
    let home = common::identity(&t.path().join("home"), "Referee", "referee@example.org");
    let plain = t.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    git(&plain, &home, &["init", "-q"]);
    let o = run(&plain, &home, &["new", "grand", "--white", "Ann", "--black", "Bo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not a ravenpost archive") && err.contains("ravenpost init"), "{err}");
    let user_archive = home.join("data/ravenpost/archive");
    assert!(!user_archive.exists(), "the per-user archive was made");
    let outside = t.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let o = run(&outside, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains(&format!("per-user archive at {}", user_archive.display())),
        "{}",
        text(&o)
    );
    assert!(user_archive.join(GAME).exists());
}

// ---------------------------------------------------------------- messages

/// Regression (issue 13): a promotion that must be chosen said "no Pawn can go to e10"
/// while listing `e10=R+`; now it says the pawn must promote and names the choices.
#[test]
fn required_promotion_names_choices() {
    let v = ravenpost::variants::by_name("grand", &[]).unwrap();
    let p =
        ravenpost::notation::position_string::parse_position(&v, "k9/4P5/10/10/10/10/10/10/10/9K w - - 0 1")
            .unwrap();
    match ravenpost::notation::san::read_move(&v, &p, "e10") {
        Err(ravenpost::notation::san::SanError::Illegal { reason, legal }) => {
            assert!(reason.contains("must promote: name the piece, one of"), "{reason}");
            assert!(!legal.is_empty() && legal.iter().all(|m| m.starts_with("e10=")), "{legal:?}");
            for m in &legal {
                assert!(reason.contains(m.as_str()), "{reason} lacks {m}");
            }
        }
        other => panic!("{other:?}"),
    }
}

/// Regression (issue 13): a move token with its correct move number (`17... Mbh8`) gave
/// "cannot read the origin"; now the number is read and checked against the ply.
#[test]
fn move_number_in_token_is_read() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 3, 17);
    ok(&dir, &home, &["move", "g", &format!("1. {}", line.tokens[0]), "--as", "Ann"]);
    ok(&dir, &home, &["move", "g", &format!("1...{}", line.tokens[1]), "--as", "Bo"]);
    let o = run(&dir, &home, &["move", "g", &format!("5. {}", line.tokens[2]), "--as", "Ann"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the move number 5. is not the next ply's: ply 3 is move 2. by Ann (White)"),
        "{err}"
    );
    let o = run(&dir, &home, &["move", "g", &format!("2... {}", line.tokens[2]), "--as", "Ann"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    ok(&dir, &home, &["move", "g", &format!("2. {}", line.tokens[2]), "--as", "Ann"]);
    assert_eq!(branch_moves(&dir, &home), line.tokens[..3].to_vec());
}

/// Regression (issue 13): a byte order mark in the middle of a file was shown as an
/// invisible character; now it is named.
#[test]
fn bom_in_mid_file_is_named() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("two.pgn");
    let game = "[Event \"?\"]\n[Variant \"grand\"]\n[Result \"*\"]\n\n*\n";
    std::fs::write(&file, format!("{game}\n\u{feff}{game}")).unwrap();
    let (code, _, err) = common::cli(&["validate", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("byte order mark (U+FEFF) in the middle of the file"), "{err}");
}

/// Regression: a tournament's creation (one commit writing its file and every game) kept
/// no journal, so a kill after the branch moved left the games it had not yet written
/// missing from the working copy (`git status` showed them deleted) with nothing to bring
/// them back. Now the next command writes every file the commit made.
#[test]
fn a_tournament_killed_while_writing_its_games_left_them_missing() {
    let (_t, dir, home) = archive();
    killed_at(
        ravenpost_at(&dir, &home, T0 + 60).args([
            "tournament",
            "new",
            "cup",
            "gygax",
            "--players",
            "Ann,Bo,Cy,Di",
        ]),
        &dir,
        "worktree",
    );
    let written = git(&dir, &home, &["show", "--name-only", "--format=", "main"]);
    let files: Vec<&str> = written.lines().collect();
    // Four players: six games and the tournament file, all in the one commit.
    assert_eq!(files.len(), 7, "{written}");
    let missing: Vec<&&str> = files.iter().filter(|f| !dir.join(f).exists()).collect();
    assert!(missing.len() >= 5, "the kill came after the first file: {missing:?}");
    ok(&dir, &home, &["status"]);
    assert_eq!(git(&dir, &home, &["status", "--porcelain", "--untracked-files=all"]), "");
    for f in &files {
        let on_branch = git(&dir, &home, &["show", &format!("main:{f}")]);
        assert_eq!(std::fs::read_to_string(dir.join(f)).unwrap(), on_branch, "{f}");
    }
    assert_fsck_clean(&dir, &home, "after the recovery");
    assert!(ok(&dir, &home, &["verify"]).contains("0 problems"));
}

/// `init` killed after moving the branch, before writing its files: the working copy had
/// no `ravenpost.yaml`, so a command run inside it did not take it for an archive ("no
/// archive here") and never recovered the write (`git status` showed both files deleted).
#[test]
fn an_init_killed_before_writing_its_files_was_no_archive_here() {
    let t = tempfile::tempdir().unwrap();
    let home = common::identity(&t.path().join("home"), "Referee", "referee@example.org");
    let dir = t.path().join("arc");
    killed_at(ravenpost_at(t.path(), &home, T0).args(["init", "arc"]), &dir, "worktree");
    let written = git(&dir, &home, &["show", "--name-only", "--format=", "main"]);
    let files: Vec<&str> = written.lines().collect();
    assert_eq!(files, [".gitattributes", "ravenpost.yaml"], "{written}");
    assert!(files.iter().all(|f| !dir.join(f).exists()), "killed before writing them");
    assert!(ok(&dir, &home, &["status"]).contains("No games"));
    assert_eq!(git(&dir, &home, &["status", "--porcelain", "--untracked-files=all"]), "");
    for f in &files {
        let on_branch = git(&dir, &home, &["show", &format!("main:{f}")]);
        assert_eq!(std::fs::read_to_string(dir.join(f)).unwrap(), on_branch, "{f}");
    }
    assert_fsck_clean(&dir, &home, "after the recovery");
}

/// Regression: a command killed while it recovered an interrupted move, holding git's
/// `index.lock`, left the lock file's journal at the move's `worktree` step; every later
/// recovery then stopped at an index lock it could not tell was ravenpost's, and
/// `git status` stayed dirty (`MM`) for good. Found by the kill loop below under load (2
/// of some 20 runs). Now the recovery journals its own `index` step before taking the
/// lock, as a write does.
#[test]
fn a_recovery_killed_holding_the_index_lock_left_the_index_stale() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let line = long_game::random_game("grand", 1, 31);
    // The move, killed before its working copy is written.
    killed_at(&mut move_command(&dir, &home, &line.tokens[0], 1), &dir, "worktree");
    // The next command recovers it and is killed holding git's index lock.
    let mut child = ravenpost_at(&dir, &home, T0)
        .args(["status"])
        .env("RAVENPOST_TEST_PAUSE_AT", "recovery-index")
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_step(&dir, &mut child, "index");
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, Signal::SIGKILL);
    child.wait().unwrap();
    plant_git_lock(&dir, "index");
    // The command after it finishes the move.
    ok(&dir, &home, &["status"]);
    assert_eq!(git(&dir, &home, &["status", "--porcelain", "--untracked-files=all"]), "");
    assert_eq!(working_copy_plies(&dir), 1);
    assert_fsck_clean(&dir, &home, "after the recovery");
}

/// The moves of the game in the working copy (which `git status` has found equal to the
/// branch's version).
fn working_copy_plies(dir: &Path) -> usize {
    let file = std::fs::read_to_string(dir.join(GAME)).unwrap();
    ravenpost::record::load(&file).expect("the game in the working copy reads").moves.len()
}

/// Regression (issue 29): after `kill -9` during `move`, 5 of some 310 runs left git's
/// index one move behind the branch, and `sync` without a remote (run in the clone) or
/// two `show --json` did not repair it: a plain `git commit` then would have undone the
/// move. The causes: a journal note emptied the lock file before writing its new step,
/// so a kill between the two lost the step and nothing was recovered; a recovery killed
/// midway lost the dead writer's step the same way; and `sync` opened the clone without
/// recovering at all.
///
/// 300 moves killed with SIGKILL at random moments. The branch moves before the index
/// (two files: no order closes that window), so the state the kill leaves may be one
/// move behind; it is counted. The next ravenpost command (in turn `show --json`, `sync`
/// without a remote, which fails, and `status`) must leave `git status` clean, with the
/// branch's moves in the working copy. Every fourth kill is followed by another killed
/// move at once, which may die while recovering the first.
#[test]
fn a_killed_move_left_the_index_one_move_behind_the_branch() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "grand", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    const KILLS: usize = 300;
    let line = long_game::random_game("grand", KILLS + 10, 29);
    let tokens = &line.tokens;
    let mut rng = Lcg(29);
    let start = Instant::now();
    play(&dir, &home, &tokens[0], 1, "first move");
    play(&dir, &home, &tokens[1], 2, "second move");
    let span = (start.elapsed() / 2).max(Duration::from_millis(5));
    let started = Instant::now();
    let (mut played, mut landed, mut behind_at_once) = (2, 0, 0);
    let mut kills = 0;
    let mut round = 0;
    while kills < KILLS {
        round += 1;
        // Two kills in a row one round in four: the second move finds the first's journal.
        let in_a_row = if round % 4 == 0 { 2 } else { 1 };
        for _ in 0..in_a_row {
            let mut child = move_command(&dir, &home, &tokens[played], played + 1)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            std::thread::sleep(span.mul_f64(rng.below(1200) as f64 / 1000.0));
            signal(&child, Signal::SIGKILL);
            child.wait().unwrap();
            kills += 1;
            // What the kill left, before any ravenpost command.
            if !git(&dir, &home, &["status", "--porcelain"]).is_empty() {
                behind_at_once += 1;
            }
        }
        let next = [&["show", "g", "--json"][..], &["sync"], &["status"]][round % 3];
        let what = format!("round {round}, after `ravenpost {}`", next.join(" "));
        run(&dir, &home, next);
        assert_eq!(git(&dir, &home, &["status", "--porcelain", "--untracked-files=all"]), "", "{what}");
        let plies = working_copy_plies(&dir);
        assert!(plies == played || plies == played + 1, "{what}: {plies} plies, {played} played");
        if plies > played {
            landed += 1;
            played = plies;
        }
    }
    assert_fsck_clean(&dir, &home, "the end");
    assert_eq!(branch_moves(&dir, &home), tokens[..played].to_vec());
    assert!(landed > 0 && landed < round, "{landed} of {round} rounds played their move");
    eprintln!(
        "{kills} moves killed in {round} rounds in {:.1} s: {landed} rounds played a move, the kill left \
         git status unclean {behind_at_once} times, the next command repaired every one",
        started.elapsed().as_secs_f64()
    );
}
