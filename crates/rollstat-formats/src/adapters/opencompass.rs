//! OpenCompass `results/<model>/<dataset>.json` and
//! `predictions/<model>/<dataset>.json`.
//!
//! Results: with `dump_details`, `details` is a list with one entry per
//! problem (`example_abbr`) whose per-replica fields are lists of length n
//! (`pred`, `answer` = gold, `correct` / `is_correct` / `cascade_correct`).
//! Without it, `details` is `{"type": "GEN", "0": {predictions, references,
//! correct, origin_prediction}, …}`, one rollout per key. Top-level numbers
//! (percentages, `"<metric> (n runs average)"`, `G-Pass@k_τ`) are returned as
//! harness aggregates.
//!
//! Predictions hold no verdict: rows carry `response` + `gold` for rollstat
//! to grade. With dataset-level `n`, OpenCompass concatenates the dataset n
//! times (replica r = indices `[r·N, (r+1)·N)`); the replica count is inferred
//! from the period of `origin_prompt` and reported as a warning.

use std::path::Path;

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{answer_or_null, as_verdict, inner_name, parent_name, read_json, Rollout};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `opencompass-results`: one object with `details`.
pub(crate) fn detect_results(p: &Probe<'_>) -> Result<(), String> {
    if !p.is_jsonl && !p.is_array && p.has("details") {
        Ok(())
    } else {
        Err(p.missing("key", &["details"]))
    }
}

/// `opencompass-predictions`: an object keyed `"0"`, `"1"`, … whose
/// entries have `prediction`/`origin_prompt`.
pub(crate) fn detect_predictions(p: &Probe<'_>) -> Result<(), String> {
    let why = "not an object keyed \"0\", \"1\", … with \"prediction\" entries";
    if p.is_jsonl || p.is_array {
        return Err(why.into());
    }
    let fits = match p.first_obj() {
        Some(obj) => {
            let numeric = !obj.is_empty() && obj.keys().all(|k| k.parse::<u64>().is_ok());
            let has_pred = obj
                .values()
                .next()
                .and_then(Value::as_object)
                .is_some_and(|e| e.contains_key("prediction") || e.contains_key("origin_prompt"));
            numeric && has_pred
        }
        None => p.keys_scanned && p.has("0") && p.has_any(&["prediction", "origin_prompt"]),
    };
    fits.then_some(()).ok_or_else(|| why.into())
}

/// Metric keys are plain (`accuracy`, `G-Pass@16_0.5`), percentages.
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::Name::plain(name), hints));

fn names(path: &Path) -> (Option<Value>, Option<Value>) {
    let subset = inner_name(path)
        .strip_suffix(".json")
        .map(|s| Value::from(s.to_string()));
    let model = parent_name(path)
        .filter(|p| p != "results" && p != "predictions")
        .map(Value::from);
    (subset, model)
}

/// Reads `path` as one JSON object (the shape of both OpenCompass files).
fn load_object(
    path: &Path,
    bytes: &[u8],
    format: Format,
    expected: &str,
    fix: &str,
) -> Result<(NativeFile, serde_json::Map<String, Value>), FormatError> {
    let mut file = NativeFile::new(path, format);
    let text = input::text(path, bytes, &mut file.warnings);
    match read_json(path, &text)? {
        Value::Object(m) => Ok((file, m)),
        _ => Err(FormatError::parse(path, None, expected, fix)),
    }
}

pub(crate) fn read_results(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let (mut file, doc) = load_object(
        path,
        bytes,
        Format::OpenCompassResults,
        "expected a JSON object",
        "pass an OpenCompass results/<model>/<dataset>.json",
    )?;
    let obj = &doc;
    let (subset, model) = names(path);
    let ds = subset
        .as_ref()
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    for (k, v) in obj {
        if let Some(value) = v.as_f64() {
            file.aggregates.push(HarnessAggregate {
                source_path: path.to_path_buf(),
                format: Format::OpenCompassResults,
                metric_name: k.clone(),
                value,
                note: format!("OpenCompass results; dataset={ds}; percentages (0-100)"),
            });
        }
    }
    let base = |r: &mut Rollout| {
        r.subset = subset.clone();
        r.model = model.clone();
    };
    match obj.get("details") {
        Some(Value::Array(details)) => {
            for (i, d) in details.iter().enumerate() {
                let Some(d) = d.as_object() else {
                    file.bad_lines += 1;
                    file.warnings.push(format!(
                        "{}: details[{i}] is not an object; skipped",
                        path.display()
                    ));
                    continue;
                };
                let problem = d
                    .get("example_abbr")
                    .filter(|v| v.is_string() || v.is_number())
                    .cloned()
                    .unwrap_or(Value::from(i));
                map_detail(d, problem, &base, &mut file);
            }
        }
        Some(Value::Object(details)) => {
            for (k, d) in details {
                let Some(d) = d.as_object() else { continue }; // "type": "GEN"
                let problem = k
                    .parse::<u64>()
                    .map(Value::from)
                    .unwrap_or(Value::from(k.as_str()));
                map_detail(d, problem, &base, &mut file);
            }
        }
        _ => file.warnings.push(format!(
            "{}: no per-sample `details` (rerun with eval.runner.task.dump_details=True); \
             only aggregates were read",
            path.display()
        )),
    }
    Ok(file)
}

fn first_key<'a>(d: &'a Map<String, Value>, keys: &[&str]) -> Option<(&'a str, &'a Value)> {
    keys.iter()
        .find_map(|k| d.get_key_value(*k).map(|(k, v)| (k.as_str(), v)))
}

fn map_detail(
    d: &Map<String, Value>,
    problem: Value,
    base: &dyn Fn(&mut Rollout),
    file: &mut NativeFile,
) {
    let verdict = first_key(d, &["correct", "is_correct", "cascade_correct"]);
    let pred = first_key(d, &["pred", "predictions", "prediction"]);
    let gold = first_key(d, &["answer", "references", "gold", "reference"]);
    let response = first_key(d, &["origin_prediction"]);
    // Replica count: the longest per-replica list among the verdict/pred.
    let n = [verdict, pred]
        .iter()
        .filter_map(|x| x.and_then(|(_, v)| v.as_array()).map(Vec::len))
        .max()
        .unwrap_or(1)
        .max(1);
    let at = |x: Option<(&str, &Value)>, i: usize| -> Option<Value> {
        let (_, v) = x?;
        match v {
            Value::Array(a) if n > 1 || a.len() == 1 => a.get(i).cloned(),
            other => (i == 0).then(|| other.clone()),
        }
    };
    for i in 0..n {
        let mut r = Rollout::new(problem.clone());
        r.rollout = Some(i as u64);
        r.correct = Some(match at(verdict, i) {
            Some(v) => as_verdict(&v).map(Value::Bool).unwrap_or(Value::Null),
            None => Value::Null,
        });
        if pred.is_some() {
            r.answer = Some(answer_or_null(at(pred, i).as_ref(), &[]));
        }
        r.gold = match gold {
            Some((_, Value::Array(a))) if a.len() == n && n > 1 => a.get(i).cloned(),
            Some((_, v)) => Some(v.clone()),
            None => None,
        };
        r.response = at(response, i);
        base(&mut r);
        if let Some((k, _)) = verdict {
            r.extra("verdict_field", Value::from(k));
        }
        file.rows.push(r.into_map());
    }
}

/// In a directory walk, `predictions/<model>/<ds>.json` is passed over when
/// `results/<model>/<ds>.json` exists: the results hold the same rollouts
/// with verdicts.
pub(crate) fn predictions_shadowed(path: &Path) -> Option<&'static str> {
    let model_dir = path.parent()?;
    let preds = model_dir.parent()?;
    if preds.file_name()? != "predictions" {
        return None;
    }
    let results = preds
        .parent()?
        .join("results")
        .join(model_dir.file_name()?)
        .join(path.file_name()?);
    results.is_file().then_some(
        "OpenCompass predictions: the results/ file beside it holds the same rollouts with verdicts",
    )
}

pub(crate) fn read_predictions(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let (mut file, doc) = load_object(
        path,
        bytes,
        Format::OpenCompassPredictions,
        "expected a JSON object keyed \"0\", \"1\", …",
        "pass an OpenCompass predictions/<model>/<dataset>.json",
    )?;
    let obj = &doc;
    let mut entries: Vec<(u64, &Map<String, Value>)> = Vec::new();
    for (k, v) in obj {
        match (k.parse::<u64>(), v.as_object()) {
            (Ok(i), Some(e)) => entries.push((i, e)),
            _ => {
                file.bad_lines += 1;
                file.warnings.push(format!(
                    "{}: entry {k:?} is not an indexed prediction; skipped",
                    path.display()
                ));
            }
        }
    }
    entries.sort_by_key(|(i, _)| *i);
    let total = entries.len();
    let period = replica_period(&entries);
    if period < total {
        file.warnings.push(format!(
            "{}: origin_prompt repeats every {period} entries: read as {} replicas of {period} \
             problems (OpenCompass dataset-level n)",
            path.display(),
            total / period
        ));
    }
    let (subset, model) = names(path);
    for (pos, (key, e)) in entries.iter().enumerate() {
        let problem = Value::from((pos % period) as u64);
        let replica = (pos / period) as u64;
        let preds: Vec<Value> = match e.get("prediction") {
            Some(Value::Array(a)) => a.clone(),
            Some(v) => vec![v.clone()],
            None => vec![Value::Null],
        };
        let m = preds.len() as u64;
        for (j, p) in preds.into_iter().enumerate() {
            let mut r = Rollout::new(problem.clone());
            r.rollout = Some(replica * m + j as u64);
            r.gold = e.get("gold").cloned();
            r.response = Some(p);
            r.subset = subset.clone();
            r.model = model.clone();
            r.extra("prediction_index", Value::from(*key));
            file.rows.push(r.into_map());
        }
    }
    Ok(file)
}

/// Smallest N dividing the entry count with prompt[i] == prompt[i mod N].
fn replica_period(entries: &[(u64, &Map<String, Value>)]) -> usize {
    let total = entries.len();
    let prompts: Vec<Option<&Value>> = entries
        .iter()
        .map(|(_, e)| e.get("origin_prompt"))
        .collect();
    if total < 2 || prompts.iter().any(Option::is_none) {
        return total.max(1);
    }
    for n in 1..total {
        if total.is_multiple_of(n) && (n..total).all(|i| prompts[i] == prompts[i % n]) {
            return n;
        }
    }
    total
}
