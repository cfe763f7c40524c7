//! `ravenpost import`: a record in another program's letters or level numbering, written
//! in ravenpost's canonical form (`notation-spec/piece-codes.md` §6).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::cli::Failure;
use crate::cli::args::ColorChoice;
use crate::cli::diagnostics::{FileProblem, render};
use crate::cli::files;
use crate::notation::pgn::read_games;
use crate::record::game::{Problem, replay};
use crate::variants::import::{ImportChoices, Letters, Levels, convert};

/// `--letters`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LettersArg {
    /// ravenpost's (the default).
    Ravenpost,
    /// Hatch's: Humans `M` Marshall, `C` Cardinal.
    Hatch,
    /// Freeling's: the same as Hatch's.
    Freeling,
}

/// `--levels`.
#[derive(Debug, Clone, Copy, ValueEnum)]
enum LevelsArg {
    /// 1 = the lowest level (ravenpost's and the seed's numbering; the default).
    BottomFirst,
    /// 1 = the top level (Air in Gygax Chess), as chessvariants.com numbers them.
    TopFirst,
}

impl From<LettersArg> for Letters {
    fn from(a: LettersArg) -> Letters {
        match a {
            LettersArg::Ravenpost => Letters::Ravenpost,
            LettersArg::Hatch => Letters::Hatch,
            LettersArg::Freeling => Letters::Freeling,
        }
    }
}

impl From<LevelsArg> for Levels {
    fn from(a: LevelsArg) -> Levels {
        match a {
            LevelsArg::BottomFirst => Levels::BottomFirst,
            LevelsArg::TopFirst => Levels::TopFirst,
        }
    }
}

/// Read a record in another program's piece letters or level numbering and write it
/// in ravenpost's canonical form (notation-spec/piece-codes.md §6).
#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The record (PGN, one or more games; `-`: standard input).
    file: PathBuf,
    /// The piece letters the record uses.
    #[arg(long, value_enum, default_value_t = LettersArg::Ravenpost)]
    letters: LettersArg,
    /// How the record numbers the levels (Gygax Chess).
    #[arg(long, value_enum, default_value_t = LevelsArg::BottomFirst)]
    levels: LevelsArg,
    /// Write the canonical record to this file (default: standard output).
    #[arg(short, long, value_name = "OUT.pgn")]
    output: Option<PathBuf>,
    /// Colour the diagnostics: `auto` when standard error is a terminal and NO_COLOR is
    /// unset or empty.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

/// Converts, replays and writes every game; on any problem writes nothing and reports
/// each, as `validate` does, at its place in the file as given.
pub(crate) fn run(a: ImportArgs, out: &mut impl Write) -> Result<(), Failure> {
    let text = files::read_text(&a.file).map_err(Failure::input)?;
    let choices = ImportChoices { letters: a.letters.into(), levels: a.levels.into() };
    let mut games = Vec::new();
    let mut problems: Vec<Problem> = Vec::new();
    for g in read_games(&text) {
        match g {
            Err(e) => problems.push(e.into()),
            Ok(mut g) => {
                let span = g.span;
                if let Err(e) = convert(&mut g, choices) {
                    problems.push(Problem { span, token: String::new(), message: e.to_string(), help: None });
                    continue;
                }
                match replay(g) {
                    Ok(game) => games.push(game.canonical_text()),
                    Err(ps) => problems.extend(ps),
                }
            }
        }
    }
    if !problems.is_empty() {
        let color = a.color.stderr();
        for p in &problems {
            let fp = FileProblem {
                file: files::display_name(&a.file),
                line: p.span.line,
                column: p.span.column,
                token: p.token.clone(),
                message: p.message.clone(),
                help: p.help.clone(),
            };
            errln!("{}", render(&fp, color));
        }
        return Err(Failure {
            message: format!(
                "{}: {} problem{}; nothing written",
                a.file.display(),
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ),
            code: 1,
        });
    }
    let all = games.join("\n");
    match a.output {
        Some(path) => {
            files::write_atomically(&path, &all)
                .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
        }
        None => out
            .write_all(all.as_bytes())
            .map_err(|e| Failure { message: format!("writing output: {e}"), code: 1 })?,
    }
    Ok(())
}
