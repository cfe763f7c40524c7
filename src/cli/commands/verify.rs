//! `ravenpost verify`: replay the git history of each game and check every commit.

use std::io::Write;

use crate::cli::failure::{Failure, io, plural};
use crate::cli::progress;
use crate::usecases::{self as ops, Session};

/// Replay the git history of each game (or one) and check that every commit creates
/// the game, adds exactly one legal ply by the player to move, or records one action
/// (resignation, draw, win on time checked against the clock, leave) by the player
/// entitled to it, signed where the game lists the player's key; secret army choices
/// are checked step by step. Edits made with plain git are caught.
#[derive(Debug, clap::Args)]
pub(crate) struct VerifyArgs {
    /// The game id (default: every game).
    game: Option<String>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// `ravenpost verify [GAME]`.
pub(crate) fn run(s: &Session, a: VerifyArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let mut bar = progress::Bar::new(a.json, "verifying");
    let report = ops::verify(&archive, a.game.as_deref(), &mut |done, total| bar.set(done, total))?;
    bar.finish();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report).expect("json")).map_err(io)?;
    } else {
        for p in &report.problems {
            errln!("{} commit {} by {}: {}", p.game, p.commit, p.author, p.problem);
        }
        writeln!(
            out,
            "{} game{} verified, {} problem{}",
            report.games,
            plural(report.games),
            report.problems.len(),
            plural(report.problems.len())
        )
        .map_err(io)?;
        if let Some(b) = &report.shallow {
            let plies: usize = b.games.iter().map(|g| g.plies).sum();
            writeln!(
                out,
                "shallow clone: the history starts at {}; {plies} earlier pl{} in {} game{} not checked (`git fetch --unshallow` brings them)",
                b.commit,
                if plies == 1 { "y" } else { "ies" },
                b.games.len(),
                plural(b.games.len())
            )
            .map_err(io)?;
        }
    }
    if !report.problems.is_empty() {
        return Err(Failure::quiet());
    }
    Ok(())
}
