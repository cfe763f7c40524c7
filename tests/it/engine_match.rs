//! `ravenpost match` (issue 35): two UCI engines play Grand Chess, judged by ravenpost.
//!
//! The CI machine has no Fairy-Stockfish binary (only pyffish, its Python library), so
//! the match here is `ravenpost uci` against itself; every move it records is checked
//! against pyffish's legal moves for the same position (an independent move generator),
//! and every game written must pass `ravenpost validate`. The match against
//! Fairy-Stockfish is the documented benchmark of benches/README.md. Engines that fail
//! (one that does not exist, one that sends an illegal move, one that exits) are fake
//! UCI engines written here in Python.

use crate::common;
use common::cli::cli;

use std::process::Command;

/// The ravenpost binary's `uci` command line.
fn ravenpost_uci() -> String {
    format!("'{}' uci", env!("CARGO_BIN_EXE_ravenpost"))
}

/// pyffish's verdict on each game of `games` (the `games` array of `match --json`): for
/// each, the first move pyffish finds illegal (`ply: move`), or `ok` and whether the
/// final position has no legal move for pyffish.
fn pyffish_check(games: &serde_json::Value) -> Vec<String> {
    let script = r#"
import sys, json, pyffish
for g in json.load(sys.stdin):
    fen = g["start"] or pyffish.start_fen("grand")
    moves, bad = g["moves"], None
    for i, m in enumerate(moves):
        if m not in pyffish.legal_moves("grand", fen, moves[:i]):
            bad = "%d: %s" % (i + 1, m)
            break
    if bad:
        print(bad)
    else:
        print("ok", "ended" if not pyffish.legal_moves("grand", fen, moves) else "going")
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(games.to_string().as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    String::from_utf8(o.stdout).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn a_short_match_writes_valid_games_of_moves_pyffish_finds_legal() {
    common::tools::require_pyffish();
    let t = tempfile::tempdir().unwrap();
    let openings = t.path().join("openings.txt");
    std::fs::write(&openings, "# two plies\ne3e5 e8e6\n").unwrap();
    let pgn = t.path().join("games.pgn");
    let engine = ravenpost_uci();
    let (code, out, err) = cli(&[
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--name1",
        "first",
        "--name2",
        "second",
        "--nodes",
        "1500",
        "--games",
        "2",
        "--openings",
        openings.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    // Colours reversed, the same opening.
    assert_eq!((games[0]["white"].as_str(), games[1]["white"].as_str()), (Some("first"), Some("second")));
    for g in games {
        assert_eq!(g["moves"][0], "e3e5");
        assert_eq!(g["moves"][1], "e8e6");
        assert_eq!(g["plies"].as_u64().unwrap() as usize, g["moves"].as_array().unwrap().len());
    }
    let verdicts = pyffish_check(&report["games"]);
    for (g, verdict) in games.iter().zip(&verdicts) {
        // A game over by the rules has no legal move for pyffish either.
        let ended_by_rules = ["checkmate", "stalemate"].contains(&g["reason"].as_str().unwrap());
        let want = if ended_by_rules { "ok ended" } else { "ok going" };
        assert_eq!(verdict, want, "{g}");
    }
    let points: f64 = games
        .iter()
        .map(|g| match (g["result"].as_str().unwrap(), g["white"] == "first") {
            ("1-0", true) | ("0-1", false) => 1.0,
            ("1/2-1/2", _) => 0.5,
            _ => 0.0,
        })
        .sum();
    assert_eq!(report["score"].as_f64().unwrap(), points / 2.0);
    let (code, out, err) = cli(&["validate", pgn.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 games: 2 valid"), "{out}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event \"ravenpost match\"]").count(), 2, "{text}");
    assert!(text.contains("[White \"first\"]") && text.contains("[White \"second\"]"), "{text}");
}

/// A fake UCI engine in Python: answers `uci` and `isready`; on `go` it sends `bestmove
/// e3e9` (`illegal`: a pawn's move Grand Chess has not) or exits (`exit`).
fn fake_engine(dir: &std::path::Path, mode: &str) -> String {
    let script = dir.join(format!("fake-{mode}.py"));
    let body = format!(
        "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if not w:\n        continue\n    \
         if w[0] == 'uci':\n        print('id name fake {mode}')\n        print('uciok', flush=True)\n    \
         elif w[0] == 'isready':\n        print('readyok', flush=True)\n    elif w[0] == 'go':\n        \
         if '{mode}' == 'exit':\n            sys.exit(0)\n        print('bestmove e3e9', flush=True)\n    \
         elif w[0] == 'quit':\n        break\n"
    );
    std::fs::write(&script, body).unwrap();
    format!("python3 '{}'", script.display())
}

/// The games of `match --json --pgn` between ravenpost and a fake engine: (report, the
/// PGN file's text); the PGN validates.
fn against_fake(mode: &str) -> (serde_json::Value, String) {
    common::tools::require("python3", &["--version"], "python3");
    let t = tempfile::tempdir().unwrap();
    let pgn = t.path().join("games.pgn");
    let fake = fake_engine(t.path(), mode);
    let engine = ravenpost_uci();
    let args = ["match", "--engine", &engine, "--engine", &fake, "--nodes", "500", "--games", "2", "--json"];
    let (code, out, err) = cli(&[&args[..], &["--pgn", pgn.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (vcode, vout, verr) = cli(&["validate", pgn.to_str().unwrap()]);
    assert_eq!(vcode, 0, "{vout}{verr}");
    (serde_json::from_str(&out).unwrap(), std::fs::read_to_string(&pgn).unwrap())
}

#[test]
fn an_engine_that_sends_an_illegal_move_loses_and_the_record_says_why() {
    let (report, text) = against_fake("illegal");
    let games = report["games"].as_array().unwrap();
    // Game 1: the fake engine is Black and answers ravenpost's first move with e3e9.
    assert_eq!(games[0]["result"], "1-0", "{report}");
    assert_eq!(games[0]["reason"], "Black's engine sent the illegal move `e3e9`");
    assert_eq!(games[0]["plies"], 1);
    // Game 2: it is White and fails at once.
    assert_eq!(games[1]["result"], "0-1");
    assert_eq!(games[1]["plies"], 0);
    assert_eq!(report["wins"], 2);
    assert_eq!(text.matches("[Termination \"rules infraction\"]").count(), 2, "{text}");
    assert!(text.contains("{White's engine sent the illegal move `e3e9`.}"), "{text}");
}

#[test]
fn an_engine_that_exits_loses_and_is_started_again_for_the_next_game() {
    let (report, text) = against_fake("exit");
    let games = report["games"].as_array().unwrap();
    assert_eq!(games[0]["result"], "1-0", "{report}");
    assert_eq!(games[0]["reason"], "Black's engine exited without a move");
    // Started again: it plays game 2 (and exits again).
    assert_eq!(games[1]["white"], "fake exit");
    assert_eq!(games[1]["reason"], "White's engine exited without a move");
    assert_eq!(text.matches("[Termination \"abandoned\"]").count(), 2, "{text}");
}

#[test]
fn an_engine_that_does_not_exist_is_bad_input_not_a_panic() {
    let engine = ravenpost_uci();
    let (code, _, err) =
        cli(&["match", "--engine", &engine, "--engine", "/nonexistent/engine --flag", "--nodes", "100"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("engine `/nonexistent/engine --flag` does not start"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let (code, _, err) = cli(&["match", "--engine", &engine, "--nodes", "100"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give --engine twice"), "{err}");
    let (code, _, err) =
        cli(&["match", "--engine", &engine, "--engine", &engine, "--nodes", "9", "--sprt", "5,0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ELO0 < ELO1"), "{err}");
}
