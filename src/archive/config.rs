//! `ravenpost.yaml`, the archive's own settings, at the root of the archive.
//!
//! ```yaml
//! version: 1
//! site: ravenpost
//! time-control: 1/3d
//! author:
//!   name: Ann Example
//!   email: ann@example.com
//! diagrams: every-move
//! ```
//!
//! Unknown keys are refused (a typo would otherwise be silently ignored); a `version`
//! newer than this ravenpost knows is refused with its own message.

use serde::{Deserialize, Serialize};

use super::{ArchiveError, Identity};

/// The archive settings stored in `ravenpost.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ArchiveConfig {
    /// The format version of this file; [`ArchiveConfig::VERSION`] for files this ravenpost
    /// writes.
    pub version: u32,
    /// The default `Site` tag of new games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// The default `Event` tag of new games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The default `TimeControl` tag of new games, e.g. `1/3d` (not checked here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// The identity commits are made under when the caller names none; when absent, git's
    /// `user.name` and `user.email`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Identity>,
    /// Board diagrams written into game files as `;|` comment lines (default: none).
    #[serde(default, skip_serializing_if = "Diagrams::is_none")]
    pub diagrams: Diagrams,
}

/// Which board diagrams `ravenpost move` writes into the game file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Diagrams {
    /// None (`diagrams: none`, the default).
    #[default]
    None,
    /// After every move, the plain diagram of the new position (`diagrams: every-move`).
    EveryMove,
}

impl Diagrams {
    /// Whether this is [`Diagrams::None`].
    pub fn is_none(&self) -> bool {
        *self == Diagrams::None
    }
}

impl Default for ArchiveConfig {
    fn default() -> ArchiveConfig {
        ArchiveConfig {
            version: ArchiveConfig::VERSION,
            site: Some("ravenpost".to_string()),
            event: None,
            time_control: None,
            author: None,
            diagrams: Diagrams::None,
        }
    }
}

impl ArchiveConfig {
    /// The config file's path in the archive.
    pub const PATH: &'static str = "ravenpost.yaml";
    /// The newest format version this ravenpost reads, and the one it writes.
    pub const VERSION: u32 = 1;

    /// Reads the file's text.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Config`] for YAML that does not fit, or a version that is missing,
    /// 0 or newer than [`ArchiveConfig::VERSION`].
    pub fn from_yaml(text: &str) -> Result<ArchiveConfig, ArchiveError> {
        let err = |message: String| ArchiveError::Config { path: Self::PATH.to_string(), message };
        // The version first, so a newer file gets "upgrade" rather than "unknown key".
        let probe: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
        match probe.get("version").and_then(serde_yaml_ng::Value::as_u64) {
            None => return Err(err("no `version` (expected `version: 1`)".to_string())),
            Some(v) if v == 0 || v > u64::from(Self::VERSION) => {
                return Err(err(format!(
                    "format version {v}, this ravenpost reads up to version {} (upgrade ravenpost)",
                    Self::VERSION
                )));
            }
            Some(_) => {}
        }
        let config: ArchiveConfig = serde_yaml_ng::from_value(probe).map_err(|e| err(e.to_string()))?;
        if let Some(a) = &config.author {
            a.validate().map_err(|e| err(format!("author: {e}")))?;
        }
        Ok(config)
    }

    /// The file's text.
    pub fn to_yaml(&self) -> String {
        serde_yaml_ng::to_string(self).expect("a struct of strings serialises")
    }
}
