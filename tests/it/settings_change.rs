//! The archive's settings change after its first commit (`ravenpost archive settings`,
//! issue 33 item 3): one commit that changes only `ravenpost.yaml`, taken by a club's
//! hook from an admin of the settings before it, judged the same by `verify`; games
//! already created keep their answers, and the hook's mail follows the new settings.

use crate::common;

use std::path::{Path, PathBuf};

use common::smtp::Smtp;
use common::{git, git_command, identity, ok, run, text};

/// A club: a bare server with the hook (and the notify hook when asked), the admin's
/// clone (the account `boss`, ravenpost.yaml's only admin) and Ann's.
struct Club {
    _t: tempfile::TempDir,
    home: PathBuf,
    server: PathBuf,
    admin: PathBuf,
    ann: PathBuf,
}

const GAME: &str = "games/gygax/c/d/g.pgn";

impl Club {
    fn server_tip(&self) -> String {
        git(&self.server, &self.home, &["rev-parse", "refs/heads/main"]).trim().to_string()
    }

    /// `git push origin main` from `dir`, authenticated as `account` (`REMOTE_USER`).
    fn push_as(&self, dir: &Path, account: &str) -> (bool, String) {
        let o = git_command(dir, &self.home)
            .args(["push", "origin", "main"])
            .env("REMOTE_USER", account)
            .output()
            .unwrap();
        (o.status.success(), text(&o))
    }

    /// A refused push: the server's branch stays, the clone is reset to it.
    fn refused(&self, dir: &Path, account: &str, want: &str) {
        let before = self.server_tip();
        let (pushed, out) = self.push_as(dir, account);
        assert!(!pushed, "the push was taken: {out}");
        assert!(out.contains(want), "wanted {want:?} in: {out}");
        assert_eq!(self.server_tip(), before, "nothing landed");
        git(dir, &self.home, &["fetch", "--quiet", "origin"]);
        git(dir, &self.home, &["reset", "--quiet", "--hard", "origin/main"]);
    }
}

/// The club, with game `g` (Ann, account `ann`, against Bo, account `bo`, each with an
/// address) made by the admin and pushed; `notify` installs the mail hook too.
fn club(notify: bool) -> Club {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Admin", "boss@club.example");
    let server = t.path().join("server.git");
    git(t.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    let mut install = vec!["hook", "install", "--repo", server.to_str().unwrap()];
    if notify {
        install.push("--notify");
    }
    assert!(ok(t.path(), &home, &install).contains("pre-receive"));
    let mut clones = Vec::new();
    for name in ["Admin", "Ann"] {
        let dir = t.path().join(name.to_lowercase());
        git(t.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), dir.to_str().unwrap()]);
        git(&dir, &home, &["config", "user.name", name]);
        clones.push(dir);
    }
    let ann = clones.pop().unwrap();
    let admin = clones.pop().unwrap();
    ok(&admin, &home, &["init", "--admin", "boss"]);
    let new = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g", "--white-account", "ann"];
    let emails =
        ["--black-account", "bo", "--white-email", "ann@club.example", "--black-email", "bo@club.example"];
    ok(&admin, &home, &[&new[..], &emails[..]].concat());
    let c = Club { _t: t, home, server, admin, ann };
    let (pushed, out) = c.push_as(&c.admin, "boss");
    assert!(pushed, "{out}");
    ok(&c.ann, &c.home, &["sync"]);
    c
}

/// Commits `edit` of ravenpost.yaml in `dir` by hand (plain git, as a club member could).
fn hand_commit(c: &Club, dir: &Path, edit: impl Fn(String) -> String) {
    let file = dir.join("ravenpost.yaml");
    std::fs::write(&file, edit(std::fs::read_to_string(&file).unwrap())).unwrap();
    git(dir, &c.home, &["commit", "--quiet", "-am", "settings by hand"]);
}

#[test]
fn a_settings_change_is_taken_from_an_admin_only_and_games_keep_their_answers() {
    let c = club(false);
    ok(&c.ann, &c.home, &["move", "g", "2e3", "--as", "Ann"]);
    assert!(c.push_as(&c.ann, "ann").0);
    ok(&c.admin, &c.home, &["sync"]);
    let answers = |dir: &Path| {
        ["verify g --json", "log g --json", "status --json"].map(|a| {
            let args: Vec<&str> = a.split(' ').collect();
            ok(dir, &c.home, &args)
        })
    };
    let before = answers(&c.admin);

    // Ann is no admin: her change is refused, even one that makes her an admin.
    let out = ok(&c.ann, &c.home, &["archive", "settings", "set", "admins", "[boss, ann]"]);
    assert!(out.contains("admins = [boss, ann]"), "{out}");
    c.refused(
        &c.ann,
        "ann",
        "the archive's settings may be changed only by an admin (the account `boss`, ravenpost.yaml admins before the change), but this push was authenticated as `ann` (REMOTE_USER)",
    );

    // The admin's is taken.
    let out = ok(&c.admin, &c.home, &["archive", "settings", "set", "club.referee", "games@club.example"]);
    assert!(out.contains("club.referee = games@club.example"), "{out}");
    let subject = git(&c.admin, &c.home, &["log", "-1", "--format=%s"]);
    assert_eq!(subject, "settings: club.referee = games@club.example\n");
    let files = git(&c.admin, &c.home, &["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files, "ravenpost.yaml\n");
    let (pushed, out) = c.push_as(&c.admin, "boss");
    assert!(pushed, "{out}");
    assert!(
        ok(&c.admin, &c.home, &["archive", "settings"]).contains("club:\n  referee: games@club.example\n")
    );
    assert_eq!(ok(&c.server, &c.home, &["verify"]), "1 game verified, 0 problems\n");
    ok(&c.ann, &c.home, &["sync"]);
    assert_eq!(ok(&c.ann, &c.home, &["verify"]), "1 game verified, 0 problems\n");
    assert_eq!(answers(&c.ann), before, "the game's answers are as before the change");
    assert_eq!(answers(&c.admin), before);

    // Play goes on after it.
    ok(&c.ann, &c.home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    c.refused(&c.ann, "ann", "Bo's steps must be pushed by the account `bo`");
}

#[test]
fn a_settings_commit_that_does_more_than_change_the_settings_is_refused() {
    let c = club(false);
    // One commit with a move and a setting.
    ok(&c.admin, &c.home, &["move", "g", "2e3", "--as", "Ann"]);
    git(&c.admin, &c.home, &["reset", "--quiet", "--soft", "HEAD~1"]);
    hand_commit(&c, &c.admin, |y| format!("{y}event: Club Cup\n"));
    c.refused(
        &c.admin,
        "boss",
        &format!("a settings change (`ravenpost archive settings`) is a commit that changes only ravenpost.yaml; this one also changes {GAME}"),
    );
    // The layout, with another setting: migrate-layout's.
    hand_commit(&c, &c.admin, |y| format!("{}event: Club Cup\n", y.replace("layout: fan-out\n", "")));
    c.refused(
        &c.admin,
        "boss",
        "`layout` cannot change in a settings change: `ravenpost archive migrate-layout`",
    );
    // A file that no longer reads: the reader's own message.
    hand_commit(&c, &c.admin, |y| format!("{y}colour: red\n"));
    c.refused(&c.admin, "boss", "ravenpost.yaml does not read after this commit (unknown field `colour`");
    // The command checks before it commits.
    let o = run(&c.admin, &c.home, &["archive", "settings", "set", "colour", "red"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("the new ravenpost.yaml would not read: unknown field `colour`"),
        "{}",
        text(&o)
    );
    let o = run(&c.admin, &c.home, &["archive", "settings", "set", "layout", "flat"]);
    assert!(text(&o).contains("ravenpost archive migrate-layout"), "{}", text(&o));
    assert_eq!(ok(&c.admin, &c.home, &["verify"]), "1 game verified, 0 problems\n");
    // A whole file, comments kept, given as the edited working copy.
    let file = c.admin.join("ravenpost.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("{yaml}# the club's cup\nevent: Club Cup\n")).unwrap();
    let out = ok(&c.admin, &c.home, &["archive", "settings", "--file", "ravenpost.yaml"]);
    assert!(out.contains("event = Club Cup"), "{out}");
    assert!(ok(&c.admin, &c.home, &["archive", "settings"]).contains("# the club's cup\n"));
    assert!(c.push_as(&c.admin, "boss").0);
    assert_eq!(ok(&c.server, &c.home, &["verify"]), "1 game verified, 0 problems\n");
}

#[test]
fn a_club_that_adds_mail_after_its_first_commit_is_mailed_the_next_move() {
    let t = tempfile::tempdir().unwrap();
    let smtp = Smtp::start(t.path(), "maildir", None);
    let c = club(true);
    // No mail settings: Ann's first move is not mailed.
    ok(&c.ann, &c.home, &["move", "g", "2e3", "--as", "Ann"]);
    let (pushed, out) = c.push_as(&c.ann, "ann");
    assert!(pushed && out.contains("not mailed"), "{out}");
    assert!(smtp.messages().is_empty());
    ok(&c.admin, &c.home, &["sync"]);
    for (k, v) in [("mail.smtp.host", "127.0.0.1"), ("mail.smtp.security", "none")] {
        ok(&c.admin, &c.home, &["archive", "settings", "set", k, v]);
    }
    ok(&c.admin, &c.home, &["archive", "settings", "set", "mail.smtp.port", &smtp.port.to_string()]);
    assert!(c.push_as(&c.admin, "boss").0);
    // Bo's reply goes to Ann, through the server the settings name now.
    ok(&c.ann, &c.home, &["sync"]);
    ok(&c.ann, &c.home, &["move", "g", "Sa3b6", "--as", "Bo"]);
    let (pushed, out) = c.push_as(&c.ann, "bo");
    assert!(pushed, "{out}");
    let mail = std::fs::read_to_string(smtp.newest(0)).unwrap();
    assert!(mail.contains("\nTo: \"Ann\" <ann@club.example>\n"), "{mail}");
    assert!(mail.contains("\nSubject: [ravenpost] g: 1... Sa3b6\n"), "{mail}");
    assert_eq!(ok(&c.server, &c.home, &["verify"]), "1 game verified, 0 problems\n");
}

/// An archive written by ravenpost 0.1.0 (flat layout, no `layout:`) takes a settings
/// change, and verifies as 0.1.0 answered.
#[test]
fn an_archive_of_0_1_0_changes_its_settings_and_verifies_as_before() {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Admin", "boss@club.example");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/archives");
    let archive = t.path().join("archive");
    let bundle = data.join("ravenpost-0.1.0.bundle");
    git(
        t.path(),
        &home,
        &["clone", "--quiet", "--branch", "main", bundle.to_str().unwrap(), archive.to_str().unwrap()],
    );
    let time: i64 =
        std::fs::read_to_string(data.join("0.1.0-time.expected")).unwrap().trim().parse().unwrap();
    let verify = || common::ok_at(&archive, &home, time, &["verify", "--json"]);
    let before = verify();
    assert_eq!(before, std::fs::read_to_string(data.join("0.1.0-verify.expected")).unwrap());
    common::ok_at(&archive, &home, time, &["archive", "settings", "set", "event", "Club Cup"]);
    assert_eq!(verify(), before);
}
