//! `dramalloc generate`: writes a generated planning problem as a minimalloc CSV.
//! Uses: args, atomic_write, console, quality (generate); used by: mod.rs.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{self, is_stdout};
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_FAILED, EXIT_OK};
use crate::input::Problem;
use crate::quality::generate::{Shape, DEFAULT_SEED};

/// `generate --help`'s closing lines.
const AFTER: &str = "\
The same (--shape, --count, --seed) gives the same file on every machine; `dramalloc quality
--generated N --shape S` plans the same problem without the file.
Exit codes: 0 written; 1 the file cannot be written; 2 a bad flag.";

/// Options of `dramalloc generate`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER)]
pub struct GenerateArgs {
    /// Shape: mixed, short, long-tail or layered (`dramalloc_sim::quality::generate::Shape`).
    #[arg(long, default_value = "mixed", value_parser = shape)]
    pub shape: Shape,
    /// Number of buffers.
    #[arg(long, short = 'n', value_parser = args::count)]
    pub count: usize,
    /// Seed.
    #[arg(long, default_value_t = DEFAULT_SEED, value_parser = args::seed)]
    pub seed: u64,
    /// The CSV to write (`id,lower,upper,size`, `upper` exclusive); `-`: standard output.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// A shape named on the command line.
pub(super) fn shape(s: &str) -> Result<Shape, String> {
    Shape::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Shape::ALL.iter().map(|s| s.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

/// Writes `problem` as `id,lower,upper,size` rows (ids are the generator's integers).
pub(super) fn write_csv(problem: &Problem, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"id,lower,upper,size\n")?;
    let mut num = itoa::Buffer::new();
    for (id, row) in problem.iter() {
        out.write_all(id.as_bytes())?;
        for v in [row.lower, row.upper, row.size] {
            out.write_all(b",")?;
            out.write_all(num.format(v).as_bytes())?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `dramalloc generate`: the problem of `--shape`, `--count` and `--seed`, written whole or
/// not at all to `--output`; one summary line (to standard error with `-o -`).
pub(super) fn cmd_generate(a: &GenerateArgs, con: &mut Console<'_>) -> ExitCode {
    let problem = a.shape.generate(a.count, a.seed);
    if is_stdout(&a.output) {
        let written = con.write_out(|o| {
            let mut out = io::BufWriter::new(o);
            write_csv(&problem, &mut out).and_then(|()| out.flush())
        });
        if let Err(e) = written {
            return stdout_failed(con, &e);
        }
    } else if let Err(e) = crate::atomic_write::write_atomic_with(&a.output, |w| write_csv(&problem, w)) {
        return fail(con, format!("{}: {e}", a.output.display()), EXIT_FAILED);
    }
    let sink: &mut dyn Write = if is_stdout(&a.output) { con.stderr } else { con.stdout };
    let _ = writeln!(
        sink,
        "{} buffer{} of shape {} (seed {}) -> {}",
        problem.len(),
        if problem.len() == 1 { "" } else { "s" },
        a.shape.name(),
        a.seed,
        a.output.display()
    );
    ExitCode::from(EXIT_OK)
}
