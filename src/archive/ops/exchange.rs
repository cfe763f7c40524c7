//! Correspondence over a git remote: `hook install`, `hook check` (the server's
//! pre-receive hook) and `sync`.
//!
//! The hook and `sync` judge incoming commits alike ([`check_range`]): every commit on the
//! first-parent line changes one game file by one legal step of the player who authored
//! it ([`crate::referee::judge`]), games are never deleted, and history is never rewritten.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::archive::{Archive, ArchiveCommit, ArmyChoice, CommitId, GamePath};
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
    let update = crate::archive::RefUpdate::from_fields(old, new, refname)?;
    let archive = Archive::open_for_hook(&cwd)?;
    let old = archive.resolve(old)?;
    let new = archive.resolve(new)?;
    match (new, update.problem()) {
        (Some(new), None) => check_range(&archive, old, new),
        (_, problem) => Ok(problem.into_iter().map(|p| p.to_string()).collect()),
    }
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

/// What one side did since the common ancestor, for the diverged message.
fn describe(archive: &Archive, commits: &[ArchiveCommit]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for c in commits {
        for ch in &c.changes {
            if let Some(id) = ArmyChoice::parse_path(&ch.path) {
                let first = c.message.lines().next().unwrap_or_default();
                let what = first.strip_prefix(&format!("{id}: ")).unwrap_or(first);
                out.push((id.to_string(), format!("{what} ({})", c.commit.short())));
                continue;
            }
            let Some(g) = GamePath::parse(&ch.path) else { continue };
            let Some(text) = ch.contents.as_ref().and_then(|b| std::str::from_utf8(b).ok()) else {
                continue;
            };
            let prev = c.parent.and_then(|p| archive.read_file_at(p, &ch.path).ok().flatten());
            let what = match crate::referee::check_step(prev.as_deref(), text, None) {
                Ok(Step::Moved { ply, san, player }) => format!("{player}'s ply {ply} {san}"),
                Ok(Step::Created) => "the new game".to_string(),
                Ok(Step::Recorded { summary, .. }) => summary,
                Err(_) => format!("{}'s change", c.author_name),
            };
            out.push((g.id().to_string(), format!("{what} ({})", c.commit.short())));
        }
    }
    out
}

/// `ravenpost sync [REMOTE]`: fetch, check, then fast-forward or push. Returns what it did.
pub fn sync(archive: &Archive, remote: &str) -> Result<String, Failure> {
    let branch = archive.branch()?;
    let short = branch.strip_prefix("refs/heads/").unwrap_or(&branch).to_string();
    let ours = archive.tip()?;
    let theirs = archive.fetch(remote)?;
    let push = |what: &str| -> Result<String, Failure> {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(archive.dir())
            .args(["push", "--quiet", "--porcelain", remote, &format!("{branch}:{branch}")])
            .output()
            .map_err(|e| Failure::Usage(format!("running git push: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let reasons: Vec<&str> = err
                .lines()
                .filter_map(|l| l.strip_prefix("remote: "))
                .filter(|l| l.starts_with("ravenpost"))
                .collect();
            let why = if reasons.is_empty() { err.trim().to_string() } else { reasons.join("; ") };
            return Err(Failure::Declined(format!(
                "{remote} refused the push (nothing changed there): {why}"
            )));
        }
        Ok(format!("Pushed {what} to {remote}/{short}"))
    };
    let (ours, theirs) = match (ours, theirs) {
        (None, None) => return Ok(format!("Nothing to sync: neither this archive nor {remote} has commits")),
        (Some(_), None) => return push("this archive"),
        (None, Some(t)) => {
            verified(archive, None, t, remote)?;
            archive.fast_forward(None, t)?;
            return Ok(format!("Fetched {remote}/{short} ({})", t.short()));
        }
        (Some(o), Some(t)) => (o, t),
    };
    if ours == theirs {
        return Ok(format!("Up to date with {remote}/{short} ({})", ours.short()));
    }
    if archive.is_ancestor(theirs, ours)? {
        let n = archive.commits_between(Some(theirs), ours)?.len();
        return push(&format!("{n} commit{}", if n == 1 { "" } else { "s" }));
    }
    if archive.is_ancestor(ours, theirs)? {
        let incoming = archive.commits_between(Some(ours), theirs)?;
        verified(archive, Some(ours), theirs, remote)?;
        archive.fast_forward(Some(ours), theirs)?;
        let mut lines = vec![format!("Fetched {} commit(s) from {remote}/{short}:", incoming.len())];
        for (game, what) in describe(archive, &incoming) {
            lines.push(format!("  {game}: {what}"));
        }
        return Ok(lines.join("\n"));
    }
    // Diverged: both sides moved since they last agreed.
    let base = archive.merge_base(ours, theirs)?;
    let mine = describe(archive, &archive.commits_between(base, ours)?);
    let other = describe(archive, &archive.commits_between(base, theirs)?);
    let mine_games: BTreeSet<&str> = mine.iter().map(|(g, _)| g.as_str()).collect();
    let other_games: BTreeSet<&str> = other.iter().map(|(g, _)| g.as_str()).collect();
    let list = |v: &[(String, String)]| -> String {
        v.iter().map(|(g, w)| format!("{g}: {w}")).collect::<Vec<_>>().join(", ")
    };
    let both: Vec<&str> = mine_games.intersection(&other_games).copied().collect();
    let clash = if both.is_empty() {
        String::new()
    } else {
        format!(
            " In {} the move on {remote} came first and stands; yours was made on the older position.",
            both.join(", ")
        )
    };
    Err(Failure::Declined(format!(
        "{remote}/{short} and this archive have both moved on since {}: {remote} has {}; this archive has {}.{clash} Nothing was changed and your commits stay here. To continue from {remote}: `git branch ravenpost-unsent` (keeps them), `git reset --hard {remote}/{short}`, then replay your moves with `ravenpost move` and `ravenpost sync`.",
        base.map(|b| b.short()).unwrap_or_else(|| "the start".into()),
        list(&other),
        list(&mine),
    )))
}

fn verified(archive: &Archive, from: Option<CommitId>, to: CommitId, remote: &str) -> Result<(), Failure> {
    let problems = check_range(archive, from, to)?;
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failure::Declined(format!(
        "{remote} has commits that are not legal steps; nothing was changed here:\n{}",
        problems.iter().map(|p| format!("ravenpost: {p}")).collect::<Vec<_>>().join("\n")
    )))
}
