//! Move tokens: reading, canonical writing, round trips (notation-spec/moves.md).

use crate::common;

use common::rules::gygax;

use ravenpost::engine::{Move, Position, Variant};
use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::parse_position;
use ravenpost::notation::san::{SanError, read_move, write_move};

fn read(v: &Variant, p: &Position, t: &str) -> Move {
    read_move(v, p, t).unwrap_or_else(|e| panic!("{t}: {e}"))
}

#[test]
fn spec_examples_from_the_start() {
    let v = gygax();
    let p = v.start_position();
    for (token, long) in [
        ("2e3", "W2e2-2e3"),
        ("W2e3", "W2e2-2e3"),
        ("W2e2-2e3", "W2e2-2e3"),
        ("2e2-2e3", "W2e2-2e3"),
        ("Rx3a7", "R3g1x3a7"),
        ("R3a7", "R3g1x3a7"),
        ("R3g1x3a7", "R3g1x3a7"),
        ("S3l3", "S3k2-3l3"),
        ("Rx3a7+", "R3g1x3a7"),
        ("2e3!?", "W2e2-2e3"),
    ] {
        assert_eq!(long_form(&v, &read(&v, &p, token)), long, "{token}");
    }
    assert_eq!(write_move(&v, &p, &read(&v, &p, "W2e2-2e3")), "2e3");
    assert_eq!(write_move(&v, &p, &read(&v, &p, "R3g1x3a7")), "Rx3a7");
}

#[test]
fn every_start_move_writes_a_token_that_reads_back() {
    let v = gygax();
    let p = v.start_position();
    let mut tokens = std::collections::BTreeSet::new();
    for m in v.legal_moves(&p) {
        let t = write_move(&v, &p, &m);
        assert_eq!(read_move(&v, &p, &t), Ok(m), "{t}");
        assert!(tokens.insert(t.clone()), "two moves written {t}");
        // The long form reads as the same move too.
        assert_eq!(read_move(&v, &p, &long_form(&v, &m)), Ok(m));
    }
    assert_eq!(tokens.len(), 90);
}

#[test]
fn disambiguation_is_minimal_and_level_aware() {
    let v = gygax();
    // Two Oliphants on 2a1 and 2a5 can both reach 2a3: file and level cannot tell them
    // apart, so the long form is written.
    let pos = "12/12/12/12/12/12/12/12 7k4/12/12/O11/12/12/12/O2K8 12/12/12/12/12/12/12/12 g 0 1";
    let p = parse_position(&v, pos).unwrap();
    let m = read(&v, &p, "O2a1-2a3");
    assert_eq!(write_move(&v, &p, &m), "O2a1-2a3");
    assert!(matches!(read_move(&v, &p, "O2a3"), Err(SanError::Ambiguous { .. })));
    // Over-disambiguated input is accepted.
    assert_eq!(read(&v, &p, "Oa12a3"), m);
    assert_eq!(read(&v, &p, "O2a12a3"), m);
    // Heroes on 3d5 and 1d3 both reach 2e4: the level tells them apart.
    let pos = "12/12/12/3H8/12/12/12/12 7k4/12/12/12/12/12/12/K11 12/12/12/12/12/3H8/12/12 g 0 1";
    let p = parse_position(&v, pos).unwrap();
    let m = read(&v, &p, "H3d5-2e4");
    assert_eq!(write_move(&v, &p, &m), "H32e4");
    assert_eq!(read(&v, &p, "H32e4"), m);
}

#[test]
fn dragon_capture_without_moving_uses_a_colon() {
    let v = gygax();
    let pos = "12/12/12/5R6/12/12/12/12 7k4/12/5o6/4ooo5/5o6/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let p = parse_position(&v, pos).unwrap();
    let m = read(&v, &p, "R:2f4");
    assert!(matches!(m, Move::Remote { .. }));
    assert_eq!(write_move(&v, &p, &m), "R:2f4");
    assert_eq!(read(&v, &p, "R3f5:2f4"), m);
    match read_move(&v, &p, "Rx2f4") {
        Err(SanError::Illegal { reason, legal }) => {
            assert!(reason.contains("without moving"), "{reason}");
            assert_eq!(legal, vec!["R:2f4".to_string()]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn promotion_is_written_and_may_be_left_out_on_read() {
    let v = gygax();
    let pos = "12/12/12/12/12/12/12/12 7k4/2W9/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let p = parse_position(&v, pos).unwrap();
    let m = read(&v, &p, "2c8");
    assert_eq!(m.promotion().map(|k| v.def().kind(k).code.as_str()), Some("H"));
    assert_eq!(write_move(&v, &p, &m), "2c8=H");
    assert_eq!(read(&v, &p, "2c8=H"), m);
    assert!(read_move(&v, &p, "2c8=M").is_err());
}

#[test]
fn check_and_mate_marks_are_written() {
    let v = gygax();
    // Gold Oliphant 2b2 to 2b8 checks the Scarlet King on 2h8 along rank 8.
    let pos = "12/12/12/12/12/12/12/12 7k4/12/12/12/12/12/1O10/K11 12/12/12/12/12/12/12/12 g 0 1";
    let p = parse_position(&v, pos).unwrap();
    let m = read(&v, &p, "O2b8");
    assert_eq!(write_move(&v, &p, &m), "O2b8+");
}

#[test]
fn illegal_moves_say_why_and_what_is_legal() {
    let v = gygax();
    let p = v.start_position();
    match read_move(&v, &p, "U2c5") {
        Err(SanError::Illegal { reason, legal }) => {
            assert!(reason.contains("no Unicorn of Gold can go to 2c5"), "{reason}");
            assert_eq!(legal, vec!["U2a3", "U2c3", "U2j3", "U2l3"]);
        }
        other => panic!("{other:?}"),
    }
    // A frozen piece.
    let pos = "12/12/12/12/12/12/12/12 7k4/12/12/4O7/12/12/12/K11 12/12/12/4b7/12/12/12/12 g 0 1";
    let fp = parse_position(&v, pos).unwrap();
    match read_move(&v, &fp, "O2e6") {
        Err(SanError::Illegal { reason, .. }) => assert!(reason.contains("frozen"), "{reason}"),
        other => panic!("{other:?}"),
    }
    // Exposing the King.
    let pos = "12/12/12/12/12/12/12/12 7k4/12/12/o11/12/12/O11/K11 12/12/12/12/12/12/12/12 g 0 1";
    let kp = parse_position(&v, pos).unwrap();
    match read_move(&v, &kp, "O2b2") {
        Err(SanError::Illegal { reason, .. }) => assert!(reason.contains("in check"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(read_move(&v, &p, "Z2e3"), Err(SanError::UnknownCode { .. })));
    for bad in [
        "",
        "2e",
        "e3",
        "2e0",
        "2e03",
        "2m3",
        "4e3",
        "W2e2-e3",
        "We3-2e4",
        "x",
        "=",
        "W_",
        "2e3=",
        "2e3ep",
        "U0c6",
        "0c6",
        "02e6",
        "W02e2-2e3",
    ] {
        assert!(read_move(&v, &p, bad).is_err(), "{bad} should be refused");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 48, ..Default::default() })]

    /// Random legal games: each move's canonical token reads back as the same move, and
    /// so does its long form.
    #[test]
    fn random_games_round_trip(choices in proptest::collection::vec(0u32..10_000, 1..70)) {
        let v = gygax();
        let mut p = v.start_position();
        for c in choices {
            let legal = v.legal_moves(&p);
            if legal.is_empty() {
                break;
            }
            let m = legal[c as usize % legal.len()];
            let t = write_move(&v, &p, &m);
            proptest::prop_assert_eq!(read_move(&v, &p, &t), Ok(m), "{}", t);
            proptest::prop_assert_eq!(read_move(&v, &p, &long_form(&v, &m)), Ok(m));
            p = v.make(&p, &m);
        }
    }
}

/// `read_move_written` reads what `read_move` reads and writes what `write_move` writes,
/// from one generation of the moves: every legal move, by its canonical token and by its
/// long form, in the positions of a walk of 60 plies through each game (and each Fidchell
/// and Fantasy Grand setting named below).
#[test]
fn a_move_read_with_its_canonical_token_is_read_and_written_as_alone() {
    use ravenpost::notation::san::read_move_written;
    let mut checked = 0;
    for (name, options) in [
        ("gygax", vec![]),
        ("grand", vec![]),
        ("fidchell", vec![]),
        ("fidchell", vec![("introduction".to_string(), "default".to_string())]),
        ("fantasy-grand", vec![]),
    ] {
        let v = ravenpost::variants::by_name(name, &options).unwrap();
        let mut p = v.start_position();
        for ply in 0..60 {
            let legal = v.legal_moves(&p);
            if legal.is_empty() {
                break;
            }
            for m in &legal {
                let canonical = write_move(&v, &p, m);
                for token in [canonical.clone(), long_form(&v, m)] {
                    let alone = read_move(&v, &p, &token).map(|r| (r, write_move(&v, &p, &r)));
                    assert_eq!(read_move_written(&v, &p, &token), alone, "{name} ply {ply}: {token}");
                    checked += 1;
                }
            }
            // A token that reads as no move gives the same error.
            assert_eq!(
                read_move_written(&v, &p, "Zz99"),
                read_move(&v, &p, "Zz99").map(|m| (m, String::new()))
            );
            p = v.make(&p, &legal[(ply * 7 + 3) % legal.len()]);
        }
    }
    assert!(checked > 10_000, "{checked} tokens");
}

/// `U2d2` at the start was refused with the Unicorn's legal moves but no reason: 2d2
/// holds Gold's own Warrior (a new player's report). The refusal now says so.
#[test]
fn a_move_onto_ones_own_piece_did_not_say_the_square_was_taken() {
    let v = gygax();
    let p = v.start_position();
    match read_move(&v, &p, "U2d2") {
        Err(SanError::Illegal { reason, legal }) => {
            assert_eq!(reason, "no Unicorn of Gold can go to 2d2: 2d2 holds Gold's own Warrior");
            assert_eq!(legal, vec!["U2a3", "U2c3", "U2j3", "U2l3"]);
        }
        other => panic!("{other:?}"),
    }
    // An empty square out of reach keeps the plain reason.
    match read_move(&v, &p, "U2c5") {
        Err(SanError::Illegal { reason, .. }) => assert_eq!(reason, "no Unicorn of Gold can go to 2c5"),
        other => panic!("{other:?}"),
    }
}
