//! The allocated map: a chained hash table from a block's address to its slot.
//! Uses: block_table; used by: mod.rs, invariants.

use super::block_table::NONE;
use super::FreeList;

/// Fibonacci hashing multiplier (2^64 / golden ratio) of the allocated map.
const HASH_MULTIPLIER: u64 = 0x9E37_79B9_7F4A_7C15;

/// The allocated map.
impl<const BLOCKS: usize> FreeList<BLOCKS> {
    pub(super) fn bucket(addr: u64) -> usize {
        // Multiply-shift range reduction of the top 32 bits of a Fibonacci hash: BLOCKS <
        // 2^32, so the product fits in u64 and the result is always < BLOCKS.
        (((addr.wrapping_mul(HASH_MULTIPLIER) >> 32) * BLOCKS as u64) >> 32) as usize
    }

    pub(super) fn map_insert(&mut self, slot: u32) {
        let h = Self::bucket(self.b(slot).addr);
        let first = self.buckets.get(h).copied().unwrap_or(NONE);
        self.m(slot).left = first;
        if let Some(e) = self.buckets.get_mut(h) {
            *e = slot;
        }
    }

    /// The allocated block starting at relative `rel`.
    pub(super) fn map_find(&self, rel: u64) -> Option<u32> {
        let mut i = self.buckets.get(Self::bucket(rel)).copied().unwrap_or(NONE);
        while i != NONE {
            let b = self.b(i);
            if b.addr == rel {
                return Some(i);
            }
            i = b.left;
        }
        None
    }

    /// Removes the allocated block starting at relative `rel` from the map and returns it.
    pub(super) fn map_take(&mut self, rel: u64) -> Option<u32> {
        let h = Self::bucket(rel);
        let mut prev = NONE;
        let mut i = self.buckets.get(h).copied().unwrap_or(NONE);
        while i != NONE {
            let b = *self.b(i);
            if b.addr == rel {
                if prev == NONE {
                    if let Some(e) = self.buckets.get_mut(h) {
                        *e = b.left;
                    }
                } else {
                    self.m(prev).left = b.left;
                }
                self.m(i).left = NONE;
                return Some(i);
            }
            prev = i;
            i = b.left;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::FreeList;

    /// The bucket of consecutive aligned addresses (the allocated blocks of a bank are
    /// multiples of its alignment) spreads over the table: 1,024 addresses `k * 4096` over
    /// 1,024 buckets fill exactly 663 buckets, none with more than 2 (a uniform random hash
    /// would fill about 647 with chains up to 5 or 6; a constant bucket fills 1), and every
    /// bucket index is in range.
    #[test]
    fn consecutive_aligned_addresses_spread_over_the_buckets() {
        let mut chain = [0u32; 1024];
        for k in 0..1024u64 {
            let b = FreeList::<1024>::bucket(k * 4096);
            assert!(b < 1024, "bucket {b} of address {}", k * 4096);
            chain[b] += 1;
        }
        let used = chain.iter().filter(|&&c| c > 0).count();
        let longest = chain.iter().copied().max().unwrap_or(0);
        assert_eq!((used, longest), (663, 2), "{used} buckets used, longest chain {longest}");
        // a table of one bucket takes everything in bucket 0
        assert_eq!((FreeList::<1>::bucket(0), FreeList::<1>::bucket(u64::MAX)), (0, 0));
    }
}
