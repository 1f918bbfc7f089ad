//! The byte fingerprint every op writes into the tensors it defines.
//! Uses: nothing else in the crate; used by: executor.
//!
//! The byte fingerprint every op writes into the tensors it defines, so a read can tell
//! whose bytes it found: each 8-byte word (little-endian) is
//! `(tensor id + 1) << 32 | (def instruction & 0xFFFF) << 16 | (word index & 0xFFFF)`.
//! The tensor id says which tensor wrote the word: bit 31 set = shared entry (bits 0..31),
//! otherwise core (bits 24..31) and location (bits 0..24). A stale word (older def), a foreign
//! word (another tensor) or a shifted word (wrong offset) all differ from the expected one.
//! [`fill_at`] and [`mismatch_at`] work on any piece of a tensor at its byte offset, so the
//! executor writes and checks straight in the arena's pages.

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

/// The high 48 bits every word of tensor `id` defined by instruction `def` shares; word `w`
/// is `word_base(id, def) | (w & 0xFFFF)`.
pub fn word_base(id: TensorId, def: u32) -> u64 {
    ((id.code() as u64 + 1) << 32) | ((def as u64 & 0xFFFF) << 16)
}

/// The expected word `w` of tensor `id` defined by instruction `def`.
pub fn word(id: TensorId, def: u32, w: u64) -> u64 {
    word_base(id, def) | (w & 0xFFFF)
}

/// Decodes a found word: `None` for a word never written (0), else the writer's id.
pub fn writer_of(found: u64) -> Option<TensorId> {
    let code = found >> 32;
    (code != 0).then(|| TensorId::from_code((code - 1) as u32))
}

/// Bytes a wide compare checks at once (one branch): 32 words, four cache lines.
const WIDE: usize = 256;

/// Writes into `dst` the fingerprint of the tensor's bytes `[offset, offset + dst.len())`
/// (byte offsets from the tensor's start), word by word; `offset` need not be a multiple of
/// 8. Any chunking of a tensor gives the same bytes as filling it whole. O(len).
pub fn fill_at(dst: &mut [u8], offset: u64, id: TensorId, def: u32) {
    let base = word_base(id, def);
    let k = (offset % 8) as usize;
    let head = if k == 0 { 0 } else { (8 - k).min(dst.len()) };
    let (first, body) = dst.split_at_mut(head);
    if head > 0 {
        first.copy_from_slice(&(base | ((offset / 8) & 0xFFFF)).to_le_bytes()[k..k + head]);
    }
    let w0 = (offset + head as u64) / 8;
    let w_tail = w0 + (body.len() / 8) as u64;
    let (words, tail) = body.as_chunks_mut::<8>();
    // runs that do not cross the 16-bit wrap of the word index: e0, e0 + 1, ...
    let (mut at, mut w) = (0usize, w0);
    while at < words.len() {
        let n = (0x1_0000 - (w & 0xFFFF) as usize).min(words.len() - at);
        let e0 = base | (w & 0xFFFF);
        for (i, c) in words[at..at + n].iter_mut().enumerate() {
            *c = (e0 + i as u64).to_le_bytes();
        }
        at += n;
        w += n as u64;
    }
    let n = tail.len();
    if n > 0 {
        tail.copy_from_slice(&(base | (w_tail & 0xFFFF)).to_le_bytes()[..n]);
    }
}

/// Index into `found` of the first byte that differs from the fingerprint of the tensor's
/// bytes `[offset, offset + found.len())`, if any. Whole cache lines are compared at once
/// (eight xors or-ed together, one branch); only a line that differs is searched. O(len).
pub fn mismatch_at(found: &[u8], offset: u64, id: TensorId, def: u32) -> Option<usize> {
    let base = word_base(id, def);
    let k = (offset % 8) as usize;
    let head = if k == 0 { 0 } else { (8 - k).min(found.len()) };
    let (first, body) = found.split_at(head);
    let expect_head = (base | ((offset / 8) & 0xFFFF)).to_le_bytes();
    if let Some(b) = first.iter().zip(&expect_head[k..]).position(|(a, b)| a != b) {
        return Some(b);
    }
    let w0 = (offset + head as u64) / 8;
    let want = |w: u64| base | (w & 0xFFFF);
    let (words, _) = body.as_chunks::<8>();
    for (j, block) in words.chunks(WIDE / 8).enumerate() {
        let bw = w0 + (j * WIDE / 8) as u64;
        let mut diff = 0u64;
        if (bw & 0xFFFF) + block.len() as u64 <= 0x1_0000 {
            // no 16-bit wrap inside: the expected words are e0, e0 + 1, ...
            let e0 = want(bw);
            for (i, w) in block.iter().enumerate() {
                diff |= u64::from_le_bytes(*w) ^ (e0 + i as u64);
            }
        } else {
            for (i, w) in block.iter().enumerate() {
                diff |= u64::from_le_bytes(*w) ^ want(bw + i as u64);
            }
        }
        if diff != 0 {
            let at = j * WIDE;
            return first_diff(&body[at..at + block.len() * 8], bw, want).map(|b| head + at + b);
        }
    }
    let done = words.len() * 8;
    first_diff(&body[done..], w0 + words.len() as u64, want).map(|b| head + done + b)
}

/// First differing byte of `bytes` (starting at word `w0`) against `want(word)`.
fn first_diff(bytes: &[u8], w0: u64, want: impl Fn(u64) -> u64) -> Option<usize> {
    let mut words = bytes.chunks_exact(8);
    for (i, c) in (&mut words).enumerate() {
        let x = le_word(c) ^ want(w0 + i as u64);
        if x != 0 {
            return Some(i * 8 + (x.trailing_zeros() / 8) as usize);
        }
    }
    let tail = words.remainder();
    let at = bytes.len() - tail.len();
    let expect = want(w0 + (at / 8) as u64).to_le_bytes();
    tail.iter().zip(expect.iter()).position(|(a, b)| a != b).map(|b| at + b)
}

fn le_word(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(c);
    u64::from_le_bytes(b)
}

/// Fills `out` with the fingerprint of `bytes` bytes of `id` defined by `def` (a whole
/// tensor in one buffer; the executor writes into the arena with [`fill_at`] instead).
pub fn fill(out: &mut Vec<u8>, id: TensorId, def: u32, bytes: u64) {
    out.clear();
    out.resize(bytes as usize, 0);
    fill_at(out, 0, id, def);
}

/// Index of the first byte of `found` (a whole tensor) that differs from the fingerprint, if
/// any.
pub fn first_mismatch(found: &[u8], id: TensorId, def: u32) -> Option<usize> {
    mismatch_at(found, 0, id, def)
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

    /// The reference: the fingerprint byte by byte, straight from the word layout.
    fn byte(id: TensorId, def: u32, at: u64) -> u8 {
        word(id, def, at / 8).to_le_bytes()[(at % 8) as usize]
    }

    #[test]
    fn chunks_at_any_offset_equal_the_whole() {
        let id = TensorId::Shared(5);
        let len = 70_000u64;
        let whole: Vec<u8> = (0..len).map(|at| byte(id, 7, at)).collect();
        let mut buf = Vec::new();
        fill(&mut buf, id, 7, len);
        assert_eq!(buf, whole);
        for (start, n) in [(0usize, 1usize), (1, 7), (3, 8), (5, 64), (13, 200), (4093, 4099), (8, 0)] {
            let mut part = vec![0u8; n];
            fill_at(&mut part, start as u64, id, 7);
            assert_eq!(part, &whole[start..start + n], "fill_at({start}, {n})");
            assert_eq!(mismatch_at(&whole[start..start + n], start as u64, id, 7), None);
        }
    }

    #[test]
    fn word_index_wraps_at_16_bits() {
        let id = TensorId::Private { core: 0, location: 1 };
        let mut part = [0u8; 16];
        fill_at(&mut part, 65_535 * 8, id, 2);
        assert_eq!(u64::from_le_bytes(part[..8].try_into().unwrap()), word(id, 2, 65_535));
        assert_eq!(u64::from_le_bytes(part[8..].try_into().unwrap()) & 0xFFFF, 0);
    }

    #[test]
    fn runs_across_the_word_index_wrap_fill_and_check_exactly() {
        let id = TensorId::Shared(2);
        // 600 KiB from byte 12: words 65,534..65,537 straddle the wrap, inside a run
        let len = 600 * 1024;
        let mut buf = vec![0u8; len];
        fill_at(&mut buf, 12, id, 3);
        assert!(buf.iter().enumerate().all(|(i, &b)| b == byte(id, 3, 12 + i as u64)));
        assert_eq!(mismatch_at(&buf, 12, id, 3), None);
        let at = 65_536 * 8 - 12 + 5; // byte 5 of word 65,536 (low index 0 again)
        buf[at] ^= 1;
        assert_eq!(mismatch_at(&buf, 12, id, 3), Some(at));
    }

    #[test]
    fn every_flipped_byte_is_found_at_its_index() {
        let id = TensorId::Private { core: 1, location: 9 };
        let len = 300usize;
        for start in [0u64, 3, 8, 61] {
            let mut good = vec![0u8; len];
            fill_at(&mut good, start, id, 4);
            for at in 0..len {
                let mut bad = good.clone();
                bad[at] ^= 0x10;
                assert_eq!(mismatch_at(&bad, start, id, 4), Some(at), "start {start}, byte {at}");
                // a second, later difference does not hide the first
                if at + 9 < len {
                    bad[at + 9] ^= 1;
                    assert_eq!(mismatch_at(&bad, start, id, 4), Some(at));
                }
            }
            // another writer, another def, a shifted copy: all differ at the first word
            assert_eq!(mismatch_at(&good, start, TensorId::Shared(0), 4).map(|b| b < 8), Some(true));
            assert_eq!(mismatch_at(&good, start, id, 5).map(|b| b < 8), Some(true));
            assert!(mismatch_at(&good, start + 8, id, 4).is_some());
        }
    }
}
