//! `ravenpost man`: the manual page, or one page per command.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::failure::{Failure, io};
use crate::cli::terminal;

/// Print the manual page (roff; `man -l` shows it), or with --out write one page per
/// command into a folder (ravenpost.1, ravenpost-move.1, …).
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write the pages into this folder (made if missing) instead.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// `ravenpost man [--out DIR]`: the pages of `ravenpost`.
pub(crate) fn run(a: ManArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.out {
        None => clap_mangen::Man::new(<crate::cli::Cli as clap::CommandFactory>::command())
            .render(out)
            .map_err(io),
        Some(dir) => {
            let written =
                terminal::man_pages(&dir).map_err(|e| Failure::refused(format!("{}: {e}", dir.display())))?;
            writeln!(out, "Wrote {} manual pages into {}", written, dir.display()).map_err(io)
        }
    }
}
