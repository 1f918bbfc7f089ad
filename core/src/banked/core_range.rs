//! Core coordinates and inclusive rectangles of cores, the ranges circular buffers live on (seed 004 §3).
//! Uses: nothing else in the crate; used by: circular_buffer, error, sim.

/// A core coordinate `(x, y)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CoreCoord {
    /// Column.
    pub x: u32,
    /// Row.
    pub y: u32,
}

/// An inclusive rectangle of cores, `start..=end` in both coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct CoreRange {
    /// Lower-left corner.
    pub start: CoreCoord,
    /// Upper-right corner (inclusive).
    pub end: CoreCoord,
}

impl CoreRange {
    /// The range from `(x0, y0)` to `(x1, y1)` inclusive (corners are normalised).
    pub const fn new(x0: u32, y0: u32, x1: u32, y1: u32) -> Self {
        let (ax, bx) = if x0 <= x1 { (x0, x1) } else { (x1, x0) };
        let (ay, by) = if y0 <= y1 { (y0, y1) } else { (y1, y0) };
        Self { start: CoreCoord { x: ax, y: ay }, end: CoreCoord { x: bx, y: by } }
    }

    /// The single core `(x, y)`.
    pub const fn core(x: u32, y: u32) -> Self {
        Self::new(x, y, x, y)
    }

    /// Whether two ranges share a core.
    ///
    /// ```
    /// use dramalloc_core::banked::CoreRange;
    /// assert!(CoreRange::new(0, 0, 0, 2).intersects(&CoreRange::core(0, 1)));
    /// assert!(!CoreRange::core(1, 0).intersects(&CoreRange::core(0, 1)));
    /// ```
    pub const fn intersects(&self, other: &Self) -> bool {
        self.start.x <= other.end.x
            && other.start.x <= self.end.x
            && self.start.y <= other.end.y
            && other.start.y <= self.end.y
    }

    /// Number of cores in the range: its width times its height, each counted as the corners'
    /// distance plus one (so a range written as a struct literal with its corners swapped
    /// counts as [`Self::new`] would normalise it). Saturates at `u64::MAX` for the one range it
    /// cannot count, the whole 2^32 × 2^32 grid (it overflowed at a coordinate of `u32::MAX`:
    /// a fresh-user trial).
    ///
    /// ```
    /// use dramalloc_core::banked::CoreRange;
    /// assert_eq!(CoreRange::new(0, 0, 7, 7).num_cores(), 64);
    /// assert_eq!(CoreRange::new(0, 0, u32::MAX, 0).num_cores(), 1 << 32);
    /// assert_eq!(CoreRange::new(0, 0, u32::MAX, u32::MAX).num_cores(), u64::MAX);
    /// ```
    pub const fn num_cores(&self) -> u64 {
        let width = self.end.x.abs_diff(self.start.x) as u64 + 1;
        let height = self.end.y.abs_diff(self.start.y) as u64 + 1;
        width.saturating_mul(height)
    }
}

impl core::fmt::Display for CoreRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "({},{})-({},{})", self.start.x, self.start.y, self.end.x, self.end.y)
    }
}
