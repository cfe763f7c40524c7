//! Any text as a `TimeControl` value: never a panic; the canonical form reads back as
//! the same value (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_time_control(data));
