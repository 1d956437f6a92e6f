//! lm-eval: two tasks that reuse doc ids, with one results file beside
//! them — each task's stored number is compared with that task's rows
//! (#10 item 12; before, both numbers were compared with one task's rows,
//! and one of them read as a false "DISAGREES").

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, ReportOptions, Source};
use std::path::PathBuf;

#[test]
fn each_task_number_is_reconciled_with_its_own_rows() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures/lm_eval_two_tasks");
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    let r = report(&[Source::Path(dir)], &o).unwrap();
    // arc_easy rows: acc 1, 1, 1, 0 → 0.75; arc_challenge: 0, 1, 0, 0 → 0.25,
    // as the results file stores them.
    let accs: Vec<(f64, Option<f64>, Option<bool>)> = r
        .harness
        .iter()
        .filter(|h| h.harness_metric == "acc,none")
        .map(|h| (h.harness_value, h.rollstat_value, h.agrees))
        .collect();
    assert_eq!(accs.len(), 2);
    for (harness, ours, agrees) in accs {
        assert_eq!(Some(harness), ours);
        assert_eq!(agrees, Some(true));
    }
    assert_eq!(r.block.metrics.get("pass@1").unwrap().n_problems, 8);
}
