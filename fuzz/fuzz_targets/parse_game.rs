//! Any bytes as a game file: reading, replaying, and writing back must never panic, and
//! what is written back must read back to the same text (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_game(data));
