//! Counting the pairs of buffers live together (E), which the cost estimates and the memory
//! caps of the front end ask for before anything is planned.
//! Uses: input; used by: problem.rs (`solve_limited`), settle.rs, time_split.rs.

use crate::input::Problem;

/// Pairs of buffers whose lifetimes overlap (each pair once). Where the instructions span at
/// most [`COUNT_SPAN_PER_BUFFER`] times the buffers, in one pass over a table of starts per
/// instruction, O(n + T) for T instructions: a pair with different starts overlaps when the
/// later one starts before the earlier one's `upper`, and buffers with the same start always
/// overlap (every lifetime holds its start). Otherwise (or where some lifetime is empty), for
/// each buffer in order of `lower`, the later ones that start before its `upper`:
/// O(n log n). Both use `n` words of memory.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::live_pairs::overlapping_pairs;
/// let mut p = Problem::default();
/// for (id, lower, upper) in [("a", 0, 2), ("b", 1, 3), ("c", 2, 4)] {
///     p.push(id, Row { lower, upper, size: 1 });
/// }
/// // [0,2) and [1,3) overlap; [2,4) overlaps [1,3) only (upper is exclusive)
/// assert_eq!(overlapping_pairs(&p), 2);
/// ```
pub fn overlapping_pairs(problem: &Problem) -> u64 {
    overlapping_pairs_of(problem.rows().iter().map(|b| (b.lower, b.upper)))
}

/// [`overlapping_pairs`] of the lifetimes `[lower, upper)` that `spans` yields (read twice or
/// three times: `time_split`'s sections, which are not held as problems).
///
/// ```
/// use dramalloc_sim::quality::live_pairs::overlapping_pairs_of;
/// assert_eq!(overlapping_pairs_of([(0, 2), (1, 3), (2, 4)].into_iter()), 2);
/// ```
pub fn overlapping_pairs_of(spans: impl Iterator<Item = (u64, u64)> + Clone) -> u64 {
    let (n, span, ordered) = spans.clone().fold((0u64, 0u64, true), |(n, span, ok), (lower, upper)| {
        (n + 1, span.max(upper.max(lower)), ok && upper > lower)
    });
    let counted = span <= n.saturating_mul(COUNT_SPAN_PER_BUFFER).max(1 << 16);
    if counted && ordered {
        return pairs_by_count(spans, span as usize);
    }
    let mut spans: Vec<(u64, u64)> = spans.collect();
    spans.sort_unstable();
    spans
        .iter()
        .enumerate()
        .map(|(i, &(_, upper))| (spans.partition_point(|s| s.0 < upper).saturating_sub(i + 1)) as u64)
        .sum()
}

/// Largest span of instructions per buffer [`overlapping_pairs`] counts with a table (one
/// `u32` an instruction) instead of sorting.
pub const COUNT_SPAN_PER_BUFFER: u64 = 4;

/// [`overlapping_pairs`] with a table of `span + 1` prefix counts of starts (every `lower` and
/// `upper` at most `span`; every `upper` above its `lower`, as a read problem's are).
fn pairs_by_count(spans: impl Iterator<Item = (u64, u64)> + Clone, span: usize) -> u64 {
    let mut starts = vec![0u32; span + 1];
    for (lower, _) in spans.clone() {
        starts[lower as usize] += 1;
    }
    // buffers starting together: every pair of them
    let same: u64 = starts.iter().map(|&c| c as u64 * (c as u64).saturating_sub(1) / 2).sum();
    // prefix: starts[t] = buffers starting at or before t
    let mut run = 0u32;
    for c in starts.iter_mut() {
        run += *c;
        *c = run;
    }
    // each buffer, with the later-starting ones that start before its upper
    let later: u64 =
        spans.map(|(lower, upper)| (starts[upper as usize - 1] - starts[lower as usize]) as u64).sum();
    same + later
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;

    fn brute(rows: &[(u64, u64)]) -> u64 {
        let mut e = 0;
        for (i, a) in rows.iter().enumerate() {
            for b in &rows[i + 1..] {
                e += u64::from(a.0 < b.1 && b.0 < a.1);
            }
        }
        e
    }

    fn problem(rows: &[(u64, u64)], shift: u64) -> Problem {
        let mut p = Problem::default();
        for (k, &(lower, upper)) in rows.iter().enumerate() {
            p.push(&k.to_string(), Row { lower: lower + shift, upper: upper + shift, size: 1 });
        }
        p
    }

    #[test]
    fn the_table_count_and_the_sorted_count_agree_with_every_pair() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for case in 0..50 {
            let n = 1 + next(60) as usize;
            let rows: Vec<(u64, u64)> = (0..n)
                .map(|_| {
                    let lower = next(40 + case);
                    (lower, lower + 1 + next(12))
                })
                .collect();
            let want = brute(&rows);
            // within the table's span, then shifted far past it (the sorted count)
            assert_eq!(overlapping_pairs(&problem(&rows, 0)), want, "case {case}");
            assert_eq!(overlapping_pairs(&problem(&rows, 1 << 20)), want, "case {case} shifted");
        }
        // three starting together (3 pairs), one inside all three (3), one starting where
        // the longest ends (upper is exclusive: 0)
        let rows = [(0, 4), (0, 2), (0, 9), (1, 3), (9, 10)];
        assert_eq!(overlapping_pairs(&problem(&rows, 0)), 6);
        assert_eq!(overlapping_pairs(&problem(&rows, 1 << 20)), 6);
    }
}
