//! Club play: `tournament new` (every game of a round robin in one commit), `standings`
//! (the crosstable of a tournament from its games' files), `ratings` (Elo over the
//! archive's finished games, per variant and overall) and `status --to-move` (the games
//! waiting for one player, most urgent deadline first), and the check `verify` makes of
//! each tournament file.
//!
//! The rules (pairings, what a tournament file may hold, standings and tie-breaks) are
//! the referee's ([`crate::referee::tournament`]); this module reads the archive, asks
//! the referee and commits. Results and whose turn it is come from the games' current
//! files through `status`'s standings cache ([`super::status`]).
//!
//! Ratings are Glicko-2 (or Elo on request) as the `skillratings` crate computes them:
//! every finished game (decisive or drawn) that `verify` finds clean rated once, in the
//! order its result was committed (then by game id), each game a rating period of its
//! own for both players (as lichess rates); one list over all variants and one per
//! variant. A Glicko-2 rating whose deviation is above [`PROVISIONAL_DEVIATION`] is
//! provisional. Elo: [`ELO_K`], every player starting at [`ELO_START`].

use std::collections::BTreeMap;

use serde::Serialize;
use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2, glicko2_rating_period};

use crate::archive::{Archive, ArmyChoice, CommitId, GamePath, Identity};
use crate::referee::knockout::{self, KnockoutRules};
use crate::referee::swiss::{self, NextRound, SwissRules};
use crate::referee::tournament::{self, ArmyPlan, Entrant, Outcome, Pairing, Standings, Tournament};

use super::checks::{StatusLine, status};
use super::error::Error as Failure;
use super::games::{NewGame, NewTags, new_game_tags};
use super::session::Session;

/// The Elo K-factor: the largest rating change one game can make.
pub const ELO_K: f64 = 20.0;
/// Every player's rating before their first rated game.
pub const ELO_START: f64 = 1500.0;
/// Glicko-2's τ, which bounds how fast a player's volatility changes (Glickman suggests
/// 0.3 to 1.2; lichess and `skillratings` use 0.5).
pub const GLICKO2_TAU: f64 = 0.5;
/// A Glicko-2 rating with a deviation above this is provisional (lichess's threshold).
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// How ratings are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RatingMethod {
    /// Glicko-2: a rating, its deviation and volatility (start 1500, 350, 0.06).
    #[default]
    Glicko2,
    /// Elo with K = [`ELO_K`].
    Elo,
}

/// One Glicko-2 rating period of `player` with `results` (each opponent's rating before
/// the period and the player's outcome), with [`GLICKO2_TAU`]: what `ratings` applies to
/// each game.
pub fn glicko2_period(player: &Glicko2Rating, results: &[(Glicko2Rating, Outcomes)]) -> Glicko2Rating {
    glicko2_rating_period(player, results, &glicko2_config())
}

fn glicko2_config() -> Glicko2Config {
    Glicko2Config { tau: GLICKO2_TAU, ..Glicko2Config::new() }
}

/// What `ravenpost tournament new` was given.
#[derive(Debug, Clone, Default)]
pub struct NewTournament {
    /// The name: the file name and every game's `Event` tag.
    pub name: String,
    /// The variant.
    pub variant: String,
    /// The players in table order: `Name` or `Name <email>`.
    pub players: Vec<String>,
    /// A double round robin.
    pub double: bool,
    /// The games' time control.
    pub time_control: Option<String>,
    /// How Fantasy Grand armies are chosen.
    pub army_choice: Option<ArmyPlan>,
    /// With [`ArmyPlan::Fixed`]: each player's army, `(player, army)`.
    pub armies: Vec<(String, String)>,
    /// Game options K=V for every game.
    pub options: Vec<(String, String)>,
    /// A knockout with these rules (`None`: a round robin).
    pub knockout: Option<KnockoutRules>,
    /// A Swiss with these rules (`None`: a round robin).
    pub swiss: Option<SwissRules>,
}

/// What `tournament new` made.
#[derive(Debug, Clone, Serialize)]
pub struct Created {
    /// The tournament, as committed.
    pub tournament: Tournament,
    /// The commit (short id).
    pub commit: String,
}

fn entrant(spec: &str) -> Result<Entrant, Failure> {
    let spec = spec.trim();
    let (name, email) = match (spec.find('<'), spec.ends_with('>')) {
        (Some(i), true) => {
            (spec[..i].trim().to_string(), Some(spec[i + 1..spec.len() - 1].trim().to_string()))
        }
        _ => (spec.to_string(), None),
    };
    if let Some(e) = &email {
        crate::referee::players::check_address(e)
            .map_err(|why| Failure::Usage(format!("--players: {name}'s address `{e}`: {why}")))?;
    }
    Ok(Entrant { name, email, army: None })
}

/// `ravenpost tournament new`: pairs the players by the Berger tables and creates the
/// tournament file and every game (or, with secret armies, every army choice) in one
/// commit.
///
/// # Errors
/// [`Failure::Usage`] for bad input (with what would be legal); the archive's errors.
pub fn tournament_new(archive: &Archive, n: NewTournament, session: &Session) -> Result<Created, Failure> {
    let mut players: Vec<Entrant> = n.players.iter().map(|p| entrant(p)).collect::<Result<_, _>>()?;
    let variant =
        crate::variants::by_name(&n.variant, &n.options).map_err(|e| Failure::Usage(e.to_string()))?;
    let slug = variant.def().slug.clone();
    match &n.army_choice {
        Some(_) if slug != ArmyChoice::VARIANT => {
            return Err(Failure::Usage(format!(
                "--army-choice: only Fantasy Grand Chess has armies, not {slug}"
            )));
        }
        Some(ArmyPlan::Fixed) => {
            for p in &mut players {
                let Some((_, army)) = n.armies.iter().find(|(who, _)| *who == p.name) else {
                    return Err(Failure::Usage(format!(
                        "--army-choice fixed: no army for {} (give one per player: --army \"{}=elves\")",
                        p.name, p.name
                    )));
                };
                p.army = Some(army.clone());
            }
            if let Some((who, _)) = n.armies.iter().find(|(who, _)| !players.iter().any(|p| p.name == *who)) {
                return Err(Failure::Usage(format!("--army {who}=…: {who} is not one of the players")));
            }
        }
        _ if !n.armies.is_empty() => {
            return Err(Failure::Usage("--army needs --army-choice fixed".into()));
        }
        _ => {}
    }
    let config = archive.config()?;
    let layout = config.layout;
    let time_control = n.time_control.clone().or(config.time_control.clone());
    if n.knockout.is_some() || n.swiss.is_some() {
        let format = if n.swiss.is_some() { "swiss" } else { "knockout" };
        if n.double {
            return Err(Failure::Usage(format!("--double is for round robins, not --format {format}")));
        }
        if n.army_choice == Some(ArmyPlan::Secret) {
            return Err(Failure::Usage(format!(
                "--format {format}: armies are chosen with --army-choice fixed; secret choices are for round robins"
            )));
        }
        if !n.options.is_empty() {
            return Err(Failure::Usage(format!(
                "--format {format}: game options (--option) are for round robins (later rounds could not repeat them)"
            )));
        }
    }
    let (tc, armies) = (time_control.clone(), n.army_choice.clone());
    let t = match (n.knockout, n.swiss) {
        (Some(rules), _) => Tournament::new_knockout(&n.name, &slug, players, rules, tc, armies),
        (None, Some(rules)) => Tournament::new_swiss(&n.name, &slug, players, rules, tc, armies),
        (None, None) => Tournament::new(&n.name, &slug, players, n.double, tc, armies),
    }
    .map_err(|e| Failure::Usage(format!("tournament {}: {e}", n.name)))?;
    let _lock = archive.lock()?;
    let tip = archive.tip()?;
    let path = Tournament::path(&t.name);
    if let Some(tip) = tip
        && archive.read_bytes_at(tip, &path)?.is_some()
    {
        return Err(Failure::Usage(format!("the archive already has a tournament {} ({path})", t.name)));
    }
    let time = session.now();
    let mut files = vec![(path.clone(), t.to_yaml().into_bytes())];
    files.extend(record_files(archive, &t, &t.games, &n.options, layout, time)?);
    let kind = match (t.knockout, t.swiss) {
        (Some(_), _) => "knockout".to_string(),
        (None, Some(rules)) => format!("Swiss of {}", swiss::rounds_text(rules.rounds)),
        (None, None) => format!("{}round robin", if t.double { "double " } else { "" }),
    };
    let message = format!(
        "{}: new tournament, {} {kind} of {} players, {} games",
        t.name,
        variant.def().title,
        t.players.len(),
        t.games.len()
    );
    let commit = commit_files(archive, session, tip, &message, &files, time)?;
    Ok(Created { tournament: t, commit })
}

/// The game files (or army choice files) of `games` of `t`, as its commit creates them.
fn record_files(
    archive: &Archive,
    t: &Tournament,
    games: &[Pairing],
    options: &[(String, String)],
    layout: crate::archive::Layout,
    time: crate::archive::Timestamp,
) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let mut existing: Vec<String> = archive.list_games()?.iter().map(|g| g.id().to_string()).collect();
    existing.extend(archive.list_army_choices()?);
    let person = |name: &str| t.players.iter().find(|p| p.name == name).expect("a scheduled player");
    let mut files = Vec::new();
    for g in games {
        if existing.contains(&g.id) {
            return Err(Failure::Usage(format!(
                "the archive already has a game {}: choose another tournament name",
                g.id
            )));
        }
        let (w, b) = (person(&g.white), person(&g.black));
        let game = NewGame {
            variant: t.variant.clone(),
            white: g.white.clone(),
            black: g.black.clone(),
            options: options.to_vec(),
            armies: match (&w.army, &b.army) {
                (Some(x), Some(y)) => Some((x.clone(), y.clone())),
                _ => None,
            },
            id: Some(g.id.clone()),
            event: Some(t.name.clone()),
            time_control: t.time_control.clone(),
            keys: [None, None],
            secret_armies: t.army_choice == Some(ArmyPlan::Secret),
            emails: [w.email.clone(), b.email.clone()],
            accounts: [None, None],
            variant_file: None,
            seed: None,
        };
        let NewTags { tags, user, .. } = new_game_tags(archive, &game, time)?;
        let tags: Vec<(String, String)> = tags
            .into_iter()
            .map(|(k, v)| if k == "Round" { (k, g.round.to_string()) } else { (k, v) })
            .collect();
        let text = if game.secret_armies {
            ArmyChoice::new(&g.white, &g.black, tags.into_iter().collect()).to_yaml()
        } else {
            super::games::new_game_text(&tags, user.as_ref())?
        };
        files.push((t.record_path(layout, &g.id), text.into_bytes()));
    }
    Ok(files)
}

/// Commits `files` (each created, or the tournament file rewritten) on `tip`.
fn commit_files(
    archive: &Archive,
    session: &Session,
    tip: Option<CommitId>,
    message: &str,
    files: &[(String, Vec<u8>)],
    time: crate::archive::Timestamp,
) -> Result<String, Failure> {
    let creator = archive.identity(session.identity()).unwrap_or_else(|_| Identity::ravenpost());
    let change = files.iter().fold(
        crate::archive::Change::new(crate::archive::CommitNames::by(&creator, time), tip, message),
        |change, (path, text)| {
            if Tournament::parse_path(path).is_some() {
                change.write(path, text)
            } else {
                change.create(path, text)
            }
        },
    );
    Ok(archive.commit(&change)?.short())
}

/// What `tournament next` made.
#[derive(Debug, Clone, Serialize)]
pub struct Advanced {
    /// The tournament.
    pub tournament: String,
    /// The games it created, in bracket (or board) order (none when none is due).
    pub games: Vec<Pairing>,
    /// A Swiss: who has the pairing-allocated bye in the round made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bye: Option<String>,
    /// The commit (short id); `None` when no game is due.
    pub commit: Option<String>,
    /// Why no game is due (the games awaited, or who won); `None` when games were made.
    pub waiting: Option<String>,
}

/// The games the results call for in knockout or Swiss `t`, or why none is due.
fn due_games(
    t: &Tournament,
    outcome: &dyn Fn(&str) -> Option<Outcome>,
) -> Result<(Vec<Pairing>, String), Failure> {
    let awaited = || {
        let going: Vec<&str> =
            t.games.iter().filter(|g| outcome(&g.id).is_none()).map(|g| g.id.as_str()).collect();
        format!("waiting for the results of {}", going.join(", "))
    };
    if let Some(rules) = t.swiss {
        return match swiss::next_round(t, outcome) {
            Ok(NextRound::Due(games)) => Ok((games, String::new())),
            Ok(NextRound::Waiting(_)) => Ok((Vec::new(), awaited())),
            Ok(NextRound::Over) if t.games.iter().any(|g| outcome(&g.id).is_none()) => Ok((
                Vec::new(),
                format!("all {} are paired; {}", swiss::rounds_text(rules.rounds), awaited()),
            )),
            Ok(NextRound::Over) => {
                Ok((Vec::new(), format!("it is over: all {} rounds were played", rules.rounds)))
            }
            Err(e) => {
                Err(Failure::Declined(format!("{}: round {} cannot be paired: {e}", t.name, t.rounds() + 1)))
            }
        };
    }
    let due = knockout::due(t, outcome);
    let why = match knockout::bracket(t, outcome).and_then(|b| b.winner) {
        Some(w) => format!("it is over: {w} won"),
        None => awaited(),
    };
    Ok((due, why))
}

/// `ravenpost tournament next NAME`: a knockout's games that the results call for (the
/// matches whose players are both known, the next tie-break game of a level match), or a
/// Swiss's next round once the last has finished, appended to the tournament file and
/// created, in one commit.
///
/// # Errors
/// [`Failure::Usage`] for an unknown tournament or a round robin; [`Failure::Declined`]
/// for a Swiss round that cannot be paired; the archive's errors. No game due is not an
/// error: [`Advanced::waiting`] says why.
pub fn tournament_next(archive: &Archive, name: &str, session: &Session) -> Result<Advanced, Failure> {
    let layout = archive.config()?.layout;
    let _lock = archive.lock()?;
    let tip = archive.tip()?;
    let mut t = read_tournament(archive, tip, name)?;
    if t.knockout.is_none() && t.swiss.is_none() {
        return Err(Failure::Usage(format!(
            "tournament {name} is a round robin: its games were all made with it; `tournament next` is for \
             knockouts and Swiss tournaments"
        )));
    }
    let text = t.to_yaml();
    let definitions = super::definitions::at(archive, tip)?;
    let outcomes = super::checks::knockout_outcomes(archive, tip, Some(&text), &definitions)?;
    let outcome = |id: &str| outcomes.get(id).copied();
    let (due, why) = due_games(&t, &outcome)?;
    if due.is_empty() {
        let waiting = Some(why);
        return Ok(Advanced {
            tournament: name.to_string(),
            games: Vec::new(),
            bye: None,
            commit: None,
            waiting,
        });
    }
    let time = session.now();
    t.games.extend(due.iter().cloned());
    let mut files = vec![(Tournament::path(name), t.to_yaml().into_bytes())];
    files.extend(record_files(archive, &t, &due, &[], layout, time)?);
    let rounds: std::collections::BTreeSet<u32> = due.iter().map(|g| g.round).collect();
    let rounds: Vec<String> = rounds.iter().map(u32::to_string).collect();
    let plural = if due.len() == 1 { "" } else { "s" };
    let bye = t.swiss.and_then(|_| t.byes().into_iter().find(|(r, _)| *r == t.rounds()).map(|(_, p)| p));
    let message = match (t.swiss, &bye) {
        (Some(_), Some(p)) => {
            format!("{name}: Swiss round {}, {} game{plural}, bye {p}", rounds.join(""), due.len())
        }
        (Some(_), None) => format!("{name}: Swiss round {}, {} game{plural}", rounds.join(""), due.len()),
        (None, _) => {
            format!("{name}: next knockout games, round {}, {} game{plural}", rounds.join(" and "), due.len())
        }
    };
    let commit = commit_files(archive, session, tip, &message, &files, time)?;
    Ok(Advanced { tournament: name.to_string(), games: due, bye, commit: Some(commit), waiting: None })
}

/// The names of the tournaments at the tip, sorted.
///
/// # Errors
/// The archive's errors.
pub fn list_tournaments(archive: &Archive) -> Result<Vec<String>, Failure> {
    let Some(tip) = archive.tip()? else { return Ok(Vec::new()) };
    let _ = tip;
    let index = archive.index()?;
    let mut out = Vec::new();
    for p in &index.paths_under(tournament::DIR) {
        if let Some(name) = Tournament::parse_path(p)
            && index.last_version(p).is_some_and(|v| v.blob.is_some())
        {
            out.push(name.to_string());
        }
    }
    out.sort();
    Ok(out)
}

fn read_tournament(archive: &Archive, tip: Option<CommitId>, name: &str) -> Result<Tournament, Failure> {
    let text = match tip {
        Some(t) => archive.read_file_at(t, &Tournament::path(name))?,
        None => None,
    };
    let Some(text) = text else {
        let known = list_tournaments(archive)?;
        return Err(Failure::Usage(format!(
            "no tournament `{name}` in the archive{}",
            if known.is_empty() {
                " (it has none: make one with `ravenpost tournament new`)".to_string()
            } else {
                format!(" (tournaments: {})", known.join(", "))
            }
        )));
    };
    Tournament::from_yaml(&text).map_err(|e| Failure::Declined(format!("{}: {e}", Tournament::path(name))))
}

/// `ravenpost standings [TOURNAMENT]`: the standings of one tournament, or of each.
///
/// # Errors
/// An unknown tournament; the archive's errors.
pub fn standings(
    archive: &Archive,
    name: Option<&str>,
    session: &Session,
) -> Result<Vec<Standings>, Failure> {
    let tip = archive.tip()?;
    let names = match name {
        Some(n) => vec![n.to_string()],
        None => list_tournaments(archive)?,
    };
    let lines = status(archive, session)?;
    let unclean = unclean_games(archive)?;
    let mut out = Vec::new();
    for n in names {
        let t = read_tournament(archive, tip, &n)?;
        let result = |id: &str| {
            lines
                .iter()
                .find(|l| {
                    l.id == id && l.variant == t.variant && l.problem.is_none() && !unclean.contains(id)
                })
                .and_then(|l| Outcome::from_token(&l.result))
        };
        let mut s = tournament::standings(&t, result);
        s.knockout = knockout::bracket(&t, &result);
        out.push(s);
    }
    Ok(out)
}

/// The games `verify` finds a problem in (a forged step, tags the registry contradicts):
/// neither ratings nor standings count them.
fn unclean_games(archive: &Archive) -> Result<std::collections::BTreeSet<String>, Failure> {
    let report = super::checks::verify(archive, None, &mut |_, _| {})?;
    Ok(report.problems.into_iter().map(|p| p.game).filter(|g| !g.is_empty()).collect())
}

/// One player's rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerRating {
    /// The player.
    pub name: String,
    /// The rating after their last rated game, rounded to a whole number.
    pub rating: f64,
    /// Glicko-2: the rating deviation, rounded (the rating is ± about twice this with 95%
    /// confidence).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deviation: Option<f64>,
    /// Glicko-2: the volatility, to six places.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volatility: Option<f64>,
    /// Glicko-2: whether the rating is provisional (deviation over
    /// [`PROVISIONAL_DEVIATION`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub provisional: bool,
    /// Rated games.
    pub games: usize,
    /// Wins.
    pub wins: usize,
    /// Draws.
    pub draws: usize,
    /// Losses.
    pub losses: usize,
}

/// What `ravenpost ratings` computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// `glicko2` or `elo`.
    pub method: &'static str,
    /// Elo: the K-factor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<f64>,
    /// Glicko-2: τ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tau: Option<f64>,
    /// Glicko-2: the deviation above which a rating is provisional.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional_above: Option<f64>,
    /// The starting rating.
    pub start: f64,
    /// The first day counted (YYYY-MM-DD, UTC), if limited.
    pub from: Option<String>,
    /// The last day counted, if limited.
    pub to: Option<String>,
    /// The games rated, in the order rated.
    pub games: Vec<RatedGame>,
    /// Over every variant, best first.
    pub overall: Vec<PlayerRating>,
    /// By variant slug, best first.
    pub variants: BTreeMap<String, Vec<PlayerRating>>,
}

/// A game that counted for the ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatedGame {
    /// The game id.
    pub id: String,
    /// The variant.
    pub variant: String,
    /// White.
    pub white: String,
    /// Black.
    pub black: String,
    /// The result token.
    pub result: String,
    /// When the result was committed (RFC 3339).
    pub finished: String,
}

/// A player's rating and their tally.
#[derive(Debug, Clone, Copy)]
struct Tally {
    elo: EloRating,
    glicko2: Glicko2Rating,
    games: usize,
    wins: usize,
    draws: usize,
    losses: usize,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            elo: EloRating { rating: ELO_START },
            glicko2: Glicko2Rating::new(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
        }
    }
}

struct Pool {
    method: RatingMethod,
    players: BTreeMap<String, Tally>,
}

impl Pool {
    fn new(method: RatingMethod) -> Pool {
        Pool { method, players: BTreeMap::new() }
    }

    fn rate(&mut self, white: &str, black: &str, o: Outcome) {
        let mut w = self.players.get(white).copied().unwrap_or_default();
        let mut b = self.players.get(black).copied().unwrap_or_default();
        let outcome = match o {
            Outcome::WhiteWins => Outcomes::WIN,
            Outcome::BlackWins => Outcomes::LOSS,
            Outcome::Draw => Outcomes::DRAW,
        };
        match self.method {
            RatingMethod::Elo => (w.elo, b.elo) = elo(&w.elo, &b.elo, &outcome, &EloConfig { k: ELO_K }),
            RatingMethod::Glicko2 => {
                (w.glicko2, b.glicko2) = glicko2(&w.glicko2, &b.glicko2, &outcome, &glicko2_config());
            }
        }
        for (t, halves) in [(&mut w, o.white_halves()), (&mut b, 2 - o.white_halves())] {
            t.games += 1;
            t.wins += usize::from(halves == 2);
            t.draws += usize::from(halves == 1);
            t.losses += usize::from(halves == 0);
        }
        self.players.insert(white.to_string(), w);
        self.players.insert(black.to_string(), b);
    }

    fn list(self) -> Vec<PlayerRating> {
        let method = self.method;
        let mut v: Vec<PlayerRating> = self
            .players
            .into_iter()
            .map(|(name, t)| {
                let glicko = (method == RatingMethod::Glicko2).then_some(t.glicko2);
                PlayerRating {
                    name,
                    rating: glicko.map_or(t.elo.rating, |g| g.rating).round(),
                    deviation: glicko.map(|g| g.deviation.round()),
                    volatility: glicko.map(|g| (g.volatility * 1e6).round() / 1e6),
                    provisional: glicko.is_some_and(|g| g.deviation > PROVISIONAL_DEVIATION),
                    games: t.games,
                    wins: t.wins,
                    draws: t.draws,
                    losses: t.losses,
                }
            })
            .collect();
        v.sort_by(|a, b| b.rating.total_cmp(&a.rating).then_with(|| a.name.cmp(&b.name)));
        v
    }
}

fn parse_day(flag: &str, day: &str) -> Result<chrono::NaiveDate, Failure> {
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .map_err(|e| Failure::Usage(format!("{flag} `{day}`: {e} (expected YYYY-MM-DD)")))
}

/// `ravenpost ratings [--from DAY] [--to DAY]`: Elo ratings from every finished game whose
/// result was committed on those days (UTC, both included).
///
/// # Errors
/// A malformed day; the archive's errors.
pub fn ratings(
    archive: &Archive,
    from: Option<&str>,
    to: Option<&str>,
    method: RatingMethod,
    session: &Session,
) -> Result<Ratings, Failure> {
    let first = from.map(|d| parse_day("--from", d)).transpose()?;
    let last = to.map(|d| parse_day("--to", d)).transpose()?;
    let index = archive.index()?;
    let layout = archive.layout()?;
    let unclean = unclean_games(archive)?;
    let mut games = Vec::new();
    for l in status(archive, session)? {
        let clean = l.problem.is_none() && !unclean.contains(&l.id);
        let Some(o) = Outcome::from_token(&l.result).filter(|_| clean) else { continue };
        let Ok(path) = GamePath::in_layout(layout, &l.variant, &l.id) else { continue };
        let Some(v) = index.last_version(&path.path()) else { continue };
        let time = index.commit_at(v.position).time;
        let day = time.to_datetime().map(|d| d.naive_utc().date());
        if first.is_some_and(|f| day.is_none_or(|d| d < f)) || last.is_some_and(|t| day.is_none_or(|d| d > t))
        {
            continue;
        }
        games.push((time.unix_seconds(), l, o, time));
    }
    games.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
    let mut overall = Pool::new(method);
    let mut by_variant: BTreeMap<String, Pool> = BTreeMap::new();
    let mut rated = Vec::new();
    for (_, l, o, time) in games {
        overall.rate(&l.white, &l.black, o);
        by_variant.entry(l.variant.clone()).or_insert_with(|| Pool::new(method)).rate(&l.white, &l.black, o);
        rated.push(RatedGame {
            id: l.id,
            variant: l.variant,
            white: l.white,
            black: l.black,
            result: l.result,
            finished: time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default(),
        });
    }
    let glicko = method == RatingMethod::Glicko2;
    Ok(Ratings {
        method: if glicko { "glicko2" } else { "elo" },
        k: (!glicko).then_some(ELO_K),
        tau: glicko.then_some(GLICKO2_TAU),
        provisional_above: glicko.then_some(PROVISIONAL_DEVIATION),
        start: ELO_START,
        from: first.map(|d| d.to_string()),
        to: last.map(|d| d.to_string()),
        games: rated,
        overall: overall.list(),
        variants: by_variant.into_iter().map(|(k, p)| (k, p.list())).collect(),
    })
}

/// `ravenpost status --to-move [NAME]`: the games in which `player` is to move, the most
/// urgent deadline first (games without a clock last, then by id).
///
/// # Errors
/// The archive's errors.
pub fn to_move(archive: &Archive, player: &str, session: &Session) -> Result<Vec<StatusLine>, Failure> {
    Ok(waiting_for(status(archive, session)?, player))
}

/// Of `lines`, the games waiting for `player`'s move, most urgent deadline first (then
/// by id): what [`to_move`] answers from the status lines it reads.
pub fn waiting_for(lines: Vec<StatusLine>, player: &str) -> Vec<StatusLine> {
    let mut lines: Vec<StatusLine> =
        lines.into_iter().filter(|l| l.problem.is_none() && l.to_move.as_deref() == Some(player)).collect();
    lines.sort_by(|a, b| {
        let key = |l: &StatusLine| l.clock.as_ref().map(|c| c.deadline.timestamp());
        match (key(a), key(b)) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then_with(|| a.id.cmp(&b.id))
    });
    lines
}

/// The player `status --to-move` lists for when no name is given: the identity's name.
///
/// # Errors
/// [`Failure::Usage`] when there is no identity.
pub fn identity_name(archive: &Archive, session: &Session) -> Result<String, Failure> {
    archive.identity(session.identity()).map(|i| i.name).map_err(|e| {
        Failure::Usage(format!(
            "status --to-move: whose games? name the player (`--to-move NAME`) or set an identity ({e})"
        ))
    })
}
