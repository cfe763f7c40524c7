//! A real terminal for the screen tests: tmux on a socket of its own, one 80×24 window,
//! read back with `capture-pane`; and [`keep`], which keeps a captured screen as a test
//! artefact.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::cli::{T0, isolate, text};
use super::tools::require;

/// A tmux server of its own (socket in `dir`, no configuration file) running one 80×24
/// window; killed when dropped.
pub struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    /// Starts `command` (a shell command line) in an 80×24 window, in `dir`, with the
    /// isolated environment of `home` and the binary as `$RAVENPOST`.
    pub fn start(dir: &Path, home: &Path, name: &str, command: &str) -> Tmux {
        require("tmux", &["-V"], "tmux");
        let socket = dir.join(format!("tmux-{name}.sock"));
        let mut cmd = Command::new("tmux");
        isolate(&mut cmd, home);
        let o = cmd
            .current_dir(dir)
            .env("RAVENPOST_TIME", T0.to_string())
            .env("RAVENPOST", env!("CARGO_BIN_EXE_ravenpost"))
            .env("TERM", "xterm")
            .env("SHELL", "/bin/sh")
            .args([
                "-S",
                socket.to_str().unwrap(),
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "80",
                "-y",
                "24",
            ])
            .arg(format!("{command}; exec sleep 600"))
            .output()
            .expect("tmux runs");
        assert!(o.status.success(), "tmux new-session: {}", text(&o));
        Tmux { socket }
    }

    pub fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux runs");
        assert!(o.status.success(), "tmux {args:?}: {}", text(&o));
        String::from_utf8(o.stdout).unwrap()
    }

    /// The window's 24 lines once `ready` holds for them (within 20 seconds).
    pub fn screen_when(&self, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.tmux(&["capture-pane", "-p"]);
            if ready(&s) {
                return s;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "the screen never got ready:\n{s}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

/// Keeps a captured screen as a test artefact: `dir/NAME.txt` and
/// `$CARGO_TARGET_TMPDIR/FOLDER/NAME.txt` (target/tmp), whose path it prints.
pub fn keep(dir: &Path, folder: &str, name: &str, screen: &str) {
    std::fs::write(dir.join(format!("{name}.txt")), screen).unwrap();
    let kept = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(folder);
    std::fs::create_dir_all(&kept).unwrap();
    let path = kept.join(format!("{name}.txt"));
    std::fs::write(&path, screen).unwrap();
    println!("screen kept: {}", path.display());
}
