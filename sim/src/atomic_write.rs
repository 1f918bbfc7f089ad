//! Whole-or-nothing file writes: temp file in the same directory, fsync, rename.
//! Uses: sync_ahead; used by: cli, report.
//!
//! A reader of the target path sees either the old file (or no file) or the complete new
//! one, never a prefix: the bytes go to a fresh temp file next to the target
//! (`.NAME.tmp.PID.N`), which is flushed and `fsync`ed, then renamed over the target (atomic
//! on POSIX file systems when both are in one directory), then the directory is synced on a
//! best-effort basis. On any failure — including a panic inside the writer closure — the
//! temp file is removed and the target is left untouched.
//!
//! [`stage`] does the first half (temp file written whole and synced) and returns a
//! [`Staged`] whose [`Staged::commit`] does the rename: a command with several outputs stages
//! them all before putting any in place, then puts them in place with [`commit_all`], under
//! a lock that [`remove_temp_files`] (a signal's clean-up) waits for.
//!
//! A symbolic link is written through (its target replaced, the link kept), a dangling one
//! too (its target created); a file replaced keeps its permissions (a `chmod 600` output
//! stays private).
//!
//! Whether an output is the file a command reads is [`same_file`]'s to say, the command's to
//! refuse (before it plans: `plan -o`, `import -o`, `run --report-dir`, `replay`'s `report`).
//!
//! A target that is a directory is refused when it is staged (`io::ErrorKind::IsADirectory`),
//! so a command whose second output names a directory writes neither.
//!
//! A target that exists and is not a regular file (`/dev/null`, a FIFO, a terminal) is
//! written in place instead: a rename would replace the device node with a regular file
//! (as root, `-o /dev/null` once turned the machine's `/dev/null` into a file every later
//! build script read junk from), and "whole or nothing" has no meaning for a stream.
//!
//! So is a path that names one of this process's open descriptors (`/dev/stdout`,
//! `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/PID/fd/N`), appended to: it is the
//! file the shell redirected with `>` (already emptied) or `>>` (kept). Renamed over, it
//! replaced the file `>> log` was keeping, while the descriptor still pointed at the old one.
//! Standard output and error (descriptors 1 and 2) are written through the process's own
//! descriptor, not reopened, so what the process writes there afterwards follows the output
//! (a `> FILE` has one offset; reopened, the output went in at 0 and was written over).
//!
//! The temp files in flight are listed, so a signal handler can remove them
//! ([`remove_temp_files`]; the `dramalloc` binary does on SIGINT, SIGTERM and SIGHUP): an
//! interrupted write leaves neither a partial target nor a `.NAME.tmp.PID.N` beside it
//! (SIGKILL cannot be caught and still leaves the temp file).

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::sync_ahead::SyncAhead;

/// The temp files this process holds (created, not yet renamed or removed), and whether
/// [`remove_temp_files`] has run (then no new one is created: the process is exiting).
struct Live {
    paths: Vec<PathBuf>,
    closed: bool,
}

/// The temp files of this process ([`Live`]).
static LIVE: Mutex<Live> = Mutex::new(Live { paths: Vec::new(), closed: false });

/// Whether `a` and `b` name one file: the same file on disk where both exist (device and
/// inode on Unix: hard links too), else equal once made absolute with links resolved (a path
/// that does not exist yet: its directory's, plus its name).
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return (x.dev(), x.ino()) == (y.dev(), y.ino());
        }
    }
    let canonical = |p: &Path| {
        p.canonicalize().ok().or_else(|| {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Some(dir.canonicalize().ok()?.join(p.file_name()?))
        })
    };
    a == b || canonical(a).zip(canonical(b)).is_some_and(|(x, y)| x == y)
}

/// The list of live temp files, even after a panic while it was held.
fn live() -> std::sync::MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temp file this process holds (a write in progress, a staged output not yet
/// committed) and returns how many it removed. For a signal handler about to exit: the
/// targets are left as they were. A write still running afterwards fails at its rename, and
/// no temp file is created afterwards (a write that starts while the handler is on its way to
/// `exit` fails at once: a trial's `kill -TERM` as `plan` began writing left the file it
/// created after the clean-up).
///
/// ```
/// use dramalloc_sim::atomic_write::{remove_temp_files, stage};
/// let dir = std::env::temp_dir().join(format!("dramalloc-doc-rm-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let staged = stage(&dir.join("out.csv"), |w| std::io::Write::write_all(w, b"a,b\n")).unwrap();
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1); // the temp file
/// assert_eq!(remove_temp_files(), 1);
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
/// assert!(staged.commit().is_err()); // its temp file is gone: the target is not written
/// assert!(!dir.join("out.csv").exists());
/// // and no write starts after it: no temp file, no target
/// assert!(stage(&dir.join("late.csv"), |w| std::io::Write::write_all(w, b"a\n")).is_err());
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
/// std::fs::remove_dir(&dir).unwrap();
/// ```
pub fn remove_temp_files() -> usize {
    remove_temp_files_where(|_| true, true)
}

/// [`remove_temp_files`] of the temp files `pick` accepts (the tests' own, while other tests
/// of the process stage theirs); with `close`, no temp file is created afterwards.
fn remove_temp_files_where(pick: impl Fn(&Path) -> bool, close: bool) -> usize {
    // a commit in progress puts all its files in place first (see [`commit_all`])
    let _commit = committing();
    let mut live = live();
    live.closed |= close;
    let (mine, others): (Vec<PathBuf>, Vec<PathBuf>) = live.paths.drain(..).partition(|p| pick(p));
    live.paths = others;
    drop(live);
    mine.iter().filter(|p| fs::remove_file(p).is_ok()).count()
}

/// Held while staged files are renamed into place ([`commit_all`]) and while
/// [`remove_temp_files`] removes the temp files: a signal arriving between two renames of
/// one command's outputs waits for the last one, so they are all in place or none (a
/// trial's `kill -TERM` during `plan -o F --svg G` once left F new and G old).
static COMMITTING: Mutex<()> = Mutex::new(());

/// The commit lock, even after a panic while it was held.
fn committing() -> std::sync::MutexGuard<'static, ()> {
    COMMITTING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Puts every staged file in place, in order, as one step for [`remove_temp_files`] (a
/// signal handler waits for the last rename).
///
/// # Errors
/// The index in `staged` of the first rename that failed, with its error: the ones before it
/// are in place, it and the ones after are removed (renames within a directory do not fail
/// for want of space; a temp file removed by [`remove_temp_files`] fails here).
///
/// ```
/// use dramalloc_sim::atomic_write::{commit_all, stage};
/// let dir = std::env::temp_dir().join(format!("dramalloc-doc-all-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let a = stage(&dir.join("a.csv"), |w| std::io::Write::write_all(w, b"a\n")).unwrap();
/// let b = stage(&dir.join("b.svg"), |w| std::io::Write::write_all(w, b"<svg/>")).unwrap();
/// commit_all(vec![a, b]).unwrap();
/// assert_eq!(std::fs::read(dir.join("b.svg")).unwrap(), b"<svg/>");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn commit_all(staged: Vec<Staged>) -> Result<(), (usize, io::Error)> {
    commit_all_with(staged, &[], |_| {})
}

/// [`commit_all`], then removes the files `stale` (one that is not there is fine) in the same
/// step for [`remove_temp_files`]: a command that replaces part of a set of files and must
/// not leave the rest of an older set beside them (`run`'s reports of a failed run).
///
/// # Errors
/// As [`commit_all`]; a removal's error with the index `staged.len()` plus its place in
/// `stale`.
pub fn commit_all_removing(staged: Vec<Staged>, stale: &[PathBuf]) -> Result<(), (usize, io::Error)> {
    commit_all_with(staged, stale, |_| {})
}

/// [`commit_all_removing`], calling `between(k)` after the `k`-th rename (the tests' way to
/// send a signal between two renames).
fn commit_all_with(
    staged: Vec<Staged>,
    stale: &[PathBuf],
    mut between: impl FnMut(usize),
) -> Result<(), (usize, io::Error)> {
    let _commit = committing();
    let n = staged.len();
    for (k, s) in staged.into_iter().enumerate() {
        s.put_in_place().map_err(|e| (k, e))?;
        between(k);
    }
    for (k, p) in stale.iter().enumerate() {
        match fs::remove_file(p) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err((n + k, e)),
            _ => {}
        }
    }
    Ok(())
}

/// How many temp names to try before giving up when they already exist.
const TEMP_ATTEMPTS: u32 = 100;

/// Bytes buffered before each write call to the staged file (1 MiB).
const WRITE_BUFFER: usize = 1 << 20;

/// Distinguishes temp files of concurrent writes from one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: the file is replaced whole or not at all.
///
/// # Errors
/// Any I/O error of creating, writing, syncing or renaming; an error of kind
/// `InvalidInput` when `path` has no file name. The old file (or its absence) is kept.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("dramalloc-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("plan.csv");
/// dramalloc_sim::atomic_write::write_atomic(&path, b"id\n")?;
/// assert_eq!(std::fs::read(&path)?, b"id\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], but the content is produced by `fill`, which writes into a
/// buffered writer on the temp file (useful for streaming large reports, and for tests that
/// inject a failure half-way).
///
/// # Errors
/// The error returned by `fill`, or any I/O error of the steps in the module docs. In every
/// error case the temp file is removed and `path` is left as it was.
pub fn write_atomic_with<F>(path: &Path, fill: F) -> io::Result<()>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    stage(path, fill)?.commit()
}

/// A file written whole under its temp name and synced, not yet in place: [`Staged::commit`]
/// renames it over the target, dropping it removes the temp file and leaves the target as
/// it was. Several outputs of one command are staged first and committed together, so a
/// failure in any of them writes none (renames within a directory do not fail for want of
/// space).
#[derive(Debug)]
#[must_use = "a staged file is removed unless committed"]
pub struct Staged {
    /// `(temp, target, directory)`; `None` for a target written in place (a device).
    rename: Option<(TempGuard, PathBuf, PathBuf)>,
}

impl Staged {
    /// Moves the staged file over its target, then syncs the directory (best effort).
    ///
    /// # Errors
    /// The rename's error; the temp file is then removed and the target left as it was.
    pub fn commit(self) -> io::Result<()> {
        commit_all(vec![self]).map_err(|(_, e)| e)
    }

    /// The rename and the directory's sync of [`Staged::commit`], under the commit lock.
    fn put_in_place(self) -> io::Result<()> {
        let Some((guard, path, dir)) = self.rename else { return Ok(()) };
        if let Some(temp) = guard.path() {
            fs::rename(temp, &path)?;
        }
        guard.disarm();
        // Make the rename durable; some platforms cannot open or sync a directory.
        if let Ok(d) = File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Writes the content `fill` produces to a fresh temp file next to `path` and syncs it (the
/// first half of [`write_atomic_with`]); a target that exists and is not a regular file is
/// written in place at once (see the module docs).
///
/// # Errors
/// As [`write_atomic_with`]; the temp file is removed on error.
pub fn stage<F>(path: &Path, fill: F) -> io::Result<Staged>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    // standard output or error: written through that very descriptor, so what the process
    // writes to it later follows instead of landing over it (a `> FILE` keeps one offset)
    #[cfg(unix)]
    match descriptor_number(path) {
        Some(1) => {
            use std::os::fd::AsFd;
            io::stdout().flush()?;
            return write_in_place(File::from(io::stdout().as_fd().try_clone_to_owned()?), fill);
        }
        Some(2) => {
            use std::os::fd::AsFd;
            return write_in_place(File::from(io::stderr().as_fd().try_clone_to_owned()?), fill);
        }
        _ => {}
    }
    // another of this process's descriptors: appended to in place (see the module docs)
    if names_a_descriptor(path) {
        return write_in_place(OpenOptions::new().append(true).open(path)?, fill);
    }
    // a symbolic link is written through: its target is replaced (or, dangling, created), the
    // link kept
    let resolved = link_target(path)?;
    let path = resolved.as_deref().unwrap_or(path);
    // (the caller names the path: `.` and `..` are directories, said as for any other)
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::IsADirectory, "a directory, not a file to write"))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let old = match fs::metadata(path) {
        // a directory cannot be renamed over: refused here, before any output of the command
        // is put in place (found at the rename, it left a solution without its picture)
        Ok(m) if m.is_dir() => {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "a directory, not a file to write"));
        }
        // a device, FIFO or terminal: written in place (see the module docs)
        Ok(m) if !m.is_file() => return write_in_place(OpenOptions::new().write(true).open(path)?, fill),
        Ok(m) => Some(m),
        Err(_) => None,
    };
    let (file, guard) = create_temp(&dir, &name.to_string_lossy())?;
    // the file it replaces keeps its permissions (the temp file has the process's defaults)
    if let Some(m) = old {
        file.set_permissions(m.permissions())?;
    }
    // one write call a MiB: a 10^6-row solution is 27 MB (8 KiB buffers took 3,400 calls)
    // the disk writes the first bytes while the rest are formatted (`sync_ahead.rs`)
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER, SyncAhead::new(file));
    fill(&mut writer)?;
    let file = writer.into_inner().map_err(io::IntoInnerError::into_error)?.finish()?;
    file.sync_all()?;
    drop(file);
    Ok(Staged { rename: Some((guard, path.to_path_buf(), dir)) })
}

/// The file a symbolic link `path` leads to, through at most 8 links (`None`: `path` is not
/// a link). The last may not exist: a dangling link's target is created, as writing through
/// it would (replacing the link with a file, as a rename over it did, lost the link).
///
/// # Errors
/// More than 8 links (`io::ErrorKind::InvalidInput`, as a loop), or a link that cannot be read.
fn link_target(path: &Path) -> io::Result<Option<PathBuf>> {
    let mut at = path.to_path_buf();
    for hop in 0..=8 {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&at)?;
                let dir = at.parent().map_or_else(PathBuf::new, Path::to_path_buf);
                at = if to.is_absolute() { to } else { dir.join(to) };
            }
            _ => return Ok((hop > 0).then_some(at)),
        }
    }
    Err(io::Error::new(io::ErrorKind::InvalidInput, "more than 8 symbolic links (a loop?)"))
}

/// Writes what `fill` produces straight into `file` (a stream or a descriptor's file: no
/// temp file, nothing to rename).
fn write_in_place<F>(file: File, fill: F) -> io::Result<Staged>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()>,
{
    let mut writer = BufWriter::with_capacity(WRITE_BUFFER, file);
    fill(&mut writer)?;
    writer.flush()?;
    Ok(Staged { rename: None })
}

/// True when `path`, or a symbolic link on the way from it (at most 8), is under
/// `/dev/fd/`, `/proc/self/fd/` or `/proc/PID/fd/`: it names an open descriptor of this
/// process (`/dev/stdout` is a link to `/proc/self/fd/1`).
fn names_a_descriptor(path: &Path) -> bool {
    descriptor_path(path).is_some()
}

/// The components of the first path on the way from `path` (itself, then the targets of at
/// most 8 symbolic links) that lies under `/dev/fd/`, `/proc/self/fd/` or `/proc/PID/fd/`.
fn descriptor_path(path: &Path) -> Option<Vec<String>> {
    let under_fd = |p: &Path| {
        let parts: Vec<String> =
            p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let s: Vec<&str> = parts.iter().map(String::as_str).collect();
        let hit = matches!(s.as_slice(), ["/", "dev", "fd", _, ..])
            || matches!(s.as_slice(), ["/", "proc", pid, "fd", _, ..]
                if *pid == "self" || pid.bytes().all(|b| b.is_ascii_digit()));
        hit.then_some(parts)
    };
    let mut p = path.to_path_buf();
    for _ in 0..8 {
        if let Some(parts) = under_fd(&p) {
            return Some(parts);
        }
        match fs::read_link(&p) {
            // a relative target is relative to the link's directory (an absolute one replaces it)
            Ok(t) => p = p.parent().unwrap_or(Path::new("/")).join(t),
            Err(_) => return None,
        }
    }
    None
}

/// The number `N` of this process's descriptor that `path` names: `/dev/fd/N`,
/// `/proc/self/fd/N` or `/proc/<this process's id>/fd/N`, or a chain of links ending there
/// (`/dev/stdout` is 1, `/dev/stderr` 2). `None` for any other path.
fn descriptor_number(path: &Path) -> Option<u32> {
    let parts = descriptor_path(path)?;
    let own = std::process::id().to_string();
    match parts.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["/", "dev", "fd", n] => n.parse().ok(),
        ["/", "proc", pid, "fd", n] if *pid == "self" || *pid == own => n.parse().ok(),
        _ => None,
    }
}

/// True when `path` names this process's standard output (`/dev/stdout`, `/dev/fd/1`,
/// `/proc/self/fd/1`, or a link to one of them): a command treats it as `-o -`, writing
/// through its standard output and its summary to standard error. Written through a path
/// of its own, a shell's `> FILE` would get the output at offset 0 and then the summary,
/// written through the shell's descriptor at its own offset 0, over its start.
pub fn names_standard_output(path: &Path) -> bool {
    descriptor_number(path) == Some(1)
}

/// Creates a fresh temp file `.NAME.tmp.PID.N` in `dir`, listed for [`remove_temp_files`]
/// in the same step (under the list's lock, so a signal's clean-up either waits for it and
/// removes it or comes first and it is not created).
fn create_temp(dir: &Path, name: &str) -> io::Result<(File, TempGuard)> {
    let pid = std::process::id();
    let mut last = None;
    let mut live = live();
    if live.closed {
        return Err(io::Error::other("the command is exiting on a signal: no file is written"));
    }
    for _ in 0..TEMP_ATTEMPTS {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.tmp.{pid}.{n}"));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => {
                live.paths.push(temp.clone());
                return Ok((file, TempGuard(Some(temp))));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temp file name")))
}

/// Removes the temp file on drop unless disarmed (covers errors and panics).
#[derive(Debug)]
struct TempGuard(Option<PathBuf>);

impl TempGuard {
    fn path(&self) -> Option<&Path> {
        self.0.as_deref()
    }

    /// The temp file was renamed into place: nothing to remove.
    fn disarm(mut self) {
        self.unlist();
    }

    /// Takes the temp file's path off the guard and off the list of [`remove_temp_files`].
    fn unlist(&mut self) -> Option<PathBuf> {
        let temp = self.0.take()?;
        live().paths.retain(|p| *p != temp);
        Some(temp)
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(temp) = self.unlist() {
            let _ = fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh empty directory under the system temp dir, removed on drop.
    struct TestDir(PathBuf);

    impl TestDir {
        fn new(tag: &str) -> TestDir {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("dramalloc-atomic-{tag}-{}-{n}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            TestDir(dir)
        }

        fn entries(&self) -> Vec<String> {
            let mut names: Vec<String> = fs::read_dir(&self.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        }
    }

    impl Drop for TestDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// A file the process holds open for appending, written through its descriptor's path
    /// (what `-o /dev/stdout >> log` does): appended to in place, the file kept (same inode,
    /// its earlier content kept), no temp file left; the descriptor paths are recognised.
    /// A temp file is listed for [`remove_temp_files`] while it exists: from its creation
    /// until its rename (commit) or its removal (a staged output dropped); only this test's
    /// own paths are looked at (other tests stage files in parallel).
    #[test]
    fn temp_files_are_listed_while_they_exist() {
        let dir = TestDir::new("live");
        let listed = |dir: &Path| live().paths.iter().filter(|p| p.starts_with(dir)).count();
        let a = stage(&dir.0.join("a"), |w| w.write_all(b"a")).unwrap();
        let b = stage(&dir.0.join("b"), |w| w.write_all(b"b")).unwrap();
        assert_eq!((listed(&dir.0), dir.entries().len()), (2, 2));
        a.commit().unwrap();
        let entries = dir.entries();
        assert_eq!((listed(&dir.0), entries.len(), entries[1].as_str()), (1, 2, "a"));
        assert!(entries[0].starts_with(".b.tmp."), "{entries:?}");
        drop(b);
        assert_eq!((listed(&dir.0), dir.entries()), (0, vec!["a".to_owned()]));
    }

    #[test]
    fn a_descriptor_of_this_process_is_appended_to_in_place() {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let dir = TestDir::new("fd");
        let log = dir.0.join("log");
        fs::write(&log, "kept\n").unwrap();
        let held = OpenOptions::new().append(true).open(&log).unwrap();
        let inode = fs::metadata(&log).unwrap().ino();
        let through = PathBuf::from(format!("/proc/self/fd/{}", held.as_raw_fd()));
        write_atomic(&through, b"added\n").unwrap();
        assert_eq!(fs::read_to_string(&log).unwrap(), "kept\nadded\n");
        assert_eq!(fs::metadata(&log).unwrap().ino(), inode, "the file was replaced");
        assert_eq!(dir.entries(), ["log"]);
        for (p, want) in [
            ("/dev/stdout", true),
            ("/dev/fd/2", true),
            ("/proc/self/fd/1", true),
            (&*format!("/proc/{}/fd/1", std::process::id()), true),
            ("/proc/self/status", false),
            ("/dev/null", false),
            ("out.csv", false),
        ] {
            assert_eq!(names_a_descriptor(Path::new(p)), want, "{p}");
        }
        // a chain of links, one of them relative: `a` -> `b` -> /dev/stdout
        std::os::unix::fs::symlink("b", dir.0.join("a")).unwrap();
        std::os::unix::fs::symlink("/dev/stdout", dir.0.join("b")).unwrap();
        assert!(names_a_descriptor(&dir.0.join("a")));
        std::os::unix::fs::symlink("log", dir.0.join("c")).unwrap();
        assert!(!names_a_descriptor(&dir.0.join("c")));
    }

    /// A signal handler's [`remove_temp_files`] arriving between the two renames of one
    /// [`commit_all`] waits for the second: both files are new (before, the first was new and
    /// the second's temp file removed, so its target stayed old). Without the commit lock the
    /// remover runs at once; the test gives it 100 ms.
    #[test]
    fn a_signal_between_two_renames_waits_for_both() {
        let dir = TestDir::new("between");
        let (f, g) = (dir.0.join("f.csv"), dir.0.join("g.svg"));
        fs::write(&f, "old f").unwrap();
        fs::write(&g, "old g").unwrap();
        let a = stage(&f, |w| w.write_all(b"new f")).unwrap();
        let b = stage(&g, |w| w.write_all(b"new g")).unwrap();
        let mut remover = None;
        commit_all_with(vec![a, b], &[], |k| {
            if k == 0 {
                let own = dir.0.clone();
                let t = std::thread::spawn(move || remove_temp_files_where(|p| p.starts_with(&own), false));
                std::thread::sleep(std::time::Duration::from_millis(100));
                assert!(!t.is_finished(), "the remover ran between the renames");
                remover = Some(t);
            }
        })
        .unwrap();
        let removed = remover.unwrap().join().unwrap();
        assert_eq!(
            (removed, fs::read_to_string(&f).unwrap(), fs::read_to_string(&g).unwrap(), dir.entries()),
            (0, "new f".to_owned(), "new g".to_owned(), vec!["f.csv".to_owned(), "g.svg".to_owned()])
        );
    }

    /// A directory as the target is refused at staging, with nothing written into it.
    #[test]
    fn a_directory_target_is_refused() {
        let dir = TestDir::new("isdir");
        let e = stage(&dir.0, |w| w.write_all(b"x")).unwrap_err();
        assert_eq!(
            (e.kind(), e.to_string()),
            (io::ErrorKind::IsADirectory, "a directory, not a file to write".into())
        );
        assert!(dir.entries().is_empty());
    }

    fn failing_fill(w: &mut dyn Write) -> io::Result<()> {
        w.write_all(&[b'x'; 100_000])?; // more than the buffer: reaches the temp file
        Err(io::Error::other("injected failure"))
    }

    #[test]
    fn a_staged_file_is_in_place_only_once_committed() {
        let dir = TestDir::new("stage");
        let path = dir.0.join("out.csv");
        fs::write(&path, b"old").unwrap();
        let staged = stage(&path, |w| w.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(dir.entries().len(), 2, "{:?}", dir.entries()); // the target and its temp
        drop(staged);
        assert_eq!((fs::read(&path).unwrap(), dir.entries()), (b"old".to_vec(), vec!["out.csv".to_string()]));
        stage(&path, |w| w.write_all(b"new")).unwrap().commit().unwrap();
        assert_eq!((fs::read(&path).unwrap(), dir.entries()), (b"new".to_vec(), vec!["out.csv".to_string()]));
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_written_through() {
        let dir = TestDir::new("link");
        let (target, link) = (dir.0.join("target.csv"), dir.0.join("link.csv"));
        fs::write(&target, b"old").unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(dir.entries(), vec!["link.csv", "target.csv"]);
    }

    #[test]
    fn replaces_the_old_file() {
        let dir = TestDir::new("replace");
        let path = dir.0.join("out.csv");
        fs::write(&path, b"old").unwrap();
        write_atomic(&path, b"new content").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new content");
        assert_eq!(dir.entries(), vec!["out.csv"]);
    }

    #[test]
    fn failure_keeps_the_old_file_and_removes_the_temp() {
        let dir = TestDir::new("fail");
        let path = dir.0.join("out.csv");
        fs::write(&path, b"old").unwrap();
        let err = write_atomic_with(&path, failing_fill).unwrap_err();
        assert_eq!(err.to_string(), "injected failure");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(dir.entries(), vec!["out.csv"]);
    }

    #[test]
    fn failure_without_old_file_leaves_nothing() {
        let dir = TestDir::new("none");
        let path = dir.0.join("out.csv");
        assert!(write_atomic_with(&path, failing_fill).is_err());
        assert_eq!(dir.entries(), Vec::<String>::new());
    }

    #[test]
    fn panic_in_writer_keeps_the_old_file() {
        let dir = TestDir::new("panic");
        let path = dir.0.join("out.csv");
        fs::write(&path, b"old").unwrap();
        let result = std::panic::catch_unwind(|| {
            let _ = write_atomic_with(&path, |w| {
                w.write_all(b"partial")?;
                panic!("writer panicked");
            });
        });
        assert!(result.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(dir.entries(), vec!["out.csv"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_target_is_written_in_place_and_stays_a_fifo() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        let dir = TestDir::new("fifo");
        let path = dir.0.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&path).status().unwrap();
        assert!(made.success(), "mkfifo failed");
        let reader = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                File::open(path).unwrap().read_to_end(&mut got).unwrap();
                got
            })
        };
        write_atomic(&path, b"streamed").unwrap();
        assert_eq!(reader.join().unwrap(), b"streamed");
        assert!(fs::metadata(&path).unwrap().file_type().is_fifo());
        assert_eq!(dir.entries(), vec!["pipe"]);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let dir = TestDir::new("missing");
        let path = dir.0.join("no/such/dir/out.csv");
        let err = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(dir.entries(), Vec::<String>::new());
    }

    /// `/`, `.` and `..` name no file: refused as a directory, the message without the path
    /// (the caller says it; a fresh-user trial saw `error: .: .: no file name to write`).
    #[test]
    fn a_path_without_a_file_name_is_a_directory() {
        for path in ["/", ".", ".."] {
            let e = write_atomic(Path::new(path), b"x").unwrap_err();
            assert_eq!(
                (e.kind(), e.to_string()),
                (io::ErrorKind::IsADirectory, "a directory, not a file to write".into()),
                "{path}"
            );
        }
    }
}
