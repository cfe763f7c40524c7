//! The referee mailbox over IMAP (`ravenpost mail serve --imap imaps://USER@HOST/MAILBOX`):
//! the club's mailbox on any IMAP server (dovecot, a mail provider), read over TLS. Each
//! round takes the unseen messages in the order they arrived (by UID), hands each to
//! [`referee_message`] and marks it `\Seen` only after its verdict is in the ledger
//! (so a message is never lost, and one seen again is recognised by its `Message-ID`);
//! then it waits with IDLE for the next message. The computer players' moves due are
//! made at the start of each round and after each mail that played a step. A lost connection is opened again after
//! 1, 2, 4 … seconds (at most a minute), for as long as the referee runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::TryStreamExt as _;

use super::error::Error as Failure;
use super::referee_mail::{Ledger, Referee, Served, Verdict, oversized, referee_message};
use super::session::Session;
use crate::archive::Archive;

/// The environment variable holding the IMAP account's password.
pub const PASSWORD_ENV: &str = "RAVENPOST_IMAP_PASSWORD";

/// An IMAP account: `imaps://USER@HOST[:PORT][/MAILBOX]` (TLS from the first byte; port
/// 993, mailbox `INBOX` by default).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImapAccount {
    /// The server's host name (checked against its certificate).
    pub host: String,
    /// The port.
    pub port: u16,
    /// The user to log in as.
    pub user: String,
    /// The mailbox to watch.
    pub mailbox: String,
    /// Extra CA certificates (PEM) to trust, for a server with its own CA.
    pub ca_file: Option<PathBuf>,
}

impl ImapAccount {
    /// Reads `imaps://USER@HOST[:PORT][/MAILBOX]`.
    ///
    /// # Errors
    /// [`Failure::Usage`] saying what the address lacks.
    pub fn parse(url: &str, ca_file: Option<PathBuf>) -> Result<ImapAccount, Failure> {
        let usage = |why: &str| {
            Failure::Usage(format!("--imap {url}: {why} (expected imaps://USER@HOST[:PORT][/MAILBOX])"))
        };
        let rest = url.strip_prefix("imaps://").ok_or_else(|| {
            usage(
                "only imaps:// (TLS from the first byte, port 993) is supported; a plain connection never is",
            )
        })?;
        let (authority, mailbox) = rest.split_once('/').unwrap_or((rest, ""));
        let (user, hostport) = authority.rsplit_once('@').ok_or_else(|| usage("no USER@"))?;
        let (host, port) = match hostport.rsplit_once(':') {
            Some((h, p)) => (h, p.parse::<u16>().map_err(|_| usage(&format!("`{p}` is not a port")))?),
            None => (hostport, 993),
        };
        if user.is_empty() || host.is_empty() {
            return Err(usage("the user or the host is empty"));
        }
        let mailbox = if mailbox.is_empty() { "INBOX".to_string() } else { mailbox.to_string() };
        Ok(ImapAccount { host: host.to_string(), port, user: user.to_string(), mailbox, ca_file })
    }
}

/// How the IMAP referee runs.
pub struct ImapRun<'a> {
    /// Take what is unseen, then stop.
    pub once: bool,
    /// The longest wait in IDLE before looking again.
    pub idle: Duration,
    /// How often the branch is looked at during IDLE, for a computer player's move made
    /// due by a move that did not come by mail.
    pub look: Duration,
    /// Told of every message handled, and of every computer player's moves.
    pub handled: &'a mut dyn FnMut(&Served),
    /// Told of every lost connection and the wait before the next.
    pub lost: &'a mut dyn FnMut(&str, Duration),
    /// How long the server may take to connect, greet, log in and open the mailbox.
    pub timeout: Duration,
}

type Tls = tokio_rustls::client::TlsStream<tokio::net::TcpStream>;
type ImapSession = async_imap::Session<Tls>;

/// Referees the account's mailbox until killed (or, with [`ImapRun::once`], until what
/// is unseen is handled).
///
/// # Errors
/// The archive or the ledger cannot be read or written; with `once`, the server cannot
/// be reached or refuses the login; no password in [`PASSWORD_ENV`].
pub fn referee_imap(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    account: &ImapAccount,
    mut run: ImapRun<'_>,
) -> Result<(), Failure> {
    let password = (session.secret)(PASSWORD_ENV)
        .ok_or_else(|| Failure::Usage(format!("the IMAP password goes in ${PASSWORD_ENV}")))?;
    let tls = tls_config(account.ca_file.as_deref())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Declined(format!("starting the IMAP client: {e}")))?;
    rt.block_on(async {
        let mut wait = Duration::from_secs(1);
        loop {
            let server = Server { account, password: &password, tls: &tls };
            match rounds(archive, session, referee, &server, &mut run).await {
                Ok(()) => return Ok(()),
                Err(Lost::Archive(e)) => return Err(e),
                Err(Lost::Connection(why)) if run.once => {
                    return Err(Failure::Declined(format!("{}:{}: {why}", account.host, account.port)));
                }
                Err(Lost::Connection(why)) => {
                    (run.lost)(&why, wait);
                    tokio::time::sleep(wait).await;
                    wait = (wait * 2).min(Duration::from_secs(60));
                }
            }
        }
    })
}

/// Why a connection's rounds ended.
enum Lost {
    /// The server went away or said no: connect again.
    Connection(String),
    /// The archive failed: stop.
    Archive(Failure),
}

fn lost(e: impl std::fmt::Display) -> Lost {
    Lost::Connection(e.to_string())
}

/// The TLS settings: the web's roots, and the CA file's certificates.
fn tls_config(ca_file: Option<&Path>) -> Result<Arc<rustls::ClientConfig>, Failure> {
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(path) = ca_file {
        let bad = |e: String| Failure::Usage(format!("--ca-file {}: {e}", path.display()));
        for cert in super::tls_words::ca_certificates(path).map_err(bad)? {
            roots.add(cert).map_err(|e| bad(e.to_string()))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Failure::Declined(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The server and how to log in to it.
struct Server<'a> {
    account: &'a ImapAccount,
    password: &'a str,
    tls: &'a Arc<rustls::ClientConfig>,
}

async fn connect(server: &Server<'_>) -> Result<ImapSession, Lost> {
    let Server { account, password, tls } = *server;
    let tcp = tokio::net::TcpStream::connect((account.host.as_str(), account.port)).await.map_err(lost)?;
    let name = rustls::pki_types::ServerName::try_from(account.host.clone()).map_err(lost)?;
    let stream = tokio_rustls::TlsConnector::from(Arc::clone(tls)).connect(name, tcp).await.map_err(|e| {
        Lost::Connection(super::tls_words::certificate_refusal(&e).unwrap_or_else(|| e.to_string()))
    })?;
    let mut client = async_imap::Client::new(stream);
    // The server's greeting.
    client.read_response().await.map_err(lost)?.ok_or_else(|| lost("the server closed at once"))?;
    let mut imap =
        client.login(&account.user, password).await.map_err(|(e, _)| lost(format!("login: {e}")))?;
    imap.select(&account.mailbox).await.map_err(|e| lost(format!("{}: {e}", account.mailbox)))?;
    Ok(imap)
}

/// One connection: unseen messages, then IDLE, again and again (once with `once`).
async fn rounds(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    server: &Server<'_>,
    run: &mut ImapRun<'_>,
) -> Result<(), Lost> {
    let handled = &mut *run.handled;
    // A server that takes the connection and says nothing (a wrong port, a plain-text
    // server) would be waited for without end.
    let mut imap = tokio::time::timeout(run.timeout, connect(server)).await.map_err(|_| {
        lost(format!(
            "did not answer within {} s: is {} its IMAPS port (TLS from the first byte), and is it an IMAP \
             server? (`--timeout SECONDS` waits longer)",
            run.timeout.as_secs(),
            server.account.port
        ))
    })??;
    loop {
        take_unseen(archive, session, referee, &mut imap, handled).await?;
        if run.once {
            let _ = imap.logout().await;
            return Ok(());
        }
        let mut waiting = imap.idle();
        waiting.init().await.map_err(lost)?;
        {
            let (answer, stop) = waiting.wait_with_timeout(run.idle);
            let mut answer = Box::pin(answer);
            let mut stop = Some(stop);
            // A git or web player's move pushed meanwhile may make a computer player's
            // move due: the branch is looked at every `look`, and IDLE ended when it
            // moved (the stop source dropped, the answer comes at once).
            loop {
                let tick = Box::pin(tokio::time::sleep(run.look));
                match futures_util::future::select(answer.as_mut(), tick).await {
                    futures_util::future::Either::Left((said, _)) => {
                        said.map_err(lost)?;
                        break;
                    }
                    futures_util::future::Either::Right(((), _)) => {
                        if stop.is_some() && referee.computers.may_be_due(archive) {
                            drop(stop.take());
                        }
                    }
                }
            }
        }
        imap = waiting.done().await.map_err(lost)?;
    }
}

/// Handles every unseen message of the selected mailbox, oldest UID first.
async fn take_unseen(
    archive: &Archive,
    session: &Session,
    referee: &Referee,
    imap: &mut ImapSession,
    handled: &mut dyn FnMut(&Served),
) -> Result<(), Lost> {
    let limit = archive.config().map_err(|e| Lost::Archive(e.into()))?.limits().message_bytes;
    // A game pushed with a computer player to move, or one a killed referee left so.
    referee.computers_move(archive, session).map_err(Lost::Archive)?.iter().for_each(&mut *handled);
    let mut uids: Vec<u32> = imap.uid_search("UNSEEN").await.map_err(lost)?.into_iter().collect();
    uids.sort_unstable();
    if uids.is_empty() {
        return Ok(());
    }
    let mut ledger = Ledger::open(archive).map_err(Lost::Archive)?;
    for uid in uids {
        let source = format!("uid {uid}");
        let sizes = all(imap.uid_fetch(uid.to_string(), "RFC822.SIZE").await).await?;
        let size = sizes.iter().find_map(|f| f.size).map_or(0, u64::from);
        let h = if size > limit {
            oversized(&source, size, limit)
        } else {
            let fetched = all(imap.uid_fetch(uid.to_string(), "BODY.PEEK[]").await).await?;
            let Some(bytes) = fetched.iter().find_map(|f| f.body().map(<[u8]>::to_vec)) else { continue };
            referee_message(archive, session, referee, &mut ledger, &source, &bytes).map_err(Lost::Archive)?
        };
        let (deferred, played) =
            (matches!(h.verdict, Verdict::Deferred { .. }), matches!(h.verdict, Verdict::Played { .. }));
        handled(&Served::Mail(h));
        if deferred {
            // Left unseen: judged again on the next round.
            continue;
        }
        all(imap.uid_store(uid.to_string(), "+FLAGS.SILENT (\\Seen)").await).await?;
        // The step may have made a computer player's move due: made once the mail is
        // marked seen (a referee killed before that makes it on its next round).
        if played {
            referee.computers_move(archive, session).map_err(Lost::Archive)?.iter().for_each(&mut *handled);
        }
    }
    Ok(())
}

/// Every answer of a `FETCH` or `STORE` command (its responses read to the end, so the
/// connection is ready for the next command).
async fn all<S>(sent: async_imap::error::Result<S>) -> Result<Vec<async_imap::types::Fetch>, Lost>
where
    S: futures_util::Stream<Item = async_imap::error::Result<async_imap::types::Fetch>> + Unpin,
{
    sent.map_err(lost)?.try_collect().await.map_err(lost)
}
