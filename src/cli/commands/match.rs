//! `ravenpost match`: two UCI engines play each other, judged by ravenpost's rules.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::cli::args::seconds;
use crate::cli::failure::{Failure, io};
use crate::usecases::{
    self as ops, EloEstimate, EngineSpec, MatchGame, MatchReport, MatchScore, MatchSetup, MoveBudget,
};

/// Play two UCI engines against each other: every move checked by ravenpost's rules
/// (an illegal move, no move in time, or an engine that exits loses the game), each game
/// ended by the rules (checkmate, stalemate, …) or by a draw claimed at the threefold
/// repetition or after 100 plies without progress, and a long game adjudicated a draw.
/// Each opening is played twice, colours reversed.
///
/// Prints a line a game and the first engine's score with its Elo difference and 95%
/// interval, computed from the game pairs (the pentanomial model, as fastchess reports
/// it). With --sprt the match stops when the SPRT (α = β = 0.05) accepts a bound.
#[derive(Debug, clap::Args)]
pub(crate) struct MatchArgs {
    /// An engine's command line, e.g. "ravenpost uci" (twice: the first engine, then the
    /// second; words split at spaces, quotes group).
    #[arg(long = "engine", value_name = "COMMAND", required = true, num_args = 1)]
    engines: Vec<String>,
    /// A UCI option for both engines, NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = uci_option)]
    options: Vec<(String, String)>,
    /// A UCI option for the first engine only, NAME=VALUE (repeatable).
    #[arg(long = "option1", value_name = "NAME=VALUE", value_parser = uci_option)]
    options1: Vec<(String, String)>,
    /// A UCI option for the second engine only, NAME=VALUE (repeatable), e.g.
    /// UCI_LimitStrength=true.
    #[arg(long = "option2", value_name = "NAME=VALUE", value_parser = uci_option)]
    options2: Vec<(String, String)>,
    /// The first engine's name in the records (default: its `id name`).
    #[arg(long, value_name = "NAME")]
    name1: Option<String>,
    /// The second engine's name in the records.
    #[arg(long, value_name = "NAME")]
    name2: Option<String>,
    /// The variant, as ravenpost names it; also sent as UCI_Variant.
    #[arg(long, default_value = "grand")]
    variant: String,
    /// The UCI_Variant value when the engines name the variant otherwise.
    #[arg(long, value_name = "NAME")]
    uci_variant: Option<String>,
    /// Each move's time, in seconds (`go movetime`), e.g. 0.2.
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = seconds, conflicts_with = "nodes")]
    time: Option<Duration>,
    /// Each move's node budget (`go nodes`).
    #[arg(long, value_name = "N", required_unless_present = "time")]
    nodes: Option<u64>,
    /// How long an engine may take for a move before it loses on time (default: 3 times
    /// --time plus 2 seconds; 60 seconds with --nodes).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = seconds)]
    timeout: Option<Duration>,
    /// The number of games.
    #[arg(long, value_name = "N", default_value_t = 2)]
    games: usize,
    /// The openings: one a line, UCI moves from the start or a position string (then
    /// optionally `moves` and UCI moves); `#` starts a comment line. Each is played twice.
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Adjudicate a game still going after this many plies a draw.
    #[arg(long, value_name = "PLIES", default_value_t = 400)]
    max_plies: usize,
    /// SPRT bounds in Elo, ELO0,ELO1 (e.g. 0,10): stop when the test accepts one.
    #[arg(long, value_name = "ELO0,ELO1", value_parser = sprt_bounds)]
    sprt: Option<(f64, f64)>,
    /// Write the games to this file (PGN, as ravenpost's records; `validate` reads it).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Print the games' results and the score as JSON.
    #[arg(long)]
    json: bool,
}

/// `NAME=VALUE`.
fn uci_option(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

/// `ELO0,ELO1` with ELO0 < ELO1.
fn sprt_bounds(s: &str) -> Result<(f64, f64), String> {
    let bad = || format!("`{s}`: expected ELO0,ELO1 with ELO0 < ELO1, e.g. 0,10");
    let (a, b) = s.split_once(',').ok_or_else(bad)?;
    let (a, b): (f64, f64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
    if a.is_finite() && b.is_finite() && a < b { Ok((a, b)) } else { Err(bad()) }
}

/// `ravenpost match`.
pub(crate) fn run(a: MatchArgs, out: &mut impl Write) -> Result<(), Failure> {
    let [first, second] = <[String; 2]>::try_from(a.engines.clone())
        .map_err(|e| Failure::input(format!("give --engine twice (got {})", e.len())))?;
    let with = |own: &[(String, String)]| a.options.iter().chain(own).cloned().collect::<Vec<_>>();
    let engines = [
        EngineSpec { command: first, options: with(&a.options1), name: a.name1.clone() },
        EngineSpec { command: second, options: with(&a.options2), name: a.name2.clone() },
    ];
    let budget = match (a.time, a.nodes) {
        (Some(t), _) => MoveBudget::Time(t),
        (None, Some(n)) => MoveBudget::Nodes(n),
        (None, None) => return Err(Failure::input("give --time or --nodes")),
    };
    let answer_within = a.timeout.unwrap_or(match budget {
        MoveBudget::Time(t) => t * 3 + Duration::from_secs(2),
        MoveBudget::Nodes(_) => Duration::from_secs(60),
    });
    let openings = match &a.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
            let v = crate::variants::by_name(&a.variant, &[]).map_err(|e| Failure::input(e.to_string()))?;
            ops::read_openings(&v, &text).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?
        }
        None => Vec::new(),
    };
    let setup = MatchSetup {
        engines,
        variant: a.variant.clone(),
        uci_variant: a.uci_variant.clone(),
        budget,
        answer_within,
        games: a.games,
        openings,
        max_plies: Some(a.max_plies),
        sprt: a.sprt,
        pgn: a.pgn.clone(),
        event: "ravenpost match".into(),
    };
    let total = a.games;
    let json = a.json;
    let mut progress = |g: &MatchGame, s: &MatchScore| {
        if !json {
            // Each line as its game ends (the output may be a file or a pipe).
            let _ = writeln!(out, "{}", game_line(g, s, total)).and_then(|()| out.flush());
        }
    };
    let report = ops::play_match(&setup, &mut progress)?;
    if json {
        let text = serde_json::to_string_pretty(&json_report(&report)).expect("json");
        return writeln!(out, "{text}").map_err(io);
    }
    summary(&report, a.sprt, out)
}

/// `game 3/10: ravenpost - Fairy-Stockfish 1-0 (checkmate, 87 plies); first +2 =0 -1`.
fn game_line(g: &MatchGame, s: &MatchScore, total: usize) -> String {
    format!(
        "game {}/{total}: {} - {} {} ({}, {} plies); first engine +{} ={} -{}",
        g.number, g.players[0], g.players[1], g.result, g.reason, g.plies, s.wins, s.draws, s.losses
    )
}

/// An Elo figure: `+35.2`, `-inf`.
fn elo(x: f64) -> String {
    if x.is_infinite() { if x > 0.0 { "+inf".into() } else { "-inf".into() } } else { format!("{x:+.1}") }
}

/// The match's score, Elo and SPRT verdict.
fn summary(r: &MatchReport, sprt: Option<(f64, f64)>, out: &mut impl Write) -> Result<(), Failure> {
    let s = &r.score;
    writeln!(out, "{} vs {}: {} games", r.names[0], r.names[1], s.games()).map_err(io)?;
    let points = s.wins as f64 + s.draws as f64 / 2.0;
    writeln!(
        out,
        "score of {}: {points}/{} ({:.1}%), +{} ={} -{}",
        r.names[0],
        s.games(),
        100.0 * s.score(),
        s.wins,
        s.draws,
        s.losses
    )
    .map_err(io)?;
    let shown = |e: Option<EloEstimate>, how: &str| match e {
        Some(e) => format!("Elo {} [{}, {}] (95%, {how})", elo(e.elo), elo(e.low), elo(e.high)),
        None => format!("Elo: too few games for the {how} interval"),
    };
    writeln!(out, "{}", shown(s.elo(), "pentanomial, game pairs")).map_err(io)?;
    writeln!(out, "pairs 0/0.5/1/1.5/2 points: {:?}", s.pairs).map_err(io)?;
    if let (Some((e0, e1)), Some(llr)) = (sprt, r.llr) {
        let (low, high) = ops::sprt_bounds();
        let verdict = match r.sprt.as_deref() {
            Some("H1") => format!("H1 accepted (Elo >= {e1})"),
            Some(_) => format!("H0 accepted (Elo <= {e0})"),
            None => "no verdict yet".into(),
        };
        writeln!(out, "SPRT [{e0}, {e1}]: LLR {llr:.2} (bounds {low:.2}, {high:.2}): {verdict}")
            .map_err(io)?;
    }
    Ok(())
}

/// The report as JSON: names, games (their UCI moves, not their records), score, Elo.
fn json_report(r: &MatchReport) -> serde_json::Value {
    let finite = |x: f64| if x.is_finite() { serde_json::json!(x) } else { serde_json::json!(elo(x)) };
    let estimate = |e: Option<EloEstimate>| {
        e.map(|e| serde_json::json!({"elo": finite(e.elo), "low": finite(e.low), "high": finite(e.high)}))
    };
    let games: Vec<_> = r
        .games
        .iter()
        .map(|g| {
            serde_json::json!({"number": g.number, "white": g.players[0], "black": g.players[1],
                "result": g.result, "reason": g.reason, "plies": g.plies, "start": g.start, "moves": g.moves})
        })
        .collect();
    serde_json::json!({
        "engines": r.names,
        "games": games,
        "wins": r.score.wins, "draws": r.score.draws, "losses": r.score.losses,
        "score": r.score.score(),
        "pairs": r.score.pairs,
        "elo": estimate(r.score.elo()),
        "elo_trinomial": estimate(r.score.elo_trinomial()),
        "sprt": r.sprt, "llr": r.llr,
    })
}
