//! The memory `ravenpost validate` takes for one very long game (issue 29: a 100 MB file of
//! one game, 26M plies, took 5.8 GB). `validate` judges each game as it is read, keeping
//! neither its moves nor its positions, so its peak should not grow with the game.
//!
//! `cargo bench --bench validate_memory` writes one Grand Chess game of 100 MB (a random
//! legal opening, then one piece of each side going back and forth, which the rules never
//! end: repetitions are draws that must be claimed), its movetext without move numbers,
//! as dense as game files get; then runs the `ravenpost` binary built with it as
//! `/usr/bin/time -v ravenpost validate FILE` and prints the plies, the bytes, the wall
//! time and the peak resident memory against the limit of 200 MB. Set
//! `VALIDATE_MEMORY_MB=N` for another size; without `--bench` (`cargo test --benches`) a
//! 1 MB file is checked as a smoke run.

use std::process::Command;

#[path = "../tests/it/support/long_game.rs"]
mod long_game;

/// The peak `validate` may take for the 100 MB game (issue 29).
const LIMIT_MB: f64 = 200.0;

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let mb: usize = match std::env::var("VALIDATE_MEMORY_MB") {
        Ok(s) => s.trim().parse().expect("a number of megabytes"),
        Err(_) if bench => 100,
        Err(_) => 1,
    };
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("long.pgn");
    let plies = long_game::write_dense_game(&file, mb * 1_000_000);
    let bytes = std::fs::metadata(&file).unwrap().len();
    let start = std::time::Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(env!("CARGO_BIN_EXE_ravenpost"))
        .arg("validate")
        .arg(&file)
        .env("RAVENPOST_ARCHIVE", dir.path().join("no-archive"))
        .output()
        .expect("/usr/bin/time runs (GNU time)");
    let wall = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "validate: {stdout}{stderr}");
    assert_eq!(stdout.trim(), "1 file, 1 game: 1 valid, 0 problems");
    let kb: f64 = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes):"))
        .and_then(|v| v.trim().parse().ok())
        .expect("GNU time's maximum resident set size");
    let peak = kb / 1024.0;
    println!(
        "validate, one game of {plies} plies, {bytes} bytes: wall {:.1} s, peak memory {peak:.1} MB (limit {LIMIT_MB} MB for 100 MB: {})",
        wall.as_secs_f64(),
        if peak <= LIMIT_MB { "within" } else { "OVER" }
    );
}
