//! `ravenpost annotate`: a copy of a game's record with its inaccuracies, mistakes and
//! blunders marked by the search.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::args::SearchBudget;
use crate::cli::failure::{Failure, io};
use crate::cli::games::resolve_current_game;
use crate::cli::progress;
use crate::engine::Side;
use crate::record::game::Game;
use crate::usecases::{self as ops, Judgement, Session};

/// Annotate a game with the search, as lichess's computer analysis does: each move that
/// lowers its player's winning chances by 0.1, 0.2 or 0.3 (on lichess's scale, from −1
/// lost to 1 won) is marked `?!`, `?` or `??`, with the evaluation before and after and
/// the best line as a variation.
///
/// The annotated copy goes to standard output (or to --output); the game's own file is
/// never changed. Every position of the game is searched: 100,000 nodes each without
/// --depth, --nodes or --time.
#[derive(Debug, clap::Args)]
pub(crate) struct AnnotateArgs {
    /// A game id in the archive, or a game file.
    game: PathBuf,
    /// A game file: which game of it (from 1).
    #[arg(long = "game", value_name = "N", default_value_t = 1)]
    index: usize,
    /// Write the annotated record to this file (refused if it exists) and print a
    /// summary instead.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    budget: SearchBudget,
    /// Print JSON: each ply's move, the best move, the evaluation before and after (in
    /// centipawns, the first side's view), the loss of winning chances and the judgement,
    /// and the annotated record.
    #[arg(long)]
    json: bool,
}

/// The nodes each position searches when no budget is given.
const DEFAULT_NODES: u64 = 100_000;

/// `ravenpost annotate GAME`.
pub(crate) fn run(s: &Session, a: AnnotateArgs, out: &mut impl Write) -> Result<(), Failure> {
    if let Some(o) = &a.output
        && o.exists()
    {
        return Err(Failure::input(format!("--output {}: the file exists; give a new name", o.display())));
    }
    let g = resolve_current_game(s, Path::new(&a.game), a.index)?;
    let budget = a.budget.budget(Some(DEFAULT_NODES), 1);
    let mut bar = progress::Bar::new(a.json, "annotating");
    let annotated = ops::annotate(&g, budget, &mut |done, total| bar.set(done, total));
    bar.finish();
    if let Some(o) = &a.output {
        std::fs::write(o, &annotated.text)
            .map_err(|e| Failure::input(format!("--output {}: {e}", o.display())))?;
    }
    if a.json {
        let v = serde_json::json!({ "plies": annotated.plies, "record": annotated.text });
        return writeln!(out, "{}", serde_json::to_string_pretty(&v).expect("json")).map_err(io);
    }
    match &a.output {
        Some(o) => summary(&g, &annotated, o, out),
        None => write!(out, "{}", annotated.text).map_err(io),
    }
}

/// Each side's inaccuracies, mistakes and blunders, and its average centipawn loss.
fn summary(g: &Game, a: &ops::Annotated, to: &Path, out: &mut impl Write) -> Result<(), Failure> {
    writeln!(out, "annotated record written to {}", to.display()).map_err(io)?;
    let first = g.start.side_to_move();
    for (k, side) in [first, first.opponent()].into_iter().enumerate() {
        let name = g.text.tag(if side == Side::White { "White" } else { "Black" }).unwrap_or("?");
        let plies: Vec<&ops::AnnotatedPly> = a.plies.iter().skip(k).step_by(2).collect();
        let count = |j: Judgement| plies.iter().filter(|p| p.judgement == Some(j)).count();
        // The evaluations are from the first side's view: its loss is before − after.
        let sign = if side == Side::White { 1 } else { -1 };
        let cpl: i64 = plies.iter().map(|p| i64::from(((p.before - p.after) * sign).max(0))).sum();
        let average = cpl.checked_div(plies.len() as i64).unwrap_or(0);
        let n = |j: Judgement, one: &str, many: &str| {
            let k = count(j);
            format!("{k} {}", if k == 1 { one } else { many })
        };
        writeln!(
            out,
            "{name} ({}): {}, {}, {}, average centipawn loss {average}",
            g.variant.def().side_name(side),
            n(Judgement::Inaccuracy, "inaccuracy", "inaccuracies"),
            n(Judgement::Mistake, "mistake", "mistakes"),
            n(Judgement::Blunder, "blunder", "blunders"),
        )
        .map_err(io)?;
    }
    Ok(())
}
