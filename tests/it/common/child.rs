//! Tests that need a second process run themselves again: [`again`] starts the current
//! test binary with only the named test selected and [`CHILD`] set, and the test begins
//! with `if let Some(role) = child() { …; return; }`. No `#[ignore]`d helper test is
//! needed, so none can pass by being run alone.

use std::process::Command;

/// The environment variable that marks a child run; its value is the child's role.
pub const CHILD: &str = "RAVENPOST_TEST_CHILD";

/// The role this process was started with by [`again`], if it is a child.
pub fn child() -> Option<String> {
    std::env::var(CHILD).ok()
}

/// The current test binary, running only the test `test` (exactly: its path in the binary,
/// `archive_store::racing_processes_lose_no_commit`), as a child with the role `role`.
pub fn again(test: &str, role: &str) -> Command {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"]).env(CHILD, role);
    cmd
}
