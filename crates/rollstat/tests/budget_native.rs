//! Budgets read from native harness files by their adapters: inspect's
//! per-sample usage (the evaluated model's `model_usage`, else
//! `output.usage`) and time, evalscope's prediction usage, NeMo-Skills'
//! generated tokens; lm-eval samples carry none. Expected values are read
//! off the files by hand (each sample's usage is listed in the comments); a
//! sample without usage is counted missing, never zero.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use std::path::PathBuf;

use rollstat::{report, Budget, Report, ReportOptions, Source};

fn formats(rel: &str) -> Source {
    Source::Path(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../rollstat-formats/tests")
            .join(rel),
    )
}

fn run(src: Source, field: &str) -> Report {
    let mut o = ReportOptions::default();
    o.intervals.resamples = 200;
    o.metrics.budget = Budget::Field(field.into());
    report(&[src], &o).unwrap()
}

fn budget_at_1(r: &Report) -> f64 {
    r.block.metrics.get("budget@1").expect("budget@1").value
}

/// inspect_ai's own test log (2 samples × 2 epochs, one model): its
/// `model_usage` gives output tokens 1, 2 (sample 1) and 2, 1 (sample 2),
/// total tokens 67, 68 and 62, 61 → budget@1 = 1.5 and 64.5.
#[test]
fn inspect_eval_usage_is_the_budget() {
    let src = || formats("data/formats/inspect_log_streaming_2epochs.eval");
    let r = run(src(), "output_tokens");
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!((h.n_rollouts, h.n_missing), (4, 0));
    assert_eq!((h.min, h.max), (Some(1.0), Some(2.0)));
    assert_eq!(budget_at_1(&r), 1.5);
    assert_eq!(budget_at_1(&run(src(), "total_tokens")), 64.5);
}

/// A crafted agent log (fixtures/inspect_usage/agent_log.json). Sample 1
/// epoch 1: the evaluated model's `model_usage` 250 output / 550 total (not
/// the last call's 90 in `output.usage`, nor the grader's 5), 12.5 s; epoch
/// 2: no `model_usage`, `output.usage` 40 / 140, 3 s; sample 2 epoch 1:
/// no usage at all (missing); epoch 2: 70 / 120, no time.
/// Per-problem means: output (250 + 40)/2 = 145 and 70 → 107.5; total
/// (550 + 140)/2 = 345 and 120 → 232.5; seconds 7.75 and none (sample 2
/// is excluded) → 7.75.
#[test]
fn inspect_agent_usage_counts_the_evaluated_model_and_missing_samples() {
    let src = || formats("fixtures/inspect_usage/agent_log.json");
    let r = run(src(), "output_tokens");
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!((h.n_rollouts, h.n_missing), (3, 1));
    assert_eq!((h.min, h.max), (Some(40.0), Some(250.0)));
    assert_eq!(budget_at_1(&r), 107.5);
    assert_eq!(budget_at_1(&run(src(), "total_tokens")), 232.5);
    let t = run(src(), "latency_s");
    assert_eq!(budget_at_1(&t), 7.75);
    assert_eq!(t.health.budget.as_ref().unwrap().n_missing, 2);
}

/// evalscope: review rows carry no usage; the prediction rows beside them
/// (fixtures/evalscope_usage/predictions/…) do, joined by `index`. Index 0
/// (problem 0): 120 output / 170 total tokens, 1.5 s; index 1: no
/// prediction row (missing); index 2 (problem 1): 300 / 340, 4 s; index 3:
/// a row without usage (missing); index 4 (problem 2): 80 / 125, no time.
/// Per-problem means 120, 300, 80 → budget@1 = 500/3; total 635/3; seconds
/// 1.5 and 4 (problem 2 has none) → 2.75.
#[test]
fn evalscope_usage_joins_the_predictions() {
    let src = || formats("fixtures/evalscope_usage/reviews/qwen-7b/gsm8k_main.jsonl");
    let r = run(src(), "output_tokens");
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!((h.n_rollouts, h.n_missing), (3, 2));
    assert!((budget_at_1(&r) - 500.0 / 3.0).abs() < 1e-12);
    assert!((budget_at_1(&run(src(), "total_tokens")) - 635.0 / 3.0).abs() < 1e-12);
    let t = run(src(), "latency_s");
    assert_eq!(budget_at_1(&t), 2.75);
    assert_eq!(t.health.budget.as_ref().unwrap().n_missing, 3);
    // The other evalscope fixture's predictions carry no usage: no budget.
    let plain = run(
        formats("fixtures/evalscope/reviews/qwen-7b/gsm8k_main.jsonl"),
        "output_tokens",
    );
    assert_eq!(plain.health.budget.as_ref().map_or(0, |h| h.n_rollouts), 0);
}

/// NeMo-Skills: one file per seed (fixtures/nemo_skills: `output-rs0.jsonl`
/// and `output-rs1.jsonl.gz`), `num_generated_tokens` per line. Seed 0:
/// 12, 4096, 3; seed 1: 10, 20, 3 → per-problem means 11, 2058, 3, so
/// budget@1 = 2072/3 and budget@2 = 4144/3; sorted 3 3 10 12 20 4096:
/// median 11, p90 (h = 4.5) 20 + (4096 − 20)/2 = 2058.
#[test]
fn nemo_skills_seeds_are_rollouts_with_generated_tokens() {
    let r = run(formats("fixtures/nemo_skills"), "output_tokens");
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!((h.n_rollouts, h.n_missing), (6, 0));
    assert_eq!(
        (h.min, h.median, h.p90, h.max),
        (Some(3.0), Some(11.0), Some(2058.0), Some(4096.0))
    );
    assert!((budget_at_1(&r) - 2072.0 / 3.0).abs() < 1e-9);
    let b2 = r.block.metrics.get("budget@2").expect("budget@2").value;
    assert!((b2 - 4144.0 / 3.0).abs() < 1e-9);
}

/// A NeMo-Skills line without `num_generated_tokens` (what a generation
/// that failed before the server answered looks like) is missing, not 0:
/// problem a has 100 and (missing), problem b 40 and 60 → means 100 and 50.
#[test]
fn nemo_skills_line_without_tokens_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let line = |p: &str, ok: bool, t: Option<u64>| {
        let tokens = t.map_or(String::new(), |t| format!(",\"num_generated_tokens\":{t}"));
        format!("{{\"id\":\"{p}\",\"expected_answer\":\"1\",\"predicted_answer\":\"1\",\"symbolic_correct\":{ok}{tokens}}}\n")
    };
    let rs0 = line("a", true, Some(100)) + &line("b", false, Some(40));
    let rs1 = line("a", false, None) + &line("b", true, Some(60));
    std::fs::write(dir.path().join("output-rs0.jsonl"), rs0).unwrap();
    std::fs::write(dir.path().join("output-rs1.jsonl"), rs1).unwrap();
    let r = run(Source::Path(dir.path().to_path_buf()), "output_tokens");
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!((h.n_rollouts, h.n_missing), (3, 1));
    assert_eq!(budget_at_1(&r), 75.0);
}

/// lm-eval: a real `--log_samples` excerpt (tests/data/formats) carries no
/// token counts (`doc`, `arguments`, `resps`, `filtered_resps`, `metrics`,
/// `target`, hashes), so no budget is read, named or not (docs/spec.md §2).
#[test]
fn lm_eval_samples_carry_no_budget() {
    let src = || formats("data/formats/lm_eval_samples_excerpt.jsonl");
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../rollstat-formats/tests/data/formats/lm_eval_samples_excerpt.jsonl"),
    )
    .unwrap();
    assert!(!text.contains("tokens\"") && !text.contains("usage"));
    for field in ["output_tokens", "total_tokens", "latency_s"] {
        let r = run(src(), field);
        assert!(r.health.budget.is_none(), "{field}");
        assert!(r.block.metrics.get("budget@1").is_none());
    }
}
