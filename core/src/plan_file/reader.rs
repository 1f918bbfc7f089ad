//! The zero-copy structural reader of a plan file and its accessors.
//! Uses: checksum, error, header, record; used by: validate, sim, firmware.
//!
//! The zero-copy reader: [`PlanFile::parse`] checks the structure of a blob and borrows its
//! tables in place (`bytemuck::try_from_bytes` / `try_cast_slice`, no copy, no heap).

use core::mem::size_of;

use bytemuck::{try_cast_slice, try_from_bytes};

use super::checksum::file_checksum;
use super::error::{Part, PlanFileError};
use super::header::{CoreEntry, Layout, PlanHeader, KNOWN_FLAGS, MAGIC, VERSION};
use super::record::{NameRef, Record, KNOWN_RECORD_FLAGS};

/// A plan file borrowed in place. Made by [`PlanFile::parse`] (structure checked) and
/// usually checked further by [`PlanFile::validate`] (the plan itself).
#[derive(Clone, Copy, Debug)]
pub struct PlanFile<'a> {
    header: &'a PlanHeader,
    cores: &'a [CoreEntry],
    records: &'a [Record],
    names: &'a [NameRef],
    strings: &'a [u8],
}

fn entry_size(part: Part, found: u32, expected: usize) -> Result<(), PlanFileError> {
    if found as usize == expected {
        Ok(())
    } else {
        Err(PlanFileError::EntrySize { part, found, expected: expected as u32 })
    }
}

/// `bytes[from..to]` of a file whose length was checked against `to` (never fails then).
fn section(bytes: &[u8], from: u64, to: u64) -> Result<&[u8], PlanFileError> {
    bytes
        .get(from as usize..to as usize)
        .ok_or(PlanFileError::Truncated { needed: to, found: bytes.len() as u64 })
}

/// Casts a section whose length is a multiple of `T`'s size (it was computed so).
fn cast<T: bytemuck::Pod>(bytes: &[u8]) -> Result<&[T], PlanFileError> {
    try_cast_slice(bytes).map_err(|_| PlanFileError::Truncated {
        needed: bytes.len().next_multiple_of(size_of::<T>()) as u64,
        found: bytes.len() as u64,
    })
}

impl<'a> PlanFile<'a> {
    /// Reads the blob `bytes` in place, checking, in this order: length of the header, magic,
    /// version, entry sizes, flags, core count, `file_bytes` against the counts and against
    /// `bytes.len()`, the CRC-32, the core table (contiguous record ranges), every record's
    /// core, tensor index, flags and order (strictly increasing tensor per core), and every
    /// name (inside the string table, UTF-8). `bytes` may have any alignment.
    ///
    /// Cost: O(file bytes) for the CRC plus O(records + names); no heap, no copy.
    ///
    /// # Errors
    /// The first failing check, as a [`PlanFileError`] of kind
    /// [`super::ErrorKind::Corrupt`] naming the core, record or name.
    pub fn parse(bytes: &'a [u8]) -> Result<PlanFile<'a>, PlanFileError> {
        let len = bytes.len() as u64;
        let hsize = size_of::<PlanHeader>();
        let head = bytes.get(..hsize).ok_or(PlanFileError::Truncated { needed: hsize as u64, found: len })?;
        let header: &PlanHeader = try_from_bytes(head)
            .map_err(|_| PlanFileError::Truncated { needed: hsize as u64, found: len })?;
        if header.magic != MAGIC {
            return Err(PlanFileError::BadMagic { found: header.magic });
        }
        if header.version.get() != VERSION {
            return Err(PlanFileError::UnsupportedVersion {
                found: header.version.get(),
                supported: VERSION,
            });
        }
        entry_size(Part::Header, header.header_bytes.get(), hsize)?;
        entry_size(Part::Core, header.core_bytes.get().into(), size_of::<CoreEntry>())?;
        entry_size(Part::Record, header.record_bytes.get().into(), size_of::<Record>())?;
        entry_size(Part::Name, header.name_bytes.get().into(), size_of::<NameRef>())?;
        if header.flags.get() & !KNOWN_FLAGS != 0 || header.reserved.get() != 0 {
            return Err(PlanFileError::UnknownHeaderBits {
                flags: header.flags.get(),
                reserved: header.reserved.get(),
            });
        }
        let cores = header.core_count.get();
        if cores == 0 || cores > u16::MAX as u32 {
            return Err(PlanFileError::BadCoreCount { cores });
        }
        let declared = header.file_bytes.get();
        let layout = Layout::new(
            cores.into(),
            header.record_count.get().into(),
            header.name_count.get().into(),
            header.string_bytes.get().into(),
        )
        .ok_or(PlanFileError::LengthMismatch { declared, actual: u64::MAX })?;
        if layout.file_bytes != declared {
            return Err(PlanFileError::LengthMismatch { declared, actual: layout.file_bytes });
        }
        if len < declared {
            return Err(PlanFileError::Truncated { needed: declared, found: len });
        }
        if len > declared {
            return Err(PlanFileError::LengthMismatch { declared, actual: len });
        }
        let computed = file_checksum(bytes);
        if computed != header.checksum.get() {
            return Err(PlanFileError::ChecksumMismatch { stored: header.checksum.get(), computed });
        }
        let file = PlanFile {
            header,
            cores: cast(section(bytes, layout.cores, layout.records)?)?,
            records: cast(section(bytes, layout.records, layout.names)?)?,
            names: cast(section(bytes, layout.names, layout.strings)?)?,
            strings: section(bytes, layout.strings, layout.file_bytes)?,
        };
        file.check_tables()?;
        Ok(file)
    }

    fn check_tables(&self) -> Result<(), PlanFileError> {
        let mut next = 0u32;
        for (k, c) in self.cores.iter().enumerate() {
            let k = k as u32;
            let (first, count) = (c.first_record.get(), c.record_count.get());
            let end = first.checked_add(count).filter(|&e| e as usize <= self.records.len());
            if c.reserved.get() != 0 {
                return Err(PlanFileError::CoreReserved { core: k, value: c.reserved.get() });
            }
            if first != next || end.is_none() {
                return Err(PlanFileError::CoreTable { core: k });
            }
            next = end.unwrap_or(first);
            let mut prev: Option<(u32, u32)> = None;
            for i in first..next {
                let r = &self.records[i as usize];
                if u32::from(r.core.get()) != k {
                    return Err(PlanFileError::RecordCore { record: i, core: k });
                }
                let t = r.tensor.get();
                if t as usize >= self.names.len() {
                    return Err(PlanFileError::UnknownTensor { record: i, tensor: t });
                }
                if r.flags.get() & !KNOWN_RECORD_FLAGS != 0 {
                    return Err(PlanFileError::UnknownRecordFlags { record: i, flags: r.flags.get() });
                }
                match prev {
                    Some((pt, pi)) if pt == t => {
                        return Err(PlanFileError::DuplicateRecord { record: i, first: pi })
                    }
                    Some((pt, _)) if pt > t => return Err(PlanFileError::Unsorted { record: i }),
                    _ => prev = Some((t, i)),
                }
            }
        }
        if next as usize != self.records.len() {
            return Err(PlanFileError::RecordsWithoutCore {
                first: next,
                records: self.records.len() as u32,
            });
        }
        for (n, name) in self.names.iter().enumerate() {
            let (o, l) = (name.offset.get() as usize, name.len.get() as usize);
            let bytes = o
                .checked_add(l)
                .and_then(|e| self.strings.get(o..e))
                .ok_or(PlanFileError::NameOutOfRange { name: n as u32 })?;
            core::str::from_utf8(bytes).map_err(|_| PlanFileError::NameNotUtf8 { name: n as u32 })?;
        }
        Ok(())
    }

    /// The header.
    pub fn header(&self) -> &'a PlanHeader {
        self.header
    }

    /// The per-core table, one entry per core.
    pub fn cores(&self) -> &'a [CoreEntry] {
        self.cores
    }

    /// Every record, core after core.
    pub fn records(&self) -> &'a [Record] {
        self.records
    }

    /// Core `core`'s records (sorted by tensor); empty for a core that does not exist.
    pub fn core_records(&self, core: u32) -> &'a [Record] {
        self.cores.get(core as usize).map_or(&[], |c| {
            let (a, n) = (c.first_record.get() as usize, c.record_count.get() as usize);
            self.records.get(a..a + n).unwrap_or(&[])
        })
    }

    /// Index of the first record of core `core` (records of a core are contiguous).
    pub fn first_record(&self, core: u32) -> u32 {
        self.cores.get(core as usize).map_or(0, |c| c.first_record.get())
    }

    /// The name table (tensor index → its bytes in the string table).
    pub fn names(&self) -> &'a [NameRef] {
        self.names
    }

    /// The name of tensor `tensor` (`None` past the name table). O(1).
    pub fn name(&self, tensor: u32) -> Option<&'a str> {
        let n = self.names.get(tensor as usize)?;
        let (o, l) = (n.offset.get() as usize, n.len.get() as usize);
        core::str::from_utf8(self.strings.get(o..o.checked_add(l)?)?).ok()
    }

    /// Core `core`'s record of tensor `tensor` and its index in [`PlanFile::records`].
    /// O(log n) (binary search; records of a core are sorted by tensor).
    pub fn find(&self, core: u32, tensor: u32) -> Option<(u32, &'a Record)> {
        let recs = self.core_records(core);
        let p = recs.binary_search_by_key(&tensor, |r| r.tensor.get()).ok()?;
        Some((self.first_record(core) + p as u32, &recs[p]))
    }

    /// Scratch entries [`PlanFile::validate`] needs for its O(n log n) collision check:
    /// [`super::scratch_for`] of the largest record count of one core (about 2.03 per record).
    pub fn scratch_len(&self) -> usize {
        super::scratch_for(self.cores.iter().map(|c| c.record_count.get() as usize).max().unwrap_or(0))
    }
}
