//! A real DNS server for the DKIM tests: dnsmasq on a free loopback port, answering the
//! TXT records a test gives it (DKIM keys, DMARC policies) and NXDOMAIN for every other
//! name; and DKIM keys made with `openssl` and signatures made with dkimpy (Python's
//! DKIM library, independent of the `mail-auth` crate ravenpost verifies with).

use std::io::Write as _;
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::cli::text;
use super::smtp::wait_for_port;
use super::tools::require;

/// The dnsmasq program (Debian's dnsmasq-base).
const DNSMASQ: &str = "/usr/sbin/dnsmasq";

/// dnsmasq on a free loopback port (UDP and TCP). Killed when dropped.
pub struct Dns {
    child: Child,
    /// The port it answers on.
    pub port: u16,
}

impl Dns {
    /// Starts a server in `dir` answering `records` (a name, a TXT value) and NXDOMAIN
    /// for any other name.
    pub fn start(dir: &Path, records: &[(String, String)]) -> Dns {
        require(DNSMASQ, &["--version"], "dnsmasq-base");
        // A port free for UDP and for TCP.
        let port = loop {
            let p = super::smtp::free_port();
            if UdpSocket::bind(("127.0.0.1", p)).is_ok() {
                break p;
            }
        };
        let conf = dir.join(format!("dnsmasq-{port}.conf"));
        let mut f = std::fs::File::create(&conf).unwrap();
        for (name, value) in records {
            // A TXT string is at most 255 bytes: a long value is given as several.
            let strings: Vec<String> = value
                .as_bytes()
                .chunks(200)
                .map(|c| format!("\"{}\"", std::str::from_utf8(c).unwrap()))
                .collect();
            writeln!(f, "txt-record={name},{}", strings.join(",")).unwrap();
        }
        drop(f);
        let child = Command::new(DNSMASQ)
            .args(["--keep-in-foreground", "--no-resolv", "--no-hosts", "--local=/#/", "--bind-interfaces"])
            .args(["--listen-address=127.0.0.1", "--pid-file="])
            .arg(format!("--port={port}"))
            .arg(format!("--conf-file={}", conf.display()))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{DNSMASQ} ({e}): install dnsmasq-base (.ci/run does)"));
        let mut dns = Dns { child, port };
        wait_for_port(&mut dns.child, port, "dnsmasq");
        dns
    }

    /// `127.0.0.1:PORT`, for `mail serve --dns`.
    pub fn addr(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for Dns {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A DKIM key pair of `domain` under `selector`.
pub struct DkimKey {
    /// The private key (PEM), for dkimpy.
    pub private: PathBuf,
    /// The selector.
    pub selector: String,
    /// The signing domain (`d=`).
    pub domain: String,
    /// The TXT record that publishes the public key.
    pub record: (String, String),
}

/// Makes a 2048-bit RSA DKIM key for `domain` with `openssl`, in `dir`.
pub fn dkim_key(dir: &Path, selector: &str, domain: &str) -> DkimKey {
    require("openssl", &["version"], "openssl");
    let private = dir.join(format!("dkim-{selector}-{domain}.pem"));
    let o = Command::new("openssl")
        .args(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out"])
        .arg(&private)
        .output()
        .unwrap();
    assert!(o.status.success(), "openssl genpkey: {}", text(&o));
    let o = Command::new("openssl").args(["pkey", "-pubout", "-in"]).arg(&private).output().unwrap();
    assert!(o.status.success(), "openssl pkey: {}", text(&o));
    // The PEM's base64 lines, joined: the DER of the public key, as `p=` wants it.
    let pem = String::from_utf8(o.stdout).unwrap();
    let public: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let record = (format!("{selector}._domainkey.{domain}"), format!("v=DKIM1; k=rsa; p={public}"));
    DkimKey { private, selector: selector.to_string(), domain: domain.to_string(), record }
}

/// `message` signed with `key` by dkimpy (relaxed/relaxed, rsa-sha256): the
/// `DKIM-Signature` header, then the message.
pub fn dkim_sign(message: &[u8], key: &DkimKey) -> Vec<u8> {
    dkim_sign_with(message, key, None, false)
}

/// [`dkim_sign`], signing only the headers `headers` (dkimpy's choice when `None`), and
/// with the body's length (`l=`) when `length`.
pub fn dkim_sign_with(message: &[u8], key: &DkimKey, headers: Option<&[&str]>, length: bool) -> Vec<u8> {
    let include = headers.map_or_else(
        || "None".to_string(),
        |h| format!("[{}]", h.iter().map(|n| format!("b{n:?}")).collect::<Vec<_>>().join(", ")),
    );
    let script = format!(
        "import sys, dkim\nm = sys.stdin.buffer.read()\nk = open({:?}, 'rb').read()\n\
         s = dkim.sign(m, {:?}.encode(), {:?}.encode(), k, canonicalize=(b'relaxed', b'relaxed'), \
         include_headers={include}, length={})\nsys.stdout.buffer.write(s + m)\n",
        key.private.display().to_string(),
        key.selector,
        key.domain,
        if length { "True" } else { "False" }
    );
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("python3 ({e}): install python3 and `pip install dkimpy` (.ci/run does)"));
    child.stdin.take().unwrap().write_all(message).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "dkimpy (`pip install dkimpy`, .ci/run does): {}", text(&o));
    assert!(o.stdout.starts_with(b"DKIM-Signature:"), "dkimpy: {}", String::from_utf8_lossy(&o.stdout));
    o.stdout
}
