//! What correspondence over a git remote needs: opening the repository a git hook runs
//! in, resolving and comparing commits, fetching a remote's branch and fast-forwarding to
//! it. Pushing is left to the `git` command line (it runs the server's hooks and knows
//! every transport).

use std::path::Path;
use std::process::Command;

use git2::{FetchOptions, Repository};

use super::{Archive, ArchiveError, CommitId};

impl Archive {
    /// Opens the repository a git hook runs in, as git describes it in the environment
    /// (`GIT_DIR`, and the quarantine object directories of a push being received), else
    /// the repository at `dir`. It need not be an archive yet (a first push makes it one).
    ///
    /// # Errors
    ///
    /// [`ArchiveError::NotARepository`], git failures.
    pub fn open_for_hook(dir: &Path) -> Result<Archive, ArchiveError> {
        let repo = if std::env::var_os("GIT_DIR").is_some() {
            Repository::open_from_env()
        } else {
            Repository::open(dir)
        };
        match repo {
            Ok(r) => Ok(Archive::from_repo(r)),
            Err(e) if super::not_found(&e) => Err(ArchiveError::NotARepository { dir: dir.to_path_buf() }),
            Err(e) => Err(ArchiveError::git_path("open repository", dir.display().to_string(), e)),
        }
    }

    /// The git repository `cwd` is in (searching parents as git does), archive or not
    /// (a fresh clone of an empty shared repository is no archive yet); `None` outside
    /// any repository.
    ///
    /// # Errors
    ///
    /// Git failures other than "not found".
    pub fn discover_repository(cwd: &Path) -> Result<Option<Archive>, ArchiveError> {
        match Repository::discover(cwd) {
            Ok(r) => Ok(Some(Archive::from_repo(r))),
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

    /// Fetches our branch from the remote `name` into `refs/remotes/<name>/<branch>` and
    /// returns the remote's tip (`None` if the remote has no such branch). Local paths and
    /// `file://` URLs are fetched with libgit2; other URLs (ssh, https) with `git fetch`,
    /// so that git's own credentials and ssh setup apply.
    ///
    /// # Errors
    ///
    /// [`ArchiveError::DetachedHead`], git failures (unreachable remote).
    pub fn fetch(&self, name: &str) -> Result<Option<CommitId>, ArchiveError> {
        let branch = self.branch()?;
        let short = branch.strip_prefix("refs/heads/").unwrap_or(&branch).to_string();
        let tracking = format!("refs/remotes/{name}/{short}");
        let url = self.remote_url(name)?;
        let local = url.starts_with("file://") || Path::new(&url).exists();
        // Forget the old tracking ref first: a remote without the branch leaves none.
        if let Ok(mut r) = self.repo.find_reference(&tracking) {
            let _ = r.delete();
        }
        let refspec = format!("+{branch}:{tracking}");
        if local {
            let mut remote =
                self.repo.find_remote(name).map_err(|e| ArchiveError::git_path("find remote", name, e))?;
            let mut opts = FetchOptions::new();
            match remote.fetch(&[refspec.as_str()], Some(&mut opts), None) {
                Ok(()) => {}
                Err(e) if e.message().contains("not find remote ref") || super::not_found(&e) => {
                    return Ok(None);
                }
                Err(e) => return Err(ArchiveError::git_path("fetch", url, e)),
            }
        } else {
            let out = Command::new("git")
                .arg("-C")
                .arg(self.dir())
                .args(["fetch", "--quiet", name, &refspec])
                .output()
                .map_err(|e| ArchiveError::io("run git fetch", self.dir(), e))?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                if err.contains("couldn't find remote ref") {
                    return Ok(None);
                }
                return Err(ArchiveError::Git {
                    op: "git fetch",
                    path: Some(url),
                    oid: None,
                    message: err.trim().to_string(),
                });
            }
        }
        Ok(self.ref_target(&tracking)?.map(CommitId))
    }

    /// Moves the branch from `from` to `to` (a descendant) and brings the working copy
    /// along. The working copy is updated first, safely: a file with uncommitted edits
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
