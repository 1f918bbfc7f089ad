//! The block index of a sorted interval tree: per block of [`BLOCK`] consecutive nodes, the
//! first node's start and the block's largest end, with a static search tree over the starts,
//! in storage lent by the caller; and the overlap query that runs through it.
//! Uses: interval_tree (Node, PICK_BUFFER), window_scan (visit_positions), error; used by: interval_tree, planner (index_words), sim (host_storage).
//!
//! A sorted [`IntervalTree`](super::interval_tree::IntervalTree) answers a query `[lo, hi]`
//! from the first node that can reach `lo` (it starts at or after `key = lo - max_len`).
//! Without an index that node is found in the 24-byte node array itself, where every probe of
//! a large tree is a cache miss, and every node that starts before `lo` is then read to test
//! its end. The index keeps, 8 bytes for 8 nodes (192 bytes):
//!
//! * `first[b]`, the start of block `b`'s first node, and above it search levels, each holding
//!   every [`FANOUT`]-th key of the level below (a static B+-tree of 64-byte nodes): the search
//!   for `key` counts, level by level from the top, the keys below it in one run of 16, so it
//!   reads one line per level, the upper levels hot in cache, and touches the node array first
//!   where the answers are;
//! * `max[b]`, the largest end in block `b`: in a window of more than [`NEAR_BLOCKS`] blocks
//!   before `lo` (a few long intervals stretching `max_len`), a block whose `max < lo` holds no
//!   overlap and is skipped unread, and the lines of the blocks that may are all requested
//!   before the first is scanned.
//!
//! A short window is read node by node from the block's first node up to the first node that
//! starts after `hi`, eight nodes at a time, with no branch per node.
//!
//! The answers and their order are those of the query without the index (ascending node
//! index; tested against a brute-force scan); only the nodes read change. Sources: the static
//! search tree over a sorted array ("S-tree", a B+-tree laid out level by level, as in
//! Algorithmica's "Static B-Trees"), and the max augmentation of the seed's tree (section "The
//! IntervalTree") applied per block instead of per subtree.
//!
//! Complexity: build O(n); query `ceil(log16(n / 8))` line reads of the index, then the nodes
//! of the window (at most [`NEAR_BLOCKS`] blocks), or, past that, one summary per block of the
//! window and the nodes of the blocks that hold an overlap; then the nodes that start in
//! `[lo, hi]`.

use super::interval_tree::{Node, PICK_BUFFER};
use super::window_scan::visit_positions;
use crate::error::{PlanError, Store};

/// Nodes summarised by one block entry: 8 nodes are 192 bytes, three cache lines.
pub const BLOCK: usize = 8;

/// Keys per node of the search levels: 16 `u32`, one 64-byte line, counted without a branch.
pub const FANOUT: usize = 16;

/// Most search levels above the block starts: `16^7` entries of the top level cover
/// `2^28 * 8 > 2^32` nodes, more than a `u32` payload can name.
pub const LEVELS: usize = 8;

/// A query whose window before `lo` spans at most this many blocks reads it node by node
/// (fewest instructions); a longer one goes block by block through the summaries.
pub const NEAR_BLOCKS: usize = 4;

/// Entries of each search level for `blocks` blocks, bottom (over the block starts) first;
/// 0 past the top (the first level with at most [`FANOUT`] entries).
const fn level_lens(blocks: usize) -> [usize; LEVELS] {
    let mut lens = [0usize; LEVELS];
    let (mut len, mut k) = (blocks, 0);
    while k < LEVELS && len > FANOUT {
        len = len.div_ceil(FANOUT);
        lens[k] = len;
        k += 1;
    }
    lens
}

/// The `u32` words of index storage a tree of `n` nodes needs: two per block of [`BLOCK`]
/// nodes, plus the search levels (one word per 16 entries of the level below, about 1/15 of
/// the block count).
///
/// # Example
/// ```
/// use dramalloc_core::liveness::block_index::index_words;
/// assert_eq!(index_words(0), 0);
/// assert_eq!(index_words(8), 2); // one block, no level above it
/// assert_eq!(index_words(1_000_000), 258_335); // about 1 MB for a million intervals
/// ```
pub const fn index_words(n: usize) -> usize {
    let blocks = n.div_ceil(BLOCK);
    let lens = level_lens(blocks);
    let (mut words, mut k) = (2 * blocks, 0);
    while k < LEVELS {
        words += lens[k];
        k += 1;
    }
    words
}

/// The block summaries and the search levels of a sorted node array, in storage lent by the
/// caller (see the module doc). Built by [`BlockIndex::build`]; read by the tree's queries.
#[derive(Debug)]
pub struct BlockIndex<'a> {
    /// Start (instruction index) of each block's first node, non-decreasing.
    first: &'a [u32],
    /// Largest end (instruction index) in each block.
    max: &'a [u32],
    /// Search levels: `levels[0][j] = first[16 j]`, `levels[k][j] = levels[k - 1][16 j]`.
    levels: [&'a [u32]; LEVELS],
    /// Levels in use (the top one has at most [`FANOUT`] entries).
    depth: usize,
}

impl<'a> BlockIndex<'a> {
    /// Summarises `nodes` (sorted by `lo`) into the first [`index_words`]`(nodes.len())` words
    /// of `storage`. O(n).
    ///
    /// # Errors
    /// [`PlanError::Capacity`] (store [`Store::Index`]) when `storage` holds fewer words than
    /// [`index_words`]`(nodes.len())`.
    pub fn build(nodes: &[Node], storage: &'a mut [u32]) -> Result<BlockIndex<'a>, PlanError> {
        let (needed, capacity) = (index_words(nodes.len()), storage.len());
        let words =
            storage.get_mut(..needed).ok_or(PlanError::Capacity { store: Store::Index, needed, capacity })?;
        let blocks = nodes.len().div_ceil(BLOCK);
        let (first, rest) = words.split_at_mut(blocks);
        let (max, mut rest) = rest.split_at_mut(blocks);
        for ((chunk, f), m) in nodes.chunks(BLOCK).zip(first.iter_mut()).zip(max.iter_mut()) {
            *f = chunk.first().map_or(0, |n| n.lo);
            *m = chunk.iter().map(|n| n.hi).max().unwrap_or(0);
        }
        let first: &'a [u32] = first;
        let mut levels: [&'a [u32]; LEVELS] = [&[]; LEVELS];
        let (mut below, mut depth) = (first, 0);
        for (slot, len) in levels.iter_mut().zip(level_lens(blocks)).take_while(|&(_, len)| len > 0) {
            let (level, next) = core::mem::take(&mut rest).split_at_mut(len);
            for (key, run) in level.iter_mut().zip(below.chunks(FANOUT)) {
                *key = run.first().copied().unwrap_or(0);
            }
            rest = next;
            *slot = level;
            below = *slot;
            depth += 1;
        }
        Ok(BlockIndex { first, max, levels, depth })
    }

    /// Number of blocks summarised.
    pub fn blocks(&self) -> usize {
        self.first.len()
    }

    /// True when this index summarises exactly `nodes` (sorted by `lo`): the block count fits,
    /// every block's summary equals the block's, and every search level holds every 16th key
    /// of the level below. O(n); used by the tree's invariant checker.
    pub fn matches(&self, nodes: &[Node]) -> bool {
        let lens = level_lens(nodes.len().div_ceil(BLOCK));
        let summaries = self.first.len() == nodes.len().div_ceil(BLOCK)
            && self.max.len() == self.first.len()
            && nodes.chunks(BLOCK).zip(self.first).zip(self.max).all(|((chunk, &f), &m)| {
                chunk.first().map(|n| n.lo) == Some(f) && chunk.iter().map(|n| n.hi).max() == Some(m)
            });
        let mut below = self.first;
        summaries
            && self.levels.iter().zip(lens).enumerate().all(|(k, (level, len))| {
                let ok = level.len() == len
                    && (k < self.depth) == (len > 0)
                    && level.iter().zip(below.chunks(FANOUT)).all(|(&key, run)| run.first() == Some(&key));
                below = level;
                ok
            })
    }

    /// The number of blocks whose first node starts before `key` (equal to
    /// `first.partition_point(|&s| s < key)`): from the top level down, the keys below `key`
    /// are counted in the one run of [`FANOUT`] that can hold the boundary, which names the run
    /// to count in the level below.
    #[inline(always)]
    fn blocks_before(&self, key: u32) -> usize {
        let mut pos = 0usize;
        for level in self.levels.get(..self.depth).unwrap_or(&[]).iter().rev() {
            // keys before `pos` are below `key`; keys past `pos + FANOUT` are not
            let below = pos + count_below(level.get(pos..).unwrap_or(&[]), key);
            let Some(last) = below.checked_sub(1) else { return 0 };
            pos = last * FANOUT;
        }
        pos + count_below(self.first.get(pos..).unwrap_or(&[]), key)
    }

    /// Calls `visit` for every node of `nodes` (the array this index summarises) whose closed
    /// interval overlaps `[lo, hi]`, in ascending index. `max_len` is the longest interval
    /// (`max(hi - lo)` over the nodes): no node that starts before `lo - max_len` reaches `lo`.
    #[inline]
    pub(super) fn for_each_overlap(
        &self,
        nodes: &[Node],
        max_len: u32,
        lo: u32,
        hi: u32,
        visit: &mut impl FnMut(&Node),
    ) {
        // Blocks before the last one that starts before `lo - max_len` hold only nodes that
        // start before it, and so end before `lo`.
        let b = self.blocks_before(lo.saturating_sub(max_len)).saturating_sub(1);
        if self.first.get(b + NEAR_BLOCKS).is_some_and(|&f| f < lo) {
            let end = self.far_blocks(nodes, b, lo, hi, visit);
            // every node from block `end` on starts at or after `lo`: it overlaps iff it
            // starts by `hi`
            for n in nodes.get(end * BLOCK..).unwrap_or(&[]) {
                if read(1) && n.lo > hi {
                    return;
                }
                visit(n);
            }
        } else {
            near_run(nodes, b * BLOCK, lo, hi, visit);
        }
    }

    /// The blocks of a long window from block `b` on, while they start before `lo`: only
    /// those whose largest end reaches `lo` can hold an overlap. Their positions are picked
    /// without a branch, a buffer at a time; every picked block's lines are requested before
    /// the first is scanned (the loads do not depend on each other, so the misses overlap
    /// instead of following one another block by block); then their overlaps are visited in
    /// order. Returns the first block that starts at or after `lo` (or the block count).
    #[inline(always)]
    fn far_blocks(
        &self,
        nodes: &[Node],
        mut b: usize,
        lo: u32,
        hi: u32,
        visit: &mut impl FnMut(&Node),
    ) -> usize {
        let mut picked = [0u32; PICK_BUFFER];
        loop {
            let mut count = 0usize;
            while count < PICK_BUFFER {
                let (Some(&first), Some(&max)) = (self.first.get(b), self.max.get(b)) else { break };
                if first >= lo {
                    break;
                }
                picked[count] = b as u32;
                count += usize::from(max >= lo);
                b += 1;
            }
            let picked = picked.get(..count).unwrap_or(&picked);
            let mut touched = 0u32;
            for &p in picked {
                let start = p as usize * BLOCK;
                for j in (0..BLOCK).step_by(2) {
                    touched ^= nodes.get(start + j).map_or(0, |n| n.hi);
                }
            }
            core::hint::black_box(touched);
            for &p in picked {
                let start = p as usize * BLOCK;
                let block = nodes.get(start..nodes.len().min(start + BLOCK)).unwrap_or(&[]);
                scan_block(block, lo, hi, visit);
            }
            if self.first.get(b).is_none_or(|&first| first >= lo) {
                return b;
            }
        }
    }
}

/// How many of the first [`FANOUT`] keys of `keys` are below `key` (sorted keys: the count is
/// the boundary's position in the run). No branch: 16 compares summed; a whole run is a fold
/// over a fixed array, which the compiler turns into vector compares (cachegrind, the
/// uniform law of `benches/interval_tree.rs`: 179 fewer instructions a query than summing
/// over a slice of unknown length, 2026-12-07).
#[inline(always)]
fn count_below(keys: &[u32], key: u32) -> usize {
    match keys.first_chunk::<FANOUT>() {
        Some(run) => run.iter().fold(0u32, |c, &s| c + u32::from(s < key)) as usize,
        None => keys.iter().map(|&s| usize::from(s < key)).sum(),
    }
}

/// Nodes a short window reads per exit test.
const RUN_CHUNK: usize = 8;

/// Visits, in order, every node from `start` on that overlaps `[lo, hi]`, up to the first
/// chunk of [`RUN_CHUNK`] nodes whose last node starts after `hi` (every node past it does
/// too). Every position is written and the cursor advances past the overlapping ones only, so
/// the unpredictable overlap test costs no misprediction; the positions are visited a buffer
/// at a time. Whole chunks are fixed arrays, their loops unrolled (104 fewer instructions a
/// query on the uniform law than chunks of a slice's length, 2026-12-07).
#[inline(always)]
fn near_run(nodes: &[Node], start: usize, lo: u32, hi: u32, visit: &mut impl FnMut(&Node)) {
    let mut picked = [0u32; PICK_BUFFER];
    let mut count = 0usize;
    let mut j = start;
    let rest = loop {
        let rest = nodes.get(j..).unwrap_or(&[]);
        let Some(chunk) = rest.first_chunk::<RUN_CHUNK>() else { break rest };
        read(RUN_CHUNK);
        for (k, n) in chunk.iter().enumerate() {
            picked[count % PICK_BUFFER] = (j + k) as u32;
            count += usize::from(n.overlaps(lo, hi));
        }
        if count > PICK_BUFFER - RUN_CHUNK {
            visit_positions(nodes, picked.get(..count).unwrap_or(&picked), visit);
            count = 0;
        }
        if chunk[RUN_CHUNK - 1].lo > hi {
            break &[];
        }
        j += RUN_CHUNK;
    };
    // the array's last nodes, fewer than a chunk
    read(rest.len());
    for (k, n) in rest.iter().enumerate() {
        picked[count % PICK_BUFFER] = (j + k) as u32;
        count += usize::from(n.overlaps(lo, hi));
    }
    visit_positions(nodes, picked.get(..count).unwrap_or(&picked), visit);
}

/// Visits the nodes of `block` (at most [`BLOCK`]) that overlap `[lo, hi]`, in order, with no
/// branch per node (as the tree's slice scan, with an 8-entry pick buffer: reusing the
/// tree's 64-entry one measured 6–10 % slower on both bench laws, 2026-12-03).
#[inline(always)]
fn scan_block(block: &[Node], lo: u32, hi: u32, visit: &mut impl FnMut(&Node)) {
    match block.first_chunk::<BLOCK>() {
        // a whole block: a loop of constant length, unrolled
        Some(full) => pick_and_visit(full, lo, hi, visit),
        None => pick_and_visit(block, lo, hi, visit),
    }
}

/// [`scan_block`]'s body over at most [`BLOCK`] nodes.
#[inline(always)]
fn pick_and_visit(block: &[Node], lo: u32, hi: u32, visit: &mut impl FnMut(&Node)) {
    let mut picked = [0u8; BLOCK];
    let mut count = 0usize;
    read(block.len().min(BLOCK));
    for (j, n) in block.iter().take(BLOCK).enumerate() {
        picked[count % BLOCK] = j as u8;
        count += usize::from(n.overlaps(lo, hi));
    }
    for &j in picked.get(..count).unwrap_or(&picked) {
        if let Some(n) = block.get(usize::from(j)) {
            visit(n);
        }
    }
}

/// Counts `k` node reads of a query in the liveness tests' per-thread read counter (unit tests
/// only; the line requests of the far path are not counted). Always true, so it can sit in a condition.
#[inline(always)]
fn read(_k: usize) -> bool {
    #[cfg(test)]
    super::sorted_search::probe_count::add(_k);
    true
}

#[cfg(test)]
#[path = "block_index_tests.rs"]
mod tests;
