//! A layout no adapter knows, read with one field map (#30 item 2): JSON
//! Lines, a nested JSON document, CSV and Parquet. The inputs are the real
//! files of the adapter fixtures (README beside each) or converted from
//! them here, so the expected values are the counts stated there: Qwen2.5-
//! Math AIME 2025 has `score` true on 2 of 30 lines; evalchemy AMC23 solves
//! 12 of 40 problems in each of its 10 repetitions (`run_stats`).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, Error, FieldMap, IntervalMethod, Report, ReportOptions, Source};
use std::path::PathBuf;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures")
        .join(rel)
}

const QWEN: &str = "qwen_math/aime25/test_qwen25-math-cot_-1_seed0_t0.6_s0_e-1.jsonl";
const AMC: &str = "evalchemy/Qwen__Qwen2.5-1.5B-Instruct/results_2026-03-23T00-08-04.777439.json";

fn mapped(path: PathBuf, map: &str) -> Result<Report, Error> {
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    o.field_map = Some(map.parse::<FieldMap>().unwrap());
    report(&[Source::Path(path)], &o)
}

fn pass1(r: &Report) -> f64 {
    r.block.metrics.get("pass@1").expect("pass@1").value
}

#[test]
fn json_lines_with_per_sample_lists() {
    let r = mapped(
        fixture(QWEN),
        "problem=idx,correct=score,answers=pred,gold=gt",
    )
    .unwrap();
    assert_eq!(r.health.n_problems, 30);
    assert!((pass1(&r) - 2.0 / 30.0).abs() < 1e-15);
    assert_eq!(r.inputs[0].format, "field-map");
}

/// `results.*.examples[]`: the task key becomes the subset; the answers
/// are graded against the gold, as evalchemy graded them.
#[test]
fn nested_json_records_are_graded() {
    let map = "records=results.*.examples[],problem=id,answers=model_answers,gold=answer";
    let r = mapped(fixture(AMC), map).unwrap();
    assert_eq!(r.health.n_problems, 40);
    assert!((pass1(&r) - 0.3).abs() < 1e-12);
}

/// The same Qwen2.5-Math lines as CSV (one sample each, written here).
#[test]
fn csv_cells_are_typed() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mystery.csv");
    let mut out = String::from("task_id,prediction,target,is_correct\n");
    for line in std::fs::read_to_string(fixture(QWEN)).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let (pred, gt) = (v["pred"][0].as_str().unwrap(), v["gt"].as_str().unwrap());
        let quoted = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        out += &format!(
            "{},{},{},{}\n",
            v["idx"],
            quoted(pred),
            quoted(gt),
            v["score"][0]
        );
    }
    std::fs::write(&csv, out).unwrap();
    let map = "problem=task_id,correct=is_correct,answers=prediction,gold=target";
    let r = mapped(csv, map).unwrap();
    assert_eq!(r.health.n_problems, 30);
    assert!((pass1(&r) - 2.0 / 30.0).abs() < 1e-15);
}

/// A lighteval legacy details Parquet file (2 documents, `metrics.em` 1.0
/// and 0.0) through a map of its nested column.
#[test]
fn parquet_struct_columns() {
    let p = fixture("lighteval/legacy/details_lighteval|mmlu|0_2024-05-01T00-00-00.000000.parquet");
    let r = mapped(p, "problem=example,correct=metrics.em,answers=predictions").unwrap();
    assert_eq!(r.health.n_problems, 2);
    assert_eq!(pass1(&r), 0.5);
}

/// A key no record has is an error naming the field and the keys that do
/// exist.
#[test]
fn a_missing_field_names_the_keys_there_are() {
    let e = mapped(fixture(QWEN), "problem=idx,correct=passed").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("correct=passed: no key \"passed\" in record 1 (its keys: idx, question, gt_cot, gt, answer, code, pred, report, score)"),
        "{msg}"
    );
}

/// The map suggested for a file no format fits, from its first record.
#[test]
fn the_suggested_map_is_built_from_the_first_record() {
    let head =
        br#"{"task_id": 7, "prediction": "4", "target": "4", "is_correct": true, "notes": "x"}"#;
    let m = rollstat_formats::field_map::suggest_for("x.jsonl".as_ref(), head).unwrap();
    assert_eq!(
        m.to_string(),
        "problem=task_id,correct=is_correct,answer=prediction,gold=target"
    );
    let csv = b"uid,generation,passed\n1,foo,1\n2,bar,0\n";
    let m = rollstat_formats::field_map::suggest_for("x.csv".as_ref(), csv).unwrap();
    assert_eq!(m.to_string(), "problem=uid,correct=passed");
    let none = br#"{"text": "hello", "items": [1]}"#;
    assert!(rollstat_formats::field_map::suggest_for("x.json".as_ref(), none).is_none());
}
