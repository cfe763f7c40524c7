//! `ravenpost bot`: a computer player. One pass plays, in every game of the archive where
//! the named player is to move, the move the search finds best within a budget, as that
//! player: each move checked by the rules and committed exactly as `move --as` commits
//! it (the hook judges it like any other). Run it after each `sync` (or from a timer) and
//! a member can play `ravenpost new gygax --white Ann --black computer` by correspondence.
//!
//! Draws: when the search does not find the bot better (a score of 0 or less), it
//! accepts the opponent's standing draw offer, and claims a draw the position allows
//! (threefold repetition, 100 plies without progress) instead of moving.

use serde::Serialize;

use crate::archive::Archive;
use crate::record::DrawAction;
use crate::search::Score;

use super::analysis::{Budget, analyse_game};
use super::checks::StatusLine;
use super::error::Error as Failure;
use super::games::{WithMove, draw, find, play_with, read};
use super::session::Session;

/// What the bot did in a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotAction {
    /// Played a move.
    Move,
    /// Accepted the opponent's draw offer.
    AcceptDraw,
    /// Claimed a draw (repetition or 100 plies).
    ClaimDraw,
}

/// One step the bot took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BotMove {
    /// The game id.
    pub game: String,
    /// What it did.
    pub action: BotAction,
    /// The ply of the move (1 = the first move); for a draw, the plies played.
    pub ply: usize,
    /// The move, in SAN (`None` for a draw).
    pub san: Option<String>,
    /// The search's score for it, from the bot's side.
    #[serde(serialize_with = "score_json")]
    pub score: Score,
    /// The depth of the last complete iteration.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The result, when the move ended the game.
    pub result: Option<String>,
}

fn score_json<S: serde::Serializer>(score: &Score, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(1))?;
    match *score {
        Score::Centipawns(c) => m.serialize_entry("cp", &c)?,
        Score::Mate(n) => m.serialize_entry("mate", &n)?,
    }
    m.end()
}

/// A game the bot left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BotSkipped {
    /// The game id.
    pub game: String,
    /// Why (an army still to choose, a file that does not replay, a move refused).
    pub why: String,
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BotPass {
    /// The player the bot plays as.
    pub player: String,
    /// The games going on that the player plays in.
    pub playing: usize,
    /// The moves played, in the order played.
    pub moves: Vec<BotMove>,
    /// The games where the player is to move that it did not play in.
    pub skipped: Vec<BotSkipped>,
}

/// `ravenpost bot --as PLAYER`: one pass over the games where `player` is to move (only
/// those of `games` when it is not empty), most urgent deadline first, each answered
/// with the search's best move within `budget`.
///
/// # Errors
/// The archive's errors. A game the bot cannot play in is no error: it is listed in
/// [`BotPass::skipped`].
pub fn bot_pass(
    archive: &Archive,
    player: &str,
    games: &[String],
    budget: Budget,
    session: &Session,
) -> Result<BotPass, Failure> {
    let mut pass = BotPass { player: player.to_string(), ..BotPass::default() };
    let all = super::checks::status(archive, session)?;
    if let Some(unknown) = games.iter().find(|g| !all.iter().any(|l| l.id == **g)) {
        return Err(Failure::Usage(format!("--game {unknown}: no such game in the archive")));
    }
    let wanted = |id: &str| games.is_empty() || games.iter().any(|g| g == id);
    let mine = |l: &&StatusLine| (l.white == player || l.black == player) && l.result == "*" && wanted(&l.id);
    pass.playing = all.iter().filter(mine).count();
    // A game whose armies are still chosen in secret waits for the player's choice.
    for line in all.iter().filter(mine) {
        if let Some(waiting) = line.army_choice.as_ref().filter(|w| w.contains(player)) {
            let why = format!("the armies are chosen in secret ({waiting}): choose with `ravenpost army`");
            pass.skipped.push(BotSkipped { game: line.id.clone(), why });
        }
    }
    for line in super::tournament::waiting_for(all, player) {
        if !wanted(&line.id) || line.army_choice.is_some() {
            continue;
        }
        match bot_move(archive, &line, player, budget, session) {
            Ok(Some(m)) => pass.moves.push(m),
            Ok(None) => pass.skipped.push(BotSkipped { game: line.id.clone(), why: "no legal move".into() }),
            Err(
                e @ (Failure::Refused(_)
                | Failure::Clock(_)
                | Failure::ChoosingArmies { .. }
                | Failure::Declined(_)
                | Failure::MovedOn { .. }),
            ) => pass.skipped.push(BotSkipped { game: line.id.clone(), why: e.to_string() }),
            Err(e) => return Err(e),
        }
    }
    Ok(pass)
}

/// Searches the position of the game of `line` and plays the best move as `player`, or
/// accepts or claims a draw when the bot is not better; `None` when there is no legal
/// move.
fn bot_move(
    archive: &Archive,
    line: &StatusLine,
    player: &str,
    budget: Budget,
    session: &Session,
) -> Result<Option<BotMove>, Failure> {
    let id = line.id.as_str();
    let path = find(archive, id)?;
    let (text, tip) = read(archive, &path)?;
    let game = super::definitions::load_pinned_at(archive, tip, path.id(), &text)?;
    let ply = game.moves.len() + 1;
    let analysis = analyse_game(&game, Budget { multipv: 1, ..budget });
    let Some(best) = analysis.lines.first() else { return Ok(None) };
    let Some(san) = best.san.first() else { return Ok(None) };
    let not_better = match best.score {
        Score::Centipawns(c) => c <= 0,
        Score::Mate(n) => n <= 0,
    };
    let offered = line.draw_offer.as_ref().is_some_and(|side| Some(side) != line.side_to_move.as_ref());
    let draw_action = match () {
        _ if not_better && offered => Some((BotAction::AcceptDraw, DrawAction::Accept)),
        _ if not_better && crate::record::claim_basis(&game).is_ok() => {
            Some((BotAction::ClaimDraw, DrawAction::Claim))
        }
        _ => None,
    };
    let (action, played) = match draw_action {
        Some((action, how)) => (action, draw(archive, id, Some(player), how, session)?),
        None => {
            let mut steps =
                play_with(archive, id, san, Some(player), Some(ply), &WithMove::default(), session)?;
            (BotAction::Move, steps.pop().expect("the move"))
        }
    };
    Ok(Some(BotMove {
        game: id.to_string(),
        action,
        ply: if action == BotAction::Move { ply } else { ply - 1 },
        san: played.san.clone(),
        score: best.score,
        depth: analysis.depth,
        nodes: analysis.nodes,
        result: played.result.clone(),
    }))
}
