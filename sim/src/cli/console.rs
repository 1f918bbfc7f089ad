//! The streams a command prints to, and its progress bars (drawn on a terminal only).
//! Uses: indicatif; used by: every subcommand file.

use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::sync::OnceLock;
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

impl Console<'_> {
    /// Writes a primary output (`-o -`, `run`'s summary) to standard output with `write` and
    /// flushes it, so a lost write is an error and not a silent success.
    ///
    /// # Errors
    /// The write's or the flush's error; [`io::ErrorKind::BrokenPipe`] when the reader went
    /// away; "standard output is closed" when the process was started with it closed (see
    /// [`stdout_closed`]).
    pub(super) fn write_out(
        &mut self,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        if stdout_closed() {
            return Err(io::Error::new(io::ErrorKind::NotConnected, "it was closed when dramalloc started"));
        }
        write(&mut *self.stdout)?;
        self.stdout.flush()
    }
}

/// The exit code of a primary output that could not be written to standard output: 1, with
/// `error: standard output: <e>` on standard error, or quietly for a broken pipe (the reader,
/// e.g. `head`, has all it wanted: no scary message, as other Unix tools do).
pub(super) fn stdout_failed(con: &mut Console<'_>, e: &io::Error) -> ExitCode {
    if e.kind() != io::ErrorKind::BrokenPipe {
        let _ = writeln!(con.stderr, "error: standard output: {e}");
    }
    ExitCode::from(super::EXIT_FAILED)
}

/// True when this process was started with standard output closed (`>&-`). Rust's runtime
/// reopens a closed standard stream on `/dev/null` read-write before `main` (so writes to it
/// succeed and are lost); a shell's `> /dev/null` opens it write-only. Linux reads both facts
/// from `/proc/self`; elsewhere this is always false. Computed once.
pub fn stdout_closed() -> bool {
    static CLOSED: OnceLock<bool> = OnceLock::new();
    *CLOSED.get_or_init(|| {
        let null = std::fs::read_link("/proc/self/fd/1").is_ok_and(|p| p.as_os_str() == "/dev/null");
        null && std::fs::read_to_string("/proc/self/fdinfo/1").is_ok_and(|info| read_write(&info))
    })
}

/// True when a `/proc/PID/fdinfo/FD` text says the file is open read-write (`flags:` octal,
/// access mode `O_RDWR` = 2).
fn read_write(fdinfo: &str) -> bool {
    fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .is_some_and(|flags| flags & 3 == 2)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdinfo_access_mode_is_read_from_the_octal_flags() {
        assert!(read_write("pos:\t0\nflags:\t0100002\nmnt_id:\t25\n"));
        assert!(!read_write("pos:\t0\nflags:\t0100001\nmnt_id:\t25\n"));
        assert!(!read_write("pos:\t0\nflags:\t0100000\n"));
        assert!(!read_write("pos:\t0\n"));
    }

    #[test]
    fn a_failed_flush_is_the_error_of_write_out() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Err(io::Error::from_raw_os_error(28))
            }
        }
        let (mut out, mut err) = (Full, Vec::new());
        let mut con =
            Console { stdin: &mut io::empty(), stdout: &mut out, stderr: &mut err, progress: false };
        let e = con.write_out(|o| o.write_all(b"x")).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28));
        assert_eq!(stdout_failed(&mut con, &e), ExitCode::from(1));
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "error: standard output: No space left on device (os error 28)\n"
        );
        let mut err = Vec::new();
        let mut con =
            Console { stdin: &mut io::empty(), stdout: &mut Vec::new(), stderr: &mut err, progress: false };
        assert_eq!(stdout_failed(&mut con, &io::Error::from(io::ErrorKind::BrokenPipe)), ExitCode::from(1));
        assert!(err.is_empty());
    }
}
