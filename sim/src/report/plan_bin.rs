//! `plan.bin`: the binary plan file of a run or a minimalloc solution.
//! Uses: input, model, planning, run, dramalloc-core (plan_file); used by: cli, tests, firmware build.
//!
//! `plan.bin`: the binary plan file of [`dramalloc_core::plan_file`], built from a `run`
//! (every core's view) or from a minimalloc solution (one core), encoded whole with its
//! CRC-32. The core's reader reads what this writes; `tests/plan_file.rs` checks both.

use std::collections::HashMap;

use dramalloc_core::multicore::SharedMode;
use dramalloc_core::plan_file::{
    file_checksum_wide, CoreEntry, Layout, PlanHeader, Record, U16Le, U32Le, U64Le, CHECKSUM_OFFSET, FLAG_CC,
    FLAG_PINNED, FLAG_PREPLACED, FLAG_PROBLEM, FLAG_SHARED, FLAG_SLABS, FLAG_TENSOR_PARALLEL, MAGIC,
    NO_ACCESS, VERSION,
};

use crate::input::{Problem, SolutionRow};
use crate::model::SimModel;
use crate::planning::{PlanOptions, PlannedModel};

/// Why a plan cannot be written as a blob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlobError {
    /// A table does not fit the format's counters.
    #[error("{what}: {count} entries exceed the plan file's limit of {limit}")]
    TooMany {
        /// Which table.
        what: &'static str,
        /// Entries.
        count: usize,
        /// The limit.
        limit: u64,
    },
    /// A lifetime bound past the format's 32-bit instruction index.
    #[error("buffer `{id}`: instant {value} does not fit the plan file's 32-bit instruction index")]
    TimeRange {
        /// The buffer.
        id: String,
        /// The value.
        value: u64,
    },
    /// A record naming a core past the core table.
    #[error("a record names core {core}, but the plan has {cores} core(s)")]
    UnknownCore {
        /// The core named.
        core: u16,
        /// Cores in the plan.
        cores: usize,
    },
    /// An alignment the plan file cannot hold (it must be a power of two).
    #[error("alignment {align}: a plan file's alignment is a power of two")]
    BadAlign {
        /// The alignment, bytes.
        align: u64,
    },
    /// A size whose round-up to the alignment overflows `u64`.
    #[error("buffer `{id}`: size {size} overflows u64 when aligned to {align}")]
    SizeOverflow {
        /// The buffer.
        id: String,
        /// Its size.
        size: u64,
        /// The alignment.
        align: u64,
    },
}

/// A plan ready to encode: the header's values (flags, window, shared region, alignment;
/// [`PlanBlob::encode`] sets magic, version, sizes, counts and the checksum), one entry per
/// core, the records of every core and the tensor names. `encode` sorts and counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanBlob {
    /// The header's plan-level fields.
    pub header: PlanHeader,
    /// Per-core entries (`first_record` and `record_count` are filled by `encode`).
    pub cores: Vec<CoreEntry>,
    /// Records of every core, any order.
    pub records: Vec<Record>,
    /// Tensor names; a record's `tensor` indexes them.
    pub names: Vec<String>,
}

/// The plan-level header fields; the rest is filled by [`PlanBlob::encode`].
fn plan_header(flags: u32, window: u64, shared_base: u64, shared_bytes: u64, align: u64) -> PlanHeader {
    PlanHeader {
        flags: U32Le::new(flags),
        window: U64Le::new(window),
        shared_base: U64Le::new(shared_base),
        shared_bytes: U64Le::new(shared_bytes),
        align: U64Le::new(align),
        ..PlanHeader::default()
    }
}

fn count(what: &'static str, n: usize, limit: u64) -> Result<u32, BlobError> {
    u32::try_from(n).ok().filter(|&v| u64::from(v) <= limit).ok_or(BlobError::TooMany {
        what,
        count: n,
        limit,
    })
}

/// `value` as a 32-bit instruction index, below [`NO_ACCESS`].
fn instant(id: &str, value: u64) -> Result<u32, BlobError> {
    u32::try_from(value)
        .ok()
        .filter(|&v| v != NO_ACCESS)
        .ok_or(BlobError::TimeRange { id: id.to_string(), value })
}

/// A record of tensor `tensor` on `core`.
#[allow(clippy::too_many_arguments)]
fn record(
    tensor: u32,
    core: u16,
    flags: u16,
    address: u64,
    bytes: u64,
    aligned: u64,
    def: u32,
    last: u32,
) -> Record {
    Record {
        tensor: U32Le::new(tensor),
        core: U16Le::new(core),
        flags: U16Le::new(flags),
        address: U64Le::new(address),
        bytes: U64Le::new(bytes),
        aligned: U64Le::new(aligned),
        def: U32Le::new(def),
        last_use: U32Le::new(last),
    }
}

impl PlanBlob {
    /// Every core's view of a `run`: each addressed tensor of each core (pre-placed, pinned,
    /// planned, shared) with the size and alignment the planner used; lifetimes are the
    /// core's first and last access (a shared tensor: the hull over all cores, the lifetime
    /// the shared region was planned with). HWM, floor, CC region and its use per core come
    /// from the plan. `tensor_parallel` sets [`FLAG_TENSOR_PARALLEL`], per-core slabs
    /// [`FLAG_SLABS`].
    ///
    /// # Errors
    /// [`BlobError::TooMany`] past 65,535 cores or 2^32 - 1 records or names.
    pub fn from_run(
        model: &SimModel,
        plan: &PlannedModel,
        opts: &PlanOptions,
        tensor_parallel: bool,
    ) -> Result<PlanBlob, BlobError> {
        let n = model.cores.len();
        count("cores", n, u16::MAX.into())?;
        let (slab, window) = match opts.mode {
            SharedMode::Windows => (0, opts.window),
            SharedMode::Slabs { mb_per_core } => {
                // the slabs, the shared slab and the CC region after it
                let cap = mb_per_core.saturating_mul(1 << 20);
                let cc = plan.metrics.first().map_or(0, |m| m.cc_limit);
                (cap, cap.saturating_mul(n as u64 + 1).saturating_add(cc))
            }
        };
        let mut index: HashMap<&str, u32> = HashMap::new();
        let mut names = Vec::new();
        let mut hull: HashMap<&str, (u32, u32)> = HashMap::new();
        for e in &plan.shared {
            hull.insert(model.cores[0].names[e.location as usize].as_str(), (e.first_access, e.last_access));
        }
        let mut cores = Vec::with_capacity(n);
        let mut records = Vec::new();
        for (k, c) in model.cores.iter().enumerate() {
            let m = &plan.metrics[k];
            let cc_base = m.cc_base;
            let cc_end = cc_base.saturating_add(m.cc_limit);
            for (l, p) in plan.placements[k].iter().enumerate() {
                let Some(address) = p.address else { continue };
                let name = c.names[l].as_str();
                let tensor = match index.get(name) {
                    Some(&t) => t,
                    None => {
                        let t = count("names", names.len(), u64::from(u32::MAX) - 1)?;
                        names.push(name.to_string());
                        index.insert(name, t);
                        t
                    }
                };
                let loc = &c.locations[l];
                let mut flags = 0;
                if p.shared {
                    flags |= FLAG_SHARED;
                }
                if loc.is_preplaced() {
                    flags |= FLAG_PREPLACED;
                } else if loc.address.is_some() {
                    flags |= FLAG_PINNED;
                }
                if m.cc_limit > 0 && address >= cc_base && address < cc_end {
                    flags |= FLAG_CC;
                }
                let (def, last) = match hull.get(name).filter(|_| p.shared) {
                    Some(&h) => h,
                    None if p.first_access == u32::MAX => (NO_ACCESS, NO_ACCESS),
                    None => (p.first_access, p.last_access),
                };
                records.push(record(tensor, k as u16, flags, address, loc.bytes, p.aligned, def, last));
            }
            // the view's HWM: the highest end of an addressed tensor, at least the floor
            let top = plan.placements[k].iter().filter_map(|p| p.address.map(|a| a + p.aligned)).max();
            let hwm = top.unwrap_or(0).max(m.reserved_space);
            cores.push(CoreEntry {
                hwm: U64Le::new(hwm),
                floor: U64Le::new(m.reserved_space),
                cc_base: U64Le::new(cc_base),
                cc_bytes: U64Le::new(m.cc_limit),
                cc_used: U64Le::new(m.real_cc_bytes),
                instructions: U32Le::new(count("instructions", c.instructions.len(), u32::MAX.into())?),
                ..CoreEntry::default()
            });
        }
        count("records", records.len(), u32::MAX.into())?;
        Ok(PlanBlob {
            header: plan_header(
                if tensor_parallel { FLAG_TENSOR_PARALLEL } else { 0 }
                    | if slab > 0 { FLAG_SLABS } else { 0 },
                window,
                plan.report.shared_base,
                plan.report.shared_region_bytes,
                dramalloc_core::align::DRAM_PAGE,
            ),
            cores,
            records,
            names,
        })
    }

    /// One core holding a minimalloc solution ([`FLAG_PROBLEM`]): buffer `i` is tensor `i` (named by its id),
    /// live over `[lower, upper - 1]`, `aligned` = size rounded up to `align`; the window is
    /// `capacity` (unbounded: `u64::MAX`), instructions = the largest `upper`.
    ///
    /// # Errors
    /// [`BlobError::BadAlign`] unless `align` is a power of two (0 counts as 1),
    /// [`BlobError::TimeRange`] for an instant past 32 bits, [`BlobError::SizeOverflow`],
    /// [`BlobError::TooMany`].
    pub fn from_solution(
        rows: &[SolutionRow],
        align: u64,
        capacity: Option<u64>,
    ) -> Result<PlanBlob, BlobError> {
        let (header, core, records) = solution_tables(
            rows.iter().map(|r| (r.id.as_str(), r.lower, r.upper, r.size, r.offset, false)),
            align,
            capacity,
        )?;
        Ok(PlanBlob {
            header,
            cores: vec![core],
            records,
            names: rows.iter().map(|r| r.id.clone()).collect(),
        })
    }

    /// The file: header, core table, records sorted by (core, tensor), name table, strings;
    /// the CRC-32 last. O(n log n) for the sort.
    ///
    /// # Errors
    /// [`BlobError::TooMany`] when a table does not fit the format's counters,
    /// [`BlobError::UnknownCore`] for a record past the core table.
    pub fn encode(&self) -> Result<Vec<u8>, BlobError> {
        let mut records = self.records.clone();
        records.sort_by_key(|r| (r.core.get(), r.tensor.get()));
        write_file(self.header, &self.cores, &records, self.names.iter().map(String::as_str))
    }
}

/// The file of [`PlanBlob::from_solution`] for `problem` with buffer `k` at `offsets[k]`,
/// byte for byte but for the fixed buffers' records, which carry [`FLAG_PINNED`] (a row does
/// not say it was fixed), written straight from the problem: no row or name is copied (at
/// 10^6 rows the copies took about half of `plan -o x.bin`'s write time and 100 MB).
///
/// # Errors
/// Those of [`PlanBlob::from_solution`] and [`PlanBlob::encode`].
///
/// # Panics
/// When `offsets` is shorter than the problem.
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem};
/// use dramalloc_sim::report::plan_bin::{encode_solution, PlanBlob};
/// let row = |id: &str, lower| Buffer { id: id.into(), lower, upper: lower + 2, size: 10 };
/// let p: Problem = [row("a", 0), row("b", 1)].into_iter().collect();
/// let bytes = encode_solution(&p, &[0, 16], 16, Some(64)).unwrap();
/// let rows = p.with_offsets(&[0, 16]).to_solution_rows();
/// assert_eq!(bytes, PlanBlob::from_solution(&rows, 16, Some(64)).unwrap().encode().unwrap());
/// ```
pub fn encode_solution(
    problem: &Problem,
    offsets: &[u64],
    align: u64,
    capacity: Option<u64>,
) -> Result<Vec<u8>, BlobError> {
    let rows = problem.iter().zip(&offsets[..problem.len()]).enumerate();
    let (header, core, records) = solution_tables(
        rows.map(|(k, ((id, r), &offset))| {
            (id, r.lower, r.upper, r.size, offset, problem.fixed(k).is_some())
        }),
        align,
        capacity,
    )?;
    write_file(header, &[core], &records, (0..problem.len()).map(|k| problem.id(k)))
}

/// The header, the one core entry and the records of a minimalloc solution given as
/// `(id, lower, upper exclusive, size, offset, fixed)` rows ([`PlanBlob::from_solution`]; a
/// fixed row's record carries [`FLAG_PINNED`]).
fn solution_tables<'a>(
    rows: impl ExactSizeIterator<Item = (&'a str, u64, u64, u64, u64, bool)>,
    align: u64,
    capacity: Option<u64>,
) -> Result<(PlanHeader, CoreEntry, Vec<Record>), BlobError> {
    if !align.max(1).is_power_of_two() {
        return Err(BlobError::BadAlign { align });
    }
    let mut records = Vec::with_capacity(rows.len());
    let (mut hwm, mut instructions) = (0u64, 0u32);
    for (i, (id, lower, upper, size, offset, fixed)) in rows.enumerate() {
        let tensor = count("names", i, u64::from(u32::MAX) - 1)?;
        let aligned = size.checked_next_multiple_of(align.max(1)).ok_or_else(|| BlobError::SizeOverflow {
            id: id.to_owned(),
            size,
            align,
        })?;
        // `upper` is exclusive, an instruction count: u32::MAX is one (the last use below it)
        let def = instant(id, lower)?;
        let upper =
            u32::try_from(upper).map_err(|_| BlobError::TimeRange { id: id.to_string(), value: upper })?;
        let last = upper.saturating_sub(1).max(def);
        hwm = hwm.max(offset.saturating_add(aligned));
        instructions = instructions.max(upper);
        let flags = if fixed { FLAG_PINNED } else { 0 };
        records.push(record(tensor, 0, flags, offset, size, aligned, def, last));
    }
    let core = CoreEntry {
        hwm: U64Le::new(hwm),
        // no CC region: an empty one at the top of the window
        cc_base: U64Le::new(capacity.unwrap_or(u64::MAX)),
        instructions: U32Le::new(instructions),
        ..CoreEntry::default()
    };
    Ok((plan_header(FLAG_PROBLEM, capacity.unwrap_or(u64::MAX), 0, 0, align.max(1)), core, records))
}

/// The file: header, core table, `records` (sorted by (core, tensor)), name table, strings;
/// the CRC-32 last, in one allocation of the file's size.
///
/// # Errors
/// [`BlobError::TooMany`] when a table does not fit the format's counters,
/// [`BlobError::UnknownCore`] for a record past the core table.
fn write_file<'n>(
    header: PlanHeader,
    cores: &[CoreEntry],
    records: &[Record],
    names: impl Iterator<Item = &'n str> + Clone,
) -> Result<Vec<u8>, BlobError> {
    let mut cores = cores.to_vec();
    let mut at = 0u32;
    for (k, c) in cores.iter_mut().enumerate() {
        let n = records[at as usize..].iter().take_while(|r| usize::from(r.core.get()) == k).count() as u32;
        c.first_record = U32Le::new(at);
        c.record_count = U32Le::new(n);
        at += n;
    }
    if let Some(r) = records.get(at as usize) {
        return Err(BlobError::UnknownCore { core: r.core.get(), cores: cores.len() });
    }
    let (mut name_count, mut string_bytes) = (0usize, 0usize);
    for n in names.clone() {
        count("string bytes", n.len(), u32::MAX.into())?;
        name_count += 1;
        string_bytes += n.len();
    }
    let counts = (
        count("cores", cores.len(), u16::MAX.into())?,
        count("records", records.len(), u32::MAX.into())?,
        count("names", name_count, u32::MAX.into())?,
        count("string bytes", string_bytes, u32::MAX.into())?,
    );
    let layout = Layout::new(counts.0.into(), counts.1.into(), counts.2.into(), counts.3.into())
        .ok_or(BlobError::TooMany { what: "file bytes", count: usize::MAX, limit: u64::MAX })?;
    let header = PlanHeader {
        magic: MAGIC,
        version: U32Le::new(VERSION),
        header_bytes: U32Le::new(std::mem::size_of::<PlanHeader>() as u32),
        file_bytes: U64Le::new(layout.file_bytes),
        checksum: U32Le::new(0),
        core_count: U32Le::new(counts.0),
        record_count: U32Le::new(counts.1),
        name_count: U32Le::new(counts.2),
        string_bytes: U32Le::new(counts.3),
        core_bytes: U16Le::new(std::mem::size_of::<CoreEntry>() as u16),
        record_bytes: U16Le::new(std::mem::size_of::<Record>() as u16),
        name_bytes: U16Le::new(std::mem::size_of::<dramalloc_core::plan_file::NameRef>() as u16),
        reserved: U16Le::new(0),
        ..header
    };
    let mut out = Vec::with_capacity(layout.file_bytes as usize);
    out.extend_from_slice(bytemuck::bytes_of(&header));
    out.extend_from_slice(bytemuck::cast_slice(&cores));
    out.extend_from_slice(bytemuck::cast_slice(records));
    let mut offset = 0u32;
    for n in names.clone() {
        let len = n.len() as u32; // each length and their sum were counted above
        let name = dramalloc_core::plan_file::NameRef { offset: U32Le::new(offset), len: U32Le::new(len) };
        out.extend_from_slice(bytemuck::bytes_of(&name));
        offset += len;
    }
    for n in names {
        out.extend_from_slice(n.as_bytes());
    }
    let crc = file_checksum_wide(&out);
    out[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}
