//! A move token is read from its square backwards (issue 31, item 5): only the pieces of
//! the kinds it may name that could reach its square have their moves onto it generated
//! (`Variant::pseudo_legal_moves_to`), and only those moves are tested for legality. These
//! tests hold it to the answers of the path it replaced, generating every legal move and
//! comparing (`san::read_among` with `Variant::legal_moves`), token by token:
//!
//! - on every ply of the corpus games (the game files of `games/`, the pychess game of
//!   `shared/corpus/grand/`, and every fourth of the 320 Fairy-Stockfish self-play games
//!   of the `parse_validate` benchmark, about 11,000 plies), for every move onto the
//!   square of the move played;
//! - in the positions of pseudo-random games of every built-in variant and option
//!   (Gygax Chess with both Sylph returns, Grand Chess, both Fidchell starts, each Fantasy
//!   Grand army on each side) and of the user definitions of `tests/data/variants/`, for
//!   every legal move.
//!
//! Each move is written in every spelling a player might use: each code the kind is read
//! by (and none for a letterless kind), with no origin, each partial origin and the full
//! one, with and without `x`, the long form's `-`, with and without `ep` and a promotion
//! that may be left out, `x` for a capture without moving, check marks right or wrong;
//! and every code of the side's table onto the square, most of them refused. The answer
//! (the move, or the same error: ambiguity with its candidates, the reason and the legal
//! moves named) must be the same, and so must `read_move_written`'s token. Beside that,
//! the generation itself is compared: the pseudo-legal and legal moves onto each square
//! are the full lists filtered, in the same order, and each pseudo-legal move is judged
//! legal exactly when the full legal list holds it.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

use common::rng::Lcg;

use ravenpost::engine::{Move, PieceKind, Position, Square, Variant};
use ravenpost::notation::pgn::read_games;
use ravenpost::notation::san::{read_among, read_move, read_move_written, write_move};
use ravenpost::record::game::replay;
use ravenpost::variants::{by_name, load_definition};

/// The origins a player might give for a piece on `from`: none, each partial origin, the
/// full square.
fn origins(v: &Variant, from: Square) -> Vec<String> {
    let l = from.level().number().to_string();
    let f = from.file().char().to_string();
    let r = from.rank().number().to_string();
    if v.def().dims.levels() > 1 {
        vec![String::new(), f.clone(), l.clone(), format!("{f}{r}"), format!("{l}{f}"), format!("{l}{f}{r}")]
    } else {
        vec![String::new(), f.clone(), r.clone(), format!("{f}{r}")]
    }
}

/// The codes a kind may be written with: its code, its other read codes, and none when
/// it is letterless.
fn codes(v: &Variant, k: PieceKind) -> Vec<String> {
    let kind = v.def().kind(k);
    let mut out = vec![kind.code.clone()];
    out.extend(kind.read_codes.iter().cloned());
    if kind.letterless {
        out.push(String::new());
    }
    out
}

/// Every spelling of the ordinary-shaped move of `piece` from `from` to `to`, with each
/// of `suffixes` after the destination.
fn ordinary(v: &Variant, piece: PieceKind, from: Square, to: Square, suffixes: &[String]) -> Vec<String> {
    let d = v.def().dims;
    let full = d.name(from);
    let dest = d.name(to);
    let mut out = Vec::new();
    for c in codes(v, piece) {
        for o in origins(v, from) {
            let seps: &[&str] = if o == full { &["", "x", "-"] } else { &["", "x"] };
            for sep in seps {
                for s in suffixes {
                    out.push(format!("{c}{o}{sep}{dest}{s}"));
                }
            }
        }
    }
    out
}

/// The promotion suffixes of a move: `=X` and nothing (which reads only where the choice
/// is single and compulsory).
fn promotions(v: &Variant, promotion: Option<PieceKind>) -> Vec<String> {
    match promotion {
        Some(k) => vec![format!("={}", v.def().kind(k).code), String::new()],
        None => vec![String::new()],
    }
}

/// The spellings of `m` (legal in `pos`) a player might write, right or wrong.
fn spellings(v: &Variant, pos: &Position, m: &Move) -> Vec<String> {
    let d = v.def().dims;
    let canonical = write_move(v, pos, m);
    let bare = canonical.trim_end_matches(['+', '#']).to_string();
    let mut out = vec![format!("{bare}+"), bare, canonical];
    match *m {
        Move::Normal { piece, from, to, promotion, .. } => {
            out.extend(ordinary(v, piece, from, to, &promotions(v, promotion)));
        }
        Move::EnPassant { piece, from, to, promotion, .. } => {
            let suffixes: Vec<String> =
                promotions(v, promotion).iter().flat_map(|p| [p.clone(), format!("ep{p}")]).collect();
            out.extend(ordinary(v, piece, from, to, &suffixes));
        }
        Move::Removal { piece, from, to, target, .. } => {
            let t = d.name(target);
            out.extend(ordinary(v, piece, from, to, &[format!("=x{t}"), format!("ep=x{t}")]));
        }
        Move::Remote { piece, from, target, .. } => {
            let t = d.name(target);
            for c in codes(v, piece) {
                for o in origins(v, from) {
                    out.push(format!("{c}{o}:{t}"));
                    out.push(format!("{c}{o}x{t}"));
                }
            }
        }
        Move::Drop { piece, to } | Move::Replace { piece, to, .. } => {
            for c in codes(v, piece) {
                out.push(format!("{c}_{}", d.name(to)));
            }
        }
        Move::Castle { from, to, piece, .. } => {
            out.push(out[2].replace('O', "0"));
            // The king's step to its castling square is another move (or none).
            out.extend(ordinary(v, piece, from, to, &[String::new()]));
        }
    }
    out
}

/// Tokens of every code of the side to move's table onto `to`: most name no legal move.
fn every_code_onto(v: &Variant, pos: &Position, to: Square) -> Vec<String> {
    let side = pos.side_to_move();
    let dest = v.def().dims.name(to);
    let mut out = Vec::new();
    for (i, kind) in v.def().kinds.iter().enumerate() {
        if kind.owned_by(side) {
            for c in codes(v, PieceKind::new(i as u8)) {
                out.push(format!("{c}{dest}"));
            }
        }
    }
    out
}

/// Reads each of `tokens` in `pos` from its square and by comparing with every legal move
/// (`legal`); both answers must be the same, and `read_move_written` must give the move
/// and its canonical token. Returns how many distinct tokens were read.
fn same_answers(v: &Variant, pos: &Position, legal: &[Move], tokens: Vec<String>, at: &str) -> usize {
    let mut seen = HashSet::new();
    for token in tokens {
        if !seen.insert(token.clone()) {
            continue;
        }
        let generated = read_among(v, pos, legal, &token);
        assert_eq!(read_move(v, pos, &token), generated, "{at}: {token}");
        let written = generated.clone().map(|m| (m, write_move(v, pos, &m)));
        assert_eq!(read_move_written(v, pos, &token), written, "{at}: {token} (written)");
    }
    seen.len()
}

/// The generation the backwards reading rests on, onto each square of `squares`: the
/// pseudo-legal moves onto it (of every kind, and of each kind alone) and the legal moves
/// onto it are the full lists filtered, in order; and each pseudo-legal move is judged
/// legal exactly when the full legal list holds it. Returns the legal moves.
fn same_generation(v: &Variant, pos: &Position, squares: &[Square], at: &str) -> Vec<Move> {
    let mut pseudo = Vec::new();
    v.pseudo_legal_moves(pos, &mut pseudo);
    let legal = v.legal_moves(pos);
    for m in &pseudo {
        assert_eq!(v.is_legal_pseudo(pos, m), legal.contains(m), "{at}: {m:?}");
    }
    let kinds = v.def().kinds.len();
    let masks = std::iter::once(u64::MAX).chain((0..kinds).map(|k| 1u64 << k));
    let masks: Vec<u64> = masks.collect();
    for &to in squares {
        for &mask in &masks {
            let mut onto = Vec::new();
            v.pseudo_legal_moves_to(pos, to, mask, &mut onto);
            let filtered: Vec<Move> = pseudo
                .iter()
                .copied()
                .filter(|m| m.to() == to && mask & (1 << m.piece().index()) != 0)
                .collect();
            assert_eq!(
                onto,
                filtered,
                "{at}: pseudo-legal moves onto {} of kinds {mask:#x}",
                v.def().dims.name(to)
            );
        }
        let filtered: Vec<Move> = legal.iter().copied().filter(|m| m.to() == to).collect();
        assert_eq!(v.legal_moves_to(pos, to), filtered, "{at}: legal moves onto {}", v.def().dims.name(to));
    }
    legal
}

/// Checks ply `ply` of a game (`pos`, where `played` was played): the generation onto its
/// square, and every spelling of every legal move onto it.
fn check_ply(v: &Variant, pos: &Position, played: &Move, at: &str) -> usize {
    let legal = same_generation(v, pos, &[played.to()], at);
    assert!(legal.contains(played), "{at}: {played:?} is not legal");
    let mut tokens = every_code_onto(v, pos, played.to());
    for m in legal.iter().filter(|m| m.to() == played.to()) {
        tokens.extend(spellings(v, pos, m));
    }
    same_answers(v, pos, &legal, tokens, at)
}

#[test]
fn reading_from_the_square_answers_as_every_move_generated_on_the_corpus_games() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in std::fs::read_dir("games").unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            files.push(f.unwrap().path());
        }
    }
    files.sort();
    files.push(Path::new("../shared/corpus/grand/pychess-2024-12-26.pgn").to_path_buf());
    let (mut plies, mut tokens) = (0, 0);
    let mut variants = HashSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for game in read_games(&text) {
            let g = replay(game.unwrap()).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
            variants.insert(g.variant.def().slug.clone());
            for (ply, m) in g.moves.iter().enumerate() {
                let at = format!("{} ply {}", file.display(), ply + 1);
                tokens += check_ply(&g.variant, &g.position_at(ply), m, &at);
                plies += 1;
            }
        }
    }
    assert_eq!(variants.len(), 4, "{variants:?}");
    // The Fairy-Stockfish self-play games of the parse_validate benchmark, from UCI moves.
    let v = by_name("grand", &[]).unwrap();
    let games = std::fs::read_to_string("benches/data/grand-fsf-selfplay/games.txt").unwrap();
    for line in games.lines().step_by(4) {
        let mut words = line.split_whitespace();
        let name = words.next().expect("game=N");
        let mut p = v.start_position();
        for (ply, uci) in words.filter(|w| !w.contains('=')).enumerate() {
            let m = ravenpost::notation::uci::read_uci(&v, &p, uci)
                .unwrap_or_else(|| panic!("{uci}: not one legal move"));
            tokens += check_ply(&v, &p, &m, &format!("self-play {name} ply {}", ply + 1));
            p = v.make(&p, &m);
            plies += 1;
        }
    }
    assert!(plies > 10_000, "{plies} plies");
    assert!(tokens > plies * 20, "{tokens} tokens");
}

/// Plays `plies` pseudo-random legal moves of `v` from its start, checking every legal
/// move's spellings and the generation onto every square at each ply. Returns the tokens.
fn random_game(v: &Variant, name: &str, seed: u64, plies: usize) -> usize {
    walk(v, name, v.start_position(), seed, plies)
}

/// [`random_game`] from `start`.
fn walk(v: &Variant, name: &str, start: Position, seed: u64, plies: usize) -> usize {
    let mut rng = Lcg(seed);
    let squares: Vec<Square> = v.def().dims.squares().collect();
    let mut p = start;
    let mut tokens = 0;
    for ply in 0..plies {
        let at = format!("{name} (seed {seed}) ply {}", ply + 1);
        let legal = same_generation(v, &p, &squares, &at);
        if legal.is_empty() {
            break;
        }
        let mut texts = Vec::new();
        let mut onto = HashSet::new();
        for m in &legal {
            texts.extend(spellings(v, &p, m));
            if onto.insert(m.to()) {
                texts.extend(every_code_onto(v, &p, m.to()));
            }
        }
        tokens += same_answers(v, &p, &legal, texts, &at);
        p = v.make(&p, &legal[rng.below(legal.len())]);
    }
    tokens
}

#[test]
fn reading_from_the_square_answers_as_every_move_generated_in_random_games() {
    let o = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    let mut settings = vec![
        ("gygax", o(&[])),
        ("gygax", o(&[("sylph-return", "above")])),
        ("grand", o(&[])),
        ("fidchell", o(&[])),
        ("fidchell", o(&[("introduction", "default")])),
    ];
    // Each army on each side once.
    let armies = ravenpost::variants::ARMIES;
    for (i, white) in armies.iter().enumerate() {
        let black = armies[(i + 1) % armies.len()];
        settings.push((
            "fantasy-grand",
            o(&[("army-white", white), ("army-black", black), ("druid", "allowed")]),
        ));
    }
    let mut tokens = 0;
    for (seed, (name, options)) in settings.iter().enumerate() {
        let v = by_name(name, options).unwrap_or_else(|e| panic!("{name} {options:?}: {e}"));
        let name = format!("{name} {options:?}");
        tokens += random_game(&v, &name, 31 + seed as u64, 40);
    }
    // The user definitions of the variant file tests (one of two levels).
    for file in ["shatranj.md", "makruk.md", "losalamos.md", "gardner.md", "loft.md"] {
        let text = std::fs::read_to_string(Path::new("tests/data/variants").join(file)).unwrap();
        let v = load_definition(&text).unwrap().variant(&[]).unwrap();
        tokens += random_game(&v, file, 7, 40);
    }
    assert!(tokens > 500_000, "{tokens} tokens");
}

/// Freezing, which random games seldom reach: the Gygax rule probes' positions of a
/// Basilisk below an enemy piece (frozen pieces have no moves onto any square, and give
/// no check), walked a few plies each way.
#[test]
fn reading_from_the_square_answers_as_every_move_generated_around_a_basilisk() {
    let v = common::rules::gygax();
    let mut tokens = 0;
    for (i, text) in [
        "12/12/12/12/12/12/12/12 7k4/12/12/4O7/12/12/12/K11 12/12/12/4b7/12/12/12/12 g 0 1",
        "12/12/12/12/12/12/12/12 7k4/12/12/o11/12/12/12/K11 12/12/12/B11/12/12/12/12 g 0 1",
        "12/12/12/12/12/12/12/12 7k4/12/12/4o7/12/12/12/K11 12/12/12/4B7/12/12/12/12 s 0 1",
        "12/12/12/12/12/12/12/12 7k4/12/12/4o7/12/12/12/K11 12/12/12/4B7/12/12/12/12 g 0 1",
        "12/12/12/12/12/12/12/12 7k4/12/12/12/12/12/12/K11 7B4/12/12/12/12/12/12/12 s 0 1",
    ]
    .into_iter()
    .enumerate()
    {
        let start = common::rules::pos(&v, text);
        for seed in 0..3 {
            tokens += walk(&v, text, start.clone(), 100 * i as u64 + seed, 6);
        }
    }
    assert!(tokens > 1_000, "{tokens} tokens");
}
