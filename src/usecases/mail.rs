//! Playing by email: `mail export`, `mail send` and `mail import`.
//!
//! The message is built by [`crate::mail`]; this module picks the addresses, delivers the
//! bytes (SMTP through lettre, or a `sendmail` command) and commits what an import
//! accepts. An import checks the received game against ours ply by ply with the rules
//! the pre-receive hook applies ([`crate::referee::check_step_at`]) before it commits anything,
//! so a refused message leaves the archive as it was. Each ply is judged at the message's
//! arrival (a move dated later is refused) and committed with the move's recorded time as
//! its author time (the committer's time is the arrival), so both players' histories date
//! a move alike; steps without a move keep the arrival time, which the referee trusts for
//! leave and claims (a game the message creates takes its first move's time, so that it
//! is never created after that move). Each step's author is its player; its committer is
//! the one who ran the import, as for `move`. `mail send` and `mail export` send only the
//! sender's own step ([`Failure::NothingToSend`] otherwise; `mail export --as NAME` writes
//! NAME's message whatever the last step).

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;

use crate::archive::{Archive, GamePath, Identity, SmtpConfig, SmtpSecurity};
use crate::engine::Side;
use crate::mail::{self, Incoming, Mailbox, Outgoing};
use crate::record;
use crate::record::game::Game;
use crate::referee::limits::Limits;
use crate::referee::{Step, check_step_at};

use super::definitions::load;
use super::error::Error as Failure;
use super::games::find;
use super::session::Session;
use crate::referee::players::email_tag;
use crate::variants::Definitions;

/// The environment variable with the SMTP password, unless `mail.smtp.password-env`
/// names another.
pub const PASSWORD_ENV: &str = "RAVENPOST_SMTP_PASSWORD";

/// `Name <address>` or a bare address.
fn parse_mailbox(s: &str, default_name: &str) -> Result<Mailbox, String> {
    let s = s.trim();
    let (name, email) = match (s.find('<'), s.ends_with('>')) {
        (Some(i), true) => {
            (s[..i].trim().trim_matches('"').to_string(), s[i + 1..s.len() - 1].trim().to_string())
        }
        _ => (default_name.to_string(), s.to_string()),
    };
    crate::referee::players::check_address(&email)?;
    Ok(Mailbox { name: if name.is_empty() { default_name.to_string() } else { name }, email })
}

/// The game's message from the sending player's point of view.
struct Prepared {
    path: GamePath,
    built: mail::Built,
    from: Mailbox,
    to: Mailbox,
    ply: usize,
}

/// Builds the message for `game`: the sender is `who`, else the committing identity when
/// it is a player, else the player who made the last ply; the recipient is the other
/// player, at `to` or their `WhiteEmail`/`BlackEmail` tag. `only_own`: the `mail`
/// command (`send`, `export`) that may carry only the sender's own step, refused with
/// [`Failure::NothingToSend`] when the last step is the opponent's; `None`: any step.
fn prepare(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    to: Option<&str>,
    session: &Session,
    only_own: Option<&str>,
) -> Result<Prepared, Failure> {
    let path = find(archive, game)?;
    let text = archive
        .read_file(&path.path())?
        .ok_or_else(|| Failure::Usage(format!("{}: not in the archive", path.path())))?;
    let definitions = super::definitions::at_tip(archive)?;
    let g = load(&definitions, &text)?;
    if let Some(tag) = signed_game(&g) {
        return Err(Failure::Declined(format!(
            "{}: this game requires signed moves ({tag}), and git signatures cannot travel by email: play it through a shared repository (`ravenpost sync`)",
            path.id()
        )));
    }
    let me = archive.identity(session.identity()).ok();
    let history = crate::usecases::history(archive, &path)?;
    let players = [record::player(&g, Side::White), record::player(&g, Side::Black)];
    let side_of = |name: &str| Side::ALL.into_iter().find(|s| players[s.index()] == name);
    let sender = match who {
        Some(w) => side_of(w).ok_or_else(|| {
            Failure::Usage(format!(
                "--as {w}: not a player of {} (the players are {} and {})",
                path.id(),
                players[0],
                players[1]
            ))
        })?,
        // Else the player whose step is the last, else the one who moved last.
        None => me
            .as_ref()
            .and_then(|m| crate::referee::players::side_of_person(&g, &m.name, &m.email))
            .or_else(|| history.last().and_then(|l| side_of(&l.author)))
            .unwrap_or_else(|| g.position().side_to_move().opponent()),
    };
    let sender_name = players[sender.index()].clone();
    let other = sender.opponent();
    let other_name = players[other.index()].clone();
    if let Some(command) = only_own
        && let Some(last) = history.last()
    {
        let mover_of_last_ply = g.position().side_to_move().opponent();
        let theirs = last.author == other_name
            || (last.author != sender_name && last.ply.is_some() && mover_of_last_ply != sender);
        if theirs {
            let id = path.id();
            let result = record::result_of(&g);
            let advice = if result != "*" {
                format!("the game has ended ({result}): there is nothing to answer")
            } else if g.position().side_to_move() == sender {
                let offered = record::pending_offer(&g).as_deref() == Some(g.variant.def().side_name(other));
                format!(
                    "play your move first (`ravenpost move {id} MOVE`){}, then `ravenpost mail {command} {id}`",
                    if offered {
                        " or answer the draw offer (`ravenpost draw accept|decline {id}`)"
                    } else {
                        ""
                    }
                )
            } else {
                format!("wait for {other_name}'s move")
            };
            // `export` may still write the opponent's message when asked by name.
            let advice = if command == "export" {
                format!("{advice} (to write {other_name}'s own message, add `--as \"{other_name}\"`)")
            } else {
                advice
            };
            return Err(Failure::NothingToSend {
                id: id.to_string(),
                sender: sender_name,
                last_player: other_name,
                last_step: last.what.strip_suffix(" (*)").unwrap_or(&last.what).to_string(),
                advice,
            });
        }
    }
    let from_email = match g.text.tag(email_tag(sender)) {
        Some(e) => e.to_string(),
        None => match me.as_ref().filter(|m| m.name == sender_name) {
            Some(m) => m.email.clone(),
            None => {
                return Err(Failure::Usage(format!(
                    "no email address for {sender_name}, the sender: the game has no {} tag and your identity is not {sender_name} (set it with --author \"{sender_name} <ADDRESS>\")",
                    email_tag(sender)
                )));
            }
        },
    };
    let from = parse_mailbox(&from_email, &sender_name)
        .map_err(|e| Failure::Usage(format!("{sender_name}'s address `{from_email}`: {e}")))?;
    let from = Mailbox { name: sender_name.clone(), email: from.email };
    let to = match to {
        Some(t) => parse_mailbox(t, &other_name).map_err(|e| Failure::Usage(format!("--to `{t}`: {e}")))?,
        None => match g.text.tag(email_tag(other)) {
            Some(e) => parse_mailbox(e, &other_name)
                .map_err(|err| Failure::Usage(format!("the {} tag `{e}`: {err}", email_tag(other))))?,
            None => {
                return Err(Failure::Usage(format!(
                    "no email address for {other_name}: pass --to ADDRESS (or start games with --{}-email)",
                    if other == Side::White { "white" } else { "black" }
                )));
            }
        },
    };
    let mut steps = offers_and_declines(archive, &path, &definitions)?;
    steps.answer = answer_of(&history, &g, sender);
    steps.first_message = first_message(&history, &g);
    // The opponent is not told which of the sender's replies were prepared.
    let unnoted = record::without_prepared_notes(&g);
    let (text, g) = match &unnoted {
        Some(u) => (u.canonical_text(), u),
        None => (text, &g),
    };
    let built = mail::build_steps(
        &Outgoing {
            game_id: path.id(),
            text: &text,
            game: g,
            sender,
            from: from.clone(),
            to: to.clone(),
            date: session.now().unix_seconds(),
            // A game with a time control: the reader's deadline and the time each has used.
            deadline: super::clock::clock_of_game(archive, &path, g, session.now().unix_seconds())?
                .map(|k| k.deadline),
            used: super::clock::time_used_in_game(archive, &path, g)?,
            answer_by: mail::AnswerBy::Import,
            via: None,
        },
        &steps,
    )
    .map_err(|e| Failure::Declined(format!("{}: {e}", path.id())))?;
    Ok(Prepared { path, built, from, to, ply: g.moves.len() })
}

/// The step `sender` took without a move after the last ply of a game still going (a
/// declined or offered draw, booked leave): the game's last commit (of `history`), when it
/// is such a step by the sender, with no move since.
fn answer_of(history: &[crate::usecases::LogLine], g: &Game, sender: Side) -> Option<mail::Answer> {
    if record::result_of(g) != "*" {
        return None;
    }
    let last = history.last()?;
    let by_sender = last.author == record::player(g, sender);
    let recorded = last.ply.is_none() && last.problem.is_none() && last.what != "created";
    (by_sender && recorded).then(|| mail::Answer {
        summary: last.what.strip_suffix(" (*)").unwrap_or(&last.what).to_string(),
        commit: last.commit.chars().take(12).collect(),
    })
}

/// The ply of the game's first message (of `history`, the game's): 1 when the game was
/// created by the player who moves first (here, or on the other side for a game a
/// message created: the creation's author either way), who mails the first move as its
/// first message; else 0, the new game's own message, which the creator must have sent
/// for the first mover to have the game.
fn first_message(history: &[crate::usecases::LogLine], g: &Game) -> usize {
    let first_mover = record::player(g, g.position_at(0).side_to_move());
    match history.first() {
        Some(created) if created.what == "created" && created.author == first_mover => 1,
        _ => 0,
    }
}

/// The draw offers and declines of the game's history, as plies (the game file keeps only
/// a pending offer): the plies a draw was offered with (an offer made before a move goes
/// with it) and the plies before which their mover declined an offer.
fn offers_and_declines(
    archive: &Archive,
    path: &GamePath,
    definitions: &Definitions,
) -> Result<mail::Steps, Failure> {
    let mut steps = mail::Steps::default();
    let mut prev: Option<(usize, Option<String>)> = None;
    for v in archive.file_history(&path.path())? {
        let Some(g) = v.contents.as_deref().and_then(|t| load(definitions, t).ok()) else { continue };
        let plies = g.moves.len();
        let offer = record::pending_offer(&g);
        let to_move = g.variant.def().side_name(g.position().side_to_move()).to_string();
        if let Some((before, offer_before)) = &prev
            && *before == plies
            && record::result_of(&g) == "*"
        {
            let by_mover = offer.as_deref() == Some(to_move.as_str());
            if by_mover && offer_before.as_deref() != Some(to_move.as_str()) {
                steps.offered_with.push(plies + 1);
            } else if offer.is_none() && offer_before.as_deref().is_some_and(|o| o != to_move) {
                steps.declined_before.push(plies + 1);
            }
        }
        prev = Some((plies, offer));
    }
    Ok(steps)
}

/// The signing-key tag of a game whose moves must be signed, if any (signed moves are
/// git commit signatures: they travel only through a shared repository).
fn signed_game(g: &crate::record::game::Game) -> Option<&'static str> {
    crate::referee::players::signed_game(g)
}

/// `ravenpost mail export GAME [-o FILE]`: the message's bytes, and a line for people.
///
/// As for [`send`], the step must be the sender's own ([`Failure::NothingToSend`] when
/// the last step is the opponent's), unless `who` names the sender: then the message is
/// that player's whatever the last step (a copy of the opponent's message, for a third
/// party or a shared archive).
///
/// # Errors
/// [`Failure::NothingToSend`]; [`Failure::Usage`] for an unknown game or a missing
/// address; the archive's errors.
pub fn export(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    to: Option<&str>,
    session: &Session,
) -> Result<(Vec<u8>, String), Failure> {
    let p = prepare(archive, game, who, to, session, who.is_none().then_some("export"))?;
    // The subject and the id on lines of their own: each line fits 80 columns.
    let line = format!(
        "{} ply {} from {} <{}> to {} <{}>:\n  {}\n  (Message-ID <{}>)",
        p.path.id(),
        p.ply,
        p.from.name,
        p.from.email,
        p.to.name,
        p.to.email,
        p.built.subject,
        p.built.message_id
    );
    Ok((p.built.bytes, line))
}

/// How `mail send` delivers: flags over the user's settings' `mail` section, over
/// `ravenpost.yaml`'s.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// `--smtp HOST[:PORT]`.
    pub smtp: Option<String>,
    /// `--security`.
    pub security: Option<SmtpSecurity>,
    /// `--user`.
    pub user: Option<String>,
    /// `--ca-file`.
    pub ca_file: Option<PathBuf>,
    /// `--sendmail [CMD]`.
    pub sendmail: Option<String>,
    /// `--timeout SECONDS`.
    pub timeout: Option<u64>,
    /// The commit whose `ravenpost.yaml` gives the archive's `mail` section (the hook's
    /// pushed commit, which the branch may not be at); `None`: the branch tip's.
    pub settings_at: Option<crate::archive::CommitId>,
}

/// The `mail` section that applies: the user's own settings' (all of it), else the
/// archive's `ravenpost.yaml`'s (at [`Delivery::settings_at`], else at the tip).
fn mail_section(
    session: &Session,
    archive: &Archive,
    d: &Delivery,
) -> Result<Option<crate::archive::MailConfig>, Failure> {
    if let Some(m) = &session.settings.mail {
        return Ok(Some(m.clone()));
    }
    match d.settings_at {
        Some(at) => match archive.read_file_at(at, crate::archive::ArchiveConfig::PATH)? {
            Some(text) => Ok(crate::archive::ArchiveConfig::from_yaml(&text)?.mail),
            None => Ok(None),
        },
        None => Ok(archive.config()?.mail),
    }
}

fn smtp_settings(session: &Session, archive: &Archive, d: &Delivery) -> Result<Option<SmtpConfig>, Failure> {
    let configured = mail_section(session, archive, d)?.and_then(|m| m.smtp);
    let Some(server) = &d.smtp else {
        return Ok(configured.map(|mut c| {
            if let Some(s) = d.security {
                c.security = s;
            }
            if d.user.is_some() {
                c.user = d.user.clone();
            }
            if let Some(ca) = &d.ca_file {
                c.ca_file = Some(ca.to_string_lossy().into_owned());
            }
            if d.timeout.is_some() {
                c.timeout = d.timeout;
            }
            c
        }));
    };
    let (host, port) = match server.rsplit_once(':') {
        Some((h, p)) if !h.contains(']') || h.ends_with(']') => {
            let port = p
                .parse::<u16>()
                .map_err(|_| Failure::Usage(format!("--smtp `{server}`: the port `{p}` is not a number")))?;
            (h.trim_start_matches('[').trim_end_matches(']').to_string(), Some(port))
        }
        _ => (server.clone(), None),
    };
    Ok(Some(SmtpConfig {
        host,
        port,
        security: d.security.unwrap_or_default(),
        user: d.user.clone(),
        password_env: configured.as_ref().and_then(|c| c.password_env.clone()),
        ca_file: d.ca_file.as_ref().map(|p| p.to_string_lossy().into_owned()),
        timeout: d.timeout.or_else(|| configured.as_ref().and_then(|c| c.timeout)),
    }))
}

fn smtp_transport(session: &Session, c: &SmtpConfig) -> Result<lettre::SmtpTransport, Failure> {
    use lettre::transport::smtp::authentication::Credentials;
    use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
    check_timeout(c)?;
    let port = c.port.unwrap_or(c.security.default_port());
    let tls = |host: &str| -> Result<TlsParameters, Failure> {
        let mut b = TlsParameters::builder(host.to_string());
        if let Some(ca) = &c.ca_file {
            let bad = |e: String| Failure::Usage(format!("CA file {ca}: {e}"));
            // Read and checked once (as `mail serve --imap` reads its CA file), each
            // certificate handed to lettre as DER.
            for der in super::tls_words::ca_certificates(std::path::Path::new(ca)).map_err(bad)? {
                b = b.add_root_certificate(
                    Certificate::from_der(der.to_vec()).map_err(|e| bad(e.to_string()))?,
                );
            }
        }
        b.build_rustls().map_err(|e| Failure::Usage(format!("TLS settings for {host}: {e}")))
    };
    let mut b = lettre::SmtpTransport::builder_dangerous(c.host.clone()).port(port);
    b = match c.security {
        SmtpSecurity::None => b.tls(Tls::None),
        SmtpSecurity::Starttls => b.tls(Tls::Required(tls(&c.host)?)),
        SmtpSecurity::Tls => b.tls(Tls::Wrapper(tls(&c.host)?)),
    };
    if let Some(user) = &c.user {
        let var = c.password_env.clone().unwrap_or_else(|| PASSWORD_ENV.to_string());
        let password = (session.secret)(&var).ok_or_else(|| {
            Failure::Usage(format!(
                "SMTP user {user} needs a password: set ${var} (passwords are never stored in the archive)"
            ))
        })?;
        b = b.credentials(Credentials::new(user.clone(), password));
    }
    Ok(b.timeout(Some(smtp_timeout(c))).build())
}

/// `ravenpost mail send GAME`: builds the message and delivers it. Returns what it did.
pub fn send(
    archive: &Archive,
    game: &str,
    who: Option<&str>,
    to: Option<&str>,
    delivery: &Delivery,
    session: &Session,
) -> Result<String, Failure> {
    let p = prepare(archive, game, who, to, session, Some("send"))?;
    // The Message-IDs this clone has sent, one a line, never committed: a message sent
    // again (the same step, so the same Message-ID) is called a resend.
    let sent_log = archive.secrets_dir().join("sent-messages");
    let again = std::fs::read_to_string(&sent_log).is_ok_and(|t| t.lines().any(|l| l == p.built.message_id));
    let via = deliver(session, archive, delivery, &p.from, &p.to, &p.built.bytes)?;
    if !again {
        record_sent(&sent_log, &p.built.message_id);
    }
    Ok(format!(
        "{} {} ply {} to {} <{}> via {via}:\n  {}\n  (Message-ID <{}>{})",
        if again { "Sent again:" } else { "Sent" },
        p.path.id(),
        p.ply,
        p.to.name,
        p.to.email,
        p.built.subject,
        p.built.message_id,
        if again { ", as before: a resend" } else { "" }
    ))
}

/// Appends `message_id` to the list of sent messages at `log`; a list that cannot be
/// written only loses the word "again" on a later resend.
fn record_sent(log: &Path, message_id: &str) {
    use std::io::Write as _;
    if let Some(dir) = log.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
        let _ = writeln!(f, "{message_id}");
    }
}

/// Delivers the message `bytes` from `from` to `to` as `delivery` and the archive's mail
/// settings say (SMTP, else sendmail); returns how it went (`SMTP host:port (STARTTLS)`).
///
/// # Errors
/// [`Failure::Declined`] when the server or command fails; [`Failure::Usage`] when no
/// way to send is configured or an address is malformed.
pub fn deliver(
    session: &Session,
    archive: &Archive,
    delivery: &Delivery,
    from: &Mailbox,
    to: &Mailbox,
    bytes: &[u8],
) -> Result<String, Failure> {
    use lettre::Transport;
    let addr = |m: &Mailbox| {
        lettre::Address::from_str(&m.email).map_err(|e| Failure::Usage(format!("{}: {e}", m.email)))
    };
    let envelope = lettre::address::Envelope::new(Some(addr(from)?), vec![addr(to)?])
        .map_err(|e| Failure::Usage(format!("envelope: {e}")))?;
    let configured_sendmail = mail_section(session, archive, delivery)?.and_then(|m| m.sendmail);
    let smtp = if delivery.sendmail.is_some() { None } else { smtp_settings(session, archive, delivery)? };
    let via = match (smtp, delivery.sendmail.clone().or(configured_sendmail)) {
        (Some(c), _) => {
            let port = c.port.unwrap_or(c.security.default_port());
            smtp_transport(session, &c)?
                .send_raw(&envelope, bytes)
                .map_err(|e| Failure::Declined(smtp_failure(&c, port, &e)))?;
            let how = match c.security {
                SmtpSecurity::None => "no TLS",
                SmtpSecurity::Starttls => "STARTTLS",
                SmtpSecurity::Tls => "TLS",
            };
            format!("SMTP {}:{port} ({how})", c.host)
        }
        (None, Some(cmd)) => {
            lettre::SendmailTransport::new_with_command(&cmd)
                .send_raw(&envelope, bytes)
                .map_err(|e| Failure::Declined(format!("sendmail ({cmd}) failed: {e}; nothing was sent")))?;
            format!("sendmail ({cmd})")
        }
        (None, None) => {
            return Err(Failure::Usage(
                "no way to send mail: pass --smtp HOST[:PORT] or --sendmail, or add a `mail:` section to your settings file or to ravenpost.yaml (docs/email.md, \"Set up\")".into(),
            ));
        }
    };
    Ok(via)
}

/// What became of one message of `mail import`.
#[derive(Debug, Clone, Serialize)]
pub struct ImportLine {
    /// The file it was read from.
    pub file: String,
    /// Its `Message-ID`, if it has one.
    pub message_id: Option<String>,
    /// The game id, when it could be told.
    pub game: Option<String>,
    /// `imported`, `nothing-new` or `refused`.
    pub status: &'static str,
    /// Whether the import created the game in this archive.
    pub created: bool,
    /// The plies committed.
    pub plies: Vec<ImportedPly>,
    /// The steps without a move committed, in order.
    pub steps: Vec<ImportedStep>,
    /// The game's result after the import.
    pub result: Option<String>,
    /// Why it was refused, or why there was nothing new.
    pub reason: Option<String>,
}

/// A ply committed by `mail import`.
#[derive(Debug, Clone, Serialize)]
pub struct ImportedPly {
    /// 1-based ply number.
    pub ply: usize,
    /// The move, canonical token.
    #[serde(rename = "move")]
    pub token: String,
    /// The player who made it.
    pub player: String,
}

/// A step without a move committed by `mail import` (a draw offered or declined, a
/// resignation).
#[derive(Debug, Clone, Serialize)]
pub struct ImportedStep {
    /// What was done, the player after the side: `Scarlet (Bo) declines the draw`.
    pub summary: String,
    /// The ply it came before (a draw declined or offered before the mover's move), or
    /// `None` after the plies.
    pub before_ply: Option<usize>,
}

/// Files to read: each file given, and each file inside a directory given (a Maildir's
/// `new/` and `cur/` too), in name order.
fn message_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            for dir in [p.clone(), p.join("new"), p.join("cur")] {
                let Ok(rd) = std::fs::read_dir(&dir) else { continue };
                for e in rd.flatten() {
                    if e.path().is_file() {
                        found.push(e.path());
                    }
                }
            }
            found.sort();
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Failure::Usage(format!("{}: no such file or directory", p.display())));
        }
    }
    Ok(out)
}

/// How many seconds `mail send` waits for the SMTP server at each step, and `mail serve`
/// for the IMAP server to let it in, unless told ([`SmtpConfig::timeout`], `--timeout`).
pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;

/// How long `mail send` waits for the SMTP server at each step unless told.
const SMTP_TIMEOUT: Duration = Duration::from_secs(DEFAULT_TIMEOUT_SECONDS);

/// How long to wait for the server `c` at each step.
fn smtp_timeout(c: &SmtpConfig) -> Duration {
    c.timeout.map_or(SMTP_TIMEOUT, Duration::from_secs)
}

/// The longest wait `timeout:` and the `--timeout` flags allow, in seconds.
pub const MAX_TIMEOUT_SECONDS: u64 = 3600;

/// Refuses a `timeout:` in the settings that `--timeout` would refuse (0, or over an hour).
fn check_timeout(c: &SmtpConfig) -> Result<(), Failure> {
    match c.timeout {
        Some(t) if t == 0 || t > MAX_TIMEOUT_SECONDS => Err(Failure::Usage(format!(
            "mail.smtp.timeout: {t} is not a number of seconds from 1 to {MAX_TIMEOUT_SECONDS}"
        ))),
        _ => Ok(()),
    }
}

/// Whether `e` is the server's silence: a read or connect that waited its timeout
/// (which the system reports as "resource temporarily unavailable").
fn timed_out(e: &(dyn std::error::Error + 'static)) -> bool {
    io_cause(e)
        .is_some_and(|io| matches!(io.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut))
}

/// Whether `e` is a refused connection (nothing listens on the port).
fn connection_refused(e: &(dyn std::error::Error + 'static)) -> bool {
    io_cause(e).is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
}

/// The system's error among `e`'s causes, if any.
fn io_cause<'e>(e: &'e (dyn std::error::Error + 'static)) -> Option<&'e std::io::Error> {
    super::tls_words::causes(e).find_map(|c| c.downcast_ref::<std::io::Error>())
}

/// Why an SMTP delivery failed, in words: lettre's "internal client error" prefix (it
/// means the client gave up, not that it crashed) dropped, and a server without STARTTLS
/// told how to send to a local or test server without TLS; a server that did not answer
/// or a port where nothing listens named as such.
fn smtp_failure(c: &SmtpConfig, port: u16, e: &lettre::transport::smtp::Error) -> String {
    let (host, security) = (&c.host, c.security);
    if let Some(why) = super::tls_words::certificate_refusal(e) {
        return format!("SMTP server {host}:{port}: {why}; nothing was sent");
    }
    if timed_out(e) {
        return format!(
            "SMTP server {host}:{port} did not answer within {} s: is {port} its SMTP port, and is it a mail \
             server? (`--timeout SECONDS`, or `timeout:` under mail.smtp in the settings, waits longer); \
             nothing was sent",
            smtp_timeout(c).as_secs()
        );
    }
    if connection_refused(e) {
        return format!(
            "SMTP server {host}:{port} refused the connection: nothing listens on port {port} there (is the \
             host or the port wrong? `--smtp HOST:PORT`); nothing was sent"
        );
    }
    let said = e.to_string();
    let said = said.strip_prefix("internal client error: ").unwrap_or(&said);
    let hint = if security == SmtpSecurity::Starttls && said.contains("STARTTLS is not supported") {
        " (STARTTLS is required by default; for a local or test server without TLS pass `--security none`, \
         or set `security: none` under mail.smtp in ravenpost.yaml)"
            .to_string()
    } else {
        String::new()
    };
    format!("SMTP server {host}:{port} refused or failed: {said}{hint}; nothing was sent")
}

/// How `mail import` takes messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImportOptions<'a> {
    /// Who you are (`--as NAME`; default: the archive's identity, else the player the
    /// message was sent to).
    pub who: Option<&'a str>,
    /// `--accept-sender`: take steps from a sender whose `From` address is not their
    /// player's (or from a game that lists no address for the player); each such commit's
    /// message says who sent it.
    pub accept_sender: bool,
}

/// `ravenpost mail import FILE|MBOX|DIR...`: one line per message. A file larger than the
/// archive's `limits.message_bytes` is refused without being read.
pub fn import(
    archive: &Archive,
    paths: &[PathBuf],
    options: ImportOptions<'_>,
    session: &Session,
) -> Result<Vec<ImportLine>, Failure> {
    let limits = archive.config()?.limits();
    let mut out = Vec::new();
    for file in message_files(paths)? {
        let unreadable = |e: std::io::Error| Failure::Usage(format!("{}: {e}", file.display()));
        let size = std::fs::metadata(&file).map_err(unreadable)?.len();
        if size > limits.message_bytes {
            out.push(refused(&file, None, None, mail::too_large(Some(size), limits.message_bytes)));
            continue;
        }
        let opened = std::fs::File::open(&file).map_err(unreadable)?;
        out.extend(import_within(archive, &file, opened, options, session, &limits)?);
    }
    Ok(out)
}

/// [`import`] of the message or mbox `input` (standard input for `mail import -`), named
/// `name` in the report.
///
/// # Errors
/// As [`import`]; [`Failure::Usage`] when `input` cannot be read.
pub fn import_reader(
    archive: &Archive,
    name: &Path,
    input: impl std::io::Read,
    options: ImportOptions<'_>,
    session: &Session,
) -> Result<Vec<ImportLine>, Failure> {
    let limits = archive.config()?.limits();
    import_within(archive, name, input, options, session, &limits)
}

/// [`import_reader`] within `limits`: `input` is read up to one byte more than
/// `limits.message_bytes`, and refused when that byte comes, without reading the rest.
fn import_within(
    archive: &Archive,
    name: &Path,
    input: impl std::io::Read,
    options: ImportOptions<'_>,
    session: &Session,
    limits: &Limits,
) -> Result<Vec<ImportLine>, Failure> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    input
        .take(limits.message_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::Usage(format!("{}: {e}", name.display())))?;
    if bytes.len() as u64 > limits.message_bytes {
        return Ok(vec![refused(name, None, None, mail::too_large(None, limits.message_bytes))]);
    }
    let messages = match mail::read_messages_within(&bytes, limits) {
        Ok(m) => m,
        Err(e) => return Ok(vec![refused(name, None, None, e.to_string())]),
    };
    let mut out = Vec::new();
    for m in messages {
        out.push(import_one(archive, name, &m, options, session, limits)?);
    }
    Ok(out)
}

fn refused(file: &Path, m: Option<&Incoming>, game: Option<String>, reason: String) -> ImportLine {
    let place = m.map(|m| m.place.clone()).filter(|p| !p.is_empty());
    ImportLine {
        file: match place {
            Some(p) => format!("{} ({p})", file.display()),
            None => file.display().to_string(),
        },
        message_id: m.and_then(|m| m.message_id.clone()),
        game,
        status: "refused",
        created: false,
        plies: vec![],
        steps: vec![],
        result: None,
        reason: Some(reason),
    }
}

/// The game text with only its first `k` plies, unfinished: the version of the game file
/// just after ply `k`.
fn truncated(game: &Game, k: usize) -> String {
    let mut g = game.clone();
    g.text.moves.truncate(k);
    g.moves.truncate(k);
    g.text.result = Some(("*".into(), Default::default()));
    g.text.remove_tag("Termination");
    g.outcome = None;
    g.canonical_text()
}

/// The side of the player a message was sent to: the one whose `WhiteEmail`/`BlackEmail`
/// tag is one of its `To:` addresses (compared without case), if exactly one is.
fn addressed_side(game: &Game, m: &Incoming) -> Option<Side> {
    let to = |side: Side| {
        game.text
            .tag(email_tag(side))
            .is_some_and(|tag| m.to.iter().any(|t| t.email.eq_ignore_ascii_case(tag.trim())))
    };
    match Side::ALL.map(to) {
        [true, false] => Some(Side::White),
        [false, true] => Some(Side::Black),
        _ => None,
    }
}

/// A version of the game file to commit.
struct Version {
    /// The file's text.
    text: String,
    /// The side whose step it is.
    side: Side,
    /// The player whose step it is.
    author: Identity,
    /// The commit message.
    message: String,
    /// The ply it adds, if any.
    ply: Option<ImportedPly>,
    /// The step without a move it records, if any.
    step: Option<ImportedStep>,
    /// When the step was made, as the message says (a move's recorded time), Unix
    /// seconds: the commit's author time. `None`: the arrival time.
    at: Option<i64>,
}

impl Version {
    fn new(text: String, side: Side, author: Identity, message: String) -> Version {
        Version { text, side, author, message, ply: None, step: None, at: None }
    }
}

fn import_one(
    archive: &Archive,
    file: &Path,
    m: &Incoming,
    options: ImportOptions<'_>,
    session: &Session,
    limits: &Limits,
) -> Result<ImportLine, Failure> {
    let refuse = |game: Option<String>, why: String| Ok(refused(file, Some(m), game, why));
    // The definitions a game pinning one may use: the archive's (a game by mail never
    // brings its own).
    let definitions = super::definitions::at_tip(archive)?;
    let layout = archive.layout()?;
    let (id, received, path) = match read_received(m, limits, &definitions, layout) {
        Ok(r) => r,
        Err((game, why)) => return refuse(game, why),
    };
    let players = [record::player(&received, Side::White), record::player(&received, Side::Black)];
    let (me, my_side) = importer(archive, session, options.who, &received, &players, m);

    let _lock = archive.lock()?;
    let tip = archive.tip()?;
    let ours = match tip {
        Some(t) => archive.read_file_at(t, &path.path())?,
        None => None,
    };
    let ours_game =
        match &ours {
            Some(t) => Some(load(&definitions, t).map_err(|e| {
                Failure::Declined(format!("{}: our own copy does not replay: {e}", path.path()))
            })?),
            None => None,
        };
    // Our prepared replies' notes, which the opponent never received, as ours has them.
    let received = match &ours_game {
        Some(g0) => record::with_prepared_notes_of(&received, g0),
        None => received,
    };
    if ours.is_none()
        && let Some(why) = unknown_game(archive, &id, &path, me.as_deref(), my_side, &players)
    {
        return refuse(Some(id), why);
    }
    let full = received.canonical_text();
    let known = Known {
        file,
        m,
        id: &id,
        path: &path,
        ours: ours.as_deref(),
        full: &full,
        definitions: &definitions,
    };
    if let Some(line) = known.already(archive, ours_game.as_ref(), &received)? {
        return Ok(line);
    }
    // The sender must be the player whose steps the message adds: its From address is that
    // player's address in the game (ours; the message's, for a game it creates), compared
    // without case. `--accept-sender` takes a step all the same, and its commit says so.
    let listed_in = ours_game.as_ref().unwrap_or(&received);
    let listed = Side::ALL.map(|side| {
        let name = &players[side.index()];
        listed_in
            .text
            .tag(email_tag(side))
            .map(|t| parse_mailbox(t, name).map_or_else(|_| t.trim().to_string(), |b| b.email))
    });
    let time = session.now();
    let mut import = Import {
        definitions: &definitions,
        m,
        id: &id,
        received: &received,
        players: &players,
        my_side,
        listed,
        sender: m.from.as_ref().map(|f| f.email.clone()).unwrap_or_default(),
        accept_sender: options.accept_sender,
        accepted: [None, None],
        time,
        msg: mail::describe(m).into_owned(),
        // "your archive" says which: a mail client's working directory may have chosen another.
        yours: format!("your archive ({})", archive.dir().components().collect::<PathBuf>().display()),
    };
    let n0 = ours_game.as_ref().map_or(0, |g| g.moves.len());
    let mut steps = match import.versions(ours.clone(), n0, &full) {
        Ok(s) => s,
        Err(why) => return refuse(Some(id), why),
    };
    for v in &mut steps {
        if let Some(note) = &import.accepted[v.side.index()] {
            v.message.push_str(&format!("\n\n{note}"));
        }
    }
    let created = ours.is_none();
    // A game the message creates is dated by its first step's recorded time when that is
    // earlier than the arrival (the message's moves were made after the game was), so
    // that its creation never comes after its first move in either player's `log`.
    if created && let Some(first) = steps.iter().skip(1).find_map(|v| v.at) {
        steps[0].at = Some(first.min(time.unix_seconds()));
    }
    // Every step is its player's (the author, at the time the message gives it) and is
    // committed by whoever runs the import, as `move` commits a step played for another
    // (the committer, at the arrival). Without an identity the importer is the player the
    // message is for (`--as`, or its `To:` address), when known: not the
    // identity-less committer `move` uses, whose last step would make the importer's
    // next move look like one for both sides.
    let committer = match (archive.identity(session.identity()), my_side) {
        (Ok(_), _) | (Err(_), None) => crate::usecases::step_committer(archive, session),
        (Err(_), Some(side)) => import.identity(side),
    };
    let (plies, done) = commit_versions(archive, &path, tip, steps, &committer, time)?;
    let result = received.text.result.as_ref().map(|r| r.0.clone()).unwrap_or_else(|| "*".into());
    Ok(ImportLine {
        file: file.display().to_string(),
        message_id: m.message_id.clone(),
        game: Some(id),
        status: "imported",
        created,
        plies,
        steps: done,
        result: Some(result),
        reason: None,
    })
}

/// The game a message carries, read and replayed (within the archive's limits), its id
/// and its path; or why it is refused (with the game id, when known).
fn read_received(
    m: &Incoming,
    limits: &Limits,
    definitions: &Definitions,
    layout: crate::referee::Layout,
) -> Result<(String, Game, GamePath), (Option<String>, String)> {
    if let Some(why) = &m.malformed {
        return Err((m.game_id.clone(), why.clone()));
    }
    let text = match &m.game {
        Ok(t) => t,
        Err(e) => return Err((m.game_id.clone(), e.clone())),
    };
    let Some(id) = m.game_id.clone() else {
        return Err((
            None,
            "no game id: no `<id>.pgn` attachment, X-Ravenpost-Game header or subject".into(),
        ));
    };
    // Read, and its plies counted, before any is replayed.
    let read = match crate::notation::pgn::GameReader::new(text.as_bytes()).next() {
        Some(Ok(t)) => Ok(t),
        Some(Err(e)) => Err(record::Refusal::Invalid(vec![e.into()])),
        None => Err(record::Refusal::Invalid(vec![])),
    };
    let received = match read {
        Ok(t) if t.moves.len() > limits.plies => {
            return Err((
                Some(id),
                format!(
                    "the game in the message has {} plies, over the limit of {} for one game (`limits: plies:` \
                     in the archive's ravenpost.yaml); nothing of it was replayed",
                    t.moves.len(),
                    limits.plies
                ),
            ));
        }
        Ok(t) => record::Loader::new()
            .definitions(definitions)
            .replay(t)
            .map(|l| l.game)
            .map_err(record::Refusal::Invalid),
        Err(e) => Err(e),
    };
    let received = match received {
        Ok(g) => g,
        Err(e) => return Err((Some(id), format!("the game file in the message: {e}"))),
    };
    let slug = &received.variant.def().slug;
    if let Some(v) = m.variant.as_deref().filter(|v| v != slug) {
        return Err((
            Some(id),
            format!(
                "the {} header names a {v} game, but the attached game is a {slug} game",
                mail::GAME_HEADER
            ),
        ));
    }
    let path = match GamePath::in_layout(layout, slug, &id) {
        Ok(p) => p,
        Err(e) => return Err((Some(id), format!("game id: {e}"))),
    };
    if let Some(tag) = signed_game(&received) {
        return Err((
            Some(id),
            format!(
                "this game requires signed moves ({tag}), which email cannot carry: play it through a shared repository"
            ),
        ));
    }
    Ok((id, received, path))
}

/// Who imports the message, and their side in its game: `--as NAME`, else the session's
/// identity, else the player the message was sent to.
fn importer(
    archive: &Archive,
    session: &Session,
    who: Option<&str>,
    received: &Game,
    players: &[String; 2],
    m: &Incoming,
) -> (Option<String>, Option<Side>) {
    let (me, my_side) = match who {
        Some(w) => (Some(w.to_string()), Side::ALL.into_iter().find(|s| players[s.index()] == w)),
        None => match archive.identity(session.identity()) {
            Ok(i) => {
                let side = crate::referee::players::side_of_person(received, &i.name, &i.email);
                (Some(side.map_or(i.name, |s| players[s.index()].clone())), side)
            }
            Err(_) => (None, None),
        },
    };
    // Without a name, the player the message was sent to: its `To:` address is their
    // WhiteEmail/BlackEmail tag.
    match (me, my_side) {
        (me, None) if who.is_none() => match addressed_side(received, m) {
            Some(s) => (Some(players[s.index()].clone()), Some(s)),
            None => (me, None),
        },
        found => found,
    }
}

/// Why a game the archive does not have is refused: another variant's game has its id,
/// or the importer is none of its players.
fn unknown_game(
    archive: &Archive,
    id: &str,
    path: &GamePath,
    me: Option<&str>,
    my_side: Option<Side>,
    players: &[String; 2],
) -> Option<String> {
    // Another variant's game of the same id, or an unknown game for a non-player.
    if let Ok(other) = find(archive, id) {
        return Some(format!(
            "this archive's game {id} is a {} game, the message's is {}",
            other.variant(),
            path.variant()
        ));
    }
    if my_side.is_none() {
        let whom = match me {
            Some(name) => format!("{name} is not one of its players ({} and {})", players[0], players[1]),
            None => format!(
                "no identity is set to say which of its players ({} and {}) you are, and the message's To: \
                 address is neither player's (WhiteEmail/BlackEmail tags): name yourself with `--as NAME`, \
                 or set git's user.name and user.email",
                players[0], players[1]
            ),
        };
        return Some(format!("unknown game {id}: it is not in this archive, and {whom}"));
    }
    None
}

/// A message's game as the archive may know it already.
struct Known<'a> {
    file: &'a Path,
    m: &'a Incoming,
    id: &'a str,
    path: &'a GamePath,
    /// Our copy of the game file, if any.
    ours: Option<&'a str>,
    /// The message's game, canonical.
    full: &'a str,
    /// The archive's definitions, for a game pinning one.
    definitions: &'a Definitions,
}

impl Known<'_> {
    /// The line for a message that adds nothing (a version we have, or had), or that
    /// reuses the Message-ID of another imported message; `None`: it is new.
    fn already(
        &self,
        archive: &Archive,
        ours_game: Option<&Game>,
        received: &Game,
    ) -> Result<Option<ImportLine>, Failure> {
        let (path, full) = (self.path, self.full);
        let n0 = ours_game.map_or(0, |g| g.moves.len());
        let n1 = received.moves.len();
        let nothing_new = |why: &str| ImportLine {
            file: self.file.display().to_string(),
            message_id: self.m.message_id.clone(),
            game: Some(self.id.to_string()),
            status: "nothing-new",
            created: false,
            plies: vec![],
            steps: vec![],
            result: None,
            reason: Some(why.to_string()),
        };
        if let Some(g0) = ours_game {
            if self.ours == Some(full) {
                return Ok(Some(nothing_new("the archive has this version of the game")));
            }
            if n1 < n0 && g0.moves[..n1] == received.moves[..] {
                let why = earlier_version(archive, path, g0, received, full, self.definitions)?;
                return Ok(Some(nothing_new(&why)));
            }
            if n1 == n0 {
                let known = archive
                    .file_history(&path.path())?
                    .into_iter()
                    .any(|v| v.contents.as_deref() == Some(full));
                if known {
                    return Ok(Some(nothing_new(
                        "an earlier version of the game (the archive has moved on)",
                    )));
                }
            }
        }
        // A message read again adds nothing (above): one that adds steps under a Message-ID
        // already imported is another message under a copied id.
        if let (Some(mid), Some(_)) = (&self.m.message_id, self.ours) {
            let named = format!("<{mid}>");
            if let Some(v) =
                archive.file_history(&path.path())?.into_iter().find(|v| v.message.contains(&named))
            {
                let commit: String = v.commit.to_string().chars().take(12).collect();
                let why = format!(
                    "Message-ID {named} was imported before (commit {commit}), with other steps: a message read \
                     again adds nothing, so this is another message under a copied Message-ID"
                );
                return Ok(Some(refused(self.file, Some(self.m), Some(self.id.to_string()), why)));
            }
        }
        Ok(None)
    }
}

/// Commits the versions in order on `tip`, each authored by its player at its time and
/// committed by `committer` at `time`; returns the plies and the other steps committed.
fn commit_versions(
    archive: &Archive,
    path: &GamePath,
    mut tip: Option<crate::archive::CommitId>,
    steps: Vec<Version>,
    committer: &Identity,
    time: crate::archive::Timestamp,
) -> Result<(Vec<ImportedPly>, Vec<ImportedStep>), Failure> {
    let mut plies = Vec::new();
    let mut done = Vec::new();
    for v in steps {
        let exists = tip.is_some() && archive.read_file_at(tip.expect("tip"), &path.path())?.is_some();
        let names = crate::archive::CommitNames {
            author: &v.author,
            author_time: v.at.map_or(time, |at| crate::archive::Timestamp::from_unix(at, 0)),
            committer,
            time,
        };
        let file = path.path();
        let change = crate::archive::Change::new(names, tip, &v.message);
        let change = if exists {
            change.write(&file, v.text.as_bytes())
        } else {
            change.create(&file, v.text.as_bytes())
        };
        let c = archive.commit(&change)?;
        tip = Some(c);
        plies.extend(v.ply);
        done.extend(v.step);
    }
    Ok((plies, done))
}

/// A message's steps being worked out: the game it carries, who is who, and the steps
/// taken from a sender who is not their player (`--accept-sender`).
struct Import<'a> {
    /// The archive's definitions, for a game pinning one.
    definitions: &'a Definitions,
    m: &'a Incoming,
    id: &'a str,
    received: &'a Game,
    players: &'a [String; 2],
    /// The importer's side, if they play the game.
    my_side: Option<Side>,
    /// Each side's address as the game lists it.
    listed: [Option<String>; 2],
    /// The message's From address.
    sender: String,
    accept_sender: bool,
    /// The note on a side's steps taken from another sender.
    accepted: [Option<String>; 2],
    /// The arrival.
    time: crate::archive::Timestamp,
    /// The message, as commit messages name it.
    msg: String,
    /// "your archive (DIR)".
    yours: String,
}

impl Import<'_> {
    /// Whether `what`, `side`'s step, may come from the message's sender: its From address
    /// is the side's; else taken with `--accept-sender` (noted), else refused.
    fn vouch(&mut self, side: Side, what: &str) -> Result<(), String> {
        let name = &self.players[side.index()];
        let tag = email_tag(side);
        let sender = &self.sender;
        let listed = &self.listed[side.index()];
        let problem = match listed {
            Some(a) if a.eq_ignore_ascii_case(sender) => return Ok(()),
            Some(a) => format!(
                "the message is from {sender}, but {what} is {name}'s, whose address is {a} (the game's {tag} tag)"
            ),
            None => format!(
                "{what} is {name}'s, and the game lists no address for {name} (no {tag} tag) to check the sender \
                 {sender} against"
            ),
        };
        if !self.accept_sender {
            return Err(format!(
                "{problem}: a step is taken only from its player's address (to take it all the same, add \
                 --accept-sender)"
            ));
        }
        let whose = match listed {
            Some(a) => format!("{name}'s address is {a}"),
            None => format!("the game lists no address for {name}"),
        };
        self.accepted[side.index()] = Some(format!(
            "The sender was not the mover: the message is from {sender}, and {whose}; taken with \
             `mail import --accept-sender`."
        ));
        Ok(())
    }

    /// The address of `side`'s player: the game's tag, else the sender's (for the
    /// opponent), else a made-up one.
    fn email_of(&self, side: Side) -> String {
        self.received
            .text
            .tag(email_tag(side))
            .map(str::to_string)
            .or_else(|| self.m.from.as_ref().filter(|_| Some(side) != self.my_side).map(|f| f.email.clone()))
            .unwrap_or_else(|| {
                format!("{}@ravenpost.invalid", self.players[side.index()].to_lowercase().replace(' ', "-"))
            })
    }

    /// The author of `side`'s steps.
    fn identity(&self, side: Side) -> Identity {
        Identity::new(self.players[side.index()].clone(), self.email_of(side))
    }

    /// A step of `side` to commit: its text and its commit message's subject.
    fn version(&self, text: String, side: Side, subject: String) -> Version {
        Version::new(text, side, self.identity(side), subject)
    }

    /// Every version the message implies after ours (`ours`, with `n0` plies), each
    /// checked like a pushed commit; or why the message is refused.
    fn versions(&mut self, ours: Option<String>, n0: usize, full: &str) -> Result<Vec<Version>, String> {
        let received = self.received;
        let n1 = received.moves.len();
        let opponent_of_me = self.my_side.map(Side::opponent);
        // Checked before any ply is judged: the creator of a new game, and the movers of the
        // plies (a ply of yours is refused below, for what it is).
        if ours.is_none() {
            self.vouch(opponent_of_me.unwrap_or(Side::White), "the new game")?;
        }
        for k in (n0 + 1)..=n1.min(n0 + 2) {
            let mover = received.position_at(k - 1).side_to_move();
            if Some(mover) != self.my_side {
                self.vouch(mover, &format!("ply {k}"))?;
            }
        }
        let mut steps: Vec<Version> = Vec::new();
        let mut prev = ours.clone();
        if ours.is_none() {
            let creator = opponent_of_me.unwrap_or(Side::White);
            let v0 = truncated(received, 0);
            let subject = format!("{}: new game from mail {}", self.id, self.msg);
            steps.push(self.version(v0.clone(), creator, subject));
            prev = Some(v0);
        }
        let times = record::move_times(&received.text).unwrap_or_default();
        for k in (n0 + 1)..=n1 {
            let at = times.get(k - 1).copied().flatten();
            self.ply(k, at, &mut prev, &mut steps)?;
        }
        if n1 >= n0 && !prev.as_deref().is_some_and(|p| record::same_record(p, full)) {
            // After the plies: a result or an offer recorded by the opponent.
            match check_step_at(prev.as_deref(), full, None, Some(self.time.unix_seconds()), self.definitions)
            {
                Ok(Step::Recorded { result, player, summary }) => {
                    steps.push(self.recorded(full, &result, &player, &summary)?);
                }
                Ok(_) => {}
                Err(e) => return Err(e.to_string()),
            }
        } else if n1 < n0 {
            // Not a prefix of ours (checked above): history was rewritten.
            check_step_at(prev.as_deref(), full, None, None, self.definitions).map_err(|e| e.to_string())?;
            return Err(format!("the message has {n1} plies, the archive {n0}, and they differ"));
        }
        Ok(steps)
    }

    /// Ply `k` of the message (recorded at `at`) after `prev`, with the steps without a
    /// move that come with it.
    fn ply(
        &mut self,
        k: usize,
        at: Option<i64>,
        prev: &mut Option<String>,
        steps: &mut Vec<Version>,
    ) -> Result<(), String> {
        let received = self.received;
        let n1 = received.moves.len();
        let mover = received.position_at(k - 1).side_to_move();
        let name = self.players[mover.index()].clone();
        let san = crate::notation::san::write_move(
            &received.variant,
            &received.position_at(k - 1),
            &received.moves[k - 1],
        );
        self.declined_before(k, at, &san, prev, steps)?;
        let next = if k < n1 { truncated(received, k) } else { self.last_ply(k, at, &san, prev, steps)? };
        if Some(mover) == self.my_side {
            return Err(format!(
                "ply {k} ({san}) is played for {name}, you, but {} does not have it: refusing a move made in your name",
                self.yours
            ));
        }
        self.vouch(mover, &format!("ply {k} ({san})"))?;
        // Each side keeps the times the mover recorded; a ply without one could never be
        // matched again by the sender's later messages.
        if at.is_none() {
            return Err(format!(
                "ply {k} ({san}) carries no move time ({{ravenpost: at …}}); ravenpost writes one after every move"
            ));
        }
        // Judged at the arrival time: a move dated in the future is refused here.
        match check_step_at(
            prev.as_deref(),
            &next,
            Some(&name),
            Some(self.time.unix_seconds()),
            self.definitions,
        ) {
            Ok(Step::Moved { .. }) => {}
            Ok(other) => return Err(format!("ply {k} ({san}): unexpected change {other:?}")),
            Err(e) => return Err(format!("ply {k} ({san}): {e}")),
        }
        let mut v =
            self.version(next.clone(), mover, format!("{}: ply {k} {san} (from mail {})", self.id, self.msg));
        v.ply = Some(ImportedPly { ply: k, token: san, player: name });
        v.at = at;
        steps.push(v);
        *prev = Some(next);
        Ok(())
    }

    /// A declined draw offer before ply `k`: it leaves no trace in the file (the move would
    /// have ended it too), so the sender's message names the plies it came before; the
    /// decline is recorded first, as the sender's archive has it.
    fn declined_before(
        &self,
        k: usize,
        at: Option<i64>,
        san: &str,
        prev: &mut Option<String>,
        steps: &mut Vec<Version>,
    ) -> Result<(), String> {
        let received = self.received;
        let mover = received.position_at(k - 1).side_to_move();
        let name = &self.players[mover.index()];
        // The version before, replayed once: its pending offer, and the decline made on it.
        let base = prev.clone().unwrap_or_default();
        let base_game = load(self.definitions, &base);
        let pending = base_game.as_ref().ok().and_then(record::pending_offer);
        let opponents_offer = pending.as_deref() == Some(received.variant.def().side_name(mover.opponent()));
        if !(self.m.declined_before.contains(&k) && opponents_offer && Some(mover) != self.my_side) {
            return Ok(());
        }
        let at_arrival = Some(self.time.unix_seconds());
        let declined = base_game
            .and_then(|g| record::draw(&g, Some(name), record::DrawAction::Decline))
            .map_err(|e| e.to_string())
            .and_then(|(a, _)| {
                match check_step_at(Some(&base), &a.text, Some(name), at_arrival, self.definitions) {
                    Ok(Step::Recorded { .. }) => Ok(a),
                    Ok(other) => Err(format!("unexpected change {other:?}")),
                    Err(e) => Err(e.to_string()),
                }
            });
        match declined {
            Ok(a) => {
                let summary =
                    ImportedStep { summary: with_player(received, &a.summary), before_ply: Some(k) };
                let subject = format!("{}: {} (from mail {})", self.id, a.summary, self.msg);
                let mut v = self.version(a.text.clone(), mover, subject);
                v.step = Some(summary);
                v.at = at;
                steps.push(v);
                *prev = Some(a.text);
                Ok(())
            }
            Err(e) => Err(format!("the draw declined before ply {k} ({san}): {e}")),
        }
    }

    /// The last ply (`k`) as ravenpost writes it: the mover's draw offer (made before the
    /// move, carried by it) first as a step of its own; a result the rules do not give
    /// (resignation, draw, time forfeit) after it ([`Import::versions`]).
    fn last_ply(
        &self,
        k: usize,
        at: Option<i64>,
        san: &str,
        prev: &mut Option<String>,
        steps: &mut Vec<Version>,
    ) -> Result<String, String> {
        let received = self.received;
        let mover = received.position_at(k - 1).side_to_move();
        let name = &self.players[mover.index()];
        let side_name = received.variant.def().side_name(mover).to_string();
        let offered = received.text.moves.last().is_some_and(|m| {
            m.comments.iter().any(|c| c.strip_prefix(record::DRAW_OFFER_PREFIX) == Some(side_name.as_str()))
        });
        let base = prev.clone().unwrap_or_default();
        // An offer already in ours (its own message came first) is not made again.
        let base_game = load(self.definitions, &base).map_err(|e| format!("ply {k} ({san}): {e}"))?;
        let made = record::pending_offer(&base_game) == Some(side_name.clone());
        let base = if offered && !made && Some(mover) != self.my_side {
            match record::draw(&base_game, Some(name), record::DrawAction::Offer) {
                Ok((a, g)) => {
                    let subject = format!("{}: {} (from mail {})", self.id, a.summary, self.msg);
                    let mut v = self.version(a.text.clone(), mover, subject);
                    v.step = Some(ImportedStep {
                        summary: with_player(received, &a.summary),
                        before_ply: Some(k),
                    });
                    v.at = at;
                    steps.push(v);
                    *prev = Some(a.text);
                    g
                }
                Err(e) => return Err(format!("ply {k} ({san}): {e}")),
            }
        } else {
            base_game
        };
        // A prepared reply keeps its note (`{ravenpost: prepared}`).
        let prepared = record::is_prepared(&received.text, k);
        let options = record::MoveOptions { at, prepared, ..record::MoveOptions::default() };
        // So does the mover's comment with the move (`move --comment`).
        // (Not the comment of a result recorded after it: `Gold resigns.`.)
        let result = record::result_of(received);
        let ending =
            (k == received.moves.len() && result != "*" && received.rules_result() != Some(result.as_str()))
                .then(|| received.text.moves.get(k - 1).and_then(|m| m.comments.last()))
                .flatten();
        let comment = record::move_comment(&received.text, k)
            .filter(|c| record::move_comment_text(c).is_ok() && Some(&c.to_string()) != ending);
        record::play(&base, san, record::Play { options, comment, ..record::Play::default() })
            .map(|(a, _)| a.text)
            .map_err(|e| format!("ply {k} ({san}): {e}"))
    }

    /// A result or an offer recorded by `player` after the plies: committed at the arrival
    /// time (the referee judges leave and claims by the commit's time, which the sender
    /// does not choose).
    fn recorded(&mut self, full: &str, result: &str, player: &str, summary: &str) -> Result<Version, String> {
        let Some(side) = Side::ALL.into_iter().find(|s| self.players[s.index()] == player) else {
            return Err(format!("\"{summary}\" by {player}, who is not a player"));
        };
        if Some(side) == self.my_side {
            return Err(format!(
                "\"{summary}\" is recorded for {player}, you, but {} does not have it",
                self.yours
            ));
        }
        self.vouch(side, &format!("\"{summary}\""))?;
        let subject = format!("{}: {summary}, result {result} (from mail {})", self.id, self.msg);
        let mut v = self.version(full.to_string(), side, subject);
        v.step = Some(ImportedStep { summary: with_player(self.received, summary), before_ply: None });
        Ok(v)
    }
}

/// Why a message with an earlier ply than ours is nothing new: its version of the game is
/// in our history (a step without a move, such as a declined draw, whose message came
/// after the next move's), or it is an earlier ply of ours whose step the later move made
/// moot.
fn earlier_version(
    archive: &Archive,
    path: &GamePath,
    ours: &Game,
    received: &Game,
    full: &str,
    definitions: &Definitions,
) -> Result<String, Failure> {
    let (n0, n1) = (ours.moves.len(), received.moves.len());
    let plain = format!("an earlier ply ({n1}) of the game: the archive is at ply {n0}");
    // The step the message carries beyond the ply, if any: from our first version at that
    // ply (which the step changed on the sender's side).
    let step = history_version_before(archive, path, n1, definitions)?
        .and_then(|before| record::recognise_action(&before, received));
    let Some(step) = step else { return Ok(plain) };
    let summary = with_player(received, &step.summary);
    let known = archive
        .file_history(&path.path())?
        .into_iter()
        .any(|v| v.contents.as_deref().is_some_and(|c| c == full || record::same_record(c, full)));
    Ok(if known {
        format!("already in the archive: {summary}, before ply {}", n1 + 1)
    } else {
        format!(
            "{summary} after ply {n1}, but the archive is at ply {n0}: the move that followed ended the offer too"
        )
    })
}

/// The first version of the game file in the history that has exactly `plies` plies.
fn history_version_before(
    archive: &Archive,
    path: &GamePath,
    plies: usize,
    definitions: &Definitions,
) -> Result<Option<Game>, Failure> {
    for v in archive.file_history(&path.path())? {
        if let Some(t) = v.contents
            && let Ok(g) = load(definitions, &t)
            && g.moves.len() == plies
        {
            return Ok(Some(g));
        }
    }
    Ok(None)
}

/// A step's summary naming the player with the side ([`record::named`]): `Bo (Scarlet)
/// declines the draw` for `Scarlet declines the draw`.
pub fn with_player(game: &Game, summary: &str) -> String {
    record::with_names(game, summary)
}
