//! The post-receive hook line that regenerates a site after each accepted push
//! (`ravenpost hook install --site DIR`).
//!
//! The line is one line of `hooks/post-receive`, ending in [`POST_RECEIVE_MARK`]: installing
//! again replaces it, and other lines of the hook (other tools' or ravenpost's own) are
//! kept. It reads nothing from the hook's standard input (the pushed refs), so other
//! lines can, and a failure only prints a warning (the push has been accepted already).

use std::path::{Path, PathBuf};

use super::SiteError;

/// The comment that ends the site's line in `hooks/post-receive`.
pub const POST_RECEIVE_MARK: &str = "# ravenpost site";

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The hook line that runs `exe site <site> --archive <the repository>` (the hook runs
/// in the repository's git directory; `$RAVENPOST_HOOK_EXE` overrides `exe`).
pub fn site_hook_line(exe: &Path, site: &Path) -> String {
    let env = crate::usecases::HOOK_EXE_ENV;
    format!(
        "ravenpost_site={exe}; [ -n \"${{{env}:-}}\" ] && ravenpost_site=\"${env}\"; \"$ravenpost_site\" site {site} --archive \"$PWD\" </dev/null >/dev/null || echo 'ravenpost: the site {shown} was not regenerated' >&2 {POST_RECEIVE_MARK}",
        exe = shell_quote(&exe.to_string_lossy()),
        site = shell_quote(&site.to_string_lossy()),
        shown = site.to_string_lossy().replace('\'', ""),
    )
}

/// Puts [`site_hook_line`] into `git_dir/hooks/post-receive` (made executable; created
/// with a `#!/bin/sh` line when missing), replacing an earlier site line and keeping the
/// others. `site` is absolute (the front end makes it so: the hook runs elsewhere).
/// Returns the hook's path.
///
/// # Errors
/// [`SiteError::Io`]: the hook could not be read or written.
pub fn install_site_hook(git_dir: &Path, exe: &Path, site: &Path) -> Result<PathBuf, SiteError> {
    put_site_line(git_dir, &site_hook_line(exe, site))
}

/// The site's line of `git_dir/hooks/post-receive`, if one is installed.
pub fn site_line(git_dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(git_dir.join("hooks/post-receive")).ok()?;
    text.lines().find(|l| l.ends_with(POST_RECEIVE_MARK)).map(str::to_string)
}

/// Puts `line` (a [`site_hook_line`]) into `git_dir/hooks/post-receive` as
/// [`install_site_hook`] does: an earlier site line replaced, the others kept. Returns the
/// hook's path.
///
/// # Errors
/// [`SiteError::Io`]: the hook could not be read or written.
pub fn put_site_line(git_dir: &Path, line: &str) -> Result<PathBuf, SiteError> {
    let hooks = git_dir.join("hooks");
    std::fs::create_dir_all(&hooks).map_err(super::io_error(&hooks))?;
    let file = hooks.join("post-receive");
    let old = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "#!/bin/sh\n".to_string(),
        Err(e) => return Err(SiteError::Io { path: file, source: e }),
    };
    let mut text: String =
        old.lines().filter(|l| !l.ends_with(POST_RECEIVE_MARK)).flat_map(|l| [l, "\n"]).collect();
    text.push_str(line);
    text.push('\n');
    std::fs::write(&file, text).map_err(super::io_error(&file))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755))
            .map_err(super::io_error(&file))?;
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installing_again_replaces_the_site_line_and_keeps_the_others() {
        let t = tempfile::tempdir().unwrap();
        let hooks = t.path().join("hooks");
        std::fs::create_dir_all(&hooks).unwrap();
        std::fs::write(hooks.join("post-receive"), "#!/bin/sh\nother --notify\n").unwrap();
        let exe = Path::new("/opt/raven post/ravenpost");
        install_site_hook(t.path(), exe, Path::new("/srv/site-a")).unwrap();
        let file = install_site_hook(t.path(), exe, Path::new("/srv/it's b")).unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[..2], ["#!/bin/sh", "other --notify"]);
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[2].contains(r"site '/srv/it'\''s b' --archive"), "{text}");
        assert!(lines[2].contains("'/opt/raven post/ravenpost'"), "{text}");
        assert!(lines[2].ends_with(POST_RECEIVE_MARK));
    }
}
