//! `ravenpost hook install|notify|check`: server-side enforcement.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Subcommand;

use crate::cli::failure::{Failure, io};
use crate::cli::terminal;
use crate::usecases::{self as ops, Session};

/// Server-side enforcement: install or run the git pre-receive hook that checks every
/// pushed commit with the rules.
#[derive(Debug, clap::Args)]
pub(crate) struct HookArgs {
    #[command(subcommand)]
    action: HookCmd,
}

/// `hook install --gitolite`: which of gitolite's hook folders.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum GitoliteArg {
    /// gitolite's common hooks, linked into every repository (gitolite-admin is skipped).
    Common,
    /// A repo-specific hook named `ravenpost` (gitolite's repo-specific-hooks feature).
    RepoSpecific,
}

/// `ravenpost hook` actions.
#[derive(Debug, Subcommand)]
enum HookCmd {
    /// Write hooks/pre-receive into a (bare) repository: it runs `ravenpost hook check` on
    /// every pushed ref and rejects the push with the engine's reason.
    Install {
        /// The repository (default: the current directory).
        #[arg(long, value_name = "DIR", conflicts_with_all = ["gitolite", "print"])]
        repo: Option<PathBuf>,
        /// Install into gitolite (run as the gitolite user): `common` writes gitolite's
        /// common pre-receive hook and links it into every repository; `repo-specific`
        /// writes $LOCAL_CODE/hooks/repo-specific/ravenpost, for `option hook.pre-receive =
        /// ravenpost` in gitolite.conf.
        #[arg(long, value_enum, value_name = "HOW", conflicts_with = "print")]
        gitolite: Option<GitoliteArg>,
        /// Write nothing; print the hook script, for a server's own custom hook folder
        /// (GitLab: custom_hooks/pre-receive; Gitea, Forgejo: hooks/pre-receive.d/).
        #[arg(long)]
        print: bool,
        /// The environment variable in which the git server names the pushing account,
        /// when it is none of GL_USER, REMOTE_USER, GL_USERNAME, GITEA_PUSHER_NAME
        /// (written into the hook as RAVENPOST_PUSHER_VAR).
        #[arg(long, value_name = "VAR")]
        pusher_var: Option<String>,
        /// Also write hooks/post-receive: after every push it mails the players each step
        /// (a new game, a move, a draw offer or answer, a resignation, a result, leave),
        /// with how each answers (`players:` in ravenpost.yaml; the archive's mail
        /// settings); failures are logged in ravenpost/notify.log of the git directory and
        /// never undo a push.
        #[arg(long)]
        notify: bool,
        /// Also write hooks/post-receive to regenerate the web site in DIR (`ravenpost
        /// site DIR`) after each accepted push.
        #[arg(long, value_name = "DIR")]
        site: Option<PathBuf>,
    },
    /// Mail the players each step of one ref update (the post-receive hook runs it);
    /// always exits 0 once the repository reads.
    Notify {
        /// The old commit (all zeros: a new branch).
        old: String,
        /// The new commit.
        new: String,
        /// The ref, e.g. refs/heads/main.
        #[arg(value_name = "REF")]
        refname: String,
    },
    /// Check one ref update in the repository at the current directory (or $GIT_DIR):
    /// every new first-parent commit must be one legal step of one game by its author,
    /// pushed by that player's account when the server names the pusher (GL_USER,
    /// REMOTE_USER, GL_USERNAME, GITEA_PUSHER_NAME, or the variable RAVENPOST_PUSHER_VAR
    /// names).
    Check {
        /// Say who the hook takes the pusher to be (from which variable), or that the
        /// server names nobody and steps are judged by author name; then check the ref
        /// update, if one is given.
        #[arg(long)]
        explain: bool,
        /// The old commit (all zeros: a new branch).
        #[arg(required_unless_present = "explain")]
        old: Option<String>,
        /// The new commit.
        #[arg(required_unless_present = "explain")]
        new: Option<String>,
        /// The ref, e.g. refs/heads/main.
        #[arg(value_name = "REF", required_unless_present = "explain")]
        refname: Option<String>,
    },
}

/// `ravenpost hook …`.
pub(crate) fn run(s: &Session, a: HookArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.action {
        HookCmd::Install { repo, gitolite, print, pusher_var, notify, site } => {
            // `--repo`, else the current directory; a relative `--site` from there too.
            let repo = repo.unwrap_or_else(|| s.cwd.clone());
            let site = site.map(|d| s.cwd.join(d));
            install(repo, gitolite, print, pusher_var.as_deref(), notify, site, out)
        }
        HookCmd::Notify { old, new, refname } => {
            for n in crate::usecases::notify::hook_notify(s, &old, &new, &refname)? {
                // What was mailed: a move by its ply, another step by its name too.
                let what = match n.event {
                    crate::usecases::notify::EventKind::Move => format!("{} ply {}", n.game, n.ply),
                    e => format!("{} ply {} ({})", n.game, n.ply, e.word()),
                };
                match &n.failure {
                    None => {
                        writeln!(out, "ravenpost: mailed {what} to {}", n.to.as_deref().unwrap_or_default())
                            .map_err(io)?
                    }
                    Some(f) => writeln!(out, "ravenpost: {what}: not mailed ({f}; logged)").map_err(io)?,
                }
            }
            Ok(())
        }
        HookCmd::Check { explain, old, new, refname } => {
            if explain {
                writeln!(out, "{}", ops::hook_explain(s)?).map_err(io)?;
            }
            let (Some(old), Some(new), Some(refname)) = (old, new, refname) else {
                return Ok(());
            };
            let problems = ops::hook_check(s, &old, &new, &refname)?;
            if !problems.is_empty() {
                for p in &problems {
                    errln!("ravenpost: {p}");
                }
                return Err(Failure::quiet());
            }
            // One line on success, so that a check run by hand says it passed.
            writeln!(out, "{}", crate::archive::hook_accepted_line(&refname, &old, &new)).map_err(io)
        }
    }
}

/// `ravenpost hook install`.
fn install(
    repo: PathBuf,
    gitolite: Option<GitoliteArg>,
    print: bool,
    pusher_var: Option<&str>,
    notify: bool,
    site: Option<PathBuf>,
    out: &mut impl Write,
) -> Result<(), Failure> {
    let target = match gitolite {
        None if print => ops::HookTarget::Print,
        None => ops::HookTarget::Repository(repo.clone()),
        Some(GitoliteArg::Common) => ops::HookTarget::GitoliteCommon,
        Some(GitoliteArg::RepoSpecific) => ops::HookTarget::GitoliteRepoSpecific,
    };
    let installed = ops::install_hook_to(target, pusher_var)?;
    // The script (`--print`) as it is; the line saying where it went filled.
    let installed = if print { installed } else { terminal::fit_stdout(&installed) };
    writeln!(out, "{installed}").map_err(io)?;
    if notify {
        // The notify hook is written whole: a site line installed before is put back.
        let kept = hook_git_dir(&repo).ok().and_then(|d| crate::site::site_line(&d).map(|l| (d, l)));
        writeln!(out, "{}", ops::install_notify_hook(&repo)?).map_err(io)?;
        if let (None, Some((git_dir, line))) = (&site, kept) {
            crate::site::put_site_line(&git_dir, &line).map_err(|e| Failure::refused(e.to_string()))?;
        }
    }
    // After --notify, which writes the post-receive hook whole: this adds one line.
    if let Some(site) = site {
        writeln!(out, "{}", install_site_hook(&repo, &site)?).map_err(io)?;
    }
    Ok(())
}

/// The git directory `hook install` writes into: that of the repository at `repo`.
fn hook_git_dir(repo: &Path) -> Result<PathBuf, Failure> {
    Ok(crate::archive::Archive::open_for_hook(repo, false)?.git_dir().to_path_buf())
}

/// `hook install --site DIR`: the post-receive line that regenerates the site.
fn install_site_hook(repo: &Path, site: &Path) -> Result<String, Failure> {
    let a = crate::archive::Archive::open_for_hook(repo, false)?;
    let exe = std::env::current_exe().map_err(|e| Failure::input(format!("this executable's path: {e}")))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let file = crate::site::install_site_hook(a.git_dir(), &exe, site)
        .map_err(|e| Failure::refused(e.to_string()))?;
    Ok(format!("Installed {} (regenerates the site in {})", file.display(), site.display()))
}
