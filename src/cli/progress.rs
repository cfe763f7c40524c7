//! Progress of long work (`verify`, `validate` of many files) on standard error: a bar
//! drawn by indicatif when standard error is a terminal, nothing when it is piped or the
//! output is JSON.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

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
        self.set_drawn(done, total, ProgressDrawTarget::stderr);
    }

    /// [`Bar::set`], drawn on `target` when first drawn.
    fn set_drawn(&mut self, done: usize, total: usize, target: impl FnOnce() -> ProgressDrawTarget) {
        let Some(bar) = &self.bar else { return };
        if bar.length() != Some(total as u64) {
            bar.set_length(total as u64);
            bar.set_draw_target(target());
            bar.set_style(
                ProgressStyle::with_template("{msg} {bar:30} {pos}/{len}{left}")
                    .map(|s| s.with_key("left", left))
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

/// ` (1m 20s left)`: the time left, once the rate it is estimated from means something (a
/// twentieth of the work done, or two seconds of it); nothing before (an estimate from the
/// first items said minutes for a second's work).
fn left(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let (pos, len) = (state.pos(), state.len().unwrap_or(0));
    if pos == 0 || pos >= len || (pos * 20 < len && state.elapsed().as_secs() < 2) {
        return;
    }
    let _ = write!(w, " ({:#} left)", indicatif::HumanDuration(state.eta()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A terminal that keeps the last line drawn.
    #[derive(Debug, Default, Clone)]
    struct Screen(Arc<Mutex<String>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            self.write_str(s)
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            if s.contains("/300") {
                *self.0.lock().unwrap() = s.to_string();
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Regression (s8 trial): `verify` of 300 games drew `0/300 (0s left)`, then
    /// `(3m left)` for a second's work: the rate from the first games meant nothing.
    #[test]
    fn the_time_left_said_minutes_for_a_seconds_work() {
        let screen = Screen::default();
        let mut bar = Bar { bar: Some(ProgressBar::hidden()), what: "verifying" };
        let drawn = |bar: &mut Bar, done: usize| {
            let s = screen.clone();
            // Past the 20 draws a second the bar is held to.
            std::thread::sleep(std::time::Duration::from_millis(60));
            bar.set_drawn(done, 300, move || ProgressDrawTarget::term_like(Box::new(s)));
            bar.bar.as_ref().unwrap().tick();
            screen.0.lock().unwrap().clone()
        };
        for done in [0, 1, 14] {
            let line = drawn(&mut bar, done);
            assert!(line.contains("verifying") && line.contains(&format!(" {done}/300")), "{line}");
            assert!(!line.contains("left"), "{line}");
        }
        let line = drawn(&mut bar, 150);
        assert!(line.contains(" 150/300 (") && line.ends_with(" left)"), "{line}");
    }
}
