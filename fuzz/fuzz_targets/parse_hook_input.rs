//! Any text as the pre-receive hook's input lines: never a panic; each update written
//! back reads as the same update (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_hook_input(data));
