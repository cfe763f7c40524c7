//! `ravenpost tournament new|next|list`: round robins, knockouts and Swiss tournaments
//! (docs/tournaments.md).

use std::io::Write;

use clap::{Subcommand, ValueEnum};

use crate::cli::args::{game_option, name_army};
use crate::cli::failure::{Failure, io};
use crate::referee::knockout::{KnockoutRules, TieBreak};
use crate::referee::swiss::{FirstColour, SwissRules};
use crate::referee::tournament::{ArmyPlan, Pairing};
use crate::usecases::{self as ops, Session};

/// Tournaments: create a (double) round robin of games in one commit, a knockout
/// whose later games are made as its matches end, or a Swiss paired round by round.
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
    /// come with `tournament next`. With --format swiss: --rounds rounds paired by the
    /// FIDE Dutch system, round 1 now, each later one by `tournament next` once the round
    /// before has finished.
    New {
        /// The tournament's name (letters, digits, `-`, `_`, `.`): its file name, every
        /// game's Event tag, and the start of its game ids (<NAME>-r<ROUND>-b<BOARD>; a
        /// knockout's: <NAME>-r<ROUND>-m<MATCH>-g<GAME>).
        name: String,
        /// Variant: gygax, fidchell, fantasy-grand, grand.
        variant: String,
        /// The players in table order (player 1 first; a knockout's in seed order, a
        /// Swiss's in pairing-number order, the strongest first),
        /// comma-separated; each `Name` or `Name <email>` (the games' WhiteEmail/BlackEmail
        /// tags, for notifications).
        #[arg(long, value_delimiter = ',', required = true, value_name = "A,B,C,...")]
        players: Vec<String>,
        /// The format: a round robin, a knockout (seed 1 v the last seed, 2 v the one
        /// before, …, byes to the top seeds; seeds 1 and 2 can only meet in the final), or
        /// a Swiss (FIDE Dutch system; the bye, with an odd number, is worth a win).
        #[arg(long, value_enum, default_value = "round-robin")]
        format: FormatArg,
        /// A Swiss (required): the number of rounds, fewer than the players.
        #[arg(long, value_name = "N")]
        rounds: Option<u32>,
        /// A Swiss: player 1's colour in round 1 (FIDE draws it by lot before round 1;
        /// default: white).
        #[arg(long, value_enum, value_name = "COLOUR")]
        first_colour: Option<FirstColourArg>,
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
        /// Fantasy Grand Chess: the same as --army-choice secret (as `new
        /// --secret-armies` says it for one game).
        #[arg(long, conflicts_with = "army_choice")]
        secret_armies: bool,
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
    /// next tie-break game of a level match; a Swiss's next round, once every game of the
    /// last one has a result. Created in one commit with the tournament file (which
    /// lists them). Run it when games have ended; it says what it waits for, and commits
    /// nothing then.
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
    /// Rounds paired by score (FIDE Dutch system), no two players meeting twice.
    Swiss,
}

/// `--first-colour`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum FirstColourArg {
    /// Player 1 has White in round 1.
    White,
    /// Player 1 has Black in round 1.
    Black,
}

impl From<FirstColourArg> for FirstColour {
    fn from(c: FirstColourArg) -> FirstColour {
        match c {
            FirstColourArg::White => FirstColour::White,
            FirstColourArg::Black => FirstColour::Black,
        }
    }
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

/// The board games of a round robin or Swiss, one a line, each round followed by its bye.
fn print_round_games(out: &mut impl Write, games: &[Pairing], byes: &[(u32, String)]) -> Result<(), Failure> {
    for (i, g) in games.iter().enumerate() {
        writeln!(out, "  round {:>2} board {}: {}  {} v {}", g.round, g.board, g.id, g.white, g.black)
            .map_err(io)?;
        // After a round's last board, who sits it out.
        if games.get(i + 1).is_none_or(|next| next.round != g.round) {
            for (_, p) in byes.iter().filter(|(r, _)| *r == g.round) {
                writeln!(out, "  round {:>2} bye: {p}", g.round).map_err(io)?;
            }
        }
    }
    Ok(())
}

/// The rules `--format` and its options give: a knockout's, a Swiss's, or neither (a
/// round robin).
fn format_rules(
    format: FormatArg,
    games: Option<u32>,
    tie_break: Option<TieBreakArg>,
    rounds: Option<u32>,
    first_colour: Option<FirstColourArg>,
) -> Result<(Option<KnockoutRules>, Option<SwissRules>), Failure> {
    let knockout_flags = games.is_some() || tie_break.is_some();
    let swiss_flags = rounds.is_some() || first_colour.is_some();
    match format {
        FormatArg::Knockout if swiss_flags => {
            Err(Failure::input("--rounds and --first-colour are for --format swiss"))
        }
        FormatArg::Knockout => match (games, tie_break) {
            (Some(games), Some(t)) => Ok((Some(KnockoutRules { games, tie_break: t.into() }), None)),
            _ => Err(Failure::input(
                "--format knockout needs --games N (the games of a match, 1 to 100) and \
                 --tie-break extra-game or --tie-break higher-seed",
            )),
        },
        FormatArg::Swiss if knockout_flags => {
            Err(Failure::input("--games and --tie-break are for --format knockout, not --format swiss"))
        }
        FormatArg::Swiss => match rounds {
            Some(rounds) => {
                let first_colour = first_colour.map_or(FirstColour::White, Into::into);
                Ok((None, Some(SwissRules { rounds, first_colour })))
            }
            None => Err(Failure::input("--format swiss needs --rounds N (fewer rounds than players)")),
        },
        FormatArg::RoundRobin if knockout_flags || swiss_flags => Err(Failure::input(
            "--games and --tie-break are for --format knockout, --rounds and --first-colour for --format \
             swiss; a round robin plays one game per pairing (--double: two)",
        )),
        FormatArg::RoundRobin => Ok((None, None)),
    }
}

/// Prints what `tournament new` made.
fn print_created(out: &mut impl Write, created: &ops::Created) -> Result<(), Failure> {
    let t = &created.tournament;
    if t.knockout.is_some() {
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
        return print_knockout_games(out, &t.games);
    }
    if let Some(rules) = t.swiss {
        writeln!(
            out,
            "{}: Swiss of {}, {} players, round 1 paired: {} game{} (commit {}); `ravenpost tournament \
             next {}` pairs each next round once the last has finished",
            t.name,
            crate::referee::swiss::rounds_text(rules.rounds),
            t.players.len(),
            t.games.len(),
            if t.games.len() == 1 { "" } else { "s" },
            created.commit,
            t.name
        )
        .map_err(io)?;
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
    }
    print_round_games(out, &t.games, &t.byes())
}

/// Prints what `tournament next` made, or why nothing was due.
fn print_advanced(out: &mut impl Write, made: &ops::Advanced) -> Result<(), Failure> {
    let Some(commit) = &made.commit else {
        let why = made.waiting.as_deref().unwrap_or_default();
        return writeln!(out, "{}: no game is due, {why}", made.tournament).map_err(io);
    };
    let n = made.games.len();
    let s = if n == 1 { "" } else { "s" };
    writeln!(out, "{}: {n} new game{s} (commit {commit})", made.tournament).map_err(io)?;
    if made.games.iter().any(|g| g.game.is_some()) {
        return print_knockout_games(out, &made.games);
    }
    let round = made.games.first().map_or(0, |g| g.round);
    let byes: Vec<(u32, String)> = made.bye.iter().map(|p| (round, p.clone())).collect();
    print_round_games(out, &made.games, &byes)
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
            rounds,
            first_colour,
            double,
            time_control,
            army_choice,
            secret_armies,
            armies,
            options,
            json,
        } => {
            let army_choice = if secret_armies { Some(ArmyChoiceArg::Secret) } else { army_choice };
            let (knockout, swiss) = format_rules(format, games, tie_break, rounds, first_colour)?;
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
                swiss,
            };
            let created = ops::tournament_new(&a, n, s)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&created).expect("json")).map_err(io)?;
            } else {
                print_created(out, &created)?;
            }
        }
        TournamentCmd::Next { name, json } => {
            let a = ops::open(s, true)?;
            let made = ops::tournament_next(&a, &name, s)?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&made).expect("json")).map_err(io)?;
            } else {
                print_advanced(out, &made)?;
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
