//! How many threads the front end's CSV reading and writing may use: the host's cores by
//! default, no more than `--threads` where a command is given it.
//! Uses: quality (limits: the host's threads); used by: input (plain_csv), report
//! (solution_csv), cli (plan, quality).
//!
//! The reader splits a plain file's lines among threads (`input/plain_csv.rs`) and the
//! writer formats a solution's rows on several (`report/solution_csv.rs`); both give the same
//! problem and the same bytes on any number, so this bounds only how much of the host they
//! take. A command's `--threads` bounds the whole process with it (a user keeping a run to
//! one core, on a host busy with other work).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The bound set by [`set_io_threads`] (0: none set).
static BOUND: AtomicUsize = AtomicUsize::new(0);

/// Bounds the threads of reading and writing to `threads` (at least 1) for the rest of the
/// process.
pub fn set_io_threads(threads: usize) {
    BOUND.store(threads.max(1), Ordering::Relaxed);
}

/// The threads reading and writing may use: the host's
/// ([`crate::quality::limits::default_threads`]), no more than [`set_io_threads`] said.
///
/// ```
/// use dramalloc_sim::io_threads::{io_threads, set_io_threads};
/// let host = dramalloc_sim::quality::limits::default_threads();
/// assert!(io_threads() >= 1 && io_threads() <= host);
/// set_io_threads(1);
/// assert_eq!(io_threads(), 1);
/// ```
pub fn io_threads() -> usize {
    let host = crate::quality::limits::default_threads();
    match BOUND.load(Ordering::Relaxed) {
        0 => host,
        bound => bound.min(host),
    }
}
