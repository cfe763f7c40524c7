//! `ravenpost notify`: the club's timed mails (deadline reminders, the daily digest).

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Send the club's timed mails, for cron or a systemd timer on the server's repository:
/// deadline reminders (`club: reminders: [3, 1]` in ravenpost.yaml, days before the
/// deadline of the player to move) and a daily digest of each player's games to move
/// (`club: digest: true`). Each mail is sent once: the events sent are kept in
/// ravenpost/notify-sent of the git directory, recorded after the SMTP server took the
/// message, so a second run, or one after a run was killed, sends nothing twice. The
/// time is the clock's ($RAVENPOST_TIME fixes it, for tests).
#[derive(Debug, clap::Args)]
pub(crate) struct NotifyArgs {
    /// Send nothing and record nothing: say what would be sent.
    #[arg(long)]
    dry_run: bool,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// `ravenpost notify [--dry-run] [--json]`.
pub(crate) fn run(s: &Session, a: NotifyArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let notices = ops::reminders::timed(s, &archive, a.dry_run)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&notices).expect("json")).map_err(io)?;
        return Ok(());
    }
    if notices.is_empty() {
        let config = archive.config()?;
        let why = if config.club.reminders.is_empty() && !config.club.digest {
            " (ravenpost.yaml sets neither `club: reminders:` nor `club: digest: true`)"
        } else {
            ""
        };
        writeln!(out, "Nothing to send now{why}.").map_err(io)?;
    }
    for n in &notices {
        let to = n.to.as_deref().unwrap_or("-");
        match (&n.failure, n.subject.as_deref()) {
            (Some(f), _) => writeln!(out, "{}: not sent to {to} ({f})", n.event),
            (None, subject) => writeln!(
                out,
                "{}: {} to {to}: {}",
                n.event,
                if n.status == "sent" { "sent" } else { "would send" },
                subject.unwrap_or_default()
            ),
        }
        .map_err(io)?;
    }
    Ok(())
}
