//! Interval-method advice counts independent units: with `cluster_by`, the
//! small-sample warning looks at clusters, not problems (docs/spec.md §5).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::rows::{RolloutRow, Row};
use rollstat::{report, Finding, ReportOptions, Source};

/// 400 problems (above the 300-problem threshold) in `clusters` clusters of
/// equal size, two rollouts each, half of them correct.
fn clustered_rows(clusters: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in 0..400 {
        for r in 0..2u64 {
            let row = RolloutRow::new(format!("p{p}"), (p + r as usize).is_multiple_of(3))
                .rollout(r)
                .field("template", format!("t{}", p % clusters));
            rows.push(Row::Rollout(row));
        }
    }
    rows
}

fn small_sample_advice(cluster_by: Option<&str>, clusters: usize) -> Vec<String> {
    let mut o = ReportOptions::default();
    o.intervals.resamples = 1000;
    o.intervals.cluster_by = cluster_by.map(str::to_string);
    let src = Source::Rows {
        name: "rows".into(),
        rows: clustered_rows(clusters),
    };
    let r = report(&[src], &o).unwrap();
    r.health
        .warnings
        .iter()
        .filter_map(|w| match w {
            Finding::IntervalMethod { message, .. } if message.contains("under-covers") => {
                Some(message.clone())
            }
            _ => None,
        })
        .collect()
}

/// 400 problems in 40 clusters are 40 independent units: the percentile
/// bootstrap gets the small-sample warning (it covered 0.939 in simulation
/// at 40 clusters). Without clustering, 400 problems get none.
#[test]
fn small_sample_warning_counts_clusters() {
    let clustered = small_sample_advice(Some("template"), 40);
    assert_eq!(clustered.len(), 1, "{clustered:?}");
    assert!(clustered[0].contains("40 clusters"), "{clustered:?}");
    assert!(small_sample_advice(None, 40).is_empty());
    // 400 clusters of one problem each: the problems are the units.
    assert!(small_sample_advice(Some("template"), 400).is_empty());
}
