//! Swiss pairings by the FIDE Dutch system (C.04.3, the rules applied from 2026), as data
//! with no I/O.
//!
//! A round is paired bracket by bracket, from the highest score down. A bracket is the
//! players who floated down from the bracket above (moved-down players, MDPs) and the
//! players of the next score (residents). Of every way to pair players inside the
//! bracket, the one kept is the best by the handbook's criteria, in their order:
//!
//! 1. *absolute*: no two players meet twice; two players who are not topscorers and have
//!    the same absolute colour preference do not meet; the pairing-allocated bye (PAB) goes
//!    to a player who has not had one, and the round can still be completed with the bye
//!    going to a player of the lowest score for which that is possible;
//! 2. the most pairs in the bracket, then the highest scores paired (MDPs paired first);
//! 3. the most pairs, and the highest scores paired, in the next bracket;
//! 4. colours: fewest topscorers with a colour difference beyond ±2 or a colour three
//!    times in a row, then fewest colour preferences, then strong preferences, not met;
//! 5. floats: fewest players floating the same way as one, then two rounds before, then
//!    the lowest scores among them.
//!
//! Among pairings equal by all of these the handbook's order of candidates decides: the
//! highest MDPs are paired, each with the highest resident it can have; in the remainder
//! (the residents left) S1 is its upper half, and the fewest exchanges between S1 and S2,
//! the smallest difference of their pairing numbers, the lowest S1 players and the highest
//! S2 players exchanged, and then the lowest transposition of S2 win. Colours are then
//! allocated by the handbook's rules: both preferences, the stronger one, alternation from
//! the last round the two players' colours differed, the higher player's preference, and
//! with none the initial colour by the higher player's pairing number.
//!
//! Each bracket is searched in two phases: the candidates in the handbook's order, hoping
//! for one that meets every criterion (it is then the answer); if none does, a
//! branch-and-bound search for the best value any pairing reaches, then the first
//! candidate in order reaching it. Whether the players below can still be paired is a
//! maximum matching (Edmonds' blossom algorithm). The look-ahead (criterion 3) of every
//! set of floaters the bracket can leave is computed first, and a branch is bounded by
//! the sets it can still end with, the pairs by score group and the look-ahead taken
//! together: the usual case where no candidate meets every criterion, the best floater
//! for the next bracket being a player who must be paired here, is then settled at once
//! instead of by trying every pairing. Random tournaments of up to 128 players (the most
//! a bit set of players holds, hence [`MAX_PLAYERS`]) pair each round in a second or so.
//! The searches can still grow exponentially on rounds unlike those, so a round takes at
//! most a fixed number of search steps (well under a minute): past it,
//! [`NoPairing::TooLong`] (the round is to be paired by hand, or with fewer players).
//! It is checked round by round against an independent implementation
//! (`tests/it/swiss.rs`).

use std::cell::Cell;
use std::collections::HashMap;

use crate::engine::Side;

/// One round of a player's past.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Past {
    /// A game played against the player of index `opponent`, with `colour`, for `points`
    /// half points (2 a win, 1 a draw, 0 a loss).
    Played {
        /// The opponent's index.
        opponent: usize,
        /// The colour played.
        colour: Side,
        /// The points.
        points: u32,
    },
    /// A game not played (a forfeit) against `opponent`, for `points` half points: no
    /// colour, and the two may still meet.
    Forfeit {
        /// The opponent's index.
        opponent: usize,
        /// The points.
        points: u32,
    },
    /// The pairing-allocated bye (a win's points).
    Bye,
    /// Not paired in the round (a bye asked for, or absent), for `points` half points.
    Absent {
        /// The points.
        points: u32,
    },
}

impl Past {
    /// The points (in half points) the round gave.
    fn points(self) -> u32 {
        match self {
            Past::Played { points, .. } | Past::Forfeit { points, .. } | Past::Absent { points } => points,
            Past::Bye => 2,
        }
    }
}

/// The most players a Swiss may have (a set of players is a 128-bit mask).
pub const MAX_PLAYERS: usize = 128;

/// A round's pairings: each game (White's index, Black's index) in board order, and the
/// player who has the bye.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundPairing {
    /// The games, White first, by board (the higher-ranked player's board first).
    pub games: Vec<(usize, usize)>,
    /// Who has the pairing-allocated bye.
    pub bye: Option<usize>,
}

/// Why a round cannot be paired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoPairing {
    /// More players than [`MAX_PLAYERS`].
    #[error("a Swiss pairs at most {MAX_PLAYERS} players, not {0}")]
    TooMany(usize),
    /// Every way of pairing the round breaks an absolute criterion.
    #[error(
        "no pairing of the round avoids a rematch, a bye twice or two players with the same \
         absolute colour preference"
    )]
    Impossible,
    /// The search for the best pairing took more than its budget of steps.
    #[error(
        "the search for the round's Dutch-system pairing gave up after {0} steps without \
         settling the best pairing: pair this round by hand, or with fewer players"
    )]
    TooLong(usize),
}

/// What the criteria need to know of a player before the round.
#[derive(Debug, Clone)]
struct State {
    /// Score in half points.
    score: u32,
    /// Index of the score group (0 the highest).
    group: usize,
    /// |whites − blacks|.
    imbalance: u32,
    pref: Option<Side>,
    absolute: bool,
    strong: bool,
    /// The colour of the last two games when they were the same.
    repeated: Option<Side>,
    bye_eligible: bool,
    /// Floats one and two rounds before (`Some(true)` down, `Some(false)` up).
    floats: [Option<bool>; 2],
    /// The colours of the games played, oldest first.
    colours: Vec<Side>,
    topscorer: bool,
    /// Rounds without a game played.
    unplayed: i32,
}

/// The pairing of one round from the players' pasts (`past[i]`: player `i`'s rounds so far,
/// all of the same length; index order is the pairing-number order), for a tournament of
/// `rounds` rounds. `initial` is the colour the top player has in the first round. The
/// players listed in `out` take no part in this round (neither paired nor given the bye).
///
/// # Errors
/// [`NoPairing`] when no pairing meets the absolute criteria.
pub fn pair_round(
    past: &[Vec<Past>],
    rounds: u32,
    initial: Side,
    out: &[usize],
) -> Result<RoundPairing, NoPairing> {
    pair_round_within(past, rounds, initial, out, BUDGET)
}

/// [`pair_round`] with at most `budget` search steps.
fn pair_round_within(
    past: &[Vec<Past>],
    rounds: u32,
    initial: Side,
    out: &[usize],
    budget: usize,
) -> Result<RoundPairing, NoPairing> {
    let n = past.len();
    if n > MAX_PLAYERS {
        return Err(NoPairing::TooMany(n));
    }
    let played = past.iter().map(Vec::len).max().unwrap_or(0);
    let states = states(past, played, rounds);
    let mut order: Vec<usize> = (0..n).collect();
    order.retain(|i| !out.contains(i));
    order.sort_by(|&a, &b| states[b].score.cmp(&states[a].score).then(a.cmp(&b)));
    let mut p = Pairer::new(past, states, order, budget);
    let pairs = p.pair()?;
    let mut games: Vec<(usize, usize)> = pairs
        .iter()
        .map(|&(a, b)| {
            let (lo, hi) = (a.min(b), a.max(b));
            match colour_of(&p, lo, hi, initial) {
                Side::White => (lo, hi),
                Side::Black => (hi, lo),
            }
        })
        .collect();
    let rank = |i: usize| p.rank[i];
    games.sort_by_key(|&(w, b)| rank(w).min(rank(b)));
    let paired: Vec<usize> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    let bye = (0..n).find(|i| !paired.contains(i) && !out.contains(i));
    Ok(RoundPairing { games, bye })
}

fn states(past: &[Vec<Past>], played: usize, rounds: u32) -> Vec<State> {
    let score_after =
        |i: usize, k: usize| -> u32 { past[i][..k.min(past[i].len())].iter().map(|p| p.points()).sum() };
    let mut out: Vec<State> = (0..past.len())
        .map(|i| {
            let colours: Vec<Side> = past[i]
                .iter()
                .filter_map(|p| match p {
                    Past::Played { colour, .. } => Some(*colour),
                    _ => None,
                })
                .collect();
            let whites = colours.iter().filter(|c| **c == Side::White).count() as u32;
            let blacks = colours.len() as u32 - whites;
            let imbalance = whites.abs_diff(blacks);
            let lower = if whites > blacks { Side::Black } else { Side::White };
            let last = colours.last().copied();
            let consecutive = match last {
                Some(c) => colours.iter().rev().take_while(|x| **x == c).count(),
                None => 0,
            };
            let pref = if imbalance > 1 {
                Some(lower)
            } else if consecutive > 1 {
                last.map(Side::opponent)
            } else if imbalance > 0 {
                Some(lower)
            } else {
                last.map(Side::opponent)
            };
            let repeated = if consecutive > 1 { last } else { None };
            let absolute = imbalance > 1 || repeated.is_some();
            let floats = [1, 2].map(|back| {
                let k = played.checked_sub(back)?;
                match past[i].get(k)? {
                    Past::Played { opponent, .. } => {
                        let (mine, theirs) = (score_after(i, k), score_after(*opponent, k));
                        (mine != theirs).then_some(mine > theirs)
                    }
                    other => (other.points() > 0).then_some(true),
                }
            });
            let score = score_after(i, played);
            State {
                score,
                group: 0,
                imbalance,
                pref,
                absolute,
                strong: !absolute && imbalance > 0,
                repeated,
                bye_eligible: !past[i]
                    .iter()
                    .any(|p| matches!(p, Past::Bye) || !matches!(p, Past::Played { .. }) && p.points() >= 2),
                unplayed: (played - colours.len()) as i32,
                floats,
                colours,
                topscorer: played + 1 >= rounds as usize && score > played as u32,
            }
        })
        .collect();
    let mut scores: Vec<u32> = out.iter().map(|s| s.score).collect();
    scores.sort_unstable_by(|a, b| b.cmp(a));
    scores.dedup();
    for s in &mut out {
        s.group = scores.iter().position(|x| *x == s.score).unwrap_or(0);
    }
    out
}

/// A value compared field by field, the most important first; larger is better.
type Value = Vec<i32>;

struct Pairer {
    s: Vec<State>,
    /// Players in rank order (score, then pairing number), absent ones left out.
    order: Vec<usize>,
    /// Each player's place in `order`.
    rank: Vec<usize>,
    groups: usize,
    played: usize,
    /// The highest score a bye may go to.
    bye_score: u32,
    /// Whether a set of players (a mask over ranks) can be paired completely.
    complete: HashMap<u128, bool>,
    /// For each rank, the ranks it may meet (absolute criteria).
    partners: Vec<u128>,
    /// The search steps left.
    budget: Cell<usize>,
    /// The steps the round was given.
    given: usize,
}

/// One bracket's search.
struct Bracket {
    /// Its players (ranks, in rank order).
    players: Vec<usize>,
    /// The first resident's rank (players above it are MDPs).
    resident: usize,
    /// The next bracket's residents.
    next: (usize, usize),
    /// The players below the next bracket.
    lower: u128,
    /// The look-ahead of each set of floaters.
    g: HashMap<u128, Option<Value>>,
    /// The pairs tried.
    pairs: usize,
    /// The best look-ahead any floaters can have.
    gmax: Value,
    /// Every set of floaters the round can be completed with, and its look-ahead; empty
    /// when there were too many sets to try.
    floater_sets: Vec<(u128, Value)>,
    /// Whether the search bounds a branch by the floaters it can still end with: not in
    /// the short first search, so that it stops after the candidates it always did and
    /// leaves the same best pairing.
    tight: bool,
    /// The best value found, with its pairs.
    best: Option<(Value, Vec<(usize, usize)>)>,
    /// The best value, for the second phase.
    target: Value,
    /// The first pairing in the handbook's order reaching it.
    found: Option<Vec<(usize, usize)>>,
    /// The nodes the ordered search may still visit.
    nodes: usize,
}

/// An exchange between a remainder's halves, in the handbook's order: the difference of
/// the pairing numbers exchanged, which S1 players (the lowest first) and which S2 players
/// (the highest first) go, then S1's and S2's positions exchanged.
type Exchange = (i64, Vec<u8>, Vec<u8>, Vec<usize>, Vec<usize>);

/// The nodes of the first, hopeful, ordered search of a bracket.
const SHORT_SEARCH: usize = 20_000;

/// The search steps a round may take: a node of a search, a set of floaters or an
/// exchange tried, a player in a maximum matching, 16 sets of floaters bounding a branch.
/// Half a microsecond to two each, so some 10 to 40 seconds in all; the most any round of
/// the random tournaments of up to 128 players tried took was about a million.
const BUDGET: usize = 20_000_000;

fn bit(r: usize) -> u128 {
    1u128 << r
}

impl Pairer {
    fn new(past: &[Vec<Past>], s: Vec<State>, order: Vec<usize>, budget: usize) -> Pairer {
        let played = past.iter().map(Vec::len).max().unwrap_or(0);
        let mut rank = vec![usize::MAX; past.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[i] = r;
        }
        let groups = s.iter().map(|x| x.group).max().unwrap_or(0) + 1;
        let may_meet = |i: usize, j: usize| {
            let met = past[i].iter().any(|p| matches!(p, Past::Played { opponent, .. } if *opponent == j));
            let (x, y) = (&s[i], &s[j]);
            let colours = !x.absolute || !y.absolute || x.pref != y.pref || x.topscorer || y.topscorer;
            !met && colours
        };
        let partners = order
            .iter()
            .map(|&i| {
                order.iter().enumerate().filter(|&(_, &j)| may_meet(i, j)).fold(0, |m, (b, _)| m | bit(b))
            })
            .collect();
        Pairer {
            s,
            order,
            rank,
            groups,
            played,
            bye_score: u32::MAX,
            complete: HashMap::new(),
            partners,
            budget: Cell::new(budget),
            given: budget,
        }
    }

    /// Takes one search step from the budget: `false` when none is left.
    fn step(&self) -> bool {
        self.charge(1)
    }

    /// Takes `steps` from the budget: `false` when there were not so many left.
    fn charge(&self, steps: usize) -> bool {
        let left = self.budget.get();
        self.budget.set(left.saturating_sub(steps));
        left >= steps
    }

    fn st(&self, r: usize) -> &State {
        &self.s[self.order[r]]
    }

    /// Whether the players of ranks `a` and `b` may meet (absolute criteria).
    fn compatible(&self, a: usize, b: usize) -> bool {
        self.partners[a] & bit(b) != 0
    }

    fn bye_candidate(&self, r: usize) -> bool {
        let s = self.st(r);
        s.bye_eligible && s.score <= self.bye_score
    }

    /// Whether the players in `mask` can all be paired (one of them, a bye candidate,
    /// left for the bye when they are odd).
    fn can_complete(&mut self, mask: u128) -> bool {
        if let Some(&v) = self.complete.get(&mask) {
            return v;
        }
        let ok = self.perfect(mask, 0, mask.count_ones() % 2 == 1);
        self.complete.insert(mask, ok);
        ok
    }

    /// Whether the players in `mask` can all be paired, no two of `apart` together, with
    /// one bye candidate left over when `bye` is set.
    fn perfect(&self, mask: u128, apart: u128, bye: bool) -> bool {
        let ranks: Vec<usize> = (0..128).filter(|&r| mask & bit(r) != 0).collect();
        let n = ranks.len() + usize::from(bye);
        self.charge(n);
        if n % 2 == 1 {
            return false;
        }
        let mut adj = vec![Vec::new(); n];
        for (x, &a) in ranks.iter().enumerate() {
            for (y, &b) in ranks.iter().enumerate().skip(x + 1) {
                if !(apart & bit(a) != 0 && apart & bit(b) != 0) && self.compatible(a, b) {
                    adj[x].push(y);
                    adj[y].push(x);
                }
            }
            if bye && self.bye_candidate(a) {
                adj[x].push(n - 1);
                adj[n - 1].push(x);
            }
        }
        matching_size(&adj) * 2 == n
    }

    /// The most pairs the players `players` (ranks) can make among themselves.
    fn most_pairs(&self, players: &[usize]) -> usize {
        self.charge(players.len());
        let mut adj = vec![Vec::new(); players.len()];
        for (x, &a) in players.iter().enumerate() {
            for (y, &c) in players.iter().enumerate().skip(x + 1) {
                if self.compatible(a, c) {
                    adj[x].push(y);
                    adj[y].push(x);
                }
            }
        }
        matching_size(&adj)
    }

    /// The fewest unplayed rounds of a player of the odd set `mask` who can have the bye
    /// with the others all paired (`apart` as in [`Self::perfect`]).
    fn lowest_unplayed_bye(&self, mask: u128, apart: u128) -> Option<i32> {
        let mut candidates: Vec<usize> =
            (0..128).filter(|&r| mask & bit(r) != 0 && self.bye_candidate(r)).collect();
        candidates.sort_by_key(|&r| self.st(r).unplayed);
        candidates
            .into_iter()
            .find(|&r| self.perfect(mask & !bit(r), apart, false))
            .map(|r| self.st(r).unplayed)
    }

    /// Pairs the round: the pairs, as player indices.
    fn pair(&mut self) -> Result<Vec<(usize, usize)>, NoPairing> {
        let n = self.order.len();
        let all: u128 = if n == 128 { u128::MAX } else { bit(n) - 1 };
        // The lowest score the bye can go to.
        if n % 2 == 1 {
            let mut scores: Vec<u32> = self.order.iter().map(|&i| self.s[i].score).collect();
            scores.sort_unstable();
            scores.dedup();
            let found = scores.into_iter().find(|&sc| {
                self.bye_score = sc;
                self.complete.clear();
                self.can_complete(all)
            });
            if found.is_none() {
                return Err(NoPairing::Impossible);
            }
        } else if !self.can_complete(all) {
            return Err(NoPairing::Impossible);
        }
        if self.played == 0 {
            // The first round: one bracket, nobody has a history, so every pairing is as
            // good as any other and the first candidate wins: S1 against S2 in order.
            let half = n / 2;
            return Ok((0..half).map(|k| (self.order[k], self.order[k + half])).collect());
        }
        let mut pairs = Vec::new();
        let mut floaters: Vec<usize> = Vec::new();
        let mut r = 0;
        while r < n {
            let score = self.st(r).score;
            let end = (r..n).find(|&k| self.st(k).score != score).unwrap_or(n);
            let next_end = (end..n).find(|&k| self.st(k).score != self.st(end).score).unwrap_or(n);
            let mut bracket = floaters.clone();
            bracket.extend(r..end);
            let (chosen, left) = self.bracket(&bracket, r, (end, next_end), n);
            if self.budget.get() == 0 {
                return Err(NoPairing::TooLong(self.given));
            }
            pairs.extend(chosen);
            floaters = left;
            r = end;
        }
        Ok(pairs.into_iter().map(|(a, b)| (self.order[a], self.order[b])).collect())
    }

    /// The best pairs inside `bracket` (ranks, rank order; residents from `resident`),
    /// with the next bracket's residents `next` and everyone from there to `n` below, and
    /// the players left to float.
    ///
    /// For each number of pairs, the most first: the candidates in the handbook's order for
    /// a short while, one meeting every criterion winning at once; else the best value any
    /// pairing of the bracket reaches (a depth-first search that drops every branch whose
    /// best possible value is no better than one already found), then the candidates in
    /// the handbook's order again, the first to reach that value winning.
    fn bracket(
        &mut self,
        bracket: &[usize],
        resident: usize,
        next: (usize, usize),
        n: usize,
    ) -> (Vec<(usize, usize)>, Vec<usize>) {
        let below: u128 = (next.1..n).fold(0, |m, r| m | bit(r));
        let mut b = Bracket {
            players: bracket.to_vec(),
            resident,
            next,
            lower: below,
            g: HashMap::new(),
            pairs: 0,
            gmax: Vec::new(),
            floater_sets: Vec::new(),
            tight: false,
            best: None,
            target: Vec::new(),
            found: None,
            nodes: usize::MAX,
        };
        let mdps: Vec<usize> = bracket.iter().copied().filter(|&r| r < resident).collect();
        for p in (0..=bracket.len() / 2).rev() {
            let Some(gmax) = self.best_lookahead(&mut b, bracket.len() - 2 * p) else { continue };
            b.pairs = p;
            b.gmax = gmax;
            // The candidates in order, hoping for one with every criterion met: that one
            // is the answer. A short search only; it leaves the best it saw.
            b.target = self.bound(&[], bracket, p, &b.gmax);
            b.nodes = SHORT_SEARCH;
            b.tight = false;
            self.mdp_sets(&mut b, &mdps, 0, &mut Vec::new());
            if b.found.is_some() {
                break;
            }
            b.nodes = usize::MAX;
            b.tight = true;
            self.strongest(&mut b, 0, 0, 0, &mut Vec::new());
            if b.best.is_some() {
                break;
            }
        }
        let chosen = match (b.found.take(), b.best.take()) {
            (Some(found), _) => found,
            (None, None) => return (Vec::new(), bracket.to_vec()),
            (None, Some((target, fallback))) => {
                b.target = target;
                self.mdp_sets(&mut b, &mdps, 0, &mut Vec::new());
                b.found.take().unwrap_or(fallback)
            }
        };
        let left =
            bracket.iter().copied().filter(|r| !chosen.iter().any(|&(a, c)| a == *r || c == *r)).collect();
        (chosen, left)
    }

    /// The look-ahead of the floaters `floaters` of `b`, computed once.
    fn lookahead_of(&self, b: &mut Bracket, floaters: u128) -> Option<Value> {
        if let Some(g) = b.g.get(&floaters) {
            return g.clone();
        }
        let g = self.lookahead(floaters, b.next, b.lower);
        b.g.insert(floaters, g.clone());
        g
    }

    /// The best look-ahead of any `s` floaters of `b` (`None` when none can be completed;
    /// every field unbounded when there are too many sets to try).
    fn best_lookahead(&self, b: &mut Bracket, s: usize) -> Option<Value> {
        let players = b.players.clone();
        let mut sets = Vec::new();
        let mut too_many = false;
        for_each_subset(players.len(), s, &mut |idx: &[usize]| {
            too_many = sets.len() == 2000;
            if !too_many {
                sets.push(idx.iter().fold(0u128, |m, &k| m | bit(players[k])));
            }
            !too_many
        });
        b.floater_sets.clear();
        if too_many {
            return Some(vec![i32::MAX / 4; 2 + self.groups]);
        }
        for f in sets {
            if let Some(g) = self.lookahead_of(b, f) {
                b.floater_sets.push((f, g));
            }
        }
        b.floater_sets.iter().map(|(_, g)| g.clone()).max()
    }

    /// The first phase: the best value of `b`'s pairings with `b.pairs` pairs, into `b.best`.
    fn strongest(
        &self,
        b: &mut Bracket,
        k: usize,
        used: u128,
        floats: u128,
        pairs: &mut Vec<(usize, usize)>,
    ) {
        if !self.step() {
            return;
        }
        let Some(k) = (k..b.players.len()).find(|&x| used & bit(b.players[x]) == 0) else {
            if pairs.len() == b.pairs
                && let Some(g) = self.lookahead_of(b, floats)
            {
                let v = self.value(pairs, g);
                if b.best.as_ref().is_none_or(|(best, _)| v > *best) {
                    b.best = Some((v, pairs.clone()));
                }
            }
            return;
        };
        let undecided: Vec<usize> = b.players[k..].iter().copied().filter(|&r| used & bit(r) == 0).collect();
        let left = b.pairs - pairs.len();
        if 2 * left > undecided.len() || self.most_pairs(&undecided) < left {
            return;
        }
        match self.bound_of(b, pairs, &undecided, left) {
            None => return,
            Some(v) if b.best.as_ref().is_some_and(|(best, _)| v <= *best) => return,
            Some(_) => {}
        }
        let a = b.players[k];
        if left > 0 {
            for c in undecided[1..].iter().copied() {
                if self.compatible(a, c) {
                    pairs.push((a, c));
                    self.strongest(b, k + 1, used | bit(a) | bit(c), floats, pairs);
                    pairs.pop();
                }
            }
        }
        if undecided.len() > 2 * left {
            self.strongest(b, k + 1, used | bit(a), floats | bit(a), pairs);
        }
    }

    /// [`Self::bound`], tighter: the pairs by score group and the look-ahead taken
    /// together, at their best over the sets of floaters the branch can still end with
    /// (`None` when it can end with none).
    fn bound_of(
        &self,
        b: &Bracket,
        pairs: &[(usize, usize)],
        undecided: &[usize],
        left: usize,
    ) -> Option<Value> {
        let mut v = self.bound(pairs, undecided, left, &b.gmax);
        if b.floater_sets.is_empty() {
            return Some(v);
        }
        self.charge(b.floater_sets.len() / 16);
        let gs = self.groups;
        let paired = pairs.iter().fold(0, |m, &(x, y)| m | bit(x) | bit(y));
        let open = undecided.iter().fold(0, |m, &r| m | bit(r));
        let floated = b.players.iter().fold(0, |m, &r| m | bit(r)) & !paired & !open;
        let mut heads = vec![0; gs];
        for &(h, _) in pairs {
            heads[self.st(h).group] += 1;
        }
        let mut best: Option<Value> = None;
        for (f, g) in &b.floater_sets {
            if f & floated != floated || f & !(floated | open) != 0 {
                continue;
            }
            // The highest players left pairing the lower ones: the most pairs at the top.
            let mut sg = heads.clone();
            let mut rest = open & !f;
            for _ in 0..left {
                let r = rest.trailing_zeros() as usize;
                if r >= 128 {
                    break;
                }
                sg[self.st(r).group] += 1;
                rest &= !bit(r);
            }
            sg.extend_from_slice(g);
            if best.as_ref().is_none_or(|x| sg > *x) {
                best = Some(sg);
            }
        }
        let sg = best?;
        v[1..1 + sg.len()].copy_from_slice(&sg);
        Some(v)
    }

    /// The best value `pairs` can still reach when `undecided` are left to pair into
    /// `left` more pairs: every field at its most.
    fn bound(&self, pairs: &[(usize, usize)], undecided: &[usize], left: usize, gmax: &Value) -> Value {
        let gs = self.groups;
        let mut v = self.value(pairs, gmax.clone());
        let left = left as i32;
        v[0] += left;
        let mut groups: Vec<usize> = undecided.iter().map(|&r| self.st(r).group).collect();
        groups.sort_unstable();
        for g in groups.iter().take(left as usize) {
            v[1 + g] += 1;
        }
        let mut i = 1 + gs + 2 + gs;
        // Players wanting the same colour beyond those wanting the other, no colour, or
        // left to float, pair with each other.
        let spare = undecided.len() as i32 - 2 * left;
        let clashes = |strong_only: bool| {
            let wants = |c: Side| {
                undecided
                    .iter()
                    .filter(|&&r| {
                        let st = self.st(r);
                        st.pref == Some(c) && (!strong_only || st.strong || st.absolute)
                    })
                    .count() as i32
            };
            let (w, b) = (wants(Side::White), wants(Side::Black));
            let others = undecided.len() as i32 - w - b;
            (((w - b).abs() - others - spare).max(0) + 1) / 2
        };
        let clashing = [0, 0, clashes(false), clashes(true)];
        for (c, clash) in v[i..i + 4].iter_mut().zip(clashing) {
            *c += left - clash.min(left);
        }
        i += 4;
        let backs = self.played.min(2);
        for k in 0..backs {
            let down = undecided.iter().filter(|&&r| self.st(r).floats[k] == Some(true)).count() as i32;
            v[i] += down.min(2 * left);
            v[i + 1] += left;
            i += 2;
        }
        for k in 0..backs {
            for &r in undecided {
                let st = self.st(r);
                v[i + st.group] += i32::from(st.floats[k] == Some(true));
            }
            // A pair counts once, at its higher player's group: the highest groups first.
            for g in groups.iter().take(left as usize) {
                v[i + gs + g] += 1;
            }
            i += 2 * gs;
        }
        v
    }

    /// The second phase, first step: the sets of MDPs paired, the highest MDPs first.
    fn mdp_sets(&self, b: &mut Bracket, mdps: &[usize], i: usize, chosen: &mut Vec<usize>) {
        if b.found.is_some() || b.nodes == 0 || chosen.len() > b.pairs || !self.step() {
            return;
        }
        if i == mdps.len() {
            // The pairs by the higher player's score group must be the best value's.
            let by_group = |g: usize| chosen.iter().filter(|&&m| self.st(m).group == g).count() as i32;
            let groups: Vec<usize> = mdps.iter().map(|&m| self.st(m).group).collect();
            if groups.iter().all(|&g| by_group(g) == b.target[1 + g]) {
                self.mdp_opponents(b, chosen, 0, 0, &mut Vec::new());
            }
            return;
        }
        chosen.push(mdps[i]);
        self.mdp_sets(b, mdps, i + 1, chosen);
        chosen.pop();
        self.mdp_sets(b, mdps, i + 1, chosen);
    }

    /// Each paired MDP's opponent, the highest resident first.
    fn mdp_opponents(
        &self,
        b: &mut Bracket,
        chosen: &[usize],
        j: usize,
        used: u128,
        pairs: &mut Vec<(usize, usize)>,
    ) {
        if b.found.is_some() || b.nodes == 0 || !self.step() {
            return;
        }
        if j == chosen.len() {
            self.remainder(b, used, pairs);
            return;
        }
        let residents: Vec<usize> = b.players.iter().copied().filter(|&r| r >= b.resident).collect();
        for r in residents {
            if used & bit(r) == 0 && self.compatible(chosen[j], r) {
                pairs.push((chosen[j], r));
                self.mdp_opponents(b, chosen, j + 1, used | bit(r), pairs);
                pairs.pop();
                if b.found.is_some() {
                    return;
                }
            }
        }
    }

    /// The remainder (the residents not paired with MDPs): exchanges between its halves in
    /// the handbook's order, each with its transpositions.
    fn remainder(&self, b: &mut Bracket, used: u128, pairs: &mut Vec<(usize, usize)>) {
        let rem: Vec<usize> =
            b.players.iter().copied().filter(|&r| r >= b.resident && used & bit(r) == 0).collect();
        let Some(m) = b.pairs.checked_sub(pairs.len()) else { return };
        if 2 * m > rem.len() {
            return;
        }
        let s2 = rem.len() - m;
        for k in 0..=m.min(s2) {
            if b.nodes == 0 {
                return;
            }
            let mut exchanges: Vec<Exchange> = Vec::new();
            let mut too_many = false;
            for_each_subset(m, k, &mut |a: &[usize]| {
                for_each_subset(s2, k, &mut |c: &[usize]| {
                    if exchanges.len() > 20_000 || !self.step() {
                        too_many = true;
                        return false;
                    }
                    let c: Vec<usize> = c.iter().map(|x| x + m).collect();
                    let diff = c.iter().sum::<usize>() as i64 - a.iter().sum::<usize>() as i64;
                    let a_key = (0..m).rev().map(|x| u8::from(!a.contains(&x))).collect();
                    let c_key = (m..rem.len()).map(|x| u8::from(!c.contains(&x))).collect();
                    exchanges.push((diff, a_key, c_key, a.to_vec(), c));
                    true
                })
            });
            if too_many {
                return;
            }
            exchanges.sort();
            for (_, _, _, a, c) in exchanges {
                let mut upper: Vec<usize> =
                    (0..m).filter(|x| !a.contains(x)).chain(c.iter().copied()).collect();
                let mut lower: Vec<usize> =
                    (m..rem.len()).filter(|x| !c.contains(x)).chain(a.iter().copied()).collect();
                upper.sort_unstable();
                lower.sort_unstable();
                let upper: Vec<usize> = upper.into_iter().map(|x| rem[x]).collect();
                let lower: Vec<usize> = lower.into_iter().map(|x| rem[x]).collect();
                self.transpose(b, &upper, &lower, 0, 0, pairs);
                if b.found.is_some() || b.nodes == 0 {
                    return;
                }
            }
        }
    }

    /// S1's players in order, each with the highest S2 player it can have (transpositions
    /// in order); a pairing reaching the best value ends the search.
    fn transpose(
        &self,
        b: &mut Bracket,
        s1: &[usize],
        s2: &[usize],
        i: usize,
        used: u128,
        pairs: &mut Vec<(usize, usize)>,
    ) {
        if b.nodes == 0 || !self.step() {
            return;
        }
        b.nodes -= 1;
        if i == s1.len() {
            let floats = b
                .players
                .iter()
                .filter(|r| !pairs.iter().any(|&(x, y)| x == **r || y == **r))
                .fold(0, |m, r| m | bit(*r));
            if let Some(g) = self.lookahead_of(b, floats) {
                let v = self.value(pairs, g);
                if v == b.target {
                    b.found = Some(pairs.clone());
                } else if b.best.as_ref().is_none_or(|(best, _)| v > *best) {
                    b.best = Some((v, pairs.clone()));
                }
            }
            return;
        }
        let undecided: Vec<usize> =
            s1[i..].iter().chain(s2.iter().filter(|&&r| used & bit(r) == 0)).copied().collect();
        let left = s1.len() - i;
        if b.tight {
            if self.bound_of(b, pairs, &undecided, left).is_none_or(|v| v < b.target) {
                return;
            }
        } else if self.bound(pairs, &undecided, left, &b.gmax) < b.target {
            return;
        }
        let a = s1[i];
        for &c in s2 {
            if used & bit(c) == 0 && c > a && self.compatible(a, c) {
                pairs.push((a, c));
                self.transpose(b, s1, s2, i + 1, used | bit(c), pairs);
                pairs.pop();
                if b.found.is_some() {
                    return;
                }
            }
        }
    }

    /// The best completion below a bracket whose floaters are `floaters`, with the next
    /// bracket's residents `next` and the players `lower` below it: `None` when the round
    /// cannot be completed, else the pairs of the next bracket, their count by the higher
    /// player's score group, and the bye's unplayed rounds (negated).
    ///
    /// The value depends only on which of the floaters and next residents are left to the
    /// brackets further down (`down`): the others pair among themselves (never two floaters
    /// together), each pair's higher player a floater if it has one. So the sets `down` are
    /// tried from the smallest, and the first size that can be completed gives the answer.
    fn lookahead(&self, floaters: u128, next: (usize, usize), lower: u128) -> Option<Value> {
        let upper: Vec<usize> = (0..128).filter(|&r| floaters & bit(r) != 0).chain(next.0..next.1).collect();
        let u = upper.len();
        let odd = (u + lower.count_ones() as usize) % 2 == 1;
        for d in 0..=u {
            if (u - d) % 2 == 1 {
                continue;
            }
            let mut best: Option<Value> = None;
            let finished = for_each_subset(u, d, &mut |chosen: &[usize]| {
                if !self.step() {
                    return false;
                }
                let down: u128 = chosen.iter().fold(0, |m, &k| m | bit(upper[k]));
                let paired = upper.iter().fold(0u128, |m, &r| m | bit(r)) & !down;
                if !self.perfect(paired, floaters, false) {
                    return true;
                }
                let rest = down | lower;
                let bye = if odd {
                    match self.lowest_unplayed_bye(rest, down) {
                        Some(b) => b,
                        None => return true,
                    }
                } else if self.perfect(rest, down, false) {
                    0
                } else {
                    return true;
                };
                let mut v = vec![0; 2 + self.groups];
                v[0] = ((u - d) / 2) as i32;
                let mut floaters_paired = 0;
                for r in (0..128).filter(|&r| paired & floaters & bit(r) != 0) {
                    v[1 + self.st(r).group] += 1;
                    floaters_paired += 1;
                }
                if next.0 < next.1 {
                    v[1 + self.st(next.0).group] += v[0] - floaters_paired;
                }
                v[1 + self.groups] = -bye;
                if best.as_ref().is_none_or(|b| v > *b) {
                    best = Some(v);
                }
                true
            });
            if !finished {
                return None;
            }
            if best.is_some() {
                return best;
            }
        }
        None
    }

    /// The value of a bracket's pairs `pairs` with the look-ahead `g`.
    fn value(&self, pairs: &[(usize, usize)], g: Value) -> Value {
        let gs = self.groups;
        let mut v = vec![pairs.len() as i32];
        let mut scores = vec![0; gs];
        for &(h, _) in pairs {
            scores[self.st(h).group] += 1;
        }
        v.extend(scores);
        v.extend(g);
        let mut colour = [0; 4];
        for &(h, l) in pairs {
            let (p, o) = (self.st(l), self.st(h));
            colour[0] += i32::from(!(p.imbalance > 1 && o.imbalance > 1 && p.pref == o.pref));
            let repeat = if p.imbalance == o.imbalance {
                p.repeated.is_none() || p.repeated != o.repeated
            } else {
                let lesser = if p.imbalance > o.imbalance { o } else { p };
                lesser.repeated != p.pref.map(Side::opponent)
            };
            colour[1] += i32::from(!p.absolute || !o.absolute || p.pref != o.pref || repeat);
            colour[2] += i32::from(p.pref.is_none() || o.pref.is_none() || p.pref != o.pref);
            colour[3] += i32::from(
                (!p.strong && !p.absolute)
                    || (!o.strong && !o.absolute)
                    || (p.absolute && o.absolute)
                    || p.pref != o.pref,
            );
        }
        v.extend(colour);
        let backs: Vec<usize> = (0..self.played.min(2)).collect();
        for &k in &backs {
            let (mut down, mut up) = (0, 0);
            for &(h, l) in pairs {
                let (ho, lo) = (self.st(h), self.st(l));
                down += i32::from(lo.floats[k] == Some(true));
                down += i32::from(ho.score <= lo.score && ho.floats[k] == Some(true));
                up += i32::from(!(ho.score > lo.score && lo.floats[k] == Some(false)));
            }
            v.extend([down, up]);
        }
        for &k in &backs {
            let (mut down, mut up) = (vec![0; gs], vec![0; gs]);
            for &(h, l) in pairs {
                let (ho, lo) = (self.st(h), self.st(l));
                down[lo.group] += i32::from(lo.floats[k] == Some(true));
                down[ho.group] += i32::from(ho.floats[k] == Some(true));
                up[ho.group] += i32::from(!(lo.floats[k] == Some(false) && ho.score > lo.score));
            }
            v.extend(down);
            v.extend(up);
        }
        v
    }
}

/// The colour the player of index `lo` (the smaller pairing number) has against `hi`.
fn colour_of(p: &Pairer, lo: usize, hi: usize, initial: Side) -> Side {
    let (x, y) = (&p.s[lo], &p.s[hi]);
    let x_higher = p.rank[lo] < p.rank[hi];
    let neutral = if x.pref.is_none() || y.pref.is_none() || x.pref != y.pref {
        x.pref.or(y.pref.map(Side::opponent))
    } else if x.absolute && (x.imbalance > y.imbalance || !y.absolute) {
        x.pref
    } else if y.absolute && (y.imbalance > x.imbalance || !x.absolute) {
        y.pref.map(Side::opponent)
    } else if x.strong && !y.strong {
        x.pref
    } else if y.strong && !x.strong {
        y.pref.map(Side::opponent)
    } else {
        x.colours.iter().rev().zip(y.colours.iter().rev()).find(|(a, b)| a != b).map(|(_, theirs)| *theirs)
    };
    neutral.unwrap_or_else(|| match (x.pref, x_higher) {
        (None, true) => {
            if lo.is_multiple_of(2) {
                initial
            } else {
                initial.opponent()
            }
        }
        (None, false) => {
            if hi.is_multiple_of(2) {
                initial.opponent()
            } else {
                initial
            }
        }
        (Some(c), true) => c,
        (Some(_), false) => y.pref.map_or(initial, Side::opponent),
    })
}

/// Calls `f` with every `d`-element subset of `0..n` (as sorted indices), in order, until
/// it returns `false`; whether it never did.
fn for_each_subset(n: usize, d: usize, f: &mut dyn FnMut(&[usize]) -> bool) -> bool {
    fn go(
        start: usize,
        n: usize,
        d: usize,
        cur: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]) -> bool,
    ) -> bool {
        if cur.len() == d {
            return f(cur);
        }
        for k in start..n {
            if n - k < d - cur.len() {
                break;
            }
            cur.push(k);
            let go_on = go(k + 1, n, d, cur, f);
            cur.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
    go(0, n, d, &mut Vec::new(), f)
}

/// The size of a maximum matching of the graph `adj` (Edmonds' blossom algorithm: grow
/// alternating trees from each free vertex, shrinking odd cycles into their base).
fn matching_size(adj: &[Vec<usize>]) -> usize {
    const NONE: usize = usize::MAX;
    let n = adj.len();
    let mut mate = vec![NONE; n];
    let mut size = 0;
    for root in 0..n {
        if mate[root] != NONE {
            continue;
        }
        let mut parent = vec![NONE; n];
        let mut base: Vec<usize> = (0..n).collect();
        let mut used = vec![false; n];
        used[root] = true;
        let mut queue = std::collections::VecDeque::from([root]);
        let mut end = NONE;
        'search: while let Some(v) = queue.pop_front() {
            for &to in &adj[v] {
                if base[v] == base[to] || mate[v] == to {
                    continue;
                }
                if to == root || mate[to] != NONE && parent[mate[to]] != NONE {
                    let b = common_base(&mate, &parent, &base, v, to);
                    let mut blossom = vec![false; n];
                    mark_blossom(&mate, &mut parent, &base, &mut blossom, v, b, to);
                    mark_blossom(&mate, &mut parent, &base, &mut blossom, to, b, v);
                    for i in 0..n {
                        if blossom[base[i]] {
                            base[i] = b;
                            if !used[i] {
                                used[i] = true;
                                queue.push_back(i);
                            }
                        }
                    }
                } else if parent[to] == NONE {
                    parent[to] = v;
                    if mate[to] == NONE {
                        end = to;
                        break 'search;
                    }
                    used[mate[to]] = true;
                    queue.push_back(mate[to]);
                }
            }
        }
        let mut v = end;
        while v != NONE {
            let pv = parent[v];
            let next = mate[pv];
            mate[v] = pv;
            mate[pv] = v;
            v = next;
        }
        if end != NONE {
            size += 1;
        }
    }
    size
}

/// The base of the blossom two tree paths from `a` and `b` meet in.
fn common_base(mate: &[usize], parent: &[usize], base: &[usize], mut a: usize, mut b: usize) -> usize {
    let mut seen = vec![false; mate.len()];
    loop {
        a = base[a];
        seen[a] = true;
        if mate[a] == usize::MAX {
            break;
        }
        a = parent[mate[a]];
    }
    loop {
        b = base[b];
        if seen[b] {
            return b;
        }
        b = parent[mate[b]];
    }
}

/// Marks the blossom's vertices on the path from `v` to its base `b`, pointing the tree
/// through `child`.
fn mark_blossom(
    mate: &[usize],
    parent: &mut [usize],
    base: &[usize],
    blossom: &mut [bool],
    mut v: usize,
    b: usize,
    mut child: usize,
) {
    while base[v] != b {
        blossom[base[v]] = true;
        blossom[base[mate[v]]] = true;
        parent[v] = child;
        child = mate[v];
        v = parent[mate[v]];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges {
            adj[a].push(b);
            adj[b].push(a);
        }
        adj
    }

    /// Counted by hand: a five-cycle matches two pairs, a six-cycle three; two triangles
    /// joined by one edge match all six only through the blossoms (a greedy start from
    /// vertex 0 along 0-1 must be undone).
    #[test]
    fn maximum_matchings_of_small_graphs() {
        assert_eq!(matching_size(&graph(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)])), 2);
        assert_eq!(matching_size(&graph(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)])), 3);
        let two_triangles = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3)];
        assert_eq!(matching_size(&graph(6, &two_triangles)), 3);
        // A blossom that must be shrunk: 0-1-2-3-4 a path, 4 back to 1, 5 hanging off 0
        // and 6 off 3.
        let flower = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 1), (0, 5), (3, 6)];
        assert_eq!(matching_size(&graph(7, &flower)), 3);
        assert_eq!(matching_size(&graph(4, &[(0, 1)])), 1);
    }

    /// Nobody has played: the top half meets the bottom half in order, the top player with
    /// the initial colour and the colours alternating down the boards; the odd one out, the
    /// lowest, has the bye.
    #[test]
    fn the_first_round_pairs_the_halves_in_order() {
        let past = vec![Vec::new(); 7];
        let p = pair_round(&past, 5, Side::Black, &[]).unwrap();
        assert_eq!(p.games, [(3, 0), (1, 4), (5, 2)]);
        assert_eq!(p.bye, Some(6));
        let e = pair_round(&vec![Vec::new(); MAX_PLAYERS + 1], 5, Side::White, &[]).unwrap_err();
        assert_eq!(e, NoPairing::TooMany(MAX_PLAYERS + 1));
    }

    /// After a round of six players, the second needs a search: given a single step it
    /// gives up with an error saying what to do, and with the full budget it is paired.
    #[test]
    fn a_search_past_its_budget_gives_up() {
        let game = |opponent, colour, points| vec![Past::Played { opponent, colour, points }];
        let (w, b) = (Side::White, Side::Black);
        let past = [game(3, w, 2), game(4, b, 1), game(5, w, 0), game(0, b, 0), game(1, w, 1), game(2, b, 2)];
        let e = pair_round_within(&past, 5, Side::White, &[], 1).unwrap_err();
        assert_eq!(e, NoPairing::TooLong(1));
        assert!(e.to_string().contains("gave up after 1 steps"), "{e}");
        assert!(e.to_string().contains("by hand, or with fewer players"), "{e}");
        let p = pair_round(&past, 5, Side::White, &[]).unwrap();
        assert_eq!(p.games.len(), 3);
    }
}
