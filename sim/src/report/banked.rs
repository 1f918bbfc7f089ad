//! The three tt-metal memory reports, byte for byte in the reference's format.
//! Uses: dramalloc-core (banked); used by: replay.
//!
//! The three tt-metal memory reports, byte for byte in the reference's format
//! (`banked-allocator.md` §1.8; seed 004 §4 "Memory Reports"):
//! `memory_usage_summary.csv`, `l1_usage_summary.csv` and `detailed_memory_usage.csv`.
//!
//! All statistics are per bank (the lockstep allocator's own numbers); the detailed report
//! multiplies them by the bank count. The block dump uses the legacy FreeList CSV form
//! (`,,Blocks:,Address (B),Size (B),Allocated (Y/N)` then one `,,,addr,size,Y|N` line per
//! block in address order with absolute addresses, then a blank line). The "(KB)" on the last
//! two summary headers is the reference's leftover label: the values are bytes.
//!
//! Files are written whole: each goes to a temporary file in the target directory first, and
//! only when all three are written are they renamed into place.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::atomic_write::{commit_all, stage};
use dramalloc_core::banked::{BankManager, BlockInfo, Statistics};

/// File name of the summary report (without prefix).
pub const MEMORY_USAGE_SUMMARY: &str = "memory_usage_summary.csv";
/// File name of the L1 report (without prefix).
pub const L1_USAGE_SUMMARY: &str = "l1_usage_summary.csv";
/// File name of the detailed report (without prefix).
pub const DETAILED_MEMORY_USAGE: &str = "detailed_memory_usage.csv";

/// A snapshot of one buffer type's lockstep allocator (the reference's `MemoryView`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryView {
    /// Number of banks of the type.
    pub num_banks: u64,
    /// Per-bank statistics.
    pub stats: Statistics,
    /// The blocks in address order, absolute addresses.
    pub blocks: Vec<BlockInfo>,
}

impl MemoryView {
    /// Snapshots a bank manager.
    pub fn of<const BLOCKS: usize>(bank: &BankManager<BLOCKS>) -> Self {
        Self {
            num_banks: u64::from(bank.config().num_banks),
            stats: bank.statistics(),
            blocks: bank.allocator().blocks().collect(),
        }
    }
}

/// Errors writing the reports.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// An I/O failure on a path; no report was renamed into place.
    #[error("writing memory report {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// The text of `memory_usage_summary.csv` (dump variant, no program id).
///
/// ```
/// use dramalloc_core::banked::Statistics;
/// use dramalloc_sim::report::banked::{memory_usage_summary, MemoryView};
/// let st = Statistics { total: 100, allocated: 40, free: 60, largest_free: 50,
///     largest_free_address: Some(0), free_blocks: 2, allocated_blocks: 1 };
/// let v = MemoryView { num_banks: 2, stats: st, blocks: vec![] };
/// assert_eq!(memory_usage_summary(&v, &v),
///     ", Total Allocatable Size (B), Total Allocated (B), Total Free (KB), Largest Free Block (KB)\n\
///      ,100,40,60,50\n,100,40,60,50\n");
/// ```
pub fn memory_usage_summary(dram: &MemoryView, l1: &MemoryView) -> String {
    let mut s = String::from(
        ", Total Allocatable Size (B), Total Allocated (B), Total Free (KB), Largest Free Block (KB)\n",
    );
    for v in [dram, l1] {
        let _ =
            writeln!(s, ",{},{},{},{}", v.stats.total, v.stats.allocated, v.stats.free, v.stats.largest_free);
    }
    s
}

/// The text of `l1_usage_summary.csv`: the largest free L1 block per bank and that times the
/// bank count (the largest interleaved L1 buffer that would fit).
pub fn l1_usage_summary(l1: &MemoryView) -> String {
    format!(
        "This report indicates available space for interleaving L1 buffers\n\
         , Largest Contiguous Free Block (B), Total Free L1 Space (B)\n\
         ,{},{}\n",
        l1.stats.largest_free,
        l1.stats.largest_free.saturating_mul(l1.num_banks)
    )
}

fn detailed_section(s: &mut String, name: &str, v: &MemoryView) {
    let nb = v.num_banks;
    let _ = writeln!(s, ",{name}");
    let _ = writeln!(s, ",Total allocatable (B):,{}", v.stats.total.saturating_mul(nb));
    let _ = writeln!(s, ",Total allocated (B):,{}", v.stats.allocated.saturating_mul(nb));
    let _ = writeln!(s, ",Total free (B):,{}", v.stats.free.saturating_mul(nb));
    s.push_str(",,Blocks:,Address (B),Size (B),Allocated (Y/N)\n");
    for b in &v.blocks {
        let _ = writeln!(s, ",,,{},{},{}", b.address, b.size, if b.allocated { 'Y' } else { 'N' });
    }
    s.push('\n');
}

/// The text of `detailed_memory_usage.csv`: DRAM then L1, totals times the bank count, then
/// the CSV block dump.
pub fn detailed_memory_usage(dram: &MemoryView, l1: &MemoryView) -> String {
    let mut s = String::new();
    detailed_section(&mut s, "DRAM", dram);
    detailed_section(&mut s, "L1", l1);
    s
}

/// The three reports' file names, in [`write_reports`]'s order (each after the prefix).
pub const REPORT_NAMES: [&str; 3] = [MEMORY_USAGE_SUMMARY, L1_USAGE_SUMMARY, DETAILED_MEMORY_USAGE];

/// Writes the three reports into `dir` as `<prefix><name>`, whole and together
/// ([`crate::atomic_write::commit_all`]).
/// Returns the three final paths (summary, L1, detailed).
///
/// # Errors
/// [`ReportError::Io`] naming the path; temporary files are removed on failure.
pub fn write_reports(
    dir: &Path,
    prefix: &str,
    dram: &MemoryView,
    l1: &MemoryView,
) -> Result<[PathBuf; 3], ReportError> {
    let contents = [
        (MEMORY_USAGE_SUMMARY, memory_usage_summary(dram, l1)),
        (L1_USAGE_SUMMARY, l1_usage_summary(l1)),
        (DETAILED_MEMORY_USAGE, detailed_memory_usage(dram, l1)),
    ];
    fs::create_dir_all(dir).map_err(|source| ReportError::Io { path: dir.to_path_buf(), source })?;
    let paths = contents.each_ref().map(|(name, _)| dir.join(format!("{prefix}{name}")));
    // staged whole, then put in place as one step (a signal waits for the last rename; the
    // temp files are removed on any failure or signal)
    let mut staged = Vec::new();
    for ((_, text), path) in contents.iter().zip(&paths) {
        let s = stage(path, |w| w.write_all(text.as_bytes()))
            .map_err(|source| ReportError::Io { path: path.clone(), source })?;
        staged.push(s);
    }
    commit_all(staged).map_err(|(k, source)| ReportError::Io { path: paths[k].clone(), source })?;
    Ok(paths)
}
