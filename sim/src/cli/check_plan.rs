//! `dramalloc check-plan PLAN.bin [PROGRAM.json]`: decodes and validates a plan file, runs the
//! geometric verifier over it (and checks it against the program).
//! Uses: input, verify (plan_file); used by: mod.rs.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use super::{err, MAX_TENSORS};
use crate::input;
use crate::verify::plan_file::check_plan_file;

/// Exit 0 valid; 1 a wrong plan (naming the records); 2 an unreadable or corrupt file, or an
/// unreadable program.
pub(super) fn cmd_check_plan(plan: &Path, program: Option<&Path>) -> ExitCode {
    let bytes = match std::fs::read(plan) {
        Ok(b) => b,
        Err(e) => return err(format!("{}: {e}", plan.display()), 2),
    };
    let program = match program.map(|p| input::read_program(p, MAX_TENSORS)).transpose() {
        Ok(p) => p,
        Err(e) => return err(e, 2),
    };
    match check_plan_file(&bytes, program.as_ref()) {
        Ok(r) => {
            say!(
                "OK: {}: {} core(s), {} records, valid{}",
                plan.display(),
                r.cores,
                r.records,
                if r.against_program { ", matches the program" } else { "" }
            );
            for (k, (hwm, v)) in r.per_core.iter().enumerate() {
                say!("  core {k}: HWM {hwm} bytes, verifier: {} buffers, peak {} bytes", v.buffers, v.peak);
            }
            ExitCode::SUCCESS
        }
        Err(e) => err(format!("{}: {e}", plan.display()), e.exit_code()),
    }
}
