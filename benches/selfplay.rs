//! Self-play: the search against its previous version, in-process, for Gygax Chess,
//! Fidchell and Fantasy Grand Chess pairings (issue 35).
//!
//! Version A is the current search ([`Limits::pruning`] on: null-move pruning and
//! late-move reductions); version B is the same search with them off, as it was before
//! them. Each opening is the variant's start position and a few random legal plies
//! (from a fixed seed, so the games differ and every run plays the same ones), played
//! twice with the colours reversed: a game pair. Each move is a search of a fixed node
//! budget with a fresh transposition table and the game's earlier positions for
//! repetition. The game ends as the referee sees it: the rules' own end (checkmate,
//! stalemate, the variant's endings) on the record, a draw the side to move may claim
//! ([`record::claim_basis`]: threefold repetition, 100 plies), or a draw at the ply cap.
//!
//! Per variant it prints A's wins, draws and losses, its score, the pentanomial Elo
//! with its 95% interval and the SPRT's log-likelihood ratio for H0 = 0, H1 = 10 Elo
//! with its bounds (α = β = 0.05), all from `ravenpost match`'s [`MatchScore`].
//!
//! ```sh
//! SELFPLAY_GAMES=100 SELFPLAY_NODES=3000 cargo bench --bench selfplay
//! ```
//!
//! Settings (environment): `SELFPLAY_GAMES` games a variant (rounded up to pairs,
//! default 30), `SELFPLAY_NODES` nodes a move (default 2,000), `SELFPLAY_VARIANTS` the
//! variants, comma-separated, a Fantasy Grand pairing as `fantasy-grand:WHITE:BLACK`
//! (default `gygax,fidchell,fantasy-grand:humans:evil-horde,fantasy-grand:elves:giants`),
//! `SELFPLAY_PLIES` random opening plies (default 4), `SELFPLAY_MAX_PLIES` the ply cap
//! (default 300), `SELFPLAY_SEED` the openings' seed (default 35). With the defaults the
//! run takes about eight minutes on one core (a Gygax game 4 s, a Fidchell game 8 s).

use std::sync::Arc;
use std::time::Instant;

use ravenpost::engine::{Outcome, Position, Side, Variant};
use ravenpost::notation::san::write_move;
use ravenpost::record::game::Game;
use ravenpost::record::{self, Play};
use ravenpost::search::{Limits, search};
use ravenpost::usecases::{MatchScore, sprt_bounds};

/// Settings from the environment.
struct Settings {
    games: usize,
    nodes: u64,
    variants: Vec<String>,
    plies: usize,
    max_plies: usize,
    seed: u64,
}

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

impl Settings {
    fn read() -> Settings {
        let variants = env(
            "SELFPLAY_VARIANTS",
            "gygax,fidchell,fantasy-grand:humans:evil-horde,fantasy-grand:elves:giants".to_string(),
        );
        Settings {
            games: env("SELFPLAY_GAMES", 30usize).max(2),
            nodes: env("SELFPLAY_NODES", 2_000u64),
            variants: variants.split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect(),
            plies: env("SELFPLAY_PLIES", 4usize),
            max_plies: env("SELFPLAY_MAX_PLIES", 300usize),
            seed: env("SELFPLAY_SEED", 35u64),
        }
    }
}

/// A small deterministic generator (SplitMix64) for the openings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The tags of a new game of `spec` (`name` or `fantasy-grand:WHITE:BLACK`).
fn tags(spec: &str) -> Vec<(String, String)> {
    let mut parts = spec.split(':');
    let name = parts.next().unwrap_or(spec);
    let mut tags = vec![
        ("Event".to_string(), "selfplay".to_string()),
        ("Site".to_string(), "?".to_string()),
        ("White".to_string(), "?".to_string()),
        ("Black".to_string(), "?".to_string()),
        ("Result".to_string(), "*".to_string()),
        ("Variant".to_string(), name.to_string()),
    ];
    for tag in ["WhiteArmy", "BlackArmy"] {
        if let Some(army) = parts.next() {
            tags.push((tag.to_string(), army.to_string()));
        }
    }
    tags
}

/// The game after `m` (written in SAN and played on the record, as a referee would).
fn play(game: &Game, pos: &Position, m: &ravenpost::engine::Move) -> Game {
    let san = write_move(&game.variant, pos, m);
    record::play(game, &san, Play { unwritten: true, ..Play::default() })
        .unwrap_or_else(|e| panic!("{san}: {e}"))
        .1
}

/// An opening: `plies` random legal plies from the start, the game not over after them.
fn opening(spec: &str, plies: usize, rng: &mut Rng) -> Game {
    let start =
        record::load(&record::game_text_from_tags(&tags(spec))).unwrap_or_else(|e| panic!("{spec}: {e}"));
    'again: loop {
        let mut game = start.clone();
        for _ in 0..plies {
            let pos = game.position();
            let moves = game.variant.legal_moves(&pos);
            if moves.is_empty() || game.outcome.is_some() {
                continue 'again;
            }
            game = play(&game, &pos, &moves[rng.below(moves.len())]);
        }
        if game.outcome.is_none() && record::claim_basis(&game).is_err() {
            return game;
        }
    }
}

/// White's points (1, 0.5, 0) when the game is over by the referee's rules or the cap.
fn end(game: &Game, max_plies: usize) -> Option<f64> {
    match game.outcome {
        Some(Outcome::Win { winner, .. }) => return Some(if winner == Side::White { 1.0 } else { 0.0 }),
        Some(Outcome::Draw { .. }) => return Some(0.5),
        None => {}
    }
    if record::claim_basis(game).is_ok() || game.moves.len() >= max_plies {
        return Some(0.5);
    }
    None
}

/// Plays `opening` out, A (pruning) as White when `a_white`; A's points and the plies.
fn play_game(opening: &Game, a_white: bool, s: &Settings) -> (f64, usize) {
    let v: Arc<Variant> = opening.variant.clone();
    let mut game = opening.clone();
    let mut pos = game.start.clone();
    let mut history = Vec::new();
    for m in &game.moves {
        history.push(pos.hash());
        pos = v.make(&pos, m);
    }
    loop {
        if let Some(white_points) = end(&game, s.max_plies) {
            let a = if a_white { white_points } else { 1.0 - white_points };
            return (a, game.moves.len());
        }
        let a_to_move = (pos.side_to_move() == Side::White) == a_white;
        let limits = Limits { nodes: Some(s.nodes), pruning: a_to_move, ..Limits::default() };
        let report = search(&v, &pos, &history, &limits);
        let m = report.lines.first().and_then(|l| l.moves.first()).copied().expect("a move when not over");
        game = play(&game, &pos, &m);
        history.push(pos.hash());
        pos = v.make(&pos, &m);
    }
}

/// Plays `s.games` games (in pairs) of `spec`; prints and returns A's score.
fn run_variant(spec: &str, s: &Settings) -> MatchScore {
    let mut rng = Rng(s.seed ^ spec.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))));
    let mut score = MatchScore::default();
    let (started, mut plies) = (Instant::now(), 0usize);
    for _ in 0..s.games.div_ceil(2) {
        let o = opening(spec, s.plies, &mut rng);
        let mut pair = 0.0;
        for a_white in [true, false] {
            let (points, n) = play_game(&o, a_white, s);
            plies += n;
            pair += points;
            match points {
                p if p > 0.75 => score.wins += 1,
                p if p < 0.25 => score.losses += 1,
                _ => score.draws += 1,
            }
        }
        score.pairs[(pair * 2.0).round() as usize] += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    print_row(spec, &score, plies, secs);
    score
}

/// One variant's line of the table.
fn print_row(spec: &str, score: &MatchScore, plies: usize, secs: f64) {
    let n = score.games();
    let elo = match score.elo() {
        Some(e) => format!("{:+.1} [{:+.1}, {:+.1}]", e.elo, e.low, e.high),
        None => "-".to_string(),
    };
    let (low, high) = sprt_bounds();
    let llr = score.llr(0.0, 10.0);
    let verdict = if llr >= high {
        "H1 (A stronger)"
    } else if llr <= low {
        "H0 (not +10)"
    } else {
        "no verdict"
    };
    println!(
        "{spec:<32} {n:>5} {:>4} {:>4} {:>4} {:>6.1}% {elo:>28} {llr:>6.2} {verdict:<15} {:?} {:>6.1} {:>6.2}",
        score.wins,
        score.draws,
        score.losses,
        100.0 * score.score(),
        score.pairs,
        plies as f64 / n as f64,
        secs / n as f64,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is read from the command line.
    let s = Settings::read();
    let (low, high) = sprt_bounds();
    println!(
        "selfplay: A = search with null-move pruning and late-move reductions, B = without; \
         {} nodes a move, {} random opening plies (seed {}), cap {} plies; SPRT H0 0 / H1 10 Elo, \
         bounds [{low:.2}, {high:.2}]",
        s.nodes, s.plies, s.seed, s.max_plies
    );
    println!(
        "{:<32} {:>5} {:>4} {:>4} {:>4} {:>7} {:>28} {:>6} {:<15} pairs 0..2 {:>6} {:>6}",
        "variant",
        "games",
        "W",
        "D",
        "L",
        "score",
        "Elo (95%, pentanomial)",
        "LLR",
        "verdict",
        "plies",
        "s/game"
    );
    for spec in &s.variants {
        run_variant(spec, &s);
    }
}
