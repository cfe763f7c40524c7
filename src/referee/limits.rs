//! How much outside input ravenpost takes before refusing it: the size of a game file, a
//! mailed message and any file in a push, and the plies of one game. Input from anyone who
//! may push or send mail is judged within these bounds, so that no stranger can make the
//! hook, `mail import` or `verify` use unbounded memory or time.
//!
//! A club may raise them in its `ravenpost.yaml` (`limits:`); each has a default that
//! leaves room for the longest real games with a diagram after every move.

use serde::{Deserialize, Serialize};

/// The bounds on outside input (`limits:` in `ravenpost.yaml`; every key optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct Limits {
    /// The largest game file (or army choice, tournament, definition), in bytes; also the
    /// largest game attached to a mail, once decoded.
    pub game_bytes: u64,
    /// The most plies one game may have.
    pub plies: usize,
    /// The largest mailed message (or mbox, or file given to `mail import`), in bytes.
    pub message_bytes: u64,
    /// The largest file of any kind a push may add (README, `.gitattributes`, …), in bytes.
    pub file_bytes: u64,
}

impl Limits {
    /// 16 MiB: a 20,000-ply game with a diagram after every move stays below it.
    pub const GAME_BYTES: u64 = 16 << 20;
    /// 20,000 plies: far beyond any game played (the longest known are a few thousand).
    pub const PLIES: usize = 20_000;
    /// 32 MiB: a game at [`Limits::GAME_BYTES`], base64-encoded, with room for the body.
    pub const MESSAGE_BYTES: u64 = 32 << 20;
    /// 1 MiB for a file that is no record (README, LICENSE, `.gitattributes`, …).
    pub const FILE_BYTES: u64 = 1 << 20;
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            game_bytes: Limits::GAME_BYTES,
            plies: Limits::PLIES,
            message_bytes: Limits::MESSAGE_BYTES,
            file_bytes: Limits::FILE_BYTES,
        }
    }
}

/// A size in words: `16 MiB`, `900 KiB`, `12 bytes`.
pub fn size_in_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b if b >= 1 << 10 => format!("{:.1} KiB", b as f64 / f64::from(1 << 10)),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_from_yaml_keep_the_defaults_they_do_not_name() {
        let l: Limits = serde_yaml_ng::from_str("plies: 500\n").unwrap();
        assert_eq!(l, Limits { plies: 500, ..Limits::default() });
        assert!(serde_yaml_ng::from_str::<Limits>("moves: 5\n").is_err());
    }

    #[test]
    fn sizes_are_said_in_binary_units() {
        assert_eq!(size_in_words(16 << 20), "16 MiB");
        assert_eq!(size_in_words(1536), "1.5 KiB");
        assert_eq!(size_in_words(12), "12 bytes");
    }
}
