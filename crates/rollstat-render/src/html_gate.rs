//! `rollstat gate --format html`: one self-contained page (inline CSS and
//! SVG, no script): the verdict banner, the forest plot of B − A per
//! benchmark against its margin with the suite's diamond, flips against
//! their floor, the tables, the flipped problems side by side, findings
//! and the plan.

use crate::compare::p_fmt;
use crate::gate::{
    answers_joined, ci_pts, declared, flip_cells, margin_cell, needed_cell, pct, pts, rollouts,
    test_cells, unmatched_note, verdict_line,
};
use crate::html::{exact, key_values, legend, nav, page_styled, table};
use crate::svg::{esc, nice_ticks, Chart, Scale};
use crate::Words;
use rollstat::gate::{BenchmarkRow, FlippedProblem, FlippedSide, Flips};
use rollstat::{trim_float, BenchmarkStatus, Decision, Gate, GateRule};
use std::fmt::Write as _;

/// The forest plot's width and left margin (viewBox pixels); its plot
/// area runs from `FOREST_LEFT` to `FOREST_WIDTH − 16`.
const FOREST_WIDTH: f64 = 720.0;
const FOREST_LEFT: f64 = 170.0;

/// What the gate page adds to the common stylesheet.
const GATE_CSS: &str = r#"
.banner{border-left:10px solid;border-radius:6px;background:var(--panel);padding:10px 16px;margin:.6em 0}
.banner .word{font-size:1.9em;font-weight:700;letter-spacing:.04em}
.banner .why{display:block;color:var(--fg);overflow-wrap:anywhere}
.amber{stroke:var(--c5);fill:var(--c5);color:var(--c5)}.sw.amber{border-color:var(--c5)}
.none{color:var(--muted)}.sw.none{border-color:var(--muted)}
.floor{stroke:var(--fg);stroke-width:2.5}.sw.floor{border-color:var(--fg)}
.diamond{stroke-width:1}
.flip{border:1px solid var(--grid);border-radius:6px;padding:6px 10px;margin:.5em 0}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:4px 14px}
.sbs pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:18em;overflow:auto;background:var(--panel);padding:4px 6px;margin:2px 0;font-size:.85em}
pre.plan{background:var(--panel);padding:8px;overflow-x:auto}
"#;

/// The CSS class of a status: PASS green, BREACH red, INSUFFICIENT amber,
/// MISSING grey.
fn status_class(s: BenchmarkStatus) -> &'static str {
    match s {
        BenchmarkStatus::Pass => "ok",
        BenchmarkStatus::Breach => "bad",
        BenchmarkStatus::Insufficient => "amber",
        BenchmarkStatus::Missing => "none",
    }
}

/// The CSS class of a decision.
fn decision_class(d: Decision) -> &'static str {
    match d {
        Decision::Go => "ok",
        Decision::NoGo => "bad",
        Decision::Inconclusive => "amber",
    }
}

/// The gate page.
///
/// ```
/// let g = rollstat_render::gate::example_gate();
/// let words = rollstat_render::Words {
///     finding: |f| f.to_string(),
///     all: "--all",
///     tau: "--tau",
///     budget: None,
///     fail_on: "--fail-on",
/// };
/// let html = rollstat_render::html_gate::render(&g, &words);
/// assert!(html.contains("<div class=\"banner bad\" data-verdict=\"NO-GO\">"));
/// assert!(html.contains("id=\"plot-forest\""));
/// ```
pub fn render(g: &Gate, words: &Words) -> String {
    let mut b = String::new();
    banner(g, &mut b);
    nav(
        &[
            ("forest", "forest plot"),
            ("flips", "flips"),
            ("table", "benchmarks"),
            ("tests", "combination tests"),
            ("flipped", "flipped problems"),
            ("findings", "findings"),
            ("plan", "plan"),
        ],
        &mut b,
    );
    forest(g, &mut b);
    flips(g, &mut b);
    benchmark_table(g, &mut b);
    tests(g, &mut b);
    flipped(g, &mut b);
    findings(g, words, &mut b);
    plan(g, &mut b);
    let _ = writeln!(
        b,
        "<p class=\"note\">Written by rollstat {} ({}). Every number comes from the same gate document as the JSON (gate.json).</p>",
        esc(&g.version),
        esc(&g.schema)
    );
    page_styled(
        &format!("rollstat gate — {}", g.verdict.name()),
        &b,
        GATE_CSS,
    )
}

/// The verdict, big, coloured by decision, with the declared rule's reasons.
fn banner(g: &Gate, out: &mut String) {
    out.push_str("<h1>rollstat gate</h1>\n");
    let _ = writeln!(
        out,
        "<div class=\"banner {}\" data-verdict=\"{}\"><span class=\"word\">{}</span> <span class=\"muted\">rule: {}</span>",
        decision_class(g.verdict),
        g.verdict.name(),
        g.verdict.name(),
        g.settings.rule.name()
    );
    for r in &declared(g).reasons {
        let _ = writeln!(out, "<span class=\"why\">{}</span>", esc(r));
    }
    let sha = g.plan.sha256.get(..12).unwrap_or(&g.plan.sha256);
    let _ = writeln!(
        out,
        "<span class=\"why muted\">n = {} · metric {} · α = {} · seed {} · plan sha256 <span title=\"{}\">{}</span></span></div>",
        esc(&rollouts(g)),
        esc(&g.settings.metric),
        trim_float(g.settings.alpha),
        g.settings.seed,
        esc(&g.plan.sha256),
        esc(sha)
    );
}

/// The forest plot's x range (fractions): every interval and delta, 0,
/// each −margin and the suite's, padded by 6% of the span (at least half
/// a point) on each side.
pub(crate) fn forest_range(g: &Gate) -> (f64, f64) {
    let (mut lo, mut hi): (f64, f64) = (0.0, 0.0);
    let mut take = |d: f64, ci: Option<rollstat::Interval>| {
        let (a, b) = ci.map_or((d, d), |i| (i.lower, i.upper));
        lo = lo.min(a).min(d);
        hi = hi.max(b).max(d);
    };
    for r in g.benchmarks.iter() {
        if r.status != BenchmarkStatus::Missing {
            take(r.delta, r.ci);
        }
        take(-r.margin.used, None);
    }
    take(g.suite.delta, g.suite.ci);
    if let Some(m) = g.settings.suite_margin {
        take(-m, None);
    }
    let pad = ((hi - lo) * 0.06).max(0.005);
    (lo - pad, hi + pad)
}

/// The forest plot: one row per benchmark, the suite's diamond below.
fn forest(g: &Gate, out: &mut String) {
    out.push_str("<h2 id=\"forest\">B − A per benchmark, against its margin</h2>\n");
    let (lo, hi) = forest_range(g);
    let mut chart = forest_chart(g, (lo, hi));
    for (i, r) in g.benchmarks.iter().enumerate() {
        forest_row(i as f64, r, &mut chart);
    }
    suite_diamond(g, &mut chart);
    let _ = writeln!(
        out,
        "<div class=\"forest\" data-x-min=\"{}\" data-x-max=\"{}\" data-px-min=\"{:.1}\" data-px-max=\"{:.1}\">",
        exact(lo),
        exact(hi),
        chart.px(lo),
        chart.px(hi)
    );
    out.push_str(&chart.finish("plot-forest", "forest plot of B minus A per benchmark"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("ref", "0: no difference".into()),
        ("margin", "−margin of the row".into()),
        ("ok", "PASS".into()),
        ("bad", "BREACH".into()),
        ("amber", "INSUFFICIENT".into()),
        ("none", "MISSING".into()),
    ]));
    let _ = writeln!(
        out,
        "<p class=\"note\">Dots: B − A in points; bars: the {}% interval, whose ends are the one-sided {}% bounds each status reads; the diamond spans the suite's {} weighted interval. Right of 0: B is better; left of a row's dashed line: a drop beyond its margin.</p>",
        trim_float(100.0 * (1.0 - 2.0 * g.settings.alpha)),
        trim_float(100.0 * (1.0 - g.settings.alpha)),
        esc(g.settings.weights.name())
    );
}

/// The forest plot's frame, axes, row labels and zero line.
fn forest_chart(g: &Gate, (lo, hi): (f64, f64)) -> Chart {
    let rows = g.benchmarks.len() as f64 + 1.0;
    let mut chart = Chart::new(
        FOREST_WIDTH,
        70.0 + 26.0 * rows,
        Scale::Linear { min: lo, max: hi },
        Scale::Linear {
            min: rows - 0.5,
            max: -0.5,
        },
    )
    .with_left(FOREST_LEFT);
    let ticks = nice_ticks(lo, hi, 6, |v| format!("{:+}", trim_float(100.0 * v)));
    chart.axes(&ticks, &[], "B − A (percentage points)", "");
    let mut labels: Vec<(f64, String)> = g
        .benchmarks
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, format!("{} ({})", r.name, r.tier.name())))
        .collect();
    labels.push((g.benchmarks.len() as f64, "suite".into()));
    chart.row_labels(&labels);
    chart.vline(0.0, "ref");
    chart
}

/// One benchmark: its margin marker, interval and dot (MISSING: a word).
fn forest_row(yi: f64, r: &BenchmarkRow, chart: &mut Chart) {
    let name = esc(&r.name);
    chart.vseg(
        -r.margin.used,
        (yi - 0.42, yi + 0.42),
        "margin",
        &format!(
            " data-benchmark=\"{name}\" data-margin=\"{}\"",
            exact(r.margin.used)
        ),
    );
    if r.status == BenchmarkStatus::Missing {
        chart.label_at((0.0, yi), (6.0, 4.0), "start", "MISSING: no numbers");
        return;
    }
    let class = status_class(r.status);
    if let Some(ci) = r.ci {
        chart.hbar(yi, ci.lower, ci.upper, &format!("err {class}"));
    }
    let tip = format!(
        "{}: B − A = {} points, CI {}, margin {} points, {}",
        r.name,
        pts(r.delta),
        ci_pts(r.ci),
        margin_cell(r),
        r.status.name()
    );
    let data = format!(
        " data-benchmark=\"{name}\" data-status=\"{}\" data-delta=\"{}\"",
        r.status.name(),
        exact(r.delta)
    );
    chart.point(r.delta, yi, &format!("pt {class}"), &tip, &data);
}

/// The suite row: a diamond over its interval, and the suite margin.
fn suite_diamond(g: &Gate, chart: &mut Chart) {
    let s = &g.suite;
    let yi = g.benchmarks.len() as f64;
    if let Some(m) = g.settings.suite_margin {
        let data = format!(" data-benchmark=\"suite\" data-margin=\"{}\"", exact(m));
        chart.vseg(-m, (yi - 0.42, yi + 0.42), "margin", &data);
    }
    let (lo, hi) = s.ci.map_or((s.delta, s.delta), |i| (i.lower, i.upper));
    let tip = format!(
        "suite ({} weights): B − A = {} points, CI {}",
        g.settings.weights.name(),
        pts(s.delta),
        ci_pts(s.ci)
    );
    let class = if s.beyond_margin { "bad" } else { "s1" };
    let data = format!(" data-suite=\"{}\"", exact(s.delta));
    chart.diamond(
        (lo, s.delta, hi),
        yi,
        &format!("diamond {class}"),
        &tip,
        &data,
    );
}

/// Flip rate against its floor, per benchmark with flips.
fn flips(g: &Gate, out: &mut String) {
    out.push_str("<h2 id=\"flips\">Flips against their floor</h2>\n");
    let rows: Vec<(&BenchmarkRow, &Flips)> = g
        .benchmarks
        .iter()
        .filter_map(|r| r.flips.as_ref().map(|f| (r, f)))
        .collect();
    if rows.is_empty() {
        out.push_str("<p class=\"note\">No benchmark has flips to show.</p>\n");
        return;
    }
    let top = rows
        .iter()
        .map(|(_, f)| f.rate.max(f.floor.unwrap_or(0.0)))
        .fold(0.01, f64::max);
    let count = rows.len() as f64;
    let mut chart = Chart::new(
        FOREST_WIDTH,
        70.0 + 30.0 * count,
        Scale::Linear {
            min: 0.0,
            max: top * 1.8,
        },
        Scale::Linear {
            min: count - 0.5,
            max: -0.5,
        },
    )
    .with_left(FOREST_LEFT);
    let ticks = nice_ticks(0.0, top * 1.8, 6, |v| format!("{}%", trim_float(100.0 * v)));
    chart.axes(
        &ticks,
        &[],
        "problems whose outcome differs between A and B",
        "",
    );
    let labels: Vec<(f64, String)> = rows
        .iter()
        .enumerate()
        .map(|(i, (r, _))| (i as f64, r.name.clone()))
        .collect();
    chart.row_labels(&labels);
    for (i, (r, f)) in rows.iter().enumerate() {
        flip_bar(i as f64, r, f, &mut chart);
    }
    out.push_str(&chart.finish("plot-flips", "flip rate against its floor per benchmark"));
    out.push_str(&legend(&[
        ("sq s1", "flip rate (b + c) / problems".into()),
        ("floor", "floor: the models' own flip rate".into()),
    ]));
    out.push_str("<p class=\"note\">The floor is how often each model disagrees with itself between two of its own rollouts; the excess flip is the drift left at equal accuracy. With one rollout per problem there is no floor.</p>\n");
}

/// One benchmark's flip bar, floor marker and excess annotation.
fn flip_bar(yi: f64, r: &BenchmarkRow, f: &Flips, chart: &mut Chart) {
    let [bc, rate, floor, excess] = flip_cells(Some(f));
    chart.rect(
        (0.0, yi - 0.3),
        (f.rate, yi + 0.3),
        "bar s1",
        &format!("{}: flip rate {rate} (b/c {bc}), floor {floor}", r.name),
    );
    if let Some(fl) = f.floor {
        let data = format!(
            " data-benchmark=\"{}\" data-floor=\"{}\"",
            esc(&r.name),
            exact(fl)
        );
        chart.vseg(fl, (yi - 0.42, yi + 0.42), "floor", &data);
    }
    let note = match (f.floor, f.excess) {
        (None, _) => "no floor (one rollout per problem)".to_string(),
        (Some(_), Some(_)) => format!("excess {excess}"),
        (Some(_), None) => "no excess estimate".to_string(),
    };
    let end = f.rate.max(f.floor.unwrap_or(0.0));
    chart.label_at((end, yi), (6.0, 4.0), "start", &note);
}

/// The benchmark table, every column of the terminal's two.
fn benchmark_table(g: &Gate, out: &mut String) {
    out.push_str("<h2 id=\"table\">Benchmarks</h2>\n<div class=\"wide\">\n");
    let rows: Vec<(String, Vec<String>)> = g.benchmarks.iter().map(table_row).collect();
    table(
        &[
            "benchmark",
            "tier",
            "weight",
            "status",
            "problems",
            "A",
            "B",
            "B − A (pts)",
            "CI (pts)",
            "margin (pts)",
            "p (1-sided)",
            "test",
            "flips b/c",
            "flip rate",
            "floor",
            "excess flip",
            "needed",
        ],
        &rows,
        out,
    );
    out.push_str("</div>\n");
    for note in g.benchmarks.iter().filter_map(unmatched_note) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&note));
    }
    let s = &g.suite;
    let mut line = format!(
        "Suite ({} benchmarks, {} problems, {} weights): A {}, B {}, B − A {} points, CI {}",
        s.n_benchmarks,
        s.n_problems,
        g.settings.weights.name(),
        pct(s.a),
        pct(s.b),
        pts(s.delta),
        ci_pts(s.ci)
    );
    if let Some(h) = &s.heterogeneity {
        let _ = write!(
            line,
            "; Q = {:.2} on {} df (p {}), I² = {:.0}%",
            h.q,
            h.df,
            p_fmt(Some(h.p)),
            100.0 * h.i2
        );
    }
    let _ = writeln!(out, "<p>{}.</p>", esc(&line));
}

/// One benchmark's table row.
fn table_row(r: &BenchmarkRow) -> (String, Vec<String>) {
    let attrs = format!(
        " data-benchmark=\"{}\" data-status=\"{}\" data-delta=\"{}\"",
        esc(&r.name),
        r.status.name(),
        exact(r.delta)
    );
    let nums = r.status != BenchmarkStatus::Missing;
    let num = |s: String| if nums { s } else { "–".into() };
    let mut cells = vec![
        esc(&r.name),
        r.tier.name().into(),
        format!("{:.2}", r.weight),
        format!(
            "<span class=\"{}\">{}</span>",
            status_class(r.status),
            r.status.name()
        ),
        r.n_problems.to_string(),
        num(pct(r.a)),
        num(pct(r.b)),
        num(pts(r.delta)),
        ci_pts(r.ci),
        esc(&margin_cell(r)),
    ];
    cells.extend(test_cells(r).map(|c| esc(&c)));
    cells.extend(flip_cells(r.flips.as_ref()).map(|c| esc(&c)));
    cells.push(needed_cell(r));
    (attrs, cells)
}

/// The combination tests and both rules' decisions.
fn tests(g: &Gate, out: &mut String) {
    let s = &g.suite;
    let _ = writeln!(
        out,
        "<h2 id=\"tests\">Combination tests (each at α/3 = {})</h2>",
        p_fmt(Some(s.alpha_each))
    );
    let rows: Vec<(String, Vec<String>)> = s
        .tests
        .iter()
        .map(|c| {
            let rejects = match c.rejects {
                true => "<span class=\"bad\">rejects</span>",
                false => "does not reject",
            };
            let cells = vec![
                esc(&c.name),
                esc(&c.method),
                format!("{:.3}", c.statistic),
                p_fmt(Some(c.p)),
                rejects.into(),
            ];
            (
                format!(" data-test=\"{}\" data-p=\"{}\"", esc(&c.name), exact(c.p)),
                cells,
            )
        })
        .collect();
    table(&["test", "method", "statistic", "p", "at α/3"], &rows, out);
    out.push_str("<ul class=\"findings\">\n");
    for (rule, o) in [
        (GateRule::Margin, &s.margin_rule),
        (GateRule::Detect, &s.detect_rule),
    ] {
        let mark = match rule == g.settings.rule {
            true => " <strong>(declared, decides)</strong>",
            false => "",
        };
        let why: Vec<String> = o.reasons.iter().map(|r| esc(r)).collect();
        let _ = writeln!(
            out,
            "<li>{} rule{mark}: <span class=\"{}\">{}</span>{}</li>",
            rule.name(),
            decision_class(o.decision),
            o.decision.name(),
            if why.is_empty() {
                String::new()
            } else {
                format!(" — {}", why.join("; "))
            }
        );
    }
    out.push_str("</ul>\n");
}

/// Every listed flipped problem, A and B side by side.
fn flipped(g: &Gate, out: &mut String) {
    out.push_str("<h2 id=\"flipped\">Flipped problems</h2>\n");
    let listed: Vec<&BenchmarkRow> = g
        .benchmarks
        .iter()
        .filter(|r| !r.flipped.is_empty())
        .collect();
    if listed.is_empty() {
        out.push_str("<p class=\"note\">No flipped problem is listed.</p>\n");
        return;
    }
    for r in listed {
        let _ = writeln!(
            out,
            "<h3>{}: {} flipped, {} listed (largest drop first)</h3>",
            esc(&r.name),
            r.n_flipped,
            r.flipped.len()
        );
        for p in &r.flipped {
            flip_block(&r.name, p, out);
        }
    }
}

/// One flipped problem: its id and drop, then A's and B's columns.
fn flip_block(benchmark: &str, p: &FlippedProblem, out: &mut String) {
    let _ = writeln!(
        out,
        "<div class=\"flip\" data-benchmark=\"{}\" data-problem=\"{}\" data-drop=\"{}\"><strong>{}</strong> <span class=\"muted\">drop {:.2}</span>\n<div class=\"sbs\">",
        esc(benchmark),
        esc(&p.problem),
        exact(p.drop),
        esc(&p.problem),
        p.drop
    );
    flip_side("A (baseline)", &p.a, out);
    flip_side("B (candidate)", &p.b, out);
    out.push_str("</div></div>\n");
}

/// One side of a flipped problem: c/n, the answers, the responses.
fn flip_side(label: &str, s: &FlippedSide, out: &mut String) {
    let _ = write!(
        out,
        "<div><div>{} · {}/{} correct</div><div>answers: {}</div>",
        esc(label),
        s.c,
        s.n,
        esc(&answers_joined(s))
    );
    if !s.responses.is_empty() {
        let _ = write!(
            out,
            "<details><summary>{} responses</summary>",
            s.responses.len()
        );
        for r in &s.responses {
            let _ = write!(out, "<pre>{}</pre>", esc(r.as_deref().unwrap_or("∅")));
        }
        out.push_str("</details>");
    }
    out.push_str("</div>\n");
}

fn findings(g: &Gate, words: &Words, out: &mut String) {
    out.push_str("<h2 id=\"findings\">Findings</h2>\n");
    if g.findings.is_empty() {
        out.push_str("<p class=\"note\">None.</p>\n");
        return;
    }
    out.push_str("<ul class=\"findings\">\n");
    for f in &g.findings {
        let _ = writeln!(out, "<li>{}</li>", esc(&(words.finding)(f)));
    }
    out.push_str("</ul>\n");
}

/// Each benchmark's input files, both sides.
fn inputs(g: &Gate, out: &mut String) {
    let rows: Vec<(String, Vec<String>)> = g
        .benchmarks
        .iter()
        .flat_map(|r| {
            let a = r.inputs_a.iter().map(move |i| (r, "A", i));
            a.chain(r.inputs_b.iter().map(move |i| (r, "B", i)))
        })
        .map(|(r, side, i)| {
            let sha = i.sha256.get(..12).unwrap_or(&i.sha256);
            let cells = vec![
                esc(&r.name),
                side.into(),
                esc(&i.path),
                esc(&i.format),
                format!("<span title=\"{}\">{}</span>", esc(&i.sha256), esc(sha)),
                i.records.to_string(),
            ];
            (String::new(), cells)
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("<h3>Inputs</h3>\n");
    table(
        &["benchmark", "side", "path", "format", "sha256", "rows"],
        &rows,
        out,
    );
}

/// The settings behind every number and the plan's text.
fn plan(g: &Gate, out: &mut String) {
    out.push_str("<h2 id=\"plan\">Plan and settings</h2>\n");
    let s = &g.settings;
    let items = vec![
        (
            "plan",
            format!("{} (sha256 {})", g.plan.source, g.plan.sha256),
        ),
        ("metric", s.metric.clone()),
        ("n", rollouts(g)),
        ("weights", s.weights.name().into()),
        ("rule", s.rule.name().into()),
        ("α", trim_float(s.alpha)),
        (
            "suite margin",
            s.suite_margin
                .map_or("none".into(), |m| format!("{:.2} points", 100.0 * m)),
        ),
        ("McNemar", if s.mid_p { "mid-p" } else { "exact" }.into()),
        (
            "clustered by",
            s.cluster_by.clone().unwrap_or_else(|| "–".into()),
        ),
        (
            "interval",
            format!("{}, {} resamples", s.method, s.resamples),
        ),
        ("per benchmark", crate::gate::interval_note(g)),
        ("permutations", s.permutations.to_string()),
        ("seed / rng", format!("{} / {}", s.seed, s.rng)),
        (
            "flips listed",
            format!("at most {} per benchmark", s.flips_listed),
        ),
    ];
    key_values(&items, out);
    inputs(g, out);
    let _ = writeln!(
        out,
        "<details><summary>plan text</summary><pre class=\"plan\" data-sha256=\"{}\">{}</pre></details>",
        esc(&g.plan.sha256),
        esc(&g.plan.text)
    );
    let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(&verdict_line(g)));
}
