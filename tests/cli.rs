//! The `ravenpost` binary: output, exit codes and one-line errors.

use std::process::Command;

fn ravenpost(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ravenpost")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn perft_prints_the_node_count_last() {
    let (code, out, _) = ravenpost(&["perft", "gygax", "2"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().last(), Some("8094"));
    let (code, out, _) = ravenpost(&["perft", "dragonchess", "1", "--divide"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 91);
    assert_eq!(lines[90], "90");
    assert!(lines.contains(&"R3g1x3a7 1"));
}

#[test]
fn moves_lists_every_legal_move() {
    let (code, out, _) = ravenpost(&["moves", "gygax"]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().count(), 90);
    assert!(out.lines().any(|l| l == "W2e2-2e3"));
    let pos = "12/12/12/5R6/12/12/12/12 7k4/12/5o6/4ooo5/5o6/12/12/K11 12/12/12/12/12/12/12/12 g 0 1";
    let (code, out, _) = ravenpost(&["moves", "gygax", "--position", pos]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l == "R3f5:2f4"), "{out}");
}

#[test]
fn unknown_variant_is_a_one_line_error_with_exit_code_2() {
    let (code, out, err) = ravenpost(&["perft", "chess", "1"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unknown variant `chess`") && err.contains("gygax"), "{err}");
}

#[test]
fn malformed_position_is_a_one_line_error_with_column_and_exit_code_2() {
    let (code, _, err) = ravenpost(&["moves", "gygax", "--position", "12/12/12/12/12/12/12/1z10 x"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("column"), "{err}");
    let bad = "12/12/12/12/12/12/12/1z10 12/12/12/12/12/12/12/12 12/12/12/12/12/12/12/12 g 0 1";
    let (code, _, err) = ravenpost(&["perft", "gygax", "1", "--position", bad]);
    assert_eq!(code, 2);
    assert!(err.contains("column 23") && err.contains("unknown piece code `z`"), "{err}");
}

#[test]
fn bad_option_is_refused() {
    let (code, _, err) = ravenpost(&["perft", "gygax", "1", "--option", "sylph-return=sideways"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected one of start-squares, above"), "{err}");
    let (code, _, err) = ravenpost(&["perft", "gygax", "1", "--option", "nonsense"]);
    assert_eq!(code, 2);
    assert!(err.contains("K=V"), "{err}");
}
