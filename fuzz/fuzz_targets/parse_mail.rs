//! Any bytes as a mail message or mbox file: never a panic; the game carried, mailed
//! again, reads back as the same game (see `checks.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "checks.rs"]
mod checks;

fuzz_target!(|data: &[u8]| checks::parse_mail(data));
