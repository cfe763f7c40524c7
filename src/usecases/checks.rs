//! The questions asked of an archive: `status` (every game as it stands), `log` (one
//! game's commits, each judged), `verify` (every commit of every game judged again), and
//! the clock of a game.
//!
//! Judging goes through the [`crate::referee`]; what the referee asks of the repository
//! (a commit's signature, a file's earlier versions, the army choice beside a new game)
//! is answered by [`CommitEvidence`]. Each version of a file is replayed once: the game
//! after one step is the game before the next.
//!
//! In a shallow clone the history starts at the boundary commit: the versions there are
//! taken as given (never judged, never cached) and reported as such
//! ([`LogLine::shallow_boundary`], [`VerifyReport::shallow`]). In a partial clone the
//! versions to judge are fetched from the promisor remote first, in one go.

use serde::{Deserialize, Serialize};

use std::collections::HashMap;

use crate::archive::{
    Archive, ArchiveError, ArmyChoice, BlobId, CommitId, FileVersion, GamePath, HistoryIndex, IndexedCommit,
    Layout, PathVersion, VerdictCache, VerdictLines, VersionSource, verify_ssh_signature,
};
use crate::engine::Side;
use crate::record::game::Game;
use crate::record::{self, result_of};
use crate::referee::clock::Clock;
use crate::referee::judge::{self, CommitInfo, Evidence, GameVerdict};
use crate::referee::tournament::{self, Tournament};
use crate::referee::{ChoiceStep, Ended, Growth, Problem, Step};

use super::clock::clock_with_index;
use super::definitions::load;
use super::error::Error as Failure;
use super::kept_report::{Head, KeptReport, Row};
use super::report::{ShallowBoundary, UncheckedGame, VerifyProblem, VerifyReport};
use super::session::Session;
use crate::variants::Definitions;

/// What the referee may ask about one commit of the archive.
pub(crate) struct CommitEvidence<'a, F: Fn() -> Result<Vec<FileVersion>, ArchiveError>> {
    pub archive: &'a Archive,
    pub commit: CommitId,
    /// The judged file's versions before the commit (asked only for a timeout claim).
    pub earlier: F,
    /// The history index and the commit's position on its line, when the commit is on
    /// it: the club's settings at the commit are then found from the index (no tree read).
    pub located: Option<(&'a HistoryIndex, usize)>,
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
        // Beside the game, in the archive's layout; a file in the other layout is refused
        // by itself.
        for layout in [Layout::FanOut, Layout::Flat] {
            if let Some(text) = self.archive.read_file_at(self.commit, &ArmyChoice::path(layout, id))? {
                return Ok(Some(text));
            }
        }
        Ok(None)
    }

    fn game_exists(&self, id: &str) -> Result<bool, ArchiveError> {
        for layout in [Layout::FanOut, Layout::Flat] {
            let Ok(g) = GamePath::in_layout(layout, ArmyChoice::VARIANT, id) else { return Ok(false) };
            if self.archive.read_file_at(self.commit, &g.path())?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn definition(&self, path: &str) -> Result<Option<String>, ArchiveError> {
        match self.archive.read_file_at(self.commit, path) {
            Err(ArchiveError::NotText { .. }) => Ok(Some(String::new())),
            other => other,
        }
    }

    fn club_accounts(&self) -> Result<Option<crate::referee::players::ClubAccounts>, ArchiveError> {
        let path = crate::archive::ArchiveConfig::PATH;
        let read = match self.located {
            // The version of the settings file at the commit: the last change at or before it.
            Some((index, position)) => {
                match index.versions(path).iter().rev().find(|v| v.position <= position).and_then(|v| v.blob)
                {
                    Some(blob) => self.archive.read_blob_text(blob, path).map(Some),
                    None => Ok(None),
                }
            }
            None => self.archive.read_file_at(self.commit, path),
        };
        let text = match read {
            Err(ArchiveError::NotText { .. }) => None,
            other => other?,
        };
        Ok(text.and_then(|t| crate::archive::ArchiveConfig::from_yaml(&t).ok()).map(|c| c.club_accounts()))
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
    /// How a finished game ended (`Bo (Black) is checkmated`, `Ann (White) resigns`,
    /// `time forfeit`), as `show` says it; `None` while it goes on.
    pub ending: Option<String>,
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
    /// The players with prepared replies (a conditional tree) in this clone: only the
    /// owner's clone holds a tree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prepared: Vec<String>,
    /// The game's `WhiteAccount` and `BlackAccount` tags, for a club's server to tell
    /// whose games an account plays (not printed).
    #[serde(skip)]
    pub account_tags: [Option<String>; 2],
}

/// `ravenpost status`: every game at the tip, from the game files (the clock also needs
/// the game's creation time, and the commit times of plies that carry no time of their own).
///
/// # Errors
/// The archive's errors.
pub fn status(archive: &Archive, session: &Session) -> Result<Vec<StatusLine>, Failure> {
    status_where(archive, session, |_| true)
}

/// [`status`] of the games whose id `keep` accepts: only those are read (a shell's
/// completion of `club-2027-r0` reads the games it may offer, not the whole archive).
///
/// # Errors
/// The archive's errors.
pub fn status_where(
    archive: &Archive,
    session: &Session,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<StatusLine>, Failure> {
    let mut out = Vec::new();
    let tip = archive.tip()?;
    let now = session.now().unix_seconds();
    let index = archive.index()?;
    let mut cache = archive.verdict_cache(STANDINGS);
    // Read when a standing is not cached: the definitions a game pinning one replays with.
    let mut definitions = None;
    for g in archive.list_games()?.into_iter().filter(|g| keep(g.id())) {
        let file = g.path();
        // The standing after the commit that last changed the file never changes: cached.
        let last = index.last_version(&file).map(|v| v.commit);
        let cached =
            last.and_then(|c| cache.get(c, &file)).and_then(|s| serde_json::from_str::<Standing>(&s).ok());
        let standing = match cached {
            Some(s) => s,
            None => {
                let definitions = match &definitions {
                    Some(d) => d,
                    None => definitions.insert(super::definitions::at(archive, tip)?),
                };
                let (standing, lasting) = standing_of(archive, &index, tip, &g, definitions);
                if let (true, Some(c)) = (lasting, last) {
                    cache.put(c, &file, serde_json::to_string(&standing).expect("a standing serialises"));
                }
                standing
            }
        };
        let clock = match (standing.deadline, &standing.to_move) {
            (Some(d), Some(player)) => Some(Clock {
                player: player.clone(),
                deadline: d,
                seconds_left: d.timestamp() - now,
                overdue: now > d.timestamp(),
            }),
            _ => None,
        };
        let prepared = super::conditional::prepared_owners(archive, g.id(), &standing.white, &standing.black);
        out.push(StatusLine {
            id: g.id().to_string(),
            variant: g.variant().to_string(),
            white: standing.white,
            black: standing.black,
            ply: standing.ply,
            to_move: standing.to_move,
            side_to_move: standing.side_to_move,
            result: standing.result,
            ending: Some(standing.ending).filter(|e| !e.is_empty()),
            draw_offer: standing.draw_offer,
            clock,
            prepared,
            problem: standing.problem,
            army_choice: None,
            account_tags: standing.accounts,
        });
    }
    // The cache only saves work; failing to write it changes no answer.
    let _ = cache.save();
    let started: Vec<String> = out.iter().map(|l| l.id.clone()).collect();
    let layout = archive.layout()?;
    for id in archive.list_army_choices()? {
        if started.contains(&id) {
            continue;
        }
        let text = match tip {
            Some(t) => archive.read_file_at(t, &ArmyChoice::path(layout, &id))?.unwrap_or_default(),
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
            ending: None,
            draw_offer: None,
            clock: None,
            problem: choice.as_ref().err().cloned(),
            army_choice: choice.as_ref().ok().map(|c| c.waiting_for()),
            prepared: Vec::new(),
            account_tags: [Side::White, Side::Black].map(|s| {
                choice
                    .as_ref()
                    .ok()
                    .and_then(|c| c.tags.get(crate::referee::players::account_tag(s)).cloned())
            }),
        });
    }
    Ok(out)
}

/// The namespace of the cache of games' standings (`status`), by this release.
const STANDINGS: &str = concat!("standings-", env!("CARGO_PKG_VERSION"), "-2");

/// A game's `status` line as the version of its file at the tip makes it: everything but
/// the time left, which depends on the time asked. A function of the file's history up
/// to the commit that last changed it, so it is cached by that commit.
#[derive(Debug, Serialize, Deserialize)]
struct Standing {
    white: String,
    black: String,
    ply: usize,
    to_move: Option<String>,
    side_to_move: Option<String>,
    result: String,
    /// How a finished game ended (empty while it goes on). Not optional: a standing
    /// cached by an earlier release, without it, does not read and is worked out again.
    ending: String,
    draw_offer: Option<String>,
    /// The deadline of the player to move, when a clock runs.
    deadline: Option<crate::referee::Time>,
    problem: Option<String>,
    /// The `WhiteAccount` and `BlackAccount` tags.
    #[serde(default)]
    accounts: [Option<String>; 2],
}

/// The standing of the game at `path` at the tip, and whether it may be cached (not when
/// the archive could not be read).
fn standing_of(
    archive: &Archive,
    index: &HistoryIndex,
    tip: Option<CommitId>,
    g: &GamePath,
    definitions: &Definitions,
) -> (Standing, bool) {
    let text = match tip {
        Some(t) => archive.read_file_at(t, &g.path()).map(Option::unwrap_or_default),
        None => Ok(String::new()),
    };
    let unreadable = |problem: String| Standing {
        white: String::new(),
        black: String::new(),
        ply: 0,
        to_move: None,
        side_to_move: None,
        result: "?".into(),
        ending: String::new(),
        draw_offer: None,
        deadline: None,
        problem: Some(problem),
        accounts: [None, None],
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return (unreadable(e.to_string()), false),
    };
    let game = match load(definitions, &text) {
        Ok(g) => g,
        Err(e) => return (unreadable(e.to_string()), true),
    };
    let result = result_of(&game);
    let side = game.position().side_to_move();
    let going = result == "*";
    // The deadline does not depend on the time asked (only the time left does).
    let (deadline, lasting) = if going {
        match clock_with_index(archive, index, g, &game, 0) {
            Ok(c) => (c.map(|c| c.deadline), true),
            Err(_) => (None, false),
        }
    } else {
        (None, true)
    };
    let standing = Standing {
        white: record::player(&game, Side::White),
        black: record::player(&game, Side::Black),
        ply: game.moves.len(),
        to_move: going.then(|| record::player(&game, side)),
        side_to_move: going.then(|| game.variant.def().side_name(side).to_string()),
        ending: if going { String::new() } else { record::ending(&game) },
        result,
        draw_offer: record::pending_offer(&game),
        deadline,
        problem: None,
        accounts: [Side::White, Side::Black]
            .map(|s| game.text.tag(crate::referee::players::account_tag(s)).map(str::to_string)),
    };
    (standing, lasting)
}

/// One line of `ravenpost log`, and what `verify` checks per commit.
#[derive(Debug, Clone, Serialize)]
pub struct LogLine {
    /// Short commit id (12 hex digits).
    pub commit: String,
    /// The full commit hash (40 hex digits), for scripts that pass it to git.
    #[serde(default)]
    pub hash: String,
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
    /// In a shallow clone, at the boundary commit (the oldest the clone has): how many
    /// plies the game had there, played before it and not checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shallow_boundary: Option<usize>,
    /// Whether the move was a prepared reply, played from its player's conditional tree
    /// (the record's `{ravenpost: prepared}` note).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub prepared: bool,
    /// For a move with which the rules ended the game: the result (`1-0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// For a move with which the rules ended the game: why, in words (`bare king`,
    /// `counting rule`), from the referee's typed verdict ([`crate::referee::Ended`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
            hash: v.commit.hex(),
            author: v.author_name.clone(),
            time: v.time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default(),
            what,
            ply: step.as_ref().map(|s| s.0),
            san: step.map(|s| s.1),
            problem: problem.as_ref().map(ToString::to_string),
            shallow_boundary: None,
            prepared: false,
            result: None,
            reason: None,
        }
    }
}

/// The namespace of the verdict cache: verdicts of this release's rules (a new release
/// judges everything again). `-3`: a verdict holds how the rules ended the game
/// ([`Cached::end`]); the `-2` verdicts of earlier builds have no such field, and read as
/// if no move had ended a game, so they are not read (each commit is judged again once).
const VERDICTS: &str = concat!("referee-", env!("CARGO_PKG_VERSION"), "-3");

/// `verify` writes the verdicts of this many judged games at once.
const SAVE_EVERY: usize = 256;

/// The namespace of the per-game cache of `verify`: a game's problems, keyed by its latest
/// version, so that verifying an unchanged game reads one entry, not one per commit.
const GAME_VERDICTS: &str = concat!("referee-", env!("CARGO_PKG_VERSION"), "-2-games");

/// A judged version as the verdict cache keeps it.
#[derive(Debug, Serialize, Deserialize)]
struct Cached {
    what: String,
    ply: Option<usize>,
    san: Option<String>,
    problem: Option<Problem>,
    /// How the rules ended the game with the move, if they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    end: Option<Ended>,
}

impl LogLine {
    fn from_cached(c: &IndexedCommit, v: Cached) -> LogLine {
        LogLine {
            commit: c.commit.short(),
            hash: c.commit.hex(),
            author: c.author_name.to_string(),
            time: c.time.to_datetime().map(|d| d.to_rfc3339()).unwrap_or_default(),
            what: v.what,
            ply: v.ply,
            san: v.san,
            problem: v.problem.as_ref().map(ToString::to_string),
            shallow_boundary: None,
            prepared: false,
            result: v.end.as_ref().map(|e| e.result.clone()),
            reason: v.end.as_ref().map(|e| e.reason.to_string()),
        }
    }
}

/// The version before the one being judged: its blob, and once needed its text and the
/// game it replays to (or why it does not read).
struct Before {
    blob: crate::archive::BlobId,
    /// Its text, once read.
    text: Option<String>,
    /// The game its text replays to (or why it does not read), once known: not for a
    /// verdict from the cache, nor for a step of a [`Growth`] (which holds no game of it).
    game: Option<Result<Game, String>>,
}

/// The verdict kept for a judged step (or its problem).
fn step_line(verdict: Result<&Step, &Problem>) -> Cached {
    match verdict {
        Ok(Step::Created) => {
            Cached { what: "created".into(), ply: None, san: None, problem: None, end: None }
        }
        Ok(Step::Moved { ply, san, end, .. }) => Cached {
            what: format!("ply {ply} {san}"),
            ply: Some(*ply),
            san: Some(san.clone()),
            problem: None,
            end: end.clone(),
        },
        Ok(Step::Recorded { result, summary, .. }) => {
            Cached { what: format!("{summary} ({result})"), ply: None, san: None, problem: None, end: None }
        }
        Err(p) => {
            Cached { what: "invalid".into(), ply: None, san: None, problem: Some(p.clone()), end: None }
        }
    }
}

/// For each version, the last version of the run it is in, given what each version was
/// cut from and how many moves it keeps ([`VersionSource::Cut`]): a run is versions cut
/// from one text, each with one move more than the one before. `None` for no cut.
fn run_tops(cuts: &[Option<(BlobId, usize)>]) -> Vec<Option<usize>> {
    let mut tops = vec![None; cuts.len()];
    for i in (0..cuts.len()).rev() {
        let Some((of, moves)) = cuts[i] else { continue };
        tops[i] = match cuts.get(i + 1).copied().flatten() {
            Some((next_of, next_moves)) if next_of == of && next_moves == moves + 1 => tops[i + 1],
            _ => Some(i),
        };
    }
    tops
}

/// Adds the line of a judged version, and its verdict for the cache unless it may depend
/// on the machine (a bad signature may mean no ssh-keygen: judged again next time).
fn push_verdict(
    out: &mut Vec<LogLine>,
    judged: &mut Vec<(CommitId, String)>,
    c: &IndexedCommit,
    line: Cached,
) {
    if !matches!(line.problem, Some(Problem::BadSignature { .. })) {
        judged.push((c.commit, serde_json::to_string(&line).expect("a verdict serialises")));
    }
    out.push(LogLine::from_cached(c, line));
}

/// Judges each version of the game file `path`, oldest first, from the history `index`:
/// verdicts already in `cache` are taken from it (no blob is read for them); each other
/// version is replayed once, the game before it reused from the step before. Versions cut
/// from one later text (most of a game written by ravenpost) are judged from one replay of
/// the last of them ([`Growth`]).
/// Returns the lines and the verdicts to add to the cache (commit, verdict), oldest first.
fn judge_game_path(
    archive: &Archive,
    index: &HistoryIndex,
    path: &GamePath,
    cache: &VerdictCache,
    definitions: &Definitions,
) -> JudgedGame {
    let file = path.path();
    // Across a migration to the fan-out: the versions at the flat path first.
    let (versions, commits): (Vec<PathVersion>, Vec<Option<IndexedCommit>>) =
        super::layout::game_version_commits(index, path).into_iter().map(|(v, c)| (v, Some(c))).unzip();
    let versions: &[PathVersion] = &versions;
    let (in_cache, hits) = cached_verdicts(versions, cache, &file);
    let (texts, cuts) = read_uncached(archive, versions, &hits, &file)?;
    let tops = run_tops(&cuts);
    let mut judging = PathJudging {
        archive,
        definitions,
        index,
        path,
        file: &file,
        versions,
        commits,
        texts,
        cuts,
        tops,
        growth: None,
        no_growth: None,
        out: Vec::with_capacity(versions.len()),
        judged: Vec::new(),
        before: None,
    };
    for (i, (v, hit)) in versions.iter().zip(hits).enumerate() {
        judging.version(i, v, hit)?;
    }
    let PathJudging { out, judged, .. } = judging;
    // Judged verdicts are in the order of the versions.
    let mut next = judged.iter().map(|(c, _)| *c).peekable();
    let all_kept = versions.iter().zip(&in_cache).all(|(v, cached)| {
        let now = next.next_if_eq(&v.commit).is_some();
        *cached || now
    });
    Ok(Judged { lines: out, verdicts: judged, all_kept })
}

/// For each version, whether `cache` holds its verdict (readable or not), and the verdict
/// (`None` for none, or one that does not read).
fn cached_verdicts(
    versions: &[PathVersion],
    cache: &VerdictCache,
    file: &str,
) -> (Vec<bool>, Vec<Option<Cached>>) {
    // One read of the path's verdicts, not one per version.
    let mut all = cache.for_path(file);
    versions
        .iter()
        .map(|v| {
            let got = all.remove(&v.commit);
            (got.is_some(), got.and_then(|s| serde_json::from_str::<Cached>(&s).ok()))
        })
        .unzip()
}

/// The texts a judging of `versions` of `file` will read, all in one batch: every version
/// without a verdict in `hits`, and the version before it when that one's verdict came
/// from the cache. Returns them by blob, with what each version was cut from ([`Cuts`]).
///
/// # Errors
/// The archive's errors.
fn read_uncached(
    archive: &Archive,
    versions: &[PathVersion],
    hits: &[Option<Cached>],
    file: &str,
) -> Result<(HashMap<BlobId, Vec<u8>>, Cuts), ArchiveError> {
    // A submodule's entry names a commit, not a blob: there is no text to read (the
    // version is judged from its mode alone).
    let text = |v: &PathVersion| v.blob.filter(|_| v.mode & 0o170_000 != 0o160_000);
    let mut wanted = Vec::new();
    for (i, v) in versions.iter().enumerate() {
        if let (Some(blob), None) = (text(v), &hits[i]) {
            if let Some(prev) =
                i.checked_sub(1).filter(|&p| hits[p].is_some()).and_then(|p| text(&versions[p]))
            {
                wanted.push(prev);
            }
            wanted.push(blob);
        }
    }
    wanted.dedup();
    let mut texts: HashMap<BlobId, Vec<u8>> = HashMap::with_capacity(wanted.len());
    let mut sources: HashMap<BlobId, VersionSource> = HashMap::with_capacity(wanted.len());
    for (blob, (text, source)) in wanted.iter().copied().zip(archive.read_versions_traced(
        &wanted,
        file,
        crate::notation::pgn::move_ends,
    )?) {
        texts.insert(blob, text);
        sources.insert(blob, source);
    }
    let cuts: Cuts = versions
        .iter()
        .map(|v| match v.blob.and_then(|b| sources.get(&b)) {
            Some(VersionSource::Cut { of, moves }) => Some((*of, *moves)),
            _ => None,
        })
        .collect();
    Ok((texts, cuts))
}

/// For each version, what it was cut from and how many moves it keeps
/// ([`VersionSource::Cut`]); `None` for no cut, or a text not read.
type Cuts = Vec<Option<(BlobId, usize)>>;

/// The version before one: its game (or why it does not read) and its text.
type Previous = (Result<Game, String>, String);

/// The judging of one game file's versions, oldest first ([`judge_game_path`]): what is
/// carried from one version to the next.
struct PathJudging<'a> {
    archive: &'a Archive,
    /// The user definitions the archive's history holds, for pinned games.
    definitions: &'a Definitions,
    index: &'a HistoryIndex,
    path: &'a GamePath,
    file: &'a str,
    versions: &'a [PathVersion],
    /// The commit of each version, read at once, each taken out when judged.
    commits: Vec<Option<IndexedCommit>>,
    /// The texts read in one batch, by blob, each taken out when used.
    texts: HashMap<BlobId, Vec<u8>>,
    /// What each version was cut from ([`read_uncached`]).
    cuts: Cuts,
    /// The last version of each version's run ([`run_tops`]).
    tops: Vec<Option<usize>>,
    /// The growth of the run being judged (the index of its last version).
    growth: Option<(usize, Growth)>,
    /// The last version of a run whose growth could not be built.
    no_growth: Option<usize>,
    /// One line per version judged so far.
    out: Vec<LogLine>,
    /// The verdicts to add to the cache (commit, verdict).
    judged: Vec<(CommitId, String)>,
    /// The version before the next one, unless it was deleted or no game.
    before: Option<Before>,
}

impl PathJudging<'_> {
    /// The text of `blob`: from the batch read, else read now.
    ///
    /// # Errors
    /// The archive's errors; [`ArchiveError::NotText`] for a text that is not UTF-8.
    fn text_of(&mut self, blob: BlobId) -> Result<String, ArchiveError> {
        match self.texts.remove(&blob) {
            Some(bytes) => String::from_utf8(bytes)
                .map_err(|_| ArchiveError::NotText { path: self.file.to_string(), oid: blob.to_string() }),
            None => self.archive.read_blob_text(blob, self.file),
        }
    }

    /// Adds the line of version `i` (`v`), taken from `hit` if the cache holds its verdict,
    /// else judged.
    ///
    /// # Errors
    /// The archive's errors.
    fn version(&mut self, i: usize, v: &PathVersion, hit: Option<Cached>) -> Result<(), Failure> {
        let c = &match self.commits[i].take() {
            Some(c) => c,
            None => self.index.commit_at(v.position),
        };
        let Some(blob) = v.blob else {
            let line = Cached {
                what: "deleted".into(),
                ply: None,
                san: None,
                problem: Some(Problem::GameDeleted),
                end: None,
            };
            self.out.push(LogLine::from_cached(c, line));
            self.before = None;
            return Ok(());
        };
        if self.before.is_none() && self.index.shallow() == Some(v.commit) {
            return self.shallow_boundary(c, blob);
        }
        if let Some(hit) = hit {
            self.out.push(LogLine::from_cached(c, hit));
            self.before = Some(Before { blob, text: None, game: None });
            return Ok(());
        }
        // The entry's mode is in the index: a symbolic link or submodule is no game.
        if let Some(problem) = crate::referee::layout::entry_problem(self.file, v.mode) {
            let line =
                Cached { what: "invalid".into(), ply: None, san: None, problem: Some(problem), end: None };
            self.judged.push((v.commit, serde_json::to_string(&line).expect("a verdict serialises")));
            self.out.push(LogLine::from_cached(c, line));
            self.before = None;
            return Ok(());
        }
        let text = match self.text_of(blob) {
            Ok(t) => t,
            Err(ArchiveError::NotText { .. }) => {
                let line = Cached {
                    what: "invalid".into(),
                    ply: None,
                    san: None,
                    problem: Some(Problem::NotText),
                    end: None,
                };
                self.out.push(LogLine::from_cached(c, line));
                self.before = None;
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        self.judge_text(i, v, c, blob, text)
    }

    /// Adds the line of a shallow clone's boundary (`c`, the version `blob`): the oldest
    /// version there is, taken as given (the commits before it are not in the clone);
    /// never cached, so that it is judged once the history is fetched.
    ///
    /// # Errors
    /// The archive's errors.
    fn shallow_boundary(&mut self, c: &IndexedCommit, blob: BlobId) -> Result<(), Failure> {
        let text = self.archive.read_blob_text(blob, self.file)?;
        let game = load(self.definitions, &text).map_err(|e| e.to_string());
        let plies = game.as_ref().map_or(0, |g| g.moves.len());
        let what = format!("history starts here (shallow clone): {plies} plies before it not checked");
        let mut line =
            LogLine::from_cached(c, Cached { what, ply: None, san: None, problem: None, end: None });
        line.shallow_boundary = Some(plies);
        self.out.push(line);
        self.before = Some(Before { blob, text: Some(text), game: Some(game) });
        Ok(())
    }

    /// Judges version `i` (`v`, the version `blob` committed by `c`), whose text is `text`,
    /// and adds its line: as a step within its run of cut versions when it can be, else
    /// from the version before.
    ///
    /// # Errors
    /// The archive's errors.
    fn judge_text(
        &mut self,
        i: usize,
        v: &PathVersion,
        c: &IndexedCommit,
        blob: BlobId,
        text: String,
    ) -> Result<(), Failure> {
        let (archive, file) = (self.archive, self.file);
        let evidence = CommitEvidence {
            archive,
            commit: v.commit,
            earlier: || match c.parent {
                Some(parent) => super::layout::followed_history(archive, file, Some(parent)),
                None => Ok(Vec::new()),
            },
            located: Some((self.index, v.position)),
        };
        let info = CommitInfo { author: &c.author_name, time: c.time.unix_seconds() };
        if let Some(verdict) = self.grown_verdict(i, &evidence, info, &text)? {
            push_verdict(&mut self.out, &mut self.judged, c, step_line(verdict.as_ref()));
            self.before = Some(Before { blob, text: Some(text), game: None });
            return Ok(());
        }
        let verdict: GameVerdict = match &self.take_previous(i)? {
            Some((Err(why), _)) => Err(Problem::PreviousUnreadable { why: why.clone() }),
            Some((Ok(g), t)) => judge::judge_game_version(
                &evidence,
                self.path,
                info,
                Some((g, t.as_str())),
                &text,
                self.definitions,
            )?,
            None => judge::judge_game_version(&evidence, self.path, info, None, &text, self.definitions)?,
        };
        push_verdict(&mut self.out, &mut self.judged, c, step_line(verdict.as_ref().map(|(s, _)| s)));
        // A version that is not a legal step is still what the next one follows.
        let game = match verdict {
            Ok((_, game)) => Ok(game),
            Err(_) => load(self.definitions, &text).map_err(|e| e.to_string()),
        };
        self.before = Some(Before { blob, text: Some(text), game: Some(game) });
        Ok(())
    }

    /// The verdict on version `i` (whose text is `text`) as a step within its run of cut
    /// versions, from the version before in the same run, through the run's [`Growth`]
    /// (built from the run's last text on its first step). `None` for a version that is no
    /// such step, or one the growth does not judge.
    ///
    /// # Errors
    /// The evidence's errors.
    fn grown_verdict<E: Evidence>(
        &mut self,
        i: usize,
        evidence: &E,
        info: CommitInfo<'_>,
        text: &str,
    ) -> Result<Option<Result<Step, Problem>>, E::Error> {
        let top = self.tops[i].filter(|&top| {
            i > 0
                && self.tops[i - 1] == Some(top)
                && self.no_growth != Some(top)
                && self.before.as_ref().is_some_and(|b| Some(b.blob) == self.versions[i - 1].blob)
        });
        let (Some(top), Some((_, plies))) = (top, i.checked_sub(1).and_then(|p| self.cuts[p])) else {
            return Ok(None);
        };
        if self.growth.as_ref().is_none_or(|(t, g)| *t != top || g.plies() != plies) {
            let top_text = if top == i {
                Some(text)
            } else {
                self.versions[top]
                    .blob
                    .and_then(|b| self.texts.get(&b))
                    .and_then(|t| std::str::from_utf8(t).ok())
            };
            self.growth = top_text.and_then(|t| Growth::new(t, plies)).map(|g| (top, g));
            if self.growth.is_none() {
                self.no_growth = Some(top);
            }
        }
        match self.growth.as_mut() {
            Some((_, g)) => judge::judge_grown_version(evidence, g, info, text),
            None => Ok(None),
        }
    }

    /// The version before version `i`, taken out of `before`: its game (or why it does not
    /// read) and its text; `None` when there is none to follow.
    ///
    /// # Errors
    /// The archive's errors.
    fn take_previous(&mut self, i: usize) -> Result<Option<Previous>, ArchiveError> {
        let Some(Before { blob, text, game }) = self.before.take() else { return Ok(None) };
        let old = match text {
            Some(t) => t,
            None => self.text_of(blob)?,
        };
        let game = match (game, self.growth.take()) {
            (Some(game), kept) => {
                self.growth = kept;
                game
            }
            // The last version of a run: its growth holds its game.
            (None, Some((top, g))) if top + 1 == i && g.plies() == g.game().moves.len() => Ok(g.into_game()),
            (None, kept) => {
                self.growth = kept;
                load(self.definitions, &old).map_err(|e| e.to_string())
            }
        };
        Ok(Some((game, old)))
    }
}

/// The history of one game, each commit judged (`log` shows it, `verify` judges it).
///
/// # Errors
/// The archive's errors.
pub fn history(archive: &Archive, path: &GamePath) -> Result<Vec<LogLine>, Failure> {
    let index = archive.index()?;
    prefetch(archive, &index, std::slice::from_ref(path))?;
    let definitions = super::definitions::history(archive, &index)?;
    let mut cache = archive.verdict_cache(VERDICTS);
    let Judged { mut lines, verdicts, .. } = judge_game_path(archive, &index, path, &cache, &definitions)?;
    let file = path.path();
    for (commit, verdict) in verdicts {
        cache.put(commit, &file, verdict);
    }
    // The cache only saves work; failing to write it changes no verdict.
    let _ = cache.save();
    // Prepared replies are noted in the record (earlier plies never change): one read.
    if lines.iter().any(|l| l.ply.is_some())
        && let Some(game) = archive.read_file(&path.path())?.and_then(|t| load(&definitions, &t).ok())
    {
        for l in &mut lines {
            l.prepared = l.ply.is_some_and(|p| record::is_prepared(&game.text, p));
        }
    }
    Ok(lines)
}

/// The history of a choice file, each version checked: one [`LogLine`] per commit, as
/// `log` shows them and `verify` judges them.
///
/// # Errors
/// The archive's errors.
pub fn choice_history(archive: &Archive, id: &str) -> Result<Vec<LogLine>, Failure> {
    choice_history_from(archive, id, archive.index()?.shallow())
}

/// [`choice_history`], the history starting at `shallow` (a shallow clone's boundary).
fn choice_history_from(
    archive: &Archive,
    id: &str,
    shallow: Option<CommitId>,
) -> Result<Vec<LogLine>, Failure> {
    let mut out = Vec::new();
    let mut prev: Option<String> = None;
    let path = ArmyChoice::path(archive.layout()?, id);
    for v in super::layout::followed_history(archive, &path, None)? {
        if prev.is_none() && shallow == Some(v.commit) {
            // A shallow clone's boundary: the oldest version there is, taken as given (the
            // commits before it are not in the clone), as for a game.
            out.push(LogLine::new(&v, "history starts here (shallow clone)".into(), None, None));
            prev = v.contents;
            continue;
        }
        let evidence =
            CommitEvidence { archive, commit: v.commit, earlier: || Ok(Vec::new()), located: None };
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

/// `ravenpost verify [GAME]`: judges every commit of the game (or of every game and army
/// choice, and reports deleted records). `progress` is told each game as it is done.
///
/// The whole archive's report is kept in the verdict cache, keyed by the tip it describes:
/// after a few new commits that change only game and army choice files, the report is that
/// one with those files judged again (the same answers as a full check, which is what any
/// other change, or a shallow clone, gets).
///
/// # Errors
/// The archive's errors; an unknown game.
pub fn verify(
    archive: &Archive,
    game: Option<&str>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<VerifyReport, Failure> {
    let index = archive.index()?;
    let Some(_) = game else { return verify_archive(archive, &index, progress) };
    let definitions = super::definitions::history(archive, &index)?;
    let g = game.unwrap_or_default();
    let has_choice = archive.has_army_choice(g)?;
    let games = match super::games::find(archive, g) {
        Ok(p) => vec![p],
        // A Fantasy Grand game still choosing its armies has no game file yet.
        Err(_) if has_choice => Vec::new(),
        Err(e) => return Err(e),
    };
    let (per_game, unchecked) = judge_all(archive, &index, &definitions, &games, progress)?;
    let mut problems: Vec<VerifyProblem> = per_game.into_iter().flatten().collect();
    if has_choice {
        problems.extend(choice_problems(archive, g, index.shallow())?);
    }
    Ok(VerifyReport { games: games.len(), problems, shallow: shallow_boundary(&index, unchecked) })
}

/// At most this many new commits are judged on top of a kept report; more, and the whole
/// archive is checked (each game's own caches still spare the work).
const REPORT_STEPS: usize = 512;

/// `verify` of the whole archive: from the kept report ([`KeptReport`]) when the tip moved
/// by a few commits to game and army choice files only, else in full; the report is kept
/// for the next.
fn verify_archive(
    archive: &Archive,
    index: &HistoryIndex,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<VerifyReport, Failure> {
    let Some(tip) = index.tip() else {
        return Ok(VerifyReport { games: 0, problems: Vec::new(), shallow: None });
    };
    let mut kept = KeptReport::new(archive.verdict_cache(KeptReport::NAMESPACE));
    let head = match index.shallow() {
        Some(_) => None,
        None => kept.head(),
    };
    if let Some(head) = head {
        if head.tip == tip.to_string()
            && let Some(report) = kept.report()
        {
            progress(report.games, report.games);
            return Ok(report);
        }
        if let Some(head) = update_report(archive, index, &mut kept, head, progress)? {
            kept.save(&head);
            if let Some(report) = kept.report() {
                return Ok(report);
            }
        }
    }
    let definitions = super::definitions::history(archive, index)?;
    let games = archive.list_games()?;
    let (per_game, unchecked) = judge_all(archive, index, &definitions, &games, progress)?;
    let mut choices = Vec::new();
    for id in archive.list_army_choices()? {
        let found = choice_problems(archive, &id, index.shallow())?;
        choices.push((id, found));
    }
    // Where the records are; a migration's deletions and settings change are its own.
    let (layout, migrations) = super::layout::layout_problems(archive, index, &games)?;
    // A settings change's own settings file is judged as one (`archive settings`).
    let settings = super::settings::settings_changes(archive, index)?;
    let judged: Vec<usize> = migrations.iter().copied().chain(settings.iter().map(|(p, _)| *p)).collect();
    let mut rest = unallowed_paths(index, &judged);
    for (position, findings) in settings {
        let c = index.commit_at(position);
        rest.extend(findings.into_iter().map(|f| VerifyProblem {
            game: f.subject,
            commit: c.commit.short(),
            author: c.author_name.to_string(),
            problem: f.problem.to_string(),
        }));
    }
    rest.extend(layout);
    rest.extend(super::definitions::changed_definitions(archive, index)?);
    rest.extend(verify_tournaments(archive, index)?);
    let head =
        Head { tip: tip.to_string(), games: games.len(), deletions: deletions(index, &migrations), rest };
    let report = VerifyReport {
        games: games.len(),
        problems: (per_game.iter().flatten().cloned())
            .chain(choices.iter().flat_map(|(_, p)| p.iter().cloned()))
            .chain(head.deletions.iter().cloned())
            .chain(head.rest.iter().cloned())
            .collect(),
        shallow: shallow_boundary(index, unchecked),
    };
    if report.shallow.is_none() {
        kept.clear();
        for (g, problems) in games.iter().zip(&per_game) {
            kept.set(&Row::Game(&g.path()), problems);
        }
        for (id, problems) in &choices {
            kept.set(&Row::Choice(id), problems);
        }
        kept.save(&head);
    }
    Ok(report)
}

/// The kept report brought to the tip of `index`, judging again the game and army choice
/// files the new commits changed (their rows set in `kept`, the new head returned);
/// `None` when it cannot be (the kept tip is not on the line, too many commits, or a
/// change to another kind of file): then the whole archive is checked.
fn update_report(
    archive: &Archive,
    index: &HistoryIndex,
    kept: &mut KeptReport,
    mut head: Head,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Option<Head>, Failure> {
    use crate::referee::layout::{PathKind, classify};
    let Some(from) = head.tip.parse::<CommitId>().ok().and_then(|t| index.position(t).map(|p| (t, p))) else {
        return Ok(None);
    };
    if index.len() - from.1 - 1 > REPORT_STEPS {
        return Ok(None);
    }
    let mut games = std::collections::BTreeSet::new();
    let mut choices = std::collections::BTreeSet::new();
    let mut choice_layouts = Vec::new();
    for c in index.since(Some(from.0)) {
        for ch in &c.changes {
            match classify(&ch.path) {
                PathKind::Game(g) => {
                    games.insert(g);
                }
                PathKind::ArmyChoice(id) => {
                    if let Some((l, _)) = crate::referee::layout::parse_army_choice_path(&ch.path) {
                        choice_layouts.push(l);
                    }
                    choices.insert(id);
                }
                PathKind::Allowed => {}
                _ => return Ok(None),
            }
        }
    }
    // A change to many games at once, or a record written in a layout the archive does
    // not use (the layout checks read the whole archive): checked in full.
    let layout = archive.layout()?;
    if games.len() > REPORT_STEPS
        || games.iter().any(|g| g.layout() != layout)
        || choice_layouts.iter().any(|l| *l != layout)
    {
        return Ok(None);
    }
    // Whether a record is at `path` in the tree of the commit at `position`.
    let present = |path: &str, position: usize| {
        (index.versions(path).iter().rev().find(|v| v.position <= position))
            .is_some_and(|v| v.blob.is_some() && v.mode != 0o160_000)
    };
    let tip = index.len() - 1;
    let changed: Vec<GamePath> = games.iter().filter(|g| present(&g.path(), tip)).cloned().collect();
    let definitions = super::definitions::history(archive, index)?;
    let (per_game, unchecked) = judge_all(archive, index, &definitions, &changed, progress)?;
    if !unchecked.is_empty() {
        return Ok(None);
    }
    let mut judged: HashMap<String, Vec<VerifyProblem>> =
        changed.iter().map(GamePath::path).zip(per_game).collect();
    for g in &games {
        let path = g.path();
        let (before, now) = (present(&path, from.1), present(&path, tip));
        head.games = (head.games + usize::from(now)).saturating_sub(usize::from(before));
        kept.set(&Row::Game(&path), &judged.remove(&path).unwrap_or_default());
    }
    for id in &choices {
        let problems = if present(&ArmyChoice::path(layout, id), tip) {
            choice_problems(archive, id, None)?
        } else {
            Vec::new()
        };
        kept.set(&Row::Choice(id), &problems);
    }
    // Deletions made by the new commits, in history order.
    let mut new_deletions = Vec::new();
    let paths: Vec<String> = games
        .iter()
        .map(GamePath::path)
        .chain(choices.iter().map(|id| ArmyChoice::path(layout, id)))
        .collect();
    for path in &paths {
        for v in index.versions(path).iter().filter(|v| v.blob.is_none() && v.position > from.1) {
            new_deletions.push((v.position, path.clone(), deletion_problem(index, v.position, path)));
        }
    }
    new_deletions.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    head.deletions.extend(new_deletions.into_iter().map(|(_, _, p)| p));
    head.tip = index.tip().map(|t| t.to_string()).unwrap_or_default();
    Ok(Some(head))
}

/// Each game's problems, and the games a shallow clone's boundary cuts (id, plies before it).
type JudgedGames = (Vec<Vec<VerifyProblem>>, Vec<(String, usize)>);

/// Each game's problems (in the order of `games`) and the games a shallow clone's boundary
/// cuts (with the plies before it), judging only the games changed since their last check.
fn judge_all(
    archive: &Archive,
    index: &HistoryIndex,
    definitions: &Definitions,
    games: &[GamePath],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<JudgedGames, Failure> {
    let total = games.len();
    prefetch(archive, index, games)?;
    // A game whose latest version was verified before: its problems, as found then.
    let mut summaries = archive.verdict_cache(GAME_VERDICTS);
    let known: Vec<Option<Vec<VerifyProblem>>> = games
        .iter()
        .map(|g| {
            let file = g.path();
            let last = index.last_version(&file).map(|v| v.commit)?;
            summaries.get(last, &file).and_then(|s| serde_json::from_str::<Vec<VerifyProblem>>(&s).ok())
        })
        .collect();
    let pending: Vec<usize> = (0..games.len()).filter(|&k| known[k].is_none()).collect();
    let mut done = games.len() - pending.len();
    if done > 0 {
        progress(done, total);
    }
    let mut unchecked = Vec::new();
    // The verdicts per commit are read only when a game has changed since it was verified.
    let per_commit = (!pending.is_empty()).then(|| archive.verdict_cache(VERDICTS));
    // The new verdicts, written every few games (memory stays bounded on any archive).
    let mut writer = (!pending.is_empty()).then(|| archive.verdict_cache(VERDICTS));
    let mut unsaved = 0;
    // Each game's problems, in the order of `games`; a judged game's are found, and its
    // verdicts written for the cache, as soon as it is judged (while others are judged).
    let mut found_in: Vec<Option<Result<Vec<VerifyProblem>, Failure>>> =
        (0..games.len()).map(|_| None).collect();
    if let Some(cache) = per_commit.as_ref() {
        judge_games(archive, index, games, &pending, cache, definitions, &mut |k, result| {
            let g = &games[k];
            found_in[k] = Some(result.map(|judged| {
                let file = g.path();
                if let Some(w) = writer.as_mut() {
                    let mut lines = VerdictLines::default();
                    for (commit, verdict) in &judged.verdicts {
                        lines.put(*commit, &file, verdict);
                    }
                    w.append(lines);
                    unsaved += 1;
                    if unsaved >= SAVE_EVERY {
                        let _ = w.save();
                        unsaved = 0;
                    }
                }
                if let Some(plies) = judged.lines.first().and_then(|l| l.shallow_boundary) {
                    unchecked.push((k, plies));
                }
                let found = problems_of(g.id(), judged.lines);
                // Not kept: a game with a verdict that depends on the machine (a signature
                // that could not be checked) or a shallow boundary.
                if let (Some(c), true) = (index.last_version(&file).map(|v| v.commit), judged.all_kept) {
                    summaries.put(c, &file, serde_json::to_string(&found).expect("problems serialise"));
                }
                found
            }));
            done += 1;
            progress(done, total);
        });
    }
    if let Some(w) = writer.as_mut() {
        let _ = w.save();
    }
    let _ = summaries.save();
    unchecked.sort_unstable();
    let unchecked: Vec<(String, usize)> =
        unchecked.into_iter().map(|(k, p)| (games[k].id().to_string(), p)).collect();
    let mut out = Vec::with_capacity(games.len());
    for ((g, known), found) in games.iter().zip(known).zip(found_in) {
        if let Some(known) = known {
            out.push(known);
            continue;
        }
        out.push(match found.expect("every pending game is judged") {
            Ok(found) => found,
            Err(e) => vec![VerifyProblem {
                game: g.id().to_string(),
                commit: String::new(),
                author: String::new(),
                problem: e.to_string(),
            }],
        });
    }
    Ok((out, unchecked))
}

/// The problems among the judged `lines` of game `id`, in a vector of their own size.
///
/// Not collected from `lines.into_iter()`: such a collect reuses the lines' buffer (a
/// game's worth of log lines) for the few problems, and `verify` keeps each game's
/// problems until the end, so a cold check of 30,000 games held some 650 MB of empty
/// buffers.
fn problems_of(id: &str, lines: Vec<LogLine>) -> Vec<VerifyProblem> {
    let mut found = Vec::new();
    for l in lines {
        if let Some(problem) = l.problem {
            found.push(VerifyProblem { game: id.to_string(), commit: l.commit, author: l.author, problem });
        }
    }
    found
}

/// The problems of army choice `id`'s history.
fn choice_problems(
    archive: &Archive,
    id: &str,
    shallow: Option<CommitId>,
) -> Result<Vec<VerifyProblem>, Failure> {
    let mut out = Vec::new();
    for l in choice_history_from(archive, id, shallow)? {
        if let Some(p) = l.problem {
            out.push(VerifyProblem { game: id.to_string(), commit: l.commit, author: l.author, problem: p });
        }
    }
    Ok(out)
}

/// In a shallow clone, its boundary and the games under way there.
fn shallow_boundary(index: &HistoryIndex, unchecked: Vec<(String, usize)>) -> Option<ShallowBoundary> {
    index.shallow().map(|cut| ShallowBoundary {
        commit: cut.short(),
        games: unchecked.into_iter().map(|(game, plies)| UncheckedGame { game, plies }).collect(),
    })
}

/// A game's lines judged, with the verdicts to add to the cache.
type JudgedGame = Result<Judged, Failure>;

/// A game's versions judged.
struct Judged {
    /// One line per version, oldest first.
    lines: Vec<LogLine>,
    /// The verdicts to add to the cache (commit, verdict), oldest first.
    verdicts: Vec<(CommitId, String)>,
    /// Whether every version's verdict is in the cache once `verdicts` are added: none
    /// depends on the machine (a signature that could not be checked) or is a shallow
    /// clone's boundary, a deletion or a file that is no text.
    all_kept: bool,
}

/// How many threads judge games at most (each reads blobs through its own git).
const MAX_JUDGES: usize = 4;

/// Judges the games `pending` (positions in `games`), telling `done` each game's result as
/// it is judged (in any order). Games are independent: with more than a few to judge and
/// more than one core, each thread judges games in its own opening of the repository.
fn judge_games(
    archive: &Archive,
    index: &HistoryIndex,
    games: &[GamePath],
    pending: &[usize],
    cache: &VerdictCache,
    definitions: &Definitions,
    done: &mut dyn FnMut(usize, JudgedGame),
) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_JUDGES);
    let extra: Vec<Archive> = if threads > 1 && pending.len() >= 4 * threads {
        (1..threads).map_while(|_| archive.reopen().ok()).collect()
    } else {
        Vec::new()
    };
    if extra.is_empty() {
        for &k in pending {
            done(k, judge_game_path(archive, index, &games[k], cache, definitions));
        }
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || pending.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)).copied();
    std::thread::scope(|scope| {
        let (send, receive) = std::sync::mpsc::channel::<(usize, JudgedGame)>();
        for mine in extra {
            let send = send.clone();
            let take = &take;
            scope.spawn(move || {
                while let Some(k) = take() {
                    if send.send((k, judge_game_path(&mine, index, &games[k], cache, definitions))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // This thread judges too, and passes on what the others have judged.
        while let Some(k) = take() {
            done(k, judge_game_path(archive, index, &games[k], cache, definitions));
            while let Ok((k, r)) = receive.try_recv() {
                done(k, r);
            }
        }
        for (k, r) in receive {
            done(k, r);
        }
    });
}

/// In a partial clone, fetches the versions of `games` it lacks, all at once (reading
/// them one by one would fetch them one by one).
fn prefetch(archive: &Archive, index: &HistoryIndex, games: &[GamePath]) -> Result<(), Failure> {
    if archive.promisor_remote().is_none() {
        return Ok(());
    }
    let blobs: Vec<crate::archive::BlobId> = games
        .iter()
        .flat_map(|g| super::layout::game_versions(index, g).into_iter().filter_map(|v| v.blob))
        .collect();
    archive.fetch_missing_blobs(&blobs, crate::referee::GamePath::DIR)?;
    Ok(())
}

/// The commits that change a path an archive may not hold (neither a record nor one of
/// [`crate::referee::layout::ALLOWED_FILES`], or the settings after the root commit),
/// judged by [`judge::path_finding`] as the hook judges them (from the index: no file is
/// read). A shallow clone's boundary commit is taken as given.
fn unallowed_paths(index: &HistoryIndex, migrations: &[usize]) -> Vec<VerifyProblem> {
    let boundary = index.shallow();
    // From each path's versions: only the commits that touch a path not allowed are
    // decoded (decoding every commit costs more than the rest of a `verify` of an
    // unchanged archive).
    let mut found = Vec::new();
    let paths = index.paths();
    for path in &paths {
        if judge::path_finding(path, false).is_none() && judge::path_finding(path, true).is_none() {
            continue;
        }
        for v in index
            .versions(path)
            .iter()
            .filter(|v| Some(v.commit) != boundary && !migrations.contains(&v.position))
        {
            let c = index.commit_at(v.position);
            if let Some(f) = judge::path_finding(path, c.parent.is_none()) {
                found.push((v.position, path, c, f));
            }
        }
    }
    // In history order, as the commits made them.
    found.sort_by_key(|(position, path, _, _)| (*position, *path));
    found
        .into_iter()
        .map(|(_, _, c, f)| VerifyProblem {
            game: f.subject,
            commit: c.commit.short(),
            author: c.author_name.to_string(),
            problem: f.problem.to_string(),
        })
        .collect()
}

/// Game files and army choice files deleted anywhere in the archive's history (from the
/// index: no file is read).
fn deletions(index: &HistoryIndex, migrations: &[usize]) -> Vec<VerifyProblem> {
    let mut out = Vec::new();
    // Most records were never deleted: only the deleted paths' versions are read.
    let paths = index.deleted_paths();
    for path in &paths {
        let is_record = GamePath::parse(path).is_some()
            || ArmyChoice::parse_path(path).is_some()
            || (path.starts_with("games/") && path.ends_with(".pgn"));
        if !is_record {
            continue;
        }
        for v in index.versions(path).iter().filter(|v| v.blob.is_none() && !migrations.contains(&v.position))
        {
            out.push((v.position, path, deletion_problem(index, v.position, path)));
        }
    }
    // In history order, as the commits made them.
    out.sort_by_key(|(position, path, _)| (*position, *path));
    out.into_iter().map(|(_, _, p)| p).collect()
}

/// The problem of the record at `path` deleted by the commit at `position`.
fn deletion_problem(index: &HistoryIndex, position: usize, path: &str) -> VerifyProblem {
    let c = index.commit_at(position);
    // The game the record was of (an army choice's too), as every other problem names it.
    let game = GamePath::parse(path)
        .map(|g| g.id().to_string())
        .or_else(|| ArmyChoice::parse_path(path).map(str::to_string))
        .unwrap_or_default();
    VerifyProblem {
        game,
        commit: c.commit.short(),
        author: c.author_name.to_string(),
        problem: Problem::RecordDeleted { path: path.to_string() }.to_string(),
    }
}

/// What `verify` finds wrong with the tournament files: each must be created once, by a
/// commit that creates exactly its games ([`tournament::judge_change`]), and never change.
///
/// # Errors
/// The archive's errors.
pub fn verify_tournaments(archive: &Archive, index: &HistoryIndex) -> Result<Vec<VerifyProblem>, Failure> {
    let mut out = Vec::new();
    let definitions = super::definitions::history(archive, index)?;
    // Sorted already.
    let paths: Vec<String> = index
        .paths_under(tournament::DIR)
        .into_iter()
        .filter(|p| Tournament::parse_path(p).is_some())
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    for path in paths {
        let name = Tournament::parse_path(path).expect("filtered").to_string();
        for (k, v) in index.versions(path).iter().enumerate() {
            // A shallow clone's boundary shows every file as added: the tournament was
            // made before it, out of the clone's reach; taken as given, as for a game.
            if k == 0 && index.shallow() == Some(v.commit) {
                continue;
            }
            let c = &index.commit_at(v.position);
            let text = match v.blob {
                Some(b) => archive.read_blob_text(b, path).ok(),
                None => None,
            };
            let previous = match k.checked_sub(1).map(|p| index.versions(path)[p].blob) {
                Some(Some(b)) => Some(archive.read_blob_text(b, path).unwrap_or_default()),
                Some(None) => Some(String::new()),
                None => None,
            };
            let mut records = Vec::new();
            for ch in c.changes.iter().filter(|ch| &*ch.path != path) {
                let existed = index.versions(&ch.path).first().is_some_and(|f| f.position < v.position);
                let text = match ch.blob {
                    Some(b) => archive.read_blob_text(b, &ch.path).ok(),
                    None => None,
                };
                records.push((ch.path.to_string(), existed, text));
            }
            let list: Vec<(&str, bool, Option<&str>)> =
                records.iter().map(|(p, e, t)| (p.as_str(), *e, t.as_deref())).collect();
            let outcomes = knockout_outcomes(archive, c.parent, previous.as_deref(), &definitions)?;
            let problem = tournament::judge_change(
                &name,
                previous.as_deref(),
                text.as_deref(),
                &list,
                &|id| outcomes.get(id).copied(),
                &definitions,
            );
            if let Some(p) = problem {
                out.push(VerifyProblem {
                    game: name.clone(),
                    commit: c.commit.short(),
                    author: c.author_name.to_string(),
                    problem: p.to_string(),
                });
            }
        }
    }
    Ok(out)
}

/// The results at `commit` of the games of the knockout or Swiss whose file there is `previous`
/// (the games' files as the commit left them, in either layout): what the referee judges
/// a knockout's next games by. Empty for a round robin, or without a commit.
///
/// # Errors
/// The archive's errors.
pub(crate) fn knockout_outcomes(
    archive: &Archive,
    commit: Option<crate::archive::CommitId>,
    previous: Option<&str>,
    definitions: &Definitions,
) -> Result<HashMap<String, tournament::Outcome>, Failure> {
    let mut out = HashMap::new();
    let (Some(commit), Some(t)) = (commit, previous.and_then(|p| Tournament::from_yaml(p).ok())) else {
        return Ok(out);
    };
    if t.knockout.is_none() && t.swiss.is_none() {
        return Ok(out);
    }
    for g in &t.games {
        for layout in [crate::referee::Layout::FanOut, crate::referee::Layout::Flat] {
            let path = t.record_path(layout, &g.id);
            if let Some(text) = archive.read_file_at(commit, &path)? {
                if let Some(o) = tournament::record_outcome(&path, &text, definitions) {
                    out.insert(g.id.clone(), o);
                }
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(problem: Option<&str>) -> LogLine {
        LogLine {
            commit: "0123456789ab".to_string(),
            hash: "0123456789abcdef0123456789abcdef01234567".to_string(),
            author: "Ann Example".to_string(),
            time: "2025-03-01T00:00:00Z".to_string(),
            what: "ply 1 e4".to_string(),
            ply: Some(1),
            san: Some("e4".to_string()),
            problem: problem.map(str::to_string),
            shallow_boundary: None,
            prepared: false,
            result: None,
            reason: None,
        }
    }

    /// Regression: the problems of a clean game were collected in place into its log
    /// lines' buffer, and a cold `verify` of 30,000 games held 650 MB of such buffers.
    #[test]
    fn problems_of_a_clean_game_hold_no_buffer_of_its_lines() {
        let clean: Vec<LogLine> = (0..85).map(|_| line(None)).collect();
        let found = problems_of("g1", clean);
        assert_eq!((found.len(), found.capacity()), (0, 0));
        let mut lines: Vec<LogLine> = (0..85).map(|_| line(None)).collect();
        lines[40] = line(Some("not Ann's move"));
        let found = problems_of("g1", lines);
        assert_eq!(found.len(), 1);
        assert!(found.capacity() <= 4, "{}", found.capacity());
        assert_eq!((found[0].game.as_str(), found[0].problem.as_str()), ("g1", "not Ann's move"));
    }
}
