//! What correspondence over a git remote needs: opening the repository a git hook runs
//! in, resolving and comparing commits, fetching a remote's branch and fast-forwarding to
//! it, replaying local commits on top of the remote's, and remembering the remote tip
//! `sync` last accepted. Pushing is left to the `git` command line (it runs the server's
//! hooks and knows every transport).
//!
//! **Refs of ravenpost's own** (never pushed: `sync` pushes the branch only):
//! `refs/ravenpost/accepted/<remote>/<branch>` is the remote tip `sync` last accepted
//! (checked, or pushed there by this clone); a remote whose branch no longer contains it
//! was rewritten. A fetch lands in `refs/ravenpost/fetched/<remote>/<branch>` for as long
//! as it takes to read it; the remote-tracking branch `refs/remotes/<remote>/<branch>`
//! moves only when `sync` accepts what was fetched.
//!
//! **Shallow and partial clones.** libgit2 cannot fetch into a shallow clone without
//! breaking it (it drops `.git/shallow`), nor fetch the objects a partial clone
//! (`--filter=blob:none`) leaves out. In those clones fetching goes through the `git`
//! command line, which keeps the shallow boundary and the filter; a blob missing from a
//! partial clone is fetched from its promisor remote when it is read
//! ([`Archive::fetch_missing_blobs`]).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use git2::{FetchOptions, Repository};

use super::{Archive, ArchiveCommit, ArchiveError, BlobId, CommitId, SshSigner, Timestamp};

/// `text` with the password of every URL in it hidden, as git shows such URLs:
/// `http://bo:secret@host/chess.git` becomes `http://bo:<redacted>@host/chess.git` (a
/// user name alone is kept). Every message that may show a remote's URL goes through it.
pub fn redact_url_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority: up to the path, query, fragment, or the end of the URL in text.
        let end = tail
            .find(|c: char| matches!(c, '/' | '?' | '#' | '\'' | '"' | '<' | '>') || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@').and_then(|a| authority[..a].find(':').map(|c| (c, a))) {
            Some((colon, a)) => {
                out.push_str(&authority[..=colon]);
                out.push_str("<redacted>");
                out.push_str(&authority[a..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The line `hook check` prints for a ref update it accepts:
/// `ravenpost: refs/heads/main 1a2b3c4d5e6f..7a8b9c0d1e2f: accepted` (the ids as given,
/// at most 12 digits each). A push relays it with the hook's other lines; it is never a
/// reason for a refusal.
pub fn hook_accepted_line(refname: &str, old: &str, new: &str) -> String {
    let short = |id: &str| id.get(..12).unwrap_or(id).to_string();
    format!("ravenpost: {refname} {}..{}{HOOK_ACCEPTED}", short(old), short(new))
}

/// How [`hook_accepted_line`] ends.
const HOOK_ACCEPTED: &str = ": accepted";

/// One line a server's hook printed for a refused push, as git relays it (`remote: `
/// first, padded with spaces at the end): the line alone, without git's padding or the
/// hook's own `ravenpost: ` prefix (the refusal is shown under ravenpost's own); `None`
/// for a line that is not the hook's.
fn hook_reason(line: &str) -> Option<&str> {
    let line = line.strip_prefix("remote: ")?.trim_end();
    if !line.starts_with("ravenpost") || line.ends_with(HOOK_ACCEPTED) {
        return None;
    }
    Some(line.strip_prefix("ravenpost:").map_or(line, str::trim_start))
}

/// The lines a server printed during a push, as git relays them (`remote: ` first, padded
/// with spaces or ended by a terminal's erase code): each with git's `remote: ` prefix and
/// without the padding; blank lines and the hook's own accepted line
/// ([`hook_accepted_line`]) are left out.
fn server_lines(err: &str) -> Vec<String> {
    err.lines()
        .filter_map(|l| l.strip_prefix("remote:"))
        .map(|l| l.trim_end_matches("\u{1b}[K").trim_end().trim_start_matches(' '))
        .filter(|l| !l.is_empty())
        .filter(|l| !(l.starts_with("ravenpost:") && l.ends_with(HOOK_ACCEPTED)))
        .map(|l| format!("remote: {l}"))
        .collect()
}

/// What became of a push.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PushOutcome {
    /// The remote's branch is now the pushed commit.
    Pushed {
        /// The lines the server printed (git's `remote: ` lines, as a plain `git push`
        /// shows them, without git's padding), except the hook's own `accepted` line.
        said: Vec<String>,
    },
    /// The remote's branch moved since it was fetched (another clone pushed first): fetch
    /// again and retry.
    Stale {
        /// git's words.
        why: String,
    },
    /// The remote refused the push (its hook, or its settings).
    Refused {
        /// The hook's `ravenpost:` lines, else git's message.
        why: String,
    },
}

impl Archive {
    /// Opens the repository a git hook runs in, as git describes it in the environment
    /// (`GIT_DIR`, and the quarantine object directories of a push being received), else
    /// the repository at `dir`. It need not be an archive yet (a first push makes it one).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::NotARepository`], git failures.
    pub fn open_for_hook(dir: &Path, git_env: bool) -> Result<Archive, ArchiveError> {
        let repo = if git_env { Repository::open_from_env() } else { Repository::open(dir) };
        match repo {
            Ok(r) => Ok(Archive::from_repo(r)),
            Err(e) if super::not_found(&e) => Err(ArchiveError::NotARepository { dir: dir.to_path_buf() }),
            Err(e) => Err(ArchiveError::git_path("open repository", dir.display().to_string(), e)),
        }
    }

    /// The git repository `cwd` is in (searching parents as git does), archive or not
    /// (a fresh clone of an empty shared repository is no archive yet); `None` outside
    /// any repository. A write a killed ravenpost left half done there is finished first,
    /// as [`Archive::recover_interrupted_write`] does (`sync` opens its clone this way:
    /// without it, a `sync` that stopped at once for want of a remote left the index one
    /// move behind the branch).
    ///
    /// # Errors
    ///
    /// Git failures other than "not found".
    pub fn discover_repository(cwd: &Path) -> Result<Option<Archive>, ArchiveError> {
        match Repository::discover(cwd) {
            Ok(r) => {
                let archive = Archive::from_repo(r);
                // A failure here is left for the next write, which reports it.
                let _ = archive.recover_interrupted_write();
                Ok(Some(archive))
            }
            Err(e) if super::not_found(&e) => Ok(None),
            Err(e) => Err(ArchiveError::git_path("discover repository", cwd.display().to_string(), e)),
        }
    }

    /// The commit named by a full hex id; `None` for git's all-zero id (no commit: a new
    /// or deleted branch).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`] for a malformed id or one not in the repository.
    pub fn resolve(&self, hex: &str) -> Result<Option<CommitId>, ArchiveError> {
        let id: CommitId = hex.parse()?;
        if id.0.is_zero() {
            return Ok(None);
        }
        self.find_commit(id)?;
        Ok(Some(id))
    }

    /// The full 40-hex id of the commit a unique abbreviation (4 to 39 hex digits) names,
    /// for ids typed by hand (`hook check 165e352f …`); a full id or anything else is
    /// returned as it is, for [`Archive::resolve`] to judge.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::UnknownCommit`] for an abbreviation no commit has, or more than one.
    pub fn expand_abbreviated(&self, hex: &str) -> Result<String, ArchiveError> {
        if !(4..40).contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(hex.to_string());
        }
        match self.repo.find_commit_by_prefix(hex) {
            Ok(c) => Ok(c.id().to_string()),
            Err(e) if e.code() == git2::ErrorCode::Ambiguous => Err(ArchiveError::UnknownCommit {
                oid: hex.to_string(),
                reason: "ambiguous: more than one commit starts so; give more digits or the full 40-hex id",
            }),
            Err(_) => Err(ArchiveError::UnknownCommit {
                oid: hex.to_string(),
                reason: "no commit of the repository starts so (a full id is 40 hex digits)",
            }),
        }
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn is_ancestor(&self, ancestor: CommitId, descendant: CommitId) -> Result<bool, ArchiveError> {
        if ancestor == descendant {
            return Ok(true);
        }
        self.repo
            .graph_descendant_of(descendant.0, ancestor.0)
            .map_err(|e| ArchiveError::git_oid("compare commits", descendant.0, e))
    }

    /// The repository's branches (`refs/heads/*`), by full name, sorted.
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn branch_names(&self) -> Result<Vec<String>, ArchiveError> {
        let refs =
            self.repo.references_glob("refs/heads/*").map_err(|e| ArchiveError::git("list branches", e))?;
        let mut names = Vec::new();
        for r in refs {
            let r = r.map_err(|e| ArchiveError::git("list branches", e))?;
            if let Ok(name) = r.name() {
                names.push(name.to_string());
            }
        }
        names.sort();
        Ok(names)
    }

    /// The commit the ref `refname` points at, if it exists.
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn ref_tip(&self, refname: &str) -> Result<Option<CommitId>, ArchiveError> {
        Ok(self.ref_target(refname)?.map(CommitId))
    }

    /// The commits the repository's branches (`refs/heads/*`) point at, but `except`'s.
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn branch_tips(&self, except: &str) -> Result<Vec<CommitId>, ArchiveError> {
        let refs =
            self.repo.references_glob("refs/heads/*").map_err(|e| ArchiveError::git("list branches", e))?;
        let mut tips = Vec::new();
        for r in refs {
            let r = r.map_err(|e| ArchiveError::git("list branches", e))?;
            if r.name().ok() == Some(except) {
                continue;
            }
            if let Ok(c) = r.peel_to_commit() {
                tips.push(CommitId(c.id()));
            }
        }
        Ok(tips)
    }

    /// The best common ancestor of two commits, if they have one.
    ///
    /// # Errors
    ///
    /// Git failures.
    pub fn merge_base(&self, a: CommitId, b: CommitId) -> Result<Option<CommitId>, ArchiveError> {
        match self.repo.merge_base(a.0, b.0) {
            Ok(oid) => Ok(Some(CommitId(oid))),
            Err(e) if super::not_found(&e) => Ok(None),
            Err(e) => Err(ArchiveError::git_oid("find merge base", a.0, e)),
        }
    }

    /// The URL of the remote `name`.
    ///
    /// # Errors
    ///
    /// A git failure naming the remote when there is no such remote.
    pub fn remote_url(&self, name: &str) -> Result<String, ArchiveError> {
        let remote =
            self.repo.find_remote(name).map_err(|e| ArchiveError::git_path("find remote", name, e))?;
        Ok(remote.url().unwrap_or_default().to_string())
    }

    /// The short name of the branch (`main` for `refs/heads/main`).
    fn branch_short(&self) -> Result<String, ArchiveError> {
        let branch = self.branch()?;
        Ok(branch.strip_prefix("refs/heads/").unwrap_or(&branch).to_string())
    }

    /// The ref that remembers the tip of `remote`'s branch that `sync` last accepted:
    /// `refs/ravenpost/accepted/<remote>/<branch>`.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`].
    pub fn accepted_ref(&self, remote: &str) -> Result<String, ArchiveError> {
        Ok(format!("refs/ravenpost/accepted/{remote}/{}", self.branch_short()?))
    }

    /// The tip of `remote`'s branch that `sync` last accepted; `None` if it never did (or
    /// the commit is no longer in the repository).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn accepted(&self, remote: &str) -> Result<Option<CommitId>, ArchiveError> {
        let id = self.ref_target(&self.accepted_ref(remote)?)?;
        Ok(id.filter(|id| self.repo.find_commit(*id).is_ok()).map(CommitId))
    }

    /// The remote-tracking branch of `remote` (`refs/remotes/<remote>/<branch>`), if any.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn tracking(&self, remote: &str) -> Result<Option<CommitId>, ArchiveError> {
        let id = self.ref_target(&format!("refs/remotes/{remote}/{}", self.branch_short()?))?;
        Ok(id.filter(|id| self.repo.find_commit(*id).is_ok()).map(CommitId))
    }

    /// Records `tip` as the tip of `remote`'s branch that `sync` accepted: the accepted
    /// ref and the remote-tracking branch both point at it.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures.
    pub fn accept_remote_tip(&self, remote: &str, tip: CommitId) -> Result<(), ArchiveError> {
        let short = self.branch_short()?;
        let message = format!("ravenpost sync: accepted {remote}/{short} at {}", tip.short());
        for name in [self.accepted_ref(remote)?, format!("refs/remotes/{remote}/{short}")] {
            self.repo
                .reference(&name, tip.0, true, &message)
                .map_err(|e| ArchiveError::git_path("update ref", name.clone(), e))?;
        }
        Ok(())
    }

    /// Whether fetching must go through the `git` command line: a shallow clone (libgit2
    /// would drop its boundary) or a partial one (libgit2 knows no filters).
    pub fn fetches_with_git(&self) -> bool {
        self.repo.is_shallow() || self.promisor_remote().is_some()
    }

    /// The promisor remote of a partial clone (`extensions.partialClone`, else the first
    /// remote with `promisor = true`); `None` for a complete clone.
    pub fn promisor_remote(&self) -> Option<String> {
        let config = self.repo.config().ok()?.snapshot().ok()?;
        if let Ok(name) = config.get_string("extensions.partialclone") {
            return Some(name);
        }
        let remotes = self.repo.remotes().ok()?;
        remotes
            .iter()
            .flatten()
            .flatten()
            .find(|r| config.get_bool(&format!("remote.{r}.promisor")).unwrap_or(false))
            .map(str::to_string)
    }

    /// Fetches those of `blobs` this partial clone lacks from its promisor remote, all in
    /// one `git fetch` (as git itself fetches missing objects); nothing to do in a complete
    /// clone. `path` names the file in errors. Returns how many were missing.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::MissingObject`] when the fetch fails (the message says how to fetch
    /// by hand).
    pub fn fetch_missing_blobs(&self, blobs: &[BlobId], path: &str) -> Result<usize, ArchiveError> {
        let Some(remote) = self.promisor_remote() else { return Ok(0) };
        let odb = self.repo.odb().map_err(|e| ArchiveError::git("open object database", e))?;
        let mut missing: Vec<String> =
            blobs.iter().filter(|b| !odb.exists(b.0)).map(|b| b.0.to_string()).collect();
        missing.sort();
        missing.dedup();
        if missing.is_empty() {
            return Ok(0);
        }
        let failed = |why: String| ArchiveError::MissingObject {
            path: path.to_string(),
            oid: missing[0].clone(),
            why,
            remote: remote.clone(),
            dir: self.dir().components().collect(),
        };
        let child = Command::new("git")
            .arg("-C")
            .arg(self.dir())
            .args(["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags"])
            .args(["--no-write-fetch-head", "--recurse-submodules=no", "--refmap=", "--filter=blob:none"])
            .args([remote.as_str(), "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = child.map_err(|e| failed(format!("running git fetch: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all((missing.join("\n") + "\n").as_bytes());
        }
        let out = child.wait_with_output().map_err(|e| failed(format!("running git fetch: {e}")))?;
        if !out.status.success() {
            return Err(failed(String::from_utf8_lossy(&out.stderr).trim().to_string()));
        }
        // libgit2 looks for new packs when an object is not found.
        let still: Vec<&String> =
            missing.iter().filter(|m| m.parse().is_ok_and(|o| !odb.exists(o))).collect();
        if let Some(first) = still.first() {
            let mut e =
                failed(format!("{} of {} objects still missing after git fetch", still.len(), missing.len()));
            if let ArchiveError::MissingObject { oid, .. } = &mut e {
                *oid = (*first).clone();
            }
            return Err(e);
        }
        Ok(missing.len())
    }

    /// The branches the remote `name` has (short names), as `git ls-remote` lists them.
    ///
    /// # Errors
    ///
    /// When git cannot be run or cannot reach the remote.
    pub fn remote_branches(&self, name: &str) -> Result<Vec<String>, ArchiveError> {
        let out = Command::new("git")
            .arg("-C")
            .arg(self.dir())
            .args(["ls-remote", "--heads", name])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| ArchiveError::io("run git ls-remote", self.dir(), e))?;
        if !out.status.success() {
            return Err(ArchiveError::Git {
                op: "git ls-remote",
                path: Some(name.to_string()),
                oid: None,
                message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('\t')?.1.strip_prefix("refs/heads/").map(str::to_string))
            .collect())
    }

    /// Fetches our branch from the remote `name` and returns the remote's tip (`None` if
    /// the remote has no such branch). No ref of ours moves ([`Archive::accept_remote_tip`]
    /// does that once the commits are accepted): the branch lands in a ref of ravenpost's
    /// own, removed again once read; the objects stay. Local paths and `file://` URLs are
    /// fetched with libgit2; other URLs (ssh, https), and shallow or partial clones, with
    /// `git fetch`, so that git's own credentials and ssh setup apply and the clone stays
    /// valid for git.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures (unreachable remote).
    pub fn fetch(&self, name: &str) -> Result<Option<CommitId>, ArchiveError> {
        let branch = self.branch()?;
        let short = self.branch_short()?;
        let landing = format!("refs/ravenpost/fetched/{name}/{short}");
        let url = self.remote_url(name)?;
        let local = url.starts_with("file://") || Path::new(&url).exists();
        let forget = || {
            if let Ok(mut r) = self.repo.find_reference(&landing) {
                let _ = r.delete();
            }
        };
        // A remote without the branch leaves no ref behind.
        forget();
        let refspec = format!("+{branch}:{landing}");
        if local && !self.fetches_with_git() {
            // An anonymous remote: only our refspec, no opportunistic update of the
            // remote-tracking branch.
            let mut remote = self
                .repo
                .remote_anonymous(&url)
                .map_err(|e| ArchiveError::git_path("find remote", name, e))?;
            let mut opts = FetchOptions::new();
            opts.update_fetchhead(false);
            match remote.fetch(&[refspec.as_str()], Some(&mut opts), None) {
                Ok(()) => {}
                Err(e) if e.message().contains("not find remote ref") || super::not_found(&e) => {
                    return Ok(None);
                }
                Err(e) => {
                    let mut e = ArchiveError::git_path("fetch", redact_url_passwords(&url), e);
                    if let ArchiveError::Git { message, .. } = &mut e {
                        *message = redact_url_passwords(message);
                    }
                    return Err(e);
                }
            }
        } else {
            let out = Command::new("git")
                .arg("-C")
                .arg(self.dir())
                .args(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=", name, &refspec])
                .output()
                .map_err(|e| ArchiveError::io("run git fetch", self.dir(), e))?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                if err.contains("couldn't find remote ref") {
                    return Ok(None);
                }
                return Err(ArchiveError::Git {
                    op: "git fetch",
                    path: Some(redact_url_passwords(&url)),
                    oid: None,
                    message: redact_url_passwords(err.trim()),
                });
            }
        }
        let tip = self.ref_target(&landing)?.map(CommitId);
        forget();
        Ok(tip)
    }

    /// Pushes `commit` to the branch of `remote` with `git push` (which runs the remote's
    /// hooks): whether it landed, was overtaken by another push, or was refused.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], [`ArchiveError::Io`] when git cannot be run.
    pub fn push(&self, remote: &str, commit: CommitId) -> Result<PushOutcome, ArchiveError> {
        let branch = self.branch()?;
        let out = Command::new("git")
            .arg("-C")
            .arg(self.dir())
            .args(["push", "--quiet", "--porcelain", remote, &format!("{}:{branch}", commit.0)])
            .output()
            .map_err(|e| ArchiveError::io("run git push", self.dir(), e))?;
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() {
            return Ok(PushOutcome::Pushed { said: server_lines(&redact_url_passwords(&err)) });
        }
        let report = String::from_utf8_lossy(&out.stdout);
        let err = redact_url_passwords(&err);
        let reasons: Vec<&str> = err.lines().filter_map(hook_reason).collect();
        let stale = [
            "(fetch first)",
            "(non-fast-forward)",
            "(stale info)",
            "failed to update ref",
            "cannot lock ref",
            "but expected",
        ]
        .iter()
        .any(|w| report.contains(w) || err.contains(w));
        if stale && reasons.is_empty() {
            let why = report.lines().chain(err.lines()).find(|l| l.starts_with('!')).unwrap_or(err.trim());
            return Ok(PushOutcome::Stale { why: why.trim().to_string() });
        }
        let why = if reasons.is_empty() { err.trim().to_string() } else { reasons.join("; ") };
        Ok(PushOutcome::Refused { why })
    }

    /// Writes `commits` again, oldest first, on top of `onto`: each new commit's tree is
    /// its parent's with the files the original changed set to the versions given
    /// ([`super::FileChange::contents`]: the original's, or a step made again on the new
    /// parent); author and message are the original's (the message given when it is not
    /// the original's), the committer the original's with time
    /// `time`. An original that was signed is signed again with `signer` (a replayed
    /// commit has a new parent, so the old signature no longer holds). Nothing moves: the
    /// new commits are returned, oldest first, for the caller to judge and push.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Signing`] for a signed original without a `signer`; git failures.
    pub fn replay_onto(
        &self,
        onto: CommitId,
        commits: &[ArchiveCommit],
        time: Timestamp,
        signer: Option<&SshSigner>,
    ) -> Result<Vec<CommitId>, ArchiveError> {
        let mut parent = self.find_commit(onto)?;
        let mut out = Vec::with_capacity(commits.len());
        for c in commits {
            let original = self.find_commit(c.commit)?;
            let mut update = git2::build::TreeUpdateBuilder::new();
            for ch in &c.changes {
                let entry = original
                    .tree()
                    .ok()
                    .and_then(|t| t.get_path(Path::new(&ch.path)).ok())
                    .map(|e| (e.id(), e.filemode()));
                // Contents other than the original's: written as a new blob.
                let entry = match (entry, &ch.contents) {
                    (Some((_, mode)), Some(bytes)) => {
                        Some((self.repo.blob(bytes).map_err(|e| ArchiveError::git("write blob", e))?, mode))
                    }
                    (e, _) => e,
                };
                match entry {
                    Some((id, mode)) => {
                        let mode = if mode == 0o100_755 {
                            git2::FileMode::BlobExecutable
                        } else {
                            git2::FileMode::Blob
                        };
                        update.upsert(ch.path.as_str(), id, mode);
                    }
                    None => {
                        update.remove(ch.path.as_str());
                    }
                }
            }
            let base = self.tree_of(&parent)?;
            let tree = update
                .create_updated(&self.repo, &base)
                .map_err(|e| ArchiveError::git_oid("write tree", c.commit.0, e))?;
            let tree = self.repo.find_tree(tree).map_err(|e| ArchiveError::git_oid("read tree", tree, e))?;
            let author = original.author().to_owned();
            let committer = original.committer();
            let committer = git2::Signature::new(
                &String::from_utf8_lossy(committer.name_bytes()),
                &String::from_utf8_lossy(committer.email_bytes()),
                &time.to_git(),
            )
            .map_err(|e| ArchiveError::git("make signature", e))?;
            let mut message = String::from_utf8_lossy(original.message_bytes()).into_owned();
            if message.trim_end_matches('\n') != c.message {
                message = format!("{}\n", c.message);
            }
            let signed = self.commit_signature(c.commit)?.is_some();
            let git_error = |op, e| ArchiveError::git_oid(op, c.commit.0, e);
            let id = if signed {
                let Some(signer) = signer else {
                    return Err(ArchiveError::Signing {
                        message: format!(
                            "commit {} is signed and must be signed again on top of the remote's commits: set `git config user.signingKey` to the key that signed it",
                            c.commit.short()
                        ),
                    });
                };
                self.write_commit(
                    (&author, &committer),
                    &message,
                    &tree,
                    &[&parent],
                    Some(signer),
                    git_error,
                )?
            } else {
                self.write_commit((&author, &committer), &message, &tree, &[&parent], None, git_error)?
            };
            out.push(CommitId(id));
            parent = self.find_commit(CommitId(id))?;
        }
        Ok(out)
    }

    /// Whether the working copy can be switched from the branch tip to `to` without
    /// overwriting uncommitted edits (a dry run of [`Archive::fast_forward`]'s checkout).
    ///
    /// # Errors
    ///
    /// Git failures, including the conflicting local edits.
    pub fn can_check_out(&self, to: CommitId) -> Result<(), ArchiveError> {
        if self.repo.is_bare() {
            return Ok(());
        }
        let commit = self.find_commit(to)?;
        let mut co = git2::build::CheckoutBuilder::new();
        co.safe().dry_run();
        self.repo
            .checkout_tree(commit.as_object(), Some(&mut co))
            .map_err(|e| ArchiveError::git_oid("check out", to.0, e))
    }

    /// Moves the branch from `from` to `to` (a descendant, or the branch replayed on top
    /// of the remote's) and brings the working copy along. The working copy is updated first, safely: a file with uncommitted edits
    /// that the new commits change makes it fail with nothing changed. The branch then
    /// moves with a compare-and-swap on `from`.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::Moved`] if the branch is no longer at `from`; git failures
    /// (including conflicting local edits).
    pub fn fast_forward(&self, from: Option<CommitId>, to: CommitId) -> Result<(), ArchiveError> {
        let _lock = self.lock()?;
        let branch = self.branch()?;
        let current = self.ref_target(&branch)?.map(CommitId);
        if current != from {
            return Err(ArchiveError::Moved { path: branch, expected: from, actual: current });
        }
        let commit = self.find_commit(to)?;
        if !self.repo.is_bare() {
            let mut co = git2::build::CheckoutBuilder::new();
            co.safe();
            self.repo
                .checkout_tree(commit.as_object(), Some(&mut co))
                .map_err(|e| ArchiveError::git_oid("check out", to.0, e))?;
        }
        let message = format!("ravenpost sync: fast-forward to {}", to.short());
        let result = match from {
            Some(f) => self.repo.reference_matching(&branch, to.0, true, f.0, &message),
            None => self.repo.reference(&branch, to.0, false, &message),
        };
        result.map_err(|e| ArchiveError::git_path("move branch", branch.clone(), e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{hook_reason, redact_url_passwords};

    #[test]
    fn passwords_in_urls_are_hidden_and_nothing_else_changes() {
        assert_eq!(
            redact_url_passwords("git fetch http://bo:secret@127.0.0.1:8080/git/chess.git: fatal: x"),
            "git fetch http://bo:<redacted>@127.0.0.1:8080/git/chess.git: fatal: x"
        );
        // A password with `@` and `:` in it; two URLs; quotes around one.
        assert_eq!(
            redact_url_passwords("'https://ann:p@ss:w0rd@host/a' and ssh://git@host/b"),
            "'https://ann:<redacted>@host/a' and ssh://git@host/b"
        );
        for kept in ["http://127.0.0.1/x", "no url here", "file:///srv/git/chess.git", "https://bo@host/"] {
            assert_eq!(redact_url_passwords(kept), kept);
        }
    }

    #[test]
    fn a_relayed_hook_line_loses_gits_padding_and_the_hooks_prefix() {
        assert_eq!(hook_reason("remote: ravenpost: g 1a2b: illegal        "), Some("g 1a2b: illegal"));
        assert_eq!(
            hook_reason("remote: ravenpost history rewritten   "),
            Some("ravenpost history rewritten")
        );
        assert_eq!(hook_reason("remote: other hook said no"), None);
        // Another ref's acceptance (or this one's, before the ref update failed) is none.
        let accepted = format!("remote: {}   ", super::hook_accepted_line("refs/heads/main", "1a2b", "3c4d"));
        assert_eq!(hook_reason(&accepted), None);
        assert_eq!(hook_reason("error: failed to push some refs"), None);
    }
}
