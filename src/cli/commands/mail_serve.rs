//! `ravenpost mail serve` and `ravenpost mail secret`: the club's referee mailbox.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::usecases::mail::Delivery;
use crate::usecases::referee_mail::{self as referee, Handled, Referee, Verdict};
use crate::usecases::{self as ops, Session};

/// `mail serve`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// The Maildir the club's address delivers into (its `new/` and `cur/`; dovecot's,
    /// or any MDA's). Each message is handled once and then marked seen.
    #[arg(long, value_name = "DIR")]
    maildir: PathBuf,
    /// The referee's own address, which answers come from (default: `club: referee:` in
    /// ravenpost.yaml).
    #[arg(long, value_name = "ADDRESS")]
    address: Option<String>,
    /// Handle what is there, then exit (for a timer or a delivery hook).
    #[arg(long)]
    once: bool,
    /// Seconds between looks at the Maildir.
    #[arg(long, value_name = "SECONDS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600))]
    interval: u64,
    /// Deliver answers through a sendmail-compatible command (default: ravenpost.yaml's
    /// `mail:` settings).
    #[arg(long, value_name = "CMD")]
    sendmail: Option<String>,
    /// One JSON object a line for each message handled.
    #[arg(long)]
    json: bool,
}

/// `mail secret`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SecretArgs {
    /// The player (as in the games' White/Black tags).
    name: String,
    /// Take the player's secret away instead.
    #[arg(long)]
    remove: bool,
}

/// `ravenpost mail serve`.
pub(crate) fn serve(s: &Session, a: ServeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    for sub in ["new", "cur", "tmp"] {
        if !a.maildir.join(sub).is_dir() {
            return Err(Failure::input(format!(
                "{}: not a Maildir (it has no {sub}/ directory)",
                a.maildir.display()
            )));
        }
    }
    let delivery = Delivery { sendmail: a.sendmail.clone(), ..Delivery::default() };
    let referee = Referee::of(&archive, a.address.as_deref(), delivery)?;
    if !a.json && !a.once {
        writeln!(out, "Refereeing mail to {} from {}", referee.address.email, a.maildir.display())
            .map_err(io)?;
    }
    loop {
        for h in referee::referee_maildir_pass(&archive, s, &referee, &a.maildir)? {
            if a.json {
                writeln!(out, "{}", serde_json::to_string(&h).map_err(|e| Failure::input(e.to_string()))?)
            } else {
                writeln!(out, "{}", terminal::fit_stdout(&line(&h)))
            }
            .map_err(io)?;
        }
        out.flush().map_err(io)?;
        if a.once {
            return Ok(());
        }
        std::thread::sleep(std::time::Duration::from_secs(a.interval));
    }
}

/// One line for a message handled.
fn line(h: &Handled) -> String {
    let from = h.from.as_deref().unwrap_or("(no sender)");
    let what = match &h.verdict {
        Verdict::Played { game, said, commit, .. } => format!("{game}: {said} ({commit})"),
        Verdict::Answered { game } => format!("{game}: question answered"),
        Verdict::Refused { game, reason } => format!("{}: refused: {reason}", game.as_deref().unwrap_or("-")),
        Verdict::Forged { refusal } => format!("not taken: {refusal}"),
        Verdict::AlreadyApplied => "already applied".to_string(),
    };
    let answer = h.answer.as_deref().map(|a| format!("; answer {a}")).unwrap_or_default();
    let hook = h.hook.as_deref().map(|a| format!("; {a}")).unwrap_or_default();
    format!("{} from {from}: {what}{answer}{hook}", h.source)
}

/// `ravenpost mail secret`.
pub(crate) fn secret(s: &Session, a: SecretArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    match referee::mail_secret(&archive, &a.name, a.remove)? {
        Some(word) => writeln!(
            out,
            "{word}\nGive it to {} privately: each of their mails to the referee must carry a line\n\
             `secret: {word}`. It is kept only as a hash and cannot be shown again.",
            a.name
        ),
        None => writeln!(out, "{} has no secret now.", a.name),
    }
    .map_err(io)
}
