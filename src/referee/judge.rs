//! Judging one commit: what it changed ([`classify_changes`]: one game file or one army
//! choice file, nothing else), and whether that change is a legal step by the player
//! who made it ([`judge_game_version`], [`judge_choice_version`]): the rules of
//! [`super::step`], the game's creation as `ravenpost new` or a revealed army choice
//! writes it, the signature where the game lists the actor's key, and a win on time only
//! past the deadline. `verify`, `log`, `sync`, the pre-receive hook and `mail import` all
//! judge through these functions.
//!
//! The referee reads no repository: what it needs beyond the two texts (the commit's
//! signature, the file's earlier versions, the army choice file beside a new game) it
//! asks of an [`Evidence`], only when the step needs it.

use crate::record::Loader;
use crate::record::game::Game;
use crate::variants::Definitions;

use super::army::{ArmyChoice, ChoiceStep, check_choice_step, choice_tags_problem, started_game_text};
use super::clock::{PlyTimes, TimedVersion, is_timeout_claim, timeout_claim_problem};
use super::layout::{GamePath, PathKind, classify};
use super::players::{ClubAccounts, choice_registry_problem, game_registry_problem, required_key};
use super::problem::Problem;
use super::step::{Growth, Step, check_created, check_step_read};

/// What the referee may ask about the commit it judges (implemented by the archive).
pub trait Evidence {
    /// A failure to read the evidence (not a verdict).
    type Error;
    /// What is wrong with the commit's signature as `player`'s step, which must be signed
    /// by `key` (listed in the game's `tag`): `None` when it is a good signature by it.
    ///
    /// # Errors
    /// When the commit cannot be read.
    fn signature_problem(&self, player: &str, tag: &str, key: &str) -> Result<Option<Problem>, Self::Error>;
    /// The versions of the judged file before this commit, oldest first (for the clock of
    /// a time-forfeit claim).
    ///
    /// # Errors
    /// When the history cannot be read.
    fn earlier_versions(&self) -> Result<Vec<(i64, Option<String>)>, Self::Error>;
    /// The text of the army choice file of game `id` in the judged commit's tree.
    ///
    /// # Errors
    /// When the tree cannot be read.
    fn army_choice(&self, id: &str) -> Result<Option<String>, Self::Error>;
    /// Whether the game file of game `id` (Fantasy Grand) exists in the judged commit's tree.
    ///
    /// # Errors
    /// When the tree cannot be read.
    fn game_exists(&self, id: &str) -> Result<bool, Self::Error>;
    /// The text of the file at `path` in the judged commit's tree (a variant definition a
    /// game pins); `None` when there is none. By default there is none.
    ///
    /// # Errors
    /// When the tree cannot be read.
    fn definition(&self, path: &str) -> Result<Option<String>, Self::Error> {
        let _ = path;
        Ok(None)
    }
    /// The player accounts the archive's `ravenpost.yaml` registers in the judged commit's
    /// tree (a new game's account tags may name only those); `None` when it has no
    /// readable settings file. By default there is none.
    ///
    /// # Errors
    /// When the tree cannot be read.
    fn club_accounts(&self) -> Result<Option<ClubAccounts>, Self::Error> {
        Ok(None)
    }
}

/// The judged commit's author name and time (Unix seconds).
#[derive(Debug, Clone, Copy)]
pub struct CommitInfo<'a> {
    /// The author's name: for a step, it must be the acting player's.
    pub author: &'a str,
    /// The author time.
    pub time: i64,
}

/// A judged version of a game file: the step and the game after it, or the problem.
pub type GameVerdict = Result<(Step, Game), Problem>;

/// Judges the version `text` of the game file `path` made by the commit `info`, after
/// `previous` (the game and its text one version earlier; `None`: the commit creates the
/// file). One replay, of what `text` adds to `previous`; a pinned user variant from
/// `definitions`, else from the judged commit.
///
/// # Errors
/// Only when `evidence` fails; every verdict is in the [`GameVerdict`].
pub fn judge_game_version<E: Evidence>(
    evidence: &E,
    path: &GamePath,
    info: CommitInfo<'_>,
    previous: Option<(&Game, &str)>,
    text: &str,
    definitions: &Definitions,
) -> Result<GameVerdict, E::Error> {
    // A pinned definition must be in the judged commit, unchanged (variant-files.md §10);
    // one that `definitions` does not hold yet (a push adding it) is read from there.
    let mut added = None;
    if let Some(pin) = super::definitions::pin_of(text) {
        match super::definitions::check_pin(&pin, evidence.definition(&pin.file)?.as_deref(), definitions) {
            Ok(None) => {}
            Ok(Some(d)) => {
                let mut more = definitions.clone();
                more.insert(d);
                added = Some(more);
            }
            Err(p) => return Ok(Err(p)),
        }
    }
    let definitions = added.as_ref().unwrap_or(definitions);
    // Only what the new version adds to the previous one is read, replayed and compared.
    let loader = Loader::new().definitions(definitions);
    let loaded = match previous {
        Some((g0, old)) => loader.after(g0, Some(old)).load(text),
        None => loader.load(text),
    };
    let (game, shared) = match loaded {
        Ok(l) => (l.game, l.shared),
        Err(e) => return Ok(Err(Problem::Unreadable { why: e.to_string() })),
    };
    let step = match previous {
        None => {
            if let Err(why) = crate::record::move_times(&game.text) {
                return Ok(Err(Problem::BadMoveTime { why }));
            }
            check_created(path.variant(), &game)
        }
        Some((g0, _)) => check_step_read(g0, &game, shared, Some(info.author), Some(info.time)),
    };
    let step = match step {
        Ok(s) => s,
        Err(p) => return Ok(Err(p)),
    };
    if step == Step::Created
        && path.variant() == ArmyChoice::VARIANT
        && let Some(p) = super::army::started_game_problem(
            path.variant(),
            evidence.army_choice(path.id())?.as_deref(),
            &game,
        )
    {
        return Ok(Err(p));
    }
    if step == Step::Created
        && let Some(club) = evidence.club_accounts()?
        && let Some(p) = game_registry_problem(&club, &game)
    {
        return Ok(Err(p));
    }
    if let Some(who) = step.actor()
        && let Some((tag, key)) = required_key(&game, who)
        && let Some(p) = evidence.signature_problem(who, tag, key)?
    {
        return Ok(Err(p));
    }
    if let (Step::Recorded { .. }, Some((g0, _))) = (&step, previous) {
        let (before, booked) = (crate::record::leaves(g0), crate::record::leaves(&game));
        if let Some(&(_, from, _)) = booked.iter().find(|l| !before.contains(l))
            && super::clock::check_leave_start(from, info.time).is_err()
        {
            return Ok(Err(Problem::LeaveBackdated {
                from: super::problem::time_from_unix(from),
                booked: super::problem::time_from_unix(info.time),
            }));
        }
    }
    if let (Step::Recorded { .. }, Some((g0, _))) = (&step, previous)
        && is_timeout_claim(&game)
    {
        let before = evidence.earlier_versions()?;
        let versions: Vec<TimedVersion<'_>> =
            before.iter().map(|(t, text)| TimedVersion { time: *t, text: text.as_deref() }).collect();
        let times = PlyTimes::from_history(&versions, g0);
        if let Some(p) = timeout_claim_problem(times.map(|t| (g0, t)), info.time) {
            return Ok(Err(p));
        }
    }
    Ok(Ok((step, game)))
}

/// Judges the version `text` made by the commit `info` as the next step of `growth`
/// ([`Growth::next_step`]), with what a commit brings: the signature where the game lists
/// the mover's key. `None` when the growth does not settle the step (nor when the game pins
/// a definition): [`judge_game_version`] on the two versions gives the verdict, which is
/// this one whenever this one is given. The growth moves on to the next step either way.
///
/// # Errors
/// Only when `evidence` fails.
pub fn judge_grown_version<E: Evidence>(
    evidence: &E,
    growth: &mut Growth,
    info: CommitInfo<'_>,
    text: &str,
) -> Result<Option<Result<Step, Problem>>, E::Error> {
    let step = growth.next_step(info.author, info.time);
    let Some(step) = step.filter(|_| super::definitions::pin_of(text).is_none()) else {
        return Ok(None);
    };
    if let Some(who) = step.actor()
        && let Some((tag, key)) = required_key(growth.game(), who)
        && let Some(p) = evidence.signature_problem(who, tag, key)?
    {
        return Ok(Some(Err(p)));
    }
    Ok(Some(Ok(step)))
}

/// Judges one commit's change to the army choice file of game `id`: one protocol step by
/// the player who authored it, signed if the choice lists that player's key.
///
/// # Errors
/// Only when `evidence` fails.
pub fn judge_choice_version<E: Evidence>(
    evidence: &E,
    id: &str,
    info: CommitInfo<'_>,
    previous: Option<&str>,
    text: Option<&str>,
) -> Result<Result<ChoiceStep, Problem>, E::Error> {
    let Some(text) = text else { return Ok(Err(Problem::ChoiceDeleted)) };
    if previous.is_none() && evidence.game_exists(id)? {
        return Ok(Err(Problem::ChoiceForExistingGame { id: id.to_string() }));
    }
    let step = match check_choice_step(id, previous, text, Some(info.author)) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    let Ok(choice) = ArmyChoice::from_yaml(text) else { return Ok(Ok(step)) };
    if step == ChoiceStep::Created
        && let Some(p) = choice_tags_problem(&choice.tags)
    {
        return Ok(Err(p));
    }
    if step == ChoiceStep::Created
        && let Some(club) = evidence.club_accounts()?
        && let Some(p) = choice_registry_problem(&club, &choice)
    {
        return Ok(Err(p));
    }
    if matches!(started_game_text(&choice), Some(Err(_))) {
        return Ok(Err(Problem::ChoiceMakesNoGame));
    }
    if let Some(player) = step.player()
        && let Some(side) = choice.side_of(player)
        && let Some(key) = choice.tags.get(super::players::signing_key_tag(side))
        && let Some(p) = evidence.signature_problem(player, super::players::signing_key_tag(side), key)?
    {
        return Ok(Err(p));
    }
    Ok(Ok(step))
}

/// A problem with one commit, and what it is about (a game id, an army choice's id, or a
/// path): the hook prints `<subject> <commit>: <problem>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The game id or path the problem is about.
    pub subject: String,
    /// The problem.
    pub problem: Problem,
}

/// The one record a commit changes, as [`classify_changes`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changed<'a> {
    /// A game file, with its new bytes (`None`: deleted).
    Game(GamePath, Option<&'a [u8]>),
    /// An army choice file of the game with this id, with its new bytes.
    Choice(String, Option<&'a [u8]>),
    /// The variant definition with this name, with its new bytes
    /// ([`super::definitions::check_definition_change`] judges it).
    Definition(String, Option<&'a [u8]>),
    /// A tournament file (its name and new bytes) and the records changed beside it (a
    /// tournament's creation also creates its games).
    Tournament(String, Option<&'a [u8]>, Vec<Changed<'a>>),
}

/// What is wrong with a commit (the root commit when `root`) changing `path` by what the
/// path holds alone: the settings file outside the root commit, and any path that is
/// neither a record nor one of the [`ALLOWED_FILES`](super::layout::ALLOWED_FILES), are
/// [`Problem::NotAGameFile`]. `None` for a record's path (judged by what it holds), an
/// allowed file, and the settings in the root commit. The hook (through
/// [`classify_changes`]) and `verify` (for every path of the history) both ask this.
pub fn path_finding(path: &str, root: bool) -> Option<Finding> {
    let refused = match classify(path) {
        PathKind::Config => !root,
        PathKind::Other => true,
        PathKind::Attributes
        | PathKind::Allowed
        | PathKind::Game(_)
        | PathKind::ArmyChoice(_)
        | PathKind::Tournament(_)
        | PathKind::Definition(_) => false,
    };
    refused.then(|| Finding { subject: path.to_string(), problem: Problem::NotAGameFile })
}

/// What a commit changed (`changes`: each path with its new bytes, `None` for a
/// deletion), by what a push may be: exactly one game file, army choice file or variant
/// definition, or one tournament file
/// with the records beside it (judged by [`crate::referee::tournament::check_created`]);
/// beside them any of the allowed files, and the settings file in the root commit
/// (`root`) ([`path_finding`]). The findings for anything else; the record changed, when there is exactly one.
pub fn classify_changes<'a>(
    changes: &[(&str, Option<&'a [u8]>)],
    root: bool,
) -> (Vec<Finding>, Option<Changed<'a>>) {
    let mut findings = Vec::new();
    let mut records = Vec::new();
    let mut tournaments = Vec::new();
    for (path, bytes) in changes {
        match classify(path) {
            PathKind::Tournament(name) => tournaments.push((name, *bytes)),
            PathKind::ArmyChoice(id) => records.push(Changed::Choice(id, *bytes)),
            PathKind::Game(g) => records.push(Changed::Game(g, *bytes)),
            PathKind::Definition(name) => records.push(Changed::Definition(name, *bytes)),
            PathKind::Config | PathKind::Attributes | PathKind::Allowed | PathKind::Other => {
                findings.extend(path_finding(path, root))
            }
        }
    }
    if let [(name, bytes)] = tournaments.as_slice() {
        return (findings, Some(Changed::Tournament(name.clone(), *bytes, records)));
    }
    records.extend(tournaments.into_iter().map(|(name, bytes)| Changed::Tournament(name, bytes, Vec::new())));
    if records.len() > 1 {
        let files: Vec<String> = records
            .iter()
            .map(|r| match r {
                Changed::Game(g, _) => g.id().to_string(),
                Changed::Choice(id, _) => format!("{id} (army choice)"),
                Changed::Definition(name, _) => super::layout::definition_path(name),
                Changed::Tournament(name, _, _) => format!("{name} (tournament)"),
            })
            .collect();
        findings.push(Finding { subject: files.join(","), problem: Problem::SeveralFiles { files } });
        return (findings, None);
    }
    (findings, records.pop())
}
