//! The `dramalloc` command. See `dramalloc --help` and the README.
//! Uses: cli; used by: nothing (the binary).

fn main() -> std::process::ExitCode {
    dramalloc_sim::cli::main_with(std::env::args_os())
}
