//! Which archive a command uses when none is named: [`default_archive`].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::{Archive, ArchiveError, Timestamp};

/// The environment variable naming the default archive's directory.
pub const RAVENPOST_ARCHIVE: &str = "RAVENPOST_ARCHIVE";

/// Where [`default_archive`] found the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArchiveSource {
    /// The directory named by `RAVENPOST_ARCHIVE`.
    EnvVar(PathBuf),
    /// The git repository containing the current directory.
    CurrentRepository(PathBuf),
    /// The per-user archive in the platform data directory.
    UserDataDir(PathBuf),
}

/// Opens the default archive, creating it if needed:
///
/// 1. `env_archive` (the value of `RAVENPOST_ARCHIVE`), if set and not empty: that
///    directory, relative to `cwd` if relative. It is created as an archive if it does
///    not exist or is empty; anything else there must already be an archive.
/// 2. Otherwise the git repository containing `cwd`, if it is an archive.
/// 3. Otherwise `<data_dir>/archive` (the platform's per-user data directory for
///    ravenpost, which the front end finds), created on first use.
///
/// `time` dates the first commit of an archive created here. The caller passes the
/// environment in, so tests need not touch the process's own.
///
/// # Errors
///
/// [`ArchiveError::NoDataDirectory`] when step 3 is reached without `data_dir`; the
/// errors of [`Archive::open`] and [`Archive::init`].
pub fn default_archive(
    env_archive: Option<&OsStr>,
    cwd: &Path,
    data_dir: Option<&Path>,
    time: Timestamp,
) -> Result<(Archive, ArchiveSource), ArchiveError> {
    if let Some(dir) = env_archive.filter(|v| !v.is_empty()) {
        let dir = cwd.join(dir);
        let archive = open_or_create(&dir, time)?;
        return Ok((archive, ArchiveSource::EnvVar(dir)));
    }
    if let Some(archive) = Archive::discover(cwd)? {
        let dir = archive.dir().to_path_buf();
        return Ok((archive, ArchiveSource::CurrentRepository(dir)));
    }
    let dir = data_dir.ok_or(ArchiveError::NoDataDirectory)?.join("archive");
    let archive = open_or_create(&dir, time)?;
    Ok((archive, ArchiveSource::UserDataDir(dir)))
}

/// Opens the archive at `dir`, or creates it there if `dir` is missing or empty.
fn open_or_create(dir: &Path, time: Timestamp) -> Result<Archive, ArchiveError> {
    let empty = match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => return Err(ArchiveError::io("read directory", dir, e)),
    };
    if empty { Archive::init(dir, None, time) } else { Archive::open(dir) }
}
