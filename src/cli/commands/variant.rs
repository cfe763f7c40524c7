//! `ravenpost variant check|show|import-fsf|legend`: variant definition files.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::args::read_definition;
use crate::cli::failure::{Failure, io};
use crate::variants;

/// Variant definition files: check one, print a built-in one, or list a variant's
/// pieces (its legend).
#[derive(Debug, clap::Args)]
pub(crate) struct VariantArgs {
    #[command(subcommand)]
    action: VariantCmd,
}

/// `ravenpost variant` actions.
#[derive(Debug, Subcommand)]
enum VariantCmd {
    /// Check a variant definition file (Markdown with YAML front matter, the format of
    /// the built-in ones; notation-spec/variant-files.md): exit 0 if it is playable, 1
    /// with each problem's line and column, 2 if the file cannot be read.
    Check {
        /// The definition file.
        file: PathBuf,
    },
    /// Print a built-in variant's definition file (a starting point for your own).
    Show {
        /// The built-in variant: gygax, fidchell, fantasy-grand, grand (or an alias).
        name: String,
    },
    /// Translate a section of Fairy-Stockfish's variants.ini into a ravenpost definition
    /// file, printed (save it, `variant check` it, and play it with --variant-file or as
    /// `variants/NAME.md` of an archive). Pieces (Betza), board size, start position,
    /// promotion, castling, stalemate, extinction (bare king) and counting rules are translated,
    /// with the parent `chess` or a section of the same file; a key that cannot be
    /// expressed is refused with its line (exit 1), never left out.
    ImportFsf {
        /// Fairy-Stockfish's variants.ini (or a file in its format).
        file: PathBuf,
        /// The section to translate (may be left out when the file has one).
        name: Option<String>,
    },
    /// Print a variant's legend: each piece's letter, name and how it moves, in one
    /// line (from the definition; `S3a7-3b6` is the long form of a move, `Sa3b6` its
    /// SAN).
    Legend {
        /// The variant: gygax, fidchell, fantasy-grand, grand (or an alias), or a
        /// variant definition file.
        #[arg(value_name = "NAME|FILE")]
        name: String,
        /// Game option K=V (repeatable), e.g. `army-white=elves` for Fantasy Grand
        /// Chess (default: both sides' armies are Humans).
        #[arg(long = "option", value_name = "K=V", value_parser = crate::cli::args::game_option)]
        options: Vec<(String, String)>,
    },
}

/// `ravenpost variant …`.
pub(crate) fn run(s: &crate::usecases::Session, a: VariantArgs, out: &mut impl Write) -> Result<(), Failure> {
    match a.action {
        VariantCmd::Check { file } => {
            let d = read_definition(&file)?;
            let def = d.def();
            let v = d.variant(&[]).map_err(|e| Failure::refused(e.to_string()))?;
            let start = v.start_position();
            writeln!(
                out,
                "{}: ok: {} (`{}`), {} level{} of {}×{}, {} piece kinds, {} legal moves from the start",
                file.display(),
                def.title,
                def.slug,
                def.dims.levels(),
                if def.dims.levels() == 1 { "" } else { "s" },
                def.dims.files(),
                def.dims.ranks(),
                def.kinds.len(),
                v.legal_moves(&start).len()
            )
            .map_err(io)?;
            writeln!(out, "content hash: {}", d.hash()).map_err(io)?;
        }
        VariantCmd::Show { name } => {
            let v = match variants::by_name(&name, &[]) {
                Ok(v) => v,
                // The archive's own definition of that name, as `new NAME` plays it.
                Err(e) => match crate::usecases::archive_variant(s, &name)? {
                    Some(d) => {
                        out.write_all(d.text().as_bytes()).map_err(io)?;
                        return Ok(());
                    }
                    None => return Err(Failure::input(e.to_string())),
                },
            };
            let text = variants::BUILT_IN
                .iter()
                .find(|(slug, _)| *slug == v.def().slug)
                .map(|(_, t)| *t)
                .ok_or_else(|| Failure::input(format!("`{name}` has no definition file")))?;
            out.write_all(text.as_bytes()).map_err(io)?;
        }
        VariantCmd::ImportFsf { file, name } => {
            let text = std::fs::read_to_string(&file)
                .map_err(|e| Failure::input(format!("{}: {e}", file.display())))?;
            let (_, definition) = crate::usecases::import_fsf(&text, name.as_deref())
                .map_err(|e| Failure::refused(format!("{}: {e}", file.display())))?;
            out.write_all(definition.as_bytes()).map_err(io)?;
        }
        VariantCmd::Legend { name, options } => {
            let path = std::path::Path::new(&name);
            let v = match variants::by_name(&name, &options) {
                Ok(v) => v,
                Err(_) if path.is_file() => {
                    let d = read_definition(path)?;
                    d.variant(&options).map_err(|e| Failure::refused(e.to_string()))?
                }
                Err(e) => match crate::usecases::archive_variant(s, &name)? {
                    Some(d) => d.variant(&options).map_err(|e| Failure::refused(e.to_string()))?,
                    None => return Err(Failure::input(e.to_string())),
                },
            };
            for l in variants::legend::legend_lines(v.def(), 80) {
                writeln!(out, "{l}").map_err(io)?;
            }
        }
    }
    Ok(())
}

/// The pieces of the built-in variants, for `move --help`: each variant's letters and
/// names in a few lines, then where to find how each moves.
pub(crate) fn pieces_help() -> String {
    let wrap = |text: &str, first: &str, rest: &str| {
        let options = textwrap::Options::new(80).initial_indent(first).subsequent_indent(rest);
        textwrap::wrap(text, options).join("\n").replace('\u{a0}', " ")
    };
    let mut text = wrap(
        "A move is written in SAN (`Sa3b6`: the Sylph on file a to 3b6) or in long form \
         (`S3a7-3b6`: from 3a7 to 3b6); `ravenpost moves GAME --from 3a7 --board` shows a \
         piece's moves on the board.",
        "",
        "",
    );
    text.push_str("\n\n");
    text.push_str(&wrap(
        "Pieces (upper case: the first side's; `ravenpost variant legend NAME` says how each \
         moves; Fantasy Grand Chess's other armies: `--option army-white=elves`):",
        "",
        "",
    ));
    for name in ["gygax", "fidchell", "fantasy-grand", "grand"] {
        let Ok(v) = variants::by_name(name, &[]) else { continue };
        let def = v.def();
        // A letter and its name stay on one line.
        let pieces: Vec<String> =
            def.kinds.iter().map(|k| format!("{} {}", k.code, k.name).replace(' ', "\u{a0}")).collect();
        text.push('\n');
        text.push_str(&wrap(&format!("{} ({name}): {}", def.title, pieces.join(", ")), "  ", "    "));
    }
    text
}
