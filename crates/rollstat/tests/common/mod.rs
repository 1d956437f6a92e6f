//! Helpers shared by the engine's integration tests (each test file uses
//! some of them).
#![allow(dead_code)]

use serde_json::Value;
use std::path::PathBuf;

/// A fixture of rollstat-formats' `tests/fixtures/`.
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures")
        .join(name)
}

/// The two-task lm-eval fixture's results json with its samples files
/// embedded (`samples: {task: [sample, …]}`), as `simple_evaluate()`'s
/// return value json-dumps.
pub fn lm_eval_results_with_samples() -> Value {
    let src = fixture("lm_eval_two_tasks");
    let date = "2026-02-03T04-05-06.000001";
    let results = std::fs::read_to_string(src.join(format!("results_{date}.json"))).unwrap();
    let mut doc: Value = serde_json::from_str(&results).unwrap();
    let mut samples = serde_json::Map::new();
    for task in ["arc_easy", "arc_challenge"] {
        let text =
            std::fs::read_to_string(src.join(format!("samples_{task}_{date}.jsonl"))).unwrap();
        let rows: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        samples.insert(task.into(), Value::Array(rows));
    }
    doc["samples"] = Value::Object(samples);
    doc
}
