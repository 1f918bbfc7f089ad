//! The `dramalloc` command. See `dramalloc --help` and the README.
//! Uses: cli; used by: nothing (the binary).

fn main() -> std::process::ExitCode {
    // an interrupted write leaves no temp file (the targets are written whole or not at all);
    // the command then exits 128 + the signal's number, as the signal itself would have
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        std::thread::spawn(move || {
            if let Some(signal) = signals.forever().next() {
                dramalloc_sim::atomic_write::remove_temp_files();
                std::process::exit(128 + signal);
            }
        });
    }
    dramalloc_sim::cli::main_with(std::env::args_os())
}
