//! What the command line knows of the terminal: how wide it is (for the layout of
//! many-level diagrams) and whether to colour (`--color`, `NO_COLOR`); and the manual
//! pages (`ravenpost man --out DIR`).
//!
//! The width is the terminal's when standard output is one, else `$COLUMNS`, else
//! unknown; a diagram too wide for a known width is drawn with its levels stacked.

use std::io::IsTerminal;

use crate::engine::Variant;
use crate::notation::diagram::Layout;

/// `--layout`: where a many-level board's levels go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum LayoutArg {
    /// Side by side when that fits the terminal (its width, else $COLUMNS), else stacked;
    /// side by side when the width is unknown.
    #[default]
    Auto,
    /// Side by side, the highest level on the left.
    SideBySide,
    /// One above the other, the highest level on top.
    Stacked,
}

impl super::ColorChoice {
    /// Whether to colour a stream that is a terminal (`is_terminal`) in this mode.
    pub(crate) fn colors(self, is_terminal: bool) -> bool {
        match self {
            super::ColorChoice::Always => true,
            super::ColorChoice::Never => false,
            super::ColorChoice::Auto => {
                is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }

    /// Whether to colour standard error (diagnostics).
    pub(crate) fn stderr(self) -> bool {
        self.colors(std::io::stderr().is_terminal())
    }
}

/// The width of the output in columns: the terminal's when standard output is one, else
/// a positive `$COLUMNS`, else `None`.
pub(crate) fn columns() -> Option<usize> {
    if std::io::stdout().is_terminal()
        && let Ok((cols, _)) = crossterm::terminal::size()
        && cols > 0
    {
        return Some(cols as usize);
    }
    columns_from_env(std::env::var("COLUMNS").ok().as_deref())
}

/// `$COLUMNS` as a width: a positive number, else `None`.
fn columns_from_env(value: Option<&str>) -> Option<usize> {
    value.and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0)
}

/// The layout `arg` asks for `v`: `auto` fits [`columns`] (side by side when unknown).
pub(crate) fn layout(v: &Variant, arg: LayoutArg) -> Layout {
    match arg {
        LayoutArg::SideBySide => Layout::SideBySide,
        LayoutArg::Stacked => Layout::Stacked,
        LayoutArg::Auto => columns().map_or(Layout::SideBySide, |c| Layout::fitting(v, c)),
    }
}

/// Writes a manual page for the command and one for each subcommand (`ravenpost-move.1`,
/// `ravenpost-mail-import.1`, …) into `dir`, made if missing; returns how many.
///
/// # Errors
/// The I/O error.
pub(crate) fn man_pages(dir: &std::path::Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let cmd = <super::Cli as clap::CommandFactory>::command().disable_help_subcommand(true);
    fn count(c: &clap::Command) -> usize {
        1 + c.get_subcommands().filter(|s| !s.is_hide_set()).map(count).sum::<usize>()
    }
    let pages = count(&cmd);
    clap_mangen::generate_to(cmd, dir)?;
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_from_env_takes_positive_numbers_only() {
        assert_eq!(columns_from_env(Some("80")), Some(80));
        assert_eq!(columns_from_env(Some(" 100\n")), Some(100));
        assert_eq!(columns_from_env(Some("0")), None);
        assert_eq!(columns_from_env(Some("wide")), None);
        assert_eq!(columns_from_env(None), None);
    }

    #[test]
    fn gygax_stacks_below_134_columns_and_one_level_boards_never_do() {
        let gygax = crate::variants::by_name("gygax", &[]).unwrap();
        assert_eq!(Layout::SideBySide.width(&gygax), 134);
        assert_eq!(Layout::Stacked.width(&gygax), 42);
        assert_eq!(Layout::fitting(&gygax, 133), Layout::Stacked);
        assert_eq!(Layout::fitting(&gygax, 134), Layout::SideBySide);
        let fidchell = crate::variants::by_name("fidchell", &[]).unwrap();
        assert_eq!(Layout::fitting(&fidchell, 80), Layout::SideBySide);
    }
}
