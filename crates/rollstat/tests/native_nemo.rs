//! NeMo-Skills output of four benchmarks side by side (ids repeating across
//! benchmarks), read through the engine: each benchmark is its own subset,
//! verdicts come from each evaluator's field, and no rollout of a benchmark
//! without `predicted_answer` counts as unextracted (#10 item 13); and
//! NeMo-Skills' own test output reconciled with its `metrics.json`.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, ReportOptions, Source, TiePolicy};

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
    // Only the judge's two rollouts of j4 ("I cannot decide.": no
    // judgement, NeMo-Skills' invalid_judgements) have no answer; the code,
    // Lean and IFEval rows carry no answer information and are not counted.
    assert_eq!(r.health.n_unextracted, 2);
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

/// NeMo-Skills' own test output (NVIDIA/NeMo-Skills @ 0b012df,
/// tests/data/eval_outputs/eval-results, Apache-2.0; six benchmarks and the
/// `metrics.json` its `summarize_results` wrote for them): every number
/// NeMo-Skills printed is reconciled, from the verdict field each
/// benchmark's evaluator writes (IFEval's `strict_eval` is a Python dict
/// repr there).
fn real_nemo(tie: TiePolicy) -> rollstat::Report {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/data/nemo_skills/eval-results");
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    o.by = Some("subset".into());
    o.metrics.tie_policy = tie;
    report(&[Source::Path(dir)], &o).unwrap()
}

#[test]
fn real_output_agrees_with_nemo_skills_metrics_json() {
    let r = real_nemo(TiePolicy::Fractional);
    // pass@1 per benchmark as metrics.json prints it (percent).
    let want = [
        ("answer-judge", 43.75),
        ("gpqa", 50.0),
        ("hendrycks_math", 71.42857142857143),
        ("human-eval", 75.0),
        ("ifeval", 33.33333333333333),
        ("minif2f", 33.333333333333336),
    ];
    for (subset, pct) in want {
        let g = r.groups.get(subset).expect(subset);
        let v = g.block.metrics.get("pass@1").unwrap().value;
        assert!((v * 100.0 - pct).abs() < 1e-9, "{subset}: {v}");
    }
    let from_metrics: Vec<_> = r
        .harness
        .iter()
        .filter(|c| c.source.ends_with("metrics.json"))
        .collect();
    // pass@k for k = 1..seeds (4 + 4 + 3 + 2 + 3 + 4) and majority@seeds
    // where answers exist (answer-judge, gpqa, hendrycks_math).
    let pass = from_metrics
        .iter()
        .filter(|c| c.harness_metric.contains("/pass@"));
    assert_eq!(pass.count(), 20);
    let maj: Vec<_> = from_metrics
        .iter()
        .filter(|c| c.harness_metric.contains("/majority@"))
        .collect();
    assert_eq!(maj.len(), 3, "{maj:?}");
    for c in &from_metrics {
        assert_eq!(c.agrees, Some(true), "{c:?}");
    }
}

/// Under rollstat's default tie policy (the first cluster wins) the
/// majority@3 of hendrycks_math differs — and the note names the cause,
/// NeMo-Skills' fractional credit for a tie (76.19% = (5 + 1/3) / 7).
#[test]
fn a_majority_gap_is_explained_as_fractional_ties() {
    let r = real_nemo(TiePolicy::First);
    let c = r
        .harness
        .iter()
        .find(|c| c.harness_metric == "symbolic_correct/majority@3")
        .expect("hendrycks_math majority@3");
    assert_eq!(c.agrees, Some(false));
    assert!((c.harness_value - 100.0 * (5.0 + 1.0 / 3.0) / 7.0).abs() < 1e-9);
    assert!(
        c.note
            .contains("ties: with tie policy fractional rollstat gives 76.190476"),
        "{}",
        c.note
    );
}
