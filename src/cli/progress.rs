//! Progress of long work (`verify`, `validate` of many files) on standard error: a bar
//! drawn by indicatif when standard error is a terminal, nothing when it is piped or the
//! output is JSON.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that shows only on a terminal.
pub(crate) struct Bar {
    bar: Option<ProgressBar>,
    what: &'static str,
}

impl Bar {
    /// A bar for `what` (e.g. `verifying`); hidden when `quiet` (JSON output) or when
    /// standard error is not a terminal.
    pub(crate) fn new(quiet: bool, what: &'static str) -> Bar {
        use std::io::IsTerminal;
        let show = !quiet && std::io::stderr().is_terminal();
        Bar { bar: show.then(ProgressBar::hidden), what }
    }

    /// `done` of `total` items are done.
    pub(crate) fn set(&mut self, done: usize, total: usize) {
        let Some(bar) = &self.bar else { return };
        if bar.length() != Some(total as u64) {
            bar.set_length(total as u64);
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{msg} {bar:30} {pos}/{len} ({eta} left)")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(self.what);
        }
        bar.set_position(done as u64);
    }

    /// Removes the bar.
    pub(crate) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
