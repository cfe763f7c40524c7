//! `ravenpost mail export|send|import|serve|secret`: play by email.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use crate::archive::SmtpSecurity;
use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::usecases::mail::{Delivery, ImportOptions};
use crate::usecases::{self as ops, Session};

/// Play by email: write a game's message, send it, or import a received one.
#[derive(Debug, clap::Args)]
#[command(after_long_help = MAIL_SETTINGS_HELP)]
pub(crate) struct MailArgs {
    #[command(subcommand)]
    action: MailCmd,
}

/// The end of `ravenpost mail --help`: where your own settings for mail live and their
/// keys (README "Your settings and the archive's", "Playing by email").
const MAIL_SETTINGS_HELP: &str = "\
Your settings (personal, never committed) are in ravenpost/config.yaml in your
config directory: ~/.config/ravenpost/config.yaml on Linux
($XDG_CONFIG_HOME/ravenpost/ if set), ~/Library/Application
Support/ravenpost/config.yaml on macOS, or the file that $RAVENPOST_CONFIG
names. The keys mail uses:

  identity:                 who you are: the sender, the player of an import
    name: Ann Example
    email: ann@example.org
  archive: ~/chess          the archive outside any archive (a mail pipe)
  mail:                     how `mail send` delivers (the whole section,
    smtp:                   over the archive's ravenpost.yaml `mail:`)
      host: smtp.example.org
      port: 587             default 587 (starttls), 465 (tls), 25 (none)
      security: starttls    starttls (required, not just tried), tls or none
      user: ann             the password comes from $RAVENPOST_SMTP_PASSWORD,
      password-env: VAR     or from the variable named here
      ca-file: club-ca.pem  extra CA certificates (PEM) to trust
      timeout: 60           seconds to wait for the server at each step
    sendmail: /usr/sbin/sendmail    instead of smtp: a sendmail-like command

Flags win over these: --author, --archive, --smtp, --security, --user,
--ca-file, --timeout, --sendmail. Passwords are never stored in a file.";

/// `ravenpost mail` actions (issue 7, item 4; README "Playing by email").
#[derive(Debug, Subcommand)]
enum MailCmd {
    /// Write the game's message to the opponent (RFC 5322 .eml): the last move in the
    /// subject, a diagram in the body, the game file attached, threading headers.
    ///
    /// As for `mail send`, the step must be yours: when the last step is the opponent's,
    /// nothing is written and the exit code is 1 (play your move first). `--as NAME`
    /// writes NAME's message whatever the last step (a copy of the opponent's message for
    /// a third party, or a shared archive).
    Export {
        /// The game id.
        game: String,
        /// Write to this file (default: standard output).
        #[arg(short, long, value_name = "FILE.eml")]
        output: Option<PathBuf>,
        #[command(flatten)]
        who: MailWho,
    },
    /// Build the same message and deliver it by SMTP or a sendmail command (flags, else
    /// ravenpost.yaml's `mail` section).
    ///
    /// Only the player whose step is the game's last may send (a move, a draw offer, a
    /// decline, a resignation): when the last step is the opponent's, nothing is sent and
    /// the exit code is 1 (play your move first with `ravenpost move GAME MOVE`); it is 1
    /// too when the delivery fails (the server refused, or did not answer). Exit code 2:
    /// bad input (an unknown game, no address, no way to send).
    Send {
        /// The game id.
        game: String,
        #[command(flatten)]
        who: MailWho,
        /// The SMTP server, HOST or HOST:PORT.
        #[arg(long, value_name = "HOST[:PORT]")]
        smtp: Option<String>,
        /// How the SMTP connection is protected (default starttls).
        #[arg(long, value_enum)]
        security: Option<SecurityArg>,
        /// SMTP user name; the password comes from $RAVENPOST_SMTP_PASSWORD.
        #[arg(long)]
        user: Option<String>,
        /// Extra CA certificates (PEM) to trust, for a server with its own CA.
        #[arg(long, value_name = "PEM")]
        ca_file: Option<PathBuf>,
        /// Deliver through a sendmail-compatible command instead (default: sendmail).
        #[arg(long, value_name = "CMD", num_args = 0..=1, default_missing_value = "sendmail", conflicts_with = "smtp")]
        sendmail: Option<String>,
        /// How many seconds to wait for the SMTP server at each step (default 60, or
        /// `timeout` under mail.smtp in the settings).
        #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = crate::cli::args::whole_seconds)]
        timeout: Option<u64>,
    },
    /// Read received messages (.eml files, mbox files, or directories such as a Maildir),
    /// check that each game extends ours by the opponent's legal moves, and commit them.
    ///
    /// A message must come from the player whose steps it adds: its one From address (and
    /// its Sender, if any) is that player's WhiteEmail/BlackEmail address in the game
    /// (`--accept-sender` takes it all the same). A message without a Message-ID, with two
    /// different copies of the game, naming another game in a header or the subject, or
    /// over the archive's limits (ravenpost.yaml `limits:`) is refused. Nothing of a
    /// refused message is committed (exit code 1).
    Import {
        /// Message files, mbox files or directories (`-`: a message or mbox on standard
        /// input, as a mail client pipes it).
        #[arg(required = true, value_name = "FILE.eml|MBOX|DIR")]
        paths: Vec<PathBuf>,
        /// Who you are (default: the archive's identity).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Take a message whose From address is not that of the player whose steps it
        /// adds (or whose game lists no address for that player); each such commit says
        /// who sent it. Without it, such a message is refused.
        #[arg(long)]
        accept_sender: bool,
        /// Mail each prepared reply (`ravenpost conditional`) this import plays to the
        /// opponent, as `mail send` would; without it, each is committed and named with
        /// the command that mails it.
        #[arg(long)]
        send: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run the club's referee mailbox: take moves and commands (resign, draw, accept,
    /// decline, moves, board) that members mail to the club's address, judge and commit
    /// them, and answer each.
    ///
    /// A mail acts for the player whose registered address sent it (ravenpost.yaml
    /// `players:`, else the game's WhiteEmail/BlackEmail tag) and who carries their
    /// secret if they have one (`mail secret`). Each mail is applied once, even when the
    /// referee is killed and started again. Run it in the club's repository.
    Serve(super::mail_serve::ServeArgs),
    /// Give a player a secret their mails to the referee mailbox must carry (for
    /// addresses whose domain does not sign its mail), or take it away.
    Secret(super::mail_serve::SecretArgs),
}

/// Sender and recipient of a game message.
#[derive(Debug, clap::Args)]
struct MailWho {
    /// The sending player (default: you, if you play the game, else who moved last).
    #[arg(long = "as", value_name = "NAME")]
    who: Option<String>,
    /// The recipient, `ADDRESS` or `Name <ADDRESS>` (default: the opponent's
    /// WhiteEmail/BlackEmail tag).
    #[arg(long, value_name = "ADDRESS")]
    to: Option<String>,
}

/// SMTP connection security.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SecurityArg {
    /// STARTTLS, required (port 587).
    Starttls,
    /// TLS from the start (port 465).
    Tls,
    /// No encryption (port 25; a local relay only).
    None,
}

impl From<SecurityArg> for SmtpSecurity {
    fn from(s: SecurityArg) -> SmtpSecurity {
        match s {
            SecurityArg::Starttls => SmtpSecurity::Starttls,
            SecurityArg::Tls => SmtpSecurity::Tls,
            SecurityArg::None => SmtpSecurity::None,
        }
    }
}

/// `ravenpost mail …`.
pub(crate) fn run(s: &Session, a: MailArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.action {
        MailCmd::Export { game, output, who } => {
            let archive = ops::open(s, false)?;
            let (to, sender) = (who.to.as_deref(), who.who.as_deref());
            let (bytes, line) = crate::usecases::mail::export(&archive, &game, sender, to, s)?;
            match output {
                Some(path) => {
                    std::fs::write(&path, &bytes)
                        .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
                    writeln!(out, "Wrote {}: {line}", path.display()).map_err(io)
                }
                None => out.write_all(&bytes).map_err(io),
            }
        }
        MailCmd::Send { game, who, smtp, security, user, ca_file, sendmail, timeout } => {
            let archive = ops::open(s, false)?;
            let delivery = Delivery {
                smtp,
                security: security.map(Into::into),
                user,
                ca_file,
                sendmail,
                timeout,
                settings_at: None,
            };
            let (to, sender) = (who.to.as_deref(), who.who.as_deref());
            let line = crate::usecases::mail::send(&archive, &game, sender, to, &delivery, s)?;
            writeln!(out, "{}", terminal::fit_stdout(&line)).map_err(io)
        }
        MailCmd::Import { paths, who, accept_sender, send, json } => {
            let options = ImportOptions { who: who.as_deref(), accept_sender };
            super::mail_import::run(s, &paths, options, (json, send), out)
        }
        MailCmd::Serve(a) => super::mail_serve::serve(s, a, out),
        MailCmd::Secret(a) => super::mail_serve::secret(s, a, out),
    }
}
