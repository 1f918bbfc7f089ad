//! Scratch directories a command makes and removes, also when a signal ends it.
//! Uses: std only; used by: cli (scale), main.rs (the signal's clean-up).
//!
//! A [`ScratchDir`] is a fresh directory under the system's temp directory, removed with
//! everything in it when the guard is dropped. A signal ends the process with
//! `std::process::exit`, which drops nothing, so every live scratch directory is also listed,
//! and [`remove_all`] (called by the binary's signal handler, as
//! [`crate::atomic_write::remove_temp_files`] is) removes them.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The live scratch directories.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The list of live scratch directories, even after a panic while it was held.
fn live() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A scratch directory, removed (with its contents) when dropped or by [`remove_all`].
#[derive(Debug)]
pub struct ScratchDir(PathBuf);

impl ScratchDir {
    /// Makes a new directory `dramalloc-NAME-PID-K` under the system's temp directory, K the
    /// first from 0 whose path is free: nothing that exists there (a directory, a file, a
    /// link) is used or removed (a trial made `dramalloc-scale-PID` a link to another
    /// directory before the command started, and its files were written through it).
    ///
    /// # Errors
    /// The directory cannot be made (after 1,000 taken names: the last error).
    ///
    /// ```
    /// use dramalloc_sim::scratch_dir::ScratchDir;
    /// let dir = ScratchDir::new("doc")?;
    /// std::fs::write(dir.path().join("x.csv"), "a\n")?;
    /// let path = dir.path().to_owned();
    /// assert!(path.ends_with(format!("dramalloc-doc-{}-0", std::process::id())));
    /// // a name taken is not used: the next one is
    /// let next = ScratchDir::new("doc")?;
    /// assert!(next.path().ends_with(format!("dramalloc-doc-{}-1", std::process::id())));
    /// drop(dir);
    /// assert!(!path.exists());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn new(name: &str) -> io::Result<ScratchDir> {
        let mut last = None;
        for k in 0..1000 {
            let path = std::env::temp_dir().join(format!("dramalloc-{name}-{}-{k}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => {
                    live().push(path.clone());
                    return Ok(ScratchDir(path));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::other("no free name")))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // only where the signal's clean-up has not taken it: two removals of one directory at
        // once each fail on the entries the other took first, and the directory was left (a
        // trial: 3 of 24 interrupted runs)
        let mine = {
            let mut list = live();
            let before = list.len();
            list.retain(|p| p != &self.0);
            list.len() < before
        };
        if mine {
            remove(&self.0);
        }
    }
}

/// Removes `dir` and everything in it, trying again while entries are left (a file written
/// into it as it is removed): `true` once it is gone.
fn remove(dir: &Path) -> bool {
    for _ in 0..10 {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => return true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return true,
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
        }
    }
    !dir.exists()
}

/// Removes every live scratch directory and returns how many it removed: for a signal
/// handler about to exit.
///
/// ```
/// use dramalloc_sim::scratch_dir::{remove_all, ScratchDir};
/// let dir = ScratchDir::new("doc-signal")?;
/// let path = dir.path().to_owned();
/// assert_eq!(remove_all(), 1);
/// assert!(!path.exists());
/// drop(dir); // nothing left to remove
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn remove_all() -> usize {
    let dirs: Vec<PathBuf> = live().drain(..).collect();
    dirs.iter().filter(|d| remove(d)).count()
}
