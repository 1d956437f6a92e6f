//! NeMo-Skills output of four benchmarks side by side (ids repeating across
//! benchmarks), read through the engine: each benchmark is its own subset,
//! verdicts come from each evaluator's field, and no rollout of a benchmark
//! without `predicted_answer` counts as unextracted (#10 item 13).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, ReportOptions, Source};
use std::path::PathBuf;

#[test]
fn benchmarks_stay_apart_and_keep_their_verdicts() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures/nemo_skills_mixed");
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    o.by = Some("subset".into());
    let r = report(&[Source::Path(dir)], &o).unwrap();
    // Correct problems (each seen twice, identically): judge-bench j1, j3;
    // minif2f 1; ifeval 1; human-eval 1 → 5 of 11.
    let pass1 = r.block.metrics.get("pass@1").unwrap();
    assert_eq!(pass1.n_problems, 11);
    assert!((pass1.value - 5.0 / 11.0).abs() < 1e-15);
    assert_eq!(r.health.n_unextracted, 0);
    assert_eq!(r.health.n_duplicate_rollouts, 0);
    let by_subset: Vec<(String, f64)> = r
        .groups
        .iter()
        .map(|(k, g)| (k.clone(), g.block.metrics.get("pass@1").unwrap().value))
        .collect();
    let want = [
        ("human-eval", 0.5),
        ("ifeval", 0.5),
        ("judge-bench", 0.5),
        ("minif2f", 1.0 / 3.0),
    ];
    assert_eq!(by_subset.len(), want.len());
    for ((k, v), (wk, wv)) in by_subset.iter().zip(want) {
        assert_eq!(k, wk);
        assert!((v - wv).abs() < 1e-15, "{k}: {v}");
    }
}
