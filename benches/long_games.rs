//! Long games: reading and replaying one game of 100k, 200k and 400k plies, and a 1 MB
//! one-game file, timed per ply so that linear cost shows as a flat column.
//!
//! The 1 MB file is there twice: in the 80-column layout ravenpost writes, and with its
//! movetext on one line.
//!
//! `cargo bench --bench long_games` prints one line per case: plies, bytes, and the best
//! of three wall and CPU times for `GameReader` + `replay` (what `ravenpost validate
//! FILE` does), each also per ply. The games are random legal games from a fixed seed that
//! never end (`tests/it/support/long_game.rs`). With `LONG_GAMES_DIR=DIR` the game files
//! are also written there, to time `ravenpost validate` itself (and its memory, with
//! `/usr/bin/time -v`). Set `LONG_GAMES_PLIES=50000,100000` for other lengths.

use std::time::{Duration, Instant};

use ravenpost::notation::pgn::GameReader;
use ravenpost::record::game::replay;

#[path = "../tests/it/support/long_game.rs"]
mod long_game;

/// The CPU time this thread has had, from `/proc/self/schedstat` (Linux; `None`
/// elsewhere). On a loaded machine it shows the work better than the wall clock.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    Some(Duration::from_nanos(s.split_whitespace().next()?.parse().ok()?))
}

/// The best wall time and the best CPU time (if known) of three runs of `f`.
fn best_of_three(mut f: impl FnMut()) -> (Duration, Option<Duration>) {
    let runs: Vec<(Duration, Option<Duration>)> = (0..3)
        .map(|_| {
            let (t, c) = (Instant::now(), cpu_time());
            f();
            (t.elapsed(), cpu_time().zip(c).map(|(b, a)| b - a))
        })
        .collect();
    let wall = runs.iter().map(|r| r.0).min().expect("three runs");
    (wall, runs.iter().filter_map(|r| r.1).min())
}

fn validate(text: &str) -> usize {
    let mut plies = 0;
    for game in GameReader::new(text.as_bytes()) {
        plies += replay(game.expect("readable")).expect("valid").moves.len();
    }
    plies
}

fn report(name: &str, plies: usize, text: &str) {
    if let Some(dir) = std::env::var_os("LONG_GAMES_DIR") {
        std::fs::write(std::path::Path::new(&dir).join(format!("{name}.pgn")), text).expect("write");
    }
    let (wall, cpu) = best_of_three(|| assert_eq!(validate(text), plies));
    let per_ply = |d: Duration| d.as_secs_f64() * 1e9 / plies as f64;
    let cpu = cpu.map_or("cpu ?".to_string(), |c| {
        format!("cpu {:>8.1} ms {:>6.0} ns/ply", c.as_secs_f64() * 1e3, per_ply(c))
    });
    println!(
        "{name:<14} {plies:>7} plies {:>8} bytes  wall {:>8.1} ms {:>6.0} ns/ply  {cpu}",
        text.len(),
        wall.as_secs_f64() * 1e3,
        per_ply(wall)
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then only a smoke run.
    let bench = std::env::args().any(|a| a == "--bench");
    let lengths: Vec<usize> = match std::env::var("LONG_GAMES_PLIES") {
        Ok(s) => s.split(',').map(|n| n.trim().parse().expect("a number of plies")).collect(),
        Err(_) if bench => vec![100_000, 200_000, 400_000],
        Err(_) => vec![1_000],
    };
    for (variant, slug) in [("grand", "grand"), ("gygax", "gygax")] {
        let longest = *lengths.iter().max().expect("a length");
        let game = long_game::random_game(variant, longest, 0x5241_5645);
        for &n in &lengths {
            report(&format!("{slug}_{n}"), n, &long_game::game_file(&game.tokens[..n], slug, ""));
        }
    }
    // A 1 MB one-game file: Grand Chess plies until the text passes 1,000,000 bytes.
    let game = long_game::random_game("grand", if bench { 140_000 } else { 1_000 }, 0x4d42);
    let mut n = game.moves.len();
    let mut text = long_game::game_file(&game.tokens, "grand", "");
    while bench && text.len() > 1_000_000 {
        n -= 1_000;
        text = long_game::game_file(&game.tokens[..n], "grand", "");
    }
    report("grand_1mb", n, &text);
    // The same game with its movetext on one line (what made issue 12's 1 MB file slow:
    // each token's column was counted from the start of its line).
    let (tags, movetext) = text.split_once("\n\n").expect("tags, then movetext");
    report("grand_1mb_1line", n, &format!("{tags}\n\n{}\n", movetext.trim_end().replace('\n', " ")));
}
