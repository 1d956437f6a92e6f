//! inspect_ai logs: `.eval` (ZIP with `header.json` and one
//! `samples/{id}_epoch_{n}.json` per sample × epoch) and legacy `.json`
//! (one object with `eval`, `results`, `samples`).
//!
//! Epochs are rollouts (`rollout = epoch − 1`, `epoch` kept). Each scorer
//! gives its own set of rows (`scorer` field; with several scorers, `run` =
//! scorer so the sets are separate evaluations, not duplicates); with one,
//! `run` is the log's `eval.run_id`, so two logs of one task are two runs.
//! The header's status, epochs and dataset size are declared beside the
//! samples present ([`crate::DeclaredRun`]). Score values: `C` → correct,
//! `I` → wrong, `P` → wrong with `score: 0.5`, `N` (no answer) → wrong with
//! `answer: null`; booleans and 0/1 are verdicts; other numbers are kept as
//! `score` with `correct = score ≥ 1` (inspect's `pass_at` threshold); a
//! `null` value (inspect writes NaN, "unscored", as null) or a sample `error`
//! gives `correct: null`.
//!
//! Budgets: `output_tokens`, `input_tokens` and `total_tokens` come from the
//! sample's `model_usage` entry of the evaluated model (`eval.model`: every
//! call it made for the sample, so an agent's turns add up, while a grader
//! model's calls are left out), else from `output.usage` (the last call);
//! `latency_s` = `total_time`. A sample without them has none (counted
//! missing, never zero).

use std::io::Cursor;
use std::path::Path;

use serde_json::Value;

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input::{self, DecompressLimit};
use crate::util::{as_index, content_text, read_json as parse_json, Rollout};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `inspect-eval`: a ZIP archive named `.eval` or holding inspect entries.
pub(crate) fn detect_eval(p: &Probe<'_>) -> Result<(), String> {
    if !p.bytes.starts_with(b"PK\x03\x04") {
        return Err("not a ZIP archive (an .eval log is a ZIP file)".into());
    }
    let named = p.name.ends_with(".eval");
    let has_entries = find(p.bytes, b"header.json")
        || find(p.bytes, b"_journal/start.json")
        || find(p.bytes, b"samples/");
    if named || has_entries {
        Ok(())
    } else {
        Err("ZIP archive without .eval name or inspect entries (header.json, samples/)".into())
    }
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `inspect-json`: one object with `eval` and `samples`/`results`/`status`.
pub(crate) fn detect_json(p: &Probe<'_>) -> Result<(), String> {
    if !p.is_jsonl && p.has("eval") && p.has_any(&["samples", "results", "status"]) {
        Ok(())
    } else {
        Err(p.missing("keys", &["eval", "samples"]))
    }
}

/// Aggregates are `scorer/metric` (`match/accuracy`, `match/stderr`); the
/// scorer is the rows' `run`.
pub(crate) const AGGREGATES: AggregateDialect = AggregateDialect {
    target: |name, hints| harness::resolve(&harness::strip_prefix_path(name), hints),
    run: |name| name.split_once('/').map(|(scorer, _)| scorer),
};

pub(crate) fn read_eval(
    path: &Path,
    bytes: &[u8],
    limit: DecompressLimit,
) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::InspectEval);
    let zip_err = |e: zip::result::ZipError| {
        FormatError::parse(
            path,
            None,
            format!("not a readable ZIP archive: {e}"),
            "an .eval log must be a complete ZIP file; re-copy it, or convert it with \
             `inspect log convert --to json`",
        )
    };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(zip_err)?;
    let names: Vec<String> = zip
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect();
    // Every entry read counts against one budget for the whole archive.
    let mut budget = Budget {
        left: limit.allowed(bytes.len() as u64),
        limit,
        compressed: bytes.len() as u64,
    };
    let mut header = None;
    for candidate in ["header.json", "_journal/start.json"] {
        if names.iter().any(|n| n == candidate) {
            header = Some(entry_json(path, &mut zip, candidate, &mut budget)?);
            break;
        }
    }
    let mut samples = Vec::new();
    for name in names
        .iter()
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
    {
        samples.push(entry_json(path, &mut zip, name, &mut budget)?);
    }
    if samples.is_empty() {
        file.warnings.push(format!(
            "{}: the log holds no samples (run still in progress, or logged without samples)",
            path.display()
        ));
    }
    map_log(path, header.as_ref(), samples, &mut file);
    Ok(file)
}

/// Decompressed bytes an archive may still give (see [`DecompressLimit`]).
struct Budget {
    left: u64,
    limit: DecompressLimit,
    compressed: u64,
}

fn entry_json(
    path: &Path,
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    budget: &mut Budget,
) -> Result<Value, FormatError> {
    let mut raw = Vec::new();
    let within = zip
        .by_name(name)
        .map_err(|e| e.to_string())
        .and_then(|f| input::read_capped(f, budget.left, &mut raw).map_err(|e| e.to_string()))
        .map_err(|e| {
            FormatError::parse(
                path,
                None,
                format!("cannot read ZIP entry {name}: {e}"),
                "the .eval archive is damaged; re-copy it",
            )
        })?;
    if !within {
        return Err(budget.limit.exceeded(path, budget.compressed));
    }
    budget.left -= raw.len() as u64;
    let text = String::from_utf8(raw).map_err(|e| {
        FormatError::parse(
            path,
            None,
            format!("cannot read ZIP entry {name}: {e}"),
            "the .eval archive is damaged; re-copy it",
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        FormatError::parse(
            path,
            None,
            format!("ZIP entry {name} is not valid JSON: {e}"),
            "the .eval archive is damaged; re-copy it",
        )
    })
}

pub(crate) fn read_json(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::InspectJson);
    let text = input::text(path, bytes, &mut file.warnings);
    let mut doc = parse_json(path, &text)?;
    let samples = match doc.get_mut("samples").map(Value::take) {
        Some(Value::Array(s)) => s,
        _ => {
            file.warnings.push(format!(
                "{}: the log holds no samples (written with --no-log-samples?)",
                path.display()
            ));
            Vec::new()
        }
    };
    map_log(path, Some(&doc), samples, &mut file);
    Ok(file)
}

fn map_log(path: &Path, header: Option<&Value>, mut samples: Vec<Value>, file: &mut NativeFile) {
    let eval = header.and_then(|h| h.get("eval"));
    if let Some(h) = header {
        aggregates(path, h, file);
    }
    samples.sort_by_key(sort_key);
    let mut scorers = scorers_of(&samples);
    let unscored = scorers.is_empty() && !samples.is_empty();
    if unscored {
        scorers.push(String::new());
        file.warnings.push(unscored_note(path, header, &samples));
        file.declared.grading = grading_hint(path, &samples);
    }
    let labels = LogLabels {
        task: eval.and_then(|e| e.get("task")).cloned(),
        model: eval.and_then(|e| e.get("model")).cloned(),
        // Runs of one task (inspect's logs/ directory accumulates them)
        // are told apart by their run id.
        run_id: eval
            .and_then(|e| e.get("run_id"))
            .filter(|v| v.is_string())
            .cloned(),
        unscored,
        several: scorers.len() > 1,
    };
    let mut nonbinary = false;
    for scorer in &scorers {
        for s in &samples {
            match sample_row(s, scorer, &labels, &mut nonbinary) {
                Some(r) => file.rows.push(r.into_map()),
                None => {
                    file.bad_lines += 1;
                    file.warnings
                        .push(format!("{}: a sample has no id; skipped", path.display()));
                }
            }
        }
    }
    if nonbinary {
        file.warnings.push(format!(
            "{}: non-binary score values kept as `score`; correct = score ≥ 1 \
             (inspect's pass_at threshold)",
            path.display()
        ));
    }
    if labels.several {
        file.declared.readings = Some(crate::Readings {
            what: "scorer".into(),
            field: "run".into(),
            values: scorers.clone(),
        });
    }
    file.declared.run = header.map(|h| declared_run(path, h, &samples));
}

/// The scorers of the samples, in order of first appearance.
fn scorers_of(samples: &[Value]) -> Vec<String> {
    let mut scorers: Vec<String> = Vec::new();
    for s in samples {
        if let Some(Value::Object(sc)) = s.get("scores") {
            for k in sc.keys() {
                if !scorers.contains(k) {
                    scorers.push(k.clone());
                }
            }
        }
    }
    scorers
}

/// What every row of a log carries.
struct LogLabels {
    task: Option<Value>,
    model: Option<Value>,
    run_id: Option<Value>,
    /// No sample has a score: rows are left to grade.
    unscored: bool,
    /// Several scorers: each one's rows are a `run`.
    several: bool,
}

/// One sample's row under `scorer`; `None` when the sample has no id.
fn sample_row(s: &Value, scorer: &str, l: &LogLabels, nonbinary: &mut bool) -> Option<Rollout> {
    let id = s.get("id").filter(|v| v.is_string() || v.is_number())?;
    let epoch = s.get("epoch").and_then(as_index).unwrap_or(1);
    let mut r = Rollout::new(id.clone());
    r.rollout = Some(epoch.saturating_sub(1));
    let score = s.get("scores").and_then(|sc| sc.get(scorer));
    let error = s.get("error").filter(|e| !e.is_null());
    let (correct, numeric, no_answer) = match score.and_then(|sc| sc.get("value")) {
        _ if error.is_some() => (Some(Value::Null), None, false),
        // No scorer at all: no verdict, so the row is graded from `target`
        // and the output (never "failed").
        None if l.unscored => (None, None, false),
        None => (Some(Value::Null), None, false),
        Some(v) => {
            let (c, n, a) = map_value(v, nonbinary);
            (Some(c), n, a)
        }
    };
    r.correct = correct;
    if no_answer {
        r.answer = Some(Value::Null);
    } else if let Some(a) = score.and_then(|sc| sc.get("answer")) {
        r.answer = Some(a.clone());
    }
    r.gold = s.get("target").cloned();
    let choice = s.pointer("/output/choices/0");
    r.response = choice
        .and_then(|c| c.pointer("/message/content"))
        .and_then(content_text)
        .map(Value::from);
    r.finish_reason = choice.and_then(|c| c.get("stop_reason")).cloned();
    map_usage(&mut r, s, l.model.as_ref());
    r.score = numeric;
    r.subset = l.task.clone();
    r.model = l.model.clone();
    r.run = if l.several {
        Some(Value::from(scorer))
    } else {
        l.run_id.clone()
    };
    r.extra("epoch", Value::from(epoch));
    if !scorer.is_empty() {
        r.extra("scorer", Value::from(scorer));
    }
    if let Some(e) = error {
        r.extra("error", e.clone());
    }
    Some(r)
}

/// The run as the log's header declares it (status, the samples it was to
/// run, epochs) beside the samples present. The samples to run are the
/// header's `sample_ids`, else the dataset's size capped by `limit`.
fn declared_run(path: &Path, header: &Value, samples: &[Value]) -> crate::DeclaredRun {
    let status = header.get("status").and_then(Value::as_str);
    let dataset = header.pointer("/eval/dataset");
    let ids = dataset
        .and_then(|d| d.get("sample_ids"))
        .and_then(Value::as_array)
        .map(|a| a.len() as u64);
    let size = dataset
        .and_then(|d| d.get("samples"))
        .and_then(Value::as_u64);
    let limit = header.pointer("/eval/config/limit").and_then(Value::as_u64);
    let dataset_size = ids.or(match (size, limit) {
        (Some(s), Some(l)) => Some(s.min(l)),
        (s, _) => s,
    });
    let epochs = header
        .pointer("/eval/config/epochs")
        .and_then(Value::as_u64);
    let mut per_sample: std::collections::BTreeMap<String, u64> = Default::default();
    for s in samples {
        if let Some(id) = s.get("id").filter(|v| v.is_string() || v.is_number()) {
            *per_sample.entry(id.to_string()).or_default() += 1;
        }
    }
    let short = epochs.map_or(0, |e| per_sample.values().filter(|&&n| n < e).count());
    crate::DeclaredRun {
        path: path.display().to_string(),
        status: status.map(str::to_string),
        finished: status == Some("success"),
        dataset_size,
        rollouts: epochs,
        present: per_sample.len() as u64,
        short: short as u64,
    }
}

/// Why a log's samples are graded here, and how: a header that names a
/// scorer means the samples were logged without their scores (not a run
/// without a scorer); the targets' shape says which extraction fits.
fn unscored_note(path: &Path, header: Option<&Value>, samples: &[Value]) -> String {
    let named: Vec<&str> = header
        .and_then(|h| h.pointer("/results/scores"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|s| s.get("name")?.as_str()).collect())
        .unwrap_or_default();
    let why = if named.is_empty() {
        "the log has no scores (it was run without a scorer)".to_string()
    } else {
        format!(
            "the header names scorer {} but the samples carry no scores (logged without them?)",
            named.join(", ")
        )
    };
    let how = match grading_hint(path, samples) {
        Some(h) => format!(
            "; the targets are {}: grade them with the extraction {}",
            h.targets, h.extract
        ),
        None => String::new(),
    };
    format!(
        "{}: {why}; rollstat grades each sample's output against its target instead{how}",
        path.display()
    )
}

/// The extraction that fits targets the default math extraction cannot
/// read (choice letters, Yes/No); `None` for numbers and free text.
fn grading_hint(path: &Path, samples: &[Value]) -> Option<crate::GradingHint> {
    let (targets, extract) = match target_shape(samples) {
        TargetShape::Letters => ("choice letters", "mcq"),
        TargetShape::YesNo => ("Yes/No", YES_NO),
        TargetShape::Numbers | TargetShape::Other => return None,
    };
    Some(crate::GradingHint {
        path: path.display().to_string(),
        targets: targets.into(),
        extract: extract.into(),
    })
}

/// The regex extraction of a Yes/No answer: the last "yes" or "no" word.
const YES_NO: &str = "regex:\\b([Yy]es|[Nn]o|YES|NO)\\b";

/// What every sample's target looks like.
#[derive(Debug, PartialEq)]
enum TargetShape {
    /// Single choice letters (`A`…`Z`).
    Letters,
    /// `Yes` / `No`.
    YesNo,
    /// Numbers.
    Numbers,
    /// Anything else (or no target).
    Other,
}

fn target_shape(samples: &[Value]) -> TargetShape {
    let targets: Vec<String> = samples
        .iter()
        .filter_map(|s| match s.get("target")? {
            Value::String(t) => Some(t.trim().to_string()),
            Value::Array(a) if a.len() == 1 => a[0].as_str().map(|t| t.trim().to_string()),
            _ => None,
        })
        .collect();
    let all = |f: &dyn Fn(&str) -> bool| !targets.is_empty() && targets.iter().all(|t| f(t));
    if all(&|t| t.len() == 1 && t.chars().all(|c| c.is_ascii_uppercase())) {
        TargetShape::Letters
    } else if all(&|t| matches!(t.to_ascii_lowercase().as_str(), "yes" | "no")) {
        TargetShape::YesNo
    } else if all(&|t| t.replace(',', "").parse::<f64>().is_ok()) {
        TargetShape::Numbers
    } else {
        TargetShape::Other
    }
}

fn sort_key(s: &Value) -> (u8, u64, String, u64) {
    let epoch = s.get("epoch").and_then(as_index).unwrap_or(0);
    match s.get("id") {
        Some(Value::Number(n)) if n.as_u64().is_some() => {
            (0, n.as_u64().unwrap_or(0), String::new(), epoch)
        }
        Some(v) => (1, 0, v.to_string(), epoch),
        None => (2, 0, String::new(), epoch),
    }
}

/// Map an inspect score value to (correct, score, no_answer).
fn map_value(v: &Value, nonbinary: &mut bool) -> (Value, Option<Value>, bool) {
    match v {
        Value::String(s) => match s.as_str() {
            "C" => (Value::Bool(true), None, false),
            "I" => (Value::Bool(false), None, false),
            "P" => (Value::Bool(false), Some(Value::from(0.5)), false),
            "N" => (Value::Bool(false), None, true),
            other => match other.trim().to_ascii_lowercase().as_str() {
                "yes" | "true" => (Value::Bool(true), None, false),
                "no" | "false" => (Value::Bool(false), None, false),
                num => match num.parse::<f64>() {
                    Ok(f) => map_number(f, nonbinary),
                    Err(_) => (Value::Null, Some(v.clone()), false),
                },
            },
        },
        Value::Bool(b) => (Value::Bool(*b), None, false),
        Value::Number(n) => match n.as_f64() {
            Some(f) => map_number(f, nonbinary),
            None => (Value::Null, None, false),
        },
        Value::Null => (Value::Null, None, false),
        other => {
            *nonbinary = true;
            (Value::Null, Some(other.clone()), false)
        }
    }
}

fn map_number(f: f64, nonbinary: &mut bool) -> (Value, Option<Value>, bool) {
    if f == 1.0 {
        (Value::Bool(true), None, false)
    } else if f == 0.0 {
        (Value::Bool(false), None, false)
    } else {
        *nonbinary = true;
        (Value::Bool(f >= 1.0), Some(Value::from(f)), false)
    }
}

fn aggregates(path: &Path, header: &Value, file: &mut NativeFile) {
    let task = header
        .pointer("/eval/task")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let Some(Value::Array(scores)) = header.pointer("/results/scores") else {
        return;
    };
    for sc in scores {
        let name = sc.get("name").and_then(Value::as_str).unwrap_or("score");
        let reducer = sc
            .get("reducer")
            .and_then(Value::as_str)
            .unwrap_or("mean (default)");
        let Some(Value::Object(metrics)) = sc.get("metrics") else {
            continue;
        };
        for (mname, m) in metrics {
            let Some(value) = m.get("value").and_then(Value::as_f64) else {
                continue;
            };
            file.aggregates.push(HarnessAggregate {
                source_path: path.to_path_buf(),
                format: file.format,
                metric_name: format!("{name}/{mname}"),
                value,
                note: format!("inspect results; task={task}; epochs reducer={reducer}"),
            });
        }
    }
}

/// The sample's token usage and time as budget fields (see the module doc).
fn map_usage(r: &mut Rollout, sample: &Value, model: Option<&Value>) {
    let of_model = model
        .and_then(Value::as_str)
        .and_then(|m| sample.get("model_usage")?.get(m));
    let usage = of_model
        .or_else(|| sample.pointer("/output/usage"))
        .filter(|u| u.is_object());
    let count = |key: &str| usage.and_then(|u| u.get(key)).filter(|v| v.is_number());
    r.output_tokens = count("output_tokens").cloned();
    for key in ["input_tokens", "total_tokens"] {
        if let Some(v) = count(key) {
            r.extra(key, v.clone());
        }
    }
    if let Some(t) = sample.get("total_time").filter(|v| v.is_number()) {
        r.extra("latency_s", t.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::{target_shape, TargetShape};
    use serde_json::json;

    /// Each shape from targets written out by hand.
    #[test]
    fn target_shapes() {
        let of = |ts: &[&str]| {
            let samples: Vec<_> = ts.iter().map(|t| json!({"target": t})).collect();
            target_shape(&samples)
        };
        assert_eq!(of(&["A", "C"]), TargetShape::Letters);
        assert_eq!(of(&["Yes", "no"]), TargetShape::YesNo);
        assert_eq!(of(&["12", "1,024"]), TargetShape::Numbers);
        assert_eq!(of(&["Yes", "12"]), TargetShape::Other);
        assert_eq!(of(&[]), TargetShape::Other);
    }
}
