//! The questions asked of an archive: `status` (every game as it stands), `log` (one
//! game's commits, each judged), `verify` (every commit of every game judged again), and
//! the clock of a game.
//!
//! Judging goes through the [`crate::referee`]; what the referee asks of the repository
//! (a commit's signature, a file's earlier versions, the army choice beside a new game)
//! is answered by [`CommitEvidence`]. Each version of a file is replayed once: the game
//! after one step is the game before the next.

use serde::Serialize;

use crate::archive::{
    Archive, ArchiveError, ArmyChoice, CommitId, FileVersion, GamePath, verify_ssh_signature,
};
use crate::engine::Side;
use crate::record::game::Game;
use crate::record::{self, result_of};
use crate::referee::clock::{self, Clock, PlyTimes, TimedVersion};
use crate::referee::judge::{self, CommitInfo, Evidence, GameVerdict};
use crate::referee::{ChoiceStep, Problem, Step};

use super::Error as Failure;
use super::games::now;

/// What the referee may ask about one commit of the archive.
pub(crate) struct CommitEvidence<'a, F: Fn() -> Result<Vec<FileVersion>, ArchiveError>> {
    pub archive: &'a Archive,
    pub commit: CommitId,
    /// The judged file's versions before the commit (asked only for a timeout claim).
    pub earlier: F,
}

impl<F: Fn() -> Result<Vec<FileVersion>, ArchiveError>> Evidence for CommitEvidence<'_, F> {
    type Error = ArchiveError;

    fn signature_problem(&self, player: &str, tag: &str, key: &str) -> Result<Option<Problem>, ArchiveError> {
        Ok(match self.archive.commit_signature(self.commit)? {
            None => Some(Problem::Unsigned { player: player.to_string(), tag: tag.to_string() }),
            Some(sig) => verify_ssh_signature(&sig.signed_data, &sig.signature, key)
                .err()
                .map(|why| Problem::BadSignature { player: player.to_string(), why, tag: tag.to_string() }),
        })
    }

    fn earlier_versions(&self) -> Result<Vec<(i64, Option<String>)>, ArchiveError> {
        Ok((self.earlier)()?.into_iter().map(|v| (v.time.unix_seconds(), v.contents)).collect())
    }

    fn army_choice(&self, id: &str) -> Result<Option<String>, ArchiveError> {
        self.archive.read_file_at(self.commit, &ArmyChoice::path(id))
    }

    fn game_exists(&self, id: &str) -> Result<bool, ArchiveError> {
        let Ok(g) = GamePath::new(ArmyChoice::VARIANT, id) else { return Ok(false) };
        Ok(self.archive.read_file_at(self.commit, &g.path())?.is_some())
    }
}

/// One line of `ravenpost status`.
#[derive(Debug, Serialize)]
pub struct StatusLine {
    /// Game id.
    pub id: String,
    /// Variant slug.
    pub variant: String,
    /// First player.
    pub white: String,
    /// Second player.
    pub black: String,
    /// Plies played.
    pub ply: usize,
    /// Who is to move (name), if the game goes on.
    pub to_move: Option<String>,
    /// The side to move (the variant's name for it), if the game goes on.
    pub side_to_move: Option<String>,
    /// Result token.
    pub result: String,
    /// The side with a standing draw offer, if any.
    pub draw_offer: Option<String>,
    /// The clock of the player to move, when the game has a time control.
    pub clock: Option<Clock>,
    /// A problem with the file, if it does not replay.
    pub problem: Option<String>,
    /// For a Fantasy Grand game whose armies are still being chosen in secret: what the
    /// choice waits for (e.g. `waiting for Bo's army commitment`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub army_choice: Option<String>,
}

/// `ravenpost status`: every game at the tip, from the game files (the clock also needs
/// the game's creation time, and the commit times of plies that carry no time of their own).
///
/// # Errors
/// The archive's errors.
pub fn status(archive: &Archive) -> Result<Vec<StatusLine>, Failure> {
    let mut out = Vec::new();
    let tip = archive.tip()?;
    let now = now().unix_seconds();
    for g in archive.list_games()? {
        let text = match tip {
            Some(t) => archive.read_file_at(t, &g.path()).map(Option::unwrap_or_default),
            None => Ok(String::new()),
        };
        let loaded = match text {
            Ok(t) => record::load(&t).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let line = match loaded {
            Ok(game) => {
                let result = result_of(&game);
                let side = game.position().side_to_move();
                let going = result == "*";
                StatusLine {
                    id: g.id().to_string(),
                    variant: g.variant().to_string(),
                    white: record::player(&game, Side::White),
                    black: record::player(&game, Side::Black),
                    ply: game.moves.len(),
                    to_move: going.then(|| record::player(&game, side)),
                    side_to_move: going.then(|| game.variant.def().side_name(side).to_string()),
                    draw_offer: record::pending_offer(&game),
                    clock: if going { clock_of_game(archive, &g, &game, now).ok().flatten() } else { None },
                    result,
                    problem: None,
                    army_choice: None,
                }
            }
            Err(e) => StatusLine {
                id: g.id().to_string(),
                variant: g.variant().to_string(),
                white: String::new(),
                black: String::new(),
                ply: 0,
                to_move: None,
                side_to_move: None,
                result: "?".into(),
                draw_offer: None,
                clock: None,
                problem: Some(e),
                army_choice: None,
            },
        };
        out.push(line);
    }
    let started: Vec<String> = out.iter().map(|l| l.id.clone()).collect();
    for id in archive.list_army_choices()? {
        if started.contains(&id) {
            continue;
        }
        let text = match tip {
            Some(t) => archive.read_file_at(t, &ArmyChoice::path(&id))?.unwrap_or_default(),
            None => String::new(),
        };
        let choice = ArmyChoice::from_yaml(&text);
        out.push(StatusLine {
            id: id.clone(),
            variant: ArmyChoice::VARIANT.to_string(),
            white: choice.as_ref().map(|c| c.white.clone()).unwrap_or_default(),
            black: choice.as_ref().map(|c| c.black.clone()).unwrap_or_default(),
            ply: 0,
            to_move: None,
            side_to_move: None,
            result: "*".into(),
            draw_offer: None,
            clock: None,
            problem: choice.as_ref().err().cloned(),
            army_choice: choice.ok().map(|c| c.waiting_for()),
        });
    }
    Ok(out)
}

/// The clock of the game `game` (the file at `path` at the tip) at `now`: from the move
/// times the file records and the game's creation time, or from the file's history when
/// a ply records no time. `None` when no clock runs.
///
/// # Errors
/// The archive's errors.
pub fn clock_of_game(
    archive: &Archive,
    path: &GamePath,
    game: &Game,
    now: i64,
) -> Result<Option<Clock>, Failure> {
    if result_of(game) != "*" || game.text.tag("TimeControl").is_none() {
        return Ok(None);
    }
    let history = archive.file_history(&path.path())?;
    let Some(first) = history.first() else { return Ok(None) };
    let times = match PlyTimes::from_record(game, first.time.unix_seconds()) {
        Some(t) => Some(t),
        None => {
            let versions: Vec<TimedVersion<'_>> = history
                .iter()
                .map(|v| TimedVersion { time: v.time.unix_seconds(), text: v.contents.as_deref() })
                .collect();
            PlyTimes::from_history(&versions, game)
        }
    };
    Ok(times.and_then(|t| clock::clock(game, &t, now)))
}

/// The clock of the game at `path` at `now` (Unix seconds).
///
/// # Errors
/// The archive's errors; [`Failure::Refused`] if the game file does not read.
pub fn clock(archive: &Archive, path: &GamePath, now: i64) -> Result<Option<Clock>, Failure> {
    let Some(text) = archive.read_file(&path.path())? else { return Ok(None) };
    let game = record::load(&text)?;
    clock_of_game(archive, path, &game, now)
}

/// One line of `ravenpost log`, and what `verify` checks per commit.
#[derive(Debug, Clone, Serialize)]
pub struct LogLine {
    /// Short commit id.
    pub commit: String,
    /// Author name.
    pub author: String,
    /// Commit time (RFC 3339).
    pub time: String,
    /// What the commit did: `created`, `ply N SAN`, `result R`.
    pub what: String,
    /// Ply number for moves.
    pub ply: Option<usize>,
    /// The move, for moves.
    pub san: Option<String>,
    /// Why the commit is not a legal step, if it is not.
    pub problem: Option<String>,
    /// The problem, as the referee found it.
    #[serde(skip)]
    pub verdict: Option<Problem>,
}

impl LogLine {
    fn new(
        v: &FileVersion,
        what: String,
        step: Option<(usize, String)>,
        problem: Option<Problem>,
    ) -> LogLine {
        LogLine {
            commit: v.commit.short(),
            author: v.author_name.clone(),
            time: v.time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default(),
            what,
            ply: step.as_ref().map(|s| s.0),
            san: step.map(|s| s.1),
            problem: problem.as_ref().map(ToString::to_string),
            verdict: problem,
        }
    }
}

/// Judges each version of the game file `path` (`versions`, oldest first), replaying
/// each once.
fn judge_game_versions(
    archive: &Archive,
    path: &GamePath,
    versions: &[FileVersion],
) -> Result<Vec<LogLine>, Failure> {
    let mut out = Vec::new();
    // The version before: the game it replays to (or why it does not read) and its text.
    let mut prev: Option<(Result<Game, String>, String)> = None;
    for (i, v) in versions.iter().enumerate() {
        let Some(contents) = &v.contents else {
            out.push(LogLine::new(v, "deleted".into(), None, Some(Problem::GameDeleted)));
            prev = None;
            continue;
        };
        let evidence = CommitEvidence { archive, commit: v.commit, earlier: || Ok(versions[..i].to_vec()) };
        let info = CommitInfo { author: &v.author_name, time: v.time.unix_seconds() };
        let verdict: GameVerdict = match &prev {
            Some((Err(why), _)) => Err(Problem::PreviousUnreadable { why: why.clone() }),
            Some((Ok(g), t)) => {
                judge::judge_game_version(&evidence, path, info, Some((g, t.as_str())), contents)?
            }
            None => judge::judge_game_version(&evidence, path, info, None, contents)?,
        };
        let line = match &verdict {
            Ok((Step::Created, _)) => LogLine::new(v, "created".into(), None, None),
            Ok((Step::Moved { ply, san, .. }, _)) => {
                LogLine::new(v, format!("ply {ply} {san}"), Some((*ply, san.clone())), None)
            }
            Ok((Step::Recorded { result, summary, .. }, _)) => {
                LogLine::new(v, format!("{summary} ({result})"), None, None)
            }
            Err(p) => LogLine::new(v, "invalid".into(), None, Some(p.clone())),
        };
        out.push(line);
        // A version that is not a legal step is still what the next one follows.
        let game = match verdict {
            Ok((_, game)) => Ok(game),
            Err(_) => record::load(contents).map_err(|e| e.to_string()),
        };
        prev = Some((game, contents.clone()));
    }
    Ok(out)
}

/// The history of one game, each commit judged (`log` shows it, `verify` judges it).
///
/// # Errors
/// The archive's errors.
pub fn history(archive: &Archive, path: &GamePath) -> Result<Vec<LogLine>, Failure> {
    let versions = archive.file_history(&path.path())?;
    judge_game_versions(archive, path, &versions)
}

/// The history of a choice file, each version checked: one [`LogLine`] per commit, as
/// `log` shows them and `verify` judges them.
///
/// # Errors
/// The archive's errors.
pub fn choice_history(archive: &Archive, id: &str) -> Result<Vec<LogLine>, Failure> {
    let mut out = Vec::new();
    let mut prev: Option<String> = None;
    for v in archive.file_history(&ArmyChoice::path(id))? {
        let evidence = CommitEvidence { archive, commit: v.commit, earlier: || Ok(Vec::new()) };
        let info = CommitInfo { author: &v.author_name, time: v.time.unix_seconds() };
        let step = judge::judge_choice_version(&evidence, id, info, prev.as_deref(), v.contents.as_deref())?;
        let line = match step {
            Ok(ChoiceStep::Created) => LogLine::new(&v, "army choice opened".into(), None, None),
            Ok(ChoiceStep::Committed { player }) => {
                LogLine::new(&v, format!("{player} commits to an army"), None, None)
            }
            Ok(ChoiceStep::Revealed { player, army }) => {
                LogLine::new(&v, format!("{player} reveals {army}"), None, None)
            }
            Err(p) => LogLine::new(&v, "army choice changed".into(), None, Some(p)),
        };
        out.push(line);
        prev = v.contents;
    }
    Ok(out)
}

/// A problem `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyProblem {
    /// The game id (empty for a deleted file).
    pub game: String,
    /// The short commit id (empty when the game's history could not be read).
    pub commit: String,
    /// The commit's author.
    pub author: String,
    /// What is wrong.
    pub problem: String,
}

/// What `verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    /// How many games were verified.
    pub games: usize,
    /// Every problem, game by game.
    pub problems: Vec<VerifyProblem>,
}

/// `ravenpost verify [GAME]`: judges every commit of the game (or of every game and army
/// choice, and reports deleted records). `progress` is told each game as it is done.
///
/// # Errors
/// The archive's errors; an unknown game.
pub fn verify(
    archive: &Archive,
    game: Option<&str>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<VerifyReport, Failure> {
    let choices_all = archive.list_army_choices()?;
    let games = match game {
        Some(g) => match super::games::find(archive, g) {
            Ok(p) => vec![p],
            // A Fantasy Grand game still choosing its armies has no game file yet.
            Err(_) if choices_all.iter().any(|c| c == g) => Vec::new(),
            Err(e) => return Err(e),
        },
        None => archive.list_games()?,
    };
    let mut problems = Vec::new();
    let total = games.len();
    for (k, g) in games.iter().enumerate() {
        match history(archive, g) {
            Ok(lines) => {
                for l in lines {
                    if let Some(p) = l.problem {
                        problems.push(VerifyProblem {
                            game: g.id().to_string(),
                            commit: l.commit,
                            author: l.author,
                            problem: p,
                        });
                    }
                }
            }
            Err(e) => problems.push(VerifyProblem {
                game: g.id().to_string(),
                commit: String::new(),
                author: String::new(),
                problem: e.to_string(),
            }),
        }
        progress(k + 1, total);
    }
    let choices: Vec<String> = match game {
        Some(g) => choices_all.into_iter().filter(|id| id == g).collect(),
        None => choices_all,
    };
    for id in &choices {
        for l in choice_history(archive, id)? {
            if let Some(p) = l.problem {
                problems.push(VerifyProblem {
                    game: id.clone(),
                    commit: l.commit,
                    author: l.author,
                    problem: p,
                });
            }
        }
    }
    if game.is_none() {
        problems.extend(deletions(archive)?);
    }
    Ok(VerifyReport { games: games.len(), problems })
}

/// Game files and army choice files deleted anywhere in the archive's history.
fn deletions(archive: &Archive) -> Result<Vec<VerifyProblem>, Failure> {
    let mut out = Vec::new();
    for c in archive.history(None)? {
        for ch in &c.changes {
            let is_record = GamePath::parse(&ch.path).is_some()
                || ArmyChoice::parse_path(&ch.path).is_some()
                || (ch.path.starts_with("games/") && ch.path.ends_with(".pgn"));
            if ch.contents.is_none() && is_record {
                out.push(VerifyProblem {
                    game: String::new(),
                    commit: c.commit.short(),
                    author: c.author_name.clone(),
                    problem: Problem::RecordDeleted { path: ch.path.clone() }.to_string(),
                });
            }
        }
    }
    Ok(out)
}
