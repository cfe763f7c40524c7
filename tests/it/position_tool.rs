//! The position tools (issue 17, item 2): `ravenpost position`, the position after a move
//! list given on the command line, each move checked; `show`/`replay` of a record that
//! breaks at ply K, up to ply K, saying where and why; `moves GAME`, a game's legal moves
//! in SAN.

use crate::common;

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

/// The corpus Grand game with its 40th ply (`20... Rad10`) made illegal (`Rad1`: the
/// Rook cannot pass its own pieces), in a file of a temporary directory; with the line
/// and column of the broken token.
fn broken_corpus_game() -> (tempfile::TempDir, std::path::PathBuf, usize, usize) {
    let pgn = std::fs::read_to_string("../shared/corpus/grand/pychess-2024-12-26.pgn").unwrap();
    assert_eq!(pgn.matches(" Rad10 ").count(), 1);
    let broken = pgn.replace(" Rad10 ", " Rad1 ");
    let (line, text) = broken.lines().enumerate().find(|(_, l)| l.contains(" Rad1 ")).unwrap();
    let column = text.find(" Rad1 ").unwrap() + 2;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.pgn");
    std::fs::write(&file, broken).unwrap();
    (dir, file, line + 1, column)
}

#[test]
fn show_and_replay_of_a_record_broken_at_ply_k_work_up_to_ply_k_and_say_where_it_breaks() {
    let (_dir, file, line, column) = broken_corpus_game();
    let file = file.to_str().unwrap();
    // The position after the 39 good plies, from the position tool.
    let mut args = vec!["position".to_string(), "grand".to_string()];
    args.extend(corpus_moves().into_iter().take(39));
    args.push("--json".into());
    let (code, out, err) = ravenpost(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let after_39: serde_json::Value = serde_json::from_str(&out).unwrap();
    // `show` without --ply shows ply 39 and says where and why the record breaks.
    let (code, out, err) = ravenpost(&["show", file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().any(|l| l.starts_with("Last move: 20. Ae7 (") && l.ends_with("), ply 39")), "{out}");
    let said =
        format!("Record breaks at ply 40 ({file}:{line}:{column}): illegal move `Rad1` (Black, move 20)");
    assert!(out.contains(&said), "{out}");
    let (code, out, _) = ravenpost(&["show", file, "--json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["ply"], 39);
    assert_eq!(j["position"], after_39["position"]);
    assert_eq!(j["broken"]["ply"], 40);
    assert_eq!(j["broken"]["line"], line);
    assert_eq!(j["broken"]["column"], column);
    assert_eq!(j["broken"]["token"], "Rad1");
    // Every earlier ply shows; ply 40 and later are refused naming the break.
    let (code, out, err) = ravenpost(&["show", file, "--ply", "23", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["last_move"], "Nd3");
    for ply in ["40", "45"] {
        let (code, out, err) = ravenpost(&["show", file, "--ply", ply]);
        assert_eq!(code, 1, "{out}");
        assert!(
            err.contains(&format!("ply {ply}: the record breaks before it; plies 0 to 39 can be shown")),
            "{err}"
        );
        assert!(err.contains(&said), "{err}");
    }
    // replay: the same, every ply up to 39, the break on the last screen and in JSON.
    let (code, out, err) = ravenpost(&["replay", file, "--ply", "39"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&said), "{out}");
    let (code, out, err) = ravenpost(&["replay", file, "--json"]);
    assert_eq!(code, 0, "{err}");
    let all: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(all.len(), 40, "plies 0 to 39");
    assert_eq!(all[39]["position"], after_39["position"]);
    assert_eq!(all[39]["broken"]["ply"], 40);
    let (code, _, err) = ravenpost(&["replay", file, "--ply", "40"]);
    assert_eq!(code, 1);
    assert!(err.contains("plies 0 to 39 can be shown"), "{err}");
    // A record that is not broken says nothing of the kind.
    let (code, out, _) = ravenpost(&["show", "../shared/corpus/grand/pychess-2024-12-26.pgn"]);
    assert_eq!(code, 0);
    assert!(!out.contains("Record breaks"), "{out}");
}

#[test]
fn moves_of_a_game_lists_its_legal_moves_in_san_at_its_current_position() {
    use common::{archive, ok, run};
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&dir, &home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    let j: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["moves", "g", "--json"])).unwrap();
    assert_eq!(j["ply"], 2);
    assert_eq!(j["side_to_move"], "Gold");
    let pos = j["position"].as_str().unwrap();
    // The same moves as `moves gygax --position` of that position gives in long form.
    let long: Vec<String> =
        ok(&dir, &home, &["moves", "gygax", "--position", pos]).lines().map(str::to_string).collect();
    let listed: Vec<(String, String)> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["san"].as_str().unwrap().to_string(), m["long"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(listed.iter().map(|m| m.1.clone()).collect::<Vec<_>>(), long);
    // The text form: grouped by piece and origin (`Dragon on 3g1:`), each SAN with its
    // long form beside it; the Dragon's capture of the Sylph on 3b6 is among them.
    let text = ok(&dir, &home, &["moves", "g"]);
    let pairs: Vec<(String, String)> = text
        .lines()
        .filter(|l| l.starts_with("  "))
        .flat_map(|l| {
            let w: Vec<String> = l.split_whitespace().map(str::to_string).collect();
            w.chunks(2).map(|c| (c[0].clone(), c[1].clone())).collect::<Vec<_>>()
        })
        .collect();
    let mut sorted = listed.clone();
    sorted.sort();
    let mut pairs_sorted = pairs.clone();
    pairs_sorted.sort();
    assert_eq!(pairs_sorted, sorted, "{text}");
    assert!(text.lines().any(|l| l == "Dragon on 3g1:"), "{text}");
    let sans: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
    assert!(sans.contains(&"Rx3b6"), "{text}");
    // Each SAN is a move `move` accepts: the first one is played.
    ok(&dir, &home, &["move", "g", sans[0], "--as", "Ann"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&ok(&dir, &home, &["moves", "g", "--json"])).unwrap()["ply"],
        3
    );
    // A game that is over has none; a game that is not there is an error.
    ok(&dir, &home, &["resign", "g", "--as", "Bo"]);
    assert_eq!(ok(&dir, &home, &["moves", "g"]), "No legal move: the game is over (1-0).\n");
    let o = run(&dir, &home, &["moves", "nosuchgame"]);
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
}
