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
