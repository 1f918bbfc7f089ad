//! The second way to honour per-buffer alignments: one common plan alignment for every buffer.
//! Uses: input; used by: problem.rs (`solve_limited`), cli/plan.rs (the report's note).
//!
//! The core honours a buffer's own alignment `a` above the plan's `align` by padding the
//! buffer's footprint by `lcm(align, a) - align` bytes and moving it up inside that padding
//! after placement (`dramalloc_core::liveness::buffers`). Its members plan, and judge each
//! other, on the padded sizes, so a plan can sit at the padded sizes' lower bound while the
//! real sizes allow far less (two overlapping 4 KiB buffers aligned to 4 KiB in a plan aligned
//! to 1 byte are padded to 8,191 bytes each: 12 KiB, where 8 KiB is possible).
//!
//! The other way is a plan aligned to the least common multiple `M` of the plan's alignment
//! and every buffer's own: every offset is then a multiple of every buffer's alignment, and no
//! footprint is padded beyond `align_up(size, M)`. Neither way is better on every input (the
//! common one rounds every buffer up to `M`), so `solve_limited` makes both where the first
//! is above its lower bound, and keeps the lower peak.

use crate::input::Problem;

/// The plan alignment `M = lcm(align, every buffer's own alignment)`, bytes, when some buffer
/// asks for more than `align` (else `None`: nothing is padded). `None` too when the least
/// common multiple overflows `u64`. `align` 0 counts as 1.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::common_alignment::common_alignment;
/// let mut p = Problem::default();
/// p.push("a", Row { lower: 0, upper: 2, size: 100 });
/// p.push("b", Row { lower: 1, upper: 3, size: 100 });
/// assert_eq!(common_alignment(&p, 64), None);
/// p.set_alignment(0, 256);
/// p.set_alignment(1, 48);
/// assert_eq!(common_alignment(&p, 64), Some(768));
/// ```
pub fn common_alignment(problem: &Problem, align: u64) -> Option<u64> {
    let align = align.max(1);
    let mut m = align;
    for k in 0..problem.len() {
        m = lcm(m, problem.alignment(k))?;
    }
    (m > align).then_some(m)
}

/// Whether some buffer's own alignment asks for more than `align` (its `lcm(align, alignment)`
/// is above `align`, or overflows `u64`), so the core pads it; `align` 0 counts as 1. True
/// also where [`common_alignment`] is `None` for overflowing.
///
/// ```
/// use dramalloc_sim::input::{Problem, Row};
/// use dramalloc_sim::quality::common_alignment::{common_alignment, pads};
/// let mut p = Problem::default();
/// p.push("a", Row { lower: 0, upper: 2, size: 100 });
/// p.set_alignment(0, 64);
/// assert!(!pads(&p, 4096) && pads(&p, 48));
/// for (k, prime) in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53].into_iter().enumerate() {
///     p.push(&k.to_string(), Row { lower: 0, upper: 2, size: 100 });
///     p.set_alignment(k + 1, prime);
/// }
/// // 4096 times the primes 3 to 53 overflows u64: no common alignment, padded all the same
/// assert_eq!((common_alignment(&p, 4096), pads(&p, 4096)), (None, true));
/// ```
pub fn pads(problem: &Problem, align: u64) -> bool {
    let align = align.max(1);
    (0..problem.len()).any(|k| lcm(align, problem.alignment(k)).is_none_or(|m| m > align))
}

/// The offset alignment of a buffer with its own `alignment` in a plan aligned to `align`:
/// `lcm(align, alignment)`, or `u64::MAX` where that is past `u64`, as 0 is then the only
/// multiple of both below 2^64 (the first multiple of `u64::MAX` above 0 fits no buffer).
pub(crate) fn offset_alignment(align: u64, alignment: u64) -> u64 {
    lcm(align, alignment).unwrap_or(u64::MAX)
}

/// `lcm(a, b)` for `a >= 1` (`b` 0 counts as 1), `None` on overflow.
pub(crate) fn lcm(a: u64, b: u64) -> Option<u64> {
    let b = b.max(1);
    (a / gcd(a, b)).checked_mul(b)
}

/// Greatest common divisor (Euclid).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// How a problem with per-buffer alignments was planned both ways ([`common_alignment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BothWays {
    /// The common plan alignment `M`, bytes.
    pub common_align: u64,
    /// The peak (HWM, bytes) of the plan with each buffer padded to its own alignment, settled.
    pub padded_hwm: u64,
    /// The peak (HWM, bytes) of the plan at the common alignment, settled; `None` when that plan
    /// failed (a fixed offset that is not a multiple of `M`, the capacity) or was not made
    /// (the clock had stopped).
    pub common_hwm: Option<u64>,
    /// Whether the plans were settled down ([`crate::quality::settle`]); false where more
    /// pairs of buffers live together than the settle lists
    /// ([`SETTLE_MAX_PAIRS`](crate::quality::problem::SETTLE_MAX_PAIRS)).
    pub settled: bool,
}

impl BothWays {
    /// True when the plan at the common alignment was kept: strictly lower than the padded.
    pub fn kept_common(&self) -> bool {
        self.common_hwm.is_some_and(|c| c < self.padded_hwm)
    }

    /// One line for `plan`'s report.
    ///
    /// ```
    /// use dramalloc_sim::quality::common_alignment::BothWays;
    /// let b = BothWays { common_align: 4096, padded_hwm: 12288, common_hwm: Some(8192), settled: true };
    /// assert_eq!(
    ///     b.describe(),
    ///     "(per-buffer alignments: planned with each buffer padded to its own alignment, HWM \
    ///      12288 bytes, and at their common alignment 4096, HWM 8192 bytes, each settled down; \
    ///      kept the common; the members above are those of the plan kept)"
    /// );
    /// let b = BothWays { settled: false, ..b };
    /// assert!(b.describe().contains("HWM 8192 bytes, neither settled down (too many pairs of buffers live together); kept"));
    /// ```
    pub fn describe(&self) -> String {
        let common = match self.common_hwm {
            Some(h) => format!("HWM {h} bytes"),
            None => "no plan".to_owned(),
        };
        let kept = if self.kept_common() { "the common" } else { "the padded" };
        let settled = if self.settled {
            "each settled down"
        } else {
            "neither settled down (too many pairs of buffers live together)"
        };
        format!(
            "(per-buffer alignments: planned with each buffer padded to its own alignment, HWM {} \
             bytes, and at their common alignment {}, {common}, {settled}; kept {kept}; the \
             members above are those of the plan kept)",
            self.padded_hwm, self.common_align
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Row;

    #[test]
    fn the_common_alignment_is_the_lcm_or_none() {
        let mut p = Problem::default();
        p.push("a", Row { lower: 0, upper: 1, size: 1 });
        p.push("b", Row { lower: 0, upper: 1, size: 1 });
        assert_eq!(common_alignment(&p, 0), None);
        p.set_alignment(1, 4096);
        assert_eq!(common_alignment(&p, 0), Some(4096));
        assert_eq!(common_alignment(&p, 4096), None);
        assert_eq!(common_alignment(&p, 8192), None);
        assert_eq!(common_alignment(&p, 6), Some(12288));
        p.set_alignment(0, 3);
        assert_eq!(common_alignment(&p, 1), Some(12288));
        p.set_alignment(0, u64::MAX);
        assert_eq!(common_alignment(&p, 1), None);
    }

    fn two(size: u64, own: u64, lifetimes: [(u64, u64); 2]) -> Problem {
        let mut p = Problem::default();
        for (k, (lower, upper)) in lifetimes.into_iter().enumerate() {
            p.push(&k.to_string(), Row { lower, upper, size });
            p.set_alignment(k, own);
        }
        p
    }

    /// Two overlapping 4 KiB buffers aligned to 4 KiB in a plan aligned to 1 byte: padded to
    /// 8,191 bytes each they peak at 12 KiB, settled down at the bound, 8 KiB, so the common
    /// alignment is not tried.
    #[test]
    fn a_padded_plan_settled_at_the_bound_is_kept() {
        use crate::quality::problem::solve;
        use dramalloc_core::Strategy;
        let p = two(4096, 4096, [(0, 10), (5, 15)]);
        for s in [Strategy::Auto, Strategy::GreedySize, Strategy::Sweep] {
            let sol = solve(&p, 1, None, s).unwrap();
            assert_eq!(
                (sol.offsets.clone(), sol.metrics.hwm, sol.metrics.lower_bound),
                (vec![0, 4096], 8192, 8192)
            );
            assert_eq!(
                (sol.both_ways, sol.settled.map(|s| (s.before, s.after))),
                (None, Some((12288, 8192))),
                "{s:?}"
            );
        }
    }

    /// Where the settled padded plan is above its bound the common one is made and settled;
    /// the lower is kept, the padded one on a tie.
    #[test]
    fn the_common_alignment_plan_is_kept_where_it_is_lower() {
        use crate::quality::problem::solve;
        use dramalloc_core::Strategy;
        // 3,000 and 5,000 bytes aligned to 4 and 8 KiB live together, two 7-byte buffers aligned
        // to 8 KiB one after the other: padded and settled 15,288, common and settled 13,192
        let mut p = Problem::default();
        for (k, (lower, upper, size, own)) in
            [(0, 3, 3000, 4096), (0, 3, 5000, 8192), (0, 1, 7, 8192), (1, 4, 7, 8192)].into_iter().enumerate()
        {
            p.push(&k.to_string(), Row { lower, upper, size });
            p.set_alignment(k, own);
        }
        let sol = solve(&p, 1, None, Strategy::Sweep).unwrap();
        assert_eq!(
            (sol.offsets.clone(), sol.metrics.hwm, sol.metrics.lower_bound),
            (vec![4096, 8192, 0, 0], 13192, 8007)
        );
        let both = BothWays { common_align: 8192, padded_hwm: 15288, common_hwm: Some(13192), settled: true };
        assert_eq!(sol.both_ways, Some(both));
        // 8 KiB alignments at plan alignment 1 and 4096: both ways 12 KiB, the padded kept
        for align in [1, 4096] {
            let sol = solve(&two(4096, 8192, [(0, 10), (5, 15)]), align, None, Strategy::Auto).unwrap();
            assert_eq!((sol.offsets.clone(), sol.metrics.hwm), (vec![0, 8192], 12288), "{align}");
            assert_eq!(
                sol.both_ways.map(|b| (b.padded_hwm, b.common_hwm)),
                Some((12288, Some(12288))),
                "{align}"
            );
        }
    }

    /// Not planned twice where the padded plan is at its bound (lifetimes apart), nor where no
    /// buffer asks for more than the plan's alignment.
    #[test]
    fn planned_once_at_the_bound_or_without_own_alignments() {
        use crate::quality::problem::solve;
        use dramalloc_core::Strategy;
        let sol = solve(&two(4096, 4096, [(0, 5), (5, 10)]), 1, None, Strategy::Auto).unwrap();
        assert_eq!((sol.offsets.clone(), sol.metrics.hwm, sol.both_ways), (vec![0, 0], 4096, None));
        let sol = solve(&two(4096, 4096, [(0, 10), (5, 15)]), 4096, None, Strategy::Auto).unwrap();
        assert_eq!((sol.offsets.clone(), sol.metrics.hwm, sol.both_ways), (vec![0, 4096], 8192, None));
    }

    /// A fixed offset off the common alignment fails the common plan: the padded one is kept.
    #[test]
    fn a_fixed_offset_off_the_common_alignment_keeps_the_padded_plan() {
        use crate::quality::problem::solve;
        use dramalloc_core::Strategy;
        let mut p = two(4096, 4096, [(0, 10), (5, 15)]);
        p.push("f", Row { lower: 0, upper: 15, size: 100 });
        p.set_fixed(2, Some(100));
        let sol = solve(&p, 1, None, Strategy::Auto).unwrap();
        assert_eq!(sol.both_ways.map(|b| b.common_hwm), Some(None));
        assert_eq!(sol.metrics.hwm, sol.both_ways.unwrap().padded_hwm);
    }

    #[test]
    fn the_common_plan_is_kept_only_when_strictly_lower() {
        let b = |c| BothWays { common_align: 64, padded_hwm: 100, common_hwm: c, settled: true };
        assert!(b(Some(99)).kept_common());
        assert!(!b(Some(100)).kept_common());
        assert!(!b(None).kept_common());
        assert!(b(None)
            .describe()
            .contains("common alignment 64, no plan, each settled down; kept the padded"));
    }
}
