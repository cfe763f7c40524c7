//! External tools the tests drive. A test that needs one calls [`require`] first: when
//! the tool is missing the test fails and says what to install (`.ci/run` installs them
//! all), it never passes silently.

use std::path::Path;
use std::process::Command;

/// Fails the test unless `program` runs (`program args…` exits at all); `package` is
/// what to install.
pub fn require(program: &str, args: &[&str], package: &str) {
    match Command::new(program).args(args).output() {
        Ok(_) => {}
        Err(e) => panic!("this test needs `{program}` ({e}): install {package} (.ci/run does)"),
    }
}

/// The font the PNG tests draw labels with; fails the test if it is missing.
pub const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Fails the test unless [`FONT`] is installed.
pub fn require_font() {
    assert!(
        Path::new(FONT).is_file(),
        "this test needs the font {FONT}: install fonts-dejavu-core (.ci/run does)"
    );
}

/// Fails the test unless Python's pyffish (Fairy-Stockfish's library, the PyPI wheel)
/// can be imported.
pub fn require_pyffish() {
    let o = Command::new("python3").args(["-c", "import pyffish"]).output().unwrap_or_else(|e| {
        panic!("this test needs python3 with pyffish ({e}): install python3 and `pip install pyffish`")
    });
    assert!(
        o.status.success(),
        "this test needs Python's pyffish: `python3 -m pip install pyffish` (.ci/test-deps does): {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Fails the test unless `python3 -m aiosmtpd` can run.
pub fn require_aiosmtpd() {
    let o = Command::new("python3").args(["-c", "import aiosmtpd"]).output().unwrap_or_else(|e| {
        panic!("this test needs python3 with aiosmtpd ({e}): install python3 and `pip install aiosmtpd`")
    });
    assert!(
        o.status.success(),
        "this test needs Python's aiosmtpd: `python3 -m pip install aiosmtpd` (.ci/run does): {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A file of the repository's `../shared` folder (rule texts, corpus), read; fails with
/// a message when the folder is not beside the repository.
pub fn shared(path: &str) -> String {
    let full = Path::new("../shared").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| {
        panic!("{}: {e} (the tests read ../shared, which must sit beside the repository)", full.display())
    })
}

/// Makes an ed25519 key pair `dir/name` with the passphrase `passphrase` (`""`: none)
/// and the comment `name@example.org`: (private key path, public key path).
pub fn keygen_with(dir: &Path, name: &str, passphrase: &str) -> (String, String) {
    let key = dir.join(name);
    let o = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", passphrase, "-C", &format!("{name}@example.org"), "-f"])
        .arg(&key)
        .output()
        .unwrap_or_else(|e| {
            panic!("this test needs ssh-keygen ({e}): install openssh-client (.ci/run does)")
        });
    assert!(o.status.success(), "ssh-keygen: {}", String::from_utf8_lossy(&o.stderr));
    (key.to_str().unwrap().to_string(), format!("{}.pub", key.to_str().unwrap()))
}

/// [`keygen_with`] without a passphrase.
pub fn keygen(dir: &Path, name: &str) -> (String, String) {
    keygen_with(dir, name, "")
}

/// A script `dir/name` that prints `passphrase` (for `SSH_ASKPASS`): with
/// `SSH_ASKPASS_REQUIRE=force`, ssh-keygen and ssh-add read passphrases from it and never
/// from a terminal, so a test cannot hang waiting for one.
pub fn askpass(dir: &Path, name: &str, passphrase: &str) -> std::path::PathBuf {
    assert!(!passphrase.contains('\''), "a passphrase without quotes");
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\necho '{passphrase}'\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// An `ssh-agent` of the test's own on a socket in a temporary directory; killed when
/// dropped.
pub struct SshAgent {
    child: std::process::Child,
    /// Its socket, for `SSH_AUTH_SOCK`.
    pub socket: std::path::PathBuf,
}

impl SshAgent {
    /// Starts the agent with its socket at `dir/agent.sock` (waiting at most 10 s).
    pub fn start(dir: &Path) -> SshAgent {
        let socket = dir.join("agent.sock");
        let child = Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&socket)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("this test needs ssh-agent ({e}): install openssh-client (.ci/run does)")
            });
        let agent = SshAgent { child, socket };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !agent.socket.exists() {
            assert!(std::time::Instant::now() < deadline, "ssh-agent made no socket within 10 s");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        agent
    }

    /// Adds the private key `key`, whose passphrase the script `askpass` prints.
    pub fn add(&self, key: &str, askpass: &Path) {
        let o = Command::new("ssh-add")
            .arg(key)
            .env("SSH_AUTH_SOCK", &self.socket)
            .env("SSH_ASKPASS", askpass)
            .env("SSH_ASKPASS_REQUIRE", "force")
            .env("DISPLAY", ":0")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("ssh-add runs");
        assert!(o.status.success(), "ssh-add: {}", String::from_utf8_lossy(&o.stderr));
    }
}

impl Drop for SshAgent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
