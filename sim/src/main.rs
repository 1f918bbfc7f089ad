//! The `dramalloc` command. See `dramalloc --help` and the README.
//! Uses: cli; used by: nothing (the binary).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the signal handler before its clean-up.
static SIGNALLED: AtomicBool = AtomicBool::new(false);

fn main() -> std::process::ExitCode {
    // an interrupted write leaves no temp file (the targets are written whole or not at all)
    // and an interrupted command no child process and no scratch directory;
    // the command then exits 128 + the signal's number, as the signal itself would have
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                SIGNALLED.store(true, Ordering::SeqCst);
                // (`scale`'s `plan` child first: it writes into the scratch directory)
                dramalloc_sim::child_process::kill_running();
                dramalloc_sim::atomic_write::remove_temp_files();
                // (`scale`'s generated inputs and solutions)
                dramalloc_sim::scratch_dir::remove_all();
                std::process::exit(128 + signal);
            }
        });
    }
    let code = dramalloc_sim::cli::main_with(std::env::args_os());
    // a command that failed because the clean-up took its files away (`scale`'s child found
    // its input gone and the command exited 2 before the handler's exit: 1 run in 8 of
    // `sim/tests/scale_report.rs`) waits for the handler, which exits 128 + the signal
    if SIGNALLED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    code
}
