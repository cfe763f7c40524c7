//! The archive's write lock: the file `ravenpost.lock` in the git directory, held with an
//! advisory lock of the operating system (`flock`, [`std::fs::File::try_lock`]) that
//! serialises local writers' read-check-write sequences.
//!
//! **Who holds it.** The kernel drops an advisory lock when its process ends, however it
//! ends (`kill -9` included), so a lock file that nobody holds is the leftover of a dead
//! writer and is taken over at once. While held, the file names its owner: process id,
//! the process's start time (ticks after boot, with the boot's id, where `/proc` tells)
//! and host. A waiter that cannot take the lock within
//! [`ArchiveOptions::lock_timeout`](super::ArchiveOptions) is told who holds it
//! ([`ArchiveError::Locked`]).
//!
//! **What it was doing.** The owner notes each step of a write in the file (a small
//! journal: the step, the branch, the file, the expected tip and the new commit) before
//! it takes that step. A writer taking over a dead owner's lock gets that journal back
//! ([`Acquired::interrupted`]) and finishes or undoes what was left half done (see
//! `Archive::recover` in `write.rs`): the ref lock or index lock the dead writer held,
//! its temporary file, the working copy and index entry of a commit already made.
//!
//! **Release.** The file is removed while still locked, then closed. A waiter that had
//! opened the removed file gets its lock, sees that the path no longer names the file it
//! holds (another inode, or none) and tries again, as git does with `index.lock`.
//!
//! **Older ravenpost.** ravenpost 0.1.0 made the file with `create_new` and no advisory
//! lock, writing one line `pid N on HOST`. Such a file is judged as 0.1.0 did: waited
//! for while young and its holder may be running, reported as stale
//! ([`ArchiveError::StaleLock`]) when older than
//! [`ArchiveOptions::stale_lock_after`](super::ArchiveOptions) or when its holder is
//! known to be dead, and removed when
//! [`ArchiveOptions::break_locks_older_than`](super::ArchiveOptions) allows (the
//! `--break-lock` option).
//!
//! On a file system without advisory locks the lock falls back to that 0.1.0 scheme.
//! Either way the compare-and-swap on the branch ref is what guarantees that no commit
//! is lost.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::{ArchiveError, ArchiveOptions};

/// The lock file's name in the git directory.
pub(crate) const LOCK_FILE: &str = "ravenpost.lock";

/// The first line of a lock file written with an advisory lock.
const HEADER: &str = "ravenpost lock v2";

/// A held lock file, removed on drop.
#[derive(Debug)]
pub(crate) struct LockFile {
    path: PathBuf,
    /// The open, advisory-locked file (`None`: the 0.1.0 scheme, the file's existence is
    /// the lock).
    file: Option<File>,
    /// The owner lines, written first on every note.
    owner: String,
    /// Leave the file (and its journal) behind on release, for the next taker to recover.
    keep: bool,
}

/// A write step as noted in the lock file's journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Journal {
    /// The step about to be taken: `objects` (none yet: the commit is made), `ref`,
    /// `worktree`, `index` or `done` (all taken).
    pub step: String,
    /// The branch, e.g. `refs/heads/main`.
    pub refname: String,
    /// The file being written.
    pub path: String,
    /// The tip the commit was made on (hex; `-` for an unborn branch).
    pub expected: String,
    /// The new commit (hex).
    pub new: String,
}

impl Journal {
    /// The journal of a write of `path` on `refname` at `step`: commit `new`, made on
    /// `expected` (`None`: an unborn branch).
    pub(crate) fn of(
        step: &str,
        refname: &str,
        path: &str,
        expected: Option<super::CommitId>,
        new: git2::Oid,
    ) -> Journal {
        Journal {
            step: step.to_string(),
            refname: refname.to_string(),
            path: path.to_string(),
            expected: expected.map_or_else(|| "-".to_string(), |c| c.hex()),
            new: new.to_string(),
        }
    }

    fn line(&self) -> String {
        format!("step {} {} {} {} {}\n", self.step, self.refname, self.expected, self.new, self.path)
    }

    fn parse(line: &str) -> Option<Journal> {
        let rest = line.strip_prefix("step ")?;
        let mut parts = rest.splitn(5, ' ');
        let step = parts.next()?.to_string();
        let refname = parts.next()?.to_string();
        let expected = parts.next()?.to_string();
        let new = parts.next()?.to_string();
        let path = parts.next()?.trim_end().to_string();
        Some(Journal { step, refname, path, expected, new })
    }
}

/// What [`acquire`] got: the lock, and the journal of a dead owner it took over from.
#[derive(Debug)]
pub(crate) struct Acquired {
    /// The lock.
    pub lock: LockFile,
    /// The last step the previous owner noted before it died, if it died mid-write.
    pub interrupted: Option<Journal>,
}

impl LockFile {
    /// Notes in the lock file that the write is about to take `journal`'s step (only
    /// with an advisory lock: a 0.1.0-style lock keeps its one line).
    pub(crate) fn note(&self, journal: &Journal) {
        if let Some(f) = &self.file {
            // Best effort: a journal that cannot be written only makes recovery coarser.
            let _ = rewrite(f, &format!("{}{}", self.owner, journal.line()));
        }
    }
}

impl LockFile {
    /// Clears the journal of the dead owner this lock was taken over from, once its write
    /// has been recovered.
    pub(crate) fn recovered(&self) {
        if let Some(f) = &self.file {
            let _ = rewrite(f, &self.owner);
        }
    }

    /// Leaves the file and its journal behind on release (only with an advisory lock,
    /// where a file nobody holds is taken over at once).
    pub(crate) fn keep(&mut self) {
        self.keep = self.file.is_some();
    }
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // Removed while still locked; the advisory lock goes with the file handle.
        if !self.keep {
            let _ = fs::remove_file(&self.path);
        }
        self.file.take();
    }
}

/// Replaces the lock file's text with `text` so that a process killed at any moment
/// leaves either text whole: the new text is written over the old one in one write, and
/// only then is the file cut to its length. Until it is cut, what follows the new text
/// is the old text's tail; [`Journal`]s are read from the first step line, which is the
/// new one. (Emptying the file first, as this once did, left a window where a killed
/// writer's journal was lost and its half-done write was never recovered: the index
/// stayed one move behind the branch.)
fn rewrite(f: &File, text: &str) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        f.write_all_at(text.as_bytes(), 0)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = f;
        f.seek(SeekFrom::Start(0))?;
        f.write_all(text.as_bytes())?;
    }
    f.set_len(text.len() as u64)
}

fn age_of(path: &Path) -> Option<Duration> {
    let modified = fs::metadata(path).ok()?.modified().ok()?;
    Some(SystemTime::now().duration_since(modified).unwrap_or(Duration::ZERO))
}

/// The holder as a lock file's text names it, for messages: `pid N on HOST` (and when
/// the process started, for a v2 file).
fn holder_in(text: &str) -> String {
    if let Some(rest) = text.strip_prefix(HEADER) {
        let field =
            |name: &str| rest.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()));
        return match (field("pid "), field("host ")) {
            (Some(pid), Some(host)) => match field("started ") {
                Some(started) => format!("pid {pid} on {host}, started {started}"),
                None => format!("pid {pid} on {host}"),
            },
            _ => "holder unknown".to_string(),
        };
    }
    match text.lines().next().map(str::trim) {
        Some(line) if !line.is_empty() => line.to_string(),
        _ => "holder unknown".to_string(),
    }
}

/// This process as a v2 lock file names its owner.
fn owner_lines() -> String {
    let mut s = format!("{HEADER}\npid {}\n", std::process::id());
    if let Some(started) = process_start(std::process::id()) {
        s.push_str(&format!("started {started}\n"));
    }
    s.push_str(&format!("host {}\n", hostname()));
    s
}

/// When process `pid` started, as `/proc` tells it: `<ticks after boot> ticks after boot
/// <boot id>`; `None` where there is no `/proc`.
fn process_start(pid: u32) -> Option<String> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count the fields after its `)`.
    let after = &stat[stat.rfind(')')? + 1..];
    let ticks = after.split_whitespace().nth(19)?;
    let boot = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    Some(format!("{ticks} ticks after boot {}", boot.trim()))
}

/// Whether `a` and `b` are the same file (Unix: device and inode).
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        true
    }
}

/// The step a v2 lock file's text names: its first step line (after a kill between
/// [`rewrite`]'s write and its cut, the old text's tail follows it).
fn journal_in(text: &str) -> Option<Journal> {
    text.lines().find_map(Journal::parse)
}

/// What a try at the lock found.
enum Try {
    Got(Acquired),
    /// Someone holds it (what the file says about them, its age).
    Held(String, Duration),
    /// Try again at once (the file changed under us).
    Again,
    /// No advisory locks here: use the 0.1.0 scheme.
    Unsupported,
}

fn try_once(path: &Path, options: &ArchiveOptions) -> Result<Try, ArchiveError> {
    let mut f = match OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path) {
        Ok(f) => f,
        Err(e) => return Err(ArchiveError::io("open lock file", path, e)),
    };
    match f.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = f.read_to_string(&mut text);
            return Ok(Try::Held(holder_in(&text), age_of(path).unwrap_or(Duration::ZERO)));
        }
        Err(TryLockError::Error(e)) if e.kind() == ErrorKind::Unsupported => return Ok(Try::Unsupported),
        Err(TryLockError::Error(e)) => return Err(ArchiveError::io("lock", path, e)),
    }
    // Locked; but a holder may have removed the file (its release) since we opened it.
    let ours = f.metadata().map_err(|e| ArchiveError::io("read lock file", path, e))?;
    match fs::metadata(path) {
        Ok(now) if same_file(&ours, &now) => {}
        Ok(_) => return Ok(Try::Again),
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Try::Again),
        Err(e) => return Err(ArchiveError::io("read lock file", path, e)),
    }
    let mut text = String::new();
    let _ = f.read_to_string(&mut text);
    let interrupted = if text.starts_with(HEADER) {
        // A v2 file nobody holds: its owner died. Its last step, if it was mid-write.
        journal_in(&text)
    } else if text.trim().is_empty() {
        None
    } else {
        // Written by ravenpost 0.1.0, which holds no advisory lock: judge it as 0.1.0 did.
        let age = age_of(path).unwrap_or(Duration::ZERO);
        let holder = holder_in(&text);
        let breakable = options.break_locks_older_than.is_some_and(|limit| age >= limit);
        if !breakable {
            if age >= options.stale_lock_after {
                return Err(ArchiveError::StaleLock { path: path.to_path_buf(), age, holder });
            }
            if holder_alive(&holder) == Some(false) {
                let holder = format!("{holder}, no longer running");
                return Err(ArchiveError::StaleLock { path: path.to_path_buf(), age, holder });
            }
            return Ok(Try::Held(holder, age));
        }
        None
    };
    let owner = owner_lines();
    // The dead owner's step stays in the file until its write is recovered
    // ([`LockFile::recovered`]): a taker killed while recovering leaves it to the next.
    let text = match &interrupted {
        Some(j) => format!("{owner}{}", j.line()),
        None => owner.clone(),
    };
    rewrite(&f, &text).map_err(|e| ArchiveError::io("write lock file", path, e))?;
    let lock = LockFile { path: path.to_path_buf(), file: Some(f), owner, keep: false };
    Ok(Try::Got(Acquired { lock, interrupted }))
}

/// Takes the lock at `path`, waiting up to `options.lock_timeout` for another holder.
pub(crate) fn acquire(path: &Path, options: &ArchiveOptions) -> Result<Acquired, ArchiveError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let (holder, age) = match try_once(path, options)? {
            Try::Got(a) => return Ok(a),
            Try::Again => continue,
            Try::Held(holder, age) => (holder, age),
            Try::Unsupported => {
                let lock = acquire_by_creation(path, options)?;
                return Ok(Acquired { lock, interrupted: None });
            }
        };
        let waited = start.elapsed();
        if waited >= options.lock_timeout {
            return Err(ArchiveError::Locked { path: path.to_path_buf(), age, holder, waited });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Takes the lock without an advisory lock (ravenpost 0.1.0's scheme, for file systems
/// without one): the file made with `create_new` is the lock.
fn acquire_by_creation(path: &Path, options: &ArchiveOptions) -> Result<LockFile, ArchiveError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match OpenOptions::new().write(true).create_new(true).open(path) {
            Ok(mut f) => {
                let lock =
                    LockFile { path: path.to_path_buf(), file: None, owner: String::new(), keep: false };
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
        let holder = holder_in(&fs::read_to_string(path).unwrap_or_default());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_line_reads_back() {
        let j = Journal {
            step: "worktree".into(),
            refname: "refs/heads/main".into(),
            path: "games/gygax/a b.pgn".into(),
            expected: "-".into(),
            new: "0123".into(),
        };
        assert_eq!(Journal::parse(&j.line()), Some(j));
    }

    /// Regression (issue 29): a note emptied the file before writing the new step, and a
    /// kill between the two left no step at all. Now the new text is written over the old
    /// and the file cut after: a kill before the cut leaves the old text's tail behind
    /// the new step, which is the one read.
    #[cfg(unix)]
    #[test]
    fn a_note_killed_before_the_file_was_cut_still_names_its_step() {
        let step = |s: &str| Journal {
            step: s.into(),
            refname: "refs/heads/main".into(),
            path: "games/grand/a-much-longer-name-than-the-next.pgn".into(),
            expected: "-".into(),
            new: "0123".into(),
        };
        let (worktree, index) = (step("worktree"), Journal { path: "g.pgn".into(), ..step("index") });
        let old = format!("{}{}", owner_lines(), worktree.line());
        let new = format!("{}{}", owner_lines(), index.line());
        let dir = tempfile::tempdir().unwrap();
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(dir.path().join("l"))
            .unwrap();
        rewrite(&f, &old).unwrap();
        // The write over the old text, without the cut.
        std::os::unix::fs::FileExt::write_all_at(&f, new.as_bytes(), 0).unwrap();
        let torn = fs::read_to_string(dir.path().join("l")).unwrap();
        assert!(torn.len() > new.len());
        assert_eq!(journal_in(&torn), Some(index.clone()));
        rewrite(&f, &new).unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("l")).unwrap(), new);
        assert_eq!(journal_in(&owner_lines()), None);
    }

    #[test]
    fn the_owner_names_this_process() {
        let text = owner_lines();
        let holder = holder_in(&text);
        assert!(holder.starts_with(&format!("pid {} on {}", std::process::id(), hostname())), "{holder}");
        assert_eq!(holder_in("pid 4242 on elsewhere\n"), "pid 4242 on elsewhere");
    }
}
