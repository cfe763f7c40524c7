//! A real IMAP server for the referee mailbox tests: dovecot, unprivileged where it can
//! be, on a free loopback port, over TLS only (a certificate of the test CA), serving one
//! user whose INBOX is a Maildir the test's SMTP server delivers into. Stopped (SIGTERM
//! to its master, which stops its children) when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::smtp::{free_port, wait_for_port};
use super::tools::require;

/// A running dovecot.
pub struct Dovecot {
    child: Child,
    /// Its IMAPS port on 127.0.0.1.
    pub port: u16,
    /// The INBOX of its one user, a Maildir.
    pub maildir: PathBuf,
    /// The user, and the password.
    pub user: &'static str,
    /// The password.
    pub password: &'static str,
    /// Its configuration file.
    conf: PathBuf,
}

/// The name of the current user and group, for a dovecot run by someone other than root.
fn whoami() -> (String, String) {
    let out = |args: &[&str]| {
        let o = Command::new("id").args(args).output().expect("id runs");
        String::from_utf8(o.stdout).unwrap().trim().to_string()
    };
    (out(&["-un"]), out(&["-gn"]))
}

impl Dovecot {
    /// Starts dovecot in `root/dovecot` with the certificate `cert` and key `key`; its
    /// user's INBOX is `maildir`.
    pub fn start(root: &Path, cert: &Path, key: &Path, maildir: &Path) -> Dovecot {
        Dovecot::start_on(free_port(), root, cert, key, maildir)
    }

    /// [`Dovecot::start`] on the port `port` (to start it again where it was).
    pub fn start_on(port: u16, root: &Path, cert: &Path, key: &Path, maildir: &Path) -> Dovecot {
        require("/usr/sbin/dovecot", &["--version"], "dovecot-imapd");
        let dir = root.join("dovecot");
        for sub in ["run", "state", "home"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let (user, password) = ("games", "s3cret-imap");
        std::fs::write(dir.join("passwd"), format!("{user}:{{PLAIN}}{password}::::::\n")).unwrap();
        let (me, group) = whoami();
        // Root runs the login processes as the package's own users and the mail access
        // as nobody (dovecot never reads mail as root): the Maildir and the directories
        // above it are opened to all. Anyone else runs everything as themselves.
        let (users, me, group) = if me == "root" {
            open_to_all(root, maildir, &dir);
            (String::new(), "nobody".to_string(), "nogroup".to_string())
        } else {
            let users = format!(
                "default_internal_user = {me}\ndefault_login_user = {me}\ndefault_internal_group = {group}\n"
            );
            (users, me, group)
        };
        let d = dir.display();
        let config = format!(
            "protocols = imap\nlisten = 127.0.0.1\nbase_dir = {d}/run\nstate_dir = {d}/state\n\
             log_path = {d}/dovecot.log\n{users}ssl = required\nssl_cert = <{}\nssl_key = <{}\n\
             auth_mechanisms = plain\nfirst_valid_uid = 1\nmail_location = maildir:{}\n\
             passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%n {d}/passwd\n}}\n\
             userdb {{\n  driver = static\n  args = uid={me} gid={group} home={d}/home\n}}\n\
             service imap-login {{\n  inet_listener imap {{\n    port = 0\n  }}\n  \
             inet_listener imaps {{\n    port = {port}\n    ssl = yes\n  }}\n}}\n\
             service lmtp {{\n  unix_listener lmtp {{\n    mode = 0600\n  }}\n}}\n",
            cert.display(),
            key.display(),
            maildir.display()
        );
        let conf = dir.join("dovecot.conf");
        std::fs::write(&conf, config).unwrap();
        let mut child = Command::new("/usr/sbin/dovecot")
            .arg("-F")
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("dovecot starts");
        wait_for_port(&mut child, port, "dovecot");
        Dovecot { child, port, maildir: maildir.to_path_buf(), user, password, conf }
    }

    /// The messages of the user's INBOX not seen yet, oldest (by UID) first, fetched
    /// over IMAP with TLS as a mail client fetches them (Python's imaplib, trusting the
    /// CA `ca`), which marks them seen.
    pub fn fetch_unseen(&self, ca: &Path) -> Vec<Vec<u8>> {
        let script = format!(
            "import imaplib, ssl, sys\nctx = ssl.create_default_context(cafile={:?})\n\
             m = imaplib.IMAP4_SSL('127.0.0.1', {}, ssl_context=ctx)\nm.login({:?}, {:?})\n\
             m.select('INBOX')\ntyp, data = m.uid('search', None, 'UNSEEN')\n\
             for uid in sorted(data[0].split(), key=int):\n    typ, got = m.uid('fetch', uid, '(RFC822)')\n    \
             raw = got[0][1]\n    sys.stdout.buffer.write(len(raw).to_bytes(8, 'big') + raw)\nm.logout()\n",
            ca.display().to_string(),
            self.port,
            self.user,
            self.password
        );
        let o = Command::new("python3").arg("-c").arg(&script).output().expect("python3 runs");
        assert!(o.status.success(), "imaplib: {}", super::cli::text(&o));
        let (mut out, mut rest) = (Vec::new(), o.stdout.as_slice());
        while let Some((len, tail)) = rest.split_first_chunk::<8>() {
            let (raw, tail) = tail.split_at(u64::from_be_bytes(*len) as usize);
            out.push(raw.to_vec());
            rest = tail;
        }
        out
    }

    /// Drops every connection of the user (`doveadm kick`): a server going away under
    /// its clients (stopping dovecot alone leaves the open sessions running).
    pub fn kick(&self) {
        let o = Command::new("/usr/bin/doveadm").arg("-c").arg(&self.conf).args(["kick", self.user]).output();
        let o = o.expect("doveadm runs");
        assert!(o.status.success(), "doveadm kick: {}", super::cli::text(&o));
    }
}

/// Opens `maildir` (its directories), dovecot's directory `dir` and every directory from
/// `root` down to them to every user, for a mail process that is not the test's user.
fn open_to_all(root: &Path, maildir: &Path, dir: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let open = |p: &Path| std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o777)).unwrap();
    for top in [maildir, dir] {
        let mut p = top.to_path_buf();
        while p.starts_with(root) {
            open(&p);
            if !p.pop() {
                break;
            }
        }
    }
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
        open(&maildir.join(sub));
    }
    for sub in ["run", "state", "home"] {
        open(&dir.join(sub));
    }
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        let _ = kill(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        let _ = self.child.wait();
    }
}
