//! `ravenpost analyse`: the search's best lines for a position or a game.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::args::{self, game_option};
use crate::cli::failure::{Failure, io};
use crate::cli::games::resolve_current_game;
use crate::engine::{Outcome, Position, Variant};
use crate::notation::position_string::write_position;
use crate::search::Score;
use crate::usecases::{self as ops, Analysis, Session};
use crate::variants;

/// Analyse a position with the search: the score from the side to move's view
/// (centipawns, 100 about a pawn, or mate in N moves; negative: the side to move is
/// worse, or is mated), the best line in SAN, the depth reached, the nodes searched and
/// nodes per second. Without --depth, --nodes or --time it searches 4 plies; with
/// --nodes or --time alone, as deep as the budget allows.
#[derive(Debug, clap::Args)]
pub(crate) struct AnalyseArgs {
    /// A game id in the archive or a game file (its current position); or a variant
    /// (gygax (alias dragonchess), fidchell, fantasy-grand, grand) with --position or its
    /// start position.
    #[arg(required_unless_present = "variant_file", value_name = "GAME|VARIANT")]
    target: Option<String>,
    /// Play the variant defined in this file (notation-spec/variant-files.md).
    #[arg(long, value_name = "FILE", conflicts_with = "target")]
    variant_file: Option<PathBuf>,
    /// The position string to analyse (with a variant; default: its start position).
    #[arg(long, value_name = "POS")]
    position: Option<String>,
    /// Game option K=V (repeatable).
    #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
    options: Vec<(String, String)>,
    /// A game's file: which game of it (from 1).
    #[arg(long, default_value_t = 1)]
    game: usize,
    #[command(flatten)]
    budget: args::SearchBudget,
    /// Show this many best lines.
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    multipv: u32,
    /// Print JSON: variant, position, side to move, depth, nodes, nodes per second, and
    /// each line's score and moves.
    #[arg(long)]
    json: bool,
}

/// `ravenpost analyse GAME|VARIANT`.
pub(crate) fn run(s: &Session, a: AnalyseArgs, out: &mut impl Write) -> Result<(), Failure> {
    let budget = a.budget.budget(None, a.multipv as usize);
    let (v, pos, analysis) = match a.target.as_deref() {
        Some(name)
            if a.variant_file.is_none()
                && a.position.is_none()
                && a.options.is_empty()
                && variants::by_name(name, &[]).is_err() =>
        {
            let g = resolve_current_game(s, Path::new(name), a.game)?;
            let analysis = ops::analyse_game(&g, budget);
            (g.variant.clone(), g.position(), analysis)
        }
        _ => {
            let text = a.position.as_deref();
            let v = args::variant_of(s, a.target.as_deref(), a.variant_file.as_deref(), &a.options, text)?;
            let p = args::position(&v, text)?;
            let analysis = ops::analyse_position(&v, &p, &[], budget);
            (v, p, analysis)
        }
    };
    if a.json {
        let value = json(&v, &pos, &analysis);
        writeln!(out, "{}", serde_json::to_string_pretty(&value).expect("json")).map_err(io)?;
        return Ok(());
    }
    text(&v, &pos, &analysis, out)
}

/// A score as text: `+35`, `-120`, `mate in 2`, `mated in 1`.
pub(crate) fn score_text(score: Score) -> String {
    match score {
        Score::Centipawns(c) => format!("{c:+}"),
        Score::Mate(n) if n > 0 => format!("mate in {n}"),
        Score::Mate(n) => format!("mated in {}", -n),
    }
}

/// The end of the game as text, for a position with no legal move.
fn outcome_text(v: &Variant, outcome: Option<Outcome>) -> String {
    match outcome {
        Some(Outcome::Win { winner, reason }) => format!("{} wins by {reason}", v.def().side_name(winner)),
        Some(Outcome::Draw { reason }) => format!("drawn by {reason}"),
        None => "no legal move".to_string(),
    }
}

fn text(v: &Variant, pos: &Position, a: &Analysis, out: &mut impl Write) -> Result<(), Failure> {
    let side = v.def().side_name(pos.side_to_move());
    if a.lines.is_empty() {
        writeln!(out, "{side} to move: the game is over ({})", outcome_text(v, a.outcome)).map_err(io)?;
        return Ok(());
    }
    writeln!(
        out,
        "{side} to move; depth {} (selective {}), {} nodes in {:.2} s, {} nodes/s",
        a.depth,
        a.seldepth,
        a.nodes,
        a.elapsed.as_secs_f64(),
        a.nodes_per_second()
    )
    .map_err(io)?;
    let width = a.lines.iter().map(|l| score_text(l.score).len()).max().unwrap_or(0);
    for (i, l) in a.lines.iter().enumerate() {
        writeln!(out, "{}. {:>width$}  {}", i + 1, score_text(l.score), l.san.join(" ")).map_err(io)?;
    }
    Ok(())
}

fn json(v: &Variant, pos: &Position, a: &Analysis) -> serde_json::Value {
    let lines: Vec<serde_json::Value> = a
        .lines
        .iter()
        .map(|l| {
            let score = match l.score {
                Score::Centipawns(c) => serde_json::json!({ "cp": c }),
                Score::Mate(n) => serde_json::json!({ "mate": n }),
            };
            serde_json::json!({ "score": score, "moves": l.san })
        })
        .collect();
    serde_json::json!({
        "variant": v.def().slug,
        "position": write_position(v, pos),
        "side_to_move": v.def().side_name(pos.side_to_move()),
        "depth": a.depth,
        "seldepth": a.seldepth,
        "nodes": a.nodes,
        "time_ms": a.elapsed.as_millis() as u64,
        "nodes_per_second": a.nodes_per_second(),
        "lines": lines,
        "result": a.lines.is_empty().then(|| outcome_text(v, a.outcome)),
    })
}
