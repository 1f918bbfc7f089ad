//! The fixture blob of the plan-file tests and the edits they make to it.
//!
//! `data/tiny_tp.plan.bin` is the plan `dramalloc` makes of the suite's tiny tensor-parallel
//! program on 2 cores (the suite's `tests/plan_file.rs` checks the encoder still writes
//! exactly these bytes): 16 records (x, w, a, b, y, a/cc_slice0, a/cc_slice1, a/reduced on
//! each core, in tensor order), 8 names, a 1 GiB window with a 4 MiB CC region at its top,
//! 4096-byte alignment, floor 16,384 on each core.
#![allow(dead_code)] // each test file uses its own part

use dramalloc_core::plan_file::{
    file_checksum, CoreEntry, NameRef, PlanFile, PlanFileError, PlanHeader, Record, CHECKSUM_OFFSET,
};

pub const BLOB: &[u8] = include_bytes!("../data/tiny_tp.plan.bin");
pub const HEADER: usize = 88;
pub const CORE: usize = 56;
pub const RECORD: usize = 40;
pub const RECORDS: usize = HEADER + 2 * CORE;
pub const NAMES: usize = RECORDS + 16 * RECORD;

/// Parses and validates `bytes` with enough scratch for the O(n log n) collision check.
pub fn read(bytes: &[u8]) -> Result<PlanFile<'_>, PlanFileError> {
    let mut scratch = vec![0u32; 4096];
    PlanFile::read(bytes, &mut scratch)
}

/// Tensor index of `name`.
pub fn t(name: &str) -> u32 {
    let f = PlanFile::parse(BLOB).unwrap();
    (0..f.names().len() as u32).find(|&t| f.name(t) == Some(name)).unwrap()
}

/// Record index of `core`'s `name`.
pub fn index(core: u32, name: &str) -> u32 {
    PlanFile::parse(BLOB).unwrap().find(core, t(name)).unwrap().0
}

/// The blob's record of `core`'s `name`.
pub fn original(core: u32, name: &str) -> Record {
    *PlanFile::parse(BLOB).unwrap().find(core, t(name)).unwrap().1
}

/// The blob with `edit` applied to its bytes and the checksum renewed.
pub fn sealed(edit: impl Fn(&mut [u8])) -> Vec<u8> {
    let mut bytes = BLOB.to_vec();
    edit(&mut bytes);
    let crc = file_checksum(&bytes);
    bytes[CHECKSUM_OFFSET..CHECKSUM_OFFSET + 4].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// The blob with `core`'s record of `name` changed by `edit`, checksum renewed.
pub fn edited(core: u32, name: &str, edit: impl Fn(&mut Record)) -> Vec<u8> {
    let i = index(core, name) as usize;
    sealed(|b| edit(record(b, i)))
}

pub fn header(b: &mut [u8]) -> &mut PlanHeader {
    bytemuck::from_bytes_mut(&mut b[..HEADER])
}

pub fn core_entry(b: &mut [u8], k: usize) -> &mut CoreEntry {
    bytemuck::from_bytes_mut(&mut b[HEADER + k * CORE..HEADER + (k + 1) * CORE])
}

pub fn record(b: &mut [u8], i: usize) -> &mut Record {
    bytemuck::from_bytes_mut(&mut b[RECORDS + i * RECORD..RECORDS + (i + 1) * RECORD])
}

pub fn name(b: &mut [u8], n: usize) -> &mut NameRef {
    bytemuck::from_bytes_mut(&mut b[NAMES + n * 8..NAMES + (n + 1) * 8])
}
