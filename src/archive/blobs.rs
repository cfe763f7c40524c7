//! Reading many blobs at once, through git's own object reader.
//!
//! A game file's versions sit in a pack as a delta chain (up to 50 deltas deep): each
//! version is stored as the edit that turns a later version into it. libgit2 keeps only the
//! bottom of a chain in its delta-base cache, so reading the versions of a game one by one
//! rebuilds the chain from its base every time: on an archive of 26,000 moves `verify`
//! spent most of its time inflating and applying the same deltas again. git's own reader
//! caches every object it rebuilt on the way (`core.deltaBaseCacheLimit`), and reads the
//! same 26,000 versions in under a second.
//!
//! So [`Archive::read_blobs`], for a batch of more than a few blobs, asks one long-lived
//! `git cat-file --batch` (started on first use, kept for the archive's lifetime, fed and
//! read in chunks so that neither side waits on a full pipe). Its answer is the object's
//! raw bytes, the same bytes libgit2 would return: git applies no filter in `--batch`
//! mode. It inherits the environment, so inside a pre-receive hook it sees the pushed
//! objects in git's quarantine directory, as libgit2 does. Whenever git is not on `PATH`,
//! does not start, answers something unexpected or says an object is missing, that read
//! (and every later one) goes through libgit2 instead, which also gives the error for an
//! object that really is missing. git is a speed-up here, never a dependency.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::{Archive, ArchiveError, BlobId};

/// Fewer blobs than this are read with libgit2 (starting git costs a few milliseconds).
const BULK: usize = 8;
/// How many object names are written before their answers are read.
const CHUNK: usize = 128;

/// A running `git cat-file --batch`.
pub(crate) struct CatFile {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl std::fmt::Debug for CatFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatFile").field("pid", &self.child.id()).finish()
    }
}

impl CatFile {
    fn start(git_dir: &std::path::Path) -> Option<CatFile> {
        let mut child = Command::new("git")
            .arg("--git-dir")
            .arg(git_dir)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::with_capacity(1 << 16, child.stdout.take()?);
        Some(CatFile { child, stdin: Some(stdin), stdout })
    }

    /// The contents of `blobs`, in order; `None` in a slot git did not answer with a blob
    /// (missing, or not a blob). `Err` when the conversation broke down.
    fn read(&mut self, blobs: &[BlobId]) -> std::io::Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(blobs.len());
        for chunk in blobs.chunks(CHUNK) {
            let mut names = String::with_capacity(chunk.len() * 41);
            for b in chunk {
                names.push_str(&b.0.to_string());
                names.push('\n');
            }
            let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::other("closed"))?;
            stdin.write_all(names.as_bytes())?;
            stdin.flush()?;
            for b in chunk {
                out.push(self.answer(b)?);
            }
        }
        Ok(out)
    }

    /// Reads one answer: `<id> blob <size>` LF, the bytes, LF; or `<id> missing` LF.
    fn answer(&mut self, blob: &BlobId) -> std::io::Result<Option<Vec<u8>>> {
        let mut header = String::new();
        self.stdout.read_line(&mut header)?;
        let bad = || std::io::Error::other("unexpected answer from git cat-file");
        let mut fields = header.trim_end_matches('\n').split(' ');
        if fields.next() != Some(blob.0.to_string().as_str()) {
            return Err(bad());
        }
        match (fields.next(), fields.next(), fields.next()) {
            (Some("missing" | "ambiguous"), None, None) => Ok(None),
            (Some(kind), Some(size), None) => {
                let size: usize = size.parse().map_err(|_| bad())?;
                let mut bytes = vec![0; size + 1];
                self.stdout.read_exact(&mut bytes)?;
                if bytes.pop() != Some(b'\n') {
                    return Err(bad());
                }
                Ok((kind == "blob").then_some(bytes))
            }
            _ => Err(bad()),
        }
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        // Closing its input ends git; wait so that no zombie is left behind.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

impl Archive {
    /// The contents of `blobs`, in order (found at `path`, which only names them in
    /// errors). Many blobs are read through git's own reader when it is there; see the
    /// [module docs](super::blobs).
    ///
    /// # Errors
    ///
    /// Git failures (a blob not in the repository).
    pub fn read_blobs(&self, blobs: &[BlobId], path: &str) -> Result<Vec<Vec<u8>>, ArchiveError> {
        let mut answers: Vec<Option<Vec<u8>>> = Vec::new();
        if blobs.len() >= BULK && !self.cat_file_failed.get() {
            let mut slot = self.cat_file.borrow_mut();
            if slot.is_none() {
                *slot = CatFile::start(self.repo.path());
            }
            match slot.as_mut().map(|c| c.read(blobs)) {
                Some(Ok(read)) => answers = read,
                _ => {
                    *slot = None;
                    self.cat_file_failed.set(true);
                }
            }
        }
        answers.resize_with(blobs.len(), || None);
        blobs
            .iter()
            .zip(answers)
            .map(|(b, a)| match a {
                Some(bytes) => Ok(bytes),
                None => self.blob_bytes(b.0, path),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{Identity, Timestamp};

    /// git's answers are libgit2's bytes, for text, binary and empty blobs alike, and a
    /// missing blob gives libgit2's error.
    #[test]
    fn bulk_reads_equal_libgit2_reads() {
        let dir = tempfile::tempdir().unwrap();
        let ann = Identity::new("Ann Example", "ann@example.com");
        let archive = Archive::init(dir.path(), Some(&ann), Timestamp::from_unix(1_740_830_400, 0)).unwrap();
        let mut contents: Vec<Vec<u8>> =
            (0..20).map(|i| format!("version {i}\n").repeat(i).into_bytes()).collect();
        contents.push(vec![0, 159, 146, 150, b'\n', b'\r', 0xff]);
        contents.push(Vec::new());
        let ids: Vec<BlobId> = contents.iter().map(|c| BlobId(archive.repo.blob(c).unwrap())).collect();
        let read = archive.read_blobs(&ids, "x").unwrap();
        assert_eq!(read, contents);
        assert!(archive.cat_file.borrow().is_some(), "a batch of {} blobs goes through git", ids.len());
        for (id, c) in ids.iter().zip(&contents) {
            assert_eq!(&archive.blob_bytes(id.0, "x").unwrap(), c);
        }
        let mut with_missing = ids.clone();
        with_missing.push(BlobId(git2::Oid::from_str("0123456789abcdef0123456789abcdef01234567").unwrap()));
        assert!(matches!(archive.read_blobs(&with_missing, "x"), Err(ArchiveError::Git { .. })));
    }
}
