//! HBM as byte arenas, committed lazily page by page.
//! Uses: nothing else in the crate; used by: executor.
//!
//! HBM as byte arenas, committed lazily: a sparse page table maps 4 KiB pages to memory on
//! first write, so a 16 GiB window costs only the pages written. Reads of a page never
//! written return zeros.

use std::collections::HashMap;

/// Arena page size, bytes.
pub const ARENA_PAGE: u64 = 4096;

/// A sparse byte arena over the whole `u64` address range.
#[derive(Debug, Default)]
pub struct SparseArena {
    pages: HashMap<u64, Box<[u8]>>,
}

impl SparseArena {
    /// An empty arena (nothing committed).
    pub fn new() -> SparseArena {
        SparseArena::default()
    }

    /// Writes `data` at byte address `addr`, committing pages on first touch. Bytes past
    /// `u64::MAX` are dropped.
    pub fn write(&mut self, addr: u64, data: &[u8]) {
        let mut done = 0usize;
        while done < data.len() {
            let Some(a) = addr.checked_add(done as u64) else { return };
            let (page, off) = (a / ARENA_PAGE, (a % ARENA_PAGE) as usize);
            let n = (ARENA_PAGE as usize - off).min(data.len() - done);
            let p =
                self.pages.entry(page).or_insert_with(|| vec![0u8; ARENA_PAGE as usize].into_boxed_slice());
            p[off..off + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }

    /// Reads `out.len()` bytes at `addr` (zeros where nothing was written).
    pub fn read(&self, addr: u64, out: &mut [u8]) {
        let mut done = 0usize;
        while done < out.len() {
            let Some(a) = addr.checked_add(done as u64) else {
                out[done..].fill(0);
                return;
            };
            let (page, off) = (a / ARENA_PAGE, (a % ARENA_PAGE) as usize);
            let n = (ARENA_PAGE as usize - off).min(out.len() - done);
            match self.pages.get(&page) {
                Some(p) => out[done..done + n].copy_from_slice(&p[off..off + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
        }
    }

    /// Bytes committed (pages touched × 4096).
    pub fn committed_bytes(&self) -> u64 {
        self.pages.len() as u64 * ARENA_PAGE
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
    }
}
