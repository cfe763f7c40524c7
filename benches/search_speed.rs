//! Search speed: nodes per second of `ravenpost::search` on 10 middle-game positions of
//! each game, each searched to a fixed node budget (`SEARCH_SPEED_NODES`, default
//! 200,000) with an empty transposition table.
//!
//! The positions are those after 10 evenly spaced plies of the middle half of a real
//! game: the Grand Chess game of the shared corpus (`../shared/corpus/grand/`), and the
//! sample games of Gygax Chess, Fidchell and Fantasy Grand Chess in `games/`.
//! `cargo bench --bench search_speed` prints one line a game and the total.
//!
//! With `FAIRY_STOCKFISH` naming a Fairy-Stockfish binary (built with `largeboards=yes`),
//! the Grand Chess positions are also searched by it, side by side: each position given
//! as its FEN (ravenpost's Grand position strings are Fairy-Stockfish's FENs) with
//! `go depth D` (`SEARCH_SPEED_FSF_DEPTH`, default 10), one thread, and its nodes and
//! time from its last `info` line: its nodes per second beside ravenpost's (the Grand row
//! above) and their ratio. Then both search the same positions to depth 5, for the nodes
//! and time each needs to reach it (Fairy-Stockfish prunes far more).
//!
//! ```sh
//! FAIRY_STOCKFISH=/path/to/Fairy-Stockfish/src/stockfish cargo bench --bench search_speed
//! ```

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use ravenpost::engine::Position;
use ravenpost::notation::position_string::write_position;
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
    let mut grand_nps = 0.0;
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
        if *name == "Grand Chess" {
            grand_nps = nodes as f64 / secs;
        }
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
    if let Ok(fsf) = std::env::var("FAIRY_STOCKFISH") {
        side_by_side(&fsf, grand_nps);
    }
}

/// Fairy-Stockfish's nodes and milliseconds for `go depth depth` from each FEN, in one
/// process (a new game before each position).
fn fairy_stockfish(binary: &str, fens: &[String], depth: u32) -> Vec<(u64, u64)> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("FAIRY_STOCKFISH={binary}: {e}"));
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |line: &str| writeln!(input, "{line}").expect("Fairy-Stockfish reads");
    send("uci");
    send("setoption name Threads value 1");
    send("setoption name Hash value 64");
    send("setoption name UCI_Variant value grand");
    let mut out = Vec::new();
    for fen in fens {
        send("ucinewgame");
        send(&format!("position fen {fen}"));
        send(&format!("go depth {depth}"));
        let (mut nodes, mut ms) = (0, 0);
        let mut line = String::new();
        loop {
            line.clear();
            assert!(output.read_line(&mut line).expect("Fairy-Stockfish answers") > 0, "it stopped");
            let words: Vec<&str> = line.split_whitespace().collect();
            let field = |name: &str| words.iter().position(|w| *w == name).and_then(|i| words.get(i + 1));
            if words.first() == Some(&"info") {
                if let Some(n) = field("nodes").and_then(|n| n.parse().ok()) {
                    nodes = n;
                }
                if let Some(t) = field("time").and_then(|t| t.parse().ok()) {
                    ms = t;
                }
            }
            if words.first() == Some(&"bestmove") {
                break;
            }
        }
        out.push((nodes, ms));
    }
    send("quit");
    let _ = child.wait();
    out
}

/// The Grand Chess positions searched by Fairy-Stockfish (its nodes per second beside
/// `grand_nps`, ravenpost's), then by both to depth 5.
fn side_by_side(binary: &str, grand_nps: f64) {
    let depth: u32 = std::env::var("SEARCH_SPEED_FSF_DEPTH").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let (v, list) = positions("../shared/corpus/grand/pychess-2024-12-26.pgn");
    let fens: Vec<String> = list.iter().map(|(_, p)| write_position(&v, p)).collect();
    let total = |r: &[(u64, u64)]| r.iter().fold((0u64, 0u64), |(n, t), (a, b)| (n + a, t + b));
    let (fsf_nodes, fsf_ms) = total(&fairy_stockfish(binary, &fens, depth));
    let fsf_nps = fsf_nodes as f64 / (fsf_ms.max(1) as f64 / 1000.0);
    println!();
    println!("Grand Chess, {} positions; Fairy-Stockfish: 1 thread, 64 MB hash", list.len());
    println!("{:<34} {:>12} {:>9} {:>12}", "engine", "nodes", "seconds", "nodes/s");
    let fsf_name = format!("Fairy-Stockfish, go depth {depth}");
    println!("{fsf_name:<34} {fsf_nodes:>12} {:>9.2} {fsf_nps:>12.0}", fsf_ms as f64 / 1000.0);
    println!("{:<34} {:>12} {:>9} {grand_nps:>12.0}", "ravenpost (the Grand row above)", "", "");
    println!("nodes/s, ravenpost / Fairy-Stockfish: {:.2}", grand_nps / fsf_nps);
    let (fsf5_nodes, fsf5_ms) = total(&fairy_stockfish(binary, &fens, 5));
    let (mut nodes, started) = (0u64, Instant::now());
    for (_, p) in &list {
        nodes += search(&v, p, &[], &Limits { depth: Some(5), ..Limits::default() }).nodes;
    }
    let secs = started.elapsed().as_secs_f64();
    println!("{:<34} {fsf5_nodes:>12} {:>9.2}", "Fairy-Stockfish, depth 5", fsf5_ms as f64 / 1000.0);
    println!("{:<34} {nodes:>12} {secs:>9.2}", "ravenpost, depth 5");
    println!(
        "to depth 5, ravenpost / Fairy-Stockfish: {:.0}x the nodes, {:.0}x the time",
        nodes as f64 / fsf5_nodes.max(1) as f64,
        secs / (fsf5_ms.max(1) as f64 / 1000.0)
    );
}
