//! A child process run to its end and timed, that a signal ending this process ends too.
//! Uses: std only; used by: cli (scale), main.rs (the signal's clean-up).
//!
//! [`run_timed`] is `Command::output` (its standard output and error read whole, by one thread
//! each, so a child that writes much is never blocked on a full pipe) with the child kept in a
//! list while it runs, so [`kill_running`], called by the binary's signal handler, can end it:
//! a `kill -INT` aimed at `dramalloc scale` alone left its `plan` child running on with no
//! parent (a terminal's Ctrl-C reaches the child's process group anyway). The end is found by
//! polling every [`POLL`] (`Child::wait` would hold the child the handler needs), so a time
//! measured this way is late by at most that; a child past its deadline is killed. Only the
//! child is: processes it started itself run on (a shell script's `sleep`), and the threads
//! reading its pipes are left to end when those close.

use std::io::{self, Read};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often a running child is asked whether it has ended.
pub const POLL: Duration = Duration::from_micros(250);

/// The children running now, and whether [`kill_running`] was called (no child runs after it).
static RUNNING: Mutex<(Vec<Child>, bool)> = Mutex::new((Vec::new(), false));

/// The list of running children, even after a panic while it was held.
fn running() -> std::sync::MutexGuard<'static, (Vec<Child>, bool)> {
    RUNNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `cmd` to its end, its standard input empty and its standard output and error
/// captured; returns what it printed and how long it took from spawn to its end (late by at
/// most [`POLL`]). A child still running `deadline` after its spawn is killed.
///
/// # Errors
/// The child cannot be started or waited for; it was ended by [`kill_running`]
/// (`ErrorKind::Interrupted`); or it was killed at `deadline` (`ErrorKind::TimedOut`).
///
/// ```
/// use dramalloc_sim::child_process::run_timed;
/// use std::time::Duration;
/// let (out, took) =
///     run_timed(std::process::Command::new("sh").args(["-c", "echo hi; echo no >&2; exit 3"]), Duration::from_secs(60))?;
/// assert_eq!((out.stdout.as_slice(), out.stderr.as_slice(), out.status.code()), (&b"hi\n"[..], &b"no\n"[..], Some(3)));
/// assert!(took > Duration::ZERO);
/// let slow = run_timed(std::process::Command::new("sleep").arg("30"), Duration::from_millis(100)).unwrap_err();
/// assert_eq!(slow.to_string(), "it did not end within 0.1 s and was killed");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn run_timed(cmd: &mut Command, deadline: Duration) -> io::Result<(Output, Duration)> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd.spawn()?;
    let id = child.id();
    let (out, err) = (drain(child.stdout.take()), drain(child.stderr.take()));
    {
        let mut list = running();
        if list.1 {
            // (started as the signal's clean-up ran: it is not left running either)
            drop(list);
            end(&mut child);
            drop((out, err)); // (detached: a grandchild may still hold the pipes)
            return Err(io::Error::new(io::ErrorKind::Interrupted, "this process is ending on a signal"));
        }
        list.0.push(child);
    }
    let status = loop {
        let mut guard = running();
        let list = &mut guard.0;
        let Some(k) = list.iter().position(|c| c.id() == id) else {
            // ended by `kill_running`
            drop(guard);
            drop((out, err)); // (detached: a grandchild may still hold the pipes)
            return Err(io::Error::new(
                io::ErrorKind::Interrupted,
                "the child was ended by a signal to this process",
            ));
        };
        match list[k].try_wait() {
            Ok(Some(status)) => {
                // (reaped by `try_wait`: this `wait` returns its status at once)
                let _ = list.swap_remove(k).wait();
                break status;
            }
            Ok(None) if start.elapsed() >= deadline => {
                end(&mut list.swap_remove(k));
                drop(guard);
                drop((out, err)); // (detached: a grandchild may still hold the pipes)
                let e = format!("it did not end within {} s and was killed", deadline.as_secs_f64());
                return Err(io::Error::new(io::ErrorKind::TimedOut, e));
            }
            Ok(None) => {}
            Err(e) => {
                end(&mut list.swap_remove(k));
                return Err(e);
            }
        }
        drop(guard);
        std::thread::sleep(POLL);
    };
    let took = start.elapsed();
    let join = |h: std::thread::JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Ok((Output { status, stdout: join(out), stderr: join(err) }, took))
}

/// Reads `pipe` to its end on a thread of its own (nothing where there is none).
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Kills `child` and reaps it.
fn end(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// Whether [`kill_running`] was called: the process is ending on a signal.
pub fn ending() -> bool {
    running().1
}

/// Kills every child [`run_timed`] is running and waits for each, and makes every later
/// [`run_timed`] kill its child at once (`ErrorKind::Interrupted`); returns how many it killed:
/// for a signal handler about to exit.
///
/// ```
/// use dramalloc_sim::child_process::{kill_running, run_timed};
/// let day = std::time::Duration::from_secs(86_400);
/// let waiter = std::thread::spawn(move || run_timed(std::process::Command::new("sleep").arg("30"), day));
/// std::thread::sleep(std::time::Duration::from_millis(200));
/// assert!(kill_running() <= 1); // (1 where the child had started)
/// let ended = waiter.join().unwrap().unwrap_err();
/// assert_eq!(ended.kind(), std::io::ErrorKind::Interrupted);
/// // and a child started afterwards is ended at once
/// let late = run_timed(&mut std::process::Command::new("sleep").arg("30"), day).unwrap_err();
/// assert_eq!(late.kind(), std::io::ErrorKind::Interrupted);
/// ```
pub fn kill_running() -> usize {
    let mut guard = running();
    guard.1 = true;
    let n = guard.0.len();
    for mut c in guard.0.drain(..) {
        end(&mut c);
    }
    n
}
