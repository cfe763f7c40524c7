//! Search speed: nodes per second of `ravenpost::search` on 10 middle-game positions of
//! each game, each searched to a fixed node budget (`SEARCH_SPEED_NODES`, default
//! 200,000) with an empty transposition table.
//!
//! The positions are those after 10 evenly spaced plies of the middle half of a real
//! game: the Grand Chess game of the shared corpus (`../shared/corpus/grand/`), and the
//! sample games of Gygax Chess, Fidchell and Fantasy Grand Chess in `games/`.
//! `cargo bench --bench search_speed` prints one line a game and the total.

use std::path::Path;
use std::time::Instant;

use ravenpost::engine::Position;
use ravenpost::search::{Limits, search};

const POSITIONS: usize = 10;

/// (game, record file relative to the crate).
const GAMES: &[(&str, &str)] = &[
    ("Gygax Chess", "games/gygax/gygax-sample-1.pgn"),
    ("Fidchell", "games/fidchell/fidchell-sample-1.pgn"),
    ("Grand Chess", "../shared/corpus/grand/pychess-2024-12-26.pgn"),
    ("Fantasy Grand Chess", "games/fantasy-grand/fantasy-grand-sample-1.pgn"),
];

/// Ten positions of the middle half of the game in `file`, none of them over.
fn positions(file: &str) -> (std::sync::Arc<ravenpost::engine::Variant>, Vec<(usize, Position)>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let g = ravenpost::record::load(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let n = g.moves.len();
    let (from, to) = (n / 4, 3 * n / 4);
    let list = (0..POSITIONS)
        .map(|i| from + (to - from) * i / (POSITIONS - 1))
        .map(|ply| (ply, g.position_at(ply)))
        .filter(|(_, p)| g.variant.has_legal_move(p))
        .collect();
    (g.variant.clone(), list)
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let budget: u64 =
        std::env::var("SEARCH_SPEED_NODES").ok().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    println!("search_speed: {POSITIONS} middle-game positions a game, {budget} nodes each");
    println!(
        "{:<22} {:>9} {:>12} {:>9} {:>12} {:>10}",
        "game", "positions", "nodes", "seconds", "nodes/s", "mean depth"
    );
    let (mut all_nodes, mut all_secs) = (0u64, 0f64);
    for (name, file) in GAMES {
        let (v, list) = positions(file);
        let (mut nodes, mut depth) = (0u64, 0u32);
        let started = Instant::now();
        for (_, p) in &list {
            let r = search(&v, p, &[], &Limits { nodes: Some(budget), ..Limits::default() });
            nodes += r.nodes;
            depth += r.depth;
        }
        let secs = started.elapsed().as_secs_f64();
        all_nodes += nodes;
        all_secs += secs;
        println!(
            "{:<22} {:>9} {:>12} {:>9.2} {:>12.0} {:>10.1}",
            name,
            list.len(),
            nodes,
            secs,
            nodes as f64 / secs,
            f64::from(depth) / list.len() as f64
        );
    }
    println!(
        "{:<22} {:>9} {:>12} {:>9.2} {:>12.0}",
        "all",
        "",
        all_nodes,
        all_secs,
        all_nodes as f64 / all_secs
    );
}
