//! The `ravenpost` command with Grand Chess and Fantasy Grand Chess.

use crate::common;

use common::cli;

#[test]
fn perft_grand_and_fantasy_grand_pairings() {
    assert_eq!(cli(&["perft", "grand", "3"]).1.trim(), "259514");
    let (code, out, _) = cli(&[
        "perft",
        "fantasy-grand",
        "2",
        "--option",
        "army-white=elves",
        "--option",
        "army-black=dwarves",
    ]);
    assert_eq!((code, out.trim()), (0, "1920"));
    // The armies may come from the position string instead.
    let pos = "4rr4/1s1lkem1s1/wwwwwwwwww/10/10/10/10/PPPPPPPPPP/1NBQKMABN1/R8R w - - 0 1 humans elves";
    assert_eq!(cli(&["perft", "fantasy-grand", "1", "--position", pos]).1.trim(), "65");
}

#[test]
fn druid_without_agreement_is_refused() {
    let (code, _, err) = cli(&["perft", "fantasy-grand", "1", "--option", "army-black=druid"]);
    assert_eq!(code, 2);
    assert!(err.contains("druid=allowed"), "{err}");
    let (code, out, _) =
        cli(&["perft", "fantasy-grand", "1", "--option", "army-black=druid", "--option", "druid=allowed"]);
    assert_eq!((code, out.trim()), (0, "65"));
}

#[test]
fn validate_reads_armies_from_tags() {
    let dir = std::env::temp_dir().join(format!("ravenpost-fgc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let game = "[Event \"Test\"]\n[Site \"?\"]\n[Date \"2026.11.29\"]\n[Round \"?\"]\n[White \"A\"]\n\
                [Black \"B\"]\n[Result \"*\"]\n[Variant \"fantasy-grand\"]\n[WhiteArmy \"evil-horde\"]\n\
                [BlackArmy \"druid\"]\n[GameOptions \"druid=allowed\"]\n\n1. e5 Fob7 2. Orde3 *\n";
    let file = dir.join("horde-druid.pgn");
    std::fs::write(&file, game).unwrap();
    let (code, out, err) = cli(&["validate", file.to_str().unwrap()]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 valid"), "{out}");
}
