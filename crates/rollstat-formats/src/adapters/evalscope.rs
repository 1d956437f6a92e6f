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
//! The v0.x layout (evalscope ≤ 0.17) is one line per problem: `index`,
//! `subset_name`, `model`, and `choices[]`, one per rollout, each with
//! `review: {gold, pred, result}`. `result` is a bool, a 0/1 number, or a
//! dict of metrics (the first is the main one, as in v1).
//!
//! The report beside the reviews (`reports/<model>/<benchmark>.json`,
//! `metrics[].categories[].subsets[]`) gives the harness's own number for
//! this file's subset: `metrics[].name` (`AverageAccuracy`, `mean_acc`,
//! `mean_acc_pass@4`, …) or, in report schema 2, `metrics[].identity`
//! `{name, aggregation, dimensions}` written as `acc`, `acc_pass@k`,
//! `acc_vote@k`, `acc_pass^k`.
//!
//! Budgets: review rows carry no usage; the prediction rows beside them
//! (`predictions/<model>/<same file name>`, one `ModelResult` per rollout)
//! do, joined by `index`: `output_tokens`, `input_tokens`, `total_tokens`
//! from `model_output.usage`, `latency_s` = `model_output.time`. A rollout
//! without them (no predictions file, no row, no usage) has none — counted
//! missing, never zero.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{
    answer_or_null, as_index, as_verdict, inner_name, parent_name, problem_id, read_jsonl, Rollout,
};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `evalscope-reviews`: v1 `ReviewResult` rows, or v0.x rows with reviewed
/// `choices`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    let v0 = p.has("choices") && p.has_any(&["review_id", "reviewed"]);
    if p.has("sample_score") || v0 {
        Ok(())
    } else {
        Err(p.missing("key", &["sample_score"]))
    }
}

/// Report names are plain (`mean_acc`, `mean_acc_pass@4`, `acc_vote@4`,
/// `AverageAccuracy`), scored by the review's main score.
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::Name::plain(name), hints));

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
    let mut main_metric = None;
    let usage = predictions_beside(path).map(|p| usage_by_index(&p));
    for (line, rec) in lines {
        let mapped = if rec.contains_key("sample_score") {
            map_line(&rec, &subset, &model).map(|mut row| {
                if let Some(usage) = &usage {
                    add_usage(&mut row, rec.get("index"), usage);
                }
                vec![row]
            })
        } else {
            map_v0_line(&rec, &subset, &model)
        };
        match mapped {
            Ok(rows) => {
                if main_metric.is_none() {
                    main_metric = rows
                        .iter()
                        .find_map(|r| r.get("metric").and_then(Value::as_str).map(str::to_string));
                }
                file.rows.extend(rows);
            }
            Err(reason) => {
                file.bad_lines += 1;
                file.warnings
                    .push(format!("{}:{line}: {reason}; line skipped", path.display()));
            }
        }
    }
    if let Some(subset) = subset.as_ref().and_then(Value::as_str) {
        report_aggregates(path, subset, main_metric.as_deref(), &mut file);
    }
    Ok(file)
}

/// The verdict of a main score value: 0/1-ish values, else `≥ 1` (and the
/// value itself as the score when it is not binary).
fn verdict_of(v: &Value) -> (Value, Option<Value>) {
    let correct = as_verdict(v)
        .or_else(|| v.as_f64().map(|f| f >= 1.0))
        .map(Value::Bool)
        .unwrap_or(Value::Null);
    let score = as_verdict(v).is_none().then(|| v.clone());
    (correct, score)
}

/// A v0.x line: one problem, one rollout per `choices[]` entry.
fn map_v0_line(
    rec: &Map<String, Value>,
    subset: &Option<Value>,
    model: &Option<Value>,
) -> Result<Vec<Map<String, Value>>, String> {
    let problem = rec
        .get("index")
        .and_then(problem_id)
        .ok_or("no \"sample_score\" object, and no \"index\" of a v0.x review line")?;
    let choices = rec
        .get("choices")
        .and_then(Value::as_array)
        .ok_or("no \"choices\" list")?;
    let subset = rec
        .get("subset_name")
        .filter(|v| v.is_string())
        .cloned()
        .or_else(|| subset.clone());
    let model = rec
        .get("model")
        .filter(|v| v.is_string())
        .cloned()
        .or_else(|| model.clone());
    let mut rows = Vec::with_capacity(choices.len());
    for (i, choice) in choices.iter().enumerate() {
        let review = choice
            .get("review")
            .and_then(Value::as_object)
            .ok_or(format!("choices[{i}] has no \"review\" object"))?;
        let mut r = Rollout::new(problem.clone());
        r.rollout = Some(choice.get("index").and_then(as_index).unwrap_or(i as u64));
        let (metric, main) = match review.get("result") {
            Some(Value::Object(m)) => match m.iter().next() {
                Some((k, v)) => (Some(k.clone()), Some(v)),
                None => (None, None),
            },
            other => (None, other),
        };
        match main {
            Some(v) => {
                let (correct, score) = verdict_of(v);
                r.correct = Some(correct);
                r.score = score;
            }
            None => r.correct = Some(Value::Null),
        }
        r.answer = Some(answer_or_null(review.get("pred"), &[]));
        r.gold = review.get("gold").cloned();
        r.response = choice.pointer("/message/content").cloned();
        r.finish_reason = choice
            .get("finish_reason")
            .filter(|v| v.is_string())
            .cloned();
        r.subset = subset.clone();
        r.model = model.clone();
        if let Some(m) = metric {
            r.extra("metric", Value::from(m));
        }
        rows.push(r.into_map());
    }
    Ok(rows)
}

/// The report of this reviews file's benchmark:
/// `<run>/reports/<model>/<benchmark>.json` for
/// `<run>/reviews/<model>/<benchmark>_<subset>.jsonl`, the benchmark with
/// the longest name that prefixes the file's.
fn report_beside(path: &Path) -> Option<(PathBuf, String)> {
    let model_dir = path.parent()?;
    let run = model_dir.parent()?.parent()?;
    let reports = run.join("reports").join(model_dir.file_name()?);
    let stem = inner_name(path).strip_suffix(".jsonl")?.to_string();
    let mut best: Option<(PathBuf, String)> = None;
    for entry in std::fs::read_dir(&reports).ok()?.flatten() {
        let p = entry.path();
        let name = inner_name(&p);
        let Some(bench) = name.strip_suffix(".json") else {
            continue;
        };
        let fits = stem == bench || stem.starts_with(&format!("{bench}_"));
        if fits && best.as_ref().is_none_or(|(_, b)| bench.len() > b.len()) {
            best = Some((p.clone(), bench.to_string()));
        }
    }
    best
}

/// A report metric's name: `name` (schema 1), else its `identity`
/// written as `acc`, `acc_pass@k`, `acc_vote@k` or `acc_pass^k`.
fn report_metric_name(m: &Map<String, Value>) -> Option<String> {
    if let Some(n) = m.get("name").and_then(Value::as_str) {
        return Some(n.to_string());
    }
    let id = m.get("identity")?.as_object()?;
    let name = id.get("name")?.as_str()?;
    let k = id
        .get("dimensions")
        .and_then(|d| d.get("k"))
        .and_then(as_index);
    Some(match (id.get("aggregation").and_then(Value::as_str), k) {
        (Some("pass_at_k"), Some(k)) => format!("{name}_pass@{k}"),
        (Some("vote_at_k"), Some(k)) => format!("{name}_vote@{k}"),
        (Some("pass_hat_k"), Some(k)) => format!("{name}_pass^{k}"),
        (Some("mean") | None, _) => name.to_string(),
        (Some(other), _) => format!("{name}_{other}"),
    })
}

/// The report's numbers for `subset` (each metric's score on it).
fn report_aggregates(path: &Path, subset: &str, main: Option<&str>, file: &mut NativeFile) {
    let Some((report, bench)) = report_beside(path) else {
        return;
    };
    let Some(subset) = subset
        .strip_prefix(&format!("{bench}_"))
        .or(Some(subset).filter(|_| inner_name(path) == format!("{subset}.jsonl")))
    else {
        return;
    };
    let doc = std::fs::read(&report)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let Some(metrics) = doc
        .as_ref()
        .and_then(|d| d.get("metrics")?.as_array().cloned())
    else {
        file.warnings.push(format!(
            "{}: not an evalscope report with a \"metrics\" list; its numbers are not compared",
            report.display()
        ));
        return;
    };
    for m in metrics.iter().filter_map(Value::as_object) {
        let Some(name) = report_metric_name(m) else {
            continue;
        };
        let subsets = m
            .get("categories")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("subsets")?.as_array())
            .flatten();
        for s in subsets {
            let sname = s.get("name").and_then(Value::as_str).unwrap_or_default();
            let here = sname == subset || sname.ends_with(&format!("/{subset}"));
            let Some(value) = s.get("score").and_then(Value::as_f64).filter(|_| here) else {
                continue;
            };
            let mut note = format!("evalscope report; subset={subset}");
            if let Some(num) = s.get("num").and_then(Value::as_u64) {
                note.push_str(&format!("; num={num}"));
            }
            if let Some(main) = main {
                note.push_str(&format!("; scored_by={main}"));
            }
            file.aggregates.push(HarnessAggregate {
                source_path: report.clone(),
                format: Format::EvalscopeReviews,
                metric_name: name.clone(),
                value,
                note,
            });
        }
    }
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
fn predictions_beside(path: &Path) -> Option<PathBuf> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn name_of(m: Value) -> Option<String> {
        report_metric_name(m.as_object().unwrap())
    }

    /// Schema 1 keeps the stored name; schema 2's identity (as in evalscope's
    /// web fixture report-real-single-sample.json, and `pass_at_k` /
    /// `vote_at_k` / `pass_hat_k` with `dimensions.k` as its aggregators
    /// emit them) is written as a name `target` reads.
    #[test]
    fn report_metric_names_of_both_schemas() {
        assert_eq!(
            name_of(json!({"name": "mean_acc"})).as_deref(),
            Some("mean_acc")
        );
        let id = |aggregation: &str, dims: Value| json!({"identity": {"name": "acc", "aggregation": aggregation, "dimensions": dims}});
        let real =
            json!({"identity": {"name": "accuracy", "aggregation": "mean", "dimensions": {}}});
        assert_eq!(name_of(real).as_deref(), Some("accuracy"));
        assert_eq!(
            name_of(id("pass_at_k", json!({"k": 4}))).as_deref(),
            Some("acc_pass@4")
        );
        assert_eq!(
            name_of(id("vote_at_k", json!({"k": 2}))).as_deref(),
            Some("acc_vote@2")
        );
        assert_eq!(
            name_of(id("pass_hat_k", json!({"k": 3}))).as_deref(),
            Some("acc_pass^3")
        );
        assert_eq!(name_of(json!({"num": 1})), None);
    }
}
