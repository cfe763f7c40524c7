//! A real SMTP server for the mail tests: Python's aiosmtpd on a free loopback port,
//! storing what it receives in a Maildir; and a private certificate authority for
//! STARTTLS made with `openssl`. Start-up waits are bounded ([`START_TIMEOUT`]) and a
//! missing tool fails the test with what to install.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cli::text;
use super::tools::{require, require_aiosmtpd};

/// How long a server may take to listen before the test fails.
pub const START_TIMEOUT: Duration = Duration::from_secs(15);

/// A free TCP port on 127.0.0.1 (bound once, then released for the server to take).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until something listens on `port` of 127.0.0.1, failing after
/// [`START_TIMEOUT`] or as soon as `child` exits.
pub fn wait_for_port(child: &mut Child, port: u16, what: &str) {
    let deadline = Instant::now() + START_TIMEOUT;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            panic!("{what} exited ({status}) before listening on port {port}: {err}");
        }
        assert!(Instant::now() < deadline, "{what} did not listen on port {port} within {START_TIMEOUT:?}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// An aiosmtpd server on a free loopback port, storing what it receives in a Maildir.
/// Killed when dropped.
pub struct Smtp {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// Its Maildir.
    pub maildir: PathBuf,
}

impl Smtp {
    /// Starts a server whose Maildir is `root/name`; with `tls` = (certificate, key) it
    /// offers STARTTLS and requires it before `MAIL FROM`.
    pub fn start(root: &Path, name: &str, tls: Option<(&Path, &Path)>) -> Smtp {
        match tls {
            Some((cert, key)) => {
                Smtp::start_with(root, name, &["--tlscert", path(cert), "--tlskey", path(key)])
            }
            None => Smtp::start_with(root, name, &[]),
        }
    }

    /// Starts a server that speaks TLS from the first byte (SMTPS, as on port 465).
    pub fn start_smtps(root: &Path, name: &str, cert: &Path, key: &Path) -> Smtp {
        Smtp::start_with(root, name, &["--smtpscert", path(cert), "--smtpskey", path(key)])
    }

    fn start_with(root: &Path, name: &str, tls_args: &[&str]) -> Smtp {
        require_aiosmtpd();
        let maildir = root.join(name);
        let port = free_port();
        let mut cmd = Command::new("python3");
        cmd.args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")]).args(tls_args);
        cmd.args(["-c", "aiosmtpd.handlers.Mailbox"]).arg(&maildir);
        let child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("python3 runs");
        let mut s = Smtp { child, port, maildir };
        wait_for_port(&mut s.child, port, "aiosmtpd");
        s
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The messages received so far, oldest first (by modification time, then name).
    pub fn messages(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.maildir.join("new"))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort_by_key(|p| (std::fs::metadata(p).and_then(|m| m.modified()).ok(), p.clone()));
        v
    }

    /// The one message received since `before` messages.
    pub fn newest(&self, before: usize) -> PathBuf {
        let m = self.messages();
        assert_eq!(m.len(), before + 1, "expected exactly one new message on the server: {m:?}");
        m[before].clone()
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

impl Drop for Smtp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes, in `dir`, a private CA (`ca.pem`) and a certificate for 127.0.0.1 signed by it
/// (`cert.pem`, key `key.pem`). Returns (CA, certificate, key).
pub fn test_ca(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    require("openssl", &["version"], "openssl");
    let openssl = |args: &[&str]| {
        let o = Command::new("openssl").args(args).current_dir(dir).output().expect("openssl");
        assert!(o.status.success(), "openssl {args:?}: {}", text(&o));
    };
    let subj_ca = "/CN=ravenpost test CA";
    openssl(&[
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", subj_ca,
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "key.pem",
        "-out",
        "req.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "req.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "cert.pem",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
    (dir.join("ca.pem"), dir.join("cert.pem"), dir.join("key.pem"))
}

/// Makes, in `dir`, the certificate a club organiser makes first: one self-signed
/// certificate for 127.0.0.1 (`self.pem`, key `self.key`) that is its own CA
/// (basicConstraints CA:TRUE, as `openssl req -x509` writes by default).
pub fn self_signed_ca(dir: &Path) -> (PathBuf, PathBuf) {
    require("openssl", &["version"], "openssl");
    let o = Command::new("openssl")
        .args(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "self.key", "-out", "self.pem"])
        .args(["-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        .args(["-addext", "basicConstraints=critical,CA:TRUE"])
        .current_dir(dir)
        .output()
        .expect("openssl");
    assert!(o.status.success(), "openssl req: {}", text(&o));
    (dir.join("self.pem"), dir.join("self.key"))
}

/// Sends the message `raw` (as it is, signature and all) from `from` to `to` through the
/// SMTP server on 127.0.0.1:`port`, with Python's smtplib.
pub fn send_raw(port: u16, from: &str, to: &str, raw: &[u8]) {
    let script = format!(
        "import smtplib, sys\ns = smtplib.SMTP('127.0.0.1', {port})\n\
         s.sendmail({from:?}, [{to:?}], sys.stdin.buffer.read())\ns.quit()\n"
    );
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), raw).expect("the message is written");
    let o = child.wait_with_output().expect("python3 ends");
    assert!(o.status.success(), "smtplib: {}", text(&o));
}
