//! The `reliability` block in the terminal table and Markdown: per-run
//! pass@1, flips, ICC, the noise floor, what narrows the interval, and the
//! flaky problems.

use crate::markup::{level_label, short, table, Style};
use rollstat::Reliability;
use std::fmt::Write;

/// Flaky problems listed without the per-problem option.
pub(crate) const FLAKY_SHOWN: usize = 10;

/// Percentage points with 1 decimal (`12.3`).
fn pts(v: f64) -> String {
    format!("{:.1}", 100.0 * v)
}

/// A lever's name in words.
pub(crate) fn lever_words(change: &str) -> &'static str {
    match change {
        "more_runs" => "one more run",
        "double_runs" => "twice the runs (rollouts)",
        "double_problems" => "twice the problems",
        _ => "other",
    }
}

/// What a trial is, in words.
pub(crate) fn trials_words(r: &Reliability) -> String {
    if r.trials.kind == "counts" {
        return "count rows: c of n trials per problem, taken as exchangeable; no per-run values"
            .into();
    }
    match (&r.trials.field, r.trials.exchangeable) {
        (Some(f), _) => format!("runs are the values of `{f}`"),
        (None, true) => {
            "no run field: the rollout index is the trial, and the trials are taken as exchangeable"
                .into()
        }
        (None, false) => "the rollout index is the trial (the harness's trial/epoch)".into(),
    }
}

/// The section; `all_flaky` lists every flaky problem (per-problem view).
pub fn render(r: &Reliability, all_flaky: bool, style: Style, out: &mut String) {
    let title = format!(
        "Run-to-run reliability: {} problems × {} trials ({})",
        r.n_problems,
        r.n_trials,
        trials_words(r)
    );
    match style {
        Style::Terminal => {
            let _ = writeln!(out, "{title}");
        }
        Style::Markdown => {
            let _ = writeln!(out, "## {title}\n");
        }
    }
    table(&summary_rows(r), style, out);
    let _ = writeln!(out);
    runs(r, style, out);
    flaky(r, all_flaky, style, out);
}

/// One row per statistic.
pub(crate) fn summary_rows(r: &Reliability) -> Vec<Vec<String>> {
    let mut rows = vec![row("statistic", "value".into())];
    rows.extend(agreement_rows(r));
    rows.extend(floor_rows(r));
    rows
}

fn row(a: &str, b: String) -> Vec<String> {
    vec![a.to_string(), b]
}

/// An estimate with its interval and level: `0.4046 [0.2608, 0.5582] 95%`.
fn with_interval(v: f64, ci: [f64; 2], level: f64) -> String {
    // ICC(1,k)'s lower bound is −∞ when nothing bounds it.
    let bound = |x: f64| {
        if x == f64::NEG_INFINITY {
            "−∞".to_string()
        } else {
            short(x)
        }
    };
    format!(
        "{} [{}, {}] {}",
        short(v),
        bound(ci[0]),
        bound(ci[1]),
        level_label(level)
    )
}

/// Flips and ICC.
fn agreement_rows(r: &Reliability) -> Vec<Vec<String>> {
    let f = &r.flips;
    let mut rows = vec![
        row(
            "problems that flip (0 < c < n)",
            format!(
                "{}% ({} of {}) at n = {}",
                pts(f.share_flipping),
                f.n_flipping,
                r.n_problems,
                f.n_trials
            ),
        ),
        row(
            "mean pairwise flip rate",
            format!("{}%", pts(f.mean_pairwise)),
        ),
    ];
    if let Some(i) = &r.icc {
        rows.push(row(
            "ICC(1), one trial",
            with_interval(i.icc1, i.icc1_interval, i.level),
        ));
        rows.push(row(
            &format!("ICC(1,k), mean of {}", r.n_trials),
            with_interval(i.icc1k, i.icc1k_interval, i.level),
        ));
    }
    rows
}

/// The variance split, the noise floors and the levers.
fn floor_rows(r: &Reliability) -> Vec<Vec<String>> {
    let v = &r.variance;
    let mut rows = vec![
        row(
            "variance between / within (pass@1)",
            format!(
                "{} / {} ({} dominates)",
                short(v.between),
                short(v.within),
                v.dominant
            ),
        ),
        row(
            &format!(
                "noise floor, two single runs ({})",
                level_label(r.noise_floor.level)
            ),
            format!("{} points", pts(r.noise_floor.single_run)),
        ),
    ];
    for (m, floor) in &r.noise_floor.means {
        rows.push(row(
            &format!("noise floor, two means of {m} runs"),
            format!("{} points", pts(*floor)),
        ));
    }
    rows.push(row("pass@1 stderr now", format!("±{}", pts(v.se))));
    for l in &r.levers {
        rows.push(row(
            &format!("stderr with {}", lever_words(&l.change)),
            format!("±{}", pts(l.se)),
        ));
    }
    rows
}

/// Per-run pass@1 and their spread.
fn runs(r: &Reliability, style: Style, out: &mut String) {
    let values: Vec<String> = r
        .runs
        .iter()
        .map(|v| format!("{}: {}%", v.run, pts(v.pass_at_1)))
        .collect();
    let spread = r.run_spread.as_ref().map_or(String::new(), |s| {
        format!(
            "; SD {} points, range {} points ({}–{}%)",
            s.sd.map_or("–".into(), pts),
            pts(s.range),
            pts(s.min),
            pts(s.max)
        )
    });
    let lead = if style == Style::Markdown { "" } else { "  " };
    let _ = writeln!(out, "{lead}Per-run pass@1: {}{spread}.", values.join(", "));
    let _ = writeln!(
        out,
        "{lead}The run spread is reliability, not the error bar: pass@1's stderr over problems already holds the trial noise. ICC intervals are the union of a bootstrap over problems and the F interval (each under-covers on 0/1 trials somewhere; both are in the JSON).\n"
    );
}

/// The flaky problems, most unstable first.
fn flaky(r: &Reliability, all: bool, style: Style, out: &mut String) {
    if r.flaky.is_empty() {
        return;
    }
    let shown = if all {
        r.flaky.len()
    } else {
        r.flaky.len().min(FLAKY_SHOWN)
    };
    let mut rows = vec![["flaky problem", "c / n", "flip rate"]
        .map(String::from)
        .to_vec()];
    for p in &r.flaky[..shown] {
        rows.push(vec![
            p.problem.clone(),
            format!("{} / {}", p.c, p.n),
            format!("{}%", pts(p.flip_rate)),
        ]);
    }
    table(&rows, style, out);
    // Count-row blocks list the most unstable only; flips count them all.
    let total = r.flaky.len().max(r.flips.n_flipping as usize);
    if shown < r.flaky.len() {
        let _ = writeln!(
            out,
            "  … {} more flaky problems in the per-problem view",
            total - shown
        );
    } else if shown < total {
        let _ = writeln!(
            out,
            "  … {} more flaky problems (count rows: the {} most unstable are listed)",
            total - shown,
            r.flaky.len()
        );
    }
    let _ = writeln!(out);
}
