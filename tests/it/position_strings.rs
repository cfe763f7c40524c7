//! Position strings and variant definitions: reading, writing, errors with columns.

use crate::common;

use common::rules::{gygax, variant};

use ravenpost::notation::position_string::{parse_position, write_position};
use ravenpost::variants::{build, read_definition};

const START: &str = "2g3r3g1/s1s1s1s1s1s1/12/12/12/12/S1S1S1S1S1S1/2G3R3G1 \
ouhtcmkpthuo/wwwwwwwwwwww/12/12/12/12/WWWWWWWWWWWW/OUHTCMKPTHUO \
2b3e3b1/1d1d1d1d1d1d/12/12/12/12/1D1D1D1D1D1D/2B3E3B1 g 0 1";

#[test]
fn the_seed_file_as_it_is_gives_the_built_in_start_position() {
    let seed = std::fs::read_to_string("../shared/seeds/gygax-chess.md").expect("shared/ beside the repo");
    let def = read_definition(&seed).expect("the seed loads as written");
    let from_seed = build(def, &[]).unwrap();
    let built_in = gygax();
    assert_eq!(
        write_position(&from_seed, &from_seed.start_position()),
        write_position(&built_in, &built_in.start_position())
    );
    assert_eq!(from_seed.start_position().hash(), built_in.start_position().hash());
    assert_eq!(from_seed.def().side_names, ["Gold".to_string(), "Scarlet".to_string()]);
    assert_eq!(from_seed.def().level_names, ["Subterranean", "Land", "Air"]);
    // The seed's render data: Air (level 3) is the blue one.
    assert_eq!(from_seed.def().render.level_colors[2].light, "#a0c8e8");
    assert_eq!(from_seed.def().render.cell_size, 24);
}

#[test]
fn start_position_string_round_trips() {
    let v = gygax();
    assert_eq!(write_position(&v, &v.start_position()), START);
    let p = parse_position(&v, START).unwrap();
    assert_eq!(p, v.start_position());
    // Every position two plies deep writes and reads back identically.
    for m in v.legal_moves(&p).into_iter().step_by(7) {
        let q = v.make(&p, &m);
        for m2 in v.legal_moves(&q).into_iter().step_by(11) {
            let r = v.make(&q, &m2);
            let text = write_position(&v, &r);
            let back = parse_position(&v, &text).unwrap();
            assert_eq!(back, r, "{text}");
            assert_eq!(write_position(&v, &back), text);
        }
    }
}

#[test]
fn lenient_spacing_is_read() {
    let v = variant("dragonchess", &[]);
    let spaced = START.replace(' ', "   ");
    assert_eq!(parse_position(&v, &format!("  {spaced} ")).unwrap(), v.start_position());
}

fn error(text: &str) -> (usize, String) {
    let v = gygax();
    let e = parse_position(&v, text).unwrap_err();
    (e.column, e.reason)
}

#[test]
fn malformed_position_strings_name_the_problem_and_its_column() {
    // Unknown piece code `x` at column 1.
    let (col, why) = error(&START.replacen("2g3r", "x1g3r", 1));
    assert_eq!(col, 1);
    assert!(why.contains("unknown piece code `x`"), "{why}");
    // A rank one square too long: `2g3r3g2` reaches 13 squares at the `2` in column 7.
    let (col, why) = error(&START.replacen("2g3r3g1/", "2g3r3g2/", 1));
    assert_eq!(col, 7, "{why}");
    assert!(why.contains("more than 12"), "{why}");
    // A rank too short.
    let (_, why) = error(&START.replacen("2g3r3g1/", "2g3r3g/", 1));
    assert!(why.contains("has 11 squares"), "{why}");
    // Seven ranks.
    let (col, why) = error(&START.replacen("12/12/12/12/S1", "12/12/12/S1", 1));
    assert_eq!(col, 1);
    assert!(why.contains("7 ranks"), "{why}");
    // Bad side letter: `w` is not a Gygax side.
    let bad_side = START.replace(" g 0 1", " w 0 1");
    let (col, why) = error(&bad_side);
    assert_eq!(col, bad_side.len() - 4);
    assert!(why.contains("expected `g` (Gold) or `s` (Scarlet)"), "{why}");
    // Missing fields.
    let (_, why) = error("12/12/12/12/12/12/12/12 g 0 1");
    assert!(why.contains("has 6"), "{why}");
    // Move number 0, clock not a number.
    assert!(error(&START.replace(" g 0 1", " g 0 0")).1.contains("move number"));
    assert!(error(&START.replace(" g 0 1", " g x 1")).1.contains("halfmove"));
    // Leading zeros, stray characters, empty placement.
    assert!(error(&START.replacen("2g3r", "02g2r", 1)).1.contains("leading zeros"));
    let (col, why) = error(&START.replacen("2g3r", "2g3r?", 1));
    assert_eq!(col, 5);
    assert!(why.contains("unexpected `?`: expected a piece letter"), "{why}");
    assert_eq!(
        error("/ / / g 0 1"),
        (1, "expected a piece letter, `(code)` or a number of empty squares".into())
    );
    // Two Gold Kings.
    assert!(error(&START.replacen("OUHTCMKPTHUO", "OUHTCMKKTHUO", 1)).1.contains("more than one royal"));
}

#[test]
fn unpromoted_pieces_on_their_compulsory_promotion_squares_are_refused() {
    // Gygax Chess: a Gold Warrior on Land rank 8 must have become a Hero there.
    let v = gygax();
    let warrior_on_8 = "12/12/12/12/12/12/12/12 k6W4/12/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let e = parse_position(&v, warrior_on_8).unwrap_err();
    assert!(e.reason.contains("Gold Warrior on 2h8 must have promoted there"), "{e}");
    // One rank lower it is an ordinary Warrior.
    let warrior_on_7 = "12/12/12/12/12/12/12/12 k11/7W4/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    assert!(parse_position(&v, warrior_on_7).is_ok());
    // Grand Chess: a pawn on its last rank must have promoted; on rank 9 (zone, not
    // compulsory) it may stay a pawn.
    let g = variant("grand", &[]);
    let last = "r8P/1nbqkmcbn1/ppppppppp1/10/10/10/10/PPPPPPPPP1/1NBQKMCBN1/R8R w - - 0 1";
    let e = parse_position(&g, last).unwrap_err();
    assert!(e.reason.contains("White Pawn on j10 must have promoted there"), "{e}");
    let ninth = "r8r/1nbqkmcbnP/ppppppppp1/10/10/10/10/PPPPPPPPP1/1NBQKMCBN1/R8R w - - 0 1";
    assert!(parse_position(&g, ninth).is_ok());
    // Black's pawns promote on rank 1.
    let black = "r8r/1nbqkmcbn1/ppppppppp1/10/10/10/10/PPPPPPPPP1/1NBQKMCBN1/R7pR w - - 0 1";
    assert!(parse_position(&g, black).unwrap_err().reason.contains("Black Pawn on i1"));
}

#[test]
fn side_not_to_move_in_check_is_refused() {
    // Scarlet King 2h8 attacked by a Gold Oliphant 2h1, Gold to move: Scarlet could not
    // have left its King en prise.
    let text = "12/12/12/12/12/12/12/12 7k4/12/12/12/12/12/12/K6O4 12/12/12/12/12/12/12/12 g 0 1";
    let v = gygax();
    let e = parse_position(&v, text).unwrap_err();
    assert!(e.reason.contains("not to move is in check"), "{e}");
}

#[test]
fn garbage_never_panics() {
    let v = gygax();
    let samples = [
        "",
        " ",
        "(",
        "()",
        "(((",
        "12/12",
        "99999999999999999999 g 0 1",
        "\u{feff}",
        "é/é/é g 0 1",
        "12/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 g 99999 1",
        "1111111111111/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 g 0 1",
    ];
    // Each is refused (never a panic, never a position), at a column inside the text or
    // just after it, with a reason.
    for s in samples {
        let e = parse_position(&v, s).expect_err(s);
        assert!((1..=s.chars().count() + 1).contains(&e.column), "{s:?}: column {}", e.column);
        assert!(!e.reason.trim().is_empty(), "{s:?}");
    }
    let fields = "fields; a Gygax Chess position has 6: 3 placements (top level first), side to move, \
                  halfmove clock, move number";
    assert_eq!(error(""), (1, format!("0 {fields}")));
    assert_eq!(error("("), (2, format!("1 {fields}")));
    // Every proper prefix of a valid string is refused too.
    for i in 0..START.len() {
        let e = parse_position(&v, &START[..i]).expect_err(&START[..i]);
        assert!(e.column <= i + 1, "{i}: column {}", e.column);
    }
}

#[test]
fn start_diagram_shows_three_levels_side_by_side() {
    let v = gygax();
    let d = ravenpost::notation::diagram::diagram(&v, &v.start_position(), None);
    println!("{d}");
    let lines: Vec<&str> = d.lines().collect();
    assert_eq!(lines.len(), 10, "title, 8 ranks, files");
    assert!(
        lines[0].contains("Air (3)")
            && lines[0].contains("Land (2)")
            && lines[0].contains("Subterranean (1)")
    );
    // Rank 1 of Air, Land and Subterranean, left to right.
    assert_eq!(
        lines[8],
        " 1  :  .  G  .  :  .  R  .  :  .  G  .  1      1  O  U  H  T  C  M  K  P  T  H  U  O  1      \
1  :  .  B  .  :  .  E  .  :  .  B  .  1"
    );
}
