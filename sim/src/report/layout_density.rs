//! The density layer of a large placement picture: the rectangles too many to draw one by one.
//! Uses: nothing else in the crate; used by: layout_svg.
//!
//! Past [`crate::report::layout_svg::DETAILED`] tensors the picture draws the largest one by
//! one and adds every other one to a grid of [`CELL`]-unit square cells: each cell holds the
//! fraction of its area those rectangles cover (their exact extent, clipped to the plot; no
//! minimum size). A cell row is one difference array along x, so a long, thin rectangle costs
//! the rows it crosses, not its cells. The layer is drawn as runs of cells of equal coverage,
//! rounded to [`LEVELS`] opacities: at most one `<rect>` per cell, whatever the tensor count
//! (10^6 tensors: a few MB of SVG instead of 184 MB).

use std::fmt::Write as _;

/// Cell side, SVG user units.
pub const CELL: f64 = 2.0;
/// Opacity steps of the drawn cells (a cell covered less than half a step is not drawn).
pub const LEVELS: f64 = 8.0;

/// Coverage per cell of a `width` × `height` (user units) plot.
#[derive(Debug, Clone)]
pub struct Density {
    cols: usize,
    rows: usize,
    /// Partial cells, added directly.
    cover: Vec<f64>,
    /// Whole cells, as a difference array along each row (one spare entry per row).
    runs: Vec<f64>,
    /// Rectangles added.
    count: usize,
}

impl Density {
    /// An empty layer over a plot of `width` × `height` user units (at least one cell).
    pub fn new(width: f64, height: f64) -> Density {
        let cols = ((width / CELL).ceil() as usize).max(1);
        let rows = ((height / CELL).ceil() as usize).max(1);
        Density { cols, rows, cover: vec![0.0; cols * rows], runs: vec![0.0; (cols + 1) * rows], count: 0 }
    }

    /// Rectangles added so far.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Adds the rectangle `[x0, x1) × [y0, y1)` (plot coordinates, user units from the
    /// plot's top-left corner), clipped to the plot. O(rows crossed).
    pub fn add(&mut self, x0: f64, x1: f64, y0: f64, y1: f64) {
        self.count += 1;
        let (w, h) = (self.cols as f64 * CELL, self.rows as f64 * CELL);
        let (x0, x1) = (x0.clamp(0.0, w), x1.clamp(0.0, w));
        let (y0, y1) = (y0.clamp(0.0, h), y1.clamp(0.0, h));
        if x1 <= x0 || y1 <= y0 {
            return;
        }
        let first_row = (y0 / CELL) as usize;
        let last_row = (((y1 / CELL).ceil() as usize).max(first_row + 1)).min(self.rows);
        for r in first_row..last_row {
            let top = r as f64 * CELL;
            let fy = (y1.min(top + CELL) - y0.max(top)) / CELL;
            if fy <= 0.0 {
                continue;
            }
            let (c0, c1) = ((x0 / CELL) as usize, ((x1 / CELL) as usize).min(self.cols - 1));
            let row = r * self.cols;
            if c0 >= c1 {
                self.cover[row + c0] += fy * (x1 - x0) / CELL;
                continue;
            }
            self.cover[row + c0] += fy * ((c0 + 1) as f64 * CELL - x0) / CELL;
            self.cover[row + c1] += fy * (x1 - c1 as f64 * CELL) / CELL;
            let runs = r * (self.cols + 1);
            self.runs[runs + c0 + 1] += fy;
            self.runs[runs + c1] -= fy;
        }
    }

    /// Writes the layer as `<rect>`s of `fill`, the plot's top-left corner at (`left`, `top`):
    /// one per run of cells of equal rounded coverage, each run's `fill-opacity` its level.
    pub fn render(&self, s: &mut String, left: f64, top: f64, fill: &str) {
        let _ = writeln!(
            s,
            r#"<g fill="{fill}" stroke="none"><title>{} tensors too small to draw one by one: the share of each {CELL}x{CELL} cell they cover</title>"#,
            self.count
        );
        for r in 0..self.rows {
            let mut whole = 0.0;
            let mut run: Option<(usize, u32)> = None; // (first cell, level)
            let y = top + r as f64 * CELL;
            for c in 0..=self.cols {
                let level = if c < self.cols {
                    whole += self.runs[r * (self.cols + 1) + c];
                    let v = (whole + self.cover[r * self.cols + c]).clamp(0.0, 1.0);
                    (v * LEVELS).round() as u32
                } else {
                    0
                };
                match run {
                    Some((_, l)) if l == level => {}
                    _ => {
                        if let Some((from, l)) = run.take().filter(|&(_, l)| l > 0) {
                            let _ = writeln!(
                                s,
                                r#"<rect x="{:.2}" y="{y:.2}" width="{:.2}" height="{CELL}" fill-opacity="{:.3}"/>"#,
                                left + from as f64 * CELL,
                                (c - from) as f64 * CELL,
                                f64::from(l) / LEVELS
                            );
                        }
                        run = Some((c, level));
                    }
                }
            }
        }
        let _ = writeln!(s, "</g>");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells a rectangle covers and by how much: a whole cell, a half cell, a run along
    /// a row (partial ends, whole cells between), a rectangle across two rows.
    #[test]
    fn coverage_of_whole_partial_and_long_rectangles() {
        let mut d = Density::new(20.0, 6.0); // 10 x 3 cells
        d.add(0.0, 2.0, 0.0, 2.0); // cell (0, 0) whole
        d.add(2.0, 3.0, 0.0, 2.0); // half of (0, 1)
        d.add(5.0, 13.0, 2.0, 4.0); // row 1: half of col 2, cols 3-5 whole, half of col 6
        d.add(0.0, 2.0, 3.0, 5.0); // half of (1, 0) and half of (2, 0)
        assert_eq!(d.count(), 4);
        let mut s = String::new();
        d.render(&mut s, 100.0, 10.0, "#123456");
        let rects: Vec<&str> = s.lines().filter(|l| l.starts_with("<rect")).collect();
        assert_eq!(
            rects,
            [
                r#"<rect x="100.00" y="10.00" width="2.00" height="2" fill-opacity="1.000"/>"#,
                r#"<rect x="102.00" y="10.00" width="2.00" height="2" fill-opacity="0.500"/>"#,
                r#"<rect x="100.00" y="12.00" width="2.00" height="2" fill-opacity="0.500"/>"#,
                r#"<rect x="104.00" y="12.00" width="2.00" height="2" fill-opacity="0.500"/>"#,
                r#"<rect x="106.00" y="12.00" width="6.00" height="2" fill-opacity="1.000"/>"#,
                r#"<rect x="112.00" y="12.00" width="2.00" height="2" fill-opacity="0.500"/>"#,
                r#"<rect x="100.00" y="14.00" width="2.00" height="2" fill-opacity="0.500"/>"#,
            ]
        );
        assert!(s.starts_with(r##"<g fill="#123456" stroke="none"><title>4 tensors"##));
    }

    /// Outside the plot is clipped away; a rectangle to the right edge ends its run there;
    /// coverage past 1 (overlapping rectangles) draws as 1; a sliver under half a level is
    /// not drawn.
    #[test]
    fn clipping_the_edge_saturation_and_slivers() {
        let mut d = Density::new(4.0, 2.0); // 2 x 1 cells
        d.add(-10.0, 1.0, -5.0, 1.0); // (0, 0) half covered in x, half in y: 1/4
        d.add(2.0, 50.0, 0.0, 2.0); // (0, 1) whole, clipped at the right edge
        d.add(2.0, 4.0, 0.0, 2.0); // (0, 1) again: 2, drawn as 1
        d.add(0.0, 0.1, 0.0, 2.0); // 1/20 more on (0, 0): 0.3, level 2 of 8
        let mut s = String::new();
        d.render(&mut s, 0.0, 0.0, "red");
        let rects: Vec<&str> = s.lines().filter(|l| l.starts_with("<rect")).collect();
        assert_eq!(
            rects,
            [
                r#"<rect x="0.00" y="0.00" width="2.00" height="2" fill-opacity="0.250"/>"#,
                r#"<rect x="2.00" y="0.00" width="2.00" height="2" fill-opacity="1.000"/>"#,
            ]
        );
        let mut faint = Density::new(4.0, 2.0);
        faint.add(0.0, 0.1, 0.0, 2.0); // 1/20 of a cell: under half of 1/8
        let mut s = String::new();
        faint.render(&mut s, 0.0, 0.0, "red");
        assert_eq!(s.lines().filter(|l| l.starts_with("<rect")).count(), 0);
    }
}
