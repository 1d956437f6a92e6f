//! The report page's accuracy-vs-budget plot (with a breakdown and a
//! budget): one marker per (group, k) at (budget@k, pass@k), the frontier
//! line through the report's non-dominated points (`Report.frontier`).

use super::html::{exact, legend};
use super::svg::{esc, percent_ticks, Chart, Scale, Tick};
use rollstat::Report;
use rollstat_core::aggregate::Metric;
use std::fmt::Write as _;

/// A (group, k) point: budget@k and pass@k of the group.
struct Point<'a> {
    group: &'a str,
    series: usize,
    k: u64,
    budget: f64,
    pass: f64,
}

/// Every (group, k) with both budget@k and pass@k, groups in report order.
fn points(r: &Report) -> Vec<Point<'_>> {
    let mut out = Vec::new();
    for (series, (group, g)) in r.groups.iter().enumerate() {
        for (name, e) in g.block.metrics.iter() {
            let Ok(Metric::BudgetAtK(k)) = name.parse::<Metric>() else {
                continue;
            };
            if let Some(p) = g.block.metrics.get(&Metric::PassAtK(k).to_string()) {
                out.push(Point {
                    group,
                    series,
                    k,
                    budget: e.value,
                    pass: p.value,
                });
            }
        }
    }
    out
}

/// Ticks at 1, 2 and 5 times the powers of ten inside [min, max] (a log
/// axis), thinned to about six.
fn log_ticks(min: f64, max: f64) -> Vec<Tick> {
    let mut ticks = Vec::new();
    let (lo, hi) = (min.log10().floor() as i32, max.log10().ceil() as i32);
    for e in lo..=hi {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(e);
            if v >= min && v <= max {
                ticks.push((v, rollstat::trim_float(v)));
            }
        }
    }
    if ticks.len() > 7 {
        ticks.retain(|(v, _)| {
            (v.log10().fract().abs() < 1e-9) || (v.log10().fract() - 1.0).abs() < 1e-9
        });
    }
    ticks
}

/// Linear ticks from 0 to a round top.
fn linear_ticks(max: f64) -> Vec<Tick> {
    super::svg::nice_ticks(0.0, max, 5, rollstat::trim_float)
}

/// The x scale: log when budgets span more than 10×, else linear from 0.
fn x_axis(pts: &[Point]) -> (Scale, Vec<Tick>, bool) {
    let min = pts.iter().map(|p| p.budget).fold(f64::INFINITY, f64::min);
    let max = pts
        .iter()
        .map(|p| p.budget)
        .fold(f64::NEG_INFINITY, f64::max);
    if min > 0.0 && max / min > 10.0 {
        let (lo, hi) = (min / 1.3, max * 1.3);
        (Scale::Log2 { min: lo, max: hi }, log_ticks(lo, hi), true)
    } else {
        let hi = max * 1.1;
        (Scale::Linear { min: 0.0, max: hi }, linear_ticks(hi), false)
    }
}

/// The section, when the report has a frontier.
pub fn section(r: &Report, out: &mut String) {
    let pts = points(r);
    if r.frontier.is_empty() || pts.is_empty() {
        return;
    }
    let by = r.config.by.as_deref().unwrap_or("group");
    let field = r
        .health
        .budget
        .as_ref()
        .map_or("budget", |b| b.field.as_str());
    out.push_str("<h2 id=\"frontier-h\">Accuracy against budget</h2>\n");
    let (x, xticks, log) = x_axis(&pts);
    let mut chart = Chart::new(720.0, 380.0, x, Scale::Linear { min: 0.0, max: 1.0 });
    let scale = if log { ", log scale" } else { "" };
    chart.axes(
        &xticks,
        &percent_ticks(),
        &format!("budget@k: mean {field} per problem for k draws{scale}"),
        "pass@k (% of problems)",
    );
    let line: Vec<(f64, f64)> = r.frontier.iter().map(|f| (f.budget, f.pass)).collect();
    chart.line(&line, "line s6");
    for p in &pts {
        marker(p, (by, field), &mut chart);
    }
    let on: Vec<String> = r
        .frontier
        .iter()
        .map(|f| format!("{}:{}", f.group, f.k))
        .collect();
    let _ = write!(
        out,
        "<div id=\"frontier\" data-frontier=\"{}\">",
        esc(&on.join(","))
    );
    out.push_str(&chart.finish("plot-frontier", "pass@k against budget@k per group and k"));
    out.push_str("</div>\n");
    out.push_str(&group_legend(r, by));
    let _ = writeln!(
        out,
        "<p class=\"note\">One marker per {} and k (k = draws per problem, out of n = {}); pass@k is the unbiased estimate from the n rollouts, budget@k is k × the problem's mean {field} per rollout, averaged over problems. The line joins the points no cheaper point beats.</p>",
        esc(by),
        r.config.n
    );
}

/// One (group, k) point, coloured by its group and labelled with its k;
/// `by` names the breakdown field and `field` the budget's.
fn marker(p: &Point, (by, field): (&str, &str), chart: &mut Chart) {
    let class = format!("s{}", p.series % 5 + 1);
    let tip = format!(
        "{by} = {}, k = {}: pass@{} {:.2}% at {} {field}",
        p.group,
        p.k,
        p.k,
        p.pass * 100.0,
        rollstat::trim_float(p.budget)
    );
    let data = format!(
        " data-group=\"{}\" data-k=\"{}\" data-budget=\"{}\" data-pass=\"{}\"",
        esc(p.group),
        p.k,
        exact(p.budget),
        exact(p.pass)
    );
    chart.point(p.budget, p.pass, &class, &tip, &data);
    chart.label_at(
        (p.budget, p.pass),
        (6.0, -6.0),
        "start",
        &format!("k={}", p.k),
    );
}

/// The legend: one colour per group (in the points' order), then the frontier line.
fn group_legend(r: &Report, by: &str) -> String {
    let mut items: Vec<(String, String)> = r
        .groups
        .iter()
        .enumerate()
        .map(|(i, (g, _))| (format!("sq s{}", i % 5 + 1), format!("{by} = {g}")))
        .collect();
    items.push((
        "s6".into(),
        "frontier: the best pass@k at each budget".into(),
    ));
    let items: Vec<(&str, String)> = items.iter().map(|(c, t)| (c.as_str(), t.clone())).collect();
    legend(&items)
}
