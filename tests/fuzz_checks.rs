//! The fuzz targets' checks (`fuzz/fuzz_targets/checks.rs`, compiled here as a module)
//! run on their corpus, on every recorded regression and on the positions of the perft
//! files: the fuzz code cannot rot unseen, and what it checks holds for these inputs.

mod common;

#[path = "../fuzz/fuzz_targets/checks.rs"]
mod checks;

use common::perft::{files, read_blocks};

fn files_in(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{dir}: {e}")).map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

#[test]
fn parse_game_holds_on_the_corpus_and_the_regressions() {
    let inputs: Vec<_> = files_in("fuzz/corpus/parse_game")
        .into_iter()
        .chain(files_in("tests/data/fuzz-regressions"))
        .collect();
    assert!(inputs.len() >= 3, "{inputs:?}");
    for path in inputs {
        checks::parse_game(&std::fs::read(&path).unwrap());
    }
    // Every game of the repository's own games/ folder too.
    for entry in files_in("games") {
        if entry.is_dir() {
            for f in files_in(entry.to_str().unwrap()) {
                checks::parse_game(&std::fs::read(&f).unwrap());
            }
        }
    }
}

#[test]
fn parse_position_holds_on_the_perft_positions_and_their_prefixes() {
    let mut n = 0;
    for path in files() {
        for b in read_blocks(&path) {
            let text = if b.position == "start" { String::new() } else { b.position.clone() };
            for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
                checks::parse_position(&text.as_bytes()[..end]);
                n += 1;
            }
        }
    }
    assert!(n > 100, "{n}");
    checks::parse_position(b"\xff\xfe not UTF-8");
}
