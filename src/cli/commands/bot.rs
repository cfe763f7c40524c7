//! `ravenpost bot`: a computer player's pass over the games it is to move in.

use std::io::Write;

use crate::cli::args::SearchBudget;
use crate::cli::failure::{Failure, io};
use crate::usecases::{self as ops, Session};

/// Play as a computer player: the search's best move in every game where the player
/// named with --as is to move.
///
/// Each move is committed as `move --as` commits it (checked by the rules; the hook
/// judges it like any other move). One pass, then it exits: run it after each `sync`,
/// or from a timer, and a member can play `ravenpost new gygax --white Ann --black
/// computer` by correspondence. The strength is the search's budget: without --depth,
/// --nodes or --time, 200,000 nodes a move (about a second). When its search finds it no
/// better, it accepts a draw offered and claims a draw by repetition or 100 plies.
#[derive(Debug, clap::Args)]
pub(crate) struct BotArgs {
    /// The player the bot plays as (the games' White or Black tag).
    #[arg(long = "as", value_name = "NAME")]
    who: String,
    /// Only this game (repeatable; default: every game where the player is to move).
    #[arg(long = "game", value_name = "ID")]
    games: Vec<String>,
    #[command(flatten)]
    budget: SearchBudget,
    /// Print what was played as JSON: the player, the games going on it plays in, each
    /// step (game, action: move, accept-draw or claim-draw, ply, SAN, score, depth,
    /// nodes, result) and the games skipped with why.
    #[arg(long)]
    json: bool,
}

/// The nodes a move searches when no budget is given.
pub(crate) const DEFAULT_NODES: u64 = 200_000;

/// `ravenpost bot --as NAME`.
pub(crate) fn run(s: &Session, a: BotArgs, out: &mut impl Write) -> Result<(), Failure> {
    let archive = ops::open(s, false)?;
    let budget = a.budget.budget(Some(DEFAULT_NODES), 1);
    let pass = ops::bot_pass(&archive, &a.who, &a.games, budget, s)?;
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&pass).expect("json")).map_err(io)?;
        return Ok(());
    }
    if pass.moves.is_empty() && pass.skipped.is_empty() {
        let why = match pass.playing {
            0 => " (it plays in no game going on)".to_string(),
            1 => " (its one game going on waits for the opponent)".to_string(),
            n => format!(" (its {n} games going on wait for the opponents)"),
        };
        writeln!(out, "{}: no game waits for a move{why}", pass.player).map_err(io)?;
    }
    for line in step_lines(&pass) {
        writeln!(out, "{line}").map_err(io)?;
    }
    Ok(())
}

/// A line for each step of the pass (`ID: ply 4 Rx3a2 (score …)`) and each game skipped.
pub(crate) fn step_lines(pass: &ops::BotPass) -> Vec<String> {
    let mut lines = Vec::new();
    for m in &pass.moves {
        let score = super::analyse::score_text(m.score);
        let end = m.result.as_deref().map(|r| format!("; result {r}")).unwrap_or_default();
        let what = match (m.action, &m.san) {
            (ops::BotAction::Move, Some(san)) => format!("ply {} {san}", m.ply),
            (ops::BotAction::AcceptDraw, _) => "accepts the draw offered".to_string(),
            _ => "claims a draw".to_string(),
        };
        lines.push(format!("{}: {what} (score {score}, depth {}, {} nodes){end}", m.game, m.depth, m.nodes));
    }
    for k in &pass.skipped {
        lines.push(format!("{}: skipped: {}", k.game, k.why));
    }
    lines
}
