//! The tools players already use (issue 19, second half): the user's own settings file,
//! the files an archive may hold beside its games (the hook and `verify` alike), the
//! identity of a move played for someone else, transliterated ids and capped subjects,
//! pictures with a caption, flipped and scaled, a last-move outline that stands out on
//! every board, and what python-chess really reads of a ravenpost file.

use crate::common;

use std::path::{Path, PathBuf};

use common::tools::require;
use common::{T0, archive, fails, git, git_out, identity, ok, run, text};
use ravenpost::referee::Problem;

// ---- the files an archive may hold -------------------------------------------------------

/// A bare server with the ravenpost hook, and a clone of it holding a new archive (pushed):
/// (the directory to keep, home, the clone).
fn club() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Ann", "ann@example.org");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok(t.path(), &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    let clone = t.path().join("ann");
    git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), clone.to_str().unwrap()]);
    ok(&clone, &home, &["init", "--layout", "flat"]);
    ok(&clone, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    push_ok(&clone, &home);
    (t, home, clone)
}

fn push_ok(dir: &Path, home: &Path) {
    let o = git_out(dir, home, &["push", "--quiet", "origin", "main"]);
    assert!(o.status.success(), "push refused: {}", text(&o));
}

fn commit_file(dir: &Path, home: &Path, path: &str, contents: &str) {
    std::fs::write(dir.join(path), contents).unwrap();
    git(dir, home, &["add", path]);
    git(dir, home, &["commit", "--quiet", "-m", &format!("add {path}")]);
}

/// `verify --json`'s problems: (subject, problem).
fn verify_problems(dir: &Path, home: &Path) -> Vec<(String, String)> {
    let o = run(dir, home, &["verify", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o)));
    v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["game"].as_str().unwrap().to_string(), p["problem"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn a_readme_passes_the_hook_and_verify_alike() {
    let (_t, home, clone) = club();
    commit_file(&clone, &home, "README.md", "# Our club's games\n");
    push_ok(&clone, &home);
    // .gitattributes may change after the first commit too, with a move beside it.
    let attributes = std::fs::read_to_string(clone.join(".gitattributes")).unwrap();
    std::fs::write(clone.join(".gitattributes"), format!("{attributes}*.md text\n")).unwrap();
    git(&clone, &home, &["add", ".gitattributes"]);
    ok(&clone, &home, &["move", "g", "2e3", "--as", "Ann"]);
    git(&clone, &home, &["commit", "--quiet", "--amend", "--no-edit"]);
    push_ok(&clone, &home);
    assert_eq!(verify_problems(&clone, &home), vec![]);
    assert!(ok(&clone, &home, &["verify"]).contains("1 game verified, 0 problems"));
}

#[test]
fn a_random_file_is_refused_by_the_hook_and_verify_with_the_same_problem() {
    let (_t, home, clone) = club();
    commit_file(&clone, &home, "notes.txt", "hello\n");
    let o = git_out(&clone, &home, &["push", "origin", "main"]);
    assert!(!o.status.success(), "{}", text(&o));
    let problem = Problem::NotAGameFile.to_string();
    let said = text(&o);
    let line = said.lines().find(|l| l.contains("notes.txt")).unwrap_or_else(|| panic!("{said}"));
    assert!(line.trim_end().ends_with(&problem), "{line}");
    assert!(
        problem.contains("README.md, README, LICENSE, .gitattributes, .gitignore and .mailmap"),
        "{problem}"
    );
    // verify, in the clone that has the commit: the same problem about the same path.
    assert_eq!(verify_problems(&clone, &home), vec![("notes.txt".to_string(), problem.clone())]);
    let o = run(&clone, &home, &["verify"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    // The settings file changed after the first commit with the file beside it: a
    // settings change, which changes nothing else, refused by both alike.
    git(&clone, &home, &["reset", "--quiet", "--hard", "origin/main"]);
    let yaml = std::fs::read_to_string(clone.join("ravenpost.yaml")).unwrap();
    std::fs::write(clone.join("ravenpost.yaml"), format!("{yaml}event: elsewhere\n")).unwrap();
    git(&clone, &home, &["add", "ravenpost.yaml"]);
    commit_file(&clone, &home, "notes.txt", "hello\n");
    let o = git_out(&clone, &home, &["push", "origin", "main"]);
    let problem = Problem::NotOnlySettings { path: "notes.txt".into() }.to_string();
    assert!(!o.status.success() && text(&o).contains(&problem), "{}", text(&o));
    assert_eq!(verify_problems(&clone, &home), vec![("notes.txt".to_string(), problem)]);
}

#[test]
fn init_writes_attributes_that_diff_games_as_text_by_move() {
    let (_t, dir, home) = archive();
    let attributes = std::fs::read_to_string(dir.join(".gitattributes")).unwrap();
    assert!(attributes.lines().any(|l| l == "games/**/*.pgn diff=pgn"), "{attributes}");
    assert_eq!(
        git(&dir, &home, &["check-attr", "diff", "games/gygax/g.pgn"]),
        "games/gygax/g.pgn: diff: pgn\n"
    );
    assert_eq!(git(&dir, &home, &["config", "diff.pgn.xfuncname"]), "^[0-9]+\\..*$\n");
    // A long game's last line changed: the hunk is headed by the move line before it.
    let game = std::fs::read_to_string(sample("gygax/gygax-sample-1.pgn")).unwrap();
    std::fs::create_dir_all(dir.join("games/gygax")).unwrap();
    std::fs::write(dir.join("games/gygax/s.pgn"), &game).unwrap();
    git(&dir, &home, &["add", "games/gygax/s.pgn"]);
    git(&dir, &home, &["commit", "--quiet", "-m", "s"]);
    std::fs::write(dir.join("games/gygax/s.pgn"), game.replace("H2k4# 1-0", "H2k4 1-0")).unwrap();
    let diff = git(&dir, &home, &["diff", "-U0"]);
    let header = diff.lines().find(|l| l.starts_with("@@")).unwrap();
    let before = game.lines().rev().nth(1).unwrap();
    assert!(before.starts_with("137. "), "{before}");
    assert_eq!(header, format!("@@ -39 +39 @@ {before}"), "{diff}");
}

// ---- the identity of a move --------------------------------------------------------------

fn log_format(dir: &Path, home: &Path, format: &str) -> String {
    git(dir, home, &["log", "-1", &format!("--format={format}")]).trim_end().to_string()
}

#[test]
fn a_move_played_with_as_is_authored_by_the_player_and_committed_by_you() {
    // Referee <referee@example.org> is no player: every step is committed by the referee,
    // authored by the player with the game's email.
    let (_t, dir, home) = archive();
    let new = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"];
    ok(
        &dir,
        &home,
        &[&new[..], &["--white-email", "ann@example.org", "--black-email", "bo@example.net"]].concat(),
    );
    ok(&dir, &home, &["move", "g", "2e3"]);
    assert_eq!(
        log_format(&dir, &home, "%an <%ae> | %cn <%ce>"),
        "Ann <ann@example.org> | Referee <referee@example.org>"
    );
    // The same command twice would play for Bo too: refused, as before (#13).
    fails(&dir, &home, &["move", "g", "Sa3b6"], 1, "whose move is this?");
    ok(&dir, &home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    assert_eq!(
        log_format(&dir, &home, "%an <%ae> | %cn <%ce>"),
        "Bo <bo@example.net> | Referee <referee@example.org>"
    );
    // Forges and shortlog credit the players.
    let shortlog = git(&dir, &home, &["shortlog", "-se", "HEAD"]);
    assert_eq!(
        shortlog,
        "     1\tAnn <ann@example.org>\n     1\tBo <bo@example.net>\n     2\tReferee <referee@example.org>\n"
    );
    assert!(ok(&dir, &home, &["verify"]).contains("1 game verified, 0 problems"));
}

#[test]
fn without_a_git_identity_moves_use_the_games_email_tags() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let dir = t.path().join("arc");
    ok(t.path(), &home, &["init", dir.to_str().unwrap(), "--layout", "flat"]);
    let new =
        ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--white-email", "ann@example.org"];
    ok(&dir, &home, &new);
    ok(&dir, &home, &["move", "g", "2e3"]);
    assert_eq!(
        log_format(&dir, &home, "%an <%ae> | %cn <%ce>"),
        "Ann <ann@example.org> | ravenpost <ravenpost@localhost>"
    );
    // Still, the same command twice is refused: ravenpost committed the last step.
    fails(&dir, &home, &["move", "g", "Sa3b6"], 1, "whose move is this?");
    ok(&dir, &home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    // Bo has no email tag: the address says so.
    assert_eq!(log_format(&dir, &home, "%an <%ae>"), "Bo <bo@ravenpost.invalid>");
}

// ---- ids and subjects --------------------------------------------------------------------

#[test]
fn default_ids_transliterate_and_subjects_are_capped() {
    let (_t, dir, home) = archive();
    let white = "Zoë Ünal";
    let black = "Þórdís Ægisdóttir Björnsdóttir";
    ok(&dir, &home, &["new", "gygax", "--white", white, "--black", black]);
    // T0 is 2025-11-29.
    let id = "20251129-zoe-unal-thordis-aegisdottir-bjornsdottir";
    let files = git(&dir, &home, &["ls-files", "games"]);
    assert_eq!(files, format!("games/gygax/{id}.pgn\n"));
    let subject = log_format(&dir, &home, "%s");
    let full = format!("{id}: new Gygax Chess game, {white} v {black}");
    assert!(full.chars().count() > 72);
    assert!(subject.chars().count() <= 72, "{subject}");
    assert!(subject.ends_with('…') && full.starts_with(subject.trim_end_matches('…')), "{subject}");
    // Cut at a word: what is left out starts with a space.
    assert!(full[subject.trim_end_matches('…').len()..].starts_with(' '), "{subject}");
    assert_eq!(log_format(&dir, &home, "%b"), full);
}

// ---- the user's settings -----------------------------------------------------------------

#[test]
fn the_users_settings_give_identity_archive_and_mail_below_the_command_line() {
    let (t, dir, home) = archive();
    let settings = t.path().join("settings.yaml");
    std::fs::write(
        &settings,
        format!(
            "identity:\n  name: Ann Example\n  email: ann@settings.example\narchive: {}\nmail:\n  sendmail: /bin/false-sendmail\n",
            dir.display()
        ),
    )
    .unwrap();
    let elsewhere = t.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let with = |args: &[&str]| {
        let mut cmd = common::ravenpost_at(&elsewhere, &home, T0);
        cmd.env("RAVENPOST_CONFIG", &settings).args(args);
        cmd.output().unwrap()
    };
    // Outside any archive: the settings' archive; committed as the settings' identity.
    let o = with(&["new", "gygax", "--white", "Ann Example", "--black", "Bo", "--id", "g"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        log_format(&dir, &home, "%an <%ae> | %cn <%ce>"),
        "Ann Example <ann@settings.example> | Ann Example <ann@settings.example>"
    );
    // --author wins over the settings.
    let o = with(&["move", "g", "2e3", "--author", "Cy <cy@example.org>"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        log_format(&dir, &home, "%an <%ae> | %cn <%ce>"),
        "Ann Example <cy@example.org> | Cy <cy@example.org>"
    );
    // The settings' mail section is the one mail send uses.
    let o = with(&["mail", "send", "g", "--to", "bo@example.net"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("sendmail (/bin/false-sendmail) failed"), "{}", text(&o));
    // A typo in the settings is an error naming the file and the line.
    std::fs::write(&settings, "identity:\n  name: Ann\n  email: a@b\nsiggning-key: x\n").unwrap();
    let o = with(&["status"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("{}: unknown field `siggning-key`", settings.display())),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("line 4"), "{}", text(&o));
    // Without RAVENPOST_CONFIG, the config directory's file ($XDG_CONFIG_HOME in the tests).
    let xdg = home.join("config/ravenpost");
    std::fs::create_dir_all(&xdg).unwrap();
    std::fs::write(xdg.join("config.yaml"), format!("archive: {}\n", dir.display())).unwrap();
    let o = common::ravenpost_at(&elsewhere, &home, T0).args(["status"]).output().unwrap();
    assert!(o.status.success() && text(&o).contains(&format!("Archive: {}", dir.display())), "{}", text(&o));
}

#[test]
fn an_uncommitted_edit_of_the_archive_settings_is_refused_not_ignored() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let yaml = std::fs::read_to_string(dir.join("ravenpost.yaml")).unwrap();
    std::fs::write(dir.join("ravenpost.yaml"), format!("{yaml}diagrams: every-move\n")).unwrap();
    let err = fails(
        &dir,
        &home,
        &["move", "g", "2e3"],
        2,
        "ravenpost.yaml: the working copy has edits that are not committed",
    );
    assert!(
        err.contains("ravenpost archive settings --file ravenpost.yaml")
            && err.contains("git checkout -- ravenpost.yaml"),
        "{err}"
    );
    assert_eq!(git(&dir, &home, &["rev-list", "--count", "HEAD"]), "2\n", "nothing was written");
    // Undone: the move goes through.
    git(&dir, &home, &["checkout", "--", "ravenpost.yaml"]);
    ok(&dir, &home, &["move", "g", "2e3"]);
}

// ---- pictures ----------------------------------------------------------------------------

/// The caption lines of an SVG.
fn caption(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("caption"))
        .map(|n| n.text().unwrap().to_string())
        .collect()
}

fn sample(name: &str) -> String {
    format!("{}/games/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn show_svg(args: &[&str]) -> String {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("p.svg");
    let home = t.path().join("home");
    let mut all = vec!["show"];
    all.extend_from_slice(args);
    all.extend(["--svg", out.to_str().unwrap()]);
    ok(t.path(), &home, &all);
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn pictures_have_a_caption() {
    // The Gygax sample ends in mate (`H2k4#` in the file) after as many plies as its
    // movetext has move tokens.
    let file = sample("gygax/gygax-sample-1.pgn");
    let text = std::fs::read_to_string(&file).unwrap();
    let plies = ravenpost::notation::pgn::read_games(&text)[0].as_ref().unwrap().moves.len();
    assert!(text.contains("H2k4# 1-0"));
    let svg = show_svg(&[&file]);
    assert_eq!(
        caption(&svg),
        [
            "Ann Example (Gold) v Bo Example (Scarlet)".to_string(),
            format!("Ply {plies}: Scarlet is checkmated; result 1-0")
        ]
    );
    assert!(svg.contains("<desc>Ann Example (Gold) v Bo Example (Scarlet)\n"), "{svg}");
    // Before the end: no result; the side to move.
    assert_eq!(caption(&show_svg(&[&file, "--ply", "1"]))[1], "Ply 1: Scarlet to move");
    // A game of armies names them (the WhiteArmy/BlackArmy tags of the sample).
    let fg = sample("fantasy-grand/fantasy-grand-sample-1.pgn");
    assert!(std::fs::read_to_string(&fg).unwrap().contains("[WhiteArmy \"giants\"]"));
    assert_eq!(
        caption(&show_svg(&[&fg, "--ply", "0"]))[0],
        "Ann Example (White, giants) v Bo Example (Black, evil-horde)"
    );
}

/// The square rects of an SVG: id → (x, y).
fn squares(svg: &str) -> std::collections::BTreeMap<String, (u32, u32)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let num = |n: roxmltree::Node, a: &str| n.attribute(a).unwrap().parse::<u32>().unwrap();
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("square"))
        .map(|n| (n.attribute("id").unwrap().to_string(), (num(n, "x"), num(n, "y"))))
        .collect()
}

#[test]
fn show_flip_turns_the_board_half_a_turn() {
    let file = sample("gygax/gygax-sample-1.pgn");
    let plain = squares(&show_svg(&[&file, "--ply", "0"]));
    let flipped = squares(&show_svg(&[&file, "--ply", "0", "--flip"]));
    assert_eq!(plain.len(), 288);
    // Each square of level 2 takes the place of the one half a turn away: file a ↔ l,
    // rank 1 ↔ 8 (the levels keep their places).
    for f in 0..12u8 {
        for r in 1..=8u8 {
            let id = |f: u8, r: u8| format!("2{}{r}", (b'a' + f) as char);
            assert_eq!(flipped[&id(f, r)], plain[&id(11 - f, 9 - r)], "{}", id(f, r));
        }
    }
    // The text diagram too: rank 1 on top.
    let t = tempfile::tempdir().unwrap();
    let out = ok(t.path(), &t.path().join("h"), &["show", &file, "--ply", "0", "--flip"]);
    let ranks: Vec<&str> =
        out.lines().filter_map(|l| l.split_whitespace().next()).filter(|w| w.parse::<u8>().is_ok()).collect();
    assert_eq!(ranks.first(), Some(&"1"), "{out}");
}

#[test]
fn png_scale_multiplies_the_size() {
    common::tools::require_font();
    let file = sample("gygax/gygax-sample-1.pgn");
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("h");
    let svg = show_svg(&[&file]);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let size = |a: &str| doc.root_element().attribute(a).unwrap().parse::<u32>().unwrap();
    assert_eq!(size("width"), 996);
    for (scale, factor) in [("1", 1.0), ("2", 2.0), ("0.5", 0.5)] {
        let png = t.path().join(format!("p{scale}.png"));
        ok(t.path(), &home, &["show", &file, "--png", png.to_str().unwrap(), "--scale", scale]);
        let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
        let info = decoder.read_info().unwrap();
        let want = |n: u32| (n as f64 * factor).ceil() as u32;
        assert_eq!(
            (info.info().width, info.info().height),
            (want(size("width")), want(size("height"))),
            "scale {scale}"
        );
    }
    assert_eq!(size("width") * 2, 1992);
    let png = t.path().join("x.png");
    let err = fails(
        t.path(),
        &home,
        &["show", &file, "--png", png.to_str().unwrap(), "--scale", "20"],
        2,
        "--scale: scale 20",
    );
    assert!(err.contains("from 0.25 to 8"), "{err}");
    assert!(!png.exists());
}

/// The WCAG 2 relative luminance of `#rrggbb`.
fn luminance(hex: &str) -> f64 {
    let h = hex.trim_start_matches('#');
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&h[i..i + 2], 16).unwrap()) / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[test]
fn the_last_move_outline_stands_out_on_every_board() {
    use ravenpost::notation::diagram::{DEFAULT_DARK, DEFAULT_LIGHT};
    use ravenpost::notation::svg::LAST_MOVE_OUTLINE;
    // Every square colour of the built-in definitions, read from their front matter.
    let mut colours = vec![DEFAULT_LIGHT.to_string(), DEFAULT_DARK.to_string()];
    for file in ["gygax", "fidchell", "grand", "fantasy-grand"] {
        let path = format!("{}/src/variants/{file}.md", env!("CARGO_MANIFEST_DIR"));
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for line in text.lines() {
            if let Some((_, v)) = line.split_once("cell-light:").or_else(|| line.split_once("cell-dark:")) {
                colours.push(v.trim().trim_matches('"').to_string());
            }
        }
    }
    assert_eq!(colours.len(), 2 + 6 + 2, "{colours:?}");
    for c in &colours {
        let ratio = contrast(LAST_MOVE_OUTLINE, c);
        // WCAG 2.1 (1.4.11) asks 3:1 of graphics against what is next to them.
        assert!(ratio >= 3.0, "{LAST_MOVE_OUTLINE} on {c}: {ratio:.2}");
    }
    // Gygax's green Land board, where the old red (#d03020) had 1.5:1.
    assert!(contrast("#d03020", "#6d9450") < 1.6);
    assert!(contrast(LAST_MOVE_OUTLINE, "#6d9450") > 5.0);
    let svg = show_svg(&[&sample("gygax/gygax-sample-1.pgn"), "--ply", "2"]);
    assert_eq!(svg.matches(r#"class="last" "#).count(), 2);
    assert!(svg.contains(&format!(r#"stroke="{LAST_MOVE_OUTLINE}""#)));
}

// ---- what python-chess reads -------------------------------------------------------------

/// python-chess reads a PGN file with a visitor that keeps what it splits each game into:
/// its tags, the move tokens it hands to `parse_san`, comments, variations, result.
const PYTHON_CHESS: &str = r#"
import json, sys, chess, chess.pgn
class Split(chess.pgn.BaseVisitor):
    def begin_game(self): self.r = {"tags": [], "moves": [], "comments": [], "variations": 0, "result": None, "errors": []}
    def visit_header(self, k, v): self.r["tags"].append([k, v])
    def parse_san(self, board, san):
        self.r["moves"].append(san)
        return chess.Move.null()
    def visit_comment(self, c): self.r["comments"].append(c)
    def begin_variation(self): self.r["variations"] += 1
    def visit_result(self, r): self.r["result"] = r
    def handle_error(self, e): self.r["errors"].append(str(e))
    def result(self): return self.r
games = []
with open(sys.argv[1]) as f:
    while (g := chess.pgn.read_game(f, Visitor=Split)) is not None:
        games.append(g)
print(json.dumps(games))
"#;

#[test]
fn python_chess_reads_the_tags_comments_and_results_but_not_the_moves() {
    require("python3", &["-c", "import chess.pgn"], "python-chess (`pip install chess`; .ci/test-deps does)");
    let o = std::process::Command::new("python3").args(["-c", "import chess.pgn"]).output().unwrap();
    assert!(o.status.success(), "this test needs python-chess: `pip install chess` (.ci/test-deps does)");
    // Two games in one file: a sample, and one with comments and a variation.
    let t = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(sample("gygax/gygax-sample-1.pgn")).unwrap();
    text.push('\n');
    text.push_str(
        "[Event \"e\"]\n[Site \"s\"]\n[Date \"2025.11.29\"]\n[Round \"-\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n\
         [Result \"*\"]\n[Variant \"grand\"]\n\n1. e5 {a comment} Ce7 (1... c7 2. g4) 2. g4 {another} *\n",
    );
    let file = t.path().join("two.pgn");
    std::fs::write(&file, &text).unwrap();
    let ours: Vec<_> = ravenpost::notation::pgn::read_games(&text).into_iter().map(Result::unwrap).collect();
    assert_eq!(ours.len(), 2);
    let o = std::process::Command::new("python3")
        .args(["-c", PYTHON_CHESS, file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text_of(&o));
    let theirs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let theirs = theirs.as_array().unwrap();
    // What holds: the games, every tag pair, the comments, the variations, the results.
    assert_eq!(theirs.len(), ours.len());
    for (g, p) in ours.iter().zip(theirs) {
        let tags: Vec<(String, String)> = g.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect();
        let read: Vec<(String, String)> = p["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|kv| (kv[0].as_str().unwrap().to_string(), kv[1].as_str().unwrap().to_string()))
            .collect();
        assert_eq!(read, tags);
        assert_eq!(p["result"].as_str(), g.result.as_ref().map(|r| r.0.as_str()));
        let comments: Vec<&str> =
            g.moves.iter().flat_map(|m| m.comments.iter().map(String::as_str)).collect();
        let read: Vec<&str> = p["comments"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        assert_eq!(read, comments);
        let variations: usize = g.moves.iter().map(|m| m.variations.len()).sum();
        assert_eq!(p["variations"].as_u64(), Some(variations as u64));
        // It refuses the variant.
        assert!(
            p["errors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e.as_str().unwrap().starts_with("unsupported variant"))
        );
    }
    // What does not: the move tokens. python-chess cuts each to the part that looks like
    // a chess move (the Gygax sample's first token `Rx3a7` becomes `3a7`; `Ce7` becomes
    // `e7`) and drops tokens with no such part, so it reads fewer moves than there are.
    let moves = |p: &serde_json::Value| -> Vec<String> {
        p["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect()
    };
    let gygax: Vec<&str> = ours[0].moves.iter().map(|m| m.token.as_str()).collect();
    assert_eq!(gygax[0], "Rx3a7");
    assert_eq!(moves(&theirs[0])[0], "3a7");
    assert!(moves(&theirs[0]).len() < gygax.len());
    assert_eq!(moves(&theirs[1]), ["e5", "e7", "c7", "g4", "g4"]);
}

fn text_of(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}
