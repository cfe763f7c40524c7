//! Any bytes given to `mail import` of a real archive: never a panic; a refused message
//! leaves no trace (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::mail_import(data));
