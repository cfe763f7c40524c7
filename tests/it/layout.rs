//! Where game files live (issue 31, item 1): new archives put each game in a fan-out of
//! bucket folders (`games/<variant>/<x>/<y>/<id>.pgn`, x and y the first two hex digits
//! of the SHA-256 of the id); archives in the old flat layout keep working; `ravenpost
//! archive migrate-layout` moves an archive to the fan-out in one commit that `verify`
//! and the hook accept and that every game's history follows.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::common::cli::{archive_with, identity, ok, ok_at, run_at, text};
use crate::common::git::git;

/// The fan-out path of game `id` of `variant`, computed here from its definition.
fn fan_out(variant: &str, id: &str) -> String {
    let hex = format!("{:x}", Sha256::digest(id.as_bytes()));
    format!("games/{variant}/{}/{}/{id}.pgn", &hex[0..1], &hex[1..2])
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/archives").join(name)
}

/// The time the 0.1.0 archive's answers were taken at.
fn time_0_1_0() -> i64 {
    std::fs::read_to_string(data("0.1.0-time.expected")).unwrap().trim().parse().unwrap()
}

const GAMES_0_1_0: [&str; 6] = ["g-ann-bo", "grand-tc", "fid-1", "fg-secret", "fg-draw", "g-clock"];

/// A clone of the 0.1.0 archive (flat layout) in `dir`, by `name`.
fn clone_0_1_0(from: &Path, dir: &Path, home: &Path, name: &str) {
    git(
        dir.parent().unwrap(),
        home,
        &["clone", "--quiet", "--branch", "main", from.to_str().unwrap(), dir.to_str().unwrap()],
    );
    git(dir, home, &["config", "user.name", name]);
    git(dir, home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
}

/// `verify --json`, `status --json` and each game's `log --json` (with the cache gone
/// first when `cold`).
fn answers(dir: &Path, home: &Path, cold: bool) -> Vec<String> {
    if cold {
        let _ = std::fs::remove_dir_all(dir.join(".git/ravenpost"));
    }
    let t = time_0_1_0();
    let mut out =
        vec![ok_at(dir, home, t, &["verify", "--json"]), ok_at(dir, home, t, &["status", "--json"])];
    for g in GAMES_0_1_0 {
        out.push(ok_at(dir, home, t, &["log", g, "--json"]));
    }
    out
}

#[test]
fn a_new_archive_puts_games_in_the_fan_out() {
    let (_t, dir, home) = archive_with(&["--layout", "fan-out"]);
    let settings = std::fs::read_to_string(dir.join("ravenpost.yaml")).unwrap();
    assert!(settings.contains("layout: fan-out"), "{settings}");
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g1"]);
    ok(&dir, &home, &["new", "fidchell", "--white", "Cy", "--black", "Di", "--id", "f1"]);
    let files = git(&dir, &home, &["ls-files", "games"]);
    assert_eq!(files, format!("{}\n{}\n", fan_out("fidchell", "f1"), fan_out("gygax", "g1")));
    // `printf g1 | sha256sum` starts 7114.
    assert_eq!(fan_out("gygax", "g1"), "games/gygax/7/1/g1.pgn");
    let verified = ok(&dir, &home, &["verify"]);
    assert!(verified.contains("2 games"), "{verified}");
    let status = ok(&dir, &home, &["status"]);
    assert!(status.contains("g1") && status.contains("f1"), "{status}");
    let log = ok(&dir, &home, &["log", "g1"]);
    assert!(log.contains("created"), "{log}");
}

#[test]
fn a_flat_archive_keeps_its_layout_and_refuses_the_other() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
    let dir = t.path().join("flat");
    git(t.path(), &home, &["init", "--quiet", "-b", "main", dir.to_str().unwrap()]);
    std::fs::write(dir.join("ravenpost.yaml"), "version: 1\nsite: ravenpost\n").unwrap();
    git(&dir, &home, &["add", "ravenpost.yaml"]);
    git(&dir, &home, &["commit", "--quiet", "-m", "Start a ravenpost archive"]);
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g1"]);
    assert_eq!(git(&dir, &home, &["ls-files", "games"]), "games/gygax/g1.pgn\n");
    assert!(ok(&dir, &home, &["verify"]).contains("1 game"));
    // A game written by hand at a fan-out path of a flat archive: refused by verify.
    let game = std::fs::read_to_string(dir.join("games/gygax/g1.pgn")).unwrap();
    let wrong = fan_out("gygax", "g2");
    std::fs::create_dir_all(dir.join(&wrong).parent().unwrap()).unwrap();
    std::fs::write(dir.join(&wrong), game).unwrap();
    git(&dir, &home, &["add", &wrong]);
    git(&dir, &home, &["commit", "--quiet", "-m", "g2 by hand"]);
    let o = run_at(&dir, &home, crate::common::cli::T0, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains(&format!("{wrong} is in the fan-out layout, but the archive keeps its games in the flat layout (games/gygax/g2.pgn)")), "{said}");
}

#[test]
fn the_0_1_0_archive_migrated_answers_as_before() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Admin", "admin@example.org");
    let dir = t.path().join("a");
    clone_0_1_0(&data("ravenpost-0.1.0.bundle"), &dir, &home, "Admin");
    let before = answers(&dir, &home, true);
    assert!(before[0].contains("\"problems\": []"), "{}", before[0]);
    let said = ok_at(&dir, &home, time_0_1_0(), &["archive", "migrate-layout"]);
    assert!(said.ends_with("moved 6 games and 1 army choices to the fan-out layout\n"), "{said}");
    // One commit: every record renamed unchanged, the settings given the layout.
    let show = git(&dir, &home, &["show", "--format=", "--name-status", "-M", "HEAD"]);
    let mut lines: Vec<&str> = show.lines().collect();
    lines.sort_unstable();
    let mut want: Vec<String> = GAMES_0_1_0
        .iter()
        .map(|g| {
            let variant = match *g {
                "g-ann-bo" | "g-clock" => "gygax",
                "grand-tc" => "grand",
                "fid-1" => "fidchell",
                _ => "fantasy-grand",
            };
            format!("R100\tgames/{variant}/{g}.pgn\t{}", fan_out(variant, g))
        })
        .collect();
    let choice = fan_out("fantasy-grand", "fg-secret").replace(".pgn", ".armies.yaml");
    want.push(format!("R100\tgames/fantasy-grand/fg-secret.armies.yaml\t{choice}"));
    want.push("M\travenpost.yaml".to_string());
    want.sort_unstable();
    assert_eq!(lines, want);
    assert_eq!(git(&dir, &home, &["status", "--porcelain"]), "");
    // The same answers, warm and from nothing.
    assert_eq!(answers(&dir, &home, false), before);
    assert_eq!(answers(&dir, &home, true), before);
    // A second migration has nothing to do.
    let o = run_at(&dir, &home, time_0_1_0(), &["archive", "migrate-layout"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("the archive is in the fan-out layout already"), "{}", text(&o));
}

/// A bare copy of the 0.1.0 archive with the hook installed, and a player's clone of it.
fn club(t: &Path, home: &Path) -> (PathBuf, PathBuf) {
    let server = t.join("server.git");
    git(
        t,
        home,
        &[
            "clone",
            "--quiet",
            "--bare",
            "--branch",
            "main",
            data("ravenpost-0.1.0.bundle").to_str().unwrap(),
            server.to_str().unwrap(),
        ],
    );
    let out = ok(t, home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    assert!(out.contains("pre-receive"), "{out}");
    let dir = t.join("admin");
    clone_0_1_0(&server, &dir, home, "Admin");
    (server, dir)
}

/// Pushes `dir`'s branch; the hook's verdict: `Ok(())` accepted, `Err(message)` refused.
fn push(dir: &Path, home: &Path) -> Result<(), String> {
    let o = crate::common::git::git_out(dir, home, &["push", "--quiet", "origin", "main"]);
    if o.status.success() { Ok(()) } else { Err(text(&o)) }
}

#[test]
fn the_hook_accepts_a_migration_and_refuses_forged_ones() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Admin", "admin@example.org");
    let (_server, dir) = club(t.path(), &home);
    let time = time_0_1_0();
    let forge = |edit: &dyn Fn(&Path), why: &str| {
        git(&dir, &home, &["reset", "--quiet", "--hard", "origin/main"]);
        ok_at(&dir, &home, time, &["archive", "migrate-layout"]);
        edit(&dir);
        git(&dir, &home, &["add", "--all", "games"]);
        git(&dir, &home, &["commit", "--quiet", "--amend", "--no-edit"]);
        let refused = push(&dir, &home).expect_err("a forged migration is refused");
        assert!(refused.contains(why), "expected {why:?}: {refused}");
    };
    let clock = fan_out("gygax", "g-clock");
    // A changed blob (a ply mixed into the migration).
    forge(
        &|d| {
            let f = d.join(&clock);
            let text = std::fs::read_to_string(&f).unwrap();
            std::fs::write(&f, text.replace("[Black \"Di\"]", "[Black \"Ed\"]")).unwrap();
        },
        &format!(
            "{clock}: a change of layout (`ravenpost archive migrate-layout`) only moves every game and army choice file unchanged to its fan-out path and sets `layout: fan-out` in ravenpost.yaml; its contents differ from those of games/gygax/g-clock.pgn"
        ),
    );
    // A game moved to a bucket that is not its id's.
    let wrong = "games/gygax/0/0/g-clock.pgn".to_string();
    assert_ne!(wrong, clock);
    forge(
        &|d| {
            std::fs::create_dir_all(d.join("games/gygax/0/0")).unwrap();
            std::fs::rename(d.join(&clock), d.join(&wrong)).unwrap();
        },
        "games/gygax/0/0/g-clock.pgn: a change of layout",
    );
    // A game id at two paths: a copy beside the moved game, in another variant's folder.
    let copy = fan_out("grand", "g-clock");
    forge(
        &|d| {
            std::fs::create_dir_all(d.join(&copy).parent().unwrap()).unwrap();
            std::fs::copy(d.join(&clock), d.join(&copy)).unwrap();
        },
        &format!("game id g-clock is at two paths, {copy} and {clock}"),
    );
    // A game left at its flat path.
    forge(
        &|d| {
            std::fs::rename(d.join(fan_out("fidchell", "fid-1")), d.join("games/fidchell/fid-1.pgn"))
                .unwrap();
        },
        "games/fidchell/fid-1.pgn is in the flat layout, but the archive keeps its games in the fan-out layout",
    );
    // The real one.
    git(&dir, &home, &["reset", "--quiet", "--hard", "origin/main"]);
    ok_at(&dir, &home, time, &["archive", "migrate-layout"]);
    push(&dir, &home).expect("the migration is accepted");
}

#[test]
fn moves_after_a_migration_work_end_to_end() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Admin", "admin@example.org");
    let (server, dir) = club(t.path(), &home);
    let time = time_0_1_0();
    let before = ok_at(&dir, &home, time, &["log", "fid-1"]);
    ok_at(&dir, &home, time, &["archive", "migrate-layout"]);
    push(&dir, &home).expect("the migration is accepted");
    // Ann's clone, made after the migration: she moves and syncs.
    let ann = t.path().join("ann");
    clone_0_1_0(&server, &ann, &home, "Ann");
    ok_at(&ann, &home, time + 60, &["move", "fid-1", "W_d3", "--as", "Ann"]);
    assert_eq!(
        git(&ann, &home, &["show", "--format=", "--name-only", "HEAD"]),
        format!("{}\n", fan_out("fidchell", "fid-1"))
    );
    let synced = ok_at(&ann, &home, time + 120, &["sync"]);
    assert!(!synced.is_empty());
    assert_eq!(
        git(&server, &home, &["rev-parse", "main"]),
        git(&ann, &home, &["rev-parse", "HEAD"]),
        "the move reached the server"
    );
    // The admin's clone follows; the game's log is its whole history and the new ply.
    ok_at(&dir, &home, time + 180, &["sync"]);
    let after = ok_at(&dir, &home, time + 180, &["log", "fid-1"]);
    assert!(after.starts_with(before.trim_end()), "{before}\n---\n{after}");
    assert!(after.contains("ply 7 W_d3"), "{after}");
    let verified = ok_at(&dir, &home, time + 180, &["verify"]);
    assert!(verified.contains("6 games"), "{verified}");
    let shown = ok_at(&dir, &home, time + 180, &["show", "fid-1"]);
    assert!(shown.contains("W_d3"), "{shown}");
    assert_eq!(ok_at(&dir, &home, time + 180, &["verify", "fid-1"]), "1 game verified, 0 problems\n");
}
