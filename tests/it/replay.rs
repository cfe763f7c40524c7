//! `ravenpost replay`: the interactive screen driven through a real pseudo-terminal (keys
//! in, screen text out), and the non-interactive forms for scripts.

use crate::common;

use std::path::{Path, PathBuf};

use common::diagram::check_pieces;
use common::rules::{gygax, play_san, variant};
use common::{T0, cli, ravenpost_at};
use ravenpost::notation::position_string::write_position;

use rexpect::process::WaitStatus;
use rexpect::session::{PtySession, spawn_command};

/// A Gygax Chess game of three plies with a comment after the second.
const GAME: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n[Variant \"gygax\"]\n\n\
    1. 2e3 Sa3b6 {The sylph flies.} 2. R3g1x3b6 *\n";

fn game_file(dir: &Path) -> PathBuf {
    let f = dir.join("g.pgn");
    std::fs::write(&f, GAME).unwrap();
    f
}

/// `text` without ANSI control sequences (CSI `ESC [ … final`, and two-byte `ESC x`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        if chars.next() == Some('[') {
            for d in chars.by_ref() {
                if ('\x40'..='\x7e').contains(&d) {
                    break;
                }
            }
        }
    }
    out
}

/// Reads up to the end of the next screen (its key line) and returns its lines.
fn screen(p: &mut PtySession) -> Vec<String> {
    let raw = p.exp_string("Keys:").expect("a screen ending in the key line");
    // The screen starts after its clear-screen sequence (before it: the rest of the
    // previous screen's key line).
    let start = raw.rfind("\x1b[2J").expect("the screen is cleared first");
    let text = strip_ansi(&raw[start..]);
    text.split('\n').map(|l| l.trim_end_matches('\r').to_string()).collect()
}

/// Types `keys` one at a time (each redraws the screen once); the last screen.
fn keys(p: &mut PtySession, keys: &str) -> Vec<String> {
    let mut last = Vec::new();
    for k in keys.chars() {
        p.send(&k.to_string()).unwrap();
        p.flush().unwrap();
        last = screen(p);
    }
    last
}

fn line<'a>(lines: &'a [String], start: &str) -> &'a str {
    lines.iter().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no line `{start}…` in {lines:#?}"))
}

/// The cell of file `index` (counting from the left edge) of the leftmost board (Air) in
/// a rank row of the compact layout, with the columns beside it that hold its mark.
fn cell(row: &str, index: usize) -> &str {
    &row[1 + 2 * index..4 + 2 * index]
}

#[test]
fn interactive_replay_through_a_pty() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let mut cmd = ravenpost_at(dir.path(), dir.path(), T0);
    cmd.args(["replay", f.to_str().unwrap()])
        .env("RAVENPOST_ARCHIVE", dir.path().join("no-archive-here"))
        .env("TERM", "xterm")
        .env_remove("NO_COLOR");
    let mut p = spawn_command(cmd, Some(20_000)).unwrap();

    // It opens at the current (last) move (issue 34).
    let s = screen(&mut p);
    assert!(line(&s, "Gygax Chess: Ann (Gold) v Bob (Scarlet)").ends_with("ply 3 of 3"), "{s:#?}");
    assert_eq!(line(&s, "Last move:"), "Last move: 2. Rx3b6 (R3g1x3b6), ply 3");
    line(&s, "Bob (Scarlet) to move (move 2)");

    let s = keys(&mut p, "<");
    assert!(line(&s, "Gygax Chess: Ann (Gold) v Bob (Scarlet)").ends_with("ply 0 of 3"), "{s:#?}");
    line(&s, "Start position");
    line(&s, "Ann (Gold) to move (move 1)");
    // Air at the start: sylphs on a2 (Gold) and a7 (Scarlet), file index 0.
    assert_eq!(cell(line(&s, "2"), 0), " S ");
    assert_eq!(cell(line(&s, "7"), 0), " s ");

    let s = keys(&mut p, "nn");
    assert!(line(&s, "Gygax Chess").ends_with("ply 2 of 3"), "{s:#?}");
    assert_eq!(line(&s, "Last move:"), "Last move: 1... Sa3b6 (S3a7-3b6), ply 2 {The sylph flies.}");
    line(&s, "Ann (Gold) to move (move 2)");
    line(&s, "> 1... Sa3b6 {The sylph flies.}");
    // Air: the Scarlet sylph left a7 (now empty and dark, marked) for b6 (marked).
    let row6 = line(&s, "6");
    assert_eq!(cell(row6, 1), "[s]", "{row6}");
    assert_eq!(cell(line(&s, "7"), 0), "[:]");
    assert_eq!(cell(line(&s, "2"), 0), " S ", "Gold's sylph on a2 is still there");
    let files = s.iter().rev().find(|l| l.trim_start().starts_with("a b")).unwrap();
    assert!(files.trim_start().starts_with("a b c d e f g h i j k l   a b c"), "{files}");
    // The whole screen fits 80 columns.
    assert!(s.iter().all(|l| l.chars().count() <= 80), "{s:#?}");

    // Flip: files run l…a, rank 1 at the top, b6 now the 11th cell from the left.
    let s = keys(&mut p, "f");
    let files = s.iter().rev().find(|l| l.trim_start().starts_with("l k")).expect("flipped file row");
    assert!(files.trim_start().starts_with("l k j i h g f e d c b a"), "{files}");
    let rank_rows: Vec<&String> = s.iter().filter(|l| l.starts_with("1 ") || l.starts_with("8 ")).collect();
    assert!(rank_rows[0].starts_with("1 "), "{rank_rows:?}");
    assert_eq!(cell(line(&s, "6"), 10), "[s]");

    // Jump past the end: an error message; then to ply 3.
    let s = keys(&mut p, "9g");
    line(&s, "ply 9: the game has 3 plies");
    let s = keys(&mut p, "3\r");
    assert!(line(&s, "Gygax Chess").ends_with("ply 3 of 3"), "{s:#?}");
    assert_eq!(line(&s, "Last move:"), "Last move: 2. Rx3b6 (R3g1x3b6), ply 3");
    // Still flipped: the Gold roc on b6.
    assert_eq!(cell(line(&s, "6"), 10), "[R]");

    p.send("q").unwrap();
    p.flush().unwrap();
    p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(matches!(status, WaitStatus::Exited(_, 0)), "{status:?}");
}

#[test]
fn replay_for_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let f = game_file(dir.path());
    let f = f.to_str().unwrap();

    // Not a terminal: refused, pointing at the other forms.
    let (code, out, err) = cli(&["replay", f]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--ply N") && err.contains("--all"), "{err}");

    let (code, out, err) = cli(&["replay", f, "--ply", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("ply 2 of 3") && out.contains("> 1... Sa3b6 {The sylph flies.}"), "{out}");
    assert!(!out.contains("Keys:") && !out.contains('\x1b'));

    // The snapshot's independent check: its pieces are those of the position after the
    // first two plies, as the position string gives them.
    let v = gygax();
    let (pos, last) = play_san(&v, &["2e3", "Sa3b6"]);
    check_pieces(&v, &pos, last.as_ref(), &out, false);
    insta::assert_snapshot!("replay_ply_2", out);

    let (code, _, err) = cli(&["replay", f, "--ply", "4"]);
    assert_eq!(code, 2);
    assert!(err.contains("ply 4: the game has 3 plies"), "{err}");

    let (code, out, _) = cli(&["replay", f, "--all"]);
    assert_eq!(code, 0);
    for p in 0..=3 {
        assert_eq!(out.matches(&format!("ply {p} of 3")).count(), 1, "{out}");
    }
    assert!(out.find("ply 1 of 3").unwrap() < out.find("ply 2 of 3").unwrap());

    let (code, out, _) = cli(&["replay", f, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let plies = v.as_array().unwrap();
    assert_eq!(plies.len(), 4);
    assert_eq!(plies[2]["last_move"], "Sa3b6");
    assert_eq!(plies[2]["comments"][0], "The sylph flies.");
    assert_eq!(plies[3]["side_to_move"], "Scarlet");

    let (code, out, _) = cli(&["replay", "--help"]);
    assert_eq!(code, 0);
    for k in ["next ply", "previous ply", "first", "last ply", "jump to that ply", "flip the board", "quit"] {
        assert!(out.contains(k), "--help lists `{k}`: {out}");
    }
}

/// Two games in one file; the first has move times (`{ravenpost: at …}`) and a comment.
const TWO_GAMES: &str = "[White \"Ann\"]\n[Black \"Bob\"]\n[Variant \"gygax\"]\n\n\
    1. 2e3 {ravenpost: at 2025-11-29T07:06:40Z} Sa3b6 {ravenpost: at 2025-11-29T08:00:00Z} \
    {The sylph flies.} 2. R3g1x3b6 *\n\n\
    [White \"Cy\"]\n[Black \"Dee\"]\n[Variant \"grand\"]\n\n1. e5 *\n";

fn two_games(dir: &Path) -> PathBuf {
    let f = dir.join("two.pgn");
    std::fs::write(&f, TWO_GAMES).unwrap();
    f
}

/// Regression (CHANGELOG: `replay` no longer shows move times as comments): the
/// recorded times stay in the file but not on the screen; other comments are shown.
#[test]
fn replay_hides_move_times() {
    let dir = tempfile::tempdir().unwrap();
    let f = two_games(dir.path());
    for args in [&["--ply", "2"][..], &["--all"][..], &["--json"][..]] {
        let (code, out, err) = cli(&[&["replay", f.to_str().unwrap()][..], args].concat());
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.contains("ravenpost: at") && !out.contains("2025-11-29"), "{args:?}: {out}");
        assert!(out.contains("The sylph flies."), "{args:?}: {out}");
    }
}

#[test]
fn replay_flip_turns_the_board_half_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let f = two_games(dir.path());
    let (code, out, err) = cli(&["replay", f.to_str().unwrap(), "--ply", "2", "--flip"]);
    assert_eq!(code, 0, "{err}");
    let v = gygax();
    let (pos, last) = play_san(&v, &["2e3", "Sa3b6"]);
    check_pieces(&v, &pos, last.as_ref(), &out, true);
    // Files right to left under each board, rank 1 on top.
    let files = out.lines().find(|l| l.trim_start().starts_with('l')).unwrap();
    assert!(files.trim_start().starts_with("l k j i h g f e d c b a   l k"), "{out}");
    let first_rank = out.lines().nth(2).unwrap();
    assert!(first_rank.starts_with("1 "), "{out}");
}

/// `--game N` picks the Nth game of a file, for `replay` and `show`; a game the file
/// does not have is an error naming it (exit 2).
#[test]
fn game_option_picks_a_game_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = two_games(dir.path());
    let f = f.to_str().unwrap();
    let (code, out, err) = cli(&["replay", f, "--game", "2", "--ply", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Grand Chess: Cy (White) v Dee (Black), ply 1 of 1\n"), "{out}");
    let v = variant("grand", &[]);
    let (pos, last) = play_san(&v, &["e5"]);
    check_pieces(&v, &pos, last.as_ref(), &out, false);

    // show --json: the position string is the one ravenpost writes for 1. e5 (checked
    // by the diagram above and by the Grand Chess perft numbers' engine).
    let (code, out, err) = cli(&["show", f, "--game", "2", "--json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j,
        serde_json::json!({
            "last_move": "e5",
            "ply": 1,
            "position": write_position(&v, &pos),
            "result": "*",
            "side_to_move": "Black",
            "variant": "grand",
        })
    );
    assert_eq!(j["position"], "r8r/1nbqkcabn1/pppppppppp/10/10/4P5/10/PPPP1PPPPP/1NBQKCABN1/R8R b - - 0 1");
    // The default is the first game.
    let (code, out, _) = cli(&["show", f, "--json"]);
    assert_eq!(code, 0);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((j["variant"].as_str(), j["ply"].as_u64()), (Some("gygax"), Some(3)));
    for cmd in ["show", "replay"] {
        let (code, out, err) =
            cli(&[cmd, f, "--game", "3", "--ply", "0"][..if cmd == "show" { 4 } else { 6 }]);
        assert_eq!(code, 2, "{cmd}: {out}");
        assert_eq!(err, format!("ravenpost: {f}: no game 3\n"), "{cmd}");
    }
}
