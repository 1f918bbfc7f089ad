//! The plan checks of a parsed plan file (window, lifetimes, CC, twins, collisions, HWM).
//! Uses: error, header, reader, record; used by: sim, firmware.
//!
//! The plan checks of a parsed plan file: a power-of-two alignment; every record inside the
//! window, aligned, its aligned size its size rounded up to the alignment, with a lifetime
//! inside its core's program, its CC flag matching its address; every CC region ending at the
//! top of its core's space; every shared record inside the header's shared region, whose size
//! is the shared records' extent; the per-core floor, HWM and CC usage matching the records,
//! shared twins at one address, and no two records of a core that are live together sharing
//! bytes.

use super::collisions::{pairwise_collisions, sweep_collisions};
use super::error::PlanFileError;
use super::header::{CoreEntry, FLAG_SLABS, NO_ACCESS};
use super::reader::PlanFile;
use super::record::{Record, FLAG_CC, FLAG_PREPLACED, FLAG_SHARED};

/// True when `r` starts inside core `c`'s CC region.
fn in_cc(r: &Record, c: &CoreEntry) -> bool {
    let (base, size, a) = (c.cc_base.get(), c.cc_bytes.get(), r.address.get());
    // an empty region holds nothing: `a - base < 0` is false
    a >= base && a - base < size
}

fn collision(file: &PlanFile<'_>, core: u32, a: usize, b: usize) -> PlanFileError {
    let recs = file.core_records(core);
    let first = file.first_record(core);
    let (a, b) = if (recs[b].address.get(), b) < (recs[a].address.get(), a) { (b, a) } else { (a, b) };
    PlanFileError::Collision {
        core,
        a: first + a as u32,
        b: first + b as u32,
        tensor_a: recs[a].tensor.get(),
        tensor_b: recs[b].tensor.get(),
    }
}

impl PlanFile<'_> {
    /// Checks the plan (see the module docs), in this order: the alignment; per core its CC
    /// region and per record its aligned size, window, alignment, lifetime and CC flag; shared
    /// twins; the shared region; collisions; per core the stored floor, HWM and CC usage.
    /// `scratch` lends index storage: with at least [`PlanFile::scratch_len`] entries the
    /// collision check is a sweep, O(n log n) per core of n records; with less it compares
    /// every pair of a core, O(n²) (both name the same pair when only one collides; see
    /// [`super::scratch_for`]). Twins cost O(log n) each. No heap.
    ///
    /// # Errors
    /// The first failing check, as a [`PlanFileError`] of kind
    /// [`super::ErrorKind::InvalidPlan`] naming the record(s) or core.
    pub fn validate(&self, scratch: &mut [u32]) -> Result<(), PlanFileError> {
        let h = self.header();
        let (window, align) = (h.window.get(), h.align.get());
        if !align.is_power_of_two() {
            return Err(PlanFileError::BadAlign { align });
        }
        let max_instr = self.cores().iter().map(|c| c.instructions.get()).max().unwrap_or(0);
        for (k, c) in self.cores().iter().enumerate() {
            self.check_records(k as u32, c, window, align, max_instr)?;
        }
        self.check_twins()?;
        self.check_shared_region()?;
        for (k, c) in self.cores().iter().enumerate() {
            self.check_collisions(k as u32, c.instructions.get(), scratch)?;
        }
        for (k, c) in self.cores().iter().enumerate() {
            self.check_sums(k as u32, c)?;
        }
        Ok(())
    }

    /// Parses and validates: [`PlanFile::parse`] then [`PlanFile::validate`].
    ///
    /// # Errors
    /// As those two.
    pub fn read<'a>(bytes: &'a [u8], scratch: &mut [u32]) -> Result<PlanFile<'a>, PlanFileError> {
        let file = PlanFile::parse(bytes)?;
        file.validate(scratch)?;
        Ok(file)
    }

    /// Core `k`'s slab `[start, end)`, bytes: with [`FLAG_SLABS`] slab `k` of `cores + 1`
    /// equal slabs of the window below its CC region (core 0's size: the one range of the
    /// device every core's collectives use, `dramalloc run --mb-per-core`), else the whole
    /// window. Pre-placed and private tensors of core `k` lie in it, at `start` and up.
    /// Reads only the header and core table; never fails or panics (a `k` past the core
    /// count gives a slab past the window).
    pub fn core_space(&self, k: u32) -> (u64, u64) {
        let h = self.header();
        let window = h.window.get();
        if h.flags.get() & FLAG_SLABS == 0 {
            return (0, window);
        }
        let cc = self.cores().first().map_or(0, |c| c.cc_bytes.get());
        let slab = window.saturating_sub(cc) / (u64::from(h.core_count.get()) + 1);
        (slab.saturating_mul(u64::from(k)), slab.saturating_mul(u64::from(k) + 1))
    }

    fn check_records(
        &self,
        k: u32,
        c: &CoreEntry,
        window: u64,
        align: u64,
        max_instr: u32,
    ) -> Result<(), PlanFileError> {
        let (cc_base, cc) = (c.cc_base.get(), c.cc_bytes.get());
        let cc_end = cc_base.checked_add(cc).filter(|&e| e <= window);
        if cc > 0 && cc_end.is_none() {
            return Err(PlanFileError::CcRegionOutsideWindow { core: k, cc_base, cc_bytes: cc, window });
        }
        // with slabs too: the CC region lies above every slab, at the window's top
        let top = window;
        if cc_base.checked_add(cc) != Some(top) {
            return Err(PlanFileError::CcRegionNotAtTop { core: k, cc_base, cc_bytes: cc, top });
        }
        let first = self.first_record(k);
        for (i, r) in self.core_records(k).iter().enumerate() {
            let record = first + i as u32;
            let tensor = r.tensor.get();
            let (address, bytes, aligned) = (r.address.get(), r.bytes.get(), r.aligned.get());
            if aligned < bytes {
                return Err(PlanFileError::AlignedTooSmall { record, tensor, bytes, aligned });
            }
            let expected = bytes.checked_next_multiple_of(align).unwrap_or(u64::MAX);
            if aligned != expected {
                return Err(PlanFileError::AlignedMismatch { record, tensor, bytes, aligned, expected });
            }
            let end = r.end().unwrap_or(u64::MAX);
            if end > window || r.end().is_none() {
                return Err(PlanFileError::OutsideWindow { record, tensor, end, window });
            }
            // `align` is a power of two here (1: every address)
            if address % align != 0 {
                return Err(PlanFileError::Misaligned { record, tensor, address, align });
            }
            let limit = if r.has(FLAG_SHARED) { max_instr } else { c.instructions.get() };
            let (def, last_use) = (r.def.get(), r.last_use.get());
            // a half-missing lifetime fails the tests below too: NO_ACCESS (u32::MAX) as `def`
            // is above any `last_use`, as `last_use` at or above any limit
            let never = def == NO_ACCESS && last_use == NO_ACCESS;
            if !never && (def > last_use || last_use >= limit) {
                return Err(PlanFileError::BadLifetime {
                    record,
                    tensor,
                    def,
                    last_use,
                    instructions: limit,
                });
            }
            if in_cc(r, c) != r.has(FLAG_CC) {
                return Err(PlanFileError::CcFlagMismatch {
                    record,
                    tensor,
                    address,
                    flagged: r.has(FLAG_CC),
                });
            }
        }
        Ok(())
    }

    /// The shared region inside the window, every shared record outside the CC region inside `[shared_base, shared_base +
    /// shared_bytes)`, and `shared_bytes` the highest end of such a record minus
    /// `shared_base` (0: none). The collective buffers are shared too but live in the CC
    /// region (flagged [`FLAG_CC`], checked against their core's CC range by the records'
    /// check).
    fn check_shared_region(&self) -> Result<(), PlanFileError> {
        let h = self.header();
        let (base, bytes, window) = (h.shared_base.get(), h.shared_bytes.get(), h.window.get());
        if base.checked_add(bytes).is_none_or(|end| end > window) {
            return Err(PlanFileError::SharedRegionOutsideWindow { base, bytes, window });
        }
        let mut top = None;
        for (i, r) in self.records().iter().enumerate() {
            if !r.has(FLAG_SHARED) || r.has(FLAG_CC) {
                continue;
            }
            let (address, end) = (r.address.get(), r.end().unwrap_or(u64::MAX));
            if address < base || end - base > bytes {
                return Err(PlanFileError::SharedOutsideRegion {
                    record: i as u32,
                    tensor: r.tensor.get(),
                    address,
                    end,
                    base,
                    bytes,
                });
            }
            top = Some(top.map_or(end, |t: u64| t.max(end)));
        }
        let computed = top.map_or(0, |t| t - base);
        if computed != bytes {
            return Err(PlanFileError::SharedBytesMismatch { stored: bytes, computed });
        }
        Ok(())
    }

    /// The stored floor, HWM and CC usage of core `k` against its records (already checked:
    /// their ends do not overflow).
    fn check_sums(&self, k: u32, c: &CoreEntry) -> Result<(), PlanFileError> {
        let recs = self.core_records(k);
        let floor = recs
            .iter()
            .filter(|r| r.has(FLAG_PREPLACED) && r.aligned.get() > 0)
            .filter_map(Record::end)
            .fold(self.core_space(k).0, u64::max);
        if floor != c.floor.get() {
            return Err(PlanFileError::FloorMismatch { core: k, stored: c.floor.get(), computed: floor });
        }
        let hwm = recs.iter().filter_map(Record::end).fold(c.floor.get(), u64::max);
        if hwm != c.hwm.get() {
            return Err(PlanFileError::HwmMismatch { core: k, stored: c.hwm.get(), computed: hwm });
        }
        let used = recs
            .iter()
            .filter(|r| in_cc(r, c))
            .filter_map(|r| r.end().map(|e| e - c.cc_base.get()))
            .max()
            .unwrap_or(0);
        if used != c.cc_used.get() {
            return Err(PlanFileError::CcUsedMismatch { core: k, stored: c.cc_used.get(), computed: used });
        }
        Ok(())
    }

    fn check_twins(&self) -> Result<(), PlanFileError> {
        for k in 1..self.cores().len() as u32 {
            let first = self.first_record(k);
            for (i, r) in self.core_records(k).iter().enumerate() {
                if !r.has(FLAG_SHARED) {
                    continue;
                }
                let (record, tensor) = (first + i as u32, r.tensor.get());
                let Some((twin, t)) = self.find(0, tensor).filter(|(_, t)| t.has(FLAG_SHARED)) else {
                    return Err(PlanFileError::MissingTwin { record, tensor, core: k });
                };
                if (t.address, t.bytes, t.aligned) != (r.address, r.bytes, r.aligned) {
                    return Err(PlanFileError::TwinMismatch {
                        record,
                        twin,
                        tensor,
                        address: r.address.get(),
                        twin_address: t.address.get(),
                    });
                }
            }
        }
        Ok(())
    }

    fn check_collisions(&self, k: u32, instructions: u32, scratch: &mut [u32]) -> Result<(), PlanFileError> {
        let recs = self.core_records(k);
        let pair = match sweep_collisions(recs, instructions, scratch) {
            Some(found) => found,
            None => pairwise_collisions(recs, instructions),
        };
        pair.map_or(Ok(()), |(a, b)| Err(collision(self, k, a, b)))
    }
}
