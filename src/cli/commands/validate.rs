//! `ravenpost validate`: replay every game in the files and check it by the rules.

use std::io::Write;
use std::path::PathBuf;

use crate::cli::args::ColorChoice;
use crate::cli::failure::{Failure, io, plural};
use crate::cli::{diagnostics, files, progress};

/// Replay every game in the files (directories: every .pgn below them) and check
/// tags, moves and results against the rules.
///
/// Prints one diagnostic per problem and a summary; exits 0 only if every game is
/// valid.
#[derive(Debug, clap::Args)]
pub(crate) struct ValidateArgs {
    /// Game files or directories (`-`: standard input).
    #[arg(required = true, value_name = "FILES|DIRS")]
    paths: Vec<PathBuf>,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    json: bool,
    /// Colour the diagnostics: `auto` when standard error is a terminal and NO_COLOR
    /// is unset or empty.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// `ravenpost validate FILES|DIRS`.
pub(crate) fn run(a: ValidateArgs, out: &mut impl Write) -> Result<(), Failure> {
    let found = files::collect(&a.paths).map_err(Failure::input)?;
    super::warn_skipped(&found);
    let list = found.files;
    // A bar only for many files (one long file is over before a bar would help).
    let mut bar = progress::Bar::new(a.json || list.len() < 20, "validating");
    let mut report =
        diagnostics::validate(&list, &mut |done, total| bar.set(done, total)).map_err(Failure::input)?;
    report.skipped = found.skipped;
    bar.finish();
    if a.json {
        let text = serde_json::to_string_pretty(&report).expect("report serialises");
        writeln!(out, "{text}").map_err(io)?;
    } else {
        let color = a.color.stderr();
        for p in &report.problems {
            errln!("{}", diagnostics::render(p, color));
        }
        writeln!(
            out,
            "{} file{}, {} game{}: {} valid, {} problem{}",
            report.files,
            plural(report.files),
            report.games,
            plural(report.games),
            report.valid,
            report.problems.len(),
            plural(report.problems.len())
        )
        .map_err(io)?;
    }
    if !report.problems.is_empty() {
        return Err(Failure::quiet());
    }
    Ok(())
}
