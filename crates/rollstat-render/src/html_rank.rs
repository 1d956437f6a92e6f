//! `rollstat rank --format html`: one self-contained page (inline CSS and
//! SVG, no script): the header with the top tier, the systems sorted with
//! their interval dots and letters, the rank intervals with P(best), the
//! critical-difference diagram across benchmarks (with a suite), the
//! checkpoint curve (with checkpoints), the tables, findings and settings.
//!
//! Every number comes from the [`Ranking`]; this module only formats and
//! places them. Each plot's wrapper carries its axis range and pixels as
//! `data-*` attributes (as the gate page does) so tests can check where
//! every mark sits.

use crate::compare::p_fmt;
use crate::html::{exact, key_values, legend, nav, page_styled, table};
use crate::rank::{ci, pct, pct_span, span};
use crate::svg::{esc, nice_ticks, Chart, Scale};
use crate::Words;
use rollstat::rank::{Curve, PairRow, Ranking, SuiteRanks, SystemRow};
use rollstat::{trim_float, Interval};
use std::fmt::Write as _;

/// The plots' width and left margin (viewBox pixels).
const WIDTH: f64 = 760.0;
const LEFT: f64 = 190.0;

/// What the rank page adds to the common stylesheet.
const RANK_CSS: &str = r#"
.tier{border-left:8px solid var(--c1);border-radius:6px;background:var(--panel);padding:8px 14px;margin:.6em 0}
.tier .line{font-weight:600;overflow-wrap:anywhere}
.rest{stroke:var(--muted);fill:var(--muted)}.sw.rest{border-color:var(--muted)}
.rset{stroke:none;opacity:.35}.rint{stroke:none}.rtick{stroke:var(--fg);stroke-width:2.5}
.sw.rtick{border-color:var(--fg)}.sw.sq.rsetsw{background:var(--c1);opacity:.35}
.cdaxis{stroke:var(--fg);stroke-width:1.2;fill:none}.cdbar{stroke:var(--fg);stroke-width:2.5;fill:none}
.cdgroup{stroke:var(--c2);stroke-width:5;fill:none;stroke-linecap:round}.sw.cdgroup{border-color:var(--c2);border-top-width:5px}
.cdlead{stroke:var(--muted);stroke-width:1;fill:none}
.best{stroke:var(--bad);fill:var(--bad)}.sw.best{border-color:var(--bad)}
circle.best{stroke-width:2}
"#;

/// The rank page.
///
/// ```
/// # use rollstat::rows::{CountRow, Row};
/// # use rollstat::{rank::{rank, RankOptions}, Source};
/// # let sys = |name: &str, cs: &[u64]| Source::Rows { name: format!("{name}.jsonl"),
/// #     rows: cs.iter().enumerate().map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 1, c, ..Default::default() })).collect() };
/// # let mut o = RankOptions::default();
/// # o.resamples = 200;
/// let r = rank(&[sys("a", &[1; 30]), sys("b", &[0; 30])], &o).unwrap();
/// let words = rollstat_render::Words { finding: |f| f.to_string(), all: "--all", tau: "--tau", budget: None, fail_on: "--fail-on" };
/// let html = rollstat_render::html_rank::render(&r, &words);
/// assert!(html.contains("id=\"plot-systems\""));
/// assert!(html.contains("id=\"plot-ranks\""));
/// assert!(!html.contains("id=\"plot-cd\"")); // no suite
/// ```
pub fn render(r: &Ranking, words: &Words) -> String {
    let mut b = String::new();
    header(r, &mut b);
    let mut items = vec![("systems", "systems"), ("ranks", "rank intervals")];
    if r.suite.is_some() {
        items.push(("cd", "critical difference"));
    }
    if r.curve.is_some() {
        items.push(("curve", "checkpoints"));
    }
    items.extend([
        ("tables", "tables"),
        ("findings", "findings"),
        ("settings", "settings"),
    ]);
    nav(&items, &mut b);
    systems_plot(r, &mut b);
    ranks_plot(r, &mut b);
    if let Some(s) = &r.suite {
        cd_diagram(r, s, &mut b);
    }
    if let Some(c) = &r.curve {
        curve_plot(r, c, &mut b);
    }
    tables(r, &mut b);
    findings(r, words, &mut b);
    settings(r, &mut b);
    let _ = writeln!(
        b,
        "<p class=\"note\">Written by rollstat {} ({}). Every number comes from the same rank document as the JSON.</p>",
        esc(&r.version),
        esc(&r.schema)
    );
    page_styled(
        &format!("rollstat rank — {} systems", r.systems.len()),
        &b,
        RANK_CSS,
    )
}

/// Whether `s` shares a letter with #1 (the top tier).
fn top(r: &Ranking, s: &str) -> bool {
    r.top_tier.iter().any(|t| t == s)
}

/// The CSS class of a system: the top tier highlighted, the rest muted.
fn tier_class(r: &Ranking, s: &str) -> &'static str {
    if top(r, s) {
        "s1"
    } else {
        "rest"
    }
}

/// A plot's wrapper: its x axis range and the pixels they map to.
fn wrap(class: &str, (lo, hi): (f64, f64), chart: &Chart) -> String {
    format!(
        "<div class=\"{class}\" data-x-min=\"{}\" data-x-max=\"{}\" data-px-min=\"{:.1}\" data-px-max=\"{:.1}\">\n",
        exact(lo),
        exact(hi),
        chart.px(lo),
        chart.px(hi)
    )
}

/// The title, the counts and metric, and the top-tier line.
fn header(r: &Ranking, out: &mut String) {
    out.push_str("<h1>rollstat rank</h1>\n");
    let _ = writeln!(
        out,
        "<div class=\"tier\" data-systems=\"{}\" data-problems=\"{}\"><span class=\"line\">{}</span><br><span class=\"muted\">{} systems on {} shared problems · metric {} (per-problem means) · {}% intervals · {} over every pair at α = {}</span></div>",
        r.systems.len(),
        r.n_problems,
        esc(&r.top_tier_line),
        r.systems.len(),
        r.n_problems,
        esc(&r.settings.metric),
        trim_float(100.0 * r.settings.level),
        esc(&r.settings.adjust),
        trim_float(r.settings.alpha)
    );
}

/// The value axis of the systems plot: every value and interval bound,
/// padded by 6% of the span (at least half a point) on each side.
pub(crate) fn value_range(r: &Ranking) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for s in &r.systems {
        let (a, b) = s.ci.map_or((s.value, s.value), |i| (i.lower, i.upper));
        lo = lo.min(a).min(s.value);
        hi = hi.max(b).max(s.value);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.06).max(0.005);
    (lo - pad, hi + pad)
}

/// Systems best first: a dot at the value, its interval, its letters.
fn systems_plot(r: &Ranking, out: &mut String) {
    let level = trim_float(100.0 * r.settings.level);
    out.push_str("<h2 id=\"systems\">Systems, best first</h2>\n");
    let (lo, hi) = value_range(r);
    // A column right of the data for the letters.
    let xmax = hi + (hi - lo) * 0.12;
    let n = r.systems.len() as f64;
    let mut chart = Chart::new(
        WIDTH,
        70.0 + 26.0 * n,
        Scale::Linear { min: lo, max: xmax },
        Scale::Linear {
            min: n - 0.5,
            max: -0.5,
        },
    )
    .with_left(LEFT);
    let ticks = nice_ticks(lo, hi, 6, |v| format!("{}%", trim_float(100.0 * v)));
    chart.axes(&ticks, &[], &r.settings.metric, "");
    let labels: Vec<(f64, String)> = (r.systems.iter().enumerate())
        .map(|(i, s)| (i as f64, format!("#{} {}", s.rank, s.name)))
        .collect();
    chart.row_labels(&labels);
    for (i, s) in r.systems.iter().enumerate() {
        system_row(r, i as f64, s, hi, &mut chart);
    }
    out.push_str(&wrap("dots", (lo, xmax), &chart));
    out.push_str(&chart.finish("plot-systems", "systems sorted with their intervals"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("s1", "top tier: shares a letter with #1".into()),
        ("rest", "separable from #1".into()),
    ]));
    let _ = writeln!(
        out,
        "<p class=\"note\">Dots: each system's {} over the {} shared problems; bars: its {level}% bootstrap interval; right: its letters (systems sharing a letter are not separable, {} over every pair at α = {}).</p>",
        esc(&r.settings.metric),
        r.n_problems,
        esc(&r.settings.adjust),
        trim_float(r.settings.alpha)
    );
}

/// One system's interval, dot and letters.
fn system_row(r: &Ranking, yi: f64, s: &SystemRow, hi: f64, chart: &mut Chart) {
    let class = tier_class(r, &s.name);
    if let Some(i) = s.ci {
        chart.hbar(yi, i.lower, i.upper, &format!("err {class}"));
    }
    let tip = format!(
        "#{} {}: {}, CI {}, letters {}",
        s.rank,
        s.name,
        pct(s.value),
        ci(s.ci),
        s.letters
    );
    let data = format!(
        " data-system=\"{}\" data-value=\"{}\" data-letters=\"{}\"",
        esc(&s.name),
        exact(s.value),
        esc(&s.letters)
    );
    chart.point(s.value, yi, &format!("pt {class}"), &tip, &data);
    chart.label_at((hi, yi), (8.0, 4.0), "start", &s.letters);
}

/// Rank intervals: the simultaneous set (wide, light), the marginal
/// interval (narrow, solid), a tick at the rank; P(best) on the right.
fn ranks_plot(r: &Ranking, out: &mut String) {
    let level = trim_float(100.0 * r.settings.level);
    out.push_str("<h2 id=\"ranks\">Rank intervals</h2>\n");
    let k = r.systems.len().max(1) as f64;
    let (lo, hi) = (0.5, k + 0.5);
    let xmax = hi + (k * 0.18).max(1.0);
    let mut chart = Chart::new(
        WIDTH,
        70.0 + 26.0 * k,
        Scale::Linear { min: lo, max: xmax },
        Scale::Linear {
            min: k - 0.5,
            max: -0.5,
        },
    )
    .with_left(LEFT);
    let ticks: Vec<(f64, String)> = (1..=r.systems.len())
        .map(|i| (i as f64, i.to_string()))
        .collect();
    chart.axes(&ticks, &[], "rank (1 = best); right: P(best)", "");
    let labels: Vec<(f64, String)> = (r.systems.iter().enumerate())
        .map(|(i, s)| (i as f64, s.name.clone()))
        .collect();
    chart.row_labels(&labels);
    for (i, s) in r.systems.iter().enumerate() {
        rank_row(r, i as f64, s, hi, &mut chart);
    }
    out.push_str(&wrap("ranks", (lo, xmax), &chart));
    out.push_str(&chart.finish("plot-ranks", "rank intervals and P(best)"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("sq s1", format!("{level}% rank interval")),
        ("sq rsetsw", "simultaneous rank set".into()),
        ("rtick", "rank".into()),
    ]));
    out.push_str("<p class=\"note\">The rank interval covers each system's own bootstrap ranks; the simultaneous set covers every system's rank jointly, so it is the one to read across rows. P(best): the share of replicates where it ranks first (ties count for each).</p>\n");
}

/// One system's rank set, rank interval, rank tick and P(best).
fn rank_row(r: &Ranking, yi: f64, s: &SystemRow, hi: f64, chart: &mut Chart) {
    let class = tier_class(r, &s.name);
    let [a, b] = s.rank_set;
    chart.rect(
        (a as f64 - 0.4, yi - 0.32),
        (b as f64 + 0.4, yi + 0.32),
        &format!("rset {class}"),
        &format!("{}: simultaneous rank set {}", s.name, span(s.rank_set)),
    );
    let [a, b] = s.rank_interval;
    chart.rect(
        (a as f64 - 0.25, yi - 0.14),
        (b as f64 + 0.25, yi + 0.14),
        &format!("rint {class}"),
        &format!("{}: rank interval {}", s.name, span(s.rank_interval)),
    );
    let data = format!(
        " data-system=\"{}\" data-rank=\"{}\" data-rank-interval=\"{}-{}\" data-rank-set=\"{}-{}\" data-p-best=\"{}\"",
        esc(&s.name),
        s.rank,
        s.rank_interval[0],
        s.rank_interval[1],
        s.rank_set[0],
        s.rank_set[1],
        exact(s.p_best)
    );
    chart.vseg(s.rank as f64, (yi - 0.38, yi + 0.38), "rtick", &data);
    chart.label_at((hi, yi), (10.0, 4.0), "start", &format!("{:.3}", s.p_best));
}

/// The layout of a critical-difference diagram along y (data units, 0 at
/// the top): the CD bar, the axis, the group bars, the name rows.
struct CdRows {
    bar: f64,
    axis: f64,
    group0: f64,
    group_step: f64,
    names0: f64,
}

impl CdRows {
    fn new(groups: usize) -> CdRows {
        let group0 = 1.7;
        let group_step = 0.45;
        CdRows {
            bar: 0.0,
            axis: 1.0,
            group0,
            group_step,
            names0: group0 + group_step * groups as f64 + 0.4,
        }
    }
}

/// The critical-difference diagram (Demšar 2006): the rank axis 1..k, each
/// system's mean rank marked and named (the better half on the left), the
/// CD as a bar of its length, a thick line per group of `cd_groups`.
fn cd_diagram(r: &Ranking, s: &SuiteRanks, out: &mut String) {
    out.push_str("<h2 id=\"cd\">Critical difference across benchmarks</h2>\n");
    let k = r.systems.len().max(2) as f64;
    let pad = (0.45 * (k - 1.0)).max(1.2);
    let (lo, hi) = (1.0 - pad, k + pad);
    let rows = CdRows::new(s.cd_groups.len());
    let half = r.systems.len().div_ceil(2) as f64;
    // The last name row sits in the chart's bottom margin (no x axis).
    let bottom = rows.names0 + half - 1.0 - 1.25;
    let mut chart = Chart::new(
        WIDTH,
        60.0 + 26.0 * (bottom + 0.6),
        Scale::Linear { min: lo, max: hi },
        Scale::Linear {
            min: bottom,
            max: -0.6,
        },
    )
    .with_left(16.0);
    cd_axis(r, s, &rows, &mut chart);
    cd_groups(r, s, &rows, &mut chart);
    cd_names(r, s, &rows, (lo, hi), &mut chart);
    out.push_str(&wrap("cd", (lo, hi), &chart));
    out.push_str(&chart.finish("plot-cd", "critical difference diagram of mean ranks"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("rtick", format!("CD = {:.3}", s.critical_difference)),
        ("cdgroup", "not separable (mean ranks within CD)".into()),
    ]));
    friedman_line(s, out);
    suite_table(r, s, out);
}

/// The CD bar above the axis and the axis with its ticks 1..k.
fn cd_axis(r: &Ranking, s: &SuiteRanks, rows: &CdRows, chart: &mut Chart) {
    let k = r.systems.len().max(2);
    let cd = s.critical_difference;
    chart.line(&[(1.0, rows.bar), (1.0 + cd, rows.bar)], "cdbar");
    for x in [1.0, 1.0 + cd] {
        chart.line(&[(x, rows.bar - 0.2), (x, rows.bar + 0.2)], "cdbar");
    }
    chart.label_at(
        (1.0 + cd / 2.0, rows.bar),
        (0.0, -6.0),
        "middle",
        &format!("CD = {cd:.3}"),
    );
    chart.line(&[(1.0, rows.axis), (k as f64, rows.axis)], "cdaxis");
    for i in 1..=k {
        let x = i as f64;
        chart.line(&[(x, rows.axis - 0.18), (x, rows.axis)], "cdaxis");
        chart.label_at((x, rows.axis), (0.0, -8.0), "middle", &i.to_string());
    }
}

/// One thick line per group, from its best to its worst mean rank.
fn cd_groups(r: &Ranking, s: &SuiteRanks, rows: &CdRows, chart: &mut Chart) {
    let mean_of = |name: &String| {
        (r.systems.iter().position(|x| &x.name == name)).and_then(|i| s.mean_ranks.get(i).copied())
    };
    for (g, group) in s.cd_groups.iter().enumerate() {
        let ranks: Vec<f64> = group.iter().filter_map(mean_of).collect();
        if ranks.is_empty() {
            continue;
        }
        let a = ranks.iter().copied().fold(f64::INFINITY, f64::min);
        let b = ranks.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let y = rows.group0 + rows.group_step * g as f64;
        chart.line(&[(a - 0.06, y), (b + 0.06, y)], "cdgroup");
    }
}

/// Each system's mark on the axis, a leader down to its name row and
/// out to its side, and its name with its mean rank.
fn cd_names(r: &Ranking, s: &SuiteRanks, rows: &CdRows, (lo, hi): (f64, f64), chart: &mut Chart) {
    let mut order: Vec<(usize, f64)> = (s.mean_ranks.iter().copied().enumerate())
        .take(r.systems.len())
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1));
    let half = order.len().div_ceil(2);
    for (j, &(i, mr)) in order.iter().enumerate() {
        let sys = &r.systems[i];
        let left = j < half;
        let row = if left { j } else { order.len() - 1 - j };
        let y = rows.names0 + row as f64;
        let end = if left { lo + 0.1 } else { hi - 0.1 };
        chart.line(&[(mr, rows.axis), (mr, y), (end, y)], "cdlead");
        let data = format!(
            " data-system=\"{}\" data-mean-rank=\"{}\"",
            esc(&sys.name),
            exact(mr)
        );
        let tip = format!("{}: mean rank {mr:.3}", sys.name);
        let class = format!("pt cdmark {}", tier_class(r, &sys.name));
        chart.point(mr, rows.axis, &class, &tip, &data);
        let (dx, anchor) = if left { (0.0, "start") } else { (0.0, "end") };
        chart.label_at(
            (end, y),
            (dx, -4.0),
            anchor,
            &format!("{} ({mr:.2})", sys.name),
        );
    }
}

/// Friedman's χ² and the Iman–Davenport F in one line.
fn friedman_line(s: &SuiteRanks, out: &mut String) {
    let _ = writeln!(
        out,
        "<p data-friedman-p=\"{}\" data-f-p=\"{}\">Across {} benchmarks ({}): Friedman χ² = {:.3} on {} df (p {}); Iman–Davenport F = {:.3} on ({}, {}) df (p {}). Nemenyi critical difference {:.3} (q_α = {:.3}).</p>",
        exact(s.p),
        exact(s.f_p),
        s.benchmarks.len(),
        esc(&s.field),
        s.chi2,
        s.df,
        p_fmt(Some(s.p)),
        s.f,
        s.f_df[0],
        s.f_df[1],
        p_fmt(Some(s.f_p)),
        s.critical_difference,
        s.q_alpha
    );
}

/// Mean ranks and the ranks per benchmark.
fn suite_table(r: &Ranking, s: &SuiteRanks, out: &mut String) {
    let mut header: Vec<&str> = vec!["system", "mean rank"];
    header.extend(s.benchmarks.iter().map(|b| b.as_str()));
    let rows: Vec<(String, Vec<String>)> = (r.systems.iter().enumerate())
        .map(|(i, sys)| {
            let mut cells = vec![
                esc(&sys.name),
                s.mean_ranks
                    .get(i)
                    .map_or("–".into(), |m| format!("{m:.3}")),
            ];
            for (b, ranks) in s.ranks.iter().enumerate() {
                let score = s.scores.get(b).and_then(|v| v.get(i));
                cells.push(match (ranks.get(i), score) {
                    (Some(rk), Some(sc)) => format!("{} ({})", trim_float(*rk), pct(*sc)),
                    _ => "–".into(),
                });
            }
            (String::new(), cells)
        })
        .collect();
    out.push_str("<details><summary>ranks per benchmark (score)</summary>\n<div class=\"wide\">\n");
    table(&header, &rows, out);
    out.push_str("</div></details>\n");
}

/// The curve's axes: steps padded by 4% of their span, values by 8%.
pub(crate) fn curve_range(c: &Curve) -> ((f64, f64), (f64, f64)) {
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY);
    for p in &c.points {
        x0 = x0.min(p.step);
        x1 = x1.max(p.step);
        let (a, b) = p.ci.map_or((p.value, p.value), |i| (i.lower, i.upper));
        y0 = y0.min(a).min(p.value);
        y1 = y1.max(b).max(p.value);
    }
    if !x0.is_finite() {
        return ((0.0, 1.0), (0.0, 1.0));
    }
    let px = ((x1 - x0) * 0.04).max(0.5);
    let py = ((y1 - y0) * 0.08).max(0.005);
    ((x0 - px, x1 + px), (y0 - py, y1 + py))
}

/// The checkpoint curve: value against step, the interval band, the best
/// step marked, the steps not separable from it highlighted.
fn curve_plot(r: &Ranking, c: &Curve, out: &mut String) {
    out.push_str("<h2 id=\"curve\">Checkpoints in step order</h2>\n");
    let ((x0, x1), (y0, y1)) = curve_range(c);
    let mut chart = Chart::new(
        WIDTH,
        340.0,
        Scale::Linear { min: x0, max: x1 },
        Scale::Linear { min: y0, max: y1 },
    );
    let xt = nice_ticks(x0, x1, 8, trim_float);
    let yt = nice_ticks(y0, y1, 6, |v| format!("{}%", trim_float(100.0 * v)));
    chart.axes(&xt, &yt, "step", &r.settings.metric);
    if c.points.iter().all(|p| p.ci.is_some()) {
        let band = |f: fn(Interval) -> f64| -> Vec<(f64, f64)> {
            (c.points.iter())
                .filter_map(|p| p.ci.map(|i| (p.step, f(i))))
                .collect()
        };
        chart.band(&band(|i| i.lower), &band(|i| i.upper), "band s1");
    }
    let line: Vec<(f64, f64)> = c.points.iter().map(|p| (p.step, p.value)).collect();
    chart.line(&line, "line s1");
    for p in &c.points {
        let class = if p.system == c.best {
            "pt best"
        } else if c.not_separable.contains(&p.system) {
            "pt s1"
        } else {
            "pt rest"
        };
        let tip = format!(
            "{} (step {}): {}, CI {}",
            p.system,
            trim_float(p.step),
            pct(p.value),
            ci(p.ci)
        );
        let data = format!(
            " data-system=\"{}\" data-step=\"{}\" data-value=\"{}\"",
            esc(&p.system),
            exact(p.step),
            exact(p.value)
        );
        chart.point(p.step, p.value, class, &tip, &data);
    }
    out.push_str(&wrap("curve", (x0, x1), &chart));
    out.push_str(&chart.finish("plot-curve", "checkpoint curve"));
    out.push_str("</div>\n");
    curve_note(r, c, out);
}

/// The curve's legend and the best checkpoint in words.
fn curve_note(r: &Ranking, c: &Curve, out: &mut String) {
    out.push_str(&legend(&[
        ("best", format!("best checkpoint ({})", c.best)),
        ("s1", "not separable from the best".into()),
        ("rest", "separable from the best".into()),
    ]));
    let names: Vec<String> = c.not_separable.iter().map(|n| esc(n)).collect();
    let _ = writeln!(
        out,
        "<p class=\"note\">Band: each checkpoint's {}% interval. Best checkpoint <strong>{}</strong>; not separable from it: {}.</p>",
        trim_float(100.0 * r.settings.level),
        esc(&c.best),
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
    );
}

/// Every table: systems, pairs (adjacent, then all), the anchor walk, the
/// best's score.
fn tables(r: &Ranking, out: &mut String) {
    out.push_str("<h2 id=\"tables\">Systems</h2>\n<div class=\"wide\">\n");
    let level = trim_float(100.0 * r.settings.level);
    let ci_h = format!("{level}% CI (%)");
    let ri_h = format!("{level}% rank interval");
    let header = [
        "rank",
        "system",
        r.settings.metric.as_str(),
        ci_h.as_str(),
        ri_h.as_str(),
        "simultaneous rank set",
        "P(best)",
        "letters",
        "dropped",
        "rollouts",
        "inputs",
    ];
    let rows: Vec<(String, Vec<String>)> = r.systems.iter().map(|s| system_cells(r, s)).collect();
    table(&header, &rows, out);
    out.push_str("</div>\n");
    pair_tables(r, out);
    anchor_table(r, out);
    best(r, out);
}

/// One system's table row.
fn system_cells(r: &Ranking, s: &SystemRow) -> (String, Vec<String>) {
    let attrs = format!(
        " data-system=\"{}\" class=\"{}\"",
        esc(&s.name),
        if top(r, &s.name) { "top" } else { "" }
    );
    let inputs: Vec<String> = (s.inputs.iter())
        .map(|i| {
            let base = i.path.rsplit(['/', '\\']).next().unwrap_or(&i.path);
            format!("<span title=\"{}\">{}</span>", esc(&i.path), esc(base))
        })
        .collect();
    let cells = vec![
        s.rank.to_string(),
        esc(&s.name),
        pct(s.value),
        ci(s.ci),
        span(s.rank_interval),
        span(s.rank_set),
        format!("{:.3}", s.p_best),
        esc(&s.letters),
        s.dropped.to_string(),
        s.rollouts.to_string(),
        inputs.join(", "),
    ];
    (attrs, cells)
}

/// One pair's table row.
fn pair_cells(p: &PairRow) -> (String, Vec<String>) {
    let sep = if p.separated {
        "<span class=\"bad\">yes</span>"
    } else {
        "no"
    };
    let attrs = format!(
        " data-a=\"{}\" data-b=\"{}\" data-p-adjusted=\"{}\"",
        esc(&p.a),
        esc(&p.b),
        exact(p.p_adjusted)
    );
    let cells = vec![
        format!("{} vs {}", esc(&p.a), esc(&p.b)),
        format!("{:+.2}", 100.0 * p.diff),
        p_fmt(Some(p.p)),
        p_fmt(Some(p.p_adjusted)),
        esc(&p.method),
        sep.into(),
    ];
    (attrs, cells)
}

/// Adjacent pairs, then every pair in a collapsible table.
fn pair_tables(r: &Ranking, out: &mut String) {
    let header = ["pair", "diff (pts)", "p", "p adjusted", "test", "separated"];
    let adjacent: Vec<(String, Vec<String>)> = (r.systems.windows(2))
        .filter_map(|w| (r.pairs.iter()).find(|p| p.a == w[0].name && p.b == w[1].name))
        .map(pair_cells)
        .collect();
    let _ = writeln!(
        out,
        "<h3>Adjacent pairs (p adjusted by {} over all {} pairs)</h3>",
        esc(&r.settings.adjust),
        r.pairs.len()
    );
    table(&header, &adjacent, out);
    let all: Vec<(String, Vec<String>)> = r.pairs.iter().map(pair_cells).collect();
    let _ = writeln!(
        out,
        "<details><summary>all {} pairs</summary>",
        r.pairs.len()
    );
    table(&header, &all, out);
    out.push_str("</details>\n");
}

/// The walk down the ranks against #1, unadjusted.
fn anchor_table(r: &Ranking, out: &mut String) {
    out.push_str("<h3>Anchor walk (unadjusted, against #1)</h3>\n");
    let rows: Vec<(String, Vec<String>)> = (r.anchor_walk.iter())
        .map(|a| {
            let attrs = format!(
                " data-system=\"{}\" data-p=\"{}\"",
                esc(&a.system),
                exact(a.p)
            );
            let cells = vec![
                esc(&a.system),
                format!("{:+.2}", 100.0 * a.diff),
                p_fmt(Some(a.p)),
            ];
            (attrs, cells)
        })
        .collect();
    table(&["system", "#1 − it (pts)", "p (unadjusted)"], &rows, out);
    let first = r
        .first_separated_rank
        .map_or("no system".into(), |k| format!("rank {k}"));
    let _ = writeln!(
        out,
        "<p class=\"note\">Each system against #1, as leaderboard audits walk it; the p values are not adjusted for the walk. First separated from #1 at α = {}: {first}.</p>",
        trim_float(r.settings.alpha)
    );
}

/// The best system's score on the data it was picked on, and adjusted.
fn best(r: &Ranking, out: &mut String) {
    let b = &r.best;
    out.push_str("<h3>The best system's score</h3>\n");
    let _ = writeln!(
        out,
        "<p data-naive=\"{}\" data-adjusted=\"{}\"><strong>{}</strong>: {} on the data it was picked on (naive); {} adjusted for the selection, {} {} ({}, Andrews, Kitagawa &amp; McCloskey 2024: conditional on its having been picked); the bootstrap bias correction gives {}.</p>",
        exact(b.naive),
        exact(b.adjusted),
        esc(&b.system),
        pct(b.naive),
        pct(b.adjusted),
        crate::markup::level_label(r.settings.level),
        pct_span(b.adjusted_ci),
        esc(&b.method),
        pct(b.bootstrap_adjusted)
    );
    if let Some(sp) = &b.split {
        let _ = writeln!(
            out,
            "<p data-held-out=\"{}\">Split-sample check: <strong>{}</strong> is best on a seeded half of the problems ({}) and scores {} on the other {} — the held-out score is not flattered by the selection.</p>",
            exact(sp.held_out),
            esc(&sp.system),
            pct(sp.selection),
            pct(sp.held_out),
            sp.held_out_problems
        );
    }
}

fn findings(r: &Ranking, words: &Words, out: &mut String) {
    out.push_str("<h2 id=\"findings\">Findings</h2>\n");
    if r.findings.is_empty() {
        out.push_str("<p class=\"note\">None.</p>\n");
        return;
    }
    out.push_str("<ul class=\"findings\">\n");
    for f in &r.findings {
        let _ = writeln!(out, "<li>{}</li>", esc(&(words.finding)(f)));
    }
    out.push_str("</ul>\n");
}

/// The settings behind every number.
fn settings(r: &Ranking, out: &mut String) {
    out.push_str("<h2 id=\"settings\">Settings</h2>\n");
    let s = &r.settings;
    let items = vec![
        ("metric", s.metric.clone()),
        ("level", trim_float(s.level)),
        ("α", trim_float(s.alpha)),
        ("adjust", s.adjust.clone()),
        ("pair test", s.pair_test.clone()),
        ("resamples", s.resamples.to_string()),
        ("permutations", s.permutations.to_string()),
        ("seed / rng", format!("{} / {}", s.seed, s.rng)),
        ("clustered by", s.cluster_by.clone().unwrap_or("–".into())),
        ("systems by", s.by.clone().unwrap_or("one per input".into())),
    ];
    key_values(&items, out);
}
