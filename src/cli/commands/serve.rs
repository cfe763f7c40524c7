//! `ravenpost serve`: play in the browser.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::usecases::Session;

/// Serve the archive in your browser, to play in: your games (yours to move first), each
/// game's board with the legal moves of a clicked piece marked, a move played after one
/// confirmation exactly as `ravenpost move` plays it. Listens on 127.0.0.1 only and
/// prints the URL to open, which carries a secret token: only a browser given it can
/// act. Runs until interrupted (Ctrl-C).
#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// The port (default: a free one, printed).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Print the address as JSON (`{"url": …, "port": …}`) once listening.
    #[arg(long)]
    json: bool,
    /// Serve a club: take each request's account from this header, which the reverse
    /// proxy in front sets once it has authenticated the member (e.g. X-Remote-User).
    /// Each member then moves only for the side whose player's accounts hold theirs, as
    /// the pre-receive hook judges a push. No token is printed or asked for.
    #[arg(long, value_name = "HEADER")]
    account_header: Option<String>,
    /// Close a connection that has not sent a request's head within SECS seconds.
    #[arg(long, allow_negative_numbers = true, value_name = "SECS", default_value_t = 10, value_parser = crate::cli::args::whole_seconds)]
    header_timeout: u64,
}

/// `ravenpost serve`.
pub(crate) fn run(s: &Session, a: ServeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let admission = match &a.account_header {
        None => crate::server::Admission::Token,
        Some(h) => {
            let name = h.trim().to_ascii_lowercase();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
                return Err(Failure::input(format!(
                    "--account-header {h:?}: a header name is letters, digits, `-` and `_` (e.g. X-Remote-User)"
                )));
            }
            crate::server::Admission::AccountHeader(name)
        }
    };
    let mut said = Ok(());
    let options = crate::server::ServeOptions {
        port: a.port,
        admission,
        header_timeout: std::time::Duration::from_secs(a.header_timeout),
    };
    let result = crate::server::serve(s.clone(), options, |l: &crate::server::Listening| {
        said = if a.json {
            writeln!(out, "{}", serde_json::json!({ "url": l.url, "port": l.addr.port() }))
        } else {
            writeln!(
                out,
                "ravenpost: serving the archive at {}\n(open it in your browser; Ctrl-C stops)",
                l.url
            )
        }
        .and_then(|()| out.flush());
    });
    said.map_err(io)?;
    result.map_err(|e| match e {
        crate::server::ServeError::Archive(e) => Failure::from(*e),
        e => Failure::refused(e.to_string()),
    })
}
