//! `ravenpost archive migrate-layout` and `ravenpost archive settings`: the archive's own
//! upkeep.

use std::io::Write;

use clap::Subcommand;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// The archive's upkeep: its settings (ravenpost.yaml), and moving an archive made before
/// the fan-out layout to it.
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
    /// Show the archive's settings (ravenpost.yaml at the tip), or change them in one
    /// commit that changes only ravenpost.yaml: `set KEY VALUE`, `unset KEY`, or `--file
    /// NEW.yaml` for the whole file. KEY is a dotted path: `club.referee`,
    /// `mail.smtp.host`, `players."Bo Example".plays-by` (a name with a dot or other
    /// punctuation in double quotes). VALUE is read as YAML: `2525` is a number,
    /// `[ann, ann-laptop]` a list, `'"2525"'` a string. The new file must read; `version`
    /// and `layout` cannot change (layout: `ravenpost archive migrate-layout`). A club's
    /// hook takes the commit only from an admin of the settings before it, when those
    /// name admins; games already created keep the rules their tags pin. `set` and
    /// `unset` rewrite the file without its comments; `--file` keeps the file as it is.
    #[command(args_conflicts_with_subcommands = true)]
    Settings {
        #[command(subcommand)]
        change: Option<SettingsCmd>,
        /// Replace the whole ravenpost.yaml with this file (`-`: standard input); it may be
        /// the working tree's ravenpost.yaml, edited.
        #[arg(long, value_name = "NEW.yaml")]
        file: Option<std::path::PathBuf>,
        /// Print the settings, or what was changed, as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `ravenpost archive settings` changes.
#[derive(Debug, Subcommand)]
enum SettingsCmd {
    /// Set one setting and commit: `set club.referee games@club.org`.
    Set {
        /// The setting's dotted path, e.g. `mail.smtp.host`.
        key: String,
        /// Its value, read as YAML.
        value: String,
        /// Print what was changed as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove one setting (and the sections it leaves empty) and commit.
    Unset {
        /// The setting's dotted path.
        key: String,
        /// Print what was changed as JSON.
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
        ArchiveCmd::Settings { change, file, json } => settings(s, change, file, json, out),
    }
}

/// `ravenpost archive settings [set|unset] [--file]`.
fn settings(
    s: &Session,
    change: Option<SettingsCmd>,
    file: Option<std::path::PathBuf>,
    json: bool,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let (edit, json) = match (change, file) {
        (Some(SettingsCmd::Set { key, value, json: j }), _) => {
            (ops::SettingsEdit::Set { key, value }, json || j)
        }
        (Some(SettingsCmd::Unset { key, json: j }), _) => (ops::SettingsEdit::Unset { key }, json || j),
        (None, Some(path)) => {
            let text = crate::cli::files::read_text(&path).map_err(Failure::input)?;
            (ops::SettingsEdit::Replace { text }, json)
        }
        (None, None) => {
            let shown = ops::show_settings(&archive)?;
            return if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&shown.settings).expect("json")).map_err(io)
            } else {
                write!(out, "{}", shown.text).map_err(io)
            };
        }
    };
    let done = ops::change_settings(&archive, s, &edit)?;
    if json {
        return writeln!(out, "{}", serde_json::to_string_pretty(&done).expect("json")).map_err(io);
    }
    writeln!(out, "{}: changed the settings (ravenpost.yaml):", done.commit).map_err(io)?;
    for c in &done.changes {
        writeln!(out, "  {c}").map_err(io)?;
    }
    if done.changes.is_empty() {
        writeln!(out, "  (the file's form only: no setting changed)").map_err(io)?;
    }
    writeln!(out, "Push it with `ravenpost sync`.").map_err(io)
}
