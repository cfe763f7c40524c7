//! `ravenpost ratings`: Glicko-2 (or Elo) ratings from the archive's finished games.

use std::io::Write;

use crate::cli::failure::{Failure, io};
use crate::referee::tournament::points_text;
use crate::usecases::{self as ops, Session};

/// Ratings from the archive's finished games, overall and per variant: Glicko-2 with
/// each rating's deviation (a `?` marks a provisional rating, deviation over 110), or
/// Elo. Games count in the order their results were committed; only games `verify`
/// finds clean.
#[derive(Debug, clap::Args)]
pub(crate) struct RatingsArgs {
    /// How ratings are computed.
    #[arg(long, value_enum, default_value_t = Method::Glicko2)]
    method: Method,
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

/// `--method`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Method {
    /// Glicko-2 (start 1500, deviation 350, volatility 0.06; τ 0.5), as lichess rates.
    Glicko2,
    /// Elo, K = 20, start 1500.
    Elo,
}

/// Runs `ravenpost ratings`.
pub(crate) fn run(s: &Session, args: RatingsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(s, false)?;
    let method = match args.method {
        Method::Glicko2 => ops::RatingMethod::Glicko2,
        Method::Elo => ops::RatingMethod::Elo,
    };
    let r = ops::ratings(&a, args.from.as_deref(), args.to.as_deref(), method, s)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&r).expect("json")).map_err(io)?;
        return Ok(());
    }
    let how = match r.k {
        Some(k) => format!("Elo (K = {k}, start {})", r.start),
        None => format!(
            "Glicko-2 (start {} ± 350, τ = {}; ? marks a provisional rating, deviation over {})",
            r.start,
            r.tau.unwrap_or_default(),
            r.provisional_above.unwrap_or_default()
        ),
    };
    writeln!(
        out,
        "{how}, {} rated game{}{}{}",
        r.games.len(),
        if r.games.len() == 1 { "" } else { "s" },
        r.from.as_ref().map(|d| format!(" from {d}")).unwrap_or_default(),
        r.to.as_ref().map(|d| format!(" to {d}")).unwrap_or_default(),
    )
    .map_err(io)?;
    let glicko = r.k.is_none();
    let table = |title: &str, list: &[ops::PlayerRating], out: &mut dyn Write| -> std::io::Result<()> {
        writeln!(out, "\n{title}")?;
        let w = list.iter().map(|p| p.name.chars().count()).max().unwrap_or(6).max(6);
        // The rating deviation is Glicko-2's; Elo has none.
        let rd_head = if glicko { "     RD" } else { "" };
        writeln!(out, "  {:<w$}  Rating{rd_head}  Games   +   =   -  Score", "Player")?;
        for p in list {
            let score = p.wins as f64 + p.draws as f64 / 2.0;
            let rating = format!("{}{}", p.rating, if p.provisional { "?" } else { "" });
            let rd = p.deviation.map(|d| format!("  {d:>5}")).unwrap_or_default();
            writeln!(
                out,
                "  {:<w$}  {:>6}{}  {:>5}  {:>2}  {:>2}  {:>2}  {:>5}",
                p.name,
                rating,
                rd,
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
