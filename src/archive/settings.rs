//! The player's own settings: a YAML file in the per-user config directory (on Linux
//! `$XDG_CONFIG_HOME/ravenpost/config.yaml`, else `~/.config/ravenpost/config.yaml`; on
//! macOS `~/Library/Application Support/ravenpost/config.yaml`), or the file named by
//! `$RAVENPOST_CONFIG` ([`CONFIG_ENV`]).
//!
//! ```yaml
//! version: 1
//! identity:                  # who you commit as (default: git's user.name/user.email)
//!   name: Ann Example
//!   email: ann@example.com
//! archive: ~/chess/club      # the archive used outside any archive's repository
//! signing-key: ~/.ssh/id_ed25519.pub   # default: git's user.signingKey
//! mail:                      # how `ravenpost mail send` delivers, as in ravenpost.yaml
//!   smtp:
//!     host: smtp.example.com
//!     user: ann              # the password comes from $RAVENPOST_SMTP_PASSWORD
//! ```
//!
//! What is personal lives here; what the archive's players share (site, event, time
//! control, diagrams, admins, accounts, a club's mail server) stays in the archive's
//! committed `ravenpost.yaml` ([`super::ArchiveConfig`]). Where both can say a thing,
//! the command line wins, then this file, then `ravenpost.yaml`, then git's config:
//!
//! | setting | order |
//! | --- | --- |
//! | identity | `--author` > `identity` here > `author` in ravenpost.yaml > git's `user.name`/`user.email` |
//! | mail transport | `--smtp`/`--sendmail` flags > `mail` here (the whole section) > `mail` in ravenpost.yaml |
//! | archive | `--archive` > `$RAVENPOST_ARCHIVE` > the archive repository you are in > `archive` here > the per-user data archive |
//! | signing key | `--signing-key` > `signing-key` here > git's `user.signingKey` |
//!
//! Unknown keys are refused with the file's name, as in `ravenpost.yaml`; `~/` at the
//! start of a path is the home directory, and a relative path is read from the file's
//! own directory.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ArchiveError, Identity, MailConfig};

/// The environment variable naming the user settings file (instead of the per-user
/// config directory's `config.yaml`).
pub const CONFIG_ENV: &str = "RAVENPOST_CONFIG";

/// The file name in the per-user config directory.
pub const FILE_NAME: &str = "config.yaml";

/// The player's own settings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct UserSettings {
    /// The format version of this file (1; absent: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// Who commits: the default of `--author`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// The archive used when none is named and the current directory is in none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<PathBuf>,
    /// The SSH key that signs moves where a game requires it: the default of
    /// `--signing-key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_key: Option<String>,
    /// How `mail send` delivers, over `ravenpost.yaml`'s `mail` section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<MailConfig>,
}

impl UserSettings {
    /// The newest format version this ravenpost reads.
    pub const VERSION: u32 = 1;

    /// Where the settings are read from: `config_env` (the value of `$RAVENPOST_CONFIG`)
    /// if set and not empty, else `config.yaml` in `config_dir`, the per-user config
    /// directory the front end found (`None` without a home directory).
    pub fn path_from(config_env: Option<&OsStr>, config_dir: Option<&Path>) -> Option<PathBuf> {
        match config_env.filter(|v| !v.is_empty()) {
            Some(p) => Some(PathBuf::from(p)),
            None => config_dir.map(|d| d.join(FILE_NAME)),
        }
    }

    /// Reads the settings from `path` ([`UserSettings::path_from`] `config_env`, the value
    /// of `$RAVENPOST_CONFIG`); the defaults (nothing set) when the per-user file does not
    /// exist.
    ///
    /// # Errors
    /// [`ArchiveError::UserSettings`]: a file that cannot be read or parsed, or one named
    /// by `$RAVENPOST_CONFIG` that does not exist.
    /// A `~/` in its paths is `home`.
    pub fn load_from(
        path: Option<&Path>,
        config_env: Option<&OsStr>,
        home: Option<&Path>,
    ) -> Result<UserSettings, ArchiveError> {
        let Some(path) = path.map(Path::to_path_buf) else { return Ok(UserSettings::default()) };
        let named = config_env.is_some_and(|v| !v.is_empty());
        match read_settings_file(&path) {
            Ok(text) => UserSettings::from_yaml(&text, &path, home),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !named => Ok(UserSettings::default()),
            Err(e) => Err(ArchiveError::UserSettings {
                message: if named { format!("{e} (named by ${CONFIG_ENV})") } else { e.to_string() },
                path,
            }),
        }
    }

    /// Reads settings from `text`, the file at `path` (for messages, and the directory
    /// relative paths are read from); a path starting `~/` is in `home`.
    ///
    /// # Errors
    /// [`ArchiveError::UserSettings`] for YAML that is not settings (with the line and
    /// column), a newer version, or an identity git cannot record.
    pub fn from_yaml(text: &str, path: &Path, home: Option<&Path>) -> Result<UserSettings, ArchiveError> {
        let fail = |message: String| ArchiveError::UserSettings { path: path.to_path_buf(), message };
        let mut s: UserSettings = if text.trim().is_empty() {
            UserSettings::default()
        } else {
            serde_yaml_ng::from_str(text).map_err(|e| fail(e.to_string()))?
        };
        if let Some(v) = s.version.filter(|v| *v > Self::VERSION) {
            return Err(fail(format!(
                "format version {v}, this ravenpost reads up to version {} (upgrade ravenpost)",
                Self::VERSION
            )));
        }
        if let Some(id) = &s.identity {
            id.validate().map_err(|e| fail(format!("identity: {e}")))?;
        }
        let base = path.parent().unwrap_or(Path::new("."));
        s.archive = s.archive.map(|a| resolve(&a, base, home));
        s.signing_key = s.signing_key.map(|k| {
            // A key line (`ssh-ed25519 AAAA…`) stays as it is; a path is resolved.
            if k.starts_with("ssh-") || k.starts_with("ecdsa-") || k.starts_with("sk-") {
                k
            } else {
                resolve(Path::new(&k), base, home).to_string_lossy().into_owned()
            }
        });
        Ok(s)
    }
}

/// `p` with a leading `~/` made `home`, and a relative path made relative to `base`.
fn resolve(p: &Path, base: &Path, home: Option<&Path>) -> PathBuf {
    if let Ok(rest) = p.strip_prefix("~")
        && let Some(home) = home
    {
        return home.join(rest);
    }
    if p.is_absolute() { p.to_path_buf() } else { base.join(p) }
}

/// The largest settings file read: far above any real one (a few hundred bytes).
const SETTINGS_FILE_LIMIT: u64 = 1 << 20;

/// The text of the settings file at `path` (a link to one is followed), refused when it
/// is no regular file (a device such as `/dev/zero`, a pipe, a folder) or larger than
/// [`SETTINGS_FILE_LIMIT`]: never read without bound.
fn read_settings_file(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(SETTINGS_FILE_LIMIT + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > SETTINGS_FILE_LIMIT {
        return Err(std::io::Error::other(format!("larger than {} KiB", SETTINGS_FILE_LIMIT >> 10)));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_with_paths_resolved() {
        let text = "identity:\n  name: Zoë Ünal\n  email: zoe@example.org\narchive: club\nsigning-key: keys/id.pub\n\
                    mail:\n  sendmail: /usr/sbin/sendmail\n";
        let s =
            UserSettings::from_yaml(text, Path::new("/home/z/.config/ravenpost/config.yaml"), None).unwrap();
        assert_eq!(s.identity, Some(Identity::new("Zoë Ünal", "zoe@example.org")));
        assert_eq!(s.archive, Some(PathBuf::from("/home/z/.config/ravenpost/club")));
        assert_eq!(s.signing_key.as_deref(), Some("/home/z/.config/ravenpost/keys/id.pub"));
        assert_eq!(s.mail.unwrap().sendmail.as_deref(), Some("/usr/sbin/sendmail"));
        let s =
            UserSettings::from_yaml("signing-key: ssh-ed25519 AAAA x\n", Path::new("/c.yaml"), None).unwrap();
        assert_eq!(s.signing_key.as_deref(), Some("ssh-ed25519 AAAA x"));
        assert_eq!(UserSettings::from_yaml("", Path::new("/c.yaml"), None).unwrap(), UserSettings::default());
    }

    #[test]
    fn bad_settings_say_which_file_and_where() {
        let e = UserSettings::from_yaml("version: 1\nidentiy:\n  name: x\n", Path::new("/c.yaml"), None)
            .unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("/c.yaml: unknown field `identiy`"), "{m}");
        assert!(m.contains("line 2"), "{m}");
        let e = UserSettings::from_yaml("version: 2\n", Path::new("/c.yaml"), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/c.yaml: format version 2, this ravenpost reads up to version 1 (upgrade ravenpost)"
        );
        let e =
            UserSettings::from_yaml("identity:\n  name: A <a>\n  email: a@b\n", Path::new("/c.yaml"), None)
                .unwrap_err();
        assert!(e.to_string().starts_with("/c.yaml: identity: "), "{e}");
    }
}
