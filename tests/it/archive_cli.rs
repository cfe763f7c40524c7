//! The archive through the `ravenpost` binary, checked with the real `git` command:
//! whole games, refused moves that leave no trace, racing moves, and `verify` against
//! commits made by hand. Deterministic: fixed time, no system or global git config.

use crate::common;

use std::path::{Path, PathBuf};

use common::{DAY, T0, archive, archive_with, fails, git, identity, ok, ravenpost_at, run, run_at, text};

fn play_game(dir: &Path, home: &Path, variant: &[&str], moves: &[&str]) {
    let mut args = vec!["new"];
    args.extend_from_slice(variant);
    args.extend_from_slice(&["--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(dir, home, &args);
    for (i, m) in moves.iter().enumerate() {
        let who = if i % 2 == 0 { "Ann" } else { "Bo" };
        let ply = (i + 1).to_string();
        ok(dir, home, &["move", "g", m, "--as", who, "--expect-ply", &ply]);
    }
}

#[test]
fn a_short_game_of_each_variant_one_commit_per_move() {
    let games: &[(&[&str], &[&str], &str)] = &[
        (&["gygax"], &["2e3", "Sa3b6", "Rx3b6", "U2c6"], "gygax"),
        (
            &["fidchell", "--option", "introduction=default"],
            &["a4", "a9", "Pd6", "Sd9", "Pxd9", "Pxd9"],
            "fidchell",
        ),
        (&["grand"], &["e5", "Ce7", "g4", "c7"], "grand"),
        (
            &["fantasy-grand", "--army-white", "elves", "--army-black", "evil-horde"],
            &["e4", "e7"],
            "fantasy-grand",
        ),
    ];
    for (variant, moves, slug) in games {
        let (_t, dir, home) = archive();
        play_game(&dir, &home, variant, moves);
        // One resignation ends the game: a complete record.
        let who = if moves.len() % 2 == 0 { "Ann" } else { "Bo" };
        ok(&dir, &home, &["resign", "g", "--as", who]);
        let log = git(&dir, &home, &["log", "--format=%an|%s", "--", &format!("games/{slug}/g.pgn")]);
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(lines.len(), moves.len() + 2, "{log}");
        for (i, m) in moves.iter().enumerate() {
            let line = lines[lines.len() - 2 - i];
            let author = if i % 2 == 0 { "Ann" } else { "Bo" };
            assert!(line.starts_with(&format!("{author}|g: ply {} ", i + 1)), "{line}");
            assert!(line.contains(m), "{line} should name {m}");
        }
        assert!(lines[0].contains("resigns"), "{}", lines[0]);
        assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
        // Each version of the file is valid, and `verify` agrees.
        for rev in 0..lines.len() {
            let spec = format!("HEAD~{rev}:games/{slug}/g.pgn");
            let text = git(&dir, &home, &["show", &spec]);
            ravenpost::record::load(&text).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
        let v = ok(&dir, &home, &["verify"]);
        assert!(v.contains("1 game verified, 0 problems"), "{v}");
        let file = dir.join(format!("games/{slug}/g.pgn"));
        let out = ok(&dir, &home, &["validate", file.to_str().unwrap()]);
        assert!(out.contains("1 valid"), "{out}");
    }
}

#[test]
fn refused_moves_leave_no_trace() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    for (args, why) in [
        (vec!["move", "g", "U2c5", "--as", "Bo"], "illegal move"),
        (vec!["move", "g", "Sa3b6", "--as", "Ann"], "not Ann's turn"),
        (vec!["move", "g", "Sa3b6", "--as", "Bo", "--expect-ply", "1"], "the game moved on"),
        (vec!["move", "nope", "Sa3b6"], "no game `nope`"),
    ] {
        let o = run(&dir, &home, &args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), tip, "{args:?} moved the branch");
        assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "", "{args:?} left changes");
    }
}

#[test]
fn two_racing_moves_one_wins_one_fails_cleanly() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &[]);
    // Both processes try to play Gold's first move at once.
    // Regression (issue 20): the children used to inherit the caller's RAVENPOST_ARCHIVE.
    let spawn =
        |m: &str| ravenpost_at(&dir, &home, T0).args(["move", "g", m, "--expect-ply", "1"]).spawn().unwrap();
    for _ in 0..3 {
        let mut a = spawn("2e3");
        let mut b = spawn("2f3");
        let (ra, rb) = (a.wait().unwrap(), b.wait().unwrap());
        assert!(ra.success() != rb.success(), "exactly one wins: {ra} {rb}");
        let log = git(&dir, &home, &["log", "--format=%s"]);
        assert_eq!(log.lines().filter(|l| l.contains("ply 1")).count(), 1, "{log}");
        assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
        // Back to the new game for the next round.
        let created = git(&dir, &home, &["log", "--format=%H", "-1", "--grep", "new Gygax"]);
        git(&dir, &home, &["reset", "-q", "--hard", created.trim()]);
    }
}

#[test]
fn verify_catches_commits_made_by_hand() {
    let cases: &[(&str, &str, &str)] = &[
        // An earlier move changed (each move is followed by its recorded time).
        (
            "1. 2e3 {ravenpost: at",
            "1. 2f3 {ravenpost: at",
            "by Referee: ply 1 was changed or removed: earlier moves may not be rewritten",
        ),
        // Two moves at once.
        (" *\n", " 2. Rx3b6 U2c6 *\n", "by Referee: 2 plies were added at once: each commit adds one"),
    ];
    for (from, to, why) in cases {
        let (_t, dir, home) = archive();
        play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6"]);
        let file = dir.join("games/gygax/g.pgn");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{text}");
        std::fs::write(&file, text.replace(from, to)).unwrap();
        git(&dir, &home, &["commit", "-q", "-am", "edit by hand"]);
        let edit = git(&dir, &home, &["rev-parse", "--short=12", "HEAD"]);
        let o = run(&dir, &home, &["verify"]);
        assert_eq!(o.status.code(), Some(1), "{}", common::text(&o));
        assert_eq!(String::from_utf8_lossy(&o.stderr), format!("g commit {} {why}\n", edit.trim()));
        assert_eq!(String::from_utf8_lossy(&o.stdout), "1 game verified, 1 problem\n");
    }
    // Out of turn: Ann commits Scarlet's move by hand.
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    let file = dir.join("games/gygax/g.pgn");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace(" *\n", " 1... Sa3b6 *\n")).unwrap();
    git(&dir, &home, &["-c", "user.name=Ann", "commit", "-q", "-am", "my move"]);
    let o = run(&dir, &home, &["verify", "g"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("authored by Ann, but Bo (Scarlet) was to move"), "{err}");
}

#[test]
fn status_log_and_show_of_a_game() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6"]);
    let s = ok(&dir, &home, &["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert_eq!(v[0]["id"], "g");
    assert_eq!(v[0]["ply"], 2);
    assert_eq!(v[0]["to_move"], "Ann");
    assert_eq!(v[0]["side_to_move"], "Gold");
    let log = ok(&dir, &home, &["log", "g"]);
    assert_eq!(log.lines().count(), 3);
    assert!(log.lines().nth(2).unwrap().contains("Bo") && log.contains("ply 2 Sa3b6"), "{log}");
    let show = ok(&dir, &home, &["show", "g"]);
    assert!(show.contains("Air (3)") && show.contains("Last move: 1... Sa3b6 (S3a7-3b6), ply 2"), "{show}");
    // Draw offer, then acceptance.
    ok(&dir, &home, &["draw", "offer", "g", "--as", "Ann"]);
    ok(&dir, &home, &["move", "g", "Rx3b6", "--as", "Ann"]);
    let acc = ok(&dir, &home, &["draw", "accept", "g", "--as", "Bo"]);
    assert!(acc.contains("Bo (Scarlet) accepts the draw"), "{acc}");
    let s = ok(&dir, &home, &["status"]);
    assert!(s.contains("finished 1/2-1/2"), "{s}");
    assert!(ok(&dir, &home, &["verify"]).contains("0 problems"));
}

#[test]
fn new_refuses_names_and_ids_that_cannot_work() {
    let (_t, dir, home) = archive();
    let id_rule =
        "use letters, digits, `-`, `_` and `.`, not starting with `.` and without `.pgn` (added for you)";
    for (args, why) in [
        (
            vec!["new", "gygax", "--white", "", "--black", "Bo"],
            "--white ``: the player's name is empty".to_string(),
        ),
        (
            vec!["new", "gygax", "--white", "Ann <a@b>", "--black", "Bo"],
            "--white `Ann <a@b>`: the player's name contains `<` or `>` (a name, not `Name <email>`)".into(),
        ),
        (
            vec!["new", "gygax", "--white", "Ann\nX", "--black", "Bo"],
            "--white `Ann\\nX`: the player's name contains a control character (a line break?)".into(),
        ),
        (
            vec!["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "x.pgn"],
            format!("--id `x.pgn`: {id_rule}"),
        ),
        (
            vec!["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "../x"],
            format!("--id `../x`: {id_rule}"),
        ),
    ] {
        let o = run(&dir, &home, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), format!("ravenpost: {why}\n"), "{args:?}");
    }
    assert_eq!(git(&dir, &home, &["log", "--format=%s"]).lines().count(), 1, "nothing committed");
}

/// `verify` after a commit made by hand, as (standard output, standard error, the
/// commit's short id).
fn verify_after_hand_commit(dir: &Path, home: &Path, message: &str) -> (String, String, String) {
    git(dir, home, &["commit", "-q", "-m", message]);
    let id = git(dir, home, &["rev-parse", "--short=12", "HEAD"]).trim().to_string();
    let o = run(dir, home, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    (String::from_utf8_lossy(&o.stdout).into(), String::from_utf8_lossy(&o.stderr).into(), id)
}

/// A fan-out archive whose one game (`g`, Grand, one move) a commit made with plain git
/// deleted; with `verify`'s output after it ([`verify_after_hand_commit`]).
fn deleted_by_hand() -> (tempfile::TempDir, PathBuf, PathBuf, (String, String, String)) {
    let (t, dir, home) = archive_with(&["--layout", "fan-out"]);
    play_game(&dir, &home, &["grand"], &["e4"]);
    git(&dir, &home, &["rm", "-q", "games/grand/c/d/g.pgn"]);
    let verified = verify_after_hand_commit(&dir, &home, "remove");
    (t, dir, home, verified)
}

/// Regression (s8 trial): a game file deleted with plain git was reported with no game:
/// a text line starting with a space, `"game": ""` in the JSON. Now both name the game
/// the file held, in the fan-out layout as in the flat one above.
#[test]
fn a_deleted_game_was_reported_under_an_empty_game_name() {
    let (_t, dir, home, (out, err, id)) = deleted_by_hand();
    assert_eq!(out, "0 games verified, 1 problem\n");
    assert_eq!(
        err,
        format!("g commit {id} by Referee: games/grand/c/d/g.pgn was deleted: games are never removed\n")
    );
    let o = run(&dir, &home, &["verify", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["problems"][0]["game"], "g", "{json}");
}

/// Regression (s8 trial): a game whose file was deleted with plain git, asked about by
/// name, was "no game `g` in the archive (it has no games yet)". Now the commit that
/// deleted it is named.
#[test]
fn a_deleted_game_asked_for_by_name_was_said_never_to_have_been() {
    let (_t, dir, home, (_, _, id)) = deleted_by_hand();
    for args in [&["log", "grand/g"][..], &["verify", "g"], &["show", "g"]] {
        let o = run(&dir, &home, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        let said = text(&o);
        assert!(said.contains(&format!("game `{}` is no longer in the archive at", args[1])), "{said}");
        assert!(said.contains(&format!(": commit {id} by Referee deleted games/grand/c/d/g.pgn")), "{said}");
    }
}

#[test]
fn verify_catches_deleted_moved_and_pre_played_games() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    git(&dir, &home, &["rm", "-q", "games/gygax/g.pgn"]);
    let (out, err, id) = verify_after_hand_commit(&dir, &home, "remove");
    assert_eq!(out, "0 games verified, 1 problem\n");
    assert_eq!(
        err,
        format!("g commit {id} by Referee: games/gygax/g.pgn was deleted: games are never removed\n")
    );

    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    std::fs::create_dir_all(dir.join("games/grand")).unwrap();
    git(&dir, &home, &["mv", "games/gygax/g.pgn", "games/grand/g.pgn"]);
    let (out, err, id) = verify_after_hand_commit(&dir, &home, "move");
    assert_eq!(out, "1 game verified, 2 problems\n");
    assert_eq!(
        err,
        format!(
            "g commit {id} by Referee: a gygax game stored under games/grand/ (moved by hand?)\n\
             g commit {id} by Referee: games/gygax/g.pgn was deleted: games are never removed\n"
        )
    );

    // Regression (CHANGELOG: a new game file that already has moves): a game file added
    // by hand with two plies played is refused, however valid its moves.
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6"]);
    let played = std::fs::read_to_string(dir.join("games/gygax/g.pgn")).unwrap();
    std::fs::write(dir.join("games/gygax/h.pgn"), played).unwrap();
    git(&dir, &home, &["add", "games/gygax/h.pgn"]);
    let (out, err, id) = verify_after_hand_commit(&dir, &home, "h by hand");
    assert_eq!(out, "2 games verified, 1 problem\n");
    assert_eq!(
        err,
        format!(
            "h commit {id} by Referee: the game appeared with 2 plies already played: games start with none\n"
        )
    );
}

/// Regression: read-only commands made the per-user archive (or a $RAVENPOST_ARCHIVE
/// directory) on first use; now they say that none exists, and only `new` makes one.
#[test]
fn only_new_creates_the_default_archive() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
    let user_archive = home.join("data/ravenpost/archive");
    for args in
        [vec!["status"], vec!["show", "g"], vec!["log", "g"], vec!["verify"], vec!["move", "g", "2e3"]]
    {
        let o = run(t.path(), &home, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("does not exist yet") && err.contains("ravenpost new"), "{args:?}: {err}");
        assert!(!user_archive.exists(), "{args:?} created the archive");
    }
    let o = ravenpost_at(t.path(), &home, T0)
        .args(["status"])
        .env("RAVENPOST_ARCHIVE", t.path().join("nowhere"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let nowhere = t.path().join("nowhere");
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!(
            "ravenpost: no archive at {0} ($RAVENPOST_ARCHIVE): make one with `ravenpost init {0}`\n",
            nowhere.display()
        )
    );
    assert!(!t.path().join("nowhere").exists());
    ok(t.path(), &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    // The per-user archive is new: in the fan-out.
    assert!(user_archive.join(common::cli::fan_out_path("gygax", "g")).exists());
    assert!(ok(t.path(), &home, &["status"]).contains("Ann v Bo"));
}

/// Correspondence clocks with fixed times (no sleeping): three days a move, carried over;
/// on time, overdue, a refused and an accepted timeout claim, and leave that stops the
/// clock.
#[test]
fn deadlines_leave_and_timeout_claims() {
    let (_t, dir, home) = archive();
    let at = |t: i64, args: &[&str]| {
        let o = run_at(&dir, &home, t, args);
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (c, _, e) =
        at(T0, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--time-control", "1/3d"]);
    assert_eq!(c, Some(0), "{e}");
    assert_eq!(at(T0 + DAY, &["move", "g", "2e3", "--as", "Ann"]).0, Some(0));
    assert_eq!(at(T0 + 2 * DAY, &["move", "g", "Sa3b6", "--as", "Bo"]).0, Some(0));
    // Ann used 1 of her first 3 days; for move 2 she has 6 in all: 5 left from T0+2d.
    let (_, out, _) = at(T0 + 3 * DAY, &["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["clock"]["player"], "Ann");
    assert_eq!(v[0]["clock"]["deadline"], "2025-12-06T07:06:40Z");
    assert_eq!(v[0]["clock"]["seconds_left"], 4 * DAY);
    assert_eq!(v[0]["clock"]["overdue"], false);
    let (c, _, e) = at(T0 + 3 * DAY, &["claim", "timeout", "g", "--as", "Bo"]);
    assert_eq!(c, Some(1));
    assert!(e.contains("timeout claim refused: Ann has until 2025-12-06T07:06:40Z (4d 0h left)"), "{e}");
    // Overdue at T0+8d, without leave.
    let (_, out, _) = at(T0 + 8 * DAY, &["status"]);
    assert!(out.contains("OVERDUE since 2025-12-06T07:06:40Z (1d 0h ago)"), "{out}");
    // Leave is booked in advance: not from a day already past (regression: an overdue
    // player escaped a claim by booking leave backwards), and at most 45 days in all.
    let (c, _, e) = at(T0 + 8 * DAY, &["leave", "g", "--as", "Ann", "--from", "2025-12-02", "--days", "2"]);
    assert_eq!(c, Some(1), "{e}");
    assert!(e.contains("leave refused: it would start on 2025-12-02T00:00:00Z, before today"), "{e}");
    let (c, _, e) = at(T0 + 3 * DAY, &["leave", "g", "--as", "Ann", "--from", "2025-12-02", "--days", "46"]);
    assert_eq!(c, Some(1), "{e}");
    assert!(e.contains("at most 45 in all"), "{e}");
    // Two days of leave booked on 2025-12-02 from that day push the deadline two days on.
    let (c, out, e) = at(T0 + 3 * DAY, &["leave", "g", "--as", "Ann", "--from", "2025-12-02", "--days", "2"]);
    assert_eq!(c, Some(0), "{e}");
    assert!(out.contains("Ann (Gold) books 2 days of leave from 2025-12-02T00:00:00Z"), "{out}");
    let (_, out, _) = at(T0 + 8 * DAY, &["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["clock"]["deadline"], "2025-12-08T07:06:40Z");
    assert_eq!(v[0]["clock"]["overdue"], false);
    // Ann only claims for herself: the waiting player is Bo.
    let (c, _, e) = at(T0 + 10 * DAY, &["claim", "timeout", "g", "--as", "Ann"]);
    assert_eq!(c, Some(1), "{e}");
    let (c, out, e) = at(T0 + 10 * DAY, &["claim", "timeout", "g", "--as", "Bo"]);
    assert_eq!(c, Some(0), "{e}");
    assert_eq!(out.trim(), "Bo (Scarlet) wins on time");
    let text = std::fs::read_to_string(dir.join("games/gygax/g.pgn")).unwrap();
    assert!(text.contains("[Result \"0-1\"]") && text.contains("[Termination \"time forfeit\"]"), "{text}");
    assert_eq!(at(T0 + 10 * DAY, &["verify"]).0, Some(0));
}

/// Regression (fresh-user review): without `--as`, a player's own identity acts, so one
/// player's clone cannot move for the opponent by accident; a non-player identity (a
/// referee's archive) still plays for whoever is to move.
#[test]
fn without_as_a_player_acts_as_themself() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    let o = run(&dir, &home, &["--author", "Ann <ann@example.org>", "move", "g", "Sa3b6"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not Ann's turn: Bo (Scarlet) is to move"));
    ok(&dir, &home, &["--author", "Bo <bo@example.org>", "move", "g", "Sa3b6"]);
    ok(&dir, &home, &["move", "g", "2f3"]); // the Referee identity: plays for Ann
    assert!(git(&dir, &home, &["log", "-1", "--format=%an"]).starts_with("Ann"));
    // `log` says what recorded commits did.
    ok(&dir, &home, &["draw", "offer", "g", "--as", "Bo"]);
    // (s5 item 14: without the unchanged result `(*)`, which said nothing.)
    assert!(ok(&dir, &home, &["log", "g"]).contains("Bo (Scarlet) offers a draw\n"));
}

#[test]
fn bad_time_control_and_wrong_claimant_are_refused_clearly() {
    let (_t, dir, home) = archive();
    let o = run(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--time-control", "3days"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--time-control: TimeControl `3days`"));
    ok(
        &dir,
        &home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--time-control", "1/3d"],
    );
    let o = run(&dir, &home, &["claim", "timeout", "g", "--as", "Ann"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("timeout claim refused: only Bo, who is waiting for a move, can claim a win on time"),
        "{err}"
    );
}

/// The cell (3 characters) of file index `file` of the leftmost board in a diagram row.
fn cell(row: &str, file: usize) -> &str {
    &row[3 + 3 * file..6 + 3 * file]
}

#[test]
fn diagrams_in_game_files_when_the_archive_says_so() {
    let (_t, dir, home) = archive_with(&["--diagrams", "every-move"]);
    let yaml = std::fs::read_to_string(dir.join("ravenpost.yaml")).unwrap();
    assert!(yaml.contains("diagrams: every-move"), "{yaml}");
    play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6", "Rx3b6"]);
    let file = dir.join("games/gygax/g.pgn");
    let text = std::fs::read_to_string(&file).unwrap();

    // After each move, its diagram: a header line, 8 ranks and the file letters.
    let lines: Vec<&str> = text.lines().collect();
    let diagram_lines: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with(";|")).collect();
    assert_eq!(diagram_lines.len(), 3 * 10, "{text}");
    let block = |after: &str| -> Vec<&str> {
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(after))
            .unwrap_or_else(|| panic!("no `{after}` in {text}"));
        lines[at + 1..at + 11].iter().map(|l| l.strip_prefix(";|").expect("a diagram line")).collect()
    };
    let rank = |b: &[&str], r: &str| -> String { b.iter().find(|l| l.starts_with(r)).unwrap().to_string() };
    // Ply 1, Gold's warrior 2e2-2e3: Land is the middle board; Air (leftmost) unchanged.
    let b1 = block("1. 2e3");
    assert!(b1[0].contains("Air (3)") && b1[0].contains("Land (2)"), "{}", b1[0]);
    assert_eq!(cell(&rank(&b1, " 2 "), 0), " S ");
    // Each board row is 42 characters (rank, 12 cells, rank), then 4 spaces.
    assert_eq!(cell(&rank(&b1, " 3 ")[46..], 4), "[W]");
    assert_eq!(cell(&rank(&b1, " 2 ")[46..], 4), "[.]", "e2 is light and empty");
    // Ply 2 (Scarlet's sylph a7-b6) and ply 3 (Gold's roc takes it on b6), on Air.
    let b2 = block("1... Sa3b6");
    assert_eq!(cell(&rank(&b2, " 6 "), 1), "[s]");
    assert_eq!(cell(&rank(&b2, " 7 "), 0), "[:]");
    let b3 = block("2. Rx3b6");
    assert_eq!(cell(&rank(&b3, " 6 "), 1), "[R]");
    assert_eq!(cell(&rank(&b3, " 1 "), 6), "[:]", "the roc left g1 (dark)");
    assert!(b3[9].trim_start().starts_with("a  b  c"));

    // The rules ignore them: validate, verify, the pre-receive check; fmt keeps them.
    let out = ok(&dir, &home, &["validate", file.to_str().unwrap()]);
    assert!(out.contains("1 valid"), "{out}");
    let v = ok(&dir, &home, &["verify"]);
    assert!(v.contains("1 game verified, 0 problems"), "{v}");
    // As a push of the whole branch (old all zeros: from the root, config included).
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    ok(&dir, &home, &["hook", "check", &"0".repeat(40), tip.trim(), "refs/heads/main"]);
    ok(&dir, &home, &["fmt", "--check", file.to_str().unwrap()]);
    ok(&dir, &home, &["fmt", file.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);
    // Replay shows the moves' other comments, not the diagram lines.
    let r = ok(&dir, &home, &["replay", "g", "--ply", "2"]);
    assert!(!r.contains(";|") && !r.contains("{|"), "{r}");

    // A resignation after a diagram: the file is still valid and the comment is kept.
    ok(&dir, &home, &["resign", "g", "--as", "Bo"]);
    let text = std::fs::read_to_string(&file).unwrap();
    let end: Vec<&str> = text.lines().rev().take(2).collect();
    assert_eq!(end[0], "{Scarlet resigns.} 1-0", "{text}");
    assert!(end[1].starts_with(";|    a  b  c"), "the last diagram stays before it: {text}");
    let v = ok(&dir, &home, &["verify"]);
    assert!(v.contains("0 problems"), "{v}");

    // An archive with the default settings writes none.
    let (_t2, dir2, home2) = archive();
    play_game(&dir2, &home2, &["gygax"], &["2e3"]);
    let plain = std::fs::read_to_string(dir2.join("games/gygax/g.pgn")).unwrap();
    assert!(!plain.contains(";|"), "{plain}");
}

/// `log --json` lists each commit of the game as git has it (ids, authors, in order), and
/// `verify --json` reports the problems `verify` prints, with exit code 1.
#[test]
fn log_and_verify_as_json_agree_with_git() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6"]);
    let log: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["log", "g", "--json"])).unwrap();
    let from_git =
        git(&dir, &home, &["log", "--reverse", "--format=%h %an", "--abbrev=12", "--", "games/gygax/g.pgn"]);
    let expected: Vec<(String, String)> = from_git
        .lines()
        .map(|l| l.split_once(' ').map(|(c, a)| (c.to_string(), a.to_string())).unwrap())
        .collect();
    let got: Vec<(String, String)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["commit"].as_str().unwrap().to_string(), e["author"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(
        log[1],
        serde_json::json!({
            "commit": expected[1].0,
            "hash": git(&dir, &home, &["rev-parse", &expected[1].0]).trim(),
            "author": "Ann", "time": "2025-11-29T07:06:40+00:00",
            "what": "ply 1 2e3", "ply": 1, "san": "2e3", "problem": null,
        })
    );
    assert_eq!((log[0]["what"].as_str(), log[0]["ply"].is_null()), (Some("created"), true));
    assert_eq!((log[2]["ply"].as_u64(), log[2]["san"].as_str()), (Some(2), Some("Sa3b6")));

    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&ok(&dir, &home, &["verify", "--json"])).unwrap(),
        serde_json::json!({"games": 1, "problems": []})
    );
    git(&dir, &home, &["rm", "-q", "games/gygax/g.pgn"]);
    git(&dir, &home, &["commit", "-q", "-m", "remove"]);
    let id = git(&dir, &home, &["rev-parse", "--short=12", "HEAD"]);
    let o = run(&dir, &home, &["verify", "--json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(),
        serde_json::json!({"games": 0, "problems": [{
            "author": "Referee", "commit": id.trim(), "game": "g",
            "problem": "games/gygax/g.pgn was deleted: games are never removed",
        }]})
    );
}

/// `draw claim` from the command line: refused with the counts until the position has
/// occurred three times (unicorns out and back twice: plies 0, 4 and 8), then recorded
/// as a draw that `verify` accepts. Only the player to move may claim.
#[test]
fn draw_claim_by_repetition_from_the_command_line() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["U2c3", "U2c6", "U2b1", "U2b8", "U2c3", "U2c6", "U2b1"]);
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    fails(
        &dir,
        &home,
        &["draw", "claim", "g"],
        1,
        "ravenpost: claim refused: no draw: the position has occurred 2 times (3 needed) and the ply clock is 7 \
         (100 needed)\n",
    );
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), tip, "a refused claim commits nothing");
    ok(&dir, &home, &["move", "g", "U2b8", "--as", "Bo", "--expect-ply", "8"]);
    fails(
        &dir,
        &home,
        &["draw", "claim", "g", "--as", "Bo"],
        1,
        "ravenpost: not Bo's turn: Ann (Gold) is to move\n",
    );
    let out = ok(&dir, &home, &["draw", "claim", "g", "--as", "Ann"]);
    assert_eq!(out, "Ann (Gold) claims a draw (the position has occurred 3 times)\n");
    let file = std::fs::read_to_string(dir.join("games/gygax/g.pgn")).unwrap();
    let words = file.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.ends_with("{Draw claimed by Gold: the position has occurred 3 times.} 1/2-1/2"), "{file}");
    assert!(file.contains("[Result \"1/2-1/2\"]"), "{file}");
    assert_eq!(
        git(&dir, &home, &["log", "-1", "--format=%an|%s"]),
        "Ann|g: Gold claims a draw (the position has occurred 3 times)\n"
    );
    assert_eq!(ok(&dir, &home, &["verify"]), "1 game verified, 0 problems\n");
}

/// Regression (CHANGELOG: `--expect-ply` ahead of the game says so): a move meant for a
/// later ply is refused as "not that far", one meant for an earlier ply as "moved on";
/// neither commits anything.
#[test]
fn expect_ply_ahead_of_the_game_is_refused() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3", "Sa3b6"]);
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    let ahead = ["move", "g", "Rx3b6", "--as", "Ann", "--expect-ply", "5"];
    fails(
        &dir,
        &home,
        &ahead,
        1,
        "ravenpost: the game is not that far: you meant ply 5, but the next ply is 3\n",
    );
    let behind = ["move", "g", "Rx3b6", "--as", "Ann", "--expect-ply", "2"];
    fails(&dir, &home, &behind, 1, "ravenpost: the game moved on: you meant ply 2, but the next ply is 3\n");
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), tip);
    assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
    ok(&dir, &home, &["move", "g", "Rx3b6", "--as", "Ann", "--expect-ply", "3"]);
}

/// Regression (CHANGELOG: a detached HEAD is reported): every command that reads or
/// writes the branch says so and what to do, with exit code 2, and writes nothing.
#[test]
fn detached_head_is_reported() {
    let (_t, dir, home) = archive();
    play_game(&dir, &home, &["gygax"], &["2e3"]);
    git(&dir, &home, &["checkout", "-q", "--detach", "HEAD"]);
    let tip = git(&dir, &home, &["rev-parse", "HEAD"]);
    let why = format!(
        "ravenpost: {}/: HEAD is detached (check out a branch, e.g. `git switch main`)\n",
        dir.display()
    );
    for args in
        [&["status"][..], &["move", "g", "Sa3b6", "--as", "Bo"], &["verify"], &["resign", "g", "--as", "Bo"]]
    {
        let err = fails(&dir, &home, args, 2, &why);
        assert_eq!(err, why, "{args:?}");
    }
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), tip);
    assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
}

/// Regression (s4 fresh-user report (a)6 and (c)18): a move that cannot be read (`2z3`,
/// `9e3`, `e3` without its level, `Xx3b6`) exited 1, as a refusal does, though the README
/// says bad input exits 2; and the messages did not name the bad file letter or piece
/// code, nor give a level example that fits the board. Now such a move exits 2 and says
/// what is wrong; a well-formed move the rules refuse still exits 1.
#[test]
fn unreadable_move_exited_1_like_a_refused_one() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let tip = git(&dir, &home, &["rev-parse", "main"]);
    let bad = [
        ("2z3", "`z` is not a file: the files are a to l"),
        ("9e3", "`9e3` is not a square of this board"),
        ("e3", "the square `e3` needs its level digit, 1 to 3: `1e3`, `2e3` or `3e3`"),
        ("Xx3b6", "unknown piece code `X` (codes:"),
    ];
    for (token, why) in bad {
        fails(&dir, &home, &["move", "g", token, "--as", "Ann"], 2, why);
    }
    // Well formed, refused by the rules: exit 1.
    fails(&dir, &home, &["move", "g", "2e5", "--as", "Ann"], 1, "illegal move");
    assert_eq!(git(&dir, &home, &["rev-parse", "main"]), tip, "nothing was committed");
    // On a board of two levels, the example is that board's.
    let loft = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/variants/loft.md");
    ok(
        &dir,
        &home,
        &["new", "--variant-file", loft.to_str().unwrap(), "--white", "Ann", "--black", "Bo", "--id", "l"],
    );
    fails(
        &dir,
        &home,
        &["move", "l", "c3", "--as", "Ann"],
        2,
        "the square `c3` needs its level digit, 1 to 2: `1c3` or `2c3`",
    );
}

/// Regression (s4 fresh-user report (c)15 and (c)17): answering a draw offer before its
/// maker's move said only "not Bo's turn", and leave over the limit did not name the days
/// asked for. Now both say what stands and what would be allowed.
#[test]
fn draw_answered_before_the_offerers_move_said_only_not_your_turn() {
    let (_t, dir, home) = archive();
    ok(
        &dir,
        &home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--time-control", "1/3d"],
    );
    ok(&dir, &home, &["draw", "offer", "g", "--as", "Ann"]);
    fails(
        &dir,
        &home,
        &["draw", "accept", "g", "--as", "Bo"],
        1,
        "Ann's draw offer goes with Ann's next move and stands until then: Bo answers it after that move",
    );
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    assert_eq!(
        ok(&dir, &home, &["draw", "accept", "g", "--as", "Bo"]).trim(),
        "Bo (Scarlet) accepts the draw"
    );

    ok(
        &dir,
        &home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "tc", "--time-control", "1/3d"],
    );
    ok(&dir, &home, &["leave", "tc", "--as", "Ann", "--from", "2026-12-01", "--days", "10"]);
    fails(
        &dir,
        &home,
        &["leave", "tc", "--as", "Ann", "--from", "2026-12-24", "--days", "40"],
        1,
        "40 days requested, but Ann has booked 10 days of leave in this game already, and the two would make 50: at most 45 in all (35 days left to book)",
    );
}

/// Regression (s4 fresh-user report (c)16): choosing the Druid in a game created without
/// `druid=allowed` said "add the option druid=allowed", which a player cannot do to an
/// existing game. Now it says the game was created without it and to choose another
/// army; a game created with the option takes the Druid.
#[test]
fn druid_refusal_told_a_player_to_add_an_option_to_an_existing_game() {
    let (_t, dir, home) = archive();
    ok(
        &dir,
        &home,
        &["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "fg", "--secret-armies"],
    );
    let err = fails(&dir, &home, &["army", "commit", "fg", "druid", "--as", "Ann"], 1, "druid=allowed");
    assert!(
        err.contains("this game was created without the option druid=allowed")
            && err.contains("choose another army"),
        "{err}"
    );
    assert!(!err.contains("add the option"), "{err}");
    let with = ["--id", "fd", "--secret-armies", "--option", "druid=allowed"];
    ok(&dir, &home, &[&["new", "fantasy-grand", "--white", "Ann", "--black", "Bo"][..], &with[..]].concat());
    ok(&dir, &home, &["army", "commit", "fd", "druid", "--as", "Ann"]);
}

/// Regression (s4 fresh-user report (a)5): `verify`'s line about a changed variant
/// definition started with a space where a game's line has the game id. Now it starts
/// with the definition's path, as the hook's line does.
#[test]
fn verify_line_of_a_changed_definition_started_with_a_space() {
    let (_t, dir, home) = archive();
    let loft = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/variants/loft.md");
    ok(
        &dir,
        &home,
        &["new", "--variant-file", loft.to_str().unwrap(), "--white", "Ann", "--black", "Bo", "--id", "l"],
    );
    let file = dir.join("variants/loft.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{text}\nA note.\n")).unwrap();
    git(&dir, &home, &["commit", "--quiet", "-am", "loft: a note"]);
    let commit = git(&dir, &home, &["rev-parse", "--short=12", "HEAD"]);
    let err = fails(&dir, &home, &["verify"], 1, "variants/loft.md was changed");
    let line = err.lines().find(|l| l.contains("variants/loft.md was changed")).unwrap();
    assert!(
        line.starts_with(&format!(
            "variants/loft.md commit {} by Referee: variants/loft.md was changed",
            commit.trim()
        )),
        "{err}"
    );
}

/// Regression (s6 play-through, item 5): `ravenpost move g "1. 2e3"` run a second time
/// said the move number was not the next ply's and whose move it was, which confused a
/// player who had only run the command again. Now the game's last ply given again (the
/// same move with the same number) is "already recorded" with its ply and time, exit code
/// 1 and no commit; another move with that number, or the move alone, is judged as before.
#[test]
fn a_move_given_twice_said_whose_move_it_is() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let o = run_at(&dir, &home, T0 + 60, &["move", "g", "1. 2e3"]);
    assert!(o.status.success(), "{}", text(&o));
    let head = git(&dir, &home, &["rev-parse", "HEAD"]);
    // The referee (no player) and Ann alike.
    for who in [&[][..], &["--as", "Ann"][..]] {
        let o = run_at(&dir, &home, T0 + 100, &[&["move", "g", "1. 2e3"][..], who].concat());
        let err = expect_failure_of(&o, 1);
        assert_eq!(
            err,
            "ravenpost: g: `1. 2e3` is already recorded (ply 1, at 2025-11-29T07:07:40Z); nothing was written. \
             Bo (Scarlet) is to move\n"
        );
        assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), head, "no commit");
    }
    // Black's move by its number, twice.
    let o = run_at(&dir, &home, T0 + 200, &["move", "g", "1... Sa3b6", "--as", "Bo"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = run_at(&dir, &home, T0 + 300, &["move", "g", "1... Sa3b6", "--as", "Bo"]);
    let err = expect_failure_of(&o, 1);
    assert!(err.contains("`1... Sa3b6` is already recorded (ply 2, at 2025-11-29T07:10:00Z)"), "{err}");
    assert!(err.contains("Ann (Gold) is to move"), "{err}");
    // Another move with the last ply's number is not the next ply's, as before.
    let o = run_at(&dir, &home, T0 + 300, &["move", "g", "1... Sa3b5", "--as", "Bo"]);
    assert!(expect_failure_of(&o, 1).contains("the move number 1... is not the next ply's"), "{}", text(&o));
    let log = git(&dir, &home, &["log", "--format=%s", "--", "games/gygax/g.pgn"]);
    assert_eq!(log.lines().count(), 3, "created, ply 1, ply 2: {log}");
}

/// Standard error of a run that must exit with `code`.
fn expect_failure_of(o: &std::process::Output, code: i32) -> String {
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Issue 34: messages named sides where a player expects names ("Scarlet resigns",
/// "Gold offers a draw", "Gold plays 2e3", `status` saying "Ann to move (Gold)"). Every
/// action's output, `status` and `log` now name the player with the side in brackets; a
/// side whose player is unnamed (`?`) is named by its side alone.
#[test]
fn messages_named_the_side_instead_of_the_player() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    assert_eq!(ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]), "Ann (Gold) plays 2e3 (ply 1)\n");
    let status = ok(&dir, &home, &["status"]);
    assert!(status.contains("  Bo (Scarlet) to move"), "{status}");
    // An illegal move with --offer-draw writes neither the offer nor the move.
    let head = git(&dir, &home, &["rev-parse", "HEAD"]);
    let o = run(&dir, &home, &["move", "g", "Sa3a5", "--as", "Bo", "--offer-draw"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("illegal move `Sa3a5`"), "{}", text(&o));
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        ok(&dir, &home, &["draw", "offer", "g", "--as", "Bo"]),
        "Bo (Scarlet) offers a draw\nIt goes with your next move: ravenpost move g MOVE\n"
    );
    let out = ok(&dir, &home, &["move", "g", "Sa3b6", "--as", "Bo", "--offer-draw"]);
    assert_eq!(out, "Bo (Scarlet) plays Sa3b6 (ply 2)\n", "the offer stood already: one step");
    let status = ok(&dir, &home, &["status"]);
    assert!(status.contains("  Ann (Gold) to move, draw offered by Bo (Scarlet)"), "{status}");
    assert_eq!(ok(&dir, &home, &["draw", "decline", "g", "--as", "Ann"]), "Ann (Gold) declines the draw\n");
    // A move out of turn names whose turn it is.
    let o = run(&dir, &home, &["move", "g", "Sb6c4", "--as", "Bo"]);
    assert!(text(&o).contains("Ann (Gold) is to move"), "{}", text(&o));
    assert_eq!(ok(&dir, &home, &["resign", "g", "--as", "Bo"]), "Bo (Scarlet) resigns\n");
    let log = ok(&dir, &home, &["log", "g"]);
    assert!(log.contains("Bo (Scarlet) offers a draw\n"), "{log}");
    assert!(log.contains("Ann (Gold) declines the draw\n"), "{log}");
    assert!(log.contains("Bo (Scarlet) resigns, result 1-0\n"), "{log}");
    // The record and the commit messages keep the words every release wrote.
    let file = std::fs::read_to_string(dir.join("games/gygax/g.pgn")).unwrap();
    assert!(file.contains("{Scarlet resigns.}"), "{file}");
    assert_eq!(git(&dir, &home, &["log", "-1", "--format=%s"]), "g: Scarlet resigns\n");
    // Unnamed: the side alone.
    ok(&dir, &home, &["new", "gygax", "--white", "?", "--black", "Bo", "--id", "u"]);
    assert_eq!(ok(&dir, &home, &["move", "u", "2e3"]), "Gold plays 2e3 (ply 1)\n");
}

/// Regression (a cold `verify` read the club's settings of each new game from its commit's
/// tree; it now takes them from the history index): a game is still judged by the account
/// registry of the commit that created it, not the tip's. Here the game's WhiteAccount
/// tag names Bo's account for Ann while `ravenpost.yaml` registers it to Bo; the registry
/// is emptied afterwards, and `verify` still finds the creation wrong.
#[test]
fn verify_judged_a_new_game_by_the_club_settings_of_its_commit() {
    let (_t, dir, home) = archive();
    let settings = dir.join("ravenpost.yaml");
    let plain = std::fs::read_to_string(&settings).unwrap();
    std::fs::write(&settings, format!("{plain}accounts:\n  Ann: [ann]\n  Bo: [bo]\n")).unwrap();
    git(&dir, &home, &["commit", "-q", "-a", "-m", "accounts"]);
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let file = dir.join("games/gygax/g.pgn");
    let pgn = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, pgn.replacen("[White \"Ann\"]", "[White \"Ann\"]\n[WhiteAccount \"bo\"]", 1))
        .unwrap();
    git(&dir, &home, &["commit", "-q", "-a", "--amend", "--no-edit"]);
    let problem = "`bo` to Bo";
    let o = run(&dir, &home, &["verify", "g"]);
    assert!(text(&o).contains(problem), "{}", text(&o));
    std::fs::write(&settings, &plain).unwrap();
    git(&dir, &home, &["commit", "-q", "-a", "-m", "no accounts"]);
    for args in [&["verify", "g"][..], &["verify"][..]] {
        // Judged again, not taken from the verdicts kept by the first run.
        for e in std::fs::read_dir(dir.join(".git/ravenpost")).unwrap() {
            let e = e.unwrap();
            if e.file_name().to_string_lossy().starts_with("cache.sqlite3") {
                std::fs::remove_file(e.path()).unwrap();
            }
        }
        let o = run(&dir, &home, args);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        assert!(text(&o).contains(problem), "{args:?}: {}", text(&o));
    }
}
