//! `ravenpost variant check|show`: variant definition files.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::args::read_definition;
use crate::cli::failure::{Failure, io};
use crate::variants;

/// Variant definition files: check one, or print a built-in one.
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
}

/// `ravenpost variant …`.
pub(crate) fn run(a: VariantArgs, out: &mut impl Write) -> Result<(), Failure> {
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
            let v = variants::by_name(&name, &[]).map_err(|e| Failure::input(e.to_string()))?;
            let text = variants::BUILT_IN
                .iter()
                .find(|(slug, _)| *slug == v.def().slug)
                .map(|(_, t)| *t)
                .ok_or_else(|| Failure::input(format!("`{name}` has no definition file")))?;
            out.write_all(text.as_bytes()).map_err(io)?;
        }
    }
    Ok(())
}
