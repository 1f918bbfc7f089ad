//! Which rows each time section of a split problem holds: its own rows and the crossing rows
//! live in it, listed once, in problem order.
//! Uses: input; used by: time_split.rs.
//!
//! A section's rows are read three or four times (counted, their pairs counted, handed to the
//! planner, their offsets put back). Read by filtering all `n` rows each time, K sections cost
//! O(K n) per read (at 10^6 rows and two sections, about 30 ms a section before its planner
//! started); listed once here they cost O(n + crossing reach) in all, 4 bytes a row, and each
//! read is O(rows of the section).

use crate::input::Problem;

/// The rows of every section, by index into the problem, and which of them cross a cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionRows {
    /// Per section, its rows in problem order.
    lists: Vec<Vec<u32>>,
    /// The crossing rows, ascending (the order of their pinned offsets).
    crossing: Vec<u32>,
    /// One bit a row: set where it crosses a cut.
    crosses: Vec<u64>,
}

impl SectionRows {
    /// Lists the rows of `problem` (at most `u32::MAX + 1` of them) into the sections cut at
    /// `cuts` (ascending instants; section `s` holds the instants from cut `s - 1` up to
    /// before cut `s`): a row belongs to the section of its `lower` where it ends at or
    /// before the next cut (`upper` exclusive), else it *crosses* and is listed in every
    /// section it is live in. Two passes over the rows, O(n log K).
    ///
    /// ```
    /// use dramalloc_sim::input::{Problem, Row};
    /// use dramalloc_sim::quality::section_rows::SectionRows;
    /// let mut p = Problem::default();
    /// for (lower, upper) in [(0, 2), (1, 6), (4, 5), (5, 9), (2, 4)] {
    ///     p.push(&lower.to_string(), Row { lower, upper, size: 8 });
    /// }
    /// let rows = SectionRows::new(&p, &[4]);
    /// assert_eq!(rows.crossing(), &[1]); // [1, 6) is live at 4
    /// let of = |s| rows.rows(s).collect::<Vec<_>>();
    /// assert_eq!(of(0), vec![(0, None), (1, Some(0)), (4, None)]);
    /// assert_eq!(of(1), vec![(1, Some(0)), (2, None), (3, None)]);
    /// assert_eq!(rows.len(1), 3);
    /// ```
    pub fn new(problem: &Problem, cuts: &[u64]) -> SectionRows {
        let n = problem.len();
        let k = cuts.len() + 1;
        let section_of = |t: u64| cuts.partition_point(|&c| c <= t);
        // the sections a row is live in: from its start's to its last instant's
        let reach = |i: usize| {
            let r = problem.row(i);
            (section_of(r.lower), section_of(r.upper.max(r.lower + 1) - 1))
        };
        let mut counts = vec![0usize; k];
        let mut crossing = Vec::new();
        let mut crosses = vec![0u64; n.div_ceil(64)];
        for i in 0..n {
            let (first, last) = reach(i);
            if last > first {
                crossing.push(i as u32);
                crosses[i / 64] |= 1 << (i % 64);
            }
            for c in &mut counts[first..=last] {
                *c += 1;
            }
        }
        let mut lists: Vec<Vec<u32>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
        for i in 0..n {
            let (first, last) = reach(i);
            for list in &mut lists[first..=last] {
                list.push(i as u32);
            }
        }
        SectionRows { lists, crossing, crosses }
    }

    /// The rows crossing a cut, ascending: the problem the split plans first, whose offsets
    /// [`SectionRows::rows`] takes in this order.
    pub fn crossing(&self) -> &[u32] {
        &self.crossing
    }

    /// Rows section `s` holds, crossing ones included.
    pub fn len(&self, s: usize) -> usize {
        self.lists[s].len()
    }

    /// Whether section `s` holds no row.
    pub fn is_empty(&self, s: usize) -> bool {
        self.lists[s].is_empty()
    }

    /// Whether row `i` crosses a cut.
    pub fn crosses(&self, i: usize) -> bool {
        self.crosses[i / 64] >> (i % 64) & 1 == 1
    }

    /// The rows of section `s` in problem order, each with its index in the crossing rows
    /// where it crosses a cut (`None` for a row of its own).
    pub fn rows(&self, s: usize) -> impl Iterator<Item = (usize, Option<usize>)> + Clone + '_ {
        self.lists[s].iter().map(move |&i| {
            let i = i as usize;
            let at = self.crosses(i).then(|| self.crossing.partition_point(|&c| (c as usize) < i));
            (i, at)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::SectionRows;
    use crate::quality::generate::Shape;

    /// Each section lists exactly the rows the split's first version filtered out of all the
    /// rows for it, in problem order: those starting in it and ending before its next cut,
    /// and those live across a cut and live in it; the crossing ones with their place in the
    /// crossing list. 5,000 `long-tail` rows (lifetimes up to 2,000 instants), cut in 2 to 9
    /// sections evenly, so a row crosses up to 3 cuts (4 sections).
    #[test]
    fn each_section_lists_the_rows_the_filter_would_give() {
        let p = Shape::LongTail.generate(5_000, 3);
        let end = p.rows().iter().map(|r| r.upper).max().unwrap();
        let mut most_reached = 0;
        for k in 2..10u64 {
            let cuts: Vec<u64> = (1..k).map(|c| end * c / k).collect();
            let rows = SectionRows::new(&p, &cuts);
            let section_of = |t: u64| cuts.partition_point(|&c| c <= t);
            let crosses =
                |i: usize| cuts.get(section_of(p.row(i).lower)).is_some_and(|&c| c < p.row(i).upper);
            let crossing: Vec<u32> = (0..p.len()).filter(|&i| crosses(i)).map(|i| i as u32).collect();
            assert_eq!(rows.crossing(), &crossing[..], "{k} sections");
            for s in 0..k as usize {
                let (from, to) =
                    (if s == 0 { 0 } else { cuts[s - 1] }, cuts.get(s).copied().unwrap_or(u64::MAX));
                let want: Vec<(usize, Option<usize>)> = (0..p.len())
                    .filter_map(|i| {
                        let r = p.row(i);
                        if crosses(i) {
                            let at = crossing.iter().position(|&c| c as usize == i);
                            (r.lower < to && r.upper > from).then_some((i, at))
                        } else {
                            (section_of(r.lower) == s).then_some((i, None))
                        }
                    })
                    .collect();
                assert_eq!(rows.rows(s).collect::<Vec<_>>(), want, "section {s} of {k}");
                assert_eq!((rows.len(s), rows.is_empty(s)), (want.len(), want.is_empty()));
            }
            for &i in rows.crossing() {
                let reached = (0..k as usize).filter(|&s| rows.rows(s).any(|(j, _)| j == i as usize)).count();
                most_reached = most_reached.max(reached);
            }
        }
        assert_eq!(most_reached, 4);
    }
}
