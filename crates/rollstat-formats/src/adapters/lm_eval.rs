//! lm-evaluation-harness `samples_<task>_<date>.jsonl` (+ `results_<date>.json`).
//!
//! One native line per (doc × filter). `resps[0]` holds every repeat of a
//! generation request (`repeats: N` in the task YAML), even when the filter
//! scores only the first. Mapping, one set of rows per filter:
//! - one repeat: `correct` = the first per-doc metric (0/1), `answer` =
//!   `filtered_resps[0]` (`"[invalid]"`, the regex filter's fallback, → null);
//! - N repeats: one row per repeat with `response`, `gold` and no `correct`
//!   (lm-eval scored only the filter output, not each repeat), so rollstat
//!   grades them; `answer` is set only when the filter kept one output per
//!   repeat. The filter output and per-doc metrics are kept as
//!   `filter_output` / `doc_metrics`;
//! - loglikelihood / multiple-choice docs (one request per choice): one row,
//!   `correct` from the metric (`acc`).
//!
//! `results_<date>.json` beside the samples (same date id) gives `model`,
//! the configured `repeats` (to flag short docs) and the harness aggregates
//! for the task, each noting `scored_by=` the task's first configured metric
//! (the one the rows' verdicts come from, e.g. `acc_norm`).
//!
//! A results json that embeds `samples` (`{task: [sample, …]}`, what
//! `simple_evaluate()` returns, json-dumped) is read as rollouts too, each
//! sample mapped as a samples-file line of that task.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{answer_or_null, as_verdict, inner_name, read_json, read_jsonl, Rollout};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `lm-eval-samples`: records with `doc_id` and `resps`/`filtered_resps`.
pub(crate) fn detect_samples(p: &Probe<'_>) -> Result<(), String> {
    if p.has("doc_id") && p.has_any(&["resps", "filtered_resps"]) {
        Ok(())
    } else {
        Err(p.missing("keys", &["doc_id", "resps"]))
    }
}

/// `lm-eval-results`: one object with `results` and an lm-eval key.
pub(crate) fn detect_results(p: &Probe<'_>) -> Result<(), String> {
    let lm_keys = [
        "n-samples",
        "configs",
        "lm_eval_version",
        "n-shot",
        "group_subtasks",
    ];
    if !p.is_jsonl && p.has("results") && p.has_any(&lm_keys) {
        Ok(())
    } else {
        Err(p.missing("\"results\" plus one of", &lm_keys))
    }
}

/// Aggregates are `metric,filter` (`exact_match,strict-match`,
/// `acc_stderr,none`); the filter is the rows' `run` and decides what was
/// scored (`maj@K`, `…first`).
pub(crate) const AGGREGATES: AggregateDialect = AggregateDialect {
    target: |name, hints| harness::resolve(&harness::split_filter(name), hints),
    run: |name| name.split_once(',').map(|(_, filter)| filter),
};

/// lm-eval's RegexFilter fallback when nothing matched.
const UNEXTRACTED: &[&str] = &["[invalid]"];

/// Split `samples_<task>_<date>.jsonl` into (task, date).
fn split_samples_name(name: &str) -> Option<(String, String)> {
    let stem = name.strip_prefix("samples_")?;
    let stem = stem
        .strip_suffix(".jsonl")
        .or_else(|| stem.strip_suffix(".json"))?;
    let (task, date) = stem.rsplit_once('_')?;
    Some((task.to_string(), date.to_string()))
}

/// Results files in `entries` that belong to a samples file in `entries`.
pub(crate) fn results_consumed_by_samples(entries: &[PathBuf]) -> BTreeSet<PathBuf> {
    let dates: BTreeSet<String> = entries
        .iter()
        .filter_map(|p| split_samples_name(&inner_name(p)).map(|(_, d)| d))
        .collect();
    entries
        .iter()
        .filter(|p| {
            let n = inner_name(p);
            !n.starts_with("samples_") && dates.iter().any(|d| n.ends_with(&format!("_{d}.json")))
        })
        .cloned()
        .collect()
}

/// The results json beside a samples file (same date id), parsed.
fn results_beside(path: &Path, date: &str) -> Option<(PathBuf, Value)> {
    let dir = path.parent()?;
    let mut cands: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = inner_name(p);
            !n.starts_with("samples_") && n.ends_with(&format!("_{date}.json"))
        })
        .collect();
    cands.sort();
    for c in cands {
        let Ok(loaded) = input::load(&c, input::DecompressLimit::default()) else {
            continue;
        };
        if let Ok(v) = serde_json::from_slice::<Value>(&loaded.content) {
            if v.get("results").is_some() {
                return Some((c, v));
            }
        }
    }
    None
}

pub(crate) fn read_results_file(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::LmEvalResults);
    let text = input::text(path, bytes, &mut file.warnings);
    let doc = read_json(path, &text)?;
    let sampled: Option<BTreeSet<&str>> = match doc.get("samples") {
        Some(Value::Object(s)) if !s.is_empty() => Some(s.keys().map(String::as_str).collect()),
        _ => None,
    };
    let mut groups = Vec::new();
    if let Some(Value::Object(results)) = doc.get("results") {
        for task in results.keys() {
            // Beside embedded samples, a task without samples of its own is
            // a group (the mean of its subtasks): its number is not one of
            // the rows', as the split-directory reading leaves it out too.
            if sampled.as_ref().is_some_and(|s| !s.contains(task.as_str())) {
                groups.push(task.as_str());
                continue;
            }
            push_aggregates(path, &doc, task, None, &mut file.aggregates);
        }
    }
    if !groups.is_empty() {
        file.warnings.push(format!(
            "{}: aggregates of {} (groups or tasks without samples in the file) are not reconciled: \
             a group's number is a mean over its subtasks, not over the rows",
            path.display(),
            groups.join(", ")
        ));
    }
    match doc.get("samples") {
        Some(Value::Object(samples)) if !samples.is_empty() => {
            for (task, records) in samples {
                read_embedded(path, &doc, task, records, &mut file);
            }
        }
        _ => file.warnings.push(format!(
            "{}: lm-eval results file has aggregates only; per-rollout rows need \
             --log_samples and the samples_<task>_<date>.jsonl files",
            path.display()
        )),
    }
    Ok(file)
}

/// One task's `samples` list embedded in a results json, mapped as the
/// lines of its samples file (line = position in the list, from 1).
fn read_embedded(path: &Path, doc: &Value, task: &str, records: &Value, file: &mut NativeFile) {
    let Some(records) = records.as_array() else {
        file.bad_lines += 1;
        file.warnings.push(format!(
            "{}: samples of task {task} is not a list; skipped",
            path.display()
        ));
        return;
    };
    let filters: BTreeSet<&str> = records
        .iter()
        .map(|r| r.get("filter").and_then(Value::as_str).unwrap_or("none"))
        .collect();
    let ctx = Ctx {
        path,
        task: Some(Value::from(task)),
        model: doc.get("model_name").cloned().filter(|m| !m.is_null()),
        repeats: doc
            .pointer(&format!("/configs/{}/repeats", escape_ptr(task)))
            .and_then(Value::as_u64),
        multi_filter: filters.len() > 1,
    };
    note_readings(file, filters.iter().copied());
    let declared = declared_run(
        path,
        Some(doc),
        task,
        ctx.repeats,
        records.iter().filter_map(Value::as_object),
    );
    add_declared(file, declared);
    let mut ungraded = false;
    for (i, rec) in records.iter().enumerate() {
        let outcome = match rec.as_object() {
            Some(rec) => map_line(&ctx, i + 1, rec, file, &mut ungraded),
            None => Err("not a JSON object".to_string()),
        };
        if let Err(reason) = outcome {
            file.bad_lines += 1;
            file.warnings.push(format!(
                "{}: samples[{task}][{i}]: {reason}; sample skipped",
                path.display()
            ));
        }
    }
}

/// The task's aggregates from a results json. `primary` is the samples'
/// first metric, used when the config lists no metrics.
fn push_aggregates(
    path: &Path,
    doc: &Value,
    task: &str,
    primary: Option<&str>,
    out: &mut Vec<HarnessAggregate>,
) {
    let Some(Value::Object(res)) = doc.pointer(&format!("/results/{}", escape_ptr(task))) else {
        return;
    };
    // The first configured metric is the one the samples' verdicts use.
    let scored_by = doc
        .pointer(&format!(
            "/configs/{}/metric_list/0/metric",
            escape_ptr(task)
        ))
        .and_then(Value::as_str)
        .or(primary);
    for (key, v) in res {
        if key == "alias" || key.contains("_stderr,") {
            continue;
        }
        let Some(value) = v.as_f64() else { continue };
        let stderr = key
            .split_once(',')
            .and_then(|(m, f)| res.get(&format!("{m}_stderr,{f}")))
            .map(|s| match s {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        let mut note = format!("lm-eval results; task={task}");
        if let Some(s) = stderr {
            note.push_str(&format!("; stderr={s}"));
        }
        if let Some(m) = scored_by {
            note.push_str(&format!("; scored_by={m}"));
        }
        out.push(HarnessAggregate {
            source_path: path.to_path_buf(),
            format: Format::LmEvalResults,
            metric_name: key.clone(),
            value,
            note,
        });
    }
}

/// A task's run as the results declare it (`n-samples.<task>.effective`
/// documents, `repeats` per document) beside its records: the documents
/// present and those with fewer repeats in `resps[0]` than declared.
/// `None` when the run declares neither.
fn declared_run<'a>(
    path: &Path,
    doc: Option<&Value>,
    task: &str,
    repeats: Option<u64>,
    records: impl Iterator<Item = &'a serde_json::Map<String, Value>>,
) -> Option<crate::DeclaredRun> {
    let effective = doc
        .and_then(|d| d.pointer(&format!("/n-samples/{}/effective", escape_ptr(task))))
        .and_then(Value::as_u64);
    let repeats = repeats.filter(|&r| r > 1);
    if effective.is_none() && repeats.is_none() {
        return None;
    }
    let mut docs: BTreeSet<String> = BTreeSet::new();
    let mut short: BTreeSet<String> = BTreeSet::new();
    for rec in records {
        let Some(id) = rec.get("doc_id").map(Value::to_string) else {
            continue;
        };
        let n = rec
            .get("resps")
            .and_then(|r| r.get(0))
            .and_then(Value::as_array)
            .map_or(0, |a| a.len() as u64);
        if repeats.is_some_and(|r| n < r) {
            short.insert(id.clone());
        }
        docs.insert(id);
    }
    Some(crate::DeclaredRun {
        path: path.display().to_string(),
        status: None,
        finished: true,
        dataset_size: effective,
        rollouts: repeats,
        present: docs.len() as u64,
        short: short.len() as u64,
    })
}

/// Adds a task's declared run to the file's (a results file embeds several
/// tasks): counts add up; the repeats stay when every task declares the
/// same.
fn add_declared(file: &mut NativeFile, run: Option<crate::DeclaredRun>) {
    let Some(run) = run else { return };
    match &mut file.declared.run {
        None => file.declared.run = Some(run),
        Some(d) => {
            d.dataset_size = d.dataset_size.zip(run.dataset_size).map(|(a, b)| a + b);
            d.rollouts = d.rollouts.filter(|r| run.rollouts == Some(*r));
            d.present += run.present;
            d.short += run.short;
        }
    }
}

/// Several filters over the same responses are readings of one system,
/// kept apart in `run`: declared as such (added to those of other tasks of
/// the file).
fn note_readings<'a>(file: &mut NativeFile, filters: impl Iterator<Item = &'a str>) {
    let filters: Vec<&str> = filters.collect();
    if filters.len() < 2 {
        return;
    }
    let readings = file
        .declared
        .readings
        .get_or_insert_with(|| crate::Readings {
            what: "filter".into(),
            field: "run".into(),
            values: Vec::new(),
        });
    for f in filters {
        if !readings.values.iter().any(|v| v == f) {
            readings.values.push(f.to_string());
        }
    }
}

fn escape_ptr(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

pub(crate) fn read_samples(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::LmEvalSamples);
    let name = inner_name(path);
    let (task, date) = split_samples_name(&name).unzip();
    let results = date.as_deref().and_then(|d| results_beside(path, d));
    let text = input::text(path, bytes, &mut file.warnings);
    let lines = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
    // The samples' first metric: the one their verdicts come from.
    let primary = lines.first().and_then(|(_, r)| {
        r.get("metrics")?
            .as_array()?
            .first()?
            .as_str()
            .map(str::to_string)
    });
    let mut model = None;
    let mut repeats = None;
    if let Some((rpath, doc)) = &results {
        model = doc.get("model_name").cloned().filter(|m| !m.is_null());
        if let Some(t) = &task {
            repeats = doc
                .pointer(&format!("/configs/{}/repeats", escape_ptr(t)))
                .and_then(Value::as_u64);
            push_aggregates(rpath, doc, t, primary.as_deref(), &mut file.aggregates);
        }
    }
    let filters: BTreeSet<&str> = lines
        .iter()
        .map(|(_, r)| r.get("filter").and_then(Value::as_str).unwrap_or("none"))
        .collect();
    note_readings(&mut file, filters.iter().copied());
    let ctx = Ctx {
        path,
        task: task.map(Value::from),
        model,
        repeats,
        multi_filter: filters.len() > 1,
    };
    let declared = ctx.task.as_ref().and_then(Value::as_str).and_then(|t| {
        let doc = results.as_ref().map(|(_, d)| d);
        declared_run(path, doc, t, repeats, lines.iter().map(|(_, r)| r))
    });
    add_declared(&mut file, declared);
    let mut ungraded = false;
    for (line, rec) in lines {
        if let Err(reason) = map_line(&ctx, line, &rec, &mut file, &mut ungraded) {
            file.bad_lines += 1;
            file.warnings
                .push(format!("{}:{line}: {reason}; line skipped", path.display()));
        }
    }
    if ungraded {
        file.warnings.push(format!(
            "{}: repeats > 1: lm-eval scored only the filter output, so per-repeat rows \
             carry gold + response without `correct` (rollstat grades them)",
            path.display()
        ));
    }
    Ok(file)
}

struct Ctx<'a> {
    path: &'a Path,
    task: Option<Value>,
    model: Option<Value>,
    repeats: Option<u64>,
    /// Several filters: each filter's rows are a separate `run`.
    multi_filter: bool,
}

fn map_line(
    ctx: &Ctx<'_>,
    line: usize,
    rec: &Map<String, Value>,
    file: &mut NativeFile,
    ungraded: &mut bool,
) -> Result<(), String> {
    let doc_id = rec
        .get("doc_id")
        .filter(|v| v.is_number() || v.is_string())
        .ok_or("no \"doc_id\"")?
        .clone();
    let filter = rec.get("filter").cloned().unwrap_or(Value::from("none"));
    let (primary, doc_metrics) = doc_metrics(rec);
    let resps = rec
        .get("resps")
        .and_then(Value::as_array)
        .ok_or("no \"resps\" list")?;
    let filtered = rec.get("filtered_resps").and_then(Value::as_array);
    let generation: Option<&Vec<Value>> = match resps.as_slice() {
        [Value::Array(reps)] if reps.iter().all(Value::is_string) => Some(reps),
        _ => None,
    };
    let base = |r: &mut Rollout| {
        r.gold = rec.get("target").cloned();
        r.subset = ctx.task.clone();
        r.model = ctx.model.clone();
        if ctx.multi_filter {
            r.run = Some(filter.clone());
        }
        r.extra("filter", filter.clone());
        if let Some(p) = primary {
            r.extra("metric", Value::from(p));
        }
        if let Some(t) = &ctx.task {
            r.extra("task", t.clone());
        }
    };
    let verdict = primary.and_then(|p| rec.get(p));
    let Some(reps) = generation else {
        // Loglikelihood / multiple choice: one verdict per doc.
        let mut r = Rollout::new(doc_id);
        r.rollout = Some(0);
        set_verdict(&mut r, verdict);
        base(&mut r);
        file.rows.push(r.into_map());
        return Ok(());
    };
    if let Some(want) = ctx.repeats {
        if (reps.len() as u64) < want {
            file.warnings.push(format!(
                "{}:{line}: doc_id {doc_id} has {} of {want} configured repeats",
                ctx.path.display(),
                reps.len()
            ));
        }
    }
    let fout = filtered.and_then(|f| f.first());
    let per_repeat = match fout {
        Some(Value::Array(a)) if a.len() == reps.len() => Some(a),
        _ => None,
    };
    if reps.len() == 1 {
        let mut r = Rollout::new(doc_id);
        r.rollout = Some(0);
        set_verdict(&mut r, verdict);
        r.answer = fout.map(|f| match f {
            Value::Array(a) => answer_or_null(a.first(), UNEXTRACTED),
            other => answer_or_null(Some(other), UNEXTRACTED),
        });
        r.response = reps.first().cloned();
        base(&mut r);
        file.rows.push(r.into_map());
        return Ok(());
    }
    *ungraded = true;
    let repeats = Repeats {
        doc_id: &doc_id,
        reps,
        per_repeat,
        fout,
        doc_metrics: &doc_metrics,
    };
    repeats.push_rows(&base, file);
    Ok(())
}

/// The record's first metric name, and its per-doc metrics by name.
fn doc_metrics(rec: &Map<String, Value>) -> (Option<&str>, Map<String, Value>) {
    let metric_names: Vec<&str> = match rec.get("metrics") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut doc_metrics = Map::new();
    for m in &metric_names {
        if let Some(v) = rec.get(*m) {
            doc_metrics.insert((*m).to_string(), v.clone());
        }
    }
    (metric_names.first().copied(), doc_metrics)
}

/// A doc's N > 1 repeats: lm-eval scored only the filter output, so the
/// rows carry responses (and per-repeat answers when the filter kept one
/// per repeat) for rollstat to grade.
struct Repeats<'a> {
    doc_id: &'a Value,
    reps: &'a [Value],
    per_repeat: Option<&'a Vec<Value>>,
    fout: Option<&'a Value>,
    doc_metrics: &'a Map<String, Value>,
}

impl Repeats<'_> {
    fn push_rows(&self, base: &dyn Fn(&mut Rollout), file: &mut NativeFile) {
        for (i, resp) in self.reps.iter().enumerate() {
            let mut r = Rollout::new(self.doc_id.clone());
            r.rollout = Some(i as u64);
            if let Some(a) = self.per_repeat {
                r.answer = Some(answer_or_null(a.get(i), UNEXTRACTED));
            }
            r.response = Some(resp.clone());
            base(&mut r);
            if self.per_repeat.is_none() {
                if let Some(f) = self.fout {
                    r.extra("filter_output", f.clone());
                }
            }
            r.extra("doc_metrics", Value::Object(self.doc_metrics.clone()));
            file.rows.push(r.into_map());
        }
    }
}

fn set_verdict(r: &mut Rollout, v: Option<&Value>) {
    match v {
        Some(v) => match as_verdict(v) {
            Some(b) => r.correct = Some(Value::Bool(b)),
            None => r.score = Some(v.clone()),
        },
        None => r.correct = Some(Value::Null),
    }
}
