//! One module per command: its arguments (a clap `Args` struct, with the value parsers
//! that convert them) and its `run`, which takes the run's
//! [`Session`](crate::usecases::Session) when it works on an archive.

pub(crate) mod analyse;
pub(crate) mod annotate;
pub(crate) mod archive;
pub(crate) mod army;
pub(crate) mod bot;
pub(crate) mod claim;
pub(crate) mod completions;
pub(crate) mod conditional;
pub(crate) mod draw;
pub(crate) mod fmt;
pub(crate) mod hook;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod leave;
pub(crate) mod log;
pub(crate) mod mail;
pub(crate) mod mail_import;
pub(crate) mod mail_serve;
pub(crate) mod man;
pub(crate) mod r#match;
pub(crate) mod r#move;
pub(crate) mod moves;
pub(crate) mod new;
pub(crate) mod notify;
pub(crate) mod perft;
pub(crate) mod position;
pub(crate) mod ratings;
pub(crate) mod replay;
pub(crate) mod resign;
pub(crate) mod serve;
pub(crate) mod show;
pub(crate) mod site;
pub(crate) mod standings;
pub(crate) mod status;
pub(crate) mod sync;
pub(crate) mod tournament;
pub(crate) mod uci;
pub(crate) mod validate;
pub(crate) mod variant;
pub(crate) mod verify;

/// Prints a warning for each path `validate` or `fmt` passed over (a FIFO, a device, a
/// folder or file reached again through a link).
fn warn_skipped(found: &super::files::Collected) {
    for w in &found.skipped {
        errln!("ravenpost: warning: {w}");
    }
}
