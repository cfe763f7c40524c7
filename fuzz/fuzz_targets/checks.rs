//! What the fuzz targets check, as plain functions: `parse_game.rs` and
//! `parse_position.rs` hand each input to these, and `tests/fuzz_checks.rs` runs them on
//! the corpus and the regressions in every `cargo test`, so that they compile and hold
//! without libFuzzer or a nightly toolchain.

// Each fuzz target uses one of the checks.
#![allow(dead_code)]

use ravenpost::notation::pgn::GameReader;
use ravenpost::notation::position_string::{self, write_position};
use ravenpost::notation::san::read_move;
use ravenpost::record::game::replay;

/// Any bytes as a game file: reading, replaying and writing back never panic, and what
/// is written back reads back to the same text.
pub fn parse_game(data: &[u8]) {
    for game in GameReader::new(data).take(8) {
        let Ok(text) = game else { continue };
        if let Ok(g) = replay(text) {
            let out = g.canonical_text();
            let again = GameReader::new(out.as_bytes()).next().expect("one game").expect("reads");
            let g2 = replay(again).expect("canonical text replays");
            assert_eq!(g2.canonical_text(), out);
        }
    }
}

/// Any text as a Gygax Chess position string or move token: never a panic; a position
/// that reads writes back to a string that reads as the same position.
pub fn parse_position(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    if let Ok(p) = position_string::parse_position(&v, text) {
        let w = write_position(&v, &p);
        assert_eq!(position_string::parse_position(&v, &w).unwrap(), p);
    }
    let _ = read_move(&v, &v.start_position(), text);
}
