//! evalscope `reviews/<model>/<benchmark>_<subset>.jsonl` (v1 `ReviewResult`).
//!
//! One line per rollout: `problem` = `sample_score.group_id` (falls back to
//! `index` when there are no repeats), `rollout` = `generation_index`.
//! `correct` comes from the main score (`score.value[main_score_name]`, else
//! the first key); a `status` outside `success`/`fallback`/`degraded` (evalscope
//! excludes those attempts) gives `correct: null`. `answer` =
//! `extracted_prediction` (null or empty → unextracted), `response` =
//! `prediction`, `gold` = `target`.
//!
//! Budgets: review rows carry no usage; the prediction rows beside them
//! (`predictions/<model>/<same file name>`, one `ModelResult` per rollout)
//! do, joined by `index`: `output_tokens`, `input_tokens`, `total_tokens`
//! from `model_output.usage`, `latency_s` = `model_output.time`. A rollout
//! without them (no predictions file, no row, no usage) has none — counted
//! missing, never zero.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::FormatError;
use crate::format::Format;
use crate::input;
use crate::util::{
    answer_or_null, as_index, as_verdict, inner_name, parent_name, read_jsonl, Rollout,
};
use crate::NativeFile;

const USABLE: &[&str] = &["success", "fallback", "degraded"];

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::EvalscopeReviews);
    let text = input::text(path, bytes, &mut file.warnings);
    let lines = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
    let subset = inner_name(path)
        .strip_suffix(".jsonl")
        .map(|s| Value::from(s.to_string()));
    let model = parent_name(path)
        .filter(|p| p != "reviews")
        .map(Value::from);
    let usage = predictions_beside(path).map(|p| usage_by_index(&p));
    for (line, rec) in lines {
        match map_line(&rec, &subset, &model) {
            Ok(mut row) => {
                if let Some(usage) = &usage {
                    add_usage(&mut row, rec.get("index"), usage);
                }
                file.rows.push(row)
            }
            Err(reason) => {
                file.bad_lines += 1;
                file.warnings
                    .push(format!("{}:{line}: {reason}; line skipped", path.display()));
            }
        }
    }
    Ok(file)
}

fn map_line(
    rec: &Map<String, Value>,
    subset: &Option<Value>,
    model: &Option<Value>,
) -> Result<Map<String, Value>, String> {
    let ss = rec
        .get("sample_score")
        .and_then(Value::as_object)
        .ok_or("no \"sample_score\" object")?;
    let problem = ss
        .get("group_id")
        .filter(|v| !v.is_null())
        .or_else(|| rec.get("index"))
        .filter(|v| v.is_number() || v.is_string())
        .ok_or("no \"sample_score.group_id\" or \"index\"")?;
    let score = ss.get("score").and_then(Value::as_object);
    let status = score.and_then(|s| s.get("status")).and_then(Value::as_str);
    let mut r = Rollout::new(problem.clone());
    r.rollout = ss.get("generation_index").and_then(as_index);
    let main = score.and_then(|s| {
        let values = s.get("value")?.as_object()?;
        let key = s.get("main_score_name").and_then(Value::as_str);
        let v = key
            .and_then(|k| values.get(k))
            .or_else(|| values.values().next())?;
        let name = key
            .filter(|k| values.contains_key(*k))
            .map(str::to_string)
            .or_else(|| values.keys().next().cloned())?;
        Some((name, v.clone()))
    });
    let usable = status.is_none_or(|s| USABLE.contains(&s));
    r.correct = Some(match &main {
        Some((_, v)) if usable => as_verdict(v)
            .or_else(|| v.as_f64().map(|f| f >= 1.0))
            .map(Value::Bool)
            .unwrap_or(Value::Null),
        _ => Value::Null,
    });
    if let Some((_, v)) = &main {
        if as_verdict(v).is_none() {
            r.score = Some(v.clone());
        }
    }
    r.answer = Some(answer_or_null(
        score.and_then(|s| s.get("extracted_prediction")),
        &[],
    ));
    r.gold = rec.get("target").cloned();
    r.response = score.and_then(|s| s.get("prediction")).cloned();
    r.subset = subset.clone();
    r.model = model.clone();
    if let Some((name, _)) = main {
        r.extra("metric", Value::from(name));
    }
    if let Some(s) = status {
        r.extra("status", Value::from(s));
    }
    if let Some(id) = ss.get("sample_id") {
        r.extra("sample_id", id.clone());
    }
    Ok(r.into_map())
}

/// `predictions/<model>/<name>` for `reviews/<model>/<name>`, when it exists.
fn predictions_beside(path: &Path) -> Option<std::path::PathBuf> {
    let model_dir = path.parent()?;
    let reviews = model_dir.parent()?;
    if inner_name(reviews) != "reviews" {
        return None;
    }
    let p = reviews
        .parent()?
        .join("predictions")
        .join(model_dir.file_name()?)
        .join(path.file_name()?);
    p.is_file().then_some(p)
}

/// Each prediction row's `model_output` (usage and time) by its `index`;
/// rows that do not parse are left out (their reviews count as missing).
fn usage_by_index(path: &Path) -> std::collections::HashMap<String, Value> {
    let Ok(loaded) = input::load(path, input::DecompressLimit::default()) else {
        return Default::default();
    };
    let mut out = std::collections::HashMap::new();
    for line in String::from_utf8_lossy(&loaded.content).lines() {
        let Ok(Value::Object(mut rec)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let index = rec.get("index").map(Value::to_string);
        if let (Some(index), Some(output)) = (index, rec.remove("model_output")) {
            out.entry(index).or_insert(output);
        }
    }
    out
}

/// The budget fields of the prediction row with this review's `index`.
fn add_usage(
    row: &mut Map<String, Value>,
    index: Option<&Value>,
    usage: &std::collections::HashMap<String, Value>,
) {
    let Some(output) = index.and_then(|i| usage.get(&i.to_string())) else {
        return;
    };
    for key in ["output_tokens", "input_tokens", "total_tokens"] {
        if let Some(v) = output
            .pointer(&format!("/usage/{key}"))
            .filter(|v| v.is_number())
        {
            row.insert(key.into(), v.clone());
        }
    }
    if let Some(t) = output.get("time").filter(|v| v.is_number()) {
        row.insert("latency_s".into(), t.clone());
    }
}
