//! Writeback started while a file is still being written, so the `fsync` that ends a whole-or-
//! nothing write ([`crate::atomic_write`]) waits only for the tail.
//! Uses: nothing else in the crate; used by: atomic_write.
//!
//! Written into the page cache whole and then synced, a 10^6-row solution (40 MB) waited
//! 65 ms in its one `fsync` (`strace -T`, ext4 on the 2-core development VM), after the
//! writing itself. [`SyncAhead`] starts a `fdatasync` of the file on a thread of its own each
//! time [`SYNC_STEP`] more bytes have been written and no earlier one is still running, so
//! the disk writes what is already there while the rows after it are formatted and written.
//! The final `fsync` (the caller's) then has only what came after the last one.
//!
//! Nothing is lost: an error of a sync on the thread is returned by the next write or by
//! [`SyncAhead::finish`] (an `fsync` error may be reported once only, so it must not be
//! dropped on the thread), and the caller's final sync is the one that makes the whole file
//! durable. Where no thread or second descriptor can be had, the write goes on without the
//! early writeback.
//!
//! Measured with a model of the write (54 MB in 1 MiB writes, 1 ms of formatting each,
//! Python's `os.write`/`os.fdatasync` on the same VM, three runs each): written then synced
//! 168–184 ms; with a background `fdatasync` every 8 MiB 113–123 ms, the writes themselves
//! no slower (77–78 ms).

use std::fs::File;
use std::io::{self, Write};
use std::thread::JoinHandle;

/// Bytes written between the starts of two background syncs (at most one runs at a time).
pub const SYNC_STEP: u64 = 8 << 20;

/// A file being written, with its writeback started every [`SYNC_STEP`] bytes (see the
/// module docs). Not buffered: wrap it in a `BufWriter`.
///
/// ```
/// use dramalloc_sim::sync_ahead::SyncAhead;
/// use std::io::Write;
/// let path = std::env::temp_dir().join(format!("dramalloc-doc-sync-ahead-{}", std::process::id()));
/// let mut w = SyncAhead::new(std::fs::File::create(&path)?);
/// w.write_all(b"id,lower,upper,size,offset,align\n")?;
/// let file = w.finish()?; // the background syncs joined, their errors returned
/// file.sync_all()?;
/// assert_eq!(std::fs::read(&path)?.len(), 33);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct SyncAhead {
    file: File,
    /// Bytes written so far.
    written: u64,
    /// `written` when the last background sync started (0 before the first).
    started_at: u64,
    /// The background sync running or finished and not joined yet.
    running: Option<JoinHandle<io::Result<()>>>,
    /// What the thread runs on its descriptor: `File::sync_data` (tests put in their own).
    sync: fn(&File) -> io::Result<()>,
    /// `written` at each start, for the tests.
    #[cfg(test)]
    starts: Vec<u64>,
}

impl SyncAhead {
    /// Writes to `file`, its data synced every [`SYNC_STEP`] bytes on a background thread.
    pub fn new(file: File) -> SyncAhead {
        SyncAhead::with_sync(file, File::sync_data)
    }

    /// [`SyncAhead::new`] with `sync` run on the thread in place of `File::sync_data`.
    fn with_sync(file: File, sync: fn(&File) -> io::Result<()>) -> SyncAhead {
        SyncAhead {
            file,
            written: 0,
            started_at: 0,
            running: None,
            sync,
            #[cfg(test)]
            starts: Vec::new(),
        }
    }

    /// Waits for the background sync, if one ran, and returns the file (not yet synced: the
    /// caller's final `sync_all` makes it durable).
    ///
    /// # Errors
    /// The background sync's error, if it had one (or an error saying its thread panicked).
    pub fn finish(mut self) -> io::Result<File> {
        self.join()?;
        Ok(self.file)
    }

    /// Joins the background sync, if any, and returns its result.
    fn join(&mut self) -> io::Result<()> {
        match self.running.take() {
            Some(h) => h.join().unwrap_or_else(|_| Err(io::Error::other("the background sync panicked"))),
            None => Ok(()),
        }
    }

    /// Starts a background sync when [`SYNC_STEP`] bytes came since the last start and the
    /// last one has ended (its error returned here); goes on without one where no second
    /// descriptor or thread can be had.
    fn maybe_start(&mut self) -> io::Result<()> {
        if self.written - self.started_at < SYNC_STEP
            || self.running.as_ref().is_some_and(|h| !h.is_finished())
        {
            return Ok(());
        }
        self.join()?;
        let Ok(file) = self.file.try_clone() else { return Ok(()) };
        let sync = self.sync;
        self.running = std::thread::Builder::new().name("sync-ahead".into()).spawn(move || sync(&file)).ok();
        self.started_at = self.written;
        #[cfg(test)]
        self.starts.push(self.written);
        Ok(())
    }
}

impl Write for SyncAhead {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.written += n as u64;
        self.maybe_start()?;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        // (a `File` keeps no buffer of its own: its bytes are with the kernel once written)
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("dramalloc-sync-ahead-{name}-{}", std::process::id()))
    }

    fn quick(_: &File) -> io::Result<()> {
        Ok(())
    }

    fn slow(_: &File) -> io::Result<()> {
        std::thread::sleep(std::time::Duration::from_millis(500));
        Ok(())
    }

    /// 3.5 steps written in 1 MiB writes, each background sync joined before the next write:
    /// every byte in place, in order, and a sync started at each full step, exactly.
    #[test]
    fn writes_every_byte_and_starts_a_sync_at_each_step() {
        let path = temp("whole");
        let chunk: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
        let steps = (SYNC_STEP >> 20) as usize;
        let mut w = SyncAhead::with_sync(File::create(&path).unwrap(), quick);
        for _ in 0..steps * 7 / 2 {
            w.write_all(&chunk).unwrap();
            w.join().unwrap();
        }
        assert_eq!(w.starts, [SYNC_STEP, 2 * SYNC_STEP, 3 * SYNC_STEP]);
        w.finish().unwrap().sync_all().unwrap();
        let back = std::fs::read(&path).unwrap();
        assert_eq!(back.len(), (steps * 7 / 2) << 20);
        assert!(back.chunks(1 << 20).all(|c| c == chunk.as_slice()));
        std::fs::remove_file(&path).unwrap();
    }

    /// A step reached while the last sync still runs starts none (the writes do not wait for
    /// it): two steps written at once behind a sync of half a second start one.
    #[test]
    fn no_second_sync_starts_while_one_runs() {
        let path = temp("busy");
        let mut w = SyncAhead::with_sync(File::create(&path).unwrap(), slow);
        for _ in 0..2 * (SYNC_STEP >> 20) {
            w.write_all(&[3u8; 1 << 20]).unwrap();
        }
        assert_eq!(w.starts, [SYNC_STEP]);
        w.finish().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 * SYNC_STEP);
        std::fs::remove_file(&path).unwrap();
    }

    fn failing(_: &File) -> io::Result<()> {
        Err(io::Error::other("the disk went away"))
    }

    /// A background sync's error is not dropped: `finish` returns it.
    #[test]
    fn a_background_sync_error_is_returned() {
        let path = temp("error");
        let mut w = SyncAhead::with_sync(File::create(&path).unwrap(), failing);
        w.write_all(&vec![7u8; SYNC_STEP as usize]).unwrap();
        assert!(w.running.is_some(), "a sync started at the first step");
        let e = w.finish().unwrap_err();
        assert_eq!(e.to_string(), "the disk went away");
        std::fs::remove_file(&path).unwrap();
    }

    /// Under a step nothing starts, and `finish` gives the file back with every byte.
    #[test]
    fn a_small_file_starts_no_sync() {
        let path = temp("small");
        let mut w = SyncAhead::with_sync(File::create(&path).unwrap(), failing);
        w.write_all(&vec![1u8; SYNC_STEP as usize - 1]).unwrap();
        assert!(w.running.is_none());
        drop(w.finish().unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), SYNC_STEP - 1);
        std::fs::remove_file(&path).unwrap();
    }
}
