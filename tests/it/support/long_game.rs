//! Long legal games for the long-game tests and benchmarks (`tests/it/common` holds it as
//! `common::long_game`; `benches/long_games.rs` and `benches/validate_memory.rs` include
//! this file with `#[path]`).
//!
//! The rules end a game only when the side to move has no legal move (repetitions and
//! the 100-ply rule are draws that must be claimed: `record::claim_basis`), so a game
//! may go on for any number of plies. [`random_game`] plays uniformly chosen legal moves
//! from a fixed seed and never plays a move that leaves the opponent without a legal
//! move, so its games never end and reach any length.
#![allow(dead_code)]

use std::sync::Arc;

use ravenpost::engine::{Move, Position, Variant};
use ravenpost::notation::san::write_move;

/// A splitmix64 generator: a fixed seed gives the same games on every machine.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A game of `plies` legal moves of `variant` from its start position, with the
/// canonical token of each move (written in the position before it).
pub struct LongGame {
    /// The variant.
    pub variant: Arc<Variant>,
    /// The moves, in order.
    pub moves: Vec<Move>,
    /// Their canonical tokens.
    pub tokens: Vec<String>,
    /// The position after the last move.
    pub end: Position,
}

/// Plays `plies` random legal moves of `variant` (a name `variants::by_name` knows) from
/// `seed`; a move after which the opponent has no legal move is never chosen, and when
/// every move of a position leads there the move before it is chosen again (up to
/// [`BACKTRACK`] plies back).
pub fn random_game(variant: &str, plies: usize, seed: u64) -> LongGame {
    let v = ravenpost::variants::by_name(variant, &[]).expect("a built-in variant");
    let mut rng = Rng(seed);
    // For the last plies played: the position before each and the moves not tried there.
    let mut recent: std::collections::VecDeque<(Position, Vec<Move>)> = Default::default();
    let mut moves = Vec::with_capacity(plies);
    let mut tokens = Vec::with_capacity(plies);
    let mut p = v.start_position();
    let mut untried = v.legal_moves(&p);
    while moves.len() < plies {
        if untried.is_empty() {
            // Every move here ends the game: take the last ply back and try another.
            let (before, rest) = recent.pop_back().expect("a line that goes on, a few plies back");
            moves.pop();
            tokens.pop();
            p = before;
            untried = rest;
            continue;
        }
        let m = untried.swap_remove(rng.below(untried.len()));
        let next = v.make(&p, &m);
        if v.outcome(&next).is_some() {
            continue;
        }
        tokens.push(write_move(&v, &p, &m));
        moves.push(m);
        recent.push_back((std::mem::replace(&mut p, next), untried));
        if recent.len() > BACKTRACK {
            recent.pop_front();
        }
        untried = v.legal_moves(&p);
    }
    LongGame { variant: v, moves, tokens, end: p }
}

/// How many plies [`random_game`] may take back.
pub const BACKTRACK: usize = 32;

/// The game file of the moves written as `tokens` (from the start position) in the
/// layout ravenpost writes: the tags, then the movetext in lines of up to 80
/// characters, `*` at the end. `extra` is put after every ply's token (a comment, say;
/// empty for none).
pub fn game_file(tokens: &[String], slug: &str, extra: &str) -> String {
    let mut out = format!(
        "[Event \"long game\"]\n[Site \"?\"]\n[Date \"2026.12.01\"]\n[Round \"?\"]\n[White \"Ann\"]\n\
         [Black \"Bo\"]\n[Result \"*\"]\n[Variant \"{slug}\"]\n[Ruleset \"ravenpost-1\"]\n\n"
    );
    let mut line = String::new();
    let mut push = |word: &str, out: &mut String| {
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    };
    for (i, t) in tokens.iter().enumerate() {
        let word = if i % 2 == 0 { format!("{}. {t}", i / 2 + 1) } else { t.clone() };
        push(&word, &mut out);
        if !extra.is_empty() {
            push(extra, &mut out);
        }
    }
    push("*", &mut out);
    out.push_str(&line);
    out.push('\n');
    out
}

/// A move that only moves a piece (no capture, drop or promotion): one that can be taken
/// back by the piece's move the other way.
fn plain(m: &Move) -> bool {
    m.capture().is_none() && m.promotion().is_none() && m.from().is_some()
}

/// Four plies from `p` back to `p`: one piece of the side to move goes and comes back, and
/// so does one of the other side, with no ply ending the game. Their tokens.
pub fn shuttle(v: &Variant, p: &Position) -> Vec<String> {
    let back = |q: &Position, m: &Move| {
        v.legal_moves(q)
            .into_iter()
            .find(|r| plain(r) && r.from() == Some(m.to()) && Some(r.to()) == m.from())
    };
    for m1 in v.legal_moves(p).into_iter().filter(plain) {
        let p1 = v.make(p, &m1);
        if v.outcome(&p1).is_some() {
            continue;
        }
        for m2 in v.legal_moves(&p1).into_iter().filter(plain) {
            let p2 = v.make(&p1, &m2);
            if v.outcome(&p2).is_some() {
                continue;
            }
            let Some(m3) = back(&p2, &m1) else { continue };
            let p3 = v.make(&p2, &m3);
            if v.outcome(&p3).is_some() {
                continue;
            }
            let Some(m4) = back(&p3, &m2) else { continue };
            let p4 = v.make(&p3, &m4);
            if p4.hash() == p.hash() && v.outcome(&p4).is_none() {
                return vec![
                    write_move(v, p, &m1),
                    write_move(v, &p1, &m2),
                    write_move(v, &p2, &m3),
                    write_move(v, &p3, &m4),
                ];
            }
        }
    }
    panic!("no piece can go back and forth here");
}

/// Writes a one-game file of Grand Chess of at least `bytes` bytes to `path`, as dense as
/// game files get: a random legal opening, then one piece of each side going back and
/// forth ([`shuttle`]) for as long as it takes, the movetext without move numbers (about
/// 4 bytes a ply). Its plies.
pub fn write_dense_game(path: &std::path::Path, bytes: usize) -> usize {
    use std::io::Write;
    let opening = random_game("grand", 200, 0x29);
    let cycle = shuttle(&opening.variant, &opening.end);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("create the game file"));
    let head = game_file(&[], "grand", "");
    let head = head.strip_suffix("*\n").expect("tags, then the result");
    out.write_all(head.as_bytes()).unwrap();
    let (mut written, mut line, mut plies) = (head.len(), 0, 0);
    let mut put = |word: &str, out: &mut std::io::BufWriter<std::fs::File>| {
        if line > 0 && line + 1 + word.len() > 80 {
            out.write_all(b"\n").unwrap();
            written += 1;
            line = 0;
        } else if line > 0 {
            out.write_all(b" ").unwrap();
            written += 1;
            line += 1;
        }
        out.write_all(word.as_bytes()).unwrap();
        written += word.len();
        line += word.len();
        written
    };
    for t in &opening.tokens {
        put(t, &mut out);
        plies += 1;
    }
    while put(&cycle[plies % 4], &mut out) < bytes {
        plies += 1;
    }
    plies += 1;
    // An even number of cycles keeps the side to move as the opening left it: no matter.
    put("*", &mut out);
    out.write_all(b"\n").unwrap();
    out.flush().unwrap();
    plies
}
