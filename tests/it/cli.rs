//! The `ravenpost` binary: output, exit codes and one-line errors.

use crate::common;

use common::{T0, cli, ravenpost_at};

#[test]
fn perft_prints_the_node_count_last() {
    let (code, out, _) = cli(&["perft", "gygax", "2"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("8094"));
    let (code, out, _) = cli(&["perft", "dragonchess", "1", "--divide"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 91);
    assert_eq!(lines[90], "90");
    assert!(lines.contains(&"R3g1x3a7 1"));
}

#[test]
fn moves_lists_every_legal_move() {
    let (code, out, _) = cli(&["moves", "gygax"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 90);
    assert!(out.lines().any(|l| l == "W2e2-2e3"));
    let pos = "12/12/12/5R6/12/12/12/12 7k4/12/5o6/4ooo5/5o6/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let (code, out, _) = cli(&["moves", "gygax", "--position", pos]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l == "R3f5:2f4"), "{out}");
}

#[test]
fn unknown_variant_is_a_one_line_error_with_exit_code_2() {
    let (code, out, err) = cli(&["perft", "chess", "1"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unknown variant `chess`") && err.contains("gygax"), "{err}");
}

#[test]
fn malformed_position_is_a_one_line_error_with_column_and_exit_code_2() {
    let (code, _, err) = cli(&["moves", "gygax", "--position", "12/12/12/12/12/12/12/1z10 x"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("column"), "{err}");
    let bad = "12/12/12/12/12/12/12/1z10 12/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 g 0 1";
    let (code, _, err) = cli(&["perft", "gygax", "1", "--position", bad]);
    assert_eq!(code, 2);
    assert!(err.contains("column 23") && err.contains("unknown piece code `z`"), "{err}");
}

#[test]
fn bad_option_is_refused() {
    let (code, _, err) = cli(&["perft", "gygax", "1", "--option", "sylph-return=sideways"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected one of start-squares, above"), "{err}");
    let (code, _, err) = cli(&["perft", "gygax", "1", "--option", "nonsense"]);
    assert_eq!(code, 2);
    assert!(err.contains("K=V"), "{err}");
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn validate_reports_each_problem_with_file_line_column_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.pgn", "[Variant \"gygax\"]\n\n1. 2e3 Sa3b6 *\n");
    let bad = write(dir.path(), "bad.pgn", "[Variant \"gygax\"]\n\n1. 2e3 2e6 2. U2c5 *\n");
    let d = dir.path().to_str().unwrap();
    let (code, out, err) = cli(&["validate", d]);
    assert_eq!(code, 1);
    assert_eq!(out.trim(), "2 files, 2 games: 1 valid, 1 problem");
    assert!(err.contains(&format!("{}:3:15", bad.display())), "{err}");
    assert!(
        err.contains("no Unicorn of Gold can go to 2c5") && err.contains("legal: U2a3 U2c3 U2j3 U2l3"),
        "{err}"
    );
    let (code, out, _) = cli(&["validate", "--json", d]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["games"], 2);
    assert_eq!(json["problems"][0]["line"], 3);
    assert_eq!(json["problems"][0]["column"], 15);
    assert_eq!(json["problems"][0]["token"], "U2c5");
    let (code, _, _) = cli(&["validate", dir.path().join("good.pgn").to_str().unwrap()]);
    assert_eq!(code, 0);
    let (code, _, err) = cli(&["validate", "/nonexistent/x.pgn"]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
}

#[test]
fn fmt_rewrites_to_canonical_form_and_check_reports() {
    let dir = tempfile::tempdir().unwrap();
    let f =
        write(dir.path(), "g.pgn", "[Variant \"Dragonchess\"]\r\n\r\n1.W2e2-2e3   Sa3b6 2.R3g1x3b6 *\r\n");
    let bad = write(dir.path(), "bad.pgn", "[Variant \"gygax\"]\n\n1. 2e6 *\n");
    let bad_before = std::fs::read(&bad).unwrap();
    let (code, out, _) = cli(&["fmt", "--check", f.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("g.pgn"));
    let (code, _, _) = cli(&["fmt", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.ends_with("[Variant \"gygax\"]\n[Ruleset \"ravenpost-1\"]\n\n1. 2e3 Sa3b6 2. Rx3b6 *\n"),
        "{text}"
    );
    let (code, _, _) = cli(&["fmt", "--check", f.to_str().unwrap()]);
    assert_eq!(code, 0, "canonical output is a fixed point");
    let (code, _, err) = cli(&["fmt", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("illegal move `2e6`"), "{err}");
    assert_eq!(std::fs::read(&bad).unwrap(), bad_before, "a file with problems is left as it is");
}

/// Regression: a closed standard error (`ravenpost validate … 2>&1 | head -1`) made the
/// diagnostics' `eprintln!` panic (exit 101). Now the writes are dropped.
#[test]
fn a_closed_stderr_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        write(dir.path(), &format!("bad{i}.pgn"), "garbage\n");
    }
    let mut child = ravenpost_at(dir.path(), dir.path(), T0)
        .arg("validate")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{status:?}");
}

/// A game file for the file-walking tests.
const ONE_GAME: &str = "[Variant \"gygax\"]\n\n1. 2e3 Sa3b6 *\n";

/// Runs `ravenpost args` in `dir`, killing it if it has not ended after 30 s (a hang is
/// the bug these tests guard against, not a matter of speed): (exit code, stdout, stderr).
fn run_or_kill(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    use std::io::Read;
    let mut child = ravenpost_at(dir, dir, T0)
        .args(args)
        .env("RAVENPOST_ARCHIVE", dir.join("no-archive-here"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).unwrap();
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).unwrap();
        s
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("`ravenpost {}` never ended", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (status.code().unwrap_or(-1), reader.join().unwrap(), err_reader.join().unwrap())
}

#[cfg(unix)]
fn symlink(target: &str, link: &std::path::Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[cfg(unix)]
fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

/// Regression: two symbolic link loops (`a/b -> ../b` beside `b/a -> ../a`, and a folder
/// linking to itself) made `validate` and `fmt` walk for ever.
#[cfg(unix)]
#[test]
fn two_symlink_loops_made_validate_walk_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["a", "b", "c"] {
        std::fs::create_dir(d.join(sub)).unwrap();
        write(&d.join(sub), "g.pgn", ONE_GAME);
    }
    symlink("../b", &d.join("a/to-b"));
    symlink("../a", &d.join("b/to-a"));
    symlink(".", &d.join("c/itself"));
    let (code, out, err) = run_or_kill(d, &["validate", "a", "b", "c"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "3 files, 3 games: 3 valid, 0 problems");
    assert!(err.contains("warning: a/to-b/to-a: skipped: the same folder as a"), "{err}");
    assert!(err.contains("warning: b: skipped: the same folder as a/to-b"), "{err}");
    assert!(err.contains("warning: c/itself: skipped: the same folder as c"), "{err}");
    // Each file is named once (not in canonical form: the tags are missing).
    let (code, out, err) = run_or_kill(d, &["fmt", "--check", "a", "b", "c"]);
    assert_eq!((code, out.as_str()), (1, "a/g.pgn\na/to-b/g.pgn\nc/g.pgn\n"), "{err}");
    assert_eq!(err.matches("warning:").count(), 3, "{err}");
}

/// Regression: a folder with a link to itself (`games/loop -> .`) had its one game file
/// counted 41 times (once per level, until the system refused the path as too long).
#[cfg(unix)]
#[test]
fn a_symlink_loop_counted_one_file_41_times() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    write(&games, "g.pgn", ONE_GAME);
    symlink(".", &games.join("loop"));
    // The same file under a second name (a link) is read once too.
    symlink("g.pgn", &games.join("h.pgn"));
    let (code, out, err) = run_or_kill(dir.path(), &["validate", "games", "games/g.pgn"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "1 file, 1 game: 1 valid, 0 problems");
    assert!(err.contains("warning: games/h.pgn: skipped: the same file as games/g.pgn, read once"), "{err}");
    assert!(err.contains("warning: games/loop: skipped: the same folder as games"), "{err}");
    assert!(err.contains("warning: games/g.pgn: skipped: the same file as games/g.pgn"), "{err}");
}

/// Regression: a FIFO named `.pgn` in a folder made `validate` wait for ever for a writer.
/// FIFOs, named directly or found in a folder, are passed over with a warning, never
/// opened.
#[cfg(unix)]
#[test]
fn a_pgn_fifo_made_validate_hang() {
    let dir = tempfile::tempdir().unwrap();
    let games = dir.path().join("games");
    std::fs::create_dir(&games).unwrap();
    write(&games, "g.pgn", ONE_GAME);
    mkfifo(&games.join("pipe.pgn"));
    let (code, out, err) = run_or_kill(dir.path(), &["validate", "games"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "1 file, 1 game: 1 valid, 0 problems");
    assert_eq!(
        err.trim(),
        "ravenpost: warning: games/pipe.pgn: skipped: a FIFO (named pipe), not a game file (never read)"
    );
    let (code, out, err) = run_or_kill(dir.path(), &["validate", "--json", "games/pipe.pgn"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"], 0);
    assert_eq!(v["skipped"][0], "games/pipe.pgn: skipped: a FIFO (named pipe), not a game file (never read)");
    let (code, _, err) = run_or_kill(dir.path(), &["fmt", "games"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("games/pipe.pgn: skipped: a FIFO"), "{err}");
}

/// Regression: `validate /dev/zero` read zeros until it held 3.2 GB. A device, named
/// directly or through a `.pgn` link in a folder, is passed over with a warning.
#[cfg(unix)]
#[test]
fn validate_of_dev_zero_grew_to_3_gigabytes() {
    let dir = tempfile::tempdir().unwrap();
    symlink("/dev/zero", &dir.path().join("zero.pgn"));
    let (code, out, err) = run_or_kill(dir.path(), &["validate", "/dev/zero", "."]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), "0 files, 0 games: 0 valid, 0 problems");
    assert!(err.contains("warning: /dev/zero: skipped: a device, not a game file (never read)"), "{err}");
    assert!(err.contains("warning: ./zero.pgn: skipped: a device"), "{err}");
}
