//! The `dramalloc` command. See `dramalloc --help` and the README.

fn main() -> std::process::ExitCode {
    dramalloc_sim::cli::main_with(std::env::args_os())
}
