//! SSH signatures on move commits, as git makes them with `gpg.format=ssh` (issue 7,
//! "Signed moves"): the signature sits in the commit's `gpgsig` header and covers the
//! commit object without it; it is made by `ssh-keygen -Y sign -n git` and checked by
//! `ssh-keygen -Y verify -n git` against one allowed key. A commit signed by
//! `git commit -S` (with `gpg.format=ssh`) and one signed by ravenpost are alike.
//!
//! `ssh-keygen` (OpenSSH 8.2 or later) must be on the PATH for both.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::{Archive, ArchiveError, CommitId};

/// The signature namespace git uses for commits.
pub const NAMESPACE: &str = "git";

/// A key to sign commits with, as git's `user.signingKey` names it: the path of a private
/// key file, the path of a public key file whose private half is in `ssh-agent`, or a
/// literal public key (`key::ssh-ed25519 AAAA…` or `ssh-ed25519 AAAA…`, also via the agent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SshSigner {
    key: String,
    expected: Option<String>,
    label: Option<String>,
    home: Option<PathBuf>,
}

impl SshSigner {
    /// A signer for `key` (see the type's description); `~/` is expanded to the home
    /// directory given with [`SshSigner::with_home`].
    pub fn new(key: impl Into<String>) -> SshSigner {
        SshSigner { key: key.into(), expected: None, label: None, home: None }
    }

    /// The same signer, reading a key named `~/…` below `home` (the caller's home
    /// directory; `None`: the name is taken as it is).
    pub fn with_home(mut self, home: Option<PathBuf>) -> SshSigner {
        self.home = home;
        self
    }

    /// The same signer, which checks each signature it makes against `public_key` (one
    /// OpenSSH public key line) before handing it out, so that signing with the wrong key
    /// fails before anything is committed.
    pub fn expecting(mut self, public_key: impl Into<String>) -> SshSigner {
        self.expected = Some(public_key.into());
        self
    }

    /// Names the expected key in errors, e.g. `Ann's key (WhiteSigningKey)`.
    pub fn labelled(mut self, label: impl Into<String>) -> SshSigner {
        self.label = Some(label.into());
        self
    }

    /// The key as given.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The literal public key, if the key was given as one.
    fn literal(&self) -> Option<&str> {
        let k = self.key.strip_prefix("key::").unwrap_or(&self.key);
        is_public_key(k).then_some(k)
    }

    fn path(&self) -> PathBuf {
        match (self.key.strip_prefix("~/"), &self.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(&self.key),
        }
    }

    /// Signs `data` (a commit object's text without its signature header) and returns the
    /// armoured signature (`-----BEGIN SSH SIGNATURE-----` …).
    ///
    /// # Errors
    /// [`ArchiveError::Signing`]: `ssh-keygen` is missing, the key cannot be read (no such
    /// file, wrong passphrase, not in the agent), or signing failed; its message is
    /// `ssh-keygen`'s.
    pub fn sign(&self, data: &[u8]) -> Result<String, ArchiveError> {
        let tmp;
        let key_file = match self.literal() {
            Some(k) => {
                tmp = temp_file("key", format!("{k}\n").as_bytes())?;
                tmp.path().to_path_buf()
            }
            None => self.path(),
        };
        if self.literal().is_none() && !key_file.exists() {
            return Err(ArchiveError::Signing {
                message: format!("signing key {}: no such file", key_file.display()),
            });
        }
        let mut cmd = Command::new("ssh-keygen");
        cmd.args(["-q", "-Y", "sign", "-n", NAMESPACE, "-f"]).arg(&key_file);
        let out = run_with_input(cmd, data)?;
        if !out.status.success() {
            return Err(ArchiveError::Signing {
                message: format!(
                    "ssh-keygen -Y sign with {} failed: {}",
                    key_file.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        let sig = String::from_utf8_lossy(&out.stdout).into_owned();
        if !sig.contains("BEGIN SSH SIGNATURE") {
            return Err(ArchiveError::Signing {
                message: "ssh-keygen -Y sign gave no signature".to_string(),
            });
        }
        if let Some(expected) = &self.expected {
            verify_ssh_signature(data, &sig, expected).map_err(|_| ArchiveError::Signing {
                message: format!(
                    "signing key {} is not {}; nothing was written",
                    self.key,
                    self.label.as_deref().unwrap_or("the key this game lists")
                ),
            })?;
        }
        Ok(sig)
    }
}

/// Whether `s` is an OpenSSH public key line (`ssh-ed25519 AAAA… [comment]`, also
/// `ecdsa-…` and `sk-…` kinds): what may go into an allowed-signers line. (The game's
/// signing-key tags are checked for the same form by the record, which the store does
/// not import.)
pub fn is_public_key(s: &str) -> bool {
    let mut parts = s.split_whitespace();
    let (Some(kind), Some(blob)) = (parts.next(), parts.next()) else { return false };
    ["ssh-", "ecdsa-", "sk-"].iter().any(|k| kind.starts_with(k))
        && blob.len() >= 16
        && blob.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
}

/// Checks that `signature` (armoured SSH signature) is a good signature of `data` in the
/// namespace `git` by `public_key` (one OpenSSH public key line).
///
/// # Errors
/// Why not, in one sentence: no `ssh-keygen`, a malformed key or signature, or a
/// signature by another key or over other data (`ssh-keygen`'s own words).
pub fn verify_ssh_signature(data: &[u8], signature: &str, public_key: &str) -> Result<(), String> {
    if !is_public_key(public_key) {
        return Err(format!("\"{public_key}\" is not an OpenSSH public key"));
    }
    let allowed =
        temp_file("allowed", format!("player namespaces=\"{NAMESPACE}\" {public_key}\n").as_bytes())
            .map_err(|e| e.to_string())?;
    let sig = temp_file("sig", signature.as_bytes()).map_err(|e| e.to_string())?;
    let mut cmd = Command::new("ssh-keygen");
    cmd.args(["-Y", "verify", "-n", NAMESPACE, "-I", "player", "-f"])
        .arg(allowed.path())
        .arg("-s")
        .arg(sig.path());
    let out = run_with_input(cmd, data).map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        let (stderr, stdout) = (String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
        let why = stderr.lines().chain(stdout.lines()).find(|l| !l.trim().is_empty());
        Err(format!(
            "the signature does not verify with that key ({})",
            why.map(str::trim).unwrap_or("ssh-keygen gave no reason")
        ))
    }
}

fn run_with_input(mut cmd: Command, input: &[u8]) -> Result<std::process::Output, ArchiveError> {
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| {
            ArchiveError::Signing { message: format!("cannot run ssh-keygen (OpenSSH 8.2+): {e}") }
        })?;
    let mut stdin = child.stdin.take().expect("piped");
    let data = input.to_vec();
    // Written from a thread so that a large input cannot deadlock against full pipes.
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child
        .wait_with_output()
        .map_err(|e| ArchiveError::Signing { message: format!("ssh-keygen: {e}") })?;
    let _ = writer.join();
    Ok(out)
}

fn temp_file(what: &str, contents: &[u8]) -> Result<tempfile::NamedTempFile, ArchiveError> {
    let mut f = tempfile::Builder::new()
        .prefix(&format!("ravenpost-{what}-"))
        .tempfile()
        .map_err(|e| ArchiveError::io("create", std::env::temp_dir(), e))?;
    f.write_all(contents).map_err(|e| ArchiveError::io("write", f.path().to_path_buf(), e))?;
    f.flush().map_err(|e| ArchiveError::io("write", f.path().to_path_buf(), e))?;
    Ok(f)
}

/// A commit's signature and the data it signs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitSignature {
    /// The armoured signature (`gpgsig` header).
    pub signature: String,
    /// The commit object without the header: what was signed.
    pub signed_data: Vec<u8>,
}

impl Archive {
    /// The signature of `commit`, if it is signed.
    ///
    /// # Errors
    /// [`ArchiveError::Git`] if the commit cannot be read.
    pub fn commit_signature(&self, commit: CommitId) -> Result<Option<CommitSignature>, ArchiveError> {
        match self.repo.extract_signature(&commit.0, None) {
            Ok((sig, data)) => Ok(Some(CommitSignature {
                signature: String::from_utf8_lossy(&sig).into_owned(),
                signed_data: data.to_vec(),
            })),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(ArchiveError::git_oid("read signature", commit.0, e)),
        }
    }
}
