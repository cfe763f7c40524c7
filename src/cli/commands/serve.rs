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
}

/// `ravenpost serve`.
pub(crate) fn run(s: &Session, a: ServeArgs, out: &mut impl Write) -> Result<(), Failure> {
    let mut said = Ok(());
    let result = crate::server::serve(s.clone(), a.port, |l| {
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
