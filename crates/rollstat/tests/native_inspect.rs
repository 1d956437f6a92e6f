//! inspect logs through the engine (#10 item 14): the log's own stderr is
//! reconciled with rollstat's, and a log run without a scorer is graded
//! from its targets instead of reading as "every sample failed".

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, ReportOptions, Source};
use std::path::PathBuf;

fn formats(rel: &str) -> Source {
    Source::Path(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../rollstat-formats/tests")
            .join(rel),
    )
}

fn opts() -> ReportOptions {
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    o
}

/// The real inspect log (2 samples × 2 epochs) stores accuracy 0.75 and
/// stderr 0.25; both are matched to rollstat's pass@1 and its stderr.
#[test]
fn inspect_stderr_is_reconciled() {
    let r = report(
        &[formats("data/formats/inspect_log_streaming_2epochs.eval")],
        &opts(),
    )
    .unwrap();
    let row = r
        .harness
        .iter()
        .find(|h| h.harness_metric == "match/stderr")
        .expect("the log's stderr");
    assert_eq!(row.rollstat_metric.as_deref(), Some("stderr of pass@1"));
    assert!(
        (row.rollstat_value.unwrap() - 0.25).abs() < 1e-12,
        "{row:?}"
    );
    assert_eq!(row.agrees, Some(true));
}

/// Without scores, the outputs are graded against the targets: sample 1
/// answers 4 (target 4) then 3; sample 2 answers 7 then nothing (target 8)
/// → pass@1 = (1/2 + 0)/2 = 1/4, one unextracted rollout, none failed.
#[test]
fn unscored_log_is_graded_from_targets() {
    let r = report(&[formats("fixtures/inspect/unscored_log.json")], &opts()).unwrap();
    assert_eq!(r.block.metrics.get("pass@1").unwrap().value, 0.25);
    assert_eq!(r.health.n_failed, 0);
    assert_eq!(r.health.n_unextracted, 1);
    assert!(r
        .health
        .warnings
        .iter()
        .any(|w| w.to_string().contains("no scores")));
}
