//! `ravenpost log`: one line per change of a game, or of every game.

use std::io::Write;

use crate::archive::Archive;
use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// One line per change of a game, from the git history: ply, move, author, time; without
/// a game, every game's changes in time order.
#[derive(Debug, clap::Args)]
pub(crate) struct LogArgs {
    /// The game id (default: every game of the archive).
    game: Option<String>,
    /// Print as JSON (`commit`: 12 hex digits; `hash`: the full 40; with no game, each
    /// entry names its `game`).
    #[arg(long)]
    json: bool,
}

/// `ravenpost log [GAME]`.
pub(crate) fn run(s: &Session, a: LogArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let Some(game) = a.game else { return archive_log(&archive, a.json, out) };
    // A Fantasy Grand game with a secret army choice: the choice comes first (and is
    // all there is until both armies are revealed).
    let wanted = game.trim_start_matches("fantasy-grand/");
    let choice = archive.has_army_choice(wanted)?.then(|| wanted.to_string());
    let mut lines = match &choice {
        Some(id) => ops::choice_history(&archive, id)?,
        None => Vec::new(),
    };
    match ops::find(&archive, &game) {
        Ok(path) => lines.extend(ops::history(&archive, &path)?),
        Err(e) if lines.is_empty() => return Err(e.into()),
        Err(_) => {}
    }
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&lines).expect("json")).map_err(io)?;
    } else {
        for l in &lines {
            let what = match &l.problem {
                Some(p) => format!("INVALID: {p}"),
                None if l.prepared => format!("{} (prepared reply)", l.what),
                None => log_what(l),
            };
            writeln!(out, "{}  {}  {:<16} {}", l.commit, log_time(&l.time), l.author, what).map_err(io)?;
        }
    }
    Ok(())
}

/// `ravenpost log` without a game: every game's history, merged in time order (games in
/// path order at equal times), one line each, or as JSON.
fn archive_log(a: &Archive, json: bool, out: &mut impl Write) -> Result<(), Failure> {
    /// One entry of `log --json` without a game (docs/schemas/log.schema.json).
    #[derive(serde::Serialize)]
    struct Entry {
        game: String,
        #[serde(flatten)]
        line: ops::LogLine,
    }
    let mut entries = Vec::new();
    for path in a.list_games()? {
        let id = format!("{}/{}", path.variant(), path.id());
        entries.extend(ops::history(a, &path)?.into_iter().map(|line| Entry { game: id.clone(), line }));
    }
    entries.sort_by(|x, y| x.line.time.cmp(&y.line.time));
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&entries).expect("json")).map_err(io)?;
        return Ok(());
    }
    let width = entries.iter().map(|e| e.game.chars().count()).max().unwrap_or(0);
    for e in &entries {
        let l = &e.line;
        let what = match (&l.problem, &l.result, &l.reason) {
            (Some(p), ..) => format!("INVALID: {p}"),
            (None, Some(result), Some(reason)) => format!("{}, result {result} · {reason}", l.what),
            (None, ..) => l.what.clone(),
        };
        writeln!(out, "{}  {}  {:<width$}  {:<16} {what}", l.commit, log_time(&l.time), e.game, l.author)
            .map_err(io)?;
    }
    Ok(())
}

/// A commit time (RFC 3339) as a `log` line shows it: UTC as `Z`, RFC 3339's short form
/// (`2026-12-01T18:46:53Z`), so that a line fits 80 columns more often.
pub(crate) fn log_time(time: &str) -> String {
    time.strip_suffix("+00:00").map_or_else(|| time.to_string(), |t| format!("{t}Z"))
}

/// What a `log` line says a commit did, for reading: a recorded action (`log --json`'s
/// `Scarlet declines the draw (*)`) naming its player, its author, with the side
/// (`Bo (Scarlet) declines the draw`), without the result when it stays `*`, and with
/// the word when it changed (`Bo (Scarlet) resigns, result 1-0`); a move with which the
/// rules ended the game, with the result and why (`ply 3 Kf7, result 1-0 · bare king`).
fn log_what(l: &ops::LogLine) -> String {
    if let (Some(result), Some(reason)) = (&l.result, &l.reason) {
        return format!("{}, result {result} · {reason}", l.what);
    }
    if l.ply.is_none() {
        for result in ["*", "1-0", "0-1", "1/2-1/2"] {
            if let Some(action) = l.what.strip_suffix(&format!(" ({result})")) {
                let action = with_author(action, &l.author);
                return match result {
                    "*" => action,
                    r => format!("{action}, result {r}"),
                };
            }
        }
    }
    l.what.clone()
}

/// A recorded action's summary, which names the side (`Scarlet resigns`), with its
/// author, the player who took it, before the side: `Bo (Scarlet) resigns`.
fn with_author(action: &str, author: &str) -> String {
    const DONE: [&str; 6] = [
        "resigns",
        "offers a draw",
        "accepts the draw",
        "declines the draw",
        "claims a draw",
        "wins on time",
    ];
    match action.split_once(' ') {
        Some((side, rest)) if DONE.iter().any(|d| rest.starts_with(d)) && !matches!(author, "" | "?") => {
            format!("{author} ({side}) {rest}")
        }
        _ => action.to_string(),
    }
}
