//! Conditional moves (issue 15): prepared replies as trees, kept in the owner's clone
//! only and played where the opponent's move arrives: through a bare repository with the
//! pre-receive hook (`sync`), by email through a real SMTP server on loopback (`mail
//! import` answers, `mail send` sends), signed where the game lists keys, and after a
//! move in the same archive. Deterministic: fixed times, no system git config.

use crate::common;

use std::path::{Path, PathBuf};

use common::smtp::Smtp;
use common::tools::keygen;
use common::{T0, fails, git, git_command, identity, ok, ok_at, text};

/// A bare repository with the hook, and Ann's and Bo's clones (one home, an identity per
/// clone). Ann starts the archive and the Fantasy Grand Chess game `id` (`new_args`
/// added), syncs; Bo syncs.
pub(crate) struct Setup {
    _t: tempfile::TempDir,
    pub(crate) home: PathBuf,
    pub(crate) server: PathBuf,
    pub(crate) ann: PathBuf,
    pub(crate) bo: PathBuf,
}

impl Setup {
    pub(crate) fn new(id: &str, new_args: &[&str]) -> Setup {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().to_path_buf();
        let home = identity(&root.join("home"), "Referee", "referee@example.org");
        let server = root.join("server.git");
        git(&root, &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
        let out = ok(&root, &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
        assert!(out.contains("pre-receive"), "{out}");
        let mut clones = Vec::new();
        for name in ["Ann", "Bo"] {
            let dir = root.join(name.to_lowercase());
            git(&root, &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
            git(&dir, &home, &["config", "user.name", name]);
            git(&dir, &home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
            clones.push(dir);
        }
        let bo = clones.pop().unwrap();
        let ann = clones.pop().unwrap();
        ok(&ann, &home, &["init"]);
        let mut args = vec!["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", id];
        args.extend_from_slice(new_args);
        ok(&ann, &home, &args);
        assert!(ok(&ann, &home, &["sync"]).contains("Pushed"));
        assert!(ok(&bo, &home, &["sync"]).contains("Fetched"));
        Setup { _t: t, home, server, ann, bo }
    }

    fn server_tip(&self) -> String {
        git(&self.server, &self.home, &["rev-parse", "refs/heads/main"]).trim().to_string()
    }

    /// `who` moves in their clone and pushes; the hook accepts it.
    pub(crate) fn push_move(&self, dir: &Path, game: &str, mv: &str, time: i64) {
        ok_at(dir, &self.home, time, &["move", game, mv]);
        let out = ok_at(dir, &self.home, time, &["sync"]);
        assert!(out.contains("Pushed 1 commit"), "{out}");
        assert_eq!(self.server_tip(), git(dir, &self.home, &["rev-parse", "HEAD"]).trim());
    }
}

/// The server's commits since the game's creation, oldest first: `author|subject`.
pub(crate) fn server_log(s: &Setup) -> Vec<String> {
    let log = git(&s.server, &s.home, &["log", "--reverse", "--format=%an|%s", "main"]);
    log.lines().skip(2).map(str::to_string).collect()
}

/// Every byte a clone holds: each object git has (`cat-file --batch-all-objects`, so
/// packed and compressed objects are read as their contents) and every file under the
/// clone, `.git/` included.
fn everything_in(dir: &Path, home: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut cmd = git_command(dir, home);
    cmd.args(["cat-file", "--batch-all-objects", "--batch"]);
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    out.push(("objects".to_string(), o.stdout));
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

/// Asserts that no object or file of `dir` contains any of `secrets`.
pub(crate) fn holds_none(dir: &Path, home: &Path, secrets: &[&str]) {
    let all = everything_in(dir, home);
    assert!(all.len() > 10, "the scan read the clone: {} files", all.len());
    for (name, bytes) in &all {
        for s in secrets {
            assert!(
                !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
                "{name} in {} holds the tree's text {s:?}",
                dir.display()
            );
        }
    }
}

/// Whether any object or file of `dir` contains `s` (the scan finds what is there).
pub(crate) fn holds(dir: &Path, home: &Path, s: &str) -> bool {
    everything_in(dir, home).iter().any(|(_, b)| b.windows(s.len()).any(|w| w == s.as_bytes()))
}

/// Ann's tree in the game `fg` after 1. e4: eight plies deep on its main line, four lines.
const TREE: &str =
    "1... e7 (1... f7 2. g4) (1... j7 2. i4 2... i7 3. h4) 2. d4 d7 (2... a7 3. j4) 3. c4 c7 4. b4 b7 5. a4";

#[test]
fn a_tree_is_played_out_through_the_hooked_server_and_never_leaves_the_clone() {
    let s = Setup::new("fg", &[]);
    s.push_move(&s.ann, "fg", "e4", T0 + 100);
    let out = ok_at(&s.ann, &s.home, T0 + 200, &["conditional", "add", "fg", TREE]);
    assert!(out.contains("fg: 8 prepared replies for Ann (4 lines, kept in this clone only)"), "{out}");
    assert!(out.contains("  1... e7 2. d4 2... d7 3. c4 3... c7 4. b4 4... b7 5. a4\n"), "{out}");
    assert!(out.contains("  1... j7 2. i4 2... i7 3. h4\n"), "{out}");
    let shown: serde_json::Value =
        serde_json::from_str(&ok(&s.ann, &s.home, &["conditional", "show", "fg", "--json"])).unwrap();
    let movetext = shown[0]["movetext"].as_str().unwrap().to_string();
    assert_eq!(shown[0]["owner"], "Ann");
    assert_eq!(shown[0]["after_ply"], 1);
    assert_eq!(shown[0]["lines"].as_array().unwrap().len(), 4);
    assert_eq!(shown[0]["lines"][0].as_array().unwrap().len(), 8, "depth 8 on the main line");
    let file = s.ann.join(".git/ravenpost/conditional/fg.white");
    assert!(std::fs::read_to_string(&file).unwrap().contains(&movetext));
    // Only the owner's clone knows: status says so there, not in Bo's.
    assert!(ok(&s.ann, &s.home, &["status"]).contains("prepared replies (Ann)"));
    assert!(!ok(&s.bo, &s.home, &["status"]).contains("prepared"));

    // Bo follows the main line; each of Ann's syncs answers at once and pushes.
    let mut time = T0 + 1000;
    for (bo_move, ann_reply, left) in [("e7", "d4", 2), ("d7", "c4", 1), ("c7", "b4", 1)] {
        ok_at(&s.bo, &s.home, time, &["sync"]);
        s.push_move(&s.bo, "fg", bo_move, time);
        time += 100;
        let out = ok_at(&s.ann, &s.home, time, &["sync"]);
        let ply = server_log(&s).len();
        let left = if left == 1 {
            "1 prepared line left".to_string()
        } else {
            format!("{left} prepared lines left")
        };
        assert!(
            out.contains(&format!("fg: Ann's prepared reply to {bo_move}: ply {ply} {ann_reply} (commit ")),
            "{out}"
        );
        assert!(out.contains(&left), "{out}");
        assert!(out.contains("Pushed 1 commit to origin/main"), "the hook accepted the reply: {out}");
        assert_eq!(s.server_tip(), git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim());
        time += 100;
    }
    assert_eq!(
        server_log(&s),
        [
            "Ann|fg: ply 1 e4 (White plays e4)",
            "Bo|fg: ply 2 e7 (Black plays e7)",
            "Ann|fg: ply 3 d4 (White plays d4, a prepared reply)",
            "Bo|fg: ply 4 d7 (Black plays d7)",
            "Ann|fg: ply 5 c4 (White plays c4, a prepared reply)",
            "Bo|fg: ply 6 c7 (Black plays c7)",
            "Ann|fg: ply 7 b4 (White plays b4, a prepared reply)",
        ]
    );
    // Bo deviates: the rest of the tree is dropped, nothing is played.
    ok_at(&s.bo, &s.home, time, &["sync"]);
    s.push_move(&s.bo, "fg", "g7", time);
    let out = ok_at(&s.ann, &s.home, time + 100, &["sync"]);
    assert!(
        out.contains(
            "fg: Ann's conditional tree dropped: ply 8 g7 matches no prepared line (the tree expected b7)"
        ),
        "{out}"
    );
    assert!(!file.exists(), "the tree is gone");
    assert_eq!(server_log(&s).len(), 8, "no reply to the deviation");
    assert!(!ok(&s.ann, &s.home, &["status"]).contains("prepared"));

    // Bo's clone: the record notes the prepared replies; it verifies; it never held the tree.
    ok_at(&s.bo, &s.home, time + 200, &["sync"]);
    let log = ok(&s.bo, &s.home, &["log", "fg"]);
    assert_eq!(log.matches("(prepared reply)").count(), 3, "{log}");
    assert!(log.contains("ply 3 d4 (prepared reply)"), "{log}");
    assert!(ok(&s.bo, &s.home, &["verify"]).contains("0 problems"));
    let pgn = std::fs::read_to_string(s.bo.join("games/fantasy-grand/c/3/fg.pgn")).unwrap();
    assert_eq!(pgn.split_whitespace().filter(|w| *w == "prepared}").count(), 3, "{pgn}");
    let secrets = [movetext.as_str(), "1... j7 2. i4 2... i7 3. h4", "2... a7 3. j4", "AfterPly", "b7 5. a4"];
    holds_none(&s.bo, &s.home, &secrets);
    holds_none(&s.server, &s.home, &secrets);
    // The scan finds a tree where there is one: in its owner's clone.
    s.push_move(&s.ann, "fg", "h4", time + 300);
    ok(&s.ann, &s.home, &["conditional", "add", "fg", "5... h7 6. j4"]);
    assert!(holds(&s.ann, &s.home, "5... h7 6. j4"));
    assert!(!holds(&s.bo, &s.home, "5... h7 6. j4"));
}

#[test]
fn with_signed_moves_the_prepared_reply_is_signed_and_the_hook_accepts_it() {
    let t = tempfile::tempdir().unwrap();
    let (ann_key, ann_pub) = keygen(t.path(), "ann");
    let (bo_key, bo_pub) = keygen(t.path(), "bo");
    let s = Setup::new("sg", &["--white-key", &ann_pub, "--black-key", &bo_pub]);
    git(&s.ann, &s.home, &["config", "user.signingKey", &ann_key]);
    git(&s.bo, &s.home, &["config", "user.signingKey", &bo_key]);
    s.push_move(&s.ann, "sg", "e4", T0 + 100);
    ok(&s.ann, &s.home, &["conditional", "add", "sg", "1... e7 (1... d7 2. c4) 2. d4"]);
    ok_at(&s.bo, &s.home, T0 + 200, &["sync"]);
    s.push_move(&s.bo, "sg", "d7", T0 + 300);
    let out = ok_at(&s.ann, &s.home, T0 + 400, &["sync"]);
    assert!(out.contains("sg: Ann's prepared reply to d7: ply 3 c4"), "{out}");
    assert!(out.contains("Pushed 1 commit"), "the hook accepted the signed reply: {out}");
    assert_eq!(s.server_tip(), git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim());
    // git itself checks the signature, against Ann's key.
    let allowed = t.path().join("allowed_signers");
    let ann_line = std::fs::read_to_string(&ann_pub).unwrap();
    std::fs::write(&allowed, format!("ann@example.org {ann_line}")).unwrap();
    let v = git(
        &s.server,
        &s.home,
        &[
            "-c",
            &format!("gpg.ssh.allowedSignersFile={}", allowed.display()),
            "log",
            "-1",
            "--format=%G?|%an|%s",
            "main",
        ],
    );
    assert_eq!(v.trim(), "G|Ann|sg: ply 3 c4 (White plays c4, a prepared reply)");
    ok_at(&s.bo, &s.home, T0 + 500, &["sync"]);
    assert!(ok(&s.bo, &s.home, &["verify"]).contains("0 problems"));

    // While away: `sync --watch` answers as the move arrives, and stops on Ctrl-C.
    ok(&s.ann, &s.home, &["conditional", "add", "sg", "2... e7 3. d4"]);
    s.push_move(&s.bo, "sg", "e7", T0 + 600);
    let mut watch = common::ravenpost_at(&s.ann, &s.home, T0 + 700)
        .args(["sync", "--watch", "1s"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(watch.stdout.take().unwrap()));
    let first = lines.next().expect("a round's line").unwrap();
    assert!(
        first.starts_with("2025-11-29T07:18:20Z round 1: Fetched 1 commit(s) from origin/main:"),
        "{first}"
    );
    assert!(first.contains("sg: Ann's prepared reply to e7: ply 5 d4 (commit "), "{first}");
    assert!(first.ends_with("; Pushed 1 commit to origin/main"), "{first}");
    assert_eq!(s.server_tip(), git(&s.ann, &s.home, &["rev-parse", "HEAD"]).trim());
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(watch.id() as i32), nix::sys::signal::Signal::SIGINT)
        .unwrap();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = watch.wait().unwrap();
    assert!(status.success(), "a clean stop: {status:?} {rest:?}");
    assert!(rest.last().is_some_and(|l| l.starts_with("Stopped after ")), "{rest:?}");
}

#[test]
fn prepared_replies_by_email() {
    let t = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(t.path(), "maildir", None);
    let addr = smtp.addr();
    let send = ["--smtp", addr.as_str(), "--security", "none"];
    let mut players = Vec::new();
    for (who, name, email) in [("ann", "Ann", "ann@example.org"), ("bo", "Bo", "bo@example.net")] {
        let home = identity(&t.path().join(format!("home-{who}")), name, email);
        let archive = t.path().join(format!("archive-{who}"));
        ok(t.path(), &home, &["init", archive.to_str().unwrap()]);
        players.push((home, archive));
    }
    let (ann_home, ann) = &players[0];
    let (bo_home, bo) = &players[1];
    let at = |home: &Path, dir: &Path, time: i64, args: &[&str]| ok_at(dir, home, time, args);
    let mail = |home: &Path, dir: &Path, time: i64, before: usize| {
        at(home, dir, time, &[&["mail", "send", "mg"][..], &send[..]].concat());
        smtp.newest(before).to_str().unwrap().to_string()
    };
    at(
        ann_home,
        ann,
        T0,
        &["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "mg"]
            .into_iter()
            .chain(["--white-email", "ann@example.org", "--black-email", "bo@example.net"])
            .collect::<Vec<_>>(),
    );
    at(ann_home, ann, T0 + 100, &["move", "mg", "e4"]);
    let m1 = mail(ann_home, ann, T0 + 110, 0);
    at(bo_home, bo, T0 + 200, &["mail", "import", &m1]);
    at(bo_home, bo, T0 + 300, &["move", "mg", "e7"]);
    let m2 = mail(bo_home, bo, T0 + 310, 1);
    // Bo prepares, in his archive only.
    let tree = "2. d4 (2. c4 c7 3. b4 b7) 2... d7 3. g4 g7";
    let out = at(bo_home, bo, T0 + 320, &["conditional", "add", "mg", tree]);
    assert!(out.contains("mg: 4 prepared replies for Bo (2 lines"), "{out}");
    at(ann_home, ann, T0 + 400, &["mail", "import", &m2]);
    at(ann_home, ann, T0 + 500, &["move", "mg", "c4"]);
    let m3 = mail(ann_home, ann, T0 + 510, 2);
    // Bo's import answers at once; his `mail send` sends the reply.
    let out = at(bo_home, bo, T0 + 600, &["mail", "import", &m3]);
    assert!(out.contains("imported ply 3 c4 by Ann"), "{out}");
    assert!(out.contains("mg: Bo's prepared reply to c4: ply 4 c7 (commit "), "{out}");
    let m4 = mail(bo_home, bo, T0 + 610, 3);
    let out = at(ann_home, ann, T0 + 700, &["mail", "import", &m4]);
    assert!(out.contains("imported ply 4 c7 by Bo"), "{out}");
    // Only Bo's own archive says that the reply was prepared: the mail leaves the note out
    // (issue 34), so Ann is not told.
    let log = at(ann_home, ann, T0 + 700, &["log", "mg"]);
    assert!(log.contains("ply 4 c7\n") && !log.contains("prepared"), "{log}");
    let log = at(bo_home, bo, T0 + 700, &["log", "mg"]);
    assert!(log.contains("ply 4 c7 (prepared reply)"), "{log}");
    // Ann deviates: Bo's tree is dropped on import, nothing is answered.
    at(ann_home, ann, T0 + 800, &["move", "mg", "h4"]);
    let m5 = mail(ann_home, ann, T0 + 810, 4);
    let out = at(bo_home, bo, T0 + 900, &["mail", "import", &m5]);
    assert!(
        out.contains(
            "mg: Bo's conditional tree dropped: ply 5 h4 matches no prepared line (the tree expected b4)"
        ),
        "{out}"
    );
    assert_eq!(
        git(bo, bo_home, &["log", "-1", "--format=%an|%s"]).trim(),
        "Ann|mg: ply 5 h4 (from mail <mg.5@example.org>)"
    );
    // Neither Ann's archive nor any message ever held the tree.
    holds_none(ann, ann_home, &["2. d4 d7", "b4 b7", "AfterPly"]);
    for m in smtp.messages() {
        let bytes = std::fs::read_to_string(&m).unwrap();
        assert!(!bytes.contains("b4 b7") && !bytes.contains("AfterPly"), "{bytes}");
    }
}

#[test]
fn a_move_in_the_same_archive_is_answered_and_a_finished_game_drops_the_tree() {
    let (_t, dir, home) = common::archive();
    ok(&dir, &home, &["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "sa"]);
    ok(&dir, &home, &["move", "sa", "e4", "--as", "Ann"]);
    // The identity (Referee) plays no side: whose tree must be said.
    fails(
        &dir,
        &home,
        &["conditional", "add", "sa", "1... e7 2. d4"],
        2,
        "say so with `--as Ann` or `--as Bo`",
    );
    ok(&dir, &home, &["conditional", "add", "sa", "1... e7 2. d4 2... d7 3. c4", "--as", "Ann"]);
    let out = ok(&dir, &home, &["move", "sa", "e7", "--as", "Bo"]);
    assert!(out.contains("Bo (Black) plays e7 (ply 2)"), "{out}");
    assert!(out.contains("sa: Ann's prepared reply to e7: ply 3 d4"), "{out}");
    assert_eq!(
        git(&dir, &home, &["log", "-1", "--format=%an|%s"]).trim(),
        "Ann|sa: ply 3 d4 (White plays d4, a prepared reply)"
    );
    let shown = ok(&dir, &home, &["conditional", "show", "sa"]);
    assert!(shown.contains("sa: Ann's prepared replies (after ply 3): 2... d7 3. c4"), "{shown}");
    // A resignation ends the game: the tree is dropped.
    let out = ok(&dir, &home, &["resign", "sa", "--as", "Bo"]);
    assert!(out.contains("sa: Ann's conditional tree dropped: the game is over (1-0)"), "{out}");
    assert!(ok(&dir, &home, &["conditional", "show", "sa"]).contains("no prepared replies"));
    // And no tree for a finished game.
    fails(
        &dir,
        &home,
        &["conditional", "add", "sa", "2... d7 3. c4", "--as", "Ann"],
        1,
        "the game is over (1-0)",
    );
    assert!(ok(&dir, &home, &["verify"]).contains("0 problems"));
}

#[test]
fn bad_trees_are_refused_with_diagnostics_at_the_token() {
    let (_t, dir, home) = common::archive();
    ok(&dir, &home, &["new", "fantasy-grand", "--white", "Ann", "--black", "Bo", "--id", "bt"]);
    ok(&dir, &home, &["move", "bt", "e4", "--as", "Ann"]);
    let refuse = |movetext: &str, message: &str| -> String {
        let err = fails(&dir, &home, &["conditional", "add", "bt", movetext, "--as", "Ann"], 1, message);
        assert!(!dir.join(".git/ravenpost/conditional/bt.white").exists(), "nothing stored");
        err
    };
    // An illegal move deep in a line (ply 6, third line of the text).
    let err = refuse("1... e7 2. d4\n2... d7 3. c4\n3... c7 4. e6", "illegal move `e6`");
    assert!(err.contains("--> bt (conditional tree):3:12"), "{err}");
    assert!(err.contains("3 | 3... c7 4. e6\n  |            ^^"), "{err}");
    // Two replies to one expected move: a variation on the reply, and a line given twice.
    let err = refuse("1... e7 2. d4 (2. c4)", "two replies to 1... e7: `d4` and `c4`");
    assert!(err.contains("--> bt (conditional tree):1:19"), "{err}");
    let err = refuse("1... e7 (1... e7 2. c4) 2. d4", "two replies to 1... e7: `d4` and `c4`");
    assert!(err.contains("--> bt (conditional tree):1:21"), "{err}");
    // A line for the wrong side: White's move number where Black moves.
    let err = refuse("1. d4 e7", "`1.` numbers the other side's move, but this ply is `1...`");
    assert!(err.contains("--> bt (conditional tree):1:1"), "{err}");
    assert!(err.contains("help: write `1...`, or leave the number out"), "{err}");
    // Its own move is not prepared: Bo's tree now is a tree for the wrong side.
    fails(
        &dir,
        &home,
        &["conditional", "add", "bt", "2. d4", "--as", "Bo"],
        1,
        "it is Bo's own move (ply 2)",
    );
    // A finished game.
    ok(&dir, &home, &["resign", "bt", "--as", "Bo"]);
    refuse("1... e7 2. d4", "the game is over (1-0)");
}
