//! `ravenpost archive migrate-layout`: the archive's own upkeep.

use std::io::Write;

use clap::Subcommand;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// The archive's upkeep: move an archive made before the fan-out layout to it.
#[derive(Debug, clap::Args)]
pub(crate) struct ArchiveArgs {
    #[command(subcommand)]
    action: ArchiveCmd,
}

/// `ravenpost archive` actions.
#[derive(Debug, Subcommand)]
enum ArchiveCmd {
    /// Move every game file from games/<variant>/<id>.pgn to the fan-out
    /// games/<variant>/<x>/<y>/<id>.pgn (army choices beside them) and set
    /// `layout: fan-out` in ravenpost.yaml, in one commit that moves files unchanged.
    /// Every game keeps its history (log, verify follow it across the move). A club's
    /// hook accepts the commit from an admin when ravenpost.yaml names admins.
    MigrateLayout {
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `ravenpost archive ...`.
pub(crate) fn run(s: &Session, a: ArchiveArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.action {
        ArchiveCmd::MigrateLayout { json } => {
            let archive = ops::open(s, false)?;
            let done = ops::migrate_layout(&archive, s)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&done).expect("json")).map_err(io)
            } else {
                writeln!(
                    out,
                    "{}: moved {} games and {} army choices to the fan-out layout",
                    done.commit, done.games, done.army_choices
                )
                .map_err(io)
            }
        }
    }
}
