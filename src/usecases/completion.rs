//! What a shell's completion offers for a game or a variant argument: the archive's game
//! ids (the games waiting for the identity's move first, as `status --to-move` orders
//! them) and the variant names a command takes (the built-ins, their aliases and the
//! archive's own definitions).
//!
//! Read only as `status` reads: the answers are a convenience, so any error leaves
//! them out rather than failing.

use crate::referee::layout::{DEFINITIONS_DIR, parse_definition_path};
use crate::variants;

use super::checks::{StatusLine, status_where};
use super::error::Error as Failure;
use super::games::open;
use super::session::Session;
use super::tournament::identity_name;

/// Where a game stands for the one who completes its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    /// Waiting for the identity's move.
    YourMove,
    /// Going on, waiting for another player (or for the armies to be chosen).
    Waiting,
    /// Finished.
    Finished,
    /// A file that does not replay.
    Invalid,
}

/// One game id a completion offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameChoice {
    /// The game id.
    pub id: String,
    /// The variant's slug.
    pub variant: String,
    /// First player.
    pub white: String,
    /// Second player.
    pub black: String,
    /// Plies played.
    pub ply: usize,
    /// Where the game stands for the identity.
    pub standing: Standing,
}

/// The games of the archive the session names whose id starts with `prefix` (only
/// those are read), the identity's games to move first (the
/// most urgent deadline first, as `status --to-move`), then the games waiting for another
/// player, the finished ones and the invalid ones, each group by id. Without an identity
/// no game is "yours".
///
/// # Errors
/// An archive that cannot be opened or read.
pub fn game_choices(session: &Session, prefix: &str) -> Result<Vec<GameChoice>, Failure> {
    let archive = open(session, false)?;
    let me = identity_name(&archive, session).ok();
    let lines = status_where(&archive, session, |id| id.starts_with(prefix))?;
    Ok(order(lines, me.as_deref()))
}

/// The lines of `status` as choices, in completion order (see [`game_choices`]).
fn order(lines: Vec<StatusLine>, me: Option<&str>) -> Vec<GameChoice> {
    let deadline = |l: &StatusLine| l.clock.as_ref().map_or(i64::MAX, |c| c.deadline.timestamp());
    let mut keyed: Vec<(Standing, i64, GameChoice)> = lines
        .into_iter()
        .map(|l| {
            let standing = match (&l.problem, &l.to_move) {
                (Some(_), _) => Standing::Invalid,
                (None, Some(who)) if Some(who.as_str()) == me => Standing::YourMove,
                (None, None) if l.army_choice.is_none() => Standing::Finished,
                (None, _) => Standing::Waiting,
            };
            // The deadline orders only the games waiting for your move.
            let urgency = if standing == Standing::YourMove { deadline(&l) } else { 0 };
            let choice = GameChoice {
                id: l.id,
                variant: l.variant,
                white: l.white,
                black: l.black,
                ply: l.ply,
                standing,
            };
            (standing, urgency, choice)
        })
        .collect();
    keyed.sort_by(|a, b| (a.0, a.1, &a.2.id).cmp(&(b.0, b.1, &b.2.id)));
    keyed.into_iter().map(|(_, _, c)| c).collect()
}

/// The variant names a command takes: each built-in's slug and aliases, then the
/// archive's own definitions (`variants/<name>.md`) when there is a session whose
/// archive opens (none otherwise).
pub fn variant_names(session: Option<&Session>) -> Vec<String> {
    let mut names = variants::known_names();
    let archive_defs = session.and_then(|s| open(s, false).ok()).and_then(|a| {
        let tip = a.tip().ok()??;
        let files = a.list_files_at(tip, DEFINITIONS_DIR).ok()?;
        Some(files.iter().filter_map(|p| parse_definition_path(p).map(str::to_string)).collect::<Vec<_>>())
    });
    for name in archive_defs.unwrap_or_default() {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: &str, to_move: Option<&str>, deadline: Option<i64>) -> StatusLine {
        StatusLine {
            id: id.into(),
            variant: "gygax".into(),
            white: "Ann".into(),
            black: "Bo".into(),
            ply: 3,
            to_move: to_move.map(str::to_string),
            side_to_move: to_move.map(|_| "Gold".to_string()),
            result: if to_move.is_some() { "*" } else { "1-0" }.into(),
            ending: None,
            draw_offer: None,
            clock: deadline.map(|d| crate::referee::clock::Clock {
                player: to_move.unwrap_or_default().to_string(),
                deadline: chrono::DateTime::from_timestamp(d, 0).unwrap(),
                seconds_left: 0,
                overdue: false,
            }),
            problem: None,
            army_choice: None,
            prepared: Vec::new(),
            account_tags: [None, None],
        }
    }

    /// Yours to move first, the nearest deadline first; then the others, the finished
    /// ones, by id.
    #[test]
    fn your_games_to_move_come_first() {
        let lines = || {
            vec![
                line("a-finished", None, None),
                line("b-bo", Some("Bo"), Some(10)),
                line("c-late", Some("Ann"), Some(2_000)),
                line("d-soon", Some("Ann"), Some(1_000)),
                line("e-open", Some("Ann"), None),
            ]
        };
        let ids = |me| order(lines(), me);
        let got: Vec<(String, Standing)> = ids(Some("Ann")).into_iter().map(|c| (c.id, c.standing)).collect();
        assert_eq!(
            got,
            [
                ("d-soon".to_string(), Standing::YourMove),
                ("c-late".to_string(), Standing::YourMove),
                ("e-open".to_string(), Standing::YourMove),
                ("b-bo".to_string(), Standing::Waiting),
                ("a-finished".to_string(), Standing::Finished),
            ]
        );
        // Without an identity: the games going on by id, then the finished one.
        let got: Vec<String> = ids(None).into_iter().map(|c| c.id).collect();
        assert_eq!(got, ["b-bo", "c-late", "d-soon", "e-open", "a-finished"]);
    }
}
