//! Club play on the command line: `tournament new`, `standings`, `ratings` (README,
//! "Running a tournament"). Each parses its arguments, calls one function of
//! [`crate::usecases`] and formats the answer.

use std::io::Write;
use std::path::Path;

use clap::{Args, Subcommand, ValueEnum};

use super::{Failure, parse_options};
use crate::archive::Identity;
use crate::referee::tournament::{ArmyPlan, crosstable_text, points_text};
use crate::usecases as ops;

/// `ravenpost tournament` actions.
#[derive(Debug, Subcommand)]
pub enum TournamentCmd {
    /// Create a round robin: every game, paired by the Berger tables with balanced
    /// colours, in one commit with the tournament file (tournaments/<NAME>.yaml); each
    /// game's Event tag is NAME and its Round tag its round.
    New {
        /// The tournament's name (letters, digits, `-`, `_`, `.`): its file name, every
        /// game's Event tag, and the start of its game ids (<NAME>-r<ROUND>-b<BOARD>).
        name: String,
        /// Variant: gygax, fidchell, fantasy-grand, grand.
        variant: String,
        /// The players in table order (player 1 first), comma-separated; each `Name` or
        /// `Name <email>` (the games' WhiteEmail/BlackEmail tags, for notifications).
        #[arg(long, value_delimiter = ',', required = true, value_name = "A,B,C,...")]
        players: Vec<String>,
        /// A double round robin: each pair plays twice, once with each colour.
        #[arg(long)]
        double: bool,
        /// Every game's correspondence time control (e.g. 1/3d, 10/30d).
        #[arg(long, value_name = "TC")]
        time_control: Option<String>,
        /// Fantasy Grand Chess: each game's armies chosen in secret by its players, or
        /// fixed per player (with --army).
        #[arg(long, value_enum)]
        army_choice: Option<ArmyChoiceArg>,
        /// With --army-choice fixed: a player's army in every game, NAME=ARMY (repeat).
        #[arg(long = "army", value_name = "NAME=ARMY")]
        armies: Vec<String>,
        /// Game option K=V for every game (repeatable).
        #[arg(long = "option", value_name = "K=V")]
        options: Vec<String>,
        /// Print the tournament as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the archive's tournaments.
    List,
}

/// `--army-choice`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ArmyChoiceArg {
    /// Each game's players choose in secret (commit–reveal) before it starts.
    Secret,
    /// Each player plays the army given with --army in every game.
    Fixed,
}

/// `ravenpost standings`.
#[derive(Debug, Args)]
pub struct StandingsArgs {
    /// The tournament (default: every tournament in the archive).
    tournament: Option<String>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// `ravenpost ratings`.
#[derive(Debug, Args)]
pub struct RatingsArgs {
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

fn io(e: std::io::Error) -> Failure {
    Failure { message: format!("writing output: {e}"), code: 1 }
}

/// Runs `ravenpost tournament …`.
pub fn tournament(
    archive: Option<&Path>,
    author: Option<&Identity>,
    action: TournamentCmd,
    out: &mut impl Write,
) -> Result<(), Failure> {
    match action {
        TournamentCmd::New {
            name,
            variant,
            players,
            double,
            time_control,
            army_choice,
            armies,
            options,
            json,
        } => {
            let a = ops::open(archive, true)?;
            let armies = armies
                .iter()
                .map(|s| {
                    s.split_once('=')
                        .map(|(p, a)| (p.trim().to_string(), a.trim().to_string()))
                        .ok_or_else(|| Failure::input(format!("--army `{s}`: expected NAME=ARMY")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let n = ops::NewTournament {
                name,
                variant,
                players,
                double,
                time_control,
                army_choice: army_choice.map(|c| match c {
                    ArmyChoiceArg::Secret => ArmyPlan::Secret,
                    ArmyChoiceArg::Fixed => ArmyPlan::Fixed,
                }),
                armies,
                options: parse_options(&options)?,
            };
            let created = ops::tournament_new(&a, n, author)?;
            let t = &created.tournament;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&created).expect("json")).map_err(io)?;
            } else {
                writeln!(
                    out,
                    "{}: {} games in {} rounds, {} players (commit {})",
                    t.name,
                    t.games.len(),
                    t.rounds(),
                    t.players.len(),
                    created.commit
                )
                .map_err(io)?;
                let byes = t.byes();
                for (i, g) in t.games.iter().enumerate() {
                    writeln!(
                        out,
                        "  round {:>2} board {}: {}  {} v {}",
                        g.round, g.board, g.id, g.white, g.black
                    )
                    .map_err(io)?;
                    // After a round's last board, who sits it out.
                    if t.games.get(i + 1).is_none_or(|next| next.round != g.round) {
                        for (_, p) in byes.iter().filter(|(r, _)| *r == g.round) {
                            writeln!(out, "  round {:>2} bye: {p}", g.round).map_err(io)?;
                        }
                    }
                }
            }
        }
        TournamentCmd::List => {
            let a = ops::open(archive, false)?;
            for t in ops::list_tournaments(&a)? {
                writeln!(out, "{t}").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// Runs `ravenpost standings`.
pub fn standings(archive: Option<&Path>, args: StandingsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(archive, false)?;
    let all = ops::standings(&a, args.tournament.as_deref())?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&all).expect("json")).map_err(io)?;
        return Ok(());
    }
    if all.is_empty() {
        writeln!(out, "No tournaments in {} (make one with `ravenpost tournament new`)", a.dir().display())
            .map_err(io)?;
    }
    for (k, s) in all.iter().enumerate() {
        if k > 0 {
            writeln!(out).map_err(io)?;
        }
        write!(out, "{}", crosstable_text(s)).map_err(io)?;
    }
    Ok(())
}

/// Runs `ravenpost ratings`.
pub fn ratings(archive: Option<&Path>, args: RatingsArgs, out: &mut impl Write) -> Result<(), Failure> {
    let a = ops::open(archive, false)?;
    let r = ops::ratings(&a, args.from.as_deref(), args.to.as_deref())?;
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
