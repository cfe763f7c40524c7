//! A move token in a position reached by legal moves the input chooses: never a
//! panic; a token that reads is a legal move whose SAN reads back as it (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_move(data));
