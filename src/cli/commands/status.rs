//! `ravenpost status`: every game of the archive, or those waiting for one player.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session, StatusLine};

/// Every game in the archive: variant, players, ply, whose turn, result, deadline.
#[derive(Debug, clap::Args)]
pub(crate) struct StatusArgs {
    /// Print as JSON.
    #[arg(long)]
    json: bool,
    /// Only the games waiting for this player's move (default: your identity's name),
    /// the most urgent deadline first.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    to_move: Option<String>,
}

/// `ravenpost status [--to-move [NAME]]`.
pub(crate) fn run(s: &Session, a: StatusArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let player = match a.to_move.as_deref() {
        None => None,
        Some("") => Some(ops::identity_name(&archive, s)?),
        Some(name) => Some(name.to_string()),
    };
    let lines = match &player {
        None => ops::status(&archive, s)?,
        Some(p) => ops::to_move(&archive, p, s)?,
    };
    let dir = archive.dir().display();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&lines).expect("json")).map_err(io)?;
    } else if let (Some(p), true) = (&player, lines.is_empty()) {
        writeln!(out, "No games waiting for {p}'s move in {dir}").map_err(io)?;
    } else if lines.is_empty() {
        writeln!(out, "No games in {dir} (start one with `ravenpost new`)").map_err(io)?;
    } else {
        writeln!(out, "Archive: {dir}").map_err(io)?;
        let players: Vec<String> = lines.iter().map(|l| format!("{} v {}", l.white, l.black)).collect();
        let id_w = lines.iter().map(|l| l.id.chars().count()).max().unwrap_or(0);
        let var_w = lines.iter().map(|l| l.variant.len()).max().unwrap_or(0);
        let pl_w = players.iter().map(|p| p.chars().count()).max().unwrap_or(0);
        for (l, pl) in lines.iter().zip(&players) {
            let state = state(l);
            writeln!(
                out,
                "{:<id_w$}  {:<var_w$}  {:<pl_w$}  ply {:<4} {}",
                l.id, l.variant, pl, l.ply, state
            )
            .map_err(io)?;
        }
    }
    Ok(())
}

/// A player as messages name them, `Ann (Gold)` (as [`crate::record::named`]).
fn named(who: &str, side: Option<&str>) -> String {
    match (who, side) {
        ("" | "?", Some(side)) => side.to_string(),
        (who, Some(side)) => format!("{who} ({side})"),
        (who, None) => who.to_string(),
    }
}

/// A game's state as its `status` line ends: to move, finished or invalid, with the
/// draw offer, prepared replies and deadline.
fn state(l: &StatusLine) -> String {
    let mut state = match (&l.problem, &l.to_move) {
        (Some(p), _) => format!("INVALID: {p}"),
        (None, None) if l.army_choice.is_some() => {
            format!("choosing armies in secret: {}", l.army_choice.clone().unwrap_or_default())
        }
        (None, Some(who)) => format!("{} to move", named(who, l.side_to_move.as_deref())),
        (None, None) => match &l.ending {
            Some(how) => format!("finished {} ({how})", l.result),
            None => format!("finished {}", l.result),
        },
    };
    if let Some(side) = &l.draw_offer {
        // The offer is the side to move's (made with their next move) or the other's.
        let by = match (&l.to_move, &l.side_to_move) {
            (Some(who), Some(to_move)) if to_move == side => named(who, Some(side)),
            (Some(who), Some(_)) => {
                let other = if *who == l.white { &l.black } else { &l.white };
                named(other, Some(side))
            }
            _ => side.clone(),
        };
        state.push_str(&format!(", draw offered by {by}"));
    }
    if !l.prepared.is_empty() {
        state.push_str(&format!(", prepared replies ({})", l.prepared.join(", ")));
    }
    if let Some(c) = &l.clock {
        let deadline = crate::referee::problem::rfc3339(&c.deadline);
        let span = crate::referee::Span(c.seconds_left);
        if c.overdue {
            state.push_str(&format!(", OVERDUE since {deadline} ({span} ago)"));
        } else {
            state.push_str(&format!(", deadline {deadline} ({span} left)"));
        }
    }
    state
}
