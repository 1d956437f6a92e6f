//! The compare page's per-problem scatter: each problem a dot at (A's
//! value, B's value) with the diagonal, for the headline metric whose
//! values are not 0/1 per problem (0/1 metrics get the discordant pairs).
//! Above [`BIN_ABOVE`] problems the dots become a count grid.

use super::html::{exact, legend};
use super::svg::{esc, nice_ticks, percent_ticks, Chart, Scale, Tick};
use rollstat::{CompareRow as Row, Comparison};
use std::fmt::Write as _;

/// Above this many problems the scatter is binned: the page stays small
/// and a cloud of thousands of dots would hide its density anyway.
pub const BIN_ABOVE: usize = 2000;
/// Cells per axis of the binned scatter.
pub const GRID: usize = 40;

/// The row the scatter shows: the first overall row with per-problem
/// values (rows are in report order, pass@1 first) that is not another
/// row by definition.
fn headline(c: &Comparison) -> Option<&Row> {
    c.rows
        .iter()
        .find(|r| r.group.is_none() && r.same_as.is_none() && !r.per_problem.is_empty())
}

/// Axis range and ticks: 0–100 % when every value is a fraction, else
/// round numbers around the values.
fn axis(pts: &[(f64, f64)]) -> (f64, f64, Vec<Tick>, bool) {
    let vals = pts.iter().flat_map(|&(a, b)| [a, b]);
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    if lo >= 0.0 && hi <= 1.0 {
        return (0.0, 1.0, percent_ticks(), true);
    }
    let pad = ((hi - lo) * 0.05).max(1e-9);
    let (lo, hi) = (lo - pad, hi + pad);
    (lo, hi, nice_ticks(lo, hi, 5, rollstat::trim_float), false)
}

/// The scatter section (heading, plot, counts above and below the
/// diagonal, legend).
pub fn section(c: &Comparison, out: &mut String) {
    out.push_str("<h2 id=\"scatter-h\">Per problem: A against B</h2>\n");
    let Some(r) = headline(c) else {
        out.push_str("<p class=\"note\">No metric has per-problem values other than 0/1 here (0/1 metrics are counted as discordant pairs below; a comparison read back from compare.json carries no per-problem values).</p>\n");
        return;
    };
    let pts = &r.per_problem;
    let (lo, hi, ticks, percent) = axis(pts);
    let scale = Scale::Linear { min: lo, max: hi };
    let mut chart = Chart::new(460.0, 440.0, scale, scale);
    let unit = if percent { " (%)" } else { "" };
    chart.axes(
        &ticks,
        &ticks,
        &format!("A: {} per problem{unit}", r.metric),
        &format!("B: {} per problem{unit}", r.metric),
    );
    chart.line(&[(lo, lo), (hi, hi)], "ref");
    let binned = pts.len() > BIN_ABOVE;
    if binned {
        grid(&mut chart, pts, (lo, hi));
    } else {
        for &(a, b) in pts {
            let data = format!(" data-a=\"{}\" data-b=\"{}\"", exact(a), exact(b));
            chart.dot(a, b, "dot", &data);
        }
    }
    let b_higher = pts.iter().filter(|(a, b)| b > a).count();
    let a_higher = pts.iter().filter(|(a, b)| a > b).count();
    let equal = pts.len() - a_higher - b_higher;
    let _ = write!(
        out,
        "<div id=\"scatter\" data-metric=\"{}\" data-problems=\"{}\" data-b-higher=\"{b_higher}\" data-a-higher=\"{a_higher}\" data-equal=\"{equal}\" data-binned=\"{binned}\">",
        esc(&r.metric),
        pts.len()
    );
    let label = format!("{} per problem, A against B", r.metric);
    out.push_str(&chart.finish("plot-scatter", &label));
    out.push_str("</div>\n");
    let mark = if binned {
        format!(
            "{} problems in a {GRID} × {GRID} grid; darker = more problems",
            pts.len()
        )
    } else {
        format!(
            "one dot per problem ({}); darker = several on one spot",
            pts.len()
        )
    };
    out.push_str(&legend(&[("sq s1", mark), ("ref", "B = A".into())]));
    let _ = writeln!(
        out,
        "<p class=\"note\">A = {}, B = {}. {}: B higher on {b_higher} problems (above the diagonal), A higher on {a_higher}, equal on {equal}. Each value is the problem's own estimate from its rollouts.</p>",
        esc(&c.a.name),
        esc(&c.b.name),
        esc(&r.metric)
    );
}

/// The binned scatter: problems counted in a [`GRID`]² grid over the
/// axis range, each non-empty cell shaded by its count.
fn grid(chart: &mut Chart, pts: &[(f64, f64)], (lo, hi): (f64, f64)) {
    let width = (hi - lo) / GRID as f64;
    let cell_of = |v: f64| (((v - lo) / width).floor().max(0.0) as usize).min(GRID - 1);
    let mut counts = vec![0u64; GRID * GRID];
    for &(a, b) in pts {
        counts[cell_of(b) * GRID + cell_of(a)] += 1;
    }
    let top = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    for (i, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
        let (row, col) = (i / GRID, i % GRID);
        let (x0, y0) = (lo + col as f64 * width, lo + row as f64 * width);
        let opacity = 0.15 + 0.85 * n as f64 / top;
        let tip = format!("{n} problems");
        let data = format!(" data-count=\"{n}\"");
        chart.cell((x0, y0), (x0 + width, y0 + width), opacity, &tip, &data);
    }
    chart.label_at(
        (lo, hi),
        (6.0, 14.0),
        "start",
        &format!("{} problems binned ({GRID} × {GRID})", pts.len()),
    );
}
