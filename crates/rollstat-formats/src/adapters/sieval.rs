//! SiEval task result directories: `report.json`, `manifest.json` and
//! `<iteration>/{final,failed}/<shard>.jsonl` with one full `TaskContext` per
//! sample.
//!
//! Per sample: `problem` = `sample_id`; rollout i joins `infer_result.texts[i]`
//! (`response`, `finish_reasons[i]`), `postprocess_result.rollouts[index=i]`
//! (`prediction`; `extracted: false` → `answer: null`) and
//! `feedback_result.rollouts[index=i]` (`correct`, `score`). A repeated split
//! (`repeat_index`, copy-major) continues the rollout numbering. Samples in
//! `failed/` (or with no judgement) are failed: `correct: null` with
//! `error_reason`. When a sample appears in several iterations the highest
//! iteration wins. Numeric entries of `report.json` are harness aggregates
//! (rates are percentages 0–100).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input::{self, DecompressLimit};
use crate::util::{as_index, numeric_leaves, read_jsonl, Rollout};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `sieval` (one shard file; a result directory is recognised by the walk):
/// records with `sample_id` and a result.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    if p.has("sample_id") && p.has_any(&["feedback_result", "postprocess_result", "infer_result"]) {
        Ok(())
    } else {
        Err(p.missing("keys", &["sample_id", "feedback_result"]))
    }
}

/// `report.json` leaves are plain (`pass@k` with `k` beside it, `n_short`).
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::Name::plain(name), hints));

/// Rollouts per sample beyond this are not believed (corrupt counts).
const MAX_ROLLOUTS: u64 = 1 << 20;

fn is_iteration_dir(p: &Path) -> bool {
    p.is_dir()
        && p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        && (p.join("final").is_dir() || p.join("failed").is_dir())
}

fn iteration_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut its: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_iteration_dir(p))
                .collect()
        })
        .unwrap_or_default();
    its.sort_by_key(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u64>().ok())
    });
    its
}

/// A SiEval task root: `report.json` or `manifest.json` beside `<it>/final/`.
pub(crate) fn is_result_dir(dir: &Path) -> bool {
    (dir.join("report.json").is_file() || dir.join("manifest.json").is_file())
        && !iteration_dirs(dir).is_empty()
}

fn shard_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort_by_key(|p| {
        let stem = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        (stem.parse::<u64>().unwrap_or(u64::MAX), stem)
    });
    files
}

pub(crate) fn read_dir(dir: &Path, limit: DecompressLimit) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(dir, Format::Sieval);
    let mut hashes = Vec::new();
    let task = task_of(dir);
    let n_hint = read_report(dir, task.as_deref(), limit, &mut file, &mut hashes)?;
    let (mut latest, order) = latest_records(dir, limit, &mut file, &mut hashes)?;
    if order.is_empty() {
        return Err(FormatError::parse(
            dir,
            None,
            "SiEval result directory without any <iteration>/final or failed shard records",
            "point rollstat at a finished task directory (one with 0/final/*.jsonl)",
        ));
    }
    hashes.sort();
    file.sha256 = Some(input::sha256_hex(hashes.concat().as_bytes()));
    for key in order {
        if let Some((_, rec, failed)) = latest.remove(&key) {
            map_record(&rec, failed, n_hint, task.as_deref(), &mut file.rows);
        }
    }
    Ok(file)
}

/// The task: the directory's name, or its parent's when the directory is
/// a 14-digit run timestamp.
fn task_of(dir: &Path) -> Option<String> {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    if name.len() == 14 && name.bytes().all(|b| b.is_ascii_digit()) {
        dir.parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .map(str::to_string)
    } else {
        Some(name).filter(|n| !n.is_empty())
    }
}

/// `report.json`'s numbers as aggregates (hashed into `hashes`); its `n`.
fn read_report(
    dir: &Path,
    task: Option<&str>,
    limit: DecompressLimit,
    file: &mut NativeFile,
    hashes: &mut Vec<String>,
) -> Result<Option<u64>, FormatError> {
    let report_path = dir.join("report.json");
    if !report_path.is_file() {
        return Ok(None);
    }
    let loaded = input::load(&report_path, limit)?;
    hashes.push(format!("report.json\0{}\n", loaded.sha256));
    let text = input::text(&report_path, &loaded.content, &mut file.warnings);
    let report: Value = crate::util::read_json(&report_path, &text)?;
    let mut leaves = Vec::new();
    numeric_leaves("", &report, &mut leaves);
    for (k, v) in leaves {
        file.aggregates.push(HarnessAggregate {
            source_path: report_path.clone(),
            format: Format::Sieval,
            metric_name: k,
            value: v,
            note: format!(
                "SiEval report.json; task={}; rates are percentages (0-100)",
                task.unwrap_or("?")
            ),
        });
    }
    Ok(report.get("n").and_then(as_index))
}

/// Records by `sample_id#repeat_index`: (iteration, record, failed).
type Latest = BTreeMap<String, (u64, Map<String, Value>, bool)>;

/// Every shard's records, the latest iteration winning per sample id,
/// with the keys in first-seen order.
fn latest_records(
    dir: &Path,
    limit: DecompressLimit,
    file: &mut NativeFile,
    hashes: &mut Vec<String>,
) -> Result<(Latest, Vec<String>), FormatError> {
    let mut latest = Latest::new();
    let mut order: Vec<String> = Vec::new();
    for it in iteration_dirs(dir) {
        let iteration = it
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        for (stage, failed) in [("final", false), ("failed", true)] {
            for shard in shard_files(&it.join(stage)) {
                let loaded = input::load(&shard, limit)?;
                let rel = shard
                    .strip_prefix(dir)
                    .unwrap_or(&shard)
                    .display()
                    .to_string();
                hashes.push(format!("{rel}\0{}\n", loaded.sha256));
                let text = input::text(&shard, &loaded.content, &mut file.warnings);
                let recs = read_jsonl(&shard, &text, &mut file.warnings, &mut file.bad_lines)?;
                for (line, rec) in recs {
                    let Some(id) = rec
                        .get("sample_id")
                        .filter(|v| v.is_number() || v.is_string())
                    else {
                        file.bad_lines += 1;
                        file.warnings.push(format!(
                            "{}:{line}: no sample_id; line skipped",
                            shard.display()
                        ));
                        continue;
                    };
                    let repeat = rec.get("repeat_index").map(|v| v.to_string());
                    let key = format!("{}#{}", id, repeat.unwrap_or_default());
                    if !latest.contains_key(&key) {
                        order.push(key.clone());
                    }
                    let replace = latest.get(&key).is_none_or(|(i, _, _)| iteration >= *i);
                    if replace {
                        latest.insert(key, (iteration, rec, failed));
                    }
                }
            }
        }
    }
    Ok((latest, order))
}

/// One shard file read on its own (no report.json).
pub(crate) fn read_shard_file(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::Sieval);
    let text = input::text(path, bytes, &mut file.warnings);
    let recs = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
    let failed_dir = path
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "failed");
    for (line, rec) in recs {
        if rec.get("sample_id").is_none() {
            file.bad_lines += 1;
            file.warnings.push(format!(
                "{}:{line}: no sample_id; line skipped",
                path.display()
            ));
            continue;
        }
        map_record(&rec, failed_dir, None, None, &mut file.rows);
    }
    Ok(file)
}

fn by_index(list: Option<&Value>) -> BTreeMap<u64, &Map<String, Value>> {
    let mut out = BTreeMap::new();
    if let Some(Value::Array(items)) = list {
        for (pos, it) in items.iter().enumerate() {
            if let Some(o) = it.as_object() {
                let idx = o.get("index").and_then(as_index).unwrap_or(pos as u64);
                out.insert(idx, o);
            }
        }
    }
    out
}

fn map_record(
    rec: &Map<String, Value>,
    failed_stage: bool,
    n_hint: Option<u64>,
    task: Option<&str>,
    rows: &mut Vec<Map<String, Value>>,
) {
    let Some(id) = rec.get("sample_id").cloned() else {
        return;
    };
    let infer = rec.get("infer_result");
    let texts = infer.and_then(|i| i.get("texts")).and_then(Value::as_array);
    let finish = infer
        .and_then(|i| i.get("finish_reasons"))
        .and_then(Value::as_array);
    let model = infer.and_then(|i| i.pointer("/model/model")).cloned();
    let post = by_index(
        rec.get("postprocess_result")
            .and_then(|p| p.get("rollouts")),
    );
    let feedback = rec.get("feedback_result");
    let judged = by_index(feedback.and_then(|f| f.get("rollouts")));
    let failed = failed_stage
        || rec.get("stage").and_then(Value::as_str) == Some("failed")
        || (feedback.is_none() && rec.get("error_reason").is_some());
    let mut n = [
        texts.map(|t| t.len() as u64),
        post.keys().last().map(|k| k + 1),
        judged.keys().last().map(|k| k + 1),
        feedback
            .and_then(|f| f.get("n_rollouts"))
            .and_then(as_index),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    if n == 0 {
        n = n_hint.unwrap_or(1).max(1);
    }
    // A corrupt count must not allocate without bound.
    n = n.min(MAX_ROLLOUTS);
    let offset = rec
        .get("repeat_index")
        .and_then(as_index)
        .map(|r| r * n)
        .unwrap_or(0);
    let gold = feedback
        .and_then(|f| f.get("reference"))
        .or_else(|| {
            rec.get("preprocess_result")
                .and_then(|p| p.get("reference"))
        })
        .cloned();
    for i in 0..n {
        let mut r = Rollout::new(id.clone());
        r.rollout = Some(offset + i);
        r.correct = Some(match judged.get(&i).and_then(|j| j.get("correct")) {
            Some(Value::Bool(b)) if !failed => Value::Bool(*b),
            _ => Value::Null,
        });
        if let Some(p) = post.get(&i) {
            let extracted = p.get("extracted").and_then(Value::as_bool).unwrap_or(true);
            r.answer = Some(match p.get("prediction") {
                Some(v) if extracted && !v.is_null() => v.clone(),
                _ => Value::Null,
            });
        }
        r.gold = gold.clone();
        r.response = texts.and_then(|t| t.get(i as usize)).cloned();
        r.finish_reason = finish
            .and_then(|f| f.get(i as usize))
            .cloned()
            .filter(|v| !v.is_null());
        r.score = judged
            .get(&i)
            .and_then(|j| j.get("score"))
            .cloned()
            .filter(|v| !v.is_null());
        r.subset = task.map(Value::from);
        r.model = model.clone();
        if let Some(it) = rec.get("iteration") {
            r.extra("iteration", it.clone());
        }
        if let Some(ri) = rec.get("repeat_index") {
            r.extra("repeat_index", ri.clone());
        }
        if failed {
            r.extra("stage", Value::from("failed"));
        }
        if let Some(e) = rec.get("error_reason") {
            r.extra("error_reason", e.clone());
        }
        rows.push(r.into_map());
    }
}
