//! `--format html` for a report: one self-contained page (inline CSS and
//! SVG, no script, nothing fetched), drawn from the same [`Report`] the
//! JSON is. Every number a plot draws is also in a `data-*` attribute with
//! its exact value, so tests can hold the page to report.json.

use super::svg::{esc, nice_ticks, percent_ticks, Chart, Scale, Tick};
use super::{human_ci, human_stderr, human_value, shown_in, View};
use crate::Words;
use rollstat::{Difficulty, Health, MetricBlock, MetricEntry, Report};
use rollstat_core::catalogue::{self, Family, MetricKey, CATALOGUE};
use std::fmt::Write as _;

/// The page's stylesheet: Okabe–Ito colours (colour-blind safe), light and
/// dark schemes, and a layout that fits a phone.
pub(crate) const CSS: &str = r#"
:root{--bg:#ffffff;--fg:#1b1b1f;--muted:#5b5b66;--grid:#e3e3e8;--panel:#f6f6f8;
--c1:#0072B2;--c2:#D55E00;--c3:#009E73;--c4:#CC79A7;--c5:#E69F00;--c6:#56B4E9;--ok:#009E73;--bad:#D55E00;--mid:#8a6d00}
@media (prefers-color-scheme:dark){:root{--bg:#16161a;--fg:#ececf1;--muted:#a4a4b0;--grid:#34343c;--panel:#202026;
--c1:#56B4E9;--c2:#E69F00;--c3:#2fc39a;--c4:#e09bc2;--c5:#F0E442;--c6:#8fd0f5;--ok:#2fc39a;--bad:#ff8a4c;--mid:#f0e442}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1000px;padding:12px 16px 40px;background:var(--bg);color:var(--fg);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.45em;margin:.4em 0}h2{font-size:1.15em;margin:1.6em 0 .4em;border-bottom:1px solid var(--grid)}
p.note,.muted{color:var(--muted);font-size:.9em}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.3em 0}
th,td{padding:3px 9px;border-bottom:1px solid var(--grid);text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left;white-space:normal}
th{font-weight:600}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:.3em 0}
dl.kv dt{color:var(--muted)}dl.kv dd{margin:0;overflow-wrap:anywhere}
.panel{background:var(--panel);border-radius:8px;padding:8px 12px;margin:.6em 0}
svg.plot{width:100%;height:auto;display:block;max-width:760px}
svg text{fill:var(--fg);font:12px system-ui,sans-serif}
svg text.tick{fill:var(--muted);font-size:11px}svg text.value{font-size:11px}
.grid{stroke:var(--grid);stroke-width:1}.frame{fill:none;stroke:var(--muted);stroke-width:1}
.ref{stroke:var(--muted);stroke-width:1.2}.margin{stroke:var(--bad);stroke-width:1.5;stroke-dasharray:6 4}
.line{fill:none;stroke-width:2.2}.band{stroke:none;opacity:.18}.err{fill:none;stroke-width:1.6}
.s1{stroke:var(--c1);fill:var(--c1)}.s2{stroke:var(--c2);fill:var(--c2)}.s3{stroke:var(--c3);fill:var(--c3)}
.s4{stroke:var(--c4);fill:var(--c4)}.s5{stroke:var(--c5);fill:var(--c5)}.s6{stroke:var(--c6);fill:var(--c6)}
path.line.s2{stroke-dasharray:7 4}path.line.s3{stroke-dasharray:2 3}path.line.s4{stroke-dasharray:9 3 2 3}
path.line{fill:none}
.ok{stroke:var(--ok);fill:var(--ok);color:var(--ok)}.bad{stroke:var(--bad);fill:var(--bad);color:var(--bad)}
.mid{stroke:var(--mid);fill:var(--mid);color:var(--mid)}.none{stroke:var(--muted);fill:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:.9em;margin:.2em 0 .6em}
.sw{display:inline-block;width:22px;height:0;border-top:3px solid;vertical-align:middle;margin-right:5px}
.sw.s1{border-color:var(--c1)}.sw.s2{border-color:var(--c2);border-top-style:dashed}
.sw.s3{border-color:var(--c3);border-top-style:dotted}.sw.s4{border-color:var(--c4);border-top-style:dashed}
.sw.s5{border-color:var(--c5)}.sw.s6{border-color:var(--c6)}
.sw.ok{border-color:var(--ok)}.sw.bad{border-color:var(--bad)}.sw.mid{border-color:var(--mid)}
.sw.ref{border-color:var(--muted)}.sw.margin{border-color:var(--bad);border-top-style:dashed}
.sw.sq{width:12px;height:12px;border-top:none}.sq.s1{background:var(--c1)}.sq.s2{background:var(--c2)}
.sq.s3{background:var(--c3)}.sq.s4{background:var(--c4)}.sq.s5{background:var(--c5)}
#plot-scatter{max-width:460px}.dot{stroke:none;fill:var(--c1);opacity:.45}.cell{stroke:none;fill:var(--c1)}
.bar{stroke:none}.bar.never{fill:var(--c2)}.bar.always{fill:var(--c3)}.bar.some{fill:var(--c1)}
ul.findings{margin:.3em 0;padding-left:1.2em}
nav.toc{font-size:.9em;margin:.2em 0 .8em}.wide table{font-size:.86em}.wide th,.wide td{padding:3px 6px}a{color:var(--c1)}
@media (max-width:600px){body{font-size:14px;padding:8px}th,td{padding:2px 5px}
svg text{font-size:17px}svg text.tick,svg text.value{font-size:15px}}
"#;

/// The page around `body`: doctype, charset, viewport, title and style.
pub(crate) fn page(title: &str, body: &str) -> String {
    page_styled(title, body, "")
}

/// [`page`] with `extra` CSS after the common stylesheet.
pub(crate) fn page_styled(title: &str, body: &str, extra: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>{}</title>\n<style>{CSS}{extra}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        esc(title)
    )
}

/// A table from header cells and rows of already escaped cells; each row
/// may carry attributes (`data-…`).
pub(crate) fn table(header: &[&str], rows: &[(String, Vec<String>)], out: &mut String) {
    out.push_str("<div class=\"scroll\"><table>\n<thead><tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", esc(h));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (attrs, cells) in rows {
        let _ = write!(out, "<tr{attrs}>");
        for c in cells {
            let _ = write!(out, "<td>{c}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
}

/// A legend: (CSS class, label) pairs.
pub(crate) fn legend(items: &[(&str, String)]) -> String {
    let mut out = String::from("<div class=\"legend\">");
    for (class, label) in items {
        let _ = write!(
            out,
            "<span><span class=\"sw {class}\"></span>{}</span>",
            esc(label)
        );
    }
    out.push_str("</div>\n");
    out
}

/// A `<dl>` of key → value (values escaped here).
pub(crate) fn key_values(items: &[(&str, String)], out: &mut String) {
    out.push_str("<dl class=\"kv\">\n");
    for (k, v) in items {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    out.push_str("</dl>\n");
}

/// The exact value of a number for `data-*` attributes (shortest text that
/// reads back to the same f64).
pub(crate) fn exact(v: f64) -> String {
    format!("{v:?}")
}

/// The report page.
pub fn render(r: &Report, view: View, words: &Words) -> String {
    let mut b = String::new();
    header(r, &mut b);
    contents(r, &mut b);
    headline(r, view, &mut b);
    curves(&r.block, &mut b);
    difficulty(&r.health.difficulty, &mut b);
    prefix_vs_pass(&r.block, &mut b);
    variance(&r.block, &mut b);
    health(&r.health, words, &mut b);
    if !r.groups.is_empty() {
        groups(r, &mut b);
    }
    super::frontier::section(r, &mut b);
    if let Some(x) = &r.extrapolation {
        extrapolation(x, &mut b);
    }
    super::html_reliability::section(r, &mut b);
    if !r.harness.is_empty() {
        harness(r, &mut b);
    }
    let _ = writeln!(
        b,
        "<p class=\"note\">Written by rollstat {} ({}). Every number comes from the same report as the JSON document (report.json).</p>",
        esc(&r.version),
        esc(&r.schema)
    );
    let names: Vec<&str> = r.inputs.iter().map(|i| i.path.as_str()).collect();
    page(&format!("rollstat report — {}", names.join(", ")), &b)
}

/// Links to the sections (in-page anchors only).
fn contents(r: &Report, out: &mut String) {
    let mut items = vec![
        ("metrics", "metrics"),
        ("curves", "pass@k curves"),
        ("difficulty-h", "difficulty"),
        ("prefix", "prefix@k"),
        ("variance", "variance split"),
        ("health-h", "health"),
    ];
    if !r.groups.is_empty() {
        items.push(("groups", "groups"));
    }
    if !r.frontier.is_empty() {
        items.push(("frontier-h", "budget frontier"));
    }
    if r.extrapolation.is_some() {
        items.push(("extrapolation", "extrapolation"));
    }
    if r.reliability.is_some() {
        items.push(("reliability-h", "run-to-run reliability"));
    }
    if !r.harness.is_empty() {
        items.push(("harness", "harness"));
    }
    nav(&items, out);
}

/// A line of in-page links.
pub(crate) fn nav(items: &[(&str, &str)], out: &mut String) {
    let links: Vec<String> = items
        .iter()
        .map(|(id, text)| format!("<a href=\"#{id}\">{}</a>", esc(text)))
        .collect();
    let _ = writeln!(out, "<nav class=\"toc\">{}</nav>", links.join(" · "));
}

fn header(r: &Report, out: &mut String) {
    out.push_str("<h1>rollstat report</h1>\n<h2 id=\"inputs\">Inputs</h2>\n");
    let rows: Vec<(String, Vec<String>)> = r
        .inputs
        .iter()
        .map(|i| {
            let sha = i.sha256.get(..12).unwrap_or(&i.sha256);
            let cells = vec![
                esc(&i.path),
                esc(&i.format),
                format!("<span title=\"{}\">{}</span>", esc(&i.sha256), esc(sha)),
                i.records.to_string(),
            ];
            (String::new(), cells)
        })
        .collect();
    table(&["path", "format", "sha256", "rows"], &rows, out);
    out.push_str("<h2 id=\"configuration\">Configuration</h2>\n");
    let c = &r.config;
    let ci = &c.ci;
    let mut ci_text = crate::markup::ci_label(&ci.method, ci.level);
    if let (Some(res), Some(seed)) = (ci.resamples, ci.seed) {
        let _ = write!(ci_text, ", {res} resamples, seed {seed}");
    }
    if let Some(cl) = &ci.cluster_by {
        let _ = write!(ci_text, ", clustered by {cl}");
    }
    let ks: Vec<String> = c.k.iter().map(u64::to_string).collect();
    let mut items = vec![
        (
            "n (rollouts per problem)",
            format!("{} ({})", c.n, c.n_source),
        ),
        ("k", ks.join(", ")),
        ("interval", ci_text),
        ("maj@k tie policy", c.tie_policy.to_string()),
        ("denominator", c.denominator_policy.to_string()),
        ("answer clustering", c.answer_clustering.clone()),
    ];
    if let Some(by) = &c.by {
        items.push(("breakdown", by.clone()));
    }
    key_values(&items, out);
}

/// The metric rows of a block that `view` shows, as table rows whose
/// `data-*` attributes hold the exact values.
fn metric_rows(
    block: &MetricBlock,
    n: u64,
    view: View,
    group: Option<&str>,
) -> Vec<(String, Vec<String>)> {
    block
        .metrics
        .iter()
        .filter(|(name, e)| shown_in(view, n, name, e))
        .map(|(name, e)| {
            let mut attrs = format!(
                " data-metric=\"{}\" data-value=\"{}\"",
                esc(name),
                exact(e.value)
            );
            if let Some(g) = group {
                let _ = write!(attrs, " data-group=\"{}\"", esc(g));
            }
            let mut label = esc(name);
            if let Some(same) = &e.same_as {
                let _ = write!(label, " <span class=\"muted\">(= {})</span>", esc(same));
            }
            let cells = vec![
                label,
                esc(&human_value(e)),
                esc(&human_stderr(e)),
                esc(&human_ci(e)),
                e.n_problems.to_string(),
                e.n_excluded.to_string(),
            ];
            (attrs, cells)
        })
        .collect()
}

const METRIC_HEADER: [&str; 6] = ["metric", "value", "±stderr", "CI", "problems", "excluded"];

/// A chart with one labelled row per name (top to bottom) against a 0–100 %
/// x axis: the layout of the variance split and the per-group dot plot.
fn percent_rows(names: &[String], row_height: f64, left: f64, x_label: &str) -> Chart {
    let count = names.len() as f64;
    let y = Scale::Linear {
        min: count - 0.5,
        max: -0.5,
    };
    let x = Scale::Linear { min: 0.0, max: 1.0 };
    let mut chart = Chart::new(680.0, 70.0 + row_height * count, x, y).with_left(left);
    chart.axes(&percent_ticks(), &[], x_label, "");
    let labels: Vec<(f64, String)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (i as f64, n.clone()))
        .collect();
    chart.row_labels(&labels);
    chart
}

fn headline(r: &Report, view: View, out: &mut String) {
    out.push_str("<h2 id=\"metrics\">Metrics</h2>\n");
    let c = &r.config;
    let ci = if c.ci.method == "none" {
        "no interval asked".to_string()
    } else {
        format!("CI: {}", crate::markup::ci_label(&c.ci.method, c.ci.level))
    };
    let _ = writeln!(
        out,
        "<p class=\"note\">Means over problems, in % of problems (distinct answers: a count); ±stderr is sd/√N over per-problem values; {}; n = {}.</p>",
        esc(&ci),
        c.n
    );
    let id = "headline";
    let _ = writeln!(out, "<div id=\"{id}\">");
    table(&METRIC_HEADER, &metric_rows(&r.block, c.n, view, None), out);
    out.push_str("</div>\n");
    if let Some(note) = super::answer_note(&r.block, c) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&note));
    }
    if let Some(line) = super::hidden_summary(&r.block, c.n, view, None) {
        let _ = writeln!(
            out,
            "<p class=\"note\">Headline metrics; {}</p>",
            esc(&line)
        );
    }
    if !view.all {
        let all = View {
            all: true,
            tau_asked: true,
        };
        let _ = writeln!(
            out,
            "<details><summary>Every metric ({}), as in report.json</summary>",
            r.block.metrics.len()
        );
        table(&METRIC_HEADER, &metric_rows(&r.block, c.n, all, None), out);
        out.push_str("</details>\n");
    }
    not_computable(&r.block, out);
}

fn not_computable(block: &MetricBlock, out: &mut String) {
    if block.not_computable.is_empty() {
        return;
    }
    out.push_str("<p class=\"note\">Not computable: ");
    let items: Vec<String> = block
        .not_computable
        .iter()
        .map(|(m, why)| format!("{} ({})", esc(m), esc(why)))
        .collect();
    out.push_str(&items.join("; "));
    out.push_str("</p>\n");
}

/// One curve: a family's (k, entry) points, ascending in k.
struct Curve<'a> {
    /// The legend label (`pass@k`).
    label: String,
    /// The series class (`s1`: the same colour in every chart).
    class: String,
    points: Vec<(u64, &'a str, &'a MetricEntry)>,
}

/// The entries of `family` (pass@k, maj@k, …) that have a k, by k.
fn family_points(block: &MetricBlock, family: Family) -> Vec<(u64, &str, &MetricEntry)> {
    let mut pts: Vec<(u64, &str, &MetricEntry)> = block
        .metrics
        .iter()
        .filter_map(|(name, e)| {
            let key = name.parse::<MetricKey>().ok()?;
            (key.family() == family).then_some((key.k()?, name.as_str(), e))
        })
        .filter(|(_, _, e)| e.unit.is_fraction())
        .collect();
    pts.sort_by_key(|p| p.0);
    pts
}

/// The families the catalogue draws in `chart`, with their series number.
fn chart_families(chart: catalogue::Chart) -> Vec<(Family, u8, &'static str)> {
    CATALOGUE
        .iter()
        .filter_map(|s| {
            let plot = s.plot?;
            plot.charts
                .contains(&chart)
                .then_some((s.family, plot.series, s.grammar))
        })
        .collect()
}

/// A value-against-k chart (log2 k axis, % axis) with CI bands, from the
/// families the catalogue draws in it that are present; `None` when no
/// family has a point.
fn k_chart(block: &MetricBlock, chart: catalogue::Chart, id: &str, label: &str) -> Option<String> {
    let curves: Vec<Curve> = chart_families(chart)
        .into_iter()
        .map(|(family, series, grammar)| Curve {
            label: grammar.replace("{k}", "k"),
            class: format!("s{series}"),
            points: family_points(block, family),
        })
        .filter(|c| !c.points.is_empty())
        .collect();
    let ks: Vec<u64> = {
        let mut ks: Vec<u64> = curves
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0))
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    let (lo, hi) = (*ks.first()? as f64, *ks.last()? as f64);
    // A little room beyond the end points, so a marker or bar at the
    // smallest or largest k is not drawn on the frame.
    let pad = if hi > lo {
        (hi / lo).log2() * 0.04
    } else {
        1.0
    };
    let x = Scale::Log2 {
        min: lo / pad.exp2(),
        max: hi * pad.exp2(),
    };
    let mut chart = Chart::new(680.0, 330.0, x, Scale::Linear { min: 0.0, max: 1.0 });
    let xticks: Vec<Tick> = ks.iter().map(|&k| (k as f64, k.to_string())).collect();
    chart.axes(
        &xticks,
        &percent_ticks(),
        "k (rollouts drawn, log₂ scale)",
        "value (% of problems)",
    );
    for c in &curves {
        draw_curve(&mut chart, c);
    }
    let items: Vec<(&str, String)> = curves
        .iter()
        .map(|c| (c.class.as_str(), c.label.clone()))
        .collect();
    let mut out = chart.finish(id, label);
    out.push_str(&legend(&items));
    Some(out)
}

fn draw_curve(chart: &mut Chart, c: &Curve) {
    let with_ci: Vec<(f64, f64, f64)> = c
        .points
        .iter()
        .filter_map(|(k, _, e)| e.ci.as_ref().map(|i| (*k as f64, i.lower, i.upper)))
        .collect();
    if with_ci.len() >= 2 {
        let lower: Vec<(f64, f64)> = with_ci.iter().map(|p| (p.0, p.1)).collect();
        let upper: Vec<(f64, f64)> = with_ci.iter().map(|p| (p.0, p.2)).collect();
        chart.band(&lower, &upper, &format!("band {}", c.class));
    } else {
        for (x, l, u) in &with_ci {
            chart.vbar(*x, *l, *u, &format!("err {}", c.class));
        }
    }
    let pts: Vec<(f64, f64)> = c
        .points
        .iter()
        .map(|(k, _, e)| (*k as f64, e.value))
        .collect();
    if pts.len() >= 2 {
        chart.line(&pts, &format!("line {}", c.class));
    }
    for (k, name, e) in &c.points {
        let tip = format!("{name}: {} {}", human_value(e), human_ci(e));
        let data = format!(
            " data-metric=\"{}\" data-value=\"{}\"",
            esc(name),
            exact(e.value)
        );
        chart.point(*k as f64, e.value, &c.class, &tip, &data);
    }
}

fn curves(block: &MetricBlock, out: &mut String) {
    out.push_str("<h2 id=\"curves\">pass@k, pass^k and majority vote against k</h2>\n");
    match k_chart(
        block,
        catalogue::Chart::AgainstK,
        "plot-k",
        "pass@k, pass^k and maj@k against k",
    ) {
        Some(svg) => {
            out.push_str(&svg);
            out.push_str("<p class=\"note\">pass@k: at least one of k drawn rollouts correct (the oracle ceiling); pass^k: all k correct; maj@k: the most frequent answer of k is correct. Shaded: the confidence interval of each value (a bar where a family has one k).</p>\n");
        }
        None => out.push_str("<p class=\"note\">No pass@k, pass^k or maj@k value to draw.</p>\n"),
    }
}

fn prefix_vs_pass(block: &MetricBlock, out: &mut String) {
    out.push_str("<h2 id=\"prefix\">prefix@k (first k rollouts) against pass@k (unbiased)</h2>\n");
    if family_points(block, Family::PrefixAtK).is_empty() {
        out.push_str("<p class=\"note\">No prefix@k value (it needs rollout order).</p>\n");
        return;
    }
    if let Some(svg) = k_chart(
        block,
        catalogue::Chart::PrefixAgainstPass,
        "plot-prefix",
        "prefix@k against pass@k",
    ) {
        out.push_str(&svg);
        out.push_str("<p class=\"note\">prefix@k scores only the first k rollouts of each problem (what a run with n = k would have reported); pass@k averages over every k-subset of the n rollouts. A gap beyond the bands suggests the rollout order matters.</p>\n");
    }
}

/// "1 problem", "3 problems".
fn problems(n: u64) -> String {
    if n == 1 {
        "1 problem".into()
    } else {
        format!("{n} problems")
    }
}

fn difficulty(d: &Difficulty, out: &mut String) {
    out.push_str(
        "<h2 id=\"difficulty-h\">Problem difficulty: how often each problem was solved</h2>\n",
    );
    if d.n_problems == 0 || d.histogram.is_empty() {
        out.push_str("<p class=\"note\">No problem with rollouts.</p>\n");
        return;
    }
    let chart = difficulty_chart(d);
    let _ = write!(
        out,
        "<div id=\"difficulty\" data-never=\"{}\" data-always=\"{}\" data-counts=\"{}\">",
        d.never_solved,
        d.always_solved,
        d.histogram
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    out.push_str(&chart.finish("plot-difficulty", "histogram of per-problem solve rates"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        (
            "sq s2",
            format!("never solved (c = 0): {}", problems(d.never_solved)),
        ),
        ("sq s1", "sometimes solved".to_string()),
        (
            "sq s3",
            format!("always solved (c = n): {}", problems(d.always_solved)),
        ),
    ]));
    let _ = writeln!(out, "<p class=\"note\">{}; bar j counts the problems whose c/n is nearest j/{}. Never-solved problems cap pass@k below 100% at every k; always-solved ones carry no information about differences between systems.</p>", problems(d.n_problems), d.bins);
}

/// The solve-rate histogram: axes, then one bar per bin (bin j at c/n = j/bins).
fn difficulty_chart(d: &Difficulty) -> Chart {
    let bins = d.bins.max(1) as f64;
    let top = d.histogram.iter().copied().max().unwrap_or(1).max(1) as f64;
    let x = Scale::Linear {
        min: -0.5 / bins,
        max: 1.0 + 0.5 / bins,
    };
    let mut chart = Chart::new(
        680.0,
        300.0,
        x,
        Scale::Linear {
            min: 0.0,
            max: top * 1.12,
        },
    );
    let every = (d.histogram.len() / 10).max(1);
    let xticks: Vec<Tick> = (0..d.histogram.len())
        .step_by(every)
        .map(|j| {
            (
                j as f64 / bins,
                format!("{}%", rollstat::trim_float(100.0 * j as f64 / bins)),
            )
        })
        .collect();
    let yticks = nice_ticks(0.0, top, 4.min(top as usize).max(1), |v| format!("{v:.0}"));
    chart.axes(
        &xticks,
        &yticks,
        "solve rate c/n (share of a problem's rollouts that are correct)",
        "problems",
    );
    difficulty_bars(d, bins, &mut chart);
    chart
}

/// The bars, never-solved and always-solved in their own colours, each with its count above.
fn difficulty_bars(d: &Difficulty, bins: f64, chart: &mut Chart) {
    let last = d.histogram.len() - 1;
    for (j, &count) in d.histogram.iter().enumerate() {
        let class = match j {
            0 => "bar never",
            j if j == last => "bar always",
            _ => "bar some",
        };
        let xc = j as f64 / bins;
        let w = 0.4 / bins;
        let tip = format!(
            "c/n ≈ {}%: {}",
            rollstat::trim_float(100.0 * xc),
            problems(count)
        );
        chart.count_bar(xc, w, count, class, &tip);
    }
}

fn variance(block: &MetricBlock, out: &mut String) {
    out.push_str(
        "<h2 id=\"variance\">Where the uncertainty comes from: between and within problems</h2>\n",
    );
    let rows: Vec<(&String, &rollstat::VarianceEntry)> = block
        .metrics
        .iter()
        .filter_map(|(name, e)| e.variance.as_ref().map(|v| (name, v)))
        .collect();
    if rows.is_empty() {
        out.push_str("<p class=\"note\">No variance split (it needs pass@k with n ≥ 2k).</p>\n");
        return;
    }
    let names: Vec<String> = rows.iter().map(|(n, _)| n.to_string()).collect();
    let mut chart = percent_rows(
        &names,
        34.0,
        90.0,
        "share of the per-problem variance of the value (%)",
    );
    for (i, (name, v)) in rows.iter().enumerate() {
        let total = v.between + v.within;
        let share = if total > 0.0 { v.between / total } else { 0.0 };
        let yi = i as f64;
        let tip_b = format!("{name}: between {:.4} ({:.0}%)", v.between, 100.0 * share);
        let tip_w = format!(
            "{name}: within {:.4} ({:.0}%)",
            v.within,
            100.0 * (1.0 - share)
        );
        chart.rect((0.0, yi - 0.3), (share, yi + 0.3), "bar s1", &tip_b);
        chart.rect((share, yi - 0.3), (1.0, yi + 0.3), "bar s5", &tip_w);
    }
    out.push_str(&chart.finish(
        "plot-variance",
        "between- and within-problem variance shares",
    ));
    out.push_str(&legend(&[
        (
            "sq s1",
            "between problems (which problems were drawn)".into(),
        ),
        (
            "sq s5",
            "within problems (which rollouts were sampled)".into(),
        ),
    ]));
    let _ = writeln!(out, "<ul class=\"findings\">{}</ul>", variance_items(&rows));
    out.push_str("<p class=\"note\">When between-problem variance dominates, more problems narrow the interval; when within dominates, more rollouts per problem do.</p>\n");
}

/// One list item per metric: its between and within variance and the advice.
fn variance_items(rows: &[(&String, &rollstat::VarianceEntry)]) -> String {
    let items: Vec<String> = rows
        .iter()
        .map(|(name, v)| {
            format!(
                "<li data-metric=\"{}\" data-between=\"{}\" data-within=\"{}\"><b>{}</b>: between {:.4}, within {:.4} → {}</li>",
                esc(name),
                exact(v.between),
                exact(v.within),
                esc(name),
                v.between,
                v.within,
                esc(&v.advice)
            )
        })
        .collect();
    items.join("")
}

fn health(h: &Health, words: &Words, out: &mut String) {
    out.push_str("<h2 id=\"health-h\">Health</h2>\n<div class=\"panel\" id=\"health\">\n");
    let r = &h.n_rollouts;
    let counts = [
        ("problems", h.n_problems),
        ("rollouts", h.n_rollouts_total),
        ("short problems (fewer rollouts than requested)", h.n_short),
        ("unextracted answers", h.n_unextracted),
        ("truncated rollouts", h.n_truncated),
        ("failed rollouts (no verdict)", h.n_failed),
        ("duplicated rollouts dropped", h.n_duplicate_rollouts),
        ("inconsistent answer clusters", h.n_inconsistent_clusters),
        ("bad lines skipped", h.n_bad_lines),
    ];
    let rows: Vec<(String, Vec<String>)> = counts
        .iter()
        .map(|(k, v)| (String::new(), vec![esc(k), v.to_string()]))
        .collect();
    table(&["count", "value"], &rows, out);
    let _ = writeln!(
        out,
        "<p class=\"note\">Rollouts per problem: min {} / median {} / max {}, requested {}; denominator: {}.</p>",
        r.min, r.median, r.max, h.n_requested, h.denominator_policy
    );
    if h.warnings.is_empty() {
        out.push_str("<p>No findings: nothing in the input changes how to read the numbers.</p>\n");
    } else {
        out.push_str("<ul class=\"findings\">\n");
        for w in &h.warnings {
            let _ = writeln!(out, "<li>{}</li>", esc(&(words.finding)(w)));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</div>\n");
}

/// The metrics a group dot plot shows: the smallest and largest pass@k and
/// the last maj@k, those that exist.
fn group_metrics(block: &MetricBlock) -> Vec<String> {
    let pass = family_points(block, Family::PassAtK);
    let maj = family_points(block, Family::MajAtK);
    let mut out: Vec<String> = Vec::new();
    for p in [pass.first(), pass.last(), maj.last()]
        .into_iter()
        .flatten()
    {
        if !out.iter().any(|m| m == p.1) {
            out.push(p.1.to_string());
        }
    }
    out
}

fn groups(r: &Report, out: &mut String) {
    let by = r.config.by.as_deref().unwrap_or("group");
    let _ = writeln!(out, "<h2 id=\"groups\">By {}</h2>", esc(by));
    for (m, metric) in group_metrics(&r.block).iter().enumerate() {
        let rows: Vec<(&String, &MetricEntry)> = r
            .groups
            .iter()
            .filter_map(|(g, gr)| gr.block.metrics.get(metric).map(|e| (g, e)))
            .collect();
        if rows.is_empty() {
            continue;
        }
        let names: Vec<String> = rows.iter().map(|(g, _)| g.to_string()).collect();
        let mut chart = percent_rows(
            &names,
            30.0,
            130.0,
            &format!("{metric} (% of problems in the group), with CI"),
        );
        for (i, (g, e)) in rows.iter().enumerate() {
            if let Some(ci) = &e.ci {
                chart.hbar(i as f64, ci.lower, ci.upper, "err s1");
            }
            let tip = format!(
                "{by} = {g}: {metric} {} {} ({} problems)",
                human_value(e),
                human_ci(e),
                e.n_problems
            );
            let data = format!(
                " data-group=\"{}\" data-metric=\"{}\" data-value=\"{}\"",
                esc(g),
                esc(metric),
                exact(e.value)
            );
            chart.point(e.value, i as f64, "s1", &tip, &data);
        }
        out.push_str(&chart.finish(&format!("plot-groups-{m}"), &format!("{metric} by {by}")));
    }
    let view = View::default();
    for (g, gr) in r.groups.iter() {
        let _ = writeln!(
            out,
            "<details><summary>{} = {} ({} problems)</summary>",
            esc(by),
            esc(g),
            gr.health.n_problems
        );
        table(
            &METRIC_HEADER,
            &metric_rows(&gr.block, r.config.n, view, Some(g)),
            out,
        );
        out.push_str("</details>\n");
    }
}

/// pass@K beyond n (model-based), with the fit check in words.
fn extrapolation(x: &rollstat::Extrapolation, out: &mut String) {
    let _ = writeln!(
        out,
        "<h2 id=\"extrapolation\">pass@K beyond n — model-based</h2>\n<p class=\"note\">Beta-binomial fit, α = {}, β = {}, over {}.</p>",
        super::markup::short(x.alpha),
        super::markup::short(x.beta),
        problems(x.n_problems)
    );
    let rows: Vec<(String, Vec<String>)> = x
        .values
        .iter()
        .map(|(name, e)| {
            let ci = match (e.ci, e.level) {
                (Some([lo, hi]), Some(level)) => format!(
                    "[{:.2}, {:.2}]% ({} {})",
                    100.0 * lo,
                    100.0 * hi,
                    e.method,
                    crate::markup::level_label(level)
                ),
                _ => "–".into(),
            };
            let cells = vec![
                esc(name),
                format!("{:.2}%", 100.0 * e.value),
                e.stderr
                    .map_or("–".into(), |s| format!("±{:.2}%", 100.0 * s)),
                esc(&ci),
            ];
            let attrs = format!(
                " data-extrapolated=\"{}\" data-value=\"{}\"",
                esc(name),
                exact(e.value)
            );
            (attrs, cells)
        })
        .collect();
    table(&["metric", "value", "±stderr", "CI"], &rows, out);
    let _ = writeln!(
        out,
        "<p class=\"note\">{} {}.</p>",
        esc(&super::markup::fit_check(x)),
        esc(&x.label)
    );
}

fn harness(r: &Report, out: &mut String) {
    out.push_str("<h2 id=\"harness\">Harness aggregates against rollstat</h2>\n");
    let rows: Vec<(String, Vec<String>)> = r
        .harness
        .iter()
        .map(|h| {
            let agrees = match h.agrees {
                Some(true) => "<span class=\"ok\">yes</span>".to_string(),
                Some(false) => "<span class=\"bad\">NO</span>".to_string(),
                None => "–".to_string(),
            };
            let cells = vec![
                esc(&h.harness_metric),
                super::markup::short(h.harness_value),
                esc(h.rollstat_metric.as_deref().unwrap_or("–")),
                h.rollstat_value.map_or("–".into(), super::markup::short),
                agrees,
                esc(&h.note),
            ];
            let attrs = format!(
                " data-harness=\"{}\" data-harness-value=\"{}\"",
                esc(&h.harness_metric),
                exact(h.harness_value)
            );
            (attrs, cells)
        })
        .collect();
    table(
        &[
            "harness metric",
            "harness",
            "rollstat metric",
            "rollstat",
            "agrees",
            "note",
        ],
        &rows,
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Report {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo.jsonl");
        rollstat::report(
            &[rollstat::Source::from(path)],
            &rollstat::ReportOptions::default(),
        )
        .expect("demo reads")
    }

    /// maj@k for several k and bon@k (metrics other developers add) are
    /// drawn from their keys alone: a point per key, a line per family
    /// with two or more k.
    #[test]
    fn curve_families_come_from_the_keys() {
        let mut r = demo();
        let maj = r.block.metrics.get("maj@8").expect("maj@8").clone();
        for (name, value) in [("maj@2", 0.25), ("maj@4", 0.375), ("bon@4", 0.625)] {
            let mut e = maj.clone();
            e.value = value;
            e.k = Some(name[4..].parse().unwrap());
            r.block.metrics.insert(name, e);
        }
        let mut out = String::new();
        curves(&r.block, &mut out);
        for name in ["pass@1", "pass^2", "maj@2", "maj@4", "maj@8", "bon@4"] {
            assert!(out.contains(&format!("data-metric=\"{name}\"")), "{name}");
        }
        // Lines: pass@, pass^ and now maj@ (three k); bon@ has one k.
        assert_eq!(out.matches("class=\"line ").count(), 3);
        assert!(out.contains("class=\"line s3\""));
        assert!(out.contains("bon@k"));
    }
}
