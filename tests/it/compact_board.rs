//! The whole position on one 80×24 screen (issue 34): the compact layout of `show`,
//! `replay` opening at the last move and `moves --board`, each run in a real 80×24 tmux
//! window and read back from the screen; the mail body in NeoMutt in tmux at 80×24; the
//! legend of each built-in variant; `moves --from`, `--piece` and `--board` on positions
//! with a frozen piece, a Dragon's capture from afar and a level change, each listed
//! long form read back as the same move as its SAN.
//!
//! The screens are kept as artefacts: in the test's temporary directory and in
//! `$CARGO_TARGET_TMPDIR/compact-board/` (target/tmp), whose path the test prints.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::diagram::{read_compact, read_placements};
use common::tmux::{Tmux, keep};
use common::tools::require;
use common::{archive, identity, ok, run, text};

const LEVELS: [&str; 3] = ["Air (3)", "Land (2)", "Subterranean (1)"];

/// Checks that `screen` (24 lines of an 80-column window) holds the whole compact board
/// of `position`: the three level names, rank 8 and rank 1, the file letters, every square
/// as the position string has it.
fn whole_board(screen: &str, position: &str) {
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.len() <= 24, "{screen}");
    for l in &lines {
        assert!(l.chars().count() <= 80, "{l:?}");
    }
    let heading = lines.iter().find(|l| l.contains("Air (3)")).unwrap_or_else(|| panic!("{screen}"));
    for name in LEVELS {
        assert!(heading.contains(name), "{name}: {screen}");
    }
    for rank in ["8 ", "1 "] {
        let row =
            lines.iter().find(|l| l.starts_with(rank)).unwrap_or_else(|| panic!("rank {rank}: {screen}"));
        assert!(row.len() >= 76, "rank {rank} cut: {row:?}");
    }
    let (boards, _) = read_compact(screen);
    assert_eq!(boards.len(), 3, "{screen}");
    assert_eq!(boards, read_placements(position, 3), "{screen}");
}

/// A Gygax game of `plies` plies between Ann (Gold) and Bo (Scarlet) in the archive `dir`:
/// each move the first legal one that captures nothing and does not end the game.
fn middle_game(dir: &Path, home: &Path, id: &str, plies: usize) {
    ok(
        dir,
        home,
        &[
            "new",
            "gygax",
            "--white",
            "Ann",
            "--black",
            "Bo",
            "--id",
            id,
            "--white-email",
            "ann@example.org",
            "--black-email",
            "bo@example.org",
        ],
    );
    for ply in 1..=plies {
        let j: serde_json::Value = serde_json::from_str(&ok(dir, home, &["moves", id, "--json"])).unwrap();
        let sans: Vec<&str> =
            j["moves"].as_array().unwrap().iter().map(|m| m["san"].as_str().unwrap()).collect();
        // Vary the moves: the ply-th move that is no capture.
        let quiet: Vec<&&str> = sans.iter().filter(|m| !m.contains('x') && !m.contains(':')).collect();
        let mv = quiet[(ply * 7) % quiet.len()];
        let out = ok(dir, home, &["move", id, mv, "--expect-ply", &ply.to_string()]);
        assert!(!out.contains("Result:"), "{mv} ended {id}: {out}");
    }
}

fn position(dir: &Path, home: &Path, id: &str) -> String {
    let j: serde_json::Value = serde_json::from_str(&ok(dir, home, &["show", id, "--json"])).unwrap();
    j["position"].as_str().unwrap().to_string()
}

/// `show` of a Gygax middle game, `replay` at the last move and `moves --board`, each in an
/// 80×24 tmux window: the whole board on the screen (level names, ranks 8 and 1, the file
/// letters, every square), with whose move it is.
#[test]
fn show_replay_and_moves_board_fit_an_80x24_terminal() {
    let (t, dir, home) = archive();
    middle_game(&dir, &home, "g", 24);
    let pos = position(&dir, &home, "g");
    let to_move = "Ann (Gold) to move (move 13)";

    let show = Tmux::start(&dir, &home, "show", r#""$RAVENPOST" show g"#);
    let screen = show.screen_when(|s| s.contains("to move"));
    keep(t.path(), "compact-board", "show", &screen);
    whole_board(&screen, &pos);
    assert!(screen.lines().any(|l| l == to_move), "{screen}");
    assert!(screen.lines().any(|l| l == "Ann (Gold) v Bo (Scarlet)"), "{screen}");
    let last =
        screen.lines().find(|l| l.starts_with("Last move: 12... ")).unwrap_or_else(|| panic!("{screen}"));
    assert!(last.ends_with(", ply 24"), "{last}");
    // The last move's two squares are marked on the board.
    assert_eq!(read_compact(&screen).1.len(), 2, "{screen}");
    // The same text as a pipe gets (an unknown width: the compact layout).
    assert_eq!(screen.trim_end(), ok(&dir, &home, &["show", "g"]).trim_end());

    let replay = Tmux::start(&dir, &home, "replay", r#""$RAVENPOST" replay g"#);
    let screen = replay.screen_when(|s| s.contains("Keys:"));
    keep(t.path(), "compact-board", "replay", &screen);
    let lines: Vec<&str> = screen.lines().collect();
    assert_eq!(
        lines[0],
        "Gygax Chess: Ann (Gold) v Bob (Scarlet), ply 24 of 24".replace("Bob", "Bo"),
        "{screen}"
    );
    whole_board(&screen, &pos);
    assert!(lines.contains(&to_move), "{screen}");
    assert!(lines.iter().any(|l| l.starts_with("> 12... ")), "the list marks the last ply: {screen}");
    assert!(lines.iter().any(|l| l.starts_with("Keys: ")), "{screen}");
    // One ply back: the board of ply 23.
    replay.keys(&["p"]);
    let back = replay.screen_when(|s| s.contains("ply 23 of 24"));
    keep(t.path(), "compact-board", "replay-ply-23", &back);
    let j: serde_json::Value =
        serde_json::from_str(&ok(&dir, &home, &["replay", "g", "--ply", "23", "--json"])).unwrap();
    whole_board(&back, j["position"].as_str().unwrap());
    replay.keys(&["q"]);

    // The moves of the Gold Cleric on Land (it stands on 2e1 at the start and can move).
    let j: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["moves", "g", "--json"])).unwrap();
    let from = j["moves"].as_array().unwrap()[0]["from"].as_str().unwrap().to_string();
    let listed: Vec<String> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["from"] == from.as_str())
        .map(|m| m["long"].as_str().unwrap().to_string())
        .collect();
    let board = Tmux::start(&dir, &home, "moves", &format!(r#""$RAVENPOST" moves g --from {from} --board"#));
    let screen = board.screen_when(|s| s.contains("to move"));
    keep(t.path(), "compact-board", "moves-board", &screen);
    whole_board(&screen, &pos);
    assert!(screen.lines().any(|l| l == to_move), "{screen}");
    for long in &listed {
        assert!(screen.contains(long.as_str()), "{long} not on the screen:\n{screen}");
    }
    // The origin is marked, and as many squares reached as there are moves to distinct
    // squares.
    let (_, marked) = read_compact(&screen);
    assert!(marked.iter().any(|m| m.3 == '[' || m.3 == '|'), "{screen}");
    let reached = screen
        .lines()
        .filter(|l| l.len() > 70 && l.as_bytes()[0].is_ascii_digit())
        .map(|l| l.matches('+').count())
        .sum::<usize>()
        + marked.iter().filter(|m| m.3 == '(').count();
    let squares: BTreeSet<String> = listed.iter().map(|l| l[l.len() - 3..].to_string()).collect();
    assert_eq!(reached, squares.len(), "{screen}");
    drop(t);
}

/// `moves GAME --board` without a filter drew the board above the whole list (80 lines
/// in a Gygax middle game): in an 80×24 terminal the board scrolled away. The list now
/// comes first and the board, its key and whose move it is stay on the last screen.
#[test]
fn moves_board_scrolled_off_above_a_long_list() {
    let (t, dir, home) = archive();
    middle_game(&dir, &home, "g", 24);
    let pos = position(&dir, &home, "g");
    let j: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["moves", "g", "--json"])).unwrap();
    let count = j["moves"].as_array().unwrap().len();
    let listed = ok(&dir, &home, &["moves", "g", "--board"]);
    assert!(listed.lines().count() > 24, "a list taller than the window: {listed}");
    let board = Tmux::start(&dir, &home, "moves-all", r#""$RAVENPOST" moves g --board"#);
    let screen = board.screen_when(|s| s.contains("Ann (Gold) to move"));
    keep(t.path(), "compact-board", "moves-board-all", &screen);
    whole_board(&screen, &pos);
    assert!(screen.contains("[X] moves  + reaches an empty square  (x) is captured"), "{screen}");
    // Every move's origin is marked: as many origins as the JSON lists.
    let origins: BTreeSet<&str> =
        j["moves"].as_array().unwrap().iter().filter_map(|m| m["from"].as_str()).collect();
    let (_, marked) = read_compact(&screen);
    let brackets = marked.iter().filter(|m| m.3 == '[' || m.3 == '|').count();
    assert!(count > 24 && brackets > 0 && brackets <= origins.len(), "{brackets} of {origins:?}\n{screen}");
    drop(t);
}

/// The mail body in NeoMutt, in an 80×24 tmux window: the first screen holds the whole
/// board and whose move it is.
#[test]
fn the_mail_body_shows_the_whole_board_on_neomutts_first_screen() {
    require("neomutt", &["-v"], "neomutt");
    let (t, dir, home) = archive();
    middle_game(&dir, &home, "g", 24);
    let pos = position(&dir, &home, "g");
    let eml = t.path().join("g.eml");
    ok(&dir, &home, &["mail", "export", "g", "--as", "Bo", "-o", eml.to_str().unwrap()]);
    let mbox = t.path().join("inbox");
    let message = std::fs::read_to_string(&eml).unwrap();
    std::fs::write(&mbox, format!("From bo@example.org Sat Nov 29 07:06:40 2025\n{message}\n")).unwrap();
    let muttrc = t.path().join("muttrc");
    std::fs::write(
        &muttrc,
        format!(
            "set mbox_type=mbox\nset folder={0}\nset spoolfile={1}\nset mbox={1}\nset record=\"\"\n\
             set header_cache=\"\"\nset message_cachedir=\"\"\n",
            t.path().display(),
            mbox.display()
        ),
    )
    .unwrap();
    let mutt_home = identity(&t.path().join("mutt-home"), "Ann", "ann@example.org");
    let nm = Tmux::start(
        t.path(),
        &mutt_home,
        "neomutt",
        &format!("neomutt -F {} -f {}", muttrc.display(), mbox.display()),
    );
    nm.screen_when(|s| s.contains("[ravenpost] g:"));
    nm.keys(&["Enter"]);
    let screen = nm.screen_when(|s| s.contains("Subject: [ravenpost] g:") && s.contains("Air (3)"));
    keep(t.path(), "compact-board", "neomutt", &screen);
    whole_board(&screen, &pos);
    // Whose move and the move, and how to answer, on the same first screen.
    assert!(screen.lines().any(|l| l == "Game g: Ann (Gold) to move after 12... Si3j6."), "{screen}");
    let words = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "To answer: pipe this mail into `ravenpost mail import -`, then `ravenpost move g MOVE` \
             and `ravenpost mail send g`."
        ),
        "{screen}"
    );
    nm.keys(&["q", "q"]);
}

/// A Gygax position: a Gold Dragon on 3e5 above a Scarlet Warrior on 2e5, a Gold Oliphant
/// on 2h4 frozen by the Scarlet Basilisk on 1h4 below it, a Gold Mage on 2c3, the kings on
/// 2a1 and 2l8; Gold to move.
const FROZEN: &str = "12/12/12/4R7/12/12/12/12 11k/12/12/4w7/7O4/2M9/12/K11 12/12/12/12/7b4/12/12/12 g 0 1";

/// A game file starting at `position`.
fn game_file(dir: &Path, name: &str, position: &str) -> PathBuf {
    let text = format!(
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"2026.12.03\"]\n[Round \"-\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n\
         [Result \"*\"]\n[Variant \"gygax\"]\n[Ruleset \"ravenpost-1\"]\n[SetUp \"1\"]\n[FEN \"{position}\"]\n\n*\n"
    );
    let path = dir.join(format!("{name}.pgn"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The (SAN, long form) pairs of `moves FILE --json ARGS`.
fn listed(dir: &Path, home: &Path, file: &str, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["moves", file, "--json"];
    all.extend_from_slice(args);
    let j: serde_json::Value = serde_json::from_str(&ok(dir, home, &all)).unwrap();
    j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["san"].as_str().unwrap().to_string(), m["long"].as_str().unwrap().to_string()))
        .collect()
}

/// `moves --from`, `--piece` and `--board` on a position with a frozen piece, a Dragon's
/// capture from afar and a Mage's level change; each listed long form, played, is the same
/// move as its SAN.
#[test]
fn moves_from_piece_and_board_list_long_forms_that_read_back_as_their_san() {
    let (t, dir, home) = archive();
    let file = game_file(t.path(), "frozen", FROZEN);
    let f = file.to_str().unwrap();
    let all = listed(&dir, &home, f, &[]);

    // The frozen Oliphant: no move, and the reason said; without the Basilisk it has some.
    assert_eq!(listed(&dir, &home, f, &["--from", "2h4"]), vec![]);
    let said = ok(&dir, &home, &["moves", f, "--from", "2h4"]);
    assert_eq!(said, "No legal move from 2h4: the Oliphant there is frozen by an enemy Basilisk.\n");
    // Regression (a tester's report): `--from` a piece that moves with `--piece` naming
    // another kind said "the Sylph there cannot move"; it can, --piece left it out.
    let said = ok(&dir, &home, &["moves", f, "--from", "2c3", "--piece", "O"]);
    assert_eq!(said, "No legal move from 2c3 for --piece O: the piece there is a Mage.\n");
    assert!(!listed(&dir, &home, f, &["--from", "2c3"]).is_empty(), "the Mage moves");
    let free = game_file(t.path(), "free", &FROZEN.replace("7b4", "12"));
    assert!(!listed(&dir, &home, free.to_str().unwrap(), &["--from", "2h4"]).is_empty());
    let board = ok(&dir, &home, &["moves", f, "--from", "2h4", "--board"]);
    let (_, marked) = read_compact(&board);
    assert_eq!(marked, vec![(1, 4, 7, '[')], "the Oliphant alone is marked:\n{board}");
    assert!(!board.lines().take(10).any(|l| l.contains('+')), "{board}");

    // The Dragon: its capture from afar of the Warrior below it.
    let dragon = listed(&dir, &home, f, &["--from", "3e5"]);
    assert!(dragon.iter().any(|(_, l)| l == "R3e5:2e5"), "{dragon:?}");
    assert_eq!(listed(&dir, &home, f, &["--piece", "R"]), dragon);
    assert_eq!(listed(&dir, &home, f, &["--piece", "dragon"]), dragon);
    let board = ok(&dir, &home, &["moves", f, "--from", "3e5", "--board"]);
    let (boards, marked) = read_compact(&board);
    assert!(marked.contains(&(1, 3, 4, '(')), "the Warrior on 2e5 is marked captured:\n{board}");
    assert!(marked.contains(&(0, 3, 4, '[')), "the Dragon on 3e5 is marked:\n{board}");
    assert_eq!(boards[1][3][4], "w");
    // The grouped text lists each move with its long form beside its SAN.
    let grouped = ok(&dir, &home, &["moves", f, "--from", "3e5"]);
    assert_eq!(grouped.lines().next(), Some("Dragon on 3e5:"), "{grouped}");
    let pairs: Vec<(String, String)> = grouped
        .lines()
        .skip(1)
        .flat_map(|l| {
            let w: Vec<String> = l.split_whitespace().map(str::to_string).collect();
            w.chunks(2).map(|c| (c[0].clone(), c[1].clone())).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(pairs, dragon, "{grouped}");

    // The Mage: up to Air and down to Subterranean.
    let mage = listed(&dir, &home, f, &["--piece", "M"]);
    for long in ["M2c3-3c3", "M2c3-1c3"] {
        assert!(mage.iter().any(|(_, l)| l == long), "{long}: {mage:?}");
    }
    assert_eq!(mage, listed(&dir, &home, f, &["--from", "2c3"]));

    // Every move of the position: the long form played is the SAN played.
    let game = ravenpost::record::load(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(all.len() > 20, "{all:?}");
    for (san, long) in &all {
        let play = |token: &str| {
            let (_, g) = ravenpost::record::play(&game, token, ravenpost::record::Play::default())
                .unwrap_or_else(|e| panic!("{token}: {e}"));
            *g.moves.last().unwrap()
        };
        assert_eq!(play(long), play(san), "{long} and {san}");
    }

    // Bad input: where and what would be legal.
    let o = run(&dir, &home, &["moves", f, "--from", "9z9"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--from `9z9`: not a square of Gygax Chess"), "{}", text(&o));
    let o = run(&dir, &home, &["moves", f, "--piece", "Z"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("its letters: S G R W O U H T C M K P D B E"), "{}", text(&o));
}

/// The piece codes a variant's games can show: those of its start position and what they
/// promote to (again and again), read from the definition.
fn codes_in_play(v: &ravenpost::engine::Variant) -> BTreeSet<String> {
    let def = v.def();
    let mut kinds: Vec<_> = v.start_position().pieces().map(|(_, p)| p.kind).collect();
    let mut i = 0;
    while i < kinds.len() {
        if let Some(p) = &def.kind(kinds[i]).promotion {
            for k in &p.to {
                if !kinds.contains(k) {
                    kinds.push(*k);
                }
            }
        }
        i += 1;
    }
    // Fidchell's pieces in hand come into play by drops.
    for (n, _) in def.kinds.iter().enumerate() {
        let k = ravenpost::engine::PieceKind::new(n as u8);
        let start = v.start_position();
        if ravenpost::engine::Side::ALL.iter().any(|s| start.in_hand(*s, k) > 0) && !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds.into_iter().map(|k| def.kind(k).code.clone()).collect()
}

/// The legend of each built-in variant (Fantasy Grand Chess with each army) lists every
/// piece letter its start position and promotions hold, within 80 columns.
#[test]
fn the_legend_of_each_built_in_variant_lists_every_piece_in_play() {
    let (_t, dir, home) = archive();
    let mut cases: Vec<(String, Vec<(String, String)>)> =
        vec![("gygax".into(), vec![]), ("fidchell".into(), vec![]), ("grand".into(), vec![])];
    let armies = ravenpost::variants::ARMIES;
    for (i, army) in armies.iter().enumerate() {
        let other = armies[(i + 1) % armies.len()];
        let mut options =
            vec![("army-white".to_string(), army.to_string()), ("army-black".into(), other.into())];
        if *army == "druid" || other == "druid" {
            options.push(("druid".into(), "allowed".into()));
        }
        cases.push(("fantasy-grand".into(), options));
    }
    for (name, options) in cases {
        let v = ravenpost::variants::by_name(&name, &options).unwrap();
        let mut args = vec!["variant".to_string(), "legend".into(), name.clone()];
        for (k, val) in &options {
            args.push("--option".into());
            args.push(format!("{k}={val}"));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let legend = ok(&dir, &home, &args);
        assert!(legend.lines().all(|l| l.chars().count() <= 80), "{legend}");
        let listed: BTreeSet<String> = legend
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with(' '))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect();
        let wanted = codes_in_play(&v);
        assert!(wanted.len() >= 6, "{name} {options:?}: {wanted:?}");
        let missing: Vec<&String> = wanted.difference(&listed).collect();
        assert!(missing.is_empty(), "{name} {options:?}: {missing:?} missing from\n{legend}");
        // Each entry has a name and a line of movement.
        for l in legend.lines().skip(1).filter(|l| !l.starts_with(' ')) {
            assert!(l.split_whitespace().count() >= 3, "{name}: {l:?}");
        }
    }
    // `show --legend` prints the same legend under the diagram.
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let shown = ok(&dir, &home, &["show", "g", "--legend"]);
    let legend = ok(&dir, &home, &["variant", "legend", "gygax"]);
    assert!(shown.ends_with(&legend), "{shown}");
    assert!(
        legend.contains("B  Basilisk   Subterranean:")
            && legend.contains("freezes the enemy piece directly above it"),
        "{legend}"
    );
    // `move --help` points to it and names the pieces.
    let help = ok(&dir, &home, &["move", "--help"]);
    assert!(help.contains("ravenpost variant legend NAME"), "{help}");
    assert!(help.contains("S Sylph, G Griffon, R Dragon"), "{help}");
}

/// A finished game's `show` and `replay` give the result and how it ended, the player
/// named with the side, never a side to move; Fidchell and the 10×10 games fit 80×24 with
/// their hand.
#[test]
fn a_finished_game_shows_the_result_and_every_board_fits_80x24() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&dir, &home, &["resign", "g", "--as", "Bo"]);
    let shown = ok(&dir, &home, &["show", "g"]);
    assert!(shown.lines().any(|l| l == "Result: 1-0 (Bo (Scarlet) resigns)"), "{shown}");
    assert!(!shown.contains("to move"), "{shown}");
    let screen = ok(&dir, &home, &["replay", "g", "--ply", "1"]);
    assert!(screen.lines().any(|l| l == "Result: 1-0 (Bo (Scarlet) resigns)"), "{screen}");
    assert!(!screen.contains("to move"), "{screen}");
    for (variant, extra) in [
        ("fidchell", &[][..]),
        ("grand", &[][..]),
        ("fantasy-grand", &["--army-white", "giants", "--army-black", "evil-horde"][..]),
    ] {
        let id = format!("{variant}-24");
        let mut args = vec!["new", variant, "--white", "Ann", "--black", "Bo", "--id", &id];
        args.extend_from_slice(extra);
        ok(&dir, &home, &args);
        let shown = ok(&dir, &home, &["show", &id]);
        assert!(shown.lines().count() <= 24, "{variant}: {shown}");
        assert!(shown.lines().all(|l| l.chars().count() <= 80), "{variant}: {shown}");
        assert!(shown.lines().any(|l| l == "Ann (White) to move (move 1)"), "{variant}: {shown}");
        if variant == "fidchell" {
            assert!(shown.lines().any(|l| l.starts_with("In hand: White 6W")), "{shown}");
        }
    }
}
