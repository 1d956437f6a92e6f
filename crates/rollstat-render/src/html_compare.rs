//! `rollstat compare --format html`: the forest plot of B − A per metric
//! and group with its CI, the margin and the verdict in colour; the table
//! with p-values; the per-problem A-vs-B scatter; the discordant pairs of
//! 0/1 metrics.

use super::compare::{delta_cells, hidden_line, p_fmt, shows, summary_line};
use super::html::{exact, key_values, legend, nav, page, table};
use super::svg::{esc, nice_ticks, Chart, Scale};
use crate::{View, Words};
use rollstat::NonInferiorityVerdict as Verdict;
use rollstat::{trim_float, CompareRow as Row, Comparison};
use std::fmt::Write as _;

/// The CSS class of a verdict (colour plus its word in the table).
fn verdict_class(v: Option<Verdict>) -> &'static str {
    match v {
        Some(Verdict::NonInferior) => "ok",
        Some(Verdict::Inferior) => "bad",
        Some(Verdict::Inconclusive) => "mid",
        None => "s1",
    }
}

fn row_label(r: &Row) -> String {
    match &r.group {
        Some(g) => format!("{} · {g}", r.metric),
        None => r.metric.clone(),
    }
}

/// The page: the rows `view` shows (the headline set unless `view.all`)
/// in the forest plot, the table and the discordant pairs; every row in a
/// folded table under it.
pub fn render(c: &Comparison, words: &Words, view: View) -> String {
    let mut b = String::new();
    header(c, &mut b);
    let mut items = vec![
        ("forest", "forest plot"),
        ("table", "table"),
        ("scatter-h", "per problem"),
        ("discordant-h", "discordant pairs"),
    ];
    if !c.warnings.is_empty() {
        items.push(("findings", "findings"));
    }
    nav(&items, &mut b);
    forest(c, &mut b, view);
    rows_table(c, &mut b, view);
    super::scatter::section(c, &mut b);
    discordant(c, &mut b, view);
    if !c.warnings.is_empty() {
        b.push_str("<h2 id=\"findings\">Findings</h2>\n<ul class=\"findings\">\n");
        for w in &c.warnings {
            let _ = writeln!(b, "<li>{}</li>", esc(&(words.finding)(w)));
        }
        b.push_str("</ul>\n");
    }
    let _ = writeln!(
        b,
        "<p class=\"note\">Written by rollstat {} ({}). Every number comes from the same comparison as the JSON document (compare.json).</p>",
        esc(&c.version),
        esc(&c.schema)
    );
    page(
        &format!("rollstat compare — {} vs {}", c.a.name, c.b.name),
        &b,
    )
}

fn header(c: &Comparison, out: &mut String) {
    out.push_str("<h1>rollstat compare</h1>\n");
    let cfg = &c.config;
    let mut ci = format!("{} at {}%", cfg.method, trim_float(100.0 * c.level));
    if let Some(r) = cfg.resamples {
        let _ = write!(ci, ", {r} resamples, seed {}", cfg.seed);
    }
    ci.push_str(crate::compare::score_note(c));
    let mut items = vec![
        ("A (baseline)", side(&c.a)),
        ("B (candidate)", side(&c.b)),
        (
            "pairs",
            format!(
                "{} matched, {} only in A, {} only in B",
                c.pairs.matched, c.pairs.only_a, c.pairs.only_b
            ),
        ),
        (
            "n (rollouts per problem)",
            format!("{} ({})", cfg.n, cfg.n_source),
        ),
        ("interval of B − A", ci),
        (
            "p-values",
            format!("paired sign-flip permutation; {}", cfg.p_adjust),
        ),
        ("summary", summary_line(c).unwrap_or_else(|| "–".into())),
        (
            "run-to-run noise",
            c.noise.as_ref().map_or_else(
                || "– (one rollout a side)".into(),
                super::compare::noise_text,
            ),
        ),
        (
            "tie policy / denominator",
            format!("{} / {}", cfg.tie_policy, cfg.denominator_policy),
        ),
    ];
    if let Some(m) = c.margin {
        items.push(("non-inferiority margin", format!("{} points (B is non-inferior when the one-sided lower bound of B − A is above −{})", trim_float(100.0 * m), trim_float(100.0 * m))));
    }
    key_values(&items, out);
}

/// One side of the comparison: its name, its input files and its problem count.
fn side(s: &rollstat::Side) -> String {
    let files: Vec<String> = s
        .inputs
        .iter()
        .map(|i| {
            // The path is the side's name already when it is its only input.
            let path = if s.name.starts_with(&i.path) {
                String::new()
            } else {
                format!("{} ", i.path)
            };
            format!(
                "{path}({}, sha256 {}, {} rows)",
                i.format,
                i.sha256.get(..12).unwrap_or(&i.sha256),
                i.records
            )
        })
        .collect();
    format!(
        "{} {} — {} problems",
        s.name,
        files.join("; "),
        s.n_problems
    )
}

/// The x range of the forest plot: every CI, 0 and ±margin, padded.
fn forest_range(c: &Comparison) -> (f64, f64) {
    let mut lo: f64 = 0.0;
    let mut hi: f64 = 0.0;
    for r in &c.rows {
        let (a, b) = r.ci.map_or((r.delta, r.delta), |i| (i.lower, i.upper));
        lo = lo.min(a).min(r.delta);
        hi = hi.max(b).max(r.delta);
    }
    if let Some(m) = c.margin {
        lo = lo.min(-m);
        hi = hi.max(m);
    }
    let pad = ((hi - lo) * 0.06).max(0.005);
    (lo - pad, hi + pad)
}

fn forest(c: &Comparison, out: &mut String, view: View) {
    out.push_str("<h2 id=\"forest\">B − A per metric, with its confidence interval</h2>\n");
    // A row that is another row by definition would be drawn twice.
    let rows: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.same_as.is_none() && shows(view, r))
        .collect();
    if rows.is_empty() {
        out.push_str("<p class=\"note\">No metric could be compared.</p>\n");
        return;
    }
    let mut chart = forest_chart(c, &rows);
    for (i, r) in rows.iter().enumerate() {
        forest_point(i as f64, r, &mut chart);
    }
    out.push_str(&chart.finish("plot-forest", "forest plot of B minus A per metric"));
    out.push_str(&legend(&forest_legend(c)));
    let same = c
        .rows
        .iter()
        .filter(|r| r.same_as.is_some() && shows(view, r))
        .count();
    let _ = writeln!(out, "<p class=\"note\">Dots: B − A; bars: the two-sided {}% interval. Right of 0: B is better.{}</p>", trim_float(100.0 * c.level), if same > 0 { format!(" {same} rows that equal another row by definition (marked = in the table) are not drawn again.") } else { String::new() });
}

/// The forest plot's frame: one row per metric, 0 and −margin drawn.
fn forest_chart(c: &Comparison, rows: &[&Row]) -> Chart {
    let (lo, hi) = forest_range(c);
    let count = rows.len() as f64;
    let y = Scale::Linear {
        min: count - 0.5,
        max: -0.5,
    };
    let mut chart = Chart::new(
        720.0,
        70.0 + 24.0 * count,
        Scale::Linear { min: lo, max: hi },
        y,
    )
    .with_left(170.0);
    let ticks = nice_ticks(lo, hi, 6, |v| format!("{:+}", trim_float(100.0 * v)));
    chart.axes(&ticks, &[], "B − A (percentage points)", "");
    let labels: Vec<(f64, String)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, row_label(r)))
        .collect();
    chart.row_labels(&labels);
    chart.vline(0.0, "ref");
    if let Some(m) = c.margin {
        chart.vline(-m, "margin");
    }
    chart
}

/// One metric on the forest plot: its CI bar and its B − A dot, coloured by verdict.
fn forest_point(yi: f64, r: &Row, chart: &mut Chart) {
    let class = verdict_class(r.verdict);
    if let Some(ci) = r.ci {
        chart.hbar(yi, ci.lower, ci.upper, &format!("err {class}"));
    }
    let tip = format!(
        "{}: B − A = {:+.2} points, CI {}, verdict {}",
        row_label(r),
        100.0 * r.delta,
        r.ci.map_or("–".into(), |ci| format!(
            "[{:+.2}, {:+.2}]",
            100.0 * ci.lower,
            100.0 * ci.upper
        )),
        r.verdict.map_or("–", |v| v.name())
    );
    let mut data = format!(
        " data-metric=\"{}\" data-delta=\"{}\"",
        esc(&r.metric),
        exact(r.delta)
    );
    if let Some(g) = &r.group {
        let _ = write!(data, " data-group=\"{}\"", esc(g));
    }
    chart.point(r.delta, yi, class, &tip, &data);
}

/// The forest plot's legend: the verdict colours only exist with a margin.
fn forest_legend(c: &Comparison) -> Vec<(&'static str, String)> {
    let mut items = vec![("ref", "0: no difference".to_string())];
    if let Some(m) = c.margin {
        items.push((
            "margin",
            format!("−margin ({} points)", trim_float(100.0 * m)),
        ));
        items.push(("ok", "non-inferior".into()));
        items.push(("bad", "inferior".into()));
        items.push(("mid", "inconclusive".into()));
        if c.rows.iter().any(|r| r.verdict.is_none()) {
            items.push(("s1", "no verdict (not a correctness score)".into()));
        }
    }
    items
}

const TABLE_HEADER: [&str; 12] = [
    "metric",
    "A",
    "B",
    "B − A (pts)",
    "±SE",
    "CI (pts)",
    "p",
    "p Holm",
    "p BH",
    "McNemar p",
    "problems",
    "verdict",
];

/// The table of the rows `view` shows (`id="headline"`), the line on what
/// it leaves out, and every row folded (`id="every-row"`) unless all are
/// shown.
fn rows_table(c: &Comparison, out: &mut String, view: View) {
    out.push_str("<h2 id=\"table\">Table</h2>\n");
    let rows: Vec<(String, Vec<String>)> = c
        .rows
        .iter()
        .filter(|r| shows(view, r))
        .map(table_row)
        .collect();
    out.push_str("<div class=\"wide\" id=\"headline\">\n");
    table(&TABLE_HEADER, &rows, out);
    out.push_str("</div>\n");
    if let Some(line) = hidden_line(c, view, None) {
        let _ = writeln!(out, "<p class=\"note\">Headline rows; {}</p>", esc(&line));
        let every: Vec<(String, Vec<String>)> = c.rows.iter().map(table_row).collect();
        let _ = writeln!(
            out,
            "<details><summary>Every row ({}), as in compare.json</summary>\n<div class=\"wide\" id=\"every-row\">",
            c.rows.len()
        );
        table(&TABLE_HEADER, &every, out);
        out.push_str("</div>\n</details>\n");
    }
    for n in &c.not_computable {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}{}: {}</p>",
            esc(&n.metric),
            n.group
                .as_deref()
                .map_or(String::new(), |g| format!(" ({})", esc(g))),
            esc(&n.reason)
        );
    }
}

/// One table row: its data attributes and its cells.
fn table_row(r: &Row) -> (String, Vec<String>) {
    let mut attrs = format!(
        " data-metric=\"{}\" data-a=\"{}\" data-b=\"{}\" data-delta=\"{}\"",
        esc(&r.metric),
        exact(r.a),
        exact(r.b),
        exact(r.delta)
    );
    if let Some(g) = &r.group {
        let _ = write!(attrs, " data-group=\"{}\"", esc(g));
    }
    let verdict = r.verdict.map_or("–".to_string(), |v| {
        format!(
            "<span class=\"{}\">{}</span>",
            verdict_class(Some(v)),
            esc(v.name())
        )
    });
    let mut label = esc(&row_label(r));
    if let Some(same) = &r.same_as {
        let _ = write!(label, " <span class=\"muted\">(= {})</span>", esc(same));
    }
    let mut cells = vec![label];
    cells.extend(delta_cells(r));
    cells.extend([
        p_fmt(r.p_value),
        p_fmt(r.p_holm),
        p_fmt(r.p_bh),
        p_fmt(r.mcnemar_p),
        r.n_problems.to_string(),
        verdict,
    ]);
    (attrs, cells)
}

fn discordant(c: &Comparison, out: &mut String, view: View) {
    let rows: Vec<&Row> = c
        .rows
        .iter()
        .filter(|r| r.mcnemar.is_some() && shows(view, r))
        .collect();
    out.push_str("<h2 id=\"discordant-h\">Problems where A and B disagree (0/1 metrics)</h2>\n");
    if rows.is_empty() {
        out.push_str("<p class=\"note\">No metric has one 0/1 outcome per problem on both sides, so there are no discordant pairs to count.</p>\n");
        return;
    }
    let chart = discordant_chart(&rows);
    let _ = write!(
        out,
        "<div id=\"discordant\" data-pairs=\"{}\">",
        rows.iter()
            .map(|r| {
                let d = r.mcnemar.expect("filtered");
                format!("{}:{}:{}", r.metric, d.a_only, d.b_only)
            })
            .collect::<Vec<_>>()
            .join(",")
    );
    out.push_str(&chart.finish("plot-discordant", "discordant pairs per 0/1 metric"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("sq s2", "only A solved".into()),
        ("sq s1", "only B solved".into()),
    ]));
    out.push_str("<p class=\"note\">McNemar's exact test uses only these problems: concordant ones (both solved or both not) say nothing about which system is better.</p>\n");
}

/// Discordant pairs as bars either side of 0: A-only to the left, B-only to the right.
fn discordant_chart(rows: &[&Row]) -> Chart {
    let top = rows
        .iter()
        .filter_map(|r| r.mcnemar)
        .map(|d| d.a_only.max(d.b_only))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let count = rows.len() as f64;
    let y = Scale::Linear {
        min: count - 0.5,
        max: -0.5,
    };
    let mut chart = Chart::new(
        720.0,
        70.0 + 34.0 * count,
        Scale::Linear {
            min: -top * 1.15,
            max: top * 1.15,
        },
        y,
    )
    .with_left(170.0);
    let ticks = nice_ticks(-top, top, 6, |v| format!("{}", v.abs()));
    chart.axes(
        &ticks,
        &[],
        "problems solved by only one side (← A only · B only →)",
        "",
    );
    let labels: Vec<(f64, String)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (i as f64, row_label(r)))
        .collect();
    chart.row_labels(&labels);
    chart.vline(0.0, "ref");
    for (i, r) in rows.iter().enumerate() {
        discordant_bars(i as f64, r, &mut chart);
    }
    chart
}

/// One metric's two bars, each with its count at its end.
fn discordant_bars(yi: f64, r: &Row, chart: &mut Chart) {
    let d = r.mcnemar.expect("filtered");
    chart.rect(
        (-(d.a_only as f64), yi - 0.3),
        (0.0, yi + 0.3),
        "bar s2",
        &format!("{}: {} problems only A solved", row_label(r), d.a_only),
    );
    chart.rect(
        (0.0, yi - 0.3),
        (d.b_only as f64, yi + 0.3),
        "bar s1",
        &format!("{}: {} problems only B solved", row_label(r), d.b_only),
    );
    chart.label_at(
        (-(d.a_only as f64), yi),
        (-4.0, 4.0),
        "end",
        &d.a_only.to_string(),
    );
    chart.label_at(
        (d.b_only as f64, yi),
        (4.0, 4.0),
        "start",
        &d.b_only.to_string(),
    );
}
