//! Game files outside an archive: `validate` reads and judges them ([`validate`]), `fmt`
//! writes them back in canonical form ([`canonical_file`]), and a game of a file can be
//! shown ([`load_game_prefix`]). The files are found under the paths given ([`collect`]),
//! each once; a pinned user variant is taken from the `variants/` folder near the file
//! ([`definitions_near`]). Where the bytes come from (a file, or standard input as the
//! front end reads it) is the front end's [`Source`].

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::notation::pgn::GameReader;
use crate::record::Loader;
use crate::record::game::{Judging, Problem};
use crate::variants::Definitions;

/// Where game files are read from, as the front end sees them (standard input for `-`,
/// read once, is the command line's).
pub trait Source {
    /// A reader of `path`.
    ///
    /// # Errors
    /// The I/O error.
    fn open(&self, path: &Path) -> std::io::Result<Box<dyn BufRead + '_>>;

    /// How messages name `path`.
    fn name(&self, path: &Path) -> String;
}

/// Files only: a path is a file's.
pub struct FileSystem;

impl Source for FileSystem {
    fn open(&self, path: &Path) -> std::io::Result<Box<dyn BufRead + '_>> {
        Ok(Box::new(std::io::BufReader::new(std::fs::File::open(path)?)))
    }

    fn name(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

/// What [`collect`] found: the files to read, each once, and what it passed over.
#[derive(Debug, Default)]
pub struct Collected {
    /// The files, in the order given (a folder's in name order).
    pub files: Vec<PathBuf>,
    /// One sentence per path passed over (a FIFO or device, a folder or file reached a
    /// second time through a symbolic link), naming it: the warnings to print.
    pub skipped: Vec<String>,
}

/// What a path is to [`collect`]: a game file, a folder to search, or something that is
/// never read (a FIFO, socket or device would block or never end).
enum Kind {
    File,
    Folder,
    Special(&'static str),
}

/// What the file system says `meta` is.
fn kind_of(meta: &std::fs::Metadata) -> Kind {
    let t = meta.file_type();
    if t.is_dir() {
        return Kind::Folder;
    }
    if t.is_file() {
        return Kind::File;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Kind::Special("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Kind::Special("a socket");
        }
        if t.is_char_device() || t.is_block_device() {
            return Kind::Special("a device");
        }
    }
    Kind::Special("not a regular file")
}

/// Which file `meta` (of `path`) is, whatever name reached it: device and inode on
/// Unix, the path with every link resolved elsewhere.
fn identity(meta: &std::fs::Metadata, path: &Path) -> (u64, u64, PathBuf) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        (meta.dev(), meta.ino(), PathBuf::new())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0, std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// The files and folders [`collect`] has met, by identity, with the name each was
/// first met under.
#[derive(Default)]
struct Visited {
    seen: std::collections::HashMap<(u64, u64, PathBuf), PathBuf>,
}

impl Visited {
    /// `None` the first time `path` (whose metadata is `meta`) is met; else the name it
    /// was first met under.
    fn first_name(&mut self, meta: &std::fs::Metadata, path: &Path) -> Option<PathBuf> {
        match self.seen.entry(identity(meta, path)) {
            std::collections::hash_map::Entry::Occupied(e) => Some(e.get().clone()),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(path.to_path_buf());
                None
            }
        }
    }
}

/// Every `.pgn` file under `paths` (files as given, `-` for standard input; directories
/// searched recursively, in name order), each file and folder once however many names
/// reach it (symbolic links, hard links, a path given twice). FIFOs, sockets and devices
/// are never opened (reading one would block or never end): they are passed over with a
/// warning, as are folders and files met again through another name.
///
/// # Errors
/// A path that does not exist or a directory that cannot be read.
pub fn collect(paths: &[PathBuf]) -> Result<Collected, String> {
    let mut out = Collected::default();
    let mut visited = Visited::default();
    for p in paths {
        if p.as_os_str() == "-" {
            out.files.push(p.clone());
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{}: no such file or directory", p.display()),
            _ => format!("{}: {e}", p.display()),
        })?;
        visit(p, &meta, &mut visited, &mut out).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    Ok(out)
}

/// Takes `path` (with its metadata, links followed) into `out`: a file once, a folder
/// searched once, anything else passed over.
fn visit(
    path: &Path,
    meta: &std::fs::Metadata,
    visited: &mut Visited,
    out: &mut Collected,
) -> std::io::Result<()> {
    match kind_of(meta) {
        Kind::Special(what) => {
            out.skipped.push(format!("{}: skipped: {what}, not a game file (never read)", path.display()));
        }
        Kind::File => match visited.first_name(meta, path) {
            None => out.files.push(path.to_path_buf()),
            Some(first) => out.skipped.push(format!(
                "{}: skipped: the same file as {}, read once",
                path.display(),
                first.display()
            )),
        },
        Kind::Folder => match visited.first_name(meta, path) {
            None => walk(path, visited, out)?,
            Some(first) => out.skipped.push(format!(
                "{}: skipped: the same folder as {}, searched once (a symbolic link or a second name leads back to it)",
                path.display(),
                first.display()
            )),
        },
    }
    Ok(())
}

fn walk(dir: &Path, visited: &mut Visited, out: &mut Collected) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir)?.map(|e| e.map(|e| e.path())).collect::<Result<_, _>>()?;
    entries.sort();
    for e in entries {
        let hidden = e.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let is_pgn = e.extension().is_some_and(|x| x == "pgn");
        match std::fs::metadata(&e) {
            Ok(meta) if meta.is_dir() => {
                if !hidden {
                    visit(&e, &meta, visited, out)?;
                }
            }
            Ok(meta) if is_pgn => visit(&e, &meta, visited, out)?,
            Ok(_) => {}
            // A link to nothing: named, so that reading it says what is wrong.
            Err(_) if is_pgn => out.files.push(e),
            Err(_) => {}
        }
    }
    Ok(())
}

/// The variant definitions of the archive a game file is in, for its replay: every
/// readable definition in the `variants/` folder of the nearest directory above `file`
/// that has one (`notation-spec/variant-files.md` §10). A game uses only the one its
/// `VariantHash` names, so a definition found here can never be the wrong one.
pub fn definitions_near(file: &Path) -> Definitions {
    let mut found = Definitions::new();
    let Ok(file) = std::path::absolute(file) else { return found };
    let Some(dir) = file.ancestors().skip(1).map(|d| d.join("variants")).find(|d| d.is_dir()) else {
        return found;
    };
    let Ok(entries) = std::fs::read_dir(&dir) else { return found };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "md")
            && let Ok(text) = std::fs::read_to_string(&path)
            && let Ok(d) = crate::variants::load_definition(&text)
        {
            found.insert(d);
        }
    }
    found
}

/// Replaces `path`'s contents atomically (temporary file in the same directory, then
/// rename), so a crash leaves the old file or the new one, never half of either. A
/// symbolic link's target is replaced; anything but a regular file is refused.
///
/// # Errors
/// The I/O error.
pub fn write_atomically(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    // Only regular files are replaced: a device, pipe or folder is refused, and a symbolic
    // link is followed (its target is replaced, the link stays).
    if let Ok(m) = std::fs::metadata(path)
        && !m.is_file()
    {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a folder, device or pipe); nothing was written",
        ));
    }
    let resolved;
    let path = if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        resolved = std::fs::canonicalize(path)?;
        resolved.as_path()
    } else {
        path
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.ravenpost-tmp-{}", std::process::id()));
    std::fs::write(&tmp, contents)?;
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// A problem with the file it is in, as `--json` prints it.
#[derive(Debug, Serialize)]
pub struct FileProblem {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The offending token.
    pub token: String,
    /// What is wrong.
    pub message: String,
    /// What would be right, if known.
    pub help: Option<String>,
}

/// What `validate` found.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// Files read.
    pub files: usize,
    /// Games read.
    pub games: usize,
    /// Games without problems.
    pub valid: usize,
    /// Every problem.
    pub problems: Vec<FileProblem>,
    /// The paths passed over, each with why ([`Collected::skipped`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

fn file_problem(source: &dyn Source, file: &Path, p: Problem) -> FileProblem {
    FileProblem {
        file: source.name(file),
        line: p.span.line,
        column: p.span.column,
        token: p.token,
        message: p.message,
        help: p.help,
    }
}

/// Reads and replays every game of every file.
///
/// # Errors
/// A file that cannot be opened.
pub fn validate(
    source: &dyn Source,
    files: &[PathBuf],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Report, String> {
    let mut report = Report::default();
    for (k, f) in files.iter().enumerate() {
        progress(k, files.len());
        let definitions = definitions_near(f);
        let file = source.open(f).map_err(|e| format!("{}: {e}", source.name(f)))?;
        report.files += 1;
        // Each game judged as it is read: memory follows the longest move, not the game.
        let mut games = GameReader::new(file);
        loop {
            let mut judging = Judging::new(&definitions);
            let Some(game) = games.next_streamed(&mut judging) else { break };
            report.games += 1;
            match game {
                Err(e) => report.problems.push(file_problem(source, f, e.into())),
                Ok(text) => match judging.finish(&text) {
                    Ok(_) => report.valid += 1,
                    Err(ps) => report.problems.extend(ps.into_iter().map(|p| file_problem(source, f, p))),
                },
            }
        }
    }
    progress(files.len(), files.len());
    Ok(report)
}

/// The canonical text of a whole file, or its problems.
///
/// # Errors
/// The problems of its games (a file with problems is never rewritten), or a read error.
pub fn canonical_file(source: &dyn Source, path: &Path) -> Result<String, Vec<FileProblem>> {
    let definitions = definitions_near(path);
    let file = source.open(path).map_err(|e| {
        vec![FileProblem {
            file: source.name(path),
            line: 0,
            column: 0,
            token: String::new(),
            message: e.to_string(),
            help: None,
        }]
    })?;
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for game in GameReader::new(file) {
        match game {
            Err(e) => problems.push(file_problem(source, path, e.into())),
            Ok(text) => match Loader::new().definitions(&definitions).replay(text) {
                Ok(l) => out.push(l.game.canonical_text()),
                Err(ps) => problems.extend(ps.into_iter().map(|p| file_problem(source, path, p))),
            },
        }
    }
    if problems.is_empty() { Ok(out.join("\n")) } else { Err(problems) }
}

/// The `n`th game (from 1) of a file, replayed as far as its main line is legal
/// ([`crate::record::Loader::as_far_as_legal`]).
///
/// # Errors
/// The file cannot be read, has fewer games, or not even the game's start replays (the
/// first problem is given with its line and column).
pub fn load_game_prefix(
    source: &dyn Source,
    path: &Path,
    n: usize,
) -> Result<crate::record::game::Prefix, String> {
    let definitions = definitions_near(path);
    let name = source.name(path);
    let file = source.open(path).map_err(|e| format!("{name}: {e}"))?;
    let text = GameReader::new(file)
        .nth(n.saturating_sub(1))
        .ok_or_else(|| format!("{name}: no game {n}"))?
        .map_err(|e| format!("{name}:{}:{}: {}", e.line, e.column, e.reason))?;
    let loaded = crate::record::Loader::new().definitions(&definitions).as_far_as_legal().replay(text);
    let loaded = loaded.map_err(|ps| {
        let p = &ps[0];
        format!("{name}:{}:{}: {}", p.span.line, p.span.column, p.message)
    })?;
    Ok(crate::record::game::Prefix { game: loaded.game, broken: loaded.broken })
}
