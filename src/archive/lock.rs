//! The archive's write lock: a file `ravenpost.lock` in the git directory, created with
//! `create_new`, that serialises local writers' read-check-write sequences.
//!
//! The lock is a courtesy among ravenpost processes: the compare-and-swap on the branch
//! ref is what guarantees that no commit is lost. A lock older than
//! [`ArchiveOptions::stale_lock_after`](super::ArchiveOptions) is reported as stale (its
//! holder has probably crashed) rather than waited for, and so is one whose holder is a
//! process on this host that is no longer running (where `/proc` tells).
//!
//! Breaking a lock ([`ArchiveOptions::break_locks_older_than`](super::ArchiveOptions))
//! is not race-free: two writers breaking the same stale lock at once may both go ahead.
//! The branch's compare-and-swap still keeps every commit.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::{ArchiveError, ArchiveOptions};

/// The lock file's name in the git directory.
pub(crate) const LOCK_FILE: &str = "ravenpost.lock";

/// A held lock file, removed on drop.
#[derive(Debug)]
pub(crate) struct LockFile {
    path: PathBuf,
}

impl Drop for LockFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn age_of(path: &Path) -> Option<Duration> {
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    Some(SystemTime::now().duration_since(modified).unwrap_or(Duration::ZERO))
}

fn holder_of(path: &Path) -> String {
    match fs::read_to_string(path) {
        Ok(s) if !s.trim().is_empty() => s.lines().next().unwrap_or_default().trim().to_string(),
        _ => "holder unknown".to_string(),
    }
}

/// Takes the lock at `path`, waiting up to `options.lock_timeout` for another holder.
pub(crate) fn acquire(path: &Path, options: &ArchiveOptions) -> Result<LockFile, ArchiveError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(mut f) => {
                let lock = LockFile { path: path.to_path_buf() };
                let text = format!("pid {} on {}\n", std::process::id(), hostname());
                f.write_all(text.as_bytes()).map_err(|e| ArchiveError::io("write lock file", path, e))?;
                return Ok(lock);
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(ArchiveError::io("create lock file", path, e)),
        }
        // Held by someone. The file may vanish between our attempt and these reads.
        let Some(age) = age_of(path) else { continue };
        if let Some(limit) = options.break_locks_older_than
            && age >= limit
        {
            match fs::remove_file(path) {
                Ok(()) => continue,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(ArchiveError::io("remove stale lock file", path, e)),
            }
        }
        let holder = holder_of(path);
        if age >= options.stale_lock_after {
            return Err(ArchiveError::StaleLock { path: path.to_path_buf(), age, holder });
        }
        if holder_alive(&holder) == Some(false) {
            let holder = format!("{holder}, no longer running");
            return Err(ArchiveError::StaleLock { path: path.to_path_buf(), age, holder });
        }
        let waited = start.elapsed();
        if waited >= options.lock_timeout {
            return Err(ArchiveError::Locked { path: path.to_path_buf(), age, holder, waited });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Whether the process named by a lock's `pid N on HOST` line is still running, where
/// that can be told (this host, a `/proc` file system); `None` otherwise.
fn holder_alive(holder: &str) -> Option<bool> {
    let (pid, host) = holder.strip_prefix("pid ")?.split_once(" on ")?;
    let pid: u32 = pid.parse().ok()?;
    if host != hostname() || !Path::new("/proc/self").exists() {
        return None;
    }
    Some(Path::new("/proc").join(pid.to_string()).exists())
}

fn hostname() -> String {
    fs::read_to_string("/etc/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_else(|| "this machine".to_string())
}
