//! User-defined variants (issue 17, item 1): definition files read with
//! `ravenpost::variants::load_definition`, `variant check`, `perft`/`moves --variant-file`.
//!
//! - `tests/data/variants/{shatranj,makruk,losalamos,gardner}.md` define games
//!   Fairy-Stockfish plays; each file's body lists Fairy-Stockfish's perft from the start
//!   (`perft D N` lines, with the pyffish call that gave them) and the definition must
//!   give the same counts.
//! - Each built-in definition read as a user file gives the built-in's perft.
//! - `tests/data/variants/loft.md`, a two-level game of our own, has hand-counted move
//!   lists in three positions.
//! - A game of Loft chess played through a bare repository with the pre-receive hook: the
//!   definition committed as `variants/loft.md` and pinned by the game's `VariantFile` and
//!   `VariantHash` tags; a changed or deleted definition, or a game pinning another hash,
//!   refused by the hook and by `verify` (real `git`, real pushes).

use crate::common;

use std::path::Path;
use std::process::Command;

use ravenpost::notation::moves::long_form;
use ravenpost::notation::position_string::parse_position;
use ravenpost::variants::{BUILT_IN, VariantError, by_name, content_hash, load_definition};

fn ravenpost(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ravenpost")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn data(name: &str) -> String {
    std::fs::read_to_string(Path::new("tests/data/variants").join(name)).unwrap()
}

/// The `perft D N` lines of a data file's body.
fn expected_perft(text: &str) -> Vec<(u32, u64)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("perft "))
        .map(|l| {
            let (d, n) = l.split_once(' ').unwrap();
            (d.parse().unwrap(), n.trim().parse().unwrap())
        })
        .collect()
}

#[test]
fn fairy_stockfish_games_match_its_perft_at_depths_1_to_4() {
    for file in ["shatranj.md", "makruk.md", "losalamos.md", "gardner.md", "chess.md", "capablanca.md"] {
        let text = data(file);
        let expect = expected_perft(&text);
        assert_eq!(expect.iter().map(|e| e.0).collect::<Vec<_>>(), vec![1, 2, 3, 4], "{file}");
        let d = load_definition(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        let v = d.variant(&[]).unwrap();
        let start = v.start_position();
        for (depth, nodes) in expect {
            assert_eq!(v.perft(&start, depth), nodes, "{file} depth {depth}");
        }
    }
}

#[test]
fn fairy_stockfish_start_fens_are_the_definitions_start_positions() {
    // The start FEN pyffish gave (quoted in each file) read as a position string of the
    // definition is its start position.
    for (file, fen) in [
        ("shatranj.md", "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w 0 1"),
        ("makruk.md", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w 0 1"),
        ("losalamos.md", "rnqknr/pppppp/6/6/PPPPPP/RNQKNR w 0 1"),
        ("gardner.md", "rnbqk/ppppp/5/PPPPP/RNBQK w 0 1"),
    ] {
        let v = load_definition(&data(file)).unwrap().variant(&[]).unwrap();
        assert!(parse_position(&v, fen).unwrap() == v.start_position(), "{file}");
    }
}

#[test]
fn built_in_definitions_read_as_user_files_give_the_built_in_perft() {
    /// (slug, game options, depth).
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], u32);
    let cases: &[Case] = &[
        ("gygax", &[], 3),
        ("gygax", &[("sylph-return", "above")], 2),
        ("fidchell", &[], 2),
        ("fidchell", &[("introduction", "default")], 3),
        ("grand", &[], 3),
        ("fantasy-grand", &[], 2),
        ("fantasy-grand", &[("army-white", "elves"), ("army-black", "evil-horde")], 3),
        ("fantasy-grand", &[("army-white", "druid"), ("army-black", "giants"), ("druid", "allowed")], 2),
    ];
    for (slug, options, depth) in cases {
        let text = BUILT_IN.iter().find(|(s, _)| s == slug).unwrap().1;
        let user = load_definition(text).unwrap().variant(&opts(options)).unwrap();
        let built_in = by_name(slug, &opts(options)).unwrap();
        let (a, b) = (user.start_position(), built_in.start_position());
        assert!(a == b, "{slug} {options:?}: start positions differ");
        assert_eq!(user.perft(&a, *depth), built_in.perft(&b, *depth), "{slug} {options:?}");
    }
}

#[test]
fn variant_show_written_to_a_file_gives_the_same_perft_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    for (slug, depth) in [("gygax", "2"), ("grand", "2"), ("fidchell", "2"), ("fantasy-grand", "2")] {
        let (code, text, err) = ravenpost(&["variant", "show", slug]);
        assert_eq!(code, 0, "{err}");
        let file = dir.path().join(format!("{slug}.md"));
        std::fs::write(&file, &text).unwrap();
        let file = file.to_str().unwrap();
        let (code, out, err) = ravenpost(&["variant", "check", file]);
        assert_eq!(code, 0, "{slug}: {err}");
        assert!(out.contains(&content_hash(&text)), "{out}");
        let (_, user, _) = ravenpost(&["perft", "--variant-file", file, depth]);
        let (_, built_in, _) = ravenpost(&["perft", slug, depth]);
        assert_eq!(user, built_in, "{slug}");
        assert!(!user.trim().is_empty());
    }
}

#[test]
fn content_hash_is_the_sha256_of_the_bytes() {
    // FIPS 180-2's test vector for "abc".
    assert_eq!(
        content_hash("abc"),
        "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    let text = data("shatranj.md");
    let d = load_definition(&text).unwrap();
    assert_eq!(d.hash(), content_hash(&text));
    // One changed byte of the body is another definition.
    let changed = text.replacen("Shatranj\n", "Shatranj!\n", 1);
    assert_ne!(load_definition(&changed).unwrap().hash(), d.hash());
}

/// Hand counts in Loft chess (`tests/data/variants/loft.md`): the sorted long-form moves.
fn loft_moves(pos: Option<&str>) -> Vec<String> {
    let v = load_definition(&data("loft.md")).unwrap().variant(&[]).unwrap();
    let p = match pos {
        None => v.start_position(),
        Some(s) => parse_position(&v, s).unwrap(),
    };
    let mut m: Vec<String> = v.legal_moves(&p).iter().map(|m| long_form(&v, m)).collect();
    m.sort();
    m
}

fn sorted(items: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn loft_chess_start_position_hand_counted() {
    // White: Ground R1a1 K1c1 R1e1, pawns 1a2–1e2; Loft C2c1. Rank 3 is empty, Black far.
    // Pawns: one step each (no double step, nothing to capture): 5.
    // R1a1: up is its own pawn; right 1b1, then the King: 1. R1e1 likewise 1d1: 1.
    // K1c1: 1b1 1d1 (b2 c2 d2 own pawns); straight up is 2c1, its own Climber: 2.
    // C2c1 on Loft: W to 2b1 2d1 2c2: 3; diagonally down to 1b2 1d2 (own pawns): 0.
    // 5 + 1 + 1 + 2 + 3 = 12.
    let expected = sorted(&[
        "P1a2-1a3", "P1b2-1b3", "P1c2-1c3", "P1d2-1d3", "P1e2-1e3", "R1a1-1b1", "R1e1-1d1", "K1c1-1b1",
        "K1c1-1d1", "C2c1-2b1", "C2c1-2d1", "C2c1-2c2",
    ]);
    assert_eq!(loft_moves(None), expected);
}

#[test]
fn loft_chess_cross_level_capture_hand_counted() {
    // White K1a1 R1d1 C1c3 (Ground); Black k1e5 (Ground), r2d4 (Loft).
    // C1c3: W on Ground 1c4 1c2 1b3 1d3: 4; diagonally up 2b4 2d4 (the Rook: captured)
    //   2b2 2d2: 4. → 8.
    // K1a1: 1a2 1b1 1b2, straight up 2a1: 4 (the Loft Rook attacks the Loft's d-file
    //   and 4th rank only, not 2a1; it never leaves its level).
    // R1d1: up 1d2 1d3 1d4 1d5 (1e5's King is beside, not on, the file): 4; 1c1 1b1
    //   (then its King): 2; 1e1: 1. → 7.
    // 8 + 4 + 7 = 19.
    let expected = sorted(&[
        "C1c3-1c4", "C1c3-1c2", "C1c3-1b3", "C1c3-1d3", "C1c3-2b4", "C1c3x2d4", "C1c3-2b2", "C1c3-2d2",
        "K1a1-1a2", "K1a1-1b1", "K1a1-1b2", "K1a1-2a1", "R1d1-1d2", "R1d1-1d3", "R1d1-1d4", "R1d1-1d5",
        "R1d1-1c1", "R1d1-1b1", "R1d1-1e1",
    ]);
    assert_eq!(loft_moves(Some("5/3r1/5/5/5 4k/5/2C2/5/K2R1 w 0 1")), expected);
}

#[test]
fn loft_chess_check_with_promotion_and_blocks_hand_counted() {
    // White K1c1, pawn 1b4 (Ground), C2d3 (Loft); Black r1c5 (Ground) checks down the
    // c-file, k2e5 (Loft).
    // K1c1: 1b1 1d1 1b2 1d2 (1c2 stays on the Rook's file): 4; straight up 2c1 (the Rook
    //   never leaves Ground): 1. → 5.
    // Pawn 1b4: 1b5 promotes but leaves the check: 0; x1c5 takes the checker and becomes
    //   a Climber (the only promotion): 1.
    // C2d3: of its 8 moves only the two that land between Rook and King block:
    //   diagonally down to 1c4 and 1c2: 2.
    // 5 + 1 + 2 = 8.
    let expected = sorted(&[
        "K1c1-1b1",
        "K1c1-1d1",
        "K1c1-1b2",
        "K1c1-1d2",
        "K1c1-2c1",
        "P1b4x1c5=C",
        "C2d3-1c4",
        "C2d3-1c2",
    ]);
    assert_eq!(loft_moves(Some("4k/5/3C1/5/5 2r2/1P3/5/5/2K2 w 0 1")), expected);
}

/// `variant check` on `text` (written to a temporary file): exit code and stderr.
fn check(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v.md");
    std::fs::write(&file, text).unwrap();
    let (code, _, err) = ravenpost(&["variant", "check", file.to_str().unwrap()]);
    (code, err.replace(file.to_str().unwrap(), "v.md"))
}

#[test]
fn variant_check_places_each_problem_at_its_line_and_column() {
    let good = data("shatranj.md");
    let line_of = |text: &str, needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    // An unknown movement atom: named, at its token.
    let bad = good.replace("betza: \"A\"", "betza: \"Xq\"");
    let (code, err) = check(&bad);
    assert_eq!(code, 1, "{err}");
    let l = line_of(&bad, "\"Xq\"");
    assert!(err.contains(&format!("v.md:{l}:21: Alfil: movement `Xq`")), "{err}");
    // An unknown special shape: named.
    let bad = good.replace("{ betza: \"F\" }", "{ special: \"leap X\" }");
    let (code, err) = check(&bad);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(":{}:23: Ferz: unknown special `leap X`", line_of(&bad, "leap X"))),
        "{err}"
    );
    // An unknown field: serde's own place, shifted past the opening `---`.
    let bad = good.replace("      royal: true\n", "      royal: true\n      colour: red\n");
    let (code, err) = check(&bad);
    assert_eq!(code, 1);
    assert!(err.contains(&format!(":{}:7: ", line_of(&bad, "colour"))) && err.contains("`colour`"), "{err}");
    // An unknown piece code in a setup string: the column inside the string.
    let bad = good.replace("\"RNBKQBNR/", "\"RNBKQBNX/");
    let (code, err) = check(&bad);
    assert_eq!(code, 1);
    assert!(err.contains(&format!(":{}:15: ", line_of(&bad, "RNBKQBNX"))) && err.contains("`X`"), "{err}");
    // No royal piece for White: at `setup:`.
    let bad = good.replace("\"RNBKQBNR/", "\"RNBQQBNR/");
    let (code, err) = check(&bad);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(":{}:3: start position: White has no royal piece", line_of(&bad, "setup:")))
    );
    // Unknown rules.
    let bad = good.replace("rules: chess", "rules: xiangqi");
    let (code, err) = check(&bad);
    assert_eq!(code, 1);
    assert!(err.contains("unknown rules `xiangqi` (known: gygax, fidchell, grand, chess)"), "{err}");
    // No front matter.
    let (code, err) = check("# Shatranj\n");
    assert_eq!(code, 1);
    assert!(err.contains("v.md:1:1: no YAML front matter"), "{err}");
}

#[test]
fn variant_check_of_an_unreadable_file_exits_2() {
    let (code, _, err) = ravenpost(&["variant", "check", "tests/data/variants/no-such-file.md"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-file.md"), "{err}");
}

#[test]
fn load_definition_errors_are_typed() {
    let bad = data("shatranj.md").replace("to: [Q]", "to: [Z]");
    let e = load_definition(&bad).unwrap_err();
    assert_eq!(e.error, VariantError::UnknownCode { code: "Z".into() });
    assert_eq!(e.line, Some(bad.lines().position(|l| l.contains("to: [Z]")).unwrap() + 1));
}

#[test]
fn moves_and_perft_take_a_variant_file() {
    let (code, out, err) = ravenpost(&["moves", "--variant-file", "tests/data/variants/shatranj.md"]);
    assert_eq!(code, 0, "{err}");
    // Eight pawn steps, two Knights with two moves each, and the Alfils' leaps over
    // their pawns: c1 to a3 and e3, f1 to d3 and h3.
    assert_eq!(out.lines().count(), 16);
    for alfil in ["Bc1-a3", "Bc1-e3", "Bf1-d3", "Bf1-h3"] {
        assert!(out.lines().any(|l| l == alfil), "{out}");
    }
    let (code, out, _) = ravenpost(&["perft", "--variant-file", "tests/data/variants/makruk.md", "2"]);
    assert_eq!(code, 0);
    assert_eq!(out.trim(), "529");
}

/// A bare repository with the hook and Ann's and Bo's clones; Ann starts the archive and
/// the Loft chess game `g` from the data file (`new --variant-file`) and syncs; Bo syncs.
struct Club {
    _t: tempfile::TempDir,
    home: std::path::PathBuf,
    server: std::path::PathBuf,
    ann: std::path::PathBuf,
    bo: std::path::PathBuf,
}

impl Club {
    fn new() -> Club {
        use common::ok;
        let common::BareClub { dir: t, home, server, ann, bo } = common::bare_club();
        let loft = std::fs::canonicalize("tests/data/variants/loft.md").unwrap();
        let loft = loft.to_str().unwrap();
        ok(&ann, &home, &["new", "--variant-file", loft, "--white", "Ann", "--black", "Bo", "--id", "g"]);
        assert!(ok(&ann, &home, &["sync"]).contains("Pushed"));
        assert!(ok(&bo, &home, &["sync"]).contains("Fetched"));
        Club { _t: t, home, server, ann, bo }
    }

    fn server_tip(&self) -> String {
        common::git(&self.server, &self.home, &["rev-parse", "refs/heads/main"]).trim().to_string()
    }

    /// Ann's `git push`, which the hook must refuse saying `reason` about `subject`;
    /// the server's branch stays, and Ann's clone is reset to it.
    fn push_refused(&self, subject: &str, reason: &str) {
        let before = self.server_tip();
        let o = common::git_out(&self.ann, &self.home, &["push", "origin", "main"]);
        let err = common::text(&o);
        assert!(!o.status.success(), "push accepted: {err}");
        assert!(err.contains(&format!("remote: ravenpost: {subject} ")), "{err}");
        assert!(err.contains(reason), "expected {reason:?} in: {err}");
        assert_eq!(self.server_tip(), before);
    }
}

#[test]
fn a_user_defined_variant_is_played_through_a_bare_repository_with_the_hook() {
    use common::{git, ok};
    let c = Club::new();
    // The definition is committed in the archive, exactly as given, and pinned by hash.
    let loft = data("loft.md");
    assert_eq!(git(&c.bo, &c.home, &["show", "HEAD:variants/loft.md"]), loft);
    let game = std::fs::read_to_string(c.bo.join("games/loft/c/d/g.pgn")).unwrap();
    assert!(game.contains("[Variant \"loft\"]"), "{game}");
    assert!(game.contains("[VariantFile \"variants/loft.md\"]"), "{game}");
    assert!(game.contains(&format!("[VariantHash \"{}\"]", content_hash(&loft))), "{game}");
    // Four plies, each player in their own clone, each push checked by the hook.
    for (i, m) in ["1a3", "1c3", "bx1c3", "dx1c3"].iter().enumerate() {
        let (dir, who) = if i % 2 == 0 { (&c.ann, "Ann") } else { (&c.bo, "Bo") };
        ok(dir, &c.home, &["sync"]);
        ok(dir, &c.home, &["move", "g", m, "--as", who]);
        assert!(ok(dir, &c.home, &["sync"]).contains("Pushed 1 commit"));
    }
    ok(&c.ann, &c.home, &["sync"]);
    let log = git(&c.server, &c.home, &["log", "--format=%an %s", "main"]);
    assert_eq!(log.lines().filter(|l| l.contains(": ply ")).count(), 4, "{log}");
    assert!(ok(&c.ann, &c.home, &["verify"]).contains("0 problems"));
    // In a working copy, validate and show of the file find the definition beside it;
    // a copy outside any archive says which definition it needs.
    assert!(ok(&c.bo, &c.home, &["validate", "games"]).contains("1 valid"));
    let outside = c.ann.parent().unwrap().join("g.pgn");
    std::fs::copy(c.ann.join("games/loft/c/d/g.pgn"), &outside).unwrap();
    let err = common::fails(&c.bo, &c.home, &["validate", outside.to_str().unwrap()], 1, "is not at hand");
    assert!(err.contains(&content_hash(&loft)), "{err}");
    // An illegal move of the definition's rules is refused (the Rook does not leave its level).
    common::fails(&c.ann, &c.home, &["move", "g", "R1a1-2a1", "--as", "Ann"], 1, "illegal");
    assert!(ok(&c.ann, &c.home, &["show", "g"]).contains("ply 4"));
}

#[test]
fn changing_a_pinned_definition_is_refused_by_the_hook_and_by_verify() {
    use common::{fails, git, ok, ok_at, run};
    let c = Club::new();
    ok(&c.ann, &c.home, &["move", "g", "1a3", "--as", "Ann"]);
    ok(&c.ann, &c.home, &["sync"]);
    // A plain git commit that changes the rules under the started game.
    let file = c.ann.join("variants/loft.md");
    let changed = data("loft.md").replace("{ betza: \"R\" }", "{ betza: \"Q\" }");
    std::fs::write(&file, &changed).unwrap();
    git(&c.ann, &c.home, &["commit", "--quiet", "-am", "loft: the Rook slides diagonally too"]);
    c.push_refused(
        "variants/loft.md",
        "variants/loft.md was changed: a committed variant definition is never changed",
    );
    // verify in the clone that holds the commit reports it, and no move is made on it.
    let o = run(&c.ann, &c.home, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", common::text(&o));
    assert!(common::text(&o).contains("variants/loft.md was changed"), "{}", common::text(&o));
    let err =
        fails(&c.ann, &c.home, &["move", "g", "1c3", "--as", "Bo"], 1, "is not the definition the game pins");
    assert!(err.contains(&content_hash(&changed)), "{err}");
    // Deleting it is refused too.
    git(&c.ann, &c.home, &["reset", "--quiet", "--hard", "origin/main"]);
    git(&c.ann, &c.home, &["rm", "--quiet", "variants/loft.md"]);
    git(&c.ann, &c.home, &["commit", "--quiet", "-m", "no more loft"]);
    c.push_refused("variants/loft.md", "variants/loft.md was deleted");
    let o = run(&c.ann, &c.home, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(common::text(&o).contains("variants/loft.md was deleted"), "{}", common::text(&o));
    // A new definition beside it is allowed, and a game can start from it by name.
    git(&c.ann, &c.home, &["reset", "--quiet", "--hard", "origin/main"]);
    let loft2 =
        data("loft.md").replace("slug: loft", "slug: loft-2").replace("{ betza: \"R\" }", "{ betza: \"Q\" }");
    std::fs::write(c.ann.join("variants/loft-2.md"), &loft2).unwrap();
    git(&c.ann, &c.home, &["add", "variants/loft-2.md"]);
    git(&c.ann, &c.home, &["commit", "--quiet", "-m", "variants: loft-2"]);
    ok(&c.ann, &c.home, &["new", "loft-2", "--white", "Ann", "--black", "Bo", "--id", "h"]);
    // Pushed after the definition was committed by hand (dated GIT_DATE): the hook refuses
    // a commit dated later than it arrives.
    assert!(ok_at(&c.ann, &c.home, common::T0 + 3_600, &["sync"]).contains("Pushed 2 commits"));
    let h = std::fs::read_to_string(c.ann.join("games/loft-2/a/a/h.pgn")).unwrap();
    assert!(h.contains(&format!("[VariantHash \"{}\"]", content_hash(&loft2))), "{h}");
    // The Rook of loft-2 moves as a Queen: a diagonal move no loft Rook has.
    ok(&c.ann, &c.home, &["move", "h", "1b3", "--as", "Ann"]);
    ok(&c.ann, &c.home, &["move", "h", "1e3", "--as", "Bo"]);
    ok(&c.ann, &c.home, &["move", "h", "R1a1-1b2", "--as", "Ann"]);
    assert!(ok(&c.ann, &c.home, &["verify"]).contains("0 problems"));
}

#[test]
fn a_game_pinning_another_hash_than_its_definition_is_refused_by_the_hook() {
    use common::{git, ok};
    let c = Club::new();
    // Bo writes a second game by hand, copying g but pinning a hash no file has.
    let g = std::fs::read_to_string(c.bo.join("games/loft/c/d/g.pgn")).unwrap();
    let wrong = "sha256:".to_string() + &"0".repeat(64);
    let forged = g.replace(&content_hash(&data("loft.md")), &wrong);
    std::fs::create_dir_all(c.ann.join("games/loft/2/5")).unwrap();
    std::fs::write(c.ann.join("games/loft/2/5/f.pgn"), forged).unwrap();
    git(&c.ann, &c.home, &["add", "games/loft/2/5/f.pgn"]);
    git(&c.ann, &c.home, &["commit", "--quiet", "-m", "f: by hand"]);
    c.push_refused("f", "variants/loft.md is not the definition the game pins");
    let o = common::run(&c.ann, &c.home, &["verify"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(common::text(&o).contains(&format!("the game's VariantHash is {wrong}")), "{}", common::text(&o));
    // Another archive's definition of the same slug cannot replace the committed one.
    let other = c.ann.parent().unwrap().join("other-loft.md");
    std::fs::write(&other, data("loft.md").replace("Loft chess", "Other loft")).unwrap();
    git(&c.ann, &c.home, &["reset", "--quiet", "--hard", "origin/main"]);
    let o = common::run(
        &c.ann,
        &c.home,
        &["new", "--variant-file", other.to_str().unwrap(), "--white", "Ann", "--black", "Bo"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", common::text(&o));
    assert!(common::text(&o).contains("already has another definition of `loft`"), "{}", common::text(&o));
    assert!(ok(&c.ann, &c.home, &["verify"]).contains("0 problems"));
}

/// Regression (s4 fresh-user report (c)19): the Betza token `Xq` was refused as "range
/// must be a number" though `X` is no atom, and the same error was placed `v.md:31:21:`
/// by `variant check` but `v.md:line 31, column 21:` by `new --variant-file`. Now the
/// unknown atom is named as such, in one `file:line:column` format for both commands.
#[test]
fn unknown_betza_atom_was_called_a_bad_range() {
    let good = data("shatranj.md");
    let bad = good.replace("betza: \"A\"", "betza: \"Xq\"");
    let line = bad.lines().position(|l| l.contains("\"Xq\"")).unwrap() + 1;
    let (code, err) = check(&bad);
    assert_eq!(code, 1, "{err}");
    let place = format!("v.md:{line}:21: Alfil: movement `Xq`: unknown atom `X`");
    assert!(err.contains(&place), "{err}");
    let (_t, dir, home) = common::archive();
    std::fs::write(dir.join("v.md"), &bad).unwrap();
    let err = common::fails(
        &dir,
        &home,
        &["new", "--variant-file", "v.md", "--white", "Ann", "--black", "Bo"],
        2,
        &place,
    );
    assert!(!err.contains("line "), "{err}");
    // A range that is no number, after a known atom: said so, naming it.
    let (_, err) = check(&good.replace("betza: \"A\"", "betza: \"Aq\""));
    assert!(err.contains("movement `Aq`: `q` after the atoms: a range must be a number"), "{err}");
}

/// Every built-in entry is listed under its definition's slug (a variant named by slug is
/// read without reading the others), and each slug and alias names its own variant.
#[test]
fn built_in_entries_are_listed_under_their_slugs() {
    for (slug, text) in ravenpost::variants::BUILT_IN {
        let def = ravenpost::variants::read_definition(text).unwrap();
        assert_eq!(def.slug, *slug);
        for name in std::iter::once(&def.slug).chain(&def.aliases) {
            let v = ravenpost::variants::by_name(name, &[]).unwrap();
            assert_eq!(v.def().slug, *slug, "{name}");
        }
    }
}

/// The definitions a pinned game replays with are a value passed to the loader: loading
/// a game with them leaves nothing behind in the process (the registry of loaded
/// definitions they replaced let a second archive's game replay with the first's).
#[test]
fn a_definition_loaded_once_was_remembered_for_the_whole_process() {
    use ravenpost::record::{Loader, Refusal};
    use ravenpost::variants::Definitions;
    let text = data("gardner.md");
    let definition = load_definition(&text).unwrap();
    let slug = definition.def().slug.clone();
    let game = format!(
        "[Variant \"{slug}\"]\n[VariantFile \"variants/{slug}.md\"]\n[VariantHash \"{}\"]\n[Result \"*\"]\n\n*\n",
        content_hash(&text)
    );
    let mut held = Definitions::new();
    held.insert(definition);
    let loaded = Loader::new().definitions(&held).load(&game).unwrap();
    assert_eq!(loaded.game.variant.def().slug, slug);
    // The same game, loaded without them, after they were used: not loaded.
    for refused in [Loader::new().load(&game).map(|l| l.game), ravenpost::record::load(&game)] {
        let Err(Refusal::Invalid(problems)) = refused else { panic!("replayed without its definition") };
        let message = &problems[0].message;
        assert!(message.contains("which is not at hand"), "{message}");
    }
    assert!(Loader::new().definitions(&Definitions::new()).load(&game).is_err());
}

/// Once the definitions were no longer remembered for the whole process, every command
/// that loads a game had to be handed the archive's: `mail export` refused a game of a
/// user variant as "not at hand", and the site listed it as unreadable.
#[test]
fn a_user_variant_game_was_not_at_hand_for_mail_export_and_the_site() {
    use common::ok;
    let c = Club::new();
    ok(&c.ann, &c.home, &["move", "g", "1a3", "--as", "Ann"]);
    ok(&c.ann, &c.home, &["sync"]);
    // Bo's sync says what came in, as for a built-in variant (not "Ann's change").
    let fetched = ok(&c.bo, &c.home, &["sync"]);
    assert!(fetched.contains("ply 1 1a3 by Ann ("), "{fetched}");
    let mail = ok(&c.ann, &c.home, &["mail", "export", "g", "--as", "Ann", "--to", "bo@example.org"]);
    assert!(mail.contains("Content-Disposition: attachment; filename=\"g.pgn\""), "{mail}");
    assert!(mail.contains("1a3"), "{mail}");
    let site = c.ann.parent().unwrap().join("site");
    let report = ok(&c.ann, &c.home, &["site", site.to_str().unwrap()]);
    assert!(!report.contains("unreadable"), "{report}");
    let page = std::fs::read_to_string(site.join("games/loft/g.html")).unwrap();
    assert!(page.contains("1a3"), "the game page shows the move");
    for args in [&["show", "g"][..], &["status"], &["log", "g"], &["verify"], &["validate", "games"]] {
        ok(&c.ann, &c.home, args);
    }
}

/// Regression (a new user's trial): inside an archive whose `variants/capablanca.md`
/// `new capablanca` plays, `perft`, `position`, `moves`, `variant show` and `variant
/// legend` said "unknown variant `capablanca`". They now take the archive's definition
/// (perft 3 from the start is Fairy-Stockfish's 25,228, `tests/data/fsf/perft.txt`);
/// outside an archive the name is still unknown.
#[test]
fn archive_variants_were_unknown_to_perft_position_moves_and_variant_show() {
    use common::{archive, ok, run, text};
    let (t, dir, home) = archive();
    let file = std::fs::canonicalize("tests/data/variants/capablanca.md").unwrap();
    let file = file.to_str().unwrap();
    ok(&dir, &home, &["new", "--variant-file", file, "--white", "Ann", "--black", "Bo", "--id", "c"]);
    assert_eq!(ok(&dir, &home, &["perft", "capablanca", "3"]).trim(), "25228");
    let shown = ok(&dir, &home, &["position", "capablanca"]);
    assert!(
        shown.starts_with("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1\n"),
        "{shown}"
    );
    let moves = ok(&dir, &home, &["moves", "capablanca"]);
    assert_eq!(moves.lines().count(), 28, "{moves}");
    assert_eq!(ok(&dir, &home, &["variant", "show", "capablanca"]), std::fs::read_to_string(file).unwrap());
    assert!(ok(&dir, &home, &["variant", "legend", "capablanca"]).contains("Capablanca"));
    let outside = t.path().join("home");
    let o = run(&outside, &home, &["perft", "capablanca", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("unknown variant `capablanca`"), "{}", text(&o));
}
