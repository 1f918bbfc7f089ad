//! The skyline's queue of re-keyed buffers: a small binary min-heap of the keys up to a
//! limit and an unordered run of the rest, refilled from the run by a sampled limit.
//! Uses: workspace (Placed); used by: skyline.
//!
//! The skyline pops the buffer with the lowest (minimum offset, rank) and, where its minimum
//! offset rose since it was keyed, pushes it back with the new one. A new key is usually
//! above most of the waiting ones (the skyline only rises, and the buffers waiting were keyed
//! lower), so in one binary heap of every waiting buffer a re-key sank to the bottom: about
//! 16 levels a re-key on 10^6 buffers, most of them cache misses. Here such a key is
//! appended to the run in O(1); only the keys up to the limit are in the heap, and when the
//! heap is empty a limit taken from a sample of the run moves about a sixteenth of the run
//! into it (one sequential pass over the run). The pops come in exactly the order of one
//! heap, so the plans are the same.

use crate::workspace::Placed;

/// How many of the run's keys [`Waiting::refill`] samples for its limit.
const SAMPLE: usize = 64;

/// Which sampled key (in ascending order) becomes the limit: about `1 / 16` of the run moves
/// into the heap at a refill.
const SAMPLE_RANK: usize = SAMPLE / 16;

/// Whether entry `a` comes before `b`: (minimum offset `addr`, rank `hi`).
#[inline]
fn before(a: &Placed, b: &Placed) -> bool {
    (a.addr, a.hi) < (b.addr, b.hi)
}

/// The entries waiting, in `store[..near + far]`: a binary min-heap `[0, near)` of every
/// entry whose `addr` is at most `limit`, then an unordered run `[near, near + far)` of the
/// others. Keys are (`addr`, `hi`), compared as [`before`] says; two entries with the same
/// key pop in an unspecified order (the skyline's ranks make its keys distinct). The default
/// has no entry waiting.
#[derive(Debug, Default)]
pub(super) struct Waiting {
    near: usize,
    far: usize,
    limit: u64,
}

impl Waiting {
    /// Entries waiting.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.near + self.far
    }

    /// Adds `e`. O(1) where its `addr` is above the limit, else O(log heap).
    ///
    /// # Panics
    /// Where `store` has no room past the waiting entries (`store.len() <= self.len()`).
    pub(super) fn push(&mut self, store: &mut [Placed], e: Placed) {
        let end = self.near + self.far;
        if e.addr > self.limit {
            store[end] = e;
            self.far += 1;
            return;
        }
        // the heap grows by one: the run's first entry moves to the run's end
        store[end] = store[self.near];
        store[self.near] = e;
        self.near += 1;
        sift_up(store, self.near - 1);
    }

    /// Removes and returns the entry with the smallest key, `None` when none waits.
    /// O(log heap), and a refill's O(run) when the heap is empty.
    pub(super) fn pop(&mut self, store: &mut [Placed]) -> Option<Placed> {
        if self.near == 0 {
            if self.far == 0 {
                return None;
            }
            self.refill(store);
        }
        let top = store[0];
        self.near -= 1;
        store[0] = store[self.near];
        sift(store, 0, self.near);
        // the run's last entry closes the gap the heap left
        store[self.near] = store[self.near + self.far];
        Some(top)
    }

    /// With the heap empty: a new limit, the key of rank [`SAMPLE_RANK`] among [`SAMPLE`]
    /// entries of the run spaced evenly, and every entry of the run up to it moved into the
    /// heap (at least the sampled one).
    fn refill(&mut self, store: &mut [Placed]) {
        let run = &mut store[..self.far];
        let mut sample = [0u64; SAMPLE];
        let mut k = 0;
        for e in run.iter().step_by(run.len().div_ceil(SAMPLE)) {
            sample[k] = e.addr;
            k += 1;
        }
        sample[..k].sort_unstable();
        self.limit = sample[k * SAMPLE_RANK / SAMPLE];
        let mut m = 0;
        for i in 0..run.len() {
            if run[i].addr <= self.limit {
                run.swap(i, m);
                m += 1;
            }
        }
        (self.near, self.far) = (m, self.far - m);
        for i in (0..m / 2).rev() {
            sift(store, i, m);
        }
    }
}

/// Sifts `heap[x]` down within the min-heap `heap[..len]`. O(log len).
fn sift(heap: &mut [Placed], mut x: usize, len: usize) {
    if x >= len {
        return;
    }
    let item = heap[x];
    loop {
        let l = 2 * x + 1;
        if l >= len {
            break;
        }
        let c = if l + 1 < len && before(&heap[l + 1], &heap[l]) { l + 1 } else { l };
        if !before(&heap[c], &item) {
            break;
        }
        heap[x] = heap[c];
        x = c;
    }
    heap[x] = item;
}

/// Restores the min-heap `heap[..=x]` after `heap[x]` was added. O(log x).
fn sift_up(heap: &mut [Placed], mut x: usize) {
    let item = heap[x];
    while x > 0 {
        let p = (x - 1) / 2;
        if !before(&item, &heap[p]) {
            break;
        }
        heap[x] = heap[p];
        x = p;
    }
    heap[x] = item;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry with the smallest key among `live`, removed (the reference queue: a scan).
    fn take_min(live: &mut [Placed], len: &mut usize) -> Placed {
        let mut b = 0;
        for k in 1..*len {
            if before(&live[k], &live[b]) {
                b = k;
            }
        }
        let e = live[b];
        *len -= 1;
        live[b] = live[*len];
        e
    }

    /// Random pushes and pops (keys rising as the skyline's do, or anywhere), against a scan
    /// for the minimum: the same entries in the same order, across many refills.
    #[test]
    fn pops_in_key_order_across_refills() {
        const N: usize = 3000;
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut refills, mut heap_pushes) = (0, 0);
        for case in 0..24 {
            let rising = case % 2 == 0;
            let spread = [4u64, 1000, 1 << 40][case % 3];
            let mut store = [Placed::default(); N];
            let mut live = [Placed::default(); N];
            let (mut q, mut len, mut rank, mut floor) = (Waiting::default(), 0usize, 0u32, 0u64);
            for step in 0..4 * N {
                let push = len < N && (len == 0 || next() % 8 < if step < 2 * N { 5 } else { 2 });
                if push {
                    let addr = if rising { floor + next() % spread } else { next() % spread };
                    let e = Placed { lo: step as u32, hi: rank, addr, end: 0 };
                    rank += 1;
                    heap_pushes += usize::from(addr <= q.limit && q.len() > 0);
                    q.push(&mut store, e);
                    live[len] = e;
                    len += 1;
                } else if len > 0 {
                    refills += usize::from(q.near == 0);
                    let got = q.pop(&mut store).unwrap();
                    let want = take_min(&mut live, &mut len);
                    assert_eq!(got, want, "case {case}, step {step}");
                    floor = got.addr;
                }
                assert_eq!(q.len(), len, "case {case}, step {step}");
            }
            while len > 0 {
                assert_eq!(q.pop(&mut store).unwrap(), take_min(&mut live, &mut len), "case {case}");
            }
            assert_eq!(q.pop(&mut store), None);
        }
        assert!(refills > 1000 && heap_pushes > 1000, "{refills} refills, {heap_pushes} heap pushes");
    }

    /// A refill moves the entries up to the sampled limit, and no fewer than one.
    #[test]
    fn a_refill_moves_the_keys_up_to_the_limit() {
        let mut store = [Placed::default(); 256];
        let mut q = Waiting::default();
        for (k, addr) in (0..256u64).rev().enumerate() {
            q.push(&mut store, Placed { lo: 0, hi: k as u32, addr: 1 + addr, end: 0 });
        }
        assert_eq!((q.near, q.far), (0, 256));
        assert_eq!(q.pop(&mut store).map(|e| e.addr), Some(1));
        // 64 sampled of 256 (every 4th: 256, 252, ..., 4), the 5th smallest is 20
        assert_eq!((q.limit, q.near, q.far), (20, 19, 236));
        // one equal key: the heap alone
        let mut q = Waiting::default();
        for k in 0..3 {
            q.push(&mut store, Placed { lo: 0, hi: k, addr: 7, end: 0 });
        }
        assert_eq!(q.pop(&mut store).map(|e| e.hi), Some(0));
        assert_eq!((q.limit, q.near, q.far), (7, 2, 0));
    }
}
