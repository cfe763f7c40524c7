//! What the command line knows of the terminal: how wide it is (for the layout of
//! many-level diagrams) and whether to colour (`--color`, `NO_COLOR`); and the manual
//! pages (`ravenpost man --out DIR`).
//!
//! The width ([`columns`]) is that of the terminal on standard output, else `$COLUMNS`,
//! else that of the terminal on standard error or standard input (the one the command
//! was typed in, when its output is piped to `less` or `head`), else unknown; a diagram
//! too wide for the width (80 columns when unknown) is drawn in the compact layout, and
//! one asked for side by side that does not fit gets a note on standard error
//! ([`too_wide_note`]). A command
//! whose three streams are all redirected is a script's: its layout does not depend on
//! whichever terminal started it (so `/dev/tty` is not asked).

use std::io::IsTerminal;

use crate::engine::Variant;
use crate::notation::diagram::Layout;

/// `--layout`: where a many-level board's levels go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum LayoutArg {
    /// Side by side when that fits the terminal (its width, else $COLUMNS), else compact
    /// (else stacked); compact when the width is unknown (a pipe, a file).
    #[default]
    Auto,
    /// Side by side, the highest level on the left.
    SideBySide,
    /// One above the other, the highest level on top.
    Stacked,
    /// Side by side in one-character cells (Gygax Chess: 78 columns, 10 lines).
    Compact,
}

impl super::args::ColorChoice {
    /// Whether to colour a stream that is a terminal (`is_terminal`) in this mode.
    pub(crate) fn colors(self, is_terminal: bool) -> bool {
        match self {
            super::args::ColorChoice::Always => true,
            super::args::ColorChoice::Never => false,
            super::args::ColorChoice::Auto => {
                is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }

    /// Whether to colour standard error (diagnostics).
    pub(crate) fn stderr(self) -> bool {
        self.colors(std::io::stderr().is_terminal())
    }
}

/// The width of the output in columns: that of the terminal on standard output, else a
/// positive `$COLUMNS` (bash sets it but does not export it: set, it was asked for), else
/// that of the terminal on standard error, else on standard input, else `None`.
pub(crate) fn columns() -> Option<usize> {
    let width = |size: Option<(terminal_size::Width, terminal_size::Height)>| size.map(|(w, _)| w.0 as usize);
    width(terminal_size::terminal_size_of(std::io::stdout()))
        .or_else(|| columns_from_env(std::env::var("COLUMNS").ok().as_deref()))
        .or_else(|| width(terminal_size::terminal_size_of(std::io::stderr())))
        .or_else(|| width(terminal_size::terminal_size_of(std::io::stdin())))
}

/// `line` filled to `width` columns (when given) at spaces only, continuation lines
/// indented by two; a word longer than the width (a path, a Message-ID) and a
/// `backticked command` stay whole.
pub(crate) fn fit(line: &str, width: Option<usize>) -> String {
    match width.filter(|&w| w >= 20) {
        Some(width) => crate::mail::fill(line, width, "  "),
        None => line.to_string(),
    }
}

/// The width to fit report lines to: the terminal's (80 when it cannot be told) when
/// `terminal`, else none (a file or a pipe gets whole lines).
pub(crate) fn width(terminal: bool) -> Option<usize> {
    terminal.then(|| columns().unwrap_or(80))
}

/// `text` with each of its lines [`fit`] to `width`: a message of several lines (an
/// error and its list of problems) keeps its lines, and only those wider are filled.
pub(crate) fn fit_lines(text: &str, width: Option<usize>) -> String {
    match width.filter(|&w| w >= 20) {
        Some(width) => crate::mail::fill_lines(text, width, "  "),
        None => text.to_string(),
    }
}

/// [`fit_lines`] for standard error: to its width when it is a terminal, else as it is.
pub(crate) fn fit_stderr(text: &str) -> String {
    fit_lines(text, width(std::io::stderr().is_terminal()))
}

/// [`fit_lines`] for standard output: to its width when it is a terminal, else as it is
/// (piped output keeps one line per message).
pub(crate) fn fit_stdout(text: &str) -> String {
    fit_lines(text, width(std::io::stdout().is_terminal()))
}

/// The note for a diagram of `v` laid out as `arg` asks that is wider than the known width
/// (`columns`): `--layout side-by-side` in a narrower terminal. `None` when it fits, when
/// the width is unknown, or for a layout chosen to fit.
pub(crate) fn too_wide_note(v: &Variant, arg: LayoutArg, columns: Option<usize>) -> Option<String> {
    let width = Layout::SideBySide.width(v);
    match (arg, columns) {
        (LayoutArg::SideBySide, Some(c)) if width > c => {
            Some(format!("ravenpost: note: side by side is {width} columns wide, the terminal {c}"))
        }
        _ => None,
    }
}

/// `$COLUMNS` as a width: a positive number, else `None`.
fn columns_from_env(value: Option<&str>) -> Option<usize> {
    value.and_then(|c| c.trim().parse::<usize>().ok()).filter(|&c| c > 0)
}

/// The width a diagram is fitted to when the terminal's is unknown: a pipe or a file
/// gets what an 80-column terminal would.
pub(crate) const UNKNOWN_WIDTH: usize = 80;

/// The layout `arg` asks for `v`: `auto` fits [`columns`] ([`UNKNOWN_WIDTH`] when
/// unknown).
pub(crate) fn layout(v: &Variant, arg: LayoutArg) -> Layout {
    match arg {
        LayoutArg::SideBySide => Layout::SideBySide,
        LayoutArg::Stacked => Layout::Stacked,
        LayoutArg::Compact => Layout::Compact,
        LayoutArg::Auto => Layout::fitting(v, columns().unwrap_or(UNKNOWN_WIDTH)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (s5 NeoMutt report, N9): one-line messages wider than 80 columns (the
    /// `mail send` refusal, `mail send`'s first line, `hook install`'s, the sync refusal,
    /// "no archive here") were broken mid-word by the terminal, a command inside its
    /// backticks (`` `rav`/`enpost mail send` ``). Now each line is filled at spaces to the
    /// width, continuation lines indented 2, backticked spans and paths whole.
    #[test]
    fn long_messages_broke_mid_word_at_80_columns() {
        let refusal = "ravenpost: ann-bo: nothing of Ann Example's to send: the last step is Bo \
                       Example's (ply 2 Sa3b6); play your move first (`ravenpost move ann-bo MOVE`), \
                       then `ravenpost mail send ann-bo`";
        let sync = "ravenpost: this archive's commits are not legal steps; nothing was pushed to origin:\n\
                    ravenpost: git1 9cadb3471243: games/gygax/git1.pgn:12:72: illegal move `Sa3b5` \
                    (Scarlet, move 2): Scarlet has no Sylph on the a-file\n    git reset --hard origin/main";
        let hook = "Installed /work/home-mutt2/srv/chess.git/hooks/pre-receive (runs /work/bin-s5/ravenpost)";
        for text in [refusal, sync, hook] {
            let fitted = fit_lines(text, Some(80));
            for l in fitted.lines() {
                assert!(l.chars().count() <= 80, "{l:?}");
                assert_eq!(l.matches('`').count() % 2, 0, "a backticked span split: {l:?}\n{fitted}");
            }
            let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
            assert_eq!(words(&fitted), words(text), "every word whole, none lost");
            assert_eq!(fit_lines(text, None), text, "piped: as it is");
        }
        let fitted = fit_lines(refusal, Some(80));
        assert!(
            fitted.contains("\n  then `ravenpost mail send ann-bo`")
                || fitted.contains("\n  `ravenpost mail send ann-bo`"),
            "{fitted}"
        );
        // A line that fits keeps its own indent (the recovery command).
        assert!(fit_lines(sync, Some(80)).ends_with("\n    git reset --hard origin/main"));
        let fitted = fit_lines(hook, Some(80));
        assert!(fitted.ends_with("(runs\n  /work/bin-s5/ravenpost)"), "{fitted}");
    }

    /// Regression (s5 NeoMutt report, N9): `log` lines of 82-83 columns (`… Scarlet
    /// declines the d` / `raw`). Now a UTC time is written with `Z`, 5 columns fewer.
    #[test]
    fn log_lines_wrapped_at_80_columns() {
        assert_eq!(crate::cli::commands::log::log_time("2026-12-01T18:46:53+00:00"), "2026-12-01T18:46:53Z");
        assert_eq!(
            crate::cli::commands::log::log_time("2026-12-01T19:46:53+01:00"),
            "2026-12-01T19:46:53+01:00"
        );
        let line = format!(
            "{}  {}  {:<16} {}",
            "802f597f5bd9",
            crate::cli::commands::log::log_time("2026-12-01T18:46:53+00:00"),
            "Bo Example",
            "Scarlet declines the draw"
        );
        assert_eq!(line.chars().count(), 78, "{line}");
    }

    #[test]
    fn columns_from_env_takes_positive_numbers_only() {
        assert_eq!(columns_from_env(Some("80")), Some(80));
        assert_eq!(columns_from_env(Some(" 100\n")), Some(100));
        assert_eq!(columns_from_env(Some("0")), None);
        assert_eq!(columns_from_env(Some("wide")), None);
        assert_eq!(columns_from_env(None), None);
    }

    #[test]
    fn only_an_explicit_side_by_side_wider_than_a_known_width_gets_a_note() {
        let gygax = crate::variants::by_name("gygax", &[]).unwrap();
        let note = too_wide_note(&gygax, LayoutArg::SideBySide, Some(80)).unwrap();
        assert_eq!(note, "ravenpost: note: side by side is 134 columns wide, the terminal 80");
        assert!(note.chars().count() <= 80, "{note}");
        assert_eq!(too_wide_note(&gygax, LayoutArg::SideBySide, Some(134)), None);
        assert_eq!(too_wide_note(&gygax, LayoutArg::SideBySide, None), None);
        assert_eq!(too_wide_note(&gygax, LayoutArg::Auto, Some(80)), None);
        assert_eq!(too_wide_note(&gygax, LayoutArg::Stacked, Some(80)), None);
        let fidchell = crate::variants::by_name("fidchell", &[]).unwrap();
        assert_eq!(too_wide_note(&fidchell, LayoutArg::SideBySide, Some(80)), None);
    }

    #[test]
    fn gygax_is_compact_below_134_columns_and_one_level_boards_never_are() {
        let gygax = crate::variants::by_name("gygax", &[]).unwrap();
        assert_eq!(Layout::SideBySide.width(&gygax), 134);
        assert_eq!(Layout::Stacked.width(&gygax), 42);
        assert_eq!(Layout::Compact.width(&gygax), 78);
        assert_eq!(Layout::fitting(&gygax, 133), Layout::Compact);
        assert_eq!(Layout::fitting(&gygax, 78), Layout::Compact);
        assert_eq!(Layout::fitting(&gygax, 77), Layout::Stacked);
        assert_eq!(Layout::fitting(&gygax, 134), Layout::SideBySide);
        let fidchell = crate::variants::by_name("fidchell", &[]).unwrap();
        assert_eq!(Layout::fitting(&fidchell, 80), Layout::SideBySide);
        assert_eq!(Layout::Compact.drawn(&fidchell), Layout::SideBySide);
    }
}
