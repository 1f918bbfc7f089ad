//! The placement picture `layout.svg`: x = instruction index, y = address.
//! Uses: layout_density; used by: mod.rs.
//!
//! One rectangle per tensor spans its live instructions `[def, last_use]` (inclusive, drawn
//! as `[def, last_use + 1)`) and its bytes `[address, address + bytes)`, address 0 at the
//! bottom. Private tensors are coloured by core, shared ones in one distinct colour; each
//! carries a `<title>` tooltip (name, core, address, bytes, interval). The common-collective
//! (CC) region is a translucent band across the whole width, the high-water mark (HWM) a
//! dashed red line with 5 % headroom above it (so it never sits on the border). Axes have
//! tick labels: instruction indices on x, addresses in B/KiB/MiB/GiB on y, the y axis named
//! by the caller (e.g. "offset above the pre-placed floor"). The canvas is a fixed 1200x800
//! user units with thin strokes; rectangles are at least half a unit tall and
//! [`MIN_RECT_WIDTH`] wide, so 1,000 tensors stay readable and a tensor live for one
//! instruction of a long model is not a hairline. Past [`DETAILED`] tensors only the largest
//! are drawn one by one and the rest as a density layer (`layout_density`). The legend lists
//! only what is drawn. Plain string building, O(n) in the number of rectangles; labels are
//! XML-escaped.

use std::fmt::Write as _;

use crate::report::layout_density::Density;

/// Canvas width in SVG user units.
pub const WIDTH: f64 = 1200.0;
/// Canvas height in SVG user units.
pub const HEIGHT: f64 = 800.0;
/// Left margin (y-axis labels).
const LEFT: f64 = 90.0;
/// Right margin (legend).
const RIGHT: f64 = 150.0;
/// Top margin (title).
const TOP: f64 = 40.0;
/// Bottom margin (x-axis labels).
const BOTTOM: f64 = 50.0;
/// Minimum drawn rectangle height, so one-byte tensors stay visible.
const MIN_RECT_HEIGHT: f64 = 0.5;
/// Minimum drawn rectangle width (user units), so short-lived tensors of long models (the
/// shared all-reduce slices) stay visible.
pub const MIN_RECT_WIDTH: f64 = 2.0;
/// Tensors drawn one by one at most: past this many the largest (by drawn area) are, and the
/// rest go to a density layer ([`Density`]), so a picture of 10^6 tensors stays a few MB.
pub const DETAILED: usize = 20_000;
/// Roughly how many ticks per axis.
const TARGET_TICKS: u64 = 8;
/// Fill colours of private tensors, by `core % len`.
const CORE_COLOURS: [&str; 8] =
    ["#4e79a7", "#59a14f", "#9c755f", "#76b7b2", "#edc948", "#b07aa1", "#bab0ac", "#86bcb6"];
/// Fill colour of shared tensors.
const SHARED_COLOUR: &str = "#f28e2b";
/// Fill colour of the CC band.
const CC_COLOUR: &str = "#e15759";

/// One tensor to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutRect {
    /// Tensor name (shown in the tooltip; escaped).
    pub label: String,
    /// The core that owns it (picks the colour of private tensors).
    pub core: u32,
    /// Flat instruction index of its defining op.
    pub def: u32,
    /// Flat instruction index of its last use (inclusive).
    pub last_use: u32,
    /// First byte.
    pub address: u64,
    /// Size in bytes.
    pub bytes: u64,
    /// Whether it lives in the shared region (drawn in its own colour).
    pub shared: bool,
}

/// What else to draw, and how tall the address axis is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayoutOptions {
    /// Title line at the top (escaped).
    pub title: String,
    /// The CC region `[start, end)` in bytes, drawn as a band.
    pub cc_region: Option<(u64, u64)>,
    /// The high-water mark in bytes, drawn as a dashed line.
    pub hwm: Option<u64>,
    /// Height of the address axis in bytes (e.g. the HBM window); `None` = 5 % above the
    /// highest byte drawn (tensors, CC region, HWM).
    pub window: Option<u64>,
    /// Name of the y axis (default `address`).
    pub y_label: String,
}

/// Renders the layout picture as a complete SVG document.
///
/// Never panics; an empty `rects` gives axes only.
///
/// ```
/// use dramalloc_sim::report::layout_svg::{render_layout, LayoutOptions, LayoutRect};
/// let rect = LayoutRect { label: "a<b".into(), core: 0, def: 0, last_use: 3,
///                         address: 0, bytes: 4096, shared: false };
/// let svg = render_layout(&[rect], &LayoutOptions { hwm: Some(4096), ..Default::default() });
/// assert!(svg.starts_with("<svg") && svg.contains("a&lt;b") && svg.ends_with("</svg>\n"));
/// ```
#[must_use]
pub fn render_layout(rects: &[LayoutRect], opts: &LayoutOptions) -> String {
    let x_max = rects.iter().map(|r| u64::from(r.last_use) + 1).max().unwrap_or(1).max(1);
    let data_top = rects
        .iter()
        .map(|r| r.address.saturating_add(r.bytes))
        .chain(opts.cc_region.map(|(_, end)| end))
        .chain(opts.hwm)
        .max()
        .unwrap_or(0);
    let y_max = opts.window.unwrap_or(data_top.saturating_add(data_top / 20)).max(1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let sx = |x: f64| LEFT + x / x_max as f64 * plot_w;
    let sy = |y: f64| TOP + plot_h - y / y_max as f64 * plot_h;

    let mut s = String::with_capacity(4096 + rects.len() * 200);
    // `write!` into a String cannot fail; results are ignored throughout.
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="24" font-size="16">{}</text>"#, LEFT, escape(&opts.title));
    let _ = writeln!(
        s,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#888" stroke-width="0.5"/>"##
    );
    // Clip everything drawn from the data to the plot area (a window smaller than the data).
    let _ = writeln!(
        s,
        r#"<clipPath id="plot"><rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}"/></clipPath>"#
    );
    let _ = writeln!(s, r#"<g clip-path="url(#plot)">"#);

    if let Some((start, end)) = opts.cc_region {
        if end > start {
            let (y0, y1) = (sy(end as f64), sy(start as f64));
            let _ = writeln!(
                s,
                r#"<rect x="{LEFT}" y="{:.2}" width="{plot_w}" height="{:.2}" fill="{CC_COLOUR}" fill-opacity="0.15"><title>CC region [{}, {}) ({})</title></rect>"#,
                y0,
                (y1 - y0).max(MIN_RECT_HEIGHT),
                start,
                end,
                human_bytes(end - start)
            );
        }
    }

    // past DETAILED tensors, the largest (by drawn area) one by one, the rest as a density
    let drawn_area = |r: &LayoutRect| {
        let w = (f64::from(r.last_use) + 1.0 - f64::from(r.def)) / x_max as f64 * plot_w;
        let h = r.bytes as f64 / y_max as f64 * plot_h;
        w.max(MIN_RECT_WIDTH) * h.max(MIN_RECT_HEIGHT)
    };
    let cut = if rects.len() > DETAILED {
        let mut areas: Vec<f64> = rects.iter().map(drawn_area).collect();
        let (_, at, _) = areas.select_nth_unstable_by(rects.len() - DETAILED, f64::total_cmp);
        Some(*at)
    } else {
        None
    };
    let mut density = Density::new(plot_w, plot_h);
    let _ = writeln!(s, r#"<g stroke="black" stroke-width="0.2">"#);
    let mut detailed = 0usize;
    for r in rects {
        if let Some(cut) = cut {
            // ties at the cut go to the density once DETAILED are drawn
            let area = drawn_area(r);
            if area < cut || (area == cut && detailed == DETAILED) {
                let (x0, x1) = (sx(f64::from(r.def)) - LEFT, sx(f64::from(r.last_use) + 1.0) - LEFT);
                let (y0, y1) =
                    (sy(r.address.saturating_add(r.bytes) as f64) - TOP, sy(r.address as f64) - TOP);
                density.add(x0, x1, y0, y1);
                continue;
            }
            detailed += 1;
        }
        let x0 = sx(f64::from(r.def));
        let x1 = sx(f64::from(r.last_use) + 1.0);
        let top = r.address.saturating_add(r.bytes);
        let y0 = sy(top as f64);
        let y1 = sy(r.address as f64);
        let fill = if r.shared { SHARED_COLOUR } else { CORE_COLOURS[r.core as usize % CORE_COLOURS.len()] };
        let _ = writeln!(
            s,
            r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="{fill}"><title>{} (core {}{}) @ {} ({}), {} bytes ({}), instructions [{}, {}]</title></rect>"#,
            x0,
            y0,
            (x1 - x0).max(MIN_RECT_WIDTH),
            (y1 - y0).max(MIN_RECT_HEIGHT),
            escape(&r.label),
            r.core,
            if r.shared { ", shared" } else { "" },
            r.address,
            human_bytes(r.address),
            r.bytes,
            human_bytes(r.bytes),
            r.def,
            r.last_use
        );
    }
    let _ = writeln!(s, "</g>");
    if density.count() > 0 {
        density.render(&mut s, LEFT, TOP, CORE_COLOURS[0]);
    }

    if let Some(hwm) = opts.hwm {
        let y = sy(hwm as f64);
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{y:.2}" x2="{}" y2="{y:.2}" stroke="red" stroke-width="1" stroke-dasharray="6 4"><title>HWM {} ({})</title></line>"#,
            LEFT + plot_w,
            hwm,
            human_bytes(hwm)
        );
    }
    let _ = writeln!(s, "</g>");

    // Axes: ticks and labels.
    let _ = writeln!(s, r##"<g stroke="#888" stroke-width="0.5">"##);
    let x_step = nice_step(x_max, false);
    let y_step = nice_step(y_max, true);
    let mut ticks = String::new();
    let mut x = 0u64;
    while x <= x_max {
        let px = sx(x as f64);
        let _ = writeln!(
            s,
            r#"<line x1="{px:.2}" y1="{}" x2="{px:.2}" y2="{}"/>"#,
            TOP + plot_h,
            TOP + plot_h + 5.0
        );
        let _ = writeln!(
            ticks,
            r#"<text x="{px:.2}" y="{}" text-anchor="middle">{x}</text>"#,
            TOP + plot_h + 18.0
        );
        x = match x.checked_add(x_step) {
            Some(next) => next,
            None => break,
        };
    }
    let mut y = 0u64;
    while y <= y_max {
        let py = sy(y as f64);
        let _ = writeln!(s, r#"<line x1="{}" y1="{py:.2}" x2="{LEFT}" y2="{py:.2}"/>"#, LEFT - 5.0);
        let _ = writeln!(
            ticks,
            r#"<text x="{}" y="{:.2}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            py + 4.0,
            human_bytes(y)
        );
        y = match y.checked_add(y_step) {
            Some(next) => next,
            None => break,
        };
    }
    let _ = writeln!(s, "</g>");
    s.push_str(&ticks);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">instruction index</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 10.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(16 {}) rotate(-90)" text-anchor="middle">{}</text>"#,
        TOP + plot_h / 2.0,
        escape(if opts.y_label.is_empty() { "address" } else { &opts.y_label })
    );

    let cc_drawn = opts.cc_region.is_some_and(|(start, end)| end > start);
    legend(&mut s, rects, cc_drawn, opts.hwm.is_some(), density.count());
    s.push_str("</svg>\n");
    s
}

/// The legend in the right margin: one swatch per core present, then shared, CC and HWM
/// where they are drawn.
fn legend(s: &mut String, rects: &[LayoutRect], cc: bool, hwm: bool, dense: usize) {
    /// What to draw left of a legend label.
    enum Swatch {
        /// A filled box of this colour and opacity.
        Fill(&'static str, f64),
        /// The HWM's dashed line.
        Dashed,
        /// Nothing.
        Blank,
    }
    let mut cores: Vec<u32> = rects.iter().filter(|r| !r.shared).map(|r| r.core).collect();
    cores.sort_unstable();
    cores.dedup();
    let mut entries: Vec<(Swatch, String)> = cores
        .iter()
        .take(CORE_COLOURS.len())
        .map(|&c| {
            let colour = CORE_COLOURS[c as usize % CORE_COLOURS.len()];
            (Swatch::Fill(colour, 1.0), format!("core {c}"))
        })
        .collect();
    if cores.len() > CORE_COLOURS.len() {
        let note = format!("(colours repeat every {})", CORE_COLOURS.len());
        entries.push((Swatch::Blank, note));
    }
    if rects.iter().any(|r| r.shared) {
        entries.push((Swatch::Fill(SHARED_COLOUR, 1.0), "shared".to_owned()));
    }
    if dense > 0 {
        entries.push((Swatch::Fill(CORE_COLOURS[0], 0.5), format!("{dense} as density")));
    }
    if cc {
        entries.push((Swatch::Fill(CC_COLOUR, 0.15), "CC region".to_owned()));
    }
    if hwm {
        entries.push((Swatch::Dashed, "HWM".to_owned()));
    }
    let x = WIDTH - RIGHT + 15.0;
    for (i, (swatch, label)) in entries.iter().enumerate() {
        let y = TOP + 10.0 + 18.0 * i as f64;
        match swatch {
            Swatch::Fill(colour, opacity) => {
                let _ = writeln!(
                    s,
                    r#"<rect x="{x}" y="{y}" width="12" height="10" fill="{colour}" fill-opacity="{opacity}"/>"#
                );
            }
            Swatch::Dashed => {
                let _ = writeln!(
                    s,
                    r#"<line x1="{x}" y1="{}" x2="{}" y2="{}" stroke="red" stroke-dasharray="6 4"/>"#,
                    y + 5.0,
                    x + 12.0,
                    y + 5.0
                );
            }
            Swatch::Blank => {}
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}">{label}</text>"#, x + 18.0, y + 9.0);
    }
}

/// A tick step giving about [`TARGET_TICKS`] ticks over `[0, max]`: 1, 2 or 5 times a power
/// of ten for instruction indices, a power of two for addresses (so labels read 512 KiB,
/// 1 MiB, ...). At least 1.
fn nice_step(max: u64, binary: bool) -> u64 {
    let raw = max.div_ceil(TARGET_TICKS).max(1);
    if binary {
        return raw.checked_next_power_of_two().unwrap_or(1 << 63);
    }
    let mut base = 1u64;
    loop {
        for m in [1, 2, 5] {
            match base.checked_mul(m) {
                Some(step) if step >= raw => return step,
                Some(_) => {}
                None => return raw,
            }
        }
        base = match base.checked_mul(10) {
            Some(b) => b,
            None => return raw,
        };
    }
}

/// Bytes as a short human string: `0`, `512 B`, `4 KiB`, `1.5 MiB`, `16 GiB`.
///
/// Up to two decimals, trailing zeros dropped.
#[must_use]
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes == 0 {
        return "0".to_owned();
    }
    let mut unit = 0;
    while unit + 1 < UNITS.len() && bytes >= 1u64 << (10 * (unit + 1)) {
        unit += 1;
    }
    let value = bytes as f64 / (1u64 << (10 * unit)) as f64;
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {}", UNITS[unit])
}

/// Escapes the five XML special characters, and writes a character XML 1.0 does not allow
/// in a document at all, not even as a reference (the C0 controls but tab, line feed and
/// carriage return; U+FFFE, U+FFFF), as the text of its Rust escape, `\u{1b}`, as the
/// error messages write it: a trial's tensor named `"\x01a"` made a picture no XML parser
/// read.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(label: &str, def: u32, last_use: u32, address: u64, bytes: u64) -> LayoutRect {
        LayoutRect { label: label.into(), core: 0, def, last_use, address, bytes, shared: false }
    }

    #[test]
    fn human_bytes_units() {
        assert_eq!(human_bytes(0), "0");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(4096), "4 KiB");
        assert_eq!(human_bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(human_bytes(16 << 30), "16 GiB");
        assert_eq!(human_bytes(u64::MAX), "16384 PiB"); // 16383.99.. rounds in f64
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(176, false), 50);
        assert_eq!(nice_step(8, false), 1);
        assert_eq!(nice_step(10 << 20, true), 2 << 20);
        assert_eq!(nice_step(0, true), 1);
        assert_eq!(nice_step(u64::MAX, true), 1 << 61);
    }

    #[test]
    fn escapes_labels() {
        assert_eq!(escape(r#"<a & "b">'"#), "&lt;a &amp; &quot;b&quot;&gt;&apos;");
        // what XML 1.0 allows stays (tab, DEL, a bidi override); what it does not is written
        // as its escape
        assert_eq!(
            escape("\u{1}a\tb\u{1b}[31m\u{7f}\u{202e}\u{fffe}\u{ffff}\u{fffd}"),
            "\\u{1}a\tb\\u{1b}[31m\u{7f}\u{202e}\\u{fffe}\\u{ffff}\u{fffd}"
        );
    }

    #[test]
    fn geometry_of_one_rectangle() {
        // x_max = 4 instructions over 960 units; y_max = 8192 bytes over 710 units.
        let svg = render_layout(
            &[rect("t", 1, 1, 4096, 4096)],
            &LayoutOptions { window: Some(8192), ..Default::default() },
        );
        // x = 90 + 1/2 * 960 = 570, width = 480; y = 40 + 710 - 710 = 40, height 355.
        assert!(
            svg.contains(r##"<rect x="570.00" y="40.00" width="480.00" height="355.00" fill="#4e79a7">"##),
            "{svg}"
        );
        assert!(
            svg.contains("<title>t (core 0) @ 4096 (4 KiB), 4096 bytes (4 KiB), instructions [1, 1]</title>")
        );
    }

    #[test]
    fn draws_cc_band_hwm_shared_and_ticks() {
        let mut shared = rect("s", 0, 9, 0, 1 << 20);
        shared.shared = true;
        let svg = render_layout(
            &[shared, rect("p", 2, 5, 1 << 20, 1 << 20)],
            &LayoutOptions {
                title: "resnet & co".into(),
                cc_region: Some((3 << 20, 4 << 20)),
                hwm: Some(2 << 20),
                window: None,
                y_label: "offset".into(),
            },
        );
        assert!(svg.contains("resnet &amp; co"));
        assert!(svg.contains(&format!(r#"fill="{SHARED_COLOUR}"><title>s (core 0, shared)"#)));
        assert!(svg.contains("<title>CC region [3145728, 4194304) (1 MiB)</title>"));
        assert!(svg.contains(r#"stroke-dasharray="6 4"><title>HWM 2097152 (2 MiB)</title>"#));
        assert!(svg.contains(">1 MiB</text>"));
        assert!(svg.contains(">4 MiB</text>"));
        assert!(svg.contains(">10</text>"));
    }

    #[test]
    fn legend_lists_only_what_is_drawn_and_the_hwm_has_headroom() {
        let svg = render_layout(
            &[rect("p", 0, 0, 0, 1000)],
            &LayoutOptions { hwm: Some(1000), y_label: "offset".into(), ..Default::default() },
        );
        assert!(!svg.contains(">CC region<") && !svg.contains(">shared<") && svg.contains(">HWM<"));
        // y_max = 1050: the HWM line sits 5 % below the top border (y = 40 + 710 * 50 / 1050)
        assert!(svg.contains(r#"y1="73.81""#), "{svg}");
        // one instruction of 1 is 960 wide; a rectangle is never narrower than MIN_RECT_WIDTH
        let long: Vec<_> = (0..2000u32).map(|i| rect("r", i, i, 0, 10)).collect();
        let svg = render_layout(&long, &LayoutOptions::default());
        assert!(svg.contains(r#"width="2.00" height="#), "{svg}");
        assert!(svg.contains(">address</text>"));
    }

    /// Past `DETAILED` tensors the largest are drawn one by one and the rest as the density
    /// layer, named in the legend: 20,000 tall tensors and 30,000 one-byte ones.
    #[test]
    fn past_the_detail_limit_the_small_tensors_are_a_density() {
        let mut rects: Vec<_> = (0..DETAILED as u32).map(|i| rect("big", i, i, 1 << 20, 1 << 20)).collect();
        rects.extend((0..30_000u32).map(|i| rect("small", i, i, u64::from(i), 1)));
        let svg = render_layout(&rects, &LayoutOptions::default());
        assert_eq!(svg.matches("<title>big").count(), DETAILED);
        assert_eq!(svg.matches("<title>small").count(), 0);
        assert!(svg.contains("<title>30000 tensors too small to draw one by one"), "the layer");
        assert!(svg.contains(">30000 as density</text>"), "the legend");
        // one tensor past the limit: the smallest goes to the layer
        let mut few: Vec<_> = (0..DETAILED as u32).map(|i| rect("big", i, i, 0, 1 << 20)).collect();
        few.push(rect("tiny", 5, 5, 0, 1));
        let svg = render_layout(&few, &LayoutOptions::default());
        assert_eq!((svg.matches("<title>big").count(), svg.matches("<title>tiny").count()), (DETAILED, 0));
        assert!(svg.contains(">1 as density</text>"));
    }

    #[test]
    fn thousand_tensors_and_empty_input() {
        let rects: Vec<_> =
            (0..1000u32).map(|i| rect(&format!("r{i}"), i, i + 3, u64::from(i % 7) * 4096, 4096)).collect();
        let svg = render_layout(&rects, &LayoutOptions::default());
        assert_eq!(svg.matches("<title>r").count(), 1000);
        assert!(svg.contains(r#"width="1200" height="800""#));
        let empty = render_layout(&[], &LayoutOptions::default());
        assert!(empty.starts_with("<svg") && empty.ends_with("</svg>\n"));
    }
}
