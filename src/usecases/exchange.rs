//! Correspondence over a git remote: `hook install` (with `--notify`, also the
//! post-receive hook that runs [`crate::usecases::notify`]), `hook check` (the server's
//! pre-receive hook) and `sync`.
//!
//! The hook and `sync` judge incoming commits alike ([`check_range`]), and `sync` judges
//! its own before it pushes them: every commit on the
//! first-parent line changes one game file by one legal step of the player who authored
//! it ([`crate::referee::judge`]), or creates one tournament with exactly its games
//! ([`crate::referee::tournament`]); games are never deleted, and history is never
//! rewritten.
//! `sync` also remembers the remote tip it last accepted, refuses a remote that rewrote
//! it, and replays this archive's commits on top of the remote's when both moved in
//! different games (see [`sync`]).
//!
//! On a git server that authenticates pushes, the hook also knows who pushed
//! ([`pusher_from`](super::pusher_from): gitolite's `GL_USER`, `REMOTE_USER` from `git http-backend` behind an
//! authenticating web server, GitLab's `GL_USERNAME`, Gitea's and Forgejo's
//! `GITEA_PUSHER_NAME`, or the variable `RAVENPOST_PUSHER_VAR` names), and refuses a step
//! pushed by an account that is not the acting player's ([`check_range_pushed`],
//! [`crate::referee::players::push_problem`]). `hook install` writes the hook into a
//! repository, or into gitolite's common or repo-specific hook folders ([`HookTarget`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::archive::{Archive, ArchiveCommit, ArmyChoice, CommitId, GamePath, PushOutcome};
use crate::record;
use crate::referee::judge::{self, Changed, CommitInfo, Finding};
use crate::referee::limits::Limits;
use crate::referee::players::{ClubAccounts, Pusher};
use crate::referee::{Problem, Step};

use super::checks::CommitEvidence;
use super::error::{Error as Failure, SyncRefusal, SyncStep};
use super::session::{PUSHER_VAR_ENV, PUSHER_VARIABLES, Session};
use crate::variants::Definitions;

/// The environment variable that overrides the ravenpost executable the hook runs.
pub const HOOK_EXE_ENV: &str = "RAVENPOST_HOOK_EXE";

/// The pusher the session's front end read from its environment ([`pusher_from`](super::pusher_from)).
///
/// # Errors
/// As [`pusher_from`](super::pusher_from).
fn session_pusher(session: &Session) -> Result<Option<Pusher>, Failure> {
    session.pusher.clone().map_err(|e| Failure::Usage(e.to_string()))
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The text of the pre-receive hook, running `exe`.
pub fn hook_script(exe: &Path) -> String {
    hook_script_with(exe, None, false)
}

/// The text of the pre-receive hook, running `exe`; `pusher_var`: the variable the server
/// names the pusher in (set as [`PUSHER_VAR_ENV`]); `gitolite_common`: the hook is
/// gitolite's common hook, linked into every repository, and lets pushes to
/// `gitolite-admin` through unchecked.
pub fn hook_script_with(exe: &Path, pusher_var: Option<&str>, gitolite_common: bool) -> String {
    let mut extra = String::new();
    if gitolite_common {
        extra.push_str(
            "# gitolite links its common hooks into every repository: its own admin repository\n\
             # is no archive.\n\
             if [ \"${GL_REPO:-}\" = gitolite-admin ]; then cat >/dev/null; exit 0; fi\n",
        );
    }
    if let Some(var) = pusher_var {
        extra.push_str(&format!(
            "# The server names the pushing account in ${var}.\n{PUSHER_VAR_ENV}={}\nexport {PUSHER_VAR_ENV}\n",
            shell_quote(var)
        ));
    }
    format!(
        "#!/bin/sh\n\
         {HOOK_MARK} (written by `ravenpost hook install`): every pushed\n\
         # commit must be one legal step of one game by the player who authored it, pushed\n\
         # by that player's account when the server names the pusher (`ravenpost hook check\n\
         # --explain` says how a push is judged). {HOOK_EXE_ENV} overrides the executable.\n\
         {extra}\
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

/// The text of the post-receive hook, running `exe hook notify` for each updated ref;
/// it exits 0 (the push is in; a failed notification is logged, not an error), by its
/// last command rather than by `exit`, so that lines added after it (the site's,
/// `hook install --site`) still run.
pub fn notify_hook_script(exe: &Path) -> String {
    format!(
        "#!/bin/sh\n\
         # ravenpost post-receive hook (written by `ravenpost hook install --notify`): mails\n\
         # the player to move after every pushed move; failures go to ravenpost/notify.log.\n\
         # {HOOK_EXE_ENV} overrides the ravenpost executable.\n\
         RAVENPOST={}\n\
         if [ -n \"${{{HOOK_EXE_ENV}:-}}\" ]; then RAVENPOST=\"${HOOK_EXE_ENV}\"; fi\n\
         while read -r old new ref; do\n\
         \x20   \"$RAVENPOST\" hook notify \"$old\" \"$new\" \"$ref\" || true\n\
         done\n",
        shell_quote(&exe.to_string_lossy())
    )
}

/// The executable a hook runs: this one, its path resolved.
fn hook_exe() -> Result<PathBuf, Failure> {
    let exe = std::env::current_exe().map_err(|e| Failure::Usage(format!("this executable's path: {e}")))?;
    Ok(exe.canonicalize().unwrap_or(exe))
}

/// The file of hook `name` in the repository at `repo` (default: the current directory).
fn repository_hook(dir: &Path, name: &str) -> Result<PathBuf, Failure> {
    let git = git2::Repository::open(dir)
        .map_err(|e| Failure::Usage(format!("{}: not a git repository ({})", dir.display(), e.message())))?;
    Ok(git.path().join("hooks").join(name))
}

/// `ravenpost hook install --notify`: also writes `hooks/post-receive` ([`notify_hook_script`])
/// into the repository `repo` (`None`: the current directory).
///
/// # Errors
/// A repository that is not one, a file that cannot be written.
pub fn install_notify_hook(repo: &Path) -> Result<String, Failure> {
    let exe = hook_exe()?;
    let file = repository_hook(repo, "post-receive")?;
    write_hook(&file, &notify_hook_script(&exe))?;
    Ok(format!("Installed {} (runs {})", file.display(), exe.display()))
}

/// Where `ravenpost hook install` writes the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookTarget {
    /// `hooks/pre-receive` of the repository in this directory.
    Repository(PathBuf),
    /// gitolite's common hooks (`$LOCAL_CODE/hooks/common`, else
    /// `$GL_ADMIN_BASE/hooks/common`, i.e. `~/.gitolite/hooks/common`), which `gitolite
    /// setup --hooks-only` links into every repository; run as the gitolite user.
    GitoliteCommon,
    /// A gitolite repo-specific hook, `$LOCAL_CODE/hooks/repo-specific/ravenpost`, which
    /// gitolite installs into the repositories whose conf says `option hook.pre-receive =
    /// ravenpost` (needs `LOCAL_CODE` and `repo-specific-hooks` in `~/.gitolite.rc`).
    GitoliteRepoSpecific,
    /// Nowhere: the script is returned, to be put where a server keeps its custom hooks
    /// (GitLab's `custom_hooks/pre-receive`, Gitea's and Forgejo's `hooks/pre-receive.d/`).
    Print,
}

/// The line every hook script `hook install` writes starts its comment with.
const HOOK_MARK: &str = "# ravenpost pre-receive hook";

/// The name of the repo-specific hook `hook install --gitolite repo-specific` writes.
pub const GITOLITE_HOOK_NAME: &str = "ravenpost";

/// `gitolite query-rc NAME`: the value of one rc setting (`None`: unset).
fn gitolite_rc(name: &str) -> Result<Option<String>, Failure> {
    let out = std::process::Command::new("gitolite").args(["query-rc", name]).output().map_err(|e| {
        Failure::Usage(format!(
            "running `gitolite query-rc {name}`: {e} (run `ravenpost hook install --gitolite …` as the gitolite user on the server, with gitolite on PATH)"
        ))
    })?;
    let value = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() && !out.stderr.is_empty() {
        return Err(Failure::Usage(format!(
            "`gitolite query-rc {name}` failed: {} (is this the gitolite user, with gitolite set up?)",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(Some(value).filter(|v| !v.is_empty()))
}

fn write_hook(file: &Path, text: &str) -> Result<(), Failure> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Failure::Usage(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(file, text).map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| Failure::Usage(format!("{}: {e}", file.display())))?;
    }
    Ok(())
}

/// `ravenpost hook install [--repo DIR | --gitolite common|repo-specific] [--pusher-var
/// VAR]`: writes the pre-receive hook where `target` says; for gitolite's common hook,
/// also runs `gitolite setup --hooks-only` so that every repository gets it. Returns
/// what it did and what is left to do.
///
/// # Errors
/// A repository that is not one, gitolite not set up (or no `LOCAL_CODE` for a
/// repo-specific hook), a file that cannot be written, a bad `pusher_var`.
pub fn install_hook_to(target: HookTarget, pusher_var: Option<&str>) -> Result<String, Failure> {
    if let Some(v) = pusher_var
        && (v.is_empty() || !v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    {
        return Err(Failure::Usage(format!(
            "--pusher-var `{v}`: an environment variable's name (letters, digits, `_`)"
        )));
    }
    let exe = hook_exe()?;
    match target {
        HookTarget::Repository(repo) => {
            let file = repository_hook(&repo, "pre-receive")?;
            if let Ok(existing) = std::fs::read_to_string(&file)
                && !existing.contains(HOOK_MARK)
            {
                return Err(Failure::Usage(format!(
                    "{} exists and is not ravenpost's (a git server's own hook?): nothing was written. On GitLab, Gitea or Forgejo put the script of `ravenpost hook install --print` among the server's custom hooks instead (docs/club.md, \"GitLab, Gitea, Forgejo\"); elsewhere remove the file first",
                    file.display()
                )));
            }
            write_hook(&file, &hook_script_with(&exe, pusher_var, false))?;
            Ok(format!("Installed {} (runs {})", file.display(), exe.display()))
        }
        HookTarget::Print => Ok(hook_script_with(&exe, pusher_var, false).trim_end().to_string()),
        HookTarget::GitoliteCommon => {
            let base = match gitolite_rc("LOCAL_CODE")? {
                Some(local) => PathBuf::from(local),
                None => PathBuf::from(gitolite_rc("GL_ADMIN_BASE")?.ok_or_else(|| {
                    Failure::Usage("gitolite's GL_ADMIN_BASE is not set: run `gitolite setup` first".into())
                })?),
            };
            let file = base.join("hooks").join("common").join("pre-receive");
            write_hook(&file, &hook_script_with(&exe, pusher_var, true))?;
            let out = std::process::Command::new("gitolite")
                .args(["setup", "--hooks-only"])
                .output()
                .map_err(|e| Failure::Usage(format!("running `gitolite setup --hooks-only`: {e}")))?;
            if !out.status.success() {
                return Err(Failure::Usage(format!(
                    "wrote {}, but `gitolite setup --hooks-only` failed: {}",
                    file.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            Ok(format!(
                "Installed {} (runs {}) as gitolite's common pre-receive hook and linked it into every repository (`gitolite setup --hooks-only`); pushes to gitolite-admin are not checked",
                file.display(),
                exe.display()
            ))
        }
        HookTarget::GitoliteRepoSpecific => {
            let Some(local) = gitolite_rc("LOCAL_CODE")? else {
                return Err(Failure::Usage(
                    "gitolite's LOCAL_CODE is not set: in ~/.gitolite.rc uncomment `LOCAL_CODE => \"$ENV{HOME}/local\",` and add 'repo-specific-hooks' to the ENABLE list, then run this again".into(),
                ));
            };
            let file = PathBuf::from(local).join("hooks").join("repo-specific").join(GITOLITE_HOOK_NAME);
            write_hook(&file, &hook_script_with(&exe, pusher_var, false))?;
            Ok(format!(
                "Installed {} (runs {}) as gitolite's repo-specific hook `{GITOLITE_HOOK_NAME}`. To use it for a repository: make sure 'repo-specific-hooks' is in the ENABLE list of ~/.gitolite.rc, add `option hook.pre-receive = {GITOLITE_HOOK_NAME}` under the repository in conf/gitolite.conf of gitolite-admin, and push gitolite-admin",
                file.display(),
                exe.display()
            ))
        }
    }
}

/// `ravenpost hook install [--repo DIR]`: writes `hooks/pre-receive` into the repository.
///
/// # Errors
/// As [`install_hook_to`].
pub fn install_hook(repo: PathBuf) -> Result<String, Failure> {
    install_hook_to(HookTarget::Repository(repo), None)
}

/// Checks the commits after `old` (exclusive; `None`: from the root) up to `new`: one
/// problem a line, `<game> <short commit>: <reason>`. Empty: all good.
///
/// # Errors
/// The archive's errors.
pub fn check_range(archive: &Archive, old: Option<CommitId>, new: CommitId) -> Result<Vec<String>, Failure> {
    check_range_pushed(archive, old, new, None)
}

/// The archive's `ravenpost.yaml` at `commit` (`None` when it has no readable one).
fn config_at(archive: &Archive, commit: CommitId) -> Result<Option<crate::archive::ArchiveConfig>, Failure> {
    let text = match archive.read_file_at(commit, crate::archive::ArchiveConfig::PATH) {
        Err(crate::archive::ArchiveError::NotText { .. }) => None,
        other => other?,
    };
    Ok(text.and_then(|t| crate::archive::ArchiveConfig::from_yaml(&t).ok()))
}

/// The archive's layout at `commit` (flat when it has no readable settings).
fn layout_at(archive: &Archive, commit: CommitId) -> Result<crate::referee::Layout, Failure> {
    Ok(config_at(archive, commit)?.map(|c| c.layout).unwrap_or_default())
}

/// The accounts the archive's `ravenpost.yaml` lists at `commit` (none when it has no
/// readable settings file).
fn club_accounts_at(archive: &Archive, commit: CommitId) -> Result<ClubAccounts, Failure> {
    Ok(config_at(archive, commit)?.map(|c| c.club_accounts()).unwrap_or_default())
}

/// As [`check_range`], for a push by `pusher` (as the git server authenticated it): each
/// step must also be pushed by an account of the player who takes it, and the archive's
/// set-up (its first commit, new games, army choices) by a player's or an admin's account
/// ([`crate::referee::players::push_problem`]; the accounts are read from the game's
/// `WhiteAccount`/`BlackAccount` tags and from `ravenpost.yaml` at `new`).
///
/// # Errors
/// The archive's errors.
pub fn check_range_pushed(
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
    pusher: Option<&Pusher>,
) -> Result<Vec<String>, Failure> {
    check_range_known(archive, old, new, pusher, &[], None)
}

/// As [`check_range_pushed`]; a commit that one of `known` (other branches' tips) already
/// contains is not the pusher's doing (a new branch made from an existing one), so only
/// the rules judge it. `arrived`: the hook's clock, when the push arrives at the server,
/// whose clock is the arbiter: a commit dated later is refused, and a step counts at
/// most at that time ([`crate::referee::clock::arrival_problem`]).
fn check_range_known(
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
    pusher: Option<&Pusher>,
    known: &[CommitId],
    arrived: Option<i64>,
) -> Result<Vec<String>, Failure> {
    let config = config_at(archive, new)?.unwrap_or_default();
    let club = pusher.map(|p| (p, config.club_accounts()));
    let pushed = club.as_ref().map(|(p, c)| (*p, c));
    let limits = config.limits();
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
    // The definitions the games pin as the branch held them, and those the pushed
    // commits add (the judge checks each pushed commit's own).
    let mut definitions = super::definitions::at(archive, old)?;
    let mut problems = Vec::new();
    for c in archive.commits_between(old, new)? {
        let mut by = pushed;
        if by.is_some() && !known.is_empty() {
            for k in known {
                if archive.is_ancestor(c.commit, *k)? {
                    by = None;
                    break;
                }
            }
        }
        for f in check_commit(archive, &c, by, arrived, &limits, &mut definitions)? {
            problems.push(format!("{} {}: {}", f.subject, c.commit.short(), f.problem));
        }
    }
    Ok(problems)
}

/// What is wrong with one incoming commit: what it changed, and whether the change is a
/// step of the player who authored it. A definition it adds joins `definitions`.
fn check_commit(
    archive: &Archive,
    c: &ArchiveCommit,
    pushed: Option<(&Pusher, &ClubAccounts)>,
    arrived: Option<i64>,
    limits: &Limits,
    definitions: &mut Definitions,
) -> Result<Vec<Finding>, Failure> {
    if let Some(findings) = settings_findings(archive, c, pushed)? {
        return Ok(findings);
    }
    // What no record may be, whatever it holds: too large, or a new name that other
    // systems cannot hold.
    let findings = file_findings(archive, c, pushed, limits)?;
    if !findings.is_empty() {
        return Ok(findings);
    }
    let changes: Vec<(&str, Option<&[u8]>)> =
        c.changes.iter().map(|ch| (ch.path.as_str(), ch.contents.as_deref())).collect();
    let (mut findings, changed) = judge::classify_changes(&changes, c.parent.is_none());
    if let Some(problem) =
        arrived.and_then(|a| crate::referee::clock::arrival_problem(c.time.unix_seconds(), a))
    {
        // Named as the record's other problems are: the game, choice, tournament or file.
        let subject = match &changed {
            Some(Changed::Game(g, _)) => g.id().to_string(),
            Some(Changed::Choice(name, _) | Changed::Definition(name, _) | Changed::Tournament(name, ..)) => {
                name.clone()
            }
            None => c.changes.first().map(|ch| ch.path.clone()).unwrap_or_default(),
        };
        findings.push(Finding { subject, problem });
        return Ok(findings);
    }
    // A symbolic link or submodule under games/ is no game, whatever it holds.
    for ch in c.changes.iter().filter(|ch| ch.contents.is_some()) {
        if let Some(problem) = archive.entry_problem_at(c.commit, &ch.path)? {
            findings.push(Finding { subject: ch.path.clone(), problem });
            return Ok(findings);
        }
    }
    let config = crate::archive::ArchiveConfig::PATH;
    if let Some((p, club)) = pushed
        && c.parent.is_none()
        && c.changes.iter().any(|ch| ch.path == config)
        && let Some(problem) = crate::referee::players::setup_push_problem(p, club)
    {
        findings.push(Finding { subject: config.to_string(), problem });
    }
    findings.extend(record_layout_findings(archive, c)?);
    if let Some(changed) = changed {
        findings.extend(check_record(archive, c, changed, pushed, arrived, limits, definitions)?);
    }
    Ok(findings)
}

/// When commit `c` changes the archive's settings (`ravenpost.yaml`, not in the first
/// commit): what is wrong with it as a migration of the layout
/// ([`crate::referee::judge_layout::judge_migration`]; pushed by an admin when the archive
/// names admins, as its set-up) or as a settings change
/// ([`crate::referee::judge_layout::judge_settings_change`]; pushed by an admin of the
/// settings before it). `None` for any other commit (a deletion of the settings too:
/// judged as today, refused).
fn settings_findings(
    archive: &Archive,
    c: &ArchiveCommit,
    pushed: Option<(&Pusher, &ClubAccounts)>,
) -> Result<Option<Vec<Finding>>, Failure> {
    use crate::referee::judge_layout::{SettingsChange, judge_migration, judge_settings_change};
    let config = crate::archive::ArchiveConfig::PATH;
    let (Some(parent), Some(after)) = (c.parent, c.changes.iter().find(|ch| ch.path == config)) else {
        return Ok(None);
    };
    let before = archive.read_file_at(parent, config).unwrap_or(None);
    let change = super::layout::settings_change(before.as_deref(), after.contents.as_deref());
    if change.is_settings_change() {
        let changed: Vec<&str> = c.changes.iter().map(|ch| ch.path.as_str()).collect();
        // The admins are those of the settings before the change: a non-admin cannot
        // make themselves one.
        let admins_before = club_accounts_at(archive, parent)?;
        let pushed = pushed.map(|(p, _)| (p, &admins_before));
        return Ok(Some(judge_settings_change(&changed, &change, pushed)));
    }
    if !matches!(change, SettingsChange::Layout { .. }) {
        return Ok(None);
    }
    let changes: Vec<(&str, Option<&[u8]>)> =
        c.changes.iter().map(|ch| (ch.path.as_str(), ch.contents.as_deref())).collect();
    let old: std::collections::HashMap<&str, Vec<u8>> = c
        .changes
        .iter()
        .filter(|ch| ch.contents.is_none())
        .filter_map(|ch| Some((ch.path.as_str(), archive.read_bytes_at(parent, &ch.path).ok()??)))
        .collect();
    let tree = archive.record_paths_at(c.commit)?;
    let tree: Vec<&str> = tree.iter().map(String::as_str).collect();
    let mut findings = judge_migration(&changes, |p| old.get(p).map(Vec::as_slice), change, &tree);
    if let Some((p, club)) = pushed
        && let Some(problem) = crate::referee::players::setup_push_problem(p, club)
    {
        findings.push(Finding { subject: config.to_string(), problem });
    }
    Ok(Some(findings))
}

/// What is wrong with where commit `c` writes records: a game or army choice file at a
/// path of the layout the archive does not use ([`crate::referee::judge_layout::layout_problem`]),
/// and a new game whose id another record of the tree has at another path.
fn record_layout_findings(archive: &Archive, c: &ArchiveCommit) -> Result<Vec<Finding>, Failure> {
    use crate::referee::judge_layout::{duplicate_ids, layout_problem};
    let written: Vec<&str> = c
        .changes
        .iter()
        .filter(|ch| ch.contents.is_some() && crate::referee::layout::record_layout(&ch.path).is_some())
        .map(|ch| ch.path.as_str())
        .collect();
    if written.is_empty() {
        return Ok(Vec::new());
    }
    let layout = layout_at(archive, c.commit)?;
    let mut findings: Vec<Finding> = written
        .iter()
        .filter_map(|p| layout_problem(p, layout).map(|problem| Finding { subject: p.to_string(), problem }))
        .collect();
    let created = match c.parent {
        Some(parent) => {
            let mut any = false;
            for p in &written {
                any |= archive.read_bytes_at(parent, p)?.is_none();
            }
            any
        }
        None => true,
    };
    if created {
        let tree = archive.record_paths_at(c.commit)?;
        // Ids that differ only in case: one game to a reader, and `new` refuses them.
        for w in &written {
            let Some(g) = crate::referee::layout::GamePath::parse(w) else { continue };
            let other = tree
                .iter()
                .filter_map(|p| crate::referee::layout::GamePath::parse(p))
                .find(|o| o.id() != g.id() && o.id().eq_ignore_ascii_case(g.id()));
            if let Some(o) = other {
                let why = format!(
                    "game id `{}` differs from `{}` ({}) only in case: on macOS and Windows their files would be one in the flat layout, and players would take them for one game",
                    g.id(),
                    o.id(),
                    o.path()
                );
                findings.push(Finding {
                    subject: w.to_string(),
                    problem: Problem::NotPortable { path: w.to_string(), why },
                });
            }
        }
        findings.extend(duplicate_ids(tree.iter().map(String::as_str)).into_iter().filter(|f| {
            written.iter().any(|w| {
                crate::referee::layout::GamePath::parse(w).is_some_and(|g| g.id() == f.subject)
                    || crate::referee::layout::parse_army_choice_path(w)
                        .is_some_and(|(_, id)| id == f.subject)
            })
        }));
    }
    Ok(findings)
}

/// The problems of the files a commit changes, as files: one over the archive's size
/// limit for its kind, a new name that is not portable (a Windows device name, a leading
/// `-`, a name that differs from another in its folder only by case), and a change of
/// `.gitattributes` pushed by an account that is no admin. Each names the path and the rule.
fn file_findings(
    archive: &Archive,
    c: &ArchiveCommit,
    pushed: Option<(&Pusher, &ClubAccounts)>,
    limits: &Limits,
) -> Result<Vec<Finding>, Failure> {
    use crate::referee::layout::{PathKind, case_collision, classify, portability_problem};
    let mut findings = Vec::new();
    for ch in &c.changes {
        let Some(bytes) = &ch.contents else { continue };
        let finding = |problem| Finding { subject: ch.path.clone(), problem };
        let record =
            !matches!(classify(&ch.path), PathKind::Allowed | PathKind::Attributes | PathKind::Other);
        let (limit, what, key) = if record {
            (limits.game_bytes, "a game file or other record", "game-bytes")
        } else {
            (limits.file_bytes, "a file that is no record", "file-bytes")
        };
        if bytes.len() as u64 > limit {
            findings.push(finding(Problem::FileTooLarge {
                path: ch.path.clone(),
                size: bytes.len() as u64,
                limit,
                what: what.to_string(),
                key: key.to_string(),
            }));
            continue;
        }
        let existed = match c.parent {
            Some(p) => archive.entry_mode_at(p, &ch.path)?.is_some(),
            None => false,
        };
        if !existed {
            if let Some(why) = portability_problem(&ch.path) {
                findings.push(finding(Problem::NotPortable { path: ch.path.clone(), why }));
                continue;
            }
            let (dir, name) = ch.path.rsplit_once('/').unwrap_or(("", &ch.path));
            let siblings = archive.names_at(c.commit, dir)?;
            if let Some(other) = case_collision(name, siblings.iter().map(String::as_str)) {
                let why = format!(
                    "`{name}` differs from `{other}` beside it only in case: on macOS and Windows they would be one file"
                );
                findings.push(finding(Problem::NotPortable { path: ch.path.clone(), why }));
                continue;
            }
        }
        if ch.path == crate::referee::layout::ATTRIBUTES_PATH
            && c.parent.is_some()
            && let Some((p, club)) = pushed
            && !club.admins.is_empty()
            && !club.admins.contains(&p.account)
        {
            findings.push(finding(Problem::AttributesByNonAdmin {
                pusher: p.account.clone(),
                variable: p.variable.clone(),
                admins: club.admins.clone(),
            }));
        }
    }
    Ok(findings)
}

/// What is wrong with a commit's change to the tournament file of `name` (`bytes`, its
/// new contents) with `records` beside it: judged by the referee from the file before the
/// commit and, for a knockout, its games' results at the parent.
fn tournament_finding(
    archive: &Archive,
    c: &ArchiveCommit,
    name: String,
    bytes: Option<&[u8]>,
    records: &[Changed<'_>],
    definitions: &Definitions,
) -> Result<Option<Finding>, Failure> {
    let path = crate::referee::tournament::Tournament::path(&name);
    let previous = match c.parent {
        Some(p) => archive.read_bytes_at(p, &path)?.map(|b| String::from_utf8(b).unwrap_or_default()),
        None => None,
    };
    let mut seen = Vec::new();
    for r in records {
        let (p, bytes) = match r {
            Changed::Game(g, b) => (g.path(), *b),
            Changed::Choice(id, b) => (ArmyChoice::path(layout_at(archive, c.commit)?, id), *b),
            Changed::Tournament(..) | Changed::Definition(..) => continue,
        };
        let before = match c.parent {
            Some(parent) => archive.read_bytes_at(parent, &p)?.is_some(),
            None => false,
        };
        seen.push((p, before, bytes.and_then(|b| std::str::from_utf8(b).ok())));
    }
    let list: Vec<(&str, bool, Option<&str>)> = seen.iter().map(|(p, e, t)| (p.as_str(), *e, *t)).collect();
    let text = bytes.and_then(|b| std::str::from_utf8(b).ok());
    let outcomes = super::checks::knockout_outcomes(archive, c.parent, previous.as_deref(), definitions)?;
    if let Some(problem) = crate::referee::tournament::judge_change(
        &name,
        previous.as_deref(),
        text,
        &list,
        &|id| outcomes.get(id).copied(),
        definitions,
    ) {
        return Ok(Some(Finding { subject: name, problem }));
    }
    Ok(None)
}

/// What is wrong with one record's change in the commit `c` (pushed by `pushed`, when the
/// server names the pusher). A definition it adds joins `definitions`.
fn check_record(
    archive: &Archive,
    c: &ArchiveCommit,
    changed: Changed<'_>,
    pushed: Option<(&Pusher, &ClubAccounts)>,
    arrived: Option<i64>,
    limits: &Limits,
    definitions: &mut Definitions,
) -> Result<Vec<Finding>, Failure> {
    let mut findings = Vec::new();
    let time = c.time.unix_seconds();
    let time = arrived.map_or(time, |a| crate::referee::clock::arrival_time(time, a));
    let info = CommitInfo { author: &c.author_name, time };
    match changed {
        Changed::Definition(name, bytes) => {
            let previous = match c.parent {
                Some(p) => archive.read_bytes_at(p, &crate::referee::layout::definition_path(&name))?,
                None => None,
            };
            match crate::referee::definitions::check_definition_change(&name, previous.as_deref(), bytes) {
                Ok(added) => {
                    if let Some(d) = added {
                        definitions.insert(d);
                    }
                }
                Err(problem) => {
                    findings
                        .push(Finding { subject: crate::referee::layout::definition_path(&name), problem });
                }
            }
        }
        Changed::Tournament(name, bytes, records) => {
            findings.extend(tournament_finding(archive, c, name, bytes, &records, definitions)?);
            for r in records {
                findings.extend(check_record(archive, c, r, pushed, arrived, limits, definitions)?);
            }
        }
        Changed::Choice(id, bytes) => {
            let text = bytes.map(|b| String::from_utf8_lossy(b).into_owned());
            let previous = match c.parent {
                Some(p) => archive.read_file_at(p, &ArmyChoice::path(layout_at(archive, p)?, &id))?,
                None => None,
            };
            let evidence =
                CommitEvidence { archive, commit: c.commit, earlier: || Ok(Vec::new()), located: None };
            match judge::judge_choice_version(&evidence, &id, info, previous.as_deref(), text.as_deref())? {
                Err(problem) => findings.push(Finding { subject: id, problem }),
                Ok(step) => {
                    if let Some((p, club)) = pushed
                        && let Some(choice) = text.as_deref().and_then(|t| ArmyChoice::from_yaml(t).ok())
                        && let Some(problem) =
                            crate::referee::players::choice_push_problem(p, club, &choice, step.player())
                    {
                        findings.push(Finding { subject: id, problem });
                    }
                }
            }
        }
        Changed::Game(game, bytes) => {
            let subject = game.id().to_string();
            let Some(bytes) = bytes else {
                findings.push(Finding { subject, problem: Problem::DeletedInPush });
                return Ok(findings);
            };
            let Ok(text) = std::str::from_utf8(bytes) else {
                findings.push(Finding { subject, problem: Problem::NotText });
                return Ok(findings);
            };
            // The plies counted before any is replayed (a ply takes at least two bytes).
            if text.len() / 2 > limits.plies
                && let Some(plies) = crate::notation::pgn::count_plies(bytes)
                && plies > limits.plies
            {
                let problem = Problem::TooManyPlies { plies, limit: limits.plies };
                findings.push(Finding { subject, problem });
                return Ok(findings);
            }
            let previous = match c.parent {
                Some(p) => archive.read_file_at(p, &game.path())?,
                None => None,
            };
            let earlier = || match c.parent {
                Some(parent) => archive.file_history_at(&game.path(), parent),
                None => Ok(Vec::new()),
            };
            let evidence = CommitEvidence { archive, commit: c.commit, earlier, located: None };
            let verdict = match &previous {
                None => judge::judge_game_version(&evidence, &game, info, None, text, definitions)?,
                Some(old) => match super::definitions::load(definitions, old) {
                    Ok(g0) => judge::judge_game_version(
                        &evidence,
                        &game,
                        info,
                        Some((&g0, old)),
                        text,
                        definitions,
                    )?,
                    Err(e) => Err(Problem::PreviousUnreadable { why: e.to_string() }),
                },
            };
            // A record that does not read: its place with the file's name (`games/gygax/
            // g.pgn:15:28: illegal move …`), as `sync` and the hook relay it.
            let verdict = match verdict {
                Err(Problem::Unreadable { why }) => match super::definitions::load(definitions, text) {
                    Err(e) => Err(Problem::Unreadable { why: e.in_file(&game.path()) }),
                    Ok(_) => Err(Problem::Unreadable { why }),
                },
                v => v,
            };
            match verdict {
                Err(problem) => findings.push(Finding { subject, problem }),
                Ok((step, game)) => {
                    if let Some((p, club)) = pushed
                        && let Some(problem) =
                            crate::referee::players::game_push_problem(p, club, &game, step.actor())
                    {
                        findings.push(Finding { subject, problem });
                    }
                }
            }
        }
    }
    Ok(findings)
}

/// `ravenpost hook check <old> <new> <ref>`: the problems with one ref update, pushed by
/// whoever the server names in the environment (the session's pusher, [`pusher_from`](super::pusher_from)).
///
/// # Errors
/// The archive's errors; a pusher variable that [`PUSHER_VAR_ENV`] names but is unset.
pub fn hook_check(session: &Session, old: &str, new: &str, refname: &str) -> Result<Vec<String>, Failure> {
    let pusher = session_pusher(session)?;
    let archive = Archive::open_for_hook(&session.cwd, session.git_env)?;
    // By hand, a commit may be named by a unique abbreviation (git passes full ids).
    let (old, new) = (archive.expand_abbreviated(old)?, archive.expand_abbreviated(new)?);
    let (old, new) = (old.as_str(), new.as_str());
    let update = crate::archive::RefUpdate::from_fields(old, new, refname)?;
    let old = archive.resolve(old)?;
    let new = archive.resolve(new)?;
    let new = match (new, update.problem()) {
        (Some(new), None) => new,
        (_, problem) => return Ok(problem.into_iter().map(|p| p.to_string()).collect()),
    };
    if let Some(problem) = other_branch_problem(&archive, refname, new)? {
        return Ok(vec![problem.to_string()]);
    }
    // A new branch: what other branches already hold was pushed before, by others.
    let known = if old.is_none() && pusher.is_some() { archive.branch_tips(refname)? } else { Vec::new() };
    // The server's clock says when the push arrived: no step may be dated later.
    let arrived = session.now().unix_seconds();
    // A computer player's step first: the other reasons (an account that did not push
    // it) would suggest that some other push could make it.
    let mut problems = computer_steps_pushed(&archive, old, new, &known)?;
    problems.extend(check_range_known(&archive, old, new, pusher.as_ref(), &known, Some(arrived))?);
    Ok(problems)
}

/// The pushed commits (those after `old` up to `new` that none of `known` holds) that
/// change a game as a computer player (`plays-by: bot` in the settings before or after
/// the push): its steps are made by the referee mailbox in the club's repository, never
/// pushed ([`Problem::ComputerStepPushed`]). A step is authored by its player (the judge
/// refuses any other), so the author's name says whose step it is.
fn computer_steps_pushed(
    archive: &Archive,
    old: Option<CommitId>,
    new: CommitId,
    known: &[CommitId],
) -> Result<Vec<String>, Failure> {
    let mut computers = config_at(archive, new)?.map(|c| c.computers()).unwrap_or_default();
    if let Some(o) = old {
        computers.extend(config_at(archive, o)?.map(|c| c.computers()).unwrap_or_default());
    }
    let mut problems = Vec::new();
    if computers.is_empty() {
        return Ok(problems);
    }
    'commits: for c in archive.commits_between(old, new)? {
        if !computers.contains(&c.author_name) {
            continue;
        }
        for k in known {
            if archive.is_ancestor(c.commit, *k)? {
                continue 'commits;
            }
        }
        for game in c.changes.iter().filter_map(|ch| GamePath::parse(&ch.path)) {
            let problem = Problem::ComputerStepPushed { player: c.author_name.clone() };
            problems.push(format!("{} {}: {problem}", game.id(), c.commit.short()));
        }
    }
    Ok(problems)
}

/// What is wrong with a push to `refname` (a branch) of the archive: a branch other than
/// the archive's own, unless its `ravenpost.yaml` (as the archive's branch holds it, not as
/// the push says) lists it under `branches:`. The archive's branch is the one the server's
/// `HEAD` names; while that does not exist, the one branch there is (or, in an empty
/// repository, the first pushed).
fn other_branch_problem(archive: &Archive, refname: &str, new: CommitId) -> Result<Option<Problem>, Failure> {
    let head = archive.branch().ok();
    let head_tip = match &head {
        Some(h) => archive.ref_tip(h)?,
        None => None,
    };
    let (branch, tip) = match (head, head_tip) {
        (Some(h), Some(t)) => (h, Some(t)),
        _ => {
            let mut others = archive.branch_names()?;
            others.retain(|b| b != refname);
            match others.as_slice() {
                [] => return Ok(None),
                [one] => (one.clone(), archive.ref_tip(one)?),
                _ => {
                    return Ok(Some(Problem::OtherBranch {
                        refname: refname.to_string(),
                        branch: others.join(", "),
                    }));
                }
            }
        }
    };
    if branch == refname {
        return Ok(None);
    }
    let config = config_at(archive, tip.unwrap_or(new))?.unwrap_or_default();
    let short = |r: &str| r.strip_prefix("refs/heads/").unwrap_or(r).to_string();
    if config.allows_branch(&short(refname)) {
        return Ok(None);
    }
    Ok(Some(Problem::OtherBranch { refname: refname.to_string(), branch: short(&branch) }))
}

/// `ravenpost hook check --explain`: how the hook will judge a push made now, with this
/// environment: who it takes the pusher to be and from which variable, or that the server
/// names nobody and steps are judged by the commits' author names only.
///
/// # Errors
/// As [`pusher_from`](super::pusher_from).
pub fn hook_explain(session: &Session) -> Result<String, Failure> {
    let vars: Vec<&str> = PUSHER_VARIABLES.iter().map(|(v, _)| *v).collect();
    let admins = Archive::open_for_hook(&session.cwd, session.git_env)
        .ok()
        .and_then(|a| a.tip().ok().flatten().map(|t| (a, t)))
        .and_then(|(a, t)| club_accounts_at(&a, t).ok())
        .map(|c| c.admins);
    let admins = match admins {
        None => {
            "the admins are listed in the archive's ravenpost.yaml (run this in the repository to see them)"
                .to_string()
        }
        Some(a) if a.is_empty() => {
            "ravenpost.yaml lists no admins, so any account may push the archive's first commit".to_string()
        }
        Some(a) => format!("admins (ravenpost.yaml): {}", a.join(", ")),
    };
    Ok(match session_pusher(session)? {
        Some(p) => {
            let server = PUSHER_VARIABLES
                .iter()
                .find(|(v, _)| *v == p.variable)
                .map(|(_, s)| *s)
                .unwrap_or("named by RAVENPOST_PUSHER_VAR");
            // One paragraph a line, each flush left.
            format!(
                "The git server names the pusher: account `{}` ({}, {server}).\n\
                 Each step (move, resignation, draw action, claim, leave, army choice step) must be pushed by an account of the player who takes it: the game's WhiteAccount/BlackAccount tag, else the player's entry under `accounts` in ravenpost.yaml, else the account named like the player.\n\
                 New games and army choices may be pushed by either player's account or an admin's; {admins}.\n\
                 The rules, author names and signatures are checked as always.",
                p.account, p.variable
            )
        }
        None => format!(
            "No pusher variable is set ({}, or the one {PUSHER_VAR_ENV} names): the hook cannot tell who pushed, so it judges each step by its commit's author name (and signature, where the game lists the player's key), as without a git server that authenticates pushes. Account tags and ravenpost.yaml accounts are not used.",
            vars.join(", ")
        ),
    })
}

/// The archive `sync` works on: as for the other commands, except that the repository
/// the command runs in counts even before it is an archive (a fresh clone of an empty
/// shared repository, or one whose first sync is still to come).
pub fn open_for_sync(session: &Session) -> Result<Archive, Failure> {
    if session.archive.is_none()
        && session.archive_env.is_none()
        && let Some(a) = Archive::discover_repository(&session.cwd)?
    {
        return Ok(a);
    }
    super::games::open(session, true)
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
            // A game pinning a definition replays with the commit's (a description only:
            // one that cannot be read falls back to naming the author).
            let definitions = super::definitions::at(archive, Some(c.commit)).unwrap_or_default();
            let checked = crate::referee::check_step_at(prev.as_deref(), text, None, None, &definitions);
            let (what, moved) = match checked {
                Ok(Step::Moved { ply, san, player, .. }) => {
                    let by = moved_by(text, ply, &player, &definitions);
                    (format!("ply {ply} {san} by {by}"), Some((ply, san, player)))
                }
                Ok(Step::Created) => ("the new game".to_string(), None),
                Ok(Step::Recorded { summary, player, .. }) => {
                    (with_player(text, &player, &summary, &definitions), None)
                }
                Err(_) => (format!("{}'s change", c.author_name), None),
            };
            out.push(step(g.id(), what, moved));
        }
    }
    out
}

/// The player of ply `ply` of the game `text` (named `player`) with the side in brackets,
/// `Ann (Gold)` ([`record::named`]); the name alone when the text does not replay.
fn moved_by(text: &str, ply: usize, player: &str, definitions: &Definitions) -> String {
    match super::definitions::load(definitions, text) {
        Ok(game) if ply >= 1 && ply <= game.moves.len() => {
            record::named(&game, game.position_at(ply - 1).side_to_move())
        }
        _ => player.to_string(),
    }
}

/// A recorded action's summary, which names the side (`Scarlet offers a draw`), with the
/// player's name before it, as a move names its player: `Bo (Scarlet) offers a draw`.
fn with_player(text: &str, player: &str, summary: &str, definitions: &Definitions) -> String {
    let Ok(game) = super::definitions::load(definitions, text) else { return summary.to_string() };
    let def = game.variant.def();
    for side in [crate::engine::Side::White, crate::engine::Side::Black] {
        let name = def.side_name(side);
        if let Some(rest) = summary.strip_prefix(name)
            && rest.starts_with(' ')
        {
            return format!("{player} ({name}){rest}");
        }
    }
    summary.to_string()
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
    /// What the server printed when it took the push (git's `remote: ` lines: a notify
    /// hook's `mailed …`), as a plain `git push` shows them.
    pub server: Vec<String>,
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
/// 3. Behind: fast-forward. Ahead: this archive's new commits are judged as the hook
///    will judge them (one made by hand that breaks the rules is refused here,
///    [`SyncRefusal::UnpushedIllegal`]), then pushed. Both moved: this archive's commits that the
///    remote already has (a sync interrupted after its push) are dropped; if the others
///    change games the remote's commits did not, they are replayed on top of the remote's
///    ([`Archive::replay_onto`]), judged again, and pushed; if both changed a game, the
///    remote's move stands ([`SyncRefusal::Diverged`]).
/// 4. A push overtaken by another clone's: fetch and go again, up to [`ATTEMPTS`] times.
///
/// Refusals change nothing here: neither the branch, the working copy, nor the accepted
/// tip or remote-tracking branch (except that a diverged remote whose commits are legal
/// is accepted as the remote's history, so that `git reset --hard REMOTE/BRANCH` takes it;
/// so is the remote's tip when the remote's hook refuses the push, for the same reset to
/// drop the refused commits).
///
/// # Errors
/// [`Failure::Sync`] for a refusal; the archive's errors.
pub fn sync(archive: &Archive, remote: &str, session: &Session) -> Result<SyncReport, Failure> {
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
            server: Vec::new(),
        };
        if sync_once(archive, remote, &mut report, session)? {
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

/// Whether `b` is the step of `a` taken again by an earlier `sync` on top of the remote's
/// (a crossing resignation, draw action or leave, [`retake_crossed`]) whose push landed:
/// the same author, time, message and files changed, with new versions of them.
fn retaken_as(a: &ArchiveCommit, b: &ArchiveCommit) -> bool {
    let paths = |c: &ArchiveCommit| c.changes.iter().map(|ch| ch.path.clone()).collect::<Vec<_>>();
    a.author_name == b.author_name
        && a.author_email == b.author_email
        && a.time == b.time
        && a.message == b.message
        && paths(a) == paths(b)
        && a.changes.iter().all(|ch| GamePath::parse(&ch.path).is_some())
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

/// Refuses a remote whose branch (now at `theirs`) no longer holds `accepted`, the tip
/// this clone last accepted from it: its history was rewritten.
fn not_rewritten(
    archive: &Archive,
    remote: &str,
    branch: &str,
    accepted: CommitId,
    theirs: Option<CommitId>,
) -> Result<(), Failure> {
    let kept = match theirs {
        Some(t) => archive.is_ancestor(accepted, t)?,
        None => false,
    };
    if kept {
        return Ok(());
    }
    let base = match theirs {
        Some(t) => archive.merge_base(accepted, t)?,
        None => None,
    };
    let vanished = describe(archive, &archive.commits_between(base, accepted)?);
    let replaced_by = match theirs {
        Some(t) => describe(archive, &archive.commits_between(base, t)?),
        None => Vec::new(),
    };
    Err(SyncRefusal::Rewritten {
        remote: remote.to_string(),
        branch: branch.to_string(),
        accepted: accepted.short(),
        remote_tip: theirs.map(|t| t.short()),
        vanished,
        replaced_by,
    }
    .into())
}

/// One round of `sync`; `Ok(false)` when the push was overtaken (fetch again).
fn sync_once(
    archive: &Archive,
    remote: &str,
    report: &mut SyncReport,
    session: &Session,
) -> Result<bool, Failure> {
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
        not_rewritten(archive, remote, &short, a, theirs)?;
    }
    let push = |report: &mut SyncReport, commit: CommitId, n: usize| -> Result<bool, Failure> {
        let outcome = archive.push(remote, commit)?;
        if let (PushOutcome::Refused { .. }, Some(t)) = (&outcome, theirs) {
            // The remote's tip (checked, and an ancestor of what was pushed or replayed
            // on) is where a reset drops the refused commits.
            archive.accept_remote_tip(remote, t)?;
        }
        match outcome {
            PushOutcome::Pushed { said } => {
                report.server = said;
                archive.accept_remote_tip(remote, commit)?;
                report.pushed = n;
                report.tip = Some(commit.short());
                Ok(true)
            }
            PushOutcome::Stale { .. } => Ok(false),
            PushOutcome::Refused { why } => {
                let branch = theirs.map(|_| report.branch.clone());
                Err(SyncRefusal::PushRefused { remote: remote.to_string(), why, branch }.into())
            }
        }
    };
    let (ours, theirs) = match (ours, theirs) {
        (None, None) => {
            let mut others = archive.remote_branches(remote).unwrap_or_default();
            others.retain(|b| *b != short);
            // `main` first: the branch `ravenpost init` makes.
            others.sort_by_key(|b| (b != "main", b.clone()));
            if !others.is_empty() {
                return Err(
                    SyncRefusal::NoSuchBranch { remote: remote.to_string(), branch: short, others }.into()
                );
            }
            report.outcome = SyncOutcome::Empty;
            return Ok(true);
        }
        (Some(o), None) => {
            report.outcome = SyncOutcome::PushedArchive;
            unpushed_legal(archive, None, o, remote, None)?;
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
        if let Err(e) = unpushed_legal(archive, Some(theirs), ours, remote, Some(&short)) {
            // The remote's tip (this archive's own ancestor) is where a reset drops them.
            archive.accept_remote_tip(remote, theirs)?;
            return Err(e);
        }
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
        .filter(|c| !incoming.iter().any(|i| same_step(c, i) || retaken_as(c, i)))
        .collect();
    let (mine, continued) = without_imported(archive, theirs, &incoming, mine)?;
    if mine.is_empty() {
        // Everything of ours is on the remote already (replayed by an interrupted sync).
        archive.fast_forward(Some(ours), theirs)?;
        report.outcome = SyncOutcome::Fetched;
        report.tip = Some(theirs.short());
        return Ok(true);
    }
    let crossing = Crossing { remote, branch: &short, theirs, fetched: &report.fetched };
    let mine = on_top_of_theirs(archive, &crossing, base, (&incoming, &continued), mine)?;
    let signer =
        archive.git_signing_key()?.map(|k| crate::archive::SshSigner::new(k).with_home(session.home.clone()));
    let replayed = archive.replay_onto(theirs, &mine, session.now(), signer.as_ref())?;
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

/// This archive's commits `mine` (since the common ancestor) without those that add
/// plies to a game file and leave it recording exactly the plies (start, moves, result)
/// of a version the remote's commits `incoming` made: a move imported from a mail of the
/// remote's commit (`mail import` commits it anew, with another id and time), which the
/// remote holds already. Also returns the games whose last such commit left the file byte
/// for byte as the remote's tip `theirs` holds it, with no step of this archive's kept
/// before it: this archive's later steps there continue the remote's file, and are
/// replayed on it as steps in other games are.
///
/// # Errors
/// The archive's errors.
fn without_imported(
    archive: &Archive,
    theirs: CommitId,
    incoming: &[ArchiveCommit],
    mine: Vec<ArchiveCommit>,
) -> Result<(Vec<ArchiveCommit>, BTreeSet<String>), Failure> {
    let mut definitions = None;
    let mut kept = Vec::with_capacity(mine.len());
    let mut continued = BTreeSet::new();
    let mut touched = BTreeSet::new();
    for c in mine {
        let imported = match (c.parent, c.changes.as_slice()) {
            (Some(parent), [only]) if GamePath::parse(&only.path).is_some() => {
                let theirs_versions: Vec<&[u8]> = incoming
                    .iter()
                    .flat_map(|i| i.changes.iter())
                    .filter(|ch| ch.path == only.path)
                    .filter_map(|ch| ch.contents.as_deref())
                    .collect();
                match (only.contents.as_deref(), theirs_versions.is_empty()) {
                    (Some(after), false) => {
                        let defs = match &definitions {
                            Some(d) => d,
                            None => definitions.insert(super::definitions::at(archive, Some(theirs))?),
                        };
                        let read = |b: &[u8]| {
                            std::str::from_utf8(b).ok().and_then(|t| super::definitions::load(defs, t).ok())
                        };
                        let before = archive.read_bytes_at(parent, &only.path)?;
                        match (read(after), before.as_deref().and_then(read)) {
                            (Some(a), Some(b)) if a.moves.len() > b.moves.len() => {
                                let same = |o: &crate::record::game::Game| {
                                    o.start == a.start
                                        && o.moves == a.moves
                                        && crate::record::result_of(o) == crate::record::result_of(&a)
                                };
                                theirs_versions.iter().any(|v| read(v).is_some_and(|o| same(&o)))
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        let ids = subjects(&c);
        if !imported {
            touched.extend(ids);
            kept.push(c);
            continue;
        }
        let only = &c.changes[0];
        let at_tip = archive.read_bytes_at(theirs, &only.path)?;
        for id in ids {
            if at_tip.as_deref() == only.contents.as_deref() && !touched.contains(&id) {
                continued.insert(id);
            } else {
                continued.remove(&id);
            }
        }
    }
    Ok((kept, continued))
}

/// Where this archive's steps in a game the remote also changed are taken again.
struct Crossing<'a> {
    remote: &'a str,
    branch: &'a str,
    /// The remote's tip.
    theirs: CommitId,
    /// The remote's commits since the common ancestor.
    fetched: &'a [SyncStep],
}

/// This archive's commits `mine` since the common ancestor `base`, to replay on the
/// remote's `incoming`: as they are when they change other games; with a resignation,
/// draw action or leave that crossed the remote's step in the same game taken again after
/// it ([`retake_crossed`]).
///
/// # Errors
/// [`SyncRefusal::Diverged`] when both moved in the same game (the remote's move stands);
/// [`retake_crossed`]'s.
fn on_top_of_theirs(
    archive: &Archive,
    crossing: &Crossing<'_>,
    base: Option<CommitId>,
    (incoming, continued): (&[ArchiveCommit], &BTreeSet<String>),
    mine: Vec<ArchiveCommit>,
) -> Result<Vec<ArchiveCommit>, Failure> {
    let their_games: BTreeSet<String> = incoming.iter().flat_map(subjects).collect();
    let my_games: BTreeSet<String> = mine.iter().flat_map(subjects).collect();
    let clash: Vec<String> =
        my_games.intersection(&their_games).filter(|g| !continued.contains(*g)).cloned().collect();
    if clash.is_empty() {
        return Ok(mine);
    }
    if let Some(retaken) = retake_crossed(archive, crossing, &mine, &clash)? {
        return Ok(retaken);
    }
    Err(SyncRefusal::Diverged {
        remote: crossing.remote.to_string(),
        branch: crossing.branch.to_string(),
        base: base.map(|b| b.short()),
        theirs: crossing.fetched.to_vec(),
        ours: describe(archive, &mine),
        clash,
    }
    .into())
}

/// This archive's commits `mine` (since the common ancestor), with each step in a game of
/// `clash` (changed on the remote too) taken again on the game as the remote's commits
/// left it ([`record::retake_action`]): the same player's resignation, draw action or
/// booked leave, judged anew there, with the new version of the file (and the message
/// for it) in place of the old. `None` when some such step is no action that can be taken
/// again (a move made on the older position, a time-forfeit claim).
///
/// # Errors
/// [`SyncRefusal::RetakeRefused`] when one no longer holds (a draw claim whose grounds
/// the remote's move removed, an action on a game the remote finished).
fn retake_crossed(
    archive: &Archive,
    crossing: &Crossing<'_>,
    mine: &[ArchiveCommit],
    clash: &[String],
) -> Result<Option<Vec<ArchiveCommit>>, Failure> {
    let mut texts: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let mut out = Vec::with_capacity(mine.len());
    for c in mine {
        let mut c = c.clone();
        let crossed: Vec<GamePath> = c
            .changes
            .iter()
            .filter_map(|ch| GamePath::parse(&ch.path))
            .filter(|g| clash.iter().any(|id| id == g.id()))
            .collect();
        if crossed.is_empty() {
            // Army choice files of a clashed game are no action to take again.
            if c.changes
                .iter()
                .any(|ch| ArmyChoice::parse_path(&ch.path).is_some_and(|id| clash.iter().any(|x| x == id)))
            {
                return Ok(None);
            }
            out.push(c);
            continue;
        }
        let (Some(parent), [only]) = (c.parent, c.changes.as_mut_slice()) else { return Ok(None) };
        let path = &crossed[0];
        let definitions = super::definitions::at(archive, Some(c.commit))?;
        let read = |t: Option<String>| t.and_then(|t| super::definitions::load(&definitions, &t).ok());
        let before = read(archive.read_file_at(parent, &only.path)?);
        let after =
            read(only.contents.as_deref().and_then(|b| std::str::from_utf8(b).ok()).map(str::to_string));
        let onto_text = match texts.get(&only.path) {
            Some(t) => Some(t.clone()),
            None => archive.read_file_at(crossing.theirs, &only.path)?,
        };
        let (Some(before), Some(after), Some(onto)) = (before, after, read(onto_text)) else {
            return Ok(None);
        };
        let Some(retaken) = record::retake_action(&before, &after, &onto) else { return Ok(None) };
        let applied = match retaken {
            Ok((applied, _)) => applied,
            Err(why) => {
                let what = record::recognise_action(&before, &after).map_or_else(
                    || "your step".to_string(),
                    |a| with_player(&after.canonical_text(), &a.player, &a.summary, &definitions),
                );
                return Err(SyncRefusal::RetakeRefused {
                    remote: crossing.remote.to_string(),
                    branch: crossing.branch.to_string(),
                    game: path.id().to_string(),
                    theirs: crossing.fetched.to_vec(),
                    what,
                    why: why.to_string(),
                }
                .into());
            }
        };
        only.contents = Some(applied.text.clone().into_bytes());
        c.message = format!("{}: {}", path.id(), applied.summary);
        texts.insert(only.path.clone(), applied.text);
        out.push(c);
    }
    Ok(Some(out))
}

/// This archive's commits after `from` up to `to`, about to be pushed, judged as the
/// remote's hook judges a push ([`check_range`]): a commit made by hand that breaks the
/// rules is refused here, before the server is asked ([`SyncRefusal::UnpushedIllegal`];
/// `branch`: the remote's, to reset to).
fn unpushed_legal(
    archive: &Archive,
    from: Option<CommitId>,
    to: CommitId,
    remote: &str,
    branch: Option<&str>,
) -> Result<(), Failure> {
    let problems = check_range(archive, from, to)?;
    if problems.is_empty() {
        return Ok(());
    }
    let branch = branch.map(str::to_string);
    Err(SyncRefusal::UnpushedIllegal { remote: remote.to_string(), problems, branch }.into())
}

fn verified(archive: &Archive, from: Option<CommitId>, to: CommitId, remote: &str) -> Result<(), Failure> {
    let mut problems = check_range(archive, from, to)?;
    if problems.is_empty() {
        problems = not_my_steps(archive, from, to)?;
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(SyncRefusal::Illegal { remote: remote.to_string(), problems }.into())
}

/// The steps among the commits after `from` up to `to` that were made in the name of the
/// player this clone's identity is, but not by them ([`Problem::NotYourStep`]): authored
/// as that player, committed by someone else, unsigned, in a game that lists no server
/// account for them (and no `ravenpost.yaml` registry entry) by which a club server would
/// have checked who pushed. One line a problem, as [`check_range`] gives them.
fn not_my_steps(archive: &Archive, from: Option<CommitId>, to: CommitId) -> Result<Vec<String>, Failure> {
    use crate::referee::players::{account_tag, email_tag};
    let Ok(me) = archive.identity(None) else { return Ok(Vec::new()) };
    let club = club_accounts_at(archive, to)?;
    // Per game: the player this identity is there, unless an account vouches for them
    // (read from the tags once; a game's tags never change).
    let mut mine: std::collections::HashMap<String, Option<String>> = std::collections::HashMap::new();
    let mut problems = Vec::new();
    for c in archive.commits_between(from, to)? {
        let Some(parent) = c.parent else { continue };
        for ch in &c.changes {
            let Some(path) = GamePath::parse(&ch.path) else { continue };
            // A step, not the game's creation: the file was there before.
            if ch.contents.is_none() || archive.entry_mode_at(parent, &ch.path)?.is_none() {
                continue;
            }
            let player = mine.entry(ch.path.clone()).or_insert_with(|| {
                let text = ch.contents.as_deref().and_then(|b| std::str::from_utf8(b).ok())?;
                let tags = crate::notation::pgn::read_games(text).into_iter().next()?.ok()?;
                let side = crate::engine::Side::ALL.into_iter().find(|&s| {
                    let name = tags.tag(if s == crate::engine::Side::White { "White" } else { "Black" });
                    name == Some(me.name.as_str())
                        || tags
                            .tag(email_tag(s))
                            .is_some_and(|e| e.trim().eq_ignore_ascii_case(me.email.trim()))
                })?;
                let player = tags.tag(if side == crate::engine::Side::White { "White" } else { "Black" })?;
                let vouched = tags.tag(account_tag(side)).is_some() || club.players.contains_key(player);
                (!vouched).then(|| player.to_string())
            });
            let Some(player) = player.clone() else { continue };
            if c.author_name != player {
                continue;
            }
            let committer = archive.committer_of(c.commit)?;
            if committer.email.eq_ignore_ascii_case(&me.email)
                || archive.commit_signature(c.commit)?.is_some()
            {
                continue;
            }
            let committer = format!("{} <{}>", committer.name, committer.email);
            let problem = Problem::NotYourStep { player, committer };
            problems.push(format!("{} {}: {problem}", path.id(), c.commit.short()));
        }
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usecases::session::{PusherUnnamed, pusher_from};

    /// An environment of these variables only.
    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| (*v).to_string())
    }

    fn pusher(account: &str, variable: &str) -> Option<Pusher> {
        Some(Pusher { account: account.into(), variable: variable.into() })
    }

    #[test]
    fn gitolite_names_the_pusher_in_gl_user() {
        assert_eq!(pusher_from(env(&[("GL_USER", "ann")])), Ok(pusher("ann", "GL_USER")));
    }

    #[test]
    fn git_http_backend_names_the_pusher_in_remote_user() {
        assert_eq!(pusher_from(env(&[("REMOTE_USER", "bo")])), Ok(pusher("bo", "REMOTE_USER")));
    }

    #[test]
    fn gitlab_names_the_pusher_in_gl_username() {
        assert_eq!(pusher_from(env(&[("GL_USERNAME", "cy")])), Ok(pusher("cy", "GL_USERNAME")));
    }

    #[test]
    fn gitea_and_forgejo_name_the_pusher_in_gitea_pusher_name() {
        assert_eq!(pusher_from(env(&[("GITEA_PUSHER_NAME", "di")])), Ok(pusher("di", "GITEA_PUSHER_NAME")));
    }

    #[test]
    fn ravenpost_pusher_var_names_another_variable_and_only_that_one_is_read() {
        let vars = [(PUSHER_VAR_ENV, "CLUB_USER"), ("CLUB_USER", "ed"), ("GL_USER", "ann")];
        assert_eq!(pusher_from(env(&vars)), Ok(pusher("ed", "CLUB_USER")));
    }

    #[test]
    fn a_pusher_variable_named_but_unset_refuses_rather_than_trusting_author_names() {
        let err = pusher_from(env(&[(PUSHER_VAR_ENV, "CLUB_USER"), ("GL_USER", "ann")])).unwrap_err();
        assert_eq!(err, PusherUnnamed { variable: "CLUB_USER".into() });
    }

    #[test]
    fn without_any_pusher_variable_nobody_is_named() {
        assert_eq!(pusher_from(env(&[("USER", "root"), ("HOME", "/root")])), Ok(None));
    }

    #[test]
    fn an_empty_pusher_variable_is_not_a_pusher_and_the_next_one_is_read() {
        assert_eq!(
            pusher_from(env(&[("GL_USER", " "), ("REMOTE_USER", "bo")])),
            Ok(pusher("bo", "REMOTE_USER"))
        );
    }

    #[test]
    fn gitolite_comes_before_remote_user() {
        // gitolite served over smart HTTP sees both; GL_USER is gitolite's own word.
        let vars = [("REMOTE_USER", "web"), ("GL_USER", "ann")];
        assert_eq!(pusher_from(env(&vars)), Ok(pusher("ann", "GL_USER")));
    }

    #[test]
    fn the_hook_script_exports_the_named_pusher_variable_and_skips_gitolite_admin_when_common() {
        let text = hook_script_with(Path::new("/usr/bin/ravenpost"), Some("CLUB_USER"), true);
        assert!(text.contains("RAVENPOST_PUSHER_VAR='CLUB_USER'\nexport RAVENPOST_PUSHER_VAR\n"), "{text}");
        assert!(text.contains("\"${GL_REPO:-}\" = gitolite-admin"), "{text}");
        let plain = hook_script(Path::new("/usr/bin/ravenpost"));
        assert!(!plain.contains("RAVENPOST_PUSHER_VAR=") && !plain.contains("GL_REPO"), "{plain}");
    }
}
