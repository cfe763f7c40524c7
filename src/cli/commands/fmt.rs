//! `ravenpost fmt`: rewrite game files in canonical form.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::ColorChoice;
use crate::cli::failure::{Failure, io, plural};
use crate::cli::{diagnostics, files};

/// Rewrite game files in canonical form (notation-spec/movetext.md §4).
///
/// A file with any problem is left as it is, and its problems are reported.
#[derive(Debug, clap::Args)]
pub(crate) struct FmtArgs {
    /// Game files or directories (`-`: standard input, written canonical to standard
    /// output).
    #[arg(required = true, value_name = "FILES|DIRS")]
    paths: Vec<PathBuf>,
    /// Change nothing; list the files that are not canonical and exit 1 if any.
    #[arg(long)]
    check: bool,
    /// Colour the diagnostics: `auto` when standard error is a terminal and NO_COLOR
    /// is unset or empty.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// `ravenpost fmt [--check] FILES|DIRS`.
pub(crate) fn run(a: FmtArgs, out: &mut impl Write) -> Result<(), Failure> {
    let check = a.check;
    let found = files::collect(&a.paths).map_err(Failure::input)?;
    super::warn_skipped(&found);
    let list = found.files;
    let color = a.color.stderr();
    let mut failed = false;
    let mut changed = 0;
    for f in &list {
        match diagnostics::canonical_file(f) {
            Err(problems) => {
                failed = true;
                for p in &problems {
                    errln!("{}", diagnostics::render(p, color));
                }
            }
            Ok(text) if files::is_stdin(f) => {
                let old = files::stdin_bytes().unwrap_or_default();
                if old != text.as_bytes() {
                    changed += 1;
                }
                if check && old != text.as_bytes() {
                    writeln!(out, "{}", files::STDIN_NAME).map_err(io)?;
                } else if !check {
                    out.write_all(text.as_bytes()).map_err(io)?;
                }
            }
            Ok(text) => {
                let old = std::fs::read(f).unwrap_or_default();
                if old != text.as_bytes() {
                    changed += 1;
                    if check {
                        writeln!(out, "{}", f.display()).map_err(io)?;
                    } else {
                        files::write_atomically(f, &text)
                            .map_err(|e| Failure::refused(format!("{}: {e}", f.display())))?;
                    }
                }
            }
        }
    }
    if failed {
        return Err(Failure::refused("some files have problems and were left as they are"));
    }
    if check && changed > 0 {
        return Err(Failure::refused(format!("{changed} file{} not in canonical form", plural(changed))));
    }
    Ok(())
}
