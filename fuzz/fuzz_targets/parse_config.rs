//! Any text as `ravenpost.yaml`: never a panic; the settings written back read as the
//! same settings (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_config(data));
