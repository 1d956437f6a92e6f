//! Harness run layouts (#10 items 15 and 12): evalscope `reports/*.json`
//! read for reconciliation beside its reviews (v1 and v0.x), the v0.x
//! `choices[].review` layout, tau2-bench's per-simulation layout
//! (`results.json` + `simulations/*.json`), an lm-eval results json that
//! embeds its samples, and a task scored only by `acc_norm`.
//!
//! The real files are under `rollstat-formats/tests/data/runs/` (sources
//! and licenses in that folder's README).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

mod common;
use common::fixture;
use rollstat::{report, HarnessComparison, IntervalMethod, Report, ReportOptions, Source};
use serde_json::json;
use std::path::{Path, PathBuf};

fn runs(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/data/runs")
        .join(name)
}

fn read(path: &Path) -> Report {
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    report(&[Source::Path(path.to_path_buf())], &o).unwrap()
}

fn pass1(r: &Report) -> f64 {
    r.block.metrics.get("pass@1").unwrap().value
}

fn harness<'a>(r: &'a Report, metric: &str) -> Vec<&'a HarnessComparison> {
    r.harness
        .iter()
        .filter(|h| h.harness_metric == metric)
        .collect()
}

/// evalscope v1 (examples/viz/qwen-plus): the EQ reviews score `acc`
/// 0,1,1,1,1,1,1,0,0,1 by line → 7/10; the report stores `mean_acc` 0.7 for
/// subset EQ and 1.0 for IQ, whose reviews are not in the input.
#[test]
fn evalscope_v1_report_is_reconciled_per_subset() {
    let r = read(&runs("evalscope_v1"));
    assert_eq!(r.health.n_problems, 10);
    assert_eq!(pass1(&r), 0.7);
    let h = harness(&r, "mean_acc");
    assert_eq!(h.len(), 1, "{:?}", r.harness);
    assert_eq!(h[0].harness_value, 0.7);
    assert_eq!(h[0].rollstat_metric.as_deref(), Some("pass@1"));
    assert_eq!(h[0].agrees, Some(true));
    assert!(h[0].note.contains("subset=EQ"), "{}", h[0].note);
}

/// evalscope v0.x (examples/viz/20250117_154119 @ 8e290e45): one line per
/// problem with `choices[].review.{gold, pred, result}`; ARC-Easy results
/// are 1 for 9 of the 10 lines; the report stores `AverageAccuracy` 0.9 for
/// ARC-Easy and 0.2 for ARC-Challenge (not in the input).
#[test]
fn evalscope_v0_reviews_are_read_and_reconciled() {
    let r = read(&runs("evalscope_v0"));
    assert_eq!(r.inputs[0].format, "evalscope-reviews");
    assert_eq!(r.health.n_problems, 10);
    assert_eq!(r.health.n_rollouts_total, 10);
    assert_eq!(pass1(&r), 0.9);
    let h = harness(&r, "AverageAccuracy");
    assert_eq!(h.len(), 1, "{:?}", r.harness);
    assert_eq!(
        (h[0].harness_value, h[0].rollstat_value, h[0].agrees),
        (0.9, Some(0.9), Some(true))
    );
}

/// tau2-bench's dir layout, real (tests/test_voice/…/experiment @ a2c0247,
/// the per-tick logs removed): three simulations of tasks 40, 98, 20, none
/// evaluated (no `reward_info`) → three rollouts without a verdict.
#[test]
fn tau2_per_simulation_layout_is_read() {
    let r = read(&runs("tau2_dir"));
    assert_eq!(r.inputs.len(), 1);
    assert_eq!(r.inputs[0].format, "tau-bench");
    assert_eq!(r.health.n_problems, 3);
    assert_eq!(r.health.n_failed, 3);
    assert_eq!(pass1(&r), 0.0);
    // The simulation files are named as read with results.json, not errors.
    let said: Vec<String> = r.health.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter().any(|w| w.contains("tau2-bench simulation")),
        "{said:?}"
    );
    // Same rows when results.json is named directly.
    let direct = read(&runs("tau2_dir").join("results.json"));
    assert_eq!(direct.health.n_problems, 3);
}

/// The dir layout with rewards (written here, tau2's field names): task 1
/// rewards 1.0, 0.0 over trials 0, 1; task 2 rewards 1.0, 1.0 → pass@1 =
/// (1/2 + 1)/2 = 3/4, pass^2 = (0 + 1)/2 = 1/2.
#[test]
fn tau2_per_simulation_rewards_are_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let meta = json!({"timestamp": "2026-01-01T00:00:00", "info": {"num_trials": 2}, "tasks": []});
    std::fs::write(dir.path().join("results.json"), meta.to_string()).unwrap();
    let sims = dir.path().join("simulations");
    std::fs::create_dir(&sims).unwrap();
    for (id, task, trial, reward) in [
        ("a", "1", 0, 1.0),
        ("b", "1", 1, 0.0),
        ("c", "2", 0, 1.0),
        ("d", "2", 1, 1.0),
    ] {
        let sim = json!({"id": id, "task_id": task, "trial": trial,
            "termination_reason": "agent_stop", "reward_info": {"reward": reward}});
        std::fs::write(sims.join(format!("{id}.json")), sim.to_string()).unwrap();
    }
    let r = read(dir.path());
    assert_eq!(pass1(&r), 0.75);
    assert_eq!(r.block.metrics.get("pass^2").unwrap().value, 0.5);
}

/// `simple_evaluate()`'s return value, json-dumped: the results json with
/// `samples: {task: [sample, …]}`. Built from the two-task fixture; it must
/// read as the samples files beside the results file do.
#[test]
fn lm_eval_results_with_embedded_samples_are_rollouts() {
    let src = fixture("lm_eval_two_tasks");
    let doc = common::lm_eval_results_with_samples();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.json");
    std::fs::write(&path, doc.to_string()).unwrap();

    let embedded = read(&path);
    let beside = read(&src);
    assert_eq!(embedded.health.n_problems, 8);
    assert_eq!(embedded.health.n_problems, beside.health.n_problems);
    assert_eq!(pass1(&embedded), pass1(&beside));
    // acc 0.75 (arc_easy) and 0.25 (arc_challenge), each on its own rows.
    let accs = harness(&embedded, "acc,none");
    assert_eq!(accs.len(), 2);
    assert!(accs.iter().all(|h| h.agrees == Some(true)), "{accs:?}");
}

/// A task scored only by `acc_norm`: samples list `metrics: ["acc_norm"]`
/// with 1, 1, 1, 0 → pass@1 = 3/4, as the results file stores. Both the
/// config's `metric_list` and, without it, the samples' first metric say
/// what the verdicts are.
#[test]
fn acc_norm_only_task_maps_to_pass_at_1() {
    for with_config in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let date = "2026-03-04T05-06-07.000001";
        let mut config = json!({"task": "hellaswag"});
        if with_config {
            config["metric_list"] = json!([{"metric": "acc_norm", "aggregation": "mean"}]);
        }
        let results = json!({
            "results": {"hellaswag": {"alias": "hellaswag", "acc_norm,none": 0.75, "acc_norm_stderr,none": 0.25}},
            "configs": {"hellaswag": config},
            "model_name": "org/tiny", "lm_eval_version": "0.4.9"
        });
        std::fs::write(
            dir.path().join(format!("results_{date}.json")),
            results.to_string(),
        )
        .unwrap();
        let lines: Vec<String> = [1.0, 1.0, 1.0, 0.0]
            .iter()
            .enumerate()
            .map(|(i, v)| {
                json!({"doc_id": i, "target": "0", "resps": [[["-1.0", "False"]], [["-2.0", "False"]]],
                    "filtered_resps": [["-1.0", "False"], ["-2.0", "False"]], "filter": "none",
                    "metrics": ["acc_norm"], "acc_norm": v})
                .to_string()
            })
            .collect();
        std::fs::write(
            dir.path().join(format!("samples_hellaswag_{date}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
        let r = read(dir.path());
        assert_eq!(pass1(&r), 0.75);
        let h = harness(&r, "acc_norm,none");
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].rollstat_metric.as_deref(), Some("pass@1"), "{h:?}");
        assert_eq!(h[0].agrees, Some(true));
        assert!(h[0].note.contains("scored_by=acc_norm"), "{h:?}");
    }
}
