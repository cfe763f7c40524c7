//! Swiss tournaments: a round paired by the FIDE Dutch system ([`super::dutch`]) once
//! the round before has finished, and standings with FIDE's tie-breaks, as data with no
//! I/O.
//!
//! A Swiss is a tournament file with [`SwissRules`]: the number of rounds and player 1's
//! colour in round 1 (FIDE draws it by lot; the organiser gives it). The players are
//! listed in pairing-number order (the strongest first). `tournament new` writes the file
//! with round 1's games; `tournament next` appends the next round's once every game of
//! the last round has a result ([`next_round`]). The hook and `verify` judge both commits
//! by pairing the round again ([`check_created_round`], [`check_advance`]): a Swiss file
//! only grows by the one pairing the results call for.
//!
//! In a round with an odd number of players the one left unpaired has the
//! pairing-allocated bye (PAB), worth a win; the file lists no game for it. Every game
//! counts as played (correspondence games end by a result on the board, a resignation
//! or an agreed draw), so there are no forfeits and no voluntarily unplayed rounds.
//!
//! Tie-breaks ([`table`]), as FIDE's tie-break regulations (C.07, 2023 and 2024) define
//! them, in this order: Buchholz Cut-1, Buchholz, Sonneborn-Berger, direct encounter.
//! Buchholz is the sum of the opponents' scores; a player's own unplayed round (the bye)
//! counts as a game against a "dummy opponent" whose score is the player's own. Cut-1
//! leaves out the lowest of those values. Sonneborn-Berger sums, over the rounds, the
//! player's result times that opponent's score (the bye: a win against the dummy
//! opponent). Direct encounter applies to players still tied after those only when every
//! two of them have met: the points each scored in those games. Players tied on all of
//! them share a place. Only finished games count; while a round goes on, its games add
//! nothing.

use serde::{Deserialize, Serialize};

use crate::engine::Side;

use super::dutch::{self, NoPairing, Past};
use super::tournament::{Outcome, Pairing, Tournament, TournamentProblem};

/// The colour player 1 has in round 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FirstColour {
    /// White (the default).
    #[default]
    White,
    /// Black.
    Black,
}

impl FirstColour {
    fn side(self) -> Side {
        match self {
            FirstColour::White => Side::White,
            FirstColour::Black => Side::Black,
        }
    }
}

/// A Swiss tournament's rules, fixed at its creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SwissRules {
    /// The number of rounds.
    pub rounds: u32,
    /// Player 1's colour in round 1.
    #[serde(default)]
    pub first_colour: FirstColour,
}

/// `1 round`, `7 rounds`.
pub fn rounds_text(rounds: u32) -> String {
    format!("{rounds} round{}", if rounds == 1 { "" } else { "s" })
}

/// Checks a Swiss's rules against its number of players: at least one round, fewer rounds
/// than players, at most [`dutch::MAX_PLAYERS`] players.
///
/// # Errors
/// What is wrong and what would be legal.
pub fn check_rules(rules: SwissRules, players: usize) -> Result<(), TournamentProblem> {
    if players > dutch::MAX_PLAYERS {
        return Err(TournamentProblem::BadPlayers(format!(
            "a Swiss pairs at most {} players, this one has {players} (a round robin or a knockout takes more)",
            dutch::MAX_PLAYERS
        )));
    }
    if rules.rounds == 0 || rules.rounds as usize >= players {
        return Err(TournamentProblem::BadPlayers(format!(
            "a Swiss of {players} players plays 1 to {} rounds (--rounds), not {}",
            players.saturating_sub(1).max(1),
            rules.rounds
        )));
    }
    Ok(())
}

/// The game id of round `round`, board `board` of Swiss `t`: `<name>-r<round>-b<board>`,
/// padded to the width of the last round and board.
fn game_id(t: &Tournament, rules: SwissRules, round: u32, board: usize) -> String {
    let rw = rules.rounds.to_string().len();
    let bw = (t.players.len() / 2).max(1).to_string().len();
    format!("{}-r{round:0rw$}-b{board:0bw$}", t.name)
}

/// What the results call for in a Swiss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextRound {
    /// The next round's games, board by board.
    Due(Vec<Pairing>),
    /// The last round goes on: the games without a result.
    Waiting(Vec<String>),
    /// Every round has been played.
    Over,
}

/// Each player's rounds so far (index order: the players' order), given every game's
/// outcome; `None` when a game of the rounds paired has no result yet.
fn pasts(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Option<Vec<Vec<Past>>> {
    let index = |name: &str| t.players.iter().position(|p| p.name == name);
    let mut out = vec![Vec::new(); t.players.len()];
    for round in 1..=t.rounds() {
        let mut seen = vec![false; t.players.len()];
        for g in t.games.iter().filter(|g| g.round == round) {
            let (Some(w), Some(b)) = (index(&g.white), index(&g.black)) else { continue };
            let halves = outcome(&g.id)?.white_halves();
            out[w].push(Past::Played { opponent: b, colour: Side::White, points: halves });
            out[b].push(Past::Played { opponent: w, colour: Side::Black, points: 2 - halves });
            seen[w] = true;
            seen[b] = true;
        }
        for (p, seen) in out.iter_mut().zip(seen) {
            if !seen {
                p.push(Past::Bye);
            }
        }
    }
    Some(out)
}

/// The next round of Swiss `t` given each game's outcome (`None` while it goes on):
/// its games when every game so far has a result, paired by the Dutch system.
///
/// # Errors
/// [`NoPairing`] when the Dutch system finds no legal pairing.
pub fn next_round(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Result<NextRound, NoPairing> {
    let Some(rules) = t.swiss else { return Ok(NextRound::Over) };
    let paired = t.rounds();
    if paired >= rules.rounds {
        return Ok(NextRound::Over);
    }
    let Some(past) = pasts(t, outcome) else {
        let going = t.games.iter().filter(|g| outcome(&g.id).is_none()).map(|g| g.id.clone()).collect();
        return Ok(NextRound::Waiting(going));
    };
    let pairing = dutch::pair_round(&past, rules.rounds, rules.first_colour.side(), &[])?;
    let round = paired + 1;
    let games = pairing
        .games
        .iter()
        .enumerate()
        .map(|(k, &(w, b))| Pairing {
            round,
            board: k as u32 + 1,
            id: game_id(t, rules, round, k + 1),
            white: t.players[w].name.clone(),
            black: t.players[b].name.clone(),
            game: None,
        })
        .collect();
    Ok(NextRound::Due(games))
}

fn show(games: &[Pairing]) -> String {
    if games.is_empty() {
        return "none".into();
    }
    games.iter().map(|g| format!("{} {} v {}", g.id, g.white, g.black)).collect::<Vec<_>>().join(", ")
}

/// A new Swiss's games are round 1's pairing.
///
/// # Errors
/// Bad rules, or games other than round 1's, with the games expected.
pub fn check_created_round(t: &Tournament) -> Result<(), TournamentProblem> {
    let Some(rules) = t.swiss else { return Ok(()) };
    check_rules(rules, t.players.len())?;
    if t.double || t.knockout.is_some() || t.army_choice == Some(super::tournament::ArmyPlan::Secret) {
        return Err(TournamentProblem::NotSwiss(
            "a Swiss is neither double, nor a knockout, nor played with secret armies".into(),
        ));
    }
    let mut start = t.clone();
    start.games.clear();
    let expected = match next_round(&start, &|_| None) {
        Ok(NextRound::Due(g)) => g,
        Ok(_) => Vec::new(),
        Err(e) => return Err(TournamentProblem::NotSwiss(e.to_string())),
    };
    if expected != t.games {
        return Err(TournamentProblem::NotSwiss(format!(
            "round 1's games are {}; the file lists {}",
            show(&expected),
            show(&t.games)
        )));
    }
    Ok(())
}

/// Judges a Swiss's next round: `before` is the tournament file before the commit,
/// `after` after it, `outcome` each game's result before the commit. `after` must be
/// `before` with exactly the next round's games appended, as [`next_round`] pairs them.
/// Returns the games added.
///
/// # Errors
/// What differs, and what would be legal.
pub fn check_advance(
    before: &Tournament,
    after: &Tournament,
    outcome: &dyn Fn(&str) -> Option<Outcome>,
) -> Result<Vec<Pairing>, TournamentProblem> {
    let Some(added) = super::tournament::appended(before, after) else {
        return Err(TournamentProblem::NotSwiss(
            "a Swiss's file only grows by its next round: its players, rules and earlier games never change"
                .into(),
        ));
    };
    let expected = match next_round(before, outcome) {
        Ok(NextRound::Due(g)) => g,
        Ok(NextRound::Waiting(going)) => {
            return Err(TournamentProblem::NotSwiss(format!(
                "round {} goes on (no result yet in {}): the next round is paired when it has finished",
                before.rounds(),
                going.join(", ")
            )));
        }
        Ok(NextRound::Over) => {
            return Err(TournamentProblem::NotSwiss("every round has been paired".into()));
        }
        Err(e) => return Err(TournamentProblem::NotSwiss(e.to_string())),
    };
    if added != expected {
        return Err(TournamentProblem::NotSwiss(format!(
            "round {}'s games are {}; the commit adds {}",
            before.rounds() + 1,
            show(&expected),
            show(added)
        )));
    }
    Ok(expected)
}

/// One round of a player in the Swiss table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SwissRound {
    /// The round, from 1.
    pub round: u32,
    /// The opponent's number (from 1); `None` for the bye.
    pub opponent: Option<usize>,
    /// Whether the player had White; `None` for the bye.
    pub white: Option<bool>,
    /// The game id; `None` for the bye.
    pub id: Option<String>,
    /// The player's score in half points (2 a win or the bye, 1 a draw, 0 a loss);
    /// `None` while the game goes on.
    pub halves: Option<u32>,
    /// Whether this round was the player's bye (no game; a point).
    pub bye: bool,
}

/// One player's line of the Swiss table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwissRow {
    /// The pairing number (from 1).
    pub number: usize,
    /// The name.
    pub name: String,
    /// Points, the bye's included.
    pub points: f64,
    /// Buchholz Cut-1.
    pub buchholz_cut1: f64,
    /// Buchholz.
    pub buchholz: f64,
    /// Sonneborn-Berger.
    pub sonneborn_berger: f64,
    /// Direct encounter: the points scored against the players tied with this one on
    /// points and the tie-breaks above, when every two of them have met; `None` when it
    /// does not apply.
    pub direct_encounter: Option<f64>,
    /// Place (1 best); players equal on points and every tie-break share it.
    pub rank: usize,
    /// The rounds paired, in order.
    pub rounds: Vec<SwissRound>,
}

/// A Swiss's standings: each player's rounds, points and tie-breaks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwissTable {
    /// The rules.
    pub rules: SwissRules,
    /// The rounds paired so far.
    pub paired: u32,
    /// The rows, in place order (then by pairing number).
    pub rows: Vec<SwissRow>,
}

/// Each player's rounds as the table shows them.
fn table_rounds(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Vec<Vec<SwissRound>> {
    let index = |name: &str| t.players.iter().position(|p| p.name == name);
    let mut out = vec![Vec::new(); t.players.len()];
    for round in 1..=t.rounds() {
        for g in t.games.iter().filter(|g| g.round == round) {
            let (Some(w), Some(b)) = (index(&g.white), index(&g.black)) else { continue };
            let halves = outcome(&g.id).map(Outcome::white_halves);
            let entry = |opponent: usize, white: bool, halves: Option<u32>| SwissRound {
                round,
                opponent: Some(opponent + 1),
                white: Some(white),
                id: Some(g.id.clone()),
                halves,
                bye: false,
            };
            out[w].push(entry(b, true, halves));
            out[b].push(entry(w, false, halves.map(|h| 2 - h)));
        }
        for rounds in &mut out {
            if rounds.last().is_none_or(|r| r.round != round) {
                rounds.push(SwissRound {
                    round,
                    opponent: None,
                    white: None,
                    id: None,
                    halves: Some(2),
                    bye: true,
                });
            }
        }
    }
    out
}

/// The Swiss table of `t` given each game's outcome; `None` for another format.
pub fn table(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Option<SwissTable> {
    let rules = t.swiss?;
    let rounds = table_rounds(t, outcome);
    let n = rounds.len();
    // Scores in half points; Buchholz values in half points; SB in quarter points.
    let score: Vec<u32> = rounds.iter().map(|rs| rs.iter().filter_map(|r| r.halves).sum()).collect();
    let mut bh = vec![0u32; n];
    let mut cut = vec![0u32; n];
    let mut sb = vec![0u32; n];
    for i in 0..n {
        // The opponent's score in each finished round (the bye: the player's own).
        let values: Vec<(u32, u32)> = rounds[i]
            .iter()
            .filter_map(|r| Some((r.halves?, r.opponent.map_or(score[i], |o| score[o - 1]))))
            .collect();
        bh[i] = values.iter().map(|v| v.1).sum();
        cut[i] = bh[i] - values.iter().map(|v| v.1).min().unwrap_or(0);
        sb[i] = values.iter().map(|(own, theirs)| own * theirs).sum();
    }
    let key = |i: usize| (score[i], cut[i], bh[i], sb[i]);
    let de = direct_encounter(&rounds, &|i, j| key(i) == key(j));
    let better = |j: usize, i: usize| {
        key(j) > key(i) || key(j) == key(i) && de[i].zip(de[j]).is_some_and(|(a, b)| b > a)
    };
    let mut rows: Vec<SwissRow> = rounds
        .into_iter()
        .enumerate()
        .map(|(i, rs)| SwissRow {
            number: i + 1,
            name: t.players[i].name.clone(),
            points: f64::from(score[i]) / 2.0,
            buchholz_cut1: f64::from(cut[i]) / 2.0,
            buchholz: f64::from(bh[i]) / 2.0,
            sonneborn_berger: f64::from(sb[i]) / 4.0,
            direct_encounter: de[i].map(|h| f64::from(h) / 2.0),
            rank: 1 + (0..n).filter(|&j| better(j, i)).count(),
            rounds: rs,
        })
        .collect();
    rows.sort_by_key(|r| (r.rank, r.number));
    Some(SwissTable { rules, paired: t.rounds(), rows })
}

/// Direct encounter in half points for each player tied (`tied`) with at least one
/// other, when every two players of that tie have a finished game between them.
fn direct_encounter(rounds: &[Vec<SwissRound>], tied: &dyn Fn(usize, usize) -> bool) -> Vec<Option<u32>> {
    let n = rounds.len();
    let mut out = vec![None; n];
    for (i, slot) in out.iter_mut().enumerate() {
        let group: Vec<usize> = (0..n).filter(|&j| tied(i, j)).collect();
        if group.len() < 2 {
            continue;
        }
        let against = |a: usize, b: usize| -> Vec<u32> {
            rounds[a].iter().filter(|r| r.opponent == Some(b + 1)).filter_map(|r| r.halves).collect()
        };
        let all_met = group.iter().all(|&a| group.iter().all(|&b| a == b || !against(a, b).is_empty()));
        if all_met {
            *slot = Some(group.iter().flat_map(|&b| against(i, b)).sum());
        }
    }
    out
}

/// The Swiss table as text: by place, each player's rounds (opponent's number, colour
/// `w`/`b`, result `1`, `½`, `0`, `.` while it goes on; `bye` for the PAB), points and
/// tie-breaks.
pub fn table_text(name: &str, variant: &str, s: &SwissTable) -> String {
    let points = super::tournament::points_text;
    let name_w = s.rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(6).max(6);
    let num_w = s.rows.len().to_string().len();
    let cell_w = num_w + 3;
    let finished = s.rows.iter().all(|r| r.rounds.iter().all(|x| x.halves.is_some()));
    let state = match (s.paired, finished) {
        (p, true) if p == s.rules.rounds => "finished".to_string(),
        (p, true) => format!("{p} of {} rounds played", s.rules.rounds),
        (p, false) => format!("round {p} of {} going on", s.rules.rounds),
    };
    let mut out =
        format!("{name} ({variant}), Swiss of {} (Dutch system), {state}\n\n", rounds_text(s.rules.rounds));
    out.push_str(&format!("{:>5}  {:>num_w$}  {:<name_w$}", "Place", "#", "Player"));
    for r in 1..=s.paired {
        out.push_str(&format!(" {:>cell_w$}", format!("R{r}")));
    }
    out.push_str("   Pts  BH-C1     BH      SB   DE\n");
    for r in &s.rows {
        out.push_str(&format!("{:>5}  {:>num_w$}  {:<name_w$}", r.rank, r.number, r.name));
        for x in &r.rounds {
            let result = match x.halves {
                Some(2) => "1",
                Some(1) => "½",
                Some(_) => "0",
                None => ".",
            };
            let cell = match (x.opponent, x.white) {
                (Some(o), Some(w)) => format!("{o}{}{result}", if w { 'w' } else { 'b' }),
                _ => "bye".to_string(),
            };
            let pad = cell_w.saturating_sub(cell.chars().count());
            out.push_str(&format!(" {}{cell}", " ".repeat(pad)));
        }
        let de = r.direct_encounter.map_or_else(|| "-".to_string(), points);
        out.push_str(&format!(
            "  {:>4}  {:>5}  {:>5}  {:>6}  {:>3}\n",
            points(r.points),
            points(r.buchholz_cut1),
            points(r.buchholz),
            format!("{:.2}", r.sonneborn_berger),
            de
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::tournament::Entrant;

    fn swiss(names: &[&str], rounds: u32) -> Tournament {
        let players =
            names.iter().map(|n| Entrant { name: n.to_string(), email: None, army: None }).collect();
        Tournament::new_swiss(
            "sw",
            "gygax",
            players,
            SwissRules { rounds, first_colour: FirstColour::White },
            None,
            None,
        )
        .unwrap()
    }

    /// Five players, three rounds, each result fixed by the players' names; the
    /// tie-breaks are counted by hand below for the pairings the Dutch system made.
    #[test]
    fn tie_breaks_of_a_five_player_swiss_equal_a_hand_count() {
        let mut t = swiss(&["A", "B", "C", "D", "E"], 3);
        // Results decided by the players' names, whatever the pairing: the earlier letter
        // wins, except that C and D draw.
        let result = |w: &str, b: &str| match (w, b) {
            ("C", "D") | ("D", "C") => Outcome::Draw,
            _ if w < b => Outcome::WhiteWins,
            _ => Outcome::BlackWins,
        };
        for _ in 0..3 {
            let games = t.games.clone();
            let o = |id: &str| games.iter().find(|g| g.id == id).map(|g| result(&g.white, &g.black));
            match next_round(&t, &o).unwrap() {
                NextRound::Due(g) => t.games.extend(g),
                other => panic!("{other:?}"),
            }
            if t.rounds() == 3 {
                break;
            }
        }
        let games = t.games.clone();
        let o = |id: &str| games.iter().find(|g| g.id == id).map(|g| result(&g.white, &g.black));
        assert_eq!(next_round(&t, &o).unwrap(), NextRound::Over);
        let pairs: Vec<String> =
            t.games.iter().map(|g| format!("r{} {}-{}", g.round, g.white, g.black)).collect();
        let table = table(&t, &o).unwrap();
        type Line = (String, f64, f64, f64, f64, Option<f64>, usize);
        let got: Vec<Line> = table
            .rows
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.points,
                    r.buchholz_cut1,
                    r.buchholz,
                    r.sonneborn_berger,
                    r.direct_encounter,
                    r.rank,
                )
            })
            .collect();
        // The hand count below is for these pairings (checked first, so that a pairing
        // change shows as such and not as wrong tie-breaks). Round 1 by hand: E, the
        // lowest, has the bye; S1 {A, B} meets S2 {C, D}; A (player 1) White, board 2
        // the other way.
        assert_eq!(
            pairs,
            ["r1 A-C", "r1 D-B", "r2 E-A", "r2 B-C", "r3 A-B", "r3 E-D"],
            "the Dutch pairings the hand count is for"
        );
        // Results: r1 A beats C, B beats D, E bye; r2 A beats E, B beats C, D bye; r3 A
        // beats B, D beats E, C bye. Scores: A 3, B 2, D 0+1+1 = 2, C 0+0+1 = 1,
        // E 1+0+0 = 1.
        // Buchholz (the bye: the player's own score): A = C 1 + E 1 + B 2 = 4;
        // B = D 2 + C 1 + A 3 = 6; C = A 3 + B 2 + own 1 = 6; D = B 2 + own 2 + E 1 = 5;
        // E = own 1 + A 3 + D 2 = 6.
        // Cut-1 (the lowest value left out): A 3, B 5, C 5, D 4, E 5.
        // SB (result x opponent's score; the bye: 1 x own): A = 1 + 1 + 2 = 4;
        // B = 2 + 1 + 0 = 3; C = 0 + 0 + 1 = 1; D = 0 + 2 + 1 = 3; E = 1 + 0 + 0 = 1.
        // B and D tie on 2 points: B ahead on Cut-1 (5 v 4). C and E tie on 1 point and
        // on every tie-break; they have not met, so direct encounter does not apply and
        // they share 4th place.
        assert_eq!(
            got,
            [
                ("A".into(), 3.0, 3.0, 4.0, 4.0, None, 1),
                ("B".into(), 2.0, 5.0, 6.0, 3.0, None, 2),
                ("D".into(), 2.0, 4.0, 5.0, 3.0, None, 3),
                ("C".into(), 1.0, 5.0, 6.0, 1.0, None, 4),
                ("E".into(), 1.0, 5.0, 6.0, 1.0, None, 4),
            ]
        );
        let text = table_text("sw", "gygax", &table);
        assert!(
            text.contains("    4  3  C       1b0  2b0  bye     1      5      6    1.00    -\n"),
            "{text}"
        );
    }

    /// Direct encounter applies only when every two tied players have met, and orders
    /// them by the points they scored against each other.
    #[test]
    fn direct_encounter_needs_every_tied_pair_to_have_met() {
        let game = |opponent: usize, halves: u32| SwissRound {
            round: 1,
            opponent: Some(opponent),
            white: Some(true),
            id: Some("g".into()),
            halves: Some(halves),
            bye: false,
        };
        // Players 1 and 2 met (1 won); 3 met neither.
        let rounds = vec![vec![game(2, 2)], vec![game(1, 0)], vec![]];
        let all_tied = |_: usize, _: usize| true;
        assert_eq!(direct_encounter(&rounds, &all_tied), [None, None, None]);
        let two_tied = |i: usize, j: usize| i < 2 && j < 2;
        assert_eq!(direct_encounter(&rounds, &two_tied), [Some(2), Some(0), None]);
    }

    #[test]
    fn a_next_round_is_refused_while_the_last_goes_on_or_when_it_differs() {
        let t = swiss(&["A", "B", "C", "D"], 3);
        assert_eq!(t.games.len(), 2);
        let going = |_: &str| None;
        let mut after = t.clone();
        after.games.push(Pairing {
            round: 2,
            board: 1,
            id: "sw-r2-b1".into(),
            white: "A".into(),
            black: "C".into(),
            game: None,
        });
        let e = check_advance(&t, &after, &going).unwrap_err().to_string();
        assert!(e.contains("round 1 goes on (no result yet in sw-r1-b1, sw-r1-b2)"), "{e}");
        let white_wins = |_: &str| Some(Outcome::WhiteWins);
        let NextRound::Due(due) = next_round(&t, &white_wins).unwrap() else { panic!() };
        let e = check_advance(&t, &after, &white_wins).unwrap_err().to_string();
        assert!(e.contains(&format!("round 2's games are {}", show(&due))), "{e}");
        let mut good = t.clone();
        good.games.extend(due.clone());
        assert_eq!(check_advance(&t, &good, &white_wins).unwrap(), due);
        let mut changed = good.clone();
        changed.swiss = Some(SwissRules { rounds: 2, first_colour: FirstColour::White });
        let e = check_advance(&t, &changed, &white_wins).unwrap_err().to_string();
        assert!(e.contains("only grows by its next round"), "{e}");
    }

    #[test]
    fn rounds_must_be_fewer_than_players() {
        let e = check_rules(SwissRules { rounds: 4, first_colour: FirstColour::White }, 4).unwrap_err();
        assert!(e.to_string().contains("a Swiss of 4 players plays 1 to 3 rounds (--rounds), not 4"), "{e}");
        assert!(check_rules(SwissRules { rounds: 3, first_colour: FirstColour::Black }, 4).is_ok());
    }
}
