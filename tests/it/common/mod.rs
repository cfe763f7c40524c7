//! The one harness of the integration tests: every `tests/it/*.rs` file starts with
//! `use crate::common;` and takes its helpers from here, so that no helper is written twice.
//!
//! - [`cli`]: the `ravenpost` binary run deterministically: a fixed time
//!   (`RAVENPOST_TIME`), its own `HOME` and XDG directories, `GIT_CONFIG_NOSYSTEM=1`, a
//!   global git config of its own, and none of the caller's `RAVENPOST_*` variables.
//! - [`child`]: a test that runs itself again as a second process.
//! - [`diagram`]: an independent reader of text diagrams, for snapshot checks.
//! - [`git`]: the real `git` command line, with the same isolation and fixed dates.
//! - [`long_game`]: long legal games from a fixed seed (also included by two benches).
//! - [`rules`]: variants, positions and move sets for the rules tests.
//! - [`perft`]: the one reader of `tests/data/*.perft`.
//! - [`rng`]: the one deterministic pseudo-random number generator.
//! - [`smtp`]: a real SMTP server (Python's aiosmtpd) on a free loopback port.
//! - [`tmux`]: an 80×24 tmux window read back from the screen; screens kept as artefacts.
//! - [`tools`]: external tools a test needs; a missing one fails the test with a message
//!   saying what to install, it never lets the test pass silently.
//!
//! A new test file: `use crate::common;` at the top, then `use common::{...}` for what it
//! needs, and `mod NAME;` in `tests/it/main.rs`.
//! Not every file uses every helper, hence the `dead_code` allowance below.

#![allow(dead_code, unused_imports)]

pub mod child;
pub mod cli;
pub mod diagram;
pub mod dns;
pub mod dovecot;
pub mod git;
#[path = "../support/long_game.rs"]
pub mod long_game;
pub mod perft;
pub mod records;
pub mod rng;
pub mod rules;
pub mod smtp;
pub mod tmux;
pub mod tools;

pub use cli::*;
pub use git::*;
