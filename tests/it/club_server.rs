//! A club's git server knows who pushes: the pre-receive hook takes the authenticated
//! account from the server (gitolite's `GL_USER`, `REMOTE_USER` from `git http-backend`
//! behind a web server with basic authentication, GitLab's `GL_USERNAME`, Gitea's and
//! Forgejo's `GITEA_PUSHER_NAME`, or the variable `RAVENPOST_PUSHER_VAR` names) and
//! refuses a step pushed by an account that is not the player's, whatever the commit's
//! author name says.
//!
//! The servers are real: `sshd` (openssh-server) with gitolite (gitolite3) as the server,
//! and lighttpd running `git http-backend`, each on 127.0.0.1 on a free port with its
//! own configuration in a temporary directory, stopped when the test ends. A missing
//! server fails the test and names the package to install (`.ci/run` installs them).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use common::smtp::{free_port, wait_for_port};
use common::tools::{keygen, require};
use common::{git, git_command, git_out, identity, ok, ravenpost_at, run, run_git, text};

/// A program of `/usr/sbin` (not on every user's PATH), else the bare name.
fn sbin(name: &str) -> String {
    let full = Path::new("/usr/sbin").join(name);
    if full.is_file() { full.to_string_lossy().into_owned() } else { name.to_string() }
}

/// A server process, killed and reaped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The name of the user running the tests (the servers run as it, and ssh logs in as it).
fn user() -> String {
    let o = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8(o.stdout).unwrap().trim().to_string()
}

/// Runs `cmd`, which must succeed; returns standard output and standard error.
fn must(cmd: &mut Command) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(o.status.success(), "{cmd:?}: {}", text(&o));
    text(&o)
}

/// The game's moves, alternately Ann's (White, Gold) and Bo's.
const MOVES: [&str; 6] = ["2e3", "Sa3b6", "Rx3b6", "U2c6", "2d3", "2d6"];

/// One player's clone of the club's archive.
struct Player<'a> {
    name: &'a str,
    dir: PathBuf,
}

/// A club: the test's home, and the clones of Ann and Bo.
struct Club<'a> {
    home: PathBuf,
    ann: Player<'a>,
    bo: Player<'a>,
}

impl Club<'_> {
    fn player(&self, i: usize) -> &Player<'_> {
        if i.is_multiple_of(2) { &self.ann } else { &self.bo }
    }

    /// Plays `MOVES[from..to]`, each by its player in their own clone, synced before and after.
    fn play(&self, from: usize, to: usize) {
        for (i, m) in MOVES.iter().enumerate().take(to).skip(from) {
            let p = self.player(i);
            ok(&p.dir, &self.home, &["sync"]);
            ok(&p.dir, &self.home, &["move", "g", m, "--as", p.name, "--expect-ply", &(i + 1).to_string()]);
            let out = ok(&p.dir, &self.home, &["sync"]);
            assert!(out.contains("Pushed 1 commit"), "{out}");
        }
    }

    /// Ann commits Bo's next move (ply `ply`, `mv`) in her clone, under Bo's name and with
    /// `--as Bo`, and pushes it from her account: the server refuses it, naming `variable`
    /// as where it learnt the pusher, and the server's branch `tip` stays; Ann's clone is
    /// reset.
    fn forged_move_is_refused(&self, ply: usize, mv: &str, variable: &str, tip: &dyn Fn() -> String) {
        let before = tip();
        let ann = &self.ann.dir;
        ok(ann, &self.home, &["sync"]);
        let args = ["move", "g", mv, "--as", "Bo", "--author", "Bo <bo@example.org>", "--expect-ply"];
        ok(ann, &self.home, &[&args[..], &[&ply.to_string()]].concat());
        assert_eq!(git(ann, &self.home, &["log", "-1", "--format=%an <%ae>"]).trim(), "Bo <bo@example.org>");
        let o = git_out(ann, &self.home, &["push", "origin", "main"]);
        let err = text(&o);
        assert!(!o.status.success(), "the forged move was accepted: {err}");
        let reason = format!(
            "remote: ravenpost: g {}: Bo's steps must be pushed by the account `bo` (BlackAccount tag), but this push was authenticated as `ann` ({variable})",
            git(ann, &self.home, &["rev-parse", "--short=12", "HEAD"]).trim()
        );
        assert!(err.contains(&reason), "expected {reason:?} in: {err}");
        assert!(err.contains("pre-receive hook declined"), "{err}");
        // `ravenpost sync` shows the same reason and changes nothing.
        let o = run(ann, &self.home, &["sync"]);
        assert!(!o.status.success(), "{}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("refused the push") && err.contains("authenticated as `ann`"), "{err}");
        assert_eq!(tip(), before, "the server's branch moved");
        git(ann, &self.home, &["reset", "--quiet", "--hard", "origin/main"]);
    }

    /// Plays the rest of the game and Ann resigns; both clones verify, the server's history
    /// has the players' names as authors.
    fn finish(&self, server_log: &dyn Fn() -> String) {
        self.play(3, MOVES.len());
        ok(&self.ann.dir, &self.home, &["sync"]);
        ok(&self.ann.dir, &self.home, &["resign", "g", "--as", "Ann"]);
        let out = ok(&self.ann.dir, &self.home, &["sync"]);
        assert!(out.contains("Pushed 1 commit"), "{out}");
        let out = ok(&self.bo.dir, &self.home, &["sync"]);
        // (s5 item 16: a draw action or resignation names its player, as a move does.)
        assert!(out.contains("Ann (Gold) resigns"), "{out}");
        for p in [&self.ann, &self.bo] {
            let v = ok(&p.dir, &self.home, &["verify"]);
            assert!(v.contains("0 problems"), "{v}");
            let pgn = std::fs::read_to_string(p.dir.join("games/gygax/c/d/g.pgn")).unwrap();
            assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
        }
        let authors = server_log();
        assert_eq!(
            authors.lines().collect::<Vec<_>>(),
            ["Ann", "Bo", "Ann", "Bo", "Ann", "Bo", "Ann", "Admin", "Admin"],
            "{authors}"
        );
    }
}

/// Clones `url` into `dir` as `name`, with `config` (`key=value`) set in the clone.
fn clone_as(home: &Path, url: &str, dir: &Path, name: &str, config: &[String]) {
    let mut cmd = git_command(home, home);
    cmd.arg("clone").arg("--quiet");
    for c in config {
        cmd.args(["-c", c]);
    }
    run_git(cmd.args([url, dir.to_str().unwrap()]));
    git(dir, home, &["config", "user.name", name]);
    git(dir, home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
}

/// The admin's clone: the archive (`ravenpost init --admin admin`) and the game `g`
/// between Ann and Bo with their accounts, pushed with `sync`.
fn admin_sets_up(home: &Path, dir: &Path) {
    let out = ok(dir, home, &["init", "--admin", "admin"]);
    assert!(out.contains("Initialised"), "{out}");
    let yaml = std::fs::read_to_string(dir.join("ravenpost.yaml")).unwrap();
    assert!(yaml.contains("admins:\n- admin\n"), "{yaml}");
    let args = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"];
    ok(dir, home, &[&args[..], &["--white-account", "ann", "--black-account", "bo"]].concat());
    let pgn = std::fs::read_to_string(dir.join("games/gygax/c/d/g.pgn")).unwrap();
    assert!(pgn.contains("[BlackAccount \"bo\"]") && pgn.contains("[WhiteAccount \"ann\"]"), "{pgn}");
    let out = ok(dir, home, &["sync"]);
    assert!(out.contains("Pushed"), "{out}");
}

/// A gitolite server behind a real sshd on a free loopback port, as this user: the
/// gitolite account's HOME, host key and sshd config in the test's directory; the keys of
/// the admin and of two players (`ann`, `bo`) in gitolite's keydir; the admin's clone of
/// gitolite-admin. sshd is stopped when this is dropped.
struct Gitolite {
    _sshd: Server,
    root: PathBuf,
    home: PathBuf,
    /// The gitolite account's HOME.
    gl: PathBuf,
    port: u16,
    /// The admin's clone of gitolite-admin.
    conf: PathBuf,
}

impl Gitolite {
    /// Sets gitolite up with the admin key, edits its rc with `rc` (text in, text out),
    /// starts sshd and adds the players' keys.
    fn start(root: &Path, rc: impl Fn(String) -> String) -> Gitolite {
        let sshd = sbin("sshd");
        require(&sshd, &["-V"], "openssh-server");
        require("gitolite", &["help"], "gitolite3");
        let home = identity(&root.join("home"), "Admin", "admin@example.org");
        let keys = root.join("keys");
        std::fs::create_dir_all(&keys).unwrap();
        for name in ["admin", "ann", "bo", "mallory", "host"] {
            keygen(&keys, name);
        }
        // The gitolite account: its own HOME in the temporary directory; admin's key.
        let gl = root.join("gitolite");
        std::fs::create_dir_all(&gl).unwrap();
        let admin_pub = keys.join("admin.pub");
        must(
            Command::new("gitolite")
                .arg("setup")
                .arg("-pk")
                .arg(&admin_pub)
                .current_dir(&gl)
                .env("HOME", &gl),
        );
        let rc_file = gl.join(".gitolite.rc");
        std::fs::write(&rc_file, rc(std::fs::read_to_string(&rc_file).unwrap())).unwrap();

        // sshd on a free loopback port, as this user, with its own host key and config.
        let port = free_port();
        let config = root.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {host_key}\nPidFile {pid}\n\
                 AuthorizedKeysFile {keys}\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n\
                 SetEnv HOME={gl}\n",
                host_key = keys.join("host").display(),
                pid = root.join("sshd.pid").display(),
                keys = gl.join(".ssh/authorized_keys").display(),
                gl = gl.display(),
            ),
        )
        .unwrap();
        if user() == "root" {
            // sshd's privilege separation directory (made by the service's start-up otherwise).
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let mut child = Command::new(&sshd)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{sshd}: {e}: install openssh-server (.ci/run does)"));
        wait_for_port(&mut child, port, "sshd");
        let g = Gitolite {
            _sshd: Server(child),
            root: root.to_path_buf(),
            home,
            gl,
            port,
            conf: root.join("gitolite-admin"),
        };
        // The admin adds the players' keys.
        g.clone_as("gitolite-admin", &g.conf, "Admin", "admin");
        for name in ["ann", "bo", "mallory"] {
            std::fs::copy(keys.join(format!("{name}.pub")), g.conf.join(format!("keydir/{name}.pub")))
                .unwrap();
        }
        g
    }

    /// Clones the gitolite repository `repo` into `dir` as `name`, with `key`'s ssh key.
    fn clone_as(&self, repo: &str, dir: &Path, name: &str, key: &str) {
        let ssh = format!(
            "core.sshCommand=ssh -F /dev/null -i {} -p {} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile={}",
            self.root.join("keys").join(key).display(),
            self.port,
            self.root.join("known_hosts").display()
        );
        clone_as(&self.home, &format!("{}@127.0.0.1:{repo}", user()), dir, name, &[ssh]);
    }

    /// Appends `text` to gitolite.conf and pushes gitolite-admin (with any new keys).
    fn configure(&self, text: &str) {
        let file = self.conf.join("conf/gitolite.conf");
        let mut c = std::fs::read_to_string(&file).unwrap();
        c.push_str(text);
        std::fs::write(&file, c).unwrap();
        git(&self.conf, &self.home, &["add", "-A"]);
        git(&self.conf, &self.home, &["commit", "--quiet", "-m", "the chess club"]);
        git(&self.conf, &self.home, &["push", "--quiet", "origin", "HEAD"]);
    }

    /// `ravenpost hook install ARGS` run by the gitolite account.
    fn install(&self, args: &[&str]) -> String {
        must(
            ravenpost_at(&self.gl, &self.home, common::T0)
                .args(["hook", "install"])
                .args(args)
                .env("HOME", &self.gl),
        )
    }

    /// The admin's clone of `repo` with the archive and the game set up, and the players' clones.
    fn club(&self, repo: &str) -> (PathBuf, Club<'static>) {
        let admin = self.root.join(format!("{repo}-admin"));
        self.clone_as(repo, &admin, "Admin", "admin");
        admin_sets_up(&self.home, &admin);
        let club = Club {
            ann: Player { name: "Ann", dir: self.root.join(format!("{repo}-ann")) },
            bo: Player { name: "Bo", dir: self.root.join(format!("{repo}-bo")) },
            home: self.home.clone(),
        };
        self.clone_as(repo, &club.ann.dir, "Ann", "ann");
        self.clone_as(repo, &club.bo.dir, "Bo", "bo");
        (admin, club)
    }
}

#[test]
fn gitolite_over_ssh_refuses_a_move_pushed_by_the_opponents_account_and_a_game_is_played_to_the_end() {
    let t = tempfile::tempdir().unwrap();
    let g = Gitolite::start(t.path(), |rc| rc);
    g.configure("\nrepo chess\n    RW = admin ann bo\n");
    let bare = g.gl.join("repositories/chess.git");
    assert!(bare.is_dir(), "gitolite made no chess.git");

    // The hook, as gitolite's common hook, installed by the gitolite account.
    let out = g.install(&["--gitolite", "common"]);
    assert!(out.contains("gitolite's common pre-receive hook"), "{out}");
    let hook = std::fs::read_to_string(bare.join("hooks/pre-receive")).unwrap();
    assert!(hook.contains("hook check"), "{hook}");
    // gitolite-admin has it too, and is not checked: the admin can still push there.
    let home = &g.home;
    git(&g.conf, home, &["commit", "--quiet", "--allow-empty", "-m", "still the admin's"]);
    git(&g.conf, home, &["push", "--quiet", "origin", "HEAD"]);

    // The admin starts the archive and the game; each player clones with their own key.
    let (admin, club) = g.club("chess");
    let tip = || git(&bare, home, &["rev-parse", "refs/heads/main"]);
    club.play(0, 3);
    club.forged_move_is_refused(4, MOVES[3], "GL_USER", &tip);
    // The admin may set games up but not move in them.
    ok(&admin, home, &["sync"]);
    ok(&admin, home, &["move", "g", MOVES[3], "--as", "Bo"]);
    let o = git_out(&admin, home, &["push", "origin", "main"]);
    assert!(text(&o).contains("but this push was authenticated as `admin` (GL_USER)"), "{}", text(&o));
    git(&admin, home, &["reset", "--quiet", "--hard", "origin/main"]);
    club.finish(&|| git(&bare, home, &["log", "--format=%an", "main"]));
}

#[test]
fn gitolite_repo_specific_hook_checks_only_the_repositories_that_name_it() {
    let t = tempfile::tempdir().unwrap();
    // ~/.gitolite.rc as gitolite's docs say: LOCAL_CODE, and repo-specific-hooks enabled.
    let g = Gitolite::start(t.path(), |rc| {
        let rc = rc.replacen(
            "# LOCAL_CODE                =>  \"$ENV{HOME}/local\",",
            "LOCAL_CODE => \"$ENV{HOME}/local\",",
            1,
        );
        assert!(rc.contains("\n        LOCAL_CODE => "), "gitolite's rc has no LOCAL_CODE line to uncomment");
        let enabled = rc.replacen("# 'repo-specific-hooks',", "'repo-specific-hooks',", 1);
        assert_ne!(enabled, rc, "gitolite's rc has no repo-specific-hooks line to uncomment");
        enabled
    });
    let out = g.install(&["--gitolite", "repo-specific"]);
    assert!(out.contains("option hook.pre-receive = ravenpost"), "{out}");
    assert!(g.gl.join("local/hooks/repo-specific/ravenpost").is_file(), "{out}");
    g.configure(
        "\nrepo chess\n    RW = admin ann bo\n    option hook.pre-receive = ravenpost\nrepo notes\n    RW = admin ann bo\n",
    );
    let home = &g.home;
    let bare = g.gl.join("repositories/chess.git");
    let (_admin, club) = g.club("chess");
    let tip = || git(&bare, home, &["rev-parse", "refs/heads/main"]);
    club.play(0, 3);
    club.forged_move_is_refused(4, MOVES[3], "GL_USER", &tip);
    // A repository without the option is not checked: any commit goes.
    let notes = g.root.join("notes");
    g.clone_as("notes", &notes, "Ann", "ann");
    std::fs::write(notes.join("README"), "not an archive\n").unwrap();
    git(&notes, home, &["add", "README"]);
    git(&notes, home, &["commit", "--quiet", "-m", "notes"]);
    git(&notes, home, &["push", "--quiet", "origin", "HEAD:main"]);
}

/// lighttpd running `git http-backend` on a free loopback port, with basic authentication
/// for every URL under /git (users admin, ann, bo and mallory, each with the password
/// `<name>-secret`), serving the bare archive `chess.git` with ravenpost's hook installed.
struct Http {
    _lighttpd: Server,
    home: PathBuf,
    bare: PathBuf,
    port: u16,
}

impl Http {
    fn start(root: &Path) -> Http {
        let lighttpd = sbin("lighttpd");
        require(&lighttpd, &["-v"], "lighttpd");
        let home = identity(&root.join("home"), "Admin", "admin@example.org");
        let repos = root.join("repos");
        let www = root.join("www");
        std::fs::create_dir_all(&www).unwrap();
        let bare = repos.join("chess.git");
        git(root, &home, &["init", "--quiet", "--bare", "-b", "main", bare.to_str().unwrap()]);
        let out = ok(root, &home, &["hook", "install", "--repo", bare.to_str().unwrap()]);
        assert!(out.contains("pre-receive"), "{out}");

        // lighttpd: basic authentication for every URL under /git, which runs git http-backend.
        let exec_path = git(root, &home, &["--exec-path"]).trim().to_string();
        let users = root.join("users");
        std::fs::write(&users, "admin:admin-secret\nann:ann-secret\nbo:bo-secret\nmallory:mallory-secret\n")
            .unwrap();
        let port = free_port();
        let config = root.join("lighttpd.conf");
        std::fs::write(
            &config,
            format!(
                r#"server.port = {port}
server.bind = "127.0.0.1"
server.document-root = "{www}"
server.errorlog = "{root}/lighttpd-error.log"
server.modules = ("mod_alias", "mod_setenv", "mod_auth", "mod_authn_file", "mod_cgi")
alias.url = ("/git" => "{exec_path}/git-http-backend")
$HTTP["url"] =~ "^/git" {{
  cgi.assign = ("" => "")
  setenv.add-environment = ("GIT_PROJECT_ROOT" => "{repos}", "GIT_HTTP_EXPORT_ALL" => "")
}}
auth.backend = "plain"
auth.backend.plain.userfile = "{users}"
auth.require = ("/git" => ("method" => "basic", "realm" => "ravenpost club", "require" => "valid-user"))
"#,
                www = www.display(),
                root = root.display(),
                repos = repos.display(),
                users = users.display(),
            ),
        )
        .unwrap();
        let mut child = Command::new(&lighttpd)
            .arg("-D")
            .arg("-f")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{lighttpd}: {e}: install lighttpd (.ci/run does)"));
        wait_for_port(&mut child, port, "lighttpd");
        Http { _lighttpd: Server(child), home, bare, port }
    }

    /// The URL of the archive with `who`'s credentials.
    fn url(&self, who: &str) -> String {
        format!("http://{who}:{who}-secret@127.0.0.1:{}/git/chess.git", self.port)
    }
}

#[test]
fn smart_http_with_basic_authentication_refuses_a_move_pushed_by_the_opponents_account() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let http = Http::start(root);
    let (home, bare) = (http.home.clone(), http.bare.clone());
    let url = |who: &str| http.url(who);
    let admin = root.join("admin");
    clone_as(&home, &url("admin"), &admin, "Admin", &[]);
    admin_sets_up(&home, &admin);
    let club = Club {
        ann: Player { name: "Ann", dir: root.join("ann") },
        bo: Player { name: "Bo", dir: root.join("bo") },
        home: home.clone(),
    };
    clone_as(&home, &url("ann"), &club.ann.dir, "Ann", &[]);
    clone_as(&home, &url("bo"), &club.bo.dir, "Bo", &[]);

    let tip = || git(&bare, &home, &["rev-parse", "refs/heads/main"]);
    club.play(0, 3);
    club.forged_move_is_refused(4, MOVES[3], "REMOTE_USER", &tip);
    club.finish(&|| git(&bare, &home, &["log", "--format=%an", "main"]));
}

/// Adds the tags `tags` to the game file that the last commit of `dir` created, and amends
/// that commit: a game file written by hand.
fn amend_with_tags(dir: &Path, home: &Path, file: &str, tags: &str) {
    let path = dir.join(file);
    let pgn = std::fs::read_to_string(&path).unwrap();
    let at = pgn.find("[Ruleset ").expect("a Ruleset tag");
    let end = at + pgn[at..].find('\n').unwrap() + 1;
    std::fs::write(&path, format!("{}{tags}{}", &pgn[..end], &pgn[end..])).unwrap();
    git(dir, home, &["commit", "--quiet", "--all", "--amend", "--no-edit"]);
}

/// The archive of `admin` registers Ann's and Bo's accounts; mallory (who may push) tries to
/// set up games in their names: `new` refuses a tag naming her for Ann, and the server
/// refuses a hand-written game naming her for Ann, a game of theirs she pushes without
/// tags, and a game with her account on both sides. Nothing lands and nobody is rated; a
/// game Ann sets up with her own account lands.
fn a_stranger_sets_up_games_in_registered_players_names(
    home: &Path,
    admin: &Path,
    mallory: &Path,
    ann: &Path,
    variable: &str,
    tip: &dyn Fn() -> String,
) {
    let out = ok(admin, home, &["init", "--admin", "admin", "--account", "Ann=ann", "--account", "Bo=bo"]);
    assert!(out.contains("Initialised"), "{out}");
    ok(admin, home, &["sync"]);
    ok(mallory, home, &["sync"]);
    ok(ann, home, &["sync"]);
    let before = tip();
    let new = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id"];
    let o = run(
        mallory,
        home,
        &[&new[..], &["forged", "--white-account", "mallory", "--black-account", "bo"]].concat(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "--white-account: the WhiteAccount tag names `mallory` for Ann, but ravenpost.yaml registers Ann's steps to the account `ann`"
        ),
        "{}",
        text(&o)
    );
    let pushed = |dir: &Path, reason: &str| {
        let o = git_out(dir, home, &["push", "origin", "main"]);
        let id = git(dir, home, &["rev-parse", "--short=12", "HEAD"]);
        let want = format!("remote: ravenpost: {} {}: {reason}", "forged", id.trim());
        assert!(!o.status.success() && text(&o).contains(&want), "expected {want:?} in {}", text(&o));
        assert_eq!(tip(), before, "the server's branch moved");
        git(dir, home, &["reset", "--quiet", "--hard", "origin/main"]);
    };
    // A hand-written game naming mallory for both players.
    ok(mallory, home, &[&new[..], &["forged"]].concat());
    amend_with_tags(
        mallory,
        home,
        "games/gygax/c/c/forged.pgn",
        "[WhiteAccount \"mallory\"]\n[BlackAccount \"mallory\"]\n",
    );
    pushed(
        mallory,
        "the WhiteAccount tag names `mallory` for Ann, but ravenpost.yaml registers Ann's steps to the account `ann`",
    );
    // Without account tags the registry names the players' accounts, and mallory has none.
    ok(mallory, home, &[&new[..], &["forged"]].concat());
    pushed(
        mallory,
        &format!(
            "a new game may be pushed by its players' or an admin's account (one of the accounts `ann`, `bo`, `admin`), but this push was authenticated as `mallory` ({variable})"
        ),
    );
    // Players nobody registered: one account on both sides is refused as `new` refuses it.
    ok(mallory, home, &["new", "gygax", "--white", "Cy", "--black", "Di", "--id", "forged"]);
    amend_with_tags(
        mallory,
        home,
        "games/gygax/c/c/forged.pgn",
        "[WhiteAccount \"mallory\"]\n[BlackAccount \"mallory\"]\n",
    );
    pushed(
        mallory,
        "the account `mallory` is named for both players: each player pushes from their own account",
    );
    // Nothing landed, so nobody is rated; Ann's own game with her account lands.
    ok(admin, home, &["sync"]);
    let ratings: serde_json::Value =
        serde_json::from_str(&ok(admin, home, &["ratings", "--method", "elo", "--json"])).unwrap();
    assert_eq!(ratings["games"], serde_json::json!([]), "{ratings}");
    ok(ann, home, &[&new[..], &["real", "--white-account", "ann", "--black-account", "bo"]].concat());
    let out = ok(ann, home, &["sync"]);
    assert!(out.contains("Pushed 1 commit"), "{out}");
}

#[test]
fn mallorys_game_in_ann_and_bos_names_was_accepted_over_gitolite() {
    let t = tempfile::tempdir().unwrap();
    let g = Gitolite::start(t.path(), |rc| rc);
    g.configure("\nrepo chess\n    RW = admin ann bo mallory\n");
    g.install(&["--gitolite", "common"]);
    let dir = |who: &str| g.root.join(format!("chess-{who}"));
    for (who, name) in [("admin", "Admin"), ("mallory", "Mallory"), ("ann", "Ann")] {
        g.clone_as("chess", &dir(who), name, who);
    }
    let bare = g.gl.join("repositories/chess.git");
    let tip = || git(&bare, &g.home, &["rev-parse", "--verify", "--quiet", "refs/heads/main"]);
    a_stranger_sets_up_games_in_registered_players_names(
        &g.home,
        &dir("admin"),
        &dir("mallory"),
        &dir("ann"),
        "GL_USER",
        &tip,
    );
}

#[test]
fn mallorys_game_in_ann_and_bos_names_was_accepted_over_smart_http() {
    let t = tempfile::tempdir().unwrap();
    let http = Http::start(t.path());
    let dir = |who: &str| t.path().join(who);
    for (who, name) in [("admin", "Admin"), ("mallory", "Mallory"), ("ann", "Ann")] {
        clone_as(&http.home, &http.url(who), &dir(who), name, &[]);
    }
    let tip = || git(&http.bare, &http.home, &["rev-parse", "--verify", "--quiet", "refs/heads/main"]);
    a_stranger_sets_up_games_in_registered_players_names(
        &http.home,
        &dir("admin"),
        &dir("mallory"),
        &dir("ann"),
        "REMOTE_USER",
        &tip,
    );
}

#[test]
fn each_pusher_variable_reaches_the_hook_and_explain_says_who_pushed() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let home = identity(&root.join("home"), "Admin", "admin@example.org");
    let bare = root.join("server.git");
    git(root, &home, &["init", "--quiet", "--bare", "-b", "main", bare.to_str().unwrap()]);
    let out =
        ok(root, &home, &["hook", "install", "--repo", bare.to_str().unwrap(), "--pusher-var", "CLUB_USER"]);
    assert!(out.contains("pre-receive"), "{out}");
    let admin = root.join("admin");
    clone_as(&home, bare.to_str().unwrap(), &admin, "Admin", &[]);
    // A push to a plain repository names nobody but the variable the hook was told of.
    let push_as = |dir: &Path, vars: &[(&str, &str)]| {
        let mut cmd = git_command(dir, &home);
        cmd.args(["push", "origin", "main"]);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    };
    ok(&admin, &home, &["init", "--admin", "admin"]);
    // The club allows the branch `copy` beside main (see the regression below).
    let yaml = std::fs::read_to_string(admin.join("ravenpost.yaml")).unwrap();
    std::fs::write(admin.join("ravenpost.yaml"), format!("{yaml}branches:\n- copy\n")).unwrap();
    git(&admin, &home, &["commit", "--quiet", "--all", "--amend", "--no-edit"]);
    let args = ["new", "gygax", "--white", "Ann", "--black", "Bo", "--id", "g"];
    ok(&admin, &home, &[&args[..], &["--white-account", "ann", "--black-account", "bo"]].concat());
    // The hook was installed with --pusher-var CLUB_USER: a push that does not set it is refused.
    let o = push_as(&admin, &[("GL_USER", "admin")]);
    assert!(
        !o.status.success()
            && text(&o).contains("RAVENPOST_PUSHER_VAR names the variable CLUB_USER, which is not set"),
        "{}",
        text(&o)
    );
    // Only an admin may push the archive's set-up (ravenpost.yaml lists `admin`).
    let o = push_as(&admin, &[("CLUB_USER", "ann")]);
    let want = "ravenpost: ravenpost.yaml ";
    assert!(!o.status.success() && text(&o).contains(want), "{}", text(&o));
    assert!(
        text(&o).contains("may be pushed only by an admin (the account `admin`, ravenpost.yaml admins), but this push was authenticated as `ann` (CLUB_USER)"),
        "{}",
        text(&o)
    );
    let o = push_as(&admin, &[("CLUB_USER", "admin")]);
    assert!(o.status.success(), "{}", text(&o));

    // Now the plain hook: each server's variable is read.
    ok(root, &home, &["hook", "install", "--repo", bare.to_str().unwrap()]);
    let ann = root.join("ann");
    clone_as(&home, bare.to_str().unwrap(), &ann, "Ann", &[]);
    ok(&ann, &home, &["move", "g", MOVES[0], "--as", "Ann"]);
    ok(&ann, &home, &["move", "g", MOVES[1], "--as", "Bo"]);
    for var in ["GL_USER", "REMOTE_USER", "GL_USERNAME", "GITEA_PUSHER_NAME"] {
        let o = push_as(&ann, &[(var, "ann")]);
        assert!(!o.status.success(), "{var}: {}", text(&o));
        let want = format!(
            "Bo's steps must be pushed by the account `bo` (BlackAccount tag), but this push was authenticated as `ann` ({var})"
        );
        assert!(text(&o).contains(&want), "{var}: {}", text(&o));
    }
    // Without any, the hook judges by author name as before: the two moves go through.
    let o = push_as(&ann, &[]);
    assert!(o.status.success(), "{}", text(&o));
    // A game between others is not Ann's to push (nor anyone's but theirs or an admin's).
    let args = ["new", "gygax", "--white", "Bo", "--black", "Cy", "--id", "h", "--white-account", "bo"];
    ok(&ann, &home, &[&args[..], &["--black-account", "cy"]].concat());
    let o = push_as(&ann, &[("GL_USER", "ann")]);
    let want = "ravenpost: h ";
    assert!(!o.status.success() && text(&o).contains(want), "{}", text(&o));
    assert!(
        text(&o).contains("a new game may be pushed by its players' or an admin's account (one of the accounts `bo`, `cy`, `admin`), but this push was authenticated as `ann` (GL_USER)"),
        "{}",
        text(&o)
    );
    git(&ann, &home, &["reset", "--quiet", "--hard", "origin/main"]);
    // Regression (a_new_branch_charges_the_pusher_only_with_commits_no_branch_has): a new
    // branch made from main holds Bo's move, which Ann did not push.
    let mut cmd = git_command(&ann, &home);
    let o = cmd.args(["push", "origin", "main:refs/heads/copy"]).env("GL_USER", "ann").output().unwrap();
    assert!(o.status.success(), "{}", text(&o));

    // --explain says which it is.
    let explain = |vars: &[(&str, &str)]| {
        let mut cmd = ravenpost_at(&bare, &home, common::T0);
        cmd.args(["hook", "check", "--explain"]);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        must(&mut cmd)
    };
    let out = explain(&[("GITEA_PUSHER_NAME", "bo")]);
    assert!(out.contains("account `bo` (GITEA_PUSHER_NAME, Gitea and Forgejo)"), "{out}");
    assert!(out.contains("admins (ravenpost.yaml): admin"), "{out}");
    let out = explain(&[]);
    assert!(out.contains("No pusher variable is set") && out.contains("author name"), "{out}");
}

#[test]
fn hook_install_keeps_a_servers_own_pre_receive_hook_and_prints_the_script_for_its_custom_hooks() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path();
    let home = identity(&root.join("home"), "Admin", "admin@example.org");
    let bare = root.join("gitea.git");
    git(root, &home, &["init", "--quiet", "--bare", "-b", "main", bare.to_str().unwrap()]);
    // A server's own hook (Gitea's runs hooks/pre-receive.d/*) is never overwritten.
    let theirs = "#!/bin/sh\n# the server's own hook\nexit 0\n";
    std::fs::write(bare.join("hooks/pre-receive"), theirs).unwrap();
    let err = common::fails(
        root,
        &home,
        &["hook", "install", "--repo", bare.to_str().unwrap()],
        2,
        "is not ravenpost's",
    );
    assert!(err.contains("--print"), "{err}");
    assert_eq!(std::fs::read_to_string(bare.join("hooks/pre-receive")).unwrap(), theirs);
    // --print writes nothing and gives the script, with the pusher variable if named.
    let script = ok(root, &home, &["hook", "install", "--print", "--pusher-var", "CLUB_USER"]);
    assert!(script.starts_with("#!/bin/sh\n# ravenpost pre-receive hook"), "{script}");
    assert!(script.contains("RAVENPOST_PUSHER_VAR='CLUB_USER'") && script.contains("hook check"), "{script}");
    assert!(script.contains(env!("CARGO_BIN_EXE_ravenpost").rsplit('/').next().unwrap()), "{script}");
    assert_eq!(std::fs::read_to_string(bare.join("hooks/pre-receive")).unwrap(), theirs);
    // A bad variable name is refused.
    common::fails(
        root,
        &home,
        &["hook", "install", "--print", "--pusher-var", "A-B"],
        2,
        "an environment variable's name",
    );
}
