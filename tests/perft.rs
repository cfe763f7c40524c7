//! Runs every `tests/data/*.perft` file: each expected count must match.

mod common;

use common::perft::{files, read_blocks};

#[test]
fn perft_files() {
    let mut checked = 0;
    let files = files();
    assert!(!files.is_empty());
    for path in files {
        for b in read_blocks(&path) {
            let v = b.variant();
            let pos = b.position_in(&v);
            for (d, nodes) in &b.expect {
                assert_eq!(v.perft(&pos, *d), *nodes, "{} {} depth {d}", path.display(), b.id);
                checked += 1;
            }
        }
    }
    assert!(checked >= 3);
}
