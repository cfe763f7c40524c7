//! The history index (`Archive::index`), its cache file, the verdict cache and automatic
//! packing, checked against the real `git` command: every index is compared with what
//! `git log --first-parent --raw` says about the same line, after appending commits,
//! after a rewrite, after the cache was deleted, truncated or filled with random bytes,
//! in a shallow clone, while another thread keeps extending the cache, and after a
//! `kill -9` loop of processes building it.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

use ravenpost::archive::{
    Archive, ArchiveConfig, ArchiveOptions, CommitId, GitConfigScope, HistoryIndex, Identity, Timestamp,
};
use tempfile::TempDir;

/// 2025-03-01T00:00:00Z.
const T0: i64 = 1_740_787_200;
const GAME: &str = "games/grand/g1.pgn";
const OTHER: &str = "games/grand/g2.pgn";

fn at(minutes: i64) -> Timestamp {
    Timestamp::from_unix(T0 + minutes * 60, 60)
}

fn ann() -> Identity {
    Identity::new("Ann Example", "ann@example.com")
}

fn isolated() -> ArchiveOptions {
    let mut o = ArchiveOptions::default();
    o.git_config = GitConfigScope::RepositoryOnly;
    o
}

fn open(dir: &Path) -> Archive {
    let mut a = Archive::open(dir).unwrap();
    a.set_options(isolated());
    a
}

/// Runs the real git in `dir`, deterministically, and returns its standard output.
fn git(dir: &Path, args: &[&str]) -> String {
    let home = dir.parent().unwrap_or(dir);
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", home)
        .env("GIT_AUTHOR_NAME", "Cy Example")
        .env("GIT_AUTHOR_EMAIL", "cy@example.com")
        .env("GIT_AUTHOR_DATE", "2025-02-01T00:00:00+0200")
        .env("GIT_COMMITTER_NAME", "Cy Example")
        .env("GIT_COMMITTER_EMAIL", "cy@example.com")
        .env("GIT_COMMITTER_DATE", "2025-02-01T00:00:00+0200")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// An archive with two games and `moves` commits to the first, all made by ravenpost.
fn archive(moves: usize) -> (TempDir, std::path::PathBuf, Archive) {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("archive");
    let a =
        Archive::init_with_config(&dir, &ArchiveConfig::default(), Some(&ann()), at(0), isolated()).unwrap();
    let tip = a.tip().unwrap();
    let tip = a.create_file(GAME, "ply 0\n", tip, Some(&ann()), at(1), "g1: new").unwrap();
    a.create_file(OTHER, "other 0\n", Some(tip), Some(&ann()), at(2), "g2: new").unwrap();
    for n in 0..moves {
        add_move(&a, n);
    }
    (tmp, dir, a)
}

fn add_move(a: &Archive, n: usize) -> CommitId {
    let tip = a.tip().unwrap();
    let path = if n % 3 == 2 { OTHER } else { GAME };
    let who = Identity::new(format!("Player {}", n % 2), "p@example.com");
    a.commit_file(path, format!("move {n}\n"), tip, Some(&who), at(10 + n as i64), &format!("move {n}"))
        .unwrap()
}

/// One commit as `git log --first-parent --raw` tells it: id, first parent, author name,
/// email, seconds, subject, and the (path, new blob or `None`) of every change.
type GitCommit = (String, Option<String>, String, String, i64, String, Vec<(String, Option<String>)>);

/// The first-parent line ending at `rev`, oldest first, read by git itself.
fn git_line(dir: &Path, rev: &str) -> Vec<GitCommit> {
    let out = git(
        dir,
        &[
            "log",
            "--first-parent",
            "--diff-merges=first-parent",
            "--reverse",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            "--root",
            "--format=@%H%x09%P%x09%an%x09%ae%x09%at%x09%s",
            rev,
        ],
    );
    let mut line: Vec<GitCommit> = Vec::new();
    for l in out.lines().filter(|l| !l.is_empty()) {
        if let Some(header) = l.strip_prefix('@') {
            let f: Vec<&str> = header.split('\t').collect();
            let parent = f[1].split(' ').next().filter(|p| !p.is_empty()).map(str::to_string);
            line.push((
                f[0].to_string(),
                parent,
                f[2].to_string(),
                f[3].to_string(),
                f[4].parse().unwrap(),
                f[5].to_string(),
                Vec::new(),
            ));
        } else {
            // :100644 100644 <old> <new> M<TAB>path
            let (meta, path) = l.split_once('\t').unwrap();
            let m: Vec<&str> = meta.split(' ').collect();
            let blob = (m[4] != "D").then(|| m[3].to_string());
            line.last_mut().unwrap().6.push((path.to_string(), blob));
        }
    }
    for c in &mut line {
        c.6.sort();
    }
    line
}

fn as_git(index: &HistoryIndex) -> Vec<GitCommit> {
    index
        .commits()
        .iter()
        .map(|c| {
            (
                c.commit.hex(),
                c.parent.map(|p| p.hex()),
                c.author_name.to_string(),
                c.author_email.to_string(),
                c.time.unix_seconds(),
                c.message.lines().next().unwrap_or_default().to_string(),
                c.changes.iter().map(|ch| (ch.path.to_string(), ch.blob.map(|b| b.hex()))).collect(),
            )
        })
        .collect()
}

/// Deletes the cache database (and its write-ahead log).
fn remove_cache(a: &Archive) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = a.index_path().into_os_string();
        name.push(suffix);
        let _ = fs::remove_file(name);
    }
}

/// Writes everything of the cache database's log into its file (as the last connection
/// to close does), so that the file alone holds the database.
fn checkpoint(a: &Archive) {
    let c = rusqlite::Connection::open(a.index_path()).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
}

/// The index agrees with git, the per-path versions with `git log -- path`, and a cache
/// rebuilt from nothing gives the same index.
fn check(dir: &Path, a: &Archive) {
    let index = a.index().unwrap();
    assert_eq!(as_git(&index), git_line(dir, "HEAD"));
    assert_eq!(index.tip().map(|t| t.hex()), Some(git(dir, &["rev-parse", "HEAD"]).trim().to_string()));
    for path in [GAME, OTHER, "ravenpost.yaml"] {
        let ours: Vec<String> = index.versions(path).iter().map(|v| v.commit.hex()).collect();
        let theirs: Vec<String> =
            git(dir, &["log", "--first-parent", "--reverse", "--format=%H", "--", path])
                .lines()
                .map(String::from)
                .collect();
        assert_eq!(ours, theirs, "{path}");
    }
    remove_cache(a);
    let fresh = open(dir).index().unwrap();
    assert_eq!(as_git(&fresh), as_git(&index));
}

#[test]
fn index_matches_git_and_is_cached() {
    let (_tmp, dir, a) = archive(6);
    // A commit made with git that changes two files and deletes none, then one that
    // deletes a file.
    fs::write(dir.join("README"), "r\n").unwrap();
    fs::write(dir.join(GAME), "by hand\n").unwrap();
    git(&dir, &["add", "README", GAME]);
    git(&dir, &["commit", "-q", "-m", "by hand"]);
    git(&dir, &["rm", "-q", "README"]);
    git(&dir, &["commit", "-q", "-m", "gone"]);
    assert!(!a.index_path().exists());
    let index = a.index().unwrap();
    assert!(a.index_path().exists(), "the index is cached");
    assert_eq!(index.len(), 3 + 6 + 2);
    assert_eq!(index.shallow(), None);
    assert_eq!(index.paths(), ["README", GAME, OTHER, "ravenpost.yaml"]);
    let readme: Vec<bool> = index.versions("README").iter().map(|v| v.blob.is_some()).collect();
    assert_eq!(readme, [true, false]);
    let last = index.versions(GAME).last().copied().unwrap();
    assert_eq!(a.read_blob_text(last.blob.unwrap(), GAME).unwrap(), "by hand\n");
    check(&dir, &a);
    // The cache, read again, answers the same without a walk.
    let again = open(&dir).index().unwrap();
    assert_eq!(as_git(&again), git_line(&dir, "HEAD"));
}

#[test]
fn incremental_index_after_new_commits_matches_git() {
    let (_tmp, dir, a) = archive(5);
    use std::os::unix::fs::MetadataExt;
    a.index().unwrap();
    let inode = fs::metadata(a.index_path()).unwrap().ino();
    for n in 5..12 {
        add_move(&a, n);
    }
    let index = a.index().unwrap();
    assert_eq!(as_git(&index), git_line(&dir, "HEAD"));
    assert_eq!(fs::metadata(a.index_path()).unwrap().ino(), inode, "the same database, extended");
    check(&dir, &a);
}

#[test]
fn index_after_reset_and_new_commits_matches_git() {
    let (_tmp, dir, a) = archive(8);
    a.index().unwrap();
    git(&dir, &["reset", "-q", "--hard", "HEAD~3"]);
    let index = a.index().unwrap();
    assert_eq!(as_git(&index), git_line(&dir, "HEAD"));
    a.index().unwrap();
    git(&dir, &["reset", "-q", "--hard", "HEAD~2"]);
    a.index().unwrap();
    for n in 20..23 {
        add_move(&a, n);
    }
    fs::write(dir.join(OTHER), "by hand\n").unwrap();
    git(&dir, &["commit", "-q", "-am", "by hand"]);
    check(&dir, &a);
    // A history that shares no commit with the cache (a new root) is walked afresh.
    git(&dir, &["checkout", "-q", "--orphan", "fresh"]);
    git(&dir, &["commit", "-q", "-m", "fresh root"]);
    git(&dir, &["branch", "-q", "-M", "main"]);
    check(&dir, &a);
    assert_eq!(a.index().unwrap().len(), 1);
}

#[test]
fn a_bad_cache_is_rebuilt_silently() {
    let (_tmp, dir, a) = archive(6);
    let good = {
        a.index().unwrap();
        checkpoint(&a);
        fs::read(a.index_path()).unwrap()
    };
    let want = git_line(&dir, "HEAD");
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect()
    };
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("truncated", good[..good.len() * 2 / 3].to_vec()),
        ("truncated to its header", good[..100].to_vec()),
        ("random bytes", random(5000)),
        ("random bytes after a good start", [&good[..200], &random(3000)[..]].concat()),
        ("doubled", [&good[..], &good[..]].concat()),
    ];
    for (what, bytes) in bad {
        remove_cache(&a);
        fs::write(a.index_path(), &bytes).unwrap();
        let index = open(&dir).index().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(as_git(&index), want, "{what}");
        drop(index);
        // Read again: from the database made again.
        assert_eq!(as_git(&open(&dir).index().unwrap()), want, "{what}: again");
    }
    // A missing cache directory, too.
    fs::remove_dir_all(a.index_path().parent().unwrap()).unwrap();
    assert_eq!(as_git(&open(&dir).index().unwrap()), want);
    assert!(a.index_path().exists());
}

/// A database written by another release (another schema) is made again, with the same
/// answers; so is one whose tables were emptied or half deleted behind its back.
#[test]
fn a_cache_of_another_schema_or_with_rows_gone_is_rebuilt() {
    let (_tmp, dir, a) = archive(6);
    let want = git_line(&dir, "HEAD");
    a.index().unwrap();
    let c = rusqlite::Connection::open(a.index_path()).unwrap();
    let version: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    c.execute_batch(&format!("PRAGMA user_version = {}", version + 1)).unwrap();
    drop(c);
    assert_eq!(as_git(&open(&dir).index().unwrap()), want, "another schema");
    let c = rusqlite::Connection::open(a.index_path()).unwrap();
    let version_now: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(version_now, version, "made again with this release's schema");
    c.execute_batch("DROP TABLE changes").unwrap();
    drop(c);
    assert_eq!(as_git(&open(&dir).index().unwrap()), want, "a table gone");
    assert_eq!(as_git(&open(&dir).index().unwrap()), want, "a table gone, then made again");
}

#[test]
fn index_at_a_commit_off_the_branch_answers_its_line_and_the_branch_stays() {
    let (_tmp, dir, a) = archive(4);
    a.index().unwrap();
    // A commit on top of the tip that the branch does not have (as a push brings it).
    let tree = git(&dir, &["rev-parse", "HEAD^{tree}"]);
    let head = git(&dir, &["rev-parse", "HEAD"]);
    let side = git(&dir, &["commit-tree", tree.trim(), "-p", head.trim(), "-m", "pushed"]);
    let side: CommitId = side.trim().parse().unwrap();
    let index = a.index_at(side).unwrap();
    assert_eq!(as_git(&index), git_line(&dir, &side.hex()));
    assert_eq!(as_git(&a.index().unwrap()), git_line(&dir, "HEAD"), "the branch's line is the branch's");
    // An older commit of the line: the cached prefix.
    let old: CommitId = git(&dir, &["rev-parse", "HEAD~2"]).trim().parse().unwrap();
    assert_eq!(as_git(&a.index_at(old).unwrap()), git_line(&dir, "HEAD~2"));
    assert_eq!(a.index_at(old).unwrap().since(None).len(), a.index().unwrap().len() - 2);
    // The history functions answer from the index as before.
    let between = a.commits_between(Some(old), side).unwrap();
    assert_eq!(between.len(), 3);
    assert_eq!(between[2].commit, side);
}

#[test]
fn shallow_clone_history_is_cut_not_an_error() {
    let (tmp, dir, _a) = archive(9);
    let clone = tmp.path().join("clone");
    let url = format!("file://{}", dir.display());
    git(tmp.path(), &["clone", "-q", "--depth", "4", &url, clone.to_str().unwrap()]);
    let c = open(&clone);
    let index = c.index().unwrap();
    assert_eq!(index.len(), 4);
    let boundary = git(&clone, &["rev-parse", "HEAD~3"]);
    assert_eq!(index.shallow().map(|s| s.hex()), Some(boundary.trim().to_string()));
    // The boundary's parent is named, not present; its files count as created there.
    assert_eq!(
        index.commits()[0].parent.map(|p| p.hex()),
        Some(git(&dir, &["rev-parse", "HEAD~4"]).trim().to_string())
    );
    assert!(index.commits()[0].changes.iter().any(|ch| &*ch.path == "ravenpost.yaml"));
    let history = c.file_history(GAME).unwrap();
    assert_eq!(history[0].commit.hex(), boundary.trim());
    // Cached, then read back, the cut stays; once the clone is deepened it is gone.
    assert_eq!(open(&clone).index().unwrap().shallow(), index.shallow());
    git(&clone, &["fetch", "-q", "--unshallow"]);
    let full = open(&clone).index().unwrap();
    assert_eq!(full.shallow(), None);
    assert_eq!(as_git(&full), git_line(&dir, "HEAD"));
}

#[test]
fn concurrent_readers_never_see_a_half_written_cache() {
    let (_tmp, dir, a) = archive(3);
    a.index().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let start = Arc::new(Barrier::new(3));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (dir, done, start) = (dir.clone(), done.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                let mut reads = 0;
                let mut longest = 0;
                while !done.load(Ordering::SeqCst) {
                    let index = open(&dir).index().unwrap();
                    let line = index.commits();
                    assert!(line.windows(2).all(|w| w[1].parent == Some(w[0].commit)));
                    assert_eq!(line[0].parent, None, "a whole line, back to its root");
                    assert_eq!(line.last().map(|c| c.commit), index.tip());
                    assert!(line.len() >= longest, "never shorter than one seen before");
                    longest = line.len();
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    start.wait();
    for n in 3..40 {
        add_move(&a, n);
        a.index().unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    check(&dir, &a);
}

#[test]
fn verdict_cache_persists_by_commit_and_path_and_survives_garbage() {
    let (_tmp, _dir, a) = archive(2);
    let index = a.index().unwrap();
    let c1 = index.commits()[1].commit;
    let c2 = index.commits()[2].commit;
    let mut cache = a.verdict_cache("referee 0.1.0/test");
    assert!(cache.is_empty());
    cache.put(c1, GAME, "ok: ply 0".to_string());
    cache.put(c2, OTHER, "refused:\tline\nbreak".to_string());
    cache.save().unwrap();
    let file = cache.path().to_path_buf();
    assert!(file.starts_with(a.secrets_dir()));
    let mut again = a.verdict_cache("referee 0.1.0/test");
    assert_eq!(again.len(), 2);
    assert_eq!(again.get(c1, GAME).as_deref(), Some("ok: ply 0"));
    assert_eq!(again.get(c2, OTHER).as_deref(), Some("refused:\tline\nbreak"));
    assert_eq!(again.get(c1, OTHER), None);
    again.put(c1, GAME, "ok: replaced".to_string());
    again.save().unwrap();
    let third = a.verdict_cache("referee 0.1.0/test");
    assert_eq!(third.get(c1, GAME).as_deref(), Some("ok: replaced"));
    assert_eq!(third.len(), 2);
    // Another namespace (another release) starts empty.
    assert!(a.verdict_cache("referee 0.2.0/test").is_empty());
    // Random bytes for a database: no verdicts, and new ones are kept again.
    drop((again, third, cache));
    remove_cache(&a);
    fs::write(&file, [0x9c_u8; 3000]).unwrap();
    let mut fresh = a.verdict_cache("referee 0.1.0/test");
    assert!(fresh.is_empty());
    fresh.put(c1, GAME, "ok: again".to_string());
    fresh.save().unwrap();
    assert_eq!(a.verdict_cache("referee 0.1.0/test").get(c1, GAME).as_deref(), Some("ok: again"));
}

/// Contents whose blob id starts with `17`: each lands in `objects/17/`, the directory
/// git's `gc --auto` counts.
fn contents_in_objects_17(n: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("ply {i}\n"))
        .filter(|s| {
            git2::Oid::hash_object(git2::ObjectType::Blob, s.as_bytes()).unwrap().as_bytes()[0] == 0x17
        })
        .take(n)
        .collect()
}

fn loose_in_17(dir: &Path) -> usize {
    fs::read_dir(dir.join(".git/objects/17")).map_or(0, |d| d.count())
}

#[test]
fn loose_objects_are_packed_after_a_write_when_git_would() {
    let (_tmp, dir, a) = archive(0);
    // gc.auto = 256: more than one loose object in objects/17 is too many.
    git(&dir, &["config", "gc.auto", "256"]);
    git(&dir, &["config", "gc.autoDetach", "false"]);
    let [first, second] = <[String; 2]>::try_from(contents_in_objects_17(2)).unwrap();
    let tip = a.tip().unwrap();
    let tip = a.commit_file(GAME, &first, tip, Some(&ann()), at(5), "first").unwrap();
    assert_eq!(loose_in_17(&dir), 1, "one is not too many");
    assert!(!a.too_many_loose_objects());
    assert!(!dir.join(".git/objects/pack").read_dir().unwrap().any(|e| e.is_ok()));
    a.commit_file(GAME, &second, Some(tip), Some(&ann()), at(6), "second").unwrap();
    assert_eq!(loose_in_17(&dir), 0, "packed");
    let packs = dir.join(".git/objects/pack").read_dir().unwrap().filter_map(Result::ok);
    assert!(packs.into_iter().any(|e| e.file_name().to_string_lossy().ends_with(".pack")));
    git(&dir, &["fsck", "--strict", "--no-dangling"]);
    assert_eq!(a.read_file(GAME).unwrap().as_deref(), Some(second.as_str()));
    assert_eq!(a.index().unwrap().len(), 5);
}

#[test]
fn gc_auto_zero_keeps_loose_objects() {
    let (_tmp, dir, a) = archive(0);
    git(&dir, &["config", "gc.auto", "0"]);
    let mut tip = a.tip().unwrap();
    for (i, text) in contents_in_objects_17(3).into_iter().enumerate() {
        tip = Some(a.commit_file(GAME, &text, tip, Some(&ann()), at(5 + i as i64), "move").unwrap());
    }
    assert_eq!(loose_in_17(&dir), 3);
    assert!(!a.too_many_loose_objects());
}

#[test]
fn a_replaced_blob_was_read_as_its_replacement() {
    // `git replace` of a game's version: git's reader answered with the replacement's
    // bytes, so a many-version read (through `git cat-file --batch`) judged other bytes
    // than libgit2 reads (which ignores replace refs).
    let (_tmp, dir, a) = archive(12);
    let blobs: Vec<_> = a.index().unwrap().versions(GAME).iter().filter_map(|v| v.blob).collect();
    assert!(blobs.len() >= 8, "enough versions to go through git: {}", blobs.len());
    let victim = blobs[blobs.len() - 1].hex();
    let fake = git_stdin(&dir, &["hash-object", "-w", "--stdin"], b"not a game\n");
    git(&dir, &["replace", &victim, fake.trim()]);
    assert_eq!(git(&dir, &["cat-file", "-p", &victim]), "not a game\n", "git replaces it");
    let read = open(&dir).read_blobs(&blobs, GAME).unwrap();
    for (blob, bytes) in blobs.iter().zip(&read) {
        let real = git(&dir, &["--no-replace-objects", "cat-file", "blob", &blob.hex()]);
        assert_eq!(String::from_utf8_lossy(bytes), real, "{blob}");
    }
}

/// As [`git`], with `input` on git's standard input.
fn git_stdin(dir: &Path, args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Two file names that read the same in lossy UTF-8, the one renamed into the other by
/// hand: `verify` from the cached index missed the deletion (and the rename commit's
/// problem) that it reports from a fresh walk (found by a helper attacking the cache).
#[test]
fn a_lossy_path_changed_twice_in_one_commit_lost_a_version() {
    use std::os::unix::ffi::OsStrExt;
    let (_tmp, dir, _a) = archive(1);
    let first = std::ffi::OsStr::from_bytes(b"games/grand/x\xff.pgn");
    let second = std::ffi::OsStr::from_bytes(b"games/grand/x\xfe.pgn");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = Command::new("git")
            .arg("-C")
            .arg(&dir)
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "Cy Example")
            .env("GIT_AUTHOR_EMAIL", "cy@example.com")
            .env("GIT_COMMITTER_NAME", "Cy Example")
            .env("GIT_COMMITTER_EMAIL", "cy@example.com")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    fs::write(dir.join(first), "hello\n").unwrap();
    run(&[os("add"), os("--"), first]);
    run(&[os("commit"), os("-qm"), os("add by hand")]);
    run(&[os("mv"), os("--"), first, second]);
    run(&[os("commit"), os("-qm"), os("rename by hand")]);
    let report = || {
        let report = ravenpost::usecases::verify(&open(&dir), None, &mut |_, _| {}).unwrap();
        serde_json::to_string_pretty(&report).unwrap()
    };
    let clear = || {
        let Ok(entries) = fs::read_dir(dir.join(".git/ravenpost")) else { return };
        for e in entries {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with("index") || name.starts_with("verdicts") {
                fs::remove_file(e.path()).unwrap();
            }
        }
    };
    clear();
    let walked = report();
    assert!(walked.contains("was deleted"), "{walked}");
    // From the cache the walk wrote; from the cache alone, the verdicts judged again.
    assert_eq!(report(), walked, "from the cache");
    for e in fs::read_dir(dir.join(".git/ravenpost")).unwrap() {
        let e = e.unwrap();
        if e.file_name().to_string_lossy().starts_with("verdicts") {
            fs::remove_file(e.path()).unwrap();
        }
    }
    assert_eq!(report(), walked, "from the index cache, verdicts judged again");
}

/// Appends `count` commits to `main` with git fast-import, each changing one of `games`
/// game files (`games/grand/k<N>.pgn`), numbered on from `from`.
fn fast_import(dir: &Path, from: usize, count: usize, games: usize) {
    let mut stream = String::new();
    for n in from..from + count {
        let path = format!("games/grand/k{}.pgn", n % games);
        let body = format!("move {n}\n");
        let message = format!("k{}: move {n}", n % games);
        stream.push_str(&format!(
            "commit refs/heads/main\ncommitter Cy Example <cy@example.com> {} +0000\ndata {}\n{message}\n",
            T0 + 3600 + n as i64,
            message.len() + 1
        ));
        if n == from {
            stream.push_str("from refs/heads/main^0\n");
        }
        stream.push_str(&format!("M 100644 inline {path}\ndata {}\n{body}\n", body.len()));
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["fast-import", "--quiet"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(stream.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "fast-import");
}

/// Issue 31: a `kill -9` loop during index updates. A process building the index of a
/// history of 3,000 to 11,000 commits is killed (SIGKILL) at a random moment, over and over:
/// sometimes from no cache, mostly resuming what the killed ones left, with new commits
/// appended now and then. At least 100 kills land while the process runs; every tenth
/// time, and at the end, the index read then equals `git log` and a rebuild from no cache.
#[test]
fn a_kill_loop_during_index_updates_answers_as_a_cold_rebuild() {
    use crate::common::child::{again, child};
    use crate::common::rng::Lcg;
    if let Some(dir) = child() {
        open(Path::new(&dir)).index().unwrap();
        return;
    }
    const TEST: &str = "archive_index::a_kill_loop_during_index_updates_answers_as_a_cold_rebuild";
    let (_tmp, dir, a) = archive(2);
    let mut made = 0;
    fast_import(&dir, made, 3000, 300);
    made += 3000;
    let spawn = || again(TEST, dir.to_str().unwrap()).stdout(std::process::Stdio::null()).spawn().unwrap();
    // How long one cold build takes here, to spread the kills over it.
    let start = std::time::Instant::now();
    assert!(spawn().wait().unwrap().success());
    let cold = start.elapsed().as_micros() as usize;
    remove_cache(&a);
    let mut rng = Lcg(31);
    let (mut killed, mut finished, mut rounds) = (0, 0, 0);
    while killed < 100 {
        rounds += 1;
        assert!(rounds < 1000, "{killed} kills in {rounds} rounds: the kills come too late");
        match rounds % 10 {
            0 => {
                let want = git_line(&dir, "HEAD");
                assert_eq!(as_git(&open(&dir).index().unwrap()), want, "after {killed} kills");
                remove_cache(&a);
            }
            5 => {
                fast_import(&dir, made, 800, 300);
                made += 800;
            }
            _ => {}
        }
        let mut child = spawn();
        std::thread::sleep(std::time::Duration::from_micros((cold / 20 + rng.below(cold)) as u64));
        if child.try_wait().unwrap().is_some() {
            finished += 1;
            continue;
        }
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        )
        .unwrap();
        child.wait().unwrap();
        killed += 1;
    }
    eprintln!(
        "{killed} kills, {finished} finished first, {rounds} rounds, {made} commits; cold build {cold} µs"
    );
    let want = git_line(&dir, "HEAD");
    let index = open(&dir).index().unwrap();
    assert_eq!(as_git(&index), want);
    drop(index);
    remove_cache(&a);
    assert_eq!(as_git(&open(&dir).index().unwrap()), want, "a cold rebuild");
}
