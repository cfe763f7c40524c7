//! Knockout tournaments: the bracket, its matches and who advances, as data with no I/O.
//!
//! A knockout is a [`Tournament`] with [`KnockoutRules`]: matches of `games` games, and a
//! tie-break rule fixed at creation. Its players are listed in seed order (seed 1 first).
//! The bracket has `size` slots, the smallest power of two that holds every player; the
//! seeds are placed the standard way ([`bracket_order`]: 1 v `size`, then the pairs
//! that keep seeds 1 and 2 apart until the final), and a seed above the number of
//! players is a bye, so the byes go to the top seeds. Match `m` of round `r + 1` is
//! played by the winners of matches `2m − 1` and `2m` of round `r`.
//!
//! In a match the higher seed (the smaller number) has White in the odd games, the other
//! player in the even ones. After the `games` games the player with more points
//! advances; on equal points [`TieBreak::HigherSeed`] advances the higher seed, and
//! [`TieBreak::ExtraGame`] adds one game at a time (colours still alternating) until one
//! of them wins a game.
//!
//! The tournament file lists the games made so far. [`due`] is every game the results
//! call for that is not listed yet: a match's games as soon as both its players are
//! known, and the next tie-break game when a match is level after its last game.
//! `tournament new` creates the games due at the start (round 1, and a round-2 match
//! between two players with byes); `tournament next` appends the games due to the file
//! and creates them, in one commit. [`check_advance`] is what the hook and `verify` ask
//! of that commit.

use serde::{Deserialize, Serialize};

use super::tournament::{Outcome, Pairing, Tournament, TournamentProblem};

/// How a level match is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Extra games, one at a time, colours still alternating, until one player wins one.
    ExtraGame,
    /// The higher seed advances.
    HigherSeed,
}

impl TieBreak {
    /// As the standings say it.
    pub fn words(self) -> &'static str {
        match self {
            TieBreak::ExtraGame => "extra games until one is won",
            TieBreak::HigherSeed => "the higher seed advances",
        }
    }
}

/// The most games a match may have before its tie-break.
pub const MAX_GAMES: u32 = 100;

/// A knockout's rules, fixed when it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct KnockoutRules {
    /// The games of a match before any tie-break (at least 1).
    pub games: u32,
    /// How a level match is decided.
    pub tie_break: TieBreak,
}

/// Why a player advanced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Advance {
    /// No opponent in the first round.
    Bye,
    /// More points in the match's games.
    Won,
    /// Level after the match's games; won an extra game.
    TieBreakGame,
    /// Level after the match's games; the higher seed.
    HigherSeed,
}

impl Advance {
    /// As the standings say it.
    pub fn words(self) -> &'static str {
        match self {
            Advance::Bye => "bye",
            Advance::Won => "won the match",
            Advance::TieBreakGame => "won a tie-break game",
            Advance::HigherSeed => "level, higher seed",
        }
    }
}

/// A player of a match: their seed (from 1) and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Seeded {
    /// The seed (1 the highest).
    pub seed: usize,
    /// The name.
    pub name: String,
}

/// One game of a match, as the standings show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MatchGame {
    /// The game's number in the match (from 1; above the match's games: a tie-break game).
    pub game: u32,
    /// The game id.
    pub id: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// The result token, once finished.
    pub result: Option<String>,
}

/// One match of the bracket.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// The round (from 1).
    pub round: u32,
    /// The match's number in its round (from 1, in bracket order).
    pub number: u32,
    /// The higher seed once both players are known (before that, the winner of the first
    /// match feeding this one, once decided).
    pub higher: Option<Seeded>,
    /// The lower seed once both are known (before that, the winner of the second feeding
    /// match); `None` in round 1 is a bye.
    pub lower: Option<Seeded>,
    /// The higher seed's points in the match's finished games (tie-break games too).
    pub higher_points: f64,
    /// The lower seed's.
    pub lower_points: f64,
    /// Its games so far.
    pub games: Vec<MatchGame>,
    /// Who advanced, once decided.
    pub advanced: Option<String>,
    /// Why.
    pub reason: Option<Advance>,
}

/// A knockout's standings: its rules, the bracket round by round and the winner.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bracket {
    /// The rules.
    pub rules: KnockoutRules,
    /// The number of rounds.
    pub rounds: u32,
    /// Every match, round by round.
    pub matches: Vec<Match>,
    /// The tournament's winner, once the final is decided.
    pub winner: Option<String>,
}

impl Bracket {
    /// Renames every player with `f` (the site's public names).
    pub fn rename(&mut self, f: &dyn Fn(&str) -> String) {
        for m in &mut self.matches {
            for s in [&mut m.higher, &mut m.lower].into_iter().flatten() {
                s.name = f(&s.name);
            }
            for g in &mut m.games {
                g.white = f(&g.white);
                g.black = f(&g.black);
            }
            if let Some(a) = &mut m.advanced {
                *a = f(a);
            }
        }
        if let Some(w) = &mut self.winner {
            *w = f(w);
        }
    }
}

/// The seeds (from 1) in bracket order for a bracket of `size` slots (a power of two):
/// slots `2k` and `2k + 1` meet in round 1, and seeds 1 and 2 are in different halves,
/// 1 to 4 in different quarters, and so on. 8 slots: 1 8 4 5 2 7 3 6.
pub fn bracket_order(size: usize) -> Vec<usize> {
    let mut order = vec![1];
    while order.len() < size {
        let n = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, n + 1 - s]).collect();
    }
    order
}

/// The bracket's size for `players`: the smallest power of two that holds them (2 at least).
pub fn size(players: usize) -> usize {
    players.max(2).next_power_of_two()
}

/// The number of rounds for `players`.
pub fn rounds(players: usize) -> u32 {
    size(players).trailing_zeros()
}

/// The id of game `game` of match `number` of round `round`: `<NAME>-r<R>-m<M>-g<G>`,
/// rounds and matches padded to the width of the largest.
pub fn game_id(name: &str, players: usize, round: u32, number: u32, game: u32) -> String {
    let rw = rounds(players).to_string().len();
    let mw = (size(players) / 2).to_string().len();
    format!("{name}-r{round:0rw$}-m{number:0mw$}-g{game}")
}

/// A match's state while the bracket is worked out: its players as seeds (the higher
/// first once both are known; before, the winners of its two feeding matches).
struct Working {
    players: [Option<usize>; 2],
    winner: Option<(usize, Advance)>,
    /// The games to create now (its players known and no game going on): their numbers.
    due: Vec<u32>,
    higher_halves: u32,
    lower_halves: u32,
}

/// Decides one match of `hi` (the higher seed) and `lo` from its scheduled games (in
/// game order) and their outcomes.
fn decide(
    t: &Tournament,
    rules: KnockoutRules,
    [hi, lo]: [usize; 2],
    games: &[&Pairing],
    outcome: &dyn Fn(&str) -> Option<Outcome>,
) -> Working {
    let hi_name = &t.players[hi - 1].name;
    let mut w = Working {
        players: [Some(hi), Some(lo)],
        winner: None,
        due: Vec::new(),
        higher_halves: 0,
        lower_halves: 0,
    };
    let mut regular = [0u32; 2];
    let mut all_done = true;
    let mut extra_winner = None;
    for g in games {
        let Some(o) = outcome(&g.id) else {
            all_done = false;
            continue;
        };
        let white = o.white_halves();
        let h = if g.white == *hi_name { white } else { 2 - white };
        w.higher_halves += h;
        w.lower_halves += 2 - h;
        let number = g.game.unwrap_or(0);
        if number <= rules.games {
            regular[0] += h;
            regular[1] += 2 - h;
        } else if h != 1 && extra_winner.is_none() {
            extra_winner = Some(h == 2);
        }
    }
    if games.is_empty() {
        w.due = (1..=rules.games.min(MAX_GAMES)).collect();
        return w;
    }
    if !all_done {
        return w;
    }
    let higher_wins = if regular[0] != regular[1] {
        Some((regular[0] > regular[1], Advance::Won))
    } else {
        match rules.tie_break {
            TieBreak::HigherSeed => Some((true, Advance::HigherSeed)),
            TieBreak::ExtraGame => extra_winner.map(|h| (h, Advance::TieBreakGame)),
        }
    };
    match higher_wins {
        Some((true, why)) => w.winner = Some((hi, why)),
        Some((false, why)) => w.winner = Some((lo, why)),
        None => w.due = vec![games.len() as u32 + 1],
    }
    w
}

/// Works the bracket out: every match, round by round, with its players, games and
/// winner, and the games due.
fn work(
    t: &Tournament,
    rules: KnockoutRules,
    outcome: &dyn Fn(&str) -> Option<Outcome>,
) -> Vec<Vec<Working>> {
    let n = t.players.len();
    let order = bracket_order(size(n));
    let mut worked: Vec<Vec<Working>> = Vec::new();
    for round in 1..=rounds(n) {
        let count = size(n) >> round;
        let mut this = Vec::with_capacity(count);
        for m in 0..count {
            let (a, b) = if round == 1 {
                let seed = |s: usize| (s <= n).then_some(s);
                (seed(order[2 * m]), seed(order[2 * m + 1]))
            } else {
                let prev = &worked[round as usize - 2];
                let won = |k: usize| prev[k].winner.map(|(s, _)| s);
                (won(2 * m), won(2 * m + 1))
            };
            let bye = round == 1 && (a.is_none() || b.is_none());
            let w = match (a, b) {
                (Some(a), Some(b)) => {
                    let (hi, lo) = (a.min(b), a.max(b));
                    let games = match_games(t, round, m as u32 + 1);
                    decide(t, rules, [hi, lo], &games, outcome)
                }
                (Some(s), None) | (None, Some(s)) if bye => Working {
                    players: [Some(s), None],
                    winner: Some((s, Advance::Bye)),
                    due: Vec::new(),
                    higher_halves: 0,
                    lower_halves: 0,
                },
                _ => Working {
                    players: [a, b],
                    winner: None,
                    due: Vec::new(),
                    higher_halves: 0,
                    lower_halves: 0,
                },
            };
            this.push(w);
        }
        worked.push(this);
    }
    worked
}

/// The scheduled games of match `number` of `round`, in game order.
fn match_games(t: &Tournament, round: u32, number: u32) -> Vec<&Pairing> {
    let mut games: Vec<&Pairing> = t.games.iter().filter(|g| g.round == round && g.board == number).collect();
    games.sort_by_key(|g| g.game);
    games
}

/// The games the results call for that `t` does not list yet, round by round, match by
/// match: all the games of a match whose players are both known and that has none, and
/// the next tie-break game of a level match whose games are all finished. Empty for a
/// round robin.
pub fn due(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Vec<Pairing> {
    let Some(rules) = t.knockout else { return Vec::new() };
    let mut out = Vec::new();
    for (r, matches) in work(t, rules, outcome).iter().enumerate() {
        for (m, w) in matches.iter().enumerate() {
            let [Some(hi), Some(lo)] = w.players else { continue };
            for &g in &w.due {
                let (hi, lo) = (t.players[hi - 1].name.clone(), t.players[lo - 1].name.clone());
                let (white, black) = if g % 2 == 1 { (hi, lo) } else { (lo, hi) };
                let (round, number) = (r as u32 + 1, m as u32 + 1);
                out.push(Pairing {
                    round,
                    board: number,
                    game: Some(g),
                    id: game_id(&t.name, t.players.len(), round, number, g),
                    white,
                    black,
                });
            }
        }
    }
    out
}

/// The bracket's standings given each game's outcome (`None` while it goes on).
pub fn bracket(t: &Tournament, outcome: &dyn Fn(&str) -> Option<Outcome>) -> Option<Bracket> {
    let rules = t.knockout?;
    let seeded = |s: Option<usize>| s.map(|seed| Seeded { seed, name: t.players[seed - 1].name.clone() });
    let worked = work(t, rules, outcome);
    let mut matches = Vec::new();
    for (r, round) in worked.iter().enumerate() {
        for (m, w) in round.iter().enumerate() {
            let (round, number) = (r as u32 + 1, m as u32 + 1);
            let games = match_games(t, round, number)
                .into_iter()
                .map(|g| MatchGame {
                    game: g.game.unwrap_or(0),
                    id: g.id.clone(),
                    white: g.white.clone(),
                    black: g.black.clone(),
                    result: outcome(&g.id).map(|o| o.token().to_string()),
                })
                .collect();
            matches.push(Match {
                round,
                number,
                higher: seeded(w.players[0]),
                lower: seeded(w.players[1]),
                higher_points: f64::from(w.higher_halves) / 2.0,
                lower_points: f64::from(w.lower_halves) / 2.0,
                games,
                advanced: w.winner.map(|(s, _)| t.players[s - 1].name.clone()),
                reason: w.winner.map(|(_, why)| why),
            });
        }
    }
    let winner = worked
        .last()
        .and_then(|f| f.first())
        .and_then(|w| w.winner)
        .map(|(s, _)| t.players[s - 1].name.clone());
    Some(Bracket { rules, rounds: rounds(t.players.len()), matches, winner })
}

/// The bracket as text: each round's matches with their players (seed in brackets),
/// score, games and who advanced and why; then the winner.
pub fn bracket_text(name: &str, variant: &str, b: &Bracket) -> String {
    let points = super::tournament::points_text;
    let mut out = format!(
        "{name} ({variant}), knockout: matches of {} game{}, tie-break: {}\n",
        b.rules.games,
        if b.rules.games == 1 { "" } else { "s" },
        b.rules.tie_break.words()
    );
    let who = |s: &Option<Seeded>| {
        s.as_ref().map_or_else(|| "?".to_string(), |s| format!("({}) {}", s.seed, s.name))
    };
    for round in 1..=b.rounds {
        out.push_str(&format!("\nRound {round}{}\n", if round == b.rounds { " (final)" } else { "" }));
        for m in b.matches.iter().filter(|m| m.round == round) {
            if m.reason == Some(Advance::Bye) {
                out.push_str(&format!("  match {}: {} has a bye and advances\n", m.number, who(&m.higher)));
                continue;
            }
            let line = if m.higher.is_none() || m.lower.is_none() {
                format!("  match {}: {} v {}", m.number, who(&m.higher), who(&m.lower))
            } else {
                let finished = m.games.iter().filter(|g| g.result.is_some()).count();
                format!(
                    "  match {}: {} {}-{} {}, {finished} of {} games finished",
                    m.number,
                    who(&m.higher),
                    points(m.higher_points),
                    points(m.lower_points),
                    who(&m.lower),
                    m.games.len()
                )
            };
            out.push_str(&line);
            match (&m.advanced, m.reason) {
                (Some(p), Some(why)) => out.push_str(&format!(": {p} advances ({})\n", why.words())),
                _ => out.push('\n'),
            }
        }
    }
    if let Some(w) = &b.winner {
        out.push_str(&format!("\nWinner: {w}\n"));
    }
    out
}

/// Judges a knockout's next games: `before` is the tournament file before the commit,
/// `after` after it, `outcome` each game's result before the commit. `after` must be
/// `before` with games appended, at least one, each of them [`due`], in the order `due`
/// lists them, and with each match they belong to whole (all its games due). `tournament
/// next` appends every game due; a commit of it replayed by `sync` after other results
/// came in (which only make more games due) still passes.
///
/// # Errors
/// What differs, and what would be legal.
pub fn check_advance(
    before: &Tournament,
    after: &Tournament,
    outcome: &dyn Fn(&str) -> Option<Outcome>,
) -> Result<Vec<Pairing>, TournamentProblem> {
    if before.knockout.is_none() {
        return Err(TournamentProblem::Changed);
    }
    let Some(added) = super::tournament::appended(before, after) else {
        return Err(TournamentProblem::NotBracket(
            "a knockout's file only grows by its next games: its players, rules and earlier games never change".into(),
        ));
    };
    let expected = due(before, outcome);
    if expected.is_empty() {
        return Err(TournamentProblem::NotBracket(
            "no game is due: no match has both players known and no game going on".into(),
        ));
    }
    let matches: Vec<(u32, u32)> = added.iter().map(|g| (g.round, g.board)).collect();
    let whole: Vec<Pairing> =
        expected.iter().filter(|g| matches.contains(&(g.round, g.board))).cloned().collect();
    if added.is_empty() || added != whole {
        let show = |g: &[Pairing]| {
            g.iter().map(|g| format!("{} {} v {}", g.id, g.white, g.black)).collect::<Vec<_>>().join(", ")
        };
        return Err(TournamentProblem::NotBracket(format!(
            "the games due are {}; the commit adds {}",
            show(&expected),
            if added.is_empty() { "none".to_string() } else { show(added) }
        )));
    }
    Ok(whole)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::tournament::Entrant;

    fn cup(n: usize, games: u32, tie_break: TieBreak) -> Tournament {
        let players = (1..=n).map(|k| Entrant { name: format!("P{k}"), email: None, army: None }).collect();
        Tournament::new_knockout("cup", "gygax", players, KnockoutRules { games, tie_break }, None, None)
            .unwrap()
    }

    /// The tie-break rule is fixed at creation: a next-round file that changes it, or
    /// one that adds a game nobody's results call for, is refused; the games due pass.
    #[test]
    fn a_next_round_may_not_change_the_rules_or_add_games_not_due() {
        let before = cup(4, 1, TieBreak::ExtraGame);
        let draw = |_: &str| Some(Outcome::Draw);
        let going = |_: &str| None;
        let mut good = before.clone();
        good.games.extend(due(&before, &draw));
        assert_eq!(
            good.games[2..].iter().map(|g| g.id.as_str()).collect::<Vec<_>>(),
            ["cup-r1-m1-g2", "cup-r1-m2-g2"]
        );
        assert_eq!(check_advance(&before, &good, &draw).unwrap().len(), 2);
        let mut switched = good.clone();
        switched.knockout = Some(KnockoutRules { games: 1, tie_break: TieBreak::HigherSeed });
        let e = check_advance(&before, &switched, &draw).unwrap_err().to_string();
        assert!(e.contains("its players, rules and earlier games never change"), "{e}");
        let e = check_advance(&before, &good, &going).unwrap_err().to_string();
        assert!(e.contains("no game is due"), "{e}");
        // One of two matches' games: accepted (the other's come with the next commit).
        let mut one = good.clone();
        one.games.pop();
        assert_eq!(check_advance(&before, &one, &draw).unwrap().len(), 1);
        // A match's games in part: refused.
        let pairs = cup(4, 2, TieBreak::ExtraGame);
        let mut empty = pairs.clone();
        empty.games.clear();
        let mut part = empty.clone();
        part.games.push(pairs.games[0].clone());
        let e = check_advance(&empty, &part, &going).unwrap_err().to_string();
        assert!(
            e.contains(
                "the games due are cup-r1-m1-g1 P1 v P4, cup-r1-m1-g2 P4 v P1, cup-r1-m2-g1 P2 v P3, \
                 cup-r1-m2-g2 P3 v P2; the commit adds cup-r1-m1-g1 P1 v P4"
            ),
            "{e}"
        );
    }

    #[test]
    fn seeds_meet_as_the_standard_bracket_says() {
        assert_eq!(bracket_order(2), [1, 2]);
        assert_eq!(bracket_order(4), [1, 4, 2, 3]);
        assert_eq!(bracket_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
        assert_eq!(bracket_order(16), [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]);
    }

    #[test]
    fn five_players_give_byes_to_the_top_three() {
        let t = cup(5, 1, TieBreak::HigherSeed);
        // Round 1: 1 bye, 4 v 5, 2 bye, 3 bye; round 2 match 2 (2 v 3) is due at once.
        let ids: Vec<(&str, &str, &str)> =
            t.games.iter().map(|g| (g.id.as_str(), g.white.as_str(), g.black.as_str())).collect();
        assert_eq!(ids, [("cup-r1-m2-g1", "P4", "P5"), ("cup-r2-m2-g1", "P2", "P3")]);
    }

    #[test]
    fn a_level_match_goes_to_extra_games_with_alternating_colours() {
        let mut t = cup(2, 2, TieBreak::ExtraGame);
        assert_eq!(t.games.len(), 2);
        assert_eq!((t.games[1].white.as_str(), t.games[1].black.as_str()), ("P2", "P1"));
        let draw = |_: &str| Some(Outcome::Draw);
        let next = due(&t, &draw);
        assert_eq!(next.len(), 1);
        assert_eq!((next[0].id.as_str(), next[0].white.as_str()), ("cup-r1-m1-g3", "P1"));
        t.games.extend(next);
        let next = due(&t, &draw);
        assert_eq!((next[0].id.as_str(), next[0].white.as_str()), ("cup-r1-m1-g4", "P2"));
        t.games.extend(next);
        // Game 4 won by Black, P1.
        let o = |id: &str| Some(if id.ends_with("g4") { Outcome::BlackWins } else { Outcome::Draw });
        assert!(due(&t, &o).is_empty());
        let b = bracket(&t, &o).unwrap();
        assert_eq!(b.winner.as_deref(), Some("P1"));
        assert_eq!(b.matches[0].reason, Some(Advance::TieBreakGame));
        assert_eq!((b.matches[0].higher_points, b.matches[0].lower_points), (2.5, 1.5));
    }
}
