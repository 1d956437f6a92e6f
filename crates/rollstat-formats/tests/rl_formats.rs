//! The RL-evaluation layouts of #30 are recognised with no flags (from name
//! and content), and their companion files are passed over; a Qwen2.5-Math
//! line with several samples is one rollout per sample.

use std::path::{Path, PathBuf};

use rollstat_formats::{detect, read_bytes, read_path_lenient, Classified, Format};
use serde_json::json;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

#[test]
fn each_layout_is_detected_from_its_content() {
    for (rel, want) in [
        (
            "qwen_math/aime25/test_qwen25-math-cot_-1_seed0_t0.6_s0_e-1.jsonl",
            Format::QwenMath,
        ),
        (
            "evalchemy/Qwen__Qwen2.5-1.5B-Instruct/results_2026-03-23T00-08-04.777439.json",
            Format::Evalchemy,
        ),
        (
            "mmlu_pro/eval_results/deepseek/philosophy_result.json",
            Format::MmluPro,
        ),
        (
            "livecodebench/Scenario.codegeneration_10_0.2_eval_all.json",
            Format::LiveCodeBench,
        ),
    ] {
        let p = fixture(rel);
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(
            detect(&p, &bytes[..bytes.len().min(65536)]).unwrap(),
            want,
            "{rel}"
        );
    }
}

/// A directory walk reads the rows and passes over the metrics and
/// summary files (their numbers are attached to the rows' file).
#[test]
fn companion_files_are_passed_over() {
    // The harness numbers beside each: acc; acc; pass@1, pass@5, pass@10.
    for (dir, numbers) in [("qwen_math", 1), ("mmlu_pro", 1), ("livecodebench", 3)] {
        let r = read_path_lenient(&fixture(dir), None).unwrap();
        assert!(r.errors.is_empty(), "{dir}: {:?}", r.errors);
        assert_eq!(r.files.len(), 1, "{dir}");
        let passed_over = r
            .skipped
            .iter()
            .filter(|(p, _)| p.extension().is_some_and(|e| e == "json"));
        assert_eq!(passed_over.count(), 1, "{dir}: {:?}", r.skipped);
        assert_eq!(r.files[0].aggregates.len(), numbers, "{dir}");
    }
}

#[test]
fn qwen_math_samples_are_rollouts() {
    let line = json!({"idx": 4, "gt": "12", "code": ["a", "b", "c"], "pred": ["12", "", "13"], "score": [true, false, false]});
    let name = Path::new("aime24/test_qwen25-math-cot_-1_seed0_t0.6_s0_e-1.jsonl");
    let decoded = rollstat_formats::decode_bytes(name, format!("{line}\n").into_bytes()).unwrap();
    let Classified::Native(f) = read_bytes(name, &decoded, None).unwrap() else {
        panic!("not read as native rows")
    };
    assert_eq!(f.format, Format::QwenMath);
    let rows: Vec<_> = f
        .rows
        .iter()
        .map(|r| serde_json::Value::Object(r.clone()))
        .collect();
    assert_eq!(
        rows,
        [
            json!({"problem": 4, "rollout": 0, "correct": true, "answer": "12", "gold": "12", "response": "a", "subset": "aime24"}),
            json!({"problem": 4, "rollout": 1, "correct": false, "answer": null, "gold": "12", "response": "b", "subset": "aime24"}),
            json!({"problem": 4, "rollout": 2, "correct": false, "answer": "13", "gold": "12", "response": "c", "subset": "aime24"}),
        ]
    );
}
