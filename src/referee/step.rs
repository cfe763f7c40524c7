//! What one version of a game file may be, given the one before: the game's creation,
//! one legal ply by the player to move, or one recorded action (resignation, draw offer,
//! answer or claim, time-forfeit claim, booked leave) by the player entitled to it, with
//! nothing earlier changed. [`check_step_at`] judges that from the two texts; the
//! [`super::judge`] functions add what a commit brings (its author, time and signature).

use serde::{Deserialize, Serialize};

use crate::engine::EndReason;
use crate::notation::pgn::GameText;
use crate::record::game::Game;
use crate::record::{
    Loader, MAX_CLOCK_SKEW, MoveOptions, Play, adds_just_the_move, last_move_time, move_times,
    move_times_from, play, player, recognise_action, result_of, same_game,
};
use crate::variants::Definitions;

use super::problem::{Problem, time_from_unix};

/// What one version of a game file does relative to the one before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// The first version: a new game.
    Created,
    /// One ply was added, by the named player.
    Moved {
        /// 1-based ply.
        ply: usize,
        /// Canonical token.
        san: String,
        /// The player to move before it.
        player: String,
        /// How the rules ended the game with this ply, if they did (a game going on:
        /// `None`, left out of the JSON).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end: Option<Ended>,
    },
    /// The game ended (resignation, agreement, claim) or an offer was made or answered,
    /// or leave was booked, without a move.
    Recorded {
        /// The result after the change.
        result: String,
        /// The player who acted.
        player: String,
        /// What was done, e.g. `Scarlet resigns`.
        summary: String,
    },
}

/// How the rules ended a game with a ply: the result and the rules' reason (`1-0` by
/// [`EndReason::BareKing`]), typed, for `log` and the site to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// The result token (`1-0`, `0-1`, `1/2-1/2`).
    pub result: String,
    /// Why the rules ended the game.
    pub reason: EndReason,
}

impl Ended {
    /// How `game`'s rules ended it at its last ply, if they did.
    pub fn of(game: &Game) -> Option<Ended> {
        game.outcome.map(|o| Ended {
            result: crate::record::game::result_token(o).to_string(),
            reason: match o {
                crate::engine::Outcome::Win { reason, .. } | crate::engine::Outcome::Draw { reason } => {
                    reason
                }
            },
        })
    }
}

impl std::fmt::Display for Ended {
    /// `1-0 · bare king`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} · {}", self.result, self.reason)
    }
}

impl Step {
    /// Who acted (`None` for a game's creation, which is nobody's move).
    pub fn actor(&self) -> Option<&str> {
        match self {
            Step::Created => None,
            Step::Moved { player, .. } | Step::Recorded { player, .. } => Some(player),
        }
    }
}

/// Checks that `new` follows from `old` (None: `new` creates the game) by exactly one
/// legal ply or a recorded resignation/draw action, with nothing earlier changed, and that
/// `author` (if given) is the player who acted.
///
/// # Errors
/// The [`Problem`].
pub fn check_step(old: Option<&str>, new: &str, author: Option<&str>) -> Result<Step, Problem> {
    check_step_at(old, new, author, None, &Definitions::new())
}

/// As [`check_step`], and checks the recorded move times ([`crate::record::TIME_PREFIX`]): the
/// times of earlier plies are unchanged, an added ply's time is not before the last
/// recorded time before it, and not after `commit_time` (Unix seconds, the commit adding
/// it, when known) plus [`MAX_CLOCK_SKEW`]. A ply without a time is accepted (files of
/// older ravenposts and of other tools; clocks then use the commit time). A game pinning a
/// user definition takes it from `definitions`.
///
/// # Errors
/// The [`Problem`].
pub fn check_step_at(
    old: Option<&str>,
    new: &str,
    author: Option<&str>,
    commit_time: Option<i64>,
    definitions: &Definitions,
) -> Result<Step, Problem> {
    let load = |text: &str| Loader::new().definitions(definitions).load(text).map(|l| l.game);
    let g1 = load(new).map_err(|e| Problem::Unreadable { why: e.to_string() })?;
    match old {
        None => {
            move_times(&g1.text).map_err(|why| Problem::BadMoveTime { why })?;
            Ok(Step::Created)
        }
        Some(old) => {
            let g0 = load(old).map_err(|e| Problem::PreviousUnreadable { why: e.to_string() })?;
            check_step_from(&g0, &g1, author, commit_time)
        }
    }
}

/// As [`check_step_at`] for a step from the replayed game `g0` to `g1`: no replay of
/// either.
///
/// # Errors
/// The [`Problem`].
pub fn check_step_from(
    g0: &Game,
    g1: &Game,
    author: Option<&str>,
    commit_time: Option<i64>,
) -> Result<Step, Problem> {
    check_step_read(g0, g1, 0, author, commit_time)
}

/// As [`check_step_from`], when the first `shared` main-line moves of `g1.text` were read
/// from the same bytes as `g0.text`'s ([`crate::record::Loader::after`]): what they hold
/// is not compared again, so that the step costs what it adds. The verdict is
/// [`check_step_from`]'s.
///
/// # Errors
/// The [`Problem`].
pub fn check_step_read(
    g0: &Game,
    g1: &Game,
    shared: usize,
    author: Option<&str>,
    commit_time: Option<i64>,
) -> Result<Step, Problem> {
    let shared = shared.min(g0.text.moves.len()).min(g1.text.moves.len());
    // The times of the moves after the shared ones (those before are the same in both).
    let t1 = move_times_from(&g1.text, shared).map_err(|why| Problem::BadMoveTime { why })?;
    let t0 = move_times_from(&g0.text, shared).map_err(|why| Problem::PreviousUnreadable { why })?;
    let fixed = |t: &GameText| -> Vec<(String, String)> {
        t.tags
            .iter()
            .filter(|x| !matches!(x.name.as_str(), "Result" | "Termination"))
            .map(|x| (x.name.clone(), x.value.clone()))
            .collect()
    };
    // Tags are compared in canonical form (only when they differ as written), so that
    // layout and defaulted tags do not count as changes.
    let canonical_tags = |g: &Game| -> Result<Vec<(String, String)>, Problem> {
        let text = g.canonical_text();
        let read = crate::notation::pgn::GameReader::new(text.as_bytes()).next();
        match read {
            Some(Ok(t)) => Ok(fixed(&t)),
            Some(Err(e)) => Err(Problem::Unreadable { why: e.to_string() }),
            None => Err(Problem::Unreadable { why: "no game".into() }),
        }
    };
    // The tags as written, compared without copying them.
    fn as_written(t: &GameText) -> impl Iterator<Item = (&String, &String)> {
        t.tags
            .iter()
            .filter(|x| !matches!(x.name.as_str(), "Result" | "Termination"))
            .map(|x| (&x.name, &x.value))
    }
    if g0.start != g1.start
        || (!as_written(&g0.text).eq(as_written(&g1.text)) && canonical_tags(g0)? != canonical_tags(g1)?)
    {
        return Err(Problem::TagsChanged);
    }
    let r0 = result_of(g0);
    let r1 = result_of(g1);
    if g1.moves.len() < g0.moves.len() || g1.moves[..g0.moves.len()] != g0.moves[..] {
        let at = g0.moves.iter().zip(&g1.moves).position(|(a, b)| a != b).unwrap_or(g1.moves.len());
        return Err(Problem::MoveRewritten { ply: at + 1 });
    }
    if let Some(k) = t0.iter().zip(&t1).position(|(a, b)| a != b) {
        return Err(Problem::MoveTimeRewritten { ply: shared + k + 1 });
    }
    if let Some(Some(at)) = g0.moves.len().checked_sub(shared).and_then(|i| t1.get(i)) {
        let ply = g0.moves.len() + 1;
        let before = match t0.iter().rev().flatten().next() {
            Some(t) => Some(*t),
            None => last_move_time(&g0.text, shared),
        };
        if let Some(before) = before
            && *at < before
        {
            return Err(Problem::TimedBeforePrevious {
                ply,
                at: time_from_unix(*at),
                previous: time_from_unix(before),
            });
        }
        if let Some(c) = commit_time
            && *at > c + MAX_CLOCK_SKEW
        {
            return Err(Problem::TimedInFuture { ply, at: time_from_unix(*at), commit: time_from_unix(c) });
        }
    }
    match g1.moves.len() - g0.moves.len() {
        0 => {
            if r0 != "*" {
                if r1 != r0 {
                    return Err(Problem::FinishedResultChanged { from: r0, to: r1 });
                }
                return Err(Problem::GameOver { result: r0 });
            }
            let Some(done) = recognise_action(g0, g1) else {
                return Err(if r1 != "*" {
                    Problem::ResultWithoutAction { result: r1 }
                } else {
                    Problem::NotAStep
                });
            };
            if let Some(a) = author
                && a != done.player
            {
                return Err(Problem::NotEntitled {
                    summary: done.summary,
                    author: a.to_string(),
                    entitled: done.player,
                });
            }
            Ok(Step::Recorded { result: r1, player: done.player, summary: done.summary })
        }
        1 => {
            if r0 != "*" {
                return Err(Problem::MoveAfterEnd { result: r0 });
            }
            let pos = g0.position();
            let side = pos.side_to_move();
            let who = player(g0, side);
            let ply = g1.moves.len();
            if let Some(a) = author
                && a != who
            {
                return Err(Problem::OutOfTurn {
                    ply,
                    author: a.to_string(),
                    to_move: who,
                    side_name: g1.variant.def().side_name(side).to_string(),
                });
            }
            let mv = g1.moves[g0.moves.len()];
            let san = crate::notation::san::write_move(&g1.variant, &pos, &mv);
            // The new version must be what ravenpost writes for the move: its time, the
            // mover's own draw offer carried along, and a result only if the rules end the
            // game (a resignation or agreement is a step of its own). Diagram comment
            // lines (`;|`, archive option) are not compared.
            let at = g0.moves.len().checked_sub(shared).and_then(|i| t1.get(i)).copied().flatten();
            // A prepared reply carries its note (`{ravenpost: prepared}`) after the time.
            let prepared = crate::record::is_prepared(&g1.text, ply);
            let options = MoveOptions { at, prepared, ..MoveOptions::default() };
            if adds_just_the_move(g0, g1, shared, &san, options) {
                return Ok(Step::Moved { ply, san, player: who, end: Ended::of(g1) });
            }
            // A player's comment with the move (`move --comment`) is part of the move as
            // ravenpost writes it: the same comment, written in its canonical form.
            let comment = crate::record::move_comment(&g1.text, ply)
                .filter(|c| crate::record::move_comment_text(c).is_ok());
            let (_, expected) = play(g0, &san, Play { options, unwritten: true, comment, ..Play::default() })
                .map_err(|e| Problem::IllegalMove { ply, why: e.to_string() })?;
            if !same_game(&expected, g1) {
                let rules = result_of(&expected);
                return Err(if r1 != rules {
                    Problem::ResultWithMove { ply, san, result: r1, rules }
                } else {
                    Problem::MoreThanTheMove { ply, san }
                });
            }
            Ok(Step::Moved { ply, san, player: who, end: Ended::of(g1) })
        }
        plies => Err(Problem::SeveralPlies { plies }),
    }
}

/// Versions of a game file, each the one before with one more ply, all cut from one text
/// (as the archive rebuilds most versions from a later one it read): the game of the last
/// of them, replayed once, and the position before the next ply. [`Growth::next_step`]
/// judges each step from it, without reading or replaying either version, when the step
/// is a ply written as ravenpost writes it; any other step is left to [`check_step_read`].
///
/// Why that is the same verdict: every such version is the same tag pairs and the same
/// bytes of movetext up to its last move, then `*`. So each one reads without problems
/// when the last one does (its tags, times and moves are a prefix of the last one's, and
/// the rules had not ended the game, or the next ply would be no legal move); its step
/// from the version before changes no tag, no earlier move and no time; and the only
/// question left is [`check_step_read`]'s for the new ply: by the player to move, timed
/// no later than the commit allows, written as ravenpost writes it, the game going on.
///
/// The caller vouches that the versions are such cuts (the archive proves it from their
/// blob ids); for any other version a `Moved` from here could be wrong.
#[derive(Debug)]
pub struct Growth {
    /// The last version's game.
    game: Game,
    /// The times of its main-line moves.
    times: Vec<Option<i64>>,
    /// How many of its first main-line moves hold no draw offer and no variation.
    clean: usize,
    /// Plies before the next step.
    plies: usize,
    /// The position before the next step.
    pos: crate::engine::Position,
}

impl Growth {
    /// The steps after the version with `plies` plies, up to the last version `text`;
    /// `None` when it does not read, its move times cannot be read or its leading comments
    /// hold a draw offer (each step is then judged from its two versions).
    pub fn new(text: &str, plies: usize) -> Option<Growth> {
        let game = crate::record::load(text).ok()?;
        if plies > game.moves.len() || crate::record::holds_offer(&game.text.leading_comments) {
            return None;
        }
        let times = move_times(&game.text).ok()?;
        let clean = game
            .text
            .moves
            .iter()
            .position(|m| crate::record::holds_offer(&m.comments) || !m.variations.is_empty())
            .unwrap_or(game.text.moves.len());
        let pos = game.position_at(plies);
        Some(Growth { game, times, clean, plies, pos })
    }

    /// The last version's game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The last version's game, once its steps are judged.
    pub fn into_game(self) -> Game {
        self.game
    }

    /// How many plies the version before the next step has.
    pub fn plies(&self) -> usize {
        self.plies
    }

    /// The step to the next version (one ply more), made by `author` at `commit_time`
    /// (Unix seconds): `Some(Step::Moved)` when it is a legal ply by the player to move,
    /// written as ravenpost writes it, no later than the commit allows and not ending the
    /// game, in a game with no draw offer and no variation before it. `None` when that
    /// does not settle it: [`check_step_read`] on the two versions then gives the verdict
    /// (which is `Moved` whenever this is). The next call judges the step after it.
    pub fn next_step(&mut self, author: &str, commit_time: i64) -> Option<Step> {
        let k0 = self.plies;
        let mv = *self.game.moves.get(k0)?;
        let next = self.game.variant.make(&self.pos, &mv);
        let before = std::mem::replace(&mut self.pos, next);
        self.plies += 1;
        let ply = k0 + 1;
        // `adds_just_the_move`: no offer and no variation before the new ply (nor in the
        // leading comments, see `new`), and a move the rules let the game go on after.
        if k0 > self.clean || (ply == self.game.moves.len() && self.game.outcome.is_some()) {
            return None;
        }
        let who = player(&self.game, before.side_to_move());
        if author != who {
            return None;
        }
        // Not timed before the ply before it: the last version read without problems, so
        // its times never go back. Not after the commit allows: checked here.
        let at = self.times.get(k0).copied().flatten();
        if at.is_some_and(|t| t > commit_time + MAX_CLOCK_SKEW) {
            return None;
        }
        let san = self.game.written_token(k0)?.to_string();
        let options = MoveOptions {
            at,
            prepared: crate::record::is_prepared(&self.game.text, ply),
            ..MoveOptions::default()
        };
        crate::record::written_as_move(&self.game.text.moves[k0], &san, options).then_some(Step::Moved {
            ply,
            san,
            player: who,
            end: None,
        })
    }
}

/// A game file's first version at `folder` (the variant folder it is stored in): a game of
/// that variant with no move played yet (`ravenpost new` writes exactly that).
///
/// # Errors
/// The [`Problem`].
pub fn check_created(folder: &str, game: &Game) -> Result<Step, Problem> {
    let slug = &game.variant.def().slug;
    if slug != folder {
        return Err(Problem::WrongFolder { variant: slug.clone(), folder: folder.to_string() });
    }
    if !game.moves.is_empty() {
        return Err(Problem::CreatedWithMoves { plies: game.moves.len() });
    }
    let v = &game.variant;
    if crate::engine::shuffle::castling_rank(v.def()).is_some()
        && !crate::engine::shuffle::is_drawn_start(v, &game.start)
    {
        return Err(Problem::NotADrawnStart {
            variant: v.def().title.clone(),
            fen: crate::notation::position_string::write_position(v, &game.start),
        });
    }
    Ok(Step::Created)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{self, DrawAction};

    /// The versions of a Grand Chess game as ravenpost writes them: moves with their
    /// times, a draw offer carried with a move, a declined offer, a resignation.
    fn played() -> Vec<String> {
        let tags: Vec<(String, String)> =
            [("White", "Ann"), ("Black", "Bo"), ("Variant", "grand"), ("Event", "Le Tournoi d'été")]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let mut text = record::game_text_from_tags(&tags);
        let mut versions = vec![text.clone()];
        for ply in 0..30_i64 {
            if ply == 8 || ply == 15 {
                text = record::draw(&record::load(&text).unwrap(), None, DrawAction::Offer).unwrap().0.text;
                versions.push(text.clone());
            }
            if ply == 16 {
                text = record::draw(&record::load(&text).unwrap(), None, DrawAction::Decline).unwrap().0.text;
                versions.push(text.clone());
            }
            let game = record::load(&text).unwrap();
            let pos = game.position();
            let legal = game.variant.legal_moves(&pos);
            let mv = legal[(ply as usize * 5 + 3) % legal.len()];
            let san = crate::notation::san::write_move(&game.variant, &pos, &mv);
            let at = Some(1_740_830_400 + ply * 3_601);
            let options = record::MoveOptions { at, ..Default::default() };
            text = record::play(&game, &san, record::Play { options, ..Default::default() }).unwrap().0.text;
            versions.push(text.clone());
        }
        text = record::resign(&record::load(&text).unwrap(), Some("Bo")).unwrap().0.text;
        versions.push(text);
        versions
    }

    /// Edits of a next version that a hand, another tool or a cheat could make, each from
    /// the text of one version (`prev`) and the next (`next`).
    fn edits(prev: &str, next: &str) -> Vec<String> {
        let mut out = vec![next.to_string()];
        let body = next.trim_end().trim_end_matches('*').trim_end().to_string();
        let replace_first = |from: &str, to: &str| next.replacen(from, to, 1);
        out.push(replace_first("ravenpost: at 2025-03-01T00:00:00Z", "ravenpost: at 2025-03-01T00:00:01Z"));
        out.push(next.replace('\n', "\r\n"));
        out.push(format!("{body} {{a comment}} *\n"));
        out.push(format!("{body} $1 *\n"));
        out.push(format!("{body} (1... a3) *\n"));
        out.push(format!("{body} {{ravenpost: at 2020-01-01T00:00:00Z}} *\n"));
        out.push(format!("{body} {{ravenpost: at 2099-01-01T00:00:00Z}} *\n"));
        out.push(format!("{body} {{ravenpost: at not a time}} *\n"));
        out.push(format!("{body} {{été, naïve}} *\n"));
        out.push(format!("{body} 1-0\n"));
        out.push(format!("{body} Zz9 *\n"));
        out.push(format!("{body} {{never closed *\n"));
        out.push(format!("{body}\n% an escape line\n*\n"));
        out.push(format!("{body} ) *\n"));
        out.push(format!("{body}\n[Event \"next game\"]\n\n*\n"));
        out.push(next.replacen("[Black \"Bo\"]", "[Black \"Bob\"]", 1));
        out.push(next.replacen(" {ravenpost: at", "  {ravenpost:  at", 1));
        out.push(prev.to_string());
        // The new move timed before the one before it; the new move with a result.
        if let Some(at) = next.rfind("ravenpost: at") {
            let t = at + "ravenpost: at".len() + 1;
            out.push(format!("{}2020-01-01T00:00:00Z{}", &next[..t], &next[t + 20..]));
        }
        out.push(format!("{} 1-0\n", body.replacen("[Result \"*\"]", "[Result \"1-0\"]", 1)));
        // The previous version with its last move taken back, and an earlier move changed.
        if let Some(cut) = prev.rfind(" {ravenpost: at") {
            out.push(format!("{} *\n", &prev[..cut]));
        }
        let mut words: Vec<&str> = next.split(' ').collect();
        if let Some(w) =
            words.iter_mut().rev().find(|w| w.len() == 2 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        {
            *w = "a4";
        }
        out.push(words.join(" "));
        out
    }

    /// The name of a verdict's kind: `Moved`, `Recorded`, or the problem's variant.
    fn kind(verdict: &Result<Step, Problem>) -> String {
        match verdict {
            Ok(Step::Created) => "Created".into(),
            Ok(Step::Moved { .. }) => "Moved".into(),
            Ok(Step::Recorded { .. }) => "Recorded".into(),
            Err(p) => format!("{p:?}").split([' ', '{', '(']).next().unwrap_or_default().to_string(),
        }
    }

    /// Reading a next version from where it differs (`Loader::after` with the previous text) and judging the step
    /// from the shared moves (`check_step_read`) give exactly what reading and judging the
    /// whole text give: the same game (places included) or the same problems, and the same
    /// verdict, for every step of a played game and for each of some 20 edits of every step.
    #[test]
    fn a_step_read_from_where_it_differs_is_judged_as_the_whole_text() {
        let versions = played();
        let mut compared = 0;
        let mut continued = 0;
        let mut kinds = Vec::new();
        for pair in versions.windows(2) {
            let (old, _) = (&pair[0], &pair[1]);
            let g0 = record::load(old).unwrap();
            for new in edits(old, &pair[1]) {
                let whole = record::Loader::new().after(&g0, None).load(&new).map(|l| l.game);
                assert_eq!(whole, record::load(&new), "loading after g0 and load agree on:\n{new}");
                let read = record::Loader::new().after(&g0, Some(old)).load(&new).map(|l| (l.game, l.shared));
                match (&whole, &read) {
                    (Ok(w), Ok((r, shared))) => {
                        assert!(w == r, "the same game for:\n{new}\n{:?}\n{:?}", w.text, r.text);
                        if *shared > 0 {
                            continued += 1;
                        }
                        for author in [None, Some("Ann"), Some("Bo")] {
                            for time in [None, Some(1_740_830_400 + 40 * 3_601), Some(1_600_000_000)] {
                                let verdict = check_step_read(&g0, r, *shared, author, time);
                                assert_eq!(
                                    verdict,
                                    check_step_from(&g0, w, author, time),
                                    "the same verdict for {author:?} at {time:?} on:\n{new}"
                                );
                                kinds.push(kind(&verdict));
                            }
                        }
                    }
                    (Err(w), Err(r)) => {
                        assert_eq!(w, r, "the same problems for:\n{new}");
                        kinds.push("Unreadable".into());
                    }
                    _ => panic!(
                        "one read failed, the other did not: {:?} / {:?}\n{new}",
                        whole.is_ok(),
                        read.is_ok()
                    ),
                }
                compared += 1;
            }
        }
        // Many steps were read from where they differ, not whole, and the edits gave both
        // legal steps and every kind of refusal below (a move timed before the one before
        // it is already a problem of the file: `Unreadable`).
        assert!(continued > compared / 3, "{continued} of {compared} read from where they differ");
        let kinds: std::collections::BTreeSet<String> = kinds.into_iter().collect();
        for kind in [
            "Moved",
            "Recorded",
            "Unreadable",
            "MoveTimeRewritten",
            "TimedInFuture",
            "MoreThanTheMove",
            "TagsChanged",
            "MoveRewritten",
            "NotAStep",
            "OutOfTurn",
            "NotEntitled",
            "ResultWithMove",
        ] {
            assert!(kinds.contains(kind), "no {kind} among {kinds:?}");
        }
    }
}
