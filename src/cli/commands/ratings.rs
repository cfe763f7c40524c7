//! `ravenpost ratings`: Elo ratings from the archive's finished games.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::referee::tournament::points_text;
use crate::usecases::{self as ops, Session};

/// Elo ratings from the archive's finished games, overall and per variant.
#[derive(Debug, clap::Args)]
pub(crate) struct RatingsArgs {
    /// Count games whose result was committed on or after this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    from: Option<String>,
    /// Count games whose result was committed on or before this day (YYYY-MM-DD, UTC).
    #[arg(long, value_name = "DATE")]
    to: Option<String>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `ravenpost ratings`.
pub(crate) fn run(s: &Session, args: RatingsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(s, false)?;
    let r = ops::ratings(&a, args.from.as_deref(), args.to.as_deref(), s)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r).expect("json")).map_err(io)?;
        return Ok(());
    }
    writeln!(
        out,
        "Elo (K = {}, start {}), {} rated game{}{}{}",
        r.k,
        r.start,
        r.games.len(),
        if r.games.len() == 1 { "" } else { "s" },
        r.from.as_ref().map(|d| format!(" from {d}")).unwrap_or_default(),
        r.to.as_ref().map(|d| format!(" to {d}")).unwrap_or_default(),
    )
    .map_err(io)?;
    let table = |title: &str, list: &[ops::PlayerRating], out: &mut dyn Write| -> std::io::Result<()> {
        writeln!(out, "\n{title}")?;
        let w = list.iter().map(|p| p.name.chars().count()).max().unwrap_or(6).max(6);
        writeln!(out, "  {:<w$}  Rating  Games   +   =   -  Score", "Player")?;
        for p in list {
            let score = p.wins as f64 + p.draws as f64 / 2.0;
            writeln!(
                out,
                "  {:<w$}  {:>6}  {:>5}  {:>2}  {:>2}  {:>2}  {:>5}",
                p.name,
                p.rating,
                p.games,
                p.wins,
                p.draws,
                p.losses,
                points_text(score)
            )?;
        }
        Ok(())
    };
    table("Overall", &r.overall, out).map_err(io)?;
    for (v, list) in &r.variants {
        table(v, list, out).map_err(io)?;
    }
    Ok(())
}
