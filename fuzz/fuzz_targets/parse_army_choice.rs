//! Any text as an army choice file (a NUL byte separates the version before): never a
//! panic; the file written back reads as the same choice (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_army_choice(data));
