//! Correspondence over a git remote: `hook install`, `hook check` (the server's
//! pre-receive hook) and `sync`.
//!
//! The hook and `sync` judge incoming commits alike ([`check_range`]): every commit on the
//! first-parent line changes one game file by one legal step of the player who authored
//! it ([`crate::referee::judge`]), games are never deleted, and history is never rewritten.
//! `sync` also remembers the remote tip it last accepted, refuses a remote that rewrote
//! it, and replays this archive's commits on top of the remote's when both moved in
//! different games (see [`sync`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::archive::{Archive, ArchiveCommit, ArmyChoice, CommitId, GamePath, PushOutcome};
use crate::record;
use crate::referee::judge::{self, Changed, CommitInfo, Finding};
use crate::referee::{Problem, Step};

use super::Error as Failure;
use super::checks::CommitEvidence;

/// The environment variable that overrides the ravenpost executable the hook runs.
pub const HOOK_EXE_ENV: &str = "RAVENPOST_HOOK_EXE";

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The text of the pre-receive hook, running `exe`.
pub fn hook_script(exe: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # ravenpost pre-receive hook (written by `ravenpost hook install`): every pushed\n\
         # commit must be one legal step of one game by the player who authored it.\n\
         # {HOOK_EXE_ENV} overrides the ravenpost executable.\n\
         RAVENPOST={}\n\
         if [ -n \"${{{HOOK_EXE_ENV}:-}}\" ]; then RAVENPOST=\"${HOOK_EXE_ENV}\"; fi\n\
         status=0\n\
         while read -r old new ref; do\n\
         \x20   \"$RAVENPOST\" hook check \"$old\" \"$new\" \"$ref\" || status=1\n\
         done\n\
         exit $status\n",
        shell_quote(&exe.to_string_lossy())
    )
}

/// `ravenpost hook install [--repo DIR]`: writes `hooks/pre-receive` into the repository.
pub fn install_hook(repo: Option<PathBuf>) -> Result<String, Failure> {
    let dir = match repo {
        Some(d) => d,
        None => std::env::current_dir().map_err(|e| Failure::Usage(format!("current directory: {e}")))?,
    };
    let git = git2::Repository::open(&dir)
        .map_err(|e| Failure::Usage(format!("{}: not a git repository ({})", dir.display(), e.message())))?;
    let exe = std::env::current_exe().map_err(|e| Failure::Usage(format!("this executable's path: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let hooks = git.path().join("hooks");
    std::fs::create_dir_all(&hooks).map_err(|e| Failure::Usage(format!("{}: {e}", hooks.display())))?;
    let file = hooks.join("pre-receive");
    std::fs::write(&file, hook_script(&exe))
        .map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
    }
    Ok(format!("Installed {} (runs {})", file.display(), exe.display()))
}

/// Checks the commits after `old` (exclusive; `None`: from the root) up to `new`: one
/// problem a line, `<game> <short commit>: <reason>`. Empty: all good.
///
/// # Errors
/// The archive's errors.
pub fn check_range(archive: &Archive, old: Option<CommitId>, new: CommitId) -> Result<Vec<String>, Failure> {
    if let Some(o) = old
        && !archive.is_ancestor(o, new)?
    {
        let p = Problem::HistoryRewritten { new: new.short(), old: o.short() };
        return Ok(vec![p.to_string()]);
    }
    if archive.promisor_remote().is_some() {
        // A partial clone: the versions to judge, fetched in one go.
        let index = archive.index_at(new)?;
        let blobs: Vec<_> =
            index.since(old).iter().flat_map(|c| c.changes.iter().filter_map(|ch| ch.blob)).collect();
        archive.fetch_missing_blobs(&blobs, GamePath::DIR)?;
    }
    // The definitions the games pin as the branch held them (the judge checks each
    // pushed commit's own).
    super::definitions::remember_at(archive, old)?;
    let mut problems = Vec::new();
    for c in archive.commits_between(old, new)? {
        for f in check_commit(archive, &c)? {
            problems.push(format!("{} {}: {}", f.subject, c.commit.short(), f.problem));
        }
    }
    Ok(problems)
}

/// What is wrong with one incoming commit: what it changed, and whether the change is a
/// step of the player who authored it.
fn check_commit(archive: &Archive, c: &ArchiveCommit) -> Result<Vec<Finding>, Failure> {
    let changes: Vec<(&str, Option<&[u8]>)> =
        c.changes.iter().map(|ch| (ch.path.as_str(), ch.contents.as_deref())).collect();
    let (mut findings, changed) = judge::classify_changes(&changes, c.parent.is_none());
    let info = CommitInfo { author: &c.author_name, time: c.time.unix_seconds() };
    match changed {
        None => {}
        Some(Changed::Definition(name, bytes)) => {
            let previous = match c.parent {
                Some(p) => archive.read_bytes_at(p, &crate::referee::layout::definition_path(&name))?,
                None => None,
            };
            if let Err(problem) =
                crate::referee::definitions::check_definition_change(&name, previous.as_deref(), bytes)
            {
                findings.push(Finding { subject: crate::referee::layout::definition_path(&name), problem });
            }
        }
        Some(Changed::Choice(id, bytes)) => {
            let text = bytes.map(|b| String::from_utf8_lossy(b).into_owned());
            let previous = match c.parent {
                Some(p) => archive.read_file_at(p, &ArmyChoice::path(&id))?,
                None => None,
            };
            let evidence = CommitEvidence { archive, commit: c.commit, earlier: || Ok(Vec::new()) };
            if let Err(problem) =
                judge::judge_choice_version(&evidence, &id, info, previous.as_deref(), text.as_deref())?
            {
                findings.push(Finding { subject: id, problem });
            }
        }
        Some(Changed::Game(game, bytes)) => {
            let subject = game.id().to_string();
            let Some(bytes) = bytes else {
                findings.push(Finding { subject, problem: Problem::DeletedInPush });
                return Ok(findings);
            };
            let Ok(text) = std::str::from_utf8(bytes) else {
                findings.push(Finding { subject, problem: Problem::NotText });
                return Ok(findings);
            };
            let previous = match c.parent {
                Some(p) => archive.read_file_at(p, &game.path())?,
                None => None,
            };
            let earlier = || match c.parent {
                Some(parent) => archive.file_history_at(&game.path(), parent),
                None => Ok(Vec::new()),
            };
            let evidence = CommitEvidence { archive, commit: c.commit, earlier };
            let verdict = match &previous {
                None => judge::judge_game_version(&evidence, &game, info, None, text)?,
                Some(old) => match record::load(old) {
                    Ok(g0) => judge::judge_game_version(&evidence, &game, info, Some((&g0, old)), text)?,
                    Err(e) => Err(Problem::PreviousUnreadable { why: e.to_string() }),
                },
            };
            if let Err(problem) = verdict {
                findings.push(Finding { subject, problem });
            }
        }
    }
    Ok(findings)
}

/// `ravenpost hook check <old> <new> <ref>`: the problems with one ref update.
pub fn hook_check(old: &str, new: &str, refname: &str) -> Result<Vec<String>, Failure> {
    let cwd = std::env::current_dir().map_err(|e| Failure::Usage(format!("current directory: {e}")))?;
    let archive = Archive::open_for_hook(&cwd)?;
    let old = archive.resolve(old)?;
    let Some(new) = archive.resolve(new)? else {
        return Ok(vec![Problem::BranchDeleted { refname: refname.to_string() }.to_string()]);
    };
    if !refname.starts_with("refs/heads/") {
        return Ok(vec![Problem::NotABranch { refname: refname.to_string() }.to_string()]);
    }
    check_range(&archive, old, new)
}

/// The archive `sync` works on: as for the other commands, except that the repository
/// the command runs in counts even before it is an archive (a fresh clone of an empty
/// shared repository, or one whose first sync is still to come).
pub fn open_for_sync(dir: Option<&Path>) -> Result<Archive, Failure> {
    if dir.is_none() && std::env::var_os(crate::archive::RAVENPOST_ARCHIVE).is_none() {
        let cwd = std::env::current_dir().map_err(|e| Failure::Usage(format!("current directory: {e}")))?;
        if let Some(a) = Archive::discover_repository(&cwd)? {
            return Ok(a);
        }
    }
    super::games::open(dir, true)
}

/// One commit `sync` fetched, replayed, pushed or found vanished: the game (or file) it
/// changed and what it did there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyncStep {
    /// The game id (for a file that is no game: its path).
    pub game: String,
    /// The short commit id.
    pub commit: String,
    /// What it did: `Ann's ply 3 Sa3b6`, `the new game`, a recorded action.
    pub what: String,
    /// The ply, for a move.
    pub ply: Option<usize>,
    /// The move (SAN), for a move.
    pub san: Option<String>,
    /// The player who moved, for a move.
    pub player: Option<String>,
}

impl std::fmt::Display for SyncStep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({})", self.game, self.what, self.commit)
    }
}

/// What one side did since the common ancestor: one step per game file (or army choice
/// file) a commit changed.
fn describe(archive: &Archive, commits: &[ArchiveCommit]) -> Vec<SyncStep> {
    let mut out = Vec::new();
    for c in commits {
        let step = |game: &str, what: String, moved: Option<(usize, String, String)>| SyncStep {
            game: game.to_string(),
            commit: c.commit.short(),
            what,
            ply: moved.as_ref().map(|m| m.0),
            san: moved.as_ref().map(|m| m.1.clone()),
            player: moved.map(|m| m.2),
        };
        for ch in &c.changes {
            if let Some(id) = ArmyChoice::parse_path(&ch.path) {
                let first = c.message.lines().next().unwrap_or_default();
                let what = first.strip_prefix(&format!("{id}: ")).unwrap_or(first);
                out.push(step(id, what.to_string(), None));
                continue;
            }
            let Some(g) = GamePath::parse(&ch.path) else { continue };
            let Some(text) = ch.contents.as_ref().and_then(|b| std::str::from_utf8(b).ok()) else {
                out.push(step(g.id(), format!("{}'s change", c.author_name), None));
                continue;
            };
            let prev = c.parent.and_then(|p| archive.read_file_at(p, &ch.path).ok().flatten());
            let (what, moved) = match crate::referee::check_step(prev.as_deref(), text, None) {
                Ok(Step::Moved { ply, san, player }) => {
                    (format!("{player}'s ply {ply} {san}"), Some((ply, san, player)))
                }
                Ok(Step::Created) => ("the new game".to_string(), None),
                Ok(Step::Recorded { summary, .. }) => (summary, None),
                Err(_) => (format!("{}'s change", c.author_name), None),
            };
            out.push(step(g.id(), what, moved));
        }
    }
    out
}

/// What `sync` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SyncOutcome {
    /// Neither side has commits.
    Empty,
    /// The remote had no branch: this archive's was pushed.
    PushedArchive,
    /// This archive had no commit: the remote's branch was fetched.
    FetchedArchive,
    /// Both sides were at the same commit.
    UpToDate,
    /// This archive was ahead: its commits were pushed.
    Pushed,
    /// The remote was ahead: its commits were checked and the branch fast-forwarded.
    Fetched,
    /// Both had moved, in different games: the remote's commits were checked, this
    /// archive's replayed on top of them, judged again, and pushed.
    Rebased,
}

/// What `sync` did (`sync --json` prints it).
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    /// The remote.
    pub remote: String,
    /// The branch (short name).
    pub branch: String,
    /// What happened.
    pub outcome: SyncOutcome,
    /// The branch tip afterwards (short id), on both sides when they agree.
    pub tip: Option<String>,
    /// The remote's commits taken in, oldest first.
    pub fetched: Vec<SyncStep>,
    /// This archive's commits written again on top of the remote's (as pushed), oldest
    /// first.
    pub rebased: Vec<SyncStep>,
    /// How many commits were pushed.
    pub pushed: usize,
    /// How many times the remote was fetched (more than once when another clone pushed
    /// between this one's fetch and push).
    pub attempts: usize,
}

impl std::fmt::Display for SyncReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (remote, branch) = (&self.remote, &self.branch);
        let tip = self.tip.as_deref().unwrap_or_default();
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        match self.outcome {
            SyncOutcome::Empty => {
                write!(f, "Nothing to sync: neither this archive nor {remote} has commits")
            }
            SyncOutcome::PushedArchive => write!(f, "Pushed this archive to {remote}/{branch}"),
            SyncOutcome::FetchedArchive => write!(f, "Fetched {remote}/{branch} ({tip})"),
            SyncOutcome::UpToDate => write!(f, "Up to date with {remote}/{branch} ({tip})"),
            SyncOutcome::Pushed => {
                write!(f, "Pushed {} commit{} to {remote}/{branch}", self.pushed, plural(self.pushed))
            }
            SyncOutcome::Fetched | SyncOutcome::Rebased => {
                write!(f, "Fetched {} commit(s) from {remote}/{branch}:", self.fetched.len())?;
                for s in &self.fetched {
                    write!(f, "\n  {}: {} ({})", s.game, s.what, s.commit)?;
                }
                if self.outcome == SyncOutcome::Rebased {
                    let n = self.rebased.len();
                    write!(
                        f,
                        "\nReplayed {n} commit{} of this archive on top of them (each judged again) and pushed to {remote}/{branch}:",
                        plural(n)
                    )?;
                    for s in &self.rebased {
                        write!(f, "\n  {}: {} ({})", s.game, s.what, s.commit)?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// Why `sync` changed nothing.
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[serde(tag = "refused", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum SyncRefusal {
    /// The remote's branch no longer contains the tip `sync` last accepted from it: its
    /// history was rewritten (a force push: a takeback, a changed move).
    #[error(
        "{remote}/{branch} no longer contains {accepted}, the commit this archive last accepted from it: its history was rewritten (a force push). {} commit{} vanished: {}.{} Nothing was changed here. If the rewrite is not agreed, restore the remote from this clone: `git push --force {remote} {accepted}:{branch}` (your copy of the vanished commits is kept). To accept the rewritten history instead: `git update-ref -d refs/ravenpost/accepted/{remote}/{branch}`, `git fetch {remote}`, `git reset --hard {remote}/{branch}`, then `ravenpost sync`.",
        vanished.len(),
        if vanished.len() == 1 { "" } else { "s" },
        steps(vanished),
        if replaced_by.is_empty() { String::new() } else { format!(" In their place {remote} has: {}.", steps(replaced_by)) }
    )]
    Rewritten {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The accepted tip (short id).
        accepted: String,
        /// The remote's tip now (short id; `None`: the branch is gone).
        remote_tip: Option<String>,
        /// The accepted commits the remote no longer has, oldest first.
        vanished: Vec<SyncStep>,
        /// The remote's commits since the last commit both still share, oldest first.
        replaced_by: Vec<SyncStep>,
    },
    /// The remote has commits that are not legal steps.
    #[error(
        "{remote} has commits that are not legal steps; nothing was changed here:\n{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n")
    )]
    Illegal {
        /// The remote.
        remote: String,
        /// One line a problem: `<game> <commit>: <reason>`.
        problems: Vec<String>,
    },
    /// Both sides moved in the same game: the remote's move came first and stands.
    #[error(
        "{remote}/{branch} and this archive have both moved on since {}: {remote} has {}; this archive has {}. In {} the move on {remote} came first and stands; yours was made on the older position. Nothing was changed and your commits stay here. To continue from {remote}: `git branch ravenpost-unsent` (keeps them), `git reset --hard {remote}/{branch}`, then replay your moves with `ravenpost move` and `ravenpost sync`.",
        base.as_deref().unwrap_or("the start"),
        list(theirs),
        list(ours),
        clash.join(", ")
    )]
    Diverged {
        /// The remote.
        remote: String,
        /// The branch (short name).
        branch: String,
        /// The last commit both share (short id; `None`: they share none).
        base: Option<String>,
        /// The remote's commits since then.
        theirs: Vec<SyncStep>,
        /// This archive's commits since then.
        ours: Vec<SyncStep>,
        /// The games both changed.
        clash: Vec<String>,
    },
    /// This archive's commits, replayed on top of the remote's, are not legal steps there.
    #[error(
        "this archive's commits, replayed on top of {remote}'s, are not legal steps there; nothing was changed:\n{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n")
    )]
    ReplayRefused {
        /// The remote.
        remote: String,
        /// One line a problem.
        problems: Vec<String>,
    },
    /// The remote refused the push.
    #[error("{remote} refused the push (nothing changed there): {why}")]
    PushRefused {
        /// The remote.
        remote: String,
        /// Its reasons.
        why: String,
    },
    /// Other clones kept pushing between this one's fetch and push.
    #[error(
        "{remote} moved on again between fetch and push {attempts} times (other clones pushing): nothing was pushed; run `ravenpost sync` again"
    )]
    KeptMoving {
        /// The remote.
        remote: String,
        /// How many attempts were made.
        attempts: usize,
    },
}

/// Steps for a message: at most 20, then how many more.
fn steps(v: &[SyncStep]) -> String {
    let mut parts: Vec<String> = v.iter().take(20).map(ToString::to_string).collect();
    if v.len() > 20 {
        parts.push(format!("and {} more", v.len() - 20));
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
}

fn list(v: &[SyncStep]) -> String {
    v.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// How many times `sync` fetches again when its push is overtaken by another clone's.
const ATTEMPTS: usize = 8;

/// `ravenpost sync [REMOTE]`: fetch, check, then fast-forward, push, or replay this
/// archive's commits on top of the remote's and push. Returns what it did.
///
/// 1. The remote's branch must still contain the tip `sync` last accepted from it
///    ([`Archive::accepted`]; for a clone that never synced, its remote-tracking branch
///    when this archive contains it): else it was rewritten, and [`SyncRefusal::Rewritten`]
///    names the commits that vanished.
/// 2. Every remote commit not in this archive is judged as the hook judges a push
///    ([`check_range`]); one illegal step refuses all ([`SyncRefusal::Illegal`]).
/// 3. Behind: fast-forward. Ahead: push. Both moved: this archive's commits that the
///    remote already has (a sync interrupted after its push) are dropped; if the others
///    change games the remote's commits did not, they are replayed on top of the remote's
///    ([`Archive::replay_onto`]), judged again, and pushed; if both changed a game, the
///    remote's move stands ([`SyncRefusal::Diverged`]).
/// 4. A push overtaken by another clone's: fetch and go again, up to [`ATTEMPTS`] times.
///
/// Refusals change nothing here: neither the branch, the working copy, nor the accepted
/// tip or remote-tracking branch (except that a diverged remote whose commits are legal
/// is accepted as the remote's history, so that `git reset --hard REMOTE/BRANCH` takes it).
///
/// # Errors
/// [`Failure::Sync`] for a refusal; the archive's errors.
pub fn sync(archive: &Archive, remote: &str) -> Result<SyncReport, Failure> {
    let branch = archive.branch()?;
    let short = branch.strip_prefix("refs/heads/").unwrap_or(&branch).to_string();
    for attempt in 1..=ATTEMPTS {
        let mut report = SyncReport {
            remote: remote.to_string(),
            branch: short.clone(),
            outcome: SyncOutcome::Empty,
            tip: None,
            fetched: Vec::new(),
            rebased: Vec::new(),
            pushed: 0,
            attempts: attempt,
        };
        if sync_once(archive, remote, &mut report)? {
            return Ok(report);
        }
        // Overtaken: let the other pushes land before fetching again.
        let jitter = u64::from(std::process::id() % 40);
        std::thread::sleep(std::time::Duration::from_millis(20 * attempt as u64 + jitter));
    }
    Err(SyncRefusal::KeptMoving { remote: remote.to_string(), attempts: ATTEMPTS }.into())
}

/// Whether two commits record the same step (the same author, time, message and file
/// versions): a commit replayed by an earlier `sync` whose push landed.
fn same_step(a: &ArchiveCommit, b: &ArchiveCommit) -> bool {
    let files = |c: &ArchiveCommit| {
        c.changes.iter().map(|ch| (ch.path.clone(), ch.contents.clone())).collect::<Vec<_>>()
    };
    a.author_name == b.author_name
        && a.author_email == b.author_email
        && a.time == b.time
        && a.message == b.message
        && files(a) == files(b)
}

/// What a commit changed, by game: the game id of a game or army choice file, else the
/// path.
fn subjects(c: &ArchiveCommit) -> Vec<String> {
    c.changes
        .iter()
        .map(|ch| {
            if let Some(id) = ArmyChoice::parse_path(&ch.path) {
                id.to_string()
            } else if let Some(g) = GamePath::parse(&ch.path) {
                g.id().to_string()
            } else {
                ch.path.clone()
            }
        })
        .collect()
}

/// One round of `sync`; `Ok(false)` when the push was overtaken (fetch again).
fn sync_once(archive: &Archive, remote: &str, report: &mut SyncReport) -> Result<bool, Failure> {
    let short = report.branch.clone();
    let ours = archive.tip()?;
    // What this clone last accepted from the remote.
    let baseline = match archive.accepted(remote)? {
        Some(a) => Some(a),
        None => match (archive.tracking(remote)?, ours) {
            (Some(t), Some(o)) if archive.is_ancestor(t, o)? => Some(t),
            _ => None,
        },
    };
    let theirs = archive.fetch(remote)?;
    if let Some(a) = baseline {
        let kept = match theirs {
            Some(t) => archive.is_ancestor(a, t)?,
            None => false,
        };
        if !kept {
            let base = match theirs {
                Some(t) => archive.merge_base(a, t)?,
                None => None,
            };
            let vanished = describe(archive, &archive.commits_between(base, a)?);
            let replaced_by = match theirs {
                Some(t) => describe(archive, &archive.commits_between(base, t)?),
                None => Vec::new(),
            };
            return Err(SyncRefusal::Rewritten {
                remote: remote.to_string(),
                branch: short,
                accepted: a.short(),
                remote_tip: theirs.map(|t| t.short()),
                vanished,
                replaced_by,
            }
            .into());
        }
    }
    let push = |report: &mut SyncReport, commit: CommitId, n: usize| -> Result<bool, Failure> {
        match archive.push(remote, commit)? {
            PushOutcome::Pushed => {
                archive.accept_remote_tip(remote, commit)?;
                report.pushed = n;
                report.tip = Some(commit.short());
                Ok(true)
            }
            PushOutcome::Stale { .. } => Ok(false),
            PushOutcome::Refused { why } => {
                Err(SyncRefusal::PushRefused { remote: remote.to_string(), why }.into())
            }
        }
    };
    let (ours, theirs) = match (ours, theirs) {
        (None, None) => {
            report.outcome = SyncOutcome::Empty;
            return Ok(true);
        }
        (Some(o), None) => {
            report.outcome = SyncOutcome::PushedArchive;
            let n = archive.index()?.len();
            return push(report, o, n);
        }
        (None, Some(t)) => {
            verified(archive, None, t, remote)?;
            archive.accept_remote_tip(remote, t)?;
            archive.fast_forward(None, t)?;
            report.outcome = SyncOutcome::FetchedArchive;
            report.tip = Some(t.short());
            return Ok(true);
        }
        (Some(o), Some(t)) => (o, t),
    };
    if ours == theirs {
        archive.accept_remote_tip(remote, theirs)?;
        report.outcome = SyncOutcome::UpToDate;
        report.tip = Some(ours.short());
        return Ok(true);
    }
    if archive.is_ancestor(theirs, ours)? {
        let n = archive.commits_between(Some(theirs), ours)?.len();
        report.outcome = SyncOutcome::Pushed;
        return push(report, ours, n);
    }
    if archive.is_ancestor(ours, theirs)? {
        let incoming = archive.commits_between(Some(ours), theirs)?;
        verified(archive, Some(ours), theirs, remote)?;
        archive.accept_remote_tip(remote, theirs)?;
        archive.fast_forward(Some(ours), theirs)?;
        report.fetched = describe(archive, &incoming);
        report.outcome = SyncOutcome::Fetched;
        report.tip = Some(theirs.short());
        return Ok(true);
    }
    // Diverged: both sides moved since they last agreed.
    let base = archive.merge_base(ours, theirs)?;
    let incoming = archive.commits_between(base, theirs)?;
    verified(archive, base, theirs, remote)?;
    archive.accept_remote_tip(remote, theirs)?;
    report.fetched = describe(archive, &incoming);
    let mine: Vec<ArchiveCommit> = archive
        .commits_between(base, ours)?
        .into_iter()
        .filter(|c| !incoming.iter().any(|i| same_step(c, i)))
        .collect();
    if mine.is_empty() {
        // Everything of ours is on the remote already (replayed by an interrupted sync).
        archive.fast_forward(Some(ours), theirs)?;
        report.outcome = SyncOutcome::Fetched;
        report.tip = Some(theirs.short());
        return Ok(true);
    }
    let their_games: BTreeSet<String> = incoming.iter().flat_map(subjects).collect();
    let my_games: BTreeSet<String> = mine.iter().flat_map(subjects).collect();
    let clash: Vec<String> = my_games.intersection(&their_games).cloned().collect();
    if !clash.is_empty() {
        return Err(SyncRefusal::Diverged {
            remote: remote.to_string(),
            branch: short,
            base: base.map(|b| b.short()),
            theirs: report.fetched.clone(),
            ours: describe(archive, &mine),
            clash,
        }
        .into());
    }
    let signer = archive.git_signing_key()?.map(crate::archive::SshSigner::new);
    let replayed = archive.replay_onto(theirs, &mine, super::games::now(), signer.as_ref())?;
    let new_tip = *replayed.last().expect("at least one commit replayed");
    let problems = check_range(archive, Some(theirs), new_tip)?;
    if !problems.is_empty() {
        return Err(SyncRefusal::ReplayRefused { remote: remote.to_string(), problems }.into());
    }
    archive.can_check_out(new_tip)?;
    report.outcome = SyncOutcome::Rebased;
    if !push(report, new_tip, replayed.len())? {
        return Ok(false);
    }
    archive.fast_forward(Some(ours), new_tip)?;
    report.rebased = describe(archive, &archive.commits_between(Some(theirs), new_tip)?);
    Ok(true)
}

fn verified(archive: &Archive, from: Option<CommitId>, to: CommitId, remote: &str) -> Result<(), Failure> {
    let problems = check_range(archive, from, to)?;
    if problems.is_empty() {
        return Ok(());
    }
    Err(SyncRefusal::Illegal { remote: remote.to_string(), problems }.into())
}
