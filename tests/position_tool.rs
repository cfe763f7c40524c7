//! `ravenpost position` (issue 17, item 2): the position after a move list given on the
//! command line, each move checked.

use std::process::Command;

fn ravenpost(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ravenpost")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The move tokens of the corpus game's movetext (move numbers and the result dropped).
fn corpus_moves() -> Vec<String> {
    let pgn = std::fs::read_to_string("../shared/corpus/grand/pychess-2024-12-26.pgn").unwrap();
    pgn.lines()
        .filter(|l| !l.starts_with('[') && !l.trim().is_empty())
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|t| !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(&t.as_str()))
        .map(|t| t.split_once('.').map(|(_, m)| m.to_string()).unwrap_or(t))
        .collect()
}

/// The final position string the corpus README gives (the backquoted string after
/// "Final position").
fn corpus_final() -> String {
    let readme = std::fs::read_to_string("../shared/corpus/grand/README.md").unwrap();
    let after = &readme[readme.find("Final position").unwrap()..];
    let start = after.find('`').unwrap() + 1;
    let len = after[start..].find('`').unwrap();
    after[start..start + len].to_string()
}

#[test]
fn position_reproduces_the_final_position_of_the_grand_corpus_game() {
    let moves = corpus_moves();
    assert_eq!(moves.len(), 49, "{moves:?}");
    let mut args = vec!["position", "grand"];
    args.extend(moves.iter().map(String::as_str));
    args.push("--json");
    let (code, out, err) = ravenpost(&args);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["position"], corpus_final().as_str());
    assert_eq!(j["side_to_move"], "Black");
    assert_eq!(j["plies"], 49);
    assert_eq!(j["last_move"], "Af8+");
    // The text form: the position string first, then the diagram and the side to move.
    args.pop();
    let (code, out, _) = ravenpost(&args);
    assert_eq!(code, 0);
    assert_eq!(out.lines().next(), Some(corpus_final().as_str()));
    assert!(out.contains("Black to move (move 25)"), "{out}");
}

#[test]
fn position_refuses_an_illegal_move_naming_the_ply_and_the_pieces_legal_moves() {
    // 3. Nb3: no White Knight reaches b3 (b2 and i2 Knights go to a4 c4 d1 / g1 h4 j4).
    let (code, out, err) = ravenpost(&["position", "grand", "e5", "Ce7", "Nb3"]);
    assert_eq!(code, 1);
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("ply 3: illegal move `Nb3` (White, move 2)"), "{err}");
    assert!(err.contains("legal: Na4 Nc4 Nd1 Ng1 Nh4 Nj4"), "{err}");
}

#[test]
fn position_from_a_position_string_and_a_variant_file() {
    // Gygax Chess from a given position: the Sylph on 2j4 returns to 3e2 (a Sylph's move
    // resets the ply clock, like a pawn's: `0`).
    let pos = "12/12/12/12/12/12/2O9/12 7k4/12/12/12/9S2/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let (code, out, err) = ravenpost(&["position", "gygax", "--from", pos, "S3e2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["position"],
        "12/12/12/12/12/12/2O1S7/12 7k4/12/12/12/12/12/12/K11 12/12/12/12/12/12/12/12 s 0 1"
    );
    assert_eq!(j["side_to_move"], "Scarlet");
    // A user definition: Loft chess, the Climber steps up the c-file of the Loft.
    let (code, out, err) =
        ravenpost(&["position", "--variant-file", "tests/data/variants/loft.md", "C2c2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["position"], "2c2/5/5/2C2/5 r1k1r/ppppp/5/PPPPP/R1K1R b 1 1");
}
