//! `ravenpost import` (issue 17, item 3; `notation-spec/piece-codes.md` §6): records in
//! Hatch/Freeling letters or top-first Gygax level numbering, written back in canonical
//! form. The canonical files in `tests/data/variants/import/` were written by `ravenpost
//! fmt` from records typed in ravenpost's own letters and checked with `validate`; the
//! foreign ones are the same games typed in the other program's letters or levels.

use std::process::Command;

use ravenpost::notation::pgn::read_games;
use ravenpost::variants::import::{ImportChoices, ImportError, Letters, Levels, convert};

const DIR: &str = "tests/data/variants/import";

fn ravenpost(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ravenpost")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn file(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(file(name)).unwrap()
}

#[test]
fn hatch_letters_round_trip_to_the_canonical_form() {
    // Humans v Humans in Fantasy Grand Chess: Hatch's C (Cardinal) is ravenpost's A.
    let (code, out, err) = ravenpost(&["import", "--letters", "hatch", &file("humans-hatch.pgn")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read("humans-canonical.pgn"));
    // Freeling's letters are the same.
    let (code, out, _) = ravenpost(&["import", "--letters", "freeling", &file("humans-hatch.pgn")]);
    assert_eq!(code, 0);
    assert_eq!(out, read("humans-canonical.pgn"));
    // And the canonical file imports to itself.
    let (code, out, _) = ravenpost(&["import", &file("humans-canonical.pgn")]);
    assert_eq!(code, 0);
    assert_eq!(out, read("humans-canonical.pgn"));
}

#[test]
fn hatch_letters_under_grand_become_fairy_stockfish_letters() {
    // Under `grand` ravenpost writes C for the Marshall (Fairy-Stockfish's letters): the
    // Hatch Cardinal moves `Ch7` become `Ah7`, the Hatch Marshall `Me4` becomes `Ce4`.
    let (code, out, err) = ravenpost(&["import", "--letters", "hatch", &file("grand-hatch.pgn")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read("grand-canonical.pgn"));
    assert!(out.contains("1. g4 Ah7 2. Ah4 g7 3. Ce4 Ce7 4. Axe7 *"), "{out}");
}

#[test]
fn top_first_levels_round_trip_to_the_canonical_form() {
    let (code, out, err) = ravenpost(&["import", "--levels", "top-first", &file("gygax-top-first.pgn")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, read("gygax-canonical.pgn"));
    // -o writes the file instead.
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("out.pgn");
    let (code, out, _) = ravenpost(&[
        "import",
        "--levels",
        "top-first",
        &file("gygax-top-first.pgn"),
        "-o",
        dest.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.is_empty());
    assert_eq!(std::fs::read_to_string(dest).unwrap(), read("gygax-canonical.pgn"));
}

#[test]
fn a_record_read_without_its_choice_gets_validates_diagnostic_at_its_place() {
    // Top-first levels read as ravenpost's: `Sa1b6` is a Sylph move to Subterranean.
    let (code, out, err) = ravenpost(&["import", &file("gygax-top-first.pgn")]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("illegal move `Sa1b6` (Scarlet, move 1)"), "{err}");
    assert!(err.contains("gygax-top-first.pgn:10:8"), "{err}");
    assert!(err.contains("help: legal: Sa3b6"), "{err}");
    // After the conversion a wrong move is still reported where the user wrote it.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.pgn");
    std::fs::write(&bad, read("gygax-top-first.pgn").replace("R1b6-1b7", "R1b6-1b9")).unwrap();
    let (code, _, err) = ravenpost(&["import", "--levels", "top-first", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.pgn:10:35"), "{err}");
}

#[test]
fn a_choice_that_does_not_fit_the_game_is_refused() {
    let mut g = read_games(&read("gygax-canonical.pgn")).remove(0).unwrap();
    let hatch = ImportChoices { letters: Letters::Hatch, levels: Levels::BottomFirst };
    assert!(matches!(convert(&mut g, hatch), Err(ImportError::LettersNotFor { .. })));
    let mut g = read_games(&read("grand-canonical.pgn")).remove(0).unwrap();
    let top = ImportChoices { letters: Letters::Ravenpost, levels: Levels::TopFirst };
    assert!(matches!(convert(&mut g, top), Err(ImportError::LevelsNotFor { .. })));
}

#[test]
fn hatch_letters_leave_other_armies_alone() {
    // Dwarves (White) have a Cannon `C`; only the Humans side's `C` is the Cardinal.
    let text =
        "[Variant \"fantasy-grand\"]\n[WhiteArmy \"dwarves\"]\n[BlackArmy \"humans\"]\n\n1. Cc2 Ch7 *\n";
    let mut g = read_games(text).remove(0).unwrap();
    convert(&mut g, ImportChoices { letters: Letters::Hatch, levels: Levels::BottomFirst }).unwrap();
    let tokens: Vec<&str> = g.moves.iter().map(|m| m.token.as_str()).collect();
    assert_eq!(tokens, ["Cc2", "Ah7"]);
}
