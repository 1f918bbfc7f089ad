//! The plan file's CRC-32.
//! Uses: header, crc; used by: reader, sim.
//!
//! The file checksum: CRC-32/ISO-HDLC (the zlib / PNG / Ethernet CRC, via the `crc` crate's
//! catalogue) over the whole file with the 4 checksum bytes read as zero. A CRC-32 detects
//! every single-bit error and every burst of up to 32 bits.

use super::header::CHECKSUM_OFFSET;

const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// CRC-32 of `file` with bytes `[24, 28)` (the header's checksum field) read as zero.
/// O(n), table-driven (1 KiB table in flash).
///
/// ```
/// use dramalloc_core::plan_file::file_checksum;
/// // the standard CRC-32 check value, for a "file" too short to hold a checksum field
/// assert_eq!(file_checksum(b"123456789"), 0xCBF4_3926);
/// ```
pub fn file_checksum(file: &[u8]) -> u32 {
    let split = file.len().min(CHECKSUM_OFFSET);
    let (head, rest) = file.split_at(split);
    let field = rest.len().min(4);
    let mut digest = CRC32.digest();
    digest.update(head);
    digest.update(&[0u8; 4][..field]);
    digest.update(&rest[field..]);
    digest.finalize()
}
