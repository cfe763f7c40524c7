//! The tools players already use (issue 19): 80-column terminals (diagram layouts),
//! mail clients (body width, the game score in the body, `mail import -` from a pipe, a
//! declined draw's own message), shells (completions loaded by bash, zsh and fish), `man`,
//! JSON outputs checked against the schemas in `docs/schemas/` by Python's jsonschema,
//! `--color`, and one error shape across the binary.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::diagram::{read_diagram, read_placements};
use common::tools::require;
use common::{T0, archive, git, identity, ok, ravenpost_at, run, text};
use mail_parser::{MessageParser, MimeHeaders};

/// Runs `ravenpost args` in `dir` with `env` set (and `COLUMNS` only when `env` sets it).
fn run_env(dir: &Path, home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = ravenpost_at(dir, home, T0);
    cmd.env_remove("COLUMNS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args).output().expect("the ravenpost binary runs")
}

/// As [`run_env`], which must succeed; standard output.
fn ok_env(dir: &Path, home: &Path, env: &[(&str, &str)], args: &[&str]) -> String {
    let o = run_env(dir, home, env, args);
    assert!(o.status.success(), "ravenpost {args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Runs `ravenpost args` with `input` written into its standard input through a pipe.
fn piped(dir: &Path, home: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = ravenpost_at(dir, home, T0)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// The widest line of `s`, in characters.
fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The legal moves of a game now, in SAN (`ravenpost moves GAME`).
fn legal(dir: &Path, home: &Path, game: &str) -> Vec<String> {
    let j: serde_json::Value = serde_json::from_str(&ok(dir, home, &["moves", game, "--json"])).unwrap();
    j["moves"].as_array().unwrap().iter().map(|m| m["san"].as_str().unwrap().to_string()).collect()
}

/// Plays `plies` moves in `game` (a new game), each the first legal move that is no
/// capture (so a long game keeps its pieces) and must not end the game; the referee's
/// identity plays both sides, so each move names its ply. Returns the moves played.
fn play_first_moves(dir: &Path, home: &Path, game: &str, plies: usize) -> Vec<String> {
    let mut played = Vec::new();
    for ply in 1..=plies {
        let moves = legal(dir, home, game);
        assert!(!moves.is_empty(), "{game} is over after {played:?}");
        let mv = moves.iter().find(|m| !m.contains('x') && !m.contains('#')).unwrap_or(&moves[0]).clone();
        let out = ok(dir, home, &["move", game, &mv, "--expect-ply", &ply.to_string()]);
        assert!(!out.contains("Result:"), "{mv} ended {game}: {out}");
        played.push(mv);
    }
    played
}

// ---------------------------------------------------------------- diagrams at 80 columns

/// A game of each variant after two first moves: (variant, game id).
fn games_of_each_variant(dir: &Path, home: &Path) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (variant, extra) in [
        ("gygax", &[][..]),
        ("fidchell", &[][..]),
        ("grand", &[][..]),
        ("fantasy-grand", &["--army-white", "elves", "--army-black", "evil-horde"][..]),
    ] {
        let id = format!("{variant}-80");
        let mut args = vec!["new", variant, "--white", "Ann", "--black", "Bo", "--id", &id];
        args.extend_from_slice(extra);
        ok(dir, home, &args);
        play_first_moves(dir, home, &id, 2);
        out.push((variant, id));
    }
    out
}

/// At 80 columns (`$COLUMNS`, standard output not a terminal) every variant's `show` fits:
/// Gygax Chess's levels are in the compact layout (the same boards as side by side and
/// stacked, read back square by square, and those of the position string), the others are
/// as wide as ever. Snapshots of each, and the explicit layouts.
#[test]
fn diagrams_fit_80_columns_in_each_variant() {
    let (_t, dir, home) = archive();
    for (variant, id) in games_of_each_variant(&dir, &home) {
        let at_80 = ok_env(&dir, &home, &[("COLUMNS", "80")], &["show", &id]);
        assert!(widest(&at_80) <= 80, "{variant} at 80 columns:\n{at_80}");
        insta::assert_snapshot!(format!("show_{}_80_columns", variant.replace('-', "_")), at_80);
        let wide = ok_env(&dir, &home, &[], &["show", &id, "--layout", "side-by-side"]);
        let json: serde_json::Value =
            serde_json::from_str(&ok(&dir, &home, &["show", &id, "--json"])).unwrap();
        let position = json["position"].as_str().unwrap();
        if variant == "gygax" {
            // 134 columns with the last rank label's padding, which is trimmed.
            assert_eq!(widest(&wide), 133, "{wide}");
            assert_ne!(at_80, wide);
            // Side by side and stacked show the same squares: the three boards of one are
            // the three stacked boards of the other, and both are the position string's.
            let stacked_80 = ok_env(&dir, &home, &[("COLUMNS", "80")], &["show", &id, "--layout", "stacked"]);
            let (side, marked_side) = read_diagram(&wide);
            let (compact, marked_compact) = read_diagram(&at_80);
            let (stacked, marked_stacked) = read_diagram(&stacked_80);
            assert_eq!((side.len(), compact.len(), stacked.len()), (3, 3, 1));
            assert_eq!(compact, side);
            let joined: Vec<Vec<String>> = side.concat();
            assert_eq!(stacked[0], joined);
            assert_eq!(read_placements(position, 3).concat(), joined);
            assert_eq!(marked_side.len(), marked_stacked.len());
            assert_eq!(marked_side, marked_compact);
            for heading in ["Air (3)", "Land (2)", "Subterranean (1)"] {
                assert_eq!(stacked_80.lines().filter(|l| l.trim() == heading).count(), 1, "{heading}");
                assert_eq!(at_80.lines().filter(|l| l.contains(heading)).count(), 1, "{heading}: {at_80}");
            }
            // The compact layout: 10 lines of board, then the players, whose move, the
            // last move, within 16 lines.
            assert!(at_80.lines().count() <= 16, "{at_80}");
            assert_eq!(at_80.lines().nth(10), Some("Ann (Gold) v Bo (Scarlet)"), "{at_80}");
            // The explicit layout wins over the width; a wide terminal gets side by side.
            assert_eq!(
                ok_env(&dir, &home, &[("COLUMNS", "200")], &["show", &id, "--layout", "stacked"]),
                stacked_80
            );
            assert_eq!(
                ok_env(&dir, &home, &[("COLUMNS", "200")], &["show", &id, "--layout", "compact"]),
                at_80
            );
            assert_eq!(ok_env(&dir, &home, &[("COLUMNS", "134")], &["show", &id]), wide);
            assert_eq!(ok_env(&dir, &home, &[("COLUMNS", "133")], &["show", &id]), at_80);
            // No width known (a pipe, a file): the compact layout, as at 80 columns.
            assert_eq!(ok_env(&dir, &home, &[], &["show", &id]), at_80);
            // replay and position lay out the same way.
            let screen = ok_env(&dir, &home, &[("COLUMNS", "80")], &["replay", &id, "--ply", "2"]);
            assert!(widest(&screen) <= 80, "{screen}");
            assert!(screen.contains(at_80.lines().nth(3).unwrap()), "{screen}");
            let pos = ok_env(&dir, &home, &[("COLUMNS", "80")], &["position", "gygax", "2e3"]);
            assert!(widest(&pos.lines().skip(1).collect::<Vec<_>>().join("\n")) <= 80, "{pos}");
            assert!(pos.lines().any(|l| l.contains("Air (3)")), "{pos}");
        } else {
            assert_eq!(at_80, wide, "{variant}: one board, one layout");
            let (boards, _) = read_diagram(&at_80);
            assert_eq!(boards, read_placements(position, 1), "{variant}");
        }
    }
}

/// Runs the shell command `command` inside a pseudo-terminal of `cols` columns (util-linux
/// `script`), with `COLUMNS` unset and the ravenpost binary as `$RAVENPOST`; returns what
/// reached the terminal (newlines untranslated). Fails unless the command succeeds.
fn in_terminal(dir: &Path, home: &Path, cols: u16, command: &str) -> String {
    require("script", &["--version"], "bsdutils (util-linux's script)");
    let script = format!("stty rows 40 cols {cols} -onlcr && {command}");
    let mut cmd = Command::new("script");
    cmd.current_dir(dir).env("RAVENPOST_TIME", T0.to_string());
    common::isolate(&mut cmd, home);
    let o = cmd
        .env("SHELL", "/bin/sh")
        .env("RAVENPOST", env!("CARGO_BIN_EXE_ravenpost"))
        .args(["-q", "-e", "-c", &script, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script runs");
    assert!(o.status.success(), "script -c {script:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Regression (s5 NeoMutt play-through item 1): `ravenpost show GAME | less` in an 80-column
/// terminal drew Gygax Chess side by side, 134 columns, every line wrapping: with standard
/// output piped and `COLUMNS` not exported (bash does not export it) the width was unknown.
/// Now the terminal on standard error, else standard input, gives it. Checked in a real
/// pseudo-terminal: compact at 80 columns (issue 34: it was stacked, 35 lines), side by
/// side at 200, and compact (width unknown: 80 assumed) when all three streams are
/// redirected (issue 34: it was side by side).
#[test]
fn show_piped_in_an_80_column_terminal_stacks_the_levels_without_columns() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3"]);
    let stacked = ok_env(&dir, &home, &[("COLUMNS", "80")], &["show", "g"]);
    assert!(stacked.lines().count() <= 16, "{stacked}");
    let wide = ok_env(&dir, &home, &[("COLUMNS", "200")], &["show", "g"]);
    assert_ne!(stacked, wide);
    let out = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    // Standard output a pipe, standard error and input the terminal.
    in_terminal(&dir, &home, 80, r#""$RAVENPOST" show g | cat >piped.txt"#);
    assert_eq!(out("piped.txt"), stacked);
    assert!(widest(&out("piped.txt")) <= 80);
    // Standard error redirected too: standard input is still the terminal.
    in_terminal(&dir, &home, 80, r#""$RAVENPOST" show g 2>err.txt | cat >stdin.txt"#);
    assert_eq!(out("stdin.txt"), stacked);
    assert_eq!(out("err.txt"), "");
    // A wide terminal: side by side.
    in_terminal(&dir, &home, 200, r#""$RAVENPOST" show g | cat >wide.txt"#);
    assert_eq!(out("wide.txt"), wide);
    // All three redirected (a script's): the width is unknown, compact as at 80 columns.
    in_terminal(&dir, &home, 80, r#""$RAVENPOST" show g </dev/null 2>/dev/null | cat >none.txt"#);
    assert_eq!(out("none.txt"), stacked);
    // $COLUMNS, when exported, is what was asked for.
    in_terminal(&dir, &home, 80, r#"COLUMNS=200 "$RAVENPOST" show g | cat >columns.txt"#);
    assert_eq!(out("columns.txt"), wide);
    // The terminal on standard output is the output's own width, whatever $COLUMNS says.
    assert_eq!(in_terminal(&dir, &home, 80, r#"COLUMNS=200 "$RAVENPOST" show g"#), stacked);
}

/// Regression (s5 NeoMutt play-through item 17): `show --layout side-by-side` in an
/// 80-column terminal printed 134-column lines without a word. Now a one-line note on
/// standard error says so (standard output, which may be piped, is unchanged); none when
/// the width is unknown or the layout fits.
#[test]
fn side_by_side_wider_than_the_terminal_says_so_on_standard_error() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let wide = ok_env(&dir, &home, &[("COLUMNS", "200")], &["show", "g"]);
    let o = run_env(&dir, &home, &[("COLUMNS", "80")], &["show", "g", "--layout", "side-by-side"]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), wide);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        "ravenpost: note: side by side is 134 columns wide, the terminal 80\n"
    );
    for env in [&[][..], &[("COLUMNS", "134")][..]] {
        let o = run_env(&dir, &home, env, &["show", "g", "--layout", "side-by-side"]);
        assert!(o.status.success() && o.stderr.is_empty(), "{env:?}: {}", text(&o));
        assert_eq!(String::from_utf8_lossy(&o.stdout), wide);
    }
    // In a real 80-column terminal, output piped: the note reaches the terminal's file.
    in_terminal(&dir, &home, 80, r#""$RAVENPOST" show g --layout side-by-side 2>note.txt | cat >out.txt"#);
    assert_eq!(std::fs::read_to_string(dir.join("out.txt")).unwrap(), wide);
    assert_eq!(
        std::fs::read_to_string(dir.join("note.txt")).unwrap(),
        "ravenpost: note: side by side is 134 columns wide, the terminal 80\n"
    );
}

// ------------------------------------------------------------------------- mail bodies

/// The body (the text part) of a message.
fn body_of(bytes: &[u8]) -> String {
    MessageParser::default().parse(bytes).expect("a message").body_text(0).unwrap().replace("\r\n", "\n")
}

/// The moves of a body's game score: the words after `Moves:` up to the result, without
/// move numbers.
fn score_moves(body: &str) -> Vec<String> {
    let score = body.split("\nMoves:\n").nth(1).expect("a Moves: section");
    let mut out = Vec::new();
    for w in score.split_whitespace() {
        if matches!(w, "*" | "1-0" | "0-1" | "1/2-1/2") {
            return out;
        }
        if !w.ends_with('.') {
            out.push(w.to_string());
        }
    }
    panic!("no result after the moves: {score}");
}

/// The moves of a game as its git history has them (`log --json`: one commit a ply).
fn moves_from_history(dir: &Path, home: &Path, game: &str) -> Vec<String> {
    let log: serde_json::Value = serde_json::from_str(&ok(dir, home, &["log", game, "--json"])).unwrap();
    log.as_array().unwrap().iter().filter_map(|e| e["san"].as_str().map(str::to_string)).collect()
}

/// Every line of a mail body is at most 78 columns, for each variant and for a long
/// game with long names; the body has the game score (the same moves as the history),
/// wrapped, and the game file is still attached.
#[test]
fn mail_bodies_stay_within_78_columns_and_carry_the_moves() {
    let (_t, dir, home) = archive();
    let white = "Annabel Featherstonehaugh-Cholmondeley";
    let black = "Bartholomew Montgomery-Worthington";
    let mut cases = Vec::new();
    for variant in ["gygax", "fidchell", "grand", "fantasy-grand"] {
        let id = format!("{variant}-mail-game-with-a-long-identifier");
        let emails = ["--white-email", "annabel@example.org", "--black-email", "bart@example.net"];
        ok(
            &dir,
            &home,
            &[&["new", variant, "--white", white, "--black", black, "--id", &id][..], &emails].concat(),
        );
        play_first_moves(&dir, &home, &id, if variant == "gygax" { 48 } else { 4 });
        cases.push(id);
    }
    for id in &cases {
        let file = dir.parent().unwrap().join(format!("{id}.eml"));
        ok(&dir, &home, &["mail", "export", id, "--as", white, "-o", file.to_str().unwrap()]);
        let bytes = std::fs::read(&file).unwrap();
        let body = body_of(&bytes);
        for line in body.lines() {
            assert!(
                line.chars().count() <= 78,
                "{id}: a body line of {} columns: {line:?}\n{body}",
                line.len()
            );
        }
        let history = moves_from_history(&dir, &home, id);
        assert_eq!(score_moves(&body), history, "{id}: the body's moves are the game's\n{body}");
        let m = MessageParser::default().parse(&bytes).unwrap();
        let attached = m.attachments().next().expect("the game file is attached");
        assert_eq!(attached.attachment_name(), Some(format!("{id}.pgn").as_str()));
        if id.starts_with("gygax") {
            // 48 plies do not fit one line: the score wraps; the levels are side by side
            // in the compact layout, under the players.
            let score = body.split("\nMoves:\n").nth(1).unwrap();
            assert!(score.lines().take_while(|l| !l.is_empty()).count() >= 3, "{body}");
            let heading = body.lines().find(|l| l.contains("Air (3)")).expect("a board");
            assert!(heading.contains("Land (2)") && heading.contains("Subterranean (1)"), "{body}");
            assert!(body.find(heading).unwrap() < body.find("Last move:").unwrap(), "{body}");
            let words = body.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(words.contains("pipe this message into `ravenpost mail import -`"), "{body}");
        }
    }
}

// ----------------------------------------------------------- standard input, declines

/// A player of the mail tests: an archive of their own and a home with their identity.
struct Player {
    home: PathBuf,
    archive: PathBuf,
}

impl Player {
    fn new(root: &Path, who: &str, name: &str, email: &str) -> Player {
        let home = identity(&root.join(format!("home-{who}")), name, email);
        let archive = root.join(format!("archive-{who}"));
        ok(root, &home, &["init", archive.to_str().unwrap(), "--layout", "flat"]);
        Player { home, archive }
    }

    fn ok(&self, args: &[&str]) -> String {
        ok(&self.archive, &self.home, args)
    }

    fn pipe(&self, args: &[&str], input: &[u8]) -> Output {
        piped(&self.archive, &self.home, args, input)
    }
}

/// A mail client pipes a message into `ravenpost mail import -`: read from a real pipe
/// and committed. `validate -`, `fmt -` and `show -` read standard input too.
#[test]
fn mail_import_reads_a_message_piped_on_standard_input() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo", "bo@example.net");
    let tags = ["--white-email", "ann@example.org", "--black-email", "bo@example.net"];
    ann.ok(&[&["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "ab"][..], &tags[..]].concat());
    ann.ok(&["move", "ab", "2e3"]);
    let message = ravenpost_at(&ann.archive, &ann.home, T0).args(["mail", "export", "ab"]).output().unwrap();
    assert!(message.status.success(), "{}", text(&message));
    let o = bo.pipe(&["mail", "import", "-"], &message.stdout);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("<stdin> <ab.1@example.org>: game ab: imported"),
        "{}",
        text(&o)
    );
    let file = git(&bo.archive, &bo.home, &["show", "HEAD:games/gygax/ab.pgn"]);
    assert!(file.contains("1. 2e3"), "{file}");
    // The same message again: nothing new, from the pipe as well.
    let again = bo.pipe(&["mail", "import", "-"], &message.stdout);
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing new"), "{}", text(&again));

    let game = file.as_bytes();
    let v = bo.pipe(&["validate", "-"], game);
    assert_eq!(v.status.code(), Some(0), "{}", text(&v));
    assert_eq!(String::from_utf8_lossy(&v.stdout), "1 file, 1 game: 1 valid, 0 problems\n");
    let bad = bo.pipe(&["validate", "-"], b"[Variant \"gygax\"]\n\n1. 2e6 *\n");
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.starts_with("ravenpost: <stdin>:3:4: illegal move `2e6`"), "{err}");
    assert!(err.contains("3 | 1. 2e6 *"), "the line quoted from standard input: {err}");
    let f = bo.pipe(&["fmt", "-"], b"[Variant \"Dragonchess\"]\n\n1.W2e2-2e3   Sa3b6 *\n");
    assert!(f.status.success(), "{}", text(&f));
    assert!(String::from_utf8_lossy(&f.stdout).ends_with("\n1. 2e3 Sa3b6 *\n"), "{}", text(&f));
    let s = bo.pipe(&["show", "-", "--json"], game);
    let shown: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    assert_eq!(shown["last_move"], "2e3");
    assert_eq!(shown["ply"], 1);
}

/// Regression (issue 19): after `draw decline`, `mail export` reused the opponent's
/// Message-ID and subject and never said the draw was declined. Now the message has an
/// id of its own, in reply to the offer's, a subject and body that say so, and the
/// opponent's import takes it.
#[test]
fn draw_decline_export_has_its_own_message_id_and_says_so() {
    let t = tempfile::tempdir().unwrap();
    let ann = Player::new(t.path(), "ann", "Ann", "ann@example.org");
    let bo = Player::new(t.path(), "bo", "Bo", "bo@example.net");
    let tags = ["--white-email", "ann@example.org", "--black-email", "bo@example.net"];
    ann.ok(&[&["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "dd"][..], &tags[..]].concat());
    ann.ok(&["draw", "offer", "dd"]);
    ann.ok(&["move", "dd", "2e3"]);
    let offer = ravenpost_at(&ann.archive, &ann.home, T0).args(["mail", "export", "dd"]).output().unwrap();
    let o = bo.pipe(&["mail", "import", "-"], &offer.stdout);
    assert!(o.status.success(), "{}", text(&o));
    assert!(bo.ok(&["status"]).contains("draw offered by Ann (Gold)"));
    bo.ok(&["draw", "decline", "dd"]);
    let decline = ravenpost_at(&bo.archive, &bo.home, T0).args(["mail", "export", "dd"]).output().unwrap();
    assert!(decline.status.success(), "{}", text(&decline));
    let (a, d) = (
        MessageParser::default().parse(&offer.stdout).unwrap(),
        MessageParser::default().parse(&decline.stdout).unwrap(),
    );
    assert_eq!(a.message_id(), Some("dd.1@example.org"));
    let id = d.message_id().unwrap();
    assert_ne!(id, "dd.1@example.org", "a message id of its own");
    let commit = git(&bo.archive, &bo.home, &["rev-parse", "--short=12", "HEAD"]);
    assert_eq!(id, format!("dd.1.{}@example.net", commit.trim()));
    let in_reply_to = match d.in_reply_to() {
        mail_parser::HeaderValue::Text(t) => t.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(in_reply_to, "dd.1@example.org");
    let subject = d.subject().unwrap();
    assert_ne!(Some(subject), a.subject());
    assert_eq!(subject, "[ravenpost] dd: Bo (Scarlet) declines the draw after 1. 2e3");
    let body = d.body_text(0).unwrap();
    assert!(body.contains("Then: Bo (Scarlet) declines the draw."), "{body}");
    assert!(!body.contains("offers a draw"), "{body}");
    // Ann's import takes the decline: the offer is gone on her side too.
    let o = ann.pipe(&["mail", "import", "-"], &decline.stdout);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!ann.ok(&["status"]).contains("draw offered"), "{}", ann.ok(&["status"]));
}

// ------------------------------------------------------------------- completions, man

/// `ravenpost completions bash` is loaded by bash and completes subcommands; zsh and
/// fish load theirs. (Game ids and variant names: tests/it/completion.rs.)
#[test]
fn shell_completions_load_and_complete_subcommands() {
    let (t, dir, home) = archive();
    require("bash", &["--version"], "bash");
    let bash = t.path().join("ravenpost.bash");
    let script = ok(&dir, &home, &["completions", "bash"]);
    // The script `COMPLETE=bash ravenpost` prints (clap's dynamic completion).
    assert_eq!(script, ok_env(&dir, &home, &[("COMPLETE", "bash")], &[]));
    std::fs::write(&bash, &script).unwrap();
    let complete = |words: &str, cword: usize| {
        format!(
            "COMP_WORDS=({words})\nCOMP_CWORD={cword}\nCOMPREPLY=()\n\
             _clap_complete_ravenpost ravenpost \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n"
        )
    };
    let text = format!(
        "source {}\ncomplete -p ravenpost\n{}printf '%s\\n' \"${{COMPREPLY[@]}}\"\n{}printf 'mail:%s\\n' \"${{COMPREPLY[@]}}\"\n",
        bash.display(),
        complete("ravenpost mo", 1),
        complete("ravenpost mail im", 2),
    );
    let mut cmd = Command::new("bash");
    common::isolate(&mut cmd, &home);
    let o = cmd.arg("-c").arg(&text).current_dir(&dir).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}{}", out, String::from_utf8_lossy(&o.stderr));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("complete ") && lines[0].ends_with(" ravenpost"), "{out}");
    assert!(lines[0].contains("-F _clap_complete_ravenpost"), "{out}");
    let mut words: Vec<&str> = lines[1..].iter().filter(|l| !l.starts_with("mail:")).copied().collect();
    words.sort();
    assert_eq!(words, ["move", "moves"], "{out}");
    assert!(lines.contains(&"mail:import"), "{out}");

    require("zsh", &["--version"], "zsh (.ci/test-deps installs it)");
    let zsh_dir = t.path().join("zsh");
    std::fs::create_dir_all(&zsh_dir).unwrap();
    let zsh = ok(&dir, &home, &["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef ravenpost"), "{}", &zsh[..80.min(zsh.len())]);
    std::fs::write(zsh_dir.join("ravenpost.zsh"), &zsh).unwrap();
    let o = Command::new("zsh")
        .args(["-f", "-c"])
        .arg(format!(
            "autoload -Uz compinit && compinit -u -d {0}/zcompdump && source {0}/ravenpost.zsh && print -r -- ${{_comps[ravenpost]}}",
            zsh_dir.display()
        ))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "_clap_dynamic_completer_ravenpost\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    require("fish", &["--version"], "fish (.ci/test-deps installs it)");
    let fish = t.path().join("ravenpost.fish");
    std::fs::write(&fish, ok(&dir, &home, &["completions", "fish"])).unwrap();
    let mut cmd = Command::new("fish");
    common::isolate(&mut cmd, &home);
    let o = cmd
        .arg("--no-config")
        .arg("-c")
        .arg(format!("source {}; complete --do-complete 'ravenpost mo'", fish.display()))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let mut words: Vec<&str> = out.lines().map(|l| l.split('\t').next().unwrap()).collect();
    words.sort();
    assert_eq!(words, ["move", "moves"], "{out}");
}

/// `ravenpost man` renders with `man -l`; `--out DIR` writes a page per command.
#[test]
fn the_manual_pages_render_with_man() {
    require("man", &["--version"], "man-db and groff-base (.ci/test-deps installs them)");
    let (t, dir, home) = archive();
    let page = t.path().join("ravenpost.1");
    std::fs::write(&page, ok(&dir, &home, &["man"])).unwrap();
    let render_at = |page: &Path, width: &str| {
        let o = Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(page)
            .env("MANWIDTH", width)
            // The pages are UTF-8 (`…`): groff's ASCII device would warn about them.
            .env("LC_ALL", "C.UTF-8")
            .env("HOME", &home)
            .output()
            .unwrap();
        assert!(o.status.success(), "man -l {}: {}", page.display(), String::from_utf8_lossy(&o.stderr));
        assert!(o.stderr.is_empty(), "man -l {}: {}", page.display(), String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let render = |page: &Path| render_at(page, "80");
    let shown = render(&page);
    for want in ["NAME", "ravenpost - Play, archive, replay", "SYNOPSIS", "SUBCOMMANDS", "ravenpost-move(1)"]
    {
        assert!(shown.contains(want), "{want}: {shown}");
    }
    let pages = t.path().join("man");
    let out = ok(&dir, &home, &["man", "--out", pages.to_str().unwrap()]);
    let mut names: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(out, format!("Wrote {} manual pages into {}\n", names.len(), pages.display()));
    for name in [
        "ravenpost.1",
        "ravenpost-move.1",
        "ravenpost-mail.1",
        "ravenpost-mail-import.1",
        "ravenpost-completions.1",
    ] {
        assert!(names.iter().any(|n| n == name), "{name}: {names:?}");
    }
    let import = render(&pages.join("ravenpost-mail-import.1"));
    assert!(import.contains("ravenpost-mail-import"), "{import}");
    assert!(import.contains("--json"), "{import}");

    // The global options once, in ravenpost(1); NOTATION there and in ravenpost-move(1);
    // EXAMPLES in the pages of the everyday commands.
    // A section of a page rendered wide (its short lines unwrapped): up to the next
    // heading (a line that starts in the first column).
    let section = |page: &str, name: &str| -> String {
        let mut lines = page.lines().skip_while(|l| *l != name).skip(1);
        let body: Vec<&str> = lines.by_ref().take_while(|l| l.is_empty() || l.starts_with(' ')).collect();
        assert!(!body.is_empty(), "no {name}: {page}");
        body.join("\n")
    };
    let render = |page: &Path| render_at(page, "200");
    let main = render(&pages.join("ravenpost.1"));
    let global = section(&main, "GLOBAL OPTIONS");
    for option in ["--archive <DIR>", "--author <NAME <EMAIL>>", "--signing-key <KEY>", "--break-lock"] {
        assert!(global.contains(option), "{option}: {global}");
    }
    let notation = section(&main, "NOTATION");
    for said in ["Sa3b6", "The Sylph of file a (on 3a7)", "Long form: S3a7-3b6", "R:2c6", "2c8=H", "W_c3"] {
        assert!(notation.contains(said), "{said}: {notation}");
    }
    assert!(section(&main, "EXAMPLES").contains("ravenpost move ann-bo Sa3b6 --as Bo"), "{main}");
    let moves = render(&pages.join("ravenpost-move.1"));
    assert!(section(&moves, "NOTATION").contains("Long form: S3a7-3b6"), "{moves}");
    for name in ["move", "new", "show", "moves", "sync", "mail", "status", "verify"] {
        let page = render(&pages.join(format!("ravenpost-{name}.1")));
        let examples = section(&page, "EXAMPLES");
        assert!(examples.contains(&format!("ravenpost {name}")), "{name}: {examples}");
        // A subcommand's page names the global options and sends to ravenpost(1).
        let global = section(&page, "GLOBAL OPTIONS");
        assert!(
            global.contains("--archive, --author, --signing-key, --break-lock: see ravenpost(1)"),
            "{name}: {global}"
        );
        assert!(!page.contains("--archive <DIR>") && !page.contains("--break-lock\n"), "{name}: {page}");
    }
}

/// Every subcommand's `--help` named the four global options in full. Now `ravenpost
/// --help` lists them under "Global options" and a subcommand's help names them in one
/// line; after a subcommand they are still accepted.
#[test]
fn the_global_options_are_shown_once_and_still_accepted_after_a_subcommand() {
    let (t, dir, home) = archive();
    let top = ok(&dir, &home, &["--help"]);
    let global = &top[top.find("\nGlobal options:\n").unwrap_or_else(|| panic!("{top}"))..];
    for option in ["--archive <DIR>", "--author <NAME <EMAIL>>", "--signing-key <KEY>", "--break-lock"] {
        assert!(global.contains(option), "{option}: {top}");
    }
    let note = "Global options (--archive, --author, --signing-key, --break-lock): see `ravenpost --help`";
    for args in [
        &["show", "--help"][..],
        &["show", "-h"],
        &["mail", "send", "--help"],
        &["replay", "--help"],
        &["help", "move"],
    ] {
        let help = ok(&dir, &home, args);
        // Help wraps at 80 columns: the note may be broken over two lines.
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.ends_with(note), "{args:?}: {help}");
        for option in ["--archive", "--author", "--signing-key", "--break-lock"] {
            assert_eq!(help.matches(option).count(), 1, "{args:?}: {option} only in the note: {help}");
        }
    }
    // Before and after the subcommand, at any depth.
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "ann-bo"]);
    let archive = dir.to_str().unwrap();
    let shown = ok(t.path(), &home, &["show", "ann-bo", "--archive", archive]);
    assert_eq!(shown, ok(t.path(), &home, &["--archive", archive, "show", "ann-bo"]));
    assert!(shown.contains("Ann (Gold) to move"), "{shown}");
    let played = ok(
        t.path(),
        &home,
        &["move", "ann-bo", "2e3", "--archive", archive, "--author", "Ann <ann@example.org>"],
    );
    assert!(played.contains("2e3"), "{played}");
    let status =
        ok(t.path(), &home, &["conditional", "show", "ann-bo", "--archive", archive, "--break-lock"]);
    assert!(!status.is_empty());
}

// ------------------------------------------------------------------------ JSON, colour

/// Checks `value` against the schema `docs/schemas/NAME.schema.json` with Python's
/// jsonschema (an independent validator, which `.ci/test-deps` installs).
fn check_schema(name: &str, value: &serde_json::Value) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/schemas/{name}.schema.json"));
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import json, sys, jsonschema\n\
             schema = json.load(open(sys.argv[1]))\n\
             jsonschema.Draft202012Validator.check_schema(schema)\n\
             jsonschema.Draft202012Validator(schema).validate(json.load(sys.stdin))\n\
             print('valid')",
        ])
        .arg(&schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("this test needs python3 with jsonschema ({e}): .ci/test-deps installs it")
        });
    child.stdin.take().unwrap().write_all(value.to_string().as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "valid\n",
        "{name}: {}\n{value:#}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn json(dir: &Path, home: &Path, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(dir, home, args)).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// `perft --json`, `moves --json`, `analyse --json`, `log --json` (one game and the whole archive) and
/// `sync --json` match their schemas; the counts are perft's own, the hashes git's.
#[test]
fn json_outputs_match_their_schemas() {
    let (t, dir, home) = archive();
    // Perft: the plain count and the divide agree; 90 moves from the Gygax start (the
    // library's documented figure).
    let p = json(&dir, &home, &["perft", "gygax", "2", "--json"]);
    check_schema("perft", &p);
    let plain: u64 = ok(&dir, &home, &["perft", "gygax", "2"]).trim().parse().unwrap();
    assert_eq!(p["nodes"], plain);
    let d = json(&dir, &home, &["perft", "gygax", "1", "--divide", "--json"]);
    check_schema("perft", &d);
    assert_eq!(d["divide"].as_array().unwrap().len(), 90);
    assert_eq!(d["nodes"], 90);
    assert_eq!(d["depth"], 1);
    assert!(d["divide"].as_array().unwrap().iter().all(|m| m["nodes"] == 1));

    let m = json(&dir, &home, &["moves", "gygax", "--json"]);
    check_schema("moves", &m);
    let a = json(&dir, &home, &["analyse", "gygax", "--depth", "2", "--multipv", "2", "--json"]);
    check_schema("analyse", &a);
    assert_eq!((a["depth"].as_u64(), a["lines"].as_array().map(Vec::len)), (Some(2), Some(2)));
    assert_eq!(m["moves"].as_array().unwrap().len(), 90);

    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3"]);
    ok(&dir, &home, &["new", "grand", "--white", "Cy", "--black", "Di", "--id", "h"]);
    let gm = json(&dir, &home, &["moves", "g", "--json"]);
    check_schema("moves", &gm);
    assert_eq!((gm["ply"].as_u64(), gm["side_to_move"].as_str()), (Some(1), Some("Scarlet")));

    let log = json(&dir, &home, &["log", "g", "--json"]);
    check_schema("log", &log);
    let from_git = git(&dir, &home, &["log", "--reverse", "--format=%H", "--", "games/gygax/g.pgn"]);
    let hashes: Vec<&str> = log.as_array().unwrap().iter().map(|e| e["hash"].as_str().unwrap()).collect();
    assert_eq!(hashes, from_git.lines().collect::<Vec<_>>());
    for e in log.as_array().unwrap() {
        assert!(e["hash"].as_str().unwrap().starts_with(e["commit"].as_str().unwrap()));
    }
    // The whole archive: every game's commits, in time order, each naming its game.
    let all = json(&dir, &home, &["log", "--json"]);
    check_schema("log", &all);
    // (The commits share one time here: at equal times, games come in path order.)
    let games: Vec<&str> = all.as_array().unwrap().iter().map(|e| e["game"].as_str().unwrap()).collect();
    assert_eq!(games, ["grand/h", "gygax/g", "gygax/g"]);
    let from_git = git(&dir, &home, &["log", "--format=%H", "--", "games"]);
    let mut all_hashes: Vec<&str> =
        all.as_array().unwrap().iter().map(|e| e["hash"].as_str().unwrap()).collect();
    let mut git_hashes: Vec<&str> = from_git.lines().collect();
    all_hashes.sort();
    git_hashes.sort();
    assert_eq!(all_hashes, git_hashes);
    let text_log = ok(&dir, &home, &["log"]);
    assert_eq!(text_log.lines().count(), 3, "{text_log}");
    assert!(text_log.lines().any(|l| l.contains("grand/h")), "{text_log}");

    // sync --json: pushes to a bare repository.
    let bare = t.path().join("server.git");
    git(t.path(), &home, &["init", "--bare", "-b", "main", bare.to_str().unwrap()]);
    git(&dir, &home, &["remote", "add", "origin", bare.to_str().unwrap()]);
    let s = json(&dir, &home, &["sync", "--json"]);
    check_schema("sync", &s);
    assert_eq!(s["outcome"], "pushed-archive");
    let tip = git(&bare, &home, &["rev-parse", "--short=12", "main"]);
    assert_eq!(s["tip"].as_str(), Some(tip.trim()));
    let s = json(&dir, &home, &["sync", "--json"]);
    check_schema("sync", &s);
    assert_eq!(s["outcome"], "up-to-date");
}

/// `--color always|never|auto` on the commands that colour: `validate` (and `fmt`)
/// diagnostics too; `auto` honours NO_COLOR and a pipe.
#[test]
fn color_is_chosen_on_every_command_that_colours() {
    let (t, dir, home) = archive();
    let bad = t.path().join("bad.pgn");
    std::fs::write(&bad, "[Variant \"gygax\"]\n\n1. 2e6 *\n").unwrap();
    let bad = bad.to_str().unwrap();
    let esc = |o: &Output| o.stderr.contains(&0x1b) || o.stdout.contains(&0x1b);
    for cmd in [&["validate", bad][..], &["fmt", bad][..]] {
        let always = run(&dir, &home, &[cmd, &["--color", "always"]].concat());
        assert_eq!(always.status.code(), Some(1), "{}", text(&always));
        assert!(esc(&always), "{cmd:?} --color always: {}", text(&always));
        let never = run(&dir, &home, &[cmd, &["--color", "never"]].concat());
        assert!(!esc(&never), "{cmd:?} --color never");
        // auto: standard error is a pipe here, and NO_COLOR is set.
        let auto = run(&dir, &home, cmd);
        assert!(!esc(&auto), "{cmd:?} --color auto to a pipe");
        assert_eq!(String::from_utf8_lossy(&never.stderr), String::from_utf8_lossy(&auto.stderr));
    }
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    for cmd in [&["show", "g"][..], &["replay", "g", "--ply", "0"][..]] {
        let always = run(&dir, &home, &[cmd, &["--color", "always"]].concat());
        assert!(esc(&always), "{cmd:?}");
        assert!(!esc(&run(&dir, &home, &[cmd, &["--color", "never"]].concat())), "{cmd:?}");
        assert!(!esc(&run(&dir, &home, cmd)), "{cmd:?} auto");
    }
}

// ------------------------------------------------------------------------ error style

/// A sample of failing commands, usage errors (clap) included: each one's standard error
/// starts with `ravenpost: `, says it once on a line, and the exit code is 2 for bad input
/// and 1 for a refusal.
#[test]
fn errors_have_one_shape_across_the_binary() {
    let (t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let bad = t.path().join("bad.pgn");
    std::fs::write(&bad, "[Variant \"gygax\"]\n\n1. 2e6 *\n").unwrap();
    let bad = bad.to_str().unwrap();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["frobnicate"], 2, "ravenpost: unrecognized subcommand 'frobnicate'"),
        (&["move", "g"], 2, "ravenpost: the following required arguments were not provided"),
        (&["show", "g", "--layout", "diagonal"], 2, "ravenpost: invalid value 'diagonal' for '--layout"),
        (&["perft", "nosuch", "1"], 2, "ravenpost: "),
        (&["validate", "/nonexistent/x.pgn"], 2, "ravenpost: /nonexistent/x.pgn: no such file"),
        (&["show", "/nonexistent/x.pgn"], 2, "ravenpost: /nonexistent/x.pgn: no such file"),
        (&["move", "g", "2e6"], 1, "ravenpost: "),
        (&["move", "g", "2e3", "--as", "Bo"], 1, "ravenpost: not Bo's turn"),
        (&["log", "nosuch"], 2, "ravenpost: "),
        (&["validate", bad], 1, &format!("ravenpost: {bad}:3:4: illegal move `2e6`")),
        (&["mail", "import", "/nonexistent/m.eml"], 2, "ravenpost: /nonexistent/m.eml: no such file"),
    ];
    for (args, code, first) in cases {
        let o = run(&dir, &home, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(*code), "{args:?}: {}", text(&o));
        assert!(err.starts_with(first), "{args:?}: expected {first:?} first: {err}");
        for line in err.lines() {
            assert!(line.matches("ravenpost: ").count() <= 1, "{args:?}: said twice: {line}");
            assert!(!line.starts_with("error:"), "{args:?}: clap's own prefix: {err}");
        }
    }
    // Help and version are no errors: standard output, exit 0.
    for args in [&["--help"][..], &["--version"][..], &["move", "--help"][..]] {
        let o = run(&dir, &home, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stderr.is_empty() && !o.stdout.is_empty(), "{args:?}: {}", text(&o));
    }
}

// ------------------------------------------------- everyday messages at 80 columns

/// Runs `ravenpost args`, which must fail with exit code 1; standard error.
fn refused(dir: &Path, home: &Path, args: &[&str]) -> String {
    let o = run(dir, home, args);
    assert_eq!(o.status.code(), Some(1), "ravenpost {args:?}: {}", text(&o));
    assert!(o.stdout.is_empty(), "{}", text(&o));
    String::from_utf8(o.stderr).unwrap()
}

/// Regression (s5 NeoMutt play-through item 15): `move ann-bo Sa3b5` said `no Sylph of
/// Scarlet can go to 3b5; legal: Sa3b6`: the `a` was read as the origin file without a
/// word, and the list read as "the only legal Sylph move"; a long list wrapped mid-word.
/// Now the message says what it read (the a-file), the list is wrapped within 80
/// columns, and it says how to see every legal move (whose list it checks against).
#[test]
fn move_sa3b5_read_the_a_as_the_file_without_saying_so() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3"]);
    // The Sylph's one move drawn on the board (issue 34): the Sylph on 3a7 `[s]`, the
    // square it reaches `+`.
    let board = ok(&dir, &home, &["moves", "g", "--from", "3a7", "--board"]);
    // The board comes under the list: its 10 lines from the level names.
    let board: String =
        board.lines().skip_while(|l| !l.contains("Air (3)")).take(10).map(|l| format!("{l}\n")).collect();
    assert!(board.contains("7[s]. s") && board.contains("6 . + . :"), "{board}");
    assert_eq!(
        refused(&dir, &home, &["move", "g", "Sa3b5", "--as", "Bo"]),
        format!(
            "ravenpost: illegal move `Sa3b5`: no Sylph of Scarlet on the a-file can go to 3b5\n\
             legal: Sa3b6\n{board}\
             every legal move: `ravenpost moves g`\n"
        )
    );
    // No Warrior reaches 2e4 at once: every Warrior move is listed, within 80 columns.
    let err = refused(&dir, &home, &["move", "g", "2e4", "--as", "Bo"]);
    assert!(
        err.starts_with("ravenpost: illegal move `2e4`: no Warrior of Scarlet can go to 2e4\nlegal: "),
        "{err}"
    );
    assert!(err.ends_with("\nevery legal move: `ravenpost moves g`\n"), "{err}");
    assert!(widest(&err) <= 80, "{err}");
    let listed: Vec<&str> = err
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("every legal move"))
        .flat_map(|l| l.trim_start_matches("legal:").split_whitespace())
        .collect();
    let warriors: Vec<String> =
        legal(&dir, &home, "g").into_iter().filter(|m| m.starts_with(|c: char| c.is_ascii_digit())).collect();
    assert!(warriors.len() > 8, "{warriors:?}");
    let mut listed: Vec<String> = listed.into_iter().map(str::to_string).collect();
    let mut warriors = warriors;
    listed.sort();
    warriors.sort();
    assert_eq!(listed, warriors);
}

/// Regression (s5 NeoMutt play-through item 7): `ravenpost move git1 2c3 && ravenpost draw
/// offer git1 --as Ann` said only `not Ann's turn`: an offer is made before one's move, in
/// the same turn, and goes with it. Now the refusal says so with the two commands in
/// their order, which work.
#[test]
fn draw_offer_after_ones_own_move_said_only_not_your_turn() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    let err = refused(&dir, &home, &["draw", "offer", "g", "--as", "Ann"]);
    assert_eq!(
        err,
        "ravenpost: not Ann's turn: Bo (Scarlet) is to move\n\
         A draw offer goes with a move: make it in your turn, before you move:\n    \
         ravenpost draw offer g\n    ravenpost move g MOVE\n"
    );
    assert!(widest(&err) <= 80, "{err}");
    // The order it gives works, for Bo now.
    assert_eq!(
        ok(&dir, &home, &["draw", "offer", "g", "--as", "Bo"]),
        "Bo (Scarlet) offers a draw\nIt goes with your next move: ravenpost move g MOVE\n"
    );
    ok(&dir, &home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    let log = ok(&dir, &home, &["log", "g"]);
    assert!(log.contains("Bo (Scarlet) offers a draw\n") && log.contains("ply 2 Sa3b6\n"), "{log}");
    // Bo, having moved, is told the same.
    let err = refused(&dir, &home, &["draw", "offer", "g", "--as", "Bo"]);
    assert!(err.contains("A draw offer goes with a move"), "{err}");
}

/// Regression (a new user's trial): `draw offer` at ply 0 said only `Ann (Gold) offers a
/// draw`, as if the offer stood; it goes with the offerer's next move, which the
/// opponent sees it with. Now the command says so, with the command to make it.
#[test]
fn draw_offer_at_ply_0_did_not_say_it_goes_with_the_next_move() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let said = ok(&dir, &home, &["draw", "offer", "g", "--as", "Ann"]);
    assert_eq!(said, "Ann (Gold) offers a draw\nIt goes with your next move: ravenpost move g MOVE\n");
    // What it says works: the move carries the offer, and Bo can accept it.
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&dir, &home, &["draw", "accept", "g", "--as", "Bo"]);
    let status = ok(&dir, &home, &["status", "--json"]);
    assert!(status.contains("\"result\": \"1/2-1/2\""), "{status}");
}

/// Regression (s5 NeoMutt play-through item 14): `log` printed `Scarlet declines the draw
/// (*)`, the `(*)` (the result, unchanged) unexplained. Now a draw action's line says the
/// result only when it changed, in words; `log --json` keeps its `what` as it was.
#[test]
fn log_printed_an_unexplained_result_after_each_draw_action() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    ok(&dir, &home, &["draw", "offer", "g", "--as", "Ann"]);
    ok(&dir, &home, &["move", "g", "2e3", "--as", "Ann"]);
    ok(&dir, &home, &["draw", "decline", "g", "--as", "Bo"]);
    ok(&dir, &home, &["resign", "g", "--as", "Bo"]);
    let log = ok(&dir, &home, &["log", "g"]);
    // `commit  time  author (16 columns) what`.
    let what: Vec<&str> = log.lines().map(|l| &l.splitn(3, "  ").nth(2).unwrap()[17..]).collect();
    assert_eq!(
        what,
        [
            "created",
            "Ann (Gold) offers a draw",
            "ply 1 2e3",
            "Bo (Scarlet) declines the draw",
            "Bo (Scarlet) resigns, result 1-0"
        ],
        "{log}"
    );
    assert!(!log.contains("(*)"), "{log}");
    let json: serde_json::Value = serde_json::from_str(&ok(&dir, &home, &["log", "g", "--json"])).unwrap();
    let whats: Vec<&str> = json.as_array().unwrap().iter().map(|e| e["what"].as_str().unwrap()).collect();
    assert_eq!(whats[3], "Scarlet declines the draw (*)");
    assert_eq!(whats[4], "Scarlet resigns (1-0)");
}

/// Regression (s5 NeoMutt report, N9): one-line errors wider than 80 columns (here "no
/// archive here", run from a home with no archive) were broken mid-word by the terminal:
/// `(/work/…/bo/.loca` / `l/share/…`, `` `ravenpost new` `` / `, or …`. Now, in a real
/// 80-column pseudo-terminal, ravenpost fills them at spaces (no line over 80, no
/// backticked command split); piped, the message stays one line.
#[test]
fn long_errors_broke_mid_word_in_an_80_column_terminal() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Bo Example", "bo@example.net");
    let piped = run(&home, &home, &["log"]);
    assert_eq!(piped.status.code(), Some(2), "{}", text(&piped));
    let err = String::from_utf8(piped.stderr).unwrap();
    assert!(err.contains("does not exist yet"), "{err}");
    assert_eq!(err.lines().count(), 1, "piped: one line\n{err}");
    assert!(err.trim_end().chars().count() > 80, "the message to fill is wider than 80: {err}");
    let shown = in_terminal(&home, &home, 80, r#""$RAVENPOST" log; test $? = 2"#);
    let lines: Vec<&str> = shown.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines.len() >= 2, "{shown}");
    for l in &lines {
        assert!(l.chars().count() <= 80, "{l:?}\n{shown}");
        assert_eq!(l.matches('`').count() % 2, 0, "a command split: {l:?}\n{shown}");
    }
    let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(words(&shown), words(&err), "the same words, none broken");
    assert!(lines[1..].iter().all(|l| l.starts_with("  ")), "continuation lines indented 2: {shown}");
}

/// Every command's `--help`, piped (no terminal, no `$COLUMNS`), was printed unwrapped: 31
/// lines of `ravenpost --help` were wider than 80 columns and an 80-column terminal broke
/// them mid-word. Piped, help now wraps at 80 columns; with `$COLUMNS`, at that width.
#[test]
fn help_was_wider_than_80_columns_and_broke_mid_word() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut paths: Vec<Vec<String>> = vec![Vec::new()];
    let top = ravenpost::cli::command();
    for sc in top.get_subcommands().filter(|c| c.get_name() != "help") {
        paths.push(vec![sc.get_name().to_string()]);
        for sub in sc.get_subcommands().filter(|c| c.get_name() != "help") {
            paths.push(vec![sc.get_name().to_string(), sub.get_name().to_string()]);
        }
    }
    assert!(paths.len() > 30, "{paths:?}");
    let mut over_100_wide = 0;
    for path in &paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let help = ok_env(t.path(), &home, &[], &args);
        assert!(help.lines().count() > 3, "{args:?}: {help}");
        assert!(widest(&help) <= 80, "{args:?} is {} columns wide:\n{help}", widest(&help));
        let wide = ok_env(t.path(), &home, &[("COLUMNS", "100")], &args);
        assert!(widest(&wide) <= 100, "{args:?} at COLUMNS=100:\n{wide}");
        if widest(&wide) > 80 {
            over_100_wide += 1;
        }
    }
    // $COLUMNS is taken: at 100 columns some help uses the room.
    assert!(over_100_wide > 10, "{over_100_wide} of {} commands used 100 columns", paths.len());
}

/// Regression (a tester's report): `move --comment` took terminal escapes, and `replay`
/// printed a file's comment raw, so a comment could clear the opponent's screen, set
/// its title or write its clipboard. `move` refuses the comment (nothing committed) and
/// `replay` shows any such character as an escape (`\u{1b}`), never obeys it.
#[test]
fn a_comment_with_terminal_escapes_reached_the_opponents_terminal() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let head = git(&dir, &home, &["rev-parse", "HEAD"]);
    let err =
        refused(&dir, &home, &["move", "g", "2e3", "--comment", "hi \u{1b}]52;c;ZWNobw==\u{7} \u{1b}[2J"]);
    assert!(err.contains("invisible character \\u{1b}"), "{err}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "the refusal shows, not obeys: {err:?}");
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), head, "nothing committed");
    // A game file written by another program, with an escape in a comment.
    let file = dir.join("other.pgn");
    std::fs::write(
        &file,
        "[Event \"?\"]\n[White \"Ann\"]\n[Black \"Bo\"]\n[Result \"*\"]\n[Variant \"gygax\"]\n\n\
         1. 2e3 {red \u{1b}[31mRED\u{1b}[0m} *\n",
    )
    .unwrap();
    let shown = ok(&dir, &home, &["replay", file.to_str().unwrap(), "--ply", "1"]);
    assert!(!shown.contains('\u{1b}'), "{shown:?}");
    assert!(shown.contains("{red \\u{1b}[31mRED\\u{1b}[0m}"), "{shown}");
}

/// Runs `ravenpost args` with `env`, killed after 60 s: `None` when it had not ended.
fn run_bounded(dir: &Path, home: &Path, env: &[(&str, &str)], args: &[&str]) -> Option<Output> {
    let mut cmd = ravenpost_at(dir, home, T0);
    cmd.env_remove("COLUMNS").args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    None
}

/// Regression (a tester's report): a settings file that never ends (`RAVENPOST_CONFIG=
/// /dev/zero`, or `ravenpost.yaml` in the working tree linked to it) was read whole:
/// `status`, `move` and a shell's completion grew to gigabytes and never answered. Both
/// are refused now (no regular file), and completion offers nothing, silently.
#[test]
fn a_settings_file_of_dev_zero_was_read_without_bound() {
    let (_t, dir, home) = archive();
    ok(&dir, &home, &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"]);
    let o =
        run_bounded(&dir, &home, &[("RAVENPOST_CONFIG", "/dev/zero")], &["status"]).expect("status ended");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not a regular file"), "{}", text(&o));
    let yaml = dir.join("ravenpost.yaml");
    assert!(yaml.exists());
    std::fs::remove_file(&yaml).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &yaml).unwrap();
    let o = run_bounded(&dir, &home, &[], &["move", "g", "2e3", "--as", "Ann"]).expect("move ended");
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("ravenpost.yaml"), "{}", text(&o));
    let o = run_bounded(
        &dir,
        &home,
        &[("COMPLETE", "bash"), ("_CLAP_COMPLETE_INDEX", "2")],
        &["--", "ravenpost", "show", ""],
    )
    .expect("completion ended");
    assert!(o.status.success() && o.stderr.is_empty(), "{}", text(&o));
}

/// Regression (checked after a tester's report on comments): `new --event` took a
/// terminal escape (`$'E\e]0;x\a'`, which sets the window title) into the Event tag,
/// shown by every display of the game. It is refused, nothing committed.
#[test]
fn new_took_a_terminal_escape_in_the_event() {
    let (_t, dir, home) = archive();
    let head = git(&dir, &home, &["rev-parse", "HEAD"]);
    let args =
        ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--event", "E\u{1b}]0;x\u{7}"];
    let o = run(&dir, &home, &args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("invisible character \\u{1b}") && !err.contains('\u{1b}'), "{err:?}");
    assert_eq!(git(&dir, &home, &["rev-parse", "HEAD"]), head, "nothing committed");
    ok(
        &dir,
        &home,
        &["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--event", "Club cup 2027"],
    );
}
