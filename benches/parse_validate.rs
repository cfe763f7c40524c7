//! `validate` (reading each game and judging its moves as it reads them, the use case
//! behind `ravenpost validate`), and reading plus replaying (`record::game::replay`, which
//! also keeps each ply's position and canonical token): plies per second.
//!
//! Two sets of games:
//! - 200 Gygax Chess games of up to 80 plies, made by playing pseudo-random legal moves
//!   from a fixed seed and writing them in canonical form;
//! - the Grand Chess games Fairy-Stockfish played against itself in
//!   `benches/data/grand-fsf-selfplay/` (its README says how they were made), written in
//!   canonical form from their UCI moves, the whole file repeated 40 times.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ravenpost::engine::{Move, Variant};
use ravenpost::notation::pgn::GameReader;
use ravenpost::notation::san::write_move;
use ravenpost::record::game::replay;
use ravenpost::usecases::files::{Source, validate};

/// The Fairy-Stockfish games: one a line, `game=N random=R end=REASON` then UCI moves.
const FSF_GAMES: &str = include_str!("data/grand-fsf-selfplay/games.txt");

/// How many times the Fairy-Stockfish games are read in one run.
const FSF_REPEAT: usize = 40;

fn archive() -> (String, u64) {
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    let mut seed: u64 = 0x9e37_79b9;
    let mut text = String::new();
    let mut total = 0;
    for g in 0..200 {
        let mut p = v.start_position();
        text.push_str(&format!("[Event \"bench {g}\"]\n[Variant \"gygax\"]\n\n"));
        for ply in 0..80 {
            let legal = v.legal_moves(&p);
            if legal.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let m = legal[(seed % legal.len() as u64) as usize];
            p = push_ply(&mut text, &v, &p, &m, ply);
            total += 1;
        }
        let result = v.outcome(&p).map(ravenpost::record::game::result_token).unwrap_or("*");
        text.push_str(result);
        text.push_str("\n\n");
    }
    (text, total)
}

/// Writes ply `ply` (`m`, from `p`) to `text` as a record's movetext has it (the move
/// number before White's), and returns the position after it.
fn push_ply(
    text: &mut String,
    v: &Variant,
    p: &ravenpost::engine::Position,
    m: &Move,
    ply: usize,
) -> ravenpost::engine::Position {
    if ply.is_multiple_of(2) {
        text.push_str(&format!("{}. ", ply / 2 + 1));
    }
    text.push_str(&write_move(v, p, m));
    text.push(' ');
    v.make(p, m)
}

/// The Fairy-Stockfish games in canonical form, and their plies.
fn fsf_games() -> (String, u64) {
    let v = ravenpost::variants::by_name("grand", &[]).unwrap();
    let mut text = String::new();
    let mut total = 0;
    for line in FSF_GAMES.lines() {
        let mut words = line.split_whitespace();
        let name = words.next().expect("game=N");
        text.push_str(&format!("[Event \"Fairy-Stockfish self-play, {name}\"]\n[Variant \"grand\"]\n\n"));
        let mut p = v.start_position();
        for (ply, uci) in words.filter(|w| !w.contains('=')).enumerate() {
            let m = ravenpost::notation::uci::read_uci(&v, &p, uci)
                .unwrap_or_else(|| panic!("{uci}: not one legal move"));
            p = push_ply(&mut text, &v, &p, &m, ply);
            total += 1;
        }
        text.push_str(v.outcome(&p).map(ravenpost::record::game::result_token).unwrap_or("*"));
        text.push_str("\n\n");
    }
    (text, total)
}

/// Reads and replays every game of `text`: the plies.
fn replay_all(text: &str) -> u64 {
    let mut n = 0;
    for game in GameReader::new(text.as_bytes()) {
        n += replay(game.unwrap()).unwrap().moves.len() as u64;
    }
    n
}

/// A game file held in memory.
struct Text(String);

impl Source for Text {
    fn open(&self, _path: &std::path::Path) -> std::io::Result<Box<dyn std::io::BufRead + '_>> {
        Ok(Box::new(self.0.as_bytes()))
    }
    fn name(&self, path: &std::path::Path) -> String {
        path.display().to_string()
    }
}

/// `validate` of `text` as one file: its games, all valid.
fn validate_all(text: &Text) -> usize {
    let path = std::path::PathBuf::from("bench.pgn");
    let report = validate(text, &[path], &mut |_, _| {}).unwrap();
    assert!(report.problems.is_empty());
    report.valid
}

fn parse_validate(c: &mut Criterion) {
    let (text, moves) = archive();
    let (games, plies) = fsf_games();
    // To time `ravenpost validate` on the same games: RAVENPOST_BENCH_WRITE=DIR writes
    // them there (gygax-200.pgn, grand-fsf-selfplay.pgn, each set once).
    if let Some(dir) = std::env::var_os("RAVENPOST_BENCH_WRITE") {
        let dir = std::path::Path::new(&dir);
        std::fs::write(dir.join("gygax-200.pgn"), &text).unwrap();
        std::fs::write(dir.join("grand-fsf-selfplay.pgn"), &games).unwrap();
    }
    let mut g = c.benchmark_group("parse_validate");
    g.sample_size(10);
    g.throughput(Throughput::Elements(moves));
    g.bench_function("gygax_200_games", |b| b.iter(|| assert_eq!(replay_all(&text), moves)));
    let gygax = Text(text);
    g.bench_function("validate_gygax_200_games", |b| b.iter(|| assert_eq!(validate_all(&gygax), 200)));
    let games = games.repeat(FSF_REPEAT);
    let plies = plies * FSF_REPEAT as u64;
    let count = FSF_GAMES.lines().count() * FSF_REPEAT;
    g.throughput(Throughput::Elements(plies));
    g.bench_function("grand_fsf_selfplay_x40", |b| b.iter(|| assert_eq!(replay_all(&games), plies)));
    let games = Text(games);
    g.bench_function("validate_grand_fsf_selfplay_x40", |b| {
        b.iter(|| assert_eq!(validate_all(&games), count))
    });
    g.finish();
}

criterion_group!(benches, parse_validate);
criterion_main!(benches);
