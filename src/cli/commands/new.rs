//! `ravenpost new`: start a game.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::usecases::{self as ops, Session};

/// Start a game: write its file with its tags and commit it.
#[derive(Debug, clap::Args)]
pub(crate) struct NewArgs {
    /// Variant: gygax, fidchell, fantasy-grand, grand, or a definition of the archive
    /// (variants/<name>.md); omitted with --variant-file.
    #[arg(required_unless_present = "variant_file")]
    variant: Option<String>,
    /// Play the variant defined in this file: committed to the archive as
    /// variants/<slug>.md (unless it is there already), and pinned by the game's
    /// VariantFile and VariantHash tags.
    #[arg(long, value_name = "FILE", conflicts_with = "variant")]
    variant_file: Option<PathBuf>,
    /// The first player's name (Gold in Gygax Chess).
    #[arg(long)]
    white: String,
    /// The second player's name (Scarlet in Gygax Chess).
    #[arg(long)]
    black: String,
    /// Fantasy Grand Chess: the first player's army.
    #[arg(long, value_name = "ARMY")]
    army_white: Option<String>,
    /// Fantasy Grand Chess: the second player's army.
    #[arg(long, value_name = "ARMY")]
    army_black: Option<String>,
    /// Game option K=V (repeatable), e.g. introduction=default.
    #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
    options: Vec<(String, String)>,
    /// A variant whose start is drawn 960-style (`castling: { …, chess960: true }`):
    /// the seed naming the start (default: a random one); the start is written in the
    /// game's FEN tag.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// The game's id (default: date-white-black).
    #[arg(long)]
    id: Option<String>,
    /// The Event tag.
    #[arg(long)]
    event: Option<String>,
    /// The TimeControl tag, e.g. 1/3d (three days a move).
    #[arg(long, value_name = "TC")]
    time_control: Option<String>,
    /// Require the first player's moves and actions to be signed by this SSH public key
    /// (a key line "ssh-ed25519 AAAA…", or a .pub file); kept as the WhiteSigningKey tag.
    #[arg(long, value_name = "KEY|FILE")]
    white_key: Option<String>,
    /// The same for the second player (BlackSigningKey tag).
    #[arg(long, value_name = "KEY|FILE")]
    black_key: Option<String>,
    /// Fantasy Grand Chess: each player chooses an army in secret (`ravenpost army
    /// commit`, then `ravenpost army reveal`); the game file is made when both revealed.
    #[arg(long, conflicts_with_all = ["army_white", "army_black"])]
    secret_armies: bool,
    /// The first player's email address (the WhiteEmail tag; `mail send` writes to it).
    #[arg(long, value_name = "ADDRESS")]
    white_email: Option<String>,
    /// The second player's email address (the BlackEmail tag).
    #[arg(long, value_name = "ADDRESS")]
    black_email: Option<String>,
    /// The first player's account(s) on the club's git server (comma-separated; the
    /// WhiteAccount tag): when the server names the pusher, only these may push their steps.
    #[arg(long, value_name = "ACCOUNT")]
    white_account: Option<String>,
    /// The same for the second player (the BlackAccount tag).
    #[arg(long, value_name = "ACCOUNT")]
    black_account: Option<String>,
}

/// `ravenpost new VARIANT --white W --black B …`.
pub(crate) fn run(s: &Session, a: NewArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, true)?;
    let armies = match (a.army_white, a.army_black) {
        (None, None) => None,
        (w, b) => Some((w.unwrap_or_else(|| "humans".into()), b.unwrap_or_else(|| "humans".into()))),
    };
    let secret_armies = a.secret_armies;
    let n = ops::NewGame {
        seed: a.seed,
        variant: a.variant.unwrap_or_default(),
        variant_file: a.variant_file,
        white: a.white,
        black: a.black,
        options: args::options(&a.options)?,
        armies,
        id: a.id,
        event: a.event,
        time_control: a.time_control,
        keys: [a.white_key, a.black_key],
        secret_armies,
        emails: [a.white_email, a.black_email],
        accounts: [a.white_account, a.black_account],
    };
    let (path, commit) = ops::new_game(&archive, n, s)?;
    writeln!(out, "{} (commit {})", path.id(), commit.short()).map_err(io)?;
    if let Some(dir) = ops::per_user_dir(s, &archive) {
        let note = format!("ravenpost: the game is in your per-user archive at {}", dir.display());
        errln!("{}", terminal::fit_stderr(&note));
    }
    if secret_armies {
        writeln!(
            out,
            "Armies are chosen in secret: each player runs `ravenpost army commit {} ARMY`, then `ravenpost army reveal {}`",
            path.id(),
            path.id()
        )
        .map_err(io)?;
    }
    Ok(())
}
