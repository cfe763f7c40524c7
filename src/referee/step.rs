//! What one version of a game file may be, given the one before: the game's creation,
//! one legal ply by the player to move, or one recorded action (resignation, draw offer,
//! answer or claim, time-forfeit claim, booked leave) by the player entitled to it, with
//! nothing earlier changed. [`check_step_at`] judges that from the two texts; the
//! [`super::judge`] functions add what a commit brings (its author, time and signature).

use serde::{Deserialize, Serialize};

use crate::notation::pgn::GameText;
use crate::record::game::Game;
use crate::record::{
    MAX_CLOCK_SKEW, MoveOptions, load, move_times, play_move_unwritten, player, recognise_action, result_of,
    same_game,
};

use super::problem::{Problem, time_from_unix};

/// What one version of a game file does relative to the one before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// The first version: a new game.
    Created,
    /// One ply was added, by the named player.
    Moved {
        /// 1-based ply.
        ply: usize,
        /// Canonical token.
        san: String,
        /// The player to move before it.
        player: String,
    },
    /// The game ended (resignation, agreement, claim) or an offer was made or answered,
    /// or leave was booked, without a move.
    Recorded {
        /// The result after the change.
        result: String,
        /// The player who acted.
        player: String,
        /// What was done, e.g. `Scarlet resigns`.
        summary: String,
    },
}

impl Step {
    /// Who acted (`None` for a game's creation, which is nobody's move).
    pub fn actor(&self) -> Option<&str> {
        match self {
            Step::Created => None,
            Step::Moved { player, .. } | Step::Recorded { player, .. } => Some(player),
        }
    }
}

/// Checks that `new` follows from `old` (None: `new` creates the game) by exactly one
/// legal ply or a recorded resignation/draw action, with nothing earlier changed, and that
/// `author` (if given) is the player who acted.
///
/// # Errors
/// The [`Problem`].
pub fn check_step(old: Option<&str>, new: &str, author: Option<&str>) -> Result<Step, Problem> {
    check_step_at(old, new, author, None)
}

/// As [`check_step`], and checks the recorded move times ([`crate::record::TIME_PREFIX`]): the
/// times of earlier plies are unchanged, an added ply's time is not before the last
/// recorded time before it, and not after `commit_time` (Unix seconds, the commit adding
/// it, when known) plus [`MAX_CLOCK_SKEW`]. A ply without a time is accepted (files of
/// older ravenposts and of other tools; clocks then use the commit time).
///
/// # Errors
/// The [`Problem`].
pub fn check_step_at(
    old: Option<&str>,
    new: &str,
    author: Option<&str>,
    commit_time: Option<i64>,
) -> Result<Step, Problem> {
    let g1 = load(new).map_err(|e| Problem::Unreadable { why: e.to_string() })?;
    match old {
        None => {
            move_times(&g1.text).map_err(|why| Problem::BadMoveTime { why })?;
            Ok(Step::Created)
        }
        Some(old) => {
            let g0 = load(old).map_err(|e| Problem::PreviousUnreadable { why: e.to_string() })?;
            check_step_from(&g0, old, &g1, author, commit_time)
        }
    }
}

/// As [`check_step_at`] for a step from the replayed game `g0` (whose text is `old`) to
/// `g1`: no replay of either.
///
/// # Errors
/// The [`Problem`].
pub fn check_step_from(
    g0: &Game,
    old: &str,
    g1: &Game,
    author: Option<&str>,
    commit_time: Option<i64>,
) -> Result<Step, Problem> {
    let t1 = move_times(&g1.text).map_err(|why| Problem::BadMoveTime { why })?;
    let t0 = move_times(&g0.text).map_err(|why| Problem::PreviousUnreadable { why })?;
    let fixed = |t: &GameText| -> Vec<(String, String)> {
        t.tags
            .iter()
            .filter(|x| !matches!(x.name.as_str(), "Result" | "Termination"))
            .map(|x| (x.name.clone(), x.value.clone()))
            .collect()
    };
    // Tags are compared in canonical form (only when they differ as written), so that
    // layout and defaulted tags do not count as changes.
    let canonical_tags = |g: &Game| -> Result<Vec<(String, String)>, Problem> {
        Ok(fixed(&load(&g.canonical_text()).map_err(|e| Problem::Unreadable { why: e.to_string() })?.text))
    };
    if g0.start != g1.start
        || (fixed(&g0.text) != fixed(&g1.text) && canonical_tags(g0)? != canonical_tags(g1)?)
    {
        return Err(Problem::TagsChanged);
    }
    let r0 = result_of(g0);
    let r1 = result_of(g1);
    if g1.moves.len() < g0.moves.len() || g1.moves[..g0.moves.len()] != g0.moves[..] {
        let at = g0.moves.iter().zip(&g1.moves).position(|(a, b)| a != b).unwrap_or(g1.moves.len());
        return Err(Problem::MoveRewritten { ply: at + 1 });
    }
    if let Some(k) = t0.iter().zip(&t1).position(|(a, b)| a != b) {
        return Err(Problem::MoveTimeRewritten { ply: k + 1 });
    }
    if let Some(Some(at)) = t1.get(g0.moves.len()) {
        let ply = g0.moves.len() + 1;
        if let Some(before) = t0.iter().rev().flatten().next()
            && at < before
        {
            return Err(Problem::TimedBeforePrevious {
                ply,
                at: time_from_unix(*at),
                previous: time_from_unix(*before),
            });
        }
        if let Some(c) = commit_time
            && *at > c + MAX_CLOCK_SKEW
        {
            return Err(Problem::TimedInFuture { ply, at: time_from_unix(*at), commit: time_from_unix(c) });
        }
    }
    match g1.moves.len() - g0.moves.len() {
        0 => {
            if r0 != "*" {
                if r1 != r0 {
                    return Err(Problem::FinishedResultChanged { from: r0, to: r1 });
                }
                return Err(Problem::GameOver { result: r0 });
            }
            let Some(done) = recognise_action(old, g1) else {
                return Err(if r1 != "*" {
                    Problem::ResultWithoutAction { result: r1 }
                } else {
                    Problem::NotAStep
                });
            };
            if let Some(a) = author
                && a != done.player
            {
                return Err(Problem::NotEntitled {
                    summary: done.summary,
                    author: a.to_string(),
                    entitled: done.player,
                });
            }
            Ok(Step::Recorded { result: r1, player: done.player, summary: done.summary })
        }
        1 => {
            if r0 != "*" {
                return Err(Problem::MoveAfterEnd { result: r0 });
            }
            let pos = g0.position();
            let side = pos.side_to_move();
            let who = player(g0, side);
            let ply = g1.moves.len();
            if let Some(a) = author
                && a != who
            {
                return Err(Problem::OutOfTurn {
                    ply,
                    author: a.to_string(),
                    to_move: who,
                    side_name: g1.variant.def().side_name(side).to_string(),
                });
            }
            let mv = g1.moves[g0.moves.len()];
            let san = crate::notation::san::write_move(&g1.variant, &pos, &mv);
            // The new version must be what ravenpost writes for the move: its time, the
            // mover's own draw offer carried along, and a result only if the rules end the
            // game (a resignation or agreement is a step of its own). Diagram comment
            // lines (`;|`, archive option) are not compared.
            let at = t1.get(g0.moves.len()).copied().flatten();
            // A prepared reply carries its note (`{ravenpost: prepared}`) after the time.
            let prepared = crate::record::is_prepared(&g1.text, ply);
            let options = MoveOptions { at, prepared, ..MoveOptions::default() };
            let (_, expected) = play_move_unwritten(g0, &san, None, None, options)
                .map_err(|e| Problem::IllegalMove { ply, why: e.to_string() })?;
            if !same_game(&expected, g1) {
                let rules = result_of(&expected);
                return Err(if r1 != rules {
                    Problem::ResultWithMove { ply, san, result: r1, rules }
                } else {
                    Problem::MoreThanTheMove { ply, san }
                });
            }
            Ok(Step::Moved { ply, san, player: who })
        }
        plies => Err(Problem::SeveralPlies { plies }),
    }
}

/// A game file's first version at `folder` (the variant folder it is stored in): a game of
/// that variant with no move played yet (`ravenpost new` writes exactly that).
///
/// # Errors
/// The [`Problem`].
pub fn check_created(folder: &str, game: &Game) -> Result<Step, Problem> {
    let slug = &game.variant.def().slug;
    if slug != folder {
        return Err(Problem::WrongFolder { variant: slug.clone(), folder: folder.to_string() });
    }
    if !game.moves.is_empty() {
        return Err(Problem::CreatedWithMoves { plies: game.moves.len() });
    }
    Ok(Step::Created)
}
