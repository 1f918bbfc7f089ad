//! The streams a command prints to, and its progress bars (drawn on a terminal only).
//! Uses: indicatif; used by: every subcommand file.

use std::io::{Read, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Where a command reads standard input from and prints to.
///
/// `progress` is true when standard error is a terminal: only then are progress bars drawn
/// (by indicatif, on the process's standard error); otherwise nothing is drawn at all.
pub struct Console<'a> {
    /// Standard input (`-` as an input file).
    pub stdin: &'a mut dyn Read,
    /// Standard output: results, summaries, `-o -`.
    pub stdout: &'a mut dyn Write,
    /// Standard error: `error: …` lines.
    pub stderr: &'a mut dyn Write,
    /// Draw progress bars (standard error is a terminal).
    pub progress: bool,
}

/// A progress bar or spinner that exists only on a terminal.
pub(super) struct Progress(Option<ProgressBar>);

impl Progress {
    /// A spinner with `message` and the elapsed time.
    pub(super) fn spinner(con: &Console<'_>, message: &str) -> Progress {
        Progress(con.progress.then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.set_message(message.to_owned());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        }))
    }

    /// A bar of `len` steps with `message`.
    pub(super) fn bar(con: &Console<'_>, len: u64, message: &str) -> Progress {
        Progress(con.progress.then(|| {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_message(message.to_owned());
            bar
        }))
    }

    /// Replaces the message.
    pub(super) fn message(&self, message: &str) {
        if let Some(b) = &self.0 {
            b.set_message(message.to_owned());
        }
    }

    /// One step done.
    pub(super) fn step(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
