//! Any bytes as a game file: reading, replaying, and writing back must never panic, and
//! what is written back must read back to the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ravenpost::record::game::replay;
use ravenpost::notation::pgn::GameReader;

fuzz_target!(|data: &[u8]| {
    for game in GameReader::new(data).take(8) {
        let Ok(text) = game else { continue };
        if let Ok(g) = replay(text) {
            let out = g.canonical_text();
            let again = GameReader::new(out.as_bytes()).next().expect("one game").expect("reads");
            let g2 = replay(again).expect("canonical text replays");
            assert_eq!(g2.canonical_text(), out);
        }
    }
});
