//! Tournaments: a (double) round robin as data and its rules, with no I/O.
//!
//! A tournament is the file `tournaments/<name>.yaml` ([`Tournament`]), committed once,
//! together with every game it schedules, in one commit (`ravenpost tournament new`).
//! It holds the variant, the players in their drawn order (the numbers of the Berger
//! table), the time control, how Fantasy Grand armies are chosen, and every game: round,
//! board, game id, White and Black. [`check_created`] is what the pre-receive hook and
//! `verify` ask of the commit that creates one: the file reads, its pairings are the
//! Berger tables' for its players, and the commit creates exactly its games, each with
//! the tournament's `Event` and `Round` tags and players. A tournament file never changes
//! afterwards (results live in the game files).
//!
//! Pairings ([`berger`]) follow the Berger tables that FIDE (Handbook C.05, Annex 1) and
//! ICCF use: with `n` players (a bye added when `n` is odd), round `r` pairs players `i`
//! and `j` with `i + j ≡ r + 1 (mod n − 1)`, the player `p` with `2p ≡ r + 1` meeting
//! player `n`; player `n` has White in even rounds, and of two others the one from whom
//! the opponent's number is an odd step forward (mod `n − 1`) has White. Board 1 is
//! player `n`'s game, board `k` pairs `p + k − 1` with `p − k + 1`. A double round robin
//! plays the table twice, colours reversed in the second cycle.
//!
//! [`standings`] computes the crosstable as ICCF prints it from the games' results:
//! points, games left and the Sonneborn-Berger tie-break (the sum, over a player's
//! games, of the points scored in the game times the opponent's total points), ranked
//! by points, then Sonneborn-Berger, then the players' order.

use crate::variants::Definitions;
use serde::{Deserialize, Serialize};

use super::knockout::{self, KnockoutRules};
use super::layout::{GamePath, Layout};
use super::swiss::{self, SwissRules};

/// The folder of tournament files.
pub const DIR: &str = "tournaments";
/// The extension of tournament files.
pub const EXTENSION: &str = "yaml";

/// How a Fantasy Grand Chess tournament's armies are chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArmyPlan {
    /// Each game's armies are chosen in secret by its players (commit–reveal): the
    /// tournament's commit creates army choice files, not game files.
    Secret,
    /// Each player plays the army listed beside their name in every game.
    Fixed,
}

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entrant {
    /// The name (as in the games' `White`/`Black` tags).
    pub name: String,
    /// The email address (the games' `WhiteEmail`/`BlackEmail` tags).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The army the player plays in every game ([`ArmyPlan::Fixed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub army: Option<String>,
}

/// One scheduled game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairing {
    /// The round, from 1.
    pub round: u32,
    /// The board within the round, from 1.
    pub board: u32,
    /// The game id.
    pub id: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// A knockout: the game's number in its match (the board is the match's number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<u32>,
}

/// A tournament file: `tournaments/<name>.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Tournament {
    /// Format version, [`Tournament::VERSION`].
    pub version: u32,
    /// The name (the file name, and every game's `Event` tag).
    pub name: String,
    /// The variant's slug.
    pub variant: String,
    /// A double round robin (each pair meets twice, once with each colour).
    #[serde(default)]
    pub double: bool,
    /// The games' `TimeControl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<String>,
    /// How armies are chosen (Fantasy Grand Chess only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub army_choice: Option<ArmyPlan>,
    /// A knockout's rules; `None` for a round robin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knockout: Option<KnockoutRules>,
    /// A Swiss's rules; `None` for a round robin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss: Option<SwissRules>,
    /// The players, in their order in the tables (player 1 first); a knockout's in seed
    /// order, a Swiss's in pairing-number order.
    pub players: Vec<Entrant>,
    /// Every game, round by round, board by board.
    pub games: Vec<Pairing>,
}

/// What is wrong with a tournament's creation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TournamentProblem {
    /// The file does not read.
    #[error("the tournament file does not read: {0}")]
    Unreadable(String),
    /// The file's name and its `name` differ.
    #[error("the tournament file is named {file} but says it is {name}")]
    WrongName {
        /// From the path.
        file: String,
        /// From the contents.
        name: String,
    },
    /// Too few players, or a name twice.
    #[error("{0}")]
    BadPlayers(String),
    /// The games are not the Berger tables' for these players.
    #[error("the games are not the round robin of the Berger tables for these players: {0}")]
    NotBerger(String),
    /// A scheduled game is not created in the same commit, or is not as scheduled.
    #[error("game {id}: {why}")]
    Game {
        /// The game id.
        id: String,
        /// What is wrong.
        why: String,
    },
    /// A knockout's games are not the bracket's.
    #[error("the games are not the knockout bracket's for these players and results: {0}")]
    NotBracket(String),
    /// A Swiss's games are not the Dutch system's pairings for its players and results.
    #[error("the games are not the Swiss pairings for these players and results: {0}")]
    NotSwiss(String),
    /// A round robin's file changed after its creation.
    #[error("a tournament file never changes")]
    Changed,
    /// The commit creates a record the tournament does not schedule.
    #[error("{path} is not a game of the tournament")]
    Unscheduled {
        /// The path.
        path: String,
    },
}

impl Tournament {
    /// The format version this release writes and reads.
    pub const VERSION: u32 = 1;

    /// The path of tournament `name`: `tournaments/<name>.yaml`.
    pub fn path(name: &str) -> String {
        format!("{DIR}/{name}.{EXTENSION}")
    }

    /// The tournament name of a tournament file's path; `None` for any other path.
    pub fn parse_path(path: &str) -> Option<&str> {
        let name = path.strip_prefix(DIR)?.strip_prefix('/')?.strip_suffix(EXTENSION)?.strip_suffix('.')?;
        check_name(name).is_ok().then_some(name)
    }

    /// Reads a tournament file.
    ///
    /// # Errors
    /// The reader's sentence, with line and column.
    pub fn from_yaml(text: &str) -> Result<Tournament, String> {
        let t: Tournament = serde_yaml_ng::from_str(text).map_err(|e| format!("tournament file: {e}"))?;
        if t.version != Self::VERSION {
            return Err(format!(
                "tournament file: format version {}, this ravenpost reads version {}",
                t.version,
                Self::VERSION
            ));
        }
        Ok(t)
    }

    /// The file's text.
    pub fn to_yaml(&self) -> String {
        let body = serde_yaml_ng::to_string(self).expect("a struct of strings serialises");
        let how = if self.knockout.is_some() || self.swiss.is_some() {
            "its games grow only by `ravenpost tournament next`"
        } else {
            "never edited"
        };
        format!("# A ravenpost tournament: written by `ravenpost tournament new`; {how}.\n{body}")
    }

    /// A new tournament: `players` paired by the Berger tables (twice with `double`),
    /// game ids `<name>-r<round>-b<board>` (rounds and boards padded to equal width).
    ///
    /// # Errors
    /// A bad name, fewer than two players, or a player named twice.
    pub fn new(
        name: &str,
        variant: &str,
        players: Vec<Entrant>,
        double: bool,
        time_control: Option<String>,
        army_choice: Option<ArmyPlan>,
    ) -> Result<Tournament, TournamentProblem> {
        check_name(name)
            .map_err(|why| TournamentProblem::BadPlayers(format!("tournament name `{name}`: {why}")))?;
        check_players(&players)?;
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        let games = schedule(name, &names, double);
        Ok(Tournament {
            version: Self::VERSION,
            name: name.to_string(),
            variant: variant.to_string(),
            double,
            time_control,
            army_choice,
            knockout: None,
            swiss: None,
            players,
            games,
        })
    }

    /// A new knockout: `players` in seed order, with the games due at the start
    /// ([`knockout::due`]: round 1, and any round-2 match of two players with byes).
    ///
    /// # Errors
    /// A bad name, fewer than two players, a player named twice, matches of no games.
    pub fn new_knockout(
        name: &str,
        variant: &str,
        players: Vec<Entrant>,
        rules: KnockoutRules,
        time_control: Option<String>,
        army_choice: Option<ArmyPlan>,
    ) -> Result<Tournament, TournamentProblem> {
        let mut t = Tournament::new(name, variant, players, false, time_control, army_choice)?;
        check_rules(rules)?;
        t.knockout = Some(rules);
        t.games.clear();
        t.games = knockout::due(&t, &|_| None);
        Ok(t)
    }

    /// A new Swiss: `players` in pairing-number order, with round 1's games paired by
    /// the Dutch system ([`swiss::next_round`]).
    ///
    /// # Errors
    /// A bad name, fewer than two players or more than a Swiss pairs, a player named
    /// twice, no round or as many rounds as players.
    pub fn new_swiss(
        name: &str,
        variant: &str,
        players: Vec<Entrant>,
        rules: SwissRules,
        time_control: Option<String>,
        army_choice: Option<ArmyPlan>,
    ) -> Result<Tournament, TournamentProblem> {
        let mut t = Tournament::new(name, variant, players, false, time_control, army_choice)?;
        swiss::check_rules(rules, t.players.len())?;
        t.swiss = Some(rules);
        t.games.clear();
        t.games = match swiss::next_round(&t, &|_| None) {
            Ok(swiss::NextRound::Due(games)) => games,
            Ok(_) => Vec::new(),
            Err(e) => return Err(TournamentProblem::NotSwiss(e.to_string())),
        };
        Ok(t)
    }

    /// The number of rounds paired (for a Swiss or a knockout: so far).
    pub fn rounds(&self) -> u32 {
        self.games.iter().map(|g| g.round).max().unwrap_or(0)
    }

    /// Who has the bye in each round (an odd number of players: the one who plays no
    /// game of that round), as (round, player), round by round.
    pub fn byes(&self) -> Vec<(u32, String)> {
        let mut out = Vec::new();
        for round in 1..=self.rounds() {
            let playing = |name: &str| {
                self.games.iter().any(|g| g.round == round && (g.white == name || g.black == name))
            };
            out.extend(self.players.iter().filter(|p| !playing(&p.name)).map(|p| (round, p.name.clone())));
        }
        out
    }

    /// The path of a scheduled game's record as the tournament's commit creates it in an
    /// archive of `layout`: its game file, or its army choice file ([`ArmyPlan::Secret`]).
    pub fn record_path(&self, layout: Layout, id: &str) -> String {
        if self.army_choice == Some(ArmyPlan::Secret) {
            super::army::ArmyChoice::path(layout, id)
        } else {
            GamePath::in_layout(layout, &self.variant, id).map(|g| g.path()).unwrap_or_default()
        }
    }
}

/// The games `after` adds to `before` when it is `before` with games appended and nothing
/// else changed (players, rules, earlier games); `None` otherwise. What a knockout's and a
/// Swiss's next games may do to the file.
pub fn appended<'a>(before: &Tournament, after: &'a Tournament) -> Option<&'a [Pairing]> {
    let n = before.games.len();
    let kept = after.games.len() >= n && after.games[..n] == before.games[..];
    let mut same = after.clone();
    same.games.truncate(n);
    (kept && same == *before).then(|| &after.games[n..])
}

/// A tournament name: letters, digits, `-`, `_`, `.`, not starting with `.`, at most 80
/// bytes (game ids are made from it).
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("empty");
    }
    if name.len() > 80 {
        return Err("longer than 80 bytes");
    }
    if name.starts_with('.') {
        return Err("starts with `.`");
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
        return Err("use letters, digits, `-`, `_` and `.`");
    }
    Ok(())
}

fn check_players(players: &[Entrant]) -> Result<(), TournamentProblem> {
    if players.len() < 2 {
        return Err(TournamentProblem::BadPlayers(format!(
            "a tournament needs at least two players, this one has {}",
            players.len()
        )));
    }
    for (k, p) in players.iter().enumerate() {
        if p.name.trim().is_empty() || p.name != p.name.trim() || p.name.contains(['<', '>', ',']) {
            return Err(TournamentProblem::BadPlayers(format!(
                "player {}: `{}` is not a usable name (no `<`, `>`, `,`, no spaces around it)",
                k + 1,
                p.name
            )));
        }
        if players[..k].iter().any(|q| q.name == p.name) {
            return Err(TournamentProblem::BadPlayers(format!("{} is listed twice", p.name)));
        }
    }
    Ok(())
}

fn check_rules(rules: KnockoutRules) -> Result<(), TournamentProblem> {
    if rules.games == 0 || rules.games > knockout::MAX_GAMES {
        return Err(TournamentProblem::BadPlayers(format!(
            "a knockout match needs at least one game and at most {} (--games 1 to {}), not {}",
            knockout::MAX_GAMES,
            knockout::MAX_GAMES,
            rules.games
        )));
    }
    Ok(())
}

/// The Berger table for `n` players (numbered from 1; a bye is added when `n` is odd and
/// its games left out): for each round, its games as (White, Black), board 1 first.
pub fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 {
        return Vec::new();
    }
    let m = if n.is_multiple_of(2) { n } else { n + 1 };
    let q = m - 1;
    // Players 1..=q on residues mod q (player q is residue 0).
    let norm = |x: usize| {
        let r = x % q;
        if r == 0 { q } else { r }
    };
    let mut rounds = Vec::with_capacity(q);
    for r in 1..=q {
        let c = (r + 1) % q;
        let p = (1..=q).find(|&p| (2 * p) % q == c).expect("q is odd, so 2 is invertible mod q");
        let mut games = Vec::with_capacity(m / 2);
        games.push(if r % 2 == 0 { (m, p) } else { (p, m) });
        for k in 1..m / 2 {
            let a = norm(p + k);
            let b = norm(p + q - k);
            // White is the one from whom the opponent is an odd step forward (mod q).
            let step = (b + q - a) % q;
            games.push(if step % 2 == 1 { (a, b) } else { (b, a) });
        }
        games.retain(|&(w, b)| w <= n && b <= n);
        rounds.push(games);
    }
    rounds
}

/// Every game of the round robin of `players` (in table order), as pairings with ids.
pub fn schedule(name: &str, players: &[&str], double: bool) -> Vec<Pairing> {
    let table = berger(players.len());
    let cycles = if double { 2 } else { 1 };
    let rounds = table.len() * cycles;
    let boards = table.iter().map(Vec::len).max().unwrap_or(0);
    let (rw, bw) = (rounds.to_string().len(), boards.to_string().len());
    let mut out = Vec::new();
    for cycle in 0..cycles {
        for (r, games) in table.iter().enumerate() {
            let round = cycle * table.len() + r + 1;
            for (b, &(w, bl)) in games.iter().enumerate() {
                let (w, bl) = if cycle == 0 { (w, bl) } else { (bl, w) };
                out.push(Pairing {
                    round: round as u32,
                    board: (b + 1) as u32,
                    id: format!("{name}-r{round:0rw$}-b{:0bw$}", b + 1),
                    white: players[w - 1].to_string(),
                    black: players[bl - 1].to_string(),
                    game: None,
                });
            }
        }
    }
    out
}

/// One record the tournament's commit creates: its path and text.
#[derive(Debug, Clone, Copy)]
pub struct CreatedRecord<'a> {
    /// The path in the archive.
    pub path: &'a str,
    /// Its tag pairs as the file states them (a game file's tags, or an army choice's
    /// tags with its players as `White`/`Black`); `None` when it does not read.
    pub tags: Option<&'a [(String, String)]>,
}

/// Judges the creation of the tournament file `path` with text `text` by a commit that
/// also creates `records` (every other file it adds): the file reads, is named as its
/// path, lists distinct players, pairs them by the Berger tables, and the commit creates
/// exactly its games, each with `Event` the tournament's name, `Round` its round, and
/// its White and Black. Returns the tournament.
///
/// # Errors
/// The first [`TournamentProblem`] found.
pub fn check_created(
    path: &str,
    text: &str,
    records: &[CreatedRecord<'_>],
) -> Result<Tournament, TournamentProblem> {
    let t = Tournament::from_yaml(text).map_err(TournamentProblem::Unreadable)?;
    let file = Tournament::parse_path(path).unwrap_or_default();
    if file != t.name {
        return Err(TournamentProblem::WrongName { file: file.to_string(), name: t.name.clone() });
    }
    check_players(&t.players)?;
    check_schedule(&t)?;
    check_records(&t, &t.games, records)?;
    Ok(t)
}

/// A new tournament's games are its format's: the Berger tables', or a knockout's games
/// due at the start.
fn check_schedule(t: &Tournament) -> Result<(), TournamentProblem> {
    if t.swiss.is_some() {
        return swiss::check_created_round(t);
    }
    if let Some(rules) = t.knockout {
        check_rules(rules)?;
        if t.double || t.army_choice == Some(ArmyPlan::Secret) {
            return Err(TournamentProblem::NotBracket(
                "a knockout is neither double nor played with secret armies".into(),
            ));
        }
        let mut start = t.clone();
        start.games.clear();
        let expected = knockout::due(&start, &|_| None);
        if expected != t.games {
            let show = |g: &[Pairing]| {
                g.iter().map(|g| format!("{} {} v {}", g.id, g.white, g.black)).collect::<Vec<_>>().join(", ")
            };
            return Err(TournamentProblem::NotBracket(format!(
                "the first games are {}; the file lists {}",
                show(&expected),
                show(&t.games)
            )));
        }
        return Ok(());
    }
    let names: Vec<&str> = t.players.iter().map(|p| p.name.as_str()).collect();
    let expected = schedule(&t.name, &names, t.double);
    if expected != t.games {
        let first = expected
            .iter()
            .zip(&t.games)
            .find(|(a, b)| a != b)
            .map(|(a, b)| {
                format!(
                    "round {} board {}: {} v {} ({}) expected, {} v {} ({}) found",
                    a.round, a.board, a.white, a.black, a.id, b.white, b.black, b.id
                )
            })
            .unwrap_or_else(|| format!("{} games expected, {} found", expected.len(), t.games.len()));
        return Err(TournamentProblem::NotBerger(first));
    }
    Ok(())
}

/// The commit creates exactly `games` of `t` (`records`: every other record it
/// creates), each with the tournament's tags.
fn check_records(
    t: &Tournament,
    games: &[Pairing],
    records: &[CreatedRecord<'_>],
) -> Result<(), TournamentProblem> {
    // The records' layout is the archive's (a record in the other one is refused as such).
    let layout = records.iter().find_map(|r| super::layout::record_layout(r.path)).unwrap_or_default();
    for r in records {
        if !games.iter().any(|g| t.record_path(layout, &g.id) == r.path) {
            return Err(TournamentProblem::Unscheduled { path: r.path.to_string() });
        }
    }
    for g in games {
        let want = t.record_path(layout, &g.id);
        let Some(r) = records.iter().find(|r| r.path == want) else {
            return Err(TournamentProblem::Game {
                id: g.id.clone(),
                why: format!("{want} is not created in the tournament's commit"),
            });
        };
        let Some(tags) = r.tags else {
            return Err(TournamentProblem::Game { id: g.id.clone(), why: "its file does not read".into() });
        };
        let tag = |k: &str| tags.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let round = g.round.to_string();
        let entrant = |name: &str| t.players.iter().find(|p| p.name == name);
        let mut wanted = vec![
            ("Event", Some(t.name.as_str())),
            ("Round", Some(round.as_str())),
            ("White", Some(g.white.as_str())),
            ("Black", Some(g.black.as_str())),
            ("TimeControl", t.time_control.as_deref()),
            ("WhiteEmail", entrant(&g.white).and_then(|e| e.email.as_deref())),
            ("BlackEmail", entrant(&g.black).and_then(|e| e.email.as_deref())),
        ];
        if t.army_choice == Some(ArmyPlan::Fixed) {
            wanted.push(("WhiteArmy", entrant(&g.white).and_then(|e| e.army.as_deref())));
            wanted.push(("BlackArmy", entrant(&g.black).and_then(|e| e.army.as_deref())));
        }
        for (k, v) in wanted {
            if tag(k) != v {
                return Err(TournamentProblem::Game {
                    id: g.id.clone(),
                    why: format!(
                        "its {k} tag is {} but the tournament says {}",
                        tag(k).map(|s| format!("`{s}`")).unwrap_or_else(|| "missing".into()),
                        v.map(|s| format!("`{s}`")).unwrap_or_else(|| "none".into()),
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The tag pairs a tournament's record states: a game file's tags, or an army choice's
/// tags with its players as `White` and `Black`; `None` when it does not read (a game
/// pinning a user definition replays with `definitions`).
pub fn record_tags(path: &str, text: &str, definitions: &Definitions) -> Option<Vec<(String, String)>> {
    if super::army::ArmyChoice::parse_path(path).is_some() {
        let c = super::army::ArmyChoice::from_yaml(text).ok()?;
        let mut tags = vec![("White".to_string(), c.white.clone()), ("Black".to_string(), c.black.clone())];
        tags.extend(c.tags.into_iter().filter(|(k, _)| k != "White" && k != "Black"));
        return Some(tags);
    }
    let g = crate::record::Loader::new().definitions(definitions).load(text).ok()?.game;
    Some(g.text.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect())
}

/// The result of a tournament's record at one commit (`text`, at `path`): a finished
/// game's outcome; `None` while it goes on, for an army choice, and when it does not read.
pub fn record_outcome(path: &str, text: &str, definitions: &Definitions) -> Option<Outcome> {
    if super::army::ArmyChoice::parse_path(path).is_some() {
        return None;
    }
    let g = crate::record::Loader::new().definitions(definitions).load(text).ok()?.game;
    Outcome::from_token(&crate::record::result_of(&g))
}

/// Judges a commit's change to the tournament file of `name`: `previous` its text before
/// the commit (`None`: it was not there), `text` its new text (`None`: deleted, or not
/// UTF-8), `records` every other record the commit writes, with whether it existed
/// before and its new text, and `outcome` each game's result before the commit. A
/// creation is accepted with exactly its games created beside it ([`check_created`]);
/// a change only for a knockout, by its next games ([`knockout::check_advance`]). Each
/// game's own creation is judged as any game's.
pub fn judge_change(
    name: &str,
    previous: Option<&str>,
    text: Option<&str>,
    records: &[(&str, bool, Option<&str>)],
    outcome: &dyn Fn(&str) -> Option<Outcome>,
    definitions: &Definitions,
) -> Option<super::Problem> {
    let changed = || Some(super::Problem::TournamentChanged { name: name.to_string() });
    let Some(text) = text else { return changed() };
    let invalid = |why: String| Some(super::Problem::TournamentInvalid { name: name.to_string(), why });
    if let Some((path, _, _)) = records.iter().find(|(_, existed, _)| *existed) {
        return invalid(format!("{path} exists already: a tournament only creates new games"));
    }
    let tags: Vec<Option<Vec<(String, String)>>> =
        records.iter().map(|(path, _, text)| text.and_then(|t| record_tags(path, t, definitions))).collect();
    let created: Vec<CreatedRecord<'_>> = records
        .iter()
        .zip(&tags)
        .map(|((path, _, _), tags)| CreatedRecord { path, tags: tags.as_deref() })
        .collect();
    let Some(previous) = previous else {
        return check_created(&Tournament::path(name), text, &created)
            .err()
            .and_then(|e| invalid(e.to_string()));
    };
    let before = match Tournament::from_yaml(previous) {
        Ok(t) if t.knockout.is_some() || t.swiss.is_some() => t,
        _ => return changed(),
    };
    let after = match Tournament::from_yaml(text) {
        Ok(t) => t,
        Err(e) => return invalid(TournamentProblem::Unreadable(e).to_string()),
    };
    let advanced = if before.swiss.is_some() {
        swiss::check_advance(&before, &after, outcome)
    } else {
        knockout::check_advance(&before, &after, outcome)
    };
    match advanced {
        Ok(added) => check_records(&after, &added, &created).err().and_then(|e| invalid(e.to_string())),
        Err(e) => invalid(e.to_string()),
    }
}

/// A game's result, from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// White won (`1-0`).
    WhiteWins,
    /// Black won (`0-1`).
    BlackWins,
    /// A draw (`1/2-1/2`).
    Draw,
}

impl Outcome {
    /// From a `Result` token; `None` for `*` and anything else.
    pub fn from_token(token: &str) -> Option<Outcome> {
        match token {
            "1-0" => Some(Outcome::WhiteWins),
            "0-1" => Some(Outcome::BlackWins),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }

    /// The result token.
    pub fn token(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// White's score in half points (2, 1 or 0).
    pub fn white_halves(self) -> u32 {
        match self {
            Outcome::WhiteWins => 2,
            Outcome::Draw => 1,
            Outcome::BlackWins => 0,
        }
    }
}

/// One game in a crosstable cell: the player's score in it, or `None` while it goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CellGame {
    /// The game id.
    pub id: String,
    /// Whether the row's player had White.
    pub white: bool,
    /// The row's player's score in half points (2 win, 1 draw, 0 loss), once finished.
    pub halves: Option<u32>,
}

/// One row of the crosstable.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandingRow {
    /// The player's number in the tables (from 1).
    pub number: usize,
    /// The name.
    pub name: String,
    /// Points (a win 1, a draw ½).
    pub points: f64,
    /// Games finished.
    pub played: usize,
    /// Games still going on.
    pub left: usize,
    /// Sonneborn-Berger score.
    pub sonneborn_berger: f64,
    /// Place (1 best); players equal on points and Sonneborn-Berger share it.
    pub rank: usize,
    /// Against each player, by number (index 0: player 1): the games between them (empty
    /// on the diagonal).
    pub cells: Vec<Vec<CellGame>>,
}

/// A tournament's standings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Standings {
    /// The tournament's name.
    pub tournament: String,
    /// The variant.
    pub variant: String,
    /// Games in all, and finished.
    pub games: usize,
    /// Games finished.
    pub finished: usize,
    /// The rows in table order (player 1 first).
    pub rows: Vec<StandingRow>,
    /// A knockout's bracket (its crosstable is in `rows` too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knockout: Option<super::knockout::Bracket>,
    /// A Swiss's table with its tie-breaks (the crosstable's points and places in `rows`
    /// are its too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swiss: Option<super::swiss::SwissTable>,
}

/// The standings of `t` given each game's outcome (`outcome(id)`; `None` while it goes
/// on). Sonneborn-Berger is computed in exact quarter points.
pub fn standings(t: &Tournament, outcome: impl Fn(&str) -> Option<Outcome>) -> Standings {
    let n = t.players.len();
    let index = |name: &str| t.players.iter().position(|p| p.name == name);
    let mut cells: Vec<Vec<Vec<CellGame>>> = vec![vec![Vec::new(); n]; n];
    let mut halves = vec![0u32; n];
    let (mut played, mut left) = (vec![0usize; n], vec![0usize; n]);
    let mut finished = 0;
    for g in &t.games {
        let (Some(w), Some(b)) = (index(&g.white), index(&g.black)) else { continue };
        let o = outcome(&g.id);
        let wh = o.map(Outcome::white_halves);
        if let Some(h) = wh {
            halves[w] += h;
            halves[b] += 2 - h;
            played[w] += 1;
            played[b] += 1;
            finished += 1;
        } else {
            left[w] += 1;
            left[b] += 1;
        }
        cells[w][b].push(CellGame { id: g.id.clone(), white: true, halves: wh });
        cells[b][w].push(CellGame { id: g.id.clone(), white: false, halves: wh.map(|h| 2 - h) });
    }
    // SB in quarters: Σ (own halves in the game) × (opponent's total halves).
    let sb: Vec<u32> = (0..n)
        .map(|i| (0..n).map(|j| cells[i][j].iter().filter_map(|c| c.halves).sum::<u32>() * halves[j]).sum())
        .collect();
    let rank = |i: usize| 1 + (0..n).filter(|&j| (halves[j], sb[j]) > (halves[i], sb[i])).count();
    let mut rows: Vec<StandingRow> = (0..n)
        .map(|i| StandingRow {
            number: i + 1,
            name: t.players[i].name.clone(),
            points: f64::from(halves[i]) / 2.0,
            played: played[i],
            left: left[i],
            sonneborn_berger: f64::from(sb[i]) / 4.0,
            rank: rank(i),
            cells: std::mem::take(&mut cells[i]),
        })
        .collect();
    // A Swiss ranks by its own tie-breaks, and its points count the byes.
    let swiss = swiss::table(t, &outcome);
    for x in swiss.iter().flat_map(|s| &s.rows) {
        let row = &mut rows[x.number - 1];
        (row.points, row.sonneborn_berger, row.rank) = (x.points, x.sonneborn_berger, x.rank);
    }
    Standings {
        tournament: t.name.clone(),
        variant: t.variant.clone(),
        games: t.games.len(),
        finished,
        rows,
        knockout: None,
        swiss,
    }
}

/// A score as a crosstable prints it: `1`, `½`, `0`, or `2½`.
pub fn points_text(points: f64) -> String {
    let whole = points.trunc();
    let half = points - whole >= 0.5;
    match (whole as u64, half) {
        (0, true) => "½".to_string(),
        (w, true) => format!("{w}½"),
        (w, false) => w.to_string(),
    }
}

/// The crosstable as text, in the layout ICCF prints: number, name, one column per
/// opponent (each game's score: `1`, `½`, `0`, `.` while it goes on; `x` on the
/// diagonal), points, games left, Sonneborn-Berger and place.
pub fn crosstable_text(s: &Standings) -> String {
    let n = s.rows.len();
    let name_w = s.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(4).max(6);
    let per = s.rows.iter().flat_map(|r| r.cells.iter().map(Vec::len)).max().unwrap_or(1).max(1);
    let col_w = per.max(n.to_string().len());
    let mut out =
        format!("{} ({}), {} of {} games finished\n\n", s.tournament, s.variant, s.finished, s.games);
    out.push_str(&format!("{:>3}  {:<name_w$}", "#", "Player"));
    for j in 1..=n {
        out.push_str(&format!(" {j:>col_w$}"));
    }
    out.push_str("   Pts  Left      SB  Place\n");
    let mut by_place: Vec<&StandingRow> = s.rows.iter().collect();
    by_place.sort_by_key(|r| (r.rank, r.number));
    for r in &s.rows {
        out.push_str(&format!("{:>3}  {:<name_w$}", r.number, r.name));
        for (j, games) in r.cells.iter().enumerate() {
            let cell: String = if j + 1 == r.number {
                "x".repeat(per)
            } else {
                games
                    .iter()
                    .map(|c| match c.halves {
                        Some(2) => "1",
                        Some(1) => "½",
                        Some(_) => "0",
                        None => ".",
                    })
                    .collect()
            };
            let pad = col_w.saturating_sub(cell.chars().count());
            out.push_str(&format!(" {}{cell}", " ".repeat(pad)));
        }
        out.push_str(&format!(
            "  {:>4}  {:>4}  {:>6}  {:>5}\n",
            points_text(r.points),
            r.left,
            format!("{:.2}", r.sonneborn_berger),
            r.rank
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Berger tables for 6 and 8 players, as printed in the FIDE Handbook (C.05,
    /// Annex 1), copied by hand.
    #[test]
    fn berger_tables_match_fide() {
        let six = ["1-6 2-5 3-4", "6-4 5-3 1-2", "2-6 3-1 4-5", "6-5 1-4 2-3", "3-6 4-2 5-1"];
        let eight = [
            "1-8 2-7 3-6 4-5",
            "8-5 6-4 7-3 1-2",
            "2-8 3-1 4-7 5-6",
            "8-6 7-5 1-4 2-3",
            "3-8 4-2 5-1 6-7",
            "8-7 1-6 2-5 3-4",
            "4-8 5-3 6-2 7-1",
        ];
        for (n, table) in [(6, &six[..]), (8, &eight[..])] {
            let got: Vec<String> = berger(n)
                .iter()
                .map(|r| r.iter().map(|(w, b)| format!("{w}-{b}")).collect::<Vec<_>>().join(" "))
                .collect();
            assert_eq!(got, table, "{n} players");
        }
    }

    #[test]
    fn odd_players_get_a_bye_and_every_pair_meets_once() {
        let t = berger(5);
        assert_eq!(t.len(), 5);
        let mut pairs: Vec<(usize, usize)> = t.iter().flatten().map(|&(w, b)| (w.min(b), w.max(b))).collect();
        pairs.sort();
        pairs.dedup();
        assert_eq!(pairs.len(), 10);
        assert!(t.iter().all(|r| r.len() == 2));
    }

    #[test]
    fn double_round_robin_balances_colours() {
        let names = ["A", "B", "C", "D", "E", "F"];
        let games = schedule("club", &names, true);
        assert_eq!(games.len(), 30);
        for p in names {
            let whites = games.iter().filter(|g| g.white == p).count();
            assert_eq!(whites, 5, "{p} has White in half of their games");
        }
        assert_eq!(games[0].id, "club-r01-b1");
        assert_eq!((games[15].white.as_str(), games[15].black.as_str()), ("F", "A"));
    }

    #[test]
    fn sonneborn_berger_breaks_a_constructed_tie() {
        let players = ["A", "B", "C", "D"]
            .iter()
            .map(|n| Entrant { name: n.to_string(), email: None, army: None })
            .collect();
        let t = Tournament::new("t", "gygax", players, false, None, None).unwrap();
        // A beats B, draws C, loses to D; B beats C and D; C beats D.
        let won = |x: &str, y: &str| -> Option<u32> {
            match (x, y) {
                ("A", "B") | ("B", "C") | ("B", "D") | ("C", "D") | ("D", "A") => Some(2),
                ("A", "C") | ("C", "A") => Some(1),
                _ => None,
            }
        };
        let outcome = |id: &str| {
            let g = t.games.iter().find(|g| g.id == id)?;
            let h = won(&g.white, &g.black).or_else(|| won(&g.black, &g.white).map(|h| 2 - h))?;
            Some(match h {
                2 => Outcome::WhiteWins,
                1 => Outcome::Draw,
                _ => Outcome::BlackWins,
            })
        };
        let s = standings(&t, outcome);
        let points: Vec<f64> = s.rows.iter().map(|r| r.points).collect();
        // A 1+½+0 = 1½, B 0+1+1 = 2, C ½+0+1 = 1½, D 1+0+0 = 1.
        assert_eq!(points, [1.5, 2.0, 1.5, 1.0]);
        // SB(A) = 1×2 (B) + ½×1½ (C) + 0×1 (D) = 2¾; SB(C) = ½×1½ (A) + 0×2 (B) + 1×1 (D) = 1¾.
        assert_eq!(s.rows[0].sonneborn_berger, 2.75);
        assert_eq!(s.rows[2].sonneborn_berger, 1.75);
        let ranks: Vec<usize> = s.rows.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [2, 1, 3, 4]);
    }

    #[test]
    fn a_tournament_file_reads_back_and_checks() {
        let players = ["Ann", "Bo", "Cy"]
            .iter()
            .map(|n| Entrant { name: n.to_string(), email: None, army: None })
            .collect();
        let t = Tournament::new("cup", "gygax", players, false, None, None).unwrap();
        let text = t.to_yaml();
        assert_eq!(Tournament::from_yaml(&text).unwrap(), t);
        assert_eq!(Tournament::parse_path("tournaments/cup.yaml"), Some("cup"));
        let tags: Vec<Vec<(String, String)>> = t
            .games
            .iter()
            .map(|g| {
                [("Event", "cup"), ("Round", &g.round.to_string()), ("White", &g.white), ("Black", &g.black)]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            })
            .collect();
        let paths: Vec<String> = t.games.iter().map(|g| t.record_path(Layout::FanOut, &g.id)).collect();
        let records: Vec<CreatedRecord<'_>> =
            paths.iter().zip(&tags).map(|(p, t)| CreatedRecord { path: p, tags: Some(t) }).collect();
        assert!(check_created("tournaments/cup.yaml", &text, &records).is_ok());
        let missing = check_created("tournaments/cup.yaml", &text, &records[1..]).unwrap_err();
        assert!(matches!(missing, TournamentProblem::Game { .. }), "{missing}");
        let swapped = text.replacen("white: Ann", "white: Zed", 1);
        assert!(check_created("tournaments/cup.yaml", &swapped, &records).is_err());
    }
}
