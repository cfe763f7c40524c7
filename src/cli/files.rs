//! Game files in and out: standard input for every command that reads a file (a path `-`
//! is standard input, read once and named [`STDIN_NAME`] in messages), the game files
//! under the paths `validate` and `fmt` are given, and atomic rewrites.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::OnceLock;

/// How messages name standard input (as compilers do).
pub const STDIN_NAME: &str = "<stdin>";

/// Standard input, read whole the first time a command asks for it.
static STDIN: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();

/// Whether `path` means standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Standard input's bytes (read once; later calls get the same bytes).
///
/// # Errors
/// The read error, as a sentence.
pub fn stdin_bytes() -> Result<&'static [u8], String> {
    let read = STDIN.get_or_init(|| {
        let mut buf = Vec::new();
        std::io::stdin().lock().read_to_end(&mut buf).map(|_| buf).map_err(|e| format!("{STDIN_NAME}: {e}"))
    });
    read.as_deref().map_err(Clone::clone)
}

/// The text of `path`, or of standard input for `-`.
///
/// # Errors
/// The read error, or text that is not UTF-8, with the file's name.
pub fn read_text(path: &Path) -> Result<String, String> {
    if is_stdin(path) {
        let bytes = stdin_bytes()?;
        return String::from_utf8(bytes.to_vec()).map_err(|_| format!("{STDIN_NAME}: not UTF-8 text"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// How messages name `path`: [`STDIN_NAME`] for `-`.
pub fn display_name(path: &Path) -> String {
    if is_stdin(path) { STDIN_NAME.to_string() } else { path.display().to_string() }
}

/// A reader of `path` (standard input for `-`).
pub(crate) fn open(path: &Path) -> std::io::Result<Box<dyn BufRead>> {
    if is_stdin(path) {
        let bytes = stdin_bytes().map_err(std::io::Error::other)?;
        return Ok(Box::new(bytes));
    }
    Ok(Box::new(BufReader::new(std::fs::File::open(path)?)))
}

pub use crate::usecases::files::{Collected, collect, write_atomically};

/// The command line's files: standard input for `-` (read once), else the file.
pub struct CliFiles;

impl crate::usecases::files::Source for CliFiles {
    fn open(&self, path: &Path) -> std::io::Result<Box<dyn BufRead + '_>> {
        open(path)
    }

    fn name(&self, path: &Path) -> String {
        display_name(path)
    }
}

/// The `n`th game (from 1) of a file (`-`: standard input), replayed as far as its main
/// line is legal ([`crate::usecases::files::load_game_prefix`]).
///
/// # Errors
/// As [`crate::usecases::files::load_game_prefix`].
pub fn load_game_prefix(path: &Path, n: usize) -> Result<crate::record::game::Prefix, String> {
    crate::usecases::files::load_game_prefix(&CliFiles, path, n)
}
