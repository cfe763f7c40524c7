//! The command line as parsed and shown: the global options shown once
//! ([`command_with`]).

use clap::CommandFactory;

use super::Cli;

/// The heading of the global options in `ravenpost --help` and ravenpost(1).
pub(super) const GLOBAL_OPTIONS: &str = "Global options";

/// The line each subcommand's help has in place of the global options.
pub(crate) const GLOBAL_OPTIONS_NOTE: &str =
    "Global options (--archive, --author, --signing-key, --break-lock): see `ravenpost --help`";

/// The command line as parsed and shown: [`Cli`]'s, with the global options shown once.
/// `ravenpost --help` lists them under "Global options"; after a subcommand they are
/// still accepted (`ravenpost show g --archive DIR`) but hidden from its help, which
/// names them in one line ([`GLOBAL_OPTIONS_NOTE`], or `note` for the manual pages).
pub(crate) fn command_with(note: Option<&str>) -> clap::Command {
    built(note, true)
}

/// [`command_with`] the note of `--help`, `pieces`: with the built-in variants' pieces
/// at the end of `move --help` (read from their definitions: only where help is shown).
fn built(note: Option<&str>, pieces: bool) -> clap::Command {
    let cmd = Cli::command();
    // Each subcommand gets a hidden copy of each global option before clap builds the
    // command: clap then leaves the copy in place (it propagates a global option only to
    // a subcommand without it), and a value given after the subcommand still reaches
    // the top level, where `Cli` reads it, by the option's id.
    let hidden: Vec<clap::Arg> =
        cmd.get_arguments().filter(|a| a.is_global_set()).map(|a| a.clone().hide(true)).collect();
    fn hide_in(mut sc: clap::Command, hidden: &[clap::Arg], note: Option<&str>) -> clap::Command {
        for a in hidden {
            sc = sc.arg(a.clone());
        }
        if let Some(note) = note {
            let join = |before: Option<&clap::builder::StyledStr>| match before {
                Some(b) => format!("{b}\n\n{note}"),
                None => note.to_string(),
            };
            let long = sc.get_after_long_help().map(|h| join(Some(h)));
            let short = join(sc.get_after_help());
            sc = sc.after_help(short);
            if let Some(long) = long {
                sc = sc.after_long_help(long);
            }
        }
        let names: Vec<String> = sc.get_subcommands().map(|c| c.get_name().to_string()).collect();
        for name in names {
            sc = sc.mut_subcommand(name, |c| hide_in(c, hidden, note));
        }
        sc
    }
    let names: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
    // `mut_subcommand` moves the subcommand last: each is taken once, in order, so that
    // they keep their order.
    names.into_iter().fold(cmd, |cmd, name| {
        let with_pieces = pieces && name == "move";
        cmd.mut_subcommand(name, |c| {
            let c = if with_pieces { c.after_long_help(super::commands::variant::pieces_help()) } else { c };
            hide_in(c, &hidden, note)
        })
    })
}

/// [`command_with`] the note of `--help`: the command line `ravenpost` shows.
pub fn command() -> clap::Command {
    command_with(Some(GLOBAL_OPTIONS_NOTE))
}

/// The command line `ravenpost` parses from `args` (the program's name first): as
/// [`command`], the pieces of `move --help` only when `args` may ask for help (start-up
/// reads no variant definition for them otherwise).
pub(super) fn for_parsing(args: &[std::ffi::OsString]) -> clap::Command {
    let asks_help = args.iter().skip(1).any(|a| a == "--help" || a == "-h" || a == "help");
    built(Some(GLOBAL_OPTIONS_NOTE), asks_help)
}
