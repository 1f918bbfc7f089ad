//! The byte fingerprint every op writes into the tensors it defines.
//! Uses: nothing else in the crate; used by: executor.
//!
//! The byte fingerprint every op writes into the tensors it defines, so a read can tell
//! whose bytes it found: each 8-byte word (little-endian) is
//! `(tensor id + 1) << 32 | (def instruction & 0xFFFF) << 16 | (word index & 0xFFFF)`.
//! The tensor id says which tensor wrote the word: bit 31 set = shared entry (bits 0..31),
//! otherwise core (bits 24..31) and location (bits 0..24). A stale word (older def), a foreign
//! word (another tensor) or a shifted word (wrong offset) all differ from the expected one.

/// Def instruction recorded for bytes the loader wrote (inputs, weights).
pub const LOADER_DEF: u32 = 0xFFFF;

/// Identity of a written tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensorId {
    /// A private (or pre-placed) tensor: core and location index.
    Private {
        /// Core index.
        core: u32,
        /// Location index on that core.
        location: u32,
    },
    /// A shared tensor: index of its shared entry.
    Shared(u32),
}

impl TensorId {
    /// The 32-bit code stored in each word.
    pub fn code(self) -> u32 {
        match self {
            TensorId::Private { core, location } => ((core & 0x7F) << 24) | (location & 0x00FF_FFFF),
            TensorId::Shared(e) => 0x8000_0000 | (e & 0x7FFF_FFFF),
        }
    }

    /// Decodes a code (inverse of [`TensorId::code`] for in-range values).
    pub fn from_code(code: u32) -> TensorId {
        if code & 0x8000_0000 != 0 {
            TensorId::Shared(code & 0x7FFF_FFFF)
        } else {
            TensorId::Private { core: code >> 24, location: code & 0x00FF_FFFF }
        }
    }
}

/// The expected word `w` of tensor `id` defined by instruction `def`.
pub fn word(id: TensorId, def: u32, w: u64) -> u64 {
    ((id.code() as u64 + 1) << 32) | ((def as u64 & 0xFFFF) << 16) | (w & 0xFFFF)
}

/// Decodes a found word: `None` for a word never written (0), else the writer's id.
pub fn writer_of(found: u64) -> Option<TensorId> {
    let code = found >> 32;
    (code != 0).then(|| TensorId::from_code((code - 1) as u32))
}

/// Fills `out` with the fingerprint of `bytes` bytes of `id` defined by `def`.
pub fn fill(out: &mut Vec<u8>, id: TensorId, def: u32, bytes: u64) {
    out.clear();
    out.resize(bytes as usize, 0);
    let hi = ((id.code() as u64 + 1) << 32) | ((def as u64 & 0xFFFF) << 16);
    let mut chunks = out.chunks_exact_mut(8);
    for (w, c) in (&mut chunks).enumerate() {
        c.copy_from_slice(&(hi | (w as u64 & 0xFFFF)).to_le_bytes());
    }
    let rem = chunks.into_remainder();
    let w = bytes / 8;
    let n = rem.len();
    rem.copy_from_slice(&word(id, def, w).to_le_bytes()[..n]);
}

/// Index of the first byte of `found` that differs from the fingerprint, if any.
pub fn first_mismatch(found: &[u8], id: TensorId, def: u32) -> Option<usize> {
    let hi = ((id.code() as u64 + 1) << 32) | ((def as u64 & 0xFFFF) << 16);
    let mut chunks = found.chunks_exact(8);
    for (w, c) in (&mut chunks).enumerate() {
        let got = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let want = hi | (w as u64 & 0xFFFF);
        if got != want {
            let b = ((got ^ want).trailing_zeros() / 8) as usize;
            return Some(w * 8 + b);
        }
    }
    let rem = chunks.remainder();
    let w = found.len() / 8;
    let expect = word(id, def, w as u64).to_le_bytes();
    rem.iter().zip(expect.iter()).position(|(a, b)| a != b).map(|b| w * 8 + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_mismatch() {
        let id = TensorId::Private { core: 3, location: 77 };
        let mut buf = Vec::new();
        fill(&mut buf, id, 12, 21);
        assert_eq!(buf.len(), 21);
        assert_eq!(first_mismatch(&buf, id, 12), None);
        assert_eq!(first_mismatch(&buf, id, 13), Some(2)); // def byte differs first
        let w = u64::from_le_bytes(buf[8..16].try_into().unwrap());
        assert_eq!(writer_of(w), Some(id));
        assert_eq!(writer_of(0), None);
        assert_eq!(TensorId::from_code(TensorId::Shared(9).code()), TensorId::Shared(9));
    }
}
