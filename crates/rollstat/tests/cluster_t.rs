//! With `cluster_by`, the `t` interval is mean ± t_{C−1} · CR1 SE: C − 1
//! degrees of freedom, not N − 1 (docs/statistics.md §12.5; the advice for
//! few clusters rests on it). The CR1 SE is computed here by hand from the
//! rows; the t quantiles are scipy 1.17.1's `stats.t.ppf(0.975, 9)` and
//! `stats.t.ppf(0.975, 29)`.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::rows::{RolloutRow, Row};
use rollstat::{report, IntervalMethod, ReportOptions, Source};
use rollstat_stats::CiMethod;

const T_975_9: f64 = 2.262157162798205;
const T_975_29: f64 = 2.045229642132703;

/// 30 problems in 10 clusters of 3 (cluster p mod 10), 2 rollouts each;
/// problem p has ((p mod 10)·(⌊p/10⌋ + 1) mod 3) correct rollouts, so the
/// clusters' sums differ.
fn correct(p: usize) -> usize {
    ((p % 10) * (p / 10 + 1)) % 3
}

#[test]
fn clustered_t_uses_c_minus_1_df() {
    let mut rows = Vec::new();
    for p in 0..30 {
        for r in 0..2 {
            let row = RolloutRow::new(format!("p{p}"), r < correct(p))
                .rollout(r as u64)
                .field("template", format!("t{}", p % 10));
            rows.push(Row::Rollout(row));
        }
    }
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::Resampled(CiMethod::T);
    o.intervals.cluster_by = Some("template".into());
    let src = Source::Rows {
        name: "rows".into(),
        rows,
    };
    let r = report(&[src], &o).unwrap();
    let e = r.block.metrics.get("pass@1").expect("pass@1");
    // By hand: per-problem means, cluster sums, CR1.
    let y: Vec<f64> = (0..30).map(|p| correct(p) as f64 / 2.0).collect();
    let mean = y.iter().sum::<f64>() / 30.0;
    let mut sums = [0.0; 10];
    for (p, v) in y.iter().enumerate() {
        sums[p % 10] += v - mean;
    }
    let se = (10.0 / 9.0 * sums.iter().map(|s| s * s).sum::<f64>()).sqrt() / 30.0;
    assert!((e.value - mean).abs() < 1e-15);
    assert!(se > 0.01, "{se}");
    assert!(
        (e.stderr.unwrap() - se).abs() < 1e-12,
        "{:?} vs {se}",
        e.stderr
    );
    let ci = e.ci.as_ref().expect("an interval");
    assert!((ci.lower - (mean - T_975_9 * se)).abs() < 1e-9, "{ci:?}");
    assert!((ci.upper - (mean + T_975_9 * se)).abs() < 1e-9, "{ci:?}");
    // Not the N − 1 = 29 df quantile.
    assert!((ci.upper - (mean + T_975_29 * se)).abs() > 1e-3);
}
