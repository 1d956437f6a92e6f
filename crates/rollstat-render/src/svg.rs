//! A small SVG layer for the HTML pages: scales, axes, lines, bands, bars
//! and points, written as text.
//!
//! Why our own and not plotters' SVG backend: plotters lays out text with a
//! font backend (font-kit and fontconfig by default) and writes colours as
//! fixed attributes, while these pages need colours from CSS classes (so
//! `prefers-color-scheme` can switch them) and byte-identical output with
//! no system dependency. Every coordinate is printed with one decimal, so
//! the same document always gives the same bytes.

use std::fmt::Write as _;

/// Escapes text for HTML and SVG (element content and attribute values).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// How data values map onto one axis.
#[derive(Clone, Copy, Debug)]
pub enum Scale {
    /// Linear between `min` and `max`.
    Linear { min: f64, max: f64 },
    /// Base-2 logarithmic between `min` and `max` (both > 0).
    Log2 { min: f64, max: f64 },
}

impl Scale {
    /// The position of `v` in [0, 1] along the axis.
    fn unit(&self, v: f64) -> f64 {
        let (a, b, x) = match *self {
            Scale::Linear { min, max } => (min, max, v),
            Scale::Log2 { min, max } => (min.log2(), max.log2(), v.max(f64::MIN_POSITIVE).log2()),
        };
        // A reversed axis (min > max) runs the other way: category rows
        // count downwards from the top.
        if b != a {
            (x - a) / (b - a)
        } else {
            0.5
        }
    }
}

/// Plot area inside the SVG (pixels of the viewBox).
const LEFT: f64 = 64.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 48.0;

/// One chart: a frame with two scales and the markup drawn so far.
pub struct Chart {
    width: f64,
    height: f64,
    x: Scale,
    y: Scale,
    left: f64,
    body: String,
}

/// A tick: its value and label.
pub type Tick = (f64, String);

impl Chart {
    /// A `width` × `height` chart (viewBox pixels).
    pub fn new(width: f64, height: f64, x: Scale, y: Scale) -> Chart {
        Chart {
            width,
            height,
            x,
            y,
            left: LEFT,
            body: String::new(),
        }
    }

    /// Widens the left margin (for long row labels).
    pub fn with_left(mut self, left: f64) -> Chart {
        self.left = left;
        self
    }

    /// Horizontal pixel of data `x`.
    pub fn px(&self, x: f64) -> f64 {
        self.left + self.x.unit(x) * (self.width - self.left - RIGHT)
    }

    /// Vertical pixel of data `y`.
    pub fn py(&self, y: f64) -> f64 {
        self.height - BOTTOM - self.y.unit(y) * (self.height - TOP - BOTTOM)
    }

    /// Grid lines, tick labels and axis titles.
    pub fn axes(&mut self, xticks: &[Tick], yticks: &[Tick], xlabel: &str, ylabel: &str) {
        let (x0, x1) = (self.left, self.width - RIGHT);
        let (y0, y1) = (TOP, self.height - BOTTOM);
        for (v, label) in yticks {
            let y = self.py(*v);
            self.raw(format!(
                r#"<line class="grid" x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}"/>"#
            ));
            self.text(x0 - 6.0, y + 4.0, "end", "tick", label);
        }
        for (v, label) in xticks {
            let x = self.px(*v);
            self.raw(format!(
                r#"<line class="grid" x1="{x:.1}" y1="{y0:.1}" x2="{x:.1}" y2="{y1:.1}"/>"#
            ));
            self.text(x, y1 + 16.0, "middle", "tick", label);
        }
        self.raw(format!(
            r#"<rect class="frame" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}"/>"#,
            x1 - x0,
            y1 - y0
        ));
        self.text(
            (x0 + x1) / 2.0,
            self.height - 8.0,
            "middle",
            "label",
            xlabel,
        );
        let (cx, cy) = (14.0, (y0 + y1) / 2.0);
        self.raw(format!(
            r#"<text class="label" text-anchor="middle" transform="translate({cx:.1} {cy:.1}) rotate(-90)">{}</text>"#,
            esc(ylabel)
        ));
    }

    /// Row labels on the left (for charts whose y is a category index).
    pub fn row_labels(&mut self, labels: &[(f64, String)]) {
        for (v, label) in labels {
            let y = self.py(*v);
            self.text(self.left - 6.0, y + 4.0, "end", "tick", label);
        }
    }

    /// A polyline through data points.
    pub fn line(&mut self, pts: &[(f64, f64)], class: &str) {
        let d = self.path(pts);
        self.raw(format!(r#"<path class="{class}" d="{d}"/>"#));
    }

    /// A filled band between `lower` and `upper` (same x, ascending).
    pub fn band(&mut self, lower: &[(f64, f64)], upper: &[(f64, f64)], class: &str) {
        let mut pts: Vec<(f64, f64)> = upper.to_vec();
        pts.extend(lower.iter().rev());
        let d = self.path(&pts);
        self.raw(format!(r#"<path class="{class}" d="{d}Z"/>"#));
    }

    fn path(&self, pts: &[(f64, f64)]) -> String {
        let mut d = String::new();
        for (i, (x, y)) in pts.iter().enumerate() {
            let cmd = if i == 0 { 'M' } else { 'L' };
            let _ = write!(d, "{cmd}{:.1} {:.1}", self.px(*x), self.py(*y));
        }
        d
    }

    /// A point marker with a tooltip; `data` is extra attributes
    /// (`data-…`) carrying the exact value.
    pub fn point(&mut self, x: f64, y: f64, class: &str, tip: &str, data: &str) {
        let (cx, cy) = (self.px(x), self.py(y));
        self.raw(format!(
            r#"<circle class="{class}" cx="{cx:.1}" cy="{cy:.1}" r="4"{data}><title>{}</title></circle>"#,
            esc(tip)
        ));
    }

    /// A small dot without a tooltip (a scatter draws thousands); `data`
    /// as in [`Chart::point`].
    pub fn dot(&mut self, x: f64, y: f64, class: &str, data: &str) {
        let (cx, cy) = (self.px(x), self.py(y));
        self.raw(format!(
            r#"<circle class="{class}" cx="{cx:.1}" cy="{cy:.1}" r="3.5"{data}/>"#
        ));
    }

    /// A rectangle between data corners shaded by `opacity` (a cell of a
    /// 2-D count grid), with a tooltip and `data` attributes.
    pub fn cell(
        &mut self,
        (xa, ya): (f64, f64),
        (xb, yb): (f64, f64),
        opacity: f64,
        tip: &str,
        data: &str,
    ) {
        let (x0, x1) = (self.px(xa).min(self.px(xb)), self.px(xa).max(self.px(xb)));
        let (y0, y1) = (self.py(ya).min(self.py(yb)), self.py(ya).max(self.py(yb)));
        self.raw(format!(
            r#"<rect class="cell" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill-opacity="{opacity:.2}"{data}><title>{}</title></rect>"#,
            x1 - x0,
            y1 - y0,
            esc(tip)
        ));
    }

    /// A vertical error bar at `x` from `lo` to `hi`.
    pub fn vbar(&mut self, x: f64, lo: f64, hi: f64, class: &str) {
        let (px, a, b) = (self.px(x), self.py(lo), self.py(hi));
        self.raw(format!(
            r#"<path class="{class}" d="M{px:.1} {a:.1}L{px:.1} {b:.1}M{:.1} {a:.1}L{:.1} {a:.1}M{:.1} {b:.1}L{:.1} {b:.1}"/>"#,
            px - 4.0,
            px + 4.0,
            px - 4.0,
            px + 4.0
        ));
    }

    /// A horizontal error bar at row `y` from `lo` to `hi`.
    pub fn hbar(&mut self, y: f64, lo: f64, hi: f64, class: &str) {
        let (py, a, b) = (self.py(y), self.px(lo), self.px(hi));
        self.raw(format!(
            r#"<path class="{class}" d="M{a:.1} {py:.1}L{b:.1} {py:.1}M{a:.1} {:.1}L{a:.1} {:.1}M{b:.1} {:.1}L{b:.1} {:.1}"/>"#,
            py - 4.0,
            py + 4.0,
            py - 4.0,
            py + 4.0
        ));
    }

    /// A vertical reference line at data `x` across the plot area.
    pub fn vline(&mut self, x: f64, class: &str) {
        let px = self.px(x);
        self.raw(format!(
            r#"<line class="{class}" x1="{px:.1}" y1="{TOP:.1}" x2="{px:.1}" y2="{:.1}"/>"#,
            self.height - BOTTOM
        ));
    }

    /// A vertical segment at data `x` from data `y0` to `y1` (a marker
    /// within one row); `data` as in [`Chart::point`].
    pub fn vseg(&mut self, x: f64, (y0, y1): (f64, f64), class: &str, data: &str) {
        let (px, a, b) = (self.px(x), self.py(y0), self.py(y1));
        self.raw(format!(
            r#"<line class="{class}" x1="{px:.1}" y1="{a:.1}" x2="{px:.1}" y2="{b:.1}"{data}/>"#
        ));
    }

    /// A diamond at row `y`: its side points at `lo` and `hi`, its top and
    /// bottom at `x` (a pooled estimate with its interval), with a tooltip
    /// and `data` attributes.
    pub fn diamond(
        &mut self,
        (lo, x, hi): (f64, f64, f64),
        y: f64,
        class: &str,
        tip: &str,
        data: &str,
    ) {
        let (a, c, b, py) = (self.px(lo), self.px(x), self.px(hi), self.py(y));
        self.raw(format!(
            r#"<path class="{class}" d="M{a:.1} {py:.1}L{c:.1} {:.1}L{b:.1} {py:.1}L{c:.1} {:.1}Z"{data}><title>{}</title></path>"#,
            py - 7.0,
            py + 7.0,
            esc(tip)
        ));
    }

    /// A rectangle between data corners, with a tooltip.
    pub fn rect(&mut self, (xa, ya): (f64, f64), (xb, yb): (f64, f64), class: &str, tip: &str) {
        let (x0, x1) = (self.px(xa).min(self.px(xb)), self.px(xa).max(self.px(xb)));
        let (y0, y1) = (self.py(ya).min(self.py(yb)), self.py(ya).max(self.py(yb)));
        self.raw(format!(
            r#"<rect class="{class}" x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}"><title>{}</title></rect>"#,
            x1 - x0,
            y1 - y0,
            esc(tip)
        ));
    }

    /// A histogram bar `x ± half_width` from 0 to `count`, with a tooltip
    /// and (when not empty) its count above it.
    pub fn count_bar(&mut self, x: f64, half_width: f64, count: u64, class: &str, tip: &str) {
        let top = count as f64;
        self.rect((x - half_width, 0.0), (x + half_width, top), class, tip);
        if count > 0 {
            self.label_at((x, top), (0.0, -4.0), "middle", &count.to_string());
        }
    }

    /// Text at data coordinates, moved by (`dx`, `dy`) pixels.
    pub fn label_at(&mut self, (x, y): (f64, f64), (dx, dy): (f64, f64), anchor: &str, text: &str) {
        let (px, py) = (self.px(x) + dx, self.py(y) + dy);
        self.text(px, py, anchor, "value", text);
    }

    /// Text at pixel coordinates.
    fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, text: &str) {
        self.raw(format!(
            r#"<text class="{class}" x="{x:.1}" y="{y:.1}" text-anchor="{anchor}">{}</text>"#,
            esc(text)
        ));
    }

    fn raw(&mut self, s: String) {
        self.body.push_str(&s);
        self.body.push('\n');
    }

    /// The finished `<svg>` element; `id` names the plot, `label` is its
    /// accessible description.
    pub fn finish(self, id: &str, label: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" id=\"{}\" data-plot=\"{}\" viewBox=\"0 0 {:.0} {:.0}\" role=\"img\" aria-label=\"{}\">\n{}</svg>\n",
            esc(id),
            esc(id),
            self.width,
            self.height,
            esc(label),
            self.body
        )
    }
}

/// Ticks at 0, 25, …, 100 % for a fraction axis.
pub fn percent_ticks() -> Vec<Tick> {
    (0..=4)
        .map(|i| (i as f64 / 4.0, format!("{}%", i * 25)))
        .collect()
}

/// About `count` round ticks covering [min, max] (linear).
pub fn nice_ticks(min: f64, max: f64, count: usize, fmt: impl Fn(f64) -> String) -> Vec<Tick> {
    let span = (max - min).abs().max(1e-12);
    let raw = span / count.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let first = (min / step).ceil() as i64;
    let last = (max / step).floor() as i64;
    (first..=last)
        .map(|i| {
            let v = i as f64 * step;
            (v, fmt(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_scale_places_powers_of_two_evenly() {
        let c = Chart::new(
            640.0,
            300.0,
            Scale::Log2 { min: 1.0, max: 8.0 },
            Scale::Linear { min: 0.0, max: 1.0 },
        );
        let (a, b, d) = (c.px(1.0), c.px(2.0), c.px(4.0));
        assert!(((b - a) - (d - b)).abs() < 1e-9);
        assert_eq!(c.px(1.0), LEFT);
        assert_eq!(c.px(8.0), 640.0 - RIGHT);
    }

    #[test]
    fn reversed_scale_puts_the_first_row_on_top() {
        let c = Chart::new(
            640.0,
            300.0,
            Scale::Linear { min: 0.0, max: 1.0 },
            Scale::Linear {
                min: 2.5,
                max: -0.5,
            },
        );
        assert!(c.py(0.0) < c.py(1.0) && c.py(1.0) < c.py(2.0));
        assert_eq!(c.py(-0.5), TOP);
    }

    #[test]
    fn nice_ticks_are_round_and_inside() {
        let t = nice_ticks(-0.3, 0.55, 5, |v| format!("{v:.1}"));
        let vals: Vec<f64> = t.iter().map(|t| t.0).collect();
        // span 0.85 / 5 = 0.17 → step 0.2: −0.2, 0, 0.2, 0.4.
        assert_eq!(vals.len(), 4);
        assert!((vals[0] + 0.2).abs() < 1e-12 && (vals[3] - 0.4).abs() < 1e-12);
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
