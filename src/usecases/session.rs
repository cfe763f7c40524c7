//! One run's settings: where the archive is, who commits, which key signs, the clock that
//! stamps commits, the user's settings and the pusher the git server names. The front end
//! (the command line, a hook) reads the environment and the command line once and builds
//! a [`Session`]; everything below takes it as an argument and reads no environment, so
//! two sessions (two identities, two clocks) can work side by side in one process.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::archive::settings::UserSettings;
use crate::archive::{Identity, Timestamp};
use crate::referee::players::Pusher;

/// The time commits are stamped with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Clock {
    /// The system's clock.
    #[default]
    System,
    /// Always this Unix time (seconds, UTC): reproducible archives and tests
    /// (`RAVENPOST_TIME`).
    Fixed(i64),
}

impl Clock {
    /// The clock `RAVENPOST_TIME`'s value names: fixed at those Unix seconds when it
    /// reads as a number, else the system's.
    pub fn from_env_value(value: Option<&str>) -> Clock {
        match value.and_then(|s| s.trim().parse::<i64>().ok()) {
            Some(secs) => Clock::Fixed(secs),
            None => Clock::System,
        }
    }

    /// The time now, by this clock.
    pub fn now(self) -> Timestamp {
        match self {
            Clock::System => Timestamp::now(),
            Clock::Fixed(secs) => Timestamp::from_unix(secs, 0),
        }
    }
}

/// What one run works with (see the module documentation).
#[derive(Debug, Clone)]
pub struct Session {
    /// `--archive DIR`: the archive named on the command line.
    pub archive: Option<PathBuf>,
    /// `$RAVENPOST_ARCHIVE`: the default archive's directory (relative to the current
    /// directory), when set.
    pub archive_env: Option<OsString>,
    /// The per-user data directory (its `archive` is the per-user archive); `None`
    /// without a home directory.
    pub data_dir: Option<PathBuf>,
    /// The home directory, for a signing key named `~/…` (git's `user.signingKey`).
    pub home: Option<PathBuf>,
    /// The directory relative paths, the archive found by position and a hook's
    /// repository are taken from (the process's current directory, for the cli).
    pub cwd: PathBuf,
    /// Whether git runs this command as a hook and names the repository in the
    /// environment (`GIT_DIR`, and the quarantine object directories of a push being
    /// received): the hook's repository is then opened as git describes it.
    pub git_env: bool,
    /// Who commits: `--author`, else the identity of the user's settings (`None`: the
    /// archive's `ravenpost.yaml` author, else git's).
    pub identity: Option<Identity>,
    /// The key that signs steps a game requires signed: `--signing-key`, else the
    /// settings' (`None`: git's `user.signingKey`).
    pub signing_key: Option<String>,
    /// `--break-lock`: remove a lock file left by ravenpost 0.1.0.
    pub break_lock: bool,
    /// The user's own settings ([`crate::archive::settings`]).
    pub settings: UserSettings,
    /// Where the user's settings file is (for messages).
    pub settings_path: Option<PathBuf>,
    /// The clock that stamps commits and judges deadlines.
    pub clock: Clock,
    /// Who the git server says pushed (the hook): `Ok(None)` when it names nobody.
    pub pusher: Result<Option<Pusher>, PusherUnnamed>,
    /// Reads a secret the settings name by a variable (the SMTP password,
    /// `$RAVENPOST_SMTP_PASSWORD` or the settings' `password-env`): the front end's
    /// environment; by default none.
    pub secret: fn(&str) -> Option<String>,
}

impl Default for Session {
    fn default() -> Session {
        Session {
            archive: None,
            archive_env: None,
            data_dir: None,
            home: None,
            cwd: PathBuf::from("."),
            git_env: false,
            identity: None,
            signing_key: None,
            break_lock: false,
            settings: UserSettings::default(),
            settings_path: None,
            clock: Clock::System,
            pusher: Ok(None),
            secret: |_| None,
        }
    }
}

impl Session {
    /// A session with nothing set: the system clock, no identity (the archive's or git's),
    /// no archive named, no per-user archive, no pusher.
    pub fn new() -> Session {
        Session::default()
    }

    /// This session committing as `identity`.
    pub fn with_identity(mut self, identity: Identity) -> Session {
        self.identity = Some(identity);
        self
    }

    /// This session stamping its commits by `clock`.
    pub fn with_clock(mut self, clock: Clock) -> Session {
        self.clock = clock;
        self
    }

    /// This session working in the directory `cwd`.
    pub fn in_dir(mut self, cwd: impl Into<PathBuf>) -> Session {
        self.cwd = cwd.into();
        self
    }

    /// The time now, by the session's clock.
    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    /// The identity given for this run (`--author` or the settings'), if any.
    pub fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }
}

/// The environment variable that names the variable holding the pusher's account, for a
/// git server other than those of [`PUSHER_VARIABLES`] (it then is the only one read).
pub const PUSHER_VAR_ENV: &str = "RAVENPOST_PUSHER_VAR";

/// The variables git servers name the authenticated pusher in, read in this order, with
/// the server that sets each.
pub const PUSHER_VARIABLES: [(&str, &str); 4] = [
    ("GL_USER", "gitolite"),
    ("REMOTE_USER", "git http-backend behind an authenticating web server"),
    ("GL_USERNAME", "GitLab"),
    ("GITEA_PUSHER_NAME", "Gitea and Forgejo"),
];

/// The variable [`PUSHER_VAR_ENV`] names is not set: the server was meant to name the
/// pusher and did not, so the push is refused rather than judged by author names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{PUSHER_VAR_ENV} names the variable {variable}, which is not set: the server did not say who pushed, so the push is refused"
)]
pub struct PusherUnnamed {
    /// The variable named.
    pub variable: String,
}

/// Who pushed, from the environment as `lookup` reads it: the variable
/// [`PUSHER_VAR_ENV`] names if it is set (and then only that one), else the first of
/// [`PUSHER_VARIABLES`] that is set and not empty. `None`: the server names no pusher.
///
/// # Errors
/// When [`PUSHER_VAR_ENV`] names a variable that is unset or empty (the server was meant
/// to name the pusher and did not: the push must be refused, not judged by author names).
pub fn pusher_from(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<Pusher>, PusherUnnamed> {
    let set = |name: &str| lookup(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if let Some(var) = set(PUSHER_VAR_ENV) {
        return match set(&var) {
            Some(account) => Ok(Some(Pusher { account, variable: var })),
            None => Err(PusherUnnamed { variable: var }),
        };
    }
    Ok(PUSHER_VARIABLES
        .iter()
        .find_map(|(var, _)| set(var).map(|account| Pusher { account, variable: (*var).to_string() })))
}
