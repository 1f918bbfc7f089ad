//! A planning problem in the minimalloc form, stored compactly, and the id index over it.
//! Uses: nothing else in the crate; used by: minimalloc_csv, solution_csv, quality, verify, cli.
//!
//! A [`Problem`] is a list of buffers `id, lower, upper, size` (`upper` exclusive), each
//! optionally fixed at an offset and optionally with its own offset alignment (MiniMalloc's
//! `offset` and `alignment` columns). A solution is the same list with every buffer at an
//! offset, so both are a `Problem`.
//!
//! **Memory.** One string arena holds every id (no `String` per buffer), one vector the
//! numbers: 24 bytes a buffer plus 8 for the end of its id plus the id's bytes. Fixed offsets,
//! alignments and line numbers cost 8 bytes a buffer each, and only when some buffer has one
//! (a file whose rows are not one per line). 10^6 buffers with 7-byte ids: about 39 MB.
//!
//! **Ids.** [`IdIndex`] finds a buffer by id in O(1): ids that are plain numbers below
//! [`DIRECT_IDS`] index a table of row numbers directly (4 bytes per number up to the largest
//! id); any other id goes to a `hashbrown` table of 4-byte row numbers, hashed with `foldhash`
//! (see the README for why these two), the ids themselves read from the arena, so it costs
//! about 5 bytes a buffer. The reader finds repeated ids in one batch ([`first_duplicate`]).

use std::hash::BuildHasher;

use foldhash::fast::RandomState;
use hashbrown::HashTable;

/// The numbers of one buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Row {
    /// First instant the buffer is live.
    pub lower: u64,
    /// One past the last live instant (exclusive).
    pub upper: u64,
    /// Size in bytes.
    pub size: u64,
}

/// One buffer as an owned value: the convenient form for building small problems.
///
/// ```
/// use dramalloc_sim::input::{Buffer, Problem};
/// let p: Problem = vec![Buffer { id: "a".into(), lower: 0, upper: 2, size: 8 }].into_iter().collect();
/// assert_eq!((p.len(), p.id(0), p.row(0).size), (1, "a", 8));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Buffer {
    /// Unique, non-empty id.
    pub id: String,
    /// First instant the buffer is live.
    pub lower: u64,
    /// One past the last live instant (exclusive; `upper > lower`).
    pub upper: u64,
    /// Size in bytes.
    pub size: u64,
}

/// One row of a solution: a buffer and the byte offset it was placed at.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SolutionRow {
    /// The buffer's id.
    pub id: String,
    /// First instant the buffer is live.
    pub lower: u64,
    /// One past the last live instant (exclusive).
    pub upper: u64,
    /// Size in bytes.
    pub size: u64,
    /// Start address in bytes.
    pub offset: u64,
}

/// The marker of a buffer without a fixed offset in [`Problem`]'s offset vector (no buffer of
/// at least one byte can start there).
const FREE: u64 = u64::MAX;

/// Buffers with ids in one arena; see the module docs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problem {
    /// Every id, one after the other.
    text: String,
    /// End of id `k` in `text`.
    ends: Vec<usize>,
    /// The numbers, one per buffer.
    rows: Vec<Row>,
    /// Fixed offsets ([`FREE`] for none); empty when no buffer is fixed.
    fixed: Vec<u64>,
    /// Own alignments (1 for none); empty when no buffer has one.
    alignments: Vec<u64>,
    /// The file line of each buffer; empty when buffer `k` is on line `first_line + k`.
    lines: Vec<u64>,
    /// File line of buffer 0 (0: the problem was not read from a file).
    first_line: u64,
    /// The alignment a solution file says it was planned with (its `align` column).
    align: Option<u64>,
    /// The upper column as the file spells it, when it is MiniMalloc's inclusive `end` (the
    /// rows hold `end + 1`); `None`: the exclusive `upper`.
    inclusive_end: Option<String>,
}

impl Problem {
    /// An empty problem with room for `buffers` buffers and `id_bytes` bytes of ids.
    pub fn with_capacity(buffers: usize, id_bytes: usize) -> Problem {
        Problem {
            text: String::with_capacity(id_bytes),
            ends: Vec::with_capacity(buffers),
            rows: Vec::with_capacity(buffers),
            ..Problem::default()
        }
    }

    /// Reserves room for `buffers` more buffers and `id_bytes` more bytes of ids.
    pub fn reserve(&mut self, buffers: usize, id_bytes: usize) {
        self.text.reserve(id_bytes);
        self.ends.reserve(buffers);
        self.rows.reserve(buffers);
    }

    /// Bytes of all ids together.
    pub fn id_bytes(&self) -> usize {
        self.text.len()
    }

    /// Appends a free buffer (nothing is checked); returns its index.
    pub fn push(&mut self, id: &str, row: Row) -> usize {
        self.text.push_str(id);
        self.ends.push(self.text.len());
        self.rows.push(row);
        if !self.fixed.is_empty() {
            self.fixed.push(FREE);
        }
        if !self.alignments.is_empty() {
            self.alignments.push(1);
        }
        if !self.lines.is_empty() {
            let next = self.lines.last().map_or(self.first_line, |l| l + 1);
            self.lines.push(next);
        }
        self.rows.len() - 1
    }

    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there is no buffer.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The id of buffer `k`.
    ///
    /// # Panics
    /// When `k >= self.len()`.
    pub fn id(&self, k: usize) -> &str {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.text[start..self.ends[k]]
    }

    /// The numbers of buffer `k`.
    ///
    /// # Panics
    /// When `k >= self.len()`.
    pub fn row(&self, k: usize) -> Row {
        self.rows[k]
    }

    /// Every buffer's numbers, in order.
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// `(id, numbers)` of every buffer, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, Row)> + '_ {
        (0..self.len()).map(|k| (self.id(k), self.rows[k]))
    }

    /// The fixed offset of buffer `k` (bytes), if it has one.
    pub fn fixed(&self, k: usize) -> Option<u64> {
        self.fixed.get(k).copied().filter(|&o| o != FREE)
    }

    /// Fixes buffer `k` at `offset` bytes, or frees it (`None`).
    ///
    /// # Panics
    /// When `k >= self.len()`, or `offset` is `Some(u64::MAX)` (no buffer starts there).
    pub fn set_fixed(&mut self, k: usize, offset: Option<u64>) {
        assert!(k < self.len() && offset != Some(FREE), "set_fixed({k}, {offset:?})");
        if self.fixed.is_empty() {
            if offset.is_none() {
                return;
            }
            self.fixed = vec![FREE; self.len()];
        }
        self.fixed[k] = offset.unwrap_or(FREE);
    }

    /// True when some buffer has a fixed offset.
    pub fn has_fixed(&self) -> bool {
        self.fixed.iter().any(|&o| o != FREE)
    }

    /// The own offset alignment of buffer `k`, bytes (1 when it has none).
    pub fn alignment(&self, k: usize) -> u64 {
        self.alignments.get(k).copied().unwrap_or(1)
    }

    /// Sets the own offset alignment of buffer `k` (bytes; 0 and 1 mean none).
    ///
    /// # Panics
    /// When `k >= self.len()`.
    pub fn set_alignment(&mut self, k: usize, align: u64) {
        assert!(k < self.len(), "set_alignment({k})");
        let align = align.max(1);
        if self.alignments.is_empty() {
            if align == 1 {
                return;
            }
            self.alignments = vec![1; self.len()];
        }
        self.alignments[k] = align;
    }

    /// True when some buffer has its own alignment above 1.
    pub fn has_alignments(&self) -> bool {
        self.alignments.iter().any(|&a| a > 1)
    }

    /// The file line of buffer `k` (1-based, the header is line 1), when the problem was read
    /// from a file.
    pub fn line(&self, k: usize) -> Option<u64> {
        if self.first_line == 0 {
            return None;
        }
        Some(self.lines.get(k).copied().unwrap_or(self.first_line + k as u64))
    }

    /// Records that buffer `k`, just pushed, was read from file line `line`.
    pub(crate) fn set_line(&mut self, k: usize, line: u64) {
        if k == 0 {
            self.first_line = line;
            return;
        }
        if self.lines.is_empty() {
            if line == self.first_line + k as u64 {
                return;
            }
            self.lines = (0..k as u64).map(|i| self.first_line + i).collect();
            self.lines.push(line);
            return;
        }
        self.lines[k] = line;
    }

    /// Appends every buffer of `other` (ids, numbers, fixed offsets, alignments), its file
    /// lines moved on by `line_offset`: `other` read from a later part of the same file, whose
    /// lines it numbered from the part's start. The result equals the problem read in one
    /// pass (the line vector stays empty while the lines run on one by one).
    pub(crate) fn append(&mut self, other: &Problem, line_offset: u64) {
        let (k0, n) = (self.len(), other.len());
        if n == 0 {
            return;
        }
        let base = self.text.len();
        self.text.push_str(&other.text);
        self.ends.extend(other.ends.iter().map(|&e| e + base));
        self.rows.extend_from_slice(&other.rows);
        append_sparse(&mut self.fixed, &other.fixed, k0, n, FREE);
        append_sparse(&mut self.alignments, &other.alignments, k0, n, 1);
        if other.first_line == 0 {
            return; // (not read from a file: no lines on either side)
        }
        let first = other.first_line + line_offset;
        if k0 == 0 {
            self.first_line = first;
        }
        let runs_on = self.lines.is_empty() && other.lines.is_empty() && first == self.first_line + k0 as u64;
        if runs_on {
            return;
        }
        if self.lines.is_empty() {
            self.lines = (0..k0 as u64).map(|i| self.first_line + i).collect();
        }
        self.lines.extend((0..n).map(|k| other.line(k).unwrap_or(0) + line_offset));
    }

    /// The alignment a solution file records (its `align` column, written by `dramalloc plan`).
    pub fn declared_align(&self) -> Option<u64> {
        self.align
    }

    /// Sets [`Problem::declared_align`].
    pub fn set_declared_align(&mut self, align: Option<u64>) {
        self.align = align;
    }

    /// The upper column as the file spells it (`End`, `end`) when the file gave MiniMalloc's
    /// inclusive `end`, whose rows hold `end + 1` as their `upper`; `None` for the exclusive
    /// `upper` (and a problem not read from a file). For messages that name the file's value.
    pub fn inclusive_end(&self) -> Option<&str> {
        self.inclusive_end.as_deref()
    }

    /// Sets [`Problem::inclusive_end`].
    pub fn set_inclusive_end(&mut self, column: Option<String>) {
        self.inclusive_end = column;
    }

    /// Every buffer as an owned [`Buffer`] (fixed offsets and alignments left out).
    pub fn to_buffers(&self) -> Vec<Buffer> {
        self.iter()
            .map(|(id, r)| Buffer { id: id.to_owned(), lower: r.lower, upper: r.upper, size: r.size })
            .collect()
    }

    /// Every buffer as an owned [`SolutionRow`], unfixed buffers at offset 0.
    pub fn to_solution_rows(&self) -> Vec<SolutionRow> {
        self.iter()
            .enumerate()
            .map(|(k, (id, r))| SolutionRow {
                id: id.to_owned(),
                lower: r.lower,
                upper: r.upper,
                size: r.size,
                offset: self.fixed(k).unwrap_or(0),
            })
            .collect()
    }

    /// This problem with buffer `k` fixed at `offsets[k]`: the solution those offsets give.
    ///
    /// # Panics
    /// When `offsets` is shorter than the problem.
    pub fn with_offsets(&self, offsets: &[u64]) -> Problem {
        let mut out = self.clone();
        out.fixed = offsets[..self.len()].to_vec();
        out
    }
}

/// Appends `other` (`n` entries, or none: every one `none`) to `mine` (`k0` entries, or none),
/// a vector of [`Problem`]'s that stays empty until some entry differs from `none`.
fn append_sparse(mine: &mut Vec<u64>, other: &[u64], k0: usize, n: usize, none: u64) {
    if other.is_empty() && mine.is_empty() {
        return;
    }
    if mine.is_empty() {
        mine.resize(k0, none);
    }
    if other.is_empty() {
        mine.resize(k0 + n, none);
    } else {
        mine.extend_from_slice(other);
    }
}

impl FromIterator<Buffer> for Problem {
    fn from_iter<I: IntoIterator<Item = Buffer>>(iter: I) -> Problem {
        let mut p = Problem::default();
        for b in iter {
            p.push(&b.id, Row { lower: b.lower, upper: b.upper, size: b.size });
        }
        p
    }
}

impl FromIterator<SolutionRow> for Problem {
    fn from_iter<I: IntoIterator<Item = SolutionRow>>(iter: I) -> Problem {
        let mut p = Problem::default();
        for r in iter {
            let k = p.push(&r.id, Row { lower: r.lower, upper: r.upper, size: r.size });
            p.set_fixed(k, (r.offset != FREE).then_some(r.offset));
        }
        p
    }
}

/// Ids below this that are written as plain decimal numbers (`0`, `17`, not `017`) are
/// found through [`IdIndex`]'s direct table; it grows to the largest such id seen, so it
/// costs at most 4 bytes × 2^22 = 16 MiB.
pub const DIRECT_IDS: u64 = 1 << 22;

/// The number an id (its bytes) is, when it is a plain decimal below [`DIRECT_IDS`]: at most
/// 7 digits, no leading zero but in `0` itself, read in one pass.
#[inline]
fn direct(b: &[u8]) -> Option<usize> {
    if b.is_empty() || b.len() > 7 || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    let mut n = 0u64;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u64::from(d);
    }
    (n < DIRECT_IDS).then_some(n as usize)
}

/// Finds buffers of one [`Problem`] by id; see the module docs. Numeric ids (the common case
/// of generated and compiler-made problems) go to a direct table indexed by the number, every
/// other id to a hash table.
#[derive(Debug, Clone, Default)]
pub struct IdIndex {
    /// Row + 1 of the buffer whose id is the index (0: none).
    numeric: Vec<u32>,
    table: HashTable<u32>,
    hasher: RandomState,
}

impl IdIndex {
    /// An empty index with room for `n` ids.
    pub fn with_capacity(n: usize) -> IdIndex {
        IdIndex { numeric: Vec::new(), table: HashTable::with_capacity(n), hasher: RandomState::default() }
    }

    /// Reserves room for `n` more ids of `problem`.
    pub fn reserve(&mut self, problem: &Problem, n: usize) {
        self.table.reserve(n, |&j| self.hasher.hash_one(problem.id(j as usize)));
    }

    /// Adds buffer `k` of `problem`; returns the earlier buffer with the same id instead, if
    /// there is one (then nothing is added). Expected O(1).
    ///
    /// # Panics
    /// When `k >= problem.len()` or `k >= u32::MAX`.
    pub fn insert(&mut self, problem: &Problem, k: usize) -> Option<usize> {
        let id = problem.id(k);
        let key = u32::try_from(k).ok().filter(|&k| k < u32::MAX).expect("fewer than 2^32 - 1 buffers");
        if let Some(n) = direct(id.as_bytes()) {
            if n >= self.numeric.len() {
                self.numeric.resize((n + 1).next_power_of_two().min(DIRECT_IDS as usize), 0);
            }
            return match self.numeric[n] {
                0 => {
                    self.numeric[n] = key + 1;
                    None
                }
                first => Some(first as usize - 1),
            };
        }
        let hash = self.hasher.hash_one(id);
        let entry = self.table.entry(
            hash,
            |&j| problem.id(j as usize) == id,
            |&j| self.hasher.hash_one(problem.id(j as usize)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => Some(*e.get() as usize),
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(key);
                None
            }
        }
    }

    /// The buffer of `problem` (the one this index was built over) whose id is `id`.
    pub fn get(&self, problem: &Problem, id: &str) -> Option<usize> {
        if let Some(n) = direct(id.as_bytes()) {
            return self.numeric.get(n).filter(|&&r| r > 0).map(|&r| r as usize - 1);
        }
        let hash = self.hasher.hash_one(id);
        self.table.find(hash, |&j| problem.id(j as usize) == id).map(|&j| j as usize)
    }
}

/// The first buffer (in problem order) whose id an earlier buffer already has: `(earlier,
/// later)`, the earlier being the first with that id. O(n log n) in a batch: plain numeric
/// ids are checked in a direct table, every other id by sorting `(hash, row)` pairs and
/// comparing the ids of equal hashes, which is two to three times faster than a hash table
/// for 10^6 ids (no random access per id).
pub fn first_duplicate(problem: &Problem) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut better = |first: usize, second: usize| {
        if best.is_none_or(|(_, s)| second < s) {
            best = Some((first, second));
        }
    };
    let mut numeric: Vec<u32> = Vec::new();
    let mut hashed: Vec<(u64, u32)> = Vec::new();
    let hasher = RandomState::default();
    // (each id's bytes sliced off the arena in turn: `Problem::id` per row was a fifth of
    // this function's instructions)
    let text = problem.text.as_bytes();
    let mut start = 0usize;
    for (k, &end) in problem.ends.iter().enumerate() {
        let bytes = &text[start..end];
        start = end;
        match direct(bytes) {
            Some(n) => {
                if n >= numeric.len() {
                    numeric.resize((n + 1).next_power_of_two().min(DIRECT_IDS as usize), 0);
                }
                match numeric[n] {
                    0 => numeric[n] = k as u32 + 1,
                    first => better(first as usize - 1, k),
                }
            }
            None => hashed.push((hasher.hash_one(bytes), k as u32)),
        }
    }
    hashed.sort_unstable();
    for group in hashed.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1) {
        for (j, &(_, later)) in group.iter().enumerate().skip(1) {
            let id = problem.id(later as usize);
            if let Some(&(_, first)) = group[..j].iter().find(|&&(_, e)| problem.id(e as usize) == id) {
                better(first as usize, later as usize);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(lower: u64) -> Row {
        Row { lower, upper: lower + 1, size: 1 }
    }

    /// A problem of one-byte buffers with these ids.
    fn of_ids(ids: &[&str]) -> Problem {
        ids.iter().map(|id| Buffer { id: (*id).into(), lower: 0, upper: 1, size: 1 }).collect()
    }

    #[test]
    fn ids_live_in_one_arena() {
        let mut p = Problem::with_capacity(3, 8);
        for id in ["a", "", "bcd"] {
            p.push(id, row(0));
        }
        assert_eq!((p.id(0), p.id(1), p.id(2)), ("a", "", "bcd"));
        assert_eq!(p.text, "abcd");
    }

    #[test]
    fn optional_columns_cost_nothing_until_used() {
        let mut p = Problem::default();
        p.push("a", row(0));
        p.set_fixed(0, None);
        p.set_alignment(0, 1);
        assert!(p.fixed.is_empty() && p.alignments.is_empty());
        p.push("b", row(1));
        p.set_fixed(1, Some(64));
        p.set_alignment(1, 32);
        p.push("c", row(2));
        assert_eq!((p.fixed(0), p.fixed(1), p.fixed(2)), (None, Some(64), None));
        assert_eq!((p.alignment(0), p.alignment(1), p.alignment(2)), (1, 32, 1));
    }

    #[test]
    fn lines_are_stored_only_when_irregular() {
        let mut p = Problem::default();
        for (k, line) in [2, 3, 5, 6].into_iter().enumerate() {
            p.push("x", row(k as u64));
            p.set_line(k, line);
        }
        assert_eq!(p.lines, vec![2, 3, 5, 6]);
        assert_eq!(p.line(3), Some(6));
        let mut q = Problem::default();
        for (k, line) in [2, 3, 4].into_iter().enumerate() {
            q.push("x", row(k as u64));
            q.set_line(k, line);
        }
        assert!(q.lines.is_empty());
        assert_eq!(q.line(2), Some(4));
        assert_eq!(Problem::default().line(0), None);
    }

    #[test]
    fn the_first_duplicate_in_problem_order_is_found() {
        let p = of_ids(&["x", "3", "y", "y", "3", "x"]);
        assert_eq!(first_duplicate(&p), Some((2, 3)));
        let q = of_ids(&["x", "3", "07", "7"]);
        assert_eq!(first_duplicate(&q), None);
    }

    /// Which ids go to the direct table, and as which number: plain decimals of at most 7
    /// digits below 2^22, `0` but no other leading zero.
    #[test]
    fn direct_ids_are_plain_decimals_below_the_table_size() {
        let cases = [
            ("0", Some(0)),
            ("7", Some(7)),
            ("1234567", Some(1_234_567)),
            ("4194303", Some(4_194_303)),
            ("4194304", None),
            ("9999999", None),
            ("12345678", None),
            ("", None),
            ("00", None),
            ("01", None),
            ("12a", None),
            ("1/", None),
            ("1:", None),
            ("-1", None),
            ("+1", None),
            (" 1", None),
        ];
        for (id, want) in cases {
            assert_eq!(direct(id.as_bytes()), want, "{id:?}");
        }
        // the batch check reads them the same way: "0" and "00" differ, "4194304" is hashed
        let p = of_ids(&["0", "00", "4194304", "1:", "0"]);
        assert_eq!(first_duplicate(&p), Some((0, 4)));
        let q = of_ids(&["4194304", "1/", "4194304"]);
        assert_eq!(first_duplicate(&q), Some((0, 2)));
    }

    #[test]
    fn index_finds_ids_and_reports_the_first_duplicate() {
        let p = of_ids(&["a", "7", "a", "07", "7", "4194304"]);
        let mut index = IdIndex::with_capacity(3);
        let found: Vec<_> = (0..p.len()).map(|k| index.insert(&p, k)).collect();
        assert_eq!(found, [None, None, Some(0), None, Some(1), None]);
        assert_eq!(index.numeric.len(), 8); // "7" is direct; "07" and 2^22 are hashed
        assert_eq!(
            (index.get(&p, "7"), index.get(&p, "07"), index.get(&p, "4194304")),
            (Some(1), Some(3), Some(5))
        );
        assert_eq!((index.get(&p, "c"), index.get(&p, "8"), index.get(&p, "99")), (None, None, None));
    }
}
