//! A Parquet file of canonical rollout rows (the columns a DataFrame of
//! rows has) reports as the JSON Lines file of the same rows: values,
//! intervals, counts, groups — everything but the `inputs` list, which
//! names the file read. The Parquet file is written here from
//! `examples/demo.jsonl`'s rows with the `arrow` / `parquet` crates.
#![cfg(feature = "parquet")]

use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use rollstat::{report, ReportOptions, Source};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo.jsonl")
}

/// `examples/demo.jsonl`'s rows as one record batch, column by column.
fn demo_batch() -> RecordBatch {
    let text = std::fs::read_to_string(demo()).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let text_column = |k: &str| -> ArrayRef {
        Arc::new(StringArray::from(
            rows.iter().map(|r| r[k].as_str()).collect::<Vec<_>>(),
        ))
    };
    let int_column = |k: &str| -> ArrayRef {
        Arc::new(Int64Array::from(
            rows.iter().map(|r| r[k].as_i64()).collect::<Vec<_>>(),
        ))
    };
    let correct: ArrayRef = Arc::new(BooleanArray::from(
        rows.iter()
            .map(|r| r["correct"].as_bool())
            .collect::<Vec<_>>(),
    ));
    RecordBatch::try_from_iter([
        ("problem", text_column("problem")),
        ("rollout", int_column("rollout")),
        ("correct", correct),
        ("answer", text_column("answer")),
        ("gold", text_column("gold")),
        ("finish_reason", text_column("finish_reason")),
        ("output_tokens", int_column("output_tokens")),
        ("group", text_column("group")),
    ])
    .unwrap()
}

fn write_parquet(path: &Path, batch: &RecordBatch) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// The report as JSON, without its `inputs`.
fn document(source: Source, opts: &ReportOptions) -> (Value, rollstat::Report) {
    let r = report(&[source], opts).unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    v.as_object_mut().unwrap().remove("inputs");
    (v, r)
}

#[test]
fn a_parquet_file_of_rows_reports_as_its_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let parquet = dir.path().join("rollouts.parquet");
    write_parquet(&parquet, &demo_batch());
    assert!(std::fs::read(&parquet).unwrap().starts_with(b"PAR1"));
    let mut plain = ReportOptions::default();
    plain.intervals.resamples = 2000;
    let mut grouped = plain.clone();
    grouped.by = Some("group".into());
    grouped.per_problem = true;
    for opts in [plain, grouped] {
        let (from_jsonl, j) = document(Source::Path(demo()), &opts);
        let (from_parquet, p) = document(Source::Path(parquet.clone()), &opts);
        assert_eq!(from_parquet, from_jsonl);
        assert_eq!(p.inputs[0].records, 48);
        assert_eq!(p.inputs[0].records, j.inputs[0].records);
        assert_eq!(p.health.n_problems, 6);
        let p1 = p.block.metrics.get("pass@1").unwrap();
        assert!(p1.ci.is_some());
        assert_eq!(p1, j.block.metrics.get("pass@1").unwrap());
        // A directory holding the file reads it too.
        let (from_dir, _) = document(Source::Path(dir.path().to_path_buf()), &opts);
        assert_eq!(from_dir, from_jsonl);
    }
}

#[test]
fn record_batches_report_as_their_jsonl() {
    let opts = ReportOptions::default();
    let source = Source::arrow("frame", vec![demo_batch()], &[]).unwrap();
    let (from_batches, _) = document(source, &opts);
    let (from_jsonl, _) = document(Source::Path(demo()), &opts);
    assert_eq!(from_batches, from_jsonl);
}

#[test]
fn a_parquet_summary_is_still_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let opts = ReportOptions::default();
    let summary = rollstat::summarize(&[Source::Path(demo())], &opts).unwrap();
    let path = dir.path().join("summary.parquet");
    summary
        .write_parquet(std::fs::File::create(&path).unwrap())
        .unwrap();
    let (from_summary, _) = document(Source::Path(path), &opts);
    let (from_jsonl, _) = document(Source::Path(demo()), &opts);
    assert_eq!(from_summary, from_jsonl);
}
