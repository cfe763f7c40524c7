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
//! layout: fan-out            # games/<variant>/<bucket>/<id>.pgn; absent: the flat
//!                            # games/<variant>/<id>.pgn of archives made before it
//! admins: [club-admin]       # git server accounts that may push the set-up: this file,
//!                            # new games and army choices (README "Running a club server")
//! accounts:                  # each player's git server accounts, for games without
//!   Ann Example: [ann]       # WhiteAccount/BlackAccount tags
//! players:                   # how each player plays, for the club's mails: `git` (a
//!   Bo Example:              # clone and `ravenpost sync`, the default), `mail` (replies
//!     email: bo@example.org  # to the referee mailbox, nothing installed), `web`
//!     plays-by: mail         # (`ravenpost serve`) or `bot` (a computer player whose
//!   Computer:                # moves the referee mailbox makes; never mailed, and no
//!     plays-by: bot          # mail acts for it); the address over the game's tags
//! club:
//!   referee: games@club.example.org   # the referee mailbox (`ravenpost mail serve`)
//!   web: https://chess.club.example.org  # where the club's `ravenpost serve` answers
//!   reminders: [3, 1]                 # `ravenpost notify`: days before a deadline
//!   digest: true                      # `ravenpost notify`: a daily "your games to move"
//! mail:                      # playing by email (issue 7): how `ravenpost mail send` delivers
//!   smtp:
//!     host: smtp.example.com
//!     port: 587              # default: 587 for starttls, 465 for tls, 25 for none
//!     security: starttls     # starttls (default), tls, or none
//!     user: ann              # optional; the password comes from $RAVENPOST_SMTP_PASSWORD
//!   # or, instead of smtp:  sendmail: /usr/sbin/sendmail
//! ```
//!
//! Unknown keys are refused (a typo would otherwise be silently ignored); a `version`
//! newer than this ravenpost knows is refused with its own message.

use serde::{Deserialize, Serialize};

use super::{ArchiveError, Identity};
pub use crate::referee::Layout;

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
    /// How `ravenpost mail send` delivers game messages (issue 7, item 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<MailConfig>,
    /// Where game and army choice files live ([`Layout`]): absent in archives made
    /// before the fan-out, which are [`Layout::Flat`]; `ravenpost init` writes `fan-out`.
    #[serde(default, skip_serializing_if = "Layout::is_flat")]
    pub layout: Layout,
    /// Board diagrams written into game files as `;|` comment lines (default: none).
    #[serde(default, skip_serializing_if = "Diagrams::is_none")]
    pub diagrams: Diagrams,
    /// The git server accounts that may push the archive's set-up commits (its first
    /// commit, new games, army choices), when the server names the pusher.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admins: Vec<String>,
    /// Player name → the git server accounts that may push that player's steps in games
    /// without `WhiteAccount`/`BlackAccount` tags.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub accounts: std::collections::BTreeMap<String, Vec<String>>,
    /// Player name → how that player plays and is mailed ([`PlayerSettings`]).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub players: std::collections::BTreeMap<String, PlayerSettings>,
    /// The club's shared addresses: its referee mailbox and its web server.
    #[serde(default, skip_serializing_if = "ClubSettings::is_empty")]
    pub club: ClubSettings,
    /// Branches other than the archive's own that the club's hook accepts pushes to (a
    /// name, or a prefix ending in `*`: `review/*`); by default none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<String>,
    /// How much outside input is taken (game file, message, file and ply limits); the
    /// defaults when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<crate::referee::limits::Limits>,
}

/// The `mail` section: how game messages are sent. Passwords are never stored here: they
/// come from an environment variable ([`SmtpConfig::password_env`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct MailConfig {
    /// An SMTP server to deliver through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smtp: Option<SmtpConfig>,
    /// A `sendmail`-compatible command to deliver through instead (it reads the message
    /// on standard input; called with `-i -f FROM -- TO`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sendmail: Option<String>,
}

/// How a player plays: what the club's mails tell them to do to answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlaysBy {
    /// From a clone of the archive: `ravenpost sync` (the default).
    #[default]
    Git,
    /// By mail only: a reply to the referee mailbox ([`ClubSettings::referee`]).
    Mail,
    /// In the browser, at the club's `ravenpost serve` ([`ClubSettings::web`]).
    Web,
    /// A computer player: the referee mailbox (`ravenpost mail serve`) makes its moves
    /// with the search of `ravenpost bot` as they become due. It is never mailed, no mail
    /// acts for it, whoever sends it, and the hook refuses a push of its steps.
    Bot,
}

impl PlaysBy {
    /// Whether this is the default, [`PlaysBy::Git`].
    pub fn is_git(&self) -> bool {
        *self == PlaysBy::Git
    }
}

/// One player's entry under `players:`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlayerSettings {
    /// The player's registered address: the club's mails go there, and the referee
    /// mailbox takes moves from it only. Over the game's `WhiteEmail`/`BlackEmail` tags.
    /// A computer player's is only the address its moves are committed under (default:
    /// the referee's): it is never mailed, and no mail from it is taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// How the player answers (default `git`).
    #[serde(default, skip_serializing_if = "PlaysBy::is_git")]
    pub plays_by: PlaysBy,
}

/// The `club:` section.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ClubSettings {
    /// The referee mailbox's address, which mail players reply to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referee: Option<String>,
    /// The address of the club's `ravenpost serve`, for web players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<String>,
    /// `ravenpost notify` reminds the player to move this many days before a deadline
    /// (each number once per move), e.g. `[3, 1]`; none when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reminders: Vec<u32>,
    /// `ravenpost notify` mails each player, once a day, the games waiting for their move.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub digest: bool,
    /// What the referee mailbox asks of a mail's DKIM signature before it acts for the
    /// player whose address is in its `From` (default `when-published`).
    #[serde(default, skip_serializing_if = "DkimPolicy::is_default")]
    pub dkim: DkimPolicy,
}

/// What the referee mailbox asks of a mail's DKIM signature (`club: dkim:`). A signature
/// counts when it verifies and its domain (`d=`) is the `From` address's domain or a
/// parent domain of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DkimPolicy {
    /// A signature is required when the `From` domain publishes a DMARC policy of
    /// `quarantine` or `reject` (its own mail is always signed); other mail is taken
    /// on its `From` alone (give such players a `mail secret`).
    #[default]
    WhenPublished,
    /// A signature is required of every mail.
    Required,
    /// Signatures are not checked (a mailbox whose server already refuses unsigned mail).
    Off,
}

impl DkimPolicy {
    /// Whether this is the default, [`DkimPolicy::WhenPublished`].
    pub fn is_default(&self) -> bool {
        *self == DkimPolicy::WhenPublished
    }
}

impl ClubSettings {
    /// Whether nothing is set.
    pub fn is_empty(&self) -> bool {
        *self == ClubSettings::default()
    }
}

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SmtpSecurity {
    /// Plain connection upgraded with STARTTLS, which must succeed (port 587).
    #[default]
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption at all (a local relay; port 25).
    None,
}

impl SmtpSecurity {
    /// The usual port: 587, 465 or 25.
    pub fn default_port(self) -> u16 {
        match self {
            SmtpSecurity::Starttls => 587,
            SmtpSecurity::Tls => 465,
            SmtpSecurity::None => 25,
        }
    }
}

/// An SMTP server (`mail.smtp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SmtpConfig {
    /// The server's host name.
    pub host: String,
    /// The port (default: [`SmtpSecurity::default_port`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// STARTTLS (default), TLS or none.
    #[serde(default)]
    pub security: SmtpSecurity,
    /// The user name to log in with, if the server wants one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// The environment variable holding the password (default `RAVENPOST_SMTP_PASSWORD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    /// A PEM file of extra CA certificates to trust (a private server's own CA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<String>,
    /// How many seconds to wait for the server at each step before giving up (default 60).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
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
            mail: None,
            layout: Layout::FanOut,
            diagrams: Diagrams::None,
            admins: Vec::new(),
            accounts: std::collections::BTreeMap::new(),
            players: std::collections::BTreeMap::new(),
            club: ClubSettings::default(),
            branches: Vec::new(),
            limits: None,
        }
    }
}

/// A YAML value as it would be written on one line, for messages.
fn yaml_scalar(v: &serde_yaml_ng::Value) -> String {
    serde_yaml_ng::to_string(v).map(|t| t.trim().to_string()).unwrap_or_default()
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
        // Name the key for the one-word settings (serde's message would not).
        if let Some(l) = probe.get("layout")
            && !matches!(l.as_str(), Some("flat" | "fan-out"))
        {
            return Err(err(format!("layout: `{}` is not one of flat, fan-out", yaml_scalar(l))));
        }
        if let Some(d) = probe.get("diagrams")
            && !matches!(d.as_str(), Some("none" | "every-move"))
        {
            return Err(err(format!("diagrams: `{}` is not one of none, every-move", yaml_scalar(d))));
        }
        if let Some(r) = probe.get("club").and_then(|c| c.get("reminders"))
            && !r.as_sequence().is_some_and(|v| v.iter().all(|d| d.as_u64().is_some_and(|d| d <= 365)))
        {
            return Err(err(format!(
                "club: reminders: `{}` is not a list of days before a deadline, e.g. [3, 1]",
                serde_json::to_string(r).unwrap_or_default()
            )));
        }
        let config: ArchiveConfig = serde_yaml_ng::from_value(probe).map_err(|e| err(e.to_string()))?;
        if let Some(a) = &config.author {
            a.validate().map_err(|e| err(format!("author: {e}")))?;
        }
        for a in &config.admins {
            crate::referee::players::check_account(a).map_err(|e| err(format!("admins: `{a}`: {e}")))?;
        }
        for (player, accounts) in &config.accounts {
            for a in accounts {
                crate::referee::players::check_account(a)
                    .map_err(|e| err(format!("accounts: {player}: `{a}`: {e}")))?;
            }
        }
        for (player, p) in &config.players {
            if let Some(e) = &p.email {
                crate::referee::players::check_address(e)
                    .map_err(|why| err(format!("players: {player}: email: `{e}`: {why}")))?;
            }
        }
        if let Some(e) = &config.club.referee {
            crate::referee::players::check_address(e)
                .map_err(|why| err(format!("club: referee: `{e}`: {why}")))?;
        }
        Ok(config)
    }

    /// The player `name`'s entry under `players:`, if any.
    pub fn player(&self, name: &str) -> Option<&PlayerSettings> {
        self.players.get(name)
    }

    /// Whether `name` is a computer player (`plays-by: bot`), whose moves only the
    /// referee mailbox makes.
    pub fn is_computer(&self, name: &str) -> bool {
        self.player(name).is_some_and(|p| p.plays_by == PlaysBy::Bot)
    }

    /// The computer players (`plays-by: bot`), in name order.
    pub fn computers(&self) -> Vec<String> {
        self.players.iter().filter(|(_, p)| p.plays_by == PlaysBy::Bot).map(|(n, _)| n.clone()).collect()
    }

    /// The accounts this file lists, as the referee takes them.
    pub fn club_accounts(&self) -> crate::referee::players::ClubAccounts {
        crate::referee::players::ClubAccounts { admins: self.admins.clone(), players: self.accounts.clone() }
    }

    /// Whether the branch `name` (without `refs/heads/`) is one of [`ArchiveConfig::branches`].
    pub fn allows_branch(&self, name: &str) -> bool {
        self.branches.iter().any(|b| match b.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => b == name,
        })
    }

    /// The limits on outside input this file sets, else the defaults.
    pub fn limits(&self) -> crate::referee::limits::Limits {
        self.limits.unwrap_or_default()
    }

    /// The file's text.
    pub fn to_yaml(&self) -> String {
        serde_yaml_ng::to_string(self).expect("a struct of strings serialises")
    }
}
