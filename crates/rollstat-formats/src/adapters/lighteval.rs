//! lighteval `details/<model>/<date>/details_<task>_<date>.parquet`.
//!
//! Current layout: struct columns `doc` (`id`, `choices`, `gold_index`, …),
//! `metric` (per-doc metric values) and `model_response` (`text`: one string
//! per sample when `num_samples > 1`). Legacy flat layout (before 2025-06):
//! `predictions`, `gold`, `metrics`, `example`, ….
//!
//! lighteval stores per-doc metrics (`pass@k:k=1&n=16`, `avg@n:n=64`), not a
//! verdict per sample. So: with one sample and a 0/1 metric, `correct` is that
//! metric; with several samples, rows carry `response` + `gold` for rollstat
//! to grade, and the per-doc metrics are kept as `doc_metrics`.
//! Read with parquet's row API (no arrow), behind the `parquet` feature.

// Without the feature only the "needs feature" error is reachable.
#![cfg_attr(not(feature = "parquet"), allow(dead_code))]

use std::path::Path;

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::util::{as_verdict, inner_name, problem_id, Rollout};
use crate::NativeFile;

// ---- Detection and aggregate names (this format's registry entry) ----

/// `lighteval-details`: a Parquet file.
pub(crate) fn detect_details(p: &Probe<'_>) -> Result<(), String> {
    if p.bytes.starts_with(b"PAR1") {
        Ok(())
    } else {
        Err("not a Parquet file (no PAR1 magic)".into())
    }
}

/// `lighteval-results`: one object with `config_general` and `results`.
pub(crate) fn detect_results(p: &Probe<'_>) -> Result<(), String> {
    if !p.is_jsonl && p.has("config_general") && p.has("results") {
        Ok(())
    } else {
        Err(p.missing("keys", &["config_general", "results"]))
    }
}

/// Aggregates are `metric:params` (`pass@k:k=1&n=2`: pass@1).
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::split_params(name), hints));

#[cfg(feature = "parquet")]
pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let bad = |e: parquet::errors::ParquetError| {
        FormatError::parse(
            path,
            None,
            format!("unreadable Parquet: {e}"),
            "re-copy the file; if it uses a codec other than snappy/gzip, build with feature `parquet-zstd` or re-save it",
        )
    };
    let decode = || -> Result<Vec<Value>, FormatError> {
        let reader =
            SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)).map_err(bad)?;
        let mut records = Vec::new();
        for row in reader.get_row_iter(None).map_err(bad)? {
            records.push(row.map_err(bad)?.to_json_value());
        }
        Ok(records)
    };
    // NB: parquet's row reader can panic on some malformed files; bad input
    // must be an error naming the file, never a crash, and never a
    // "thread 'main' panicked" message with a backtrace on stderr.
    let records = crate::util::quietly_catch(decode).unwrap_or_else(|| {
        Err(FormatError::parse(
            path,
            None,
            "malformed Parquet (the decoder gave up)",
            "re-copy or re-save the file",
        ))
    })?;
    map_records(path, records)
}

#[cfg(not(feature = "parquet"))]
pub(crate) fn read(path: &Path, _bytes: &[u8]) -> Result<NativeFile, FormatError> {
    Err(FormatError::FeatureDisabled {
        path: path.to_path_buf(),
        format: Format::LightevalDetails.to_string(),
        feature: "parquet",
    })
}

/// `results_<date>.json`: `results[task][metric]` (plus `_stderr`) as
/// harness aggregates; `results["all"]` holds lighteval's averages.
pub(crate) fn read_results(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::LightevalResults);
    let text = crate::input::text(path, bytes, &mut file.warnings);
    let doc = crate::util::read_json(path, &text)?;
    if let Some(Value::Object(results)) = doc.get("results") {
        for (task, metrics) in results {
            let Some(metrics) = metrics.as_object() else {
                continue;
            };
            for (name, v) in metrics {
                if name.ends_with("_stderr") {
                    continue;
                }
                let Some(value) = v.as_f64() else { continue };
                let mut note = format!("lighteval results; task={task}");
                if let Some(se) = metrics.get(&format!("{name}_stderr")) {
                    note.push_str(&format!("; stderr={se}"));
                }
                file.aggregates.push(crate::HarnessAggregate {
                    source_path: path.to_path_buf(),
                    format: Format::LightevalResults,
                    metric_name: name.clone(),
                    value,
                    note,
                });
            }
        }
    }
    file.warnings.push(format!(
        "{}: lighteval results file has aggregates only; per-sample rows are in \
         details/<model>/<date>/details_*.parquet",
        path.display()
    ));
    Ok(file)
}

/// Task name and model from `details/<model>/<date>/details_<task>_<date>.parquet`.
fn task_and_model(path: &Path) -> (Option<Value>, Option<Value>) {
    let name = inner_name(path);
    let task = name
        .strip_prefix("details_")
        .and_then(|s| s.strip_suffix(".parquet"))
        .map(|s| s.rsplit_once('_').map(|(t, _)| t).unwrap_or(s).to_string())
        .map(Value::from);
    let model = path
        .parent()
        .and_then(|date| {
            let d = date.file_name()?.to_str()?;
            // date ids look like 2025-06-25T12-00-00.123456
            (d.len() >= 10 && d.as_bytes()[4] == b'-').then(|| date.parent())?
        })
        .and_then(|m| m.file_name())
        .map(|m| Value::from(m.to_string_lossy().into_owned()));
    (task, model)
}

/// Map decoded rows (JSON objects) to canonical rows. Public to the crate so
/// the mapping is tested without a Parquet file.
pub(crate) fn map_records(path: &Path, records: Vec<Value>) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::LightevalDetails);
    let (task, model) = task_and_model(path);
    let mut ungraded = false;
    for (i, rec) in records.iter().enumerate() {
        let Some(obj) = rec.as_object() else {
            file.bad_lines += 1;
            continue;
        };
        let d = if obj.contains_key("model_response") {
            current(obj, i)
        } else if obj.contains_key("predictions") {
            legacy(obj, i)
        } else {
            return Err(FormatError::parse(
                path,
                None,
                format!(
                    "row {i} has neither `model_response` (current) nor `predictions` (legacy)"
                ),
                "pass a lighteval details_*.parquet file",
            ));
        };
        let n = d.texts.len().max(1);
        let verdict = (d.texts.len() <= 1)
            .then(|| d.metrics.values().find_map(as_verdict))
            .flatten();
        if verdict.is_none() {
            ungraded = true;
        }
        for k in 0..n {
            let mut r = Rollout::new(d.problem.clone());
            r.rollout = Some(k as u64);
            r.correct = verdict.map(Value::Bool);
            r.gold = d.gold.clone();
            r.response = d.texts.get(k).cloned();
            r.subset = task.clone();
            r.model = model.clone();
            if let Some(t) = &task {
                r.extra("task", t.clone());
            }
            r.extra("doc_metrics", Value::Object(d.metrics.clone()));
            file.rows.push(r.into_map());
        }
    }
    if ungraded {
        file.warnings.push(format!(
            "{}: lighteval stores per-doc metrics, not per-sample verdicts: rows carry \
             gold + response for rollstat to grade",
            path.display()
        ));
    }
    Ok(file)
}

struct Doc {
    problem: Value,
    texts: Vec<Value>,
    gold: Option<Value>,
    metrics: Map<String, Value>,
}

fn gold_from(choices: Option<&Value>, gold_index: Option<&Value>) -> Option<Value> {
    let choices = choices?.as_array()?;
    let pick = |v: &Value| v.as_u64().and_then(|i| choices.get(i as usize)).cloned();
    match gold_index? {
        Value::Array(idx) => {
            let golds: Vec<Value> = idx.iter().filter_map(pick).collect();
            match golds.len() {
                0 => None,
                1 => golds.into_iter().next(),
                _ => Some(Value::Array(golds)),
            }
        }
        v => pick(v),
    }
}

fn metrics_of(v: Option<&Value>) -> Map<String, Value> {
    match v {
        Some(Value::Object(m)) => m.clone(),
        Some(Value::String(s)) => match serde_json::from_str(s) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        },
        _ => Map::new(),
    }
}

fn texts_of(v: Option<&Value>) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => vec![Value::from(s.as_str())],
        _ => Vec::new(),
    }
}

fn current(obj: &Map<String, Value>, i: usize) -> Doc {
    let doc = obj.get("doc");
    let problem = doc
        .and_then(|d| d.get("id"))
        .and_then(problem_id)
        .unwrap_or(Value::from(i as u64));
    Doc {
        problem,
        texts: texts_of(obj.get("model_response").and_then(|m| m.get("text"))),
        gold: gold_from(
            doc.and_then(|d| d.get("choices")),
            doc.and_then(|d| d.get("gold_index")),
        ),
        metrics: metrics_of(obj.get("metric")),
    }
}

fn legacy(obj: &Map<String, Value>, i: usize) -> Doc {
    let gold = match obj.get("gold") {
        Some(Value::Array(g)) if g.len() == 1 => g.first().cloned(),
        Some(Value::Null) | None => gold_from(obj.get("choices"), obj.get("gold_index")),
        Some(g) => Some(g.clone()),
    };
    Doc {
        problem: Value::from(i as u64),
        texts: texts_of(obj.get("predictions")),
        gold,
        metrics: metrics_of(obj.get("metrics")),
    }
}
