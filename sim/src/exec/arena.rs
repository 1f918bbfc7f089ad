//! HBM as byte arenas, committed lazily page by page.
//! Uses: nothing else in the crate; used by: executor.
//!
//! HBM as byte arenas, committed lazily: a sparse page table maps 4 KiB pages to memory on
//! first write, so a 16 GiB window costs only the pages written. Reads of a page never
//! written return zeros. [`SparseArena::fill_with`] and [`SparseArena::find_in`] hand a
//! caller one page's bytes at a time, so a tensor of any size is written and checked in
//! place, with no buffer as big as itself.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

/// Arena page size, bytes.
pub const ARENA_PAGE: u64 = 4096;

/// What a page never written reads as.
static ZERO_PAGE: [u8; ARENA_PAGE as usize] = [0; ARENA_PAGE as usize];

/// Hashes a page number by one multiply (Fibonacci hashing): page numbers are not chosen by
/// an adversary, and the default SipHash costs more than a page's bookkeeping should.
#[derive(Debug, Default, Clone, Copy)]
pub struct PageHasher(u64);

impl Hasher for PageHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Pages per slab of host memory (64 MiB): pages are handed out in first-touch order from
/// slabs, so a tensor's consecutive pages usually sit side by side in host memory too. A slab
/// is an anonymous mapping the kernel commits as it is touched (a slab costs only the pages
/// written), asked for transparent huge pages: one fault per 2 MiB instead of one per 4 KiB.
const SLAB_PAGES: usize = 16_384;

const PAGE: usize = ARENA_PAGE as usize;

/// Most slabs kept for reuse after their arena is dropped (1 GiB of address space; the
/// memory they hold is what the last runs touched).
const POOL_SLABS: usize = 16;

/// Slabs of dropped arenas, reused by the next ones (the fault campaign and the tests run
/// thousands of executions in one process): reusing them skips the kernel's zeroing and its
/// page faults.
static POOL: Mutex<Vec<Slab>> = Mutex::new(Vec::new());

/// Host memory for [`SLAB_PAGES`] pages.
#[derive(Debug)]
struct Slab {
    mem: SlabMemory,
    /// Reused: its pages hold an earlier arena's bytes, so a page committed without being
    /// written whole is zeroed first.
    dirty: bool,
}

#[derive(Debug)]
enum SlabMemory {
    /// An anonymous mapping (committed by the kernel on first touch, zeroed).
    Mapped(memmap2::MmapMut),
    /// Heap memory, where the mapping failed.
    Heap(Box<[u8]>),
}

impl Slab {
    fn new() -> Slab {
        if let Some(mut s) = POOL.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            s.dirty = true;
            return s;
        }
        let mem = match memmap2::MmapMut::map_anon(SLAB_PAGES * PAGE) {
            Ok(m) => {
                // Only a hint: without huge pages the kernel maps 4 KiB pages.
                #[cfg(target_os = "linux")]
                let _ = m.advise(memmap2::Advice::HugePage);
                SlabMemory::Mapped(m)
            }
            Err(_) => SlabMemory::Heap(vec![0u8; SLAB_PAGES * PAGE].into_boxed_slice()),
        };
        Slab { mem, dirty: false }
    }

    fn bytes(&self) -> &[u8] {
        match &self.mem {
            SlabMemory::Mapped(m) => m,
            SlabMemory::Heap(b) => b,
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.mem {
            SlabMemory::Mapped(m) => m,
            SlabMemory::Heap(b) => b,
        }
    }

    /// Zeroes page `i` of the slab if it may hold an earlier arena's bytes.
    fn clean(&mut self, i: usize) {
        if self.dirty {
            if let Some(p) = self.bytes_mut().get_mut(i * PAGE..(i + 1) * PAGE) {
                p.fill(0);
            }
        }
    }
}

/// A sparse byte arena over the whole `u64` address range.
#[derive(Debug, Default)]
pub struct SparseArena {
    /// Page number -> slot (page index into `slabs`).
    pages: HashMap<u64, u32, BuildHasherDefault<PageHasher>>,
    slabs: Vec<Slab>,
}

impl SparseArena {
    /// An empty arena (nothing committed).
    pub fn new() -> SparseArena {
        SparseArena::default()
    }

    /// The slot of `page` and whether this call committed it.
    fn slot_mut(&mut self, page: u64) -> (usize, bool) {
        let next = self.pages.len();
        let slot = *self.pages.entry(page).or_insert(next as u32) as usize;
        if slot / SLAB_PAGES >= self.slabs.len() {
            self.slabs.push(Slab::new());
        }
        (slot, slot == next)
    }

    /// The run of host bytes backing `[a, a + len)` from its first page on, as far as the
    /// following pages sit next to it in the same slab: `(slab, start, bytes)`, `bytes <= len`.
    /// The caller writes all of it; a page it commits that the run does not cover whole is
    /// zeroed first (it reads as zeros where it is not written).
    fn run_mut(&mut self, a: u64, len: u64) -> (usize, usize, usize) {
        let (page, off) = (a / ARENA_PAGE, (a % ARENA_PAGE) as usize);
        let (slot, fresh) = self.slot_mut(page);
        let mut n = ((PAGE - off) as u64).min(len) as usize;
        let mut next = slot + 1;
        let mut last_fresh = fresh;
        while (n as u64) < len && !next.is_multiple_of(SLAB_PAGES) {
            let (s, f) = self.slot_mut(page + (next - slot) as u64);
            if s != next {
                break;
            }
            last_fresh = f;
            n += ((n as u64 + PAGE as u64).min(len) - n as u64) as usize;
            next += 1;
        }
        let (slab, first) = (slot / SLAB_PAGES, slot % SLAB_PAGES);
        let end = off + n; // bytes from the start of the first page
        if let Some(sl) = self.slabs.get_mut(slab) {
            if fresh && (off != 0 || end < PAGE) {
                sl.clean(first);
            }
            let last = first + (end - 1) / PAGE;
            if last != first && last_fresh && !end.is_multiple_of(PAGE) {
                sl.clean(last);
            }
        }
        (slab, first * PAGE + off, n)
    }

    /// Like [`Self::run_mut`] without committing: `None` for a page never written.
    fn run(&self, a: u64, len: u64) -> (Option<(usize, usize)>, usize) {
        let (page, off) = (a / ARENA_PAGE, (a % ARENA_PAGE) as usize);
        let first = ((PAGE - off) as u64).min(len) as usize;
        let Some(&slot) = self.pages.get(&page) else { return (None, first) };
        let slot = slot as usize;
        let mut n = first;
        let mut next = slot + 1;
        while (n as u64) < len
            && !next.is_multiple_of(SLAB_PAGES)
            && self.pages.get(&(page + (next - slot) as u64)) == Some(&(next as u32))
        {
            n += ((n as u64 + PAGE as u64).min(len) - n as u64) as usize;
            next += 1;
        }
        (Some((slot / SLAB_PAGES, (slot % SLAB_PAGES) * PAGE + off)), n)
    }

    /// Writes `data` at byte address `addr`, committing pages on first touch. Bytes past
    /// `u64::MAX` are dropped.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        self.fill_with(addr, data.len() as u64, |bytes, done| {
            bytes.copy_from_slice(&data[done as usize..done as usize + bytes.len()]);
        });
    }

    /// Reads `out.len()` bytes at `addr` (zeros where nothing was written).
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        let len = out.len() as u64;
        out.fill(0);
        self.find_in(addr, len, |bytes, done| {
            out[done as usize..done as usize + bytes.len()].copy_from_slice(bytes);
            None
        });
    }

    /// Calls `f(bytes, done)` for each piece of `[addr, addr + len)` in address order —
    /// `bytes` the arena's own (committed on first touch; a piece is one page or a run of
    /// pages adjacent in host memory), `done` the bytes of the range before it; `f` writes
    /// them in place. Bytes past `u64::MAX` are dropped.
    pub fn fill_with(&mut self, addr: u64, len: u64, mut f: impl FnMut(&mut [u8], u64)) {
        let mut done = 0u64;
        while done < len {
            let Some(a) = addr.checked_add(done) else { return };
            let rest = len - done;
            // stop at the top of the address range
            let rest = rest.min((u64::MAX - a).saturating_add(1));
            let (slab, start, n) = self.run_mut(a, rest);
            if let Some(bytes) =
                self.slabs.get_mut(slab).and_then(|s| s.bytes_mut().get_mut(start..start + n))
            {
                f(bytes, done);
            }
            done += n as u64;
        }
    }

    /// Calls `f(bytes, done)` for each piece of `[addr, addr + len)` in address order (zeros
    /// for a page never written) until `f` returns `Some(i)`; returns the range offset
    /// `done + i` of that answer. Bytes past `u64::MAX` read as zeros.
    pub fn find_in(
        &self,
        addr: u64,
        len: u64,
        mut f: impl FnMut(&[u8], u64) -> Option<usize>,
    ) -> Option<u64> {
        let mut done = 0u64;
        while done < len {
            let rest = len - done;
            let (at, n) = match addr.checked_add(done) {
                Some(a) => self.run(a, rest.min((u64::MAX - a).saturating_add(1))),
                None => (None, rest.min(ARENA_PAGE) as usize),
            };
            let bytes = match at {
                Some((slab, start)) => {
                    self.slabs.get(slab).and_then(|s| s.bytes().get(start..start + n)).unwrap_or(&[])
                }
                None => ZERO_PAGE.get(..n.min(PAGE)).unwrap_or(&[]),
            };
            if bytes.is_empty() {
                return None;
            }
            if let Some(i) = f(bytes, done) {
                return Some(done + i as u64);
            }
            done += bytes.len() as u64;
        }
        None
    }

    /// Bytes committed (pages touched × 4096).
    pub fn committed_bytes(&self) -> u64 {
        self.pages.len() as u64 * ARENA_PAGE
    }
}

impl Drop for SparseArena {
    /// Hands the slabs to the next arenas (up to 16 are kept).
    fn drop(&mut self) {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let room = POOL_SLABS.saturating_sub(pool.len());
        pool.extend(self.slabs.drain(..).take(room));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_across_pages_read_back_and_commit_lazily() {
        let mut a = SparseArena::new();
        let data: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
        a.write(16 << 30, &data); // 16 GiB in: only 3 pages committed
        assert_eq!(a.committed_bytes(), 3 * 4096);
        let mut back = vec![0u8; 10_000];
        a.read(16 << 30, &mut back);
        assert_eq!(back, data);
        let mut z = [1u8; 8];
        a.read(0, &mut z);
        assert_eq!(z, [0; 8]);
        // the range's ends: address 0 and the last bytes below 2^64 (the rest is dropped)
        a.write(0, &[5, 6]);
        a.write(u64::MAX - 1, &[1, 2, 3, 4]);
        let mut top = [9u8; 4];
        a.read(u64::MAX - 1, &mut top);
        assert_eq!(top, [1, 2, 0, 0]);
        a.read(0, &mut z[..2]);
        assert_eq!(z[..2], [5, 6]);
    }

    #[test]
    fn a_reused_slab_reads_as_zeros_where_not_written() {
        // dirty every page of a slab, drop it into the pool, and commit pages partly
        for _ in 0..2 {
            let mut a = SparseArena::new();
            a.fill_with(0, 3 * ARENA_PAGE, |bytes, _| bytes.fill(0xEE));
        }
        let mut b = SparseArena::new();
        b.write(100, &[1, 2]); // first page: partly written
        b.fill_with(ARENA_PAGE - 8, 16, |bytes, _| bytes.fill(3)); // pages 0 and 1, page 1 partly
        let mut back = vec![9u8; 2 * ARENA_PAGE as usize];
        b.read(0, &mut back);
        assert_eq!(&back[100..102], &[1, 2]);
        assert!(back[..100].iter().chain(&back[102..4088]).all(|&x| x == 0));
        assert!(back[4088..4104].iter().all(|&x| x == 3));
        assert!(back[4104..].iter().all(|&x| x == 0));
    }

    #[test]
    fn fill_with_and_find_in_walk_pages_in_order() {
        let mut a = SparseArena::new();
        let addr = (1 << 20) + 4000; // 96 bytes before a page boundary
        a.fill_with(addr, 5000, |bytes, done| {
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = ((done + i as u64) % 251) as u8;
            }
        });
        assert_eq!(a.committed_bytes(), 3 * 4096);
        let mut back = vec![0u8; 5000];
        a.read(addr, &mut back);
        assert!(back.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        let mut pieces = Vec::new();
        let bad = a.find_in(addr, 5000, |bytes, done| {
            pieces.push((done, bytes.len()));
            bytes.iter().enumerate().position(|(i, &b)| b != ((done + i as u64) % 251) as u8)
        });
        assert_eq!(bad, None);
        // three pages committed in order sit side by side: one piece
        assert_eq!(pieces, [(0, 5000)]);
        // the middle page committed first: its neighbours are not next to it in host memory
        let mut b = SparseArena::new();
        b.write(addr + 96, &[7]);
        let mut pieces = Vec::new();
        b.fill_with(addr, 5000, |bytes, done| pieces.push((done, bytes.len())));
        assert_eq!(pieces, [(0, 96), (96, 4096), (4192, 808)]);
        assert_eq!(b.committed_bytes(), 3 * 4096);
        // never-written memory reads as zeros; the answer is a range offset
        assert_eq!(a.find_in(1 << 40, 10_000, |_, done| (done == 8192).then_some(3)), Some(8195));
        assert_eq!(a.find_in(1 << 40, 10_000, |bytes, _| bytes.iter().position(|&b| b != 0)), None);
    }
}
