//! `ravenpost tournament new|next|list`: round robins and knockouts (docs/tournaments.md).

use std::io::Write;

use clap::{Subcommand, ValueEnum};

use crate::cli::args::{game_option, name_army};
use crate::cli::failure::{Failure, io};
use crate::referee::knockout::{KnockoutRules, TieBreak};
use crate::referee::tournament::{ArmyPlan, Pairing};
use crate::usecases::{self as ops, Session};

/// Tournaments: create a (double) round robin of games in one commit, or a knockout
/// whose later games are made as its matches end.
#[derive(Debug, clap::Args)]
pub(crate) struct TournamentArgs {
    #[command(subcommand)]
    action: TournamentCmd,
}

/// `ravenpost tournament` actions.
#[derive(Debug, Subcommand)]
enum TournamentCmd {
    /// Create a round robin: every game, paired by the Berger tables with balanced
    /// colours, in one commit with the tournament file (tournaments/<NAME>.yaml); each
    /// game's Event tag is NAME and its Round tag its round. With --format knockout: a
    /// seeded bracket of matches (--games, --tie-break) and its first games; later games
    /// come with `tournament next`.
    New {
        /// The tournament's name (letters, digits, `-`, `_`, `.`): its file name, every
        /// game's Event tag, and the start of its game ids (<NAME>-r<ROUND>-b<BOARD>; a
        /// knockout's: <NAME>-r<ROUND>-m<MATCH>-g<GAME>).
        name: String,
        /// Variant: gygax, fidchell, fantasy-grand, grand.
        variant: String,
        /// The players in table order (player 1 first; a knockout's in seed order),
        /// comma-separated; each `Name` or `Name <email>` (the games' WhiteEmail/BlackEmail
        /// tags, for notifications).
        #[arg(long, value_delimiter = ',', required = true, value_name = "A,B,C,...")]
        players: Vec<String>,
        /// The format: a round robin, or a knockout (seed 1 v the last seed, 2 v the one
        /// before, …, byes to the top seeds; seeds 1 and 2 can only meet in the final).
        #[arg(long, value_enum, default_value = "round-robin")]
        format: FormatArg,
        /// A knockout (required): the games of each match, 1 to 100 (colours
        /// alternating, the higher seed White in game 1).
        #[arg(long, value_name = "N")]
        games: Option<u32>,
        /// A knockout (required): how a level match is decided, fixed for the tournament.
        #[arg(long, value_enum)]
        tie_break: Option<TieBreakArg>,
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
        #[arg(long = "army", value_name = "NAME=ARMY", value_parser = name_army)]
        armies: Vec<(String, String)>,
        /// Game option K=V for every game (repeatable).
        #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
        options: Vec<(String, String)>,
        /// Print the tournament as JSON.
        #[arg(long)]
        json: bool,
    },
    /// A knockout's next games: every match whose two players are now known, and the
    /// next tie-break game of a level match, created in one commit with the tournament
    /// file (which lists them). Run it when games have ended; it says what it waits for.
    Next {
        /// The tournament.
        name: String,
        /// Print what was made as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the archive's tournaments.
    List,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FormatArg {
    /// Every player meets every other (Berger tables).
    RoundRobin,
    /// A seeded bracket of matches; the loser of a match is out.
    Knockout,
}

/// `--tie-break`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum TieBreakArg {
    /// Extra games, one at a time, colours still alternating, until one is won.
    ExtraGame,
    /// The higher seed advances.
    HigherSeed,
}

impl From<TieBreakArg> for TieBreak {
    fn from(t: TieBreakArg) -> TieBreak {
        match t {
            TieBreakArg::ExtraGame => TieBreak::ExtraGame,
            TieBreakArg::HigherSeed => TieBreak::HigherSeed,
        }
    }
}

/// `--army-choice`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum ArmyChoiceArg {
    /// Each game's players choose in secret (commit–reveal) before it starts.
    Secret,
    /// Each player plays the army given with --army in every game.
    Fixed,
}

impl From<ArmyChoiceArg> for ArmyPlan {
    fn from(c: ArmyChoiceArg) -> ArmyPlan {
        match c {
            ArmyChoiceArg::Secret => ArmyPlan::Secret,
            ArmyChoiceArg::Fixed => ArmyPlan::Fixed,
        }
    }
}

/// A knockout's games, one a line: round, match, game, id, players.
fn print_knockout_games(out: &mut impl Write, games: &[Pairing]) -> Result<(), Failure> {
    for g in games {
        writeln!(
            out,
            "  round {:>2} match {} game {}: {}  {} v {}",
            g.round,
            g.board,
            g.game.unwrap_or(0),
            g.id,
            g.white,
            g.black
        )
        .map_err(io)?;
    }
    Ok(())
}

/// Runs `ravenpost tournament …`.
pub(crate) fn run(s: &Session, args: TournamentArgs, out: &mut impl Write) -> Result<(), Failure> {
    match args.action {
        TournamentCmd::New {
            name,
            variant,
            players,
            format,
            games,
            tie_break,
            double,
            time_control,
            army_choice,
            armies,
            options,
            json,
        } => {
            let knockout = match (format, games, tie_break) {
                (FormatArg::Knockout, Some(games), Some(t)) => {
                    Some(KnockoutRules { games, tie_break: t.into() })
                }
                (FormatArg::Knockout, _, _) => {
                    return Err(Failure::input(
                        "--format knockout needs --games N (the games of a match, 1 to 100) and \
                         --tie-break extra-game or --tie-break higher-seed",
                    ));
                }
                (FormatArg::RoundRobin, None, None) => None,
                (FormatArg::RoundRobin, _, _) => {
                    return Err(Failure::input(
                        "--games and --tie-break are for --format knockout; a round robin plays one game per \
                         pairing (--double: two)",
                    ));
                }
            };
            let a = ops::open(s, true)?;
            let n = ops::NewTournament {
                name,
                variant,
                players,
                double,
                time_control,
                army_choice: army_choice.map(Into::into),
                armies,
                options: crate::cli::args::options(&options)?,
                knockout,
            };
            let created = ops::tournament_new(&a, n, s)?;
            let t = &created.tournament;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&created).expect("json")).map_err(io)?;
            } else if t.knockout.is_some() {
                writeln!(
                    out,
                    "{}: knockout of {} players, {} games to start (commit {}); `ravenpost tournament next {}` \
                     makes the next ones as matches end",
                    t.name,
                    t.players.len(),
                    t.games.len(),
                    created.commit,
                    t.name
                )
                .map_err(io)?;
                print_knockout_games(out, &t.games)?;
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
        TournamentCmd::Next { name, json } => {
            let a = ops::open(s, true)?;
            let made = ops::tournament_next(&a, &name, s)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&made).expect("json")).map_err(io)?;
            } else {
                match (&made.commit, &made.waiting) {
                    (Some(commit), _) => {
                        let n = made.games.len();
                        let s = if n == 1 { "" } else { "s" };
                        writeln!(out, "{}: {n} new game{s} (commit {commit})", made.tournament)
                            .map_err(io)?;
                        print_knockout_games(out, &made.games)?;
                    }
                    (None, why) => {
                        let why = why.as_deref().unwrap_or_default();
                        writeln!(out, "{}: no game is due, {why}", made.tournament).map_err(io)?;
                    }
                }
            }
        }
        TournamentCmd::List => {
            let a = ops::open(s, false)?;
            for t in ops::list_tournaments(&a)? {
                writeln!(out, "{t}").map_err(io)?;
            }
        }
    }
    Ok(())
}
