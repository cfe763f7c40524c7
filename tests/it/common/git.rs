//! The real `git` command line, isolated like the binary (see [`super::cli`]) and with
//! fixed author and committer dates ([`GIT_DATE`]).

use std::path::Path;
use std::process::{Command, Output};

use super::cli::{T0, isolate, text};

/// The date of every commit made with [`git`]: 2025-11-29T08:00:00Z.
pub const GIT_DATE: &str = "2025-11-29T08:00:00Z";

/// The clock of a server's pre-receive hook that [`git`] pushes to: a year after [`T0`],
/// so that the commits the tests make, dated from [`T0`] on, arrive after they were made
/// (the hook refuses a commit dated later than its arrival).
pub const SERVER_TIME: i64 = T0 + 365 * 86_400;

/// `git` to run in `dir` with home `home` (arguments still to add).
pub fn git_command(dir: &Path, home: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_AUTHOR_DATE", GIT_DATE)
        .env("GIT_COMMITTER_DATE", GIT_DATE)
        // For the pre-receive hook, which runs the binary.
        .env("RAVENPOST_TIME", SERVER_TIME.to_string());
    isolate(&mut cmd, home);
    cmd
}

/// Runs `git args` in `dir`, whatever its exit status.
pub fn git_out(dir: &Path, home: &Path, args: &[&str]) -> Output {
    checked_spawn(git_command(dir, home).args(args))
}

/// Runs `git args` in `dir`, which must succeed; returns standard output.
pub fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    run_git(git_command(dir, home).args(args))
}

/// Runs a prepared `git` command, which must succeed; returns standard output.
pub fn run_git(cmd: &mut Command) -> String {
    let o = checked_spawn(cmd);
    assert!(o.status.success(), "{cmd:?}: {}", text(&o));
    String::from_utf8(o.stdout).unwrap()
}

fn checked_spawn(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("this test needs the git command line ({e}): install git"))
}
