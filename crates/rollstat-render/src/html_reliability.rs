//! The report page's run-to-run reliability panel: the statistics (the
//! words of the table renderer), per-run dots with the noise floor, the
//! histogram of per-problem flip rates, and the flaky problems.

use super::html::{exact, legend, table};
use super::reliability::{summary_rows, trials_words, FLAKY_SHOWN};
use super::svg::{esc, nice_ticks, Chart, Scale};
use rollstat::{Reliability, Report};
use std::fmt::Write as _;

/// The panel, when the report has a reliability block.
pub(crate) fn section(r: &Report, out: &mut String) {
    let Some(rel) = &r.reliability else {
        return;
    };
    let _ = writeln!(
        out,
        "<h2 id=\"reliability-h\">Run-to-run reliability: {} problems × {} trials</h2>\n<p class=\"note\">{}.</p>",
        rel.n_problems,
        rel.n_trials,
        esc(&trials_words(rel))
    );
    let rows: Vec<(String, Vec<String>)> = summary_rows(rel)
        .into_iter()
        .skip(1)
        .map(|cells| (String::new(), cells.iter().map(|c| esc(c)).collect()))
        .collect();
    table(&["statistic", "value"], &rows, out);
    runs_plot(rel, out);
    flip_histogram(rel, out);
    flaky(rel, r.per_problem.is_some(), out);
}

/// One dot per run on a pass@1 axis, the runs' mean and the band of
/// ± half the single-run floor around it: two runs both inside the band
/// are closer than the floor.
fn runs_plot(rel: &Reliability, out: &mut String) {
    let Some(sp) = &rel.run_spread else {
        return;
    };
    let half = rel.noise_floor.single_run / 2.0;
    let lo = (sp.min.min(sp.mean - half) - 0.02).max(0.0);
    let hi = (sp.max.max(sp.mean + half) + 0.02).min(1.0);
    let count = rel.runs.len() as f64;
    let y = Scale::Linear {
        min: count - 0.5,
        max: -0.5,
    };
    let mut chart = Chart::new(
        680.0,
        70.0 + 22.0 * count,
        Scale::Linear { min: lo, max: hi },
        y,
    )
    .with_left(90.0);
    let xt = nice_ticks(lo, hi, 6, |v| format!("{:.0}%", 100.0 * v));
    chart.axes(&xt, &[], "pass@1 of each run (%)", "");
    let labels: Vec<(f64, String)> = rel
        .runs
        .iter()
        .enumerate()
        .map(|(i, v)| (i as f64, format!("run {}", v.run)))
        .collect();
    chart.row_labels(&labels);
    chart.vline(sp.mean, "ref");
    chart.vline((sp.mean - half).max(lo), "margin");
    chart.vline((sp.mean + half).min(hi), "margin");
    for (i, v) in rel.runs.iter().enumerate() {
        let tip = format!("run {}: pass@1 {:.1}%", v.run, 100.0 * v.pass_at_1);
        let data = format!(
            " data-run=\"{}\" data-value=\"{}\"",
            esc(&v.run),
            exact(v.pass_at_1)
        );
        chart.point(v.pass_at_1, i as f64, "s1", &tip, &data);
    }
    let _ = write!(
        out,
        "<div id=\"reliability-runs\" data-floor=\"{}\">",
        exact(rel.noise_floor.single_run)
    );
    out.push_str(&chart.finish("plot-runs", "pass@1 of each run with the noise floor"));
    out.push_str("</div>\n");
    out.push_str(&legend(&[
        ("s1", "a run".to_string()),
        ("ref", "mean of the runs".to_string()),
        (
            "margin",
            format!(
                "± half the floor of two single runs ({:.1} points)",
                100.0 * rel.noise_floor.single_run
            ),
        ),
    ]));
}

/// Problems by pairwise flip rate `2c(n − c)/(n(n − 1))` (c and n − c
/// share a bar).
fn flip_histogram(rel: &Reliability, out: &mut String) {
    let n = rel.flips.n_trials;
    let bars = rel.flips.histogram();
    let counts: Vec<String> = bars.iter().map(|b| b.1.to_string()).collect();
    let _ = write!(
        out,
        "<div id=\"reliability-flips\" data-counts=\"{}\">",
        counts.join(",")
    );
    out.push_str(&flip_chart(&bars).finish("plot-flips", "histogram of per-problem flip rates"));
    out.push_str("</div>\n");
    let _ = writeln!(
        out,
        "<p class=\"note\">{:.1}% of problems flip across {n} trials (a share that grows with n); the mean pairwise flip rate is {:.1}%.</p>",
        100.0 * rel.flips.share_flipping,
        100.0 * rel.flips.mean_pairwise
    );
}

/// The histogram's chart: one bar per (rate, problems), its count above.
fn flip_chart(bars: &[(f64, u64)]) -> Chart {
    let top = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1) as f64;
    let xmax = bars.last().map_or(1.0, |b| b.0).max(0.1);
    // Bars at 0.4 of the closest gap between rates: they never touch.
    let gap = bars
        .windows(2)
        .map(|p| p[1].0 - p[0].0)
        .fold(xmax, f64::min);
    let w = 0.4 * gap;
    let x = Scale::Linear {
        min: -w * 1.5,
        max: xmax + w * 1.5,
    };
    let mut chart = Chart::new(
        680.0,
        260.0,
        x,
        Scale::Linear {
            min: 0.0,
            max: top * 1.15,
        },
    );
    let xt = nice_ticks(0.0, xmax, 5, |v| format!("{:.0}%", 100.0 * v));
    let yt = nice_ticks(0.0, top, 4.min(top as usize).max(1), |v| format!("{v:.0}"));
    chart.axes(
        &xt,
        &yt,
        "pairwise flip rate of a problem (chance two trials disagree)",
        "problems",
    );
    for &(rate, count) in bars {
        let class = if rate == 0.0 { "bar never" } else { "bar some" };
        let tip = format!("flip rate {:.1}%: {count} problems", 100.0 * rate);
        chart.count_bar(rate, w, count, class, &tip);
    }
    chart
}

/// The flaky problems, most unstable first (all with per-problem values).
fn flaky(rel: &Reliability, all: bool, out: &mut String) {
    if rel.flaky.is_empty() {
        return;
    }
    let shown = if all {
        rel.flaky.len()
    } else {
        rel.flaky.len().min(FLAKY_SHOWN)
    };
    let _ = writeln!(
        out,
        "<h3 id=\"flaky\">Flaky problems (0 &lt; c &lt; n): {} of {}</h3>",
        rel.flaky.len(),
        rel.n_problems
    );
    let rows: Vec<(String, Vec<String>)> = rel.flaky[..shown]
        .iter()
        .map(|p| {
            (
                format!(
                    " data-problem=\"{}\" data-flip=\"{}\"",
                    esc(&p.problem),
                    exact(p.flip_rate)
                ),
                vec![
                    esc(&p.problem),
                    format!("{} / {}", p.c, p.n),
                    format!("{:.1}%", 100.0 * p.flip_rate),
                ],
            )
        })
        .collect();
    table(&["problem", "c / n", "flip rate"], &rows, out);
    if shown < rel.flaky.len() {
        let _ = writeln!(
            out,
            "<p class=\"note\">{} more in the per-problem report.</p>",
            rel.flaky.len() - shown
        );
    }
}
