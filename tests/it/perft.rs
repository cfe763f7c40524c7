//! Runs every `tests/data/*.perft` file: each expected count must match.

use crate::common;

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

/// The shortcuts SAN writing and the game's end take give the answers of the whole legal
/// move list: `legal_moves_where` is `legal_moves` filtered, and `has_legal_move` says
/// whether that list is empty, in every perft position and along random games from each.
#[test]
fn legal_move_shortcuts_agree_with_the_whole_list() {
    use ravenpost::engine::Move;
    let mut rng = common::rng::Lcg(0x5eed_0f5a);
    let mut positions = 0;
    let mut ended = 0;
    for path in files() {
        for b in read_blocks(&path) {
            let v = b.variant();
            let mut pos = b.position_in(&v);
            for _ in 0..60 {
                let legal = v.legal_moves(&pos);
                assert_eq!(v.has_legal_move(&pos), !legal.is_empty(), "{} {}", path.display(), b.id);
                let mut squares: Vec<_> = legal.iter().map(Move::to).collect();
                squares.dedup();
                for to in squares.into_iter().take(12) {
                    let want: Vec<Move> = legal.iter().copied().filter(|m| m.to() == to).collect();
                    assert_eq!(
                        v.legal_moves_where(&pos, |m| m.to() == to),
                        want,
                        "{} {}",
                        path.display(),
                        b.id
                    );
                }
                positions += 1;
                if legal.is_empty() {
                    ended += 1;
                    break;
                }
                pos = v.make(&pos, &legal[rng.below(legal.len())]);
            }
        }
    }
    assert!(positions > 500, "{positions} positions");
    // Games that ended (mate or stalemate) were among them: the empty list was compared too.
    assert!(ended > 0, "no position without a legal move");
}
