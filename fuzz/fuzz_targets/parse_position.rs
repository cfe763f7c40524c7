//! Any text as a Gygax Chess position string or move token: never a panic; a position
//! that reads writes back to a string that reads as the same position.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::notation::san::read_move;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let v = ravenpost::variants::by_name("gygax", &[]).unwrap();
    if let Ok(p) = parse_position(&v, text) {
        let w = write_position(&v, &p);
        assert_eq!(parse_position(&v, &w).unwrap(), p);
    }
    let _ = read_move(&v, &v.start_position(), text);
});
