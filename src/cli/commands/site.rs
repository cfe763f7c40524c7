//! `ravenpost site`: the archive as a static web site.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::failure::{Failure, io, plural};
use crate::usecases::{self as ops, Session};

/// Write the archive as a static web site into OUT_DIR: an index of the games and one
/// page per game to step through in a browser (works opened from disk). Re-running
/// rewrites only what changed. No page shows an email address: players appear by name,
/// tags holding an address (`WhiteEmail`) are left out and addresses in comments are
/// masked, unless --include-addresses.
#[derive(Debug, clap::Args)]
pub(crate) struct SiteArgs {
    /// The output directory (new, empty, or made by `ravenpost site`).
    #[arg(value_name = "OUT_DIR")]
    out: PathBuf,
    /// Print what was done as JSON.
    #[arg(long)]
    json: bool,
    /// Show the players' email addresses as the game files have them (for a site kept
    /// private). The hook that regenerates a site after each push (`hook install
    /// --site`) always leaves them out.
    #[arg(long)]
    include_addresses: bool,
}

/// `ravenpost site OUT_DIR`.
pub(crate) fn run(s: &Session, a: SiteArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let dir = a.out;
    let addresses =
        if a.include_addresses { crate::site::Addresses::Shown } else { crate::site::Addresses::Hidden };
    let report =
        crate::site::generate(&archive, s, &dir, addresses).map_err(|e| Failure::refused(e.to_string()))?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report).expect("json")).map_err(io)?;
    } else {
        for (path, problem) in &report.unreadable {
            errln!("ravenpost: {path}: {problem} (listed on the index without a page)");
        }
        writeln!(
            out,
            "{} game{}: wrote {} file{}, {} page{} unchanged, {} removed ({})",
            report.games,
            plural(report.games),
            report.written.len(),
            plural(report.written.len()),
            report.unchanged,
            plural(report.unchanged),
            report.removed.len(),
            dir.join("index.html").display()
        )
        .map_err(io)?;
    }
    Ok(())
}
