//! `dramalloc faults`: a fault campaign over programs (default: the bundled models), one row per kind.
//! Uses: console, exec (campaign), input; used by: mod.rs.

use std::path::PathBuf;
use std::process::ExitCode;

use super::args::count_of;
use super::console::{stdout_failed, Console};
use super::{fail, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, MAX_TENSORS};
use crate::exec::campaign::{plan_all, run_campaign};
use crate::exec::host_memory::available;
use crate::input::{self, bundled};

/// `faults --help`'s closing lines.
const AFTER: &str = "\
Exit codes: 0 every kind injected --count times and every fault detected; 1 a fault missed, or
a kind with fewer than --count places in the models the host can execute (a model whose
execution needs more than --host-memory is passed over and named on standard error); 2 bad
input or a bad flag.";

/// Options of `dramalloc faults`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER)]
pub struct FaultsArgs {
    /// Program JSONs (default: the 15 bundled models).
    pub programs: Vec<PathBuf>,
    /// Faults of each kind to inject (1 or more).
    #[arg(long, default_value_t = 100, value_parser = super::args::fault_count)]
    pub count: usize,
    /// Cores (1..=64): every model is split tensor-parallel over them (on 1 core the kinds
    /// that need two, a moved twin, a reversed cross-core edge and a dropped remote target,
    /// have no place).
    #[arg(long, default_value_t = 2, value_parser = super::args::cores)]
    pub cores: u32,
    /// Host memory an execution may use (a size; default: what the host has available). A
    /// fault whose execution would need more is not run: its model is passed over for the
    /// kind, and named.
    #[arg(long, value_parser = super::args::size)]
    pub host_memory: Option<u64>,
}

/// `dramalloc faults`: prints `KIND INJECTED DETECTED BY`, one row per kind; exit 0 only when
/// every kind was injected `--count` times and every injected fault was detected, 1 when one
/// was missed or a kind had fewer than `--count` places in the models the host can execute
/// (those over `--host-memory` are passed over, each named), 2 for bad input.
pub(super) fn cmd_faults(a: &FaultsArgs, con: &mut Console<'_>) -> ExitCode {
    let programs = if a.programs.is_empty() {
        bundled::models(MAX_TENSORS)
    } else {
        a.programs.iter().map(|p| input::read_program(p, MAX_TENSORS)).collect()
    };
    let programs = match programs {
        Ok(p) => p,
        Err(e) => return fail(con, e, EXIT_BAD_INPUT),
    };
    let planned = match plan_all(&programs, a.cores as usize) {
        Ok(p) => p,
        Err((name, e)) => return fail(con, format!("{name}: {e}"), EXIT_BAD_INPUT),
    };
    let host = a.host_memory.or_else(available);
    let rows = run_campaign(&planned, a.count, host);
    let table = con.write_out(|o| {
        writeln!(
            o,
            "dramalloc faults: {}, {}, tensor-parallel, {} of each kind",
            count_of(planned.len(), "model"),
            count_of(a.cores as usize, "core"),
            a.count
        )?;
        writeln!(o, "{:<12} {:>9} {:>9}  BY", "KIND", "INJECTED", "DETECTED")?;
        for r in &rows {
            writeln!(o, "{:<12} {:>9} {:>9}  {}", r.kind.name(), r.injected, r.detected, r.caught_by())?;
        }
        Ok(())
    });
    if let Err(e) = table {
        return stdout_failed(con, &e);
    }
    for r in &rows {
        for p in &r.passed_over {
            let _ = writeln!(
                con.stderr,
                "note: {}: {} passed over: executing it needs about {} bytes of host memory, more than the {} available",
                r.kind.name(),
                p.model,
                p.needed,
                host.unwrap_or(0)
            );
        }
    }
    if rows.iter().all(|r| r.injected == a.count && r.detected == r.injected) {
        ExitCode::from(EXIT_OK)
    } else {
        for r in rows.iter().filter(|r| r.injected < a.count) {
            let _ = writeln!(
                con.stderr,
                "error: {}: only {} of {} faults had a place in the models{}",
                r.kind.name(),
                r.injected,
                a.count,
                if r.passed_over.is_empty() {
                    String::new()
                } else {
                    format!(" the host can execute ({} passed over for host memory)", r.passed_over.len())
                }
            );
        }
        for r in rows.iter().filter(|r| r.detected < r.injected) {
            let _ = writeln!(
                con.stderr,
                "error: {}: {} injected fault(s) not detected",
                r.kind.name(),
                r.injected - r.detected
            );
        }
        ExitCode::from(EXIT_FAILED)
    }
}
