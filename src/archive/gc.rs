//! Packing loose objects, as git does after its own commands.
//!
//! ravenpost writes its objects with libgit2, which stores every blob, tree and commit as
//! a loose file: an archive of 26,000 moves would hold some 80,000 of them (hundreds of
//! megabytes) where a pack takes a few. git packs after its own commands with
//! `git gc --auto`; ravenpost does the same after each of its writes
//! ([`Archive::pack_if_needed`]), with git's own estimate: the loose objects in
//! `objects/17/` times 256, against `gc.auto` (default 6700; `0` or less turns automatic
//! packing off). The check reads one directory, so a write pays microseconds for it; only
//! when the estimate is over does ravenpost run `git gc --auto --quiet`, git's own tool,
//! which decides again, honours all of git's settings (`gc.autoDetach` lets it pack in the
//! background) and leaves a repository `git fsck` finds clean. Without `git` on `PATH`,
//! or when it fails, nothing happens and nothing is said: packing is housekeeping, never
//! a reason for a move to fail.

use std::fs;
use std::process::{Command, Stdio};

use super::Archive;

/// git's default `gc.auto`.
const DEFAULT_GC_AUTO: i64 = 6700;

impl Archive {
    /// Whether git's `gc --auto` estimate finds too many loose objects: more than
    /// `(gc.auto + 255) / 256` in `objects/17/`. Always `false` when `gc.auto` is 0 or
    /// less.
    pub fn too_many_loose_objects(&self) -> bool {
        let limit = self.repo.config().and_then(|c| c.get_i64("gc.auto")).unwrap_or(DEFAULT_GC_AUTO);
        if limit <= 0 {
            return false;
        }
        let per_dir = usize::try_from(limit.saturating_add(255) / 256).unwrap_or(usize::MAX);
        let dir = self.repo.commondir().join("objects").join("17");
        let Ok(entries) = fs::read_dir(dir) else { return false };
        let loose = entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.as_encoded_bytes();
                name.len() == 38 && name.iter().all(u8::is_ascii_hexdigit)
            })
            .take(per_dir + 1)
            .count();
        loose > per_dir
    }

    /// Runs `git gc --auto --quiet` in the repository when
    /// [`Archive::too_many_loose_objects`]; see the [module docs](super::gc). Returns
    /// whether git ran and succeeded. Never fails.
    pub fn pack_if_needed(&self) -> bool {
        if !self.too_many_loose_objects() {
            return false;
        }
        Command::new("git")
            .arg("--git-dir")
            .arg(self.repo.commondir())
            .args(["gc", "--auto", "--quiet"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }
}
