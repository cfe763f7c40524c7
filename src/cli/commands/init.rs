//! `ravenpost init`: create an archive.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::name_account;
use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Create an archive: a git repository for game files (an empty or new directory, an
/// existing repository, or one with no commit yet).
#[derive(Debug, clap::Args)]
pub(crate) struct InitArgs {
    /// Where (default: the current directory).
    dir: Option<PathBuf>,
    /// Board diagrams in game files: `every-move` writes the plain diagram of the new
    /// position after each move as `;|` comment lines (ravenpost.yaml `diagrams:`).
    #[arg(long, value_enum, default_value_t = DiagramsArg::None)]
    diagrams: DiagramsArg,
    /// An account on the club's git server that may push the archive's set-up (this
    /// first commit, new games, army choices) when the server names the pusher
    /// (repeatable; ravenpost.yaml `admins`).
    #[arg(long = "admin", value_name = "ACCOUNT")]
    admins: Vec<String>,
    /// A player's account on the club's git server, for games without
    /// WhiteAccount/BlackAccount tags (repeatable; ravenpost.yaml `accounts`).
    #[arg(long = "account", value_name = "NAME=ACCOUNT", value_parser = name_account)]
    accounts: Vec<(String, String)>,
    /// Where game files go: `fan-out` (games/<variant>/<x>/<y>/<id>.pgn, which git walks
    /// cheaply in archives of thousands of games) or `flat` (games/<variant>/<id>.pgn, as
    /// archives of earlier releases; ravenpost.yaml `layout:`).
    #[arg(long, value_enum, default_value_t = LayoutArg::FanOut)]
    layout: LayoutArg,
}

/// `init --layout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LayoutArg {
    /// games/<variant>/<x>/<y>/<id>.pgn.
    FanOut,
    /// games/<variant>/<id>.pgn.
    Flat,
}

/// `init --diagrams`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DiagramsArg {
    /// No diagrams.
    None,
    /// The diagram of the new position after every move.
    EveryMove,
}

impl From<DiagramsArg> for crate::archive::Diagrams {
    fn from(d: DiagramsArg) -> crate::archive::Diagrams {
        match d {
            DiagramsArg::None => crate::archive::Diagrams::None,
            DiagramsArg::EveryMove => crate::archive::Diagrams::EveryMove,
        }
    }
}

/// `ravenpost init [DIR]`.
pub(crate) fn run(s: &Session, a: InitArgs, out: &mut impl Write) -> Result<(), Failure> {
    let layout = match a.layout {
        LayoutArg::FanOut => crate::archive::Layout::FanOut,
        LayoutArg::Flat => crate::archive::Layout::Flat,
    };
    let club = ops::ClubSetup { admins: a.admins, accounts: a.accounts, layout: Some(layout) };
    let msg = ops::init_club(s, a.dir, a.diagrams.into(), club)?;
    writeln!(out, "{msg}").map_err(io)
}
