//! `ravenpost army commit|reveal`: a secret army choice (Fantasy Grand Chess).

use std::io::Write;

use clap::Subcommand;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Fantasy Grand Chess secret army choice: commit to an army unseen, then reveal it.
#[derive(Debug, clap::Args)]
pub(crate) struct ArmyArgs {
    #[command(subcommand)]
    action: ArmyCmd,
}

/// `ravenpost army` actions.
#[derive(Debug, Subcommand)]
enum ArmyCmd {
    /// Commit to an army without showing it: its salted hash is committed; the army and
    /// salt stay in this clone (.git/ravenpost/armies/) until the reveal.
    Commit {
        /// The game id (made with `ravenpost new fantasy-grand --secret-armies`).
        game: String,
        /// humans, elves, dwarves, evil-horde, giants, or druid (with druid=allowed).
        army: String,
        /// Who commits (default: your identity, if a player).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Reveal the army you committed to, once both players have committed; when both have
    /// revealed, the game file is created and the game starts.
    Reveal {
        /// The game id.
        game: String,
        /// Who reveals (default: your identity, if a player).
        #[arg(long = "as", value_name = "NAME")]
        who: Option<String>,
        /// The army, when this clone did not make the commitment (with --salt).
        #[arg(long, requires = "salt")]
        army: Option<String>,
        /// The salt saved at commit time in .git/ravenpost/armies/<GAME>.<white|black>.yaml
        /// of the committing clone (with --army).
        #[arg(long, requires = "army")]
        salt: Option<String>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `ravenpost army commit|reveal`.
pub(crate) fn run(s: &Session, a: ArmyArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let (outcome, json) = match a.action {
        ArmyCmd::Commit { game, army, who, json } => {
            (ops::army_commit(&archive, &game, &army, who.as_deref(), s)?, json)
        }
        ArmyCmd::Reveal { game, who, army, salt, json } => {
            let given = army.zip(salt);
            (ops::army_reveal(&archive, &game, who.as_deref(), given, s)?, json)
        }
    };
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&outcome).expect("json")).map_err(io)?;
    } else {
        writeln!(out, "{} (commit {})", outcome.summary, outcome.commits.join(", ")).map_err(io)?;
    }
    Ok(())
}
