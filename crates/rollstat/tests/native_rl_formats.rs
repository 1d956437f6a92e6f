//! The RL-evaluation layouts of #30 through the engine, read with no
//! flags: each fixture is a (trimmed) real file from a public repository
//! (see the README beside it), and rollstat's pass@1 is compared with the
//! harness's own aggregate stored beside it. Expected values are counted
//! from the files independently (the counts are given in each test).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, IntervalMethod, Report, ReportOptions, Source};
use std::path::PathBuf;

fn fixture(rel: &str) -> Source {
    Source::Path(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../rollstat-formats/tests/fixtures")
            .join(rel),
    )
}

fn run(rel: &str) -> Report {
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    report(&[fixture(rel)], &o).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn pass1(r: &Report) -> f64 {
    r.block.metrics.get("pass@1").expect("pass@1").value
}

fn harness<'r>(r: &'r Report, metric: &str) -> &'r rollstat::HarnessComparison {
    (r.harness.iter().find(|h| h.harness_metric == metric))
        .unwrap_or_else(|| panic!("no harness row {metric}: {:?}", r.harness))
}

/// Qwen2.5-Math AIME 2025, 30 problems × 1 sample: `score` is true on 2
/// lines (counted with jq), so pass@1 = 2/30; the metrics file's
/// `total_acc` is 6.666…%.
#[test]
fn qwen_math_equals_its_metrics_file() {
    let r = run("qwen_math");
    assert_eq!(r.health.n_problems, 30);
    assert!((pass1(&r) - 2.0 / 30.0).abs() < 1e-15);
    let h = harness(&r, "total_acc");
    assert_eq!(h.rollstat_metric.as_deref(), Some("pass@1"));
    assert_eq!(h.agrees, Some(true), "{h:?}");
}

/// evalchemy AMC23, 40 problems × 10 repetitions, no stored verdicts:
/// rollstat grades the answers and gets what evalchemy's `run_stats` say,
/// 12 of 40 solved in every repetition (120/400 = 0.3).
#[test]
fn evalchemy_math_is_graded_to_its_accuracy_avg() {
    let r = run("evalchemy/Qwen__Qwen2.5-1.5B-Instruct");
    assert_eq!(r.health.n_problems, 40);
    assert!((pass1(&r) - 0.3).abs() < 1e-12);
    let h = harness(&r, "accuracy_avg");
    assert_eq!(h.agrees, Some(true), "{h:?}");
}

/// evalchemy LiveCodeBench keeps the last of 6 runs' verdicts: 57 of 511
/// correct (raw_metrics[-1].total_correct); the average over runs has no
/// counterpart and says why.
#[test]
fn evalchemy_livecodebench_is_its_last_run() {
    let r = run("evalchemy/ali-elganzory__1.7b-MixtureVitae-300BT-v1-SFT-Tulu3");
    assert_eq!(r.health.n_problems, 511);
    assert!((pass1(&r) - 57.0 / 511.0).abs() < 1e-15);
    assert_eq!(harness(&r, "last_run_accuracy").agrees, Some(true));
    let avg = harness(&r, "accuracy_avg_over_runs");
    assert_eq!(avg.agrees, None);
    assert!(avg.note.contains("only the last run"), "{avg:?}");
}

/// LiveCodeBench, 100 problems × 10 samples: 521 of the 1000 verdicts are
/// true, and the unbiased pass@5 and pass@10 over the problems' c (computed
/// with Python's `math.comb`: 1 − C(10−c, k)/C(10, k), averaged) are
/// 0.6137301587301587 and 0.64 — the numbers of the harness's `_eval.json`,
/// matched by rollstat's.
#[test]
fn livecodebench_equals_its_eval_file() {
    let r = run("livecodebench");
    assert_eq!(r.health.n_problems, 100);
    assert!((pass1(&r) - 0.521).abs() < 1e-12);
    let p5 = harness(&r, "pass@5").rollstat_value.unwrap();
    assert!((p5 - 0.6137301587301587).abs() < 1e-12);
    for k in ["pass@1", "pass@5", "pass@10"] {
        assert_eq!(harness(&r, k).agrees, Some(true), "{k}");
    }
}

/// MMLU-Pro philosophy (deepseek), 488 questions: 263 have `pred ==
/// answer` and 38 have no `pred`; the harness's summary says 268 correct
/// because it scores a missing pred by a random guess (5 hits). The
/// comparison disagrees and its note names the 38 questions.
#[test]
fn mmlu_pro_disagrees_by_its_random_guesses_and_names_them() {
    let r = run("mmlu_pro/eval_results/deepseek");
    assert_eq!(r.health.n_problems, 488);
    assert!((pass1(&r) - 263.0 / 488.0).abs() < 1e-15);
    assert_eq!(r.health.n_unextracted, 38);
    let h = harness(&r, "acc");
    assert!((h.harness_value - 268.0 / 488.0).abs() < 1e-15);
    assert_eq!(h.agrees, Some(false));
    assert!(h.note.contains("random guess") && h.note.contains("38 such questions"));
    assert!(h.note.contains("10781"), "{h:?}");
}
