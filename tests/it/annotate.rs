//! `ravenpost annotate` (issue 35): a move that throws away a mate in 1 for a stalemate
//! (a draw) or for a mate in 1 against its player is a blunder. The positions are the
//! tactics suite's mates in 1 (each checked with the engine's legal-move generator, see
//! `search_tactics.rs`); the blunder is found the same way, independently of the search:
//! a move after which the opponent has no legal move and the rules say draw, or has a move
//! that wins at once.

use crate::common;

use common::{ok, text};
use ravenpost::engine::{Move, Outcome, Position, Side, Variant};
use ravenpost::notation::san::write_move;

use crate::search_tactics::{load, mate_in_one, wins_at_once};

/// The first mate-in-1 position of the suite (Gygax Chess, Fidchell, then Grand Chess)
/// with a move that stalemates the opponent or allows it a mate in 1: (variant, position,
/// position string, that move, whether it stalemates).
fn blunder() -> (std::sync::Arc<Variant>, Position, String, Move, bool) {
    for family in ["gygax", "fidchell", "grand"] {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/tactics/{family}.txt"));
        let suite = std::fs::read_to_string(path).unwrap();
        for line in suite.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split('\t').collect();
            if f[1] != "mate1" || f[0] != family {
                continue;
            }
            let (v, pos) = load(f[0], &[], f[2]);
            for m in v.legal_moves(&pos) {
                let next = v.make(&pos, &m);
                let draws =
                    v.legal_moves(&next).is_empty() && matches!(v.outcome(&next), Some(Outcome::Draw { .. }));
                if !wins_at_once(&v, &pos, &m) && (mate_in_one(&v, &next).is_some() || draws) {
                    return (v, pos, f[2].to_string(), m, draws);
                }
            }
        }
    }
    panic!("no mate-in-1 position of the suite lets the mover stalemate or allow a mate in 1");
}

#[test]
fn a_move_that_misses_a_mate_for_a_stalemate_or_a_mate_is_a_blunder() {
    let (v, pos, fen, m, draws) = blunder();
    let san = write_move(&v, &pos, &m);
    let mover_sign = if pos.side_to_move() == Side::White { 1 } else { -1 };
    let t = tempfile::tempdir().unwrap();
    let home = common::identity(&t.path().join("home"), "Ann", "ann@example.com");
    let game = t.path().join("blunder.pgn");
    let number = pos.fullmove_number();
    let movetext = if pos.side_to_move() == Side::White {
        format!("{number}. {san}")
    } else {
        format!("{number}... {san}")
    };
    std::fs::write(
        &game,
        format!(
            "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Variant \"{variant}\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n{movetext} {result}\n",
            result = if draws { "1/2-1/2" } else { "*" },
            variant = v.def().slug
        ),
    )
    .unwrap();
    let json = ok(t.path(), &home, &["annotate", game.to_str().unwrap(), "--nodes", "20000", "--json"]);
    let a: serde_json::Value = serde_json::from_str(&json).unwrap();
    let ply = &a["plies"][0];
    assert_eq!(ply["san"], san.as_str(), "{json}");
    // Before: the mover mates in 1 (+1000 for the mover); after: a draw (0), or it is
    // mated in 1 (-1000).
    assert_eq!(ply["before"].as_i64(), Some(1000 * mover_sign), "{json}");
    let after = if draws { 0 } else { -1000 * mover_sign };
    assert_eq!(ply["after"].as_i64(), Some(after), "{json}");
    assert_eq!(ply["judgement"], "blunder", "{json}");
    // The best move is a mate in 1, by the rules.
    let best = ply["best"].as_str().unwrap();
    let mate = v.legal_moves(&pos).into_iter().find(|x| write_move(&v, &pos, x) == best).unwrap();
    assert!(wins_at_once(&v, &pos, &mate), "{best} mates");
    // The annotated record: the mark, the comment, the best line as a variation; it
    // reads back as a valid game.
    let record = a["record"].as_str().unwrap();
    assert!(record.contains(&format!("{san} $4")), "{record}");
    // Who annotated it, in the PGN standard's tag (as lichess names itself).
    let annotator = format!("[Annotator \"ravenpost {}\"]", env!("CARGO_PKG_VERSION"));
    assert!(record.contains(&annotator), "{record}");
    assert!(record.contains(&format!("Blunder. {best} was best.")), "{record}");
    assert!(record.contains(&format!("({}", movetext.replace(&san, best))), "{record}");
    let out = t.path().join("annotated.pgn");
    let said = ok(
        t.path(),
        &home,
        &["annotate", game.to_str().unwrap(), "--nodes", "20000", "-o", out.to_str().unwrap()],
    );
    let (who, side) =
        if pos.side_to_move() == Side::White { ("Ann", Side::White) } else { ("Bo", Side::Black) };
    let line = format!("{who} ({}): 0 inaccuracies, 0 mistakes, 1 blunder, ", v.def().side_name(side));
    assert!(said.contains(&line), "{line} in {said}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), record);
    let valid = ok(t.path(), &home, &["validate", out.to_str().unwrap()]);
    assert!(valid.contains("1 valid, 0 problems"), "{valid}");
    // The game file itself is unchanged, and an existing output is refused.
    assert!(std::fs::read_to_string(&game).unwrap().contains(&format!("\n\n{movetext} ")));
    let o = common::run(t.path(), &home, &["annotate", game.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("the file exists; give a new name"), "{}", text(&o));
}
