//! The address-ordered list of placed buffers the scan walks: a long sorted run and a short
//! sorted insert buffer, merged on the fly.
//! Uses: workspace (Placed); used by: scan.
//!
//! The scan ([`crate::place::scan`]) walks the placed buffers in address order for every
//! candidate and then inserts the candidate. One sorted array makes each insert a block
//! move of everything above it: about n²/4 entries moved for n buffers (on a 57,000-buffer
//! graph, 28 % of a greedy pass in `perf`). Here an insert goes into a short sorted buffer of
//! `S` entries (a move of at most `S`), which is merged into the long run, from the back, in
//! one pass when it is full: O(S + n/S) moved per insert, about `2·sqrt(2n)` for
//! `S = sqrt(2n)`. The walk merges the two runs, so it yields exactly the order of the single
//! sorted array (ties by `(addr, end)`, then the long run first), and the plans do not change.
//!
//! Storage: the caller's slice of at least n entries. The long run grows from the front; the
//! buffer is the last `S` entries, used only while the long run cannot reach it (long run +
//! buffer ≤ n − S), which leaves at least `S` inserts at the end that go straight into the
//! long run (a move of up to n each, about `S·n` in all, small against n²/4).

use crate::workspace::Placed;

/// Sort key of a placed entry (the order of the single sorted array it replaces).
#[inline]
fn key(p: &Placed) -> (u64, u64) {
    (p.addr, p.end)
}

/// The placed buffers of a scan in address order, over a caller's slice.
#[derive(Debug)]
pub struct PlacedList<'a> {
    slots: &'a mut [Placed],
    /// Entries of the long run, `slots[..long]`.
    long: usize,
    /// Entries of the insert buffer, `slots[base..base + short]`.
    short: usize,
    /// First slot of the insert buffer: `slots.len() - cap`.
    base: usize,
    /// Capacity of the insert buffer (0: every insert goes into the long run).
    cap: usize,
}

impl<'a> PlacedList<'a> {
    /// An empty list over `slots` (room for `slots.len()` entries in all), with an insert
    /// buffer of about `sqrt(2 · slots.len())` entries (none below 64 slots).
    ///
    /// ```
    /// use dramalloc_core::place::placed_list::PlacedList;
    /// use dramalloc_core::workspace::Placed;
    /// let mut slots = [Placed::default(); 100];
    /// let mut list = PlacedList::new(&mut slots);
    /// for a in [30u64, 10, 20] {
    ///     list.insert(Placed { lo: 0, hi: 1, addr: a, end: a + 5 });
    /// }
    /// let addrs: Vec<u64> = list.iter().map(|p| p.addr).collect();
    /// assert_eq!((addrs, list.len()), (vec![10, 20, 30], 3));
    /// ```
    pub fn new(slots: &'a mut [Placed]) -> PlacedList<'a> {
        let n = slots.len();
        let cap = if n < 64 { 0 } else { isqrt(2 * n as u64) as usize };
        PlacedList { base: n - cap, slots, long: 0, short: 0, cap }
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.long + self.short
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Inserts `p` in `(addr, end)` order (after equal keys).
    ///
    /// # Panics
    /// When the list already holds `slots.len()` entries.
    pub fn insert(&mut self, p: Placed) {
        assert!(self.len() < self.slots.len(), "placed list full");
        if self.cap > 0 && self.long + self.short < self.base - self.cap {
            if self.short == self.cap {
                self.flush();
            }
            let run = &mut self.slots[self.base..self.base + self.short + 1];
            let at = run[..self.short].partition_point(|q| key(q) <= key(&p));
            run.copy_within(at..self.short, at + 1);
            run[at] = p;
            self.short += 1;
        } else {
            self.flush();
            let at = self.slots[..self.long].partition_point(|q| key(q) <= key(&p));
            self.slots.copy_within(at..self.long, at + 1);
            self.slots[at] = p;
            self.long += 1;
        }
    }

    /// Merges the insert buffer into the long run, from the back (the two never overlap:
    /// long run + buffer ≤ `base` whenever the buffer holds anything).
    pub fn flush(&mut self) {
        if self.short == 0 {
            return;
        }
        let (front, back) = self.slots.split_at_mut(self.base);
        let short = &back[..self.short];
        let (mut i, mut j, mut w) = (self.long, self.short, self.long + self.short);
        while j > 0 {
            // the buffer's entry goes after the long run's equal keys
            if i > 0 && key(&front[i - 1]) > key(&short[j - 1]) {
                front[w - 1] = front[i - 1];
                i -= 1;
            } else {
                front[w - 1] = short[j - 1];
                j -= 1;
            }
            w -= 1;
        }
        self.long += self.short;
        self.short = 0;
    }

    /// The entries in `(addr, end)` order.
    pub fn iter(&self) -> impl Iterator<Item = &Placed> + '_ {
        self.segments().flatten()
    }

    /// The entries in `(addr, end)` order as consecutive slices: stretches of the long run
    /// between the insert buffer's entries, each of those alone. Walking the slices costs
    /// what a walk of one sorted array costs, plus O(S log(n / S)) to find the stretches
    /// (a galloping search per buffer entry).
    pub fn segments(&self) -> Segments<'_> {
        Segments { long: &self.slots[..self.long], short: &self.slots[self.base..self.base + self.short] }
    }
}

/// The slices of [`PlacedList::segments`].
#[derive(Debug, Clone)]
pub struct Segments<'a> {
    long: &'a [Placed],
    short: &'a [Placed],
}

impl<'a> Iterator for Segments<'a> {
    type Item = &'a [Placed];

    #[inline]
    fn next(&mut self) -> Option<&'a [Placed]> {
        let Some(b) = self.short.first() else {
            // the rest of the long run (once), then nothing
            return (!self.long.is_empty()).then(|| core::mem::take(&mut self.long));
        };
        // the long run's entries up to `b` (equal keys first): a galloping search
        let k = gallop(self.long, |q| key(q) <= key(b));
        if k > 0 {
            let (seg, rest) = self.long.split_at(k);
            self.long = rest;
            return Some(seg);
        }
        let (seg, rest) = self.short.split_at(1);
        self.short = rest;
        Some(seg)
    }
}

/// The number of leading entries of `run` for which `before` holds (`before` true on a
/// prefix): doubling steps, then a binary search in the last step; O(log k).
#[inline]
fn gallop(run: &[Placed], before: impl Fn(&Placed) -> bool) -> usize {
    let mut hi = 1usize;
    while hi <= run.len() && before(&run[hi - 1]) {
        hi *= 2;
    }
    let lo = hi / 2; // run[..lo] all before
    let end = hi.min(run.len() + 1) - 1; // run[end] (if any) not before, or past the end
    lo + run[lo..end].partition_point(before)
}

/// The integer square root (floor).
fn isqrt(x: u64) -> u64 {
    let mut r = 0u64;
    let mut bit = 1u64 << 62;
    let mut x = x;
    while bit != 0 {
        if x >= r + bit {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(addr: u64, end: u64) -> Placed {
        Placed { lo: 0, hi: 0, addr, end }
    }

    /// The galloping search counts exactly the entries before the key (it is not only a
    /// cut the segments would tolerate: a shorter prefix still walks in order).
    #[test]
    fn gallop_counts_the_prefix() {
        let mut run = [Placed::default(); 40];
        for (k, p) in run.iter_mut().enumerate() {
            *p = at(k as u64 / 2, k as u64 / 2 + 1); // two entries per address
        }
        for len in [0usize, 1, 2, 3, 7, 8, 9, 40] {
            for t in 0..=21u64 {
                let want = run[..len].partition_point(|q| q.addr < t);
                assert_eq!(gallop(&run[..len], |q| q.addr < t), want, "len {len} key {t}");
            }
        }
    }

    #[test]
    fn isqrt_is_the_floor() {
        for x in [0u64, 1, 2, 3, 4, 15, 16, 17, 99, 100, 1 << 40, u64::MAX] {
            let r = isqrt(x);
            assert!(r * r <= x && (r + 1).checked_mul(r + 1).is_none_or(|s| s > x), "{x}");
        }
    }

    /// A pseudo-random insert sequence keeps the order a single sorted array would (ties
    /// after equal keys, the long run's first), across flushes and the tail.
    #[test]
    fn same_order_as_one_sorted_array() {
        const MAX: usize = 1000;
        for n in [1usize, 63, 64, 65, 200, MAX] {
            let mut slots = [Placed::default(); MAX];
            let mut list = PlacedList::new(&mut slots[..n]);
            let mut reference = [Placed::default(); MAX];
            let mut x = 0x2545_F491_4F6C_DD1Du64;
            for k in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // few distinct addresses, so equal keys are common; lo tells entries apart
                let p = Placed { lo: k as u32, hi: 0, addr: x % 17, end: x % 17 + (x >> 60) };
                list.insert(p);
                let at = reference[..k].partition_point(|q| key(q) <= key(&p));
                reference.copy_within(at..k, at + 1);
                reference[at] = p;
                if k % 37 == 0 || k + 1 == n {
                    assert!(list.iter().eq(reference[..=k].iter()), "n {n} after {k}");
                }
            }
            assert_eq!(list.len(), n);
        }
    }

    #[test]
    fn buffer_is_used_and_flushed() {
        let mut slots = [Placed::default(); 200];
        {
            let mut list = PlacedList::new(&mut slots);
            assert_eq!((list.cap, list.base, list.is_empty()), (20, 180, true));
            list.insert(at(101, 102));
            assert_eq!((list.long, list.short, list.is_empty()), (0, 1, false));
            list.flush();
            assert_eq!((list.long, list.short, list.is_empty()), (1, 0, false));
        }
        let mut list = PlacedList::new(&mut slots);
        for a in 0..25u64 {
            list.insert(at(100 - a, 101 - a));
        }
        // 20 filled the buffer, the 21st flushed it
        assert_eq!((list.long, list.short), (20, 5));
        list.flush();
        assert_eq!((list.long, list.short), (25, 0));
        assert!(list.iter().map(|p| p.addr).eq(76..=100));
    }

    #[test]
    fn tail_inserts_go_to_the_long_run() {
        let mut slots = [Placed::default(); 100];
        let mut list = PlacedList::new(&mut slots);
        assert_eq!((list.cap, list.base), (14, 86));
        for a in 0..72u64 {
            list.insert(at(a, a + 1));
        }
        assert_eq!(list.len(), 72); // long + short = 72 = base - cap: the buffer is closed
        list.insert(at(1000, 1001));
        assert_eq!((list.long, list.short), (73, 0));
        for a in 0..27u64 {
            list.insert(at(500 + a, 501 + a));
        }
        assert_eq!(list.len(), 100);
        let mut last = 0;
        for p in list.iter() {
            assert!(p.addr >= last);
            last = p.addr;
        }
        assert_eq!(list.iter().count(), 100);
    }

    #[test]
    #[should_panic(expected = "placed list full")]
    fn insert_past_capacity_panics() {
        let mut slots = [Placed::default(); 2];
        let mut list = PlacedList::new(&mut slots);
        list.insert(at(0, 1));
        list.insert(at(1, 2));
        list.insert(at(2, 3));
    }
}
