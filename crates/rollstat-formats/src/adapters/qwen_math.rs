//! Qwen2.5-Math evaluator outputs (`evaluation/math_eval.py`, vendored by
//! SkyThought, RLinf and many RL repositories):
//! `<output_dir>/<dataset>/test_<prompt>_-1_seed0_t0.0_s0_e-1.jsonl`, one
//! line per problem with `idx`, `gt`, and one entry per sample in `code`
//! (the generation), `pred` (the extracted answer) and `score` (the
//! evaluator's verdict).
//!
//! Rollout i of problem `idx` = `score[i]` (a non-boolean → `correct:
//! null`), `pred[i]` (empty → `answer: null`), `code[i]` as `response`,
//! `gt` as `gold`; `subset` = the dataset directory. The evaluator's
//! `<stem>_<prompt>_metrics.json` (or `<stem>_metrics.json`) beside the file
//! holds `acc`, the mean of every score in percent rounded to one decimal,
//! and in newer copies `total_acc` unrounded: the unrounded one is
//! reconciled with rollstat's pass@1 when present.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect, Name};
use crate::input;
use crate::util::{answer_or_null, parent_name, problem_id, read_jsonl, Rollout};
use crate::{HarnessAggregate, NativeFile};

/// `qwen-math`: records with `idx`, `pred` and `score` and a gold
/// (`gt`).
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    if p.has("idx") && p.has("pred") && p.has("score") && p.has("gt") {
        Ok(())
    } else {
        Err(p.missing("keys", &["idx", "gt", "pred", "score"]))
    }
}

/// `acc` and `total_acc` are the mean score (pass@1) in percent.
pub(crate) const AGGREGATES: AggregateDialect = AggregateDialect::plain(|name, hints| {
    let name = if name == "total_acc" { "acc" } else { name };
    harness::resolve(&Name::plain(name), hints)
});

/// A list field of a record (`pred`, `score`, `code`); a scalar is a list
/// of one.
fn list<'a>(rec: &'a Map<String, Value>, key: &str) -> Vec<&'a Value> {
    match rec.get(key) {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![v],
    }
}

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::QwenMath);
    let text = input::text(path, bytes, &mut file.warnings);
    let lines = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
    let subset = parent_name(path).map(Value::from);
    for (line, rec) in lines {
        let Some(problem) = rec.get("idx").and_then(problem_id) else {
            file.bad_lines += 1;
            file.warnings
                .push(format!("{}:{line}: no idx; line skipped", path.display()));
            continue;
        };
        let (preds, scores, codes) = (list(&rec, "pred"), list(&rec, "score"), list(&rec, "code"));
        for i in 0..preds.len().max(scores.len()) {
            let mut r = Rollout::new(problem.clone());
            r.rollout = Some(i as u64);
            r.correct = Some(
                scores
                    .get(i)
                    .and_then(|v| v.as_bool())
                    .map_or(Value::Null, Value::Bool),
            );
            r.answer = Some(answer_or_null(preds.get(i).copied(), &[]));
            r.gold = rec.get("gt").cloned().filter(|g| !g.is_null());
            r.response = codes.get(i).map(|c| (*c).clone());
            r.subset = subset.clone();
            file.rows.push(r.into_map());
        }
    }
    if let Some(metrics) = metrics_file(path) {
        attach_metrics(&metrics, &mut file);
    }
    Ok(file)
}

/// The evaluator's metrics file beside `path`: `<stem>_*metrics.json`.
fn metrics_file(path: &Path) -> Option<PathBuf> {
    let name = crate::util::inner_name(path);
    let stem = name.strip_suffix(".jsonl")?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let dir = dir.unwrap_or(Path::new("."));
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = crate::util::inner_name(p);
            n.starts_with(stem) && n.ends_with("metrics.json")
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// `metrics.json` larger than this is not read.
const MAX_METRICS_BYTES: u64 = 16 << 20;

/// `total_acc` (unrounded) when present, else `acc`, as a percentage.
fn attach_metrics(metrics: &Path, file: &mut NativeFile) {
    let small = std::fs::metadata(metrics).is_ok_and(|m| m.len() <= MAX_METRICS_BYTES);
    let doc = small
        .then(|| std::fs::read(metrics).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let Some(doc) = doc else { return };
    let pick = ["total_acc", "acc"]
        .into_iter()
        .find_map(|k| doc.get(k).and_then(Value::as_f64).map(|v| (k, v)));
    let Some((name, value)) = pick else { return };
    let mut note = String::from("Qwen2.5-Math metrics.json; percentage; the mean of every score");
    if name == "acc" {
        note.push_str("; rounded to one decimal by the evaluator");
    }
    file.aggregates.push(HarnessAggregate {
        source_path: metrics.to_path_buf(),
        format: Format::QwenMath,
        metric_name: name.to_string(),
        value,
        note,
    });
}
