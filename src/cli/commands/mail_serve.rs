//! `ravenpost mail serve` and `ravenpost mail secret`: the club's referee mailbox.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::usecases::mail::Delivery;
use crate::usecases::referee_imap::{ImapAccount, ImapRun, referee_imap};
use crate::usecases::referee_mail::{self as referee, Handled, Referee, Served, Verdict};
use crate::usecases::{self as ops, Session};

/// `mail serve`'s arguments.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("mailbox").required(true).args(["maildir", "imap"])))]
pub(crate) struct ServeArgs {
    /// The Maildir the club's address delivers into (its `new/` and `cur/`; dovecot's,
    /// or any MDA's). Each message is handled once and then marked seen.
    #[arg(long, value_name = "DIR")]
    maildir: Option<PathBuf>,
    /// The club's mailbox on an IMAP server, over TLS: imaps://USER@HOST[:PORT][/MAILBOX]
    /// (the password in $RAVENPOST_IMAP_PASSWORD). Unseen messages are handled, then
    /// marked seen; the referee waits for new ones with IDLE and connects again when the
    /// connection is lost.
    #[arg(long, value_name = "URL")]
    imap: Option<String>,
    /// Extra CA certificates (PEM) to trust for the IMAP server (a server with its own
    /// CA).
    #[arg(long, value_name = "PEM", requires = "imap")]
    ca_file: Option<PathBuf>,
    /// The referee's own address, which answers come from (default: `club: referee:` in
    /// ravenpost.yaml).
    #[arg(long, value_name = "ADDRESS")]
    address: Option<String>,
    /// Handle what is there, then exit (for a timer or a delivery hook).
    #[arg(long)]
    once: bool,
    /// Seconds between looks at the Maildir (over IMAP: at the branch, for a computer
    /// player's move due; the longest IDLE is this, at least 60).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", default_value_t = 5, value_parser = crate::cli::args::whole_seconds)]
    interval: u64,
    /// Deliver answers through a sendmail-compatible command (default: ravenpost.yaml's
    /// `mail:` settings).
    #[arg(long, value_name = "CMD")]
    sendmail: Option<String>,
    /// The DNS server asked for DKIM keys and DMARC policies (`club: dkim:` in
    /// ravenpost.yaml), as IP or IP:PORT (default: the system's, from /etc/resolv.conf).
    #[arg(long, value_name = "IP[:PORT]", value_parser = dns_server)]
    dns: Option<std::net::SocketAddr>,
    /// The nodes (positions) the search visits for each move of the club's computer
    /// players (`plays-by: bot` in ravenpost.yaml's `players:`), which the referee makes
    /// as they become due: its strength, as `ravenpost bot --nodes` (1 to 100000000).
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = super::bot::DEFAULT_NODES, value_parser = crate::cli::args::nodes)]
    bot_nodes: u64,
    /// One JSON object a line for each message handled, and for each computer player's
    /// moves.
    #[arg(long)]
    json: bool,
    /// Seconds the IMAP server may take to connect, greet, log in and open the mailbox
    /// before the referee gives up (with `--once`) or tries again.
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", default_value_t = crate::usecases::mail::DEFAULT_TIMEOUT_SECONDS, requires = "imap", value_parser = crate::cli::args::whole_seconds)]
    timeout: u64,
}

/// `--dns`: an IP address, with a port or not (53).
fn dns_server(s: &str) -> Result<std::net::SocketAddr, String> {
    s.parse::<std::net::SocketAddr>()
        .or_else(|_| s.parse::<std::net::IpAddr>().map(|ip| std::net::SocketAddr::new(ip, 53)))
        .map_err(|_| format!("`{s}` is not an IP address, or IP:PORT (e.g. 127.0.0.1:5353, [::1]:53)"))
}

/// `mail secret`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct SecretArgs {
    /// The player, as registered under ravenpost.yaml `players:`. Run this in the
    /// repository the referee runs in (`mail serve`): the secret is kept there.
    name: String,
    /// Take the player's secret away instead.
    #[arg(long)]
    remove: bool,
}

/// `ravenpost mail serve`.
pub(crate) fn serve(s: &Session, a: ServeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let delivery = Delivery { sendmail: a.sendmail.clone(), ..Delivery::default() };
    let bot = ops::Budget { depth: None, nodes: Some(a.bot_nodes), time: None, multipv: 1 };
    let referee = Referee::of(&archive, a.address.as_deref(), delivery, a.dns, bot)?;
    let mut say = |served: &Served| {
        let lines = match (a.json, served) {
            (true, _) => vec![serde_json::to_string(served).unwrap_or_default()],
            (false, Served::Mail(h)) => vec![terminal::fit_stdout(&line(h))],
            (false, Served::Computer(c)) => {
                let hook = c.hook.iter().map(|h| format!("{}: {h}", c.pass.player));
                let steps =
                    super::bot::step_lines(&c.pass).into_iter().map(|l| format!("{}: {l}", c.pass.player));
                steps.chain(hook).map(|l| terminal::fit_stdout(&l)).collect()
            }
        };
        for line in lines {
            // A closed standard output does not stop the referee.
            let _ = writeln!(out, "{line}").and_then(|()| out.flush());
        }
    };
    if let Some(url) = &a.imap {
        let account = ImapAccount::parse(url, a.ca_file.clone())?;
        if !a.json && !a.once {
            errln!("ravenpost: refereeing mail to {} from {url}", referee.address.email);
        }
        let mut lost = |why: &str, wait: std::time::Duration| {
            errln!("ravenpost: the IMAP connection was lost ({why}); again in {} s", wait.as_secs());
        };
        let run = ImapRun {
            once: a.once,
            idle: std::time::Duration::from_secs(a.interval.max(60)),
            look: std::time::Duration::from_secs(a.interval),
            handled: &mut say,
            lost: &mut lost,
            timeout: std::time::Duration::from_secs(a.timeout),
        };
        return Ok(referee_imap(&archive, s, &referee, &account, run)?);
    }
    let maildir = a.maildir.clone().expect("clap requires --maildir or --imap");
    for sub in ["new", "cur", "tmp"] {
        if !maildir.join(sub).is_dir() {
            return Err(Failure::input(format!(
                "{}: not a Maildir (it has no {sub}/ directory)",
                maildir.display()
            )));
        }
    }
    if !a.json && !a.once {
        errln!("ravenpost: refereeing mail to {} from {}", referee.address.email, maildir.display());
    }
    loop {
        for served in referee::referee_maildir_pass(&archive, s, &referee, &maildir)? {
            say(&served);
        }
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
        Verdict::Deferred { reason } => format!("left for the next pass: {reason}"),
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
             `secret: {word}`. It is kept only as a hash, in {}, and cannot be shown again.",
            a.name,
            archive.secrets_dir().display()
        ),
        None => writeln!(out, "{}'s secret is removed.", a.name),
    }
    .map_err(io)
}
