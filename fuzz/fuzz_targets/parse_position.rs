//! Any text as a Gygax Chess position string or move token: never a panic; a position
//! that reads writes back to a string that reads as the same position (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_position(data));
