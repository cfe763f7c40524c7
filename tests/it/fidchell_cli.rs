//! The `ravenpost` binary with Fidchell.

use crate::common;

use common::cli;

#[test]
fn perft_with_the_default_arrangement() {
    let (code, out, err) = cli(&["perft", "fidchell", "2", "--option", "introduction=default"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().last(), Some("2500"));
    let (code, out, _) = cli(&["perft", "fidchell", "1", "--divide", "--option", "introduction=default"]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l == "Ed2-g5 1"), "{out}");
    assert_eq!(out.lines().last(), Some("50"));
}

#[test]
fn moves_in_the_introduction_are_drops() {
    let (code, out, err) = cli(&["moves", "fidchell"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 72);
    assert!(lines.contains(&"Mk_f3"));
    assert!(lines.contains(&"W_a3"));
}

#[test]
fn moves_show_replacements_and_portal_entries_as_drops() {
    let (code, out, err) = cli(&[
        "moves",
        "fidchell",
        "--position",
        "12/12/12/12/12/12/12/12/12/12/3D1N6/7(AE)4 w - - 0000/1000 - 0 9",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "K_h1\n");
    let (code, out, _) = cli(&[
        "moves",
        "fidchell",
        "--position",
        "5k6/12/12/12/12/12/12/12/12/12/3D8/K11 w - - 0000/1000 - 0 9",
    ]);
    assert_eq!(code, 0);
    assert!(out.lines().any(|l| l == "I_e1"), "{out}");
}

#[test]
fn bad_options_and_strings_are_input_errors() {
    let (code, _, err) = cli(&["perft", "fidchell", "1", "--option", "introduction=random"]);
    assert_eq!(code, 2);
    assert!(err.contains("expected one of phase, default"), "{err}");
    let (code, _, err) = cli(&["moves", "fidchell", "--position", "12 w - - 0000/0000 - 0 1"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("ravenpost: position string:"), "{err}");
}
