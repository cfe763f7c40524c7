//! `ravenpost tournament new|list`: round robins (README, "Running a tournament").

use std::io::Write;

use clap::{Subcommand, ValueEnum};

use crate::cli::args::{game_option, name_army};
use crate::cli::failure::{Failure, io};
use crate::referee::tournament::ArmyPlan;
use crate::usecases::{self as ops, Session};

/// Tournaments: create a (double) round robin of games in one commit.
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
        #[arg(long = "army", value_name = "NAME=ARMY", value_parser = name_army)]
        armies: Vec<(String, String)>,
        /// Game option K=V for every game (repeatable).
        #[arg(long = "option", value_name = "K=V", value_parser = game_option)]
        options: Vec<(String, String)>,
        /// Print the tournament as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the archive's tournaments.
    List,
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

/// Runs `ravenpost tournament …`.
pub(crate) fn run(s: &Session, args: TournamentArgs, out: &mut impl Write) -> Result<(), Failure> {
    match args.action {
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
            };
            let created = ops::tournament_new(&a, n, s)?;
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
            let a = ops::open(s, false)?;
            for t in ops::list_tournaments(&a)? {
                writeln!(out, "{t}").map_err(io)?;
            }
        }
    }
    Ok(())
}
