//! The `ravenpost` binary, run deterministically.
//!
//! Every child gets a fixed time ([`T0`] unless a test says otherwise), `HOME`,
//! `XDG_DATA_HOME` and `XDG_CONFIG_HOME` inside a test's own directory, no system git
//! config and a global git config of its own (`$HOME/gitconfig`, also written as
//! `$HOME/.gitconfig`, which libgit2 reads), `NO_COLOR=1`, and none of the caller's
//! `RAVENPOST_ARCHIVE`, `RAVENPOST_HOOK_EXE` or `RAVENPOST_SMTP_PASSWORD` (nor a git
//! server's pusher variables, `GL_USER` …): a test can never touch the archive of the
//! person running it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The fixed time of the tests: 2025-11-29T07:06:40Z.
pub const T0: i64 = 1_764_400_000;
/// One day in seconds.
pub const DAY: i64 = 86_400;

/// Makes `home` (if needed) and gives it a git identity `name <email>` (branch `main`
/// for new repositories). Returns `home`.
pub fn identity(home: &Path, name: &str, email: &str) -> PathBuf {
    std::fs::create_dir_all(home).unwrap();
    let config = format!("[user]\n\tname = {name}\n\temail = {email}\n[init]\n\tdefaultBranch = main\n");
    // The git command line reads GIT_CONFIG_GLOBAL; libgit2 reads $HOME/.gitconfig.
    std::fs::write(home.join("gitconfig"), &config).unwrap();
    std::fs::write(home.join(".gitconfig"), &config).unwrap();
    home.to_path_buf()
}

/// Sets the deterministic environment on `cmd` for a child whose home is `home`.
pub fn isolate(cmd: &mut Command, home: &Path) {
    cmd.env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("NO_COLOR", "1")
        // Diagrams fit $COLUMNS when it is set: the caller's terminal width is not the test's.
        .env_remove("COLUMNS")
        .env_remove("RAVENPOST_ARCHIVE")
        .env_remove("RAVENPOST_HOOK_EXE")
        .env_remove("RAVENPOST_SMTP_PASSWORD")
        .env_remove("SSH_AUTH_SOCK")
        // The variables git servers name the pusher in: a test sets them itself.
        .env_remove("GL_USER")
        .env_remove("REMOTE_USER")
        .env_remove("GL_USERNAME")
        .env_remove("GITEA_PUSHER_NAME")
        .env_remove("RAVENPOST_PUSHER_VAR");
}

/// The binary, to run in `dir` at time `time` with home `home` (arguments still to add).
pub fn ravenpost_at(dir: &Path, home: &Path, time: i64) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ravenpost"));
    cmd.current_dir(dir).env("RAVENPOST_TIME", time.to_string());
    isolate(&mut cmd, home);
    cmd
}

/// Standard output then standard error, for failure messages.
pub fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Runs `ravenpost args` in `dir` at [`T0`].
pub fn run(dir: &Path, home: &Path, args: &[&str]) -> Output {
    run_at(dir, home, T0, args)
}

/// Runs `ravenpost args` in `dir` at `time`.
pub fn run_at(dir: &Path, home: &Path, time: i64, args: &[&str]) -> Output {
    ravenpost_at(dir, home, time).args(args).output().expect("the ravenpost binary runs")
}

/// Runs `ravenpost args` at [`T0`], which must succeed; returns standard output.
pub fn ok(dir: &Path, home: &Path, args: &[&str]) -> String {
    ok_at(dir, home, T0, args)
}

/// Runs `ravenpost args` at `time`, which must succeed; returns standard output.
pub fn ok_at(dir: &Path, home: &Path, time: i64, args: &[&str]) -> String {
    let o = run_at(dir, home, time, args);
    assert!(o.status.success(), "ravenpost {args:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// Asserts that `o` exited with `code` and that its standard error contains `message`;
/// returns standard error.
pub fn expect_failure(o: &Output, what: &str, code: i32, message: &str) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "{what}: exit code: {}", text(o));
    assert!(err.contains(message), "{what}: expected {message:?} in standard error: {err}");
    err
}

/// Runs `ravenpost args` at [`T0`], which must exit with `code` and say `message` on
/// standard error; returns standard error.
pub fn fails(dir: &Path, home: &Path, args: &[&str], code: i32, message: &str) -> String {
    let o = run(dir, home, args);
    expect_failure(&o, &format!("ravenpost {args:?}"), code, message)
}

/// A fresh archive made by `ravenpost init` in a temporary directory, with the git
/// identity `Referee <referee@example.org>`: (the directory to keep, the archive, home).
pub fn archive() -> (tempfile::TempDir, PathBuf, PathBuf) {
    archive_with(&[])
}

/// As [`archive`], with more arguments for `ravenpost init` (`--diagrams every-move`).
pub fn archive_with(init_args: &[&str]) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let home = identity(&t.path().join("home"), "Referee", "referee@example.org");
    let dir = t.path().join("arc");
    // Flat: the tests of other things were written with flat paths (`layout::` tests the
    // fan-out of new archives).
    let mut args = vec!["init", dir.to_str().unwrap()];
    if !init_args.contains(&"--layout") {
        args.extend_from_slice(&["--layout", "flat"]);
    }
    args.extend_from_slice(init_args);
    ok(t.path(), &home, &args);
    (t, dir, home)
}

/// What a run without an archive did: (exit code, standard output, standard error).
pub type Outcome = (i32, String, String);

/// Runs `ravenpost args` outside any archive: a fresh empty home, `RAVENPOST_ARCHIVE`
/// naming a directory that does not exist, colour off.
pub fn cli(args: &[&str]) -> Outcome {
    cli_env(args, &[])
}

/// As [`cli`], with environment variables set (`Some`) or removed (`None`) last.
pub fn cli_env(args: &[&str], env: &[(&str, Option<&str>)]) -> Outcome {
    let t = tempfile::tempdir().unwrap();
    let mut cmd = ravenpost_at(t.path(), t.path(), T0);
    cmd.args(args).env("RAVENPOST_ARCHIVE", t.path().join("no-archive-here"));
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let o = cmd.output().expect("the ravenpost binary runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The path of game `id` of `variant` in an archive made by `ravenpost init` (the fan-out
/// layout): `games/<variant>/<x>/<y>/<id>.pgn`, x and y the first two hex digits of the
/// SHA-256 of the id.
pub fn fan_out_path(variant: &str, id: &str) -> String {
    use sha2::Digest;
    let hex = format!("{:x}", sha2::Sha256::digest(id.as_bytes()));
    format!("games/{variant}/{}/{}/{id}.pgn", &hex[0..1], &hex[1..2])
}

/// A bare repository with the hook installed, Ann's and Bo's clones of it (their names and
/// addresses configured), and the archive started in Ann's clone (not pushed).
pub struct BareClub {
    /// Holds every directory below.
    pub dir: tempfile::TempDir,
    /// The referee's home (`identity`).
    pub home: PathBuf,
    /// The bare repository.
    pub server: PathBuf,
    /// Ann's clone.
    pub ann: PathBuf,
    /// Bo's clone.
    pub bo: PathBuf,
}

/// A new [`BareClub`].
pub fn bare_club() -> BareClub {
    let dir = tempfile::tempdir().unwrap();
    let home = identity(&dir.path().join("home"), "Referee", "referee@example.org");
    let server = dir.path().join("server.git");
    super::git(dir.path(), &home, &["init", "--quiet", "--bare", "-b", "main", server.to_str().unwrap()]);
    ok(dir.path(), &home, &["hook", "install", "--repo", server.to_str().unwrap()]);
    let clone = |name: &str| {
        let d = dir.path().join(name.to_lowercase());
        super::git(dir.path(), &home, &["clone", "--quiet", server.to_str().unwrap(), d.to_str().unwrap()]);
        super::git(&d, &home, &["config", "user.name", name]);
        super::git(&d, &home, &["config", "user.email", &format!("{}@example.org", name.to_lowercase())]);
        d
    };
    let (ann, bo) = (clone("Ann"), clone("Bo"));
    ok(&ann, &home, &["init"]);
    BareClub { dir, home, server, ann, bo }
}

/// A table row's text as a browser shows it, from just after a `<tr`'s name (the rest
/// of its start tag, then its cells): tags dropped, spaces collapsed.
pub fn shown_row(row: &str) -> String {
    let row = row.split("</tr>").next().unwrap().split_once('>').unwrap().1;
    let mut shown = String::new();
    let mut in_tag = false;
    for ch in row.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => shown.push(ch),
            _ => {}
        }
    }
    shown.split_whitespace().collect::<Vec<_>>().join(" ")
}
