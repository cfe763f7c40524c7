//! The one place the command line reads the environment for the commands below it: it
//! builds the run's [`Session`] (archive, identity, signing key, settings, clock, pusher)
//! once, and every command gets it as an argument.

use std::path::PathBuf;

use super::Failure;
use crate::archive::settings::{CONFIG_ENV, UserSettings};
use crate::usecases::{self as ops, Clock, Session};

/// The variable that fixes the clock (Unix seconds, UTC): reproducible archives and tests.
pub(crate) const TIME_ENV: &str = "RAVENPOST_TIME";

/// The session of this run: the global options (`--archive`, `--author`, `--signing-key`,
/// `--break-lock`) over the user's settings file and the environment (`RAVENPOST_ARCHIVE`,
/// `RAVENPOST_CONFIG`, `RAVENPOST_TIME`, `HOME`, the pusher variables of a git server, the
/// SMTP password's variable).
///
/// # Errors
/// A settings file that cannot be read, or an `--author` that is no identity (exit 2).
pub(crate) fn from_env(
    archive: Option<PathBuf>,
    author: Option<String>,
    signing_key: Option<String>,
    break_lock: bool,
) -> Result<Session, Failure> {
    // The user's own settings: defaults below the command line's (archive::settings).
    let config_env = std::env::var_os(CONFIG_ENV);
    let dirs = directories::ProjectDirs::from("", "", "ravenpost");
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let settings_path = UserSettings::path_from(config_env.as_deref(), dirs.as_ref().map(|d| d.config_dir()));
    let settings = UserSettings::load_from(settings_path.as_deref(), config_env.as_deref(), home.as_deref())
        .map_err(|e| Failure::input(e.to_string()))?;
    let identity = match author {
        None => settings.identity.clone(),
        Some(a) => Some(a.parse().map_err(|e| Failure::input(format!("--author: {e}")))?),
    };
    Ok(Session {
        archive,
        archive_env: std::env::var_os(crate::archive::RAVENPOST_ARCHIVE),
        data_dir: platform_data_dir(dirs.as_ref()),
        home,
        cwd: std::env::current_dir().map_err(|e| Failure::input(format!("current directory: {e}")))?,
        git_env: std::env::var_os("GIT_DIR").is_some(),
        identity,
        signing_key: signing_key.or_else(|| settings.signing_key.clone()),
        break_lock,
        settings,
        settings_path,
        clock: Clock::from_env_value(std::env::var(TIME_ENV).ok().as_deref()),
        pusher: ops::pusher_from(|v| std::env::var(v).ok()),
        secret: |v| std::env::var(v).ok(),
    })
}

/// The platform's per-user data directory for ravenpost (e.g. `$XDG_DATA_HOME/ravenpost`
/// or `~/.local/share/ravenpost` on Linux, `~/Library/Application Support/ravenpost` on
/// macOS); `None` without a home directory.
pub fn platform_data_dir(dirs: Option<&directories::ProjectDirs>) -> Option<PathBuf> {
    dirs.map(|d| d.data_dir().to_path_buf())
}
