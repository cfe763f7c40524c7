//! The real Grand Chess game in `shared/corpus/grand/` (pychess, Fairy-Stockfish letters),
//! replayed from its origin–destination list: every move must match exactly one legal
//! move by origin and destination (promotion-free game), and the final position string
//! written by ravenpost must be the one the corpus README gives.

use crate::common;

use common::rules::variant;

use ravenpost::engine::{Position, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::{parse_position, write_position};

/// The origin–destination list from `shared/corpus/grand/README.md`.
const MOVES: &str = "e3e5 f9e7 g3g4 c8c7 f3f5 g8g7 c3c4 b8b6 d3d5 e7c8 c2e4 f8f7 f2d3 g9c5 d3c5 b6c5 \
h2f4 c8b6 d2c3 d9b7 e4c2 i8i7 b2d3 c9a7 d3c5 b7b8 g2e4 b6i6 f4h2 d8d6 c5d3 i9h7 i2h4 h7g5 e4d2 i6j6 \
d2g5 h8h6 g5e7 a10d10 e5d6 d10d7 c3g7 e9e10 g7j10 e10e9 j10g7 e9e10 e7f8";

/// The final position from the README (Black to move, in check, 2 legal replies).
const FINAL: &str = "4k5/1n5b2/pq2pA3p/b1pr1pQ1p1/3P3p1c/3P1P4/2P3PN2/PP1N3PPP/2B1K2B2/R8R b - - 4 25";

fn play(v: &Variant, pos: &Position, uci: &str) -> Position {
    let d = v.def().dims;
    let split = uci[1..].find(|c: char| c.is_ascii_alphabetic()).expect("two squares") + 1;
    let (from, to) = (d.parse_square(&uci[..split]).unwrap(), d.parse_square(&uci[split..]).unwrap());
    let matching: Vec<_> =
        v.legal_moves(pos).into_iter().filter(|m| m.from() == Some(from) && m.to() == to).collect();
    assert_eq!(
        matching.len(),
        1,
        "{uci}: {:?}",
        matching.iter().map(|m| long_form(v, m)).collect::<Vec<_>>()
    );
    v.make(pos, &matching[0])
}

#[test]
fn pychess_game_replays_to_the_readme_position() {
    let v = variant("grand", &[]);
    let mut pos = v.start_position();
    for uci in MOVES.split_whitespace() {
        pos = play(&v, &pos, uci);
    }
    assert_eq!(write_position(&v, &pos), FINAL);
    assert!(v.in_check(&pos));
    assert_eq!(v.legal_moves(&pos).len(), 2);
    // And the README's string reads back to the same position.
    assert_eq!(parse_position(&v, FINAL).unwrap(), pos);
}
